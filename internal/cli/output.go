package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// An outputFlag is the --output (-o) flag of a command that prints a
// report, and --json, its shorthand for --output json: the same two
// flags on schema, count and verify.
type outputFlag struct {
	value   string
	json    bool
	choices []string
	cmd     *cobra.Command
}

// addOutputFlag adds --output, choosing among choices (the first is the
// default), and --json to cmd.
func addOutputFlag(cmd *cobra.Command, choices ...string) *outputFlag {
	f := cmd.Flags()
	o := &outputFlag{choices: choices, cmd: cmd}
	f.StringVarP(&o.value, "output", "o", choices[0], choicesHelp(choices))
	f.BoolVar(&o.json, "json", false, "print the report as one JSON document (--output json)")
	return o
}

// choicesHelp lists choices as "a, b or c".
func choicesHelp(choices []string) string {
	if len(choices) == 1 {
		return choices[0]
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

// get returns the output asked for, refusing a value not among the
// choices and --json with another --output.
func (o *outputFlag) get() (string, error) {
	if !slices.Contains(o.choices, o.value) {
		return "", fmt.Errorf("--output must be %s, not %q", choicesHelp(o.choices), o.value)
	}
	if o.json {
		if o.cmd.Flags().Changed("output") && o.value != "json" {
			return "", fmt.Errorf("--json asks for --output json, not %s", o.value)
		}
		return "json", nil
	}
	return o.value, nil
}

// writeJSON writes v as schema --output json does: one indented document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// fileList names the files a command wrote, for its summary line: all of
// them up to four, else the first two, the last and the count, so that
// --shards 1024 does not print a line of 60 KB.
func fileList(names []string) string {
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, %s, ..., %s (%d files)", names[0], names[1], names[len(names)-1], len(names))
}
