import glob
import os
import shutil
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _go_build(pkg, out):
    subprocess.check_call(["go", "build", "-o", out, pkg], cwd=REPO)
    return out


@pytest.fixture(scope="session", autouse=True)
def server_binary(tmp_path_factory):
    """The sluice-serve the package carries; built from the clone when the
    package was not installed with one (SLUICE_SERVE names it)."""
    import sluice

    here = os.path.join(os.path.dirname(sluice.__file__), "_bin", "sluice-serve")
    if os.environ.get("SLUICE_SERVE") or os.path.exists(here):
        return os.environ.get("SLUICE_SERVE") or here
    if shutil.which("go") is None:
        pytest.exit("sluice is installed without sluice-serve, and there is no Go to build it")
    exe = _go_build("./cmd/sluice-serve", str(tmp_path_factory.mktemp("bin") / "sluice-serve"))
    os.environ["SLUICE_SERVE"] = exe
    return exe


@pytest.fixture(scope="session")
def sluice_cli(tmp_path_factory):
    """The sluice command, to read the same files on the Go side."""
    if shutil.which("go") is None or not os.path.exists(os.path.join(REPO, "go.mod")):
        pytest.skip("needs Go and the clone to build the sluice command")
    return _go_build("./cmd/sluice", str(tmp_path_factory.mktemp("cli") / "sluice"))


def shm_dir():
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else "/tmp"


def shm_files(server_pid):
    return glob.glob(os.path.join(shm_dir(), f"sluice-{server_pid}-*"))


def alive(pid):
    """Whether pid is a live process (a zombie is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def ended(pid, within=5.0):
    """Whether server pid is gone, with its shared-memory files, within
    the given seconds: a server whose session was dropped, not closed,
    ends by itself, unwaited for (_Session.release)."""
    deadline = time.monotonic() + within
    while (alive(pid) or shm_files(pid)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid) and not shm_files(pid)


@pytest.fixture(scope="session")
def nats_url(tmp_path_factory):
    """The URL of a NATS server with JetStream on a loopback port, for the
    shared filename queue (queue_url): the repository's testnats, which
    lives as long as its stdin, so as long as this test session."""
    exe = os.environ.get("SLUICE_TESTNATS")
    if not exe:
        if shutil.which("go") is None or not os.path.exists(os.path.join(REPO, "go.mod")):
            pytest.skip("needs Go and the clone to build the test NATS server (or SLUICE_TESTNATS)")
        exe = _go_build("./internal/pyserve/testnats", str(tmp_path_factory.mktemp("nats") / "testnats"))
    p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    url = p.stdout.readline().strip()
    if not url.startswith("nats://"):
        p.kill()
        pytest.fail(f"testnats said {url!r}")
    yield url
    p.stdin.close()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


@pytest.fixture(scope="session")
def objectstore_server(tmp_path_factory):
    """A sluice-serve built with -tags objectstore, which reads s3://
    names (SLUICE_SERVE_OBJECTSTORE names one already built)."""
    exe = os.environ.get("SLUICE_SERVE_OBJECTSTORE")
    if exe:
        return exe
    if shutil.which("go") is None or not os.path.exists(os.path.join(REPO, "go.mod")):
        pytest.skip("needs Go and the clone to build sluice-serve with -tags objectstore")
    exe = str(tmp_path_factory.mktemp("objectstore") / "sluice-serve")
    subprocess.check_call(["go", "build", "-tags", "objectstore", "-o", exe, "./cmd/sluice-serve"], cwd=REPO)
    return exe


@pytest.fixture
def s3_bucket(tmp_path_factory):
    """Starts an S3-compatible server on a loopback port (the repository's
    tests3) holding the files given, in a bucket, and returns its URL; the
    server lives as long as the test."""
    if shutil.which("go") is None or not os.path.exists(os.path.join(REPO, "go.mod")):
        pytest.skip("needs Go and the clone to build the test S3 server")
    exe = str(tmp_path_factory.getbasetemp() / "tests3")
    if not os.path.exists(exe):
        _go_build("./internal/pyserve/tests3", exe)
    servers = []

    def start(bucket, files):
        p = subprocess.Popen([exe, bucket, *files], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        servers.append(p)
        url = p.stdout.readline().strip()
        if not url.startswith("http://"):
            pytest.fail(f"tests3 said {url!r}")
        return url

    yield start
    for p in servers:
        p.stdin.close()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
