"""A pull-request comment (GitHub-flavoured Markdown) for an A/B comparison.

Regressions and improvements first, each with its effect, confidence interval, q-value and the
smallest change the run could have seen; everything else folded away.  All names are escaped so a
benchmark called ``<script>`` or ``a|b`` cannot break the table or the page.
"""

from __future__ import annotations

import html
import math

from perfgate.detect.compare import Comparison, Verdict
from perfgate.units import human

MARKER = "<!-- perfgate-comment -->"  # lets a workflow find and update its own comment


def _cell(text: str) -> str:
    return html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


def _pct(x: float | None, sign: bool = True) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    return f"{x * 100:+.2f}%" if sign else f"{x * 100:.2f}%"


def _row(v: Verdict, tied: list[Verdict] = ()) -> str:
    ci = f" [{_pct(v.ci_low)}, {_pct(v.ci_high)}]" if v.ci_low is not None else ""
    # a tied measure (throughput from the same timings) is the same finding: shown in its row
    also = "".join(f" ({_cell(t.measure)} {_pct(t.effect)})" for t in tied)
    q = "—" if v.q_value is None else f"{v.q_value:.2g}"
    icon = {"regression": "🔴", "improvement": "🟢", "no-change": "⚪", "insufficient-data": "❔"}[v.verdict]
    verdict = v.verdict + (f" ({v.note})" if v.note else "")
    return (f"| {icon} {_cell(v.benchmark)} | {_cell(v.measure)}{also} | {human(v.base_median, v.measure)} | "
            f"{human(v.head_median, v.measure)} | **{_pct(v.effect)}**{ci} | {q} | {_pct(v.mde, sign=False)} | "
            f"{_cell(verdict)} |")


_HEADER = ("| benchmark | measure | base | head | change [CI] | q | smallest detectable | verdict |\n"
           "|---|---|--:|--:|--:|--:|--:|---|")


def comparison_markdown(c: Comparison, title: str = "perfgate") -> str:
    regressions, improvements = c.findings("regression"), c.findings("improvement")
    if regressions:
        headline = f"❌ **{len(regressions)} performance regression(s)**"
    else:
        headline = "✅ **No performance regression**"
    base = f"`{c.base.get('commit', '?')[:10]}` ({_cell(c.base.get('branch', '?'))})"
    head = f"`{c.head.get('commit', '?')[:10]}` ({_cell(c.head.get('branch', '?'))})"
    lines = [MARKER, f"### {_cell(title)}: {headline}", "",
             f"Head {head} against base {base} on testbed `{_cell(c.head.get('testbed', '?'))}`: "
             f"{len(c.verdicts)} comparisons, {len(improvements)} improvement(s); false discovery rate "
             f"controlled at {c.alpha:g} (Benjamini–Hochberg), effects with {(1 - c.alpha) * 100:g}% intervals; "
             f"a throughput and its latency are one finding.", ""]
    lines += [f"> {_cell(w)}" for w in c.warnings]
    lines += [f"> **{_cell(n)}**" if "cannot" in n else f"> {_cell(n)}" for n in c.notes]
    if c.warnings or c.notes:
        lines.append("")
    flagged = regressions + improvements
    if flagged:
        lines += [_HEADER, *(_row(v, tied) for v, tied in flagged), ""]
    shown = {id(x) for v, tied in flagged for x in (v, *tied)}
    rest = [v for v in c.verdicts if id(v) not in shown]
    if rest:
        lines += [f"<details><summary>{len(rest)} other comparison(s)</summary>", "", _HEADER, *map(_row, rest),
                  "", "</details>"]
    return "\n".join(lines) + "\n"
