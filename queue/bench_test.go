package queue

import (
	"sync"
	"testing"

	"github.com/sluiceml/sluice/tensor"
)

// Uncontended Enqueue+Dequeue of a pre-built one-tensor element.
func BenchmarkFIFOEnqueueDequeue(b *testing.B) {
	q, _ := NewFIFO(100, []tensor.DType{tensor.Float32}, Shapes(tensor.Shape{784}))
	e := Element{tensor.Zeros(tensor.Float32, tensor.Shape{784})}
	b.ReportAllocs()
	for b.Loop() {
		q.Enqueue(bg, e)
		q.Dequeue(bg)
	}
}

// The same through a Go buffered channel, for comparison.
func BenchmarkChannelSendReceive(b *testing.B) {
	ch := make(chan Element, 100)
	e := Element{tensor.Zeros(tensor.Float32, tensor.Shape{784})}
	b.ReportAllocs()
	for b.Loop() {
		ch <- e
		<-ch
	}
}

func benchProducersConsumers(b *testing.B, send func(Element), recv func()) {
	e := Element{tensor.Scalar(int32(1))}
	per := b.N/4 + 1
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for range 4 {
		wg.Go(func() {
			for range per {
				send(e)
			}
		})
		wg.Go(func() {
			for range per {
				recv()
			}
		})
	}
	wg.Wait()
}

// 4 producers × 4 consumers.
func BenchmarkFIFO4x4(b *testing.B) {
	q, _ := NewFIFO(1000, i32, flat)
	benchProducersConsumers(b, func(e Element) { q.Enqueue(bg, e) }, func() { q.Dequeue(bg) })
}

func BenchmarkChannel4x4(b *testing.B) {
	ch := make(chan Element, 1000)
	benchProducersConsumers(b, func(e Element) { ch <- e }, func() { <-ch })
}

// DequeueMany(128) of float32[784] elements: batch assembly.
func BenchmarkFIFODequeueMany128x784(b *testing.B) {
	q, _ := NewFIFO(256, []tensor.DType{tensor.Float32}, Shapes(tensor.Shape{784}))
	e := Element{tensor.Zeros(tensor.Float32, tensor.Shape{784})}
	b.SetBytes(128 * 784 * 4)
	b.ReportAllocs()
	for b.Loop() {
		for range 128 {
			q.Enqueue(bg, e)
		}
		if _, err := q.DequeueMany(bg, 128); err != nil {
			b.Fatal(err)
		}
	}
}

// RandomShuffle holding min_after_dequeue 10 000 elements.
func BenchmarkRandomShuffleMAD10000(b *testing.B) {
	q, _ := NewRandomShuffle(10100, 10000, i32, flat, Seed(1))
	for i := range 10000 {
		q.Enqueue(bg, sc(int32(i)))
	}
	e := sc(1)
	b.ReportAllocs()
	for b.Loop() {
		q.Enqueue(bg, e)
		q.Dequeue(bg)
	}
}

// The same batch through a channel: 128 receives, then tensor.Stack.
func BenchmarkChannelReceive128x784Stack(b *testing.B) {
	ch := make(chan Element, 256)
	e := Element{tensor.Zeros(tensor.Float32, tensor.Shape{784})}
	rows := make([]tensor.Tensor, 128)
	b.SetBytes(128 * 784 * 4)
	b.ReportAllocs()
	for b.Loop() {
		for range 128 {
			ch <- e
		}
		for i := range rows {
			rows[i] = (<-ch)[0]
		}
		if _, err := tensor.Stack(rows); err != nil {
			b.Fatal(err)
		}
	}
}

// PaddingFIFO batches of variable-length int64 sequences.
func BenchmarkPaddingFIFODequeueMany32(b *testing.B) {
	q, _ := NewPaddingFIFO(64, []tensor.DType{tensor.Int64}, []tensor.Shape{{tensor.Unknown}})
	elems := make([]Element, 32)
	for i := range elems {
		elems[i] = Element{tensor.Zeros(tensor.Int64, tensor.Shape{10 + 7*i%50})}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range elems {
			q.Enqueue(bg, e)
		}
		if _, err := q.DequeueMany(bg, 32); err != nil {
			b.Fatal(err)
		}
	}
}

// The same into the last batch, as a consumer that hands back its batch
// dequeues: the batch's memory is reused whatever its shape.
func BenchmarkPaddingFIFODequeueManyInto32(b *testing.B) {
	q, _ := NewPaddingFIFO(64, []tensor.DType{tensor.Int64}, []tensor.Shape{{tensor.Unknown}})
	elems := make([]Element, 64)
	for i := range elems {
		elems[i] = Element{tensor.Zeros(tensor.Int64, tensor.Shape{10 + 7*i%(50-i/32*10)})}
	}
	var dst Element
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// Batches padded to 59 and 49 in turn.
		for _, e := range elems[i%2*32 : i%2*32+32] {
			q.Enqueue(bg, e)
		}
		i++
		var err error
		if dst, err = q.DequeueManyInto(bg, 32, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// EnqueueMany of a padded [32,59] batch, then DequeueManyInto.
func BenchmarkPaddingFIFOEnqueueMany32(b *testing.B) {
	q, _ := NewPaddingFIFO(64, []tensor.DType{tensor.Int64}, []tensor.Shape{{tensor.Unknown}})
	batch := Element{tensor.Zeros(tensor.Int64, tensor.Shape{32, 59})}
	var dst Element
	b.ReportAllocs()
	for b.Loop() {
		if err := q.EnqueueMany(bg, batch); err != nil {
			b.Fatal(err)
		}
		var err error
		if dst, err = q.DequeueManyInto(bg, 32, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// Priority queue holding 1000 elements: one Enqueue and one Dequeue.
func BenchmarkPriority1000(b *testing.B) {
	q, _ := NewPriority(2000, i32, flat)
	for i := range 1000 {
		q.Enqueue(bg, Element{tensor.Scalar(int64(i * 7919 % 1000)), tensor.Scalar(int32(i))})
	}
	elems := make([]Element, 1000)
	for i := range elems {
		elems[i] = Element{tensor.Scalar(int64(i * 31 % 1000)), tensor.Scalar(int32(i))}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.Enqueue(bg, elems[i%len(elems)])
		q.Dequeue(bg)
		i++
	}
}

// DequeueManyInto(128) reusing one batch: no allocation per batch beyond
// the list of taken elements.
func BenchmarkFIFODequeueManyInto128x784(b *testing.B) {
	q, _ := NewFIFO(256, []tensor.DType{tensor.Float32}, Shapes(tensor.Shape{784}))
	e := Element{tensor.Zeros(tensor.Float32, tensor.Shape{784})}
	dst := Element{tensor.Zeros(tensor.Float32, tensor.Shape{128, 784})}
	b.SetBytes(128 * 784 * 4)
	b.ReportAllocs()
	for b.Loop() {
		for range 128 {
			q.Enqueue(bg, e)
		}
		if _, err := q.DequeueManyInto(bg, 128, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// EnqueueMany of a [128,784] batch split into rows, then DequeueManyInto.
func BenchmarkFIFOEnqueueMany128x784(b *testing.B) {
	q, _ := NewFIFO(256, []tensor.DType{tensor.Float32}, Shapes(tensor.Shape{784}))
	batch := Element{tensor.Zeros(tensor.Float32, tensor.Shape{128, 784})}
	dst := Element{tensor.Zeros(tensor.Float32, tensor.Shape{128, 784})}
	b.SetBytes(128 * 784 * 4)
	b.ReportAllocs()
	for b.Loop() {
		if err := q.EnqueueMany(bg, batch); err != nil {
			b.Fatal(err)
		}
		if _, err := q.DequeueManyInto(bg, 128, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// 4 producers × 4 consumers through a capacity-8 queue, where calls block
// often and are served through the attempt lists.
func BenchmarkFIFO4x4Cap8(b *testing.B) {
	q, _ := NewFIFO(8, i32, flat)
	benchProducersConsumers(b, func(e Element) { q.Enqueue(bg, e) }, func() { q.Dequeue(bg) })
}

func BenchmarkChannel4x4Cap8(b *testing.B) {
	ch := make(chan Element, 8)
	benchProducersConsumers(b, func(e Element) { ch <- e }, func() { <-ch })
}

// The seed pipeline's shuffle queue in its steady state: 10 000 elements
// of float32[784] held back, 128 enqueued and a batch of 128 drawn into
// the same batch per op, so that the rows copied are cold in the cache,
// as a shuffle buffer's are.
func BenchmarkRandomShuffleDequeueManyInto128x784(b *testing.B) {
	const mad = 10000
	q, _ := NewRandomShuffle(mad+3*128, mad, []tensor.DType{tensor.Float32}, Shapes(tensor.Shape{784}), Seed(1))
	var free []Element
	q.core.free = func(elems []Element) { free = append(free, elems...) }
	for range mad + 128 {
		q.Enqueue(bg, Element{tensor.Zeros(tensor.Float32, tensor.Shape{784})})
	}
	var dst Element
	b.SetBytes(128 * 784 * 4)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = q.DequeueManyInto(bg, 128, dst); err != nil {
			b.Fatal(err)
		}
		for _, e := range free {
			q.Enqueue(bg, e)
		}
		free = free[:0]
	}
}
