package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/sluiceml/sluice/internal/interrupt"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// runArgs runs the command line args as the program does and returns
// its exit code, standard output and standard error.
func runArgs(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// The demo in a short mode: the workers share the queue, one is killed,
// and every example of each epoch arrives exactly once.
func TestDemoDistributed(t *testing.T) {
	code, out, errOut := runArgs(t, t.Context(), "--images", "900", "--shards", "6", "--kill-after", "20", "--ack-wait", "1s")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"epoch 1: 6 files, 900 examples",
		"epoch 2: 6 files, 900 examples",
		"was killed after 20 records of s3://sluice-demo/train-",
		"every example of every epoch delivered exactly once",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "1"}, "--workers at least 2"},
		{[]string{"extra"}, `unknown command "extra"`},
		{[]string{"--no-such-flag"}, "unknown flag: --no-such-flag"},
	} {
		code, _, errOut := runArgs(t, t.Context(), tc.args...)
		if code != 1 || !strings.HasPrefix(errOut, "sluice-demo-distributed: ") || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// A signal cancels the run: the servers stop, and the program says
// "interrupted" and exits as a shell reports the signal (143 for SIGTERM).
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(interrupt.Error{Signal: syscall.SIGTERM})
	code, _, errOut := runArgs(t, ctx, "--images", "100", "--shards", "2")
	if code != 143 || errOut != "sluice-demo-distributed: interrupted\n" {
		t.Errorf("exit %d, stderr %q; want 143 and interrupted", code, errOut)
	}
}

// A short run with no worker killed; the summary says whether every
// example arrived exactly once (the other lines hold timings and ports).
func Example() {
	var out bytes.Buffer
	code := run(context.Background(), []string{"--images", "300", "--shards", "3", "--epochs", "1", "--kill-after", "-1"}, &out, &out)
	fmt.Println("exit", code)
	for line := range strings.Lines(out.String()) {
		if strings.HasPrefix(line, "every example") {
			fmt.Print(line)
		}
	}
	// Output:
	// exit 0
	// every example of every epoch delivered exactly once among finished files: 1 epochs × 300 examples in 3 files
}
