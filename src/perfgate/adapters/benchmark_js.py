"""benchmark.js (npm ``benchmark``): its printed results, or its benchmarks dumped as JSON.

* Text: the lines ``String(bench)`` prints, ``NAME x 27,680 ops/sec ±11.20% (29 runs sampled)``,
  which is what most suites log on each ``cycle``.  One ``throughput`` metric (ops/s) per line:
  value = hz, lower/upper = hz ∓ rme% (benchmark.js's relative margin of error, 95 %).
* JSON: ``JSON.stringify(suite.slice())`` (or any list of Benchmark objects): each has ``name``,
  ``hz`` and ``stats`` with the raw ``sample`` array (seconds per operation, one per sampled
  cycle).  Besides the same ``throughput``, a ``latency`` metric keeps those samples in ns:
  value = ``stats.mean``, lower/upper = mean ∓ ``stats.deviation`` (as for hyperfine).
A benchmark whose ``error`` is set failed; the JSON is refused.  In text, a failed benchmark
prints ``NAME: ERROR`` instead, and a thrown ``Error`` joins to nothing (``throws: ``): such a line,
ending in ": ", gets a warning (a log line could look the same, so it does not refuse the file).
"""

from __future__ import annotations

import re

from perfgate import inputs
from perfgate.adapters.base import (Parsed, check_complete_lines, check_name, check_number, check_samples, check_unique,
                                    join, load_json, require, scaled)
from perfgate.errors import InputError
from perfgate.model import Metric

NAME = "benchmark-js"
EXPECTS = ("text lines 'NAME x 1,234 ops/sec ±1.5% (90 runs sampled)', or a JSON list of benchmark.js "
           "Benchmark objects with name, hz and stats.sample")
MARKERS = (" ops/sec ", "runs sampled", '"hz"', '"stats"', '"sample"', '"rme"')
NS = 1e9
_NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"
_FAILED = re.compile(r"^\S.*: $")  # "throws: ": String(bench) of a benchmark whose Error joins to ""
_LINE = re.compile(rf"^(\S.*?) x ({_NUMBER}) ops/sec \xb1([0-9]+(?:\.[0-9]+)?)% \((\d+) runs? sampled\)\s*$")


def sniff(text: str) -> bool:
    head = text[:65536]
    if head.lstrip().startswith("["):
        return '"hz"' in head and '"stats"' in head and '"sample"' in head
    return any(_LINE.match(line) for line in head.splitlines())


def parse(text: str, source: str) -> Parsed:
    if text.lstrip().startswith("["):
        return Parsed(_parse_json(text, source), {"harness": "benchmark-js"})
    check_complete_lines(text, source)
    metrics, first_seen, warnings = [], {}, []
    for lineno, line in enumerate(text.splitlines(), start=1):
        place = f"line {lineno}"
        match = _LINE.match(line)
        if not match:
            if " ops/sec " in line:  # a result line we cannot read must not be skipped silently
                raise InputError(source, place, f"unreadable benchmark.js result: {line[:200]!r}")
            if _FAILED.match(line):
                warnings.append(f"{place}: {line[:200]!r} looks like a benchmark that failed (String(bench) of "
                                "one that threw); it has no result")
            continue
        name = check_name(match.group(1), source, place)
        check_unique(name, first_seen, source, place)
        hz = check_number(float(match.group(2).replace(",", "")), source, place)
        rme = check_number(float(match.group(3)), source, place)
        metrics.append(_throughput(name, hz, rme, {"runs_sampled": int(match.group(4))}, source, place))
    return Parsed(metrics, {"harness": "benchmark-js"}, warnings)


def _throughput(name: str, hz: float, rme: float, attrs: dict, source: str, place: str) -> Metric:
    margin = scaled(hz, rme / 100, source, place)
    return Metric(name, "throughput", hz, max(hz - margin, 0.0), hz + margin, attrs={"rme_percent": rme, **attrs})


def _parse_json(text: str, source: str) -> list[Metric]:
    doc = load_json(text, source)
    if not isinstance(doc, list):
        raise InputError(source, "", f"expected a list of benchmarks, got {inputs.json_kind(type(doc))}")
    metrics, first_seen = [], {}
    for i, bench in enumerate(doc):
        place = join("", i)
        name = check_name(require(bench, "name", str, source, place), source, join(place, "name"))
        check_unique(name, first_seen, source, join(place, "name"))
        # JSON.stringify writes a thrown Error as {} (its fields are not enumerable): present is enough.
        if bench.get("error") is not None:
            raise InputError(source, join(place, "error"), f"benchmark {name!r} failed")
        hz = check_number(require(bench, "hz", (int, float), source, place), source, join(place, "hz"))
        stats = require(bench, "stats", dict, source, place)
        splace = join(place, "stats")
        rme = check_number(require(stats, "rme", (int, float), source, splace), source, join(splace, "rme"))
        mean = check_number(require(stats, "mean", (int, float), source, splace), source, join(splace, "mean"))
        sd = check_number(require(stats, "deviation", (int, float), source, splace), source,
                          join(splace, "deviation"))
        samples = check_samples(require(stats, "sample", list, source, splace), source, join(splace, "sample"), NS)
        metrics.append(_throughput(name, hz, rme, {}, source, join(place, "hz")))
        value = scaled(mean, NS, source, join(splace, "mean"))
        metrics.append(Metric(name, "latency", value, max(mean - sd, 0.0) * NS,
                              scaled(mean + sd, NS, source, join(splace, "deviation")), samples))
    return metrics
