"""hyperfine ``--export-json``: one benchmark per command, each run's wall time a sample.

Times are seconds in the file and nanoseconds in perfgate (Bencher's ``latency`` unit).
``value`` is the mean with ``lower``/``upper`` one standard deviation either side, as Bencher's
own hyperfine adapter reports it, so both stores agree.
"""

from __future__ import annotations

from perfgate.adapters.base import (Parsed, check_name, check_number, check_samples, join, load_json, require,
                                    scaled)
from perfgate.errors import InputError
from perfgate.model import Metric

NAME = "hyperfine"
EXPECTS = 'a hyperfine --export-json object: {"results": [{"command", "mean", "times", ...}]}'
MARKERS = ('"results"', '"command"', '"mean"', '"times"')
NS = 1e9


def sniff(text: str) -> bool:
    head = text[:4096]
    return '"results"' in head and '"command"' in head and '"times"' in text


def parse(text: str, source: str) -> Parsed:
    doc = load_json(text, source)
    results = require(doc, "results", list, source, "")
    metrics = []
    for i, result in enumerate(results):
        place = join("results", i)
        name = check_name(require(result, "command", str, source, place), source, join(place, "command"))
        mean = check_number(require(result, "mean", (int, float), source, place), source, join(place, "mean"))
        stddev = result.get("stddev")
        stddev = 0.0 if stddev is None else check_number(stddev, source, join(place, "stddev"))
        samples = check_samples(result.get("times", []), source, join(place, "times"), NS)
        codes = result.get("exit_codes") or []
        if not isinstance(codes, list):
            raise InputError(source, join(place, "exit_codes"), f"expected a list, got {type(codes).__name__}")
        if any(code not in (0, None) for code in codes):
            raise InputError(source, join(place, "exit_codes"), "the benchmarked command failed in some runs")
        metrics.append(Metric(
            benchmark=name, measure="latency", value=scaled(mean, NS, source, join(place, "mean")),
            lower=max(mean - stddev, 0.0) * NS, upper=scaled(mean + stddev, NS, source, join(place, "stddev")),
            samples=samples, attrs=_params(result),
        ))
    return Parsed(metrics, {"harness": "hyperfine"})


def _params(result: dict) -> dict:
    params = result.get("parameters")
    return {"parameters": params} if isinstance(params, dict) and params else {}
