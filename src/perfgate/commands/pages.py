"""Build static trend pages from the history: an index of every series (searchable, sortable,
grouped; open alerts and regressions first), a page per benchmark (every measure, branch and
testbed; zoom, hover, change points, alerts, threshold band; click a point to open its commit), a
page per scaling sweep (fitted model, knee, coefficient history), an Atom feed
(``regressions.xml``) and ``data.json``.  Self-contained: no CDN, works offline and from
``file://``; the folder is deployable as is (e.g. GitHub Pages)."""

from __future__ import annotations

import argparse
import os

from perfgate.commands._common import store_from
from perfgate.errors import EXIT_OK
from perfgate.escape import visible
from perfgate.output import emit_json, err
from perfgate.report.pages import publish_site
from perfgate.thresholds import load_thresholds

NAME = "pages"
HELP = "build static trend pages (HTML, Atom feed of regressions, JSON) from the history"
ORDER = 70
EPILOG = """examples:
  perfgate pages --out site && chromium site/index.html
  perfgate pages --out public --branch main --title "mylib performance"
  perfgate pages --out site --repo-url https://github.com/OWNER/REPO   # points link to their commits
  perfgate pages --out site --max-runs 500   # charts of the newest 500 runs: a site that stays small"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="site", help="output folder (default: %(default)s)")
    p.add_argument("--branch", help="only this branch (default: all)")
    p.add_argument("--title", default="perfgate trends", help="page title")
    p.add_argument("--thresholds", help="thresholds file or folder (default: thresholds/ when present)")
    p.add_argument("--repo-url", metavar="URL",
                   help="repository web address; a clicked point opens URL/commit/SHA (e.g. https://github.com/OWNER/REPO)")
    p.add_argument("--site-url", metavar="URL", default=os.environ.get("PERFGATE_PAGES_URL") or None,
                   help="where the site is served (default: $PERFGATE_PAGES_URL): the feed's links are then "
                        "absolute and it names itself (rel=self), as feed readers need")
    p.add_argument("--max-runs", type=int, metavar="N",
                   help="each chart draws its series' newest N runs (default: all) and says so; change points "
                        "and alerts before them are still listed, and change points, alerts, the index and "
                        "data.json are found on the whole series (as github-action-benchmark's max-items-in-chart "
                        "bounds its page, this bounds the site's size: 10,000 series × 1,000 runs are about 330 MiB)")
    p.add_argument("--include-sweeps", action="store_true",
                   help="also list each point of a scaling sweep (NAME/values=V,objects=O) as a series of its "
                        "own; by default a sweep's points appear only on its scaling page (except a point with an "
                        "alert, or one no scaling page can draw)")


def run(args: argparse.Namespace) -> int:
    with store_from(args) as store:
        counts = publish_site(store, args.out, title=args.title, branch=args.branch,
                              thresholds=load_thresholds(args.thresholds), include_sweeps=args.include_sweeps,
                              repo_url=args.repo_url, site_url=args.site_url, max_runs=args.max_runs)
    if args.json:
        emit_json({"out": args.out, **counts})
    else:
        err.print(f"wrote {visible(args.out)}/index.html ({counts['series']} series, {counts['benchmarks']} benchmark pages, "
                  f"{counts['sweeps']} sweep pages), regressions.xml, data.json: "
                  f"{counts['regressions']} regression(s), {counts['improvements']} improvement(s)", markup=False,
                  soft_wrap=True)
    if counts["alerts_not_found"]:
        # The feed and the changes drawn are the pages' own analysis; an alert it does not find
        # would be missing from the feed without a word.
        err.print(f"warning: {counts['alerts_not_found']} active regression alert(s) are not among the change "
                  "points these pages found, so the feed leaves them out: detect judged with other thresholds? "
                  "(give pages the same --thresholds; 'perfgate alerts' lists them)", markup=False, soft_wrap=True)
    return EXIT_OK
