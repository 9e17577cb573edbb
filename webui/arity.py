"""How many clicked pieces each action of a ruleset takes, worked out from what it declares.

Each action's usage is declared once (`Ruleset.usage`: `shoot = "SHOOTER TARGET"` in the
sheet's `[usage]` table). Each upper-case name that is not a word the sheet chooses from
(`[standard|mini]`) nor a piece of terrain, a facing, a situation or a phase names a unit or
base the player clicks; `[NAME]` is optional. An action that takes no arguments takes no click
at all: it answers for the whole table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from rules.engine import Ruleset

NOT_PIECES = frozenset({"TERRAIN", "FACING", "SITUATION", "PHASE", "DIRECTION", "FORMATION"})
"""Argument names that are not a unit or base on the table (typed, not clicked)."""

NO_CLICKS = frozenset({"suggest"})
"""Actions the page asks in its own way (the suggestion list), not from clicks."""


@dataclass(frozen=True, slots=True)
class Arity:
    """An action and the clicks it takes: `least` to `most` units or bases, in order."""

    name: str
    least: int
    most: int
    usage: str


def arity_of(name: str, usage: str) -> Arity:
    """The clicks the action `name` takes, counted in its declared usage (`UNIT [FACING]`)."""
    least = most = 0
    for word in usage.split():
        optional = word.startswith("[")
        bare = word.strip("[]").removesuffix("...")
        if "|" in bare or not bare.isupper() or bare in NOT_PIECES:
            continue
        if optional:
            most += 1
        else:
            least += 1
            most += 1
    return Arity(name, least, most, " ".join([name, *usage.split()]))


def arities(ruleset: Ruleset) -> list[Arity]:
    """Every action of the ruleset the page offers from clicks, with the clicks it takes."""
    return [
        arity_of(name, ruleset.usage[name]) for name in ruleset.actions() if name not in NO_CLICKS
    ]


def arities_json(ruleset: Ruleset) -> list[dict[str, Any]]:
    return [asdict(a) for a in arities(ruleset)]
