"""sluice: training data into NumPy batches, read by sluice's Go pipeline.

    import sluice

    spec = {"image": sluice.FixedLen([784], "float32"), "label": sluice.FixedLen([], "int64")}
    ds = sluice.examples("data/train-*.tfrecord.gz", spec, batch_size=128,
                         epochs=2, shuffle=10000, seed=42)
    for batch in ds:
        train(batch["image"], batch["label"])   # NumPy arrays, [128, 784] and [128]

Each iteration of a Dataset starts a sluice-serve process (the Go side),
which reads, decodes and batches in parallel and writes each batch into
shared memory that the arrays are views of. The arrays of a batch are valid
until the next batch is requested; copy=True gives arrays of their own.
The process ends with the iteration, with close(), when the trainer dies
(even by SIGKILL), and leaves nothing behind.

sluice.writer writes TFRecord files of Examples (dicts of NumPy arrays,
numbers, bytes) all or nothing, through the same kind of process.
sluice.stats summarises each feature's values (sluice stats --json).
"""

from ._core import (
    Batch,
    Column,
    Dataset,
    DataError,
    Feature,
    Field,
    FixedLen,
    FixedLenSequence,
    Image,
    InvalidArgumentError,
    NoFilesError,
    NotDurableError,
    SluiceError,
    SparseFeature,
    SparseValue,
    VarLen,
    csv,
    examples,
    fixed_length,
    records,
    sequence_examples,
)
from ._cli import stats
from ._write import Writer, encode_example, encode_sequence_example, writer

__all__ = [
    "Batch",
    "Column",
    "Dataset",
    "DataError",
    "Feature",
    "Field",
    "FixedLen",
    "FixedLenSequence",
    "Image",
    "InvalidArgumentError",
    "NoFilesError",
    "NotDurableError",
    "SluiceError",
    "SparseFeature",
    "SparseValue",
    "VarLen",
    "Writer",
    "csv",
    "encode_example",
    "encode_sequence_example",
    "examples",
    "fixed_length",
    "records",
    "sequence_examples",
    "stats",
    "writer",
]
__version__ = "0.1.0"
