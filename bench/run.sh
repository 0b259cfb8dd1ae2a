#!/usr/bin/env bash
# Side-by-side benchmark: sluice, TensorFlow 2.21's tf.compat.v1 queue
# pipeline, tf.data and PyTorch's DataLoader on the same generated files, in
# one session; writes BENCHMARKS.md. See bench/README.md.
#
#   bash bench/run.sh            # full run: 5 rounds (about 50 minutes on 2 cores; --runs 3, about 30), writes BENCHMARKS.md
#   bash bench/run.sh --quick    # a tenth of the data, 3 rounds (about 10 minutes), writes build/bench-results-quick/BENCHMARKS.md
#
# The systems are interleaved: each round runs every system once on each
# workload (A B C A B C ...), so a change in the machine's load lands on all
# of them rather than on whichever ran at the time. Every run, of every
# system, is one untimed pass and then whole passes until it lasts 1 s,
# timed by wall clock and by CPU time (user + system, worker processes
# included).
#
# Options: --runs N (rounds), --out FILE. Environment: SLUICE_BENCH_VENV (default
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
if ! { "$py" -c 'import tensorflow' && "$py" -c 'import torch, tfrecord, grain, array_record'; } >/dev/null 2>&1; then
	log "installing the Python peers into $venv (tensorflow-cpu 2.21.0, torch, tfrecord, grain, array_record; several GB)"
	[ -x "$py" ] || "${SLUICE_BENCH_PYTHON:-python3}" -m venv "$venv"
	"$py" -m pip install -q --upgrade pip
	"$py" -m pip install -q --progress-bar off tensorflow-cpu==2.21.0 torch tfrecord grain array_record numpy
fi

# The sluice Python package, built from this clone (its server with Go).
log "installing the sluice Python package into $venv"
"$py" -m pip install -q --force-reinstall --no-deps ./python

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
 "go": "$(go env GOVERSION)", "kernel": "Linux $(uname -r)",
 "cpu": "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"}
JSON

main="framing-100B framing-100KB mnist small10 csv cifar seed"
scaling="framing-1KB framing-10KB files-1 files-4 files-16"
export TF_CPP_MIN_LOG_LEVEL=2

# sluice: the sluice package as a user writes it, a batch's memory its own
# (the headline, at 2 cores and 1), the same reusing batch memory (its
# default), and the hand-tuned library path.
sluice() { # workload mode cores system-file
	GOMAXPROCS=$3 build/sluicebench -workload "$1" -data "$data" -mode "$2" -runs 1 -json >>"$results/$4.jsonl"
}
for round in $(seq "$runs"); do
	for w in $main; do
		log "round $round/$runs: $w"
		sluice "$w" api 2 sluice
		sluice "$w" api 1 sluice
		sluice "$w" api-reuse 2 sluice-reuse
		sluice "$w" lib 2 sluice-lib
		case "$w" in framing-*) ;; *)
			"$py" bench/py/sluicepy.py --workload "$w" --data "$data" >>"$results/sluice-py.jsonl" 2>>"$results/sluice-py.log"
			"$py" bench/py/sluicepy.py --workload "$w" --copy --data "$data" >>"$results/sluice-py-copy.jsonl" 2>>"$results/sluice-py.log"
			# The hand-off when the trainer has a core of its own: the
			# server on one P, against Go on one.
			sluice "$w" api-reuse 1 sluice-reuse
			"$py" bench/py/sluicepy.py --workload "$w" --server-procs 1 --data "$data" >>"$results/sluice-py.jsonl" 2>>"$results/sluice-py.log"
			;;
		esac
		"$py" bench/py/tfqueue.py --workload "$w" --data "$data" >>"$results/tf-queue.jsonl" 2>>"$results/tf-queue.log"
		"$py" bench/py/tfqueue.py --workload "$w" --idiom batched --data "$data" >>"$results/tf-queue-batched.jsonl" 2>>"$results/tf-queue.log"
		"$py" bench/py/tfdata.py --workload "$w" --data "$data" >>"$results/tf-data.jsonl" 2>>"$results/tf-data.log"
		case "$w" in csv | cifar) continue ;; esac
		for workers in 0 2; do
			"$py" bench/py/torchloader.py --workload "$w" --workers "$workers" --data "$data" \
				>>"$results/torch-w$workers.jsonl" 2>>"$results/torch.log"
		done
		case "$w" in framing-*) continue ;; esac
		for workers in 0 2; do
			"$py" bench/py/grainloader.py --workload "$w" --workers "$workers" --data "$data" \
				>>"$results/grain-w$workers.jsonl" 2>>"$results/grain.log"
		done
	done
	for w in $scaling; do
		log "round $round/$runs: $w (sluice only)"
		sluice "$w" api 2 sluice
		sluice "$w" api 1 sluice
	done
done

log "writing $out"
go run ./bench/report -results "$results" -out "$out"
log "done"
