package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/sluiceml/sluice/dataerr"
	"github.com/sluiceml/sluice/storage"
)

// atLeast checks that each named int flag of cmd is at least min, so that a
// size of zero or less is refused in the command's own words rather than by
// whatever deep in a pipeline first trips over it.
func atLeast(cmd *cobra.Command, min int, flags ...string) error {
	for _, name := range flags {
		v, err := cmd.Flags().GetInt(name)
		if err != nil {
			return err
		}
		if v < min {
			return fmt.Errorf("--%s must be at least %d, not %d", name, min, v)
		}
	}
	return nil
}

// atMost checks that cmd's int flags are at most max: a number beyond any
// use (a slip of the keyboard) would size memory or goroutines before a
// record is read (bench --batch 2147483647 asked for 16 GiB and ended the
// process, audit 114).
func atMost(cmd *cobra.Command, max int, flags ...string) error {
	for _, name := range flags {
		v, err := cmd.Flags().GetInt(name)
		if err != nil {
			return err
		}
		if v > max {
			return fmt.Errorf("--%s must be at most %d, not %d", name, max, v)
		}
	}
	return nil
}

// checkLimit checks cmd's --limit: -1 reads everything, and any other
// negative number, such as head -n -5 (GNU head's "all but the last 5"),
// would read everything too, silently, rather than what was meant.
func checkLimit(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("limit")
	if f == nil {
		return nil
	}
	n, err := cmd.Flags().GetInt("limit")
	if err != nil {
		return err
	}
	if n < -1 {
		name := "--limit"
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + " (--limit)"
		}
		return fmt.Errorf("%s must be a count of records, or -1 for all, not %d", name, n)
	}
	return nil
}

// errIsDirectory is returned for a name that is a local directory: the
// commands read files, and "is a directory" reported as a corrupt record
// or an open error leaves the user to guess what to type instead.
var errIsDirectory = errors.New("is a directory")

// checkNotDirectory returns an error if name is a local directory.
func checkNotDirectory(name string) error {
	if isStdin(name) || strings.Contains(name, "://") {
		return nil
	}
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: %w; name the files in it (for example '%s/*.tfrecord*')", name, errIsDirectory, strings.TrimSuffix(name, "/"))
	}
	return nil
}

// withHint adds to err what the user can do about it, where the cause is
// a known one: an object store's client that found no region or no
// credentials in the environment, a build without object stores, or a
// damaged TFRecord file, which convert --skip-corrupt salvages.
func withHint(err error) error {
	if err == nil {
		return nil
	}
	s := err.Error()
	switch {
	case errors.Is(err, storage.ErrUnsupportedScheme) && !objectStores():
		return fmt.Errorf("%w (this build of sluice reads local files only: the Python package's command reads s3://, gs:// and azblob:// names when installed with SLUICE_GO_TAGS=objectstore, and the Go command, go install github.com/sluiceml/sluice/cmd/sluice@latest, always)", err)
	// The AWS SDK says "Invalid region" when the region is empty (it
	// builds a host name from it), "A region must be set" when it checks
	// first, and "MissingRegion" in older paths.
	case strings.Contains(s, "Invalid region") || strings.Contains(s, "region must be set") ||
		strings.Contains(s, "MissingRegion") || strings.Contains(s, "could not find region"):
		return fmt.Errorf("%w (no AWS region is configured: set AWS_REGION, e.g. AWS_REGION=us-east-1)", err)
	case strings.Contains(s, "get credentials:") && strings.Contains(s, "S3"):
		return fmt.Errorf("%w (no AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)", err)
	case isDamage(err) && !strings.Contains(s, "starts like"):
		// Damage, not a compressed file read as NONE or another format
		// (whose hints say so).
		file := "FILE"
		if de, ok := errors.AsType[*dataerr.Error](err); ok && de.File != "" && !strings.ContainsAny(de.File, " '\"") {
			file = de.File
		}
		return fmt.Errorf("%w (sluice verify %s lists the damaged records; sluice convert --skip-corrupt %s --out NEW copies the others)", err, file, file)
	}
	return err
}

// objectStores reports whether the program registered the object stores
// (cmd/sluice does; the Python package's build of the command does not by
// default).
func objectStores() bool {
	_, ok := storage.Registered("s3")
	return ok
}
