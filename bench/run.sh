#!/usr/bin/env bash
# Side-by-side benchmark: sluice, TensorFlow 2.21's tf.compat.v1 queue
# pipeline, tf.data and PyTorch's DataLoader on the same generated files, in
# one session; writes BENCHMARKS.md. See bench/README.md.
#
#   bash bench/run.sh            # full run (about 7 minutes on 2 cores), writes BENCHMARKS.md
#   bash bench/run.sh --quick    # a tenth of the data, 3 runs (about 3 minutes), writes build/bench-results-quick/BENCHMARKS.md
#
# Options: --runs N, --out FILE. Environment: SLUICE_BENCH_VENV (default
# build/bench-venv) is the virtual environment of the Python peers, created
# and filled from PyPI when it lacks them (tensorflow-cpu==2.21.0, torch,
# tfrecord); SLUICE_BENCH_PYTHON is the Python that creates it (python3).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=full runs=5 out=BENCHMARKS.md
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) mode=quick runs=3 out=build/bench-results-quick/BENCHMARKS.md ;;
	--runs) runs=$2; shift ;;
	--out) out=$2; shift ;;
	*) echo "usage: bash bench/run.sh [--quick] [--runs N] [--out FILE]" >&2; exit 2 ;;
	esac
	shift
done
[ "$mode" = quick ] && [ "$out" = BENCHMARKS.md ] && out=build/bench-results-quick/BENCHMARKS.md

data=build/bench-data results=build/bench-results genflags=
if [ "$mode" = quick ]; then
	data=build/bench-data-quick results=build/bench-results-quick genflags=-quick
fi
venv=${SLUICE_BENCH_VENV:-build/bench-venv}
py=$venv/bin/python
log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The Python peers. PyPI's Linux torch wheel is the CUDA build and pulls
# about 4 GB of NVIDIA libraries; PyPI has no CPU-only torch wheel (that one
# lives on PyTorch's own index), so this is what installing from PyPI costs.
# tfrecord registers its own copy of the Example protos, which clashes with
# TensorFlow's in one process, so each side is checked in its own.
if ! { "$py" -c 'import tensorflow' && "$py" -c 'import torch, tfrecord'; } >/dev/null 2>&1; then
	log "installing the Python peers into $venv (tensorflow-cpu 2.21.0, torch, tfrecord; several GB)"
	[ -x "$py" ] || "${SLUICE_BENCH_PYTHON:-python3}" -m venv "$venv"
	"$py" -m pip install -q --upgrade pip
	"$py" -m pip install -q --progress-bar off tensorflow-cpu==2.21.0 torch tfrecord numpy
fi

log "building sluicebench"
mkdir -p build
go build -o build/sluicebench ./bench/cmd/sluicebench
log "generating the data sets in $data"
build/sluicebench gen -data "$data" $genflags

rm -rf "$results"
mkdir -p "$results"
cat >"$results/meta.json" <<JSON
{"date": "$(date -u +%Y-%m-%dT%H:%MZ)", "commit": "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)",
 "mode": "$mode", "runs": $runs, "python": "$("$py" -c 'import platform; print(platform.python_version())')",
 "go": "$(go env GOVERSION)", "kernel": "Linux $(uname -r)"}
JSON

main="framing-100B framing-100KB mnist small10 csv cifar seed"
scaling="framing-1KB framing-10KB files-1 files-4 files-16"

for w in $main $scaling; do
	for cores in 2 1; do
		log "sluice $w, GOMAXPROCS=$cores"
		GOMAXPROCS=$cores build/sluicebench -workload "$w" -data "$data" -runs "$runs" -json >>"$results/sluice.jsonl"
	done
done
export TF_CPP_MIN_LOG_LEVEL=2
for w in $main; do
	log "tf-queue $w"
	"$py" bench/py/tfqueue.py --workload "$w" --data "$data" --runs "$runs" >>"$results/tf-queue.jsonl" 2>>"$results/tf-queue.log"
	log "tf.data $w"
	"$py" bench/py/tfdata.py --workload "$w" --data "$data" --runs "$runs" >>"$results/tf-data.jsonl" 2>>"$results/tf-data.log"
	case "$w" in csv | cifar) continue ;; esac
	for workers in 0 2; do
		log "torch DataLoader, $workers workers, $w"
		"$py" bench/py/torchloader.py --workload "$w" --workers "$workers" --data "$data" --runs "$runs" \
			>>"$results/torch-w$workers.jsonl" 2>>"$results/torch.log"
	done
done

log "writing $out"
go run ./bench/report -results "$results" -out "$out"
log "done"
