"""skirmish-19c, case by case from the sheet (rules/sheets/000_157c880a83b52d41.txt).

Every expected number is read off the sheet's line named beside it and worked by hand in the
comment; the scenes are built through the real loader. Lengths in the scenes are cm.

Standard layout: bases are 2 x 2 cm squares facing +x (0 degrees). A shooter centred at x = 10
has its front edge at x = 11; a target centred at x = 12 + d has its near edge at 11 + d, so the
two are d cm apart edge to edge. Scenes that test an exact limit set `uncertainty: 0`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rules.engine import get_ruleset
from rules.errors import QuestionError, UmpireError
from rules.rulesets.skirmish_19c.sheet import (
    ACTIONS_TABLE,
    DAMAGE_ROLLS,
    match_evenly,
    melee_odds,
    row_label,
)
from rules.scene import Scene
from tests.builders import base, make_scene, rect, scene_doc, terrain, unit

RS = get_ruleset("skirmish-19c")
ROOT = Path(__file__).resolve().parents[2]

STEADY: dict[str, Any] = {"regular": True, "casualties": 0, "bayonet": True, "formation": "line"}


def sq(ident: str, x: float, y: float, facing: float = 0, **extra: Any) -> dict[str, Any]:
    return base(ident, x, y, facing, 2, 2, **extra)


def column(prefix: str, x: float, n: int, y: float = 50, facing: float = 0) -> list[Any]:
    """`n` bases one above the other, 3 cm between centres (1 cm gaps)."""
    return [sq(f"{prefix}-{i + 1}", x, y + 3 * i, facing) for i in range(n)]


def shooter(n: int = 1, weapon: str = "rifle", x: float = 10, **attrs: Any) -> dict[str, Any]:
    state = {"type": "infantry", "quality": "veteran", "weapon": weapon, "commanded": True}
    state |= {"loaded": True, "moved": False}
    return unit("red", "red", column("red", x, n), **(state | attrs))


TARGET_STATE = {"type": "infantry", "quality": "veteran", "weapon": "musket"} | STEADY


def target(d: float, n: int = 1, ident: str = "blue", **attrs: Any) -> dict[str, Any]:
    return unit(ident, "blue", column(ident, 12 + d, n, facing=180), **(TARGET_STATE | attrs))


def hero(weapon: str, y: float = 50) -> dict[str, Any]:
    """A lone loaded hero figure, `hart`, at (10, y) facing along x: a player character."""
    state = {"type": "infantry", "quality": "hero", "weapon": weapon, "loaded": True}
    return unit("red", "red", [sq("hart", 10, y, role="hero")], **state)


def scene(units: list[Any], terrain_: list[Any] | None = None, **kw: Any) -> Scene:
    return make_scene("skirmish-19c", units, terrain=terrain_, width=300, depth=120, **kw)


def ask(sc: Scene, action: str, *args: str) -> dict[str, Any]:
    return RS.resolve(sc, action, list(args)).as_json()


# --------------------------------------------------------------------------------------------
# Weapons table (lines 9-16) and the to-hit table (lines 40-43), in the open


@pytest.mark.parametrize(
    ("weapon", "d", "band", "need"),
    [
        # Line 10: Rifles 30 / 90 / 180 cms; line 41-43 open column: 2, 4, 6.
        ("rifle", 30, "short", 2),
        ("rifle", 31, "medium", 4),
        ("rifle", 90, "medium", 4),
        ("rifle", 91, "long", 6),
        ("rifle", 180, "long", 6),
        # Line 11: Muskets 20 / 40 / 120 cms.
        ("musket", 20, "short", 2),
        ("musket", 40, "medium", 4),
        ("musket", 120, "long", 6),
        # Line 12: Pistols 4 / 8 / 20 cms.
        ("pistol", 4, "short", 2),
        ("pistol", 8, "medium", 4),
        ("pistol", 9, "long", 6),
        # Line 13: Partisans etc 8 / 12 / 24 cms.
        ("partisan", 12, "medium", 4),
        ("partisan", 24, "long", 6),
        # Line 15: Hatchet / Knife 5 / 10 / 20 cms; line 16: Rocks etc 4 / 8 / 20 cms.
        ("hatchet", 5, "short", 2),
        ("knife", 10, "medium", 4),
        ("rocks", 20, "long", 6),
        # Rifled muskets and Baker rifles read the Rifles row.
        ("rifled-musket", 90, "medium", 4),
        ("baker-rifle", 31, "medium", 4),
    ],
)
def test_range_band_and_need_in_the_open(weapon: str, d: float, band: str, need: int) -> None:
    out = ask(scene([shooter(weapon=weapon), target(d)], uncertainty=0), "shoot", "red", "blue")
    assert out["band"] == band
    assert out["distance"] == {"value": d, "unit": "cm"}
    assert out["allowed"] is True
    assert out["rolls"][0]["purpose"] == "to hit"
    assert out["rolls"][0]["sides"] == 8
    assert out["rolls"][0]["need"] == need
    # One D8 needing `need`: (9 - need) / 8.
    assert out["rolls"][0]["p_success_exact"] == str(Fraction(9 - need, 8))


@pytest.mark.parametrize(("weapon", "d"), [("rifle", 181), ("musket", 121), ("pistol", 21)])
def test_beyond_long_range_is_out_of_range(weapon: str, d: float) -> None:
    out = ask(scene([shooter(weapon=weapon), target(d)], uncertainty=0), "shoot", "red", "blue")
    assert out["band"] == "out-of-range"
    assert out["allowed"] is False
    assert out["rolls"] == []


def test_swords_cannot_shoot() -> None:
    # Line 14: "Swords - - - 3": no range at all.
    out = ask(scene([shooter(weapon="sword"), target(2)]), "shoot", "red", "blue")
    assert out["allowed"] is False
    assert out["band"] == "out-of-range"


def test_a_band_edge_inside_the_uncertainty_is_too_close_to_call() -> None:
    # 30.1 cm is 1 mm past short range; two bases of 2 mm each: sqrt(8) = 2.83 mm > 1 mm.
    out = ask(scene([shooter(), target(30.1)]), "shoot", "red", "blue")
    assert out["band"] == "medium"
    assert out["band_threshold"]["verdict"] == "too close to call"
    assert out["band_threshold"]["margin"]["value"] == pytest.approx(-0.1)


# --------------------------------------------------------------------------------------------
# Cover columns (lines 40-43): soft and hard cover


@pytest.mark.parametrize(
    ("d", "kind", "cover", "need"),
    [
        (20, "woods", "soft", 4),  # short, soft cover: 4
        (50, "woods", "soft", 6),  # medium, soft cover: 6
        # A figure in woods 100 cm away is not seen (line 61: D6 x 10 cm), so behind a hedge.
        (100, "hedge", "soft", 7),  # long, soft cover: 7
        (20, "wall", "hard", 6),  # short, hard cover: 6
        (50, "wall", "hard", 7),  # medium, hard cover: 7
        (100, "wall", "hard", 8),  # long, hard cover: 8
    ],
)
def test_cover_column(d: float, kind: str, cover: str, need: int) -> None:
    x_target = 12 + d
    if kind == "woods":
        # The target stands 2 cm inside the wood's edge (line 57: seen up to 10 cm inside).
        piece = terrain("cover", "woods", rect(x_target - 3, 40, x_target + 20, 60))
    else:
        # A wall or hedge 1 cm in front of the target's near edge (the engine's 3 cm "close
        # behind").
        piece = terrain("cover", kind, rect(x_target - 2.5, 40, x_target - 2, 60))
    out = ask(scene([shooter(), target(d)], [piece]), "shoot", "red", "blue")
    assert out["cover"] == cover
    assert out["rolls"][0]["need"] == need


# --------------------------------------------------------------------------------------------
# Who fires (lines 24-36) and the distribution of hits


@pytest.mark.parametrize(
    ("figures", "attrs", "fire"),
    [
        # Line 29: all commanded troops fire if loaded.
        (5, {"commanded": True, "loaded": True}, 5),
        # Line 33: stationary, 1 per 2 figures: 5 // 2 = 2.
        (5, {"commanded": False, "moved": False}, 2),
        (3, {"commanded": False, "moved": False}, 1),
        # Line 34: moving, 1 per 3 figures: 5 // 3 = 1.
        (5, {"commanded": False, "moved": True}, 1),
        # Line 36: Baker rifles 1 per 3 stationary (6 // 3 = 2), 1 per 4 moving (8 // 4 = 2).
        (6, {"commanded": False, "moved": False, "weapon": "baker-rifle"}, 2),
        (8, {"commanded": False, "moved": True, "weapon": "baker-rifle"}, 2),
        (7, {"commanded": False, "moved": True, "weapon": "baker-rifle"}, 1),
    ],
)
def test_shooters_by_ratio(figures: int, attrs: dict[str, Any], fire: int) -> None:
    out = ask(scene([shooter(figures, **attrs), target(20)]), "shoot", "red", "blue")
    assert out["shooters"]["fire"] == fire
    assert out["rolls"][0]["dice"] == fire


def test_a_lone_stationary_uncommanded_figure_has_no_shot() -> None:
    # 1 // 2 = 0 shooters (line 33).
    out = ask(scene([shooter(1, commanded=False), target(20)]), "shoot", "red", "blue")
    assert out["allowed"] is False


def test_commanded_troops_must_be_loaded() -> None:
    # Line 24: a turn halted to load before a turn in which they fire.
    out = ask(scene([shooter(3, loaded=False), target(20)]), "shoot", "red", "blue")
    assert out["allowed"] is False
    assert "load" in out["reasons"][0]["reason"]


def test_distribution_of_hits_two_shooters_at_medium_range() -> None:
    # 4 stationary uncommanded figures fire 2 (line 33); medium range in the open needs 4 on a
    # D8: p = 5/8. P(0) = (3/8)^2 = 9/64, P(1) = 2 * 5/8 * 3/8 = 30/64, P(2) = 25/64.
    out = ask(scene([shooter(4, commanded=False), target(50)]), "shoot", "red", "blue")
    hits = [Fraction(h["exact"]) for h in out["hits"]["distribution"]]
    assert hits == [Fraction(9, 64), Fraction(30, 64), Fraction(25, 64)]


def test_player_character_fires_if_loaded_without_a_commanded_flag() -> None:
    # A lone hero figure is a PC (line 84): all fire if loaded (line 29); no `commanded` needed.
    out = ask(scene([hero("pistol"), target(3)]), "shoot", "red", "blue")
    assert out["allowed"] is True
    assert out["shooters"]["fire"] == 1


def test_a_player_character_picks_the_figure_he_shoots() -> None:
    # Line 51: a PC "may shoot at any figure they wish in clear sight": naming one figure of
    # the group, the range is measured to it and every hit falls on it. The hero stands at
    # y = 60: blue-2 (y = 60) is 20 cm straight ahead (front edges x = 11 and x = 31), blue-1
    # (y = 50) off to the side; a rifle's short range is 30 cm (line 10): 2+ on a D8 in the
    # open (line 41).
    bases = [sq("blue-1", 32, 50, 180), sq("blue-2", 32, 60, 180)]
    blue = unit("blue", "blue", bases, **TARGET_STATE)
    out = ask(scene([hero("rifle", y=60), blue]), "shoot", "red", "blue-2")
    assert out["allowed"] is True
    assert out["between"] == {"shooter": "hart", "target": "blue-2"}
    assert out["distance"]["value"] == pytest.approx(20.0)
    assert (out["band"], out["rolls"][0]["need"]) == ("short", 2)
    assert out["allocation"]["figures"] == ["blue-2"]
    assert out["allocation"]["summary"] == (
        "a player character picks his target: hits fall on blue-2"
    )
    assert out["allocation"]["source"] == "000_157c880a83b52d41.txt:51"


# --------------------------------------------------------------------------------------------
# Damage table (lines 45-49)


@pytest.mark.parametrize(
    ("gunpowder", "quality", "graze", "wound", "kill"),
    [
        # Gunpowder, a veteran (no modifier): 1-2 graze, 3-4 wound, 5-6 kill.
        (True, "veteran", Fraction(2, 6), Fraction(2, 6), Fraction(2, 6)),
        # Hero +1: faces read 2..7 -> graze on 1 only, wound 2-3, kill 4-6.
        (True, "hero", Fraction(1, 6), Fraction(2, 6), Fraction(3, 6)),
        # Raw -1: faces read 0..5 -> graze 1-3, wound 4-5, kill 6.
        (True, "raw", Fraction(3, 6), Fraction(2, 6), Fraction(1, 6)),
        # Other: 1-3 graze, 4-5 wound, 6 kill.
        (False, "veteran", Fraction(3, 6), Fraction(2, 6), Fraction(1, 6)),
        # Other, hero: faces read 2..7 -> graze 1-2, wound 3-4, kill 5-6.
        (False, "hero", Fraction(2, 6), Fraction(2, 6), Fraction(2, 6)),
        # Other, raw: faces read 0..5 -> graze 1-4, wound 5-6, no kill.
        (False, "raw", Fraction(4, 6), Fraction(2, 6), Fraction(0)),
    ],
)
def test_damage_odds(
    gunpowder: bool, quality: str, graze: Fraction, wound: Fraction, kill: Fraction
) -> None:
    _, odds = DAMAGE_ROLLS[gunpowder, quality]
    assert odds == {"graze": graze, "wound": wound, "kill": kill}


def test_shot_reports_damage_and_kills_for_a_hero() -> None:
    # One commanded hero rifleman at short range, open: hit 7/8; gunpowder +1 kill 3/6.
    # P(kill) = 7/8 * 1/2 = 7/16.
    out = ask(scene([shooter(1, quality="hero"), target(10)]), "shoot", "red", "blue")
    assert out["rolls"][1]["purpose"] == "damage"
    assert out["rolls"][1]["modifiers"][0]["value"] == 1
    assert out["damage"]["per_hit"]["kill"]["exact"] == "1/2"
    assert [k["exact"] for k in out["kills"]["distribution"]] == ["9/16", "7/16"]


# --------------------------------------------------------------------------------------------
# Targets: nearest enemy, sight, allocation (lines 38, 51-55)


def test_uncommanded_troops_shoot_only_at_the_nearest_enemy() -> None:
    near = target(20, ident="near")
    far = unit(
        "far",
        "blue",
        column("far", 12 + 40, 1, y=60, facing=180),
        type="infantry",
        quality="veteran",
        weapon="musket",
        **STEADY,
    )
    sc = scene([shooter(4, commanded=False), near, far])
    assert ask(sc, "shoot", "red", "far")["allowed"] is False
    assert ask(sc, "shoot", "red", "near")["allowed"] is True
    # Commanded troops may pick any target group (line 24).
    sc2 = scene([shooter(4, commanded=True), near, far])
    assert ask(sc2, "shoot", "red", "far")["allowed"] is True


def test_sight_needs_the_entire_base_and_other_figures_block() -> None:
    # A third party's figure 20 cm ahead of the shooter, in line: not within 2 cm, so it blocks.
    screen = unit("screen", "green", [sq("screen-1", 31, 50)], type="infantry")
    out = ask(scene([shooter(1), target(40), screen]), "shoot", "red", "blue")
    assert out["allowed"] is False
    # The same figure 1.5 cm from the shooter's edge is shot over (line 55: within 2 cms).
    screen = unit("screen", "green", [sq("screen-1", 13.5, 50)], type="infantry")
    out = ask(scene([shooter(1), target(40), screen]), "shoot", "red", "blue")
    assert out["allowed"] is True


def test_hits_fall_among_the_nearest_ten_figures() -> None:
    # 12 target figures in a column from y = 50 up; the shooter is at y = 50, so the nearest
    # ten are blue-1 .. blue-10 (line 53).
    out = ask(scene([shooter(1), target(20, n=12)]), "shoot", "red", "blue")
    assert out["allocation"]["figures"] == [f"blue-{i}" for i in range(1, 11)]


# Lines 61 and 63: figures in terrain. The shooter's front edge is at x = 11 and a target
# `d` cm away stands on x = 11 + d .. 13 + d (2 cm square bases, centres 1 cm in).


def test_two_figures_deep_in_one_wood_see_each_other_within_20cm() -> None:
    # Line 63: "Visibility is 20 cms within woods". Both deep in one wood (its edge 60 cm
    # behind the shooter): 18 cm apart they see each other and may shoot (soft cover, line
    # 42-43 column; short range for rifles, line 10); 22 cm apart they do not.
    wood = [terrain("wood", "woods", rect(-50, 0, 100, 120))]
    near = ask(scene([shooter(), target(18)], wood, uncertainty=0), "shoot", "red", "blue")
    assert (near["allowed"], near["band"], near["cover"]) == (True, "short", "soft")
    assert "spotting" not in near  # the shooter stands in the same wood: no D6 x 10 cm
    seen = ask(scene([shooter(), target(18)], wood), "measure", "red", "blue")
    assert seen["in_sight"] is True
    assert seen["sight"]["seen_within"] == {"value": 20.0, "unit": "cm"}
    far = scene([shooter(), target(22)], wood, uncertainty=0)
    assert ask(far, "measure", "red", "blue")["in_sight"] is False
    assert ask(far, "shoot", "red", "blue")["allowed"] is False


def test_a_figure_in_woods_near_the_edge_is_spotted_at_d6_x_10cm() -> None:
    # Line 61: a figure in terrain within 10 cm of its edge is seen at D6 x 10 cm. The wood
    # starts at x = 40; the target 35 cm away stands on x = 46 .. 48, 6 cm inside. A D6 x 10
    # reaches 35 cm on a 4, 5 or 6: 4+, 1/2.
    wood = [terrain("wood", "woods", rect(40, 0, 100, 120))]
    out = ask(scene([shooter(), target(35)], wood, uncertainty=0), "shoot", "red", "blue")
    assert out["allowed"] is True
    spot = out["spotting"]
    assert (spot["dice"], spot["sides"], spot["need"], spot["p_success_exact"]) == (1, 6, 4, "1/2")
    assert spot["source"] == "000_157c880a83b52d41.txt:61"
    # 70 cm away (the wood starting at x = 75, the target 6 cm inside): beyond the 60 cm a
    # D6 x 10 can reach, so not seen at all, though rifles reach 180 cm (line 10).
    wood = [terrain("wood", "woods", rect(75, 0, 150, 120))]
    far = scene([shooter(), target(70)], wood, uncertainty=0)
    assert ask(far, "shoot", "red", "blue")["allowed"] is False
    seen = ask(far, "measure", "red", "blue")
    assert seen["in_sight"] is False
    assert seen["sight"]["seen_within"] == {"value": 60.0, "unit": "cm"}


def test_a_figure_deep_in_a_town_is_seen_only_once_it_fires() -> None:
    # Line 61: deeper than 10 cm in terrain (the town starts at x = 30; the target 30 cm away
    # stands on x = 41 .. 43, 11 cm inside) it is not seen, unless it fires; then a D6 x 10
    # must reach 30 cm: 3+.
    town = [terrain("town", "town", rect(30, 0, 100, 120))]
    hidden = scene([shooter(), target(30)], town, uncertainty=0)
    assert ask(hidden, "shoot", "red", "blue")["allowed"] is False
    assert ask(hidden, "measure", "red", "blue")["sight"]["seen_within"] is None
    fired = scene([shooter(), target(30, fired=True)], town, uncertainty=0)
    out = ask(fired, "shoot", "red", "blue")
    assert (out["allowed"], out["spotting"]["need"]) == (True, 3)
    assert out["cover"] == "hard"


def test_terrain_that_gives_no_cover_hides_nobody() -> None:
    # Line 61 "or are in plain sight": a town the scene says gives no cover (ruins, a
    # village green) hides nobody; the figure is seen as in the open, no D6 x 10 cm.
    town = [terrain("town", "town", rect(30, 0, 100, 120), cover="none")]
    out = ask(scene([shooter(), target(30)], town, uncertainty=0), "shoot", "red", "blue")
    assert (out["allowed"], out["cover"]) == (True, "none")
    assert "spotting" not in out


# --------------------------------------------------------------------------------------------
# Command (lines 93-103)


def leader_scene(
    d: float,
    *,
    in_woods: str = "",
    quality: str = "veteran",
    friend_attrs: Any = None,
    leader_attrs: Any = None,
    friend_roles: tuple[str, ...] = (),
) -> Scene:
    """An officer at x = 10 and a friendly group of 3 figures whose nearest is d cm away."""
    lead = unit(
        "capt",
        "red",
        [sq("capt-1", 10, 50, role="officer")],
        type="infantry",
        quality=quality,
        **(leader_attrs or {}),
    )
    figs = [sq(f"men-{i + 1}", 12 + d, 50 + 3 * i) for i in range(3)]
    for fig, role in zip(figs, friend_roles, strict=False):
        fig["role"] = role
    men = unit("men", "red", figs, type="infantry", quality="raw", **(friend_attrs or {}))
    woods = []
    if in_woods == "leader":
        woods = [terrain("wood", "woods", rect(5, 40, 15, 70))]
    if in_woods == "men":
        woods = [terrain("wood", "woods", rect(10 + d, 40, 20 + d, 70))]
    return scene([lead, men], woods, uncertainty=0)


@pytest.mark.parametrize(
    ("d", "in_woods", "commanded"),
    [
        (50, "", 1),  # line 99: 50 cms in the open; 50.0 is within (only men-1 is level)
        (49, "", 3),  # men-2, men-3 are sqrt(49^2 + 3^2) = 49.09 and 49.37 cm away: all in
        (51, "", 0),
        (25, "leader", 1),  # 25 cms in enclosed terrain (the leader's)
        (26, "leader", 0),
        (30, "men", 0),  # reading: the commanded figure's enclosed terrain also limits to 25
    ],
)
def test_command_distance(d: float, in_woods: str, commanded: int) -> None:
    out = ask(leader_scene(d, in_woods=in_woods), "command", "capt-1")
    assert len(out["in_command"]) == commanded
    assert out["radius"]["value"] == (25 if in_woods == "leader" else 50)


def test_command_distance_too_close_to_call() -> None:
    # 50.1 cm with the default 2 mm a base: 1 mm over, inside 2.83 mm.
    lead = unit("capt", "red", [sq("capt-1", 10, 50, role="officer")], quality="veteran")
    men = unit("men", "red", [sq("men-1", 62.1, 50)], quality="raw")
    out = ask(scene([lead, men]), "command", "capt")
    assert out["in_command"] == []
    assert out["too_close_to_call"][0]["base"] == "men-1"


@pytest.mark.parametrize(
    ("quality", "leader_attrs", "roles", "dice"),
    [
        ("hero", {}, (), 4),  # line 93
        ("veteran", {}, (), 3),  # line 94
        ("raw", {}, (), 2),  # line 95
        ("veteran", {"fired": True}, (), 2),  # line 95: -1 die if the officer is firing
        ("veteran", {}, ("drummer",), 4),  # line 97: +1 die with a drummer commanded
        ("raw", {"loading": True}, ("bugler",), 2),  # -1 + 1
    ],
)
def test_activation_dice(quality: str, leader_attrs: Any, roles: Any, dice: int) -> None:
    sc = leader_scene(10, quality=quality, leader_attrs=leader_attrs, friend_roles=roles)
    out = ask(sc, "command", "capt-1")
    assert out["rolls"][0]["dice"] == dice
    assert out["rolls"][0]["sides"] == 6


def test_activation_points_and_costs() -> None:
    # 3 loyal figures cost 1 pt each (line 101): 3 pts; 3D6 >= 3 is certain.
    out = ask(leader_scene(10), "command", "capt-1")
    assert out["cost_all"] == 3
    assert out["p_enough_for_all"]["exact"] == "1"
    # Disloyal: 2 pts each (line 103): 6 pts; P(3D6 >= 6) = 1 - P(<= 5) = 1 - 10/216 = 103/108.
    out = ask(leader_scene(10, friend_attrs={"loyal": False}), "command", "capt-1")
    assert out["cost_all"] == 6
    assert out["p_enough_for_all"]["exact"] == "103/108"
    # Routers also 2 pts.
    out = ask(leader_scene(10, friend_attrs={"status": "routing"}), "command", "capt-1")
    assert out["cost_all"] == 6


def test_command_needs_a_command_figure() -> None:
    with pytest.raises(QuestionError, match=r"'men'.*role"):
        ask(leader_scene(10), "command", "men")


# --------------------------------------------------------------------------------------------
# Risk factors (lines 117-130, 160-171) and the actions tables (lines 150-154, 193-197)


@pytest.mark.parametrize(
    ("rf", "row"),
    [
        (-5, "RF0"),
        (0, "RF0"),
        (1, "RF1"),
        (2, "RF2-5"),
        (5, "RF2-5"),
        (6, "RF6-8"),
        (8, "RF6-8"),
        (9, "RF9+"),
        (13, "RF9+"),
    ],
)
def test_row_labels(rf: int, row: str) -> None:
    assert row_label(rf) == row


def risk_unit(
    ident: str = "red",
    side: str = "red",
    x: float = 10,
    n: int = 4,
    facing: float = 0,
    **attrs: Any,
) -> dict[str, Any]:
    state = {"type": "infantry", "quality": "veteran", "weapon": "musket"} | STEADY
    return unit(ident, side, column(ident, x, n, facing=facing), **(state | attrs))


def factors(out: dict[str, Any]) -> dict[str, int]:
    return {f["source"]: f["value"] for f in out["factors"]}


def test_risk_no_enemy_in_sight() -> None:
    # Line 117: -4 no enemy in sight; line 120: -1 regulars. RF -5 -> "Up to RF0".
    out = ask(scene([risk_unit()]), "risk", "red")
    assert factors(out) == {"000_157c880a83b52d41.txt:117": -4, "000_157c880a83b52d41.txt:120": -1}
    assert out["risk_factor"] == -5
    assert out["row"] == "RF0"
    assert len(out["outcomes"]) == 6
    assert out["outcomes"][5]["text"].startswith("Move towards the nearest visible enemy")


def test_risk_raw_irregulars_in_range_of_an_enemy() -> None:
    # An enemy musket group 50 cm ahead (in its 120 cm range, line 11), in sight: +1 (line 123);
    # raw: +1 (line 124); not regulars: nothing. RF 2 -> row RF2-5 (line 152).
    enemy = risk_unit("blue", "blue", x=62, facing=180)
    out = ask(scene([risk_unit(quality="raw", regular=False), enemy]), "risk", "red")
    assert out["risk_factor"] == 2
    assert out["row"] == "RF2-5"
    texts = [(o["text"], o["italic"]) for o in out["outcomes"]]
    assert texts == [
        ("Withdraw towards cover further from enemy", False),
        ("Move to take cover in the nearest terrain within 1 move, or away from all enemies", True),
        ("Halt in position facing the nearest enemy", True),
        ("Continue current actions facing the nearest enemy (Charge?)", True),
        ("Continue current actions facing the nearest enemy (Charge?)", True),
        ("Advance towards nearest enemy (Charge?)", True),
    ]


def test_risk_losses_per_ten_percent() -> None:
    # 7 figures on the table and 3 casualties: 3 of 10 = 30% -> +3 (line 125).
    # With the -4 of no enemy and -1 regulars: 3 - 5 = -2.
    out = ask(scene([risk_unit(n=7, casualties=3)]), "risk", "red")
    assert factors(out)["000_157c880a83b52d41.txt:125"] == 3
    assert out["risk_factor"] == -2


def test_risk_hero_within_five_cm_and_entirely_in_cover() -> None:
    # A hero 4 cm from the group (line 119: -1); the group stands entirely in woods (line 121:
    # -1); no enemy (-4), regulars (-1): -7.
    hero = unit("hart", "red", [sq("hart-1", 17, 50, role="hero")], quality="hero")
    woods = terrain("wood", "woods", rect(5, 45, 15, 65))
    out = ask(scene([risk_unit(), hero], [woods]), "risk", "red")
    got = factors(out)
    assert got["000_157c880a83b52d41.txt:119"] == -1
    assert got["000_157c880a83b52d41.txt:121"] == -1
    assert out["risk_factor"] == -7


def test_risk_enemy_to_the_rear_and_running() -> None:
    # The group faces +x; an enemy musket group 18 cm behind it (x = 40 against 60) is in its
    # rear and in sight: +2 (line 127), in range +1 (line 123); status running +3 (line 130);
    # regulars -1: 5 -> RF2-5.
    enemy = risk_unit("blue", "blue", x=40, facing=180)
    red = risk_unit(x=60, facing=0, status="running")
    out = ask(scene([red, enemy]), "risk", "red")
    got = factors(out)
    assert got["000_157c880a83b52d41.txt:127"] == 2
    assert got["000_157c880a83b52d41.txt:130"] == 3
    assert out["risk_factor"] == 5


def test_risk_shock_cavalry_within_fifty_cm() -> None:
    # Hussars with swords 30 cm ahead: shock cavalry (reading) within 50 cm, the group in line,
    # not in cover: +2 (line 128). Also in sight but swords have no range: no +1.
    hussars = unit(
        "hussars",
        "blue",
        column("hussars", 42, 2, facing=180),
        type="cavalry",
        quality="veteran",
        weapon="sword",
        casualties=0,
    )
    out = ask(scene([risk_unit(), hussars]), "risk", "red")
    assert factors(out) == {"000_157c880a83b52d41.txt:120": -1, "000_157c880a83b52d41.txt:128": 2}
    out = ask(scene([risk_unit(formation="square"), hussars]), "risk", "red")
    assert "000_157c880a83b52d41.txt:128" not in factors(out)


def test_risk_rf9_row() -> None:
    # Raw, irregular, 3 of 10 lost, running, an enemy in range behind: 1 + 1 + 3 + 2 + 3 = 10.
    enemy = risk_unit("blue", "blue", x=40, facing=180)
    red = risk_unit(x=60, n=7, quality="raw", regular=False, casualties=3, status="retreating")
    out = ask(scene([red, enemy]), "risk", "red")
    assert out["risk_factor"] == 10
    assert out["row"] == "RF9+"
    # Line 154 with its doubled cell read once, in italics (module docstring).
    assert [o["text"].split(" ")[0] for o in out["outcomes"]] == [
        "Run",
        "Run",
        "Withdraw",
        "Move",
        "Halt",
        "Halt",
    ]
    assert [o["italic"] for o in out["outcomes"]] == [False, False, False, True, True, True]


def test_cavalry_risk_factors() -> None:
    # Cavalry list: "Good troops or Officer" -1 (line 162), no "regulars" factor; no enemy -4.
    cav = unit(
        "cav",
        "red",
        column("cav", 10, 2),
        type="cavalry",
        quality="veteran",
        weapon="sword",
        casualties=0,
    )
    out = ask(scene([cav]), "risk", "cav")
    assert factors(out) == {"000_157c880a83b52d41.txt:160": -4, "000_157c880a83b52d41.txt:162": -1}
    # A poor (raw) unit in range of an enemy musket group in sight: +1 (line 165) +1 (line 166).
    cav = unit(
        "cav",
        "red",
        column("cav", 10, 2),
        type="cavalry",
        quality="raw",
        weapon="sword",
        casualties=0,
    )
    out = ask(scene([cav, risk_unit("blue", "blue", x=40, facing=180)]), "risk", "cav")
    assert factors(out) == {"000_157c880a83b52d41.txt:165": 1, "000_157c880a83b52d41.txt:166": 1}
    assert out["table"] == "cavalry"
    # Line 195, RF2-5.
    assert out["outcomes"][0]["text"] == "Canter further from the nearest enemy"
    assert out["outcomes"][5]["text"] == "Advance towards nearest enemy at gallop (Charge?)"


def test_actions_tables_have_six_faces_a_row() -> None:
    for table in ACTIONS_TABLE.values():
        assert list(table) == ["RF0", "RF1", "RF2-5", "RF6-8", "RF9+"]
        for _, row in table.values():
            assert [o["face"] for o in row] == [1, 2, 3, 4, 5, 6]


def test_infantry_rf1_row_from_the_sheet() -> None:
    # Line 151: the first cell is plain, the rest in italics; Continue (Charge?) read three times.
    _, row = ACTIONS_TABLE["infantry"]["RF1"]
    assert row[0]["text"].startswith("Move to take cover") and not row[0]["italic"]
    assert row[1]["text"] == "Halt in position facing the nearest enemy" and row[1]["italic"]
    assert [o["charge"] for o in row] == [False, False, True, True, True, True]


# --------------------------------------------------------------------------------------------
# Melee (lines 67-80)


def test_melee_odds_by_hand() -> None:
    # +1 v -1: A wins when x + 1 > y - 1, i.e. y <= x + 1: 2+3+4+5+6+6 = 26 of 36 = 13/18;
    # draw y = x + 2: 4/36 = 1/9; B wins 6/36 = 1/6. A kills on a natural 6 winning: 6/36.
    # B wins with y = 5 when x < 3 (2/36), with y = 6 when x < 4 (3/36).
    odds = melee_odds(1, -1)
    assert odds["a_wins"] == Fraction(13, 18)
    assert odds["draw"] == Fraction(1, 9)
    assert odds["b_wins"] == Fraction(1, 6)
    assert odds["a_kills"] == Fraction(1, 6)
    assert odds["a_wounds"] == Fraction(1, 6)
    assert odds["b_wounds"] == Fraction(1, 18)
    assert odds["b_kills"] == Fraction(1, 12)
    # Even: win 15/36 each, draw 6/36.
    even = melee_odds(0, 0)
    assert (even["a_wins"], even["draw"]) == (Fraction(15, 36), Fraction(6, 36))


def test_matching_as_evenly_as_possible() -> None:
    # Three against two, everyone touching everyone: two one-to-one pairs, the third joins
    # the first defender (fewest assailants, then order).
    touching = {(a, d) for a in ("a1", "a2", "a3") for d in ("d1", "d2")}
    assert match_evenly(["a1", "a2", "a3"], ["d1", "d2"], touching) == [
        ("a1", "d1"),
        ("a2", "d2"),
        ("a3", "d1"),
    ]
    # a1 touches both, a2 only d1: the matching pairs a2-d1 and a1-d2, no ganging up.
    touching = {("a1", "d1"), ("a1", "d2"), ("a2", "d1")}
    assert match_evenly(["a1", "a2"], ["d1", "d2"], touching) == [("a1", "d2"), ("a2", "d1")]
    # One attacker touching three defenders: one pair, then the two defenders left over each
    # fight the only figure they touch, a1 (line 67: a figure in contact fights).
    touching = {("a1", "d1"), ("a1", "d2"), ("a1", "d3")}
    assert match_evenly(["a1"], ["d1", "d2", "d3"], touching) == [
        ("a1", "d1"),
        ("a1", "d2"),
        ("a1", "d3"),
    ]
    # Two defenders left over with a choice of attackers join the one with fewest assailants:
    # a1-d1 and a2-d2 pair off; d3 touches both and joins a1 (both have one, a1 first); d4
    # touches only a2.
    touching = {("a1", "d1"), ("a2", "d2"), ("a1", "d3"), ("a2", "d3"), ("a2", "d4")}
    assert match_evenly(["a1", "a2"], ["d1", "d2", "d3", "d4"], touching) == [
        ("a1", "d1"),
        ("a1", "d3"),
        ("a2", "d2"),
        ("a2", "d4"),
    ]


def melee_scene(red_n: int, blue_n: int, red: Any = None, blue: Any = None) -> Scene:
    """Red figures at x = 10 facing +x, blue figures touching them at x = 12 facing -x."""
    r = unit(
        "red",
        "red",
        column("red", 10, red_n),
        **(
            {"type": "infantry", "quality": "veteran", "weapon": "rifle", "bayonet": True}
            | (red or {})
        ),
    )
    b = unit(
        "blue",
        "blue",
        column("blue", 12, blue_n, facing=180),
        **(
            {"type": "infantry", "quality": "raw", "weapon": "musket", "bayonet": False}
            | (blue or {})
        ),
    )
    return scene([r, b])


def test_melee_one_against_one() -> None:
    # Red: veteran, rifle with bayonet (factor 3, line 10) beats 2: +1 (line 74).
    # Blue: raw -1 (line 72). So melee_odds(1, -1).
    out = ask(melee_scene(1, 1), "melee", "red", "blue")
    fight = out["fights"][0]
    assert (fight["a"], fight["b"], fight["a_modifier"], fight["b_modifier"]) == (
        "red-1",
        "blue-1",
        1,
        -1,
    )
    assert fight["odds"]["a_wins"]["exact"] == "13/18"
    assert out["pull_back"]["loser"] == {"value": 5.0, "unit": "cm"}


def test_melee_two_against_one_outnumbered_figure_loses_one() -> None:
    # Blue-1 (centre y = 51.5) touches red-1 (y = 50) and red-2 (y = 53): two enemies in
    # contact, -1 per enemy over 1 (line 72); raw -1: -2. Both red figures fight it.
    r = unit(
        "red",
        "red",
        column("red", 10, 2),
        type="infantry",
        quality="veteran",
        weapon="musket",
        bayonet=False,
    )
    b = unit(
        "blue",
        "blue",
        [sq("blue-1", 12, 51.5, 180)],
        type="infantry",
        quality="raw",
        weapon="musket",
        bayonet=False,
    )
    out = ask(scene([r, b]), "melee", "red", "blue")
    assert [(f["a"], f["b"]) for f in out["fights"]] == [("red-1", "blue-1"), ("red-2", "blue-1")]
    assert out["fights"][0]["b_modifier"] == -2
    assert out["fights"][0]["a_modifier"] == 0


def test_melee_hero_and_not_in_contact() -> None:
    out = ask(
        melee_scene(
            1,
            1,
            red={"quality": "hero", "weapon": "sword"},
            blue={"quality": "veteran", "weapon": "partisan"},
        ),
        "melee",
        "red",
        "blue",
    )
    # Hero +1 (line 73); sword 3 does not beat partisan 3: no factor bonus.
    assert out["fights"][0]["a_modifier"] == 1
    apart = unit(
        "blue",
        "blue",
        [sq("blue-1", 20, 50, 180)],
        type="infantry",
        quality="raw",
        weapon="musket",
        bayonet=False,
    )
    r = unit(
        "red",
        "red",
        [sq("red-1", 10, 50)],
        type="infantry",
        quality="raw",
        weapon="musket",
        bayonet=False,
    )
    out = ask(scene([r, apart]), "melee", "red", "blue")
    assert out["in_contact"] is False


# --------------------------------------------------------------------------------------------
# Movement and charges (lines 67-69, 107-111, 143)


@pytest.mark.parametrize(
    ("attrs", "allowance"),
    [
        ({"type": "infantry"}, 25),  # line 107
        ({"type": "infantry", "wounded": 1}, 20),
        ({"type": "civilians"}, 20),
        ({"type": "infantry", "heavy_armour": True}, 15),
        ({"type": "cavalry"}, 60),  # line 109: gallop 50-60 cms
    ],
)
def test_move_allowance(attrs: dict[str, Any], allowance: float) -> None:
    out = ask(scene([unit("red", "red", [sq("red-1", 10, 50)], **attrs)]), "move", "red")
    assert out["allowance"] == {"value": allowance, "unit": "cm"}


def test_move_through_difficult_going_and_over_a_fence() -> None:
    red = unit("red", "red", [sq("red-1", 10, 50)], type="infantry")
    goal = unit("goal", "blue", [sq("goal-1", 32, 50)], type="infantry")  # 20 cm edge to edge
    # Woods from x = 15 to 25 on the centre line: 10 cm counts double (line 111): 30 > 25.
    woods = terrain("wood", "woods", rect(15, 40, 25, 60))
    out = ask(scene([red, goal], [woods], uncertainty=0), "move", "red", "goal")
    assert out["path"]["cost"]["value"] == pytest.approx(30)
    assert out["reachable"] is False
    # A fence instead: 20 + 25 / 4 = 26.25 > 25 (line 111: 1/4 move to clear a fence).
    fence = terrain("fence", "fence", rect(20, 40, 20.5, 60))
    out = ask(scene([red, goal], [fence], uncertainty=0), "move", "red", "goal")
    assert out["path"]["cost"]["value"] == pytest.approx(26.25)
    # 18 cm and a fence: 24.25 <= 25.
    goal = unit("goal", "blue", [sq("goal-1", 30, 50)], type="infantry")
    out = ask(scene([red, goal], [fence], uncertainty=0), "move", "red", "goal")
    assert out["reachable"] is True


def test_cavalry_pace() -> None:
    cav = unit("cav", "red", [sq("cav-1", 10, 50)], type="cavalry")
    goal = unit("goal", "blue", [sq("goal-1", 52, 50)], type="infantry")  # 40 cm: a trot
    out = ask(scene([cav, goal]), "move", "cav", "goal")
    assert out["pace"] == "trot"


def test_platoon_proximity() -> None:
    # Two groups 4 cm apart with an NCO within 5 cm: they stay in company (line 143).
    a = unit(
        "a",
        "red",
        [sq("a-1", 10, 50, role="nco"), sq("a-2", 10, 53)],
        type="infantry",
        platoon="1st",
    )
    b = unit("b", "red", [sq("b-1", 16, 50)], type="infantry", platoon="1st")
    out = ask(scene([a, b]), "move", "b")
    assert out["platoon"]["in_company"] is True
    # 6 cm apart: not all within 5 cm of each other.
    b = unit("b", "red", [sq("b-1", 18, 50)], type="infantry", platoon="1st")
    out = ask(scene([a, b]), "move", "b")
    assert out["platoon"]["in_company"] is False


@pytest.mark.parametrize(("gap", "together"), [(5.01, False), (4.99, True)])
def test_platoon_pair_too_close_to_call_is_named_once(gap: float, together: bool) -> None:
    # Lines 143/186: a platoon keeps company when all its groups are within 5 cm of each other.
    # Bases are 2 cm squares with the default 2 mm uncertainty each, so a gap's uncertainty is
    # hypot(2, 2) = 2.8 mm: a gap of 5 cm +- 0.1 mm is too close to call. The NCO's group `a`
    # (edges x 9-11) is 2 cm from `c` (edges 13-15), so `c` is reached on the first pass and the
    # members are looked over again; `b` is `gap` cm left of `a` (right edge 9 - gap) and 9 cm
    # or more from `c`: the pair a-b is the only one too close to call, named once.
    a = unit("a", "red", [sq("a1", 10, 50, role="nco")], type="infantry", platoon="1st")
    b = unit("b", "red", [sq("b1", 8 - gap, 50)], type="infantry", platoon="1st")
    c = unit("c", "red", [sq("c1", 14, 50)], type="infantry", platoon="1st")
    out = ask(scene([a, b, c]), "move", "a")["platoon"]
    assert out["members"] == ["a", "b", "c"]
    assert out["too_close_to_call"] == ["a-b"]
    assert out["together"] is together
    assert out["in_company"] is together  # the NCO a1 stands in the platoon


@pytest.mark.parametrize(("d", "allowed"), [(24, True), (26, False)])
def test_charge_reach_is_the_move(d: float, allowed: bool) -> None:
    red = unit("red", "red", [sq("red-1", 10, 50)], type="infantry", commanded=True)
    blue = unit("blue", "blue", [sq("blue-1", 12 + d, 50)], type="infantry")
    assert ask(scene([red, blue]), "charge", "red", "blue")["allowed"] is allowed


def test_uncommanded_charge_only_at_the_nearest() -> None:
    red = unit("red", "red", [sq("red-1", 10, 50)], type="infantry", commanded=False)
    near = unit("near", "blue", [sq("near-1", 22, 50)], type="infantry")
    far = unit("far", "blue", [sq("far-1", 30, 60)], type="infantry")
    assert ask(scene([red, near, far]), "charge", "red", "far")["allowed"] is False
    assert ask(scene([red, near, far]), "charge", "red", "near")["allowed"] is True


# --------------------------------------------------------------------------------------------
# Suggest and bad input


def test_suggest_phases() -> None:
    sc = scene([shooter(2), target(20, quality="raw")])
    out = ask(sc, "suggest")
    assert out["phases"] == ["command", "move-a", "shoot-a", "actions-b", "shoot-b", "melee"]
    # No side has a command figure, so both are side B (module docstring): red, commanded,
    # shoots in shoot-b at every target; blue dices on the actions table in actions-b.
    kinds = {(i["kind"], tuple(i["args"])) for i in out["items"]}
    assert ("shoot", ("red", "blue")) in kinds
    assert ("risk", ("blue",)) in kinds
    assert ask(sc, "suggest", "melee")["items"] == []
    with pytest.raises(QuestionError, match="phase"):
        ask(sc, "suggest", "breakfast")


# A value the sheet does not know is refused when the scene is read (the declared fields'
# choices), naming the unit and the accepted values; `commanded` and `casualties` are
# start-of-game state (false, 0) and no longer missing (tests/rulesets/test_skirmish_19c_play.py).
@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"quality": "elite"}, r"unit 'red': quality is 'elite'.*'hero', 'veteran'"),
        ({"weapon": "carbine"}, r"unit 'red': weapon is 'carbine'.*'rifle'"),
    ],
)
def test_a_bad_value_is_refused_when_the_scene_is_read(attrs: dict[str, Any], message: str) -> None:
    with pytest.raises(UmpireError, match=message):
        scene([shooter(1, **(STEADY | attrs)), target(20)])


def test_an_unknown_weapon_in_a_scene_built_in_code_is_refused_not_a_key_error() -> None:
    # A scene made in code is not checked as a file is: the enemy's weapon is read when the
    # risk factors ask for it (line 123: "within their weapons range"), and refused in the
    # words the scene reader uses.
    sc = scene([shooter(1, **STEADY), target(20)])
    blue = sc.units[1]
    sc = replace(sc, units=(sc.units[0], replace(blue, attrs={**blue.attrs, "weapon": "carbine"})))
    with pytest.raises(QuestionError, match=r"unit 'blue' has weapon 'carbine'.*'rifle'"):
        ask(sc, "risk", "red")


def test_a_missing_description_names_the_unit_and_the_accepted_values() -> None:
    red = shooter(1, **STEADY)
    del red["regular"]
    with pytest.raises(QuestionError, match=r"unit 'red' has no 'regular'; give true or false"):
        ask(scene([red, target(20)]), "risk", "red")


def test_shooting_at_a_friend_is_a_wrong_pairing() -> None:
    friend = unit("pal", "red", [sq("pal-1", 40, 50)], type="infantry")
    with pytest.raises(QuestionError, match="both of side 'red'"):
        ask(scene([shooter(), friend]), "shoot", "red", "pal")


# --------------------------------------------------------------------------------------------
# Through the command line


def run_cli(tmp_path: Path, doc: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "webui.cli", "resolve", str(path), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_cli_shoot_risk_command_json(tmp_path: Path) -> None:
    lead = unit(
        "capt",
        "red",
        [sq("capt-1", 10, 70, role="officer")],
        type="infantry",
        quality="veteran",
        weapon="pistol",
        **STEADY,
    )
    doc = scene_doc("skirmish-19c", [shooter(2, **STEADY), target(20), lead], width=300)
    proc = run_cli(tmp_path, doc, "shoot", "red", "blue", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {"distance", "band", "allowed", "rolls", "action", "ruleset"} <= set(out)
    assert set(out["rolls"][0]) >= {"purpose", "dice", "sides", "need", "p_success"}
    assert (out["band"], out["rolls"][0]["need"]) == ("short", 2)
    out = json.loads(run_cli(tmp_path, doc, "risk", "blue", "--json").stdout)
    assert {"risk_factor", "factors", "row"} <= set(out)
    assert all({"value", "reason"} <= set(f) for f in out["factors"])
    out = json.loads(run_cli(tmp_path, doc, "command", "capt", "--json").stdout)
    assert out["radius"] == {"value": 50.0, "unit": "cm"}
    # red-1 is at (10, 50), capt-1 at (10, 70): 18 cm apart edge to edge; blue is the enemy.
    assert out["in_command"] == ["red-1", "red-2"]


def test_cli_bad_input_exits_2_with_one_line(tmp_path: Path) -> None:
    doc = scene_doc("skirmish-19c", [shooter(1, quality="elite"), target(20)], width=300)
    proc = run_cli(tmp_path, doc, "shoot", "red", "blue")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "quality is 'elite'" in proc.stderr  # refused when the scene is read


def test_cli_suggest_on_the_example(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "webui.cli",
            "resolve",
            "examples/skirmish-melee.json",
            "suggest",
            "melee",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["phase"] == "melee"
    assert [i["args"] for i in out["items"]] == [["pickets", "voltigeurs"]]
    assert all({"kind", "args", "summary", "result"} <= set(i) for i in out["items"])


@pytest.mark.parametrize(
    ("action", "what"),
    [
        ("shoot", "a shooter and an enemy target"),
        ("melee", "two enemy groups"),
    ],
)
def test_two_groups_of_one_side_are_refused_in_the_ids_asked(action: str, what: str) -> None:
    # A figure of each of two British groups: the refusal quotes the figures asked, as the
    # player typed them (sheet.toml [refusals] same-side).
    scene = make_scene(
        "skirmish-19c",
        [unit("a", "british", [sq("a-1", 10, 10)]), unit("b", "british", [sq("b-1", 20, 10)])],
    )
    with pytest.raises(QuestionError) as refused:
        RS.resolve(scene, action, ["a-1", "b-1"])
    assert str(refused.value) == (
        f"skirmish-19c: 'a-1' and 'b-1' are both of side 'british'; {action} names {what}"
    )
