package input

import (
	"expvar"
	"fmt"
	"time"

	"github.com/sluiceml/sluice/queue"
)

// QueueMetrics describes one of a pipeline's queues at a moment: how full
// it is, as TensorFlow's queue summaries report it, and how much traffic
// and waiting it has seen.
type QueueMetrics struct {
	Name string
	// Size and Capacity are zero, and Summary empty, for a queue that is
	// not a queue.Sizer (none of the queues a pipeline makes).
	Size     int
	Capacity int

	// Summary is TensorFlow's summary name for Fraction:
	// "fraction_of_<capacity>_full", or for a shuffling queue, a
	// shuffle batcher's even with min_after_dequeue 0 (SB-02),
	// "fraction_over_<min_after_dequeue>_of_<capacity-min_after_dequeue>_full".
	Summary string
	// Fraction is above 1 for as long as a queue holds more than its
	// capacity, after a DequeueMany gave back what it had taken (see
	// queue.Sizer), as TensorFlow's summary is.
	Fraction float64

	// Enqueued and Dequeued count elements; EnqueueBlocked and
	// DequeueBlocked add up the time callers waited on a full or empty
	// queue. They are zero for queues that do not keep statistics.
	Enqueued, Dequeued             int64
	EnqueueBlocked, DequeueBlocked time.Duration
}

// statser is implemented by queues that count their traffic.
type statser interface {
	Stats() queue.Stats
}

// metricsOf computes q's metrics; shuffle says whether it is a shuffling
// queue, with min_after_dequeue mad.
func metricsOf(q queue.Queue, shuffle bool, mad int) QueueMetrics {
	m := QueueMetrics{Name: q.Name()}
	if s, ok := q.(queue.Sizer); ok {
		m.Size, m.Capacity = s.Size(), s.Capacity()
		if shuffle {
			m.Summary = fmt.Sprintf("fraction_over_%d_of_%d_full", mad, m.Capacity-mad)
			m.Fraction = float64(max(0, m.Size-mad)) / float64(m.Capacity-mad)
		} else {
			m.Summary = fmt.Sprintf("fraction_of_%d_full", m.Capacity)
			m.Fraction = float64(m.Size) / float64(m.Capacity)
		}
	}
	if s, ok := q.(statser); ok {
		st := s.Stats()
		m.Enqueued, m.Dequeued = st.Enqueued, st.Dequeued
		m.EnqueueBlocked, m.DequeueBlocked = st.EnqueueBlocked, st.DequeueBlocked
	}
	return m
}

// Metrics returns the current metrics of every queue the pipeline
// created, in creation order: producers' queues, then batchers'.
func (p *Pipeline) Metrics() []QueueMetrics {
	p.mu.Lock()
	queues := append([]trackedQueue(nil), p.queues...)
	p.mu.Unlock()
	out := make([]QueueMetrics, len(queues))
	for i, tq := range queues {
		out[i] = metricsOf(tq.q, tq.shuffle, tq.mad)
	}
	return out
}

// PublishExpvar publishes the pipeline's queue metrics as the expvar
// variable name (served at /debug/vars by net/http with expvar imported).
// Like expvar.Publish it panics if the name is already taken.
func (p *Pipeline) PublishExpvar(name string) {
	expvar.Publish(name, expvar.Func(func() any { return p.Metrics() }))
}
