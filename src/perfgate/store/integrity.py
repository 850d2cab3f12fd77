"""SQLite's integrity check of a history file, run in a process of its own beside the work of a
verb that will write (``python -I -S src/perfgate/store/integrity.py FILE``).

``PRAGMA quick_check`` reads every page of the file once (1.15 s for the 300 MB of 10,000 series
× 1,000 runs, through a memory map); a verb such as ``detect`` spends its first half second
importing its libraries on one core, so the check runs on the other meanwhile.  A fresh interpreter, not a fork: SQLite forbids
carrying a process's open connections across ``fork()``.  The child can only spare the writer its
own check: anything but a clean "ok" (damage, an error, a crash) and the writer checks again
itself, which names the problem as it always has."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

OK = "ok"
MMAP_BYTES = 1 << 40     # SQLite maps up to its own limit (2 GB as built by default)


def start(path: Path) -> subprocess.Popen | None:
    """The check of ``path`` started in a child process, or None when it cannot start."""
    try:
        # Run as a script, not with -m: the check needs only sqlite3, not perfgate's packages
        # (0.1 s of imports that would share the cores with the verb's own work).
        return subprocess.Popen([sys.executable, "-I", "-S", __file__, str(path)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return None


def passed(check: subprocess.Popen) -> bool:
    """Whether the child found the file intact (waits for it)."""
    out, _ = check.communicate()
    return check.returncode == 0 and out.decode(errors="replace").strip() == OK


def stop(check: subprocess.Popen) -> None:
    """End a check no longer needed (the verb wrote nothing)."""
    if check.poll() is None:
        check.kill()
    check.communicate()


def main(argv: list[str]) -> int:
    path = Path(argv[0])
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            # Pages read through a memory map, not copied in by a read() each: a third less time
            # (1.7 s → 1.15 s for 10,000 series × 1,000 runs).  A map can fault where another process
            # truncates the file meanwhile, which ends this child only: the writer checks again.
            db.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            problems = [row[0] for row in db.execute("PRAGMA quick_check(5)")]
        finally:
            db.close()
    except sqlite3.Error:
        return 1
    print(OK if problems == [OK] else "damaged")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
