package queue

import (
	"fmt"
	"io"

	"github.com/sluiceml/sluice/tensor"
)

// closedError is an enqueue into a closed queue.
func (q *core) closedError() error {
	return fmt.Errorf("%s '%s' is closed.: %w", q.closedKind(true), q.name, ErrClosed)
}

// eofError is TensorFlow's OutOfRange for a dequeue that a closed queue
// cannot serve; single tells a Dequeue from a DequeueMany or DequeueUpTo.
func (q *core) eofError(requested, size int, single bool) error {
	return fmt.Errorf("%s '%s' is closed and has insufficient elements (requested %d, current size %d): %w",
		q.closedKind(single), q.name, requested, size, io.EOF)
}

// closedKind is the kind a closed-queue message names. TensorFlow's
// PaddingFIFOQueue is a FIFOQueue that pads batches: its enqueues and
// single dequeues are the FIFOQueue's, and say "FIFOQueue"; only its own
// DequeueMany and DequeueUpTo (inherited is false) say "PaddingFIFOQueue".
func (q *core) closedKind(inherited bool) string {
	if q.kind == "PaddingFIFOQueue" && inherited {
		return "FIFOQueue"
	}
	return q.kind
}

func cancelledError(op string, cause error) error {
	return fmt.Errorf("%s operation was cancelled: %w", op, cause)
}

// buildError is a queue that cannot be made or used as asked, TensorFlow's
// ValueError at graph construction. It matches ErrInvalidArgument.
type buildError struct{ msg string }

func (e *buildError) Error() string        { return e.msg }
func (e *buildError) Is(target error) bool { return target == ErrInvalidArgument }

func buildErrorf(format string, args ...any) error {
	return &buildError{"queue: " + fmt.Sprintf(format, args...)}
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
}

// checkElement validates one element against the queue's components.
func (q *core) checkElement(e Element) error {
	if len(e) != len(q.dtypes) {
		return invalidf("Wrong number of components in tuple. Expected %d, got %d", len(q.dtypes), len(e))
	}
	for i, t := range e {
		if t.DType() != q.dtypes[i] {
			return invalidf("Type mismatch in tuple component %d. Expected %s, got %s", i, q.dtypes[i].TFName(), t.DType().TFName())
		}
		if q.shapes != nil && !q.shapes[i].IsCompatibleWith(t.Shape()) {
			return invalidf("Shape mismatch in tuple component %d. Expected %v, got %v", i, q.shapes[i], t.Shape())
		}
	}
	// PRI-05: the priority is a scalar even when no shapes were declared,
	// since the queue reads it to order the element.
	if q.priority && e[0].Rank() != 0 {
		return invalidf("Shape mismatch in tuple component 0. Expected [], got %v", e[0].Shape())
	}
	return nil
}

// checkBatch validates a batch for EnqueueMany and returns its size. As
// TensorFlow's ValidateManyTuple does, it takes the batch size from
// component 0 and, with declared shapes, expects [batch]+shape of every
// component; without them it only requires the same dimension 0.
func (q *core) checkBatch(b Element) (int, error) {
	if len(b) != len(q.dtypes) {
		return 0, invalidf("Wrong number of components in tuple. Expected %d, got %d", len(q.dtypes), len(b))
	}
	for i, t := range b {
		if t.DType() != q.dtypes[i] {
			return 0, invalidf("Type mismatch in tuple component %d. Expected %s, got %s", i, q.dtypes[i].TFName(), t.DType().TFName())
		}
		if t.Rank() == 0 {
			return 0, invalidf("Shape mismatch in tuple component %d. Expected [?%s, got %v: enqueue_many needs a batch dimension",
				i, shapeTail(q, i), t.Shape())
		}
	}
	n := b[0].Len()
	for i, t := range b {
		switch {
		case q.shapes != nil:
			// [n] + the declared shape, compared without making it.
			if ts := t.Shape(); ts[0] != n || !q.shapes[i].IsCompatibleWith(ts[1:]) {
				return 0, invalidf("Shape mismatch in tuple component %d. Expected %v, got %v", i, q.shapes[i].Prepend(n), ts)
			}
		case t.Len() != n:
			return 0, invalidf("All input tensors must have the same size in the 0th dimension. Component %d has %d, and should have %d", i, t.Len(), n)
		}
	}
	if q.priority && b[0].Rank() != 1 {
		return 0, invalidf("Shape mismatch in tuple component 0. Expected [%d], got %v", n, b[0].Shape())
	}
	return n, nil
}

func shapeTail(q *core, i int) string {
	if q.shapes == nil {
		return "]"
	}
	s := q.shapes[i].String()
	if len(q.shapes[i]) == 0 {
		return "]"
	}
	return "," + s[1:]
}

// emptyBatch is a batch of zero elements for DequeueMany(0).
func (q *core) emptyBatch() Element {
	out := make(Element, len(q.dtypes))
	for i, d := range q.dtypes {
		shape := q.shapes[i].Clone()
		for j := range shape {
			if shape[j] < 0 {
				shape[j] = 0
			}
		}
		out[i] = tensor.Zeros(d, shape.Prepend(0))
	}
	return out
}
