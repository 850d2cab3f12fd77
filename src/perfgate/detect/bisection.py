"""Binary search for the first bad commit of a change, and how one measurement is judged.

Pure: the caller measures; this module decides which commit to measure next and whether what
it measured looks like the good side (before the change) or the bad side (after it).

* A **deterministic** measure (instruction counts under a pinned image repeat exactly) is judged
  from one value: it belongs to the side whose level it is closer to on a log scale.
* A **noisy** measure is judged from interleaved rounds: each round measures the good end, the
  commit under test and the bad end back to back, and the commit's position between the two
  ends, ``f = log(x / good) / log(bad / good)`` (0 = good, 1 = bad), is taken per round; the
  median over rounds decides, and the share of rounds on the same side is the agreement.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field


@dataclass
class Verdict:
    side: str                  # "good" | "bad"
    position: float            # 0 = at the good level, 1 = at the bad level
    agreement: float = 1.0     # share of rounds on the chosen side (1 for a deterministic value)
    evidence: dict = field(default_factory=dict)


def _position(value: float, good: float, bad: float) -> float:
    if value <= 0 or good <= 0 or bad <= 0 or good == bad:
        raise ValueError("levels must be positive and the two ends must differ")
    return math.log(value / good) / math.log(bad / good)


def judge_value(value: float, good: float, bad: float) -> Verdict:
    """One deterministic value against the levels before and after the change."""
    f = _position(value, good, bad)
    return Verdict("bad" if f >= 0.5 else "good", f, 1.0,
                   {"value": value, "good_level": good, "bad_level": bad})


def judge_rounds(rounds: list[tuple[float, float, float]]) -> Verdict:
    """Interleaved rounds of (good end, commit under test, bad end) values."""
    if not rounds:
        raise ValueError("no rounds")
    positions = [_position(x, g, b) for g, x, b in rounds]
    f = statistics.median(positions)
    side = "bad" if f >= 0.5 else "good"
    agree = sum((p >= 0.5) == (side == "bad") for p in positions) / len(positions)
    return Verdict(side, f, agree, {"rounds": [list(r) for r in rounds], "positions": positions})


class BinarySearch:
    """First bad commit among ``candidates`` (oldest first; the last is known to be bad and the
    commit before the first is known to be good)."""

    def __init__(self, candidates: list[str]):
        if not candidates:
            raise ValueError("no candidate commits")
        self.candidates = candidates
        self.lo, self.hi = -1, len(candidates) - 1   # lo: last known good, hi: first known bad
        self.steps: list[tuple[str, Verdict]] = []

    @property
    def done(self) -> bool:
        return self.hi - self.lo <= 1

    def next(self) -> str:
        return self.candidates[(self.lo + self.hi) // 2]

    def record(self, commit: str, verdict: Verdict) -> None:
        i = self.candidates.index(commit)
        if not self.lo < i < self.hi:
            raise ValueError(f"{commit} is outside the open range still searched")
        if verdict.side == "bad":
            self.hi = i
        else:
            self.lo = i
        self.steps.append((commit, verdict))

    @property
    def first_bad(self) -> str:
        return self.candidates[self.hi]

    def last_good(self, before: str) -> str:
        """The last good commit: a candidate, or ``before`` (the good end) when none was good."""
        return self.candidates[self.lo] if self.lo >= 0 else before
