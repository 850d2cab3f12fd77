"""Scaling-benchmark TSV: one row per data point, the parameters that were scaled and the times.

The format the seeds' deinit scaling benchmark driver writes::

    # async_copy_array --values=1:200:linear --objects=100:50000:linear --points=1000
    #
    # values objects Δschedule(ns) Δtotal(ns)
    103	13917	161251	161251
    8	19278	870707	869083

The first comment line names the benchmark and its arguments; the last comment line before the
data names the columns.  Columns with a unit in parentheses are measurements (``Δ`` marks a
difference against a baseline case, so they may be negative); the others are parameters
(non-negative).  The older layout keeps the parameters in a separate *inputs* file (rows of
``values objects``) and only the measurements in the results file; :func:`combine` joins them.

For ``perfgate ingest`` each distinct parameter combination becomes a benchmark
``NAME/values=V,objects=O`` with one measure per time column (``schedule-ns``, ``total-ns``);
repeated points become samples of that metric.  ``perfgate fit`` uses :func:`parse_table` to get
the columns as numpy arrays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from perfgate.adapters.base import Parsed, check_complete_lines, check_name, check_unique
from perfgate.errors import InputError
from perfgate.inputs import finite_number
from perfgate.model import Metric

NAME = "scaling-tsv"
EXPECTS = 'a TSV whose "#" header names columns such as values, objects and T(ns)'
MARKERS = ('#', '\t', '(ns)', 'objects')
SNIFF_ORDER = 40
_UNIT = re.compile(r"^(Δ?)([A-Za-z][\w-]*)\(([^()]+)\)$")
_PARAM = re.compile(r"^[A-Za-z][\w-]*$")
DEFAULT_INPUT_COLUMNS = ("values", "objects")


@dataclass
class ScalingTable:
    """Columns of a scaling benchmark.  ``params`` and ``phases`` map column names (``values``,
    ``schedule``...) to float arrays of equal length."""

    name: str
    args: str
    params: dict[str, np.ndarray]
    phases: dict[str, np.ndarray]
    unit: str = "ns"
    delta: bool = False
    source: str = ""
    lines: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=int))  # file line of each row

    def __len__(self) -> int:
        return len(self.lines)

    def letters(self) -> dict[str, np.ndarray]:
        """Parameters keyed by their first letter, as the term specs name them (v, o)."""
        out: dict[str, np.ndarray] = {}
        for column, values in self.params.items():
            letter = column[0].lower()
            if letter in out:
                raise InputError(self.source, "column names", f"parameters {column!r} and another column both "
                                 f"start with {letter!r}; term specs could not tell them apart")
            out[letter] = values
        return out

    def names(self) -> dict[str, str]:
        """Each parameter's column by the letter :meth:`letters` keys it by (``{"o": "objects"}``)."""
        return {column[0].lower(): column for column in self.params}

    def subset(self, keep: np.ndarray) -> "ScalingTable":
        return ScalingTable(self.name, self.args, {k: v[keep] for k, v in self.params.items()},
                            {k: v[keep] for k, v in self.phases.items()}, self.unit, self.delta, self.source,
                            self.lines[keep])


def sniff(text: str) -> bool:
    head = text[:4096]
    if not head.lstrip().startswith("#"):
        return False
    return any(_is_column_line(line) for line in head.splitlines() if line.startswith("#"))


def _is_column_line(line: str) -> bool:
    words = line.lstrip("#").split()
    return bool(words) and any(_UNIT.match(w) for w in words) and all(_UNIT.match(w) or _PARAM.match(w) for w in words)


def _comments_then_rows(text: str, source: str) -> tuple[list[tuple[int, str]], list[tuple[int, list[str]]]]:
    """Comment lines before the first data row, and the data rows (line number, fields)."""
    comments: list[tuple[int, str]] = []
    rows: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if not rows:
                comments.append((number, stripped.lstrip("#").strip()))
            continue
        rows.append((number, stripped.split("\t") if "\t" in stripped else stripped.split()))
    if not rows:
        raise InputError(source, "", "no data rows (lines not starting with '#')")
    return comments, rows


def _number(text: str, source: str, line: int, column: str, *, allow_negative: bool) -> float:
    value = finite_number(text, source, f"line {line}", f"column {column!r}: {text.strip()!r}")
    if value < 0 and not allow_negative:
        what = "parameter value" if not _UNIT.match(column) else "measurement (only a Δ column may be negative)"
        raise InputError(source, f"line {line}", f"column {column!r}: {what} {text.strip()} is negative")
    return value


def parse_table(text: str, source: str) -> ScalingTable:
    check_complete_lines(text, source)
    comments, rows = _comments_then_rows(text, source)
    named = [(n, c) for n, c in comments if c]
    if not named:
        raise InputError(source, "line 1", "missing the '# column names' line before the data")
    column_line, column_text = named[-1]
    columns = column_text.split()
    header = named[0][1] if len(named) > 1 else ""
    name, _, args = header.partition(" ")
    name = check_name(name or "scaling", source, "line 1")
    params, phases, units, delta = [], [], set(), False
    for word in columns:
        m = _UNIT.match(word)
        if m:
            delta = delta or bool(m.group(1))
            phases.append(m.group(2).lower())
            units.add(m.group(3))
        elif _PARAM.match(word):
            params.append(word.lower())
        else:
            raise InputError(source, f"line {column_line}", f"column name {word!r} is neither a parameter "
                             "(a word) nor a measurement (word(unit), e.g. total(ns))")
    if not phases:
        raise InputError(source, f"line {column_line}", "no measurement column (e.g. total(ns)) among "
                         + ", ".join(columns))
    if len(units) > 1:
        raise InputError(source, f"line {column_line}", f"measurement columns mix units: {', '.join(sorted(units))}")
    if len(set(columns)) != len(columns) or len(set(params + phases)) != len(params) + len(phases):
        raise InputError(source, f"line {column_line}", "a column name appears twice")
    is_param = [not _UNIT.match(c) for c in columns]
    # Only a difference against a baseline (a Δ column) may be negative; a time or size cannot.
    signed = [bool(m and m.group(1)) for m in map(_UNIT.match, columns)]
    data = np.empty((len(rows), len(columns)))
    for i, (line, fields) in enumerate(rows):
        if len(fields) != len(columns):
            raise InputError(source, f"line {line}", f"{len(fields)} fields, expected {len(columns)} "
                             f"({' '.join(columns)})")
        for j, text_value in enumerate(fields):
            data[i, j] = _number(text_value, source, line, columns[j], allow_negative=signed[j])
    params_by_name = {name.lower(): data[:, j] for j, name in enumerate(columns) if is_param[j]}
    phase_columns = [data[:, j] for j in range(len(columns)) if not is_param[j]]
    return ScalingTable(name, args.strip(), params_by_name, dict(zip(phases, phase_columns)),
                        units.pop(), delta, source, np.array([line for line, _ in rows]))


def parse_inputs(text: str, source: str) -> dict[str, np.ndarray]:
    """An inputs file: rows of parameter values (default columns ``values objects``, or named by a
    ``# a b`` comment line before the data)."""
    comments, rows = _comments_then_rows(text, source)
    named = [c.split() for _, c in comments if c]
    columns = [w.lower() for w in named[-1]] if named and all(_PARAM.match(w) for w in named[-1]) else None
    width = len(rows[0][1])
    if columns is None:
        if width != len(DEFAULT_INPUT_COLUMNS):
            raise InputError(source, f"line {rows[0][0]}", f"{width} fields but no '# names' line; "
                             f"an unnamed inputs file has {len(DEFAULT_INPUT_COLUMNS)} columns: values objects")
        columns = list(DEFAULT_INPUT_COLUMNS)
    data = np.empty((len(rows), len(columns)))
    for i, (line, fields) in enumerate(rows):
        if len(fields) != len(columns):
            raise InputError(source, f"line {line}", f"{len(fields)} fields, expected {len(columns)} ({' '.join(columns)})")
        for j, value in enumerate(fields):
            data[i, j] = _number(value, source, line, columns[j], allow_negative=False)
    return {c: data[:, j] for j, c in enumerate(columns)}


def combine(inputs: dict[str, np.ndarray], table: ScalingTable, inputs_source: str) -> ScalingTable:
    """Attach an inputs file's parameters to a results file that has none (row i ↔ row i)."""
    if table.params:
        raise InputError(table.source, "", "this results file already has parameter columns "
                         f"({', '.join(table.params)}); give it without an inputs file")
    n_in = len(next(iter(inputs.values())))
    if n_in != len(table):
        raise InputError(table.source, "", f"{len(table)} result rows but {inputs_source} has {n_in} input rows; "
                         "they must come from the same inputs file")
    return ScalingTable(table.name, table.args, dict(inputs), table.phases, table.unit, table.delta,
                        table.source, table.lines)


def point_name(name: str, params: dict[str, float]) -> str:
    return name + "/" + ",".join(f"{k}={_exact(v)}" for k, v in params.items())


def _exact(value: float) -> str:
    """A parameter value as text that reads back as exactly it.  Names were written ``{v:g}`` (6
    significant digits: 1234567 and 1234568 both ``1.23457e+06``); that text is kept wherever it is
    exact, so recorded series keep their names, and otherwise an integer is written whole and any
    other number in its shortest exact form (``repr``)."""
    value = float(value) + 0.0   # a plain float (numpy's repr names its type); -0.0 ("-0") is the point 0
    short = f"{value:g}"
    if float(short) == value:
        return short
    return str(int(value)) if value.is_integer() else repr(value)


def parse(text: str, source: str) -> Parsed:
    table = parse_table(text, source)
    if not table.params:
        raise InputError(source, "", "no parameter columns in this file; its parameters are in a separate "
                         "inputs file, so analyse it with 'perfgate fit INPUTS RESULTS' instead of ingesting it")
    groups: dict[tuple[float, ...], list[int]] = {}
    keys = list(zip(*table.params.values()))
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    metrics, first_seen = [], {}
    for key, rows in groups.items():
        benchmark = point_name(table.name, dict(zip(table.params, key)))
        # Names are exact, so two points should never share one; were they to, say where.
        check_unique(benchmark, first_seen, source, f"line {table.lines[rows[0]]}")
        for phase, values in table.phases.items():
            samples = tuple(float(values[i]) for i in rows)
            many = len(samples) > 1
            metrics.append(Metric(benchmark, f"{phase}-{table.unit}", float(np.mean(samples)),
                                  min(samples) if many else None, max(samples) if many else None,
                                  samples if many else (),
                                  attrs={"parameters": {k: float(v) for k, v in zip(table.params, key)}}))
    context = {"harness": "scaling-tsv", "suite_args": table.args, "scaling_benchmark": table.name,
               "delta": table.delta}
    return Parsed(metrics, context)


def table_from_metrics(name: str, metrics: list[Metric], source: str) -> ScalingTable:
    """The table of recorded points (metrics with ``attrs["parameters"]``, as :func:`parse` makes
    them): a row for each sample (or the value) of each parameter combination."""
    by_point: dict[str, dict[str, Metric]] = {}
    for m in metrics:
        by_point.setdefault(m.benchmark, {})[m.measure] = m
    measures = sorted({m.measure for m in metrics})
    unit = measures[0].rsplit("-", 1)[-1] if "-" in measures[0] else ""
    params: dict[str, list[float]] = {}
    phases: dict[str, list[float]] = {meas.rsplit("-", 1)[0]: [] for meas in measures}
    for point in by_point.values():
        first = next(iter(point.values()))
        rows = len(first.samples) or 1
        for meas in measures:
            m = point.get(meas)
            values = list(m.samples) or [m.value] if m else []
            if len(values) != rows:
                raise InputError(source, first.benchmark, f"measure {meas!r} has {len(values)} points, expected {rows}")
            phases[meas.rsplit("-", 1)[0]].extend(values)
        for k, v in first.attrs["parameters"].items():
            params.setdefault(k, []).extend([float(v)] * rows)
    arrays = {k: np.array(v) for k, v in params.items()}
    n = len(next(iter(arrays.values())))
    return ScalingTable(name, "", arrays, {k: np.array(v) for k, v in phases.items()}, unit or "ns", False,
                        source, np.arange(1, n + 1))
