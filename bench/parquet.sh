#!/usr/bin/env bash
# Parquet to TFRecord side by side: sluice convert --from parquet against
# pyarrow + tf.train.Example + tf.io.TFRecordWriter, alternated rounds
# (bench/py/parquetconvert.py). Needs SLUICE_BENCH_VENV (default
# build/bench-venv) with pyarrow and tensorflow-cpu.
#
#   bash bench/parquet.sh --rows 200000 --rounds 3
#   bash bench/parquet.sh --export --rows 200000 --rounds 3   # TFRecord to Parquet: sluice convert
#       --to parquet against tf.data + tf.train.Example + pyarrow
#   bash bench/parquet.sh --read --rows 2000000 --rounds 3   # reading into batches from Python:
#       sluice.examples(format="parquet") against pyarrow's iter_batches (bench/py/parquetread.py)
set -euo pipefail
cd "$(dirname "$0")/.."
py=${SLUICE_BENCH_VENV:-build/bench-venv}/bin/python
mkdir -p build/parquet-bench
go build -o build/parquet-bench/sluice ./cmd/sluice
if [ "${1:-}" = --read ]; then
	shift
	rows=200000 rounds=3
	while [ $# -gt 0 ]; do
		case "$1" in
		--rows) rows=$2; shift ;;
		--rounds) rounds=$2; shift ;;
		esac
		shift
	done
	go build -o build/parquet-bench/sluice-serve ./cmd/sluice-serve
	"$py" -c "import sys; sys.path.insert(0, 'bench/py'); import parquetconvert as p, os; f='build/parquet-bench/rows-$rows.parquet'; os.path.exists(f) or p.gen(f, $rows)"
	SLUICE_SERVE=$PWD/build/parquet-bench/sluice-serve PYTHONPATH=$PWD/python/src \
		exec "$py" bench/py/parquetread.py --file "build/parquet-bench/rows-$rows.parquet" --rounds "$rounds"
fi
exec "$py" bench/py/parquetconvert.py --sluice build/parquet-bench/sluice --dir build/parquet-bench "$@"
