"""The words of a delivery: titles, the evidence table, Slack-style text, links.  Pure.

Names, branches, testbeds and commits come from data: in Markdown each is a code span
(:func:`perfgate.escape.markdown_code`), in Slack text inline code (:func:`perfgate.escape.slack_code`),
so none can mention someone, link, show an image or break the table, and each copies as it is."""

from __future__ import annotations

from urllib.parse import quote

from perfgate.alert_history import WAY_BACK, reopenings, unfound_since, withdrawn_at
from perfgate.escape import markdown_code, slack_code, visible
from perfgate.model import Alert
from perfgate.notify.base import Links
from perfgate.notify.events import Event, updated
from perfgate.units import alert_evidence, confidence_text, human, p_text, pct

ALERT_MARKER = "<!-- perfgate-alert:{} -->"
EVENT_MARKER = "<!-- perfgate-event:{} -->"


def short(sha: str) -> str:
    return sha[:10]


def commit_url(links: Links, sha: str) -> str:
    return f"{links.repo_url.rstrip('/')}/commit/{quote(sha, safe='')}" if links.repo_url and sha else ""


def past_the_limit(alert: Alert) -> int:
    """How many values in a row a threshold alert's run past the limit held when last seen (0 for
    a change point)."""
    return len(alert.commit_range) if alert.kind == "threshold" else 0


def range_url(links: Links, alert: Alert) -> str:
    """A compare view over every commit the change could have started at."""
    if not (links.repo_url and alert.commit):
        return ""
    suspects = alert.suspects()
    first, last = suspects[0], suspects[-1]
    base = quote(alert.last_good(), safe="") or f"{quote(first, safe='')}^"
    return f"{links.repo_url.rstrip('/')}/compare/{base}...{quote(last, safe='')}"


def trend_url(links: Links, alert: Alert) -> str:
    """The series' card on the trend pages (``perfgate pages`` anchors it this way)."""
    if not links.pages_url:
        return ""
    anchor = f"{alert.benchmark}|{alert.measure}|{alert.branch}|{alert.testbed}"
    return f"{links.pages_url.rstrip('/')}/index.html#{quote(anchor, safe='')}"


def _md_link(text: str, url: str) -> str:
    return f"[{text}]({url})" if url else text


# GitHub refuses a longer issue title (422, "title is too long (maximum is 256 characters)"),
# and a benchmark name may hold 1,024 characters: the issue was never opened, tried every run.
TITLE_MAX = 256


def title(alert: Alert) -> str:
    """The issue's title, at most :data:`TITLE_MAX` characters: a long benchmark name is cut with
    "…" (the body names it whole)."""
    what = "Performance regression" if alert.direction == "regression" else "Performance improvement"
    # A title is plain text on GitHub: only controls and invisible formatting need neutralising.
    head = f"{what}: "
    tail = visible(f" [{alert.measure}] {pct(alert.magnitude)} at {short(alert.commit)} on {alert.branch}")
    name = visible(alert.benchmark)
    room = TITLE_MAX - len(head) - len(tail)
    if len(name) > room:
        name = name[:max(room - 1, 40)] + "…"
    text = head + name + tail
    return text if len(text) <= TITLE_MAX else text[:TITLE_MAX - 1] + "…"


def unmeasured_gap(alert: Alert, links: Links) -> int:
    """How many commits the change could be when more than its measured suspects (after a thinned
    backfill the commits since the last measured one were not run), else 0.  The demo's alerts
    named a changelog commit at the end of each gap as the culprit, and a range of measured
    commits left out the unmeasured ones before its first."""
    suspects, good = alert.suspects(), alert.last_good()
    if not (suspects and good):
        return 0
    n = links.commits_after(good, suspects[-1])
    return n if n and n > len(suspects) else 0


def bisect_hint(alert: Alert) -> str:
    return f"perfgate bisect {alert.id}"


def culprit(alert: Alert, links: Links, subject: str | None = None) -> str:
    """The first bad commit when the range is one commit, else the likeliest one and the range.
    ``subject``: the commit's subject, put beside it (after the range it read as the range's)."""
    first = _md_link(markdown_code(short(alert.commit)), commit_url(links, alert.commit))
    if subject:
        first += f" {markdown_code(subject)}"
    suspects, gap = alert.suspects(), unmeasured_gap(alert, links)
    if gap:
        likeliest = " (likeliest)" if len(suspects) > 1 else ""
        return (f"{first}{likeliest} or another of the {gap} commits after the last one measured before it "
                f"({suspects_span(alert, links)}; {markdown_code(bisect_hint(alert))} finds which)")
    if len(suspects) > 1:
        return f"{first} (likeliest) or another of {len(suspects)} commits ({suspects_span(alert, links)})"
    return first


def suspects_span(alert: Alert, links: Links) -> str:
    """Every commit the change could have started at as a git range, linked to their compare view
    (after a thinned backfill, from the last measured commit, as :func:`range_url`).  Written
    ``first^..last`` as ``perfgate alerts`` writes it: ``first..last`` leaves ``first`` out, so a
    reader pasting it into ``git log`` missed the first suspect."""
    suspects = alert.suspects()
    first = short(alert.last_good()) if unmeasured_gap(alert, links) else f"{short(suspects[0])}^"
    return _md_link(markdown_code(f"{first}..{short(suspects[-1])}"), range_url(links, alert))


def ci_text(alert: Alert) -> str:
    """`` (99% CI [a, b])``, a threshold alert's `` (streak mean m, 95% CI [a, b])``, each at the
    level recorded with it (:func:`perfgate.units.ci_level`; an old change point's without a
    number), '' without one."""
    text = alert_evidence(alert.kind, alert.ci_low, alert.ci_high, alert.details)
    return f" ({text})" if text else ""


def confidence(alert: Alert) -> str:
    """An alert's p-value and confidence; a threshold alert's numbers before them (one whose
    baseline was too short for a p-value says why; one recorded before threshold alerts had
    them gives its numbers alone, as it did)."""
    p = f"{p_text(alert.p_value)} (confidence {confidence_text(alert.p_value)})" if alert.p_value is not None else ""
    if alert.kind != "threshold":
        return p or "no p-value"
    why = alert.details.get("no_interval")
    if not p and isinstance(why, str) and why:
        p = f"no p-value: {why}"
    numbers = threshold_numbers(alert)
    return "; ".join(x for x in (numbers, p) if x) or "no p-value"


def threshold_numbers(alert: Alert) -> str:
    """What a threshold alert compared: the newest value, the baseline it is a change from and
    the limit it passed ('' when the alert did not keep them).  A streak that ``detect`` saw end
    in the runs it judged at once (``ended_at``) gives its value where it alerted, and says so."""
    d, m = alert.details, alert.measure
    value, base, size = d.get("value"), d.get("baseline"), d.get("baseline_size")
    upper, lower = d.get("upper_limit"), d.get("lower_limit")
    if not all(isinstance(x, (int, float)) for x in (value, base)):
        return ""
    limit = upper if isinstance(upper, (int, float)) and value > upper else lower
    runs = f" of {size} runs" if isinstance(size, int) else ""
    passed = (f", past its {d.get('test', 'threshold')} limit {human(limit, m, 4)}"
              if isinstance(limit, (int, float)) else "")
    ended = d.get("ended_at")
    return (f"{'streak' if ended else 'newest'} {human(value, m, 4)} against a baseline{runs} of {human(base, m, 4)}"
            f"{passed}{'; a later run ended it' if ended else ''}")


def levels(alert: Alert) -> str:
    """The level before and after a change point ('' for a threshold alert or when not kept)."""
    before, after = alert.details.get("before"), alert.details.get("after")
    if alert.kind == "threshold" or not all(isinstance(x, (int, float)) for x in (before, after)):
        return ""
    return f"{human(before, alert.measure, 4)} → {human(after, alert.measure, 4)}"


def ack_hint(alert: Alert) -> str:
    return f"perfgate alerts --ack {alert.id}"


SIBLINGS_NAMED = 3   # siblings named in a message; the rest are counted


def siblings(alert: Alert) -> tuple[list[str], int]:
    """The sibling series whose change at this commit made perfgate test this series there (a step
    too small for a search over the whole series), the first few by name, and how many more."""
    return _first_named(alert.siblings)


def placed_with(alert: Alert) -> tuple[list[str], int]:
    """The sibling series whose change at this commit perfgate placed this series' change at (it
    was found alone a few runs away), the first few by name, and how many more."""
    return _first_named(alert.placed_with)


def _first_named(names: list[str]) -> tuple[list[str], int]:
    return names[:SIBLINGS_NAMED], max(0, len(names) - SIBLINGS_NAMED)


def _more(extra: int) -> str:
    return f" and {extra} more" if extra else ""


def evidence_table(alert: Alert, links: Links) -> str:
    ci = ci_text(alert)
    rows = [("benchmark", markdown_code(alert.benchmark)), ("measure", markdown_code(alert.measure)),
            ("branch @ testbed", f"{markdown_code(alert.branch)} @ {markdown_code(alert.testbed)}"),
            ("change", f"{pct(alert.magnitude)}{ci} — {alert.direction}"),
            ("evidence", f"{confidence(alert)}; found by the {alert.kind.replace('_', ' ')} test"
             + _where_siblings_md(alert)),
            ("first bad commit" if len(alert.suspects()) <= 1 and not unmeasured_gap(alert, links) else "commit range",
             culprit(alert, links, links.subject_of(alert.commit))),
            ("last good commit", _md_link(markdown_code(short(alert.last_good())), commit_url(links, alert.last_good()))
             if alert.last_good() else "—")]
    if past_the_limit(alert) > 1:
        streak = markdown_code(f"{short(alert.commit_range[0])}..{short(alert.commit_range[-1])}")
        rows.insert(6, ("past the limit", f"{past_the_limit(alert)} values in a row ({streak})"))
    level = levels(alert)
    if level:
        rows.append(("level before → after", level))
    lines = ["| | |", "| --- | --- |"] + [f"| {k} | {v} |" for k, v in rows]  # every value escaped above
    return "\n".join(lines)


def _where_siblings_md(alert: Alert) -> str:
    names, extra = siblings(alert)
    why = ", tested at this commit because "
    if not names:
        names, extra = placed_with(alert)
        why = ", placed at this commit because "
    if not names:
        return ""
    return why + ", ".join(markdown_code(n) for n in names) + _more(extra) + " changed here"


def found_text(alert: Alert) -> str:
    return f"perfgate found a {alert.direction} of {_series_text(alert)}."


def _series_text(alert: Alert) -> str:
    """``benchmark`` [``measure``] on ``branch``, each in a code span of its own."""
    return (f"{markdown_code(alert.benchmark, table=False)} [{markdown_code(alert.measure, table=False)}] on "
            f"{markdown_code(alert.branch, table=False)}")


def issue_body(alert: Alert, links: Links) -> str:
    trend = trend_url(links, alert)
    parts = [found_text(alert), "", evidence_table(alert, links), ""]
    if trend:
        parts.append(f"Trend: {trend}")
    if len(alert.suspects()) > 1 or unmeasured_gap(alert, links):
        # the next step for a range; the commit comment and a gap's table said so, a range's issue did not
        parts += ["", f"Narrow the range to its first bad commit with `{bisect_hint(alert)}`."]
    parts += ["", f"Acknowledge with `{ack_hint(alert)}` once understood (accepted, this issue closes), "
              "or it closes when a later change undoes the regression.", "", ALERT_MARKER.format(alert.id)]
    return "\n".join(parts)


def again_comment(event: Event, links: Links) -> str:
    new = event.related
    return "\n".join([f"The same series regressed again: {pct(new.magnitude)} at "
                      f"{culprit(new, links)} (alert `{new.id}`).", "", evidence_table(new, links), "",
                      EVENT_MARKER.format(event.id)])


def updated_comment(event: Event, links: Links) -> str:
    return "\n".join([updated_text(event.alert, links), "", evidence_table(event.alert, links), "",
                      EVENT_MARKER.format(event.id)])


def updated_text(alert: Alert, links: Links) -> str:
    return (f"Updated: {update_reason(alert)}; it is now {pct(alert.magnitude)} at {culprit(alert, links)}"
            f"{was_text(alert, markdown_code)}.")


def update_reason(alert: Alert) -> str:
    """Why an alert was updated (:func:`perfgate.notify.events.updated`)."""
    was = updated(alert) or {}
    why = was.get("why")
    if why == "bisect":
        return "bisect narrowed it to one commit"
    if why == "narrowed":
        return f"the analysis of the runs since narrowed its range to {_commits(len(alert.suspects()))}"
    if was.get("bisected"):
        # the commit is bisect's; the later finding only confirmed and sized the change there
        found = "a change point confirmed the threshold alert" if why == "threshold" else \
            "the change was found there with other benchmarks' changes"
        return f"bisect narrowed it to one commit, and {found}"
    if why == "threshold":
        return "the threshold alert was confirmed by a change point, which places and sizes it"
    return "the change was placed at the commit where other benchmarks changed too"


def was_text(alert: Alert, code) -> str:
    """`` (was +10.67% at abc1234)``: what the alert said before, where it differs."""
    was = updated(alert) or {}
    size, commit = was.get("magnitude"), was.get("commit")
    parts = [pct(size)] if isinstance(size, (int, float)) and abs(size - alert.magnitude) >= 5e-5 else []
    if commit and commit != alert.commit:
        parts.append(f"at {code(short(commit))}")
    text = " ".join(parts)
    if was.get("suspects"):
        text = ", ".join(filter(None, [text, f"a range of {_commits(was['suspects'])}"]))
    return f" (was {text})" if text else ""


def _commits(n: int) -> str:
    return "one commit" if n == 1 else f"{n} commits"


def closed_comment(event: Event, links: Links) -> str:
    return "\n".join([f"Closing: {closed_text(event, links)}", "", EVENT_MARKER.format(event.id)])


def closed_text(event: Event, links: Links) -> str:
    """How a regression alert closed: undone, no longer found (withdrawn) or acknowledged."""
    if event.reason == "undone" and event.related is not None:
        fix = event.related
        return (f"A later change undid it: {pct(fix.magnitude)} at {culprit(fix, links)} "
                f"({undoer_text(fix, lambda s: markdown_code(s, table=False))}).")
    if event.reason == "withdrawn":
        return f"No longer found: {withdrawn_text(event.alert, markdown_code)}"
    return "The alert was acknowledged: the change was accepted, not undone, so the benchmark keeps its new level."


def undoer_text(fix: Alert, code) -> str:
    """What undid a regression: the improvement alert, or the way back its series went without one
    (a revert ``detect`` saw when the change was no longer found), with that way back's evidence."""
    if fix.kind != WAY_BACK:
        return f"alert {code(fix.id)}"
    ci = alert_evidence(fix.kind, fix.ci_low, fix.ci_high, fix.details)      # its size is said beside it
    return (f"the runs from there went back to the level before it: {ci or 'interval unknown'}, "
            f"{p_text(fix.p_value)} for the splits searched, no alert of its own")


def withdrawn_text(alert: Alert, code) -> str:
    """Why a change point alert closed without being undone (:func:`perfgate.alert_history.withdrawn_at`)."""
    since, at = unfound_since(alert), withdrawn_at(alert)
    if since and since["commit"] != at:
        return (f"no analysis of the runs from {code(short(since['commit']))} up to {code(short(at))} finds this "
                "change any more; the runs since do not show it (a weak change point can be withdrawn as more "
                "runs arrive).")
    return (f"the analysis of the runs up to {code(short(at))} does not find this change any "
            "more; the runs since do not show it (a weak change point can be withdrawn as more runs arrive).")


def reopened_comment(event: Event, links: Links) -> str:
    return "\n".join([f"Reopening: found again: {reopened_text(event, markdown_code)}", "",
                      EVENT_MARKER.format(event.id)])


def reopened_text(event: Event, code) -> str:
    """Why a regression closed as no longer found is open again."""
    again = reopenings(event.alert)[event.reopened]
    return (f"the analysis of the runs up to {code(short(again['found_at']))} finds this change again "
            f"(it was no longer found at {code(short(again['withdrawn_at']))}); the regression is still there.")


def commit_comment(event: Event, links: Links) -> str:
    """A comment on the alert's commit, which GitHub notifies its author of: a regression raised,
    found again, or moved here by an update; with the issue's evidence table."""
    a, trend = event.alert, trend_url(links, event.alert)
    parts = []
    if event.kind == "reopened":
        parts += [f"Found again: {reopened_text(event, markdown_code)}", ""]
    elif event.kind == "updated":
        parts += [updated_text(a, links), ""]
    parts += [" ".join(filter(None, [found_text(a), suspects_text(a, links)])), "", evidence_table(a, links), ""]
    if trend:
        parts += [f"Trend: {trend}", ""]
    parts += [f"Once understood: `{ack_hint(a)}`.", "", EVENT_MARKER.format(event.id)]
    return "\n".join(parts)


def suspects_text(alert: Alert, links: Links) -> str:
    """'' when the alert names one commit; else that the commented commit is one of N suspects
    (its author may not be the one who made it slower), with the range."""
    gap = unmeasured_gap(alert, links)
    n = gap or len(alert.suspects())
    if n <= 1:
        return ""
    unmeasured = ", some not measured" if gap else ""
    return (f"This commit is one of {n} suspects ({suspects_span(alert, links)}){unmeasured}; "
            f"{markdown_code(bisect_hint(alert), table=False)} finds which.")


def commit_closed_comment(event: Event, links: Links) -> str:
    """The closing word on the commit that was told of the regression."""
    a = event.alert
    closing = f"Closing the {a.direction} alert on {_series_text(a)} ({pct(a.magnitude)}): {closed_text(event, links)}"
    return "\n".join([closing, "", EVENT_MARKER.format(event.id)])


def plain_text(event: Event, links: Links) -> str:
    """One Slack-compatible message (mrkdwn: *bold*, <url|text>)."""
    a = event.alert

    def link(text: str, url: str) -> str:
        return f"<{url}|{text}>" if url else text

    def commit(sha: str) -> str:
        return link(short(sha), commit_url(links, sha))

    where = f"{slack_code(a.benchmark)} [{slack_code(a.measure)}] on {slack_code(f'{a.branch}@{a.testbed}')}"
    if event.kind in ("raised", "updated"):
        icon = ":rotating_light:" if a.direction == "regression" else ":tada:"   # good news: a downward chart read as bad
        ci = ci_text(a)
        level = levels(a)
        size = f"{pct(a.magnitude)}{ci}" + (f" ({level})" if level else "")
        if a.kind == "threshold":
            size += " over its baseline"
        if event.kind == "raised":
            text = f"{icon} Performance {a.direction}: {where} {size} at {commit(a.commit)}"
        else:
            text = (f":arrows_counterclockwise: Updated: {where}: {update_reason(a)}; it is now {size} at "
                    f"{commit(a.commit)}")
        subject = links.subject_of(a.commit)
        if subject:
            text += f" {slack_code(subject)}"
        suspects, gap = a.suspects(), unmeasured_gap(a, links)
        if gap:
            text += (f" (one of {gap} commits, some not measured: {link('range', range_url(links, a))}; "
                     f"`{bisect_hint(a)}` finds which)")
        elif len(suspects) > 1:
            text += (f" (one of {len(suspects)} commits: {link('range', range_url(links, a))}; "
                     f"`{bisect_hint(a)}` finds which)")
        elif past_the_limit(a) > 1:
            text += f" ({past_the_limit(a)} values in a row past its limit)"
        if event.kind == "updated":
            text += was_text(a, slack_code)
        text += f"; {confidence(a)}"
        names, extra = siblings(a)
        if names:
            text += f"; tested here because {', '.join(slack_code(n) for n in names)}{_more(extra)} changed here"
        names, extra = placed_with(a)
        if names:
            text += f"; placed here because {', '.join(slack_code(n) for n in names)}{_more(extra)} changed here"
        if a.direction == "regression" and a.id and a.status == "active":
            text += f"; once understood: `{ack_hint(a)}`"
    elif event.kind == "reopened":
        text = (f":rotating_light: Found again: {where} {pct(a.magnitude)} at {commit(a.commit)}: "
                + reopened_text(event, slack_code))
        if a.id and a.status == "active":
            text += f"; once understood: `{ack_hint(a)}`"
    elif event.kind == "again":
        n = event.related
        text = (f":repeat: {where} regressed again: {pct(n.magnitude)} at {commit(n.commit)} "
                f"(after {pct(a.magnitude)} at {short(a.commit)})")
    elif event.reason == "withdrawn":
        text = f":heavy_minus_sign: No longer found: {where} {pct(a.magnitude)} at {commit(a.commit)}: " + \
            withdrawn_text(a, slack_code)
    elif event.reason == "undone":
        fix = event.related
        text = (f":white_check_mark: Undone: {where} {pct(a.magnitude)} at {commit(a.commit)}, by "
                f"{pct(fix.magnitude)} at {commit(fix.commit)}"
                + (f" ({undoer_text(fix, slack_code)})" if fix.kind == WAY_BACK else ""))
    else:
        text = (f":ballot_box_with_check: Acknowledged: {where} {pct(a.magnitude)} at {commit(a.commit)} "
                f"was accepted; it is not undone")
    trend = trend_url(links, a)
    return text + (f" · {link('trend', trend)}" if trend else "")
