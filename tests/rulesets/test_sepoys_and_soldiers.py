"""sepoys-and-soldiers: "Sepoys & Soldiers - QRS" (rules/sheets/001_14e3e4b7ab0503f1.txt).

Every expected number is worked out by hand from the sheet (line numbers in the comments) or
from the geometry of the test scene, never copied from the code. Scenes are in inches; a foot
base is 2" wide and 1" deep. `line(...)` puts a unit's bases side by side along x.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import fields, is_dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rules.engine import Cite, Resolution, get_ruleset
from rules.errors import QuestionError, UmpireError
from rules.rulesets.sepoys_and_soldiers import ruleset as sas
from rules.scene import Scene
from tests.builders import base, make_scene, rect, scene_doc, terrain

REPO = Path(__file__).resolve().parents[2]
RS_ID = "sepoys-and-soldiers"
RS = get_ruleset(RS_ID)


def line(
    ident: str,
    side: str,
    x: float,
    y: float,
    n: int = 1,
    *,
    facing: float = 90,
    width: float = 2,
    depth: float = 1,
    **attrs: Any,
) -> dict[str, Any]:
    """A unit of n bases side by side, the first centred on (x, y)."""
    bases = [base(f"{ident}-{i + 1}", x + i * width, y, facing, width, depth) for i in range(n)]
    return {"id": ident, "side": side, **attrs, "bases": bases}


def general(ident: str, side: str, x: float, y: float, **attrs: Any) -> dict[str, Any]:
    """A commander on a 1" round base."""
    b = base(ident + "-1", x, y, 90, diameter=1, role="commander")
    return {"id": ident, "side": side, **attrs, "bases": [b]}


def scene(*units: dict[str, Any], **kw: Any) -> Scene:
    return make_scene(RS_ID, list(units), unit="in", width=72, depth=48, **kw)


def ask(sc: Scene, action: str, *args: str) -> dict[str, Any]:
    return RS.resolve(sc, action, list(args)).as_json()


def frac(p: dict[str, Any]) -> Fraction:
    return Fraction(p["exact"])


def facing_pair(gap: float, firer: dict[str, Any], target: dict[str, Any]) -> Scene:
    """Firer (1" deep, facing up) at y=10 and the target `gap` inches beyond its front edge."""
    # firer front edge at 10 + 0.5; target centre = 10.5 + gap + 0.5 (its depth 1)
    return scene(line(**firer, x=10, y=10), line(**target, x=10, y=11 + gap, facing=270))


# --------------------------------------------------------------------------------------------
# Every citation quotes its line


def _cites(value: Any, seen: set[int]) -> Iterator[Cite]:
    if id(value) in seen or isinstance(value, type):
        return
    seen.add(id(value))
    if isinstance(value, Cite):
        yield value
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            yield from _cites(getattr(value, f.name), seen)
    elif isinstance(value, Mapping):  # dicts and read-only views, not a typing alias
        for v in value.values():
            yield from _cites(v, seen)
    elif isinstance(value, tuple | list):
        for v in value:
            yield from _cites(v, seen)


def test_every_cite_quotes_its_line() -> None:
    sheet = (REPO / "rules" / "sheets" / sas.SHEET).read_text(encoding="utf-8").splitlines()
    seen: set[int] = set()
    cites = [c for v in vars(sas).values() for c in _cites(v, seen)]
    assert len(cites) > 60
    squash = lambda s: re.sub(r"\s+", " ", s).strip().lower()  # noqa: E731
    for c in cites:
        assert c.sheet == sas.SHEET
        assert squash(c.text) in squash(sheet[c.line - 1]), c


# --------------------------------------------------------------------------------------------
# Infantry fire (lines 63-70): need by firer type v target type, short 4" / long 8"

INFANTRY = [
    # line 68: Aggressive 4+ 3+ 3+ | 5+ 4+ 4+
    ("aggressive", "aggressive", 2, 4),
    ("aggressive", "active", 2, 3),
    ("aggressive", "passive", 2, 3),
    ("aggressive", "aggressive", 6, 5),
    ("aggressive", "active", 6, 4),
    ("aggressive", "passive", 6, 4),
    # line 69: Active 5+ 4+ 4+ | 6 5+ 5+
    ("active", "aggressive", 2, 5),
    ("active", "active", 2, 4),
    ("active", "passive", 2, 4),
    ("active", "aggressive", 6, 6),
    ("active", "active", 6, 5),
    ("active", "passive", 6, 5),
    # line 70: Passive 6+ 5+ 4+ | 6 6 5+
    ("passive", "aggressive", 2, 6),
    ("passive", "active", 2, 5),
    ("passive", "passive", 2, 4),
    ("passive", "aggressive", 6, 6),
    ("passive", "active", 6, 6),
    ("passive", "passive", 6, 5),
]


@pytest.mark.parametrize(("firer", "target", "gap", "need"), INFANTRY)
def test_infantry_fire_table(firer: str, target: str, gap: float, need: int) -> None:
    sc = facing_pair(
        gap,
        {"ident": "a", "side": "red", "type": firer, "arm": "foot"},
        {"ident": "b", "side": "blue", "type": target, "arm": "foot"},
    )
    out = ask(sc, "shoot", "a", "b")
    assert out["distance"]["value"] == pytest.approx(gap)
    assert out["band"] == ("short" if gap <= 4 else "long")
    assert out["allowed"] is True
    roll = out["rolls"][0]
    assert (roll["dice"], roll["sides"], roll["need"]) == (1, 6, need)
    assert roll["p_success"] == pytest.approx((7 - need) / 6)
    # each success: 2 hits short, 1 long (line 65)
    assert out["hits_per_success"] == (2 if gap <= 4 else 1)


@pytest.mark.parametrize("x", [2, 17, 32, 47, 57, 62, 67])
@pytest.mark.parametrize("y", [3, 13.7])
def test_exactly_4_inches_is_short_range_anywhere_on_the_table(x: float, y: float) -> None:
    # Line 66: Short range - 4". Two 1"-deep bases whose centres are 5" apart are exactly 4"
    # apart edge to edge wherever they stand; the millimetres may come out a rounding error
    # past 101.6 (4 x 25.4), which is still on the edge, so short (2 hits a success, line 65).
    sc = scene(
        line("a", "red", x, y, type="active", arm="foot"),
        line("b", "blue", x, y + 5, facing=270, type="active", arm="foot"),
        uncertainty=0,
    )
    out = ask(sc, "shoot", "a", "b")
    assert out["distance"]["value"] == pytest.approx(4)
    assert (out["band"], out["hits_per_success"]) == ("short", 2)
    assert out["thresholds"][0]["verdict"] == "within"


@pytest.mark.parametrize("x", [2, 37, 62])
def test_exactly_8_inches_is_short_range_for_guns_anywhere(x: float) -> None:
    # Line 59: artillery Short range - 8" (4 hits a success, line 58).
    sc = scene(
        line("a", "red", x, 3, type="active", arm="artillery", weapon="european-light"),
        line("b", "blue", x, 12, facing=270, type="active", arm="foot"),
        uncertainty=0,
    )
    out = ask(sc, "shoot", "a", "b")
    assert out["distance"]["value"] == pytest.approx(8)
    assert (out["band"], out["hits_per_success"]) == ("short", 4)


def test_infantry_out_of_range_beyond_8_inches() -> None:
    sc = facing_pair(
        9,
        {"ident": "a", "side": "red", "type": "active", "arm": "foot"},
        {"ident": "b", "side": "blue", "type": "active", "arm": "foot"},
    )
    out = ask(sc, "shoot", "a", "b")
    assert (out["band"], out["allowed"], out["rolls"]) == ("out-of-range", False, [])


def test_range_on_the_band_edge_is_too_close_to_call() -> None:
    # 4.0" apart is on the short limit; the default 2 mm per base is inside the margin
    sc = facing_pair(
        4,
        {"ident": "a", "side": "red", "type": "active", "arm": "foot"},
        {"ident": "b", "side": "blue", "type": "active", "arm": "foot"},
    )
    out = ask(sc, "shoot", "a", "b")
    assert out["too_close_to_call"] is True
    assert out["thresholds"][0]["verdict"] == "too close to call"


def test_infantry_hits_and_bases_lost() -> None:
    # 3 aggressive bases at active, short (3+, 2/3 a die), 2 hits a success (lines 65, 68).
    # Target carries 2 hits: every success makes 4 hits in all -> one more base each 3 hits:
    # 0 successes (1/27) -> 2 hits, 0 lost; 1 (6/27) -> 4 hits, 1 lost; 2 (12/27) -> 6, 2;
    # 3 (8/27) -> 8 hits, 2 lost, but the unit has 3 bases so 2.
    sc = facing_pair(
        2,
        {"ident": "a", "side": "red", "type": "aggressive", "arm": "foot", "n": 3},
        {"ident": "b", "side": "blue", "type": "active", "arm": "foot", "n": 3, "hits": 2},
    )
    out = ask(sc, "shoot", "a", "b")
    assert out["rolls"][0]["dice"] == 3
    assert {h["k"]: frac(h) for h in out["hits"]} == {
        0: Fraction(1, 27),
        2: Fraction(6, 27),
        4: Fraction(12, 27),
        6: Fraction(8, 27),
    }
    assert {h["k"]: frac(h) for h in out["bases_lost"]} == {
        0: Fraction(1, 27),
        1: Fraction(6, 27),
        2: Fraction(20, 27),
    }
    assert frac(out["p_base_lost"]) == Fraction(26, 27)
    assert out["then"]["on_fail"] == "fall back a full move (end facing enemy)"  # line 23


@pytest.mark.parametrize(("bases", "dice"), [(1, 1), (3, 2), (4, 2), (5, 3)])
def test_disordered_unit_fires_with_half_its_bases_rounded_up(bases: int, dice: int) -> None:
    # line 42: a disordered unit counts only half its bases for firing
    sc = facing_pair(
        2,
        {
            "ident": "a",
            "side": "red",
            "type": "active",
            "arm": "foot",
            "n": bases,
            "disordered": True,
        },
        {"ident": "b", "side": "blue", "type": "active", "arm": "foot"},
    )
    assert ask(sc, "shoot", "a", "b")["rolls"][0]["dice"] == dice


def test_cavalry_have_no_fire_table() -> None:
    sc = facing_pair(
        2,
        {"ident": "a", "side": "red", "type": "active", "arm": "cavalry"},
        {"ident": "b", "side": "blue", "type": "active", "arm": "foot"},
    )
    assert ask(sc, "shoot", "a", "b")["allowed"] is False


def test_woods_between_block_fire() -> None:
    wood = terrain("grove", "woods", rect(5, 12, 20, 13))
    sc = scene(
        line("a", "red", 10, 10, type="active", arm="foot"),
        line("b", "blue", 10, 14, facing=270, type="active", arm="foot"),
        terrain=[wood],
    )
    out = ask(sc, "shoot", "a", "b")
    assert out["band"] == "short" and out["in_sight"] is False and out["allowed"] is False


# --------------------------------------------------------------------------------------------
# Artillery fire (lines 58-62): short 8" / long 20" / extreme 30"; 4 / 2 / 1 hits a success

ARTILLERY = [
    ("european-light", 5, "short", 4),
    ("european-light", 15, "long", 5),
    ("european-light", 25, "extreme", None),  # line 60: 4+ 5+ N/A
    ("european-heavy", 5, "short", 3),
    ("european-heavy", 15, "long", 5),
    ("european-heavy", 25, "extreme", 6),  # line 61: 3+ 5+ 6
    ("indian", 5, "short", 5),
    ("indian", 15, "long", 6),
    ("indian", 25, "extreme", None),  # line 62: 5+ 6 N/A
]


@pytest.mark.parametrize(("guns", "gap", "band", "need"), ARTILLERY)
def test_artillery_table(guns: str, gap: float, band: str, need: int | None) -> None:
    sc = facing_pair(
        gap,
        {"ident": "g", "side": "red", "type": "active", "arm": "artillery", "weapon": guns},
        {"ident": "b", "side": "blue", "type": "passive", "arm": "foot"},
    )
    out = ask(sc, "shoot", "g", "b")
    assert out["band"] == band
    if need is None:
        assert out["allowed"] is False and out["rolls"] == []
    else:
        assert out["allowed"] is True
        assert out["rolls"][0]["need"] == need
        assert out["hits_per_success"] == {"short": 4, "long": 2, "extreme": 1}[band]


def test_artillery_beyond_30_inches_is_out_of_range() -> None:
    sc = facing_pair(
        31,
        {
            "ident": "g",
            "side": "red",
            "type": "active",
            "arm": "artillery",
            "weapon": "european-heavy",
        },
        {"ident": "b", "side": "blue", "type": "passive", "arm": "foot"},
    )
    assert ask(sc, "shoot", "g", "b")["band"] == "out-of-range"


def test_two_heavy_guns_at_short_range() -> None:
    # 2 bases at 3+ (2/3 a die), 4 hits a success (line 58): 0 hits 1/9, 4 hits 4/9, 8 hits 4/9;
    # a 3-base target loses a base at 3 hits and another at 6: 0 / 1 / 2 bases.
    sc = facing_pair(
        5,
        {
            "ident": "g",
            "side": "red",
            "type": "active",
            "arm": "artillery",
            "weapon": "european-heavy",
            "n": 2,
        },
        {"ident": "b", "side": "blue", "type": "passive", "arm": "foot", "n": 3},
    )
    out = ask(sc, "shoot", "g", "b")
    assert {h["k"]: frac(h) for h in out["hits"]} == {
        0: Fraction(1, 9),
        4: Fraction(4, 9),
        8: Fraction(4, 9),
    }
    assert {h["k"]: frac(h) for h in out["bases_lost"]} == {
        0: Fraction(1, 9),
        1: Fraction(4, 9),
        2: Fraction(4, 9),
    }


def test_european_guns_that_moved_may_not_fire_but_indian_never_move() -> None:
    # line 56: manhandled European guns: no fire
    sc = facing_pair(
        5,
        {
            "ident": "g",
            "side": "red",
            "type": "active",
            "arm": "artillery",
            "weapon": "european-light",
            "moved": True,
        },
        {"ident": "b", "side": "blue", "type": "passive", "arm": "foot"},
    )
    assert ask(sc, "shoot", "g", "b")["allowed"] is False


# --------------------------------------------------------------------------------------------
# Rockets (lines 72-75)


def test_rocket_bursts_by_hand() -> None:
    # Launcher centre (10, 10), facing up, 1" deep: launches from (10, 10.5) towards the target.
    # Leg 1 goes 8": straight (white 3-4, 1/3) to (10, 18.5); left 45 (1-2) to
    # (10 - 8 sin45, 10.5 + 8 cos45) = (4.343, 16.157). Red 5-6 explodes there (1/3), so each
    # leg-1 point bursts with 1/3 * 1/3 = 1/9. Later legs are at least 2 * 8 * cos(22.5) =
    # 14.8" from the launch point, far from both bases. After 4 legs: burns out (2/3)^4.
    sc = scene(
        line("rkt", "red", 10, 10, type="active", arm="rockets"),
        line("foe", "blue", 10, 18.5, facing=270, type="active", arm="foot"),
        line("friend", "red", 4.343, 16.157, width=1, type="active", arm="foot"),
    )
    out = ask(sc, "shoot", "rkt", "foe")
    assert out["band"] == "rocket"
    assert frac(out["p_target_loses_base"]) == Fraction(1, 9)
    assert frac(out["p_burns_out"]) == Fraction(16, 81)
    lost = {h["base"]: frac(h["p_lost"]) for h in out["bases_hit"]}
    assert lost == {"foe-1": Fraction(1, 9), "friend-1": Fraction(1, 9)}
    assert out["friendly_at_risk"] == ["friend-1"]
    assert out["rolls"][0]["need"] == 5  # red die 5 or 6 explodes


def test_two_rockets_are_independent() -> None:
    # Two launchers side by side, each with its straight leg-1 burst on its own target base:
    # the target unit loses a base with 1 - (8/9)^2 = 17/81.
    sc = scene(
        line("rkt", "red", 10, 10, n=2, type="active", arm="rockets"),
        line("foe", "blue", 10, 18.5, n=2, facing=270, type="active", arm="foot"),
    )
    out = ask(sc, "shoot", "rkt", "foe")
    assert frac(out["p_target_loses_base"]) == Fraction(17, 81)


# --------------------------------------------------------------------------------------------
# Nerve (line 21, 43; table lines 22-30)

NERVE = [
    # (type, disordered, situation, dice, tests, p_pass); pass = any die 4+ (1/2 a die)
    ("aggressive", False, None, 3, 1, Fraction(7, 8)),  # 1 - (1/2)^3
    ("active", False, None, 2, 1, Fraction(3, 4)),  # 1 - (1/2)^2
    ("passive", False, None, 1, 1, Fraction(1, 2)),
    ("aggressive", True, None, 2, 1, Fraction(3, 4)),  # one quality less: as active
    ("active", True, None, 1, 1, Fraction(1, 2)),  # as passive
    ("passive", True, None, 1, 2, Fraction(1, 4)),  # rolls twice: (1/2)^2
    ("aggressive", False, "attacked-in-flank-or-rear", 3, 2, Fraction(49, 64)),  # (7/8)^2
    ("passive", True, "attacked-in-flank-or-rear", 1, 4, Fraction(1, 16)),  # (1/2)^4
]


@pytest.mark.parametrize(("kind", "disordered", "situation", "dice", "tests", "p"), NERVE)
def test_nerve_test(
    kind: str, disordered: bool, situation: str | None, dice: int, tests: int, p: Fraction
) -> None:
    sc = scene(line("u", "red", 10, 10, type=kind, arm="foot", disordered=disordered))
    out = ask(sc, "nerve", "u", *([situation] if situation else []))
    assert (out["dice"], out["tests"], out["need"]) == (dice, tests, 4)
    assert frac(out["p_pass"]) == p


SITUATIONS = [
    ("loss-of-a-base", "fall back a full move (end facing enemy)"),  # line 23
    ("attempting-to-charge", "stand - no charge"),  # line 24
    ("being-charged", "rout back a full move (end with backs to enemy)"),  # line 25
    ("lost-a-charge-combat", "rout back a full move (end with backs to enemy)"),  # line 26
    ("adjacent-unit-routs", "fall back a full move (end facing enemy)"),  # line 27
    ("attacked-in-flank-or-rear", "rout back a full move (end with backs to enemy)"),  # line 28
    ("attempt-to-reform", "stand - remain disordered"),  # line 29
    (
        "commander-killed-wounded-or-unhorsed",
        "rout back a full move (end with backs to enemy)",
    ),  # line 30
]


@pytest.mark.parametrize(("situation", "on_fail"), SITUATIONS)
def test_nerve_situations(situation: str, on_fail: str) -> None:
    sc = scene(line("u", "red", 10, 10, type="active", arm="foot"))
    assert ask(sc, "nerve", "u", situation)["on_fail"] == on_fail


# --------------------------------------------------------------------------------------------
# Commanders (lines 11-20)

COMMANDERS = [
    # rating, quality (1d6 need), orders a turn, hit on 1..n when the unit loses a base or tests
    ("energetic", 2, 2, 3),  # line 12
    ("competent", 3, 1, 2),  # line 13
    ("dull", 4, 1, 1),  # line 14
    ("dithering", 5, 1, 1),  # line 15
]


@pytest.mark.parametrize(("rating", "quality", "orders", "hit_up_to"), COMMANDERS)
def test_commander_table(rating: str, quality: int, orders: int, hit_up_to: int) -> None:
    # the commander's round base (radius 0.5") touches the back of the unit's base at y=10
    sc = scene(
        line("u", "red", 10, 10, n=2, type="active", arm="foot"),
        general("gen", "red", 10, 9, rating=rating),
    )
    out = ask(sc, "command", "gen")
    assert out["radius"]["value"] == 0
    assert out["in_command"] == ["u-1", "u-2"]
    assert out["orders_per_turn"] == orders
    roll = out["rolls"][0]
    assert roll["need"] == quality
    assert frac(out["this_turn"]) == Fraction(7 - quality, 6)
    assert frac(out["next_turn"]) == Fraction(quality - 1, 6)
    assert frac(out["risk"]["p_hit"]) == Fraction(hit_up_to, 6)


def test_if_hit_table() -> None:
    # lines 12-15: 1 dead, 2-3 wounded, 4-5 horse killed, 6 a mere scratch; an energetic
    # commander is hit 1/2 of the time, so he dies 1/2 * 1/6 = 1/12.
    sc = scene(general("gen", "red", 10, 9, rating="energetic"))
    table = ask(sc, "command", "gen")["risk"]["if_hit"]
    assert [(t["faces"], frac(t["p"])) for t in table] == [
        ("1", Fraction(1, 6)),
        ("2-3", Fraction(1, 3)),
        ("4-5", Fraction(1, 3)),
        ("6", Fraction(1, 6)),
    ]
    assert frac(table[0]["p_overall"]) == Fraction(1, 12)
    assert table[1]["result"].startswith("wounded")


def test_commander_must_be_adjacent() -> None:
    # 1" between the commander's rim and the unit: not adjacent (line 17)
    sc = scene(
        line("u", "red", 10, 10, type="active", arm="foot"),
        line("far", "red", 30, 10, type="active", arm="foot"),
        general("gen", "red", 10, 8, rating="competent"),
    )
    out = ask(sc, "command", "gen", "u")
    assert out["allowed"] is False and out["in_command"] == []
    assert ask(sc, "command", "gen")["in_command"] == []


def test_nerve_brings_the_adjacent_commanders_risk() -> None:
    sc = scene(
        line("u", "red", 10, 10, type="active", arm="foot"),
        general("gen", "red", 10, 9, rating="dull"),
    )
    risk = ask(sc, "nerve", "u", "loss-of-a-base")["commander_risk"]
    assert [r["commander"] for r in risk] == ["gen"] and frac(risk[0]["p_hit"]) == Fraction(1, 6)


# --------------------------------------------------------------------------------------------
# Movement (lines 47-56)

MOVES = [
    # type, arm, terrain kind under the unit (None = open), inches, disordered, whole turn
    ("aggressive", "foot", None, 8, False, False),  # line 50
    ("active", "cavalry", None, 12, False, False),  # line 51
    ("passive", "cavalry", None, 12, False, False),  # line 52
    ("aggressive", "foot", "woods", 4, True, False),  # line 50: 4" and disordered
    ("active", "cavalry", "river", 4, True, False),  # line 51
    ("active", "foot", "bridge", 4, True, False),
    ("passive", "foot", "rough", 8, False, False),  # line 52: 8"
    ("passive", "cavalry", "hill", 8, False, False),
    ("aggressive", "cavalry", "hedge", 0, True, True),  # line 50: 1 turn & disordered
    ("passive", "foot", "wall", 8, False, False),  # line 52: 8"
]


@pytest.mark.parametrize(("kind", "arm", "going", "inches", "disordered", "whole"), MOVES)
def test_movement_table(
    kind: str, arm: str, going: str | None, inches: float, disordered: bool, whole: bool
) -> None:
    pieces = [] if going is None else [terrain("t", going, rect(5, 9, 15, 11))]
    sc = scene(line("u", "red", 10, 10, type=kind, arm=arm), terrain=pieces)
    out = ask(sc, "move", "u")
    assert out["allowance"]["value"] == pytest.approx(inches)
    assert (out["disordered_after"], out["whole_turn"]) == (disordered, whole)


def test_move_across_a_named_piece() -> None:
    # standing in the open but about to cross a hedge: 1 turn and disordered for active troops
    sc = scene(
        line("u", "red", 10, 10, type="active", arm="foot"),
        terrain=[terrain("hedge-1", "hedge", rect(5, 13, 15, 13.3))],
    )
    out = ask(sc, "move", "u", "hedge-1")
    assert out["going"] == "obstacle" and out["whole_turn"] is True


@pytest.mark.parametrize(
    ("guns", "going", "inches"),
    [
        ("european-light", None, 2),  # line 56: 2" across open ground
        ("european-heavy", "rough", 0),  # open ground only
        ("indian", None, 0),  # Indian artillery is static
    ],
)
def test_artillery_moves(guns: str, going: str | None, inches: float) -> None:
    pieces = [] if going is None else [terrain("t", going, rect(5, 9, 15, 11))]
    sc = scene(
        line("g", "red", 10, 10, type="active", arm="artillery", weapon=guns), terrain=pieces
    )
    assert ask(sc, "move", "g")["allowance"]["value"] == pytest.approx(inches)


def _routing(friend_y: float, blockers: list[dict[str, Any]]) -> Scene:
    # A 2-base routed cavalry unit (frontage 4", a full move of 12", line 51) at y=30 facing
    # up; a 2-base friend behind it, within that full move.
    return scene(
        line("r", "red", 10, 30, n=2, type="active", arm="cavalry", status="routed"),
        line("f", "red", 10, friend_y, n=2, type="active", arm="foot"),
        *blockers,
    )


def test_fall_back_past_friends_with_room() -> None:
    # friend front edge at 20.5, router rear edge at 29.5: 9" apart (>= 8", line 34), and
    # nothing beside it: the gap rule (line 35) is met
    out = ask(_routing(20, []), "move", "r")
    past = out["fall_back_past"]
    assert [p["friend"] for p in past] == ["f"]
    assert past[0]["at_least_8in"] is True and past[0]["may_manoeuvre"] is True
    assert past[0]["gaps"] == {"left": {"free": "clear"}, "right": {"free": "clear"}}
    # its sources: 8" apart (line 34), a gap of the frontage (line 35), else through (line 37)
    assert past[0]["sources"] == [f"{sas.SHEET}:{n}" for n in (34, 35, 37)]


def test_fall_back_past_friends_too_close() -> None:
    # 29.5 - 24.5 = 5" < 8": straight back through it (line 37)
    past = ask(_routing(24, []), "move", "r")["fall_back_past"]
    assert past[0]["at_least_8in"] is False and past[0]["may_manoeuvre"] is False


def test_fall_back_past_friends_without_a_gap() -> None:
    # friend spans x 9..13; blockers at x 14..16 (gap 1") and x 4..6 (gap 3"): both less
    # than the 4" frontage of the routing unit
    blockers = [
        line("b1", "red", 15, 20, type="active", arm="foot"),
        line("b2", "blue", 5, 20, type="active", arm="foot"),
    ]
    past = ask(_routing(20, blockers), "move", "r")["fall_back_past"]
    assert past[0]["gap_of_frontage"] is False and past[0]["may_manoeuvre"] is False
    assert past[0]["gaps"]["right"]["free"]["value"] == pytest.approx(1)
    assert past[0]["gaps"]["left"]["free"]["value"] == pytest.approx(3)
    assert past[0]["frontage"]["value"] == pytest.approx(4)


def test_fall_back_past_reads_only_the_bases_level_with_the_friend() -> None:
    # A base right beside the friend but wholly ahead of it (y 24.5..25.5 against the friend's
    # 19.5..20.5, in the router's frame) leaves the gap beside the friend clear.
    past = ask(_routing(20, [line("b", "red", 14, 25, type="active", arm="foot")]), "move", "r")
    assert past["fall_back_past"][0]["gaps"]["right"] == {"free": "clear"}


# --------------------------------------------------------------------------------------------
# Charges (lines 79-84)


def test_frontal_charge_sequence() -> None:
    # charger aggressive 7/8; the charged active unit 3/4 (line 80): no charge 1/8,
    # routs 7/8 * 1/4 = 7/32, charge combat 7/8 * 3/4 = 21/32; infantry stands (line 81)
    sc = facing_pair(
        3,
        {"ident": "a", "side": "red", "type": "aggressive", "arm": "foot"},
        {"ident": "b", "side": "blue", "type": "active", "arm": "foot"},
    )
    out = ask(sc, "charge", "a", "b")
    assert out["allowed"] is True and out["aspect"] == "front"
    o = {k: frac(v) for k, v in out["outcomes"].items()}
    assert (o["no_charge"], o["target_routs"], o["charge_combat"]) == (
        Fraction(1, 8),
        Fraction(7, 32),
        Fraction(21, 32),
    )
    assert out["counter_charge"] is False


def test_cavalry_counter_charge() -> None:
    sc = facing_pair(
        6,
        {"ident": "a", "side": "red", "type": "active", "arm": "cavalry"},
        {"ident": "b", "side": "blue", "type": "passive", "arm": "cavalry"},
    )
    out = ask(sc, "charge", "a", "b")
    assert out["counter_charge"] is True and out["allowed"] is True  # 6" within 12"


def test_flank_charge_tests_twice() -> None:
    # charger 3" to the right of a target facing up: its flank; active target (3/4)^2 = 9/16
    sc = scene(
        line("a", "red", 14, 10, facing=180, type="aggressive", arm="foot"),
        line("b", "blue", 10, 10, type="active", arm="foot"),
    )
    out = ask(sc, "charge", "a", "b")
    assert out["aspect"] == "flank"
    assert out["steps"][1]["tests"] == 2 and frac(out["steps"][1]["p_pass"]) == Fraction(9, 16)
    assert frac(out["outcomes"]["target_routs"]) == Fraction(7, 8) * Fraction(7, 16)


@pytest.mark.parametrize(
    ("charger", "gap"),
    [
        ({"type": "active", "arm": "foot"}, 9),  # beyond the 8" foot move
        ({"type": "active", "arm": "artillery", "weapon": "european-light"}, 1),
        ({"type": "active", "arm": "foot", "disordered": True}, 2),  # must reform (line 21)
    ],
)
def test_charges_not_allowed(charger: dict[str, Any], gap: float) -> None:
    sc = facing_pair(
        gap,
        {"ident": "a", "side": "red", **charger},
        {"ident": "b", "side": "blue", "type": "active", "arm": "foot"},
    )
    assert ask(sc, "charge", "a", "b")["allowed"] is False


# --------------------------------------------------------------------------------------------
# Charge combat (lines 86-91)


def test_charge_combat_one_base_each() -> None:
    # aggressive 7/8 v passive 1/2: A alone passes 7/16, B alone 1/16, drawn 1/2 (1 hit each).
    # A wins at 0, 1, 2 draws: 7/16 + 7/32 + 7/64 = 49/64; B: 1/16 + 1/32 + 1/64 = 7/64;
    # after 3 draws both single bases have 3 hits and are gone: 1/8.
    # A's base goes if it wins after 2 draws (2+1 hits), loses after 1 or 2 draws (k+2 >= 3)
    # or both die: 7/64 + 2/64 + 1/64 + 8/64 = 18/64 = 9/32.
    sc = facing_pair(
        0,
        {"ident": "a", "side": "red", "type": "aggressive", "arm": "foot"},
        {"ident": "b", "side": "blue", "type": "passive", "arm": "foot"},
    )
    out = ask(sc, "melee", "a", "b")
    assert out["in_contact"] is True
    assert frac(out["p_drawn_round"]) == Fraction(1, 2)
    assert frac(out["p_a_wins"]) == Fraction(49, 64)
    assert frac(out["p_b_wins"]) == Fraction(7, 64)
    assert frac(out["p_both_destroyed"]) == Fraction(1, 8)
    assert {d["k"]: frac(d) for d in out["a_bases_lost"]} == {
        0: Fraction(23, 32),
        1: Fraction(9, 32),
    }
    assert (out["winner"]["hits"], out["loser"]["hits"]) == (1, 2)
    # its sources: both test (line 88), a draw (89), re-roll and rout (90), the winner
    # advances or pursues (91), and everyone involved is disordered after it (43)
    assert out["sources"] == [f"{sas.SHEET}:{n}" for n in (88, 89, 90, 90, 91, 91, 43)]


def test_british_cavalry_pursue() -> None:
    sc = facing_pair(
        0,
        {"ident": "a", "side": "british", "type": "aggressive", "arm": "cavalry"},
        {"ident": "b", "side": "rebels", "type": "passive", "arm": "cavalry"},
    )
    out = ask(sc, "melee", "a", "b")
    assert "two moves" in out["winner"]["a"] and "occupies" in out["winner"]["b"]


# --------------------------------------------------------------------------------------------
# suggest


def test_suggest_by_phase() -> None:
    sc = scene(
        line("a", "red", 10, 10, n=2, type="aggressive", arm="foot"),
        line("b", "blue", 10, 13, n=2, facing=270, type="active", arm="foot", disordered=True),
        general("gen", "red", 10, 9, rating="dull"),
    )
    out = ask(sc, "suggest")
    assert out["phases"] == list(RS.phases)
    kinds = {(i["kind"], tuple(i["args"])) for i in out["items"]}
    assert ("command", ("gen", "a")) in kinds  # the unit he may order, so its roll can be settled
    assert ("nerve", ("b", "attempt-to-reform")) in kinds
    assert ("charge", ("a", "b")) in kinds and ("charge", ("b", "a")) not in kinds  # disordered
    assert ("shoot", ("a", "b")) in kinds and ("shoot", ("b", "a")) in kinds
    assert ("melee", ("a", "b")) not in kinds  # 2" apart, not in contact
    fire = ask(sc, "suggest", "fire")
    assert {i["kind"] for i in fire["items"]} == {"shoot"} and fire["phase"] == "fire"


# --------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("attrs", "action", "words"),
    [
        ({"type": "brave", "arm": "foot"}, "nerve", ["'u'", "type", "'aggressive'", "'passive'"]),
        ({"type": "active"}, "move", ["'u'", "arm", "'foot'", "'cavalry'", "'rockets'"]),
        ({"type": "active", "arm": "artillery"}, "move", ["'u'", "weapon", "'european-light'"]),
        (
            {"type": "active", "arm": "foot", "status": "fleeing"},
            "move",
            ["'u'", "status", "'routed'"],
        ),
        ({"type": "active", "arm": "foot", "hits": 3}, "shoot", ["'u'", "hits 3", "0, 1 or 2"]),
    ],
)
def test_bad_attributes(attrs: dict[str, Any], action: str, words: list[str]) -> None:
    # A bad value of a declared field (`type`, `status`) is refused when the scene is read
    # (SceneError); a missing one, or hits past 2, when a question reads it (QuestionError).
    args = ["e", "u"] if action == "shoot" else ["u"]
    with pytest.raises(UmpireError) as err:
        sc = scene(
            line("u", "red", 10, 10, **attrs),
            line("e", "blue", 10, 13, facing=270, type="active", arm="foot"),
        )
        RS.resolve(sc, action, args)
    for w in words:
        assert w in str(err.value)


def test_commander_without_rating_and_unknown_situation() -> None:
    sc = scene(general("gen", "red", 10, 9), line("u", "red", 10, 10, type="active", arm="foot"))
    with pytest.raises(QuestionError, match=r"'gen'.*rating.*'energetic'.*'dithering'"):
        RS.resolve(sc, "command", ["gen"])
    with pytest.raises(QuestionError, match=r"'panic'.*'loss-of-a-base'"):
        RS.resolve(sc, "nerve", ["u", "panic"])
    with pytest.raises(QuestionError, match="not a commander"):
        RS.resolve(sc, "command", ["u"])
    with pytest.raises(QuestionError, match="no move allowance for a commander"):
        RS.resolve(sc, "move", ["gen"])


def test_friends_are_not_targets() -> None:
    sc = scene(
        line("u", "red", 10, 10, type="active", arm="foot"),
        line("v", "red", 10, 13, type="active", arm="foot"),
    )
    with pytest.raises(QuestionError, match="both of side 'red'"):
        RS.resolve(sc, "shoot", ["u", "v"])


# --------------------------------------------------------------------------------------------
# Through the command line


def _cli(tmp_path: Path, doc: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "webui.cli", "resolve", str(path), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )


def _doc(**attrs: Any) -> dict[str, Any]:
    return scene_doc(
        RS_ID,
        [
            line("a", "red", 10, 10, n=2, type="aggressive", arm="foot", **attrs),
            line("b", "blue", 10, 13, n=2, facing=270, type="passive", arm="foot"),
            general("gen", "red", 10, 9, rating="competent"),
        ],
        unit="in",
        width=72,
        depth=48,
    )


def test_cli_shoot_json(tmp_path: Path) -> None:
    # a's front edge at 10.5, b's near edge at 13 - 0.5 = 12.5: 2" apart, short range;
    # aggressive at passive 3+ (line 68), 2 dice
    done = _cli(tmp_path, _doc(), "shoot", "a", "b", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["distance"] == {"value": 2.0, "unit": "in"}
    assert (out["band"], out["allowed"]) == ("short", True)
    roll = out["rolls"][0]
    assert (roll["purpose"], roll["dice"], roll["sides"], roll["need"]) == ("to hit", 2, 6, 3)
    assert roll["p_success"] == pytest.approx(2 / 3)


def test_cli_command_json_and_text(tmp_path: Path) -> None:
    done = _cli(tmp_path, _doc(), "command", "gen", "--json")
    out = json.loads(done.stdout)
    assert out["radius"] == {"value": 0.0, "unit": "in"} and out["in_command"] == ["a-1", "a-2"]
    text = _cli(tmp_path, _doc(), "command", "gen")
    assert text.returncode == 0 and "adjacent" in text.stdout


def test_cli_bad_input_exits_2_with_one_line(tmp_path: Path) -> None:
    done = _cli(tmp_path, _doc(), "nerve", "a", "panic")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "'panic'" in done.stderr
    bad = _doc()
    bad["units"][0]["type"] = "heroic"
    done = _cli(tmp_path, bad, "shoot", "a", "b")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "'a'" in done.stderr and "'aggressive'" in done.stderr


def test_example_scene_resolves(tmp_path: Path) -> None:
    path = REPO / "examples" / "sepoys-and-soldiers.json"
    done = subprocess.run(
        [sys.executable, "-m", "webui.cli", "resolve", str(path), "suggest", "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["items"]


def test_resolution_lines_cite_the_sheet() -> None:
    sc = facing_pair(
        2,
        {"ident": "a", "side": "red", "type": "active", "arm": "foot"},
        {"ident": "b", "side": "blue", "type": "active", "arm": "foot"},
    )
    res: Resolution = RS.resolve(sc, "shoot", ["a", "b"])
    assert any(f"{sas.SHEET}:69" in ln for ln in res.lines)


def test_a_disordered_volley_says_its_roll_and_its_halved_bases() -> None:
    # 3 disordered aggressive bases 2" from an active target: short range (line 66), 3+ on the
    # aggressive row against active (line 68); half its bases, rounded up: 2 dice (line 42).
    shooter = {"ident": "a", "side": "red", "type": "aggressive", "arm": "foot", "n": 3}
    target = {"ident": "b", "side": "blue", "type": "active", "arm": "foot"}
    sc = facing_pair(2, shooter | {"disordered": True}, target)
    lines = RS.resolve(sc, "shoot", ["a", "b"]).lines
    at = lines.index(
        "2D6 to hit: 3+ each, 2/3 a die (each base rolls 1d6; each success 2 hits)"
        f" [{sas.SHEET}:65]"
    )
    half = f"  disordered: counts only half its bases (rounded up) [{sas.SHEET}:42]"
    assert lines[at + 1] == half


def test_a_refused_shot_gives_the_range_and_need_then_each_refusal_in_order() -> None:
    # Cavalry that has acted, 2" from an active target: short range (line 66) and the need of
    # its order's row against active (aggressive: 3+, line 68), then why it may not fire:
    # cavalry have no fire table (line 65), and it has taken its one action (line 21).
    sc = facing_pair(
        2,
        {"ident": "a", "side": "red", "type": "aggressive", "arm": "cavalry", "acted": True},
        {"ident": "b", "side": "blue", "type": "active", "arm": "foot"},
    )
    out = ask(sc, "shoot", "a", "b")
    assert out["allowed"] is False and out["rolls"] == []
    assert [(r["reason"], r["source"]) for r in out["reasons"]] == [
        ('short range (up to 4.0")', f"{sas.SHEET}:66"),
        ("aggressive firing at active at short range: 3+", f"{sas.SHEET}:68"),
        (
            "cavalry: the sheet has fire tables for infantry, artillery and rockets only",
            f"{sas.SHEET}:65",
        ),
        ("it has taken its one action this turn", f"{sas.SHEET}:21"),
    ]


def test_a_disordered_nerve_test_says_each_cited_modifier() -> None:
    # A disordered aggressive unit tests as active: 2d6, passing on a 4+ on either, 3/4
    # (lines 21, 43).
    sc = scene(line("u", "red", 10, 10, type="aggressive", arm="foot", disordered=True))
    lines = RS.resolve(sc, "nerve", ["u", "loss-of-a-base"]).lines
    assert list(lines[:3]) == [
        f"u rolls 2d6, 4+ on any die passes: pass 3/4 [{sas.SHEET}:21]",
        f"  aggressive [{sas.SHEET}:21]",
        f"  disordered: tests as active [{sas.SHEET}:43]",
    ]
