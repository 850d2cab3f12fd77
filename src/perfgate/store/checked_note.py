"""A note beside a history, ``FILE.checked``: the file is as a perfgate writer left it, after that
writer found it intact (SQLite's integrity check, or this note) and no other connection wrote to
it meanwhile.  The next writer that finds the file unchanged since need not read every page again:
``perfgate ingest`` then ``perfgate detect`` check a 300 MB history once, not twice.

"Unchanged" is the file's and its WAL's identity, size, modification and status-change times to
the nanosecond (``st_ctime`` cannot be set back by any tool: a copy, a restore, a ``touch``, a byte
overwritten in place, all change it).  Anything else — no note, an unreadable one, a file changed
since — and the writer checks the file as before.  The note guards against damage done between
perfgate's writes, which is what the check is for; a disk that rots a page without a write is
found by SQLite when it reads that page."""

from __future__ import annotations

import json
import os
from pathlib import Path

_WAL = "-wal"


def _identity(path: Path) -> dict | None:
    def stat(p: Path) -> list[int] | None:
        try:
            s = os.stat(p)
        except FileNotFoundError:
            return None
        return [s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns]
    main = stat(path)
    return None if main is None else {"file": main, "wal": stat(Path(f"{path}{_WAL}"))}


def note_path(path: Path) -> Path:
    return Path(f"{path}.checked")


def unchanged_since_checked(path: Path) -> bool:
    """Whether ``path`` is as the last checked writer left it (False whenever in doubt)."""
    try:
        noted = json.loads(note_path(path).read_text(encoding="utf-8"))
        identity = _identity(path)
    except (OSError, ValueError):
        return False
    return identity is not None and noted == identity


def note_checked(path: Path) -> None:
    """Note the file as it is now (after its writer closed it).  Best effort: a folder one cannot
    write to means only that the next writer checks the file again."""
    note = note_path(path)
    partial = note.with_name(f"{note.name}.{os.getpid()}.partial")
    try:
        identity = _identity(path)
        if identity is None:
            return
        partial.write_text(json.dumps(identity), encoding="utf-8")
        os.replace(partial, note)      # whole or not at all: a reader never sees half a note
    except OSError:
        try:
            partial.unlink(missing_ok=True)
        except OSError:
            pass
