package sequence

import (
	"errors"
	"fmt"

	"github.com/sluiceml/sluice/queue"
)

// Errors callers test for with errors.Is.
var (
	// ErrUnknownState reports a state name that was not among the initial
	// states (TensorFlow's KeyError "state was not declared: <name>").
	ErrUnknownState = errors.New("sequence: unknown state")
)

// The end of input and closed-saver conditions are the queue package's:
// Next reports end of input with an error for which errors.Is(err, io.EOF)
// holds, Prefetch on a closed state saver fails with queue.ErrClosed, and a
// Prefetch blocked on capacity when the saver is closed with CloseNow fails
// with queue.ErrCancelled.

// exampleError is an error about one input example: it names the key.
func exampleError(key string, err error) error {
	return fmt.Errorf("sequence: example %q: %w", key, err)
}

// invalidf is an error wrapping queue.ErrInvalidArgument, with
// TensorFlow's message text: a state saver built with invalid options, an
// example that cannot be segmented (TensorFlow's InvalidArgument and
// ValueError), or a state saved with the wrong type or shape. Errors from
// the barrier underneath wrap the same sentinel.
func invalidf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, queue.ErrInvalidArgument)...)
}
