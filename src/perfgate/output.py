"""Where commands write: data to stdout (a table, or JSON with ``--json``), messages to stderr."""

from __future__ import annotations

import os
import sys
from typing import Any

from rich.console import Console

from perfgate.jsonio import dumps

LOG_WIDTH = 10_000


def _log_width(stream) -> int | None:
    """Off a terminal (CI logs, pipes) rich would wrap at 80 columns, and any width at all folds
    a wide table's rows or a long note mid-word (a check table wrapped at 160, a detect table
    split a cell over two rows): logs are read by viewers that wrap lines themselves, so lines
    are written whole.  On a terminal, its own width."""
    return None if stream.isatty() else LOG_WIDTH


out = Console(highlight=False, width=_log_width(sys.stdout))
err = Console(stderr=True, highlight=False, width=_log_width(sys.stderr))


def emit_json(obj: Any) -> None:
    data = dumps(obj, indent=True) + b"\n"
    sys.stdout.flush()
    if hasattr(sys.stdout, "buffer"):
        sys.stdout.buffer.write(data)
    else:                           # a text-only stream (a test's StringIO)
        sys.stdout.write(data.decode())
    sys.stdout.flush()


def actions_warning(title: str, message: str, json_mode: bool) -> None:
    """A warning annotation on the run's summary when running in GitHub Actions (nothing
    elsewhere): for what leaves the job green but has not happened yet.  On stderr under
    ``--json``, so stdout stays one JSON document."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return
    escaped = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::warning title={title}::{escaped}", file=sys.stderr if json_mode else sys.stdout)
