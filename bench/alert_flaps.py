#!/usr/bin/env python3
"""How often change point alerts close and reopen as runs arrive one at a time.

A series' weak change can be found by one analysis, lost by the next (its p-value hovers about the
bar), found again: each loss a "no longer found" close of its issue, each find a reopening.  Here
``--series`` series of wall-time-like noise (log-normal, CV ``--cv``, AR(1) with ``--phi``) get
``--history`` runs, then one run at a time up to ``--runs``, each followed by perfgate's analysis
of the whole series (``ChangePointDetector`` with perfgate's thresholds, as ``detect`` runs it on
one series) and the store's own rule for withdrawing and finding again
(``perfgate.alert_history.withdrawals``), once as perfgate has it (withdrawn once
``WITHDRAW_AFTER_RUNS`` runs have not shown the change) and once withdrawn at the first analysis
that does not find it (perfgate before, ``--after 0``).  The series cycle through steps of
``--steps`` times the noise at the first new run (0: no change).  ``--modes GAP`` draws the noise
with a sticky second mode instead (``sticky_modes.py``: Gaussian jitter of CV ``--cv``, runs
``GAP`` times that slower in the slow mode, which holds ``--share`` of the runs and stays
``--dwell`` runs on average): its visits are noise, so every alert on a quiet series of it is
false.  Prints, per rule: alerts raised, closes as no longer found, reopenings, the alerts open
at the end that name a true change (within 5 runs) or no change, and those closed as undone by a
way back (``detect``'s test for a revert, ``perfgate.detect.way_back``), wrongly every one: no
series here goes back.

    .venv/bin/python bench/alert_flaps.py                                  # about 40 s
    .venv/bin/python bench/alert_flaps.py --phi 0.5 --steps 0 --runs 240   # quiet, correlated noise
    .venv/bin/python bench/alert_flaps.py --modes 3 --steps 0 --cv 0.02    # quiet, a sticky slow mode
"""

from __future__ import annotations

import argparse
from unittest import mock

import numpy as np

import perfgate.alert_history as history
from ar1_noise import ar1_noise
from perfgate.detect.changepoint import ChangePointDetector
from perfgate.detect.way_back import way_back
from perfgate.model import Alert
from perfgate.thresholds import load_thresholds
from sticky_modes import sticky_modes

KEY = ("main", "tb", "bench", "latency")


def commit(i: int) -> str:
    return f"c{i:05d}"


def as_alert(cp, n_before: int) -> Alert:
    return Alert(*KEY, commit(cp.index), cp.direction, cp.magnitude, kind="change_point",
                 commit_range=tuple(commit(i) for i in range(cp.index_low, cp.index_high + 1)),
                 id=f"a{n_before}-{cp.index}")


def replay(values: np.ndarray, start: int, after: int, settings) -> list[Alert]:
    """The series' alerts after analysing it at every length from ``start``, under a withdrawal
    rule of ``after`` runs; a regression not found is first tested for a way back, as ``detect``
    does (none of these series goes back, so each one closed so is closed wrongly)."""
    alerts: list[Alert] = []
    with mock.patch.object(history, "WITHDRAW_AFTER_RUNS", after):
        for n in range(start, values.size + 1):
            detector = ChangePointDetector(settings).fit(values[:n])
            found = [as_alert(cp, n) for cp in detector.predict()]

            def went_back(a: Alert) -> dict | None:
                back = way_back(values[:n], int(a.commit[1:]), a.magnitude, settings.min_segment,
                                settings.confidence, detector.inflation_)
                return back and {"commit": commit(back.index), "magnitude": back.magnitude, "ci_low": back.ci_low,
                                 "ci_high": back.ci_high, "p_value": back.p_value}

            history.withdrawals(alerts, found, {KEY: history.Analysed(commit(n - 1), n)}, way_back=went_back)
            alerts += [f for f in found if not any(f.same_regression(a) for a in alerts)]
    return alerts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", type=int, default=80)
    p.add_argument("--history", type=int, default=100)
    p.add_argument("--runs", type=int, default=200, help="runs at the end (default: %(default)s)")
    p.add_argument("--cv", type=float, default=0.05)
    p.add_argument("--phi", type=float, default=0.3)
    p.add_argument("--steps", type=float, nargs="+", default=[0, 1, 1.5, 2, 3])
    p.add_argument("--seed", type=int, default=8)
    p.add_argument("--modes", type=float, metavar="GAP",
                   help="noise with a sticky slow mode GAP times the jitter's CV slower (instead of AR(1))")
    p.add_argument("--share", type=float, default=0.25, help="the slow mode's share of the runs (with --modes)")
    p.add_argument("--dwell", type=float, default=3.0, help="its mean stay in runs (with --modes)")
    p.add_argument("--after", type=int, nargs="+", default=[0, history.WITHDRAW_AFTER_RUNS],
                   help="withdrawal rules to compare, in runs (default: %(default)s)")
    args = p.parse_args()
    settings = load_thresholds(None).for_series(KEY[2], KEY[3]).change_point
    rng = np.random.default_rng(args.seed)
    series = []
    for k in range(args.series):
        size = args.steps[k % len(args.steps)]
        if args.modes is None:
            values = 100 * np.exp(ar1_noise(rng, args.runs, args.cv, args.phi))
        else:
            values = 100 * (1 + sticky_modes(rng, args.runs, args.cv, args.modes * args.cv, args.share, args.dwell))
        values[args.history:] *= 1 + args.cv * size
        series.append((values, size))
    noise = (f"phi {args.phi}" if args.modes is None else
             f"a slow mode {args.modes} x the CV slower, {args.share} of the runs, stays {args.dwell} runs")
    print(f"{args.series} series of {args.history} + {args.runs - args.history} runs, CV {args.cv}, {noise}, "
          f"steps {args.steps} x the noise, seed {args.seed}")
    print(f"{'withdrawn after':>16} {'alerts':>7} {'closes':>7} {'reopenings':>11} {'open, true':>11} {'open, false':>12}"
          f" {'undone, true':>13} {'undone, false':>14}")
    for after in args.after:
        raised = closes = reopens = true_open = false_open = true_undone = false_undone = 0
        for values, size in series:
            alerts = replay(values, args.history, after, settings)
            raised += len(alerts)
            reopens += sum(len(history.reopenings(a)) for a in alerts)
            closes += sum(len(history.reopenings(a)) + bool(history.withdrawn_at(a)) for a in alerts)
            for a in alerts:
                true = size and abs(int(a.commit[1:]) - args.history) <= 5
                if history.went_back(a):    # closed as undone by a way back no series here has
                    true_undone += bool(true)
                    false_undone += not true
                elif not history.withdrawn_at(a):
                    true_open += bool(true)
                    false_open += not true
        print(f"{after:>10} runs {raised:>7} {closes:>7} {reopens:>11} {true_open:>11} {false_open:>12}"
              f" {true_undone:>13} {false_undone:>14}")


if __name__ == "__main__":
    main()
