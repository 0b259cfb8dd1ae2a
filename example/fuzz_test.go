package example

import (
	"encoding/base64"
	"errors"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

func fuzzSpec() Spec {
	return Spec{
		"f":  VarLen(tensor.Float32),
		"i":  VarLen(tensor.Int64),
		"s":  VarLen(tensor.String),
		"d":  FixedLen(tensor.Float32, 2).WithDefault(tensor.Scalar(float32(-1))),
		"n":  FixedLen(tensor.Int64).WithDefault(tensor.Scalar(int64(9))),
		"b":  FixedLen(tensor.String).WithDefault(tensor.StringScalar("z")),
		"q":  FixedLenSequence(tensor.Int64).AllowMissing(),
		"sp": SparseFeature([]string{"i"}, "f", tensor.Float32, []int{10}, false),
	}
}

func addRefSeeds(f *testing.F, sequence bool) {
	for _, c := range loadRef(f).Cases {
		if (c.Mode == "seq_single" || c.Mode == "seq_batch") != sequence {
			continue
		}
		for _, s := range c.Inputs {
			b, _ := base64.StdEncoding.DecodeString(s)
			f.Add(b)
		}
	}
}

func sameParsed(t *testing.T, what string, a, b *Parsed) {
	t.Helper()
	ca, cb := a.Components(), b.Components()
	if len(ca) != len(cb) {
		t.Fatalf("%s: %d components vs %d", what, len(ca), len(cb))
	}
	for i := range ca {
		if !sameBits(ca[i], cb[i]) {
			t.Fatalf("%s: component %s: fast %v, reference %v", what, a.ComponentNames()[i], ca[i], cb[i])
		}
	}
	for _, name := range a.Names() {
		la, oka := a.Lengths(name)
		lb, okb := b.Lengths(name)
		if oka != okb || oka && !sameBits(la, lb) {
			t.Fatalf("%s: Lengths(%s): fast %v, %v, reference %v, %v", what, name, la, oka, lb, okb)
		}
	}
}

// agree checks the contract between the paths: where proto.Unmarshal
// accepts a record, the fast path gives the same tensors or the same
// error; the fast path fails only where proto.Unmarshal does too (it may
// accept what proto.Unmarshal rejects in features it does not read).
func agree(t *testing.T, fast, ref error) {
	t.Helper()
	switch {
	case fast != nil && ref == nil:
		t.Fatalf("fast path failed, reference did not: %v", fast)
	case fast == nil && ref != nil && !errors.Is(ref, ErrMalformed):
		t.Fatalf("reference failed, fast path did not: %v", ref)
	case fast != nil && ref != nil && !errors.Is(ref, ErrMalformed) && fast.Error() != ref.Error():
		t.Fatalf("errors differ:\n fast %v\n  ref %v", fast, ref)
	}
	var pe *ParseError
	if fast != nil && !errors.As(fast, &pe) {
		t.Fatalf("fast error %T is not a *ParseError: %v", fast, fast)
	}
}

// FuzzParseSingle compares the fast path with the generated-message path
// on arbitrary bytes.
func FuzzParseSingle(f *testing.F) {
	addRefSeeds(f, false)
	f.Add(New().Float("f", 1, 2).Int64("i", 3, 1).Strings("s", "a").Float("d", 1, 2).Int64("q", 1, 2, 3).Marshal())
	f.Add([]byte{})
	fast, _ := NewParser(fuzzSpec())
	ref, _ := newReferenceParser(fuzzSpec())
	// A reusing parser writes each batch over the last one's outputs and
	// Parsed: whatever came before, a batch must read as a fresh
	// parser's.
	reusing, _ := NewParser(fuzzSpec())
	reusing.ReuseOutputs()
	seed := New().Float("f", 9, 8).Int64("i", 7, 6).Strings("s", "z").Float("d", 5, 4).Int64("q", 3).Marshal()
	f.Fuzz(func(t *testing.T, rec []byte) {
		a, errA := fast.ParseSingle(rec, "k")
		b, errB := ref.ParseSingle(rec, "k")
		agree(t, errA, errB)
		if errA == nil && errB == nil {
			sameParsed(t, "single", a, b)
			// Batching two copies must give the same values twice.
			want, err := fast.Parse([][]byte{rec, rec}, nil)
			if err != nil {
				t.Fatalf("batch of a good record failed: %v", err)
			}
			if _, err := reusing.Parse([][]byte{seed, seed}, nil); err != nil {
				t.Fatal(err)
			}
			got, err := reusing.Parse([][]byte{rec, rec}, nil)
			if err != nil {
				t.Fatalf("reusing parser: %v", err)
			}
			sameParsed(t, "reused", got, want)
			// A batch's step counts are the single record's steps.
			steps, _ := want.Lengths("q")
			if q, _ := a.Dense("q"); steps.Len() != 2 || steps.Int64s()[0] != int64(q.Shape()[0]) || steps.Int64s()[1] != int64(q.Shape()[0]) {
				t.Fatalf("Lengths(q) of a batch of two = %v, want the record's %d steps twice", steps, q.Shape()[0])
			}
		}
	})
}

// FuzzParseSequence compares the paths for SequenceExamples.
func FuzzParseSequence(f *testing.F) {
	addRefSeeds(f, true)
	f.Add([]byte{})
	// Steps whose total fits the rows but not each step; empty steps.
	f.Add(NewSequence().List("t", Int64List(1), Int64List(2, 3, 4)).Marshal())
	f.Add(NewSequence().List("t", Int64List(1, 2), Feature{}).List("emb", FloatList(1), FloatList()).Marshal())
	f.Add(emptySteps(1000))
	ctx := Spec{"c": VarLen(tensor.Int64), "d": FixedLen(tensor.Float32).WithDefault(tensor.Scalar(float32(0)))}
	lists := Spec{"t": FixedLenSequence(tensor.Int64, 2).AllowMissing(), "w": VarLen(tensor.String),
		"tok": VarLen(tensor.Int64), "emb": FixedLenSequence(tensor.Float32).AllowMissing()}
	fast, _ := NewSequenceParser(ctx, lists)
	ref, _ := NewSequenceParser(ctx, lists)
	ref.reference = true
	f.Fuzz(func(t *testing.T, rec []byte) {
		c1, l1, errA := fast.ParseSingle(rec, "k")
		c2, l2, errB := ref.ParseSingle(rec, "k")
		agree(t, errA, errB)
		if errA == nil && errB == nil {
			sameParsed(t, "context", c1, c2)
			sameParsed(t, "lists", l1, l2)
		}
	})
}
