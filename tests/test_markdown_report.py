"""The pull-request comment: regressions first with evidence, names escaped, the rest folded."""

from __future__ import annotations

import numpy as np
from markdown_it import MarkdownIt

from perfgate.detect.compare import compare_samples
from perfgate.report.markdown import MARKER, MAX_CHARS, Links, comparison_markdown, marker


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
    # Rendered as GitHub would (raw HTML allowed, tables on): the name is literal text in one cell.
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(flagged)
    assert "<code>sort|fast &lt;script&gt;</code>" in rendered and "<script" not in rendered
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


def _many(n_regressed: int, n_steady: int, warnings=()):
    rng = np.random.default_rng(3)
    base, head = {}, {}
    for i in range(n_regressed + n_steady):
        name = f"bench/{i:04d}/" + "x" * 40
        base[(name, "latency")] = _samples(rng, 1000.0)
        head[(name, "latency")] = _samples(rng, 1300.0 if i < n_regressed else 1000.0)
    c = compare_samples(base, head)
    c.base = {"commit": "a" * 40, "branch": "main", "testbed": "tb"}
    c.head = {"commit": "b" * 40, "branch": "pr", "testbed": "tb"}
    c.warnings = list(warnings)
    return c


def test_a_warning_does_not_swallow_the_table():
    c = _many(1, 1, warnings=["base and head ran on different testbeds"])
    lines = comparison_markdown(c).splitlines()
    w = next(i for i, line in enumerate(lines) if line.startswith("> base and head ran on different testbeds"))
    end = next(i for i in range(w, len(lines)) if not lines[i].startswith(">"))
    assert lines[end] == ""                         # the blockquote ends before the table starts
    assert lines[end + 1].startswith("| benchmark |")
    assert "> thresholds \\(the smallest change flagged" in "\n".join(lines) and "latency 2.00%" in lines[end - 1]


def test_a_huge_comparison_is_capped_and_points_to_the_rest():
    c = _many(40, 560)
    md = comparison_markdown(c)
    assert len(md) < 65_536 and len(md) <= MAX_CHARS
    flagged = md.split("<details>")[0]
    assert sum(line.startswith("| 🔴") for line in flagged.splitlines()) == 40   # every regression is shown
    shown = sum(line.startswith("| ") and "bench/" in line for line in md.splitlines())
    assert f"**{600 - shown} comparison(s) not shown**" in md and shown < 600
    small = comparison_markdown(_many(1, 3))
    assert "not shown" not in small


def test_links_short_shas_and_a_marker_per_job():
    c = _many(1, 1)
    links = Links(repository_url="https://github.com/o/r", run_url="https://github.com/o/r/actions/runs/7",
                  pages_url="https://o.github.io/r/")
    md = comparison_markdown(c, key="check (tree-alloc)", links=links)
    assert md.startswith(marker("check (tree-alloc)")) and marker("check (tree-alloc)") != marker("check (other)")
    assert marker("check (tree-alloc)") == "<!-- perfgate-comment:check--tree-alloc- -->"
    assert f"[`bbbbbbb`](https://github.com/o/r/commit/{'b' * 40})" in md
    assert "b" * 10 not in md.replace(f"commit/{'b' * 40}", "")          # no raw long SHA in the text
    assert "[workflow run](https://github.com/o/r/actions/runs/7)" in md and "[trend pages](https://o.github.io/r/)" in md
    assert comparison_markdown(c).startswith(MARKER)                     # no key: the plain marker


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
    assert "| `latency` (throughput -" in row
    assert "1 regression(s)" in c.render()
    assert "0.05/6" in md                                 # what it takes to flag, said in the comment


def test_comment_says_plainly_when_nothing_could_be_flagged():
    from perfgate.detect.compare import compare_rounds
    from test_rounds import suite

    base, head = suite(np.random.default_rng(4), 1, benchmarks=2)
    md = comparison_markdown(compare_rounds(base, head))
    assert "> **this check cannot flag any wall\\-time change" in md


def test_a_sequential_check_states_the_rate_it_controls_not_one_looks_level():
    """A sequential check's comment said "false discovery rate controlled at 0.00217657": that is
    the level of its last look; the check as a whole controls the rate it was given."""
    c = _many(1, 2)
    fixed = comparison_markdown(c)
    assert "false discovery rate controlled at 0.05 (Benjamini–Hochberg), effects with 95% intervals" in fixed
    c.alpha, c.spent_over_looks = 0.00217657, 0.05
    md = comparison_markdown(c)
    assert ("false discovery rate controlled at 0.05 over the sequential looks (this look's level 0.0022) "
            "(Benjamini–Hochberg), effects with 99.78% intervals") in md
    assert "controlled at 0.00217657" not in md and "controlled at 0.05 over the sequential looks" in c.render()


def test_the_comment_counts_the_comparisons_the_terminal_counts():
    # A benchmark only one side has is a row, not a comparison: the terminal said "among 5" and
    # the comment "7 comparisons" for one check.
    rng = np.random.default_rng(3)
    base = {("kept", "latency"): _samples(rng, 1.0), ("gone", "latency"): _samples(rng, 1.0)}
    head = {("kept", "latency"): _samples(rng, 1.0), ("new", "latency"): _samples(rng, 1.0)}
    c = compare_samples(base, head)
    assert c.compared == 1 and len(c.verdicts) == 3
    md = comparison_markdown(c)
    assert ": 1 comparisons, 0 improvement(s)" in md and "among 1 comparison(s)" in c.render()
    assert "<summary>3 row(s)</summary>" in md       # no table above it: not "3 other row(s)"


def test_each_note_is_a_paragraph_and_a_failing_headline_counts_the_inconclusive_rows():
    # consecutive "> " lines render as one run-on paragraph in CommonMark (an audit's job summary)
    rng = np.random.default_rng(4)
    base = {("slow", "latency"): _samples(rng, 1.0), ("noisy", "latency"): tuple(rng.lognormal(0, 0.2, 5)),
            ("gone", "latency"): _samples(rng, 1.0)}
    head = {("slow", "latency"): _samples(rng, 1.3), ("noisy", "latency"): tuple(rng.lognormal(0, 0.2, 5))}
    c = compare_samples(base, head)
    assert c.regressions and c.inconclusive and c.notes
    md = comparison_markdown(c)
    assert "❌ **1 performance regression(s)**; 1 of 2 comparison(s) inconclusive" in md
    quote = md[md.index("\n> ") + 1:md.index("\n\n", md.index("\n> "))].split("\n")
    assert len(quote) >= 3 and all(line.startswith("> ") for line in quote[::2]) and set(quote[1::2]) == {">"}


def test_the_inconclusive_table_counts_a_tied_pair_once_as_the_headline_does():
    # the demo's comment said "4 of 16 comparison(s) inconclusive" above "Inconclusive (7)"
    from test_rounds import TH, suite

    from perfgate.detect.compare import compare_rounds

    c = compare_rounds(*suite(np.random.default_rng(5), 4, benchmarks=3, within=0.3), TH)
    n = len(c.inconclusive)
    assert n and sum(v.verdict == "inconclusive" for v in c.verdicts) > n      # tied pairs among them
    md = comparison_markdown(c)
    assert f"{n} of {c.compared} comparison(s) inconclusive" in md and f"**Inconclusive** ({n})" in md
    table = md[md.index("**Inconclusive**"):md.index("<details>")]
    assert table.count("| 🟡 ") == n and ("(throughput " in table or "(latency " in table)


def test_a_comparison_that_could_not_be_judged_takes_the_green_headline_away():
    # an audit: "2 base rounds but 1 head rounds: not judged" under "✅ No performance regression"
    from test_rounds import TH

    from perfgate.detect.compare import compare_rounds

    rng = np.random.default_rng(6)
    rounds = [list(1e6 * (1 + 0.001 * rng.standard_normal(10))) for _ in range(8)]
    c = compare_rounds({("ok", "latency"): rounds, ("cut", "latency"): rounds},
                       {("ok", "latency"): rounds, ("cut", "latency"): rounds[:7]}, TH)
    assert [v.benchmark for v in c.unjudged] == ["cut"] and not c.inconclusive
    md = comparison_markdown(c)
    assert "⚠️ **No performance regression found; 1 of 2 comparison(s) not judged**" in md and "✅" not in md
    assert c.counts()["not_judged"] == 1


def test_a_side_given_as_its_hash_is_not_named_twice():
    rng = np.random.default_rng(3)
    c = compare_samples({("a", "latency"): _samples(rng, 1.0)}, {("a", "latency"): _samples(rng, 1.0)})
    c.base = {"commit": "ddfc7ae" + "0" * 33, "branch": "ddfc7ae", "testbed": "tb"}
    c.head = {"commit": "95b9cda" + "1" * 33, "branch": "my-branch", "testbed": "tb"}
    md = comparison_markdown(c)
    assert "Head `95b9cda` (`my-branch`) against base `ddfc7ae` on testbed" in md, md


def test_an_error_comment_quotes_the_message_literally_and_redacted(monkeypatch, tmp_path):
    import argparse

    from perfgate import redact
    from perfgate.commands._common import write_error_markdown
    from perfgate.errors import PerfgateError

    token = "s3cr3t-" + "Zq8wLp2x" * 3
    monkeypatch.setattr(redact, "_KNOWN", set())
    redact.register(redact.Secret(token))
    message = f"head (pr) suite 'x': exited 1\n```\n</details> @someone <img src=x> ``` {token}\nlast line"
    path = tmp_path / "comment.md"
    write_error_markdown(argparse.Namespace(markdown=str(path)), PerfgateError(message), "head", "pr`x",
                         "/w/.perfgate/logs")
    md = path.read_text()
    assert token not in md and token[7:22] not in md and "``` ***" in md
    rendered = MarkdownIt("commonmark", {"html": True}).render(md)
    # the whole message is one code block: no HTML, mention or fence of it escapes
    [block] = [part.split("</code></pre>")[0] for part in rendered.split("<pre><code class=\"language-text\">")[1:]]
    assert "&lt;/details&gt; @someone &lt;img src=x&gt;" in block and block.endswith("last line\n")
    assert "<img" not in rendered.replace("&lt;img", "")
    assert "in the <strong>head</strong> (<code>pr`x</code>)" in rendered
    assert "<code>/w/.perfgate/logs</code>" in rendered



def test_a_comparison_of_benchmarks_each_on_one_side_only_does_not_say_no_regression():
    """A pull request renaming every benchmark: 0 comparisons, and the headline read
    "✅ No performance regression", which nothing was judged to show."""
    from perfgate.detect.compare import compare_rounds
    from perfgate.report.markdown import comparison_markdown

    c = compare_rounds({("old-name", "latency"): [[1.0, 1.1]] * 3}, {("new-name", "latency"): [[1.0, 1.1]] * 3})
    c.base, c.head = {"branch": "main", "commit": "a" * 40}, {"branch": "pr", "commit": "b" * 40}
    assert c.compared == 0 and c.exit_code == 0
    md = comparison_markdown(c)
    # a benchmark gone in head: no verdict (check and compare exit 4), said so in the headline, as
    # neutral as the check run (it was "⛔ … (exit 2)", which read as perfgate failing)
    assert "### perfgate: ⚪ **No verdict: nothing compared: no benchmark was measured on both sides \\(1 gone in " \
        "head, 1 new in head\\)** (neither a pass nor a regression; exit 4)\n" in md, md
    assert "⛔" not in md and "✅" not in md
    assert "No performance regression" not in md and "`old-name`" in md and "`new-name`" in md


def test_a_comparison_that_judged_nothing_says_why_in_its_headline():
    """A pass on nothing read as a pass on something: rows none of which could be judged were
    "⚠️ No performance regression found; 1 of 1 comparison(s) not judged" (and check exited 0);
    a head whose every benchmark is new (the first ones) passes, saying nothing was compared."""
    from perfgate.detect.compare import Comparison, compare_rounds
    from perfgate.report.markdown import comparison_markdown

    new = compare_rounds({}, {("first", "latency"): [[1.0, 1.1]] * 3})
    assert (new.nothing_judged().passes, new.nothing_judged().reason) == \
        (True, "nothing compared: all 1 benchmark(s) are new in head, its base has none to compare with")
    assert "### perfgate: ✅ **Nothing compared: all 1 benchmark\\(s\\) are new in head, its base has none to " \
        "compare with**\n" in comparison_markdown(new)
    one_round = compare_rounds({("a", "latency"): [[1.0, 1.1]]}, {("a", "latency"): [[1.0, 1.1]]})
    cut = compare_rounds({("a", "latency"): [[1.0, 1.1]] * 3}, {("a", "latency"): [[1.0, 1.1]] * 2})
    for c in (one_round, cut):
        assert c.compared == 1 and (c.nothing_judged().passes, c.nothing_judged().reason) == \
            (False, "nothing judged: none of the 1 comparison(s) could be judged (each row's note says why)")
        md = comparison_markdown(c)
        assert "### perfgate: ⚪ **No verdict: nothing judged: none of the 1 comparison\\(s\\) could be judged" in md, md
        assert "No performance regression" not in md
    # something judged beside a row not judged: no "nothing" to say
    some = compare_rounds({("a", "latency"): [[1.0, 1.1]] * 3, ("b", "latency"): [[1.0, 1.1]] * 3},
                          {("a", "latency"): [[1.0, 1.1]] * 3, ("b", "latency"): [[1.0, 1.1]] * 2})
    assert some.nothing_judged() is None and len(some.unjudged) == 1
    empty = Comparison([], 0.05)
    assert (empty.nothing_judged().passes, empty.nothing_judged().reason) == \
        (False, "nothing compared: neither side measured a benchmark")
    assert "⚪ **No verdict: nothing compared: neither side measured a benchmark**" in comparison_markdown(empty)
