"""Trains a softmax classifier in NumPy on the digits `sluice demo --dir DIR`
writes (GZIP TFRecord shards of tf.train.Example), read by sluice.

    python -m sluice demo --dir /tmp/digits         # writes the data (or go run ./cmd/sluice demo ...)
    build/py-venv/bin/python python/examples/digits.py /tmp/digits
"""

import os
import sys
import time

import numpy as np

import sluice

data = sys.argv[1] if len(sys.argv) > 1 else "data"
spec = {
    "image_raw": sluice.FixedLen([28, 28], "uint8"),  # the pixels' bytes, read as numbers
    "label": sluice.FixedLen([], "int64"),
}
train = sluice.examples(os.path.join(data, "train-*.tfrecord.gz"), spec, batch_size=128,
                        epochs=3, shuffle=10000, seed=42)

w = np.zeros((784, 10), np.float32)
b = np.zeros(10, np.float32)
seen, start = 0, time.monotonic()
for batch in train:  # arrays are views of shared memory, valid until the next batch
    x = batch["image_raw"].reshape(-1, 784).astype(np.float32) / 255
    y = batch["label"]
    logits = x @ w + b
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    loss = -np.log(p[np.arange(len(y)), y] + 1e-9).mean()
    p[np.arange(len(y)), y] -= 1  # the gradient of the loss by the logits, times len(y)
    w -= 0.5 * x.T @ p / len(y)
    b -= 0.5 * p.mean(axis=0)
    seen += len(y)
elapsed = time.monotonic() - start

correct = total = 0
for batch in sluice.examples(os.path.join(data, "test-*.tfrecord*"), spec, batch_size=1000):
    x = batch["image_raw"].reshape(-1, 784).astype(np.float32) / 255
    correct += int(((x @ w + b).argmax(axis=1) == batch["label"]).sum())
    total += len(batch["label"])
print(f"trained on {seen} examples in {elapsed:.1f} s ({seen / elapsed:.0f} examples/s), final loss {loss:.3f}")
print(f"test accuracy {100 * correct / max(total, 1):.2f}% on {total} images")
