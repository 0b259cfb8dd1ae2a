// Package cputime reads the CPU time the running process has used, for
// the benchmarks that report CPU time per example: on a shared machine it
// varies less than wall time does.
package cputime
