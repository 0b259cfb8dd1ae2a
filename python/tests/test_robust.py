"""The client against a server that misbehaves, and a server that waits
on input that never comes."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import sluice
from conftest import alive, ended, shm_files
from test_read import SPEC, make_examples

# A fake sluice-serve: it answers the open, then the first next (or the
# open itself, for "open_*" modes) as FAKE_MODE says.
FAKE = textwrap.dedent("""
    import json, os, struct, sys
    mode = os.environ["FAKE_MODE"]
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    def send(body):
        out.write(struct.pack("<I", len(body)) + body)
        out.flush()
    while True:
        h = inp.read(4)
        if len(h) < 4:
            sys.exit(0)
        req = json.loads(inp.read(struct.unpack("<I", h)[0]))
        if req["op"] == "close":
            send(b'{"ok":true}')
            sys.exit(0)
        if req["op"] == "open" and not mode.startswith("open_"):
            send(b'{"features":[{"name":"x","kind":"dense","dtype":"float32"}],"new_slots":true}')
            continue
        send({
            "garbage_json": b"<html",
            "non_dict": b"[1,2,3]",
            "unknown_reply": b'{"hello":1}',
            "error_no_kind": b'{"error":"oops"}',
            "batch_not_dict": b'{"batch":7}',
            "batch_wrong_types": b'{"batch":{"slot":"zero","rows":1,"arrays":[{"name":"x"}]}}',
            "open_no_features": b'{"hello":1}',
            "open_garbage": b"\\xff\\xfe",
        }[mode])
""")


@pytest.fixture
def fake_serve(tmp_path, monkeypatch):
    exe = tmp_path / "fake-serve"
    exe.write_text(f"#!{sys.executable}\n" + FAKE)
    exe.chmod(0o755)
    monkeypatch.setenv("SLUICE_SERVE", str(exe))

    def start(mode):
        monkeypatch.setenv("FAKE_MODE", mode)
    return start


@pytest.mark.parametrize("mode", ["garbage_json", "non_dict", "unknown_reply", "error_no_kind", "batch_not_dict",
                                  "batch_wrong_types", "open_no_features", "open_garbage"])
def test_malformed_reply(tmp_path, fake_serve, mode):
    """A reply the protocol does not allow is a SluiceError naming the
    server, never a JSONDecodeError, KeyError or AttributeError."""
    fake_serve(mode)
    pat, _ = make_examples(tmp_path)
    ds = sluice.examples(pat, SPEC, batch_size=4)
    with pytest.raises(sluice.SluiceError, match=r"malformed reply from sluice-serve \(pid \d+\)"):
        for _ in ds:
            pass
    ds.close()


def test_reply_length_bounded(tmp_path, monkeypatch):
    """A length prefix beyond the protocol's limit is refused at once,
    not waited and buffered for."""
    exe = tmp_path / "fake-serve"
    exe.write_text(f"#!{sys.executable}\n" + textwrap.dedent("""
        import sys, time
        sys.stdin.buffer.read(4)
        sys.stdout.buffer.write(b"\\xf0\\xff\\xff\\xff")
        sys.stdout.buffer.flush()
        sys.stdin.buffer.read()
    """))
    exe.chmod(0o755)
    monkeypatch.setenv("SLUICE_SERVE", str(exe))
    pat, _ = make_examples(tmp_path)
    with pytest.raises(sluice.SluiceError, match="malformed reply.*more than 16777216"):
        iter(sluice.examples(pat, SPEC, batch_size=4))


# A trainer that waits for a batch of a FIFO nobody writes, and is
# interrupted (Ctrl-C) while it waits for the server's reply.
FIFO_TRAINER = textwrap.dedent("""
    import os, signal, sys
    import sluice
    signal.signal(signal.SIGINT, signal.default_int_handler)
    it = iter(sluice.examples(sys.argv[1], {"label": sluice.FixedLen([], "int64")}, batch_size=4, readers=1))
    print(it.server_pid, flush=True)
    s = it._s
    terminated = []
    terminate = type(s._proc).terminate
    type(s._proc).terminate = lambda p: (terminated.append(p.pid), terminate(p))
    more = s._more
    def interrupted(n):
        os.kill(os.getpid(), signal.SIGINT)
        return more(n)
    s._more = interrupted
    try:
        next(it)
    except KeyboardInterrupt:
        print("interrupted", terminated == [it.server_pid], flush=True)
        sys.exit(3)
""")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_ctrl_c_while_input_waits(tmp_path):
    """Ctrl-C while the server waits for input that does not come (a FIFO,
    a stuck file system) raises KeyboardInterrupt at once, and leaves no
    server behind."""
    fifo = str(tmp_path / "slow.tfrecord")
    os.mkfifo(fifo)
    start = time.monotonic()
    p = subprocess.Popen([sys.executable, "-c", FIFO_TRAINER, fifo], stdout=subprocess.PIPE, text=True)
    server = int(p.stdout.readline())
    # Not communicate(timeout=...), which reads the pipe's descriptor and
    # so misses what readline buffered: the trainer's second line, when it
    # came as fast as its first (1 of 2 full runs on a loaded machine).
    p.wait(timeout=30)
    out = p.stdout.read()
    took = time.monotonic() - start
    assert p.returncode == 3 and "interrupted" in out, (p.returncode, out)
    assert took < 4, f"the trainer took {took:.1f} s to end after Ctrl-C"
    assert not alive(server) and not shm_files(server)
    # The server was stopped (SIGTERM), not left to read the end of its
    # input, which it saw only when it took the requests sent ahead, and
    # killed a second later (audit 98). How it ended is not asserted: on a
    # loaded machine its exit on SIGTERM may take longer than the second
    # it is given.
    assert out.split()[-1] == "True", out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_server_exits_when_input_ends_while_waiting(tmp_path):
    """The server's stdin closed while a next waits for slow input: it
    exits by itself within seconds, not when the input comes."""
    fifo = str(tmp_path / "slow.tfrecord")
    os.mkfifo(fifo)
    it = iter(sluice.examples(fifo, {"label": sluice.FixedLen([], "int64")}, batch_size=4, readers=1))
    s, p = it._s, it._s._proc
    if not s._ahead:  # the open asks for the first batch itself
        s._send(sluice._core._NEXT)
    start = time.monotonic()
    s.close(wait=30)
    took = time.monotonic() - start
    assert p.returncode == 0 and took < 5, (p.returncode, took)


def test_ctrl_c_as_the_server_starts_leaves_none(tmp_path, monkeypatch):
    """A Ctrl-C that lands as subprocess.Popen returns, before the session
    holds the process: the Popen, dropped with the interrupt, stayed
    among the processes its finalizer keeps to reap, pipes open, and the
    server ran on for good (audit 46: 30 interrupts, 30 servers). SIGINT
    now waits until the session holds the server, which it then ends."""
    pat, _ = make_examples(tmp_path, files=1, per_file=8)
    real = subprocess.Popen
    started = []

    def popen(*args, **kwargs):
        p = real(*args, **kwargs)
        started.append(p.pid)
        os.kill(os.getpid(), signal.SIGINT)  # the Ctrl-C, as Popen returns
        return p

    monkeypatch.setattr(subprocess, "Popen", popen)
    sluice._core._spare.clear()
    with pytest.raises(KeyboardInterrupt):
        for _ in sluice.examples(pat, SPEC, batch_size=4):
            pass
    monkeypatch.undo()
    deadline = time.monotonic() + 10
    while alive(started[0]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(started[0]), "the server started as Ctrl-C came runs on"


def test_server_start_uninterrupted_beside_other_threads():
    """A Ctrl-C as a server starts is raised once the start is done, also
    when other threads run (NumPy's BLAS pool does from its import), which
    the kernel hands the signal to: blocking SIGINT in the main thread
    held nothing then, and a Ctrl-C inside Popen left the server a zombie
    and its pipes open (audit 83). No handler is swapped: one installed
    from C, and SIGINT ignored, stay as they were (audit 85)."""
    script = textwrap.dedent("""
        import os, signal, threading, time
        from sluice._core import _uninterrupted
        signal.signal(signal.SIGINT, signal.default_int_handler)  # whatever the parent ignored
        threading.Thread(target=time.sleep, args=(3,), daemon=True).start()
        def start():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.3)
            return "started"
        try:
            v, pending = _uninterrupted(start)
            print(v, type(pending).__name__)
        except KeyboardInterrupt:
            print("raised inside")
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print(_uninterrupted(lambda: 1)[0], signal.getsignal(signal.SIGINT) == signal.SIG_IGN)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.stdout.splitlines() == ["started KeyboardInterrupt", "1 True"], out


def test_uninterrupted_thread_that_cannot_start(monkeypatch):
    """A thread that cannot start (at shutdown, say) is an error, not a
    wait for ever for a function that never runs."""
    def cannot(*args):
        raise RuntimeError("can't start new thread")
    monkeypatch.setattr(sluice._core._thread, "start_new_thread", cannot)
    with pytest.raises(RuntimeError, match="can't start new thread"):
        sluice._core._uninterrupted(lambda: 1)


def test_server_ignores_a_terminals_ctrl_c(tmp_path):
    """The server has a session of its own: a Ctrl-C at the terminal,
    sent to the trainer's process group, never reaches it, so a server
    starting as one comes does not die of it (audit 85)."""
    pat, _ = make_examples(tmp_path, files=1, per_file=8)
    ds = sluice.examples(pat, SPEC, batch_size=4)
    it = iter(ds)
    next(it)
    assert os.getpgid(it.server_pid) != os.getpgid(0)
    ds.close()


def _memfds():
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            n += "memfd:sluice" in os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            pass
    return n


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc")
def test_ctrl_c_as_a_slot_opens_keeps_no_descriptor(tmp_path, monkeypatch):
    """A Ctrl-C as a batch's shared memory is opened: the descriptor,
    opened and not yet held by a name, stayed open, keeping the server's
    memory after it exited (audit 46). A file object is closed as it is
    dropped."""
    pat, _ = make_examples(tmp_path, files=1, per_file=8)
    real = sluice._core._Session._open_slot

    def open_slot(self, path):
        f = real(self, path)
        os.kill(os.getpid(), signal.SIGINT)  # the Ctrl-C, as the open returns
        return f

    before = _memfds()
    monkeypatch.setattr(sluice._core._Session, "_open_slot", open_slot)
    for _ in range(3):
        with pytest.raises(KeyboardInterrupt):
            for _ in sluice.examples(pat, SPEC, batch_size=4):
                pass
    monkeypatch.undo()
    sluice._core._spare.clear()
    import gc
    gc.collect()
    assert _memfds() <= before


def test_finalizers_never_wait(tmp_path, monkeypatch):
    # A data set or iteration dropped, not closed, ends its server in a
    # finalizer, where an exception is lost: one that waited up to five
    # seconds for the server took the Ctrl-C (or a SIGTERM handler's
    # SystemExit) that came meanwhile, and the trainer ran on (audit 66,
    # 9 runs in 30). Finalizers close the server's pipes and wait for
    # nothing; the servers end by themselves.
    import gc
    pat, truth = make_examples(tmp_path)
    waited_in = []
    real = subprocess.Popen.wait

    def wait(self, *args, **kwargs):
        f = sys._getframe(1)
        while f is not None:
            if f.f_code.co_name == "__del__":
                waited_in.append(f.f_code.co_filename)
                break
            f = f.f_back
        return real(self, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "wait", wait)
    monkeypatch.setattr(sluice._core, "_SPARE_BYTES", 1)  # no spare: every server ends
    pids = []
    for i in range(4):
        ds = sluice.examples(pat, SPEC, batch_size=4, epochs=None)
        it = iter(ds)
        next(it)
        pids.append(it.server_pid)
        if i % 2:
            del it, ds  # the iteration's session first
        else:
            del ds, it  # the data set first
        gc.collect()
    assert waited_in == [], f"a finalizer waited for a server: {waited_in}"
    assert all(ended(pid) for pid in pids)
