"""Times TensorFlow's tf.io.parse_example on the data of package example's
benchmarks, for comparison with `go test -bench`.

Run by hand (never by CI) from the repository root, on an otherwise idle
machine, in the same session as the Go benchmarks:

    python tools/tfref/example_bench.py
    go test ./example -run '^$' -bench 'ParseMNIST|ParseSmall' -benchtime=1s -count=1

Data: batches of 128 MNIST-like Examples (784 floats + an int64 label) and
of 128 Examples with 10 scalar features (5 int64, 5 float), as in
example/bench_test.go. TensorFlow runs single-threaded
(intra/inter-op parallelism 1) for a per-core figure.
"""
import time

import numpy as np
import tensorflow as tf

tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)


def mnist_like(n):
    rng = np.random.default_rng(1)
    out = []
    for i in range(n):
        e = tf.train.Example()
        e.features.feature["image_class"].int64_list.value.append(i % 10)
        e.features.feature["image_floats"].float_list.value.extend(rng.random(784, dtype=np.float32) - 0.5)
        out.append(e.SerializeToString())
    return out


def small(n):
    out = []
    for i in range(n):
        e = tf.train.Example()
        for j in range(5):
            e.features.feature["int%d" % j].int64_list.value.append(i * j)
            e.features.feature["float%d" % j].float_list.value.append(i / (j + 1))
        out.append(e.SerializeToString())
    return out


def bench(name, recs, spec, seconds=3.0):
    batch = tf.constant(recs)
    fn = tf.function(lambda b: tf.io.parse_example(b, spec))
    fn(batch)  # trace
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn(batch)
        n += 1
    el = time.perf_counter() - start
    nbytes = sum(len(r) for r in recs) * n
    print("%s: %.1f us/batch, %.0f MB/s, %.0f records/s" % (name, el / n * 1e6, nbytes / el / 1e6, len(recs) * n / el))


bench("tf.io.parse_example MNIST batch 128", mnist_like(128),
      {"image_floats": tf.io.FixedLenFeature([784], tf.float32),
       "image_class": tf.io.FixedLenFeature([], tf.int64)})
spec = {}
for j in range(5):
    spec["int%d" % j] = tf.io.FixedLenFeature([], tf.int64)
    spec["float%d" % j] = tf.io.FixedLenFeature([], tf.float32)
bench("tf.io.parse_example small batch 128", small(128), spec)

# Size of the Example in example_test.go's Example, as TensorFlow writes it.
e = tf.train.Example()
e.features.feature["label"].int64_list.value.append(7)
e.features.feature["image"].float_list.value.extend([0, 0.25, 0.5, 1])
e.features.feature["name"].bytes_list.value.append(b"cat.png")
print("Example() record size:", len(e.SerializeToString()))
