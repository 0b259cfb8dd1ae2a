package sluice

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/decode"
	"github.com/sluiceml/sluice/example"
	"github.com/sluiceml/sluice/tensor"
	"github.com/sluiceml/sluice/tfrecord"
)

// digest renders every value of a batch, feature by feature.
func digest(b *Batch) string {
	var s strings.Builder
	for _, name := range b.Names() {
		fmt.Fprintf(&s, "%s=%v;", name, b.Dense(name).Data())
		if b.l.features[slices.Index(b.Names(), name)].steps {
			fmt.Fprintf(&s, "%s.lengths=%v;", name, b.Lengths(name))
		}
	}
	return s.String()
}

// digests runs it to its end and returns every batch's digest.
func digests(t *testing.T, it *Iterator) []string {
	t.Helper()
	defer it.Close()
	var out []string
	for {
		b, err := it.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, digest(b))
	}
}

// detSources returns data sets of every kind over small files made in dir,
// deterministic, with the options given.
func detSources(t *testing.T, dir string, opts ...Option) map[string]*Dataset {
	t.Helper()
	tfr := filepath.Join(dir, "tfr")
	os.Mkdir(tfr, 0o755)
	writeExamples(t, tfr, 7, 53, tfrecord.None, tfrecord.Gzip)
	seqDir := filepath.Join(dir, "seq")
	os.Mkdir(seqDir, 0o755)
	writeSequenceExamples(t, seqDir, 4, 31, tfrecord.Zlib, tfrecord.None)

	csvDir := filepath.Join(dir, "csv")
	os.Mkdir(csvDir, 0o755)
	for i := range 5 {
		var b strings.Builder
		b.WriteString("a,b\n")
		for j := range 41 + i {
			fmt.Fprintf(&b, "%d,%d.5\n", 1000*i+j, j)
		}
		// Text compressed or not, each file's compression detected.
		c := []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.None, tfrecord.Zstd, tfrecord.None}[i]
		var data bytes.Buffer
		w, err := tfrecord.NewCompressor(c, &data)
		if err == nil {
			_, err = io.WriteString(w, b.String())
		}
		if err == nil {
			err = w.Close()
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(csvDir, fmt.Sprintf("part-%d.csv", i)), data.Bytes(), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}

	fixedDir := filepath.Join(dir, "fixed")
	os.Mkdir(fixedDir, 0o755)
	for i := range 4 {
		var data []byte
		for j := range 60 + 7*i {
			data = append(data, byte(i), byte(j), byte(j>>8), 0xee)
		}
		if err := os.WriteFile(filepath.Join(fixedDir, fmt.Sprintf("part-%d.bin", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pqDir := filepath.Join(dir, "parquet")
	os.Mkdir(pqDir, 0o755)
	for _, name := range []string{"pages", "gzip_v2", "polars", "delta"} { // 3 row groups each
		data, err := os.ReadFile(filepath.Join("parquet", "testdata", name+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pqDir, name+".parquet"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	all := append([]Option{Deterministic()}, opts...)
	ex := make([]ExampleOption, len(all))
	cs := make([]CSVOption, len(all))
	rs := make([]RecordOption, len(all))
	for i, o := range all {
		ex[i], cs[i], rs[i] = o, o, o
	}
	return map[string]*Dataset{
		"Examples":         Examples(filepath.Join(tfr, "train-*"), testSpec, ex...),
		"Records":          Records(filepath.Join(tfr, "train-*"), ex...),
		"Parquet":          Examples(filepath.Join(pqDir, "*.parquet"), parquetSpec, append(ex, Parquet())...),
		"SequenceExamples": SequenceExamples(filepath.Join(seqDir, "seq-*"), seqContext, seqLists, ex...),
		"CSV": CSV(filepath.Join(csvDir, "*.csv"), []Column{Col("a", decode.Int64Column(0)), Col("b", decode.Float32Column(0))},
			append(cs, SkipHeaderLines(1))...),
		"FixedLengthRecords": FixedLengthRecords(filepath.Join(fixedDir, "*.bin"), 4, []Field{
			{Name: "file", Offset: 0, Size: 1, DType: tensor.Uint8, Shape: []int{}},
			{Name: "index", Offset: 1, Size: 2, DType: tensor.Uint16, Shape: []int{}},
		}, rs...),
	}
}

// Deterministic mode: the same options give the same batches whatever
// GOMAXPROCS, and every record of every epoch is delivered once.
func TestDeterministicRepeats(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"in order", []Option{Readers(3)}},
		{"shuffled", []Option{Readers(3), Shuffle(40), Seed(7), Epochs(2)}},
		{"files shuffled", []Option{Readers(2), ShuffleFiles(), Seed(7), Epochs(3)}},
		{"default readers", []Option{Shuffle(300)}},
	} {
		sub := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		os.Mkdir(sub, 0o755)
		for kind, ds := range detSources(t, sub, tc.opts...) {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				var runs [][]string
				for _, procs := range []int{1, 4, 2} {
					prev := runtime.GOMAXPROCS(procs)
					it, err := ds.Iterator(t.Context(), 16)
					if err != nil {
						t.Fatal(err)
					}
					runs = append(runs, digests(t, it))
					runtime.GOMAXPROCS(prev)
				}
				for i, r := range runs[1:] {
					if !slices.Equal(r, runs[0]) {
						t.Fatalf("run %d differs from run 0 (%d and %d batches)", i+1, len(r), len(runs[0]))
					}
				}
				if len(runs[0]) < 2 {
					t.Fatalf("%d batches", len(runs[0]))
				}
			})
		}
	}
}

// A deterministic shuffle delivers every record of every epoch exactly
// once (P-EPOCHS), and not in file order.
func TestDeterministicExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 5, 37, tfrecord.None)
	ds := Examples(filepath.Join(dir, "train-*"), testSpec, Deterministic(), Readers(3), Shuffle(60), Epochs(2), Seed(1))
	labels, sizes := collect(t, ds, 16)
	if len(labels) != 2*5*37 || sizes[len(sizes)-1] != 2*5*37%16 {
		t.Fatalf("%d records in batches %v", len(labels), sizes)
	}
	count := map[int64]int{}
	for _, l := range labels {
		count[l]++
	}
	for l := range int64(5 * 37) {
		if count[l] != 2 {
			t.Fatalf("label %d delivered %d times, want 2", l, count[l])
		}
	}
	if slices.IsSorted(labels[:5*37]) {
		t.Error("the first epoch came in file order")
	}
}

// Deterministic's buffer is tf.data's shuffle(n), which keeps n-1 records
// back: Shuffle(1) leaves one file's records in order, Shuffle(2) does not
// (audit 69: the docs promised n back).
func TestDeterministicShuffleBuffer(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 1, 40, tfrecord.None)
	for _, tc := range []struct {
		n       int
		inOrder bool
	}{{1, true}, {2, false}} {
		ds := Examples(filepath.Join(dir, "train-*"), testSpec, Deterministic(), Shuffle(tc.n), Seed(7))
		labels, _ := collect(t, ds, 8)
		if slices.IsSorted(labels) != tc.inOrder || len(labels) != 40 {
			t.Errorf("Shuffle(%d): %v", tc.n, labels)
		}
	}
}

// A checkpoint taken after any batch resumes, in a new iterator, exactly
// the batches the uninterrupted run delivers next: mid-file, mid-epoch,
// with the shuffle buffer full and with a short final batch pending, from
// plain and GZIP files, text lines (plain, GZIP and ZSTD) and fixed-length
// records.
func TestCheckpointResume(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		opts  []Option
		bopts []BatchOption
	}{
		{"in order", []Option{Readers(3)}, nil},
		{"shuffled", []Option{Readers(3), Shuffle(150), Seed(5), Epochs(2)}, nil},
		{"shuffled, kept, dropping the remainder", []Option{Readers(2), Shuffle(30), Seed(9)}, []BatchOption{KeepBatches(), DropRemainder()}},
	} {
		sub := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		os.Mkdir(sub, 0o755)
		for kind, ds := range detSources(t, sub, tc.opts...) {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				it, err := ds.Iterator(t.Context(), 13, tc.bopts...)
				if err != nil {
					t.Fatal(err)
				}
				want := digests(t, it)
				cuts := []int{0, 1, 2, len(want) / 3, len(want) / 2, len(want) - 1, len(want)}
				for _, cut := range cuts {
					it, err := ds.Iterator(t.Context(), 13, tc.bopts...)
					if err != nil {
						t.Fatal(err)
					}
					for i := range cut {
						b, err := it.Next()
						if err != nil {
							t.Fatalf("cut %d: batch %d: %v", cut, i, err)
						}
						if digest(b) != want[i] {
							t.Fatalf("cut %d: batch %d differs from the first run", cut, i)
						}
					}
					ck, err := it.Checkpoint()
					if err != nil {
						t.Fatalf("cut %d: %v", cut, err)
					}
					it.Close()
					resumed, err := ds.Iterator(t.Context(), 13, append(tc.bopts, Resume(ck))...)
					if err != nil {
						t.Fatalf("cut %d: resume: %v", cut, err)
					}
					got := digests(t, resumed)
					if !slices.Equal(got, want[cut:]) {
						t.Fatalf("cut %d of %d: resumed run gives %d batches, want %d; first difference at %d",
							cut, len(want), len(got), len(want)-cut, firstDiff(got, want[cut:]))
					}
				}
			})
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A checkpoint refuses a data set whose options or files changed, naming
// what changed.
func TestCheckpointRefusesChanges(t *testing.T) {
	dir := t.TempDir()
	names := writeExamples(t, dir, 3, 20, tfrecord.None)
	pattern := filepath.Join(dir, "train-*")
	ds := Examples(pattern, testSpec, Deterministic(), Shuffle(10), Seed(3))
	ck := checkpointAfter(t, ds, 8, 1)
	for _, tc := range []struct {
		name string
		ds   *Dataset
		n    int
		want string
	}{
		{"shuffle", Examples(pattern, testSpec, Deterministic(), Shuffle(11), Seed(3)), 8, "Shuffle 10, this data set has 11"},
		{"seed", Examples(pattern, testSpec, Deterministic(), Shuffle(10), Seed(4)), 8, "Seed 3"},
		{"batch size", ds, 9, "batch size 8"},
		{"files", Examples(names[0], testSpec, Deterministic(), Shuffle(10), Seed(3)), 8, "number of files 3"},
		{"spec", Examples(pattern, example.Spec{"label": example.FixedLen(tensor.Int64)}, Deterministic(), Shuffle(10), Seed(3)), 8, "source"},
		{"not a checkpoint", ds, 8, "not a sluice checkpoint"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ck
			if tc.name == "not a checkpoint" {
				c = []byte("{}")
			}
			_, err := tc.ds.Iterator(t.Context(), tc.n, Resume(c))
			if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("resume: %v, want ErrCheckpoint saying %q", err, tc.want)
			}
		})
	}
	// A change that changes others is named, not the others (audit 59):
	// Readers are capped at the files a run reads, which Epochs change; a
	// shard's files follow from its Shard and, with a global shuffle, are
	// every file.
	for _, tc := range []struct {
		name     string
		was, now *Dataset
		want     string
	}{
		{"epochs", Records(pattern, Deterministic(), Readers(7)), Records(pattern, Deterministic(), Readers(7), Epochs(2)), "Epochs"},
		{"forever", Records(pattern, Deterministic(), Readers(7)), Records(pattern, Deterministic(), Readers(7), Forever()), "Epochs"},
		{"shard", Records(pattern, Deterministic(), Shard(0, 2)), Records(pattern, Deterministic(), Shard(1, 2)), "Shard"},
		{"global", Records(pattern, GlobalShuffle(), Shard(1, 2), Seed(3)), Records(pattern, Deterministic(), Shard(1, 2), Seed(3)), "GlobalShuffle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
			_, err := tc.now.Iterator(t.Context(), 4, Resume(checkpointAfter(t, tc.was, 4, 1)))
			if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "saved with "+tc.want) {
				t.Errorf("resume: %v, want ErrCheckpoint naming %s", err, tc.want)
			}
		})
	}
	// A file that grew is not the file the checkpoint points into.
	f, err := os.OpenFile(names[1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	f.Close()
	if _, err := ds.Iterator(t.Context(), 8, Resume(ck)); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), names[1]) {
		t.Errorf("resume after a file changed: %v, want ErrCheckpoint naming %s", err, names[1])
	}
	// Without Deterministic there is nothing to checkpoint.
	plain, err := Examples(pattern, testSpec).Iterator(t.Context(), 8)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Checkpoint(); !errors.Is(err, ErrNotDeterministic) {
		t.Errorf("Checkpoint without Deterministic: %v", err)
	}
	if _, err := Examples(pattern, testSpec).Iterator(t.Context(), 8, Resume(ck)); !errors.Is(err, ErrNotDeterministic) {
		t.Errorf("Resume without Deterministic: %v", err)
	}
}

// The checkpoint holds places, not records: with a shuffle buffer of
// 2000 records of 3 KB, it takes a few bytes a record.
func TestCheckpointSize(t *testing.T) {
	dir := t.TempDir()
	for i := range 4 {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("big-%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		w := tfrecord.NewWriter(f, tfrecord.None)
		for j := range 1000 {
			w.Write(example.New().Int64("label", int64(j)).Bytes("data", make([]byte, 3000)).Marshal())
		}
		w.Close()
		f.Close()
	}
	spec := example.Spec{"label": example.FixedLen(tensor.Int64), "data": example.FixedLen(tensor.String)}
	ds := Examples(filepath.Join(dir, "big-*"), spec, Deterministic(), Shuffle(2000), Seed(1))
	it, err := ds.Iterator(t.Context(), 32)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for range 10 {
		if _, err := it.Next(); err != nil {
			t.Fatal(err)
		}
	}
	ck, err := it.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	// 2000 buffered + the rest of a block + batches in flight.
	if held := 2000 + blockSize + 8*32; len(ck) > 8*held+2048 {
		t.Errorf("checkpoint of %d bytes for about %d records held", len(ck), held)
	}
	t.Logf("checkpoint: %d bytes", len(ck))
}

// CheckpointBefore(k) after m batches resumes at batch m-k, for the
// deterministic engine and the global shuffle alike.
func TestCheckpointBefore(t *testing.T) {
	t.Setenv("SLUICE_INDEX_DIR", t.TempDir())
	dir := t.TempDir()
	writeExamples(t, dir, 4, 40, tfrecord.None)
	pattern := filepath.Join(dir, "train-*")
	for name, ds := range map[string]*Dataset{
		"deterministic": Examples(pattern, testSpec, Deterministic(), Shuffle(50), Seed(2), Readers(3)),
		"global":        Examples(pattern, testSpec, GlobalShuffle(), Seed(2)),
	} {
		t.Run(name, func(t *testing.T) {
			it, err := ds.Iterator(t.Context(), 6)
			if err != nil {
				t.Fatal(err)
			}
			want := digests(t, it)
			for _, c := range []struct{ m, k int }{{5, 0}, {5, 3}, {10, 1}, {20, 16}, {len(want), 2}} {
				it, err := ds.Iterator(t.Context(), 6)
				if err != nil {
					t.Fatal(err)
				}
				for range c.m {
					if _, err := it.Next(); err != nil {
						t.Fatal(err)
					}
				}
				ck, err := it.CheckpointBefore(c.k)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := it.CheckpointBefore(MaxCheckpointBefore + 1); !errors.Is(err, ErrInvalid) {
					t.Errorf("CheckpointBefore(%d): %v, want ErrInvalid", MaxCheckpointBefore+1, err)
				}
				it.Close()
				resumed, err := ds.Iterator(t.Context(), 6, Resume(ck))
				if err != nil {
					t.Fatal(err)
				}
				if got := digests(t, resumed); !slices.Equal(got, want[c.m-c.k:]) {
					t.Fatalf("%d batches, back %d: resumed run differs at %d", c.m, c.k, firstDiff(got, want[c.m-c.k:]))
				}
			}
		})
	}
}
