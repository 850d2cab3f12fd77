"""The Bencher store: publish, read back, bootstrap, start points, thresholds, spool and flush."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from fake_bencher.fixtures import TOKEN, VIEWER_TOKEN, commit, fake  # noqa: F401 - fixture
from fake_bencher.fixtures import make_run, make_store

from perfgate.bencher.client import BencherError
from perfgate.bencher.payload import StartPoint, idempotency_uuid
from perfgate.errors import StoreError
from perfgate.model import Metric, Run
from perfgate.model import Testbed as Bed
from perfgate.store import open_store
from perfgate.store.base import SeriesKey
from perfgate.store.bencher import BencherStore, parse_spec

LATENCY = SeriesKey("main", "ci-x86", "sort 1e6", "latency")


def test_store_is_selected_by_url(monkeypatch):
    monkeypatch.setenv("BENCHER_API_TOKEN", TOKEN)
    store = open_store("bencher+https://bencher.example:6610/api/my-project")
    assert isinstance(store, BencherStore) and store.project == "my-project"
    assert store.client.base_url == "https://bencher.example:6610/api"
    assert TOKEN not in repr(store) and TOKEN not in repr(store.client)
    with pytest.raises(Exception, match="BENCHER_API_TOKEN"):
        parse_spec("bencher+https://user:secret@host/p")
    with pytest.raises(Exception, match="project slug"):
        parse_spec("bencher+http://host:1/")


def test_publish_and_read_back(fake, tmp_path):
    store = make_store(fake, tmp_path)
    values = [100.0 + (i % 3) for i in range(8)]
    store.add_runs([make_run(i, v) for i, v in enumerate(values)])
    assert [o.status for o in store.last_outcomes] == ["published"] * 8
    assert store.series_keys() == [LATENCY]
    points = store.series(LATENCY)
    assert [p.value for p in points] == values
    assert [p.commit for p in points] == [commit(i) for i in range(8)]
    assert points[0].lower == pytest.approx(values[0] * 0.98) and points[0].samples == ()
    assert points == sorted(points, key=lambda p: p.time)
    newest = store.runs(limit=2)
    assert [r.commit for r in newest] == [commit(7), commit(6)] and newest[0].metrics == 1
    paged = list(store.client.iter_pages("/v0/projects/demo/reports", {"direction": "asc"}, per_page=3))
    assert [r["uuid"] for r in paged] == [r["uuid"] for r in fake.reports_of("demo")]  # pages 1..3, none twice
    assert len(store.runs()) == 8 and [r.commit for r in store.runs(limit=3)] == [commit(i) for i in (7, 6, 5)]
    run = store.get_run(newest[0].run_id)
    assert run.branch == "main" and run.testbed.name == "ci-x86" and run.metrics[0].value == values[7]
    assert store.series_keys(measure="instructions") == [] and store.series_keys(branch="nope") == []


def test_body_matches_the_run(fake, tmp_path):
    store = make_store(fake, tmp_path)
    run = make_run(3, 120.0, extra={"instructions": 5e6})
    store.add_runs([run])
    body = next(r["body"] for r in fake.requests if r["op"] == "run_post")
    assert body["branch"] == "main" and body["hash"] == commit(3) and body["testbed"] == "ci-x86"
    assert body["settings"] == {"adapter": "json"}
    assert json.loads(body["results"][0]) == {"sort 1e6": {
        "latency": {"value": 120.0, "lower_value": 120.0 * 0.98, "upper_value": 120.0 * 1.02},
        "instructions": {"value": 5e6}}}
    assert body["idempotency_key"] == idempotency_uuid("demo", run.idempotency_key)
    assert body["start_time"].endswith("Z") and "start_point" not in body


def test_same_run_twice_is_stored_once(fake, tmp_path):
    store = make_store(fake, tmp_path)
    store.add_runs([make_run(0, 100.0)])
    store.add_runs([make_run(0, 100.0)])
    assert len(fake.reports_of("demo")) == 1


def test_read_back_pages_around_the_255_combination_limit(fake, tmp_path):
    """130 benchmarks x 2 measures = 260 combinations: one perf request would silently lose
    some of them (the fake cuts like the real server); the store splits its queries."""
    metrics = [Metric(f"bench {i:03d}", m, float(i + 1)) for i in range(130) for m in ("latency", "instructions")]
    store = make_store(fake, tmp_path)
    store.add_runs([Run("demo", "main", commit(1), Bed("ci-x86"), metrics, start_time=1_750_000_000)])
    keys = store.series_keys()
    assert len(keys) == 260
    assert store.series(SeriesKey("main", "ci-x86", "bench 129", "instructions"))[0].value == 130.0
    perf_calls = [r for r in fake.requests if r["op"] == "proj_perf_get"]
    for call in perf_calls:
        n = 1
        for dim in ("branches", "testbeds", "benchmarks", "measures"):
            n *= len(call["query"][dim][0].split(","))
        assert n <= 255
    # The cut-off is real: asking for everything at once returns at most 255 series.
    dims = store._dimensions()
    doc = store.client.request("GET", "/v0/projects/demo/perf", params={
        d: ",".join(i["uuid"] for i in dims[d]) for d in ("branches", "testbeds", "benchmarks", "measures")})
    assert len(doc["results"]) <= 255 < len(keys)


def test_bootstrap_creates_project_and_measures_with_units(fake, tmp_path):
    store = make_store(fake, tmp_path, project="fresh-project")
    store.add_runs([make_run(0, 100.0, extra={"instructions": 1e6, "peak-rss": 4096.0})])
    project = fake.project("fresh-project")
    assert project is not None
    units = {m["name"]: m["units"] for m in fake.dims["measures"].values() if m["project"] == project["uuid"]}
    assert units["instructions"] == "instructions" and units["peak-rss"] == "bytes"
    created = [r["op"] for r in fake.requests if r["method"] == "POST"]
    assert created[:1] == ["org_project_post"] and created.count("proj_measure_post") == 2
    assert "proj_testbed_post" in created  # ci-x86 did not exist


def test_bootstrap_with_a_token_that_may_not_create(fake, tmp_path):
    make_store(fake, tmp_path).add_runs([make_run(0, 100.0)])  # project, main, ci-x86, latency exist
    viewer = make_store(fake, tmp_path, token=VIEWER_TOKEN)
    with pytest.raises(BencherError) as e:
        viewer.add_runs([make_run(1, 100.0, extra={"peak-rss": 1.0})])
    message = str(e.value)
    assert "lacks measure 'peak-rss'" in message and "may not create" in message and "HTTP 403" in message
    assert VIEWER_TOKEN not in message
    assert len(fake.reports_of("demo")) == 1
    missing = make_store(fake, tmp_path, token=VIEWER_TOKEN, project="no-such-project")
    with pytest.raises(BencherError, match="does not exist and the token may not create it"):
        missing.add_runs([make_run(1, 100.0)])


def test_pull_request_start_point(fake, tmp_path):
    store = make_store(fake, tmp_path, thresholds=_Stub({"latency": _Test("percentage", upper_boundary=0.1)}))
    store.add_runs([make_run(i, 100.0) for i in range(5)])
    store.start_point = StartPoint(branch="main", hash=commit(2), clone_thresholds=True)
    store.thresholds = None  # the PR inherits main's thresholds by cloning
    store.add_runs([make_run(10, 101.0, branch="pr-7", salt="pr")])
    body = [r["body"] for r in fake.requests if r["op"] == "run_post"][-1]
    assert body["start_point"] == {"branch": "main", "hash": commit(2), "clone_thresholds": True}
    pr = store.series(SeriesKey("pr-7", "ci-x86", "sort 1e6", "latency"))
    assert [p.commit for p in pr] == [commit(0), commit(1), commit(2), commit(10, "pr")]
    branches = {b["name"]: b["uuid"] for b in fake.dims["branches"].values()}
    assert any(k[0] == branches["pr-7"] for k in fake.thresholds)  # cloned from main
    # The same start point again keeps the branch's history; reset starts it over.
    store.add_runs([make_run(11, 102.0, branch="pr-7", salt="pr")])
    assert len(store.series(SeriesKey("pr-7", "ci-x86", "sort 1e6", "latency"))) == 5
    store.start_point = StartPoint(branch="main", reset=True)
    store.add_runs([make_run(12, 103.0, branch="pr-7", salt="pr")])
    after_reset = store.series(SeriesKey("pr-7", "ci-x86", "sort 1e6", "latency"))
    assert [p.commit for p in after_reset] == [commit(i) for i in range(5)] + [commit(12, "pr")]


class _Test(SimpleNamespace):
    def __init__(self, test, **kw):
        super().__init__(test=test, **{"min_sample_size": None, "max_sample_size": None, "window": None,
                                        "lower_boundary": None, "upper_boundary": None, "consecutive": 1, **kw})


class _Stub:
    """Stands in for perfgate.thresholds.Thresholds (measure_tests() and for_series().test)."""

    def __init__(self, tests):
        self.tests = tests

    def measure_tests(self):
        return self.tests

    def for_series(self, benchmark, measure):
        return SimpleNamespace(test=self.tests.get(measure))


def test_thresholds_become_bencher_models_and_alerts_come_back(fake, tmp_path):
    thresholds = _Stub({"latency": _Test("t_test", upper_boundary=0.99, min_sample_size=5, max_sample_size=64),
                        "instructions": _Test("percentage", upper_boundary=0.005),
                        "peak-rss": _Test("static", upper_boundary=1e9)})
    store = make_store(fake, tmp_path, thresholds=thresholds)
    quiet = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1]
    store.add_runs([make_run(i, v, extra={"instructions": 1e6}) for i, v in enumerate(quiet)])
    assert store.last_alerts == []
    models = [r["body"] for r in fake.requests if r["op"] == "run_post"][0]["thresholds"]["models"]
    assert models == {"latency": {"test": "t_test", "upper_boundary": 0.99, "min_sample_size": 5, "max_sample_size": 64},
                      "instructions": {"test": "percentage", "upper_boundary": 0.005}}  # peak-rss: not in the run
    store.add_runs([make_run(20, 130.0, extra={"instructions": 1.1e6})])
    alerts = {a.measure: a for a in store.last_alerts}
    assert set(alerts) == {"latency", "instructions"}
    lat = alerts["latency"]
    assert lat.limit == "upper" and lat.test == "t_test" and lat.confidence == 0.99
    assert lat.effect == pytest.approx(130.0 / (sum(quiet) / len(quiet)) - 1)
    assert alerts["instructions"].effect == pytest.approx(0.1) and alerts["instructions"].confidence is None
    assert "+10.0%" in alerts["instructions"].describe()


def test_real_threshold_files_map_onto_models(fake, tmp_path):
    from perfgate.thresholds import load_thresholds

    default = Path(__file__).resolve().parents[1] / "thresholds" / "default.toml"
    store = make_store(fake, tmp_path, thresholds=load_thresholds(default))
    store.add_runs([make_run(0, 100.0, extra={"instructions": 1e6})])
    models = [r["body"] for r in fake.requests if r["op"] == "run_post"][0]["thresholds"]["models"]
    expected = load_thresholds(default).measure_tests()
    assert set(models) == {"latency", "instructions"}
    for name, model in models.items():
        assert model["test"] == expected[name].test
        assert model.get("upper_boundary") == expected[name].upper_boundary


def test_spool_while_down_then_flush_in_order_exactly_once(fake, tmp_path):
    store = make_store(fake, tmp_path)
    store.add_runs([make_run(0, 100.0)])
    fake.down = True
    store.add_runs([make_run(i, 100.0 + i) for i in range(1, 6)])
    assert [o.status for o in store.last_outcomes] == ["spooled"] * 5
    spooled = sorted((tmp_path / "spool").glob("*.json"))
    assert len(spooled) == 5 and not list((tmp_path / "spool").glob(".tmp-*"))
    assert [json.loads(p.read_text())["body"]["hash"] for p in spooled] == [commit(i) for i in range(1, 6)]
    for p in spooled:
        assert TOKEN not in p.read_text()
    # Still down: a new run joins the end of the spool instead of jumping the queue.
    store.add_runs([make_run(6, 106.0)])
    assert store.last_outcomes[0].status == "spooled"
    fake.down = False
    # Recovery, with one more fault: the answer to a spooled run is lost after it was stored.
    fake.inject("drop_after", method="POST", path="/v0/run")
    store.add_runs([make_run(7, 107.0)])
    assert [o.hash for o in store.last_flush.sent] == [commit(i) for i in range(1, 7)]
    assert store.last_outcomes[0].status == "published"
    reports = fake.reports_of("demo")
    assert [r["version"]["hash"] for r in reports] == [commit(i) for i in range(8)]  # in order, once each
    assert not list((tmp_path / "spool").glob("*.json"))
    assert [p.value for p in store.series(LATENCY)] == [100.0 + i for i in range(8)]


def test_spool_entry_refused_on_flush_is_moved_aside(fake, tmp_path):
    store = make_store(fake, tmp_path)
    fake.down = True
    bad = make_run(1, 100.0)
    bad.commit = "zz-not-a-hash"
    store.add_runs([bad, make_run(2, 100.0)])
    fake.down = False
    result = store.flush()
    assert len(result.rejected) == 1 and "Failed to parse git hash" in result.rejected[0][1]
    assert [o.hash for o in result.sent] == [commit(2)]
    assert len(list((tmp_path / "spool" / "rejected").glob("*.json"))) == 1


def test_corrupt_spool_entry_is_named(fake, tmp_path):
    store = make_store(fake, tmp_path)
    (tmp_path / "spool").mkdir()
    broken = tmp_path / "spool" / "00000000000000000001-000000-abc.json"
    broken.write_text('{"format": 1, "target": ')
    result = store.flush()   # set aside with its reason: the entries behind it are not blocked
    [(path, reason)] = result.rejected
    assert path.endswith(f"rejected/{broken.name}") and "unreadable spool entry" in reason
    assert not broken.exists()


def test_change_point_detection_runs_on_bencher_history(fake, tmp_path):
    import random

    from perfgate.detect.changepoint import detect_change_points

    rng = random.Random(3)
    values = [100.0 * (1.12 if i >= 25 else 1.0) * rng.lognormvariate(0, 0.02) for i in range(40)]
    store = make_store(fake, tmp_path)
    store.add_runs([make_run(i, v) for i, v in enumerate(values)])
    fresh = make_store(fake, tmp_path)  # a new process reading the history back
    (key,) = fresh.series_keys()
    points = fresh.series(key)
    assert [p.value for p in points] == values
    (cp,) = detect_change_points([p.value for p in points])
    assert abs(cp.index - 25) <= 1 and cp.direction == "regression"
    assert cp.ci_low < 0.12 < cp.ci_high and points[cp.index].commit == commit(cp.index)


def test_alerts_from_bencher_and_perfgate_alert_memory(fake, tmp_path):
    from perfgate.model import Alert

    store = make_store(fake, tmp_path, thresholds=_Stub({"latency": _Test("percentage", upper_boundary=0.05)}))
    store.add_runs([make_run(i, 100.0) for i in range(4)] + [make_run(4, 120.0)])
    (bencher_alert,) = store.alerts()
    assert bencher_alert.kind == "threshold" and bencher_alert.direction == "regression"
    assert bencher_alert.commit == commit(4) and bencher_alert.magnitude == pytest.approx(0.2)
    assert bencher_alert.details["source"] == "bencher" and bencher_alert.status == "active"
    change = Alert("main", "ci-x86", "sort 1e6", "latency", commit(4), "regression", 0.2, 0.15, 0.25, 1e-4,
                   commit_range=(commit(3), commit(4)))
    assert len(store.record_alerts([change])) == 1
    again = Alert("main", "ci-x86", "sort 1e6", "latency", commit(3), "regression", 0.2)
    assert store.unrecorded([again]) == [] and again.id == change.id   # detect shows it "known" by its id
    again.id = ""
    assert store.record_alerts([again]) == []  # the same change alerts once
    assert again.id == change.id
    # One regression, listed once: perfgate's change point, carrying Bencher's alert id.
    (listed,) = make_store(fake, tmp_path).alerts(status="active")
    assert listed.kind == "change_point" and listed.details["bencher_alerts"] == [bencher_alert.id]
    store.acknowledge(change.id)                       # acknowledging it dismisses Bencher's too
    assert fake.alerts[0]["status"] == "dismissed"
    assert store.alerts(status="active") == []
    with pytest.raises(Exception, match="no alert"):
        store.acknowledge("00000000-0000-4000-8000-000000000000")


def test_measures_read_back_by_slug_keep_a_stated_direction(fake, tmp_path):
    """Bencher's built-in ``Latency`` reads back as ``latency``; a name that states its direction
    (``ops (bigger is better)``, slug ``ops-bigger-is-better``) reads back as that name."""
    from perfgate.model import Measure

    store = make_store(fake, tmp_path)
    store.add_runs([make_run(i, 100.0, extra={"ops (bigger is better)": 5.0 + i}) for i in range(3)])
    assert {k.measure for k in store.series_keys()} == {"latency", "ops (bigger is better)"}
    assert not Measure.named("ops (bigger is better)").lower_is_better
    assert [p.value for p in store.series(SeriesKey("main", "ci-x86", "sort 1e6", "ops (bigger is better)"))] == \
        [5.0, 6.0, 7.0]


def test_one_value_past_bencher_limit_is_no_alert_where_the_measure_wants_two_in_a_row(fake, tmp_path):
    # Bencher alerts on every value past its limit; perfgate's wall time wants two in a row
    # (``consecutive = 2``), so one noisy run paged people through a Bencher store but not SQLite.
    twice = _Stub({"latency": _Test("percentage", upper_boundary=0.05, consecutive=2)})
    store = make_store(fake, tmp_path, thresholds=twice)
    store.add_runs([make_run(i, 100.0) for i in range(4)] + [make_run(4, 120.0), make_run(5, 100.0)])
    assert len(fake.alerts) == 1 and store.alerts() == []            # one noisy value, then back
    store.add_runs([make_run(6, 120.0)])
    assert store.alerts() == []                                       # the newest: one so far
    store.add_runs([make_run(7, 121.0)])
    (alert,) = store.alerts()                                         # two in a row: a regression
    assert alert.commit == commit(6) and alert.commit_range == (commit(6), commit(7))
    once = make_store(fake, tmp_path, thresholds=_Stub({"latency": _Test("percentage", upper_boundary=0.05)}))
    assert len(once.alerts()) == 2                                    # consecutive = 1: each streak


def test_a_change_raised_again_after_the_alert_memory_is_lost_keeps_its_id(fake, tmp_path):
    # perfgate's own alerts on a Bencher store live in a file beside the spool; a job without it
    # (a fresh checkout) raised every known change again under new ids, and notify paged again.
    from perfgate.model import Alert

    def change():
        return Alert("main", "ci-x86", "sort 1e6", "latency", commit(4), "regression", 0.2, 0.15, 0.25, 1e-4,
                     commit_range=(commit(3), commit(4)))

    (first,) = make_store(fake, tmp_path).record_alerts([change()])
    (elsewhere,) = make_store(fake, tmp_path / "fresh-checkout").record_alerts([change()])
    assert elsewhere.id == first.id
    other = make_store(fake, tmp_path / "x", project="other")
    (another_project,) = other.record_alerts([change()])
    assert another_project.id != first.id


def test_bencher_alerts_on_a_checks_branches_are_not_listed(fake, tmp_path):
    """``check --store bencher+…`` records its sides on check/REF branches, and Bencher alerts on
    them as on any series; detect and the pages leave those branches out, but alerts listed them
    and notify sent "Performance regression … on check/HEAD" to people."""
    store = make_store(fake, tmp_path, thresholds=_Stub({"latency": _Test("percentage", upper_boundary=0.05)}))
    for branch in ("main", "check/HEAD"):
        store.add_runs([make_run(i, 100.0, branch=branch, salt=branch) for i in range(4)]
                       + [make_run(4, 120.0, branch=branch, salt=branch)])
    assert len(fake.alerts) == 2                       # Bencher raised one on each branch
    (listed,) = make_store(fake, tmp_path).alerts()
    assert listed.branch == "main"


def test_acknowledge_refused_on_bencher_leaves_nothing_acknowledged_here(fake, tmp_path):
    # The local acknowledgement was written before the PATCH: a 403 (read-only token) exited 2
    # with the alert acknowledged here and Bencher's still active.
    from perfgate.model import Alert

    store = make_store(fake, tmp_path, thresholds=_Stub({"latency": _Test("percentage", upper_boundary=0.05)}))
    store.add_runs([make_run(i, 100.0) for i in range(4)] + [make_run(4, 120.0)])
    change = Alert("main", "ci-x86", "sort 1e6", "latency", commit(4), "regression", 0.2, 0.15, 0.25, 1e-4,
                   commit_range=(commit(3), commit(4)))
    store.record_alerts([change])
    fake.inject("status", method="PATCH", path="/v0/projects/demo/alerts/", status=403)
    with pytest.raises(Exception, match="HTTP 403"):
        make_store(fake, tmp_path).acknowledge(change.id)
    assert fake.alerts[0]["status"] == "active"
    (listed,) = make_store(fake, tmp_path).alerts(status="active")
    assert listed.id == change.id and listed.status == "active"
    make_store(fake, tmp_path).acknowledge(change.id)          # the rerun finishes the job
    assert fake.alerts[0]["status"] == "dismissed" and store.alerts(status="active") == []


def test_forget_archives_a_benchmark_only_with_all_its_series(fake, tmp_path):
    # The store's own guard, beside forget's refusal of --measure/--branch/--testbed: Bencher
    # archives a benchmark on every branch, testbed and measure, so fewer series are refused.
    store = make_store(fake, tmp_path)
    store.add_runs([make_run(i, 100.0, extra={"instructions": 5e6}) for i in range(3)])
    keys = store.series_keys(benchmark="sort 1e6")
    assert len(keys) == 2 and not store.retired("sort 1e6")
    with pytest.raises(StoreError, match="1 of the 2 series of benchmark 'sort 1e6' given"):
        store.forget([], [LATENCY])
    assert not [r for r in fake.requests if r["method"] == "PATCH"]
    assert store.forget([], keys) == []
    assert [(r["op"], r["body"]) for r in fake.requests if r["method"] == "PATCH"] == \
        [("proj_benchmark_patch", {"archived": True})]
    assert store.series_keys() == [] and store.series(LATENCY) == [] and store.retired("sort 1e6")
    store.forget([], keys)      # archived already: nothing left to send, nothing to refuse
    assert len([r for r in fake.requests if r["method"] == "PATCH"]) == 1


def test_a_report_left_with_only_archived_results_is_no_run(fake, tmp_path):
    store = make_store(fake, tmp_path)
    store.add_runs([make_run(i, 100.0) for i in range(2)])
    run_id, keys = store.runs()[0].run_id, store.series_keys()
    full_key = store.get_run(run_id).with_key().idempotency_key
    store.forget([], keys)
    assert store.runs() == [] and store.get_run(run_id).metrics == []
    assert store.get_run(run_id).idempotency_key == full_key      # still named by what it held
    marks = store.forgotten()
    assert len(marks) == 2 and all(m.whole_run and m.time for m in marks) and full_key in {m.run_key for m in marks}


def test_compare_by_commit_takes_that_commits_runs(fake, tmp_path, cli):
    """`compare --base-commit` on a Bencher store: the run(s) recorded at that commit on the head's
    testbed, not the branch's newest (each report carries its own version's hash)."""
    store = make_store(fake, tmp_path)
    store.add_runs([make_run(i, 100.0 + i) for i in range(6)] + [make_run(i, 100.0, testbed="arm") for i in range(3)])
    at = {(r.commit, r.testbed): r.run_id for r in store.runs()}
    env = {"BENCHER_API_TOKEN": TOKEN, "PERFGATE_SPOOL": str(tmp_path / "spool")}
    proc = cli("compare", "--store", f"bencher+{fake.url}/demo", "--base-commit", commit(2)[:8], "--head-commit",
               commit(4), "--json", env=env)
    doc = json.loads(proc.stdout)
    assert (doc["base"]["commit"], doc["base"]["runs"]) == (commit(2), [at[commit(2), "ci-x86"]]), proc.stderr
    assert (doc["head"]["commit"], doc["head"]["runs"]) == (commit(4), [at[commit(4), "ci-x86"]])


def test_the_report_list_holds_results_only_when_expanded(fake, tmp_path):
    """As the contract says (proj_reports_get, ``expand``): the list gives each report's counts,
    and its results and alerts only with expand=true; runs() asks for them."""
    store = make_store(fake, tmp_path)
    store.add_runs([make_run(0, 100.0, extra={"instructions": 1e6})])
    (light,) = store.client.request("GET", "/v0/projects/demo/reports", expect=list)
    assert "results" not in light and "alerts" not in light
    assert light["counts"] == {"alerts": {"active": 0, "total": 0}, "results": [{"benchmarks": 1, "measures": 2}]}
    (full,) = store.client.request("GET", "/v0/projects/demo/reports", params={"expand": True}, expect=list)
    assert len(full["results"][0][0]["measures"]) == 2 and full["alerts"] == []
    assert store.runs()[0].metrics == 2
    assert fake.requests[-1]["query"]["expand"] == ["true"]


def test_a_report_listed_without_results_is_summed_from_its_counts(fake, tmp_path):
    """A server that leaves the results out even when asked (older or newer than the contract):
    each run is still listed, its metrics counted from ``counts`` (an upper bound)."""
    store = make_store(fake, tmp_path)
    store.add_runs([make_run(i, 100.0, extra={"instructions": 1e6}) for i in range(2)])
    with fake.lock:
        listed = [{k: v for k, v in fake.render_report(r).items() if k not in ("results", "alerts")}
                  for r in reversed(fake.reports_of("demo"))]
    fake.inject("reply", method="GET", path="/v0/projects/demo/reports", status=200, body=listed)
    runs = store.runs()
    assert [(r.run_id, r.commit, r.metrics) for r in runs] == [(listed[0]["uuid"], commit(1), 2),
                                                              (listed[1]["uuid"], commit(0), 2)]
    assert [r.commit for r in store.runs()] == [commit(1), commit(0)]     # the real listing agrees
