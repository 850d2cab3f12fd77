"""What every adapter shares: reading a harness output file safely and reporting bad input.

An adapter turns one harness's own output into :class:`perfgate.model.Metric` objects.  It is a
module in this package defining::

    NAME = "hyperfine"            # the value of ``--adapter``
    def sniff(text: str) -> bool   # cheap check used by ``--adapter auto``
    def parse(text: str, source: str) -> Parsed

``parse`` raises :class:`perfgate.errors.InputError` naming the place (a JSON path such as
``results[2].times[5]`` or ``line 14``) and the reason.  It never returns partial results.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfgate import inputs
from perfgate.errors import InputError
from perfgate.model import Metric, Testbed, identity_problem, name_problem, number_problem, time_problem

MAX_INPUT_BYTES = inputs.MAX_INPUT_BYTES
# A NaN/Infinity literal outside a string: after a ':' , '[' or ',' (with optional spaces).
_CONSTANT = re.compile(r"(?<=[:\[,])\s*(-?Infinity|NaN)\b")


@dataclass
class Parsed:
    metrics: list[Metric]
    # Facts about the harness run: versions, date, host, command lines...
    context: dict[str, Any] = field(default_factory=dict)
    # Odd but acceptable things about the input, each "place: what is odd", shown by ingest.
    warnings: list[str] = field(default_factory=list)
    # The commit the output says it measured, and that commit's date (epoch seconds), for formats
    # that record them (asv): ingest takes them when --commit / --start-time are not given.
    commit: str | None = None
    commit_time: float | None = None
    # The machine the output says measured it (asv's ``params``): ingest's testbed when --testbed
    # is not given, as this machine's fingerprint would put every machine's results in one series.
    machine: Testbed | None = None
    # A history format (github-action-benchmark's data.js) holds many runs, each its own Parsed
    # with its commit and time; ``metrics`` is then empty and ingest records each run.
    runs: list["Parsed"] = field(default_factory=list)


def read_bytes(path: str | Path, max_bytes: int | None = None) -> bytes:
    """A harness output's bytes: a regular file (or ``-``), bounded."""
    max_bytes = MAX_INPUT_BYTES if max_bytes is None else max_bytes  # looked up now: tests lower it
    return inputs.read_bytes(path, max_bytes)


def read_text(path: str | Path, max_bytes: int | None = None) -> str:
    """Read a harness output as UTF-8 text: a regular file (or ``-``), bounded, by name."""
    max_bytes = MAX_INPUT_BYTES if max_bytes is None else max_bytes  # looked up now: tests lower it
    return inputs.read_text(path, max_bytes)


def check_complete_lines(text: str, source: str) -> None:
    """Refuse a text output whose last line has no line end: it was cut short (a killed job, a
    full disk, a copy stopped early), and its last value may be a prefix of the real one (a
    scaling table's 97669568 ns read as 976)."""
    if text and not text.endswith(("\n", "\r")):
        raise InputError(source, f"line {text.count(chr(10)) + 1}", "ends mid-line: the output was cut short, and its "
                         "last value may be cut too; a complete output ends with a line end")


class DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` refusing a key given twice: json would silently keep the last one."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a valid measurement")


def _infinity_only(name: str) -> float:
    if name in ("Infinity", "-Infinity"):
        return float(name)
    return _reject_constant(name)


def load_json(text: str, source: str, *, infinities: bool = False) -> Any:
    """Parse JSON strictly: NaN/Infinity literals are errors, positions are reported.
    ``infinities``: ±Infinity are read as floats, for a format where they mean "unbounded" (the
    adapter must then check every number it keeps, as ``check_number`` does); NaN stays an error."""
    constant = _infinity_only if infinities else _reject_constant
    try:
        return json.loads(text, parse_constant=constant, object_pairs_hook=_unique_keys)
    except DuplicateKey as e:
        raise InputError(source, "", f"invalid JSON: key {e.key!r} appears twice in one object "
                         "(which value was meant is unknowable)") from None
    except json.JSONDecodeError as e:
        raise InputError(source, f"line {e.lineno} column {e.colno}", f"invalid JSON: {e.msg}") from None
    except ValueError as e:
        raise InputError(source, _constant_place(text), f"invalid JSON: {e}") from None
    except RecursionError:
        raise InputError(source, "", "invalid JSON: nested too deeply") from None


def _constant_place(text: str) -> str:
    """Where the first bare NaN / Infinity literal is (json gives no position for them)."""
    m = _CONSTANT.search(text)
    if not m:
        return ""
    start = m.start(1)
    line = text.count("\n", 0, start) + 1
    return f"line {line} column {start - text.rfind(chr(10), 0, start)}"


def require(obj: Any, key: str, kind: type | tuple[type, ...], source: str, place: str) -> Any:
    """``obj[key]``, which must exist and be of ``kind``; otherwise a clear InputError."""
    if not isinstance(obj, dict):
        raise InputError(source, place, f"expected an object, got {inputs.json_kind(type(obj))}")
    if key not in obj:
        raise InputError(source, place, f"missing field {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and bool not in _as_tuple(kind):
        raise InputError(source, join(place, key),
                         f"expected {inputs.json_kind(kind)}, got {inputs.json_kind(type(value))}")
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def join(place: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{place}[{key}]"
    return f"{place}.{key}" if place else key


def check_name(name: Any, source: str, place: str) -> str:
    problem = name_problem(name)
    if problem:
        raise InputError(source, place, problem)
    return name


def check_unique(name: str, first_seen: dict[str, str], source: str, place: str, measure: str | None = None) -> None:
    """Refuse a benchmark (or a benchmark's ``measure``) a file gives twice, naming both places
    (ingest's own check of the merged run only sees metrics, not where in which file they came from)."""
    first = first_seen.setdefault(name if measure is None else f"{name}\x1f{measure}", place)
    if first != place:
        what = f"benchmark {name!r}" + (f" ({measure})" if measure is not None else "")
        raise InputError(source, place, f"{what} appears twice (first at {first}): which result is meant is unknowable")


def check_commit(value: Any, source: str, place: str) -> str:
    """The commit an output says it measured (asv's ``commit_hash``, the action's ``commit.id``),
    held to the rule of ``--commit``."""
    problem = identity_problem("commit", value)
    if problem:
        raise InputError(source, place, problem)
    return value


def check_millis(value: Any, source: str, place: str) -> float:
    """A date an output gives in milliseconds since the epoch (asv's and the action's ``date``),
    in seconds, held to the rule of ``--start-time``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(source, place, f"expected milliseconds (a number), got {inputs.json_kind(type(value))}")
    seconds = check_number(value, source, place) / 1000
    problem = time_problem(seconds)
    if problem:
        raise InputError(source, place, problem)
    return seconds


def parse_number(text: str, source: str, place: str) -> float:
    """``text`` read as a number, refused by its place when it is none: a pattern of digits and
    dots also takes "1.2.3", where ``float`` raised a bare ValueError."""
    try:
        return float(text)
    except ValueError:
        raise InputError(source, place, f"{text[:40]!r} is not a number") from None


def check_number(value: Any, source: str, place: str, *, allow_negative: bool = False) -> float:
    if isinstance(value, int) and not isinstance(value, bool):
        try:  # JSON integers are unbounded; one too big for a float is out of range, not a crash
            value = float(value)
        except OverflowError:
            raise InputError(source, place, "value is out of range") from None
    problem = number_problem(value, allow_negative=allow_negative)
    if problem:
        raise InputError(source, place, problem)
    return float(value)


def check_samples(values: Any, source: str, place: str, scale: float = 1.0) -> tuple[float, ...]:
    if not isinstance(values, list):
        raise InputError(source, place, f"expected a list of numbers, got {inputs.json_kind(type(values))}")
    return tuple(scaled(check_number(v, source, join(place, i)), scale, source, join(place, i))
                 for i, v in enumerate(values))


def scaled(value: float, scale: float, source: str, place: str) -> float:
    """``value * scale`` (a unit conversion), refusing a result too large to be a float."""
    result = value * scale
    if not math.isfinite(result):
        raise InputError(source, place, f"value {value} is out of range once converted")
    return result
