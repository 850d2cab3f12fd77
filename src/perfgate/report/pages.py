"""Static trend pages from a store, in the spirit of ``asv publish`` and Bencher's perf pages.

The site works from ``file://`` and offline (no CDN, no ``fetch``): every page is a fixed HTML
shell plus a small data file that assigns to a global (``data/index.js``, ``data/b/ID.js`` per
benchmark, ``data/s/ID.js`` per scaling sweep), loaded with a ``<script>`` tag — the index does
not carry every point, a benchmark page loads only its own.  Charts are drawn by the vendored
Apache ECharts (``static/vendor/``).  Also written: an Atom feed of regressions and ``data.json``
(every series' summary and change points).  Change points come from the detector ``perfgate
detect`` uses, so the pages and the alerts never disagree."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import shutil
import tempfile
from datetime import datetime, timezone
from importlib.resources import files
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import numpy as np
import orjson
from jinja2 import Environment, PackageLoader, select_autoescape

from perfgate.check_branches import is_check_branch
from perfgate import heap
from perfgate.errors import PerfgateError
from perfgate.escape import html_text, visible, xml_text
from perfgate.outputs import write_atomic
from perfgate.units import pct
from perfgate.alert_history import still_open, undone_by, undoing
from perfgate.report.series_data import (STATES, Columns, Finding, band_steps, chart_data, findings, fragment, iso,
                                         printed_in, scale_of, summarise, unsteps, with_siblings_changes)
from perfgate.report.sweeps import collect, sweep_page, sweep_summary
from perfgate.report.threshold_band import bands
from perfgate.store import SeriesKey, Store
from perfgate.thresholds import Thresholds, load_thresholds
from perfgate.units import SPARK_MIN_RANGE

ASSETS = ("pages.css", "common.js", "timeaxis.js", "index.js", "benchmark.js", "sweep.js")
VENDOR = ("echarts/echarts.min.js", "echarts/LICENSE", "echarts/NOTICE", "echarts/LICENSE-d3")


def page_id(*parts: str) -> str:
    """A stable file name for a page: names may hold any character, file names may not."""
    return hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:12]


def benchmark_url(key: SeriesKey) -> str:
    """The series on its benchmark page, relative to the site (as the index links it)."""
    return "benchmark.html?" + urlencode({"b": page_id(key.benchmark), "measure": key.measure,
                                          "branch": key.branch, "testbed": key.testbed})


def _js(var: str, data: object) -> bytes:
    # JSON is valid JavaScript (ES2019: U+2028/2029 may appear in strings); the file is loaded by
    # a <script> tag, never parsed as HTML, so names need no escaping here.
    return (b"window." + var.encode() + b"=" + orjson.dumps(data, default=fragment, option=orjson.OPT_SERIALIZE_NUMPY)
            + b";\n")


def seconds(times: list[float | None]) -> list[int | None]:
    """Run times as whole seconds (the pages print them to the second, as :func:`iso`), the
    first since 1970 and each other since the one before it (an hour is 4 digits where an ISO
    date is 22 characters); null: no time.  :func:`read_page` and ``benchmark.js`` undo it."""
    out: list[int | None] = []
    last = 0
    for t in times:
        if not t:
            out.append(None)
            continue
        s = int(datetime.fromtimestamp(t, timezone.utc).timestamp() // 1)   # iso() truncates alike
        out.append(s - last)
        last = s
    return out


def read_page(text: str | bytes, commits: list[str]) -> dict:
    """A benchmark page's data file as ``benchmark.js`` reads it: each series' ``run`` one index a
    point, the run table's ``commit`` and ``time`` (ISO, '' when none) spelled out, the
    threshold band's limits one number a point (:func:`~perfgate.report.series_data.unsteps`).  For tests
    and tools; ``commits``: ``data/commits.js``'s list."""
    body = text if isinstance(text, bytes) else text.encode()
    page = orjson.loads(body[body.index(b"=") + 1:body.rindex(b";")])
    last, times = 0, []
    for d in page["runs"]["time"]:
        if d is None:
            times.append("")
        else:
            last += d
            times.append(iso(last))
    page["runs"] = {"commit": [commits[i] for i in page["runs"]["commit"]], "time": times}
    for s in page["series"]:
        if s.get("band"):
            s["band"]["lower"], s["band"]["upper"] = unsteps(s["band"]["lower"]), unsteps(s["band"]["upper"])
        r = s["run"]
        s["run"] = [i for first, count in zip(r[::2], r[1::2]) for i in range(first, first + count)]
    return page


def _web_url(url: str | None, option: str, example: str) -> str:
    """An http(s) address a page links to, without its trailing slash ('' when not given)."""
    if not url:
        return ""
    if not url.startswith(("https://", "http://")) or urlsplit(url).query or urlsplit(url).fragment:
        raise PerfgateError(f"{option} {url}: give an http(s) URL without ?query or #fragment, such as {example}")
    return url.rstrip("/")


def _urn(*parts: str) -> str:
    """An Atom id: stable, and a valid IRI whatever the names hold (spaces, <, >, quotes)."""
    return "urn:perfgate:" + hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def _entry_id(f: Finding) -> str:
    k = f.key
    return _urn(k.branch, k.testbed, k.benchmark, k.measure, f.first_commit)


def undone_regressions(found: list[Finding]) -> dict[str, Finding]:
    """Each regression a later improvement of its series won back at least half of (the rule
    notify closes an issue by), by its feed entry's id -> that improvement."""
    by_series: dict[SeriesKey, list[Finding]] = {}
    for f in sorted(found, key=lambda f: f.cp.index):
        by_series.setdefault(f.key, []).append(f)
    return {_entry_id(changes[i]): changes[j] for changes in by_series.values()
            for i, j in undoing([f.cp for f in changes]).items()}


def publish_site(store: Store, out_dir: str | Path, *, title: str, branch: str | None = None,
                 thresholds: Thresholds | None = None, include_sweeps: bool = False,
                 repo_url: str | None = None, site_url: str | None = None,
                 workers: int | None = None, max_runs: int | None = None) -> dict[str, int]:
    """Write the site into ``out_dir``: ``index.html``, ``benchmark.html``, ``sweep.html``,
    ``assets/``, ``data/``, ``regressions.xml`` (Atom) and ``data.json``.  ``workers``: processes
    that build the benchmark pages (default: one per CPU, up to 4, from PARALLEL_FROM series).
    ``max_runs``: each chart draws its series' newest this many runs (the site's size grows with
    the history otherwise: 10,000 series of 1,000 runs are about 330 MiB); change points, alerts, the
    threshold band, the index and ``data.json`` are still those of the whole series."""
    if max_runs is not None and max_runs < 1:
        raise PerfgateError(f"--max-runs {max_runs}: give a number of runs of at least 1")
    repo = _web_url(repo_url, "--repo-url", "https://github.com/OWNER/REPO")
    site = _web_url(site_url, "--site-url", "https://OWNER.github.io/REPO")
    thresholds = thresholds or load_thresholds()
    with heap.loading():                    # 10,000 series of 200 runs: two million long-lived points
        series = store.all_series(branch=branch)
    if branch is None:                      # a pull request's A/B runs are not a trend
        series = {k: pts for k, pts in series.items() if not is_check_branch(k.branch)}
    alerts: dict[SeriesKey, list] = {}
    for a in store.alerts():
        alerts.setdefault(SeriesKey(a.branch, a.testbed, a.benchmark, a.measure), []).append(a)
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    meta = {"title": title, "project": store.project, "generated": now, "repo_url": repo,
            "testbeds": {t: store.testbed_fingerprint(t) for t in sorted({k.testbed for k in series})}}
    sweeps = []
    drawn: set[SeriesKey] = set()   # the series a scaling page draws
    for sweep in collect(series):
        sp = sweep_page(sweep)
        if sp["measures"]:
            sweeps.append((page_id("sweep", sweep.name, sweep.branch, sweep.testbed), sp))
            fitted = {m["measure"] for m in sp["measures"]}
            drawn.update(k for k in sweep.keys if k.measure in fitted)
    # A sweep's points are drawn on its scaling page rather than listed one by one; but a point no
    # scaling page draws (its sweep could not be fitted) or one with an alert (open or
    # acknowledged: its issue still links here) gets its own row and page, so that every alert's
    # link leads to its series' trend.
    shown = {k: pts for k, pts in series.items()
             if include_sweeps or k not in drawn or k in alerts}

    out = Path(out_dir)
    # before the series are analysed: a file there, or a place no folder can be made, ended the
    # verb with a traceback after that work
    if out.exists() and not out.is_dir():
        raise PerfgateError(f"--out {visible(out_dir)}: exists and is not a folder; name a folder for the site")
    foreign = _foreign_data(out / "data")
    if foreign:
        raise PerfgateError(f"--out {visible(out_dir)}: {visible(out / 'data')} {foreign}: it is not pages data "
                            "perfgate wrote, and a build replaces that folder whole; move it, or name another "
                            "folder for the site")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise PerfgateError(f"--out {visible(out_dir)}: cannot create the folder: {e.strerror}") from None
    data = Path(tempfile.mkdtemp(dir=out, prefix=".data-"))
    try:
        (data / "b").mkdir()
        job = _Job(shown, thresholds, alerts, meta, data / "b", max_runs)
        rows, all_findings, n_pages = job.run(workers)
        order = {s: i for i, s in enumerate(STATES)}
        rows.sort(key=lambda r: (order[r["state"]], -abs(r["delta"] or 0), r["benchmark"], r["measure"],
                                 r["branch"], r["testbed"]))
        _write_data(data, out, meta, rows, sweeps, job.commits)
    except BaseException as e:
        shutil.rmtree(data, ignore_errors=True)
        if isinstance(e, OSError):   # a full disk or a read-only folder: an error, not a traceback
            raise PerfgateError(f"{out}: cannot write the pages: {e.strerror or e}; "
                                "the previous pages, if any, are untouched") from None
        raise
    regressions = sorted((f for f in all_findings if f.cp.direction == "regression"), key=lambda f: f.when,
                         reverse=True)
    newest_run = max((iso(p.time) for pts in shown.values() for p in pts[-1:] if p.time), default="")
    improvements = [f for f in all_findings if f.cp.direction == "improvement"]
    _copy_assets(out)
    # Every value printed goes through its format's one escaping function (finalize), on top of
    # autoescape: controls are shown, never emitted, and the feed stays well-formed XML.
    loader = PackageLoader("perfgate.report", "templates")
    html_env = Environment(loader=loader, autoescape=select_autoescape(["html", "xml", "j2"]), finalize=html_text)
    xml_env = Environment(loader=loader, autoescape=True, finalize=xml_text)
    xml_env.filters["pct"] = pct    # a size past 10,000% is written as a bound (a change from 0)
    undone = undone_regressions(all_findings)

    def updated_of(f: Finding) -> str:
        """An entry changes when its regression is undone: feed readers then see it again."""
        fix = undone.get(_entry_id(f))
        return (fix.when if fix else f.when) or ""

    context = dict(title=title, project=store.project, now=now, regressions=regressions, page_url=benchmark_url,
                   site_url=site, feed_id=_urn(store.project, "regressions"), entry_id=_entry_id,
                   # the feed changes when its content does, not on every build
                   feed_updated=max((updated_of(f) for f in regressions), default="") or newest_run or now,
                   undone=undone, updated_of=updated_of)
    for name in ("index.html", "benchmark.html", "sweep.html", "regressions.xml"):
        env = xml_env if name.endswith(".xml") else html_env
        write_atomic(out / name, env.get_template(f"{name}.j2").render(**context))
    by_series: dict[tuple, list[dict]] = {}
    for f in all_findings:
        by_series.setdefault((f.key.benchmark, f.key.measure, f.key.branch, f.key.testbed), []).append(f.as_dict())
    write_atomic(out / "data.json", orjson.dumps(
        [r | {"change_points": by_series.get((r["benchmark"], r["measure"], r["branch"], r["testbed"]), [])}
         for r in rows], option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode())
    return {"series": len(rows), "benchmarks": n_pages, "sweeps": len(sweeps),
            "regressions": len(regressions), "improvements": len(improvements),
            "alerts_not_found": _alerts_not_found(alerts, all_findings, shown)}


def _alerts_not_found(alerts: dict[SeriesKey, list], changes: list[Finding],
                      shown: dict[SeriesKey, list]) -> int:
    """Open change point regression alerts whose change these pages did not find: the pages judge
    with their own thresholds (``--thresholds``, else ``./thresholds``), and with other ones than
    ``detect`` used, the feed left out an active +49% regression an audit had been alerted to."""
    found: dict[SeriesKey, set[str]] = {}
    for f in changes:
        pts = shown.get(f.key, [])
        found.setdefault(f.key, set()).update(
            [f.first_commit, *(p.commit for p in pts[f.cp.index_low:f.cp.index_high + 1])])
    every = [a for series_alerts in alerts.values() for a in series_alerts]
    fixed = undone_by(every)
    return sum(1 for key, series_alerts in alerts.items() if key in shown for a in series_alerts
               if a.kind == "change_point" and still_open(a, fixed)
               and not found.get(key, set()) & {a.commit, *a.suspects()})


# Below this many series one process builds the pages; above, forked workers share them (change
# point detection and the threshold bands are most of the time, and independent per series).
PARALLEL_FROM = 2000
_CURRENT: "_Job | None" = None  # the job a forked worker inherits
PAGES_A_BATCH = 100  # pages whose chart columns are encoded at once (Columns), then written


class _Job:
    """The benchmark pages of a build: each page's series summarised for the index, its change
    points found, its threshold band computed, and its data file written."""

    def __init__(self, shown: dict[SeriesKey, list], thresholds: Thresholds, alerts: dict, meta: dict,
                 folder: Path, max_runs: int | None = None):
        self.shown, self.thresholds, self.alerts, self.meta, self.folder = shown, thresholds, alerts, meta, folder
        self.max_runs = max_runs
        self.pages: dict[str, list[SeriesKey]] = {}
        for key in shown:
            self.pages.setdefault(page_id(key.benchmark), []).append(key)
        self.ids = list(self.pages)
        # Every commit once for the whole site (data/commits.js), pages name them by index: a
        # 40-character hash a run on every benchmark page was a quarter of the site.
        self.commits = list(dict.fromkeys(p.commit for pts in shown.values() for p in self.drawn(pts)))
        self.commit_of = {c: i for i, c in enumerate(self.commits)}

    def drawn(self, pts: list) -> list:
        """The points a chart draws: the newest ``max_runs``."""
        return pts[-self.max_runs:] if self.max_runs else pts

    def run(self, workers: int | None) -> tuple[list[dict], list, int]:
        if workers is None:
            workers = min(os.cpu_count() or 1, 4) if len(self.shown) >= PARALLEL_FROM else 1
        if workers <= 1:
            rows, found = self.part(0, 1)
        else:
            global _CURRENT
            _CURRENT = self
            try:
                with multiprocessing.get_context("fork").Pool(workers) as pool:
                    parts = pool.starmap(_work, [(i, workers) for i in range(workers)])
            finally:
                _CURRENT = None
            rows = [r for part, _ in parts for r in part]
            found = [f for _, part in parts for f in part]
        return rows, found, len(self.ids)

    def part(self, index: int, count: int) -> tuple[list[dict], list]:
        rows, all_found = [], []
        mine = self.ids[index::count]
        settings = {k: self.thresholds.for_series(k.benchmark, k.measure) for pid in mine for k in self.pages[pid]}
        searched = {k: findings(k, self.shown[k], settings[k]) for k in settings}
        found_in = {k: with_siblings_changes(k, self.shown[k], searched[k][0], self.alerts.get(k, [])) for k in settings}
        # All bands of this part in one batch: batching is what makes them fast.  Each starts after
        # its series' cold first runs and again at its change points, as detect's threshold test does.
        tested = [k for k in settings if settings[k].test is not None]
        band_of = dict(zip(tested, bands([(settings[k].test, [p.value for p in self.shown[k]],
                                           [p.time for p in self.shown[k]],
                                           [searched[k][1], *(f.cp.index for f in found_in[k])])
                                          for k in tested])))
        encode, written = Columns(), []
        for n, pid in enumerate(mine):
            keys = self.pages[pid]
            run_of: dict[str, int] = {}
            table: list[tuple[int, float | None]] = []
            page = {"benchmark": keys[0].benchmark, "series": []}
            for key in keys:
                pts = self.shown[key]
                skipped = len(pts) - len(self.drawn(pts))
                for p in pts[skipped:]:
                    if p.run_id not in run_of:
                        run_of[p.run_id] = len(table)
                        table.append((self.commit_of[p.commit], p.time))
                alerts = self.alerts.get(key, [])
                found = found_in[key]
                all_found += found
                rows.append(summarise(key, pts, found, alerts) | {"page": pid})
                band = band_of.get(key)
                if band is not None:
                    band = band | {"test": settings[key].test.test,
                                   "breach": [i - skipped for i in band["breach"] if i >= skipped]}
                chart = chart_data(key, pts, band, found, alerts, run_of, skipped, encode)
                page["series"].append(chart)
                if band is not None:       # written to a fraction of what the chart draws
                    limits = {side: np.asarray(band[side][skipped:], dtype=float) for side in ("lower", "upper")}
                    drawn = np.concatenate([chart[k].values for k in ("value", "lower", "upper") if k in chart]
                                           + [limits["lower"], limits["upper"]])
                    for side in ("lower", "upper"):  # a one-sided test's other side is left out
                        if not np.isfinite(limits[side]).any():
                            band[side] = None
                        else:
                            band[side] = (band_steps(limits[side], drawn)
                                          or encode(limits[side], *printed_in(scale_of(key.measure))))
            page["runs"] = {"commit": [c for c, _ in table], "time": seconds([t for _, t in table])}
            written.append((pid, page))
            if len(written) == PAGES_A_BATCH or n == len(mine) - 1:
                encode.flush()
                for pid_, page_ in written:
                    (self.folder / f"{pid_}.js").write_bytes(_js("PERFGATE_PAGE", self.meta | page_))
                written.clear()
        return rows, all_found


def _work(index: int, count: int) -> tuple[list[dict], list]:
    assert _CURRENT is not None, "a worker runs in a process forked from publish_site"
    return _CURRENT.part(index, count)


INDEX_MARK = b"window.PERFGATE_INDEX="   # how every data/index.js a build wrote begins


def _foreign_data(data: Path) -> str | None:
    """What makes ``data`` (the site's ``data/``, which a build swaps out and deletes whole) another
    tool's or the user's, or None when it is absent, empty or an earlier build's: ``pages --out .``
    beside the history's ``data/`` folder (``sync --export data/``) deleted it without a word."""
    if not os.path.lexists(data):
        return None
    if data.is_symlink() or not data.is_dir():
        return "is not a folder"
    try:
        with open(data / "index.js", "rb") as f:
            if f.read(len(INDEX_MARK)) == INDEX_MARK:
                return None
    except OSError:
        pass
    try:
        with os.scandir(data) as entries:
            first = next(iter(sorted(e.name for e in entries)), None)
    except OSError as e:
        return f"cannot be listed ({e.strerror})"
    return None if first is None else f"holds {visible(first)!r}"


def _write_data(tmp: Path, out: Path, meta: dict, rows: list[dict], sweeps: list, commits: list[str]) -> None:
    """Finish ``data/`` in ``tmp`` (benchmark pages are there already) and swap it in, so no page
    of an older build is left behind."""
    (tmp / "commits.js").write_bytes(_js("PERFGATE_COMMITS", commits))
    (tmp / "s").mkdir()
    for pid, sp in sweeps:
        (tmp / "s" / f"{pid}.js").write_bytes(_js("PERFGATE_SWEEP", meta | sp))
    index = meta | {"columns": list(rows[0]) if rows else [],
                    "rows": [_compact(r) for r in rows],
                    "sweeps": [sweep_summary(sp) | {"page": pid} for pid, sp in sweeps]}
    (tmp / "index.js").write_bytes(_js("PERFGATE_INDEX", index))
    for p in tmp.rglob("*"):
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    os.chmod(tmp, 0o755)
    old = out / "data"
    if old.exists():
        trash = Path(tempfile.mkdtemp(dir=out, prefix=".old-"))
        os.replace(old, trash / "data")
        os.replace(tmp, old)
        shutil.rmtree(trash)
    else:
        os.replace(tmp, old)




def _compact(row: dict) -> list:
    """A row as a list in ``columns`` order; the sparkline as 0–99 integers (small index file),
    its height at least 10% of its level, so 1% noise draws as a wobble and a 15% step fills it."""
    spark = [v for v in row["spark"] if v is not None]
    lo, hi = (min(spark), max(spark)) if spark else (0.0, 0.0)
    mid = lo / 2 + hi / 2       # halves: the span of values near ±1.7e308 would overflow
    half = max(hi / 2 - lo / 2, SPARK_MIN_RANGE / 2 * abs(mid))
    # (v/2 − mid/2) / half runs from −½ to +½ over the values' span: 99 times it fills 0–99
    row = row | {"spark": [None if v is None else (round(49.5 + 99 * ((v / 2 - mid / 2) / half)) if half else 50)
                           for v in row["spark"]]}
    return list(row.values())


def _copy_assets(out: Path) -> None:
    static = files("perfgate.report") / "static"
    (out / "assets" / "vendor" / "echarts").mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        _write_bytes(out / "assets" / name, (static / name).read_bytes())
    for name in VENDOR:
        _write_bytes(out / "assets" / "vendor" / name, (static / "vendor" / name).read_bytes())


def _write_bytes(path: Path, data: bytes) -> None:
    if path.exists() and path.read_bytes() == data:
        return
    write_atomic(path, data)
