package input_test

import (
	"testing"

	"github.com/sluiceml/sluice/internal/apicheck"
)

// An option given to a kind of stage that does not take it must not
// compile, nor may a user call the hooks kept for the module's own stage
// packages (internal/stagehook): each snippet below is type-checked
// against this package's source, and the wrong ones must fail with the
// option's type or the missing name in the error.
func TestDoesNotCompile(t *testing.T) {
	apicheck.Run(t, []string{"time", "github.com/sluiceml/sluice/input", "github.com/sluiceml/sluice/tensor"},
		"p *input.Pipeline, step input.Step, t tensor.Tensor", []struct{ Code, Want string }{
			// Each option where it belongs.
			{`p.StringInputProducer(nil, input.NumEpochs(1), input.Shuffle(false), input.Seed(1), input.Shard(0, 1), input.Capacity(3), input.Name("f"))`, ""},
			{`p.InputProducer(t, input.ElementShape(nil), input.Seed(1))`, ""},
			{`p.Batch(step, 2, input.Capacity(3), input.Name("b"), input.Threads(2), input.EnqueueMany(), input.DynamicPad(), input.AllowSmallerFinalBatch(), input.Names("a"), input.SparseComponents("a"))`, ""},
			{`p.ShuffleBatch(step, 2, input.Capacity(3), input.Name("b"), input.Threads(2), input.EnqueueMany(), input.AllowSmallerFinalBatch(), input.Names("a"), input.SparseComponents("a"), input.MinAfterDequeue(1), input.Seed(1))`, ""},
			{`input.NewPipeline(input.Seed(1), input.GracePeriod(time.Second))`, ""},
			{`var o input.BatcherOption = input.Threads(1); p.Batch(step, 2, o); p.ShuffleBatch(step, 2, o)`, ""},

			// Producer options elsewhere.
			{`p.Batch(step, 2, input.NumEpochs(2))`, "input.ProducerOption does not implement input.BatchOption"},
			{`p.ShuffleBatch(step, 2, input.Shuffle(true))`, "input.ProducerOption does not implement input.ShuffleBatchOption"},
			{`p.BatchJoin([]input.Step{step}, 2, input.Shard(0, 2))`, "input.ProducerOption does not implement input.BatchOption"},
			{`input.NewPipeline(input.NumEpochs(2))`, "input.ProducerOption does not implement input.PipelineOption"},
			// Batch options elsewhere.
			{`p.StringInputProducer(nil, input.Threads(2))`, "input.BatcherOption does not implement input.ProducerOption"},
			{`p.ShuffleBatch(step, 2, input.DynamicPad())`, "input.BatchOption does not implement input.ShuffleBatchOption"},
			{`p.RangeInputProducer(3, input.AllowSmallerFinalBatch())`, "input.BatcherOption does not implement input.ProducerOption"},
			// Shuffle-batch options elsewhere.
			{`p.Batch(step, 2, input.MinAfterDequeue(1))`, "input.ShuffleBatchOption does not implement input.BatchOption"},
			{`p.MaybeBatch(nil, 2, input.Seed(1))`, "input.SeedOption does not implement input.BatchOption"},
			{`p.SliceInputProducer(nil, input.MinAfterDequeue(1))`, "input.ShuffleBatchOption does not implement input.ProducerOption"},
			// Stage options given to the pipeline, and the pipeline's to a stage.
			{`input.NewPipeline(input.Capacity(3))`, "input.Option does not implement input.PipelineOption"},
			{`p.Batch(step, 2, input.GracePeriod(time.Second))`, "input.PipelineOption does not implement input.BatchOption"},

			// What a stage built outside the package uses.
			{`p.AddQueueRunner(nil); _ = input.NewBatch(nil, nil); _ = p.Coordinator()`, ""},
			// Plumbing the module's own stages use, through internal/stagehook.
			{`p.Fail(nil)`, "p.Fail undefined"},
			{`p.TrackQueue(nil, 0)`, "p.TrackQueue undefined"},
			{`p.StageSeed(nil)`, "p.StageSeed undefined"},
			{`input.StepNames(nil, nil)`, "undefined: input.StepNames"},
			{`input.NewNamer("s", nil)`, "undefined: input.NewNamer"},
		})
}
