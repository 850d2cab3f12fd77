"""The files ``perfgate detect --series`` reads: series of numbers from outside the store.

A CSV with a ``value`` column (optionally an ``index`` column, and a ``samples`` column of the
run's raw samples separated by spaces or ``;``), or a JSON list of numbers; a JSON list of such
lists is a batch.  In JSON a point may be ``{"value": 1.2, "samples": [...]}``.  Every problem is
an :class:`~perfgate.errors.InputError` naming the file, the place (line, or JSON path) and why.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from perfgate import inputs
from perfgate.errors import InputError
from perfgate.inputs import finite_float

Samples = list[list[float]] | None


def read_series_file(path: Path) -> tuple[bool, list[tuple[list[Any] | None, list[float], Samples]]]:
    """``(is_batch, [(index labels or None, values, each point's raw samples or None)])`` from a
    CSV or JSON series file."""
    text = inputs.read_text(path).removeprefix("\ufeff")  # a regular file or -, bounded; Excel's "CSV UTF-8" BOM
    if path.suffix.lower() == ".json" or text.lstrip().startswith("["):
        return _read_json(str(path), text)
    return False, [_read_csv(str(path), text)]


def _read_json(src: str, text: str) -> tuple[bool, list[tuple[None, list[float], Samples]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(src, f"line {e.lineno} column {e.colno}", f"not valid JSON: {e.msg}") from None
    except RecursionError:
        raise InputError(src, "", "JSON nested too deeply (expected a list of numbers or a list of such lists)") from None
    except ValueError as e:      # e.g. an integer literal longer than Python's digit limit
        raise InputError(src, "", f"not valid JSON: {e}") from None
    if not isinstance(data, list) or not data:
        raise InputError(src, "", "expected a non-empty JSON list of numbers, or a list of such lists")
    if all(isinstance(x, list) for x in data):
        return True, [(None, *_points(src, f"[{i}]", s)) for i, s in enumerate(data)]
    return False, [(None, *_points(src, "", data))]


def _points(src: str, place: str, points: Any) -> tuple[list[float], Samples]:
    """A series' values, and each point's raw samples when any point is written as
    ``{"value": v, "samples": [...]}`` (None otherwise; a plain number has none)."""
    if not isinstance(points, list) or not points:
        raise InputError(src, place or "top level", "expected a non-empty list of numbers")
    values: list[float] = []
    samples: list[list[float]] = []
    for i, v in enumerate(points):
        if isinstance(v, dict):
            value, run = _run_point(src, f"{place}[{i}]", v)
            values.append(value)
            samples.append(run)
            continue
        number = finite_float(v)
        if number is None:
            shown = json.dumps(v) if not isinstance(v, list) else type(v).__name__
            raise InputError(src, f"{place}[{i}]", f"expected a finite number, got {shown[:40]}")
        values.append(number)
        samples.append([])
    return values, samples if any(samples) else None


def _run_point(src: str, place: str, point: dict) -> tuple[float, list[float]]:
    """``{"value": v, "samples": [...]}``: its value and its samples (none when left out)."""
    extra = sorted(set(point) - {"value", "samples"})
    if extra:
        raise InputError(src, place, f"unknown key {_short(extra[0])} (a point is a number or "
                                     '{"value": number, "samples": [numbers]})')
    value = finite_float(point.get("value"))
    if value is None:
        raise InputError(src, f"{place}.value", "expected a finite number")
    raw = point.get("samples", [])
    if not isinstance(raw, list):
        raise InputError(src, f"{place}.samples", "expected a list of numbers")
    run = []
    for j, x in enumerate(raw):
        number = finite_float(x)
        if number is None:
            raise InputError(src, f"{place}.samples[{j}]", "expected a finite number")
        run.append(number)
    return value, run


def _short(cell: str, limit: int = 40) -> str:
    return repr(cell if len(cell) <= limit else cell[:limit] + "…")


def _value_lines(rows: list[list[str]]):
    """Line numbers of the non-blank data rows, in order."""
    return (line for line, row in enumerate(rows[1:], start=2) if row and any(c.strip() for c in row))


def _read_csv(src: str, text: str) -> tuple[list[Any] | None, list[float], Samples]:
    reader = csv.reader(io.StringIO(text, newline=None))  # CR, LF and CRLF all end a line
    try:
        rows = list(reader)
    except csv.Error as e:     # e.g. a field over the csv module's size limit
        raise InputError(src, f"line {reader.line_num}", f"not a readable CSV file: {e}") from None
    if not rows:
        raise InputError(src, "line 1", "empty file; expected a header with a `value` column")
    header = [h.strip().lower() for h in rows[0]]
    twice = sorted({h for h in header if h in ("value", "index", "samples") and header.count(h) > 1})
    if twice:
        raise InputError(src, "line 1", f"column `{twice[0]}` appears twice in the header: which one is meant?")
    if "value" not in header:
        raise InputError(src, "line 1", f"no `value` column in header {rows[0]!r} (expected `value` or `index,value`)")
    vi, ii = header.index("value"), header.index("index") if "index" in header else None
    si = header.index("samples") if "samples" in header else None
    pairs = []
    for line, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise InputError(src, f"line {line}", f"{len(row)} fields, header has {len(header)}")
        value = _csv_number(src, line, "value", row[vi])
        label: Any = None
        if ii is not None:
            try:
                label = int(row[ii])
            except ValueError:
                raise InputError(src, f"line {line}", f"index {_short(row[ii])} is not a whole number") from None
        pairs.append((label, value, _csv_samples(src, line, row[si]) if si is not None else []))
    if not pairs:
        raise InputError(src, "", "no values after the header")
    samples = [run for _, _, run in pairs] if any(run for _, _, run in pairs) else None
    if ii is None:
        return None, [v for _, v, _ in pairs], samples
    labels = [label for label, _, _ in pairs]
    seen: dict[int, int] = {}                # O(n): the first line of each index
    for line, label in zip(_value_lines(rows), labels):
        if label in seen:
            raise InputError(src, f"line {line}", f"index {label} appears twice (first on line {seen[label]})")
        seen[label] = line
    order = sorted(range(len(pairs)), key=lambda i: pairs[i][0])
    return ([pairs[i][0] for i in order], [pairs[i][1] for i in order],
            [samples[i] for i in order] if samples else None)


def _csv_samples(src: str, line: int, cell: str) -> list[float]:
    """A `samples` cell: the run's raw samples separated by spaces or semicolons (empty: none)."""
    return [_csv_number(src, line, f"sample {j + 1}", field)
            for j, field in enumerate(cell.replace(";", " ").split())]


def _csv_number(src: str, line: int, what: str, text: str) -> float:
    """A CSV cell as a finite float, or an error naming the line and the cell."""
    return inputs.finite_number(text, src, f"line {line}", f"{what} {_short(text)}")
