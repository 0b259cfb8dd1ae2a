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


def _platform(jax, device):
    if device is None:
        return jax.devices()[0].platform
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
    may keep using the host memory; None copies for CPU devices only."""
    jax = _jax()
    if copy is None:
        copy = _platform(jax, device) == "cpu"
    return _put(jax, batch, device, copy)[0]


def _put(jax, batch, device, copy):
    host = {}
    for name, x in batch.items():
        parts = x if isinstance(x, tuple) else (x,)
        for i, a in enumerate(parts):
            if isinstance(a, np.ndarray) and a.dtype != object:
                host[(name, i)] = np.array(a) if copy else a
    put = jax.device_put(host, device)
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
