package stagequeue

import (
	"context"
	"errors"
	"testing"

	"github.com/sluiceml/sluice/queue"
)

// A Group closes all its queues, as one runner's queue, and joins their
// errors.
func TestGroup(t *testing.T) {
	a, b := int64FIFO(t), int64FIFO(t)
	g := NewGroup("s/bucket_queues", a, b)
	if g.Name() != "s/bucket_queues" {
		t.Errorf("name %q", g.Name())
	}
	if err := g.Close(context.Background()); err != nil || !a.IsClosed() || !b.IsClosed() {
		t.Errorf("Close: %v, closed %v %v", err, a.IsClosed(), b.IsClosed())
	}
	if err := g.Close(context.Background()); !errors.Is(err, queue.ErrClosed) {
		t.Errorf("second Close: %v, want queue.ErrClosed", err)
	}
	if err := g.CloseNow(context.Background()); err != nil {
		t.Errorf("CloseNow after Close: %v", err)
	}
}
