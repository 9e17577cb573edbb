"""europe-19c, case by case from the sheet (rules/sheets/004_8318ee244ed3ffb0.txt).

Every expected number is read off the sheet's line named beside it and worked by hand in the
comment; the scenes are built through the real loader. Lengths in the scenes are cm.

Standard layout: a firer's base (4 x 2 cm) is centred at y = 10 facing +y (90), so its front edge
is at y = 11; a target base centred at y = 12 + gap facing -y has its front edge at 11 + gap, so
the two are `gap` cm apart edge to edge.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rules.answer import Roll
from rules.engine import Cite, get_ruleset
from rules.errors import QuestionError, SceneError
from rules.measure import Table
from rules.scene import Scene
from tests import sight_reference as ref
from tests.builders import base, make_scene, rect, scene_doc, terrain, unit

RS = get_ruleset("europe-19c")
ROOT = Path(__file__).resolve().parents[2]


def bases(prefix: str, x: float, y: float, facing: float, n: int = 1) -> list[dict[str, Any]]:
    """`n` bases 4 x 2 cm side by side along x (4.5 cm between centres)."""
    return [base(f"{prefix}-{i + 1}", x + 4.5 * i, y, facing, 4, 2) for i in range(n)]


def firer(ident: str = "red", n: int = 1, x: float = 50, **attrs: Any) -> dict[str, Any]:
    return unit(ident, "red", bases(ident, x, 10, 90, n), **attrs)


def target(
    ident: str = "blue", gap: float = 5, n: int = 1, x: float = 50, **attrs: Any
) -> dict[str, Any]:
    return unit(ident, "blue", bases(ident, x, 12 + gap, 270, n), **attrs)


LINE: dict[str, Any] = {"type": "infantry", "formation": "line", "order": "close"}
CLOSE_COLUMN: dict[str, Any] = {"type": "infantry", "formation": "column", "order": "close"}


def shoot(*units: dict[str, Any], terrain_: list[dict[str, Any]] | None = None) -> dict:
    scene = make_scene("europe-19c", list(units), terrain=terrain_)
    return dict(RS.resolve(scene, "shoot", ["red", "blue"]).data)


def frac(text: str) -> Fraction:
    return Fraction(text)


# --------------------------------------------------------------------------------------------
# Weapon table (lines 62-72): ranges, dice per base, the skirmisher bonus


@pytest.mark.parametrize(
    ("weapon", "kind", "gap", "band", "dice"),
    [
        # line 70: Musket* 8cm 1 -> 7 cm is in range, one die a base
        ("musket", LINE, 7, "short", 1),
        ("musket", LINE, 9, "out-of-range", 0),
        # line 72: skirmishers +8 cm -> musket reaches 16 cm
        ("musket", {"type": "skirmishers"}, 15, "short", 1),
        ("musket", {"type": "skirmishers"}, 17, "out-of-range", 0),
        # line 69: Rifled Musket* 16cm 1
        ("rifled-musket", LINE, 15, "short", 1),
        # line 68: Early breech-loader* 16cm 2; line 67: Later breech-loader* 24cm 2
        ("early-breech-loader", LINE, 15, "short", 2),
        ("later-breech-loader", LINE, 23, "short", 2),
        ("later-breech-loader", {"type": "skirmishers"}, 31, "short", 2),  # 24 + 8 = 32
        ("later-breech-loader", LINE, 25, "out-of-range", 0),
        # line 63: Steel Rifled Artillery 60cm 4; line 64: Bronze 48cm 3
        (
            "steel-rifled-artillery",
            {"type": "artillery", "formation": "unlimbered"},
            59,
            "short",
            4,
        ),
        (
            "bronze-rifled-artillery",
            {"type": "artillery", "formation": "unlimbered"},
            47,
            "short",
            3,
        ),
        (
            "bronze-rifled-artillery",
            {"type": "artillery", "formation": "unlimbered"},
            49,
            "out-of-range",
            0,
        ),
        # lines 65-66: smoothbore, canister within 12 cm (5 dice), round shot to 32 cm (2 dice)
        ("smoothbore-artillery", {"type": "artillery", "formation": "unlimbered"}, 11, "short", 5),
        ("smoothbore-artillery", {"type": "artillery", "formation": "unlimbered"}, 20, "long", 2),
        (
            "smoothbore-artillery",
            {"type": "artillery", "formation": "unlimbered"},
            33,
            "out-of-range",
            0,
        ),
        # the starred bonus is for skirmishers only: artillery is not starred anyway
    ],
)
def test_weapon_ranges_and_dice(weapon: str, kind: dict, gap: float, band: str, dice: int) -> None:
    out = shoot(firer(weapon=weapon, **kind), target(gap=gap, **CLOSE_COLUMN))
    assert out["band"] == band
    assert out["allowed"] is (dice > 0)
    assert out["distance"] == {"value": pytest.approx(gap), "unit": "cm"}
    if dice:
        assert out["rolls"][0]["dice"] == dice
        assert out["rolls"][0]["sides"] == 6
    else:
        assert out["rolls"] == []


def test_every_base_with_the_target_in_range_and_arc_rolls_its_dice() -> None:
    # Two bases of rifled muskets (line 69: 1 die each) 10 cm from a wide target: 2 dice.
    out = shoot(firer(n=2, weapon="rifled-musket", **LINE), target(gap=10, n=2, **LINE))
    assert out["rolls"][0]["dice"] == 2
    assert [b["dice"] for b in out["firing_bases"]] == [1, 1]


# --------------------------------------------------------------------------------------------
# Firing table (lines 80-89): the need by firer row and target column


@pytest.mark.parametrize(
    ("target_kind", "need"),
    [
        # Inf line, Art row (line 83): Cav 2+, CO If Col 3+, Normal 4+, Dispersed 5+
        ({"type": "cavalry"}, 2),
        (CLOSE_COLUMN, 3),
        ({"type": "dragoons"}, 4),  # line 87: Normal: Dragoons
        ({"type": "artillery", "formation": "limbered"}, 4),  # line 87: Limbered Artillery
        ({"type": "infantry", "formation": "column", "order": "loose"}, 4),  # line 87
        (LINE, 4),  # line 87: Close order Infantry in line
        ({"type": "skirmishers"}, 5),  # line 89: Dispersed: Skirmishers
        ({"type": "artillery", "formation": "unlimbered"}, 5),  # line 89
        ({"type": "infantry", "formation": "line", "order": "loose"}, 5),  # line 89
    ],
)
def test_target_categories_on_the_inf_line_row(target_kind: dict, need: int) -> None:
    out = shoot(firer(weapon="musket", **LINE), target(gap=5, **target_kind))
    assert out["rolls"][0]["need"] == need
    assert out["rolls"][0]["p_success_exact"] == str(Fraction(7 - need, 6))


@pytest.mark.parametrize(
    ("firer_kind", "target_kind", "need"),
    [
        ({"type": "skirmishers"}, {"type": "cavalry"}, 3),  # line 84: Sk, Dgns 3+ vs Cav
        ({"type": "dragoons"}, {"type": "dragoons"}, 5),  # line 84: Normal 5+
        ({"type": "skirmishers"}, {"type": "skirmishers"}, 6),  # line 84: Dispersed 6
        (CLOSE_COLUMN, {"type": "cavalry"}, 4),  # line 85: Infantry Col 4+ vs Cav
        (CLOSE_COLUMN, CLOSE_COLUMN, 5),  # line 85: 5+ vs CO If Col
        (CLOSE_COLUMN, {"type": "skirmishers"}, 6),  # line 85: 6 vs Dispersed
        ({"type": "artillery", "formation": "unlimbered"}, {"type": "cavalry"}, 2),  # line 83
    ],
)
def test_firer_rows(firer_kind: dict, target_kind: dict, need: int) -> None:
    weapon = "smoothbore-artillery" if firer_kind["type"] == "artillery" else "musket"
    out = shoot(firer(weapon=weapon, **firer_kind), target(gap=5, **target_kind))
    assert out["rolls"][0]["need"] == need


# --------------------------------------------------------------------------------------------
# Saving roll (lines 91-96) and the exact distribution of unsaved hits

WOODS_AROUND_TARGET = [terrain("wood", "woods", rect(40, 15, 70, 40))]
TOWN_AROUND_TARGET = [terrain("town", "town", rect(40, 15, 70, 40))]


@pytest.mark.parametrize(
    ("weapon", "target_kind", "ground", "save"),
    [
        # breech-loaders: Sk or Ln 3+ in woods/towns, 5+ in the open (lines 94-96)
        ("later-breech-loader", {"type": "skirmishers"}, WOODS_AROUND_TARGET, 3),
        ("later-breech-loader", {"type": "skirmishers"}, None, 5),
        ("early-breech-loader", LINE, TOWN_AROUND_TARGET, 3),
        # breech-loaders: Dgns or Col 4+ in woods/towns, 6 in the open
        ("later-breech-loader", {"type": "dragoons"}, WOODS_AROUND_TARGET, 4),
        ("early-breech-loader", CLOSE_COLUMN, None, 6),
        # all else: 5+ in woods/towns, None in the open
        ("rifled-musket", CLOSE_COLUMN, WOODS_AROUND_TARGET, 5),
        ("musket", {"type": "skirmishers"}, None, None),
    ],
)
def test_saving_roll(weapon: str, target_kind: dict, ground: list | None, save: int | None) -> None:
    # The target stands at y = 17 (gap 5): inside the woods/town rectangle y 15..40.
    out = shoot(firer(weapon=weapon, **LINE), target(gap=5, **target_kind), terrain_=ground)
    assert out["save"]["need"] == save
    if save is None:
        assert len(out["rolls"]) == 1
    else:
        assert out["rolls"][1]["need"] == save


def test_unsaved_hits_are_hit_then_not_saved() -> None:
    # Early breech-loader (2 dice, line 68), Inf line vs close column 3+ (line 83): p hit 2/3;
    # open ground, Dgns or Col column: save 6 (line 96): p fail 5/6. Per die 2/3 * 5/6 = 5/9.
    # Unsaved of 2 dice: 0 -> (4/9)^2 = 16/81, 1 -> 2*5/9*4/9 = 40/81, 2 -> 25/81.
    out = shoot(firer(weapon="early-breech-loader", **LINE), target(gap=5, **CLOSE_COLUMN))
    assert [frac(p) for p in out["unsaved_hits"]["exact"]] == [
        Fraction(16, 81),
        Fraction(40, 81),
        Fraction(25, 81),
    ]
    # hits alone: 2 dice at 2/3: 1/9, 4/9, 4/9
    assert [frac(p) for p in out["hits"]["exact"]] == [
        Fraction(1, 9),
        Fraction(4, 9),
        Fraction(4, 9),
    ]
    assert out["hits"]["distribution"] == pytest.approx([1 / 9, 4 / 9, 4 / 9])
    # 2 dice x 5/9 = 10/9 unsaved hits expected; at least one: 1 - 16/81 = 65/81.
    assert out["unsaved_hits"]["mean"] == pytest.approx(10 / 9)
    assert out["unsaved_hits"]["p_at_least_one"] == "65/81"
    # The rolls are shown as the dice module works them out, key for key.
    cite = Cite("004_8318ee244ed3ffb0.txt", 83, "Inf line, Art 2+ 3+ 4+ 5+")
    hit = Roll.success_roll("to hit", 2, 6, 3, cite=cite, note="Inf line, Art against CO If Col")
    assert out["rolls"][0] == hit.as_json()
    assert out["rolls"][1]["purpose"] == "save (one die per hit)"
    assert (out["rolls"][1]["dice"], out["rolls"][1]["need"]) == (1, 6)


def test_no_save_means_every_hit_counts() -> None:
    # Two bases of rifled musket vs cavalry: 2 dice at 2+ (line 83), no save in the open vs
    # all else (line 96): unsaved = hits = 1/36, 10/36, 25/36.
    out = shoot(firer(n=2, weapon="rifled-musket", **LINE), target(gap=10, n=2, type="cavalry"))
    assert [frac(p) for p in out["unsaved_hits"]["exact"]] == [
        Fraction(1, 36),
        Fraction(10, 36),
        Fraction(25, 36),
    ]


# --------------------------------------------------------------------------------------------
# Who may fire (lines 21, 74-78)


@pytest.mark.parametrize(
    ("kind", "line"),
    [
        ({"type": "artillery", "formation": "limbered"}, "004_8318ee244ed3ffb0.txt:21"),
        (
            {"type": "artillery", "formation": "unlimbered", "pivoted": True},
            "004_8318ee244ed3ffb0.txt:78",
        ),
        ({"type": "cavalry"}, "004_8318ee244ed3ffb0.txt:83"),
    ],
)
def test_units_that_cannot_fire(kind: dict, line: str) -> None:
    weapon: dict[str, Any] = (
        {"weapon": "steel-rifled-artillery"} if kind["type"] == "artillery" else {}
    )
    out = shoot(firer(**weapon, **kind), target(gap=5, **LINE))
    assert out["allowed"] is False
    assert out["reasons"][0]["source"] == line


def test_fire_arc_is_45_degrees_either_side_of_the_front() -> None:
    # Firer front-left corner at (48, 11). A target 10 cm ahead and 20 cm to the left: its
    # nearest corner (32, 21)... is 16 cm left of the corner over 10 cm ahead: 58 degrees, out.
    # The same target 5 cm to the left (near corner 43 - 2 = 41... 7 cm over 10): 35 deg, in.
    far_left = shoot(firer(weapon="later-breech-loader", **LINE), target(gap=10, x=30, **LINE))
    near_left = shoot(firer(weapon="later-breech-loader", **LINE), target(gap=10, x=41, **LINE))
    assert far_left["allowed"] is False
    assert far_left["reasons"][0]["source"] == "004_8318ee244ed3ffb0.txt:74"
    assert near_left["allowed"] is True


def test_fire_all_round_from_a_town() -> None:
    # The same far-left target, the firer now in a town: 360 degrees (line 74).
    town = [terrain("town", "town", rect(40, 5, 60, 14))]
    out = shoot(
        firer(weapon="later-breech-loader", **LINE), target(gap=10, x=30, **LINE), terrain_=town
    )
    assert out["allowed"] is True
    assert out["arc"]["all_round_in_town"] == ["red-1"]


def test_woods_between_block_the_line_of_sight() -> None:
    # Woods from y = 13 to 15 across the whole line of fire (line 75-76).
    wood = [terrain("wood", "woods", rect(30, 13, 70, 15))]
    out = shoot(firer(weapon="later-breech-loader", **LINE), target(gap=10, **LINE), terrain_=wood)
    assert out["allowed"] is False
    assert out["in_sight"] is False
    assert out["reasons"][0]["source"] == "004_8318ee244ed3ffb0.txt:76"


def test_other_units_block_the_line_of_sight() -> None:
    screen = unit("screen", "red", bases("screen", 50, 16, 90, 1), **LINE)
    out = shoot(firer(weapon="later-breech-loader", **LINE), target(gap=10, **LINE), screen)
    assert out["allowed"] is False


def test_the_sight_verdict_is_the_full_traces() -> None:
    # A base is in sight when one of its sight lines is clear (lines 75-76): the measuring
    # layer's verdict (`in_sight`, what a shot asks) is the full trace's, past every piece of
    # blocking terrain and every other unit's base (`sight_reference.pair_sight`), pair by pair.
    units = [
        unit(
            f"u{k}",
            "ab"[k % 2],
            [
                base(
                    f"u{k}-{i}",
                    5 + 7 * k + 2 * i,
                    5 + (13 * k * (i + 1)) % 40,
                    37 * k + 90 * i,
                    4,
                    2,
                )
                for i in range(2)
            ],
            **LINE,
        )
        for k in range(8)
    ] + [unit("disc", "a", [base("disc-1", 30, 25, 0, diameter=3)], **LINE)]
    ground = [
        terrain("wood", "woods", rect(20, 20, 35, 30)),
        terrain("ell", "town", [[0, 40], [15, 40], [15, 45], [5, 45], [5, 55], [0, 55]]),
    ]
    scene = make_scene("europe-19c", units, terrain=ground, width=60, depth=60)
    table = Table(scene)
    all_bases = list(scene.bases())
    verdicts = set()
    for a in all_bases:
        for b in all_bases:
            if a.unit_id != b.unit_id:
                traced = ref.pair_sight(a, b, ref.obstacles(table, RS.sight_policy, a, b))
                assert table.seen_pairs(RS.sight_policy, [(a, b)]) == [traced.any], (a.id, b.id)
                verdicts.add(traced.any)
    assert verdicts == {True, False}


# --------------------------------------------------------------------------------------------
# Command roll (lines 143-149)


@pytest.mark.parametrize(
    ("rating", "size", "scores"),
    [
        ("poor", "standard", [2, 3, 4]),  # line 147-149, Standard game Poor column
        ("average", "standard", [4, 5, 6]),
        ("good", "standard", [6, 7, 8]),
        ("poor", "mini", [1, 2, 3]),  # Mini game Poor column
        ("average", "mini", [2, 3, 4]),
        ("good", "mini", [4, 5, 6]),
    ],
)
def test_command_roll(rating: str, size: str, scores: list[int]) -> None:
    scene = make_scene(
        "europe-19c",
        [
            firer(type="cavalry", rating=rating),
            unit("friend", "red", bases("friend", 80, 10, 90, 2), **LINE),
        ],
    )
    out = RS.resolve(scene, "command", ["red", size]).data
    assert [o["score"] for o in out["outcomes"]] == scores
    assert [o["roll"] for o in out["outcomes"]] == ["1-2", "3-4", "5-6"]
    assert out["radius"] is None
    assert out["in_command"] == ["friend-1", "friend-2"]
    # Each row of the table is two faces of the D6, a third: the mean is the scores' mean.
    assert out["mean_score"] == str(Fraction(sum(scores), 3))


def test_game_size_comes_from_the_scene_else_standard() -> None:
    units = [firer(type="cavalry", rating="good")]
    mini = make_scene("europe-19c", units, game_size="mini")
    plain = make_scene("europe-19c", units)
    assert [o["score"] for o in RS.resolve(mini, "command", ["red"]).data["outcomes"]] == [4, 5, 6]
    out = RS.resolve(plain, "command", ["red"]).data
    assert out["game_size"] == "standard"
    assert "no game_size" in out["game_size_from"]


# --------------------------------------------------------------------------------------------
# Charge sequence (lines 25-38)


def charge(attacker: dict, defender: dict, *others: dict, ground: list | None = None) -> dict:
    scene = make_scene("europe-19c", [attacker, defender, *others], terrain=ground)
    return dict(RS.resolve(scene, "charge", [attacker["id"], defender["id"]]).data)


@pytest.mark.parametrize(
    ("attacker", "a_bases", "defender", "d_bases", "entry", "allowed"),
    [
        ({"type": "cavalry"}, 1, {"type": "artillery", "formation": "unlimbered"}, 1, "yes", True),
        ({"type": "cavalry"}, 1, {"type": "cavalry"}, 3, "yes", True),  # line 28
        ({"type": "dragoons"}, 3, {"type": "cavalry"}, 1, "no", False),  # line 29
        ({"type": "dragoons"}, 3, LINE, 2, "maybe", True),  # 3 bases > 2 (line 34)
        ({"type": "dragoons"}, 2, LINE, 2, "maybe", False),  # not larger
        (CLOSE_COLUMN, 3, CLOSE_COLUMN, 2, "maybe", True),  # line 30
        (CLOSE_COLUMN, 3, {"type": "dragoons"}, 1, "no", False),  # line 30
        (CLOSE_COLUMN, 1, {"type": "skirmishers"}, 3, "yes", True),  # line 30
        ({"type": "skirmishers"}, 3, {"type": "skirmishers"}, 1, "no", False),  # line 31
    ],
)
def test_charge_table(
    attacker: dict, a_bases: int, defender: dict, d_bases: int, entry: str, allowed: bool
) -> None:
    # 5 cm apart, head on: within every move of the table (lines 43-48: 8 cm at the least).
    out = charge(
        unit("a", "red", bases("a", 50, 10, 90, a_bases), **attacker),
        unit("d", "blue", bases("d", 50, 17, 270, d_bases), **defender),
    )
    assert out["charge_table"]["entry"] == entry
    assert out["allowed"] is allowed
    assert out["face"] == "front"


def test_infantry_in_line_may_not_charge() -> None:
    # Inf vs Sk is Yes (line 30) but infantry in line may not move (line 17).
    out = charge(
        unit("a", "red", bases("a", 50, 10, 90), **LINE),
        unit("d", "blue", bases("d", 50, 17, 270), type="skirmishers"),
    )
    assert out["allowed"] is False
    assert out["reasons"][0]["source"] == "004_8318ee244ed3ffb0.txt:17"


@pytest.mark.parametrize(("gap", "allowed"), [(15, True), (17, False)])
def test_charge_must_reach_contact_with_the_move(gap: float, allowed: bool) -> None:
    # Cav 16 cm in the open (line 46).
    out = charge(
        unit("a", "red", bases("a", 50, 10, 90), type="cavalry"),
        unit("d", "blue", bases("d", 50, 12 + gap, 270), **LINE),
    )
    assert out["allowed"] is allowed
    assert out["move"]["limit"] == {"value": 16.0, "unit": "cm"}


def test_cavalry_may_not_charge_into_woods() -> None:
    # Cav N/A in woods (line 46).
    out = charge(
        unit("a", "red", bases("a", 50, 10, 90), type="cavalry"),
        unit("d", "blue", bases("d", 50, 17, 270), **LINE),
        ground=[terrain("wood", "woods", rect(40, 15, 70, 30))],
    )
    assert out["allowed"] is False
    assert out["move"] is None


@pytest.mark.parametrize(
    ("x", "y", "facing", "face"),
    [
        # The target at (50, 20) faces -y (270): its front looks to y < 20, its rear to y > 20;
        # its right hand (sin f, -cos f) = (-1, 0) points to -x, so +x is its left flank.
        (50, 27, 270, "rear"),
        (60, 20, 180, "left-flank"),
        (40, 20, 0, "right-flank"),
    ],
)
def test_face_struck_from_the_measured_aspect(x: float, y: float, facing: float, face: str) -> None:
    target_unit = unit("d", "blue", [base("d-1", 50, 20, 270, 4, 2)], **LINE)
    attacker = unit("a", "red", [base("a-1", x, y, facing, 4, 2)], type="cavalry")
    out = charge(attacker, target_unit)
    assert out["face"] == face
    assert out["melee_bonus"]["source"] == "004_8318ee244ed3ffb0.txt:114"


def test_no_flank_or_rear_in_a_town() -> None:
    # line 54: units in towns have no flank or rear.
    target_unit = unit("d", "blue", [base("d-1", 50, 20, 270, 4, 2)], **LINE)
    attacker = unit("a", "red", [base("a-1", 50, 27, 270, 4, 2)], type="cavalry")
    out = charge(attacker, target_unit, ground=[terrain("town", "town", rect(45, 15, 55, 25))])
    assert out["face"] == "front"
    assert out["melee_bonus"] is None


def test_one_attacker_per_face() -> None:
    # A friendly unit already touches the target's front (line 36).
    first = unit("first", "red", [base("first-1", 50, 18, 90, 4, 2)], type="cavalry")
    target_unit = unit("d", "blue", [base("d-1", 50, 20, 270, 4, 2)], **LINE)
    second = unit("a", "red", [base("a-1", 56, 14, 90, 4, 2)], type="cavalry")
    out = charge(second, target_unit, first)
    assert out["face"] == "front"
    assert out["face_taken_by"] == ["first"]
    assert out["allowed"] is False


# --------------------------------------------------------------------------------------------
# Hand-to-hand (lines 98-124)


def melee(attacker: dict, defender: dict, ground: list | None = None) -> dict:
    scene = make_scene("europe-19c", [attacker, defender], terrain=ground)
    return dict(RS.resolve(scene, "melee", [attacker["id"], defender["id"]]).data)


def contact(a_kind: dict, a_n: int, d_kind: dict, d_n: int, **kw: Any) -> dict:
    # Attacker front edge at y = 11 touching the defender's front edge at y = 11.
    return melee(
        unit("a", "red", bases("a", 50, 10, 90, a_n), **a_kind),
        unit("d", "blue", bases("d", 50, 12, 270, d_n), **d_kind),
        **kw,
    )


@pytest.mark.parametrize(
    ("a_kind", "a_n", "d_kind", "d_n", "a_dice", "d_dice"),
    [
        # Cav vs Inf Ln 3 (line 101), -1 vs close order infantry (line 115): 2 a base x 2;
        # Defending Infantry vs Cav 1 (line 112) x 3
        ({"type": "cavalry"}, 2, LINE, 3, 4, 3),
        # Cav vs Inf Ln, loose order: no -1 -> 3 x 1; Defending Infantry vs Cav 1
        (
            {"type": "cavalry"},
            1,
            {"type": "infantry", "formation": "line", "order": "loose"},
            1,
            3,
            1,
        ),
        # Cav vs Sk/Art 4 (line 101); Ski/Art vs Cav 1 (line 102)
        ({"type": "cavalry"}, 1, {"type": "artillery", "formation": "unlimbered"}, 1, 4, 1),
        # Cav vs Cav 1 both (line 101)
        ({"type": "cavalry"}, 2, {"type": "cavalry"}, 2, 2, 2),
        # Charging Dgns vs Inf Col 2 (line 106) x 2; Defending Infantry vs Dgns 1 (line 112)
        ({"type": "dragoons"}, 2, CLOSE_COLUMN, 1, 4, 1),
        # Charging Dgns vs Sk/Art 3 (line 106); Ski/Art vs Dgns 1 (line 102)
        ({"type": "dragoons"}, 1, {"type": "skirmishers"}, 2, 3, 2),
        # Charging Dgns vs Dgns 2 (line 106); Defending Dgns vs Dgns 1 (line 111)
        ({"type": "dragoons"}, 1, {"type": "dragoons"}, 1, 2, 1),
        # Charging Inf vs Inf Ln 2 (line 107); Defending Infantry vs Inf Col 1 (line 112)
        (CLOSE_COLUMN, 3, LINE, 3, 6, 3),
    ],
)
def test_hand_to_hand_dice(
    a_kind: dict, a_n: int, d_kind: dict, d_n: int, a_dice: int, d_dice: int
) -> None:
    out = contact(a_kind, a_n, d_kind, d_n)
    assert out["in_contact"] is True
    assert [r["dice"] for r in out["rolls"]] == [a_dice, d_dice]
    assert [r["need"] for r in out["rolls"]] == [4, 4]  # line 98: hit on 4+


def test_hand_to_hand_outcome_odds() -> None:
    # 4 attacker dice vs 3 defender dice at 1/2 (first case above). A ~ [1,4,6,4,1]/16,
    # D ~ [1,3,3,1]/8. The defender retreats when A >= D (greatest hits, or a tie, lines
    # 120-122): P(A>=0)=1, P(A>=1)=15/16, P(A>=2)=11/16, P(A>=3)=5/16, so
    # (1*16 + 3*15 + 3*11 + 1*5) / 128 = 99/128. A tie: (1*1 + 3*4 + 3*6 + 1*4)/128 = 35/128.
    out = contact({"type": "cavalry"}, 2, LINE, 3)
    assert Fraction(out["outcome"]["defender_loses"]) == Fraction(99, 128)
    assert Fraction(out["outcome"]["attacker_loses"]) == Fraction(29, 128)
    assert Fraction(out["outcome"]["tie"]) == Fraction(35, 128)
    assert out["outcome"]["loser_morale_tests"] == 2  # line 132


def test_artillery_that_loses_is_eliminated() -> None:
    out = contact({"type": "cavalry"}, 1, {"type": "artillery", "formation": "unlimbered"}, 1)
    assert "eliminated" in out["outcome"]["loser"]
    assert "004_8318ee244ed3ffb0.txt:123" in out["outcome"]["loser"]


def test_flank_attack_adds_a_die_per_base() -> None:
    # Cav vs Cav 1 (line 101) + 1 attacking the flank (line 114) = 2 a base. The defender faces
    # +x (0); the attacker stands at its left side touching it.
    out = melee(
        unit("a", "red", [base("a-1", 50, 14.5, 270, 4, 3)], type="cavalry"),
        unit("d", "blue", [base("d-1", 50, 11, 0, 4, 4)], type="cavalry"),
    )
    assert out["face"] == "left-flank"
    assert out["rolls"][0]["dice"] == 2
    assert out["rolls"][1]["dice"] == 1


def test_higher_ground_and_riverbank() -> None:
    # Defending Infantry vs Inf Col 1 (line 112), +1 on a hill the attacker is not on, +1
    # defending a stream bank frontally (line 114): 3 a base.
    ground = [
        terrain("hill", "hill", rect(40, 11.5, 70, 20)),
        terrain("brook", "stream", rect(40, 10.6, 70, 11.4)),
    ]
    out = melee(
        unit("a", "red", bases("a", 50, 10, 90), **CLOSE_COLUMN),
        unit("d", "blue", bases("d", 50, 12, 270), **LINE),
        ground,
    )
    reasons = [m["reason"] for m in out["sides"]["defender"]["modifiers"]]
    assert out["rolls"][1]["dice"] == 3, reasons
    assert out["rolls"][0]["dice"] == 2


def test_impossible_pairing_is_an_error() -> None:
    # Charging Inf vs Cav is "-" (line 107): infantry may not charge cavalry (line 30).
    with pytest.raises(QuestionError, match="cannot happen"):
        contact(CLOSE_COLUMN, 1, {"type": "cavalry"}, 1)


# --------------------------------------------------------------------------------------------
# Movement (lines 40-58)


def move(kind: dict, ground: list | None = None, *others: dict, y: float = 10) -> dict:
    scene = make_scene(
        "europe-19c", [unit("u", "red", bases("u", 50, y, 90), **kind), *others], terrain=ground
    )
    return dict(RS.resolve(scene, "move", ["u"]).data)


WOODS = [terrain("wood", "woods", rect(40, 5, 70, 15))]
STREAM = [terrain("brook", "stream", rect(40, 9, 70, 11))]
# The bridge lies under part of the base, not its centre (so it is not taken for a road).
BRIDGE = [*STREAM, terrain("bridge", "bridge", rect(51, 8, 60, 12))]
ROAD = [terrain("road", "road", rect(45, 0, 55, 120))]
LOOSE_COLUMN: dict[str, Any] = {"type": "infantry", "formation": "column", "order": "loose"}


@pytest.mark.parametrize(
    ("kind", "ground", "column", "cm"),
    [
        (LOOSE_COLUMN, None, "open", 12),  # line 43: Inf (LO) 12 8 8 16
        (LOOSE_COLUMN, WOODS, "woods-towns", 8),
        (LOOSE_COLUMN, STREAM, "stream", 8),
        (CLOSE_COLUMN, None, "open", 8),  # line 44: Inf (CO) 8 4 4 16
        (CLOSE_COLUMN, WOODS, "woods-towns", 4),
        (CLOSE_COLUMN, ROAD, "road", 16),
        ({"type": "skirmishers"}, WOODS, "woods-towns", 12),  # line 45
        ({"type": "cavalry"}, STREAM, "stream", 12),  # line 46
        ({"type": "cavalry"}, ROAD, "road", 24),
        ({"type": "dragoons"}, None, "open", 16),  # line 47
        ({"type": "artillery", "formation": "limbered"}, ROAD, "road", 16),  # line 48
        ({"type": "cavalry"}, BRIDGE, "open", 16),  # line 50: bridges negate streams
    ],
)
def test_movement_table(kind: dict, ground: list | None, column: str, cm: int) -> None:
    out = move(kind, ground)
    assert out["column"] == column
    assert out["allowance"] == {"value": float(cm), "unit": "cm"}


@pytest.mark.parametrize(
    ("kind", "ground"),
    [({"type": "cavalry"}, WOODS), ({"type": "artillery", "formation": "limbered"}, STREAM)],
)
def test_not_applicable_terrain(kind: dict, ground: list) -> None:
    # Cav N/A in woods (line 46), Art N/A in streams (line 48).
    out = move(kind, ground)
    assert out["allowance"] is None
    assert out["may_move"] is False


@pytest.mark.parametrize(
    ("kind", "line"),
    [
        (LINE, "004_8318ee244ed3ffb0.txt:17"),
        ({"type": "artillery", "formation": "unlimbered"}, "004_8318ee244ed3ffb0.txt:23"),
    ],
)
def test_may_not_move_but_may_pivot(kind: dict, line: str) -> None:
    out = move(kind)
    assert out["allowance"] == {"value": 0.0, "unit": "cm"}
    assert out["may_pivot"] is True
    assert out["source"] == line


def test_pivot_cost() -> None:
    # Inf (LO) pivot costs 1/4 of 12 cm = 3 cm (line 43); cavalry pivots free (line 46).
    assert move(LOOSE_COLUMN)["pivot_cost_length"] == {"value": 3.0, "unit": "cm"}
    assert move({"type": "cavalry"})["pivot_cost"] is None


def test_road_needs_24_cm_from_the_enemy() -> None:
    # Line 52: an enemy 20 cm away (edge to edge) denies the road rate: cavalry moves 16 cm.
    enemy = unit("e", "blue", bases("e", 50, 32, 270), **LINE)  # edges at 11 and 31: 20 cm
    out = move({"type": "cavalry"}, ROAD, enemy)
    assert out["road"]["eligible"] is False
    assert out["allowance"] == {"value": 16.0, "unit": "cm"}
    far = unit("e", "blue", bases("e", 50, 40, 270), **LINE)  # 28 cm
    assert move({"type": "cavalry"}, ROAD, far)["allowance"] == {"value": 24.0, "unit": "cm"}


# --------------------------------------------------------------------------------------------
# Morale (lines 126-141)


@pytest.mark.parametrize(
    ("level", "need"),
    [("fanatic", 2), ("elite", 3), ("average", 4), ("levy", 5), ("rabble", 6)],  # 135-139
)
def test_morale_levels(level: str, need: int) -> None:
    scene = make_scene("europe-19c", [firer(quality=level, bases_removed=1, **LINE)])
    out = RS.resolve(scene, "morale", ["red"]).data
    assert out["need"] == need
    assert out["tests"] == 1
    # one test: a base lost with chance (need - 1)/6 (line 141)
    assert Fraction(out["bases_lost"]["exact"][1]) == Fraction(need - 1, 6)


def test_morale_reasons_add_up() -> None:
    # 2 bases removed (line 130: one test each) + lost hand-to-hand (line 132: two tests) = 4
    # tests; average 4+ (line 137): bases lost ~ Bin(4, 1/2): 1/16, 4/16, 6/16, 4/16, 1/16.
    scene = make_scene(
        "europe-19c", [firer(quality="average", bases_removed=2, lost_melee=True, **LINE)]
    )
    out = RS.resolve(scene, "morale", ["red"]).data
    assert out["tests"] == 4
    assert [Fraction(p) for p in out["bases_lost"]["exact"]] == [
        Fraction(k, 16) for k in (1, 4, 6, 4, 1)
    ]


def test_charging_cavalry_fired_on_test_once() -> None:
    scene = make_scene("europe-19c", [firer(quality="elite", fired_on=True, type="cavalry")])
    assert RS.resolve(scene, "morale", ["red"]).data["tests"] == 1  # line 131


# --------------------------------------------------------------------------------------------
# suggest: the sequence of play (lines 5-11)


def example() -> Scene:
    from rules.engine import load_scene

    return load_scene(ROOT / "examples" / "europe-19c.json")


def test_suggest_phases_and_items() -> None:
    out = RS.resolve(example(), "suggest", []).data
    assert out["phases"] == ["change-formation", "charge", "movement", "firing", "hand-to-hand"]
    kinds = {item["kind"] for item in out["items"]}
    assert {"command", "formation", "move", "shoot"} <= kinds
    for item in out["items"]:
        assert set(item) >= {"kind", "args", "summary", "result"}
        assert item["result"]["action"] == item["kind"]
    firing = RS.resolve(example(), "suggest", ["firing"]).data
    assert firing["phase"] == "firing"
    assert firing["items"] and all(i["result"]["allowed"] for i in firing["items"])


def test_suggest_lists_melees_in_contact() -> None:
    scene = make_scene(
        "europe-19c",
        [
            unit("a", "red", bases("a", 50, 10, 90), type="cavalry", charged=True),
            unit("d", "blue", bases("d", 50, 12, 270), **LINE),
        ],
    )
    items = RS.resolve(scene, "suggest", ["hand-to-hand"]).data["items"]
    assert [(i["kind"], i["args"]) for i in items] == [("melee", ["a", "d"])]


def test_suggest_reuses_one_table() -> None:
    # The memoised sight lines of a table are shared by every question about it.
    scene = example()
    table = Table(scene)
    a, b = scene.base("krupp-1"), scene.base("cuirassiers-1")
    first = table.sights(RS.sight_policy, [(a, b)])[0]
    assert table.sights(RS.sight_policy, [(a, b)])[0] is first


# --------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("units", "action", "args", "words"),
    [
        (
            [firer(type="infantry", order="close", weapon="musket"), target(**LINE)],
            "shoot",
            ["red", "blue"],
            ["'red'", "formation", "'line' or 'column'"],
        ),
        (
            [firer(weapon="musket", type="artillery", formation="unlimbered"), target(**LINE)],
            "shoot",
            ["red", "blue"],
            ["'red'", "artillery", "'smoothbore-artillery'"],
        ),
        ([firer(type="cavalry")], "command", ["red"], ["'red'", "rating", "'poor'"]),
        (
            [firer(type="cavalry", rating="good")],
            "command",
            ["red", "huge"],
            ["'huge'", "'standard' or 'mini'"],
        ),
        ([firer(type="cavalry")], "suggest", ["lunch"], ["'lunch'", "'firing'"]),
        (
            [firer(weapon="musket", **LINE), firer("pal", x=80, weapon="musket", **LINE)],
            "shoot",
            ["red", "pal"],
            ["'red'", "'pal'", "opposing"],
        ),
    ],
)
def test_bad_input_names_what_is_wrong(
    units: list, action: str, args: list[str], words: list[str]
) -> None:
    scene = make_scene("europe-19c", units)
    with pytest.raises(QuestionError) as caught:
        RS.resolve(scene, action, args)
    for word in words:
        assert word in str(caught.value)


@pytest.mark.parametrize(
    ("attrs", "action", "message"),
    [
        ({}, "move", "has no 'type'"),
        # line 19: artillery is limbered or unlimbered, never in line
        ({"type": "artillery", "formation": "line"}, "move", "has formation 'line'"),
        # lines 43-44: infantry moves by its order, close or loose
        ({"type": "infantry", "formation": "column"}, "move", "has no 'order'"),
    ],
)
def test_a_unit_is_read_in_the_sheets_words(attrs: dict, action: str, message: str) -> None:
    scene = make_scene("europe-19c", [firer(**attrs)])
    with pytest.raises(QuestionError, match=message):
        RS.resolve(scene, action, ["red"])


def test_a_shot_between_two_misread_units_names_the_firer_first() -> None:
    # lines 13-23: infantry stands in line or column; both units here say `unlimbered`, an
    # artillery word. The question is the firer's, so the firer's word is the one refused.
    wrong: dict[str, Any] = {"type": "infantry", "formation": "unlimbered", "order": "close"}
    scene = make_scene("europe-19c", [firer(weapon="musket", **wrong), target(**wrong)])
    with pytest.raises(QuestionError) as caught:
        RS.resolve(scene, "shoot", ["red", "blue"])
    assert str(caught.value) == (
        "europe-19c: unit 'red' has formation 'unlimbered'; accepted values are 'line' or 'column'"
    )


def test_cavalry_have_no_formation() -> None:
    # lines 13-23: formations are for infantry and artillery only; a cavalry unit's is not read.
    scene = make_scene("europe-19c", [firer(type="cavalry", formation="column")])
    out = RS.resolve(scene, "formation", ["red"]).data
    assert (out["formation"], out["formations"]) == (None, {})


# A word outside the sheet's (a declared field's choices) is refused when the scene is read,
# before any question: these three were question errors before the fields were declared.
@pytest.mark.parametrize(
    ("units", "words"),
    [
        ([firer(type="hussars"), target(**LINE)], ["'red'", "type", "'infantry'", "'artillery'"]),
        (
            [firer(weapon="blunderbuss", **LINE), target(**LINE)],
            ["'red'", "weapon", "'musket'"],
        ),
        (
            [firer(type="cavalry", quality="heroic")],
            ["'red'", "quality", "'fanatic'", "'rabble'"],
        ),
    ],
)
def test_words_the_sheet_does_not_know_are_refused_when_read(units: list, words: list) -> None:
    with pytest.raises(SceneError) as caught:
        make_scene("europe-19c", units)
    for word in words:
        assert word in str(caught.value)


# --------------------------------------------------------------------------------------------
# Through the command line


def run_cli(tmp_path: Path, doc: dict, *argv: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "webui.cli", "resolve", str(path), *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_cli_shoot_json(tmp_path: Path) -> None:
    doc = scene_doc(
        "europe-19c", [firer(weapon="early-breech-loader", **LINE), target(gap=5, **CLOSE_COLUMN)]
    )
    done = run_cli(tmp_path, doc, "shoot", "red", "blue", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert {
        "action",
        "ruleset",
        "shooter",
        "target",
        "distance",
        "band",
        "allowed",
        "rolls",
    } <= set(out)
    assert out["rolls"][0]["purpose"] == "to hit"
    assert out["rolls"][0]["need"] == 3
    assert out["rolls"][0]["p_success"] == pytest.approx(2 / 3)


def test_cli_readable_answer(tmp_path: Path) -> None:
    doc = scene_doc("europe-19c", [firer(type="cavalry", rating="average")])
    done = run_cli(tmp_path, doc, "command", "red", "mini")
    assert done.returncode == 0
    assert "D6 1-2: 2" in done.stdout  # line 147, Mini game Average


@pytest.mark.parametrize(
    ("units", "argv"),
    [
        ([firer(type="zouaves"), target(**LINE)], ("shoot", "red", "blue")),
        ([firer(weapon="musket", **LINE)], ("move",)),
        ([firer(weapon="musket", **LINE)], ("melee", "red", "nobody")),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(tmp_path: Path, units: list, argv: tuple) -> None:
    done = run_cli(tmp_path, scene_doc("europe-19c", units), *argv)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_say_gives_a_text_as_one_string_and_say_lines_its_lines() -> None:
    # Like the other rulesets' `say`: one string, its blanks filled in (europe's once gave a
    # list); a text of several lines goes through `say_lines`, a line of the answer each.
    from rules.rulesets.europe_19c.ruleset import say, say_lines

    assert say("fate-artillery") == "is eliminated (004_8318ee244ed3ffb0.txt:123)"
    assert say("charge-move", gap="2.0 cm", allowance="12.0 cm", column="open", close="") == (
        "2.0 cm to contact, move 12.0 cm (open) [004_8318ee244ed3ffb0.txt:38]"
    )
    melee = say_lines(
        "melee",
        defender="d",
        attacker="a",
        outcome={
            "defender_loses": "1/2",
            "tie": "1/6",
            "loser": "retreats",
            "attacker_loses": "1/2",
            "attacker_loser": "is eliminated",
        },
    )
    assert len(melee) == 2 and melee[1].startswith("a loses with chance 1/2 and is eliminated")
