#!/usr/bin/env python3
"""What leaving a level too new to be a regime out of the last change's evidence
(``NoiseModel.pending``) changes, where it can: on every prefix of the corpora's series — the
history ``perfgate detect`` sees after each run — whose newest 1 to ``min_segment - 1`` runs sit
beyond the fences of the runs before them.  The fixed corpora end where their generators stop,
so they meet the rule on 13 of 2,610 series; a growing history meets it at every step, spike pair
or mode visit that has just begun.

For each such prefix the changes found with the rule and without it (the rule's level forced to
0; with ``--lone``, the rule as it was before round 39, which took levels of 2 runs or more, on the
prefixes whose newest run alone is such a level) are compared; a change differing between the two is true when it lies within 5 runs of a true
change the prefix holds 2 runs of.  A change the rule adds is counted by whether the detector
without it found it (within 2 runs) at an earlier analysis — the alert was raised already, the
rule only keeps it found —, at a later one only (raised sooner), or never (an alert of its own).
Printed per corpus: prefixes analysed, prefixes where the rule applies, those counts, and the
true / false changes it removes.

    .venv/bin/python bench/newest_level.py             # 40 series a corpus, every prefix: about 6 min
    .venv/bin/python bench/newest_level.py --series 300 --stride 3
    .venv/bin/python bench/newest_level.py --lone       # what a one-run level adds: about 1.5 min
"""

from __future__ import annotations

import argparse
import os
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache

from detection_seeds import GENERATORS
from evaluate_detection import PERFGATE_SETTINGS

from perfgate.detect import noise
from perfgate.detect.changepoint import ChangePointDetector

_PENDING = noise.NoiseModel._pending_level
MARGIN = 5


@lru_cache(maxsize=None)
def corpus(name: str, seed: int) -> list[dict]:
    """A corpus, generated once per worker."""
    return GENERATORS[name][1](seed)


def _without(lone: bool):
    """The rule left out: its level forced to 0, or (``lone``) to 0 where it is one run."""
    if lone:
        return lambda self: level if (level := _PENDING(self)) >= 2 else 0
    return lambda self: 0


def _found(values, samples, rule: bool, lone: bool) -> tuple[list[int], int]:
    """The changes found, with the rule or without it (:func:`_without`), and the level."""
    noise.NoiseModel._pending_level = _PENDING if rule else _without(lone)
    d = ChangePointDetector(PERFGATE_SETTINGS).fit(values, samples)
    return [c.index for c in d.predict()], d.noise_.pending


def series_job(job: tuple[str, int, int, int, bool]) -> tuple[str, list[int]]:
    """The counts of :data:`COLUMNS` for one series of a corpus."""
    name, seed, which, stride, lone = job
    s = corpus(name, seed)[which]
    m = PERFGATE_SETTINGS.min_segment
    lengths = range(3 * m, len(s["values"]) + 1, stride)
    without, added, removed = {}, [], []
    applies = 0
    for n in lengths:
        samples = s["samples"][:n] if "samples" in s else None
        with_rule, pending = _found(s["values"][:n], samples, True, lone)
        differs = pending == 1 if lone else pending > 0
        without[n] = _found(s["values"][:n], samples, False, lone)[0] if differs else with_rule
        applies += differs
        added += [(n, t) for t in set(with_rule) - set(without[n])]
        removed += [(n, t) for t in set(without[n]) - set(with_rule)]

    def true(n: int, t: int) -> bool:
        # a true change counts once the prefix holds LOCATE_MIN_SIDE runs of its new level
        return any(abs(t - u) <= MARGIN for u in s["change_points"] if u <= n - 2)

    def seen(n: int, t: int, before: bool) -> bool:
        return any(abs(t - u) <= NEAR for k, found in without.items() if (k < n) == before and k != n
                   for u in found)
    out = [len(lengths), applies, 0, 0, 0, 0, 0, 0, 0, 0]
    for n, t in added:
        when = 0 if seen(n, t, True) else 1 if seen(n, t, False) else 2
        out[2 + 2 * when + (not true(n, t))] += 1
    for n, t in removed:
        out[8 + (not true(n, t))] += 1
    return name, out


COLUMNS = ("prefixes", "rule applies", "added, already found before: true", "false",
           "found later only: true", "false", "never found otherwise: true", "false",
           "removed: true", "false")
NEAR = 2      # runs between two analyses' places of one change


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", type=int, default=40, help="first series of each corpus's fixed seed")
    p.add_argument("--stride", type=int, default=1, help="analyse every k-th prefix")
    p.add_argument("--lone", action="store_true", help="against the rule without its one-run level")
    args = p.parse_args()
    jobs = [(name, seed, i, args.stride, args.lone) for name, (seed, gen) in GENERATORS.items()
            for i in range(min(args.series, len(corpus(name, seed))))]
    totals = {name: [0] * len(COLUMNS) for name in GENERATORS}
    with ProcessPoolExecutor(min(2, os.cpu_count() or 1)) as pool:
        for name, out in pool.map(series_job, jobs, chunksize=4):
            totals[name] = [a + b for a, b in zip(totals[name], out)]
    print("corpus".ljust(24), " | ".join(COLUMNS))
    for name, row in totals.items():
        print(name.ljust(24), " | ".join(f"{v:>{len(c)}}" for v, c in zip(row, COLUMNS)))


if __name__ == "__main__":
    main()
