"""Google Benchmark ``--benchmark_format=json`` / ``--benchmark_out``.

Rows are grouped by ``run_name`` (the benchmark without the ``_mean``/``_BigO`` suffixes):

* ``run_type: iteration`` rows are the repetitions: each one's per-iteration ``real_time`` (in
  ``time_unit``, converted to ns) is one sample of ``latency``.
* ``run_type: aggregate`` rows ``mean`` / ``stddev`` give value and bounds
  (value = mean, lower/upper = mean ∓ stddev); they never become benchmarks of their own.  Without
  them the same summary is computed from the repetitions (see ``_summary.mean_bounds``).
* ``items_per_second`` becomes ``throughput`` and ``bytes_per_second`` (``SetBytesProcessed``)
  ``bytes-per-second``, both higher-is-better; every other numeric field the library does not
  define is a user counter and becomes a measure of the same name (counters may be negative).
* ``BigO`` / ``RMS`` rows of ``Complexity()`` become measure ``bigo-coefficient`` (the fitted
  ``real_coefficient`` in ns) with attrs ``{"big_o": "NlgN", "rms": 0.05, ...}``.
* With ``--benchmark_report_aggregates_only`` the file holds the aggregates and no repetitions:
  the value and bounds come from them, but there are no samples, so a run cannot be judged on
  its own (compare needs per-repetition samples); ingest warns.
* A row with ``error_occurred`` (a benchmark that called ``SkipWithError``) is refused; one with
  ``skipped`` (``SkipWithMessage``, library 1.8+: deliberately not run) is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from perfgate.adapters._summary import mean_bounds
from perfgate.adapters.base import (
    Parsed, check_name, check_number, join, load_json, require, scaled,
)
from perfgate.errors import InputError
from perfgate.model import KNOWN_MEASURES, Metric

NAME = "google-benchmark"
EXPECTS = 'a Google Benchmark --benchmark_format=json object with "context" and "benchmarks"'
MARKERS = ('"context"', '"benchmarks"', '"num_cpus"', '"real_time"', '"time_unit"')
TIME_UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
# Fields the library itself writes; any other number on a row is a user counter.
STANDARD_FIELDS = {
    "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
    "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
    "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "skipped",
    "skip_message", "label", "big_o", "real_coefficient", "cpu_coefficient", "rms",
    "complexity_n",
}
# The library's own rates, recorded under perfgate's measure names (both higher-is-better).
RATES = {"items_per_second": "throughput", "bytes_per_second": "bytes-per-second"}
# Measures that cannot be negative (user counters may be).
NONNEGATIVE = {*KNOWN_MEASURES, *RATES.values()}
COMPLEXITY_AGGREGATES = {"BigO", "RMS"}


@dataclass
class _Family:
    """Everything reported for one ``run_name``: per-repetition values and aggregates."""

    samples: dict[str, list[float]] = field(default_factory=dict)  # measure -> per repetition
    aggregates: dict[str, dict[str, float]] = field(default_factory=dict)  # "mean" -> measure -> v
    repetitions: int = 0  # as the aggregate rows say
    bigo: dict | None = None
    rms: float | None = None
    # Where each kind of row (the repetitions, an aggregate, BigO) was first seen, and which
    # benchmark instance wrote it: one name must be one benchmark.
    seen: dict[str, tuple[str, tuple]] = field(default_factory=dict)
    rows: int = 0  # repetition rows
    indexes: dict[int, str] = field(default_factory=dict)  # repetition_index -> place


def sniff(text: str) -> bool:
    head = text[:8192]
    return ('"context"' in head and '"benchmarks"' in text
            and ('"num_cpus"' in head or '"library_build_type"' in head or '"executable"' in head))


def parse(text: str, source: str) -> Parsed:
    doc = load_json(text, source)
    rows = require(doc, "benchmarks", list, source, "")
    families: dict[str, _Family] = {}
    for i, row in enumerate(rows):
        place = join("benchmarks", i)
        name = check_name(require(row, "name", str, source, place), source, join(place, "name"))
        if row.get("error_occurred") is True:
            message = row.get("error_message") or "no message"
            raise InputError(source, place, f"benchmark {name!r} failed: {str(message)[:200]}")
        if row.get("skipped") is True:  # SkipWithMessage: deliberately not run here, not a failure
            continue
        aggregate = _aggregate_name(row, name, source, place)
        run_name = _run_name(row, name, aggregate, source, place)
        family = families.setdefault(run_name, _Family())
        _check_one_benchmark(row, run_name, aggregate, family, source, place)
        if aggregate in COMPLEXITY_AGGREGATES or "big_o" in row or "rms" in row:
            _complexity(row, family, source, place)
        elif aggregate is None:
            for measure, value in _values(row, source, place).items():
                family.samples.setdefault(measure, []).append(value)
        elif aggregate in ("mean", "stddev", "median"):
            family.aggregates[aggregate] = _values(row, source, place)
            reps = row.get("repetitions")
            family.repetitions = reps if isinstance(reps, int) and not isinstance(reps, bool) else 0
        # Other aggregates (cv, user-defined statistics) are derivable or not comparable: skipped.
    metrics = [m for run_name, family in families.items() for m in _metrics(run_name, family)]
    return Parsed(metrics, _context(doc), _aggregates_only(families))


def _aggregates_only(families: dict[str, _Family]) -> list[str]:
    """A warning when repetitions ran but only their aggregates are in the file."""
    names = [name for name, f in families.items() if f.aggregates and not f.samples]
    if not names:
        return []
    reps = sorted({families[n].repetitions for n in names if families[n].repetitions})
    return [f"benchmarks: {len(names)} benchmark(s) hold aggregates only ({', '.join(repr(n) for n in names[:5])}"
            f"{', ...' if len(names) > 5 else ''}), without their {'/'.join(map(str, reps)) or 'N'} repetitions "
            "(--benchmark_report_aggregates_only): with no per-repetition samples a run cannot be judged on its "
            "own; to see only aggregates on the console yet keep the repetitions, use "
            "--benchmark_display_aggregates_only with --benchmark_out=FILE --benchmark_out_format=json"]


def _check_one_benchmark(row: dict, run_name: str, aggregate: str | None, family: _Family, source: str,
                         place: str) -> None:
    """Refuse rows of one ``run_name`` that are not one benchmark's: two benchmarks registered
    under one name (different ``family_index`` / ``per_family_instance_index``), more repetition
    rows than ``repetitions`` says, a ``repetition_index`` or an aggregate given twice.  Merged, they
    made one series of two benchmarks' numbers; and no field of the output tells them apart for
    good (a family index is the registration order, changed by any benchmark added before)."""
    complexity = aggregate in COMPLEXITY_AGGREGATES or "big_o" in row or "rms" in row
    # BigO/RMS rows stand for a whole family: their instance index is not any one instance's.
    who = (row.get("family_index"),) if complexity else \
        (row.get("family_index"), row.get("per_family_instance_index"))
    kind = aggregate or "repetition"
    if complexity:
        kind = "RMS" if "rms" in row else "BigO"
    for other_kind, (first, other) in family.seen.items():
        if other[0] != who[0] or not complexity and other_kind not in COMPLEXITY_AGGREGATES and other != who:
            fields = "family_index" if other[0] != who[0] else "per_family_instance_index"
            raise InputError(source, join(place, fields), f"benchmark {run_name!r} is also at {first}, with another "
                             f"{fields} ({_index(other, fields)} there, {_index(who, fields)} here): two benchmarks "
                             "registered under one name cannot be told apart; give them different names")
    if kind != "repetition" and kind in family.seen:
        raise InputError(source, place, f"the {kind} row of benchmark {run_name!r} appears twice (first at "
                         f"{family.seen[kind][0]}): which is meant is unknowable")
    family.seen.setdefault(kind, (place, who))
    if kind != "repetition":
        return
    family.rows += 1
    reps, index = row.get("repetitions"), row.get("repetition_index")
    if _count(reps) and reps >= 1 and family.rows > reps:
        raise InputError(source, place, f"benchmark {run_name!r} has more repetition rows than its repetitions "
                         f"({reps}) say (first at {family.seen[kind][0]}): the output holds more than one run")
    if _count(index):
        first = family.indexes.setdefault(index, place)
        if first != place:
            raise InputError(source, join(place, "repetition_index"), f"repetition {index} of benchmark {run_name!r} "
                             f"appears twice (first at {first}): the output holds more than one run")


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _index(who: tuple, fields: str):
    return who[0] if fields == "family_index" else who[1]


def _aggregate_name(row: dict, name: str, source: str, place: str) -> str | None:
    """The aggregate a row holds, or None for a plain repetition.  Old library versions wrote
    no ``run_type`` and marked the complexity rows only by a ``_BigO`` / ``_RMS`` name suffix."""
    run_type = row.get("run_type", "iteration")
    if run_type == "aggregate":
        return require(row, "aggregate_name", str, source, place)
    if run_type != "iteration":
        raise InputError(source, join(place, "run_type"), f"unknown run_type {run_type!r}")
    for suffix in COMPLEXITY_AGGREGATES:
        if name.endswith("_" + suffix) and ("big_o" in row or "rms" in row):
            return suffix
    return None


def _run_name(row: dict, name: str, aggregate: str | None, source: str, place: str) -> str:
    if "run_name" in row:
        return check_name(require(row, "run_name", str, source, place), source, join(place, "run_name"))
    if aggregate and name.endswith("_" + aggregate):
        return name[: -len(aggregate) - 1] or name
    return name


def _time_scale(row: dict, source: str, place: str) -> float:
    unit = row.get("time_unit", "ns")
    if not isinstance(unit, str) or unit not in TIME_UNITS:
        raise InputError(source, join(place, "time_unit"), f"unknown time unit {unit!r}")
    return TIME_UNITS[unit]


def _values(row: dict, source: str, place: str) -> dict[str, float]:
    """The measures one row reports: latency (ns per iteration), throughput, user counters."""
    scale = _time_scale(row, source, place)
    real = check_number(require(row, "real_time", (int, float), source, place), source, join(place, "real_time"))
    values = {"latency": scaled(real, scale, source, join(place, "real_time"))}
    for key, value in row.items():
        if key in STANDARD_FIELDS or isinstance(value, (str, bool, list, dict)) or value is None:
            continue
        measure = RATES.get(key) or check_name(key, source, join(place, key))
        if measure in values:
            raise InputError(source, join(place, key), f"counter {key!r} clashes with measure {measure!r}")
        signed = measure not in NONNEGATIVE
        values[measure] = check_number(value, source, join(place, key), allow_negative=signed)
    return values


def _complexity(row: dict, family: _Family, source: str, place: str) -> None:
    if "rms" in row:
        family.rms = check_number(row["rms"], source, join(place, "rms"))
        return
    big_o = require(row, "big_o", str, source, place)
    scale = _time_scale(row, source, place)
    real = require(row, "real_coefficient", (int, float), source, place)
    coefficient = scaled(check_number(real, source, join(place, "real_coefficient")), scale, source,
                         join(place, "real_coefficient"))
    cpu = row.get("cpu_coefficient")
    family.bigo = {"big_o": check_name(big_o, source, join(place, "big_o")), "coefficient": coefficient}
    if cpu is not None:
        family.bigo["cpu_coefficient"] = scaled(check_number(cpu, source, join(place, "cpu_coefficient")),
                                                scale, source, join(place, "cpu_coefficient"))


def _metrics(run_name: str, family: _Family) -> list[Metric]:
    metrics = []
    mean, stddev = family.aggregates.get("mean", {}), family.aggregates.get("stddev", {})
    median = family.aggregates.get("median", {})
    for measure in dict.fromkeys([*family.samples, *mean]):
        samples = tuple(family.samples.get(measure, ()))
        cost = measure in NONNEGATIVE
        if measure in mean:
            value = mean[measure]
            spread = abs(stddev.get(measure, 0.0))
            lower, upper = value - spread, value + spread
            if cost:
                lower = max(lower, 0.0)
        elif samples:
            value, lower, upper = mean_bounds(samples, nonnegative=cost)
        else:
            continue
        attrs = {"median": median[measure]} if measure in median else {}
        metrics.append(Metric(run_name, measure, value, lower, upper, samples, attrs))
    if family.bigo is not None:
        attrs = {"big_o": family.bigo["big_o"]}
        if family.rms is not None:
            attrs["rms"] = family.rms
        if "cpu_coefficient" in family.bigo:
            attrs["cpu_coefficient_ns"] = family.bigo["cpu_coefficient"]
        metrics.append(Metric(run_name, "bigo-coefficient", family.bigo["coefficient"], attrs=attrs))
    return metrics


def _context(doc: dict) -> dict:
    context = {"harness": "google-benchmark"}
    ctx = doc.get("context")
    if isinstance(ctx, dict):
        for key in ("library_version", "library_build_type", "num_cpus", "mhz_per_cpu", "date"):
            if isinstance(ctx.get(key), (str, int, float)) and not isinstance(ctx.get(key), bool):
                context[f"google_benchmark_{key}"] = ctx[key]
    return context
