#!/usr/bin/env python3
"""How fast a benchmark page's chart answers a zoom and a legend toggle on a long history.

One benchmark, one measure (latency, with intervals), R runs (default 6,000) on each of two
testbeds, a few steps (so change points, their labels and threshold bands are drawn), in a
store made in a temporary folder; the real CLI builds the site and headless Chromium, driven by
Playwright, opens its benchmark page from ``file://``.  Each action is timed from its dispatch
until the chart settles (the last ``finished`` event, after the page's own handlers: the y axis
fitted, the date ticks and the change point labels spaced), best and median of N rounds; the
cost of one ``chart.getOption()`` is printed beside them.  Usage::

    .venv/bin/python bench/pages_chart_speed.py
    PYTHONPATH=OLD/src .venv/bin/python bench/pages_chart_speed.py     # another version's pages
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from perfgate.model import Metric, Run, Testbed
from perfgate.store.sqlite import SqliteStore

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
NAME = "long"

# Runs an action, then resolves with the ms from its dispatch to the end of the last "finished"
# handler once no other has come for 300 ms (a label spacing's deferred setOption renders again),
# and the ms the page spent in getOption() meanwhile (a deep copy of the option, data included).
TIMED = """async ([what, arg]) => {
    const c = Object.values(window.PERFGATE_CHARTS)[0];
    if (!c.ownGetOption) {
        const own = c.ownGetOption = c.getOption.bind(c);
        c.getOption = function () { const t = performance.now(), o = own(); c.copying += performance.now() - t; return o; };
    }
    c.copying = 0;
    let last = null;
    const done = () => { last = performance.now(); };
    c.on("finished", done);      // registered after the page's handlers: runs after them
    const t0 = performance.now();
    if (what === "zoom") c.dispatchAction({type: "dataZoom", start: arg[0], end: arg[1]});
    else c.dispatchAction({type: "legendToggleSelect", name: arg});
    for (let quiet = 0; quiet < 300; ) {
        const seen = last;
        await new Promise(r => setTimeout(r, 50));
        quiet = last === seen && last !== null ? quiet + 50 : 0;
    }
    c.off("finished", done);
    return [last - t0, c.copying];
}"""
GET_OPTION = """() => { const c = Object.values(window.PERFGATE_CHARTS)[0], t0 = performance.now();
    for (let i = 0; i < 5; i++) (c.ownGetOption || c.getOption)();
    return (performance.now() - t0) / 5; }"""


def make_store(path: Path, runs: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    steps = sorted(rng.sample(range(50, runs - 50), 6))
    out = []
    for r in range(runs):
        level = 1e6 * 1.05 ** sum(r >= s for s in steps)
        metrics_by_bed = {}
        for bed, scale in (("tb", 1.0), ("arm", 1.6)):
            samples = [level * scale * rng.lognormvariate(0, 0.01) for _ in range(5)]
            metrics_by_bed[bed] = [Metric(NAME, "latency", sum(samples) / 5, min(samples), max(samples))]
        for bed, metrics in metrics_by_bed.items():
            out.append(Run("default", "main", f"{r:040x}", Testbed(bed), metrics, start_time=1.6e9 + r * 3600))
    with SqliteStore(path) as store:
        store.add_runs(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=6000, help="runs on each of the two testbeds")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    if not os.access(CHROMIUM, os.X_OK):
        sys.exit(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        store, site = Path(tmp) / "history.db", Path(tmp) / "site"
        make_store(store, args.runs)
        subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--store", f"sqlite:{store}",
                        "--out", str(site)], check=True, capture_output=True)
        page_id = next((site / "data" / "b").glob("*.js")).stem
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.route(lambda url: not url.startswith("file:"), lambda route: route.abort())
            page.goto((site / "benchmark.html").as_uri() + f"?b={page_id}")
            page.wait_for_selector("html[data-ready='1']", timeout=60_000)
            page.wait_for_timeout(500)
            zoom, toggle = [], []
            for i in range(args.rounds):
                # in and out again, off and on again: each a full render
                zoom.append(page.evaluate(TIMED, ["zoom", [40, 60] if i % 2 == 0 else [0, 100]]))
                toggle.append(page.evaluate(TIMED, ["legend", "main @ arm"]))
            copying = {"zoom": [round(c, 1) for _, c in zoom], "legend_toggle": [round(c, 1) for _, c in toggle]}
            zoom, toggle = [t for t, _ in zoom], [t for t, _ in toggle]
            get_option = page.evaluate(GET_OPTION)
            browser.close()
    result = {"runs_per_series": args.runs, "series": 2, "zoom_ms": [round(t, 1) for t in zoom],
              "legend_toggle_ms": [round(t, 1) for t in toggle], "in_get_option_ms": copying,
              "get_option_ms": round(get_option, 1)}
    print(f"{args.runs:,} runs × 2 series: a zoom settles in {min(zoom):.0f} ms (median "
          f"{statistics.median(zoom):.0f}), a legend toggle in {min(toggle):.0f} ms (median "
          f"{statistics.median(toggle):.0f}); of which in getOption() (medians) {statistics.median(copying['zoom']):.0f} and "
          f"{statistics.median(copying['legend_toggle']):.0f} ms; one getOption() {get_option:.1f} ms")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
