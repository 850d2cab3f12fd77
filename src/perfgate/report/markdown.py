"""A pull-request comment (GitHub-flavoured Markdown) for an A/B comparison.

Regressions and improvements first, each with its effect, confidence interval, q-value and the
smallest change the run could have seen; everything else folded away.  Names, commits, branches
and testbeds come from data: each is a code span (:func:`perfgate.escape.markdown_code`) or escaped
prose (:func:`perfgate.escape.markdown_text`), so none can break the table, mention someone, show
an image or link anywhere.
"""

from __future__ import annotations

import math

from perfgate.detect.compare import Comparison, Verdict
from perfgate.escape import markdown_code, markdown_text
from perfgate.units import human

MARKER = "<!-- perfgate-comment -->"  # lets a workflow find and update its own comment


def _pct(x: float | None, sign: bool = True) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    return f"{x * 100:+.2f}%" if sign else f"{x * 100:.2f}%"


def _row(v: Verdict) -> str:
    ci = f" [{_pct(v.ci_low)}, {_pct(v.ci_high)}]" if v.ci_low is not None else ""
    q = "—" if v.q_value is None else f"{v.q_value:.2g}"
    icon = {"regression": "🔴", "improvement": "🟢", "no-change": "⚪", "insufficient-data": "❔"}[v.verdict]
    verdict = v.verdict + (f" ({v.note})" if v.note else "")
    return (f"| {icon} {markdown_code(v.benchmark)} | {markdown_code(v.measure)} | {human(v.base_median, v.measure)} | "
            f"{human(v.head_median, v.measure)} | **{_pct(v.effect)}**{ci} | {q} | {_pct(v.mde, sign=False)} | "
            f"{markdown_text(verdict)} |")


_HEADER = ("| benchmark | measure | base | head | change [CI] | q | smallest detectable | verdict |\n"
           "|---|---|--:|--:|--:|--:|--:|---|")


def comparison_markdown(c: Comparison, title: str = "perfgate") -> str:
    regressions, improvements = c.regressions, c.improvements
    if regressions:
        headline = f"❌ **{len(regressions)} performance regression(s)**"
    else:
        headline = "✅ **No performance regression**"
    base = f"{markdown_code(c.base.get('commit', '?')[:10])} ({markdown_code(c.base.get('branch', '?'))})"
    head = f"{markdown_code(c.head.get('commit', '?')[:10])} ({markdown_code(c.head.get('branch', '?'))})"
    lines = [MARKER, f"### {markdown_text(title)}: {headline}", "",
             f"Head {head} against base {base} on testbed {markdown_code(c.head.get('testbed', '?'))}: "
             f"{len(c.verdicts)} comparisons, {len(improvements)} improvement(s); false discovery rate "
             f"controlled at {c.alpha:g} (Benjamini–Hochberg), effects are Hodges–Lehmann shifts with "
             f"{(1 - c.alpha) * 100:g}% intervals.", ""]
    lines += [f"> {markdown_text(w)}" for w in c.warnings]
    flagged = regressions + improvements
    if flagged:
        lines += [_HEADER, *map(_row, flagged), ""]
    rest = [v for v in c.verdicts if v not in flagged]
    if rest:
        lines += [f"<details><summary>{len(rest)} other comparison(s)</summary>", "", _HEADER, *map(_row, rest),
                  "", "</details>"]
    return "\n".join(lines) + "\n"
