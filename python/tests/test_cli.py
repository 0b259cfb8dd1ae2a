"""The sluice command line the package carries (python -m sluice and the
`sluice` console script): the Go binary run under the name sluice, for
users without Go."""

import glob
import importlib.metadata
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import sluice

REPO_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "sluice", *args], capture_output=True, text=True, timeout=60, **kw)


def write_digits(path, n):
    with sluice.writer(path) as w:
        for i in range(n):
            w.write({"label": i, "pixels": np.full(16, i, dtype=np.uint8).tobytes(), "score": np.float32(i) / 4})
    return w.files[0]


def test_count_cat_verify(tmp_path):
    f = write_digits(tmp_path / "d", 7)
    r = cli("count", f)
    assert r.returncode == 0 and r.stdout == f"7\t{f}\n", r
    r = cli("cat", "--limit", "1", f)
    assert r.returncode == 0 and '"label":{"int64":[0]}' in r.stdout, r
    r = cli("verify", f)
    assert r.returncode == 0 and r.stdout.endswith("7 good records in 1 file: 0 bad records\n"), r


def test_corrupt_file_verified_and_salvaged(tmp_path):
    f = write_digits(tmp_path / "d", 6)
    data = bytearray(open(f, "rb").read())
    n = len(data) // 6  # every record's framed size: the same features, one byte values
    data[2 * n + 14] ^= 1  # record 2's data
    open(f, "wb").write(data)
    r = cli("verify", f)
    assert r.returncode == 1, r
    assert f"{f}: corrupt record at offset {2 * n} ({n} bytes skipped)" in r.stdout
    r = cli("convert", "--skip-corrupt", f, "--out", str(tmp_path / "fixed"))
    assert r.returncode == 0 and "wrote 5 records" in r.stdout and "skipped 1 bad record" in r.stdout, r
    ds = sluice.examples(str(tmp_path / "fixed.tfrecord"), {"label": sluice.FixedLen([], "int64")}, batch_size=10)
    assert [int(x) for b in ds for x in b["label"]] == [0, 1, 3, 4, 5]


def test_schema_prints_a_spec_that_reads(tmp_path):
    """schema --output python prints this package's spec for the files, which
    reads them as they were written."""
    f = write_digits(tmp_path / "d", 5)
    r = cli("schema", "--output", "python", f)
    assert r.returncode == 0, r
    ours = r.stdout[r.stdout.index("# sluice's Python package"):]
    scope = {"sluice": sluice}
    exec(ours, scope)
    spec = scope["sluice_spec"]
    assert set(spec) == {"label", "pixels", "score"}
    (b,) = list(sluice.examples(f, spec, batch_size=5))
    assert b["label"].tolist() == [0, 1, 2, 3, 4]
    assert b["pixels"].tolist() == [np.full(16, i, dtype=np.uint8).tobytes() for i in range(5)]
    assert np.allclose(b["score"], np.arange(5) / 4)


PARQUET = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "parquet", "testdata")


def test_parquet_to_batches(tmp_path):
    """A Parquet file (pyarrow's, committed with what pyarrow reads back)
    converted and read as batches through the spec schema prints."""
    src = os.path.join(PARQUET, "default.parquet")
    if not os.path.exists(src):
        pytest.skip("no parquet/testdata (not run from a clone)")
    r = cli("convert", "--from", "parquet", src, "--out", str(tmp_path / "t"))
    assert r.returncode == 0 and "wrote 300 records" in r.stdout, r
    r = cli("schema", "--from", "parquet", "--output", "python", src)
    assert r.returncode == 0, r
    scope = {"sluice": sluice}
    exec(r.stdout[r.stdout.index("# sluice's Python package"):], scope)
    spec = {k: v for k, v in scope["sluice_spec"].items() if k in ("i64", "word", "f32")}
    (b,) = list(sluice.examples(str(tmp_path / "t.tfrecord"), spec, batch_size=300))
    want = json.load(open(os.path.join(PARQUET, "default.json")))
    names = [c["name"] for c in want["columns"]]
    i64, f32 = names.index("i64"), names.index("f32")
    assert b["i64"].tolist() == [row[i64][0] for row in want["rows"]]
    assert b["f32"].dtype == np.float32 and b["f32"].tolist() == [np.float32(row[f32][0]) for row in want["rows"]]
    assert b["word"][0] == b"delta"


def test_to_parquet_and_back(tmp_path):
    """convert --to parquet makes a table of the Examples (pandas', Polars'
    or DuckDB's, with no TensorFlow and no Arrow), which the package reads
    back as the same batches."""
    f = write_digits(tmp_path / "d", 9)
    r = cli("convert", "--to", "parquet", f, "--out", str(tmp_path / "t"))
    assert r.returncode == 0 and "wrote 9 rows of 3 columns to" in r.stdout, r
    data = open(tmp_path / "t.parquet", "rb").read()
    assert data[:4] == b"PAR1" and data[-4:] == b"PAR1"
    spec = {"label": sluice.FixedLen([], "int64"), "pixels": sluice.FixedLen([], "string"),
            "score": sluice.FixedLen([], "float32")}
    (b,) = list(sluice.examples(str(tmp_path / "t.parquet"), spec, batch_size=9, format="parquet"))
    assert b["label"].tolist() == list(range(9))
    assert b["pixels"][4] == bytes([4] * 16)
    assert b["score"].tolist() == [i / 4 for i in range(9)]
    r = cli("convert", "--to", "parquet", "-", "--out", str(tmp_path / "u"))
    assert r.returncode != 0 and "not from standard input" in r.stderr, r


def test_ctrl_c_stops_the_command(tmp_path):
    """python -m sluice becomes the command (exec): Ctrl-C reaches it, and it
    stops as the Go build does, exit status 130, its output not written."""
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "sluice", "convert", "--from", "json", "-", "--out", str(out)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The output's temporary file exists once the command runs, after
        # it set up its handling of SIGINT; then it waits for input.
        deadline = time.monotonic() + 30
        while not glob.glob(str(tmp_path / ".out.tfrecord.sluice-tmp-*")):
            assert p.poll() is None and time.monotonic() < deadline, "the command did not start"
            time.sleep(0.01)
        if os.path.exists(f"/proc/{p.pid}/cmdline"):
            with open(f"/proc/{p.pid}/cmdline", "rb") as cmdline:
                assert cmdline.read().startswith(b"sluice\0"), "Python did not become the command"
        p.send_signal(signal.SIGINT)
        # Its input still open, as Ctrl-C at a terminal leaves it: the end
        # of the input could let it finish before the signal is seen.
        p.wait(timeout=10)
        err = p.stderr.read()
    finally:
        p.kill()
        for f in (p.stdin, p.stdout, p.stderr):
            f.close()
    assert p.returncode == 130 and "sluice: interrupted" in err, (p.returncode, err)
    assert os.listdir(tmp_path) == [], "an interrupted convert left files"


def test_missing_binary(tmp_path):
    r = cli("count", "x", env=dict(os.environ, SLUICE_SERVE=str(tmp_path / "nothing")))
    assert r.returncode == 2 and "sluice: SLUICE_SERVE=" in r.stderr and "is not an executable file" in r.stderr, r


@pytest.mark.parametrize("what", ["missing", "not executable", "a folder"])
def test_bad_serve_setting_is_a_sluice_error(tmp_path, monkeypatch, what):
    # Not an OSError of Popen's: FileNotFoundError would pass for
    # NoFilesError, which derives from it (audit 50).
    f = write_digits(tmp_path / "d", 3)
    exe = tmp_path / "serve"
    if what == "not executable":
        exe.write_text("#!/bin/sh\n")
    elif what == "a folder":
        exe.mkdir()
    monkeypatch.setenv("SLUICE_SERVE", str(exe))
    with pytest.raises(sluice.SluiceError, match="SLUICE_SERVE=.*is not an executable file") as e:
        list(sluice.examples(f, {"label": sluice.FixedLen([], "int64")}, 2))
    assert not isinstance(e.value, FileNotFoundError)


def test_console_script(tmp_path):
    """pip install puts a `sluice` command beside the interpreter."""
    script = os.path.join(os.path.dirname(sys.executable), "sluice")
    if not os.path.exists(script) or os.path.dirname(sluice.__file__).startswith(REPO_SRC):
        pytest.skip("the package is not installed here (run from the source tree)")
    f = write_digits(tmp_path / "d", 3)
    r = subprocess.run([script, "count", "--json", f], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and json.loads(r.stdout) == {"files": [{"name": f, "records": 3}], "records": 3}, r
    # The command's version is the package's, which pip's build gives it.
    r = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=60)
    assert r.stdout == f"sluice version {importlib.metadata.version('sluice')}\n", r


def test_readme_quickstart(tmp_path):
    """The README's two Python commands: the package's command writes the
    digits, and examples/digits.py trains on them and tests well."""
    data = tmp_path / "digits"
    r = cli("demo", "--dir", str(data), "--train", "4000", "--test", "1000", "--quiet")
    assert r.returncode == 0, r
    example = os.path.join(os.path.dirname(REPO_SRC), "examples", "digits.py")
    r = subprocess.run([sys.executable, example, str(data)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r
    accuracy = float(r.stdout.split("test accuracy ")[1].split("%")[0])
    assert accuracy > 50 and "on 1000 images" in r.stdout, r.stdout  # 77–82 % here; chance is 10 %


def test_stats(tmp_path):
    """sluice.stats: the command's JSON report as a dict, and its errors as
    exceptions."""
    f = write_digits(tmp_path / "d", 8)
    r = sluice.stats(f, top=3)
    assert r["records"] == 8
    feats = {x["name"]: x for x in r["features"]}
    label, score = feats["label"], feats["score"]
    assert label["kind"] == "int64" and label["min"] == 0 and label["max"] == 7 and label["mean"] == 3.5
    assert label["distinct"] == 8 and [t["value"] for t in label["top"]] == [0, 1, 2]
    q = label["quantiles"]
    assert label["quantiles_exact"] and [q["p25"], q["p50"], q["p99"]] == list(np.quantile(np.arange(8), [0.25, 0.5, 0.99]))
    assert score["kind"] == "float" and score["max"] == 1.75 and score["nans"] == 0
    assert feats["pixels"]["min"] == 16  # bytes: lengths
    assert sluice.stats(str(tmp_path / "d*"), limit=2)["records"] == 2
    csv = tmp_path / "a.csv"
    csv.write_text("x,y\n1,a\n3,b\n")
    r = sluice.stats(csv, format="csv", header=True)
    assert {x["name"]: x["mean"] for x in r["features"]}["x"] == 2
    with pytest.raises(sluice.SluiceError, match="no such file"):
        sluice.stats(str(tmp_path / "none-*"))
    with pytest.raises(sluice.SluiceError, match="--from must be"):
        sluice.stats(f, format="xml")
