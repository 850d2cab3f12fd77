"""Writing an output file (a page, an export, a plot, a PR comment): whole or not at all.

The content goes to a temporary file beside the target, is flushed to disk, then renamed over
it; a reader sees the old file or the new one, never half of one, and a full disk or a missing
folder leaves no 0-byte file behind but a :class:`PerfgateError` naming the path.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from perfgate.errors import PerfgateError


def write_atomic(path: str | Path, content: str | bytes, *, mode: int = 0o644) -> None:
    target = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)  # mkstemp makes 0600; pages and exports are meant to be read
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        raise PerfgateError(f"{target}: cannot write: {e.strerror or e}; nothing was written") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
