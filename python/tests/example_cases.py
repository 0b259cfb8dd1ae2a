"""Examples as a trainer writes them, shared by test_write.py and
tools/tfref/pywrite.py, which records TensorFlow's bytes for each (its
serialization with map keys sorted) in data/tf_examples.json."""
import numpy as np

CASES = {
    "mnist": lambda: {"image": (np.arange(784, dtype=np.float32) % 255) / 255 - 0.5, "label": 7},
    "scalars": lambda: {"f": 1.5, "i": -1, "b": True, "s": "text", "raw": b"\x00\xff"},
    "int64-edges": lambda: {"v": np.array([0, 1, 127, 128, 300, -1, -(2**63), 2**63 - 1, 2**35], np.int64)},
    "float-kinds": lambda: {"d": np.array([[1e-45, -0.0], [3.4e38, 0.1]], np.float64), "h": np.array([1, 2], np.float16)},
    "unsigned-bool": lambda: {"u": np.array([0, 255], np.uint8), "b": np.array([True, False])},
    "lists": lambda: {"fl": [0.5, 1, 2], "il": [1, 2, 3], "bl": [b"a", "é", b""], "none": []},
    "empty-arrays": lambda: {"f": np.zeros(0, np.float32), "i": np.zeros(0, np.int64)},
    "bytes-array": lambda: {"s": np.array([b"ab", b"c"]), "u": np.array(["x", "yz"])},
    # Names in code point order, none the prefix of another: Python
    # protobuf's sorted serialization puts "ab" before "a" (and "" last),
    # where C++'s and Go's, and sluice's, put the prefix first.
    "names": lambda: {"z": 1, "a": 2, "é": 3, "b": 4},
    "empty": lambda: {},
    # An int beyond int64 among floats: a FloatList, as TensorFlow takes
    # the list (it looped until RecursionError, audit 41).
    "big-int-among-floats": lambda: {"a": [2**70, 1.5], "b": np.array([1.5, 2**64], dtype=object)},
    # A long double rounds through a double, as TensorFlow's does.
    "long-double": lambda: {"x": np.array([np.longdouble(1) + np.longdouble(2)**-24 + np.longdouble(2)**-60], np.longdouble)},
}

# SequenceExamples: (context, feature_lists), each list a sequence of steps.
SEQUENCE_CASES = {
    "seq": lambda: ({"id": 3, "name": "a"},
                    {"tokens": [[1, 2], [3]], "scores": [np.array([0.5, 1.5], np.float32)],
                     "words": [[b"hi"], ["there", "x"]]}),
    "seq-rows": lambda: (None, {"frames": np.arange(6, dtype=np.float32).reshape(3, 2), "empty": []}),
    "seq-empty": lambda: (None, {}),
}
