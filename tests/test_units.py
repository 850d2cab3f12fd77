"""Human-readable numbers as tables, comments and messages print them."""

from __future__ import annotations

import os

import pytest

from perfgate.units import SPARKS, confidence_text, human, p_cell, p_text, sparkline


@pytest.mark.parametrize("value, measure, text", [
    (1.5e6, "latency", "1.50 ms"),
    (9.997e6, "latency", "10.0 ms"),             # was "10.00 ms" beside "12.8 ms"
    (99.96e3, "latency", "100 µs"),
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


@pytest.mark.parametrize("p, text, cell, confidence", [
    (0.0123, "p = 0.012", "0.012", "98.77%"),
    (0.0027, "p = 0.0027", "0.0027", "99.73%"),
    (4e-5, "p = 4e-05", "4e-05", "> 99.99%"),   # 99.996% would print as 100.00%
    (3e-12, "p = 3e-12", "3e-12", "> 99.99%"),
    (0.0, "p < 1e-15", "< 1e-15", "> 99.99%"),  # a deterministic series' p underflows: not "p = 0"
    (1.0, "p = 1", "1", "0.00%"),
])
def test_a_p_value_is_never_written_as_a_certainty(p, text, cell, confidence):
    assert (p_text(p), p_cell(p), confidence_text(p)) == (text, cell, confidence)


def test_a_rate_says_it_is_per_second():
    # github-action-benchmark's "ops/sec", JMH's thrpt, Google Benchmark's items_per_second and
    # benchmark.js's hz are all recorded as throughput, per second: "803k" alone lost the unit.
    from perfgate.units import human

    assert human(803_123, "throughput") == "803k ops/s"
    assert human(1.0e6, "throughput") == "1.00M ops/s" and human(None, "throughput") == "—"


def test_a_percentage_past_ten_thousand_is_written_as_a_bound():
    # check's MDE for 2 degrees of freedom overflowed to a 127-digit number that broke its table.
    from perfgate.units import pct

    assert pct(1.3e126, sign=False) == "> 10,000%" and pct(3.6e10) == "> +10,000%"
    assert pct(99.99) == "+9999.00%" and pct(-0.5) == "-50.00%"


def test_logs_write_lines_whole_whatever_columns_says():
    """Off a terminal, lines were folded at 160 columns (or $COLUMNS): a check table's verdict
    "(significant but below the ⏎1.0% threshold)" and detect's table cells were split in CI logs."""
    import subprocess
    import sys

    code = ("from rich.table import Table\nfrom perfgate.output import out\nout.print('note ' + 'x' * 400)\n"
            "t = Table()\nt.add_column('a')\nt.add_column('b')\nt.add_row('y' * 150, 't_test limit, ' + 'z' * 150)\n"
            "out.print(t)")
    for columns in ("80", "250", "x"):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "COLUMNS": columns})
        lines = proc.stdout.splitlines()
        assert lines[0] == "note " + "x" * 400
        [row] = [line for line in lines if "yyy" in line]
        assert "t_test limit, " + "z" * 150 in row


def test_a_unit_a_measure_name_ends_in():
    from perfgate.report.series_data import scale_of, suffix_scale
    from perfgate.units import _BYTES, _TIME, suffix_unit

    assert suffix_unit("total-ns") == (_TIME, 1.0) and suffix_unit("total-ms") == (_TIME, 1e6)
    assert suffix_unit("total-us") == suffix_unit("total-µs") == (_TIME, 1e3)
    assert suffix_unit("rss-KiB") == (_BYTES, 1024.0)
    assert suffix_unit("total") is suffix_unit("latency") is suffix_unit("-ns") is suffix_unit("x-furlongs") is None
    assert suffix_scale("total-ms") == {"scale": "time", "factor": 1e6} and suffix_scale("total") == {}
    # a benchmark page's series: the unit human reads, and k/M/G for none (a sweep's writes it plain)
    assert scale_of("total-ns") == scale_of("latency") == {"scale": "time", "factor": 1.0}
    assert scale_of("total-ms") == suffix_scale("total-ms") and scale_of("rss-KiB") == {"scale": "bytes", "factor": 1024.0}
    assert scale_of("total") == scale_of("instructions") == {"scale": "count", "factor": 1.0}
    assert scale_of("throughput") == {"scale": "rate", "factor": 1.0, "per": "ops/s"}


def test_a_time_unit_after_a_count_or_per_names_a_rate_not_a_duration():
    """``items-s`` is items a second; it was read as seconds ("1234 s") as ``total-s`` is."""
    from perfgate.report.series_data import scale_of, suffix_scale
    from perfgate.units import human, quantity, rate_unit, suffix_unit, unit_of

    rates = {"items-s": "items/s", "throughput-items-s": "items/s", "ops-s": "ops/s", "bytes-per-s": "bytes/s",
             "requests-per-ms": "requests/ms", "items-per-us": "items/µs", "throughput-s": "ops/s",
             "throughput": "ops/s", "bytes-s": "bytes/s"}
    for measure, per in rates.items():
        assert rate_unit(measure) == per and unit_of(measure) is suffix_unit(measure) is None, measure
        assert human(1234.5, measure) == f"1.23k {per}" and quantity(1234.5, measure) == "1,234"
        assert scale_of(measure) == {"scale": "rate", "factor": 1.0, "per": per} and suffix_scale(measure) == {}
    # every other name keeps its reading: a unit after a word that counts nothing done is the value's
    for measure, text in {"total-s": "1234 s", "total-ns": "1.23 µs", "total-us": "1.23 ms", "latency": "1.23 µs",
                          "rss-KiB": "1.21 MiB", "instructions": "1.23k", "items": "1.23k", "per": "1.23k",
                          "bytes_per_second": "1.23k", "bytes-per-second": "1.23k"}.items():
        assert rate_unit(measure) is None and human(1234.5, measure) == text, measure


def test_an_alerts_evidence_is_written_one_way_everywhere():
    from perfgate.units import evidence_text, streak_mean

    threshold = {"streak_change": 0.1934}
    # every interval names its level; one not known says "CI" alone, never a guessed number
    assert evidence_text(0.1788, 0.2081) == "CI [+17.88%, +20.81%]"
    assert evidence_text(0.1788, 0.2081, streak_mean("threshold", threshold)) == \
        "streak mean +19.34%, CI [+17.88%, +20.81%]"
    assert evidence_text(0.1788, 0.2081, 0.1934, level=0.95) == "streak mean +19.34%, 95% CI [+17.88%, +20.81%]"
    assert evidence_text(0.096, 0.144, level=0.95) == "95% CI [+9.60%, +14.40%]"
    assert evidence_text(0.096, 0.144, level=0.99) == "99% CI [+9.60%, +14.40%]"
    assert evidence_text(0.096, 0.144, level=0.999) == "99.9% CI [+9.60%, +14.40%]"
    assert evidence_text(None, 0.2) == evidence_text(0.1, None, 0.15) == ""
    # a change point's details name no streak; an old or damaged threshold alert's may not either
    assert streak_mean("change_point", threshold) is None
    assert streak_mean("threshold", {}) is streak_mean("threshold", None) is None
    assert all(streak_mean("threshold", {"streak_change": x}) is None for x in (float("nan"), "x", True))


@pytest.mark.parametrize("value, measure, text", [
    (120_000, "total-ns", "120 µs"),             # was "120k": nanoseconds read as a count
    (1.5, "total-ms", "1.50 ms"),
    (2.5e6, "total-us", "2.50 s"),
    (3, "rss-KiB", "3.00 KiB"),
    (0.398, "total-ns", "0.398 ns"),             # a cost per object²: was "0.40 ns"
    (0.0974, "total-ns", "0.0974 ns"),           # was "0.10 ns"
    (0.00291, "", "0.00291"),                    # was "0.00"
    (120_000, "total", "120k"),                  # no unit: a count, as before
    (1.5e12, "latency", "1500 s"),               # no separator: as the pages' charts write it
])
def test_human_reads_the_unit_a_measure_name_ends_in(value, measure, text):
    assert human(value, measure) == text


def test_a_value_without_a_unit_is_a_plain_readable_number():
    from perfgate.units import number, quantity

    assert number(1_003_842.4) == "1,003,842" and number(-1445.3) == "-1,445" and number(16.42) == "16.4"
    assert number(0.09743) == "0.0974" and number(32.0) == "32" and number(9.997) == "10.0"
    assert number(2.9e-6) == "2.90e-06" and number(3e16) == "3.00e+16" and number(None) == "—"
    # a value of a measure: in its unit where it has one, else the plain number (k/M/G reads as a count)
    assert quantity(120_000, "total-ns") == "120 µs" and quantity(120_000, "total") == "120,000"


@pytest.mark.parametrize("args, text", [
    ((26.92, 26.64, 27.2, "total-ns"), "26.92 ns [26.64, 27.20]"),
    ((1.1258e6, 9.397e5, 1.312e6, "total-ns"), "1.126 ms [0.940, 1.312]"),   # was "1.126e+06 [9.397e+05, 1.312e+06]"
    ((-1484.0, -1726.0, -1242.0, "total-ns"), "-1.484 µs [-1.726, -1.242]"),
    ((1.5, 1.4, 1.6, "total-ms"), "1.500 ms [1.400, 1.600]"),
    ((1_125_794.0, 939_701.0, 1_311_886.0, ""), "1,125,794 [939,701, 1,311,886]"),
    ((0.4176, 0.3535, 0.4818, ""), "0.4176 [0.3535, 0.4818]"),
    ((1e90, 0.9e90, 1.1e90, "total-ns"), "1.000e+90 ns [9.000e+89, 1.100e+90]"),
])
def test_an_interval_is_in_its_values_unit(args, text):
    from perfgate.units import interval

    assert interval(*args) == text


def test_a_change_with_its_interval_gives_each_number_its_sign():
    # check's sweep total read "+942 ns [-4.00 ns, +1.89 µs]": three numbers in two units
    from perfgate.units import interval

    assert interval(942.5, -4.0, 1889.0, "schedule-ns", 3, sign=True) == "+942 ns [-4, +1,889]"
    assert interval(-0.5, -1.25, 0.25, "", 3, sign=True) == "-0.500 [-1.250, +0.250]"


def test_an_alerts_interval_level_is_the_one_recorded_with_it():
    from perfgate.units import alert_evidence, ci_level

    # a change point's is its settings' confidence, recorded by detect; a threshold streak's 95%
    assert ci_level("change_point", {"ci_level": 0.99}) == 0.99
    assert ci_level("change_point", {"ci_level": 0.95}) == 0.95
    assert ci_level("threshold", {"ci_level": 0.95}) == 0.95
    # recorded before levels were kept: a streak's interval was only ever 95%; a change point's
    # level was that day's thresholds', not known now
    assert ci_level("threshold", {}) == ci_level("threshold", None) == 0.95
    assert ci_level("change_point", {}) is ci_level("change_point", None) is None
    assert all(ci_level("change_point", {"ci_level": x}) is None for x in (True, "0.99", 0, 1, 99, float("nan")))
    assert alert_evidence("change_point", 0.096, 0.144, {"ci_level": 0.99}) == "99% CI [+9.60%, +14.40%]"
    assert alert_evidence("change_point", 0.096, 0.144, {}) == "CI [+9.60%, +14.40%]"
    assert alert_evidence("threshold", 0.1788, 0.2081, {"streak_change": 0.1934}) == \
        "streak mean +19.34%, 95% CI [+17.88%, +20.81%]"
    assert alert_evidence("change_point", None, 0.1, {"ci_level": 0.99}) == ""


def test_a_way_back_is_written_one_way_with_its_level():
    """``detect`` and ``alerts`` wrote a regression's way back each their own way."""
    from perfgate.units import went_back_text

    back = {"magnitude": -0.2254, "ci_low": -0.3146, "ci_high": -0.1246, "p_value": 0.0075, "confidence": 0.99}
    assert went_back_text(back) == "went back -22.54% 99% CI [-31.46%, -12.46%], p = 0.0075"
    # a level not recorded (or not a level) is no number: "CI" alone
    assert went_back_text(back | {"confidence": None}).startswith("went back -22.54% CI [-31.46%")
    assert went_back_text(back | {"confidence": True}) == went_back_text(back | {"confidence": None})


def test_a_sparkline_spans_at_least_a_tenth_of_its_level():
    """An adopter's instruction count grew by a comment line a commit (592,000,000 → 592,018,000,
    `history` printing +0.0% each time) and its sparkline read as a ramp from the lowest bar to the
    highest; the pages' sparkline spans at least 10% of its level, and the terminal's now too."""
    drift = sparkline([592_000_000 + 1_000 * i for i in range(19)])
    assert len(set(drift)) <= 2 and SPARKS[0] not in drift and SPARKS[-1] not in drift
    step = sparkline([100.0] * 10 + [115.0] * 10)      # a 15% step fills the height
    assert step == SPARKS[0] * 10 + SPARKS[-1] * 10
    assert sparkline([float(i) for i in range(1, 9)]) == SPARKS
    assert sparkline([1.6e308, 1.7e308, 1e-300])[-1] == SPARKS[0]
    assert sparkline([5.0, 5.0]) == SPARKS[3] * 2 and sparkline([]) == ""


def test_is_duration_names_times_only():
    from perfgate.units import is_duration

    assert all(is_duration(m) for m in ("latency", "total-ns", "total-ms", "total-s", "run-us"))
    assert not any(is_duration(m) for m in ("items-s", "bytes-per-s", "throughput", "instructions", "peak-rss",
                                            "allocated-bytes", "total-bytes"))
