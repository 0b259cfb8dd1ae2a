"""Checks, with TensorFlow, that the parse specs `sluice schema` infers read the data.

Run by hand (never by CI) from the repository root, with Go on the PATH and
TensorFlow 2.x in the Python environment:

    python tools/tfref/schema.py

It writes, with TensorFlow's own TFRecordWriter and tf.train protos, a GZIP
file of Examples and a file of SequenceExamples whose features cover every
case the command distinguishes (fixed scalars and vectors, varying counts,
features missing from some records, empty lists, a feature whose kind
differs between records, fixed and ragged feature lists, a list missing from
some records). It runs `sluice schema --output python` on each, executes the
printed dictionaries, and parses every record with them:
tf.io.parse_example on the whole batch of Examples and
tf.io.parse_single_sequence_example on each SequenceExample. Each fixed
feature must come back with the shape the data has. It prints one line per
check and exits non-zero on the first failure.
"""
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

train = tf.train


def int64s(*v):
    return train.Feature(int64_list=train.Int64List(value=list(v)))


def floats(*v):
    return train.Feature(float_list=train.FloatList(value=list(v)))


def byte_strings(n):
    return train.Feature(bytes_list=train.BytesList(value=[b"t%d" % i for i in range(n)]))


def examples():
    out = []
    for i in range(10):
        f = {
            "label": int64s(i),
            "image": floats(float(i), 1, 2, 3),
            "empty": train.Feature(),
            "kinds": int64s(1) if i < 5 else floats(1),
            "pair": byte_strings(2),
            "tags": byte_strings(i % 4),
            "zero": train.Feature(int64_list=train.Int64List()),
        }
        if i % 3:
            f["maybe"] = floats(0.5)
        out.append(train.Example(features=train.Features(feature=f)).SerializeToString())
    return out


def sequences():
    out = []
    for i in range(6):
        lists = {
            "tokens": [int64s(j) for j in range(i + 1)],
            "xy": [floats(1, 2) for _ in range(2)],
            "ragged": [byte_strings(j) for j in range(3)],
        }
        if i % 2:
            lists["sparse"] = [floats(float(j)) for j in range(i % 2)]
        out.append(train.SequenceExample(
            context=train.Features(feature={"id": int64s(i)}),
            feature_lists=train.FeatureLists(feature_list={
                k: train.FeatureList(feature=v) for k, v in lists.items()}),
        ).SerializeToString())
    return out


def write(path, records, compression=None):
    with tf.io.TFRecordWriter(path, options=compression) as w:
        for r in records:
            w.write(r)


def schema(path):
    out = subprocess.run(["go", "run", "./cmd/sluice", "schema", "--output", "python", path],
                         check=True, capture_output=True, text=True).stdout
    print(out, end="")
    env = {"tf": tf}
    exec(out, env)
    return env


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        sys.exit(1)


def main():
    with tempfile.TemporaryDirectory() as d:
        ex = examples()
        path = os.path.join(d, "ex.tfrecord.gz")
        write(path, ex, "GZIP")
        spec = schema(path)["features"]
        check("kinds" not in spec, "a feature of two kinds gets no spec")
        parsed = tf.io.parse_example(ex, spec)
        for name, want in {"label": [10], "image": [10, 4], "pair": [10, 2]}.items():
            check(list(parsed[name].shape) == want, f"Example feature {name}: shape {want}")
        for name in ("tags", "maybe", "empty", "zero"):
            check(isinstance(parsed[name], tf.SparseTensor), f"Example feature {name}: VarLen")

        seq = sequences()
        path = os.path.join(d, "seq.tfrecord")
        write(path, seq)
        env = schema(path)
        for i, rec in enumerate(seq):
            ctx, lists = tf.io.parse_single_sequence_example(
                rec, context_features=env["context_features"], sequence_features=env["sequence_features"])
            check(list(lists["tokens"].shape) == [i + 1] and list(lists["xy"].shape) == [2, 2]
                  and list(lists["sparse"].shape) == [i % 2] and int(ctx["id"]) == i,
                  f"SequenceExample {i}: every list parses with the data's shape")


if __name__ == "__main__":
    main()
