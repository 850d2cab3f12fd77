"""perfgate bisect on a planted history: a thinned backfill leaves a change's range several
commits wide, detect raises the alert, bisect builds and runs commits inside the range and names
the planted commit — from instruction counts (one run per commit) or, with no deterministic
measure, from interleaved rounds of wall time.  Runs use ``--runner host`` (no Docker)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from fake_github.fixtures import receiver  # noqa: F401 - fixture

from perfgate import host_load
from perfgate.detect.bisection import BinarySearch, judge_rounds, judge_value
from perfgate.store.sqlite import SqliteStore
from planted_history import BENCH_TOML, WORK_PY, git, make_history, make_valued_history

THRESHOLDS = """\
[measure.instructions.change_point]
min_effect = 0.005
min_segment = 2
"""


def test_binary_search_finds_the_first_bad_commit_in_log2_steps():
    candidates = [f"c{i}" for i in range(16)]
    for planted in range(16):
        search = BinarySearch(candidates)
        while not search.done:
            sha = search.next()
            value = 110.0 if int(sha[1:]) >= planted else 100.0
            search.record(sha, judge_value(value, 100.0, 110.0))
        assert search.first_bad == f"c{planted}"
        assert search.last_good("good-end") == (f"c{planted - 1}" if planted else "good-end")
        assert len(search.steps) <= 4


def test_judging_values_and_rounds():
    assert judge_value(100.0, 100.0, 110.0).side == "good"
    assert judge_value(109.0, 100.0, 110.0).side == "bad"
    assert judge_value(104.0, 100.0, 110.0).side == "good"
    # Noisy rounds: the tested commit tracks the bad end though every round's level drifts.
    rounds = [(100 * k, 111 * k, 110 * k) for k in (1.0, 1.3, 0.8, 1.1, 0.9)]
    v = judge_rounds(rounds)
    assert v.side == "bad" and v.agreement == 1.0
    mixed = [(100, 103, 110), (100, 108, 110), (100, 102, 110)]
    assert judge_rounds(mixed).side == "good" and judge_rounds(mixed).agreement == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        judge_value(100.0, 100.0, 100.0)


@pytest.fixture
def planted(tmp_path: Path):
    root = tmp_path / "project"
    root.mkdir()
    # commit 5 makes the loop 10% longer; commits 0..4 before it, 5..11 after.
    shas = make_history(root, [200_000] * 5 + [220_000] * 7)
    (tmp_path / "thresholds.toml").write_text(THRESHOLDS)
    return root, shas, tmp_path / "thresholds.toml"


def _alert(cli, thresholds: Path, measure: str) -> dict:
    proc = cli("detect", "--thresholds", str(thresholds), "--measure", measure, "--json")
    assert proc.returncode == 1, proc.stderr          # a new regression
    (alert,) = json.loads(proc.stdout)["new_alerts"]
    return alert


def test_bisect_names_the_planted_commit_from_instruction_counts(planted, cli, store_path):
    root, shas, thresholds = planted
    cli("backfill", "main", "--root", str(root), "--runner", "host", "--every", "3", check=True)  # 0 3 6 9 11
    alert = _alert(cli, thresholds, "instructions")
    assert (alert["previous_commit"], alert["commit"]) == (shas[3], shas[6])   # a range of three commits
    proc = cli("bisect", alert["id"][:8], "--root", str(root), "--runner", "host", "--json", check=True)
    report = json.loads(proc.stdout)
    assert report["first_bad_commit"] == shas[5] and report["last_good_commit"] == shas[4]
    assert report["method"] == "deterministic"
    assert [s["commit"] for s in report["steps"]] == [shas[4], shas[5]]
    assert [s["value"] for s in report["steps"]] == [200_000, 220_000]
    store = SqliteStore(store_path)
    (updated,) = [a for a in store.alerts() if a.id == alert["id"]]
    assert updated.commit == shas[5] and updated.previous_commit == shas[4] and updated.commit_range == (shas[5],)
    assert updated.details["bisect"]["range_before"] == shas[4:7]
    # The commits measured joined the series, in history order.
    runs = {r.commit for r in store.runs()}
    assert {shas[4], shas[5]} <= runs
    # A later backfill of the whole range skips them.
    again = json.loads(cli("backfill", "main", "--root", str(root), "--runner", "host", "--json", check=True).stdout)
    assert again["runs_skipped"] == 7 and again["runs_recorded"] == 5
    # Bisected again: nothing to search (it printed an empty table titled "1 candidate commit(s)").
    proc = cli("bisect", alert["id"][:8], "--root", str(root), "--runner", "host", check=True)
    assert f"its change is at one commit already, {shas[5][:12]}" in " ".join(proc.stdout.split())
    assert "nothing to bisect" in proc.stdout and "candidate commit(s)" not in proc.stdout


def test_bisect_of_a_wall_time_alert_uses_the_instruction_count_when_it_changed_too(planted, cli, store_path):
    root, shas, thresholds = planted
    cli("backfill", "main", "--root", str(root), "--runner", "host", "--every", "3", check=True)
    store = SqliteStore(store_path)
    (ialert,) = [a for a in [*_iter_alerts(cli, thresholds)] if a["measure"] == "instructions"]
    from perfgate.model import Alert

    latency = Alert(ialert["branch"], ialert["testbed"], "toy/loop", "latency", shas[6], "regression", 0.1,
                    previous_commit=shas[3], commit_range=(shas[6],))
    (latency,) = store.record_alerts([latency])
    report = json.loads(cli("bisect", latency.id, "--root", str(root), "--runner", "host", "--json", check=True).stdout)
    assert report["decided_by"] == "instructions" and report["first_bad_commit"] == shas[5]


def _iter_alerts(cli, thresholds):
    proc = cli("detect", "--thresholds", str(thresholds), "--json")
    return json.loads(proc.stdout)["new_alerts"]


def test_bisect_without_a_deterministic_measure_uses_interleaved_rounds(tmp_path, cli, store_path):
    root = tmp_path / "project"
    root.mkdir()
    # Wall time only; commit 3 makes the loop 3x longer, far beyond this machine's noise.
    shas = make_history(root, [100_000] * 3 + [300_000] * 3)
    env = {"TOY_MEASURES": "latency"}
    cli("backfill", f"{shas[1]}..main", "--root", str(root), "--runner", "host", "--every", "4", env=env, check=True)
    store = SqliteStore(store_path)
    (key,) = store.series_keys()
    from perfgate.model import Alert

    (alert,) = store.record_alerts([Alert(key.branch, key.testbed, key.benchmark, key.measure, shas[5], "regression",
                                          2.0, previous_commit=shas[2], commit_range=(shas[5],))])
    proc = cli("bisect", alert.id, "--root", str(root), "--runner", "host", "--rounds", "3", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["method"] == "interleaved" and report["first_bad_commit"] == shas[3]
    assert all(len(s["rounds"]) == 3 for s in report["steps"])


def test_bisect_searches_a_change_points_whole_range(planted, cli, store_path):
    """Every commit was measured, but a weak step's best split can miss its commit: its alert names
    the likeliest commit and the range it could be.  Bisect searches that whole range, from the
    last commit measured before it, and corrects the commit (it used to search only between the
    named commit and the one before, and to confirm it)."""
    from perfgate.model import Alert

    root, shas, _ = planted
    cli("backfill", "main", "--root", str(root), "--runner", "host", check=True)
    store = SqliteStore(store_path)
    key = next(k for k in store.series_keys() if k.measure == "instructions")
    (alert,) = store.record_alerts([Alert(key.branch, key.testbed, key.benchmark, key.measure, shas[6], "regression",
                                          0.1, previous_commit=shas[5], commit_range=tuple(shas[3:8]))])
    report = json.loads(cli("bisect", alert.id, "--root", str(root), "--runner", "host", "--json", check=True).stdout)
    assert report["candidates"] == 5 and report["method"] == "deterministic"
    assert report["first_bad_commit"] == shas[5] and report["last_good_commit"] == shas[4]
    (updated,) = [a for a in store.alerts() if a.id == alert.id]
    assert (updated.commit, updated.previous_commit, updated.commit_range) == (shas[5], shas[4], (shas[5],))
    assert updated.details["bisect"]["commit_range_before"] == list(shas[3:8])


def as_if_quiet(store_path: Path) -> None:
    """The runs' load readings removed: the planted values do not move with the machine's load,
    but a run that read another test's CPU use beside it as load was left out of the change
    point search, and the change's range then depended on what ran beside the test."""
    with SqliteStore(store_path) as store, store.db:
        store.db.execute(f"UPDATE run SET context = json_remove(context, '$.{host_load.KEY}')")


def test_a_change_point_taking_over_a_bisected_alert_keeps_its_first_bad_commit(tmp_path, cli, store_path,
                                                                              receiver):
    """A threshold alert is raised two runs into a +10% step in 4% noise, after a thinned backfill;
    bisect names the step's commit; the runs since let detect find the change point, whose range
    holds that commit and the next.  Taking the alert over, it replaced bisect's commit with that
    range (the alert was to be bisected again) and dropped bisect's record."""
    values = 1e6 * (1 + 0.04 * np.random.default_rng(1).standard_normal(40))
    values[20:] *= 1.10
    root = tmp_path / "project"
    root.mkdir()
    shas = make_valued_history(root, list(values))

    def backfill(first: int, last: int) -> None:
        cli("backfill", f"{shas[first - 1]}..{shas[last]}", "--root", str(root), "--runner", "host", check=True)
        as_if_quiet(store_path)

    cli("backfill", shas[0], "--root", str(root), "--runner", "host", check=True)
    backfill(1, 17)
    backfill(21, 22)                     # 18-20 unmeasured: the step's commit, 20, among them
    (alert,) = json.loads(cli("detect", "--json").stdout)["new_alerts"]
    assert (alert["kind"], alert["commit"], alert["previous_commit"]) == ("threshold", shas[21], shas[17])
    notify = ("notify", "--channel", f"webhook:{receiver.url}")
    cli(*notify, check=True)
    report = json.loads(cli("bisect", alert["id"], "--root", str(root), "--runner", "host", "--rounds", "3",
                            "--json", check=True).stdout)
    assert report["first_bad_commit"] == shas[20] and report["last_good_commit"] == shas[19]
    as_if_quiet(store_path)
    backfill(23, 39)
    found = json.loads(cli("detect", "--json").stdout)
    (cp,) = found["series"][0]["change_points"]
    assert cp["commit_range"] == shas[20:22] and found["new_alerts"] == []       # wider, and holding it
    (now,) = SqliteStore(store_path).alerts()
    assert (now.id, now.kind, now.details["superseded"]) == (alert["id"], "change_point", "threshold")
    assert (now.commit, now.previous_commit, now.commit_range) == (shas[20], shas[19], (shas[20],))
    assert now.details["bisect"]["commit_before"] == shas[21] and now.magnitude == cp["magnitude"]
    proc = cli("bisect", alert["id"], "--root", str(root), "--runner", "host", check=True)
    assert "nothing to bisect" in proc.stdout
    # notify, as it runs after each detect: one update naming the first bad commit, not a range
    cli(*notify, check=True)
    [update] = [r for r in receiver.processed.values() if r["event"] == "updated"]
    assert update["alert"]["commit_range"] == [shas[20]]
    assert ("bisect narrowed it to one commit, and a change point confirmed the threshold alert; it is now "
            f"{now.magnitude:+.2%}") in update["text"]
    assert f"at {shas[20][:10]} (was {alert['magnitude']:+.2%} at `{shas[21][:10]}`);" in update["text"]
    assert "perfgate bisect" not in update["text"]


def test_bisect_refuses_unknown_alerts(cli, planted, store_path):
    from perfgate.store.sqlite import SqliteStore

    SqliteStore(store_path).close()
    root, _, _ = planted
    proc = cli("bisect", "nope", "--root", str(root), "--runner", "host")
    assert proc.returncode == 2 and "no alert 'nope'" in proc.stderr


def test_a_bencher_store_narrows_the_alerts_it_remembers(tmp_path):
    """Bencher keeps no change point alerts, so perfgate remembers them next to its spool; bisect's
    update lands there (the HTTP side is not involved)."""
    from perfgate.bencher.alert_memory import AlertMemory
    from perfgate.model import Alert

    memory = AlertMemory(tmp_path / "alerts.json")
    (alert,) = memory.record([Alert("main", "tb", "b", "instructions", "c3", "regression", 0.1,
                                    previous_commit="c0", commit_range=("c1", "c2", "c3"))])
    alert.commit, alert.previous_commit, alert.commit_range = "c2", "c1", ("c2",)
    alert.details = {"bisect": {"steps": []}}
    assert memory.update(alert) is not None
    (again,) = AlertMemory(tmp_path / "alerts.json").load()
    assert (again.commit, again.previous_commit, again.commit_range) == ("c2", "c1", ("c2",))
    assert again.details == {"bisect": {"steps": []}}
    alert.id = "unknown"
    assert memory.update(alert) is None


def test_the_printed_title_keeps_the_measure_in_brackets(capsys):
    from perfgate.commands.bisect import _print

    _print({"benchmark": "python3 bench_sum.py 50000 2", "measure": "instructions", "candidates": 3,
            "decided_by": "instructions", "method": "deterministic", "steps": [], "first_bad_commit": "c" * 40,
            "last_good_commit": "b" * 40, "subject": "slower", "alert": "a" * 36}, {"c" * 40: "slower"})
    out = " ".join(capsys.readouterr().out.split())      # the title wraps at the table's width
    assert "python3 bench_sum.py 50000 2 [instructions], 3 candidate commit(s)" in out, out


def test_a_commit_subject_reaches_the_terminal_as_text(capsys):
    # The subjects were escaped for rich's markup only: an escape sequence in a commit subject
    # reached the terminal as one, and "\[" lost its backslash.
    from perfgate.commands.bisect import _print

    subject = "fix \x1b[2J\\[parser] loop"
    _print({"benchmark": "b", "measure": "instructions", "candidates": 2, "decided_by": "instructions",
            "method": "deterministic", "steps": [{"commit": "c" * 40, "side": "bad", "position": 1.0, "agreement": 1.0}],
            "first_bad_commit": "c" * 40, "last_good_commit": "b" * 40, "subject": subject, "alert": "a" * 36},
           {"c" * 40: subject})
    out = capsys.readouterr().out.replace("\u2060", "")
    assert "\x1b" not in out and "fix \\x1b[2J\\[parser] loop" in out


def test_bisect_of_a_project_in_a_subfolder_measures_that_folders_suite(tmp_path, cli, store_path):
    """--root a monorepo's project folder: bisect looked for benches/ at the top of each commit's
    tree and said the commit "has no suite", or measured the top level's suite of that name."""
    mono = tmp_path / "mono"
    twin = mono / "benches" / "toy"      # another project's suite of the same name, at the top level
    twin.mkdir(parents=True)
    (twin / "bench.toml").write_text(BENCH_TOML)
    (twin / "work.py").write_text(WORK_PY)
    (twin / "cost.txt").write_text("200000\n")    # never changes
    shas = make_history(mono, [200_000] * 5 + [220_000] * 7, project="proj")
    (tmp_path / "thresholds.toml").write_text(THRESHOLDS)
    project = str(mono / "proj")
    cli("backfill", "main", "--root", project, "--runner", "host", "--every", "3", check=True)  # 0 3 6 9 11
    alert = _alert(cli, tmp_path / "thresholds.toml", "instructions")
    assert (alert["previous_commit"], alert["commit"]) == (shas[3], shas[6])
    report = json.loads(cli("bisect", alert["id"][:8], "--root", project, "--runner", "host", "--json",
                            check=True).stdout)
    assert report["first_bad_commit"] == shas[5] and report["last_good_commit"] == shas[4]
    assert [s["value"] for s in report["steps"]] == [200_000, 220_000]


def test_bisect_at_a_commit_before_the_project_folder_existed_says_so(tmp_path, cli, store_path):
    from perfgate.model import Alert

    root = tmp_path / "project"
    root.mkdir()
    shas = make_history(root, [200_000] * 3 + [220_000] * 2)
    (root / "proj").mkdir()
    git(root, "mv", "benches", "proj/benches")
    git(root, "commit", "-qm", "move the project into proj/")
    # the first commit measured at the top level, the move from its new folder
    cli("backfill", shas[0], "--root", str(root), "--runner", "host", check=True)
    cli("backfill", f"{shas[-1]}..main", "--root", str(root / "proj"), "--runner", "host", check=True)
    store = SqliteStore(store_path)
    key = next(k for k in store.series_keys() if k.measure == "instructions")
    (alert,) = store.record_alerts([Alert(key.branch, key.testbed, key.benchmark, key.measure,
                                          git(root, "rev-parse", "HEAD"), "regression", 0.1,
                                          previous_commit=shas[0])])
    proc = cli("bisect", alert.id, "--root", str(root / "proj"), "--runner", "host")
    assert proc.returncode == 2, proc.stderr
    assert re.search(r"error: commit [0-9a-f]{12} has no suite 'toy' in its proj/benches/$", proc.stderr.strip())
    (kept,) = [a for a in store.alerts() if a.id == alert.id]
    assert "bisect" not in kept.details and kept.previous_commit == shas[0]
