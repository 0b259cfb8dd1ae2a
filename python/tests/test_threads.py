"""An iterator is for one thread at a time: a second thread in its next()
is refused at once, never left to take the first's replies (which hung
both threads, or handed one the other's reply: audit 18, bug 3). A close
from another thread stops a waiting next(), and a loop ended by close()
raises rather than look like a whole epoch."""
import os
import threading
import time

import pytest

import sluice
from conftest import alive
from test_read import SPEC, make_examples

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _waiting(tmp_path):
    """An iterator whose next() waits (the server opens a FIFO no one
    writes), and a thread in that next(), which records what it raised."""
    fifo = str(tmp_path / "slow.tfrecord")
    os.mkfifo(fifo)
    ds = sluice.examples(fifo, {"label": sluice.FixedLen([], "int64")}, batch_size=4, readers=1)
    it = iter(ds)
    raised = []

    def first():
        try:
            next(it)
        except BaseException as e:
            raised.append(e)

    t = threading.Thread(target=first, daemon=True)
    t.start()
    deadline = time.monotonic() + 10
    while not it._busy.locked():
        assert time.monotonic() < deadline, "the first thread never entered next()"
        time.sleep(0.01)
    return ds, it, t, raised


def test_a_second_thread_is_refused_at_once(tmp_path):
    ds, it, t, raised = _waiting(tmp_path)
    start = time.monotonic()
    with pytest.raises(sluice.SluiceError, match="iterator is for one thread at a time.*iterate the Dataset in each thread"):
        next(it)
    with pytest.raises(sluice.SluiceError, match="one thread at a time"):
        for _ in it:
            pass
    assert time.monotonic() - start < 2
    assert t.is_alive()  # the first thread still waits, unharmed
    pid = it.server_pid
    ds.close()  # from this thread: stops the first thread's next
    t.join(timeout=10)
    assert not t.is_alive(), "close from another thread left next() waiting"
    assert len(raised) == 1 and isinstance(raised[0], sluice.SluiceError), raised
    assert "closed" in str(raised[0]) and "before its end" in str(raised[0])
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(pid)


def test_two_threads_on_one_iterator_never_hang_or_garble(tmp_path):
    pat, truth = make_examples(tmp_path, files=2, per_file=200)
    for _ in range(3):
        it = iter(sluice.examples(pat, SPEC, batch_size=2, readers=1, copy=True))
        got, errors = [[], []], []

        def loop(i):
            try:
                for b in it:
                    got[i].extend(b["label"].tolist())
            except sluice.SluiceError as e:
                errors.append(str(e))

        threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert not any(t.is_alive() for t in threads), "a thread hung"
        labels = got[0] + got[1]
        # Whole, distinct records in every batch either thread took; any
        # error is the rule's.
        assert len(labels) == len(set(labels)) and set(labels) <= set(truth)
        assert all("one thread at a time" in e for e in errors), errors
        if not errors:
            assert sorted(labels) == sorted(truth)
        it.close()


def test_a_loop_ended_by_close_is_no_whole_epoch(tmp_path):
    pat, truth = make_examples(tmp_path, files=1, per_file=40)
    ds = sluice.examples(pat, SPEC, batch_size=4, readers=1)
    seen = 0
    with pytest.raises(sluice.SluiceError, match="closed .* before its end"):
        for b in ds:
            seen += 1
            if seen == 2:
                ds.close()
    assert seen == 2
    it = iter(ds)  # the data set reads again after its close
    next(it)
    it.close()
    with pytest.raises(sluice.SluiceError, match="closed"):
        next(it)
    # An iteration that ended is not closed early: StopIteration, again.
    it = iter(ds)
    assert sum(len(b["label"]) for b in it) == len(truth)
    it.close()
    assert list(it) == []
