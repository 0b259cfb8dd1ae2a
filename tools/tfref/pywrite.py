"""Reference bytes of TensorFlow's tf.train.Example for the Python package's
writer (sluice.encode_example).

Run by hand (never by CI) from the repository root:

    python tools/tfref/pywrite.py

For each case of python/tests/example_cases.py it builds the Example (or
SequenceExample) with
TensorFlow's own protos, each value as TensorFlow's lists take it (floats
as a FloatList, ints and bools as an Int64List, bytes and str as a
BytesList, arrays flattened), serializes it with map keys sorted
(deterministic=True, the order sluice writes) and writes the bytes, in
hex, to python/tests/data/tf_examples.json. The Python tests compare
sluice's bytes with them; they never need TensorFlow.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "python", "tests"))
from example_cases import CASES, SEQUENCE_CASES  # noqa: E402


def feature(v):
    if isinstance(v, (bytes, str)):
        v = [v]
    if isinstance(v, (bool, int, float, np.generic)):
        v = np.array([v])
    if isinstance(v, list):
        if not v:
            return tf.train.Feature()
        if all(isinstance(x, (bytes, str)) for x in v):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=[x.encode() if isinstance(x, str) else x for x in v]))
        if any(isinstance(x, float) for x in v):
            return tf.train.Feature(float_list=tf.train.FloatList(value=v))
        v = np.asarray(v)
    if v.dtype == object:
        return feature(v.ravel().tolist())
    if v.dtype.kind == "f":
        return tf.train.Feature(float_list=tf.train.FloatList(value=v.ravel()))
    if v.dtype.kind in "iub":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v.astype(np.int64).ravel().tolist()))
    return tf.train.Feature(bytes_list=tf.train.BytesList(
        value=[x.encode() if isinstance(x, str) else bytes(x) for x in v.ravel().tolist()]))


out = {}
for name, make in CASES.items():
    ex = tf.train.Example(features=tf.train.Features(feature={k: feature(v) for k, v in make().items()}))
    out[name] = ex.SerializeToString(deterministic=True).hex()
seq = {}
for name, make in SEQUENCE_CASES.items():
    context, lists = make()
    ex = tf.train.SequenceExample(
        context=tf.train.Features(feature={k: feature(v) for k, v in (context or {}).items()}),
        feature_lists=tf.train.FeatureLists(feature_list={
            k: tf.train.FeatureList(feature=[feature(step) for step in steps]) for k, steps in lists.items()}))
    seq[name] = ex.SerializeToString(deterministic=True).hex()
path = os.path.join(root, "python", "tests", "data", "tf_examples.json")
with open(path, "w") as f:
    json.dump({"tensorflow": tf.__version__, "examples": out, "sequence_examples": seq}, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote {len(out)} examples to {path}")
