"""Where commands write: data to stdout (a table, or JSON with ``--json``), messages to stderr."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console

from perfgate.jsonio import dumps

# Off a terminal (CI logs, pipes) rich would wrap tables at 80 columns; logs are read wide.
_width = None if sys.stdout.isatty() else 160
out = Console(highlight=False, width=_width)
err = Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else 160)


def emit_json(obj: Any) -> None:
    data = dumps(obj, indent=True) + b"\n"
    sys.stdout.flush()
    if hasattr(sys.stdout, "buffer"):
        sys.stdout.buffer.write(data)
    else:                           # a text-only stream (a test's StringIO)
        sys.stdout.write(data.decode())
    sys.stdout.flush()
