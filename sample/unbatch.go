package sample

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
)

// A LabelsStep produces a batch of examples and their classes: labels[i]
// is the class of row i of every component (TensorFlow's
// enqueue_many=True). io.EOF ends the input.
type LabelsStep func(ctx context.Context) (labels []int, batch queue.Element, err error)

// A RatesStep produces a batch of examples and each row's rate, or weight
// for WeightedResample.
type RatesStep func(ctx context.Context) (rates []float64, batch queue.Element, err error)

// UnbatchLabels turns a step that produces batches into one that produces
// their examples one at a time, for StratifiedSample and
// StratifiedSampleUnknownDist: TensorFlow's enqueue_many=True, which
// unbatches through a queue of batch size 1 before sampling (ST-06).
//
// A batch must have at least one label (ST-03), and every component a
// first dimension of len(labels) rows (ST-02); otherwise the step's error
// names the batch (counted from 0), the component and the sizes. The
// returned step is safe for concurrent use if step is.
func UnbatchLabels(step LabelsStep) LabelStep {
	u := &unbatcher[int]{op: "stratified_sample", sizeMsg: "there are %d labels", needRows: true,
		step: func(ctx context.Context) ([]int, queue.Element, error) { return step(ctx) }}
	return u.next
}

// UnbatchRates is UnbatchLabels for ResampleAtRateStage and
// WeightedResample: a batch with its rates, or weights. An empty batch
// resamples to nothing, as TensorFlow's (RE-02).
func UnbatchRates(step RatesStep) RateStep {
	u := &unbatcher[float64]{op: "resample_at_rate", sizeMsg: "there are %d rates or weights",
		step: func(ctx context.Context) ([]float64, queue.Element, error) { return step(ctx) }}
	return u.next
}

// Unbatch is UnbatchLabels for RejectionSample: every component's first
// dimension is the batch, the same in all (RS-01); acceptProb then sees
// one example at a time, as TensorFlow's accept_prob_fn.
func Unbatch(step input.Step) input.Step {
	u := &unbatcher[struct{}]{op: "rejection_sample", sizeMsg: "component 0 has %d", needComponents: true,
		step: func(ctx context.Context) ([]struct{}, queue.Element, error) {
			e, err := step(ctx)
			if err != nil || len(e) == 0 {
				return nil, e, err
			}
			if e[0].Rank() == 0 {
				return nil, e, nil // reported by check
			}
			return make([]struct{}, e[0].Shape()[0]), e, nil
		}}
	return func(ctx context.Context) (queue.Element, error) {
		_, e, err := u.next(ctx)
		return e, err
	}
}

// unbatcher holds the examples of batches already read, with their keys
// (labels, rates), until they are asked for.
type unbatcher[K any] struct {
	op             string
	sizeMsg        string // how the batch size is known, with its %d
	needRows       bool   // a batch must not be empty (stratified_sample's check)
	needComponents bool   // the batch size comes from component 0
	step           func(context.Context) ([]K, queue.Element, error)

	mu      sync.Mutex
	keys    []K
	rows    []queue.Element
	names   [][]string // the names each row's batch declared (input.Named)
	batches int        // batches read, for messages
}

// next returns the oldest example not yet returned, reading a batch when
// there is none. The step runs without the lock, so that concurrent
// callers read concurrently, as they would without an unbatcher.
func (u *unbatcher[K]) next(ctx context.Context) (K, queue.Element, error) {
	for {
		if k, e, names, ok := u.pop(); ok {
			return k, redeclare(ctx, e, names), nil
		}
		var (
			keys  []K
			batch queue.Element
		)
		names, err := stagehook.StepNames(ctx, func(ctx context.Context) error {
			var err error
			keys, batch, err = u.step(ctx)
			return err
		})
		if err != nil {
			var zero K
			// Another caller may have left examples since we looked;
			// they come before the end.
			if errors.Is(err, io.EOF) {
				if k, e, names, ok := u.pop(); ok {
					return k, redeclare(ctx, e, names), nil
				}
			}
			return zero, nil, err
		}
		if err := u.push(keys, batch, names); err != nil {
			var zero K
			return zero, nil, err
		}
	}
}

func (u *unbatcher[K]) pop() (K, queue.Element, []string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.rows) == 0 {
		var zero K
		return zero, nil, nil, false
	}
	k, e, names := u.keys[0], u.rows[0], u.names[0]
	// Clear the slots so the examples can be collected once returned.
	var zero K
	u.keys[0], u.rows[0], u.names[0] = zero, nil, nil
	u.keys, u.rows, u.names = u.keys[1:], u.rows[1:], u.names[1:]
	return k, e, names, true
}

// redeclare declares an example's names as its batch did, if it did.
func redeclare(ctx context.Context, e queue.Element, names []string) queue.Element {
	if names == nil {
		return e
	}
	return input.Named(ctx, e, names...)
}

// push checks a batch and splits it into examples.
func (u *unbatcher[K]) push(keys []K, batch queue.Element, names []string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := u.batches
	u.batches++
	if err := u.check(n, len(keys), batch); err != nil {
		return err
	}
	for i := range keys {
		e := make(queue.Element, len(batch))
		for j, t := range batch {
			e[j] = t.Row(i)
		}
		u.rows = append(u.rows, e)
		u.names = append(u.names, names)
	}
	u.keys = append(u.keys, keys...)
	return nil
}

// check is TensorFlow's _verify_input (labels) and _verify_data_inputs.
func (u *unbatcher[K]) check(n, rows int, batch queue.Element) error {
	if u.needRows && rows == 0 {
		return invalidf("sample: %s: enqueue_many batch %d has no labels; the label batch size must be > 0", u.op, n)
	}
	if u.needComponents && len(batch) == 0 {
		return invalidf("sample: %s: enqueue_many batch %d has no components", u.op, n)
	}
	for j, t := range batch {
		if t.Rank() == 0 {
			return invalidf("sample: %s: enqueue_many batch %d: component %d is a scalar; enqueue_many needs a batch dimension", u.op, n, j)
		}
		if got := t.Shape()[0]; got != rows {
			return invalidf("sample: %s: enqueue_many batch %d: component %d has %d rows, but "+u.sizeMsg, u.op, n, j, got, rows)
		}
	}
	return nil
}
