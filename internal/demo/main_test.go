package demo

import (
	"context"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// killChildEnv names the checkpoint folder of a child process that
// trains until its second checkpoint and then hangs, to be killed
// (TestResumeAfterKill).
const killChildEnv = "SLUICE_DEMO_KILL_CHILD"

// Every run stops its pipelines: no goroutine may outlive a test.
func TestMain(m *testing.M) {
	if dir := os.Getenv(killChildEnv); dir != "" {
		cfg := resumableConfig(dir)
		cfg.onCheckpoint = func(step int) {
			if step >= 2*cfg.CheckpointEvery {
				fmt.Println("checkpointed", step)
				select {} // wait for SIGKILL
			}
		}
		_, err := Run(context.Background(), cfg)
		fmt.Fprintln(os.Stderr, "child ended:", err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m)
}
