"""SQLite's integrity check of a history file, run in a process of its own beside the work of a
verb that will write (``python -I -S src/perfgate/store/integrity.py FILE``).

``PRAGMA quick_check`` reads every page of the file once (1.0 s for the 295 MB of 10,000 series
× 1,000 runs); a verb such as ``detect`` spends its first second importing its libraries on one
core, so the check runs on the other meanwhile.  A fresh interpreter, not a fork: SQLite forbids
carrying a process's open connections across ``fork()``.  The child can only spare the writer its
own check: anything but a clean "ok" (damage, an error, a crash) and the writer checks again
itself, which names the problem as it always has."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

OK = "ok"


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
            problems = [row[0] for row in db.execute("PRAGMA quick_check(5)")]
        finally:
            db.close()
    except sqlite3.Error:
        return 1
    print(OK if problems == [OK] else "damaged")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
