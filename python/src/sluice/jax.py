"""sluice batches onto JAX devices.

    import sluice, sluice.jax

    for batch in sluice.jax.batches(ds):          # dicts of jax.Array
        state = train_step(state, batch["image"], batch["label"])

Importing this module does not import jax: jax is imported by the first
call, so a program (or a DataLoader worker) that never puts a batch on a
device does not pay for it, and sluice itself does not depend on it.

A batch's NumPy arrays are views of shared memory that the next batch
overwrites, and jax.device_put may read them after it returns: the
transfer to an accelerator is asynchronous, and on the CPU jax may use
the memory itself instead of a copy. batches() therefore copies for CPU
devices and waits for a batch's transfer before it asks for the next
batch; a caller of device_put does the same, or reads a data set with
copy=True.

JAX keeps 64-bit integers in 32 bits unless jax_enable_x64 is on, and
Examples' integers are int64: a feature with a value 32 bits cannot hold
(an id of 2**40, say) is an InvalidArgumentError naming it, rather than
the wrapped value jax.device_put would keep.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, Optional

import numpy as np

from . import _core


def _jax():
    try:
        import jax
    except ImportError as e:
        raise ImportError("sluice.jax needs jax (pip install jax)") from e
    return jax


def _default_platform(jax):
    """The platform of JAX's default device, where device_put(x) puts x:
    jax.default_device / the jax_default_device option when set (a Device
    or a platform's name), else the first of jax.devices()."""
    try:
        d = jax.config.jax_default_device
    except AttributeError:
        d = None
    if d is None:
        return jax.devices()[0].platform
    return d.lower() if isinstance(d, str) else d.platform


def _platform(jax, device):
    if device is None:
        return _default_platform(jax)
    if hasattr(device, "platform"):
        return device.platform
    # A sharding: its devices are of one platform.
    return next(iter(device.device_set)).platform


def device_put(batch: _core.Batch, device: Any = None, copy: Optional[bool] = None) -> Dict[str, Any]:
    """Puts a batch's numeric arrays on device (a jax.Device or Sharding;
    JAX's default device when None) with jax.device_put, and returns the
    batch with jax.Arrays in their place. A VarLen feature's pair stays a
    pair, of arrays; bytes features (object arrays) stay NumPy arrays, as
    JAX has no strings. copy=True copies each array on the host first,
    which a batch that the next one overwrites needs on the CPU, where jax
    may keep using the host memory; None copies for CPU devices only.

    A Sharding (of the batch dimension, typically) is given to the arrays
    whose first dimension is the batch: every feature's, a pair's values
    and lengths included. A SparseValue's indices [nnz, rank], values
    [nnz] and dense_shape [rank] are not batch-first, and nnz need not
    divide among the devices: a NamedSharding's arrays go replicated on
    its mesh, another Sharding's to JAX's default device. A last batch
    smaller than batch_size may not divide among the devices either:
    read with drop_remainder=True for a sharded batch dimension."""
    jax = _jax()
    if copy is None:
        copy = _platform(jax, device) == "cpu"
    return _put(jax, batch, device, copy)[0]


def _unbatched(jax, device):
    """Where the arrays whose first dimension is not the batch (a
    SparseValue's) go: device itself unless it is a Sharding."""
    if device is None or hasattr(device, "platform"):
        return device
    mesh = getattr(device, "mesh", None)
    if mesh is not None:
        return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    return None


def _narrow(jax):
    """Whether jax stores 64-bit integers in 32 bits (jax_enable_x64 off,
    its default)."""
    dtypes = getattr(jax, "dtypes", None)
    if dtypes is None or not hasattr(dtypes, "canonicalize_dtype"):
        return False
    return dtypes.canonicalize_dtype(np.int64) != np.int64


def _check_fits(name, a):
    """Raises InvalidArgumentError if int64 (uint64) array a of feature
    name holds a value int32 (uint32) cannot: jax.device_put keeps only
    the low 32 bits without a word (audit 92: ids of 2**40 became 0, 1,
    2 ...). Examples have no narrower integers, so every integer feature
    comes this way; most fit."""
    if not a.size:
        return
    info = np.iinfo(np.int32 if a.dtype == np.int64 else np.uint32)
    lo, hi = a.min(), a.max()
    if lo < info.min or hi > info.max:
        raise _core.InvalidArgumentError(
            f"feature {name!r}: {a.dtype} values from {lo} to {hi}, which JAX's {info.dtype} (jax_enable_x64 "
            f"is off) cannot hold: jax.config.update('jax_enable_x64', True) keeps them whole")


def _put(jax, batch, device, copy):
    host, sparse = {}, {}
    narrow = _narrow(jax)
    for name, x in batch.items():
        parts = x if isinstance(x, tuple) else (x,)
        into = sparse if isinstance(x, _core.SparseValue) else host
        for i, a in enumerate(parts):
            if isinstance(a, np.ndarray) and a.dtype != object:
                if narrow and a.dtype in (np.int64, np.uint64):
                    _check_fits(name, a)
                into[(name, i)] = np.array(a) if copy else a
    put = jax.device_put(host, device)
    if sparse:
        put = dict(put)
        put.update(jax.device_put(sparse, _unbatched(jax, device)))
    out = {}
    for name, x in batch.items():
        if isinstance(x, tuple):
            parts = [put.get((name, i), a) for i, a in enumerate(x)]
            # A SparseValue stays one.
            out[name] = type(x)(*parts) if hasattr(x, "_fields") else tuple(parts)
        else:
            out[name] = put.get((name, 0), x)
    return out, put


def batches(dataset: Iterable[_core.Batch], device: Any = None) -> Iterator[Dict[str, Any]]:
    """Iterates dataset (a sluice.Dataset, or any iterable of batches),
    yielding each batch on device as device_put does. A batch's transfer
    is complete before the next batch is asked for, so the shared memory
    it was read from can be written again."""
    jax = _jax()
    copy = _platform(jax, device) == "cpu"
    for batch in dataset:
        b, put = _put(jax, batch, device, copy)
        jax.block_until_ready(put)
        yield b


__all__ = ["batches", "device_put"]
