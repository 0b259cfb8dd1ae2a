package cli

import (
	"context"
	"os"

	"github.com/sluiceml/sluice/internal/interrupt"
)

// Run runs the command line as the sluice program does: args without the
// program name, the process's standard streams, and SIGINT and SIGTERM
// cancelling the command's context (package interrupt) so that it stops,
// removes what it had not finished writing and exits 130 or 143.
func Run(args []string) int {
	ctx, stop := interrupt.Context(context.Background())
	defer stop()
	return Main(ctx, args, os.Stdout, os.Stderr)
}
