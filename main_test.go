package sluice

import (
	"testing"

	"go.uber.org/goleak"
)

// Every Batches loop starts goroutines; none may outlive it, however the
// loop ends (end of input, break, error, cancelled context).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
