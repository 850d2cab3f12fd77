"""Recorded check rounds: read the raw samples of every round of ``perfgate check`` runs from a
store, or from the JSON this script exports (``tests/fixtures/check-rounds/``).

    .venv/bin/python bench/check_rounds.py --store sqlite:.perfgate/aa.db --export tests/fixtures/check-rounds/x.json

The JSON is ``{"source": ..., "checks": [{"base": {"BENCH\\tMEASURE": [[round 1 samples], ...]},
"head": {...}}]}``; both the test-choice simulation (``bench/check_test_choice.py``) and the MDE
test read it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from perfgate.commands.check import rounds_of  # noqa: E402
from perfgate.store import open_store  # noqa: E402

Rounds = dict[tuple[str, str], list[list[float]]]


def from_store(spec: str, aa_only: bool = False) -> list[dict[str, Rounds]]:
    """Every recorded check in the store as ``{"base": rounds, "head": rounds}``, oldest first
    (with ``aa_only``, only those with the same commit on both sides)."""
    with open_store(spec) as store:
        runs = [store.get_run(s.run_id) for s in store.runs()]
    runs = sorted((r for r in runs if r.context.get("check")
                   and (not aa_only or r.context.get("interleaved_with") == r.commit)), key=lambda r: r.start_time or 0)
    checks: dict[str, dict[str, Rounds]] = {}
    pending: dict[str, Rounds] = {}
    for run in runs:
        rounds = rounds_of(run)   # probes may have fewer rounds than the rest (check runs them in the first 3)
        if "check_id" in run.context:
            checks.setdefault(run.context["check_id"], {})[run.context["side"]] = rounds
        elif not pending:  # older runs without an id: base and head were stored one after the other
            pending = {"base": rounds}
        else:
            checks[f"#{len(checks)}"] = {**pending, "head": rounds}
            pending = {}
    return [c for c in checks.values() if {"base", "head"} <= set(c)]


def load(path: Path) -> list[dict[str, Rounds]]:
    doc = json.loads(path.read_text())
    return [{side: {tuple(k.split("\t")): v for k, v in check[side].items()} for side in ("base", "head")}
            for check in doc["checks"]]


def export(checks: list[dict[str, Rounds]], path: Path, source: str) -> None:
    doc = {"source": source,
           "checks": [{side: {"\t".join(k): v for k, v in sorted(c[side].items())} for side in ("base", "head")}
                      for c in checks]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=None, separators=(",", ":")) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--store", action="append", required=True, help="store spec (repeatable)")
    p.add_argument("--export", type=Path, required=True)
    p.add_argument("--source", default="", help="what was run, for the file's header")
    p.add_argument("--aa-only", action="store_true", help="only checks with the same commit on both sides")
    args = p.parse_args()
    checks = [c for spec in args.store for c in from_store(spec, args.aa_only)]
    export(checks, args.export, args.source)
    print(f"{len(checks)} check(s), {sum(len(next(iter(c['base'].values()))) for c in checks)} rounds -> {args.export}")


if __name__ == "__main__":
    main()
