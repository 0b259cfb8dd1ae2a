#!/usr/bin/env bash
# Compares every `go test -bench` of the module at two commits, interleaved:
# each round runs the old and then the new test binary of every package, so
# a change in the machine's load falls on both. Prints benchstat's table.
#
#   bash tools/benchcmp/run.sh OLD NEW [-rounds N] [-benchtime D] [PKG...]
#
# OLD and NEW are commits (NEW may be "." for the work tree). Packages
# default to every package with benchmarks. Raw results go to
# build/benchcmp/{old,new}.txt. Benchmarks that need data sets named by
# environment variables (SLUICE_BENCH_*) run only if those are set.
set -euo pipefail
cd "$(dirname "$0")/../.."

[ $# -ge 2 ] || { echo "usage: bash tools/benchcmp/run.sh OLD NEW [-rounds N] [-benchtime D] [PKG...]" >&2; exit 2; }
old=$1 new=$2
shift 2
rounds=5 benchtime=200ms pkgs=()
while [ $# -gt 0 ]; do
	case "$1" in
	-rounds) rounds=$2; shift ;;
	-benchtime) benchtime=$2; shift ;;
	*) pkgs+=("$1") ;;
	esac
	shift
done
if [ ${#pkgs[@]} -eq 0 ]; then
	mapfile -t pkgs < <(grep -rl --include='*_test.go' '^func Benchmark' . | grep -v '^./bench/\|^./gomlx/' | xargs -n1 dirname | sort -u)
fi

out=build/benchcmp
rm -rf "$out"
mkdir -p "$out/bin"
trees=()
for side in old new; do
	rev=$old
	[ $side = new ] && rev=$new
	if [ "$rev" = . ]; then
		trees+=("$PWD")
		continue
	fi
	tree=$out/tree-$side
	git worktree add -q --detach "$tree" "$rev"
	trees+=("$PWD/$tree")
done
cleanup() {
	for t in "$out"/tree-*; do
		[ -d "$t" ] && git worktree remove --force "$t"
	done
	return 0
}
trap cleanup EXIT

root=$PWD
bin() { echo "$root/$out/bin/$1-$(echo "$2" | tr / _).test"; }
for i in 0 1; do
	side=old
	[ $i = 1 ] && side=new
	for p in "${pkgs[@]}"; do
		# A package may not exist at OLD yet (or hold no Go files there).
		if compgen -G "${trees[$i]}/$p/*.go" >/dev/null; then
			b=$(bin $side "$p")
			(cd "${trees[$i]}" && go test -c -o "$b" "$p") >/dev/null
		fi
	done
done

for r in $(seq "$rounds"); do
	echo "round $r/$rounds" >&2
	for p in "${pkgs[@]}"; do
		for i in 0 1; do
			side=old
			[ $i = 1 ] && side=new
			b=$(bin $side "$p")
			[ -x "$b" ] || continue
			(cd "${trees[$i]}/$p" && "$b" -test.run '^$' -test.bench . -test.benchmem -test.benchtime "$benchtime" -test.count 1) \
				| sed "s|^pkg: .*|pkg: ${p#./}|" >>"$out/$side.txt" || echo "$p ($side) failed" >&2
		done
	done
done
go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$out/old.txt" "$out/new.txt"
echo
go run ./tools/benchcmp/disjoint "$out/old.txt" "$out/new.txt"
