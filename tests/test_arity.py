"""The clicks each action takes, read off the arguments the ruleset declares (webui/arity.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.engine import get_ruleset, load_scene
from webui.arity import arities, arity_of

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.json"))


@pytest.mark.parametrize(
    "name, message, least, most",
    [
        ("shoot", "shoot takes 2 arguments (shoot SHOOTER TARGET), got 0: none", 2, 2),
        ("command", "command takes 1 or 2 arguments (command COMMANDER [UNIT]), got 0", 1, 2),
        ("command", "takes 1 or 2 arguments (command LEADER [standard|mini]), got 0", 1, 1),
        ("move", "move takes a unit and optionally terrain ids (move UNIT [TERRAIN...])", 1, 1),
        ("nerve", "nerve takes 1 or 2 arguments (nerve UNIT [SITUATION]), got 0", 1, 1),
    ],
)
def test_the_usage_gives_the_clicks(name: str, message: str, least: int, most: int) -> None:
    found = arity_of(name, message)
    assert found is not None
    assert (found.least, found.most) == (least, most)


def test_a_message_without_a_usage_says_nothing() -> None:
    assert arity_of("shoot", "unknown id 'x'") is None


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_action_but_suggest_takes_clicks_a_page_can_give(path: Path) -> None:
    scene = load_scene(path)
    ruleset = get_ruleset(scene.ruleset)
    found = {a.name: a for a in arities(ruleset, scene)}
    assert set(found) == set(ruleset.actions()) - {"suggest"}
    for a in found.values():
        assert 0 <= a.least <= a.most <= 2, a
