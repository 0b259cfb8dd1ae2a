"""Grain (PyPI `grain`) over ArrayRecord files, as Grain's documentation
recommends: an ArrayRecordDataSource, a MapDataset that parses each record
and batches 128, iterated in process (--workers 0) or with
mp_prefetch over worker processes (--workers 2). The ArrayRecord files hold
the same serialized tf.train.Example records as the TFRecord files; they are
written from them once, untimed, beside the data (DIR/<set>-arrayrecord/).
Records are parsed with the protobuf classes of the `tfrecord` package into
NumPy (Grain has no vectorised Example parser of its own). The seed
pipeline uses Grain's global shuffle (two epochs, seed 42) in place of a
10 000-example window. TFRecord workloads only.

    python bench/py/grainloader.py --workload mnist --workers 2 --data build/bench-data
"""
import os
from importlib import metadata

import common
import numpy as np
from tfrecord import example_pb2, reader

import grain
from absl import flags
from array_record.python import array_record_module
from grain.sources import ArrayRecordDataSource


def convert(a):
    """Writes the workload's records as ArrayRecord files (once) and returns
    their names."""
    src_dir = os.path.dirname(a.files[0])
    out_dir = src_dir.rstrip("/") + "-arrayrecord"
    names = [os.path.join(out_dir, os.path.basename(f) + ".array_record") for f in a.files]
    if all(os.path.exists(n) for n in names):
        return names
    os.makedirs(out_dir, exist_ok=True)
    for f, n in zip(a.files, names):
        tmp = n + ".tmp"
        w = array_record_module.ArrayRecordWriter(tmp, "group_size:1")
        for rec in reader.tfrecord_iterator(f):
            w.write(bytes(rec))
        w.close()
        os.replace(tmp, n)
    return names


def parser(kind):
    """Returns a function of one serialized Example to a dict of NumPy
    values, for the workload's features."""
    if kind == "small10":
        floats, ints = common.SMALL_FLOATS, common.SMALL_INTS
    else:
        floats, ints = ["image"], ["label"]

    def parse(rec):
        ex = example_pb2.Example()
        ex.ParseFromString(rec)
        f = ex.features.feature
        out = {}
        for n in floats:
            v = np.asarray(f[n].float_list.value, dtype=np.float32)
            out[n] = v if n == "image" else v[0]
        for n in ints:
            out[n] = np.int64(f[n].int64_list.value[0])
        return out
    return parse


def main():
    a = common.args("Grain over ArrayRecord", lambda p: p.add_argument("--workers", type=int, default=0))
    # Grain's options are absl flags, read by its worker processes; a
    # program not started by absl.app marks them parsed (their defaults),
    # or mp_prefetch's workers fail with UnparsedFlagAccessError.
    flags.FLAGS.mark_as_parsed()
    if a.kind not in ("mnist", "small10", "seed"):
        raise SystemExit(f"grainloader: {a.workload} is not an Example workload")
    names = convert(a)
    ds = grain.MapDataset.source(ArrayRecordDataSource(names))
    if a.kind == "seed":
        ds = ds.repeat(2).shuffle(seed=42)
    ds = ds.map(parser(a.kind)).batch(common.BATCH)
    per_pass = len(ds)
    batches = None
    if a.workers:
        # One iterator over the passes repeated without end, so that the
        # worker processes start once, in the untimed first pass, and serve
        # every timed one; a pass is the batches of one pass of the data.
        # (In process, a fresh iterator per pass: a long-lived one's
        # prefetch threads would work between the timed passes.)
        it = ds.repeat(None).to_iter_dataset().mp_prefetch(grain.MultiprocessingOptions(num_workers=a.workers))
        batches = iter(it)
    check_name = "f5" if a.kind == "small10" else "label"
    version = f"grain {metadata.version('grain')}, array_record {metadata.version('array_record')}"

    def prepare():
        pass_batches = batches or iter(ds.to_iter_dataset())

        def run():
            examples = check = 0
            for _ in range(per_pass):
                b = next(pass_batches)
                labels = b[check_name]
                examples += len(labels)
                check += int(labels.sum())
            # The records' bytes, as every system counts them: the
            # ArrayRecord files hold the TFRecord files' records.
            return examples, common.record_bytes(a, examples, 2 if a.kind == "seed" else 1), check
        return run

    for run in range(1, a.runs + 1):
        common.emit(f"grain-w{a.workers}", a.workload, run, common.measure(a, prepare), version)


if __name__ == "__main__":
    main()
