package cli

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/sluiceml/sluice/tfrecord"
)

// A file name that is not UTF-8 reaches count --json and verify --json
// whole, in "name_base64", where "name" holds U+FFFD in its bytes' place
// (audit 110: the name could not be recovered).
func TestJSONFileNamesNotUTF8(t *testing.T) {
	dir := t.TempDir()
	name := writeExamples(t, dir, "caf\xe9.tfrecord", 2, tfrecord.None)
	plain := writeExamples(t, dir, "plain.tfrecord", 1, tfrecord.None)
	for _, cmd := range []string{"count", "verify"} {
		code, stdout, stderr := run(t, cmd, "--json", name, plain)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, code, stderr)
		}
		var report struct {
			Files []struct {
				Name       string `json:"name"`
				NameBase64 string `json:"name_base64"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(stdout), &report); err != nil || len(report.Files) != 2 {
			t.Fatalf("%s: %v: %s", cmd, err, stdout)
		}
		got, err := base64.StdEncoding.DecodeString(report.Files[0].NameBase64)
		if err != nil || string(got) != name {
			t.Errorf("%s: name_base64 %q decodes to %q, want %q", cmd, report.Files[0].NameBase64, got, name)
		}
		if f := report.Files[1]; f.Name != plain || f.NameBase64 != "" {
			t.Errorf("%s: a UTF-8 name as %q, %q", cmd, f.Name, f.NameBase64)
		}
	}
}
