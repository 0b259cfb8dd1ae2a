package input

import (
	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/queue"
)

// The methods in this file let packages that build stages of their own
// (bucket, sequence, sample) run them as part of a pipeline: their
// goroutines start with Start, stop with Stop and report errors through
// Join, their queues appear in Metrics, and their build errors are
// returned by Start, exactly as the stages this package builds.

// AddQueueRunner adds a queue runner that Start starts and Join waits for.
// Runners added after Start are not started.
func (p *Pipeline) AddQueueRunner(r *coord.QueueRunner) { p.addRunner(r) }

// TrackQueue adds q to the queues Metrics reports. minAfterDequeue is the
// queue's min_after_dequeue if it shuffles, else 0.
func (p *Pipeline) TrackQueue(q queue.Queue, minAfterDequeue int) { p.addQueue(q, minAfterDequeue) }

// Fail records err as an error found while building the pipeline: Start
// returns the first such error and starts nothing. A nil err is ignored.
func (p *Pipeline) Fail(err error) {
	if err != nil {
		p.fail(err)
	}
}

// StageSeed returns the seed for a new random stage, as the pipeline's own
// shuffling stages get theirs: derived from the pipeline seed and the
// stage's creation order, or from the stage's own seed when it has one
// (explicit non-nil), or from the clock when neither is set.
func (p *Pipeline) StageSeed(explicit *uint64) uint64 { return p.opSeed(explicit) }

// NewBatch returns a Batch over the components of e, named by names
// (nil for unnamed components), for stages that assemble batches of their
// own.
func NewBatch(names []string, e queue.Element) Batch {
	return Batch{names: names, element: e}
}

// A Namer names the components of a stage built outside this package as
// this package's stages name theirs (see Names and Named): by the names
// its step declares, matched by name to the stage's Names, or by Names
// alone, which must then be sorted. It is safe for concurrent use.
type Namer struct{ s *stageNames }

// NewNamer returns a Namer for a stage, called stage in messages, given
// the names of its Names option (nil without one).
func NewNamer(stage string, names []string) *Namer {
	return &Namer{newStageNames(stage, names)}
}

// Names returns the stage's component names: its Names, else those the
// first element declared, else nil.
func (n *Namer) Names() []string { return n.s.names() }

// Arrange returns e with its components in the stage's order, given the
// names its step declared (from StepNames; nil if none), or an error that
// names both lists when they cannot be matched.
func (n *Namer) Arrange(e queue.Element, declared []string) (queue.Element, error) {
	var o order
	return n.s.arrange(e, declared, declared != nil, &o)
}
