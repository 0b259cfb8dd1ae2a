package sequence

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// ramp returns a float64 tensor of the given shape holding start,
// start+1, ...
func ramp(start float64, dims ...int) tensor.Tensor {
	n := 1
	for _, d := range dims {
		n *= d
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = start + float64(i)
	}
	return tensor.New(v, dims...)
}

func newSaver(t testing.TB, batch, u int, states map[string]tensor.Tensor, opts ...StateSaverOption) *StateSaver {
	t.Helper()
	s, err := NewStateSaver(batch, u, states, opts...)
	if err != nil {
		t.Fatalf("NewStateSaver: %v", err)
	}
	return s
}

func scalarState() map[string]tensor.Tensor {
	return map[string]tensor.Tensor{"state1": tensor.Scalar[float32](0)}
}

// simpleInput is an example with one float32 sequence [padded,5] and a
// string context [3,4].
func simpleInput(key string, length, padded int) Input {
	v := make([]float32, padded*5)
	for i := range v {
		v[i] = float32(i)
	}
	ctx := make([]string, 12)
	for i := range ctx {
		ctx[i] = key
	}
	return Input{
		Key:       key,
		Length:    length,
		Sequences: map[string]tensor.Tensor{"seq1": tensor.New(v, padded, 5)},
		Context:   map[string]tensor.Tensor{"context1": tensor.New(stringsData(ctx), 3, 4)},
	}
}

func stringsData(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func mustPrefetch(t testing.TB, s *StateSaver, in Input) {
	t.Helper()
	if err := s.Prefetch(context.Background(), in); err != nil {
		t.Fatalf("Prefetch(%s): %v", in.Key, err)
	}
}

func mustNext(t testing.TB, s *StateSaver) *Batch {
	t.Helper()
	b, err := s.Next(context.Background())
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return b
}

// addToStates saves every float state of b plus delta.
func saveAll(t testing.TB, b *Batch, delta float64) {
	t.Helper()
	for _, name := range b.s.stateNames {
		st := b.State(name)
		next := st.Clone()
		switch st.DType() {
		case tensor.Float32:
			for i, x := range next.Float32s() {
				next.Float32s()[i] = x + float32(delta)
			}
		case tensor.Float64:
			for i, x := range next.Float64s() {
				next.Float64s()[i] = x + delta
			}
		case tensor.Int32:
			for i, x := range next.Int32s() {
				next.Int32s()[i] = x + int32(delta)
			}
		}
		if err := b.SaveState(context.Background(), name, next); err != nil {
			t.Fatalf("SaveState(%s): %v", name, err)
		}
	}
}

func wantErr(t testing.TB, err error, target error, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %q", substr)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %q does not match %v", err, target)
	}
	if !strings.Contains(err.Error(), substr) {
		t.Errorf("error %q does not contain %q", err, substr)
	}
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

func prefix(keys []string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[strings.SplitN(k, ":", 2)[0]] = true
	}
	return m
}
