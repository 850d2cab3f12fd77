"""A pull-request comment (GitHub-flavoured Markdown) for an A/B comparison.

Regressions and improvements first, each with its effect, confidence interval, q-value and the
smallest change the run could have seen; everything else folded away.  Names, commits, branches
and testbeds come from data: each is a code span (:func:`perfgate.escape.markdown_code`) or escaped
prose (:func:`perfgate.escape.markdown_text`), so none can break the table, mention someone, show
an image or link anywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from perfgate.detect.compare import INTERVALS_NOTE, Comparison, NothingJudged, Verdict, severity
from perfgate.escape import markdown_block, markdown_code, markdown_text
from perfgate.units import human, p_cell, pct

if TYPE_CHECKING:   # the rows come from perfgate.complexity, whose fitting code is slow to import
    from perfgate.complexity.compare import ComplexityRow

MARKER = "<!-- perfgate-comment -->"  # lets a workflow find and update its own comment
# GitHub refuses comments over 65,536 characters; stay clear of it with room for the workflow's marker.
MAX_CHARS = 60_000
_KEY = re.compile(r"[^A-Za-z0-9._-]")


def marker(key: str = "") -> str:
    """The comment's marker; one per job (``key``) so matrix jobs keep one sticky comment each."""
    key = _KEY.sub("-", key)[:100]
    return f"<!-- perfgate-comment:{key} -->" if key else MARKER


@dataclass(frozen=True)
class Links:
    """Where the comment points: commits, the workflow run, the trend pages (all optional)."""

    repository_url: str = ""   # e.g. https://github.com/owner/repo
    run_url: str = ""
    pages_url: str = ""
    summary_note: str = "the job summary"

    def commit(self, sha: str) -> str:
        short = markdown_code(sha[:7])
        if self.repository_url and re.fullmatch(r"[0-9a-f]{7,64}", sha):
            return f"[{short}]({self.repository_url}/commit/{sha})"
        return short


def _row(v: Verdict, tied: list[Verdict] = ()) -> str:
    ci = v.marked_interval()
    # a tied measure (a throughput, the reciprocal of the same timings) is the same finding: shown in its row
    also = "".join(f" ({markdown_text(t.measure)} {pct(t.effect)})" for t in tied)
    q = "—" if v.q_value is None else p_cell(v.q_value)
    icon = {"regression": "🔴", "improvement": "🟢", "no-change": "⚪", "inconclusive": "🟡",
            "insufficient-data": "❔"}[v.verdict]
    verdict = v.verdict_cell()
    # only findings stand out
    change = f"**{pct(v.effect)}**" if v.verdict in ("regression", "improvement") else pct(v.effect)
    return (f"| {icon} {markdown_code(v.benchmark)} | {markdown_code(v.measure)}{also} | {human(v.base_median, v.measure)} | "
            f"{human(v.head_median, v.measure)} | {change}{ci}{markdown_text(v.in_units())} | {q} | {pct(v.mde, sign=False)} | "
            f"{markdown_text(verdict)} |")


_HEADER = ("| benchmark | measure | base | head | change [CI] | q | smallest detectable | verdict |\n"
           "|---|---|--:|--:|--:|--:|--:|---|")


def _side(run: dict, links: Links) -> str:
    """A side's commit, and the ref it was given as unless that is the commit's hash itself."""
    commit, ref = run.get("commit", "?"), run.get("branch", "?")
    return links.commit(commit) + ("" if commit.startswith(ref) else f" ({markdown_code(ref)})")


def _runs(c: Comparison) -> list[str]:
    """The runs each side was made of, when ``compare`` says (a side picked by commit or branch
    merges the runs recorded there: a harness's output ingested a run each), as a paragraph."""
    said = []
    for name, side in (("Head", c.head), ("base", c.base)):
        ids = side.get("runs")
        if not ids:
            return []
        again = (f", {side['remeasured']} series measured by more than one of them from the newest"
                 if side.get("remeasured") else "")
        said.append(f"{name}: {len(ids)} run(s) ({', '.join(markdown_code(i) for i in ids)}{again})")
    return ["; ".join(said) + ".", ""]


def comparison_markdown(c: Comparison, title: str = "perfgate", key: str = "", links: Links | None = None,
                        max_chars: int = MAX_CHARS, complexity: Sequence[ComplexityRow] = (),
                        complexity_about: str = "", nothing: NothingJudged | None = None) -> str:
    """``nothing``: why nothing was judged when the caller knows better than the rows (a check
    whose base has no suite ran none); by default :meth:`Comparison.nothing_judged`'s."""
    links = links or Links()
    nothing = nothing or c.nothing_judged(complexity)
    regressions, improvements = c.findings("regression"), c.findings("improvement")
    undecided = c.undecided_text()
    broken = [r for r in complexity if r.broken]
    worse = [r for r in complexity if r.worsened]
    if regressions or broken or worse:
        failures = ([f"{len(regressions)} performance regression(s)"] if regressions else []) + \
            ([f"complexity expectation broken in {len(broken)} table measure(s)"] if broken else []) + \
            ([f"complexity expectation broken earlier in {len(worse)} table measure(s)"] if worse else [])
        headline = f"❌ **{'; '.join(failures)}**" + (f"; {undecided}" if undecided else "")
    elif nothing:
        # Said as the exit code says it: every benchmark on one side only (a pull request renaming
        # them all) read "✅ No performance regression" over 0 comparisons, then "⚠️ Nothing
        # compared" with exit 0; only a head whose every benchmark is new passes on nothing.
        headline = _nothing_headline(nothing)
    elif undecided:
        # No regression was found, but not every row could have seen one: said in the headline,
        # not left to a grey row in a folded table.
        headline = f"⚠️ **No performance regression found; {undecided}**"
    else:
        headline = "✅ **No performance regression**"
    base, head = _side(c.base, links), _side(c.head, links)
    where = [f"[workflow run]({links.run_url})" if links.run_url else "",
             f"[trend pages]({links.pages_url})" if links.pages_url else ""]
    quoted = [markdown_text(w) for w in c.warnings]
    if c.inconclusive:
        quoted.append(f"🟡 {markdown_text(c.inconclusive_text())}")
    quoted += [f"**{markdown_text(n)}**" if "cannot" in n else markdown_text(n) for n in c.notes]
    # Each note a paragraph of the quote (consecutive "> " lines are one paragraph in CommonMark);
    # the blank line after it ends the quote, or GitHub puts the table inside it.
    quote = ["\n>\n".join(f"> {q}" for q in quoted), ""] if quoted else []
    if not c.verdicts and not complexity:   # the pull request adding the first suites
        return "\n".join([marker(key), f"### {markdown_text(title)}: {headline}", "",
                          f"Head {head} against base {base}: nothing was measured on both sides.", "", *quote])
    lines = [marker(key), f"### {markdown_text(title)}: {headline}", "",
             f"Head {head} against base {base} on testbed {markdown_code(c.head.get('testbed', '?'))}: "
             f"{c.compared} comparisons, {len(improvements)} improvement(s); {c.rate_text()} "
             f"(Benjamini–Hochberg), effects with {(1 - c.alpha) * 100:.4g}% intervals ({INTERVALS_NOTE})"
             + ("; a throughput and its latency are one finding." if c.has_tied_pairs else ".")
             + (" " + " · ".join(w for w in where if w) if any(where) else ""), "", *_runs(c), *quote]
    lines += _complexity_section(complexity, complexity_about)
    flagged = regressions + improvements          # (verdict, the measures tied to it)
    shown_ids = {id(x) for v, tied in flagged for x in (v, *tied)}
    # in the terminal's order, each kind nearest to a finding first; the inconclusive rows in
    # sight (the headline warns of them), the rest folded
    # (a tied pair in one row, as a finding's: the headline counts it once)
    unsure_rows = sorted(c.findings("inconclusive"), key=lambda row: severity(row[0]))
    shown_ids |= {id(x) for v, tied in unsure_rows for x in (v, *tied)}
    rest = [(v, []) for v in sorted(c.verdicts, key=severity) if id(v) not in shown_ids]
    # Rows are added while they fit under max_chars; what does not fit is counted and pointed to.
    budget = max_chars - sum(len(x) + 1 for x in lines) - 600
    shown_flagged = _fit(flagged, budget)
    budget -= sum(len(_row(v, t)) + 1 for v, t in shown_flagged) + len(_HEADER)
    shown_unsure = _fit(unsure_rows, budget - len(_HEADER) - 80) if len(shown_flagged) == len(flagged) else []
    budget -= sum(len(_row(v, t)) + 1 for v, t in shown_unsure) + len(_HEADER) + 80
    shown_rest = _fit(rest, budget - len(_HEADER) - 80) if len(shown_unsure) == len(unsure_rows) and \
        len(shown_flagged) == len(flagged) else []
    if shown_flagged:
        lines += [_HEADER, *(_row(v, t) for v, t in shown_flagged), ""]
    if shown_unsure:
        lines += [f"**Inconclusive** ({len(unsure_rows)}): a regression of the threshold's size could be there "
                  f"unseen.", "", _HEADER, *(_row(v, t) for v, t in shown_unsure), ""]
    if shown_rest:
        other = "other " if shown_flagged or shown_unsure else ""
        lines += [f"<details><summary>{len(rest)} {other}row(s)</summary>", "", _HEADER,
                  *(_row(v, t) for v, t in shown_rest), "", "</details>", ""]
    left_out = (len(flagged) - len(shown_flagged) + len(unsure_rows) - len(shown_unsure)
                + len(rest) - len(shown_rest))
    if left_out:
        see = f"[{links.summary_note}]({links.run_url})" if links.run_url else links.summary_note
        lines.append(f"**{left_out} comparison(s) not shown** to stay under GitHub's comment size limit; "
                     f"every row is in {see} and the run's artifact.")
    return "\n".join(lines) + "\n"


def _nothing_headline(nothing: NothingJudged) -> str:
    """``✅ **Nothing compared: …**`` for a pass on nothing (every benchmark new), ``⚪ **No verdict:
    …**`` for the rest: the reason in the headline, where a reader of the check run looks first.
    Neutral, as the check run is: it read "⛔ … (exit 2)", which looked like perfgate had failed."""
    if nothing.passes:
        return f"✅ **{markdown_text(nothing.reason[:1].upper() + nothing.reason[1:])}**"
    return f"⚪ **No verdict: {markdown_text(nothing.reason)}** (neither a pass nor a regression; exit 4)"


def error_markdown(message: str, side: str = "", ref: str = "", logs: str = "", title: str = "perfgate",
                   key: str = "", links: Links | None = None, max_chars: int = MAX_CHARS) -> str:
    """The comment of a check that could not run: which side failed (``side``, given as ``ref``),
    the error as the terminal said it, and where the logs are.  A missing comment read as a
    workflow fault and hid the error in the job log; this one says the check gave no verdict."""
    links = links or Links()
    where = f" in the **{markdown_text(side)}** ({markdown_code(ref)})" if side else ""
    room = max_chars // 2
    if len(message) > room:   # the start says where it failed, the end (a build's output) why
        message = f"{message[:room // 2]}\n…\n{message[-room // 2:]}"
    seen = [f"[workflow run]({links.run_url})" if links.run_url else "the job's log",
            *([f"the build and run logs in {markdown_code(logs)} where perfgate ran"] if logs else [])]
    return "\n".join([marker(key), f"### {markdown_text(title)}: ⛔ **The check could not run**", "",
                      f"The check stopped with an error{where}, so base and head were not compared "
                      "(an error, exit 2):", "", markdown_block(message), "",
                      f"Logs: {' and '.join(seen)}.", ""])


_STATUS = {"broken": "❌ broken by head", "worsened": "❌ broken earlier by head", "violated on both": "⚠️ violated on both sides",
           "inconclusive": "⚠️ inconclusive", "not checked": "⚠️ not checked", "fixed": "✅ fixed by head",
           "ok": "✅ kept", "fitted": "no expectation"}


def _complexity_section(rows: Sequence[ComplexityRow], about: str) -> list[str]:
    """The scaling tables: each side's model and knee, and what became of the expectations;
    the notable rows (``ComplexityRow.notable``) in sight, the rest folded."""
    if not rows:
        return []
    header = ["| scaling table | measure | base | head | expectations |", "|---|---|---|---|---|"]

    def row(r: ComplexityRow) -> str:
        sides = [markdown_text("; ".join([s.model or f"no fit: {s.error}", *s.notes()])) for s in (r.base, r.head)]
        why = f": {markdown_text(r.detail())}" if r.detail() else ""
        why += f"; {markdown_text(r.sweep.text())}" if r.sweep else ""
        return f"| {markdown_code(r.table)} | {markdown_code(r.measure)} | {sides[0]} | {sides[1]} | " \
               f"{_STATUS[r.status]}{why} |"

    loud = [r for r in rows if r.notable()]
    quiet = [r for r in rows if r not in loud]
    lines = [f"**Complexity**: {markdown_text(about or 'each side fitted as perfgate fit fits it')}. A knee's "
             f"interval is the fit's precision, narrower than run to run.", ""]
    if loud:
        lines += [*header, *map(row, loud), ""]
    if quiet:
        lines += [f"<details><summary>{len(quiet)} {'other ' if loud else ''}scaling table measure(s): "
                  f"expectations kept or none to judge, no knee or sweep total shown to move</summary>", "", *header,
                  *map(row, quiet), "", "</details>", ""]
    return lines


def _fit(rows: list[tuple[Verdict, list[Verdict]]], budget: int) -> list[tuple[Verdict, list[Verdict]]]:
    shown, used = [], 0
    for v, tied in rows:
        used += len(_row(v, tied)) + 1
        if used > budget:
            break
        shown.append((v, tied))
    return shown
