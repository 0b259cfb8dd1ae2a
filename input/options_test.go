package input_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"
)

// An option given to a kind of stage that does not take it must not
// compile, nor may a user call the hooks kept for the module's own stage
// packages (internal/stagehook): each snippet below is type-checked
// against this package's source, and the wrong ones must fail with the
// option's type or the missing name in the error.
func TestDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package and its imports from source")
	}
	cases := []struct {
		code string
		want string // "" if the code compiles
	}{
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
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	for i, c := range cases {
		src := fmt.Sprintf(`package snippet

import (
	"time"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/tensor"
)

var _ = time.Second

func f(p *input.Pipeline, step input.Step, t tensor.Tensor) {
	%s
}
`, c.code)
		// The file is named inside this package's directory, so that the
		// importer resolves the module's packages.
		name, _ := filepath.Abs(fmt.Sprintf("snippet%d.go", i))
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		var errs []string
		conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err.Error()) }}
		conf.Check("snippet", fset, []*ast.File{f}, nil)
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("%s\ndoes not compile: %s", c.code, strings.Join(errs, "\n"))
		case c.want != "" && len(errs) == 0:
			t.Errorf("%s\ncompiles; want an error containing %q", c.code, c.want)
		case c.want != "" && !strings.Contains(strings.Join(errs, "\n"), c.want):
			t.Errorf("%s\nfails with %s\nwant an error containing %q", c.code, strings.Join(errs, "\n"), c.want)
		}
	}
}
