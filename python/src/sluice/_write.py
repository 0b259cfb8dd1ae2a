"""Writing TFRecord files: tf.train.Example records encoded here, framed,
checksummed, compressed and written by a sluice-serve process, all or
nothing."""

from __future__ import annotations

import os
import struct
from typing import Any, List, Mapping, Optional, Tuple, Union

import numpy as np

from ._core import InvalidArgumentError, SluiceError, _compression, _frame, _Session, _uninterrupted

# ---------------------------------------------------------------------------
# tf.train.Example, in protocol buffer wire format


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field: its key, its length and its bytes."""
    return bytes([number << 3 | 2]) + _uvarint(len(payload)) + payload


_SHIFTS = np.arange(10, dtype=np.uint64) * np.uint64(7)


def _varints(values: np.ndarray) -> bytes:
    """The varints of int64 values (two's complement, so a negative one
    takes ten bytes), all at once."""
    v = values.astype(np.int64, copy=False).ravel().view(np.uint64)
    if v.size == 0:
        return b""
    groups = v[:, None] >> _SHIFTS  # [n, 10]: the value shifted by 0, 7, ... 63 bits
    lengths = np.maximum((groups != 0).sum(axis=1), 1)
    cols = np.arange(10)
    more = cols[None, :] < lengths[:, None] - 1
    out = (groups & np.uint64(0x7F)).astype(np.uint8) | (more.astype(np.uint8) << 7)
    return out[cols[None, :] < lengths[:, None]].tobytes()


def _utf8(v: str, what: str) -> bytes:
    """v in UTF-8; what names it in the error of a str UTF-8 cannot encode
    (a lone surrogate, from os.fsdecode of a file name, say)."""
    try:
        return v.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidArgumentError(f"{what}: {v[:100]!r} holds {e.object[e.start:e.end]!r} at {e.start}, "
                                   "which UTF-8 cannot encode") from None


def _bytes_of(v: Any, name: str) -> bytes:
    if isinstance(v, str):
        return _utf8(v, f"feature {name!r}")
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    # bytes(3) is three zero bytes, not an error.
    raise TypeError(f"a {type(v).__name__} is not bytes or str")


def _feature(name: str, value: Any) -> bytes:
    """One Feature: a BytesList (field 1), FloatList (2) or Int64List (3),
    chosen by the value's type."""
    if isinstance(value, (bytes, bytearray, memoryview, str)):
        return _field(1, _field(1, _bytes_of(value, name)))
    if isinstance(value, (bool, int, np.integer, np.bool_)):
        # A scalar, most often a label: a varint here costs a tenth of
        # NumPy's array path.
        v = int(value)
        if not -(1 << 63) <= v < 1 << 63:
            raise InvalidArgumentError(f"feature {name!r}: a value beyond int64")
        return _field(3, _field(1, _uvarint(v & (1 << 64) - 1)))
    if isinstance(value, (float, np.floating)):
        return _field(2, _field(1, np.float32(value).tobytes()))
    elif isinstance(value, (list, tuple)):
        if not value:
            return b""  # a Feature with no list
        if all(isinstance(v, (bytes, bytearray, memoryview, str)) for v in value):
            return _field(1, b"".join(_field(1, _bytes_of(v, name)) for v in value))
        if not all(isinstance(v, (bool, int, float, np.number, np.bool_)) for v in value):
            raise TypeError(f"feature {name!r}: a list of other than all numbers or all bytes and str")
        if all(isinstance(v, (bool, int, np.integer, np.bool_)) for v in value):
            # Integers stay integers: NumPy would make [2**63, 1] floats.
            if not all(-(1 << 63) <= int(v) < 1 << 63 for v in value):
                raise InvalidArgumentError(f"feature {name!r}: a value beyond int64")
            value = np.array([int(v) for v in value], np.int64)
        else:
            # Floats, as TensorFlow's FloatList takes the list: each value
            # a Python float (a double), then float32. NumPy would make an
            # object array of [2**70, 1.5].
            try:
                value = np.array([float(v) for v in value], np.float64)
            except OverflowError:
                raise InvalidArgumentError(f"feature {name!r}: a value beyond float64") from None
    if not isinstance(value, np.ndarray):
        raise TypeError(f"feature {name!r}: a {type(value).__name__} is not bytes, str, int, float, "
                        "a list of them or a NumPy array")
    kind = value.dtype.kind
    if kind == "f":
        if value.dtype.itemsize > 8:
            # A long double goes through a double, as TensorFlow takes it
            # (rounding twice, as it does).
            value = value.astype(np.float64)
        data = np.ascontiguousarray(value, "<f4").tobytes()
        return _field(2, _field(1, data) if data else b"")
    if kind in "iub":
        # As Python ints: NumPy 1.22 compares a uint64 with an int as
        # floats, where 2**63 is 2**63 - 1 (audit 105).
        if kind == "u" and value.size and int(value.max()) > (1 << 63) - 1:
            raise InvalidArgumentError(f"feature {name!r}: a value beyond int64")
        data = _varints(value)
        return _field(3, _field(1, data) if data else b"")
    if kind == "O" and value.size and all(isinstance(v, (bool, int, float, np.number, np.bool_)) for v in value.ravel()):
        # Numbers in an object array (a pandas column, say): as the
        # list of them.
        return _feature(name, value.ravel().tolist())
    if kind in "SUO":
        try:
            items = [_bytes_of(v, name) for v in value.ravel()]
        except TypeError:
            raise TypeError(f"feature {name!r}: an object array of other than all bytes and str, or all numbers") from None
        return _field(1, b"".join(_field(1, b) for b in items))
    raise TypeError(f"feature {name!r}: NumPy dtype {value.dtype} is none of float, int, bool, bytes or str")


def _entries(m: Mapping[str, Any], what: str, encode: Any) -> bytes:
    """A protobuf map's entries from str names to messages, in name order,
    each value's message encode(name, value)."""
    keys = {}
    for name in m:
        # Before sorting, which would fail on a mix less clearly.
        if not isinstance(name, str):
            raise TypeError(f"{what} name {name!r} is not a str")
        keys[name] = _utf8(name, f"{what} name")
    # Sorted as TensorFlow's C++ (and Go's protobuf, and sluice's Go
    # writer) sort map keys for deterministic serialization, by their
    # bytes, a key before the keys it begins. (Python protobuf's
    # deterministic order puts "image/format" before "image", and "" last;
    # its default order is a hash table's, which changes from run to run.)
    order = sorted(m, key=lambda name: keys[name])
    return b"".join(_field(1, _field(1, keys[name]) + _field(2, encode(name, m[name]))) for name in order)


def _features(features: Mapping[str, Any], what: str) -> bytes:
    """A Features message's fields: its map entries in name order."""
    if not isinstance(features, Mapping):
        raise TypeError(f"{what} is a dict of features, not a {type(features).__name__}")
    return _entries(features, "feature", _feature)


def _steps(name: str, steps: Any) -> bytes:
    """A FeatureList's fields: a Feature a step."""
    if isinstance(steps, (str, bytes, Mapping, set, frozenset)) or not hasattr(steps, "__iter__"):
        raise TypeError(f"feature list {name!r}: a sequence of steps, not a {type(steps).__name__}")
    return b"".join(_field(1, _feature(f"{name}[{i}]", step)) for i, step in enumerate(steps))


def encode_sequence_example(context: Optional[Mapping[str, Any]],
                            feature_lists: Mapping[str, Any]) -> bytes:
    """A tf.train.SequenceExample's bytes: context features as
    encode_example takes them, and each feature list a sequence of steps,
    each step one feature's values (a number, bytes, a list or a NumPy
    array; a 2-D array is a list of its rows). Write it with
    Writer.write."""
    if not isinstance(feature_lists, Mapping):
        raise TypeError(f"feature_lists is a dict of lists of steps, not a {type(feature_lists).__name__}")
    lists = _entries(feature_lists, "feature list", _steps)
    return _field(1, _features(context or {}, "the context")) + _field(2, lists)


def encode_example(features: Mapping[str, Any]) -> bytes:
    """A tf.train.Example's bytes, its features in name order (as
    TensorFlow's C++ serializes them deterministically): each value
    bytes or str (a BytesList), int or bool (an Int64List), float (a
    FloatList), a list of one of those, or a NumPy array (flattened; float
    dtypes become float32, int and bool int64, bytes and str bytes)."""
    return _field(1, _features(features, "an Example"))


# ---------------------------------------------------------------------------
# The writer

_EXTENSIONS = {"NONE": ".tfrecord", "GZIP": ".tfrecord.gz", "ZLIB": ".tfrecord.zlib", "ZSTD": ".tfrecord.zst"}
_LEN = struct.Struct("<I")
_CHUNK = 4 << 20  # the records sent in one message, about
_MAX_PART = (16 << 20) - 1  # a message holds at most 16 MiB, its kind byte included
_MAX_RECORD = 1 << 31  # the readers' default bound (tfrecord.DefaultMaxRecordSize)


#: The compressions a name's ending implies: the writer takes the one the
#: name says when compression is not given, and refuses another.
_IMPLIED = ((".gz", "GZIP"), (".zlib", "ZLIB"), (".zz", "ZLIB"), (".zst", "ZSTD"))


#: The most files a writer writes at once: sluice convert's --shards bound.
_MAX_SHARDS = 10000


def _output_names(path: Union[str, "os.PathLike[str]"], shards: int,
                  compression: Optional[str], given: Any = None) -> Tuple[List[str], str]:
    """The files a writer to path writes, and their compression (compression
    already checked and upper-cased, or None: from the name, else NONE).

    A name that ends in a compression's extension (.gz, .zlib, .zz, .zst,
    after .tfrecord or not) is written as it is, that compression's: never
    another file, such as the .tfrecord beside it that is being read. A
    compression that contradicts it is an error (naming it as given, the
    user's spelling). Any other name gets
    .tfrecord (unless it ends in it) and the compression's extension."""
    name = os.fspath(path)
    if not isinstance(name, str):
        raise InvalidArgumentError(f"writer: path {name!r}: want a str or os.PathLike of one")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        # Held by Python as surrogate escapes, it reached the server as
        # U+FFFD: files of another name than self.files said (audit 106).
        raise InvalidArgumentError(f"writer: path {name!r} is not UTF-8, which sluice-serve needs") from None
    if os.path.basename(name) in ("", ".", "..") or name.endswith("/"):
        # "", "dir/", "dir/." or "dir/.." wrote a hidden ".tfrecord" (or
        # "..tfrecord") in a folder, as the sluice command's --out refuses
        # to (audits 106, 107).
        raise InvalidArgumentError(f"writer: path {name!r} names a folder, not files: give a prefix such as "
                                   "dir/data (dir/data.tfrecord, or dir/data-00000-of-00002.tfrecord with shards=2)")
    for ext, implied in _IMPLIED:
        if name.endswith(ext) and len(name) > len(ext):
            if compression not in (None, implied):
                raise InvalidArgumentError(
                    f"compression={given!r}, but the name {name!r} ends in {ext}, {implied}'s extension: "
                    f"give compression={implied!r} (or leave it out), or another name")
            stem = name[: -len(ext)]
            if stem.endswith(".tfrecord"):
                stem, ext = stem[: -len(".tfrecord")], ".tfrecord" + ext
            break
    else:
        implied = compression or "NONE"
        stem = name[: -len(".tfrecord")] if name.endswith(".tfrecord") else name
        ext = _EXTENSIONS[implied]
    if shards == 1:
        return [stem + ext], implied
    return [f"{stem}-{i:05d}-of-{shards:05d}{ext}" for i in range(shards)], implied


class Writer:
    """TFRecord files written all or nothing, as sluice.writer makes it.

    write() takes a dict of features (a tf.train.Example) or a record's
    bytes; close() (or the end of a with block) gives the files their
    names and returns how many records were written. Until then the files
    are written under temporary names beside them, which abort(), an
    exception in the with block, the Writer's collection or the
    process's death (even by SIGKILL) remove: a file under its name is
    always whole. Temporaries that a writer of the same files left when it
    was killed with its server (sluice-serve, by SIGKILL or the OOM
    killer) are removed when the next one starts; while another process
    is writing the same files, the Writer refuses to start (SluiceError).
    An interruption inside write() (a KeyboardInterrupt the caller
    catches) aborts the writer, since which records reached the server
    is then unknown: close() raises SluiceError rather than commit files
    short of records or holding some twice. files holds the names.
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"], *, shards: int = 1,
                 compression: Optional[str] = None) -> None:
        if isinstance(shards, bool) or not isinstance(shards, int) or not 1 <= shards <= _MAX_SHARDS:
            # Each shard is a file the server writes at once, as sluice
            # convert --shards, which takes as many.
            raise InvalidArgumentError(f"shards={shards!r}: want an int from 1 to {_MAX_SHARDS}")
        self.files: List[str]
        self.files, comp = _output_names(path, shards, _compression(compression, "writer"), compression)
        self.count = 0
        self._buf = bytearray(b"\0")
        self._s: Optional[_Session] = None
        self._broken = ""  # why the writer was aborted, when not by abort()
        self._commit_error: Optional[BaseException] = None  # a commit's, once close() was cut short
        s = _Session()
        try:
            reply = s._call({"op": "write", "out": self.files, "compression": comp})
        except BaseException:
            s.close()
            raise
        if "error" in reply:
            s.close()
            raise s._reply_error(reply)
        self._s = s

    def write(self, record: Union[Mapping[str, Any], bytes, bytearray, memoryview]) -> None:
        """Writes a record: a dict of features, encoded as a
        tf.train.Example (see sluice.encode_example), or bytes as they are
        (a SequenceExample from sluice.encode_sequence_example, say).
        Records are dealt to the files in turn. A record that cannot be
        encoded raises TypeError or InvalidArgumentError naming it (its
        index among the records written, from 0) and its feature, and is
        not written; the writer goes on."""
        if self._s is None:
            raise SluiceError(self._broken or "the writer is closed")
        if isinstance(record, (bytes, bytearray, memoryview)):
            rec = record
        else:
            try:
                rec = encode_example(record)
            except (TypeError, ValueError) as e:
                # Which record, among thousands: its index in the
                # writer's stream (records deal to the shards in turn).
                raise type(e)(f"{self._which()}: {e}") from None
        if isinstance(rec, memoryview):
            # Its bytes, not its items (a memoryview of uint32s has a
            # quarter as many items); a strided view's, copied.
            rec = rec.cast("B") if rec.c_contiguous else rec.tobytes()
        n = len(rec)
        if n > _MAX_RECORD:
            raise InvalidArgumentError(f"{self._which()}: {n} bytes: sluice.writer takes records of at most {_MAX_RECORD}")
        # From here on an exception — a KeyboardInterrupt above all, which
        # a caller may catch and then close() — can leave a message half
        # sent, or sent and still buffered: which records the server holds
        # is unknown, so the writer aborts, and close() raises rather than
        # commit files short of records or holding some twice.
        try:
            if n + 4 > _MAX_PART:
                self._write_parts(memoryview(rec).cast("B"))
                return
            if len(self._buf) + 4 + n > _CHUNK:
                self._flush()
            self._buf += _LEN.pack(n)
            self._buf += rec
            self.count += 1
        except BaseException as e:
            self._break(e)
            raise

    def _break(self, e: BaseException) -> None:
        """Aborts the writer after e cut a write short."""
        self._broken = (f"the writer was aborted by {type(e).__name__} while writing {self._which()}; "
                        "no file was written")
        self.abort()

    def _which(self) -> str:
        """The record being written, for an error: its index in the
        writer's stream (0 the first), and its shard's file if sharded."""
        n = self.count
        if len(self.files) == 1:
            return f"record {n}"
        return f"record {n} (record {n // len(self.files)} of {os.path.basename(self.files[n % len(self.files)])})"

    def _write_parts(self, rec: memoryview) -> None:
        """Sends a record too large for a message in parts: messages of
        kind 1, the first beginning with the record's length, and the last
        of kind 2, which writes it."""
        self._flush()
        assert self._s is not None
        head = struct.pack("<Q", len(rec))
        first = _MAX_PART - len(head)
        chunks = [rec[:first]] + [rec[i:i + _MAX_PART] for i in range(first, len(rec), _MAX_PART)]
        for i, chunk in enumerate(chunks):
            kind = b"\x02" if i == len(chunks) - 1 else b"\x01"
            self._s._send(_frame(kind + (head if i == 0 else b"") + chunk))
        self.count += 1

    def _flush(self) -> None:
        if len(self._buf) > 1 and self._s is not None:
            self._s._send(_frame(bytes(self._buf)))
        self._buf = bytearray(b"\0")

    def close(self) -> int:
        """Gives the files their names and returns the records written; on
        an error, raises it and leaves no file, except NotDurableError,
        raised when the files are under their names but the folder could
        not be flushed to disk (a crash might lose the names). Closing
        again does nothing. A Ctrl-C once the commit is asked for does not
        stop it: close() waits up to 5 s for its outcome and raises the
        KeyboardInterrupt, and closing again returns the records written,
        or raises the commit's error (SluiceError if its outcome never
        came)."""
        s = self._s
        if s is None:
            if self._commit_error is not None:
                raise self._commit_error
            if self._broken:
                raise SluiceError(self._broken)
            return self.count
        try:
            self._flush()
            s.last = None
            # Sent where no interrupt lands, so that whether the request
            # went out is known: one that cut _send short just after its
            # write aborted a commit the server then made (audit 85).
            _, pending = _uninterrupted(lambda: s._send({"op": "commit"}))
        except BaseException:
            # Not asked for: no file is written (audit 83: a Ctrl-C here
            # then waited five seconds for a reply that could not come).
            self.abort()
            raise
        try:
            if pending is not None:
                raise pending
            reply = s._recv()[1]
        except BaseException as e:
            # The commit was asked for, and goes on: an abort, which said
            # no file was written, was a lie when the files were there
            # (audit 80). Its outcome, if it comes soon (or came as the
            # exception did), is what closing again reports; the
            # exception goes on at once after that.
            self._s = None
            self._broken = (f"close() was cut short by {type(e).__name__} after it asked for the commit, whose "
                            "outcome is unknown: the files are under their names, whole, if it succeeded, and the "
                            "names keep what they held otherwise, never a part")
            try:
                got = s.last or s._recv_within(5)
                reply = got[1] if got else None
            except BaseException:
                reply = None  # another Ctrl-C, or the server gone
            if isinstance(reply, dict) and isinstance(reply.get("wrote"), int):
                self.count, self._broken = reply["wrote"], ""
            elif isinstance(reply, dict) and "error" in reply:
                # Its own error, NotDurableError included (the files are
                # there), as a close() that was not cut short raises it.
                self._commit_error, self._broken = s._reply_error(reply), ""
            s.close(wait=1)
            raise
        self._s = None
        s.close()
        if "error" in reply:
            raise s._reply_error(reply)
        if isinstance(reply.get("wrote"), bool) or not isinstance(reply.get("wrote"), int):
            raise s._malformed(f"a commit's reply without the records written: {reply!r:.200}")
        return reply["wrote"]

    def abort(self) -> None:
        """Ends the writing and removes what it wrote; the files keep
        whatever they held before, and close() then returns 0. After
        close(), it does nothing."""
        s, self._s = self._s, None
        self._buf = bytearray(b"\0")
        if s is not None:
            self.count = 0  # what close() reports: no record was written
            s.close()  # the server, its input ended, removes its temporaries

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def __del__(self) -> None:
        s = getattr(self, "_s", None)
        if s is not None and s._pid == os.getpid():
            self.abort()


def writer(path: Union[str, "os.PathLike[str]"], *, shards: int = 1, compression: Optional[str] = None) -> Writer:
    """Writes TFRecord files, all or nothing, without TensorFlow.

        with sluice.writer("data/train", shards=4, compression="GZIP") as w:
            for image, label in rows:
                w.write({"image": image, "label": label})   # NumPy arrays, numbers, bytes, str
        # data/train-00000-of-00004.tfrecord.gz ... appear here, complete

    path is the file (with shards=1) or the prefix of TensorFlow's shard
    names, prefix-00000-of-00004.tfrecord.gz. A name that ends in a
    compression's extension (.gz, .zlib or .zz, .zst; after .tfrecord or
    not) is written as given, in that compression, which compression may
    leave out but not contradict (an InvalidArgumentError): the writer never
    writes a name other than the one given, such as the .tfrecord beside a
    .tfrecord.gz. Any other name gets .tfrecord (unless it ends in it) and
    the compression's extension. compression is NONE, GZIP, ZLIB or ZSTD
    (which TensorFlow cannot read), in any case, or None or "auto": the
    name's, else NONE. Records go to the shards in turn. See Writer.
    """
    return Writer(path, shards=shards, compression=compression)
