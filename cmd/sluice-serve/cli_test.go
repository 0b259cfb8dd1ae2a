//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Run under the name sluice, the server binary is the sluice command line
// (the Python package's `sluice` command); under its own name it takes no
// arguments.
func TestRunAsSluice(t *testing.T) {
	data := writeExamples(t, 5, 2) // five records
	for _, tc := range []struct {
		name, argv0 string
		args        []string
		code        int
		stdout      string // a line it must print
		stderr      string
	}{
		{"count", "sluice", []string{"count", data}, 0, fmt.Sprintf("5\t%s\n", data), ""},
		{"path", "/some/where/sluice", []string{"count", data}, 0, fmt.Sprintf("5\t%s\n", data), ""},
		{"help", "sluice", nil, 0, "sluice reads, writes, converts and checks TFRecord data", ""},
		{"error", "sluice", []string{"count", data + ".missing"}, 1, "", "sluice: "},
		{"server with arguments", "sluice-serve", []string{"count", data}, 2, "", "it takes no arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := &exec.Cmd{Path: os.Args[0], Args: append([]string{tc.argv0}, tc.args...)}
			cmd.Env = append(os.Environ(), serveEnv+"=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := errors.AsType[*exec.ExitError](err); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d\nstdout %q\nstderr %q", code, stdout.String(), stderr.String())
			}
		})
	}
}
