package bucket

import (
	"context"
	"errors"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// bucketSet presents a stage's bucket queues as the one queue of the input
// runner, which needs only its name and Close: the runner's goroutines
// enqueue into any bucket, so the end of their input must close them all.
// (TensorFlow's input runner closes the top queue instead, which loses
// what the buckets still hold; see the package documentation.) Elements
// cannot be moved through it.
type bucketSet struct{ s *stage }

var _ queue.Queue = bucketSet{}

func (b bucketSet) Name() string           { return b.s.name + "/bucket_queues" }
func (b bucketSet) DTypes() []tensor.DType { return b.s.buckets[0].DTypes() }
func (b bucketSet) Shapes() []tensor.Shape { return b.s.buckets[0].Shapes() }
func (b bucketSet) Names() []string        { return nil }

// Close closes every bucket queue; errors from the closes are joined.
func (b bucketSet) Close(ctx context.Context, cancel bool) error {
	var errs []error
	for _, q := range b.s.buckets {
		errs = append(errs, q.Close(ctx, cancel))
	}
	return errors.Join(errs...)
}

func (b bucketSet) IsClosed() bool {
	for _, q := range b.s.buckets {
		if !q.IsClosed() {
			return false
		}
	}
	return true
}

func (b bucketSet) Size() int {
	n := 0
	for _, q := range b.s.buckets {
		n += q.Size()
	}
	return n
}

func (b bucketSet) Capacity() int {
	n := 0
	for _, q := range b.s.buckets {
		n += q.Capacity()
	}
	return n
}

func (b bucketSet) Enqueue(context.Context, queue.Element) error     { return b.unsupported() }
func (b bucketSet) EnqueueMany(context.Context, queue.Element) error { return b.unsupported() }
func (b bucketSet) Dequeue(context.Context) (queue.Element, error)   { return nil, b.unsupported() }
func (b bucketSet) DequeueMany(context.Context, int) (queue.Element, error) {
	return nil, b.unsupported()
}
func (b bucketSet) DequeueUpTo(context.Context, int) (queue.Element, error) {
	return nil, b.unsupported()
}

func (b bucketSet) unsupported() error {
	return invalidf("bucket: %s stands for the bucket queues and moves no elements", b.Name())
}
