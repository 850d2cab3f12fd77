"""A series as an inline SVG chart: values with their lower/upper band, change points marked.

Pure (no I/O).  Every point carries a ``<title>``, which browsers show on hover, so the chart is
interactive without any script and works offline.  All text is escaped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from perfgate.escape import html_text as escape
from typing import Sequence

from perfgate.units import human

WIDTH, HEIGHT = 640, 180
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 64, 12, 12, 24


@dataclass
class ChartPoint:
    label: str          # commit (short) shown on hover
    value: float
    lower: float | None = None
    upper: float | None = None


@dataclass
class ChartMark:
    index: int          # first point of the new regime
    regression: bool
    text: str           # e.g. "+12.3% [+9.8, +14.9] at abc1234 (p=0.0001)"


def _ticks(lo: float, hi: float, count: int = 4) -> list[float]:
    if hi <= lo:
        return [lo]
    step = (hi - lo) / count
    return [lo + i * step for i in range(count + 1)]


def _tick_labels(ticks: list[float], measure: str) -> list[str]:
    """Labels with just enough digits to tell the ticks apart (a 0.4% step needs five)."""
    for significant in range(3, 9):
        labels = [human(t, measure, significant) for t in ticks]
        if len(set(labels)) == len(labels):
            break
    return labels


def render_svg(points: Sequence[ChartPoint], marks: Sequence[ChartMark], measure: str, title: str) -> str:
    if not points:
        return ""
    values = [p.value for p in points]
    bounds = values + [b for p in points for b in (p.lower, p.upper) if b is not None and math.isfinite(b)]
    lo, hi = min(bounds), max(bounds)
    if hi == lo:
        lo, hi = lo - abs(lo) * 0.05 - 1e-9, hi + abs(hi) * 0.05 + 1e-9
    margin = (hi - lo) * 0.08
    lo, hi = lo - margin, hi + margin
    n = len(points)
    inner_w, inner_h = WIDTH - PAD_LEFT - PAD_RIGHT, HEIGHT - PAD_TOP - PAD_BOTTOM

    def x(i: float) -> float:
        return PAD_LEFT + (inner_w * (i / (n - 1)) if n > 1 else inner_w / 2)

    def y(v: float) -> float:
        return PAD_TOP + inner_h * (1 - (v - lo) / (hi - lo))

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}" '
             f'xmlns="http://www.w3.org/2000/svg">']
    ticks = _ticks(lo + margin, hi - margin)
    for t, label in zip(ticks, _tick_labels(ticks, measure)):
        parts.append(f'<line class="grid" x1="{PAD_LEFT}" x2="{WIDTH - PAD_RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}"/>'
                     f'<text class="axis" x="{PAD_LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end">'
                     f'{escape(label)}</text>')
    band = [(i, p) for i, p in enumerate(points) if p.lower is not None and p.upper is not None]
    if len(band) > 1:
        upper = " ".join(f"{x(i):.1f},{y(p.upper):.1f}" for i, p in band)
        lower = " ".join(f"{x(i):.1f},{y(p.lower):.1f}" for i, p in reversed(band))
        parts.append(f'<polygon class="band" points="{upper} {lower}"/>')
    for m in marks:
        cls = "cp regression" if m.regression else "cp improvement"
        xm = x(m.index - 0.5) if m.index > 0 else x(0)
        parts.append(f'<line class="{cls}" x1="{xm:.1f}" x2="{xm:.1f}" y1="{PAD_TOP}" y2="{HEIGHT - PAD_BOTTOM}">'
                     f'<title>{escape(m.text)}</title></line>')
    path = " ".join(f"{'M' if i == 0 else 'L'}{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    parts.append(f'<path class="series" d="{path}"/>')
    radius = 3 if n <= 120 else 1.5
    for i, p in enumerate(points):
        tip = f"{p.label}: {human(p.value, measure)}"
        if p.lower is not None and p.upper is not None:
            tip += f" ({human(p.lower, measure)} … {human(p.upper, measure)})"
        parts.append(f'<circle class="pt" cx="{x(i):.1f}" cy="{y(p.value):.1f}" r="{radius}">'
                     f'<title>{escape(tip)}</title></circle>')
    parts.append(f'<text class="axis" x="{PAD_LEFT}" y="{HEIGHT - 6}">{escape(points[0].label)}</text>'
                 f'<text class="axis" x="{WIDTH - PAD_RIGHT}" y="{HEIGHT - 6}" text-anchor="end">'
                 f'{escape(points[-1].label)}</text></svg>')
    return "".join(parts)
