"""The bits of the NaNs tf.io.decode_csv parses, from TensorFlow itself.

Run by hand (never by CI), from the repository root:

    python tools/tfref/nanbits.py

with TensorFlow 2.21 installed (pip install tensorflow-cpu==2.21.0). It
writes decode/testdata/tf_nan_bits.json: for each spelling of NaN and each
float type, the bits of the value TensorFlow returns (decode.py records a
NaN only as "nan"). Its parser is C's strtod: the sign, and a payload read
from "nan(chars)" as strtoull reads it, base 0.
"""
import json

import numpy as np
import tensorflow as tf

SPELLINGS = ["nan", "-nan", "+nan", "NaN", "nan()", "nan(0)", "nan(1)", "-nan(1)", "nan(123)",
             "nan(0x7b)", "nan(0X7B)", "nan(017)", "nan(09)", "nan(0x)", "nan(abc)", "nan(abc_1)",
             "nan(_1)", "nan(1_)", "NAN(Z)", "nan(4194303)", "nan(4194304)", "nan(8388607)",
             "nan(0xfffffffffffff)", "nan(0x7ffffffffffff)", "nan(0x8000000000000)",
             "nan(18446744073709551615)", "nan(18446744073709551616)", "nan(99999999999999999999999)",
             "-nan(0xffffffffffffffff)",
             # TensorFlow passes C's nan() at most 127 of the chars.
             "nan(" + "0" * 126 + "1)", "nan(" + "0" * 126 + "12)", "nan(" + "0" * 125 + "17)",
             "nan(" + "0" * 130 + "1)", "nan(" + "1" * 127 + "x)", "nan(" + "1" * 126 + "x)"]


def main():
    cases = []
    for s in SPELLINGS:
        for dt, view in (("float32", np.uint32), ("float64", np.uint64)):
            out = tf.io.decode_csv([s], [tf.constant([0], getattr(tf, dt))])[0].numpy()
            cases.append({"field": s, "dtype": dt, "bits": f"{int(out.view(view)[0]):x}"})
    with open("decode/testdata/tf_nan_bits.json", "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1)


if __name__ == "__main__":
    main()
