package sequence

import (
	"context"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// SQ-07: keys are "%05d_of_%05d:%s", and %05d takes more digits past
// 99999, as TensorFlow's as_string(width=5) does: a sequence of more
// segments is valid, its keys one by one what segmentKey makes.
func TestSegmentKeysPastFiveDigits(t *testing.T) {
	for _, count := range []int{1, 3, 99999, 100000, 123457} {
		for _, arena := range []*keyArena{nil, new(keyArena)} {
			keys, stop := arena.segmentKeys(count, "k", nil)
			if len(keys) != count || stop != "STOP:k" {
				t.Fatalf("count %d: %d keys, stop %q", count, len(keys), stop)
			}
			for s, k := range keys {
				if want := segmentKey(s, count, "k"); k != want {
					t.Fatalf("count %d: key %d is %q, want %q", count, s, k, want)
				}
			}
		}
	}
	for _, tc := range []struct {
		s, count int
		want     string
	}{
		{7, 12, "00007_of_00012:k"},
		{99999, 100000, "99999_of_100000:k"},
		{100000, 100001, "100000_of_100001:k"},
	} {
		if got := segmentKey(tc.s, tc.count, "k"); got != tc.want {
			t.Errorf("segmentKey(%d, %d) = %q, want %q", tc.s, tc.count, got, tc.want)
		}
	}
}

// A sequence of 100000 segments goes through a state saver.
func TestStateSaverManySegments(t *testing.T) {
	s, err := NewStateSaver(1, 1, map[string]tensor.Tensor{"h": tensor.Scalar[float32](0)})
	if err != nil {
		t.Fatal(err)
	}
	const steps = 100000
	in := Input{Key: "k", Length: steps, Sequences: map[string]tensor.Tensor{"x": tensor.Zeros(tensor.Float32, tensor.Shape{steps})}}
	if err := s.Prefetch(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	b, err := s.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.Key()[0], "00000_of_100000:k"; got != want {
		t.Fatalf("key %q, want %q", got, want)
	}
	s.CloseNow(context.Background())
}
