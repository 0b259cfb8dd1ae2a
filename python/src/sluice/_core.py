"""The client side of sluice-serve's protocol, and the public API."""

from __future__ import annotations

import atexit
import base64
import collections
import glob
import json
import math
import mmap
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import _thread
import threading
import time
import weakref
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, NoReturn, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import DTypeLike

# ---------------------------------------------------------------------------
# Types of the public API, for annotations (sluice.Feature, sluice.Batch)

#: A file name or glob pattern (a name that is a file is that file, glob
#: characters and all).
PathLike = Union[str, "os.PathLike[str]"]
#: A file name or glob pattern, or a list of them.
Files = Union[PathLike, Sequence[PathLike]]
#: A feature, column or field as FixedLen, VarLen, Column, Field ... make
#: it: a plain dict, which may be written by hand.
Feature = Dict[str, Any]

# ---------------------------------------------------------------------------
# Errors


class SluiceError(RuntimeError):
    """An error of the Go side, or of the link to it."""


class DataError(SluiceError):
    """Bad data: a corrupt or malformed record, and where it is.

    file is the file, offset the byte offset of the record (of the
    decompressed stream for a compressed file) or -1, line the line of a
    text file or 0, record the record's index (in its batch, or in its file
    for fixed-length records) or -1, key the record's key ("file:offset")
    or "".
    """

    def __init__(self, message: str, file: str = "", offset: int = -1, line: int = 0, record: int = -1,
                 key: str = "") -> None:
        super().__init__(message)
        if (file, offset, line, record, key) == ("", -1, 0, -1, "") and isinstance(message, str):
            # Rebuilt from its text alone, as a DataLoader rebuilds a
            # worker's exception in the trainer (exc_type(message)): the
            # worker wrote where into the text (sluice.torch).
            file, offset, line, record, key = _located(message)
        self.file = file
        self.offset = offset
        self.line = line
        self.record = record
        self.key = key

    def _with_location(self) -> "DataError":
        """The error with its location in its text too, on a line of its
        own, for a process that passes on only the text."""
        where = json.dumps({"file": self.file, "offset": self.offset, "line": self.line,
                            "record": self.record, "key": self.key})
        return DataError(f"{self}\n{_LOCATION}{where}", self.file, self.offset, self.line, self.record, self.key)


_LOCATION = "sluice.DataError location: "


def _located(text: str) -> Tuple[str, int, int, int, str]:
    """The location _with_location wrote into text (its last), or none."""
    at = text.rfind(_LOCATION)
    if at >= 0:
        where = text[at + len(_LOCATION):].split("\n", 1)[0]
        try:
            w = json.loads(where)
            loc = (w["file"], w["offset"], w["line"], w["record"], w["key"])
            if all(isinstance(v, t) and not isinstance(v, bool) for v, t in zip(loc, (str, int, int, int, str))):
                return loc
        except (ValueError, KeyError, TypeError):
            pass
    return "", -1, 0, -1, ""


class InvalidArgumentError(SluiceError, ValueError):
    """An option or argument out of range."""


class NoFilesError(SluiceError, FileNotFoundError):
    """A file pattern matches no file."""


class NotDurableError(SluiceError):
    """A write's files are complete under their names, but the folder could
    not be flushed to disk after the renames (one that can be written but
    not read, or whose fsync failed): a crash of the machine might lose
    the names. Unlike any other error of a write, the files are there."""


def _error(e):
    if not isinstance(e, dict) or not isinstance(e.get("message", ""), str):
        raise _Malformed(f"an error that is not an object with a message: {e!r:.200}")
    kind, msg = e.get("kind"), e.get("message", "sluice-serve failed")
    if kind == "data":
        return DataError(msg, e.get("file", ""), e.get("offset", -1), e.get("line", 0),
                         e.get("record", -1), e.get("key", ""))
    if kind == "invalid":
        return InvalidArgumentError(msg)
    if kind == "nofiles":
        return NoFilesError(msg)
    if kind == "not_durable":
        return NotDurableError(msg)
    return SluiceError(msg)


class _Malformed(Exception):
    """A reply of the server that is not what the protocol says; the
    session turns it into a SluiceError naming the server."""


# ---------------------------------------------------------------------------
# Specs


def _dtype_name(dtype, big_endian_ok=False):
    """The server's name of dtype. NumPy's name drops the byte order, so a
    big-endian dtype (">i2") is refused rather than read little-endian,
    its values byte-swapped (audit 105): the byte order of the data is
    the format's (Examples' values are little-endian), or a Field's
    big_endian, which big_endian_ok lets the dtype say."""
    if dtype in (bytes, str, "bytes", "str", "string", object):
        return "bytes"
    dt = np.dtype(dtype)
    if dt.byteorder == ">" and not big_endian_ok:
        raise InvalidArgumentError(f"dtype {dt.str}: big-endian values are read only from fixed-length records, "
                                   "by sluice.Field(..., big_endian=True)")
    return dt.name


def _big_endian(dtype, given=None):
    """Whether a Field's values are big-endian: given (big_endian=), or
    else what dtype says (">i2"). A dtype spelt with the other byte order
    than given ("<i2" with big_endian=True) is refused rather than one of
    them taken (audit 107)."""
    if dtype in (bytes, str, "bytes", "str", "string", object) or np.dtype(dtype).itemsize < 2:
        return bool(given)
    said_big = np.dtype(dtype).byteorder == ">"
    # NumPy spells a native dtype "<" too: only the caller's own "<" says
    # little-endian.
    said_little = isinstance(dtype, str) and dtype.startswith("<")
    if given is None:
        return said_big
    if given and said_little or not given and said_big:
        raise InvalidArgumentError(f"dtype {dtype!r} and big_endian={given!r} say different byte orders")
    return bool(given)


def FixedLen(shape: Sequence[int] = (), dtype: DTypeLike = "float32", default: Any = None) -> Feature:
    """A dense feature of the given shape per record (tf.io.FixedLenFeature).

    default, for records without the feature, holds as many values as
    the shape: a scalar, a flat list, or an array or nested lists of the
    shape itself (read row-major)."""
    return {"kind": "fixed", "shape": _ints("shape", shape), "dtype": _dtype_name(dtype),
            "default": default}


def VarLen(dtype: DTypeLike) -> Feature:
    """A feature with any number of values per record (tf.io.VarLenFeature).

    A batch holds it as a pair (values, lengths): values padded to the
    longest record of the batch with zeros (empty bytes), of shape
    [rows, longest], and each record's count of values, int64 [rows].
    """
    return {"kind": "varlen", "dtype": _dtype_name(dtype)}


def FixedLenSequence(shape: Sequence[int] = (), dtype: DTypeLike = "float32", default: Any = None,
                     allow_missing: bool = True) -> Feature:
    """Steps of the given shape, any number per record, padded to the
    longest record of the batch with default (zeros when None)
    (tf.io.FixedLenSequenceFeature).

    A batch holds it as a pair (values, lengths): values [rows, most
    steps, *shape] and each record's count of steps, int64 [rows], which
    tells a record's steps from the padding (TensorFlow's parse_example
    gives the values only). In an Example the steps are the feature's
    values, which may be missing (no steps). In a SequenceExample's
    feature lists (sequence_examples) each step is a Feature of the list;
    allow_missing=False makes a record without the list an error, as
    TensorFlow's default does."""
    f = {"kind": "sequence", "shape": _ints("shape", shape), "dtype": _dtype_name(dtype),
         "default": default}
    if not allow_missing:
        f["allow_missing"] = False
    return f


def SparseFeature(index_keys: Union[str, Sequence[str]], value_key: str, dtype: DTypeLike, size: Sequence[int],
                  already_sorted: bool = False) -> Feature:
    """A sparse tensor per record (tf.io.SparseFeature): its values are the
    feature value_key, their indices the int64 features index_keys, one per
    dimension of size. A batch holds it as a sluice.SparseValue(indices,
    values, dense_shape): indices int64 [nnz, 1 + len(size)] (the record
    first), values [nnz], dense_shape [rows, *size]."""
    if isinstance(index_keys, str):
        index_keys = [index_keys]
    return {"kind": "sparse", "dtype": _dtype_name(dtype), "index_keys": [str(k) for k in index_keys],
            "value_key": str(value_key), "size": _ints("size", size), "already_sorted": bool(already_sorted)}


def Image(height: int, width: int, channels: int = 3, dct_method: str = "", max_scans: int = 0) -> Feature:
    """An encoded image (JPEG, PNG, GIF or BMP) in a bytes feature of an
    Example, decoded by the Go side into uint8 pixels [height, width,
    channels] (channels 1, 3 or 4), as tf.io.decode_image(channels=...)
    and tf.image.resize_with_crop_or_pad(height, width) do: an image of
    another size is cropped around its center or padded with zeros. A
    batch holds uint8 [rows, height, width, channels]. With shuffle,
    deterministic or global_shuffle, batches are decoded by readers
    goroutines whatever the files; otherwise each file's reader decodes
    its own images, so that a few files keep as few cores busy.

    JPEGs decode to tf.io.decode_jpeg's pixels: dct_method is its option,
    "" or "INTEGER_FAST" (TensorFlow's default) or "INTEGER_ACCURATE". A
    JPEG of more than max_scans scans (0: the default, 100) is an error,
    where TensorFlow decodes any number: each scan of a progressive JPEG
    is a pass over the whole image, so a small file of a thousand scans
    would hold a reader for seconds to minutes."""
    f: Dict[str, Any] = {"kind": "image", "shape": [_int("height", height), _int("width", width), _int("channels", channels)], "dtype": "uint8"}
    if dct_method:
        f["dct_method"] = dct_method
    if max_scans:
        f["max_scans"] = _int("max_scans", max_scans)
    return f


class SparseValue(NamedTuple):
    """A sparse feature of a batch, as tf.SparseTensor holds it."""

    indices: np.ndarray  # int64 [nnz, rank]
    values: np.ndarray  # [nnz]
    dense_shape: np.ndarray  # int64 [rank]


#: A batch: each feature's name and its value, an array whose first
#: dimension is the batch, a pair of arrays (values, lengths) for a VarLen
#: feature or a FixedLenSequence's padded steps, or a SparseValue. The
#: values are typed Any, not their union, so that batch["image"].sum()
#: type-checks where the spec makes "image" an array.
Batch = Dict[str, Any]


def Column(name: str, dtype: DTypeLike, default: Any = None, required: bool = False) -> Feature:
    """A CSV column: an empty field takes default (the type's zero when
    None), or is an error when required."""
    return {"name": name, "dtype": _dtype_name(dtype), "default": default, "required": required}


def Field(name: str, offset: int, size: int, dtype: DTypeLike, shape: Optional[Sequence[int]] = None,
          big_endian: Optional[bool] = None, transpose: Optional[Sequence[int]] = None) -> Feature:
    """A part of a fixed-length record: size bytes at offset, decoded as
    dtype values of shape per record (a vector of them all when None), or
    kept as bytes when dtype is bytes.

    transpose permutes shape's dimensions in every record, as np.transpose
    would, but in the server's readers rather than in the trainer: CIFAR-10's
    image, three planes of shape [3, 32, 32], is height x width x channels
    with transpose=[1, 2, 0]. The values are little-endian unless
    big_endian is True or dtype is big-endian (">i2")."""
    f = {"name": name, "offset": _int("offset", offset), "size": _int("size", size),
         "dtype": _dtype_name(dtype, big_endian_ok=True), "big_endian": _big_endian(dtype, big_endian)}
    if shape is not None:
        f["shape"] = _ints("shape", shape)
    if transpose is not None:
        f["transpose"] = _ints("transpose", transpose)
    return f


def _jsonable(v):
    """A default value as the server reads it: JSON has no NaN or
    infinities, which go as the strings "nan", "inf" and "-inf", nor bytes
    that are not UTF-8, which go as {"base64": ...}."""
    if v is None:
        return None
    if isinstance(v, np.ndarray):
        return _jsonable(v.tolist())
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.generic):
        # A long double's item() is itself, which JSON cannot take: a
        # float (a double) as the server reads it anyway.
        v = float(v) if isinstance(v, np.floating) else v.item()
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(v).decode("ascii")}
    if isinstance(v, float) and not math.isfinite(v):
        if math.isnan(v) and math.copysign(1.0, v) < 0:
            return "-nan"  # repr drops a NaN's sign
        return repr(v)  # nan, inf, -inf
    return v


def _feature(name, f):
    if not isinstance(f, dict):
        raise InvalidArgumentError(f"feature {name!r}: want a dict or sluice.FixedLen/VarLen, not {f!r}")
    f = dict(f)
    f.setdefault("kind", "fixed")
    if "dtype" not in f:
        raise InvalidArgumentError(f"feature {name!r} has no dtype")
    f["dtype"] = _dtype_name(f["dtype"])
    if "shape" in f:
        f["shape"] = _ints(f"feature {name!r}: shape", f["shape"])
    if f.get("default") is None:
        f.pop("default", None)
    else:
        f["default"] = _jsonable(f["default"])
    return f


#: The compressions every function spells alike: NONE, GZIP, ZLIB or ZSTD,
#: in any case (None or "" for the default). "auto" (the readers' default)
#: is each file's, detected from its first bytes: examples, records and
#: sequence_examples detect it anyway; the writer takes it from the name.
_COMPRESSIONS = ("NONE", "GZIP", "ZLIB", "ZSTD")


def _compression(value: Any, what: str, auto: bool = True) -> Optional[str]:
    """compression as the server spells it, upper case, or None for the
    default and "auto"; what names the function for the error. auto=False
    refuses "auto" (fixed_length, whose records are any bytes, cannot
    detect a compression)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        u = value.upper()
        if u in _COMPRESSIONS:
            return u
        if u == "AUTO":
            if auto:
                return None
            raise InvalidArgumentError(f"{what}: compression={value!r}: {what} cannot detect a compression "
                                       "(its records are any bytes): give NONE, GZIP, ZLIB or ZSTD")
    return _bad_compression(value, what, auto)


def _bad_compression(value: Any, what: str, auto: bool) -> NoReturn:
    also = ", or auto (the default: each file's, detected)" if auto and what != "writer" else ""
    if what == "writer":
        also = ", or None or auto (the name's: .gz GZIP, .zlib or .zz ZLIB, .zst ZSTD, else NONE)"
    raise InvalidArgumentError(f"{what}: compression={value!r}: want NONE, GZIP, ZLIB or ZSTD (in any case){also}")


def _files(files):
    if isinstance(files, (str, bytes, os.PathLike)):
        files = [files]
    try:
        out = [os.fspath(f) for f in files]
    except TypeError:
        raise InvalidArgumentError(f"files={files!r}: want a file name, a pattern, or a list of them") from None
    if not out:
        raise InvalidArgumentError("no files given")
    for f in out:
        if not isinstance(f, str):
            raise InvalidArgumentError(f"file name {f!r}: want a str or os.PathLike of one")
        try:
            f.encode("utf-8")
        except UnicodeEncodeError:
            # Its bytes, held by Python as surrogate escapes, cannot reach
            # sluice-serve, whose requests are UTF-8 JSON.
            raise InvalidArgumentError(f"file name {f!r} is not UTF-8, which sluice-serve needs: rename the file, "
                                       "or name it by a pattern that matches it (sluice-serve lists its folder)") from None
    return out


# ---------------------------------------------------------------------------
# The server


def _server_binary():
    exe = os.environ.get("SLUICE_SERVE")
    if exe:
        # Checked here, so that a wrong setting is a SluiceError naming it,
        # not an OSError of Popen's (a FileNotFoundError would pass for
        # NoFilesError, which derives from it).
        found = exe if os.sep in exe else shutil.which(exe)
        if found is None or not os.path.isfile(found) or not os.access(found, os.X_OK):
            raise SluiceError(f"SLUICE_SERVE={exe!r} is not an executable file: unset it to use the installed "
                              "server, or build one (go build -o /tmp/sluice-serve ./cmd/sluice-serve)")
        return found
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "sluice-serve")
    if not os.path.exists(exe):
        raise SluiceError(f"{exe} is missing: reinstall sluice (pip install ./python from a clone with Go)")
    return exe


_LEN = struct.Struct("<I")
# The largest message either side sends (pyserve.MaxMessage): a longer
# length is a broken stream, refused before anything is read for it.
_MAX_MESSAGE = 16 << 20


def _frame(body):
    return struct.pack("<I", len(body)) + body


# Encoded once: a request per batch.
_NEXT = _frame(b'{"op":"next"}')
# Pipelined requests by (keep, count), encoded once: see _Session.
_nexts: Dict[Tuple[int, int], bytes] = {}


def _next_request(keep, count):
    r = _nexts.get((keep, count))
    if r is None:
        body = '{"op":"next","keep":%d' % keep
        if count > 1:
            body += ',"count":%d' % count
        r = _nexts[(keep, count)] = _frame((body + "}").encode())
    return r

# Sessions alive in this process, to disown in a forked child.
_sessions: weakref.WeakSet[_Session] = weakref.WeakSet()


def _after_fork_in_child():
    for s in list(_sessions):
        s._disown()
    _spare.clear()
    # The parent's released servers are the parent's to reap: a child
    # would kill one past its deadline.
    _released.clear()


# A server whose data set was dropped, kept (one at most) for the next data
# set this process iterates: a loop that builds its data set again each
# epoch (`for b in sluice.examples(...)` inside the epoch loop) then costs
# an `open`, as iterating one data set again does, instead of a new
# process, new shared memory and a `mapped` round trip for each slot —
# a third of MNIST-like throughput (bench/py/epochloop.py). Its memory
# is the slots of its last data set; the next data set's open reuses
# them, or replaces them when that needs another number of slots. A server
# of a shared filename queue (queue_url) is not kept: it remembers the
# queue's epochs for its data set's next pass. Nor is one whose slots take
# more than _SPARE_BYTES: memory the program may want back, for batches
# (of images, say) large enough that a new server costs little beside
# an epoch of them.
_spare: List[_Session] = []
_SPARE_BYTES = 64 << 20


def _keep_spare(s):
    """Keeps s, a session whose data set is gone, as the spare server,
    ending the one kept before; ends s instead when it cannot be reused.
    A finalizer calls it: it ends servers without waiting for them
    (_Session.release)."""
    if not s.usable() or s.queue or s.mapped_bytes() > _SPARE_BYTES:
        s.release()
        return
    old = list(_spare)
    _spare[:] = [s]
    for o in old:
        if o is not s:
            o.release()


# Servers released (_Session.release) that had not exited yet, as
# (deadline, Popen, shm_dir): reaped by _reap when the next session starts
# and at exit, killed if still running at their deadline, their files
# swept if they did not exit by themselves.
_released: List[Tuple[float, subprocess.Popen[bytes], Optional[str]]] = []


def _reap(wait: bool = False) -> None:
    """Reaps the released servers that exited, and those past their
    deadline, killed; with wait, waits for every one until its deadline."""
    for item in list(_released):
        deadline, p, shm_dir = item
        if p.poll() is None:
            if not wait and time.monotonic() < deadline:
                continue
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        try:
            _released.remove(item)
        except ValueError:  # reaped by another thread meanwhile
            continue
        if p.returncode != 0:
            _sweep(shm_dir, p.pid)


def _at_exit() -> None:
    """Ends the servers still running as the interpreter exits, and waits
    for them: finalizers run later, in the teardown, release servers that
    nothing would reap (audit 70)."""
    for s in list(_sessions):
        if s._pid == os.getpid():
            s.release()
    _spare.clear()
    try:
        _reap(True)
    except BaseException:
        # A Ctrl-C in the wait: the servers not yet reaped are killed,
        # not left to outlive the process (audit 72).
        for _, p, shm_dir in list(_released):
            try:
                p.kill()
            except OSError:
                pass
            p.wait()
            _sweep(shm_dir, p.pid)
        _released.clear()
        raise


atexit.register(_at_exit)


def _sweep(shm_dir: Optional[str], pid: int) -> None:
    """Removes the slot files of server pid, which did not exit by itself
    (killed) and may leave files it made and this process had not mapped
    yet; it is gone and reaped, so its pid is not reused yet."""
    if shm_dir:
        for f in glob.glob(os.path.join(shm_dir, f"sluice-{pid}-*")):
            try:
                os.unlink(f)
            except OSError:
                pass


def _take_spare():
    """The spare server, if there is one started in the environment the
    process has now."""
    while _spare:
        s = _spare.pop()
        if s.usable() and s.env == os.environ:
            return s
        s.close()
    return None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _refs(d, k):
    return sys.getrefcount(d[k])


# A slot's map keeps no descriptor where Python can be told so (3.13):
# otherwise mmap keeps a copy of the file's for its size() and resize(),
# which sluice does not call, and each batch kept after its iteration (its
# slot's old map) holds one, so that a trainer keeping a thousand of them
# reached the limit of open files (audit 80).
_UNTRACKED: Dict[str, Any] = {"trackfd": False} if sys.version_info >= (3, 13) else {}

# What _refs says of an object only dict d holds: measured, not assumed,
# since interpreters differ in the references a call takes.
_HELD_ONCE = _refs({0: mmap.mmap(-1, 1)}, 0)


def _held_elsewhere(d, k):
    """Whether anything but dict d (an object's __dict__, for an attribute)
    holds d[k]: a slot's map that arrays still view, an iterator the
    trainer still has."""
    return _refs(d, k) > _HELD_ONCE


def _uninterrupted(fn):
    """Runs fn in a thread of its own, where Python raises no signal's
    exception, and waits for it to end: fn is done, whatever the main
    thread meets meanwhile. Returns fn's result and the first exception the
    wait met (a Ctrl-C's KeyboardInterrupt, a SIGTERM handler's
    SystemExit), for the caller to raise once it holds what fn made. fn's
    own exception is raised (the wait's, if there was one, instead).

    It replaces holding SIGINT back: blocking it in the main thread held
    nothing once another thread ran (NumPy's BLAS threads do, from its
    import), since the kernel hands the signal to a thread that does not
    block it (audit 83: servers left as zombies under repeated Ctrl-C),
    and swapping its handler lost one installed from C and started
    servers that a program ignoring SIGINT had meant to ignore it too
    (audit 85)."""
    box = []
    done = threading.Event()
    claim = _thread.allocate_lock()

    def run():
        # One thread runs fn, if an interrupt made the caller start two.
        if not claim.acquire(blocking=False):
            return
        try:
            box.append((True, fn()))
        except BaseException as e:
            box.append((False, e))
        finally:
            done.set()

    started, pending = False, None
    while not done.is_set():
        try:
            if not started:
                # No wait for the thread here (Thread.start waits), where
                # an interrupt would leave unknown whether it runs.
                _thread.start_new_thread(run, ())
                started = True
            done.wait()
        except BaseException as e:
            if not started and not isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise  # no thread could start (at shutdown, say): fn never ran
            if pending is None:
                # Without the traceback of the wait (this frame, whose
                # pending would hold it: a cycle, which kept the caller's
                # frame, and the session it made, until the garbage
                # collector ran); the caller's raise gives it its own.
                pending = e.with_traceback(None)
    (ok, v), box = box[0], None
    if ok:
        return v, pending
    try:
        if pending is not None:
            raise pending from v
        raise v
    finally:
        # No cycle of this frame and the exception's traceback, which
        # would keep what the frame holds until the garbage collector ran.
        v = pending = None


class _Session:
    """One sluice-serve process and its data set."""

    def __init__(self):
        self._pid = os.getpid()
        self._maps = {}
        self._buf = b""
        self._pos = 0
        # The arrays of a batch by its descriptor's bytes (slot, shapes,
        # offsets: a slot's batches of one shape have the same): views of
        # the slot made once, so that such a batch costs a lookup and a
        # view of each instead of decoding and building its arrays.
        # Emptied when a slot maps a new file.
        self._views = {}
        self._shm_dir = None
        # Pipelined (the number of batches asked for at once, or 0):
        # the "next" for the batches after the one being read is sent
        # ahead, so that their replies wait in the pipe when the trainer
        # asks for them, instead of the trainer waiting for the server to
        # wake. Asking for four at a time quarters the messages, and the
        # two processes' wake-ups, per batch. keep tells the server how many
        # of the batches it sent are still this process's: those received
        # or on their way and not yet handed out. _ahead counts the
        # replies sent for whose are unread; _early holds replies read
        # before they are handed out (replies come in order), as (raw,
        # parsed) pairs. _buf[_pos:] is what was read from the pipe and
        # not yet taken.
        self.pipelined = 0
        # The corrupt records the iteration skipped so far (skip_corrupt),
        # as the last reply that carried the count said.
        self.skipped = 0
        # Whether the iteration ended in an error reply, read whole.
        self.failed_reply = False
        # Whether the data set reads a shared filename queue (not kept
        # as the spare server).
        self.queue = False
        self._parsed = {}
        self._ahead = 0
        self._early = collections.deque()
        # The exchange (an open, a batch, a state) under way, until its
        # replies are read whole. One that an exception (Ctrl-C, a signal
        # handler's SystemExit) cut short leaves the link out of step: a
        # reply unread, or read and not counted, which the next exchange
        # would take for its own, or wait for for ever (audit 80). The
        # session is then closed, never used again.
        self._cut: Optional[str] = None
        self.last: Optional[Tuple[Any, Any]] = None  # the reply read last
        # What the server was started with: a spare server serves another
        # data set only in the same environment (GOMAXPROCS, credentials,
        # SLUICE_SERVE, ...).
        self.env = dict(os.environ)
        _reap()
        argv = [_server_binary()]
        # A Ctrl-C in the start would leave a server no one ends: one
        # landing in the fork, a child whose pid Python never recorded (a
        # zombie); one landing as Popen returns, a Popen this session never
        # held, which its finalizer keeps, pipes open, among the processes
        # to reap, so the server never sees its input end (audit 46). So
        # the start runs where no interrupt lands (_uninterrupted), and
        # one that came meanwhile is raised once the session holds the
        # process, which its __del__ then ends. The server has a session
        # of its own (setsid), so that a Ctrl-C at the terminal, which
        # goes to the trainer's whole process group, never reaches it:
        # it ends with its input or its client, not before the trainer
        # has seen the interrupt (a server starting as one came died of
        # it, before it could ignore SIGINT; audit 85).
        # The server watches this process, its client, besides its
        # parent: a client that died as it started the server left it
        # another parent from the start (audit 71), and a wrapper run as
        # the server is its parent and may outlive the client (audit 72).
        env = dict(os.environ, SLUICE_PARENT_PID=str(os.getpid()))
        self._proc, pending = _uninterrupted(lambda: subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, close_fds=True, env=env,
            start_new_session=True))
        _sessions.add(self)
        self._in = self._proc.stdin.fileno()
        self._out = self._proc.stdout.fileno()
        self.server_pid = self._proc.pid
        if pending is not None:
            try:
                raise pending
            finally:
                # No cycle of this frame (self) and the traceback: the
                # session's __del__ ends the server once the exception
                # is dropped, not once the garbage collector runs.
                pending = None

    def open(self, request, pipelined=0):
        """Starts a data set, ending the one before if any, in the same
        slot files (its first batch is the next batch: the arrays of the
        one before are no longer valid)."""
        self._begin("an open")
        self.queue = self.queue or "queue_url" in request
        # The replies on their way, if the iteration before was left in
        # the middle, are read first: a slot file one of them names was
        # never mapped, and is retired too (the server would not name
        # it again).
        self._read_ahead()
        unmapped = {r["batch"]["slot"] for _, r in self._early if r.get("batch", {}).get("file")}
        retire = sorted(unmapped.union(self._viewed_slots()))
        if retire:
            request = dict(request, retire=retire)
        msg = _frame(json.dumps(request).encode())
        if pipelined:
            # The first batch is asked for with the open, alone, so that
            # its reply comes as soon as the readers have it rather than
            # a round trip and a request's worth of batches later.
            msg += _next_request(0, 1)
        reply = self._call(msg)
        if pipelined and "error" in reply:
            # The next's reply too (the server refuses a next after an
            # open it refused), read so that the link stays in step.
            self._recv()
        self._cut = None
        # The replies to nexts sent ahead for the data set before.
        self._early.clear()
        self.pipelined = pipelined
        if "error" in reply:
            raise self._reply_error(reply)
        self._ahead = 1 if pipelined else 0
        if not isinstance(reply.get("features"), list):
            raise self._malformed(f"an open's reply without features: {reply!r:.200}")
        if reply.get("new_slots"):
            # The arrays that view the old files keep their maps alive.
            self._maps = {}
        else:
            for k in retire:
                # The slot gets a new file at its next batch; its old map
                # is the arrays' alone.
                self._maps.pop(k, None)
        self.features = reply["features"]
        self._shm_dir = reply.get("shm_dir")
        self.skipped = 0
        self.failed_reply = False

    def _viewed_slots(self):
        """The slots whose memory arrays handed out before still view (a
        batch kept after its iteration, the last one of an epoch, say):
        the server gives them new files, so that the data set opened next
        does not write over those arrays."""
        # The client's own views of a slot go: then any array left that
        # views its map holds a reference to it, beside those a map no
        # array views has.
        self._views.clear()
        return sorted(k for k in self._maps if _held_elsewhere(self._maps, k))

    def mapped_bytes(self):
        """The bytes of the slot files mapped: the server's shared memory."""
        return sum(len(m) for m in self._maps.values())

    def usable(self):
        return self._proc is not None and os.getpid() == self._pid and self._proc.poll() is None and self._cut is None

    def _begin(self, what):
        """Starts an exchange, what, after checking that the one before
        ended: one cut short by an exception left the link out of step."""
        if self._cut is not None:
            raise SluiceError(f"the link to sluice-serve (pid {self.server_pid}) is out of step: an exception "
                              f"(Ctrl-C, say) cut short {self._cut}; the iteration cannot go on")
        self._cut = what

    def _check(self):
        if os.getpid() != self._pid:
            raise SluiceError("a sluice iterator does not cross fork: iterate the Dataset in the child instead")
        if self._proc is None:
            raise SluiceError("the sluice iterator is closed")

    def _call(self, msg):
        self._send(msg)
        # The replies to the nexts sent ahead come first.
        self._read_ahead()
        return self._recv()[1]

    def _read_ahead(self):
        """Reads the replies to the nexts sent ahead into _early."""
        while self._ahead:
            self._early.append(self._recv())
            self._ahead -= 1

    def _send(self, msg):
        self._check()
        if not isinstance(msg, bytes):
            msg = _frame(json.dumps(msg).encode())
        try:
            # A signal handled during a long write can cut it short.
            n = os.write(self._in, msg)
            if n < len(msg):
                view = memoryview(msg)
                while n < len(msg):
                    n += os.write(self._in, view[n:])
        except BrokenPipeError:
            raise self._died() from None

    def _recv(self):
        """The next reply: its raw bytes and the parsed message."""
        buf, pos = self._buf, self._pos
        if len(buf) - pos < 4:
            buf, pos = self._more(4)
        n = _LEN.unpack_from(buf, pos)[0]
        if n > _MAX_MESSAGE:
            raise self._malformed(f"a reply of {n} bytes, more than {_MAX_MESSAGE}")
        end = pos + 4 + n
        if end > len(buf):
            buf, pos = self._more(4 + n)
            end = pos + 4 + n
        raw = buf[pos + 4:end]
        self._pos = end
        # A slot's batches of one shape have the same descriptor: parsed
        # once. (The dicts are never changed.)
        reply = self._parsed.get(raw)
        if reply is None:
            try:
                reply = json.loads(raw)
            except ValueError as e:
                raise self._malformed(f"not JSON ({e}): {bytes(raw[:200])!r}") from None
            if not isinstance(reply, dict) or "batch" in reply and not isinstance(reply["batch"], dict):
                raise self._malformed(f"not a reply object: {bytes(raw[:200])!r}")
            if "batch" in reply and not reply["batch"].get("file") and "skipped" not in reply:
                if len(self._parsed) >= 64:
                    self._parsed.clear()
                self._parsed[raw] = reply
        # Kept for a caller whose wait an exception may cut short just
        # after the reply came (Writer.close: the commit's outcome).
        self.last = got = (raw, reply)
        return got

    def _next_reply(self):
        count = self.pipelined
        # Ask for the batches after this one now, when fewer than count
        # are left beside it; this one's reply was asked for before (or
        # is asked for now, at the start). The trainer is done with the
        # batch before this one: the server may reuse its slot.
        early = self._early
        while len(early) + self._ahead <= count:
            self._send(_next_request(len(early) + self._ahead, count))
            self._ahead += count
        if early:
            return early.popleft()
        # Every reply already in the buffer is read now: the batches
        # after this one are usually there too, and the next calls take
        # them without looking at the pipe.
        got = self._recv()
        self._ahead -= 1
        while self._ahead and len(self._buf) - self._pos >= 4 and \
                len(self._buf) - self._pos - 4 >= _LEN.unpack_from(self._buf, self._pos)[0]:
            early.append(self._recv())
            self._ahead -= 1
        return got

    def _more(self, n):
        # Whatever the pipe holds, up to 64 KiB, is read at once: a reply's
        # length and body, and the replies after it, usually come in one
        # read.
        rest = self._buf[self._pos:]
        while len(rest) < n:
            chunk = os.read(self._out, max(n - len(rest), 65536))
            if not chunk:
                raise self._died()
            rest += chunk
        self._buf, self._pos = rest, 0
        return rest, 0

    def _recv_within(self, seconds):
        """The next reply, if it comes within seconds, else None: for a
        reply whose request an exception cut short the wait for, when
        what the server did matters (a commit)."""
        deadline = time.monotonic() + seconds
        while True:
            buf, pos = self._buf, self._pos
            if len(buf) - pos >= 4 and len(buf) - pos - 4 >= _LEN.unpack_from(buf, pos)[0]:
                return self._recv()
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                return None
            chunk = os.read(self._out, 65536)
            if not chunk:
                raise self._died()
            self._buf, self._pos = buf[pos:] + chunk, 0

    def _malformed(self, why):
        """The error for a reply the protocol does not allow: the link is
        no longer usable, and the caller closes the session."""
        return SluiceError(f"malformed reply from sluice-serve (pid {self.server_pid}): {why}")

    def _died(self):
        if self._proc is None:
            return SluiceError(f"the sluice iterator was closed while it waited for sluice-serve (pid {self.server_pid})")
        try:
            code = self._proc.wait(timeout=2)
            _sweep(self._shm_dir, self.server_pid)
        except subprocess.TimeoutExpired:
            code = None
        return SluiceError(f"sluice-serve (pid {self.server_pid}) ended unexpectedly (exit status {code})")

    def state(self):
        """The iteration's position after the batches returned so far:
        the server's position before the batches it sent ahead, which
        this process has received, or is receiving, and not handed out."""
        self._begin("a state")
        self._read_ahead()
        request: Dict[str, Any] = {"op": "state"}
        before = sum(1 for _, r in self._early if "batch" in r)
        if before:
            request["before"] = before
        reply = self._call(request)
        self._cut = None
        if "error" in reply:
            raise self._reply_error(reply)
        if "state" not in reply:
            raise self._malformed(f"a state's reply without a state: {reply!r:.200}")
        return reply["state"]

    def next(self, copy):
        """Returns the next batch as a dict, or None at the end. Any
        exception leaves the session to be closed (_Iterator._next)."""
        if self._proc is None:
            # Closed, or disowned in a forked child, where replies
            # already read must not be handed out either.
            self._check()
        self._begin("a batch")
        try:
            b = self._next(copy)
        except BaseException:
            if self.failed_reply:
                self._cut = None  # an error's reply, read whole: in step
            raise
        self._cut = None
        return b

    def _next(self, copy):
        if self.pipelined:
            raw, reply = self._next_reply()
        else:
            self._send(_NEXT)
            raw, reply = self._recv()
        views = self._views.get(raw)
        if views is not None:
            # A new array object of each view (not the cached one), so
            # that a caller who changes an array's shape or flags does not
            # change the next batch's.
            if copy:
                return {k: v.copy() for k, v in views}
            return {k: v.view() for k, v in views}
        if "skipped" in reply:
            # Not on a cached reply: one with the count is not cached.
            self.skipped = reply["skipped"]
        if "error" in reply:
            # Read whole: the link is still in step, and the server can
            # say where the iteration stood (_Iterator._next).
            self.failed_reply = True
            raise self._reply_error(reply)
        if reply.get("end"):
            return None
        try:
            return self._batch(raw, reply, copy)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            # A descriptor that does not describe arrays of the slot: the
            # server's fault, not the data's.
            raise self._malformed(f"{type(e).__name__}: {e} in {reply!r:.200}") from None

    def _reply_error(self, reply):
        try:
            return _error(reply["error"])
        except _Malformed as e:
            return self._malformed(str(e))

    def _batch(self, raw, reply, copy):
        """The arrays of a batch reply."""
        b = reply["batch"]
        slot = b["slot"]
        if b.get("file"):
            f = None
            try:
                # A file object, not a descriptor: one a Ctrl-C cuts off
                # before the name holds it is closed as it is dropped,
                # where a descriptor kept the server's memory for good
                # (audit 46).
                f = self._open_slot(b["file"])
                # Arrays of the old map, if any, keep it alive until they go.
                self._maps[slot] = mmap.mmap(f.fileno(), b["file_size"], **_UNTRACKED)
            finally:
                if f is not None:
                    f.close()
            # Views of the slot's old file are no longer its batches.
            self._views.clear()
            r = self._call({"op": "mapped", "file": b["file"]})
            if "error" in r:
                raise self._reply_error(r)
        mem = self._maps[slot]
        out = {}
        cacheable = raw is not None and raw in self._parsed
        for a in b["arrays"]:
            shape = tuple(a["shape"])
            n = math.prod(shape)
            if "indices_offset" in a:
                out[a["name"]] = self._sparse(mem, a, shape, False)
                cacheable = False
                continue
            if a["dtype"] == "bytes":
                x = np.empty(n, dtype=object)
                x[:] = _byte_strings(mem, a, n)
                x = x.reshape(shape)
                cacheable = False
            else:
                x = np.frombuffer(mem, np.dtype(a["dtype"]), n, a["offset"]).reshape(shape)
            if a.get("lengths_offset"):
                # Cached as one view: a pair is made per batch.
                out[a["name"]] = (x, np.frombuffer(mem, np.int64, shape[0], a["lengths_offset"]))
                cacheable = False
                continue
            out[a["name"]] = x
        if cacheable:
            if len(self._views) >= 64:
                self._views.clear()
            self._views[raw] = tuple(out.items())
        if copy:
            return {k: _copied(v) for k, v in out.items()}
        return out
    def _open_slot(self, path):
        # A slot is an anonymous file of the server's, opened by its
        # descriptor under /proc, or a named file in the shared-memory
        # directory.
        try:
            return open(path, "r+b", buffering=0)
        except OSError as e:
            try:
                # A server killed is gone from /proc before it can be
                # reaped: given a moment, it says so.
                self._proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
            else:
                raise self._died() from None
            raise SluiceError(f"cannot open the batch memory {path}: {e} (SLUICE_SHM_DIR=/dev/shm makes it a "
                              "named file there)") from None

    @staticmethod
    def _sparse(mem, a, shape, copy):
        nnz = a.get("nnz", 0)
        indices = np.frombuffer(mem, np.int64, nnz * len(shape), a["indices_offset"]).reshape(nnz, len(shape))
        if a["dtype"] == "bytes":
            values = np.empty(nnz, dtype=object)
            values[:] = _byte_strings(mem, a, nnz)
        else:
            values = np.frombuffer(mem, np.dtype(a["dtype"]), nnz, a["offset"])
            if copy:
                values = values.copy()
        if copy:
            indices = indices.copy()
        return SparseValue(indices, values, np.array(shape, np.int64))

    def close(self, wait=5, stop=False):
        """Ends the server: its stdin closed, it exits (with stop, it is
        sent SIGTERM as well, which it ends at once on); killed if it does
        not within wait seconds."""
        p = self._let_go()
        if p is None:
            return
        if stop:
            try:
                p.terminate()
            except OSError:
                pass
        try:
            p.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        # Killed, or stopped by a signal (it exits 143 on SIGTERM, as a
        # shell reports a process the signal killed): files it made and
        # this process had not mapped may be left.
        if p.returncode != 0:
            _sweep(self._shm_dir, p.pid)

    def release(self):
        """Ends the server as close does, but without waiting for it:
        for finalizers. A KeyboardInterrupt (or a SIGTERM handler's
        SystemExit) raised in a finalizer is lost, and one that waited up
        to five seconds for the server took many a Ctrl-C (audit 66). The
        server, its stdin closed, exits by itself; _reap reaps it later."""
        p = self._let_go()
        if p is not None and (p.poll() is None or p.returncode != 0):
            _released.append((time.monotonic() + 5, p, self._shm_dir))

    def _let_go(self):
        """Forgets the server and closes its pipes, which ends it; returns
        its Popen, or None if the session had ended."""
        p, self._proc = self._proc, None
        _sessions.discard(self)
        self._maps = {}
        self._views = {}
        if p is not None:
            _close_pipes(p)
        return p

    def terminate(self):
        """Stops the server (SIGTERM) from another thread than the one
        talking to it, which then reads the end of its output and closes
        the session: nothing here touches the pipes."""
        p = self._proc
        if p is not None:
            try:
                p.terminate()
            except OSError:
                pass

    def _disown(self):
        # In a forked child: the pipes are the parent's. Close this
        # process's copies, so that the server sees its input end when
        # the parent goes, and never talk to it.
        p, self._proc = self._proc, None
        if p is not None:
            _close_pipes(p)
            # Popen's finalizer must not wait for a process not ours.
            p.returncode = 0

    def __del__(self):
        if getattr(self, "_proc", None) is not None and os.getpid() == self._pid:
            self.release()


def _close_pipes(p):
    # Through the file objects, which own the descriptors: closed once,
    # never a number reused meanwhile.
    for f in (p.stdin, p.stdout):
        try:
            f.close()
        except OSError:
            pass


def _byte_strings(mem, a, n):
    """The n byte strings of array a in the slot mem: each sliced out of
    the slot once, into a bytes object of its own (a slice of the batch's
    bytes taken whole first copied them twice, audit 112)."""
    base = a["data_offset"]
    offs = np.frombuffer(mem, np.int64, n + 1, a["offset"]).tolist()
    return [mem[base + offs[i]:base + offs[i + 1]] for i in range(n)]


def _copied(v):
    if isinstance(v, np.ndarray):
        return v if v.dtype == object else v.copy()
    if isinstance(v, SparseValue):
        return SparseValue(_copied(v.indices), _copied(v.values), v.dense_shape)
    return tuple(_copied(x) for x in v)


#: The error for an iterator that two threads use at once.
_ONE_THREAD = ("a sluice iterator is for one thread at a time, and another thread is in its next() or state_dict(): "
               "iterate the Dataset in each thread (for b in ds), each iteration with a server of its own")


def _position(s):
    """The session's position after the batches handed out, or None if
    the server cannot say (its reply an error too, or the link gone)."""
    try:
        return s.state()
    except Exception:
        return None


def _state(position, end):
    """A state_dict: the server's position, and whether it was taken at
    the end of its iteration (load_state_dict then starts a whole one)."""
    return {"sluice": position, "end": True} if end else {"sluice": position}


class _Iterator(Iterator[Batch]):
    """An iteration of a Dataset: batches in order from one server.

    It is for one thread at a time: a thread that calls next() (or
    state_dict()) while another thread is in one raises SluiceError at
    once, rather than the two taking each other's replies. Threads that
    each iterate the Dataset (for b in ds) have iterations and servers of
    their own. close() (or the Dataset's) from another thread stops a
    next() that waits, which raises SluiceError; a loop ended by close()
    raises SluiceError at its next next(), never StopIteration, which
    would look like a whole epoch.
    """

    def __init__(self, dataset: Dataset, session: _Session, copy: bool, resumable: bool) -> None:
        self._ds = weakref.ref(dataset)
        self._copy = copy
        self._s: Optional[_Session] = session
        self._resumable = resumable
        self._final = None  # the state at the end
        self._failed_at = None  # the state after the batches before an error
        self._loaded = None  # the data set's loaded state it started from, until its first reply
        self._skipped = 0  # the count of skipped records, once the session is gone
        self.server_pid = session.server_pid
        # Held by the thread in next() or state_dict(), never waited for:
        # a second thread is refused (_ONE_THREAD).
        self._busy = threading.Lock()
        # Closed before its end (close(), the Dataset's close()).
        self._closed = False
        # Why the iteration cannot go on, once an exception cut short the
        # state_dict() that its next() would have read past: the error
        # each next() raises then, rather than a StopIteration that would
        # look like the end of the epoch.
        self._cut: Optional[str] = None

    def __iter__(self) -> _Iterator:
        return self

    def __next__(self) -> Batch:
        if not self._busy.acquire(blocking=False):
            raise SluiceError(_ONE_THREAD)
        try:
            return self._next()
        finally:
            self._busy.release()

    def _closed_error(self) -> SluiceError:
        return SluiceError("the sluice iteration was closed (it.close() or the Dataset's close()) before its end: "
                           "its batches were not all read")

    def _next(self) -> Batch:
        if self._cut is not None:
            raise SluiceError(self._cut)
        if self._closed:
            s, self._s = self._s, None
            if s is not None:
                # Closed from another thread while this one was in
                # next(): the server was stopped; end the session here.
                self._skipped = s.skipped
                s.close(wait=1)
            raise self._closed_error()
        if self._s is None:
            raise StopIteration
        try:
            b = self._s.next(self._copy)
        except BaseException as e:
            # An error, or Ctrl-C in the middle of a message: the link is
            # no longer usable. On Ctrl-C the server is stopped and gets a
            # second to exit (it does at once, unless it waits on a read
            # nothing can cancel: then it is killed), so that the
            # KeyboardInterrupt is not held up.
            s, self._s = self._s, None
            if s is not None and not s.failed_reply and not self._closed:
                # Not an error of the data, which was read whole and said:
                # the batches after it are lost, and a loop that goes on
                # is told so, not given the StopIteration of an epoch's
                # end (audit 83).
                self._cut = (f"the iteration cannot go on: {type(e).__name__} ended a next() in the middle of "
                             "its exchange with sluice-serve; its batches were not all read")
            if s is not None:
                self._skipped = s.skipped
                if self._resumable and s.failed_reply and not self._closed:
                    # An error of the data (a corrupt record, say): the
                    # position after the batches before it is known, and
                    # a data set with skip_corrupt=True resumes there.
                    self._failed_at = _position(s)
                # On Ctrl-C the server is also stopped (SIGTERM): with
                # requests sent ahead it reads the end of its input only
                # when it takes them, and the KeyboardInterrupt came a
                # second late, when it was killed (audit 98).
                interrupted = isinstance(e, KeyboardInterrupt)
                s.close(wait=1 if interrupted or self._closed else 5, stop=interrupted)
            if self._closed and not isinstance(e, KeyboardInterrupt):
                # The server stopped by close() from another thread.
                raise self._closed_error() from None
            raise
        if self._loaded is not None:
            self._started()
        if b is None:
            if self._resumable:
                try:
                    self._final = self._s.state()
                except BaseException:
                    # The epoch ended; its position is unknown.
                    self._finish()
                    raise
            self._finish()
            raise StopIteration
        return b

    def _started(self):
        # The first reply came: the data set's loaded state (if still the
        # one this iteration started from) is used up.
        ds = self._ds()
        if ds is not None and ds._resume is self._loaded:
            ds._resume, ds._resume_end = None, False
        self._loaded = None

    @property
    def skipped(self) -> int:
        """How many corrupt records (a failed CRC, or a damaged stretch of a
        file read past as one) the iteration has skipped so far with
        skip_corrupt=True; 0 without it, where such a record is an error.
        The server reads ahead of the batches returned, so the count may
        take in records of batches not yet returned; at the end of the
        iteration it is the whole iteration's, every epoch's."""
        return self._s.skipped if self._s is not None else self._skipped

    def state_dict(self) -> Dict[str, Any]:
        """The position after the batches returned so far: a small dict
        (no records, only their places in the files) that
        Dataset.load_state_dict takes, in this process or another, to
        resume exactly here. The data set must be deterministic (or
        global_shuffle).

        After an error of the data (a corrupt record, say) it is the
        position after the batches returned before the error, from which
        the same data set with skip_corrupt=True reads on past the record.
        An iteration that Ctrl-C (or a failure of the link to its server)
        ended inside next() has no position any more, and this raises
        SluiceError: a trainer that saves on a signal (SIGTERM at a
        preemption, SIGINT) sets a flag in its handler and saves between
        batches, where the position is known."""
        if not self._resumable:
            raise InvalidArgumentError("state_dict needs a data set read with deterministic=True or global_shuffle=True")
        if not self._busy.acquire(blocking=False):
            raise SluiceError(_ONE_THREAD)
        try:
            return self._state_dict()
        finally:
            self._busy.release()

    def _state_dict(self) -> Dict[str, Any]:
        if self._s is None:
            if self._failed_at is not None:
                return _state(self._failed_at, False)
            if self._final is None:
                raise SluiceError("the iteration was closed before its end: its position is unknown")
            return _state(self._final, True)
        s = self._s
        try:
            return {"sluice": s.state()}
        except BaseException as e:
            if not s.usable():
                # Cut short in the middle of the exchange (Ctrl-C): the
                # link is out of step, and the iteration ends here. Said
                # before the wait for the server, which another Ctrl-C
                # may cut short too (audit 83).
                self._cut = (f"the iteration cannot go on: {type(e).__name__} cut short a state_dict() "
                             "in the middle of its exchange with sluice-serve; its position is unknown")
                self._s = None
                self._skipped = s.skipped
                s.close(wait=1)
            raise

    def _finish(self):
        # At the end, the server waits for the data set's next iteration
        # (the next epoch of a training loop), which saves starting one.
        s, self._s = self._s, None
        self._skipped = s.skipped
        ds = self._ds()
        if ds is not None and ds._idle is None and s.usable():
            ds._idle = s
        elif ds is None:
            # The data set is gone (built in the for statement, say):
            # its server serves the next one.
            _keep_spare(s)
        else:
            s.close()

    def close(self) -> None:
        """Ends the iteration and its server. A loop over it that goes on
        raises SluiceError (not StopIteration: its epoch did not end); a
        next() another thread is waiting in raises it at once."""
        if not self._busy.acquire(blocking=False):
            # Another thread is in next(): its server is stopped by a
            # signal, no descriptor closed under that thread's read,
            # which then ends, and that thread ends the session.
            s = self._s
            if s is not None:
                self._closed = True
                s.terminate()
            return
        try:
            s, self._s = self._s, None
            if s is not None:
                self._closed = True
                self._skipped = s.skipped
                s.close()
        finally:
            self._busy.release()

    def __enter__(self) -> _Iterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Dataset:
    """Files of records and how to read them into batches.

    Iterating starts a sluice-serve process; at the end of an iteration it
    is kept for the data set's next one (the next epoch of a training
    loop), until close(). When the data set is collected, its server is
    kept, one a process and if its shared memory is under 64 MB, for the
    next data set the process iterates in the same environment. Each batch is a dict from feature name to a NumPy array
    whose first dimension is the batch (a VarLen feature: a pair of the
    padded values and each record's count). The arrays are views of shared
    memory and valid until the iteration's next batch is requested (a
    batch kept after its iteration ends keeps its values); with copy=True
    they are arrays of their own. Bytes features are object arrays of
    bytes, always copies.

    An iteration (iter(ds)) is for one thread at a time: a second thread
    in its next() raises SluiceError. Threads that each iterate the data
    set have iterations, and servers, of their own. close() ends the
    iterations running, and a loop over one of them raises SluiceError at
    its next batch, rather than end as a whole epoch would.
    """

    def __init__(self, request: Dict[str, Any], copy: bool = False) -> None:
        self._request = request
        self._copy = copy
        self._live: weakref.WeakSet[_Iterator] = weakref.WeakSet()
        self._idle = None  # the server of the last iteration that ended
        self._resume = None  # a state for the next iteration to start from
        self._resume_end = False  # that state was taken at its iteration's end
        self._last: Optional[_Iterator] = None  # the last iteration, for state_dict

    @property
    def skipped(self) -> int:
        """The corrupt records the data set's last iteration skipped so far
        (skip_corrupt=True; see the iterator's skipped), 0 before any."""
        return self._last.skipped if self._last is not None else 0

    def state_dict(self) -> Dict[str, Any]:
        """The position of the data set's last iteration, after the batches
        it has returned (see the iterator's state_dict): torch's and
        torchdata's convention, for saving beside a model."""
        if self._resume is not None:
            # Loaded, and not yet started from (or its start failed).
            return _state(self._resume, self._resume_end)
        it = self._last
        if it is None:
            raise SluiceError("state_dict before any iteration")
        return it.state_dict()

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Makes the next iteration start where state (from state_dict) was
        taken: it delivers exactly the batches that iteration would have
        delivered next. The data set must have the options (readers
        included: with deterministic=True they shape the order, and the
        default is 4 whatever the CPUs), and its files the sizes, they had
        then; a state that does not fit, or was damaged on its way (it
        carries a checksum of its content), is an InvalidArgumentError.

        A state taken once its iteration had ended (after the loop) makes
        the next iteration a whole one, as the data set's next iteration
        would have been, the convention of torchdata's StatefulDataLoader:
        a training loop that saves after each epoch's loop and, resumed,
        goes on with the next epoch reads that epoch whole rather than
        the nothing left of the saved one. The state stays loaded until
        an iteration has delivered its first batch (or its end): an
        iteration whose start fails (its files missing, say) leaves it
        for the next."""
        if not isinstance(state, dict) or "sluice" not in state:
            raise InvalidArgumentError("load_state_dict takes what state_dict returned")
        if not (self._request.get("deterministic") or self._request.get("global_shuffle")):
            raise InvalidArgumentError("load_state_dict needs a data set read with deterministic=True or global_shuffle=True")
        self._resume = state["sluice"]
        self._resume_end = bool(state.get("end"))

    def _abandoned(self):
        """The server of the last iteration if it was left before its end
        (a break) and nothing but this data set holds it: no one can ask
        it for a batch or a state any more, since this iteration takes
        its place as the data set's last. It is ended, and its server
        serves this one instead of a new process."""
        if self._last is None or self._last._s is None or _held_elsewhere(vars(self), "_last"):
            return None
        it = self._last
        s, it._s = it._s, None
        return s

    def __iter__(self) -> _Iterator:
        s, self._idle = self._idle, None
        if s is None:
            s = self._abandoned()
        if s is not None and not s.usable():
            s.close()
            s = None
        if s is None:
            s = _take_spare() or _Session()
        request = self._request
        if self._resume is not None and not self._resume_end:
            request = dict(request, resume=self._resume)
        resumable = bool(request.get("deterministic") or request.get("global_shuffle"))
        # Keeping a batch while the next is read takes a third slot;
        # asking for four at a time, with four kept, nine: each request
        # (and each wake-up of either process) serves four batches. A
        # resumable iteration's state is asked for before the batches
        # sent ahead (_Session.state).
        slots = request.get("slots", 3)
        if "slots" not in request:
            # Eight at a time for a batch small enough that seventeen
            # slots of it fit in a core's cache (_SMALL_BATCH), where the
            # wake-up once per request is much of the cost of a batch;
            # not for a resumable one, whose state goes back at most
            # sixteen batches.
            small = (_batch_bytes(request) or _SMALL_BATCH + 1) <= _SMALL_BATCH
            slots = 17 if small and not resumable else 9
            request = dict(request, slots=slots)
        pipelined = 0 if slots < 3 else min((slots - 1) // 2, 8)
        try:
            s.open(request, pipelined)
        except BaseException:
            s.close()
            raise
        # The loaded state stays until the iteration has delivered its
        # first reply: the server finds that the files are missing, or
        # that the state does not fit them, only then (_Iterator._started).
        it = _Iterator(self, s, self._copy, resumable)
        it._loaded = self._resume
        self._live.add(it)
        self._last = it
        return it

    def __getstate__(self):
        # Pickled (for spawned workers, say) as its description and a
        # state loaded for its next iteration: running iterations stay
        # with the process that started them.
        return {"request": self._request, "copy": self._copy, "resume": self._resume, "resume_end": self._resume_end}

    def __setstate__(self, state):
        self.__init__(state["request"], state["copy"])
        self._resume = state.get("resume")
        self._resume_end = state.get("resume_end", False)

    def shard(self, index: int, count: int) -> Dataset:
        """The part of the files that worker index of count reads: files
        index, index+count, ... of the sorted list. Sharding a shard shards
        its files again, so the workers of a shard together read it once."""
        if not 0 <= index < count:
            raise InvalidArgumentError(f"shard {index} of {count}: want 0 <= index < count")
        if self._request.get("queue_url"):
            raise InvalidArgumentError("a data set with a queue_url shares its files through the queue: it has no shards")
        if self._resume is not None:
            # Its files are not this data set's: the position would
            # name other records, or none.
            raise InvalidArgumentError("a shard cannot resume the state loaded into its data set (load_state_dict): "
                                       "shard first and load each shard's own state, or read the data set in one process")
        r = dict(self._request)
        i, n = r.get("shard") or (0, 1)
        # Files i, i+n, ... shared by count workers: worker index takes
        # every count-th of them.
        r["shard"] = [i + n * index, n * count]
        return Dataset(r, self._copy)

    def copies(self, copy: bool = True) -> Dataset:
        """The same data set, its batches' arrays copies (or views); a state
        loaded for its next iteration (load_state_dict) is the copy's too."""
        ds = Dataset(self._request, copy)
        ds._resume, ds._resume_end = self._resume, self._resume_end
        return ds

    def close(self) -> None:
        """Ends the servers of this data set's iterations still running,
        and the one kept for its next iteration."""
        for it in list(self._live):
            it.close()
        s, self._idle = self._idle, None
        if s is not None:
            s.close()

    def __del__(self):
        s = getattr(self, "_idle", None)
        if s is not None and s._pid == os.getpid():
            try:
                _keep_spare(s)
            except Exception:
                # At the interpreter's exit the module may be gone: the
                # server ends with its stdin.
                s.release()

    def __enter__(self) -> Dataset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def request(self) -> Dict[str, Any]:
        """The open request sent to the server (for debugging)."""
        return dict(self._request)


#: The largest batch, in bytes, for which the client asks for eight
#: batches a request (seventeen slots, 544 KB at most) rather than four
#: (nine slots). A batch of CSV's few columns takes the readers a few tens
#: of microseconds, about what each request's wake-up costs either process:
#: eight a request reads 5-column CSV ~1.3 times as fast as four. MNIST's
#: 400 KB batches were slower at eight (seventeen slots, 7 MB, written in
#: turn by the readers).
_SMALL_BATCH = 32 << 10


def _batch_bytes(request):
    """The bytes of a batch of the data set request opens, or None when a
    feature's size is not known before reading (bytes, VarLen, images)."""
    n = request["batch_size"]
    kind = request["kind"]
    if kind == "fixed":
        return n * request["record_bytes"]
    if kind == "csv":
        cols = request["columns"]
        if any(c["dtype"] == "bytes" for c in cols):
            return None
        return n * sum(np.dtype(c["dtype"]).itemsize for c in cols)
    if kind == "examples":
        total = 0
        for f in request["spec"].values():
            if f.get("kind") != "fixed" or f["dtype"] == "bytes":
                return None
            total += int(np.prod(f.get("shape", []), dtype=np.int64)) * np.dtype(f["dtype"]).itemsize
        return n * total
    return None


def _int(name: str, v: Any, hi: int = (1 << 63) - 1) -> int:
    """v, an int option, as an int: a float (1.7 epochs), a bool (shuffle=True,
    a buffer of one) or a str is refused, never truncated or taken as a
    number, and so is an int outside int64 (up to hi), which sluice-serve
    would refuse as a malformed request."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise InvalidArgumentError(f"{name}={v!r}: want an int")
    if not -(1 << 63) <= int(v) <= hi:
        raise InvalidArgumentError(f"{name}={v!r}: out of range")
    return int(v)


def _ints(name: str, vs: Any) -> List[int]:
    """vs, a sequence of ints (a shape), as a list of ints, each refused as
    _int refuses it."""
    return [_int(name, v) for v in vs]


def _common(kind, files, batch_size, epochs, shuffle, shuffle_files, readers, seed, shard,
            drop_remainder, prefetch, deterministic=False, global_shuffle=False, queue_url=None,
            queue_name=None, queue_epoch=0):
    r = {"op": "open", "kind": kind, "files": _files(files), "batch_size": _int("batch_size", batch_size)}
    if epochs is None:
        r["forever"] = True
    else:
        r["epochs"] = _int("epochs", epochs)
        if r["epochs"] < 1:
            raise InvalidArgumentError(f"epochs={epochs}: want at least 1, or None for no end")
    if _int("shuffle", shuffle):
        r["shuffle"] = int(shuffle)
    if shuffle_files:
        r["shuffle_files"] = True
    if readers is not None and _int("readers", readers):
        r["readers"] = int(readers)
    if seed is not None:
        r["seed"] = _int("seed", seed, hi=(1 << 64) - 1) & (1 << 64) - 1
    if shard is not None:
        if not isinstance(shard, (tuple, list)) or len(shard) != 2:
            raise InvalidArgumentError(f"shard={shard!r}: want (index, count)")
        r["shard"] = [_int("shard[0]", shard[0]), _int("shard[1]", shard[1])]
    if drop_remainder:
        r["drop_remainder"] = True
    if prefetch is not None:
        # A slot a batch on its way, and one for the batch read: at most
        # 64 slots, or MaxCheckpointBefore (16) when a state goes back
        # over them.
        most = 15 if deterministic or global_shuffle else 63
        if not 1 <= _int("prefetch", prefetch) <= most:
            raise InvalidArgumentError(f"prefetch {prefetch}: want at least 1 (a batch on its way beside the one read) "
                                       "and at most 63 (15 with deterministic or global_shuffle)")
        r["slots"] = int(prefetch) + 1
    if deterministic:
        r["deterministic"] = True
    if global_shuffle:
        r["global_shuffle"] = True
    if queue_url:
        if not queue_name:
            raise InvalidArgumentError("queue_url needs a queue_name, the same on every worker of the job")
        if shard is not None or deterministic or global_shuffle:
            raise InvalidArgumentError("queue_url shares the files between the workers: no shard, deterministic or global_shuffle with it")
        r["queue_url"] = str(queue_url)
        r["queue_name"] = str(queue_name)
        if queue_epoch:
            r["queue_epoch"] = _int("queue_epoch", queue_epoch)
    elif queue_name or queue_epoch:
        raise InvalidArgumentError("queue_name and queue_epoch go with queue_url")
    return r


def examples(
        files: Files, spec: Mapping[str, Feature], batch_size: int, *,
        epochs: Optional[int] = 1, shuffle: int = 0, shuffle_files: bool = False,
        readers: Optional[int] = None, seed: Optional[int] = None, shard: Optional[Tuple[int, int]] = None,
        drop_remainder: bool = False, compression: Optional[str] = "auto", skip_corrupt: bool = False,
        copy: bool = False, prefetch: Optional[int] = None, deterministic: bool = False, global_shuffle: bool = False,
        queue_url: Optional[str] = None, queue_name: Optional[str] = None, queue_epoch: int = 0,
        format: str = "tfrecord") -> Dataset:
    """The tf.train.Example records in TFRecord files, parsed by spec.

    files is a name or glob pattern, or a list of them. spec maps each
    feature's name to sluice.FixedLen(shape, dtype, default),
    sluice.VarLen(dtype), sluice.FixedLenSequence(shape, dtype) or the
    same as a plain dict ({"kind": "fixed", "shape": [784], "dtype":
    "float32"}); dtypes are float32, int64 and bytes. Each file's
    compression (none, GZIP, ZLIB, ZSTD) is detected from its first bytes,
    so compression is accepted for tf.data's sake and not needed.

    epochs=None repeats without end; shuffle is the size of the records'
    shuffle buffer (0: records in file order; with deterministic=True a
    buffer of shuffle records as tf.data's, which keeps shuffle-1 back,
    so shuffle=1 shuffles the files alone), which also shuffles the
    files of each epoch; shuffle_files shuffles only the files; readers is
    how many files are read in parallel (one per CPU by default; 4 with
    deterministic=True, where readers is part of what fixes the order);
    seed seeds the shuffles, which makes the files' order repeatable (a
    shuffle buffer's order also depends on timing, as shuffle_batch's
    does: deterministic=True gives the same batches on every run); every
    iteration of the data set starts the same seeded order, so a loop
    that iterates it once an epoch sees one order each epoch: epochs=N
    reshuffles every epoch of one iteration, or give each epoch's data
    set a seed of its own;
    shard=(index, count) reads every
    count-th file from the index-th (with global_shuffle, every count-th
    record of each epoch's order); drop_remainder drops a last batch
    smaller than batch_size; prefetch is how many batches may be on
    their way to the trainer beside the one it reads (8, or 16 for a
    batch of fixed-size features under 32 KB unless deterministic or
    global_shuffle; from 1 to 63, at most 15 for those),
    each in a slot of shared memory of its own; the client asks for
    prefetch/2 batches at a time (at most 8), which the server's readers
    decode ahead.

    deterministic=True reads in an order fixed by the seed and the
    options alone, the same on every run, and lets the iteration's
    state_dict() be saved and given to load_state_dict() to resume exactly
    there, in this process or another; the data set that loads it must
    have the same options (files, batch_size, shuffle, seed, readers,
    shard, ...), which the state is checked against. global_shuffle=True shuffles every
    record of every (uncompressed) file each epoch instead of through a
    buffer, and resumes the same way.

    queue_url="nats://host:4222" with a queue_name makes the workers (on
    any hosts) that give the same URL and name share one filename queue on
    NATS JetStream, as sluice's Go workers do (queue/natsqueue): each file
    of each epoch is read by one of them. A worker that dies hands the
    files its server had not finished back to the others: at once when
    the server outlives it (the trainer killed alone), after 30 s (the
    queue's AckWait) when the server dies too, and then only to workers
    still in that epoch or opening it again; a file its server had read
    to the end counts as read, and its records still in the server's
    buffers die with it. Every worker lists the files and enqueues
    each epoch it reaches (each file is stored once however many enqueue
    it), so they need no coordinator; a new run of the job takes a new
    queue_name, or queue_epoch, the number of its first epoch, past the
    last run's. shard, deterministic and global_shuffle do not go with it.

    format="parquet" reads Parquet files instead, each row an Example of
    its columns as `sluice convert --from parquet` writes it (a struct's
    fields "struct.field", a list column its values, a null an absent
    feature); only the columns spec names are read, and `sluice schema
    --from parquet --output python FILE` prints a spec for them. Every
    option but global_shuffle and skip_corrupt applies, deterministic and
    state_dict() included.
    """
    _compression(compression, "examples")  # detected per file: checked, not needed
    if format not in ("tfrecord", "parquet"):
        raise InvalidArgumentError(f"format={format!r}: want tfrecord or parquet")
    if not isinstance(spec, dict) or not spec:
        raise InvalidArgumentError("spec must be a non-empty dict of features")
    r = _common("examples", files, batch_size, epochs, shuffle, shuffle_files, readers, seed, shard,
                drop_remainder, prefetch, deterministic, global_shuffle, queue_url, queue_name, queue_epoch)
    r["spec"] = {str(k): _feature(k, v) for k, v in spec.items()}
    if skip_corrupt:
        r["skip_corrupt"] = True
    if format == "parquet":
        r["format"] = "parquet"
    return Dataset(r, copy)


def records(
        files: Files, batch_size: int, *,
        epochs: Optional[int] = 1, shuffle: int = 0, shuffle_files: bool = False,
        readers: Optional[int] = None, seed: Optional[int] = None, shard: Optional[Tuple[int, int]] = None,
        drop_remainder: bool = False, compression: Optional[str] = "auto", skip_corrupt: bool = False,
        copy: bool = False, prefetch: Optional[int] = None, deterministic: bool = False, global_shuffle: bool = False,
        queue_url: Optional[str] = None, queue_name: Optional[str] = None, queue_epoch: int = 0) -> Dataset:
    """The records of TFRecord files as they are, for records that are not
    Examples (serialized protos of another type, images, JSON) or that the
    trainer parses itself: a batch is {"record": array of bytes objects}.
    What sluice.writer writes (bytes as they are) reads back here. The
    options are those of examples.
    """
    _compression(compression, "records")  # detected per file: checked, not needed
    r = _common("records", files, batch_size, epochs, shuffle, shuffle_files, readers, seed, shard,
                drop_remainder, prefetch, deterministic, global_shuffle, queue_url, queue_name, queue_epoch)
    if skip_corrupt:
        r["skip_corrupt"] = True
    return Dataset(r, copy)


def sequence_examples(
        files: Files, context: Optional[Mapping[str, Feature]], sequence: Optional[Mapping[str, Feature]],
        batch_size: int, *,
        epochs: Optional[int] = 1, shuffle: int = 0, shuffle_files: bool = False,
        readers: Optional[int] = None, seed: Optional[int] = None, shard: Optional[Tuple[int, int]] = None,
        drop_remainder: bool = False, compression: Optional[str] = "auto", skip_corrupt: bool = False,
        copy: bool = False, prefetch: Optional[int] = None, deterministic: bool = False, global_shuffle: bool = False,
        queue_url: Optional[str] = None, queue_name: Optional[str] = None, queue_epoch: int = 0) -> Dataset:
    """The tf.train.SequenceExample records in TFRecord files, parsed as
    tf.io.parse_sequence_example parses them.

    context maps each context feature's name to sluice.FixedLen or
    sluice.VarLen, as a spec of examples does (None: no context
    features); sequence maps each feature list's name to
    sluice.FixedLenSequence(shape, dtype, default, allow_missing) or
    sluice.VarLen(dtype). A batch is one dict of both, so a name may be in
    only one of them. A FixedLenSequence list is a pair (values, lengths):
    the values padded to the batch's most steps, [rows, steps, *shape],
    and each record's count of steps. A VarLen list is a
    sluice.SparseValue with indices [nnz, 3] (record, step, value) and
    dense_shape [rows, most steps, most values in a step], as TensorFlow
    gives it. The other options are those of examples.
    """
    _compression(compression, "sequence_examples")  # detected per file: checked, not needed
    context = {} if context is None else context
    sequence = {} if sequence is None else sequence
    if not isinstance(context, dict) or not isinstance(sequence, dict) or not (context or sequence):
        raise InvalidArgumentError("context and sequence must be dicts of features, not both empty")
    both = set(map(str, context)) & set(map(str, sequence))
    if both:
        raise InvalidArgumentError(f"{sorted(both)} both in context and in sequence: a batch has one feature of a name")
    r = _common("sequence_examples", files, batch_size, epochs, shuffle, shuffle_files, readers, seed, shard,
                drop_remainder, prefetch, deterministic, global_shuffle, queue_url, queue_name, queue_epoch)
    if context:
        r["context"] = {str(k): _feature(k, v) for k, v in context.items()}
    if sequence:
        r["sequence"] = {str(k): _feature(k, v) for k, v in sequence.items()}
    if skip_corrupt:
        r["skip_corrupt"] = True
    return Dataset(r, copy)


def csv(
        files: Files, columns: Sequence[Union[Feature, Tuple[Any, ...]]], batch_size: int, *,
        header_lines: int = 0, delim: str = ",",
        epochs: Optional[int] = 1, shuffle: int = 0, shuffle_files: bool = False,
        readers: Optional[int] = None, seed: Optional[int] = None, shard: Optional[Tuple[int, int]] = None,
        drop_remainder: bool = False, copy: bool = False, prefetch: Optional[int] = None,
        deterministic: bool = False,
        queue_url: Optional[str] = None, queue_name: Optional[str] = None, queue_epoch: int = 0) -> Dataset:
    """The lines of text files as comma-separated values.

    columns is a list of sluice.Column(name, dtype, default, required) or
    (name, dtype) / (name, dtype, default) tuples, in the order of the
    fields; dtypes are float32, float64, int32, int64 and bytes. delim is
    the field delimiter, one character of one byte (TensorFlow's
    field_delim: "" is refused, not read as a comma). A file that begins
    with a GZIP or ZSTD header is decompressed. The other options are
    those of examples.
    """
    if not isinstance(delim, str) or len(delim.encode("utf-8")) != 1:
        # TensorFlow's decode_csv refuses it too: "" is no delimiter,
        # not the default comma.
        raise InvalidArgumentError(f"delim={delim!r}: want one character of one byte (field_delim's rule)")
    cols = []
    for i, c in enumerate(columns):
        if isinstance(c, dict):
            c = dict(c)
            if "dtype" not in c:
                raise InvalidArgumentError(f"column {c.get('name', i)!r} has no dtype")
            c["dtype"] = _dtype_name(c["dtype"])
        else:
            c = Column(*c)
        c["default"] = _jsonable(c.get("default"))
        if c["default"] is None:
            c.pop("default")
        cols.append(c)
    r = _common("csv", files, batch_size, epochs, shuffle, shuffle_files, readers, seed, shard,
                drop_remainder, prefetch, deterministic, queue_url=queue_url, queue_name=queue_name,
                queue_epoch=queue_epoch)
    r["columns"] = cols
    if header_lines:
        r["header_lines"] = _int("header_lines", header_lines)
    if delim != ",":
        r["delim"] = delim
    return Dataset(r, copy)


def fixed_length(
        files: Files, record_bytes: int, fields: Sequence[Union[Feature, Tuple[Any, ...]]], batch_size: int, *,
        header_bytes: int = 0, footer_bytes: int = 0, compression: Optional[str] = None,
        epochs: Optional[int] = 1, shuffle: int = 0, shuffle_files: bool = False,
        readers: Optional[int] = None, seed: Optional[int] = None, shard: Optional[Tuple[int, int]] = None,
        drop_remainder: bool = False, copy: bool = False, prefetch: Optional[int] = None,
        deterministic: bool = False, global_shuffle: bool = False,
        queue_url: Optional[str] = None, queue_name: Optional[str] = None, queue_epoch: int = 0) -> Dataset:
    """Binary files of records of record_bytes bytes each (CIFAR-10's
    format), each cut into fields: a list of sluice.Field(name, offset,
    size, dtype, shape, big_endian) or the same as dicts. header_bytes and
    footer_bytes are skipped in every file; compression (GZIP, ZLIB, ZSTD)
    decompresses each file first. The other options are those of examples.
    """
    fs = []
    for f in fields:
        if isinstance(f, dict):
            f = dict(f)
            f["big_endian"] = _big_endian(f["dtype"], f.get("big_endian"))
            f["dtype"] = _dtype_name(f["dtype"], big_endian_ok=True)
        else:
            f = Field(*f)
        fs.append(f)
    r = _common("fixed", files, batch_size, epochs, shuffle, shuffle_files, readers, seed, shard,
                drop_remainder, prefetch, deterministic, global_shuffle, queue_url, queue_name, queue_epoch)
    r["record_bytes"] = _int("record_bytes", record_bytes)
    r["fields"] = fs
    if header_bytes:
        r["header_bytes"] = _int("header_bytes", header_bytes)
    if footer_bytes:
        r["footer_bytes"] = _int("footer_bytes", footer_bytes)
    comp = _compression(compression, "fixed_length", auto=False)
    if comp is not None:
        r["compression"] = comp
    return Dataset(r, copy)


for _c in (SluiceError, DataError, InvalidArgumentError, NoFilesError, Dataset, SparseValue):
    _c.__module__ = "sluice"
