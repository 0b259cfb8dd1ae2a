"""python -m sluice: the sluice command line (see sluice._cli)."""

import sys

from ._cli import main

sys.exit(main())
