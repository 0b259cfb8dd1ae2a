"""Reference outputs of TensorFlow's Example parsing for package example.

Run by hand (never by CI) from the repository root:

    python tools/tfref/example.py

It builds serialized Examples and SequenceExamples — with TensorFlow's own
protos and by hand for wire variants TensorFlow's serializer never writes
(unpacked lists, value-before-key map entries, duplicate keys by
concatenation, unknown fields, hostile lengths) — runs tf.io.parse_example,
parse_single_example, parse_single_sequence_example and
parse_sequence_example on them, and writes inputs (base64), specs and
outputs or error messages to example/testdata/tfref.json. It also parses
../shared/interop/mnist-1000.tfrecord and records checksums of the result.
The Go tests read the JSON; they never need Python.
"""
import base64
import hashlib
import json
import os
import struct

import numpy as np
import tensorflow as tf

# ---- hand-made wire encoding -------------------------------------------------

def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)

def tag(num, wt):
    return varint(num << 3 | wt)

def ld(num, payload):
    return tag(num, 2) + varint(len(payload)) + payload

def packed_floats(vals):
    return ld(1, b"".join(struct.pack("<f", v) for v in vals))

def unpacked_floats(vals):
    return b"".join(tag(1, 5) + struct.pack("<f", v) for v in vals)

def packed_ints(vals):
    return ld(1, b"".join(varint(v) for v in vals))

def unpacked_ints(vals):
    return b"".join(tag(1, 0) + varint(v) for v in vals)

def bytes_vals(vals):
    return b"".join(ld(1, v) for v in vals)

def feature(kind, body):  # kind: 1 bytes, 2 float, 3 int64
    return ld(kind, body)

def entry(key, feat, value_first=False, extra=b""):
    k, v = ld(1, key), ld(2, feat)
    return ld(1, (v + k if value_first else k + v) + extra)

def example(*entries, extra=b""):
    return ld(1, b"".join(entries)) + extra

def ex(**kw):
    e = tf.train.Example()
    for k, v in kw.items():
        f = e.features.feature[k]
        if v is None:
            f.SetInParent()
        elif len(v) and isinstance(v[0], float):
            f.float_list.value.extend(v)
        elif len(v) and isinstance(v[0], int):
            f.int64_list.value.extend(v)
        elif len(v) and isinstance(v[0], bytes):
            f.bytes_list.value.extend(v)
        else:
            raise ValueError("empty list needs a hand-made encoding")
    return e.SerializeToString()

# ---- specs -------------------------------------------------------------------

DT = {"float32": tf.float32, "int64": tf.int64, "string": tf.string}

def fixed(dtype, shape=(), default=None):
    return {"kind": "fixed", "dtype": dtype, "shape": list(shape), "default": default}

def varlen(dtype):
    return {"kind": "varlen", "dtype": dtype}

def sparse(index_keys, value_key, dtype, size, already_sorted=False):
    single = isinstance(index_keys, str)
    return {"kind": "sparse", "dtype": dtype, "index_keys": [index_keys] if single else index_keys,
            "single_key": single, "value_key": value_key,
            "size": size, "already_sorted": already_sorted}

def seq(dtype, shape=(), allow_missing=False, default=None):
    return {"kind": "seq", "dtype": dtype, "shape": list(shape), "allow_missing": allow_missing,
            "default": default}

def tf_spec(spec):
    out = {}
    for name, s in spec.items():
        dt = DT[s["dtype"]]
        d = s.get("default")
        if d is not None and s["dtype"] == "string":
            d = [x.encode() if isinstance(x, str) else x for x in d] if isinstance(d, list) else d.encode()
        if s["kind"] == "fixed":
            out[name] = tf.io.FixedLenFeature(s["shape"], dt, default_value=d)
        elif s["kind"] == "varlen":
            out[name] = tf.io.VarLenFeature(dt)
        elif s["kind"] == "sparse":
            ik, size = s["index_keys"], s["size"]
            if s["single_key"]:
                ik, size = ik[0], size[0]
            out[name] = tf.io.SparseFeature(ik, s["value_key"], dt, size, s["already_sorted"])
        else:
            out[name] = tf.io.FixedLenSequenceFeature(s["shape"], dt, allow_missing=s["allow_missing"],
                                                       default_value=d)
    return out

def enc_values(arr):
    if arr.dtype == object:
        return [base64.b64encode(x).decode() for x in arr.reshape(-1)]
    if arr.dtype == np.float32:
        # Bit patterns, so NaN and -0 survive JSON.
        return [int(x) for x in arr.reshape(-1).view(np.uint32)]
    return [int(x) for x in arr.reshape(-1)]

def enc_output(out):
    res = {}
    for name, v in out.items():
        if isinstance(v, tf.SparseTensor):
            res[name] = {"indices": enc_values(v.indices.numpy()), "values": enc_values(v.values.numpy()),
                         "dense_shape": [int(x) for x in v.dense_shape.numpy()]}
        else:
            a = v.numpy()
            if isinstance(a, bytes):  # a scalar string
                a = np.array(a, dtype=object)
            res[name] = {"shape": list(a.shape), "values": enc_values(a)}
    return res

def errmsg(e):
    m = getattr(e, "message", str(e))
    lines = [l for l in m.split("\n") if l.strip() and "[[" not in l]
    m = lines[0] if lines else m
    if m.startswith("{{") and "}} " in m:
        m = m.split("}} ", 1)[1]
    if " [Op:" in m:
        m = m[:m.index(" [Op:")]
    return m

CASES = []

def case(name, mode, inputs, spec=None, context=None, lists=None, keys=None, note=None, tf_observed=None):
    c = {"name": name, "mode": mode, "inputs": [base64.b64encode(x).decode() for x in inputs]}
    if keys is None:
        keys = ["rec%d" % i for i in range(len(inputs))]
    c["keys"] = keys
    if tf_observed:
        # Not run here: TensorFlow crashes or misbehaves on the input; what it
        # did when run by hand in a separate process is recorded instead.
        c["spec"], c["tf_observed"], c["error"] = spec, tf_observed, "malformed"
        c["note"] = note
        CASES.append(c)
        return
    try:
        if mode == "single":
            c["spec"] = spec
            out = tf.io.parse_single_example(inputs[0], tf_spec(spec), example_names=keys[0])
            c["output"] = enc_output(out)
        elif mode == "batch":
            c["spec"] = spec
            out = tf.io.parse_example(tf.constant(inputs, dtype=tf.string), tf_spec(spec), example_names=keys)
            c["output"] = enc_output(out)
        elif mode == "seq_single":
            c["context"], c["lists"] = context, lists
            co, lo = tf.io.parse_single_sequence_example(inputs[0], tf_spec(context), tf_spec(lists),
                                                         example_name=keys[0])
            c["output"] = enc_output(co)
            c["list_output"] = enc_output(lo)
        else:
            c["context"], c["lists"] = context, lists
            co, lo, ln = tf.io.parse_sequence_example(tf.constant(inputs, dtype=tf.string), tf_spec(context),
                                                      tf_spec(lists), example_names=keys)
            c["output"] = enc_output(co)
            c["list_output"] = enc_output(lo)
            c["lengths"] = {k: [int(x) for x in v.numpy()] for k, v in ln.items()}
    except (tf.errors.OpError, ValueError, TypeError) as e:
        c["error"] = errmsg(e)
    if note:
        c["note"] = note
    CASES.append(c)

# ---- Example cases -----------------------------------------------------------

a = ex(f=[1.0, 2.5, -3.0], i=[7], s=[b"ab", b""])
b = ex(f=[4.0, 5.0, 6.0], i=[-8], s=[b"c", b"\xff\x00"])
basic = {"f": fixed("float32", [3]), "i": fixed("int64"), "s": fixed("string", [2])}
case("fixedlen_single", "single", [a], basic)
case("fixedlen_batch", "batch", [a, b], basic)
case("fixedlen_2x2", "batch", [ex(m=[1, 2, 3, 4])], {"m": fixed("int64", [2, 2])})
case("default_scalar", "batch", [a, ex(f=[9.0, 9.0, 9.0])],
     {"x": fixed("float32", [], default=1.5), "i": fixed("int64", [], default=42)})
case("default_scalar_broadcast", "batch", [a], {"x": fixed("float32", [2], default=1.5)},
     note="deviation: TensorFlow's Python layer cannot reshape a scalar default to [2]; sluice repeats it, as DECODERS.md says")
case("default_full", "batch", [a], {"x": fixed("int64", [3], default=[1, 2, 3]),
                                  "y": fixed("string", [2], default=["p", "q"])})
case("feature_without_kind_uses_default", "batch", [ex(x=None)], {"x": fixed("float32", [], default=2.0)})
case("missing_required_float", "batch", [a], {"x": fixed("float32")})
case("missing_required_int64", "batch", [a, b], {"x": fixed("int64", [2])})
case("missing_required_string", "batch", [a], {"x": fixed("string")})
case("feature_without_kind_required", "batch", [ex(x=None)], {"x": fixed("float32")})
case("count_float", "batch", [a], {"f": fixed("float32", [4])})
case("count_float_2x2", "batch", [a], {"f": fixed("float32", [2, 2])})
case("count_int64", "batch", [b, ex(i=[1, 2])], {"i": fixed("int64")})
case("count_bytes", "batch", [a], {"s": fixed("string", [3])})
case("dtype_fixed", "batch", [a], {"f": fixed("int64", [3])})
case("dtype_fixed_string", "batch", [a], {"i": fixed("string")})
case("dtype_varlen", "batch", [a], {"f": varlen("string")})

v1 = ex(t=[1, 2, 3], w=[b"x"])
v2 = ex(u=[5.0])
v3 = ex(t=[4], w=[b"y", b"zz"], u=[1.0, 2.0])
vspec = {"t": varlen("int64"), "w": varlen("string"), "u": varlen("float32")}
case("varlen_batch", "batch", [v1, v2, v3], vspec)
case("varlen_single", "single", [v3], vspec)
case("varlen_single_missing", "single", [v2], {"t": varlen("int64")})

s1 = ex(ix=[3, 1, 2], v=[30.0, 10.0, 20.0])
s2 = ex(ix=[0], v=[5.0])
s3 = ex(r=[1, 0, 1], c=[2, 5, 0], v=[1.0, 2.0, 3.0])
case("sparse_unsorted", "batch", [s1, s2], {"sp": sparse("ix", "v", "float32", [4])})
case("sparse_already_sorted", "batch", [s1], {"sp": sparse("ix", "v", "float32", [4], already_sorted=True)})
case("sparse_2d", "batch", [s3, ex(r=[0], c=[0], v=[9.0])], {"sp": sparse(["r", "c"], "v", "float32", [2, 6])})
case("sparse_single", "single", [s3], {"sp": sparse(["r", "c"], "v", "float32", [2, 6])})
case("sparse_out_of_bounds_kept", "batch", [ex(ix=[30, -1], v=[1.0, 2.0])], {"sp": sparse("ix", "v", "float32", [5])})
case("sparse_missing", "batch", [a], {"sp": sparse("ix", "v", "float32", [4])})
case("sparse_count_mismatch_equal_totals", "batch", [ex(v=[1.0]), ex(ix=[3])], {"sp": sparse("ix", "v", "float32", [4])},
     note="deviation: TensorFlow checks only the batch's totals and puts rec0's value in rec1's row; sluice refuses the batch, naming rec0")
case("sparse_count_mismatch", "batch", [ex(ix=[1, 2], v=[1.0])], {"sp": sparse("ix", "v", "float32", [4])},
     note="deviation: TensorFlow fails on the batch's shapes; sluice names the record and the counts")

# Specs TensorFlow refuses when it builds the parse config, and the
# overlaps it allows.
case("spec_sparse_value_is_dense", "batch", [s1], {"sp": sparse("ix", "v", "float32", [4]), "v": fixed("float32", [3])})
case("spec_sparse_index_is_dense", "batch", [s1], {"sp": sparse("ix", "v", "float32", [4]), "ix": fixed("int64", [3])})
case("spec_sparse_value_is_fixedlenseq", "batch", [s1],
     {"sp": sparse("ix", "v", "float32", [4]), "v": seq("float32", allow_missing=True)})
case("spec_sparse_keys_both_dense", "single", [s1],
     {"sp": sparse("ix", "v", "float32", [4]), "ix": fixed("int64", [3]), "v": fixed("float32", [3])})
case("spec_sparse_index_is_value_string", "batch", [a], {"sp": sparse("b", "b", "string", [4])})
case("spec_sparse_index_is_value_single", "single", [a], {"sp": sparse("b", "b", "string", [4])})
case("spec_sparse_value_varlen_dtype", "batch", [s1], {"sp": sparse("ix", "v", "float32", [4]), "v": varlen("int64")})
case("spec_sparse_index_varlen_float", "batch", [s1], {"sp": sparse("ix", "v", "float32", [4]), "ix": varlen("float32")})
case("spec_two_sparse_value_dtype", "batch", [s1],
     {"sp": sparse("ix", "v", "float32", [4]), "sq": sparse("jx", "v", "string", [4])})
case("spec_sparse_value_varlen_same_dtype", "batch", [s1, s2],
     {"sp": sparse("ix", "v", "float32", [4]), "v": varlen("float32"), "ix": varlen("int64")})
case("spec_two_sparse_share_keys", "batch", [s1, s2],
     {"sp": sparse("ix", "v", "float32", [4]), "sq": sparse("ix", "v", "float32", [8], already_sorted=True)})
case("spec_sparse_index_is_value_int64", "batch", [ex(b=[3, 1]), ex(b=[2])], {"sp": sparse("b", "b", "int64", [4])})
case("spec_sparse_2d_same_index_twice", "batch", [s1], {"sp": sparse(["ix", "ix"], "v", "float32", [4, 4])})

q1 = ex(q=[1.0, 2.0, 3.0, 4.0])
q2 = ex(q=[5.0, 6.0])
case("fixedlenseq_example", "batch", [q1, q2, a],
     {"q": seq("float32", [2], allow_missing=True, default=-1.0)})
case("fixedlenseq_example_scalar", "batch", [ex(q=[1, 2, 3]), ex(q=[4])], {"q": seq("int64", [], allow_missing=True)})
case("fixedlenseq_example_single", "single", [q1], {"q": seq("float32", [2], allow_missing=True)})
case("fixedlenseq_example_stride", "batch", [ex(q=[1.0, 2.0, 3.0])], {"q": seq("float32", [2], allow_missing=True)})
case("fixedlenseq_requires_allow_missing", "batch", [q1], {"q": seq("float32", [2])})

# A default of no elements is no default (TensorFlow's kernel: NumElements() == 0).
nox = ex(other=[1])
case("default_empty_shape0_missing", "batch", [nox], {"x": fixed("float32", [0], default=[])})
case("default_empty_shape0_missing_single", "single", [nox], {"x": fixed("float32", [0], default=[])})
case("default_empty_shape0_missing_int64", "batch", [example(entry(b"x", feature(3, b""))), nox],
     {"x": fixed("int64", [0], default=[])})
case("default_empty_shape0_missing_string", "batch", [nox], {"x": fixed("string", [0], default=[])})
case("default_empty_shape2x0_missing", "batch", [nox], {"x": fixed("float32", [2, 0], default=[])})
case("default_empty_shape0_present", "batch", [example(entry(b"x", feature(2, b"")))],
     {"x": fixed("float32", [0], default=[])})

# Wire variants.
fv = feature(2, packed_floats([1.0, 2.0]))
iv = feature(3, packed_ints([7]))
wspec = {"f": fixed("float32", [2]), "i": fixed("int64")}
case("empty_record", "batch", [b""], {"x": fixed("float32", [], default=3.0), "v": varlen("int64")})
case("empty_record_required", "batch", [b""], {"x": fixed("float32")})
case("unpacked_lists", "batch", [example(entry(b"f", feature(2, unpacked_floats([1.0, 2.0]))),
                                         entry(b"i", feature(3, unpacked_ints([7]))))], wspec)
case("mixed_packed_unpacked", "batch", [example(entry(b"f", feature(2, unpacked_floats([1.0]) + packed_floats([2.0]))),
                                                entry(b"i", feature(3, packed_ints([5]) + unpacked_ints([7]))))],
     {"f": fixed("float32", [2]), "i": fixed("int64", [2])},
     note="deviation: TensorFlow's fast parser reads only the first run of an int64 list mixing packed and unpacked values; protobuf (and sluice) read all")
case("empty_packed_then_unpacked", "batch", [example(entry(b"i", feature(3, packed_ints([]) + unpacked_ints([7]))))],
     {"i": fixed("int64")}, note="deviation: TensorFlow's fast parser stops at the empty packed field; protobuf (and sluice) read 1 value")
case("value_before_key", "batch", [example(entry(b"f", fv, value_first=True), entry(b"i", iv, value_first=True))], wspec)
case("duplicate_key_last_wins", "batch", [ex(f=[1.0, 1.0], i=[1]) + ex(f=[2.0, 3.0])], wspec)
case("duplicate_key_last_wins_dtype", "batch", [ex(i=[1.0]) + ex(i=[5])], wspec | {"f": fixed("float32", [2], default=[0.0, 0.0])})
case("unknown_fields", "batch", [tag(3, 0) + varint(1) + example(entry(b"f", fv + tag(9, 0) + varint(5)),
                                         entry(b"i", feature(3, packed_ints([7]) + tag(4, 1) + b"12345678")),
                                         extra=ld(15, b"junk")) + tag(3, 0) + varint(1)], wspec)
case("unknown_field_in_map_entry", "batch", [example(entry(b"f", fv, extra=tag(7, 5) + b"abcd"), entry(b"i", iv))], wspec,
     note="deviation: TensorFlow's fast parser rejects unknown fields in a map entry; protobuf (and sluice) skip them")
case("unknown_field_in_features", "batch", [ld(1, entry(b"f", fv) + entry(b"i", iv) + tag(5, 0) + varint(3))], wspec,
     note="deviation: TensorFlow's fast parser rejects unknown fields in Features; protobuf (and sluice) skip them")
unk = tag(9, 0) + varint(5)
case("unknown_field_before_feature_values", "batch", [example(entry(b"i", unk + iv))], {"i": fixed("int64")},
     note="deviation: TensorFlow's fast parser rejects an unknown field before a Feature's list; protobuf (and sluice) skip it")
case("unknown_field_before_int64_list_values", "batch", [example(entry(b"i", feature(3, unk + packed_ints([7]))))],
     {"i": fixed("int64")},
     note="deviation: TensorFlow's fast parser rejects an unknown field before a list's values; protobuf (and sluice) skip it")
case("unknown_field_in_bytes_list", "batch", [example(entry(b"s", feature(1, bytes_vals([b"ab"]) + unk)))],
     {"s": fixed("string")},
     note="deviation: TensorFlow's fast parser rejects an unknown field anywhere in a BytesList; protobuf (and sluice) skip it")
case("negative_int64", "batch", [ex(i=[-1]), ex(i=[-(2**63)])], {"i": fixed("int64")})
case("feature_oneof_last_wins", "batch", [example(entry(b"i", feature(2, packed_floats([1.0])) + iv))], {"i": fixed("int64")},
     note="deviation: TensorFlow's fast parser keeps the first oneof case; protobuf (and sluice) keep the last")
case("feature_oneof_same_kind_merges", "batch", [example(entry(b"f", feature(2, packed_floats([1.0])) +
                                                              feature(2, packed_floats([2.0]))))], {"f": fixed("float32", [2])},
     note="deviation: TensorFlow's fast parser keeps one of the two lists; protobuf (and sluice) merge them")
case("empty_typed_list_varlen", "batch", [example(entry(b"t", feature(3, b"")))], {"t": varlen("int64")})
case("special_floats", "batch", [ex(f=[float("nan"), float("inf"), -0.0])], {"f": fixed("float32", [3])})

# Malformed.
case("garbage", "batch", [b"\x0a\x05abc"], {"f": fixed("float32", [2], default=[0.0, 0.0])})
case("truncated_tag", "batch", [b"\x0a"], {"f": varlen("float32")})
case("packed_float_not_multiple_of_4", "batch", [example(entry(b"f", feature(2, ld(1, b"\x00\x00\x80"))))], {"f": varlen("float32")},
     note="deviation: TensorFlow returns no values; protobuf (and sluice) reject the list as malformed")
case("packed_length_past_end", "batch", [example(entry(b"f", feature(2, tag(1, 2) + varint(2**31) + b"\x00\x00\x80\x3f")))],
     {"f": varlen("float32")}, tf_observed="segmentation fault (TensorFlow 2.21 CPU)")
case("huge_outer_length", "batch", [tag(1, 2) + varint(2**62) + b"xx"], {"f": varlen("float32")},
     tf_observed="no error: an empty Example", note="sluice reports the length past the end")
case("bad_varint_in_packed", "batch", [example(entry(b"i", feature(3, ld(1, b"\x80\x80"))))], {"i": varlen("int64")})

# ---- SequenceExample cases ---------------------------------------------------

def sex(context, lists):
    se = tf.train.SequenceExample()
    for k, v in context.items():
        f = se.context.feature[k]
        if isinstance(v[0], float):
            f.float_list.value.extend(v)
        elif isinstance(v[0], int):
            f.int64_list.value.extend(v)
        else:
            f.bytes_list.value.extend(v)
    for k, steps in lists.items():
        fl = se.feature_lists.feature_list[k]
        fl.SetInParent()
        for v in steps:
            f = fl.feature.add()
            if v is None:
                continue
            if len(v) == 0:
                f.int64_list.SetInParent()
            elif isinstance(v[0], float):
                f.float_list.value.extend(v)
            elif isinstance(v[0], int):
                f.int64_list.value.extend(v)
            else:
                f.bytes_list.value.extend(v)
    return se.SerializeToString()

se1 = sex({"len": [2], "name": [b"a"]}, {"tok": [[1, 2], [3, 4]], "w": [[b"x"], [b"y", b"z"]], "emb": [[0.5], [1.5]]})
se2 = sex({"len": [3], "name": [b"b"]}, {"tok": [[5, 6], [7, 8], [9, 10]], "w": [None, [b"q"]], "emb": [[2.5], [3.5], [4.5]]})
ctx = {"len": fixed("int64"), "name": fixed("string"), "opt": fixed("float32", [], default=0.25)}
lst = {"tok": seq("int64", [2]), "w": varlen("string"), "emb": seq("float32")}
case("seq_single", "seq_single", [se1], context=ctx, lists=lst)
case("seq_batch", "seq_batch", [se1, se2], context=ctx, lists=lst)
case("seq_varlen_context", "seq_single", [se1], context={"name": varlen("string")}, lists={"tok": varlen("int64")})
case("seq_missing_list", "seq_single", [se1], context={}, lists={"nope": seq("float32", [2])})
case("seq_missing_list_allowed", "seq_single", [se1], context={}, lists={"nope": seq("float32", [2], allow_missing=True)})
case("seq_empty_list", "seq_single", [sex({}, {"e": []})], context={}, lists={"e": seq("int64", [3])})
case("seq_list_count", "seq_single", [se1], context={}, lists={"tok": seq("int64", [3])})
case("seq_list_dtype", "seq_single", [se1], context={}, lists={"tok": seq("float32", [2])})
case("seq_list_dtype_varlen", "seq_single", [se1], context={}, lists={"w": varlen("int64")})
case("seq_context_missing", "seq_single", [se1], context={"nope": fixed("int64")}, lists={},
     note="deviation: TensorFlow's text here is 'Inconsistent max number of elements'; sluice uses the Example message")
case("seq_context_dtype", "seq_single", [se1], context={"len": fixed("float32")}, lists={},
     note="deviation: TensorFlow says 'Context feature: len.'; sluice uses the Example message")
case("seq_typed_empty_step_dtype", "seq_batch", [se1, sex({}, {"w": [[]]})], context={}, lists={"w": varlen("string")})
case("seq_empty_record", "seq_single", [b""], context={"c": fixed("int64", [], default=1)},
     lists={"l": seq("float32", allow_missing=True), "v": varlen("int64")})
case("seq_garbage", "seq_single", [b"\x12\x05ab"], context={}, lists={"l": varlen("float32")})
case("seq_duplicate_list_last_wins", "seq_single",
     [sex({}, {"tok": [[1, 1]]}) + sex({}, {"tok": [[2, 3], [4, 5]]})], context={}, lists={"tok": seq("int64", [2])})
# SequenceExample wire variants TensorFlow's sequence parser rejects.
def seq_wire(ctx_entries=b"", list_entries=b""):
    return ld(1, ctx_entries) + ld(2, list_entries)
case("seq_value_before_key", "seq_single", [seq_wire(ctx_entries=entry(b"c", iv, value_first=True))],
     context={"c": fixed("int64")}, lists={},
     note="deviation: TensorFlow's sequence parser rejects a map entry with its value first; protobuf (and sluice) read it")
case("seq_unknown_field_in_feature_list", "seq_single", [seq_wire(list_entries=entry(b"l", ld(1, iv) + unk))],
     context={}, lists={"l": seq("int64")},
     note="deviation: TensorFlow's sequence parser rejects unknown fields in a FeatureList; protobuf (and sluice) skip them")
case("seq_mixed_packed_unpacked_list", "seq_single",
     [seq_wire(list_entries=entry(b"l", ld(1, feature(3, packed_ints([7]) + unpacked_ints([8])))))],
     context={}, lists={"l": seq("int64", [2])},
     note="deviation: TensorFlow's sequence parser rejects a feature list's int64 list mixing packed and unpacked values; protobuf (and sluice) read all")
case("seq_context_empty_default", "seq_single", [se1], context={"x": fixed("float32", [0], default=[])}, lists={})
case("seq_same_key_context_and_list", "seq_single", [sex({"k": [1.5]}, {"k": [[1], [2, 3]]})],
     context={"k": varlen("float32")}, lists={"k": varlen("int64")})
case("seq_same_key_context_and_list_dense", "seq_batch", [sex({"k": [1.5]}, {"k": [[1], [2]]})],
     context={"k": fixed("float32")}, lists={"k": seq("int64")})
case("seq_context_empty_default_batch", "seq_batch", [se1, se2], context={"x": fixed("int64", [0], default=[])}, lists={})

CASES = [c for c in CASES if c]

# ---- interop: MNIST ----------------------------------------------------------

out = {"cases": CASES}
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# ../shared beside the checkout; TFREF_SHARED names it for a checkout
# elsewhere (a git worktree), so the MNIST record is not silently dropped.
shared = os.environ.get("TFREF_SHARED", os.path.join(root, "..", "shared"))
mnist = os.path.join(shared, "interop", "mnist-1000.tfrecord")
if os.path.exists(mnist):
    recs = [r.numpy() for r in tf.data.TFRecordDataset(mnist)]
    parsed = tf.io.parse_example(tf.constant(recs), {
        "image_floats": tf.io.FixedLenFeature([784], tf.float32),
        "image_class": tf.io.FixedLenFeature([], tf.int64)})
    img = parsed["image_floats"].numpy().astype("<f4")
    out["mnist"] = {
        "records": len(recs),
        "image_floats_sha256": hashlib.sha256(img.tobytes()).hexdigest(),
        "image_class": [int(x) for x in parsed["image_class"].numpy()],
        "first_image_sum": float(img[0].astype(np.float64).sum()),
    }

path = os.path.join(root, "example", "testdata", "tfref.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
print("wrote", path, len(CASES), "cases")
