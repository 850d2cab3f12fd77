"""JMH ``-rf json``: one benchmark per (method, @Param values), its primary metric a measure.

The ``scoreUnit`` decides the measure and the conversion:

* time per operation (``ns/op``, ``us/op``, ``ms/op``, ``s/op``; modes avgt, sample, ss) →
  ``latency`` in ns;
* operations per time (``ops/ns`` … ``ops/min``; mode thrpt) → ``throughput`` in ops/s.

value = ``score``; lower/upper = ``scoreConfidence`` (JMH's 99.9 % interval, clamped at 0 — with
three iterations it often reaches below zero; JMH writes ``"NaN"`` when it has no interval).
Samples are the per-iteration scores in ``rawData`` (all forks); in ``sample`` mode JMH keeps a
histogram instead, and each iteration's sample is its histogram mean  Σ v·c / Σ c.

Secondary metrics: ``gc.alloc.rate.norm`` (``-prof gc``) → ``allocated-bytes`` (B/op).  The other
``gc.*`` figures describe the collector during the run and sample mode's ``p0.50``-style
percentiles repeat the primary metric, so both are left out.  Any other secondary metric (e.g.
``@AuxCounters``) measured per operation (unit ``…/op``, a cost: lower is better) becomes a
measure named after it, value as JMH reports it; rates (``ops/s``, ``MB/sec``) are left out,
because perfgate reads a measure it does not know as lower-is-better.
"""

from __future__ import annotations

import re

from perfgate import inputs
from perfgate.adapters.base import (
    Parsed, check_name, check_number, check_unique, join, load_json, require, scaled,
)
from perfgate.errors import InputError
from perfgate.model import KNOWN_MEASURES, Metric

NAME = "jmh"
EXPECTS = 'a JMH -rf json list of results with "jmhVersion" and "primaryMetric"'
MARKERS = ('[', '"jmhVersion"', '"primaryMetric"', '"benchmark"', '"mode"')
_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
_SKIPPED_SECONDARY = re.compile(r"^(gc\.|p\d)")


def sniff(text: str) -> bool:
    head = text[:8192]
    return text.lstrip()[:1] == "[" and '"jmhVersion"' in head and '"primaryMetric"' in text


def parse(text: str, source: str) -> Parsed:
    doc = load_json(text, source)
    if not isinstance(doc, list):
        raise InputError(source, "", f"JMH JSON must be a list of benchmarks, got {inputs.json_kind(type(doc))}")
    names = [_name(entry, source, join("", i)) for i, entry in enumerate(doc)]
    metrics, first_seen = [], {}
    for i, entry in enumerate(doc):
        place = f"[{i}]"
        name = names[i]
        if names.count(name) > 1:  # one method measured in several modes
            name = check_name(f"{name}:{require(entry, 'mode', str, source, place)}", source, join(place, "mode"))
        check_unique(name, first_seen, source, place)
        primary = require(entry, "primaryMetric", dict, source, place)
        measure, scale = _unit(require(primary, "scoreUnit", str, source, join(place, "primaryMetric")),
                               source, join(place, "primaryMetric.scoreUnit"))
        metrics.append(_metric(name, measure, scale, primary, source, join(place, "primaryMetric")))
        secondary = entry.get("secondaryMetrics") or {}
        if not isinstance(secondary, dict):
            raise InputError(source, join(place, "secondaryMetrics"), "expected an object")
        for key, result in secondary.items():
            label = key.lstrip("·")  # JMH before 1.24 prefixed profiler metrics with '·'
            spot = join(join(place, "secondaryMetrics"), key)
            if label == "gc.alloc.rate.norm":
                metrics.append(_metric(name, "allocated-bytes", 1.0, result, source, spot))
            elif not _SKIPPED_SECONDARY.match(label) and _per_op(result):
                metrics.append(_metric(name, check_name(label, source, spot), 1.0, result, source, spot))
    context = {"harness": "jmh"}
    if doc and isinstance(doc[0], dict):
        for key in ("jmhVersion", "jdkVersion", "vmName"):
            if isinstance(doc[0].get(key), str):
                context[f"jmh_{key}"] = doc[0][key]
    return Parsed(metrics, context)


def _name(entry: object, source: str, place: str) -> str:
    """``package.Class.method`` plus ``[param=value, ...]`` when the benchmark has @Params."""
    name = require(entry, "benchmark", str, source, place)
    params = entry.get("params") or {}
    if not isinstance(params, dict):
        raise InputError(source, join(place, "params"), "expected an object")
    if params:
        name += "[" + ", ".join(f"{k}={v}" for k, v in params.items()) + "]"
    return check_name(name, source, join(place, "benchmark"))


def _per_op(result: object) -> bool:
    return isinstance(result, dict) and isinstance(result.get("scoreUnit"), str) and result["scoreUnit"].endswith("/op")


def _unit(unit: str, source: str, place: str) -> tuple[str, float]:
    """(measure, factor to perfgate's unit) for a JMH score unit."""
    top, _, bottom = unit.partition("/")
    if bottom == "op" and top in _SECONDS:
        return "latency", _SECONDS[top] * 1e9
    if top == "ops" and bottom in _SECONDS:
        return "throughput", 1.0 / _SECONDS[bottom]
    raise InputError(source, place, f"unknown score unit {unit!r}")


def _metric(name: str, measure: str, scale: float, result: object, source: str, place: str) -> Metric:
    signed = measure not in KNOWN_MEASURES
    score = require(result, "score", (int, float), source, place)
    value = scaled(check_number(score, source, join(place, "score"), allow_negative=signed), scale,
                   source, join(place, "score"))
    lower = upper = None
    interval = result.get("scoreConfidence")
    if isinstance(interval, list) and len(interval) == 2 and "NaN" not in interval:
        lo, hi = (check_number(v, source, join(join(place, "scoreConfidence"), k), allow_negative=True)
                  for k, v in enumerate(interval))
        lower = scaled(max(lo, 0.0) if not signed else lo, scale, source, join(place, "scoreConfidence"))
        upper = scaled(hi, scale, source, join(place, "scoreConfidence"))
        if not lower <= value <= upper:
            raise InputError(source, join(place, "scoreConfidence"),
                             f"interval [{lo}, {hi}] does not contain the score {score}")
    elif interval is not None and not (isinstance(interval, list) and len(interval) == 2):
        raise InputError(source, join(place, "scoreConfidence"), "expected a list of two numbers")
    return Metric(name, measure, value, lower, upper, _samples(result, scale, signed, source, place))


def _samples(result: dict, scale: float, signed: bool, source: str, place: str) -> tuple[float, ...]:
    samples = []
    if "rawData" in result:
        forks = require(result, "rawData", list, source, place)
        for f, fork in enumerate(forks):
            if not isinstance(fork, list):
                raise InputError(source, join(join(place, "rawData"), f), "expected a list of numbers")
            for i, v in enumerate(fork):
                spot = join(join(join(place, "rawData"), f), i)
                samples.append(scaled(check_number(v, source, spot, allow_negative=signed), scale, source, spot))
    elif "rawDataHistogram" in result:
        forks = require(result, "rawDataHistogram", list, source, place)
        for f, fork in enumerate(forks):
            for i, histogram in enumerate(fork if isinstance(fork, list) else [None]):
                spot = join(join(join(place, "rawDataHistogram"), f), i)
                samples.append(scaled(_histogram_mean(histogram, signed, source, spot), scale, source, spot))
    return tuple(samples)


def _histogram_mean(histogram: object, signed: bool, source: str, place: str) -> float:
    """Mean of one iteration's ``[[value, count], ...]`` histogram: Σ v·c / Σ c."""
    if not isinstance(histogram, list) or not histogram:
        raise InputError(source, place, "expected a non-empty list of [value, count] pairs")
    total = weight = 0.0
    for k, pair in enumerate(histogram):
        if not isinstance(pair, list) or len(pair) != 2:
            raise InputError(source, join(place, k), "expected a [value, count] pair")
        v = check_number(pair[0], source, join(join(place, k), 0), allow_negative=signed)
        c = check_number(pair[1], source, join(join(place, k), 1))
        total += v * c
        weight += c
    mean = total / weight if weight > 0 else float("nan")
    if weight <= 0 or mean != mean or abs(mean) == float("inf"):
        raise InputError(source, place, "histogram has no finite mean")
    return mean
