#!/usr/bin/env python3
"""Is a step in a quiet stretch found whatever the noise elsewhere — on a real history?

Reads a history recorded by ``bench/record_history.py`` (this repository's tree-alloc suite in
its pinned container: runs with a neighbour process on the benchmark's CPU, then runs alone;
``tests/fixtures/history/tree-alloc.json``) and, for every latency series:

* **as recorded** (the same commit throughout): the change points found; the only real event is
  the neighbour leaving (the first quiet run), every other one is a false alarm;
* **planted**: the values and raw samples from run ``t`` on multiplied by ``1 + δ``, for ``t`` at
  several places in the quiet stretch (and, for comparison, in the noisy one), with ``δ`` a
  multiple of the quiet stretch's own noise (robust CV of its values) — found when a change
  point lies within ``--margin`` runs of ``t`` (and counted exact when at ``t``).

Each with the runs' raw samples given to the detector and without them (values only).

A history recorded with ``--planted`` (``tests/fixtures/history/tree-alloc-change.json``) holds a
real code change in its quiet stretch: for it the script reports, per series, what is found at
the change (``--margin``) and elsewhere, and what testing each series again where the others
changed adds (as ``perfgate detect`` does), instead of planting steps.

    .venv/bin/python bench/detect_real_history.py
    .venv/bin/python bench/detect_real_history.py --history tests/fixtures/history/tree-alloc-change.json
    .venv/bin/python bench/detect_real_history.py --history my.json --margin 0
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from perfgate.detect.changepoint import ChangePointDetector, align_all, corroborate_all, detect_change_points
from perfgate.thresholds import ChangePointSettings

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ChangePointSettings(min_effect=0.005, confidence=0.99)   # thresholds/default.toml's
MULTIPLES = (1, 2, 3, 4, 6)


def robust_cv(values: np.ndarray) -> float:
    y = np.log(values)
    return float(1.4826 * np.median(np.abs(y - np.median(y))))


def planted(values: list[float], samples: list[list[float]], at: int, delta: float):
    v = np.asarray(values, dtype=float).copy()
    v[at:] *= 1 + delta
    s = [list(x) if i < at else [u * (1 + delta) for u in x] for i, x in enumerate(samples)]
    return v.tolist(), s


def found(values, samples, use_samples: bool) -> list[int]:
    return [cp.index for cp in detect_change_points(values, SETTINGS, samples=samples if use_samples else None)]


def real_change(doc: dict, margin: int) -> None:
    cut, at = doc["noisy_runs"], doc["planted_at"]
    n = at + doc["planted_runs"]
    print(f"{doc['suite']}: {len(doc['series'])} latency series of {n} runs recorded {doc['recorded']}: {cut} with a "
          f"neighbour on the CPU, {at - cut} alone, then {doc['planted_runs']} alone with the code change "
          f"'{doc['plant']}' (run {at}; it runs in {', '.join(doc['plant_affects'])})\n")
    for use in (True, False):
        print("with raw samples" if use else "values only")
        detectors = [ChangePointDetector(SETTINGS).fit(s["values"], s["samples"] if use else None)
                     for s in doc["series"]]
        alone = [d.predict() for d in detectors]
        # as `perfgate detect` does: each series' changes placed where they and the suite's other
        # series' changes are likeliest together, then tested again where those changed
        placed = align_all(detectors, alone)
        retested = corroborate_all(detectors, alone, placed)
        for k, s in enumerate(doc["series"]):
            affected = any(s["benchmark"].startswith(a) for a in doc["plant_affects"])
            cps = placed[k]
            siblings = retested[k]
            at_change = [cp for cp in cps if abs(cp.index - at) <= margin]
            quiet_other = [cp.index for cp in cps if cut + margin < cp.index and abs(cp.index - at) > margin]
            v = np.asarray(s["values"])
            effect = float(np.median(v[at:]) / np.median(v[cut:at]) - 1)
            found = (f"found at run {at_change[0].index} ({at_change[0].index_low}..{at_change[0].index_high}), "
                     f"{at_change[0].magnitude * 100:+.1f}% [{at_change[0].ci_low * 100:+.1f}, "
                     f"{at_change[0].ci_high * 100:+.1f}]" if at_change else "not found at the change")
            added = "; ".join(f"where a sibling changed: run {c.index} ({c.index_low}..{c.index_high}), "
                              f"{c.magnitude * 100:+.1f}% [{c.ci_low * 100:+.1f}, {c.ci_high * 100:+.1f}], "
                              f"p = {c.p_value:.2g}" for c in siblings)
            print(f"  {s['benchmark']:40} {'runs the change' if affected else 'unaffected':16} "
                  f"median shift {effect * 100:+5.1f}%  {found}; other quiet-stretch change points {quiet_other}"
                  + (f"; {added}" if added else ""))
        print()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--history", default=str(ROOT / "tests/fixtures/history/tree-alloc.json"))
    p.add_argument("--margin", type=int, default=2)
    args = p.parse_args()
    doc = json.loads(Path(args.history).read_text())
    if "planted_at" in doc:
        real_change(doc, args.margin)
        return
    cut = doc["noisy_runs"]
    n = cut + doc["quiet_runs"]
    quiet_at = list(range(cut + 30, n - 20, 25))
    noisy_at = list(range(30, cut - 20, 25))
    print(f"{doc['suite']}: {len(doc['series'])} latency series of {n} runs recorded {doc['recorded']} "
          f"({cut} with a neighbour on the CPU at duty {doc['duty']}, then {doc['quiet_runs']} alone)")
    print(f"steps planted at runs {quiet_at} (quiet) and {noisy_at} (noisy); found = within ±{args.margin} runs\n")
    for use in (True, False):
        label = "with raw samples" if use else "values only"
        false_quiet = false_noisy = boundary = 0
        hits = {(where, k): [0, 0, 0] for where in ("quiet", "noisy") for k in MULTIPLES}
        for s in doc["series"]:
            v, smp = s["values"], s["samples"]
            for i in found(v, smp, use):
                if abs(i - cut) <= args.margin:
                    boundary += 1
                elif i >= cut:
                    false_quiet += 1
                else:
                    false_noisy += 1
            cv = robust_cv(np.asarray(v[cut:]))
            for where, places in (("quiet", quiet_at), ("noisy", noisy_at)):
                for k in MULTIPLES:
                    for at in places:
                        got = found(*planted(v, smp, at, k * cv), use)
                        h = hits[(where, k)]
                        h[0] += any(abs(i - at) <= args.margin for i in got)
                        h[1] += at in got
                        h[2] += 1
        print(f"{label}: as recorded, {boundary} of {len(doc['series'])} series flag the neighbour leaving; "
              f"false alarms: {false_quiet} in the quiet stretch, {false_noisy} in the noisy one")
        print(f"  {'step (x quiet noise)':22}" + "".join(f"{k:>8}x" for k in MULTIPLES))
        for where in ("quiet", "noisy"):
            cells = [hits[(where, k)] for k in MULTIPLES]
            print(f"  {'found in ' + where + ' stretch':22}" + "".join(f"{h / t:>9.2f}" for h, _, t in cells)
                  + f"   (n={cells[0][2]} each)")
            print(f"  {'  exactly at the run':22}" + "".join(f"{e / t:>9.2f}" for _, e, t in cells))
        print()
    cvs = {s["benchmark"]: (robust_cv(np.asarray(s["values"][:cut])), robust_cv(np.asarray(s["values"][cut:])))
           for s in doc["series"]}
    print("noise (robust CV) noisy -> quiet: " + ", ".join(f"{b.split('/')[0]}/{b.split('/')[1]} "
                                                          f"{a * 100:.1f}% -> {q * 100:.1f}%"
                                                          for b, (a, q) in cvs.items()))


if __name__ == "__main__":
    main()
