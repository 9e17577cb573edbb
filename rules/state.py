"""What a ruleset reads of a unit beyond its bases, and what the dice do to it: state as data.

A ruleset declares every unit attribute it reads as a `Field` (its name, kind, accepted values,
default and the sheet line it comes from). Fields that change in play (`casualties`, `loaded`,
`formation`...) are the game's *state*: the server keeps them for every unit and the page edits
them. Fields with a default are start-of-game state (counts at 0, flags false) and may be left
out of a scene or a game file; fields with no default describe the troops (`type`, `quality`,
`weapon`) and must be given where a rule reads them.

After a resolution the players roll real dice and tell the ruleset what they showed, in the
sheet's own terms, through the `Report`s of the action's form; the ruleset answers with the
`Change`s of state those dice lead to (`Outcome`). Nothing here rolls a die or stores a state:
the server applies the changes and logs them.

Pure: never imports numpy, cv2, flask or `vision`.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from .errors import QuestionError, accepted, close_key

if TYPE_CHECKING:
    from .answer import Cite
    from .scene import Unit


class Kind(StrEnum):
    """What sort of value a field or a report holds."""

    COUNT = "count"
    """A whole number from 0 (casualties, shock points, hits)."""
    FLAG = "flag"
    """true or false (loaded, disordered)."""
    CHOICE = "choice"
    """One of a closed set of the sheet's words (formation, status)."""
    TEXT = "text"
    """A free name (a platoon's name); only fields have it."""
    BASES = "bases"
    """Some bases of one unit, by id (the figures killed); only reports have it."""


@dataclass(frozen=True, slots=True)
class Field:
    """One attribute of a unit that a ruleset reads (besides its bases and side)."""

    name: str
    """The key in a scene or game file (`casualties`, `formation`)."""
    kind: Kind
    cite: Cite
    """The sheet line that makes the rules read it."""
    label: str
    """What players call it (`figures lost`), for the page."""
    default: int | bool | str | None = None
    """Its value at the start of a game, used when a file leaves it out; None: it describes the
    troops and must be given wherever a rule reads it."""
    choices: tuple[str, ...] = ()
    """The accepted words of a `CHOICE` field."""
    in_play: bool = True
    """Changes during the game (the page edits it); False for a description (`type`)."""
    per_turn: bool = False
    """Goes back to its default at the start of each turn (`fired` this turn)."""

    def __post_init__(self) -> None:
        if self.kind is Kind.CHOICE and not self.choices:
            raise ValueError(f"field {self.name!r}: a choice field needs its choices")
        if self.kind is Kind.BASES:
            raise ValueError(f"field {self.name!r}: a unit field cannot hold bases")
        problem = None if self.default is None else self.check(self.default, "the default")
        if problem:
            raise ValueError(f"field {self.name!r}: {problem}")
        if self.per_turn and self.default is None:
            raise ValueError(f"field {self.name!r}: a per-turn field needs a default")

    def check(self, value: Any, where: str) -> str | None:
        """None when `value` is one this field accepts, else what is wrong (for a message)."""
        problem = _problem(self.name, self.kind, value, self.choices)
        return None if problem is None else f"{where} {problem}"


@dataclass(frozen=True, slots=True)
class Report:
    """One thing the players read off their dice after a resolution, in the sheet's words."""

    name: str
    """The key of the reported value (`kills`, `winner`, `row`)."""
    kind: Kind
    label: str
    """The question as the page asks it: `figures killed (a 5 or 6 on the damage die)`."""
    cite: Cite | None = None
    choices: tuple[str, ...] = ()
    """The accepted words of a `CHOICE` report."""
    maximum: int | None = None
    """The most a `COUNT` report may be (the dice thrown), or of a `BASES` report's bases."""
    unit: str | None = None
    """The unit whose bases a `BASES` report names."""
    bases: tuple[str, ...] = ()
    """The bases a `BASES` report may name."""
    default: int | bool | str | tuple[str, ...] | None = None
    """What the form shows first (the likeliest reading); the players change it."""

    def check(self, value: Any) -> str | None:
        """None when `value` is one this report accepts, else what is wrong."""
        if self.kind is not Kind.BASES:
            return _problem(self.name, self.kind, value, self.choices, self.maximum)
        # `in` the bases before `set`: a list in the list is no base, and cannot be hashed.
        named = isinstance(value, list) and all(v in self.bases for v in value)
        # Distinct bases of the unit are never more than its bases: only a maximum limits them.
        distinct = named and len(set(value)) == len(value)
        if distinct and (self.maximum is None or len(value) <= self.maximum):
            return None
        most = "" if self.maximum is None else f" (at most {self.maximum})"
        return (
            f"{self.name} is {reprlib.repr(value)}; accepted: a list of bases of {self.unit} "
            f"from {accepted(self.bases)}{most}"
        )


def _problem(
    name: str, kind: Kind, value: Any, choices: Sequence[str], maximum: int | None = None
) -> str | None:
    """What is wrong with `value` for the field or report `name` of `kind` (a count of at most
    `maximum`, a choice of `choices`), or None when it is accepted. The value is quoted short
    (`reprlib`): a scene may nest a list thousands deep where a flag should be."""
    if kind is Kind.COUNT:
        # `type`, not `isinstance`: to Python true and false are ints, but they count nothing.
        if type(value) is not int or value < 0 or (maximum is not None and value > maximum):
            top = "" if maximum is None else f" to {maximum}"
            return f"{name} is {reprlib.repr(value)}; accepted: a whole number from 0{top}"
    elif kind is Kind.FLAG:
        if not isinstance(value, bool):
            return f"{name} is {reprlib.repr(value)}; accepted: true or false"
    elif kind is Kind.CHOICE:
        if value not in choices:
            return f"{name} is {reprlib.repr(value)}; accepted: {accepted(choices)}"
    elif not isinstance(value, str) or not value:
        return f"{name} is {reprlib.repr(value)}; accepted: a name (text)"
    return None


class Scope(StrEnum):
    """What a change of state applies to."""

    UNIT = "unit"
    BASE = "base"
    GAME = "game"


BASE_FIELDS: Final = ("removed", "held")
"""State of a single base, true or false, that every ruleset shares: `removed` (taken off the
table, killed or routed: the rules stop counting it) and `held` (hidden from the camera for
long, inside a building: kept where it was last seen)."""
GAME_FIELDS: Final = ("turn", "phase", "initiative")
"""The game's own state: the turn, the phase of the sheet's sequence of play, and the side that
has the initiative (acts first), for the sheets that dice for it."""
HAND_FIELDS: Final = {Scope.BASE: BASE_FIELDS, Scope.GAME: GAME_FIELDS}
"""What may be set by hand of a base and of the game: all of their fields."""
RULED_FIELDS: Final = {Scope.BASE: ("removed",), Scope.GAME: ("initiative",)}
"""What the dice of an action may change of a base and of the game. `held`, the turn and the
phase change only by hand or with the sequence of play, which resets what a new turn resets."""


@dataclass(frozen=True, slots=True)
class Change:
    """One change of state an outcome leads to: `target`'s `field` becomes `value`."""

    target: str
    """A unit id, a base id (scope BASE) or `game`."""
    field: str
    value: Any
    reason: str
    """Why, in the sheet's words: `2 killed`."""
    cite: Cite | None = None
    scope: Scope = Scope.UNIT


def removals(bases: Iterable[str], why: str, cite: Cite | None) -> tuple[Change, ...]:
    """Each base (by id) taken off the table: a `removed` change of scope BASE."""
    return tuple(Change(b, "removed", True, why, cite, Scope.BASE) for b in bases)


def likeliest(dist: Sequence[Any]) -> int:
    """The most likely count of a distribution (the lowest of equals): what a form shows first."""
    return max(range(len(dist)), key=lambda k: (dist[k], -k))


def count_report(
    name: str, label: str, cite: Cite | None, dist: Sequence[Any], most: int | None = None
) -> Report:
    """How many dice did something (hit, succeeded, failed), as the players read it off the
    table: at most the last count of the distribution `dist` (or `most`); first shown, the
    likeliest."""
    top = len(dist) - 1 if most is None else most
    return Report(name, Kind.COUNT, label, cite, maximum=top, default=likeliest(dist))


def bases_report(
    name: str, label: str, cite: Cite | None, unit: Unit, most: int | None = None, likely: int = 0
) -> Report:
    """Which bases of `unit` the players take off, at most `most` (every base when None); first
    shown: its last `likely` bases."""
    bases = tuple(b.id for b in unit.bases)
    top = len(bases) if most is None else min(most, len(bases))
    shown = bases[len(bases) - min(likely, len(bases)) :] if likely > 0 else ()
    return Report(
        name, Kind.BASES, label, cite, maximum=top, unit=unit.id, bases=bases, default=shown
    )


@dataclass(frozen=True, slots=True)
class Outcome:
    """The changes of state that the dice the players reported lead to."""

    action: str
    args: tuple[str, ...]
    reported: Mapping[str, Any]
    changes: tuple[Change, ...]
    lines: tuple[str, ...]
    """The readable account, one sentence a line."""


def check_reported(reports: Sequence[Report], reported: Mapping[str, Any], what: str) -> None:
    """Every reported value accepted by its report, none missing, none unknown; else one
    `QuestionError` naming every problem."""
    known = {r.name: r for r in reports}
    problems = []
    for name in reported:
        if name not in known:
            near = close_key(name, known)
            problems.append(
                f"unknown report {name!r}" + (f" (did you mean {near!r}?)" if near else "")
            )
    for report in reports:
        if report.name not in reported:
            problems.append(f"{report.name} is missing ({report.label})")
        elif problem := report.check(reported[report.name]):
            problems.append(problem)
    if problems:
        asks = ", ".join(r.name for r in reports) or "nothing"
        raise QuestionError(f"{what}: {'; '.join(problems)} (the form asks for: {asks})")


@dataclass(frozen=True, slots=True)
class Phase:
    """One step of a sheet's sequence of play, explained for the page."""

    name: str
    """The short name `suggest PHASE` takes (`shoot-a`)."""
    title: str
    """What happens, in players' words: `Side A shoots`."""
    acting: str
    """Who acts, as a label of `Ruleset.side_groups` (`A`, `B`, `all`, `first`...)."""
    cite: Cite
    """The sheet's line for this step."""
