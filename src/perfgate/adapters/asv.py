"""airspeed velocity (asv) results: ``results/<machine>/<commit>-<env>.json`` (schema version 2).

``results`` maps each benchmark to a row of the columns ``result_columns`` names (``result``,
``params``, ``stats_ci_99_a``/``_b``, ``samples``...; trailing empty columns are left out).
A parameterised benchmark's ``params`` are lists of values; its ``result`` (and every per-value
column) holds one entry per combination, in the order of their Cartesian product.  Each
combination is its own benchmark, named as asv prints it: ``suite.Class.time_x(10, 'comma')``.

Each file names the commit it measured (``commit_hash``), that commit's date (``date``, ms) and
the machine (``params.machine``, with its ``arch``, ``cpu``, ``num_cpu``, ``os``, ``ram``): ingest
records the run there, at that time and on that machine as its testbed unless told otherwise, as
a results folder holds many commits and often several machines.

The measure follows asv's benchmark types, told by the prefix of the name's last part (the
function or method), as asv_runner's ``name_regex`` of each type: ``time_x`` or ``TimeX`` /
``Time_x`` (a capital or ``_`` after the CamelCase prefix), and so on:

    time_*, Time*, timeraw_*, Timeraw*  → latency (s → ns; value = asv's result, the median)
                                          samples: ``samples``, in ns
    peakmem_*, PeakMem* → peak-rss (bytes)    mem_*, Mem* → object-size (bytes, asizeof of the returned object)
    track_*, Track*     → track (the returned number, as is; its unit is only in benchmarks.json)

lower/upper = asv's 99 % confidence interval (``stats_ci_99_a``/``_b``) when it contains the
value (asv's interval is for the median and may go below 0: clamped).  With a single sample
(``asv run --quick``) asv writes the interval as ``-Infinity``/``Infinity``: no interval, the
value is kept.  A result of ``null`` (a whole benchmark's, or one combination's) means it failed
or was skipped: it is left out, with a warning.
"""

from __future__ import annotations

import itertools
import math
import re

from perfgate.adapters.base import (Parsed, check_commit, check_millis, check_name, check_number, check_samples, join,
                                    load_json, require, scaled)
from perfgate.errors import InputError
from perfgate.model import Metric, Testbed, identity_problem

NAME = "asv"
EXPECTS = "an asv results file: an object with \"version\": 2, \"result_columns\", \"results\" and \"commit_hash\""
MARKERS = ('"result_columns"', '"results"', '"commit_hash"', '"env_name"', '"version"')
SCHEMA_VERSION = 2
NS = 1e9
MEASURES = {"time": ("latency", NS), "peakmem": ("peak-rss", 1.0), "mem": ("object-size", 1.0),
            "track": ("track", 1.0)}
# asv_runner's types by name (asv_runner/benchmarks/*.py ``name_regex``, asv 0.6; asv 0.5 the same):
# a lower-case prefix and '_', or a CamelCase one and a capital or '_', then at least one character.
# timeraw (timed in a fresh interpreter) is timed in seconds as time is.
_TYPES = [(re.compile(rf"(?:{camel}[A-Z_]|{lower}_)."), kind) for camel, lower, kind in (
    ("Time", "time", "time"), ("Timeraw", "timeraw", "time"), ("Mem", "mem", "mem"),
    ("PeakMem", "peakmem", "peakmem"), ("Track", "track", "track"))]


def sniff(text: str) -> bool:
    head = text[:65536]
    return '"result_columns"' in head and '"commit_hash"' in head


def parse(text: str, source: str) -> Parsed:
    doc = load_json(text, source, infinities=True)  # --quick's unbounded CI; values are checked
    version = require(doc, "version", int, source, "")
    if version != SCHEMA_VERSION:
        raise InputError(source, "version", f"asv results schema version {version}; perfgate reads version "
                                            f"{SCHEMA_VERSION} (asv 0.5 and later)")
    columns = require(doc, "result_columns", list, source, "")
    if "result" not in columns or not all(isinstance(c, str) for c in columns):
        raise InputError(source, "result_columns", "expected a list of column names including 'result'")
    results = require(doc, "results", dict, source, "")
    metrics, warnings = [], []
    for bench, row in results.items():
        place = join("results", bench)
        check_name(bench, source, place)
        if not isinstance(row, list) or len(row) > len(columns):
            raise InputError(source, place, f"expected a list of at most {len(columns)} columns")
        cells = dict(zip(columns, row))
        metrics.extend(_metrics(bench, cells, columns, source, place, warnings))
    context = {"harness": "asv", "asv_schema_version": version}
    for key in ("commit_hash", "env_name", "python"):
        if isinstance(doc.get(key), str):
            context[f"asv_{key}"] = doc[key]
    params = doc.get("params")
    if isinstance(params, dict) and isinstance(params.get("machine"), str):
        context["asv_machine"] = params["machine"]
    return Parsed(metrics, context, warnings, _commit(doc, source), _commit_time(doc, source),
                  machine=_machine(params, source))


# What asv's machine file says of a machine (``asv machine``), kept as the testbed's fingerprint.
MACHINE_FACTS = ("arch", "cpu", "num_cpu", "os", "ram")


def _machine(params: object, source: str) -> Testbed | None:
    """The machine asv ran on (``params.machine``, a results folder's own subfolder name), as a
    testbed: results of two machines in one series would read as changes."""
    if not isinstance(params, dict) or params.get("machine") is None:
        return None
    name = params["machine"]
    problem = identity_problem("testbed", name) if isinstance(name, str) else "is not a string"
    if problem:
        raise InputError(source, "params.machine", problem)
    facts = {k: params[k] for k in MACHINE_FACTS if isinstance(params.get(k), (str, int, float))}
    return Testbed(name, {"asv_machine": name, **facts})


def _commit(doc: dict, source: str) -> str | None:
    commit = doc.get("commit_hash")
    return None if commit is None else check_commit(commit, source, "commit_hash")


def _commit_time(doc: dict, source: str) -> float | None:
    millis = doc.get("date")
    return None if millis is None else check_millis(millis, source, "date")


def _metrics(bench: str, cells: dict, columns: list, source: str, place: str, warnings: list) -> list[Metric]:
    last = bench.rsplit(".", 1)[-1]
    kind = next((kind for pattern, kind in _TYPES if pattern.match(last)), None)
    if kind is None:
        raise InputError(source, place, f"unknown benchmark type of {last[:80]!r}: asv names benchmarks time_, "
                                        "timeraw_, mem_, peakmem_ or track_ (or Time, Timeraw, Mem, PeakMem or Track "
                                        "and a capital letter or '_')")
    measure, scale = MEASURES[kind]
    params = cells.get("params") or []
    if not isinstance(params, list) or not all(isinstance(p, list) and p for p in params):
        raise InputError(source, join(place, columns.index("params")) if "params" in columns else place,
                         "expected params as a list of non-empty lists of values")
    combos = list(itertools.product(*params)) if params else [()]

    def column(name: str) -> list | None:
        value = cells.get(name)
        if value is None:
            return None
        cplace = join(place, columns.index(name))
        if not isinstance(value, list) or len(value) != len(combos):
            raise InputError(source, cplace, f"column {name!r}: expected a list of {len(combos)} entries")
        return value

    values = column("result")
    if values is None:  # a plain benchmark that failed or was skipped: asv writes null, not [null]
        warnings.append(f"{place}: {bench} has no result (it failed or was skipped); left out")
        return []
    ci_a, ci_b, samples = column("stats_ci_99_a"), column("stats_ci_99_b"), column("samples")
    metrics = []
    for k, combo in enumerate(combos):
        name = f"{bench}({', '.join(str(v) for v in combo)})" if combo else bench
        kplace = join(join(place, columns.index("result")), k)
        if values[k] is None:
            warnings.append(f"{kplace}: {name} has no result (it failed or was skipped); left out")
            continue
        check_name(name, source, kplace)
        raw = check_number(values[k], source, kplace, allow_negative=kind == "track")
        value = scaled(raw, scale, source, kplace)
        lower = upper = None
        bounds = (ci_a[k], ci_b[k]) if ci_a is not None and ci_b is not None else (None, None)
        # An infinite bound (one sample: asv run --quick) means no interval; the value stands.
        if None not in bounds and not any(isinstance(x, float) and math.isinf(x) for x in bounds):
            a = check_number(ci_a[k], source, join(join(place, columns.index("stats_ci_99_a")), k), allow_negative=True)
            b = check_number(ci_b[k], source, join(join(place, columns.index("stats_ci_99_b")), k), allow_negative=True)
            a, b = scaled(a, scale, source, kplace), scaled(b, scale, source, kplace)
            if a <= value <= b:
                lower, upper = (a if kind == "track" else max(a, 0.0)), b
        kept = ()
        if samples is not None and samples[k] is not None:
            kept = check_samples(samples[k], source, join(join(place, columns.index("samples")), k), scale)
        attrs = {"parameters": [str(v) for v in combo]} if combo else {}
        metrics.append(Metric(name, measure, value, lower, upper, kept, attrs))
    return metrics
