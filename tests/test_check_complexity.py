"""Complexity in the pull-request check: a scaling table fitted on both sides, its knee shown and
its expectations judged, so that a head turning a linear cost quadratic fails as "complexity
expectation broken", not only as hundreds of per-point rows.  On the queue's recorded runs
(``tests/fixtures/scaling-tsv``), through ``perfgate compare``, and in a real ``perfgate check``
of a scaling suite built and run in the pinned image."""

from __future__ import annotations

import json
import re
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

from perfgate.adapters import scaling_tsv
from perfgate.commands._common import failures
from perfgate.commands.check import scaling_points
from perfgate.complexity.compare import compare_complexity
from perfgate.complexity.expectations import parse_expectations
from perfgate.containers.runner import SuiteResult
from perfgate.detect.compare import Comparison
from perfgate.model import Metric
from perfgate.report.markdown import comparison_markdown
from test_containers_docker import base_image, make_tiny_root  # noqa: F401 - fixture re-used

FIXTURES = Path(__file__).parent / "fixtures" / "scaling-tsv"
LINEAR, QUADRATIC = FIXTURES / "async-deinit-quick-linear.tsv", FIXTURES / "async-deinit-quick-quadratic.tsv"
EXPECT = parse_expectations('[complexity."async-deinit/*"]\nobjects = "linear"\n', "complexity.toml")


def points(path: Path, name: str = "async-deinit/async_array"):
    metrics = scaling_tsv.parse(path.read_text(), str(path)).metrics
    for m in metrics:
        m.benchmark = f"{name}/{m.benchmark.split('/', 1)[1]}"
    return metrics


def test_a_head_turning_quadratic_breaks_the_expectation_its_base_keeps():
    linear, quadratic = points(LINEAR), points(QUADRATIC)
    rows = compare_complexity(linear, quadratic, EXPECT, [linear] * 3, [quadratic] * 3)
    assert [(r.table, r.measure, r.status) for r in rows] == [
        ("async-deinit/async_array", "schedule-ns", "broken"), ("async-deinit/async_array", "total-ns", "broken")]
    total = rows[1]
    assert total.base.knee is None and "no knee" in total.base.model
    # the model in the unit of total-ns (it read "27⋅o, no knee", nanoseconds as a bare count)
    assert re.fullmatch(r"2\d\.\d ns⋅o, no knee", total.base.model), total.base.model
    assert 2_500 < total.head.knee["location"] < 3_500 and total.head.knee["degree"] == 2
    assert total.broken[0].expectation == EXPECT[0] and "turns quadratic" in total.broken[0].reason
    assert total.verdict_text().startswith("BROKEN by head: the cost turns quadratic above objects ≈ ")
    # without rounds (two stored runs) nothing bears the violation out: said, not failed (an
    # audit's compare of same-commit runs failed 4 of 8 pairs on the pooled fit alone)
    alone = compare_complexity(linear, quadratic, EXPECT)
    assert {r.status for r in alone} == {"inconclusive"} and not any(r.broken for r in alone)
    assert "no rounds to bear it out" in alone[1].verdict_text()


def test_a_base_already_broken_does_not_fail_the_head_and_a_fix_is_said():
    both = compare_complexity(points(QUADRATIC), points(QUADRATIC), EXPECT)
    assert {r.status for r in both} == {"violated on both"} and not any(r.broken for r in both)
    assert both[1].knee_text() == f"knee {both[1].base.knee['location']:,.0f} → {both[1].head.knee['location']:,.0f} objects"
    # a fix is borne out as a break is: by the rounds (the share beyond linear fell in each)
    quadratic, linear = points(QUADRATIC), points(LINEAR)
    fixed = compare_complexity(quadratic, linear, EXPECT, [quadratic] * 3, [linear] * 3)
    assert {r.status for r in fixed} == {"fixed"} and not any(r.broken for r in fixed)
    assert "is not in head" in fixed[1].knee_text()
    # without rounds, or where the rounds do not show it, it is not called a fix: an A/A check whose
    # base sweep bent by noise read "fixed by head" on the pooled fit alone
    alone = compare_complexity(quadratic, linear, EXPECT)
    assert {r.status for r in alone} == {"inconclusive"} and "no rounds to bear a fix out" in alone[1].verdict_text()
    bent = compare_complexity(quadratic, linear, EXPECT, [quadratic, quadratic, linear], [linear] * 3)
    assert {r.status for r in bent} == {"inconclusive"} and not any(r.fixed or r.broken for r in bent)
    assert "not clearly a fall of more than the tolerance" in bent[1].verdict_text()
    kept = compare_complexity(points(LINEAR), points(LINEAR), EXPECT)
    assert {r.status for r in kept} == {"ok"} and all(r.knee_text() == "" for r in kept)
    unmatched = compare_complexity(points(LINEAR, "other/async_array"), points(QUADRATIC, "other/async_array"), EXPECT)
    assert {r.status for r in unmatched} == {"fitted"} and not any(r.broken for r in unmatched)
    assert "in head only" in unmatched[1].knee_text()


def test_a_violation_counts_only_when_more_than_half_of_the_rounds_bear_it_out():
    """A burst of load bends one round's sweep, which the pooled fit can call quadratic; a change
    in the code bends every round."""
    linear, quadratic = points(LINEAR), points(QUADRATIC)
    one_round = compare_complexity(linear, quadratic, EXPECT, [linear] * 3, [linear, linear, quadratic])
    assert {r.status for r in one_round} == {"ok"} and not any(r.broken for r in one_round)
    assert one_round[1].head.unconfirmed() == [
        "linear in objects: violated in the rounds together, in 1 of 3 rounds alone (not counted)"]
    assert "in 1 of 3 rounds alone" in one_round[1].lines()[2]
    most = compare_complexity(linear, quadratic, EXPECT, [linear] * 4, [quadratic, quadratic, linear, quadratic])
    assert {r.status for r in most} == {"broken"} and most[1].head.unconfirmed() == []
    rise, p = most[1].paired(0)
    assert 0.7 < rise < 0.8 and p < 0.05      # three rounds of four rose by ~99%, one by none
    # two of three: a violation, but round by round no clear rise over the base (p ≈ 0.1)
    unsure = compare_complexity(linear, quadratic, EXPECT, [linear] * 3, [quadratic, linear, quadratic])
    assert {r.status for r in unsure} == {"inconclusive"} and not any(r.broken for r in unsure)
    assert "round by round its share beyond that order rose +66% over the base's" in unsure[1].verdict_text()
    # the base's violation is re-judged the same way: one round of three does not make it broken
    rows = compare_complexity(quadratic, quadratic, EXPECT, [linear, linear, quadratic], [quadratic] * 3)
    assert {r.status for r in rows} == {"inconclusive"}   # two rounds of three rose: not enough
    rows = compare_complexity(quadratic, quadratic, EXPECT, [linear, linear, quadratic, linear], [quadratic] * 4)
    assert {r.status for r in rows} == {"broken"}




def recorded_round(name: str):
    """One round of a real check of ``grow.py`` in the pinned image (``fixtures/scaling-suite``)."""
    return points(GROW.parent / f"rounds-{name}.tsv", "grow/grow")


def median_of(rounds):
    """Each point's median over the rounds, as a check's side stores it."""
    return [type(r[0])(r[0].benchmark, r[0].measure, float(np.median([m.value for m in r])), attrs=r[0].attrs)
            for r in zip(*rounds)]


def test_a_head_turning_quadratic_fails_even_where_load_bent_the_bases_sweeps():
    # In a pinned container here a quarter of a linear loop's rounds bend (8–57% of the cost
    # beyond linear): a base bent in two rounds of three read "violated" too, and a head turning
    # quadratic passed the check as "violated on both sides"
    expect = parse_expectations('[complexity."grow/*"]\nobjects = "linear"\n', "complexity.toml")
    base = [recorded_round("linear-bent-1"), recorded_round("linear-bent-2"), recorded_round("linear-1")]
    head = [recorded_round(f"quadratic-{i}") for i in (1, 2, 3)]
    [row] = compare_complexity(median_of(base), median_of(head), expect, base, head)
    assert row.base.violated() and row.head.violated()      # borne out on both sides
    assert row.status == "broken" and row.broken[0].expectation == expect[0], row.verdict_text()
    assert "(the base's fit breaks it too, but round by round the head's share beyond that order rose +" in \
        row.verdict_text()
    assert failures(Comparison([], 0.05), [row]) == ["complexity expectation broken in 1 table measure(s)"]
    # the same bent base on both sides: no rise, so the check does not fail
    [aa] = compare_complexity(median_of(base), median_of(base), expect, base, base)
    assert aa.status == "violated on both" and not aa.broken and not aa.worsened
    # a base broken as badly as the head stays "violated on both": the pull request did not cause it
    [same] = compare_complexity(median_of(head), median_of(head), expect, head, head[::-1])
    assert same.status == "violated on both" and not same.broken and not same.worsened


def test_a_head_that_takes_a_quadratic_cost_away_is_a_fix_even_where_load_bent_its_own_sweeps():
    # the mirror: the base turns quadratic, the head is the linear loop whose rounds load bent in
    # two of three; its pooled fit still breaks "linear", and it read "violated on both sides"
    expect = parse_expectations('[complexity."grow/*"]\nobjects = "linear"\n', "complexity.toml")
    base = [recorded_round(f"quadratic-{i}") for i in (1, 2, 3)]
    head = [recorded_round("linear-bent-1"), recorded_round("linear-bent-2"), recorded_round("linear-1")]
    [row] = compare_complexity(median_of(base), median_of(head), expect, base, head)
    assert row.base.violated() and row.head.violated()
    assert row.status == "fixed" and not row.broken and not row.worsened, row.verdict_text()
    assert row.verdict_text().startswith("fixed by head (the base broke an expectation far more than the head "
                                         "does): the head's fit still breaks linear in objects, but round by round "
                                         "its share beyond that order fell 65% below the base's"), row.verdict_text()
    assert failures(Comparison([], 0.05), [row]) == []
    assert "✅ fixed by head" in comparison_markdown(Comparison([], 0.05), complexity=[row])

def halved(metrics):
    """The same costs at half the objects: the knee at half the size."""
    out = []
    for m in metrics:
        params = {**m.attrs["parameters"], "objects": m.attrs["parameters"]["objects"] / 2}
        name = m.benchmark.rsplit("/", 1)[0] + "/" + ",".join(f"{k}={v:g}" for k, v in params.items())
        out.append(type(m)(name, m.measure, m.value, attrs={"parameters": params}))
    return out


def test_a_knee_moved_when_the_rounds_own_knees_moved():
    quadratic, earlier = points(QUADRATIC), halved(points(QUADRATIC))
    rows = compare_complexity(quadratic, earlier, EXPECT, [quadratic] * 4, [earlier] * 4)
    total = rows[1]
    assert total.base.round_knees() == [total.base.knee["location"]] * 4
    assert total.knee_text().startswith(f"knee {total.base.knee['location']:,.0f} → {total.head.knee['location']:,.0f} "
                                        f"objects (moved: rounds' knees ")
    assert "p = 0.029" in total.knee_text()          # 4 rounds against 4, every one apart: 2/70
    three = compare_complexity(quadratic, earlier, EXPECT, [quadratic] * 3, [earlier] * 3)[1]
    assert "(not shown to move: " in three.knee_text() and "p = 0.1" in three.knee_text()   # 2/20
    assert "moved" not in compare_complexity(quadratic, earlier, EXPECT)[1].knee_text()   # no rounds: no claim


def test_an_expectation_the_base_broke_that_the_head_breaks_earlier_fails_the_check():
    # The seeds' quadratic queue: linear per object up to a knee, then quadratic.  A pull request
    # whose queues cost what queues twice their size cost at base (the knee halved) broke "linear"
    # no more than the base did, and was only said ("violated on both sides").
    quadratic, earlier = points(QUADRATIC), halved(points(QUADRATIC))
    rows = compare_complexity(quadratic, earlier, EXPECT, [quadratic] * 4, [earlier] * 4)
    assert [r.status for r in rows] == ["worsened", "worsened"] and all(r.worsened and not r.broken for r in rows)
    assert rows[1].verdict_text().startswith("WORSENED by head (already broken at base): linear in objects breaks "
                                             "earlier: knee ")
    assert failures(Comparison([], 0.05), rows) == ["complexity expectation broken earlier in 2 table measure(s)"]
    comment = comparison_markdown(Comparison([], 0.05), complexity=rows)
    assert "❌ **complexity expectation broken earlier in 2 table measure(s)**" in comment
    assert "❌ broken earlier by head" in comment
    # the knee moving later is the head's gain; a move the rounds cannot show (3 a side: p = 0.1)
    # or no rounds at all stays said, not failed
    later = compare_complexity(earlier, quadratic, EXPECT, [earlier] * 4, [quadratic] * 4)
    assert {r.status for r in later} == {"violated on both"} and failures(Comparison([], 0.05), later) == []
    assert "(moved: " in later[1].knee_text()
    three = compare_complexity(quadratic, earlier, EXPECT, [quadratic] * 3, [earlier] * 3)
    assert {r.status for r in three} == {"violated on both"}
    assert {r.status for r in compare_complexity(quadratic, earlier, EXPECT)} == {"violated on both"}


def test_the_knees_shape_is_the_one_most_rounds_show_not_the_pooled_fits():
    # Load that bent two rounds of three bends the pooled medians too: the pooled fit read a
    # quadratic head "steeper" once in 10 checks of the grow suite.  Told so here (the pooled
    # knees' shapes swapped), the head turning quadratic earlier is still "worsened".
    quadratic, earlier = points(QUADRATIC), halved(points(QUADRATIC))
    row = compare_complexity(quadratic, earlier, EXPECT, [quadratic] * 4, [earlier] * 4)[1]
    assert row.head.round_knee_degrees() == row.base.round_knee_degrees() == [2] * 4
    row.head.knee["degree"], row.base.knee["degree"] = 1, 2
    assert row.head.knee_degree() == row.base.knee_degree() == 2
    assert row.worsened and row.status == "worsened"
    # and the row says so beside the pooled model, in the terminal, the comment and the JSON
    assert row.head.notes() == ["the rounds' own knees turn quadratic in 4 of 4 (counted)"]
    assert "; the rounds' own knees turn quadratic in 4 of 4 (counted)" in row.lines()[2]
    assert "the rounds' own knees turn quadratic in 4 of 4" in comparison_markdown(Comparison([], 0.05), complexity=[row])
    assert row.as_dict()["head"]["knee_degree"] == 2 and row.base.notes() == []
    # where the rounds tie or found no knee, the pooled fit's shape stands
    no_rounds = compare_complexity(quadratic, earlier, EXPECT)[1]
    no_rounds.head.knee["degree"] = 1
    assert no_rounds.head.knee_degree() == 1 and no_rounds.base.knee_degree() == 2


def test_only_tables_both_sides_measured_are_compared_and_too_few_points_say_so():
    assert compare_complexity(points(LINEAR, "a/x"), points(QUADRATIC, "b/x"), EXPECT) == []
    few = [m for m in points(LINEAR) if m.benchmark.endswith(("objects=4762", "objects=616", "objects=4000"))][:4]
    rows = compare_complexity(few, points(QUADRATIC), EXPECT)
    assert rows and all("too few to fit" in r.base.error for r in rows)
    assert all(r.status != "broken" for r in rows)   # nothing the base keeps is known to be broken


def test_a_parametrized_pytest_benchmark_in_a_checked_suite_is_no_scaling_point():
    """A check names every metric with its suite first, so a parametrized pytest test whose
    parameters pytest-benchmark keeps as text looked like a point of the table ``suite/file.py::…``
    and the check of the async-overhead suite failed on ``float("sync")`` (internal error, exit 3)."""
    def side(scale: float) -> list[SuiteResult]:
        pytest_metrics = [Metric(f"bench_io.py::test_bare[{mode}]", "latency", 1e3 * scale, samples=(1e3 * scale,),
                                 attrs={"parameters": {"mode": mode}}) for mode in ("sync", "coroutine")]
        return [SuiteResult(pytest_metrics + points(LINEAR, "grow")[:6], {"suite": "async-overhead"})]

    base, head = scaling_points(side(1.0)), scaling_points(side(1.1))
    assert {m.benchmark.split("/")[1] for m in base} == {"grow"}      # the scaling points alone
    assert {r.table for r in compare_complexity(base, head, EXPECT)} == {"async-overhead/grow"}
    assert not Metric("x/y", "latency", 1.0, attrs={"parameters": {"n": True}}).is_scaling_point()
    assert Metric("x/n=3", "latency", 1.0, attrs={"parameters": {"n": 3}}).is_scaling_point()


def test_the_comment_leads_with_the_broken_expectation_and_folds_the_tables_that_kept_theirs():
    broken = compare_complexity(points(LINEAR), points(QUADRATIC), EXPECT, [points(LINEAR)] * 3,
                                [points(QUADRATIC)] * 3)
    kept = compare_complexity(points(LINEAR, "async-deinit/tree"), points(LINEAR, "async-deinit/tree"), EXPECT)
    text = comparison_markdown(Comparison([], 0.05), complexity=broken + kept)
    assert "❌ **complexity expectation broken in 2 table measure(s)**" in text
    shown, folded = text.split("<details>")
    assert "❌ broken by head: the cost turns quadratic" in shown and "`async-deinit/tree`" not in shown
    assert folded.count("✅ kept") == 2
    assert "✅ **No performance regression**" in comparison_markdown(Comparison([], 0.05), complexity=kept)


def test_compare_of_two_ingested_scaling_runs_says_what_their_fits_show_as_no_verdict(cli, tmp_path):
    # single runs: no point's row has samples to judge and no break stands out from rounds, so the
    # compare is no verdict (exit 4), not a pass (it exited 0 with a head 220x slower at the end)
    thresholds = tmp_path / "complexity.toml"
    thresholds.write_text('[complexity."async_array"]\nobjects = "linear"\n')
    cli("ingest", str(LINEAR), "--branch", "main", "--commit", "a" * 40, check=True)
    cli("ingest", str(QUADRATIC), "--branch", "pr", "--commit", "b" * 40, check=True)
    comment = tmp_path / "comment.md"
    proc = cli("compare", "--base-branch", "main", "--head-branch", "pr", "--thresholds", str(thresholds),
               "--markdown", str(comment))
    assert proc.returncode == 4, proc.stderr
    assert "async_array total-ns: inconclusive: the head's fit breaks linear in objects" in proc.stdout
    assert "⚠️ inconclusive" in comment.read_text()
    report = json.loads(cli("compare", "--base-branch", "main", "--head-branch", "pr", "--thresholds",
                            str(thresholds), "--json").stdout)
    assert report["exit_code"] == 4 and [r["status"] for r in report["complexity"]] == ["inconclusive"] * 2
    back = cli("compare", "--base-branch", "pr", "--head-branch", "main", "--thresholds", str(thresholds), "--json")
    # (stored runs have no rounds: a fix is not borne out, as the break above was not)
    assert [r["status"] for r in json.loads(back.stdout)["complexity"]] == ["inconclusive", "inconclusive"]


def test_an_expectation_is_judged_on_its_own_parameter_and_one_the_data_lacks_is_not_checked():
    # an audit: "opcount = linear" was judged on objects (the same first letter), and failed
    expect = parse_expectations('[complexity."async-deinit/*"]\nopcount = "linear"\n', "complexity.toml")
    rows = compare_complexity(points(LINEAR), points(QUADRATIC), expect, [points(LINEAR)] * 3,
                              [points(QUADRATIC)] * 3)
    assert {r.status for r in rows} == {"not checked"} and not any(r.broken for r in rows)
    assert rows[1].verdict_text().startswith("not checked: the data has no parameter 'opcount'; a knee at ")
    assert "⚠️ not checked" in comparison_markdown(Comparison([], 0.05), complexity=rows).split("<details>")[0]
    # beside an expectation the data can judge, the typo is still in sight (it read "✅ kept")
    both = parse_expectations('[complexity."async-deinit/*"]\nopcount = "linear"\nvalues = "linear"\n', "c.toml")
    rows = compare_complexity(points(LINEAR), points(LINEAR), both, [points(LINEAR)] * 3, [points(LINEAR)] * 3)
    assert {r.status for r in rows} == {"ok"} and all(r.notable() for r in rows)
    assert rows[1].verdict_text() == "expectations kept on both sides: not checked: the data has no parameter 'opcount'"
    shown = comparison_markdown(Comparison([], 0.05), complexity=rows)
    assert "<details>" not in shown and "not checked: the data has no parameter 'opcount'" in shown


# A scaling suite for the tiny repository: a Python sweep whose head can turn quadratic past 2,000
GROW = Path(__file__).parent / "fixtures" / "scaling-suite" / "grow.py"
ROUNDS = 5      # rounds of the check whose head turns quadratic; each side's shape is the majority of its rounds' fits


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                          check=True, capture_output=True, text=True).stdout.strip()


@pytest.mark.docker
@pytest.mark.slow
def test_check_of_a_scaling_suite_fails_a_head_that_turns_quadratic(tmp_path, cli, base_image):  # noqa: F811
    root = make_tiny_root(tmp_path / "repo", alloc_probe=False)
    subprocess.run(["rm", "-r", str(root / "benches" / "spin")], check=True)
    suite = root / "benches" / "grow"
    suite.mkdir(parents=True)
    (suite / "grow.py").write_text(GROW.read_text())
    (suite / "bench.toml").write_text(textwrap.dedent("""\
        name = "grow"
        image = "base"
        adapter = "scaling-tsv"
        output = "-"

        [profiles.quick]
        command = "python3 grow.py linear"
        """))
    (root / "thresholds").mkdir()
    (root / "thresholds" / "complexity.toml").write_text('[complexity."grow/*"]\nobjects = "linear"\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "linear")
    (suite / "bench.toml").write_text((suite / "bench.toml").read_text().replace("grow.py linear", "grow.py quadratic"))
    git(root, "commit", "-q", "-am", "quadratic past 2,000 objects")

    comment = tmp_path / "comment.md"
    # 5 rounds: under the full suite's load, 2 of a head's 3 rounds once read linear (degrees 1, 2, 1)
    proc = cli("check", "--root", str(root), "--base", "HEAD~1", "--head", "HEAD", "--rounds", str(ROUNDS), "--cpuset",
               "1", "--no-probes", "--json", "--markdown", str(comment))
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    [row] = report["complexity"]
    assert (row["table"], row["measure"], row["status"]) == ("grow/grow", "total-ns", "broken"), row
    # the head's cost turns quadratic near 2,000 objects; the base's loop can show a slope that
    # steps up (still linear).  Each shape is read from the rounds' own fits: on this machine a
    # round runs at 1× or ~1.7× speed, or switches part way, and where two rounds of three are
    # slow past some size the points' medians bend there too (the pooled fit read the head
    # "steeper" past 2,703 objects, or the base quadratic past 1,599, in 2 of 10 checks)
    assert 1_000 < row["head"]["knee"]["location"] < 3_500, row
    degrees = row["round_knee_degrees"]
    assert 2 * degrees["head"].count(2) > ROUNDS and 2 * degrees["base"].count(2) < ROUNDS, row
    assert all(1_000 < k < 3_500 for k, d in zip(row["round_knees"]["head"], degrees["head"]) if d == 2), row
    assert "complexity expectation broken in 1 table measure(s)" in comment.read_text()
    # the check's stored side keeps its points' parameters: fit --from-store can fit it, named as
    # the check names the table, and --check finds its expectation
    fit = cli("fit", "--from-store", f"grow/grow@{git(root, 'rev-parse', 'HEAD')[:12]}", "--knee", "objects",
              "--check", str(root / "thresholds" / "complexity.toml"))
    assert fit.returncode == 1 and "knee at objects ≈" in fit.stdout and "VIOLATED" in fit.stdout, fit.stderr
    # compare of the check's two sides judges the table on their rounds as the check did
    # (its sides' branches: HEAD~1's commit, and the branch HEAD is on)
    assert (report["base"]["branch"], report["head"]["branch"]) == (f"check/{git(root, 'rev-parse', 'HEAD~1')}",
                                                                    "check/main")
    compared = cli("compare", "--base-branch", report["base"]["branch"], "--head-branch", report["head"]["branch"],
                   "--thresholds", str(root / "thresholds"), "--json")
    [row] = json.loads(compared.stdout)["complexity"]
    assert compared.returncode == 1 and row["status"] == "broken", row
    assert row["head"]["verdicts"][0]["rounds_fitted"] == ROUNDS, row

    same = cli("check", "--root", str(root), "--base", "HEAD~1", "--head", "HEAD~1", "--rounds", "3", "--cpuset", "1",
               "--no-probes", "--json")
    [row] = json.loads(same.stdout)["complexity"]
    # A/A: the check passes and breaks nothing.  What it says of a side is the machine's: beside
    # the other tests' containers (pytest -n 2) one side's three wall-time sweeps bent past the
    # tolerance in every round (knees at ≈ 3,178 and ≈ 6,102 objects in two runs), so that this A/A
    # read "fixed" even with the rounds' paired test, and "ok" when run alone (README, Known
    # limits; bench/complexity_check_rounds.py measures the A/A rates under load)
    # (the whole report on failure: once in a full suite run it exited 1 with this row "ok")
    assert same.returncode == 0 and not row["broken"] and row["status"] not in ("broken", "worsened"), same.stdout
    if row["status"] == "ok":      # no side's rounds mostly turn quadratic (the pooled knee's shape: above)
        assert all(2 * d.count(2) < 3 for d in row["round_knee_degrees"].values()), row


def test_a_broken_complexity_file_on_the_base_is_named_as_the_base_commits_before_any_run(tmp_path, cli):
    # an audit: the error named a temporary folder already gone, and no way round it
    root = tmp_path / "repo"
    (root / "thresholds").mkdir(parents=True)
    (root / "thresholds" / "complexity.toml").write_text('[complexity."x/*"]\nobjects = "linaer"\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "a typo")
    proc = cli("check", "--root", str(root), "--base", "HEAD", "--head", "HEAD", "--rounds", "3")
    assert proc.returncode == 2
    sha = git(root, "rev-parse", "HEAD")[:12]
    assert f"thresholds/complexity.toml of the base commit {sha}:complexity.\"x/*\".objects: 'linaer' is not one of" \
        in proc.stderr, proc.stderr
    assert "--head-thresholds" in proc.stderr and "perfgate-thresholds-" not in proc.stderr


def test_a_pattern_matching_no_table_is_named():
    from perfgate.complexity.compare import unmatched_note

    typo = parse_expectations('[complexity."async-denit/*"]\nobjects = "linear"\n', "complexity.toml")
    rows = compare_complexity(points(LINEAR), points(LINEAR), typo)
    assert {r.status for r in rows} == {"fitted"}
    assert unmatched_note(typo, rows) == ("complexity: pattern(s) 'async-denit/*' match none of the 1 scaling "
                                          "table(s) compared (async-deinit/async_array); an expectation there "
                                          "checks nothing")
    assert unmatched_note(EXPECT, compare_complexity(points(LINEAR), points(LINEAR), EXPECT)) == ""


def test_a_column_of_noise_about_zero_is_not_judged():
    """A Δ column with no cost in it (a linear queue's scheduling Δ in the demo, fitted as
    2.9e-06⋅v⋅o², R² 0.03): its terms' shares of a cost that is not there read "violated" in most
    rounds.  When a constant fits about as well as any cost model, the column is not checked."""
    rng = np.random.default_rng(3)

    def noise(metrics):
        return [type(m)(m.benchmark, m.measure, float(rng.normal(0, 1000)), attrs=m.attrs) for m in metrics]

    flat = [noise(points(LINEAR)) for _ in range(4)]
    rows = compare_complexity(flat[0], flat[1], EXPECT, flat[2:], flat[2:])
    assert {r.status for r in rows} == {"not checked"} and not any(r.broken for r in rows)
    assert "a constant fits this column about as well as any cost model" in rows[1].verdict_text()


def _scaled(metrics, factor: float, rng=None, noise: float = 0.0):
    """The points with every value times ``factor`` (and a round's own factor of noise)."""
    jitter = float(np.exp(noise * rng.standard_normal())) if rng is not None else 1.0
    return [type(m)(m.benchmark, m.measure, m.value * factor * jitter * (1 + 0.01 * (rng.standard_normal() if rng else 0)),
                    attrs=m.attrs) for m in metrics]


def test_a_steeper_cost_of_the_same_shape_is_said_as_the_sweep_totals_change():
    """A seeds' audit planted one more allocation per job: base `3.34⋅o`, head `4.02⋅o + 108`, every
    expectation kept, 593 of 602 point rows inconclusive, and nothing said of the +20%.  Each row
    now gives the change of the sweep's total over the rounds, with its interval and p."""
    rng = np.random.default_rng(5)
    linear = points(LINEAR)
    base = [_scaled(linear, 1.0, rng, 0.03) for _ in range(4)]
    head = [_scaled(linear, 1.2, rng, 0.03) for _ in range(4)]
    rows = compare_complexity(linear, _scaled(linear, 1.2), EXPECT, base, head)
    assert rows and all(r.status != "broken" for r in rows)
    for r in rows:
        assert r.sweep is not None and r.sweep.rounds == 4 and r.sweep.points == len(base[0]) // len(rows)
        assert r.sweep.low < 0.2 < r.sweep.high and r.sweep.p_value < 0.05 and r.notable()
        assert r.lines()[-1].startswith(f"  sweep total over {r.sweep.points} points +")
        assert r.as_dict()["sweep"]["effect"] == r.sweep.effect
    same = compare_complexity(linear, linear, EXPECT, base, [_scaled(linear, 1.0, rng, 0.03) for _ in range(4)])
    assert all(r.sweep.p_value > 0.05 and r.sweep.low < 0 < r.sweep.high for r in same)
    assert all(r.sweep is None for r in compare_complexity(linear, linear, EXPECT))   # no rounds: no claim
    md = comparison_markdown(Comparison([], 0.05, base={"commit": "a" * 40}, head={"commit": "b" * 40}), complexity=rows)
    assert "sweep total over" in md


def test_a_delta_columns_sweep_total_about_zero_is_said_in_its_units():
    """A Δ column's totals can sit near zero, where a relative change read −115% [−587%, +357%] in
    an audit's simulation: where a total is at or below zero the change is said in the column's units."""
    from perfgate.complexity.compare import sweep_change
    from perfgate.model import Metric

    rng = np.random.default_rng(3)

    def sweep(shift):
        return [Metric(f"t/x={i}", "schedule-ns", float(shift + 40 * rng.standard_normal())) for i in range(50)]

    change = sweep_change([sweep(0) for _ in range(4)], [sweep(20) for _ in range(4)], "schedule-ns")
    assert not change.relative and change.low < 1000 < change.high          # +20 a point: +1,000 a sweep
    assert "%" not in change.text() and "on a base total of" in change.text() and "on differences" in change.text()
    # in the column's unit, the interval in the change's: "+942 ns [-4, +1,889] on a base total of
    # 166 ns", not "+942 [-4.00, +1.89k] on a base total of 166"
    assert re.match(r"sweep total over 50 points \+\d+ ns \[-\d+, \+1,\d{3}\] on a base total of \d+ ns, p = ",
                    change.text()), change.text()
    costs = sweep_change([[Metric("t/x=1", "total-ns", 100.0 + r)] for r in range(3)],
                         [[Metric("t/x=1", "total-ns", 120.0 + r)] for r in range(3)], "total-ns")
    assert costs.relative and costs.text().startswith("sweep total over 1 point +")
