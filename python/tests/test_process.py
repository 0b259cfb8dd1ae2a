"""The server's life beside the trainer's: killed trainers, Ctrl-C, fork."""

import glob
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np

import pytest

import sluice
from conftest import alive, shm_files
from test_read import SPEC, make_examples

# A trainer that iterates without end and says which server it has.
TRAINER = textwrap.dedent("""
    import os, signal, subprocess, sys, time
    import sluice
    # Ctrl-C raises KeyboardInterrupt, as in a program started from a
    # terminal, even when this test runs where SIGINT is ignored (a
    # background job inherits SIG_IGN, which Python then keeps).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    spec = {"label": sluice.FixedLen([], "int64"), "image": sluice.FixedLen([4], "float32")}
    it = iter(sluice.examples(sys.argv[1], spec, batch_size=8, epochs=None, shuffle=20))
    next(it)
    if len(sys.argv) > 2:
        # A process that outlives the trainer holding the server's stdin
        # open: the server's input does not end when the trainer dies.
        holder = subprocess.Popen(["sleep", "30"], pass_fds=(it._s._in,))
        print(holder.pid, flush=True)
    print(it.server_pid, flush=True)
    try:
        for b in it:
            time.sleep(0.001)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(3)
""")


def start_trainer(pat, *args, **kw):
    p = subprocess.Popen([sys.executable, "-c", TRAINER, pat, *args], stdout=subprocess.PIPE, text=True, **kw)
    if args:
        p.holder = int(p.stdout.readline())
    line = p.stdout.readline()
    assert line.strip().isdigit(), f"trainer said {line!r}"
    return p, int(line)


def wait_gone(pid, seconds=5):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid) and not shm_files(pid):
            return True
        time.sleep(0.05)
    return False


def test_sigkill_of_the_trainer(tmp_path):
    pat, _ = make_examples(tmp_path)
    p, server = start_trainer(pat)
    assert alive(server)
    time.sleep(0.3)  # in the middle of reading
    p.kill()
    p.wait()
    start = time.monotonic()
    assert wait_gone(server), f"sluice-serve {server} or its files outlived the trainer by 5 s: {shm_files(server)}"
    assert time.monotonic() - start < 5


def test_sigkill_of_the_trainer_while_its_pipe_is_held(tmp_path):
    """The server also watches its parent: it exits when the trainer dies
    even if another process holds its stdin open."""
    pat, _ = make_examples(tmp_path)
    p, server = start_trainer(pat, "hold")
    time.sleep(0.3)
    p.kill()
    p.wait()
    try:
        assert alive(p.holder)
        assert wait_gone(server), f"sluice-serve {server} outlived the trainer by 5 s"
    finally:
        os.kill(p.holder, signal.SIGKILL)


def memfds(pid):
    """The slot files among pid's descriptors: anonymous files of memory."""
    links = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            links.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
    return [link for link in links if link.startswith("/memfd:sluice-")]


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="slots are anonymous files on Linux only")
def test_sigkill_of_trainer_and_server_together(tmp_path):
    """A trainer and its server killed at once (their process group, as an
    out-of-memory kill or a job scheduler's may be) leave no memory behind:
    the slots are anonymous files, in no directory, which go with the two
    processes' descriptors and mappings."""
    pat, _ = make_examples(tmp_path)
    p, server = start_trainer(pat, start_new_session=True)
    time.sleep(0.3)  # in the middle of reading
    assert memfds(server), "the server's slots are not anonymous files"
    assert not shm_files(server)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    assert wait_gone(server), f"sluice-serve {server} or its files outlived the kill by 5 s: {shm_files(server)}"


def test_server_ignores_sigint(tmp_path):
    """SIGINT goes to the trainer's whole process group on Ctrl-C; the
    server leaves it to the trainer."""
    pat, _ = make_examples(tmp_path)
    it = iter(sluice.examples(pat, SPEC, batch_size=4, readers=1))
    n = len(next(it)["label"])
    os.kill(it.server_pid, signal.SIGINT)
    time.sleep(0.2)
    n += sum(len(b["label"]) for b in it)
    assert n == 120


def test_ctrl_c(tmp_path):
    pat, _ = make_examples(tmp_path)
    # Its own process group, as a shell gives a job: Ctrl-C signals the
    # whole group, server included.
    p, server = start_trainer(pat, start_new_session=True)
    time.sleep(0.3)
    start = time.monotonic()
    os.killpg(p.pid, signal.SIGINT)
    out, _ = p.communicate(timeout=10)
    assert p.returncode == 3 and "interrupted" in out
    assert time.monotonic() - start < 2, "KeyboardInterrupt came late"
    assert wait_gone(server)


def test_server_killed(tmp_path):
    """A failure of the Go side raises in Python instead of hanging."""
    pat, _ = make_examples(tmp_path)
    it = iter(sluice.examples(pat, SPEC, batch_size=4, epochs=None))
    next(it)
    os.kill(it.server_pid, signal.SIGKILL)
    pid = it.server_pid
    with pytest.raises(sluice.SluiceError, match="ended unexpectedly"):
        for _ in range(100):
            next(it)
    # Killed before they were mapped, its newest slot files are removed
    # by the client.
    assert not alive(pid) and not shm_files(pid)


def _read_shard(ds, index, count, q):
    labels = []
    for b in ds.shard(index, count):
        labels += b["label"].tolist()
    q.put(labels)


def _forked(target, ds, n):
    """Runs target(ds, i, n, queue) in n forks of this process, worker i
    of n, and returns what each put on the queue (in the order they did)."""
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    workers = [ctx.Process(target=target, args=(ds, i, n, q)) for i in range(n)]
    for w in workers:
        w.start()
    got = [q.get(timeout=30) for _ in workers]
    for w in workers:
        w.join(timeout=10)
        assert w.exitcode == 0
    return got


def test_fork_workers_share_out_the_files(tmp_path):
    """Forked workers, each with a server of its own reading its shard,
    read every record exactly once, even when the parent is iterating the
    same data set at the fork."""
    pat, truth = make_examples(tmp_path, files=4, per_file=25)
    ds = sluice.examples(pat, SPEC, batch_size=8)
    parent = iter(ds)
    next(parent)  # the parent has a server of its own at the fork
    got = _forked(_read_shard, ds, 2)
    assert sorted(got[0] + got[1]) == sorted(truth)
    assert set(got[0]).isdisjoint(got[1]) and got[0] and got[1]
    # The parent's iteration is untouched by its children.
    rest = sum(len(b["label"]) for b in parent)
    assert rest == 100 - 8


def test_iterator_does_not_cross_fork(tmp_path):
    pat, _ = make_examples(tmp_path, files=1, per_file=20)
    it = iter(sluice.examples(pat, SPEC, batch_size=4))
    next(it)
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()

    def child():
        try:
            next(it)
            q.put("no error")
        except sluice.SluiceError as e:
            q.put(str(e))

    w = ctx.Process(target=child)
    w.start()
    assert "does not cross fork" in q.get(timeout=10)
    w.join()
    assert sum(len(b["label"]) for b in it) == 16


def test_torch_dataloader(tmp_path):
    torch = pytest.importorskip("torch")
    import sluice.torch

    pat, truth = make_examples(tmp_path, files=4, per_file=25)
    ds = sluice.examples(pat, SPEC, batch_size=8)
    for workers in (0, 2):
        loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None,
                                             num_workers=workers)
        labels = []
        for b in loader:
            assert isinstance(b["image"], torch.Tensor)
            labels += b["label"].tolist()
        assert sorted(labels) == sorted(truth), f"num_workers={workers}"


def test_torch_dataloader_batch_size(tmp_path):
    """A DataLoader with a batch_size collects that many of sluice's
    batches before it stacks them: with num_workers=0 they were views of
    memory the next batches overwrote, so records came twice and others
    not at all (audit 90). They are copies then, and a warning says that
    batch_size=None takes them as they are."""
    torch = pytest.importorskip("torch")
    import sluice.torch

    pat, truth = make_examples(tmp_path, files=2, per_file=32)
    ds = sluice.examples(pat, SPEC, batch_size=4, readers=1)
    for k in (1, 3, 8):
        loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=k)
        with pytest.warns(UserWarning, match="batch_size=None"):
            batches = list(loader)
        labels = [x for b in batches for x in b["label"].flatten().tolist()]
        assert sorted(labels) == sorted(truth), f"batch_size={k}"
        assert batches[0]["image"].shape[:2] == (k, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None)
        assert sorted(x for b in loader for x in b["label"].tolist()) == sorted(truth)


FORKSERVER_TRAINER = textwrap.dedent("""
    import sys, time
    import torch, sluice, sluice.torch
    spec = {"label": sluice.FixedLen([], "int64"), "image": sluice.FixedLen([4], "float32")}
    ds = sluice.examples(sys.argv[1], spec, batch_size=8, epochs=None)
    loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None, num_workers=2,
                                         multiprocessing_context="forkserver", persistent_workers=True)
    for i, b in enumerate(loader):
        if i == 5:
            print("reading", flush=True)
        time.sleep(0.001)
""")


def servers_of_group(pgid):
    """The live sluice-serve processes whose clients (SLUICE_PARENT_PID)
    are in process group pgid."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                env = dict(v.split(b"=", 1) for v in f.read().split(b"\0") if b"=" in v)
            client = int(env.get(b"SLUICE_PARENT_PID", b"0"))
            if client and os.getpgid(client) == pgid and alive(int(d)):
                found.append(int(d))
        except (OSError, ValueError):
            continue
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc")
def test_sigkill_of_a_trainer_with_forkserver_workers(tmp_path):
    """The servers of DataLoader workers that a forkserver forked end with
    the trainer: the workers outlive a trainer that was killed (the
    forkserver holds their pipe to it open, and torch's watch of a
    worker's parent watches the forkserver), and their servers, which
    watched only them, lived on too (audit 90)."""
    pytest.importorskip("torch")
    pat, _ = make_examples(tmp_path, files=2, per_file=50)
    p = subprocess.Popen([sys.executable, "-c", FORKSERVER_TRAINER, pat], stdout=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        assert p.stdout.readline().strip() == "reading"
        servers = servers_of_group(p.pid)
        assert len(servers) == 2, f"the workers' servers: {servers}"
        p.kill()
        p.wait()
        for s in servers:
            assert wait_gone(s), f"sluice-serve {s} outlived the trainer by 5 s"
    finally:
        # The forkserver and its workers, in the trainer's process group,
        # outlive it: torch's to end, not sluice's. Not multiprocessing's
        # resource tracker, which removes the semaphores they made once
        # they are gone (killed with them, it left them in /dev/shm:
        # audit 91).
        p.kill()
        for pid in group(p.pid):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if b"resource_tracker" in f.read():
                        continue
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        p.wait()


def group(pgid):
    """The pids of process group pgid."""
    found = []
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and os.getpgid(int(d)) == pgid:
                found.append(int(d))
        except OSError:
            pass
    return found


def test_torch_more_workers_than_files(tmp_path):
    """A worker whose share of the files is empty fails naming the
    DataLoader worker and the share it reads, which the trainer did not
    ask for by name (audit 35)."""
    torch = pytest.importorskip("torch")
    import sluice.torch

    pat, _ = make_examples(tmp_path, files=1, per_file=8)
    loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(sluice.examples(pat, SPEC, batch_size=8)),
                                         batch_size=None, num_workers=2)
    with pytest.raises(sluice.InvalidArgumentError, match=r"DataLoader worker 1 of 2, which reads ds\.shard\(1, 2\): "
                                                          r".*of 1 files is empty.*at most as many workers as files"):
        list(loader)


def test_torch_worker_data_error_keeps_its_location(tmp_path):
    """A DataError in a DataLoader worker reaches the trainer with its
    file and offset: the DataLoader rebuilds a worker's exception from
    its class and text alone, which left them blank (audit 44)."""
    torch = pytest.importorskip("torch")
    import sluice.torch

    pat, _ = make_examples(tmp_path, files=2, per_file=20)
    bad = sorted(glob.glob(pat))[1]
    data = bytearray(open(bad, "rb").read())
    data[0] ^= 0xFF  # the first record's length, which its CRC then fails
    open(bad, "wb").write(bytes(data))
    for workers in (0, 2):
        loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(sluice.examples(pat, SPEC, batch_size=4)),
                                             batch_size=None, num_workers=workers)
        it, got = iter(loader), None
        try:
            for _ in it:
                pass
        except sluice.DataError as e:
            got = (e.file, e.offset)
        # The workers end now, not when the traceback holding the
        # iterator goes: the next test's loader, forking its workers while
        # this one's were torn down, lost one at its first import
        # (KeyError in importlib's module lock, 1 run in 3).
        if workers:
            it._shutdown_workers()
        del it
        assert got == (bad, 0), f"num_workers={workers}: {got}"


def test_torch_state_after_break(tmp_path):
    """A loop over a DataLoader with num_workers=0 left with break leaves
    the data set's position for ds.state_dict(), as a loop over the data
    set does: the generator's close closed the iteration, whose state was
    then unknown (audit 44)."""
    torch = pytest.importorskip("torch")
    import sluice.torch

    pat, _ = make_examples(tmp_path, files=2, per_file=20)
    opts = dict(batch_size=4, deterministic=True, shuffle=10, seed=1)
    full = [b["label"].tolist() for b in sluice.examples(pat, SPEC, **opts)]
    ds = sluice.examples(pat, SPEC, **opts)
    for i, _ in enumerate(torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None)):
        if i == 2:
            break
    state = ds.state_dict()
    again = sluice.examples(pat, SPEC, **opts)
    again.load_state_dict(state)
    assert full[:3] + [b["label"].tolist() for b in again] == full


def test_torch_dataloader_pairs(tmp_path):
    """As sluice.torch documents: the DataLoader's default_convert makes a
    VarLen pair a list; collate_fn=lambda b: b keeps the tuple."""
    torch = pytest.importorskip("torch")
    import sluice.torch

    pat, _ = make_examples(tmp_path, files=1, per_file=8)
    ds = sluice.torch.IterableDataset(sluice.examples(pat, SPEC, batch_size=8))
    (b,) = torch.utils.data.DataLoader(ds, batch_size=None)
    assert isinstance(b["tokens"], list) and len(b["tokens"]) == 2
    (b,) = torch.utils.data.DataLoader(ds, batch_size=None, collate_fn=lambda b: b)
    assert isinstance(b["tokens"], tuple) and len(b["tokens"]) == 2


@pytest.mark.parametrize("persistent", [False, True])
def test_torch_dataloader_epochs(tmp_path, persistent):
    """The trainer's loop over the loader, epoch after epoch, with worker
    processes started anew for each epoch or kept: every record once per
    epoch, and no hang (a timeout on each batch)."""
    torch = pytest.importorskip("torch")
    import sluice.torch

    pat, truth = make_examples(tmp_path, files=3, per_file=10)
    ds = sluice.examples(pat, SPEC, batch_size=4, shuffle=8)
    loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds), batch_size=None, num_workers=2,
                                         persistent_workers=persistent, timeout=30)
    servers = []
    for epoch in range(3):
        labels = []
        for i, b in enumerate(loader):
            labels += b["label"].tolist()
            if i == 1:
                servers.append(_servers())
        assert sorted(labels) == sorted(truth), f"epoch {epoch}"
    # Kept workers keep their servers from one epoch to the next (each
    # epoch's data set of a shard takes the spare server the last one
    # left); new workers start new ones.
    if persistent:
        assert servers[0] and servers == [servers[0]] * 3, servers
    else:
        assert servers[0].isdisjoint(servers[1]) and servers[1].isdisjoint(servers[2]), servers


def _servers():
    """The pids of the sluice-serve processes of this one's children (not
    this one's own: an earlier test's data set may have left one)."""
    me = os.getpid()
    out, todo = set(), [me]
    while todo:
        pid = todo.pop()
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                continue
            todo += kids
            for k in kids if pid != me else ():
                try:
                    with open(f"/proc/{k}/comm") as f:
                        if f.read().strip() == "sluice-serve":
                            out.add(k)
                except OSError:
                    pass
    return out


def test_spawned_workers(tmp_path):
    """With the spawn start method a data set is pickled to the workers."""
    pat, truth = make_examples(tmp_path, files=2, per_file=10)
    ds = sluice.examples(pat, SPEC, batch_size=4)
    it = iter(ds)  # a running iteration is not pickled with it
    next(it)
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    workers = [ctx.Process(target=_read_shard, args=(ds, i, 2, q)) for i in range(2)]
    for w in workers:
        w.start()
    got = [q.get(timeout=60) for _ in workers]
    for w in workers:
        w.join(timeout=10)
    assert sorted(got[0] + got[1]) == sorted(truth)
    it.close()


def _fake_torch(monkeypatch):
    """A stand-in for the parts of torch that sluice.torch uses, so that
    its worker logic is tested where torch is not installed (CI: torch's
    PyPI wheels bring CUDA). get_worker_info answers what torch's own
    answers in a DataLoader worker: the module's `info`."""
    import types

    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch.utils")
    data = types.ModuleType("torch.utils.data")

    class IterableDataset:
        pass

    data.IterableDataset = IterableDataset
    data.info = None
    data.get_worker_info = lambda: data.info
    torch.from_numpy = lambda a: types.SimpleNamespace(numpy=a)
    torch.utils, utils.data = utils, data
    for name, mod in [("torch", torch), ("torch.utils", utils), ("torch.utils.data", data)]:
        monkeypatch.setitem(sys.modules, name, mod)
    # sluice.torch is imported anew against the stand-in, and whatever
    # sys.modules held before (the real one, or nothing) comes back after.
    # (The package's attribute too: import binds it only when it imports.)
    monkeypatch.setitem(sys.modules, "sluice.torch", None)
    del sys.modules["sluice.torch"]
    monkeypatch.setattr(sluice, "torch", None, raising=False)
    return data


def _torch_worker(ds, i, n, q):
    import types
    import sluice.torch

    sys.modules["torch.utils.data"].info = types.SimpleNamespace(id=i, num_workers=n)
    labels, owned = [], True
    for b in sluice.torch.IterableDataset(ds):
        a = b["label"].numpy
        # A worker's batches go to the trainer after the worker has moved
        # on: they must be copies, not views of the slot.
        owned = owned and a.flags.owndata and b["image"].numpy.flags.owndata
        labels += a.tolist()
    q.put((labels, owned))


def test_torch_workers_without_torch(tmp_path, monkeypatch):
    """sluice.torch in DataLoader workers (forks of a trainer that already
    iterates): worker i of n reads shard i, the workers together read
    every record once, and their batches are copies; in the trainer
    itself (no worker info) they view the slots, as NumPy batches do."""
    data = _fake_torch(monkeypatch)
    import sluice.torch

    pat, truth = make_examples(tmp_path, files=4, per_file=25)
    ds = sluice.examples(pat, SPEC, batch_size=8)
    parent = iter(sluice.torch.IterableDataset(ds))
    first = next(parent)
    assert not first["image"].numpy.flags.owndata, "the trainer's own batches are views"
    got = _forked(_torch_worker, ds, 3)
    labels = [label for g, _ in got for label in g]
    assert sorted(labels) == sorted(truth)
    assert all(g for g, _ in got), "every worker has a shard of the four files"
    assert all(owned for _, owned in got)
    assert data.info is None
    rest = sum(len(b["label"].numpy) for b in parent)
    assert rest == 100 - 8


STUBBORN_EXIT = textwrap.dedent("""
    import sys
    import sluice
    from test_read import SPEC
    # Kept to the end: their sessions end in the interpreter's exit.
    ds = sluice.examples(sys.argv[1], SPEC, batch_size=4, epochs=None)
    it = iter(ds)
    next(it)
    print(it.server_pid, flush=True)
    print("exiting", flush=True)
""")


def test_exit_ends_a_server_that_stays(tmp_path, server_binary):
    # A server that does not exit when its input ends (here a wrapper that
    # sleeps on after the real one), whose data set the program still
    # held at its exit, is killed as the interpreter exits. The exit's
    # reaping ran before the teardown's finalizers released it, and it
    # outlived Python (audit 70).
    pat, _ = make_examples(tmp_path)
    stubborn = tmp_path / "stubborn.sh"
    stubborn.write_text(f'#!/bin/sh\n"{server_binary}" "$@"\nexec sleep 60\n')
    stubborn.chmod(0o755)
    env = dict(os.environ, SLUICE_SERVE=str(stubborn),
               PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.abspath(__file__))] + sys.path))
    out = subprocess.run([sys.executable, "-c", STUBBORN_EXIT, pat], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.split()[0])
    assert not alive(pid), "the server outlived the trainer"
    # A Ctrl-C during the exit's wait for it kills it rather than leave it
    # running (audit 72).
    p = subprocess.Popen([sys.executable, "-c", STUBBORN_EXIT, pat], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    pid = int(p.stdout.readline())
    assert p.stdout.readline() == "exiting\n"
    time.sleep(1)  # into the five seconds the exit waits
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=30)
    assert not alive(pid), "the server outlived a trainer interrupted as it exited"
