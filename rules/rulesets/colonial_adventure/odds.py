"""The exact odds colonial-adventure needs beyond `rules.dice`: counts of successes as answers show
them, a repeating gun's jam (line 98) and a leader's D10 (line 120). Exact fractions; floats only
to show them."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ... import dice


def counted(n: int, p: Fraction) -> dict[str, Any]:
    """How many of `n` dice succeed, each with chance `p` (a binomial distribution), as JSON."""
    shown = dice.binomial_shown(n, p)
    floats, exact = list(shown.floats), list(shown.exact)
    p_any = float(shown.p_at_least(1))
    return {"distribution": floats, "exact": exact, "mean": float(shown.mean), "p_any": p_any}


def jam_chance(n: int) -> Fraction:
    """P(more 1s than 6s) among `n` D6: by symmetry, half the chance of not as many. Of the 6^n
    throws, k 1s and k 6s show in C(n, k) C(n - k, k) 4^(n - 2k) (which dice show the 1s,
    which the 6s, and one of the four other faces on each of the rest)."""
    equal = sum(math.comb(n, k) * math.comb(n - k, k) * 4 ** (n - 2 * k) for k in range(n // 2 + 1))
    return Fraction(6**n - equal, 2 * 6**n)


def leader_hit_chance(n: int, p: Fraction, sides: int) -> Fraction:
    """P(a leader's D`sides` scores at most the men killed), `n` dice each killing with chance
    `p`: min(k, sides) / sides given k killed, so E[min(killed, sides)] / sides, the mean less
    what lies beyond `sides`."""
    killed = dice.binomial(n, p)
    beyond = sum(((k - sides) * q for k, q in enumerate(killed) if k > sides), Fraction(0))
    return (n * p - beyond) / sides
