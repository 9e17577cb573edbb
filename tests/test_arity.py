"""The clicks each action takes, counted in the usage the ruleset declares (webui/arity.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.engine import get_ruleset, load_scene
from webui.arity import arities, arities_json, arity_of

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.json"))


@pytest.mark.parametrize(
    "name, usage, least, most",
    [
        ("shoot", "SHOOTER TARGET", 2, 2),
        ("command", "COMMANDER [UNIT]", 1, 2),
        ("command", "LEADER [standard|mini]", 1, 1),  # a word typed, not a piece clicked
        ("move", "UNIT [TERRAIN...]", 1, 1),  # terrain ids are typed
        ("nerve", "UNIT [SITUATION]", 1, 1),
        ("initiative", "", 0, 0),  # the whole table
    ],
)
def test_the_usage_gives_the_clicks(name: str, usage: str, least: int, most: int) -> None:
    found = arity_of(name, usage)
    assert (found.least, found.most) == (least, most)
    assert found.usage == f"{name} {usage}".strip()


SKIRMISH = [
    ("measure", 2, 2),
    ("shoot", 2, 2),
    ("command", 1, 1),
    ("risk", 1, 1),
    ("melee", 2, 2),
    ("move", 1, 2),  # `move UNIT [TARGET]`: alone, or with the piece it moves to
    ("charge", 2, 2),
]
PAGE = {
    "age-of-napoleon": [
        ("measure", 2, 2),
        ("shoot", 2, 2),
        ("rocket", 2, 2),
        ("overheat", 1, 1),
        ("move", 1, 1),  # `move UNIT [FACING]`: the facing is typed
        ("melee", 2, 2),
        ("morale", 1, 1),
    ],
    "colonial-adventure": [
        ("measure", 2, 2),
        ("shoot", 2, 2),
        ("melee", 2, 2),
        ("move", 1, 1),  # `move UNIT [TERRAIN...]`
        ("morale", 1, 1),
        ("actions", 1, 1),
        ("initiative", 0, 0),
    ],
    "europe-19c": [
        ("measure", 2, 2),
        ("shoot", 2, 2),
        ("command", 1, 1),  # `command LEADER [standard|mini]`
        ("charge", 2, 2),
        ("melee", 2, 2),
        ("move", 1, 1),
        ("morale", 1, 1),
        ("formation", 1, 1),
    ],
    "sepoys-and-soldiers": [
        ("measure", 2, 2),
        ("shoot", 2, 2),
        ("command", 1, 2),  # `command COMMANDER [UNIT]`
        ("nerve", 1, 1),  # `nerve UNIT [SITUATION]`
        ("charge", 2, 2),
        ("melee", 2, 2),
        ("move", 1, 1),
    ],
    "skirmish": SKIRMISH,
    "skirmish-melee": SKIRMISH,
}
"""What the page receives for each example, in the ruleset's order of actions: each action's
clicks as its usage in sheet.toml (and the engine's `measure A B`) gives them."""


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_the_page_receives_the_clicks_of_every_action(path: Path) -> None:
    scene = load_scene(path)
    found = arities_json(get_ruleset(scene.ruleset))
    assert [(a["name"], a["least"], a["most"]) for a in found] == PAGE[path.stem]
    assert found[1]["usage"] == "shoot SHOOTER TARGET"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_action_but_suggest_takes_clicks_a_page_can_give(path: Path) -> None:
    scene = load_scene(path)
    ruleset = get_ruleset(scene.ruleset)
    found = {a.name: a for a in arities(ruleset)}
    assert set(found) == set(ruleset.actions()) - {"suggest"}
    for a in found.values():
        assert 0 <= a.least <= a.most <= 2, a
