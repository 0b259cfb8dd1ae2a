package sequence_test

import (
	"testing"

	"github.com/sluiceml/sluice/internal/apicheck"
)

// An option of BatchSequencesWithStates' pipeline stage given to
// NewStateSaver must not compile; the state saver's options compile with
// both constructors.
func TestDoesNotCompile(t *testing.T) {
	apicheck.Run(t, []string{"github.com/sluiceml/sluice/input", "github.com/sluiceml/sluice/sequence", "github.com/sluiceml/sluice/tensor"},
		"p *input.Pipeline, step sequence.Step, states map[string]tensor.Tensor", []struct{ Code, Want string }{
			{`sequence.NewStateSaver(2, 3, states, sequence.Capacity(4), sequence.Name("s"), sequence.AllowSmallerFinalBatch(), sequence.DropRemainder())`, ""},
			{`sequence.BatchSequencesWithStates(p, step, states, 3, 2, sequence.Capacity(4), sequence.Name("s"), sequence.DropRemainder(), sequence.Threads(2), sequence.Pad(false), sequence.MakeKeysUnique(), sequence.Seed(1))`, ""},
			{`var o sequence.Option = sequence.Capacity(4); sequence.NewStateSaver(2, 3, states, o); sequence.BatchSequencesWithStates(p, step, states, 3, 2, o)`, ""},

			{`sequence.NewStateSaver(2, 3, states, sequence.Threads(2))`, "sequence.BatchOption does not implement sequence.StateSaverOption"},
			{`sequence.NewStateSaver(2, 3, states, sequence.Pad(true))`, "sequence.BatchOption does not implement sequence.StateSaverOption"},
			{`sequence.NewStateSaver(2, 3, states, sequence.MakeKeysUnique())`, "sequence.BatchOption does not implement sequence.StateSaverOption"},
			{`sequence.NewStateSaver(2, 3, states, sequence.Seed(1))`, "sequence.BatchOption does not implement sequence.StateSaverOption"},
		})
}
