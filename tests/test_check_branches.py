"""What `perfgate check` records (each side on `check/REF`) stays out of the history's views:
`detect` raised a second alert on `check/main` for a regression alerted on main, 24 of 30 trend
page rows were `check/*` series, and `export --format bmf` exported a check's run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.report.pages import publish_site
from perfgate.store.sqlite import SqliteStore


def _series(branch: str, values: list[float], start: int = 0) -> list[Run]:
    return [Run("default", branch, f"{start + i:012x}{'0' * 28}", Bed("tb"), [Metric("work", "latency", v)],
                start_time=1.7e9 + (start + i) * 60) for i, v in enumerate(values)]


@pytest.fixture
def store_with_checks(store_path):
    rng = np.random.default_rng(1)
    stepped = [float(100 * (1.3 if i >= 30 else 1.0) * (1 + 0.01 * rng.standard_normal())) for i in range(45)]
    with SqliteStore(store_path) as s:
        s.add_runs(_series("main", stepped))
        # a check of the slow commit against an old base, recorded on its sides' branches
        s.add_runs(_series("check/main", [100.0, 101.0, 99.0, 130.0, 131.0, 129.0], start=100))
        s.add_runs(_series("check/HEAD", [130.0, 131.0], start=200))
    return store_path


def test_detect_judges_main_and_leaves_the_check_branches_out(cli, store_with_checks):
    doc = json.loads(cli("detect", "--json").stdout)
    assert {s["branch"] for s in doc["series"]} == {"main"}
    assert {a["branch"] for a in doc["new_alerts"]} == {"main"}
    named = json.loads(cli("detect", "--branch", "check/main", "--json").stdout)   # asked for by name
    assert {s["branch"] for s in named["series"]} == {"check/main"}


def test_a_filter_that_matches_nothing_is_an_error_not_no_change_points(cli, store_with_checks):
    proc = cli("detect", "--benchmark", "wrok")
    assert proc.returncode == 2 and "no series matches --benchmark 'wrok'" in proc.stderr
    only = _series("check/main", [5.0] * 12, start=400)    # a benchmark only a check measured
    for r in only:
        r.metrics[0].benchmark = "only-in-a-check"
    with SqliteStore(store_with_checks) as s:
        s.add_runs(only)
    proc = cli("detect", "--benchmark", "only-in-a-check")
    assert proc.returncode == 2 and "check/ branches only with --branch" in proc.stderr
    empty = json.loads(cli("detect", "--branch=", "--json").stdout)   # an unset CI variable is no filter
    assert {s["branch"] for s in empty["series"]} == {"main"}


def test_the_trend_pages_leave_the_check_branches_out(store_with_checks, tmp_path):
    with SqliteStore(store_with_checks) as s:
        publish_site(s, tmp_path / "site", title="t", workers=1)
        publish_site(s, tmp_path / "named", title="t", branch="check/main", workers=1)
    index = (tmp_path / "site" / "data.json").read_text()
    assert "check/main" not in index and "check/HEAD" not in index and '"main"' in index
    assert "check/main" in (tmp_path / "named" / "data.json").read_text()


def test_export_bmf_takes_the_newest_run_that_is_not_a_check_s_and_says_which(cli, store_with_checks):
    proc = cli("export", "--format", "bmf")
    assert proc.returncode == 0, proc.stderr
    assert f"main@{44:012x} on tb" in " ".join(proc.stderr.split())
    assert "check/" not in proc.stderr
    assert json.loads(proc.stdout)["work"]["latency"]["value"] > 120
    named = cli("export", "--format", "bmf", "--branch", "check/HEAD")
    assert named.returncode == 0 and "check/HEAD@" in named.stderr
