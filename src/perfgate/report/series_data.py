"""What the trend pages show of one series, as plain JSON-ready dicts (pure: no I/O).

``summarise`` gives the index row (latest value, the latest change, run-to-run CV of the current
regime, state, a short sparkline) and ``chart_data`` the benchmark page's series (every point
with its interval and sample count, the threshold band, change points with their evidence).
Change points come from the detector ``perfgate detect`` uses, so pages and alerts agree.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np
import orjson

from perfgate.alert_history import WAY_BACK, ended_at, still_open, undone_by, withdrawn_at
from perfgate.detect.changepoint import ChangePoint
from perfgate.detect.load_hold import LOADED, wall_time
from perfgate.detect.stats import run_to_run_cv
from perfgate.model import BIGGER_IS_BETTER, KNOWN_MEASURES, SMALLER_IS_BETTER, Alert, Measure
from perfgate.series_search import fitted_detector
from perfgate.store import Point, SeriesKey
from perfgate.thresholds import SeriesThresholds
from perfgate.units import (_BYTES, _COUNT, _TIME, ci_level, confidence_text, evidence_text, human, p_text,
                            pct, rate_unit, streak_mean, suffix_unit, unit_of)

SPARK_POINTS = 30
# Index states, in the order the index sorts them (worst first).
STATES = ("alert", "regression", "improvement", "stable")


def scale_of(measure: str) -> dict:
    """How the pages format values of this measure, as :func:`perfgate.units.human` does:
    ``{"scale": "time", "factor": 1.0}`` for ``latency`` and ``total-ns``, ``{"scale": "time",
    "factor": 1e6}`` for ``total-ms`` (a value times the factor is in the scale's smallest unit),
    ``{"scale": "count", "factor": 1.0}`` for a measure with no unit (k/M/G), scale ``"rate"``
    for a rate, ``per`` its unit (:func:`perfgate.units.rate_unit`: ``throughput`` ops/s,
    ``items-s`` items/s).  A benchmark page's series carry it; ``common.js``'s ``inUnit``
    applies it, so the charts read what the index and the terminal write (they read 120k for 120 µs)."""
    rate = rate_unit(measure)
    if rate:
        return {"scale": "rate", "factor": 1.0, "per": rate}
    return _unit_dict(unit_of(measure)) or {"scale": "count", "factor": 1.0}


def stated_direction(measure: str) -> bool | None:
    """Whether lower is better, as far as the measure's name tells it: a known measure, a name that
    says so ("… (bigger is better)"), a rate, or a cost in a time or byte unit (``total-ns``,
    ``rss-KiB``); None for any other (a Google Benchmark user counter such as ``checksum_mod``,
    whose chart was titled "lower is better": detect takes it for a cost, the page claims nothing)."""
    m = Measure.named(measure)
    if measure in KNOWN_MEASURES or measure.endswith((BIGGER_IS_BETTER, SMALLER_IS_BETTER)) or not m.lower_is_better:
        return m.lower_is_better
    return True if scale_of(measure)["scale"] in ("time", "bytes") else None


def printed_in(unit: dict) -> tuple[str, float]:
    """A :func:`scale_of`'s (scale, factor), what :func:`column` takes."""
    return unit["scale"], unit["factor"]


def suffix_scale(measure: str) -> dict:
    """:func:`scale_of` of a measure named by its unit (a scaling sweep's ``total-ns``), ``{}`` for
    no known unit: a sweep page writes such a cost as a plain number, not a count with k/M/G."""
    return _unit_dict(suffix_unit(measure))


def _unit_dict(unit) -> dict:
    """A :func:`perfgate.units.unit_of` as the pages name it; ``{}`` for None."""
    if not unit:
        return {}
    scale, factor = unit
    return {"scale": "time" if scale is _TIME else "bytes" if scale is _BYTES else "count", "factor": factor}


def iso(t: float | None) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if t else ""


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


@dataclass
class Finding:
    """A change point located in commits: where it starts and which commits it could be."""

    key: SeriesKey
    cp: ChangePoint
    first_commit: str
    last_good_commit: str
    commit_range: str
    when: str
    siblings: list[str] | None = None   # found only where these sibling series changed
    placed_with: list[str] | None = None   # found alone, placed where these sibling series changed

    @property
    def summary(self) -> str:
        c = self.cp
        return (f"{pct(c.magnitude)} ({evidence_text(c.ci_low, c.ci_high, level=c.ci_level)}), "
                f"{human(c.before, self.key.measure)} → {human(c.after, self.key.measure)}, "
                f"confidence {confidence_text(c.p_value)} ({p_text(c.p_value)})"
                + (f", tested here because {', '.join(self.siblings)} changed here" if self.siblings else "")
                + (f", placed here because {', '.join(self.placed_with)} changed here" if self.placed_with else ""))

    def as_dict(self) -> dict:
        return self.cp.to_json() | {"first_commit": self.first_commit, "last_good_commit": self.last_good_commit,
                                    "commit_range": self.commit_range, "when": self.when,
                                    "siblings": self.siblings or [], "placed_with": self.placed_with or []}


def findings(key: SeriesKey, pts: list[Point], settings: SeriesThresholds) -> tuple[list[Finding], int]:
    """The series' change points located in its commits, and how many cold first runs the search
    set aside (the threshold band leaves them out of its baseline, as ``detect`` does).  Runs
    measured under load are left out of the search as ``detect`` leaves them (still drawn)."""
    detector = fitted_detector(key, pts, settings)
    cps = detector.predict()
    return [_finding(key, pts, cp) for cp in cps], detector.warm_up


def _finding(key: SeriesKey, pts: list[Point], cp: ChangePoint, siblings: list[str] | None = None,
             placed_with: list[str] | None = None) -> Finding:
    """A change point of ``pts`` located in its commits."""
    lo = max(cp.index_low, 1)
    span = f"{pts[lo - 1].commit[:10]}..{pts[cp.index_high].commit[:10]}"
    return Finding(key, cp, pts[cp.index].commit, pts[lo - 1].commit, span, iso(pts[cp.index].time), siblings,
                   placed_with)


def with_siblings_changes(key: SeriesKey, pts: list[Point], found: list[Finding], alerts: list[Alert]) -> list[Finding]:
    """``found`` with the changes ``perfgate detect`` found in this series only by testing it where
    its siblings changed (their alerts name the siblings): the pages search each series alone, and
    without these an alert would be a pin with no change drawn under it.  A change ``detect``
    placed at its siblings' commit (its alert names them as ``placed_with``) is drawn there
    instead of where the search alone put it, inside the alert's range."""
    at = {p.commit: i for i, p in enumerate(pts)}
    have = {f.first_commit for f in found}
    out = list(found)
    for a in alerts:
        names, placed = a.siblings, a.placed_with
        if a.kind != "change_point" or not (names or placed) or a.commit in have or a.commit not in at:
            continue
        idx = [at[c] for c in a.commit_range if c in at] or [at[a.commit]]
        i, lo, hi = at[a.commit], min(idx), max(idx)
        if i == 0:
            continue
        if placed:
            out = [f for f in out if not (f.cp.direction == a.direction and lo <= f.cp.index <= hi)]
        p = a.p_value if a.p_value is not None else 1.0
        cp = ChangePoint(index=i, index_low=lo, index_high=hi, magnitude=a.magnitude,
                         ci_low=a.ci_low if a.ci_low is not None else a.magnitude,
                         ci_high=a.ci_high if a.ci_high is not None else a.magnitude,
                         p_value=p, confidence=1.0 - p, direction=a.direction, ci_level=ci_level(a.kind, a.details),
                         before=_number(a.details.get("before"), pts[i - 1].value),
                         after=_number(a.details.get("after"), pts[i].value))
        out.append(_finding(key, pts, cp, names or None, placed or None))
        have.add(a.commit)
    return sorted(out, key=lambda f: f.cp.index)


def _number(x: object, default: float) -> float:
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else default


SIGNIFICANT = 7     # digits a chart column keeps (an exact integer keeps all of its own)
EXACT_INT = 2.0 ** 53
# the unit steps perfgate.units.human prints with, by the scale the pages name (each one's units above 1)
_STEPS = {name: tuple(factor for factor, _ in units[:-1])
          for name, units in (("time", _TIME), ("bytes", _BYTES), ("count", _COUNT), ("rate", _COUNT))}
_TENS = 10.0 ** np.arange(1, 23)


def column(values, scale: str = "count", factor: float = 1.0) -> list[float | int | None]:
    """A chart column as JSON numbers, about half the bytes of the shortest round-trip text.

    Each value keeps ``SIGNIFICANT`` significant digits (a relative error under 5e-7: a
    100,000th of a pixel on a chart whose range is 1% of its level) and no ``.0``; an exact
    integer (an instruction count, a byte count; below 2**53) is written exactly, all its digits.
    The pages print values with three significant digits (:func:`perfgate.units.human`, mirrored
    by the browser): a value the rounding would print otherwise (one within 5e-7 of a half-way
    point of its text) is written exactly, so every value's text is the stored value's —
    ``scale`` and ``factor`` are :func:`scale_of`'s, the unit the value is printed in.  No
    value (None, NaN, an infinity) is null.  Columns were float32 until 2026-11-27, which gave
    no fewer bytes (``43976604.0``) and rounded instruction counts past 2**24 to multiples of 2–8.
    The pages write :func:`column_text` of batches (:class:`Columns`); this reads it back."""
    return orjson.loads(column_text(_array(values), scale, factor))


def column_text(a: np.ndarray, scale: str, factor: float = 1.0) -> bytes:
    """:func:`column` as JSON text: numpy's float64 array through orjson (shortest round-trip
    text, null for NaN and the infinities) without each whole number's ``.0``."""
    return _WHOLE.sub(b"", orjson.dumps(encoded(a, scale, factor), option=orjson.OPT_SERIALIZE_NUMPY))


_WHOLE = re.compile(rb"\.0(?=[,\]])")     # inside a column of numbers: only a number's end


def encoded(a: np.ndarray, scale: str, factor: float = 1.0) -> np.ndarray:
    """The values :func:`column` writes, as floats.  Each is printed times ``factor`` (as
    ``common.js``'s ``inUnit`` and :func:`perfgate.units.human` multiply): compared so."""
    finite = np.isfinite(a)
    exact = finite & (np.abs(a) < EXACT_INT) & (a == np.round(a))
    r = np.where(exact, a, _rounded(a))
    with np.errstate(over="ignore", invalid="ignore"):
        differ = finite & ~exact & ~_printed_alike(a * factor, r * factor, scale)
    r[differ] = a[differ]
    return r


def _array(values) -> np.ndarray:
    if isinstance(values, np.ndarray):
        return values.astype(float)
    return np.array([np.nan if v is None else v for v in values], dtype=float)


BAND_STEPS = 20_000     # a threshold limit is drawn to a 20,000th of its chart's range


def band_steps(limits: np.ndarray, drawn: np.ndarray) -> orjson.Fragment | None:
    """A threshold limit column, which the pages draw (a dashed line) and never print, to a
    ``BAND_STEPS``-th of the range of what its chart draws of the series (``drawn``: values,
    intervals, both limits) — a 20th of a pixel on a 1,000-pixel chart, whose y axis spans at
    least that range and cannot be zoomed — as ``{"e": E, "d": [...]}``: each limit is K·10^E,
    and ``d`` holds the first K and then each K's difference from the one before (null: no
    limit there).  The limits move a little from run to run: 2-4 characters a point where 7
    significant digits took 8.  None where that cannot be done (a range of 0, steps past 2**53):
    :func:`column` then.  ``benchmark.js`` and :func:`perfgate.report.pages.read_page` undo it."""
    finite = np.isfinite(limits)
    seen = drawn[np.isfinite(drawn)]
    if not finite.any() or not seen.size:
        return None
    span = float(seen.max()) - float(seen.min())
    if not (span > 0 and math.isfinite(span)):
        return None
    e = math.floor(math.log10(span / BAND_STEPS))
    if abs(e) > 22:
        return None
    k = np.rint(limits * float(f"1e{-e}") if e < 0 else limits / float(f"1e{e}"))
    if np.abs(k[finite]).max() >= EXACT_INT:
        return None
    d = np.full(limits.shape, np.nan)
    d[finite] = np.diff(k[finite], prepend=0.0)
    return orjson.Fragment(b'{"e":%d,"d":' % e
                           + _WHOLE.sub(b"", orjson.dumps(d, option=orjson.OPT_SERIALIZE_NUMPY)) + b"}")


def unsteps(c: dict | list | None) -> list | None:
    """:func:`band_steps` undone (as ``benchmark.js`` does): the limits, null where none."""
    if not isinstance(c, dict):
        return c
    k, out, q = 0, [], float(f"1e{abs(c['e'])}")
    for d in c["d"]:
        if d is None:
            out.append(None)
        else:
            k += d
            out.append(k / q if c["e"] < 0 else k * q)
    return out


class Columns:
    """Chart columns encoded in batches: :func:`encoded` is some twenty numpy calls, 0.2 ms for
    a 200-point column, 11 s of CPU for 10,000 series' five columns one at a time.  Calling an
    instance gives a placeholder that :meth:`flush` fills with its column's JSON text (every
    column asked for since, one :func:`encoded` call per scale and factor); :func:`fragment` writes it."""

    def __init__(self) -> None:
        self.pending: list[tuple[np.ndarray, tuple[str, float], _Pending]] = []

    def __call__(self, values, scale: str = "count", factor: float = 1.0) -> "_Pending":
        out = _Pending()
        out.values = _array(values)
        self.pending.append((out.values, (scale, factor), out))
        return out

    def flush(self) -> None:
        for unit in dict.fromkeys(unit for _, unit, _ in self.pending):
            items = [(a, out) for a, u, out in self.pending if u == unit]
            done = encoded(np.concatenate([a for a, _ in items]), *unit)
            at = 0
            for a, out in items:
                out.text = _WHOLE.sub(b"", orjson.dumps(done[at:at + a.size], option=orjson.OPT_SERIALIZE_NUMPY))
                at += a.size
        self.pending.clear()


class _Pending:
    values: np.ndarray     # the column's values, as given
    text: bytes = b""


def fragment(x: object) -> orjson.Fragment:
    """orjson's ``default``: a :class:`Columns` placeholder is its JSON text."""
    if isinstance(x, _Pending):
        return orjson.Fragment(x.text)
    raise TypeError(f"{type(x).__name__} is not JSON")


_POW10 = np.array([float(10 ** k) if k >= 0 else 10.0 ** k for k in range(-350, 309)])  # [350 + k]: 10**k


def _ten(k: np.ndarray) -> np.ndarray:
    return _POW10[np.clip(k, -350, 308) + 350]


def _rounded(a: np.ndarray) -> np.ndarray:
    """``a`` to SIGNIFICANT significant digits, each the double nearest its decimal (an integer
    over or times a power of ten below 1e23, both exact: the division or product is correctly
    rounded, so the shortest text of the result is those digits).  Values past 1e±15 stay as they are."""
    size = np.abs(a)
    ok = np.isfinite(a) & (a != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.floor(np.log10(np.where(ok, size, 1.0))).astype(int)
    e += size >= _ten(e + 1)      # log10 may land an ulp off at a power of ten
    e -= size < _ten(e)
    m = SIGNIFICANT - 1 - e       # decimal places kept
    p = _ten(np.abs(m))
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.where(m >= 0, np.rint(a * p) / p, np.rint(a / p) * p)
    return np.where(ok & (np.abs(m) <= 22), out, a)


def _printed_alike(a: np.ndarray, r: np.ndarray, scale: str) -> np.ndarray:
    """Where ``r`` surely prints as ``a`` does with :func:`perfgate.units.human`'s three digits:
    same unit, same number of decimals, the same rounded digits, neither within 1e-6 of a digit's
    half-way point (where float arithmetic could decide either way).  Past what the units spell
    out (scientific notation) and 0: only where nothing changed."""
    steps = _STEPS.get(scale, _STEPS["count"])

    def parts(v: np.ndarray):
        size = np.abs(v)
        factor = np.where(size >= steps[0], steps[0], np.where(size >= steps[1], steps[1],
                                                                 np.where(size >= steps[2], steps[2], 1.0)))
        x = size / factor
        whole = 1 + np.searchsorted(_TENS, x, side="right")      # digits of the integer part
        # under 1, the place of the first digit (0.05: -1): three digits after the leading zeros
        whole = np.where((x > 0) & (x < 1), np.floor(np.log10(np.where(x > 0, x, 1.0))) + 1, whole)
        digits = np.where((factor == 1.0) & (x == np.floor(x)), 0, np.maximum(3 - whole, 0)).astype(int)
        y = x * _POW10[350 + digits]
        frac = y - np.floor(y)
        return factor, digits, np.floor(y + 0.5), np.abs(frac - 0.5) > 1e-6

    with np.errstate(invalid="ignore", over="ignore"):
        fa, da, na, clear_a = parts(a)
        fr, dr, nr, clear_r = parts(r)
        spelled = (np.abs(a) >= 1e-3) & (np.abs(a) < 1e6 * steps[0]) & (np.sign(a) == np.sign(r))
        return (r == a) | (spelled & (fa == fr) & (da == dr) & (na == nr) & clear_a & clear_r)


def stretches(indices: list[int]) -> list[int]:
    """Run indices as ``[first, count, first, count, …]``: a series' runs are mostly one stretch
    of its page's run table (3.5 bytes a point written one by one)."""
    out: list[int] = []
    for i in indices:
        if out and out[-2] + out[-1] == i:
            out[-1] += 1
        else:
            out += [i, 1]
    return out


def summarise(key: SeriesKey, pts: list[Point], found: list[Finding], alerts: list[Alert]) -> dict:
    """The index row: enough to sort, filter and draw a sparkline, not every point."""
    last = found[-1] if found else None
    regime = [p.value for p in pts[last.cp.index:]] if last else [p.value for p in pts]
    # "alert": a regression still there (as notify leaves its issue open)
    fixes = undone_by(alerts)
    open_alerts = [a for a in alerts if still_open(a, fixes)]
    state = ("alert" if open_alerts else last.cp.direction if last else "stable")
    spark = [_finite(p.value) for p in pts[-SPARK_POINTS:]]
    drawn = [v for v in spark if v is not None]
    spark_text = (f"last {len(spark)} runs, from {human(drawn[0], key.measure)} to {human(drawn[-1], key.measure)}"
                  f" (lowest {human(min(drawn), key.measure)}, highest {human(max(drawn), key.measure)})"
                  if drawn else "no values")
    return {
        "branch": key.branch, "testbed": key.testbed, "benchmark": key.benchmark, "measure": key.measure,
        "suite": key.benchmark.split("/", 1)[0] if "/" in key.benchmark else "",
        "runs": len(pts), "latest": _finite(pts[-1].value), "latest_text": human(pts[-1].value, key.measure),
        "latest_commit": pts[-1].commit, "latest_time": iso(pts[-1].time),
        "delta": last.cp.magnitude if last else None, "delta_commit": last.first_commit if last else "",
        "direction": last.cp.direction if last else "",
        "cv": run_to_run_cv(regime), "state": state, "alerts": len(open_alerts), "spark": spark,
        "spark_text": spark_text,
    }


def _way_back(fix: Alert | None) -> dict | None:
    """The size, interval and p-value of the way back that undid an alert, when no alert is it."""
    if fix is None or fix.kind != WAY_BACK:
        return None
    return {"magnitude": fix.magnitude, "ci_low": fix.ci_low, "ci_high": fix.ci_high, "p_value": fix.p_value,
            "ci_level": ci_level(fix.kind, fix.details)}


def chart_data(key: SeriesKey, pts: list[Point], band: dict | None, found: list[Finding],
               alerts: list[Alert], run_of: dict[str, int], skipped: int = 0, encode=column) -> dict:
    """One series of a benchmark page, in columns.  Commits and dates are the page's (``run``
    indexes its run table, ``run_of`` maps run ids to it); ``lower``/``upper`` and ``n`` are left
    out when no point has them — a 10,000-series site stays a tenth of its naive size.  ``band``:
    the threshold test's limits per point (:func:`perfgate.report.threshold_band.bands`), of the
    points drawn.  ``skipped``: the oldest runs left out of the chart (``pages --max-runs``); its
    change points keep their indices in the whole series (as ``data.json``'s), and those before
    the chart are listed, not drawn.  ``encode``: :func:`column`, or a :class:`Columns` batch."""
    fixes = undone_by(alerts)
    every, pts = len(pts), pts[skipped:]
    unit = scale_of(key.measure)
    out = {
        "branch": key.branch, "testbed": key.testbed, "measure": key.measure, **unit,
        "lower_is_better": stated_direction(key.measure),        # None: not known, not claimed
        "run": stretches([run_of[p.run_id] for p in pts]), "value": encode([p.value for p in pts], *printed_in(unit)),
        "band": band, "change_points": [f.as_dict() for f in found],
        "alerts": [{"id": a.id, "commit": a.commit, "kind": a.kind, "direction": a.direction,
                    "magnitude": a.magnitude, "ci_low": a.ci_low, "ci_high": a.ci_high, "p_value": a.p_value,
                    "status": a.status, "commit_range": list(a.commit_range), "created": iso(a.created),
                    "siblings": a.siblings, "placed_with": a.placed_with,
                    "undone_at": fixes[a.id].commit if a.id in fixes else None,
                    # undone by a way back of its series (a revert) that is no alert: its evidence
                    "went_back": _way_back(fixes.get(a.id)),
                    "ended_at": ended_at(a) or None, "withdrawn_at": withdrawn_at(a) or None,
                    # a threshold alert's interval is of its streak's mean, not of its first value
                    "streak_change": streak_mean(a.kind, a.details),
                    "ci_level": ci_level(a.kind, a.details)}     # null: not known, said as "CI"
                   for a in alerts],
    }
    if skipped:
        out["skipped"], out["runs_total"] = skipped, every
    if any(p.lower is not None or p.upper is not None for p in pts):
        out["lower"] = encode([p.lower for p in pts], *printed_in(unit))
        out["upper"] = encode([p.upper for p in pts], *printed_in(unit))
    if any(p.samples for p in pts):
        out["n"] = [len(p.samples) or 1 for p in pts]
    loaded = _loaded(key.measure, pts)
    if loaded:
        out["loaded"] = loaded
    return out


def _loaded(measure: str, pts: list[Point]) -> list[list]:
    """``[[index, contended], …]``: the wall-time points measured while other processes took at
    least ``LOADED`` of the CPU the benchmark needed (``host_load``), which ``detect`` leaves out of
    its change point search and whose threshold streaks it holds when the load explains them: the
    page draws them hollow and says so, or a spike the alerts passed over reads as missed."""
    if not wall_time(measure):
        return []
    return [[i, round(p.load, 2)] for i, p in enumerate(pts) if p.load is not None and p.load >= LOADED]
