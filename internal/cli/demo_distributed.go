package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

func init() { demoCmds = append(demoCmds, newDemoDistributedCmd) }

// errDistributedMoved is what `sluice demo distributed` says: the demo
// embeds a NATS server and an S3-protocol server (internal/distdemo), and
// linking them here would make everyone who builds sluice download and
// compile them, so the demo is a command of its own.
var errDistributedMoved = errors.New("demo distributed is its own command: go run github.com/sluiceml/sluice/cmd/sluice-demo-distributed@latest (in a clone: go run ./cmd/sluice-demo-distributed)")

func newDemoDistributedCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "distributed",
		Short: "Moved to its own command, sluice-demo-distributed",
		// The old flags (--workers, --shards, ...) get the pointer too,
		// not an "unknown flag" error.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return errDistributedMoved
		},
	}
}
