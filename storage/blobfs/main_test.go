package blobfs_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test closes its files, FS, clients' idle connections and
// servers, so no goroutine may outlive the tests: readahead fetches in
// particular must end with Close.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
