"""Human-readable numbers as tables, comments and messages print them."""

from __future__ import annotations

import pytest

from perfgate.units import human


@pytest.mark.parametrize("value, measure, text", [
    (1.5e6, "latency", "1.50 ms"),
    (250, "latency", "250 ns"),
    (123456789, "instructions", "123M"),
    (3 * 1024 ** 2, "peak-rss", "3.00 MiB"),
    (0, "latency", "0 ns"),
    (1.7e308, "instructions", "1.70e+308"),      # was a 309-digit number before its "G"
    (1e-300, "latency", "1.00e-300 ns"),         # was "0.00 ns"
    (-2e20, "", "-2.00e+20"),
    (None, "latency", "—"),
])
def test_values_past_the_units_are_written_in_scientific_notation(value, measure, text):
    assert human(value, measure) == text
