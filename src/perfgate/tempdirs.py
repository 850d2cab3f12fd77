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
def held_signals() -> Iterator[None]:
    """Ctrl-C and SIGTERM are noted, not acted on, until the block ends, then the first one acts
    as it would have (also where ``ingest`` starts a harness: raised inside ``Popen``, after the
    fork, it left the harness running).  (Not by masking them:
    with a second thread alive the kernel hands the signal to that thread, and Python still runs
    the handler in the main one.)"""
    noted: list[int] = []
    try:
        previous = {s: signal.signal(s, lambda signum, frame: noted.append(signum)) for s in _UNWINDING}
    except ValueError:   # not the main thread, where no handler runs anyway
        previous = {}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for s in noted[:1]:
            handler = previous.get(s)
            if callable(handler):
                handler(s, None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(s)


@contextmanager
def temporary_folder(prefix: str) -> Iterator[Path]:
    path: Path | None = None
    try:
        with held_signals():
            path = Path(tempfile.mkdtemp(prefix=prefix))
        yield path
    finally:
        if path is not None:
            with held_signals():
                shutil.rmtree(path, ignore_errors=True)
