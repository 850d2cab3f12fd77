"""hyperfine ``--export-json``: one benchmark per command, each run's wall time a sample.

Times are seconds in the file and nanoseconds in perfgate (Bencher's ``latency`` unit).
``value`` is the mean with ``lower``/``upper`` one standard deviation either side, as Bencher's
own hyperfine adapter reports it, so both stores agree.

A long benchmark gives millions of times, so the file is parsed as a stream (ijson's C parser):
each ``times`` list goes straight into a packed ``array('d')`` (8 bytes a sample) instead of a
list of Python floats (32), which keeps a 200 MB file well under 1 GiB.
"""

from __future__ import annotations

import io
import math
from array import array
from typing import Any

import ijson
import numpy as np

from perfgate import inputs
from perfgate.adapters.base import Parsed, check_name, check_number, check_unique, join, load_json, require, scaled
from perfgate.errors import InputError
from perfgate.model import Metric, number_problem

NAME = "hyperfine"
EXPECTS = 'a hyperfine --export-json object: {"results": [{"command", "mean", "times", ...}]}'
MARKERS = ('"results"', '"command"', '"mean"', '"times"')
NS = 1e9
MAX_SECONDS = float(np.finfo(np.float64).max) / NS


def sniff(text: str) -> bool:
    head = text[:4096]
    return '"results"' in head and '"command"' in head and '"times"' in text


def parse(text: str, source: str) -> Parsed:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InputError(source, f"character {e.start}", "not valid Unicode (a lone surrogate)") from None
    return parse_bytes(data, source)


def parse_bytes(data: bytes, source: str) -> Parsed:
    try:
        doc = _document(data, source)
    except (ijson.JSONError, ValueError, OverflowError):
        # The standard parser says where the document is broken (ijson does not).
        load_json(data.decode("utf-8", errors="replace"), source)
        raise InputError(source, "", "invalid JSON: a number is out of range") from None
    results = require(doc, "results", list, source, "")
    metrics, first_seen = [], {}
    for i, result in enumerate(results):
        place = join("results", i)
        name = check_name(require(result, "command", str, source, place), source, join(place, "command"))
        check_unique(name, first_seen, source, join(place, "command"))
        mean = check_number(require(result, "mean", (int, float), source, place), source, join(place, "mean"))
        stddev = result.get("stddev")
        stddev = 0.0 if stddev is None else check_number(stddev, source, join(place, "stddev"))
        samples = _times(result.get("times", []), source, join(place, "times"))
        codes = result.get("exit_codes") or []
        if not isinstance(codes, list):
            raise InputError(source, join(place, "exit_codes"), f"expected a list, got {inputs.json_kind(type(codes))}")
        failed = sum(code not in (0, None) for code in codes)
        if failed:  # only possible with -i / --ignore-failure: times of a failing command are no measurement
            exits = sorted({str(code) for code in codes if code not in (0, None)})
            raise InputError(source, join(place, "exit_codes"), f"command {name!r} failed (exit code "
                             f"{', '.join(exits)}) in {failed} of {len(codes)} runs, measured anyway because "
                             "hyperfine ran with -i / --ignore-failure; perfgate does not record a failing command")
        metrics.append(Metric(
            benchmark=name, measure="latency", value=scaled(mean, NS, source, join(place, "mean")),
            lower=max(mean - stddev, 0.0) * NS, upper=scaled(mean + stddev, NS, source, join(place, "stddev")),
            samples=samples, attrs=_params(result),
        ))
    return Parsed(metrics, {"harness": "hyperfine"})


def _params(result: dict) -> dict:
    params = result.get("parameters")
    return {"parameters": params} if isinstance(params, dict) and params else {}


def _times(times: Any, source: str, place: str) -> array:
    """The times in nanoseconds, in place: every one a finite, non-negative number."""
    if isinstance(times, list):  # only when "times" was not where hyperfine puts it
        raise InputError(source, place, "expected a list of numbers inside results[i]")
    if not isinstance(times, array):
        raise InputError(source, place, f"expected a list of numbers, got {inputs.json_kind(type(times))}")
    ns = np.frombuffer(times, dtype=np.float64)  # a view: no copy
    # Checked before scaling: a finite time too large for nanoseconds would overflow to infinity
    # (and be reported as infinite, which it was not).
    bad = ~np.isfinite(ns) | (ns < 0) | (ns > MAX_SECONDS)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(source, join(place, i), number_problem(times[i]) or f"value {times[i]:g} s is out of range")
    ns *= NS
    return times


def _document(data: bytes, source: str) -> Any:
    """The JSON document, built from parser events, with ``results[i].times`` as ``array('d')``
    and keys given twice in one object refused."""
    stack: list[Any] = []          # open containers
    keys: list[Any] = []           # per open container: the pending key (objects) or None (lists)
    seen: list[set[str]] = []      # per open container: the keys given so far
    root: Any = None
    times: array | None = None
    for event, value in ijson.basic_parse(io.BytesIO(data), use_float=True):
        if times is not None:      # the hot loop: one number after another
            if event == "number":
                times.append(value)
                continue
            if event != "end_array":
                i = len(stack[1])  # the result being read is added to the list when it ends
                raise InputError(source, f"results[{i}].times[{len(times)}]",
                                 f"expected a number, got {_kind(event)}")
            value, times = times, None
        elif event == "map_key":
            if value in seen[-1]:
                raise InputError(source, _where(stack[:-1], keys[:-1]), f"invalid JSON: key {value!r} appears twice "
                                 "in one object (which value was meant is unknowable)")
            seen[-1].add(value)
            keys[-1] = value
            continue
        elif event in ("start_map", "start_array"):
            if event == "start_array" and len(stack) == 3 and keys[2] == "times" and keys[0] == "results":
                times = array("d")
                continue
            stack.append({} if event == "start_map" else [])
            keys.append(None)
            seen.append(set())
            continue
        elif event in ("end_map", "end_array"):
            value = stack.pop()
            keys.pop()
            seen.pop()
        elif event == "number" and isinstance(value, float) and not math.isfinite(value):
            raise ValueError("number out of range")
        if not stack:
            root = value
        elif keys[-1] is None:
            stack[-1].append(value)
        else:
            stack[-1][keys[-1]] = value
    return root


def _kind(event: str) -> str:
    return {"start_map": "an object", "start_array": "a list", "string": "a string", "boolean": "a boolean",
            "null": "null"}.get(event, event)


def _where(stack: list[Any], keys: list[Any]) -> str:
    place = ""
    for container, key in zip(stack, keys):
        if isinstance(container, list):
            place = join(place, len(container))
        elif key is not None:
            place = join(place, key)
    return place
