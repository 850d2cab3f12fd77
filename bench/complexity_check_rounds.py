"""How often a pull-request check's complexity verdict is wrong, with and without the rounds rule.

A Python sweep (objects 200..8,000, best of 5 per size) is run as a check runs it: ROUNDS full
sweeps a side, each point's median over them fitted, and the expectation "linear in objects"
judged on both sides (``perfgate.complexity.compare``).  A/A pairs run the linear loop on both
sides; planted pairs run a head whose cost turns quadratic past 2,000 objects.  Each pair is
scored twice: by the pooled fit alone (``fit --check``'s rule) and with the rounds rule (a
violation counts only when more than half of the rounds' own fits show it too).

    .venv/bin/python bench/complexity_check_rounds.py --pairs 20 --rounds 3 --load 2

``--worsened`` asks the check's other question, whether an expectation the base already breaks
breaks earlier in head ("worsened"; the knees' move needs 4 rounds a side): A/A pairs run a loop
quadratic past 2,000 objects on both sides, planted pairs a head quadratic past 1,000.  It counts
each status, and how many pairs "worsened" would be with the knees' shapes taken from the pooled
fits (before stop 64) instead of from most of the rounds' own knees.

    .venv/bin/python bench/complexity_check_rounds.py --worsened --pairs 20 --rounds 4 --load 2

Run on the host (not in the pinned image), with ``--load N`` processes that busy-loop in bursts
(a random 0.05–0.5 s on, as long off) beside it: a noisy machine, as CI runners are, whose load
bends stretches of a sweep.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bursty_load import bursty_load  # noqa: E402

from perfgate.adapters import scaling_tsv  # noqa: E402
from perfgate.complexity.compare import ComplexityRow, compare_complexity  # noqa: E402
from perfgate.complexity.expectations import parse_expectations  # noqa: E402
from perfgate.model import Metric  # noqa: E402

SWEEP = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "scaling-suite" / "grow.py"
EXPECT = parse_expectations('[complexity."grow/*"]\nobjects = "linear"\n', "complexity.toml")


def sweep(script: Path, kind: str) -> list[Metric]:
    """One sweep of ``kind``: ``linear``, ``quadratic`` (past 2,000 objects) or ``quadratic KNEE``."""
    out = subprocess.run([sys.executable, str(script), *kind.split()], capture_output=True, text=True,
                         check=True).stdout
    return [Metric(f"grow/{m.benchmark}", m.measure, m.value, attrs=m.attrs) for m in scaling_tsv.parse(out, "sweep").metrics]


def pooled_status(row) -> str:
    """The row's status by ``fit --check``'s rule on each side's pooled fit: a head violating
    what its base keeps fails (``perfgate check`` itself never fails without rounds)."""
    head = any(not v.ok for v in row.head.verdicts)
    base = any(not v.ok for v in row.base.verdicts)
    return {(True, False): "broken", (True, True): "violated on both", (False, True): "fixed"}.get((head, base), "ok")


def worsened_by_pooled_shapes(row: ComplexityRow) -> bool:
    """``row.worsened`` as it was decided before stop 64: each side's knee shape the pooled fit's."""
    return row.breaks_earlier() and (row.head.knee.get("degree") or 1) >= (row.base.knee.get("degree") or 1)


def pooled(each: list[list[Metric]]) -> list[Metric]:
    """Each point's median over the rounds, as a check pools them."""
    return [Metric(ms[0].benchmark, ms[0].measure, statistics.median(m.value for m in ms), attrs=ms[0].attrs)
            for ms in zip(*each)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=12, help="pairs of each kind (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=3, help="sweeps a side, as check --rounds (default: %(default)s)")
    parser.add_argument("--load", type=int, default=0, help="processes busy in bursts beside it (default: none)")
    parser.add_argument("--worsened", action="store_true",
                        help="base and head both quadratic: past 2,000 objects (A/A), head past 1,000 (planted)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "grow.py"
        script.write_text(SWEEP.read_text())
        with bursty_load(args.load):
            counts = _worsened_pairs(args, script) if args.worsened else _pairs(args, script)
    print(f"{args.pairs} pairs of each kind, {args.rounds} rounds a side, {args.load} bursty load process(es)\n")
    if args.worsened:
        statuses = ("worsened", "violated on both", "broken", "fixed", "inconclusive", "ok")
        print("| pairs | " + " | ".join(statuses) + " | worsened by the pooled fits' knee shapes |")
        print("| --- |" + " --- |" * (len(statuses) + 1))
        for kind, c in counts.items():
            print(f"| {kind} | " + " | ".join(str(c[s]) for s in statuses) + f" | {c['pooled shapes']} |")
        return
    print("| pairs | rule | broken (fails the check) | inconclusive | fixed | violated on both | ok |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for kind, rules in counts.items():
        for rule, c in rules.items():
            name = "pooled fit alone" if rule == "pooled" else "with the rounds (perfgate check)"
            print(f"| {kind} | {name} | {c['broken']} | {c['inconclusive']} | {c['fixed']} | "
                  f"{c['violated on both']} | {c['ok']} |")


def interleaved(script: Path, rounds: int, base: str, head: str) -> tuple[list[list[Metric]], list[list[Metric]]]:
    """Each side's sweeps, interleaved with the first side alternating, as check runs them."""
    sides: dict[str, list[list[Metric]]] = {"base": [], "head": []}
    for r in range(rounds):
        order = [("base", base), ("head", head)]
        for side, what in order if r % 2 == 0 else order[::-1]:
            sides[side].append(sweep(script, what))
    return sides["base"], sides["head"]


def _worsened_pairs(args: argparse.Namespace, script: Path) -> dict:
    counts = {"A/A, both quadratic past 2,000": Counter(), "head quadratic past 1,000": Counter()}
    for i in range(args.pairs):
        for kind, head in zip(counts, ("quadratic 2000", "quadratic 1000")):
            base_rounds, head_rounds = interleaved(script, args.rounds, "quadratic 2000", head)
            [row] = compare_complexity(pooled(base_rounds), pooled(head_rounds), EXPECT, base_rounds, head_rounds)
            before = worsened_by_pooled_shapes(row)
            counts[kind][row.status] += 1
            counts[kind]["pooled shapes"] += before
            # where the two rules part, and what a planted head not caught looked like
            if row.worsened != before or (head != "quadratic 2000" and not row.worsened):
                print("\n".join(row.lines() + [f"  {row.knee_text()}"]), file=sys.stderr)
        print(f"pair {i + 1}/{args.pairs} done", file=sys.stderr)
    return counts


def _pairs(args: argparse.Namespace, script: Path) -> dict:
    counts = {kind: {"pooled": Counter(), "rounds": Counter()} for kind in ("A/A", "planted")}
    for i in range(args.pairs):
        for kind, head in (("A/A", "linear"), ("planted", "quadratic")):
            base_rounds, head_rounds = interleaved(script, args.rounds, "linear", head)
            base, head_points = pooled(base_rounds), pooled(head_rounds)
            [alone] = compare_complexity(base, head_points, EXPECT)   # no rounds: statuses by hand below
            [checked] = compare_complexity(base, head_points, EXPECT, base_rounds, head_rounds)
            counts[kind]["pooled"][pooled_status(alone)] += 1
            counts[kind]["rounds"][checked.status] += 1
            if kind == "A/A" and checked.status != "ok":   # what a false verdict looked like
                print("\n".join(checked.lines()), file=sys.stderr)
        print(f"pair {i + 1}/{args.pairs} done", file=sys.stderr)
    return counts


if __name__ == "__main__":
    main()
