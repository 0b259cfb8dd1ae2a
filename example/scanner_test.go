package example

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/example/pb"
	"github.com/sluiceml/sluice/tensor"
)

// scanned renders what a Scanner found, sorted by name: the form
// unmarshalled renders proto.Unmarshal's Example in.
func scanned(s *Scanner) []string {
	var out []string
	for i := range s.Len() {
		var v string
		switch s.Kind(i) {
		case tensor.String:
			v = fmt.Sprintf("bytes %q", s.AppendBytes(nil, i))
		case tensor.Float32:
			v = fmt.Sprintf("float %v", math32bits(s.AppendFloats(nil, i)))
		case tensor.Int64:
			v = fmt.Sprintf("int64 %v", s.AppendInt64s(nil, i))
		default:
			v = "none"
		}
		out = append(out, fmt.Sprintf("%q: %s (%d)", s.Name(i), v, s.Count(i)))
	}
	slices.Sort(out)
	return out
}

// math32bits shows floats by their bits, so NaNs compare.
func math32bits(v []float32) []uint32 {
	out := make([]uint32, len(v))
	for i, f := range v {
		out[i] = math.Float32bits(f)
	}
	return out
}

func unmarshalled(ex *pb.Example) []string {
	var out []string
	for name, f := range ex.GetFeatures().GetFeature() {
		var v string
		n := 0
		switch k := f.GetKind().(type) {
		case *pb.Feature_BytesList:
			n = len(k.BytesList.GetValue())
			v = fmt.Sprintf("bytes %q", k.BytesList.GetValue())
			if n == 0 {
				v = "bytes []"
			}
		case *pb.Feature_FloatList:
			n = len(k.FloatList.GetValue())
			v = fmt.Sprintf("float %v", math32bits(k.FloatList.GetValue()))
		case *pb.Feature_Int64List:
			n = len(k.Int64List.GetValue())
			v = fmt.Sprintf("int64 %v", k.Int64List.GetValue())
			if n == 0 {
				v = "int64 []"
			}
		default:
			v = "none"
		}
		out = append(out, fmt.Sprintf("%q: %s (%d)", name, v, n))
	}
	slices.Sort(out)
	return out
}

// hasUnknown reports whether m or a message in it has unknown fields.
func hasUnknown(m protoreflect.Message) bool {
	if len(m.GetUnknown()) > 0 {
		return true
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				found = hasUnknown(mv.Message())
				return !found
			})
		case fd.Message() != nil && !fd.IsList():
			found = hasUnknown(v.Message())
		}
		return !found
	})
	return found
}

// checkScanner holds a Scanner to proto.Unmarshal on rec: both fail, or
// both read the same features and unknown fields.
func checkScanner(t *testing.T, s *Scanner, rec []byte) {
	t.Helper()
	var ex pb.Example
	perr := proto.Unmarshal(rec, &ex)
	serr := s.Scan(rec)
	if (perr == nil) != (serr == nil) {
		t.Fatalf("%x: proto.Unmarshal: %v; Scan: %v", rec, perr, serr)
	}
	if serr != nil {
		var pe *ParseError
		var de *dataerr.Error
		if !errors.Is(serr, ErrMalformed) || !errors.As(serr, &pe) || !errors.As(serr, &de) || pe.At < 0 || pe.At > len(rec) {
			t.Fatalf("%x: Scan's error %v is not a ParseError with an offset in the record", rec, serr)
		}
		return
	}
	if got, want := scanned(s), unmarshalled(&ex); !slices.Equal(got, want) {
		t.Fatalf("%x: Scan found\n%s\nproto.Unmarshal\n%s", rec, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if want := hasUnknown(ex.ProtoReflect()); s.Unknown() != want {
		t.Fatalf("%x: Unknown() = %v, proto.Unmarshal kept unknown fields: %v", rec, s.Unknown(), want)
	}
}

// appendField appends a length-delimited field.
func appendField(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func wireEntry(name string, feature []byte) []byte {
	return appendField(appendField(nil, 1, []byte(name)), 2, feature)
}

func scannerCases() map[string][]byte {
	ints := example1()
	packed := protowire.AppendVarint(protowire.AppendVarint(nil, 5), 1<<40)
	int64List := appendField(nil, 1, packed)
	floatList := protowire.AppendFixed32(protowire.AppendTag(nil, 1, protowire.Fixed32Type), math.Float32bits(2.5))
	bytesList := appendField(appendField(nil, 1, []byte("a")), 1, []byte{0xff})
	feat := func(kind protowire.Number, list []byte) []byte { return appendField(nil, kind, list) }
	features := func(entries ...[]byte) []byte {
		var b []byte
		for _, e := range entries {
			b = appendField(b, 1, e)
		}
		return appendField(nil, 1, b)
	}
	return map[string][]byte{
		"built":          ints,
		"empty":          {},
		"empty features": {0x0a, 0x00},
		"kinds": features(wireEntry("i", feat(3, int64List)), wireEntry("f", feat(2, floatList)),
			wireEntry("b", feat(1, bytesList)), wireEntry("none", nil)),
		"name again":       features(wireEntry("x", feat(3, int64List)), wireEntry("y", feat(2, floatList)), wireEntry("x", feat(1, bytesList))),
		"features twice":   append(features(wireEntry("x", feat(3, int64List))), features(wireEntry("y", feat(2, floatList)), wireEntry("x", feat(2, floatList)))...),
		"lists joined":     features(wireEntry("x", append(feat(3, int64List), feat(3, int64List)...))),
		"list replaced":    features(wireEntry("x", append(feat(3, int64List), feat(2, floatList)...))),
		"value twice":      features(appendField(appendField(appendField(nil, 1, []byte("v")), 2, feat(3, int64List)), 2, feat(3, int64List))),
		"unknown top":      append(features(wireEntry("x", feat(3, int64List))), appendField(nil, 2, []byte{})...),
		"unknown in entry": features(append(wireEntry("x", feat(3, int64List)), protowire.AppendVarint(protowire.AppendTag(nil, 3, protowire.VarintType), 1)...)),
		"unknown feature":  features(wireEntry("x", append(feat(3, int64List), protowire.AppendVarint(protowire.AppendTag(nil, 7, protowire.VarintType), 1)...))),
		"unknown in list":  features(wireEntry("x", feat(2, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1)))),
		"no key":           features(appendField(nil, 2, feat(3, int64List))),
		"bad name":         features(wireEntry("\xff", feat(3, int64List))),
		"truncated":        ints[:len(ints)-1],
		"bad packed":       features(wireEntry("x", feat(3, appendField(nil, 1, []byte{0x80})))),
		"bad float":        features(wireEntry("x", feat(2, appendField(nil, 1, []byte{1, 2, 3})))),
		"sequence example": NewSequence().Context("c", Int64List(1)).List("l", FloatList(1)).Marshal(),
		"big field number": protowire.AppendVarint(protowire.AppendTag(nil, protowire.MaxValidNumber, protowire.VarintType), 1),
		"end group":        protowire.AppendTag(nil, 3, protowire.EndGroupType),
		"group":            append(protowire.AppendTag(nil, 3, protowire.StartGroupType), protowire.AppendTag(nil, 3, protowire.EndGroupType)...),
		"wrong wire type":  protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1),
		"negative int64":   features(wireEntry("n", feat(3, appendField(nil, 1, protowire.AppendVarint(nil, math.MaxUint64))))),
		"unpacked int64":   features(wireEntry("n", feat(3, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 3)))),
		"packed float":     features(wireEntry("f", feat(2, appendField(nil, 1, []byte{0, 0, 128, 63, 0, 0, 192, 127})))),
		"empty list":       features(wireEntry("e", feat(1, nil))),
		"many features":    manyFeatures(40),
		"many, name again": append(manyFeatures(40), manyFeatures(3)...),
		// Past the names a Scanner keeps across records, each name once
		// and each twice (audit 62's map of names aliasing the record).
		"past the names kept":        manyFeatures(maxScannerNames + 50),
		"past the names kept, again": append(manyFeatures(maxScannerNames+50), manyFeatures(maxScannerNames+50)...),
		"value split mid-field":      features(appendField(appendField(appendField(nil, 1, []byte("i")), 2, []byte{0x31}), 2, []byte("000000000000"))),
		"value in two parts":         features(appendField(appendField(appendField(nil, 1, []byte("i")), 2, feat(3, int64List)), 2, feat(2, floatList))),
		"entry without all":          features(appendField(nil, 1, []byte("k"))),
	}
}

func example1() []byte {
	return New().Int64("label", 7, -1, math.MaxInt64).Float("x", 0.5, float32(math.NaN())).
		Bytes("name", []byte("ann"), []byte{0xff, 0}).Strings("empty").Marshal()
}

func manyFeatures(n int) []byte {
	b := New()
	for i := range n {
		b.Int64(fmt.Sprint("f", i), int64(i))
	}
	return b.Marshal()
}

func TestScanner(t *testing.T) {
	var s Scanner // one Scanner for every case: nothing carries over
	for name, rec := range scannerCases() {
		t.Run(name, func(t *testing.T) { checkScanner(t, &s, rec) })
	}
	for name, want := range map[string]bool{"kinds": false, "unknown top": true, "unknown in entry": false, "unknown feature": true, "unknown in list": true, "sequence example": true} {
		if err := s.Scan(scannerCases()[name]); err != nil {
			t.Fatal(err)
		}
		if s.Unknown() != want {
			t.Errorf("%s: Unknown() = %v, want %v", name, s.Unknown(), want)
		}
	}
	// A record whose buffer the caller reuses after Scan: the next
	// record's names are its own, though they alias the same bytes.
	buf := append([]byte(nil), scannerCases()["past the names kept"]...)
	checkScanner(t, &s, buf)
	copy(buf, manyFeatures(maxScannerNames+50)) // the same length, other bytes below
	for i := range buf {
		if buf[i] == 'f' {
			buf[i] = 'g'
		}
	}
	checkScanner(t, &s, buf)
	if err := s.Scan(scannerCases()["truncated"]); err == nil || !strings.Contains(err.Error(), "Can't parse serialized Example: length past the end of the message at byte 0") {
		t.Errorf("truncated: %v", err)
	}
}

// FuzzScanner holds a Scanner to proto.Unmarshal on any bytes.
func FuzzScanner(f *testing.F) {
	for _, rec := range scannerCases() {
		f.Add(rec)
	}
	addRefSeeds(f, false)
	var s Scanner
	f.Fuzz(func(t *testing.T, rec []byte) { checkScanner(t, &s, rec) })
}

// Scanning an MNIST-like Example and reading its values, against
// proto.Unmarshal.
func BenchmarkScanner(b *testing.B) {
	pix := make([]float32, 784)
	for i := range pix {
		pix[i] = float32(i) / 784
	}
	for _, c := range []struct {
		name string
		rec  []byte
	}{
		{"mnist", New().Floats("image", pix).Int64("label", 3).Marshal()},
		{"small10", manyFeatures(10)},
	} {
		b.Run(c.name+"/Scanner", func(b *testing.B) {
			var s Scanner
			var f []float32
			var n []int64
			b.SetBytes(int64(len(c.rec)))
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Scan(c.rec); err != nil {
					b.Fatal(err)
				}
				for i := range s.Len() {
					f = s.AppendFloats(f[:0], i)
					n = s.AppendInt64s(n[:0], i)
				}
			}
		})
		b.Run(c.name+"/proto.Unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(c.rec)))
			b.ReportAllocs()
			for b.Loop() {
				var ex pb.Example
				if err := proto.Unmarshal(c.rec, &ex); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
