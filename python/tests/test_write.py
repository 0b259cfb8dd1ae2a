"""sluice.writer: TFRecord files of Examples from Python, byte for byte as
TensorFlow serializes them, all or nothing."""

import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import sluice
from conftest import alive
from example_cases import CASES, SEQUENCE_CASES

HERE = os.path.dirname(os.path.abspath(__file__))


def tf_bytes(kind="examples"):
    with open(os.path.join(HERE, "data", "tf_examples.json")) as f:
        return {k: bytes.fromhex(v) for k, v in json.load(f)[kind].items()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_encode_matches_tensorflow(name):
    # TensorFlow 2.21's tf.train.Example of the same values, serialized
    # with its map keys sorted (tools/tfref/pywrite.py).
    assert sluice.encode_example(CASES[name]()) == tf_bytes()[name]


@pytest.mark.parametrize("name", sorted(SEQUENCE_CASES))
def test_encode_sequence_matches_tensorflow(name):
    assert sluice.encode_sequence_example(*SEQUENCE_CASES[name]()) == tf_bytes("sequence_examples")[name]


def test_sequence_round_trip(tmp_path):
    with sluice.writer(tmp_path / "seq") as w:
        for i in range(3):
            w.write(sluice.encode_sequence_example({"id": i}, {"frames": np.full((i + 1, 2), i, np.float32)}))
    ds = sluice.sequence_examples(w.files, {"id": sluice.FixedLen([], "int64")},
                                  {"frames": sluice.FixedLenSequence([2], "float32")}, batch_size=3, copy=True)
    (b,) = list(ds)
    values, lengths = b["frames"]
    assert b["id"].tolist() == [0, 1, 2] and lengths.tolist() == [1, 2, 3]
    assert values[2].tolist() == [[2, 2]] * 3 and values[0][0].tolist() == [0, 0]


def records(path):
    """The records of an uncompressed TFRecord file, CRCs skipped."""
    data, out, i = open(path, "rb").read(), [], 0
    while i < len(data):
        (n,) = struct.unpack_from("<Q", data, i)
        out.append(data[i + 12:i + 12 + n])
        i += 12 + n + 4
    return out


@pytest.mark.parametrize("shards,compression", [(1, None), (3, "GZIP"), (2, "ZSTD"), (1, "zlib")])
def test_round_trip(tmp_path, shards, compression):
    rows = [{"image": np.full(4, i, np.float32), "label": i - 5, "name": f"row {i}"} for i in range(11)]
    with sluice.writer(tmp_path / "data", shards=shards, compression=compression) as w:
        for r in rows:
            w.write(r)
    assert sorted(os.listdir(tmp_path)) == sorted(os.path.basename(f) for f in w.files)
    assert len(w.files) == shards and w.count == 11
    spec = {"image": sluice.FixedLen([4], "float32"), "label": sluice.FixedLen([], "int64"),
            "name": sluice.FixedLen([], bytes)}
    got = {}
    for b in sluice.examples(w.files, spec, batch_size=4, readers=1, copy=True):
        for img, label, name in zip(b["image"], b["label"], b["name"]):
            got[int(label)] = (img.tolist(), name)
    assert got == {i - 5: ([float(i)] * 4, f"row {i}".encode()) for i in range(11)}


def test_names(tmp_path):
    assert sluice.writer(tmp_path / "x.tfrecord").files == [str(tmp_path / "x.tfrecord")]
    w = sluice.writer(str(tmp_path / "x.tfrecord.gz"), shards=2, compression="GZIP")
    assert w.files == [str(tmp_path / f"x-0000{i}-of-00002.tfrecord.gz") for i in range(2)]
    w.abort()
    assert os.listdir(tmp_path) == []


def test_close_after_abort_wrote_nothing(tmp_path):
    # close() after abort() said the records sent had been written, where
    # no file was (audit 65); abort() after close() leaves the files.
    w = sluice.writer(tmp_path / "x")
    w.write(b"a")
    w.write(b"b")
    w.abort()
    assert w.close() == 0
    assert os.listdir(tmp_path) == []
    w = sluice.writer(tmp_path / "y")
    w.write(b"a")
    assert w.close() == 1
    w.abort()
    assert w.close() == 1
    assert records(w.files[0]) == [b"a"]


def test_raw_records_and_order(tmp_path):
    recs = [b"", b"a", os.urandom(100000), b"end"]
    with sluice.writer(tmp_path / "raw") as w:
        for r in recs:
            w.write(r)
    assert records(w.files[0]) == recs
    assert w.close() == 4  # closing again: the count


def test_numbers_as_they_are(tmp_path):
    """Integers in an object array (a pandas column) are an Int64List, not
    bytes of zeros; a list of integers stays integers; a memoryview
    record is its bytes, whatever its item size."""
    assert sluice.encode_example({"n": np.array([3, 1, 2], dtype=object)}) == sluice.encode_example({"n": [3, 1, 2]})
    assert sluice.encode_example({"n": [-(2**63), 2**63 - 1]}) == \
        sluice.encode_example({"n": np.array([-(2**63), 2**63 - 1], np.int64)})
    words = np.arange(4, dtype="<u4")
    with sluice.writer(tmp_path / "mv") as w:
        w.write(memoryview(words))
        w.write(b"second")
    assert records(w.files[0]) == [words.tobytes(), b"second"]


def test_many_records_cross_messages(tmp_path):
    # More than a message holds (4 MiB), and a record of 5 MiB alone.
    big = os.urandom(5 << 20)
    with sluice.writer(tmp_path / "many") as w:
        for i in range(3000):
            w.write(bytes([i % 256]) * 2000)
        w.write(big)
    got = records(w.files[0])
    assert len(got) == 3001 and got[-1] == big and got[2999] == bytes([2999 % 256]) * 2000


def test_records_larger_than_a_message(tmp_path):
    # A record over a message's 16 MiB goes in parts, between whole ones.
    big = os.urandom(40 << 20)
    edge = os.urandom((16 << 20) - 5)  # the largest that fits one message with its length
    with sluice.writer(tmp_path / "big", shards=2) as w:
        w.write(b"before")
        w.write(big)
        w.write(edge)
        w.write(bytearray(b"after"))
    got = records(w.files[0]) + records(w.files[1])
    assert sorted(map(len, got)) == sorted([6, len(big), len(edge), 5])
    assert big in got and edge in got and w.count == 4


def test_short_writes_are_finished(tmp_path, monkeypatch):
    # A signal handled during a write to the pipe can cut the write
    # short; the client writes the rest.
    real = os.write

    def short(fd, data):
        return real(fd, memoryview(data)[:1000])

    monkeypatch.setattr(os, "write", short)
    recs = [os.urandom(3000), b"x", os.urandom(20000)]
    with sluice.writer(tmp_path / "short") as w:
        for r in recs:
            w.write(r)
    monkeypatch.undo()
    assert records(w.files[0]) == recs


def test_exception_leaves_nothing(tmp_path):
    old = tmp_path / "data.tfrecord"
    old.write_bytes(b"an earlier data set")
    with pytest.raises(RuntimeError):
        with sluice.writer(tmp_path / "data") as w:
            w.write({"x": 1})
            raise RuntimeError("the job failed")
    assert os.listdir(tmp_path) == ["data.tfrecord"]
    assert old.read_bytes() == b"an earlier data set"
    with pytest.raises(sluice.SluiceError, match="closed"):
        w.write({"x": 2})


@pytest.mark.parametrize("at", ["after", "during"])
def test_interrupted_write_aborts(tmp_path, monkeypatch, at):
    # A Ctrl-C in write() that the caller catches, and then close(): an
    # interrupt just after a message of records went out (its records
    # still buffered) made close() send them again, and one in the middle
    # of a message left the server reading garbage or both sides waiting
    # (audit 41). The writer aborts: close() raises, no file appears, and
    # the files of the same name keep what they held.
    old = tmp_path / "out.tfrecord"
    old.write_bytes(b"an earlier data set")
    real = sluice._core._Session._send
    sent = {"records": 0}

    def send(self, msg):
        if isinstance(msg, bytes) and msg[4:5] == b"\0":  # a message of records
            sent["records"] += 1
            if sent["records"] == 2:
                if at == "during":
                    os.write(self._in, msg[:len(msg) // 2])
                    raise KeyboardInterrupt
                real(self, msg)
                raise KeyboardInterrupt
        real(self, msg)

    monkeypatch.setattr(sluice._core._Session, "_send", send)
    w = sluice.writer(tmp_path / "out")
    written = 0
    with pytest.raises(KeyboardInterrupt):
        while True:
            w.write(struct.pack("<Q", written) + bytes(100000))
            written += 1
    monkeypatch.undo()
    with pytest.raises(sluice.SluiceError, match=f"aborted by KeyboardInterrupt while writing record {written}; no file"):
        w.close()
    with pytest.raises(sluice.SluiceError, match="aborted by KeyboardInterrupt"):
        w.write(b"more")
    assert os.listdir(tmp_path) == ["out.tfrecord"]
    assert old.read_bytes() == b"an earlier data set"


def _interrupt_commit(monkeypatch, when):
    """Makes close() meet a KeyboardInterrupt, as a Ctrl-C: "unsent" as it
    is about to ask for the commit, "waiting" while it waits for the reply,
    "read" just after the reply came."""
    real_send, real_recv = sluice._core._Session._send, sluice._core._Session._recv
    commit = []

    def send(self, msg):
        if isinstance(msg, dict) and msg.get("op") == "commit":
            if when == "unsent":
                raise KeyboardInterrupt
            commit.append(True)
        real_send(self, msg)

    def recv(self):
        if not commit:
            return real_recv(self)
        monkeypatch.setattr(sluice._core._Session, "_recv", real_recv)
        if when == "read":
            real_recv(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(sluice._core._Session, "_send", send)
    monkeypatch.setattr(sluice._core._Session, "_recv", recv)


@pytest.mark.parametrize("when", ["unsent", "waiting", "read"])
def test_close_interrupted(tmp_path, monkeypatch, when):
    # A Ctrl-C in close(). Before the commit is asked for, the writer
    # aborts at once: no file (audit 83: it waited five seconds for a reply
    # that could not come). After, the commit goes on whatever the client
    # does, and the writer waits for its outcome (or has it, when the reply
    # came as the Ctrl-C did), then raises the KeyboardInterrupt; closing
    # again returns the records written. It used to abort, closing the
    # server's input, so that the commit went through or not by a race, and
    # closing again returned 0 either way (audit 80).
    old = tmp_path / "out.tfrecord"
    old.write_bytes(b"an earlier data set")
    w = sluice.writer(tmp_path / "out")
    for i in range(1000):
        w.write({"i": i})
    _interrupt_commit(monkeypatch, when)
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        w.close()
    assert time.monotonic() - start < 3
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["out.tfrecord"]
    if when == "unsent":
        assert w.close() == 0
        assert old.read_bytes() == b"an earlier data set"
        return
    assert w.close() == 1000
    with sluice.records(str(old), batch_size=1000) as ds:
        assert sum(len(b["record"]) for b in ds) == 1000


def test_close_interrupted_after_a_failing_commit(tmp_path, monkeypatch):
    # The same, for a commit that fails (its folder removed meanwhile):
    # closing again raises the commit's own error, as a close() not cut
    # short does.
    folder = tmp_path / "sub"
    folder.mkdir()
    w = sluice.writer(folder / "out")
    w.write({"i": 1})
    shutil.rmtree(folder)
    _interrupt_commit(monkeypatch, "waiting")
    with pytest.raises(KeyboardInterrupt):
        w.close()
    monkeypatch.undo()
    with pytest.raises(sluice.SluiceError) as e:
        w.close()
    assert "outcome is unknown" not in str(e.value) and "sub" in str(e.value), e.value
    assert os.listdir(tmp_path) == []


def test_odd_values_named_or_written(tmp_path):
    # A str UTF-8 cannot encode (a lone surrogate) is an error naming the
    # record and feature, where rebuilding its UnicodeEncodeError failed
    # with "function takes exactly 5 arguments"; a feature list given as
    # a dict is refused, not written as its keys; a strided memoryview is
    # written as its bytes (audit 41).
    with sluice.writer(tmp_path / "odd") as w:
        with pytest.raises(sluice.InvalidArgumentError, match=r"record 0: feature 'name': .*UTF-8 cannot encode"):
            w.write({"name": "a\udc80"})
        with pytest.raises(sluice.InvalidArgumentError, match=r"record 0: feature name: .*UTF-8 cannot encode"):
            w.write({"\udc80": 1})
        w.write(memoryview(b"0123456789")[::2])
    assert records(w.files[0]) == [b"02468"]
    with pytest.raises(TypeError, match="feature list 'x': a sequence of steps, not a dict"):
        sluice.encode_sequence_example(None, {"x": {"a": 1}})
    with pytest.raises(TypeError, match="not a set"):
        sluice.encode_sequence_example(None, {"x": {1, 2}})
    with pytest.raises(sluice.InvalidArgumentError, match="feature 'x': a value beyond float64"):
        sluice.encode_example({"x": [1.5, 10**400]})


def test_replaces_only_at_close(tmp_path):
    old = tmp_path / "data.tfrecord"
    old.write_bytes(b"an earlier data set")
    w = sluice.writer(tmp_path / "data")
    w.write(b"new")
    assert old.read_bytes() == b"an earlier data set"
    assert w.close() == 1
    assert records(str(old)) == [b"new"]


WRITER = textwrap.dedent("""
    import sys
    import sluice
    w = sluice.writer(sys.argv[1], shards=2, compression="GZIP")
    w.write({"x": 1})
    w._flush()
    print(w._s.server_pid, flush=True)
    while True:
        w.write({"x": list(range(100))})
""")


def test_sigkill_of_the_writer(tmp_path):
    p = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / "data")], stdout=subprocess.PIPE, text=True)
    server = int(p.stdout.readline())
    time.sleep(0.3)  # writing
    assert len(os.listdir(tmp_path)) == 2  # two temporaries
    p.kill()
    p.wait()
    deadline = time.monotonic() + 5
    while (alive(server) or os.listdir(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(server) and os.listdir(tmp_path) == [], os.listdir(tmp_path)


def test_rerun_after_the_server_was_killed_leaves_no_temporary(tmp_path):
    # sluice-serve killed mid-write (SIGKILL, the OOM killer) leaves its
    # temporaries; the rerun that verify advises removes them.
    w = sluice.writer(tmp_path / "data", shards=2)
    for i in range(1000):
        w.write({"x": i})
    w._flush()
    deadline = time.monotonic() + 5
    while len(os.listdir(tmp_path)) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(w._s.server_pid, signal.SIGKILL)
    with pytest.raises(sluice.SluiceError):
        w.close()
    left = sorted(os.listdir(tmp_path))
    assert len(left) == 2 and all(".sluice-tmp-" in n for n in left), left
    with sluice.writer(tmp_path / "data", shards=2) as w:
        for i in range(10):
            w.write({"x": i})
    assert sorted(os.listdir(tmp_path)) == ["data-00000-of-00002.tfrecord", "data-00001-of-00002.tfrecord"]
    assert len(records(str(tmp_path / "data-00000-of-00002.tfrecord"))) == 5


def test_refused_beside_a_running_writer(tmp_path):
    p = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / "data")], stdout=subprocess.PIPE, text=True)
    try:
        p.stdout.readline()
        running = sorted(os.listdir(tmp_path))
        with pytest.raises(sluice.SluiceError, match="another writer is writing .*data-00000-of-00002.tfrecord.gz"):
            sluice.writer(tmp_path / "data", shards=2, compression="GZIP")
        assert sorted(os.listdir(tmp_path)) == running  # the running writer's alone
    finally:
        p.kill()
        p.wait()


@pytest.mark.parametrize("value,error,match", [
    ({"x": object()}, TypeError, "feature 'x': a object is not bytes"),
    ({"x": np.array([1 + 2j])}, TypeError, "feature 'x': NumPy dtype complex128"),
    ({"x": np.array([2**64 - 1], np.uint64)}, sluice.InvalidArgumentError, "beyond int64"),
    # 2**63 + 1000 is 2**63 as a float, which NumPy 1.22 compared an int
    # with (audit 105).
    ({"x": np.array([2**63 + 1000], np.uint64)}, sluice.InvalidArgumentError, "beyond int64"),
    ({"x": np.array([2**63], ">u8")}, sluice.InvalidArgumentError, "beyond int64"),
    ({"x": 2**63}, sluice.InvalidArgumentError, "beyond int64"),
    ({"x": [2**63, -1]}, sluice.InvalidArgumentError, "beyond int64"),  # not floats
    ({"x": [5, 2**64]}, sluice.InvalidArgumentError, "beyond int64"),
    ({"x": np.array([b"a", 3], dtype=object)}, TypeError, "an object array of other than all bytes"),
    ({"x": [1, "a"]}, TypeError, "feature 'x': a list of other than all numbers"),
    ({1: 2}, TypeError, "feature name 1 is not a str"),
    ({"a": 1, 2: 3}, TypeError, "feature name 2 is not a str"),
    ([1, 2], TypeError, "an Example is a dict of features, not a list"),
    (b"ok", None, None),
])
def test_bad_values(tmp_path, value, error, match):
    with sluice.writer(tmp_path / "bad") as w:
        if error is None:
            w.write(value)  # the control: a good record is written
        else:
            with pytest.raises(error, match=match):
                w.write(value)
    assert records(w.files[0]) == ([value] if error is None else [])


def test_bad_sequences():
    with pytest.raises(TypeError, match="feature list 'x': a sequence of steps, not a int"):
        sluice.encode_sequence_example(None, {"x": 3})
    with pytest.raises(TypeError, match=r"feature 'x\[1\]': a object"):
        sluice.encode_sequence_example(None, {"x": [1, object()]})
    with pytest.raises(TypeError, match="the context is a dict of features"):
        sluice.encode_sequence_example([1], {})


def test_bad_options(tmp_path):
    with pytest.raises(sluice.InvalidArgumentError, match="compression='LZ4'"):
        sluice.writer(tmp_path / "x", compression="LZ4")
    with pytest.raises(sluice.InvalidArgumentError, match="shards=0"):
        sluice.writer(tmp_path / "x", shards=0)
    # Each shard a file written at once: a count beyond sluice convert's
    # is refused before a name is made.
    with pytest.raises(sluice.InvalidArgumentError, match="shards=2147483647: want an int from 1 to 10000"):
        sluice.writer(tmp_path / "x", shards=2**31 - 1)
    with pytest.raises(sluice.SluiceError, match="no such file"):
        sluice.writer(tmp_path / "no" / "such" / "dir" / "x")
    # A name that is not UTF-8 reached the server as U+FFFD, another name
    # than w.files; "" and a folder wrote a hidden .tfrecord (audit 106).
    with pytest.raises(sluice.InvalidArgumentError, match="not UTF-8"):
        sluice.writer(os.fsdecode(os.path.join(os.fsencode(tmp_path), b"out\xe9")))
    for folder in ("", str(tmp_path) + "/", str(tmp_path) + "/.", str(tmp_path / "sub") + "/.."):
        with pytest.raises(sluice.InvalidArgumentError, match="names a folder"):
            sluice.writer(folder)
    assert os.listdir(tmp_path) == []


def test_a_compressed_name_is_the_name_written(tmp_path):
    # writer("data.tfrecord.gz") once wrote, and replaced, data.tfrecord:
    # here the file being read.
    with sluice.writer(tmp_path / "data.tfrecord") as w:
        for i in range(10):
            w.write({"id": i})
    before = (tmp_path / "data.tfrecord").read_bytes()
    with sluice.writer(tmp_path / "data.tfrecord.gz") as w:
        for i in range(0, 10, 2):
            w.write({"id": i})
    assert w.files == [str(tmp_path / "data.tfrecord.gz")]
    assert (tmp_path / "data.tfrecord").read_bytes() == before
    assert (tmp_path / "data.tfrecord.gz").read_bytes()[:2] == b"\x1f\x8b"  # GZIP, as the name says
    got = sluice.examples(w.files, {"id": sluice.FixedLen([], "int64")}, 10, copy=True)
    assert [b["id"].tolist() for b in got] == [[0, 2, 4, 6, 8]]


@pytest.mark.parametrize("name,shards,compression,files,magic", [
    ("d.tfrecord.gz", 1, None, ["d.tfrecord.gz"], b"\x1f\x8b"),
    ("d.tfrecord.gz", 1, "gzip", ["d.tfrecord.gz"], b"\x1f\x8b"),
    ("d.tfrecord.zst", 2, None, ["d-00000-of-00002.tfrecord.zst", "d-00001-of-00002.tfrecord.zst"], b"\x28\xb5\x2f\xfd"),
    ("d.tfrecord.zlib", 1, "auto", ["d.tfrecord.zlib"], b"\x78"),
    ("d.zz", 1, None, ["d.zz"], b"\x78"),
    ("d.gz", 2, None, ["d-00000-of-00002.gz", "d-00001-of-00002.gz"], b"\x1f\x8b"),
    ("d.tfrecord", 1, "GZIP", ["d.tfrecord.gz"], b"\x1f\x8b"),
    ("d", 1, "Zstd", ["d.tfrecord.zst"], b"\x28\xb5\x2f\xfd"),
    ("d", 2, None, ["d-00000-of-00002.tfrecord", "d-00001-of-00002.tfrecord"], None),
])
def test_names_and_their_compression(tmp_path, name, shards, compression, files, magic):
    with sluice.writer(tmp_path / name, shards=shards, compression=compression) as w:
        for i in range(4):
            w.write({"id": i})
    assert w.files == [str(tmp_path / f) for f in files]
    assert sorted(os.listdir(tmp_path)) == sorted(files)
    for f in w.files:
        data = open(f, "rb").read()
        if magic is not None:
            assert data.startswith(magic)
    got = sorted(int(i) for b in sluice.examples(w.files, {"id": sluice.FixedLen([], "int64")}, 4) for i in b["id"])
    assert got == [0, 1, 2, 3]


@pytest.mark.parametrize("name,compression", [
    ("d.tfrecord.gz", "NONE"), ("d.tfrecord.gz", "ZSTD"), ("d.zst", "gzip"), ("d.tfrecord.zlib", "none"),
])
def test_a_name_contradicting_compression_is_refused(tmp_path, name, compression):
    with pytest.raises(sluice.InvalidArgumentError, match=rf"compression='{compression}', but the name .* ends in"):
        sluice.writer(tmp_path / name, compression=compression)
    assert os.listdir(tmp_path) == []


def test_an_error_names_the_record(tmp_path):
    with sluice.writer(tmp_path / "w") as w:
        for i in range(4999):
            w.write({"id": i, "weight": 0.5})
        with pytest.raises(TypeError, match=r"^record 4999: feature 'weight': a NoneType is not bytes"):
            w.write({"id": 4999, "weight": None})
        with pytest.raises(sluice.InvalidArgumentError, match=r"^record 4999: feature 'id': a value beyond int64"):
            w.write({"id": 2**64})
        w.write({"id": 4999, "weight": 1.0})  # the writer goes on
    assert w.count == 5000
    with sluice.writer(tmp_path / "s", shards=3) as w:
        for i in range(7):
            w.write({"id": i})
        with pytest.raises(TypeError, match=r"^record 7 \(record 2 of s-00001-of-00003.tfrecord\): feature 'x'"):
            w.write({"x": object()})


def test_not_durable_is_told_apart():
    # The one error of a commit after which the files are under their
    # names (the folder could not be flushed to disk) has a class of its
    # own, so that a caller can tell it from a write that left nothing.
    from sluice._core import _error

    e = _error({"kind": "not_durable", "message": "storage: a.tfrecord written: the directory could not be synced"})
    assert isinstance(e, sluice.NotDurableError) and isinstance(e, sluice.SluiceError)
    assert not isinstance(_error({"kind": "other", "message": "disk full"}), sluice.NotDurableError)
