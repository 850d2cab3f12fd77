#!/usr/bin/env python3
"""perfgate on real series that people annotated: the Turing Change Point Dataset (TCPD, van den
Burg & Williams 2020), the univariate series it redistributes (``bench/data/tcpd/``, source and
licences in its README).  None of it is performance data, and none of it was looked at while
perfgate's detector was written: a held-out check of what the detector calls a change.

Each series was annotated by up to five people, independently.  Scored two ways, margin ±5:

* **annotated changes found**: of every (annotator, change) pair, the share with a detection
  within the margin, and the share of detections within the margin of some annotator's change
  (the plain precision; a series nobody annotated a change in makes every detection false);
* **TCPDBench's F1**, as the benchmark defines it: precision against the union of the
  annotations, recall averaged over annotators, the series' start counted as a change in every
  set (so a detector that finds nothing scores above 0), then averaged over series.

Detectors: perfgate's change points at its defaults (``evaluate_detection.PERFGATE_SETTINGS``),
PELT with a BIC penalty, Apache Otava's defaults when installed
(``.venv/bin/pip install --no-deps apache-otava``) and "zero" (no change at all).  Missing values
are left out and the detections mapped back to the series' own indices.

    .venv/bin/python bench/evaluate_tcpd.py            # about 5 s
    .venv/bin/python bench/evaluate_tcpd.py --series   # and each series' detections
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from evaluate_detection import PerfgateDetector, matched_truth, otava_detector, pelt_bic  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "tcpd"
MARGIN = 5


def load(data: Path = DATA) -> list[dict]:
    """The univariate series of ``data`` with their annotations: ``{"name", "values" (None where
    missing), "annotations": {annotator: [index, ...]}}``, in name order.  Every file is checked
    against the dataset's own md5 list first."""
    checksums = json.loads((data / "checksums.json").read_text())["checksums"]
    annotations = json.loads((data / "annotations.json").read_text())
    series = []
    for path in sorted(data.glob("*.json")):
        if path.name in ("checksums.json", "annotations.json"):
            continue
        digest = hashlib.md5(path.read_bytes()).hexdigest()
        expected = checksums[path.name]
        if digest not in (expected if isinstance(expected, list) else [expected]):
            raise SystemExit(f"{path}: md5 {digest} is not TCPD's {expected}")
        d = json.loads(path.read_text())
        if d["n_dim"] != 1:
            continue
        series.append({"name": d["name"], "values": d["series"][0]["raw"],
                       "annotations": {k: list(v) for k, v in annotations[d["name"]].items()}})
    return series


def detect_present(detect: Callable[[list[float]], list[int]], values: list) -> list[int]:
    """``detect`` on the values that are present, its indices mapped back to ``values``'."""
    kept = [i for i, v in enumerate(values) if v is not None]
    found = detect([float(values[i]) for i in kept])
    return sorted({kept[j] for j in found if 0 <= j < len(kept)})


def annotated(annotations: dict[str, list[int]]) -> list[int]:
    """Every change some annotator marked, once, in order."""
    return sorted(set().union(*map(set, annotations.values())))


def tcpdbench_f1(annotations: dict[str, list[int]], found: list[int], margin: int = MARGIN) -> float:
    """The benchmark's F1 for one series: the start (index 0) is a change in every set;
    precision is against the union of the annotators' changes, recall is each annotator's
    averaged."""
    found = sorted({0, *found})
    sets = [sorted({0, *changes}) for changes in annotations.values()]
    union = sorted({0, *annotated(annotations)})
    precision = sum(matched_truth(union, found, margin)) / len(found)
    recall = statistics.mean(sum(matched_truth(s, found, margin)) / len(s) for s in sets)
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def score(series: list[dict], found: list[list[int]], margin: int = MARGIN) -> dict:
    """Annotated changes found, detections that match one, and TCPDBench's mean F1."""
    pairs = pairs_found = detections = detections_matched = 0
    f1s = []
    for s, f in zip(series, found, strict=True):
        union = annotated(s["annotations"])
        for changes in s["annotations"].values():
            pairs += len(changes)
            pairs_found += sum(matched_truth(changes, f, margin))
        detections += len(f)
        detections_matched += sum(
            any(abs(t - x) <= margin for t in union) for x in f)
        f1s.append(tcpdbench_f1(s["annotations"], f, margin))
    return {"recall": pairs_found / pairs if pairs else float("nan"),
            "precision": detections_matched / detections if detections else float("nan"),
            "detections": detections, "f1": statistics.mean(f1s)}


def detectors() -> dict[str, Callable[[list[float]], list[int]]]:
    found = {"perfgate": PerfgateDetector(), "pelt-bic": pelt_bic, "zero": lambda values: []}
    otava = otava_detector()
    if otava is not None:
        found["otava"] = otava
    return found


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", action="store_true", help="print each series' detections")
    args = p.parse_args()
    series = load()
    results = {}
    for name, detect in detectors().items():
        results[name] = [detect_present(detect, s["values"]) for s in series]
    pairs = sum(len(c) for s in series for c in s["annotations"].values())
    print(f"TCPD: {len(series)} univariate series, {sum(len(s['values']) for s in series)} points, "
          f"{pairs} annotated changes over {sum(len(s['annotations']) for s in series)} "
          f"annotations; margin ±{MARGIN}")
    print(f"{'detector':10} {'changes found':>14} {'detections':>11} {'matching one':>13} {'TCPDBench F1':>13}")
    for name, found in results.items():
        r = score(series, found)
        print(f"{name:10} {r['recall']:14.3f} {r['detections']:11d} {r['precision']:13.3f} {r['f1']:13.3f}")
    if args.series:
        for k, s in enumerate(series):
            print(f"\n{s['name']} ({len(s['values'])} points) annotated {annotated(s['annotations'])}")
            for name, found in results.items():
                print(f"  {name:10} {found[k]}")


if __name__ == "__main__":
    main()
