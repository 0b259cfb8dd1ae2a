// Package stagehook gives the packages that build pipeline stages outside
// package input (bucket, sample, sequence and the module root) what
// input's own stages use and its users do not: a pipeline's build errors,
// its queue metrics, its seeds, and the naming of a step's components.
//
// Package input sets the variables below when it is initialised, so they
// are set before any package that imports input runs. Keeping them here,
// rather than as exported methods of input.Pipeline, keeps them out of
// input's API: only this module can import an internal package.
package stagehook

import (
	"context"

	"github.com/sluiceml/sluice/queue"
)

// A Pipeline is the part of an input.Pipeline that stages built outside
// package input use.
type Pipeline interface {
	// TrackQueue adds q to the queues the pipeline's Metrics reports.
	// minAfterDequeue is the queue's min_after_dequeue if it shuffles,
	// else 0.
	TrackQueue(q queue.Queue, minAfterDequeue int)
	// Fail records err as an error found while building the pipeline:
	// Start returns the first such error and starts nothing. A nil err is
	// ignored.
	Fail(err error)
	// Seed returns the seed for a new random stage, as the pipeline's own
	// shuffling stages get theirs: derived from the pipeline seed and the
	// stage's creation order, or from the stage's own seed when it has one
	// (explicit non-nil), or from the clock when neither is set.
	Seed(explicit *uint64) uint64
	// Deterministic reports whether the pipeline was built with
	// input.Deterministic: a stage's runners must then take turns
	// (coord.InTurn), and a stage that cannot be deterministic fails.
	Deterministic() bool
	// AddStage registers a stage's part in the pipeline's checkpoints.
	// Stages are recorded in the order they are added, which is the
	// order the program builds them in.
	AddStage(s *Stage)
}

// A Namer names the components of a stage as package input's stages name
// theirs (see input.Names and input.Named): by the names its step
// declares, matched by name to the stage's Names, or by Names alone,
// which must then be sorted. It is safe for concurrent use.
type Namer interface {
	// Names returns the stage's component names: its Names, else those
	// the first element declared, else nil.
	Names() []string
	// Arrange returns e with its components in the stage's order, given
	// the names its step declared (from StepNames; nil if none), or an
	// error that names both lists when they cannot be matched.
	Arrange(e queue.Element, declared []string) (queue.Element, error)
	// Caller returns a StepCaller for one goroutine of the stage.
	Caller() StepCaller
}

// A StepCaller calls a stage's step as StepNames and Arrange do, for one
// goroutine, keeping between calls what each call would otherwise
// allocate: the context that collects the declaration (made again only
// when the goroutine's context changes, and a runner passes the same one
// every time) and the permutation of the declared names.
type StepCaller interface {
	// Context returns the context to call the step with, derived from
	// ctx, with no declaration collected yet.
	Context(ctx context.Context) context.Context
	// Declared returns the names the step declared when called with the
	// last Context, as StepNames returns them: nil if none.
	Declared() []string
	// Arrange returns e, which the step returned when called with the
	// last Context, with its components in the stage's order.
	Arrange(e queue.Element) (queue.Element, error)
}

var (
	// Of returns the hooks of p, which must be an *input.Pipeline (this
	// package cannot name the type: input imports it).
	Of func(p any) Pipeline

	// NewNamer returns a Namer for a stage, called stage in messages,
	// given the names of its Names option (nil without one).
	NewNamer func(stage string, names []string) Namer

	// StepNames runs run, a function that calls a step, with a context
	// that collects the step's input.Named declaration, and returns the
	// names declared (nil if none) with run's error. Stages call their
	// steps through it to honour the names the steps declare.
	StepNames func(ctx context.Context, run func(ctx context.Context) error) ([]string, error)
)
