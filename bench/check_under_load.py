#!/usr/bin/env python3
"""``perfgate check`` with other jobs loading the benchmark's CPU for part of one round: what the
verdict reads, with the wall time of loaded suite runs left out (this code) and, with
``--against SRC``, as measured (an older checkout's ``src``), the two codes' checks interleaved.

An A/A pair of commits (the head changes a comment) of a small suite (hyperfine, 5 runs of a
~60 ms Python loop; ``--spin 3000000``: ~0.6 s, quieter) in the real pinned base image, ``--rounds 8 --cpuset 1 --no-probes``.  When
the check reports round ``--load-round`` − 1 done, ``--loops`` busy loops pinned to CPU 1 (the
suite's cpuset, with ``taskset``) run for half a round (the time of the rounds before, halved): the
first side of that round runs beside them (base in odd rounds, as check alternates).  Prints each
check's latency verdict, its ratio and interval, and its notes on load.

    .venv/bin/python bench/check_under_load.py --trials 3
    git worktree add /tmp/old REV && cp src/perfgate/detect/_l2_search*.so /tmp/old/src/perfgate/detect/
    .venv/bin/python bench/check_under_load.py --trials 3 --against /tmp/old/src
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_containers_docker import make_tiny_root  # noqa: E402  the tests' small suite, on the real base image

GIT = ["git", "-c", "user.name=b", "-c", "user.email=b@example.org"]


def aa_repo(root: Path, spin: int) -> Path:
    make_tiny_root(root, spin=spin, alloc_probe=False)
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "."], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "base"], cwd=root, check=True)
    spin = root / "benches" / "spin" / "spin.py"
    spin.write_text(spin.read_text() + "# the same code\n")
    subprocess.run([*GIT, "commit", "-q", "-am", "head: a comment"], cwd=root, check=True)
    return root


def loops_for(seconds: float, count: int) -> None:
    busy = [subprocess.Popen(["taskset", "-c", "1", sys.executable, "-c", "while 1: pass"]) for _ in range(count)]
    time.sleep(seconds)
    for p in busy:
        p.kill()
        p.wait()


def check(repo: Path, args: argparse.Namespace, src: str | None) -> dict:
    env = {**os.environ, **({"PYTHONPATH": src} if src else {})}
    proc = subprocess.Popen([sys.executable, "-m", "perfgate.cli", "check", "--root", str(repo), "--base", "HEAD~1",
                             "--head", "HEAD", "--rounds", str(args.rounds), "--cpuset", "1", "--no-probes", "--json",
                             "--store", f"sqlite:{repo / 'history.db'}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()))
    reader.start()
    ended, load = [], None
    for line in proc.stderr:
        if line.startswith("round ") and " done, " in line:
            ended.append(time.monotonic())
            if len(ended) == args.load_round - 1:
                per_round = (ended[-1] - ended[0]) / max(len(ended) - 1, 1) if len(ended) > 1 else 3.0
                load = threading.Thread(target=loops_for, args=(per_round / 2, args.loops))
                load.start()
    proc.wait()
    reader.join()
    if load:
        load.join()
    if proc.returncode not in (0, 1):
        sys.exit(f"perfgate check failed ({proc.returncode})")
    report = json.loads(out[0])
    comparison = report["comparison"]
    [row] = [v for v in comparison["verdicts"] if v["measure"] == "latency"]
    return {"verdict": row["verdict"], "ratio": row.get("ratio"), "ci": [row.get("ci_low"), row.get("ci_high")],
            "rounds": row.get("rounds"), "load_notes": [n for n in comparison["notes"] if "under load" in n]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--load-round", type=int, default=3, help="the round whose first side runs beside the loops")
    p.add_argument("--loops", type=int, default=2, help="busy loops pinned to the suite's CPU")
    p.add_argument("--against", metavar="SRC", help="another checkout's src folder, interleaved")
    p.add_argument("--spin", type=int, default=300_000, help="the loop's iterations (default 300,000: about 60 ms)")
    args = p.parse_args()
    codes = [("this code", None)] + ([(args.against, args.against)] if args.against else [])
    with tempfile.TemporaryDirectory() as tmp:
        repo = aa_repo(Path(tmp) / "repo", args.spin)
        for t in range(args.trials):
            for name, src in (codes if t % 2 == 0 else codes[::-1]):
                print(json.dumps({"trial": t, "code": name, **check(repo, args, src)}), flush=True)


if __name__ == "__main__":
    main()
