#!/usr/bin/env python3
"""The demo's story, driven by ``scripts/demo``: a small project's history with planted
performance changes, and perfgate finding each one at its commit.

1. A throwaway git repository (``.perfgate/demo/project``) is made from copies of this checkout's
   ``benches/tree-alloc``, ``benches/async-deinit`` (plain queue only, no variants: faster),
   ``thresholds/`` and ``docker/``, with twelve commits, one hour apart.  Four of them plant
   changes (see ``STORY``): the pointer tree's copy ~10% slower (instructions and wall time), the
   buffer tree ~1% more instructions, the deinit queue quadratic past 2,048 objects, and a fix of
   the first.
2. ``perfgate backfill main --every 2`` measures every other commit (plus the newest) in the
   pinned containers, so each planted change falls in a range of two commits.
3. ``perfgate detect --measure instructions`` raises the alerts; ``perfgate bisect`` narrows
   each to one commit.  Instruction counts repeat exactly here, so two points make a regime
   (``min_segment = 2`` in the project's thresholds); wall time on this 2-core machine needs far
   more runs per commit than a demo can afford, so it is shown by the pull-request check instead.
4. ``perfgate notify --channel webhook:...`` delivers the alerts to a receiver started here
   (skipped, and said so, when this perfgate has no ``notify`` verb).
5. ``perfgate check`` on a pull-request branch that regresses must fail and write its comment;
   ``perfgate fit --check`` on the quadratic commit must break the linearity expectation, and so
   must ``perfgate check`` of that commit against the one before it;
   ``perfgate pages`` builds the trend pages with the project's thresholds, as detect had them.

Exit 0 only when every planted change is found at its planted commit, the fix is recognised as
an improvement undoing the first change, the check and the fit fail as they must, and the pages
draw every alerted change at its commit.  Any miss prints ``DEMO FAILED`` with the reason and
exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START = 1_767_225_600          # 2026-01-01 00:00 UTC: the story's first commit
SKIP = shutil.ignore_patterns("target", "build", "__pycache__", ".benchmarks")

POINTER = "BM_Total/pointer/65536"   # the probes' instruction counts join the harness's benchmark
BUFFER = "BM_Total/buffer/65536"
DEINIT = "copy_array/values=100,objects=4000"


class DemoFailed(Exception):
    pass


def say(text: str) -> None:
    print(f"\n== {text}", flush=True)


# --- the story -----------------------------------------------------------------------------------

@dataclass
class Step:
    subject: str
    edits: list[tuple[str, str, str]]      # (file, old text, new text); old "" appends new
    plant: str = ""                        # name of the planted change, if any
    expect: tuple[str, str] | None = None  # (benchmark, direction) it must raise on instructions


TREE_H = "benches/tree-alloc/tree.h"
STORY = [
    Step("tree-alloc and async-deinit suites", []),
    Step("docs: what the project measures", [("README.md", "", "Run `perfgate backfill` to measure the history.\n")]),
    Step("tree: explain the node layout", [(TREE_H, "struct PNode {", "// 24 bytes: value and two children.\nstruct PNode {")]),
    Step("tree: audit every copied node", [
        (TREE_H, "    auto* node = new PNode{from->value, nullptr, nullptr};\n    node->left = clone(from->left);",
         "    auto* node = new PNode{from->value, nullptr, nullptr};\n"
         "    for (int r = 0; r < 24; ++r) audit_ = (audit_ ^ static_cast<std::uint64_t>(from->value)) * 0x100000001B3ull;\n"
         "    node->left = clone(from->left);"),
        (TREE_H, "  PNode* root_ = nullptr;", "  static inline std::uint64_t audit_ = 0;\n  PNode* root_ = nullptr;")],
         plant="pointer copy ~10% slower", expect=(POINTER, "regression")),
    Step("docs: changelog", [("CHANGELOG.md", "", "- copies are audited\n")]),
    Step("buffer: count copied nodes", [
        (TREE_H, "    nodes_.push_back(INode{src.value, kNone, kNone});",
         "    nodes_.push_back(INode{src.value, kNone, kNone});\n    copied_ += 1;"),
        (TREE_H, "  std::vector<INode> nodes_;", "  std::vector<INode> nodes_;\n  static inline std::uint64_t copied_ = 0;")],
         plant="buffer tree +1% instructions", expect=(BUFFER, "regression")),
    Step("docs: changelog", [("CHANGELOG.md", "", "- copied nodes are counted\n")]),
    Step("deinit: order queued jobs by priority by default", [
        ("benches/async-deinit/src/main.rs", 'env_choice("QUEUE", "linear", QueueKind::parse)',
         'env_choice("QUEUE", "quadratic", QueueKind::parse)')],
         plant="deinit queue quadratic past 2,048 objects", expect=(DEINIT, "regression")),
    Step("docs: changelog", [("CHANGELOG.md", "", "- the deinit queue orders jobs by priority\n")]),
    Step("tree: drop the per-node copy audit", [
        (TREE_H, "    for (int r = 0; r < 24; ++r) audit_ = (audit_ ^ static_cast<std::uint64_t>(from->value)) * 0x100000001B3ull;\n",
         "")],
         plant="fix of the pointer copy", expect=(POINTER, "improvement")),
    Step("docs: changelog", [("CHANGELOG.md", "", "- copies are no longer audited (fixes the slower copy)\n")]),
    Step("docs: how to run the suites", [("README.md", "", "`perfgate run --profile quick` runs both suites.\n")]),
]
# The pull request: the buffer tree's copy forgets to reserve its buffer (reallocations).
PR_BRANCH = "pr/copy-without-reserve"
PR_STEP = Step("buffer: let the copy grow its buffer", [
    (TREE_H, "    BufferTree t;\n    t.nodes_.reserve(nodes_.size());\n    if (!nodes_.empty()) t.clone(*this, 0);",
     "    BufferTree t;\n    if (!nodes_.empty()) t.clone(*this, 0);")])

DEMO_THRESHOLDS = """\
# The demo's history has one run per commit and few commits.  Instruction counts repeat exactly
# under the pinned image, so two runs are enough to tell a regime (perfgate's default is 5).
min_segment = 2
"""


def git(repo: Path, *args: str, when: int | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "perfgate demo", "GIT_AUTHOR_EMAIL": "demo@perfgate.invalid",
           "GIT_COMMITTER_NAME": "perfgate demo", "GIT_COMMITTER_EMAIL": "demo@perfgate.invalid"}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise DemoFailed(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def apply(repo: Path, step: Step) -> None:
    for name, old, new in step.edits:
        path = repo / name
        text = path.read_text() if path.exists() else ""
        if old and old not in text:
            raise DemoFailed(f"story step {step.subject!r}: {name} no longer contains {old[:60]!r} "
                             "(the suites changed; update scripts/demo_story.py)")
        path.write_text(text.replace(old, new, 1) if old else text + new)


def lighten(repo: Path) -> None:
    """Smaller workloads than the suites' own quick profiles, so the story fits in minutes: tree
    benchmarks of copy and whole cycle only, 3 repetitions, probes of the same 2^16-node trees; 100
    scaling points for async-deinit (the same generator and range as its quick inputs)."""
    tree = "benches/tree-alloc/bench.toml"
    deinit = repo / "benches" / "async-deinit"
    with open(deinit / "data" / "inputs-demo.txt", "w") as f:
        subprocess.run([sys.executable, "gen_points.py", "--values=0:200:linear", "--objects=100:8000:linear",
                        "--points=100", "--seed=1"], cwd=deinit, check=True, stdout=f)
    apply(repo, Step("lighter profiles", [
        (tree, "--benchmark_filter='/65536(/|$)' --benchmark_min_time=0.05 --benchmark_repetitions=5",
         "--benchmark_filter='BM_(Copy|Total)/.*/65536$' --benchmark_min_time=0.05 --benchmark_repetitions=3"),
        (tree, "tree_alloc_probe pointer 1048576", "tree_alloc_probe pointer 65536"),
        (tree, '"BM_Total/pointer/1048576"', '"BM_Total/pointer/65536"'),
        (tree, "tree_alloc_probe buffer 1048576", "tree_alloc_probe buffer 65536"),
        (tree, '"BM_Total/buffer/1048576"', '"BM_Total/buffer/65536"'),
        ("benches/async-deinit/bench.toml", "data/inputs-quick.txt", "data/inputs-demo.txt")]))


def make_project(repo: Path) -> dict[str, str]:
    """The throwaway repository; returns plant name -> commit."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for suite in ("tree-alloc", "async-deinit"):
        shutil.copytree(ROOT / "benches" / suite, repo / "benches" / suite, ignore=SKIP)
    lighten(repo)
    manifest = repo / "benches" / "async-deinit" / "bench.toml"
    text = manifest.read_text()
    kept = text[:text.index("[variants.")].rstrip().splitlines()
    while kept[-1].startswith("#"):            # the comment of the first variant
        kept.pop()
    manifest.write_text("\n".join(kept).rstrip() + "\n")   # the plain queue only
    shutil.copytree(ROOT / "thresholds", repo / "thresholds")
    apply(repo, Step("thresholds", [("thresholds/default.toml", "[measure.instructions.change_point]\n",
                                     "[measure.instructions.change_point]\n" + DEMO_THRESHOLDS)]))
    shutil.copytree(ROOT / "docker", repo / "docker", ignore=SKIP)
    (repo / "README.md").write_text("# demo project\n\nTwo benchmark suites copied from perfgate's benches/.\n")
    planted = {}
    for i, step in enumerate(STORY):
        apply(repo, step)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", step.subject, when=START + 3600 * i)
        if step.plant:
            planted[step.plant] = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", PR_BRANCH)
    apply(repo, PR_STEP)
    git(repo, "commit", "-q", "-am", PR_STEP.subject, when=START + 3600 * len(STORY))
    git(repo, "checkout", "-q", "main")
    return planted


# --- perfgate ------------------------------------------------------------------------------------

class Perfgate:
    def __init__(self, store: str, log: list):
        self.store, self.log = store, log
        self.build_seconds = 0.0      # image builds inside backfill and bisect (check's are not counted)

    def __call__(self, *args: str, ok: tuple[int, ...] = (0,), show: bool = True, store: str | None = None,
                 cwd: Path | None = None):
        cmd = [sys.executable, "-m", "perfgate.cli", *args, "--store", store or self.store]
        print("$ perfgate " + " ".join(args), flush=True)
        started = time.monotonic()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "160"}, cwd=cwd)
        self.log.append((" ".join(args[:2]), time.monotonic() - started))
        if show and "--json" not in args:
            print(proc.stdout, end="", flush=True)
        if proc.returncode not in ok:
            raise DemoFailed(f"perfgate {' '.join(args)} exited {proc.returncode} (expected {' or '.join(map(str, ok))})")
        return proc


def short(sha: str) -> str:
    return sha[:10]


class Receiver:
    """A local webhook receiver: keeps every JSON body POSTed to it."""

    def __init__(self) -> None:
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                received.append(json.loads(body))
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/perfgate-alerts"

    def close(self) -> None:
        self.server.shutdown()


# --- the story, told -----------------------------------------------------------------------------

def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", type=Path, default=Path(".perfgate/demo"), help="where the demo writes (wiped first)")
    p.add_argument("--every", type=int, default=2, help="backfill every Nth commit (default: %(default)s)")
    args = p.parse_args()
    work = args.work.resolve()
    for name in ("project", "history.db", "history.db-wal", "history.db-shm", "notify.db", "pr-check.db", "site",
                 "pr-comment.md", "pr-comment-quadratic.md", "fit-quadratic.svg"):
        target = work / name
        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    timings: list[tuple[str, float]] = []
    pg = Perfgate(f"sqlite:{work / 'history.db'}", timings)
    started = time.monotonic()
    try:
        found = tell(work, pg, args.every)
    except DemoFailed as e:
        print(f"\nDEMO FAILED: {e}", file=sys.stderr, flush=True)
        return 1
    minutes = (time.monotonic() - started) / 60
    say(f"demo done in {minutes:.1f} min, of which {pg.build_seconds / 60:.1f} min building images in "
        "backfill and bisect")
    for step, seconds in timings:
        print(f"   {seconds:6.1f} s  perfgate {step}")
    print(found)
    return 0


def tell(work: Path, pg: Perfgate, every_n: int) -> str:
    repo = work / "project"
    say(f"a small project with {len(STORY)} commits and planted changes: {repo}")
    planted = make_project(repo)
    print(git(repo, "log", "--format=%h %ad %s", "--date=short", "--reverse", "main"))
    by_commit = {sha: name for name, sha in planted.items()}

    nth = {1: "each", 2: "every 2nd", 3: "every 3rd"}.get(every_n, f"every {every_n}th")
    say(f"perfgate backfill: {nth} commit of main (plus the newest) in the pinned containers")
    done = pg("backfill", "main", "--root", str(repo), "--every", str(every_n)).stdout
    built = re.search(r"of which (\d+) s building images", done)
    pg.build_seconds += int(built.group(1)) if built else 0

    say("perfgate detect on the instruction counts (deterministic under the pinned image)")
    thresholds = str(repo / "thresholds")
    detected = json.loads(pg("detect", "--measure", "instructions", "--thresholds", thresholds, "--json",
                             ok=(1,)).stdout)
    pg("alerts", cwd=repo)      # in the project's checkout, as CI runs it: git counts a thinned gap
    alerts = detected["new_alerts"]

    say("perfgate bisect: narrow every alert whose range spans several commits")
    for alert in alerts:
        candidates = git(repo, "rev-list", "--ancestry-path", f"{alert['previous_commit']}..{alert['commit']}").split()
        if len(candidates) > 1:
            report = json.loads(pg("bisect", alert["id"], "--root", str(repo), "--json").stdout)
            pg.build_seconds += report["image_build_seconds"]
            print(f"   {alert['benchmark']} [{alert['measure']}]: {len(candidates)} candidates "
                  f"{short(alert['previous_commit'])}..{short(alert['commit'])} -> first bad commit "
                  f"{short(report['first_bad_commit'])} {report['subject']!r} "
                  f"({report['method']}, {len(report['steps'])} measured)")
    final = {a["id"]: a for a in json.loads(pg("alerts", "--json", show=False).stdout)}
    results = verify(planted, [final[a["id"]] for a in alerts], repo)

    if not deliver(pg, work, final):
        # Without the notify layer nobody is told; the regression the fix undid is closed by hand.
        slower = next(r["alert"] for r in results if r["plant"] == "pointer copy ~10% slower")
        pg("alerts", "--ack", slower["id"])

    say(f"perfgate check: the pull request {PR_BRANCH} against main (interleaved rounds, one image)")
    comment = work / "pr-comment.md"
    pg("check", "--root", str(repo), "--base", "main", "--head", PR_BRANCH, "--suite", "tree-alloc",
       "--markdown", str(comment), ok=(1,), store=f"sqlite:{work / 'pr-check.db'}")
    if not comment.is_file() or "regress" not in comment.read_text().lower():
        raise DemoFailed(f"perfgate check wrote no pull-request comment naming a regression in {comment}")
    print(f"   exit 1 as it must; the comment is {comment} ({len(comment.read_text().splitlines())} lines)")

    say("perfgate fit --check at the quadratic commit: async-deinit must stay linear in objects")
    quad = planted["deinit queue quadratic past 2,048 objects"]
    expectations = str(repo / "thresholds" / "complexity.toml")
    svg = work / "fit-quadratic.svg"
    fit = ("fit", "--benchmark", "async-deinit/async_array", "-y", "T", "--knee", "objects", "--check", expectations)
    pg(*fit, "--from-store", f"async_array@{quad}", "--plot", str(svg), ok=(1,))
    # The last commit measured before it (bisect's last good one) keeps the expectation.
    last_good = next(r["alert"]["previous_commit"] for r in results if r["alert"]["benchmark"].endswith(DEINIT))
    say(f"perfgate fit --check at {short(last_good)}, before it: linear, the expectation holds")
    pg(*fit, "--from-store", f"async_array@{last_good}", ok=(0,))
    say(f"perfgate check: the quadratic commit as a pull request against {short(last_good)} (its table fitted whole)")
    checked = json.loads(pg("check", "--root", str(repo), "--base", last_good, "--head", quad, "--suite",
                            "async-deinit", "--rounds", "3", "--json", "--markdown", str(work / "pr-comment-quadratic.md"),
                            ok=(1,), show=False,
                            store=f"sqlite:{work / 'pr-check.db'}").stdout)
    broken = [r for r in checked["complexity"] if r["status"] == "broken"]
    if not broken:
        raise DemoFailed("perfgate check of the quadratic commit broke no complexity expectation: "
                         + "; ".join(f"{r['table']} {r['measure']}: {r['status']}" for r in checked["complexity"]))
    for r in checked["complexity"]:
        sweep, form = r.get("sweep"), "{:+.1%}"
        if sweep and not sweep["relative"]:
            form = "{:+,.0f}"        # a Δ column's total, in its units
        total = (f"; sweep total {form.format(sweep['effect'])} [{form.format(sweep['low'])}, "
                 f"{form.format(sweep['high'])}] over {sweep['points']} points, {sweep['rounds']} rounds"
                 if sweep else "")
        print(f"   {r['table']} {r['measure']}: {r['status']}; base {r['base']['model']}; head {r['head']['model']}{total}")

    say("perfgate pages")
    site = work / "site"
    # The project's thresholds, as detect had them: the pages draw the change points the alerts name.
    pg("pages", "--out", str(site), "--title", "perfgate demo: a planted history", "--thresholds", thresholds)
    drawn(site, results)

    return summary(results, planted, by_commit, work, comment, svg, site)


def verify(planted: dict[str, str], alerts: list[dict], repo: Path) -> list[dict]:
    """Every planted change alerted at its commit; no other instruction-count alert."""
    results, used = [], set()
    for step in STORY:
        if not step.plant:
            continue
        bench, direction = step.expect
        match = [a for a in alerts if a["benchmark"].endswith(bench) and a["direction"] == direction
                 and a["id"] not in used]
        if not match:
            raise DemoFailed(f"planted change {step.plant!r} ({bench}, {direction}) raised no alert")
        alert = match[0]
        used.add(alert["id"])
        if alert["commit"] != planted[step.plant]:
            raise DemoFailed(f"planted change {step.plant!r} was pinned to {short(alert['commit'])} "
                             f"{git(repo, 'log', '-1', '--format=%s', alert['commit'])!r}, "
                             f"not to {short(planted[step.plant])} {step.subject!r}")
        results.append({"plant": step.plant, "alert": alert})
    extra = [a for a in alerts if a["id"] not in used]
    if extra:
        raise DemoFailed("alerts no planted change explains: " + "; ".join(
            f"{a['benchmark']} {a['direction']} {a['magnitude'] * 100:+.2f}% at {short(a['commit'])}" for a in extra))
    # The fix must undo the first change: same series, improvement, about the same size.
    slower = next(r["alert"] for r in results if r["plant"] == "pointer copy ~10% slower")
    fix = next(r["alert"] for r in results if r["plant"] == "fix of the pointer copy")
    undone = (1 + slower["magnitude"]) * (1 + fix["magnitude"]) - 1
    if abs(undone) > 0.01:
        raise DemoFailed(f"the fix leaves the pointer copy {undone * 100:+.2f}% away from where it was")
    print(f"   the fix at {short(fix['commit'])} ({fix['magnitude'] * 100:+.2f}%) undoes the regression at "
          f"{short(slower['commit'])} ({slower['magnitude'] * 100:+.2f}%): net {undone * 100:+.3f}%")
    return results


def deliver(pg: Perfgate, work: Path, alerts: dict[str, dict]) -> bool:
    say("perfgate notify --channel webhook:...: the alerts, to a local receiver")
    probe = subprocess.run([sys.executable, "-m", "perfgate.cli", "notify", "--help"], capture_output=True)
    if probe.returncode != 0:
        print("   delivery skipped: this perfgate has no 'notify' verb yet")
        return False
    receiver = Receiver()
    try:
        notify = ("notify", "--channel", f"webhook:{receiver.url}", "--ledger", str(work / "notify.db"),
                  "--pages-url", (work / "site").as_uri())
        # In the project's checkout, as CI runs it: each commit is named with its subject.
        checkout = work / "project" if (work / "project").is_dir() else None
        pg(*notify, cwd=checkout)
        first = len(receiver.received)
        pg(*notify, cwd=checkout)     # exactly once: a second run delivers nothing new
        if len(receiver.received) != first:
            raise DemoFailed(f"a second 'perfgate notify' delivered {len(receiver.received) - first} event(s) again")
    finally:
        receiver.close()
    print(f"   the receiver got {len(receiver.received)} message(s):")
    for body in receiver.received:
        print("   > " + body.get("text", json.dumps(body)).replace("\n", "\n     "))
    raised = sorted(b["alert"]["id"] for b in receiver.received if b.get("event") == "raised")
    if raised != sorted(alerts):
        raise DemoFailed(f"{len(raised)} 'raised' event(s) arrived for {len(alerts)} alert(s)")
    if not any(b.get("event") == "closed" for b in receiver.received):
        raise DemoFailed("no 'closed' event arrived for the regression the fix undid")
    return True


def drawn(site: Path, results: list[dict]) -> None:
    """Every alerted change is drawn on the trend pages at its commit: the pages and the alerts
    must tell the same story."""
    series = {(s["benchmark"], s["measure"], s["branch"], s["testbed"]): s
              for s in json.loads((site / "data.json").read_text())}
    for r in results:
        a = r["alert"]
        row = series.get((a["benchmark"], a["measure"], a["branch"], a["testbed"]))
        if row is None:
            raise DemoFailed(f"the trend pages have no series {a['benchmark']} [{a['measure']}], "
                             f"alerted for {r['plant']!r}")
        if not any(cp["first_commit"] == a["commit"] and cp["direction"] == a["direction"]
                   for cp in row["change_points"]):
            raise DemoFailed(f"the trend pages do not draw {r['plant']!r} at {short(a['commit'])} on "
                             f"{a['benchmark']} [{a['measure']}]")
    print(f"   the pages draw all {len(results)} alerted changes at their commits")


def summary(results, planted, by_commit, work: Path, comment: Path, svg: Path, site: Path) -> str:
    lines = ["", "What perfgate caught in the planted history:", ""]
    for r in results:
        a = r["alert"]
        steps = a["details"].get("bisect", {}).get("steps", [])
        how = f"bisected in {len(steps)} run(s)" if steps else "measured directly"
        lines.append(f"  {r['plant']:<42} {a['direction']:<11} {a['magnitude'] * 100:+7.2f}%  at "
                     f"{short(a['commit'])} (planted: {short(planted[r['plant']])}, {how})  {a['benchmark']}")
    lines += ["", "Where to look:",
              f"  trend pages        {site / 'index.html'}",
              f"  pull-request check {comment}",
              f"  quadratic as a PR  {work / 'pr-comment-quadratic.md'}",
              f"  cost model + knee  {svg}",
              f"  history            perfgate history --store sqlite:{work / 'history.db'}"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
