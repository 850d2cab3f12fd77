#!/usr/bin/env python3
"""How often a quiet series shows a change where a sibling changed, by noise kind.

``perfgate detect`` tests each series again at the places its siblings' changes name
(``ChangePointDetector.corroborate``).  A series with no change of its own must rarely show one
there, whatever its noise — in particular a slow drift, which a mean test sees as a step at any
place along it.  This takes the series without a change of the first generator
(``detection_corpus.py``, 350 series per seed, lengths 150-600), fits each, and tests it at five
places (a fifth, a third, the middle, two thirds and four fifths of the way along), each a 3-run
range named by ``k`` of ``--siblings`` siblings; every change it reports there is false.

``--guard`` sets the drift guard's |z| at those places where the regime about the place shows
no trend (perfgate asks 1 there since round 35 of issue 16, and the 2 of its search where the
regime drifts; 1 everywhere was tried in the ninth round and not kept: drifting series then
reported a change at 14 of 250 places instead of 1).

    .venv/bin/python bench/placed_false_reports.py
    .venv/bin/python bench/placed_false_reports.py --guard 1
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import detection_corpus
from evaluate_detection import PERFGATE_SETTINGS

from perfgate.detect import changepoint
from perfgate.parallel import default_workers, map_in_processes

PLACES = (0.2, 0.35, 0.5, 0.65, 0.8)
FOUND = (1, 4)          # siblings that found the change alone at the place


def false_reports(job: tuple[dict, int, float]) -> tuple[str, list[int]]:
    """The series' kind and, for each k in FOUND, the changes reported at all PLACES."""
    series, siblings, guard = job
    detector = changepoint.ChangePointDetector(PERFGATE_SETTINGS).fit(series["values"])
    own = detector.predict()
    n = len(series["values"])
    changepoint.SIBLING_GUARD_Z, usual = guard, changepoint.SIBLING_GUARD_Z
    try:
        counts = [sum(len(detector.corroborate(own, [(int(f * n), int(f * n) + 2)] * k, siblings, list(range(k))))
                      for f in PLACES) for k in FOUND]
    finally:
        changepoint.SIBLING_GUARD_Z = usual
    return series["kind"], counts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--siblings", type=int, default=8)
    p.add_argument("--guard", type=float, default=changepoint.SIBLING_GUARD_Z)
    p.add_argument("--jobs", type=int, default=default_workers())
    args = p.parse_args()
    quiet = [s for seed in args.seeds for s in detection_corpus.generate(350, seed, (150, 600))
             if not s["change_points"]]
    tally: dict[str, list[int]] = defaultdict(lambda: [0] * (len(FOUND) + 1))
    for kind, counts in map_in_processes(false_reports, [(s, args.siblings, args.guard) for s in quiet], args.jobs):
        row = tally[kind]
        row[0] += len(PLACES)
        for i, c in enumerate(counts):
            row[i + 1] += c
    print(f"drift guard |z| >= {args.guard:g} at the places where the regime shows no trend, "
          f"{changepoint.DRIFT_GUARD_Z:g} where it drifts; {args.siblings} siblings tested at each")
    print("| noise | places tested | " + " | ".join(f"false reports, {k} sibling(s) found it" for k in FOUND) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in FOUND) + " |")
    for kind in sorted(tally):
        places, *counts = tally[kind]
        print(f"| {kind} | {places} | " + " | ".join(str(c) for c in counts) + " |")


if __name__ == "__main__":
    main()
