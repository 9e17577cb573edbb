"""Exact dice probabilities: dice math only, no rolling.

Everything is computed with `fractions.Fraction` so a probability shown to players is exact;
floats are made only at the edge (`as_floats`). Never imports anything outside the standard
library.

The functions are pure, and a table asks the same few of them again and again (the same dice
needing the same score), so those taking whole numbers and probabilities keep their answers
(`lru_cache`, `typed` so a float probability never answers for an equal Fraction); a
distribution is returned as an immutable tuple.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from math import comb

Distribution = tuple[Fraction, ...]
"""P(outcome = k) for k = 0, 1, 2, ... (index = outcome)."""


def _check(dice: int, sides: int) -> None:
    if isinstance(dice, bool) or not isinstance(dice, int) or dice < 0:
        raise ValueError(f"the number of dice must be a whole number of at least 0, got {dice!r}")
    if isinstance(sides, bool) or not isinstance(sides, int) or sides < 2:
        raise ValueError(f"a die needs at least 2 sides, got {sides!r}")


@lru_cache(maxsize=4096, typed=True)
def p_at_least(sides: int, need: int) -> Fraction:
    """Chance that one die of `sides` shows `need` or more (0 if `need` > sides, 1 if <= 1)."""
    _check(1, sides)
    if need > sides:
        return Fraction(0)
    if need <= 1:
        return Fraction(1)
    return Fraction(sides - need + 1, sides)


@lru_cache(maxsize=4096, typed=True)
def binomial(dice: int, p: Fraction) -> Distribution:
    """Distribution of the number of successes among `dice` independent tries of chance `p`."""
    if dice < 0:
        raise ValueError(f"the number of dice must be at least 0, got {dice!r}")
    if not 0 <= p <= 1:
        raise ValueError(f"a probability must be between 0 and 1, got {p}")
    q = 1 - p
    return tuple(comb(dice, k) * p**k * q ** (dice - k) for k in range(dice + 1))


@lru_cache(maxsize=4096, typed=True)
def successes(dice: int, sides: int, need: int) -> Distribution:
    """Distribution of how many of `dice` dice of `sides` show `need` or more."""
    _check(dice, sides)
    return binomial(dice, p_at_least(sides, need))


@lru_cache(maxsize=256, typed=True)
def _ways(dice: int, sides: int) -> tuple[int, ...]:
    """How many of the sides**dice outcomes of `dice` dice of `sides` give each total (index =
    the total)."""
    _check(dice, sides)
    ways = [1]
    for _ in range(dice):
        nxt = [0] * (len(ways) + sides)
        for low, n in enumerate(ways):
            for face in range(1, sides + 1):
                nxt[low + face] += n
        ways = nxt
    return tuple(ways)


@lru_cache(maxsize=4096, typed=True)
def total(dice: int, sides: int) -> Distribution:
    """Distribution of the sum of `dice` dice of `sides` (index = the sum)."""
    whole = sides**dice
    return tuple(Fraction(n, whole) for n in _ways(dice, sides))


@dataclass(frozen=True, slots=True)
class Shown:
    """A distribution as answers show it (`dice_sum`, `binomial_shown`)."""

    distribution: Distribution
    """P(k) for k = 0, 1, 2, ... (index = the outcome)."""
    floats: tuple[float, ...]
    """The distribution as floats (`as_floats`)."""
    exact: tuple[str, ...]
    """The distribution as exact fractions in text (`1/36`)."""
    mean: Fraction
    at_least: tuple[Fraction, ...]
    """P(outcome >= k) for k = 0, 1, 2, ... (0 beyond the last)."""

    @classmethod
    def of(cls, dist: Distribution) -> Shown:
        """`dist` with its floats, its exact texts, its mean and its tails worked out once."""
        tails = tuple(accumulate(reversed(dist)))[::-1]
        return cls(dist, tuple(as_floats(dist)), tuple(str(p) for p in dist), mean(dist), tails)

    def p_at_least(self, k: int) -> Fraction:
        return self.at_least[max(k, 0)] if k < len(self.at_least) else Fraction(0)


@lru_cache(maxsize=1024, typed=True)
def dice_sum(dice: int, sides: int, halved: bool = False) -> Shown:
    """The sum of `dice` dice of `sides` (`total`); `halved`: the sum halved, rounding up (a
    sheet's d6s halved for the d3s not at hand)."""
    dist = total(dice, sides)
    if halved:
        out = [Fraction(0)] * (len(dist) // 2 + 1)
        for k, p in enumerate(dist):
            out[(k + 1) // 2] += p
        dist = tuple(out)
    return Shown.of(dist)


@lru_cache(maxsize=4096, typed=True)
def binomial_shown(dice: int, p: Fraction) -> Shown:
    """`binomial(dice, p)` as answers show it, remembered: a table shows the same few pools
    again and again, and turning Fractions into floats and text costs more than the odds."""
    return Shown.of(binomial(dice, p))


@lru_cache(maxsize=4096, typed=True)
def total_with_top_face(dice: int, sides: int, at_least: int) -> Fraction:
    """Chance that `dice` dice of `sides` total `at_least` or more with one or more of them
    showing the top face: such totals of all the outcomes, less those of dice numbered 1 to
    sides - 1 only."""
    if dice == 0:
        return Fraction(0)
    every = _ways(dice, sides)
    no_top = _ways(dice, sides - 1) if sides > 2 else (0,) * dice + (1,)
    hits, misses = sum(every[max(at_least, 0) :]), sum(no_top[max(at_least, 0) :])
    return Fraction(hits - misses, sides**dice)


@lru_cache(maxsize=4096)
def mean(dist: Distribution) -> Fraction:
    """Expected outcome of a distribution, remembered: the few distributions of a sheet are
    averaged again and again (hashing one costs less than summing it in Fractions)."""
    return sum((k * p for k, p in enumerate(dist)), Fraction(0))


def convolve(a: Sequence[Fraction], b: Sequence[Fraction]) -> Distribution:
    """Distribution of the sum of two independent outcomes."""
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, pa in enumerate(a):
        if pa:
            for j, pb in enumerate(b):
                out[i + j] += pa * pb
    return tuple(out)


def as_floats(dist: Sequence[Fraction]) -> list[float]:
    """A distribution as floats, for JSON and the page: each the numerator divided by the
    denominator, the float `float(p)` gives (a correctly rounded integer division), without
    its generic path (a `suggest` turns thousands of probabilities into floats)."""
    return [p.numerator / p.denominator for p in dist]
