package input

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// EP-01..03
func TestLimitEpochs(t *testing.T) {
	x := tensor.Scalar(int32(7))
	step, err := LimitEpochs(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		e, err := step(t.Context())
		if err != nil || !tensor.Equal(e[0], x) {
			t.Fatalf("evaluation %d = %v, %v", i, e, err)
		}
	}
	_, err = step(t.Context())
	expectEOF(t, err)
	for _, n := range []int{0, -1} {
		if _, err := LimitEpochs(x, n); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("num_epochs must be > 0 not %d", n)) {
			t.Errorf("LimitEpochs(%d) error = %v", n, err)
		}
	}
}

// SIP-01
func TestStringInputProducerEmpty(t *testing.T) {
	p := NewPipeline()
	p.StringInputProducer(nil)
	if err := p.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "requires a non-null input tensor") {
		t.Fatalf("Start = %v", err)
	}
}

// EP-03 through a producer option.
func TestNumEpochsMustBePositive(t *testing.T) {
	p := NewPipeline()
	p.StringInputProducer([]string{"a"}, NumEpochs(0))
	if err := p.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "num_epochs must be > 0 not 0") {
		t.Fatalf("Start = %v", err)
	}
}

func strs(ts []tensor.Tensor) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t.Strings()[0])
	}
	return out
}

// SIP-03
func TestStringInputProducerEpochsInOrder(t *testing.T) {
	words := []string{"to", "be", "or", "not", "to", "be"}
	p := NewPipeline()
	q := p.StringInputProducer(words, NumEpochs(3), Shuffle(false))
	start(t, p)
	got := strs(dequeueAll(t, q))
	want := slices.Concat(words, words, words)
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// SIP-04: every epoch is a permutation; all orders occur about equally.
func TestStringInputProducerShuffleFrequencies(t *testing.T) {
	p := NewPipeline(Seed(271828))
	q := p.StringInputProducer([]string{"a", "b", "c"}, NumEpochs(600))
	start(t, p)
	got := strs(dequeueAll(t, q))
	if len(got) != 1800 {
		t.Fatalf("got %d names, want 1800", len(got))
	}
	freq := map[string]int{}
	for i := 0; i < len(got); i += 3 {
		epoch := slices.Clone(got[i : i+3])
		key := strings.Join(epoch, "")
		slices.Sort(epoch)
		if strings.Join(epoch, "") != "abc" {
			t.Fatalf("epoch %d = %q is not a permutation", i/3, got[i:i+3])
		}
		freq[key]++
	}
	if len(freq) != 6 {
		t.Fatalf("saw %d orders, want 6: %v", len(freq), freq)
	}
	for k, n := range freq {
		if n <= 60 || n >= 140 {
			t.Errorf("order %s seen %d times, want in (60, 140)", k, n)
		}
	}
}

// SIP-05: without num_epochs the producer cycles for ever.
func TestStringInputProducerCycles(t *testing.T) {
	p := NewPipeline()
	q := p.StringInputProducer([]string{"x", "y", "z"}, Shuffle(false))
	start(t, p)
	var got []string
	for range 7 {
		e, err := q.Dequeue(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(e[0].Strings()[0]))
	}
	if want := []string{"x", "y", "z", "x", "y", "z", "x"}; !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
}

// RIP-01, RIP-02
func TestRangeInputProducer(t *testing.T) {
	p := NewPipeline()
	q := p.RangeInputProducer(5, NumEpochs(3), Shuffle(false))
	start(t, p)
	var got []int32
	for _, v := range dequeueAll(t, q) {
		got = append(got, v.Int32s()[0])
	}
	want := []int32{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v", got)
	}

	p2 := NewPipeline(Seed(314159))
	q2 := p2.RangeInputProducer(2, NumEpochs(200))
	start(t, p2)
	vals := dequeueAll(t, q2)
	if len(vals) != 400 {
		t.Fatalf("got %d values", len(vals))
	}
	ordered := 0
	for i := 0; i < 400; i += 2 {
		a, b := vals[i].Int32s()[0], vals[i+1].Int32s()[0]
		if a+b != 1 || a == b {
			t.Fatalf("epoch %d = %d,%d", i/2, a, b)
		}
		if a == 0 {
			ordered++
		}
	}
	if ordered <= 60 || ordered >= 140 {
		t.Errorf("(0,1) seen %d times of 200, want in (60, 140)", ordered)
	}
}

// SLP-01, SLP-02, SLP-03
func TestSliceInputProducer(t *testing.T) {
	names := tensor.Strings("Alpha", "Beta", "Delta", "Gamma")
	nums := tensor.New([]int32{2, 3, 5, 7})
	p := NewPipeline()
	step := p.SliceInputProducer([]tensor.Tensor{names, nums}, NumEpochs(3), Shuffle(false))
	start(t, p)
	var got []string
	for {
		e, err := step(t.Context())
		if err != nil {
			expectEOF(t, err)
			break
		}
		got = append(got, fmt.Sprintf("%s%d", e[0].Strings()[0], e[1].Int32s()[0]))
	}
	one := []string{"Alpha2", "Beta3", "Delta5", "Gamma7"}
	if want := slices.Concat(one, one, one); !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}

	p2 := NewPipeline(Seed(161803))
	step2 := p2.SliceInputProducer([]tensor.Tensor{names, nums}, NumEpochs(1200))
	start(t, p2)
	freq := map[string]int{}
	for epoch := range 1200 {
		var order []string
		for range 4 {
			e, err := step2(t.Context())
			if err != nil {
				t.Fatalf("epoch %d: %v", epoch, err)
			}
			order = append(order, fmt.Sprintf("%c%d", e[0].Strings()[0][0], e[1].Int32s()[0]))
		}
		key := strings.Join(order, ",")
		slices.Sort(order)
		if strings.Join(order, ",") != "A2,B3,D5,G7" {
			t.Fatalf("epoch %d = %s: pairs split or epochs mixed", epoch, key)
		}
		freq[key]++
	}
	if len(freq) != 24 {
		t.Fatalf("saw %d orders, want 24", len(freq))
	}
	for k, n := range freq {
		if n <= 30 || n >= 70 {
			t.Errorf("order %s seen %d times, want in (30, 70)", k, n)
		}
	}

	p3 := NewPipeline()
	p3.SliceInputProducer(nil)
	if err := p3.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "Expected at least one tensor in slice_input_producer()") {
		t.Fatalf("Start = %v", err)
	}
}

// IP-04, IP-01
func TestInputProducerRows(t *testing.T) {
	x := tensor.New([]int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 3, 4)
	p := NewPipeline()
	q := p.InputProducer(x, NumEpochs(2), Shuffle(false), ElementShape(tensor.Shape{4}))
	start(t, p)
	batch, err := q.DequeueMany(t.Context(), 6)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := tensor.Concat([]tensor.Tensor{x, x})
	if !tensor.Equal(batch[0], want) {
		t.Fatalf("got %v", batch[0])
	}
	_, err = q.Dequeue(t.Context())
	expectEOF(t, err)

	p2 := NewPipeline()
	p2.InputProducer(x, ElementShape(tensor.Shape{3}))
	if err := p2.Start(t.Context()); err == nil {
		t.Fatal("mismatched element shape accepted")
	}
}

// MFO-01
func TestMatchFilenamesOnce(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"match_filenames.2", "match_filenames.0", "match_filenames.1", "other"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	all, err := MatchFilenamesOnce(ctx, filepath.Join(dir, "*"))
	if err != nil || len(all) != 4 {
		t.Fatalf("* = %v, %v", all, err)
	}
	three, err := MatchFilenamesOnce(ctx, filepath.Join(dir, "match_filenames.?"))
	want := []string{filepath.Join(dir, "match_filenames.0"), filepath.Join(dir, "match_filenames.1"), filepath.Join(dir, "match_filenames.2")}
	if err != nil || !slices.Equal(three, want) {
		t.Fatalf("? = %v, %v", three, err)
	}
	one, err := MatchFilenamesOnce(ctx, filepath.Join(dir, "other"))
	if err != nil || len(one) != 1 {
		t.Fatalf("exact = %v, %v", one, err)
	}
}
