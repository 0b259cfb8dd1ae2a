package sample

import (
	"fmt"

	"github.com/sluiceml/sluice/queue"
)

// invalidf is an error wrapping queue.ErrInvalidArgument, for bad
// probabilities, rates, labels and options: TensorFlow's InvalidArgument
// and ValueError.
func invalidf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, queue.ErrInvalidArgument)...)
}
