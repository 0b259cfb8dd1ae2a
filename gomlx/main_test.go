package gomlx

import (
	"testing"

	"go.uber.org/goleak"
)

// Each pass of a Dataset runs a sluice loop's goroutines; none may outlive
// Reset, Close, the end of the pass or its error.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
