"""Build static trend pages from the history: an ``index.html`` with one chart per series (change
points marked, hover for commit and value), a regressions table, an Atom feed
(``regressions.xml``) and ``data.json``.  Self-contained: no CDN, works offline, publishable as is
(e.g. GitHub Pages)."""

from __future__ import annotations

import argparse

from perfgate.commands._common import store_from
from perfgate.errors import EXIT_OK
from perfgate.output import emit_json, err
from perfgate.report.pages import publish_site
from perfgate.thresholds import load_thresholds

NAME = "pages"
HELP = "build static trend pages (HTML, Atom feed of regressions, JSON) from the history"
ORDER = 70
EPILOG = """examples:
  perfgate pages --out site && chromium site/index.html
  perfgate pages --out public --branch main --title "mylib performance\""""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", default="site", help="output folder (default: %(default)s)")
    p.add_argument("--branch", help="only this branch (default: all)")
    p.add_argument("--title", default="perfgate trends", help="page title")
    p.add_argument("--thresholds", help="thresholds file or folder (default: thresholds/ when present)")
    p.add_argument("--include-sweeps", action="store_true",
                   help="also chart each point of a scaling sweep (NAME/values=V,objects=O); "
                        "by default they are left to 'perfgate fit'")


def run(args: argparse.Namespace) -> int:
    with store_from(args) as store:
        counts = publish_site(store, args.out, title=args.title, branch=args.branch,
                              thresholds=load_thresholds(args.thresholds), include_sweeps=args.include_sweeps)
    if args.json:
        emit_json({"out": args.out, **counts})
    else:
        err.print(f"wrote {args.out}/index.html, regressions.xml, data.json: {counts['series']} series, "
                  f"{counts['regressions']} regression(s), {counts['improvements']} improvement(s)")
    return EXIT_OK
