"""The lifetime rule while batches are asked for ahead: the batch handed
out last is the trainer's until it asks for the next, in slots lent to the
server's readers and in the ring's; a trainer killed holding batches leaves
nothing behind."""

import gc
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sluice
import tfrecords
from conftest import alive, shm_files
from test_process import wait_gone
from test_read import SPEC, make_examples

# 136 bytes a record, 68 a feature: decoded straight into slots lent to
# the server's readers (SPEC's batches are copied into the ring's).
BIG = {"label": sluice.FixedLen([], "int64"), "image": sluice.FixedLen([32], "float32")}


def make_big(dir, files=2, per_file=64):
    label = 0
    for i in range(files):
        recs = []
        for _ in range(per_file):
            recs.append(tfrecords.example({"label": ("int64", [label]),
                                           "image": ("float", [label + j for j in range(32)])}))
            label += 1
        tfrecords.write(os.path.join(dir, f"big-{i}.tfrecord"), recs)
    return os.path.join(dir, "big-*.tfrecord"), label


@pytest.mark.parametrize("procs", [None, "1"])
@pytest.mark.parametrize("kind", ["lent", "ring"])
def test_batch_intact_until_next(tmp_path, monkeypatch, kind, procs):
    """The batch handed out last is not given back to the server before
    the trainer asks for the next one, while the server fills the slots of
    those before (its requests run while the trainer holds the batch), in
    this pass and the next, on the same server; also with the server on
    one P, which reads its requests through Go's poller."""
    if procs is not None:
        # The server inherits the environment.
        monkeypatch.setenv("GOMAXPROCS", procs)
    if kind == "lent":
        pat, n = make_big(tmp_path)
        ds = sluice.examples(pat, BIG, batch_size=4, readers=2)
    else:
        pat, truth = make_examples(tmp_path)
        n = len(truth)
        ds = sluice.examples(pat, SPEC, batch_size=4, readers=2)
    servers = set()
    for _ in range(2):
        it = iter(ds)
        servers.add(it.server_pid)
        seen = []
        for b in it:
            kept = {k: v.copy() for k, v in b.items() if isinstance(v, np.ndarray) and v.dtype != object}
            # Time for the server to answer a request sent ahead.
            for _ in range(3):
                os.sched_yield()
                sum(range(2000))
            for k, v in kept.items():
                np.testing.assert_array_equal(b[k], v, err_msg=f"{k} changed while the batch was held")
            if kind == "lent":
                np.testing.assert_array_equal(b["image"], b["label"][:, None] + np.arange(32, dtype=np.float32))
            seen += b["label"].tolist()
        assert sorted(seen) == list(range(n))
    assert len(servers) == 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lifetime_under_random_use(tmp_path, seed):
    """Random steps over several data sets and up to three iterations at
    once — new data sets, dropped ones (whose servers serve the next as
    the spare), iterations started, abandoned, read a batch or many at a
    time, collections — keep the rules: each iteration's last batch is
    intact until its next is asked for, a batch kept after its iteration
    ended is intact for good, and an iteration read to its end delivered
    every record once. (An audit's random use found an open that retired a
    slot of a ring since replaced.)"""
    rng = random.Random(seed)
    pat, n = make_big(tmp_path, files=3, per_file=40)
    pat_small, truth = make_examples(tmp_path)
    kinds = [
        lambda: sluice.examples(pat, BIG, batch_size=8),  # lent slots
        lambda: sluice.examples(pat, BIG, batch_size=5, prefetch=30),  # another number of slots
        lambda: sluice.examples(pat, BIG, batch_size=16, deterministic=True, seed=2),
        lambda: sluice.examples(pat_small, SPEC, batch_size=7, shuffle=30, seed=1),  # the ring's, 17 slots
    ]
    total = {0: n, 1: n, 2: n, 3: len(truth)}

    def snap(b):
        return {k: v.copy() for k, v in b.items() if isinstance(v, np.ndarray) and v.dtype != object}

    def intact(b, s):
        return all(np.array_equal(b[k], s[k]) for k in s)

    datasets = []  # (kind, Dataset)
    live = []  # [kind, iterator, last batch, its copy, labels seen]
    kept = []  # (batch, copy) of iterations that ended
    for step in range(120):
        r = rng.random()
        if r < 0.1 or not datasets:
            k = rng.randrange(len(kinds))
            datasets.append((k, kinds[k]()))
        elif r < 0.2:
            datasets.pop(rng.randrange(len(datasets)))
        elif r < 0.35 and len(live) < 3:
            k, ds = rng.choice(datasets)
            live.append([k, iter(ds), None, None, []])
        elif r < 0.4 and live:
            live.pop(rng.randrange(len(live)))
        elif live:
            x = rng.choice(live)
            for _ in range(rng.choice([1, 3, 50])):
                b = next(x[1], None)
                if b is None:
                    assert sorted(x[4]) == list(range(total[x[0]])), f"step {step}: an iteration's records"
                    if x[2] is not None:
                        kept.append((x[2], x[3]))
                    live.remove(x)
                    break
                if x[0] < 3:
                    np.testing.assert_array_equal(b["image"], b["label"][:, None] + np.arange(32, dtype=np.float32))
                x[2], x[3] = b, snap(b)
                x[4] += b["label"].tolist()
        if rng.random() < 0.1:
            gc.collect()
        for x in live:
            assert x[2] is None or intact(x[2], x[3]), f"step {step}: a live iteration's batch changed"
        for b, c in kept:
            assert intact(b, c), f"step {step}: a batch kept after its iteration changed"
        del kept[:-4]


TRAINER = textwrap.dedent("""
    import sys, time
    import sluice
    spec = {"label": sluice.FixedLen([], "int64"), "image": sluice.FixedLen([32], "float32")}
    it = iter(sluice.examples(sys.argv[1], spec, batch_size=4, epochs=None))
    held = [next(it) for _ in range(3)]
    print(it.server_pid, flush=True)
    time.sleep(60)
""")


def test_sigkill_of_a_trainer_holding_batches(tmp_path):
    """Killed holding batches (and more sent ahead), the trainer leaves no
    server and no shared-memory file."""
    pat, _ = make_big(tmp_path)
    p = subprocess.Popen([sys.executable, "-c", TRAINER, pat], stdout=subprocess.PIPE, text=True)
    try:
        server = int(p.stdout.readline())
        assert alive(server)
    finally:
        p.kill()
        p.wait()
    assert wait_gone(server), f"sluice-serve {server} or its files outlived the trainer by 5 s: {shm_files(server)}"


@pytest.mark.skipif(sys.version_info < (3, 13) or not os.path.isdir("/proc/self/fd"),
                    reason="mmap keeps a descriptor before Python 3.13 (documented); /proc to count them")
def test_kept_batches_hold_no_descriptors(tmp_path):
    """The last batch of each of 300 iterations, kept: its memory is an
    old map of a slot, which held a copy of the slot file's descriptor
    until Python could be told not to keep one (audit 80: a trainer that
    kept a thousand such batches ran out of open files)."""
    pat, truth = make_examples(tmp_path)
    fds = lambda: len(os.listdir("/proc/self/fd"))
    kept = []
    ds = sluice.examples(pat, SPEC, batch_size=len(truth))
    for b in ds:  # the first iteration starts the server
        kept.append(b)
    before = fds()
    for _ in range(300):
        for b in ds:
            kept.append(b)
    assert fds() - before < 30
    assert all(sorted(b["label"].tolist()) == sorted(truth) for b in kept)
    ds.close()
