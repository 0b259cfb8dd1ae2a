"""Writing MNIST-like Examples from Python: sluice.writer against
TensorFlow's tf.io.TFRecordWriter with tf.train.Example, as the TensorFlow
guide builds them (a FloatList of the image, an Int64List of the label),
alternated in one run. Both write the same Examples (the script checks,
record by record; the bytes can differ only in the order of the two
features, which TensorFlow's Python serializer does not fix).
Not a row of BENCHMARKS.md: the benchmark reads.

    python bench/py/sluicewrite.py --examples 20000 --rounds 3 --dir /tmp

CPU is the Python process's (sluice's server, which frames, checksums and
writes, is a child whose CPU is not counted here; with no compression it
is small beside the encoding).
"""
import argparse
import os
import time

import numpy as np

import sluice


def write_sluice(path, images, labels):
    with sluice.writer(path) as w:
        for img, label in zip(images, labels):
            w.write({"image": img, "label": int(label)})
    return w.files[0]


def write_tf(path, images, labels):
    import tensorflow as tf

    path += ".tfrecord"
    with tf.io.TFRecordWriter(path) as w:
        for img, label in zip(images, labels):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(float_list=tf.train.FloatList(value=img)),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(label)]))}))
            w.write(ex.SerializeToString())
    return path


def same_examples(a, b):
    import tensorflow as tf

    pairs = zip(tf.data.TFRecordDataset(a).as_numpy_iterator(), tf.data.TFRecordDataset(b).as_numpy_iterator())
    return all(tf.train.Example.FromString(x) == tf.train.Example.FromString(y) for x, y in pairs)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--examples", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--dir", default="/tmp")
    a = p.parse_args()
    rng = np.random.default_rng(1)
    images = rng.random((a.examples, 784), dtype=np.float32)
    labels = rng.integers(0, 10, a.examples)
    files = {}
    for r in range(a.rounds):
        for name, write in (("sluice", write_sluice), ("tensorflow", write_tf)):
            t0, c0 = time.perf_counter(), time.process_time()
            files[name] = write(os.path.join(a.dir, f"sluicewrite-{name}"), images, labels)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            print(f"round {r + 1} {name}: {a.examples / wall:.0f} examples/s, {cpu / a.examples * 1e6:.1f} us CPU an example")
    print("same Examples:", same_examples(files["sluice"], files["tensorflow"]))
    if not os.environ.get("KEEP"):
        for f in files.values():
            os.remove(f)


if __name__ == "__main__":
    main()
