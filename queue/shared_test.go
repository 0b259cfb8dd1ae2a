package queue

import (
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// RSQ-13
func TestSharedQueues(t *testing.T) {
	c := newContainer()
	q1, _ := c.share("q", mustFIFO(t, 10))
	q2, err := c.share("q", mustFIFO(t, 10))
	if err != nil || q1 != q2 {
		t.Fatalf("Q-49: %v", err)
	}
	q1.Enqueue(bg, sc(7))
	if q2.(Sizer).Size() != 1 || val(q2.Dequeue(bg)) != 7 {
		t.Fatal("Q-49: not the same queue")
	}
	mismatches := []struct {
		q    Queue
		want string
	}{
		{mustFIFO(t, 11), "capacity"},
		{func() Queue { q, _ := NewFIFO(10, f32, flat); return q }(), "component types"},
		{func() Queue { q, _ := NewFIFO(10, i32, Shapes(tensor.Shape{2})); return q }(), "component shapes"},
		{func() Queue { q, _ := NewFIFO(10, i32); return q }(), "component shapes"},
	}
	for _, m := range mismatches {
		if _, err := c.share("q", m.q); err == nil || !strings.Contains(err.Error(), m.want) {
			t.Errorf("Q-50 %s: %v", m.want, err)
		}
	}
	c.share("r", mustShuffle(t, 10, 2, Seed(12)))
	if _, err := c.share("r", mustShuffle(t, 10, 3, Seed(12))); err == nil || !strings.Contains(err.Error(), "min_after_dequeue") {
		t.Errorf("RSQ mad: %v", err)
	}
	if _, err := c.share("r", mustShuffle(t, 10, 2, Seed(21))); err == nil || !strings.Contains(err.Error(), "random seeds") {
		t.Errorf("RSQ-13: %v", err)
	}
	if _, err := c.share("r", mustShuffle(t, 10, 2)); err != nil {
		t.Errorf("RSQ-13 unseeded: %v", err)
	}
	a, b := mustFIFO(t, 10), mustFIFO(t, 10)
	a.Enqueue(bg, sc(1))
	b.Enqueue(bg, sc(2))
	if val(b.Dequeue(bg)) != 2 || val(a.Dequeue(bg)) != 1 {
		t.Fatal("Q-51: unshared queues share state")
	}
}

//
func TestFromList(t *testing.T) {
	a, b := mustFIFO(t, 1), mustFIFO(t, 1)
	q, err := FromList(1, []Queue{a, b})
	if err != nil || q != Queue(b) {
		t.Fatal(err)
	}
	if _, err := FromList(3, []Queue{a, b}); err == nil || !strings.Contains(err.Error(), "is not in") {
		t.Fatalf("Q-52: %v", err)
	}
	f, _ := NewFIFO(1, f32, flat)
	if _, err := FromList(0, []Queue{a, f}); err == nil || !strings.Contains(err.Error(), "Queues do not have matching component dtypes.") {
		t.Fatalf("dtypes: %v", err)
	}
	if _, err := FromList(0, nil); err == nil || !strings.Contains(err.Error(), "A list of queues expected") {
		t.Fatalf("empty: %v", err)
	}
	pad := func(s ...tensor.Shape) Queue {
		dt := make([]tensor.DType, len(s))
		for i := range dt {
			dt[i] = tensor.Float32
		}
		q, err := NewPaddingFIFO(1, dt, s)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	U := tensor.Unknown
	cases := []struct {
		shapes []tensor.Shape
		want   tensor.Shape
	}{
		{[]tensor.Shape{{1, U}, {U}}, nil},
		{[]tensor.Shape{{1}, {2}}, tensor.Shape{U}},
		{[]tensor.Shape{{1, 1}, {1, 2}}, tensor.Shape{1, U}},
		{[]tensor.Shape{{1, 1}, {1, U}}, tensor.Shape{1, U}},
		{[]tensor.Shape{{U, 1}, {1, U}}, tensor.Shape{U, U}},
		{[]tensor.Shape{{1}, {1}, {1}}, tensor.Shape{1}},
		{[]tensor.Shape{{1}, {U}, {1}}, tensor.Shape{U}},
		{[]tensor.Shape{{1, U}, {1}, {1}}, nil},
	}
	for _, c := range cases {
		var qs []Queue
		for _, s := range c.shapes {
			qs = append(qs, pad(s))
		}
		got := CommonShapes(qs)[0]
		if (got == nil) != (c.want == nil) || !got.Equal(c.want) {
			t.Errorf("Q-53 %v: got %v, want %v", c.shapes, got, c.want)
		}
	}
}
