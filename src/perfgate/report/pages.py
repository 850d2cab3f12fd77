"""Static trend pages from a store, in the spirit of ``asv publish``: one self-contained
``index.html`` (no CDN, no script needed to read it), an Atom feed of regressions and the data
as JSON.  Change points come from the same detector ``perfgate detect`` uses, so the pages and
the alerts never disagree."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from perfgate.detect.changepoint import ChangePoint, detect_change_points
from perfgate.errors import PerfgateError
from perfgate.escape import html_text, xml_text
from perfgate.model import Measure
from perfgate.outputs import write_atomic
from perfgate.report.chart import ChartMark, ChartPoint, render_svg
from perfgate.store import Point, SeriesKey, Store
from perfgate.thresholds import Thresholds, load_thresholds
from perfgate.units import human, sparkline


@dataclass
class Finding:
    key: SeriesKey
    cp: ChangePoint
    first_commit: str
    last_good_commit: str
    commit_range: str
    when: str

    @property
    def summary(self) -> str:
        c = self.cp
        return (f"{c.magnitude * 100:+.1f}% [{c.ci_low * 100:+.1f}%, {c.ci_high * 100:+.1f}%] "
                f"({human(c.before, self.key.measure)} → {human(c.after, self.key.measure)}), "
                f"confidence {c.confidence:.4f}")


@dataclass
class SeriesView:
    key: SeriesKey
    points: list[Point]
    svg: str
    spark: str
    latest: str
    findings: list[Finding] = field(default_factory=list)
    anchor: str = ""


def _finding(key: SeriesKey, pts: list[Point], cp: ChangePoint) -> Finding:
    lo = max(cp.index_low, 1)
    first, last_good = pts[cp.index].commit, pts[lo - 1].commit
    span = f"{pts[lo - 1].commit[:10]}..{pts[cp.index_high].commit[:10]}"
    t = pts[cp.index].time
    when = datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if t else ""
    return Finding(key, cp, first, last_good, span, when)


# A scaling benchmark records one series per sweep point ("async_array/values=3,objects=900"):
# thousands of two-point charts nobody reads.  `perfgate fit` is their view; pages skip them.
SWEEP_POINT = re.compile(r"/[A-Za-z_][\w-]*=[^/,]+(,[A-Za-z_][\w-]*=[^/,]+)+$")


def build_views(store: Store, thresholds: Thresholds, branch: str | None = None,
                include_sweeps: bool = False) -> list[SeriesView]:
    views = []
    keys = [k for k in store.series_keys(branch=branch) if include_sweeps or not SWEEP_POINT.search(k.benchmark)]
    for n, key in enumerate(keys):
        pts = store.series(key)
        if not pts:
            continue
        settings = thresholds.for_series(key.benchmark, key.measure).change_point
        cps = detect_change_points([p.value for p in pts], settings, Measure.named(key.measure).lower_is_better)
        findings = [_finding(key, pts, cp) for cp in cps]
        marks = [ChartMark(f.cp.index, f.cp.direction == "regression", f"{f.cp.direction} {f.summary} "
                           f"first at {f.first_commit[:10]}") for f in findings]
        chart_pts = [ChartPoint(p.commit[:10], p.value, p.lower, p.upper) for p in pts]
        views.append(SeriesView(key, pts, render_svg(chart_pts, marks, key.measure, key.label()),
                                sparkline([p.value for p in pts[-40:]]), human(pts[-1].value, key.measure),
                                findings, f"s{n}"))
    return views


def publish_site(store: Store, out_dir: str | Path, *, title: str, branch: str | None = None,
                 thresholds: Thresholds | None = None, include_sweeps: bool = False) -> dict[str, int]:
    """Write ``index.html``, ``regressions.xml`` (Atom) and ``data.json`` into ``out_dir``."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise PerfgateError(f"{out}: cannot create the pages folder: {e.strerror}") from None
    views = build_views(store, thresholds or load_thresholds(), branch, include_sweeps)
    regressions = sorted((f for v in views for f in v.findings if f.cp.direction == "regression"),
                         key=lambda f: f.when, reverse=True)
    improvements = [f for v in views for f in v.findings if f.cp.direction == "improvement"]
    loader = PackageLoader("perfgate.report", "templates")
    # Every value printed goes through the format's one escaping function (finalize), on top of
    # autoescape: controls are shown, never emitted, and XML stays well-formed whatever the data.
    html_env = Environment(loader=loader, autoescape=select_autoescape(["html", "xml", "j2"]), finalize=html_text)
    xml_env = Environment(loader=loader, autoescape=True, finalize=xml_text)
    for env in (html_env, xml_env):
        env.filters["human"] = human
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    fingerprints = {v.key.testbed: store.testbed_fingerprint(v.key.testbed) for v in views}
    context = dict(title=title, views=views, regressions=regressions, improvements=improvements, now=now,
                   project=store.project, fingerprints=fingerprints,
                   benchmarks=sorted({v.key.benchmark for v in views}))
    write_atomic(out / "index.html", html_env.get_template("index.html.j2").render(**context))
    write_atomic(out / "regressions.xml", xml_env.get_template("regressions.xml.j2").render(**context))
    data = [{"branch": v.key.branch, "testbed": v.key.testbed, "benchmark": v.key.benchmark,
             "measure": v.key.measure,
             "points": [{"commit": p.commit, "time": p.time, "value": p.value, "lower": p.lower,
                         "upper": p.upper} for p in v.points],
             "change_points": [f.cp.to_json() | {"first_commit": f.first_commit, "commit_range": f.commit_range}
                               for f in v.findings]} for v in views]
    write_atomic(out / "data.json", json.dumps(data, indent=1))
    return {"series": len(views), "regressions": len(regressions), "improvements": len(improvements)}
