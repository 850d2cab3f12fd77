"""``perfgate detect --series FILE``: the store's filters are refused rather than ignored, and the
counts read as English."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfgate.cli import main


@pytest.fixture
def series_file(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps([1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.0, 1.01]))
    return f


@pytest.mark.parametrize("option", [["--branch", "main"], ["--testbed", "tb"], ["--full"]])
def test_store_only_options_are_refused_with_a_series_file(series_file, store_path, option, capsys):
    # they were silently ignored: `--branch main` read as if it had chosen something
    assert main(["detect", "--series", str(series_file), *option, "--store", f"sqlite:{store_path}"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{option[0]} applies to the store's series, not to --series {series_file}" in captured.err, captured.err
    assert not store_path.exists()


def test_every_store_only_option_given_is_named(series_file, store_path, capsys):
    assert main(["detect", "--series", str(series_file), "--full", "--branch", "main", "--testbed", "tb",
                 "--store", f"sqlite:{store_path}"]) == 2
    assert "--branch, --testbed and --full apply to the store's series" in capsys.readouterr().err


def test_benchmark_and_measure_still_choose_the_series_files_settings(series_file, capsys):
    # not filters here: they pick the thresholds and the direction (see test_detect_cli)
    assert main(["detect", "--series", str(series_file), "--benchmark", "sort", "--measure", "throughput"]) == 0
    assert "12 points, no change point" in capsys.readouterr().out


def test_one_point_is_one_point(tmp_path, capsys):
    f = tmp_path / "one.json"
    f.write_text("[[1.0], [1.0, 2.0]]")
    assert main(["detect", "--series", str(f)]) == 0
    out = capsys.readouterr().out
    assert "series 0: 1 point, no change point" in out and "series 1: 2 points, no change point" in out, out


@pytest.mark.parametrize("after", [1, 2, 3, 4, 5])
def test_a_step_too_new_to_judge_is_said_and_then_found(cli, tmp_path, after):
    """A +20% step 1-4 runs old is too new to be a regime (a change needs 5 runs on each side):
    "40 points, no change point" read as a detector that missed it, and with 3 runs after it the
    search's cut happened to find it while with 4 it did not.  Either the change or the new level
    is reported, whatever the number of runs after it."""
    rng = np.random.default_rng(after)
    values = 100 * (1 + 0.01 * rng.standard_normal(40 + after))
    values[40:] *= 1.2
    path = tmp_path / "s.json"
    path.write_text(json.dumps(values.tolist()))
    proc = cli("detect", "--series", str(path), "--json")
    result = json.loads(proc.stdout)
    changes = [c["index"] for c in result["change_points"]]
    if changes:
        assert changes == [40] and proc.returncode == 1 and "new_level" not in result
    else:
        assert result["new_level"]["runs"] == after and abs(result["new_level"]["magnitude"] - 0.2) < 0.03
        said = cli("detect", "--series", str(path)).stdout
        assert ("spike or a new level" if after == 1 else f"the newest {after} runs sit at a new level") in said
