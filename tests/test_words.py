"""Words players use (issue 15): citations as the sheet's title and line, long odds as
percentages, "1 figure", one heading for suggestions - in every text answer of every example,
while the JSON keeps its fields (webui/words.py, `umpire resolve` text)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rules.engine import get_ruleset, load_scene
from webui.words import cite_words, plain, plain_lines, sheet_titles

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
HASH_NAME = re.compile(r"[0-9a-f]{16}\.txt")
LONG_FRACTION = re.compile(r"\b(\d+)/(\d+)\b")


def long_fractions(text: str) -> list[str]:
    return [m.group() for m in LONG_FRACTION.finditer(text) if len(m[1]) + len(m[2]) > 6]


def test_the_sheets_index_gives_every_sheet_a_title() -> None:
    titles = sheet_titles()
    assert len(titles) == 5
    assert titles["000_157c880a83b52d41.txt"] == "19th Century rules: QRS"
    assert cite_words("see 000_157c880a83b52d41.txt:41") == "see 19th Century rules: QRS, line 41"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("all 1 figures fire", "1 figure fire"),
        ("takes 1 shock points", "takes 1 shock point"),
        ("rifles-1 stands in the open", "rifles-1 stands in the open"),
        ("2 figures", "2 figures"),
        ("P = 15233835756083/50779978334208", "P = 30.0%"),
        ("5/8 a die", "5/8 a die"),
        ("P(at least 1 hit) = 4015/4096", "P(at least 1 hit) = 98.0%"),
    ],
)
def test_plain_words(text: str, expected: str) -> None:
    assert plain(text) == expected


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_no_hash_name_or_long_fraction_in_any_text_answer(path: Path) -> None:
    scene = load_scene(path)
    ruleset = get_ruleset(scene.ruleset)
    suggest = ruleset.resolve(scene, "suggest", [])
    text = plain_lines("suggest", suggest.data, suggest.lines)
    assert re.fullmatch(r"\d+ suggestions? for every phase", text[0]), text[0]
    asked = {"suggest"}
    answers = ["\n".join(text)]
    for item in suggest.data["items"]:
        answers.append(plain(item["summary"]))
        if item["kind"] in asked or item["kind"] not in ruleset.actions():
            continue
        asked.add(item["kind"])
        resolved = ruleset.resolve(scene, item["kind"], item["args"])
        answers.append("\n".join(plain_lines(item["kind"], resolved.data, resolved.lines)))
    for answer in answers:
        assert not HASH_NAME.search(answer), answer
        assert long_fractions(answer) == [], answer


def test_umpire_resolve_text_says_the_sheet_and_line_and_json_keeps_its_fields() -> None:
    scene = ROOT / "examples" / "skirmish.json"
    run = [sys.executable, "-m", "webui.cli", "resolve", str(scene), "shoot", "rifles", "zouaves"]
    text = subprocess.run(run, capture_output=True, text=True, check=True, timeout=60).stdout
    assert "[19th Century rules: QRS, line 10]" in text
    assert not HASH_NAME.search(text)
    raw = subprocess.run([*run, "--json"], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(raw.stdout)["weapon_source"] == "000_157c880a83b52d41.txt:10"
