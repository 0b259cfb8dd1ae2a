package sluice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/storage"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Resuming from checkpoints taken where a run is not simply between two
// batches read in full: the planner has met bad data ahead of the
// batches delivered, waits for a slow read, or was stopped.

// writeNamed writes files of records named "f<i>r<j>", file i compressed
// as cs[i%len(cs)] (none without cs), record damaged[i] of file i (if in
// the map) with a flipped byte: its data CRC fails, or with header its
// length's.
func writeNamed(t *testing.T, dir string, counts []int, damaged map[int]int, header bool, cs ...tfrecord.Compression) string {
	t.Helper()
	for i, n := range counts {
		var raw bytes.Buffer
		w := tfrecord.NewWriter(&raw, tfrecord.None)
		var offs []int
		off := 0
		for j := range n {
			rec := fmt.Appendf(nil, "f%dr%d", i, j)
			offs = append(offs, off)
			off += 8 + 4 + len(rec) + 4 // length, its CRC, data, its CRC
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data := raw.Bytes()
		if j, ok := damaged[i]; ok {
			at := offs[j] + 12 // the first data byte
			if header {
				at = offs[j] + 8 // the length's CRC
			}
			data[at] ^= 0xff
		}
		if len(cs) > 0 && cs[i%len(cs)] != tfrecord.None {
			var out bytes.Buffer
			cw, err := tfrecord.NewCompressor(cs[i%len(cs)], &out)
			if err != nil {
				t.Fatal(err)
			}
			cw.Write(data)
			if err := cw.Close(); err != nil {
				t.Fatal(err)
			}
			data = out.Bytes()
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%03d.tfrecord", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "part-*")
}

// A recordRun is the batches of an iteration, each its records' names, and
// the error that ended it (nil at io.EOF).
type recordRun struct {
	batches []string
	err     error
}

func drain(t *testing.T, it *Iterator) recordRun {
	t.Helper()
	return batchNames(it)
}

// sameTail reports how got, a run resumed from a checkpoint after from
// batches, differs from want, the whole run; "" if it does not.
func sameTail(got, want recordRun, from int) string {
	if !slices.Equal(got.batches, want.batches[from:]) {
		i := firstDiff(got.batches, want.batches[from:])
		return fmt.Sprintf("%d batches, want %d, the first different at %d", len(got.batches), len(want.batches)-from, from+i)
	}
	if (got.err == nil) != (want.err == nil) || got.err != nil && got.err.Error() != want.err.Error() {
		return fmt.Sprintf("ends with %v, want %v", got.err, want.err)
	}
	return ""
}

// checkpointAt returns the checkpoint of a new iteration of ds in batches
// of n after k batches, less back, and closes the iteration; settle, if
// not nil, runs before the checkpoint is taken.
func checkpointAt(t *testing.T, ctx context.Context, ds *Dataset, n, k, back int, settle func()) []byte {
	t.Helper()
	it, err := ds.Iterator(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for range k {
		if _, err := it.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if settle != nil {
		settle()
	}
	ck, err := it.CheckpointBefore(back)
	if err != nil {
		t.Fatalf("after %d batches, back %d: %v", k, back, err)
	}
	return ck
}

// resumed reads ds in batches of n from the checkpoint ck to its end.
func resumed(t *testing.T, ctx context.Context, ds *Dataset, n int, ck []byte) recordRun {
	t.Helper()
	it, err := ds.Iterator(ctx, n, Resume(ck))
	if err != nil {
		t.Fatal(err)
	}
	return drain(t, it)
}

// TestResumeAroundCorruptRecords takes a checkpoint after every batch of
// runs that meet a corrupt record, once the planner has gone as far ahead
// as it can (synctest.Wait), often to the corrupt record and beyond the
// batches delivered: the run resumed gives the batches and the error the
// whole run gave. Before, the records of a reader's block before its
// error were read again on resume, and the batch being made when the
// error came was lost.
func TestResumeAroundCorruptRecords(t *testing.T) {
	dir := t.TempDir()
	pattern := writeNamed(t, dir, []int{40, 60}, map[int]int{0: 30}, false)
	for name, ds := range map[string]*Dataset{
		"one reader":          Records(pattern, Deterministic(), Readers(1)),
		"two readers":         Records(pattern, Deterministic(), Readers(2), Epochs(2)),
		"two readers shuffle": Records(pattern, Deterministic(), Readers(2), Shuffle(10), Seed(1)),
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				it, err := ds.Iterator(ctx, 4)
				if err != nil {
					t.Fatal(err)
				}
				want := drain(t, it)
				if want.err == nil || !strings.Contains(want.err.Error(), "corrupt") {
					t.Fatalf("the whole run ends with %v, want the corrupt record", want.err)
				}
				for cut := range len(want.batches) + 1 {
					for _, back := range []int{0, 1, 3} {
						if back > cut {
							continue
						}
						ck := checkpointAt(t, ctx, ds, 4, cut, back, synctest.Wait)
						if d := sameTail(resumed(t, ctx, ds, 4, ck), want, cut-back); d != "" {
							t.Errorf("cut %d back %d: resumed run: %s", cut, back, d)
						}
					}
				}
			})
		})
	}
}

// TestResumeFailedRunSkipping resumes a run that failed at a corrupt
// record from its last checkpoint with SkipCorrupt, as a user mends a
// failed job: the records after the checkpoint come once each, the
// corrupt one left out, none lost.
func TestResumeFailedRunSkipping(t *testing.T) {
	dir := t.TempDir()
	pattern := writeNamed(t, dir, []int{40, 15}, map[int]int{0: 30}, false)
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		it, err := Records(pattern, Deterministic(), Readers(1)).Iterator(ctx, 4)
		if err != nil {
			t.Fatal(err)
		}
		var before []string
		for range 5 {
			b, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range b.Bytes(RecordFeature) {
				before = append(before, string(r))
			}
		}
		synctest.Wait() // the planner has met the corrupt record
		ck, err := it.Checkpoint()
		it.Close()
		if err != nil {
			t.Fatal(err)
		}
		resumed, err := Records(pattern, Deterministic(), Readers(1), SkipCorrupt()).Iterator(ctx, 4, Resume(ck))
		if err != nil {
			t.Fatal(err)
		}
		rest := drain(t, resumed)
		if rest.err != nil {
			t.Fatal(rest.err)
		}
		got := slices.Clone(before)
		for _, b := range rest.batches {
			got = append(got, strings.Split(b, "|")...)
		}
		var want []string
		for j := range 40 {
			if j != 30 {
				want = append(want, fmt.Sprintf("f0r%d", j))
			}
		}
		for j := range 15 {
			want = append(want, fmt.Sprintf("f1r%d", j))
		}
		if !slices.Equal(got, want) {
			t.Errorf("records of the run and its resumption:\n got  %v\n want %v", got, want)
		}
	})
}

// TestResumeAfterSkippedCompressed resumes, in a compressed file, at the
// record after one SkipCorrupt skipped: reading up to it skips the
// corrupt one and reads it in the same step, which must not count as
// going past it.
func TestResumeAfterSkippedCompressed(t *testing.T) {
	for _, c := range []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd} {
		for _, header := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/length CRC %v", c, header), func(t *testing.T) {
				// Records 0-6 are the first batch, 7 is corrupt, 8 the
				// first the resumed run reads.
				ds := Records(writeNamed(t, t.TempDir(), []int{20}, map[int]int{0: 7}, header, c), Deterministic(), Readers(1), SkipCorrupt())
				it, err := ds.Iterator(t.Context(), 7)
				if err != nil {
					t.Fatal(err)
				}
				want := drain(t, it)
				ck := checkpointAt(t, t.Context(), ds, 7, 1, 0, nil)
				if d := sameTail(resumed(t, t.Context(), ds, 7, ck), want, 1); d != "" {
					t.Errorf("resumed run: %s", d)
				}
			})
		}
	}
}

// gatedFS serves gated://PATH from the local disk; reading a file whose
// name has "slow" in it waits until gate is closed, or the context it was
// opened with ends, as a network file system's reads do.
type gatedFS struct{ gate chan struct{} }

type gatedFile struct {
	storage.File
	name string
	gate chan struct{}
	ctx  context.Context
}

func (f gatedFile) Name() string { return f.name }

func (f gatedFile) wait() error {
	select {
	case <-f.gate:
		return nil
	case <-f.ctx.Done():
		return f.ctx.Err()
	}
}

func (f gatedFile) Read(b []byte) (int, error) {
	if err := f.wait(); err != nil {
		return 0, err
	}
	return f.File.Read(b)
}

func (f gatedFile) ReadAt(b []byte, off int64) (int, error) {
	if err := f.wait(); err != nil {
		return 0, err
	}
	return f.File.ReadAt(b, off)
}

func (g *gatedFS) Open(ctx context.Context, name string) (storage.File, error) {
	path := strings.TrimPrefix(name, "gated://")
	f, err := storage.Local{}.Open(ctx, path)
	if err != nil || !strings.Contains(path, "slow") {
		return f, err
	}
	return gatedFile{File: f, name: name, gate: g.gate, ctx: ctx}, nil
}

func (g *gatedFS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	return nil, errors.ErrUnsupported
}

func (g *gatedFS) Glob(ctx context.Context, pattern string) ([]string, error) {
	names, err := storage.Local{}.Glob(ctx, strings.TrimPrefix(pattern, "gated://"))
	for i := range names {
		names[i] = "gated://" + names[i]
	}
	return names, err
}

// TestCheckpointWhileAReadWaits reads a file of 130 records and a slow one
// in batches of 5: batch 26 waits for the slow file. The 25 before it are
// delivered, and a Checkpoint taken, while that read waits (before, the
// planner held its lock through the wait, so both waited for it), and so
// is one after Close stops the run there (before, the records taken for
// batch 26 were lost). Both resume exactly.
func TestCheckpointWhileAReadWaits(t *testing.T) {
	dir := t.TempDir()
	writeNamed(t, dir, []int{130, 10}, nil, false)
	if err := os.Rename(filepath.Join(dir, "part-001.tfrecord"), filepath.Join(dir, "part-001-slow.tfrecord")); err != nil {
		t.Fatal(err)
	}
	fs := &gatedFS{gate: make(chan struct{})}
	close(fs.gate)
	storage.Register("gated", fs)
	defer storage.Unregister("gated")
	ds := Records("gated://"+filepath.Join(dir, "part-*"), Deterministic(), Readers(1))
	it, err := ds.Iterator(t.Context(), 5)
	if err != nil {
		t.Fatal(err)
	}
	want := drain(t, it)
	if len(want.batches) != 28 || want.err != nil {
		t.Fatalf("the whole run: %d batches, %v", len(want.batches), want.err)
	}
	for _, closed := range []bool{false, true} {
		fs.gate = make(chan struct{})
		it, err := ds.Iterator(t.Context(), 5)
		if err != nil {
			t.Fatal(err)
		}
		// A guard against a hang, not a timing: each step takes
		// microseconds.
		done := make(chan []byte)
		go func() {
			for range 25 {
				if _, err := it.Next(); err != nil {
					t.Error(err)
				}
			}
			if closed {
				it.Close()
			}
			ck, err := it.Checkpoint()
			if err != nil {
				t.Error(err)
			}
			done <- ck
		}()
		var ck []byte
		select {
		case ck = <-done:
		case <-time.After(5 * time.Second):
			buf := make([]byte, 1<<20)
			t.Logf("%s", buf[:runtime.Stack(buf, true)])
			t.Fatal("batches read already, or a checkpoint, waited for a later read")
		}
		close(fs.gate)
		if !closed {
			if d := sameTail(drain(t, it), want, 25); d != "" {
				t.Errorf("the run after the checkpoint: %s", d)
			}
		}
		if d := sameTail(resumed(t, t.Context(), ds, 5, ck), want, 25); d != "" {
			t.Errorf("closed %v: resumed run: %s", closed, d)
		}
	}
}

// TestCheckpointBeforeAfterResume goes back no further than the batches
// the resumed iteration delivered, with an error rather than a panic.
func TestCheckpointBeforeAfterResume(t *testing.T) {
	dir := t.TempDir()
	ds := Records(writeNamed(t, dir, []int{40, 30}, nil, false), Deterministic(), Readers(2))
	it, err := ds.Iterator(t.Context(), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := drain(t, it)
	ck := checkpointAt(t, t.Context(), ds, 4, 5, 0, nil)
	it, err = ds.Iterator(t.Context(), 4, Resume(ck))
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	if _, err := it.CheckpointBefore(1); !errors.Is(err, ErrInvalid) {
		t.Errorf("CheckpointBefore(1) at once: %v, want ErrInvalid", err)
	}
	it.Next()
	it.Next()
	if _, err := it.CheckpointBefore(3); !errors.Is(err, ErrInvalid) {
		t.Errorf("CheckpointBefore(3) after 2: %v, want ErrInvalid", err)
	}
	ck, err = it.CheckpointBefore(2)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameTail(resumed(t, t.Context(), ds, 4, ck), want, 5); d != "" {
		t.Errorf("resumed twice: %s", d)
	}
}

// writeBadExample writes one uncompressed TFRecord file of n Examples
// labelled 0 to n-1 but for record bad, which is no Example: the file
// reads soundly and that record's batch fails to decode.
func writeBadExample(t *testing.T, dir string, n, bad int) string {
	t.Helper()
	var raw bytes.Buffer
	w := tfrecord.NewWriter(&raw, tfrecord.None)
	for j := range n {
		rec := example.New().Int64("label", int64(j)).Marshal()
		if j == bad {
			rec = []byte("not an Example")
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "bad-000.tfrecord")
	if err := os.WriteFile(name, raw.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// batchNames runs it to its end and returns its batches, each its
// records' names or its labels, and the error that ended it (nil at
// io.EOF).
func batchNames(it *Iterator) recordRun {
	defer it.Close()
	var r recordRun
	for {
		b, err := it.Next()
		if err == io.EOF {
			return r
		}
		if err != nil {
			r.err = err
			return r
		}
		if slices.Contains(b.Names(), RecordFeature) {
			var names []string
			for _, rec := range b.Bytes(RecordFeature) {
				names = append(names, string(rec))
			}
			r.batches = append(r.batches, strings.Join(names, "|"))
		} else {
			r.batches = append(r.batches, fmt.Sprint(b.Dense("label").Data()))
		}
	}
}

// TestCheckpointAfterError reads each data set until Next fails, then
// takes CheckpointBefore(k), as the Python server does for a client that
// has read ahead: the position k batches before the error is known, and
// the run resumed there gives those k batches and the same error. Before,
// both Checkpoint and CheckpointBefore returned the error, so a client's
// read-ahead reaching a corrupt record made its state unsavable batches
// before its trainer met it, and a failed job could not save where it
// was to be mended with SkipCorrupt.
func TestCheckpointAfterError(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	corrupt := writeNamed(t, dir, []int{100, 30}, map[int]int{0: 50}, false)
	bad := writeBadExample(t, dir, 100, 57)
	spec := example.Spec{"label": example.FixedLen(tensor.Int64)}
	for _, c := range []struct {
		name string
		ds   *Dataset
	}{
		// The reader's error, which the planner returns after the
		// records before it.
		{"corrupt record", Records(corrupt, Deterministic(), Readers(1))},
		{"corrupt record, shuffled", Records(corrupt, Deterministic(), Readers(2), Shuffle(20), Seed(4))},
		// A batch made and failing to decode: it stays undelivered.
		{"bad example", Examples(bad, spec, Deterministic(), Readers(1))},
		{"bad example, shuffled", Examples(bad, spec, Deterministic(), Shuffle(30), Seed(4))},
		{"bad example, global", Examples(bad, spec, GlobalShuffle(), Seed(4))},
	} {
		t.Run(c.name, func(t *testing.T) {
			it, err := c.ds.Iterator(t.Context(), 5)
			if err != nil {
				t.Fatal(err)
			}
			want := batchNames(it)
			if want.err == nil {
				t.Fatal("the whole run ends without an error")
			}
			n := len(want.batches)
			for _, back := range []int{0, 1, 5, min(n, MaxCheckpointBefore)} {
				it, err := c.ds.Iterator(t.Context(), 5)
				if err != nil {
					t.Fatal(err)
				}
				if got := batchNames(it); got.err == nil || len(got.batches) != n {
					t.Fatalf("a second run: %d batches, %v", len(got.batches), got.err)
				}
				ck, err := it.CheckpointBefore(back)
				if err != nil {
					t.Fatalf("CheckpointBefore(%d) after %d batches and the error: %v", back, n, err)
				}
				if back == 0 {
					if ck2, err := it.Checkpoint(); err != nil || !bytes.Equal(ck, ck2) {
						t.Errorf("Checkpoint after the error: %v, and not CheckpointBefore(0)'s", err)
					}
				}
				if d := sameTail(resumed(t, t.Context(), c.ds, 5, ck), want, n-back); d != "" {
					t.Errorf("back %d: resumed run: %s", back, d)
				}
			}
		})
	}
}

// countedFS serves counted://PATH from the local disk, as a network file
// system does: it counts the files opened, an Open fails once its
// context has ended, and opening a file whose name has "slow" in it
// waits for gate (if not nil) or the end of the context.
type countedFS struct {
	opens atomic.Int64
	gate  chan struct{}
}

func (c *countedFS) Open(ctx context.Context, name string) (storage.File, error) {
	c.opens.Add(1)
	path := strings.TrimPrefix(name, "counted://")
	if c.gate != nil && strings.Contains(path, "slow") {
		select {
		case <-c.gate:
		case <-ctx.Done():
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := storage.Local{}.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	return gatedFile{File: f, name: name, gate: closedGate, ctx: ctx}, nil
}

var closedGate = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (c *countedFS) Create(ctx context.Context, name string) (io.WriteCloser, error) {
	return nil, errors.ErrUnsupported
}

func (c *countedFS) Glob(ctx context.Context, pattern string) ([]string, error) {
	names, err := storage.Local{}.Glob(ctx, strings.TrimPrefix(pattern, "counted://"))
	for i := range names {
		names[i] = "counted://" + names[i]
	}
	return names, err
}

// TestCheckpointAfterCancel is a program's shutdown as Go programs do it:
// signal.NotifyContext cancels the iteration's context, and the program
// saves its position between two steps. The checkpoint after 3 batches
// resumes there, and opens no file: the run learnt the files' sizes as it
// started (a deterministic run in the background, waited for here), as
// the checkpoint of a resumed run and of a global shuffle know them. A
// size the run has not learnt (its file's open still waits) is learnt by
// the checkpoint, not with the ended context. Before, every checkpoint
// opened every file with the iteration's context, and failed with
// "context canceled".
func TestCheckpointAfterCancel(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	// A reader's first block, 128 records, is of the first file.
	writeNamed(t, dir, []int{200, 50}, nil, false)
	if err := os.Rename(filepath.Join(dir, "part-001.tfrecord"), filepath.Join(dir, "part-001-slow.tfrecord")); err != nil {
		t.Fatal(err)
	}
	fs := &countedFS{}
	storage.Register("counted", fs)
	defer storage.Unregister("counted")
	pattern := "counted://" + filepath.Join(dir, "part-*")
	det := Records(pattern, Deterministic(), Shuffle(10), Seed(1))
	global := Records(pattern, GlobalShuffle(), Seed(1))
	for _, c := range []struct {
		name   string
		ds     *Dataset
		resume bool // from a checkpoint after 1 batch
		gated  bool // the slow file's open waits until after the checkpoint
	}{
		{name: "deterministic", ds: det},
		{name: "deterministic resumed", ds: det, resume: true},
		{name: "deterministic, a size not learnt", ds: Records(pattern, Deterministic(), Readers(1)), gated: true},
		{name: "global", ds: global},
		{name: "global resumed", ds: global, resume: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs.gate = nil
			it, err := c.ds.Iterator(t.Context(), 5)
			if err != nil {
				t.Fatal(err)
			}
			want := drain(t, it)
			var opts []BatchOption
			from := 0
			if c.resume {
				opts, from = append(opts, Resume(checkpointAt(t, t.Context(), c.ds, 5, 1, 0, nil))), 1
			}
			if c.gated {
				fs.gate = make(chan struct{})
			}
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				it, err := c.ds.Iterator(ctx, 5, opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer it.Close()
				for range 3 {
					if _, err := it.Next(); err != nil {
						t.Fatal(err)
					}
				}
				if !c.gated {
					synctest.Wait()
				}
				cancel()
				if c.gated {
					close(fs.gate)
				}
				opens := fs.opens.Load()
				ck, err := it.Checkpoint()
				if err != nil {
					t.Fatalf("Checkpoint after 3 batches and the cancel: %v", err)
				}
				if n := fs.opens.Load() - opens; n > 0 && !c.gated {
					t.Errorf("Checkpoint opened %d files", n)
				} else if n == 0 && c.gated {
					t.Error("Checkpoint opened no file, though the run could not learn a size")
				}
				it.Close()
				if d := sameTail(resumed(t, t.Context(), c.ds, 5, ck), want, from+3); d != "" {
					t.Errorf("resumed run: %s", d)
				}
			})
		})
	}
}

// A run that fails at a corrupt record, resumed from its checkpoint with
// SkipCorrupt, reads on exactly as a run with SkipCorrupt from the start,
// with several readers too: the failed reader's records before the error
// count toward the block it resumes, so that the readers' turns in the
// merge fall where they would have (audit 89: with two readers the
// resumed run's order differed from the record after the error on).
func TestResumeFailedRunSkippingReaders(t *testing.T) {
	for _, c := range []struct {
		counts  []int
		damaged map[int]int
		readers int
		batch   int
	}{
		{[]int{400, 300}, map[int]int{0: 200}, 2, 50},
		{[]int{400, 300}, map[int]int{1: 150}, 2, 7},
		{[]int{300, 300, 300}, map[int]int{1: 140}, 3, 16},
		{[]int{47, 590, 8, 260}, map[int]int{1: 333}, 2, 6},
		{[]int{500}, map[int]int{0: 129}, 1, 10},
	} {
		t.Run(fmt.Sprintf("%v/%v/readers=%d", c.counts, c.damaged, c.readers), func(t *testing.T) {
			pattern := writeNamed(t, t.TempDir(), c.counts, c.damaged, false)
			skipping := Records(pattern, Deterministic(), Readers(c.readers), SkipCorrupt())
			it, err := skipping.Iterator(t.Context(), c.batch)
			if err != nil {
				t.Fatal(err)
			}
			want := drain(t, it)
			if want.err != nil {
				t.Fatal(want.err)
			}
			it, err = Records(pattern, Deterministic(), Readers(c.readers)).Iterator(t.Context(), c.batch)
			if err != nil {
				t.Fatal(err)
			}
			failed := drain(t, it)
			if !errors.Is(failed.err, tfrecord.ErrDataLoss) {
				t.Fatalf("the run without SkipCorrupt ended with %v, want ErrDataLoss", failed.err)
			}
			ck, err := it.Checkpoint()
			it.Close()
			if err != nil {
				t.Fatal(err)
			}
			it, err = skipping.Iterator(t.Context(), c.batch, Resume(ck))
			if err != nil {
				t.Fatal(err)
			}
			rest := drain(t, it)
			if rest.err != nil {
				t.Fatal(rest.err)
			}
			got := append(slices.Clone(failed.batches), rest.batches...)
			if !slices.Equal(got, want.batches) {
				i := firstDiff(got, want.batches)
				t.Errorf("failed after %d batches and resumed: batch %d differs from the run that skipped from the start", len(failed.batches), i)
			}
		})
	}
}
