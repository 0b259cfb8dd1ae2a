"""Parquet files read directly as Examples (format="parquet"): pyarrow's
test files of parquet/testdata, with what pyarrow reads back from them."""

import json
import os
import shutil

import numpy as np
import pytest

import sluice

TESTDATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "parquet", "testdata")
SPEC = {"i64": sluice.FixedLen([], "int64"), "word": sluice.FixedLen([], "bytes"), "f32": sluice.FixedLen([], "float32")}


def expected(name):
    """The i64, word and f32 columns pyarrow read back from a test file."""
    want = json.load(open(os.path.join(TESTDATA, name + ".json")))
    if "same_as" in want:
        return expected(want["same_as"])
    names = [c["name"] for c in want["columns"]]
    col = lambda n: [row[names.index(n)][0] for row in want["rows"]]
    return col("i64"), col("word"), col("f32")


@pytest.fixture
def files(tmp_path):
    if not os.path.isdir(TESTDATA):
        pytest.skip("no parquet/testdata (not run from a clone)")
    for name in ("default", "gzip_v2", "polars"):
        shutil.copy(os.path.join(TESTDATA, name + ".parquet"), tmp_path / (name + ".parquet"))
    return str(tmp_path / "*.parquet")


def test_rows_in_order(files):
    i64, words, f32 = expected("default")
    ds = sluice.examples(files.replace("*", "default"), SPEC, batch_size=64, format="parquet", readers=1)
    got = {"i64": [], "word": [], "f32": []}
    for b in ds:
        for k in got:
            got[k] += b[k].tolist()
    assert got["i64"] == i64
    assert got["word"] == [__import__("base64").b64decode(w) for w in words]
    assert np.array_equal(np.array(got["f32"], np.float32), np.array(f32, np.float32))


def test_deterministic_resume(files):
    make = lambda: sluice.examples(files, SPEC, batch_size=50, format="parquet", shuffle=100, seed=3, epochs=2,
                                   deterministic=True)
    with make() as ds:
        want = [b["i64"].tolist() for b in ds]
    assert len(want) == 36  # 3 files of 300 rows, twice, 50 a batch
    for cut in (1, 17):
        with make() as ds:
            it = iter(ds)
            for _ in range(cut):
                next(it)
            state = json.loads(json.dumps(it.state_dict()))
            it.close()
        with make() as ds:
            ds.load_state_dict(state)
            assert [b["i64"].tolist() for b in ds] == want[cut:], f"resumed at {cut}"


def test_errors(files):
    with pytest.raises(sluice.InvalidArgumentError, match="want tfrecord or parquet"):
        sluice.examples(files, SPEC, batch_size=5, format="csv")
    with pytest.raises(sluice.SluiceError, match="GlobalShuffle with Parquet"):
        list(sluice.examples(files, SPEC, batch_size=5, format="parquet", global_shuffle=True))
    spec = dict(SPEC, nope=sluice.FixedLen([], "int64"))
    with pytest.raises(sluice.DataError, match="nope"):
        list(sluice.examples(files, spec, batch_size=5, format="parquet"))
