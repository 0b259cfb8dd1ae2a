package example

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/sluiceml/sluice/example/pb"
)

func TestBuilderMatchesProtoMarshal(t *testing.T) {
	pix := []float32{0, 0.5, -1.25, 3e38}
	b := New().Int64("label", 7, -1, 1<<40).Floats("image", pix).Bytes("raw", []byte("a"), nil).
		Strings("s", "x", "yz").Float("empty").Set("nokind", Feature{})
	got := b.Marshal()
	var m pb.Example
	if err := proto.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&m, b.Proto()) {
		t.Fatalf("round trip:\n got %v\nwant %v", &m, b.Proto())
	}
	// The same bytes as protobuf's own deterministic encoding of the same
	// message when the entries are in sorted order.
	fs := Features{"a": Int64List(1, 300), "b": FloatList(1.5), "c": StringList("q")}
	want, err := proto.MarshalOptions{Deterministic: true}.Marshal(fs.Proto())
	if err != nil {
		t.Fatal(err)
	}
	if got := fs.Marshal(); string(got) != string(want) {
		t.Fatalf("Features.Marshal = %x, proto = %x", got, want)
	}
}

func TestBuilderSetReplacesAndReset(t *testing.T) {
	b := New().Int64("a", 1).Int64("a", 2)
	var m pb.Example
	if err := proto.Unmarshal(b.Marshal(), &m); err != nil {
		t.Fatal(err)
	}
	if v := m.GetFeatures().GetFeature()["a"].GetInt64List().GetValue(); len(v) != 1 || v[0] != 2 {
		t.Fatalf("a = %v, want [2]", v)
	}
	if got := b.Reset().Marshal(); len(got) != 0 {
		t.Fatalf("empty Example marshals to %x, want no bytes", got)
	}
}

// An Example of many features (indexed by name past builderScanMax)
// replaces a name set again, keeps the order names were first set in,
// and starts over at Reset, however many times it is reused.
func TestBuilderManyFeatures(t *testing.T) {
	b := New()
	for _, n := range []int{builderScanMax, builderScanMax + 1, 200, 3} {
		b.Reset()
		for i := range n {
			b.Int64(fmt.Sprintf("f%03d", i), int64(i))
		}
		for i := 0; i < n; i += 7 {
			b.Int64(fmt.Sprintf("f%03d", i), -int64(i)) // replaced, not added
		}
		if len(b.entries) != n {
			t.Fatalf("%d features set, %d entries", n, len(b.entries))
		}
		for i, e := range b.entries {
			want := int64(i)
			if i%7 == 0 {
				want = -want
			}
			if e.name != fmt.Sprintf("f%03d", i) || e.f.i64[0] != want {
				t.Fatalf("n=%d: entry %d is %s=%v, want f%03d=%d", n, i, e.name, e.f.i64, i, want)
			}
		}
	}
	allocs := testing.AllocsPerRun(20, func() {
		b.Reset()
		for i := range 100 {
			b.Set(names100[i], Feature{})
		}
	})
	if allocs != 0 {
		t.Errorf("a reused Builder of 100 features: %v allocs, want 0", allocs)
	}
}

var names100 = func() []string {
	s := make([]string, 100)
	for i := range s {
		s[i] = fmt.Sprintf("n%d", i)
	}
	return s
}()

func TestBuilderAppendMarshalAllocs(t *testing.T) {
	pix := make([]float32, 784)
	label := []int64{3}
	b := New()
	buf := make([]byte, 0, 8192)
	allocs := testing.AllocsPerRun(100, func() {
		buf = b.Reset().Int64s("label", label).Floats("image", pix).AppendMarshal(buf[:0])
	})
	if allocs != 0 {
		t.Fatalf("AppendMarshal steady state: %v allocs, want 0", allocs)
	}
}

func TestSequenceBuilderMatchesProto(t *testing.T) {
	s := NewSequence().Context("len", Int64List(2)).Context("id", StringList("x")).
		List("tok", Int64List(1, 2), Int64List(), Feature{}).List("emb", FloatList(0.5)).List("empty")
	var m pb.SequenceExample
	if err := proto.Unmarshal(s.Marshal(), &m); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&m, s.Proto()) {
		t.Fatalf("round trip:\n got %v\nwant %v", &m, s.Proto())
	}
	if got := s.Reset().Marshal(); len(got) != 0 {
		t.Fatalf("empty SequenceExample marshals to %x", got)
	}
}
