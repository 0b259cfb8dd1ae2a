package bucket

import (
	"fmt"

	"github.com/sluiceml/sluice/queue"
)

// Errors callers test for with errors.Is.
var (
	// ErrBucketRange reports a step that chose a bucket outside
	// [0, numBuckets). It wraps queue.ErrInvalidArgument, as every error
	// about a stage built with invalid arguments (TensorFlow's ValueError)
	// or an example the stage cannot take does. TensorFlow drops such
	// an example silently (no bucket's enqueue condition holds); see the
	// package documentation.
	ErrBucketRange = fmt.Errorf("bucket id out of range: %w", queue.ErrInvalidArgument)
)

// End of input is the queue package's: Next reports it with an error for
// which errors.Is(err, io.EOF) holds.

// invalidf is an error wrapping queue.ErrInvalidArgument with the given message, which keeps
// TensorFlow's text where TensorFlow has one.
func invalidf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, queue.ErrInvalidArgument)...)
}

// rangeError is the error for bucket id out of a stage's n buckets.
func rangeError(stage string, id, n int) error {
	return fmt.Errorf("bucket: stage %q: bucket id %d is not in [0, %d) (%d buckets): %w", stage, id, n, n, ErrBucketRange)
}
