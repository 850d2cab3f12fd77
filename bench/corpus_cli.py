"""The command line every labelled-corpus generator shares: ``--series N --seed S`` → the corpus as
JSON on stdout (a list of ``{"values", "change_points", ...}``, read by ``evaluate_detection.py
--corpus``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable


def write_corpus(generate: Callable[[int, int], list[dict]], description: str, seed: int, series: int = 300) -> None:
    p = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", type=int, default=series)
    p.add_argument("--seed", type=int, default=seed)
    args = p.parse_args()
    json.dump(generate(args.series, args.seed), sys.stdout)
