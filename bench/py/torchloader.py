"""PyTorch's DataLoader reading the TFRecords with the `tfrecord` package
(PyPI), with --workers 0 (in process) or 2 (worker processes, each taking
whole files, as sluicebench's goroutines do). Examples are parsed one by one
by the package (protobuf, then NumPy) and batched by the IterableDataset
itself, as an expert writes it: each feature of 128 examples stacked into
one array (np.stack) and made a tensor once (torch.from_numpy), handed over
whole (batch_size=None), rather than 128 dicts collated by the DataLoader.
Framing-only workloads hand each batch of 1024 records over as its count
and byte total, computed in the worker (collate_fn): the package yields
each record as a memoryview of one buffer it reuses, so no record is copied
into a bytes object, and it checks no CRC. CSV and fixed-length records are
not TFRecords, so they have no torch row.

    python bench/py/torchloader.py --workload mnist --workers 2 --data build/bench-data --runs 5
"""
import random
from importlib import metadata

import common
import numpy as np
import torch
from tfrecord import reader
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

MNIST = {"image": "float", "label": "int"}
SMALL = {**{n: "float" for n in common.SMALL_FLOATS}, **{n: "int" for n in common.SMALL_INTS}}


class Records(IterableDataset):
    """The files' records (raw), or batches of 128 parsed Examples, each
    worker reading its share of the files; for the seed pipeline, two epochs
    with the files reshuffled each epoch and a shuffle buffer of
    min_after_dequeue, split between the workers."""

    def __init__(self, files, kind):
        self.files, self.kind = files, kind

    def __iter__(self):
        if self.kind == "raw":
            info = get_worker_info()
            wid, nw = (info.id, info.num_workers) if info else (0, 1)
            for f in self.files[wid::nw]:
                yield from reader.tfrecord_iterator(f)
            return
        desc = SMALL if self.kind == "small10" else MNIST
        buf = []
        for ex in self.examples(desc):
            buf.append(ex)
            if len(buf) == common.BATCH:
                yield {k: torch.from_numpy(np.stack([e[k] for e in buf])) for k in desc}
                buf = []
        if buf:
            yield {k: torch.from_numpy(np.stack([e[k] for e in buf])) for k in desc}

    def examples(self, desc):
        """This worker's parsed Examples, in the order they are batched."""
        info = get_worker_info()
        wid, nw = (info.id, info.num_workers) if info else (0, 1)
        if self.kind != "seed":
            for f in self.files[wid::nw]:
                yield from reader.tfrecord_loader(f, None, desc)
            return
        rng = random.Random(42 + wid)
        buf, size = [], common.MIN_AFTER_DEQUEUE // nw
        for epoch in range(2):
            files = list(self.files)
            random.Random(42 + epoch).shuffle(files)
            for f in files[wid::nw]:
                for ex in reader.tfrecord_loader(f, None, desc):
                    if len(buf) < size:
                        buf.append(ex)
                        continue
                    i = rng.randrange(size)
                    yield buf[i]
                    buf[i] = ex
        rng.shuffle(buf)
        yield from buf


def count_bytes(batch):
    return len(batch), sum(len(r) for r in batch)


def main():
    a = common.args("PyTorch DataLoader over the tfrecord package",
                    lambda p: p.add_argument("--workers", type=int, default=0))
    if a.kind in ("csv", "cifar"):
        raise SystemExit(f"torchloader: {a.workload} is not TFRecord data")
    torch.set_num_threads(1)
    version = f"torch {torch.__version__}, tfrecord {metadata.version('tfrecord')}, numpy {np.__version__}"
    raw = a.kind == "raw"
    # Persistent workers, as PyTorch's docs advise for a loader iterated
    # more than once: the workers start in the untimed first pass and serve
    # every timed pass, so no run pays for forking them.
    # Decoded workloads: the dataset yields whole batches (batch_size=None).
    loader = DataLoader(Records(a.files, a.kind), batch_size=common.FRAMING_BATCH if raw else None,
                        num_workers=a.workers, persistent_workers=a.workers > 0,
                        collate_fn=count_bytes if raw else None)
    check_name = "f5" if a.kind == "small10" else "label"

    def prepare():
        def run():
            examples = nbytes = check = 0
            for b in loader:
                if raw:
                    examples += b[0]
                    nbytes += b[1]
                    check += b[1]
                    continue
                labels = b[check_name]
                examples += len(labels)
                check += int(labels.sum())
            if not raw:
                # The records' bytes, which the consumer of parsed batches
                # does not see, as every system counts them.
                nbytes = common.record_bytes(a, examples, 2 if a.kind == "seed" else 1)
            return examples, nbytes, check
        return run

    for run in range(1, a.runs + 1):
        common.emit(f"torch-w{a.workers}", a.workload, run, common.measure(a, prepare), version)


if __name__ == "__main__":
    main()
