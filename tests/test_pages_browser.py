"""The trend pages in a real browser: Debian's chromium driven by Playwright, from file:// and
offline.  Open the index, filter, click through to a benchmark, hover a point and read its commit,
click it to open the commit, toggle a branch, open a scaling page and find the knee; names full of
markup stay text on every page.  Screenshots of each page go to out/screenshots/ (git-ignored)."""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pages_data import (BACKFILLED, BENCH, BRANCH_PR, DROP, HOSTILE, STEP_AT, SWEEP, SWEEP_HOSTILE, build,
                        build_backfilled, build_closed, commit)
from perfgate.report.pages import read_page

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
REPO = "https://github.com/OWNER/REPO"
SHOTS = Path(__file__).resolve().parents[1] / "out" / "screenshots"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK),
                                 reason=f"{CHROMIUM} is not installed (scripts/setup installs Debian's chromium)")]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pages")
    build(root / "history.db")
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{root / 'history.db'}"}
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(root / "site"),
                    "--repo-url", REPO, "--title", "perf <b>trends</b>"], env=env, check=True,
                   capture_output=True)
    return root / "site"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright  # pinned in requirements.lock; its browser is Debian's

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    # Nothing may leave the machine: every request outside file:// is refused, except a commit
    # link opened on purpose, which gets a stand-in page so the test can see where it went.
    context.route("https://github.com/OWNER/REPO/commit/**",
                  lambda route: route.fulfill(status=200, content_type="text/html", body="<p>commit</p>"))
    context.route(lambda url: not url.startswith(("file:", REPO + "/commit/")), lambda route: route.abort())
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("console", lambda m: pg.errors.append(m.text) if m.type == "error" else None)
    yield pg
    context.close()


def _open(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("html[data-ready='1']", timeout=15_000)


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _inert(page) -> None:
    """No script of the data ran and no element came out of a name."""
    assert page.evaluate("window.PWNED") is None
    assert page.locator("img").count() == 0
    assert page.locator("b, i").count() == 0  # the pages use strong/em; b and i can only come from names
    assert page.locator("a[href^='javascript']").count() == 0
    srcs = page.evaluate("[...document.scripts].map(s => s.getAttribute('src'))")
    assert all(s and (s.startswith("assets/") or s.startswith("data/")) for s in srcs), srcs
    assert not page.errors, page.errors


def _point_position(page, measure: str, branch: str, testbed: str, i: int) -> tuple[float, float]:
    """Where on screen point i of a series of the benchmark page is drawn."""
    xy = page.evaluate("""([measure, branch, testbed, i]) => {
        const P = window.PERFGATE_PAGE, chart = window.PERFGATE_CHARTS[measure];
        const list = P.series.filter(s => s.measure === measure);
        const k = list.findIndex(s => s.branch === branch && s.testbed === testbed);
        const s = list[k], x = Date.parse(s.time[i]);
        const [px, py] = chart.convertToPixel({seriesId: 'pts' + k}, [x, s.value[i]]);
        const box = chart.getDom().getBoundingClientRect();
        return [box.left + px, box.top + py];
    }""", [measure, branch, testbed, i])
    return xy[0], xy[1]


def test_index_filters_groups_sorts_and_leads_to_the_benchmark(site, page):
    _open(page, (site / "index.html").as_uri())
    rows = page.locator("#rows tr.series-row")
    assert rows.count() == 10
    assert rows.first.locator(".state").inner_text().startswith("alert")        # open alerts first
    assert page.locator(".state.regression").count() == 3
    # Each Δ is coloured by its own change's direction, whatever the series' state, and the summary
    # counts the series whose last change is a regression, alerted or not.
    cells = page.evaluate("""() => [...document.querySelectorAll('#rows tr.series-row')].map(tr =>
        [tr.querySelectorAll('td')[7].className, tr.querySelector('.state').className])""")
    directions = page.evaluate("""() => { const D = window.PERFGATE_INDEX, i = D.columns.indexOf('direction');
        return D.rows.map(r => r[i]); }""")
    assert sorted(c for c, _ in cells if "good" in c or "bad" in c) == sorted(
        "num " + ("good" if d == "improvement" else "bad") for d in directions if d)
    regressed = directions.count("regression")
    assert regressed >= 4 and f"{regressed} whose last change is a regression" in page.locator("#summary").inner_text()
    _shot(page, "index")

    page.fill("#q", "steady")
    page.wait_for_function("document.querySelectorAll('#rows tr.series-row').length === 3")
    assert all("steady" == rows.nth(i).locator("a.bench").inner_text() for i in range(3))
    page.select_option("#group", "testbed")
    assert page.locator("#rows tr.group").count() == 2
    assert "arm <i>64</i>" in page.locator("#rows tr.group").first.inner_text()
    page.fill("#q", "")
    page.select_option("#group", "")
    page.wait_for_function("document.querySelectorAll('#rows tr.series-row').length === 10")
    page.click("th[data-key='latest']")                 # by latest value, largest first: 65.3M instructions
    assert page.locator("th[data-key='latest']").get_attribute("aria-sort") == "descending"
    assert rows.first.locator("td").nth(2).inner_text() == "instructions"
    assert rows.first.locator("td").nth(4).inner_text() == "arm <i>64</i>"
    spark = rows.first.locator("svg.spark")
    assert spark.get_attribute("role") == "img" and spark.get_attribute("aria-label").startswith("last ")
    page.focus("th[data-key='latest'] button")          # the keyboard sorts too: Enter on the header's button
    page.keyboard.press("Enter")
    assert page.locator("th[data-key='latest']").get_attribute("aria-sort") == "ascending"
    assert rows.nth(9).locator("td").nth(4).inner_text() == "arm <i>64</i>"
    assert rows.nth(9).locator("td").nth(2).inner_text() == "instructions"
    page.select_option("#only", "regression")
    assert rows.count() == 3
    page.fill("#q", "no such benchmark")
    page.wait_for_function("document.querySelectorAll('#rows tr.series-row').length === 0")
    assert "No series matches" in page.locator("#rows").inner_text()
    page.fill("#q", "")

    page.select_option("#only", "")
    page.fill("#q", "parse latency main tb")
    page.wait_for_function("document.querySelectorAll('#rows tr.series-row').length === 1")
    page.locator("a.bench").first.click()
    page.wait_for_selector("html[data-ready='1']")
    assert page.locator("h1").inner_text() == BENCH
    assert page.url.split("?")[0].endswith("/benchmark.html")
    _inert(page)


def test_an_alerted_series_that_improved_since_shows_its_last_change_as_an_improvement(tmp_path, page):
    """The Δ column is the last change's size, so its colour is that change's direction: a series
    whose regression alert is still open and that has since improved shows a green Δ."""
    from perfgate.model import Alert, Metric, Run, Testbed
    from perfgate.store.sqlite import SqliteStore

    levels = [1.0] * 30 + [1.3] * 30 + [1.0] * 30
    with SqliteStore(tmp_path / "history.db") as store:
        store.add_runs([Run("default", "main", commit(i), Testbed("tb"), [Metric("b", "instructions", 4e7 * v)],
                            start_time=1.7e9 + i * 3600) for i, v in enumerate(levels)])
        store.record_alerts([Alert("main", "tb", "b", "instructions", commit(30), "regression", 0.3, 0.3, 0.3, 0.0,
                                   previous_commit=commit(29), commit_range=(commit(30),))])
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{tmp_path / 'history.db'}"}
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(tmp_path / "site")], env=env,
                   check=True, capture_output=True)
    _open(page, (tmp_path / "site" / "index.html").as_uri())
    row = page.locator("#rows tr.series-row")
    assert row.count() == 1 and row.locator(".state").inner_text() == "alert (1)"
    delta = row.locator("td").nth(7)
    assert delta.inner_text() == "-23.1%" and "good" in delta.get_attribute("class")
    assert "0 whose last change is a regression · 0 scaling sweeps" in page.locator("#summary").inner_text()


def test_hover_reads_the_commit_and_a_click_opens_it(site, page):
    _open(page, (site / "index.html").as_uri())
    page.locator("a.bench", has_text=BENCH).first.click()
    page.wait_for_selector("html[data-ready='1']")
    assert page.locator("section.measure").count() == 2                        # latency and instructions
    x, y = _point_position(page, "latency", "main", "tb", STEP_AT)
    page.mouse.move(x, y)
    tip = page.locator(".pg-tip").first
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert commit(STEP_AT) in text and "main @ tb" in text and "5 sample(s)" in text and " … " in text
    _shot(page, "benchmark-hover")

    with page.context.expect_page() as opened:
        page.mouse.click(x, y)
    commit_page = opened.value
    commit_page.wait_for_load_state()
    assert commit_page.url == f"{REPO}/commit/{commit(STEP_AT)}"
    assert commit(STEP_AT) in page.locator("section.measure .selected").first.inner_text()

    # The change point and the alert are listed with their evidence.
    evidence = page.locator("section.measure").first.locator("table.evidence").inner_text()
    assert "change point" in evidence and "alert (active)" in evidence and commit(STEP_AT)[:12] in evidence
    assert "confidence" in evidence and "+30" in evidence
    assert "(p " in evidence and "1.0000" not in evidence and "100.00%" not in evidence
    # the alert's p-value underflowed (as an instruction count's does): a bound, never "p = 0"
    alert = page.locator("section.measure").first.locator("table.evidence tr", has_text="alert (active)").inner_text()
    assert "change point regression +30" in alert and "% as alerted" in alert and "p < 1e-15" in alert and "p = 0" not in alert
    # each interval named at its level: the change point settings' 99%, recorded with the alert
    assert "+30.00% as alerted (99% CI [+27.00%, +33.00%])" in alert
    found = page.locator("section.measure").first.locator("table.evidence tr", has_text="change point").first.inner_text()
    assert re.search(r"regression \+30\.\d\d% \(99% CI \[\+\d+\.\d\d%, \+\d+\.\d\d%\]\)", found), found

    # Without a mouse: the chart is an image named by what it shows, and its points are a table.
    chart = page.locator("section.measure").first.locator(".chart")
    assert chart.get_attribute("role") == "img"
    label = chart.get_attribute("aria-label")
    assert label.startswith("Chart of latency: ") and "last change +30" in label and "main @ tb" in label
    points = page.locator("section.measure").first.locator("details.points")
    points.locator("summary").click()
    points.locator("tbody tr").first.wait_for()     # built on the toggle event, which comes after the click
    runs = page.evaluate("window.PERFGATE_PAGE.series.filter(s => s.measure === 'latency' && s.branch === 'main'"
                         " && s.testbed === 'tb').reduce((t, s) => t + s.value.length, 0)")   # the ticked series
    assert points.locator("tbody tr").count() == runs
    assert commit(STEP_AT)[:12] in points.inner_text()

    # The compact data file (commits by index into data/commits.js, times in seconds since the
    # run before, runs as stretches) spelled out as read_page spells it, and the hovered point's
    # date is the run's.
    pid = re.search(r"[?&]b=([0-9a-f]{12})", page.url).group(1)
    want = read_page((site / "data" / "b" / f"{pid}.js").read_bytes(),
                     json.loads((site / "data" / "commits.js").read_text().split("=", 1)[1].rstrip(";\n")))
    got = page.evaluate("(() => { const P = window.PERFGATE_PAGE;"
                        " return {runs: P.runs, run: P.series.map(s => s.run), value: P.series.map(s => s.value),"
                        " band: P.series.map(s => s.band && [s.band.lower, s.band.upper])}; })()")
    assert got == {"runs": want["runs"], "run": [s["run"] for s in want["series"]],
                   "value": [s["value"] for s in want["series"]],
                   "band": [s["band"] and [s["band"]["lower"], s["band"]["upper"]] for s in want["series"]]}
    assert any(b and b[1] for b in got["band"])
    main = next(s for s in want["series"] if (s["measure"], s["branch"], s["testbed"]) == ("latency", "main", "tb"))
    assert want["runs"]["time"][main["run"][STEP_AT]] in text and want["runs"]["time"][0].startswith("2023-11-14T")



def test_the_charts_pins_are_reached_from_the_keyboard(site, page):
    """A pin (an alert) and a change point's line show their evidence only to a pointer hovering
    them on the canvas.  Each is a button beside the chart: Tab reaches it, focusing it shows the
    mark's tooltip on the chart and its evidence and commit below, as hovering and clicking do."""
    _open(page, (site / "index.html").as_uri())
    page.locator("a.bench", has_text=BENCH).first.click()
    page.wait_for_selector("html[data-ready='1']")
    section = page.locator("section.measure").first
    alert_id = page.evaluate("window.PERFGATE_PAGE.series.find(s => s.measure === 'latency' && s.branch === 'main'"
                             " && s.testbed === 'tb').alerts[0].id")
    marks = section.locator("ul.pins button")
    assert marks.count() == 2                                     # the ticked series' change point and alert
    assert marks.nth(0).inner_text().startswith("change point · main @ tb: regression +30")
    assert marks.nth(1).inner_text().startswith(f"alert pin · main @ tb: alert {alert_id} (active)")

    section.locator("h3").click()                                # Tab from the chart's heading, as a reader would
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent").startswith("change point · ")
    page.keyboard.press("Tab")
    tip = section.locator(".pg-tip")
    tip.wait_for(state="visible")
    assert alert_id in tip.inner_text() and "regression +30.00%" in tip.inner_text()
    picked = section.locator(".selected")
    assert alert_id in picked.inner_text() and picked.get_attribute("aria-live") == "polite"
    assert picked.locator("a").get_attribute("href") == f"{REPO}/commit/{commit(STEP_AT)}"
    _shot(page, "benchmark-pins-keyboard")

    # The list follows the ticks as the chart does: another testbed's marks join it.
    page.locator("input[data-kind='testbed']").first.check()
    assert section.locator("ul.pins button").count() == 3


def test_toggling_a_branch_hides_its_lines(site, page):
    _open(page, (site / "index.html").as_uri())
    link = page.locator("a.bench", has_text=BENCH).first
    assert "branch=main" in link.get_attribute("href") and "testbed=tb" in link.get_attribute("href")
    link.click()
    page.wait_for_selector("html[data-ready='1']")
    legend = "window.PERFGATE_CHARTS.latency.getOption().legend[0].selected"
    pr = f"{BRANCH_PR} @ tb"
    # A row's link shows its own series: only its branch and testbed are ticked, the rest a click away.
    assert page.evaluate(legend) == {"main @ tb": True, pr: False, "main @ arm <i>64</i>": False}
    label = page.locator("section.measure[data-measure='latency'] .chart").get_attribute("aria-label")
    assert "main @ tb" in label and pr not in label          # what a screen reader hears follows the ticks
    page.locator("input[data-kind='testbed'][data-value='arm <i>64</i>']").check()
    page.locator(f"input[data-kind='branch'][data-value='{BRANCH_PR}']").check()
    assert page.evaluate(legend).get(pr, True) is True
    assert pr in page.locator("section.measure[data-measure='latency'] .chart").get_attribute("aria-label")
    page.locator(f"input[data-kind='branch'][data-value='{BRANCH_PR}']").uncheck()
    selected = page.evaluate(legend)
    assert selected[pr] is False and selected["main @ tb"] is True
    _shot(page, "benchmark-without-pr-branch")
    page.locator("input[data-kind='testbed'][data-value='tb']").uncheck()
    assert page.evaluate(legend)["main @ tb"] is False and page.evaluate(legend)["main @ arm <i>64</i>"] is True
    page.locator(f"input[data-kind='branch'][data-value='{BRANCH_PR}']").check()
    assert page.evaluate(legend)[pr] is False                                   # its testbed is still off


def test_the_scaling_page_shows_the_knee(site, page):
    _open(page, (site / "index.html").as_uri())
    # the index's line for it: the model in nanoseconds' units, the knee a whole number of objects
    row = page.locator("tr", has=page.locator("a.sweep", has_text=SWEEP)).first.inner_text()
    assert re.search(r"total-ns: 3\d\.\d ns⋅v⋅o \+ 4\d\d ns⋅o", row) and re.search(r"objects ≈ \d,\d{3}\b", row), row
    page.locator("a.sweep", has_text=SWEEP).click()
    page.wait_for_selector("html[data-ready='1']")
    # The knee model leads (a first-time user's audit: the polynomial it beats by BIC was the
    # headline, with its unweighted R²), the polynomial follows.
    headline = page.locator("#latest-formula").inner_text()
    assert "knee at objects ≈ " in headline and "grows quadratically" in headline and "; R² 0." in headline
    # in the unit of total-ns, as the axes: the knee model, the cost per object below the knee
    # (it read "knee model 35⋅v⋅o + 480⋅o + 0.04⋅(o − 8,011)₊²", nanoseconds written as counts)
    assert re.search(r"knee model 3\d\.\d ns⋅v⋅o \+ 4\d\d ns⋅o .*ns⋅\(o − \d,\d{3}\)₊²: ", headline), headline
    assert re.search(r"cost per unit of objects [\d.]+ [nµ]s below it", headline), headline
    assert re.search(r"Without a knee: .*\d ns⋅", page.locator(".knee-note").first.inner_text())
    rows = [page.locator("#fits tr").nth(i).locator("td").nth(2).inner_text() for i in range(6)]
    assert all(" ns⋅" in r and "e+" not in r for r in rows), rows     # the table of every fit
    note = page.locator(".knee-note").first.inner_text()
    assert note.startswith("Without a knee: ") and "weighted as fitted 0." in note and "worse" in note
    labels = page.evaluate("""() => window.PERFGATE_CHARTS.curve.getOption().series
        .flatMap(s => (s.markLine && s.markLine.data) || []).map(d => d.xAxis)""")
    assert len(labels) == 1 and 6000 < labels[0] < 10000
    dashed = page.evaluate("""() => window.PERFGATE_CHARTS.curve.getOption().series
        .filter(s => String(s.id || "").startsWith("knee-model-")).map(s => s.lineStyle.type)""")
    assert dashed == ["dashed"] * 3                                  # the knee model, one per value count
    # Side by side: the oldest commit has no knee, the latest has one.
    assert "knee" not in page.locator("#formula-a").inner_text()
    assert "knee ≈" in page.locator("#formula-b").inner_text()
    changed = page.locator("#pair-changes").inner_text()
    # the models compared whole: the polynomials' coefficients, one of them the model the knee
    # beat, read as a negative per-object cost in an audit
    assert "knee: none → objects ≈ " in changed and changed.count("model: ") == 1 and "ns⋅v⋅o" in changed
    assert ")₊" in changed and ")₊" in page.locator("#formula-b").inner_text()     # the knee model's hinge
    assert page.locator("#history .chart").count() >= 3 and page.locator(".knee-history").count() == 1
    assert page.locator("#fits tr").count() == 6
    _shot(page, "sweep")
    page.select_option("#view", "per-unit")
    page.check("#logy")
    assert "per objects" in page.evaluate("window.PERFGATE_CHARTS.curve.getOption().yAxis[0].name")
    _shot(page, "sweep-per-unit-log")
    _inert(page)


# The tick labels ECharts drew on a chart's y axis.
_Y_LABELS = """name => window.PERFGATE_CHARTS[name].getModel().getComponent("yAxis").axis.getViewLabels()
    .map(l => l.formattedLabel)"""
_TIP = """() => window.PERFGATE_CHARTS.curve.getOption().tooltip[0].formatter(
    {seriesType: "scatter", seriesName: "measured", value: [100, 1.2e8]})"""
_TIME_LABEL = re.compile(r"^-?[\d.]+ (ns|µs|ms|s)$")


def test_a_sweeps_costs_read_in_the_units_of_the_benchmark_pages(site, page):
    """An audit: a sweep page's cost axes read 120,000,000 where a benchmark page reads 120 ms."""
    _open(page, (site / "index.html").as_uri())
    page.locator("a.sweep", has_text=SWEEP).first.click()
    page.wait_for_selector("html[data-ready='1']")
    for chart in ("curve", "curve-a", "curve-b", "hist-0"):     # hist-0: a coefficient's history
        labels = page.evaluate(_Y_LABELS, chart)
        assert labels and all(_TIME_LABEL.match(t) for t in labels), (chart, labels)
    assert "total-ns = 120 ms" in page.evaluate(_TIP)
    knee = page.evaluate(_Y_LABELS, "hist-" + str(page.locator("#history .chart").count() - 1))
    assert all(re.match(r"^-?[\d,]+$", t) for t in knee), knee              # a knee is a parameter value
    assert not page.errors, page.errors


def test_a_sweeps_cost_axes_tick_at_round_numbers_of_their_unit(site, page):
    """A sweep's cost axes had ECharts' ticks, round nanoseconds written three digits long in
    whatever unit each needed ("0 ns, 20.0 ms, 40.0 ms"; per object "300 ns, 600 ns, 900 ns, 1.20
    µs"); they tick as the benchmark pages' do (PG.axisTicks), the two commits side by side on one
    axis, and so do they once zoomed into."""
    _open(page, (site / "index.html").as_uri())
    page.locator("a.sweep", has_text=SWEEP).first.click()
    page.wait_for_selector("html[data-ready='1']")
    for view, unit in (("cost", "ms"), ("per-unit", "µs")):
        page.select_option("#view", view)
        for chart in ("curve", "curve-a", "curve-b"):
            numbers, _, shown = _round_ticks(page.evaluate(_Y_LABELS, chart))
            assert shown == unit and numbers[0] == 0, (view, chart, numbers, shown)
            # every point drawn lies on the axis
            ys = page.evaluate("""c => window.PERFGATE_CHARTS[c].getOption().series.filter(s => s.type === 'scatter')
                .flatMap(s => s.data.map(p => p[1]))""", chart)
            low, high = page.evaluate(f"window.PERFGATE_CHARTS['{chart}'].getModel().getComponent('yAxis').axis"
                                      ".scale.getExtent()")
            assert ys and low <= min(ys) and max(ys) <= high, (view, chart, low, high)
        assert page.evaluate(_Y_LABELS, "curve-a") == page.evaluate(_Y_LABELS, "curve-b")
    for chart in ("hist-0", "hist-1"):          # coefficients over commits, in their cost's unit
        _, _, shown = _round_ticks(page.evaluate(_Y_LABELS, chart))
        assert shown == "ns", (chart, shown)
    # The toolbox's box zoom over the chart's lower right: the window is ticked at round numbers,
    # not from its edge with the whole axis' step ("1 ms, 51 ms, 60 ms")
    page.select_option("#view", "cost")
    before = page.evaluate(_Y_LABELS, "curve")
    same = f"JSON.stringify(({_Y_LABELS})('curve')) === JSON.stringify({json.dumps(before)})"
    page.evaluate("window.PERFGATE_CHARTS.curve.dispatchAction({type: 'takeGlobalCursor', key: 'dataZoomSelect',"
                  " dataZoomSelectActive: true})")
    box = page.locator("#curve").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.7, box["y"] + box["height"] * 0.55)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.8, box["y"] + box["height"] * 0.7)
    page.mouse.move(box["x"] + box["width"] * 0.95, box["y"] + box["height"] * 0.8)
    page.mouse.up()
    page.wait_for_function(f"!({same})")
    page.wait_for_timeout(300)          # the zoom's render, then the window's ticks set after it
    numbers, step, _ = _round_ticks(page.evaluate(_Y_LABELS, "curve"))
    assert step < _round_ticks(before)[1], (before, numbers)
    page.locator("#curve").screenshot(path=str(SHOTS / "sweep-zoomed-y.png"))
    page.evaluate("window.PERFGATE_CHARTS.curve.dispatchAction({type: 'restore'})")
    page.wait_for_function(same)         # the restore: the whole axis, as it opened
    assert not page.errors, page.errors


def test_a_sweep_measure_in_ms_is_scaled_and_one_without_a_unit_stays_plain(tmp_path, page):
    from dataclasses import replace
    import random

    from pages_data import sweep_metrics
    from perfgate.model import Run, Testbed
    from perfgate.store.sqlite import SqliteStore

    rng = random.Random(3)
    with SqliteStore(tmp_path / "history.db") as store:
        store.add_runs([Run("default", "main", commit(i), Testbed("tb"), [
            replace(m, measure=measure, value=m.value / 1e6, lower=None, upper=None, samples=())
            for name, measure in (("in_ms", "total-ms"), ("no_unit", "total"))
            for m in sweep_metrics(rng, False, name)], start_time=1.7e9 + i * 3600) for i in range(2)])
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{tmp_path / 'history.db'}"}
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(tmp_path / "site")], env=env,
                   check=True, capture_output=True)
    for name, label in (("in_ms", _TIME_LABEL), ("no_unit", re.compile(r"^-?[\d,.]+$"))):
        _open(page, (tmp_path / "site" / "index.html").as_uri())
        page.locator("a.sweep", has_text=name).click()
        page.wait_for_selector("html[data-ready='1']")
        labels = page.evaluate(_Y_LABELS, "curve")
        assert labels and all(label.match(t) for t in labels), (name, labels)
    assert "total = 120,000,000" in page.evaluate(_TIP)                       # no unit: the number as given
    assert not page.errors, page.errors


def test_a_measure_named_by_its_unit_reads_in_it_on_its_benchmark_page(tmp_path, page):
    """A ``total-ns`` series (and a ``total-ms`` one) on a benchmark page: its axis, tooltip,
    evidence and description in µs, as the index's Python-written latest value (they read 120k
    and 0.120 beside the index's 120 µs)."""
    from perfgate.model import Metric, Run, Testbed
    from perfgate.store.sqlite import SqliteStore
    from perfgate.units import human

    rng = random.Random(11)
    runs = []
    for i in range(30):
        metrics = []
        for measure, level in (("total-ns", 120e3), ("total-ms", 0.12)):
            samples = tuple(level * (1.25 if i >= 20 else 1.0) * rng.lognormvariate(0, 0.01) for _ in range(5))
            metrics.append(Metric("decode", measure, sum(samples) / 5, min(samples), max(samples), samples))
        runs.append(Run("default", "main", commit(i), Testbed("tb"), metrics, start_time=1.7e9 + i * 3600))
    with SqliteStore(tmp_path / "history.db") as store:
        store.add_runs(runs)
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{tmp_path / 'history.db'}"}
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(tmp_path / "site")], env=env,
                   check=True, capture_output=True)
    _open(page, (tmp_path / "site" / "index.html").as_uri())
    index_text = page.locator("main").inner_text()
    page.locator("a.bench", has_text="decode").first.click()
    page.wait_for_selector("html[data-ready='1']")
    for measure in ("total-ns", "total-ms"):
        labels = page.evaluate(_Y_LABELS, measure)
        assert labels and all(re.match(r"^[\d.]+ µs$", t) for t in labels), (measure, labels)
        s = page.evaluate("m => window.PERFGATE_PAGE.series.find(s => s.measure === m)", measure)
        panel = page.locator(f"section.measure[data-measure='{measure}']")
        x, y = _point_position(page, measure, "main", "tb", 25)
        page.mouse.move(x, y)
        tip = panel.locator(".pg-tip")
        tip.wait_for(state="visible")
        text = tip.inner_text()
        value, lo, hi = (human(s[k][25], measure) for k in ("value", "lower", "upper"))
        assert f"{measure} {value}" in text and f"(interval {lo} … {hi})" in text and value.endswith(" µs"), text
        [cp] = s["change_points"]
        assert f"{human(cp['before'], measure)} → {human(cp['after'], measure)}" in panel.locator("table.evidence").inner_text()
        latest = human(s["value"][-1], measure)
        assert f"latest {latest}," in panel.locator(".chart").get_attribute("aria-label")
        assert latest in index_text            # the index's text, written by perfgate.units.human
        if measure == "total-ns":
            _shot(page, "benchmark-total-ns")
    assert not page.errors, page.errors


def test_names_with_markup_are_inert_on_every_page(site, page):
    _open(page, (site / "index.html").as_uri())
    _inert(page)
    assert page.locator("a.bench", has_text=HOSTILE).count() == 2               # shown as text, both testbeds
    assert "perf <b>trends</b>" in page.locator("h1").inner_text()
    # The pr branch's latest commit is named with markup too: shown as text, not linked.
    assert page.locator("code", has_text="<img src=x").count() >= 1
    hrefs = page.evaluate("[...document.querySelectorAll('a.bench')].map(a => a.getAttribute('href'))")
    hrefs += page.evaluate("[...document.querySelectorAll('a.sweep')].map(a => a.getAttribute('href'))")
    assert page.locator("a.sweep", has_text=SWEEP_HOSTILE).count() == 1
    for href in sorted(set(hrefs)):
        _open(page, (site / href.split("?")[0]).as_uri() + "?" + href.split("?", 1)[1])
        _inert(page)
        if page.locator("h1").inner_text() == SWEEP_HOSTILE:
            _shot(page, "sweep-hostile-name")
    _open(page, (site / "index.html").as_uri())
    page.locator("a.bench[href$='testbed=tb']", has_text=HOSTILE).first.click()   # its main @ tb row
    page.wait_for_selector("html[data-ready='1']")
    assert page.locator("h1").inner_text() == HOSTILE
    x, y = _point_position(page, "latency", "main", "tb", 3)
    page.mouse.move(x, y)
    page.locator(".pg-tip").first.wait_for(state="visible")
    assert page.locator(".pg-tip img, .pg-tip script").count() == 0
    _shot(page, "benchmark-hostile-name")
    _inert(page)
    # An unknown or malformed page id is a message, not an error.
    _open(page, (site / "benchmark.html").as_uri() + "?b=../../etc")
    assert "No such benchmark page" in page.locator("main").inner_text()
    assert page.locator("h1").inner_text() == "Not found"                   # not "loading…" for ever
    _open(page, (site / "sweep.html").as_uri() + "?s=0123456789ab")
    assert "No such scaling sweep page" in page.locator("main").inner_text()


def test_an_alerts_trend_link_opens_its_series(site, page):
    """The link an alert carries (``render.trend_url``, the index with the series as its fragment)
    opens that series' benchmark page, its measure first; a link to a series these pages do not
    hold says so and searches for its benchmark."""
    from urllib.parse import quote

    from perfgate.model import Alert
    from perfgate.notify.base import Links
    from perfgate.notify.render import trend_url

    links = Links(pages_url=site.as_uri())
    for bench, measure in ((BENCH, "instructions"), (HOSTILE, "latency")):
        url = trend_url(links, Alert("main", "arm <i>64</i>", bench, measure, commit(STEP_AT), "regression",
                                     0.02, 0.01, 0.03, 1e-6))
        page.goto(url)
        page.wait_for_url("**/benchmark.html?**")
        page.wait_for_selector("html[data-ready='1']")
        assert page.locator("h1").inner_text() == bench
        assert page.locator("section.measure").first.get_attribute("data-measure") == measure
        _inert(page)

    page.goto((site / "index.html").as_uri() + "#" + quote("gone <b>away</b>|latency|main|tb", safe=""))
    page.wait_for_selector("html[data-ready='1']")
    notice = page.locator("#linked")
    assert notice.is_visible() and "gone <b>away</b> · latency · main · tb" in notice.inner_text()
    assert "is not on these pages" in notice.inner_text()
    assert page.input_value("#q") == "gone <b>away</b>"
    assert page.locator("#rows tr.series-row").count() == 0 and "No series matches" in page.locator("#rows").inner_text()
    _inert(page)


def test_a_change_placed_at_a_siblings_commit_says_so_on_its_page(tmp_path, page):
    """b's +2.5% step is found alone at c0106; detect places it at c0100, where a stepped.  b's
    page lists the change and its alert at c0100, each saying where the sibling changed, and the
    change's range still reaches c0106."""
    import numpy as np

    from test_detect_siblings import add, suite

    a, _ = suite()
    b = 1e6 * (1 + 0.02 * np.random.default_rng(54).standard_normal(200))
    b[100:] *= 1.025
    add(tmp_path / "history.db", 0, 200, {"a": a, "b": b})
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{tmp_path / 'history.db'}"}
    subprocess.run([sys.executable, "-m", "perfgate.cli", "detect"], env=env, capture_output=True)
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(tmp_path / "site")], env=env,
                   check=True, capture_output=True)
    _open(page, (tmp_path / "site" / "index.html").as_uri())
    page.locator("a.bench", has_text="b").first.click()
    page.wait_for_selector("html[data-ready='1']")
    assert page.locator("h1").inner_text() == "b"
    evidence = page.locator("section.measure").first.locator("table.evidence").inner_text()
    rows = [r for r in evidence.splitlines() if "c0100" in r]
    assert len(rows) == 2 and all("placed here because a [latency] changed here" in r for r in rows), evidence
    assert "range c0099..c0107" in evidence     # its range still holds c0106, where it was found alone
    _shot(page, "benchmark-placed")
    assert not page.errors, page.errors


# Each shaded band is an invisible lower line and the width stacked on it: its top, as ECharts
# stacked it, is every point's lower edge plus its width (null edges aside).
_BANDS_OFF_THEIR_EDGE = """() => Object.entries(window.PERFGATE_CHARTS).flatMap(([name, chart]) => {
    const list = [], off = [];
    chart.getModel().eachSeries(s => list.push(s));
    list.forEach((s, k) => {
        if (!s.get("stack") || !s.get("areaStyle")) return;
        const band = s.getData(), edge = list[k - 1].getData(), top = band.getCalculationInfo("stackResultDimension");
        for (let i = 0; i < band.count(); i++) {
            const want = edge.get(edge.mapDimension("y"), i) + band.get(band.mapDimension("y"), i);
            const got = band.get(top, i);
            if (!isNaN(want) && !(Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want)))) off.push([name, i, want, got]);
        }
    });
    return off;
})"""


def _scaling_and_spiky_site(root: Path, fixtures: Path) -> Path:
    """Pages of the two async-deinit tables (five value counts: a legend with a pager beside the
    side-by-side charts) and of a series whose harness bounds reach below zero."""
    from perfgate.model import Metric, Run, Testbed
    from perfgate.store.sqlite import SqliteStore

    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{root / 'history.db'}"}
    for i, shape in enumerate(("linear", "quadratic")):
        subprocess.run([sys.executable, "-m", "perfgate.cli", "ingest", "--branch", "main", "--commit", commit(i),
                        "--testbed", "tb", "--start-time", str(1.7e9 + i * 3600),
                        str(fixtures / "scaling-tsv" / f"async-deinit-quick-{shape}.tsv")], env=env, check=True,
                       capture_output=True)
    with SqliteStore(root / "history.db") as store:    # a harness's mean ∓ sd, the sd past the mean
        store.add_runs([Run("default", "main", commit(i), Testbed("tb"), [Metric("spiky", "latency", 10.0 + i % 3,
                                                                              lower=-5.0, upper=25.0)],
                            start_time=1.7e9 + i * 3600) for i in range(12)])
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(root / "site")], env=env,
                   check=True, capture_output=True)
    return root / "site"


def _open_each_page(page, site: Path):
    """The sweep page, then spiky's page, each ready."""
    for link in ("a.sweep", "a.bench"):
        _open(page, (site / "index.html").as_uri())
        page.locator(link).first.click()
        page.wait_for_selector("html[data-ready='1']")
        yield


def test_a_band_below_zero_is_drawn_on_its_lower_edge(tmp_path, page, fixtures):
    """An audit: the quadratic table's per-object coefficient is -1,445 [-1,676, -1,215], and its
    band in the coefficients' history was drawn from 0 to +461 (ECharts stacks a positive width on
    the positive stack, not on a negative edge); a series' bounds below zero the same."""
    for _ in _open_each_page(page, _scaling_and_spiky_site(tmp_path, fixtures)):
        assert page.evaluate(_BANDS_OFF_THEIR_EDGE) == []
    assert not page.errors, page.errors


# Where each chart's legend ends (ECharts keeps one of a legend's left and right: the room kept
# on the right is the right padding) and where its toolbox's first button starts.
_LEGEND_AND_TOOLBOX = """() => Object.entries(window.PERFGATE_CHARTS).flatMap(([name, c]) => {
    const legend = (c.getOption().legend || [])[0], toolbox = c.getModel().getComponent("toolbox");
    if (!legend || !toolbox) return [];
    const pad = [].concat(legend.padding), end = c.getWidth() - (legend.right || 0) - pad[pad.length > 1 ? 1 : 0];
    const buttons = c.getViewOfComponentModel(toolbox).group.children().map(g => {
        const b = g.getBoundingRect().clone();
        b.applyTransform(g.getComputedTransform());
        return b;
    }).filter(b => b.width < 40);
    return [[name, end, Math.min(...buttons.map(b => b.x))]];
})"""


def test_a_legend_stops_short_of_the_zoom_buttons(tmp_path, page, fixtures):
    """An audit: the side-by-side charts' legend pager sat on the zoom and restore buttons (its
    right: 110 was dropped by ECharts for its left: 10), and a benchmark page's legend of many
    branches would have reached under them too."""
    for _ in _open_each_page(page, _scaling_and_spiky_site(tmp_path, fixtures)):
        charts = page.evaluate(_LEGEND_AND_TOOLBOX)
        assert charts and all(end < button for _, end, button in charts), charts
    assert not page.errors, page.errors


def test_the_x_axis_can_be_the_commits_in_order(site, page):
    # A time axis stretches a burst of runs and squeezes a quiet month; asv and Bencher also
    # offer the commits in order, evenly spaced.
    _open(page, (site / "index.html").as_uri())
    page.locator("a.bench", has_text=BENCH).first.click()
    page.wait_for_selector("html[data-ready='1']")
    assert page.evaluate("window.PERFGATE_CHARTS.latency.getOption().xAxis[0].type") == "time"
    ticked = page.evaluate("window.PERFGATE_CHARTS.latency.getOption().legend[0].selected")
    page.locator("input[name='x-axis'][value='commits']").check()
    option = "window.PERFGATE_CHARTS.latency.getOption()"
    assert page.evaluate(f"{option}.xAxis[0].type") == "value"
    assert page.evaluate(f"{option}.legend[0].selected") == ticked           # the ticks stay as they were
    xs = page.evaluate("""() => {
        const o = window.PERFGATE_CHARTS.latency.getOption(), P = window.PERFGATE_PAGE;
        const list = P.series.filter(s => s.measure === 'latency');
        const out = {};
        list.forEach((s, k) => {
            const pts = o.series.find(x => x.id === 'pts' + k).data.map(d => d.value[0]);
            out[s.branch + ' @ ' + s.testbed] = {x: pts, commit: s.commit,
                lines: (o.series.find(x => x.id === 'pts' + k).markLine.data || []).map(l => l.xAxis),
                first: s.change_points.map(c => pts[c.index])};
        });
        return out;
    }""")
    main = xs["main @ tb"]
    assert all(isinstance(v, int) for v in main["x"]) and main["x"] == sorted(main["x"])
    assert len(set(main["x"])) == len(main["x"])
    assert main["lines"] == main["first"] and main["lines"]                   # the change point moves with it
    other = xs["main @ arm <i>64</i>"]
    shared = set(main["commit"]) & set(other["commit"])
    assert shared and all(main["x"][main["commit"].index(c)] == other["x"][other["commit"].index(c)] for c in shared)
    label = page.evaluate("window.PERFGATE_CHARTS.latency.getModel().getComponent('xAxis', 0).axis.scale"
                          ".getTicks().length") > 0
    y_labels = page.evaluate("window.PERFGATE_CHARTS.latency.getModel().getComponent('yAxis', 0).axis"
                             ".getViewLabels().map(l => l.formattedLabel)")
    assert len(y_labels) >= 3 and len(set(y_labels)) == len(y_labels), y_labels     # each tick reads apart
    assert label and not page.errors, page.errors
    # the axis ends at the first and last commit measured: no empty slots past them (an audit saw four)
    extent = page.evaluate("window.PERFGATE_CHARTS.latency.getModel().getComponent('xAxis', 0).axis.scale.getExtent()")
    every = [x for pts in xs.values() for x in pts["x"]]
    assert extent[0] in every and extent[1] in every           # (of the series ticked: a measured commit)
    # a change point's size sits at the line's end away from its new level, which is higher here
    # (an alert's pin on the first new point covered it at the top, and at mid-line its step did:
    # test_a_change_points_size_stands_clear_of_its_pin_and_its_step)
    labels = page.evaluate("""() => window.PERFGATE_CHARTS.latency.getOption().series.filter(x => x.markLine)
        .flatMap(x => x.markLine.data.map(l => l.label.position))""")
    assert labels and set(labels) == {"insideStartBottom"}
    _shot(page, "benchmark-commit-axis")
    url = page.url + ("&" if "?" in page.url else "?") + "x=commits"
    _open(page, url)
    assert page.evaluate(f"{option}.xAxis[0].type") == "value"
    assert page.locator("input[name='x-axis'][value='commits']").is_checked()


def test_the_pages_write_levels_as_the_terminal_does(site, page):
    # an audit saw "10.00 ms → 12.8 ms": 9.997 ms rounded up kept a digit too many
    from perfgate.report.series_data import scale_of
    from perfgate.units import human

    _open(page, (site / "index.html").as_uri())
    cases = [(9.997e6, "time", "latency"), (1.5e6, "time", "latency"), (99.96e3, "time", "latency"),
             (123456789, "count", "instructions"), (3 * 1024 ** 2, "bytes", "peak-rss")]
    shown = page.evaluate("cases => cases.map(c => PG.human(c[0], c[1]))", [[v, s] for v, s, _ in cases])
    assert shown == [human(v, m) for v, _, m in cases] and shown[0] == "10.0 ms"
    # a measure named by its unit, in it: the page's series carry scale_of's scale and factor
    named = [(v, m) for m in ("total-ns", "total-ms", "total-us", "rss-KiB", "total", "throughput", "items-s",
                              "bytes-per-ms")
             for v in (0.1235, 0.9996, 120e3, 0.12, 1536.0, 999.5, 7e14, None, -5e-4, 2e300)]
    shown = page.evaluate("cases => cases.map(c => PG.inUnit(c[0], c[1]))", [[v, scale_of(m)] for v, m in named])
    assert shown == [human(v, m) for v, m in named]
    assert shown[2] == "120 µs" and shown[10 + 3] == "120 µs" and shown[30] == "126 B"
    assert shown[10 + 6] == "7.00e+20 ns" and shown[8] == "-5.00e-04 ns"     # past what the units spell out
    assert shown[60 + 2] == "120k items/s" and shown[70 + 2] == "120k bytes/ms"   # a rate, never seconds
    # A first-time user's audit: the y axis round a 1.5% step read 13.9M, 13.9M, 13.8M, 13.8M.
    ticks = page.evaluate("() => { const sig = PG.axisDigits([13.72e6, 13.93e6, null]);"
                          " return [13.75e6, 13.8e6, 13.85e6, 13.9e6].map(v => PG.human(v, 'count', sig)); }")
    assert ticks == ["13.75M", "13.80M", "13.85M", "13.90M"]
    assert page.evaluate("PG.axisDigits([1e6, 5e6])") == 3 and page.evaluate("PG.axisDigits([7, 7])") == 3
    # names wrap after their separators, never inside a number ("objects=4" / "000"), and copy whole
    html, text = page.evaluate("() => { const d = document.createElement('div');"
                               " d.appendChild(PG.breakable('copy_array/values=100,objects=4000'));"
                               " return [d.innerHTML, d.textContent]; }")
    assert html == "copy_<wbr>array/<wbr>values=<wbr>100,<wbr>objects=<wbr>4000"
    assert text == "copy_array/values=100,objects=4000"


def test_a_chart_of_the_newest_runs_says_so_and_lists_the_change_before_it(site, page, tmp_path):
    """``pages --max-runs 15``: main @ tb's chart holds runs 35–49 and says it is the newest 15 of
    50; the step at run 30 and its alert are before it, so neither is drawn (no line, no pin, no
    mark button) but both are in the evidence table, and the chart's name says which runs it holds."""
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{site.parent / 'history.db'}"}
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(tmp_path / "site"), "--max-runs", "15"],
                   env=env, check=True, capture_output=True)
    _open(page, (tmp_path / "site" / "index.html").as_uri())
    page.locator("a.bench", has_text=BENCH).first.click()
    page.wait_for_selector("html[data-ready='1']")
    panel = page.locator("section.measure[data-measure='latency']")
    note = panel.locator("p.window").inner_text()
    assert note.startswith("Showing the newest 15 of 50 runs of ") and "15 of 50 runs of main @ tb" in note
    assert "(pages --max-runs)" in note and BRANCH_PR not in note      # its 10 runs are all drawn
    marks = page.evaluate("""() => {
        const o = window.PERFGATE_CHARTS.latency.getOption(), P = window.PERFGATE_PAGE;
        const list = P.series.filter(s => s.measure === 'latency');
        const k = list.findIndex(s => s.branch === 'main' && s.testbed === 'tb');
        const pts = o.series.find(x => x.id === 'pts' + k);
        return {points: pts.data.length, lines: (pts.markLine.data || []).length, pins: (pts.markPoint.data || []).length};
    }""")
    assert marks == {"points": 15, "lines": 0, "pins": 0}
    evidence = panel.locator("table.evidence").inner_text()
    assert "change point" in evidence and "alert (active)" in evidence and commit(STEP_AT)[:12] in evidence
    assert not any(commit(STEP_AT)[:12] in b and "main @ tb" in b for b in panel.locator("ul.pins button").all_inner_texts())
    assert "main @ tb, the newest 15 of 50 runs, latest" in panel.locator(".chart").get_attribute("aria-label")
    _shot(page, "benchmark-max-runs")
    assert not page.errors, page.errors


def test_the_index_orders_numbered_names_as_people_read_them(tmp_path, cli, page):
    """bench_10 came before bench_2 (the names compared letter by letter), in the rows and in the
    filters' options."""
    for i, name in enumerate(("bench_10", "bench_2", "bench_1")):
        run = tmp_path / f"{name}.json"
        run.write_text(json.dumps({name: {"latency": {"value": 100.0 + i}}}))
        cli("ingest", str(run), "--adapter", "bmf", "--branch", "main", "--commit", f"{i + 1:040x}",
            "--testbed", name.replace("bench", "host"), check=True)
    site = tmp_path / "site"
    cli("pages", "--out", str(site), check=True)
    _open(page, (site / "index.html").as_uri())
    page.click("th[data-key='benchmark']")
    names = page.locator("#rows tr.series-row a.bench").all_inner_texts()
    assert names in (["bench_1", "bench_2", "bench_10"], ["bench_10", "bench_2", "bench_1"]), names
    options = page.locator("#testbed option").all_inner_texts()
    assert [o.split(" ")[0] for o in options if o.startswith("host_")] == ["host_1", "host_2", "host_10"], options


@pytest.fixture(scope="module")
def closed(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A site of ``build_closed``'s series: a step down with an active alert at its line, an alert
    in each closed state, the first run dated 40 days before the rest; and the alerts' ids."""
    root = tmp_path_factory.mktemp("closed")
    ids = build_closed(root / "history.db", far_first=True)
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{root / 'history.db'}"}
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(root / "site")], env=env, check=True,
                   capture_output=True)
    return root / "site", ids


def _open_bench(page, site: Path, name: str) -> None:
    _open(page, (site / "index.html").as_uri())
    page.locator("a.bench", has_text=name).first.click()
    page.wait_for_selector("html[data-ready='1']")


def test_a_closed_alerts_row_reads_as_its_grey_pin(closed, page):
    """An audit: a withdrawn alert's row in the evidence table was red, a regression's colour,
    while its pin was grey.  Every closed state (withdrawn, undone by an alert or by a way back,
    a streak ended, acknowledged) has a grey pin and a grey row; an open alert is coloured by its
    direction in both."""
    site, ids = closed
    _open_bench(page, site, DROP)
    pins = dict(page.evaluate("""() => window.PERFGATE_CHARTS.latency.getOption().series.find(x => x.id === 'pts0')
        .markPoint.data.map(d => [d.evidence, d.itemStyle.color])"""))
    rows = page.evaluate("""() => [...document.querySelectorAll('table.evidence tbody tr')].map(tr => {
        const td = tr.querySelectorAll('td');
        return [tr.innerText, td[0].className, td[3].className, getComputedStyle(td[0]).color];
    })""")
    muted = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--muted').trim()")
    assert muted == "#667085"
    want = {"active": ("#1f7a4d", "good"), "fix": ("#1f7a4d", "good"), "withdrawn": ("#98a2b3", "closed"),
            "undone": ("#98a2b3", "closed"), "went_back": ("#98a2b3", "closed"), "ended": ("#98a2b3", "closed"),
            "acknowledged": ("#98a2b3", "closed")}
    assert set(ids) == set(want)
    for state, (pin, row_class) in want.items():
        [pin_color] = [c for text, c in pins.items() if ids[state] in text]
        [row] = [r for r in rows if ids[state] in r[0]]
        assert pin_color == pin and row[1] == row_class and row[2] == "num " + row_class, (state, pin_color, row)
        # drawn as the muted grey, not the regression red
        assert (row[3] == "rgb(102, 112, 133)") == (row_class == "closed"), (state, row)
    withdrawn = next(r for r in rows if ids["withdrawn"] in r[0])
    assert "no longer found at " + commit(22)[:12] in withdrawn[0]
    _shot(page, "benchmark-closed-alerts")
    _inert(page)


_MARK_BOXES = """(measure) => {
    // The drawn boxes of a chart's change point sizes ("-14.9%") and alert pins, and each change
    // point's step: the segment from the last point before it to its first, in pixels.
    const c = window.PERFGATE_CHARTS[measure], P = window.PERFGATE_PAGE;
    const box = el => { const r = el.getBoundingRect().clone(); r.applyTransform(el.getComputedTransform());
                        return [r.x, r.y, r.x + r.width, r.y + r.height]; };
    const shown = c.getZr().storage.getDisplayList();
    const labels = shown.filter(e => e.style && /^[+-][0-9]+[.][0-9]%$/.test(e.style.text || '')).map(box);
    // a pin's "!" is drawn by a span of the text its symbol hosts
    const host = e => e.__hostTarget || (e.parent && e.parent.__hostTarget);
    const pins = shown.filter(e => e.style && e.style.text === '!' && host(e)).map(e => box(host(e)));
    const steps = [];
    P.series.filter(s => s.measure === measure).forEach((s, k) => {
        if (!c.getOption().legend[0].selected[s.branch + ' @ ' + s.testbed]) return;
        s.drawn.forEach(cp => {
            const at = i => c.convertToPixel({seriesId: 'pts' + k}, [Date.parse(s.time[i]), s.value[i]]);
            steps.push([at(cp.index - s.skipped - 1), at(cp.index - s.skipped)]);
        });
    });
    return {labels, pins, steps};
}"""


def _clear_marks(page, measure: str) -> tuple[int, int]:
    """Asserts no change point's size is drawn on an alert pin or across its step; the counts of
    labels and pins."""
    got = page.evaluate(_MARK_BOXES, measure)
    labels, pins, steps = got["labels"], got["pins"], got["steps"]
    meet = lambda a, b: a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]   # noqa: E731
    for lab in labels:
        assert not any(meet(lab, pin) for pin in pins), (lab, pins)
        for (x0, y0), (x1, y1) in steps:
            crossed = [(x0 + (x1 - x0) * t / 100, y0 + (y1 - y0) * t / 100) for t in range(101)]
            assert not any(lab[0] < x < lab[2] and lab[1] < y < lab[3] for x, y in crossed), (lab, steps)
    return len(labels), len(pins)


@pytest.mark.parametrize("width", [1400, 800])
def test_a_change_points_size_stands_clear_of_its_pin_and_its_step(closed, site, browser, width):
    """An audit: the "-15.0%" drawn mid-line on a change point's dashed line sat on the alert pin
    at the same commit, half-way up the chart (and the step's own segment ran through it).  The
    size is drawn at the line's end away from the new level, on the new level's side: clear of
    both, for a step down (the closed site) and up (the main site, all testbeds ticked)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 1000})
    page = context.new_page()
    try:
        _open_bench(page, closed[0], DROP)
        assert _clear_marks(page, "latency") == (2, 7)
        page.locator("section.measure").first.screenshot(path=str(SHOTS / f"benchmark-step-down-{width}.png"))
        _open_bench(page, site, BENCH)
        page.locator("input[data-kind='testbed']").first.check()
        # both testbeds step at one commit: one size is written there, not two on one another
        assert _clear_marks(page, "latency") == (1, 1)
    finally:
        context.close()


_DATE_TICKS = """() => { const x = window.PERFGATE_CHARTS.latency.getOption().xAxis[0];
    return [x.axisLabel.customValues, x.axisTick.customValues,
            window.PERFGATE_CHARTS.latency.getModel().getComponent('xAxis', 0).axis.getViewLabels()
              .map(l => l.formattedLabel)]; }"""


def test_a_date_axis_ticks_at_regular_calendar_steps(closed, browser):
    """An audit: a date axis read "Dec 6, Dec 8, Dec 15" — ECharts' time ticks start again at each
    month's first day (and its last weekly tick ran past it into the next month), whatever the
    data's gaps.  The ticks are Mondays a week apart (a fixed step for every zoom), their labels
    each day's month and day, the year on the first; zoomed in, they are redrawn closer."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, timezone_id="UTC")
    page, errors = context.new_page(), []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        _open_bench(page, closed[0], DROP)
        values, ticks, labels = page.evaluate(_DATE_TICKS)
        assert values == ticks and len(values) >= 8
        gaps = {b - a for a, b in zip(values, values[1:])}
        assert gaps == {7 * 86400_000}, sorted(gaps)
        assert page.evaluate("(v) => v.map(t => new Date(t).getUTCDay())", values) == [1] * len(values)   # Mondays
        assert labels[0] == "Oct 2, 2023" and labels[1:4] == ["Oct 9", "Oct 16", "Oct 23"], labels
        page.locator("section.measure").first.screenshot(path=str(SHOTS / "benchmark-date-ticks.png"))
        # the zoom buttons' restore before any zoom: the same ticks (they were remembered as set
        # while the restore had cleared them, and ECharts' own ticks got blank labels)
        _restore(page, "latency")
        assert page.evaluate(_DATE_TICKS) == [values, ticks, labels]
        # zoomed to the last ten days: a day apart, redrawn after the zoom
        last = page.evaluate("Date.parse(window.PERFGATE_PAGE.series[0].time.at(-1))")
        page.evaluate("(t) => window.PERFGATE_CHARTS.latency.dispatchAction({type: 'dataZoom', dataZoomIndex: 0,"
                      " startValue: t - 10 * 86400000, endValue: t})", last)
        page.wait_for_function("window.PERFGATE_CHARTS.latency.getOption().xAxis[0].axisLabel.customValues.length < 12"
                               " && window.PERFGATE_CHARTS.latency.getOption().xAxis[0].axisLabel.customValues[1]"
                               " - window.PERFGATE_CHARTS.latency.getOption().xAxis[0].axisLabel.customValues[0]"
                               " === 86400000")
        values, ticks, labels = page.evaluate(_DATE_TICKS)
        assert values == ticks and {b - a for a, b in zip(values, values[1:])} == {86400_000}
        assert len(labels) == len(values) and labels[0].endswith(", 2023"), labels
        assert all(re.fullmatch(r"Dec \d+", t) for t in labels[1:]), labels
        # the zoom buttons' restore: weekly again
        page.evaluate("window.PERFGATE_CHARTS.latency.dispatchAction({type: 'restore'})")
        page.wait_for_function("(window.PERFGATE_CHARTS.latency.getOption().xAxis[0].axisLabel.customValues || [])"
                               ".length >= 8")
        values, ticks, _ = page.evaluate(_DATE_TICKS)
        assert values == ticks and {b - a for a, b in zip(values, values[1:])} == {7 * 86400_000}
        # a narrower window: fewer ticks, every other Monday
        page.set_viewport_size({"width": 800, "height": 1000})
        page.wait_for_function("(window.PERFGATE_CHARTS.latency.getOption().xAxis[0].axisLabel.customValues || [])"
                               ".length < 8")
        values, ticks, _ = page.evaluate(_DATE_TICKS)
        assert values == ticks and {b - a for a, b in zip(values, values[1:])} == {14 * 86400_000}
        assert not errors, errors
    finally:
        context.close()


_TICK_LEFT_OF_EACH_POINT = """() => {
    // Each point in the zoomed window: the date its tooltip writes and the label of the last tick
    // at or before it (the day it is drawn in).
    const c = window.PERFGATE_CHARTS.latency, s = window.PERFGATE_PAGE.series[0];
    const ticks = c.getOption().xAxis[0].axisLabel.customValues;
    const labels = c.getModel().getComponent('xAxis', 0).axis.getViewLabels();
    const tip = c.getOption().tooltip[0].formatter;
    return s.time.map((iso, i) => [Date.parse(iso), i]).filter(([t]) => t >= ticks[0] && t < ticks.at(-1))
        .map(([t, i]) => {
            const left = ticks.filter(v => v <= t).length - 1;       // labels and ticks are one list
            return [tip({data: {i, k: 0}}).split('<br>')[2], labels[left].formattedLabel];
        });
}"""


@pytest.mark.parametrize("zone", ["Australia/Sydney", "America/New_York", "Asia/Kolkata"])
def test_a_date_axis_is_in_utc_whatever_the_readers_zone(closed, browser, zone):
    """The ticks were at the reader's local midnights while the tooltips and tables write UTC:
    in Sydney a run at 14:40 UTC on Nov 5 sat right of a tick "Nov 6"; in New York the weekly
    ticks were 7 days and an hour apart across the end of daylight saving (Nov 5, 2023); in
    Kolkata they fell at 18:30 UTC.  The axis is UTC, and says so: Monday midnights a week
    apart, the labels of a UTC reader, each point right of its tooltip's day."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, timezone_id=zone)
    page, errors = context.new_page(), []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        _open_bench(page, closed[0], DROP)
        assert page.evaluate("new Date(Date.UTC(2023, 10, 5, 15)).getTimezoneOffset()") != 0    # the zone took
        assert page.evaluate("window.PERFGATE_CHARTS.latency.getOption().xAxis[0].name") == "date (UTC)"
        values, ticks, labels = page.evaluate(_DATE_TICKS)
        assert values == ticks and len(values) >= 8
        assert {v % 86400_000 for v in values} == {0}                           # UTC midnights
        assert {b - a for a, b in zip(values, values[1:])} == {7 * 86400_000}
        assert page.evaluate("(v) => v.map(t => new Date(t).getUTCDay())", values) == [1] * len(values)
        assert labels[0] == "Oct 2, 2023" and labels[1:4] == ["Oct 9", "Oct 16", "Oct 23"], labels
        # zoomed in to days: each point is drawn right of the tick of its tooltip's date
        last = page.evaluate("Date.parse(window.PERFGATE_PAGE.series[0].time.at(-1))")
        page.evaluate("(t) => window.PERFGATE_CHARTS.latency.dispatchAction({type: 'dataZoom', dataZoomIndex: 0,"
                      " startValue: t - 10 * 86400000, endValue: t})", last)
        page.wait_for_function("window.PERFGATE_CHARTS.latency.getOption().xAxis[0].axisLabel.customValues.length < 12")
        values, _, _ = page.evaluate(_DATE_TICKS)
        assert {v % 86400_000 for v in values} == {0} and {b - a for a, b in zip(values, values[1:])} == {86400_000}
        _, ticks, labels = page.evaluate(_DATE_TICKS)
        assert len(labels) == len(ticks), labels
        pairs = page.evaluate(_TICK_LEFT_OF_EACH_POINT)
        assert len(pairs) >= 8, pairs
        months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        for when, label in pairs:
            year, month, day = re.match(r"(\d{4})-(\d\d)-(\d\d)T", when).groups()
            assert label.split(",")[0] == f"{months[int(month) - 1]} {int(day)}", (when, label)
        assert not errors, errors
    finally:
        context.close()


@pytest.fixture(scope="module")
def backfilled(tmp_path_factory) -> Path:
    """A site of ``build_backfilled``'s benchmark: half a year backfilled, then a day of runs."""
    root = tmp_path_factory.mktemp("backfilled")
    build_backfilled(root / "history.db")
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{root / 'history.db'}"}
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(root / "site")], env=env, check=True,
                   capture_output=True)
    return root / "site"


_NUMBER_AND_UNIT = re.compile(r"^(-?\d+(?:\.\d+)?) ?(.*)$")


def _round_ticks(labels: list[str]) -> tuple[list[float], float, str]:
    """Asserts the labels are evenly spaced round numbers of one unit (1, 2 or 5 times a power of
    ten apart, each a multiple of that step); their numbers, the step and the unit."""
    parsed = [_NUMBER_AND_UNIT.match(t) for t in labels]
    assert len(labels) >= 3 and all(parsed), labels
    numbers, units = [float(m[1]) for m in parsed], {m[2] for m in parsed}
    assert len(units) == 1, labels
    steps = [b - a for a, b in zip(numbers, numbers[1:])]
    step = steps[0]
    assert all(abs(s - step) < 1e-9 * step for s in steps), labels
    mantissa = step / 10 ** math.floor(math.log10(step) + 1e-9)
    assert any(abs(mantissa - k) < 1e-9 for k in (1, 2, 5)), (labels, step)
    assert all(abs(v / step - round(v / step)) < 1e-6 for v in numbers), labels
    return numbers, step, units.pop()


def test_value_axes_tick_at_round_numbers_of_the_unit_they_are_written_in(backfilled, site, page):
    """An audit: a peak RSS axis read 11.44 / 11.73 / 12.02 MiB — ECharts' round numbers of bytes
    (300,000 apart) written in MiB.  Each measure kind's ticks are round in the unit shown, the axis
    holds every value, and the tooltip and the table of points still write each value exactly
    as the terminal does."""
    from perfgate.units import human

    _open_bench(page, backfilled, BACKFILLED)
    want = {"peak-rss": "MiB", "latency": "µs", "instructions": "G", "throughput": "k ops/s"}
    for measure, unit in want.items():
        numbers, step, shown = _round_ticks(page.evaluate(_Y_LABELS, measure))
        assert shown == unit, (measure, shown)
        s = page.evaluate("m => window.PERFGATE_PAGE.series.find(s => s.measure === m)", measure)
        drawn = [v for v in s["value"] + s["lower"] + s["upper"] if v is not None]
        extent = page.evaluate(f"window.PERFGATE_CHARTS['{measure}'].getModel().getComponent('yAxis').axis"
                               ".scale.getExtent()")
        assert extent[0] <= min(drawn) and max(drawn) <= extent[1], (measure, extent)
        i = len(s["value"]) - 1
        tip = page.evaluate(f"window.PERFGATE_CHARTS['{measure}'].getOption().tooltip[0]"
                            f".formatter({{data: {{i: {i}, k: 0}}}})")
        assert f"{measure} <strong>{human(s['value'][i], measure)}</strong>" in tip, tip
        panel = page.locator(f"section.measure[data-measure='{measure}']")
        panel.locator("details.points summary").click()
        row = panel.locator("details.points tbody tr").last
        row.wait_for()                  # the table is built when the details open
        cells = row.locator("td").all_inner_texts()
        assert cells[3] == human(s["value"][i], measure), cells
    # a rate's axis names its own unit, as its tooltip does (items-s: items/s, not ops/s)
    label = page.evaluate("PG.axisTicks([1200, 1900], {scale: 'rate', factor: 1, per: 'items/s'}).label(1500)")
    assert label == "1.5k items/s" and human(1500, "items-s") == "1.50k items/s", label
    # unticking a testbed fits the axis to what is left, in round steps still
    _open_bench(page, site, BENCH)
    page.locator("input[data-kind='testbed']").first.check()
    every, _, _ = _round_ticks(page.evaluate(_Y_LABELS, "latency"))
    page.locator("input[data-kind='testbed'][data-value='arm <i>64</i>']").uncheck()
    fewer, _, _ = _round_ticks(page.evaluate(_Y_LABELS, "latency"))
    assert fewer[-1] < every[-1], (every, fewer)                # arm's runs are 1.6 times tb's
    assert not page.errors, page.errors


# Where a chart's legend draws a series' name, on the page.
_LEGEND_ITEM = """([measure, name]) => {
    const c = window.PERFGATE_CHARTS[measure], dom = c.getDom().getBoundingClientRect();
    const [text] = c.getZr().storage.getDisplayList().filter(e => e.style && e.style.text === name);
    const r = text.getBoundingRect().clone();
    r.applyTransform(text.getComputedTransform());
    return [dom.left + r.x + r.width / 2, dom.top + r.y + r.height / 2];
}"""
_Y_EXTENT = "m => window.PERFGATE_CHARTS[m].getModel().getComponent('yAxis').axis.scale.getExtent()"


def _settled(page, measure: str, action: str) -> None:
    """Runs a chart action and waits for its renders to end (a label spacing renders again)."""
    page.evaluate("""async ([measure, action]) => {
        const c = window.PERFGATE_CHARTS[measure];
        let n = 0;
        const count = () => { n++; };
        c.on("finished", count);
        c.dispatchAction(JSON.parse(action));
        for (let seen = -1; seen !== n; ) { seen = n; await new Promise(r => setTimeout(r, 200)); }
        c.off("finished", count);
    }""", [measure, action])


def test_the_y_axis_follows_the_legend_through_zooms(site, page):
    """The legend's choice is the page's own state (reading it back copied every point of the
    chart after each render): a series clicked off in the legend stays out of the y axis and of
    the change point sizes through a zoom, and comes back when clicked on again."""
    _open_bench(page, site, BENCH)
    page.locator("input[data-kind='testbed']").first.check()          # both testbeds: arm runs 1.6 times tb
    series = page.evaluate("() => window.PERFGATE_PAGE.series.filter(s => s.measure === 'latency')")
    values = {f"{s['branch']} @ {s['testbed']}": [v for v in s["value"] + s["lower"] + s["upper"] if v is not None]
              for s in series}
    arm, tb = "main @ arm <i>64</i>", "main @ tb"
    low, high = page.evaluate(_Y_EXTENT, "latency")
    assert low <= min(values[tb]) and max(values[arm]) <= high
    assert _clear_marks(page, "latency") == (1, 1)       # both step at one commit: one size written
    page.mouse.click(*page.evaluate(_LEGEND_ITEM, ["latency", arm]))
    page.wait_for_function(f"({_Y_EXTENT})('latency')[1] < {min(values[arm])}")
    assert page.evaluate("window.PERFGATE_CHARTS.latency.getOption().legend[0].selected")[arm] is False
    assert _clear_marks(page, "latency") == (1, 1)       # tb's size is written, not hidden by arm's
    fitted = page.evaluate(_Y_EXTENT, "latency")
    assert fitted[0] <= min(values[tb]) and max(values[tb]) <= fitted[1] < min(values[arm]), fitted
    _settled(page, "latency", '{"type": "dataZoom", "start": 40, "end": 90}')
    assert page.evaluate(_Y_EXTENT, "latency") == fitted
    assert _clear_marks(page, "latency") == (1, 1)
    page.mouse.click(*page.evaluate(_LEGEND_ITEM, ["latency", arm]))        # on again
    page.wait_for_function(f"({_Y_EXTENT})('latency')[1] >= {max(values[arm])}")
    _settled(page, "latency", '{"type": "dataZoom", "start": 20, "end": 80}')
    low, high = page.evaluate(_Y_EXTENT, "latency")
    assert low <= min(values[tb]) and max(values[arm]) <= high
    assert _clear_marks(page, "latency") == (1, 1)
    # the zoom buttons' restore forgets the legend's clicks: the series ticked above, both testbeds
    page.mouse.click(*page.evaluate(_LEGEND_ITEM, ["latency", arm]))
    _settled(page, "latency", '{"type": "restore"}')
    assert page.evaluate("window.PERFGATE_CHARTS.latency.getOption().legend[0].selected").get(arm) is not False
    assert page.evaluate(_Y_EXTENT, "latency")[1] >= max(values[arm])
    assert not page.errors, page.errors


# Where a chart's toolbox button (its title: "Zoom", "Zoom Reset", "Restore") is, on the page.
_TOOLBOX_BUTTON = """([measure, title]) => {
    const c = window.PERFGATE_CHARTS[measure], dom = c.getDom().getBoundingClientRect();
    const [icon] = c.getZr().storage.getDisplayList().filter(e => e.__title === title);
    const r = icon.getBoundingRect().clone();
    r.applyTransform(icon.getComputedTransform());
    return [dom.left + r.x + r.width / 2, dom.top + r.y + r.height / 2];
}"""
_X_TICKS = """m => { const x = window.PERFGATE_CHARTS[m].getModel().getComponent('xAxis', 0);
    return [x.get(['axisLabel', 'customValues']) || null, x.axis.getViewLabels().map(l => l.formattedLabel)]; }"""


def _restore(page, measure: str) -> None:
    """Clicks a chart's restore button and waits for its renders to end; the mouse then leaves it."""
    page.evaluate("""m => { window.RENDERS = 0; window.COUNT_RENDERS = () => { window.RENDERS++; };
                            window.PERFGATE_CHARTS[m].on("finished", window.COUNT_RENDERS); }""", measure)
    page.mouse.click(*page.evaluate(_TOOLBOX_BUTTON, [measure, "Restore"]))
    page.evaluate("""async m => {
        for (let seen = -1; seen !== window.RENDERS; ) { seen = window.RENDERS; await new Promise(r => setTimeout(r, 200)); }
        window.PERFGATE_CHARTS[m].off("finished", window.COUNT_RENDERS);
    }""", measure)
    page.mouse.move(0, 0)


def test_the_zoom_buttons_restore_shows_what_the_ticks_say(site, page):
    """An audit: the zoom buttons' restore puts back the chart's first option, whose legend shows
    every series: the branches and testbeds unticked above came back on the chart and into its y
    axis, while the ticks, the points table and what a screen reader hears left them out.  After
    a restore the chart shows the ticked series, the y axis fitted to them, its date ticks set
    again (a restore that set the legend left the axis without them: ECharts drops a setOption
    made while another one renders, and the ticks were remembered as set)."""
    _open_bench(page, site, BENCH)                     # the index's link: main @ tb alone
    legend = "window.PERFGATE_CHARTS.latency.getOption().legend[0].selected"
    arm, tb, pr = "main @ arm <i>64</i>", "main @ tb", f"{BRANCH_PR} @ tb"
    assert page.evaluate(legend) == {tb: True, arm: False, pr: False}
    series = page.evaluate("() => window.PERFGATE_PAGE.series.filter(s => s.measure === 'latency')")
    values = {f"{s['branch']} @ {s['testbed']}": [v for v in s["value"] + s["lower"] + s["upper"] if v is not None]
              for s in series}
    fitted = page.evaluate(_Y_EXTENT, "latency")
    assert fitted[1] < min(values[arm]), fitted
    ticks = page.evaluate(_X_TICKS, "latency")
    assert ticks[0] and all(ticks[1]), ticks
    marks = _clear_marks(page, "latency")
    section = page.locator("section.measure[data-measure='latency']")
    said = section.locator(".chart").get_attribute("aria-label")
    assert tb in said and arm not in said and pr not in said
    SHOTS.mkdir(parents=True, exist_ok=True)
    section.screenshot(path=str(SHOTS / "benchmark-before-restore.png"))
    for zoom in ('{"type": "dataZoom", "start": 40, "end": 90}', None):     # after a zoom, and without one
        if zoom:
            _settled(page, "latency", zoom)
        _restore(page, "latency")
        assert page.evaluate(legend) == {tb: True, arm: False, pr: False}
        assert page.evaluate(_Y_EXTENT, "latency") == fitted
        assert page.evaluate(_X_TICKS, "latency") == ticks
        assert _clear_marks(page, "latency") == marks
        assert section.locator(".chart").get_attribute("aria-label") == said
    section.screenshot(path=str(SHOTS / "benchmark-after-restore.png"))
    assert not page.errors, page.errors


def test_the_zoom_buttons_restore_keeps_one_size_where_two_would_meet(site, page):
    """An audit: after a restore the change point sizes the label spacing had hidden were drawn
    again ("+30.1%" over "+30.2%": both testbeds step at one commit), the spacing remembering it
    had hidden them; restored with or without a zoom first, one size is written there."""
    _open_bench(page, site, BENCH)
    page.locator("input[data-kind='testbed']").first.check()          # both testbeds
    assert _clear_marks(page, "latency") == (1, 1)
    SHOTS.mkdir(parents=True, exist_ok=True)
    _restore(page, "latency")
    assert _clear_marks(page, "latency") == (1, 1)
    page.locator("section.measure[data-measure='latency']").screenshot(path=str(SHOTS / "benchmark-sizes-restored.png"))
    _settled(page, "latency", '{"type": "dataZoom", "start": 50, "end": 70}')
    _restore(page, "latency")
    assert _clear_marks(page, "latency") == (1, 1)
    assert not page.errors, page.errors


_TEXT_BOXES = """(measure) => {
    // Every text a chart draws with its box, and the change point sizes' boxes.
    const c = window.PERFGATE_CHARTS[measure];
    const box = el => { const r = el.getBoundingRect().clone(); r.applyTransform(el.getComputedTransform());
                        return [r.x, r.y, r.x + r.width, r.y + r.height]; };
    const texts = c.getZr().storage.getDisplayList().filter(e => e.style && e.style.text && !e.ignore && !e.invisible);
    return {width: c.getWidth(), height: c.getHeight(), texts: texts.map(e => [e.style.text, box(e)]),
            sizes: texts.filter(e => /^[+-][0-9]+[.][0-9]%$/.test(e.style.text)).map(box)};
}"""


@pytest.mark.parametrize("width", [1400, 800])
def test_dates_that_crowd_the_runs_open_in_commit_order_and_no_label_is_cut(backfilled, browser, width):
    """A new user's audit: a history backfilled at its commits' dates and then run on a day's
    commits drew that day — and its two change points' labels — in the date axis' last pixels.
    Such a page opens with the commits in order (a tenth of them within a fiftieth of the dates'
    span); ``?x=date`` still opens dates.  In either, every text of every chart is inside it and
    no change point size is drawn on another: on dates the two steps' lines are a few pixels
    apart and only the newest's size is written, until a zoom draws them apart."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": 1000})
    page, errors = context.new_page(), []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        _open_bench(page, backfilled, BACKFILLED)
        assert page.evaluate("window.PERFGATE_CHARTS.latency.getOption().xAxis[0].type") == "value"
        assert page.locator("input[name='x-axis'][value='commits']").is_checked()
        url = page.url.split("&x=")[0]
        for mode, kind in (("commits", "value"), ("date", "time")):
            _open(page, f"{url}&x={mode}")
            assert page.evaluate("window.PERFGATE_CHARTS.latency.getOption().xAxis[0].type") == kind
            page.locator("section.measure").first.screenshot(path=str(SHOTS / f"benchmark-backfilled-{mode}-{width}.png"))
            for measure in ("latency", "peak-rss", "instructions", "throughput"):
                got = page.evaluate(_TEXT_BOXES, measure)
                w, h = got["width"], got["height"]
                out = [(t, b) for t, b in got["texts"] if b[0] < 0 or b[1] < 0 or b[2] > w or b[3] > h]
                assert not out, (mode, measure, out)
                sizes = got["sizes"]
                # both steps' sizes on commits; on dates the newest only, the two lines a few pixels apart
                assert len(sizes) == (2 if mode == "commits" else 1), (mode, measure, sizes)
                assert not any(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
                               for i, a in enumerate(sizes) for b in sizes[i + 1:]), (mode, measure, sizes)
        # zoomed in to the day, the dates draw the two lines apart, and both sizes again
        last = page.evaluate("Date.parse(window.PERFGATE_PAGE.series[0].time.at(-1))")
        page.evaluate("(t) => window.PERFGATE_CHARTS.latency.dispatchAction({type: 'dataZoom', dataZoomIndex: 0,"
                      " startValue: t - 86400000, endValue: t})", last)
        page.wait_for_function("(m) => window.PERFGATE_CHARTS.latency.getZr().storage.getDisplayList()"
                               ".filter(e => e.style && /^[+-][0-9]+[.][0-9]%$/.test(e.style.text || '')).length === 2",
                               arg=None)
        page.locator("section.measure[data-measure='latency']").screenshot(
            path=str(SHOTS / f"benchmark-backfilled-date-zoomed-{width}.png"))
        assert not errors, errors
    finally:
        context.close()


def test_dates_crowd_the_runs_when_a_tenth_of_them_share_a_fiftieth_of_the_span(site, page):
    _open_bench(page, site, BENCH)          # a benchmark page loads timeaxis.js
    day = 86400_000
    cases = {
        "daily": [i * day for i in range(45)],
        "one old commit 40 days before daily runs": [-40 * day] + [i * day for i in range(1, 45)],
        "hourly, a second branch's runs among the last ten": sorted([i * 3600e3 for i in range(50)]
                                                                    + [(40 + i) * 3600e3 for i in range(10)]),
        "half a year every third day, then 18 in a day": [i * 3 * day for i in range(60)]
                                                          + [380 * day + i * 3600e3 for i in range(18)],
        "a burst of 3 among 10": [i * 20 * day for i in range(7)] + [200 * day + i * 60e3 for i in range(3)],
    }
    got = page.evaluate("cs => Object.fromEntries(Object.entries(cs).map(([k, t]) => [k, PG_TIME.crowded(t)]))", cases)
    assert got == {"daily": False, "one old commit 40 days before daily runs": False,
                   "hourly, a second branch's runs among the last ten": False,
                   "half a year every third day, then 18 in a day": True, "a burst of 3 among 10": True}, got


def test_runs_measured_under_load_are_drawn_hollow_and_say_so(tmp_path, page):
    """The change point search leaves runs measured under load out and the threshold test holds a
    streak the load explains: on the page such a spike is drawn hollow, its tooltip and the points
    table give the share of the CPU others took, and a note under the chart says what that means."""
    from perfgate import host_load
    from perfgate.model import Metric, Run, Testbed
    from perfgate.store.sqlite import SqliteStore

    loaded = {12: 0.6, 13: 0.55}
    with SqliteStore(tmp_path / "history.db") as store:
        store.add_runs([Run("default", "main", commit(i), Testbed("tb"),
                            [Metric("spiky", "latency", 1e8 * (1 + 0.01 * math.sin(i)) / (1 - loaded.get(i, 0.0))),
                             Metric("spiky", "instructions", 1e9)],
                            start_time=1.7e9 + i * 3600,
                            context={host_load.KEY: {host_load.CONTENDED: loaded.get(i, 0.0), "cpus": 2}})
                        for i in range(20)])
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{tmp_path / 'history.db'}"}
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(tmp_path / "site")], env=env,
                   check=True, capture_output=True)
    _open(page, (tmp_path / "site" / "index.html").as_uri())
    page.locator("a.bench", has_text="spiky").first.click()
    page.wait_for_selector("html[data-ready='1']")
    latency = page.locator("section.measure[data-measure='latency']")
    assert latency.locator("p.loaded").inner_text().startswith("2 hollow point(s) were measured while the machine "
                                                               "was loaded")
    # an instruction count is no wall time: its runs are not marked, whatever their load
    assert page.locator("section.measure[data-measure='instructions'] p.loaded").count() == 0
    styles = page.evaluate("""() => window.PERFGATE_CHARTS['latency'].getOption().series
        .find(s => s.id === 'pts0').data.map(d => d.itemStyle ? d.itemStyle.color : null)""")
    assert [i for i, c in enumerate(styles) if c == "#fff"] == [12, 13]
    latency.locator(".chart").scroll_into_view_if_needed()
    x, y = _point_position(page, "latency", "main", "tb", 12)
    page.mouse.move(x, y)
    tip = latency.locator(".pg-tip")
    tip.wait_for(state="visible")
    assert "measured while the machine was loaded: other processes took 60% of the CPU it needed" in tip.inner_text()
    _shot(page, "benchmark-loaded")
    points = latency.locator("details.points")
    points.locator("summary").click()
    points.locator("tbody tr").first.wait_for()
    assert "CPU others took (loaded runs)" in points.locator("thead").text_content()
    cells = [points.locator("tbody tr").nth(i).locator("td").last.inner_text() for i in (11, 12, 13)]
    assert cells == ["", "60%", "55%"]
    _inert(page)
