"""Citations, odds and counts in the words players use.

The rules cite a line of a sheet as `000_157c880a83b52d41.txt:41` (a `Cite`'s file and line)
and give odds as exact fractions; people say "19th Century rules: QRS, line 41" and "62.5%".
`sheet_titles` reads the sheets' own index (the table of `rules/sheets/README.md`: file, title
on the sheet) and `sheet_lines` a sheet's lines, for the page; `cite_words` turns a citation
into words;
`plain` rewrites a sentence of an answer (citations, long fractions, "1 figures"), and
`plain_lines` a whole text answer, with one heading for every ruleset's suggestions. The JSON
answers keep their fields: only the text people read changes. It is how the page and the
command line word what the rules answer, so it lives here, not in `rules/`; `ruleset_info` is
what both show of a ruleset. Pure: reads the
sheets (`rules/sheets/`), nothing else; never imports flask.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import rules
from rules.engine import get_ruleset

SHEETS = Path(rules.__file__).resolve().parent / "sheets"

CITE = re.compile(r"\b(?P<sheet>\d{3}_[0-9a-f]{16}\.txt):(?P<line>\d+)\b")
"""A citation as the rules write it: the sheet's file name, a colon, the line."""

LONG_FRACTION = re.compile(r"(?<![\w/.])(?P<num>\d+)/(?P<den>\d+)(?![\w/])")

SHORT_FRACTION = 4
"""Digits (numerator and denominator) of the longest fraction kept as it is (`5/8`, `35/36`);
longer odds read as a percentage (`4015/4096` -> `98.0%`)."""

NOUNS = {
    "figures": "figure",
    "points": "point",
    "hits": "hit",
    "bases": "base",
    "kills": "kill",
    "wounds": "wound",
    "grazes": "graze",
    "casualties": "casualty",
    "dice": "die",
    "boxes": "box",
    "units": "unit",
    "turns": "turn",
    "rounds": "round",
    "men": "man",
    "stands": "stand",
    "models": "model",
    "actions": "action",
    "markers": "marker",
    "steps": "step",
}
"""Plural nouns the answers count, and their singular."""

ONE_OF = re.compile(
    r"(?<![\w.,/-])(?:all |each of )?1 (?P<adj>(?:[a-z]+ )?)(?P<noun>" + "|".join(NOUNS) + r")\b"
)

SUGGEST_HEAD = re.compile(
    r"^(?P<n>\d+) (?:suggestions?|resolutions?|things to resolve)\b(?P<rest>.*)$"
)


@cache
def sheet_titles() -> dict[str, str]:
    """{file name: title on the sheet}, from the sheets' index (rules/sheets/README.md)."""
    titles: dict[str, str] = {}
    index = SHEETS / "README.md"
    for row in index.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[1].endswith(".txt"):
            titles[cells[1]] = cells[2]
    return titles


@cache
def sheet_lines(sheet: str) -> tuple[str, ...]:
    """The lines of a sheet of `rules/sheets/` (none for a name that is not one)."""
    path = SHEETS / Path(sheet).name
    if not path.is_file():
        return ()
    return tuple(path.read_text(encoding="utf-8", errors="replace").splitlines())


def cite_words(ref: str) -> str:
    """`000_157c880a83b52d41.txt:41` -> `19th Century rules: QRS, line 41`; other text as is."""
    titles = sheet_titles()
    return CITE.sub(lambda m: f"{titles.get(m['sheet'], m['sheet'])}, line {m['line']}", ref)


def percent(p: Fraction | float) -> str:
    """A chance as players say it: `62.5%`, `0.01%`, `< 0.01%`, `100%`."""
    value = float(p) * 100
    if value == 0 or value == 100:
        return f"{value:.0f}%"
    if value < 0.01:
        return "< 0.01%"
    if value > 99.99:
        return "> 99.99%"
    return f"{value:.1f}%" if 1 <= value <= 99 else f"{value:.2f}%"


def _fraction(found: re.Match[str]) -> str:
    num, den = found["num"], found["den"]
    if len(num) + len(den) <= SHORT_FRACTION:
        return found.group()
    if int(den) == 0:
        return found.group()
    return percent(Fraction(int(num), int(den)))


def _one(found: re.Match[str]) -> str:
    return f"1 {found['adj']}{NOUNS[found['noun']]}"


def plain(text: str) -> str:
    """A sentence of an answer in players' words: citations as the sheet's title and line,
    fractions longer than `SHORT_FRACTION` digits as percentages, "1 figure" for "1 figures"."""
    text = cite_words(text)
    text = LONG_FRACTION.sub(_fraction, text)
    return ONE_OF.sub(_one, text)


def suggest_heading(data: Mapping[str, Any]) -> str:
    """One heading for every ruleset's suggestions: `12 suggestions for PHASE`."""
    items = data.get("items")
    n = len(items) if isinstance(items, Sequence) else 0
    phase = data.get("phase")
    where = f"for {phase}" if isinstance(phase, str) and phase else "for every phase"
    return f"{n} suggestion{'s' * (n != 1)} {where}"


def plain_lines(action: str, data: Mapping[str, Any], lines: Sequence[str]) -> list[str]:
    """A text answer in players' words; a `suggest` answer under the one heading."""
    out = list(lines)
    if action == "suggest":
        head = SUGGEST_HEAD.match(out[0]) if out else None
        if head is not None:  # the ruleset's own heading: what follows its `;` is kept
            more = head["rest"].lstrip()
            out = ([more.lstrip("; ")] if more.startswith(";") else []) + out[1:]
        out = [suggest_heading(data), *out]
    return [plain(line) for line in out]


def ruleset_info(ident: str) -> dict[str, Any]:
    """What `umpire rulesets` and the page show of a ruleset: id, title, sheet, unit, grid and
    actions."""
    rs = get_ruleset(ident)
    info = {"id": rs.id, "title": rs.title, "sheet": rs.sheet, "unit": rs.unit, "grid": rs.grid}
    return {**info, "actions": list(rs.actions())}
