"""The public API is annotated, and the annotations resolve (PEP 561: the
package ships py.typed, so type checkers read them)."""
import inspect
import os
import typing

import pytest

import sluice
import sluice.jax


def public_callables():
    classes = []
    for name in sluice.__all__:
        obj = getattr(sluice, name)
        if inspect.isfunction(obj):
            yield f"sluice.{name}", obj
        elif inspect.isclass(obj):
            classes.append((f"sluice.{name}", obj))
    # What iterating a data set returns.
    classes.append(("iter(sluice.Dataset)", typing.get_type_hints(sluice.Dataset.__iter__)["return"]))
    for name, c in classes:
        for attr, member in vars(c).items():
            if inspect.isfunction(member) and (not attr.startswith("_") or attr in ("__init__", "__iter__", "__next__")):
                yield f"{name}.{attr}", member
    yield "sluice.jax.device_put", sluice.jax.device_put
    yield "sluice.jax.batches", sluice.jax.batches


def test_py_typed_is_shipped():
    assert os.path.isfile(os.path.join(os.path.dirname(sluice.__file__), "py.typed"))


@pytest.mark.parametrize("name,f", list(public_callables()), ids=lambda v: v if isinstance(v, str) else "")
def test_annotated(name, f):
    hints = typing.get_type_hints(f)  # raises if one does not resolve
    sig = inspect.signature(f)
    missing = [p for p in sig.parameters if p != "self" and p not in hints]
    assert not missing, f"{name}: parameters without annotations: {missing}"
    if f.__name__ != "__init__":
        assert "return" in hints, f"{name}: no return annotation"


def test_iteration_types():
    # What iterating a data set gives is an iterator of batches, for a
    # type checker as at run time.
    assert typing.get_type_hints(sluice.Dataset.__iter__)["return"].__name__ == "_Iterator"
    it_class = typing.get_type_hints(sluice.Dataset.__iter__)["return"]
    assert issubclass(it_class, typing.Iterator)
    assert typing.get_type_hints(it_class.__next__)["return"] == sluice.Batch


def test_mypy_accepts_package_and_example(tmp_path):
    # The annotations as a type checker reads them: the package itself,
    # and the example a user starts from. An installed package is found
    # through its py.typed, the source tree (PYTHONPATH=src) through
    # MYPYPATH.
    pytest.importorskip("mypy")
    import site
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(sluice.__file__)))
    env = dict(os.environ)
    if root not in map(os.path.abspath, site.getsitepackages() + [site.getusersitepackages()]):
        env["MYPYPATH"] = root
    example = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "examples", "digits.py"))
    for target in (["-p", "sluice"], [example]):
        r = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports", "--cache-dir", str(tmp_path)] + target,
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
