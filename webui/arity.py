"""How many clicked pieces each action of a ruleset takes, worked out from what it declares.

The ruleset API gives each action as a callable `(scene, args)`; the arguments it takes are
declared where it checks them (`expect_args` and its kin): asked with no arguments, an action
says `shoot takes 2 arguments (shoot SHOOTER TARGET), got 0`. The usage in brackets is read
here: each upper-case name that is not a word the sheet chooses from (`[standard|mini]`) nor a
piece of terrain, a facing, a situation or a phase names a unit or base the player clicks.
`[NAME]` is optional; an action that answers with no arguments takes no click at all.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from rules.engine import Ruleset
from rules.errors import UmpireError
from rules.scene import Scene

NOT_PIECES = frozenset({"TERRAIN", "FACING", "SITUATION", "PHASE", "DIRECTION", "FORMATION"})
"""Argument names that are not a unit or base on the table (typed, not clicked)."""

NO_CLICKS = frozenset({"suggest"})
"""Actions the page asks in its own way (the suggestion list), not from clicks."""

_USAGE = re.compile(r"\((?P<usage>[\w-]+(?: [^()]*)?)\)")


@dataclass(frozen=True, slots=True)
class Arity:
    """An action and the clicks it takes: `least` to `most` units or bases, in order."""

    name: str
    least: int
    most: int
    usage: str


def arity_of(name: str, message: str) -> Arity | None:
    """The clicks an action takes, read off the usage its refusal of no arguments declares."""
    found = _USAGE.search(message)
    if found is None:
        return None
    words = found.group("usage").split()
    if not words or words[0] != name:
        return None
    least = most = 0
    for word in words[1:]:
        optional = word.startswith("[")
        bare = word.strip("[]").removesuffix("...").strip("[]")
        if "|" in bare or not bare.isupper() or bare in NOT_PIECES:
            continue
        if optional:
            most += 1
        else:
            least += 1
            most += 1
    return Arity(name, least, most, " ".join(words))


def arities(ruleset: Ruleset, scene: Scene) -> list[Arity]:
    """Every action of the ruleset the page offers from clicks, with the clicks it takes."""
    found = []
    for name in ruleset.actions():
        if name in NO_CLICKS:
            continue
        try:
            ruleset.resolve(scene, name, [])
        except UmpireError as error:
            arity = arity_of(name, str(error))
            found.append(arity or Arity(name, 1, 2, name))
        else:
            found.append(Arity(name, 0, 0, name))  # answers for the whole table
    return found


def arities_json(ruleset: Ruleset, scene: Scene) -> list[dict[str, Any]]:
    return [asdict(a) for a in arities(ruleset, scene)]
