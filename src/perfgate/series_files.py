"""The files ``perfgate detect --series`` reads: series of numbers from outside the store.

A CSV with a ``value`` column (optionally an ``index`` column, a ``samples`` column of the
run's raw samples separated by spaces or ``;``, a ``commit`` column and a ``date`` or ``time``
column, kept as written, to name where a change is), or a JSON list of numbers; a JSON list of such
lists is a batch.  In JSON a point may be ``{"value": 1.2, "samples": [...]}``.  Every problem is
an :class:`~perfgate.errors.InputError` naming the file, the place (line, or JSON path) and why.
"""

from __future__ import annotations

import csv
import io
import json
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from perfgate import inputs
from perfgate.errors import InputError, shown
from perfgate.inputs import finite_float

# Each point's raw samples (an empty one for a point without), or None when no point has any.
Samples = list[Sequence[float]] | None

# Bounds on what one file may ask of `detect --series` (the file's 256 MiB bound alone let a CSV of
# 15 million one-digit lines take 4.4 GB and 75 s, and 300,000 three-point JSON series 73 s),
# well above real use, like thresholds.MAX_COUNT:
# * a series of 10^6 points is the longest `detect` is measured on (README, Measured figures: 7 s,
#   243 MiB); a store's series hold thousands of runs;
# * 10^5 series in a batch: ten times the largest store measured (10,000 series), and about 25 s of
#   per-series work at the rate 300,000 short series were analysed;
# * 10^7 numbers (values and raw samples) in a file, all series together: ten series of the
#   longest kind, 80 MB as packed doubles; a run's raw samples count, so one point cannot hold
#   millions of them unnoticed.
MAX_POINTS = 1_000_000
MAX_SERIES = 100_000
MAX_NUMBERS = 10_000_000
# The CSV columns read; any other is ignored.
_COLUMNS = ("value", "index", "samples", "commit", "date", "time")


class FileSeries(NamedTuple):
    """One series of a file: its ``index`` labels (None: positions), values (packed), each point's
    raw samples (None when no point has any), and each point's ``commit`` and ``date``/``time``
    as written (None without the column)."""

    labels: list[int] | None
    values: Sequence[float]
    samples: Samples
    commits: list[str] | None = None
    times: list[str] | None = None


class _Budget:
    """The numbers left to read in one file (:data:`MAX_NUMBERS`)."""

    def __init__(self, src: str):
        self.src, self.left = src, MAX_NUMBERS

    def take(self, n: int, place: str) -> None:
        self.left -= n
        if self.left < 0:
            raise InputError(self.src, place, f"more than {MAX_NUMBERS:,} numbers (values and samples) in the file, "
                                              "perfgate's limit for a series file: split it")


def _too_long(src: str, place: str) -> InputError:
    return InputError(src, place, f"more than {MAX_POINTS:,} points in one series, perfgate's limit for a "
                                  "series file: detect on a shorter stretch")


def read_series_file(path: Path) -> tuple[bool, list[FileSeries]]:
    """``(is_batch, [FileSeries])`` from a CSV or JSON series file."""
    text = inputs.read_text(path)  # a regular file or -, bounded; Excel's "CSV UTF-8" BOM left out
    if path.suffix.lower() == ".json" or text.lstrip().startswith("["):
        return _read_json(str(path), text)
    return False, [_read_csv(str(path), text)]


def _read_json(src: str, text: str) -> tuple[bool, list[FileSeries]]:
    # Before parsing: every comma separates two list items or a point's two keys, so a file of
    # more commas than this holds more numbers or series than allowed; the parse of it would
    # hold them all as Python objects (the limits below name the place; this bounds the parse).
    if text.count(",") > 2 * MAX_NUMBERS + MAX_SERIES:
        raise InputError(src, "", f"more than {MAX_NUMBERS:,} numbers (values and samples) or {MAX_SERIES:,} series "
                                  "in the file, perfgate's limits for a series file: split it")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(src, f"line {e.lineno} column {e.colno}", f"not valid JSON: {e.msg}") from None
    except RecursionError:
        raise InputError(src, "", "JSON nested too deeply (expected a list of numbers or a list of such lists)") from None
    except ValueError as e:      # e.g. an integer literal longer than Python's digit limit
        raise InputError(src, "", f"not valid JSON: {e}") from None
    del text
    if not isinstance(data, list) or not data:
        raise InputError(src, "", "expected a non-empty JSON list of numbers, or a list of such lists")
    budget = _Budget(src)
    if all(isinstance(x, list) for x in data):
        if len(data) > MAX_SERIES:
            raise InputError(src, f"[{MAX_SERIES}]", f"more than {MAX_SERIES:,} series, perfgate's limit for a "
                                                     "series file: split it")
        return True, [FileSeries(None, *_points(src, f"[{i}]", s, budget)) for i, s in enumerate(data)]
    return False, [FileSeries(None, *_points(src, "", data, budget))]


def _points(src: str, place: str, points: Any, budget: _Budget) -> tuple[array, Samples]:
    """A series' values, and each point's raw samples when any point is written as
    ``{"value": v, "samples": [...]}`` (None otherwise; a plain number has none)."""
    if not isinstance(points, list) or not points:
        raise InputError(src, place or "top level", "expected a non-empty list of numbers")
    if len(points) > MAX_POINTS:
        raise _too_long(src, f"{place}[{MAX_POINTS}]")
    budget.take(len(points), place or "top level")
    values = array("d")
    samples: list[Sequence[float]] | None = None     # made at the first point with samples
    for i, v in enumerate(points):
        if isinstance(v, dict):
            value, run = _run_point(src, f"{place}[{i}]", v, budget)
            values.append(value)
            if run and samples is None:
                samples = [()] * i
            if samples is not None:
                samples.append(run)
            continue
        number = finite_float(v)
        if number is None:
            shown = json.dumps(v) if not isinstance(v, list) else type(v).__name__
            raise InputError(src, f"{place}[{i}]", f"expected a finite number, got {shown[:40]}")
        values.append(number)
        if samples is not None:
            samples.append(())
    return values, samples


def _run_point(src: str, place: str, point: dict, budget: _Budget) -> tuple[float, array]:
    """``{"value": v, "samples": [...]}``: its value and its samples (none when left out)."""
    extra = sorted(set(point) - {"value", "samples"})
    if extra:
        raise InputError(src, place, f"unknown key {shown(extra[0])} (a point is a number or "
                                     '{"value": number, "samples": [numbers]})')
    value = finite_float(point.get("value"))
    if value is None:
        raise InputError(src, f"{place}.value", "expected a finite number")
    raw = point.get("samples", [])
    if not isinstance(raw, list):
        raise InputError(src, f"{place}.samples", "expected a list of numbers")
    budget.take(len(raw), f"{place}.samples")
    run = array("d")
    for j, x in enumerate(raw):
        number = finite_float(x)
        if number is None:
            raise InputError(src, f"{place}.samples[{j}]", "expected a finite number")
        run.append(number)
    return value, run


def _read_csv(src: str, text: str) -> FileSeries:
    """Read row by row into packed arrays: the whole file as lists of strings took 4.4 GB for
    15 million lines."""
    reader = csv.reader(io.StringIO(text, newline=None))  # CR, LF and CRLF all end a line
    try:
        header_row = next(reader, None)
        if header_row is None:
            raise InputError(src, "line 1", "empty file; expected a header with a `value` column")
        header = [h.strip().lower() for h in header_row]
        twice = sorted({h for h in header if h in _COLUMNS and header.count(h) > 1})
        if twice:
            raise InputError(src, "line 1", f"column `{twice[0]}` appears twice in the header: which one is meant?")
        if "date" in header and "time" in header:
            raise InputError(src, "line 1", "columns `date` and `time` both in the header: which one is meant?")
        if "value" not in header:
            raise InputError(src, "line 1",
                             f"no `value` column in header {header_row!r} (expected `value`, and optionally `index`, "
                             "`samples`, `commit` and `date` or `time` columns)")
        vi, ii = header.index("value"), header.index("index") if "index" in header else None
        si = header.index("samples") if "samples" in header else None
        ci = header.index("commit") if "commit" in header else None
        ti = next((header.index(h) for h in ("date", "time") if h in header), None)
        commits: list[str] | None = [] if ci is not None else None
        times: list[str] | None = [] if ti is not None else None
        budget = _Budget(src)
        values = array("d")
        labels: list[int] = []
        seen: dict[int, int] = {}             # O(n): the first line of each index
        samples: list[Sequence[float]] | None = None     # made at the first point with samples
        for line, row in enumerate(reader, start=2):
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise InputError(src, f"line {line}", f"{len(row)} fields, header has {len(header)}")
            if len(values) == MAX_POINTS:
                raise _too_long(src, f"line {line}")
            budget.take(1, f"line {line}")
            values.append(_csv_number(src, line, "value", row[vi]))
            if ii is not None:
                try:
                    label = int(row[ii])
                except ValueError:
                    raise InputError(src, f"line {line}", f"index {shown(row[ii])} is not a whole number") from None
                if label in seen:
                    raise InputError(src, f"line {line}", f"index {label} appears twice (first on line {seen[label]})")
                seen[label] = line
                labels.append(label)
            if commits is not None:
                commits.append(_csv_commit(src, line, row[ci]))
            if times is not None:
                times.append(row[ti].strip())
            run = _csv_samples(src, line, row[si], budget) if si is not None else ()
            if run and samples is None:
                samples = [()] * (len(values) - 1)
            if samples is not None:
                samples.append(run)
    except csv.Error as e:     # e.g. a field over the csv module's size limit
        raise InputError(src, f"line {reader.line_num}", f"not a readable CSV file: {e}") from None
    if not values:
        raise InputError(src, "", "no values after the header")
    if ii is None:
        return FileSeries(None, values, samples, commits, times)
    order = sorted(range(len(values)), key=labels.__getitem__)
    return FileSeries([labels[i] for i in order], array("d", (values[i] for i in order)),
                      [samples[i] for i in order] if samples else None,
                      [commits[i] for i in order] if commits is not None else None,
                      [times[i] for i in order] if times is not None else None)


def _csv_commit(src: str, line: int, cell: str) -> str:
    """A `commit` cell: a change is reported at a commit, so every row names one."""
    commit = cell.strip()
    if not commit:
        raise InputError(src, f"line {line}", "empty `commit` (each row names the commit it measured)")
    return commit


def _csv_samples(src: str, line: int, cell: str, budget: _Budget) -> Sequence[float]:
    """A `samples` cell: the run's raw samples separated by spaces or semicolons (empty: none)."""
    fields = cell.replace(";", " ").split()
    budget.take(len(fields), f"line {line}")
    return array("d", (_csv_number(src, line, f"sample {j + 1}", field) for j, field in enumerate(fields)))


def _csv_number(src: str, line: int, what: str, text: str) -> float:
    """A CSV cell as a finite float, or an error naming the line and the cell."""
    return inputs.finite_number(text, src, f"line {line}", f"{what} {shown(text)}")
