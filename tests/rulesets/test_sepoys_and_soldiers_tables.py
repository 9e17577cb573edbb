"""The exact odds of Sepoys & Soldiers' dice (`sepoys_and_soldiers/ruleset.py`): nerve tests,
volleys, charge combats and rocket bursts, each checked against arithmetic done by hand from
the sheet."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from rules.rulesets.sepoys_and_soldiers import ruleset as t

LEG = 8 * 25.4  # 8" a leg (line 74)
DIAGONAL = LEG / math.sqrt(2)  # a leg turned 45 degrees: 8" cos 45 each way


@pytest.mark.parametrize(
    ("kind", "disordered", "tests", "dice", "p"),
    [
        # 4+ on a d6 is 1/2; a test fails only when every die fails (line 21).
        ("passive", False, 1, 1, Fraction(1, 2)),  # 1 - 1/2
        ("active", False, 1, 2, Fraction(3, 4)),  # 1 - 1/4
        ("aggressive", False, 1, 3, Fraction(7, 8)),  # 1 - 1/8
        ("active", False, 2, 2, Fraction(9, 16)),  # tested twice (line 28): (3/4)^2
        ("aggressive", True, 1, 2, Fraction(3, 4)),  # one quality less (line 43): 2d6
        ("passive", True, 1, 1, Fraction(1, 4)),  # passive rolls twice (line 43): (1/2)^2
        ("passive", True, 2, 1, Fraction(1, 16)),  # and twice again in flank: (1/2)^4
    ],
)
def test_nerve_tests(kind: str, disordered: bool, tests: int, dice: int, p: Fraction) -> None:
    test = t.NERVE_TESTS[kind, disordered, tests]
    assert (test.roll.dice, test.p_pass) == (dice, p)
    assert test.roll.dice == dice and test.roll.need == 4


def test_volley_counts_hits_and_lost_bases() -> None:
    # 2 dice needing 5+ (1/3 each), 2 hits a success, on a unit of 2 bases carrying 1 hit:
    # 0 successes 4/9 (1 hit, no base), 1 success 4/9 (3 hits, a base), 2 successes 1/9
    # (5 hits, a base).
    hits, lost, p_lost = t.volley(2, 5, 2, 1, 2)
    assert [(h["k"], Fraction(h["exact"])) for h in hits] == [
        (0, Fraction(4, 9)),
        (2, Fraction(4, 9)),
        (4, Fraction(1, 9)),
    ]
    assert [(h["k"], Fraction(h["exact"])) for h in lost] == [
        (0, Fraction(4, 9)),
        (1, Fraction(5, 9)),
    ]
    assert p_lost == Fraction(5, 9)


def test_charge_combat_one_die_each() -> None:
    # Each side passes 1/2: a alone 1/4, b alone 1/4, a draw 1/2 (1 hit each). One base each
    # (3 hits): two drawn rounds leave 2 hits each, a third destroys both (1/8 = (1/2)^3).
    half = Fraction(1, 2)
    combat = t.charge_combat(half, half, 1, 1, 0, 0)

    def p(count: int) -> Fraction:
        return Fraction(count, combat.whole)

    assert combat.p_drawn_round == half
    assert p(combat.a_wins) == p(combat.b_wins) == Fraction(7, 16)  # (1/4)(1 + 1/2 + 1/4)
    assert p(combat.both_destroyed) == Fraction(1, 8)
    # a's base goes (3 hits) when it wins after 2 drawn rounds (2 + 1: 1/16), loses after 1
    # or 2 (1 + 2, 2 + 2: 1/8 + 1/16), or all 3 are drawn (1/8): 3/8 in all.
    assert [p(n) for n in combat.a_bases_lost] == [Fraction(5, 8), Fraction(3, 8)]
    assert combat.a_bases_lost == combat.b_bases_lost


def test_commander_risk() -> None:
    # A competent commander is hit on 1-2 (line 13): 2/6; then 2-3 wounded, 2/6 of that.
    risk = t.commander_risk("gen", "competent")
    assert (risk["hit_on"], Fraction(risk["p_hit"]["exact"])) == ("1-2", Fraction(1, 3))
    wounded = risk["if_hit"][1]
    assert (wounded["faces"], Fraction(wounded["p_overall"]["exact"])) == ("2-3", Fraction(1, 9))


def test_rocket_dice() -> None:
    # The red die explodes the rocket on 5 or 6 (line 75): 1/3 a leg; it burns out after
    # 4 legs unexploded: (2/3)^4 = 16/81.
    assert t.ROCKET_RED_DIE.p_success == Fraction(1, 3)
    burn_out = t.ROCKET_BURN_OUT
    assert burn_out == Fraction(16, 81)
    assert t.ROCKET_WHITE_DIE.need is None  # the white die only steers


def test_rocket_bursts() -> None:
    # Leg 1 (line 74): 1-2 left 45, 3-4 straight on, 5-6 right 45, then 8"; each bursts with
    # 1/3 (the white die) x 1/3 (the red die) = 1/9 = 729 / 3^8.
    points, weights = t.BURSTS.points, t.BURSTS.weights
    assert t.BURST_DENOMINATOR == 3**8
    assert points[0] == pytest.approx((DIAGONAL, DIAGONAL))
    assert points[1] == pytest.approx((LEG, 0.0), abs=1e-9)
    assert points[2] == pytest.approx((DIAGONAL, -DIAGONAL))
    assert weights[:3].tolist() == [729] * 3
    # 3 + 9 + 27 + 81 points; every burst and the burn-out make up a certainty
    assert len(points) == 120
    burst = Fraction(int(weights.sum()), t.BURST_DENOMINATOR)
    assert burst + t.ROCKET_BURN_OUT == 1
