"""sluice data sets as PyTorch IterableDatasets (imports torch).

    loader = torch.utils.data.DataLoader(sluice.torch.IterableDataset(ds),
                                         batch_size=None, num_workers=4)

sluice batches already, so the DataLoader is given batch_size=None. Each
worker process (or, with num_workers=0, the trainer itself) starts a
sluice-serve of its own when it begins iterating; worker i of n reads the
files of ds.shard(i, n), so the workers together read every file once per
epoch, none twice (a data set with a queue_url needs no shards: its
workers, here and on other hosts, take the files from the shared queue).
With persistent_workers=True a worker's server serves its next epoch too
(the process's spare server); workers started anew each epoch start new
servers. Each worker batches its own shard, so drop_remainder drops up to
batch_size - 1 records of each worker's, and the smaller final batches
are each worker's. A worker is a fork of the trainer, and the Go runtime
does not survive fork: that is why the Go side is a process started in
each worker rather than a library loaded in the trainer. A worker's server
ends with the worker or with the trainer, whichever goes first (a worker
of the "forkserver" context outlives a trainer that was killed).

Resuming exactly (a deterministic data set's state_dict and
load_state_dict, saved beside the model) works with num_workers=0, where
the data set's position is the trainer's. With worker processes each
reads a shard of its own, ahead of the trainer by the DataLoader's
prefetch, and no one position covers them: a data set with a loaded
state is refused there (ds.shard raises InvalidArgumentError).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import types
import warnings
from typing import Any, Dict, Iterator, Optional

import torch
import torch.utils.data

from . import _core


def _tensors(batch: _core.Batch, copy: bool = False) -> Dict[str, Any]:
    out = {}
    for k, v in batch.items():
        if isinstance(v, tuple):
            parts = [_tensor(x, copy) for x in v]
            # A SparseValue stays one, of tensors.
            out[k] = type(v)(*parts) if hasattr(v, "_fields") else tuple(parts)
        else:
            out[k] = _tensor(v, copy)
    return out


def _tensor(x, copy=False):
    if x.dtype == object:
        return x.tolist()  # bytes stay bytes
    return torch.from_numpy(x.copy() if copy else x)


def _collated() -> bool:
    """Whether the DataLoader that asks the caller's generator for its next
    item collates several items into one batch (a batch_size other than
    None): its fetcher (torch.utils.data._utils.fetch) asks for them one
    after another and stacks them only then, so views of memory the next
    batch overwrites would be stacked overwritten (audit 90). Found by the
    fetcher's frame, anywhere up the stack (data sets that wrap this one
    put theirs between: audit 91); False if torch's is not found. It runs
    once an iteration."""
    f: Optional[types.FrameType] = sys._getframe(2)  # the caller of the generator's next()
    while f is not None:
        fetcher = f.f_locals.get("self")
        if type(fetcher).__name__ == "_IterableDatasetFetcher":
            return bool(getattr(fetcher, "auto_collation", False))
        f = f.f_back
    return False


class IterableDataset(torch.utils.data.IterableDataset):
    """A sluice.Dataset for torch.utils.data.DataLoader(batch_size=None).

    Batches come as dicts of tensors (bytes features as lists of bytes).
    A VarLen or FixedLenSequence feature is a tuple (values, lengths)
    here, but the DataLoader's default_convert (its collate_fn with
    batch_size=None) turns every plain tuple into a list: through a
    DataLoader it arrives as [values, lengths] (a SparseValue, a named
    tuple, stays one). Unpacking, values, lengths = batch["tokens"],
    works alike; collate_fn=lambda b: b keeps the tuples.
    With num_workers=0 the tensors share the batch's shared memory and
    are valid until the next batch, as NumPy batches are; in worker
    processes they are copies, which the DataLoader hands on to the
    trainer after the worker has moved on. A DataLoader given a batch_size
    (its default is 1) stacks several of sluice's batches into one, which
    it collects before it stacks them: the tensors are then copies with
    num_workers=0 too, and a warning says so once an iteration.
    """

    def __init__(self, dataset: _core.Dataset) -> None:
        super().__init__()
        self.dataset = dataset

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        ds = self.dataset
        info = torch.utils.data.get_worker_info()
        if info is not None:
            # The worker's server watches the trainer, which started the
            # worker, besides the worker: a worker a forkserver forked
            # outlives a trainer that was killed, and torch's watch of its
            # parent (the forkserver) never sees it go (audit 90).
            trainer = multiprocessing.parent_process()
            if trainer is not None and trainer.pid:
                os.environ["SLUICE_WATCH_PID"] = str(trainer.pid)
            # The DataLoader pickles a batch in a thread of its own after
            # the worker asked for the next one: a view of the slot would
            # be overwritten meanwhile.
            if not ds.request.get("queue_url"):
                # With a queue_url the workers share the files through
                # the queue instead.
                ds = ds.shard(info.id, info.num_workers)
            ds = ds.copies()
        it = iter(ds)
        if info is None:
            # Asked for by the DataLoader's fetcher, whose frame is on the
            # stack now.
            copy = not ds._copy and _collated()
            if copy:
                warnings.warn("sluice.torch.IterableDataset yields whole batches: DataLoader(batch_size=None) "
                              "takes them as they are; with a batch_size the DataLoader stacks several, "
                              "which sluice copies for it (their memory is the next batch's)", stacklevel=3)
            # In the trainer the iteration is the data set's own: a loop
            # left with break leaves it for ds.state_dict(), as a loop
            # over ds does. (Closing it here made the state "unknown",
            # audit 44.)
            for batch in it:
                yield _tensors(batch, copy)
            return
        try:
            try:
                batch = next(it)
            except StopIteration:
                return
            except _core.InvalidArgumentError as e:
                # The worker's share of the files, which it did not ask
                # for by name.
                raise _core.InvalidArgumentError(f"DataLoader worker {info.id} of {info.num_workers}, which reads "
                                                 f"ds.shard({info.id}, {info.num_workers}): {e}") from None
            yield _tensors(batch)
            for batch in it:
                yield _tensors(batch)
        except _core.DataError as e:
            # The DataLoader hands the trainer the error's class and text
            # alone, and rebuilds it from them: the text carries where.
            raise e._with_location() from None
        finally:
            it.close()


__all__ = ["IterableDataset"]
