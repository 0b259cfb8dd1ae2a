package sample

import (
	"context"
	"fmt"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/internal/checkpointtest"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

// StratifiedSample fed by an upstream batcher (TensorFlow's
// enqueue_many=True: labels and data come from tf.train.batch), through
// UnbatchLabels, resumes exactly at every cut.
func TestCheckpointChainedStratified(t *testing.T) {
	checkpointtest.Cuts(t, func(t *testing.T, resume []byte, take int) ([]string, []byte) {
		opts := []input.PipelineOption{input.Seed(8), input.Deterministic()}
		if resume != nil {
			opts = append(opts, input.Resume(resume))
		}
		p := input.NewPipeline(opts...)
		values := p.RangeInputProducer(60, input.NumEpochs(1))
		up := p.Batch(func(ctx context.Context) (queue.Element, error) {
			e, err := values.Dequeue(ctx)
			if err != nil {
				return nil, err
			}
			return queue.Element{tensor.Scalar(int64(e[0].Int32s()[0]))}, nil
		}, 5, input.AllowSmallerFinalBatch())
		step := UnbatchLabels(func(ctx context.Context) ([]int, queue.Element, error) {
			b, err := up.Next(ctx)
			if err != nil {
				return nil, nil, err
			}
			var labels []int
			for _, v := range b.Component(0).Int64s() {
				labels = append(labels, int(v%3))
			}
			return labels, b.Element(), nil
		})
		out := StratifiedSample(p, step, []float64{0.2, 0.3, 0.5}, 4, BatchOptions(input.AllowSmallerFinalBatch()))
		return checkpointtest.Take(t, p, take, func(ctx context.Context) (string, error) {
			b, err := out.Next(ctx)
			var s string
			for _, c := range b.Element() {
				s += fmt.Sprint(c.Data())
			}
			return s, err
		})
	})
}
