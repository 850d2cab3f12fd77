"""iai-callgrind (and its successor gungraun) text output of ``cargo bench``.

A benchmark is a header line ``module::group::function id:args`` followed by indented event lines
``  Instructions:     1802|1790     (+0.67%) [+1.01x]``: the new count, then the previous run's
(``N/A`` on a first run) and the comparison.  Only the new count is kept; the previous one
belongs to an earlier run.  Tool sections (``======= DHAT =======`` and the like) add events.

Event names become measures as Bencher's ``rust_iai_callgrind`` adapter names them:
``Instructions`` (callgrind's ``Ir``) → ``instructions``, ``L1 Hits`` → ``l1-hits``,
``LL Hits`` → ``ll-hits``, ``RAM Hits`` → ``ram-hits``, ``Total read+write`` →
``total-read-write``, ``Estimated Cycles`` → ``estimated-cycles``; any other event → its name
lower-cased with runs of other characters turned into ``-``.  Counts are exact (one run under
valgrind), so there are no samples and no bounds.
"""

from __future__ import annotations

import re

from perfgate.adapters.base import Parsed, check_complete_lines, check_name, check_number, parse_number
from perfgate.errors import InputError
from perfgate.model import Metric

NAME = "iai-callgrind"
EXPECTS = "a 'module::group::function id:args' line, then indented 'Instructions:  1802|N/A  (...)' lines"
MARKERS = ("::", "Instructions:", "L1 Hits:", "Estimated Cycles:", "|N/A")
_HEADER = re.compile(r"^(\S[^:\s]*::[^:\s]+::\S.*?)\s*$")
_EVENT = re.compile(r"^\s+([A-Za-z][A-Za-z0-9 +/()._-]*?):\s+([0-9][0-9.]*|N/A)(?:\|([0-9][0-9.]*|N/A))?(?:\s+\((.*)\))?(?:\s+\[.*\])?\s*$")
_SNIFF = re.compile(r"^\S+::\S+::\S.*\n\s+(Instructions|Ir):\s+\d", re.MULTILINE)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TOOL = re.compile(r"^\s*=+\s*([A-Z]+)\s*=+\s*$")
ALIASES = {"Ir": "instructions"}


def sniff(text: str) -> bool:
    return bool(_SNIFF.search(_ANSI.sub("", text[:65536])))


def measure_of(event: str) -> str:
    return ALIASES.get(event) or re.sub(r"[^a-z0-9]+", "-", event.lower()).strip("-")


def parse(text: str, source: str) -> Parsed:
    check_complete_lines(text, source)
    metrics: list[Metric] = []
    bench = ""
    seen: set[str] = set()
    for lineno, raw in enumerate(_ANSI.sub("", text).splitlines(), start=1):
        place = f"line {lineno}"
        line = raw.rstrip()
        header = _HEADER.match(line)
        if header and not line.startswith((" ", "\t")):
            bench, seen = check_name(header.group(1), source, place), set()
            continue
        if not bench or _TOOL.match(line):
            continue
        event = _EVENT.match(line)
        if not event:
            if line and not line.startswith((" ", "\t")):
                bench = ""  # a summary or log line ends the benchmark's block
            elif "|" in line and ":" in line:  # an event line we cannot read must not be skipped silently
                raise InputError(source, place, f"unreadable event line: {line.strip()[:200]!r}")
            continue
        if event.group(2) == "N/A":
            continue  # the event was not measured in this run
        measure = check_name(measure_of(event.group(1)), source, place)
        if measure in seen:
            raise InputError(source, place, f"event {event.group(1)!r} appears twice for {bench!r}")
        seen.add(measure)
        value = check_number(parse_number(event.group(2), source, place), source, f"{place} ({event.group(1)})")
        attrs = {"event": event.group(1)}
        if event.group(4) and event.group(4).strip("*"):  # a first run prints only asterisks
            attrs["comparison"] = event.group(4)
        metrics.append(Metric(bench, measure, value, attrs=attrs))
    return Parsed(metrics, {"harness": "iai-callgrind"})
