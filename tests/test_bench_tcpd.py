"""bench/evaluate_tcpd.py: the Turing Change Point Dataset kept in the repository is TCPD's own
(its md5 list), and the two scores mean what its docstring says."""

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from evaluate_tcpd import DATA, detect_present, load, score, tcpdbench_f1  # noqa: E402


def test_every_kept_series_is_tcpds_own_and_annotated():
    series = load()
    assert len(series) >= 30
    assert all(s["annotations"] and len(s["values"]) >= 10 for s in series)
    nile = next(s for s in series if s["name"] == "nile")
    assert len(nile["values"]) == 100 and nile["values"][:3] == [1120, 1160, 963]


def test_a_changed_byte_is_refused_by_name(tmp_path):
    for path in DATA.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    nile = tmp_path / "nile.json"
    nile.write_text(nile.read_text().replace("1120", "1121", 1))
    with pytest.raises(SystemExit, match="nile.json: md5"):
        load(tmp_path)


def test_the_benchmark_f1_counts_the_start_and_averages_annotators():
    # two annotators: one saw a change at 50, one saw none
    annotations = {"1": [50], "2": []}
    # nothing found: precision 1/1 (the start), recall (1/2 + 1/1) / 2 = 0.75
    assert tcpdbench_f1(annotations, []) == pytest.approx(2 * 1 * 0.75 / 1.75)
    # the change found 3 runs off: precision 1, recall 1
    assert tcpdbench_f1(annotations, [53]) == pytest.approx(1.0)
    # found 6 runs off: a false detection, and the change missed
    assert tcpdbench_f1(annotations, [56]) == pytest.approx(2 * 0.5 * 0.75 / 1.25)


def test_changes_found_pairs_each_annotator_with_the_detections():
    series = [{"values": [1.0] * 100, "annotations": {"1": [20, 60], "2": [61], "3": []}}]
    r = score(series, [[58, 90]])
    assert r["recall"] == pytest.approx(2 / 3)       # 60 and 61 found, 20 missed
    assert r["precision"] == pytest.approx(1 / 2)    # 90 matches nobody's change
    assert r["detections"] == 2


def test_missing_values_are_left_out_and_indices_mapped_back():
    values = [1.0, None, 1.0, None, 5.0, 5.0]
    seen = []

    def detect(present):
        seen.append(present)
        return [2]    # the first 5.0 among the values present

    assert detect_present(detect, values) == [4]
    assert seen == [[1.0, 1.0, 5.0, 5.0]]


def test_annotations_name_every_kept_series():
    annotations = json.loads((DATA / "annotations.json").read_text())
    assert {s["name"] for s in load()} <= set(annotations)


def test_the_annotations_and_the_md5_list_are_the_copies_made_twice():
    # no md5 of these two is published; two copies made apart from each other agreed on these

    assert hashlib.md5((DATA / "annotations.json").read_bytes()).hexdigest() == "d6f4693acaf73ece23e5268fddd79f5e"
    assert hashlib.md5((DATA / "checksums.json").read_bytes()).hexdigest() == "8f996344cae276f7824aded5ceb262ed"
