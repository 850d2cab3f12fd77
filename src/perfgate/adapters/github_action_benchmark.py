"""github-action-benchmark's custom JSON: ``[{"name", "unit", "value", "range"?, "extra"?}]``.

No harness writes it; users' scripts do, for the action's ``customSmallerIsBetter`` and
``customBiggerIsBetter`` tools.  The file does not say which: that choice is the tool's.  Here:

* ``--adapter custom-smaller-is-better`` / ``custom-bigger-is-better`` say it, as the action's
  ``tool:`` input does;
* ``--adapter github-action-benchmark`` (and ``auto``) read it from the unit, the way perfgate reads
  any measure name: rates (``ops/sec``, ``MB/s``, ``req/sec``, ``... per second``) are bigger-is-better,
  everything else smaller-is-better.

The measure: a time unit (``ns``, ``us``/``µs``, ``ms``, ``s``, also ``ns/iter``, ``ms/op``...)
→ ``latency`` in ns; ``ops/sec``/``ops/s`` → ``throughput``; any other unit → a measure named
after the unit (``Percent``, ``Megabytes``).  When the chosen direction is not the one perfgate
reads from that name, the measure is named ``UNIT (bigger is better)`` / ``UNIT (smaller is
better)``, which perfgate reads as such.  ``range`` is free text (``"3"``, ``"± 329"``,
``"+/- 1.5"``, in the value's unit): its number becomes lower/upper = value ∓ range; text with
no number is kept in attrs, with a warning, and gives no bounds.  ``"±1.2%"`` is relative to the value.  ``extra`` (free text for the chart's tooltip) is kept in
attrs.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

from perfgate import inputs
from perfgate.adapters.base import Parsed, check_name, check_number, check_unique, join, load_json, require, scaled
from perfgate.errors import InputError
from perfgate.model import BIGGER_IS_BETTER, KNOWN_MEASURES, SMALLER_IS_BETTER, Measure, Metric

NAME = "github-action-benchmark"
EXPECTS = 'a JSON list of {"name", "unit", "value", "range"?, "extra"?} objects'
MARKERS = ("[", '"name"', '"unit"', '"value"', '"range"')
SNIFF_ORDER = 80  # a generic shape: after every harness-specific format
TIME_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}
RATE_UNITS = {"ops/sec", "ops/s"}
_RANGE = re.compile(r"^\s*(?:±|\+/-|\+-)?\s*([0-9][0-9,]*(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*(%?)\s*$")


def sniff(text: str) -> bool:
    doc = load_json(text, "<sniff>")
    return (isinstance(doc, list) and bool(doc)
            and all(isinstance(e, dict) and {"name", "unit", "value"} <= e.keys() for e in doc))


def parse(text: str, source: str, bigger_is_better: bool | None = None) -> Parsed:
    metrics, warnings = parse_benches(load_json(text, source), source, bigger_is_better)
    return Parsed(metrics, {"harness": "github-action-benchmark"}, warnings)


def parse_benches(doc: object, source: str, bigger_is_better: bool | None = None,
                  where: str = "") -> tuple[list[Metric], list[str]]:
    """The metrics of one list of benchmarks and its warnings; ``where`` prefixes each place, for
    a list inside a larger file (a ``benches`` list of the action's history, data.js)."""
    if not isinstance(doc, list):
        raise InputError(source, where, f"expected a list of benchmarks, got {inputs.json_kind(type(doc))}")
    metrics, warnings, first = [], [], {}
    for i, entry in enumerate(doc):
        place = join(where, i)
        name = check_name(require(entry, "name", str, source, place), source, join(place, "name"))
        unit = require(entry, "unit", str, source, place)
        measure, scale = _measure(unit.strip(), bigger_is_better, source, join(place, "unit"))
        check_unique(name, first, source, place, measure)   # one result a benchmark's measure, or which?
        signed = measure not in KNOWN_MEASURES
        raw = check_number(require(entry, "value", (int, float), source, place), source, join(place, "value"),
                           allow_negative=signed)
        value = scaled(raw, scale, source, join(place, "value"))
        lower = upper = None
        attrs: dict = {"unit": unit}
        spread = entry.get("range")
        if isinstance(spread, (int, float)) and not isinstance(spread, bool):
            spread = str(spread)  # the action's first histories wrote "range": 32 (a number, the value's unit)
        if spread is not None:
            match = _RANGE.match(spread) if isinstance(spread, str) else None
            if match:
                number = check_number(float(match.group(1).replace(",", "")), source, join(place, "range"))
                # "±1.2%" is relative to the value; a bare number is in the value's unit.
                half = abs(value) * number / 100 if match.group(2) else scaled(number, scale, source,
                                                                                 join(place, "range"))
                lower, upper = value - half, scaled(value + half, 1.0, source, join(place, "range"))
                if not signed:
                    lower = max(lower, 0.0)
            else:
                attrs["range"] = spread
                warnings.append(f"{join(place, 'range')}: {str(spread)[:40]!r} holds no number; kept in attrs, "
                                "no bounds")
        extra = entry.get("extra")
        if extra is not None:
            if not isinstance(extra, str):
                raise InputError(source, join(place, "extra"),
                                 f"expected a string, got {inputs.json_kind(type(extra))}")
            attrs["extra"] = extra
        metrics.append(Metric(name, measure, value, lower, upper, attrs=attrs))
    return metrics, warnings


def _measure(unit: str, bigger_is_better: bool | None, source: str, place: str) -> tuple[str, float]:
    base = unit.split("/", 1)[0] if "/" in unit and unit not in RATE_UNITS else unit
    if base in TIME_UNITS:  # ns, ns/iter, ms/op...
        measure, scale = "latency", TIME_UNITS[base]
    elif unit in RATE_UNITS:
        measure, scale = "throughput", 1.0
    else:
        measure, scale = check_name(unit, source, place), 1.0
    if bigger_is_better is None or Measure.named(measure).lower_is_better != bigger_is_better:
        return measure, scale
    if measure in KNOWN_MEASURES:
        told = "bigger" if bigger_is_better else "smaller"
        raise InputError(source, place, f"unit {unit!r} is a {measure} measure, which cannot be {told}-is-better")
    return check_name(unit + (BIGGER_IS_BETTER if bigger_is_better else SMALLER_IS_BETTER), source, place), scale


def _forced(bigger_is_better: bool) -> SimpleNamespace:
    """The format as github-action-benchmark's ``customBiggerIsBetter`` / ``customSmallerIsBetter``
    tools read it: every value has the one direction.  The file cannot say which, so these are
    only chosen with --adapter, never by auto-detection."""
    return SimpleNamespace(
        NAME=f"custom-{'bigger' if bigger_is_better else 'smaller'}-is-better", EXPECTS=EXPECTS, MARKERS=MARKERS,
        AUTO=False, sniff=lambda text: False,
        parse=lambda text, source: parse(text, source, bigger_is_better=bigger_is_better),
        __doc__=_forced.__doc__)


VARIANTS = (_forced(True), _forced(False))
