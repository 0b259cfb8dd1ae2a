"""Where sluice's Python hand-off spends its CPU: the trainer's process and
the server's (sluice-serve) apart, per example and per batch, with each
one's context switches per batch, over whole passes of a workload read
as bench/py/sluicepy.py reads it (same data set, same check per batch).
Not a row of BENCHMARKS.md: a tool for comparing a change of the client
or the server against the old, run alternately with the old several
times (the machine's load moves both).

    python bench/py/sluicesplit.py --workload mnist --passes 24
    SLUICE_SERVE=/tmp/old-serve PYTHONPATH=/tmp/old-src python bench/py/sluicesplit.py --workload small10

The server's own CPU profile: SLUICE_SERVE_CPUPROFILE=FILE (see
cmd/sluice-serve).
"""
import os
import time

import common
import numpy as np
import sluicepy


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / common.CLK_TCK


def switches(pid):
    """Voluntary and involuntary context switches of all the process's
    threads."""
    vol = invol = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            for line in f:
                if line.startswith("voluntary_ctxt_switches"):
                    vol += int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches"):
                    invol += int(line.split()[1])
    return vol, invol


def main():
    def extra(p):
        p.add_argument("--copy", action="store_true", help="copy=True: arrays of their own")
        p.add_argument("--readers", type=int, default=None)
        p.add_argument("--passes", type=int, default=10, help="timed passes, after an untimed one")
        p.add_argument("--prefetch", type=int, default=None, help="the data set's prefetch (8 by default)")
    a = common.args("sluice's hand-off, trainer and server apart", extra)
    ds, check_name = sluicepy.dataset(a)
    if a.prefetch is not None:
        ds = sluicepy.sluice.Dataset(dict(ds.request, slots=a.prefetch + 1), a.copy)
    for _ in ds:  # untimed: the server started, the files in the page cache
        pass
    it = iter(ds)  # the same server, kept between passes
    server = it.server_pid
    me = os.getpid()
    examples = batches = check = 0
    t0, c0, s0 = time.perf_counter(), time.process_time(), cpu_seconds(server)
    w0, ws0 = switches(me), switches(server)
    for p in range(a.passes):
        if p > 0:
            it = iter(ds)
        for b in it:
            labels = b[check_name]
            examples += len(labels)
            batches += 1
            check += int(labels.sum(dtype=np.int64))
    seconds = time.perf_counter() - t0
    trainer, srv = time.process_time() - c0, cpu_seconds(server) - s0
    w1, ws1 = switches(me), switches(server)
    us = 1e6 / examples
    print(f"{a.workload}: {examples / seconds / 1e3:.0f} k ex/s, trainer {trainer * us:.3f} us/ex "
          f"({trainer / batches * 1e6:.1f} us/batch), server {srv * us:.3f} us/ex, total {(trainer + srv) * us:.3f}; "
          f"trainer cs/batch vol {(w1[0] - w0[0]) / batches:.2f} invol {(w1[1] - w0[1]) / batches:.2f}; "
          f"server cs/batch {(ws1[0] - ws0[0]) / batches:.2f} {(ws1[1] - ws0[1]) / batches:.2f}; check {check // a.passes}")


if __name__ == "__main__":
    main()
