"""Reference behaviour of TensorFlow's FIFO, PaddingFIFO, RandomShuffle and
Priority queues, for package queue's tests.

Run by hand (never by CI), from the repository root:

    python tools/tfref/queues.py

with TensorFlow 2.21 installed (pip install tensorflow-cpu==2.21.0). It
writes queue/testdata/queues_tf.json: scenarios of enqueue, enqueue_many,
dequeue, dequeue_many, dequeue_up_to, close and size operations run one
after another in a tf.compat.v1 session. Every value is fed through a
placeholder of unknown shape, so shape checks happen in the kernels, at run
time. Each operation runs with a 100 ms timeout: an operation that would
block times out and TensorFlow removes it from the queue (Q-47), which is
what a Go call with an ended context does, so a blocked call is recorded as
"blocks" with whatever partial progress it kept. Each operation's outcome
(values, or the error kind and first line of its message) and the queue's
size afterwards are recorded. The Go test TestMatchesTensorFlow replays
every scenario. It also times enqueue+dequeue pairs and dequeue_many(128)
of float32[784] elements, for the benchmark comparison in the report.
"""
import json
import re
import time

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

DT = {"int32": tf.int32, "int64": tf.int64, "float32": tf.float32, "string": tf.string}

# A queue: kind, capacity, component dtypes, shapes (None = not given; a
# shape entry of None inside means an unknown dimension), min_after_dequeue.
# Ops: ["enq", comps] | ["enqm", comps] | ["deq"] | ["deqm", n] |
# ["dequp", n] | ["close", cancel] | ["size"]. comps: one value per component.
SCENARIOS = {
    # Q-16, FIFO-01, Q-20: insertion order; a dequeue on an empty queue blocks.
    "fifo_order": {
        "queue": ["fifo", 3, ["int32"], [[]]],
        "ops": [["enq", [10]], ["enq", [20]], ["enq", [30]], ["enq", [40]], ["size"],
                ["deq"], ["deq"], ["deq"], ["deq"], ["size"]],
    },
    # enqueue_many larger than the free space inserts what fits;
    # when it is cancelled those rows stay.
    "enqueue_many_partial": {
        "queue": ["fifo", 5, ["int32"], [[]]],
        "ops": [["enqm", [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]], ["size"], ["deqm", 5], ["size"], ["deq"]],
    },
    # a dequeue_many larger than what is there blocks and
    # absorbs what there is. Cancelled, TensorFlow 2.21 drops the absorbed
    # elements (its kernels restore them only on close); sluice puts them
    # back, as Q-48 requires. TestMatchesTensorFlow checks the difference.
    "dequeue_many_cancelled_restores": {
        "queue": ["fifo", 4, ["int32", "int32"], [[], []]],
        "ops": [["enqm", [[1, 2, 3], [10, 20, 30]]], ["deqm", 4], ["size"], ["deq"], ["deq"], ["deq"], ["size"]],
    },
    "shuffle_up_to_cancelled_restores": {
        "queue": ["shuffle", 10, ["int32"], [[]], 2],
        "ops": [["enqm", [[1, 2, 3, 4]]], ["dequp", 3], ["size"], ["close", False], ["dequp", 3], ["dequp", 3]],
    },
    # close; dequeue_many fails without consuming.
    "close_dequeue_many": {
        "queue": ["fifo", 10, ["int32"], [[]]],
        "ops": [["enqm", [[10, 20, 30, 40]]], ["deqm", 3], ["close", False],
                ["deqm", 3], ["size"], ["enq", [50]], ["enqm", [[60, 70]]], ["close", False],
                ["close", True], ["deq"], ["deq"], ["dequp", 2]],
    },
    # dequeue_up_to blocks while open, returns the rest
    # once closed.
    "dequeue_up_to": {
        "queue": ["fifo", 10, ["int32"], [[]]],
        "ops": [["dequp", 3], ["enqm", [[10, 20, 30, 40]]], ["dequp", 3], ["close", True],
                ["dequp", 3], ["dequp", 3], ["deqm", 0], ["dequp", 0]],
    },
    # empty batches.
    "zero_counts": {
        "queue": ["fifo", 2, ["int32"], [[2]]],
        "ops": [["deqm", 0], ["dequp", 0], ["enqm", [{"empty": [0, 2]}]], ["size"],
                ["enq", [[1, 2]]], ["deqm", 0], ["size"], ["close", False], ["enqm", [{"empty": [0, 2]}]],
                ["deqm", 0]],
    },
    # run-time shape checks leave the queue unchanged.
    "shape_checks": {
        "queue": ["fifo", 10, ["int32", "int32"], [[2, 2], [3, 3]]],
        "ops": [["enq", [[[1, 2], [3, 4]], [[1, 2, 3, 4]] * 3]],
                ["enqm", [[[[1, 2], [3, 4]]] * 2, [[[1, 2, 3, 4]] * 3] * 2]],
                ["enq", [[1, 2], [[1, 2, 3]] * 3]],
                ["enqm", [[[[1, 2], [3, 4]]] * 2, [[[1, 2, 3]] * 3] * 3]],
                ["size"]],
    },
    # no shapes: components must agree in dimension 0; batches
    # need shapes.
    "no_shapes": {
        "queue": ["fifo", 10, ["int32", "int32"], None],
        "ops": [["enqm", [[1, 2, 3], [1, 2]]], ["enqm", [[1, 2], [[1], [2]]]], ["size"],
                ["deqm", 0], ["dequp", 1], ["deq"]],
    },
    # PAD-03, PAD-06: padding per batch; single dequeues are not padded.
    "padding": {
        "queue": ["padding", 10, ["int32"], [[None]]],
        "ops": [["deqm", 0], ["enq", [[1]]], ["enq", [[2, 2, 2]]], ["enq", [[3, 3]]], ["enq", [[4, 4, 4, 4, 4]]],
                ["deqm", 2], ["deq"], ["close", False], ["dequp", 5], ["dequp", 5]],
    },
    # PAD-04: partially known shapes are checked.
    "padding_shape_checks": {
        "queue": ["padding", 10, ["int32", "int32"], [[None], [None, 3]]],
        "ops": [["enq", [[1], [[1, 2, 3, 4]] * 3]], ["enqm", [[[1], [2]], [[[1, 2, 3, 4]] * 3] * 2]],
                ["enq", [[1, 2], [[1, 2, 3]] * 2]], ["size"]],
    },
    # RSQ-02, RSQ-03: min_after_dequeue while open, lifted by close.
    "shuffle_min_after_dequeue": {
        "queue": ["shuffle", 10, ["int32"], [[]], 2],
        "ops": [["enqm", [[1, 2, 3, 4]]], ["deq"], ["deq"], ["deq"], ["size"], ["close", False],
                ["deq"], ["deq"], ["deq"]],
    },
    # RSQ-02, RSQ-05, RSQ-06: batches against min_after_dequeue and close.
    "shuffle_batches": {
        "queue": ["shuffle", 10, ["int32"], [[]], 2],
        "ops": [["enqm", [[1, 2, 3, 4]]], ["deqm", 2], ["deqm", 1], ["size"], ["close", False],
                ["deqm", 3], ["deqm", 3], ["size"], ["dequp", 3], ["deqm", 1]],
    },
    # RSQ-07, RSQ-08: closed queue.
    "shuffle_closed": {
        "queue": ["shuffle", 10, ["int32"], [[]], 5],
        "ops": [["close", False], ["deqm", 4], ["dequp", 4], ["enq", [1]], ["enqm", [[1, 2]]]],
    },
    # PRI-01, PRI-02, PRI-05: smallest priority first; the priority is
    # component 0 and a scalar.
    "priority": {
        "queue": ["priority", 10, ["int32"], [[]]],
        "ops": [["enqm", [[3, -1, 2], [30, -10, 20]]], ["enq", [0, 5]], ["deq"], ["deqm", 3],
                ["enq", [[1, 2], 7]], ["enqm", [[[1, 2], [3, 4]], [1, 2]]], ["size"], ["close", False], ["deq"]],
    },
    # PRI-02, Q-33, Q-48: a priority batch that has to wait takes nothing
    # until it can take the whole batch, so a timed-out one leaves the
    # queue as it was. Closed with fewer left, dequeue_many fails without
    # consuming; TensorFlow 2.21's dequeue_up_to takes the rest into a
    # batch of 3, finds the queue empty, fails and drops them, where sluice
    # returns them (TestMatchesTensorFlow checks the difference).
    "priority_batches": {
        "queue": ["priority", 10, ["int32"], [[]]],
        "ops": [["enqm", [[3, 1], [30, 10]]], ["deqm", 3], ["dequp", 3], ["enq", [2, 20]], ["deqm", 3],
                ["enqm", [[5, 4], [50, 40]]], ["close", False], ["deqm", 3], ["dequp", 3]],
    },
}


def make_queue(spec):
    kind, cap, dtypes, shapes = spec[:4]
    dts = [DT[d] for d in dtypes]
    if kind == "fifo":
        return tf.queue.FIFOQueue(cap, dts, shapes=shapes, name="q")
    if kind == "padding":
        return tf.queue.PaddingFIFOQueue(cap, dts, shapes=shapes, name="q")
    if kind == "shuffle":
        return tf.queue.RandomShuffleQueue(cap, spec[4], dts, shapes=shapes, seed=1, name="q")
    if kind == "priority":
        return tf.queue.PriorityQueue(cap, dts, shapes=shapes, name="q")
    raise ValueError(kind)


def to_list(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (np.generic,)):
        return v.item()
    return v


def tf_message(msg):
    """The kernel's own message: the lines after "Node: '...'" in a graph
    execution error, without the node trailer, and with the queue
    resource's name ('_0_q') put back to the queue's name."""
    lines = msg.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Node: "):
            lines = lines[i + 1:]
    lines = [l for l in lines if l and not l.startswith("\t")]
    return re.sub(r"'_\d+_q'", "'q'", " ".join(lines))


def feed(v, dtype):
    """A fed value: a nested list, or {"empty": shape} for an empty array
    (whose shape JSON lists cannot carry)."""
    if isinstance(v, dict):
        return np.zeros(v["empty"], dtype.as_numpy_dtype)
    return v


def run_scenario(spec, ops):
    graph = tf.Graph()
    out = []
    with graph.as_default():
        q = make_queue(spec)
        dtypes = [DT[d] for d in spec[2]]
        if spec[0] == "priority":
            dtypes = [tf.int64] + dtypes
        opts = tf.compat.v1.RunOptions(timeout_in_ms=100)
        size = q.size()
        with tf.compat.v1.Session() as sess:
            for op in ops:
                rec = {"op": op}
                name = op[0]
                try:
                    if name in ("enq", "enqm"):
                        phs = [tf.compat.v1.placeholder(d, shape=None) for d in dtypes]
                        t = q.enqueue(phs) if name == "enq" else q.enqueue_many(phs)
                        sess.run(t, {p: feed(v, d) for p, v, d in zip(phs, op[1], dtypes)}, options=opts)
                        rec["result"] = "ok"
                    elif name == "deq":
                        rec["values"] = [to_list(v) for v in sess.run(q.dequeue(), options=opts)] \
                            if len(dtypes) > 1 else [to_list(sess.run(q.dequeue(), options=opts))]
                    elif name in ("deqm", "dequp"):
                        n = tf.compat.v1.placeholder(tf.int32, shape=[])
                        t = q.dequeue_many(n) if name == "deqm" else q.dequeue_up_to(n)
                        v = sess.run(t, {n: op[1]}, options=opts)
                        rec["values"] = [to_list(x) for x in v] if len(dtypes) > 1 else [to_list(v)]
                    elif name == "close":
                        sess.run(q.close(cancel_pending_enqueues=op[1]), options=opts)
                        rec["result"] = "ok"
                    elif name == "size":
                        pass
                except tf.errors.DeadlineExceededError:
                    rec["result"] = "blocks"
                except tf.errors.OpError as e:
                    rec["error"] = type(e).__name__
                    rec["message"] = tf_message(e.message)
                except (ValueError, TypeError) as e:
                    rec["error"] = type(e).__name__
                    rec["message"] = tf_message(str(e))
                rec["size"] = int(sess.run(size))
                out.append(rec)
    return out


def timing():
    """Seconds per enqueue+dequeue pair and per dequeue_many(128) of
    float32[784], each a session.run, as a training loop would pay."""
    res = {}
    with tf.Graph().as_default():
        q = tf.queue.FIFOQueue(100, [tf.float32], shapes=[[784]])
        enq = q.enqueue([tf.zeros([784])])
        deq = q.dequeue()
        with tf.compat.v1.Session() as sess:
            for _ in range(100):
                sess.run(enq)
                sess.run(deq)
            n = 2000
            t0 = time.perf_counter()
            for _ in range(n):
                sess.run(enq)
                sess.run(deq)
            res["enqueue_dequeue_pair_ns"] = (time.perf_counter() - t0) / n * 1e9
    with tf.Graph().as_default():
        q = tf.queue.FIFOQueue(256, [tf.float32], shapes=[[784]])
        enq = q.enqueue_many([tf.zeros([128, 784])])
        deq = q.dequeue_many(128)
        with tf.compat.v1.Session() as sess:
            for _ in range(20):
                sess.run(enq)
                sess.run(deq)
            n = 300
            t0 = time.perf_counter()
            for _ in range(n):
                sess.run(enq)
                sess.run(deq)
            res["enqueue_many_dequeue_many_128x784_ns"] = (time.perf_counter() - t0) / n * 1e9
    return res


def main():
    out = {"tensorflow": tf.__version__, "scenarios": {}}
    for name, sc in SCENARIOS.items():
        out["scenarios"][name] = {"queue": sc["queue"], "ops": run_scenario(sc["queue"], sc["ops"])}
    out["timing"] = timing()
    with open("queue/testdata/queues_tf.json", "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(out["timing"]))


if __name__ == "__main__":
    main()
