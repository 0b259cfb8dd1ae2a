// Command sluice-serve is the Go side of sluice's Python package. The
// package starts it as a child of the trainer and talks to it over its
// stdin and stdout (see internal/pyserve for the protocol); it is not
// meant to be run by hand.
//
// It lives exactly as long as its client: it exits when its stdin ends
// (the client closed it, or died, even by SIGKILL), when its stdout does
// (a reply finds no reader), and when its parent
// changes (the parent died and it was re-parented), within a second or
// two even while a request waits for slow input or a reply waits for the
// client; SIGTERM and SIGHUP stop it the same way, and it exits 143 or
// 129 then. The end of stdin is seen once the requests before it are
// taken: a client that closes it behind requests queued after a reply it
// does not read is ended by itself (the Python package kills a server
// that has not exited a second after its input ended) or by the watch of
// its parent, since reading on past a request not yet taken cost the
// stream a tenth of its speed (see pyserve's readRequests). It removes any
// named shared-memory files on the way out (on Linux its shared memory is
// anonymous files, which go with it). It ignores SIGINT, which a
// terminal's Ctrl-C sends to the trainer's whole process group: the
// trainer handles it and closes the server.
//
// SLUICE_SERVE_CPUPROFILE=FILE writes the server's CPU profile to FILE
// when it exits, for measuring it under a real trainer (go tool pprof).
// SLUICE_SHM_DIR makes its shared memory named files in that directory.
//
// Run under the name sluice (the Python package's `sluice` command execs
// it so), it is the sluice command line of cmd/sluice instead, reading
// object stores only when built with -tags objectstore, as the server
// does.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"syscall"
	"time"

	"github.com/sluiceml/sluice/internal/cli"
	"github.com/sluiceml/sluice/internal/interrupt"
	"github.com/sluiceml/sluice/internal/pyserve"
)

func main() {
	if filepath.Base(os.Args[0]) == "sluice" {
		// The Python package's `sluice` command runs this binary under
		// that name, as busybox's commands run busybox: a wheel carries
		// the command line without a second binary.
		os.Exit(cli.Run(os.Args[1:]))
	}
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "sluice-serve: the Go side of sluice's Python package; it takes no arguments and speaks a binary protocol on stdin and stdout (run as sluice, the package's command, it is the sluice command line)")
		os.Exit(2)
	}
	if path := os.Getenv("SLUICE_SERVE_CPUPROFILE"); path != "" {
		// For measuring the server under a real trainer: its CPU
		// profile, written when it exits.
		stop, err := startProfile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sluice-serve:", err)
			os.Exit(2)
		}
		defer stop()
	}
	// A write to a closed stdout would kill the server by SIGPIPE before
	// it removed its shared-memory files; ignored, the write fails with
	// EPIPE and Serve cleans up on its way out. A client that closes
	// while replies are on their way (requests ask for several batches)
	// is the common case.
	signal.Ignore(os.Interrupt, syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	// SIGTERM and SIGHUP stop the server as the end of its stdin does,
	// and it then exits as the sluice command does when a signal
	// interrupts it: 128 plus the signal's number (143, 129). A second
	// signal ends it at once.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sigs
		signal.Stop(sigs)
		cancel(interrupt.Error{Signal: s})
	}()
	go watchParent(cancel)
	var in io.Reader
	var out io.Writer
	var restoreIn, restoreOut func()
	if f, restore, ok := oneSocket(); ok {
		in, out, restoreIn, restoreOut = f, f, restore, func() {}
	} else {
		in, restoreIn = requests()
		out, restoreOut = replies()
	}
	err := pyserve.Serve(ctx, in, out)
	restoreIn()
	restoreOut()
	if e, ok := interrupt.Cause(ctx); ok {
		exit(e.ExitCode())
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, syscall.EPIPE) {
		fmt.Fprintln(os.Stderr, "sluice-serve:", err)
		exit(1)
	}
}

// exit runs the deferred calls of main (the profile's end) before
// os.Exit, which skips them.
var exit = os.Exit

func startProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	stop = func() {
		pprof.StopCPUProfile()
		f.Close()
	}
	exit = func(code int) {
		stop()
		os.Exit(code)
	}
	return stop, nil
}

// parentEnv names the variable in which a client gives its pid, so that
// a server whose parent died before the server looked (its parent is
// already another process: init, a subreaper) knows it. Another parent
// may be a wrapper the client ran as the server: the client's death is
// then what counts.
const parentEnv = "SLUICE_PARENT_PID"

// watchEnv names a variable with the pid of one more process whose end
// ends the server: the trainer whose DataLoader worker is the client
// (sluice.torch sets it), which a worker started by a forkserver outlives,
// its server with it (audit 90: both lived on after the trainer was
// killed).
const watchEnv = "SLUICE_WATCH_PID"

// pidIn returns the pid in environment variable name, if it holds one: a
// positive number of at most 32 bits (kill(2) would cut a larger one to
// another pid, or 0, the server's own process group: audit 94).
func pidIn(name string) (int, bool) {
	pid, err := strconv.ParseInt(os.Getenv(name), 10, 32)
	return int(pid), err == nil && pid > 0
}

// watchParent cancels when the process that started the server is gone.
// A dead client closes the server's stdin, unless a process it forked
// still holds the pipe; the parent's pid changes in any case.
func watchParent(cancel context.CancelCauseFunc) {
	ppid := os.Getppid()
	// A client other than the parent: a wrapper run as the server is the
	// parent, and outlives the client.
	var watched []process
	var names []string
	if client, ok := pidIn(parentEnv); ok && client != ppid {
		watched, names = append(watched, watch(client)), append(names, "client")
	}
	if other, ok := pidIn(watchEnv); ok {
		watched, names = append(watched, watch(other)), append(names, "process ("+watchEnv+")")
	}
	for i, p := range watched {
		if !p.alive() {
			// One that died as it started the server: the parent read
			// first was already its successor (audit 71).
			cancel(fmt.Errorf("%s %d was gone before the server started", names[i], p.pid))
			return
		}
	}
	for range time.Tick(250 * time.Millisecond) {
		if os.Getppid() != ppid {
			cancel(fmt.Errorf("parent %d is gone", ppid))
			return
		}
		for i, p := range watched {
			if !p.alive() {
				cancel(fmt.Errorf("%s %d is gone", names[i], p.pid))
				return
			}
		}
	}
}
