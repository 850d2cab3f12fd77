"""`perfgate history` as a user reads it: the change from the run before, the run-to-run CV, and
what it says when the filters match nothing."""

from __future__ import annotations

import pytest

from perfgate.cli import main
from perfgate.detect.stats import run_to_run_cv
from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store.sqlite import SqliteStore

# 12 runs at 10 ms (±1%), then a +74% regression: 17.4 ms from run 12 on
VALUES = [10.0 * (1 + 0.01 * ((-1) ** i)) for i in range(12)] + [17.4 * (1 + 0.01 * ((-1) ** i)) for i in range(4)]


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "history.db"
    with SqliteStore(path) as s:
        s.add_runs([Run("default", "main", f"{i:040x}", Bed("tb"), [Metric("work", "latency", v * 1e6)],
                        start_time=1.7e9 + i * 60) for i, v in enumerate(VALUES)])
    return f"sqlite:{path}"


def test_the_oldest_point_shown_is_compared_with_the_run_before_it(store, capsys):
    # --limit 4 shows the regressed runs 12..15; run 12's +74% was once shown as "—"
    assert main(["history", "work", "--limit", "4", "--store", store]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "0000000000" in line]
    assert len(rows) == 4
    assert "+77.5%" in rows[0], rows[0]          # 17.4 × 1.01 over 10 × 0.99
    assert main(["history", "work", "--limit", "0", "--store", store]) == 0
    first = next(line for line in capsys.readouterr().out.splitlines() if "0000000000" in line)
    assert first.rstrip(" │").endswith("—")      # the very first run has nothing before it
    assert first.split("│")[5].strip() == "1"    # no raw samples: one value, as compare and the pages count it


def test_the_cv_is_run_to_run_noise_not_the_regression(store, capsys):
    assert main(["history", "--store", store]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "work" in line)
    # runs alternate ±1%: consecutive runs differ by 2% of the level, 2.1% as a deviation (an
    # alternation is as rough as noise can be); over every value, the step included, it was 28%
    assert " 2.1%" in row, row
    assert run_to_run_cv(VALUES) == pytest.approx(0.2 * 1.4826 / 2 ** 0.5 / 10.0, rel=0.01)
    assert run_to_run_cv([5.0] * 10 + [7.0] * 10) == 0.0     # a deterministic measure's step is no noise
    assert run_to_run_cv([1.0, 2.0]) is None and run_to_run_cv([0.0, 1.0, -1.0, 0.0]) is None


def test_the_runs_column_counts_every_run_not_the_ones_shown(store, capsys):
    # 16 runs; --limit 4 computes Δ, CV and the sparkline over 4 of them, and once said "runs 4"
    assert main(["history", "--limit", "4", "--store", store]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "work" in line)
    assert " 16 " in row and " 4 " not in row, row
    assert "last 4 runs (--limit 0 for every run)" in out
    assert main(["history", "work", "--limit", "4", "--store", store]) == 0     # one benchmark's points too
    assert "the last 4 of 16 runs (--limit 0 for every run)" in capsys.readouterr().out


@pytest.mark.parametrize("option", [["--measure", "nosuch"], ["--branch", ""], ["--testbed", "other"]])
def test_filters_that_match_nothing_say_so(option, store, capsys):
    # they once said "no history yet" (exit 0) of a store holding runs
    assert main(["history", *option, "--store", store]) == 2
    err = capsys.readouterr().err
    assert f"no series matches --{option[0][2:]} {option[1]!r}" in err, err


def test_the_testbed_lines_tell_testbeds_apart_and_leave_the_toolchain_to_json(tmp_path, capsys):
    # A container testbed's fingerprint once filled five terminal lines (every package version).
    fp = {"cpu_model": "AMD EPYC", "cpus": 2, "image": "base", "image_digest": "sha256:" + "ab" * 32,
          "image_tag": "perfgate/base:07c44fc5b403", "kernel": "6.18", "os": "Linux",
          "harness": {"hyperfine": "1.19.0-1+b3", "valgrind": "1:3.24.0-3"}}
    path = tmp_path / "h.db"
    with SqliteStore(path) as s:
        s.add_runs([Run("default", "main", "a" * 40, Bed("docker-base-1", fp), [Metric("work", "latency", 1e6)])])
    assert main(["history", "--store", f"sqlite:{path}"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("testbed docker-base-1:"))
    assert "cpu_model=AMD EPYC" in line and "image=base" in line and "image_digest=sha256:abababababab…" in line
    assert "hyperfine" not in out and "kernel=" not in out and "image_tag=" not in out
    assert "--json" in out.splitlines()[-1]
    assert main(["history", "--store", f"sqlite:{path}", "--json"]) == 0
    assert capsys.readouterr().out.count("1.19.0-1+b3") == 1


def test_a_benchmark_the_filters_exclude_names_the_filter_not_itself(store, capsys):
    # "no history for benchmark 'work' with these filters; did you mean 'work'?"
    assert main(["history", "work", "--measure", "throughput", "--store", store]) == 2
    err = capsys.readouterr().err
    assert "'work' has no series with --measure 'throughput' (it has: latency)" in err, err
    assert "did you mean" not in err
    assert main(["history", "work", "--measure", "latency", "--branch", "pr-1", "--testbed", "tb",
                 "--store", store]) == 2
    err = capsys.readouterr().err
    assert "'work' has no series with --branch 'pr-1' (it has: main)" in err and "--testbed" not in err, err


def test_a_benchmark_each_filter_matches_but_not_together(tmp_path, capsys):
    path = tmp_path / "h.db"
    with SqliteStore(path) as s:
        s.add_runs([Run("default", branch, "a" * 40, Bed(bed), [Metric("work", "latency", 1e6)])
                    for branch, bed in (("main", "tb1"), ("pr-1", "tb2"))])
    assert main(["history", "work", "--branch", "main", "--testbed", "tb2", "--store", f"sqlite:{path}"]) == 2
    err = capsys.readouterr().err
    assert "'work' has no series with --branch 'main' and --testbed 'tb2' together" in err, err
    assert "main@tb1" in err and "pr-1@tb2" in err


def test_a_mistyped_benchmark_gets_the_close_names(store, capsys):
    assert main(["history", "wrok", "--store", store]) == 2
    err = capsys.readouterr().err
    assert "no benchmark 'wrok'; did you mean 'work'?" in err, err
    assert main(["history", "wrok", "--measure", "latency", "--store", store]) == 2
    assert "no benchmark 'wrok'; did you mean 'work'?" in capsys.readouterr().err
