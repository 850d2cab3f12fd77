"""`perfgate detect --series` bounds what one file may ask of it (points per series, series per
batch, numbers per file), refusing beyond that with an error naming the file, the place and the
limit (exit 2), and reads values packed: a 30 MB CSV took 4.4 GB and, under a memory limit, died
with a MemoryError traceback and exit 1 ("regression found")."""

from __future__ import annotations

import json
import subprocess
import sys
from array import array

import pytest

from perfgate import series_files
from perfgate.errors import InputError
from perfgate.series_files import read_series_file


@pytest.fixture
def small(monkeypatch):
    monkeypatch.setattr(series_files, "MAX_POINTS", 10)
    monkeypatch.setattr(series_files, "MAX_SERIES", 3)
    monkeypatch.setattr(series_files, "MAX_NUMBERS", 25)


def _refused(f, place: str, reason: str) -> str:
    with pytest.raises(InputError) as e:
        read_series_file(f)
    said = str(e.value)
    assert said.startswith(str(f)) and place in said and reason in said, said
    return said


def test_points_per_series_are_bounded_at_the_limit(small, tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("value\n" + "\n".join(["1"] * 10) + "\n")
    _, [(_, values, *_)] = read_series_file(f)
    assert isinstance(values, array) and len(values) == 10
    f.write_text("value\n" + "\n".join(["1"] * 11) + "\n\n")
    _refused(f, ":line 12:", "more than 10 points in one series")
    f = tmp_path / "s.json"
    f.write_text(json.dumps([1] * 11))
    _refused(f, ":[10]:", "more than 10 points in one series")
    f.write_text(json.dumps([[1] * 5, [2] * 11]))
    _refused(f, ":[1][10]:", "more than 10 points in one series")


def test_series_per_batch_are_bounded(small, tmp_path):
    f = tmp_path / "b.json"
    f.write_text(json.dumps([[1, 2]] * 3))
    assert len(read_series_file(f)[1]) == 3
    f.write_text(json.dumps([[1, 2]] * 4))
    _refused(f, ":[3]:", "more than 3 series")


def test_numbers_per_file_are_bounded_samples_included(small, tmp_path):
    f = tmp_path / "n.json"
    f.write_text(json.dumps([[1] * 10, [2] * 10, [3] * 6]))
    _refused(f, ":[2]:", "more than 25 numbers")
    f.write_text(json.dumps([[1] * 5, [{"value": 1, "samples": [1] * 21}]]))
    _refused(f, ":[1][0].samples:", "more than 25 numbers")
    f = tmp_path / "n.csv"
    f.write_text("value,samples\n1,1 2 3\n" + "2," + " ".join(["1"] * 21) + "\n")
    _refused(f, ":line 3:", "more than 25 numbers")


def test_json_with_too_many_items_is_refused_before_it_is_parsed(small, tmp_path):
    f = tmp_path / "c.json"
    f.write_text("[" + ",".join(["1"] * 60) + ",")     # not even valid JSON: never parsed
    _refused(f, "c.json:", "more than 25 numbers (values and samples) or 3 series")


def test_over_the_limit_is_exit_2_through_the_cli(cli, tmp_path):
    # the real limit, a file just over it (2 MB): refused naming the line, quickly
    f = tmp_path / "long.csv"
    f.write_text("value\n" + "1\n" * (series_files.MAX_POINTS + 1))
    proc = cli("detect", "--series", str(f), timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
    assert f"long.csv:line {series_files.MAX_POINTS + 2}: more than 1,000,000 points in one series" in proc.stderr


def test_reading_a_long_csv_takes_little_memory(tmp_path):
    # 10^6 points at the limit, read in a child (its peak RSS is its own): lists of Python objects
    # took about 300 MB for the file's rows alone, packed values 8 MB
    f = tmp_path / "m.csv"
    f.write_text("value\n" + "12\n" * series_files.MAX_POINTS)
    code = ("import resource, sys; from pathlib import Path; from perfgate.series_files import read_series_file;"
            "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss;"
            "_, [(_, v, *_)] = read_series_file(Path(sys.argv[1])); assert len(v) == 1_000_000;"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base)")
    grew_kib = int(subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True,
                                  check=True, timeout=120).stdout)
    assert grew_kib < 100_000, grew_kib
