#!/usr/bin/env bash
# The Python hand-off alone (issue 20's goal: sluice from Python at 0.9 of
# sluice from Go or better): rounds that alternate Go's front door
# (sluicebench -mode api-reuse, GOMAXPROCS=2) and the Python package
# (bench/py/sluicepy.py) on the same files, and, with --server-b, a second
# sluice-serve (an older build, say) right after, so that its difference
# from the first is taken in the same rounds. Prints one line a run
# (system, workload, examples/s, CPU µs an example) and the medians.
#
#   bash bench/handoff.sh --rounds 5 mnist seed
#   bash bench/handoff.sh --server-b /tmp/old-sluice-serve mnist
#   bash bench/handoff.sh --deterministic mnist seed   # both sides deterministic
#   bash bench/handoff.sh --min-time 4 --rounds 9 mnist  # longer runs, less noise
#
# The data is bench/run.sh's (build/bench-data, made by it or by
# `go run ./bench/cmd/sluicebench gen -data build/bench-data`); the Python is
# SLUICE_BENCH_VENV's (build/bench-venv), which needs NumPy only.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=5 serveb= data=build/bench-data det=() mintime=1
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift ;;
	--deterministic) det=(--deterministic) ;;
	--server-b) serveb=$2; shift ;;
	--data) data=$2; shift ;;
	--min-time) mintime=${2%s}; shift ;; # seconds: 4 or 4s
	-*) echo "usage: bash bench/handoff.sh [--rounds N] [--server-b SLUICE_SERVE] [--data DIR] [--min-time SECONDS] [--deterministic] WORKLOAD..." >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || set -- mnist seed
py=${SLUICE_BENCH_VENV:-build/bench-venv}/bin/python
bin=build/handoff
mkdir -p "$bin"
go build -o "$bin/sluicebench" ./bench/cmd/sluicebench
go build -o "$bin/sluice-serve" ./cmd/sluice-serve
export PYTHONPATH=$PWD/python/src:$PWD/bench/py
out=$bin/runs.txt
: >"$out"
line() { # system workload: the JSON line of a run on stdin
	"$py" -c 'import json, sys
d = json.loads(sys.stdin.read().strip().splitlines()[-1])
print(sys.argv[1], sys.argv[2], round(d["examples"] / d["seconds"]), round(d["cpu_seconds"] / d["examples"] * 1e6, 3))' "$1" "$2" | tee -a "$out"
}
for _ in $(seq "$rounds"); do
	for w in "$@"; do
		GOMAXPROCS=2 "$bin/sluicebench" -workload "$w" -data "$data" -mode api-reuse ${det:+-deterministic} -runs 1 -min-time "${mintime}s" -json | line go "$w"
		SLUICE_SERVE=$bin/sluice-serve "$py" bench/py/sluicepy.py --workload "$w" --data "$data" --min-time "$mintime" "${det[@]}" | line py "$w"
		if [ -n "$serveb" ]; then
			SLUICE_SERVE=$serveb "$py" bench/py/sluicepy.py --workload "$w" --data "$data" --min-time "$mintime" "${det[@]}" | line pyB "$w"
		fi
	done
done
"$py" - "$out" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
f = lambda xs: f"{st.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"
for w in dict.fromkeys(r[1] for r in rows):
    by = {s: [r for r in rows if r[0] == s and r[1] == w] for s in ("go", "py", "pyB")}
    go = [int(r[2]) for r in by["go"]]
    for s in ("py", "pyB"):
        if by[s]:
            xs = [int(r[2]) for r in by[s]]
            cpu = st.median(float(r[3]) for r in by[s])
            print(f"{w} {s}: {st.median(xs)} examples/s, {cpu} µs CPU an example; /go {f([a / b for a, b in zip(xs, go)])}")
    print(f"{w} go: {st.median(go)} examples/s, {st.median(float(r[3]) for r in by['go'])} µs CPU an example")
PY
