"""The remembered odds `suggest` reads in Sepoys & Soldiers: nerve passes, a charge's odds,
a rocket's dice and roll JSON, each checked against arithmetic done by hand from the sheet."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.rulesets import sepoys_and_soldiers as ss


@pytest.mark.parametrize(
    ("dice", "tests", "p"),
    [
        # 4+ on a d6 is 1/2; a test fails only when every die fails (line 21).
        (1, 1, Fraction(1, 2)),  # 1 - 1/2
        (2, 1, Fraction(3, 4)),  # 1 - 1/4
        (3, 1, Fraction(7, 8)),  # 1 - 1/8
        (1, 2, Fraction(1, 4)),  # (1/2)^2: a passive unit tests twice
        (2, 2, Fraction(9, 16)),  # (3/4)^2
    ],
)
def test_p_pass(dice: int, tests: int, p: Fraction) -> None:
    assert ss._p_pass(dice, tests) == p


def test_nerve_odds_disordered_tests_one_quality_less() -> None:
    # Aggressive rolls 3d6, active 2d6 (line 21); disordered tests one quality less (line 43).
    dice, tests, reasons, p = ss._nerve_odds("aggressive", True, 1)
    assert (dice, tests) == (2, 1)
    assert [m.value for m in reasons] == [3, -1]
    assert p == Fraction(3, 4)


def test_charge_odds_one_die_each() -> None:
    # Charger and target each roll 1d6, pass on 4+ (1/2); one base each, no hits carried.
    odds = ss._charge_odds((1, 1), (1, 1), (1, 1), (0, 0))
    exact = {k: Fraction(v[1]) for k, v in odds.items()}
    assert exact["charger_passes"] == exact["target_passes"] == Fraction(1, 2)
    assert exact["no_charge"] == Fraction(1, 2)  # the charger fails: 1 - 1/2
    assert exact["target_routs"] == Fraction(1, 4)  # charger passes, target fails: 1/2 * 1/2
    assert exact["charge_combat"] == Fraction(1, 4)  # both pass: 1/2 * 1/2
    # Each round: a alone passes 1/4, b alone 1/4, a draw 1/2 (1 hit each). With 1 base (3 hits)
    # each, the sides are equal, so the charger and the target win equally often; and the three
    # combat outcomes share the 1/4 that reaches combat.
    assert exact["charger_wins_combat"] == exact["target_wins_combat"]
    total = sum(exact[k] for k in ("charger_wins_combat", "target_wins_combat", "both_destroyed"))
    assert total == Fraction(1, 4)
    for value, text in odds.values():
        assert value == pytest.approx(float(Fraction(text)))


def test_rocket_dice() -> None:
    # The red die explodes the rocket on 5 or 6 (line 75): 2/6 = 1/3 a leg; it burns out after
    # 4 legs unexploded: (4/6)^4 = 16/81.
    assert ss.ROCKET_RED_DIE.p_success == Fraction(1, 3)
    burn_out = ss.ROCKET_BURN_OUT
    assert burn_out == Fraction(16, 81)
    assert ss.ROCKET_WHITE_DIE.need is None  # the white die only steers


def test_roll_json_is_the_rolls_json_and_a_fresh_dict() -> None:
    roll = ss._success_roll("to hit", 3, 6, 4, (), ss.EACH_BASE_ROLLS, "note")
    first, second = ss._roll_json(roll), ss._roll_json(roll)
    assert first == roll.as_json()
    # 3 dice needing 4+ (1/2 each): P(0..3 successes) = 1/8, 3/8, 3/8, 1/8.
    assert first["distribution"] == pytest.approx([0.125, 0.375, 0.375, 0.125])
    first["note"] = "changed"
    assert second["note"] == "note"  # each answer gets its own dict
