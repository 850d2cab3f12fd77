"""`perfgate detect` tests each series again where its siblings (same branch and testbed) changed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store.sqlite import SqliteStore
from test_detect_incremental import add as add_runs
from test_detect_incremental import without_alert_state


def add(store_path, start: int, count: int, values: dict[str, np.ndarray], testbed: str = "tb") -> None:
    """As test_detect_incremental.add, with the same commits on every testbed (c0000, c0001, ...)."""
    add_runs(store_path, start, count, values, testbed, commits="c{i:04d}")


def suite(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``a`` steps +10% at commit 100 in 1% noise; ``b`` only +2.5% at the same commit in 5% noise,
    too little for a search over its 200 runs to show."""
    rng = np.random.default_rng(seed)
    a = 1e6 * (1 + 0.01 * rng.standard_normal(200))
    a[100:] *= 1.10
    b = 1e6 * (1 + 0.05 * rng.standard_normal(200))
    b[100:] *= 1.025
    return a, b


def changes(data: dict, benchmark: str) -> list[dict]:
    return [c for s in data["series"] if s["benchmark"] == benchmark for c in s["change_points"]]


def test_a_weak_step_where_a_sibling_changed_is_found_and_names_the_sibling(cli, store_path):
    a, b = suite()
    add(store_path, 0, 200, {"a": a, "b": b})
    alone = json.loads(cli("detect", "--benchmark", "b", "--no-record", "--json", check=True).stdout)
    assert changes(alone, "b") == []                  # the series alone shows nothing
    proc = cli("detect", "--json")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    [ca] = changes(data, "a")
    [cb] = changes(data, "b")
    assert ca["first_commit"] == cb["first_commit"] == "c0100"
    assert "siblings" not in ca and cb["siblings"] == ["a [latency]"]
    assert cb["p_value"] <= 0.01 and cb["direction"] == "regression" and 0 < cb["ci_low"] < cb["magnitude"]
    [alert] = [x for x in data["new_alerts"] if x["benchmark"] == "b"]
    assert alert["commit"] == "c0100" and alert["details"]["siblings"] == ["a [latency]"]
    assert "inflation" not in data["series"][0] and "siblings_mark" not in data["series"][0]
    table = cli("detect", "--no-record", "--full").stdout
    assert "where 1 sibling(s) changed" in " ".join(table.split())


def test_siblings_share_the_branch_and_the_testbed(cli, store_path):
    a, b = suite()
    add(store_path, 0, 200, {"a": a}, "tb1")
    add(store_path, 0, 200, {"b": b}, "tb2")
    data = json.loads(cli("detect", "--json", "--no-record").stdout)
    assert len(changes(data, "a")) == 1 and changes(data, "b") == []


def runs(start: int, stop: int, values: dict[str, np.ndarray]) -> list[Run]:
    return [Run("default", "main", f"c{i:04d}", Bed("tb"), [Metric(k, "latency", float(v[i])) for k, v in values.items()],
                start_time=1_700_000_000.0 + i) for i in range(start, stop)]


def test_a_kept_series_is_tested_again_when_its_siblings_changes_change(cli, store_path):
    a, b = suite()
    with SqliteStore(store_path) as store:            # b has run every commit; a only the first 100
        store.add_runs(runs(0, 100, {"a": a, "b": b}) + runs(100, 200, {"b": b}))
    assert cli("detect").returncode == 0
    with SqliteStore(store_path) as store:            # a's runs of the later commits come in:
        store.add_runs(runs(100, 200, {"a": a}))      # b gets no new run, but a now steps
    first = json.loads(cli("detect", "--json").stdout)
    [cb] = changes(first, "b")
    assert cb["first_commit"] == "c0100" and cb["siblings"] == ["a [latency]"] and cb["alert"]["new"] is True
    with SqliteStore(store_path) as store:            # one more run of a: its change stays, b is kept
        store.add_runs([Run("default", "main", "c0200", Bed("tb"), [Metric("a", "latency", float(a[-1]))],
                            start_time=1_700_000_200.0)])
    second = json.loads(cli("detect", "--json").stdout)
    [kept] = changes(second, "b")
    assert kept["first_commit"] == "c0100" and kept["alert"]["new"] is False and second["new_alerts"] == []
    full = json.loads(cli("detect", "--json", "--full", "--no-record").stdout)
    assert without_alert_state(full) == without_alert_state(second)


def test_a_series_too_short_to_search_is_still_reported_and_tested(cli, store_path):
    # A benchmark added lately (3 runs) beside one with a change: nothing to search in it, and
    # its report comes out all the same.
    a, b = suite()
    with SqliteStore(store_path) as store:
        store.add_runs(runs(0, 197, {"a": a}) + runs(197, 200, {"a": a, "b": b}))
    proc = cli("detect", "--json", "--no-record")
    assert proc.returncode == 1, proc.stderr       # a's +10% would be a new regression alert
    data = json.loads(proc.stdout)
    assert len(changes(data, "a")) == 1 and changes(data, "b") == []
    assert {s["benchmark"]: s["points"] for s in data["series"]} == {"a": 200, "b": 3}


def test_a_step_found_where_a_sibling_changed_pays_for_every_sibling_tested_there(cli, store_path):
    # The same two series, once alone on a testbed and once beside 40 quiet benchmarks: each of
    # them is tested at a's change too, and one commit's change must not buy a false alert in
    # one of them, so b's p-value pays for all 42 series tested there, not 2 (halved, as one of
    # them found the change: the step-up bound of
    # test_the_more_siblings_found_a_change_the_less_a_place_costs) — and none of the quiet ones
    # reports a change.
    a, b = suite()
    rng = np.random.default_rng(11)
    quiet = {f"q{k:02d}": 1e6 * (1 + 0.02 * rng.standard_normal(200)) for k in range(40)}
    add(store_path, 0, 200, {"a": a, "b": b}, "small")
    add(store_path, 0, 200, {"a": a, "b": b, **quiet}, "large")
    data = json.loads(cli("detect", "--json", "--no-record").stdout)
    found = {(s["testbed"], s["benchmark"]): cps for s in data["series"]
             if (cps := [c for c in s["change_points"] if c["kind"] == "change_point"])}
    assert set(found) == {("small", "a"), ("small", "b"), ("large", "a"), ("large", "b")}
    [small], [large] = found[("small", "b")], found[("large", "b")]
    assert small["index"] == large["index"] and large["p_value"] == pytest.approx(21 * small["p_value"])


def test_the_more_siblings_found_a_change_the_less_a_place_costs(cli, store_path):
    # b beside three siblings: once where one of them found the change at commit 100 and two are
    # quiet, once where all three found it.  Four series are tested either way; b's p-value pays
    # for 4 / 2 of them in the first and 4 / 4 in the second (Benjamini-Hochberg's bound).
    a, b = suite()
    rng = np.random.default_rng(5)
    quiet = [1e6 * (1 + 0.01 * rng.standard_normal(200)) for _ in range(2)]
    strong = [q.copy() for q in quiet]
    for s in strong:
        s[100:] *= 1.10
    add(store_path, 0, 200, {"a": a, "b": b, "q1": quiet[0], "q2": quiet[1]}, "one")
    add(store_path, 0, 200, {"a": a, "b": b, "s1": strong[0], "s2": strong[1]}, "three")
    data = json.loads(cli("detect", "--json", "--no-record").stdout)
    found = {s["testbed"]: s["change_points"] for s in data["series"] if s["benchmark"] == "b"}
    [one], [three] = found["one"], found["three"]
    assert one["siblings"] == ["a [latency]"] and three["siblings"] == ["a [latency]", "s1 [latency]", "s2 [latency]"]
    assert one["index"] == three["index"] and three["p_value"] == pytest.approx(one["p_value"] / 2)


def test_what_a_detect_saves_is_each_series_own_report(cli, store_path):
    # The weak series sorts first here and is re-tested while the strong one is not: each report
    # must still be saved under its own series (a later detect keeps them as they were).
    strong, weak = suite()
    add(store_path, 0, 200, {"a-weak": weak, "b-strong": strong})
    first = json.loads(cli("detect", "--json").stdout)
    assert changes(first, "a-weak")[0]["siblings"] == ["b-strong [latency]"]
    with SqliteStore(store_path) as store:
        saved = {k.benchmark: report for k, (_, report) in store.detect_state()[1].items()}
    assert {b: r["benchmark"] for b, r in saved.items()} == {"a-weak": "a-weak", "b-strong": "b-strong"}
    again = json.loads(cli("detect", "--json").stdout)
    assert without_alert_state(again) == without_alert_state(first)


def test_a_kept_series_re_tested_is_saved_with_what_it_found(cli, store_path):
    a, b = suite()
    with SqliteStore(store_path) as store:
        store.add_runs(runs(0, 100, {"a": a, "b": b}) + runs(100, 200, {"b": b}))
    cli("detect", check=True)
    with SqliteStore(store_path) as store:
        store.add_runs(runs(100, 200, {"a": a}))      # only a has new runs; b is re-tested, kept
    assert cli("detect").returncode == 1
    with SqliteStore(store_path) as store:
        saved = {k.benchmark: report for k, (_, report) in store.detect_state()[1].items()}
    assert [(c["first_commit"], c.get("siblings")) for c in saved["b"]["change_points"]] == [("c0100", ["a [latency]"])]
    assert saved["b"]["siblings_mark"] == saved["a"]["siblings_mark"] != ""


def test_the_alerts_table_says_which_alerts_were_found_where_siblings_changed(cli, store_path):
    a, b = suite()
    add(store_path, 0, 200, {"a": a, "b": b})
    assert cli("detect").returncode == 1
    rows = [line for line in cli("alerts", check=True, env={"COLUMNS": "200"}).stdout.splitlines()
            if "c0100" in line]
    assert len(rows) == 2
    assert [("(siblings)" in line) for line in sorted(rows, key=lambda r: " b " in r)] == [False, True]


def test_a_change_found_alone_a_few_runs_off_is_placed_at_the_siblings_commit(cli, store_path):
    # b steps +2.5% at commit 100 in 2% noise: its search finds the step alone, at c0106; a steps
    # +10% at c0100.  c0100 explains b's step as well, so b's change is placed there, naming a
    # and keeping where it was found alone; its range still holds c0106.
    a, _ = suite()
    b = 1e6 * (1 + 0.02 * np.random.default_rng(54).standard_normal(200))
    b[100:] *= 1.025
    add(store_path, 0, 200, {"b": b})
    dry = cli("detect", "--no-record", "--json")
    assert dry.returncode == 1, dry.stderr         # a regression a detect would alert on, recorded or not
    alone = json.loads(dry.stdout)
    assert [c["first_commit"] for c in changes(alone, "b")] == ["c0106"]
    add(store_path, 0, 200, {"a": a})
    proc = cli("detect", "--json")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    [cb] = changes(data, "b")
    assert cb["first_commit"] == "c0100" and cb["placed_with"] == ["a [latency]"] and "siblings" not in cb
    assert cb["commit_range"][0] == "c0100" and "c0106" in cb["commit_range"] and cb["p_value"] <= 0.01
    assert cb["found_alone"]["first_commit"] == "c0106"
    [alert] = [x for x in data["new_alerts"] if x["benchmark"] == "b"]
    assert alert["commit"] == "c0100" and alert["details"]["placed_with"] == ["a [latency]"]
    # nothing new: the same reports, no alert raised again; a full detect agrees
    again = json.loads(cli("detect", "--json", check=True).stdout)
    assert without_alert_state(again) == without_alert_state(data) and again["new_alerts"] == []
    full = json.loads(cli("detect", "--json", "--full", "--no-record", check=True).stdout)
    assert without_alert_state(full) == without_alert_state(data)
    table = cli("detect", "--no-record", "--full").stdout
    assert "placed where 1 sibling(s)" in " ".join(table.split())


def test_a_change_alerted_alone_and_placed_later_is_not_raised_again(cli, store_path):
    # b's step is alerted at c0106, where its search alone puts it; a's runs of the later commits
    # come in, with a's step at c0100.  b's change is placed there, and its alert, whose range
    # now holds c0106 too, is the one already raised.
    a, _ = suite()
    b = 1e6 * (1 + 0.02 * np.random.default_rng(54).standard_normal(200))
    b[100:] *= 1.025
    with SqliteStore(store_path) as store:
        store.add_runs(runs(0, 100, {"a": a, "b": b}) + runs(100, 200, {"b": b}))
    first = json.loads(cli("detect", "--json").stdout)
    assert [(x["benchmark"], x["commit"]) for x in first["new_alerts"]] == [("b", "c0106")]
    with SqliteStore(store_path) as store:
        store.add_runs(runs(100, 200, {"a": a}))
    second = json.loads(cli("detect", "--json").stdout)
    [cb] = changes(second, "b")
    assert cb["first_commit"] == "c0100" and cb["placed_with"] == ["a [latency]"] and cb["alert"]["new"] is False
    assert [(x["benchmark"], x["commit"]) for x in second["new_alerts"]] == [("a", "c0100")]
    # the alert raised at c0106 now names c0100, as the report does, and keeps its id
    with SqliteStore(store_path) as store:
        [alert] = [x for x in store.alerts() if x.benchmark == "b"]
    assert alert.id == first["new_alerts"][0]["id"] and alert.commit == "c0100"
    assert alert.placed_with == ["a [latency]"] and alert.details["superseded"] == "found alone at c0106"
    assert "c0106" in alert.commit_range
    rows = [line for line in cli("alerts", env={"COLUMNS": "200"}).stdout.splitlines() if " b " in line]
    assert rows and "change point (placed)" in rows[0]


def test_two_weak_steps_found_apart_are_placed_together_where_both_are_likeliest(cli, store_path):
    # b and c both step +2.5% at commit 100 in 2% noise.  Alone, b's search names c0097 and c's
    # c0107, neither within the other's range; their likelihoods together are largest at c0100,
    # where each is placed, naming the other.  Where each could be is saved for the next detect,
    # not printed.
    rng = np.random.default_rng(3)
    b, c = (1e6 * (1 + 0.02 * rng.standard_normal(200)) for _ in range(2))
    b[100:] *= 1.025
    c[100:] *= 1.025
    add(store_path, 0, 200, {"b": b, "c": c})
    data = json.loads(cli("detect", "--json").stdout)
    [cb], [cc] = changes(data, "b"), changes(data, "c")
    assert (cb["first_commit"], cb["found_alone"]["first_commit"], cb["placed_with"]) == ("c0100", "c0097", ["c [latency]"])
    assert (cc["first_commit"], cc["found_alone"]["first_commit"], cc["placed_with"]) == ("c0100", "c0107", ["b [latency]"])
    assert all("likelihoods" not in s for s in data["series"])
    with SqliteStore(store_path) as store:
        saved = {k.benchmark: report for k, (_, report) in store.detect_state()[1].items()}
    first, last, values = saved["b"]["likelihoods"]["c0097"]
    assert int(first[1:]) <= 97 <= int(last[1:]) and len(values) == int(last[1:]) - int(first[1:]) + 1
    assert values[97 - int(first[1:])] == 0.0 and min(values) >= -20.0
    full = json.loads(cli("detect", "--json", "--full", "--no-record", check=True).stdout)
    assert without_alert_state(full) == without_alert_state(data)
