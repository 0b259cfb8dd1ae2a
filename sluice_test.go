package sluice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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

// writeExamples writes files of Examples with labels first, first+1, ...:
// perFile records each, an "image" of 4 floats (the label in each) and a
// VarLen "tokens" of label%4 int64s.
func writeExamples(t testing.TB, dir string, files, perFile int, cs ...tfrecord.Compression) []string {
	t.Helper()
	var names []string
	label := 0
	for i := range files {
		c := tfrecord.None
		if len(cs) > 0 {
			c = cs[i%len(cs)]
		}
		name := filepath.Join(dir, fmt.Sprintf("train-%05d.tfrecord", i))
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w := tfrecord.NewWriter(f, c)
		for range perFile {
			l := float32(label)
			tokens := make([]int64, label%4)
			for j := range tokens {
				tokens[j] = int64(label)
			}
			rec := example.New().Int64("label", int64(label)).Floats("image", []float32{l, l, l, l}).
				Int64s("tokens", tokens).Marshal()
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			label++
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

var testSpec = example.Spec{
	"image":  example.FixedLen(tensor.Float32, 4),
	"label":  example.FixedLen(tensor.Int64),
	"tokens": example.VarLen(tensor.Int64),
}

// collect runs the loop to its end and returns every label in order and
// the batch sizes.
func collect(t *testing.T, ds *Dataset, n int, opts ...BatchOption) (labels []int64, sizes []int) {
	t.Helper()
	for b, err := range ds.Batches(t.Context(), n, opts...) {
		if err != nil {
			t.Fatal(err)
		}
		img := b.Float32("image")
		for i, l := range b.Int64("label") {
			if img[4*i] != float32(l) {
				t.Fatalf("row %d: image %v with label %d: rows mixed up", i, img[4*i:4*i+4], l)
			}
		}
		labels = append(labels, b.Int64("label")...)
		sizes = append(sizes, b.Len())
	}
	return labels, sizes
}

// Every record of every epoch arrives exactly once, whatever the number of
// readers and whether records are shuffled (spec: exactly-once delivery
// per epoch, P-EPOCHS).
func TestEpochsExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 5, 37, tfrecord.None)
	const total = 5 * 37
	for _, tc := range []struct {
		name   string
		epochs int
		opts   []ExampleOption
		batch  int
	}{
		{"1 epoch default", 1, nil, 16},
		{"2 epochs 1 reader", 2, []ExampleOption{Epochs(2), Readers(1)}, 16},
		{"3 epochs 4 readers", 3, []ExampleOption{Epochs(3), Readers(4)}, 10},
		{"2 epochs shuffled", 2, []ExampleOption{Epochs(2), Readers(3), Shuffle(50), Seed(1)}, 32},
		{"shuffled files", 2, []ExampleOption{Epochs(2), ShuffleFiles(), Seed(7)}, 7},
		{"batch larger than input", 1, []ExampleOption{Readers(2)}, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			labels, sizes := collect(t, Examples(filepath.Join(dir, "train-*"), testSpec, tc.opts...), tc.batch)
			count := make([]int, total)
			for _, l := range labels {
				count[l]++
			}
			for l, c := range count {
				if c != tc.epochs {
					t.Fatalf("label %d delivered %d times, want %d", l, c, tc.epochs)
				}
			}
			for i, s := range sizes[:len(sizes)-1] {
				if s != tc.batch {
					t.Fatalf("batch %d of %d has %d records, want %d (only the last may be short)", i, len(sizes), s, tc.batch)
				}
			}
			if want := (tc.epochs*total-1)%tc.batch + 1; sizes[len(sizes)-1] != want {
				t.Errorf("last batch has %d records, want %d", sizes[len(sizes)-1], want)
			}
		})
	}
}

// One reader without shuffling delivers the files' records in order.
func TestOrderWithoutShuffle(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 3, 20)
	labels, _ := collect(t, Examples(filepath.Join(dir, "train-*"), testSpec, Readers(1), Epochs(2)), 8)
	for i, l := range labels {
		if l != int64(i%60) {
			t.Fatalf("record %d has label %d, want %d", i, l, i%60)
		}
	}
}

// Shuffle changes the order but not the multiset.
func TestShuffleKeepsMultiset(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 4, 50)
	plain, _ := collect(t, Examples(filepath.Join(dir, "train-*"), testSpec, Readers(1)), 16)
	shuf, _ := collect(t, Examples(filepath.Join(dir, "train-*"), testSpec, Readers(1), Shuffle(100), Seed(3)), 16)
	if slices.Equal(plain, shuf) {
		t.Fatal("Shuffle(100) delivered the records in file order")
	}
	slices.Sort(shuf)
	if !slices.Equal(plain, shuf) {
		t.Fatalf("shuffled records differ from the input as a multiset")
	}
}

// Seed makes the files' order repeatable: with one reader and
// ShuffleFiles, the records' order is the same on every run, over every
// epoch, and another seed gives another (Seed's doc).
func TestSeedShuffleFilesRepeatable(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 8, 5)
	read := func(seed uint64) []int64 {
		got, _ := collect(t, Examples(filepath.Join(dir, "train-*"), testSpec, Readers(1), ShuffleFiles(), Seed(seed), Epochs(3)), 7)
		return got
	}
	first := read(5)
	for range 5 {
		if again := read(5); !slices.Equal(again, first) {
			t.Fatalf("Seed(5) read\n%v\nthen\n%v", first, again)
		}
	}
	if slices.Equal(read(6), first) {
		t.Error("Seed(6) read the files in Seed(5)'s order")
	}
}

// The last batch is smaller by default and dropped with DropRemainder.
func TestFinalBatch(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 2, 25)
	for _, tc := range []struct {
		name  string
		opts  []ExampleOption
		bopts []BatchOption
		sizes []int
	}{
		{"smaller final batch", []ExampleOption{Readers(2)}, nil, []int{16, 16, 16, 2}},
		{"drop remainder", []ExampleOption{Readers(2)}, []BatchOption{DropRemainder()}, []int{16, 16, 16}},
		{"smaller final batch shuffled", []ExampleOption{Readers(2), Shuffle(10)}, nil, []int{16, 16, 16, 2}},
		{"drop remainder shuffled", []ExampleOption{Readers(2), Shuffle(10)}, []BatchOption{DropRemainder()}, []int{16, 16, 16}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, sizes := collect(t, Examples(filepath.Join(dir, "train-*"), testSpec, tc.opts...), 16, tc.bopts...)
			if !slices.Equal(sizes, tc.sizes) {
				t.Fatalf("batch sizes %v, want %v", sizes, tc.sizes)
			}
		})
	}
}

// A VarLen feature is sparse, and Dense pads it with zeros to the longest
// record of the batch.
func TestPadding(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 1, 6)
	for b, err := range Examples(filepath.Join(dir, "train-*"), testSpec, Readers(1)).Batches(t.Context(), 3) {
		if err != nil {
			t.Fatal(err)
		}
		// Labels 0,1,2 then 3,4,5: tokens are label%4 copies of the label.
		var want [][]int64
		switch b.Int64("label")[0] {
		case 0:
			want = [][]int64{{0, 0}, {1, 0}, {2, 2}}
		case 3:
			want = [][]int64{{3, 3, 3}, {0, 0, 0}, {5, 0, 0}}
		}
		d := b.Dense("tokens")
		if got := d.Shape(); !slices.Equal(got, tensor.Shape{3, len(want[0])}) {
			t.Fatalf("padded shape %v, want [3 %d]", got, len(want[0]))
		}
		got := b.Int64("tokens")
		if !slices.Equal(got, slices.Concat(want...)) {
			t.Errorf("padded tokens %v, want %v", got, want)
		}
		lens := b.Lengths("tokens")
		for i, w := range b.Int64("label") {
			if lens[i] != int(w%4) {
				t.Errorf("Lengths[%d] = %d, want %d", i, lens[i], w%4)
			}
		}
		if s := b.Sparse("tokens"); s.NNZ() != sum(lens) {
			t.Errorf("sparse tokens have %d values, want %d", s.NNZ(), sum(lens))
		}
	}
}

// An Example's FixedLenSequence feature is padded to the batch's most
// steps, and Lengths tells each record's steps from the padding, on every
// path a batch is made by: plain, shuffled, deterministic, globally
// shuffled, and kept.
func TestFixedLenSequenceLengths(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 2, 13)
	spec := example.Spec{
		"label":  example.FixedLen(tensor.Int64),
		"tokens": example.FixedLenSequence(tensor.Int64).AllowMissing().WithDefault(tensor.Scalar(int64(-1))),
	}
	pat := filepath.Join(dir, "train-*")
	for _, tt := range []struct {
		name  string
		ds    *Dataset
		batch []BatchOption
	}{
		{"plain", Examples(pat, spec, Readers(2)), nil},
		{"shuffled", Examples(pat, spec, Shuffle(8), Seed(1)), nil},
		{"deterministic", Examples(pat, spec, Shuffle(8), Seed(1), Deterministic()), nil},
		{"global shuffle", Examples(pat, spec, GlobalShuffle(), Seed(1)), nil},
		{"kept", Examples(pat, spec), []BatchOption{KeepBatches()}},
	} {
		seen := 0
		for b, err := range tt.ds.Batches(t.Context(), 4, tt.batch...) {
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			lens := b.Lengths("tokens")
			d := b.Dense("tokens")
			steps := d.Shape()[1]
			if steps != slices.Max(lens) {
				t.Errorf("%s: tokens padded to %d steps, want the batch's most, %d", tt.name, steps, slices.Max(lens))
			}
			for i, l := range b.Int64("label") {
				want := slices.Repeat([]int64{l}, int(l%4))
				want = append(want, slices.Repeat([]int64{-1}, steps-len(want))...)
				if lens[i] != int(l%4) || !slices.Equal(d.Int64s()[i*steps:(i+1)*steps], want) {
					t.Errorf("%s: record %d: tokens %v with length %d, want %v with %d", tt.name, l, d.Int64s()[i*steps:(i+1)*steps], lens[i], want, l%4)
				}
				seen++
			}
		}
		if seen != 26 {
			t.Errorf("%s: %d records, want 26", tt.name, seen)
		}
	}
}

func sum(v []int) (s int) {
	for _, x := range v {
		s += x
	}
	return s
}

// Files of every compression are read together, each detected from its
// first bytes.
func TestMixedCompression(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 4, 10, tfrecord.None, tfrecord.Gzip, tfrecord.Zlib, tfrecord.Zstd)
	labels, _ := collect(t, Examples(filepath.Join(dir, "train-*"), testSpec, Readers(1)), 8)
	if len(labels) != 40 || labels[39] != 39 {
		t.Fatalf("read %d records (last %v), want 40 in order", len(labels), labels[len(labels)-1:])
	}
}

// A pattern that matches nothing is an error naming it; so is each
// invalid argument.
func TestArgumentErrors(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 1, 3)
	pat := filepath.Join(dir, "nothing-*.tfrecord")
	all := filepath.Join(dir, "train-*")
	for _, tc := range []struct {
		name string
		ds   *Dataset
		n    int
		want error
		text string
	}{
		{"glob without match", Examples(pat, testSpec), 8, ErrNoFiles, pat},
		{"second glob without match", Examples(all, testSpec, Files(pat)), 8, ErrNoFiles, pat},
		{"missing file", Examples(filepath.Join(dir, "missing.tfrecord"), testSpec), 8, os.ErrNotExist, "missing.tfrecord"},
		{"batch size 0", Examples(all, testSpec), 0, ErrInvalid, "batch size 0"},
		{"Epochs(0)", Examples(all, testSpec, Epochs(0)), 8, ErrInvalid, "Epochs(0)"},
		{"Readers(-1)", Examples(all, testSpec, Readers(-1)), 8, ErrInvalid, "Readers(-1)"},
		// Past the bounds, a slot for each reader or an overflowing
		// queue capacity (audit 63).
		{"Readers(1<<40)", Examples(all, testSpec, Readers(1<<40)), 8, ErrInvalid, "Readers(1099511627776)"},
		{"Shuffle(MaxInt)", Examples(all, testSpec, Shuffle(math.MaxInt)), 8, ErrInvalid, "Shuffle(9223372036854775807)"},
		{"Shuffle(MaxInt) Deterministic", Examples(all, testSpec, Shuffle(math.MaxInt), Deterministic()), 8, ErrInvalid, "Shuffle(9223372036854775807)"},
		{"bad spec", Examples(all, example.Spec{"x": example.FixedLen(tensor.Int32)}), 8, nil, "x"},
		{"empty spec", Examples(all, example.Spec{}), 8, ErrInvalid, "no feature"},
		{"CSV without columns", CSV(all, nil), 8, ErrInvalid, "no features"},
		{"CSV duplicate column", CSV(all, []Column{Col("a", decode.Int64Column(0)), Col("a", decode.Int64Column(0))}), 8, ErrInvalid, `"a"`},
		{"field outside record", FixedLengthRecords(all, 4, []Field{{Name: "x", Offset: 2, Size: 4, DType: tensor.Uint8}}), 8, ErrInvalid, `"x"`},
		// Invalid arguments the layers below find match ErrInvalid too.
		{"SkipHeaderLines(-1)", CSV(all, []Column{Col("a", decode.Int64Column(0))}, SkipHeaderLines(-1)), 8, ErrInvalid, "-1"},
		{"HeaderBytes(-1)", FixedLengthRecords(all, 4, []Field{{Name: "x", Size: 4, DType: tensor.Uint8}}, HeaderBytes(-1)), 8, ErrInvalid, "-1"},
		{"Shard(2, 2)", Examples(all, testSpec, Shard(2, 2)), 8, ErrInvalid, "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got error
			for _, err := range tc.ds.Batches(t.Context(), tc.n) {
				got = err
			}
			if got == nil || tc.want != nil && !errors.Is(got, tc.want) || !strings.Contains(got.Error(), tc.text) {
				t.Fatalf("error %v, want one wrapping %v and naming %q", got, tc.want, tc.text)
			}
		})
	}
}

// A corrupt record stops the loop with an error naming its file and
// offset, on either path; the goroutines end (TestMain checks).
func TestCorruptRecord(t *testing.T) {
	dir := t.TempDir()
	names := writeExamples(t, dir, 2, 30)
	data, err := os.ReadFile(names[1])
	if err != nil {
		t.Fatal(err)
	}
	// Flip a byte inside the data of the second record.
	r := tfrecord.NewReader(strings.NewReader(string(data)))
	r.Next()
	r.Next()
	recLen := r.Offset()
	data[recLen+20] ^= 0xff
	if err := os.WriteFile(names[1], data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := names[1]
	for _, tc := range []struct {
		name string
		opts []ExampleOption
	}{
		{"direct", []ExampleOption{Readers(2)}},
		{"shuffled", []ExampleOption{Readers(2), Shuffle(10)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got error
			for _, err := range Examples(filepath.Join(dir, "train-*"), testSpec, tc.opts...).Batches(t.Context(), 8) {
				if err != nil {
					got = err
				}
			}
			if !errors.Is(got, tfrecord.ErrDataLoss) || !strings.Contains(got.Error(), want) || !strings.Contains(got.Error(), fmt.Sprint(recLen)) {
				t.Fatalf("error %v, want data loss naming %s and offset %d", got, want, recLen)
			}
		})
	}
}

// A corrupt record ends the iteration where it lies, in every mode: the
// batches before the one that holds it are delivered first, the same ones
// a plain reading delivers (a Deterministic run once dropped the records a
// reader had read before the error in the same block).
func TestCorruptRecordAfterGoodBatches(t *testing.T) {
	dir := t.TempDir()
	names := writeExamples(t, dir, 1, 40)
	data, err := os.ReadFile(names[0])
	if err != nil {
		t.Fatal(err)
	}
	// Flip a byte inside the data of record 13: batches of 4 deliver
	// records 0 to 11, and the batch of 12 to 15 fails.
	r := tfrecord.NewReader(bytes.NewReader(data))
	for range 13 {
		r.Next()
	}
	data[r.Offset()+14] ^= 0xff
	if err := os.WriteFile(names[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []ExampleOption
	}{
		{"plain", nil},
		{"deterministic", []ExampleOption{Deterministic()}},
		{"deterministic, two readers", []ExampleOption{Deterministic(), Readers(2)}},
	} {
		var labels []int64
		var got error
		for b, err := range Examples(names[0], testSpec, tc.opts...).Batches(t.Context(), 4) {
			if err != nil {
				got = err
				break
			}
			labels = append(labels, b.Int64("label")...)
		}
		if !errors.Is(got, tfrecord.ErrDataLoss) || !slices.Equal(labels, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) {
			t.Errorf("%s: labels %v, then %v; want 0 to 11, then data loss", tc.name, labels, got)
		}
	}
}

// A record that is a valid TFRecord but not a valid Example names its
// file and offset too.
func TestMalformedExample(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "bad.tfrecord")
	f, _ := os.Create(name)
	w := tfrecord.NewWriter(f)
	good := example.New().Int64("label", 1).Floats("image", []float32{1, 1, 1, 1}).Marshal()
	w.Write(good)
	w.Write([]byte{0xff, 0xff, 0xff})
	w.Close()
	f.Close()
	off := len(good) + tfrecord.Overhead
	for _, opts := range [][]ExampleOption{{Readers(1)}, {Readers(1), Shuffle(1)}} {
		var got error
		for _, err := range Examples(name, testSpec, opts...).Batches(t.Context(), 4) {
			got = err
		}
		if !errors.Is(got, example.ErrMalformed) || !strings.Contains(got.Error(), fmt.Sprintf("%s:%d", name, off)) {
			t.Fatalf("error %v, want a malformed Example named %s:%d", got, name, off)
		}
	}
}

// Breaking out of the loop after one batch ends every goroutine, on both
// paths and with the data set repeating for ever (TestMain's goleak check
// fails the package otherwise).
func TestBreakReleasesGoroutines(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 4, 100)
	for _, opts := range [][]ExampleOption{
		{Forever(), Readers(4)},
		{Forever(), Readers(4), Shuffle(100)},
	} {
		n := 0
		for b, err := range Examples(filepath.Join(dir, "train-*"), testSpec, opts...).Batches(t.Context(), 8) {
			if err != nil {
				t.Fatal(err)
			}
			n += b.Len()
			break
		}
		if n != 8 {
			t.Fatalf("got %d records before the break, want 8", n)
		}
	}
}

// Cancelling the context ends the loop with the context's error.
func TestCancel(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 2, 50)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got error
	n := 0
	for _, err := range Examples(filepath.Join(dir, "train-*"), testSpec, Forever()).Batches(ctx, 8) {
		if err != nil {
			got = err
			break
		}
		if n++; n == 3 {
			cancel()
		}
	}
	if !errors.Is(got, context.Canceled) {
		t.Fatalf("error %v after cancel, want context.Canceled", got)
	}
}

// Unknown names and wrong types panic with a message naming the feature.
func TestAccessorPanics(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 1, 2)
	for b, err := range Examples(filepath.Join(dir, "train-*"), testSpec).Batches(t.Context(), 2) {
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			call func()
			want string
		}{
			{"unknown name", func() { b.Float32("imag") }, `no feature "imag"`},
			{"wrong type", func() { b.Float32("label") }, `"label" is int64, not float32`},
			{"sparse of dense", func() { b.Sparse("label") }, `"label" is dense`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				defer func() {
					r := recover()
					if r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
						t.Fatalf("panic %v, want one saying %s", r, tc.want)
					}
				}()
				tc.call()
			})
		}
	}
}

// With KeepBatches every batch keeps its values after later iterations;
// Clone keeps one batch by default.
func TestKeepBatches(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 3, 40)
	check := func(t *testing.T, kept []*Batch) {
		t.Helper()
		seen := make([]int, 120)
		for _, b := range kept {
			img := b.Float32("image")
			for i, l := range b.Int64("label") {
				if img[4*i] != float32(l) {
					t.Fatalf("kept batch: row %d has image %v and label %d", i, img[4*i:4*i+4], l)
				}
				seen[l]++
			}
		}
		for l, c := range seen {
			if c != 1 {
				t.Fatalf("label %d is in %d kept batches, want 1: a batch was overwritten", l, c)
			}
		}
	}
	for _, opts := range [][]ExampleOption{{Readers(2)}, {Readers(2), Shuffle(20)}} {
		var kept, cloned []*Batch
		for b, err := range Examples(filepath.Join(dir, "train-*"), testSpec, opts...).Batches(t.Context(), 8, KeepBatches()) {
			if err != nil {
				t.Fatal(err)
			}
			kept = append(kept, b)
		}
		check(t, kept)
		for b, err := range Examples(filepath.Join(dir, "train-*"), testSpec, opts...).Batches(t.Context(), 8) {
			if err != nil {
				t.Fatal(err)
			}
			cloned = append(cloned, b.Clone())
		}
		check(t, cloned)
	}
}

// CSV lines, plain or compressed, are decoded into named columns, with
// defaults for empty fields, header lines skipped, and an error naming
// the file and line.
func TestCSV(t *testing.T) {
	dir := t.TempDir()
	var want float64
	for i := range 3 {
		var sb strings.Builder
		sb.WriteString("x,y,name\n")
		for j := range 25 {
			v := i*25 + j
			if v%5 == 0 {
				fmt.Fprintf(&sb, ",%d,n%d\n", v, v) // x takes its default, -1
				want += -1
			} else {
				fmt.Fprintf(&sb, "%d.5,%d,n%d\n", v, v, v)
				want += float64(v) + 0.5
			}
		}
		// part-1 is GZIP and part-2 ZSTD, each found by its first bytes.
		c := []tfrecord.Compression{tfrecord.None, tfrecord.Gzip, tfrecord.Zstd}[i]
		var data bytes.Buffer
		w, err := tfrecord.NewCompressor(c, &data)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, sb.String())
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", i)), data.Bytes(), 0o644)
	}
	cols := []Column{
		Col("x", decode.Float64Column(-1)),
		Col("y", decode.RequiredInt64()),
		Col("name", decode.RequiredString()),
	}
	for _, opts := range [][]CSVOption{{SkipHeaderLines(1), Readers(2)}, {SkipHeaderLines(1), Readers(2), Shuffle(10), Epochs(2)}} {
		var sum float64
		var rows int
		for b, err := range CSV(filepath.Join(dir, "part-*.csv"), cols, opts...).Batches(t.Context(), 10) {
			if err != nil {
				t.Fatal(err)
			}
			for i, y := range b.Int64("y") {
				if name := string(b.Bytes("name")[i]); name != fmt.Sprintf("n%d", y) {
					t.Fatalf("row with y=%d has name %q: columns mixed up", y, name)
				}
			}
			for _, x := range b.Float64("x") {
				sum += x
			}
			rows += b.Len()
		}
		epochs := 1 + (len(opts)-2)/2
		if rows != 75*epochs || sum != want*float64(epochs) {
			t.Fatalf("%d rows summing to %v, want %d summing to %v", rows, sum, 75*epochs, want*float64(epochs))
		}
	}
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("1,2,a\n3,,b\n"), 0o644)
	var got error
	for _, err := range CSV(filepath.Join(dir, "bad.csv"), cols).Batches(t.Context(), 10) {
		got = err
	}
	if got == nil || !strings.Contains(got.Error(), "bad.csv:2") {
		t.Fatalf("error %v, want one naming bad.csv:2", got)
	}
}

// Fixed-length records are cut into named fields: numbers decoded little-
// or big-endian and shaped, and bytes as they are; header and footer are
// skipped.
func TestFixedLengthRecords(t *testing.T) {
	dir := t.TempDir()
	// A record: 1-byte label, 2 big-endian uint16 pixels, 3 bytes of tag.
	const recBytes = 1 + 4 + 3
	for i := range 2 {
		data := []byte("HEAD")
		for j := range 10 {
			v := byte(i*10 + j)
			data = append(data, v, 0, v, 1, v, 't', 'a', v)
		}
		data = append(data, "FOOT"...)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("data-%d.bin", i)), data, 0o644)
	}
	fields := []Field{
		{Name: "label", Offset: 0, Size: 1, DType: tensor.Uint8},
		{Name: "pixels", Offset: 1, Size: 4, DType: tensor.Uint16, Shape: []int{2, 1}, BigEndian: true},
		{Name: "tag", Offset: 5, Size: 3, DType: tensor.String},
	}
	n := 0
	for b, err := range FixedLengthRecords(filepath.Join(dir, "data-*.bin"), recBytes, fields,
		HeaderBytes(4), FooterBytes(4), Readers(1)).Batches(t.Context(), 6) {
		if err != nil {
			t.Fatal(err)
		}
		px := b.Dense("pixels")
		if !slices.Equal(px.Shape(), tensor.Shape{b.Len(), 2, 1}) {
			t.Fatalf("pixels have shape %v, want [%d 2 1]", px.Shape(), b.Len())
		}
		for i, l := range b.Uint8("label") {
			if l != byte(n) {
				t.Fatalf("record %d has label %d", n, l)
			}
			if p := px.Uint16s()[2*i : 2*i+2]; p[0] != uint16(l) || p[1] != 1<<8|uint16(l) {
				t.Fatalf("record %d has pixels %v", n, p)
			}
			if tag := string(b.Bytes("tag")[i]); tag != "ta"+string(rune(l)) {
				t.Fatalf("record %d has tag %q", n, tag)
			}
			n++
		}
	}
	if n != 20 {
		t.Fatalf("read %d records, want 20", n)
	}
}

// The memory a batch shares with later ones is never written while the
// loop body holds it: the body sees the same values at its end as at its
// start, however long it takes (readers keep running meanwhile).
func TestReusedBatchStableDuringIteration(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 4, 60)
	for _, opts := range [][]ExampleOption{{Readers(4), Epochs(3)}, {Readers(3), Epochs(3), Shuffle(30)}} {
		for b, err := range Examples(filepath.Join(dir, "train-*"), testSpec, opts...).Batches(t.Context(), 4) {
			if err != nil {
				t.Fatal(err)
			}
			before := slices.Clone(b.Int64("label"))
			for range 20 {
				runtime.Gosched() // let every reader run
			}
			if after := b.Int64("label"); !slices.Equal(before, after) {
				t.Fatalf("batch changed during its iteration: %v, then %v", before, after)
			}
		}
	}
}

// Workers built with Shard(i, n) read disjoint sets of files that together
// cover every record once.
func TestShard(t *testing.T) {
	dir := t.TempDir()
	writeExamples(t, dir, 5, 10)
	count := make([]int, 50)
	for i := range 2 {
		labels, _ := collect(t, Examples(filepath.Join(dir, "train-*"), testSpec, Shard(i, 2), Shuffle(5)), 4)
		for _, l := range labels {
			count[l]++
		}
	}
	for l, c := range count {
		if c != 1 {
			t.Fatalf("label %d read %d times by the two shards together, want 1", l, c)
		}
	}
	var got error
	for _, err := range Examples(filepath.Join(dir, "train-*"), testSpec, Shard(2, 2)).Batches(t.Context(), 4) {
		got = err
	}
	if got == nil {
		t.Fatal("Shard(2, 2) gave no error")
	}
}

// The real MNIST file written by TensorFlow tooling (../shared/interop,
// skipped when absent) reads into shuffled batches of 32: every record
// once, the same labels as a direct parse.
func TestInteropMNIST(t *testing.T) {
	name := filepath.Join("..", "shared", "interop", "mnist-1000.tfrecord")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Skip(err)
	}
	spec := example.Spec{
		"image_floats": example.FixedLen(tensor.Float32, 784),
		"image_class":  example.FixedLen(tensor.Int64),
	}
	p, _ := example.NewParser(spec)
	var want [10]int
	r := tfrecord.NewReader(strings.NewReader(string(data)))
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.ParseSingle(rec, "")
		if err != nil {
			t.Fatal(err)
		}
		l, _ := out.Dense("image_class")
		want[l.Int64s()[0]]++
	}
	var got [10]int
	n := 0
	for b, err := range Examples(name, spec, Shuffle(1000), Seed(1)).Batches(t.Context(), 32) {
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Float32("image_floats")) != 784*b.Len() {
			t.Fatalf("batch of %d has %d pixels", b.Len(), len(b.Float32("image_floats")))
		}
		for _, l := range b.Int64("image_class") {
			got[l]++
		}
		n += b.Len()
	}
	if n != 1000 || got != want {
		t.Fatalf("read %d records with labels %v, want 1000 with %v", n, got, want)
	}
}

// A field's Decode function decodes its bytes record by record; its error
// names the record.
func TestFixedLengthDecodeFunc(t *testing.T) {
	dir := t.TempDir()
	var data []byte
	for i := range byte(10) {
		data = append(data, i, 10*i, 20*i)
	}
	name := filepath.Join(dir, "planes.bin")
	os.WriteFile(name, data, 0o644)
	reverse := Field{Name: "rev", Offset: 0, Size: 3, DType: tensor.Uint8, Decode: func(b []byte) (tensor.Tensor, error) {
		if b[0] == 7 {
			return tensor.Tensor{}, errors.New("seven")
		}
		return tensor.New([]uint8{b[2], b[1], b[0]}, 3), nil
	}}
	n := 0
	for b, err := range FixedLengthRecords(name, 3, []Field{reverse}, Readers(1)).Batches(t.Context(), 4) {
		if n == 4 { // the second batch holds record 7
			if err == nil || !strings.Contains(err.Error(), name+":7") || !strings.Contains(err.Error(), "seven") {
				t.Fatalf("error %v, want one naming %s:7", err, name)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rev := b.Uint8("rev")
		for i := range b.Len() {
			if v := rev[3*i : 3*i+3]; v[0] != 20*byte(n) || v[1] != 10*byte(n) || v[2] != byte(n) {
				t.Fatalf("record %d decoded as %v", n, v)
			}
			n++
		}
	}
	if n != 4 {
		t.Fatalf("%d records before the error, want the first batch's 4", n)
	}
}

// checkpointAfter reads the first batches batches of n records of ds and
// returns the iteration's checkpoint there.
func checkpointAfter(t *testing.T, ds *Dataset, n, batches int) []byte {
	t.Helper()
	it, err := ds.Iterator(t.Context(), n)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	for range batches {
		if _, err := it.Next(); err != nil {
			t.Fatal(err)
		}
	}
	ck, err := it.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	return ck
}

// withReaderPos returns ck with its first reader's position replaced by
// what edit makes of it, for tests of positions a file has no record at.
func withReaderPos(t *testing.T, ck []byte, edit func(pos []byte) []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(ck, &m); err != nil {
		t.Fatal(err)
	}
	rd := m["readers"].([]any)[0].(map[string]any)
	var pos []byte
	if err := json.Unmarshal([]byte(`"`+rd["pos"].(string)+`"`), &pos); err != nil {
		t.Fatal(err)
	}
	rd["pos"] = edit(pos)
	return resealed(t, m)
}
