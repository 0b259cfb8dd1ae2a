package cli

import (
	"strings"
	"testing"
)

// sluice help names a command's help, and fails as any usage error does
// on a command that does not exist (cobra's printed "Unknown help topic"
// and succeeded).
func TestHelpTopics(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"help"}, 0, "Start with `sluice demo`", ""},
		{[]string{"help", "count"}, 0, "count prints the number of records", ""},
		{[]string{"help", "demo", "sequence"}, 0, "demo sequence runs", ""},
		{[]string{"help", "bogus"}, 1, "", `no command "bogus"`},
		{[]string{"help", "count", "nosuch"}, 1, "", `no command "count nosuch"`},
		{[]string{"help", "demo", "nosuch"}, 1, "", `no command "demo nosuch"`},
	}
	for _, c := range cases {
		code, stdout, stderr := run(t, c.args...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%q: exit %d, stdout %.80q, stderr %q", c.args, code, stdout, stderr)
		}
	}
}
