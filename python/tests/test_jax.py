"""sluice.jax: batches onto JAX devices, jax imported only when used."""

import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import sluice
from test_read import SPEC, make_examples


def test_import_does_not_import_jax():
    # In a process of its own: this one may have imported jax already.
    code = textwrap.dedent("""
        import sys
        import sluice, sluice.jax
        assert "jax" not in sys.modules, "import sluice.jax imported jax"
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


class FakeArray:
    def __init__(self, a, device):
        self.host = a
        self.device = device


def fake_jax(platform):
    """A jax module with what sluice.jax uses, recording what it is given."""
    jax = types.ModuleType("jax")
    jax.calls = []
    dev = types.SimpleNamespace(platform=platform)
    jax.devices = lambda: [dev]

    def device_put(tree, device=None):
        jax.calls.append(("device_put", tree, device))
        return {k: FakeArray(v, device) for k, v in tree.items()}

    def block_until_ready(tree):
        jax.calls.append(("block_until_ready", tree))
        return tree

    jax.device_put = device_put
    jax.block_until_ready = block_until_ready
    return jax


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_batches_with_a_fake_jax(tmp_path, monkeypatch, platform):
    import sluice.jax

    jax = fake_jax(platform)
    monkeypatch.setitem(sys.modules, "jax", jax)
    pat, truth = make_examples(tmp_path, files=1, per_file=10)
    ds = sluice.examples(pat, SPEC, batch_size=4, readers=1)
    seen = []
    for b in sluice.jax.batches(ds):
        # Numbers went through jax.device_put; bytes stay NumPy.
        assert isinstance(b["label"], FakeArray) and isinstance(b["image"], FakeArray)
        values, lengths = b["tokens"]
        assert isinstance(values, FakeArray) and isinstance(lengths, FakeArray)
        assert isinstance(b["name"], np.ndarray) and b["name"].dtype == object
        # On the CPU jax may keep the host memory: it must be a copy, not
        # a view of the slot the next batch overwrites.
        assert (b["label"].host.base is None) == (platform == "cpu")
        seen.append(b["label"].host.copy())
        assert jax.calls[-1][0] == "block_until_ready", "the transfer was not awaited"
    assert sorted(np.concatenate(seen).tolist()) == sorted(truth)


def test_without_jax(monkeypatch):
    import sluice.jax

    monkeypatch.setitem(sys.modules, "jax", None)  # import jax fails
    with pytest.raises(ImportError, match="pip install jax"):
        sluice.jax.device_put({"x": np.zeros(2)})


REAL = textwrap.dedent("""
    import sys
    import numpy as np
    import jax
    import sluice, sluice.jax
    from test_read import SPEC, make_examples
    pat, truth = make_examples(sys.argv[1], files=2, per_file=10)
    ds = sluice.examples(pat, SPEC, batch_size=4, readers=1)
    kept = []
    for b in sluice.jax.batches(ds):
        assert isinstance(b["image"], jax.Array) and b["image"].shape[1:] == (2, 2)
        kept.append(b)  # kept past the next batch: must not change
    labels = []
    for b in kept:
        # jax on the CPU keeps using float32 host memory it is given (it
        # converts int64 to int32, a copy): the image shows an overwrite.
        label = np.asarray(b["label"])
        np.testing.assert_array_equal(np.asarray(b["image"])[:, 0, 0], label.astype(np.float32))
        labels += label.tolist()
    assert sorted(labels) == sorted(truth)
    print("ok")
""")


def test_real_jax(tmp_path):
    """With jax itself, in a process of its own: jax's threads would make
    the forks of later tests unsafe."""
    pytest.importorskip("jax")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(__file__), env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-c", REAL, str(tmp_path)], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "ok", out.stderr


def test_device_none_is_jax_default_device(monkeypatch):
    """With device=None the copy follows JAX's default device (where
    device_put puts the arrays), not jax.devices()[0]: a GPU first with a
    CPU default would have aliased shared memory the next batch
    overwrites."""
    import sluice.jax

    jax = fake_jax("gpu")
    monkeypatch.setitem(sys.modules, "jax", jax)
    batch = {"x": np.arange(4.0)[::1]}
    view = batch["x"].view()
    for default, copied in [(None, False), (types.SimpleNamespace(platform="cpu"), True), ("cpu", True),
                            (types.SimpleNamespace(platform="gpu"), False)]:
        jax.config = types.SimpleNamespace(jax_default_device=default)
        out = sluice.jax.device_put({"x": view})
        assert (out["x"].host is not view) == copied, default
        assert (out["x"].host.base is None) == copied, default


def test_a_sharding_goes_to_batch_first_arrays_only(monkeypatch):
    """A Sharding of the batch dimension fits a feature's arrays and a
    pair's, not a SparseValue's [nnz, rank] indices: those go replicated
    on a NamedSharding's mesh (another Sharding's, to the default
    device)."""
    import sluice.jax

    jax = fake_jax("gpu")
    monkeypatch.setitem(sys.modules, "jax", jax)

    class NamedSharding:
        def __init__(self, mesh, spec):
            self.mesh, self.spec = mesh, spec
            self.device_set = [types.SimpleNamespace(platform="gpu")]

    jax.sharding = types.SimpleNamespace(NamedSharding=NamedSharding, PartitionSpec=lambda *a: ("P",) + a)
    mesh = object()
    batched = NamedSharding(mesh, ("P", "batch"))
    sv = sluice.SparseValue(np.zeros((5, 2), np.int64), np.ones(5, np.float32), np.array([4, 3], np.int64))
    batch = {"x": np.zeros((4, 3), np.float32), "v": (np.zeros((4, 2), np.int64), np.array([1, 2, 0, 2])), "s": sv,
             "b": np.array([b"a"] * 4, dtype=object)}
    out = sluice.jax.device_put(batch, batched)
    assert out["x"].device is batched
    assert out["v"][0].device is batched and out["v"][1].device is batched
    assert isinstance(out["s"], sluice.SparseValue)
    for a in out["s"]:
        assert isinstance(a.device, NamedSharding) and a.device.mesh is mesh and a.device.spec == ("P",)
    assert out["b"] is batch["b"]

    other = types.SimpleNamespace(device_set=[types.SimpleNamespace(platform="gpu")])  # no mesh
    out = sluice.jax.device_put(batch, other)
    assert out["x"].device is other and all(a.device is None for a in out["s"])
    dev = types.SimpleNamespace(platform="gpu")
    out = sluice.jax.device_put(batch, dev)  # a Device: everything there
    assert out["x"].device is dev and all(a.device is dev for a in out["s"])


BIG = textwrap.dedent("""
    import sys
    import numpy as np
    import jax
    if sys.argv[2] == "x64":
        jax.config.update("jax_enable_x64", True)
    import sluice, sluice.jax
    from tfrecords import example, write
    path = sys.argv[1] + "/big.tfrecord"
    write(path, [example({"id": ("int64", [2**40 + i]), "small": ("int64", [i])}) for i in range(8)])
    ds = sluice.examples(path, {"id": sluice.FixedLen([], "int64"), "small": sluice.FixedLen([], "int64")},
                         batch_size=4)
    try:
        ids = [int(x) for b in sluice.jax.batches(ds) for x in np.asarray(b["id"])]
    except sluice.InvalidArgumentError as e:
        print("refused:", e)
    else:
        print("ids:", ids == [2**40 + i for i in range(8)])
    small = sluice.examples(path, {"small": sluice.FixedLen([], "int64")}, batch_size=4)
    print("small:", [int(x) for b in sluice.jax.batches(small) for x in np.asarray(b["small"])] == list(range(8)))
""")


@pytest.mark.parametrize("x64", [False, True])
def test_real_jax_int64_that_int32_cannot_hold(tmp_path, x64):
    """JAX keeps int64 in 32 bits unless jax_enable_x64 is on: ids of
    2**40 became 0, 1, 2 ... without a word (audit 92). They are refused,
    naming the feature; values that fit, and any with x64 on, go whole."""
    pytest.importorskip("jax")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(__file__), env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-c", BIG, str(tmp_path), "x64" if x64 else "x32"],
                         capture_output=True, text=True, env=env)
    lines = out.stdout.strip().splitlines()
    assert len(lines) == 2, out.stderr
    if x64:
        assert lines[0] == "ids: True", out.stderr
    else:
        assert lines[0].startswith("refused: feature 'id': int64 values from 1099511627776") and "jax_enable_x64" in lines[0]
    assert lines[1] == "small: True"
