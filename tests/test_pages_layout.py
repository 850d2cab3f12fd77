"""The trend pages' layout in Debian's chromium at a desktop's 1280×800 and a phone's 390×844: a
phone's legend opens on the series ticked, clear of the zoom buttons; an axis' name clears its tick
labels and the zoom slider; tables fit or scroll in their own box, formulas never cut mid-number;
unticking every series says so and empties the evidence; a user counter claims no direction, a
one-run series draws its interval; a sweep page leads with one model everywhere.  (The rest of the
pages' browser tests are in tests/test_pages_browser.py.)"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from pages_data import BENCH, build, commit
from test_pages_browser import CHROMIUM, browser  # noqa: F401  (browser: the fixture, shared)
from test_pages_sweeps import COMMITS, NAME, _commit, _table

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason=f"{CHROMIUM} is not installed")]

DESKTOP, PHONE = (1280, 800), (390, 844)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """pages_data's history, a one-parameter sweep ingested through the CLI, a Google Benchmark
    user counter and a series of one run with an interval."""
    from perfgate.model import Metric, Run
    from perfgate.model import Testbed as Bed
    from perfgate.store.sqlite import SqliteStore

    root = tmp_path_factory.mktemp("layout")
    build(root / "history.db")
    env = {**os.environ, "PERFGATE_STORE": f"sqlite:{root / 'history.db'}"}
    rng = random.Random(2)
    for i in range(COMMITS):
        path = root / f"sweep-{i}.tsv"
        path.write_text(_table(rng, i >= 3))
        subprocess.run([sys.executable, "-m", "perfgate.cli", "ingest", str(path), "--adapter", "scaling-tsv",
                        "--branch", "main", "--commit", _commit(i), "--testbed", "tb", "--start-time",
                        str(1.7e9 + 100 * 3600 + i * 3600)], env=env, check=True, capture_output=True)
    with SqliteStore(root / "history.db") as store:
        store.add_runs([Run("default", "main", commit(i), Bed("tb", {"cpu_model": "test <cpu>"}), [Metric("BM_Accumulate", "checksum_mod", 560.0)]
                            + ([Metric("lonely", "latency", 5e8, 4.9e8, 5.1e8)] if i == 0 else []),
                            start_time=1.7e9 + i * 3600 + 7) for i in range(5)])
    subprocess.run([sys.executable, "-m", "perfgate.cli", "pages", "--out", str(root / "site")], env=env, check=True,
                   capture_output=True)
    return root / "site"


@pytest.fixture
def at(browser):
    """at((width, height), url): a page of that size, opened and ready (nothing leaves file://)."""
    contexts = []

    def open_(size, url):
        context = browser.new_context(viewport={"width": size[0], "height": size[1]})
        context.route(lambda u: not u.startswith("file:"), lambda route: route.abort())
        contexts.append(context)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.goto(url)
        page.wait_for_selector("html[data-ready='1']", timeout=15_000)
        return page

    yield open_
    for c in contexts:
        c.close()


def _benchmark(site: Path, name: str, **params) -> str:
    from urllib.parse import urlencode

    from perfgate.report.pages import page_id
    return (site / "benchmark.html").as_uri() + "?" + urlencode({"b": page_id(name), **params})


def _sweep(site: Path) -> str:
    from perfgate.report.pages import page_id
    return (site / "sweep.html").as_uri() + "?s=" + page_id("sweep", NAME, "main", "tb")


# Each chart's bottom: the tick labels' lowest edge, the axis name's top and bottom, the slider's top.
_UNDER_THE_PLOT = """() => Object.entries(window.PERFGATE_CHARTS).flatMap(([name, c]) => {
    const rect = el => { const b = el.getBoundingRect().clone(); b.applyTransform(el.getComputedTransform()); return b; };
    const axis = c.getModel().getComponent("xAxis"), slider = c.getModel().getComponent("dataZoom", 1);
    if (!axis || !slider) return [];
    const texts = [];
    c.getViewOfComponentModel(axis).group.traverse(el => {
        if (el.type === "text" && el.style.text && !el.ignore && !el.invisible) texts.push(el);
    });
    const title = rect(texts.find(el => el.style.text === axis.get("name")));
    const labels = texts.filter(el => el.style.text !== axis.get("name")).map(rect);
    return [[name, Math.max(...labels.map(b => b.y + b.height)), title.y, title.y + title.height,
             rect(c.getViewOfComponentModel(slider).group).y]];
})"""


@pytest.mark.parametrize("size", [DESKTOP, PHONE])
def test_an_axis_name_sits_between_its_labels_and_the_zoom_slider(site, at, size):
    """It sat on the slider on every chart (grid 70 px up, slider 10 px up, name 24–28 px down)."""
    for url in (_benchmark(site, BENCH, measure="latency"), _sweep(site)):
        page = at(size, url)
        charts = page.evaluate(_UNDER_THE_PLOT)
        assert charts and all(labels < top and bottom + 4 <= slider for _, labels, top, bottom, slider in charts), charts
        assert not page.errors, page.errors


def test_a_phone_legend_opens_on_the_ticked_series_clear_of_the_zoom_buttons(site, at):
    """On a phone a link to main @ tb showed page 1 of the legend, an unticked series, and the
    pager's arrows touched the toolbox."""
    page = at(PHONE, _benchmark(site, BENCH, measure="latency", branch="main", testbed="tb"))
    legend = page.evaluate("""() => {
        const c = window.PERFGATE_CHARTS.latency, legend = c.getModel().getComponent("legend");
        const rect = el => { const b = el.getBoundingRect().clone(); b.applyTransform(el.getComputedTransform()); return b; };
        const pager = c.getViewOfComponentModel(legend)._controllerGroup.children().map(rect);
        const buttons = c.getViewOfComponentModel(c.getModel().getComponent("toolbox")).group.children().map(rect)
            .filter(b => b.width < 40);      // its buttons, not its background
        return {names: legend.getData().map(d => d.get("name")), first: legend.get("scrollDataIndex"),
                pager: Math.max(...pager.map(b => b.x + b.width)), toolbox: Math.min(...buttons.map(b => b.x))};
    }""")
    assert legend["names"][legend["first"]] == "main @ tb", legend
    assert legend["pager"] + 16 <= legend["toolbox"], legend
    assert not page.errors, page.errors


def test_unticking_every_series_says_so_and_empties_the_evidence(site, at):
    page = at(DESKTOP, _benchmark(site, BENCH, measure="latency"))
    panel = page.locator("section.measure[data-measure='latency']")
    assert panel.locator("table.evidence tbody tr").count() > 0 and not panel.locator("p.none").is_visible()
    for box in page.locator("input[data-kind='branch']").all():
        box.uncheck()
    assert panel.locator("p.none").is_visible() and "No series ticked" in panel.locator("p.none").inner_text()
    assert panel.locator("table.evidence").count() == 0          # its change point and alert rows stayed
    page.locator("input[data-kind='branch'][data-value='main']").check()
    rows = panel.locator("table.evidence tbody tr").all_inner_texts()
    assert rows and all("main @" in r for r in rows) and not panel.locator("p.none").is_visible()
    assert not page.errors, page.errors


def test_a_counter_claims_no_direction_and_one_run_draws_its_interval(site, at):
    page = at(DESKTOP, _benchmark(site, "BM_Accumulate"))
    assert page.locator("section.measure h3").all_inner_texts() == ["checksum_mod"]     # "(lower is better)"
    page = at(DESKTOP, _benchmark(site, "lonely"))
    assert page.locator("section.measure h3").inner_text() == "latency (lower is better)"
    bars = page.evaluate("""() => window.PERFGATE_CHARTS.latency.getOption().series
        .filter(s => /^bar/.test(s.id)).map(s => s.data)""")
    assert bars == [[[bars[0][0][0], 4.9e8], [bars[0][0][0], 5.1e8], [bars[0][0][0], None]]]   # an error bar
    assert not page.errors, page.errors


@pytest.mark.parametrize("size", [DESKTOP, PHONE])
def test_tables_fit_or_scroll_in_their_box_and_formulas_wrap_between_terms(site, at, size):
    """At 1280 px the index table was 65 px wider than its box, its latest commit cut off; at 390 px
    the sweep table squeezed its models to 40 px, cut mid-number."""
    page = at(size, (site / "index.html").as_uri())
    width = page.evaluate("() => [...document.querySelectorAll('.table-scroll')].map(b => [b.scrollWidth, b.clientWidth])")
    if size == DESKTOP:
        assert all(scroll <= client for scroll, client in width), width
    overflow = page.evaluate("""() => [...document.querySelectorAll('table')].filter(t =>
        !t.parentElement.classList.contains('table-scroll')).map(t => t.id)""")
    assert overflow == []                      # every table scrolls in its own box
    for url in ((site / "index.html").as_uri(), _sweep(site)):
        page = at(size, url)
        broken = page.evaluate("""() => [...document.querySelectorAll('.formula .term')]
            .filter(t => t.getClientRects().length > 1 || t.getBoundingClientRect().width < 20).map(t => t.textContent)""")
        assert page.locator(".formula .term").count() > 0 and broken == []
        assert not page.errors, page.errors


def test_the_sweep_page_leads_with_one_model_everywhere(site, at):
    """The headline gave the knee model, R² 0.986, the table of fits the polynomial it beat, R² 0.884,
    and the coefficients' history the polynomial's coefficients."""
    page = at(DESKTOP, _sweep(site))
    fits = page.evaluate("window.PERFGATE_SWEEP.measures.find(m => m.measure === 'total-ns').fits")
    latest = fits[-1]
    assert latest["knee"]["found"] and latest["lead"]["formula"] == latest["knee"]["formula"]
    headline = page.locator("#latest-formula").inner_text()
    assert latest["knee"]["formula"] in headline and f"R² {latest['knee']['r2']:.4f}" in headline
    first = page.locator("#fits tr").first.locator("td")
    assert first.nth(2).inner_text() == latest["knee"]["formula"]
    assert first.nth(3).inner_text() == f"{latest['knee']['r2']:.4f}"
    # the history plots the leading model's coefficients: the hinge's among them, the knee model's
    # drawn as diamonds (they have no interval)
    titles = page.locator("#history .muted").all_inner_texts()
    assert any(t.startswith("coefficient of (o − knee)₊") for t in titles), titles
    o = titles.index("coefficient of o")
    drawn = page.evaluate(f"window.PERFGATE_CHARTS['hist-{o}'].getOption().series[2].data")
    slope = next(t["coef"] for t in latest["lead"]["terms"] if t["label"] == "o")
    assert drawn[-1] == {"value": slope, "symbol": "diamond", "symbolSize": 9}
    assert not page.errors, page.errors
