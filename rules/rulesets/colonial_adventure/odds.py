"""The exact odds colonial-adventure needs beyond `rules.dice`: counts of successes with what
players read off them, a repeating gun's jam (line 98), a leader's D10 (line 120), and how two
close combat rolls compare (lines 144-150). Exact fractions; floats only to show them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ... import dice


@dataclass(frozen=True, slots=True)
class Outcome:
    """How many of `count` dice succeed, each with chance `p` (a binomial distribution)."""

    count: int
    p: Fraction

    @property
    def dist(self) -> tuple[Fraction, ...]:
        """P(k) for k = 0, 1, ..., count."""
        return dice.binomial(self.count, self.p)

    @property
    def mean(self) -> float:
        return float(self.count * self.p)

    def as_json(self) -> dict[str, Any]:
        shown = dice.binomial_shown(self.count, self.p)
        return {
            "distribution": list(shown.floats),
            "exact": list(shown.exact),
            "mean": shown.mean,
            "p_any": shown.p_any,
        }


def jam_chance(n: int) -> Fraction:
    """P(more 1s than 6s) among `n` D6: by symmetry, half the chance of not as many. Of the 6^n
    throws, k 1s and k 6s show in C(n, k) C(n - k, k) 4^(n - 2k) (which dice show the 1s,
    which the 6s, and one of the four other faces on each of the rest)."""
    equal = sum(math.comb(n, k) * math.comb(n - k, k) * 4 ** (n - 2 * k) for k in range(n // 2 + 1))
    return Fraction(6**n - equal, 2 * 6**n)


def leader_hit_chance(killed: Outcome, sides: int) -> Fraction:
    """P(a leader's D`sides` scores at most the men killed): min(k, sides) / sides given k
    killed, so E[min(killed, sides)] / sides, the mean less what lies beyond `sides`."""
    beyond = sum(((k - sides) * p for k, p in enumerate(killed.dist) if k > sides), Fraction(0))
    return (killed.count * killed.p - beyond) / sides


def margin(a: Sequence[Fraction], b: Sequence[Fraction]) -> dict[int, Fraction]:
    """P(A - B = m) for every m, of two independent counts."""
    out: dict[int, Fraction] = {}
    for i, pa in enumerate(a):
        for j, pb in enumerate(b):
            if pa and pb:
                out[i - j] = out.get(i - j, Fraction(0)) + pa * pb
    return out


def share_of(n: int, fraction: Fraction) -> int:
    """The change to a pool of `n` dice by `fraction` of it, rounded up (away from zero)."""
    whole = math.ceil(n * abs(fraction))
    return whole if fraction > 0 else -whole
