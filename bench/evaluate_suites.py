#!/usr/bin/env python3
"""What testing each series where its siblings changed buys on the suite corpus.

``perfgate detect`` searches each series alone, places each change found where it and the other
series' changes nearby are likeliest together (``ChangePointDetector.align``), then tests every
series again where another series of its branch and testbed changed
(``ChangePointDetector.corroborate``: places fixed in advance, so a step's p-value pays for those
few locations in the siblings tested there, fewer the more of them found the change alone, not for
the whole series; here a suite is one branch and testbed).  This
scores the series of ``detection_corpus_suites.py`` (written apart from the detector) both ways,
margin ±5 runs as in ``evaluate_detection.py``, with the recall of changes shared by several benchmarks at one commit
and the share of those events found in at least one of their benchmarks (where an alert would
name the commit) against the false events: commits flagged in some series of a suite, within
the margin of no true event.  ``--seeds`` runs that many corpora from ``--seed`` on; ``--otava``
scores Apache Otava (E-Divisive means with its significance test, defaults) series by series
beside perfgate.
``--ceiling`` prints what judging every true change at the truth would reach: with perfgate's
tests (its ceiling), with them but the drift guard, and with a z-test that knows the noise (the
regimes' true means apart over the noise's long-run deviation, from the generated noise itself,
Bonferroni over the series' positions at the detector's confidence): about the most a detector
that searches each series alone under that false-alarm control can find.
``--misses`` prints, for each way, the missed changes by step size over the series' noise CV (of how
many) and the false reports by the series' own noise kind (where the detector loses on this
corpus), the F1 if every change of at least 1x the noise were found and the false reports stayed,
and the misses by event: shared events by how many of their other benchmarks found them, single ones.
``--oracle`` searches again with each series' variance inflation at least the long-run variance
ratio of its generated noise (its persistence known, which no detector is told), then that and no
drift guard: whether a better estimate of the noise's persistence, or a guard that costs no power,
could reach the target on this corpus.

    .venv/bin/python bench/evaluate_suites.py                     # 200 suites, seed 41616
    .venv/bin/python bench/evaluate_suites.py --suites 100 --seed 41617 --seeds 7
    .venv/bin/python bench/evaluate_suites.py --ceiling             # recall judged at the true changes
    .venv/bin/python bench/evaluate_suites.py --misses              # misses by size, false reports by noise
    .venv/bin/python bench/evaluate_suites.py --oracle              # the noise's persistence known
    .venv/bin/pip install --no-deps apache-otava && .venv/bin/python bench/evaluate_suites.py --otava
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detection_corpus_suites import generate  # noqa: E402
from evaluate_detection import PERFGATE_SETTINGS, evaluate, matched_truth, otava_detector  # noqa: E402

from perfgate.detect import changepoint  # noqa: E402
from perfgate.detect.changepoint import ChangePointDetector, align_all, corroborate_all  # noqa: E402
from perfgate.parallel import default_workers, map_in_processes  # noqa: E402


def analyse_suite(suite: dict) -> list[tuple[list[int], list[int], list[int]]]:
    """Each series' change points found alone, the same placed where they and its siblings'
    changes are likeliest together, and those its siblings' changes add (as ``perfgate detect``)."""
    detectors = [ChangePointDetector(PERFGATE_SETTINGS).fit(s["values"]) for s in suite["series"]]
    return with_siblings(detectors, [d.predict() for d in detectors])


def with_siblings(detectors: list[ChangePointDetector], alone: list[list]) -> list[tuple[list[int], list[int], list[int]]]:
    """The fitted series' changes found alone, placed with the siblings' and added by them."""
    placed = align_all(detectors, alone)
    return [([cp.index for cp in own], [cp.index for cp in moved], [cp.index for cp in added])
            for own, moved, added in zip(alone, placed, corroborate_all(detectors, alone, placed))]


def long_run_ratio(series: dict, bandwidth: int = 20) -> float:
    """The generated noise's long-run variance over its variance (at least 1): what the detector's
    variance inflation estimates (the noise as :func:`generated_noise` takes it)."""
    noise = generated_noise(series)
    gamma0 = float(noise @ noise) / noise.size
    return max(1.0, _long_run_variance(noise, bandwidth) / gamma0)


def analyse_suite_knowing_persistence(job: tuple[dict, float]) -> list[tuple[list[int], list[int], list[int]]]:
    """:func:`analyse_suite` with each series' variance inflation at least its noise's true long-run
    variance ratio, and the drift guard at ``guard``: an oracle (the detector's module function is
    replaced in this worker while it runs; at the siblings' places its lower bar goes no higher)."""
    suite, guard = job
    estimate, saved_guard = changepoint.variance_inflation, changepoint.DRIFT_GUARD_Z
    saved_at_places = changepoint.SIBLING_GUARD_Z
    detectors, alone = [], []
    try:
        changepoint.DRIFT_GUARD_Z, changepoint.SIBLING_GUARD_Z = guard, min(guard, saved_at_places)
        for s in suite["series"]:
            floor = long_run_ratio(s)
            changepoint.variance_inflation = lambda rho, floor=floor: max(estimate(rho), floor)
            detectors.append(ChangePointDetector(PERFGATE_SETTINGS).fit(s["values"]))
            alone.append(detectors[-1].predict())
        return with_siblings(detectors, alone)     # the re-test judges at each detector's own inflation
    finally:
        changepoint.variance_inflation, changepoint.DRIFT_GUARD_Z = estimate, saved_guard
        changepoint.SIBLING_GUARD_Z = saved_at_places


def otava_suite(suite: dict) -> list[tuple[list[int], list[int], list[int]]]:
    """Each series' change points by Apache Otava (E-Divisive with its significance test), alone."""
    detect = otava_detector()
    return [(found, found, []) for found in (detect(s["values"]) for s in suite["series"])]


def at_the_truth(series: dict) -> list[tuple[bool, bool, bool]]:
    """For each true change of one series: whether perfgate's tests pass it judged at the truth,
    whether they do without the drift guard, and whether a z-test that knows the noise does."""
    if not series["change_points"]:
        return []
    detector = ChangePointDetector(PERFGATE_SETTINGS).fit(series["values"])
    with_guard = detector.passes_at(series["change_points"])
    guard, changepoint.DRIFT_GUARD_Z = changepoint.DRIFT_GUARD_Z, 0.0
    try:
        without_guard = detector.passes_at(series["change_points"])
    finally:
        changepoint.DRIFT_GUARD_Z = guard
    return list(zip(with_guard, without_guard, known_noise_passes(series)))


def known_noise_passes(series: dict, bandwidth: int = 20) -> list[bool]:
    """The z-test that knows the noise: the generated noise is the values over their labelled
    level (outlier runs left out), its long-run variance a Bartlett-weighted sum of its
    autocovariances (``bandwidth`` lags: AR(1) and sticky modes decay well within them), and each
    change's z the true log step over that deviation times ``sqrt(1/n_before + 1/n_after)`` of
    its true regimes."""
    cps, steps, n = series["change_points"], series["steps"], len(series["values"])
    noise = generated_noise(series)
    gamma0 = float(noise @ noise) / noise.size
    # a Bartlett sum of a short series can undershoot
    lrv = max(_long_run_variance(noise, bandwidth), 0.2 * gamma0)
    critical = norm.isf((1 - PERFGATE_SETTINGS.confidence) / 2 / n)
    bounds = [0, *cps, n]
    return [abs(math.log1p(steps[i])) / math.sqrt(lrv * (1 / (c - bounds[i]) + 1 / (bounds[i + 2] - c))) > critical
            for i, c in enumerate(cps)]


def generated_noise(series: dict) -> np.ndarray:
    """The series' generated noise: its log values over their labelled level, outlier runs left
    out, centred."""
    values = np.asarray(series["values"], dtype=float)
    level = np.ones(values.size)
    for c, step in zip(series["change_points"], series["steps"]):
        level[c:] *= 1 + step
    noise = np.delete(np.log(values / (series["base"] * level)), series["outliers"])
    return noise - noise.mean()


def _long_run_variance(noise: np.ndarray, bandwidth: int) -> float:
    """Bartlett-weighted sum of the noise's autocovariances over ``bandwidth`` lags."""
    return float(noise @ noise) / noise.size + 2 * sum(
        (1 - k / (bandwidth + 1)) * float(noise[k:] @ noise[:-k]) / noise.size for k in range(1, bandwidth + 1))


def guard_z_share(before: int, after: int) -> float:
    """The drift guard's z of a step over the plain two-window z of the same step (Gaussian noise
    of known variance): the standard error of the step fitted beside a quadratic trend through
    windows of ``before`` and ``after`` runs, against that of the difference of their means."""
    n = before + after
    t = (np.arange(n) - (n - 1) / 2) / n
    design = np.column_stack([np.ones(n), t, (np.arange(n) >= before).astype(float), t * t])
    return math.sqrt((1 / before + 1 / after) / np.linalg.inv(design.T @ design)[2, 2])


def print_ceilings(suites: list[dict], jobs: int) -> None:
    series = [s for suite in suites for s in suite["series"]]
    judged = [row for rows in map_in_processes(at_the_truth, series, jobs) for row in rows]
    for i, label in enumerate(("perfgate's tests (its ceiling)", "perfgate's tests but the drift guard",
                               "a z-test that knows the noise")):
        recall = sum(row[i] for row in judged) / len(judged)
        print(f"  at the truth, {label}: recall {recall:.3f}, F1 {2 * recall / (1 + recall):.3f} with no false report")
    print(f"  of the {sum(r[2] and not r[0] for r in judged)} true changes the noise-knowing test passes and "
          f"perfgate's fail, {sum(r[2] and not r[0] and r[1] for r in judged)} fail only the drift guard")
    shares = [guard_z_share(a, b) for a, b in ((16, 90), (30, 90), (60, 90), (90, 90), (20, 20))]
    print(f"  the guard's z of a step is {min(shares):.2f}-{max(shares):.2f} of its plain z (windows of 16-90 runs a "
          f"side); a step of plain z 5 fails |z| >= 2 with probability {norm.cdf(2 - 0.5 * 5):.2f} at half, "
          f"z 6 with {norm.cdf(2 - 0.5 * 6):.2f}")


def series_findings(results: list, with_siblings: bool) -> list[list[int]]:
    """Each series' change points, suite after suite: found alone, or placed at the siblings'
    changes with what their changes added (``analyse_suite``'s triples)."""
    return [sorted(placed + added) if with_siblings else alone
            for series_results in results for alone, placed, added in series_results]


MISS_BINS = ((0, 1, "under 1x"), (1, 2, "1-2x"), (2, 3, "2-3x"), (3, math.inf, "3x or more"))


def print_misses(suites: list[dict], results: list, with_siblings: bool, margin: int) -> None:
    """The true changes missed, by step size over the series' noise CV (of how many), and the false
    reports, by the series' own noise kind (an AR(1) kind counted as one, whatever its phi); then
    the F1 the detector would have if it found every change of at least 1x the noise and made the
    false reports it makes: how much of the target the steps under the noise hold back."""
    missed = dict.fromkeys((label for *_, label in MISS_BINS), 0)
    total = dict(missed)
    false: dict[str, int] = {}
    series = [s for suite in suites for s in suite["series"]]
    findings = series_findings(results, with_siblings)
    for s, found in zip(series, findings):
        hits = matched_truth(s["change_points"], found, margin)
        for hit, step in zip(hits, s["steps"]):
            size = next(label for lo, hi, label in MISS_BINS if lo <= abs(step) / s["noise_cv"] < hi)
            total[size] += 1
            missed[size] += not hit
        kind = s.get("own_kind", s["kind"])
        kind = "ar" if kind.startswith("ar") else kind
        false[kind] = false.get(kind, 0) + len(found) - sum(hits)
    print(f"  missed by step size over the noise: {', '.join(f'{k} {v} of {total[k]}' for k, v in missed.items())}; "
          f"false reports by noise: {', '.join(f'{k} {v}' for k, v in sorted(false.items(), key=lambda kv: -kv[1]))}")
    under = MISS_BINS[0][2]
    at_least_1x = sum(total.values()) - missed[under]          # true changes if all of 1x or more were found
    f1 = 2 * at_least_1x / (2 * at_least_1x + sum(false.values()) + missed[under])
    print(f"  F1 if every change of 1x the noise or more were found, the false reports as they are: {f1:.3f}")
    print(f"  missed by event: {', '.join(f'{k} {v}' for k, v in misses_by_event(suites, findings, margin).items())}")


def misses_by_event(suites: list[dict], findings: list[list[int]], margin: int) -> dict[str, int]:
    """The true changes missed, by their event: a shared one by how many of its other benchmarks
    found it (where a sibling's change was there to re-test at), or a single one."""
    out = {"shared, found in 2+ others": 0, "in 1 other": 0, "in none": 0, "single": 0}
    at = 0
    for suite in suites:
        shared = {e["index"] for e in suite["events"] if e["kind"] == "shared"}
        hits: dict[int, list[bool]] = {}
        for s in suite["series"]:
            for t, hit in zip(s["change_points"], matched_truth(s["change_points"], findings[at], margin)):
                hits.setdefault(t, []).append(hit)
            at += 1
        for t, found in hits.items():
            for hit in found:
                if hit:
                    continue
                others = sum(found)
                out["single" if t not in shared else "shared, found in 2+ others" if others >= 2
                    else "in 1 other" if others else "in none"] += 1
    return out


def false_events(found: list[int], events: list[int], margin: int) -> int:
    """Commits flagged in a suite's series (all of them together, flags within ``margin`` of the
    first of a group counting once) that are not within ``margin`` of any true event."""
    count, start = 0, None
    group: list[int] = []
    for i in sorted(found) + [None]:
        if i is not None and start is not None and i - start <= margin:
            group.append(i)
            continue
        if group and all(abs(g - e) > margin for g in group for e in events):
            count += 1
        start, group = i, [i]
    return count


def score(suites: list[dict], results: list, with_siblings: bool, margin: int) -> dict:
    """``evaluate_detection.evaluate``'s scores of the suites' series (each series' findings from
    ``results``: alone, or placed and with what its siblings' changes added), and the suite-level figures: the
    recall of shared changes, the share of shared events found in at least one of their
    benchmarks, the share named at their very commit by two of them or more (one commit in the
    alerts, not a few nearby), and the false events per 1,000 commits."""
    findings = series_findings(results, with_siblings)
    series = [s for suite in suites for s in suite["series"]]
    given = iter(findings)
    scores = evaluate(series, lambda values: next(given), margin)
    shared = [0, 0]
    events = [0, 0]     # shared events found in at least one of their benchmarks, of all
    exact = 0           # shared events that two or more of their benchmarks name at their very commit
    wrong = commits = 0     # flagged commits of a suite where no event is, and the suites' commits
    at = 0
    for suite in suites:
        shared_at = {e["index"] for e in suite["events"] if e["kind"] == "shared"}
        seen: set[int] = set()
        flagged: list[int] = []
        named = [t for i, s in enumerate(suite["series"]) for t in set(findings[at + i]) & set(s["change_points"])]
        exact += sum(named.count(t) >= 2 for t in shared_at)
        for s in suite["series"]:
            found = findings[at]
            at += 1
            flagged += found
            for t, hit in zip(s["change_points"], matched_truth(s["change_points"], found, margin)):
                if t in shared_at:
                    shared[0] += hit
                    shared[1] += 1
                    if hit:
                        seen.add(t)
        events[0] += len(seen)
        events[1] += len(shared_at)
        wrong += false_events(flagged, [e["index"] for e in suite["events"]], margin)
        commits += suite["length"]
    return scores | {"recall_shared": shared[0] / max(shared[1], 1), "events_found": events[0] / max(events[1], 1),
                     "events_exact": exact / max(events[1], 1), "false_events": 1000 * wrong / max(commits, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suites", type=int, default=200)
    p.add_argument("--seed", type=int, default=41616)
    p.add_argument("--seeds", type=int, default=1)
    p.add_argument("--margin", type=int, default=5)
    p.add_argument("--jobs", type=int, default=default_workers())
    p.add_argument("--ceiling", action="store_true",
                   help="also each corpus's recall at the truth: perfgate's tests, without the drift guard, knowing the noise")
    p.add_argument("--misses", action="store_true",
                   help="also the misses by step size and the false reports by noise kind")
    p.add_argument("--oracle", action="store_true",
                   help="also searched with the noise's true persistence, and with it and no drift guard")
    p.add_argument("--otava", action="store_true",
                   help="also Apache Otava, series alone (pip install --no-deps apache-otava)")
    args = p.parse_args()
    if args.otava and otava_detector() is None:
        p.error("Apache Otava is not installed: .venv/bin/pip install --no-deps apache-otava")
    print("| seed | way | F1 | precision | false alarms / 1,000 | recall 1-3x | recall of shared changes "
          "| shared events found | named at their commit by 2+ | false events / 1,000 commits | TP / FP / FN |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for seed in range(args.seed, args.seed + args.seeds):
        suites = generate(args.suites, seed)
        results = map_in_processes(analyse_suite, suites, args.jobs)
        rows = [("alone", results, False), ("with siblings", results, True)]
        if args.oracle:
            for label, guard in (("persistence known", changepoint.DRIFT_GUARD_Z), ("persistence known, no guard", 0.0)):
                known = map_in_processes(analyse_suite_knowing_persistence, [(s, guard) for s in suites], args.jobs)
                rows += [(f"{label}, alone", known, False), (f"{label}, with siblings", known, True)]
        if args.otava:
            rows.append(("Otava, alone", map_in_processes(otava_suite, suites, args.jobs), False))
        for way, found, joint in rows:
            r = score(suites, found, joint, args.margin)
            tp, fp, fn = r["counts"]
            print(f"| {seed} | {way} | {r['f1']:.3f} | {r['precision']:.3f} | {r['false_alarms_per_1000']:.2f} | "
                  f"{r['recall_by_effect']['1-3x noise'][0]:.3f} | {r['recall_shared']:.3f} | "
                  f"{r['events_found']:.3f} | {r['events_exact']:.3f} | {r['false_events']:.2f} | {tp} / {fp} / {fn} |")
            if args.misses:
                print_misses(suites, found, joint, args.margin)
        if args.ceiling:
            print_ceilings(suites, args.jobs)


if __name__ == "__main__":
    main()
