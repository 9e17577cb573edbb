"""Exact dice math against brute-force enumeration and hand-computed odds."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import dice

small_pools = st.tuples(st.integers(0, 4), st.sampled_from([3, 6, 8, 10]), st.integers(0, 11))


def brute_successes(n: int, sides: int, need: int) -> list[Fraction]:
    counts = [0] * (n + 1)
    for faces in itertools.product(range(1, sides + 1), repeat=n):
        counts[sum(f >= need for f in faces)] += 1
    return [Fraction(c, sides**n) for c in counts]


@given(small_pools)
@settings(max_examples=150)
def test_successes_match_brute_force_enumeration(pool: tuple[int, int, int]) -> None:
    n, sides, need = pool
    assert list(dice.successes(n, sides, need)) == brute_successes(n, sides, need)


@given(st.integers(0, 40), st.sampled_from([3, 6, 8, 10, 12, 20]), st.integers(-2, 22))
def test_success_distribution_sums_to_one(n: int, sides: int, need: int) -> None:
    dist = dice.successes(n, sides, need)
    assert len(dist) == n + 1
    assert sum(dist) == 1
    assert all(p >= 0 for p in dist)


@given(st.integers(1, 4), st.sampled_from([3, 6]))
@settings(max_examples=40)
def test_totals_match_brute_force(n: int, sides: int) -> None:
    dist = dice.total(n, sides)
    for s in range(len(dist)):
        ways = sum(1 for f in itertools.product(range(1, sides + 1), repeat=n) if sum(f) == s)
        assert dist[s] == Fraction(ways, sides**n)
    assert sum(dist) == 1


@pytest.mark.parametrize(
    ("sides", "need", "p"),
    [
        (8, 2, Fraction(7, 8)),  # D8 needing 2+: faces 2..8
        (8, 8, Fraction(1, 8)),
        (6, 4, Fraction(1, 2)),
        (6, 7, Fraction(0)),  # impossible
        (6, 1, Fraction(1)),
        (6, 0, Fraction(1)),
        (3, 3, Fraction(1, 3)),
    ],
)
def test_one_die_odds(sides: int, need: int, p: Fraction) -> None:
    assert dice.p_at_least(sides, need) == p


def test_hand_computed_pool() -> None:
    # 2D6 needing 5+: p = 1/3; P(0) = 4/9, P(1) = 2 * 1/3 * 2/3 = 4/9, P(2) = 1/9
    assert dice.successes(2, 6, 5) == (Fraction(4, 9), Fraction(4, 9), Fraction(1, 9))
    # 2D6 total 7 has 6 of 36 ways
    assert dice.total(2, 6)[7] == Fraction(1, 6)
    assert sum(dice.total(2, 6)[11:]) == Fraction(3, 36)  # 5+6, 6+5, 6+6
    assert dice.mean(dice.total(3, 6)) == Fraction(21, 2)


@pytest.mark.parametrize(("n", "sides"), [(-1, 6), (2, 1), (2, 0)])
def test_bad_pools_are_refused_by_name(n: int, sides: int) -> None:
    with pytest.raises(ValueError, match=r"dice|sides"):
        dice.successes(n, sides, 4)


@given(st.integers(0, 4), st.sampled_from([3, 6]), st.booleans())
@settings(max_examples=40)
def test_a_dice_sum_and_what_answers_show_of_it_match_brute_force(
    n: int, sides: int, halved: bool
) -> None:
    # Every outcome of n dice, its sum halved and rounded up when `halved`.
    sums = [sum(f) for f in itertools.product(range(1, sides + 1), repeat=n)]
    if halved:
        sums = [(s + 1) // 2 for s in sums]
    got = dice.dice_sum(n, sides, halved)
    want = [Fraction(sums.count(k), sides**n) for k in range(max(sums) + 1)]
    assert list(got.distribution) == want
    assert got.floats == tuple(float(p) for p in want)
    assert got.exact == tuple(str(p) for p in want)
    assert got.mean == Fraction(sum(sums), len(sums))
    for k in range(-1, max(sums) + 3):
        assert got.p_at_least(k) == Fraction(sum(s >= k for s in sums), len(sums))


@given(st.integers(0, 4), st.sampled_from([2, 3, 6]), st.integers(0, 13))
@settings(max_examples=60)
def test_a_total_with_a_top_face_matches_brute_force(n: int, sides: int, at_least: int) -> None:
    outcomes = list(itertools.product(range(1, sides + 1), repeat=n))
    hits = sum(1 for f in outcomes if sum(f) >= at_least and sides in f)
    assert dice.total_with_top_face(n, sides, at_least) == Fraction(hits, len(outcomes))


def test_floats_are_the_floats_of_the_fractions() -> None:
    dist = (Fraction(1, 3), Fraction(2, 7), Fraction(0), Fraction(1), Fraction(10**30 + 1, 3))
    assert dice.as_floats(dist) == [float(p) for p in dist]


@pytest.mark.parametrize("n", [0, 1, 3, 12])
@pytest.mark.parametrize("p", [Fraction(0), Fraction(1, 9), Fraction(1, 3), Fraction(1)])
def test_binomial_shown_is_the_distribution_as_answers_show_it(n: int, p: Fraction) -> None:
    # Three dice at 1/3: P(0) = 8/27 shown as 0.296..., exact "8/27"; mean 3 * 1/3 = 1.
    dist = dice.binomial(n, p)
    shown = dice.binomial_shown(n, p)
    assert shown.distribution == dist
    assert shown.floats == tuple(float(q) for q in dist)
    assert shown.exact == tuple(str(q) for q in dist)
    assert shown.mean == n * p
    assert shown.p_at_least(1) == 1 - (1 - p) ** n


def test_convolve_sums_two_independent_outcomes() -> None:
    # Two fair coins counted 0/1: 0 once in 4, 1 twice, 2 once. A D6 less a D6 (the second
    # reversed): a draw (margin 0) in 6 of the 36 ways.
    coin = (Fraction(1, 2), Fraction(1, 2))
    assert dice.convolve(coin, coin) == (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    d6 = (Fraction(0),) + (Fraction(1, 6),) * 6
    margin = dice.convolve(d6, d6[::-1])
    assert margin[len(d6) - 1] == Fraction(6, 36)
    assert sum(margin) == 1
