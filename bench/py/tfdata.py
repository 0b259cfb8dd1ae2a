"""TensorFlow 2.21's tf.data, as its performance guide recommends: parallel
file reads (but see READS), batch before a vectorised parse (parse_example, decode_csv and
decode_raw over the batch) mapped with AUTOTUNE, and prefetch; iterated
eagerly, each batch handed to Python as a NumPy array (framing-only
workloads hand over only the count and byte total, as in tfqueue.py).

    python bench/py/tfdata.py --workload mnist --data build/bench-data --runs 5
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import common  # noqa: E402
import tensorflow as tf  # noqa: E402

AUTOTUNE = tf.data.AUTOTUNE
# Files are read one after another: with records of 100 to 3000 bytes,
# num_parallel_reads=AUTOTUNE (a parallel interleave) measured 2 to 25 times
# slower here than a sequential read, and the parallel work is in the
# batched parse that follows. The seed pipeline interleaves two files.
READS = None
MNIST = {"image": tf.io.FixedLenFeature([784], tf.float32), "label": tf.io.FixedLenFeature([], tf.int64)}
SMALL = {**{n: tf.io.FixedLenFeature([], tf.float32) for n in common.SMALL_FLOATS},
         **{n: tf.io.FixedLenFeature([], tf.int64) for n in common.SMALL_INTS}}


def lengths(b):
    return tf.reduce_sum(tf.cast(tf.strings.length(b), tf.int64))


def dataset(a):
    """Returns a dataset of (count, bytes, check, batch...) tuples."""
    if a.kind == "raw":
        ds = tf.data.TFRecordDataset(a.files, num_parallel_reads=READS).batch(common.FRAMING_BATCH)
        return ds.map(lambda b: (tf.size(b, out_type=tf.int64), lengths(b), lengths(b)), num_parallel_calls=AUTOTUNE)
    if a.kind == "csv":
        ds = tf.data.TextLineDataset(a.files, num_parallel_reads=READS).batch(common.BATCH)

        def parse(b):
            cols = tf.io.decode_csv(b, record_defaults=[[0.0]] * 4 + [[0]])
            return (tf.size(b, out_type=tf.int64), lengths(b), tf.reduce_sum(tf.cast(cols[4], tf.int64)), tuple(cols))
        return ds.map(parse, num_parallel_calls=AUTOTUNE)
    if a.kind == "cifar":
        ds = tf.data.FixedLengthRecordDataset(a.files, common.CIFAR_RECORD, num_parallel_reads=READS)

        def parse(b):
            raw = tf.io.decode_raw(b, tf.uint8)
            label = tf.cast(raw[:, 0], tf.int32)
            image = tf.transpose(tf.reshape(raw[:, 1:], [-1, 3, 32, 32]), [0, 2, 3, 1])
            return (tf.size(b, out_type=tf.int64), lengths(b), tf.reduce_sum(tf.cast(label, tf.int64)), image, label)
        return ds.batch(common.BATCH).map(parse, num_parallel_calls=AUTOTUNE)
    spec, check = (SMALL, "f5") if a.kind == "small10" else (MNIST, "label")
    if a.kind == "seed":
        # The seed pipeline: files reshuffled each epoch, two epochs, two
        # files read at once, a 10 000-example shuffle buffer.
        files = tf.data.Dataset.from_tensor_slices(a.files).shuffle(len(a.files), seed=42).repeat(2)
        ds = files.interleave(tf.data.TFRecordDataset, cycle_length=2, num_parallel_calls=AUTOTUNE)
        ds = ds.shuffle(common.MIN_AFTER_DEQUEUE, seed=42)
    else:
        ds = tf.data.TFRecordDataset(a.files, num_parallel_reads=READS)

    def parse(b):
        ex = tf.io.parse_example(b, spec)
        return (tf.size(b, out_type=tf.int64), lengths(b), tf.reduce_sum(ex[check]), ex)
    return ds.batch(common.BATCH).map(parse, num_parallel_calls=AUTOTUNE)


def main():
    a = common.args("tf.data with AUTOTUNE")
    ds = dataset(a).prefetch(AUTOTUNE)

    def prepare():
        def run():
            examples = nbytes = check = 0
            for out in ds:
                examples += int(out[0])
                nbytes += int(out[1])
                check += int(out[2])
                tf.nest.map_structure(lambda x: x.numpy(), out[3:])  # the batch, as a training step gets it
            return examples, nbytes, check
        return run

    for run in range(1, a.runs + 1):
        common.emit("tf.data", a.workload, run, common.measure(a, prepare), tf.__version__)


if __name__ == "__main__":
    main()
