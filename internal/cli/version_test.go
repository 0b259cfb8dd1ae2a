package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	code, out, errOut := run(t, "--version")
	if code != 0 || out != "sluice version "+version()+"\n" || errOut != "" {
		t.Errorf("--version: exit %d, %q %q", code, out, errOut)
	}
}

func TestVersionOf(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "a44b7d8ce98e6446c99bdf0f90378a485bcd306e"
	for _, tc := range []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"release", "v1.2.3", nil, "v1.2.3"},
		// go install of a release ignores any VCS settings.
		{"release with vcs", "v1.2.3", vcs("vcs.revision", rev), "v1.2.3"},
		// Go 1.24 and later stamp a checkout's build with a pseudo-version.
		{"pseudo-version", "v0.0.0-20261124030032-a44b7d8ce98e+dirty", vcs("vcs.revision", rev, "vcs.modified", "true"),
			"v0.0.0-20261124030032-a44b7d8ce98e+dirty"},
		{"devel with vcs", "(devel)", vcs("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-24T03:00:32Z", "vcs.modified", "false"),
			"(devel) " + rev + " 2026-11-24T03:00:32Z"},
		{"devel modified", "(devel)", vcs("vcs.revision", rev, "vcs.time", "2026-11-24T03:00:32Z", "vcs.modified", "true"),
			"(devel) " + rev + " 2026-11-24T03:00:32Z (modified)"},
		{"devel without time", "(devel)", vcs("vcs.revision", rev), "(devel) " + rev},
		{"no vcs", "(devel)", vcs("-buildmode", "exe", "GOOS", "linux"), "(devel)"},
		{"empty version, no vcs", "", nil, "(devel)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/sluiceml/sluice", Version: tc.version}, Settings: tc.settings}
			if got := versionOf(bi); got != tc.want {
				t.Errorf("versionOf = %q, want %q", got, tc.want)
			}
		})
	}
	if got := versionOf(nil); got != "unknown" {
		t.Errorf("versionOf(nil) = %q, want unknown", got)
	}
}
