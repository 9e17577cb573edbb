"""What each action takes, declared once (`Ruleset.usage`, a sheet's `[usage]` table) and
checked once, by `Ruleset.resolve`, before the action is asked (rules/engine.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.engine import Action, Ruleset, get_ruleset, load_scene, ruleset_ids
from rules.errors import QuestionError, UnknownIdError
from rules.scene import Scene

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXAMPLE = {"skirmish-19c": "skirmish"}
"""The example scene of each ruleset: its id, but for skirmish."""


def example(ident: str) -> Scene:
    return load_scene(EXAMPLES / f"{EXAMPLE.get(ident, ident)}.json")


@pytest.mark.parametrize("ident", ruleset_ids())
def test_every_action_declares_its_usage_and_nothing_else_does(ident: str) -> None:
    rules = get_ruleset(ident)
    assert set(rules.usage) == set(rules.actions())
    assert (rules.usage["measure"], rules.usage["suggest"]) == ("A B", "[PHASE]")


def test_a_sheet_declares_usage_in_its_data_not_beside_it() -> None:
    data = get_ruleset("skirmish-19c").data
    with pytest.raises(TypeError, match="sets data and usage"):
        type("Twice", (Ruleset,), {"data": data, "usage": {"shoot": "A B"}})


# The counts each usage accepts and the wording of a refusal, from the usages themselves:
# `[NAME]` may be left out, `[NAME...]` repeats.
@pytest.mark.parametrize(
    ("ident", "action", "args", "message"),
    [
        (
            "skirmish-19c",
            "shoot",
            ["a"],
            "skirmish-19c: shoot takes 2 arguments (shoot SHOOTER TARGET), got 1: 'a'",
        ),
        (
            "skirmish-19c",
            "risk",
            [],
            "skirmish-19c: risk takes 1 argument (risk UNIT), got 0: none",
        ),
        (
            "skirmish-19c",
            "move",
            ["a", "b", "c"],
            "skirmish-19c: move takes 1 or 2 arguments (move UNIT [TARGET]), got 3: 'a' 'b' 'c'",
        ),
        (
            "sepoys-and-soldiers",
            "move",
            [],
            "sepoys-and-soldiers: move takes 1 or more arguments (move UNIT [TERRAIN...]), "
            "got 0: none",
        ),
        (
            "colonial-adventure",
            "initiative",
            ["british"],
            "colonial-adventure: initiative takes 0 arguments (initiative), got 1: 'british'",
        ),
        (
            "europe-19c",
            "suggest",
            ["firing", "x"],
            "europe-19c: suggest takes 0 or 1 arguments (suggest [PHASE]), got 2: 'firing' 'x'",
        ),
        (
            "europe-19c",
            "command",
            [],
            "europe-19c: command takes 1 or 2 arguments (command LEADER [standard|mini]), "
            "got 0: none",
        ),
    ],
)
def test_a_wrong_count_is_refused_before_the_action_is_asked(
    ident: str, action: str, args: list[str], message: str
) -> None:
    with pytest.raises(QuestionError) as refused:
        get_ruleset(ident).resolve(example(ident), action, args)
    assert str(refused.value) == message


@pytest.mark.parametrize(
    ("ident", "action", "args"),
    [
        ("sepoys-and-soldiers", "move", ["nobody", "t1", "t2", "t3"]),  # any number of terrain
        ("skirmish-19c", "move", ["nobody"]),  # the target may be left out
        ("skirmish-19c", "move", ["nobody", "x"]),
    ],
)
def test_a_count_the_usage_accepts_reaches_the_action(
    ident: str, action: str, args: list[str]
) -> None:
    # The action itself then refuses the unit no scene has, by name.
    with pytest.raises(UnknownIdError, match="'nobody'"):
        get_ruleset(ident).resolve(example(ident), action, args)


class _Shouting(Ruleset):
    """A ruleset with two actions of its own, no sheet and no usage for them: the tests'
    subclasses set it."""

    id = "test-shouting"
    title = "test"
    sheet = "none"
    unit = "mm"

    def actions(self) -> dict[str, Action]:
        return {**super().actions(), "shout": self.measure, "whisper": self.measure}


def test_an_action_with_no_usage_is_named_when_the_ruleset_is_made() -> None:
    with pytest.raises(TypeError) as made:
        _Shouting()
    assert str(made.value) == (
        "_Shouting (test-shouting): no usage for shout, whisper (each action declares what it "
        "takes in its sheet's [usage] table)"
    )


def test_a_usage_naming_no_action_is_named_when_the_ruleset_is_made() -> None:
    usage = {**Ruleset.usage, "shout": "A B", "whisper": "A B", "sing": "UNIT"}
    with pytest.raises(TypeError) as made:
        type("Singing", (_Shouting,), {"usage": usage})()
    assert str(made.value) == (
        "Singing (test-shouting): a usage for no action: sing (each action declares what it "
        "takes in its sheet's [usage] table)"
    )
    both = {**Ruleset.usage, "shout": "A B", "sing": "UNIT"}
    with pytest.raises(TypeError, match=r"no usage for whisper; a usage for no action: sing \("):
        type("Both", (_Shouting,), {"usage": both})()


def test_a_ruleset_whose_usage_and_actions_agree_is_made() -> None:
    usage = {**Ruleset.usage, "shout": "A B", "whisper": "A B"}
    rules = type("Agreeing", (_Shouting,), {"usage": usage})()
    # The engine's `suggest [PHASE]` stands for a ruleset that has no suggest.
    assert set(rules.actions()) == {"measure", "shout", "whisper"}
