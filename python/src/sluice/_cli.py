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

from ._core import SluiceError, _server_binary


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
