"""A temporary folder is removed whole even when SIGTERM (a cancelled CI job) lands while it is
being removed: the signal acts once the removal is done.  Before, a signal in that moment left
the folder behind (seen once in tests/test_backfill.py's SIGTERM test)."""

from __future__ import annotations

import os
import shutil
import signal

import pytest

import perfgate.tempdirs as tempdirs


class Cancelled(Exception):
    pass


def test_sigterm_during_removal_acts_after_the_folder_is_gone(monkeypatch):
    def cancel(signum, frame):
        raise Cancelled()

    previous = signal.signal(signal.SIGTERM, cancel)
    real_rmtree = shutil.rmtree
    seen = []

    def rmtree_hit_by_sigterm(path, **kw):
        os.kill(os.getpid(), signal.SIGTERM)    # the job is cancelled half way through the removal
        (path / "late").write_text("")          # still running: the signal waits
        real_rmtree(path, **kw)
        seen.append(path.exists())

    monkeypatch.setattr(tempdirs.shutil, "rmtree", rmtree_hit_by_sigterm)
    try:
        with pytest.raises(Cancelled):
            with tempdirs.temporary_folder("perfgate-test-") as path:
                (path / "file").write_text("x")
        assert seen == [False] and not path.exists()
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_the_folder_goes_on_an_error_too():
    with pytest.raises(ValueError):
        with tempdirs.temporary_folder("perfgate-test-") as path:
            raise ValueError()
    assert not path.exists()
