"""The pull-request comment: regressions first with evidence, names escaped, the rest folded."""

from __future__ import annotations

import numpy as np

from perfgate.detect.compare import compare_samples
from perfgate.report.markdown import MARKER, comparison_markdown


def _samples(rng, center, n=30):
    return tuple(center * rng.lognormal(0, 0.02, n))


def test_comment_lists_the_regression_with_its_evidence_and_folds_the_rest():
    rng = np.random.default_rng(1)
    base = {("sort|fast <script>", "latency"): _samples(rng, 1000.0), ("steady", "latency"): _samples(rng, 500.0)}
    head = {("sort|fast <script>", "latency"): _samples(rng, 1200.0), ("steady", "latency"): _samples(rng, 500.0)}
    c = compare_samples(base, head)
    c.base, c.head = {"commit": "a" * 40, "branch": "main", "testbed": "tb"}, {"commit": "b" * 40, "branch": "pr", "testbed": "tb"}
    md = comparison_markdown(c)
    assert md.startswith(MARKER)
    assert "❌ **1 performance regression(s)**" in md
    flagged, folded = md.split("<details>")
    assert "sort\\|fast &lt;script&gt;" in flagged and "<script>" not in md
    assert "steady" in folded and "steady" not in flagged
    row = next(line for line in flagged.splitlines() if "sort" in line)
    effect = float(row.split("**")[1].rstrip("%"))
    assert 15 < effect < 25  # a 20% slowdown, reported as such


def test_comment_without_regressions_says_so():
    rng = np.random.default_rng(2)
    base = {("a", "latency"): _samples(rng, 1.0)}
    head = {("a", "latency"): _samples(rng, 1.0)}
    md = comparison_markdown(compare_samples(base, head))
    assert "✅ **No performance regression**" in md


def test_latency_and_throughput_of_one_benchmark_are_one_finding():
    from perfgate.detect.compare import compare_rounds
    from test_rounds import suite

    base, head = suite(np.random.default_rng(3), 6, benchmarks=3, target_effect=0.10, pair=0.01, within=0.03)
    c = compare_rounds(base, head)
    assert len(c.regressions) == 2                      # two verdicts …
    md = comparison_markdown(c)
    assert "❌ **1 performance regression(s)**" in md    # … one finding
    flagged = md.split("<details>")[0]
    [row] = [line for line in flagged.splitlines() if line.startswith("| 🔴")]
    assert "| latency (throughput -" in row
    assert "1 regression(s)" in c.render()
    assert "0.05/6" in md                                 # what it takes to flag, said in the comment


def test_comment_says_plainly_when_nothing_could_be_flagged():
    from perfgate.detect.compare import compare_rounds
    from test_rounds import suite

    base, head = suite(np.random.default_rng(4), 1, benchmarks=2)
    md = comparison_markdown(compare_rounds(base, head))
    assert "> **this check cannot flag any wall-time change" in md
