"""Every dice form a ruleset asks after an answer can be confirmed as it is first shown
(`Ruleset.report_form` then `Ruleset.settle`): the page fills a form with its first values and a
player who rolled just those presses Confirm. First values that contradict each other (one kill
shown with no figure taken off) would refuse the table's most common click."""

from __future__ import annotations

from collections import Counter
from functools import wraps
from types import MappingProxyType
from typing import Any

import pytest

from rules.engine import Ruleset, get_ruleset, load_scene, ruleset_ids
from rules.errors import QuestionError, UmpireError
from tests.conftest import REPO
from tests.guide_ruleset import VillageBrawl

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


RULESETS = [get_ruleset(ident) for ident in ruleset_ids()] + [VillageBrawl()]


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: r.id)
def test_every_outcome_names_an_action_with_its_apply_and_no_other_has_one(
    ruleset: Ruleset,
) -> None:
    """`outcomes` is a tuple of names found by `settle` as `_NAME_apply` (and `_NAME_form`): a
    misspelt name would leave an action's dice recording nothing, or fail only when played."""
    actions = set(ruleset.actions())
    for name in ruleset.outcomes:
        assert name in actions, f"{ruleset.id}: outcome {name!r} is not an action"
        assert callable(getattr(ruleset, f"_{name}_apply", None)), f"{ruleset.id}: {name}"
    made = {
        attr[1:].rsplit("_", 1)[0]
        for attr in dir(ruleset)
        if attr.startswith("_")
        and attr.endswith(("_form", "_apply"))
        and attr[1:].rsplit("_", 1)[0] in actions
    }
    assert made <= set(ruleset.outcomes), f"{ruleset.id}: forms of actions not in outcomes"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_outcome_settled_with_wrong_arguments_is_refused_with_a_message(path: Any) -> None:
    """Confirming an action with no argument, with one too many or with an id the scene does
    not hold (a page or a script sending a bad request) is a refusal naming what is wrong,
    never another exception: an action with no dice to report has no form to check them."""
    scene = load_scene(path)
    ruleset = get_ruleset(scene.ruleset)
    first = scene.units[0].id
    # what each refusal names: the arguments the action takes, the id no piece has, the dice
    # missing from the report, the word no situation has
    says = r"takes|arguments|'nobody'|is missing|no terrain piece with id|unknown"
    for name in ruleset.outcomes:
        for args in ([], [first] * 4, ["nobody", first]):
            with pytest.raises(UmpireError, match=says):
                ruleset.settle(scene, name, args, {})


def _counted(ruleset: Ruleset, monkeypatch: pytest.MonkeyPatch, action: str) -> Counter[str]:
    """How often each method that answers `action` runs from now on: the action's own method
    (a partial's function for sepoys' two-unit actions) and europe's volleys (`shots`),
    counted by name as `self.NAME` finds them."""
    found = ruleset.actions()[action]
    names = {getattr(found, "func", found).__name__, "shots"}
    calls: Counter[str] = Counter()

    def counting(name: str, method: Any) -> Any:
        @wraps(method)  # its name too: europe's actions are named by their methods' names
        def counted(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return method(*args, **kwargs)

        return counted

    for name in names:
        if hasattr(ruleset, name):
            monkeypatch.setattr(ruleset, name, counting(name, getattr(ruleset, name)))
    # The ruleset answers through the actions it made once (`Ruleset.__init__`): made again of
    # the counted methods.
    monkeypatch.setattr(ruleset, "_actions", MappingProxyType(ruleset.actions()))
    return calls


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_settle_asks_the_question_once_and_a_form_given_the_answer_asks_nothing(
    path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`settle` asks each outcome's question once, its form and its changes reading that
    answer; `report_form` given the answer the page has just shown asks nothing more."""
    scene = load_scene(path)
    ruleset = get_ruleset(scene.ruleset)
    items = ruleset.resolve(scene, "suggest", []).data["items"]
    asked = [(i["kind"], i["args"]) for i in items if i["kind"] in ruleset.outcomes]
    for kind, args in asked:
        answer = ruleset.resolve(scene, kind, args)
        found = ruleset.actions()[kind]
        own = getattr(found, "func", found).__name__
        with monkeypatch.context() as patch:
            calls = _counted(ruleset, patch, kind)
            form = ruleset.report_form(scene, kind, args, answer)
            assert not calls, f"{kind} {args}: the form asked {dict(calls)} again"
            reported = {r.name: _shown(r.default) for r in form if r.default is not None}
            if len(reported) < len(form):
                continue
            ruleset.settle(scene, kind, args, reported)
            assert calls[own] == 1, f"{kind} {args}: {dict(calls)}"
            assert max(calls.values()) == 1, f"{kind} {args}: asked again, {dict(calls)}"
