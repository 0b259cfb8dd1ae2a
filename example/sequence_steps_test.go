package example

import (
	"bytes"
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/sluiceml/sluice/tensor"
)

// Each step of a FixedLenSequence feature list must hold exactly the
// values of one row, as TensorFlow's ParseSequenceExample requires
// ("Number of values != expected"): steps of 1 and 3 values with shape [2]
// have a total that fits two steps, but moving a value from one step to
// the other would give a wrong answer. Both paths agree, and the
// *ParseError's text is TensorFlow's (DECODERS.md "tf.train.Example and
// SequenceExample").
func TestFixedLenSequenceStepCounts(t *testing.T) {
	lists := Spec{"t": FixedLenSequence(tensor.Int64, 2)}
	good := NewSequence().List("t", Int64List(1, 2), Int64List(3, 4)).Marshal()
	tests := []struct {
		name string
		recs [][]byte
		want string // error, empty if none
	}{
		{"1 and 3 values", [][]byte{NewSequence().List("t", Int64List(1), Int64List(2, 3, 4)).Marshal()},
			"Name: r0, Key: t, Index: 0.  Number of values != expected.  values size: 1 but output shape: [2]"},
		{"3 and 1 values", [][]byte{NewSequence().List("t", Int64List(1, 2), Int64List(3, 4, 5), Int64List(6)).Marshal()},
			"Name: r0, Key: t, Index: 1.  Number of values != expected.  values size: 3 but output shape: [2]"},
		{"empty step", [][]byte{NewSequence().List("t", Int64List(1, 2), Int64List()).Marshal()},
			"Name: r0, Key: t, Index: 1.  Number of values != expected.  values size: 0 but output shape: [2]"},
		{"empty Feature step", [][]byte{NewSequence().List("t", Int64List(1, 2), Feature{}).Marshal()},
			"Name: r0, Key: t, Index: 1.  Number of values != expected.  values size: 0 but output shape: [2]"},
		{"second record", [][]byte{good, NewSequence().List("t", Int64List(1, 2, 3), Int64List(4)).Marshal()},
			"Name: r1, Key: t, Index: 0.  Number of values != expected.  values size: 3 but output shape: [2]"},
		{"total not a multiple", [][]byte{NewSequence().List("t", Int64List(1), Int64List(2, 3, 4), Int64List(5)).Marshal()},
			"Name: r0, Feature list 't' has an unexpected number of values.  Total values size: 5 is not consistent with output shape: [?,2]"},
		{"good", [][]byte{good, good}, ""},
	}
	for _, tt := range tests {
		for _, reference := range []bool{false, true} {
			p, err := NewSequenceParser(Spec{}, lists)
			if err != nil {
				t.Fatal(err)
			}
			p.reference = reference
			keys := []string{"r0", "r1"}[:len(tt.recs)]
			_, l, err := p.Parse(tt.recs, keys)
			if tt.want == "" {
				if err != nil {
					t.Errorf("%s (reference %v): %v", tt.name, reference, err)
					continue
				}
				got, _ := l.Dense("t")
				if want := tensor.New([]int64{1, 2, 3, 4, 1, 2, 3, 4}, 2, 2, 2); !sameBits(got, want) {
					t.Errorf("%s (reference %v): %v, want %v", tt.name, reference, got, want)
				}
				continue
			}
			var pe *ParseError
			if !errors.Is(err, ErrValueCount) || !errors.As(err, &pe) || pe.Feature != "t" || pe.Error() != tt.want {
				t.Errorf("%s (reference %v): %v, want %q", tt.name, reference, err, tt.want)
			}
		}
	}
}

// emptySteps returns a SequenceExample whose feature list "t" has n empty
// Feature steps: two bytes of record per step.
func emptySteps(n int) []byte {
	list := bytes.Repeat([]byte{0x0a, 0x00}, n) // FeatureList.feature: empty Feature
	return ld(2, entryOf("t", list))
}

// A feature list of many empty steps costs memory in proportion to the
// record, not to per-step bookkeeping (each step used to cost a 150-byte
// reference, 75 times its two bytes, and appending them several times
// more): 10^7 steps took 6 GB and 17 s.
func TestManyEmptySteps(t *testing.T) {
	const n = 1_000_000
	rec := emptySteps(n)
	for _, tt := range []struct {
		spec Spec
		want error
	}{
		{Spec{"t": VarLen(tensor.Int64)}, nil},
		{Spec{"t": FixedLenSequence(tensor.Float32, 0)}, nil},
		{Spec{"t": FixedLenSequence(tensor.Float32, 3)}, ErrValueCount},
	} {
		p, err := NewSequenceParser(Spec{}, tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, l, err := p.ParseSingle(rec, "k")
		runtime.ReadMemStats(&after)
		if !errors.Is(err, tt.want) {
			t.Fatalf("%v: %v, want %v", tt.spec, err, tt.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(rec)) {
			t.Errorf("%v: allocated %d bytes for a %d-byte record", tt.spec, alloc, len(rec))
		}
		if err != nil {
			continue
		}
		if sp, ok := l.Sparse("t"); ok && !sp.DenseShape.Equal(tensor.Shape{n, 0}) {
			t.Errorf("VarLen dense shape %v, want [%d,0]", sp.DenseShape, n)
		}
		if d, ok := l.Dense("t"); ok && !d.Shape().Equal(tensor.Shape{n, 0}) {
			t.Errorf("FixedLenSequence shape %v, want [%d,0]", d.Shape(), n)
		}
	}
}

// BenchmarkEmptySteps parses the record: 10^7 empty steps, 20 MB.
// Run it alone, under /usr/bin/time -v for the peak RSS:
//
//	go test -c -o /tmp/example.test ./example
//	/usr/bin/time -v /tmp/example.test -test.run '^$' -test.bench BenchmarkEmptySteps -test.benchtime 1x -test.benchmem
func BenchmarkEmptySteps(b *testing.B) {
	rec := emptySteps(10_000_000)
	p, err := NewSequenceParser(Spec{}, Spec{"t": VarLen(tensor.Int64)})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(rec)))
	start := time.Now()
	for b.Loop() {
		if _, _, err := p.ParseSingle(rec, "k"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/parse")
}

// A VarLen feature list's step counts come with it, trailing empty steps
// included, which its sparse indices cannot show; on both paths.
func TestVarLenListLengths(t *testing.T) {
	lists := Spec{"w": VarLen(tensor.Int64)}
	recs := [][]byte{
		NewSequence().List("w", Int64List(1), Int64List(), Feature{}).Marshal(),
		NewSequence().Marshal(),
		NewSequence().List("w", Int64List(2, 3)).Marshal(),
	}
	for _, reference := range []bool{false, true} {
		p, err := NewSequenceParser(Spec{}, lists)
		if err != nil {
			t.Fatal(err)
		}
		p.reference = reference
		_, l, err := p.Parse(recs, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := l.Lengths("w")
		if want := []int64{3, 0, 1}; !ok || !slices.Equal(got.Int64s(), want) {
			t.Errorf("reference %v: Lengths(w) = %v, %v, want %v", reference, got, ok, want)
		}
		if s, _ := l.Sparse("w"); !slices.Equal(s.DenseShape, tensor.Shape{3, 3, 2}) {
			t.Errorf("reference %v: dense shape %v, want [3 3 2]", reference, s.DenseShape)
		}
	}
}
