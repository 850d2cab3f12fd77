"""criterion.rs output directories: ``target/criterion`` or one benchmark's ``new`` directory.

Each benchmark criterion measured leaves ``<id>/new/`` holding

* ``benchmark.json`` — its ``full_id`` (``group/function/value``), used as the benchmark name;
* ``sample.json`` — ``iters[i]`` iterations took ``times[i]`` ns, so sample i is
  ``times[i] / iters[i]`` ns per iteration;
* ``estimates.json`` — bootstrap estimates; value = ``mean.point_estimate`` with lower/upper its
  confidence interval (``confidence_level``, 95 % by default, kept in attrs).

Only ``new`` directories are read (``base`` is an older copy, ``change`` compares the two).  One
with any of these files missing, or a directory that cannot be listed, is refused: a half-copied
``target/criterion`` would otherwise lose benchmarks without a word.

A benchmark directory with no ``new`` (only ``base``, ``change`` or ``report``: a partial copy, or
a benchmark the run that wrote the rest did not measure) has no result of its own: it is left
out with a warning naming it, as stale results are; with nothing else there, it is named in the
error.

Stale results: criterion never clears ``target/criterion``, so a run of some benchmarks (a
filter, a removed benchmark) leaves the other benchmarks' ``new`` results of earlier runs there,
and criterion writes no marker of which run wrote what.  perfgate takes the latest run to be the
newest result and every older one written in a chain of short gaps before it: a benchmark runs
right after the one before it, so the gap before a result is at most its own measurement (its
samples' total time), its warm-up (at least one iteration: the longest sample's), plus
``RUN_GAP_S`` for the rest of the warm-up, analysis and starting the next bench target.  Older
results are left out with a warning naming them.  A run started within that allowance of the
previous one cannot be told apart by time: clear ``target/criterion`` before ``cargo bench``
when runs select different benchmarks.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from perfgate.adapters.base import (
    Parsed, check_name, check_number, check_samples, check_unique, join, load_json, read_text, require, scaled,
)
from perfgate.errors import InputError
from perfgate.model import Metric

NAME = "criterion"
EXPECTS = 'a criterion output directory (target/criterion) holding */new/estimates.json'
MARKERS = ('"point_estimate"', '"confidence_interval"', 'time:', 'Benchmarking ')
ACCEPTS_DIRECTORY = True
FILES = ("benchmark.json", "estimates.json", "sample.json")
RESULT_FILES = (*FILES, "tukey.json")   # what criterion writes in new/ (tukey.json is not read)
BESIDE_NEW = {"base", "change", "report"}   # what criterion writes beside new/ in a benchmark's directory
RUN_GAP_S = 30.0  # warm-up (3 s by default), analysis, process start, beyond the measurement


def sniff(text: str) -> bool:
    """A lone ``estimates.json`` (so ``parse`` can say to pass the directory instead)."""
    head = text[:4096]
    return '"point_estimate"' in head and '"confidence_interval"' in head


_CONSOLE = re.compile(r"^\S.*?\s+time:\s+\[[0-9.]+ \S+ [0-9.]+ \S+ [0-9.]+ \S+\]", re.MULTILINE)


def hint(text: str) -> str | None:
    """What to do instead, when ``text`` is criterion's console output (which has no samples)."""
    if _CONSOLE.search(text[:65536]):
        return ("this is criterion's console output; perfgate reads criterion's results from the directory "
                "it writes, target/criterion (perfgate ingest target/criterion), or from "
                "'cargo bench -- --output-format bencher' output with --adapter rust-libtest")
    return None


def sniff_path(path: str | Path) -> bool:
    found, without_new = _result_dirs(Path(path), limit=1)
    return bool(found or without_new)


def parse(text: str, source: str) -> Parsed:
    raise InputError(source, "", "criterion results are a directory: pass target/criterion "
                                 "(or a benchmark's 'new' directory) rather than one of its files")


def parse_path(path: str | Path) -> Parsed:
    root = Path(path)
    dirs, without_new = _result_dirs(root)
    lacking = ", ".join(f"{_relative(d, root)!r} ({', '.join(f'{n}/' for n in names)})"
                        for d, names in without_new.items())
    if not dirs:
        raise InputError(str(root), "", "no criterion results here (looked for */new/estimates.json)"
                         + (f"; benchmark directories without new/: {lacking}" if lacking else ""))
    metrics, measured = zip(*(_metric(d) for d in dirs))
    written = [max(_mtime(d / f) for f in FILES) for d in dirs]
    latest = _latest_run(written, measured)
    stale = [(m.benchmark, dirs[k]) for k, m in enumerate(metrics) if k not in latest]
    warnings = []
    if without_new:
        warnings.append(f"left out {len(without_new)} benchmark(s) with no new/ result: {lacking}; criterion "
                        "writes new/ for each benchmark it measures, so these were not measured by the run that "
                        "wrote the rest, or were lost in a partial copy")
    if stale:
        newest = max(written)
        warnings.append(f"left out {len(stale)} result(s) older than the latest run, written "
                        f"by an earlier cargo bench: " + ", ".join(
                            f"{name!r} ({newest - _mtime(d / 'estimates.json'):.0f} s older)" for name, d in stale)
                        + "; clear target/criterion before cargo bench to be sure which run wrote what")
    first_seen: dict[str, str] = {}
    for k in sorted(latest):   # two directories of one benchmark (a copy, or two links to one result)
        check_unique(metrics[k].benchmark, first_seen, str(root), _relative(dirs[k], root))
    return Parsed([m for k, m in enumerate(metrics) if k in latest], {"harness": "criterion"}, warnings)


def _mtime(file: Path) -> float:
    return file.stat().st_mtime


def _latest_run(written: list[float], measured: tuple[float, ...]) -> set[int]:
    """Indexes of the results of the latest run: from the newest back, each older result must be
    no further before the next one than that one ran (``measured``, s) plus RUN_GAP_S."""
    order = sorted(range(len(written)), key=lambda k: written[k], reverse=True)
    latest = {order[0]}
    for newer, older in zip(order, order[1:]):
        if written[newer] - written[older] > measured[newer] + RUN_GAP_S:
            break
        latest.add(older)
    return latest


def _is_result_dir(path: Path, names: list[str]) -> bool:
    """Whether ``path``, holding ``names``, is a benchmark's ``new`` directory: any file criterion
    writes there makes it one, so one with a file missing (a half-copied ``target/criterion``) is
    refused by ``_metric``, naming the file, rather than skipped and its benchmark lost without a
    word.  A benchmark group called "new" is a directory of that name holding none of them."""
    return path.name == "new" and any(name in RESULT_FILES for name in names)


def _relative(path: Path, root: Path) -> str:
    return "." if path == root else str(path.relative_to(root))


def _beside_new(path: Path, files: list[str], beside: list[str] | None) -> bool:
    """Whether ``path`` (holding ``files``) is one of criterion's directories of a benchmark other
    than ``new``: a baseline (``base``, or one named with --save-baseline) or ``change`` holds
    result files; a ``report`` counts where only criterion's directories are beside it (a group's
    report sits beside its benchmarks).  ``beside``: the parent's subdirectories, when walked."""
    if beside is None or path.name == "new":
        return False
    return any(name in RESULT_FILES for name in files) or \
        (path.name == "report" and set(beside) <= BESIDE_NEW | {"new"})


def _result_dirs(root: Path, limit: int | None = None) -> tuple[list[Path], dict[Path, list[str]]]:
    """Every benchmark's ``new`` directory under ``root`` (or ``root`` itself), and the benchmark
    directories that have none, with what they hold instead."""
    try:
        if _is_result_dir(root, os.listdir(root)):
            return [root], {}
    except OSError as e:
        _unreadable(e)
    found: list[Path] = []
    without_new: dict[Path, list[str]] = {}
    subdirs_of: dict[Path, list[str]] = {}
    above: dict[Path, set[tuple[int, int]]] = {}   # each walked directory's own and its parents' identities
    # Links are followed (a new/ linked to a cache was left out unseen), but not into a directory
    # the walk is already in: a link to a parent would be walked forever.
    for here, subdirs, files in os.walk(root, onerror=_unreadable, followlinks=True):
        path = Path(here)
        above[path] = above.get(path.parent, set()) | {_identity(path)}
        subdirs[:] = sorted(d for d in subdirs if _identity(path / d) not in above[path])
        if "new" in files and (path / "new").is_symlink() and not (path / "new").exists():
            raise InputError(str(path / "new"), "", "a broken symbolic link: the result of benchmark directory "
                             f"{_relative(path, root)!r} is not there")
        subdirs_of[path] = list(subdirs)
        if _is_result_dir(path, files + subdirs):
            found.append(path)
        elif _beside_new(path, files, subdirs_of.get(path.parent)):
            without_new.setdefault(path.parent, []).append(path.name)
        if limit and len(found) + len(without_new) >= limit:
            break
    # (an empty new/, or one holding none of criterion's files, is no result either)
    return found, {d: names for d, names in without_new.items() if d / "new" not in found}


def _identity(path: Path) -> tuple[int, int]:
    try:
        info = path.stat()
    except OSError as e:
        _unreadable(e)
    return info.st_dev, info.st_ino


def _unreadable(e: OSError) -> None:
    # os.walk skips a directory it cannot list: its benchmarks would be lost without a word
    raise InputError(str(e.filename), "", f"cannot read: {e.strerror}")


def _metric(new_dir: Path) -> tuple[Metric, float]:
    """The benchmark's metric, and how long it ran at least (s: its samples and one warm-up iteration)."""
    docs = {}
    for filename in FILES:
        file = new_dir / filename
        if not file.exists() and not file.is_symlink():   # anything else there: read_text says what it is
            raise InputError(str(file), "", f"missing: a criterion result directory holds {', '.join(FILES)}")
        docs[filename] = load_json(read_text(file), str(file))

    info, info_src = docs["benchmark.json"], str(new_dir / "benchmark.json")
    name = check_name(require(info, "full_id", str, info_src, ""), info_src, "full_id")

    est, est_src = docs["estimates.json"], str(new_dir / "estimates.json")
    mean = require(est, "mean", dict, est_src, "")
    value = check_number(require(mean, "point_estimate", (int, float), est_src, "mean"), est_src,
                         "mean.point_estimate")
    ci = require(mean, "confidence_interval", dict, est_src, "mean")
    place = "mean.confidence_interval"
    lower = check_number(require(ci, "lower_bound", (int, float), est_src, place), est_src, join(place, "lower_bound"))
    upper = check_number(require(ci, "upper_bound", (int, float), est_src, place), est_src, join(place, "upper_bound"))
    if not lower <= value <= upper:
        raise InputError(est_src, place, f"interval [{lower}, {upper}] does not contain the mean {value}")
    attrs = {}
    level = ci.get("confidence_level")
    if level is not None:
        attrs["confidence_level"] = check_number(level, est_src, join(place, "confidence_level"))

    sample, sample_src = docs["sample.json"], str(new_dir / "sample.json")
    iters = check_samples(require(sample, "iters", list, sample_src, ""), sample_src, "iters")
    times = check_samples(require(sample, "times", list, sample_src, ""), sample_src, "times")
    if len(iters) != len(times):
        raise InputError(sample_src, "", f"{len(iters)} iters but {len(times)} times")
    for i, n in enumerate(iters):
        if n <= 0:
            raise InputError(sample_src, join("iters", i), f"iteration count must be positive, got {n}")
    samples = tuple(scaled(t, 1.0 / n, sample_src, join("times", i)) for i, (t, n) in enumerate(zip(times, iters)))
    # Measured, plus one warm-up iteration at least: how long before its result criterion started it.
    return Metric(name, "latency", value, lower, upper, samples, attrs), (sum(times) + max(samples, default=0)) / 1e9
