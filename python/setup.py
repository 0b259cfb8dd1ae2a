"""Builds the Go server into the package.

Everything but the build step is in pyproject.toml. build_py runs
`go build` of cmd/sluice-serve (from the Go module this directory is in)
into sluice/_bin (the server, and the `sluice` console script's command
line under that name), and the wheel is tagged for this platform, since it
carries a native binary but no CPython extension (py3-none-PLATFORM).
"""

import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = os.path.dirname(HERE)  # the Go module's root


class BuildGo(build_py):
    def run(self):
        if sys.platform == "win32":
            # The client maps POSIX shared memory that the server makes
            # (internal/pyserve): stopped here, not at the first batch.
            raise SystemExit(
                "sluice: the Python package runs on Linux and macOS, where sluice-serve hands batches over "
                "in shared memory; on Windows, install it in WSL (the sluice command itself builds on "
                "Windows: go install ./cmd/sluice)")
        # The build folder is reused from one build to the next: a module
        # deleted from the source since would still be packaged (audit 109).
        shutil.rmtree(os.path.join(self.build_lib, "sluice"), ignore_errors=True)
        super().run()
        out = os.path.abspath(os.path.join(self.build_lib, "sluice", "_bin", "sluice-serve"))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        prebuilt = os.environ.get("SLUICE_SERVE_BINARY")
        if prebuilt:
            shutil.copy2(prebuilt, out)
            return
        if not os.path.exists(os.path.join(MODULE, "go.mod")):
            raise SystemExit(
                "sluice: building needs the Go source beside python/ (a clone of the "
                "repository), or SLUICE_SERVE_BINARY naming a built sluice-serve")
        go = shutil.which("go")
        if go is None:
            raise SystemExit("sluice: building needs Go 1.26 or later on PATH (https://go.dev/dl/)")
        env = dict(os.environ, CGO_ENABLED="0")
        # The binary is also the package's `sluice` command, whose
        # --version is the package's.
        release = "-X github.com/sluiceml/sluice/internal/cli.release=" + self.distribution.get_version()
        cmd = [go, "build", "-trimpath", "-ldflags=-s -w " + release, "-o", out]
        # SLUICE_GO_TAGS=objectstore builds a server that reads s3://, gs://
        # and azblob:// names (56 MB instead of 18, stripped).
        if os.environ.get("SLUICE_GO_TAGS"):
            cmd += ["-tags", os.environ["SLUICE_GO_TAGS"]]
        subprocess.check_call(cmd + ["./cmd/sluice-serve"], cwd=MODULE, env=env)


class NoSdist(sdist):
    def run(self):
        # A wheel is built from the clone, whose Go module is the parent of
        # this folder; an sdist would carry python/ alone, and building from
        # it would fail for want of the Go source.
        raise SystemExit(
            "sluice: no source distribution: the package is built from a clone, with Go "
            "(pip install ./python, or pip wheel ./python or python -m build --wheel ./python for a wheel)")


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildGo, "bdist_wheel": PlatformWheel, "sdist": NoSdist}, distclass=BinaryDistribution)
