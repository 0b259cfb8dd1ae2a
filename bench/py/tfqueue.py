"""TensorFlow 2.21's tf.compat.v1 queue pipeline, the seed system itself, in
two idioms:

--idiom guide (system tf-queue): the seed guide's, string_input_producer ->
two readers (TFRecordReader, TextLineReader or FixedLengthRecordReader) ->
parse_single_example / decode_csv / decode_raw per record -> batch_join
(shuffle_batch_join for the seed pipeline), run in a Session with queue
runners.

--idiom batched (system tf-queue-batched): the fastest form the queue API
allows, each reader's read_up_to(128) enqueued many at a time into
batch_join / shuffle_batch_join of serialized records, then one parse_example
/ decode_csv / decode_raw over the whole batch.

Framing-only workloads use read_up_to in both and fetch only the count and
byte total.

    python bench/py/tfqueue.py --workload mnist --idiom batched --data build/bench-data
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import common  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.compat.v1.disable_eager_execution()
tf.get_logger().setLevel("ERROR")  # the queue API's deprecation notices
v1 = tf.compat.v1
READERS = 2

MNIST = {"image": tf.io.FixedLenFeature([784], tf.float32), "label": tf.io.FixedLenFeature([], tf.int64)}
SMALL = {**{n: tf.io.FixedLenFeature([], tf.float32) for n in common.SMALL_FLOATS},
         **{n: tf.io.FixedLenFeature([], tf.int64) for n in common.SMALL_INTS}}


def build(a):
    """Returns the tensors to fetch each step: (count, bytes, check)."""
    seed = a.kind == "seed"
    fq = v1.train.string_input_producer(a.files, num_epochs=2 if seed else 1, shuffle=seed, seed=42 if seed else None)
    if a.kind == "raw":
        outs = []
        for _ in range(READERS):
            _, v = v1.TFRecordReader().read_up_to(fq, common.FRAMING_BATCH)
            outs.append([v])
        b = v1.train.batch_join(outs, common.FRAMING_BATCH, enqueue_many=True, allow_smaller_final_batch=True)
        if isinstance(b, (list, tuple)):
            (b,) = b
        n = tf.size(b, out_type=tf.int64)
        nbytes = tf.reduce_sum(tf.cast(tf.strings.length(b), tf.int64))
        return n, nbytes, nbytes
    lists = []
    for _ in range(READERS):
        if a.kind == "csv":
            _, line = v1.TextLineReader().read(fq)
            cols = tf.io.decode_csv(line, record_defaults=[[0.0]] * 4 + [[0]])
            lists.append(cols + [tf.strings.length(line)])
        elif a.kind == "cifar":
            _, rec = v1.FixedLengthRecordReader(record_bytes=common.CIFAR_RECORD).read(fq)
            raw = tf.io.decode_raw(rec, tf.uint8)
            label = tf.cast(raw[0], tf.int32)
            image = tf.transpose(tf.reshape(raw[1:], [3, 32, 32]), [1, 2, 0])
            lists.append([image, label, tf.strings.length(rec)])
        else:
            _, rec = v1.TFRecordReader().read(fq)
            ex = tf.io.parse_single_example(rec, SMALL if a.kind == "small10" else MNIST)
            names = sorted(ex)
            lists.append([ex[k] for k in names] + [tf.strings.length(rec)])
    if seed:
        batch = v1.train.shuffle_batch_join(lists, common.BATCH, capacity=common.MIN_AFTER_DEQUEUE + 3 * common.BATCH,
                                            min_after_dequeue=common.MIN_AFTER_DEQUEUE, seed=42,
                                            allow_smaller_final_batch=True)
    else:
        batch = v1.train.batch_join(lists, common.BATCH, capacity=4 * common.BATCH, allow_smaller_final_batch=True)
    # csv: four floats, the label; cifar: image, label; small10: f0..f9
    # sorted, so f5 is at 5; mnist: image, label.
    label = batch[{"csv": 4, "small10": 5}.get(a.kind, 1)]
    n = tf.size(label, out_type=tf.int64)
    # The whole batch is fetched, as a training step would use it.
    return n, tf.reduce_sum(tf.cast(batch[-1], tf.int64)), tf.reduce_sum(tf.cast(label, tf.int64)), batch[:-1]


def build_batched(a):
    """The batched idiom: (count, bytes, check, batch)."""
    seed = a.kind == "seed"
    if a.kind == "raw":
        return build(a)
    fq = v1.train.string_input_producer(a.files, num_epochs=2 if seed else 1, shuffle=seed, seed=42 if seed else None)
    outs = []
    for _ in range(READERS):
        if a.kind == "csv":
            _, v = v1.TextLineReader().read_up_to(fq, common.BATCH)
        elif a.kind == "cifar":
            _, v = v1.FixedLengthRecordReader(record_bytes=common.CIFAR_RECORD).read_up_to(fq, common.BATCH)
        else:
            _, v = v1.TFRecordReader().read_up_to(fq, common.BATCH)
        outs.append([v])
    if seed:
        b = v1.train.shuffle_batch_join(outs, common.BATCH, capacity=common.MIN_AFTER_DEQUEUE + 3 * common.BATCH,
                                           min_after_dequeue=common.MIN_AFTER_DEQUEUE, seed=42, enqueue_many=True,
                                           allow_smaller_final_batch=True)
        if isinstance(b, (list, tuple)):
            (b,) = b
    else:
        b = v1.train.batch_join(outs, common.BATCH, capacity=4 * common.BATCH, enqueue_many=True,
                                allow_smaller_final_batch=True)
        if isinstance(b, (list, tuple)):
            (b,) = b
    nbytes = tf.reduce_sum(tf.cast(tf.strings.length(b), tf.int64))
    n = tf.size(b, out_type=tf.int64)
    if a.kind == "csv":
        cols = tf.io.decode_csv(b, record_defaults=[[0.0]] * 4 + [[0]])
        return n, nbytes, tf.reduce_sum(tf.cast(cols[4], tf.int64)), cols
    if a.kind == "cifar":
        raw = tf.io.decode_raw(b, tf.uint8)
        label = tf.cast(raw[:, 0], tf.int32)
        image = tf.transpose(tf.reshape(raw[:, 1:], [-1, 3, 32, 32]), [0, 2, 3, 1])
        return n, nbytes, tf.reduce_sum(tf.cast(label, tf.int64)), [image, label]
    spec, check = (SMALL, "f5") if a.kind == "small10" else (MNIST, "label")
    ex = tf.io.parse_example(b, spec)
    return n, nbytes, tf.reduce_sum(ex[check]), ex


def prepare(a):
    """Builds the graph and session of one pass (untimed) and returns the
    function that runs the pass."""
    g = tf.Graph()
    with g.as_default():
        fetches = (build_batched if a.idiom == "batched" else build)(a)
        sess = v1.Session(graph=g, config=v1.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2))
        sess.run(v1.local_variables_initializer())

    def run():
        examples = nbytes = check = 0
        with g.as_default(), sess:
            coord = v1.train.Coordinator()
            threads = v1.train.start_queue_runners(sess, coord)
            try:
                while True:
                    out = sess.run(fetches)
                    examples += out[0]
                    nbytes += out[1]
                    check += out[2]
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
        return examples, nbytes, check
    return run


def main():
    a = common.args("tf.compat.v1 queue pipeline",
                    lambda p: p.add_argument("--idiom", choices=("guide", "batched"), default="guide"))
    system = "tf-queue-batched" if a.idiom == "batched" else "tf-queue"
    for run in range(1, a.runs + 1):
        common.emit(system, a.workload, run, common.measure(a, lambda: prepare(a)), tf.__version__)


if __name__ == "__main__":
    main()
