package input

import (
	"context"

	"github.com/sluiceml/sluice/coord"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
)

// A stage built outside this package runs as part of a pipeline through
// AddQueueRunner and Coordinator, and produces batches with NewBatch, as
// the stages this package builds do: its goroutines start with Start,
// stop with Stop and report errors through Join. What this package's own
// stages use besides (build errors returned by Start, queue metrics,
// derived seeds, component naming) is given to the module's other stage
// packages (bucket, sample, sequence) through internal/stagehook.

// AddQueueRunner adds a queue runner that Start starts and Join waits for,
// for a stage built outside this package. Runners added after Start are
// not started.
func (p *Pipeline) AddQueueRunner(r *coord.QueueRunner) { p.addRunner(r) }

// NewBatch returns a Batch over the components of e, named by names
// (nil for unnamed components), for stages built outside this package
// that assemble batches of their own.
func NewBatch(names []string, e queue.Element) Batch {
	return Batch{names: names, element: e}
}

// hooks implements stagehook.Pipeline.
type hooks struct{ p *Pipeline }

func (h hooks) TrackQueue(q queue.Queue, mad int) { h.p.addQueue(q, mad > 0, mad) }
func (h hooks) Seed(explicit *uint64) uint64      { return h.p.opSeed(explicit) }
func (h hooks) Deterministic() bool               { return h.p.deterministic }
func (h hooks) AddStage(s *stagehook.Stage)       { h.p.addStage(s) }

func (h hooks) Fail(err error) {
	if err != nil {
		h.p.fail(err)
	}
}

// namer implements stagehook.Namer.
type namer struct{ s *stageNames }

func (n namer) Names() []string { return n.s.names() }

func (n namer) Arrange(e queue.Element, declared []string) (queue.Element, error) {
	var o order
	return n.s.arrange(e, declared, declared != nil, &o)
}

func (n namer) Caller() stagehook.StepCaller { return &stepCaller{s: n.s} }

// stepCaller implements stagehook.StepCaller as enqueueStep calls a step.
type stepCaller struct {
	s       *stageNames
	d       declaration
	o       order
	parent  context.Context
	withDec context.Context
}

func (c *stepCaller) Context(ctx context.Context) context.Context {
	if ctx != c.parent {
		c.parent, c.withDec = ctx, context.WithValue(ctx, declarationKey{}, &c.d)
	}
	c.d = declaration{}
	return c.withDec
}

func (c *stepCaller) Declared() []string {
	switch {
	case !c.d.declared:
		return nil
	case c.d.names == nil:
		return []string{}
	}
	return c.d.names
}

func (c *stepCaller) Arrange(e queue.Element) (queue.Element, error) {
	return c.s.arrange(e, c.d.names, c.d.declared, &c.o)
}

func init() {
	stagehook.Of = func(p any) stagehook.Pipeline { return hooks{p.(*Pipeline)} }
	stagehook.NewNamer = func(stage string, names []string) stagehook.Namer {
		return namer{newStageNames(stage, names)}
	}
	stagehook.StepNames = stepNames
}

// stepNames implements stagehook.StepNames.
func stepNames(ctx context.Context, run func(ctx context.Context) error) ([]string, error) {
	d := new(declaration)
	err := run(context.WithValue(ctx, declarationKey{}, d))
	if !d.declared {
		return nil, err
	}
	if d.names == nil {
		d.names = []string{}
	}
	return d.names, err
}
