"""A local fake Bencher API server for the tests (see :mod:`.server`)."""

from .server import FakeBencher

__all__ = ["FakeBencher"]
