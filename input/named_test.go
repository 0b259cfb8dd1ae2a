package input

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// examples is a step of n examples laid out as example.Parsed's
// Components are, sorted by name: "image" (two float32 values, v and -v)
// then "label" (int64 v). With declare it declares those names (Named).
func examples(n int64, declare bool) Step {
	inner := counter(n)
	return func(ctx context.Context) (queue.Element, error) {
		e, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		v := e[0].Int64s()[0]
		e = queue.Element{tensor.New([]float32{float32(v), float32(-v)}), tensor.Scalar(v)}
		if declare {
			return Named(ctx, e, "image", "label"), nil
		}
		return e, nil
	}
}

// reversed is examples with the components the other way round, "label"
// first, declared.
func reversed(n int64) Step {
	inner := examples(n, false)
	return func(ctx context.Context) (queue.Element, error) {
		e, err := inner(ctx)
		if err != nil {
			return nil, err
		}
		return Named(ctx, queue.Element{e[1], e[0]}, "label", "image"), nil
	}
}

// namedStages builds each batching stage that takes Names over steps.
var namedStages = []struct {
	name  string
	build func(p *Pipeline, steps []Step, opts ...BatcherOption) *Batches
}{
	{"Batch", func(p *Pipeline, s []Step, o ...BatcherOption) *Batches {
		return p.Batch(s[0], 4, as[BatchOption](o)...)
	}},
	{"BatchJoin", func(p *Pipeline, s []Step, o ...BatcherOption) *Batches {
		return p.BatchJoin(s, 4, as[BatchOption](o)...)
	}},
	{"ShuffleBatch", func(p *Pipeline, s []Step, o ...BatcherOption) *Batches {
		return p.ShuffleBatch(s[0], 4, append(as[ShuffleBatchOption](o), Capacity(20), MinAfterDequeue(5))...)
	}},
	{"ShuffleBatchJoin", func(p *Pipeline, s []Step, o ...BatcherOption) *Batches {
		return p.ShuffleBatchJoin(s, 4, append(as[ShuffleBatchOption](o), Capacity(20), MinAfterDequeue(5))...)
	}},
	{"MaybeBatch", func(p *Pipeline, s []Step, o ...BatcherOption) *Batches {
		return p.MaybeBatch(alwaysKeep(s[0]), 4, as[BatchOption](o)...)
	}},
	{"MaybeShuffleBatchJoin", func(p *Pipeline, s []Step, o ...BatcherOption) *Batches {
		return p.MaybeShuffleBatchJoin(keepAll(s), 4, append(as[ShuffleBatchOption](o), Capacity(20), MinAfterDequeue(5))...)
	}},
}

// checkLabelled checks that every example's "label" is v and its "image"
// v, -v, whatever order the batches' components are in.
func checkLabelled(t *testing.T, batches []Batch, want int) {
	t.Helper()
	n := 0
	for _, b := range batches {
		labels, images := b.Int64("label"), b.Float32("image")
		for i, v := range labels {
			if images[2*i] != float32(v) || images[2*i+1] != float32(-v) {
				t.Fatalf("label %d with image %v", v, images[2*i:2*i+2])
			}
		}
		n += len(labels)
	}
	if n != want {
		t.Fatalf("%d examples, want %d", n, want)
	}
}

// BAT-04 with the mistake: names declared by the step are matched
// by name, whatever the order of Names and of the step's components, in
// every stage that takes Names; without Names the stage takes the step's.
func TestNamesFromStep(t *testing.T) {
	cases := []struct {
		name      string
		steps     func() []Step
		opts      []BatcherOption
		wantNames []string
	}{
		{"Names in the step's order", func() []Step { return []Step{examples(20, true)} }, []BatcherOption{Names("image", "label")}, []string{"image", "label"}},
		{"Names in another order", func() []Step { return []Step{examples(20, true)} }, []BatcherOption{Names("label", "image")}, []string{"label", "image"}},
		{"no Names", func() []Step { return []Step{examples(20, true)} }, nil, []string{"image", "label"}},
		{"steps in two orders", func() []Step { return []Step{examples(10, true), reversed(10)} }, []BatcherOption{Names("label", "image")}, []string{"label", "image"}},
		{"steps in two orders, no Names", func() []Step { return []Step{reversed(10), examples(10, true)} }, nil, nil},
	}
	for _, st := range namedStages {
		for _, c := range cases {
			steps := c.steps()
			if len(steps) > 1 && !strings.Contains(st.name, "Join") {
				continue
			}
			t.Run(st.name+"/"+c.name, func(t *testing.T) {
				p := NewPipeline()
				b := st.build(p, steps, append(c.opts, AllowSmallerFinalBatch())...)
				start(t, p)
				batches := drain(t, b)
				checkLabelled(t, batches, 20)
				got := batches[0].Names()
				if c.wantNames != nil && !slices.Equal(got, c.wantNames) {
					t.Fatalf("names %q, want %q", got, c.wantNames)
				}
				if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, []string{"image", "label"}) {
					t.Fatalf("names %q", got)
				}
			})
		}
	}
}

// Mismatches fail the stage with an error naming both lists, rather than
// batching a feature under another's name (or panicking when the types
// differ).
func TestNamesMismatch(t *testing.T) {
	cases := []struct {
		name  string
		steps func() []Step
		opts  []BatcherOption
		want  []string
	}{
		// The program: Example components (sorted by name) and
		// Names in another order, nothing declared.
		{"unsorted Names, undeclared", func() []Step { return []Step{examples(20, false)} }, []BatcherOption{Names("label", "image")},
			[]string{`Names ["label" "image"] is not in sorted order`, `give Names as ["image" "label"]`, "input.Named"}},
		{"declared names differ", func() []Step { return []Step{examples(20, true)} }, []BatcherOption{Names("label", "pixels")},
			[]string{`the step's components are named ["image" "label"], but the stage's names are ["label" "pixels"]`}},
		{"declared fewer than returned", func() []Step {
			inner := examples(20, false)
			return []Step{func(ctx context.Context) (queue.Element, error) {
				e, err := inner(ctx)
				return Named(ctx, e, "image"), err
			}}
		}, nil, []string{`the step names 1 components ["image"] but returns 2`}},
		{"declared twice", func() []Step {
			inner := examples(20, false)
			return []Step{func(ctx context.Context) (queue.Element, error) {
				e, err := inner(ctx)
				return Named(ctx, e, "image", "image"), err
			}}
		}, nil, []string{`components 0 and 1 both "image"`}},
		{"steps name differently", func() []Step {
			inner := examples(20, false)
			other := func(ctx context.Context) (queue.Element, error) {
				e, err := inner(ctx)
				return Named(ctx, e, "x", "y"), err
			}
			return []Step{examples(20, true), other}
		}, nil, []string{`but the stage's names are ["image" "label"]`}},
		{"one step unnamed", func() []Step { return []Step{examples(20, true), examples(20, false)} }, nil,
			[]string{`a step returned unnamed components, where another named them ["image" "label"]`}},
		{"one step unnamed first", func() []Step { return []Step{examples(20, false), examples(20, true)} }, nil,
			[]string{`a step named its components ["image" "label"], where another returned them unnamed`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewPipeline()
			steps := c.steps()
			var b *Batches
			if len(steps) == 1 {
				b = p.Batch(steps[0], 4, as[BatchOption](c.opts)...)
			} else {
				// Let the second step run only once the first has named
				// the stage (its second call comes after its first
				// element was enqueued), so the error does not depend on
				// which runs first.
				ready := make(chan struct{})
				first, calls := steps[0], 0
				steps[0] = func(ctx context.Context) (queue.Element, error) {
					if calls++; calls == 2 {
						close(ready)
					}
					return first(ctx)
				}
				second := steps[1]
				steps[1] = func(ctx context.Context) (queue.Element, error) {
					select {
					case <-ready:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					return second(ctx)
				}
				b = p.BatchJoin(steps, 4, as[BatchOption](c.opts)...)
			}
			if err := p.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			var err error
			for _, err = range b.All(t.Context()) {
				if err != nil {
					break
				}
			}
			jerr := p.Join(t.Context())
			for _, e := range []error{err, jerr} {
				if e == nil {
					t.Fatal("no error")
				}
				for _, w := range c.want {
					if !strings.Contains(e.Error(), w) {
						t.Fatalf("error %q does not say %q", e, w)
					}
				}
			}
		})
	}
}

// Outside a stage, Named only returns the element; StepNames collects
// what a step declares, for stages built outside this package
// (stagehook.StepNames).
func TestStepNames(t *testing.T) {
	step := examples(3, true)
	e, err := step(t.Context())
	if err != nil || len(e) != 2 {
		t.Fatalf("%v, %v", e, err)
	}
	names, err := stagehook.StepNames(t.Context(), func(ctx context.Context) error {
		_, err := step(ctx)
		return err
	})
	if err != nil || !slices.Equal(names, []string{"image", "label"}) {
		t.Fatalf("names %q, %v", names, err)
	}
	names, err = stagehook.StepNames(t.Context(), func(ctx context.Context) error {
		_, err := examples(3, false)(ctx)
		return err
	})
	if err != nil || names != nil {
		t.Fatalf("names %q, %v", names, err)
	}
}
