"""scripts/demo_story.py's planted project: every edit of the story still applies to the suites
of this checkout, the manifests and thresholds it writes load, and the planted commits are where
the story says (the demo itself, with Docker, is ./scripts/demo)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from perfgate.containers.manifest import discover
from perfgate.thresholds import load_thresholds

ROOT = Path(__file__).resolve().parent.parent


def _story():
    spec = importlib.util.spec_from_file_location("demo_story", ROOT / "scripts" / "demo_story.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module       # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_planted_project_builds_its_history(tmp_path):
    story = _story()
    repo = tmp_path / "project"
    planted = story.make_project(repo)
    log = subprocess.run(["git", "-C", str(repo), "log", "--format=%H %ct %s", "--reverse", "main"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(log) == len(story.STORY) == 12
    times = [int(line.split()[1]) for line in log]
    assert times == sorted(times) and len(set(times)) == len(times)      # history order = time order
    shas = [line.split()[0] for line in log]
    assert [shas.index(planted[s.plant]) for s in story.STORY if s.plant] == [3, 5, 7, 9]
    suites = {s.name: s for s in discover(repo / "benches")}
    assert set(suites) == {"tree-alloc", "async-deinit"} and suites["async-deinit"].variants == {}
    assert {p.benchmark for p in suites["tree-alloc"].probes} == {story.POINTER, story.BUFFER}
    assert load_thresholds(repo / "thresholds").for_series("x", "instructions").change_point.min_segment == 2
    # The planted change is in the tree at its commit and gone after the fix.
    show = lambda sha: subprocess.run(["git", "-C", str(repo), "show", f"{sha}:benches/tree-alloc/tree.h"],  # noqa: E731
                                      capture_output=True, text=True, check=True).stdout
    assert "audit_ = (audit_" in show(planted["pointer copy ~10% slower"])
    assert "audit_ = (audit_" not in show(planted["fix of the pointer copy"])
    # The pull request branches off the newest commit and changes only the buffer copy.
    diff = subprocess.run(["git", "-C", str(repo), "diff", "--stat", "main", story.PR_BRANCH],
                          capture_output=True, text=True, check=True).stdout
    assert "benches/tree-alloc/tree.h" in diff and "1 file changed" in diff


def test_the_story_delivers_each_alert_once_and_the_fix_closes_the_regression(tmp_path, capsys):
    """The demo's delivery step against its own local receiver, with the real notify verb: one
    'raised' per alert, a 'closed' for the regression the later improvement undid, and nothing
    again on a second run."""
    from perfgate.model import Alert
    from perfgate.store.sqlite import SqliteStore

    story = _story()
    db = tmp_path / "history.db"
    with SqliteStore(db) as store:
        store.record_alerts([Alert("main", "tb", "BM_Total/pointer/65536", "instructions", "b" * 40, "regression",
                                   0.107, previous_commit="a" * 40, commit_range=("b" * 40,))])
        store.record_alerts([Alert("main", "tb", "BM_Total/pointer/65536", "instructions", "d" * 40, "improvement",
                                   -0.0965, previous_commit="c" * 40, commit_range=("d" * 40,))])
        alerts = {a.id: {"id": a.id} for a in store.alerts()}
    pg = story.Perfgate(f"sqlite:{db}", [])
    assert story.deliver(pg, tmp_path, alerts) is True
    printed = capsys.readouterr().out
    assert "the receiver got 3 message(s)" in printed        # raised, raised, closed
    # names are Slack inline code, printed as they are (perfgate.escape.slack_code)
    assert "`BM_Total/pointer/65536`" in printed and "\u2060" not in printed


def test_the_story_fails_loudly_on_a_missed_or_mispinned_change(tmp_path):
    import pytest

    story = _story()
    repo = tmp_path / "project"
    planted = story.make_project(repo)
    expected = {s.plant: s.expect for s in story.STORY if s.plant}
    magnitude = {"pointer copy ~10% slower": 0.106, "fix of the pointer copy": -0.0958}

    def alerts(**override):
        found = []
        for i, (plant, (bench, direction)) in enumerate(expected.items()):
            commit = override.get(plant, planted[plant])
            if commit is not None:
                found.append({"id": str(i), "benchmark": bench, "direction": direction, "commit": commit,
                              "magnitude": magnitude.get(plant, 0.01), "details": {}})
        return found

    results = story.verify(planted, alerts(), repo)
    assert [r["plant"] for r in results] == list(expected)
    with pytest.raises(story.DemoFailed, match="raised no alert"):
        story.verify(planted, alerts(**{"buffer tree +1% instructions": None}), repo)
    parent = subprocess.run(["git", "-C", str(repo), "rev-parse", f"{planted['deinit queue quadratic past 2,048 objects']}^"],
                            capture_output=True, text=True, check=True).stdout.strip()
    with pytest.raises(story.DemoFailed, match="was pinned to"):
        story.verify(planted, alerts(**{"deinit queue quadratic past 2,048 objects": parent}), repo)
    extra = alerts() + [{"id": "x", "benchmark": "other", "direction": "regression", "commit": parent,
                         "magnitude": 0.02, "details": {}}]
    with pytest.raises(story.DemoFailed, match="no planted change explains"):
        story.verify(planted, extra, repo)
    magnitude["fix of the pointer copy"] = -0.03
    with pytest.raises(story.DemoFailed, match="the fix leaves"):
        story.verify(planted, alerts(), repo)
