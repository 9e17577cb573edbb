"""colonial-adventure, case by case from the sheet (rules/sheets/002_9c2296e6290248df.txt).

Every expected number is worked out by hand from the sheet's lines (the arithmetic is in the
case tables and comments), never copied from the code's output. Scenes are in inches: 1" bases,
the firer's front edge at y = 10.5" facing the far edge, the target facing it `gap` inches away.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rules import geometry as geo
from rules.engine import Candidate, get_ruleset
from rules.errors import QuestionError, SceneError
from rules.measure import Table
from rules.rulesets.colonial_adventure.odds import jam_chance
from rules.scene import Scene
from tests import sight_reference as ref
from tests.builders import base, make_scene, rect, scene_doc, terrain, unit

RS = get_ruleset("colonial-adventure")
SHEET = "002_9c2296e6290248df.txt"
SHOOTER_FRONT = 10.5


def _rank(prefix: str, n: int, y: float, facing: float, **extra: Any) -> list[dict[str, Any]]:
    """`n` single-figure 1" bases side by side from x = 10"."""
    return [base(f"{prefix}-{i + 1}", 10 + 1.1 * i, y, facing, 1, 1, **extra) for i in range(n)]


def duel(
    gap: float,
    shooter: dict[str, Any] | None = None,
    target: dict[str, Any] | None = None,
    *,
    figures: int = 4,
    extra_bases: list[dict[str, Any]] | None = None,
    target_bases: list[dict[str, Any]] | None = None,
    pieces: list[dict[str, Any]] | None = None,
) -> Scene:
    """A firing unit `s` of `figures` 1" bases and a target unit `t` `gap` inches ahead."""
    s_attrs = {
        "type": "infantry",
        "class": "c",
        "weapon": "rifle",
        "formation": "unformed",
        "shock": 0,
        **(shooter or {}),
    }
    t_attrs = {
        "type": "infantry",
        "class": "c",
        "weapon": "musket",
        "formation": "unformed",
        "shock": 0,
        **(target or {}),
    }
    y_t = SHOOTER_FRONT + gap + 0.5
    # An attribute given as None is left out of the scene.
    s_attrs = {k: v for k, v in s_attrs.items() if v is not None}
    units = [
        unit("s", "british", _rank("s", figures, 10, 90) + (extra_bases or []), **s_attrs),
        unit("t", "zulu", target_bases or [base("t-1", 10, y_t, 270, 1, 1)], **t_attrs),
    ]
    return make_scene(
        "colonial-adventure", units, unit="in", width=72, depth=72, terrain=pieces or []
    )


def shoot(scene: Scene, a: str = "s", b: str = "t") -> dict[str, Any]:
    return RS.resolve(scene, "shoot", [a, b]).as_json()


# --------------------------------------------------------------------------------------------
# Turn sequence (lines 5-12) and actions (lines 16-33)


def test_the_phases_are_the_turn_sequence() -> None:
    # Lines 7-12: Artillery Phase, Initiative, 1. and 2. Action Phase, Close Combat, Moral Phase.
    assert RS.phases == (
        "artillery",
        "initiative",
        "action-1",
        "action-2",
        "close-combat",
        "morale",
    )


@pytest.mark.parametrize(
    ("attrs", "roles", "expected"),
    [
        # rifle: reload rifle 1 (line 27)
        ({"type": "infantry", "weapon": "rifle"}, [], {"move": 1, "fire": 1, "reload rifle": 1}),
        # musket: reload musket 2 (line 28)
        ({"type": "infantry", "weapon": "musket"}, [], {"reload musket": 2}),
        # mounted infantry: dismounting / mounting 1 (line 24)
        (
            {"type": "mounted-infantry", "weapon": "carbine", "mounted": True},
            [],
            {"dismount / mount": 1},
        ),
        # a gun: limber 1 (line 25), reload artillery piece 2 (line 29)
        (
            {"type": "artillery", "weapon": "light-gun"},
            [],
            {"limber / unlimber": 1, "reload artillery piece": 2},
        ),
        # 5 gunners dead: 2 + 5 // 2 = 4 actions (line 114: +1 per two gunners dead)
        (
            {"type": "artillery", "weapon": "heavy-gun", "casualties": 5},
            [],
            {"reload artillery piece": 4},
        ),
        # machine gun: reload 1 (line 30), fix jam 2 (line 31)
        (
            {"type": "artillery", "weapon": "repeating-gun"},
            [],
            {"reload machine gun": 1, "fix jammed machine gun": 2},
        ),
        # a commander: -1 shock point 1, attack order 1 (lines 32-33)
        (
            {"type": "infantry", "weapon": "rifle"},
            ["commander"],
            {"-1 shock point (commander)": 1, "attack order (commander)": 1},
        ),
        # obstacles (lines 21-23)
        (
            {"type": "cavalry", "weapon": "carbine"},
            [],
            {
                "cross a low obstacle": 1,
                "cross a high obstacle": 2,
                "enter an unbarred building": 1,
            },
        ),
    ],
)
def test_action_costs(attrs: dict[str, Any], roles: list[str], expected: dict[str, int]) -> None:
    bases = [base("u-1", 10, 10, 90, 1, 1)] + [
        base(f"u-r{i}", 12 + i, 10, 90, diameter=1, role=r) for i, r in enumerate(roles)
    ]
    scene = make_scene(
        "colonial-adventure",
        [unit("u", "a", bases, **{"class": "c", "shock": 0, **attrs})],
        unit="in",
    )
    data = RS.resolve(scene, "actions", ["u"]).as_json()
    assert data["actions_per_turn"] == 2  # line 16
    costs = {c["action"]: c["cost"] for c in data["costs"]}
    for action, cost in expected.items():
        assert costs[action] == cost


def test_no_reload_is_listed_for_a_carbine() -> None:
    # Lines 27-31 price reloading rifles, muskets, artillery pieces and machine guns only.
    scene = duel(5, {"weapon": "carbine", "type": "cavalry"})
    data = RS.resolve(scene, "actions", ["s"]).as_json()
    assert not any("reload" in c["action"] for c in data["costs"])
    assert "carbine" in data["notes"][0]


# --------------------------------------------------------------------------------------------
# Movement (lines 37-51)


@pytest.mark.parametrize(
    ("attrs", "inches", "dice_count", "sides"),
    [
        ({"type": "infantry"}, 6, 1, 6),  # lines 39, 47
        ({"type": "mounted-infantry", "mounted": True}, 8, 2, 6),  # lines 40, 48
        ({"type": "mounted-infantry", "mounted": False}, 6, 1, 6),  # dismounted: on foot
        ({"type": "cavalry"}, 12, 3, 6),  # lines 41, 49
        ({"type": "artillery", "weapon": "light-gun", "formation": "limbered"}, 8, 2, 6),  # 42, 50
        ({"type": "artillery", "weapon": "light-gun", "formation": "unlimbered"}, 4, 1, 3),
    ],
)
def test_movement_allowance_and_action_dice(
    attrs: dict[str, Any], inches: int, dice_count: int, sides: int
) -> None:
    scene = duel(20, attrs)
    data = RS.resolve(scene, "move", ["s"]).as_json()
    assert data["allowance"] == {"value": pytest.approx(inches), "unit": "in"}
    am = data["action_movement"]
    assert (am["dice"], am["sides"]) == (dice_count, sides)
    # The mean of nD(s) is n (s + 1) / 2.
    assert am["mean_inches"] == pytest.approx(dice_count * (sides + 1) / 2)


def test_move_readable_lines() -> None:
    # Infantry: 6" a Move action (line 39), 1D6 of Action Movement, mean 3.5" (line 47); the
    # move costs 1 (line 20) of the 2 actions a turn (line 16); no passing through (line 55).
    lines = RS.resolve(duel(20, {"type": "infantry"}), "move", ["s"]).lines
    assert lines[:3] == (
        f's moves as infantry: 6.0" a Move action ({SHEET}:39); Action Movement 1D6, mean 3.5" '
        f"({SHEET}:47)",
        f"actions: move 1 ({SHEET}:20); 1 of 2 a turn ({SHEET}:16)",
        f"no troops may pass through other units ({SHEET}:55)",
    )


def test_cavalry_action_movement_distribution() -> None:
    # 3D6: P(18) = 1/216, P(10) = 27/216 (the 27 ways of making 10 with three dice).
    data = RS.resolve(duel(20, {"type": "cavalry"}), "move", ["s"]).as_json()
    exact = data["action_movement"]["exact"]
    assert Fraction(exact[18]) == Fraction(1, 216)
    assert Fraction(exact[10]) == Fraction(27, 216)
    assert Fraction(exact[2]) == 0


@pytest.mark.parametrize(
    ("piece", "spent", "allowed"),
    [
        (terrain("h", "hedge", rect(0, 30, 20, 30.3)), 2, True),  # move 1 + low obstacle 1
        (terrain("w", "wall", rect(0, 30, 20, 30.3)), 2, True),  # a wall is a low obstacle
        (terrain("f", "fortification", rect(0, 30, 20, 33)), 3, False),  # 1 + high 2 > 2
        (terrain("b", "building", rect(0, 30, 5, 35)), 2, True),  # 1 + unbarred building 1
        (terrain("x", "woods", rect(0, 30, 5, 35), obstacle="high"), 3, False),  # marked high
    ],
)
def test_move_prices_obstacles_and_buildings(
    piece: dict[str, Any], spent: int, allowed: bool
) -> None:
    scene = duel(20, pieces=[piece])
    data = RS.resolve(scene, "move", ["s", piece["id"]]).as_json()
    assert data["actions_spent"] == spent
    assert data["allowed"] is allowed  # two actions a turn (line 16)


@pytest.mark.parametrize(
    ("piece", "words"),
    [
        (terrain("b", "building", rect(0, 30, 5, 35), barred=True), "unbarred"),
        (terrain("x", "woods", rect(0, 30, 5, 35)), "no action cost"),
        (terrain("x", "woods", rect(0, 30, 5, 35), obstacle="medium"), "'low' or 'high'"),
    ],
)
def test_move_refuses_terrain_the_sheet_does_not_price(piece: dict[str, Any], words: str) -> None:
    with pytest.raises(QuestionError, match=words):
        RS.resolve(duel(20, pieces=[piece]), "move", ["s", piece["id"]])


# --------------------------------------------------------------------------------------------
# Shooting: the need by weapon and band (lines 86-96, header of 86-89 at line 165)


@pytest.mark.parametrize(
    ("weapon", "kind", "gap", "band", "need"),
    [
        ("musket", "infantry", 5, "0-9", 6),  # line 86: 6 6 - -
        ("musket", "infantry", 12, "9-18", 6),
        ("musket", "infantry", 20, "out-of-range", None),
        ("rifle", "infantry", 5, "0-9", 5),  # line 87: 5-6 5-6 6 -
        ("rifle", "infantry", 20, "18-27", 6),
        ("rifle", "infantry", 30, "out-of-range", None),
        ("carbine", "cavalry", 5, "0-9", 5),  # line 88: 5-6 6 - -
        ("carbine", "cavalry", 12, "9-18", 6),
        ("pistol", "cavalry", 5, "0-9", 6),  # line 89: 6 - - -
        ("throwing-weapon", "infantry", 12, "out-of-range", None),
        ("light-gun", "artillery", 5, "0-9", 4),  # line 94: 4-6 4-6 5-6 5-6 6
        ("light-gun", "artillery", 30, "27-36", 5),
        ("light-gun", "artillery", 50, "36+", 6),
        ("heavy-gun", "artillery", 50, "36+", 5),  # line 95: ... 5-6 at 36"+
        ("repeating-gun", "artillery", 12, "9-18", 5),  # line 96: 4-6 5-6 6 6 -
        ("repeating-gun", "artillery", 40, "out-of-range", None),
    ],
)
def test_need_by_weapon_and_band(
    weapon: str, kind: str, gap: float, band: str, need: int | None
) -> None:
    # A gun fires unlimbered (line 25): its formation is read when it fires.
    gun = {"formation": "unlimbered"} if kind == "artillery" else {}
    data = shoot(duel(gap, {"weapon": weapon, "type": kind, **gun}, figures=1))
    assert data["distance"] == {"value": pytest.approx(gap), "unit": "in"}
    assert data["band"] == band
    if need is None:
        assert data["allowed"] is False
        assert data["rolls"] == []
    else:
        assert data["allowed"] is True
        assert data["rolls"][0]["purpose"] == "to hit"
        assert data["rolls"][0]["need"] == need
        assert data["rolls"][0]["p_success"] == pytest.approx((7 - need) / 6)


def test_formation_is_plus_one_on_the_roll() -> None:
    # Line 84: a rifle at 5" needs 5-6; in formation 4-6.
    data = shoot(duel(5, {"formation": "line"}))
    assert data["need"] == 4
    assert data["rolls"][0]["p_success"] == pytest.approx(1 / 2)


def test_a_band_edge_is_too_close_to_call() -> None:
    # Exactly 9": the 0-9" band (edges included), but within the 2 mm default uncertainty.
    data = shoot(duel(9))
    assert data["band"] == "0-9"
    assert data["band_threshold"]["verdict"] == "too close to call"


# --------------------------------------------------------------------------------------------
# Shooting: how many dice (lines 63-83)


@pytest.mark.parametrize(
    ("figures", "cls", "dice_count"),
    [
        (10, "a", 12),  # 10 + 10 // 4 = 12 (line 72)
        (10, "b", 12),  # 10 + 10 // 5 = 12 (line 73)
        (10, "c", 10),  # no adjustment (line 74)
        (10, "d", 8),  # 10 - 10 // 5 = 8 (line 75)
        (8, "a", 10),  # 8 + 8 // 4 = 10
        (8, "b", 9),  # 8 + 8 // 5 = 9
        (8, "d", 7),  # 8 - 8 // 5 = 7
        (3, "a", 3),  # fewer than four men: no extra die
    ],
)
def test_troop_class_adjustment(figures: int, cls: str, dice_count: int) -> None:
    assert shoot(duel(5, {"class": cls}, figures=figures))["dice"] == dice_count


def test_musicians_and_flag_bearers_do_not_fire_leaders_and_commanders_add() -> None:
    extra = [
        base("s-m", 20, 10, 90, diameter=1, role="musician"),
        base("s-f", 21.2, 10, 90, diameter=1, role="flag-bearer"),
        base("s-l", 22.4, 10, 90, diameter=1, role="leader"),
        base("s-c", 23.6, 10, 90, diameter=1, role="commander"),
    ]
    # 4 men + leader + commander fire: 6 dice (line 65, not the musician or flag bearer);
    # leader +1 (line 79), commander +3 (line 80): 10 dice. Class C: no adjustment.
    assert shoot(duel(5, figures=4, extra_bases=extra))["dice"] == 10


@pytest.mark.parametrize(("shock", "dice_count"), [(1, 4), (2, 3), (3, 3), (4, 2), (9, 0)])
def test_shock_on_the_firer(shock: int, dice_count: int) -> None:
    # Line 81: -1 die per two shock points: 4 - shock // 2, never below 0.
    assert shoot(duel(5, {"shock": shock}))["dice"] == dice_count


@pytest.mark.parametrize(
    ("figures", "kind", "cover", "dice_count"),
    [
        (12, "woods", "cover", 8),  # 12 - ceil(12 / 3) = 8 (line 82)
        (10, "woods", "cover", 6),  # 10 - ceil(10 / 3) = 10 - 4 = 6
        (10, "building", "cover", 6),
        (11, "fortification", "fortification", 5),  # 11 - ceil(11 / 2) = 5 (line 83)
        (10, "fortification", "fortification", 5),  # 10 - 5
    ],
)
def test_cover_and_fortification_cut_the_dice(
    figures: int, kind: str, cover: str, dice_count: int
) -> None:
    # The target stands in the piece 5" away; the piece starts just in front of it.
    y_t = SHOOTER_FRONT + 5 + 0.5
    piece = terrain("p", kind, rect(8, y_t - 1, 12, y_t + 2))
    data = shoot(duel(5, figures=figures, pieces=[piece]))
    assert data["cover"] == cover
    assert data["dice"] == dice_count


def test_hard_cover_in_the_scene_is_a_fortification() -> None:
    y_t = SHOOTER_FRONT + 5 + 0.5
    piece = terrain("p", "building", rect(8, y_t - 1, 12, y_t + 2), cover="hard")
    data = shoot(duel(5, figures=6, pieces=[piece]))
    assert (data["cover"], data["dice"]) == ("fortification", 3)  # 6 - ceil(6 / 2)


@pytest.mark.parametrize(
    ("weapon", "dice_count"), [("light-gun", 8), ("heavy-gun", 12), ("repeating-gun", 14)]
)
def test_guns_roll_fixed_dice(weapon: str, dice_count: int) -> None:
    # Lines 66-68; a crew of three does not add dice per man.
    bases = [base("s-1", 10, 9.5, 90, 2, 3, figures=3)]
    units = [
        unit(
            "s", "british", bases, type="artillery", weapon=weapon, formation="unlimbered", shock=0
        ),
        unit(
            "t",
            "zulu",
            [base("t-1", 10, 16, 270, 1, 1)],
            type="infantry",
            formation="unformed",
            shock=0,
        ),
    ]
    scene = make_scene("colonial-adventure", units, unit="in")
    assert shoot(scene)["dice"] == dice_count


# --------------------------------------------------------------------------------------------
# Shooting: arc and sight (line 61)


def test_a_target_behind_the_firer_is_out_of_arc() -> None:
    # The target 5" behind the firer's rear edge (9.5"): outside 180 degrees to the front.
    scene = duel(5, target_bases=[base("t-1", 10, 9.5 - 5 - 0.5, 90, 1, 1)])
    data = shoot(scene)
    assert data["in_arc"] is False
    assert data["allowed"] is False


def test_a_target_level_with_the_front_edge_is_in_arc() -> None:
    # Straight to the side, its edge on the line of the front edge: 180 degrees includes it.
    scene = duel(5, target_bases=[base("t-1", 20, 11, 90, 1, 1)])
    assert shoot(scene)["in_arc"] is True


def test_woods_between_block_sight() -> None:
    wood = terrain("w", "woods", rect(5, 12, 15, 14))
    data = shoot(duel(5, pieces=[wood]))
    assert data["in_sight"] is False
    assert data["allowed"] is False


# --------------------------------------------------------------------------------------------
# Shooting: hits and their effect (lines 98-120)


def test_hits_distribution_and_effects() -> None:
    # One rifle at 5" needs 5-6: P(hit) = 1/3. Each hit kills on 5-6 (1/3), shocks on 3-4 (1/3):
    # P(kill) = 1/3 * 1/3 = 1/9, P(shock) = 1/9.
    data = shoot(duel(5, figures=1))
    assert [Fraction(p) for p in data["hits"]["exact"]] == [Fraction(2, 3), Fraction(1, 3)]
    assert Fraction(data["kills"]["exact"][1]) == Fraction(1, 9)
    assert Fraction(data["shock_points"]["exact"][1]) == Fraction(1, 9)


def test_two_dice_needing_six() -> None:
    # Two muskets at 5": P(0) = (5/6)^2 = 25/36, P(1) = 2 * 5/36 = 10/36, P(2) = 1/36.
    data = shoot(duel(5, {"weapon": "musket"}, figures=2))
    assert [Fraction(p) for p in data["hits"]["exact"]] == [
        Fraction(25, 36),
        Fraction(10, 36),
        Fraction(1, 36),
    ]


def test_hits_on_mounted_men_split_horse_and_man() -> None:
    # P(hit) = 1/3; line 110: 1-3 horse, 4-6 man (1/2 each); then 5-6 kills (1/3):
    # man killed 1/3 * 1/2 * 1/3 = 1/18, horse killed 1/18, shock 1/3 * 1/3 = 1/9.
    data = shoot(duel(5, target={"type": "cavalry"}, figures=1))
    assert Fraction(data["kills"]["exact"][1]) == Fraction(1, 18)
    assert Fraction(data["horses_killed"]["exact"][1]) == Fraction(1, 18)
    assert Fraction(data["shock_points"]["exact"][1]) == Fraction(1, 9)
    assert data["rolls"][1]["purpose"] == "man not horse"
    assert data["rolls"][1]["need"] == 4


def test_a_leader_is_hit_on_a_d10_at_most_the_men_killed() -> None:
    # Line 120: one die kills with 1/9; then the leader's D10 must score 1: 1/9 * 1/10 = 1/90.
    target_bases = [
        base("t-1", 10, 16, 270, 1, 1),
        base("t-l", 11.2, 16, 270, diameter=1, role="leader"),
    ]
    data = shoot(duel(5, figures=1, target_bases=target_bases))
    assert data["leader_hit"][0]["base"] == "t-l"
    assert Fraction(data["leader_hit"][0]["exact"]) == Fraction(1, 90)


def test_jam_chance_small_cases_by_hand() -> None:
    # One die: a 1 is more 1s than 6s: 1/6. Two dice: (1, other) twice 2 * 1/6 * 4/6 = 8/36,
    # (1, 1) 1/36: 9/36 = 1/4.
    assert jam_chance(1) == Fraction(1, 6)
    assert jam_chance(2) == Fraction(1, 4)


def test_repeating_gun_jam_in_fortification() -> None:
    # 14 dice, target in fortification: 14 - 7 = 7 dice (line 83). By symmetry
    # P(more 1s than 6s) = (1 - P(as many 1s as 6s)) / 2, and P(equal) sums k ones and k sixes:
    # C(7, k) C(7 - k, k) (1/6)^2k (4/6)^(7 - 2k).
    equal = sum(
        comb(7, k) * comb(7 - k, k) * Fraction(1, 36) ** k * Fraction(2, 3) ** (7 - 2 * k)
        for k in range(4)
    )
    piece = terrain("k", "fortification", rect(5, 15, 15, 20))
    bases = [base("s-1", 10, 9.5, 90, 2, 3, figures=3)]
    units = [
        unit(
            "s",
            "british",
            bases,
            type="artillery",
            weapon="repeating-gun",
            formation="unlimbered",
            shock=0,
        ),
        unit(
            "t",
            "zulu",
            [base("t-1", 10, 16, 270, 1, 1)],
            type="infantry",
            formation="unformed",
            shock=0,
        ),
    ]
    data = shoot(make_scene("colonial-adventure", units, unit="in", terrain=[piece]))
    assert data["dice"] == 7
    assert Fraction(data["jam"]["exact"]) == (1 - equal) / 2


# --------------------------------------------------------------------------------------------
# Close combat (lines 122-150)


def melee_scene(
    attacker: dict[str, Any],
    defender: dict[str, Any],
    *,
    a_figures: int = 1,
    d_figures: int = 1,
    a_bases: list[dict[str, Any]] | None = None,
    d_bases: list[dict[str, Any]] | None = None,
    pieces: list[dict[str, Any]] | None = None,
) -> Scene:
    """Attacker `a` facing up, defender `d` in base contact facing it (edges at y = 10.5")."""
    a_attrs = {
        "type": "infantry",
        "class": "c",
        "weapon": "rifle",
        "formation": "formed",
        "shock": 0,
        **attacker,
    }
    d_attrs = {
        "type": "infantry",
        "class": "c",
        "weapon": "rifle",
        "formation": "formed",
        "shock": 0,
        **defender,
    }
    units = [
        unit("a", "british", a_bases or _rank("a", a_figures, 10, 90), **a_attrs),
        unit("d", "zulu", d_bases or _rank("d", d_figures, 11, 270), **d_attrs),
    ]
    return make_scene("colonial-adventure", units, unit="in", terrain=pieces or [])


def melee(scene: Scene) -> dict[str, Any]:
    return RS.resolve(scene, "melee", ["a", "d"]).as_json()


def test_melee_pool_with_every_additive_modifier() -> None:
    # Attacker: 5 men + musician (no die) + leader + commander (line 124: 7 men fight),
    # leader +1 (126), commander +3 (127), 2 attack actions +2 (128), 1 supporting unit +3 (129),
    # class A against C: two steps higher, +4 (130), 3 shock points -1 (131):
    # 7 + 1 + 3 + 2 + 3 + 4 - 1 = 19.
    bases = [
        *_rank("a", 5, 10, 90),
        base("a-m", 20, 10, 90, diameter=1, role="musician"),
        base("a-l", 21.2, 10, 90, diameter=1, role="officer"),
        base("a-c", 22.4, 10, 90, diameter=1, role="commander"),
    ]
    scene = melee_scene(
        {"class": "a", "attack_actions": 2, "supporting_units": 1, "shock": 3},
        {"class": "c"},
        a_bases=bases,
    )
    data = melee(scene)
    assert data["in_contact"] is True
    assert data["sides"][0]["dice"] == 19
    assert data["sides"][1]["dice"] == 1  # the lower class gets no status dice


def test_melee_readable_lines_say_the_result_table() -> None:
    # The same one-man fight, as the players read it: a draw 26/36 = 13/18 (72.2%) and each side
    # defeated by 1 with 5/36 (13.9%), thrown back 4" (lines 146-147); more cannot happen.
    lines = RS.resolve(melee_scene({}, {}), "melee", ["a", "d"]).lines
    assert lines[0] == "close combat: a attacks d (in base contact)"
    assert lines[3].startswith("draw 13/18 (72.2%): fight again immediately")
    assert lines[3].endswith(f'retire 2" ({SHEET}:146)')
    assert lines[4] == (
        f'd defeated by 1: 5/36 (13.9%), thrown back 4.0", thrown back facing the enemy '
        f"({SHEET}:147)"
    )
    assert lines[5].startswith("d defeated by 2: 0 (0.0%)")


@pytest.mark.parametrize(
    ("case", "attacker_dice", "defender_dice"),
    [
        # Defender in a fortification (line 132 +33%): 9 + ceil(9 / 3) = 12.
        ("fortification", 9, 12),
        # Defender hit in the flank (line 133 -50%): 9 - ceil(9 / 2) = 4.
        ("flank", 9, 4),
        # Cavalry against unformed infantry in the open (line 134 +100%): 9 + 9 = 18.
        ("cavalry-open", 18, 9),
        # Cavalry against a fortification (line 135 -66%): 9 - ceil(9 * 2 / 3) = 3;
        # the defender still has +33%: 12.
        ("cavalry-fort", 3, 12),
    ],
)
def test_melee_percentages(case: str, attacker_dice: int, defender_dice: int) -> None:
    attacker: dict[str, Any] = {}
    defender: dict[str, Any] = {}
    pieces: list[dict[str, Any]] = []
    d_bases = None
    if case in ("fortification", "cavalry-fort"):
        pieces = [terrain("k", "fortification", rect(0, 10.5, 40, 20))]
    if case == "flank":
        # The defender faces right (0 degrees), its right side on the attacker's front edge:
        # the attacker stands past the diagonals of the defender's nearest base.
        d_bases = [base(f"d-{i + 1}", 10 + 1.1 * i, 11, 0, 1, 1) for i in range(9)]
    if case.startswith("cavalry"):
        attacker = {"type": "cavalry", "weapon": "carbine"}
    if case == "cavalry-open":
        defender = {"formation": "unformed"}
    scene = melee_scene(
        attacker, defender, a_figures=9, d_figures=9, d_bases=d_bases, pieces=pieces
    )
    data = melee(scene)
    assert data["sides"][0]["dice"] == attacker_dice
    assert data["sides"][1]["dice"] == defender_dice


def test_melee_one_die_each_result_table() -> None:
    # One man each: a 6 kills (line 138), P = 1/6 each side.
    # Defender defeated by 1: attacker kills, defender does not: 1/6 * 5/6 = 5/36; the same for
    # the attacker; draw 1 - 10/36 = 26/36. Infantry is thrown back 4" (line 147).
    data = melee(melee_scene({}, {}))
    results = {(r["loser"], r["result"]): r for r in data["results"]}
    assert Fraction(results[(None, "draw")]["exact"]) == Fraction(26, 36)
    assert Fraction(results[("d", "defeated by 1")]["exact"]) == Fraction(5, 36)
    assert Fraction(results[("a", "defeated by 1")]["exact"]) == Fraction(5, 36)
    assert Fraction(results[("d", "defeated by 2")]["exact"]) == 0
    assert results[("d", "defeated by 1")]["thrown_back"]["value"] == pytest.approx(4)
    assert Fraction(data["sides"][0]["shock_points"]["exact"][1]) == Fraction(1, 6)  # each 5


@pytest.mark.parametrize(
    ("label", "foot", "horse"),
    [
        ("defeated by 1", 4, 8),
        ("defeated by 2", 6, 12),
        ("defeated by 3", 8, 16),
        ("defeated by 4 or more", 10, 20),
    ],
)
def test_thrown_back_distances(label: str, foot: float, horse: float) -> None:
    # Lines 147-150: foot and cavalry distances.
    data = melee(melee_scene({"type": "cavalry", "weapon": "carbine"}, {}))
    results = {(r["loser"], r["result"]): r for r in data["results"]}
    assert results[("d", label)]["thrown_back"]["value"] == pytest.approx(foot)
    assert results[("a", label)]["thrown_back"]["value"] == pytest.approx(horse)


def test_defeated_by_four_or_more_sums_the_tail() -> None:
    # Attacker 4 men, defender 1 man: the defender loses by 4 only when all four attacker dice
    # are 6 and the defender's is not: (1/6)^4 * 5/6 = 5/7776.
    data = melee(melee_scene({}, {}, a_figures=4))
    results = {(r["loser"], r["result"]): r for r in data["results"]}
    assert Fraction(results[("d", "defeated by 4 or more")]["exact"]) == Fraction(5, 7776)


def test_fighters_are_plus_one_on_the_roll() -> None:
    # Line 136: a 5 or 6 kills (1/3), a 4 is a shock point (1/6).
    data = melee(melee_scene({"fighters": True}, {}))
    side = data["sides"][0]
    assert side["rolls"][0]["need"] == 5
    assert Fraction(side["kills"]["exact"][1]) == Fraction(1, 3)
    assert Fraction(side["shock_points"]["exact"][1]) == Fraction(1, 6)


def test_units_apart_are_not_in_contact() -> None:
    scene = melee_scene({}, {}, d_bases=[base("d-1", 10, 14, 270, 1, 1)])
    assert melee(scene)["in_contact"] is False


# --------------------------------------------------------------------------------------------
# Morale (lines 152-161)


@pytest.mark.parametrize(
    ("cls", "shock", "status", "retire"),
    [
        ("b", 5, "steady", 0),  # 5 shock, 5 men: not more than the men
        ("a", 7, "retire", 2),  # (7 - 5) * 1" (line 156)
        ("b", 7, "retire", 4),  # (7 - 5) * 2" (line 157)
        ("c", 6, "retire", 3),  # (6 - 5) * 3" (line 158)
        ("d", 9, "retire", 16),  # (9 - 5) * 4" (line 159)
        ("c", 10, "broken", 0),  # 10 = twice 5 men (line 161)
    ],
)
def test_morale(cls: str, shock: int, status: str, retire: float) -> None:
    scene = duel(20, {"class": cls, "shock": shock}, figures=5)
    data = RS.resolve(scene, "morale", ["s"]).as_json()
    assert (data["status"], data["men"]) == (status, 5)
    assert data["retire"]["value"] == pytest.approx(retire)


# --------------------------------------------------------------------------------------------
# Initiative (line 8)


def test_initiative_plus_one_to_the_side_with_more_leaders() -> None:
    # British (a leader) roll 1D6+1 against 1D6: they win when y <= x, 21 of 36; tie when
    # y = x + 1, 5 of 36; the Zulus win 10 of 36.
    leader = [base("s-l", 20, 10, 90, diameter=1, role="leader")]
    data = RS.resolve(duel(20, extra_bases=leader), "initiative", []).as_json()
    sides = {s["side"]: s for s in data["sides"]}
    assert Fraction(sides["british"]["exact"]) == Fraction(21, 36)
    assert Fraction(sides["zulu"]["exact"]) == Fraction(10, 36)
    assert Fraction(data["tie_exact"]) == Fraction(5, 36)


# --------------------------------------------------------------------------------------------
# Suggest


def test_suggest_lists_what_each_phase_resolves() -> None:
    scene = melee_scene({"shock": 0}, {"shock": 3})  # one man each in contact; d: 3 > 1 man
    data = RS.resolve(scene, "suggest", []).as_json()
    assert data["phases"] == list(RS.phases)
    kinds = {(i["phase"], i["kind"], tuple(i["args"])) for i in data["items"]}
    assert ("close-combat", "melee", ("a", "d")) in kinds
    assert ("morale", "morale", ("d",)) in kinds
    assert ("initiative", "initiative", ()) in kinds
    assert ("action-1", "shoot", ("a", "d")) in kinds  # 0" away, rifle 0-9", in arc


def test_suggest_leaves_off_a_shot_the_sheet_refuses() -> None:
    # `s` faces +y and `t` stands 5" behind its rear edge, facing it: both muskets and rifles
    # reach 5" (the 0-9" band, lines 86-87), but only `t` has its enemy in its 180 degree arc
    # (line 61). Each shot is asked of the action phases; `s`'s, refused, is never listed.
    scene = duel(5, target_bases=[base("t-1", 10, 9.5 - 5 - 0.5, 90, 1, 1)])
    assert Candidate("shoot", ("s", "t")) in RS.candidates(scene, "action-1")
    assert shoot(scene)["allowed"] is False
    data = RS.resolve(scene, "suggest", []).as_json()
    shots = {(i["phase"], *i["args"]) for i in data["items"] if i["kind"] == "shoot"}
    assert shots == {("action-1", "t", "s"), ("action-2", "t", "s")}


def test_suggest_artillery_phase_only_shoots_guns() -> None:
    bases = [base("g-1", 30, 9.5, 90, 2, 3, figures=3)]
    scene = make_scene(
        "colonial-adventure",
        [
            unit(
                "g",
                "british",
                bases,
                type="artillery",
                weapon="light-gun",
                formation="unlimbered",
                shock=0,
            ),
            unit(
                "s",
                "british",
                _rank("s", 2, 10, 90),
                type="infantry",
                weapon="rifle",
                **{"class": "c"},
                formation="unformed",
                shock=0,
            ),
            unit(
                "t",
                "zulu",
                [base("t-1", 10, 16, 270, 1, 1)],
                type="infantry",
                formation="unformed",
                shock=0,
            ),
        ],
        unit="in",
    )
    data = RS.resolve(scene, "suggest", ["artillery"]).as_json()
    assert [i["args"] for i in data["items"]] == [["g", "t"]]


# --------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("attrs", "words"),
    [
        ({"class": "e"}, ["units[0].class", "'s'", "class", "'a', 'b', 'c' or 'd'"]),
        ({"type": "dragoons"}, ["units[0].type", "'s'", "type", "'mounted-infantry'"]),
        ({"formation": "blob"}, ["units[0].formation", "'s'", "formation", "'unformed'"]),
    ],
)
def test_bad_attributes_name_the_unit_and_accepted_values(
    attrs: dict[str, Any], words: list[str]
) -> None:
    # The declared fields (`unit_fields`) refuse a word the sheet does not use when the scene
    # is read, before any question (it was refused by the first question that read it).
    with pytest.raises(SceneError) as err:
        duel(5, attrs)
    for word in words:
        assert word in str(err.value)


def test_a_weapon_of_the_wrong_arm_names_the_unit_and_accepted_values() -> None:
    with pytest.raises(QuestionError) as err:
        shoot(duel(5, {"weapon": "heavy-gun"}))
    for word in ["'s'", "heavy-gun", "'musket'"]:
        assert word in str(err.value)


def test_an_unknown_role_names_the_base() -> None:
    extra = [base("s-x", 20, 10, 90, diameter=1, role="drummer-boy")]
    with pytest.raises(QuestionError, match=r"'s-x'.*'musician'"):
        shoot(duel(5, extra_bases=extra))


def test_mounted_infantry_needs_mounted() -> None:
    with pytest.raises(QuestionError, match=r"'t'.*mounted.*true or false"):
        shoot(duel(5, target={"type": "mounted-infantry", "weapon": "carbine"}))


def test_shooting_at_a_friend_or_oneself_is_refused() -> None:
    friends = make_scene(
        "colonial-adventure",
        [
            unit("s", "british", _rank("s", 2, 10, 90), type="infantry", weapon="rifle"),
            unit("f", "british", [base("f-1", 10, 16, 270, 1, 1)], type="infantry"),
        ],
        unit="in",
    )
    with pytest.raises(QuestionError, match="both on side 'british'"):
        shoot(friends, "s", "f")
    with pytest.raises(QuestionError, match="same unit"):
        shoot(duel(5), "s-1", "s")


# --------------------------------------------------------------------------------------------
# Through the real command line


def _cli(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webui.cli", "resolve", str(path), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def _write(tmp_path: Path, scene_json: dict[str, Any]) -> Path:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene_json), encoding="utf-8")
    return path


def _duel_doc(**shooter: Any) -> dict[str, Any]:
    s_attrs = {
        "type": "infantry",
        "class": "c",
        "weapon": "rifle",
        "formation": "unformed",
        "shock": 0,
        **shooter,
    }
    return scene_doc(
        "colonial-adventure",
        [
            unit("s", "british", _rank("s", 3, 10, 90), **s_attrs),
            unit(
                "t",
                "zulu",
                [base("t-1", 10, 16, 270, 1, 1)],
                type="infantry",
                **{"class": "c"},
                formation="unformed",
                shock=0,
            ),
        ],
        unit="in",
    )


def test_cli_shoot_json(tmp_path: Path) -> None:
    out = _cli(_write(tmp_path, _duel_doc()), "shoot", "s", "t", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # 5" apart: rifle 0-9" needs 5-6 (line 87); 3 men, class C: 3 dice.
    assert data["distance"] == {"value": pytest.approx(5), "unit": "in"}
    assert (data["band"], data["allowed"]) == ("0-9", True)
    first = data["rolls"][0]
    assert (first["purpose"], first["dice"], first["sides"], first["need"]) == ("to hit", 3, 6, 5)
    assert first["p_success"] == pytest.approx(1 / 3)
    assert (data["action"], data["ruleset"], data["shooter"], data["target"]) == (
        "shoot",
        "colonial-adventure",
        "s",
        "t",
    )


def test_cli_readable_answer(tmp_path: Path) -> None:
    out = _cli(_write(tmp_path, _duel_doc()), "shoot", "s", "t")
    assert out.returncode == 0
    assert "3D6 to hit: 5+ each, 1/3 a die" in out.stdout


def test_cli_bad_class_exits_2_with_one_line(tmp_path: Path) -> None:
    out = _cli(_write(tmp_path, _duel_doc(**{"class": "z"})), "shoot", "s", "t", "--json")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1
    assert "'s'" in out.stderr and "'a', 'b', 'c' or 'd'" in out.stderr
    assert "Traceback" not in out.stderr


def test_cli_suggest_bad_phase(tmp_path: Path) -> None:
    out = _cli(_write(tmp_path, _duel_doc()), "suggest", "lunch")
    assert out.returncode == 2
    assert "'artillery'" in out.stderr


def test_the_example_scene_resolves(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "colonial-adventure.json"
    out = _cli(example, "suggest", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert {i["kind"] for i in data["items"]} >= {"shoot", "melee", "initiative"}


def test_a_leader_is_hit_in_close_combat_as_in_shooting() -> None:
    # Line 140: as shooting. One attacking man kills with a 6 (1/6); the leader's D10 must
    # then score 1: 1/6 * 1/10 = 1/60.
    d_bases = [
        base("d-1", 10, 11, 270, 1, 1),
        base("d-l", 11.2, 11, 270, diameter=1, role="leader"),
    ]
    data = melee(melee_scene({}, {}, d_bases=d_bases))
    assert [(h["base"], Fraction(h["exact"])) for h in data["leader_hit"]] == [
        ("d-l", Fraction(1, 60))
    ]


# --------------------------------------------------------------------------------------------
# The arc and sight questions shooting asks agree with the shared geometry


def _random_scene(seed: int) -> Scene:
    rng = random.Random(seed)
    bases = []
    for i in range(16):
        if rng.random() < 0.3:
            extra: dict[str, Any] = {"diameter": rng.uniform(0.5, 2)}
            bases.append(
                base(f"b{i}", rng.uniform(0, 40), rng.uniform(0, 40), rng.uniform(0, 360), **extra)
            )
        else:
            bases.append(
                base(
                    f"b{i}",
                    rng.uniform(0, 40),
                    rng.uniform(0, 40),
                    rng.uniform(0, 360),
                    rng.uniform(0.5, 3),
                    rng.uniform(0.5, 3),
                )
            )
    pieces = [
        terrain("w", "woods", rect(10, 10, 18, 16)),
        terrain("h", "hedge", rect(22, 5, 30, 5.4)),
        terrain("k", "fortification", rect(5, 25, 12, 32)),
        terrain("m", "building", [[28, 25], [34, 27], [31, 33]]),
    ]
    return make_scene(
        "colonial-adventure",
        [unit(f"u{i}", f"side{i % 2}", [b]) for i, b in enumerate(bases)],
        unit="in",
        terrain=pieces,
    )


@pytest.mark.parametrize("seed", range(6))
def test_screens_agree_with_the_shared_geometry(seed: int) -> None:
    scene = _random_scene(seed)
    table = Table(scene)
    blocking = [
        geo.Obstacle(t.id, np.asarray(t.polygon), see_into=geo.REACH)
        for t in scene.terrain
        if t.kind in RS.sight_policy.blocking
    ]
    for a in table.bases:
        for b in table.bases:
            if a is b:
                continue
            assert table.any_in_arc([a], [b], 90) == ref.base_in_arc(a, b, 90)
            assert table.sight(RS.sight_policy, a, b) == ref.pair_sight(a, b, blocking)


def test_range_is_measured_from_the_figures_that_fire() -> None:
    # The flag bearer stands 4" ahead of the men (line 65: it does not fire), so the range is
    # the men's: 12" (9-18") for a rifle, not the flag bearer's 8".
    flag = [base("s-f", 10, 14.5, 90, diameter=1, role="flag-bearer")]
    data = shoot(duel(12, extra_bases=flag))
    assert data["distance"]["value"] == pytest.approx(12)
    assert data["band"] == "9-18"


@pytest.mark.parametrize("action", ["shoot", "melee"])
def test_two_enemies_asked_by_their_bases_are_refused_in_the_words_asked(action: str) -> None:
    # Two bases of one unit: the refusal quotes the two ids asked and names their unit; two
    # units of one side: it names the units and their side (sheet.toml [refusals]).
    scene = make_scene(
        "colonial-adventure",
        [
            unit("red", "british", _rank("red", 2, 10, 90)),
            unit("pal", "british", _rank("pal", 1, 20, 90)),
        ],
    )
    with pytest.raises(QuestionError) as same_unit:
        RS.resolve(scene, action, ["red-1", "red-2"])
    assert str(same_unit.value) == "colonial-adventure: 'red-1' and 'red-2' are the same unit 'red'"
    with pytest.raises(QuestionError) as same_side:
        RS.resolve(scene, action, ["red-1", "pal-1"])
    assert str(same_side.value) == (
        "colonial-adventure: 'red' and 'pal' are both on side 'british'; they do not fight each "
        "other"
    )
