"""Show recorded history: one line per series with its trend, or every point of one benchmark.

Without BENCHMARK: each (benchmark, measure, branch, testbed) series with its latest value, the
change from the run before, the run-to-run coefficient of variation (from the differences between
consecutive runs, so that a step is not counted as noise) and a sparkline.
With BENCHMARK: the points of its series, oldest first, with the commit and testbed of each.
"""

from __future__ import annotations

import argparse
from datetime import datetime, timezone

from perfgate.escape import terminal
from rich.table import Table

from perfgate.commands._common import add_series_filters, store_from
from perfgate.detect.stats import run_to_run_cv
from perfgate.errors import EXIT_OK, PerfgateError
from perfgate.output import emit_json, out
from perfgate.store import Point, SeriesKey
from perfgate.units import human, percent, sparkline

NAME = "history"
HELP = "show the recorded history as a table with sparklines (or JSON)"
ORDER = 20
EPILOG = """examples:
  perfgate history
  perfgate history 'sort 1e6' --measure latency --limit 20
  perfgate history --json | jq '.[0].points[-1].value'"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("benchmark", nargs="?", help="show every point of this benchmark")
    add_series_filters(p)
    p.add_argument("--limit", type=int, default=30, metavar="N",
                   help="newest points per series shown, 0 for every one (default: %(default)s)")


def _when(t: float | None) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M") if t else "—"


def run(args: argparse.Namespace) -> int:
    if args.limit < 0:
        raise PerfgateError(f"--limit must be 0 (every point) or more, got {args.limit}")
    if args.limit >= 2**63:   # more than any series holds, and than SQLite's LIMIT takes (an OverflowError)
        args.limit = 0
    with store_from(args) as store:
        keys = store.series_keys(branch=args.branch, testbed=args.testbed,
                                 benchmark=args.benchmark, measure=args.measure)
        filters = [f"--{k} {getattr(args, k)!r}" for k in ("branch", "testbed", "measure") if getattr(args, k) is not None]
        if args.benchmark and not keys:
            raise PerfgateError(_unmatched(store, args, filters))
        if filters and not keys:
            raise PerfgateError(f"no series matches {', '.join(filters)} (perfgate history lists every series)")
        # one point more than shown: the oldest one shown is then compared with the run before it
        series = {key: store.series_tail(key, args.limit + 1) if args.limit > 0 else store.series(key) for key in keys}
        fingerprints = {k.testbed: store.testbed_fingerprint(k.testbed) for k in keys}
        lengths = {k: len(pts) if args.limit == 0 or len(pts) <= args.limit else store.series_length(k)
                   for k, pts in series.items()}
    shown = {k: pts[-args.limit:] if args.limit > 0 else pts for k, pts in series.items()}
    if args.json:
        emit_json([{"branch": k.branch, "testbed": k.testbed, "benchmark": k.benchmark, "measure": k.measure,
                    "testbed_fingerprint": fingerprints[k.testbed], "points": pts}
                   for k, pts in shown.items()])
        return EXIT_OK
    if not series:
        out.print(f"no history yet in {terminal(args.store)}; record some with 'perfgate ingest' or 'perfgate run'")
        return EXIT_OK
    if args.benchmark:
        for key, pts in series.items():
            before = pts[:len(pts) - len(shown[key])]
            _print_points(key, shown[key], before[-1].value if before else None)
            if lengths[key] > len(shown[key]):
                out.print(f"[dim]the last {len(shown[key])} of {lengths[key]} runs (--limit 0 for every run)[/dim]")
    else:
        _print_summary(shown, lengths)
        if any(lengths[k] > len(pts) for k, pts in shown.items()):
            out.print(f"[dim]Δ prev, CV and trend over each series' last {args.limit} runs "
                      f"(--limit 0 for every run)[/dim]")
    _print_testbeds(fingerprints)
    return EXIT_OK


def _unmatched(store, args: argparse.Namespace, filters: list[str]) -> str:
    """Why BENCHMARK shows nothing: the filters that exclude its series, or, when the name itself
    matches none, the names that come close (it once suggested the very name typed)."""
    own = store.series_keys(benchmark=args.benchmark)
    if not own:
        import difflib

        names = sorted({k.benchmark for k in store.series_keys()})
        near = difflib.get_close_matches(args.benchmark, names, n=3, cutoff=0.6)
        return f"no benchmark {args.benchmark!r}" + (f"; did you mean {', '.join(repr(n) for n in near)}?" if near
                                                     else " ('perfgate history' lists every series)")
    excluding = []
    for name in ("branch", "testbed", "measure"):
        value = getattr(args, name)
        has = sorted({getattr(k, name) for k in own})
        if value is not None and value not in has:
            excluding.append(f"--{name} {value!r} (it has: {', '.join(has)})")
    if excluding:
        return f"{args.benchmark!r} has no series with {'; nor with '.join(excluding)}"
    # each filter matches one of its series, but no series matches them all
    series = sorted(f"{k.measure} on {k.branch}@{k.testbed}" for k in own)
    series = ", ".join(series[:10]) + (f" and {len(series) - 10} more" if len(series) > 10 else "")
    return f"{args.benchmark!r} has no series with {' and '.join(filters)} together (it has: {series})"


def _print_summary(series: dict[SeriesKey, list[Point]], lengths: dict[SeriesKey, int]) -> None:
    """One row a series; ``lengths``: how many runs each has in all (more than shown)."""
    table = Table(title="perfgate history", title_justify="left")
    for col, justify in (("benchmark", "left"), ("measure", "left"), ("branch", "left"), ("testbed", "left"),
                         ("runs", "right"), ("latest", "right"), ("Δ prev", "right"), ("CV", "right"),
                         ("trend", "left")):
        table.add_column(col, justify=justify, overflow="fold")
    for key, pts in series.items():
        last = pts[-1].value
        prev = pts[-2].value if len(pts) > 1 else None
        cv = run_to_run_cv([p.value for p in pts])
        table.add_row(*map(terminal, (key.benchmark, key.measure, key.branch, key.testbed)), str(lengths[key]),
                      human(last, key.measure),
                      percent(last / prev) if prev else "—", f"{cv * 100:.1f}%" if cv is not None else "—",
                      sparkline([p.value for p in pts]))
    out.print(table)


def _print_points(key: SeriesKey, pts: list[Point], prev: float | None) -> None:
    """The points shown, oldest first; ``prev``: the value of the run before the first of them."""
    table = Table(title=f"{terminal(key.label())}   {sparkline([p.value for p in pts])}", title_justify="left")
    # "bounds", as the harness gave them (hyperfine's mean ± sd, criterion's interval): called
    # "range", they read as hyperfine's min … max printed just above
    for col in ("when (UTC)", "commit", "value", "harness bounds", "samples", "vs prev"):
        table.add_column(col, justify="left" if col in ("when (UTC)", "commit") else "right")
    for p in pts:
        rng = f"{human(p.lower, key.measure)} … {human(p.upper, key.measure)}" if p.lower is not None else "—"
        # a value without raw samples is one sample, as compare and the pages count it
        table.add_row(_when(p.time), terminal(p.commit[:12]), human(p.value, key.measure), rng,
                      str(len(p.samples) or 1), percent(p.value / prev) if prev else "—")
        prev = p.value
    out.print(table)


# Facts that tell testbeds apart stay under the table; the toolchain's package versions, the image's
# id and tag, the kernel and the OS (five lines a testbed in a terminal) are in --json.
_DETAIL_ONLY = ("harness", "image_id", "image_tag", "kernel", "os")


def _print_testbeds(fingerprints: dict[str, dict]) -> None:
    detailed = False
    for name, fp in sorted(fingerprints.items()):
        if fp:
            facts = ", ".join(f"{k}={_short(k, v)}" for k, v in sorted(fp.items())
                              if v not in (None, "") and k not in _DETAIL_ONLY)
            detailed = detailed or any(k in fp for k in _DETAIL_ONLY)
            out.print(f"[dim]testbed {terminal(name)}: {terminal(facts)}[/dim]")
    if detailed:
        out.print("[dim](the toolchain's versions, image id, kernel and OS of each testbed: --json)[/dim]")


def _short(key: str, value: object) -> object:
    return f"{value[:19]}…" if key == "image_digest" and isinstance(value, str) and len(value) > 19 else value
