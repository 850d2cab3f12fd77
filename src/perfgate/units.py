"""Human-readable numbers: durations from nanoseconds, counts, bytes, relative changes, and sparklines."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

_TIME = [(1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns")]
_BYTES = [(1024.0 ** 3, "GiB"), (1024.0 ** 2, "MiB"), (1024.0, "KiB"), (1.0, "B")]
_COUNT = [(1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")]
_SCALES = {"latency": _TIME, "peak-rss": _BYTES, "allocated-bytes": _BYTES, "file-size": _BYTES}
_RATES = {"throughput": "ops/s"}   # adapters record operations (items, hz) per second as throughput
SPARKS = "▁▂▃▄▅▆▇█"
# The unit a measure's name may end in ("total-ns": a scaling TSV's total(ns) column): the scale
# it is on and its size in that scale's smallest unit, read off the scales above.
_SUFFIXES = {unit: (scale, factor) for scale in (_TIME, _BYTES) for factor, unit in scale}
_SUFFIXES |= {"us": _SUFFIXES["µs"], "bytes": _SUFFIXES["B"]}


def suffix_unit(measure: str) -> tuple[list[tuple[float, str]], float] | None:
    """``suffix_unit("total-ms") == (_TIME, 1e6)``; None when the name ends in no known unit."""
    head, dash, unit = measure.rpartition("-")
    return _SUFFIXES.get(unit) if dash and head else None


def human(value: float | None, measure: str = "", significant: int = 3) -> str:
    """``human(1.5e6, "latency") == "1.50 ms"``; unknown measures get k/M/G suffixes.
    ``significant`` digits are shown (at least the integer part); a value past a million of the
    largest unit, or under a thousandth of the smallest, in scientific notation of the smallest
    (a 1e308 count was 300 digits wide)."""
    if value is None or not math.isfinite(value):
        return "—"
    if measure in _RATES:       # a count per second: "803k ops/s"
        return f"{human(value, '', significant)} {_RATES[measure]}"
    scale = _SCALES.get(measure, _COUNT)
    if value and not 1e-3 <= abs(value) < 1e6 * scale[0][0]:   # beyond what the units spell out
        return f"{value:.{significant - 1}e} {scale[-1][1]}".rstrip()
    for factor, unit in scale:
        if abs(value) >= factor or factor == 1.0:
            scaled = value / factor
            whole = len(str(int(abs(scaled))))
            digits = 0 if unit in ("", "B", "ns") and float(scaled).is_integer() else significant - whole
            text = f"{scaled:.{max(digits, 0)}f}"
            if digits > 0 and len(str(int(abs(float(text))))) > whole:   # 9.997 rounds to "10.00": "10.0"
                text = f"{scaled:.{digits - 1}f}"
            return f"{text} {unit}".rstrip() if unit not in ("k", "M", "G") else f"{text}{unit}"
    return str(value)


def sparkline(values: Sequence[float]) -> str:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return ""
    lo, hi = min(finite), max(finite)
    span = hi - lo
    if span == 0:
        return SPARKS[3] * len(values)
    return "".join(SPARKS[min(int((v - lo) / span * len(SPARKS)), len(SPARKS) - 1)] for v in finite)


def percent(ratio: float | None) -> str:
    if ratio is None or not math.isfinite(ratio):
        return "—"
    return f"{(ratio - 1) * 100:+.1f}%"


PCT_CEILING = 100.0   # 10,000%: a change (or a detectable effect) past it is written as a bound


def pct(x: float | None, sign: bool = True) -> str:
    """A relative change as a percentage, ``pct(0.0123) == "+1.23%"``; ``"—"`` for none or a
    non-finite value (``sign=False`` for magnitudes such as a detectable effect)."""
    if x is None or not math.isfinite(x):
        return "—"
    if abs(x) >= PCT_CEILING:   # a detectable effect of 2 rounds overflowed to 127 digits
        return ("> " if x > 0 else "< ") + (("+" if x > 0 else "-") if sign else "") + f"{PCT_CEILING * 100:,.0f}%"
    return f"{x * 100:+.2f}%" if sign else f"{x * 100:.2f}%"


def streak_mean(kind: str | None, details: Mapping[str, Any] | None) -> float | None:
    """A threshold alert's streak mean, as a relative change from its baseline (``streak_change``,
    which its interval is of); None for a change point, or an alert that did not keep it."""
    x = (details or {}).get("streak_change") if kind == "threshold" else None
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


def evidence_text(ci_low: float | None, ci_high: float | None, mean: float | None = None,
                  level: float | None = None) -> str:
    """An alert's interval as ``detect``, ``alerts`` and ``notify`` write it, '' without one:
    ``[+17.88%, +20.81%]``.  A threshold alert's is of its streak's mean (:func:`streak_mean`),
    which its size, the value it alerted at, need not lie inside, so the mean comes first:
    ``streak mean +19.34% [+17.88%, +20.81%]``.  ``level`` names the interval where no column
    header does: ``streak mean +19.34%, 95% CI [+17.88%, +20.81%]``."""
    if ci_low is None or ci_high is None:
        return ""
    interval = f"[{pct(ci_low)}, {pct(ci_high)}]"
    if level is not None:
        interval = f"{level * 100:g}% CI {interval}"
    if mean is None:
        return interval
    return f"streak mean {pct(mean)}{',' if level is not None else ''} {interval}"


P_FLOOR = 1e-15   # below this a p-value is written as a bound: "p = 0" would claim a certainty no test has


def p_cell(p: float) -> str:
    """A p- or q-value for a table column: ``"0.012"``, or ``"< 1e-15"`` for a smaller one (a
    deterministic series' p-value underflows to 0, and 1 - p can no longer be told from 1)."""
    return f"< {P_FLOOR:g}" if p < P_FLOOR else f"{p:.2g}"


def p_text(p: float, symbol: str = "p") -> str:
    """``p_text(0.0123) == "p = 0.012"``, ``p_text(0.0) == "p < 1e-15"``."""
    cell = p_cell(p)
    return f"{symbol} {cell}" if cell.startswith("<") else f"{symbol} = {cell}"


def confidence_text(p: float) -> str:
    """``1 - p`` as a percentage, ``"99.73%"``; ``"> 99.99%"`` where two decimals would round it
    up to a certainty."""
    c = max(0.0, 1.0 - p) * 100
    return "> 99.99%" if c >= 99.995 else f"{c:.2f}%"
