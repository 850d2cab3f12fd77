"""Harness adapters: one module per harness, discovered by name.

See :mod:`perfgate.adapters.base` for the interface every adapter module implements.
"""

from __future__ import annotations

import importlib
from array import array
import pkgutil
from pathlib import Path
from types import ModuleType

import numpy as np

from perfgate.adapters import base
from perfgate.adapters.base import Parsed
from perfgate.inputs import decode_utf8
from perfgate.errors import InputError
from perfgate.model import KNOWN_MEASURES, name_problem, number_problem

__all__ = ["Parsed", "adapter_names", "check_metrics", "get_adapter", "parse_file"]


def _modules() -> dict[str, ModuleType]:
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "parse"):
            found[module.NAME] = module
        for variant in getattr(module, "VARIANTS", ()):   # one format read with a fixed option
            found[variant.NAME] = variant
    return found


_ADAPTERS = _modules()


def adapter_names() -> list[str]:
    return sorted(_ADAPTERS)


def get_adapter(name: str) -> ModuleType:
    try:
        return _ADAPTERS[name]
    except KeyError:
        raise InputError("--adapter", "", f"unknown adapter {name!r}; choose auto or one of: "
                         + ", ".join(adapter_names())) from None


def sniff(text: str, source: str) -> ModuleType:
    """The adapter whose format ``text`` is in.  Generic formats (BMF) sniff last."""
    ordered = sorted((m for m in _ADAPTERS.values() if getattr(m, "AUTO", True)),
                     key=lambda m: (getattr(m, "SNIFF_ORDER", 50), m.NAME))
    for module in ordered:
        try:
            if module.sniff(text):
                return module
        except Exception:  # a sniffer must never turn a detection into a crash
            continue
    if text.lstrip()[:1] in ("{", "["):
        from perfgate.adapters.base import load_json

        load_json(text, source)  # a broken JSON file gets its JSON error, with the position
    raise InputError(source, "", _not_recognised(text, ordered))


def _not_recognised(text: str, tried: list[ModuleType]) -> str:
    """Which adapters were tried, and what the one the text resembles most expected."""
    for module in tried:
        hint = getattr(module, "hint", None)
        advice = hint(text) if hint else None
        if advice:
            return f"format not recognised: {advice}"
    message = "format not recognised; tried " + ", ".join(m.NAME for m in tried)
    scores = [(_resemblance(m, text), m) for m in tried]
    score, closest = max(scores, key=lambda pair: pair[0])
    if score > 0:
        found = [k for k in closest.MARKERS if k in text[:_LOOK]]
        message += (f". Closest: {closest.NAME}, which expects {closest.EXPECTS} (found "
                    + ", ".join(repr(k) for k in found) + ")")
    return message + ". Name the format with --adapter if it is one of them"


_LOOK = 65536


def _resemblance(module: ModuleType, text: str) -> float:
    markers = getattr(module, "MARKERS", ())
    if not markers or not hasattr(module, "EXPECTS"):
        return 0.0
    head = text[:_LOOK]
    found = [k for k in markers if k in head]
    # A one-character marker ('[', '{', '#', a tab) is in any file of its syntax: alone it made
    # every unknown JSON list "closest: jmh"; it counts only beside a marker of the format's own.
    if all(len(k) == 1 for k in found):
        return 0.0
    return len(found) / len(markers)


def parse_file(path: str, adapter: str = "auto") -> tuple[str, Parsed]:
    """Read and parse one harness output file (or an output directory, for adapters declaring
    ``ACCEPTS_DIRECTORY = True`` with ``sniff_path``/``parse_path``); returns (adapter name, parsed)."""
    if Path(path).is_dir():
        module = _sniff_directory(path) if adapter == "auto" else get_adapter(adapter)
        if not getattr(module, "ACCEPTS_DIRECTORY", False):
            raise InputError(path, "", f"is a directory; the {module.NAME} adapter reads a file")
        parsed = module.parse_path(path)
    else:
        data = base.read_bytes(path)
        if not data.strip():   # a harness that failed before writing (hyperfine on a missing input)
            raise InputError(path, "", "the file is empty: the harness wrote nothing (did its command fail?)")
        text = decode_utf8(data, path)
        module = sniff(text, path) if adapter == "auto" else get_adapter(adapter)
        if hasattr(module, "parse_bytes"):  # a streaming parser: the text copy is not kept
            del text
            parsed = module.parse_bytes(data, path)
        else:
            parsed = module.parse(text, path)
    if not parsed.metrics and not parsed.runs:
        raise InputError(path, "", f"no results found in this {module.NAME} output")
    for each in (parsed, *parsed.runs):
        check_metrics(each, path)
    return module.NAME, parsed


def _sniff_directory(path: str) -> ModuleType:
    for module in _ADAPTERS.values():
        if getattr(module, "ACCEPTS_DIRECTORY", False) and module.sniff_path(path):
            return module
    raise InputError(path, "", "is a directory holding no output perfgate recognises")


def _samples_problem(samples, cost: bool) -> str | None:
    """The first bad sample.  A packed ``array('d')`` (a long run: millions) is checked at C speed;
    it can only hold floats, so only finiteness and sign are left to check."""
    start = 0
    if isinstance(samples, array) and samples.typecode == "d":
        values = np.frombuffer(samples, dtype=np.float64)
        bad = ~np.isfinite(values) | (values < 0) if cost else ~np.isfinite(values)
        if not bad.any():
            return None
        start = int(np.argmax(bad))
    for i in range(start, len(samples)):
        problem = number_problem(samples[i], allow_negative=not cost)
        if problem:
            return f"sample {i}: {problem}"
    return None


def check_metrics(parsed: Parsed, source: str) -> None:
    """Last line of defence whatever the adapter: names valid, every number finite, costs
    (known measures) non-negative, bounds around the value."""
    for m in parsed.metrics:
        place = f"{m.benchmark[:80]} {m.measure[:40]}"
        problem = name_problem(m.benchmark) or name_problem(m.measure)
        cost = m.measure in KNOWN_MEASURES
        for label, number in [("value", m.value), ("lower", m.lower), ("upper", m.upper)]:
            if problem is None and number is not None:
                problem = number_problem(number, allow_negative=not cost)
                problem = problem and f"{label}: {problem}"
        if problem is None:
            problem = _samples_problem(m.samples, cost)
        if problem is None and (m.lower is not None and m.lower > m.value or m.upper is not None and m.upper < m.value):
            problem = f"bounds [{m.lower}, {m.upper}] do not contain the value {m.value}"
        if problem:
            raise InputError(source, place, problem)
