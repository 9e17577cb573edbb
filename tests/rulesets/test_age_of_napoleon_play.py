"""age-of-napoleon played: the state a unit carries (declared fields and their defaults), the
sequence of play, the outcomes of the players' dice, and the demo game.

Every expected value is worked out by hand from the sheet (rules/sheets/
003_5b7c133d01707a77.txt, line numbers in the comments), never copied from the code. Test
scenes use 10 cm boxes on a 180 x 120 cm table; `at(...)` puts a unit's bases in a row around
the centre of box (column, row). An outcome's changes are applied to the scene's document and
the document read again, as the server keeps the state between two questions.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rules import geometry as geo
from rules.engine import get_ruleset, load_scene, read_scene
from rules.errors import MissingAttribute, QuestionError, UmpireError
from rules.scene import Scene
from rules.state import Change, Kind, Scope
from tests.builders import base, scene_doc, unit

REPO = Path(__file__).resolve().parents[2]
SHEET = (REPO / "rules" / "sheets" / "003_5b7c133d01707a77.txt").read_text(encoding="utf-8")
DEMO = REPO / "vision" / "demo_game"
RS = get_ruleset("age-of-napoleon")
RANGES = {
    "rifle": {"short": 1, "medium": 2, "long": 4},
    "machine-gun": {"short": 2, "medium": 3, "long": 5},
    "rocket": {"long": 6},
}


def at(
    ident: str, side: str, col: int, row: int, n: int = 1, *, leader: bool = True, **attrs: Any
) -> dict[str, Any]:
    """Unit `ident` of n bases (1.2 cm square, 1.5 cm apart) centred on box (col, row)."""
    bases = [
        base(
            f"{ident}-{i + 1}",
            col * 10 + 5 + (i - (n - 1) / 2) * 1.5,
            row * 10 + 5,
            facing=90,
            width=1.2,
            depth=1.2,
            **({"role": "leader"} if leader and i == 0 else {}),
        )
        for i in range(n)
    ]
    return unit(ident, side, bases, **attrs)


def inf(ident: str, side: str, col: int, row: int, n: int = 1, **attrs: Any) -> dict[str, Any]:
    attrs = {"type": "infantry", "die": "d6", "weapon": "rifle", "quality": "raw", **attrs}
    return at(ident, side, col, row, n, **attrs)


def gun(ident: str, side: str, col: int, row: int, **attrs: Any) -> dict[str, Any]:
    attrs = {"type": "machine-gun", "die": "d6", "weapon": "machine-gun", **attrs}
    return at(ident, side, col, row, 1, leader=False, quality="experienced", **attrs)


def doc(*units: dict[str, Any]) -> dict[str, Any]:
    return scene_doc("age-of-napoleon", list(units), grid_box=10, ranges=RANGES)


def read(d: Mapping[str, Any]) -> Scene:
    return read_scene(copy.deepcopy(dict(d)), "<test scene>")


def applied(d: Mapping[str, Any], changes: Sequence[Change]) -> dict[str, Any]:
    """The document after the changes: unit fields set, removed bases taken off the table."""
    out = copy.deepcopy(dict(d))
    for change in changes:
        if change.scope is Scope.BASE:
            assert change.field == "removed" and change.value is True
            for u in out["units"]:
                u["bases"] = [b for b in u["bases"] if b["id"] != change.target]
            continue
        assert change.scope is Scope.UNIT
        (u,) = [u for u in out["units"] if u["id"] == change.target]
        u[change.field] = change.value
    return out


def settle(d: Mapping[str, Any], action: str, args: Sequence[str], **reported: Any) -> Any:
    return RS.settle(read(d), action, args, reported)


def changed(outcome: Any) -> list[tuple[str, str, Any]]:
    return [(c.target, c.field, c.value) for c in outcome.changes]


def form(d: Mapping[str, Any], action: str, *args: str) -> dict[str, Any]:
    return {r.name: r for r in RS.report_form(read(d), action, args)}


# --------------------------------------------------------------------------------------------
# The fields: descriptions without defaults, state with its start-of-game value


def test_the_declared_fields() -> None:
    fields = {f.name: f for f in RS.unit_fields}
    descriptions = {"type", "weapon", "die", "melee_die", "quality"}
    state = {
        "broken": (Kind.FLAG, False),
        "hits": (Kind.COUNT, 0),
        "fired": (Kind.FLAG, False),
        "moved": (Kind.FLAG, False),
        "consecutive_fire": (Kind.COUNT, 0),
        "gun_state": (Kind.CHOICE, "ok"),
        "rocket_checks": (Kind.COUNT, 0),
    }
    assert set(fields) == descriptions | set(state)
    for name in descriptions:
        assert not fields[name].in_play and fields[name].default is None, name
    for name, (kind, default) in state.items():
        assert fields[name].in_play and (fields[name].kind, fields[name].default) == (kind, default)
    assert fields["type"].choices == ("infantry", "cavalry", "artillery", "machine-gun")
    assert fields["quality"].choices == ("raw", "experienced", "elite")  # line 39
    assert fields["die"].choices == fields["melee_die"].choices == ("d6", "d3")  # lines 8-9
    assert fields["gun_state"].choices == ("ok", "overheated", "cooling", "broken")
    assert RS.scene_keys == {"ranges"}


def test_fired_and_moved_go_back_at_the_start_of_each_turn() -> None:
    per_turn = {f.name for f in RS.unit_fields if f.per_turn}
    # consecutive_fire counts turns across turns, so it is not per turn (line 13)
    assert per_turn == {"fired", "moved"}


def test_every_field_cites_a_line_that_says_it() -> None:
    lines = SHEET.splitlines()
    for f in RS.unit_fields:
        assert f.cite.text in lines[f.cite.line - 1], f.name


def test_a_scene_without_the_state_answers_and_names_the_defaults_it_assumed() -> None:
    sc = read(doc(inf("a", "red", 5, 5, 3), inf("b", "blue", 6, 5, 2)))
    res = RS.resolve(sc, "shoot", ("a", "b"))
    assert res.data["allowed"] is True and res.data["dice"]["dice"] == 3  # 3 bases (line 4)
    assumed = {(x["unit"], x["field"]): x["value"] for x in res.data["defaults"]}
    assert assumed[("a", "broken")] is False and assumed[("b", "hits")] == 0
    assert assumed[("a", "gun_state")] == "ok" and assumed[("b", "rocket_checks")] == 0
    assert "assumed at their start-of-game values" in res.lines[-1]


def test_a_gun_with_no_consecutive_fire_given_has_fired_no_run_yet() -> None:
    sc = read(doc(gun("mg", "red", 5, 5, fired=True)))
    res = RS.resolve(sc, "overheat", ("mg",))
    # consecutive_fire 0 (the default): no check before 2 turns in a row (line 13)
    assert res.data["check"] is False and res.data["consecutive_fire"] == 0
    assert ("mg", "consecutive_fire") in {(x["unit"], x["field"]) for x in res.data["defaults"]}


def test_every_missing_description_of_a_question_is_named_in_one_message() -> None:
    sc = read(doc(inf("a", "red", 5, 5, die=None), inf("b", "blue", 6, 5, die=None)))
    with pytest.raises(QuestionError) as caught:
        RS.resolve(sc, "melee", ("a", "b"))
    assert not isinstance(caught.value, MissingAttribute)
    message = str(caught.value)
    assert "2 attributes are missing" in message
    assert "'a' has no 'die'" in message and "'b' has no 'die'" in message
    # a rocket forced a morale check, so its modifier needs the type (line 22-23): the grade
    # and the type are named together
    lone = at("c", "red", 5, 5, rocket_checks=1)
    with pytest.raises(QuestionError) as caught:
        RS.resolve(read(doc(lone)), "morale", ("c",))
    message = str(caught.value)
    assert "'c' has no 'quality'" in message and "'c' has no 'type'" in message


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("fire_modifier", "fire_modifiers"),
        ("rocket_check", "rocket_checks"),
        ("gunstate", "gun_state"),
    ],
)
def test_a_misspelt_unit_key_is_refused_with_did_you_mean(key: str, meant: str) -> None:
    with pytest.raises(UmpireError, match=f"did you mean '{meant}'"):
        typo: dict[str, Any] = {key: []}
        read(doc(inf("a", "red", 5, 5, **typo)))


def test_a_misspelt_ranges_key_is_refused_with_did_you_mean() -> None:
    d = doc(inf("a", "red", 5, 5))
    d["rangs"] = d.pop("ranges")
    with pytest.raises(UmpireError, match="did you mean 'ranges'"):
        read(d)


# --------------------------------------------------------------------------------------------
# The sequence of play


def test_the_phases_are_explained_in_order_and_every_side_acts_in_each() -> None:
    assert [p.name for p in RS.phase_steps] == list(RS.phases)
    assert RS.phases == ("firing", "movement", "melee", "morale", "end-of-turn")
    lines = SHEET.splitlines()
    for step in RS.phase_steps:
        assert step.acting == "all"
        assert step.cite.text in lines[step.cite.line - 1]
    # the page's sections: 1. Firing (line 3), 2. Movement (24), 3. Melee (32), 5. Morale (39)
    assert [p.cite.line for p in RS.phase_steps] == [3, 24, 32, 39, 13]
    sc = read(doc(inf("a", "red", 5, 5), inf("b", "blue", 6, 5), inf("c", "green", 9, 9)))
    assert RS.side_groups(sc) == {"all": ("red", "blue", "green")}
    assert "every side acts in every phase" in RS.sides_rule


# --------------------------------------------------------------------------------------------
# Shooting (lines 4-12): hits are the dice score; bases come off; a gun's run grows


def test_shooting_adds_the_hits_takes_off_bases_and_marks_the_shooter() -> None:
    d = doc(inf("a", "red", 5, 5, 3), inf("b", "blue", 6, 5, 2, hits=3))
    reports = form(d, "shoot", "a", "b")
    # 3 bases: 3d6, at most 18 hits (lines 4-5); b has a leader base and 18 >= 5 (line 10)
    assert list(reports) == ["hits", "top_face", "removed"]
    assert reports["hits"].maximum == 18
    assert reports["hits"].default == 10  # 3d6 totals 10 and 11 are likeliest (27/216): 10
    assert reports["removed"].bases == ("b-1", "b-2") and reports["removed"].unit == "b"
    out = settle(d, "shoot", ("a", "b"), hits=7, top_face=True, removed=["b-2"])
    assert changed(out) == [
        ("b", "hits", 10),  # 3 before + 7
        ("b-2", "removed", True),
        ("a", "fired", True),
    ]
    # at least 5 hits and a 6 rolled: a leader check (line 10), 2d6 on the QRC table (line 37)
    assert "Leader Hits Table" in out.changes[0].reason
    after = applied(d, out.changes)
    # b is down to 1 base: 1 die back (line 4); a has fired, so suggest no longer offers it
    assert RS.resolve(read(after), "shoot", ("b", "a")).data["dice"]["dice"] == 1
    shots = RS.resolve(read(after), "suggest", ("firing",)).data["items"]
    assert [i["args"] for i in shots] == [["b", "a"]]


def test_fewer_than_5_hits_check_no_leader_from_fire() -> None:
    d = doc(inf("a", "red", 5, 5, 3), inf("b", "blue", 6, 5, 2))
    out = settle(d, "shoot", ("a", "b"), hits=4, top_face=True, removed=[])
    assert changed(out) == [("b", "hits", 4), ("a", "fired", True)]
    assert "Leader" not in out.changes[0].reason  # at least 5 hits (line 10)


def test_no_top_face_question_without_a_leader_or_without_5_possible_hits() -> None:
    no_leader = doc(inf("a", "red", 5, 5, 3), inf("b", "blue", 6, 5, 2, leader=False))
    assert list(form(no_leader, "shoot", "a", "b")) == ["hits", "removed"]
    # 1 base of d3: at most 3 hits, never the 5 of line 10
    native = doc(inf("a", "red", 5, 5, 1, die="d3"), inf("b", "blue", 6, 5, 2))
    reports = form(native, "shoot", "a", "b")
    assert list(reports) == ["hits", "removed"] and reports["hits"].maximum == 3


def test_hits_beyond_the_dice_are_refused() -> None:
    d = doc(inf("a", "red", 5, 5, 2), inf("b", "blue", 6, 5, 2))
    with pytest.raises(QuestionError, match="a whole number from 0 to 12"):
        settle(d, "shoot", ("a", "b"), hits=13, top_face=False, removed=[])


def test_a_shot_out_of_range_has_nothing_to_report() -> None:
    d = doc(inf("a", "red", 1, 1), inf("b", "blue", 9, 1))  # 8 boxes, rifle long 4
    assert RS.report_form(read(d), "shoot", ("a", "b")) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="out of range, so there are no dice"):
        RS.settle(read(d), "shoot", ("a", "b"), {})


def test_a_machine_gun_counts_its_turns_firing_once_a_turn() -> None:
    d = doc(gun("mg", "red", 5, 5, consecutive_fire=1), inf("b", "blue", 7, 5, 2))
    out = settle(d, "shoot", ("mg", "b"), hits=2, top_face=False, removed=[])
    # fired a second turn in a row (line 13-14)
    assert changed(out) == [("b", "hits", 2), ("mg", "fired", True), ("mg", "consecutive_fire", 2)]
    again = settle(
        applied(d, out.changes), "shoot", ("mg", "b"), hits=1, top_face=False, removed=[]
    )
    assert changed(again) == [("b", "hits", 3)]  # the same turn: the run is not longer


def test_a_broken_unit_loses_the_one_die_floor() -> None:
    # 2 bases - 3 dice of QRC modifiers: -1, rounded up to 0 (line 5); unbroken: 1 die (line 6)
    mods = [{"dice": -3, "reason": "shaken"}]
    d = doc(inf("a", "red", 5, 5, 2, fire_modifiers=mods), inf("b", "blue", 6, 5))
    assert RS.resolve(read(d), "shoot", ("a", "b")).data["dice"]["dice"] == 1
    out = settle(d, "morale", ("a",), broken=True)
    assert changed(out) == [("a", "broken", True)]
    after = read(applied(d, out.changes))
    res = RS.resolve(after, "shoot", ("a", "b"))
    assert res.data["dice"]["dice"] == 0 and res.data["allowed"] is False
    assert RS.report_form(after, "shoot", ("a", "b")) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="it has no dice"):
        RS.settle(after, "shoot", ("a", "b"), {})


# --------------------------------------------------------------------------------------------
# Rockets (lines 20-23): no hits, a morale check on the unit it lands on


def rockets(target_type: str) -> dict[str, Any]:
    return doc(
        at("rk", "red", 1, 5, type="artillery", weapon="rocket", die="d6", quality="raw"),
        at("t", "blue", 5, 5, 2, type=target_type, die="d3", quality="raw"),
        at("c", "blue", 7, 5, type="cavalry", die="d3", quality="elite"),
        at("far", "blue", 15, 5, type="cavalry", die="d3", quality="raw"),
    )


def test_the_rocket_form_asks_where_it_landed() -> None:
    (landed,) = form(rockets("infantry"), "rocket", "rk", "t").values()
    assert landed.kind is Kind.CHOICE and landed.default == "t"
    # the target on a 5-6; a drift of 1-6 boxes in 8 directions reaches c (2 boxes east) and
    # the battery itself (4 boxes west), not "far" (10 boxes east)
    assert set(landed.choices) == {"t", "c", "rk", "nothing"} and landed.choices[0] == "t"


@pytest.mark.parametrize(("target_type", "modifier"), [("infantry", "-1"), ("cavalry", "-2")])
def test_a_rocket_landing_forces_a_morale_check(target_type: str, modifier: str) -> None:
    d = rockets(target_type)
    out = settle(d, "rocket", ("rk", "t"), landed_on="t")
    assert changed(out) == [("t", "rocket_checks", 1), ("rk", "fired", True)]
    assert f"at {modifier} for {target_type}" in out.changes[0].reason  # lines 22-23
    after = applied(d, out.changes)
    res = RS.resolve(read(after), "morale", ("t",))
    assert res.data["rocket_checks"] == 1 and res.data["rocket_modifier"]["value"] == int(modifier)
    items = RS.resolve(read(after), "suggest", ("morale",)).data["items"]
    assert [(i["kind"], i["args"]) for i in items] == [("morale", ["t"])]
    # the check taken, not broken: the pending check goes, the unit stays as it was
    taken = settle(after, "morale", ("t",), broken=False)
    assert changed(taken) == [("t", "rocket_checks", 0)]
    assert (
        RS.resolve(read(applied(after, taken.changes)), "suggest", ("morale",)).data["items"] == []
    )


def test_a_drifting_rocket_may_land_on_another_unit_or_nothing() -> None:
    d = rockets("infantry")
    assert changed(settle(d, "rocket", ("rk", "t"), landed_on="c")) == [
        ("c", "rocket_checks", 1),
        ("rk", "fired", True),
    ]
    assert changed(settle(d, "rocket", ("rk", "t"), landed_on="nothing")) == [("rk", "fired", True)]
    with pytest.raises(QuestionError, match="landed_on is 'far'"):
        settle(d, "rocket", ("rk", "t"), landed_on="far")


# --------------------------------------------------------------------------------------------
# Melee (lines 32-37): each side's dice total is the hits the other takes


def melee_doc() -> dict[str, Any]:
    return doc(
        inf("a", "red", 5, 5, 2),
        inf("b", "blue", 6, 5, 3, die="d3", melee_die="d6"),  # natives: d6 in melee (line 35)
    )


def test_the_melee_form_asks_both_sides_hits() -> None:
    reports = form(melee_doc(), "melee", "a", "b")
    assert set(reports) == {
        "hits_on_a",
        "hits_on_b",
        "top_face_by_a",
        "top_face_by_b",
        "removed_a",
        "removed_b",
    }
    assert reports["hits_on_a"].maximum == 18  # b's 3 bases roll 3d6 in melee
    assert reports["hits_on_b"].maximum == 12  # a's 2d6
    assert reports["removed_b"].bases == ("b-1", "b-2", "b-3")


def test_melee_hits_and_a_leader_check_on_one_top_face() -> None:
    d = melee_doc()
    out = settle(
        d,
        "melee",
        ("a", "b"),
        hits_on_a=4,
        hits_on_b=2,
        top_face_by_a=True,
        top_face_by_b=False,
        removed_a=[],
        removed_b=["b-3"],
    )
    assert changed(out) == [("a", "hits", 4), ("b", "hits", 2), ("b-3", "removed", True)]
    # in melee one 6 is enough, even with 2 hits (line 37; the 5 hits of line 10 are fire's)
    assert "Leader Hits Table" in out.changes[1].reason
    assert "Leader" not in out.changes[0].reason
    after = read(applied(d, out.changes))
    res = RS.resolve(after, "melee", ("a", "b"))
    assert res.data["sides"]["b"]["dice"]["dice"] == 2  # one base fewer


def test_units_not_in_contact_have_no_melee_to_report() -> None:
    d = doc(inf("a", "red", 5, 5), inf("b", "blue", 8, 5))
    assert RS.report_form(read(d), "melee", ("a", "b")) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="not in base to base contact"):
        RS.settle(read(d), "melee", ("a", "b"), {})


# --------------------------------------------------------------------------------------------
# Overheating (lines 13-17)


def hot_gun(**attrs: Any) -> dict[str, Any]:
    return doc(gun("mg", "red", 5, 5, **attrs), inf("b", "blue", 7, 5, 2))


def test_an_overheated_gun_rests_a_turn_then_cools() -> None:
    d = hot_gun(fired=True, consecutive_fire=3)
    reports = form(d, "overheat", "mg")
    assert list(reports) == ["score", "if_overheated"] and reports["score"].maximum == 6
    out = settle(d, "overheat", ("mg",), score=3, if_overheated="rest")  # 3 <= 3 (line 14)
    assert changed(out) == [("mg", "gun_state", "cooling"), ("mg", "consecutive_fire", 0)]
    # next turn: fired goes back to false; the gun may not fire for 1 turn (line 16)
    rest = applied(d, out.changes)
    rest["units"][0]["fired"] = False
    res = RS.resolve(read(rest), "shoot", ("mg", "b"))
    assert res.data["allowed"] is False and res.data["may_fire"] is False
    shooters = {i["args"][0] for i in RS.resolve(read(rest), "suggest", ("firing",)).data["items"]}
    assert shooters == {"b"}  # b (rifle) reaches the gun 2 boxes away; the gun is not offered
    assert RS.report_form(read(rest), "shoot", ("mg", "b")) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="may not fire this turn"):
        RS.settle(read(rest), "shoot", ("mg", "b"), {})
    # at the end of that turn it cools down and is ok (line 16-17): nothing to roll
    assert form(rest, "overheat", "mg") == {}
    cooled = settle(rest, "overheat", ("mg",))
    assert changed(cooled) == [("mg", "gun_state", "ok")]


def test_a_gun_that_stays_cool_changes_nothing() -> None:
    d = hot_gun(fired=True, consecutive_fire=3)
    assert changed(settle(d, "overheat", ("mg",), score=4, if_overheated="rest")) == []


def test_a_gun_that_keeps_firing_breaks_on_a_second_failure() -> None:
    d = hot_gun(fired=True, consecutive_fire=2)
    out = settle(d, "overheat", ("mg",), score=1, if_overheated="keep firing")
    assert changed(out) == [("mg", "gun_state", "overheated")]
    hot = applied(d, out.changes)
    hot["units"][0]["consecutive_fire"] = 3  # fired again the next turn
    assert list(form(hot, "overheat", "mg")) == ["score"]  # no choice left (line 16)
    broken = settle(hot, "overheat", ("mg",), score=2)
    assert changed(broken) == [("mg", "gun_state", "broken")]  # permanently broken
    after = applied(hot, broken.changes)
    assert RS.resolve(read(after), "shoot", ("mg", "b")).data["allowed"] is False
    assert RS.resolve(read(after), "suggest", ("end-of-turn",)).data["items"] == []


def test_a_turn_without_firing_ends_the_run_and_cools_the_gun() -> None:
    d = hot_gun(fired=False, consecutive_fire=2, gun_state="overheated")
    res = RS.resolve(read(d), "overheat", ("mg",))
    assert res.data["check"] is False  # it has not fired this turn (line 13)
    assert form(d, "overheat", "mg") == {}
    out = settle(d, "overheat", ("mg",))
    assert changed(out) == [("mg", "consecutive_fire", 0), ("mg", "gun_state", "ok")]


def test_a_d6_score_of_0_is_refused() -> None:
    with pytest.raises(QuestionError, match="a d6 shows 1 to 6"):
        settle(
            hot_gun(fired=True, consecutive_fire=2),
            "overheat",
            ("mg",),
            score=0,
            if_overheated="rest",
        )


# --------------------------------------------------------------------------------------------
# Morale and moves


def test_morale_answers_with_the_grade_and_a_rally_clears_broken() -> None:
    d = doc(inf("a", "red", 5, 5, quality="elite", broken=True))
    res = RS.resolve(read(d), "morale", ("a",))
    assert res.data["grade"] == "elite" and res.data["broken"] is True
    (report,) = form(d, "morale", "a").values()
    assert report.kind is Kind.FLAG and report.default is True  # as the unit stands
    assert changed(settle(d, "morale", ("a",), broken=False)) == [("a", "broken", False)]


def test_a_move_has_no_dice_and_marks_the_unit_moved() -> None:
    d = doc(inf("a", "red", 5, 5), at("h", "blue", 9, 9, type="cavalry", die="d6"))
    assert form(d, "move", "a") == {}
    out = settle(d, "move", ("a",))
    assert changed(out) == [("a", "moved", True)]
    after = applied(d, out.changes)
    items = RS.resolve(read(after), "suggest", ("movement",)).data["items"]
    assert [i["args"] for i in items] == [["h"]]
    assert RS.resolve(read(after), "move", ("a",)).data["moved_this_turn"] is True
    assert changed(settle(after, "move", ("a",))) == []


# --------------------------------------------------------------------------------------------
# The demo game


def demo_files() -> tuple[Any, Scene, dict[str, Any]]:
    from vision.game import load_game

    game = load_game(DEMO / "age-of-napoleon.toml")
    layout = json.loads((DEMO / "age-of-napoleon.json").read_text(encoding="utf-8"))
    return game, load_scene(DEMO / "age-of-napoleon.json"), layout


def test_the_demo_game_and_its_layout_agree() -> None:
    game, scene, layout = demo_files()
    assert game.ruleset == scene.ruleset == "age-of-napoleon"
    assert (game.table_width, game.table_depth) == (scene.table_width, scene.table_depth)
    assert (game.table_width, game.table_depth) == (1800, 1200)
    assert game.grid_box == scene.grid_box == 150  # 12 x 8 boxes of 15 cm
    assert game.scene_extra["ranges"] == layout["ranges"] == scene.extra["ranges"]
    assert [u.id for u in game.units] == [u.id for u in scene.units]
    for spec, unit_doc in zip(game.units, layout["units"], strict=True):
        described = {k: v for k, v in unit_doc.items() if k not in ("id", "side", "bases")}
        assert dict(spec.attrs) == described, spec.id
        assert spec.side == unit_doc["side"]
        for b, b_doc in zip(spec.bases, unit_doc["bases"], strict=True):
            assert b.id == b_doc["id"] and b.role == b_doc.get("role")
            assert (b.footprint.width, b.footprint.depth) == (
                b_doc["width"] * 10,
                b_doc["depth"] * 10,
            )
    # every unit's state is in the file: nothing is assumed
    assert all(not u.defaulted for u in scene.units)


def test_the_demo_tags_are_big_enough_and_the_bases_clear_of_each_other_and_the_cards() -> None:
    from vision.synthetic import table_spec

    game, scene, layout = demo_files()
    bases = list(scene.bases())
    assert 30 <= len(bases) <= 60
    assert len({u.side for u in scene.units}) >= 2
    for spec in game.units:
        for b in spec.bases:
            assert b.spec.size >= 32.0, b.id
            assert b.footprint.width >= b.spec.size + 4 and b.footprint.depth >= b.spec.size + 4
    for card in game.terrain:
        assert card.spec is None or card.spec.size >= 32.0
    for b in bases:
        outline = geo.outline_polygon(b)
        assert outline[:, 0].min() >= 30 and outline[:, 1].min() >= 30, b.id
        assert outline[:, 0].max() <= 1770 and outline[:, 1].max() <= 1170, b.id
    gaps = geo.distance_matrix(bases, bases)
    np.fill_diagonal(gaps, np.inf)
    assert gaps.min() >= 5.0
    base_tags = {b.tag for u in game.units for b in u.bases}
    cards = [t for t in table_spec(game, layout).tags if t.tag_id not in base_tags]
    assert len(cards) == 4 + sum(1 for c in game.terrain if c.tag is not None)
    for t in cards:
        half = t.card_mm / 2
        for b in bases:
            o = geo.outline_polygon(b)
            gap_x = max(o[:, 0].min() - (t.x_mm + half), (t.x_mm - half) - o[:, 0].max())
            gap_y = max(o[:, 1].min() - (t.y_mm + half), (t.y_mm - half) - o[:, 1].max())
            assert max(gap_x, gap_y) >= 5.0, (b.id, t.tag_id)


def test_the_demo_suggestions_cover_every_action_and_all_answer() -> None:
    _, scene, _ = demo_files()
    kinds: set[str] = set()
    by_phase: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for phase in RS.phases:
        items = RS.resolve(scene, "suggest", (phase,)).data["items"]
        by_phase[phase] = [(i["kind"], tuple(i["args"])) for i in items]
        for item in items:
            kinds.add(item["kind"])
            assert "error" not in item["result"]
            direct = RS.resolve(scene, item["kind"], item["args"])  # answers, no error
            assert direct.action == item["kind"]
    assert kinds == set(RS.actions()) - {"measure", "suggest"}
    # the Beja are in the box next to the Egyptians (a side in common, line 32); the Baggara
    # took a rocket; the Gardner gun fired this turn and the last (line 13)
    assert by_phase["melee"] == [("melee", ("egyptians", "beja"))]
    assert by_phase["morale"] == [("morale", ("baggara",))]
    assert by_phase["end-of-turn"] == [("overheat", ("gardner",))]
    assert RS.resolve(scene, "overheat", ("gardner",)).data["check"] is True
    assert {k for k, _ in by_phase["firing"]} == {"shoot", "rocket"}
    assert len(by_phase["movement"]) == len(scene.units)
