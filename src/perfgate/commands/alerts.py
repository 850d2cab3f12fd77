"""List the alerts `perfgate detect` raised, or acknowledge some.

An acknowledged alert stays on record (and is never raised again for the same change) but is no
longer listed as active.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from datetime import datetime, timezone

from perfgate.escape import terminal
from rich.table import Table

from perfgate.commands._common import find_alerts, short_ids, store_from
from perfgate.errors import EXIT_OK
from perfgate.gitinfo import could_be
from perfgate.alert_history import (WAY_BACK, closed, ended_at, still_open, undone_by, unfound_since, went_back,
                                    withdrawn_at)
from perfgate.output import emit_json, err, out
from perfgate.units import alert_evidence, pct, went_back_text

NAME = "alerts"
HELP = "list alerts raised by detect, or acknowledge them (--ack ID)"
ORDER = 45
EPILOG = """examples:
  perfgate alerts                       # active alerts
  perfgate alerts --status open         # the regressions still there
  perfgate alerts --status all --json
  perfgate alerts --ack 3f2c9a10        # acknowledge (an id as listed, or any unique prefix of one)
  perfgate alerts --ack-closed          # acknowledge the improvements and the regressions later changes undid"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    what = p.add_mutually_exclusive_group()
    what.add_argument("--ack", metavar="ID", nargs="+", help="acknowledge these alerts (ids as listed, or any unique prefix)")
    what.add_argument("--ack-closed", action="store_true",
                      help="acknowledge every active alert notify has closed: improvements and regressions a "
                           "later change undid (change points no longer found stay, as found again they reopen, and "
                           "threshold streaks that ended, whose issues stay open: acknowledge those by id)")
    p.add_argument("--status", choices=["active", "open", "acknowledged", "all"], default="active",
                   help="which alerts to list: active, open (the regressions still there: active, not undone, "
                        "ended or no longer found), acknowledged or all (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    with store_from(args) as store:
        if args.ack or args.ack_closed:
            if args.ack:
                # Every id is resolved before any is acknowledged: a mistyped one leaves all as they were.
                # An alert named twice (an id and its prefix) is acknowledged and reported once.
                named = list({a.id: a for a in find_alerts(store, args.ack)}.values())
            else:
                every = store.alerts()
                fixes = undone_by(every)
                named = [a for a in every if a.status == "active" and closed(a, fixes)]
            before = {a.id: a.status for a in named}
            done = [store.acknowledge(a.id) for a in named]
            if args.json:
                emit_json(done)
            else:
                for a in done:
                    was = " (it already was)" if before[a.id] == "acknowledged" else ""
                    err.print(terminal(f"acknowledged {a.id}{was}: {a.benchmark} [{a.measure}] {a.direction} "
                                       f"at {a.commit[:12]}"))
                if args.ack_closed and not done:
                    err.print("no active alert is closed: nothing acknowledged")
            return EXIT_OK
        every = store.alerts()
    # A regression a later improvement undid, or a change point later runs no longer show, stays
    # active until acknowledged (its issue is closed by notify): said beside its status, so that
    # it is not read as still open.
    fixes = undone_by(every)
    alerts = [a for a in every if args.status in ("all", a.status) or args.status == "open" and still_open(a, fixes)]
    if args.json:
        # undone by a way back of its series (a revert, no alert of its own): undone_by is null, its
        # evidence in details.went_back
        emit_json([asdict(a) | {"undone_by": fixes[a.id].id or None if a.id in fixes else None,
                                "undone_at": fixes[a.id].commit if a.id in fixes else None,
                                "withdrawn_at": withdrawn_at(a) or None} for a in alerts])
        return EXIT_OK
    if not alerts:
        out.print(f"no {'' if args.status == 'all' else args.status + ' '}alerts")
        return EXIT_OK
    short = short_ids(every)       # unique among all alerts, so that --ack takes them as shown
    rows = [_row(a, short[a.id], fixes) for a in alerts]
    if out.width < WIDE:
        # Ten columns do not fit a narrow terminal: a 100-column one read "regr…" and "instruc"/"tions".
        out.print(f"[italic]perfgate alerts ({_title(args.status)})[/italic]")
        for r in rows:
            out.print(f"{r['id']}  {r['what']}  {r['change'].replace(chr(10), ' ')}  {r['status']}")
            out.print(f"          {r['benchmark']} \\[{r['measure']}] {r['branch@testbed']}", style="bold")
            out.print(f"          first commit {r['first commit']} ({r['could be']}), raised {r['raised (UTC)']} UTC",
                      style="dim")
        return EXIT_OK
    table = Table(title=f"perfgate alerts ({_title(args.status)})", title_justify="left")
    for col in rows[0]:
        table.add_column(col, overflow="fold", no_wrap=col in ("id", "measure", "first commit", "could be"))
    for r in rows:
        table.add_row(*r.values())
    out.print(table)
    return EXIT_OK


def _title(status: str) -> str:
    # "active" is the acknowledgement's state: an active alert's issue may be closed already
    return "active: not acknowledged yet" if status == "active" else status


def _status(a, fixes: dict) -> str:
    """The alert's state as notify left it: an active alert whose issue notify closed (undone, no
    longer found) reads "closed", not "active" (it stays listed until acknowledged), and an
    improvement, which opens no issue, reads as good news."""
    shown = a.status
    if a.status == "active" and (a.id in fixes or withdrawn_at(a)):
        shown = "closed"
    elif a.status == "active" and a.direction != "regression":
        shown = "good news (no issue)"
    return shown + (f", undone at {fixes[a.id].commit[:12]}{_way_back(a, fixes[a.id])}" if a.id in fixes
                    else f", no longer found at {withdrawn_at(a)[:12]}" if withdrawn_at(a)
                    else f", not found since {unfound_since(a)['commit'][:12]}" if unfound_since(a)
                    else "") + (f", streak ended at {ended_at(a)[:12]}" if ended_at(a) else "")


WIDE = 150     # the table's width with typical names; narrower terminals get a block per alert


def _row(a, short_id: str, fixes: dict) -> dict[str, str]:
    """One alert's cells, rich markup with every name escaped."""
    when = datetime.fromtimestamp(a.created, timezone.utc).strftime("%Y-%m-%d %H:%M") if a.created else "—"
    ci = alert_evidence(a.kind, a.ci_low, a.ci_high, a.details)     # named with its level
    ci = f"\n{ci}" if ci else ""
    colour = "red" if a.direction == "regression" else "green"
    # found only where sibling series changed, or placed at their commit: its message and page name them
    kind = a.kind.replace("_", " ") + (" (siblings)" if a.siblings else " (placed)" if a.placed_with else "")
    return {"id": terminal(short_id), "benchmark": terminal(a.benchmark), "measure": terminal(a.measure),
            "branch@testbed": terminal(f"{a.branch}@{a.testbed}"), "first commit": terminal(a.commit[:12]),
            "could be": terminal(could_be(a.suspects(), a.last_good(), a.kind == "threshold")),
            "change": f"[{colour}]{pct(a.magnitude)}[/{colour}]{ci}",
            "what": f"[{colour}]{terminal(a.direction)}[/{colour}], {terminal(kind)}",
            "status": terminal(_status(a, fixes)),
            "raised (UTC)": when}




def _way_back(a, fix) -> str:
    """`` (went back -23.58% 99% CI [-29.93%, -16.65%], p = 0.0065)`` for a regression its series
    went back from without an improvement alert (a revert); '' for one an alert undid (it is
    listed too)."""
    return f" ({went_back_text(went_back(a))})" if fix.kind == WAY_BACK else ""
