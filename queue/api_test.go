package queue_test

import (
	"testing"

	"github.com/sluiceml/sluice/internal/apicheck"
)

// Closing reads at the call site, with no flag; a Queue promises only what
// every queue can answer honestly (sizes are Sizer's, the closed flag is
// the in-memory queues'); the plumbing of the module's stages is not part
// of the API (internal/stagequeue).
func TestAPI(t *testing.T) {
	apicheck.Run(t, []string{"context", "github.com/sluiceml/sluice/queue"},
		"ctx context.Context, q queue.Queue, f *queue.FIFO, b *queue.Barrier", []struct{ Code, Want string }{
			{`_ = q.Close(ctx); _ = q.CloseNow(ctx); _ = b.Close(); _ = b.CloseNow()`, ""},
			{`_, _ = b.TakeMany(ctx, 2); _, _ = b.TakeUpTo(ctx, 2)`, ""},
			{`var s queue.Sizer = f; _ = s.Size() + s.Capacity(); _ = f.IsClosed()`, ""},
			{`_ = q.Close(ctx, true)`, "too many arguments in call to q.Close"},
			{`_ = b.Close(true)`, "too many arguments in call to b.Close"},
			{`_, _ = b.TakeMany(ctx, 2, true)`, "too many arguments in call to b.TakeMany"},
			{`_ = q.Size()`, "q.Size undefined"},
			{`_ = q.IsClosed()`, "q.IsClosed undefined"},
			{`_ = queue.NewDeferred`, "undefined: queue.NewDeferred"},
			{`_ = queue.NewGroup`, "undefined: queue.NewGroup"},
			{`_ = queue.NewContainer`, "undefined: queue.NewContainer"},
		})
}
