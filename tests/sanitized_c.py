"""Runs one of perfgate's C sources under a driver (``tests/c/``) built with AddressSanitizer and
UndefinedBehaviorSanitizer: any out-of-bounds access, leak or undefined operation aborts it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler on this host")


def checked_count(driver: str, source: str, folder: Path) -> int:
    """Build ``tests/c/driver`` with ``src/perfgate/detect/source``, run it, and return the count
    its "checked N ..." line reports (the run must succeed)."""
    binary = folder / "driver"
    subprocess.run(["cc", "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                    str(ROOT / "c" / driver), str(ROOT.parent / "src/perfgate/detect" / source),
                    "-o", str(binary), "-lm"], check=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("checked "), run.stdout
    return int(run.stdout.split()[1])
