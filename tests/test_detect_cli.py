"""`perfgate detect --series FILE`: CSV and JSON forms, the batch form's order, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfgate.commands.detect import read_series_file
from perfgate.errors import InputError


def stepped(n: int, at: int, factor: float, seed: int) -> list[float]:
    x = 100 * (1 + 0.01 * np.random.default_rng(seed).standard_normal(n))
    x[at:] *= factor
    return [float(v) for v in x]


def test_csv_value_column(cli, tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("value\n" + "\n".join(map(str, stepped(100, 64, 1.1, 1))) + "\n")
    proc = cli("detect", "--series", str(f), "--json")
    assert proc.returncode == 1, proc.stderr          # a regression (lower is better by default)
    out = json.loads(proc.stdout)
    assert [c["index"] for c in out["change_points"]] == [64] and out["points"] == 100
    text = cli("detect", "--series", str(f))
    assert "change at index 64" in text.stdout and "regression" in text.stdout


def test_csv_index_column_is_reported_and_sorted(cli, tmp_path):
    values = stepped(80, 30, 0.9, 2)
    rows = [f"{1000 + i},{v}" for i, v in enumerate(values)]
    f = tmp_path / "s.csv"
    f.write_text("index,value\n" + "\n".join(reversed(rows)) + "\n")     # out of order on purpose
    proc = cli("detect", "--series", str(f), "--json")
    assert proc.returncode == 0, proc.stderr          # an improvement
    [cp] = json.loads(proc.stdout)["change_points"]
    assert cp["index"] == 1030 and cp["direction"] == "improvement"


def test_measure_direction(cli, tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(stepped(80, 40, 0.85, 3)))
    proc = cli("detect", "--series", str(f), "--measure", "throughput", "--json")
    assert proc.returncode == 1 and json.loads(proc.stdout)["change_points"][0]["direction"] == "regression"


def test_batch_keeps_order(cli, tmp_path):
    batch = [stepped(60, 20, 1.2, 4), [5.0] * 40, stepped(90, 70, 1.3, 5), stepped(50, 10, 1.0, 6)]
    f = tmp_path / "batch.json"
    f.write_text(json.dumps(batch))
    proc = cli("detect", "--series", str(f), "--json")
    out = json.loads(proc.stdout)
    assert isinstance(out, list) and [r["points"] for r in out] == [60, 40, 90, 50]
    assert [[c["index"] for c in r["change_points"]] for r in out] == [[20], [], [70], []]
    assert proc.returncode == 1


@pytest.mark.parametrize("name, text, place, reason", [
    ("a.csv", "time,val\n1,2\n", "line 1", "no `value` column"),
    ("b.csv", "value\n1.0\nfast\n", "line 3", "not a number"),
    ("c.json", "[1, 2, \"x\"]", "[2]", "finite number"),
    ("d.json", "[[1, 2], [3, NaN]]", "[1][1]", "finite number"),
    ("e.json", "{\"values\": [1]}", "", "JSON list"),
    ("f.json", "[1, 2", "line 1", "not valid JSON"),
    ("g.csv", "index,value\n1,2\n1,3\n", "", "appears twice"),
    ("h.csv", "value\n", "", "no values"),
])
def test_bad_series_files_name_file_place_reason(tmp_path, name, text, place, reason):
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(InputError) as e:
        read_series_file(f)
    assert str(f) in str(e.value) and place in str(e.value) and reason in str(e.value)


def test_bad_series_file_through_the_cli(cli, tmp_path):
    f = tmp_path / "b.csv"
    f.write_text("value\n1.0\nfast\n")
    proc = cli("detect", "--series", str(f))
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"{f}:line 3: value 'fast' is not a number" in proc.stderr
    missing = cli("detect", "--series", str(tmp_path / "nope.csv"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
