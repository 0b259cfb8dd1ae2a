"""Encoded images in Examples, decoded into batches of one shape: sluice
from Python (sluice.Image, decoded on the Go side) against tf.data
(parse, tf.io.decode_jpeg, tf.image.resize_with_crop_or_pad mapped with
AUTOTUNE), interleaved in one run.

    python bench/py/imagesbench.py --dir build/bench-images --rounds 3

It writes --files TFRecord files of --per-file Examples once (a JPEG of
--size x --size pixels at quality 90, from smooth random fields, and a
label), then each round runs every system in turn in a process of its
own: a warm-up pass, then timed passes until one second has passed.
Each prints images a second and CPU time an image (its process and its
children: sluice's server), and the report gives each round's figures
and the medians. Needs TensorFlow, NumPy and the sluice package.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import common

SYSTEMS = ["sluice", "sluice-deterministic", "tf.data"]
CROP = 200  # pixels fitted to CROP x CROP x 3 (a center crop)


def generate(a):
    import numpy as np
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    os.makedirs(a.dir, exist_ok=True)
    rng = np.random.default_rng(1)
    for f in range(a.files):
        name = os.path.join(a.dir, f"images-{f}.tfrecord")
        if os.path.exists(name):
            continue
        with tf.io.TFRecordWriter(name + ".tmp") as w:
            for i in range(a.per_file):
                # A smooth field with some noise, as photographs are.
                small = rng.integers(0, 256, (a.size // 16, a.size // 16, 3)).astype(np.float32)
                img = tf.image.resize(small[None], (a.size, a.size))[0].numpy()
                img = np.clip(img + rng.normal(0, 6, img.shape), 0, 255).astype(np.uint8)
                jpeg = tf.io.encode_jpeg(img, quality=90).numpy()
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[jpeg])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10]))}))
                w.write(ex.SerializeToString())
        os.rename(name + ".tmp", name)


def cpu():
    # This process's and its children's, the live ones too (sluice's
    # server lives as long as its data set), from /proc.
    s = resource.getrusage(resource.RUSAGE_SELF)
    return s.ru_utime + s.ru_stime + common.children_cpu()


def run_one(a):
    files = sorted(os.path.join(a.dir, f) for f in os.listdir(a.dir) if f.endswith(".tfrecord"))
    if a.system.startswith("sluice"):
        import sluice
        spec = {"image": sluice.Image(CROP, CROP, 3), "label": sluice.FixedLen([], "int64")}
        # Built once and iterated each pass, as tf.data's is (its server
        # is kept between passes).
        ds = sluice.examples(files, spec, 128, readers=2, deterministic=a.system == "sluice-deterministic")

        def one_pass():
            n = 0
            for b in ds:
                n += len(b["label"])
            return n
    else:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf
        feats = {"image": tf.io.FixedLenFeature([], tf.string), "label": tf.io.FixedLenFeature([], tf.int64)}

        def decode(rec):
            ex = tf.io.parse_single_example(rec, feats)
            img = tf.io.decode_jpeg(ex["image"], channels=3)
            return tf.image.resize_with_crop_or_pad(img, CROP, CROP), ex["label"]
        ds = (tf.data.TFRecordDataset(files, num_parallel_reads=2)
              .map(decode, num_parallel_calls=tf.data.AUTOTUNE).batch(128).prefetch(tf.data.AUTOTUNE))

        def one_pass():
            n = 0
            for _, label in ds:
                n += int(label.shape[0])
            return n
    one_pass()
    t0, c0, n = time.perf_counter(), cpu(), 0
    while time.perf_counter() - t0 < 1.0:
        n += one_pass()
    t, c = time.perf_counter() - t0, cpu() - c0
    print(json.dumps({"system": a.system, "images": n, "seconds": t, "cpu_seconds": c}))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dir", default="build/bench-images")
    p.add_argument("--files", type=int, default=4)
    p.add_argument("--per-file", type=int, default=512)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--system", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.system:
        return run_one(a)
    generate(a)
    results = {s: [] for s in SYSTEMS}
    for r in range(a.rounds):
        for s in SYSTEMS:
            out = subprocess.run([sys.executable, __file__, "--dir", a.dir, "--system", s],
                                 check=True, capture_output=True, text=True).stdout
            d = json.loads(out.strip().splitlines()[-1])
            ips, cpi = d["images"] / d["seconds"], d["cpu_seconds"] / d["images"] * 1e6
            results[s].append((ips, cpi))
            print(f"round {r + 1} {s:22s} {ips:8.0f} images/s {cpi:8.1f} us CPU an image", flush=True)
    print("median:")
    for s, rs in results.items():
        print(f"  {s:22s} {statistics.median(x for x, _ in rs):8.0f} images/s "
              f"{statistics.median(y for _, y in rs):8.1f} us CPU an image")


if __name__ == "__main__":
    main()
