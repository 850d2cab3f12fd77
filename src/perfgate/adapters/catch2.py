"""Catch2 benchmarks (``BENCHMARK``): the console reporter's text and the XML reporter (``-r xml``).

Each benchmark becomes one ``latency`` metric named by its ``BENCHMARK("name")`` (the test case
it ran in is kept in attrs, and a name is qualified by it only when two test cases reuse it):

    value = the estimated mean,  lower/upper = Catch2's bootstrap confidence interval of the mean
    ("low mean"/"high mean" in the console, ``mean lowerBound/upperBound`` in XML, ns)

The standard deviation, sample and iteration counts go to attrs.  Catch2 prints no raw samples.
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
_FAILED_CASES = re.compile(r"^test cases:.*\|\s*(\d+) failed")
_TEST_CASE_RULE = re.compile(r"^-{20,}$")


def sniff(text: str) -> bool:
    head = text[:65536]
    if "<Catch" in head and "<BenchmarkResults" in text:  # <Catch> (v2) or <Catch2TestRun> (v3)
        return True
    return bool(re.search(r"^benchmark name\s+samples\s+iterations\s+estimated", head, re.MULTILINE))


def parse(text: str, source: str) -> Parsed:
    if text.lstrip().startswith("<"):
        found = _parse_xml(text, source)
    else:
        check_complete_lines(text, source)
        found = _parse_console(text, source)
    return Parsed(_named(found, source), {"harness": "catch2"})


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


def _parse_console(text: str, source: str) -> list[Row]:
    lines = text.splitlines()
    found: list[Row] = []
    case = ""
    in_table = False
    k = 0
    while k < len(lines):
        line, place = lines[k].rstrip(), f"line {k + 1}"
        failed = _FAILED_CASES.match(line)
        if failed and int(failed.group(1)) > 0:
            raise InputError(source, place, f"a test case failed: {line[:200]!r}")
        # A test case's name sits between two rules of dashes.
        if _TEST_CASE_RULE.match(line) and k + 2 < len(lines) and _TEST_CASE_RULE.match(lines[k + 2].rstrip()):
            case, in_table = lines[k + 1].strip(), False
            k += 3
            continue
        if _HEADER.match(line):
            in_table = True
        row = _ROW1.match(line) if in_table else None
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
            found.append((case, row.group(1).strip(), mean, low, high, attrs, place))
            k += 3
            continue
        k += 1
    return found


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
