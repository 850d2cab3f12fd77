"""github-action-benchmark's whole history: the ``dev/bench/data.js`` of its gh-pages branch.

``window.BENCHMARK_DATA = {"lastUpdate": ms, "repoUrl": ..., "entries": {SUITE: [ENTRY, ...]}}``
(or that object as plain JSON).  The action appends an ENTRY each time a suite (its ``name:``
input) runs: ``{"commit": {"id", "timestamp", "message", ...}, "date": ms, "tool": ...,
"benches": [{"name", "value", "unit", "range"?, "extra"?}]}``.

Each entry is one run, at ``commit.id`` and at ``date`` (when the action recorded it; else the
commit's ``timestamp``).  Its benches are read as the action's per-run custom JSON is
(:mod:`perfgate.adapters.github_action_benchmark`): same names, same measures, so a series
imported from the history goes on with the runs ingested afterwards from the same output.  The
direction is the tool's for ``customBiggerIsBetter`` / ``customSmallerIsBetter``, else the
unit's.  The ``pytest`` tool's ``iter/sec`` is recorded as the mean time it is one over
(``latency``, as perfgate's pytest-benchmark adapter reads the JSON the action read).  The suite
is kept in each run's context (``suite``), as ``perfgate run`` keeps its suites', not in the
benchmark name: a name the action charted is the name perfgate shows.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timezone

from perfgate import inputs
from perfgate.adapters.base import Parsed, check_commit, check_millis, check_name, join, load_json, require
from perfgate.adapters.github_action_benchmark import parse_benches
from perfgate.errors import InputError
from perfgate.model import Metric, time_problem

NS = 1e9  # perfgate keeps times in nanoseconds

NAME = "github-action-benchmark-history"
EXPECTS = ('github-action-benchmark\'s dev/bench/data.js: window.BENCHMARK_DATA = {"entries": '
           '{SUITE: [{"commit": {"id", ...}, "date", "tool", "benches": [...]}]}} (or that object as JSON)')
MARKERS = ("BENCHMARK_DATA", '"entries"', '"commit"', '"date"', '"tool"', '"benches"')
SNIFF_ORDER = 70  # before the generic shapes (the per-run custom JSON, BMF)
DIRECTIONS = {"customBiggerIsBetter": True, "customSmallerIsBetter": False}
# Parsed whole, a history takes about 9 times its size in memory (a 21 MB data.js of 4,000 runs
# peaked at 186 MiB): 64 MiB, years of a large project's runs, stays under 1 GiB.
MAX_BYTES = 64 * 1024 * 1024
MAX_WARNINGS = 5  # a pytest history warns once a benchmark a run: the first few say what it is

_WRAPPER = re.compile(r"\A\s*window\.BENCHMARK_DATA\s*=")
_TAIL = re.compile(r";\s*\Z")


def sniff(text: str) -> bool:
    if _WRAPPER.match(text[:4096]):
        return True
    head = text[:65536]
    return head.lstrip().startswith("{") and all(k in head for k in ('"entries"', '"commit"', '"benches"'))


def parse(text: str, source: str) -> Parsed:
    if len(text) > MAX_BYTES:  # characters: at least as many bytes
        raise InputError(source, "", f"a history over {MAX_BYTES // 2**20} MiB ({len(text) // 2**20} MiB here) "
                         "is refused: it would take gigabytes to read; split its suites into files of their own")
    doc = load_json(_unwrapped(text), source)
    suites = require(doc, "entries", dict, source, "")
    runs, warnings = [], []
    for suite, entries in suites.items():
        where = f"entries[{json.dumps(suite, ensure_ascii=False)}]"
        check_name(suite, source, where)  # it names the suite in every message and page
        if not isinstance(entries, list):
            raise InputError(source, where, f"expected a list of runs, got {inputs.json_kind(type(entries))}")
        for i, entry in enumerate(entries):
            run = _run(entry, suite, source, join(where, i), warnings)
            if run is not None:
                runs.append(run)
    if not runs:
        raise InputError(source, "entries", "no run with benchmarks in this history")
    if len(warnings) > MAX_WARNINGS:
        warnings[MAX_WARNINGS:] = [f"and {len(warnings) - MAX_WARNINGS} more warnings of these kinds"]
    return Parsed([], {"harness": "github-action-benchmark"}, warnings, runs=runs)


def _unwrapped(text: str) -> str:
    """The JSON object of ``window.BENCHMARK_DATA = {...};``, the wrapper blanked rather than cut
    so that a JSON error's line and column are the file's."""
    wrapper = _WRAPPER.match(text)
    if wrapper is None:
        return text
    tail = _TAIL.search(text)
    end = tail.start() if tail else len(text)
    blank = re.sub(r"[^\n]", " ", text[:wrapper.end()])
    return blank + text[wrapper.end():end]


def _run(entry: object, suite: str, source: str, place: str, warnings: list[str]) -> Parsed | None:
    """One entry as a run at its commit and date; None (with a warning) when it has no benches."""
    commit = require(entry, "commit", dict, source, place)
    sha = check_commit(require(commit, "id", str, source, join(place, "commit")), source, join(place, "commit.id"))
    when = _time(entry, commit, source, place)
    tool = entry.get("tool")  # type: ignore[union-attr]  (require saw a dict)
    if tool is not None and not isinstance(tool, str):
        raise InputError(source, join(place, "tool"), f"expected a string, got {inputs.json_kind(type(tool))}")
    benches = require(entry, "benches", list, source, place)
    if not benches:
        warnings.append(f"{join(place, 'benches')}: empty, the run measured nothing; skipped")
        return None
    metrics, more = parse_benches(benches, source, DIRECTIONS.get(tool or ""), join(place, "benches"))
    if tool == "pytest":  # its range is "stddev: <seconds>", a time's, not the iter/sec value's: kept in attrs
        more = [w for w in more if ".range: " not in w]
        metrics = [_as_latency(m) for m in metrics]
    warnings.extend(more)
    context = {"harness": "github-action-benchmark", "suite": suite, **({"tool": tool} if tool else {})}
    return Parsed(metrics, context, commit=sha, commit_time=when)  # its warnings are the file's


_STDDEV = re.compile(r"\Astddev:\s*([0-9.eE+-]+)\s*\Z")


def _as_latency(m: Metric) -> Metric:
    """A pytest benchmark's ``iter/sec`` (the action keeps pytest-benchmark's ``ops``, which is one
    over its mean) as the mean time ∓ its standard deviation in the range, which is what perfgate's
    own pytest-benchmark adapter records: the history imported goes on as the same series when
    the project's pytest-benchmark JSON is ingested afterwards."""
    if m.attrs.get("unit") != "iter/sec" or not m.value > 0:
        return m
    mean = NS / m.value
    spread = _STDDEV.match(str(m.attrs.get("range", "")))
    sd = float(spread.group(1)) * NS if spread else None
    ok = sd is not None and math.isfinite(sd) and sd >= 0
    return Metric(m.benchmark, "latency", mean, max(mean - sd, 0.0) if ok else None, mean + sd if ok else None,
                  attrs=m.attrs)


def _time(entry: dict, commit: dict, source: str, place: str) -> float:
    """When the action recorded the entry (``date``, ms), else the commit's ISO-8601 timestamp."""
    date = entry.get("date")
    if date is not None:
        return check_millis(date, source, join(place, "date"))
    stamp = commit.get("timestamp")
    if not isinstance(stamp, str):
        raise InputError(source, place, "neither 'date' (ms) nor 'commit.timestamp' says when it ran")
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        raise InputError(source, join(place, "commit.timestamp"), f"{stamp[:40]!r} is not an ISO-8601 time") from None
    if moment.tzinfo is None:  # git's and GitHub's timestamps carry an offset; none is read as UTC
        moment = moment.replace(tzinfo=timezone.utc)
    seconds = moment.timestamp()
    problem = time_problem(seconds)
    if problem:
        raise InputError(source, join(place, "commit.timestamp"), problem)
    return seconds
