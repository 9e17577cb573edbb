"""skirmish-19c in play: start-of-game state, missing descriptions, the outcomes of the dice and
the demo game (rules/sheets/000_157c880a83b52d41.txt).

Every expected value is worked by hand from the sheet's line named beside it. Layout as in
test_skirmish_19c.py: 2 x 2 cm square bases facing +x (0 degrees); a base centred at x = 10 has
its front edge at x = 11, one centred at x = 12 + d its near edge at 11 + d: d cm apart.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

from rules import geometry as geo
from rules.engine import get_ruleset, load_scene, read_scene
from rules.errors import QuestionError
from rules.scene import Scene
from rules.state import Kind, Outcome, Scope
from tests.builders import base, scene_doc, unit

RS = get_ruleset("skirmish-19c")
ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "vision" / "demo_game"
SHEET = "000_157c880a83b52d41.txt"


def sq(ident: str, x: float, y: float, facing: float = 0, **extra: Any) -> dict[str, Any]:
    return base(ident, x, y, facing, 2, 2, **extra)


def column(prefix: str, x: float, n: int, y: float = 50, facing: float = 0) -> list[Any]:
    """`n` bases one above the other, 3 cm between centres (1 cm gaps)."""
    return [sq(f"{prefix}-{i + 1}", x, y + 3 * i, facing) for i in range(n)]


def foot(ident: str, side: str, bases: list[Any], **attrs: Any) -> dict[str, Any]:
    """Veteran regular infantry with muskets and bayonets; nothing of the state of play."""
    described = {
        "type": "infantry",
        "quality": "veteran",
        "weapon": "musket",
        "regular": True,
        "bayonet": True,
        "formation": "line",
    }
    return unit(ident, side, bases, **(described | attrs))


def doc_of(*units: dict[str, Any]) -> dict[str, Any]:
    return scene_doc("skirmish-19c", list(units), width=300, depth=120)


def read(doc: dict[str, Any]) -> Scene:
    return read_scene(copy.deepcopy(doc), "<play>")


def ask(doc: dict[str, Any], action: str, *args: str) -> dict[str, Any]:
    return RS.resolve(read(doc), action, list(args)).as_json()


def settle(doc: dict[str, Any], action: str, args: list[str], **reported: Any) -> Outcome:
    return RS.settle(read(doc), action, args, reported)


def changes(outcome: Outcome) -> set[tuple[str, str, Any]]:
    return {(c.target, c.field, c.value) for c in outcome.changes}


def applied(doc: dict[str, Any], outcome: Outcome) -> dict[str, Any]:
    """The scene after the outcome, as the server keeps it: unit fields set, removed bases
    taken off the table."""
    out = copy.deepcopy(doc)
    for c in outcome.changes:
        for u in out["units"]:
            if c.scope is Scope.UNIT and u["id"] == c.target:
                u[c.field] = c.value
            if c.scope is Scope.BASE:
                u["bases"] = [b for b in u["bases"] if b["id"] != c.target]
    return out


def factors(answer: dict[str, Any]) -> list[tuple[int, str]]:
    """Each risk factor as (value, line)."""
    return [(f["value"], f["source"].split(":")[1]) for f in answer["factors"]]


# --------------------------------------------------------------------------------------------
# Start-of-game state may be left out; descriptions may not, and are named together


def two_groups() -> dict[str, Any]:
    # red (veteran regulars) and blue (raw muskets) 30 cm apart; nothing of the state of play.
    return doc_of(
        foot("red", "red", [sq("red-1", 10, 50)]),
        foot("blue", "blue", [sq("blue-1", 42, 50, 180)], quality="raw"),
    )


def test_risk_on_a_scene_without_state_answers_and_names_the_defaults() -> None:
    out = ask(two_groups(), "risk", "red")
    # -1 regulars (line 120), +1 blue in sight with red inside its musket range (120 cm, line
    # 123 and line 11); no losses (casualties and wounded 0), status steady: RF 0, "Up to RF0".
    assert factors(out) == [(-1, "120"), (1, "123")]
    assert (out["risk_factor"], out["row"]) == (0, "RF0")
    assumed = {(d["unit"], d["field"]): d["value"] for d in out["defaults"]}
    assert assumed[("red", "casualties")] == 0
    assert assumed[("red", "wounded")] == 0
    assert assumed[("red", "status")] == "steady"
    assert ("blue", "casualties") not in assumed  # only the unit asked about
    assert out["defaults"][0]["source"].startswith(SHEET)


def test_an_uncommanded_group_left_without_state_fires_one_in_two() -> None:
    # commanded, moved and loaded left out: not commanded, not moved (start of game): an
    # uncommanded stationary group fires 1 per 2 figures (line 33): 2 // 2 = 1.
    doc = doc_of(
        foot("red", "red", column("red", 10, 2)), foot("blue", "blue", [sq("blue-1", 32, 50, 180)])
    )
    out = ask(doc, "shoot", "red", "blue")
    assert out["shooters"] == {"figures": 2, "fire": 1, "rule": "1 per 2"}
    assumed = {d["field"] for d in out["defaults"] if d["unit"] == "red"}
    assert {"commanded", "moved"} <= assumed


def test_missing_descriptions_are_named_together() -> None:
    # Lancers (cavalry with partisans: shock cavalry) 30 cm off: the risk reads red's quality,
    # regular (line 120) and formation (line 128): all three are named in one message.
    red = unit("red", "red", column("red", 10, 4), type="infantry", weapon="musket")
    lancers = unit(
        "lancers",
        "blue",
        [sq("lancers-1", 42, 50, 180)],
        type="cavalry",
        quality="veteran",
        weapon="partisan",
    )
    doc = doc_of(red, lancers)
    with pytest.raises(QuestionError) as caught:
        ask(doc, "risk", "red")
    message = str(caught.value)
    assert "3 attributes are missing" in message
    for key in ("quality", "regular", "formation"):
        assert f"'red' has no '{key}'" in message
    # The suggestion for the risk says the same, not only the first one met.
    items = ask(doc, "suggest", "actions-b")["items"]
    risk = next(i for i in items if i["kind"] == "risk" and i["args"] == ["red"])
    assert "3 attributes are missing" in risk["result"]["error"]


def test_a_lone_player_character_facing_shock_cavalry_needs_no_formation() -> None:
    # The bug of the first demo: "RISK cannot answer: unit 'captain-hart' has no 'formation'".
    hart = unit(
        "captain-hart",
        "red",
        [sq("hart", 10, 50, role="hero")],
        type="infantry",
        quality="hero",
        weapon="pistol",
        regular=False,
    )
    lancers = unit(
        "lancers",
        "blue",
        [sq("lancers-1", 42, 50, 180)],
        type="cavalry",
        quality="veteran",
        weapon="partisan",
    )
    out = ask(doc_of(hart, lancers), "risk", "captain-hart")
    # Lancers 30 cm off: beyond their partisans' 24 cm (line 13), so no +1; shock cavalry
    # within 50 cm and a lone figure is in no square: +2 (line 128). RF 2: row RF2-5.
    assert factors(out) == [(2, "128")]
    assert out["row"] == "RF2-5"


# --------------------------------------------------------------------------------------------
# Shooting: hits, kills and wounds, the figures taken off


def volley_scene() -> dict[str, Any]:
    # Two commanded, loaded riflemen 20 cm from three Zouaves: short range, open: 2+ on a D8.
    red = unit(
        "red",
        "red",
        column("red", 10, 2),
        type="infantry",
        quality="veteran",
        weapon="rifle",
        commanded=True,
        loaded=True,
    )
    return doc_of(red, foot("blue", "blue", column("blue", 32, 3, facing=180)))


def test_the_shot_form_asks_hits_kills_wounds_and_the_figures_taken_off() -> None:
    form = RS.report_form(read(volley_scene()), "shoot", ["red", "blue"])
    by = {r.name: r for r in form}
    assert list(by) == ["hits", "kills", "wounds", "taken_off"]
    # Both riflemen fire (line 29): two D8s, so at most 2 of each.
    assert by["hits"].maximum == by["kills"].maximum == by["wounds"].maximum == 2
    # First shown, the likeliest count: a hit is 7/8 (2+ on a D8), so 2 hits (49/64); a kill is
    # 7/8 x 2/6 = 7/24 a rifleman, so no kill ((17/24)^2 = 289/576 against 238/576 for one);
    # a wound (3-4) the same.
    assert (by["hits"].default, by["kills"].default, by["wounds"].default) == (2, 0, 0)
    assert str(by["hits"].cite) == f"{SHEET}:41"  # Short Range 2 4 6
    # Rifles are gunpowder weapons: Kill on 5-6, Wound on 3-4 (line 48).
    assert str(by["kills"].cite) == f"{SHEET}:48" and "(5-6)" in by["kills"].label
    assert "(3-4)" in by["wounds"].label
    # Hits fall among the group's 3 figures (fewer than 10, line 53).
    assert by["taken_off"].kind is Kind.BASES
    assert by["taken_off"].bases == ("blue-1", "blue-2", "blue-3")


def test_the_shot_form_shows_the_likeliest_hits_first_and_can_be_confirmed_as_shown() -> None:
    # Ten commanded, loaded riflemen (a column 3 cm apart) 20-28 cm from three Zouaves: short
    # range in the open, all ten fire (line 29), 2+ on a D8: a hit is 7/8. The likeliest count
    # of a binomial(n, p) is the whole part of (n + 1) p: hits 11 x 7/8 = 9.6 -> 9. Kills and
    # wounds are first shown 0: a kill takes a figure off, and which one is the table's to say
    # (hits are randomised among the group, line 51), so the form as shown can be confirmed.
    doc = volley_scene()
    doc["units"][0]["bases"] = column("red", 10, 10)
    by = {r.name: r for r in RS.report_form(read(doc), "shoot", ["red", "blue"])}
    assert by["hits"].maximum == by["kills"].maximum == 10
    assert (by["hits"].default, by["kills"].default, by["wounds"].default) == (9, 0, 0)
    outcome = settle(doc, "shoot", ["red", "blue"], hits=9, kills=0, wounds=0, taken_off=[])
    assert changes(outcome) == {("red", "fired", True)}


def test_a_shot_kills_and_wounds_and_the_next_risk_counts_them() -> None:
    doc = volley_scene()
    outcome = settle(doc, "shoot", ["red", "blue"], hits=2, kills=1, wounds=1, taken_off=["blue-1"])
    assert changes(outcome) == {
        ("blue", "casualties", 1),
        ("blue", "wounded", 1),
        ("blue-1", "removed", True),
        ("red", "fired", True),
    }
    assert outcome.lines[0].startswith("blue casualties 0 -> 1: 1 killed")
    after = applied(doc, outcome)
    risk = ask(after, "risk", "blue")
    # -1 regulars (line 120), +1 red in sight with blue in its rifles' range (line 123), and
    # 1 killed + 1 wounded of 3 (2 on the table + 1 killed) = 66%: 6 x 10% = +6 (line 125).
    assert factors(risk) == [(-1, "120"), (1, "123"), (6, "125")]
    assert (risk["risk_factor"], risk["row"]) == (6, "RF6-8")
    # A wounded man moves 20 cm, not 25 (line 107).
    assert ask(after, "move", "blue")["allowance"] == {"value": 20.0, "unit": "cm"}


def test_the_wounded_are_never_more_than_the_figures_left() -> None:
    # Three Zouaves, two of them wounded; two are killed and taken off, none wounded: one
    # figure is left, so at most one is wounded (README: wounds count in the target group, at
    # most its figures left).
    doc = volley_scene()
    doc["units"][1]["wounded"] = 2
    off = ["blue-1", "blue-2"]
    outcome = settle(doc, "shoot", ["red", "blue"], hits=2, kills=2, wounds=0, taken_off=off)
    assert ("blue", "wounded", 1) in changes(outcome)
    assert any(line.startswith("blue wounded 2 -> 1: at most the 1 left") for line in outcome.lines)


@pytest.mark.parametrize(
    ("reported", "message"),
    [
        ({"hits": 2, "kills": 2, "wounds": 1, "taken_off": ["blue-1", "blue-2"]}, "from 2 hits"),
        ({"hits": 1, "kills": 1, "wounds": 0, "taken_off": []}, "take off 1 more"),
        ({"hits": 1, "kills": 0, "wounds": 0, "taken_off": ["blue-1"]}, "but 0 were killed"),
        ({"hits": 3, "kills": 0, "wounds": 0, "taken_off": []}, "from 0 to 2"),
    ],
)
def test_reported_dice_that_cannot_be_are_refused(reported: dict[str, Any], message: str) -> None:
    with pytest.raises(QuestionError, match=message):
        RS.settle(read(volley_scene()), "shoot", ["red", "blue"], reported)


def test_a_shot_that_may_not_be_taken_has_no_form() -> None:
    doc = volley_scene()
    doc["units"][0]["loaded"] = False  # line 24: commanded troops fire only if loaded
    assert RS.report_form(read(doc), "shoot", ["red", "blue"]) == ()
    assert settle(doc, "shoot", ["red", "blue"]).changes == ()


# --------------------------------------------------------------------------------------------
# Melee: each side's result, wounds and kills, the worse group moves back


def melee_scene() -> dict[str, Any]:
    # Two figures against two, front edges touching at x = 11: red-1 fights blue-1 and red-2
    # fights blue-2 (the diagonal pairs are 1 cm apart, not in contact).
    return doc_of(
        foot("red", "red", column("red", 10, 2)),
        foot("blue", "blue", column("blue", 12, 2, facing=180)),
    )


def test_the_melee_form_asks_each_sides_result() -> None:
    by = {r.name: r for r in RS.report_form(read(melee_scene()), "melee", ["red", "blue"])}
    assert by["worse"].choices == ("red", "blue", "drawn")
    assert str(by["worse"].cite) == f"{SHEET}:80"
    # Two fights: at most 2 figures of a side killed or wounded (line 78).
    assert by["killed_a"].maximum == by["wounded_b"].maximum == 2
    assert str(by["killed_a"].cite) == f"{SHEET}:78"
    assert by["taken_off_a"].bases == ("red-1", "red-2")
    assert by["taken_off_b"].bases == ("blue-1", "blue-2")


def test_a_melee_kills_wounds_and_the_loser_retreats() -> None:
    doc = melee_scene()
    outcome = settle(
        doc,
        "melee",
        ["red", "blue"],
        worse="blue",
        killed_a=0,
        wounded_a=1,
        taken_off_a=[],
        killed_b=1,
        wounded_b=0,
        taken_off_b=["blue-1"],
    )
    assert changes(outcome) == {
        ("red", "wounded", 1),
        ("blue", "casualties", 1),
        ("blue-1", "removed", True),
        ("blue", "status", "retreating"),
    }
    risk = ask(applied(doc, outcome), "risk", "blue")
    # -1 regulars, +1 red's muskets in range, 1 of 2 killed = 50%: +5 (line 125); red-1, at
    # (10, 50), stands 2 cm ahead of and 3 cm beside blue-2 at (12, 53): 56 degrees off its
    # facing, outside the front quarter, so to its flank: +2 (line 127); +3 retreating as a
    # result of melee (line 130): RF 10, row RF9+.
    assert factors(risk) == [(-1, "120"), (1, "123"), (5, "125"), (2, "127"), (3, "130")]
    assert risk["row"] == "RF9+"


def test_a_drawn_melee_moves_both_back() -> None:
    outcome = settle(
        melee_scene(),
        "melee",
        ["red", "blue"],
        worse="drawn",
        **{f"{k}_{s}": 0 for k in ("killed", "wounded") for s in "ab"},
        taken_off_a=[],
        taken_off_b=[],
    )
    assert changes(outcome) == {("red", "status", "retreating"), ("blue", "status", "retreating")}


def test_more_hits_than_fights_are_refused() -> None:
    with pytest.raises(QuestionError, match="only 2 fights"):
        settle(
            melee_scene(),
            "melee",
            ["red", "blue"],
            worse="red",
            killed_a=1,
            wounded_a=1,
            taken_off_a=["red-1"],
            killed_b=1,
            wounded_b=0,
            taken_off_b=["blue-1"],
        )


# --------------------------------------------------------------------------------------------
# Risk: the D6 on the row, and what the cell does to the status


def test_the_risk_form_asks_the_row_and_the_face() -> None:
    by = {r.name: r for r in RS.report_form(read(two_groups()), "risk", ["red"])}
    assert by["row"].default == "RF0"
    assert by["row"].choices == ("RF0", "RF1", "RF2-5", "RF6-8", "RF9+")
    assert by["face"].maximum == 6
    assert str(by["face"].cite) == f"{SHEET}:150"


def test_running_from_the_enemy_counts_three_next_turn() -> None:
    doc = two_groups()
    # Row RF6-8, D6 1: "Run from nearest enemy" (line 153).
    outcome = settle(doc, "risk", ["red"], row="RF6-8", face=1)
    assert changes(outcome) == {("red", "status", "running")}
    assert str(outcome.changes[0].cite) == f"{SHEET}:153"
    # The RF of 0 above, +3 running from enemy last turn (line 130): RF 3, row RF2-5.
    risk = ask(applied(doc, outcome), "risk", "red")
    assert (risk["risk_factor"], risk["row"]) == (3, "RF2-5")


@pytest.mark.parametrize(
    ("row", "face", "commanded", "status", "after"),
    [
        # RF2-5 D6 1 "Withdraw towards cover further from enemy" (plain): even commanded.
        ("RF2-5", 1, True, "steady", "falling-back"),
        # RF2-5 D6 2 "Move to take cover ..." in italics: commanded troops ignore it (line 141).
        ("RF2-5", 2, True, "steady", "steady"),
        ("RF2-5", 2, False, "steady", "falling-back"),
        # RF2-5 D6 3 "Halt in position facing the nearest enemy".
        ("RF2-5", 3, False, "falling-back", "steady"),
        # Up to RF0, a 5 or 6: units falling back halt (line 150).
        ("RF0", 5, False, "falling-back", "steady"),
        ("RF0", 1, False, "falling-back", "falling-back"),
        # "Continue current actions": a retreat after melee (one move back) is over.
        ("RF1", 4, False, "retreating", "steady"),
    ],
)
def test_what_an_actions_table_cell_does_to_the_status(
    row: str, face: int, commanded: bool, status: str, after: str
) -> None:
    doc = two_groups()
    doc["units"][0].update(commanded=commanded, status=status)
    outcome = settle(doc, "risk", ["red"], row=row, face=face)
    assert (
        dict(((c.target, c.field), c.value) for c in outcome.changes).get(("red", "status"), status)
        == after
    )


def test_cavalry_flee_at_the_gallop() -> None:
    lancers = unit(
        "lancers", "blue", [sq("lancers-1", 42, 50, 180)], type="cavalry", quality="veteran"
    )
    lancers["weapon"] = "partisan"
    doc = doc_of(foot("red", "red", [sq("red-1", 10, 50)]), lancers)
    # Cavalry RF6-8, D6 1: "Flee at Gallop from nearest enemy" (line 196).
    outcome = settle(doc, "risk", ["lancers"], row="RF6-8", face=1)
    assert changes(outcome) == {("lancers", "status", "running")}
    assert str(outcome.changes[0].cite) == f"{SHEET}:196"


def test_a_face_of_nought_is_refused() -> None:
    with pytest.raises(QuestionError, match="a D6 shows 1 to 6"):
        settle(two_groups(), "risk", ["red"], row="RF0", face=0)


# --------------------------------------------------------------------------------------------
# Command points, charges and moves


def command_scene(**red: Any) -> dict[str, Any]:
    # An officer 15 cm behind two loaded musketeers, who are 20 cm from a lone enemy.
    capt = foot("capt", "red", [sq("capt-1", 10, 70, role="officer")], weapon="pistol")
    return doc_of(
        foot("red", "red", column("red", 10, 2), loaded=True, **red),
        foot("blue", "blue", [sq("blue-1", 32, 50, 180)]),
        capt,
    )


def test_command_points_buy_the_groups_they_command() -> None:
    doc = command_scene()
    by = {r.name: r for r in RS.report_form(read(doc), "command", ["capt"])}
    # A veteran throws 3D6 (line 94): 3 to 18 points; red's 2 loyal figures cost 1 pt each
    # (line 101): 2 points, well under the mean of 10.5, so the form offers it.
    assert by["points"].maximum == 18
    # First shown, the likeliest sum of 3D6: 10 and 11 (27/216 each), the lower.
    assert by["points"].default == 10
    assert str(by["points"].cite) == f"{SHEET}:94"
    assert by["command_red"].default is True and "= 2 pts" in by["command_red"].label
    outcome = settle(doc, "command", ["capt"], points=5, command_red=True)
    assert changes(outcome) == {("red", "commanded", True)}
    # Uncommanded and stationary, 1 per 2 of 2 fire (line 33); commanded and loaded, all 2
    # (line 29).
    assert ask(doc, "shoot", "red", "blue")["shooters"]["fire"] == 1
    assert ask(applied(doc, outcome), "shoot", "red", "blue")["shooters"]["fire"] == 2


def test_points_too_few_for_the_groups_chosen_are_refused() -> None:
    with pytest.raises(QuestionError, match="cost 2 points, but 1 were thrown"):
        settle(command_scene(), "command", ["capt"], points=1, command_red=True)


def test_a_running_group_costs_two_points_a_figure() -> None:
    # Line 103: Routers require 2 pts: 2 figures x 2 = 4.
    by = {
        r.name: r
        for r in RS.report_form(read(command_scene(status="running")), "command", ["capt"])
    }
    assert "= 4 pts" in by["command_red"].label
    assert str(by["command_red"].cite) == f"{SHEET}:103"


def charge_scene() -> dict[str, Any]:
    # Six uncommanded musketeers, loaded; the enemy's nearest figure 20 cm off.
    return doc_of(
        foot("red", "red", column("red", 10, 6), loaded=True),
        foot("blue", "blue", [sq("blue-1", 32, 57, 180)]),
    )


def test_a_charge_moves_the_group() -> None:
    doc = charge_scene()
    assert RS.report_form(read(doc), "charge", ["red", "blue"]) == ()
    # The nearest enemy, 20 cm off, within the 25 cm move (lines 67, 107).
    assert ask(doc, "charge", "red", "blue")["allowed"] is True
    outcome = settle(doc, "charge", ["red", "blue"])
    assert changes(outcome) == {("red", "moved", True)}
    assert str(outcome.changes[0].cite) == f"{SHEET}:69"
    # Stationary: 1 per 2 of 6 = 3 fire (line 33); moving: 1 per 3 = 2 (line 34).
    assert ask(doc, "shoot", "red", "blue")["shooters"]["fire"] == 3
    assert ask(applied(doc, outcome), "shoot", "red", "blue")["shooters"]["fire"] == 2


def test_a_move_has_no_dice_and_sets_moved() -> None:
    doc = charge_scene()
    assert RS.report_form(read(doc), "move", ["red"]) == ()
    outcome = settle(doc, "move", ["red"])
    assert changes(outcome) == {("red", "moved", True)}
    assert str(outcome.changes[0].cite) == f"{SHEET}:107"  # foot move 25 cm


def test_a_charge_out_of_reach_changes_nothing() -> None:
    doc = charge_scene()
    doc["units"][1]["bases"][0]["x"] = 52  # 40 cm: beyond the 25 cm move
    assert ask(doc, "charge", "red", "blue")["allowed"] is False
    assert settle(doc, "charge", ["red", "blue"]).changes == ()


# --------------------------------------------------------------------------------------------
# Fields and the sequence of play


def test_fields_defaults_and_per_turn() -> None:
    fields = {f.name: f for f in RS.unit_fields}
    per_turn = {name for name, f in fields.items() if f.per_turn}
    assert per_turn == {"commanded", "moved", "fired", "loading"}
    assert {
        name: f.default for name, f in fields.items() if f.in_play and f.default is not None
    } == {
        "casualties": 0,
        "wounded": 0,
        "status": "steady",
        "loaded": False,
        "commanded": False,
        "moved": False,
        "fired": False,
        "loading": False,
    }
    # Descriptions are given, never defaulted; a formation is state a unit is set up in.
    for name in ("type", "quality", "weapon", "regular", "bayonet"):
        assert not fields[name].in_play and fields[name].default is None
    assert fields["formation"].in_play and fields["formation"].default is None
    assert RS.terrain_keys == {"difficult"}


def test_a_typo_of_a_field_is_refused_with_did_you_mean() -> None:
    doc = two_groups()
    doc["units"][0]["casualites"] = 1
    with pytest.raises(ValueError, match="did you mean 'casualties'"):
        read(doc)


def test_phase_steps_follow_the_sequence_of_play() -> None:
    assert tuple(p.name for p in RS.phase_steps) == RS.phases
    assert [p.acting for p in RS.phase_steps] == ["A", "A", "A", "B", "B", "all"]
    assert [p.cite.line for p in RS.phase_steps] == [84, 85, 86, 87, 88, 89]
    groups = RS.side_groups(load_scene(DEMO / "skirmish-19c.json"))
    assert groups == {"A": ("british",), "B": ("french",), "all": ("british", "french")}


# --------------------------------------------------------------------------------------------
# The demo game


@pytest.fixture(scope="module")
def demo() -> Scene:
    return load_scene(DEMO / "skirmish-19c.json")


def test_the_demo_suggests_every_action_and_answers_every_suggestion(demo: Scene) -> None:
    kinds: set[str] = set()
    for phase in RS.phases:
        for item in RS.resolve(demo, "suggest", [phase]).data["items"]:
            kinds.add(item["kind"])
            assert "error" not in item["result"], item["summary"]
            RS.resolve(demo, item["kind"], item["args"])  # answers directly too
    assert kinds == set(RS.actions()) - {"measure", "suggest"}


def test_the_demo_game_file_and_layout_agree() -> None:
    from vision.game import load_game

    game = load_game(DEMO / "skirmish-19c.toml")
    layout = json.loads((DEMO / "skirmish-19c.json").read_text(encoding="utf-8"))
    assert game.ruleset == "skirmish-19c"
    assert (game.table_width, game.table_depth) == (1800, 1200)
    bases = [b for u in game.units for b in u.bases]
    assert 30 <= len(bases) <= 60
    assert len({b.tag for b in bases}) == len(bases)
    for b in bases:
        # 32 mm tags on bases at least 4 mm wider each way.
        assert b.spec.size >= 32
        assert min(b.footprint.width, b.footprint.depth) >= b.spec.size + 4
    assert all(t.spec is None or t.spec.size >= 32 for t in game.terrain)
    for spec, doc in zip(game.units, layout["units"], strict=True):
        assert spec.id == doc["id"] and spec.side == doc["side"]
        assert dict(spec.attrs) == {
            k: v for k, v in doc.items() if k not in ("id", "side", "bases")
        }


def test_the_demo_layout_is_clear_and_on_the_table(demo: Scene) -> None:
    bases = list(demo.bases())
    for b in bases:
        outline = geo.outline_polygon(b)
        assert outline.min() >= 30 and outline[:, 0].max() <= 1770 and outline[:, 1].max() <= 1170
        # Clear of the corner tags' cards (6 cm tags centred 4 cm from the edges).
        assert (
            min(math.dist((b.x, b.y), c) for c in ((40, 40), (1760, 40), (40, 1160), (1760, 1160)))
            > 120
        )
    gaps = geo.distance_matrix(bases, bases)
    side = {u.id: u.side for u in demo.units}
    for i, a in enumerate(bases):
        for j in range(i + 1, len(bases)):
            if gaps[i, j] < 5:
                # Only enemies in a melee touch.
                assert side[a.unit_id] != side[bases[j].unit_id] and gaps[i, j] == 0
