"""tests/guide_ruleset.py, the sheet added by following rules/rulesets/README.md alone, tested
as the guide says: from the sheet (tests/data/005_village_brawl.txt), a number worked out by
hand a case, through the registry line the guide asks for. Its cites are checked by
tests/test_citations.py with the five sheets'."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from rules import engine
from rules.engine import get_ruleset, read_scene
from rules.errors import QuestionError
from rules.scene import Scene
from tests.builders import base, rect, scene_doc, terrain, unit
from tests.guide_ruleset import VillageBrawl

ID = "village-brawl"


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The guide's step 3: one line in the registry (here for the tests only).
    line = (ID, "tests.guide_ruleset:VillageBrawl")
    monkeypatch.setattr(engine, "REGISTRY", (*engine.REGISTRY, line))
    yield
    engine._INSTANCES.pop(ID, None)


def brawler(ident: str, side: str, x: float, **attrs: Any) -> dict[str, Any]:
    """A brawler on a 1" square base at (x, 10), facing up the table."""
    return unit(ident, side, [base(f"{ident}-1", x, 10, 90, 1, 1)], **attrs)


def scene(*units: dict[str, Any], terrain_: list[dict[str, Any]] | None = None) -> Scene:
    doc = scene_doc(ID, list(units), unit="in", terrain=terrain_, width=48, depth=24)
    return read_scene(doc | {"uncertainty": 0}, "<village brawl>")


def ask(sc: Scene, action: str, *args: str) -> dict[str, Any]:
    return get_ruleset(ID).resolve(sc, action, list(args)).as_json()


# Two brawlers centred 1" + gap apart are `gap` inches apart edge to edge.


@pytest.mark.parametrize(
    ("gap", "need", "p"),
    [
        (5, 4, "1/2"),  # line 15: hits on 4+ at up to 6 inches: 3 faces of 6
        (6, 4, "1/2"),  # on the 6" edge: still up to 6 inches
        (7, 5, "1/3"),  # line 15: 5+ beyond 6 inches: 2 faces of 6
        (12, 5, "1/3"),  # line 14: within 12 inches
    ],
)
def test_the_throw_needs(gap: float, need: int, p: str) -> None:
    out = ask(scene(brawler("a", "red", 10), brawler("b", "blue", 11 + gap)), "throw", "a", "b")
    assert out["allowed"] is True
    roll = out["rolls"][0]
    assert (roll["dice"], roll["sides"], roll["need"], roll["p_success_exact"]) == (1, 6, need, p)


def test_beyond_12_inches_there_is_no_throw() -> None:
    # line 14: within 12 inches; 13" is beyond
    out = ask(scene(brawler("a", "red", 10), brawler("b", "blue", 24)), "throw", "a", "b")
    assert (out["allowed"], out["rolls"]) == (False, [])
    assert out["reasons"][0]["source"] == "005_village_brawl.txt:14"


def test_a_target_in_a_wood_is_hit_on_one_more() -> None:
    # line 16: -1 to the roll in a wood: 4+ becomes 5+ at 3"; the wood's edge is half an inch
    # in front of the target, so the line of sight runs only into the target's own wood
    wood = terrain("wood", "woods", rect(13.5, 5, 20, 15))
    out = ask(
        scene(brawler("a", "red", 10), brawler("b", "blue", 14), terrain_=[wood]), "throw", "a", "b"
    )
    assert (out["cover"], out["rolls"][0]["need"]) == ("soft", 5)
    assert out["rolls"][0]["modifiers"][0]["source"] == "005_village_brawl.txt:16"


def test_a_dazed_brawler_moves_3_inches() -> None:
    # lines 10-11: 6 inches a turn, 3 when dazed
    sc = scene(brawler("a", "red", 10), brawler("b", "blue", 30, dazed=True))
    assert ask(sc, "move", "a")["allowance"] == {"value": 6.0, "unit": "in"}
    assert ask(sc, "move", "b")["allowance"] == {"value": 3.0, "unit": "in"}
    # written in the scene's unit as every answer writes a length: 3 inches, one decimal
    (line,) = get_ruleset(ID).resolve(sc, "move", ["b"]).lines
    assert line.startswith('b moves up to 3.0" [')


def test_suggest_lists_each_phase() -> None:
    # line 7: Move, then Throw; both brawlers may throw at each other 5" apart
    out = ask(scene(brawler("a", "red", 10), brawler("b", "blue", 16)), "suggest")
    assert [(i["phase"], i["kind"], i["args"]) for i in out["items"]] == [
        ("move", "move", ["a"]),
        ("move", "move", ["b"]),
        ("throw", "throw", ["a", "b"]),
        ("throw", "throw", ["b", "a"]),
    ]


def test_suggest_leaves_off_a_throw_out_of_reach() -> None:
    # line 15: no need beyond 12 inches; b stands 13" from a, c 5" on the other side
    sc = scene(brawler("a", "red", 10), brawler("b", "blue", 24), brawler("c", "blue", 4))
    out = ask(sc, "suggest", "throw")
    assert [i["args"] for i in out["items"]] == [["a", "c"], ["c", "a"]]


def test_the_class_takes_its_id_sheet_fields_and_phases_from_its_sheet_data() -> None:
    # `data = DATA` alone: the id and sheet load_sheet was given, the one [[fields]] row and
    # the two [[phases]] rows of tests/data/village_brawl.toml.
    rules = get_ruleset(ID)
    assert (rules.id, rules.sheet) == ("village-brawl", "005_village_brawl.txt")
    assert [f.name for f in rules.unit_fields] == ["dazed"]
    assert rules.phases == ("move", "throw")
    assert [p.name for p in rules.phase_steps] == ["move", "throw"]
    # the [usage] table, after the engine's own
    assert dict(rules.usage) == {
        "measure": "A B",
        "suggest": "[PHASE]",
        "move": "BRAWLER",
        "throw": "THROWER TARGET",
    }


def test_a_throw_at_nobody_is_refused_by_its_usage() -> None:
    # throw = "THROWER TARGET": one brawler named is refused before the action is asked.
    sc = scene(brawler("a", "red", 10), brawler("b", "blue", 15))
    with pytest.raises(QuestionError, match=r"throw takes 2 arguments \(throw THROWER TARGET\)"):
        ask(sc, "throw", "a")


def test_a_class_that_sets_data_and_its_id_too_is_refused_when_written() -> None:
    # `data` gives the id, the sheet, the fields and the phases: writing one of them again in
    # the class would be overwritten without a word, so the class is refused as it is made.
    with pytest.raises(TypeError, match="Brawl sets data and id: data gives them"):
        type("Brawl", (VillageBrawl,), {"data": VillageBrawl.data, "id": "brawl"})
