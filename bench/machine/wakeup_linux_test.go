package machine

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkWakeup passes a byte back and forth between two threads over a
// pair of pipes, each thread sleeping in read(2) until the other writes:
// one op is a round trip, two sleeps and two wake-ups. With both threads
// on one core a wake-up is a switch on that core; on two, the writer's
// core must interrupt the sleeper's, idle and halted, which on a virtual
// machine costs an exit to the host. A process beside another (the
// Python trainer and sluice-serve) pays the same as a thread: the cost
// is the core's, not the address space's. Besides ns/op it reports the
// CPU time the two threads took per round trip (cpu-ns/op).
func BenchmarkWakeup(b *testing.B) {
	if runtime.NumCPU() < 2 {
		b.Skip("needs two cores")
	}
	for _, c := range []struct {
		name  string
		cores [2]int
	}{{"same-core", [2]int{0, 0}}, {"cross-core", [2]int{0, 1}}} {
		b.Run(c.name, func(b *testing.B) { pingPong(b, c.cores) })
	}
}

func pingPong(b *testing.B, cores [2]int) {
	var ab, ba [2]int
	if err := unix.Pipe(ab[:]); err != nil {
		b.Fatal(err)
	}
	if err := unix.Pipe(ba[:]); err != nil {
		b.Fatal(err)
	}
	defer func() {
		for _, fd := range []int{ab[0], ab[1], ba[0], ba[1]} {
			unix.Close(fd)
		}
	}()
	// The peer answers until its pipe is closed: raw fds, blocking, so
	// that each read sleeps in the kernel rather than in Go's poller.
	done := make(chan error, 1)
	go func() {
		done <- onCore(cores[1], func() error {
			var c [1]byte
			for {
				if n, err := unix.Read(ab[0], c[:]); n != 1 || err != nil {
					return err
				}
				if _, err := unix.Write(ba[1], c[:]); err != nil {
					return err
				}
			}
		})
	}()
	err := onCore(cores[0], func() error {
		var c [1]byte
		cpu0 := cpuTime()
		b.ResetTimer()
		for b.Loop() {
			if _, err := unix.Write(ab[1], c[:]); err != nil {
				return err
			}
			if _, err := unix.Read(ba[0], c[:]); err != nil {
				return err
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	unix.Close(ab[1]) // the peer's read returns 0
	ab[1] = -1
	<-done
}

// onCore runs f on a thread of its own bound to the core, and unbinds the
// thread after.
func onCore(core int, f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return err
	}
	set.Set(core)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return err
	}
	defer unix.SchedSetaffinity(0, &old)
	return f()
}

// cpuTime is the process's user and system time.
func cpuTime() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
