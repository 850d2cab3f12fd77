#!/usr/bin/env python3
"""Where the bytes of ``perfgate pages`` go: the site's size and, for the benchmark pages' data
(``data/b/*.js``, most of the site), the bytes of each field per point drawn.

Uses ``bench/pages_speed.py``'s store (S benchmarks × 4 measures × R runs, kept in
``.perfgate/``), builds the site with the real CLI and re-serialises each field of every page's
data on its own to count it.  Usage::

    .venv/bin/python bench/pages_size.py --benchmarks 250 --runs 200
    .venv/bin/python bench/pages_size.py --benchmarks 250 --runs 200 --pages-args "--max-runs 100"
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pages_speed import ROOT, make_store  # noqa: E402


def page_data(path: Path) -> dict:  # the file as written, before read_page spells it out
    text = path.read_bytes()
    start, end = text.index(b"=") + 1, text.rindex(b";")
    return orjson.loads(text[start:end])


def size(x: object) -> int:
    return len(orjson.dumps(x))


def breakdown(folder: Path) -> tuple[Counter, int, int]:
    """Bytes of each field over every benchmark page, the points drawn and the bytes on disk."""
    by = Counter()
    points = disk = 0
    for f in sorted(folder.glob("*.js")):
        disk += f.stat().st_size
        page = page_data(f)
        for s in page.pop("series"):
            points += len(s["value"])
            band = s.pop("band", None) or {}
            for k in ("lower", "upper", "breach"):
                if band.get(k) is not None:
                    by[f"band.{k}"] += size(band[k]) + len(k) + 3
            by["band (rest)"] += size({k: v for k, v in band.items() if k not in ("lower", "upper", "breach")})
            for k in list(s):
                by[f"series.{k}" if k in ("run", "value", "lower", "upper", "n", "change_points", "alerts")
                   else "series (names, scale…)"] += size(s.pop(k)) + len(k) + 3
        runs = page.pop("runs")
        for k, v in runs.items():
            by[f"runs.{k}"] += size(v) + len(k) + 3
        by["page (title, testbeds, window…)"] += size(page)
    return by, points, disk


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--benchmarks", type=int, default=250, help="benchmarks (× 4 measures = series)")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--pages-args", default="", help="more options for perfgate pages")
    ap.add_argument("--keep", help="write the site here instead of a temporary folder")
    args = ap.parse_args()
    store = ROOT / ".perfgate" / f"pages-speed-{args.benchmarks}x{args.runs}.db"
    if not store.exists():
        store.parent.mkdir(exist_ok=True)
        make_store(store, args.benchmarks, args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(args.keep or Path(tmp) / "site")
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--store", f"sqlite:{store}",
                               "--out", str(site), *shlex.split(args.pages_args)], capture_output=True, text=True)
        if proc.returncode:
            sys.exit(proc.stderr)
        build = time.perf_counter() - start
        files = {"data/b (benchmark pages)": sum(f.stat().st_size for f in (site / "data" / "b").glob("*.js")),
                 "data/index.js": (site / "data" / "index.js").stat().st_size,
                 "data.json": (site / "data.json").stat().st_size,
                 "assets": sum(f.stat().st_size for f in (site / "assets").rglob("*") if f.is_file())}
        total = sum(f.stat().st_size for f in site.rglob("*") if f.is_file())
        by, points, disk = breakdown(site / "data" / "b")
    print(f"{args.benchmarks * 4:,} series × {args.runs} runs, built in {build:.1f} s: site {total / 2**20:.2f} MiB")
    for k, v in files.items():
        print(f"  {k:34} {v / 2**20:8.2f} MiB")
    print(f"benchmark pages: {points:,} points drawn, {disk / points:.1f} bytes a point on disk")
    for k, v in by.most_common():
        print(f"  {k:34} {v / points:7.2f} bytes/point  {100 * v / disk:5.1f}%")
    print(json.dumps({"site_bytes": total, **files, "points": points, "bytes_per_point": disk / points,
                      "fields_per_point": {k: round(v / points, 2) for k, v in by.items()}}))


if __name__ == "__main__":
    main()
