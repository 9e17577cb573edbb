"""Sheet data files (rules/sheetdata.py): tables read from TOML, every `{line, quote}` a Cite."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.answer import Cite
from rules.errors import MissingAttribute, QuestionError
from rules.scene import Unit
from rules.sheetdata import SheetDataError, load_sheet, load_sheet_data
from rules.state import Kind


def test_a_line_and_a_quote_become_a_cite_of_the_sheet(tmp_path: Path) -> None:
    path = tmp_path / "sheet.toml"
    path.write_text(
        'move = 25\ncite = { line = 107, quote = "Foot Figures may move" }\n'
        '[[to_hit]]\nband = "short"\nneed = [2, 4, 6]\n'
        'cite = { line = 41, quote = "Short Range" }\n',
        encoding="utf-8",
    )
    data = load_sheet_data(path, "000_157c880a83b52d41.txt")
    assert data["move"] == 25
    assert data["cite"] == Cite("000_157c880a83b52d41.txt", 107, "Foot Figures may move")
    assert data["to_hit"] == [
        {
            "band": "short",
            "need": [2, 4, 6],
            "cite": Cite("000_157c880a83b52d41.txt", 41, "Short Range"),
        }
    ]


@pytest.mark.parametrize(
    "text", ['cite = { line = "41", quote = "x" }', 'cite = { line = 41, quote = "" }', "a = [1"]
)
def test_a_broken_data_file_says_so(tmp_path: Path, text: str) -> None:
    path = tmp_path / "sheet.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SheetDataError, match=r"sheet\.toml"):
        load_sheet_data(path, "x.txt")


SHEET_TOML = """
[cite]
move = { line = 10, quote = "Brawlers move up to 6 inches a turn." }

[words]
weapons = ["club", "bottle"]

[[fields]]
name = "weapon"
kind = "choice"
label = "weapon"
choices = ["fists"]
words = ["weapons"]
in_play = false
cite = { line = 12, quote = "Brawlers fight with what they hold" }

[[phases]]
name = "move"
title = "Brawlers move"
cite = { line = 10, quote = "Brawlers move up to 6 inches a turn." }

[[phases]]
name = "throw"
title = "The side that won throws"
acting = "first"
cite = { line = 14, quote = "A brawler may throw" }

[texts]
moves = "{unit} moves {inches} inches [{cite[move]}]\\nthen stops"

[refusals]
dazed = "{id}: {unit!r} is dazed ({cite[move]})"
"""


def test_a_sheet_gives_its_fields_phases_texts_and_refusals(tmp_path: Path) -> None:
    path = tmp_path / "sheet.toml"
    path.write_text(SHEET_TOML, encoding="utf-8")
    sheet = load_sheet(path, "x.txt", "village-brawl", names=["cite"])
    assert sheet["words"] == {"weapons": ["club", "bottle"]}
    (weapon,) = sheet.fields
    # its own choice first, then the words of the list it names
    assert (weapon.name, weapon.kind, weapon.choices) == (
        "weapon",
        Kind.CHOICE,
        ("fists", "club", "bottle"),
    )
    assert (weapon.in_play, weapon.default, weapon.cite.line) == (False, None, 12)
    # a phase with no `acting` is every side's
    assert [(p.name, p.title, p.acting, p.cite.line) for p in sheet.phases] == [
        ("move", "Brawlers move", "all", 10),
        ("throw", "The side that won throws", "first", 14),
    ]
    # `name` is a blank like any other: the text's own name is positional
    assert sheet.say("moves", unit="a", inches=6) == "a moves 6 inches [x.txt:10]\nthen stops"
    assert sheet.lines("moves", unit="a", inches=6) == ["a moves 6 inches [x.txt:10]", "then stops"]
    error = sheet.refusal("dazed", unit="a")
    assert isinstance(error, QuestionError)
    assert str(error) == "village-brawl: 'a' is dazed (x.txt:10)"


READ_FIELDS = """
[[fields]]
name = "weapon"
kind = "choice"
label = "weapon"
choices = ["fists", "club", "bottle"]
cite = { line = 12, quote = "Brawlers fight with what they hold" }

[[fields]]
name = "dazed"
kind = "flag"
label = "dazed"
default = false
cite = { line = 10, quote = "Brawlers move up to 6 inches a turn." }

[[fields]]
name = "bruises"
kind = "count"
label = "bruises"
default = 0
cite = { line = 10, quote = "Brawlers move up to 6 inches a turn." }

[[fields]]
name = "nickname"
kind = "text"
label = "nickname"
cite = { line = 10, quote = "Brawlers move up to 6 inches a turn." }
"""


def test_a_declared_field_reads_as_its_kind_or_is_named_missing(tmp_path: Path) -> None:
    path = tmp_path / "sheet.toml"
    path.write_text(READ_FIELDS, encoding="utf-8")
    sheet = load_sheet(path, "x.txt", "village-brawl")
    given = Unit("a", "red", (), attrs={"weapon": "club", "dazed": 1, "bruises": "2"})
    # a flag as true or false, a count as a whole number, a choice as its word
    assert sheet.read(given, "dazed") is True
    assert sheet.read(given, "bruises") == 2
    assert sheet.read(given, "weapon") == "club"
    # a rule that accepts fewer of the field's words refuses the others, naming those it takes
    with pytest.raises(QuestionError) as raised:
        sheet.read(given, "weapon", ("fists", "bottle"))
    assert str(raised.value) == (
        "village-brawl: unit 'a' has weapon 'club'; accepted values are 'fists' or 'bottle'"
    )
    # a missing one is a MissingAttribute: what it accepts, and the value standing in for it
    bare = Unit("b", "red", ())
    for name, says, stand_in in (
        ("dazed", "give true or false", False),
        ("bruises", "give a whole number from 0", 0),
        ("weapon", "give one of 'fists', 'club' or 'bottle'", "fists"),
        ("nickname", "give a text", ""),
    ):
        with pytest.raises(MissingAttribute) as missing:
            sheet.read(bare, name)
        assert str(missing.value) == f"village-brawl: unit 'b' has no {name!r}; {says}"
        assert missing.value.placeholder == stand_in
    with pytest.raises(MissingAttribute, match="give one of 'bottle'") as missing:
        sheet.read(bare, "weapon", ("bottle",))
    assert missing.value.placeholder == "bottle"
    # a text reads as given; fewer words are a choice's alone (a mistake in the ruleset)
    assert sheet.read(Unit("c", "red", (), attrs={"nickname": "Red Tom"}), "nickname") == "Red Tom"
    with pytest.raises(ValueError, match="dazed is a flag field"):
        sheet.read(given, "dazed", ("true",))


def test_two_enemies_are_different_units_of_different_sides(tmp_path: Path) -> None:
    path = tmp_path / "sheet.toml"
    enemies = (
        '[refusals]\nsame-side = "{id}: {action}: {a!r} and {b!r} are both of side {side!r}"\n'
    )
    path.write_text(enemies, encoding="utf-8")
    sheet = load_sheet(path, "x.txt", "village-brawl")
    red, red_too, blue = Unit("r1", "red", ()), Unit("r2", "red", ()), Unit("b1", "blue", ())
    assert sheet.enemies(red, blue, action="throw") == (red, blue)
    with pytest.raises(QuestionError) as raised:
        sheet.enemies(red, red_too, action="throw")
    assert str(raised.value) == "village-brawl: throw: 'r1' and 'r2' are both of side 'red'"
    # a sheet that does not word `same-unit` refuses the same unit twice as one side
    with pytest.raises(QuestionError, match="'r1' and 'r1' are both of side 'red'"):
        sheet.enemies(red, red, action="throw")
    # one that does says so; a blank given names what the question named (a base)
    path.write_text(enemies + 'same-unit = "{id}: {a!r} is {b!r}"\n', encoding="utf-8")
    sheet = load_sheet(path, "x.txt", "village-brawl")
    with pytest.raises(QuestionError) as raised:
        sheet.enemies(red, red, a="r1-base", action="throw")
    assert str(raised.value) == "village-brawl: 'r1-base' is 'r1'"


@pytest.mark.parametrize(
    ("wrong", "right", "said"),
    [
        # a misspelt key of a phase (it used to be dropped, and the phase was every side's)
        ('acting = "first"', 'acitng = "first"', "[[phases]] row 2: unknown key 'acitng'"),
        # a phase with no title
        ('title = "Brawlers move"', "", "[[phases]] row 1: missing key 'title'"),
        # a misspelt key of a field
        ("in_play = false", "in_paly = false", "[[fields]] row 1: unknown key 'in_paly'"),
    ],
)
def test_a_sheet_row_with_a_wrong_key_is_refused_naming_the_row_and_its_keys(
    tmp_path: Path, wrong: str, right: str, said: str
) -> None:
    path = tmp_path / "sheet.toml"
    path.write_text(SHEET_TOML.replace(wrong, right, 1), encoding="utf-8")
    with pytest.raises(SheetDataError) as raised:
        load_sheet(path, "x.txt", "village-brawl", names=["cite"])
    message = str(raised.value)
    assert message.startswith(f"sheet data sheet.toml {said}; its keys are ")
    keys = message.split("its keys are ")[1].split(", ")
    # the dataclass's fields, and a field row's lists of words
    expected = {"[[phases]]": ["acting", "cite", "name", "title"]}
    field_keys = ["choices", "cite", "default", "in_play", "kind", "label", "name", "per_turn"]
    assert keys == expected.get(said.split(" row")[0], sorted([*field_keys, "words"]))
