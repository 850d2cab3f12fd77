"""Where commands write: data to stdout (a table, or JSON with ``--json``), messages to stderr."""

from __future__ import annotations

import sys
from typing import Any

import orjson
from rich.console import Console

# Off a terminal (CI logs, pipes) rich would wrap tables at 80 columns; logs are read wide.
_width = None if sys.stdout.isatty() else 160
out = Console(highlight=False, width=_width)
err = Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else 160)


def emit_json(obj: Any) -> None:
    # orjson: a 10,000-series detect report is written in a tenth of the time the standard
    # library's indenting encoder takes (NaN and infinities become null: valid JSON).
    data = orjson.dumps(obj, default=_default, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY
                        | orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE)
    sys.stdout.flush()
    sys.stdout.buffer.write(data) if hasattr(sys.stdout, "buffer") else sys.stdout.write(data.decode())
    sys.stdout.flush()


def _default(obj: Any) -> Any:
    if hasattr(obj, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(obj)
    if isinstance(obj, (set, tuple)):
        return list(obj)
    if hasattr(obj, "tolist"):  # numpy scalars and arrays
        return obj.tolist()
    raise TypeError(f"cannot serialise {type(obj).__name__}")
