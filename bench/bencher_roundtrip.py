#!/usr/bin/env python3
"""Round trip through a Bencher server: publish N runs, read the history back, detect changes.

Runs against the tests' fake Bencher server (a real HTTP server on 127.0.0.1 that validates
every request and response against Bencher's openapi.json, so its own cost is included).  Each
run is published on its own, as one CI job would; threshold models come from
``thresholds/default.toml``.  The series carry planted steps (latency +10% at run 120 of
``parse 1k``, instructions +2% at run 150 of ``sort 1e6``) that change point detection must find
in the history read back from the server.  Exit 1 when the whole round trip takes 30 s or more,
or a planted step is missed.  Usage::

    .venv/bin/python bench/bencher_roundtrip.py            # 200 runs
    .venv/bin/python bench/bencher_roundtrip.py --runs 400
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_bencher import FakeBencher  # noqa: E402

from perfgate.bencher.client import BencherClient, RetryPolicy  # noqa: E402
from perfgate.bencher.spool import Spool  # noqa: E402
from perfgate.detect.changepoint import detect_change_points  # noqa: E402
from perfgate.model import KNOWN_MEASURES, Metric, Run, Testbed  # noqa: E402
from perfgate.store.bencher import BencherStore  # noqa: E402
from perfgate.thresholds import load_thresholds  # noqa: E402

TOKEN = "bench-roundtrip-token"
PLANTED = {("parse 1k", "latency"): (120, 0.10), ("sort 1e6", "instructions"): (150, 0.02)}


def make_runs(n: int, seed: int = 1) -> list[Run]:
    rng = random.Random(seed)
    runs = []
    for i in range(n):
        metrics = []
        for bench, base_latency, base_instr in (("parse 1k", 2.0e6, 9.0e6), ("sort 1e6", 5.5e7, 3.1e8)):
            lat_step, instr_step = 1.0, 1.0
            at, size = PLANTED.get((bench, "latency"), (n + 1, 0))
            if i >= at:
                lat_step += size
            at, size = PLANTED.get((bench, "instructions"), (n + 1, 0))
            if i >= at:
                instr_step += size
            latency = base_latency * lat_step * rng.lognormvariate(0, 0.03)   # ~3% run-to-run noise
            metrics.append(Metric(bench, "latency", latency, latency * 0.97, latency * 1.03))
            metrics.append(Metric(bench, "instructions", round(base_instr * instr_step) + rng.randint(-50, 50)))
        commit = hashlib.sha1(f"roundtrip {i}".encode()).hexdigest()
        runs.append(Run("roundtrip", "main", commit, Testbed("ci-x86"), metrics,
                        start_time=1_750_000_000 + 600 * i, end_time=1_750_000_000 + 600 * i + 30))
    return runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    runs = make_runs(args.runs)
    fake = FakeBencher({TOKEN: "admin"}).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            client = BencherClient(fake.url, TOKEN, policy=RetryPolicy(attempts=3, backoff=0.05, timeout=10))
            store = BencherStore(fake.url, "roundtrip", client=client, spool=Spool(Path(tmp) / "spool"),
                                 thresholds=load_thresholds(ROOT / "thresholds" / "default.toml"))
            t0 = time.perf_counter()
            alerts: dict[tuple[str, str], list[int]] = {}
            for i, run in enumerate(runs):
                store.add_runs([run])
                assert store.last_outcomes[0].status == "published"
                for a in store.last_alerts:
                    alerts.setdefault((a.benchmark, a.measure), []).append(i)
            t1 = time.perf_counter()
            keys = store.series_keys()
            history = {k: store.series(k) for k in keys}
            t2 = time.perf_counter()
            found = {}
            for k, points in history.items():
                lower = KNOWN_MEASURES.get(k.measure, ("", True))[1]
                found[(k.benchmark, k.measure)] = detect_change_points([p.value for p in points], lower_is_better=lower)
            t3 = time.perf_counter()
    finally:
        fake.stop()
    points = sum(len(v) for v in history.values())
    total = t3 - t0
    print(f"runs published:        {len(runs)} ({len(runs) * 4} metrics), on the server: {len(fake.reports)}")
    print(f"publish:               {t1 - t0:.2f} s  ({1000 * (t1 - t0) / len(runs):.1f} ms/run, with bootstrap)")
    print(f"read back:             {t2 - t1:.2f} s  ({len(keys)} series, {points} points)")
    print(f"detect:                {t3 - t2:.2f} s")
    print(f"round trip total:      {total:.2f} s  (limit 30 s)")
    print(f"Bencher threshold alerts (thresholds/default.toml models): {sum(map(len, alerts.values()))}")
    for (bench, measure), at in sorted(alerts.items()):
        step = PLANTED.get((bench, measure), (None,))[0]
        near = sum(step is not None and 0 <= i - step < 10 for i in at)
        print(f"  {bench} [{measure}]: {len(at)} at runs {at[:12]}{' ...' if len(at) > 12 else ''}"
              f" ({near} within 10 runs after a planted step)")
    ok = total < 30 and points == len(runs) * 4 and not fake.problems
    for (bench, measure), cps in sorted(found.items()):
        text = ", ".join(f"run {c.index} {c.magnitude * 100:+.1f}% (CI {c.ci_low * 100:+.1f}..{c.ci_high * 100:+.1f}%, "
                         f"confidence {c.confidence:.4f})" for c in cps) or "none"
        print(f"change points {bench} [{measure}]: {text}")
        planted = PLANTED.get((bench, measure))
        if planted:
            ok &= any(abs(c.index - planted[0]) <= 2 for c in cps)
        else:
            ok &= not cps
    if fake.problems:
        print("schema problems:", *fake.problems[:5], sep="\n  ")
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
