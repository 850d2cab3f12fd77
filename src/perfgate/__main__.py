"""``python -m perfgate``: the ``perfgate`` command, for an environment whose scripts folder is not on PATH."""

import sys

from perfgate.cli import main

sys.exit(main())
