"""Trend pages, without a browser: a step in history shows up as a regression, sweeps are fitted
per commit with their knee, names are escaped, the feed is valid Atom, bad input writes nothing.
(tests/test_pages_browser.py drives the same site in Chromium.)"""

from __future__ import annotations

import json
import math
import random
import re
import xml.etree.ElementTree as ET

import numpy as np
import orjson
import pytest

from pages_data import BENCH, BRANCH_PR, HOSTILE, KNEE_FROM, RUNS, STEP_AT, SWEEP, SWEEP_COMMITS, build, commit
from perfgate.detect.threshold_tests import evaluate_series
from perfgate.report.pages import _compact, read_page
from perfgate.report.threshold_band import bands
from perfgate.thresholds import ThresholdTest

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def history(store_path):
    build(store_path)
    return store_path


def _js(path) -> object:
    text = path.read_text(encoding="utf-8")
    m = re.fullmatch(r"window\.(PERFGATE_\w+)=(.*);\n", text, re.S)
    assert m, f"{path} is not one global assignment"
    return json.loads(m.group(2))


def test_pages_show_the_step_as_a_regression(history, tmp_path, cli):
    site = tmp_path / "site"
    proc = cli("pages", "--out", str(site), "--json", check=True)
    counts = json.loads(proc.stdout)
    # 2 testbeds × (parse latency, parse instructions, steady, hostile) + pr branch × (parse, steady)
    assert counts == {"out": str(site), "series": 10, "benchmarks": 3, "sweeps": 2, "regressions": 4,
                      "improvements": 0, "alerts_not_found": 0}

    data = json.loads((site / "data.json").read_text())
    parse = next(s for s in data if s["benchmark"] == BENCH and s["measure"] == "latency"
                 and s["branch"] == "main" and s["testbed"] == "tb")
    [cp] = parse["change_points"]
    assert cp["index"] == STEP_AT and cp["direction"] == "regression"
    assert cp["first_commit"] == commit(STEP_AT)
    assert 0.25 < cp["magnitude"] < 0.35 and cp["ci_low"] < cp["magnitude"] < cp["ci_high"]
    assert cp["ci_level"] == 0.99           # the change point settings' confidence, which its texts name
    assert parse["state"] == "alert" and parse["alerts"] == 1          # the recorded alert is open
    assert not next(s for s in data if s["benchmark"] == "steady" and s["branch"] == "main")["change_points"]
    assert not any("values=" in s["benchmark"] for s in data)          # sweep points are on their own page
    # The index lists open alerts first, then regressions, then the rest.
    states = [s["state"] for s in data]
    assert states == sorted(states, key=["alert", "regression", "improvement", "stable"].index)
    assert states[:4] == ["alert", "regression", "regression", "regression"]

    swept = json.loads(cli("pages", "--out", str(site), "--json", "--include-sweeps", check=True).stdout)
    assert swept["series"] == 10 + 2 * 3 * 13

    feed = ET.parse(site / "regressions.xml").getroot()
    titles = [e.find(f"{ATOM}title").text for e in feed.findall(f"{ATOM}entry")]
    assert len(titles) == 4 and any(t.startswith(f"{BENCH} [latency] +") for t in titles)
    summaries = [e.find(f"{ATOM}summary").text for e in feed.findall(f"{ATOM}entry")]
    assert all(re.match(r"[+-]\d+\.\d\d% \(99% CI \[[+-]\d+\.\d\d%, [+-]\d+\.\d\d%\]\), ", t) for t in summaries), summaries
    assert (site / "index.html").stat().st_mode & 0o044 and (site / "data" / "index.js").stat().st_mode & 0o044


def test_the_index_carries_summaries_and_each_page_only_its_own_points(history, tmp_path, cli):
    site = tmp_path / "site"
    cli("pages", "--out", str(site), "--repo-url", "https://github.com/OWNER/REPO/", check=True)
    index = _js(site / "data" / "index.js")
    assert index["repo_url"] == "https://github.com/OWNER/REPO"
    rows = [dict(zip(index["columns"], r)) for r in index["rows"]]
    assert all(len(r["spark"]) <= 30 and all(v is None or 0 <= v <= 99 for v in r["spark"]) for r in rows)
    commits = _js(site / "data" / "commits.js")
    pages = {p.stem: read_page(p.read_bytes(), commits) for p in (site / "data" / "b").glob("*.js")}
    assert {r["page"] for r in rows} == set(pages)
    page = pages[next(r["page"] for r in rows if r["benchmark"] == BENCH)]
    assert page["benchmark"] == BENCH
    assert {(s["branch"], s["testbed"], s["measure"]) for s in page["series"]} == {
        ("main", "tb", "latency"), ("main", "arm <i>64</i>", "latency"), ("main", "tb", "instructions"),
        ("main", "arm <i>64</i>", "instructions"), ("pr/<b>evil</b>", "tb", "latency")}
    main = next(s for s in page["series"] if (s["branch"], s["testbed"], s["measure"]) == ("main", "tb", "latency"))
    assert len(main["value"]) == RUNS and main["n"][0] == 5 and main["lower"][0] < main["value"][0] < main["upper"][0]
    assert page["runs"]["commit"][main["run"][STEP_AT]] == commit(STEP_AT)
    assert page["runs"]["time"][main["run"][0]] == "2023-11-14T22:13:20Z"
    instructions = next(s for s in page["series"] if s["measure"] == "instructions")
    assert "lower" not in instructions and "n" not in instructions      # no interval, one sample: left out
    # The limits start again at the change point, as detect's threshold test does: the newest
    # value is drawn against the limit detect judged it by (they were the old level's before).
    assert main["band"]["test"] == "t_test" and STEP_AT not in main["band"]["breach"]
    assert main["band"]["upper"][STEP_AT] is None and main["band"]["upper"][STEP_AT - 1] is not None
    judged = json.loads(cli("detect", "--no-record", "--json", "--branch", "main", "--testbed", "tb").stdout)
    [series] = [s for s in judged["series"] if (s["benchmark"], s["measure"]) == (BENCH, "latency")]
    # a limit is only drawn: to a 20,000th of what the chart draws (series_data.band_steps)
    drawn = [v for k in ("value", "lower", "upper") for v in main[k]] + [v for v in main["band"]["upper"] if v is not None]
    assert main["band"]["upper"][-1] == pytest.approx(series["threshold"]["upper_limit"],
                                                      abs=(max(drawn) - min(drawn)) / 20_000 / 2)
    assert main["band"]["upper"][-1] > main["value"][-1] > main["band"]["upper"][STEP_AT - 1]
    assert [a["commit"] for a in main["alerts"]] == [commit(STEP_AT)]
    # Rebuilding leaves no page of the old build behind.
    stale = site / "data" / "b" / "000000000000.js"
    stale.write_text("stale")
    cli("pages", "--out", str(site), check=True)
    assert not stale.exists()


def test_a_sweep_is_fitted_per_commit_and_its_knee_found_where_it_appeared(history, tmp_path, cli):
    site = tmp_path / "site"
    cli("pages", "--out", str(site), check=True)
    [sweep] = [s for s in map(_js, (site / "data" / "s").glob("*.js")) if s["name"] == SWEEP]
    assert (sweep["branch"], sweep["testbed"]) == ("main", "tb")
    # the index names the knee's measure (the demo's read "objects ≈ 2.09k" of another measure)
    [line] = [s for s in _js(site / "data" / "index.js")["sweeps"] if s["name"] == SWEEP]
    assert line["knee"].startswith("total-ns: objects ≈ ")
    # texts in the unit the measure's name ends in (they read 35⋅v⋅o + 480⋅o of nanoseconds, and
    # the knee "objects ≈ 8.02k", as if a count); a knee is a number of objects, written whole
    assert re.fullmatch(r"total-ns: objects ≈ \d,\d{3}", line["knee"]), line["knee"]
    assert all(" ns⋅" in m["formula"] for m in line["models"]), line["models"]
    [m] = sweep["measures"]
    assert m["measure"] == "total-ns" and len(m["fits"]) == SWEEP_COMMITS
    for i, f in enumerate(m["fits"]):
        assert f["commit"] == commit(RUNS - SWEEP_COMMITS + i)
        vo = next(t for t in f["terms"] if t["term"] == "vo")
        assert vo["ci_low"] < 35 < vo["ci_high"] or abs(vo["coef"] - 35) < 1.5   # 35⋅v⋅o is in the data
        assert f["x"] == "objects" and f["group"] == "values" and len(f["curves"]) == 3
        assert all(c["lower"][j] <= c["y"][j] <= c["upper"][j] for c in f["curves"] for j in range(len(c["x"])))
        if i < KNEE_FROM:
            assert re.fullmatch(r"3\d\.\d ns⋅v⋅o \+ 4\d\d ns⋅o", f["formula"]), f["formula"]
            assert not f["knee"]["found"], f"no knee before commit {KNEE_FROM}, got {f['knee']}"
            assert not any("knee_y" in c for c in f["curves"])
        else:
            k = f["knee"]
            assert k["found"] and k["low"] <= k["location"] <= k["high"] and 6000 < k["location"] < 10000
            assert "knee at objects" in k["text"]
            assert re.match(r"3\d\.\d ns⋅v⋅o \+ 4\d\d ns⋅o .*ns⋅\(o − \d,\d{3}\)₊²$", k["formula"]), k["formula"]
            assert k["text"].startswith(f"knee model {k['formula']}: ") and re.search(r"objects [\d.]+ [nµ]s below", k["text"])
            assert " ns⋅" in f["formula"] and "e+" not in f["formula"] + k["text"]
            # The knee model is drawn too, and follows the points past the knee at least as closely
            # as the chosen model: their squared misses over the measured points, per curve.
            for c in f["curves"]:
                pts = [(x, y) for x, g, y in f["points"] if g == c["group"]]
                def miss(ys):
                    return sum((np.interp(np.log(x), np.log(c["x"]), ys) - y) ** 2 for x, y in pts)
                assert miss(c["knee_y"]) <= miss(c["y"]) * 1.01


def test_names_are_escaped_in_the_html_and_feed(history, tmp_path, cli):
    site = tmp_path / "site"
    cli("pages", "--out", str(site), "--title", "<b>perf</b> & co", check=True)
    for name in ("index.html", "benchmark.html", "sweep.html"):
        html = (site / name).read_text()
        assert "<b>perf</b>" not in html and "&lt;b&gt;perf&lt;/b&gt; &amp; co" in html
    feed = (site / "regressions.xml").read_text()
    assert "<img" not in feed and ET.fromstring(feed.encode()) is not None
    # Data files are one JSON assignment each: names travel as JSON strings, never as markup.
    rows = _js(site / "data" / "index.js")["rows"]
    assert any(HOSTILE in r for r in rows)


@pytest.mark.parametrize("option, url", [("--repo-url", "javascript:alert(1)"), ("--repo-url", "github.com/o/r"),
                                         ("--site-url", "https://x.example/p?a=1#f")])
def test_a_bad_repo_url_is_refused_and_nothing_is_written(history, tmp_path, cli, option, url):
    # a site URL with a query once made the feed's self link https://x.example/p?a=1#f/regressions.xml
    site = tmp_path / "site"
    proc = cli("pages", "--out", str(site), option, url)
    assert proc.returncode == 2 and option in proc.stderr and "http(s)" in proc.stderr
    assert not site.exists()


@pytest.mark.parametrize("test", [
    ThresholdTest("t_test", upper_boundary=0.99, min_sample_size=5, max_sample_size=64),
    ThresholdTest("t_test", lower_boundary=0.95, upper_boundary=0.9),
    ThresholdTest("z_score", lower_boundary=0.9, upper_boundary=0.97, max_sample_size=10),
    ThresholdTest("percentage", upper_boundary=0.005, max_sample_size=16),
    ThresholdTest("percentage", lower_boundary=0.01, upper_boundary=0.02, min_sample_size=3),
    ThresholdTest("static", lower_boundary=0.9, upper_boundary=1.1),
    ThresholdTest("log_normal", lower_boundary=0.95, upper_boundary=0.99, max_sample_size=32),
    ThresholdTest("iqr", upper_boundary=3.0, max_sample_size=20),              # goes the one-by-one way
    ThresholdTest("percentage", upper_boundary=0.01, window=50),               # so does a window
])
def test_the_batched_threshold_band_is_the_one_detect_computes(test):
    """Each regime judged on its own, as detect judges the one after the last change point."""
    rng = random.Random(11)
    jobs = []
    for _ in range(40):
        n = rng.choice([1, 4, 30, 90])
        at, size = rng.randrange(n), rng.choice([1.0, 1.03, 1.3, 0.8])
        starts = rng.choice([[], [at], sorted({at, rng.randrange(n)})])
        jobs.append((test, [rng.lognormvariate(0, 0.03) * (size if i >= at else 1) for i in range(n)],
                     [10.0 * i for i in range(n)], starts))
    got = bands(jobs)
    breaches = 0
    for (_, values, times, starts), band in zip(jobs, got):
        edges = [0, *[i for i in starts if i > 0], len(values)]
        ref = [(a, r) for a, b in zip(edges, edges[1:]) for r in evaluate_series(test, values[a:b], times[a:b])]
        assert band["breach"] == [a + r.index for a, r in ref if r.alert]
        for side in ("lower", "upper"):
            want = [getattr(r.limits, side) if r.limits else None for _, r in ref]
            got_side = [None if b is None or math.isnan(b) else b for b in band[side]]
            assert [w is None for w in want] == [b is None for b in got_side]
            assert all(b == pytest.approx(w, rel=1e-9) for w, b in zip(want, got_side) if w is not None)
        breaches += len(band["breach"])
    assert breaches > 0  # the steps were big enough to be judged, so the comparison means something


def test_the_batched_band_sets_no_limits_on_equal_values():
    # Their summed mean is an ulp off them; the batched band once drew limits an ulp wide there
    # and marked the next value a breach that detect's threshold test does not see.
    test = ThresholdTest("t_test", upper_boundary=0.99, max_sample_size=30)
    values = [127063.95746701502] * 40 + [127063.96] * 3
    band = bands([(test, values, [None] * len(values), [])])[0]
    assert band["breach"] == [r.index for r in evaluate_series(test, values) if r.alert]
    assert all(math.isnan(u) for u in band["upper"][30:41])


def test_reading_every_series_at_once_gives_what_reading_them_one_by_one_gives(history):
    from perfgate.model import Metric, Run
    from perfgate.model import Testbed as Bed
    from perfgate.store import SeriesKey
    from perfgate.store.base import Store
    from perfgate.store.sqlite import SqliteStore

    with SqliteStore(history) as store:
        # runs stored out of time order, and one without a time: both readers order them alike
        store.add_runs([Run("default", "late", f"{i:040x}", Bed("tb", {}), [Metric("steady", "latency", float(i))],
                            start_time=t) for i, t in enumerate([5.0, None, 1.0, 3.0])])
        assert [p.value for p in store.all_series(branch="late")[SeriesKey("late", "tb", "steady", "latency")]] \
            == [1.0, 2.0, 3.0, 0.0]
        for branch in (None, "main", BRANCH_PR, "late"):
            bulk = store.all_series(branch=branch)
            assert bulk == Store.all_series(store, branch=branch)
            assert list(bulk) == store.series_keys(branch=branch) and bulk


def test_pages_built_by_forked_workers_are_the_pages_one_process_builds(history, tmp_path):
    from perfgate.report.pages import publish_site
    from perfgate.store.sqlite import SqliteStore

    sites = {}
    with SqliteStore(history) as store:
        for workers in (1, 3):
            site = tmp_path / f"site-{workers}"
            counts = publish_site(store, site, title="t", workers=workers)
            files = sorted(p.relative_to(site) for p in (site / "data").rglob("*.js"))
            sites[workers] = (counts, files, {f: re.sub(r'"generated":"[^"]*"', "", (site / f).read_text())
                                              for f in files})
    assert sites[1] == sites[3] and len(sites[1][1]) == 1 + 1 + 3 + 2   # index, commits, 3 benchmark pages, 2 sweeps


def test_a_sweep_with_a_value_count_per_row_draws_five_representative_curves():
    from perfgate.report.sweeps import fit_commit

    rng = random.Random(5)
    rows = []
    for _ in range(150):
        v, o = rng.randint(1, 200), rng.choice([100, 1000, 5000, 20000, 50000])
        rows.append(({"values": float(v), "objects": float(o)}, [(30 * v * o + 500 * o) * rng.lognormvariate(0, 0.02)]))
    fit = fit_commit(rows, "total-ns")
    assert fit["x"] == "objects" and fit["group"] == "values" and len(fit["points"]) == 150
    groups = [c["group"] for c in fit["curves"]]
    assert len(groups) == 5 and groups == sorted(groups)
    assert groups[0] == min(r[0]["values"] for r in rows) and groups[-1] == max(r[0]["values"] for r in rows)
    vo = next(t for t in fit["terms"] if t["term"] == "vo")
    assert vo["ci_low"] < 30 < vo["ci_high"]


def test_every_alert_has_a_row_even_on_a_sweep_point(history, tmp_path, cli):
    """A sweep's points are drawn on its scaling page, not listed; but an alert's link must lead to
    its series' trend, so a point with an alert (open or acknowledged) is listed, and so is a point
    of a sweep no scaling page can draw (one parameter value: nothing to fit)."""
    from perfgate.model import Alert, Metric, Run, Testbed
    from perfgate.store.sqlite import SqliteStore

    point = f"{SWEEP}/values=1,objects=100"
    lonely = "copy_array/values=100,objects=4000"
    rng = random.Random(3)
    with SqliteStore(history) as store:
        store.add_runs([Run("default", "main", commit(i), Testbed("tb", {"cpu_model": "test <cpu>"}),
                            [Metric(lonely, "instructions", 1e6 * (1.5 if i >= 30 else 1.0) * rng.lognormvariate(0, 0.001))],
                            start_time=1.7e9 + i * 3600 + 1) for i in range(RUNS)])
        [alert] = store.record_alerts([Alert("main", "tb", point, "total-ns", commit(RUNS - 2), "regression", 0.2,
                                             0.1, 0.3, 1e-6, previous_commit=commit(RUNS - 3))])
    site = tmp_path / "site"
    counts = json.loads(cli("pages", "--out", str(site), "--json", check=True).stdout)
    data = json.loads((site / "data.json").read_text())
    listed = {(s["benchmark"], s["measure"]): s for s in data}
    assert listed[(point, "total-ns")]["state"] == "alert"
    assert listed[(lonely, "instructions")]["change_points"][0]["index"] == 30
    assert not any("values=" in b and b not in (point, lonely) for b, _ in listed)   # the rest stay on their page
    assert counts["series"] == 10 + 2 and counts["sweeps"] == 2                     # copy_array has no scaling page

    with SqliteStore(history) as store:                # its issue, now closed, still links here
        store.acknowledge(alert.id)
    cli("pages", "--out", str(site), check=True)
    listed = {s["benchmark"]: s for s in json.loads((site / "data.json").read_text())}
    assert lonely in listed and listed[point]["state"] != "alert"


def test_the_feed_is_valid_atom_and_each_entry_links_its_series(history, tmp_path, cli):
    """Atom requires an author for the feed and, for an entry without content, a link: without
    them a feed reader had nothing to open."""
    from urllib.parse import parse_qs, urlsplit

    site = tmp_path / "site"
    cli("pages", "--out", str(site), check=True)
    feed = ET.parse(site / "regressions.xml").getroot()
    assert feed.find(f"{ATOM}author/{ATOM}name").text == "perfgate"
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == 4
    for e in entries:
        for child in ("id", "title", "updated"):
            assert e.find(f"{ATOM}{child}") is not None
        [link] = e.findall(f"{ATOM}link")
        assert link.get("rel") == "alternate"
        url = urlsplit(link.get("href"))
        assert url.path == "benchmark.html"
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        page = _js(site / "data" / "b" / f"{q['b']}.js")
        assert any((s["measure"], s["branch"], s["testbed"]) == (q["measure"], q["branch"], q["testbed"])
                   for s in page["series"])
        assert e.find(f"{ATOM}title").text.startswith(page["benchmark"] + " [" + q["measure"] + "]")
        # an id is an IRI whatever the names hold (this store's have spaces, < > and quotes)
        assert re.fullmatch(r"urn:perfgate:[0-9a-f]{32}", e.find(f"{ATOM}id").text)
    assert re.fullmatch(r"urn:perfgate:[0-9a-f]{32}", feed.find(f"{ATOM}id").text)
    # dated by its newest entry, not by the build: an unchanged history gives an unchanged feed
    assert feed.find(f"{ATOM}updated").text == max(e.find(f"{ATOM}updated").text for e in entries)
    assert feed.find(f"{ATOM}link[@rel='self']") is None          # where it is served is not known

    cli("pages", "--out", str(site), check=True, env={"PERFGATE_PAGES_URL": "https://acme.github.io/widget/"})
    feed = ET.parse(site / "regressions.xml").getroot()
    assert feed.find(f"{ATOM}link[@rel='self']").get("href") == "https://acme.github.io/widget/regressions.xml"
    assert all(e.find(f"{ATOM}link").get("href").startswith("https://acme.github.io/widget/benchmark.html?")
               for e in feed.findall(f"{ATOM}entry"))


def test_a_regression_a_later_change_undid_says_so_in_the_feed():
    from perfgate.detect.changepoint import ChangePoint
    from perfgate.report.pages import _entry_id, undone_regressions
    from perfgate.report.series_data import Finding
    from perfgate.store import SeriesKey

    key = SeriesKey("main", "tb", "revert cmd", "latency")

    def change(i, magnitude, commit):
        cp = ChangePoint(index=i, index_low=i, index_high=i, magnitude=magnitude, ci_low=magnitude, ci_high=magnitude,
                         p_value=1e-9, confidence=1 - 1e-9, direction="regression" if magnitude > 0 else "improvement",
                         before=1.0, after=1.0 + magnitude)
        return Finding(key, cp, commit, "", commit, "")

    up, down, small = change(25, 0.247, "c25"), change(40, -0.2, "c40"), change(50, 0.3, "c50")
    assert undone_regressions([up, down, small]) == {_entry_id(up): down}


def test_an_alert_found_where_siblings_changed_carries_their_names_to_its_page():
    from perfgate.model import Alert
    from perfgate.report.series_data import chart_data
    from perfgate.store import Point, SeriesKey

    key = SeriesKey("main", "tb", "b", "latency")
    pts = [Point(f"r{i}", f"c{i}", None, 1.0 + (i >= 5) * 0.03) for i in range(10)]
    alert = Alert("main", "tb", "b", "latency", "c5", "regression", 0.03, 0.01, 0.05, 1e-3, "change_point",
                  "c4", ("c5",), {"index": 5, "siblings": ["a [latency]"]})
    plain = Alert("main", "tb", "b", "latency", "c5", "regression", 0.03, kind="threshold")
    data = chart_data(key, pts, None, [], [alert, plain], {f"r{i}": i for i in range(10)})
    assert [a["siblings"] for a in data["alerts"]] == [["a [latency]"], []]


def test_a_change_found_where_a_sibling_changed_is_drawn_once_detect_has_found_it(tmp_path, cli, store_path):
    # The pages search each series alone; the change detect found in b only where a changed is
    # drawn from its alert (a change line, not only a pin), in the feed too, naming a.
    from test_detect_siblings import add, suite

    a, b = suite()
    add(store_path, 0, 200, {"a": a, "b": b})

    def drawn(site):
        rows = {r["benchmark"]: r for r in json.loads((site / "data.json").read_text())}
        return {k: [(c["first_commit"], c["siblings"]) for c in r["change_points"]] for k, r in rows.items()}

    cli("pages", "--out", str(tmp_path / "before"), check=True)
    assert drawn(tmp_path / "before") == {"a": [("c0100", [])], "b": []}
    assert cli("detect").returncode == 1
    cli("pages", "--out", str(tmp_path / "after"), check=True)
    assert drawn(tmp_path / "after") == {"a": [("c0100", [])], "b": [("c0100", ["a [latency]"])]}
    feed = (tmp_path / "after" / "regressions.xml").read_text()
    assert feed.count("<entry>") == 2 and "tested here because a [latency] changed here" in feed


def test_a_change_detect_placed_at_a_siblings_commit_is_drawn_there(tmp_path, cli, store_path):
    # b's search alone finds its +2.5% step at c0106; detect places it at c0100, where a changed.
    # The pages draw it where its alert is, once, naming a.
    from test_detect_siblings import add, suite

    a, _ = suite()
    b = 1e6 * (1 + 0.02 * np.random.default_rng(54).standard_normal(200))
    b[100:] *= 1.025
    add(store_path, 0, 200, {"a": a, "b": b})

    def drawn(site):
        rows = {r["benchmark"]: r for r in json.loads((site / "data.json").read_text())}
        return {k: [(c["first_commit"], c["placed_with"]) for c in r["change_points"]] for k, r in rows.items()}

    cli("pages", "--out", str(tmp_path / "before"), check=True)
    assert drawn(tmp_path / "before") == {"a": [("c0100", [])], "b": [("c0106", [])]}
    assert cli("detect").returncode == 1
    cli("pages", "--out", str(tmp_path / "after"), check=True)
    assert drawn(tmp_path / "after") == {"a": [("c0100", [])], "b": [("c0100", ["a [latency]"])]}
    feed = (tmp_path / "after" / "regressions.xml").read_text()
    assert feed.count("<entry>") == 2 and "placed here because a [latency] changed here" in feed


def test_only_a_regression_still_there_is_an_alert_on_the_index():
    """An open improvement alert is good news, and a regression a later improvement undid (as
    notify closes its issue) is no alarm: neither is the red "alert" state, and the undone one
    says where it was undone."""
    from perfgate.model import Alert
    from perfgate.report.series_data import chart_data, summarise
    from perfgate.store import Point, SeriesKey

    key = SeriesKey("main", "tb", "sort", "latency")
    pts = [Point(f"r{i}", f"{i:040x}", 1000.0 + i, 10.0) for i in range(6)]

    def alert(i, direction, magnitude, created):
        return Alert("main", "tb", "sort", "latency", f"{i:040x}", direction, magnitude, id=f"a{i}", created=created)

    regression, fix, other = alert(2, "regression", 0.25, 1.0), alert(4, "improvement", -0.2, 2.0), alert(5, "regression", 0.1, 3.0)
    assert summarise(key, pts, [], [fix])["state"] != "alert"
    row = summarise(key, pts, [], [regression, fix])
    assert row["state"] != "alert" and row["alerts"] == 0
    row = summarise(key, pts, [], [regression, fix, other])
    assert row["state"] == "alert" and row["alerts"] == 1
    data = chart_data(key, pts, None, [], [regression, fix], {f"r{i}": i for i in range(6)})
    assert [a["undone_at"] for a in data["alerts"]] == [f"{4:040x}", None]
    assert [a["went_back"] for a in data["alerts"]] == [None, None]      # an alert undid it: listed itself
    # a regression whose series went back without an alert of its own (a revert ``detect`` saw): no
    # alarm, undone where it went back, with that way back's evidence for its pin and row
    back = {"commit": f"{3:040x}", "commit_range": [f"{3:040x}"], "magnitude": -0.2, "ci_low": -0.25,
            "ci_high": -0.15, "p_value": 0.002, "confidence": 0.99}
    reverted = Alert("main", "tb", "sort", "latency", f"{2:040x}", "regression", 0.25, id="a2", created=1.0,
                     kind="change_point", details={"went_back": back})
    assert summarise(key, pts, [], [reverted])["state"] != "alert"
    [row] = chart_data(key, pts, None, [], [reverted], {f"r{i}": i for i in range(6)})["alerts"]
    assert row["undone_at"] == f"{3:040x}" and row["withdrawn_at"] is None
    # its interval named at the level it was computed at, the series' change point confidence
    assert row["went_back"] == {"magnitude": -0.2, "ci_low": -0.25, "ci_high": -0.15, "p_value": 0.002, "ci_level": 0.99}
    # a threshold streak a backfill's later run ended says so, as perfgate alerts does
    streak = Alert("main", "tb", "sort", "latency", f"{1:040x}", "regression", 0.5, id="s1", kind="threshold",
                   details={"ended_at": f"{3:040x}"})
    data = chart_data(key, pts, None, [], [streak], {f"r{i}": i for i in range(6)})
    assert [a["ended_at"] for a in data["alerts"]] == [f"{3:040x}"]
    assert summarise(key, pts, [], [streak])["state"] != "alert"     # over: no regression still there


def test_a_change_point_detect_no_longer_finds_is_no_alert_on_the_index():
    """A change point the analysis of later runs withdrew (``detect`` marks it, as notify closes its
    issue) is drawn grey, as an undone one: not the red "alert" state, and it says where."""
    from perfgate.model import Alert
    from perfgate.report.series_data import chart_data, summarise
    from perfgate.store import Point, SeriesKey

    key = SeriesKey("main", "tb", "sort", "latency")
    pts = [Point(f"r{i}", f"{i:040x}", 1000.0 + i, 10.0) for i in range(6)]
    gone = Alert("main", "tb", "sort", "latency", f"{2:040x}", "regression", 0.0451, id="a2", created=1.0,
                 details={"withdrawn_at": f"{5:040x}"})
    row = summarise(key, pts, [], [gone])
    assert row["state"] == "stable" and row["alerts"] == 0
    data = chart_data(key, pts, None, [], [gone], {f"r{i}": i for i in range(6)})
    assert [a["withdrawn_at"] for a in data["alerts"]] == [f"{5:040x}"]
    # found again (detect clears the mark): an alert once more
    gone.details = {}
    assert summarise(key, pts, [], [gone])["state"] == "alert"


def test_the_index_cv_is_the_run_to_run_noise_as_history_s_not_a_missed_step():
    # The index showed 34% where `history` showed 1.4% for one series: it took the plain CV of
    # every value since the last change point, so a step the detector missed counted as noise.
    from perfgate.detect.stats import run_to_run_cv
    from perfgate.report.series_data import summarise
    from perfgate.store import Point, SeriesKey

    values = [6.1 * (1 + 0.01 * (-1) ** i) for i in range(8)] + [7.77 * (1 + 0.01 * (-1) ** i) for i in range(5)]
    pts = [Point(f"r{i}", f"{i:040x}", 1000.0 + i, v) for i, v in enumerate(values)]
    row = summarise(SeriesKey("main", "tb", "sum", "latency"), pts, [], [])
    assert row["cv"] == pytest.approx(run_to_run_cv(values)) and row["cv"] < 0.05


def test_the_band_leaves_cold_first_runs_out_of_its_baseline():
    """As detect's threshold test does: three cold runs at twice the level held the t-test's
    upper limit at 2.2-2.7x the level over the whole first regime of the chart."""
    from perfgate.report.series_data import findings
    from perfgate.store import Point, SeriesKey
    from perfgate.thresholds import load_thresholds

    rng = np.random.default_rng(3)
    values = [2.0e6, 2.1e6, 1.95e6, *(1e6 * (1 + 0.01 * rng.standard_normal(25)))]
    key = SeriesKey("main", "tb", "sort", "latency")
    pts = [Point(f"r{i}", f"c{i}", float(i), v) for i, v in enumerate(values)]
    settings = load_thresholds(None).for_series("sort", "latency")
    found, warm_up = findings(key, pts, settings)
    assert found == [] and warm_up == 3
    [band] = bands([(settings.test, values, [float(i) for i in range(len(values))], [warm_up])])
    upper = [u for u in band["upper"][3:] if u is not None and not math.isnan(u)]
    assert upper and max(upper) < 1.1e6


def test_the_index_lists_the_model_a_sweep_leads_with():
    """The index showed the polynomial a knee model beat by ΔBIC 173 (0.107⋅o² − 249⋅o + 164476,
    a negative per-object cost) while the sweep's page led with the knee model."""
    from perfgate.report.sweeps import sweep_summary

    knee = {"found": True, "param": "objects", "location": 2048.0, "formula": "26⋅o + 0.1⋅(o − 2,048)₊²"}
    page = {"name": "grow", "branch": "main", "testbed": "tb", "measures": [
        {"measure": "total-ns", "fits": [{"formula": "0.107⋅o² − 249⋅o + 164476", "knee": knee,
                                          "lead": {"model": "knee", "formula": knee["formula"]}}]},
        {"measure": "schedule-ns", "fits": [{"formula": "3.6⋅o", "knee": {"found": False},
                                             "lead": {"model": "polynomial", "formula": "3.6⋅o"}}]}]}
    assert [m["formula"] for m in sweep_summary(page)["models"]] == ["26⋅o + 0.1⋅(o − 2,048)₊²", "3.6⋅o"]


def test_pages_say_when_an_active_alert_is_not_among_their_change_points(history, tmp_path, cli):
    """The feed is the pages' own analysis: judged with other thresholds than detect's, it left out
    an active +49% regression without a word (an audit of the pages)."""
    from perfgate.model import Alert
    from perfgate.store.sqlite import SqliteStore

    with SqliteStore(history) as store:
        store.record_alerts([Alert("main", "tb", "steady", "latency", commit(30), "regression", 0.2,
                                   kind="change_point", previous_commit=commit(29), commit_range=(commit(30),))])
    proc = cli("pages", "--out", str(tmp_path / "site"), check=True)
    assert "warning: 1 active regression alert(s) are not among the change points these pages found" in proc.stderr
    assert json.loads(cli("pages", "--out", str(tmp_path / "site"), "--json", check=True).stdout)["alerts_not_found"] == 1
    # one that detect no longer finds either is not an open alert the pages missed
    with SqliteStore(history) as store:
        store.record_alerts([Alert("main", "tb", "steady", "latency", commit(40), "regression", 0.2,
                                   kind="change_point", previous_commit=commit(39), commit_range=(commit(40),),
                                   details={"withdrawn_at": commit(41)})])
    assert json.loads(cli("pages", "--out", str(tmp_path / "site"), "--json", check=True).stdout)["alerts_not_found"] == 1


def test_chart_columns_keep_seven_digits_every_printed_text_and_exact_integers():
    """The benchmark pages' numbers: instruction and byte counts exact (float32 wrote 43976613 as
    43976612.0), other values within 5e-7 of the stored ones, and every value's text (three
    digits, as the tooltips and tables print it) the stored value's, even a value next to a
    half-way point of its text, where rounding it twice would print it one digit off.  A measure
    named by its unit is printed in it (``rss-KiB``: 0.1235 KiB reads "126 B"), and compared so."""
    from perfgate.report.series_data import column, scale_of
    from perfgate.units import human

    rng = random.Random(5)
    for measure in ("latency", "instructions", "peak-rss", "throughput", "total-ns", "total-ms", "rss-KiB", "items-s"):
        unit = scale_of(measure)
        values = ([float(rng.randrange(10 ** 7, 10 ** 10)) for _ in range(2000)]
                  + [10 ** rng.uniform(-4, 13) * rng.choice((1, -1)) for _ in range(4000)]
                  # within rounding reach of a half-way point of the text, in the unit it is printed in
                  + [(rng.randrange(100, 1000) + 0.5) * 10.0 ** rng.randrange(-3, 9) * (1 + rng.uniform(-3e-7, 3e-7))
                     / unit["factor"] for _ in range(4000)])
        out = column(values, unit["scale"], unit["factor"])
        assert out[:2000] == values[:2000] and all(type(v) is int for v in out[:2000])
        assert all(abs(o - v) <= 5e-7 * abs(v) for v, o in zip(values, out))
        assert [human(o, measure) for o in out] == [human(v, measure) for v in values]
        shortest = len(json.dumps(values[2000:]))
        assert len(json.dumps(out[2000:])) < 0.75 * shortest
    assert column([None, math.nan, math.inf, 0.0, 1.5, 2.0, 1e300]) == [None, None, None, 0, 1.5, 2, 1e300]


def test_a_benchmark_page_s_data_is_the_stored_values_in_a_few_bytes_a_point(history, tmp_path, cli):
    """Values on the page equal the stored ones to 7 significant digits (exact for integers), and
    the file is under 60% of the same page written in full (every number's shortest round-trip
    text, each run's 40-character commit and ISO date; the band left as it is: its float64
    text was never written).  On bench/pages_size.py's store: 62.8 bytes a point at float32
    with a run table of hashes and dates on every page, 38.6 now."""
    from perfgate.store.sqlite import SqliteStore

    site = tmp_path / "site"
    cli("pages", "--out", str(site), check=True)
    index = _js(site / "data" / "index.js")
    rows = [dict(zip(index["columns"], r)) for r in index["rows"]]
    page_file = site / "data" / "b" / f"{next(r['page'] for r in rows if r['benchmark'] == BENCH)}.js"
    page = read_page(page_file.read_bytes(), _js(site / "data" / "commits.js"))
    with SqliteStore(history) as store:
        stored = {(k.branch, k.testbed, k.measure): pts for k, pts in store.all_series().items() if k.benchmark == BENCH}
    points, full = 0, dict(page)
    full["series"] = []
    for s in page["series"]:
        pts = stored[(s["branch"], s["testbed"], s["measure"])]
        points += len(pts)
        assert [page["runs"]["commit"][r] for r in s["run"]] == [p.commit for p in pts]
        for got, p in zip(s["value"], pts):
            assert got == p.value if float(p.value).is_integer() else got == pytest.approx(p.value, rel=5e-7)
        for side in ("lower", "upper"):
            if side in s:
                assert s[side] == pytest.approx([getattr(p, side) for p in pts], rel=5e-7)
        # the page as it was written before: every number's shortest round-trip text, a run
        # table of hashes and ISO dates, one index a point
        full["series"].append(s | {"value": [p.value for p in pts]}
                              | ({side: [getattr(p, side) for p in pts] for side in ("lower", "upper")} if "lower" in s else {}))
    written = page_file.stat().st_size
    assert written < 0.6 * len(orjson.dumps(full)) and written < 50 * points


def test_max_runs_draws_the_newest_runs_and_finds_changes_on_all_of_them(history, tmp_path, cli):
    """``--max-runs 15``: each chart holds its newest 15 runs and says of how many; the 30% step
    at run 30 of 50 is found on the whole series (data.json, the index, the feed are those of
    the full build) and still listed, with its alert, on a page whose chart begins after it."""
    full, cut = tmp_path / "full", tmp_path / "cut"
    cli("pages", "--out", str(full), check=True)
    cli("pages", "--out", str(cut), "--max-runs", "15", check=True)
    assert (cut / "data.json").read_bytes() == (full / "data.json").read_bytes()
    assert (cut / "regressions.xml").read_bytes() == (full / "regressions.xml").read_bytes()
    assert _js(cut / "data" / "index.js")["rows"] == _js(full / "data" / "index.js")["rows"]
    index = _js(cut / "data" / "index.js")
    pid = next(dict(zip(index["columns"], r))["page"] for r in index["rows"] if r[index["columns"].index("benchmark")] == BENCH)
    pages = {site: read_page((site / "data" / "b" / f"{pid}.js").read_bytes(), _js(site / "data" / "commits.js"))
             for site in (full, cut)}
    series = {site: next(s for s in page["series"] if (s["branch"], s["testbed"], s["measure"]) == ("main", "tb", "latency"))
              for site, page in pages.items()}
    whole, drawn = series[full], series[cut]
    assert drawn["skipped"] == RUNS - 15 and drawn["runs_total"] == RUNS and "skipped" not in whole
    assert drawn["value"] == whole["value"][-15:] and drawn["lower"] == whole["lower"][-15:]
    assert drawn["band"]["upper"] == [v if v is None else pytest.approx(v, rel=1e-5)    # to its own chart's range
                                      for v in whole["band"]["upper"][-15:]]
    assert drawn["band"]["breach"] == [i - (RUNS - 15) for i in whole["band"]["breach"] if i >= RUNS - 15]
    assert [pages[cut]["runs"]["commit"][r] for r in drawn["run"]] == [commit(i) for i in range(RUNS - 15, RUNS)]
    assert drawn["change_points"] == whole["change_points"] and drawn["change_points"][0]["index"] == STEP_AT
    assert drawn["alerts"] == whole["alerts"] and drawn["alerts"][0]["commit"] == commit(STEP_AT)
    assert len(_js(cut / "data" / "commits.js")) < len(_js(full / "data" / "commits.js"))
    assert cli("pages", "--out", str(tmp_path / "none"), "--max-runs", "0").returncode == 2


def test_a_threshold_limit_is_written_as_small_steps_to_a_20000th_of_its_chart():
    from perfgate.report.series_data import band_steps, unsteps

    rng = np.random.default_rng(9)
    for level in (3e-6, 1.0, 1e6, 4e7, 1e12):
        values = level * (1 + 0.05 * rng.standard_normal(300))
        upper = level * (1.1 + 0.01 * np.cumsum(rng.standard_normal(300)) / 10)
        upper[:10] = np.nan                          # no limit before the baseline holds 10 runs
        drawn = np.concatenate([values, upper])
        text = orjson.dumps(band_steps(upper, drawn))
        back = unsteps(orjson.loads(text))
        assert back[:10] == [None] * 10
        span = np.nanmax(drawn) - np.nanmin(drawn)
        assert np.max(np.abs(np.array(back[10:]) - upper[10:])) <= span / 20_000 / 2 * (1 + 1e-9)
        assert len(text) < 5 * 300                   # 7 significant digits took 9-10 characters a point
    assert band_steps(np.full(5, 2.0), np.full(10, 2.0)) is None          # nothing to scale by: column() then


def test_the_feed_names_a_first_bad_commit_only_when_the_change_is_pinned_to_one(tmp_path, store_path, cli):
    """A change the noise locates to a range read "first bad commit X, range ...": X is only its
    likeliest first run, as the alerts and the pages say."""
    from perfgate.model import Metric, Run, Testbed
    from perfgate.store.sqlite import SqliteStore

    rng = random.Random(7)
    runs = [Run("default", "main", commit(i), Testbed("tb", {}), [
        Metric("noisy", "latency", (100.0 if i < 30 else 106.0) * (1 + rng.gauss(0, 0.03))),
        Metric("exact", "instructions", 4e7 * (1.02 if i >= 30 else 1.0))], start_time=1.7e9 + i * 3600)
        for i in range(60)]
    with SqliteStore(store_path) as store:
        store.add_runs(runs)
    site = tmp_path / "site"
    cli("pages", "--out", str(site), check=True)
    entries = ET.parse(site / "regressions.xml").getroot().findall(f"{ATOM}entry")
    said = {e.find(f"{ATOM}title").text.split(" ")[0]: e.find(f"{ATOM}summary").text for e in entries}
    assert f"; first bad commit {commit(30)}, testbed tb" in said["exact"]
    assert re.search(r"; likeliest first bad commit \w+ of the range \w+\.\.\w+, testbed tb",
                     said["noisy"]) and "; first bad commit" not in said["noisy"], said["noisy"]


def test_an_index_sparkline_fills_its_height_and_spans_at_least_a_tenth_of_its_level():
    """The sparkline's 0–99 heights: a 15% step fills them (an adopter's series with 35% run-to-run
    CV was drawn between 25 and 74, the middle half of the box, since the scale by halves), and 1%
    of noise stays a wobble around the middle."""
    step = _compact({"spark": [100.0] * 5 + [115.0] * 5 + [None]})[0]
    assert step == [0] * 5 + [99] * 5 + [None]
    wobble = _compact({"spark": [100.0, 101.0, 99.0, 100.5]})[0]
    assert min(wobble) >= 40 and max(wobble) <= 59 and max(wobble) - min(wobble) >= 15
    assert _compact({"spark": [1.6e308, 1.7e308, 1e-300]})[0][1:] == [99, 0]   # no overflow at the largest floats
