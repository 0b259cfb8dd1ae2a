package sluice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluiceml/sluice/decode"
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
	ck := checkpointAfter(t, ds, 2, 1)
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
	old := resealed(t, m)
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

// take returns the records of the first k batches of an iteration of ds
// in batches of n, from ck if not nil, each batch its records joined by
// "|", and the checkpoint after each batch (Deterministic only).
func take(t *testing.T, ds *Dataset, n, k int, ck []byte, cks bool) (batches []string, after [][]byte) {
	t.Helper()
	// Bounds a hang, which is the failure looked for: not a
	// synchronisation.
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	var opts []BatchOption
	if ck != nil {
		opts = append(opts, Resume(ck))
	}
	it, err := ds.Iterator(ctx, n, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for range k {
		b, err := it.Next()
		if err != nil {
			t.Fatalf("after %d batches: %v", len(batches), err)
		}
		batches = append(batches, strings.Join(recordNames(b), "|"))
		if cks {
			c, err := it.Checkpoint()
			if err != nil {
				t.Fatal(err)
			}
			after = append(after, c)
		}
	}
	return batches, after
}

func recordNames(b *Batch) []string {
	var r []string
	for _, x := range b.Bytes(RecordFeature) {
		r = append(r, string(x))
	}
	return r
}

// A Deterministic run Forever whose reader's share of the files holds
// only empty files goes on with the other readers' records, in the same
// order on every run, and resumes exactly from a checkpoint after any
// batch, the reader that ended included. Before, the merge waited for
// that reader's block for ever.
func TestDeterministicForeverEmptyShare(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts []int
		opts   []ExampleOption
		want   string // the first batches' records, if not ""
	}{
		{"2 readers, the first file empty", []int{0, 2}, []ExampleOption{Readers(2)}, "f1r0|f1r1|f1r0|f1r1|f1r0|f1r1|f1r0|f1r1"},
		{"default readers, 2 files", []int{0, 2}, nil, ""},
		{"default readers, 4 files", []int{3, 0, 2, 5}, nil, ""},
		{"3 readers, 6 files, 2 shares empty", []int{0, 1, 0, 0, 4, 0}, []ExampleOption{Readers(3)}, ""},
		{"Shard(1, 2) of 5 files", []int{2, 0, 3, 4, 1}, []ExampleOption{Shard(1, 2), Readers(2)}, ""},
		{"shuffled", []int{0, 3, 0, 0}, []ExampleOption{Readers(2), Shuffle(4), Seed(7)}, ""},
		{"files shuffled", []int{0, 0, 0, 2, 0}, []ExampleOption{Readers(4), ShuffleFiles(), Seed(3)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pat := writeNamed(t, t.TempDir(), tc.counts, nil, false)
			ds := Records(pat, append([]ExampleOption{Deterministic(), Forever()}, tc.opts...)...)
			const n, k = 8, 100
			first, cks := take(t, ds, n, k, nil, true)
			if tc.want != "" && first[0] != tc.want {
				t.Errorf("first batch %s, want %s", first[0], tc.want)
			}
			again, _ := take(t, ds, n, k, nil, false)
			if !slices.Equal(first, again) {
				t.Fatalf("two runs differ at batch %d", firstDiff(first, again))
			}
			for _, j := range []int{0, 1, 2, 17, 60} {
				got, _ := take(t, ds, n, k-j-1, cks[j], false)
				if !slices.Equal(got, first[j+1:]) {
					t.Errorf("resumed after batch %d: differs at batch %d", j+1, j+1+firstDiff(got, first[j+1:]))
				}
			}
		})
	}
}

// Forever over files that hold no record is refused with ErrInvalid by
// every engine, as soon as every file has been read once, instead of
// going round them for ever delivering nothing (a global shuffle counts
// the records first).
func TestForeverNoRecords(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	pat := writeNamed(t, t.TempDir(), []int{0, 0, 0}, nil, false)
	gz := writeNamed(t, t.TempDir(), []int{0, 0}, nil, false, tfrecord.Gzip, tfrecord.Zlib)
	csvDir := t.TempDir()
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(csvDir, fmt.Sprintf("%d.csv", i)), []byte("a,b\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cols := []Column{Col("a", decode.Int64Column(0)), Col("b", decode.Int64Column(0))}
	csv := func(opts ...CSVOption) *Dataset {
		return CSV(filepath.Join(csvDir, "*.csv"), cols, append([]CSVOption{SkipHeaderLines(1), Forever()}, opts...)...)
	}
	for _, tc := range []struct {
		name string
		ds   *Dataset
	}{
		{"default 1 reader", Records(pat, Forever(), Readers(1))},
		{"default 3 readers", Records(pat, Forever(), Readers(3))},
		{"default shuffled", Records(pat, Forever(), Readers(2), Shuffle(5))},
		{"default compressed", Records(gz, Forever(), Readers(2))},
		{"default CSV header only", csv(Readers(2))},
		{"Deterministic", Records(pat, Forever(), Deterministic())},
		{"Deterministic 2 readers", Records(pat, Forever(), Deterministic(), Readers(2))},
		{"Deterministic shuffled", Records(pat, Forever(), Deterministic(), Shuffle(5), Seed(2))},
		{"Deterministic files shuffled", Records(pat, Forever(), Deterministic(), ShuffleFiles(), Readers(2))},
		{"Deterministic compressed", Records(gz, Forever(), Deterministic())},
		{"Deterministic CSV header only", csv(Deterministic(), Readers(3))},
		{"Deterministic Shard", Records(pat, Forever(), Deterministic(), Shard(0, 2))},
		{"GlobalShuffle", Records(pat, Forever(), GlobalShuffle())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), hangGuard) // bounds a hang
			defer cancel()
			it, err := tc.ds.Iterator(ctx, 2)
			if err == nil {
				var b *Batch
				b, err = it.Next()
				it.Close()
				if b != nil {
					t.Fatalf("a batch of %d from empty files", b.Len())
				}
			}
			if !errors.Is(err, ErrInvalid) || ctx.Err() != nil {
				t.Errorf("%v; want an error wrapping ErrInvalid", err)
			}
		})
	}
}

// hangGuard bounds the wait for a batch in the tests that look for a hang.
var hangGuard = time.Minute

// A checkpoint is not refused for options that have no effect on the
// order it was saved in (Shuffle and ShuffleFiles with GlobalShuffle, a
// seed that shuffles nothing), and the run resumed gives exactly the
// rest; an option that shapes the order still refuses it.
func TestCheckpointIgnoredOptions(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	pat := writeNamed(t, t.TempDir(), []int{20, 7, 13}, nil, false)
	for _, tc := range []struct {
		name       string
		saved, now []ExampleOption
		refused    bool
	}{
		{"GlobalShuffle, Shuffle dropped", []ExampleOption{GlobalShuffle(), Shuffle(10), Seed(1)}, []ExampleOption{GlobalShuffle(), Seed(1)}, false},
		{"GlobalShuffle, ShuffleFiles added", []ExampleOption{GlobalShuffle(), Seed(1)}, []ExampleOption{GlobalShuffle(), ShuffleFiles(), Seed(1)}, false},
		{"GlobalShuffle, another seed", []ExampleOption{GlobalShuffle(), Shuffle(10), Seed(1)}, []ExampleOption{GlobalShuffle(), Shuffle(10), Seed(2)}, true},
		{"Deterministic unshuffled, Seed dropped", []ExampleOption{Deterministic(), Readers(2), Seed(5)}, []ExampleOption{Deterministic(), Readers(2)}, false},
		{"Deterministic shuffled, another seed", []ExampleOption{Deterministic(), Shuffle(4), Seed(5)}, []ExampleOption{Deterministic(), Shuffle(4), Seed(6)}, true},
		{"Deterministic files shuffled, another seed", []ExampleOption{Deterministic(), ShuffleFiles(), Seed(5)}, []ExampleOption{Deterministic(), ShuffleFiles(), Seed(6)}, true},
		{"Deterministic, Shuffle added", []ExampleOption{Deterministic(), Seed(5)}, []ExampleOption{Deterministic(), Shuffle(4), Seed(5)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := Records(pat, tc.saved...)
			all, cks := take(t, saved, 3, 13, nil, true)
			it, err := Records(pat, tc.now...).Iterator(t.Context(), 3, Resume(cks[4]))
			if tc.refused {
				if err == nil {
					it.Close()
				}
				if !errors.Is(err, ErrCheckpoint) {
					t.Errorf("Resume: %v, want ErrCheckpoint", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resume: %v", err)
			}
			it.Close()
			if got, _ := take(t, Records(pat, tc.now...), 3, 8, cks[4], false); !slices.Equal(got, all[5:]) {
				t.Errorf("resumed: differs at batch %d", 5+firstDiff(got, all[5:]))
			}
		})
	}
}
