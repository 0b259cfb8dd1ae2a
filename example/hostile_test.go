package example

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/sluiceml/sluice/tensor"
)

// wire helpers for hand-made records.
func ld(num protowire.Number, payload []byte) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendBytes(b, payload)
}

func entryOf(key string, feature []byte) []byte {
	return ld(1, append(ld(1, []byte(key)), ld(2, feature)...))
}

// claim returns a length-delimited field header claiming n bytes.
func claim(num protowire.Number, n uint64) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendVarint(b, n)
}

// TestHostileInput: truncated and hostile records give ErrMalformed with
// the record's key and a byte offset, never a panic or an allocation sized
// by a length field (DECODERS.md: errors name the example).
func TestHostileInput(t *testing.T) {
	floatFeature := func(body []byte) []byte { return ld(1, entryOf("f", ld(2, body))) }
	deep := bytes.Repeat(protowire.AppendTag(nil, 5, protowire.StartGroupType), 200000)
	tests := []struct {
		name   string
		rec    []byte
		offset int // expected byte offset of the problem, -1 to skip the check
	}{
		{"length past end of record", append(claim(1, 100), 1, 2, 3), 0},
		{"2^62 length", append(claim(1, 1<<62), 1, 2), 0},
		{"packed float claims 2^31 bytes", floatFeature(append(claim(1, 1<<31), 0, 0, 0x80, 0x3f)), 11},
		{"packed float 3 bytes", floatFeature(ld(1, []byte{0, 0, 0x80})), 13},
		{"packed int64 truncated varint", ld(1, entryOf("i", ld(3, ld(1, []byte{0x80, 0x80})))), 13},
		{"11-byte varint", ld(1, entryOf("i", ld(3, ld(1, bytes.Repeat([]byte{0xff}, 11))))), 13},
		{"truncated tag", []byte{0x80}, 0},
		{"field number 0", []byte{0x02, 0x00}, 0},
		{"end group at top level", protowire.AppendTag(nil, 3, protowire.EndGroupType), 0},
		{"reserved wire type 6", []byte{0x0e}, -1},
		{"deeply nested groups", deep, 0},
		{"truncated fixed64", []byte{0x19, 1, 2}, 0},
		{"entry key past end", ld(1, append(claim(1, 50), 'a')), 2},
	}
	spec := Spec{"f": VarLen(tensor.Float32), "i": VarLen(tensor.Int64)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, reference := range []bool{false, true} {
				p, _ := NewParser(spec)
				if reference {
					p, _ = newReferenceParser(spec)
				}
				_, err := p.ParseSingle(tt.rec, "file.tfrecord:1234")
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("reference=%v: error %v, want ErrMalformed", reference, err)
				}
				if !strings.Contains(err.Error(), "Name: file.tfrecord:1234") {
					t.Fatalf("error %q does not name the record", err)
				}
				var pe *ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("%T", err)
				}
				if !reference && tt.offset >= 0 && pe.At != tt.offset {
					t.Errorf("offset %d, want %d (%v)", pe.At, tt.offset, err)
				}
			}
		})
	}
}

// TestWrongWireTypeIsUnknownField: a known field number with the wrong wire
// type is an unknown field to protobuf, so it is skipped, not an error.
func TestWrongWireTypeIsUnknownField(t *testing.T) {
	varint := func(num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
	}
	f := ld(2, ld(1, []byte{0, 0, 0x80, 0x3f}))
	rec := append(varint(1, 5), ld(1, append(varint(1, 7), entryOf("f", append(f, varint(3, 1)...))...))...)
	for _, reference := range []bool{false, true} {
		p, _ := NewParser(Spec{"f": FixedLen(tensor.Float32)})
		if reference {
			p, _ = newReferenceParser(Spec{"f": FixedLen(tensor.Float32)})
		}
		out, err := p.ParseSingle(rec, "k")
		if err != nil {
			t.Fatalf("reference=%v: %v", reference, err)
		}
		if d, _ := out.Dense("f"); !tensor.Equal(d, tensor.Scalar(float32(1))) {
			t.Fatalf("f = %v", d)
		}
	}
}

// TestUnrequestedFeaturesNotRead: like TensorFlow's FastParseExample, the
// fast path does not look inside features the spec does not name, while
// proto.Unmarshal (the reference) rejects the record.
func TestUnrequestedFeaturesNotRead(t *testing.T) {
	bad := entryOf("junk", ld(2, ld(1, []byte{1, 2, 3})))
	rec := ld(1, append(entryOf("x", ld(3, ld(1, []byte{4}))), bad...))
	spec := Spec{"x": FixedLen(tensor.Int64)}
	out, err := ParseSingle(rec, spec, "k")
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := out.Dense("x"); !tensor.Equal(d, tensor.Scalar(int64(4))) {
		t.Fatalf("x = %v", d)
	}
	ref, _ := newReferenceParser(spec)
	if _, err := ref.ParseSingle(rec, "k"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("reference: %v, want ErrMalformed", err)
	}
}

func TestInvalidSpecs(t *testing.T) {
	tests := map[string]Spec{
		"float64 dtype":           {"a": FixedLen(tensor.Float64)},
		"unknown dim":             {"a": FixedLen(tensor.Float32, -1)},
		"default wrong size":      {"a": FixedLen(tensor.Int64, 3).WithDefault(tensor.New([]int64{1, 2}))},
		"default wrong dtype":     {"a": FixedLen(tensor.Int64).WithDefault(tensor.Scalar(float32(1)))},
		"sequence without allow":  {"a": FixedLenSequence(tensor.Int64)},
		"sparse keys/size differ": {"a": SparseFeature([]string{"i", "j"}, "v", tensor.Float32, []int{3}, false)},
		"zero spec":               {"a": FeatureSpec{}},
		// Shapes whose element count overflows, or that no record could
		// fill, are refused before anything is sized by them.
		"shape [3, 2^62]":                {"a": FixedLen(tensor.Int64, 3, 1<<62)},
		"shape [2^40] with a default":    {"a": FixedLen(tensor.Float32, 1<<40).WithDefault(tensor.Scalar(float32(1)))},
		"shape [2^31]":                   {"a": FixedLen(tensor.String, 1<<31)},
		"sequence step [2^20, 2^20]":     {"a": FixedLenSequence(tensor.Int64, 1<<20, 1<<20).AllowMissing()},
		"sequence step [2^62, 2^62, 16]": {"a": FixedLenSequence(tensor.Int64, 1<<62, 1<<62, 16).AllowMissing()},
		"sparse size [2^62, 4]":          {"a": SparseFeature([]string{"i", "j"}, "v", tensor.Float32, []int{1 << 62, 4}, false)},
	}
	for name, spec := range tests {
		if _, err := NewParser(spec); !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), `feature "a"`) {
			t.Errorf("%s: %v, want ErrInvalidSpec naming feature \"a\"", name, err)
		}
	}
	if _, err := NewSequenceParser(Spec{}, Spec{"l": FixedLenSequence(tensor.Int64, 3, 1<<62)}); !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), `feature "l"`) {
		t.Errorf("feature list of shape [3, 2^62]: %v", err)
	}
	// The largest row is allowed; a batch too large for a tensor is an
	// error, not a panic.
	p, err := NewParser(Spec{"a": FixedLen(tensor.Int64, MaxRowElements)})
	if err != nil {
		t.Fatalf("shape [2^31-1]: %v", err)
	}
	if _, err := p.Parse(make([][]byte, 1<<17+1), nil); !errors.Is(err, tensor.ErrTooManyElements) {
		t.Errorf("2^17+1 rows of 2^31-1: %v, want tensor.ErrTooManyElements", err)
	}
	if _, err := NewSequenceParser(Spec{}, Spec{"a": FixedLen(tensor.Int64)}); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("FixedLen in feature lists: %v", err)
	}
	if _, err := NewSequenceParser(Spec{"a": FixedLenSequence(tensor.Int64)}, Spec{}); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("FixedLenSequence in context: %v", err)
	}
}

// TestStringsAreCopied: parsed strings must not alias the record, which a
// reader may reuse.
func TestStringsAreCopied(t *testing.T) {
	rec := New().Strings("s", "hello").Strings("v", "a", "b").Marshal()
	out, err := ParseSingle(rec, Spec{"s": FixedLen(tensor.String), "v": VarLen(tensor.String)}, "k")
	if err != nil {
		t.Fatal(err)
	}
	clear(rec)
	s, _ := out.Dense("s")
	v, _ := out.Sparse("v")
	if string(s.Strings()[0]) != "hello" || string(v.Values.Strings()[1]) != "b" {
		t.Fatalf("strings changed with the record: %v %v", s, v.Values)
	}
}

func TestComponentsOrder(t *testing.T) {
	rec := New().Int64("b", 1).Float("a", 2).Int64("c", 5, 6).Marshal()
	out, err := ParseSingle(rec, Spec{"c": VarLen(tensor.Int64), "b": FixedLen(tensor.Int64), "a": FixedLen(tensor.Float32)}, "")
	if err != nil {
		t.Fatal(err)
	}
	names := out.ComponentNames()
	want := []string{"a", "b", "c/indices", "c/values", "c/dense_shape"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("ComponentNames = %v, want %v", names, want)
	}
	comps := out.Components()
	if !tensor.Equal(comps[4], tensor.New([]int64{2})) || !tensor.Equal(comps[3], tensor.New([]int64{5, 6})) {
		t.Fatalf("components %v", comps)
	}
	if _, ok := out.Dense("c"); ok {
		t.Error("Dense of a sparse feature reports ok")
	}
	if _, ok := out.Sparse("zzz"); ok {
		t.Error("Sparse of an unknown name reports ok")
	}
}

// TestParseAllocations: a reused Parser allocates per batch (outputs), not
// per record.
func TestParseAllocations(t *testing.T) {
	allocs := func(n int) float64 {
		recs := mnistLike(n)
		p, _ := NewParser(mnistSpec())
		return testing.AllocsPerRun(20, func() {
			if _, err := p.Parse(recs, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	a, b := allocs(8), allocs(512)
	if a != b || b > 16 {
		t.Fatalf("allocs per batch: %v for 8 records, %v for 512; want equal and small", a, b)
	}
}

// TestCopyFloatsByteOrder: the portable decoding loop (used on big-endian
// machines) agrees with the memmove fast path.
func TestCopyFloatsByteOrder(t *testing.T) {
	recs := mnistLike(4)
	p, _ := NewParser(mnistSpec())
	fast, err := p.Parse(recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func(v bool) { littleEndian = v }(littleEndian)
	littleEndian = false
	slow, err := p.Parse(recs, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := fast.Dense("image_floats")
	b, _ := slow.Dense("image_floats")
	if !tensor.Equal(a, b) {
		t.Fatal("byte-order paths disagree")
	}
}

// TestReuseOutputs: with ReuseOutputs, a second batch of the same size is
// written into the first batch's FixedLen tensors and Parsed, with correct
// values, a batch of another size gets new tensors, and a steady stream of
// batches allocates nothing.
func TestReuseOutputs(t *testing.T) {
	p, _ := NewParser(Spec{"x": FixedLen(tensor.Int64).WithDefault(tensor.Scalar(int64(-1)))})
	p.ReuseOutputs()
	rec := func(v int64) []byte { return New().Int64("x", v).Marshal() }
	a, err := p.Parse([][]byte{rec(1), rec(2)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	xa, _ := a.Dense("x")
	b, err := p.Parse([][]byte{nil, rec(4)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	xb, _ := b.Dense("x")
	if &xa.Int64s()[0] != &xb.Int64s()[0] {
		t.Error("same-size batch did not reuse the output")
	}
	if a != b {
		t.Error("same-size batch did not reuse the Parsed")
	}
	if !tensor.Equal(xb, tensor.New([]int64{-1, 4})) {
		t.Errorf("x = %v, want [-1 4]", xb)
	}
	c, _ := p.Parse([][]byte{rec(5)}, nil)
	if xc, _ := c.Dense("x"); !tensor.Equal(xc, tensor.New([]int64{5})) || !tensor.Equal(xb, tensor.New([]int64{-1, 4})) {
		t.Errorf("batch of another size: %v; earlier batch now %v", xc, xb)
	}
	recs := [][]byte{rec(1)}
	if allocs := testing.AllocsPerRun(50, func() { p.Parse(recs, nil) }); allocs != 0 {
		t.Errorf("%v allocations a batch with reuse, want 0", allocs)
	}
}

// A feature's value that occurs twice in its map entry is merged, as
// proto.Unmarshal merges it: each part must be whole fields, so a record
// whose field runs from one part into the next is malformed, in the fast
// path as in the reference path.
func TestValueInPartsMustBeWholeFields(t *testing.T) {
	entry := appendField(appendField(appendField(nil, 1, []byte("i")), 2, []byte{0x31}), 2, []byte("000000000000"))
	rec := appendField(nil, 1, appendField(nil, 1, entry))
	if _, err := ParseSingle(rec, fuzzSpec(), "k"); !errors.Is(err, ErrMalformed) {
		t.Fatalf("ParseSingle: %v, want ErrMalformed", err)
	}
	list := appendField(nil, 1, []byte{5})
	whole := appendField(appendField(appendField(nil, 1, []byte("i")), 2, appendField(nil, 3, list)), 2, appendField(nil, 3, list))
	p, err := ParseSingle(appendField(nil, 1, appendField(nil, 1, whole)), Spec{"i": VarLen(tensor.Int64)}, "k")
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := p.Sparse("i")
	if got := sp.Values.Int64s(); len(got) != 2 || got[0] != 5 || got[1] != 5 {
		t.Fatalf("merged value %v, want [5 5]", got)
	}
}
