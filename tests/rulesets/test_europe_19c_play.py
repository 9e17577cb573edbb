"""europe-19c in play: the state it declares, its sequence of play, what the players' dice change
(outcomes), and the demo game (vision/demo_game/europe-19c.toml and .json).

Every expected value is worked out by hand from the sheet (rules/sheets/004_8318ee244ed3ffb0.txt),
the line beside it. Scenes are in cm; bases are 4 x 2 cm, a unit's bases side by side 4.5 cm
apart. A firer's bases stand at y = 10 facing +y (front edge y = 11); a target's at y = 12 + gap
facing -y (front edge y = 11 + gap), so the two are `gap` cm apart edge to edge.
"""

from __future__ import annotations

import copy
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rules import geometry as geo
from rules.engine import get_ruleset, load_scene, read_scene
from rules.errors import MissingAttribute, QuestionError, SceneError
from rules.scene import Scene
from rules.state import Kind, Outcome, Scope
from tests.builders import base, rect, scene_doc, unit

RS = get_ruleset("europe-19c")
ROOT = Path(__file__).resolve().parents[2]
DEMO_TOML = ROOT / "vision" / "demo_game" / "europe-19c.toml"
DEMO_JSON = ROOT / "vision" / "demo_game" / "europe-19c.json"

LINE: dict[str, Any] = {"type": "infantry", "formation": "line", "order": "close"}
CLOSE_COLUMN: dict[str, Any] = {"type": "infantry", "formation": "column", "order": "close"}


def bases(prefix: str, x: float, y: float, facing: float, n: int = 1) -> list[dict[str, Any]]:
    return [base(f"{prefix}-{i + 1}", x + 4.5 * i, y, facing, 4, 2) for i in range(n)]


def red(n: int = 1, **attrs: Any) -> dict[str, Any]:
    return unit("red", "red", bases("red", 50, 10, 90, n), **attrs)


def blue(gap: float = 5, n: int = 1, **attrs: Any) -> dict[str, Any]:
    return unit("blue", "blue", bases("blue", 50, 12 + gap, 270, n), **attrs)


def doc(*units: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return scene_doc("europe-19c", list(units), **extra)


def load(document: dict[str, Any]) -> Scene:
    return read_scene(copy.deepcopy(document), "<test scene>")


def applied(document: dict[str, Any], outcome: Outcome) -> dict[str, Any]:
    """The scene document after the outcome's changes, as the server would keep it: unit
    fields set, removed bases taken off the table (a unit with none left leaves it)."""
    out = copy.deepcopy(document)
    for change in outcome.changes:
        if change.scope is Scope.BASE:
            assert change.field == "removed" and change.value is True
            for u in out["units"]:
                u["bases"] = [b for b in u["bases"] if b["id"] != change.target]
        else:
            assert change.scope is Scope.UNIT
            (found,) = [u for u in out["units"] if u["id"] == change.target]
            found[change.field] = change.value
    out["units"] = [u for u in out["units"] if u["bases"]]
    return out


def changes(outcome: Outcome) -> list[tuple[str, str, Any]]:
    return [(c.target, c.field, c.value) for c in outcome.changes]


def form(scene: Scene, action: str, *args: str) -> dict[str, Any]:
    return {r.name: r for r in RS.report_form(scene, action, list(args))}


# --------------------------------------------------------------------------------------------
# The fields the sheet reads


def test_the_declared_fields() -> None:
    fields = {f.name: f for f in RS.unit_fields}
    # descriptions: no default, never changed by the dice
    for name in ("type", "order", "weapon", "quality", "rating"):
        assert fields[name].kind is Kind.CHOICE
        assert fields[name].default is None and not fields[name].in_play
    # the formation a unit is set up in: state, but no default (line 15, 19)
    assert fields["formation"].in_play and fields["formation"].default is None
    assert set(fields["formation"].choices) == {"line", "column", "limbered", "unlimbered"}
    state = {
        name: (f.kind, f.default, f.per_turn)
        for name, f in fields.items()
        if f.in_play and f.default is not None
    }
    assert state == {
        "bases_removed": (Kind.COUNT, 0, False),  # line 130, kept until the tests are taken
        "fired_on": (Kind.FLAG, False, True),  # line 131
        "lost_melee": (Kind.FLAG, False, True),  # line 132
        "charged": (Kind.FLAG, False, True),
        "moved": (Kind.FLAG, False, True),
        "pivoted": (Kind.FLAG, False, True),  # line 78
        "fired": (Kind.FLAG, False, True),
        "command_score": (Kind.COUNT, 0, True),
    }
    assert RS.scene_keys == {"game_size"}


def test_left_out_state_means_0_or_false_and_the_answer_says_so() -> None:
    bare = load(doc(red(quality="average", **LINE)))
    given = load(
        doc(red(quality="average", bases_removed=0, fired_on=False, lost_melee=False, **LINE))
    )
    for scene in (bare, given):
        out = RS.resolve(scene, "morale", ["red"])
        assert out.data["tests"] == 0  # no reason to test (lines 128-132)
    assumed = {a["field"] for a in RS.resolve(bare, "morale", ["red"]).data["defaults"]}
    assert {"bases_removed", "fired_on", "lost_melee"} <= assumed
    assumed = {a["field"] for a in RS.resolve(given, "morale", ["red"]).data["defaults"]}
    assert not {"bases_removed", "fired_on", "lost_melee"} & assumed
    line = RS.resolve(bare, "morale", ["red"]).lines[-1]
    assert "start-of-game values" in line and "red bases_removed 0" in line


def test_a_shot_on_a_scene_without_state_answers_as_one_with_it() -> None:
    # Inf line (line 83) at close order infantry in line (Normal, line 87): 4+.
    units = (red(weapon="rifled-musket", **LINE), blue(gap=10, **LINE))
    bare = RS.resolve(load(doc(*units)), "shoot", ["red", "blue"]).data
    zeros = {"fired": False, "pivoted": False, "charged": False, "moved": False}
    full = RS.resolve(
        load(doc({**units[0], **zeros}, {**units[1], **zeros})), "shoot", ["red", "blue"]
    ).data
    assert bare["rolls"][0]["need"] == 4 and bare["rolls"][0]["dice"] == 1  # line 69
    assert {k: v for k, v in bare.items() if k != "defaults"} == {
        k: v for k, v in full.items() if k != "defaults"
    }
    assert any(a["field"] == "fired" for a in bare["defaults"])


def test_every_missing_description_is_named_in_one_message() -> None:
    # Infantry firing at infantry, neither with its formation, the target without its order
    # (its firing-table column, line 87) and the firer without its weapon (line 62): all four
    # at once. (The firer's order is not read: its row is set by its formation, lines 83-85.)
    scene = load(doc(red(type="infantry"), blue(gap=5, type="infantry")))
    with pytest.raises(QuestionError) as caught:
        RS.resolve(scene, "shoot", ["red", "blue"])
    message = str(caught.value)
    assert not isinstance(caught.value, MissingAttribute)
    assert "4 attributes are missing" in message
    for who, key in (("blue", "formation"), ("blue", "order"), ("red", "formation")):
        assert f"'{who}' has no '{key}'" in message
    # the weapons named are those of its type
    assert "'red' has no 'weapon' (give one of 'later-breech-loader'" in message
    # and a morale test with no quality names it
    with pytest.raises(MissingAttribute, match="'red' has no 'quality'"):
        RS.resolve(load(doc(red(**LINE))), "morale", ["red"])


def test_typos_and_bad_values_are_refused_when_read() -> None:
    with pytest.raises(SceneError, match="did you mean 'bases_removed'"):
        load(doc(red(bases_remved=1, **LINE)))
    with pytest.raises(SceneError, match="did you mean 'game_size'"):
        load(doc(red(**LINE), game_sise="mini"))
    with pytest.raises(SceneError, match="formation is 'square'"):
        load(doc(red(type="infantry", formation="square", order="close")))


# --------------------------------------------------------------------------------------------
# The sequence of play


def test_the_sequence_of_play_is_explained() -> None:
    assert [p.name for p in RS.phase_steps] == list(RS.phases)
    assert [p.cite.line for p in RS.phase_steps] == [7, 8, 9, 10, 11]
    assert all(p.acting == "all" for p in RS.phase_steps)
    scene = load(doc(red(**LINE), blue(**LINE)))
    assert RS.side_groups(scene) == {"all": ("red", "blue")}
    assert "every side" in RS.sides_rule


# --------------------------------------------------------------------------------------------
# Outcomes: shooting (lines 62-96, 130)


SHOT = doc(
    # 3 bases of early breech-loaders (line 68: 2 dice each), 10 cm from 4 bases of close order
    # infantry in line, in the open.
    red(n=3, weapon="early-breech-loader", **LINE),
    blue(gap=10, n=4, quality="average", weapon="musket", **LINE),
)


def test_shooting_form_in_the_sheets_terms() -> None:
    scene = load(SHOT)
    reports = form(scene, "shoot", "red", "blue")
    assert list(reports) == ["hits", "saved", "removed"]
    # 3 bases x 2 dice = 6D6; Inf line row against Normal: 4+ (line 83); likeliest 3 hits
    assert reports["hits"].maximum == 6 and reports["hits"].default == 3
    assert reports["hits"].cite is not None and reports["hits"].cite.line == 83
    # breech-loader against infantry in line in the open: Sk or Ln, 5+ (line 96); of 3 hits
    # saved on 1/3 the likeliest is 1 (12/27 against 8/27 for none)
    assert reports["saved"].cite is not None and reports["saved"].cite.line == 96
    assert reports["saved"].default == 1
    removed = reports["removed"]
    assert removed.kind is Kind.BASES and removed.unit == "blue"
    assert removed.bases == ("blue-1", "blue-2", "blue-3", "blue-4")
    assert removed.default == ("blue-3", "blue-4")  # 3 hits - 1 save: its last two bases


def test_shooting_outcome_removes_bases_and_calls_morale_tests() -> None:
    scene = load(SHOT)
    outcome = RS.settle(
        scene,
        "shoot",
        ["red", "blue"],
        {"hits": 4, "saved": 1, "removed": ["blue-2", "blue-3", "blue-4"]},
    )
    # 4 hits, 1 saved: 3 unsaved, a base each; 3 bases removed: 3 morale tests (line 130)
    assert changes(outcome) == [
        ("red", "fired", True),
        ("blue-2", "removed", True),
        ("blue-3", "removed", True),
        ("blue-4", "removed", True),
        ("blue", "bases_removed", 3),
    ]
    assert [c.scope for c in outcome.changes][1:4] == [Scope.BASE] * 3
    after = applied(SHOT, outcome)
    scene = load(after)
    # blue is now one base; its morale: 3 tests at 4+ (average, line 137), bases lost
    # Bin(3, 1/2) = 1/8, 3/8, 3/8, 1/8 (line 141)
    morale = RS.resolve(scene, "morale", ["blue"]).data
    assert morale["tests"] == 3
    assert [Fraction(p) for p in morale["bases_lost"]["exact"]] == [
        Fraction(1, 8),
        Fraction(3, 8),
        Fraction(3, 8),
        Fraction(1, 8),
    ]
    # red, which fired, is no longer suggested to fire (line 10: once, in the firing step)
    firing = RS.resolve(scene, "suggest", ["firing"]).data["items"]
    assert all(item["args"][0] != "red" for item in firing)
    # and the morale test is suggested
    assert ["blue"] in [i["args"] for i in RS.resolve(scene, "suggest", []).data["items"]]


def test_a_bad_shooting_report_is_refused() -> None:
    scene = load(SHOT)
    with pytest.raises(QuestionError, match="5 saves for 4 hits"):
        RS.settle(scene, "shoot", ["red", "blue"], {"hits": 4, "saved": 5, "removed": []})
    with pytest.raises(QuestionError, match="take off 3 base"):
        RS.settle(scene, "shoot", ["red", "blue"], {"hits": 4, "saved": 1, "removed": ["blue-1"]})
    with pytest.raises(QuestionError, match="a whole number from 0 to 6"):
        RS.settle(scene, "shoot", ["red", "blue"], {"hits": 7, "saved": 0, "removed": []})


def test_no_save_no_saved_report_and_hits_beyond_the_bases() -> None:
    # Rifled musket (line 69, not a breech-loader) at a target in the open: All else, None
    # (line 96): no saving roll, so the form asks no saves. Two hits on a one-base unit take
    # off its one base.
    document = doc(red(n=2, weapon="rifled-musket", **LINE), blue(gap=5, quality="elite", **LINE))
    scene = load(document)
    assert list(form(scene, "shoot", "red", "blue")) == ["hits", "removed"]
    outcome = RS.settle(scene, "shoot", ["red", "blue"], {"hits": 2, "removed": ["blue-1"]})
    assert ("blue-1", "removed", True) in changes(outcome)
    assert "blue" not in [u["id"] for u in applied(document, outcome)["units"]]


def test_a_shot_not_allowed_asks_nothing_and_changes_nothing() -> None:
    # Limbered artillery can not fire (line 21).
    scene = load(
        doc(
            red(type="artillery", formation="limbered", weapon="smoothbore-artillery"),
            blue(gap=5, **LINE),
        )
    )
    assert RS.report_form(scene, "shoot", ["red", "blue"]) == ()
    assert RS.settle(scene, "shoot", ["red", "blue"], {}).changes == ()


def test_charging_cavalry_fired_on_by_its_target_tests_once() -> None:
    # Cavalry that charged this turn stands in contact with the infantry that fires on it:
    # fired on by its target, one morale test (line 131), hits or none.
    document = doc(
        red(weapon="rifled-musket", **LINE),
        blue(gap=0, type="cavalry", quality="levy", charged=True),
    )
    scene = load(document)
    # Inf line row against Cav: 2+ (line 83); no save in the open for a musket (line 96)
    assert RS.resolve(scene, "shoot", ["red", "blue"]).data["rolls"][0]["need"] == 2
    outcome = RS.settle(scene, "shoot", ["red", "blue"], {"hits": 0, "removed": []})
    assert changes(outcome) == [("red", "fired", True), ("blue", "fired_on", True)]
    morale = RS.resolve(load(applied(document, outcome)), "morale", ["blue"]).data
    assert morale["tests"] == 1 and morale["need"] == 5  # levy 5+ (line 138)


# --------------------------------------------------------------------------------------------
# Outcomes: morale (lines 126-141)


def test_morale_outcome_takes_off_a_base_per_failure_and_clears_the_reasons() -> None:
    document = doc(red(n=3, quality="levy", bases_removed=1, lost_melee=True, **LINE))
    scene = load(document)
    reports = form(scene, "morale", "red")
    # 1 base removed (1 test) + lost hand-to-hand (2 tests) = 3 tests at 5+ (levy, line 138):
    # failures Bin(3, 2/3): 1/27, 6/27, 12/27, 8/27, likeliest 2
    assert reports["failed"].maximum == 3 and reports["failed"].default == 2
    assert reports["removed"].default == ("red-2", "red-3")
    outcome = RS.settle(scene, "morale", ["red"], {"failed": 1, "removed": ["red-1"]})
    assert changes(outcome) == [
        ("red-1", "removed", True),  # line 141
        ("red", "bases_removed", 0),
        ("red", "lost_melee", False),
    ]
    after = load(applied(document, outcome))
    assert RS.resolve(after, "morale", ["red"]).data["tests"] == 0
    assert len(after.unit_of("red").bases) == 2
    # nothing left to test: nothing asked, nothing changed
    assert RS.report_form(after, "morale", ["red"]) == ()
    with pytest.raises(QuestionError, match="take off 1 base"):
        RS.settle(scene, "morale", ["red"], {"failed": 1, "removed": []})


# --------------------------------------------------------------------------------------------
# Outcomes: hand-to-hand (lines 98-124)


def melee_doc(defender: dict[str, Any]) -> dict[str, Any]:
    # Two bases of cavalry that charged, in contact with the front of two bases of `defender`.
    return doc(
        red(n=2, type="cavalry", quality="elite", charged=True),
        unit("blue", "blue", bases("blue", 50, 12, 270, 2), quality="average", **defender),
    )


def test_melee_form_and_the_loser_retreats() -> None:
    document = melee_doc(CLOSE_COLUMN)
    scene = load(document)
    reports = form(scene, "melee", "red", "blue")
    # Cav against Inf Col.: 2 a base (line 101), -1 against close order infantry (line 115):
    # 1 a base, 2D6. Defending Infantry against Cav: 1 a base (line 112), 2D6. Hit on 4+.
    assert reports["attacker_hits"].maximum == 2 and reports["defender_hits"].maximum == 2
    assert reports["attacker_hits"].default == 1  # Bin(2, 1/2): 1/4, 1/2, 1/4
    assert reports["retreat_blocked"].default is False
    # the cavalry take more hits (2 to 1): they lose, retreat and test twice (lines 120, 132)
    outcome = RS.settle(
        scene,
        "melee",
        ["red", "blue"],
        {"attacker_hits": 1, "defender_hits": 2, "retreat_blocked": False},
    )
    assert changes(outcome) == [("red", "lost_melee", True)]
    assert outcome.changes[0].cite is not None and outcome.changes[0].cite.line == 120
    morale = RS.resolve(load(applied(document, outcome)), "morale", ["red"]).data
    assert morale["tests"] == 2 and morale["need"] == 3  # elite 3+ (line 136)


def test_melee_tie_the_defender_loses() -> None:
    scene = load(melee_doc(CLOSE_COLUMN))
    outcome = RS.settle(
        scene,
        "melee",
        ["red", "blue"],
        {"attacker_hits": 1, "defender_hits": 1, "retreat_blocked": False},
    )
    assert changes(outcome) == [("blue", "lost_melee", True)]
    assert outcome.changes[0].cite is not None and outcome.changes[0].cite.line == 122


def test_melee_loser_eliminated_when_blocked_or_artillery() -> None:
    scene = load(melee_doc(CLOSE_COLUMN))
    outcome = RS.settle(
        scene,
        "melee",
        ["red", "blue"],
        {"attacker_hits": 2, "defender_hits": 0, "retreat_blocked": True},
    )
    # line 121: retreat blocked, eliminated: both bases off
    assert changes(outcome) == [("blue-1", "removed", True), ("blue-2", "removed", True)]
    gunners = melee_doc({"type": "artillery", "formation": "unlimbered"})
    outcome = RS.settle(
        load(gunners),
        "melee",
        ["red", "blue"],
        {"attacker_hits": 3, "defender_hits": 1, "retreat_blocked": False},
    )
    # line 123: artillery are eliminated
    assert changes(outcome) == [("blue-1", "removed", True), ("blue-2", "removed", True)]
    assert "blue" not in [u["id"] for u in applied(gunners, outcome)["units"]]


# --------------------------------------------------------------------------------------------
# Outcomes: charge, move, formation, command


def test_charge_outcome_marks_the_charger() -> None:
    # Cavalry may charge infantry (line 28); 10 cm in the open within its 16 cm (line 46).
    document = doc(red(type="cavalry"), blue(gap=10, weapon="musket", **LINE))
    scene = load(document)
    assert RS.resolve(scene, "charge", ["red", "blue"]).data["allowed"]
    reports = form(scene, "charge", "red", "blue")
    assert reports["contact"].default is True
    outcome = RS.settle(scene, "charge", ["red", "blue"], {"contact": True})
    assert changes(outcome) == [("red", "charged", True), ("red", "moved", True)]
    after = load(applied(document, outcome))
    # its move was the charge: no move nor a second charge suggested for it
    items = RS.resolve(after, "suggest", []).data["items"]
    assert not [i for i in items if i["kind"] in ("move", "charge") and i["args"][0] == "red"]


def test_a_refused_charge_asks_nothing() -> None:
    # Dragoons may not charge cavalry (line 29).
    scene = load(doc(red(type="dragoons"), blue(gap=5, type="cavalry")))
    assert RS.report_form(scene, "charge", ["red", "blue"]) == ()
    assert RS.settle(scene, "charge", ["red", "blue"], {}).changes == ()


def test_move_outcome_and_pivoting_artillery_cannot_fire() -> None:
    gun: dict[str, Any] = {
        "type": "artillery",
        "formation": "unlimbered",
        "weapon": "smoothbore-artillery",
    }
    document = doc(red(**gun), blue(gap=20, **LINE))
    scene = load(document)
    assert RS.resolve(scene, "shoot", ["red", "blue"]).data["allowed"]  # 20 cm: round shot
    assert list(form(scene, "move", "red")) == ["pivoted"]
    outcome = RS.settle(scene, "move", ["red"], {"pivoted": True})
    assert changes(outcome) == [("red", "moved", True), ("red", "pivoted", True)]
    after = RS.resolve(load(applied(document, outcome)), "shoot", ["red", "blue"]).data
    assert not after["allowed"]
    assert after["reasons"][0]["source"].endswith(":78")  # Pivoting Artillery cannot fire
    # infantry: nothing to ask, it has moved
    scene = load(doc(red(**CLOSE_COLUMN), blue(gap=60, **LINE)))
    assert RS.report_form(scene, "move", ["red"]) == ()
    assert changes(RS.settle(scene, "move", ["red"], {})) == [("red", "moved", True)]


def test_formation_outcome_changes_what_the_unit_may_do() -> None:
    document = doc(red(**LINE), blue(gap=60, **LINE))
    scene = load(document)
    assert RS.resolve(scene, "move", ["red"]).data["allowance"]["value"] == 0  # line 17
    reports = form(scene, "formation", "red")
    assert reports["formation"].choices == ("line", "column")
    assert reports["formation"].default == "column"
    outcome = RS.settle(scene, "formation", ["red"], {"formation": "column"})
    assert changes(outcome) == [("red", "formation", "column")]
    # close order infantry in column move 8 cm in the open (line 44)
    moved = RS.resolve(load(applied(document, outcome)), "move", ["red"]).data
    assert moved["allowance"]["value"] == 8
    # staying in line changes nothing; cavalry have no formation to report
    assert RS.settle(scene, "formation", ["red"], {"formation": "line"}).changes == ()
    assert RS.report_form(load(doc(red(type="cavalry"))), "formation", ["red"]) == ()
    with pytest.raises(QuestionError, match="'line' or 'column'"):
        RS.settle(scene, "formation", ["red"], {"formation": "limbered"})


def test_limbered_artillery_unlimbers_and_may_fire() -> None:
    gun: dict[str, Any] = {
        "type": "artillery",
        "formation": "limbered",
        "weapon": "bronze-rifled-artillery",
    }
    document = doc(red(**gun), blue(gap=40, **LINE))
    scene = load(document)
    assert not RS.resolve(scene, "shoot", ["red", "blue"]).data["allowed"]  # line 21
    outcome = RS.settle(scene, "formation", ["red"], {"formation": "unlimbered"})
    # Bronze Rifled Artillery 48cm 3 (line 64): 40 cm is in range, 3 dice
    shot = RS.resolve(load(applied(document, outcome)), "shoot", ["red", "blue"]).data
    assert shot["allowed"] and shot["rolls"][0]["dice"] == 3


@pytest.mark.parametrize(
    ("rating", "size", "row", "score"),
    [("good", "standard", "5-6", 8), ("poor", "mini", "1-2", 1), ("average", "mini", "3-4", 3)],
)
def test_command_outcome_keeps_the_score(rating: str, size: str, row: str, score: int) -> None:
    # lines 147-149: the row of the D6, the column of the rating in the game's size
    document = doc(red(type="cavalry", rating=rating), blue(gap=60, **LINE), game_size=size)
    scene = load(document)
    assert form(scene, "command", "red")["roll"].choices == ("1-2", "3-4", "5-6")
    outcome = RS.settle(scene, "command", ["red"], {"roll": row})
    assert changes(outcome) == [("red", "command_score", score)]
    after = load(applied(document, outcome))
    assert ["red"] in [
        i["args"] for i in RS.resolve(scene, "suggest", ["change-formation"]).data["items"]
    ]
    # rolled this turn: not suggested again
    assert ["red"] not in [
        i["args"] for i in RS.resolve(after, "suggest", ["change-formation"]).data["items"]
    ]


def test_every_action_but_measure_and_suggest_has_an_outcome() -> None:
    assert set(RS.outcomes) == set(RS.actions()) - {"measure", "suggest"}


# --------------------------------------------------------------------------------------------
# suggest: two units that cannot fight each other hand-to-hand do not stop it


def test_skirmishers_side_by_side_are_no_melee() -> None:
    # Ski/Art against Sk/Art is '-' (line 102) both ways: before, suggest raised.
    scene = load(
        doc(
            red(type="skirmishers", weapon="musket", quality="average"),
            blue(gap=0, type="skirmishers", weapon="musket", quality="average"),
        )
    )
    assert RS.resolve(scene, "suggest", ["hand-to-hand"]).data["items"] == []


# --------------------------------------------------------------------------------------------
# The demo game


def demo_doc() -> dict[str, Any]:
    return dict(json.loads(DEMO_JSON.read_text(encoding="utf-8")))


def test_the_demo_layout_loads_and_matches_its_game_file() -> None:
    from vision.game import load_game

    game = load_game(DEMO_TOML)
    layout = load_scene(DEMO_JSON)
    assert game.ruleset == layout.ruleset == "europe-19c"
    assert (game.table_width, game.table_depth) == (1800, 1200)
    assert dict(game.scene_extra) == {"game_size": layout.extra["game_size"]}
    assert 30 <= sum(len(u.bases) for u in layout.units) <= 60
    assert len({u.side for u in layout.units}) >= 2
    for spec in game.units:
        placed = layout.unit_of(spec.id)
        assert placed.side == spec.side
        # every attribute and starting state of the game file, repeated in the layout
        for key, value in spec.attrs.items():
            if key not in ("tag_size", "family", "height", "border_bits"):
                assert placed.get(key) == value, (spec.id, key)
        assert [b.id for b in placed.bases] == [b.id for b in spec.bases]
        for b in spec.bases:
            at = layout.base(b.id)
            assert (at.footprint.width, at.footprint.depth) == (
                b.footprint.width,
                b.footprint.depth,
            )
            assert at.footprint.circle == b.footprint.circle
    assert {t.id for t in layout.terrain} == {t.id for t in game.terrain}


def test_the_demo_tags_are_big_enough_and_bases_clear() -> None:
    from vision.game import load_game

    game = load_game(DEMO_TOML)
    layout = load_scene(DEMO_JSON)
    for spec in game.units:
        for b in spec.bases:
            assert b.spec.size >= 32.0, b.id
            if b.footprint.circle:
                # the tag's corners 4 mm inside the rim
                assert b.footprint.width / 2 >= b.spec.size / math.sqrt(2) + 4, b.id
            else:
                assert b.footprint.width >= b.spec.size + 8, b.id
                assert b.footprint.depth >= b.spec.size + 8, b.id
    for piece in game.terrain:
        if piece.tag is not None:
            assert piece.spec is not None and piece.spec.size >= 32.0
    corner = game.calibration.spec.size * 1.25 / 2  # half the card: 1 quiet cell of 8
    cards = [(c.x, c.y, corner) for c in game.calibration.corners]
    everything = list(layout.bases())
    for placed in everything:
        outline = geo.outline_polygon(placed)
        assert outline[:, 0].min() >= 30 and outline[:, 1].min() >= 30, placed.id
        assert outline[:, 0].max() <= layout.table_width - 30, placed.id
        assert outline[:, 1].max() <= layout.table_depth - 30, placed.id
        for x, y, half in cards:
            # clear of the card by 5 mm: outside the card grown by 5 mm each way
            grown = np.array(rect(x - half - 5, y - half - 5, x + half + 5, y + half + 5))
            assert geo.containment(placed, grown) == "outside", placed.id
    gaps = geo.distance_matrix(everything, everything)
    np.fill_diagonal(gaps, np.inf)
    # 5 mm apart, but for the one fight under way: the cuirassiers that charged stand in base
    # contact with the Landwehr (hand-to-hand needs contact), touching, not overlapping.
    fighting = {"kuerassiere", "landwehr"}
    for i, one in enumerate(everything):
        for j, other in enumerate(everything):
            if {one.unit_id, other.unit_id} == fighting:
                assert gaps[i, j] >= -1e-6, (one.id, other.id)
            elif i != j:
                assert gaps[i, j] >= 5.0, (one.id, other.id)


def test_the_demo_suggestions_cover_every_action_and_all_answer() -> None:
    scene = load_scene(DEMO_JSON)
    kinds: set[str] = set()
    for phase in RS.phases:
        for item in RS.resolve(scene, "suggest", [phase]).data["items"]:
            kinds.add(item["kind"])
            assert "error" not in item["result"], item
            direct = RS.resolve(scene, item["kind"], item["args"]).data
            assert direct["action"] == item["kind"]
            # the players are asked in the sheet's terms, and their likeliest report settles
            reports = RS.report_form(scene, item["kind"], item["args"])
            likely = {
                r.name: list(r.default) if isinstance(r.default, tuple) else r.default
                for r in reports
            }
            RS.settle(scene, item["kind"], item["args"], likely)
    assert kinds == set(RS.actions()) - {"measure", "suggest"}


def test_the_game_file_carries_the_game_size_into_its_scenes(tmp_path: Path) -> None:
    from vision.game import GameError, load_game

    text = DEMO_TOML.read_text(encoding="utf-8")
    assert load_game(DEMO_TOML).scene_extra["game_size"] in ("standard", "mini")
    bad = tmp_path / "game.toml"
    bad.write_text(text.replace("game_size =", "game_sise =", 1), encoding="utf-8")
    with pytest.raises(GameError, match="did you mean 'game_size'"):
        load_game(bad)
