"""colonial-adventure in play: state as data, the sequence of play, and what the dice the players
report do to the game (rules/sheets/002_9c2296e6290248df.txt).

Every expected value is worked out by hand from the sheet's lines (the arithmetic is in the
comments), never copied from the code's output. Scenes are in inches: 1" bases, the firer's front
edge at y = 10.5" facing the far edge. `play` applies an outcome's changes to a scene document the
way the server does (new values of unit fields, removed bases taken off), so that the next
question is asked of the changed table.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from rules import geometry as geo
from rules.engine import get_ruleset, load_scene, read_scene
from rules.errors import MissingAttribute, QuestionError, SceneError
from rules.scene import Scene
from rules.state import Change, Kind, Scope
from tests.builders import base, rect, scene_doc, terrain, unit
from vision.game import TagRole, game_tags, load_game

RS = get_ruleset("colonial-adventure")
SHEET = "002_9c2296e6290248df.txt"
ROOT = Path(__file__).resolve().parents[2]
DEMO_GAME = ROOT / "vision" / "demo_game" / "colonial-adventure.toml"
DEMO_LAYOUT = ROOT / "vision" / "demo_game" / "colonial-adventure.json"

FOOT = {"type": "infantry", "class": "c", "weapon": "rifle", "formation": "unformed"}
"""A unit described as the sheet needs it, and no state at all: every count and flag of play is
left out, so it starts the game (shock 0, loaded, no action spent...)."""


def _rank(prefix: str, n: int, y: float, facing: float, **extra: Any) -> list[dict[str, Any]]:
    """`n` single-figure 1" bases side by side from x = 10"."""
    return [base(f"{prefix}-{i + 1}", 10 + 1.1 * i, y, facing, 1, 1, **extra) for i in range(n)]


def volley(
    shooter: dict[str, Any] | None = None,
    target: dict[str, Any] | None = None,
    *,
    figures: int = 4,
    target_bases: list[dict[str, Any]] | None = None,
    gap: float = 5,
    pieces: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Unit `s` (british) of `figures` 1" bases, unit `t` (zulu) of three `gap` inches ahead."""
    y_t = 10.5 + gap + 0.5
    return scene_doc(
        "colonial-adventure",
        [
            unit("s", "british", _rank("s", figures, 10, 90), **{**FOOT, **(shooter or {})}),
            unit(
                "t",
                "zulu",
                target_bases or _rank("t", 3, y_t, 270),
                **{**FOOT, "weapon": "musket", **(target or {})},
            ),
        ],
        unit="in",
        width=72,
        depth=48,
        terrain=pieces or [],
    )


def fight(
    attacker: dict[str, Any] | None = None,
    defender: dict[str, Any] | None = None,
    *,
    a_bases: list[dict[str, Any]] | None = None,
    d_bases: list[dict[str, Any]] | None = None,
    a_figures: int = 3,
    d_figures: int = 3,
    apart: float = 0.0,
) -> dict[str, Any]:
    """Attacker `a` facing up, defender `d` facing it, edges `apart` inches (0: in contact)."""
    formed = {**FOOT, "formation": "formed"}
    return scene_doc(
        "colonial-adventure",
        [
            unit(
                "a",
                "british",
                a_bases or _rank("a", a_figures, 10, 90),
                **{**formed, **(attacker or {})},
            ),
            unit(
                "d",
                "zulu",
                d_bases or _rank("d", d_figures, 11 + apart, 270),
                **{**formed, **(defender or {})},
            ),
        ],
        unit="in",
        width=72,
        depth=48,
    )


def scene(doc: dict[str, Any]) -> Scene:
    return read_scene(doc, "<test>")


def play(doc: dict[str, Any], changes: Sequence[Change]) -> dict[str, Any]:
    """The document after the changes: unit fields set, removed bases (and emptied units) off."""
    out = copy.deepcopy(doc)
    for change in changes:
        if change.scope is Scope.BASE:
            assert change.field == "removed" and change.value is True
            for u in out["units"]:
                u["bases"] = [b for b in u["bases"] if b["id"] != change.target]
        elif change.scope is Scope.UNIT:
            next(u for u in out["units"] if u["id"] == change.target)[change.field] = change.value
        else:
            out[change.field] = change.value
    out["units"] = [u for u in out["units"] if u["bases"]]
    return out


def settle(
    doc: dict[str, Any], action: str, args: Sequence[str], reported: dict[str, Any]
) -> tuple[list[tuple[str, str, Any]], dict[str, Any]]:
    """The changes as (target, field, value), and the document after them."""
    outcome = RS.settle(scene(doc), action, args, reported)
    return [(c.target, c.field, c.value) for c in outcome.changes], play(doc, outcome.changes)


def ask(doc: dict[str, Any], action: str, *args: str) -> dict[str, Any]:
    return RS.resolve(scene(doc), action, list(args)).as_json()


def items(doc: dict[str, Any], phase: str) -> set[tuple[str, tuple[str, ...]]]:
    data = ask(doc, "suggest", phase)
    return {(i["kind"], tuple(i["args"])) for i in data["items"]}


# --------------------------------------------------------------------------------------------
# State as data: the declared fields, start-of-game defaults, missing descriptions


def test_the_declared_fields() -> None:
    fields = {f.name: f for f in RS.unit_fields}
    assert set(fields) == {
        "type",
        "class",
        "weapon",
        "fighters",
        "formation",
        "mounted",
        "shock",
        "casualties",
        "loaded",
        "jammed",
        "actions_spent",
        "commander_actions",
        "attack_actions",
        "supporting_units",
    }
    # Descriptions of the troops do not change in play; only `fighters` has a value (false)
    # that a file may leave out.
    assert {n for n, f in fields.items() if not f.in_play} == {
        "type",
        "class",
        "weapon",
        "fighters",
    }
    assert fields["class"].choices == ("a", "b", "c", "d")  # lines 72-75
    # Start-of-game state: counts at 0, a weapon loaded, a gun not jammed.
    assert {n: f.default for n, f in fields.items() if f.in_play and f.default is not None} == {
        "shock": 0,
        "casualties": 0,
        "loaded": True,
        "jammed": False,
        "actions_spent": 0,
        "commander_actions": 0,
        "attack_actions": 0,
        "supporting_units": 0,
    }
    # A unit is set up in a formation, mounted or not: no default.
    assert fields["formation"].default is None and fields["mounted"].default is None
    assert fields["shock"].kind is Kind.COUNT and fields["loaded"].kind is Kind.FLAG
    assert RS.terrain_keys == {"obstacle", "barred"}


def test_per_turn_fields_are_marked() -> None:
    # Line 16: two actions each turn, for units and for commanders; attack orders (line 33)
    # count in this turn's close combat (line 128).
    assert {f.name for f in RS.unit_fields if f.per_turn} == {
        "actions_spent",
        "commander_actions",
        "attack_actions",
    }
    for f in RS.unit_fields:
        if f.per_turn:
            assert f.default == 0 and f.cite.line in (16, 128)


def test_a_scene_without_shock_shoots_and_says_what_it_assumed() -> None:
    # Before this work, a scene leaving out `shock` was refused for shoot. Now 4 rifles, class
    # C (line 74: no adjustment), no shock (line 81: nothing off): 4 dice, 5-6 at 5" (line 87).
    data = ask(volley(), "shoot", "s", "t")
    assert (data["allowed"], data["dice"], data["need"]) == (True, 4, 5)
    assumed = {(a["unit"], a["field"]): a["value"] for a in data["defaults"]}
    assert assumed[("s", "shock")] == 0 and assumed[("t", "shock")] == 0
    assert assumed[("s", "loaded")] is True
    assert assumed[("s", "shock")] == 0
    sources = {a["field"]: a["source"] for a in data["defaults"]}
    assert sources["shock"] == f"{SHEET}:105"
    answer = RS.resolve(scene(volley()), "shoot", ["s", "t"])
    assert answer.lines[-1].startswith("assumed at their start-of-game values (not given):")
    assert "s shock 0" in answer.lines[-1]


def test_given_state_is_not_noted_as_assumed() -> None:
    data = ask(volley({"shock": 3}), "shoot", "s", "t")
    assert ("s", "shock") not in {(a["unit"], a["field"]) for a in data["defaults"]}
    assert data["dice"] == 3  # line 81: 3 shock points, one whole two: -1 die


def test_melee_and_morale_without_state() -> None:
    # Line 124: one die a man; no attack actions, supporting units or shock assumed.
    data = ask(fight(), "melee", "a", "d")
    assert [s["dice"] for s in data["sides"]] == [3, 3]
    assert {a["field"] for a in data["defaults"]} >= {
        "shock",
        "attack_actions",
        "supporting_units",
        "fighters",
    }
    assert ask(fight(), "morale", "d")["status"] == "steady"  # 0 shock, 3 men (line 154)


def test_missing_descriptions_are_named_together() -> None:
    doc = volley()
    for key in ("type", "class", "weapon", "formation"):
        del doc["units"][0][key]
    del doc["units"][1]["type"]
    with pytest.raises(QuestionError) as caught:
        RS.resolve(scene(doc), "shoot", ["s", "t"])
    message = str(caught.value)
    assert not isinstance(caught.value, MissingAttribute)
    assert "5 attributes are missing" in message
    for who, key in [("s", "type"), ("s", "class"), ("s", "weapon"), ("s", "formation")]:
        assert f"'{who}' has no '{key}'" in message
    assert "'t' has no 'type'" in message


def test_mounted_infantry_must_say_whether_it_is_mounted() -> None:
    doc = volley(target={"type": "mounted-infantry", "weapon": "carbine"})
    with pytest.raises(MissingAttribute, match="'t' has no 'mounted'; give true or false"):
        RS.resolve(scene(doc), "shoot", ["s", "t"])


def test_a_typo_of_a_field_is_refused_with_did_you_mean() -> None:
    with pytest.raises(SceneError, match="did you mean 'shock'"):
        scene(volley({"shok": 2}))
    with pytest.raises(SceneError, match="did you mean 'actions_spent'"):
        scene(volley({"action_spent": 1}))


# --------------------------------------------------------------------------------------------
# Sequence of play (lines 5-12)


def test_phase_steps_follow_the_turn_sequence() -> None:
    assert [p.name for p in RS.phase_steps] == list(RS.phases)
    assert [p.cite.line for p in RS.phase_steps] == [7, 8, 9, 10, 11, 12]
    assert [p.acting for p in RS.phase_steps] == [
        "all",
        "all",
        "initiative-order",
        "initiative-order",
        "all",
        "all",
    ]
    assert "initiative" in RS.sides_rule


def test_side_groups_put_the_initiative_winner_first() -> None:
    table = scene(volley())  # british first on the table
    assert RS.side_groups(table) == {
        "all": ("british", "zulu"),
        "initiative-order": ("british", "zulu"),
    }
    assert RS.side_groups(table, "zulu")["initiative-order"] == ("zulu", "british")
    assert RS.side_groups(table, "zulu")["all"] == ("british", "zulu")
    labels = {p.acting for p in RS.phase_steps}
    assert labels <= set(RS.side_groups(table, "british"))


# --------------------------------------------------------------------------------------------
# Shooting outcomes (lines 98-120)


def test_a_volley_changes_shock_men_and_the_shooter() -> None:
    doc = volley()
    form = RS.report_form(scene(doc), "shoot", ["s", "t"])
    assert [r.name for r in form] == ["hits", "kills", "shock", "removed"]
    assert [r.maximum for r in form[:3]] == [4, 4, 4]  # 4 dice thrown
    assert form[3].kind is Kind.BASES and form[3].bases == ("t-1", "t-2", "t-3")
    # 3 hits: one 5-6 (a kill, line 106), one 3-4 (a shock point, line 105), one 1-2.
    changes, doc = settle(
        doc, "shoot", ["s", "t"], {"hits": 3, "kills": 1, "shock": 1, "removed": ["t-2"]}
    )
    assert changes == [
        ("t", "shock", 1),
        ("t-2", "removed", True),
        ("s", "loaded", False),  # a rifle that fired is reloaded (line 27)
        ("s", "actions_spent", 1),  # fire 1 (line 26)
    ]
    # The changed table: the rifles must reload before they fire again.
    data = ask(doc, "shoot", "s", "t")
    assert data["allowed"] is False
    assert f"s is not loaded: reload first (reload rifle, 1 action, {SHEET}:27)" in data["reasons"]
    assert ("shoot", ("s", "t")) not in items(doc, "action-2")
    # 1 shock point on 2 men remaining: it stands (line 154).
    morale = ask(doc, "morale", "t")
    assert (morale["shock"], morale["men"], morale["status"]) == (1, 2, "steady")
    # One action left (line 16): reload rifle 1 is open, cross a high obstacle 2 is not.
    actions = ask(doc, "actions", "s")
    assert actions["actions_left"] == 1
    assert actions["open_now"] == [
        "move",
        "cross a low obstacle",
        "enter an unbarred building",
        "reload rifle",
    ]
    changes, doc = settle(doc, "actions", ["s"], {"action": "reload rifle"})
    assert changes == [("s", "actions_spent", 2), ("s", "loaded", True)]
    # Loaded, but both actions of the turn are spent: no fire, no move this turn.
    data = ask(doc, "shoot", "s", "t")
    assert data["allowed"] is False
    assert any("has spent its 2 actions this turn" in r for r in data["reasons"])
    assert not {i for i in items(doc, "action-1") if "s" in i[1][:1]}


def test_more_effects_than_hits_are_refused() -> None:
    with pytest.raises(QuestionError, match="more than the 1 hits"):
        RS.settle(
            scene(volley()), "shoot", ["s", "t"], {"hits": 1, "kills": 1, "shock": 1, "removed": []}
        )


def test_bases_taken_off_must_hold_no_more_men_than_were_lost() -> None:
    with pytest.raises(QuestionError, match="more than the 0 men it has lost"):
        RS.settle(
            scene(volley()),
            "shoot",
            ["s", "t"],
            {"hits": 1, "kills": 0, "shock": 0, "removed": ["t-1"]},
        )


def test_a_unit_whose_every_man_dies_leaves_the_table() -> None:
    changes, doc = settle(
        volley(), "shoot", ["s", "t"], {"hits": 3, "kills": 3, "shock": 0, "removed": []}
    )
    assert [c for c in changes if c[1] == "removed"] == [
        ("t-1", "removed", True),
        ("t-2", "removed", True),
        ("t-3", "removed", True),
    ]
    assert [u["id"] for u in doc["units"]] == ["s"]


def test_dead_on_a_base_of_several_figures_are_casualties() -> None:
    # Three figures on one base: one killed, the base stays, and the dead man counts as a
    # casualty: men remaining 3 - 1 = 2.
    target = [base("t-1", 10, 16, 270, 2, 1, figures=3)]
    doc = volley(target_bases=target)
    changes, doc = settle(
        doc, "shoot", ["s", "t"], {"hits": 1, "kills": 1, "shock": 0, "removed": []}
    )
    assert changes[0] == ("t", "casualties", 1)
    # Line 65: 1 die per miniature firing: 2 men left fire 2 dice (class C, no adjustment).
    assert ask(doc, "shoot", "t", "s")["dice"] == 2
    # Line 154: 3 shock points on 2 men remaining: retire 1 point over x 3" (class C, line 158).
    doc["units"][1]["shock"] = 3
    morale = ask(doc, "morale", "t")
    assert (morale["men"], morale["status"], morale["retire"]["value"]) == (2, "retire", 3)
    # Two more killed (the rifles reloaded): 1 + 2 = 3 dead of 3 figures, the base leaves.
    doc["units"][0].update(loaded=True, actions_spent=0)
    changes, _ = settle(
        doc, "shoot", ["s", "t"], {"hits": 2, "kills": 2, "shock": 0, "removed": []}
    )
    assert ("t-1", "removed", True) in changes


def test_gunners_dead_raise_the_reload_cost() -> None:
    gun = [base("g-1", 10, 9.5, 90, 2, 3, figures=3)]
    doc = volley(
        {"type": "artillery", "weapon": "light-gun", "formation": "unlimbered", "casualties": 2}
    )
    doc["units"][0]["bases"] = gun
    # Line 29: reload artillery piece 2; line 114: +1 per two gunners dead: 3.
    costs = {c["action"]: c["cost"] for c in ask(doc, "actions", "s")["costs"]}
    assert costs["reload artillery piece"] == 3


def test_hits_on_mounted_men_ask_for_the_man_not_the_horse() -> None:
    doc = volley(target={"type": "cavalry", "weapon": "carbine"})
    kills = RS.report_form(scene(doc), "shoot", ["s", "t"])[1]
    assert "the man took (4-6" in kills.label  # line 110


def test_a_repeating_gun_jams_and_is_fixed() -> None:
    gun = {"type": "artillery", "weapon": "repeating-gun", "formation": "unlimbered"}
    doc = volley(gun)
    doc["units"][0]["bases"] = [base("g-1", 10, 9.5, 90, 2, 3, figures=3)]
    form = RS.report_form(scene(doc), "shoot", ["s", "t"])
    assert [r.name for r in form] == ["hits", "kills", "shock", "removed", "jammed"]
    assert form[0].maximum == 14  # line 68: 14W6
    changes, doc = settle(
        doc,
        "shoot",
        ["s", "t"],
        {"hits": 5, "kills": 0, "shock": 0, "removed": [], "jammed": True},
    )
    # Guns fire in the Artillery Phase (line 7) and spend no action of the two; the gun is
    # unloaded (line 30) and jammed (line 98).
    assert changes == [("s", "loaded", False), ("s", "jammed", True)]
    data = ask(doc, "shoot", "s", "t")
    assert data["allowed"] is False
    assert (
        f"s is jammed: fix it first (fix jammed machine gun, 2 actions, {SHEET}:31)"
        in (data["reasons"])
    )
    assert "fix jammed machine gun" in ask(doc, "actions", "s")["open_now"]
    changes, doc = settle(doc, "actions", ["s"], {"action": "fix jammed machine gun"})
    assert changes == [("s", "actions_spent", 2), ("s", "jammed", False)]
    # Both actions spent fixing it: reload machine gun (1) must wait for the next turn.
    assert ask(doc, "actions", "s")["open_now"] == []
    assert RS.report_form(scene(doc), "actions", ["s"]) == ()  # refused: nothing to roll
    with pytest.raises(QuestionError, match="no action open now"):
        RS.settle(scene(doc), "actions", ["s"], {})


def test_a_shot_that_is_not_allowed_has_no_form() -> None:
    assert (
        RS.report_form(scene(volley(gap=30)), "shoot", ["s", "t"]) == ()
    )  # refused: nothing to roll
    with pytest.raises(QuestionError, match="s does not shoot at t: a rifle cannot reach"):
        RS.settle(scene(volley(gap=30)), "shoot", ["s", "t"], {})


# --------------------------------------------------------------------------------------------
# Close combat outcomes (lines 122-150)


def test_close_combat_defeated_by_two() -> None:
    doc = fight()
    form = RS.report_form(scene(doc), "melee", ["a", "d"])
    assert [r.name for r in form] == [
        "attacker_kills",
        "attacker_shock",
        "defender_kills",
        "defender_shock",
        "attacker_removed",
        "defender_removed",
    ]
    assert [r.maximum for r in form[:4]] == [3, 3, 3, 3]  # 3 men a side, 1 die each (line 124)
    assert form[0].label == "6s rolled by a: men of d killed"  # line 138
    assert form[1].label == "5s rolled by a: shock points on d"
    reported = {
        "attacker_kills": 2,
        "attacker_shock": 1,
        "defender_kills": 0,
        "defender_shock": 0,
        "attacker_removed": [],
        "defender_removed": ["d-1", "d-2"],
    }
    outcome = RS.settle(scene(doc), "melee", ["a", "d"], reported)
    # d lost 2 dead, a none: d is defeated by 2, +2 shock points (line 148) on top of a's five.
    assert [(c.target, c.field, c.value) for c in outcome.changes] == [
        ("d", "shock", 3),
        ("d-1", "removed", True),
        ("d-2", "removed", True),
    ]
    assert 'defeated by 2: thrown back 6" facing the enemy, +2 shock' in outcome.changes[0].reason
    assert outcome.changes[0].cite is not None and outcome.changes[0].cite.line == 148
    doc = play(doc, outcome.changes)
    # 3 shock points on 1 man: at least twice as many, broken (line 161) and removed.
    assert ask(doc, "morale", "d")["status"] == "broken"
    changes, doc = settle(doc, "morale", ["d"], {})
    assert changes == [("d-3", "removed", True)]
    assert [u["id"] for u in doc["units"]] == ["a"]


def test_defeated_by_four_doubles_the_shock_points_taken() -> None:
    doc = fight(a_figures=6, d_figures=5)
    reported = {
        "attacker_kills": 4,
        "attacker_shock": 2,
        "defender_kills": 0,
        "defender_shock": 1,
        "attacker_removed": [],
        "defender_removed": ["d-1", "d-2", "d-3", "d-4"],
    }
    changes, _ = settle(doc, "melee", ["a", "d"], reported)
    # a takes d's one 5; d takes a's two 5s, doubled by "defeated by 4 or more" (line 150).
    assert changes[:2] == [("a", "shock", 1), ("d", "shock", 4)]


def test_defeated_by_one_and_a_draw_add_no_shock() -> None:
    doc = fight()
    by_one = {
        "attacker_kills": 0,
        "attacker_shock": 0,
        "defender_kills": 1,
        "defender_shock": 1,
        "attacker_removed": ["a-1"],
        "defender_removed": [],
    }
    changes, _ = settle(doc, "melee", ["a", "d"], by_one)
    assert changes == [("a", "shock", 1), ("a-1", "removed", True)]  # line 147: no shock
    draw = {**by_one, "attacker_kills": 1, "defender_shock": 0, "defender_removed": ["d-3"]}
    changes, _ = settle(doc, "melee", ["a", "d"], draw)
    assert changes == [("d-3", "removed", True), ("a-1", "removed", True)]  # line 146


def test_close_combat_reports_cannot_exceed_the_dice() -> None:
    reported = {
        "attacker_kills": 2,
        "attacker_shock": 2,
        "defender_kills": 0,
        "defender_shock": 0,
        "attacker_removed": [],
        "defender_removed": [],
    }
    with pytest.raises(QuestionError, match="rolled 3 dice"):
        RS.settle(scene(fight()), "melee", ["a", "d"], reported)


def test_fighters_kill_on_five_and_shock_on_four() -> None:
    form = RS.report_form(scene(fight(defender={"fighters": True})), "melee", ["a", "d"])
    assert form[2].label == "5s and 6s rolled by d: men of a killed"  # line 136
    assert form[3].label == "4s rolled by d: shock points on a"


def test_units_apart_have_no_close_combat_form() -> None:
    assert (
        RS.report_form(scene(fight(apart=2)), "melee", ["a", "d"]) == ()
    )  # refused: nothing to roll
    with pytest.raises(QuestionError, match="not in base contact"):
        RS.settle(scene(fight(apart=2)), "melee", ["a", "d"], {})


# --------------------------------------------------------------------------------------------
# Actions outcomes (lines 16-33)


def _with_commander(**attrs: Any) -> dict[str, Any]:
    bases = [*_rank("a", 3, 10, 90), base("a-c", 13.3, 10, 90, 1, 1, role="commander")]
    return fight(attrs, a_bases=bases)


def test_an_attack_order_adds_a_die_in_close_combat() -> None:
    doc = _with_commander()
    # 4 men (the commander fights too, line 124) + 3 for the commander (line 127) = 7.
    assert ask(doc, "melee", "a", "d")["sides"][0]["dice"] == 7
    open_now = ask(doc, "actions", "a")["open_now"]
    assert "attack order (commander)" in open_now
    assert "-1 shock point (commander)" not in open_now  # no shock point to remove
    changes, doc = settle(doc, "actions", ["a"], {"action": "attack order (commander)"})
    # The commander's own action (line 16), not one of the unit's.
    assert changes == [("a", "commander_actions", 1), ("a", "attack_actions", 1)]
    assert ask(doc, "melee", "a", "d")["sides"][0]["dice"] == 8  # + 1D6 (line 128)
    assert ask(doc, "actions", "a")["actions_left"] == 2


def test_a_commander_removes_a_shock_point_with_his_own_actions() -> None:
    doc = _with_commander(shock=3)
    changes, doc = settle(doc, "actions", ["a"], {"action": "-1 shock point (commander)"})
    assert changes == [("a", "commander_actions", 1), ("a", "shock", 2)]  # line 32
    changes, doc = settle(doc, "actions", ["a"], {"action": "-1 shock point (commander)"})
    assert changes == [("a", "commander_actions", 2), ("a", "shock", 1)]
    # His two actions spent: no third (line 16); the unit's own are untouched.
    open_now = ask(doc, "actions", "a")["open_now"]
    assert "-1 shock point (commander)" not in open_now and "move" in open_now


def test_an_action_the_unit_cannot_pay_for_is_refused() -> None:
    doc = volley({"weapon": "musket", "loaded": False, "actions_spent": 1})
    assert "reload musket" not in ask(doc, "actions", "s")["open_now"]  # 2 actions (line 28)
    with pytest.raises(QuestionError, match="action is 'reload musket'"):
        RS.settle(scene(doc), "actions", ["s"], {"action": "reload musket"})


def test_mounted_infantry_dismount_and_move_on_foot() -> None:
    doc = volley({"type": "mounted-infantry", "weapon": "carbine", "mounted": True})
    assert ask(doc, "move", "s")["allowance"]["value"] == pytest.approx(8)  # line 40
    changes, doc = settle(doc, "actions", ["s"], {"action": "dismount / mount"})
    assert changes == [("s", "actions_spent", 1), ("s", "mounted", False)]  # line 24
    assert ask(doc, "move", "s")["allowance"]["value"] == pytest.approx(6)  # as infantry, 39


def test_a_limbered_gun_does_not_fire_and_moves_faster() -> None:
    doc = volley({"type": "artillery", "weapon": "light-gun", "formation": "unlimbered"})
    doc["units"][0]["bases"] = [base("g-1", 10, 9.5, 90, 2, 3, figures=3)]
    assert ask(doc, "shoot", "s", "t")["allowed"] is True
    changes, doc = settle(doc, "actions", ["s"], {"action": "limber / unlimber"})
    assert changes == [("s", "actions_spent", 1), ("s", "formation", "limbered")]  # line 25
    data = ask(doc, "shoot", "s", "t")
    assert data["allowed"] is False and any("is limbered" in r for r in data["reasons"])
    assert ask(doc, "move", "s")["allowance"]["value"] == pytest.approx(8)  # line 42


# --------------------------------------------------------------------------------------------
# Move and initiative outcomes


def test_a_move_spends_its_actions() -> None:
    hedge = terrain("h", "hedge", rect(8, 14, 16, 14.3))
    doc = volley(pieces=[hedge])
    assert RS.report_form(scene(doc), "move", ["s", "h"]) == ()  # no dice to report
    # Move 1 (line 20) + cross a low obstacle 1 (line 21).
    changes, crossed = settle(doc, "move", ["s", "h"], {})
    assert changes == [("s", "actions_spent", 2)]
    assert not {i for i in items(crossed, "action-1") if i[1][:1] == ("s",)}
    changes, doc = settle(doc, "move", ["s"], {})
    assert changes == [("s", "actions_spent", 1)]
    # One action left: moving across the hedge again (2) is too much (line 16).
    data = ask(doc, "move", "s", "h")
    assert (data["allowed"], data["actions_spent_before"]) == (False, 1)
    with pytest.raises(QuestionError, match="3 actions, more than 2"):
        RS.settle(scene(doc), "move", ["s", "h"], {})


def _sides_with_leaders() -> dict[str, Any]:
    doc = volley()
    doc["units"][0]["bases"][0]["role"] = "commander"  # british: 2 leader figures
    doc["units"][0]["bases"][1]["role"] = "leader"
    doc["units"][1]["bases"][0]["role"] = "leader"  # zulu: 1
    return doc


def test_initiative_sets_the_side_that_acts_first() -> None:
    doc = _sides_with_leaders()
    form = RS.report_form(scene(doc), "initiative", [])
    assert [(r.name, r.maximum) for r in form] == [("roll_british", 6), ("roll_zulu", 6)]
    assert "+1 for more leaders" in form[0].label and "+1" not in form[1].label  # line 8
    # british 4 + 1 = 5 against zulu 4.
    outcome = RS.settle(scene(doc), "initiative", [], {"roll_british": 4, "roll_zulu": 4})
    (change,) = outcome.changes
    assert (change.target, change.field, change.value, change.scope) == (
        "game",
        "initiative",
        "british",
        Scope.GAME,
    )
    assert outcome.lines[0].startswith("game initiative unset -> british")
    # zulu 6 against british 1 + 1 = 2.
    (change,) = RS.settle(scene(doc), "initiative", [], {"roll_british": 1, "roll_zulu": 6}).changes
    assert change.value == "zulu"
    assert RS.side_groups(scene(doc), change.value)["initiative-order"] == ("zulu", "british")


def test_an_initiative_tie_or_a_bad_face_is_rolled_again() -> None:
    doc = _sides_with_leaders()
    with pytest.raises(QuestionError, match="a tie"):  # 3 + 1 against 4
        RS.settle(scene(doc), "initiative", [], {"roll_british": 3, "roll_zulu": 4})
    with pytest.raises(QuestionError, match="a D6 shows 1 to 6"):
        RS.settle(scene(doc), "initiative", [], {"roll_british": 0, "roll_zulu": 4})


def test_every_action_but_measure_and_suggest_has_an_outcome() -> None:
    assert set(RS.outcomes) == set(RS.actions()) - {"measure", "suggest"}


# --------------------------------------------------------------------------------------------
# The demo game (vision/demo_game/colonial-adventure.toml and .json)


def test_the_demo_game_and_its_layout_agree() -> None:
    game = load_game(DEMO_GAME)
    layout = load_scene(DEMO_LAYOUT)
    assert game.ruleset == layout.ruleset == "colonial-adventure"
    assert (game.unit, layout.unit) == ("in", "in")
    assert (game.table_width, game.table_depth) == (72 * 25.4, 48 * 25.4)
    assert (layout.table_width, layout.table_depth) == (72 * 25.4, 48 * 25.4)
    assert 30 <= sum(len(u.bases) for u in layout.units) <= 60
    assert len({u.side for u in layout.units}) >= 2
    for spec in game.units:
        got = layout.unit_of(spec.id)
        assert {k: got.get(k) for k in spec.attrs} == dict(spec.attrs), spec.id
        assert [(b.id, b.footprint, b.figures, b.role) for b in spec.bases] == [
            (b.id, b.footprint, b.figures, b.role) for b in got.bases
        ]
    assert [t.id for t in game.terrain] == [t.id for t in layout.terrain]


def test_the_demo_tags_are_big_enough_and_unique() -> None:
    game = load_game(DEMO_GAME)
    tags = game_tags(game)
    assert len({(t.family, t.id) for t in tags}) == len(tags)
    for tag in tags:
        if tag.role is not TagRole.CORNER:
            assert tag.size >= 32, tag.owner  # 32 mm black border for the demo camera
    for spec in game.units:
        for b in spec.bases:  # 4 mm of base beyond the tag on every side
            assert b.footprint.width >= b.spec.size + 8 and b.footprint.depth >= b.spec.size + 8


def test_the_demo_bases_stand_clear() -> None:
    game = load_game(DEMO_GAME)
    layout = load_scene(DEMO_LAYOUT)
    bases = list(layout.bases())
    cards = [(c.x, c.y, game.calibration.spec.size * 1.25) for c in game.calibration.corners]
    for b in bases:
        outline = geo.outline_polygon(b)
        assert outline.min() >= 30, b.id  # 3 cm inside the table
        assert outline[:, 0].max() <= layout.table_width - 30, b.id
        assert outline[:, 1].max() <= layout.table_depth - 30, b.id
        for x, y, card in cards:
            assert geo.point_distance(b, (x, y)) > card / math.sqrt(2) + 5, b.id
    gaps = geo.distance_matrix(bases, bases)
    for i, a in enumerate(bases):
        for j in range(i + 1, len(bases)):
            if gaps[i, j] >= 5:
                continue
            # Only the close combat in the layout touches: bases of enemies, edge to edge.
            b = bases[j]
            assert layout.unit_of(a.id).side != layout.unit_of(b.id).side, (a.id, b.id)
            assert gaps[i, j] == pytest.approx(0, abs=1e-6), (a.id, b.id)


def test_the_demo_suggestions_cover_every_action_and_all_answer() -> None:
    layout = load_scene(DEMO_LAYOUT)
    kinds = set()
    for phase in RS.phases:
        for item in RS.resolve(layout, "suggest", [phase]).data["items"]:
            kinds.add(item["kind"])
            assert "error" not in item["result"], item
            answer = RS.resolve(layout, item["kind"], item["args"])
            assert answer.data["action"] == item["kind"]
            RS.report_form(layout, item["kind"], item["args"])  # the dice can be reported
    assert kinds == set(RS.actions()) - {"measure", "suggest"}
