"""`rules/answer.py`: the values answers are built from, and probabilities for JSON, exact and as
floats."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.answer import (
    Cite,
    Resolution,
    Threshold,
    chance_json,
    chances_json,
    fraction_json,
    plural,
    reason_json,
)
from rules.engine import Candidate, Ruleset
from tests.builders import base, make_scene, unit

SCENE = make_scene("skirmish-19c", [unit("a", "red", [base("a-1", 10, 10)])])


def test_an_answer_built_up_is_read_only_and_keeps_its_lines() -> None:
    data = {"action": "shoot", "allowed": True}
    res = Resolution.of("shoot", data, iter(["a to b: 2 boxes", "allowed"]))
    assert (res.action, res.lines, res.as_json()) == ("shoot", ("a to b: 2 boxes", "allowed"), data)
    with pytest.raises(TypeError):
        res.data["allowed"] = False  # type: ignore[index]


def test_an_answer_says_its_lines_only_when_they_are_read() -> None:
    said: list[str] = []

    def say() -> list[str]:
        said.append("said")
        return ["a to b: 2 boxes", "allowed"]

    res = Resolution.of("shoot", {"action": "shoot"}, say, summary="a to b: 2 boxes")
    assert said == []  # built, not said
    assert res.lines == ("a to b: 2 boxes", "allowed")
    assert res.lines == ("a to b: 2 boxes", "allowed")  # said again, the same
    assert said == ["said", "said"]


def test_suggest_lists_the_summary_given_apart_without_saying_the_lines() -> None:
    def unsaid() -> list[str]:
        raise AssertionError("the lines were said")

    rules, asked = Ruleset(), Candidate("shoot", ("a", "b"))
    given = Resolution.of("shoot", {}, unsaid, summary="a shoots at b")
    assert rules.summarise(SCENE, asked, given) == "a shoots at b"
    # Without a summary, the first line; without lines, the action's name.
    first = Resolution.of("shoot", {}, ["a to b: 2 boxes", "allowed"])
    assert rules.summarise(SCENE, asked, first) == "a to b: 2 boxes"
    assert rules.summarise(SCENE, asked, Resolution.of("shoot", {}, [])) == "shoot"


def test_chance_json_reduces_the_fraction() -> None:
    assert chance_json(12, 36) == {"value": 1 / 3, "exact": "1/3"}
    assert chance_json(36, 36) == {"value": 1.0, "exact": "1"}
    assert chance_json(0, 6) == {"value": 0.0, "exact": "0"}


def test_fraction_json_is_chance_json_of_a_fraction() -> None:
    assert fraction_json(Fraction(25, 36)) == chance_json(25, 36)
    assert fraction_json(Fraction(1)) == chance_json(6, 6)


def test_chances_json_lists_what_may_happen() -> None:
    # 2d6 needing 4+: 9, 18, 9 ways in 36 of 0, 1, 2 successes; a count of 0 is left out
    assert chances_json([9, 18, 9, 0], 36) == [
        {"k": 0, "value": 0.25, "exact": "1/4"},
        {"k": 1, "value": 0.5, "exact": "1/2"},
        {"k": 2, "value": 0.25, "exact": "1/4"},
    ]


def test_plural_counts_with_the_word_and_its_ending_when_not_one() -> None:
    assert plural(1, "hit") == "1 hit"
    assert plural(0, "action") == "0 actions"
    assert plural(2, "success", "es") == "2 successes"


def test_a_reason_names_the_line_it_comes_from_or_none() -> None:
    cite = Cite("004_8318ee244ed3ffb0.txt", 21, "Limbered Artillery: Can not fire")
    assert reason_json("limbered artillery can not fire", cite) == {
        "reason": "limbered artillery can not fire",
        "source": "004_8318ee244ed3ffb0.txt:21",
    }
    assert reason_json("as the scene gives it", None) == {
        "reason": "as the scene gives it",
        "source": None,
    }


@pytest.mark.parametrize(
    ("measured", "beyond"),
    [
        (90.0, False),  # within a 100 mm limit
        (100.0, False),  # on it
        (102.0, False),  # 2 mm over, inside a 2 mm uncertainty: too close to call
        (102.5, True),  # 2.5 mm over: clearly beyond
    ],
)
def test_a_threshold_is_beyond_only_when_clearly_past_the_limit(
    measured: float, beyond: bool
) -> None:
    assert Threshold(measured, 100.0, 2.0).beyond is beyond


def test_answers_compare_by_what_they_say_not_by_how_their_lines_are_said() -> None:
    """Two answers to one question are equal (the same action, data and summary) whichever
    function says their lines; another summary makes another answer."""
    first = Resolution.of("measure", {"distance": 1.5}, lambda: ["1.5 cm"])
    again = Resolution.of("measure", {"distance": 1.5}, ["1.5 cm"])
    assert first == again and first.lines == again.lines == ("1.5 cm",)
    assert first != Resolution.of("measure", {"distance": 1.5}, ["1.5 cm"], summary="near")
