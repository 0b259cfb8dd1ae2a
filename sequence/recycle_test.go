package sequence

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// TestKeptBatchesUnchanged: batches kept (Next) keep their values while
// later examples reuse the memory of finished ones (of other segment
// counts) and the barrier reuses the memory of taken states, strings
// included; every segment sees the state its predecessor saved, even
// when the value saved was changed afterwards.
func TestKeptBatchesUnchanged(t *testing.T) {
	const examples, u = 60, 2
	states := map[string]tensor.Tensor{"h": tensor.Zeros(tensor.Float32, tensor.Shape{3}), "tag": tensor.StringScalar("start")}
	s := newSaver(t, 3, u, states, Capacity(4), AllowSmallerFinalBatch())
	done := make(chan error, 1)
	go func() {
		defer close(done)
		for i := range examples {
			if err := s.Prefetch(context.Background(), simpleInput(fmt.Sprint("ex", i), u*(1+i%4)-i%2, u*(1+i%4))); err != nil {
				done <- err
				return
			}
		}
		done <- s.Close(context.Background())
	}()
	var kept []*Batch
	var dumps []string
	segments := 0
	for {
		b, err := s.Next(t.Context())
		if isEOF(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		h, tag := b.State("h").Float32s(), b.State("tag").Strings()
		for i, k := range b.Key() {
			want := "start"
			if b.Sequence()[i] > 0 {
				want = k
			}
			if string(tag[i]) != want || h[3*i] != float32(b.Sequence()[i]) {
				t.Fatalf("segment %s: state %v %q, want %d %q", k, h[3*i:3*i+3], tag[i], b.Sequence()[i], want)
			}
		}
		segments += b.BatchSize()
		dumps, kept = append(dumps, dumpBatch(b)), append(kept, b)
		next := b.State("h").Clone()
		for i := range next.Float32s() {
			next.Float32s()[i]++
		}
		tags := tensor.Zeros(tensor.String, tensor.Shape{b.BatchSize()})
		for i, k := range b.NextKey() {
			tags.Strings()[i] = []byte(k)
		}
		for _, v := range []struct {
			name  string
			value tensor.Tensor
		}{{"h", next}, {"tag", tags}} {
			if err := b.SaveState(t.Context(), v.name, v.value); err != nil {
				t.Fatal(err)
			}
		}
		// SaveState copied the values.
		for i := range next.Float32s() {
			next.Float32s()[i] = -1
		}
		for _, tg := range tags.Strings() {
			copy(tg, bytes.Repeat([]byte("X"), len(tg)))
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := examples / 4 * (1 + 2 + 3 + 4); segments != want {
		t.Fatalf("%d segments, want %d", segments, want)
	}
	for i, b := range kept {
		if got := dumpBatch(b); got != dumps[i] {
			t.Fatalf("batch %d changed:\n%s\nwas\n%s", i, got, dumps[i])
		}
	}
}
