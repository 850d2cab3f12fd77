"""``go test -bench`` text output.

A result line is ``BenchmarkName-P  N  v1 unit1  v2 unit2 ...``: the name with its GOMAXPROCS
suffix (kept, as Go prints it), the iteration count, then value/unit pairs.  Units become measures:

    ns/op → latency (ns)     B/op → allocated-bytes     allocs/op → allocations
    MB/s → left out beside ns/op: it is b.SetBytes / ns/op, so it repeats the latency;
           a benchmark with no ns/op (suppressed by ``b.ReportMetric(0, "ns/op")``) keeps it as
           bytes-per-second (×1e6: Go's MB is 10⁶ bytes), higher-is-better as google-benchmark's
    anything else (custom b.ReportMetric units such as ``chars/op``) → a measure named after
    the unit, value as printed.  A custom unit named as a measure perfgate gives its own meaning
    (``latency``, ``allocations``...) is refused: its values would join that measure's samples.

With ``-count N`` a benchmark prints N lines: they are the samples of one metric per measure,
summarised as value = mean, lower/upper = mean ∓ sample standard deviation (as for hyperfine).
A benchmark that prints to stdout splits its result: Go prints the name, then the benchmark's
output (on the name's line and maybe more), then the numbers on a line of their own
(``    2000\t  95.41 ns/op ...``).  Such a continuation line is read as the result of the last
name printed alone.
A ``--- FAIL`` line means a benchmark failed; the output is refused rather than half-recorded.
So is an output that stops after a result line without go test's closing ``PASS`` / ``ok  pkg``:
it was cut short (a killed job, a full disk, a log truncated at a line boundary), and recorded it
would pass for a complete run with benchmarks or ``-count`` samples silently missing.
"""

from __future__ import annotations

import re

from perfgate.adapters._summary import mean_bounds
from perfgate.adapters.base import Parsed, check_name, check_number, scaled
from perfgate.errors import InputError
from perfgate.model import KNOWN_MEASURES, Metric

NAME = "go-bench"
EXPECTS = 'go test -bench lines: BenchmarkName-8  1000  1234 ns/op'
MARKERS = ('Benchmark', 'ns/op', 'goos:', 'pkg:', 'B/op')
UNIT_MEASURES = {"ns/op": "latency", "B/op": "allocated-bytes", "allocs/op": "allocations"}
DERIVED_UNITS = {"MB/s": ("bytes-per-second", 1e6)}   # kept only without ns/op (see above)
# Measure names a custom unit may not take: they are the built-in units' or have a fixed meaning.
RESERVED = set(KNOWN_MEASURES) | set(UNIT_MEASURES.values()) | {m for m, _ in DERIVED_UNITS.values()}
# Measures that can never be negative; a custom b.ReportMetric value may be (a delta, say).
COSTS = set(KNOWN_MEASURES) | {"allocations", "bytes-per-second"}
_RESULT = re.compile(r"^(Benchmark\S*)\s+(\d+)\s+(.*)$")
# A name, an iteration count, then value/unit pairs, whatever the units (b.ReportMetric may
# replace ns/op with, say, MB/s or rows/s).
_PAIR = r"-?[0-9.]+(?:e[-+]?[0-9]+)?[ \t]+\S+"   # a value and its unit
_SNIFF = re.compile(rf"^Benchmark\S*[ \t]+\d+(?:[ \t]+{_PAIR})+[ \t]*$", re.MULTILINE)
# The numbers of a result whose name line was followed by the benchmark's own output.
_CONTINUATION = re.compile(rf"^[ \t]+(\d+)[ \t]+({_PAIR}(?:[ \t]+{_PAIR})*)[ \t]*$")
_NAME_ALONE = re.compile(r"^(Benchmark\S*)(?:\s|$)")
_HEADER = re.compile(r"^(goos|goarch|pkg|cpu):\s*(.*)$")
_CLOSING = re.compile(r"^(PASS|ok\s+\S+)")


def sniff(text: str) -> bool:
    return bool(_SNIFF.search(text[:65536]))


def parse(text: str, source: str) -> Parsed:
    # (package, benchmark) -> measure -> samples, in first-seen order
    found: dict[tuple[str, str], dict[str, list[float]]] = {}
    derived: dict[tuple[str, str], dict[str, list[float]]] = {}   # MB/s, kept where no ns/op is
    context: dict[str, str] = {"harness": "go-bench"}
    pkg = ""
    open_since = 0  # line of the first result not yet followed by a closing PASS / ok line
    pending = None  # (name, line) of a benchmark name printed without its numbers (yet)
    for lineno, line in enumerate(text.splitlines(), start=1):
        place = f"line {lineno}"
        line = line.rstrip()
        header = _HEADER.match(line)
        if header:
            if header.group(1) == "pkg":
                pkg = header.group(2)
            else:
                context[f"go_{header.group(1)}"] = header.group(2)
            continue
        if line.startswith("--- FAIL") or line.startswith("FAIL"):
            raise InputError(source, place, f"a benchmark failed: {line[:200]!r}")
        if _CLOSING.match(line):
            open_since = 0
            continue
        match = _RESULT.match(line)
        if match:
            name, rest = match.group(1), match.group(3)
        elif pending and (cont := _CONTINUATION.match(line)):
            (name, name_place), rest = pending, cont.group(2)
            place = f"{place} (the result of {name_place})"
        else:
            alone = _NAME_ALONE.match(line)
            if alone:  # a name whose numbers follow the benchmark's output (or a -v parent name)
                pending = (alone.group(1), place)
            continue  # other lines: logs, the benchmark's own output
        pending = None
        open_since = open_since or lineno
        name = check_name(name, source, place)
        fields = rest.split()
        if len(fields) % 2:
            raise InputError(source, place, "expected value/unit pairs after the iteration count")
        measures = found.setdefault((pkg, name), {})
        units = fields[1::2]
        for k in range(0, len(fields), 2):
            value_text, unit = fields[k], fields[k + 1]
            if units.count(unit) > 1:  # Go prints a unit once (b.ReportMetric replaces)
                raise InputError(source, place, f"unit {unit!r} appears twice on one result line")
            if unit not in UNIT_MEASURES and unit in RESERVED:
                raise InputError(source, f"{place} ({unit})", f"custom unit {unit!r} has the name of perfgate's "
                                 f"measure {unit!r}, and its values would be mixed with that measure's; report it "
                                 "under another unit name")
            measure, scale = DERIVED_UNITS.get(unit) or (check_name(UNIT_MEASURES.get(unit, unit), source, place), 1.0)
            try:
                value = float(value_text)
            except ValueError:
                raise InputError(source, place, f"{value_text!r} is not a number (unit {unit})") from None
            value = check_number(value, source, f"{place} ({unit})", allow_negative=measure not in COSTS)
            if unit in DERIVED_UNITS:
                value = scaled(value, scale, source, f"{place} ({unit})")
                derived.setdefault((pkg, name), {}).setdefault(measure, []).append(value)
                continue
            measures.setdefault(measure, []).append(value)
    if open_since:
        raise InputError(source, f"line {open_since}", "the results from this line on are not followed by go "
                         "test's closing 'PASS' / 'ok' line: the output was cut short, and a partial run "
                         "is not recorded as a complete one")
    for key, rates in derived.items():
        if "latency" not in found[key]:
            found[key].update(rates)
    return Parsed(_metrics(found, source), context)


def _metrics(found: dict[tuple[str, str], dict[str, list[float]]], source: str) -> list[Metric]:
    packages_of: dict[str, set[str]] = {}
    for pkg, name in found:
        packages_of.setdefault(name, set()).add(pkg)
    metrics = []
    for (pkg, name), measures in found.items():
        # Qualify by package only when two packages define the same benchmark.
        bench = check_name(f"{pkg}.{name}", source, name) if len(packages_of[name]) > 1 else name
        for measure, samples in measures.items():
            value, lower, upper = mean_bounds(samples, nonnegative=measure in COSTS)
            metrics.append(Metric(bench, measure, value, lower, upper, tuple(samples),
                                  {"package": pkg} if pkg else {}))
    return metrics
