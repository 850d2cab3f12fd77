#!/usr/bin/env python3
"""How fast is an incremental ``perfgate detect`` after one new run?  Target (issue 16): ≤ 2 s
over 10,000 series.

Builds a SQLite store of ``--testbeds × --benchmarks`` series (one measure), ``--runs`` runs per
testbed, each run carrying every benchmark of its testbed (log-normal 2% noise, a 10% step in
every 50th series); runs the real CLI once in full (which records alerts and saves each series'
result), then ``--rounds`` times adds ONE run on one testbed (through the store, as ``perfgate ingest``
does: a writer that found the file intact and notes it so, ``store/checked_note.py``, which spares
the detect a second integrity check of the unchanged file) and times the next ``perfgate detect``
(a subprocess, interpreter start included, its bytecode compiled beforehand as an installed
perfgate's is), which analyses only that testbed's series; prints the median and the range of
those timings (the machine is noisy), and the full detect's largest process (its resident set,
the CLI's or a worker's).

    .venv/bin/python bench/detect_incremental.py                     # 100 × 100 series, 100 runs
    .venv/bin/python bench/detect_incremental.py --runs 1000         # the issue's 1,000 runs (slow to build)
    .venv/bin/python bench/detect_incremental.py --testbeds 5 --benchmarks 40 --samples 200   # raw samples stored
    git worktree add /tmp/old REV && cp src/perfgate/detect/_l2_search*.so /tmp/old/src/perfgate/detect/
    .venv/bin/python bench/detect_incremental.py --runs 1000 --rounds 12 --against /tmp/old/src   # A/B, interleaved
    .venv/bin/python bench/detect_incremental.py --runs 1000 --rounds 6 --check-share   # what the integrity check costs
    .venv/bin/python bench/detect_incremental.py --testbeds 10 --runs 1000 --full-rounds 6 --against /tmp/old/src
                                                                  # full detects of 1,000 x 1,000, A/B interleaved

``--open-streaks 0,100,1000`` times stores that differ only in that many open threshold regression
alerts on the series of the testbed that gets the new runs, their streaks over and their series
not gone back (each detect tests such an alert's series for a way back: ``alert_history.withdrawals``);
one copy of the built store per count (and per code, with ``--against``), each round's run added to
every copy and the detects interleaved, in an order that turns each round:

    .venv/bin/python bench/detect_incremental.py --testbeds 10 --benchmarks 1000 --runs 1000 --open-streaks 0,100,1000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from perfgate.model import Alert, Metric, Run, Testbed
from perfgate.store.sqlite import SqliteStore


def runs_of(testbed: int, benchmarks: int, first: int, count: int, rng: np.random.Generator,
            samples: int = 0) -> list[Run]:
    out = []
    for i in range(first, first + count):
        values = 1e6 * np.exp(0.02 * rng.standard_normal(benchmarks))
        if i >= 50:
            values[::50] *= 1.1
        # with --samples, each value is the mean of that many raw samples (1% noise about it)
        raw = values[:, None] * np.exp(0.01 * rng.standard_normal((benchmarks, samples)))
        out.append(Run("default", "main", f"t{testbed:03d}-{i:05d}", Testbed(f"tb{testbed:03d}"),
                       [Metric(f"bench{b:04d}", "latency", float(raw[b].mean()) if samples else float(v),
                               samples=tuple(raw[b].tolist())) for b, v in enumerate(values)],
                       start_time=1_700_000_000.0 + i))
    return out


def open_streaks(store: Path, count: int, benchmarks: int, runs: int) -> None:
    """``count`` active threshold regression alerts of 10% on testbed 0's first ``count`` series,
    raised at runs spread over their history (a way back's test reads the runs since): streaks
    over (the series are level there), never gone back."""
    if count > benchmarks:
        sys.exit(f"--open-streaks {count}: testbed 0 has only {benchmarks} series")
    alerts = []
    for b in range(count):
        first = 100 + (b * 7919) % max(runs - 110, 1)
        alerts.append(Alert("main", "tb000", f"bench{b:04d}", "latency", f"t000-{first:05d}", "regression", 0.1,
                            kind="threshold", commit_range=(f"t000-{first:05d}", f"t000-{first + 1:05d}"),
                            details={"streak_size": 2}))
    with SqliteStore(store) as s:
        assert len(s.record_alerts(alerts)) == count


def compiled(tmp: str, src: str | None = None) -> dict[str, str]:
    """The environment a timed detect runs in: with bytecode compiled once, in a folder of the
    benchmark's own, as an installed perfgate has it (a checkout run with PYTHONDONTWRITEBYTECODE,
    as some CI images set it, compiled perfgate's modules again in every detect: 0.07–0.1 s)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "bytecode")
    if src:
        env["PYTHONPATH"] = src
    import perfgate
    subprocess.run([sys.executable, "-m", "compileall", "-q", src or str(Path(perfgate.__file__).parent)],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return env


def detect(store: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[float, float, dict]:
    """Wall time, CPU time of the CLI and its workers, and the JSON report; ``env``: the
    environment to run it in (:func:`compiled`; another checkout's ``src`` on its PYTHONPATH)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "perfgate.cli", "detect", "--store", f"sqlite:{store}", "--json",
                           *extra], capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if proc.returncode not in (0, 1):
        sys.exit(f"perfgate detect failed ({proc.returncode}): {proc.stderr}")
    return elapsed, cpu, json.loads(proc.stdout)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--testbeds", type=int, default=100)
    p.add_argument("--benchmarks", type=int, default=100)
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--rounds", type=int, default=5, help="new runs, each followed by a timed detect")
    p.add_argument("--samples", type=int, default=0, help="raw samples a metric (default none)")
    p.add_argument("--against", metavar="SRC",
                   help="another checkout's src folder (e.g. a git worktree of an older commit, with its compiled "
                        "search copied in): each round adds the new run to the store and to a copy of it (each "
                        "then noted checked by its writer, so neither detect runs the integrity check), times each "
                        "code's detect on its own store in alternating order, and prints both (the machine's noise "
                        "moves both alike)")
    p.add_argument("--check-share", action="store_true",
                   help="instead of --against: each round also times a detect on a copy of the store, which no "
                        "checked writer left (store/checked_note.py), so its integrity check (PRAGMA quick_check) "
                        "runs; the two in alternating order: what the check costs when it runs")
    p.add_argument("--full-rounds", type=int, default=0, metavar="K",
                   help="instead of the rounds of new runs: K more full detects (--full) on copies of the built "
                        "store, with --against's code in alternating order; prints the median and range of each")
    p.add_argument("--open-streaks", metavar="N,N,...",
                   help="time stores with these numbers of open threshold alerts whose streaks are over, interleaved")
    args = p.parse_args()
    if args.against and args.check_share:
        p.error("--check-share compares this code with itself: give it without --against")
    rng = np.random.default_rng(16)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "history.db"
        start = time.perf_counter()
        with SqliteStore(store) as s:
            for t in range(args.testbeds):
                s.add_runs(runs_of(t, args.benchmarks, 0, args.runs, rng, args.samples))
        built = time.perf_counter() - start
        size = store.stat().st_size / 1e6
        series = args.testbeds * args.benchmarks
        ours = compiled(tmp)
        theirs_env = compiled(tmp, args.against) if args.against else None
        full, full_cpu, data = detect(store, env=ours)
        # the largest process so far among the children and their workers (Linux counts in KiB)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        changes = sum(len(s["change_points"]) for s in data["series"])
        if args.open_streaks:
            streaks(args, Path(tmp), store, [("this", ours)] + ([(args.against, theirs_env)] if args.against else []),
                    rng)
            print(f"{series:,} series × {args.runs} runs (store of {size:.0f} MB built in {built:.0f} s): full detect "
                  f"{full:.1f} s")
            return
        if args.full_rounds:
            full_rounds(args, Path(tmp), store, ours, theirs_env)
            return
        timings, theirs, writes = [], [], []
        if args.against:    # the other code's store: a copy, which its first writer (below, untimed) checks and notes
            their_store = Path(tmp) / "theirs.db"
            shutil.copy(store, their_store)
        for r in range(args.rounds):
            new = runs_of(0, args.benchmarks, args.runs + r, 1, rng, args.samples)
            if args.against:
                with SqliteStore(their_store) as s:
                    s.add_runs(new)
            begun = time.perf_counter()
            with SqliteStore(store) as s:       # spared the integrity check too: the detect before noted the file
                s.add_runs(new)
            writes.append(time.perf_counter() - begun)
            if args.check_share:    # the store as its writer noted it, and a copy no writer noted: in turns
                copy = Path(tmp) / "copy.db"
                shutil.copy(store, copy)
                sides = [(store, timings), (copy, theirs)]
                for path, out in (sides if r % 2 == 0 else sides[::-1]):
                    wall, cpu_s, _ = detect(path, env=ours)
                    out.append((wall, cpu_s))
                continue
            if args.against:    # each side on its own store, both noted checked by their writer, in alternating order
                sides = [(store, ours, timings), (their_store, theirs_env, theirs)]
                for path, env, out in (sides if r % 2 == 0 else sides[::-1]):
                    wall, cpu_s, _ = detect(path, env=env)
                    out.append((wall, cpu_s))
                continue
            again, again_cpu, data = detect(store, env=ours)
            assert len(data["series"]) == series
            timings.append((again, again_cpu))
        walls = sorted(w for w, _ in timings)
        cpu = statistics.median(c for _, c in timings)
        print(f"{series:,} series × {args.runs} runs × {args.samples} samples ({series * args.runs:,} points; store of {size:.0f} MB built in {built:.0f} s): "
              f"full detect {full:.1f} s (CPU {full_cpu:.1f} s; {changes} change points; largest process {peak:.0f} MiB); after one new run on "
              f"one testbed ({args.benchmarks} series), {args.rounds} rounds: median {statistics.median(walls):.2f} s "
              f"(range {walls[0]:.2f}–{walls[-1]:.2f} s; CPU {cpu:.2f} s); load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores")
        print(f"  the new run's write before each (in this process, as ingest writes it): median "
              f"{statistics.median(writes):.2f} s (range {min(writes):.2f}–{max(writes):.2f} s)")
        if theirs:
            w = sorted(x for x, _ in theirs)
            print(f"  {args.against or 'a copy of the store (no checked writer left it: its integrity check runs)'}, interleaved: median {statistics.median(w):.2f} s (range {w[0]:.2f}–{w[-1]:.2f} s; "
                  f"CPU {statistics.median(c for _, c in theirs):.2f} s)")


def full_rounds(args, tmp: Path, store: Path, ours: dict[str, str], theirs: dict[str, str] | None) -> None:
    """``--full-rounds``: full detects of the whole store, each on a fresh copy of it, this code's and
    (with ``--against``) the other's in alternating order."""
    codes = [("this code", ours, [])] + ([(args.against, theirs, [])] if theirs else [])
    for r in range(args.full_rounds):
        for _, env, out in (codes if r % 2 == 0 else codes[::-1]):
            copy = tmp / "copy.db"
            shutil.copy(store, copy)
            out.append(detect(copy, "--full", env=env)[:2])
    for name, _, out in codes:
        walls = sorted(w for w, _ in out)
        print(f"  {name}: full detect median {statistics.median(walls):.2f} s (range {walls[0]:.2f}–{walls[-1]:.2f} s; "
              f"CPU {statistics.median(c for _, c in out):.2f} s), {args.full_rounds} rounds")
    print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def streaks(args, tmp: Path, store: Path, codes: list[tuple[str, dict[str, str]]], rng: np.random.Generator) -> None:
    """The ``--open-streaks`` comparison: a copy of the store per count of open streaks (and per
    code), each round's new run added to every copy, the detects in an order turned each round."""
    counts = [int(n) for n in args.open_streaks.split(",")]
    sides = []
    for count in counts:
        copy = tmp / f"streaks-{count}.db"
        shutil.copy(store, copy)
        open_streaks(copy, count, args.benchmarks, args.runs)
        for name, env in codes:
            mine = tmp / f"streaks-{count}-{len(sides)}.db"
            shutil.copy(copy, mine)
            sides.append((f"{count} open streaks, {name}", env, mine, []))
        copy.unlink()
    loads = []
    for r in range(args.rounds):
        new = runs_of(0, args.benchmarks, args.runs + r, 1, rng, args.samples)
        for _, _, path, _ in sides:
            with SqliteStore(path) as s:
                s.add_runs(new)
        turn = r % len(sides)
        for label, env, path, out in sides[turn:] + sides[:turn]:
            loads.append(os.getloadavg()[0])
            wall, cpu_s, _ = detect(path, env=env)
            out.append((wall, cpu_s))
    for label, _, _, out in sides:
        w = sorted(x for x, _ in out)
        print(f"{label}: median {statistics.median(w):.2f} s (range {w[0]:.2f}–{w[-1]:.2f} s; CPU "
              f"{statistics.median(c for _, c in out):.2f} s) over {len(w)} rounds")
    print(f"load average (1 min) before each detect: median {statistics.median(loads):.1f}, range "
          f"{min(loads):.1f}–{max(loads):.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
