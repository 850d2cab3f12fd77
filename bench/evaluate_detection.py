"""Judge change point detectors on the labelled corpus of ``bench/detection_corpus.py``.

For perfgate, Apache Otava (``otava.analysis.compute_change_points`` with its default settings:
window 50, p ≤ 0.001, no minimum magnitude) and ruptures PELT with a textbook BIC penalty
(l2 cost, ``pen = 2 σ² log n`` with σ from the MAD of first differences, ``jump=1``), prints:

* pooled precision, recall and F1 — a detection matches an unmatched true change point at most
  ``--margin`` (5) points away, one to one;
* false alarms per 1,000 points of the series that have no change at all;
* recall by effect size relative to noise (|step| / noise CV: < 1, 1–3, ≥ 3);
* F1 per noise kind, and the time each method took;
* how often perfgate's location range holds the true change, among its detections within the
  margin and within 15 runs of one, and the range's mean width;
* perfgate's ceiling: the share of true changes its own tests pass when judged exactly at the
  truth between the true neighbours (``ChangePointDetector.passes_at``), and the F1 that recall
  would give with no false alarm — how much is left to a better search and pruning, and how
  much only more powerful tests could find.

    python bench/evaluate_detection.py --series 350 --seed 1
    python bench/evaluate_detection.py --corpus my_corpus.json   # a corpus from elsewhere: a JSON list
        # of {"values": [...], "change_points": [first index of each new regime, ...]}, optionally
        # with "kind", "steps" (relative sizes) and "noise_cv" for the per-kind / per-effect rows,
        # and "samples" (each point's raw samples), which perfgate then reads (--ignore-samples: not)
    python bench/evaluate_detection.py --seed 2 --length 60 200  # shorter series

Apache Otava is optional (``pip install -e .[eval]``); without it its column is skipped.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np
import ruptures as rpt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detection_corpus import KINDS, generate  # noqa: E402

from perfgate.detect.changepoint import ChangePoint, ChangePointDetector  # noqa: E402
from perfgate.thresholds import ChangePointSettings  # noqa: E402

# perfgate on an unnamed series uses its default change point settings (thresholds/default.toml:
# min_effect 0.5%, confidence 0.99).
PERFGATE_SETTINGS = ChangePointSettings(min_effect=0.005, confidence=0.99)


class PerfgateDetector:
    """perfgate on one series (``detect(values, samples=None) -> [index]``), keeping each series'
    fitted detector and change points in call order for :func:`location_coverage` and
    :func:`ceiling`."""

    def __init__(self) -> None:
        self.fitted: list[ChangePointDetector] = []
        self.found: list[list[ChangePoint]] = []

    def __call__(self, values: list[float], samples: list[list[float]] | None = None) -> list[int]:
        self.fitted.append(ChangePointDetector(PERFGATE_SETTINGS).fit(values, samples))
        self.found.append(self.fitted[-1].predict())
        return [cp.index for cp in self.found[-1]]


# A detection this near a true change is taken as that change for the location range's figure too:
# counting only those within the scoring margin leaves out the ones whose range matters most.
NEAR = 15


def location_coverage(corpus: list[dict], found: list[list[ChangePoint]], margin: int) -> tuple[float, float, int]:
    """How often perfgate's reported location range (``index_low..index_high``, nominally 95%)
    holds the true change point, among its detections within ``margin`` of one; and the mean
    width of those ranges.  ``found``: each series' change points, in corpus order."""
    inside = width = count = 0
    for s, cps in zip(corpus, found, strict=True):
        truth = s["change_points"]
        for cp in cps if truth else ():
            nearest = min(truth, key=lambda t: abs(t - cp.index))
            if abs(nearest - cp.index) <= margin:
                count += 1
                inside += cp.index_low <= nearest <= cp.index_high
                width += cp.index_high - cp.index_low + 1
    return (inside / count, width / count, count) if count else (math.nan, math.nan, 0)


def ceiling(corpus: list[dict], fitted: list[ChangePointDetector]) -> tuple[float, float]:
    """``(recall, F1)`` of perfgate's tests placed at every true change (F1 with no false alarm);
    ``fitted``: the detector :class:`PerfgateDetector` fitted to each series, in corpus order."""
    passed = total = 0
    for s, detector in zip(corpus, fitted, strict=True):
        if s["change_points"]:
            passes = detector.passes_at(s["change_points"])
            passed += sum(passes)
            total += len(passes)
    recall = passed / total if total else 1.0
    return recall, 2 * recall / (1 + recall)


def pelt_bic(values: list[float]) -> list[int]:
    x = np.asarray(values, dtype=float)
    n = x.size
    sigma = 1.4826 * np.median(np.abs(np.diff(x) - np.median(np.diff(x)))) / math.sqrt(2)
    if sigma == 0:
        sigma = max(np.std(x), 1e-12)
    algo = rpt.KernelCPD(kernel="linear", min_size=2, jump=1).fit(x.reshape(-1, 1))
    return [int(b) for b in algo.predict(pen=2 * sigma ** 2 * math.log(n))[:-1]]


def otava_detector() -> Callable[[list[float]], list[int]] | None:
    try:
        from otava.analysis import compute_change_points
    except ImportError:
        return None

    def detect(values: list[float]) -> list[int]:
        cps, _ = compute_change_points(list(values))   # Otava's defaults
        return [int(cp.index) for cp in cps]

    return detect


def matched_truth(truth: list[int], found: list[int], margin: int) -> list[bool]:
    """Which true change points a detection matches within ``margin`` (one to one, closest first)."""
    pairs = sorted((abs(t - f), i, j) for i, t in enumerate(truth) for j, f in enumerate(found) if abs(t - f) <= margin)
    used_t, used_f = set(), set()
    for _, i, j in pairs:
        if i not in used_t and j not in used_f:
            used_t.add(i)
            used_f.add(j)
    return [i in used_t for i in range(len(truth))]


BINS = ((0, 1, "< 1x noise"), (1, 3, "1-3x noise"), (3, math.inf, ">= 3x noise"))


def evaluate(corpus: list[dict], detect: Callable[..., list[int]], margin: int, with_samples: bool = False) -> dict:
    """Scores of ``detect`` on ``corpus``; ``with_samples`` passes each series' raw samples (a
    corpus entry's ``samples``, one list per point) to a detector that reads them."""
    tp = fp = fn = 0
    quiet_points = quiet_alarms = 0
    by_bin = {label: [0, 0] for *_, label in BINS}
    by_kind: dict[str, list[int]] = {}
    by_length: dict[int, list[int]] = {}
    start = time.perf_counter()
    for s in corpus:
        found = detect(s["values"], s["samples"]) if "samples" in s and with_samples else detect(s["values"])
        truth = s["change_points"]
        hits = matched_truth(truth, found, margin)
        h = sum(hits)
        tp += h
        fp += len(found) - h
        fn += len(truth) - h
        k = by_kind.setdefault(s.get("kind", "unlabelled"), [0, 0, 0])
        k[0] += h
        k[1] += len(found) - h
        k[2] += len(truth) - h
        if "length" in s:
            bl = by_length.setdefault(int(s["length"]), [0, 0])
            bl[0] += h
            bl[1] += len(truth)
        if not truth:
            quiet_points += len(s["values"])
            quiet_alarms += len(found)
        if "steps" not in s or "noise_cv" not in s:   # a corpus without effect sizes
            continue
        for hit, step in zip(hits, s["steps"]):
            ratio = abs(step) / s["noise_cv"] if s["noise_cv"] > 0 else math.inf
            for lo, hi, label in BINS:
                if lo <= ratio < hi:
                    by_bin[label][0] += hit
                    by_bin[label][1] += 1
    elapsed = time.perf_counter() - start
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": precision, "recall": recall, "f1": f1, "counts": (tp, fp, fn),
        "false_alarms_per_1000": 1000 * quiet_alarms / quiet_points if quiet_points else 0.0,
        "recall_by_effect": {label: (h / n if n else None, n) for label, (h, n) in by_bin.items()},
        "f1_by_kind": {kind: _f1(*v) for kind, v in by_kind.items()},
        "recall_by_length": {n: (h / t if t else None, t) for n, (h, t) in sorted(by_length.items())},
        "seconds": elapsed,
    }


def _f1(tp: int, fp: int, fn: int) -> float | None:
    if tp + fp + fn == 0:
        return None
    return 2 * tp / (2 * tp + fp + fn)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", type=int, default=350, help="corpus size (default: %(default)s)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--corpus", help="a JSON corpus file instead of generating one")
    p.add_argument("--length", type=int, nargs=2, default=(150, 600), metavar=("MIN", "MAX"),
                   help="series lengths of the generated corpus (default: %(default)s)")
    p.add_argument("--margin", type=int, default=5)
    p.add_argument("--only", choices=["perfgate", "otava", "pelt-bic"], action="append")
    p.add_argument("--json", action="store_true")
    p.add_argument("--ignore-samples", action="store_true",
                   help="do not give perfgate the runs' raw samples of a corpus that has them")
    args = p.parse_args()
    corpus = json.loads(Path(args.corpus).read_text()) if args.corpus else generate(args.series, args.seed, tuple(args.length))
    if isinstance(corpus, dict):
        corpus = corpus.get("series", [])
    perfgate = PerfgateDetector()
    methods: dict[str, Callable | None] = {"perfgate": perfgate, "otava": otava_detector(), "pelt-bic": pelt_bic}
    results = {}
    for name, fn in methods.items():
        if args.only and name not in args.only:
            continue
        if fn is None:
            print(f"{name}: not installed (pip install -e .[eval]); skipped", file=sys.stderr)
            continue
        results[name] = evaluate(corpus, fn, args.margin, with_samples=name == "perfgate" and not args.ignore_samples)
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
        return
    changes = sum(len(s["change_points"]) for s in corpus)
    quiet = [s for s in corpus if not s["change_points"]]
    print(f"corpus: {len(corpus)} series, {sum(len(s['values']) for s in corpus)} points, {changes} change points, "
          f"{len(quiet)} no-change series ({sum(len(s['values']) for s in quiet)} points); margin ±{args.margin}")
    names = list(results)
    rows = [("precision", "precision"), ("recall", "recall"), ("F1", "f1"),
            ("false alarms / 1000 no-change pts", "false_alarms_per_1000")]
    print(f"{'':38}" + "".join(f"{n:>12}" for n in names))
    for label, key in rows:
        print(f"{label:38}" + "".join(f"{results[n][key]:>12.3f}" for n in names))
    for *_, label in BINS:
        cells = []
        count = results[names[0]]["recall_by_effect"][label][1] if names else 0
        for n in names:
            r, _ = results[n]["recall_by_effect"][label]
            cells.append(f"{'—' if r is None else f'{r:.3f}':>12}")
        print(f"{'recall, step ' + label + f' (n={count})':38}" + "".join(cells))
    present = {s.get("kind", "unlabelled") for s in corpus}       # another generator's kinds are not rows
    kinds = [k for k in KINDS if k in present] + sorted(present - set(KINDS))
    for kind in kinds:
        cells = [results[n]["f1_by_kind"].get(kind) for n in names]
        print(f"{'F1 ' + kind:38}" + "".join(f"{'—' if c is None else f'{c:.3f}':>12}" for c in cells))
    for length, (_, count) in results[names[0]]["recall_by_length"].items() if names else ():
        cells = [results[n]["recall_by_length"][length][0] for n in names]
        print(f"{f'recall, {length}-point series (n={count})':38}"
              + "".join(f"{'—' if c is None else f'{c:.3f}':>12}" for c in cells))
    print(f"{'seconds':38}" + "".join(f"{results[n]['seconds']:>12.2f}" for n in names))
    if "perfgate" in results:
        for near in (args.margin, NEAR):
            cover, width, count = location_coverage(corpus, perfgate.found, near)
            print(f"perfgate's location range holds the true change {cover:.3f} of the time (nominal 0.95; "
                  f"{count} detections within ±{near}), mean width {width:.2f} runs")
        recall, f1 = ceiling(corpus, perfgate.fitted)
        print(f"perfgate's ceiling: its tests pass {recall:.3f} of the true changes judged at the truth "
              f"(F1 {f1:.3f} with no false alarm; it found {results['perfgate']['recall']:.3f})")


if __name__ == "__main__":
    main()
