"""sluice from Python: the `sluice` package (python/) reading the same
files as sluicebench's sluice rows, batches of 128 as NumPy views of the
server's shared memory (the package's default), or copies with --copy.

CIFAR-10's planes are reordered into height x width x channels by the
server's readers (Field's transpose), as sluicebench's Field.Transpose and
tf.data's transpose do. Its Go counterpart is sluicebench's api-reuse mode (the sluice package
reusing batch memory, which is what sluice-serve runs): the difference is
the hand-off to Python: a request and four replies over pipes per four
batches, and a copy into shared memory of the batches the readers could
not parse into it (any feature other than FixedLen float32 / int64). CPU time counts the server, a child
process, with the trainer.

    python bench/py/sluicepy.py --workload mnist --data build/bench-data --runs 5

With --server-procs 1 the server runs on one P (GOMAXPROCS=1) with one
reader (the seed pipeline keeps its two), as sluicebench's api-reuse mode
at one core: the trainer then has a core of its own, as a GPU trainer's
main thread does, and the row is "sluice-py (1 P)".
"""
import os

import common
import numpy as np

import sluice

MNIST = {"image": sluice.FixedLen([784], "float32"), "label": sluice.FixedLen([], "int64")}
SMALL = {**{n: sluice.FixedLen([], "float32") for n in common.SMALL_FLOATS},
         **{n: sluice.FixedLen([], "int64") for n in common.SMALL_INTS}}


def dataset(a):
    readers = a.readers
    if readers is None:
        readers = getattr(a, "server_procs", None) or os.cpu_count()
    copy = a.copy
    det = getattr(a, "deterministic", False)
    if a.kind == "mnist":
        return sluice.examples(a.files, MNIST, common.BATCH, readers=readers, copy=copy, deterministic=det), "label"
    if a.kind == "seed":
        # The seed pipeline: two epochs, files reshuffled per epoch, two
        # readers, a 10 000-example shuffle buffer.
        return sluice.examples(a.files, MNIST, common.BATCH, epochs=2, shuffle=common.MIN_AFTER_DEQUEUE,
                               seed=42, readers=2, copy=copy, deterministic=det), "label"
    if a.kind == "small10":
        return sluice.examples(a.files, SMALL, common.BATCH, readers=readers, copy=copy, deterministic=det), "f5"
    if a.kind == "csv":
        cols = [(n, "float32", 0.0) for n in "abcd"] + [("label", "int32", 0)]
        return sluice.csv(a.files, cols, common.BATCH, readers=readers, copy=copy), "label"
    if a.kind == "cifar":
        fields = [sluice.Field("label", 0, 1, "uint8", shape=[]),
                  sluice.Field("image", 1, 3072, "uint8", shape=[3, 32, 32], transpose=[1, 2, 0])]
        return sluice.fixed_length(a.files, common.CIFAR_RECORD, fields, common.BATCH, readers=readers,
                                   copy=copy), "label"
    raise SystemExit(f"sluicepy: no {a.workload} workload")


def main():
    def extra(p):
        p.add_argument("--copy", action="store_true", help="copy=True: arrays of their own")
        p.add_argument("--deterministic", action="store_true",
                       help="deterministic=True (Examples workloads); its Go counterpart is sluicebench -deterministic")
        p.add_argument("--readers", type=int, default=None)
        p.add_argument("--server-procs", type=int, default=None,
                       help="the server's GOMAXPROCS, and the readers' default")
    a = common.args("sluice from Python", extra)
    if a.server_procs:
        # The server inherits the trainer's environment.
        os.environ["GOMAXPROCS"] = str(a.server_procs)
    ds, check_name = dataset(a)
    epochs = 2 if a.kind == "seed" else 1

    def prepare():
        def run():
            examples = check = 0
            for b in ds:
                labels = b[check_name]
                examples += len(labels)
                check += int(labels.sum(dtype=np.int64))
            return examples, common.record_bytes(a, examples, epochs), check
        return run

    name = "sluice-py-copy" if a.copy else "sluice-py"
    if a.deterministic:
        name += "-deterministic"
    if a.server_procs:
        name += f" ({a.server_procs} P)"
    version = f"sluice {sluice.__version__}, numpy {np.__version__}"
    for run in range(1, a.runs + 1):
        common.emit(name, a.workload, run, common.measure(a, prepare), version)


if __name__ == "__main__":
    main()
