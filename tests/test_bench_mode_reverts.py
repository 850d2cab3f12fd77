"""bench/mode_rule_reverts.py: the cases it builds and what it counts as kept."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import mode_rule_reverts as reverts  # noqa: E402


@pytest.mark.parametrize("noise", reverts.NOISES)
def test_a_case_regresses_at_its_start_and_reverts_after_its_length(noise):
    x, length = reverts.case(noise, 3, 4.0)
    assert 6 <= length <= 28 and x.size == 300
    quiet = np.concatenate([x[:reverts.START], x[reverts.START + length:]])
    inside = x[reverts.START:reverts.START + length]
    assert np.median(inside) / np.median(quiet) == pytest.approx(1 + 4.0 * reverts.CV, abs=0.03)


def test_a_clear_regression_and_its_revert_are_kept_at_every_level():
    noise, kept = reverts.kept(("gauss", 3, 8.0))
    assert noise == "gauss" and kept == [True] * len(reverts.LEVELS)


def test_no_change_is_not_counted_as_kept():
    assert reverts.kept(("gauss", 3, 0.0))[1] == [False] * len(reverts.LEVELS)
