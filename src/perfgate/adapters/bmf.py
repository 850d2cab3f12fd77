"""Bencher Metric Format: ``{benchmark: {measure: {value, lower_value?, upper_value?}}}``.

The exchange format with Bencher (schema: ``contracts/bencher/bmf.json``).  The schema does not
require ``lower_value <= value <= upper_value`` and Bencher stores such results, so a file with
bounds on the wrong side is read with a warning: the value is kept, the bounds set aside.  BMF carries no raw
samples; perfgate's own ``export --format bmf`` adds none, so a round trip is lossless for
what BMF can hold.
"""

from __future__ import annotations

from perfgate import inputs
from perfgate.adapters.base import Parsed, check_name, check_number, join, load_json, require
from perfgate.errors import InputError
from perfgate.model import KNOWN_MEASURES, Metric, Run

NAME = "bmf"
EXPECTS = 'Bencher Metric Format: {"benchmark": {"measure": {"value": ...}}}'
MARKERS = ('{', '"value"', '"lower_value"', '"upper_value"')
SNIFF_ORDER = 90  # generic shape: try every specific harness first


def sniff(text: str) -> bool:
    doc = load_json(text, "<sniff>")
    if not isinstance(doc, dict) or not doc:
        return False
    return all(
        isinstance(measures, dict) and measures
        and all(isinstance(m, dict) and "value" in m for m in measures.values())
        for measures in doc.values()
    )


def parse(text: str, source: str) -> Parsed:
    doc = load_json(text, source)
    if not isinstance(doc, dict):
        raise InputError(source, "", f"BMF must be an object of benchmarks, got {inputs.json_kind(type(doc))}")
    metrics, warnings = [], []
    for bench, measures in doc.items():
        check_name(bench, source, bench[:80])
        if not isinstance(measures, dict):
            raise InputError(source, bench, f"expected an object of measures, got {inputs.json_kind(type(measures))}")
        for measure, result in measures.items():
            place = join(bench, measure)
            check_name(measure, source, place)
            # Known measures are costs and counts; a custom one (a delta, say) may be negative.
            signed = measure not in KNOWN_MEASURES
            raw = require(result, "value", (int, float), source, place)
            value = check_number(raw, source, join(place, "value"), allow_negative=signed)
            lower, upper = (
                check_number(result[k], source, join(place, k), allow_negative=signed)
                if result.get(k) is not None else None
                for k in ("lower_value", "upper_value")
            )
            attrs = {}
            if lower is not None and lower > value or upper is not None and upper < value:
                # The BMF schema and Bencher accept this, so the file is not refused; but a bound
                # on the wrong side of the value is no bound, so it is kept aside in attrs.
                attrs["bmf_bounds"] = [lower, upper]
                warnings.append(f"{place}: bounds [{lower}, {upper}] do not contain the value {value}; "
                                "kept the value, set the bounds aside (attrs.bmf_bounds)")
                lower = upper = None
            metrics.append(Metric(bench, measure, value, lower, upper, attrs=attrs))
    return Parsed(metrics, {"harness": "bmf"}, warnings)


def to_bmf(run: Run) -> dict[str, dict[str, dict[str, float]]]:
    """The run as BMF (raw samples dropped: BMF has no place for them)."""
    doc: dict[str, dict[str, dict[str, float]]] = {}
    for m in run.metrics:
        entry = {"value": m.value}
        if m.lower is not None:
            entry["lower_value"] = m.lower
        if m.upper is not None:
            entry["upper_value"] = m.upper
        doc.setdefault(m.benchmark, {})[m.measure] = entry
    return doc
