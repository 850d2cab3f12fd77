"""Fuzzing every adapter with hypothesis.

Inputs: the adapter's real fixture with random text edits (truncation, deletion, insertion of
hostile characters), the fixture's JSON with one value anywhere replaced by a random JSON value,
and arbitrary JSON-ish documents built from the fixture's own vocabulary.  Whatever comes in, an
adapter must either return valid metrics — names acceptable, every number finite, known measures
(costs) non-negative, bounds around the value — or raise InputError.  Any other exception fails.
"""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perfgate.adapters import adapter_names, get_adapter, parse_file
from perfgate.errors import InputError
from perfgate.model import KNOWN_MEASURES, name_problem

FIX = Path(__file__).resolve().parent / "fixtures"
# PERFGATE_FUZZ_EXAMPLES=5000 digs deeper locally; CI keeps the default, fast enough for every push.
FUZZ = settings(max_examples=int(os.environ.get("PERFGATE_FUZZ_EXAMPLES", "200")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])


def _bmf_seed() -> str:
    """A BMF document made from real (Google Benchmark) results."""
    _, parsed = parse_file(str(FIX / "google-benchmark" / "sort-accumulate.json"))
    doc: dict = {}
    for m in parsed.metrics:
        entry = {"value": m.value}
        if m.lower is not None:
            entry.update(lower_value=m.lower, upper_value=m.upper)
        doc.setdefault(m.benchmark, {})[m.measure] = entry
    return json.dumps(doc)


SEEDS = {
    "hyperfine": (FIX / "hyperfine" / "two-commands.json").read_text(),
    "pytest-benchmark": (FIX / "pytest-benchmark" / "strings.json").read_text(),
    "google-benchmark": (FIX / "google-benchmark" / "sort-accumulate.json").read_text(),
    "go-bench": (FIX / "go-bench" / "strings.txt").read_text(),
    "jmh": (FIX / "jmh" / "string-bench.json").read_text(),
    "benchmarkdotnet": (FIX / "benchmarkdotnet" / "collection-bench-report-full.json").read_text(),
    "bmf": _bmf_seed(),
    # Synthetic data (no harness makes this format but the seeds' own driver), real format.
    "scaling-tsv": (FIX / "scaling-tsv" / "synthetic-vo.tsv").read_text(),
    "rust-libtest": (FIX / "rust-libtest" / "criterion-bencher.txt").read_text(),
    "catch2": (FIX / "catch2" / "console.txt").read_text(),
    "catch2-xml": (FIX / "catch2" / "benchmarks.xml").read_text(),
    "iai-callgrind": (FIX / "iai-callgrind" / "second-run.txt").read_text(),
    "benchmark-js": (FIX / "benchmark-js" / "suite.txt").read_text(),
    "benchmark-js-json": (FIX / "benchmark-js" / "suite.json").read_text(),
    "asv": (FIX / "asv" / "results" / "fixture-machine" / "49e99810-virtualenv-py3.11.json").read_text(),
    "github-action-benchmark": (FIX / "github-action-benchmark" / "smaller-is-better.json").read_text(),
    "custom-bigger-is-better": (FIX / "github-action-benchmark" / "bigger-is-better.json").read_text(),
    "custom-smaller-is-better": (FIX / "github-action-benchmark" / "smaller-is-better.json").read_text(),
    "github-action-benchmark-history": (FIX / "github-action-benchmark" / "history" / "data.js").read_text(),
}
# Seeds of an adapter's second format, and the adapter that reads them.
SEED_ADAPTER = {"catch2-xml": "catch2", "benchmark-js-json": "benchmark-js"}
TEXT_ADAPTERS = [name for name in adapter_names()
                 if not getattr(get_adapter(name), "ACCEPTS_DIRECTORY", False)]


def assert_valid(parsed) -> None:
    for m in [*parsed.metrics, *(m for run in parsed.runs for m in run.metrics)]:  # a history's runs too
        assert name_problem(m.benchmark) is None, m.benchmark
        assert name_problem(m.measure) is None, m.measure
        numbers = [m.value, *(b for b in (m.lower, m.upper) if b is not None), *m.samples]
        for x in numbers:
            assert isinstance(x, (int, float)) and not isinstance(x, bool), (m, x)
            assert math.isfinite(x), m
            if m.measure in KNOWN_MEASURES:
                assert x >= 0, m
        if m.lower is not None:
            assert m.lower <= m.value, m
        if m.upper is not None:
            assert m.value <= m.upper, m


def parse_or_refuse(adapter: str, text: str) -> None:
    """The property: valid metrics, or InputError — never another exception."""
    try:
        parsed = get_adapter(adapter).parse(text, "fuzz.out")
    except InputError:
        return
    assert_valid(parsed)


# --- random edits of the real fixtures ------------------------------------------------------------

HOSTILE = st.sampled_from(["", "-", "NaN", "Infinity", "1e999", "-1", "0", "\x00", "\x07", "\x1b[31m",
                           "<script>", "\"", "{", "}", "[", "]", ",", ":", "null", "true", "\n",
                           "\ud800", "é", "9" * 400, " ns/op", " B/op", "Benchmark",
                           " ns/iter", "(+/-", " ... bench:", "|N/A", "::", " ops/sec ", "±", " us ",
                           "<!DOCTYPE", "&lt;", "&#7;", "<mean value=\"1\"/>"])
EDIT = st.tuples(st.sampled_from(["truncate", "delete", "insert", "replace"]),
                 st.floats(0, 1), st.integers(1, 40), st.lists(HOSTILE, min_size=1, max_size=3).map("".join))


def apply_edits(text: str, edits) -> str:
    for op, where, length, piece in edits:
        at = int(where * len(text))
        if op == "truncate":
            text = text[:at]
        elif op == "delete":
            text = text[:at] + text[at + length:]
        elif op == "insert":
            text = text[:at] + piece + text[at:]
        else:
            text = text[:at] + piece + text[at + len(piece):]
    return text


@pytest.mark.parametrize("adapter", sorted(SEEDS))
@FUZZ
@given(edits=st.lists(EDIT, min_size=1, max_size=3))
def test_text_edits_of_fixture(adapter, edits):
    parse_or_refuse(SEED_ADAPTER.get(adapter, adapter), apply_edits(SEEDS[adapter], edits))


# --- values anywhere in the fixture's JSON replaced -----------------------------------------------

NUMBERS = st.one_of(st.integers(-10**20, 10**20), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0, -0.0, 1e308, -1e308, 5e-324, 2**63, 1e-300, 10**400]))
NAMES = st.one_of(st.text(max_size=12), st.sampled_from(["", " ", "a\x00b", "<script>x</script>",
                                                          "javascript:alert(1)", "x" * 2000, "NaN", "ns", "ms"]))
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, NAMES),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(NAMES, inner, max_size=4)),
    max_leaves=8,
)


def json_paths(doc, limit: int = 5000) -> list[tuple]:
    paths, stack = [], [((), doc)]
    while stack and len(paths) < limit:
        path, node = stack.pop()
        paths.append(path)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        stack.extend((path + (k,), v) for k, v in items)
    return paths


def replace_at(doc, path: tuple, value):
    if not path:
        return value
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


def draw_path(data, doc) -> tuple:
    """A random path into ``doc``: descend into a random child until a leaf, or stop early."""
    path, node = (), doc
    while isinstance(node, (dict, list)) and node and data.draw(st.integers(0, 9)) > 0:
        keys = list(node) if isinstance(node, dict) else range(len(node))
        key = keys[data.draw(st.integers(0, len(keys) - 1))]
        path, node = path + (key,), node[key]
    return path


def _json_or_none(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return None


JSON_SEEDS = {name: doc for name, doc in ((n, _json_or_none(t)) for n, t in SEEDS.items()) if doc is not None}


@pytest.mark.parametrize("adapter", sorted(JSON_SEEDS))
@FUZZ
@given(data=st.data())
def test_values_replaced(adapter, data):
    doc = copy.deepcopy(JSON_SEEDS[adapter])
    for _ in range(data.draw(st.integers(1, 3))):
        doc = replace_at(doc, draw_path(data, doc), data.draw(VALUES))
    parse_or_refuse(SEED_ADAPTER.get(adapter, adapter), json.dumps(doc))


# --- arbitrary documents in each format's vocabulary ----------------------------------------------

def vocabulary(doc) -> list[str]:
    keys = set()
    for path in json_paths(doc, limit=20000):
        keys.update(k for k in path if isinstance(k, str))
    return sorted(keys)[:200] or ["value"]


ALL_KEYS = sorted({k for doc in JSON_SEEDS.values() for k in vocabulary(doc)})
DOCS = st.recursive(
    st.one_of(st.none(), st.booleans(), NUMBERS, NAMES),
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.dictionaries(st.one_of(st.sampled_from(ALL_KEYS), NAMES), inner, max_size=6)),
    max_leaves=30,
)


@pytest.mark.parametrize("adapter", TEXT_ADAPTERS)
@FUZZ
@given(doc=DOCS)
def test_arbitrary_json_documents(adapter, doc):
    parse_or_refuse(adapter, json.dumps(doc))


GO_LINE = st.tuples(
    st.sampled_from(["Benchmark", "BenchmarkX-2", "BenchmarkSort/n=10-4", "Benchmark<b>", "goos:", "pkg:", "--- FAIL", "ok"]),
    st.lists(st.one_of(st.sampled_from(["ns/op", "B/op", "allocs/op", "MB/s", "x/op", "20000"]),
                       NUMBERS.map(str), st.text(max_size=5)), max_size=6),
).map(lambda t: "\t".join([t[0], *t[1]]))


# Lines in the shape of the other text formats (libtest, Catch2's table, iai-callgrind, benchmark.js).
OTHER_LINE = st.one_of(
    st.tuples(st.sampled_from(["test a ... bench: ", "test <b> ... bench: ", "test x ... FAILED"]),
              st.one_of(NUMBERS.map(str), st.sampled_from(["1,234", "1,2,,3", "", "-5"])),
              st.sampled_from([" ns/iter (+/- ", " ms/iter (+/- ", " "]),
              st.one_of(NUMBERS.map(str), st.text(max_size=4)), st.sampled_from([")", ") = 5 MB/s", ""]))
    .map("".join),
    st.tuples(st.sampled_from(["bench x ", "a::b::c id:1", "  Instructions: ", "  L1 Hits: ", "  Ir: ",
                               "name x ", "benchmark name  samples  iterations  estimated", "   "]),
              st.lists(st.one_of(NUMBERS.map(str), st.sampled_from(["ns", "us", "ms", "s", "|N/A", "|", "ops/sec",
                                                                   "±3%", "(5 runs sampled)", "20", "(No change)"])),
                       max_size=7)).map(lambda t: " ".join([t[0], *t[1]])),
)


@pytest.mark.parametrize("adapter", TEXT_ADAPTERS)
@FUZZ
@given(lines=st.lists(st.one_of(GO_LINE, OTHER_LINE), max_size=12))
def test_arbitrary_text_lines(adapter, lines):
    parse_or_refuse(adapter, "\n".join(lines))


# --- criterion: the directory adapter, one of its files edited ------------------------------------

CRITERION_FILES = ["estimates.json", "sample.json", "benchmark.json"]


@pytest.fixture(scope="module")
def criterion_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz") / "criterion"
    shutil.copytree(FIX / "criterion" / "target" / "criterion", root)
    return root


@FUZZ
@given(filename=st.sampled_from(CRITERION_FILES), edits=st.lists(EDIT, min_size=1, max_size=3),
       replacement=st.one_of(st.none(), VALUES), data=st.data())
def test_criterion_file_edits(criterion_copy, filename, edits, replacement, data):
    target = criterion_copy / "fib_iterative" / "10" / "new" / filename
    original = target.read_text()
    try:
        if replacement is None:
            text = apply_edits(original, edits)
        else:
            doc = json.loads(original)
            text = json.dumps(replace_at(doc, draw_path(data, doc), replacement))
        target.write_bytes(text.encode("utf-8", "surrogatepass"))  # a lone surrogate is invalid UTF-8
        try:
            parsed = get_adapter("criterion").parse_path(criterion_copy)
        except InputError:
            return
        assert_valid(parsed)
    finally:
        target.write_text(original)
