"""A training loop that builds its data set each epoch against one that
builds it once and iterates it again: sluice from Python, the same
workload as bench/py/sluicepy.py, --passes passes after two untimed ones.
Prints examples a second and CPU time an example (the trainer and its
servers, the live one too) for each way, --rounds times alternated.

    python bench/py/epochloop.py --workload mnist --data build/bench-data --rounds 3
"""
import time

import common
import sluicepy


def run(a, rebuild):
    ds, check_name = sluicepy.dataset(a)
    for _ in range(2):
        for _ in ds:
            pass
    t0, c0, n = time.perf_counter(), time.process_time() + common.children_cpu(), 0
    for _ in range(a.passes):
        if rebuild:
            ds, _ = sluicepy.dataset(a)
        for b in ds:
            n += len(b[check_name])
    t, c = time.perf_counter() - t0, time.process_time() + common.children_cpu() - c0
    ds.close()
    return n / t, c / n * 1e6


def main():
    def extra(p):
        p.add_argument("--copy", action="store_true")
        p.add_argument("--readers", type=int, default=None)
        p.add_argument("--passes", type=int, default=20)
        p.add_argument("--rounds", type=int, default=3)
    a = common.args("a data set built each epoch, or once", extra)
    for _ in range(a.rounds):
        for name, rebuild in (("once", False), ("each epoch", True)):
            eps, cpu = run(a, rebuild)
            print(f"{a.workload} {name:10s} {eps / 1e6:.2f} M examples/s {cpu:.3f} us CPU an example", flush=True)


if __name__ == "__main__":
    main()
