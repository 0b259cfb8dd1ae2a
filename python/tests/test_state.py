"""Deterministic reading, state_dict / load_state_dict, resume after SIGKILL."""

import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap

import pytest

import sluice
import tfrecords
from test_read import make_examples

SPEC = {"label": sluice.FixedLen([], "int64"), "image": sluice.FixedLen([4], "float32")}


def labels(ds):
    return [b["label"].tolist() for b in ds]


def plain_examples(dir, files=3, per_file=40):
    """Uncompressed files of Examples, for the global shuffle's index."""
    label = 0
    for i in range(files):
        recs = []
        for _ in range(per_file):
            recs.append(tfrecords.example({"label": ("int64", [label]), "image": ("float", [label, 0, 0, 1.0])}))
            label += 1
        tfrecords.write(os.path.join(dir, f"plain-{i}.tfrecord"), recs)
    return os.path.join(dir, "plain-*.tfrecord")


@pytest.fixture(autouse=True)
def index_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SLUICE_INDEX_DIR", str(tmp_path / "index"))


@pytest.mark.parametrize("mode", ["deterministic", "global_shuffle"])
def test_runs_agree_and_resume(tmp_path, mode):
    if mode == "deterministic":
        pat, _ = make_examples(tmp_path)
    else:
        pat = plain_examples(tmp_path)
    make = lambda: sluice.examples(pat, SPEC, batch_size=7, epochs=2, shuffle=25, seed=5, **{mode: True})
    with make() as ds:
        want = labels(ds)
    with make() as ds:
        assert labels(ds) == want, "two runs with one seed differ"
    assert sorted(sum(want, [])) == sorted(list(range(120)) * 2)
    for cut in (0, 3, len(want) - 1, len(want)):
        with make() as ds:
            it = iter(ds)
            for _ in range(cut):
                next(it)
            if cut == len(want):
                assert next(it, None) is None
            state = it.state_dict()
            it.close()
        # The state is plain data: it survives JSON (and so torch.save).
        state = json.loads(json.dumps(state))
        with make() as ds:
            ds.load_state_dict(state)
            # A state taken after the iteration's end makes the next a
            # whole one, as it would have been (torchdata's convention).
            resumed = want if cut == len(want) else want[cut:]
            assert labels(ds) == resumed, f"resumed at {cut}"
            # Only the next iteration resumes.
            assert labels(ds) == want


def test_loaded_state_goes_with_the_data_set(tmp_path):
    """A state loaded and not yet started from is the data set's state,
    and goes with its copies() and with it pickled (to spawned workers);
    a shard, whose files are others, refuses it."""
    pat, _ = make_examples(tmp_path)
    make = lambda: sluice.examples(pat, SPEC, batch_size=8, shuffle=10, seed=2, deterministic=True)
    with make() as ds:
        want = labels(ds)
        it = iter(ds)
        for _ in range(4):
            next(it)
        state = it.state_dict()
        it.close()
        # The data set has an iteration before, which it must not report.
        assert labels(ds) == want
        ds.load_state_dict(state)
        assert ds.state_dict() == state
        with ds.copies() as c:
            assert labels(c) == want[4:]
        with pickle.loads(pickle.dumps(ds)) as p:
            assert p.state_dict() == state
            assert labels(p) == want[4:]
        with pytest.raises(sluice.InvalidArgumentError, match="shard"):
            ds.shard(0, 2)
        assert labels(ds) == want[4:]
        assert ds.shard(0, 2) is not None  # started from: nothing pending


def test_state_after_the_end_starts_a_whole_iteration(tmp_path):
    """A loop that saves after each epoch and, resumed, goes on with the
    next epoch reads that epoch whole, not the nothing left of the saved
    one; the state round-trips through the data set until used."""
    pat, _ = make_examples(tmp_path)
    make = lambda: sluice.examples(pat, SPEC, batch_size=8, shuffle=10, seed=3, deterministic=True)
    with make() as ds:
        want = labels(ds)
        state = json.loads(json.dumps(ds.state_dict()))
    assert state.get("end") is True
    with make() as ds:
        ds.load_state_dict(state)
        assert ds.state_dict() == state
        assert labels(ds) == want
        assert ds.state_dict() == state  # at the end again
    # A state taken before the end is no end's, though it may lie there.
    with make() as ds:
        it = iter(ds)
        for _ in want:
            next(it)
        mid = it.state_dict()
        it.close()
    assert "end" not in mid
    with make() as ds:
        ds.load_state_dict(mid)
        assert labels(ds) == []


def test_failed_start_keeps_the_loaded_state(tmp_path):
    """An iteration whose start fails (its files gone for a while) does
    not use up the loaded state: the next iteration resumes from it,
    rather than silently reading from the first record."""
    pat, _ = make_examples(tmp_path)
    make = lambda: sluice.examples(pat, SPEC, batch_size=8, shuffle=10, seed=4, deterministic=True)
    with make() as ds:
        want = labels(ds)
        it = iter(ds)
        for _ in range(3):
            next(it)
        state = it.state_dict()
        it.close()
    away = tmp_path / "away"
    away.mkdir()
    files = sorted(f for f in os.listdir(tmp_path) if f.endswith(".tfrecord"))
    with make() as ds:
        ds.load_state_dict(state)
        for f in files:
            os.rename(tmp_path / f, away / f)
        with pytest.raises(sluice.SluiceError):
            next(iter(ds))
        assert ds.state_dict() == state
        for f in files:
            os.rename(away / f, tmp_path / f)
        assert labels(ds) == want[3:]
        assert labels(ds) == want  # used up: the next starts anew


def test_state_needs_determinism(tmp_path):
    pat, _ = make_examples(tmp_path)
    with sluice.examples(pat, SPEC, batch_size=8) as ds:
        it = iter(ds)
        next(it)
        with pytest.raises(sluice.InvalidArgumentError):
            it.state_dict()
        with pytest.raises(sluice.InvalidArgumentError):
            ds.load_state_dict({"sluice": {}})


def test_changed_options_refused(tmp_path):
    pat, _ = make_examples(tmp_path)
    with sluice.examples(pat, SPEC, batch_size=8, shuffle=10, seed=1, deterministic=True) as ds:
        it = iter(ds)
        next(it)
        state = ds.state_dict()
    with sluice.examples(pat, SPEC, batch_size=8, shuffle=11, seed=1, deterministic=True) as ds:
        ds.load_state_dict(state)
        with pytest.raises(sluice.SluiceError, match="Shuffle 10, this data set has 11"):
            next(iter(ds))


# A state damaged in its file (a digit of the batches delivered changed) is
# refused, not resumed somewhere else: the server's checkpoint carries a
# checksum of its content.
@pytest.mark.parametrize("mode", ["deterministic", "global_shuffle"])
def test_damaged_state_refused(tmp_path, mode):
    pat = plain_examples(str(tmp_path))
    with sluice.examples(pat, SPEC, batch_size=8, shuffle=10, seed=1, **{mode: True}) as ds:
        it = iter(ds)
        next(it)
        next(it)
        state = json.loads(json.dumps(ds.state_dict()))
    assert state["sluice"]["delivered"] == 2, state
    damaged = json.loads(json.dumps(state))
    damaged["sluice"]["delivered"] = 3
    with sluice.examples(pat, SPEC, batch_size=8, shuffle=10, seed=1, **{mode: True}) as ds:
        ds.load_state_dict(damaged)
        with pytest.raises(sluice.InvalidArgumentError, match="damaged"):
            next(iter(ds))


# A trainer that saves its data state every batch and is killed (SIGKILL,
# by itself) after the fifth.
KILLED = textwrap.dedent("""
    import json, os, signal, sys
    import sluice
    spec = {"label": sluice.FixedLen([], "int64"), "image": sluice.FixedLen([4], "float32")}
    ds = sluice.examples(sys.argv[1], spec, batch_size=7, epochs=2, shuffle=25, seed=5, deterministic=True)
    for step, b in enumerate(ds):
        with open(sys.argv[2] + ".tmp", "w") as f:
            json.dump({"step": step, "labels": b["label"].tolist(), "data": ds.state_dict()}, f)
        os.replace(sys.argv[2] + ".tmp", sys.argv[2])
        if step == 4:
            os.kill(os.getpid(), signal.SIGKILL)
""")


def test_resume_after_sigkill(tmp_path):
    pat, _ = make_examples(tmp_path)
    saved = str(tmp_path / "state.json")
    p = subprocess.run([sys.executable, "-c", KILLED, pat, saved], timeout=60)
    assert p.returncode == -signal.SIGKILL
    with open(saved) as f:
        state = json.load(f)
    assert state["step"] == 4
    with sluice.examples(pat, SPEC, batch_size=7, epochs=2, shuffle=25, seed=5, deterministic=True) as ds:
        want = labels(ds)
        assert want[4] == state["labels"]
        ds.load_state_dict(state["data"])
        assert labels(ds) == want[5:]


@pytest.mark.parametrize("mode", ["plain", "deterministic"])
def test_corrupt_record_after_good_batches(tmp_path, mode):
    """A corrupt record ends the iteration where it lies: the batches
    before the one that holds it come first, the same in both modes (with
    batches asked for four at a time), then a DataError naming it."""
    recs = [tfrecords.example({"label": ("int64", [i])}) for i in range(40)]
    path = str(tmp_path / "x.tfrecord")
    offsets = tfrecords.write(path, recs)
    data = bytearray(open(path, "rb").read())
    data[offsets[13] + 14] ^= 1  # record 13's data: the batch of 12 to 15
    open(path, "wb").write(data)
    ds = sluice.examples(path, {"label": sluice.FixedLen([], "int64")}, batch_size=4, readers=1,
                         deterministic=mode == "deterministic")
    labels = []
    with pytest.raises(sluice.DataError) as e:
        for b in ds:
            labels += b["label"].tolist()
    assert labels == list(range(12))
    assert e.value.file == path
    ds.close()


def test_state_after_a_corrupt_record(tmp_path):
    """The state after a corrupt record's error is the position after the
    batches returned before it, also while the server's read-ahead has
    met the record and the trainer has not; the same data set with
    skip_corrupt=True resumes there and reads on past the record."""
    recs = [tfrecords.example({"label": ("int64", [i])}) for i in range(100)]
    path = str(tmp_path / "x.tfrecord")
    offsets = tfrecords.write(path, recs)
    data = bytearray(open(path, "rb").read())
    data[offsets[50] + 14] ^= 1  # record 50: the batch of 50 to 54
    open(path, "wb").write(data)
    spec = {"label": sluice.FixedLen([], "int64")}
    make = lambda skip: sluice.examples(path, spec, batch_size=5, readers=1, deterministic=True, skip_corrupt=skip)
    got, states = [], []
    with make(False) as ds:
        with pytest.raises(sluice.DataError):
            for b in ds:
                got += b["label"].tolist()
                states.append(ds.state_dict())
        assert got == list(range(50))
        at_error = ds.state_dict()
    for i, st in enumerate(states):
        with make(True) as ds:
            ds.load_state_dict(st)
            rest = sum(labels(ds), [])
            assert rest == [x for x in range(5 * (i + 1), 100) if x != 50], f"resumed after batch {i + 1}"
    assert at_error == states[-1]
    with make(True) as ds:
        ds.load_state_dict(json.loads(json.dumps(at_error)))
        assert sum(labels(ds), []) == list(range(51, 100))


def _interrupt(monkeypatch, where):
    """Makes the next state exchange raise KeyboardInterrupt, as a Ctrl-C
    landing there does: "sent" once its request is sent (the signal came
    while it waited for the reply), "read" once a reply sent ahead has been
    read and not yet counted (between two bytecodes)."""
    from sluice import _core
    send, recv = _core._Session._send, _core._Session._recv
    if where == "sent":
        def patched(self, msg):
            send(self, msg)
            if isinstance(msg, dict) and msg.get("op") == "state":
                monkeypatch.setattr(_core._Session, "_send", send)
                raise KeyboardInterrupt
        monkeypatch.setattr(_core._Session, "_send", patched)
    else:
        def patched(self):
            monkeypatch.setattr(_core._Session, "_recv", recv)
            recv(self)
            raise KeyboardInterrupt
        monkeypatch.setattr(_core._Session, "_recv", patched)


@pytest.mark.parametrize("where", ["sent", "read"])
def test_state_dict_interrupted(tmp_path, monkeypatch, where):
    """A Ctrl-C that cuts short state_dict()'s exchange with the server
    ends the iteration with an error saying so at its next batch, not a
    "malformed reply" (the state's reply taken for a batch's), a hang (a
    reply read ahead and not counted, waited for again) or a quiet end; the
    server is not reused, and the data set's next iteration, and other data
    sets, read whole (audit 80)."""
    pat, truth = make_examples(tmp_path)
    n = len(truth)
    ds = sluice.examples(pat, SPEC, batch_size=8, deterministic=True)
    it = iter(ds)
    next(it)
    if where == "read":
        while it._s._ahead == 0:  # replies are on their way
            next(it)
    _interrupt(monkeypatch, where)
    with pytest.raises(KeyboardInterrupt):
        it.state_dict()
    with pytest.raises(sluice.SluiceError, match="cut short a state_dict"):
        next(it)
    with pytest.raises(sluice.SluiceError, match="cut short a state_dict"):
        next(it)
    assert sorted(sum(labels(ds), [])) == list(range(n))
    del it, ds
    other = sluice.examples(pat, {"label": sluice.FixedLen([], "int64")}, batch_size=100)
    assert sorted(sum(labels(other), [])) == list(range(n))


def test_end_of_loop_state_interrupted(tmp_path, monkeypatch):
    """A Ctrl-C in the state a resumable iteration takes at its end leaves
    no session out of step for the data set's next iteration (audit 80:
    "an open's reply without features")."""
    pat, truth = make_examples(tmp_path)
    n = len(truth)
    ds = sluice.examples(pat, SPEC, batch_size=8, deterministic=True)
    it = iter(ds)
    got = []
    with pytest.raises(KeyboardInterrupt):
        for b in it:
            got += b["label"].tolist()
            if len(got) == n:
                _interrupt(monkeypatch, "sent")
    assert sorted(got) == list(range(n))
    with pytest.raises(StopIteration):
        next(it)  # the epoch had ended
    assert sorted(sum(labels(ds), [])) == list(range(n))


def test_next_interrupted_then_next(tmp_path, monkeypatch):
    """A Ctrl-C inside next() ends the iteration: a loop that catches it
    and goes on is told so at its next batch, not given the StopIteration
    of an epoch's end with batches unread (audit 83); a data error, read
    whole and raised, still ends it as Python's iterators end."""
    from sluice import _core
    pat, truth = make_examples(tmp_path)
    it = iter(sluice.examples(pat, SPEC, batch_size=8))
    next(it)
    recv = _core._Session._recv

    def patched(self):
        monkeypatch.setattr(_core._Session, "_recv", recv)
        raise KeyboardInterrupt

    monkeypatch.setattr(_core._Session, "_recv", patched)
    with pytest.raises(KeyboardInterrupt):
        while True:
            next(it)
    with pytest.raises(sluice.SluiceError, match="KeyboardInterrupt ended a next"):
        next(it)


def test_state_dict_interrupted_twice(tmp_path, monkeypatch):
    """A second Ctrl-C, in the wait for the server that a cut-short
    state_dict() ends, still leaves the iteration saying why it cannot go
    on (audit 83: it ended as a whole epoch does)."""
    from sluice import _core
    pat, _ = make_examples(tmp_path)
    it = iter(sluice.examples(pat, SPEC, batch_size=8, deterministic=True))
    next(it)
    _interrupt(monkeypatch, "sent")
    close = _core._Session.close

    def interrupted_close(self, wait=5):
        monkeypatch.setattr(_core._Session, "close", close)
        close(self, wait)
        raise KeyboardInterrupt

    monkeypatch.setattr(_core._Session, "close", interrupted_close)
    with pytest.raises(KeyboardInterrupt):
        it.state_dict()
    with pytest.raises(sluice.SluiceError, match="cut short a state_dict"):
        next(it)
