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
from perfgate.escape import visible


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
        raise PerfgateError(f"{visible(target)}: cannot write: {e.strerror or e}; nothing was written") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def check_writable(path: str | Path, option: str) -> None:
    """Refuse, before any work, an output file that cannot be written: a folder, or a file in a
    folder that is missing or read-only.  ``check --markdown`` found out only after every round
    had run, and the verdict (and its exit 1) was lost to the write's error."""
    target = Path(path)
    folder = target.parent
    shown, shown_folder = visible(target), visible(folder)   # a path in a message: one line, no escapes sent
    if target.is_dir():
        raise PerfgateError(f"{option} {shown}: is a folder; name a file")
    if not folder.is_dir():
        raise PerfgateError(f"{option} {shown}: its folder {shown_folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PerfgateError(f"{option} {shown}: its folder {shown_folder} is not writable")
    try:
        # What the write will do (a file beside the target), tried: permissions alone passed
        # /proc, where no file can be made.
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{target.name}.", suffix=".probe"):
            pass
    except OSError as e:
        raise PerfgateError(f"{option} {shown}: no file can be written in {shown_folder}: {e.strerror}") from None
