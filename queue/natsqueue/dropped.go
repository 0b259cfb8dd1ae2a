package natsqueue

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"
)

// sweepDropped deletes the units the server gave up on (MaxDeliver) and
// returns how many it deleted.
//
// A unit delivered MaxDeliver times and never acknowledged is not
// delivered again, but JetStream keeps it in the stream for its owner to
// deal with (a dead-letter queue, say). In a work queue that owner is
// this package: left there, such a unit would count towards the
// capacity forever, and end of input, which waits until the stream holds
// only the units of the handle asking, would never come.
//
// The consumer's state tells the dropped units from the live ones
// without naming them: a unit at or below the acknowledgement floor has
// been delivered and is not awaiting an acknowledgement, so, as an
// acknowledged unit leaves a work-queue stream, one still stored there
// was dropped; and when no delivered unit awaits an acknowledgement at
// all (a nak or an expired AckWait leaves a unit awaiting one until it is
// redelivered), every stored unit the consumer has delivered was
// dropped. Units delivered later, or pending, are never touched.
func (q *Queue) sweepDropped(ctx context.Context) (int, error) {
	info, err := q.cons.Info(ctx)
	if err != nil {
		return 0, err
	}
	floor := info.AckFloor.Stream
	if info.NumAckPending == 0 {
		floor = info.Delivered.Stream
	}
	swept := 0
	for seq := uint64(1); seq <= floor; {
		m, err := q.strm.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(q.n.subject))
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
			return swept, nil
		case err != nil:
			return swept, err
		case m.Sequence > floor:
			return swept, nil
		}
		err = q.strm.DeleteMsg(ctx, m.Sequence)
		switch {
		case err == nil:
			swept++
		case !errors.Is(err, jetstream.ErrMsgNotFound): // another worker's sweep took it
			return swept, err
		}
		seq = m.Sequence + 1
	}
	return swept, nil
}

// mayDrop reports whether the consumer may give up on units: whether
// this handle, or the consumer as last seen, has a MaxDeliver.
func (q *Queue) mayDrop() bool {
	if q.cfg.maxDeliver > 0 {
		return true
	}
	info := q.cons.CachedInfo()
	return info != nil && info.Config.MaxDeliver > 0
}
