package sample

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/stagehook"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// pairs is a step of n examples laid out as example.Parsed's Components
// are, sorted by name: "a" (int64 i) then "b" (float32 -i). With declare it
// declares their names the other way round, components swapped to match.
func pairs(n int, declare bool) func(ctx context.Context) (queue.Element, error) {
	i := 0
	return func(ctx context.Context) (queue.Element, error) {
		if i == n {
			return nil, io.EOF
		}
		i++
		a, b := tensor.Scalar(int64(i)), tensor.Scalar(float32(-i))
		if declare {
			return input.Named(ctx, queue.Element{b, a}, "b", "a"), nil
		}
		return queue.Element{a, b}, nil
	}
}

// Every sampling stage that takes Names names the step's components by
// what the step declares (input.Named), matched by name to Names; a step
// that declares nothing must have Names sorted, else the stage fails
// rather than put one feature's values under another's name.
func TestSampleNames(t *testing.T) {
	stages := []struct {
		name string
		run  func(p *input.Pipeline, step func(context.Context) (queue.Element, error), opts ...Option) func(context.Context) (input.Batch, error)
	}{
		{"StratifiedSample", func(p *input.Pipeline, step func(context.Context) (queue.Element, error), opts ...Option) func(context.Context) (input.Batch, error) {
			ls := func(ctx context.Context) (int, queue.Element, error) { e, err := step(ctx); return 0, e, err }
			return StratifiedSample(p, ls, []float64{1, 0}, 4, append(opts, InitProbs([]float64{1, 0}), BatchOptions(input.AllowSmallerFinalBatch()))...).Next
		}},
		{"StratifiedSampleUnknownDist", func(p *input.Pipeline, step func(context.Context) (queue.Element, error), opts ...Option) func(context.Context) (input.Batch, error) {
			ls := func(ctx context.Context) (int, queue.Element, error) { e, err := step(ctx); return 0, e, err }
			return StratifiedSampleUnknownDist(p, ls, []float64{1, 0}, 4, opts...).Next
		}},
		{"ResampleAtRateStage", func(p *input.Pipeline, step func(context.Context) (queue.Element, error), opts ...Option) func(context.Context) (input.Batch, error) {
			rs := func(ctx context.Context) (float64, queue.Element, error) { e, err := step(ctx); return 1, e, err }
			return ResampleAtRateStage(p, rs, 4, append(opts, BatchOptions(input.AllowSmallerFinalBatch()))...).Next
		}},
		{"RejectionSample", func(p *input.Pipeline, step func(context.Context) (queue.Element, error), opts ...Option) func(context.Context) (input.Batch, error) {
			return RejectionSample(p, step, func(queue.Element) float64 { return 1 }, 4, append(opts, BatchOptions(input.AllowSmallerFinalBatch()))...).Next
		}},
		{"RejectionSample/Unbatch", func(p *input.Pipeline, step func(context.Context) (queue.Element, error), opts ...Option) func(context.Context) (input.Batch, error) {
			// Batches of two examples, unbatched: the declaration of a
			// batch names each of its examples.
			batches := func(ctx context.Context) (queue.Element, error) {
				var rows [2]queue.Element
				names, err := stagehook.StepNames(ctx, func(ctx context.Context) error {
					var err error
					for i := range rows {
						if rows[i], err = step(ctx); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return nil, err
				}
				e := make(queue.Element, len(rows[0]))
				for j := range e {
					e[j], _ = tensor.Stack([]tensor.Tensor{rows[0][j], rows[1][j]})
				}
				if names != nil {
					return input.Named(ctx, e, names...), nil
				}
				return e, nil
			}
			return RejectionSample(p, Unbatch(batches), func(queue.Element) float64 { return 1 }, 4, append(opts, BatchOptions(input.AllowSmallerFinalBatch()))...).Next
		}},
	}
	for _, st := range stages {
		for _, tc := range []struct {
			name    string
			declare bool
			opts    []Option
			wantErr string
		}{
			{"declared, Names in another order", true, []Option{Names("a", "b")}, ""},
			{"declared, no Names", true, nil, ""},
			{"undeclared, sorted Names", false, []Option{Names("a", "b")}, ""},
			{"undeclared, unsorted Names", false, []Option{Names("b", "a")}, `Names ["b" "a"] is not in sorted order`},
			{"declared, other Names", true, []Option{Names("a", "c")}, `"b" "a"], but the stage's names are`},
		} {
			t.Run(st.name+"/"+tc.name, func(t *testing.T) {
				p := input.NewPipeline(input.Seed(1))
				next := st.run(p, pairs(20, tc.declare), tc.opts...)
				batches, err := drain(t, p, next)
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, b := range batches {
					as, bs := b.Int64("a"), b.Tensor("b").Float32s()
					for i, a := range as {
						if bs[i] != float32(-a) {
							t.Fatalf("a=%d with b=%v", a, bs[i])
						}
					}
					n += len(as)
				}
				if n < 16 {
					t.Fatalf("%d examples", n)
				}
			})
		}
	}
}
