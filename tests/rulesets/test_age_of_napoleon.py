"""age-of-napoleon, page 3 of "Warfare in the Age of Napoleon", on a square grid.

Every expected number below is worked out by hand from the sheet (rules/sheets/
003_5b7c133d01707a77.txt, line numbers in the comments) or from the grid, never copied from the
code. Test scenes use 10 cm boxes on a 180 x 120 cm table (18 x 12 boxes); `at(...)` puts a
unit's bases in a row around the centre of box (column, row).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rules.engine import Cite, Resolution, get_ruleset
from rules.errors import QuestionError, UmpireError
from rules.scene import Scene
from rules.sheetdata import load_sheet_data
from tests.builders import base, make_scene, rect, scene_doc, terrain, unit

REPO = Path(__file__).resolve().parents[2]
RS = get_ruleset("age-of-napoleon")
RANGES = {
    "rifle": {"short": 1, "medium": 2, "long": 4},
    "musket": {"short": 1, "long": 2},
    "rocket": {"long": 6},
}
"""The players' ranges in boxes (the QRC is not on page 3); rifle long reaches 3 (line 19)."""


def at(
    ident: str,
    side: str,
    col: int,
    row: int,
    n: int = 1,
    *,
    leader: bool = True,
    facing: float = 90,
    **attrs: Any,
) -> dict[str, Any]:
    """Unit `ident` of n bases (1.2 cm square, 1.5 cm apart) centred on box (col, row)."""
    bases = []
    for i in range(n):
        offset = (i - (n - 1) / 2) * 1.5
        role = {"role": "leader"} if leader and i == 0 else {}
        bases.append(
            base(
                f"{ident}-{i + 1}",
                col * 10 + 5 + offset,
                row * 10 + 5,
                facing=facing,
                width=1.2,
                depth=1.2,
                **role,
            )
        )
    return unit(ident, side, bases, **attrs)


def inf(ident: str, side: str, col: int, row: int, n: int = 1, **attrs: Any) -> dict[str, Any]:
    attrs.setdefault("type", "infantry")
    attrs.setdefault("die", "d6")
    attrs.setdefault("weapon", "rifle")
    return at(ident, side, col, row, n, **attrs)


def scene(
    *units: dict[str, Any], ranges: Any = RANGES, grid: float | None = 10, **kw: Any
) -> Scene:
    extra = {} if ranges is None else {"ranges": ranges}
    return make_scene("age-of-napoleon", list(units), grid_box=grid, **extra, **kw)


def ask(sc: Scene, action: str, *args: str) -> dict[str, Any]:
    return RS.resolve(sc, action, args).as_json()


def error(sc: Scene, action: str, *args: str) -> str:
    with pytest.raises(QuestionError) as info:
        RS.resolve(sc, action, args)
    return str(info.value)


def fractions(dist: list[str]) -> list[Fraction]:
    return [Fraction(p) for p in dist]


# --------------------------------------------------------------------------------------------
# Every cited fragment is on its line of the sheet


def _cites(value: Any) -> Iterator[Cite]:
    if isinstance(value, Cite):
        yield value
    elif isinstance(value, dict | list):
        for v in value.values() if isinstance(value, dict) else value:
            yield from _cites(v)


def test_every_cite_of_the_sheet_data_quotes_its_line() -> None:
    # The page's tables are data (the package's sheet.toml), each number with its line.
    sheet = (REPO / "rules" / "sheets" / RS.sheet).read_text(encoding="utf-8").splitlines()
    cites = list(
        _cites(
            load_sheet_data(
                REPO / "rules" / "rulesets" / "age_of_napoleon" / "sheet.toml", RS.sheet
            )
        )
    )
    assert len(cites) > 25
    for c in cites:
        line = " ".join(sheet[c.line - 1].split()).lower()
        assert " ".join(c.text.split()).lower() in line, c


# --------------------------------------------------------------------------------------------
# Range in boxes (line 18: a diagonal step counts 1.5), bands from the scene's "ranges"


@pytest.mark.parametrize(
    ("weapon", "dcol", "drow", "boxes", "band"),
    [
        ("rifle", 1, 0, 1.0, "short"),  # 1 straight
        ("rifle", 2, 0, 2.0, "medium"),  # 2 straight
        ("rifle", 1, 1, 1.5, "medium"),  # 1 diagonal = 1.5 > short 1
        ("rifle", 2, 2, 3.0, "long"),  # line 19: 1.5 + 1.5 = 3, "long range"
        ("rifle", 0, -4, 4.0, "long"),  # 4 straight, long reaches 4 inclusive
        ("rifle", 3, 1, 3.5, "long"),  # 1 diagonal + 2 straight = 1.5 + 2
        ("rifle", 3, 3, 4.5, "out-of-range"),  # 3 diagonals = 4.5 > 4
        ("rifle", -5, 0, 5.0, "out-of-range"),
        ("musket", 1, 1, 1.5, "long"),  # musket short 1, long 2
        ("musket", 2, 1, 2.5, "out-of-range"),  # 1 diagonal + 1 straight = 2.5 > 2
    ],
)
def test_range_band_in_boxes(weapon: str, dcol: int, drow: int, boxes: float, band: str) -> None:
    sc = scene(inf("a", "red", 8, 5, weapon=weapon), inf("b", "blue", 8 + dcol, 5 + drow))
    res = ask(sc, "shoot", "a", "b")
    assert res["boxes"] == pytest.approx(boxes)
    assert res["band"] == band
    assert res["allowed"] is (band != "out-of-range")
    assert res["range"]["verdict"] == ("beyond" if band == "out-of-range" else "within")


def test_sheet_example_rifle_two_boxes_on_the_diagonal_is_long_range() -> None:
    # line 18-19: "a rifle armed unit fires 2 boxes on the diagonal. Range becomes 3 (1.5 +1.5)
    # and the shot is long range": with these ranges short reaches 1, medium 2, long 4.
    sc = scene(inf("rifles", "british", 3, 3, 4), inf("ansar", "mahdist", 5, 5, 4, die="d3"))
    res = ask(sc, "shoot", "rifles", "ansar")
    assert (res["boxes"], res["band"], res["allowed"]) == (3.0, "long", True)
    # the contract's length: edge to edge, one diagonal gap between the boxes' nearest bases:
    # rifles-4 at x 35 + 2.25 = 37.25, ansar-1 at x 55 - 2.25 = 52.75, y 35 and 55, each 1.2
    # wide: dx 15.5 - 1.2 = 14.3, dy 20 - 1.2 = 18.8 -> sqrt(204.49 + 353.44) = 23.621 cm
    assert res["distance"]["value"] == pytest.approx(23.621, abs=1e-3)
    assert res["distance"]["unit"] == "cm"


def test_a_centre_near_a_box_side_makes_the_band_too_close_to_call() -> None:
    # shooter's centre 1 mm inside box 0 (x = 9.9 cm), uncertainty 2 mm: it may be in box 1.
    # target in box 5: 5 boxes (out of range) or 4 (long) -> too close to call.
    shooter = unit(
        "a",
        "red",
        [base("a-1", 9.9, 5, width=1, depth=1)],
        type="infantry",
        weapon="rifle",
        die="d6",
    )
    sc = scene(shooter, inf("b", "blue", 5, 0))
    res = ask(sc, "shoot", "a", "b")
    assert res["band"] == "out-of-range"
    assert res["range"]["verdict"] == "too close to call"
    assert res["range"]["nearest_box_side"]["value"] == pytest.approx(0.1)


def test_woods_between_block_the_shot_and_cover_is_reported_not_guessed() -> None:
    wood = terrain("wood", "woods", rect(60, 40, 70, 70))
    sc = scene(inf("a", "red", 5, 5), inf("b", "blue", 7, 5), terrain=[wood])
    res = ask(sc, "shoot", "a", "b")
    assert res["in_sight"] is False and res["allowed"] is False
    assert res["rolls"] == []
    # standing in the woods: in sight (a unit sees out of / into the piece it stands in),
    # soft cover reported, the dice unchanged (the modifier is on the QRC)
    sc = scene(inf("a", "red", 5, 5, 2), inf("b", "blue", 6, 5), terrain=[wood])
    res = ask(sc, "shoot", "a", "b")
    assert res["allowed"] is True
    assert res["cover"]["cover"] == "soft"
    assert res["dice"]["dice"] == 2


def test_only_terrain_on_the_sight_line_blocks() -> None:
    # a from box (2, 5) to b in box (6, 5): the wood at x 40-50 lies between them, the hill at
    # y 100-110 is 50 cm away from both, so it cannot block
    wood = terrain("wood", "woods", rect(40, 50, 50, 60))
    hill = terrain("hill", "hill", rect(40, 100, 50, 110))
    sc = scene(inf("a", "red", 2, 5), inf("b", "blue", 6, 5), terrain=[wood, hill])
    assert ask(sc, "shoot", "a", "b")["sight"]["blocked_by"] == ["wood"]


# --------------------------------------------------------------------------------------------
# Dice: one per base including the leader's (line 4), modifiers rounded up (line 5), never
# fewer than one for an unbroken unit (line 6), d6 regulars / d3 natives (lines 7-9)


@pytest.mark.parametrize(
    ("bases", "mods", "broken", "dice"),
    [
        (4, [], False, 4),  # 4 bases incl. the leader's
        (1, [], False, 1),
        (3, [1], False, 4),  # 3 + 1
        (3, [-0.5], False, 3),  # 2.5 rounded up = 3
        (4, [-1, -0.5], False, 3),  # 2.5 rounded up = 3
        (2, [-2], False, 1),  # 0 -> never less than 1 die (line 6)
        (2, [-3], False, 1),  # -1 -> still 1 die
        (2, [-2], True, 0),  # broken: zero dice
    ],
)
def test_fire_dice(bases: int, mods: list[float], broken: bool, dice: int) -> None:
    given = [{"dice": m, "reason": f"QRC row {i}"} for i, m in enumerate(mods)]
    sc = scene(
        inf("a", "red", 5, 5, bases, fire_modifiers=given, broken=broken), inf("b", "blue", 6, 5)
    )
    res = ask(sc, "shoot", "a", "b")
    assert res["dice"]["dice"] == dice
    assert res["allowed"] is (dice > 0)
    if dice:
        assert res["rolls"][0]["dice"] == dice
        assert len(res["rolls"][0]["modifiers"]) == len(mods)


def test_a_modifier_for_another_target_does_not_apply() -> None:
    given = [{"dice": -1, "reason": "target in square", "target": "c"}]
    sc = scene(
        inf("a", "red", 5, 5, 3, fire_modifiers=given),
        inf("b", "blue", 6, 5),
        inf("c", "blue", 4, 5),
    )
    assert ask(sc, "shoot", "a", "b")["dice"]["dice"] == 3
    assert ask(sc, "shoot", "a", "c")["dice"]["dice"] == 2  # 3 - 1


def test_hits_are_the_dice_total_of_d6s() -> None:
    # 4d6 (line 5: "the dice score is the number of hits"): 4 to 24 hits; P(4) = P(24) = 1/6^4;
    # P(14) = 146/1296 (the number of ways 4d6 make 14); mean 4 x 3.5 = 14
    sc = scene(inf("a", "red", 5, 5, 4), inf("b", "blue", 6, 5, leader=False))
    res = ask(sc, "shoot", "a", "b")
    roll = res["rolls"][0]
    assert (roll["dice"], roll["sides"], roll["need"]) == (4, 6, None)
    dist = fractions(res["hits"]["distribution_exact"])
    assert dist[:4] == [0, 0, 0, 0]
    assert dist[4] == dist[24] == Fraction(1, 1296)
    assert dist[14] == Fraction(146, 1296)
    assert sum(dist) == 1
    assert res["hits"]["mean"] == pytest.approx(14)
    # P(at least 5 hits) = 1 - P(4) = 1295/1296
    assert res["hits"]["p_at_least_5"] == pytest.approx(1295 / 1296)


def test_natives_roll_d3s_and_the_halved_d6_substitute() -> None:
    # 2d3: totals 2..6 in 1, 2, 3, 2, 1 ways of 9
    sc = scene(inf("a", "red", 5, 5, 2, die="d3"), inf("b", "blue", 6, 5))
    res = ask(sc, "shoot", "a", "b")
    assert res["rolls"][0]["sides"] == 3
    assert fractions(res["hits"]["distribution_exact"]) == [
        0,
        0,
        Fraction(1, 9),
        Fraction(2, 9),
        Fraction(3, 9),
        Fraction(2, 9),
        Fraction(1, 9),
    ]
    # line 9: 2d6 halved, rounded up: total 2 -> 1; 3,4 -> 2 (2+3 ways); 5,6 -> 3 (4+5);
    # 7,8 -> 4 (6+5); 9,10 -> 5 (4+3); 11,12 -> 6 (2+1), of 36
    halved = fractions(res["d6_substitute"]["distribution_exact"])
    assert halved == [Fraction(n, 36) for n in (0, 1, 5, 9, 11, 7, 3)]


# --------------------------------------------------------------------------------------------
# Leader hits from fire: at least 5 hits (line 10) and one or more 6 on d6 / 3 on d3 (line 37)


@pytest.mark.parametrize(
    ("bases", "die", "p"),
    [
        (1, "d6", Fraction(1, 6)),  # 5 hits with a 6 on one die: only the 6
        (2, "d6", Fraction(11, 36)),  # any roll with a 6 totals 7+: P(a 6) = 1 - 25/36
        (4, "d6", Fraction(671, 1296)),  # a 6 makes 9+: 1 - (5/6)^4 = 671/1296
        (1, "d3", Fraction(0)),  # 1d3 never makes 5 hits
        (2, "d3", Fraction(1, 3)),  # totals 5+: (2,3), (3,2), (3,3), each with a 3: 3/9
        (3, "d3", Fraction(19, 27)),  # a 3 makes 5+ with any others: 1 - (2/3)^3 = 19/27
    ],
)
def test_leader_check_from_fire(bases: int, die: str, p: Fraction) -> None:
    sc = scene(inf("a", "red", 5, 5, bases, die=die), inf("b", "blue", 6, 5, 2))
    res = ask(sc, "shoot", "a", "b")
    check = res["leader_check"]
    assert check["target_has_leader"] is True and check["leader_base"] == "b-1"
    assert Fraction(check["p_exact"]) == p
    assert res["rolls"][1]["dice"] == 2 and res["rolls"][1]["sides"] == 6  # 2d6, line 37


def test_no_leader_no_leader_check() -> None:
    sc = scene(inf("a", "red", 5, 5, 3), inf("b", "blue", 6, 5, 2, leader=False))
    res = ask(sc, "shoot", "a", "b")
    assert res["leader_check"]["target_has_leader"] is False
    assert len(res["rolls"]) == 1


# --------------------------------------------------------------------------------------------
# Overheating machine guns (lines 13-17)


@pytest.mark.parametrize(
    ("turns", "check", "p"),
    [
        (0, False, Fraction(0)),
        (1, False, Fraction(0)),  # checks begin after 2 consecutive turns
        (2, True, Fraction(2, 6)),  # 1d6 <= 2
        (3, True, Fraction(3, 6)),
        (5, True, Fraction(5, 6)),
        (6, True, Fraction(1)),  # every face is <= 6
        (8, True, Fraction(1)),
    ],
)
def test_overheating(turns: int, check: bool, p: Fraction) -> None:
    # checked at the end of a turn in which the gun fired (line 13): `fired` is given
    sc = scene(at("mg", "red", 5, 5, type="machine-gun", consecutive_fire=turns, fired=True))
    res = ask(sc, "overheat", "mg")
    assert res["check"] is check
    assert Fraction(res["p_overheat"]["exact"]) == p
    if check:
        roll = res["rolls"][0]
        # the gun stays cool on turns+1 or more
        assert (roll["dice"], roll["sides"], roll["need"]) == (1, 6, turns + 1)
        assert Fraction(roll["p_success_exact"]) == 1 - p


def test_a_second_overheating_breaks_the_gun_for_good() -> None:
    hot: dict[str, Any] = {"type": "machine-gun", "consecutive_fire": 2, "fired": True}
    first = ask(scene(at("mg", "red", 5, 5, **hot)), "overheat", "mg")
    # the state that it overheated before and kept firing is now gun_state "overheated"
    again = ask(scene(at("mg", "red", 5, 5, **hot, gun_state="overheated")), "overheat", "mg")
    assert first["effect"] == "rest 1 turn or keep firing"
    assert again["effect"] == "permanently broken"


# --------------------------------------------------------------------------------------------
# Rockets (lines 20-23)


def rocket_scene(target_type: str, col: int = 9, row: int = 5, *others: dict[str, Any]) -> Scene:
    return scene(
        at("rk", "red", col - 4, row, type="artillery", weapon="rocket", die="d6"),
        at("t", "blue", col, row, type=target_type),
        *others,
    )


@pytest.mark.parametrize(
    ("target_type", "modifier"),
    [("infantry", -1), ("cavalry", -2), ("artillery", None), ("machine-gun", None)],
)
def test_rocket_on_target_and_morale_modifier(target_type: str, modifier: int | None) -> None:
    res = ask(rocket_scene(target_type), "rocket", "rk", "t")
    assert res["allowed"] is True and res["hits"] == 0  # rockets cause no hits
    assert Fraction(res["on_target"]["exact"]) == Fraction(1, 3)  # 5 or 6 on 1d6
    assert Fraction(res["drift"]["exact"]) == Fraction(2, 3)  # 1-4
    assert [(r["dice"], r["sides"]) for r in res["rolls"]] == [(1, 6), (1, 8), (1, 6)]
    target = res["morale_checks"][0]
    assert (target["unit"], target["modifier"]) == ("t", modifier)
    assert Fraction(target["exact"]) == Fraction(1, 3)


def test_rocket_drift_onto_a_neighbour() -> None:
    # target in box (9, 5). Each of the 48 drifts (8 directions x 1-6 boxes) is equally likely,
    # so a box reached by one of them is hit with 2/3 x 1/48 = 1/72: 2 boxes east, 1 box
    # north-east, 5 boxes south, and the battery itself 4 boxes west; 7 boxes east is beyond 6.
    sc = rocket_scene(
        "infantry",
        9,
        5,
        at("east2", "blue", 11, 5, type="cavalry"),
        at("ne1", "red", 10, 6, type="infantry"),
        at("south5", "blue", 9, 0, type="infantry"),
        at("east7", "blue", 16, 5, type="infantry"),
    )
    res = ask(sc, "rocket", "rk", "t")
    chances = {m["unit"]: (Fraction(m["exact"]), m["modifier"]) for m in res["morale_checks"]}
    assert chances == {
        "t": (Fraction(1, 3), -1),
        "east2": (Fraction(1, 72), -2),
        "ne1": (Fraction(1, 72), -1),
        "south5": (Fraction(1, 72), -1),
        "rk": (Fraction(1, 72), None),
    }


def test_rocket_drift_off_the_table() -> None:
    # target in the corner box (0, 0): west, south-west, south, south-east and north-west drift
    # leave the table at once (5 directions x 6 distances = 30 of 48); east, north and north-east
    # stay on an 18 x 12 board for 1-6 boxes. 2/3 x 30/48 = 5/12
    sc = scene(
        at("rk", "red", 3, 0, type="artillery", weapon="rocket", die="d6"),
        at("t", "blue", 0, 0, type="infantry"),
    )
    res = ask(sc, "rocket", "rk", "t")
    assert Fraction(res["drift"]["off_table"]["exact"]) == Fraction(5, 12)


# --------------------------------------------------------------------------------------------
# Movement (lines 24-31)


def reach(res: dict[str, Any]) -> set[tuple[int, int]]:
    return {(b["box"][0], b["box"][1]) for b in res["boxes"]}


def test_infantry_moves_one_box_in_any_direction() -> None:
    res = ask(scene(inf("a", "red", 5, 5)), "move", "a")
    assert reach(res) == {(5 + dx, 5 + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)} - {(5, 5)}
    assert res["may_change_facing"]["value"] is True  # line 27


def test_cavalry_moves_never_two_diagonals() -> None:
    # 1 or 2 straight (8 boxes), 1 diagonal (4), diagonal + straight either way (the 8 boxes a
    # knight's move away): 20 boxes, every box within 2 but the 4 two-diagonal corners
    res = ask(scene(at("c", "red", 5, 5, type="cavalry", facing=0)), "move", "c")
    within_two = {(5 + dx, 5 + dy) for dx in range(-2, 3) for dy in range(-2, 3)}
    corners = {(3, 3), (3, 7), (7, 3), (7, 7)}
    assert reach(res) == within_two - corners - {(5, 5)}
    how = {(b["box"][0], b["box"][1]): b["how"] for b in res["boxes"]}
    assert how[(7, 5)] == "2 boxes straight"
    assert how[(6, 6)] == "1 box diagonally"
    assert how[(7, 6)] == "1 box diagonally then 1 straight"


@pytest.mark.parametrize(
    ("kind", "col", "row", "boxes"),
    [
        ("infantry", 0, 0, {(1, 0), (0, 1), (1, 1)}),
        ("cavalry", 0, 0, {(1, 0), (2, 0), (0, 1), (0, 2), (1, 1), (2, 1), (1, 2)}),
        ("infantry", 17, 11, {(16, 11), (17, 10), (16, 10)}),  # far right corner of 18 x 12
    ],
)
def test_moves_stay_on_the_table(
    kind: str, col: int, row: int, boxes: set[tuple[int, int]]
) -> None:
    res = ask(scene(at("u", "red", col, row, type=kind)), "move", "u")
    assert reach(res) == boxes


def test_an_occupied_box_is_listed_with_its_occupant() -> None:
    res = ask(scene(inf("a", "red", 5, 5), inf("b", "blue", 6, 5)), "move", "a")
    held = {(b["box"][0], b["box"][1]): b["occupied_by"] for b in res["boxes"]}
    assert held[(6, 5)] == ["b"] and held[(4, 5)] == []


@pytest.mark.parametrize(
    ("kind", "facing", "nearest", "legal"),
    [
        ("infantry", 90, "north", True),
        ("infantry", 178, "west", True),
        ("infantry", 45, "north-east", False),  # a corner (line 24-25)
        ("cavalry", 315, "south-east", False),
        ("artillery", 45, "north-east", True),  # artillery may face a corner (line 25-26)
        ("machine-gun", 225, "south-west", True),
    ],
)
def test_facing(kind: str, facing: float, nearest: str, legal: bool) -> None:
    res = ask(scene(at("u", "red", 5, 5, type=kind, facing=facing)), "move", "u")
    assert res["facing"]["nearest"] == nearest
    assert res["facing"]["legal"] is legal


def test_a_requested_corner_facing_is_rejected_for_infantry_only() -> None:
    sc = scene(inf("a", "red", 5, 5), at("g", "red", 7, 7, type="artillery"))
    message = error(sc, "move", "a", "north-east")
    assert "'a'" in message and "infantry" in message and "'north'" in message
    assert ask(sc, "move", "a", "180")["facing"]["requested"] == "west"
    res = ask(sc, "move", "g", "north-east")
    assert res["facing"]["requested"] == "north-east"
    assert res["boxes"] is None  # page 3 gives no move for artillery
    assert "not a side or a corner" in error(sc, "move", "a", "30")


@pytest.mark.parametrize(
    ("args", "got"), [((), "0: none"), (("a", "north", "extra"), "3: 'a' 'north' 'extra'")]
)
def test_move_with_the_wrong_number_of_arguments_is_refused_like_the_other_refusals(
    args: tuple[str, ...], got: str
) -> None:
    # Every refusal of the sheet opens with the ruleset's id, this one too (the engine's).
    sc = scene(inf("a", "red", 5, 5))
    want = f"age-of-napoleon: move takes 1 or 2 arguments (move UNIT [FACING]), got {got}"
    assert error(sc, "move", *args) == want


# --------------------------------------------------------------------------------------------
# Melee (line 32-35) and leader hits in melee (line 36-37)


def test_melee_in_adjacent_boxes() -> None:
    # 3 bases d6 against 2 bases d3: 3d6 hits on b, 2d3 hits on a (the dice totals)
    sc = scene(inf("a", "red", 5, 5, 3), inf("b", "blue", 5, 6, 2, die="d3"))
    res = ask(sc, "melee", "a", "b")
    assert res["in_contact"] is True and res["contact"]["verdict"] == "adjacent boxes"
    a, b = res["sides"]["a"], res["sides"]["b"]
    assert (a["dice"]["dice"], a["dice"]["die"]) == (3, "d6")
    assert (b["dice"]["dice"], b["dice"]["die"]) == (2, "d3")
    assert a["hits"]["mean"] == pytest.approx(10.5)  # 3 x 3.5
    assert b["hits"]["mean"] == pytest.approx(4)  # 2 x 2
    # a leader is at risk on one or more top faces: 1 - (5/6)^3 = 91/216, 1 - (2/3)^2 = 5/9
    assert Fraction(a["leader_check"]["p_exact"]) == Fraction(91, 216)
    assert Fraction(b["leader_check"]["p_exact"]) == Fraction(5, 9)


def test_gunners_fight_with_their_melee_die() -> None:
    # line 35: gunners roll d3s in melee
    gun = at("gun", "red", 5, 5, 2, type="artillery", die="d6", melee_die="d3")
    res = ask(scene(gun, inf("b", "blue", 6, 5)), "melee", "gun", "b")
    assert res["sides"]["gun"]["dice"]["die"] == "d3"
    assert res["rolls"][0]["sides"] == 3


@pytest.mark.parametrize(
    ("a_xy", "b_xy", "verdict"),
    [
        ((5, 5), (15, 15), "not in contact"),  # diagonal boxes, bases 8.8 cm apart
        ((9, 9), (11, 11), "touching"),  # diagonal boxes, bases touch at a corner
        # corners 1 mm apart on each axis: sqrt(2) = 1.4 mm, inside the 2.8 mm uncertainty
        # (2 mm a base, sqrt(2^2 + 2^2))
        ((9, 9), (11.1, 11.1), "too close to call"),
        ((5, 5), (25, 5), "not in contact"),  # two boxes apart
        ((5, 5), (5, 15), "adjacent boxes"),  # boxes share a side
    ],
)
def test_base_to_base_contact(
    a_xy: tuple[float, float], b_xy: tuple[float, float], verdict: str
) -> None:
    sc = scene(
        unit("a", "red", [base("a-1", *a_xy, width=2, depth=2)], die="d6"),
        unit("b", "blue", [base("b-1", *b_xy, width=2, depth=2)], die="d6"),
    )
    res = ask(sc, "melee", "a", "b")
    assert res["contact"]["verdict"] == verdict
    assert res["in_contact"] is (verdict != "not in contact")
    assert len(res["rolls"]) == (2 if res["in_contact"] else 0)


def test_melee_dice_may_fall_to_zero() -> None:
    # "never less than one die" is written for firing (line 6); 2 bases - 3 = no dice
    given = [{"dice": -3, "reason": "attacking a square"}]
    sc = scene(inf("a", "red", 5, 5, 2, melee_modifiers=given), inf("b", "blue", 6, 5))
    res = ask(sc, "melee", "a", "b")
    assert res["sides"]["a"]["dice"]["dice"] == 0
    assert "hits" not in res["sides"]["a"]


# --------------------------------------------------------------------------------------------
# Morale (line 39): three grades; the procedure is on the QRC


def test_morale_names_the_grade_and_says_the_procedure_is_on_the_qrc() -> None:
    # morale now answers (it is a suggestion of the morale phase, and its outcome records
    # whether the QRC's result broke the unit); the procedure is still left to the QRC
    res = RS.resolve(scene(inf("a", "red", 5, 5, quality="elite")), "morale", ("a",))
    assert res.data["grade"] == "elite" and res.data["procedure"] == "on the QRC (not on page 3)"
    assert any("QRC" in line for line in res.lines)


@pytest.mark.parametrize(
    ("kind", "checks", "said"),
    [
        # line 22: -1 for infantry; line 23: -2 for cavalry; page 3 gives guns none
        (
            "infantry",
            1,
            "1 morale check forced by a rocket (003_5b7c133d01707a77.txt:22): -1 "
            "(003_5b7c133d01707a77.txt:22) for infantry",
        ),
        (
            "cavalry",
            2,
            "2 morale checks forced by a rocket (003_5b7c133d01707a77.txt:22): -2 "
            "(003_5b7c133d01707a77.txt:23) for cavalry",
        ),
        (
            "artillery",
            1,
            "1 morale check forced by a rocket (003_5b7c133d01707a77.txt:22): no "
            "rocket modifier on page 3 for artillery",
        ),
    ],
)
def test_morale_says_the_rocket_checks_owed_and_their_modifier(
    kind: str, checks: int, said: str
) -> None:
    sc = scene(inf("a", "red", 5, 5, type=kind, quality="raw", rocket_checks=checks))
    res = RS.resolve(sc, "morale", ("a",))
    assert res.lines[1] == f"{said}, in addition to any other modifiers"
    modifier = {"infantry": -1, "cavalry": -2}.get(kind)
    assert res.data["rocket_modifier"]["value"] == modifier


def test_an_unknown_grade_lists_the_three() -> None:
    # a declared field: the scene is refused when it is read
    with pytest.raises(UmpireError) as info:
        scene(inf("a", "red", 5, 5, quality="veteran"))
    message = str(info.value)
    assert "'veteran'" in message and "'raw', 'experienced' or 'elite'" in message


# --------------------------------------------------------------------------------------------
# Bad input: a clear message naming what is missing


def test_a_scene_without_a_grid_is_refused() -> None:
    # the loader refuses it (a grid ruleset needs grid.box); a Scene made without the loader
    # is refused by the ruleset itself
    with pytest.raises(UmpireError, match="grid"):
        RS.resolve(scene(inf("a", "r", 1, 1), inf("b", "b", 2, 1), grid=None), "shoot", ("a", "b"))
    bare = replace(scene(inf("a", "r", 1, 1), inf("b", "b", 2, 1)), grid_box=None)
    for action, args in (("shoot", ("a", "b")), ("move", ("a",)), ("suggest", ())):
        with pytest.raises(QuestionError, match=r"no grid.*\"box\""):
            RS.resolve(bare, action, args)


@pytest.mark.parametrize(
    ("sc", "action", "args", "words"),
    [
        (
            lambda: scene(inf("a", "r", 1, 1), inf("b", "b", 2, 1), ranges=None),
            "shoot",
            ("a", "b"),
            ["'rifle'", "ranges", "QRC"],
        ),
        (
            lambda: scene(
                inf("a", "r", 1, 1, weapon="musket"),
                inf("b", "b", 2, 1),
                ranges={"rifle": {"long": 4}},
            ),
            "shoot",
            ("a", "b"),
            ["'musket'", "'a'"],
        ),
        (
            lambda: scene(
                inf("a", "r", 1, 1), inf("b", "b", 2, 1), ranges={"rifle": {"long": "far"}}
            ),
            "shoot",
            ("a", "b"),
            ["rifle", "far"],
        ),
        (
            lambda: scene(inf("a", "r", 1, 1, die=None), inf("b", "b", 2, 1)),
            "shoot",
            ("a", "b"),
            ["'a'", "'die'", "'d6' or 'd3'"],
        ),
        (
            lambda: scene(inf("a", "r", 1, 1, weapon=None), inf("b", "b", 2, 1)),
            "shoot",
            ("a", "b"),
            ["'a'", "weapon"],
        ),
        (
            lambda: scene(inf("a", "r", 1, 1), inf("b", "r", 2, 1)),
            "shoot",
            ("a", "b"),
            ["'a'", "'b'", "side"],
        ),
        (lambda: scene(at("a", "r", 1, 1)), "move", ("a",), ["'a'", "'type'"]),
        (lambda: scene(inf("a", "r", 1, 1)), "overheat", ("a",), ["'a'", "machine gun"]),
        (
            lambda: scene(
                unit("a", "r", [base("a-1", 5, 5, role="officer")], die="d6", weapon="rifle"),
                inf("b", "b", 2, 1),
            ),
            "shoot",
            ("a", "b"),
            ["'a-1'", "'officer'", "'leader'"],
        ),
        (
            lambda: scene(inf("a", "r", 1, 1, fire_modifiers=[{"dice": -1}]), inf("b", "b", 2, 1)),
            "shoot",
            ("a", "b"),
            ["'a'", "reason"],
        ),
        (
            lambda: scene(inf("a", "r", 1, 1, weapon="rocket"), inf("b", "b", 2, 1)),
            "shoot",
            ("a", "b"),
            ["rocket a b"],
        ),
        (
            lambda: scene(inf("a", "r", 1, 1), inf("b", "b", 2, 1)),
            "rocket",
            ("a", "b"),
            ["'a'", "'rifle'", "'rocket'"],
        ),
        (
            lambda: scene(inf("a", "r", 1, 1)),
            "suggest",
            ("lunch",),
            ["'lunch'", "'firing'", "'end-of-turn'"],
        ),
    ],
)
def test_bad_input_names_what_is_wrong(
    sc: Any, action: str, args: tuple[str, ...], words: list[str]
) -> None:
    message = error(sc(), action, *args)
    assert message.startswith("age-of-napoleon: ") or action == "suggest"
    for word in words:
        assert word in message, (word, message)


@pytest.mark.parametrize(
    ("attrs", "words"),
    [
        # `die` and `type` are declared fields: a bad value is refused when the scene is read
        # (these were refused by the question before)
        ({"die": "d8"}, ["units[0].die", "'d8'", "'d6' or 'd3'"]),
        ({"type": "dragoons"}, ["units[0].type", "'dragoons'", "'machine-gun'"]),
    ],
)
def test_a_bad_declared_value_is_refused_when_the_scene_is_read(
    attrs: dict[str, Any], words: list[str]
) -> None:
    with pytest.raises(UmpireError) as info:
        scene(inf("a", "r", 1, 1, **attrs), inf("b", "b", 2, 1))
    for word in words:
        assert word in str(info.value), (word, str(info.value))


# --------------------------------------------------------------------------------------------
# suggest


def test_suggest_lists_what_applies_in_each_phase() -> None:
    sc = scene(
        inf("rifles", "red", 3, 3, 2),  # rifle: 3 boxes to ansar, long
        inf("ansar", "blue", 5, 5, 2, weapon="musket", die="d3"),  # musket reaches 2: no
        inf("far", "blue", 15, 3, 2),  # 12 boxes away: no one in range
        at(
            "mg", "red", 4, 5, type="machine-gun", weapon="rifle", die="d6", consecutive_fire=2
        ),  # adjacent to ansar (side)
    )
    assert RS.phases == ("firing", "movement", "melee", "morale", "end-of-turn")
    res = ask(sc, "suggest")
    assert res["phases"] == list(RS.phases) and res["phase"] is None
    by_kind: dict[str, set[tuple[str, ...]]] = {}
    for item in res["items"]:
        by_kind.setdefault(item["kind"], set()).add(tuple(item["args"]))
        assert item["result"]["action"] == item["kind"]
    # firing: rifles->ansar (3 boxes), mg->ansar (1 box), ansar->mg (1 box, musket short);
    # ansar->rifles is 3 boxes, beyond the musket's 2; "far" is 12+ boxes from everyone
    assert by_kind["shoot"] == {("rifles", "ansar"), ("mg", "ansar"), ("ansar", "mg")}
    assert by_kind["move"] == {("rifles",), ("ansar",), ("far",), ("mg",)}
    assert by_kind["melee"] == {("ansar", "mg")}
    assert by_kind["overheat"] == {("mg",)}
    only = ask(sc, "suggest", "melee")
    assert only["phase"] == "melee" and [i["kind"] for i in only["items"]] == ["melee"]


def test_suggest_finds_bases_touching_across_a_box_corner() -> None:
    # boxes (0, 0) and (1, 1) meet at a corner only; the bases touch there (edges at 10 cm).
    # "c" is in box (3, 3), 2 diagonal boxes from "b", edges 22 cm apart on each axis: no contact.
    sc = scene(
        unit("a", "red", [base("a-1", 9, 9, width=2, depth=2)], die="d6", type="infantry"),
        unit("b", "blue", [base("b-1", 11, 11, width=2, depth=2)], die="d6", type="infantry"),
        unit("c", "red", [base("c-1", 35, 35, width=2, depth=2)], die="d6", type="infantry"),
    )
    items = ask(sc, "suggest", "melee")["items"]
    assert [i["args"] for i in items] == [["a", "b"]]
    assert items[0]["result"]["contact"]["verdict"] == "touching"


def test_suggest_leaves_off_a_melee_of_units_not_in_contact() -> None:
    # Boxes (0, 0) and (1, 1) share no side; the bases' corners are 3 mm apart. a's position
    # is uncertain by 2 mm and b's by 0.5 mm: close enough for the melee phase to ask (within
    # twice the larger, 4 mm), but beyond the 2.5 mm the two allow together, so not touching
    # (line 32: only units in base to base contact fight), and suggest lists no melee.
    d = 0.3 / 2**0.5  # on each axis, for 0.3 cm corner to corner
    a = base("a-1", 9, 9, width=2, depth=2, uncertainty=0.2)  # box (0, 0), corner at (10, 10)
    b = base("b-1", 11 + d, 11 + d, width=2, depth=2, uncertainty=0.05)  # box (1, 1)
    troops = {"die": "d6", "type": "infantry"}
    sc = scene(unit("a", "red", [a], **troops), unit("b", "blue", [b], **troops))
    assert [c.args for c in RS.candidates(sc, "melee")] == [("a", "b")]
    assert ask(sc, "melee", "a", "b")["in_contact"] is False
    assert ask(sc, "suggest", "melee")["items"] == []


def big_scene() -> Scene:
    """60 units of 2 bases (120 bases) in facing lines, every unit with a rifle."""
    units = []
    for i in range(30):
        units.append(inf(f"r{i}", "red", i % 15 + 1, 2 + i // 15, 2))
        units.append(inf(f"b{i}", "blue", i % 15 + 1, 5 + i // 15, 2, die="d3"))
    return scene(*units)


def test_suggest_on_120_bases_finds_every_shot_in_range() -> None:
    sc = big_scene()
    assert sum(len(u.bases) for u in sc.units) == 120
    res = RS.resolve(sc, "suggest", ())
    shots = [i for i in res.data["items"] if i["kind"] == "shoot"]
    # red row 2 to blue row 5: 3 boxes straight ahead, plus 1 diagonal + 2 straight = 3.5 and
    # 2 diagonals + 1 straight = 4 to the sides, all within rifle long 4
    assert ("r0", "b0") in {tuple(i["args"]) for i in shots}
    assert all(i["result"]["band"] != "out-of-range" for i in shots)


# --------------------------------------------------------------------------------------------
# The real command line


CODE = {**os.environ, "PYTHONPATH": str(REPO)}
"""The command line of this checkout (the interpreter may have another copy installed)."""


def run(tmp_path: Path, doc: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "webui.cli", "resolve", str(path), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env=CODE,
    )


def doc(*units: dict[str, Any], **kw: Any) -> dict[str, Any]:
    kw.setdefault("ranges", RANGES)
    return scene_doc("age-of-napoleon", list(units), grid_box=10, **kw)


def test_cli_shoot_json_carries_the_contract_keys(tmp_path: Path) -> None:
    out = run(
        tmp_path, doc(inf("a", "red", 3, 3, 2), inf("b", "blue", 5, 5)), "shoot", "a", "b", "--json"
    )
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    for key in (
        "action",
        "ruleset",
        "shooter",
        "target",
        "distance",
        "band",
        "allowed",
        "rolls",
        "boxes",
    ):
        assert key in res
    assert (res["band"], res["boxes"], res["allowed"]) == ("long", 3.0, True)
    for key in ("purpose", "dice", "sides", "need", "p_success"):
        assert key in res["rolls"][0]


def test_cli_readable_answer(tmp_path: Path) -> None:
    out = run(tmp_path, doc(inf("a", "red", 3, 3, 2), inf("b", "blue", 5, 5)), "shoot", "a", "b")
    assert out.returncode == 0
    assert "3 boxes" in out.stdout and "long" in out.stdout


@pytest.mark.parametrize(
    ("units", "kw", "args", "word"),
    [
        (
            [inf("a", "red", 3, 3), inf("b", "blue", 5, 5)],
            {"ranges": {}},
            ("shoot", "a", "b"),
            "'rifle'",
        ),
        (
            [inf("a", "red", 3, 3, die="d4"), inf("b", "blue", 5, 5)],
            {},
            ("shoot", "a", "b"),
            "'d4'",
        ),
        # morale answers now; a unit without a grade is refused, naming it
        ([inf("a", "red", 3, 3)], {}, ("morale", "a"), "'quality'"),
        ([inf("a", "red", 3, 3)], {}, ("shoot", "a", "nobody"), "'nobody'"),
    ],
)
def test_cli_bad_input_exits_2_with_one_line(
    tmp_path: Path,
    units: list[dict[str, Any]],
    kw: dict[str, Any],
    args: tuple[str, ...],
    word: str,
) -> None:
    out = run(tmp_path, doc(*units, **kw), *args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0]
    assert "Traceback" not in out.stderr


def test_the_example_scene_resolves(tmp_path: Path) -> None:
    path = REPO / "examples" / "age-of-napoleon.json"
    out = subprocess.run(
        [sys.executable, "-m", "webui.cli", "resolve", str(path), "suggest", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        env=CODE,
    )
    assert out.returncode == 0, out.stderr
    kinds = {i["kind"] for i in json.loads(out.stdout)["items"]}
    assert {"shoot", "rocket", "move", "melee", "overheat"} <= kinds


def test_resolution_lines_cite_the_sheet() -> None:
    sc = scene(inf("a", "red", 3, 3, 2), inf("b", "blue", 5, 5))
    res: Resolution = RS.resolve(sc, "shoot", ("a", "b"))
    assert any(re.search(r"003_5b7c133d01707a77\.txt:18", line) for line in res.lines)


FORM = '{"dice": N, "reason": "...", "target": "id" (optional)}'


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("minus one", f"unit 'a': fire_modifiers is a list of {FORM}, got 'minus one'"),
        ([{"die": 1}], f"unit 'a' fire_modifiers[0]: fire_modifiers is a list of {FORM}, got "),
        (
            [{"dice": "one", "reason": "x"}],
            "unit 'a' fire_modifiers[0]: 'dice' must be a number of dice to add, got 'one'",
        ),
        (
            [{"dice": 1, "reason": "x"}, {"dice": 1, "reason": " "}],
            "unit 'a' fire_modifiers[1]: 'reason' must say which QRC modifier this is, got ' '",
        ),
    ],
)
def test_a_bad_modifier_is_refused_naming_where_and_the_form(given: Any, said: str) -> None:
    message = error(
        scene(inf("a", "r", 1, 1, fire_modifiers=given), inf("b", "b", 2, 1)), "shoot", "a", "b"
    )
    assert message.startswith(f"age-of-napoleon: {said}"), message
