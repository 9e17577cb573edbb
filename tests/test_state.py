"""State as data (rules/state.py and the engine's use of it): declared fields checked and
completed when a scene is read, typos caught with "did you mean", every missing attribute of a
question named in one message, and outcomes settled from the players' reported dice.

A small ruleset written here, on top of skirmish-19c's actions, declares its own fields: the
engine's machinery is what is under test, not a sheet."""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from functools import partial
from typing import Any, ClassVar

import pytest

from rules.engine import Asked, Cite, get_ruleset, read_scene
from rules.errors import MissingAttribute, QuestionError, UnknownIdError, close_key
from rules.scene import Scene
from rules.state import (
    Change,
    Field,
    Kind,
    Report,
    Scope,
    bases_report,
    count_report,
    likeliest,
    removals,
)
from tests.builders import base, scene_doc, unit
from tests.golden import ROOT

SKIRMISH = type(get_ruleset("skirmish-19c"))
LINE = Cite("000_157c880a83b52d41.txt", 125, "Per 10% of group wounded or killed")


class Practice(SKIRMISH):  # type: ignore[misc, valid-type]
    """skirmish-19c's actions with a few fields of its own (not registered)."""

    unit_fields: ClassVar[tuple[Field, ...]] = (
        Field("casualties", Kind.COUNT, LINE, "figures lost", default=0),
        Field("fired", Kind.FLAG, LINE, "fired this turn", default=False, per_turn=True),
        Field(
            "status",
            Kind.CHOICE,
            LINE,
            "what the unit is doing",
            default="steady",
            choices=("steady", "running"),
        ),
        Field(
            "quality",
            Kind.CHOICE,
            LINE,
            "troops",
            choices=("raw", "veteran", "hero"),
            in_play=False,
        ),
        Field("heavy_armour", Kind.FLAG, LINE, "heavy armour", default=False, in_play=False),
    )

    outcomes = ("shoot",)

    def _shoot_form(self, asked: Asked) -> tuple[Report, ...]:
        target = asked.unit(1)
        return (
            Report("kills", Kind.COUNT, "figures killed", LINE, maximum=len(target.bases)),
            Report(
                "dead",
                Kind.BASES,
                "which figures",
                LINE,
                unit=target.id,
                bases=tuple(b.id for b in target.bases),
            ),
        )

    def _shoot_apply(self, asked: Asked, reported: Mapping[str, Any]) -> tuple[Change, ...]:
        target = asked.unit(1)
        lost = int(target.get("casualties")) + int(reported["kills"])
        return (
            Change(target.id, "casualties", lost, f"{reported['kills']} killed", LINE),
            Change(asked.args[0], "fired", True, "fired", LINE),
            *(Change(b, "removed", True, "killed", LINE, Scope.BASE) for b in reported["dead"]),
        )


RULES = Practice()


def _doc(**zouave_attrs: Any) -> dict[str, Any]:
    return scene_doc(
        "skirmish-19c",
        [
            unit(
                "rifles",
                "british",
                [base("rifles-1", 20, 20), base("rifles-2", 24, 20)],
                type="infantry",
                quality="veteran",
                weapon="rifle",
                commanded=True,
                loaded=True,
                moved=False,
                regular=True,
                casualties=0,
                formation="line",
            ),
            unit(
                "zouaves",
                "french",
                [base("zouaves-1", 20, 60), base("zouaves-2", 24, 60)],
                **zouave_attrs,
            ),
        ],
    )


def _scene(doc: dict[str, Any]) -> Scene:
    """The document read as the engine reads a scene, under `Practice`'s fields (the
    registered skirmish-19c's own fields set aside while the loader reads it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(SKIRMISH, "unit_fields", ())
        scene = read_scene(doc, "<test>")
    problems = RULES.problems(scene, doc)
    if problems:
        raise QuestionError("; ".join(f"{p}: {m}" for p, m in problems))
    return RULES.with_defaults(scene)


ZOUAVES = {"type": "infantry", "quality": "veteran", "weapon": "rifled-musket"}


def test_left_out_state_takes_its_start_of_game_value_and_is_noted() -> None:
    scene = _scene(_doc(**ZOUAVES))
    zouaves = scene.unit_of("zouaves")
    assert zouaves.get("casualties") == 0
    assert zouaves.get("fired") is False
    assert zouaves.get("status") == "steady"
    assert zouaves.defaulted == {"casualties", "fired", "status", "heavy_armour"}
    assert scene.unit_of("rifles").defaulted == {"fired", "status", "heavy_armour"}


def test_an_answer_names_the_defaults_it_assumed_for_its_units() -> None:
    scene = _scene(_doc(**ZOUAVES, casualties=2))
    answer = RULES.resolve(scene, "shoot", ["rifles", "zouaves"])
    assumed = {(a["unit"], a["field"]) for a in answer.data["defaults"]}
    assert ("zouaves", "casualties") not in assumed  # given
    assert ("zouaves", "status") in assumed
    assert ("rifles", "fired") in assumed
    assert "assumed at their start-of-game values" in answer.lines[-1]
    # measure reads no state, so it assumes nothing
    assert "defaults" not in RULES.resolve(scene, "measure", ["rifles", "zouaves"]).data


@pytest.mark.parametrize(
    ("key", "meant"),
    [("heavy_armor", "heavy_armour"), ("casualtes", "casualties"), ("Fired", "fired")],
)
def test_a_key_close_to_a_known_one_is_refused_with_did_you_mean(key: str, meant: str) -> None:
    with pytest.raises(QuestionError, match=f"did you mean '{meant}'"):
        _scene(_doc(**ZOUAVES, **{key: True}))


def test_free_keys_that_are_no_typo_are_kept() -> None:
    scene = _scene(_doc(**ZOUAVES, name="The 1st Zouaves", notes="painted 2019"))
    assert scene.unit_of("zouaves").get("name") == "The 1st Zouaves"


def test_every_bad_value_of_a_declared_field_is_named_at_once() -> None:
    with pytest.raises(QuestionError) as caught:
        _scene(_doc(type="infantry", quality="elite", weapon="rifle", status="dancing"))
    message = str(caught.value)
    assert "quality is 'elite'" in message and "'raw', 'veteran' or 'hero'" in message
    assert "status is 'dancing'" in message


def test_format_typos_in_files_are_caught_by_the_loader() -> None:
    doc = _doc(**ZOUAVES)
    doc["units"][0]["bases"][0]["widht"] = 3
    doc["units"][1]["casualtes"] = 1
    with pytest.raises(ValueError) as caught:
        read_scene(doc, "<test>")
    message = str(caught.value)  # a base's typo and a unit's, in one message
    assert "units[0].bases[0].widht: 'widht' is not a base key; did you mean 'width'?" in message
    assert "units[1].casualtes: 'casualtes' is not a skirmish-19c unit key" in message
    doc = _doc(**ZOUAVES)
    doc["unitz"] = []
    with pytest.raises(ValueError, match="did you mean 'units'"):
        read_scene(doc, "<test>")


def test_every_missing_attribute_of_a_question_is_named_in_one_message() -> None:
    # The registered skirmish-19c reads the shooter's type, quality and weapon: all three
    # missing are named together, not one run at a time.
    doc = _doc(**ZOUAVES)
    for key in ("type", "quality", "weapon"):
        del doc["units"][0][key]
    scene = read_scene(doc, "<test>")
    with pytest.raises(QuestionError) as caught:
        get_ruleset("skirmish-19c").resolve(scene, "shoot", ["rifles", "zouaves"])
    message = str(caught.value)
    assert not isinstance(caught.value, MissingAttribute)
    for key in ("quality", "weapon"):
        assert f"'rifles' has no '{key}'" in message


def test_one_missing_attribute_keeps_its_own_message() -> None:
    doc = _doc(**ZOUAVES)
    del doc["units"][0]["weapon"]
    with pytest.raises(MissingAttribute, match="unit 'rifles' has no 'weapon'; give one of"):
        get_ruleset("skirmish-19c").resolve(read_scene(doc, "<t>"), "shoot", ["rifles", "zouaves"])


def test_settling_reported_dice_gives_the_changes_with_before_and_after() -> None:
    scene = _scene(_doc(**ZOUAVES, casualties=1))
    form = RULES.report_form(scene, "shoot", ["rifles", "zouaves"])
    assert [r.name for r in form] == ["kills", "dead"]
    outcome = RULES.settle(
        scene, "shoot", ["rifles", "zouaves"], {"kills": 2, "dead": ["zouaves-1"]}
    )
    assert [(c.target, c.field, c.value) for c in outcome.changes] == [
        ("zouaves", "casualties", 3),
        ("rifles", "fired", True),
        ("zouaves-1", "removed", True),
    ]
    assert outcome.lines[0].startswith("zouaves casualties 1 -> 3: 2 killed")
    assert outcome.lines[1].startswith("rifles fired no -> yes")


def test_a_change_to_the_value_a_field_has_now_is_left_out() -> None:
    # The rifles have fired already and the zouaves have lost 1 figure. No kills reported:
    # Practice's shoot still lists casualties 1 + 0 and fired true, and neither changes
    # anything. One kill: only the casualties change (1 -> 2).
    doc = _doc(**ZOUAVES, casualties=1)
    doc["units"][0]["fired"] = True
    scene = _scene(doc)
    outcome = RULES.settle(scene, "shoot", ["rifles", "zouaves"], {"kills": 0, "dead": []})
    assert outcome.changes == () and outcome.lines == ()
    outcome = RULES.settle(scene, "shoot", ["rifles", "zouaves"], {"kills": 1, "dead": []})
    assert [(c.target, c.field, c.value) for c in outcome.changes] == [("zouaves", "casualties", 2)]
    assert outcome.lines == ("zouaves casualties 1 -> 2: 1 killed (000_157c880a83b52d41.txt:125)",)


def test_a_bad_report_names_every_problem() -> None:
    scene = _scene(_doc(**ZOUAVES))
    with pytest.raises(QuestionError) as caught:
        RULES.settle(scene, "shoot", ["rifles", "zouaves"], {"kils": 1, "dead": ["rifles-1"]})
    message = str(caught.value)
    assert "unknown report 'kils' (did you mean 'kills'?)" in message
    assert "kills is missing" in message
    assert "dead is ['rifles-1']" in message
    with pytest.raises(QuestionError, match="a whole number from 0 to 2"):
        RULES.settle(scene, "shoot", ["rifles", "zouaves"], {"kills": 3, "dead": []})


def test_an_action_whose_result_changes_nothing_has_no_form() -> None:
    scene = _scene(_doc(**ZOUAVES))
    assert RULES.report_form(scene, "measure", ["rifles", "zouaves"]) == ()
    with pytest.raises(QuestionError, match="changes no state the sheet keeps"):
        RULES.settle(scene, "measure", ["rifles", "zouaves"], {})
    with pytest.raises(QuestionError, match="has no action 'fly'"):
        RULES.report_form(scene, "fly", [])


def test_a_change_to_a_description_or_an_unknown_field_is_refused() -> None:
    scene = _scene(_doc(**ZOUAVES))
    with pytest.raises(QuestionError, match="describes the troops"):
        RULES.check_change(scene, Change("zouaves", "quality", "raw", "promoted"))
    with pytest.raises(QuestionError, match="did you mean 'casualties'"):
        RULES.check_change(scene, Change("zouaves", "casualtes", 1, "typo"))
    with pytest.raises(QuestionError, match="accepted: 'steady' or 'running'"):
        RULES.check_change(scene, Change("zouaves", "status", "dancing", "?"))


def test_a_change_of_a_base_or_of_the_game_is_checked_against_its_fields() -> None:
    # A base's state is a flag (removed, held); the game's is its turn (from 1), its phase
    # (skirmish-19c's six, lines 84-89) and the side with the initiative. Set by hand.
    scene = _scene(_doc(**ZOUAVES))
    by_hand = partial(RULES.check_change, scene, by_hand=True)
    by_hand(Change("zouaves-1", "held", True, "hidden", scope=Scope.BASE))
    by_hand(Change("game", "turn", 2, "a new turn", scope=Scope.GAME))
    with pytest.raises(QuestionError, match="'gone' is not a base field; fields: 'removed'"):
        by_hand(Change("zouaves-1", "gone", True, "?", scope=Scope.BASE))
    with pytest.raises(QuestionError, match="removed is 1; accepted: true or false"):
        by_hand(Change("zouaves-1", "removed", 1, "?", scope=Scope.BASE))
    with pytest.raises(QuestionError, match="turn is 0; accepted: a whole number from 1"):
        by_hand(Change("game", "turn", 0, "?", scope=Scope.GAME))
    with pytest.raises(QuestionError, match="phase is 'lunch'; accepted: 'command', 'move-a'"):
        by_hand(Change("game", "phase", "lunch", "?", scope=Scope.GAME))
    with pytest.raises(UnknownIdError, match="no base with id 'zouaves-9'"):
        by_hand(Change("zouaves-9", "removed", True, "?", scope=Scope.BASE))


def test_the_dice_change_only_removed_bases_and_the_initiative() -> None:
    # What an outcome may change of a base and the game: the turn and the phase move with the
    # sequence of play (which resets the per-turn fields), `held` only by hand.
    scene = _scene(_doc(**ZOUAVES))
    RULES.check_change(scene, Change("zouaves-1", "removed", True, "killed", scope=Scope.BASE))
    RULES.check_change(scene, Change("game", "initiative", "french", "won", scope=Scope.GAME))
    with pytest.raises(QuestionError, match=r"'held' is not a base field; fields: 'removed'$"):
        RULES.check_change(scene, Change("zouaves-1", "held", True, "?", scope=Scope.BASE))
    for name, value in (("turn", 2), ("phase", "melee")):
        with pytest.raises(QuestionError, match=f"'{name}' is not a game field; fields: 'initi"):
            RULES.check_change(scene, Change("game", name, value, "?", scope=Scope.GAME))


def test_removals_take_each_base_off_and_likeliest_is_the_lowest_most_likely_count() -> None:
    cite = Cite("x.txt", 3, "killed")
    assert removals(["a-1", "a-2"], "killed", cite) == (
        Change("a-1", "removed", True, "killed", cite, Scope.BASE),
        Change("a-2", "removed", True, "killed", cite, Scope.BASE),
    )
    assert removals([], "killed", None) == ()
    assert likeliest([0.25, 0.5, 0.25]) == 1
    assert likeliest([0.4, 0.2, 0.4]) == 0
    assert likeliest([1]) == 0


def test_close_keys() -> None:
    known = ["width", "depth", "facing", "units"]
    assert close_key("widht", known) == "width"
    assert close_key("facng", known) == "facing"
    assert close_key("unitz", known) == "units"
    assert close_key("unitz", [*known, "unit"]) == "units"
    assert close_key("heavy_armor", ["heavy_armour", "armour"]) == "heavy_armour"
    assert close_key("name", known) is None
    assert close_key("notes", known) is None
    assert close_key("width", known) is None  # a known key is no typo of another


def test_a_game_file_typo_is_refused_with_did_you_mean(tmp_path: Any) -> None:
    from vision.game import GameError, load_game

    text = (ROOT / "examples" / "games" / "skirmish.toml").read_text(encoding="utf-8")
    for wrong, meant, near in (
        ("[[units]]", "[[unitz]]", "units"),
        ('weapon = "rifle"', 'weapon = "rifle"\nwepon = "rifle"', "weapon"),
        ("width = 2.5", "width = 2.5, widht = 2.5", "width"),
    ):
        path = tmp_path / "game.toml"
        path.write_text(text.replace(wrong, meant, 1), encoding="utf-8")
        with pytest.raises(GameError, match=f"did you mean '{near}'"):
            load_game(path)


def test_the_same_problem_on_many_units_is_said_once_with_its_places() -> None:
    from tests.builders import make_scene

    units = [
        unit(f"u{i}", "red", [base(f"b{i}", 10 * i + 10, 10)], type="active", arm="infantry")
        for i in range(6)
    ]
    with pytest.raises(ValueError) as caught:
        make_scene("sepoys-and-soldiers", units)
    message = str(caught.value)
    assert message.count("arm is 'infantry'") == 1
    assert "units[0].arm: arm is 'infantry'; accepted: 'foot'" in message
    assert "(also at units[1].arm, units[2].arm, units[3].arm and 2 more)" in message


def test_a_refused_question_has_nothing_to_report_and_settling_it_says_why() -> None:
    # On the colonial demo the riflemen's muskets cannot reach the rifles (22.7", line 86):
    # the answer says so (allowed: false), the form asks nothing, and settling it names why.
    from rules.engine import load_scene
    from vision.demo import demo_files

    scene = load_scene(demo_files("colonial-adventure")[1])
    rules = get_ruleset("colonial-adventure")
    assert rules.resolve(scene, "shoot", ["riflemen", "rifles"]).data["allowed"] is False
    assert rules.report_form(scene, "shoot", ["riflemen", "rifles"]) == ()
    with pytest.raises(QuestionError, match="a musket cannot reach"):
        rules.settle(scene, "shoot", ["riflemen", "rifles"], {})


def test_a_count_report_asks_at_most_the_dice_and_shows_the_likeliest_first() -> None:
    # 2 dice needing 4+ on a D6: 0 successes 1/4, 1 success 1/2, 2 successes 1/4
    dist = (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    hits = count_report("hits", "hits: 4+", LINE, dist)
    assert (hits.kind, hits.maximum, hits.default, hits.cite) == (Kind.COUNT, 2, 1, LINE)
    # a count read off fewer dice than the form allows (saves rolled for the hits)
    assert count_report("saved", "saves", None, dist, most=5).maximum == 5
    # equal chances: the lowest count first
    assert count_report("n", "n", None, (0.5, 0.5)).default == 0


def test_a_bases_report_names_the_units_bases_and_shows_its_last_ones_first() -> None:
    bases = [base(f"a-{i}", 10 * i, 10) for i in (1, 2, 3)]
    doc = scene_doc("skirmish-19c", [unit("a", "red", bases, type="infantry", quality="veteran")])
    three = read_scene(doc, "<bases>").unit_of("a")
    report = bases_report("removed", "bases of a taken off", LINE, three, likely=2)
    assert (report.kind, report.unit, report.bases) == (Kind.BASES, "a", ("a-1", "a-2", "a-3"))
    assert (report.maximum, report.default) == (3, ("a-2", "a-3"))
    # never more than the unit has, and nothing shown when nothing is likely
    assert bases_report("r", "r", None, three, most=5, likely=7).default == ("a-1", "a-2", "a-3")
    assert bases_report("r", "r", None, three, most=5, likely=7).maximum == 3
    assert bases_report("r", "r", None, three, most=1).default == ()
    assert bases_report("r", "r", None, three, most=1).maximum == 1


@pytest.mark.parametrize(
    ("value", "most", "fits"),
    [
        (["a-3", "a-1"], None, True),
        ([], 1, True),
        (["a-1", "a-2", "a-3"], None, True),
        (["a-1", "a-2"], 1, False),  # more than the dice allow
        (["a-1", "a-1"], None, False),  # one base twice
        (["a-1"] * 5000, None, False),  # quoted short
        (["b-1"], None, False),  # not a base of the unit
        ("a-1", None, False),  # a base, but not a list of them
        ([["a-1"]], None, False),  # a list in the list: no base, and no set can hold it
    ],
)
def test_a_bases_report_takes_distinct_bases_of_its_unit_up_to_its_most(
    value: Any, most: int | None, fits: bool
) -> None:
    report = Report("removed", Kind.BASES, "bases lost", unit="a", bases=("a-1", "a-2", "a-3"))
    report = report if most is None else replace(report, maximum=most)
    problem = report.check(value)
    if fits:
        assert problem is None
    else:
        most_said = "" if most is None else f" (at most {most})"
        bases = "a list of bases of a from 'a-1', 'a-2' or 'a-3'"
        assert problem == f"removed is {reprlib.repr(value)}; accepted: {bases}{most_said}"
        assert len(problem) < 200


@pytest.mark.parametrize(
    ("field", "said"),
    [
        (dict(kind=Kind.CHOICE), "a choice field needs its choices"),
        (dict(kind=Kind.BASES), "a unit field cannot hold bases"),
        (dict(kind=Kind.COUNT, default=-1), "the default shock is -1; accepted: a whole number"),
        (dict(kind=Kind.CHOICE, choices=("steady",), default="shaken"), "the default shock is"),
        (dict(kind=Kind.FLAG, default=0), "the default shock is 0; accepted: true or false"),
        (dict(kind=Kind.COUNT, per_turn=True), "a per-turn field needs a default"),
    ],
)
def test_a_field_a_ruleset_cannot_read_is_refused_as_it_is_declared(
    field: dict[str, Any], said: str
) -> None:
    with pytest.raises(ValueError, match=f"field 'shock': {said}"):
        Field("shock", cite=LINE, label="shock points", **field)
