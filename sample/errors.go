package sample

import (
	"errors"
	"fmt"
)

// ErrInvalidArgument marks bad probabilities, rates, labels and options:
// TensorFlow's InvalidArgument and ValueError.
var ErrInvalidArgument = errors.New("invalid argument")

func invalidf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrInvalidArgument)...)
}
