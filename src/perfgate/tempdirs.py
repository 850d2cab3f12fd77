"""Temporary folders that Ctrl-C or a cancelled job's SIGTERM cannot leave behind.

Both signals unwind perfgate (``cli.Terminated``), and ``finally`` removes what it made; but a
signal landing while the folder is being made, or half way through removing it, would leave it.
They are held for those two moments and act right after."""

from __future__ import annotations

import shutil
import signal
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

_UNWINDING = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def _held() -> Iterator[None]:
    before = signal.pthread_sigmask(signal.SIG_BLOCK, _UNWINDING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextmanager
def temporary_folder(prefix: str) -> Iterator[Path]:
    path: Path | None = None
    try:
        with _held():
            path = Path(tempfile.mkdtemp(prefix=prefix))
        yield path
    finally:
        if path is not None:
            with _held():
                shutil.rmtree(path, ignore_errors=True)
