import base64
import hashlib
import json
import os
import subprocess

import numpy as np
import pytest

import sluice
import tfrecords
from conftest import alive, ended, shm_files


def make_examples(dir, files=3, per_file=40):
    """Files of Examples: label (int64, counting up), image (4 floats),
    name (bytes), tokens (label%4 int64s); the second file gzipped.
    Returns the pattern and the records' features by label."""
    truth = {}
    label = 0
    for i in range(files):
        recs = []
        for _ in range(per_file):
            f = {
                "label": ("int64", [label]),
                "image": ("float", [label, -label, label / 2, 1.0]),
                "name": ("bytes", [b"n%d" % label + b"\x00" * (label % 3)]),
                "tokens": ("int64", [label * 10 + j for j in range(label % 4)]),
            }
            truth[label] = f
            recs.append(tfrecords.example(f))
            label += 1
        tfrecords.write(os.path.join(dir, f"train-{i}.tfrecord"), recs, "gzip" if i == 1 else None)
    return os.path.join(dir, "train-*.tfrecord"), truth


SPEC = {
    "label": sluice.FixedLen([], "int64"),
    "image": sluice.FixedLen([2, 2], np.float32),
    "name": sluice.FixedLen([], bytes),
    "tokens": sluice.VarLen("int64"),
    # A plain dict, and a default for a feature no record has.
    "weight": {"kind": "fixed", "shape": [], "dtype": "float32", "default": 0.5},
}


def check_batch(b, truth):
    labels = b["label"]
    assert labels.dtype == np.int64 and labels.ndim == 1
    n = len(labels)
    assert b["image"].shape == (n, 2, 2) and b["image"].dtype == np.float32
    assert b["name"].shape == (n,) and b["name"].dtype == object
    values, lengths = b["tokens"]
    assert values.shape[0] == n and lengths.shape == (n,)
    assert values.shape[1] == max(lengths, default=0)
    np.testing.assert_array_equal(b["weight"], np.full(n, 0.5, np.float32))
    for i, l in enumerate(labels.tolist()):
        f = truth[l]
        np.testing.assert_array_equal(b["image"][i].ravel(), np.float32(f["image"][1]))
        assert b["name"][i] == f["name"][1][0]
        toks = f["tokens"][1]
        assert lengths[i] == len(toks)
        np.testing.assert_array_equal(values[i, :len(toks)], toks)
        assert not values[i, len(toks):].any(), "padding is zeros"


def test_examples_values(tmp_path):
    pat, truth = make_examples(tmp_path)
    seen = []
    for b in sluice.examples(pat, SPEC, batch_size=16, readers=1):
        check_batch(b, truth)
        seen += b["label"].tolist()
    # One reader, files in order: every record once, in the files' order.
    assert seen == sorted(truth)


def test_examples_match_go(tmp_path, sluice_cli):
    """The batches hold what the Go command reads from the same files."""
    pat, _ = make_examples(tmp_path)
    out = subprocess.run([sluice_cli, "cat", pat], check=True, capture_output=True, text=True).stdout
    go = [json.loads(line)["features"] for line in out.splitlines()]
    rows = []
    for b in sluice.examples(pat, SPEC, batch_size=7, readers=1, copy=True):
        vals, lens = b["tokens"]
        for i in range(len(b["label"])):
            rows.append((int(b["label"][i]), b["image"][i].ravel().tolist(), list(vals[i, :lens[i]])))
    assert len(rows) == len(go) == 120
    for (label, image, tokens), g in zip(rows, go):
        assert g["label"]["int64"] == [label]
        assert g["image"]["float"] == pytest.approx(image)
        assert g.get("tokens", {}).get("int64", []) == tokens


def test_views_and_copies(tmp_path):
    pat, truth = make_examples(tmp_path, files=1, per_file=64)
    it = iter(sluice.examples(pat, SPEC, batch_size=8, readers=1))
    b = next(it)
    # A view of the shared memory: no copy made in Python, and writable
    # so that torch.from_numpy takes it without a warning.
    assert not b["image"].flags.owndata and b["image"].flags.writeable
    assert isinstance(b["image"].base, memoryview) or b["image"].base is not None
    it.close()

    kept = [b for b in sluice.examples(pat, SPEC, batch_size=8, readers=1, copy=True)]
    assert all(b["image"].flags.owndata for b in kept)
    # Copies stay as they were after the slots were reused.
    for b in kept:
        check_batch(b, truth)
    assert sum(len(b["label"]) for b in kept) == 64


def test_views_are_reused(tmp_path):
    """The lifetime rule is real: a view is overwritten once later batches
    reuse its slot (so copy=True matters)."""
    pat, _ = make_examples(tmp_path, files=1, per_file=80)
    views = [b["label"] for b in sluice.examples(pat, SPEC, batch_size=8, readers=1, prefetch=1)]
    firsts = [v[0] for v in views]
    assert firsts != [8 * i for i in range(10)]


def test_batches_asked_for_at_a_time(tmp_path):
    """Eight batches a request for batches of fixed-size features under
    32 KB, four for larger or unknown sizes and for a deterministic data
    set (whose state goes back over the batches sent ahead, sixteen at
    most); prefetch overrides the size's choice."""
    pat, truth = make_examples(tmp_path, files=1, per_file=80)
    (tmp_path / "a.csv").write_text("".join(f"{i},{i / 2}\n" for i in range(100)))
    (tmp_path / "r.bin").write_bytes(bytes(range(200)) * 5)
    small = {"label": sluice.FixedLen([], "int64"), "image": sluice.FixedLen([2, 2], "float32")}
    # A feature no record has, filled by its default.
    big = {"label": sluice.FixedLen([], "int64"), "absent": sluice.FixedLen([64], "float32", [0.0] * 64)}
    cases = [
        (sluice.examples(pat, small, batch_size=8), 8),
        (sluice.examples(pat, big, batch_size=125), 4),  # 264 bytes a record: 33 000 a batch
        (sluice.examples(pat, big, batch_size=124), 8),  # 32 736
        (sluice.examples(pat, SPEC, batch_size=8), 4),  # bytes and VarLen: sizes unknown
        (sluice.examples(pat, small, batch_size=8, deterministic=True), 4),
        (sluice.examples(pat, small, batch_size=8, deterministic=True, prefetch=2), 1),
        (sluice.examples(pat, small, batch_size=8, prefetch=8), 4),
        (sluice.csv(str(tmp_path / "a.csv"), [("i", "int64"), ("x", "float32")], batch_size=16), 8),
        (sluice.csv(str(tmp_path / "a.csv"), [("i", "int64"), ("x", "bytes")], batch_size=16), 4),
        (sluice.fixed_length(str(tmp_path / "r.bin"), 10, [sluice.Field("x", 0, 10, "uint8")], batch_size=4), 8),
        (sluice.fixed_length(str(tmp_path / "r.bin"), 10, [sluice.Field("x", 0, 10, "uint8")], batch_size=4000), 4),
        (sluice.records(pat, batch_size=8), 4),
    ]
    for ds, want in cases:
        it = iter(ds)
        rows = [len(next(iter(b.values()))) for b in it]
        assert it._s is None and sum(rows) in (80, 100, 1000), (ds._request, rows)
        it = iter(ds)
        next(it)
        assert it._s.pipelined == want, ds._request
        it.close()


def test_epochs_shuffle_drop_remainder(tmp_path):
    pat, truth = make_examples(tmp_path)
    labels = []
    for b in sluice.examples(pat, SPEC, batch_size=32, epochs=2, shuffle=50, seed=7, drop_remainder=True):
        assert len(b["label"]) == 32
        labels += b["label"].tolist()
    assert len(labels) == 224  # 240 records, the last 16 dropped
    assert labels != sorted(labels)
    counts = np.bincount(labels, minlength=120)
    assert counts.max() <= 2


def test_smaller_final_batch_and_forever(tmp_path):
    pat, _ = make_examples(tmp_path, files=1, per_file=10)
    sizes = [len(b["label"]) for b in sluice.examples(pat, SPEC, batch_size=4)]
    assert sizes == [4, 4, 2]
    it = iter(sluice.examples(pat, SPEC, batch_size=4, epochs=None))
    assert sum(len(next(it)["label"]) for _ in range(10)) == 40
    it.close()


def test_records(tmp_path):
    # Raw records, written by sluice.writer, read back as they are.
    recs = [b"", b"\x00bytes\xff", os.urandom(5000)] + [b"r%d" % i for i in range(40)]
    for name, part, compression in (("raw-a.tfrecord.gz", recs[:20], "GZIP"), ("raw-b.tfrecord", recs[20:], None)):
        with sluice.writer(tmp_path / name, compression=compression) as w:
            for r in part:
                w.write(r)
    pattern = str(tmp_path / "raw-*")
    in_order = recs
    for copy in (False, True):
        got = []
        for b in sluice.records(pattern, batch_size=8, readers=1, copy=copy):
            assert list(b) == ["record"] and b["record"].dtype == object
            got += list(b["record"])
        assert got == in_order
    shuffled = [r for b in sluice.records(pattern, batch_size=8, shuffle=100, seed=3, epochs=2) for r in b["record"]]
    assert sorted(shuffled) == sorted(recs * 2) and shuffled[:len(recs)] != in_order


def test_name_with_glob_characters(tmp_path):
    # A file whose name holds glob characters is read as that file; only a
    # name that is no file is a pattern (a[1].tfrecord read a1.tfrecord:
    # audit 106).
    for name, n in (("a[1].tfrecord", 3), ("a1.tfrecord", 5), ("b*.tfrecord", 7), ("bx.tfrecord", 11)):
        tfrecords.write(str(tmp_path / name), [b"r%d" % i for i in range(n)])

    def count(files):
        return sum(len(b["record"]) for b in sluice.records(files, batch_size=4))

    assert count(tmp_path / "a[1].tfrecord") == 3
    assert count(str(tmp_path / "b*.tfrecord")) == 7
    assert count([str(tmp_path / "a[1].tfrecord"), tmp_path / "b*.tfrecord"]) == 10
    assert count(str(tmp_path / "a[0-9].tfrecord")) == 5
    assert count(str(tmp_path / "b?.tfrecord")) == 7 + 11


def test_records_corrupt(tmp_path):
    with sluice.writer(tmp_path / "raw.tfrecord") as w:
        for i in range(5):
            w.write(b"record %d" % i)
    data = bytearray((tmp_path / "raw.tfrecord").read_bytes())
    data[2 * 24 + 12] ^= 0xFF  # record 2's first byte (each record is 8 + 16 bytes)
    (tmp_path / "raw.tfrecord").write_bytes(bytes(data))
    with pytest.raises(sluice.DataError) as e:
        for _ in sluice.records(str(tmp_path / "raw.tfrecord"), batch_size=2):
            pass
    assert e.value.file == str(tmp_path / "raw.tfrecord") and e.value.offset == 48
    kept = [r for b in sluice.records(str(tmp_path / "raw.tfrecord"), batch_size=2, skip_corrupt=True)
            for r in b["record"]]
    assert kept == [b"record 0", b"record 1", b"record 3", b"record 4"]


def test_skipped_counts(tmp_path):
    # Two files, one with two records whose data CRC fails, the other
    # sound: the count rises on the batch that follows a skip, covers
    # every epoch at the end, and starts again with each iteration; the
    # batches after a skip are served from the descriptors' cache as before.
    recs = [tfrecords.example({"label": ("int64", [i])}) for i in range(40)]
    bad, good = str(tmp_path / "a.tfrecord"), str(tmp_path / "b.tfrecord")
    offsets = tfrecords.write(bad, recs)
    tfrecords.write(good, recs)
    data = bytearray(open(bad, "rb").read())
    for k in (3, 30):
        data[offsets[k] + 12 + 2] ^= 0xFF
    open(bad, "wb").write(data)
    spec = {"label": sluice.FixedLen([], "int64")}
    for kw in ({"readers": 1}, {"readers": 2, "shuffle": 10, "seed": 1}, {"deterministic": True}):
        ds = sluice.examples([bad, good], spec, batch_size=4, epochs=2, skip_corrupt=True, **kw)
        for _ in range(2):
            it = iter(ds)
            seen, n = [], 0
            for b in it:
                seen.append(it.skipped)
                n += len(b["label"])
            assert n == 2 * (80 - 2), kw
            assert seen == sorted(seen) and seen[-1] <= 4, (kw, seen)
            assert it.skipped == ds.skipped == 4, kw
    clean = sluice.examples(good, spec, batch_size=4)
    assert sum(len(b["label"]) for b in clean) == 40 and clean.skipped == 0


def test_skipped_counted_at_an_error(tmp_path):
    # A skipped record, then a truncated end, which skip_corrupt does not
    # skip: the iteration raises, and the count of what it skipped before
    # survives the error, as Go's Iterator.Skipped keeps it.
    recs = [tfrecords.example({"label": ("int64", [i])}) for i in range(20)]
    path = str(tmp_path / "a.tfrecord")
    offsets = tfrecords.write(path, recs)
    data = bytearray(open(path, "rb").read())
    data[offsets[3] + 12 + 2] ^= 0xFF
    open(path, "wb").write(bytes(data[:offsets[19] + 7]))
    spec = {"label": sluice.FixedLen([], "int64")}
    for kw in ({"readers": 1}, {"deterministic": True}):
        ds = sluice.examples(path, spec, batch_size=64, skip_corrupt=True, **kw)
        it = iter(ds)
        with pytest.raises(sluice.DataError, match="truncated"):
            next(it)
        assert it.skipped == ds.skipped == 1, kw


def test_images(tmp_path):
    # PNGs of several sizes, decoded by the Go side and cropped or padded
    # around their centers to 4 x 5, as tf.image.resize_with_crop_or_pad.
    rng = np.random.default_rng(3)
    imgs = [rng.integers(0, 256, (h, w, 3), dtype=np.uint8) for h, w in [(4, 5), (6, 9), (2, 3), (7, 2), (1, 1)]]
    recs = [tfrecords.example({"img": ("bytes", [tfrecords.png(x)]), "label": ("int64", [i])})
            for i, x in enumerate(imgs)]
    tfrecords.write(str(tmp_path / "img.tfrecord"), recs)
    spec = {"img": sluice.Image(4, 5), "label": sluice.FixedLen([], "int64")}
    got = list(sluice.examples(str(tmp_path / "img.tfrecord"), spec, batch_size=2, readers=1, copy=True))
    pixels = np.concatenate([b["img"] for b in got])
    assert pixels.shape == (5, 4, 5, 3) and pixels.dtype == np.uint8

    def fit(x, th, tw):
        h, w, _ = x.shape
        sy, dy = max(h - th, 0) // 2, max(th - h, 0) // 2
        sx, dx = max(w - tw, 0) // 2, max(tw - w, 0) // 2
        out = np.zeros((th, tw, x.shape[2]), np.uint8)
        rows, cols = min(h, th), min(w, tw)
        out[dy:dy + rows, dx:dx + cols] = x[sy:sy + rows, sx:sx + cols]
        return out
    for i, x in enumerate(imgs):
        np.testing.assert_array_equal(pixels[i], fit(x, 4, 5))

    # JPEGs, baseline and progressive, are TensorFlow's pixels, with either
    # of decode_jpeg's inverse DCTs (decode/testdata/tf_decode_jpeg.json).
    testdata = os.path.join(os.path.dirname(__file__), "..", "..", "decode", "testdata")
    with open(os.path.join(testdata, "tf_decode_jpeg.json")) as f:
        ref = {(c["file"], c.get("accurate", False)): c for c in json.load(f)["cases"] if c["channels"] == 3}
    for name in ("jpeg/pil_q100_444.jpg", "jpeg/tf_progressive_444_q100.jpg"):
        with open(os.path.join(testdata, name), "rb") as f:
            tfrecords.write(str(tmp_path / "jpeg.tfrecord"),
                            [tfrecords.example({"img": ("bytes", [f.read()]), "label": ("int64", [0])})])
        for accurate in (False, True):
            want = ref[(name, accurate)]
            spec = {"img": sluice.Image(*want["shape"], dct_method="INTEGER_ACCURATE" if accurate else "")}
            (b,) = sluice.examples(str(tmp_path / "jpeg.tfrecord"), spec, batch_size=1, copy=True)
            got = b["img"][0].tobytes()
            if "sha256" in want:
                assert hashlib.sha256(got).hexdigest() == want["sha256"], (name, accurate)
            else:
                assert got == base64.b64decode(want["pixels"]), (name, accurate)
    with pytest.raises(sluice.InvalidArgumentError, match="dct_method"):
        list(sluice.examples(str(tmp_path / "jpeg.tfrecord"), {"img": sluice.Image(4, 4, dct_method="FLOAT")},
                             batch_size=1))
    # The progressive file's scans against max_scans: over it, a DataError
    # naming the record.
    with open(os.path.join(testdata, "jpeg/tf_progressive_444_q100.jpg"), "rb") as f:
        scans = f.read().count(b"\xff\xda")
    for limit, ok in ((scans, True), (scans - 1, False)):
        spec = {"img": sluice.Image(8, 8, max_scans=limit)}
        if ok:
            (b,) = sluice.examples(str(tmp_path / "jpeg.tfrecord"), spec, batch_size=1)
            assert b["img"].shape == (1, 8, 8, 3)
            continue
        with pytest.raises(sluice.DataError, match="too many scans") as e:
            list(sluice.examples(str(tmp_path / "jpeg.tfrecord"), spec, batch_size=1))
        assert e.value.file == str(tmp_path / "jpeg.tfrecord")

    # A record whose image does not decode: a DataError naming it.
    offsets = tfrecords.write(str(tmp_path / "bad.tfrecord"), recs[:2] + [
        tfrecords.example({"img": ("bytes", [b"not an image"]), "label": ("int64", [9])})])
    with pytest.raises(sluice.DataError) as e:
        for _ in sluice.examples(str(tmp_path / "bad.tfrecord"), spec, batch_size=4):
            pass
    assert e.value.file == str(tmp_path / "bad.tfrecord") and e.value.offset == offsets[2]


def test_csv(tmp_path):
    lines = ["x,y,tag"] + [f"{i},{'' if i % 5 == 0 else i / 4},t{i}" for i in range(25)]
    (tmp_path / "a.csv").write_text("\n".join(lines) + "\n")
    cols = [sluice.Column("x", "int64", required=True), ("y", "float32", -1.0), ("tag", bytes)]
    got = {"x": [], "y": [], "tag": []}
    for b in sluice.csv(str(tmp_path / "a.csv"), cols, batch_size=10, header_lines=1, readers=1):
        for k in got:
            got[k] += list(b[k])
    assert got["x"] == list(range(25))
    assert got["y"] == [np.float32(-1.0 if i % 5 == 0 else i / 4) for i in range(25)]
    assert got["tag"] == [b"t%d" % i for i in range(25)]


def test_csv_nan_defaults(tmp_path):
    # A NaN default has the bits TensorFlow's record_defaults keep: quiet,
    # no payload, and its sign (audit 81: Go's NaN, payload 1, and -nan's
    # sign lost on the way); a NaN in the data, C's strtod's.
    (tmp_path / "a.csv").write_text(",,,\n-nan,nan(5),-nan,nan(5)\n")
    nan = float("nan")
    cols = [("a", "float64", nan), ("b", "float64", -nan), ("c", "float32", -nan), ("d", "float32", np.float32(nan))]
    (b,) = list(sluice.csv(str(tmp_path / "a.csv"), cols, batch_size=2, readers=1))
    bits = lambda k, t: [f"{x:x}" for x in b[k].view(t).tolist()]
    assert bits("a", np.uint64) == ["7ff8000000000000", "fff8000000000000"]
    assert bits("b", np.uint64) == ["fff8000000000000", "7ff8000000000005"]
    assert bits("c", np.uint32) == ["ffc00000", "ffc00000"]
    assert bits("d", np.uint32) == ["7fc00000", "7fc00005"]


def test_csv_gzip(tmp_path):
    # A gzipped file beside a plain one: each file's compression is found
    # by its first bytes.
    import gzip
    (tmp_path / "a.csv").write_text("x\n" + "".join(f"{i}\n" for i in range(10)))
    (tmp_path / "b.csv.gz").write_bytes(gzip.compress(("x\n" + "".join(f"{i}\n" for i in range(10, 30))).encode()))
    xs = [x for b in sluice.csv([str(tmp_path / "a.csv"), str(tmp_path / "b.csv.gz")], [("x", "int64")],
                                batch_size=7, header_lines=1, readers=1) for x in b["x"]]
    assert xs == list(range(30))


def test_csv_error_names_line(tmp_path):
    (tmp_path / "a.csv").write_text("1,2\n3,\n")
    with pytest.raises(sluice.DataError) as e:
        for _ in sluice.csv(str(tmp_path / "a.csv"), [("a", "int64"), sluice.Column("b", "int64", required=True)],
                            batch_size=4):
            pass
    assert e.value.file == str(tmp_path / "a.csv") and e.value.line == 2


def test_fixed_length(tmp_path):
    # CIFAR-like: 1 label byte, then 2x3x2 pixels.
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 10, 30).astype(np.uint8)
    pixels = rng.integers(0, 256, (30, 2, 3, 2)).astype(np.uint8)
    recs = np.concatenate([labels[:, None], pixels.reshape(30, -1)], axis=1)
    (tmp_path / "d.bin").write_bytes(b"HDR" + recs.tobytes())
    fields = [sluice.Field("label", 0, 1, "uint8", shape=[]),
              {"name": "image", "offset": 1, "size": 12, "dtype": "uint8", "shape": [2, 3, 2]},
              sluice.Field("word", 1, 4, "<u2" if False else "uint16"),
              # The planes into rows x columns x planes, by the server.
              sluice.Field("hwc", 1, 12, "uint8", shape=[2, 3, 2], transpose=[1, 2, 0])]
    got = list(sluice.fixed_length(str(tmp_path / "d.bin"), 13, fields, batch_size=8, header_bytes=3,
                                   readers=1, copy=True))
    np.testing.assert_array_equal(np.concatenate([b["label"] for b in got]), labels)
    np.testing.assert_array_equal(np.concatenate([b["image"] for b in got]), pixels)
    np.testing.assert_array_equal(np.concatenate([b["word"] for b in got]),
                                  recs[:, 1:5].copy().view("<u2"))
    hwc = np.concatenate([b["hwc"] for b in got])
    assert hwc.shape == (30, 3, 2, 2)
    np.testing.assert_array_equal(hwc, pixels.transpose(0, 2, 3, 1))
    with pytest.raises(sluice.InvalidArgumentError, match="Transpose"):
        list(sluice.fixed_length(str(tmp_path / "d.bin"), 13, [sluice.Field("x", 1, 12, "uint8", shape=[2, 3, 2],
                                                                             transpose=[0, 0, 1])],
                                 batch_size=8, header_bytes=3))


def test_byte_order_of_dtypes(tmp_path):
    # A big-endian dtype is a Field's big_endian, not dropped (">i2" read
    # 00 01 as 256: audit 105); elsewhere the format says the byte order,
    # and the spec is refused.
    (tmp_path / "be.bin").write_bytes(bytes([0, 1, 0, 2]))
    want = np.frombuffer(bytes([0, 1, 0, 2]), ">i2")
    for field in (sluice.Field("a", 0, 4, ">i2"), sluice.Field("a", 0, 4, "int16", big_endian=True),
                  {"name": "a", "offset": 0, "size": 4, "dtype": np.dtype(">i2")}):
        b = next(iter(sluice.fixed_length(str(tmp_path / "be.bin"), 4, [field], batch_size=1, copy=True)))
        np.testing.assert_array_equal(b["a"][0], want)
    for spec in (lambda: sluice.FixedLen([2], ">f4"), lambda: sluice.VarLen(">i8"),
                 lambda: sluice.Column("c", ">f8")):
        with pytest.raises(sluice.InvalidArgumentError, match="big-endian"):
            spec()
    # A dtype and big_endian that contradict each other are refused, not
    # one of them taken (audit 107); for one-byte values neither matters.
    for field in (lambda: sluice.Field("a", 0, 4, "<i2", big_endian=True),
                  lambda: sluice.Field("a", 0, 4, ">i2", big_endian=False),
                  lambda: sluice.fixed_length("x", 4, [{"name": "a", "offset": 0, "size": 4, "dtype": "<i2",
                                                        "big_endian": True}], batch_size=1)):
        with pytest.raises(sluice.InvalidArgumentError, match="different byte orders"):
            field()
    assert sluice.Field("a", 0, 4, "<u1", big_endian=True)["big_endian"] is True
    assert sluice.Field("a", 0, 4, "int16")["big_endian"] is False


def test_corrupt_record(tmp_path):
    recs = [tfrecords.example({"label": ("int64", [i])}) for i in range(20)]
    path = str(tmp_path / "bad.tfrecord")
    offsets = tfrecords.write(path, recs)
    data = bytearray(open(path, "rb").read())
    data[offsets[13] + 12 + 2] ^= 0xFF  # in record 13's data: its CRC fails
    open(path, "wb").write(data)
    got = []
    with pytest.raises(sluice.DataError) as e:
        for b in sluice.examples(path, {"label": sluice.FixedLen([], "int64")}, batch_size=5, readers=1):
            got += b["label"].tolist()
    assert got == list(range(10))  # the batches before the bad one
    assert e.value.file == path and e.value.offset == offsets[13]
    assert "corrupt" in str(e.value)
    # The way out: the package's command salvages, skip_corrupt skips.
    assert f"sluice convert --skip-corrupt {path} --out NEW" in str(e.value)
    assert "skip_corrupt=True" in str(e.value)
    ds = sluice.examples(path, {"label": sluice.FixedLen([], "int64")}, batch_size=5, readers=1, skip_corrupt=True)
    assert ds.skipped == 0  # before any iteration
    got = [x for b in ds for x in b["label"].tolist()]
    assert got == [i for i in range(20) if i != 13]
    assert ds.skipped == 1
    # A truncated file: skip_corrupt would not help, and is not offered.
    open(path, "wb").write(data[:offsets[19] + 5])
    with pytest.raises(sluice.DataError) as e:
        list(sluice.examples(path, {"label": sluice.FixedLen([], "int64")}, batch_size=5, skip_corrupt=True))
    assert "sluice convert --skip-corrupt" in str(e.value) and "skip_corrupt=True" not in str(e.value), e.value


def test_option_errors(tmp_path):
    pat, _ = make_examples(tmp_path, files=1, per_file=3)
    with pytest.raises(sluice.NoFilesError):
        iter(sluice.examples(str(tmp_path / "nothing-*"), SPEC, batch_size=2)).__next__()
    with pytest.raises(FileNotFoundError):  # NoFilesError is one
        list(sluice.examples(str(tmp_path / "nothing-*"), SPEC, batch_size=2))
    with pytest.raises(sluice.InvalidArgumentError, match="complex64"):
        iter(sluice.examples(pat, {"x": sluice.FixedLen([], "complex64")}, batch_size=2))
    with pytest.raises(ValueError, match="batch size 0"):
        list(sluice.examples(pat, SPEC, batch_size=0))
    with pytest.raises(ValueError, match="epochs"):
        sluice.examples(pat, SPEC, batch_size=2, epochs=0)
    with pytest.raises(ValueError, match="shard"):
        sluice.examples(pat, SPEC, batch_size=2).shard(2, 2)
    for prefetch in (0, -1):
        with pytest.raises(sluice.InvalidArgumentError, match=f"prefetch {prefetch}: want at least 1"):
            sluice.examples(pat, SPEC, batch_size=2, prefetch=prefetch)


def test_break_ends_server(tmp_path):
    pat, _ = make_examples(tmp_path)
    ds = sluice.examples(pat, SPEC, batch_size=4, epochs=None)
    it = iter(ds)
    next(it)
    pid = it.server_pid
    assert alive(pid)
    for b in it:
        break
    del it, b
    ds.close()
    assert ended(pid)

    # The context manager closes an iteration too.
    with sluice.examples(pat, SPEC, batch_size=4, epochs=None) as ds:
        it = iter(ds)
        next(it)
        pid = it.server_pid
    assert not alive(pid) and not shm_files(pid)


def test_iteration_left_by_break_serves_the_next(tmp_path):
    """An epoch left by a break (steps per epoch over an endless data set)
    hands its server to the data set's next iteration, which starts over;
    the batch the loop kept stays as it was. An iteration still held
    elsewhere keeps its own server, and goes on."""
    pat, truth = make_examples(tmp_path)
    ds = sluice.examples(pat, SPEC, batch_size=4, readers=1, epochs=None)
    pids, firsts = set(), []
    for epoch in range(3):
        for i, b in enumerate(ds):
            if i == 0:
                firsts.append(b["label"].tolist())
            if i == 5:
                break
        pids.add(ds._last.server_pid)
        if epoch:
            np.testing.assert_array_equal(kept["label"], want)
        kept, want = b, b["label"].copy()
    assert len(pids) == 1 and firsts[0] == firsts[1] == firsts[2]
    held = iter(ds)
    first = next(held)["label"].tolist()
    other = iter(ds)
    assert other.server_pid != held.server_pid
    assert next(other)["label"].tolist() == first
    assert next(held)["label"].tolist() == [x + 4 for x in first]  # one reader: the files in order
    ds.close()


def test_new_data_set_reuses_the_spare_server(tmp_path, monkeypatch):
    """A data set dropped after its iteration leaves its server to the next
    data set the process iterates, whatever it reads: a loop that builds
    its data set each epoch, in the for statement or not, starts one
    server. Not across a change of the environment the server was started
    in, and not after close()."""
    pat, truth = make_examples(tmp_path, files=2, per_file=10)
    other = tmp_path / "other"
    other.mkdir()
    pat2, truth2 = make_examples(other, files=1, per_file=7)
    pids = []
    for _ in range(3):
        it = iter(sluice.examples(pat, SPEC, batch_size=8, readers=1))  # the data set is gone at once
        pids.append(it.server_pid)
        assert sorted(l for b in it for l in b["label"].tolist()) == sorted(truth)
    ds = sluice.examples(pat2, {"label": sluice.FixedLen([], "int64")}, batch_size=3, deterministic=True)
    it = iter(ds)
    pids.append(it.server_pid)
    assert [l for b in it for l in b["label"].tolist()] == sorted(truth2)  # another number of slots
    del ds, it
    ds = sluice.examples(pat, SPEC, batch_size=5, readers=1, copy=True)
    it = iter(ds)
    pids.append(it.server_pid)
    got = list(it)
    assert sorted(l for b in got for l in b["label"].tolist()) == sorted(truth)
    assert len(set(pids)) == 1 and alive(pids[0])
    del ds, it
    monkeypatch.setenv("SLUICE_TEST_SPARE", "1")
    it = iter(sluice.examples(pat, SPEC, batch_size=8, readers=1))
    assert it.server_pid != pids[0] and not alive(pids[0])
    pid = it.server_pid
    list(it)
    ds = sluice.examples(pat, SPEC, batch_size=8)
    it = iter(ds)
    assert it.server_pid == pid
    list(it)
    ds.close()
    assert not alive(pid) and not shm_files(pid)
    # A server whose slots take more than the spare's bound ends with its
    # data set.
    monkeypatch.setattr(sluice._core, "_SPARE_BYTES", 1)
    it = iter(sluice.examples(pat, SPEC, batch_size=8, readers=1))
    pid = it.server_pid
    list(it)
    del it
    assert ended(pid)


def numbered(path, first, n=24):
    """A file of n Examples: label first, first+1, ... and vec, 32 floats
    of the label."""
    recs = [tfrecords.example({"label": ("int64", [first + i]), "vec": ("float", [first + i] * 32)}) for i in range(n)]
    tfrecords.write(str(path), recs)
    return str(path)


@pytest.mark.parametrize("spec", [
    {"label": sluice.FixedLen([], "int64"), "vec": sluice.FixedLen([32], "float32")},  # parsed into a lent slot
    {"label": sluice.FixedLen([], "int64")},  # copied into the ring
], ids=["lent", "copied"])
def test_kept_batch_outlives_its_iteration(tmp_path, monkeypatch, spec):
    """A batch kept after its iteration has ended keeps its values while
    the server reads on for another iteration, here another data set's
    (the spare server): its slot gets new memory. Slots no array views
    any more keep theirs."""
    opened = []
    real = sluice._core._Session._open_slot

    def counted(self, path):
        opened.append(path)
        return real(self, path)
    monkeypatch.setattr(sluice._core._Session, "_open_slot", counted)
    it = iter(sluice.examples(numbered(tmp_path / "a.tfrecord", 0), spec, batch_size=5, readers=1))
    pid = it.server_pid
    for b in it:
        pass
    kept, want = b, {k: v.copy() for k, v in b.items()}
    del b, it
    opened.clear()
    ds = sluice.examples(numbered(tmp_path / "b.tfrecord", 100), spec, batch_size=5, readers=1)
    it = iter(ds)
    assert it.server_pid == pid
    assert [x for b in it for x in b["label"].tolist()] == list(range(100, 124))
    for k in want:
        np.testing.assert_array_equal(kept[k], want[k])
    # The same order of slots each pass: the last batch's again, with a
    # new file, and no other.
    assert len(opened) == 1
    del kept
    opened.clear()
    assert [x for b in ds for x in b["label"].tolist()] == list(range(100, 124))
    assert opened == []


def test_kept_batch_across_slot_counts(tmp_path):
    """A batch kept from a data set whose server then serves one of another
    number of slots (the spare server) keeps its values through that one's
    epochs, and the client lets go of the old slots' memory."""
    spec = {"label": sluice.FixedLen([], "int64"), "vec": sluice.FixedLen([32], "float32")}
    it = iter(sluice.examples(numbered(tmp_path / "a.tfrecord", 0, 200), spec, batch_size=5, readers=1, prefetch=30))
    pid = it.server_pid
    for b in it:
        pass
    kept, want = b, b["label"].copy()
    del b, it
    a_bytes = sluice._core._spare[0].mapped_bytes()  # the data set is gone: its server is the spare
    ds = sluice.examples(numbered(tmp_path / "b.tfrecord", 1000), spec, batch_size=5, readers=1)
    for _ in range(2):
        it = iter(ds)
        assert it.server_pid == pid
        assert [x for b in it for x in b["label"].tolist()] == list(range(1000, 1024))
        del it
    np.testing.assert_array_equal(kept["label"], want)
    # Five batches a pass map a few slots; forty, up to thirty ahead, many.
    assert ds._idle.mapped_bytes() < a_bytes / 2
    ds.close()


def test_bytes_read_as_numbers(tmp_path):
    """A FixedLen of a dtype an Example has no list for reads each record's
    bytes value as raw little-endian numbers, as MNIST's image_raw."""
    rng = np.random.default_rng(3)
    pix = rng.integers(0, 65536, (21, 2, 3)).astype("<u2")
    recs = [tfrecords.example({"px": ("bytes", [p.tobytes()]), "label": ("int64", [i])}) for i, p in enumerate(pix)]
    path = str(tmp_path / "px.tfrecord")
    tfrecords.write(path, recs)
    spec = {"px": sluice.FixedLen([2, 3], "uint16"), "label": sluice.FixedLen([], "int64")}
    got = list(sluice.examples(path, spec, batch_size=8, readers=1, copy=True))
    assert [b["px"].shape for b in got] == [(8, 2, 3), (8, 2, 3), (5, 2, 3)]
    np.testing.assert_array_equal(np.concatenate([b["px"] for b in got]), pix)
    # A value of the wrong size is bad data.
    with pytest.raises(sluice.DataError, match="12 bytes, want 24"):
        list(sluice.examples(path, {"px": sluice.FixedLen([12], "uint16")}, batch_size=8))


def test_schema_prints_a_spec_for_this_package(tmp_path, sluice_cli):
    """`sluice schema --output python` infers a spec this package reads."""
    pat, truth = make_examples(tmp_path)
    out = subprocess.run([sluice_cli, "schema", "-o", "python", pat], check=True, capture_output=True,
                         text=True).stdout
    ns = {"sluice": sluice}
    exec(out[out.index("sluice_spec = {"):], ns)
    spec = ns["sluice_spec"]
    assert spec["tokens"]["kind"] == "varlen" and spec["image"]["shape"] == [4]
    labels = []
    for b in sluice.examples(pat, spec, batch_size=16):
        labels += b["label"].ravel().tolist()
    assert sorted(labels) == sorted(truth)


def test_fixed_len_sequence(tmp_path):
    """FixedLenSequence: steps of a shape, padded to the batch's longest,
    with each record's count of steps (the last record has none: the
    feature is missing)."""
    recs = [tfrecords.example({"xy": ("float", [float(i)] * (2 * (i % 3))), "label": ("int64", [i])})
            for i in range(8)] + [tfrecords.example({"label": ("int64", [8])})]
    path = str(tmp_path / "seq.tfrecord")
    tfrecords.write(path, recs)
    spec = {"xy": sluice.FixedLenSequence([2], "float32"), "label": sluice.FixedLen([], "int64")}
    for copy in (True, False):
        got = [(b["xy"][0].copy(), b["xy"][1].copy())
               for b in sluice.examples(path, spec, batch_size=3, readers=1, copy=copy)]
        assert [v.shape for v, _ in got] == [(3, 2, 2), (3, 2, 2), (3, 1, 2)]
        assert [n.tolist() for _, n in got] == [[0, 1, 2], [0, 1, 2], [0, 1, 0]]
        np.testing.assert_array_equal(got[0][0][2], [[2, 2], [2, 2]])
        np.testing.assert_array_equal(got[0][0][1], [[1, 1], [0, 0]])  # padded with zeros
        assert not got[1][0][0].any()
        np.testing.assert_array_equal(got[2][0][:, 0], [[0, 0], [7, 7], [0, 0]])


def test_sparse_feature(tmp_path):
    """SparseFeature: the records' entries at their indices, sorted, as
    tf.SparseTensor holds them; bytes values too."""
    recs = []
    for i in range(6):
        idx = [[4 - j, j] for j in range(i % 3)]  # two dimensions, out of order
        recs.append(tfrecords.example({
            "r": ("int64", [p[0] for p in idx]), "c": ("int64", [p[1] for p in idx]),
            "v": ("float", [i + j / 10 for j in range(i % 3)]),
            "w": ("bytes", [b"w%d" % j * (j + 1) for j in range(i % 3)]),
        }))
    path = str(tmp_path / "sparse.tfrecord")
    tfrecords.write(path, recs)
    spec = {"s": sluice.SparseFeature(["r", "c"], "v", "float32", [5, 3]),
            "t": {"kind": "sparse", "dtype": "bytes", "index_keys": ["r", "c"], "value_key": "w", "size": [5, 3]}}
    got = list(sluice.examples(path, spec, batch_size=3, readers=1))
    assert len(got) == 2
    for k, b in enumerate(got):
        s, t = b["s"], b["t"]
        assert isinstance(s, sluice.SparseValue)
        np.testing.assert_array_equal(s.dense_shape, [3, 5, 3])
        want_idx, want_val, want_w = [], [], []
        for row in range(3):
            i = 3 * k + row
            # Sorted by index within the record: row 4-j descending j.
            for j in sorted(range(i % 3), key=lambda j: (4 - j, j)):
                want_idx.append([row, 4 - j, j])
                want_val.append(np.float32(i + j / 10))
                want_w.append(b"w%d" % j * (j + 1))
        np.testing.assert_array_equal(s.indices, np.array(want_idx, np.int64).reshape(-1, 3))
        np.testing.assert_array_equal(s.values, np.array(want_val, np.float32))
        np.testing.assert_array_equal(t.indices, s.indices)
        assert list(t.values) == want_w


def test_lone_varlen(tmp_path):
    """A data set of one VarLen feature: its arrays, the batch's first,
    still come with their lengths."""
    recs = [tfrecords.example({"v": ("int64", list(range(i)))}) for i in range(4)]
    path = str(tmp_path / "v.tfrecord")
    tfrecords.write(path, recs)
    (b,) = list(sluice.examples(path, {"v": sluice.VarLen("int64")}, batch_size=4, readers=1))
    values, lengths = b["v"]
    np.testing.assert_array_equal(lengths, [0, 1, 2, 3])
    np.testing.assert_array_equal(values[3], [0, 1, 2])


def test_next_iteration_reuses_the_server(tmp_path):
    pat, truth = make_examples(tmp_path, files=2, per_file=10)
    ds = sluice.examples(pat, SPEC, batch_size=8, readers=1)
    pids, passes = set(), []
    for _ in range(3):
        it = iter(ds)
        pids.add(it.server_pid)
        passes.append([l for b in it for l in b["label"].tolist()])
    assert len(pids) == 1 and passes == [sorted(truth)] * 3
    # A broken-off iteration ends its server; the next starts another.
    it = iter(ds)
    next(it)
    it.close()
    assert not alive(it.server_pid)
    it = iter(ds)
    assert it.server_pid not in pids
    assert sum(len(b["label"]) for b in it) == 20
    pid = it.server_pid
    ds.close()
    assert not alive(pid) and not shm_files(pid)


def test_compression_is_spelt_alike_everywhere(tmp_path):
    # NONE, GZIP, ZLIB, ZSTD in any case; "auto" where the reader detects.
    import gzip as gz
    path = tmp_path / "f.bin.gz"
    path.write_bytes(gz.compress(bytes(range(8)) * 3))
    for comp in ("GZIP", "gzip", "Gzip"):
        (b,) = sluice.fixed_length(str(path), 8, [sluice.Field("x", 0, 8, "uint8")], 3, compression=comp, copy=True)
        assert b["x"].tolist() == [list(range(8))] * 3
    with pytest.raises(sluice.InvalidArgumentError, match=r"fixed_length: compression='auto': fixed_length cannot detect"):
        sluice.fixed_length(str(path), 8, [sluice.Field("x", 0, 8, "uint8")], 3, compression="auto")
    with pytest.raises(sluice.InvalidArgumentError, match=r"fixed_length: compression='lz4': want NONE, GZIP, ZLIB or ZSTD \(in any case\)$"):
        sluice.fixed_length(str(path), 8, [sluice.Field("x", 0, 8, "uint8")], 3, compression="lz4")
    for f in (sluice.examples, sluice.records):
        args = ({"x": sluice.FixedLen([])},) if f is sluice.examples else ()
        for comp in ("auto", "AUTO", "gzip", "none", "ZSTD", None, ""):
            f(str(path), *args, 3, compression=comp)  # accepted (each file's is detected)
        with pytest.raises(sluice.InvalidArgumentError, match=rf"{f.__name__}: compression='lz4': want NONE, GZIP, ZLIB or ZSTD \(in any case\), or auto"):
            f(str(path), *args, 3, compression="lz4")


def test_bad_specs_and_options_are_value_errors(tmp_path):
    # Each once a plain SluiceError (a RuntimeError), which `except
    # ValueError` missed (audit 18, bug 5), or read as another value.
    pat, _ = make_examples(tmp_path, files=1, per_file=3)
    (tmp_path / "a.csv").write_text("1,2\n3,4\n")
    a_csv = str(tmp_path / "a.csv")
    cases = {
        "a negative shape": (lambda: sluice.examples(pat, {"x": sluice.FixedLen([-1], "float32")}, 2), "invalid feature spec"),
        "a default of another shape": (lambda: sluice.examples(pat, {"x": sluice.FixedLen([2], "int64", default=[1, 2, 3])}, 2),
                                       "invalid feature spec"),
        "a negative sparse size": (lambda: sluice.examples(pat, {"s": sluice.SparseFeature("v", "x", "float32", [-3])}, 2),
                                   "invalid feature spec"),
        "a misspelt feature key": (lambda: sluice.examples(pat, {"id": {"dtype": "int64", "shpae": [3]}}, 2),
                                   'feature "id": json: unknown field "shpae"'),
        "a misspelt column key": (lambda: sluice.csv(a_csv, [{"name": "a", "dtype": "int64", "requird": True}], 2),
                                  'column "a": json: unknown field "requird"'),
        "a column without dtype": (lambda: sluice.csv(a_csv, [{"name": "a"}], 2), "column 'a' has no dtype"),
        "a delim of two": (lambda: sluice.csv(a_csv, [("a", "int64"), ("b", "int64")], 2, delim=";;"), "delim=';;'"),
        # Not read as the default comma (bug 6): TensorFlow refuses it.
        "an empty delim": (lambda: sluice.csv(a_csv, [("a", "int64"), ("b", "int64")], 2, delim=""), "delim=''"),
        "a delim of two bytes": (lambda: sluice.csv(a_csv, [("a", "int64"), ("b", "int64")], 2, delim="é"), "delim='é'"),
        # Refused at the open, as bad arguments, not reported as a
        # malformed reply from the server (audit 56).
        "no columns": (lambda: sluice.csv(a_csv, [], 2), "csv: no features"),
        "no fields": (lambda: sluice.fixed_length(a_csv, 4, [], 2), "fixed: no features"),
        "a batch size past int64": (lambda: sluice.examples(pat, SPEC, 2**63), r"batch_size=9223372036854775808: out of range"),
        "epochs past int64": (lambda: sluice.examples(pat, SPEC, 2, epochs=2**64), "epochs=.*: out of range"),
        "a shard of one number": (lambda: sluice.records(pat, 1, shard=(0,)), r"shard=\(0,\): want \(index, count\)"),
        "files not names": (lambda: sluice.records(5, 1), "files=5: want a file name"),
        "a ragged default": (lambda: sluice.examples(pat, {"x": sluice.FixedLen([2, 2], "float32", default=[[1.0, 2.0], [3.0]])}, 2),
                             "ragged"),
    }
    for name, (f, match) in cases.items():
        with pytest.raises(sluice.InvalidArgumentError, match=match):
            for _ in f():
                pass


@pytest.mark.parametrize("option,value", [
    ("epochs", 1.7), ("epochs", True), ("shuffle", 2.5), ("shuffle", True), ("readers", 1.5), ("readers", "2"),
    ("seed", 4.2), ("prefetch", 2.5), ("shard", (0.5, 2)),
])
def test_int_options_are_not_truncated(tmp_path, option, value):
    pat, _ = make_examples(tmp_path, files=1, per_file=3)
    with pytest.raises(sluice.InvalidArgumentError, match=rf"^{option}(\[0\])?=.*: want an int$"):
        sluice.examples(pat, SPEC, 2, **{option: value})


@pytest.mark.parametrize("build,name", [
    (lambda: sluice.FixedLen([1.7]), "shape"),
    (lambda: sluice.FixedLen([True]), "shape"),
    (lambda: sluice.FixedLenSequence([2.0]), "shape"),
    (lambda: sluice.SparseFeature("i", "v", "float32", [3.5]), "size"),
    (lambda: sluice.Image(224.9, 224, 3), "height"),
    (lambda: sluice.Image(224, 224, 3, max_scans=1.5), "max_scans"),
    (lambda: sluice.Field("px", 1.9, 4, "uint8"), "offset"),
    (lambda: sluice.Field("px", True, 4, "uint8"), "offset"),
    (lambda: sluice.Field("px", 0, 4.0, "uint8"), "size"),
    (lambda: sluice.Field("px", 0, 4, "uint8", shape=[2, 2.5]), "shape"),
    (lambda: sluice.Field("px", 0, 4, "uint8", shape=[2, 2], transpose=[1.0, 0]), "transpose"),
    (lambda: sluice.stats("x.tfrecord", top=2.5), "top"),
    (lambda: sluice.stats("x.tfrecord", limit=True), "limit"),
])
def test_int_spec_arguments_are_not_truncated(build, name):
    # Spec builders take ints as the options do: 1.9 bytes in is refused,
    # not read from byte 1 (audit 50).
    with pytest.raises(sluice.InvalidArgumentError, match=rf"^{name}=.*: want an int$"):
        build()


def test_dict_spec_shape_is_not_truncated(tmp_path):
    pat, _ = make_examples(tmp_path, files=1, per_file=3)
    with pytest.raises(sluice.InvalidArgumentError, match=r"feature 'x': shape=1.5: want an int"):
        sluice.examples(pat, {"x": {"shape": [1.5], "dtype": "float32"}}, 2)


def test_prefetch_bound_is_named_as_prefetch(tmp_path):
    pat, _ = make_examples(tmp_path, files=1, per_file=3)
    for prefetch, det in ((64, False), (100, False), (16, True)):
        with pytest.raises(sluice.InvalidArgumentError, match=rf"prefetch {prefetch}: .*at most 63 \(15 with deterministic"):
            sluice.examples(pat, SPEC, 2, prefetch=prefetch, deterministic=det)
    list(sluice.examples(pat, SPEC, 2, prefetch=63))
    list(sluice.examples(pat, SPEC, 2, prefetch=15, deterministic=True))


def test_default_of_several_dimensions(tmp_path):
    # A default shaped as its feature, a NumPy array or nested lists, as
    # TensorFlow takes one; it was refused as "not a number" (audit 56).
    pat, _ = make_examples(tmp_path, files=1, per_file=3)
    for default in (np.arange(4, dtype=np.float32).reshape(2, 2), [[0.0, 1.0], [2.0, 3.0]]):
        spec = {"label": sluice.FixedLen([], "int64"), "absent": sluice.FixedLen([2, 2], "float32", default=default)}
        b = next(iter(sluice.examples(pat, spec, 3)))
        assert b["absent"].shape == (3, 2, 2)
        assert (b["absent"] == np.arange(4, dtype=np.float32).reshape(2, 2)).all()


def test_defaults_json_cannot_hold(tmp_path):
    """Defaults JSON has no spelling for, as TensorFlow takes them: NaN and
    the infinities for floats, and bytes that are not UTF-8. They made
    the open a protocol error, or a bare UnicodeDecodeError (audit 35)."""
    pat, _ = make_examples(tmp_path, files=1, per_file=3)
    spec = {"label": sluice.FixedLen([], "int64"),
            "nan": sluice.FixedLen([], "float32", default=float("nan")),
            "infs": sluice.FixedLen([3], "float32", default=[np.inf, -np.inf, 1.5]),
            "raw": sluice.FixedLen([], bytes, default=b"\xff\x00"),
            "np": sluice.FixedLen([], "float32", default=np.float32("-inf")),
            # A long double's item() is itself, which JSON could not take.
            "long": sluice.FixedLen([2], "float32", default=np.array([0.25, -np.inf], np.longdouble))}
    (b,) = list(sluice.examples(pat, spec, batch_size=3))
    assert np.isnan(b["nan"]).all() and b["nan"].dtype == np.float32
    assert b["infs"].tolist() == [[np.inf, -np.inf, 1.5]] * 3
    assert b["raw"].tolist() == [b"\xff\x00"] * 3
    assert b["np"].tolist() == [-np.inf] * 3
    assert b["long"].tolist() == [[0.25, -np.inf]] * 3
    a_csv = tmp_path / "a.csv"
    a_csv.write_text("1,,\n2,3,x\n")
    (b,) = list(sluice.csv(str(a_csv), [("i", "int64"), ("x", "float32", float("nan")), ("s", bytes, b"\xfe")],
                           batch_size=2))
    assert np.isnan(b["x"][0]) and b["x"][1] == 3 and b["s"].tolist() == [b"\xfe", b"x"]


def test_file_name_not_utf8(tmp_path):
    """A name Python holds with surrogate escapes cannot reach the server,
    whose requests are UTF-8 JSON: refused, saying so, where the server
    opened another name (audit 35); a pattern matching the file reads it."""
    name = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"n\xffame.tfrecord"))
    try:
        tfrecords.write(name, [tfrecords.example({"label": ("int64", [7])})])
    except OSError as e:  # a file system that takes only UTF-8 names
        pytest.skip(str(e))
    with pytest.raises(sluice.InvalidArgumentError, match="is not UTF-8"):
        sluice.examples(name, {"label": sluice.FixedLen([], "int64")}, 1)
    with pytest.raises(sluice.InvalidArgumentError, match="want a str"):
        sluice.examples(os.fsencode(name), {"label": sluice.FixedLen([], "int64")}, 1)
    (b,) = list(sluice.examples(str(tmp_path / "n*"), {"label": sluice.FixedLen([], "int64")}, 1))
    assert b["label"].tolist() == [7]
