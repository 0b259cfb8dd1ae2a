package sluice

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/index"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// Next after Close fails with ErrClosed in every engine: not the batches
// the engine still held, and not io.EOF, which would pass a cut-short
// iteration for a finished one.
func TestNextAfterClose(t *testing.T) {
	pat := writeNamed(t, t.TempDir(), []int{300, 200}, nil, false)
	for _, tc := range []struct {
		name string
		opts []ExampleOption
		next int // batches read before Close
	}{
		{"default", []ExampleOption{Readers(2)}, 1},
		{"default shuffle", []ExampleOption{Readers(2), Shuffle(50)}, 1},
		{"default unread", []ExampleOption{Readers(2)}, 0},
		{"deterministic", []ExampleOption{Deterministic()}, 1},
		{"global", []ExampleOption{GlobalShuffle()}, 1},
		{"default at end", []ExampleOption{Readers(2)}, 51},
		{"deterministic at end", []ExampleOption{Deterministic()}, 51},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it, err := Records(pat, tc.opts...).Iterator(t.Context(), 10)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.next {
				if _, err := it.Next(); err != nil && (err != io.EOF || i < 50) {
					t.Fatal(err)
				}
			}
			it.Close()
			for range 2 {
				b, err := it.Next()
				if b != nil || !errors.Is(err, ErrClosed) || err == io.EOF {
					t.Fatalf("Next after Close: %v, %v (want an error wrapping ErrClosed)", b, err)
				}
			}
			if got := fmt.Sprint(it.Close()); got != "<nil>" {
				t.Errorf("second Close: %s", got)
			}
		})
	}
}

// Every option out of range, or in conflict with another or with the
// files, is refused with an error wrapping ErrInvalid, whatever the
// engine; a conflict the options alone show is refused before reading.
func TestRefusalsWrapErrInvalid(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	pat := writeNamed(t, dir, []int{6, 9}, nil, false) // two files
	gz := writeNamed(t, t.TempDir(), []int{3, 4}, nil, false, tfrecord.Gzip, tfrecord.Zlib)
	fixed := func(c tfrecord.Compression) string {
		name := filepath.Join(t.TempDir(), fmt.Sprintf("fixed-%v", c))
		var b bytes.Buffer
		w, err := tfrecord.NewCompressor(c, &b)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(make([]byte, 64))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	field := []Field{{Name: "v", Size: 8, DType: tensor.Int64}}
	for _, tc := range []struct {
		name  string
		ds    *Dataset
		early bool  // refused by Iterator, before any Next
		also  error // another sentinel the error wraps
	}{
		{"Shard(2, 3) of 2 files, default", Records(pat, Shard(2, 3)), false, nil},
		{"Shard(2, 3) of 2 files, default shuffled", Records(pat, Shard(2, 3), Shuffle(4)), false, nil},
		{"Shard(2, 3) of 2 files, Deterministic", Records(pat, Shard(2, 3), Deterministic()), false, nil},
		{"FixedLengthRecords GZIP GlobalShuffle", FixedLengthRecords(fixed(tfrecord.Gzip), 8, field, Compression(tfrecord.Gzip), GlobalShuffle()), true, nil},
		{"FixedLengthRecords ZLIB GlobalShuffle", FixedLengthRecords(fixed(tfrecord.Zlib), 8, field, GlobalShuffle(), Compression(tfrecord.Zlib)), true, nil},
		{"TFRecord GZIP and ZLIB files GlobalShuffle", Records(gz, GlobalShuffle()), false, index.ErrCompressed},
		{"TFRecord GZIP and ZLIB files GlobalShuffle Shard", Records(gz, GlobalShuffle(), Shard(1, 2)), false, index.ErrCompressed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it, err := tc.ds.Iterator(t.Context(), 4)
			if err == nil {
				if tc.early {
					t.Errorf("Iterator: no error; want the conflict refused before reading")
				}
				_, err = it.Next()
				it.Close()
			}
			if !errors.Is(err, ErrInvalid) || tc.also != nil && !errors.Is(err, tc.also) {
				t.Errorf("%v: does not wrap ErrInvalid (and %v)", err, tc.also)
			}
		})
	}
}

// Shard splits the sorted list of files, in every engine: workers that
// list the same files in different orders read each record once between
// them. A worker reads its files in the order it lists them.
func TestShardSortedList(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	writeNamed(t, dir, []int{2, 3, 4, 5, 6}, nil, false)
	name := func(i int) string { return filepath.Join(dir, fmt.Sprintf("part-%03d.tfrecord", i)) }
	lists := [][]int{{4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}, {1, 2, 3, 4, 0}}
	for _, tc := range []struct {
		name string
		opts []ExampleOption
	}{
		{"default", []ExampleOption{Readers(1)}},
		{"default shuffled", []ExampleOption{Readers(2), Shuffle(3), Seed(1)}},
		{"Deterministic", []ExampleOption{Deterministic(), Readers(2)}},
		{"GlobalShuffle", []ExampleOption{GlobalShuffle(), Seed(5)}},
	} {
		for _, count := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/%d workers", tc.name, count), func(t *testing.T) {
				seen := map[string]int{}
				for i := range count {
					list := lists[i%len(lists)]
					opts := append([]ExampleOption{Shard(i, count)}, tc.opts...)
					for _, j := range list[1:] {
						opts = append(opts, Files(name(j)))
					}
					got := rawRecords(t, Records(name(list[0]), opts...), 4, false)
					for _, r := range got {
						seen[r]++
					}
					if tc.name == "default" && count == 2 && i == 0 {
						// Files 0, 2 and 4 of the sorted list, as
						// listed: 4, 2, 0.
						want := "[f4r0 f4r1 f4r2 f4r3 f4r4 f4r5 f2r0 f2r1 f2r2 f2r3 f0r0 f0r1]"
						if fmt.Sprint(got) != want {
							t.Errorf("worker 0 of 2 listing files 4 to 0: %v, want %s", got, want)
						}
					}
				}
				for f, n := range []int{2, 3, 4, 5, 6} {
					for r := range n {
						if k := seen[fmt.Sprintf("f%dr%d", f, r)]; k != 1 {
							t.Errorf("f%dr%d read %d times by %d workers", f, r, k, count)
						}
					}
				}
				if len(seen) != 20 {
					t.Errorf("%d records read, want 20", len(seen))
				}
			})
		}
	}
}

// A Deterministic checkpoint of a worker whose shard held other files (a
// sluice that split the list in the order given) is refused, naming the
// file, rather than read as a position in this shard's files.
func TestShardCheckpointOtherFiles(t *testing.T) {
	dir := t.TempDir()
	writeNamed(t, dir, []int{3, 3, 3, 3}, nil, false)
	name := func(i int) string { return filepath.Join(dir, fmt.Sprintf("part-%03d.tfrecord", i)) }
	ds := Records(name(3), Files(name(2), name(1), name(0)), Shard(0, 2), Deterministic())
	it, err := ds.Iterator(t.Context(), 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := it.Next(); err != nil {
		t.Fatal(err)
	}
	ck, err := it.Checkpoint()
	it.Close()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(ck, &m); err != nil {
		t.Fatal(err)
	}
	id := m["identity"].(map[string]any)
	if got := fmt.Sprint(id["files"]); got != fmt.Sprint([]string{name(2), name(0)}) {
		t.Fatalf("shard 0 of 2 of files 3, 2, 1, 0: %s, want files 2, 0", got)
	}
	// The shard the list's own order gave: files 3 and 1.
	id["files"] = []string{name(3), name(1)}
	old, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if it, err := ds.Iterator(t.Context(), 2, Resume(old)); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), name(3)) {
		if err == nil {
			it.Close()
		}
		t.Errorf("Resume of a shard of other files: %v, want ErrCheckpoint naming %s", err, name(3))
	}
	if it, err := ds.Iterator(t.Context(), 2, Resume(ck)); err != nil {
		t.Errorf("Resume of its own checkpoint: %v", err)
	} else {
		it.Close()
	}
}
