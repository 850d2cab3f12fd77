"""What holding wall-time streaks measured under load (``perfgate.detect.load_hold``) costs and buys.

Default: synthetic wall-time histories (3% log-normal noise) where the machine is loaded in
episodes — a run enters one with probability ``--episodes``, stays with 0.6, and a loaded run is
1.5-3x slower (this machine measured 1.5-5x beside busy loops), recorded with the share of the
CPU it needed that others took (``host_load.contended``) as measured beside busy loops: 1 - 1/slowdown,
the slowdown read 1% off, and 0 for a quiet run.  Each series is analysed as a ``perfgate detect`` after each of its runs would
(``detect._analyse`` on each prefix, the runs before it already judged), once with the loads
recorded and once without (as before the hold).  Reports

* A/A (unchanged code): regression alerts raised per 100 series, with and without the hold, by kind;
* a regression planted at 2/3 of the history: caught with and without the hold, how many the hold
  made later and by how many runs, how many it lost (caught without, never with), and how many
  first alerts named the planted run itself (not a run before it that the load slowed); the same
  for change point alerts alone (with the loads, the search leaves the loaded runs out,
  ``perfgate.detect.load_search``).

``--interference``: a CPU-bound benchmark run alone and beside 0, 2 and 4 busy loops, with
``perfgate.host_load``'s figures and the 1-minute load average, and how each follows the
slowdown (wall over CPU time).  ``--container IMAGE`` (an image with python3, e.g. a suite's):
the benchmark runs there pinned to CPU ``--cpuset`` as ``perfgate run`` runs a suite, beside 0, 1,
2 and 4 loops; each row also has ``outside``, the figure recorded before (the busy share of the
CPUs outside the cpuset).

  .venv/bin/python bench/loaded_runs.py --series 60
  .venv/bin/python bench/loaded_runs.py --interference --trials 3
  .venv/bin/python bench/loaded_runs.py --interference --container perfgate/suite-tree-alloc:TAG
  .venv/bin/python bench/loaded_runs.py --quiet-suite 8      # what a short suite run records, alone
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shlex
import statistics
import subprocess
import sys
import time

import numpy as np

from perfgate import host_load
from perfgate.commands import detect
from perfgate.store import Point, SeriesKey
from perfgate.thresholds import load_thresholds

KEY = SeriesKey("main", "tb", "bench", "latency")


def history(rng: np.random.Generator, runs: int, episodes: float, step: float, at: int) -> list[Point]:
    loaded, points = False, []
    for i in range(runs):
        loaded = rng.random() < (0.6 if loaded else episodes) and i >= 20     # the first 20 runs quiet
        slow = rng.uniform(1.5, 3.0) if loaded else 1.0
        value = 1e8 * float(np.exp(0.03 * rng.standard_normal())) * slow * (step if i >= at else 1.0)
        # what detect reads: 1 - 1/slowdown, the slowdown read 1% off (--interference measured
        # every loaded run within 0.02 of 1.5-3.4x); 0 on the quiet host (others under half of its 2 CPUs)
        load = 1 - 1 / (slow * (1 + 0.01 * rng.standard_normal())) if loaded else 0.0
        points.append(Point(f"r{i}", f"{i:040x}", 1.7e9 + 3600 * i, value, load=load))
    return points


def alerts_after_each_run(points: list[Point], settings, first: int) -> dict[tuple[str, int], int]:
    """Each regression alert a detect after each run raises, by (kind, index of its commit): the
    run after which it was first raised."""
    raised: dict[tuple[str, int], int] = {}
    for n in range(first, len(points) + 1):
        report = detect._analyse(KEY, points[:n], settings, {"points": n - 1})
        for a in report["alerts"]:
            if a.direction == "regression":
                raised.setdefault((a.kind, int(a.commit, 16)), n - 1)
    return raised


def simulate(args: argparse.Namespace) -> dict:
    detect._import_detectors()
    settings = load_thresholds(None).for_series(KEY.benchmark, KEY.measure)
    rng = np.random.default_rng(args.seed)
    at = 2 * args.runs // 3
    out: dict = {"series": args.series, "runs": args.runs, "episodes": args.episodes, "planted_at": at}
    for label, step in [("aa", 1.0), *((f"planted {s:+.0%}", 1 + s) for s in args.steps)]:
        counts = {"with": [], "without": []}
        for _ in range(args.series):
            pts = history(rng, args.runs, args.episodes, step, at)
            bare = [Point(p.run_id, p.commit, p.time, p.value) for p in pts]
            counts["with"].append(alerts_after_each_run(pts, settings, 12))
            counts["without"].append(alerts_after_each_run(bare, settings, 12))
        if step == 1.0:
            # regression alerts per 100 series, by kind (with the loads, the change point search
            # leaves the loaded runs out: an episode is no bump to it)
            out[label] = {k: {kind: sum(1 for r in v for (kd, _) in r if kd == kind) * 100 / args.series
                              for kind in ("threshold", "change_point")} for k, v in counts.items()}
            continue

        def first_alert(raised: dict, kinds=("threshold", "change_point")) -> tuple[int, int] | None:
            """The run after which the step was first alerted (by an alert of ``kinds``), and the
            run that alert named (of several raised then, the one nearest the planted run)."""
            found = [(n, abs(i - at), i) for (kind, i), n in raised.items() if i >= at - 3 and kind in kinds]
            return min(found)[::2] if found else None

        def caught(raised: dict, kinds=("threshold", "change_point")) -> int | None:
            return (first_alert(raised, kinds) or (None,))[0]

        pairs = [(caught(w), caught(o)) for w, o in zip(counts["with"], counts["without"])]
        # how often that first alert names the planted run itself (not a run the load slowed before it)
        named = {k: sum(1 for r in v if (first_alert(r) or (0, -1))[1] == at) for k, v in counts.items()}
        later = [w - o for w, o in pairs if w is not None and o is not None and w > o]
        out[label] = {"caught_with": sum(w is not None for w, _ in pairs),
                      "caught_without": sum(o is not None for _, o in pairs),
                      "later": len(later), "runs_later_median": statistics.median(later) if later else 0,
                      "runs_later_max": max(later, default=0),
                      "lost": sum(1 for w, o in pairs if w is None and o is not None),
                      "named_the_planted_run_with": named["with"], "named_the_planted_run_without": named["without"]}
        # the change point search's own (loaded runs left out of it with the loads): found, and
        # found by it without the loads but not with them
        cp = [(caught(w, ("change_point",)), caught(o, ("change_point",)))
              for w, o in zip(counts["with"], counts["without"])]
        out[label]["change_point"] = {"caught_with": sum(w is not None for w, _ in cp),
                                      "caught_without": sum(o is not None for _, o in cp),
                                      "lost": sum(1 for w, o in cp if w is None and o is not None)}
    return out


BUSY = [sys.executable, "-c", "while 1: pass"]
WORK = [sys.executable, "-c", "s = 0\nfor i in range(6_000_000): s += i * i"]
# in a container: 10 times the work, so that its start (about 0.5 s) is a small part of its wall time
CONTAINER_WORK = ["python3", "-c", "s = 0\nfor i in range(60_000_000): s += i * i"]


def interference(args: argparse.Namespace) -> dict:
    """The benchmark beside k busy loops, in random order; each row its slowdown and the figures."""
    rows = []
    order = ([0, 1, 2, 4] if args.container else [0, 2, 4]) * args.trials
    random.Random(args.seed).shuffle(order)
    for k in order:
        busy = [subprocess.Popen(BUSY) for _ in range(k)]
        try:
            time.sleep(args.settle)
            cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            start, t0 = host_load.reading(), time.monotonic()
            if args.container:
                cpu, outside, load, wall = in_container(args, start)
            else:
                subprocess.run(WORK, check=True)
                wall = time.monotonic() - t0
                load = host_load.during(start).get(host_load.KEY, {})
                cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
        finally:
            for p in busy:
                p.kill()
                p.wait()
        cpus = load.get("cpus") or 1
        rows.append({"busy_loops": k, "wall": round(wall, 2), "slowdown": round(wall / cpu, 2),
                     "others": load.get(host_load.OTHERS), "contended": load.get(host_load.CONTENDED),
                     **({"outside": outside} if args.container else {}),
                     "loadavg_start": load["loadavg"][0] / cpus, "loadavg_end": load["loadavg"][1] / cpus})
    slow = [r["slowdown"] for r in rows]
    figures = ("others", "contended", "outside", "loadavg_start", "loadavg_end") if args.container else \
        ("others", "contended", "loadavg_start", "loadavg_end")
    corr = {f: round(float(np.corrcoef(slow, [r[f] for r in rows])[0, 1]), 2) for f in figures}
    return {"rows": rows, "correlation_with_slowdown": corr}


def in_container(args: argparse.Namespace, start: host_load.Reading | None) -> tuple[float, float | None, dict, float]:
    """WORK in a pinned container, as ``perfgate run`` runs a suite's command (between the
    snapshots of ``host_load.SNAPSHOTS``): its CPU seconds, the busy share of the CPUs outside its
    cpuset, the load recorded over the command's own window, and that window's wall time."""
    from perfgate.containers import runner

    out = runner.writable_dir()
    try:
        done = runner.run_container(args.container, ["sh", "-c", host_load.SNAPSHOTS, "sh", shlex.join(CONTAINER_WORK)],
                                    out, {}, runner.Limits(cpuset=args.cpuset), watch=True)
        window = [host_load.snapshot((out / name).read_text()) for name in host_load.SNAPSHOT_FILES]
    finally:
        runner._cleanup(out)
    end, pinned = host_load.reading(), host_load.cpu_list(args.cpuset) or set()
    if done.returncode != 0 or done.cpu_seconds is None or start is None or end is None or None in window:
        raise SystemExit(f"the container failed or its CPU time was unread: {done.stderr[-500:]}")
    outside = [(end.cpus[c][0] - start.cpus[c][0], end.cpus[c][1] - start.cpus[c][1])
               for c in end.cpus if c not in pinned]
    total = sum(t for _, t in outside)
    load = host_load.during(window[0], args.cpuset, own=done.cpu_seconds, end=window[1]).get(host_load.KEY, {})
    return (done.cpu_seconds, round(sum(b for b, _ in outside) / total, 3) if total else None, load,
            window[1].at - window[0].at)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--series", type=int, default=60, help="series per scenario (default: 60)")
    p.add_argument("--runs", type=int, default=60, help="runs per series (default: 60)")
    p.add_argument("--episodes", type=float, default=0.1, help="chance a quiet run starts a loaded episode")
    p.add_argument("--steps", type=float, nargs="*", default=[0.1, 0.3], help="planted regressions (default: 0.1 0.3)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--interference", action="store_true", help="measure which load figure follows the slowdown")
    p.add_argument("--trials", type=int, default=3, help="with --interference: runs per number of busy loops")
    p.add_argument("--settle", type=float, default=15.0, help="with --interference: seconds the loops run first")
    p.add_argument("--container", metavar="IMAGE", help="with --interference: run the benchmark in this image")
    p.add_argument("--cpuset", default="1", help="with --container: the CPUs it is pinned to (default: 1)")
    p.add_argument("--quiet-suite", type=int, metavar="N",
                   help="run the tests' small suite (hyperfine, 5 runs of a ~60 ms loop) N times as perfgate run "
                        "runs a suite, pinned to --cpuset on the real base image, nothing beside it: the load each "
                        "records (a second's run, start and stop of its container and all)")
    args = p.parse_args()
    if args.quiet_suite:
        print(json.dumps(quiet_suite(args), indent=1))
        return
    print(json.dumps(interference(args) if args.interference else simulate(args), indent=1))


def quiet_suite(args: argparse.Namespace) -> dict:
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_containers_docker import make_tiny_root

    from perfgate.containers import images
    from perfgate.containers.manifest import load_suite
    from perfgate.containers.runner import Limits, run_suite

    with tempfile.TemporaryDirectory() as tmp:
        root = make_tiny_root(Path(tmp) / "repo", spin=300_000, alloc_probe=False)
        suite = load_suite(root / "benches" / "spin")
        built = images.build_suite(suite, images.build_base(Path(__file__).resolve().parents[1] / "docker"))
        runs = []
        for _ in range(args.quiet_suite):
            r = run_suite(suite, built.tag, variant="", profile="quick", limits=Limits(args.cpuset, "1g"), probes=False)
            load = r.context.get(host_load.KEY, {})
            runs.append({"contended": load.get(host_load.CONTENDED), "seconds": load.get("seconds"),
                         "container_seconds": r.context["harness_seconds"]})
    figures = [r["contended"] for r in runs if r["contended"] is not None]
    return {"runs": runs, "contended_min": min(figures, default=None), "contended_max": max(figures, default=None),
            "loaded": sum(1 for x in figures if x >= 0.25)}


if __name__ == "__main__":
    main()
