"""Every dice form a ruleset asks after an answer can be confirmed as it is first shown
(`Ruleset.report_form` then `Ruleset.settle`): the page fills a form with its first values and a
player who rolled just those presses Confirm. First values that contradict each other (one kill
shown with no figure taken off) would refuse the table's most common click."""

from __future__ import annotations

from typing import Any

import pytest

from rules.engine import get_ruleset, load_scene
from rules.errors import QuestionError
from tests.conftest import REPO

EXAMPLES = sorted((REPO / "examples").glob("*.json"))


def _shown(default: Any) -> Any:
    """A first value as the page sends it back (JSON: lists, not tuples)."""
    return list(default) if isinstance(default, tuple) else default


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_form_as_first_shown_can_be_confirmed(path: Any) -> None:
    scene = load_scene(path)
    ruleset = get_ruleset(scene.ruleset)
    outcomes = ruleset.outcomes
    asked = [
        (item["kind"], item["args"])
        for item in ruleset.resolve(scene, "suggest", []).data["items"]
        if item["kind"] in outcomes
    ]
    assert asked, "the example asks no question whose dice change the game"
    for kind, args in asked:
        form = ruleset.report_form(scene, kind, args)
        reported = {r.name: _shown(r.default) for r in form if r.default is not None}
        if len(reported) < len(form):
            continue  # a value the players must give (a die's face): nothing is shown first
        try:
            ruleset.settle(scene, kind, args, reported)
        except QuestionError as refused:
            pytest.fail(f"{kind} {' '.join(args)} as first shown {reported}: {refused}")
