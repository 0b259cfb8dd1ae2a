"""The sluice command line (`sluice count`, `verify`, `schema`, `convert`, ...).

The package's console script, and `python -m sluice`. The command is the
package's Go binary run under the name sluice: the same program as the Go
module's cmd/sluice, so that a user without Go inspects, checks and
converts TFRecord data too (object-store names need an install with
SLUICE_GO_TAGS=objectstore).
"""

import os
import signal
import subprocess
import sys

from typing import Any, Dict, Optional

from ._core import Files, SluiceError, _int, _server_binary


def main(argv=None):
    """Run the sluice command line with argv (default: sys.argv[1:])."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        exe = _server_binary()
    except SluiceError as e:
        print(f"sluice: {e}", file=sys.stderr)
        return 2
    argv0 = "sluice"  # the binary is the command line under this name
    try:
        if argv is None and os.name == "posix":
            # Replaced by the command, which then owns the terminal and
            # its signals: Ctrl-C stops it cleanly with exit status 130,
            # as the Go build does, and nothing of Python is left between.
            sys.stdout.flush()
            sys.stderr.flush()
            # Python ignores SIGPIPE and SIGXFSZ, which an exec would pass
            # on; the command gets the defaults, as subprocess gives them.
            for name in ("SIGPIPE", "SIGXFSZ"):
                if hasattr(signal, name):
                    signal.signal(getattr(signal, name), signal.SIG_DFL)
            os.execv(exe, [argv0, *args])
        return subprocess.call([argv0, *args], executable=exe)
    except OSError as e:
        print(f"sluice: cannot run {exe}: {e}", file=sys.stderr)
        return 2


def stats(files: Files, *, format: str = "tfrecord", limit: Optional[int] = None, top: int = 10,
          header: bool = False, delimiter: str = ",", columns: Optional[str] = None) -> Dict[str, Any]:
    """Each feature's values summarised, as `sluice stats --json` prints
    them: a dict of "records", "features" and "feature_lists", each feature
    a dict of its "kind", "records" holding it, "values", "min", "max",
    "mean", "std_dev", "quantiles" (p1, p25, p50, p75, p99: exact up to
    1024 values, else from a uniform sample of 1024; none of these five
    without a finite value), "zeros", "nans", "infs" and, for int64 and
    short bytes values, "distinct" and the "top" values with their counts.
    A name that is not UTF-8 comes with its bytes in "name_base64".

    files is a name, a glob or a list of them; format is "tfrecord"
    (Examples and SequenceExamples), "csv", "jsonl" or "parquet" (the
    Examples convert would write of them; header, delimiter and columns
    are convert's for CSV); limit reads at most that many records.
    Raises SluiceError with the command's message when it fails.
    """
    import json

    names = [os.fspath(files)] if isinstance(files, (str, os.PathLike)) else [os.fspath(f) for f in files]
    args = ["stats", "--json", "--from", format, "--top", str(_int("top", top))]
    if limit is not None:
        args += ["--limit", str(_int("limit", limit))]
    if header:
        args.append("--header")
    if delimiter != ",":
        args += ["--delimiter", delimiter]
    if columns:
        args += ["--columns", columns]
    r = subprocess.run(["sluice", *args, "--", *names], executable=_server_binary(), capture_output=True, text=True)
    if r.returncode != 0:
        raise SluiceError(r.stderr.strip().removeprefix("sluice: "))
    return json.loads(r.stdout)
