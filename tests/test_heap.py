"""Bulk loading pauses the cyclic collector and leaves what it loaded out of later collections."""

from __future__ import annotations

import gc

from perfgate import heap


def test_loading_pauses_the_collector_and_freezes_what_it_loaded():
    gc.unfreeze()
    assert gc.isenabled()
    try:
        with heap.loading():
            assert not gc.isenabled()
            loaded = [{"n": i} for i in range(1000)]
        assert gc.isenabled() and gc.get_freeze_count() >= len(loaded)
        gc.unfreeze()
        # A failure inside still resumes collection; a collector the caller had paused stays paused.
        try:
            with heap.loading():
                raise ValueError
        except ValueError:
            pass
        assert gc.isenabled()
        gc.disable()
        with heap.loading():
            pass
        assert not gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()
