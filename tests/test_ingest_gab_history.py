"""github-action-benchmark's whole history (its gh-pages `dev/bench/data.js`) ingested in one go:
each entry a run at the commit and date it names, on one branch, every run or none, and nothing
twice on a second import.  A user migrating had to script one ingest per entry."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from perfgate.adapters import base
from perfgate.adapters import github_action_benchmark_history as history
from perfgate.cli import main
from perfgate.store.sqlite import SqliteStore

DATA_JS = Path(__file__).parent / "fixtures" / "github-action-benchmark" / "history" / "data.js"
RUST, PYTHON = "Rust Benchmark", "Python Benchmark with pytest-benchmark"


def _doc() -> dict:
    return json.loads(re.sub(r"\A\s*window\.BENCHMARK_DATA\s*=", "", DATA_JS.read_text()))


def _write(path: Path, doc: dict, wrapper: str = "window.BENCHMARK_DATA = ", tail: str = "") -> Path:
    path.write_text(wrapper + json.dumps(doc, indent=2) + tail)
    return path


def _runs(store_path: Path):
    if not store_path.exists():
        return []
    with SqliteStore(store_path) as s:
        return sorted(s.runs(), key=lambda r: (r.start_time, r.run_id))


def _ingest(cli, path: Path, *more: str, **kw):
    return cli("ingest", str(path), "--testbed", "gha", "--json", *more, **kw)


def test_each_entry_is_a_run_at_its_commit_and_date_in_order(cli, store_path):
    proc = _ingest(cli, DATA_JS)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["runs"] == report["added"] == 80 and report["branch"] == "main"
    assert report["suites"] == {RUST: 40, PYTHON: 40}
    rust = _doc()["entries"][RUST]
    shown = json.loads(cli("history", "bench_parse", "--json", "--limit", "0", check=True).stdout)
    assert len(shown) == 1 and shown[0]["branch"] == "main" and shown[0]["measure"] == "latency"
    assert [(p["commit"], p["time"]) for p in shown[0]["points"]] == [(e["commit"]["id"], e["date"] / 1000) for e in rust]
    assert [p["value"] for p in shown[0]["points"]] == [
        next(b["value"] for b in e["benches"] if b["name"] == "bench_parse") for e in rust]  # ns/iter is ns


def test_detect_finds_the_planted_steps_at_their_commits(cli, store_path):
    _ingest(cli, DATA_JS, check=True)
    proc = cli("detect", "--json")
    assert proc.returncode == 1, proc.stderr  # new regressions
    found = {(s["benchmark"], c["first_commit"], c["direction"])
             for s in json.loads(proc.stdout)["series"] for c in s["change_points"]}
    entries = _doc()["entries"]
    # bench_parse's ns/iter rises at commit 25; test_fib_20's iter/sec falls at commit 31 (its mean time, the latency recorded, rises).
    assert found == {("bench_parse", entries[RUST][24]["commit"]["id"], "regression"),
                     ("bench.py::test_fib_20", entries[PYTHON][30]["commit"]["id"], "regression")}


def test_a_second_import_records_only_entries_added_since(cli, store_path, tmp_path):
    _ingest(cli, DATA_JS, check=True)
    again = json.loads(_ingest(cli, DATA_JS, check=True).stdout)
    assert again["added"] == 0 and again["duplicates"] == 80 and len(_runs(store_path)) == 80
    doc = _doc()
    later = copy.deepcopy(doc["entries"][RUST][-1])
    later["commit"]["id"], later["date"] = "f" * 40, later["date"] + 86_400_000
    doc["entries"][RUST].append(later)
    grown = json.loads(_ingest(cli, _write(tmp_path / "data.js", doc), check=True).stdout)
    assert grown["added"] == 1 and len(_runs(store_path)) == 81


def test_plain_json_and_a_closing_semicolon_are_the_same_history(cli, store_path, tmp_path):
    _ingest(cli, _write(tmp_path / "data.json", _doc(), wrapper=""), check=True)
    assert len(_runs(store_path)) == 80
    report = json.loads(_ingest(cli, _write(tmp_path / "data.js", _doc(), tail=";\n"), check=True).stdout)
    assert report["added"] == 0  # same entries, same keys


def test_direction_comes_from_the_custom_tools(cli, store_path, tmp_path):
    doc = {"entries": {"Custom": [
        {"commit": {"id": "a" * 40, "timestamp": "2024-05-01T10:00:00Z"}, "tool": "customBiggerIsBetter",
         "benches": [{"name": "score", "value": 10, "unit": "points"}]},
        {"commit": {"id": "b" * 40, "timestamp": "2024-05-02T10:00:00+02:00"}, "tool": "customSmallerIsBetter",
         "benches": [{"name": "size", "value": 3, "unit": "MB"}]}]}}
    proc = _ingest(cli, _write(tmp_path / "data.js", doc))
    assert proc.returncode == 0, proc.stderr
    measures = {s["benchmark"]: s["measure"] for s in json.loads(cli("history", "--json", check=True).stdout)}
    assert measures == {"score": "points (bigger is better)", "size": "MB"}
    # no "date": the commit's timestamp, its offset applied
    assert [r.start_time for r in _runs(store_path)] == [1714557600.0, 1714636800.0]


def test_two_suites_sharing_a_benchmark_are_imported_one_at_a_time(cli, store_path, tmp_path):
    doc = _doc()
    doc["entries"] = {"Benchmark (ubuntu)": doc["entries"][RUST], "Benchmark (macos)": doc["entries"][RUST][:5]}
    path = _write(tmp_path / "data.js", doc)
    proc = _ingest(cli, path)
    assert proc.returncode == 2 and "'bench_parse' (latency) is in suites" in proc.stderr, proc.stderr
    assert "--suite" in proc.stderr and _runs(store_path) == []
    assert _ingest(cli, path, "--suite", "Benchmark (ubuntu)").returncode == 0
    proc = _ingest(cli, path, "--suite", "Benchmark (macos)")  # same testbed: refused, nothing written
    assert proc.returncode == 2 and "already a series of suite 'Benchmark (ubuntu)'" in proc.stderr, proc.stderr
    assert cli("ingest", str(path), "--testbed", "mac", "--suite", "Benchmark (macos)").returncode == 0
    assert len(_runs(store_path)) == 45


# --- hostile input: file, place and reason named, exit 2, nothing written -------------------------

def _set(path: list, value):
    def mutate(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        if value is KeyError:
            del target[path[-1]]
        else:
            target[path[-1]] = value
    return mutate


CASES = [
    ("no-commit-id", _set(["entries", RUST, 3, "commit", "id"], KeyError),
     'entries["Rust Benchmark"][3].commit', "missing field 'id'"),
    ("commit-not-a-hash", _set(["entries", RUST, 3, "commit", "id"], "HEAD; rm -rf /"),
     'entries["Rust Benchmark"][3].commit.id', "neither a commit hash"),
    ("value-not-a-number", _set(["entries", RUST, 3, "benches", 1, "value"], "fast"),
     'entries["Rust Benchmark"][3].benches[1].value', "expected a number, got a string"),
    ("negative-time", _set(["entries", RUST, 39, "benches", 0, "value"], -1.0),
     'entries["Rust Benchmark"][39].benches[0].value', "negative"),
    ("date-a-string", _set(["entries", RUST, 0, "date"], "yesterday"),
     'entries["Rust Benchmark"][0].date', "expected milliseconds"),
    ("date-far-future", _set(["entries", RUST, 0, "date"], 1e20),
     'entries["Rust Benchmark"][0].date', "not a time between 1970 and 9999"),
    ("no-time-at-all", lambda d: (d["entries"][RUST][5].pop("date"), d["entries"][RUST][5]["commit"].pop("timestamp")),
     'entries["Rust Benchmark"][5]', "says when it ran"),
    ("bench-twice", lambda d: d["entries"][RUST][7]["benches"].append(dict(d["entries"][RUST][7]["benches"][0])),
     'entries["Rust Benchmark"][7].benches[3]', "appears twice"),
    ("suite-not-a-list", _set(["entries", PYTHON], {"commit": {}}),
     'entries["Python Benchmark with pytest-benchmark"]', "expected a list of runs"),
    ("no-entries", _set(["entries"], KeyError), "", "missing field 'entries'"),
]


@pytest.mark.parametrize("case,mutate,place,reason", CASES, ids=[c[0] for c in CASES])
def test_bad_history_is_refused_whole(case, mutate, place, reason, tmp_path, store_path, capsys):
    doc = _doc()
    mutate(doc)
    path = _write(tmp_path / f"{case}.js", doc)
    code = main(["ingest", str(path), "--store", f"sqlite:{store_path}", "--testbed", "gha"])
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:{place}" in err and reason in err, err
    assert "Traceback" not in err and _runs(store_path) == []


NAN = 'window.BENCHMARK_DATA = {"entries": {"S": [NaN]}}'
CUT = 'window.BENCHMARK_DATA = {\n  "entries": {"S": [{"commit": '


@pytest.mark.parametrize("text,place", [
    (NAN, f"line 1 column {NAN.index('NaN') + 1}"),  # the wrapper counted: the file's own column
    (CUT, f"line 2 column {len(CUT.splitlines()[1]) + 1}"),
], ids=["nan", "cut-short"])
def test_broken_json_is_placed_in_the_file_s_own_lines(text, place, tmp_path, store_path, capsys):
    path = tmp_path / "data.js"
    path.write_text(text)
    assert main(["ingest", str(path), "--store", f"sqlite:{store_path}", "--testbed", "gha"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{place}: invalid JSON" in err, err


def test_a_file_over_the_size_limit_is_refused(monkeypatch, store_path, capsys):
    monkeypatch.setattr(base, "MAX_INPUT_BYTES", DATA_JS.stat().st_size - 1)
    assert main(["ingest", str(DATA_JS), "--store", f"sqlite:{store_path}", "--testbed", "gha"]) == 2
    assert f"{DATA_JS}: input is over the" in capsys.readouterr().err and _runs(store_path) == []


def test_a_history_over_its_own_limit_is_refused_before_it_is_parsed(monkeypatch, store_path, capsys):
    monkeypatch.setattr(history, "MAX_BYTES", DATA_JS.stat().st_size - 1)  # any file's limit is 256 MiB
    assert main(["ingest", str(DATA_JS), "--store", f"sqlite:{store_path}", "--testbed", "gha"]) == 2
    assert f"{DATA_JS}: a history over" in capsys.readouterr().err and _runs(store_path) == []


@pytest.mark.parametrize("extra,said", [
    (["--commit", "a" * 40], "--commit: "), (["--start-time", "1700000000"], "--start-time: "),
    (["--idempotency-key", "k1"], "--idempotency-key: "),
    ([str(DATA_JS)], "ingest it alone"),
    (["--store", "bencher+http://127.0.0.1:9/project"], "perfgate publish"),
], ids=["commit", "start-time", "key", "two-files", "bencher"])
def test_options_of_one_run_are_refused(extra, said, store_path, capsys):
    files = [a for a in extra if not a.startswith("-") and a.endswith(".js")]  # files before the options
    options = [a for a in extra if a not in files]
    code = main(["ingest", str(DATA_JS), *files, "--store", f"sqlite:{store_path}", "--testbed", "gha", *options])
    err = capsys.readouterr().err
    assert code == 2 and said in err and "nothing was recorded" in err, err
    assert _runs(store_path) == []


def test_a_store_failure_part_way_leaves_no_half_history(monkeypatch, store_path, capsys):
    real = SqliteStore._insert_run
    calls = []

    def failing(self, run):
        calls.append(run)
        if len(calls) == 50:
            raise OSError("disk gone")
        return real(self, run)

    monkeypatch.setattr(SqliteStore, "_insert_run", failing)
    assert main(["ingest", str(DATA_JS), "--store", f"sqlite:{store_path}", "--testbed", "gha"]) != 0
    monkeypatch.setattr(SqliteStore, "_insert_run", real)
    assert _runs(store_path) == []


def test_suite_is_refused_for_a_one_run_output(store_path, capsys):
    custom = DATA_JS.parent.parent / "smaller-is-better.json"
    code = main(["ingest", str(custom), "--store", f"sqlite:{store_path}", "--branch", "main", "--commit", "a" * 40,
                 "--suite", "x"])
    assert code == 2 and "--suite" in capsys.readouterr().err and _runs(store_path) == []


def test_a_pytest_history_goes_on_as_the_series_pytest_benchmarks_own_json_makes(cli, store_path, tmp_path):
    """The action keeps pytest-benchmark's ``ops`` (iter/sec, one over the mean); perfgate's own
    adapter records the mean as latency.  Imported as a rate, a project's history stopped where its
    first pytest-benchmark JSON was ingested: two series, the old one a rate."""
    _ingest(cli, DATA_JS, check=True)
    last = _doc()["entries"][PYTHON][-1]
    fib = next(b for b in last["benches"] if b["name"] == "bench.py::test_fib_20")
    mean = 1 / fib["value"]                                   # seconds, as pytest-benchmark writes
    sd = float(fib["range"].split(":")[1])
    with SqliteStore(store_path) as store:
        [old] = [p for k, pts in store.all_series().items() if k.benchmark == "bench.py::test_fib_20" for p in pts[-1:]]
        assert old.value == pytest.approx(mean * 1e9, rel=1e-12)
        assert (old.lower, old.upper) == pytest.approx(((mean - sd) * 1e9, (mean + sd) * 1e9), rel=1e-12)
    own = tmp_path / "pytest.json"                            # the project's own output, one commit later
    own.write_text(json.dumps({"machine_info": {"node": "ci"}, "version": "4.0.0", "benchmarks": [
        {"name": "test_fib_20", "fullname": "bench.py::test_fib_20",
         "stats": {"mean": mean * 1.001, "stddev": sd, "min": mean * 0.9, "max": mean * 1.2, "rounds": 337}}]}))
    cli("ingest", str(own), "--testbed", "gha", "--branch", "main", "--commit", "e" * 40, check=True)
    series = [s for s in json.loads(cli("history", "--json", check=True).stdout) if "test_fib_20" in s["benchmark"]]
    assert [(s["benchmark"], s["measure"]) for s in series] == [("bench.py::test_fib_20", "latency")]
    with SqliteStore(store_path) as store:
        [points] = [pts for k, pts in store.all_series().items() if k.benchmark == "bench.py::test_fib_20"]
    assert len(points) == 41 and points[-1].commit == "e" * 40
    assert points[-1].value / points[-2].value == pytest.approx(1.001)
