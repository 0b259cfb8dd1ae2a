package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/storage"
)

// finalNames returns the files in dir that are not hidden temporaries.
func finalNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	return names
}

// The four outputs appear together or not at all: cancelling the run the
// moment the first file appears under its final name (as SIGINT would)
// must not leave part of the set.
func TestWriteDataAllOrNothing(t *testing.T) {
	d, err := Generate(context.Background(), 3000, 3000, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, dataDir := range []string{"", "data"} { // generated: four outputs; --data: two
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		stop := make(chan struct{})
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if entries, _ := os.ReadDir(dir); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return !strings.HasPrefix(e.Name(), ".") }) {
					cancel()
					return
				}
				time.Sleep(50 * time.Microsecond)
			}
		}()
		cfg := smallConfig(dir)
		cfg.Shards, cfg.DataDir = 8, dataDir
		res := &Result{Dir: dir}
		err := writeData(ctx, cfg, res, d)
		close(stop)
		<-watched
		cancel()
		want := 32
		if dataDir != "" {
			want = 16
		}
		got := finalNames(t, dir)
		all, _ := os.ReadDir(dir)
		switch {
		case err == nil && (len(got) != want || len(all) != want):
			t.Errorf("data %q: written, but %d files (%d with temporaries), want %d", dataDir, len(got), len(all), want)
		case err != nil && len(all) != 0:
			t.Errorf("data %q: interrupted (%v), but left %d files: %v", dataDir, err, len(all), got)
		}
	}
}

// A run into a folder holding another run's shards leaves them, names
// them in a note and advertises patterns that match only its own files.
func TestOtherFilesReported(t *testing.T) {
	dir := t.TempDir()
	d, err := Generate(context.Background(), 60, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig(dir)
	cfg.Shards = 3
	if err := writeData(context.Background(), cfg, &Result{Dir: dir}, d); err != nil {
		t.Fatal(err)
	}
	cfg.Shards = 2
	res := &Result{Dir: dir}
	if err := writeData(context.Background(), cfg, res, d); err != nil {
		t.Fatal(err)
	}
	if len(res.Written) != 8 || len(res.OtherFiles) != 12 {
		t.Fatalf("written %d, others %d: %v", len(res.Written), len(res.OtherFiles), res.OtherFiles)
	}
	for _, f := range res.OtherFiles {
		if !strings.Contains(f, "-of-00003.") {
			t.Errorf("%s reported as another run's", f)
		}
		if _, err := os.Stat(f); err != nil {
			t.Errorf("another run's file: %v", err)
		}
	}
	var out bytes.Buffer
	res.Summary(&out)
	s := out.String()
	for _, want := range []string{
		"train-*-of-00002.tfrecord.gz, test-*-of-00002.bin, test-*-of-00002.tfrecord, train-*-of-00002.bin",
		"note              " + dir + " also holds 12 files",
		"(test-*-of-00003.bin, test-*-of-00003.tfrecord, train-*-of-00003.bin, train-*-of-00003.tfrecord.gz)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

// A run removes the temporaries that killed runs left beside the files
// any run writes, whatever their shard count, and no other's; beside a
// running writer of one of them it refuses and leaves the folder as it
// was.
func TestWriteDataRemovesLeftovers(t *testing.T) {
	d, err := Generate(context.Background(), 300, 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	temp := func(final string) string {
		return filepath.Join(dir, "."+final+storage.TempMarker+storage.LockedTag+"0123456789ab")
	}
	dead := []string{temp("train-00000-of-00002.tfrecord.gz"), temp("test-00003-of-00004.bin"), temp("test-00000-of-00004.tfrecord")}
	other := temp("train.tfrecord")
	for _, p := range append(dead, other) {
		os.WriteFile(p, []byte("partial"), 0o644)
	}
	running, err := storage.CreatePending(t.Context(), filepath.Join(dir, "test-00001-of-00002.tfrecord"))
	if err != nil {
		t.Fatal(err)
	}
	defer running.Abort()
	before, _ := os.ReadDir(dir)

	cfg := smallConfig(dir)
	cfg.Shards = 2
	err = writeData(t.Context(), cfg, &Result{Dir: dir}, d)
	if err == nil || !strings.Contains(err.Error(), "another run is writing") || !strings.Contains(err.Error(), running.TempName()) {
		t.Errorf("writeData beside a running writer: %v, want an error naming its temporary", err)
	}
	if after, _ := os.ReadDir(dir); len(after) != len(before) {
		t.Errorf("the refused run changed the folder: %d entries, were %d", len(after), len(before))
	}

	running.Abort()
	res := &Result{Dir: dir}
	if err := writeData(t.Context(), cfg, res, d); err != nil {
		t.Fatal(err)
	}
	slices.Sort(dead)
	if !slices.Equal(res.RemovedLeftovers, dead) {
		t.Errorf("removed %q, want %q", res.RemovedLeftovers, dead)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if p := filepath.Join(dir, e.Name()); storage.IsTemp(p) && p != other {
			t.Errorf("temporary %s left", e.Name())
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another output's temporary: %v", err)
	}
}
