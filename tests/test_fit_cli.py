"""``perfgate fit`` end to end: the real CLI on synthetic scaling data (see
tests/fixtures/scaling-tsv/README.md) and a real SQLite store.

Most tests call the CLI's ``main`` in-process (statsmodels takes seconds to import in each new
process); the exit-code and store tests run it as a real subprocess."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from perfgate.cli import main

SEEDS_LINE = re.compile(r"^(Scheduling|Execution|Total)\s*: .+, R² = -?\d\.\d{4}, Adjusted R² = -?\d\.\d{4}"
                        r" \(weighted, as fitted: -?\d\.\d{4}\)$", re.M)


@pytest.fixture
def scaling(fixtures):
    return fixtures / "scaling-tsv"


@pytest.fixture
def fit(capsys, store_path):
    """``perfgate fit ARGS`` in-process; returns (returncode, stdout, stderr)."""

    def run(*args: str):
        capsys.readouterr()
        code = main(["fit", "--store", f"sqlite:{store_path}", *map(str, args)])
        captured = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err)

    return run


def fit_json(fit, *args):
    proc = fit(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def coefs(phase):
    return {t["term"]: t for t in phase["fit"]["terms"]}


def test_seeds_style_output_with_intervals(fit, scaling):
    proc = fit(str(scaling / "synthetic-vo.tsv"), "-p", "vo,o")
    assert proc.returncode == 0, proc.stderr
    lines = SEEDS_LINE.findall(proc.stdout)
    assert lines == ["Scheduling", "Execution", "Total"]
    assert re.search(r"^Total\s*: 3\d\.\d ns⋅v⋅o \+ 4\d\d ns⋅o, R²", proc.stdout, re.M)   # total(ns): in its unit
    assert re.search(r"95% CI: v⋅o 3\d\.\d\d ns \[3\d\.\d\d, 3\d\.\d\d\]  o 4\d\d\.\d ns \[", proc.stdout)


def test_automatic_selection_recovers_the_true_terms_with_intervals(fit, scaling):
    doc = fit_json(fit, str(scaling / "synthetic-vo.tsv"), "-y", "T")
    [total] = doc["phases"]
    c = coefs(total)
    assert set(c) == {"vo", "o"} and total["selection"]["chosen"] == "vo,o"
    assert c["vo"]["ci_low"] <= 32 <= c["vo"]["ci_high"] and c["o"]["ci_low"] <= 486 <= c["o"]["ci_high"]


def test_phases_execution_is_total_minus_scheduling(fit, scaling):
    doc = fit_json(fit, str(scaling / "synthetic-vo.tsv"), "-p", "vo,o", "-y", "S,E,T", "--weights", "none",
                   "--no-robust")
    s, e, t = (coefs(p) for p in doc["phases"])
    # least squares is linear in y, so the execution fit is exactly total − scheduling
    assert e["vo"]["coef"] == pytest.approx(t["vo"]["coef"] - s["vo"]["coef"], rel=1e-9)
    assert [p["label"] for p in doc["phases"]] == ["Scheduling", "Execution", "Total"]


def test_inputs_file_layout_matches_rows_layout(fit, scaling):
    two = fit_json(fit, str(scaling / "synthetic-inputs.txt"), str(scaling / "synthetic-results-only.tsv"),
                   "-p", "vo,o", "-y", "T")
    one = fit_json(fit, str(scaling / "synthetic-vo.tsv"), "-p", "vo,o", "-y", "T")
    assert coefs(two["phases"][0]) == coefs(one["phases"][0])


def test_diff_isolates_the_extra_term(fit, scaling):
    doc = fit_json(fit, str(scaling / "synthetic-vo.tsv"), "--diff", str(scaling / "synthetic-o-baseline.tsv"),
                   "-y", "T", "-p", "vo,o")
    c = coefs(doc["phases"][0])
    assert c["vo"]["coef"] == pytest.approx(32, rel=0.1)
    assert c["o"]["ci_low"] <= 0 <= c["o"]["ci_high"]  # the per-object cost cancels out
    assert doc["phases"][0]["fit"]["weighting"] == "relative"
    # weighting by the two runs' noise (√(μ² + μ_base²)) gives tighter intervals than equal weights
    plain = coefs(fit_json(fit, str(scaling / "synthetic-vo.tsv"), "--diff", str(scaling / "synthetic-o-baseline.tsv"),
                           "-y", "T", "-p", "vo,o", "--weights", "none")["phases"][0])
    assert c["o"]["ci_high"] - c["o"]["ci_low"] < 0.8 * (plain["o"]["ci_high"] - plain["o"]["ci_low"])


def test_filters_restrict_the_points(fit, scaling):
    doc = fit_json(fit, str(scaling / "synthetic-vo.tsv"), "-p", "vo,o", "-y", "T", "--min-values", "150",
                   "--max-objects", "25000")
    full = fit_json(fit, str(scaling / "synthetic-vo.tsv"), "-p", "vo,o", "-y", "T")
    assert 0 < doc["points"] < full["points"] / 4


def test_knee_and_plot(fit, scaling, tmp_path):
    svg, png = tmp_path / "fit.svg", tmp_path / "fit.png"
    doc = fit_json(fit, str(scaling / "synthetic-knee.tsv"), "-y", "T", "--knee", "--plot", str(svg))
    knee = doc["phases"][0]["knee"]
    assert knee["found"] and 1800 <= knee["location"] <= 2200 and knee["param"] == "objects"
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text and len(text) > 10_000
    proc = fit(str(scaling / "synthetic-vo.tsv"), "-y", "T", "--knee", "--plot", str(png))
    assert proc.returncode == 0 and "no knee in objects" in proc.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_check_exit_codes(cli, fit, scaling, tmp_path):
    rules = tmp_path / "complexity.toml"
    rules.write_text('[complexity."async-deinit/*"]\nobjects = "linear"\nup_to = { objects = 50000 }\n')
    bad = cli("fit", str(scaling / "synthetic-knee.tsv"), "-y", "T", "--check", str(rules),
              "--benchmark", "async-deinit/synthetic_knee")
    assert bad.returncode == 1, bad.stderr
    assert "VIOLATED: the cost turns quadratic above objects" in bad.stdout
    good = fit(str(scaling / "synthetic-vo.tsv"), "-y", "T", "--check", str(rules),
               "--benchmark", "async-deinit/synthetic_copy_array")
    assert good.returncode == 0 and "ok: consistent with linear in objects" in good.stdout


@pytest.mark.parametrize("args, message", [
    (["missing.tsv"], "missing.tsv: cannot read"),
    (["{f}", "-p", "vx"], "no parameter for x"),
    (["{f}", "-y", "Q"], "phase 'Q' is not in the data"),
    (["{f}", "--plot", "out.pdf"], "must end in .svg or .png"),
    (["{r}"], "give the inputs file first"),
])
def test_usage_errors_exit_2(fit, scaling, tmp_path, monkeypatch, args, message):
    f, r = str(scaling / "synthetic-vo.tsv"), str(scaling / "synthetic-results-only.tsv")
    monkeypatch.chdir(tmp_path)
    proc = fit(*[a.format(f=f, r=r) for a in args])
    assert proc.returncode == 2 and message in proc.stderr
    assert [p.name for p in tmp_path.iterdir()] == []  # nothing half-written, no store created


def test_bad_tsv_names_file_and_line(fit, tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("# x\n#\n# values objects total(ns)\n1\t100\t5\n2\t200\n")
    proc = fit(str(bad))
    assert proc.returncode == 2 and f"{bad}:line 5: 2 fields, expected 3" in proc.stderr


def test_values_a_cost_model_cannot_square_are_refused_by_file_and_line(fit, scaling, tmp_path):
    """Costs near the largest float overflowed the fit's squares and 1/cost² weights: the fit
    ended in a traceback (exit 1, the exit code of a violated expectation).  Within 1e-100..1e100
    the same data fits, its coefficients scaled and written in scientific notation."""
    lines = (scaling / "async-deinit-quick-linear.tsv").read_text().splitlines()

    def scaled(factor: float) -> str:
        return "\n".join(line if line.startswith("#") or not line.strip() else "\t".join(
            cells[:2] + [repr(float(v) * factor) for v in cells[2:]]) for line, cells in
            ((line, line.split("\t")) for line in lines)) + "\n"

    huge = tmp_path / "huge.tsv"
    huge.write_text(scaled(1e300))
    proc = fit(huge, "-y", "S")
    assert proc.returncode == 2 and f"{huge}:line 4: schedule = 5.9596e+304 is beyond" in proc.stderr
    big = tmp_path / "big.tsv"
    big.write_text(scaled(1e90))
    proc = fit(big, "-y", "S")
    assert proc.returncode == 0 and re.search(r"^Scheduling: \S+e\+90 ns⋅o,", proc.stdout, re.M), proc.stdout


def test_record_then_history_and_fit_from_store(cli, fit, scaling):
    rec = fit(str(scaling / "synthetic-knee.tsv"), "-y", "T", "--knee", "--record",
              "--branch", "main", "--commit", "c0ffee")
    assert rec.returncode == 0, rec.stderr
    again = fit(str(scaling / "synthetic-knee.tsv"), "-y", "T", "--knee", "--record",
                "--branch", "main", "--commit", "c0ffee", "--json")
    assert json.loads(again.stdout)["recorded"]["added"] is False  # a retry is a no-op
    hist = json.loads(cli("history", "--json", check=True).stdout)
    series = {(h["benchmark"], h["measure"]): h["points"] for h in hist}
    knee = series[("synthetic_knee/total", "complexity:knee-objects")][0]
    assert 1800 <= knee["value"] <= 2200 and knee["lower"] < knee["value"] < knee["upper"]
    assert ("synthetic_knee/total", "complexity:o2") in series
    # the scaling run itself, ingested, can be fitted from the store
    cli("ingest", str(scaling / "synthetic-vo.tsv"), "--branch", "main", "--commit", "c0ffee", check=True)
    doc = fit_json(fit, "--from-store", "synthetic_copy_array@c0ffee", "-y", "T", "-p", "vo,o")
    from_file = fit_json(fit, str(scaling / "synthetic-vo.tsv"), "-y", "T", "-p", "vo,o")
    assert doc["points"] == 200
    assert coefs(doc["phases"][0])["vo"]["coef"] == pytest.approx(coefs(from_file["phases"][0])["vo"]["coef"])


def test_auto_chooses_among_the_given_terms(fit, scaling):
    doc = fit_json(fit, str(scaling / "synthetic-vo.tsv"), "-y", "T", "-p", "vo2,vo,o,1", "--auto")
    phase = doc["phases"][0]
    assert phase["selection"]["chosen"] == "vo,o" and len(phase["selection"]["ranking"]) == 5
    assert 0.9 < phase["fit"]["r2_weighted"] <= 1
    given = fit_json(fit, str(scaling / "synthetic-vo.tsv"), "-y", "T", "-p", "vo2,vo,o,1")
    assert given["phases"][0]["selection"] is None and len(given["phases"][0]["fit"]["terms"]) == 4


def test_check_on_real_quick_async_deinit_runs_stays_inside_the_data(cli, scaling):
    """Measured quick-profile runs (objects up to 7,982; thresholds/complexity.toml asks up to 50,000):
    the quadratic queue is violated with its knee (built in at 2,048 queued jobs), the linear one is not,
    and neither verdict is extrapolated to 50,000."""
    from conftest import ROOT

    rules = str(ROOT / "thresholds" / "complexity.toml")
    quad = cli("fit", str(scaling / "async-deinit-quick-quadratic.tsv"), "-y", "T", "--knee", "objects", "--check", rules,
               "--benchmark", "async-deinit/quadratic-queue/async_array")
    assert quad.returncode == 1, quad.stderr
    [violated] = [line for line in quad.stdout.splitlines() if "VIOLATED" in line]
    knee = float(violated.split("above objects ≈ ")[1].split(" ")[0].replace(",", ""))
    assert 2048 <= knee <= 4000 and "at 7,982" in violated and "untested beyond objects = 7,982" in violated
    assert "extrapolation, not judged" in quad.stdout
    linear = cli("fit", str(scaling / "async-deinit-quick-linear.tsv"), "-y", "T", "--knee", "objects", "--check", rules,
                 "--benchmark", "async-deinit/async_array")
    assert linear.returncode == 0, linear.stdout + linear.stderr
    assert "VIOLATED" not in linear.stdout
    assert "ok: consistent with linear in objects up to 7,982 (expected up to 50,000; untested beyond" in linear.stdout


def test_a_model_below_zero_where_costs_were_measured_is_flagged(fit, scaling):
    """A quick (noisy) async-deinit run: the selected quadratic predicts negative costs for 43 of
    its 300 measured object counts (R² 0.25) and was shown without a word; a clean linear table
    raises nothing."""
    proc = fit(str(scaling / "async-deinit-quick-quadratic.tsv"))
    assert proc.returncode == 0, proc.stderr
    assert "warning: this model is below zero at 43 of 300 measured points" in proc.stdout
    [total] = [p for p in fit_json(fit, str(scaling / "async-deinit-quick-quadratic.tsv"), "-y", "T")["phases"]]
    assert total["fit"]["below_zero"] == 43
    assert "below zero" not in fit(str(scaling / "synthetic-vo.tsv")).stdout


def test_a_knee_model_that_wins_by_bic_is_the_headline(fit, scaling):
    """The quick quadratic-queue table's first line was a polynomial of R² 0.25, below zero at 43
    points, and the knee model that beats it by ΔBIC 140 came last: the knee model now leads,
    with its own R², and the polynomial follows as what fits without a knee."""
    proc = fit(str(scaling / "async-deinit-quick-quadratic.tsv"), "-y", "T", "--knee", "objects")
    first, second = proc.stdout.splitlines()[:2]
    assert first.startswith("Total: knee model ") and "knee at objects ≈ 3,007" in first
    r2 = float(first.rsplit("R² = ", 1)[1])
    assert 0.25 < r2 <= 1.0                             # better than the polynomial's 0.2525
    assert second.strip().startswith("without a knee: 0.418 ns⋅o² - 1.48 µs⋅o + 1.13 ms, R² = 0.2525")
    assert "(ΔBIC 140.1 worse)" in second
    doc = fit_json(fit, str(scaling / "async-deinit-quick-quadratic.tsv"), "-y", "T", "--knee", "objects")
    assert doc["phases"][0]["knee"]["r2"] == pytest.approx(r2, abs=1e-4)
    plain = fit(str(scaling / "async-deinit-quick-linear.tsv"), "-y", "T", "--knee", "objects").stdout.splitlines()
    assert plain[0].startswith("Total: 26.9 ns⋅o, R² =") and any("no knee in objects" in line for line in plain)


def test_a_suites_stored_run_is_checked_against_its_suites_expectation(fit, scaling, store_path):
    # An audit: runs recorded by `perfgate run` name their benchmarks without the suite, so
    # "async-deinit/*" matched nothing and `fit --from-store … --check` exited 0 on a known knee.
    from conftest import ROOT

    from perfgate.adapters import parse_file
    from perfgate.model import Run, Testbed
    from perfgate.store.sqlite import SqliteStore

    _, parsed = parse_file(str(scaling / "async-deinit-quick-quadratic.tsv"), "scaling-tsv")
    with SqliteStore(store_path) as store:
        store.add_run(Run("default", "main", "c0ffee", Testbed("tb"), parsed.metrics, context={"suite": "async-deinit"}))
    check = ("-y", "T", "--knee", "objects", "--check", str(ROOT / "thresholds" / "complexity.toml"))
    for name in ("async_array", "async-deinit/async_array"):       # as recorded, or with its suite
        proc = fit("--from-store", name, *check)
        assert proc.returncode == 1 and "VIOLATED" in proc.stdout, (name, proc.stdout, proc.stderr)
    # A check that matches no expectation checks nothing: an error, not a pass.
    proc = fit(str(scaling / "async-deinit-quick-quadratic.tsv"), *check, "--benchmark", "other/async_array")
    assert proc.returncode == 2 and "no complexity expectation matches benchmark 'other/async_array'" in proc.stderr
    assert "async-deinit/*" in proc.stderr


def test_costs_read_in_the_tables_unit_and_plain_numbers_without_one(fit, scaling, tmp_path):
    """A new user's audit: a total(ns) table's fit read "0.418⋅o² - 1484⋅o + 1125794" and its
    intervals "1 1.126e+06 [9.397e+05, 1.312e+06]", nanoseconds written as bare counts.  Now
    every coefficient, interval and knee model is in the table's unit (the intervals in their
    coefficient's), and a unit perfgate does not know leaves plain numbers, never 1.1e+06."""
    table = scaling / "async-deinit-quick-quadratic.tsv"
    lines = fit(table, "-y", "T", "--knee", "objects").stdout.splitlines()
    assert re.match(r"Total: knee model 45\.\d ns⋅o - 7\.00 µs \+ 1\.36 ns⋅\(o − 3,007\)₊²: knee at objects ≈ 3,007 "
                    r".*cost per unit of objects 45\.\d\d ns below it", lines[0])
    assert lines[2].split("95% CI: ")[1] == "o² 0.4176 ns [0.3535, 0.4818]  o -1.484 µs [-1.726, -1.242]  " \
                                            "1 1.126 ms [0.940, 1.312]"
    doc = fit_json(fit, table, "-y", "T", "--knee", "objects")["phases"][0]
    assert doc["summary"].startswith("0.418 ns⋅o² - 1.48 µs⋅o + 1.13 ms, R²") and doc["fit"]["formula"] in doc["summary"]
    assert doc["knee"]["formula"].startswith("45.") and doc["fit"]["terms"][2]["coef"] > 1e6   # the numbers stay in ns
    cycles = tmp_path / "cycles.tsv"
    cycles.write_text(table.read_text().replace("(ns)", "(cycles)"))
    out = fit(cycles, "-y", "T", "--knee", "objects").stdout
    assert "without a knee: 0.418⋅o² - 1,484⋅o + 1,125,794, R²" in out
    assert "1 1,125,794 [939,701, 1,311,886]" in out and "e+0" not in out and " ns" not in out


def _first_rows(scaling, tmp_path, count: int):
    """synthetic-vo.tsv cut to its header and first ``count`` rows (as `head` makes them)."""
    lines = (scaling / "synthetic-vo.tsv").read_text().splitlines(keepends=True)
    rows = [line for line in lines if line.strip() and not line.startswith("#")]
    few = tmp_path / f"vo{count}.tsv"
    few.write_text("".join([line for line in lines if line.startswith("#")] + rows[:count]))
    return few


@pytest.mark.parametrize("count", [3, 4, 5, 6])
def test_automatic_selection_on_few_points_fits_what_they_can_determine(fit, scaling, tmp_path, count):
    # it kept as many terms as points in the full model, whose fit then failed: "3 data points
    # cannot determine 3 coefficients", while -p vo,o --auto on the same file fitted
    # Fewer terms than half the points: with 5 terms on 6 points, 5 of them fitted exactly made
    # the robust scale, and every interval, zero wide.
    doc = fit_json(fit, _first_rows(scaling, tmp_path, count))
    assert doc["points"] == count and len(doc["phases"]) == 3
    for phase in doc["phases"]:
        terms = phase["fit"]["terms"]
        assert 1 <= 2 * len(terms) < count, phase["fit"]["model"]
        assert all(2 * len(c["model"].split(",")) < count for c in phase["selection"]["ranking"])
        assert all(t["ci_high"] - t["ci_low"] > 1e-6 * abs(t["coef"]) for t in terms), terms


def test_automatic_selection_on_two_points_says_to_give_the_terms():
    import numpy as np

    from perfgate.complexity.regression import FitError
    from perfgate.complexity.selection import select_terms
    from perfgate.complexity.terms import parse_terms

    with pytest.raises(FitError, match=r"^2 points are too few to choose a model automatically .*; give -p TERMS$"):
        select_terms(parse_terms("o,1"), {"o": np.array([1.0, 2.0])}, np.array([3.0, 5.0]))


@pytest.mark.parametrize("count", [1, 2])
def test_too_few_points_names_the_file_and_no_filter_that_was_not_given(fit, scaling, tmp_path, count):
    few = _first_rows(scaling, tmp_path, count)
    proc = fit(few)
    assert proc.returncode == 2
    said = f"{few}: only {count} data point{'s' if count > 1 else ''}; a fit needs at least 3"
    assert said in proc.stderr, proc.stderr
    assert "filter" not in proc.stderr


def test_too_few_points_after_filters_names_the_filters(fit, scaling):
    vo = scaling / "synthetic-vo.tsv"
    proc = fit(vo, "--min-values", "200", "--max-objects", "40000")     # 2 of the 3 rows at values 200
    assert proc.returncode == 2
    assert f"{vo}: only 2 data points of 200 left after --min-values 200 --max-objects 40000; " \
           "a fit needs at least 3" in proc.stderr, proc.stderr


def test_a_runner_up_without_more_terms_is_not_said_to_have_extra_ones(fit, scaling, tmp_path):
    # on 3 points, Execution chose v with o2 (one term as well) 0.9 better by the common weights:
    # "too little for its extra terms" of a model that has none
    few = _first_rows(scaling, tmp_path, 3)
    chosen = [p["selection"]["ranking"][0]["model"] for p in fit_json(fit, few)["phases"]]
    proc = fit(few)
    lines = [line for line in proc.stdout.splitlines() if "next best" in line]
    assert len(lines) == len(chosen) and any("better" in line for line in lines), proc.stdout
    for line, model in zip(lines, chosen):
        runner = re.search(r"next best (\S+):", line)[1]
        extra = len(runner.split(",")) > len(model.split(","))
        assert ("better, too little for its extra terms" in line) == ("better" in line and extra), line
