package sample

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/sluiceml/sluice/input"
	"github.com/sluiceml/sluice/queue"
	"github.com/sluiceml/sluice/tensor"
)

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// source returns a LabelStep over n examples whose labels come from
// label(i); each example's one component is its index as int64. It is not
// safe for concurrent use: the stages under test run it in one goroutine.
func source(n int, label func(i int) int) LabelStep {
	i := 0
	return func(context.Context) (int, queue.Element, error) {
		if i == n {
			return 0, nil, io.EOF
		}
		i++
		return label(i - 1), queue.Element{tensor.Scalar(int64(i - 1))}, nil
	}
}

// drain starts p and returns every batch next gives until end of input,
// and Join's error.
func drain(t *testing.T, p *input.Pipeline, next func(context.Context) (input.Batch, error)) ([]input.Batch, error) {
	t.Helper()
	ctx := t.Context()
	if err := p.Start(ctx); err != nil {
		return nil, err
	}
	defer p.Stop(ctx)
	var out []input.Batch
	for {
		b, err := next(ctx)
		if errors.Is(err, io.EOF) {
			return out, p.Join(ctx)
		}
		if err != nil {
			p.Stop(ctx)
			return out, err
		}
		out = append(out, b)
	}
}

var errEOF = io.EOF

func itoa(i int) string { return strconv.Itoa(i) }
