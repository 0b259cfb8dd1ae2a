"""Reference outputs for datasets/mnist and datasets/cifar10 from TensorFlow.

Run by hand (never by CI), from the repository root:

    python tools/tfref/datasets.py

It builds small CIFAR-style and IDX files from fixed formulas (the Go tests
build the same bytes), reads them with TensorFlow 1.x's queue-based
FixedLengthRecordReader the way the CIFAR-10 tutorial and MNIST's IDX layout
require, and writes what TensorFlow returned to
datasets/cifar10/testdata/tfref.json and datasets/mnist/testdata/tfref.json.
"""
import gzip
import hashlib
import json
import os
import struct
import tempfile

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
v1 = tf.compat.v1


def read_all(files, **reader_args):
    """All (key, value) pairs a FixedLengthRecordReader yields for files."""
    g = tf.Graph()
    with g.as_default():
        q = v1.train.string_input_producer(files, num_epochs=1, shuffle=False)
        reader = v1.FixedLengthRecordReader(**reader_args)
        key, value = reader.read(q)
        out = []
        with v1.Session() as sess:
            sess.run(v1.local_variables_initializer())
            coord = v1.train.Coordinator()
            threads = v1.train.start_queue_runners(sess, coord)
            try:
                while True:
                    out.append(sess.run([key, value]))
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
    return [(k.decode(), v) for k, v in out]


def tutorial_decode(value, label_bytes, h, w, c):
    """cifar10_input.read_cifar10's ops on one record's bytes."""
    g = tf.Graph()
    with g.as_default():
        rec = tf.io.decode_raw(tf.constant(value), tf.uint8)
        label = tf.cast(tf.strided_slice(rec, [label_bytes - 1], [label_bytes]), tf.int32)
        depth_major = tf.reshape(tf.strided_slice(rec, [label_bytes], [label_bytes + h * w * c]), [c, h, w])
        uint8image = tf.transpose(depth_major, [1, 2, 0])
        floatimage = tf.cast(uint8image, tf.float32)
        with v1.Session() as sess:
            l, u, f = sess.run([label, uint8image, floatimage])
    return int(l[0]), u, f


def cifar_record(i, label_bytes, h, w, c, classes):
    labels = bytes(((3 * i + 1 + k * 5) % classes) for k in range(label_bytes))
    img = bytes(((j * 7 + (j // (h * w)) * 50 + i * 13) & 0xFF) for j in range(h * w * c))
    return labels + img


def cifar(tmp):
    out = {}
    for name, (lb, h, w, c, classes) in {
        "cifar10": (1, 32, 32, 3, 10),
        "small": (2, 4, 5, 2, 7),
    }.items():
        recs = [cifar_record(i, lb, h, w, c, classes) for i in range(3)]
        path = os.path.join(tmp, name + ".bin")
        with open(path, "wb") as f:
            f.write(b"".join(recs) + b"\xab" * ((lb + h * w * c) // 2))  # a truncated final record
        rb = lb + h * w * c
        got = read_all([path], record_bytes=rb)
        entry = {"label_bytes": lb, "height": h, "width": w, "depth": c, "classes": classes,
                 "record_bytes": rb, "file_bytes": os.path.getsize(path), "records": []}
        for k, v in got:
            label, u, fl = tutorial_decode(v, lb, h, w, c)
            r = {"key": k.replace(path, name + ".bin"), "label": label,
                 "hwc_sha256": hashlib.sha256(u.tobytes()).hexdigest(),
                 "float_sum": float(fl.astype(np.float64).sum()),
                 "hwc_first": [int(x) for x in u.reshape(-1)[:12]]}
            if name == "small":
                r["hwc"] = [int(x) for x in u.reshape(-1)]
            entry["records"].append(r)
        out[name] = entry
    return out


def mnist(tmp):
    count, rows, cols = 3, 28, 28
    px = bytes(((i * 31 + i // 7) & 0xFF) for i in range(count * rows * cols))
    labels = bytes([5, 0, 4])
    images_idx = struct.pack(">IIII", 0x803, count, rows, cols) + px
    labels_idx = struct.pack(">II", 0x801, count) + labels
    ip = os.path.join(tmp, "images-idx3-ubyte")
    lp = os.path.join(tmp, "labels-idx1-ubyte")
    with open(ip, "wb") as f:
        f.write(images_idx)
    with open(lp, "wb") as f:
        f.write(labels_idx)
    with gzip.open(ip + ".gz", "wb") as f:
        f.write(images_idx)
    plain = read_all([ip], header_bytes=16, record_bytes=rows * cols)
    gz = read_all([ip + ".gz"], header_bytes=16, record_bytes=rows * cols, encoding="GZIP")
    lab = read_all([lp], header_bytes=8, record_bytes=1)
    assert [v for _, v in plain] == [v for _, v in gz]
    return {
        "images_file_sha256": hashlib.sha256(images_idx).hexdigest(),
        "labels_file_sha256": hashlib.sha256(labels_idx).hexdigest(),
        "image_sha256": [hashlib.sha256(v).hexdigest() for _, v in plain],
        "gzip_images": len(gz),
        "labels": [v[0] for _, v in lab],
    }


def main():
    with tempfile.TemporaryDirectory() as tmp:
        c = cifar(tmp)
        m = mnist(tmp)
    c["tensorflow"] = m["tensorflow"] = tf.__version__
    for path, obj in [("datasets/cifar10/testdata/tfref.json", c), ("datasets/mnist/testdata/tfref.json", m)]:
        with open(path, "w") as f:
            json.dump(obj, f, indent=1)
            f.write("\n")
        print("wrote", path)


if __name__ == "__main__":
    main()
