"""Rust libtest ``cargo bench`` text, and what criterion prints with ``--output-format bencher``.

A result line is ``test NAME ... bench:   1,234 ns/iter (+/- 56)`` (newer toolchains print
decimals: ``1,234.56 ns/iter (+/- 7.89)``; a benchmark setting ``b.bytes`` adds ``= 830 MB/s``,
derived from the time and left out, as for go test).  One metric per line:

    latency = the ns/iter figure,  lower/upper = value ∓ the ``+/-`` figure (lower clamped at 0)

libtest's ``+/-`` is the spread of its per-sample medians (max − min), criterion's its standard
deviation: either way a spread, not a confidence interval.  No raw samples are printed.
A ``FAILED`` test or ``test result: FAILED`` refuses the file rather than half-recording it.
"""

from __future__ import annotations

import re

from perfgate.adapters.base import Parsed, check_complete_lines, check_name, check_number, check_unique
from perfgate.errors import InputError
from perfgate.model import Metric

NAME = "rust-libtest"
EXPECTS = "text lines 'test NAME ... bench: 1,234 ns/iter (+/- 56)' (cargo bench, criterion --output-format bencher)"
MARKERS = ("test ", " ... bench:", "ns/iter", "(+/-")
_NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"
_RESULT = re.compile(rf"^test (\S.*?) \.\.\. bench:\s+({_NUMBER}) (\S+)/iter \(\+/- ({_NUMBER})\)(?: = .*)?$")
_SNIFF = re.compile(rf"^test \S.*? \.\.\. bench:\s+{_NUMBER} \S+/iter \(\+/- ", re.MULTILINE)
_FAILED = re.compile(r"^test (\S.*?) \.\.\. FAILED$|^test result: FAILED")


def sniff(text: str) -> bool:
    return bool(_SNIFF.search(text[:65536]))


# libtest groups digits by threes ("1,234,567"); any other comma ("1,,2,3") is no number it prints.
_GROUPED = re.compile(r"^(?:[0-9]+|[0-9]{1,3}(?:,[0-9]{3})+)(?:\.[0-9]+)?$")


def _number(text: str, source: str, place: str) -> float:
    if not _GROUPED.match(text):
        raise InputError(source, place, f"{text[:40]!r} is not a number: thousands separators belong "
                         "between groups of three digits")
    return check_number(float(text.replace(",", "")), source, place)


def parse(text: str, source: str) -> Parsed:
    check_complete_lines(text, source)
    metrics, first_seen = [], {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        place = f"line {lineno}"
        line = line.rstrip()
        if _FAILED.match(line):
            raise InputError(source, place, f"a benchmark failed: {line[:200]!r}")
        match = _RESULT.match(line)
        if not match:
            if " ... bench:" in line:  # a result line we cannot read must not be skipped silently
                raise InputError(source, place, f"unreadable benchmark result: {line[:200]!r}")
            continue
        # libtest pads every name to the longest one's width; the padding is not part of the name,
        # else adding a longer-named bench would rename every series.  (Stripped here rather than
        # by a ` +` in the pattern, which backtracks quadratically on a long run of spaces.)
        name = check_name(match.group(1).rstrip(), source, place)
        check_unique(name, first_seen, source, place)
        if match.group(3) != "ns":
            raise InputError(source, place, f"unit {match.group(3)!r}/iter: libtest reports ns/iter")
        value = _number(match.group(2), source, place)
        spread = _number(match.group(4), source, place)
        metrics.append(Metric(name, "latency", value, max(value - spread, 0.0), value + spread,
                              attrs={"spread": spread}))
    return Parsed(metrics, {"harness": "rust-libtest"})
