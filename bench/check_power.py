"""Does a default ``perfgate check`` catch a planted regression on the real suites, and stay
quiet on A/A?  Flag rates and wall time per check, from real checks in the pinned containers.

    .venv/bin/python bench/check_power.py --suite tree-alloc --regression 10 --aa 20 --instructions 3
    .venv/bin/python bench/check_power.py --suite async-overhead --regression 10 --aa 20
    ... [--check-args "--budget 5m"]  [--json out.json]  [--load 2]   # beside 2 processes busy in bursts

A throwaway clone of this repository (its committed HEAD) gets two planted commits on top:

* ``wall``: one benchmark made slower in its source (tree-alloc: the buffer tree's copy stops
  reserving its buffer, ~10% on ``BM_Copy/buffer/65536``; async-overhead: the never-suspending
  coroutine's write also takes the buffer's length, on ``test_bare[coroutine]``);
* ``instructions`` (tree-alloc): the buffer probe runs a tree 1% larger, about +1% instructions
  on ``BM_Total/buffer/1048576``;

then ``perfgate check --base BASE --head PLANT --suite SUITE --json`` runs as a user would (its
defaults, plus ``--check-args``), ``--regression`` times against ``wall``, ``--aa`` times with
the same commit on both sides, ``--instructions`` times against ``instructions``.  Reported: how
often the target is flagged as a regression, how often anything else is (apart from benchmarks
that run the planted code too, e.g. tree-alloc's BM_Total/buffer and BM_Delete/buffer copy a
buffer tree; A/A: any flag at all is a false alarm), the target's measured effect, and the wall time of each check (build included —
the images are cached after the first).  Each check's JSON is kept next to ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bursty_load import bursty_load  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Plant:
    file: str           # repo-relative
    old: str
    new: str
    target: tuple[str, str]   # (benchmark, measure) that must be flagged
    what: str
    affects: tuple[str, ...] = ()   # benchmark name prefixes running the planted code too (their flags are true)


PLANTS: dict[str, dict[str, Plant]] = {
    "tree-alloc": {
        "wall": Plant("benches/tree-alloc/tree.h", "    t.nodes_.reserve(nodes_.size());\n    if (!nodes_.empty()) t.clone",
                      "    if (!nodes_.empty()) t.clone", ("BM_Copy/buffer/65536", "latency"),
                      "BufferTree::copy stops reserving its buffer",
                      ("BM_Delete/buffer/", "BM_Total/buffer/")),   # both copy a buffer tree
        "instructions": Plant("benches/tree-alloc/tree_alloc_probe.cc", ": cycle<tree::BufferTree>(nodes);",
                              ": cycle<tree::BufferTree>(nodes + nodes / 100);",
                              ("BM_Total/buffer/1048576", "instructions"), "the buffer probe's tree 1% larger"),
    },
    "async-overhead": {
        "wall": Plant("benches/async-overhead/ops.py",
                      "    async def write_coroutine(self, i: int, value: int) -> None:\n        INT.pack_into",
                      "    async def write_coroutine(self, i: int, value: int) -> None:\n        len(self.buf)\n"
                      "        INT.pack_into",
                      ("test_async_overhead.py::test_bare[coroutine]", "latency"),
                      "the coroutine write also takes len(buf)"),   # no other benchmark awaits write_coroutine
    },
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=perfgate-bench", "-c",
                           "user.email=bench@perfgate.invalid", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


def planted_repo(tmp: Path, suite: str) -> tuple[Path, dict[str, str]]:
    """Clone this repository's HEAD and commit each plant on top of it (separately)."""
    repo = tmp / "repo"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(repo)], check=True)
    refs = {"base": git(repo, "rev-parse", "HEAD")}
    for kind, plant in PLANTS[suite].items():
        git(repo, "checkout", "--quiet", "--detach", refs["base"])
        path = repo / plant.file
        text = path.read_text()
        if text.count(plant.old) != 1:
            raise SystemExit(f"plant {suite}/{kind}: {plant.file} no longer contains the planted line once")
        path.write_text(text.replace(plant.old, plant.new))
        git(repo, "commit", "--quiet", "-am", f"plant: {plant.what}")
        refs[kind] = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "--quiet", "--detach", refs["base"])
    return repo, refs


def one_check(repo: Path, store: Path, base: str, head: str, suite: str, extra: list[str]) -> tuple[dict, float]:
    cmd = [sys.executable, "-m", "perfgate.cli", "check", "--root", str(repo), "--base", base, "--head", head,
           "--suite", suite, "--json", "--store", f"sqlite:{store}", *extra]
    started = time.monotonic()
    # the clone's own perfgate (its committed code), so editing this checkout cannot change a run midway
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(repo / "src")})
    elapsed = time.monotonic() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"check failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout), elapsed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", choices=sorted(PLANTS), required=True)
    p.add_argument("--regression", type=int, default=10, metavar="N", help="checks against the wall-time plant")
    p.add_argument("--aa", type=int, default=20, metavar="N", help="A/A checks (same commit both sides)")
    p.add_argument("--instructions", type=int, default=3, metavar="N", help="checks against the +1%% instruction plant")
    p.add_argument("--check-args", default="", help="extra options for perfgate check (default: none, its defaults)")
    p.add_argument("--json", type=Path, help="write the figures (and every check's report) here")
    p.add_argument("--load", type=int, default=0, metavar="N",
                   help="processes busy in bursts beside every check (bursty_load.py; default: none)")
    p.add_argument("--store", type=Path, help="keep the checks' recorded runs in this SQLite file "
                                              "(their rounds feed bench/check_rounds.py)")
    args = p.parse_args()
    extra = args.check_args.split()
    plan = [("regression", "wall", args.regression), ("aa", "base", args.aa)]
    if "instructions" in PLANTS[args.suite]:
        plan.append(("instructions", "instructions", args.instructions))
    results: dict[str, list[dict]] = {kind: [] for kind, _, _ in plan}
    with tempfile.TemporaryDirectory(prefix="perfgate-check-power-") as tmp, bursty_load(args.load):
        repo, refs = planted_repo(Path(tmp), args.suite)
        store = args.store.resolve() if args.store else Path(tmp) / "history.db"
        # interleave the kinds so a slow hour of the machine does not land on one kind only
        todo = [(kind, plant) for i in range(max(n for _, _, n in plan)) for kind, plant, n in plan if i < n]
        for i, (kind, plant_name) in enumerate(todo, 1):
            target = PLANTS[args.suite]["wall" if kind == "aa" else plant_name].target
            report, elapsed = one_check(repo, store, refs["base"], refs[plant_name], args.suite, extra)
            verdicts = report["comparison"]["verdicts"]
            plant = PLANTS[args.suite]["wall" if kind == "aa" else plant_name]
            # the verdict standing for the target (of latency/throughput, the one not judged with the other)
            tv = next((v for v in verdicts if v["benchmark"] == target[0] and
                       (v["measure"] == target[1] if target[1] not in ("latency", "throughput")
                        else v["measure"] in ("latency", "throughput") and not v["note"].startswith("judged with"))),
                      None)
            flagged = [(v["benchmark"], v["measure"]) for v in verdicts if v["verdict"] in ("regression", "improvement")]
            if kind != "aa":   # benchmarks that run the planted code are rightly flagged too
                flagged = [f for f in flagged if not f[0].startswith(plant.affects)]
            row = {"kind": kind, "seconds": round(elapsed, 1), "rounds": report["rounds"],
                   "target_flagged": tv is not None and tv["verdict"] == "regression", "target_measure": tv and tv["measure"],
                   "target_effect": tv and tv["effect"], "target_mde": tv and tv["mde"], "target_q": tv and tv["q_value"],
                   "other_flags": [f for f in flagged if f[0] != target[0]], "any_flag": bool(flagged),
                   "report": report}
            results[kind].append(row)
            print(f"[{i}/{len(todo)}] {kind:12} {elapsed:6.1f} s, {report['rounds']} rounds: target "
                  f"{'FLAGGED' if row['target_flagged'] else 'not flagged'} (effect {_pct(row['target_effect'])}, "
                  f"MDE {_pct(row['target_mde'])}), other flags {row['other_flags'] or 'none'}", flush=True)
    summary = {}
    for kind, rows in results.items():
        if not rows:
            continue
        secs = [r["seconds"] for r in rows]
        summary[kind] = {
            "checks": len(rows),
            "flagged": sum(r["any_flag"] for r in rows) if kind == "aa" else sum(r["target_flagged"] for r in rows),
            "other_flags": sum(bool(r["other_flags"]) for r in rows),
            "seconds_median": statistics.median(secs), "seconds_max": max(secs),
            "target_effects": [r["target_effect"] for r in rows]}
    print(f"\n{args.suite}, perfgate check {args.check_args or '(defaults)'}, {args.load} bursty load process(es):")
    for kind, s in summary.items():
        what = {"regression": f"{PLANTS[args.suite]['wall'].what}: target flagged",
                "aa": "A/A: checks with any flag", "instructions": "+1% instructions: target flagged"}[kind]
        print(f"  {what}: {s['flagged']}/{s['checks']}; checks with other flags {s['other_flags']}; "
              f"wall time median {s['seconds_median']:.0f} s, max {s['seconds_max']:.0f} s; target effects "
              + ", ".join(_pct(e) for e in s["target_effects"]))
    if args.json:
        args.json.write_text(json.dumps({"suite": args.suite, "check_args": args.check_args, "load": args.load,
                                         "summary": summary, "checks": results}, indent=1) + "\n")


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:+.1f}%"


if __name__ == "__main__":
    main()
