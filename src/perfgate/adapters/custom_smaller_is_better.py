"""github-action-benchmark's custom JSON read as its ``customSmallerIsBetter`` tool reads it: every
value is smaller-is-better.  See :mod:`perfgate.adapters.github_action_benchmark`."""

from __future__ import annotations

from perfgate.adapters import github_action_benchmark as _custom
from perfgate.adapters.base import Parsed

NAME = "custom-smaller-is-better"
EXPECTS = _custom.EXPECTS
MARKERS = _custom.MARKERS
AUTO = False  # the file cannot say its direction: only chosen with --adapter


def sniff(text: str) -> bool:
    return False


def parse(text: str, source: str) -> Parsed:
    return _custom.parse(text, source, bigger_is_better=False)
