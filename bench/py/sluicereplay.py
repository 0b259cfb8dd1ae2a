"""The trainer's own Python cost per batch, without a server: the batch
replies of one pass of MNIST are recorded from a real server, then fed to
the client again from memory, so that each batch costs what the client's
`next` and the bench's label sum cost and nothing else (no pipe, no sleep,
no wake-up). With --flush MB it writes that much memory before every
fourth batch, where the real trainer wakes from its read after the server
ran: the same Python then runs with its caches cold. Not a row of
BENCHMARKS.md: a tool that splits the trainer's time per batch, which
bench/py/sluicesplit.py measures whole, into its parts.

    python bench/py/sluicereplay.py --data build/bench-data --flush 0 2 16

It reaches into the client's session (sluice._core): a diagnostic, to be
mended when the client changes.
"""
import argparse
import glob
import os
import struct
import time

import numpy as np

import sluice
from sluice import _core

MNIST = {"image": sluice.FixedLen([784], "float32"), "label": sluice.FixedLen([], "int64")}
BATCH = 128


def recorded(files):
    """A data set whose idle session has served a pass, and that pass's
    batch replies, framed as the server frames them."""
    ds = sluice.examples(files, MNIST, BATCH, readers=2)
    for _ in ds:  # the server started and the slots mapped
        pass
    replies = []
    orig = _core._Session._recv

    def keep(self):
        raw, reply = orig(self)
        replies.append(raw)
        return raw, reply

    _core._Session._recv = keep
    try:
        for _ in ds:
            pass
    finally:
        _core._Session._recv = orig
    # Batches of slots already mapped; replies that map a file are left out.
    batches = [r for r in replies if b'"batch"' in r and b'"file"' not in r]
    return ds, b"".join(struct.pack("<I", len(r)) + r for r in batches)


def replay(ds, stream):
    """Point the idle session at stream, endlessly, instead of the pipe."""
    s = ds._idle

    def more(self, n):
        rest = self._buf[self._pos:]
        if len(rest) < n:
            rest += stream
        self._buf, self._pos = rest, 0
        return rest, 0

    s._send = lambda msg: None
    s._more = more.__get__(s)
    s._buf, s._pos = b"", 0
    s._early.clear()
    s._ahead = 0
    s.pipelined = 4
    return s


def per_batch(s, n, flush):
    """Seconds a batch of the client's next and the label sum, timed
    apart from the flush before every fourth batch."""
    spent = 0.0
    for i in range(n):
        if flush is not None and i % 4 == 0:
            flush[::64] += 1  # a write to every cache line
        t0 = time.perf_counter()
        b = s.next(False)
        int(b["label"].sum(dtype=np.int64))
        spent += time.perf_counter() - t0
    return spent / n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="build/bench-data")
    p.add_argument("--batches", type=int, default=8000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--flush", type=float, nargs="*", default=[0, 2, 16],
                   help="MB written before every fourth batch; 0 for none")
    a = p.parse_args()
    files = sorted(glob.glob(os.path.join(a.data, "mnist", "part-*")))
    if not files:
        raise SystemExit(f"no files in {a.data}/mnist: run sluicebench gen first")
    ds, stream = recorded(files)
    try:
        s = replay(ds, stream)
        for mb in a.flush:
            buf = np.ones(int(mb * (1 << 20)), np.uint8) if mb else None
            times = sorted(per_batch(s, a.batches, buf) for _ in range(a.rounds))
            print(f"flush {mb:g} MB: {times[len(times) // 2] * 1e6:.2f} us a batch "
                  f"(median of {a.rounds}: {', '.join(f'{t * 1e6:.2f}' for t in times)})")
    finally:
        ds.close()


if __name__ == "__main__":
    main()
