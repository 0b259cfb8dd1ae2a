// Package machine holds benchmarks of the machine rather than of sluice:
// how a compute-bound loop, a streaming copy and the shuffle buffer's random
// row copies scale from one core to two. They say what scaling the seed
// pipeline can expect on a given machine, because its own limit on two cores
// is the memory traffic of those copies (ARCHITECTURE.md, "Two cores").
// Two more price what the Python hand-off pays beyond Go's front door: a
// thread's sleep and wake-up, on one core and across two (BenchmarkWakeup),
// and writing batches into more slots in turn (BenchmarkSlotRows).
//
// Run them with each core count in turn, interleaved:
//
//	go test -run '^$' -bench . -cpu 1,2,1,2,1,2 ./bench/machine
package machine
