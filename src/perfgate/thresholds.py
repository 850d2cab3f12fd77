"""What counts as a regression: per-measure threshold tests and change point settings.

Files live in ``thresholds/`` (TOML or YAML).  Settings are layered, later overriding earlier:

1. built-in defaults (``ChangePointSettings()``, no threshold test); a project with no
   ``thresholds/`` at all gets perfgate's own ``thresholds/default.toml`` instead (:data:`BUILT_IN`);
2. ``[change_point]`` at the top of a file: change point settings for every measure;
3. ``[measure.NAME]``: the Bencher-compatible test of that measure, and
   ``[measure.NAME.change_point]`` its change point settings;
4. ``[benchmark."BENCH".NAME]`` (and ``.change_point``): overrides for one benchmark.

Example::

    [change_point]
    min_effect = 0.005
    [measure.latency]
    test = "t_test"
    upper_boundary = 0.99
    max_sample_size = 64
    consecutive = 2          # perfgate's own key: alert on two values in a row past the limit
    [measure.latency.change_point]
    min_effect = 0.03
    [benchmark."sort 1e6".latency]
    test = "percentage"
    upper_boundary = 0.10

Pure: parses files, never touches a store.  Bad files raise :class:`InputError` naming the file,
the table and the reason.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import yaml

from perfgate import inputs
from perfgate.errors import InputError

TESTS = ("static", "percentage", "z_score", "t_test", "log_normal", "iqr", "delta_iqr")
# Tests whose boundaries are confidence levels (a quantile of a distribution): Bencher requires
# them in [0.5, 1.0).
_PROBABILITY_TESTS = ("z_score", "t_test", "log_normal")


# Top-level tables of thresholds/ files read by other parts of perfgate (``perfgate fit --check``).
OTHER_SECTIONS = ("complexity",)
MAX_SETTINGS_BYTES = 4 * 1024 * 1024  # a settings file is a few kB; anything near this is a mistake
MAX_COUNT = 1_000_000       # sample sizes, runs in a row, a regime's runs: more than any history holds
MAX_WINDOW = 2 ** 32 - 1    # seconds: Bencher's own bound (an unsigned 32-bit count, 136 years)


@dataclass(frozen=True)
class ThresholdTest:
    """One Bencher-compatible test (Bencher calls a test plus its parameters a *model*)."""

    test: str                   # one of TESTS
    min_sample_size: int | None = None
    max_sample_size: int | None = None
    window: int | None = None   # seconds, as Bencher's `window`
    lower_boundary: float | None = None
    upper_boundary: float | None = None
    # perfgate's, not Bencher's: ``detect`` alerts once this many values in a row are beyond the
    # same limit (Bencher alerts on each one; one noisy run of a wall time is not a regression)
    consecutive: int = 1


@dataclass(frozen=True)
class ChangePointSettings:
    min_effect: float = 0.02    # relative step size below which a change is not reported
    confidence: float = 0.99    # 1 - the per-series false alarm probability
    min_segment: int = 5        # fewest points a regime needs before it can be told apart


@dataclass(frozen=True)
class SeriesThresholds:
    test: ThresholdTest | None
    change_point: ChangePointSettings


@dataclass
class _Layer:
    """Settings given at one level (measure or benchmark+measure); ``None`` = not given here."""

    test: dict[str, Any] | None = None
    change_point: dict[str, Any] = field(default_factory=dict)


class Thresholds:
    def __init__(self, change_point: dict[str, Any] | None = None,
                 measures: dict[str, _Layer] | None = None,
                 benchmarks: dict[tuple[str, str], _Layer] | None = None, source: str = "built-in defaults"):
        self.change_point = change_point or {}
        self.measures = measures or {}
        self.benchmarks = benchmarks or {}
        self.source = source
        # Settings are fixed once loaded; a detect asks for each of 10,000 series' settings
        # several times (0.3 s of building the same frozen objects again).
        self._of: dict[tuple[str, str], SeriesThresholds] = {}

    def for_series(self, benchmark: str, measure: str) -> SeriesThresholds:
        """The test and change point settings of one (benchmark, measure) series."""
        found = self._of.get((benchmark, measure))
        if found is None:
            found = self._of[(benchmark, measure)] = self._settings_of(benchmark, measure)
        return found

    def _settings_of(self, benchmark: str, measure: str) -> SeriesThresholds:
        cp = replace(ChangePointSettings(), **self.change_point)
        test: dict[str, Any] | None = None
        for layer in (self.measures.get(measure), self.benchmarks.get((benchmark, measure))):
            if layer is None:
                continue
            cp = replace(cp, **layer.change_point)
            if layer.test is not None:
                test = layer.test
        return SeriesThresholds(ThresholdTest(**test) if test else None, cp)

    def measure_tests(self) -> dict[str, ThresholdTest]:
        """Per-measure default tests (what a Bencher project's thresholds are created from)."""
        return {name: ThresholdTest(**layer.test) for name, layer in sorted(self.measures.items()) if layer.test}


# perfgate's own thresholds/default.toml, shipped in the package (a link in the source tree): what
# a project without thresholds/ is judged by, installed or run from a checkout alike.
BUILT_IN = Path(__file__).with_name("default_thresholds.toml")
BUILT_IN_SOURCE = "perfgate's default thresholds"


def default_path() -> Path | None:
    """``./thresholds`` of the project being measured, else None.  (Never perfgate's own checkout's:
    an adopter's ``compare`` and ``fit --check`` read perfgate's files from it, and an installed
    perfgate has none, so the same command judged by other thresholds.)"""
    candidate = Path.cwd() / "thresholds"
    return candidate if candidate.is_dir() else None


def built_in_thresholds() -> Thresholds:
    """The thresholds of a project that has none of its own."""
    result = load_thresholds(BUILT_IN)
    result.source = BUILT_IN_SOURCE
    return result


def load_thresholds(path: str | Path | None = None) -> Thresholds:
    """Read a thresholds file, or every ``*.toml``/``*.yaml``/``*.yml`` of a directory (in name
    order, ``default.*`` first, later files overriding earlier).  ``None`` reads
    :func:`default_path`, or perfgate's default thresholds when there is none."""
    if path is None:
        path = default_path()
        if path is None:
            return built_in_thresholds()
        found = load_thresholds(path)
        # A thresholds/ folder that sets nothing (empty, or only complexity.toml) turned every
        # threshold test off, silently: the project has no thresholds of its own, so the defaults hold.
        return found if (found.change_point or found.measures or found.benchmarks) else built_in_thresholds()
    path = Path(path)
    if path.is_dir():
        files = sorted((p for p in path.iterdir() if p.suffix in (".toml", ".yaml", ".yml") and p.is_file()),
                       key=lambda p: (not p.stem == "default", p.name))
    elif path.is_file():
        files = [path]
    elif os.path.lexists(path):   # a device, a FIFO, a dangling symlink: it is there, not a file to read
        raise InputError(str(path), "", "not a thresholds file or directory (a device, a FIFO or a broken link)")
    else:
        raise InputError(str(path), "", "no such thresholds file or directory")
    result = Thresholds(source=str(path))
    for f in files:
        _merge(result, f, _read(f))
    return result


# Settings nest a few levels; PyYAML's scanner takes time quadratic in the depth of flow
# collections (50,000 '[' in 100 KB: 3 minutes of CPU, then a RecursionError), so the depth is
# checked on its events, which it streams, before the document is built.
MAX_YAML_DEPTH = 64


def _load_yaml(text: str, source: str) -> Any:
    """YAML without anchors/aliases: settings never need them, and nested aliases ("billion
    laughs") expand a few hundred bytes into gigabytes.  Nor nested past :data:`MAX_YAML_DEPTH`."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        mark = event.start_mark
        if isinstance(event, yaml.AliasEvent):
            raise InputError(source, f"line {mark.line + 1}", "YAML aliases (*name) are not accepted in settings")
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise InputError(source, f"line {mark.line + 1}",
                                 f"not valid YAML: nested too deeply (more than {MAX_YAML_DEPTH} levels)")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
    return yaml.safe_load(text)


def _read(path: Path) -> dict[str, Any]:
    try:
        text = inputs.read_text(path, MAX_SETTINGS_BYTES)
        data = inputs.parse_toml(text) if path.suffix == ".toml" else _load_yaml(text, str(path))
    except (tomllib.TOMLDecodeError, yaml.YAMLError, UnicodeDecodeError) as e:
        raise InputError(str(path), "", f"not valid {path.suffix[1:].upper()}: {e}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(str(path), "", "expected a table of settings at the top level")
    return data


def _merge(into: Thresholds, path: Path, data: dict[str, Any]) -> None:
    src = str(path)
    _only(src, "", data, {"change_point", "measure", "benchmark", *OTHER_SECTIONS})
    into.change_point.update(_change_point(src, "change_point", data.get("change_point", {})))
    for measure, body in _table(src, "measure", data.get("measure", {})).items():
        _layer(src, f"measure.{measure}", body, into.measures.setdefault(measure, _Layer()))
    for bench, per_measure in _table(src, "benchmark", data.get("benchmark", {})).items():
        for measure, body in _table(src, f"benchmark.{bench!r}", per_measure).items():
            _layer(src, f"benchmark.{bench!r}.{measure}", body, into.benchmarks.setdefault((bench, measure), _Layer()))


def _table(src: str, place: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(src, place, f"expected a table, got {type(value).__name__}")
    return value


def _only(src: str, place: str, table: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise InputError(src, place or "top level", f"unknown key {unknown[0]!r} (expected one of: "
                                                    f"{', '.join(sorted(allowed))})")


def _layer(src: str, place: str, body: Any, layer: _Layer) -> None:
    body = dict(_table(src, place, body))
    layer.change_point.update(_change_point(src, f"{place}.change_point", body.pop("change_point", {})))
    if body:
        layer.test = _test(src, place, body)


def _change_point(src: str, place: str, body: Any) -> dict[str, Any]:
    body = _table(src, place, body)
    _only(src, place, body, {f.name for f in fields(ChangePointSettings)})
    out: dict[str, Any] = {}
    for key, value in body.items():
        if key == "min_segment":
            out[key] = _int(src, f"{place}.{key}", value, minimum=2, maximum=MAX_COUNT)
        else:
            v = _number(src, f"{place}.{key}", value)
            if key == "min_effect" and not 0 <= v < 10:
                raise InputError(src, f"{place}.{key}", f"{v} is not a relative effect in [0, 10)")
            if key == "confidence" and not 0.5 <= v < 1:
                raise InputError(src, f"{place}.{key}", f"{v} is not a confidence level in [0.5, 1)")
            out[key] = v
    return out


def _test(src: str, place: str, body: dict[str, Any]) -> dict[str, Any]:
    _only(src, place, body, {f.name for f in fields(ThresholdTest)})
    test = body.get("test")
    if test is None:
        raise InputError(src, place, f"missing key `test`: name the threshold test (one of: {', '.join(TESTS)})")
    if test not in TESTS:
        raise InputError(src, f"{place}.test", f"{test!r} is not a threshold test; use one of: {', '.join(TESTS)}")
    out: dict[str, Any] = {"test": test}
    for key in ("min_sample_size", "max_sample_size", "window", "consecutive"):
        if key in body:
            out[key] = _int(src, f"{place}.{key}", body[key], minimum=1 if key in ("window", "consecutive") else 2,
                            maximum=MAX_WINDOW if key == "window" else MAX_COUNT)
    if out.get("min_sample_size") and out.get("max_sample_size") and out["min_sample_size"] > out["max_sample_size"]:
        raise InputError(src, place, "min_sample_size is larger than max_sample_size")
    for key in ("lower_boundary", "upper_boundary"):
        if key in body:
            v = _number(src, f"{place}.{key}", body[key])
            if test in _PROBABILITY_TESTS and not 0.5 <= v < 1:
                raise InputError(src, f"{place}.{key}", f"{test} boundaries are confidence levels in [0.5, 1), got {v}")
            if test in ("percentage", "iqr", "delta_iqr") and v < 0:
                raise InputError(src, f"{place}.{key}", f"{test} boundaries must not be negative, got {v}")
            out[key] = v
    if "lower_boundary" not in out and "upper_boundary" not in out:
        raise InputError(src, place, "a threshold test needs lower_boundary, upper_boundary or both")
    return out


def _number(src: str, place: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise InputError(src, place, f"expected a number, got {value!r}")
    return float(value)


def _int(src: str, place: str, value: Any, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise InputError(src, place, f"expected a whole number from {minimum} to {maximum:,}, got {value!r}")
    return value
