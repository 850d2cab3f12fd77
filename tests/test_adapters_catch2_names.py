"""Catch2's console reporter wraps a benchmark name longer than its name column over several lines,
and only the last piece shares the row with the numbers: the adapter must read the whole name.

The fixture ``catch2/long-names`` is Catch2 2.13.10's real output (see its README.md); its XML, from
the same binary, holds every name whole.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from perfgate.adapters import parse_file
from perfgate.adapters.catch2 import parse
from perfgate.errors import InputError
from test_adapters_bad_input import assert_refused

LONG = Path(__file__).resolve().parent / "fixtures" / "catch2" / "long-names"


def test_wrapped_names_in_real_console_output_are_read_whole():
    _, console = parse_file(str(LONG / "console.txt"), "catch2")
    _, xml = parse_file(str(LONG / "benchmarks.xml"), "catch2")
    names = [m.benchmark for m in console.metrics]
    assert names == [m.benchmark for m in xml.metrics]
    assert "fib of twenty computed recursively with memo off" in names
    assert "fib of fifteen computed recursively without any memo table, the slow way around" in names  # 3 lines
    # Numbers still come from the row the last piece shares.
    twenty = next(m for m in console.metrics if m.benchmark.startswith("fib of twenty"))
    assert twenty.value == pytest.approx(11.2801e3) and twenty.attrs["samples"] == 20


def test_breaks_the_output_cannot_tell_apart_are_read_the_likelier_way_and_warned():
    _, console = parse_file(str(LONG / "console.txt"), "catch2")
    # After '/' no space; a 34-character piece ending in '-' is a word cut for length.
    assert "std::map<std::string,int>::insert/emplace_hint/lookup" in [m.benchmark for m in console.metrics]
    assert "averyveryverylongidentifierwithoutanybreakpoints_x2" in [m.benchmark for m in console.metrics]
    assert any(w.startswith("lines 31-32:") and "insert/ emplace_hint" in w for w in console.warnings)
    assert any(w.startswith("lines 36-37:") and "without-anybreakpoints" in w for w in console.warnings)
    # An unambiguous wrap (at a space) warns of nothing.
    assert not any("fib of" in w for w in console.warnings)


@pytest.mark.parametrize("pieces,name,other", [
    (["fib of twenty computed recursively", "with memo off"], "fib of twenty computed recursively with memo off", None),
    # A comma is read with the space prose and argument lists put after it.
    (["sort(vector<int>, 1000000), fresh,", "reversed input"], "sort(vector<int>, 1000000), fresh, reversed input",
     "sort(vector<int>, 1000000), fresh,reversed input"),
])
def test_unwrap(pieces, name, other):
    from perfgate.adapters.catch2 import _unwrap

    assert _unwrap(pieces, 35, "f", "lines 1-2") == (name, other)


def _with_lines_before_row(extra: list[str]) -> str:
    lines = (LONG / "console.txt").read_text().splitlines()
    row = next(k for k, line in enumerate(lines) if line.startswith("with memo off"))
    return "\n".join(lines[:row - 1] + extra + lines[row:]) + "\n"


def test_a_printed_line_before_a_row_is_not_taken_into_its_name(tmp_path, store_path, capsys):
    # "with memo off" alone fits the column: Catch2 would never have wrapped a line before it.
    bad = tmp_path / "console.txt"
    bad.write_text(_with_lines_before_row(["setting up"]))
    assert_refused(bad, "catch2", "lines 20-21", "do not read as one benchmark name", store_path, capsys)
    bad.write_text(_with_lines_before_row(["a line the benchmark printed, longer than the name column"]))
    assert_refused(bad, "catch2", "lines 20-21", "longer than the 35-character name column", store_path, capsys)


def test_the_name_column_width_is_read_from_the_header():
    # A build with a wider console (CATCH_CONFIG_CONSOLE_WIDTH 100) wraps names at 55 characters.
    text = (LONG / "console.txt").read_text().replace(
        "benchmark name                       samples", "benchmark name" + " " * 43 + "samples")
    with pytest.raises(InputError, match="do not read as one benchmark name"):
        # 'fib of twenty computed recursively with' fits in 55: this wrap is not of that build.
        parse(text, "console.txt")
