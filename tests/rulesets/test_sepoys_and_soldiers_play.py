"""sepoys-and-soldiers in play: state as data, the reported dice and the state they change.

Every expected number is worked out by hand from the sheet (rules/sheets/001_14e3e4b7ab0503f1.txt,
line numbers in the comments) or from the geometry of the test scene, never copied from the
code. Scenes are in inches; a foot base is 2" wide and 1" deep; `line(...)` puts a unit's bases
side by side along x. `applied` plays an outcome's changes onto the scene's document the way the
server would (bases taken off, unit fields set), and `next_turn` puts the per-turn fields back.
"""

from __future__ import annotations

import copy
import json
import math
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rules import geometry as geo
from rules.engine import get_ruleset, load_scene, read_scene
from rules.errors import QuestionError
from rules.rulesets.sepoys_and_soldiers import ruleset as sas
from rules.scene import Scene
from rules.state import Change, Kind, Outcome, Scope
from tests.builders import base, rect, scene_doc, terrain

REPO = Path(__file__).resolve().parents[2]
RS_ID = "sepoys-and-soldiers"
RS = get_ruleset(RS_ID)
DEMO = REPO / "vision" / "demo_game"


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
    return {
        "id": ident,
        "side": side,
        **attrs,
        "bases": [base(ident + "-1", x, y, 90, diameter=1, role="commander")],
    }


def doc(*units: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return scene_doc(RS_ID, list(units), unit="in", width=72, depth=48, **kw)


def load(d: dict[str, Any]) -> Scene:
    return read_scene(copy.deepcopy(d), "<test scene>")


def ask(d: dict[str, Any], action: str, *args: str) -> dict[str, Any]:
    return RS.resolve(load(d), action, list(args)).as_json()


def settle(d: dict[str, Any], action: str, args: list[str], reported: dict[str, Any]) -> Outcome:
    return RS.settle(load(d), action, args, reported)


def changed(outcome: Outcome) -> set[tuple[str, str, Any]]:
    return {(c.target, c.field, c.value) for c in outcome.changes}


def applied(d: dict[str, Any], outcome: Outcome) -> dict[str, Any]:
    """The document after the outcome: removed bases gone, unit fields set."""
    out = copy.deepcopy(d)
    for c in outcome.changes:
        if c.scope is Scope.BASE:
            for u in out["units"]:
                u["bases"] = [b for b in u["bases"] if b["id"] != c.target]
        else:
            next(u for u in out["units"] if u["id"] == c.target)[c.field] = c.value
    out["units"] = [u for u in out["units"] if u["bases"]]
    return out


def next_turn(d: dict[str, Any]) -> dict[str, Any]:
    """The document at the start of the next turn: every per-turn field at its default."""
    out = copy.deepcopy(d)
    for u in out["units"]:
        for f in RS.unit_fields:
            if f.per_turn and f.name in u:
                u[f.name] = f.default
    return out


def frac(p: dict[str, Any]) -> Fraction:
    return Fraction(p["exact"])


# --------------------------------------------------------------------------------------------
# Fields, the sequence of play


def test_fields_declare_state_and_descriptions() -> None:
    fields = {f.name: f for f in RS.unit_fields}
    # descriptions: no default, do not change in play
    for name in ("type", "arm", "weapon", "rating"):
        assert fields[name].default is None and not fields[name].in_play
    assert fields["type"].choices == ("aggressive", "active", "passive")  # lines 5-7
    # state every unit starts a game with
    assert fields["hits"].kind is Kind.COUNT and fields["hits"].default == 0  # line 3
    assert fields["disordered"].default is False
    assert fields["status"].default == "steady"
    assert fields["hurt"].default == "unhurt"
    # orders start as the troop type (lines 5-7): no one default for every unit
    assert fields["orders"].in_play and fields["orders"].default is None


def test_per_turn_fields_are_marked() -> None:
    # moved (line 56) and acted (line 21, ONE action) this turn; the order kept this turn while
    # new ones wait (line 20); the orders a commander tried this turn (line 11 "Orders")
    assert {f.name for f in RS.unit_fields if f.per_turn} == {
        "moved",
        "acted",
        "orders_this_turn",
        "orders_given",
    }


def test_phases_are_explained_and_every_side_acts_in_each() -> None:
    assert [p.name for p in RS.phase_steps] == list(RS.phases)
    sc = load(
        doc(
            line("a", "red", 10, 10, type="active", arm="foot"),
            line("b", "blue", 10, 20, type="active", arm="foot"),
        )
    )
    groups = RS.side_groups(sc, None)
    assert {p.acting for p in RS.phase_steps} <= set(groups)
    assert set(groups["all"]) == {"red", "blue"}
    assert RS.sides_rule


# --------------------------------------------------------------------------------------------
# Start-of-game state left out; descriptions missing


def test_left_out_state_answers_and_is_noted() -> None:
    # No hits, disorder or orders given: b carries 0 hits, a is in good order and acts on the
    # order of its type (aggressive). 3 bases, 2" apart: short, aggressive v active 3+ (line 68)
    d = doc(
        line("a", "red", 10, 10, 3, type="aggressive", arm="foot"),
        line("b", "blue", 10, 13, 3, facing=270, type="active", arm="foot"),
    )
    out = ask(d, "shoot", "a", "b")
    assert (out["rolls"][0]["dice"], out["rolls"][0]["need"]) == (3, 3)  # not halved
    assert out["target_hits_carried"] == 0
    assumed = {(a["unit"], a["field"], a["value"]) for a in out["defaults"]}
    assert {("b", "hits", 0), ("a", "disordered", False), ("a", "orders", "aggressive")} <= assumed
    assert any(a["source"] == "001_14e3e4b7ab0503f1.txt:3" for a in out["defaults"])
    assert (
        RS.resolve(load(d), "shoot", ["a", "b"])
        .lines[-1]
        .startswith("assumed at their start-of-game values")
    )


def test_given_state_is_not_noted() -> None:
    d = doc(
        line("a", "red", 10, 10, 3, type="aggressive", arm="foot", orders="aggressive"),
        line("b", "blue", 10, 13, 3, facing=270, type="active", arm="foot", hits=1),
    )
    assumed = {(a["unit"], a["field"]) for a in ask(d, "shoot", "a", "b")["defaults"]}
    assert ("b", "hits") not in assumed and ("a", "orders") not in assumed


def test_missing_descriptions_are_named_together() -> None:
    d = doc(
        line("a", "red", 10, 10, 3),
        line("b", "blue", 10, 13, 3, facing=270, arm="foot"),
    )
    with pytest.raises(QuestionError) as caught:
        RS.resolve(load(d), "shoot", ["a", "b"])
    message = str(caught.value)
    assert "3 attributes are missing" in message
    for who, key in (("a", "arm"), ("a", "type"), ("b", "type")):
        assert f"'{who}' has no '{key}'" in message


def test_a_typo_of_a_field_is_refused_with_did_you_mean() -> None:
    with pytest.raises(ValueError, match="did you mean 'disordered'"):
        load(doc(line("a", "red", 10, 10, type="active", arm="foot", disorderd=True)))


# --------------------------------------------------------------------------------------------
# shoot: successes -> hits -> bases removed (lines 3, 58-70), rockets (lines 72-75)


def _firefight(**target: Any) -> dict[str, Any]:
    # a's front edge at 10.5, b's near edge at 13 - 0.5 = 12.5: 2" apart, short range
    return doc(
        line("a", "red", 10, 10, 3, type="aggressive", arm="foot"),
        line("b", "blue", 10, 13, 3, facing=270, type="active", arm="foot", **target),
    )


def test_infantry_fire_form() -> None:
    form = RS.report_form(load(_firefight(hits=1)), "shoot", ["a", "b"])
    successes, removed = form
    # 3 bases roll 1d6 each at 3+ (line 68): 0, 1, 2, 3 successes 1/27, 6/27, 12/27, 8/27
    assert (successes.name, successes.kind, successes.maximum, successes.default) == (
        "successes",
        Kind.COUNT,
        3,
        2,
    )
    # 2 successes = 4 hits (line 65) on the 1 carried: 5, one base off (line 3)
    assert (removed.name, removed.kind, removed.unit) == ("removed_b", Kind.BASES, "b")
    assert removed.bases == ("b-1", "b-2", "b-3") and removed.default == ("b-3",)


def test_infantry_fire_removes_a_base_and_keeps_the_rest_as_hits() -> None:
    d = _firefight(hits=1)
    out = settle(d, "shoot", ["a", "b"], {"successes": 2, "removed_b": ["b-3"]})
    # 2 successes x 2 hits = 4, + 1 carried = 5: one base (3 hits), 2 left (line 3)
    assert changed(out) == {("b-3", "removed", True), ("b", "hits", 2), ("a", "acted", True)}
    assert out.lines[0].startswith("b-3 removed no -> yes")
    after = applied(d, out)
    # a has fired, its one action (line 21): it may not fire again this turn
    again = ask(after, "shoot", "a", "b")
    assert again["allowed"] is False
    assert any(r["source"] == "001_14e3e4b7ab0503f1.txt:21" for r in again["reasons"])
    # next turn: b has 2 bases and carries 2 hits; any success (2 hits) takes a base:
    # 1 - P(no success) = 1 - (1/3)^3 = 26/27
    fresh = ask(next_turn(after), "shoot", "a", "b")
    assert fresh["allowed"] is True and fresh["target_hits_carried"] == 2
    assert frac(fresh["p_base_lost"]) == Fraction(26, 27)
    assert {row["k"] for row in fresh["bases_lost"]} == {0, 1, 2}


def test_the_bases_named_must_be_the_bases_lost() -> None:
    with pytest.raises(QuestionError, match="name 1 base of b to take off, not 0"):
        settle(_firefight(hits=1), "shoot", ["a", "b"], {"successes": 2, "removed_b": []})
    with pytest.raises(QuestionError, match="a whole number from 0 to 3"):
        settle(_firefight(), "shoot", ["a", "b"], {"successes": 4, "removed_b": []})


def test_no_success_changes_only_the_shooter() -> None:
    out = settle(_firefight(hits=1), "shoot", ["a", "b"], {"successes": 0, "removed_b": []})
    assert changed(out) == {("a", "acted", True)}


def test_artillery_fire_at_long_range() -> None:
    # A European heavy gun (2" x 2" base, front edge 11) and b 10" away: long range (20",
    # line 59), 5+ (line 61); each success 2 hits (line 58). b carries 1: 1 success -> 3 hits,
    # one base off and none left over.
    d = doc(
        line(
            "gun",
            "red",
            10,
            10,
            type="active",
            arm="artillery",
            weapon="european-heavy",
            depth=2,
        ),
        line("b", "blue", 10, 21.5, 2, facing=270, type="active", arm="foot", hits=1),
    )
    form = RS.report_form(load(d), "shoot", ["gun", "b"])
    assert form[0].maximum == 1 and "5+" in form[0].label
    out = settle(d, "shoot", ["gun", "b"], {"successes": 1, "removed_b": ["b-2"]})
    assert changed(out) == {("b-2", "removed", True), ("b", "hits", 0), ("gun", "acted", True)}


def test_rockets_take_the_bases_they_burst_on() -> None:
    # One rocket base 6" from the target: one rocket, so at most one base lost (line 72)
    d = doc(
        line("rockets", "red", 10, 10, type="active", arm="rockets"),
        line("b", "blue", 10, 17, 3, facing=270, type="active", arm="foot"),
    )
    form = RS.report_form(load(d), "shoot", ["rockets", "b"])
    assert [r.name for r in form] == ["removed_b"]
    assert form[0].maximum == 1
    with pytest.raises(QuestionError, match="at most 1"):
        settle(d, "shoot", ["rockets", "b"], {"removed_b": ["b-1", "b-2"]})
    out = settle(d, "shoot", ["rockets", "b"], {"removed_b": ["b-2"]})
    assert changed(out) == {("b-2", "removed", True), ("rockets", "acted", True)}
    # a rocket that burnt out changes nothing but the launcher's action
    assert changed(settle(d, "shoot", ["rockets", "b"], {"removed_b": []})) == {
        ("rockets", "acted", True)
    }


def test_a_refused_shot_has_no_form() -> None:
    # 20" apart: beyond infantry's long range (8", line 66)
    d = doc(
        line("a", "red", 10, 10, type="aggressive", arm="foot"),
        line("b", "blue", 10, 31, facing=270, type="active", arm="foot"),
    )
    assert RS.report_form(load(d), "shoot", ["a", "b"]) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="beyond the longest range"):
        RS.settle(load(d), "shoot", ["a", "b"], {})


# --------------------------------------------------------------------------------------------
# command: an adjacent commander changes a unit's orders (lines 11-20)


def _orders(rating: str) -> dict[str, Any]:
    # gen (1" round) at y 9 touches u's rear edge at 9.5; e 2" in front of u
    return doc(
        general("gen", "red", 10, 9, rating=rating),
        line("u", "red", 10, 10, 2, type="passive", arm="foot"),
        line("e", "blue", 10, 13, 2, facing=270, type="aggressive", arm="foot"),
    )


def test_command_form() -> None:
    order, this_turn = RS.report_form(load(_orders("energetic")), "command", ["gen", "u"])
    assert order.kind is Kind.CHOICE and order.choices == ("aggressive", "active", "passive")
    assert order.default == "aggressive"  # an order other than the one it has
    # energetic: 2+ (line 12), 5/6 a die, likelier to act this turn
    assert this_turn.kind is Kind.FLAG and this_turn.default is True and "2+" in this_turn.label
    assert (
        RS.report_form(load(_orders("energetic")), "command", ["gen"]) == ()
    )  # refused: nothing to roll
    with pytest.raises(QuestionError, match="command COMMANDER UNIT"):
        RS.settle(load(_orders("energetic")), "command", ["gen"], {})


def test_an_order_obeyed_this_turn_changes_the_tables_the_unit_reads() -> None:
    d = _orders("energetic")
    assert ask(d, "nerve", "u")["dice"] == 1  # passive: 1d6 (line 21)
    out = settle(d, "command", ["gen", "u"], {"order": "aggressive", "this_turn": True})
    assert changed(out) == {("u", "orders", "aggressive"), ("gen", "orders_given", 1)}
    after = applied(d, out)
    nerve = ask(after, "nerve", "u")
    assert (nerve["dice"], frac(nerve["p_pass"])) == (3, Fraction(7, 8))  # 1 - (1/2)^3
    # aggressive firing at aggressive, short range: 4+ (line 68; passive would need 6+, line 70)
    assert ask(after, "shoot", "u", "e")["rolls"][0]["need"] == 4
    # energetic: 2 orders a turn (line 12): one more, then no more this turn
    second = applied(
        after, settle(after, "command", ["gen", "u"], {"order": "active", "this_turn": True})
    )
    refused = ask(second, "command", "gen", "u")
    assert refused["allowed"] is False and refused["orders_given"] == 2
    assert RS.report_form(load(second), "command", ["gen", "u"]) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="2 of his 2 order changes"):
        RS.settle(load(second), "command", ["gen", "u"], {})
    assert ask(next_turn(second), "command", "gen", "u")["allowed"] is True


def test_an_order_failed_waits_for_next_turn() -> None:
    d = _orders("dull")  # 4+, 1 order a turn (line 14)
    out = settle(d, "command", ["gen", "u"], {"order": "aggressive", "this_turn": False})
    assert changed(out) == {
        ("u", "orders", "aggressive"),
        ("u", "orders_this_turn", "passive"),
        ("gen", "orders_given", 1),
    }
    after = applied(d, out)
    assert ask(after, "nerve", "u")["dice"] == 1  # acts on passive this turn (line 20)
    assert ask(after, "command", "gen", "u")["allowed"] is False  # his one order is spent
    assert ask(next_turn(after), "nerve", "u")["dice"] == 3  # aggressive from next turn


def test_a_unit_out_of_contact_cannot_be_ordered() -> None:
    d = _orders("energetic")
    d["units"][0]["bases"][0]["y"] = 7  # 1.5" behind u
    assert RS.report_form(load(d), "command", ["gen", "u"]) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="not adjacent"):
        RS.settle(load(d), "command", ["gen", "u"], {})


# --------------------------------------------------------------------------------------------
# nerve: pass / fail and what failing does (lines 21-30, 41-44), commander risk (lines 11-15)


def _unit(**attrs: Any) -> dict[str, Any]:
    return doc(
        line("u", "red", 10, 10, 2, type="active", arm="foot", **attrs),
        line("e", "blue", 10, 16, 2, facing=270, type="active", arm="foot"),
    )


@pytest.mark.parametrize(
    ("situation", "expected"),
    [
        ("loss-of-a-base", {("u", "status", "falling-back")}),  # line 23
        ("adjacent-unit-routs", {("u", "status", "falling-back")}),  # line 27
        ("being-charged", {("u", "status", "routed"), ("u", "disordered", True)}),  # 25, 44
        ("lost-a-charge-combat", {("u", "status", "routed"), ("u", "disordered", True)}),  # 26
        ("attacked-in-flank-or-rear", {("u", "status", "routed"), ("u", "disordered", True)}),
        ("attempting-to-charge", {("u", "acted", True)}),  # line 24: stand - no charge
        ("attempt-to-reform", {("u", "acted", True)}),  # line 29: remain disordered
    ],
)
def test_failing_nerve_does_what_the_table_says(situation: str, expected: set[Any]) -> None:
    d = _unit(disordered=situation == "attempt-to-reform")
    assert changed(settle(d, "nerve", ["u", situation], {"passed": False})) == expected


def test_a_failed_nerve_says_its_situation_and_what_failing_does() -> None:
    # line 28: attacked in flank / rear, rout back a full move (end with backs to enemy)
    out = settle(_unit(), "nerve", ["u", "attacked-in-flank-or-rear"], {"passed": False})
    (status,) = [c for c in out.changes if c.field == "status"]
    assert status.reason == (
        "failed its nerve (attacked in flank or rear): "
        "rout back a full move (end with backs to enemy)"
    )
    # line 24: a charger failing its nerve stands; its charge is its action
    (stands,) = settle(_charge(), "charge", ["a", "b"], {"result": "no-charge"}).changes
    assert stands.reason == "failed its nerve (attempting to charge): stand - no charge"


def test_passing_nerve_changes_nothing_but_a_reform() -> None:
    assert changed(settle(_unit(), "nerve", ["u", "being-charged"], {"passed": True})) == set()
    # line 41: to reform, pass a nerve and cannot move
    out = settle(_unit(disordered=True), "nerve", ["u", "attempt-to-reform"], {"passed": True})
    assert changed(out) == {("u", "disordered", False), ("u", "acted", True)}


def test_a_nerve_form_asks_passed_and_tells_the_tests() -> None:
    (passed,) = RS.report_form(load(_unit()), "nerve", ["u", "attacked-in-flank-or-rear"])
    # active: 2d6 (line 21), tested twice (line 28): (3/4)^2 = 9/16, likelier to pass
    assert passed.kind is Kind.FLAG and passed.default is True
    assert "2d6" in passed.label and "each of 2 tests" in passed.label
    assert RS.report_form(load(_unit()), "nerve", ["u"]) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="name the situation"):
        RS.settle(load(_unit()), "nerve", ["u"], {})


def test_a_routed_unit_rallies_or_keeps_routing() -> None:
    d = _unit(status="routed", disordered=True)
    out = settle(d, "nerve", ["u"], {"passed": True})
    assert changed(out) == {("u", "status", "steady"), ("u", "acted", True)}
    after = applied(d, out)
    # rallied, still disordered: next turn it must attempt to reform (line 21)
    rally = ask(next_turn(after), "suggest", "rally")
    assert [(i["kind"], i["args"]) for i in rally["items"]] == [
        ("nerve", ["u", "attempt-to-reform"])
    ]
    assert changed(settle(d, "nerve", ["u"], {"passed": False})) == {("u", "acted", True)}


def test_a_rout_is_suggested_a_rally_and_its_nerve_drops_a_quality() -> None:
    d = _unit()
    after = applied(d, settle(d, "nerve", ["u", "being-charged"], {"passed": False}))
    rally = ask(after, "suggest", "rally")["items"]
    assert [(i["kind"], i["args"]) for i in rally] == [("nerve", ["u"])]
    # active, disordered: tests as passive, 1d6 (line 43): 1/2
    assert frac(rally[0]["result"]["p_pass"]) == Fraction(1, 2)


def test_commander_risk_is_reported_with_the_nerve_test() -> None:
    d = doc(
        general("gen", "red", 10, 9, rating="dull"),
        line("u", "red", 10, 10, 2, type="active", arm="foot"),
    )
    _, risk = RS.report_form(load(d), "nerve", ["u", "being-charged"])
    assert risk.name == "risk_gen" and risk.kind is Kind.CHOICE
    assert risk.choices == ("not-hit", "dead", "wounded", "horse-killed", "scratch")
    assert "hit on 1" in risk.label  # dull: 1 = hit (line 14)
    dead = settle(d, "nerve", ["u", "being-charged"], {"passed": True, "risk_gen": "dead"})
    assert changed(dead) == {("gen-1", "removed", True)}  # line 12: 1 = dead
    wounded = settle(d, "nerve", ["u", "being-charged"], {"passed": True, "risk_gen": "wounded"})
    assert changed(wounded) == {("gen", "hurt", "wounded")}  # line 13
    unhorsed = settle(
        d, "nerve", ["u", "being-charged"], {"passed": True, "risk_gen": "horse-killed"}
    )
    assert changed(unhorsed) == {("gen", "hurt", "horse-killed")}
    # line 14: no action this turn / next: he may not change orders
    refused = ask(applied(d, unhorsed), "command", "gen", "u")
    assert refused["allowed"] is False and "horse was killed" in refused["reasons"][0]["reason"]
    assert (
        changed(settle(d, "nerve", ["u", "being-charged"], {"passed": True, "risk_gen": "scratch"}))
        == set()
    )


# --------------------------------------------------------------------------------------------
# charge (lines 79-84)


def _charge(**kw: Any) -> dict[str, Any]:
    arm = kw.pop("arm", "foot")
    # 2" apart; the charger's reach is its move, 8" on foot, 12" mounted (lines 50-51)
    return doc(
        line("a", "red", 10, 10, 2, type="aggressive", arm=arm),
        line("b", "blue", 10, 13, 2, facing=270, type="active", arm=arm, **kw),
    )


def test_charge_form() -> None:
    (result,) = RS.report_form(load(_charge()), "charge", ["a", "b"])
    assert result.choices == ("no-charge", "target-routs", "charge-combat")
    # charger 3d6 passes 7/8, target 2d6 3/4 (line 21): no charge 1/8, routs 7/32,
    # combat 21/32 -- the likeliest
    assert result.default == "charge-combat"


def test_a_charge_the_target_flees() -> None:
    d = _charge()
    out = settle(d, "charge", ["a", "b"], {"result": "target-routs"})
    # line 25: rout back a full move; disordered while routing (line 44); line 82
    assert changed(out) == {
        ("b", "status", "routed"),
        ("b", "disordered", True),
        ("a", "acted", True),
    }
    after = applied(d, out)
    refused = ask(after, "charge", "b", "a")
    assert refused["allowed"] is False  # a routed unit must attempt to rally (line 21)
    assert ask(after, "shoot", "a", "b")["allowed"] is False  # a has charged: its action


def test_a_charge_refused_at_the_chargers_nerve_or_fought_out() -> None:
    d = _charge()
    assert changed(settle(d, "charge", ["a", "b"], {"result": "no-charge"})) == {
        ("a", "acted", True)
    }
    assert changed(settle(d, "charge", ["a", "b"], {"result": "charge-combat"})) == {
        ("a", "acted", True)
    }
    # both cavalry: the target counter-charges (line 81)
    horse = _charge(arm="cavalry")
    assert changed(settle(horse, "charge", ["a", "b"], {"result": "charge-combat"})) == {
        ("a", "acted", True),
        ("b", "acted", True),
    }


def test_a_charge_beyond_reach_has_no_form() -> None:
    d = _charge()
    d["units"][1]["bases"][0]["y"] = d["units"][1]["bases"][1]["y"] = 23  # 12" apart
    assert RS.report_form(load(d), "charge", ["a", "b"]) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="beyond the charge move"):
        RS.settle(load(d), "charge", ["a", "b"], {})


# --------------------------------------------------------------------------------------------
# melee: a charge combat (lines 88-91)


def _melee(a_hits: int = 0, **a_attrs: Any) -> dict[str, Any]:
    # a's front edge and b's near edge both at y 10.5: in contact
    return doc(
        line("a", "red", 10, 10, type="aggressive", arm="foot", hits=a_hits, **a_attrs),
        line("b", "blue", 10, 11, 2, facing=270, type="active", arm="foot", hits=1),
    )


def test_melee_form() -> None:
    drawn, winner, lost_a, lost_b = RS.report_form(load(_melee()), "melee", ["a", "b"])
    # the combat cannot outlast a's 3 hits (1 base) or b's 5 (2 bases, 1 carried)
    assert (drawn.name, drawn.maximum, drawn.default) == ("drawn_rounds", 3, 0)
    assert winner.choices == ("a", "b", "both-destroyed")
    assert (lost_a.name, lost_a.unit, lost_b.name, lost_b.unit) == (
        "removed_a",
        "a",
        "removed_b",
        "b",
    )


def test_melee_winner_and_loser() -> None:
    d = _melee()
    out = settle(
        d,
        "melee",
        ["a", "b"],
        {"drawn_rounds": 1, "winner": "a", "removed_a": [], "removed_b": ["b-2"]},
    )
    # one drawn round: 1 hit each (line 89); the decisive round: winner 1, loser 2 (line 91).
    # a: 0 + 1 + 1 = 2 hits, no base; b: 1 + 1 + 2 = 4, one base off and 1 left (as carried).
    # The loser routs (line 90); all units involved are disordered (line 43).
    assert changed(out) == {
        ("a", "hits", 2),
        ("b-2", "removed", True),
        ("b", "status", "routed"),
        ("b", "disordered", True),
        ("a", "disordered", True),
    }
    after = applied(d, out)
    # a disordered aggressive tests as active: 2d6, 3/4 (line 43)
    assert frac(ask(after, "nerve", "a")["p_pass"]) == Fraction(3, 4)
    assert [i["args"] for i in ask(after, "suggest", "rally")["items"]] == [
        ["a", "attempt-to-reform"],
        ["b"],
    ]


def test_melee_a_side_destroyed_in_drawn_rounds_ends_it() -> None:
    d = _melee(a_hits=2)
    # one drawn round: a has 3 hits on 1 base and is gone; the combat ends (b has 2 hits)
    with pytest.raises(QuestionError, match="the winner is b, not a"):
        settle(
            d,
            "melee",
            ["a", "b"],
            {"drawn_rounds": 1, "winner": "a", "removed_a": ["a-1"], "removed_b": []},
        )
    out = settle(
        d,
        "melee",
        ["a", "b"],
        {"drawn_rounds": 1, "winner": "b", "removed_a": ["a-1"], "removed_b": []},
    )
    assert changed(out) == {("a-1", "removed", True), ("b", "hits", 2), ("b", "disordered", True)}
    with pytest.raises(QuestionError, match="both sides still have bases"):
        settle(
            _melee(),
            "melee",
            ["a", "b"],
            {"drawn_rounds": 0, "winner": "both-destroyed", "removed_a": [], "removed_b": []},
        )


def test_british_cavalry_winning_pursue() -> None:
    d = doc(
        line("lancers", "british", 10, 10, type="aggressive", arm="cavalry"),
        line("b", "blue", 10, 11, facing=270, type="passive", arm="foot"),
    )
    out = settle(
        d,
        "melee",
        ["lancers", "b"],
        {"drawn_rounds": 0, "winner": "lancers", "removed_lancers": [], "removed_b": []},
    )
    # line 91: British cavalry must pursue for two moves
    assert ("lancers", "status", "pursuing") in changed(out)
    assert ("b", "status", "routed") in changed(out)


# --------------------------------------------------------------------------------------------
# move: moved, disordered by rough ground, falling back past friends (lines 32-37, 49-56)


def test_a_move_in_rough_ground_disorders_and_uses_the_action() -> None:
    d = doc(
        line("u", "red", 20, 20, 2, type="aggressive", arm="foot"),
        line("e", "blue", 20, 24, 2, facing=270, type="active", arm="foot"),
        terrain=[terrain("grove", "woods", rect(15, 15, 30, 22))],
    )
    assert RS.report_form(load(d), "move", ["u"]) == ()  # no dice
    out = settle(d, "move", ["u"], {})
    # line 50: aggressive in woods, 4" and disordered
    assert changed(out) == {("u", "moved", True), ("u", "acted", True), ("u", "disordered", True)}
    (disorder,) = [c for c in out.changes if c.field == "disordered"]
    assert (disorder.reason, disorder.cite and disorder.cite.line) == ("rough going (grove)", 50)
    after = applied(d, out)
    assert "u" not in [i["args"][0] for i in ask(after, "suggest", "move")["items"]]
    assert ask(after, "shoot", "u", "e")["allowed"] is False
    with pytest.raises(QuestionError, match="has moved this turn"):
        settle(after, "move", ["u"], {})


def test_a_unit_falling_back_through_friends_disorders_them() -> None:
    # u falls back (line 23); its rear edge at 19.5, the friend's front edge at 15.5: 4" apart,
    # under the 8" that would let it manoeuvre (line 34): straight back through (line 37)
    d = doc(
        line("u", "red", 10, 20, 2, type="active", arm="foot", status="falling-back"),
        line("f", "red", 10, 15, 2, type="active", arm="foot"),
    )
    (through,) = RS.report_form(load(d), "move", ["u"])
    assert (through.name, through.kind, through.default) == ("through_f", Kind.FLAG, True)
    out = settle(d, "move", ["u"], {"through_f": True})
    assert changed(out) == {
        ("u", "moved", True),
        ("u", "acted", True),
        ("f", "disordered", True),  # line 37
        ("u", "disordered", True),  # line 56: otherwise, all units are disordered
        ("u", "status", "steady"),  # its fall-back move made
    }
    # manoeuvred round it after all: only the move and the end of the fall back
    assert changed(settle(d, "move", ["u"], {"through_f": False})) == {
        ("u", "moved", True),
        ("u", "acted", True),
        ("u", "status", "steady"),
    }


def test_a_friend_8_inches_back_leaves_room_to_manoeuvre() -> None:
    # mounted, a 12" move (line 51): the friend 9" back is to its rear, but 8" or more away with
    # the table clear beside it (lines 34-35): nothing to report
    d = doc(
        line("u", "red", 10, 20, 2, type="active", arm="cavalry", status="falling-back"),
        line("f", "red", 10, 10, 2, type="active", arm="foot"),
    )
    (past,) = ask(d, "move", "u")["fall_back_past"]
    assert past["friend"] == "f" and past["may_manoeuvre"] is True
    assert RS.report_form(load(d), "move", ["u"]) == ()


def test_a_routed_unit_that_failed_to_rally_still_makes_its_rout_move() -> None:
    d = _unit(status="routed", disordered=True)
    after = applied(d, settle(d, "nerve", ["u"], {"passed": False}))
    assert ["u"] in [i["args"] for i in ask(after, "suggest", "move")["items"]]
    assert changed(settle(after, "move", ["u"], {})) == {("u", "moved", True)}


def test_indian_guns_have_no_move_to_settle() -> None:
    d = doc(line("guns", "red", 10, 10, type="active", arm="artillery", weapon="indian"))
    assert RS.report_form(load(d), "move", ["guns"]) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="Indian artillery is static"):
        RS.settle(load(d), "move", ["guns"], {})


def test_changes_are_checked_against_the_declared_fields() -> None:
    sc = load(_unit())
    with pytest.raises(QuestionError, match="accepted: 'steady'"):
        RS.check_change(sc, Change("u", "status", "fleeing", "?"))
    with pytest.raises(QuestionError, match="describes the troops"):
        RS.check_change(sc, Change("u", "type", "aggressive", "?"))


# --------------------------------------------------------------------------------------------
# The demo game (vision/demo_game/sepoys-and-soldiers.toml and .json)


@pytest.fixture(scope="module")
def demo() -> Scene:
    return load_scene(DEMO / "sepoys-and-soldiers.json")


def test_demo_game_loads_and_matches_its_layout(demo: Scene) -> None:
    from vision.game import load_game

    game = load_game(DEMO / "sepoys-and-soldiers.toml")
    assert (game.ruleset, game.unit) == (RS_ID, "in")
    assert (round(game.table_width / 25.4), round(game.table_depth / 25.4)) == (72, 48)
    assert 30 <= sum(len(u.bases) for u in game.units) <= 60
    assert len({u.side for u in game.units}) >= 2
    # every base and terrain tag at least 32 mm; bases 4 mm wider than the tag each way
    for u in game.units:
        for spec in u.bases:
            assert spec.spec.size >= 32.0, spec.id
            need = spec.spec.size * (math.sqrt(2) if spec.footprint.circle else 1) + 4
            assert min(spec.footprint.width, spec.footprint.depth) >= need, spec.id
    assert all(t.spec is None or t.spec.size >= 32.0 for t in game.terrain)
    # the layout repeats the game file's units and attributes
    toml = tomllib.loads((DEMO / "sepoys-and-soldiers.toml").read_text(encoding="utf-8"))
    layout = json.loads((DEMO / "sepoys-and-soldiers.json").read_text(encoding="utf-8"))
    for spec, placed in zip(toml["units"], layout["units"], strict=True):
        assert {k: v for k, v in spec.items() if k != "bases"} == {
            k: v for k, v in placed.items() if k != "bases"
        }
        assert [b["id"] for b in spec["bases"]] == [b["id"] for b in placed["bases"]]
    assert [t["id"] for t in toml["terrain"]] == [t["id"] for t in layout["terrain"]]
    # Every base clear of the others by 5 mm, but for the units set in base contact (commanders
    # adjacent to the units they order, line 17; the charge combat of the combat phase, line
    # 86): those touch, so the camera reads them as adjacent; and clear of the table's edges
    # by 30 mm.
    touching = {
        frozenset(p)
        for p in [
            ("hm-52nd", "wilson"),
            ("hm-61st", "nicholson"),
            ("hm-61st", "11th-bni"),
            ("54th-bni", "rissaldar"),
            ("20th-bni", "bakht-khan"),
        ]
    }
    bases = list(demo.bases())
    gaps = geo.distance_matrix(bases)
    np.fill_diagonal(gaps, np.inf)
    for i, a in enumerate(bases):
        for j, b in enumerate(bases):
            if frozenset((a.unit_id, b.unit_id)) in touching:
                assert gaps[i, j] <= 0.0 + 1e-6 or a.unit_id == b.unit_id or gaps[i, j] >= 5.0
            elif a.unit_id != b.unit_id:
                assert gaps[i, j] >= 5.0 - 1e-6, (a.id, b.id, gaps[i, j])
    pairs = {
        frozenset((a.unit_id, b.unit_id))
        for i, a in enumerate(bases)
        for j, b in enumerate(bases)
        if a.unit_id != b.unit_id and gaps[i, j] <= 1e-6
    }
    assert pairs == touching
    for b in bases:
        outline = geo.outline_polygon(b)
        assert outline.min() >= 30 and outline[:, 0].max() <= demo.table_width - 30
        assert outline[:, 1].max() <= demo.table_depth - 30


def test_demo_suggestions_cover_every_action_and_all_answer(demo: Scene) -> None:
    seen: set[str] = set()
    for phase in RS.phases:
        for item in RS.resolve(demo, "suggest", [phase]).data["items"]:
            assert "error" not in item["result"], item
            seen.add(item["kind"])
            direct = RS.resolve(demo, item["kind"], item["args"])
            assert direct.action == item["kind"]
            # and its dice can be reported: the form's first readings settle
            form = RS.report_form(demo, item["kind"], item["args"])
            reported = {
                r.name: list(r.default) if isinstance(r.default, tuple) else r.default for r in form
            }
            RS.settle(demo, item["kind"], item["args"], reported)
    assert seen == set(RS.actions()) - {"measure", "suggest"}
    assert seen == set(RS.outcomes)


def test_cites_of_the_new_state_quote_their_lines() -> None:
    sheet = (REPO / "rules" / "sheets" / sas.SHEET).read_text(encoding="utf-8").splitlines()
    for f in RS.unit_fields:
        assert (
            " ".join(f.cite.text.split()).lower()
            in " ".join(sheet[f.cite.line - 1].split()).lower()
        )
