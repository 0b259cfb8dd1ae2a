"""SequenceExamples: context features and feature lists, padded per batch
with each record's count of steps."""

import os
import subprocess

import numpy as np
import pytest

import sluice
import tfrecords


def make_sequences(dir, files=3, per_file=30, gzip=True):
    """Files of SequenceExamples, the second gzipped: context id (int64,
    counting up) and tags (id%3 bytes); feature lists frames (id%5 steps
    of 2 floats, missing when id%7 == 6), words (id%4 steps of (id+step)%3
    int64s) and names (id%3 steps of one bytes value). Returns the pattern
    and each record's context and lists by id."""
    truth = {}
    for i in range(files):
        recs = []
        for _ in range(per_file):
            n = len(truth)
            ctx = {"id": ("int64", [n]), "tags": ("bytes", [b"t%d.%d" % (n, j) for j in range(n % 3)])}
            lists = {
                "frames": [("float", [n + j / 10, -j]) for j in range(n % 5)],
                "words": [("int64", [100 * n + 10 * j + k for k in range((n + j) % 3)]) for j in range(n % 4)],
                "names": [("bytes", [b"w%d" % j * (j % 2)]) for j in range(n % 3)],
            }
            if n % 7 == 6:
                del lists["frames"]
            truth[n] = (ctx, lists)
            recs.append(tfrecords.sequence_example(ctx, lists))
        tfrecords.write(os.path.join(dir, f"seq-{i}.tfrecord"), recs, "gzip" if gzip and i == 1 else None)
    return os.path.join(dir, "seq-*.tfrecord"), truth


CONTEXT = {"id": sluice.FixedLen([], "int64"), "tags": sluice.VarLen(bytes)}
SEQUENCE = {
    "frames": sluice.FixedLenSequence([2], "float32", default=-1.0),
    "words": sluice.VarLen("int64"),
    "names": sluice.FixedLenSequence([], bytes, allow_missing=False),
}


def check_batch(b, truth):
    assert sorted(b) == ["frames", "id", "names", "tags", "words"]
    ids = b["id"].tolist()
    n = len(ids)
    tags, tag_lengths = b["tags"]
    frames, frame_steps = b["frames"]
    names, name_steps = b["names"]
    assert frames.dtype == np.float32 and frame_steps.dtype == np.int64
    # Padded to the batch's longest record, not to the data set's.
    assert frames.shape == (n, max(frame_steps), 2)
    assert names.shape == (n, max(name_steps)) and names.dtype == object
    assert tags.shape == (n, max(tag_lengths))
    words = b["words"]
    assert isinstance(words, sluice.SparseValue) and words.indices.shape[1] == 3
    want_words = {}
    for i, id in enumerate(ids):
        ctx, lists = truth[id]
        assert tag_lengths[i] == len(ctx["tags"][1])
        assert tags[i, :tag_lengths[i]].tolist() == ctx["tags"][1]
        assert all(t == b"" for t in tags[i, tag_lengths[i]:])
        steps = [v for _, v in lists.get("frames", [])]
        assert frame_steps[i] == len(steps)
        np.testing.assert_array_equal(frames[i, :len(steps)], np.array(steps, np.float32).reshape(-1, 2))
        assert (frames[i, len(steps):] == -1).all()  # the default pads
        assert name_steps[i] == len(lists["names"])
        assert names[i, :name_steps[i]].tolist() == [v[0] for _, v in lists["names"]]
        assert all(x == b"" for x in names[i, name_steps[i]:])
        for j, (_, vals) in enumerate(lists["words"]):
            for k, v in enumerate(vals):
                want_words[(i, j, k)] = v
    got_words = {tuple(ix): v for ix, v in zip(words.indices.tolist(), words.values.tolist())}
    assert got_words == want_words
    steps = max((len(truth[id][1]["words"]) for id in ids), default=0)
    count = max((len(v) for id in ids for _, v in truth[id][1]["words"]), default=0)
    assert words.dense_shape.tolist() == [n, steps, count]
    return ids


def test_sequence_examples_values(tmp_path):
    pat, truth = make_sequences(tmp_path)
    ids = []
    batches = 0
    for b in sluice.sequence_examples(pat, CONTEXT, SEQUENCE, batch_size=8, readers=1):
        ids += check_batch(b, truth)
        batches += 1
    assert ids == list(range(90)) and batches == 12


def test_sequence_examples_views(tmp_path):
    pat, truth = make_sequences(tmp_path, files=1)
    ds = sluice.sequence_examples(pat, context=CONTEXT, sequence=SEQUENCE, batch_size=10)
    b = next(iter(ds))
    frames, steps = b["frames"]
    assert not frames.flags.owndata and not steps.flags.owndata  # views of shared memory
    kept = [b["frames"] for b in ds.copies()]
    assert all(f.flags.owndata and s.flags.owndata for f, s in kept)
    ds.close()


def test_sequence_examples_deterministic(tmp_path):
    """Shuffled, deterministic: every record once per epoch, in the same
    order on every run, and resumable."""
    pat, truth = make_sequences(tmp_path)
    ds = sluice.sequence_examples(pat, CONTEXT, SEQUENCE, batch_size=7, epochs=2, shuffle=25, seed=3,
                                  deterministic=True, copy=True)
    runs = []
    for _ in range(2):
        ids = []
        for b in ds:
            ids += check_batch(b, truth)
        runs.append(ids)
    assert runs[0] == runs[1]
    assert sorted(runs[0]) == sorted(list(range(90)) * 2) and runs[0][:90] != list(range(90))
    it = iter(ds)
    first = [next(it)["id"].tolist() for _ in range(5)]
    state = it.state_dict()
    it.close()
    ds.load_state_dict(state)
    rest = [b["id"].tolist() for b in ds]
    assert sum(first + rest, []) == runs[0]
    ds.close()


def test_sequence_examples_global_shuffle(tmp_path, monkeypatch):
    """Globally shuffled: every record of every file once, in an order of
    all of them."""
    monkeypatch.setenv("SLUICE_INDEX_DIR", str(tmp_path / "index"))
    pat, truth = make_sequences(tmp_path, gzip=False)
    ids = []
    for b in sluice.sequence_examples(pat, CONTEXT, SEQUENCE, batch_size=8, global_shuffle=True, seed=5, copy=True):
        ids += check_batch(b, truth)
    assert sorted(ids) == list(range(90)) and ids != list(range(90))


def test_missing_feature_list_names_the_record(tmp_path):
    recs = [tfrecords.sequence_example({"id": ("int64", [i])}, {"names": [("bytes", [b"x"])]} if i != 11 else {})
            for i in range(20)]
    path = str(tmp_path / "missing.tfrecord")
    offsets = tfrecords.write(path, recs)
    with pytest.raises(sluice.DataError) as e:
        for _ in sluice.sequence_examples(path, CONTEXT, {"names": SEQUENCE["names"]}, batch_size=5, readers=1):
            pass
    assert e.value.file == path and e.value.offset == offsets[11] and e.value.record == 1
    assert "Feature list 'names' is required" in str(e.value)
    # Allowed to be missing: no steps.
    ds = sluice.sequence_examples(path, {}, {"names": sluice.FixedLenSequence([], bytes)}, batch_size=20)
    (b,) = list(ds)
    assert b["names"][1].tolist() == [1] * 11 + [0] + [1] * 8


def test_sequence_examples_errors(tmp_path):
    pat, _ = make_sequences(tmp_path, files=1, per_file=3)
    with pytest.raises(sluice.InvalidArgumentError, match="both in context and in sequence"):
        sluice.sequence_examples(pat, {"id": CONTEXT["id"]}, {"id": SEQUENCE["words"]}, batch_size=2)
    with pytest.raises(sluice.InvalidArgumentError, match="not both empty"):
        sluice.sequence_examples(pat, {}, None, batch_size=2)
    with pytest.raises(sluice.InvalidArgumentError, match="context feature"):
        iter(sluice.sequence_examples(pat, {"f": SEQUENCE["frames"]}, SEQUENCE, batch_size=2)).__next__()
    with pytest.raises(sluice.InvalidArgumentError, match="feature list"):
        iter(sluice.sequence_examples(pat, CONTEXT, {"x": CONTEXT["id"]}, batch_size=2)).__next__()


def test_schema_prints_a_sequence_spec(tmp_path, sluice_cli):
    """`sluice schema --output python` infers the context and feature list
    specs of SequenceExamples that this package reads."""
    pat, truth = make_sequences(tmp_path)
    out = subprocess.run([sluice_cli, "schema", "-o", "python", pat], check=True, capture_output=True,
                         text=True).stdout
    ns = {"sluice": sluice}
    exec(out[out.index("sluice_context = {"):], ns)
    context, sequence = ns["sluice_context"], ns["sluice_sequence"]
    assert sequence["frames"]["kind"] == "sequence" and sequence["frames"]["shape"] == [2]
    assert sequence["words"]["kind"] == "varlen"
    ids = []
    for b in sluice.sequence_examples(pat, context, sequence, batch_size=16):
        ids += b["id"].tolist()
        frames, steps = b["frames"]
        assert frames.shape[:2] == (len(b["id"]), max(steps))
    assert sorted(ids) == sorted(truth)
