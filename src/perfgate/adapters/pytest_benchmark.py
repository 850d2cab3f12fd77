"""pytest-benchmark ``--benchmark-json``: one benchmark per test, each round a sample.

``stats.data`` holds one duration per round, already divided by the round's iterations, in
seconds; perfgate stores nanoseconds.  As for hyperfine, ``value`` is ``stats.mean`` with
``lower``/``upper`` = mean ∓ ``stats.stddev`` (clamped at 0).  The benchmark is named by its
``fullname`` (``file.py::test[param]``), which stays unique when two files define the same test.

Numbers a test puts in ``benchmark.extra_info`` under the name of a measure perfgate knows
(``allocated_bytes`` → ``allocated-bytes``, ``peak_rss``, ``instructions``, ``throughput``) become
metrics of their own, so a suite can report what timing alone does not show, such as
tracemalloc's allocated bytes; other entries (parameters, notes) stay descriptive.
"""

from __future__ import annotations

from perfgate.adapters.base import (
    Parsed, check_name, check_number, check_samples, check_unique, join, load_json, require, scaled,
)
from perfgate.model import KNOWN_MEASURES, Metric

NAME = "pytest-benchmark"
EXPECTS = 'a pytest-benchmark --benchmark-json object with "machine_info" and "benchmarks" [{"stats": ...}]'
MARKERS = ('"machine_info"', '"benchmarks"', '"stats"', '"fullname"')
NS = 1e9


def sniff(text: str) -> bool:
    head = text[:8192]
    return '"machine_info"' in head and '"benchmarks"' in text and '"stats"' in text


def parse(text: str, source: str) -> Parsed:
    doc = load_json(text, source)
    benchmarks = require(doc, "benchmarks", list, source, "")
    metrics, first_seen = [], {}
    for i, bench in enumerate(benchmarks):
        place = join("benchmarks", i)
        key = "fullname" if isinstance(bench, dict) and "fullname" in bench else "name"
        name = check_name(require(bench, key, str, source, place), source, join(place, key))
        check_unique(name, first_seen, source, join(place, key))
        stats = require(bench, "stats", dict, source, place)
        splace = join(place, "stats")
        mean = _seconds(require(stats, "mean", (int, float), source, splace), source, join(splace, "mean"))
        stddev = stats.get("stddev")
        stddev = 0.0 if stddev is None else _seconds(stddev, source, join(splace, "stddev"))
        samples = check_samples(stats.get("data", []), source, join(splace, "data"), NS)
        metrics.append(Metric(
            benchmark=name, measure="latency", value=mean,
            lower=max(mean - stddev, 0.0), upper=mean + stddev, samples=samples,
            attrs=_attrs(bench, stats),
        ))
        metrics.extend(_extra_metrics(bench, name, source, place))
    context = {"harness": "pytest-benchmark"}
    if isinstance(doc.get("version"), str):
        context["harness_version"] = doc["version"]
    return Parsed(metrics, context)


def _extra_metrics(bench: dict, name: str, source: str, place: str) -> list[Metric]:
    extra = bench.get("extra_info")
    if not isinstance(extra, dict):
        return []
    found = []
    for key, value in extra.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue  # descriptive extra_info (strings, lists) is not a measurement
        measure = str(key).replace("_", "-")
        if measure in KNOWN_MEASURES:
            found.append(Metric(name, measure, check_number(value, source, join(join(place, "extra_info"), key))))
    return found


def _seconds(value: object, source: str, place: str) -> float:
    return scaled(check_number(value, source, place), NS, source, place)


def _attrs(bench: dict, stats: dict) -> dict:
    """Facts worth keeping: the test's parameters, group, and how it was measured."""
    attrs = {}
    if isinstance(bench.get("params"), dict) and bench["params"]:
        attrs["parameters"] = {str(k): str(v) for k, v in bench["params"].items()}
    if isinstance(bench.get("group"), str):
        attrs["group"] = bench["group"]
    for key in ("rounds", "iterations"):
        if isinstance(stats.get(key), int) and not isinstance(stats.get(key), bool):
            attrs[key] = stats[key]
    return attrs
