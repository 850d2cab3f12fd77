"""``perfgate detect --series FILE``: change points in numbers outside the store.

The file (:mod:`perfgate.series_files`) holds one series or a batch; each is searched on its own,
on worker processes, with the thresholds' change point settings for ``--benchmark`` and
``--measure``, and its change points named by the file's own columns (index labels, commits, times).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from perfgate.errors import EXIT_OK, EXIT_REGRESSION, PerfgateError
from perfgate.escape import terminal
from perfgate.gitinfo import could_be
from perfgate.model import Measure
from perfgate.output import emit_json, out
from perfgate.parallel import map_in_processes
from perfgate.series_files import FileSeries, read_series_file
from perfgate.units import evidence_text, p_text, pct


def detect_series_file(args: argparse.Namespace, thresholds) -> int:
    """``perfgate detect --series FILE``: the change points of numbers outside the store (a CSV or
    JSON series, or a batch of them), printed or as JSON; exit 1 when any series has a regression."""
    _refuse_store_options(args)
    path = Path(args.series)
    batch, series = read_series_file(path)
    measure = args.measure or ""
    settings = thresholds.for_series(args.benchmark or "", measure).change_point
    lower = Measure.named(measure).lower_is_better if args.higher_is_better is None else not args.higher_is_better
    found = map_in_processes(_detect_job, [(s.values, settings, lower, s.samples) for s in series], args.jobs)
    results = [{"points": len(s.values), "change_points": [_located(cp, s) for cp in cps],
                **({"new_level": new_level} if new_level else {})}
               for s, (cps, new_level) in zip(series, found)]
    regression = any(cp["direction"] == "regression" for r in results for cp in r["change_points"])
    if args.json:
        emit_json(results if batch else results[0])
    else:
        for i, r in enumerate(results):
            head = f"series {i}: " if batch else ""
            if not r["change_points"]:
                short = r["points"] < 2 * settings.min_segment      # "no change point" read as a clean bill
                out.print(f"{head}{r['points']} point{'' if r['points'] == 1 else 's'}, no change point"
                          + (f" (too few to judge: a change needs {settings.min_segment} runs on each side)"
                             if short else ""))
            if "new_level" in r:
                new = r["new_level"]
                out.print(f"{head}the newest run is {pct(new['magnitude'])} off the runs before it: a spike or a "
                          "new level, too soon to tell" if new["runs"] == 1 else
                          f"{head}the newest {new['runs']} runs sit at a new level ({pct(new['magnitude'])}), too new "
                          f"to judge: a change needs {settings.min_segment} runs on each side")
            for cp in r["change_points"]:
                out.print(f"{head}change at index {cp['index']} (could be {cp['index_low']}..{cp['index_high']})"
                          f"{_commits_text(cp)}: "
                          f"{pct(cp['magnitude'])} "
                          f"({evidence_text(cp['ci_low'], cp['ci_high'], level=cp['ci_level'])}), "
                          f"{p_text(cp['p_value'])}, {cp['direction']}")
    return EXIT_REGRESSION if regression else EXIT_OK


def _refuse_store_options(args: argparse.Namespace) -> None:
    """--branch, --testbed and --full choose among the store's series, which a file has none of:
    they were ignored without a word.  (--benchmark and --measure do apply: they choose the
    file's thresholds and direction.)"""
    given = [f"--{name}" for name in ("branch", "testbed") if getattr(args, name) is not None]
    given += ["--full"] if args.full else []
    if given:
        names = given[0] if len(given) == 1 else f"{', '.join(given[:-1])} and {given[-1]}"
        raise PerfgateError(f"{names} appl{'ies' if len(given) == 1 else 'y'} to the store's series, not to "
                            f"--series {args.series}: leave {'it' if len(given) == 1 else 'them'} out")


def _detect_job(job: tuple[list[float], Any, bool]) -> tuple[list, dict[str, Any] | None]:
    """The series' change points, and the newest runs at a level too new to be a regime (their
    count and size against the runs before them) when the last change found is not theirs:
    found with 3 runs after it and not with 4, a step read as a detector that missed it."""
    from perfgate.detect.changepoint import ChangePointDetector

    values, settings, lower, samples = job
    detector = ChangePointDetector(settings, lower).fit(values, samples)
    found = detector.predict()
    new = detector.newest_level()
    if new is None or (found and found[-1].index >= len(values) - new[0] - settings.min_segment):
        return found, None
    return found, {"runs": new[0], "magnitude": new[1]}


def _located(cp, s: FileSeries) -> dict[str, Any]:
    """A change point of a series file, named by the file's own columns: its ``index`` labels
    (not positions), and with a ``commit`` column the commits under the keys a stored series'
    report uses (``first_commit``, ``previous_commit``, ...), with ``date``/``time`` their times."""
    d = cp.to_json()
    if s.commits is not None:
        c = s.commits
        d |= {"first_commit": c[cp.index], "previous_commit": c[cp.index - 1],
              "last_measured": c[cp.index_low - 1] if cp.index_low > 0 else "",
              "commit_range": c[cp.index_low:cp.index_high + 1]}
        if cp.likeliest_low >= 0:   # -1: not located more closely
            d["likeliest_range"] = c[cp.likeliest_low:cp.likeliest_high + 1]
    if s.times is not None:
        d |= {"first_time": s.times[cp.index], "previous_time": s.times[cp.index - 1]}
    if s.labels is not None:   # positions were used above: labels last
        for k in ("index", "index_low", "index_high"):
            d[k] = s.labels[d[k]]
    return d


def _commits_text(cp: dict[str, Any]) -> str:
    """``", commit 2222222222 (2026-11-02), after 1111111111 (2026-11-01), could be 11111111^..33333333"``,
    or "" for a file without a ``commit`` column."""
    if "first_commit" not in cp:
        return ""
    def at(commit: str, time: str | None) -> str:
        return commit[:12] + (f" ({time})" if time else "")
    rng = cp["commit_range"]
    span = f", could be {could_be(rng, '')}" if len(rng) > 1 else ""     # git's notation, as the tables
    return terminal(f", commit {at(cp['first_commit'], cp.get('first_time'))}, "
                    f"after {at(cp['previous_commit'], cp.get('previous_time'))}{span}")
