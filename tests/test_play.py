"""The game in play as a pure state machine (rules/play.py): the first state from the game
file's units, edits applied and taken back, values set by hand checked, and the sequence of
play moving on (back to the first phase is a new turn that clears the per-turn fields).

The fields come from a small ruleset written here (skirmish-19c's phases, a few fields of its
own), so the machinery is what is under test, not a sheet."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from rules.engine import Cite, get_ruleset, load_scene, ruleset_ids
from rules.errors import QuestionError
from rules.play import Edit, Play, edits_of, phase_edits, set_by_hand, start, undo
from rules.state import Change, Field, Kind, Scope

SKIRMISH = type(get_ruleset("skirmish-19c"))
LINE = Cite("000_157c880a83b52d41.txt", 125, "Per 10% of group wounded or killed")


class Practice(SKIRMISH):  # type: ignore[misc, valid-type]
    unit_fields: ClassVar[tuple[Field, ...]] = (
        Field("casualties", Kind.COUNT, LINE, "figures lost", default=0),
        Field("fired", Kind.FLAG, LINE, "fired this turn", default=False, per_turn=True),
        Field("formation", Kind.CHOICE, LINE, "formation", choices=("line", "column")),
        Field("quality", Kind.CHOICE, LINE, "troops", choices=("raw", "veteran"), in_play=False),
    )


RULES = Practice()
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "skirmish.json"
PHASES = RULES.phases  # command, move-a, shoot-a, actions-b, shoot-b, melee


def first() -> Play:
    return start(
        RULES,
        [
            ("rifles", {"quality": "veteran", "casualties": 1, "formation": "line"}, ["r1", "r2"]),
            ("zouaves", {"quality": "raw"}, ["z1"]),
        ],
    )


def test_the_first_state_is_the_game_files_with_start_of_game_defaults() -> None:
    play = first()
    assert (play.turn, play.phase, play.initiative) == (1, "command", None)
    assert dict(play.units["rifles"]) == {"casualties": 1, "fired": False, "formation": "line"}
    # No formation given and none to assume: the field stays unset; descriptions are not state.
    assert dict(play.units["zouaves"]) == {"casualties": 0, "fired": False}
    assert dict(play.bases) == {"r1": "rifles", "r2": "rifles", "z1": "zouaves"}


def test_edits_apply_and_undo_takes_them_back_exactly() -> None:
    play = first()
    edits = (
        Edit(Scope.UNIT, "zouaves", "casualties", 0, 2),
        Edit(Scope.BASE, "z1", "removed", False, True),
        Edit(Scope.BASE, "r2", "held", False, True),
        Edit(Scope.GAME, "game", "initiative", None, "french"),
    )
    after = play.apply(edits)
    assert after.units["zouaves"]["casualties"] == 2
    assert (after.removed, after.held, after.initiative) == ({"z1"}, {"r2"}, "french")
    assert play.units["zouaves"]["casualties"] == 0  # the old picture never changes
    back = after.apply(undo(edits))
    assert back.as_json() == play.as_json()


def test_edits_round_trip_through_json() -> None:
    edit = Edit(Scope.BASE, "z1", "removed", False, True)
    assert Edit.from_json(edit.as_json()) == edit


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        (
            {"scope": "game", "target": "game", "field": "weather", "before": 1, "after": 2},
            "sets no game field 'weather': 'turn', 'phase' or 'initiative'",
        ),
        (
            {"scope": "base", "target": "a-1", "field": "gone", "before": False, "after": True},
            "sets no base field 'gone': 'removed' or 'held'",
        ),
        (
            {"scope": "table", "target": "game", "field": "turn", "before": 1, "after": 2},
            "must give scope ('unit', 'base' or 'game')",
        ),
        ({"scope": "game", "field": "turn", "before": 1, "after": 2}, "target, field"),
    ],
)
def test_an_edit_no_game_can_hold_is_refused_when_read_back(doc: dict, words: str) -> None:
    # A game's log holds only checked edits; one damaged or written by hand is named, not
    # applied to a game resumed from it.
    with pytest.raises(QuestionError) as err:
        Edit.from_json(doc)
    assert words in str(err.value)


def test_changes_become_edits_from_where_the_game_stands() -> None:
    play = first()
    edits = edits_of(
        play,
        [
            Change("rifles", "casualties", 3, "2 killed"),
            Change("rifles", "formation", "line", "unchanged"),  # already so: no edit
            Change("z1", "removed", True, "killed", scope=Scope.BASE),
        ],
    )
    assert edits == (
        Edit(Scope.UNIT, "rifles", "casualties", 1, 3),
        Edit(Scope.BASE, "z1", "removed", False, True),
    )


def test_values_set_by_hand_are_checked_all_at_once() -> None:
    play = first()
    assert set_by_hand(RULES, play, Scope.UNIT, "zouaves", {"formation": "column"}) == (
        Edit(Scope.UNIT, "zouaves", "formation", None, "column"),
    )
    with pytest.raises(QuestionError) as caught:
        set_by_hand(
            RULES,
            play,
            Scope.UNIT,
            "zouaves",
            {"casualtes": 1, "fired": "yes", "formation": "square", "quality": "veteran"},
        )
    message = str(caught.value)
    assert "no unit field 'casualtes' (did you mean 'casualties'?)" in message
    assert "fired is 'yes'; accepted: true or false" in message
    assert "formation is 'square'" in message
    assert "quality describes the troops and does not change in play" in message
    with pytest.raises(QuestionError, match="no unit 'dragoons'"):
        set_by_hand(RULES, play, Scope.UNIT, "dragoons", {"casualties": 1})
    with pytest.raises(QuestionError, match="no base 'r9'"):
        set_by_hand(RULES, play, Scope.BASE, "r9", {"removed": True})
    with pytest.raises(QuestionError, match="accepted: true or false"):
        set_by_hand(RULES, play, Scope.BASE, "r1", {"held": 1})
    with pytest.raises(QuestionError, match="turn is 0"):
        set_by_hand(RULES, play, Scope.GAME, "game", {"turn": 0})
    assert set_by_hand(RULES, play, Scope.UNIT, "rifles", {"casualties": 1}) == ()  # no change


def test_the_sequence_of_play_moves_on_and_a_new_turn_clears_per_turn_fields() -> None:
    play = first().apply([Edit(Scope.UNIT, "rifles", "fired", False, True)])
    play = play.apply(phase_edits(RULES, play, "melee"))
    assert (play.turn, play.phase) == (1, "melee")
    new_turn = phase_edits(RULES, play, "command")
    assert Edit(Scope.GAME, "game", "turn", 1, 2) in new_turn
    assert Edit(Scope.UNIT, "rifles", "fired", True, False) in new_turn
    play = play.apply(new_turn)
    assert (play.turn, play.phase, play.units["rifles"]["fired"]) == (2, "command", False)
    assert play.units["rifles"]["casualties"] == 1  # not a per-turn field
    assert phase_edits(RULES, play, "command") == ()  # already there: nothing, not a new turn
    with pytest.raises(QuestionError, match="unknown phase 'lunch'"):
        phase_edits(RULES, play, "lunch")


@pytest.mark.parametrize("phase", ["lunch", 3, None])
def test_a_phase_the_sheet_does_not_have_is_refused_as_suggest_refuses_it(phase: object) -> None:
    # One check for both: the skirmish sheet's phases, in its order (sheet.toml [[phases]]).
    said = (
        f"skirmish-19c: unknown phase {phase!r}; the phases are 'command', 'move-a', 'shoot-a', "
        "'actions-b', 'shoot-b' or 'melee'"
    )
    with pytest.raises(QuestionError) as edited:
        phase_edits(RULES, first(), phase)
    assert str(edited.value) == said
    if isinstance(phase, str):
        with pytest.raises(QuestionError) as suggested:
            RULES.resolve(load_scene(EXAMPLE), "suggest", [phase])
        assert str(suggested.value) == said


@pytest.mark.parametrize("ident", ruleset_ids())
def test_every_sheet_has_a_sequence_of_play_to_move_through(ident: str) -> None:
    # phase_edits counts on it: the first phase starts a new turn.
    assert get_ruleset(ident).phases


def test_a_sheet_with_no_sequence_of_play_says_so_when_a_phase_is_set() -> None:
    # A sheet may declare no [[phases]] (rules.sheetdata allows it): no phase can be set.
    class Unphased(Practice):
        phases: ClassVar[tuple[str, ...]] = ()

    with pytest.raises(QuestionError) as refused:
        phase_edits(Unphased(), first(), "command")
    assert str(refused.value) == "skirmish-19c: unknown phase 'command'; it has no phases"
