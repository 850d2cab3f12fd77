"""Human-readable numbers: durations from nanoseconds, counts, rates, bytes (by the measure's name,
or the unit it ends in), plain numbers, values with their intervals, relative changes, and sparklines."""

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
_PER_TIME = {unit: "µs" if unit == "us" else unit for _, unit in _TIME} | {"us": "µs"}
# Words that count things done, so a time unit after them is a rate's, not the value's: "items-s"
# is items a second (a "total-s" is seconds).  "throughput" is operations (as _RATES says).
_COUNTED = {"ops": "ops", "items": "items", "iter": "iter", "req": "req", "requests": "requests",
            "bytes": "bytes", "throughput": "ops"}


def rate_unit(measure: str) -> str | None:
    """The unit of a measure named as a count per unit of time, None for any other.  A time unit
    ending a name is the rate's (the name's "per"), never the value's, when the word before it is
    ``per`` (``bytes-per-s``: ``"bytes/s"``, ``x-per-ms``: ``"x/ms"``) or counts things done
    (:data:`_COUNTED`: ``ops-s``, ``items-s``, ``throughput-items-s``: ``"items/s"``);
    ``throughput`` is ``"ops/s"``.  Any other name keeps its unit: ``total-s`` is seconds."""
    if measure in _RATES:
        return _RATES[measure]
    *words, unit = measure.split("-")
    if unit not in _PER_TIME or not words:
        return None
    if words[-1] == "per":
        return f"{words[-2] if len(words) > 1 else ''}/{_PER_TIME[unit]}"
    return f"{_COUNTED[words[-1]]}/{_PER_TIME[unit]}" if words[-1] in _COUNTED else None


def suffix_unit(measure: str) -> tuple[list[tuple[float, str]], float] | None:
    """``suffix_unit("total-ms") == (_TIME, 1e6)``; None when the name ends in no known unit, or
    names a rate (:func:`rate_unit`: ``items-s`` is no number of seconds)."""
    head, dash, unit = measure.rpartition("-")
    return _SUFFIXES.get(unit) if dash and head and not rate_unit(measure) else None


def unit_of(measure: str) -> tuple[list[tuple[float, str]], float] | None:
    """The scale a measure's values are on and the size of one value in that scale's smallest
    unit: by its name (``latency``: nanoseconds) or the unit it ends in (``total-ms``); None for
    a plain count."""
    scale = _SCALES.get(measure)
    return (scale, 1.0) if scale else suffix_unit(measure)


def is_duration(measure: str) -> bool:
    """Whether a measure's values are durations: ``latency`` or a name ending in a time unit
    (``total-ms``); not a rate (``items-s``), a count or a size."""
    unit = unit_of(measure)
    return unit is not None and unit[0] is _TIME


def human(value: float | None, measure: str = "", significant: int = 3) -> str:
    """``human(1.5e6, "latency") == human(1.5, "total-ms") == "1.50 ms"``; a rate (:func:`rate_unit`)
    a count over its unit, ``human(1200, "items-s") == "1.20k items/s"``; unknown measures get
    k/M/G suffixes.  ``significant`` digits are shown (at least the integer part; under 1, after
    the leading zeros: 0.0974 ns); a value past a million of the largest unit, or under a
    thousandth of the smallest, in scientific notation of the smallest (a 1e308 count was 300
    digits wide)."""
    if value is None or not math.isfinite(value):
        return "—"
    rate = rate_unit(measure)
    if rate:       # a count per unit of time: "803k ops/s", "1.20k items/s"
        return f"{human(value, '', significant)} {rate}"
    scale, value = _in_smallest(value, measure)
    factor, unit = _step(value, scale)
    if factor is None:   # beyond what the units spell out
        return f"{value:.{significant - 1}e} {unit}".rstrip()
    scaled = value / factor
    # no thousands separator: common.js's human, which the pages' charts write with, has none
    text = _fixed(scaled, 0 if unit in ("", "B", "ns") and float(scaled).is_integer() else None, significant, "")
    return f"{text} {unit}".rstrip() if unit not in ("k", "M", "G") else f"{text}{unit}"


def number(value: float | None, significant: int = 3) -> str:
    """A plain number as the text of a value without a unit writes it: ``number(1003842.4) ==
    "1,003,842"``, ``number(0.09743) == "0.0974"`` — ``significant`` digits, at least the
    integer part, thousands separated; scientific only past 1e15 or under 1e-3
    (``1.004e+06`` read as a formula's constant)."""
    if value is None or not math.isfinite(value):
        return "—"
    if value and not 1e-3 <= abs(value) < 1e15:
        return f"{value:.{significant - 1}e}"
    return _fixed(value, 0 if float(value).is_integer() else None, significant)


def quantity(value: float | None, measure: str = "", significant: int = 3) -> str:
    """A value of ``measure`` in its unit where the measure has one (``"120 µs"`` for 120,000 of
    ``total-ns``), else a plain :func:`number` (``"120,000"``): a coefficient of a fitted cost
    model, which k/M/G would make read like a count."""
    return human(value, measure, significant) if unit_of(measure) else number(value, significant)


def interval(value: float, low: float, high: float, measure: str = "", significant: int = 4,
             sign: bool = False) -> str:
    """A value with its interval, both in the value's unit: ``"26.92 ns [26.64, 27.20]"``,
    ``"1.004 ms [0.839, 1.169]"``; without a unit ``"1,003,842 [838,701, 1,168,983]"``.
    ``sign``: a change, each number with its sign (``"+942 ns [-4, +1,889]"``)."""
    plus = "+" if sign else ""

    def signed(text: str, x: float) -> str:
        return plus + text if x >= 0 else text

    if not all(math.isfinite(x) for x in (value, low, high)):
        return f"{signed(quantity(value, measure, significant), value)} [" \
               f"{signed(quantity(low, measure, significant), low)}, {signed(quantity(high, measure, significant), high)}]"
    text = signed(quantity(value, measure, significant), value)
    unit = unit_of(measure)
    if unit:   # the bounds in the unit the value's text is in
        factor, name = _step(value * unit[1], unit[0])
        bounds = [x * unit[1] for x in (low, high)]
    else:
        factor, name, bounds = (1.0 if 1e-3 <= abs(value) < 1e15 or not value else None), "", [low, high]
    if factor is None:   # the value in scientific notation: the bounds too
        return f"{text} [{bounds[0]:{plus}.{significant - 1}e}, {bounds[1]:{plus}.{significant - 1}e}]"
    decimals = len(text.removesuffix(name).strip().partition(".")[2])
    return f"{text} [{bounds[0] / factor:{plus},.{decimals}f}, {bounds[1] / factor:{plus},.{decimals}f}]"


def _in_smallest(value: float, measure: str) -> tuple[list[tuple[float, str]], float]:
    """(the measure's scale, the value in that scale's smallest unit)."""
    unit = unit_of(measure)
    return (unit[0], value * unit[1]) if unit else (_COUNT, value)


def _step(value: float, scale: list[tuple[float, str]]) -> tuple[float | None, str]:
    """The unit of ``scale`` a value is written in: (its size, its name); size None past a
    million of the largest unit or under a thousandth of the smallest."""
    if value and not 1e-3 <= abs(value) < 1e6 * scale[0][0]:
        return None, scale[-1][1]
    return next((f, u) for f, u in scale if abs(value) >= f or f == 1.0)


def _fixed(x: float, decimals: int | None, significant: int, thousands: str = ",") -> str:
    """``x`` to ``decimals`` places, or to ``significant`` digits (at least its integer part; a
    number under 1 to that many after its leading zeros), ``thousands`` separated."""
    if decimals is None:
        decimals = significant - _digits(x)
    text = f"{x:{thousands}.{max(decimals, 0)}f}"
    if decimals > 0 and x and _digits(float(text.replace(",", ""))) > _digits(x):
        text = f"{x:{thousands}.{decimals - 1}f}"   # 9.997 rounds to "10.00": "10.0"
    return text


def _digits(x: float) -> int:
    """Where a number's first digit is: 3 for 123, 1 for 1 (and 0), 0 for 0.5, -1 for 0.05."""
    if abs(x) >= 1 or not x:
        return len(str(int(abs(x))))   # exact where a logarithm can round 999.99… up to 3
    return math.floor(math.log10(abs(x))) + 1


SPARK_MIN_RANGE = 0.10   # a sparkline's height spans at least 10% of its level (terminal and pages)


def sparkline(values: Sequence[float]) -> str:
    """Bars from low to high, centred on the values' midpoint and spanning at least 10% of it, so
    a drift of 0.01% (an instruction count growing by a comment line a commit) is a flat line,
    not a ramp from the lowest bar to the highest, and a 15% step fills the height."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return ""
    lo, hi = min(finite), max(finite)
    if hi == lo:
        return SPARKS[3] * len(values)
    mid = lo / 2 + hi / 2       # halves: the span of values near ±1.7e308 would overflow
    half = max(hi / 2 - lo / 2, SPARK_MIN_RANGE / 2 * abs(mid))
    top = len(SPARKS) - 1       # (v/2 − mid/2) / half runs from −½ to +½ over the values' span
    return "".join(SPARKS[max(0, min(int(((v / 2 - mid / 2) / half + 0.5) * len(SPARKS)), top))] for v in finite)


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


# The level of a threshold alert's interval, the streak's against its baseline (the only one it
# was ever computed at; ``threshold_tests.EVIDENCE_LEVEL``, here so that text needs no scipy).
STREAK_LEVEL = 0.95
# Where an alert keeps its interval's level, as ``detect`` recorded it: a change point's is the
# change point settings' confidence (0.99 by default, a thresholds file's own), not the 95% of a
# threshold streak.
CI_LEVEL = "ci_level"


def ci_level(kind: str | None, details: Mapping[str, Any] | None) -> float | None:
    """The level of an alert's interval: the one it was recorded with (``details["ci_level"]``);
    for a threshold alert recorded before levels were kept, :data:`STREAK_LEVEL`, which its streak's
    interval always had; None for such a change point, whose level was the thresholds' of that
    day, unrecorded (a thresholds file may have changed it since, so any number could be wrong)."""
    x = (details or {}).get(CI_LEVEL)
    if isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x < 1:
        return float(x)
    return STREAK_LEVEL if kind == "threshold" else None


def ci_label(level: float | None) -> str:
    """``"99% CI"``, ``"99.9% CI"``; ``"CI"`` for a level not known (never a guessed number)."""
    return f"{round(level * 100, 4):g}% CI" if level is not None else "CI"


def evidence_text(ci_low: float | None, ci_high: float | None, mean: float | None = None,
                  level: float | None = None) -> str:
    """An alert's interval as ``detect``, ``alerts``, ``notify`` and the pages write it, '' without
    one, named with its level (:func:`ci_label`; change points' and threshold streaks' differ):
    ``99% CI [+9.60%, +14.40%]``.  A threshold alert's is of its streak's mean
    (:func:`streak_mean`), which its size, the value it alerted at, need not lie inside, so the
    mean comes first: ``streak mean +19.34%, 95% CI [+17.88%, +20.81%]``."""
    if ci_low is None or ci_high is None:
        return ""
    interval = f"{ci_label(level)} [{pct(ci_low)}, {pct(ci_high)}]"
    return interval if mean is None else f"streak mean {pct(mean)}, {interval}"


def alert_evidence(kind: str | None, ci_low: float | None, ci_high: float | None,
                   details: Mapping[str, Any] | None) -> str:
    """:func:`evidence_text` of an alert (or ``detect``'s report entry of one: ``details`` holds
    its streak mean and level)."""
    return evidence_text(ci_low, ci_high, streak_mean(kind, details), ci_level(kind, details))


def went_back_text(back: Mapping[str, Any]) -> str:
    """A regression's way back (``details["went_back"]``, ``alert_history.WENT_BACK``) as ``detect``
    and ``alerts`` write it: ``went back -22.54% 99% CI [-31.46%, -12.46%], p = 0.0075``, its
    interval at the level it was computed at (the series' change point ``confidence``)."""
    ci = evidence_text(back.get("ci_low"), back.get("ci_high"), level=ci_level(None, {CI_LEVEL: back.get("confidence")}))
    return f"went back {pct(back.get('magnitude'))}{' ' + ci if ci else ''}, {p_text(back.get('p_value'))}"


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
