"""perfgate's search is PELT with the L2 cost: its own C version, else ruptures' compiled linear-kernel
search loaded without the ruptures package, else the public class.  All give the same change points,
and detect imports none of what it never runs."""

from __future__ import annotations

import importlib.machinery
import subprocess
import sys

import numpy as np
import pytest
import ruptures
from sanitized_c import checked_count, needs_cc

from perfgate.detect import pelt


def _signals():
    rng = np.random.default_rng(16)
    for n in (10, 11, 37, 150, 600, 1000):
        for k in range(4):
            x = rng.standard_normal(n)
            for t in sorted(rng.choice(np.arange(1, n), size=min(k, n - 1), replace=False)):
                x[t:] += rng.normal(0, 3)
            yield x.reshape(-1, 1)
    yield np.zeros((50, 1))                                 # nothing to split
    yield np.repeat([[0.0], [5.0]], 40, axis=0)             # one clean step


def _random_signals(count: int):
    """Many lengths, steps and ties (rounded values), for the two compiled searches side by side."""
    rng = np.random.default_rng(20)
    for i in range(count):
        n = int(rng.integers(3, 1100))
        x = rng.standard_normal(n)
        for _ in range(rng.integers(0, 5)):
            x[rng.integers(0, n):] += rng.normal(0, 3)
        yield np.round(x) if i % 5 == 0 else x


@pytest.fixture(params=["own", "ruptures"])
def search(request, monkeypatch):
    """Each compiled search in turn: perfgate's, and ruptures' with perfgate's left out."""
    assert pelt._own_search() is not None and pelt._compiled_search() is not None   # both built here
    if request.param == "ruptures":
        monkeypatch.setattr(pelt, "_own_search", lambda: None)
    return request.param


@pytest.mark.parametrize("min_size", [2, 5, 9])
def test_the_same_change_points_as_ruptures_kernel_cpd(min_size, search):
    for x in _signals():
        for pen in (0.5, 2 * np.log(x.shape[0]), 50.0):
            if x.shape[0] < 2 * min_size:
                assert pelt.pelt_l2(x, pen, min_size) == []
                continue
            expected = ruptures.KernelCPD(kernel="linear", min_size=min_size, jump=1).fit(x).predict(pen=pen)[:-1]
            assert pelt.pelt_l2(x, pen, min_size) == [int(b) for b in expected]
            assert pelt.pelt_l2(x.ravel(), pen, min_size) == [int(b) for b in expected]


def test_perfgate_search_and_ruptures_compiled_search_agree_on_many_series(monkeypatch):
    cases = [(x, min_size, pen) for i, x in enumerate(_random_signals(1500))
             for min_size in (1 + i % 3, 5 + i % 7) for pen in (2 * np.log(x.size), 4.0)]
    own = [pelt.pelt_l2(x, pen, m) for x, m, pen in cases]
    monkeypatch.setattr(pelt, "_own_search", lambda: None)
    theirs = [pelt.pelt_l2(x, pen, m) for x, m, pen in cases]
    assert sum(map(len, own)) > len(cases)          # steps are found, not only empty answers
    assert [i for i, (a, b) in enumerate(zip(own, theirs)) if a != b] == []


def test_without_the_compiled_searches_the_public_class_gives_the_same(monkeypatch):
    x = [s for s in _signals() if s.shape[0] == 600][-1]          # three steps
    found = pelt.pelt_l2(x, 2 * np.log(600), 5)
    monkeypatch.setattr(pelt, "_own_search", lambda: None)
    monkeypatch.setattr(pelt, "_compiled_search", lambda: None)
    assert pelt.pelt_l2(x, 2 * np.log(600), 5) == found and found


def test_detect_imports_neither_the_ruptures_package_nor_scipy():
    # ruptures' package cost 0.6 s of every detect's CPU, any scipy subpackage 0.25 s; detect uses neither.
    code = ("import sys; import perfgate.commands.detect as d; d._import_detectors();"
            "import perfgate.detect.threshold_verdicts, perfgate.detect.way_back, perfgate.series_search;"
            "from perfgate.detect.changepoint import detect_change_points;"
            "import numpy as np; x = np.r_[np.ones(60), 2 * np.ones(60)] * (1 + 0.01 * np.sin(np.arange(120)));"
            "assert [c.index for c in detect_change_points(x)] == [60];"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ruptures', 'scipy')));"
            # the package imported after its compiled search was loaded alone still works
            "import ruptures; print([int(b) for b in ruptures.KernelCPD(kernel='linear', min_size=5).fit(x.reshape(-1, 1)).predict(pen=5)[:-1]])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["[]", "[60]"], out


def test_a_compiled_search_that_will_not_load_on_its_own_falls_back_to_the_class(monkeypatch):
    def refuse(self, module):
        raise ImportError("wants its package")

    pelt._compiled_search.cache_clear()
    monkeypatch.setattr(pelt, "_own_search", lambda: None)
    monkeypatch.setattr(importlib.machinery.ExtensionFileLoader, "exec_module", refuse)
    try:
        assert pelt._compiled_search() is None
        x = [s for s in _signals() if s.shape[0] == 600][-1]
        assert pelt.pelt_l2(x, 2 * np.log(600), 5) == [314, 380, 430]
    finally:
        pelt._compiled_search.cache_clear()


@needs_cc
def test_the_c_search_is_clean_under_address_and_undefined_behaviour_sanitizers(tmp_path):
    assert checked_count("l2_search_driver.c", "_l2_search.c", tmp_path) > 2_000_000
