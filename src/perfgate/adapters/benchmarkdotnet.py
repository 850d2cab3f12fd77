"""BenchmarkDotNet's full JSON exporter (``JsonExporter.Full``, ``*-report-full.json``).

One benchmark per ``Benchmarks[]`` entry, named by ``FullName`` (``Namespace.Type.Method(Param: v)``);
files from before 0.11 have no FullName/DisplayInfo and are named ``Namespace.Type.Method(Parameters)``.

* ``latency``: value = ``Statistics.Mean`` (ns per operation), lower/upper =
  ``Statistics.ConfidenceInterval.Lower``/``Upper`` (BenchmarkDotNet's 99.9 % interval, clamped
  at 0).  Samples are the workload measurements of stage ``Result`` (overhead already
  subtracted, outliers removed — the values the statistics were computed from), each
  ``Nanoseconds / Operations``; when a file has no ``Result`` rows, ``Statistics.OriginalValues``
  (the same values, kept by exporters that leave rows out), else the ``Actual`` rows.
  Pilot, warm-up and overhead iterations are never samples.
* ``allocated-bytes``: ``Memory.BytesAllocatedPerOperation`` when ``[MemoryDiagnoser]`` was on.

A run with several jobs (``[SimpleJob(RuntimeMoniker.Net80)]`` and ``Net90``, say) has each benchmark
once per job, with one FullName: those benchmarks (and only those, so a one-job run keeps its names)
are named ``FullName [job]``, the job as ``DisplayInfo`` shows it (``.NET 8.0(Runtime=.NET 8.0)``).
A benchmark whose ``Statistics`` is null did not run (it failed); the file is refused.
"""

from __future__ import annotations

from perfgate import inputs
from perfgate.adapters.base import (Parsed, check_name, check_number, check_samples, check_unique, join, load_json,
                                    require, scaled)
from perfgate.errors import InputError
from perfgate.model import Metric

NAME = "benchmarkdotnet"
EXPECTS = 'a BenchmarkDotNet *-report-full.json object with "HostEnvironmentInfo" and "Benchmarks"'
MARKERS = ('"HostEnvironmentInfo"', '"Benchmarks"', '"Statistics"', '"Measurements"')
# BenchmarkDotNet before 0.11 had no IterationStage; its IterationMode said both.
_LEGACY_MODES = {"Result": ("Workload", "Result"), "MainTarget": ("Workload", "Actual")}


def sniff(text: str) -> bool:
    head = text[:8192]
    return '"HostEnvironmentInfo"' in head and '"Benchmarks"' in text


def parse(text: str, source: str) -> Parsed:
    doc = load_json(text, source)
    benchmarks = require(doc, "Benchmarks", list, source, "")
    metrics, first_seen = [], {}
    names = [_name(bench, source, join("Benchmarks", i)) for i, bench in enumerate(benchmarks)]
    for i, bench in enumerate(benchmarks):
        place = join("Benchmarks", i)
        name = names[i]
        if names.count(name) > 1:
            name = _with_job(name, bench, source, place)
        check_unique(name, first_seen, source, place)
        stats = bench.get("Statistics") if isinstance(bench, dict) else None
        if stats is None:
            raise InputError(source, join(place, "Statistics"), f"benchmark {name!r} has no statistics (it failed)")
        splace = join(place, "Statistics")
        mean = check_number(require(stats, "Mean", (int, float), source, splace), source, join(splace, "Mean"))
        lower = upper = None
        ci = stats.get("ConfidenceInterval")
        if ci is not None:
            cplace = join(splace, "ConfidenceInterval")
            lo = check_number(require(ci, "Lower", (int, float), source, cplace), source, join(cplace, "Lower"),
                              allow_negative=True)
            upper = check_number(require(ci, "Upper", (int, float), source, cplace), source, join(cplace, "Upper"))
            lower = max(lo, 0.0)
            if not lower <= mean <= upper:
                raise InputError(source, cplace, f"interval [{lo}, {upper}] does not contain the mean {mean}")
        # Result rows are what the statistics were computed from; without them OriginalValues
        # holds the same values, and Actual rows (overhead not subtracted) are the last resort.
        result, actual = _samples(bench, source, place)
        samples = result or _original_values(stats, source, splace) or actual
        metrics.append(Metric(name, "latency", mean, lower, upper, samples))
        memory = bench.get("Memory")
        if isinstance(memory, dict) and memory.get("BytesAllocatedPerOperation") is not None:
            mplace = join(join(place, "Memory"), "BytesAllocatedPerOperation")
            metrics.append(Metric(name, "allocated-bytes",
                                  check_number(memory["BytesAllocatedPerOperation"], source, mplace)))
        elif memory is not None and not isinstance(memory, dict):
            raise InputError(source, join(place, "Memory"), "expected an object")
    return Parsed(metrics, _context(doc))


def _name(bench: object, source: str, place: str) -> str:
    """``FullName``; else ``DisplayInfo``; else, as exporters before 0.11 wrote it, built from
    ``Namespace``, ``Type``, ``Method`` and ``Parameters`` the way FullName reads."""
    for key in ("FullName", "DisplayInfo"):
        if isinstance(bench, dict) and key in bench:
            return check_name(require(bench, key, str, source, place), source, join(place, key))
    if isinstance(bench, dict) and ("Type" in bench or "Method" in bench):
        parts = [require(bench, key, str, source, place) for key in ("Type", "Method")]
        namespace = bench.get("Namespace")
        if namespace is not None and not isinstance(namespace, str):
            raise InputError(source, join(place, "Namespace"),
                             f"expected a string, got {inputs.json_kind(type(namespace))}")
        params = bench.get("Parameters")
        if params is not None and not isinstance(params, str):
            raise InputError(source, join(place, "Parameters"),
                             f"expected a string, got {inputs.json_kind(type(params))}")
        name = ".".join([namespace, *parts] if namespace else parts) + (f"({params})" if params else "")
        return check_name(name, source, join(place, "Method"))
    raise InputError(source, place, "missing field 'FullName' (or, before BenchmarkDotNet 0.11, "
                                    "'Namespace', 'Type' and 'Method')")


def _with_job(name: str, bench: dict, source: str, place: str) -> str:
    """``name`` of a benchmark run in several jobs, with its job: ``DisplayInfo`` is
    ``Type.MethodTitle: JobDisplayInfo [Parameters]`` (BenchmarkCase.DisplayInfo), and the job part
    is what tells the runs apart.  Where DisplayInfo does not read so, all of it is taken."""
    display = bench.get("DisplayInfo")
    if not isinstance(display, str):
        return name  # nothing tells them apart: check_unique refuses the second
    job = display
    prefix = f"{bench.get('Type')}.{bench.get('MethodTitle')}: "
    if job.startswith(prefix):
        job = job[len(prefix):]
        if bench.get("Parameters") and job.endswith("]") and " [" in job:
            job = job[:job.rindex(" [")]
    return check_name(f"{name} [{job.strip() or display}]", source, join(place, "DisplayInfo"))


def _original_values(stats: dict, source: str, place: str) -> tuple[float, ...]:
    """``Statistics.OriginalValues``: the ns/op values the statistics were computed from, which
    exporters that leave out the Result rows (or all Measurements) still carry."""
    values = stats.get("OriginalValues")
    return () if values is None else check_samples(values, source, join(place, "OriginalValues"))


def _samples(bench: dict, source: str, place: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The workload rows of stage Result and of stage Actual, each as ns per operation."""
    rows = bench.get("Measurements") or []
    if not isinstance(rows, list):
        raise InputError(source, join(place, "Measurements"), "expected a list")
    workload = {"Result": [], "Actual": []}
    for k, row in enumerate(rows):
        mplace = join(join(place, "Measurements"), k)
        mode = require(row, "IterationMode", str, source, mplace)
        if isinstance(row, dict) and "IterationStage" not in row:  # before 0.11: one combined enum
            mode, stage = _LEGACY_MODES.get(mode, (mode, ""))
        else:
            stage = require(row, "IterationStage", str, source, mplace)
        if mode != "Workload" or stage not in workload:
            continue
        ops = check_number(require(row, "Operations", (int, float), source, mplace), source, join(mplace, "Operations"))
        ns = check_number(require(row, "Nanoseconds", (int, float), source, mplace), source, join(mplace, "Nanoseconds"))
        if ops <= 0:
            raise InputError(source, join(mplace, "Operations"), f"operation count must be positive, got {ops}")
        workload[stage].append(scaled(ns, 1.0 / ops, source, join(mplace, "Nanoseconds")))
    return tuple(workload["Result"]), tuple(workload["Actual"])


def _context(doc: dict) -> dict:
    context = {"harness": "benchmarkdotnet"}
    host = doc.get("HostEnvironmentInfo")
    if isinstance(host, dict):
        for key in ("BenchmarkDotNetVersion", "RuntimeVersion", "OsVersion", "ProcessorName"):
            if isinstance(host.get(key), str):
                context[f"benchmarkdotnet_{key}"] = host[key]
    return context
