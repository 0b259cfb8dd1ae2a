#!/usr/bin/env bash
# Parquet to TFRecord side by side: sluice convert --from parquet against
# pyarrow + tf.train.Example + tf.io.TFRecordWriter, alternated rounds
# (bench/py/parquetconvert.py). Needs SLUICE_BENCH_VENV (default
# build/bench-venv) with pyarrow and tensorflow-cpu.
#
#   bash bench/parquet.sh --rows 200000 --rounds 3
set -euo pipefail
cd "$(dirname "$0")/.."
py=${SLUICE_BENCH_VENV:-build/bench-venv}/bin/python
mkdir -p build/parquet-bench
go build -o build/parquet-bench/sluice ./cmd/sluice
exec "$py" bench/py/parquetconvert.py --sluice build/parquet-bench/sluice --dir build/parquet-bench "$@"
