package bucket

import (
	"errors"
	"testing"

	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

func newFIFO(t *testing.T) queue.Queue {
	t.Helper()
	q, err := queue.NewFIFO(2, []tensor.DType{tensor.Int64}, queue.WithShapes(tensor.Shape{}))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// The input runner's view of the bucket queues closes them all and moves
// nothing.
func TestBucketSet(t *testing.T) {
	s := &stage{name: "s", buckets: []*queue.Deferred{queue.NewDeferred("FIFOQueue", "a", 2, nil, nil), queue.NewDeferred("FIFOQueue", "b", 3, nil, nil)}}
	s.buckets[0].Set(newFIFO(t))
	set := bucketSet{s}
	if set.Name() != "s/bucket_queues" || set.Capacity() != 5 || set.Size() != 0 || set.IsClosed() {
		t.Errorf("name %q capacity %d size %d closed %v", set.Name(), set.Capacity(), set.Size(), set.IsClosed())
	}
	if set.DTypes()[0] != tensor.Int64 || set.Shapes() == nil || set.Names() != nil {
		t.Errorf("dtypes %v shapes %v names %v", set.DTypes(), set.Shapes(), set.Names())
	}
	ctx := t.Context()
	for _, err := range []error{
		set.Enqueue(ctx, nil),
		set.EnqueueMany(ctx, nil),
		func() error { _, err := set.Dequeue(ctx); return err }(),
		func() error { _, err := set.DequeueMany(ctx, 1); return err }(),
		func() error { _, err := set.DequeueUpTo(ctx, 1); return err }(),
	} {
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("moving elements through the set: %v, want ErrInvalidArgument", err)
		}
	}
	if err := set.Close(ctx, false); err != nil || !set.IsClosed() {
		t.Errorf("Close: %v, closed %v", err, set.IsClosed())
	}
	if err := set.Close(ctx, false); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("second Close: %v, want queue.ErrClosed", err)
	}
}
