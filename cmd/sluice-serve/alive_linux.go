package main

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// A process is a pid the server watches, with the time it started, where
// /proc gives it: a pid another process took after this one died is not
// this one.
type process struct {
	pid   int
	start string
}

// watch returns pid's process as it is now.
func watch(pid int) process {
	_, start, _ := procStat(pid)
	return process{pid: pid, start: start}
}

// alive reports whether p is still running: a zombie, killed and not yet
// reaped by its parent, is not (audit 91: a trainer whose launcher did
// not reap it kept its workers' servers alive), nor is another process
// that has its pid.
func (p process) alive() bool {
	state, start, ok := procStat(p.pid)
	if !ok {
		// No /proc (or no such process): ask the kernel.
		err := syscall.Kill(p.pid, 0)
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	return state != 'Z' && state != 'X' && (p.start == "" || start == p.start)
}

// procStat returns process pid's state and start time (fields 3 and 22 of
// /proc/PID/stat), and whether it could read them.
func procStat(pid int) (state byte, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	// The command name, field 2, is in parentheses and may hold any
	// byte: the fields after it follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, "", false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, "", false
	}
	return f[0][0], string(f[19]), true
}
