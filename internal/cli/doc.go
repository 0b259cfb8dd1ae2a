// Package cli is the sluice command line. [Main] is the whole program with
// its arguments and output streams passed in, so every command is tested
// through the same entry point the binary uses, without a subprocess.
//
// The everyday data tools work on TFRecord files, streaming them record by
// record:
//
//	sluice cat FILE...      every record as one JSON object per line
//	sluice head FILE...     the first records (cat --limit 10)
//	sluice count FILE...    records per file and in total
//	sluice schema FILE...   each feature's kind and counts, and the parse spec
//	sluice stats FILE...    each feature's values: range, mean, NaNs, most common
//	sluice verify FILE...   check every CRC; name each corrupt record
//	sluice convert IN...    CSV, JSON lines (plain objects, or cat's), MNIST IDX, CIFAR-10 or TFRecord → TFRecord
//
// The demos run the system end to end on data they generate: `sluice demo`
// (internal/demo) and `sluice demo sequence` (internal/seqdemo); the
// distributed demo is its own command, cmd/sluice-demo-distributed.
//
// Every FILE argument is a name or a glob (expanded with storage.Glob; a
// pattern that matches nothing is an error naming it), local or an
// object-store URL for the schemes the program registered in package
// storage (cmd/sluice registers storage/blobfs's; the Python package's
// build of the command, in cmd/sluice-serve, only with -tags objectstore,
// whose cloud SDKs would make every wheel 40 MB larger), and compression is
// detected from each file's first bytes unless --compression names it.
// Errors are one line naming the file and byte offset, and the exit code
// is non-zero. With --metrics-addr, a command serves Prometheus metrics
// (records, bytes, errors, and the queues of any pipeline it runs) while
// it runs, and with --pprof net/http/pprof too; ":PORT" listens on every
// interface, "localhost:PORT" on this machine only.
package cli
