"""Where a game in play stands, and how it moves on: a pure state machine over `Edit`s.

`Play` is one frozen picture of a game: the turn, the phase of the sheet's sequence of play, the
side with the initiative, every unit's state (the ruleset's in-play fields) and the bases taken
off the table or held in place. Everything that happens to a game is a tuple of `Edit`s (one
field of one unit, base or of the game, from a value to a value): a result the players
confirmed, a value set by hand, a change of phase. `Play.apply(edits)` gives the next picture;
`undo(edits)` gives the edits that take them back. A game is rebuilt by applying its logged
edits, in order, to its first picture (`start`).

Pure: never imports numpy, cv2, flask or `vision`; knows rulesets only through `Ruleset`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .errors import QuestionError, accepted
from .state import HAND_FIELDS, Change, Scope

if TYPE_CHECKING:
    from .engine import Ruleset


@dataclass(frozen=True, slots=True)
class Edit:
    """One field set from one value to another: the unit of every change to a game."""

    scope: Scope
    target: str
    """A unit id, a base id, or `game`."""
    field: str
    before: Any
    after: Any

    def as_json(self) -> dict[str, Any]:
        return asdict(self)  # the scope a `StrEnum`: its value in JSON

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Edit:
        """An edit as `as_json` wrote it (read back from a game's log); a `QuestionError` for
        one no game can hold, rather than a game resumed wrong."""
        try:
            scope, target, name = Scope(doc["scope"]), str(doc["target"]), str(doc["field"])
            edit = cls(scope, target, name, doc["before"], doc["after"])
        except (KeyError, TypeError, ValueError):
            raise QuestionError(
                f"an edit of a game must give scope ({accepted([s.value for s in Scope])}), "
                f"target, field, before and after; got {doc!r:.200}"
            ) from None
        fields = HAND_FIELDS.get(scope, (name,))  # a unit's fields are the ruleset's
        if name not in fields:
            raise QuestionError(
                f"an edit of a game sets no {scope} field {name!r}: {accepted(fields)}"
            )
        return edit


def _frozen(units: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Mapping[str, Any]]:
    return MappingProxyType({k: MappingProxyType(dict(v)) for k, v in units.items()})


@dataclass(frozen=True, slots=True)
class Play:
    """A game at one moment. Never changed: `apply` gives the next one."""

    turn: int
    phase: str | None
    """None for a sheet without a sequence of play."""
    units: Mapping[str, Mapping[str, Any]]
    """Unit id -> in-play field -> value: every in-play field of every unit."""
    initiative: str | None = None
    """The side that won the initiative, for sheets that dice for it."""
    removed: frozenset[str] = frozenset()
    """Bases taken off the table."""
    held: frozenset[str] = frozenset()
    """Bases held at their last seen place while the camera cannot see them."""
    bases: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Base id -> its unit's id, for every base of the game."""

    def value(self, scope: Scope, target: str, name: str) -> Any:
        """The current value of one field. The game's fields (`GAME_FIELDS`) and the sets of
        bases a base's flag puts it in (`BASE_FIELDS`) are attributes of the same names."""
        if scope is Scope.UNIT:
            return self.units[target].get(name)
        found = getattr(self, name)
        return target in found if scope is Scope.BASE else found

    def apply(self, edits: Iterable[Edit]) -> Play:
        """The game after `edits` (their `after` values)."""
        game: dict[str, Any] = {}
        units = {k: dict(v) for k, v in self.units.items()}
        flagged = {"removed": set(self.removed), "held": set(self.held)}
        for edit in edits:
            if edit.scope is Scope.GAME:
                game[edit.field] = edit.after
            elif edit.scope is Scope.BASE:
                chosen = flagged[edit.field]
                (chosen.add if edit.after else chosen.discard)(edit.target)
            elif edit.target in units:
                units[edit.target][edit.field] = edit.after
        removed, held = frozenset(flagged["removed"]), frozenset(flagged["held"])
        return replace(self, **game, units=_frozen(units), removed=removed, held=held)

    def as_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "phase": self.phase,
            "initiative": self.initiative,
            "units": {k: dict(v) for k, v in self.units.items()},
            "removed": sorted(self.removed),
            "held": sorted(self.held),
        }


def start(ruleset: Ruleset, units: Iterable[tuple[str, Mapping[str, Any], Sequence[str]]]) -> Play:
    """The first picture of a game: turn 1, the sheet's first phase, and every unit's in-play
    fields as the game file gives them (its start-of-game default where it leaves one out, and
    nothing for a field with no default the file does not give). `units` yields (unit id, its
    attributes in the file, its base ids)."""
    fields = ruleset.state_fields()
    state: dict[str, dict[str, Any]] = {}
    bases: dict[str, str] = {}
    for ident, attrs, base_ids in units:
        values = {f.name: f.default if attrs.get(f.name) is None else attrs[f.name] for f in fields}
        state[ident] = {name: value for name, value in values.items() if value is not None}
        bases.update(dict.fromkeys(base_ids, ident))
    phase = ruleset.phases[0] if ruleset.phases else None
    return Play(1, phase, _frozen(state), bases=MappingProxyType(bases))


def undo(edits: Sequence[Edit]) -> tuple[Edit, ...]:
    """The edits that take `edits` back (in reverse order, before and after swapped)."""
    return tuple(Edit(e.scope, e.target, e.field, e.after, e.before) for e in reversed(edits))


def edits_of(play: Play, changes: Iterable[Change]) -> tuple[Edit, ...]:
    """A ruleset's `Change`s (absolute new values) as edits from where the game stands; a change
    to the value a field already has is left out."""
    out: list[Edit] = []
    current = play
    for change in changes:
        before = current.value(change.scope, change.target, change.field)
        if before == change.value and type(before) is type(change.value):
            continue
        edit = Edit(change.scope, change.target, change.field, before, change.value)
        out.append(edit)
        current = current.apply((edit,))
    return tuple(out)


def set_by_hand(
    ruleset: Ruleset, play: Play, scope: Scope, target: str, values: Mapping[str, Any]
) -> tuple[Edit, ...]:
    """The edits that set fields of one unit, base or of the game by hand, each checked by
    `Ruleset.change_problem`: one `QuestionError` names every field or value not accepted."""
    if not values:
        raise QuestionError(f"nothing to set for {target!r}; give at least one field")
    if scope is Scope.UNIT and target not in play.units:
        units = ", ".join(sorted(play.units))
        raise QuestionError(f"no unit {target!r} in this game; units: {units}")
    if scope is Scope.BASE and target not in play.bases:
        raise QuestionError(f"no base {target!r} in this game")
    changes = [
        Change(target, name, value, "set by hand", scope=scope) for name, value in values.items()
    ]
    # The unit or base is the game's, checked above.
    problems = [p for c in changes if (p := ruleset.change_problem(c, by_hand=True))]
    if problems:
        raise QuestionError(f"{ruleset.id}: {'; '.join(problems)}")
    return edits_of(play, changes)


def phase_edits(ruleset: Ruleset, play: Play, phase: object) -> tuple[Edit, ...]:
    """The edits of moving to `phase`. Moving back to the sheet's first phase from another
    starts the next turn, and every per-turn field (fired this turn...) goes back to its
    default."""
    phase = ruleset.check_phase(phase)
    phases = ruleset.phases
    changes = [Change("game", "phase", phase, "next phase", scope=Scope.GAME)]
    if phase == phases[0] and play.phase != phases[0]:
        changes.append(Change("game", "turn", play.turn + 1, "a new turn", scope=Scope.GAME))
        for f in ruleset.state_fields():
            if not f.per_turn:
                continue
            units = [u for u in sorted(play.units) if f.name in play.units[u]]
            changes += [Change(unit, f.name, f.default, "a new turn") for unit in units]
    return edits_of(play, changes)
