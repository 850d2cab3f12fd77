"""The pure data model: measure directions, name checks, content keys."""

from __future__ import annotations

import pytest

from perfgate.model import Measure, Metric, Run, content_key, name_problem
from perfgate.model import Testbed as Bed


@pytest.mark.parametrize("name, lower_is_better", [
    ("latency", True), ("instructions", True), ("peak-rss", True), ("throughput", False),
    ("complexity:o", True),               # a per-object cost
    ("complexity:knee-objects", False),   # the size a cost stays linear up to: lower is worse
    ("MB/s", False), ("items_per_second", False), ("allocations", True), ("my-counter", True),
    # rates spelt "/sec" or "/second": github-action-benchmark's pytest tool writes "iter/sec"
    ("iter/sec", False), ("req/sec", False), ("MB/Sec", False), ("bytes/second", False),
    ("ns/iter", True), ("sec", True), ("ms/op", True), ("s/secret", True),
    # a name that says its direction (github-action-benchmark's custom tools) wins over the guess
    ("Megabytes (bigger is better)", False), ("req/s (smaller is better)", True),
])
def test_measure_direction(name, lower_is_better):
    assert Measure.named(name).lower_is_better is lower_is_better


@pytest.mark.parametrize("name", ["BM_Sort<std::vector<int>>", "sort 1e6", "a/b=1,c=2", "Δtotal(ns)",
                                  # an on…= that is not inside a tag: JMH @Param, Go sub-benchmark
                                  "org.x.Cache.get:onHeap=true", "BenchmarkDecode/one=1-8", "lookup(online = 3)"])
def test_legitimate_names_pass(name):
    assert name_problem(name) is None


@pytest.mark.parametrize("name, reason", [
    ("bad\x00name", "control character"), ("line\nbreak", "control character"), ("", "empty"),
    ("<script>alert(1)</script>", "HTML"), ("x<img src=y onerror=z>", "HTML"), ("a" * 2000, "longer"),
    (42, "must be a string"),
])
def test_bad_names_are_refused_with_a_reason(name, reason):
    assert reason in name_problem(name)


def test_content_key_depends_on_samples_and_identity():
    def run(samples=(1.0, 2.0), commit="abc"):
        return Run("p", "main", commit, Bed("tb"), [Metric("b", "latency", 1.5, samples=samples)])

    assert content_key(run()) == content_key(run())
    assert content_key(run()) != content_key(run(samples=(1.0, 2.0000001)))
    assert content_key(run()) != content_key(run(commit="abd"))
