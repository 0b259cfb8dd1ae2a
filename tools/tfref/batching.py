"""Reference behaviour of TensorFlow's batchers (tf.compat.v1.train.batch,
maybe_batch, batch_join, maybe_batch_join and the shuffle_* variants) and
input producers (string_input_producer, range_input_producer,
input_producer, slice_input_producer), for package input's tests.

Run by hand (never by CI), from the repository root:

    python tools/tfref/batching.py

with TensorFlow 2.21 installed (pip install tensorflow-cpu==2.21.0). It
writes input/testdata/batching_tf.json. The Go test
TestBatchingMatchesTensorFlow (input/tf_batching_test.go) replays every case.

Batching cases. Each source is a list of elements, each element a list of
components ({"dtype", "shape", "values" flat in row-major order}) and, for
the maybe_* batchers, a keep flag (a bool, or a list of bools with
enqueue_many). In TensorFlow a py_func driven by a FIFO queue of element
indices yields them one per run, so a source's input ends (OutOfRange) after
its last element; its static shape is the first element's (every dimension
unknown with dynamic_pad), as sluice takes types and shapes from the first
element. The batcher runs with num_threads=1 and one source, so the order of
the batches is defined ("compare": "exact"). Cases with several sources, or
a shuffling queue, record only what does not depend on thread timing or on
the random generator ("compare": "multiset": the number and sizes of the
batches and the multiset of rows); they all have allow_smaller_final_batch
or a number of rows that fills whole batches, since which rows a batcher
drops at end of input depends on timing, and none has dynamic_pad, whose
padding depends on which rows share a batch. maybe_batch_join takes one
keep_input for all its lists, so its cases have one source.

A case's outcome is the batches TensorFlow delivered, each as the list of
its components, and how the input ended: "end" is the error the consumer's
last run raised (OutOfRangeError at end of input). A case TensorFlow
rejects records "error": {"class", "message", "when"}: "build" for an
error raised while building the graph (sluice, which learns types and
shapes from the first element, reports those at run time: CONFORMANCE.md,
"A batching stage takes its component types and shapes from the first
element"), "run" for the error the enqueue thread met, which
Coordinator.join raises after the consumer has drained the batches before
it.

Producer cases record the elements a consumer dequeues (dequeue,
dequeue_many or dequeue_up_to), in order, and the end, or the error.

Every TensorFlow case runs in a forked child with a timeout. TensorFlow
2.21 crashes (SIGSEGV) on some maybe_batch + enqueue_many + dynamic_pad +
vector keep_input combinations (found by audit 76 with a random
generator); a case whose child crashes is left out and named on stderr.
With SEED 20261127 the random cases random_05, random_06 and random_16
crash TensorFlow 2.21 (SIGSEGV) and are left out; no hand-written case does.
"""
import json
import os
import random
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
tf.get_logger().setLevel("ERROR")

OUT = "input/testdata/batching_tf.json"
SEED = 20261127
TIMEOUT_MS = 5000

NP = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "bool": np.bool_}
TF = {"int32": tf.int32, "int64": tf.int64, "float32": tf.float32, "string": tf.string, "bool": tf.bool}


# ---------------------------------------------------------------------------
# Values


def comp(dtype, shape, values):
    n = int(np.prod(shape)) if shape else 1
    assert len(values) == n, (dtype, shape, values)
    return {"dtype": dtype, "shape": list(shape), "values": list(values)}


def to_np(c):
    if c["dtype"] == "string":
        a = np.array([v.encode("utf-8") for v in c["values"]] or [b""], dtype=object)
        if not c["values"]:
            a = np.array([], dtype=object)
        return a.reshape(c["shape"])
    return np.array(c["values"], dtype=NP[c["dtype"]]).reshape(c["shape"])


def from_np(a, dtype):
    a = np.asarray(a)
    flat = a.reshape(-1).tolist()
    if dtype == "string":
        flat = [v.decode("utf-8") for v in flat]
    elif dtype == "float32":
        flat = [float(v) for v in flat]
    return {"dtype": dtype, "shape": list(a.shape), "values": flat}


def build_error(e):
    """A graph-building error: its class and first line, without the node
    description shape inference adds."""
    msg = str(e).split("\n")[0]
    msg = re.sub(r" for '\{\{node .*$", "", msg)
    return {"class": type(e).__name__, "message": msg, "when": "build"}


def tf_message(msg):
    """The op's own message: the lines after "Node: '...'" in a graph
    execution error, without the node trailer."""
    lines = msg.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Node: "):
            lines = lines[i + 1:]
    lines = [l for l in lines if l and not l.startswith("\t")]
    s = " ".join(lines)
    s = re.sub(r"\s*\[\[\{\{node [^}]*\}\}\]\]", "", s)
    return s.strip()


# ---------------------------------------------------------------------------
# Batching


def source_tensors(elems, many, pad, keep_rank, si):
    """The tensors of one source: a py_func per component (and one for the
    keep flag), all driven by one index queue; and the ops that fill it."""
    idxq = tf1.FIFOQueue(len(elems) + 1, [tf.int32], shapes=[[]], name="idx%d" % si)
    init = [idxq.enqueue_many([list(range(len(elems)))])] if elems else []
    init.append(idxq.close())
    idx = idxq.dequeue()
    first = elems[0]["components"] if elems else None
    outs = []
    for ci, c0 in enumerate(first):
        def f(i, ci=ci):
            return to_np(elems[int(i)]["components"][ci])
        t = tf1.py_func(f, [idx], TF[c0["dtype"]], stateful=True)
        if pad:
            t.set_shape([None] * len(c0["shape"]))
        elif many and c0["shape"]:
            t.set_shape([None] + c0["shape"][1:])
        else:
            t.set_shape(c0["shape"])
        outs.append(t)
    keep = None
    if keep_rank is not None:
        def fk(i):
            return np.array(elems[int(i)]["keep"], dtype=np.bool_)
        keep = tf1.py_func(fk, [idx], tf.bool, stateful=True)
        keep.set_shape([None] * keep_rank)
    return outs, keep, init


def build_batcher(case, lists, keep):
    a = case["args"]
    kw = dict(batch_size=a["batch_size"], capacity=a["capacity"], enqueue_many=a["enqueue_many"],
              allow_smaller_final_batch=a["allow_smaller_final_batch"])
    op = case["op"]
    if not op.startswith("shuffle") and not op.startswith("maybe_shuffle"):
        kw["dynamic_pad"] = a["dynamic_pad"]
    else:
        kw["min_after_dequeue"] = a["min_after_dequeue"]
        if not op.endswith("_join"):
            kw["seed"] = 7
    if op == "batch":
        return tf1.train.batch(lists[0], num_threads=1, **kw)
    if op == "maybe_batch":
        return tf1.train.maybe_batch(lists[0], keep, num_threads=1, **kw)
    if op == "batch_join":
        return tf1.train.batch_join(lists, **kw)
    if op == "maybe_batch_join":
        return tf1.train.maybe_batch_join(lists, keep, **kw)
    if op == "shuffle_batch":
        return tf1.train.shuffle_batch(lists[0], num_threads=1, **kw)
    if op == "maybe_shuffle_batch":
        return tf1.train.maybe_shuffle_batch(lists[0], keep_input=keep, num_threads=1, **kw)
    if op == "shuffle_batch_join":
        return tf1.train.shuffle_batch_join(lists, seed=7, **kw)
    raise ValueError(op)


def run_batching(case):
    a = case["args"]
    res = {}
    with tf.Graph().as_default():
        try:
            lists, inits, keep = [], [], None
            for si, elems in enumerate(case["sources"]):
                outs, k, init = source_tensors(elems, a["enqueue_many"], a.get("dynamic_pad", False),
                                               case.get("keep_rank"), si)
                lists.append(outs)
                inits += init
                if keep is None:
                    keep = k
            out = build_batcher(case, lists, keep)
        except (ValueError, TypeError) as e:
            res["error"] = build_error(e)
            return res
        if not isinstance(out, (list, tuple)):
            out = [out]
        dtypes = [c["dtype"] for c in case["sources"][0][0]["components"]]
        opts = tf1.RunOptions(timeout_in_ms=TIMEOUT_MS)
        batches = []
        with tf1.Session() as sess:
            for op in inits:
                sess.run(op)
            coord = tf1.train.Coordinator()
            threads = tf1.train.start_queue_runners(sess, coord=coord)
            while True:
                try:
                    v = sess.run(list(out), options=opts)
                except tf.errors.OpError as e:
                    res["end"] = type(e).__name__
                    if not isinstance(e, tf.errors.OutOfRangeError):
                        res["end_message"] = tf_message(e.message)
                    break
                batches.append([from_np(x, d) for x, d in zip(v, dtypes)])
                if len(batches) >= case.get("max_batches", 200):
                    res["end"] = "endless"  # still delivering after max_batches
                    break
            coord.request_stop()
            try:
                coord.join(threads, stop_grace_period_secs=5)
            except tf.errors.OpError as e:
                res["error"] = {"class": type(e).__name__, "message": tf_message(e.message), "when": "run"}
            except Exception as e:  # noqa: BLE001
                res["error"] = {"class": type(e).__name__, "message": str(e).split("\n")[0], "when": "run"}
        res["batches"] = batches
    return res


# ---------------------------------------------------------------------------
# Producers


def run_producer(case):
    a = case["args"]
    res = {}
    with tf.Graph().as_default():
        try:
            kw = {k: a[k] for k in ("num_epochs", "capacity") if k in a}
            kw["shuffle"] = False
            prod = case["producer"]
            inp = case.get("input")
            if prod == "string_input_producer":
                q = tf1.train.string_input_producer(inp["values"], **kw)
            elif prod == "range_input_producer":
                q = tf1.train.range_input_producer(case["limit"], **kw)
            elif prod == "input_producer":
                if "element_shape" in a:
                    kw["element_shape"] = a["element_shape"]
                q = tf1.train.input_producer(tf.constant(to_np(inp)), **kw)
            elif prod == "slice_input_producer":
                outs = tf1.train.slice_input_producer([tf.constant(to_np(c)) for c in case["inputs"]], **kw)
            else:
                raise ValueError(prod)
            if prod == "slice_input_producer":
                fetch = list(outs)
                dtypes = [c["dtype"] for c in case["inputs"]]
            else:
                how = case["dequeue"]
                if how[0] == "one":
                    fetch = [q.dequeue()]
                elif how[0] == "many":
                    fetch = [q.dequeue_many(how[1])]
                else:
                    fetch = [q.dequeue_up_to(how[1])]
                dtypes = ["string" if prod == "string_input_producer" else
                          "int32" if prod == "range_input_producer" else inp["dtype"]]
        except (ValueError, TypeError) as e:
            res["error"] = build_error(e)
            return res
        opts = tf1.RunOptions(timeout_in_ms=TIMEOUT_MS)
        got = []
        with tf1.Session() as sess:
            sess.run(tf1.local_variables_initializer())
            coord = tf1.train.Coordinator()
            threads = tf1.train.start_queue_runners(sess, coord=coord)
            while len(got) < 100:
                try:
                    v = sess.run(fetch, options=opts)
                except tf.errors.OpError as e:
                    res["end"] = type(e).__name__
                    if not isinstance(e, tf.errors.OutOfRangeError):
                        res["error"] = {"class": type(e).__name__, "message": tf_message(e.message),
                                        "when": "run"}
                    break
                got.append([from_np(x, d) for x, d in zip(v, dtypes)])
            coord.request_stop()
            try:
                coord.join(threads, stop_grace_period_secs=5)
            except tf.errors.OpError as e:
                res["error"] = {"class": type(e).__name__, "message": tf_message(e.message), "when": "run"}
        res["outputs"] = got
    return res


# ---------------------------------------------------------------------------
# Running in a child


def in_child(fn, case):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = json.dumps(fn(case)).encode()
        except BaseException as e:  # noqa: BLE001
            out = json.dumps({"generator_error": repr(e)}).encode()
        with os.fdopen(w, "wb") as f:
            f.write(out)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        buf = f.read()
    _, status = os.waitpid(pid, 0)
    if not buf:
        return None, status
    res = json.loads(buf)
    if "generator_error" in res:
        raise RuntimeError("%s: %s" % (case["name"], res["generator_error"]))
    return res, status


# ---------------------------------------------------------------------------
# The cases


def ints(shape, start, dtype="int64"):
    n = int(np.prod(shape)) if shape else 1
    return comp(dtype, shape, list(range(start, start + n)))


def strs(shape, start):
    n = int(np.prod(shape)) if shape else 1
    return comp("string", shape, ["s%d" % (start + i) for i in range(n)])


def el(*components, keep=None):
    e = {"components": list(components)}
    if keep is not None:
        e["keep"] = keep
    return e


def bcase(name, op, sources, batch_size, spec, capacity=32, many=False, pad=False, allow=False,
          keep_rank=None, compare="exact", mad=None, **extra):
    args = dict(batch_size=batch_size, capacity=capacity, enqueue_many=many, allow_smaller_final_batch=allow)
    if "shuffle" in op:
        args["min_after_dequeue"] = mad or 0
    else:
        args["dynamic_pad"] = pad
    c = dict(name=name, kind="batch", spec=spec, op=op, args=args, sources=sources, compare=compare)
    if keep_rank is not None:
        c["keep_rank"] = keep_rank
    c.update(extra)
    return c


def hand_cases():
    cs = []
    # BAT-02: a counter batched by 3, one thread: in order; the last 1 dropped.
    cs.append(bcase("counter", "batch", [[el(ints([], i)) for i in range(10)]], 3, "BAT-02, BAT-09"))
    cs.append(bcase("counter_allow", "batch", [[el(ints([], i)) for i in range(10)]], 3, "BAT-09", allow=True))
    cs.append(bcase("counter_exact", "batch", [[el(ints([], i)) for i in range(9)]], 3, "BAT-02", allow=True))
    # BAT-04, BAT-05: several components of several types.
    cs.append(bcase("types", "batch", [[el(ints([2], 2 * i, "int32"), comp("float32", [], [i / 4]), strs([1, 2], i),
                                             comp("bool", [2], [i % 2 == 0, i % 3 == 0]))
                                          for i in range(7)]], 2, "BAT-04", allow=True, capacity=3))
    cs.append(bcase("strings_unicode", "batch", [[el(comp("string", [2], ["", "é%d" % i])) for i in range(4)]], 2,
                    "BAT-02"))
    # BAT-06: dynamic_pad pads each batch to its largest.
    cs.append(bcase("pad_strings", "batch", [[el(comp("string", [i % 4], ["string"] * (i % 4)), ints([], i))
                                               for i in range(9)]], 3, "BAT-06", pad=True, allow=True))
    cs.append(bcase("pad_2d", "batch", [[el(ints([1 + i % 2, 3 - i % 3], 10 * i)) for i in range(6)]], 2, "BAT-06",
                    pad=True))
    cs.append(bcase("pad_zero_dims", "batch", [[el(ints([0, 2], 0)), el(ints([2, 0], 0)), el(ints([0, 0], 0))]], 3,
                    "BAT-06, PAD-03", pad=True))
    cs.append(bcase("pad_scalars", "batch", [[el(ints([], i)) for i in range(4)]], 2, "BAT-06", pad=True))
    # BAT-07: enqueue_many re-batches.
    cs.append(bcase("many_rebatch", "batch", [[el(ints([2], 2 * i), strs([2, 1], 2 * i)) for i in range(5)]], 3,
                    "BAT-07", many=True, allow=True, capacity=4))
    cs.append(bcase("many_empty_rows", "batch", [[el(ints([0, 2], 0)), el(ints([3, 2], 0)), el(ints([0, 2], 0)),
                                                   el(ints([1, 2], 6))]], 2, "BAT-07", many=True))
    cs.append(bcase("many_pad", "batch", [[el(ints([2, 1 + i], 10 * i)) for i in range(4)]], 3, "BAT-06, BAT-07",
                    many=True, pad=True, allow=True))
    # MB-01, MB-02: keep flags.
    cs.append(bcase("maybe_scalar", "maybe_batch", [[el(ints([], i), keep=i % 2 == 0) for i in range(12)]], 2, "MB-01",
                    keep_rank=0))
    cs.append(bcase("maybe_none_kept", "maybe_batch", [[el(ints([], i), keep=False) for i in range(5)]], 2, "MB-01",
                    keep_rank=0, allow=True))
    cs.append(bcase("maybe_many_vector", "maybe_batch", [[el(ints([4], 4 * i), strs([4], 4 * i),
                                                             keep=[j % 2 == 0 for j in range(4)]) for i in range(3)]],
                    2, "MB-02", many=True, keep_rank=1, allow=True))
    cs.append(bcase("maybe_many_scalar", "maybe_batch", [[el(ints([3], 3 * i), keep=i != 1) for i in range(3)]], 2,
                    "MB-02", many=True, keep_rank=0, allow=True))
    cs.append(bcase("maybe_pad_scalar_keep", "maybe_batch", [[el(ints([1 + i % 3], i), keep=i % 3 != 1)
                                                               for i in range(8)]], 2, "MB-01, BAT-06", pad=True,
                    keep_rank=0, allow=True))
    # MB-03: keep_input of the wrong rank.
    cs.append(bcase("maybe_vector_not_many", "maybe_batch", [[el(ints([2], 0), keep=[True, False])]], 1, "MB-03",
                    keep_rank=1))
    cs.append(bcase("maybe_rank2", "maybe_batch", [[el(ints([2], 0), keep=[[True, False]])]], 1, "MB-03",
                    keep_rank=2, many=True))
    # The number of keep flags is not the number of rows.
    cs.append(bcase("maybe_many_keep_length", "maybe_batch", [[el(ints([3], 0), keep=[True, False])]], 1, "MB-02",
                    keep_rank=1, many=True))
    # BJ-06: maybe_batch_join with one list.
    cs.append(bcase("maybe_join_one", "maybe_batch_join", [[el(ints([], i), strs([], i), keep=i % 3 == 0)
                                                             for i in range(10)]], 2, "BJ-06, MB-01", keep_rank=0,
                    allow=True))
    cs.append(bcase("maybe_join_many", "maybe_batch_join", [[el(ints([3], 3 * i), keep=[True, i == 0, False])
                                                              for i in range(3)]], 2, "BJ-06, MB-02", keep_rank=1,
                    many=True))
    cs.append(bcase("maybe_join_vector_not_many", "maybe_batch_join", [[el(ints([2], 0), keep=[True, True])]], 1,
                    "BJ-06, MB-03", keep_rank=1))
    # BJ-01, BJ-02: batch_join with one list is batch.
    cs.append(bcase("join_one", "batch_join", [[el(ints([], i), strs([2], i)) for i in range(7)]], 3, "BJ-01",
                    allow=True))
    cs.append(bcase("join_one_pad", "batch_join", [[el(comp("string", [i % 3 + 1], ["x"] * (i % 3 + 1)))
                                                     for i in range(5)]], 2, "BJ-04", pad=True))
    # BJ-02, BJ-05: several lists, timing-free facts only.
    cs.append(bcase("join_two", "batch_join", [[el(ints([], i), strs([], i)) for i in range(7)],
                                               [el(ints([], 100 + i), strs([], 100 + i)) for i in range(6)]], 4,
                    "BJ-02, BJ-05", allow=True, compare="multiset"))
    cs.append(bcase("join_three_many", "batch_join", [[el(ints([2], 10 * s + 2 * i)) for i in range(3)]
                                                      for s in range(3)], 3, "BJ-02", many=True,
                    compare="multiset"))
    # BJ-03: types differing across lists.
    cs.append(bcase("join_dtypes_differ", "batch_join", [[el(ints([], 0))], [el(ints([], 0, "int32"))]], 1, "BJ-03",
                    compare="multiset"))
    # Errors of the elements.
    cs.append(bcase("shape_changes", "batch", [[el(ints([2], 0)), el(ints([2], 2)), el(ints([3], 4)),
                                                el(ints([2], 7))]], 1, "BAT-10: without dynamic_pad shapes are fixed"))
    cs.append(bcase("shape_changes_batched", "batch", [[el(ints([2], 0)), el(ints([2], 2)), el(ints([2], 4)),
                                                        el(ints([3], 6))]], 2, "BAT-10", allow=True))
    cs.append(bcase("rank_changes_pad", "batch", [[el(ints([2], 0)), el(ints([2, 2], 2))]], 1, "BAT-06"))
    cs[-1]["args"]["dynamic_pad"] = True
    cs.append(bcase("many_first_dims_differ", "batch", [[el(ints([2], 0), strs([3], 0))]], 1, "BAT-07", many=True))
    cs.append(bcase("many_first_dims_differ_later", "batch", [[el(ints([2], 0), strs([2], 0)),
                                                               el(ints([2], 2), strs([1], 2))]], 1, "BAT-07",
                    many=True))
    cs.append(bcase("many_scalar", "batch", [[el(ints([], 0))]], 1, "BAT-07", many=True))
    cs.append(bcase("many_row_shape_changes", "batch", [[el(ints([1, 2], 0)), el(ints([1, 3], 2))]], 1, "BAT-07",
                    many=True))
    # TensorFlow takes batch_size 0 and delivers empty batches for ever.
    cs.append(bcase("batch_size_zero", "batch", [[el(ints([], i)) for i in range(3)]], 0, "BAT-01", max_batches=3))
    cs.append(bcase("no_components", "batch", [[el()]], 1, "BAT-10"))
    # Shuffling batchers, timing- and seed-free facts only.
    cs.append(bcase("shuffle", "shuffle_batch", [[el(ints([], i), strs([], i)) for i in range(11)]], 4, "SB-03, SB-04",
                    capacity=8, mad=2, allow=True, compare="multiset"))
    cs.append(bcase("shuffle_many", "shuffle_batch", [[el(ints([3], 3 * i)) for i in range(4)]], 4, "SB-03",
                    capacity=10, mad=3, many=True, compare="multiset"))
    cs.append(bcase("maybe_shuffle", "maybe_shuffle_batch", [[el(ints([], i), keep=i % 3 != 0) for i in range(10)]],
                    3, "SB-05", capacity=6, mad=1, keep_rank=0, allow=True, compare="multiset"))
    cs.append(bcase("shuffle_join", "shuffle_batch_join", [[el(ints([], i)) for i in range(5)],
                                                           [el(ints([], 50 + i)) for i in range(4)]], 2, "SB-06",
                    capacity=6, mad=2, allow=True, compare="multiset"))
    cs.append(bcase("shuffle_capacity", "shuffle_batch", [[el(ints([], 0))]], 1, "SB-01", capacity=4, mad=4,
                    compare="multiset"))
    return cs


def rand_case(rng, i):
    """A random single-source batch or maybe_batch case, in the manner of
    audit 76's generator: int64 and string components of random shapes."""
    op = rng.choice(["batch", "maybe_batch", "batch_join", "maybe_batch_join"])
    many = rng.random() < 0.5
    pad = rng.random() < 0.4
    allow = rng.random() < 0.5
    bs = rng.randint(1, 4)
    rank = rng.randint(0, 2)
    base = [rng.randint(1, 3) for _ in range(rank)]
    if pad and rank == 0:
        base = [2]
    keep_rank = None
    if op.startswith("maybe"):
        keep_rank = 1 if many and rng.random() < 0.7 else 0
    elems = []
    k = 0
    for _ in range(rng.randint(0, 6)):
        n = rng.randint(0, 3)
        sa = [rng.randint(0, 3) for _ in base] if pad else list(base)
        ss = [rng.randint(0, 3) for _ in base] if pad else list(base)
        if many:
            sa, ss = [n] + sa, [n] + ss
        a = ints(sa, k)
        k += 100
        s = comp("string", ss, ["x%d" % rng.randint(0, 9) for _ in range(int(np.prod(ss)) if ss else 1)])
        keep = None
        if keep_rank == 1:
            keep = [rng.random() < 0.6 for _ in range(n)]
        elif keep_rank == 0:
            keep = rng.random() < 0.6
        elems.append(el(a, s, keep=keep))
    if not elems:
        elems = [el(ints([2] if pad else base, 0), comp("string", [2] if pad else base,
                                                          ["y"] * (2 if pad else int(np.prod(base)) if base else 1)),
                    keep=True if keep_rank == 0 else None)]
        if keep_rank == 1:
            keep_rank = 0
        many = False
    return bcase("random_%02d" % i, op, [elems], bs, "random (seed %d)" % SEED, capacity=rng.randint(bs, 8),
                 many=many, pad=pad, allow=allow, keep_rank=keep_rank)


def producer_cases():
    cs = []

    def p(name, producer, spec, args, **kw):
        c = dict(name=name, kind="producer", spec=spec, producer=producer, args=args)
        c.update(kw)
        cs.append(c)

    abc = comp("string", [3], ["a", "b", "c"])
    p("sip_epochs", "string_input_producer", "SIP-03", {"num_epochs": 3}, input=comp("string", [6], ["to", "be", "or", "not", "to", "be"]), dequeue=["many", 18])
    p("sip_one", "string_input_producer", "SIP-03", {"num_epochs": 2, "capacity": 2}, input=abc, dequeue=["one"])
    p("sip_up_to", "string_input_producer", "SIP-03", {"num_epochs": 2, "capacity": 2}, input=abc, dequeue=["up_to", 4])
    p("sip_many_short", "string_input_producer", "SIP-03", {"num_epochs": 1}, input=abc, dequeue=["many", 2])
    p("sip_empty", "string_input_producer", "SIP-01", {"num_epochs": 1}, input=comp("string", [0], []), dequeue=["one"])
    p("sip_epochs_zero", "string_input_producer", "SIP-03", {"num_epochs": 0}, input=abc, dequeue=["one"])
    p("rip", "range_input_producer", "RIP-01", {"num_epochs": 3}, limit=5, dequeue=["one"])
    p("rip_many", "range_input_producer", "RIP-01", {"num_epochs": 2, "capacity": 3}, limit=4, dequeue=["many", 3])
    p("rip_up_to", "range_input_producer", "RIP-01", {"num_epochs": 2}, limit=3, dequeue=["up_to", 4])
    p("rip_zero", "range_input_producer", "RIP-01", {"num_epochs": 1}, limit=0, dequeue=["one"])
    p("rip_negative", "range_input_producer", "RIP-01", {"num_epochs": 1}, limit=-2, dequeue=["one"])
    p("ip_rows", "input_producer", "IP-04", {"num_epochs": 2},
      input=comp("int32", [3, 4], list(range(1, 13))), dequeue=["many", 6])
    p("ip_one", "input_producer", "IP-03", {"num_epochs": 2, "capacity": 1},
      input=comp("float32", [3, 2], [0.5, 1, 1.5, 2, 2.5, 3]), dequeue=["one"])
    p("ip_strings_up_to", "input_producer", "IP-03", {"num_epochs": 1},
      input=comp("string", [3, 1, 2], ["a", "b", "c", "d", "e", "f"]), dequeue=["up_to", 2])
    p("ip_element_shape", "input_producer", "IP-02", {"num_epochs": 1, "element_shape": [2]},
      input=comp("int64", [2, 2], [1, 2, 3, 4]), dequeue=["one"])
    p("ip_element_shape_wrong", "input_producer", "IP-01", {"num_epochs": 1, "element_shape": [3]},
      input=comp("int64", [2, 2], [1, 2, 3, 4]), dequeue=["one"])
    p("ip_scalar", "input_producer", "IP-01", {"num_epochs": 1}, input=comp("int64", [], [1]), dequeue=["one"])
    p("ip_no_rows", "input_producer", "IP-03", {"num_epochs": 2}, input=comp("int64", [0, 2], []), dequeue=["one"])
    p("slp", "slice_input_producer", "SLP-01", {"num_epochs": 3},
      inputs=[comp("string", [4], ["Alpha", "Beta", "Delta", "Gamma"]), comp("int32", [4], [2, 3, 5, 7])])
    p("slp_rows", "slice_input_producer", "SLP-01", {"num_epochs": 1, "capacity": 1},
      inputs=[comp("float32", [2, 2], [1, 2, 3, 4]), comp("int64", [2], [10, 20])])
    p("slp_short_second", "slice_input_producer", "SLP-03", {"num_epochs": 1},
      inputs=[comp("int32", [3], [1, 2, 3]), comp("int32", [2], [10, 20])])
    p("slp_long_second", "slice_input_producer", "SLP-03", {"num_epochs": 1},
      inputs=[comp("int32", [2], [1, 2]), comp("int32", [3], [10, 20, 30])])
    p("slp_empty_list", "slice_input_producer", "SLP-03", {"num_epochs": 1}, inputs=[])
    p("slp_epochs_zero", "slice_input_producer", "SLP-03", {"num_epochs": 0},
      inputs=[comp("int32", [2], [1, 2])])
    return cs


def main():
    rng = random.Random(SEED)
    cases = hand_cases() + [rand_case(rng, i) for i in range(40)] + producer_cases()
    out = {"tensorflow": tf.__version__, "seed": SEED, "cases": []}
    for c in cases:
        fn = run_producer if c["kind"] == "producer" else run_batching
        res, status = in_child(fn, c)
        if res is None:
            print("left out (TensorFlow crashed, status %d): %s" % (status, c["name"]), file=sys.stderr)
            continue
        c.update(res)
        out["cases"].append(c)
        print(c["name"], json.dumps(res)[:300], file=sys.stderr)
    with open(OUT, "w") as f:
        json.dump(out, f, indent=None, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print("%d cases" % len(out["cases"]), file=sys.stderr)


if __name__ == "__main__":
    main()
