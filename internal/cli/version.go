package cli

import "runtime/debug"

// release is the version of a build that the go command cannot know: the
// Python package sets its own with -ldflags "-X ...cli.release=0.1.0",
// since pip builds the binary outside go install's versioning.
var release string

// version is what sluice --version prints: release if set, else from the
// build information the go command put in the binary.
func version() string {
	if release != "" {
		return release
	}
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi)
}

// versionOf describes the build bi records: the module version when built
// by go install of a release (sluice@v1.2.3), else the VCS revision and
// commit time of the checkout it was built from, marked when the work tree
// had changes. A build with neither (go run, or a go build outside a VCS
// checkout, or with -buildvcs=false) is "(devel)", which says at least
// that it is not a release.
func versionOf(bi *debug.BuildInfo) string {
	if bi == nil {
		return "unknown"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = " (modified)"
			}
		}
	}
	if rev == "" {
		return "(devel)"
	}
	v := "(devel) " + rev
	if at != "" {
		v += " " + at
	}
	return v + dirty
}
