// Command sluicebench is the sluice side of the side-by-side benchmark in
// bench/: it writes the data sets every system reads (sluicebench gen) and
// times sluice on each workload, printing one JSON line per run in the same
// form as the Python scripts in bench/py, so bench/report can put all of
// them in one table.
//
// Usage:
//
//	sluicebench gen -data DIR [-quick]
//	sluicebench -workload NAME -data DIR [-runs N] [-json]
//	sluicebench -list
//
// The generated files are deterministic (a fixed seed), so every system and
// every run reads the same bytes. -mode api and api-reuse read every
// workload through the sluice package as a user writes it (sluice.Records,
// Examples, CSV, FixedLengthRecords and their Batches). -mode lib, the
// hand-tuned library path: workloads 1 to 5 run the library packages
// directly (tfrecord, example, decode) in one goroutine per GOMAXPROCS, each
// taking whole files, as tf.data's parallel map does; the seed pipeline
// (workload 6) runs the input package's queues and runners exactly as the
// seed guide's input_pipeline describes.
package main
