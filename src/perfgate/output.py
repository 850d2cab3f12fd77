"""Where commands write: data to stdout (a table, or JSON with ``--json``), messages to stderr."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

# Off a terminal (CI logs, pipes) rich would wrap tables at 80 columns; logs are read wide.
_width = None if sys.stdout.isatty() else 160
out = Console(highlight=False, width=_width)
err = Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else 160)


def emit_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2, sort_keys=False, default=_default)
    sys.stdout.write("\n")


def _default(obj: Any) -> Any:
    if hasattr(obj, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(obj)
    if isinstance(obj, (set, tuple)):
        return list(obj)
    if hasattr(obj, "tolist"):  # numpy scalars and arrays
        return obj.tolist()
    raise TypeError(f"cannot serialise {type(obj).__name__}")
