"""Trend pages: a step in history shows up as a regression, names are escaped, the feed is valid
Atom, and a real browser renders the charts offline."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store.sqlite import SqliteStore

STEP_AT = 30


@pytest.fixture
def history(store_path):
    rng = random.Random(7)
    runs = []
    for i in range(50):
        slow = 1.3 if i >= STEP_AT else 1.0
        runs.append(Run("default", "main", f"{i:02d}" + "c" * 38, Bed("tb", {"cpu_model": "test <cpu>"}), [
            Metric("parse <img src=x>", "latency", 1e6 * slow * rng.lognormvariate(0, 0.02)),
            Metric("steady", "latency", 2e5 * rng.lognormvariate(0, 0.02)),
            Metric("async_array/values=3,objects=900", "total-ns", 5e4 * rng.lognormvariate(0, 0.02)),
        ], start_time=1.7e9 + i * 60))
    with SqliteStore(store_path) as store:
        store.add_runs(runs)
    return store_path


def test_pages_show_the_step_as_a_regression(history, tmp_path, cli):
    site = tmp_path / "site"
    proc = cli("pages", "--out", str(site), "--json", check=True)
    assert json.loads(proc.stdout) == {"out": str(site), "series": 2, "regressions": 1, "improvements": 0}

    data = json.loads((site / "data.json").read_text())
    parse = next(s for s in data if s["benchmark"].startswith("parse"))
    [cp] = parse["change_points"]
    assert cp["index"] == STEP_AT and cp["direction"] == "regression"
    assert cp["first_commit"].startswith(f"{STEP_AT:02d}")
    assert 0.25 < cp["magnitude"] < 0.35 and cp["ci_low"] < cp["magnitude"] < cp["ci_high"]
    assert not next(s for s in data if s["benchmark"] == "steady")["change_points"]
    assert not any("values=" in s["benchmark"] for s in data)  # sweep points are left to `fit`
    swept = json.loads(cli("pages", "--out", str(site), "--json", "--include-sweeps", check=True).stdout)
    assert swept["series"] == 3
    cli("pages", "--out", str(site), check=True)

    html = (site / "index.html").read_text()
    assert "<img src=x>" not in html and "parse &lt;img src=x&gt;" in html
    assert "test &lt;cpu&gt;" in html
    assert (site / "index.html").stat().st_mode & 0o044  # readable by a web server

    feed = ET.parse(site / "regressions.xml").getroot()
    entries = feed.findall("{http://www.w3.org/2005/Atom}entry")
    assert len(entries) == 1
    assert "parse <img src=x> [latency] +" in entries[0].find("{http://www.w3.org/2005/Atom}title").text


def _chromium(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("chromium")
    assert exe, "chromium is installed by scripts/setup"
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    return subprocess.run([exe, *flags, *args], capture_output=True, text=True, timeout=120)


def test_a_real_browser_renders_the_charts_offline(history, tmp_path, cli):
    site = tmp_path / "site"
    cli("pages", "--out", str(site), check=True)
    profile = tmp_path / "profile"
    dom = _chromium(f"--user-data-dir={profile}", "--dump-dom", (site / "index.html").as_uri())
    assert dom.returncode == 0, dom.stderr
    assert dom.stdout.count('class="chart"') == 2
    assert dom.stdout.count('class="pt"') == 100          # one hoverable point per run
    assert dom.stdout.count('class="cp regression"') == 1  # the step, marked
    shot = tmp_path / "page.png"
    _chromium(f"--user-data-dir={profile}", "--window-size=1200,900", f"--screenshot={shot}",
              (site / "index.html").as_uri())
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
