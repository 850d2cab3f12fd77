#!/usr/bin/env python3
"""How fast ``perfgate pages`` builds a big site and how fast its index becomes usable.

A store of S series × R runs (default 10,000 × 200: 2,500 benchmarks × 4 measures, one branch
and testbed, 5% of the series with a step) is made once and kept in ``.perfgate/`` (it takes
about a minute; ``--fresh`` remakes it).  Then the real CLI builds the site (timed end to end, the
interpreter's start included) and headless Chromium, driven by Playwright, opens ``index.html``
from ``file://``: the time from navigation start until the table is drawn and answers input
(``data-ready``), then the time a search takes to redraw, then a benchmark page.  Usage::

    nice -n 10 .venv/bin/python bench/pages_speed.py
    .venv/bin/python bench/pages_speed.py --benchmarks 250 --runs 50    # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from perfgate.model import Metric, Run, Testbed
from perfgate.store.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[1]
MEASURES = (("latency", 1e6, 0.05), ("instructions", 4e7, 0.0005), ("peak-rss", 3e7, 0.004), ("throughput", 5e4, 0.03))
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]


def make_store(path: Path, benchmarks: int, runs: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    bed = Testbed("bench-testbed", {"cpu_model": "synthetic"})
    steps = {(b, m): rng.randrange(runs // 4, runs - 10) for b in range(benchmarks) for m, *_ in MEASURES
             if rng.random() < 0.05}
    with SqliteStore(path, "default") as store:
        for r in range(runs):
            metrics = []
            for b in range(benchmarks):
                for m, base, cv in MEASURES:
                    at = steps.get((b, m))
                    level = base * (1 + b % 7 / 10) * (1.1 if at is not None and r >= at else 1.0)
                    v = level * rng.lognormvariate(0, cv)
                    metrics.append(Metric(f"suite-{b % 25}/bench-{b}", m, v, v * (1 - cv), v * (1 + cv)))
            store.add_runs([Run("default", "main", f"{r:040x}", bed, metrics, start_time=1.7e9 + r * 3600,
                                adapter="synthetic")])


def browse(site: Path, last: str) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.route(lambda url: not url.startswith("file:"), lambda route: route.abort())
        page.goto((site / "index.html").as_uri())  # a first visit warms the disk cache, as a second visit would
        timings = []
        for _ in range(3):
            start = time.perf_counter()
            page.goto((site / "index.html").as_uri())
            page.wait_for_selector("html[data-ready='1']", timeout=30_000)
            wall = time.perf_counter() - start
            timings.append((page.evaluate("window.PERFGATE_READY_MS") / 1000, wall))
        rows = page.locator("#rows tr.series-row").count()
        start = time.perf_counter()
        page.fill("#q", f"{last} latency")  # the last benchmark: a unique name
        page.wait_for_function("document.querySelectorAll('#rows tr.series-row').length === 1")
        search = time.perf_counter() - start
        start = time.perf_counter()
        page.locator("a.bench").first.click()
        page.wait_for_selector("html[data-ready='1']", timeout=30_000)
        bench_page = time.perf_counter() - start
        browser.close()
    ready = min(t for t, _ in timings)
    return {"index_ready_s": ready, "index_ready_all_s": [round(t, 3) for t, _ in timings],
            "goto_to_ready_s": min(w for _, w in timings), "rows_drawn": rows, "search_s": search,
            "benchmark_page_s": bench_page}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--benchmarks", type=int, default=2500, help="benchmarks (× 4 measures = series)")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--fresh", action="store_true", help="remake the store even when it is there")
    args = ap.parse_args()

    store = ROOT / ".perfgate" / f"pages-speed-{args.benchmarks}x{args.runs}.db"
    if args.fresh or not store.exists():
        store.parent.mkdir(exist_ok=True)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{store}{suffix}").unlink(missing_ok=True)
        start = time.perf_counter()
        make_store(store, args.benchmarks, args.runs)
        print(f"made {store.relative_to(ROOT)} in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    series = args.benchmarks * len(MEASURES)
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--store", f"sqlite:{store}",
                               "--out", str(site), "--json", "--repo-url", "https://github.com/OWNER/REPO"],
                              capture_output=True, text=True)
        build = time.perf_counter() - start
        if proc.returncode:
            sys.exit(proc.stderr)
        counts = json.loads(proc.stdout)
        size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
        index_size = (site / "data" / "index.js").stat().st_size
        result = {"series": series, "runs": args.runs, "build_s": build, **counts, "site_mib": size / 2 ** 20,
                  "index_data_kib": index_size / 1024}
        result |= browse(site, f"bench-{args.benchmarks - 1}") if os.access(CHROMIUM, os.X_OK) else {"browser": "skipped: no chromium"}
        shutil.rmtree(site)
    print(f"{series:,} series × {args.runs} runs: pages built in {build:.1f} s ({result['benchmarks']:,} benchmark "
          f"pages, {result['site_mib']:.0f} MiB, index data {result['index_data_kib']:,.0f} KiB); index ready in "
          f"{result.get('index_ready_s', float('nan')):.2f} s after navigation start, a search redraws in "
          f"{result.get('search_s', float('nan')):.2f} s, a benchmark page opens in "
          f"{result.get('benchmark_page_s', float('nan')):.2f} s")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
