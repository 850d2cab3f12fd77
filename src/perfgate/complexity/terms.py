"""Model terms: products of named scaling parameters, written the way the seeds wrote them.

A term spec is a comma-separated list such as ``vo2,vo,v,o2,o,1``.  Each term is a product of
single-letter parameters, each optionally followed by an exponent: ``vo2`` is v·o², ``o`` is o,
``1`` is the constant.  A parameter letter names a scaling parameter by its first letter
(``v`` = values, ``o`` = objects).  The design matrix has one column per term:
``X[i, j] = Π_p x_p[i] ** e_jp``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

_FACTOR = re.compile(r"([a-z])(\d*)")
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
DEFAULT_SPEC = "vo2,vo,v,o2,o,1"


class TermError(ValueError):
    """A term spec that cannot be read; the message says which term and why."""


@dataclass(frozen=True, order=True)
class Term:
    """A monomial: ``powers`` maps parameter letters to exponents (empty = the constant 1)."""

    powers: tuple[tuple[str, int], ...] = ()
    # The letters in the order they were written, so ``vo`` prints as v⋅o (not part of identity).
    written: str = field(default="", compare=False)

    def _ordered(self) -> list[tuple[str, int]]:
        return sorted(self.powers, key=lambda pe: self.written.find(pe[0]))

    @property
    def spec(self) -> str:
        return "".join(p + (str(e) if e != 1 else "") for p, e in self._ordered()) or "1"

    @property
    def label(self) -> str:
        """Human form used in printed models: ``v⋅o²``."""
        return "⋅".join(p + (str(e).translate(_SUPERSCRIPT) if e != 1 else "") for p, e in self._ordered()) or "1"

    def power(self, letter: str) -> int:
        return dict(self.powers).get(letter, 0)

    @property
    def degree(self) -> int:
        return sum(e for _, e in self.powers)

    def column(self, params: dict[str, np.ndarray], n: int) -> np.ndarray:
        col = np.ones(n)
        for letter, exponent in self.powers:
            col = col * np.asarray(params[letter], dtype=float) ** exponent
        return col


def parse_term(text: str) -> Term:
    text = text.strip().lower()
    if text == "1":
        return Term()
    if not re.fullmatch(r"(?:[a-z]\d*)+", text):
        raise TermError(f"term {text!r} is not a product of parameter letters with exponents (e.g. vo2)")
    powers: dict[str, int] = {}
    for letter, digits in _FACTOR.findall(text):
        exponent = int(digits) if digits else 1
        if exponent < 1 or exponent > 9:
            raise TermError(f"term {text!r}: exponent {exponent} of {letter} must be 1..9")
        powers[letter] = powers.get(letter, 0) + exponent
    return Term(tuple(sorted(powers.items())), "".join(powers))


def parse_terms(spec: str) -> list[Term]:
    """``"vo,o,1"`` → [v⋅o, o, 1], in the order written; duplicates are refused."""
    terms = [parse_term(part) for part in spec.split(",")]
    seen = set()
    for t in terms:
        if t in seen:
            raise TermError(f"term {t.spec!r} appears twice in {spec!r}")
        seen.add(t)
    return terms


def letters(terms: list[Term]) -> set[str]:
    return {p for t in terms for p, _ in t.powers}


def design_matrix(terms: list[Term], params: dict[str, np.ndarray]) -> np.ndarray:
    missing = sorted(letters(terms) - set(params))
    if missing:
        raise TermError(f"terms use parameter(s) {', '.join(missing)} that the data does not have "
                        f"(it has: {', '.join(sorted(params)) or 'none'})")
    n = len(next(iter(params.values()))) if params else 0
    return np.column_stack([t.column(params, n) for t in terms]) if terms else np.empty((n, 0))


def default_terms(params) -> list[Term]:
    """The terms ``perfgate fit`` chooses among when none are given: those of ``DEFAULT_SPEC``
    whose parameters the data has."""
    return [t for t in parse_terms(DEFAULT_SPEC) if letters([t]) <= set(params)]
