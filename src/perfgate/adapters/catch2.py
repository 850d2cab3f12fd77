"""Catch2 benchmarks (``BENCHMARK``): the console reporter's text and the XML reporter (``-r xml``).

Each benchmark becomes one ``latency`` metric named by its ``BENCHMARK("name")`` (the test case
it ran in is kept in attrs, and a name is qualified by it only when two test cases reuse it):

    value = the estimated mean,  lower/upper = Catch2's bootstrap confidence interval of the mean
    ("low mean"/"high mean" in the console, ``mean lowerBound/upperBound`` in XML, ns)

The standard deviation, sample and iteration counts go to attrs.  Catch2 prints no raw samples.
The console wraps a name longer than its name column over lines, the last one beside the numbers:
the lines are joined back (see ``_unwrap``; a join the text cannot settle is warned of).
A test case that failed refuses the file.  XML with a DOCTYPE is refused unread (Catch2 writes
none, and entity declarations are how XML bombs work).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from perfgate.adapters.base import (Parsed, check_complete_lines, check_name, check_number, check_unique, parse_number,
                                    scaled)
from perfgate.errors import InputError
from perfgate.model import Metric

NAME = "catch2"
EXPECTS = ("Catch2 console output with a 'benchmark name  samples  iterations  estimated' table, "
           "or -r xml output with <BenchmarkResults> elements")
MARKERS = ("benchmark name", "samples", "iterations", "estimated", "low mean", "<BenchmarkResults", "<Catch")
NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
_DURATION = r"([0-9.]+(?:e[-+]?[0-9]+)?) (ns|us|µs|ms|s)"
_ROW1 = re.compile(rf"^(.*?)\s+(\d+)\s+(\d+)\s+{_DURATION}\s*$")
_ROW23 = re.compile(rf"^\s+{_DURATION}\s+{_DURATION}\s+{_DURATION}\s*$")
_HEADER = re.compile(r"^benchmark name\s+samples\s+iterations\s+estimated\s*$")
_HEADER_MORE = re.compile(r"^\s+(mean\s+low mean\s+high mean|std dev\s+low std dev\s+high std dev)\s*$")
_NAME_WIDTH = 35   # Catch2 v2 wraps a name to the console width (80) less 45
_FAILED_CASES = re.compile(r"^test cases:.*\|\s*(\d+) failed")
_TEST_CASE_RULE = re.compile(r"^-{20,}$")


def sniff(text: str) -> bool:
    head = text[:65536]
    if "<Catch" in head and "<BenchmarkResults" in text:  # <Catch> (v2) or <Catch2TestRun> (v3)
        return True
    return bool(re.search(r"^benchmark name\s+samples\s+iterations\s+estimated", head, re.MULTILINE))


def parse(text: str, source: str) -> Parsed:
    warnings: list[str] = []
    if text.lstrip().startswith("<"):
        found = _parse_xml(text, source)
    else:
        check_complete_lines(text, source)
        found = _parse_console(text, source, warnings)
    return Parsed(_named(found, source), {"harness": "catch2"}, warnings)


# (test case, name, mean, low, high, attrs, place)
Row = tuple[str, str, float, float, float, dict, str]


def _named(found: list[Row], source: str) -> list[Metric]:
    cases_of: dict[str, set[str]] = {}
    for case, name, *_ in found:
        cases_of.setdefault(name, set()).add(case)
    metrics, first_seen = [], {}
    for case, name, mean, low, high, attrs, place in found:
        bench = f"{case}/{name}" if len(cases_of[name]) > 1 else name
        check_name(bench, source, place)
        check_unique(bench, first_seen, source, place)
        metrics.append(Metric(bench, "latency", mean, low, high, attrs={"test_case": case, **attrs}))
    return metrics


def _ns(value: str, unit: str, source: str, place: str) -> float:
    return scaled(check_number(parse_number(value, source, place), source, place), NS[unit], source, place)


def _parse_console(text: str, source: str, warnings: list[str]) -> list[Row]:
    lines = text.splitlines()
    found: list[Row] = []
    case = ""
    in_table = False
    width = _NAME_WIDTH
    wrapped_from = None   # the first line a long name was wrapped over before its numbers' row
    k = 0
    while k < len(lines):
        line, place = lines[k].rstrip(), f"line {k + 1}"
        failed = _FAILED_CASES.match(line)
        if failed and int(failed.group(1)) > 0:
            raise InputError(source, place, f"a test case failed: {line[:200]!r}")
        # A test case's name sits between two rules of dashes.
        if _TEST_CASE_RULE.match(line) and k + 2 < len(lines) and _TEST_CASE_RULE.match(lines[k + 2].rstrip()):
            case, in_table, wrapped_from = lines[k + 1].strip(), False, None
            k += 3
            continue
        if _HEADER.match(line):
            # The name column ends 2 characters before "samples" (a build may change the console width).
            in_table, width, wrapped_from = True, line.index("samples") - 2, None
        row = _ROW1.match(line) if in_table else None
        if in_table and not row:
            # Lines before a row of numbers that are none of the table's own are a wrapped name's first
            # pieces; a blank line or a rule ends them.
            if not line.strip() or _TEST_CASE_RULE.match(line) or _HEADER.match(line) or _ROW23.match(line) \
                    or _HEADER_MORE.match(line):
                wrapped_from = None
            elif wrapped_from is None:
                wrapped_from = k
        if row and k + 2 >= len(lines):
            raise InputError(source, place, f"benchmark {row.group(1).strip()[:80]!r} has no mean and std dev rows: "
                             "the output was cut short")
        if row:
            mean_row, sd_row = _ROW23.match(lines[k + 1]), _ROW23.match(lines[k + 2])
            if not (mean_row and sd_row):
                raise InputError(source, f"line {k + 2}", "expected the mean and std dev rows of benchmark "
                                                          f"{row.group(1).strip()[:80]!r}")
            mplace, splace = f"line {k + 2}", f"line {k + 3}"
            mean, low, high = (_ns(mean_row.group(i), mean_row.group(i + 1), source, mplace) for i in (1, 3, 5))
            _check_interval(mean, low, high, source, mplace)
            sd = _ns(sd_row.group(1), sd_row.group(2), source, splace)
            attrs = {"samples": int(row.group(2)), "iterations": int(row.group(3)), "std_dev": sd}
            name = row.group(1).strip()
            if wrapped_from is not None:
                pieces = [x.rstrip() for x in lines[wrapped_from:k]] + [name]
                name, other = _unwrap(pieces, width, source, f"lines {wrapped_from + 1}-{k + 1}")
                if other is not None:
                    warnings.append(f"lines {wrapped_from + 1}-{k + 1}: Catch2's console wrapped a benchmark name "
                                    f"so that it reads as {name[:120]!r} or {other[:120]!r}; read as the first "
                                    "(the XML reporter, -r xml, keeps names whole)")
                place, wrapped_from = f"line {wrapped_from + 1}", None
            found.append((case, name, mean, low, high, attrs, place))
            k += 3
            continue
        k += 1
    return found


def _unwrap(pieces: list[str], width: int, source: str, place: str) -> tuple[str, str | None]:
    """The name Catch2's console wrapped into ``pieces``, and another name it may have been.  Where a
    piece ends, the break may have dropped a space, been after punctuation (``/``, ``,``...: nothing
    dropped) or before an opening bracket, or cut a word too long for the column (a ``-`` added):
    each way of joining is wrapped again as Catch2 would, and only those giving back exactly these
    pieces are kept.  When two are kept, the output cannot tell them apart: the first in the order
    of ``_joins`` is taken and the other returned, for a warning.  (A run of spaces at a break is
    printed as none, so is read as one space: no output tells.)"""
    long = next((p for p in pieces if len(p) > width), None)
    if long is not None:
        raise InputError(source, place, f"{long[:80]!r} is not part of a benchmark name: it is longer than the "
                         f"{width}-character name column Catch2 wraps names to (text the benchmarks printed? "
                         "the XML reporter, -r xml, keeps it apart)")
    names: list[str] = []
    # A real wrap settles each join within a line; short lines that are no wrap (printed text) can
    # leave joins open for a line's worth of pieces, 2**17 ways: a budget ends that.
    budget = [64 * len(pieces)]

    def extend(text: str, k: int) -> None:
        budget[0] -= 1
        if len(names) > 1 or budget[0] < 0 or not _wraps_to(text, pieces, width, complete=k == len(pieces)):
            return
        if k == len(pieces):
            names.append(text)
            return
        for joined in _joins(text, pieces[k - 1], pieces[k], width):
            extend(joined, k + 1)

    extend(pieces[0], 1)
    if not names or budget[0] < 0:
        shown = " / ".join(p[:40] for p in pieces[:6]) + (" / ..." if len(pieces) > 6 else "")
        raise InputError(source, place, "these lines do not read as one benchmark name wrapped by Catch2's console "
                         f"reporter: {shown!r} (text the benchmarks printed? the XML reporter, -r xml, keeps it apart)")
    return names[0], names[1] if len(names) > 1 else None


def _joins(text: str, piece: str, following: str, width: int) -> list[str]:
    """``text`` (ending in ``piece``) and ``following`` joined in each way Catch2 may have broken
    them, the likelier first where the output allows two: a word cut for length (a 34-character
    word piece and its '-' is how Catch2 cuts, a hyphen just there is chance), and a space after a
    comma or semicolon (as in prose and argument lists) but none after other punctuation
    (``a::b``, ``x/y``) or before a bracket (``f(x)``)."""
    spaced, close = text + " " + following, text + following
    joins = [spaced, close] if piece.endswith((",", ";")) else [close, spaced]
    if len(piece) == width and piece.endswith("-"):
        joins.insert(0, text[:-1] + following)
    return joins


def _wraps_to(text: str, pieces: list[str], width: int, complete: bool) -> bool:
    """Whether Catch2's console (v2's TextFlow: break at the last space or punctuation that fits,
    else cut the word and add '-') wraps ``text`` to the first of ``pieces``, as far as ``text`` tells:
    unless ``complete``, a line whose next ``width`` + 1 characters are not all known is not judged."""
    pos, n = 0, 0
    while pos < len(text):
        if not complete and len(text) - pos <= width:
            return True
        if n == len(pieces):
            return False
        if len(text) - pos < width:
            line, size = text[pos:], len(text) - pos
        else:
            size = width
            while size > 0 and not _breakable(text, pos + size):
                size -= 1
            while size > 0 and text[pos + size - 1] in _SPACE:
                size -= 1
            line = text[pos:pos + size] if size else text[pos:pos + width - 1] + "-"
            size = size or width - 1
        if line.rstrip() != pieces[n]:
            return False
        pos, n = pos + size, n + 1
        while pos < len(text) and text[pos] in _SPACE:
            pos += 1
    return not complete or n == len(pieces)


_SPACE = " \t"


def _breakable(text: str, at: int) -> bool:
    return (at == len(text) or text[at] in _SPACE and text[at - 1] not in _SPACE
            or text[at] in "[({<|" or text[at - 1] in "])}>.,:;*+-=&/\\")


def _parse_xml(text: str, source: str) -> list[Row]:
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise InputError(source, "", "XML with a DOCTYPE or entity declarations is refused (Catch2 writes none)")
    try:
        data = text.encode("utf-8")  # the parser wants bytes it can encode: a lone surrogate is not text
    except UnicodeEncodeError as e:
        raise InputError(source, f"character {e.start}", "not valid Unicode text (a lone surrogate)") from None
    try:
        # The text is already decoded: the parser is told its bytes are UTF-8, whatever encoding
        # the declaration names (an unknown one raised LookupError; another one misread the text).
        root = ET.fromstring(data, parser=ET.XMLParser(encoding="utf-8"))
    except ET.ParseError as e:
        line, column = e.position
        raise InputError(source, f"line {line} column {column + 1}", f"invalid XML: {e}") from None
    if root.tag not in ("Catch", "Catch2TestRun"):  # v2 and v3 roots (v3 is untested here)
        raise InputError(source, root.tag, "expected Catch2's <Catch> or <Catch2TestRun> root element")
    found: list[Row] = []
    for t, case in enumerate(root.iter("TestCase")):
        case_name = case.get("name", "")
        cplace = f"TestCase[{t}] {case_name[:80]!r}"
        result = case.find("OverallResult")
        if result is not None and result.get("success") == "false":
            raise InputError(source, cplace, "the test case failed")
        for b, bench in enumerate(case.iter("BenchmarkResults")):
            place = f"{cplace} BenchmarkResults[{b}]"
            name = bench.get("name")
            if name is None:
                raise InputError(source, place, "missing attribute 'name'")
            mean_el, sd_el = bench.find("mean"), bench.find("standardDeviation")
            if mean_el is None:
                raise InputError(source, place, "missing element <mean>")
            mean, low, high = (_xml_number(mean_el, key, source, f"{place}.mean")
                               for key in ("value", "lowerBound", "upperBound"))
            _check_interval(mean, low, high, source, f"{place}.mean")
            attrs = {"samples": _xml_int(bench, "samples", source, place),
                     "iterations": _xml_int(bench, "iterations", source, place)}
            if sd_el is not None:
                attrs["std_dev"] = _xml_number(sd_el, "value", source, f"{place}.standardDeviation")
            found.append((case_name, name, mean, low, high, attrs, place))
    return found


def _check_interval(mean: float, low: float, high: float, source: str, place: str) -> None:
    if not low <= mean <= high:
        raise InputError(source, place, f"interval [{low}, {high}] does not contain the mean {mean}")


def _xml_number(el: ET.Element, key: str, source: str, place: str) -> float:
    raw = el.get(key)
    if raw is None:
        raise InputError(source, place, f"missing attribute {key!r}")
    return check_number(parse_number(raw, source, f"{place}.{key}"), source, f"{place}.{key}")


def _xml_int(el: ET.Element, key: str, source: str, place: str) -> int | None:
    raw = el.get(key)
    if raw is None:
        return None
    if not raw.isdigit():
        raise InputError(source, f"{place}.{key}", f"{raw[:40]!r} is not a count")
    return int(raw)
