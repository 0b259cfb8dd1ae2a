package example

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// A FixedLen batch is made only once every record fills its shape: a
// mistaken shape ([2^28] for records of 4 values) made the batch parser
// allocate records × 1 GiB before the first record said it was wrong
// (audit 112: 256 GiB, and the process ended).
func TestFixedLenCheckedBeforeAllocating(t *testing.T) {
	p, err := NewParser(Spec{"f": FixedLen(tensor.Float32, 1<<28)})
	if err != nil {
		t.Fatal(err)
	}
	rec := New().Float("f", 1, 2, 3, 4).Marshal()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = p.Parse([][]byte{rec, rec}, []string{"a:0", "a:9"})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrValueCount) || !strings.Contains(err.Error(), "a:0") {
		t.Fatalf("%v, want ErrValueCount naming record a:0", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing the batch allocated %d bytes", alloc)
	}
}

// A FixedLenSequence batch padded to its longest record beyond what the
// machine holds is an error naming that record, as a VarLen feature's
// padding is (audit 112: one record of 8M values among 1023 of one asked
// for 32 GiB, and the process ended). Both in Examples and in
// SequenceExamples' feature lists.
func TestSequencePaddingTooLarge(t *testing.T) {
	if tensor.MemoryLimit() >= 1<<40 {
		t.Skip("the machine's memory is not known")
	}
	const n, long = 1 << 14, 1 << 22 // padded: 2^36 floats, 256 GiB
	values := make([]float32, long)
	short := New().Float("s", 1).Marshal()
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = short
	}
	recs[77] = New().Float("s", values...).Marshal()
	p, err := NewParser(Spec{"s": FixedLenSequence(tensor.Float32).AllowMissing()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Parse(recs, nil)
	if !errors.Is(err, tensor.ErrResourceExhausted) || !strings.Contains(err.Error(), "record 77") {
		t.Errorf("Examples: %v, want ErrResourceExhausted naming record 77", err)
	}

	empty := NewSequence().Marshal() // no steps
	for i := range recs {
		recs[i] = empty
	}
	steps := make([]Feature, 1<<10)
	for i := range steps {
		steps[i] = FloatList(values[:1<<12]...)
	}
	recs[77] = NewSequence().List("l", steps...).Marshal() // padded: 2^14 × 2^10 × 2^12 floats
	sp, err := NewSequenceParser(Spec{}, Spec{"l": FixedLenSequence(tensor.Float32, 1<<12).AllowMissing()})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = sp.Parse(recs, nil)
	if !errors.Is(err, tensor.ErrResourceExhausted) || !strings.Contains(err.Error(), "record 77") {
		t.Errorf("SequenceExamples: %v, want ErrResourceExhausted naming record 77", err)
	}
}

// ParseSingleInto checks a record before it makes a row the spec sizes
// (audit 113: 32 MiB made for a record of 4 values).
func TestParseSingleIntoCheckedBeforeAllocating(t *testing.T) {
	p, err := NewParser(Spec{"f": FixedLen(tensor.Float32, 1<<23)})
	if err != nil {
		t.Fatal(err)
	}
	rec := New().Float("f", 1, 2, 3, 4).Marshal()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = p.ParseSingleInto(nil, rec, "k")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrValueCount) {
		t.Fatalf("%v, want ErrValueCount", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing the record allocated %d bytes", alloc)
	}
}
