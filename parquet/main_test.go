package parquet

import (
	"testing"

	"go.uber.org/goleak"
)

// The zstd decoder can run goroutines; pages are decoded with DecodeAll
// by a decoder of concurrency 1, which runs none, so a Rows dropped
// before its end leaves nothing behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
