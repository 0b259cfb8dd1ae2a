package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/sluiceml/sluice/internal/interrupt"
	"github.com/sluiceml/sluice/storage"
)

// Main runs the command line args (without the program name) and returns
// the process exit code: 0 on success, 1 on any error, which is printed to
// stderr as one line; a write to stdout that failed is an error, though
// the command went on. A command whose context a signal cancelled (see
// [Run]) says "interrupted" instead and returns 128 plus the signal's
// number, whatever the command returned; if it returned nil, the signal
// came after its output was complete (during the renames that publish
// it, which go ahead), and it says so; if its error says something was
// left behind (a temporary, say), it prints the error too.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out := newStdout(ctx, stdout)
	root := newRootCmd(out, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if werr := out.Err(); err == nil && werr != nil {
		// The command's output was lost, though the command (or cobra,
		// printing help) did not say so.
		err = fmt.Errorf("writing the output: %w", werr)
	}
	if in, ok := interrupt.Cause(ctx); ok {
		switch {
		case err == nil:
			fmt.Fprintln(stderr, "sluice: interrupted, after the command had finished")
		case leftBehind(err):
			fmt.Fprintf(stderr, "sluice: interrupted: %v\n", err)
		default:
			fmt.Fprintln(stderr, "sluice: interrupted")
		}
		return in.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(stderr, "sluice: %v\n", withHint(err))
		return 1
	}
	return 0
}

// leftBehind reports whether err says that something was left on disk or
// in the store, which an interrupted command says rather than only that
// it was interrupted: a temporary that could not be removed, or an output
// renamed but not made durable.
func leftBehind(err error) bool {
	return errors.Is(err, storage.ErrTempLeft) || errors.Is(err, storage.ErrOldNameLeft) || errors.Is(err, storage.ErrNotDurable)
}

// rootCmds builds the subcommands of the root, one constructor each.
//
// This is the hook for commands defined elsewhere in the package: a file
// adds its constructor here, or from its own init function
// (func init() { rootCmds = append(rootCmds, newXCmd) }). The demo and
// bench commands (demo*.go, bench*.go) are listed directly. Constructors
// are called once per Main, so flag values never leak between runs.
var rootCmds = []func() *cobra.Command{
	newDemoCmd,
	newCatCmd,
	newHeadCmd,
	newCountCmd,
	newSchemaCmd,
	newStatsCmd,
	newVerifyCmd,
	newConvertCmd,
	newBenchCmd,
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Version: version(),
		Use:     "sluice",
		Short:   "TensorFlow's queue-based input pipeline, in Go, and tools for TFRecord data",
		Long: `sluice reads, writes, converts and checks TFRecord data and runs input
pipelines. Start with ` + "`sluice demo`" + `.

File arguments are names or glob patterns; compression (GZIP, ZLIB, ZSTD) is
detected from each file unless --compression names it. A pattern leaves out
the temporaries of interrupted writes (.NAME.sluice-tmp-...) unless its last
part starts with a dot.`,
		// The files sluice demo --dir data writes.
		Example: "  sluice count 'data/train-*.tfrecord.gz'\n" +
			"  sluice cat --limit 2 --keys data/train-00000-of-00008.tfrecord.gz",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("metrics-addr", "", "serve Prometheus metrics at this address while the command runs (localhost:PORT; :PORT listens on every interface)")
	root.PersistentFlags().Bool("pprof", false, "with --metrics-addr, serve net/http/pprof at /debug/pprof/ too")
	root.PersistentFlags().Int64("max-record-size", defaultMaxRecordSize, maxRecordSizeUsage)
	root.PersistentPreRunE = setReadSettings
	root.SetOut(stdout)
	root.SetErr(stderr)
	for _, c := range rootCmds {
		root.AddCommand(c())
	}
	// cobra's help command prints "Unknown help topic" for a command that
	// does not exist and succeeds; a usage error fails, as everywhere else.
	root.InitDefaultHelpCmd()
	for _, help := range root.Commands() {
		if help.Name() == "help" && help.Run != nil {
			run := help.Run
			help.Run = nil
			help.RunE = func(cmd *cobra.Command, args []string) error {
				// Find takes words it does not know after a command
				// for the command's arguments (help count nosuch).
				if topic, rest, err := root.Find(args); topic == nil || err != nil || len(rest) > 0 {
					return fmt.Errorf("no command %q: sluice help lists the commands", strings.Join(args, " "))
				}
				run(cmd, args)
				return nil
			}
		}
	}
	return root
}

// isTerminal reports whether w is a terminal, where a live progress line
// can be rewritten in place. It is a variable so that tests can show
// what a terminal would get.
var isTerminal = isTTY

// isTTY reports whether w, or the writer a stdout writes to, is a
// terminal: not merely a character device, as /dev/null and /dev/full
// are, whose progress lines the help promises not to write (audit 110).
func isTTY(w io.Writer) bool {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	// Through the raw descriptor: Fd would put a pipe the runtime polls
	// back into blocking mode.
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	if err := rc.Control(func(fd uintptr) { tty = term.IsTerminal(int(fd)) }); err != nil {
		return false
	}
	return tty
}
