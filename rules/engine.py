"""The ruleset protocol, the registry of rulesets, reading a scene under its ruleset, and the
questions every ruleset answers alike.

A ruleset is a subclass of `Ruleset` that mostly sets class constants read off its sheet (which
terrain blocks sight, what gives cover, ...) and adds the actions its sheet has. `REGISTRY` names
every ruleset; `get_ruleset` finds one by id (an unknown id is an `UnknownRulesetError` listing
the known ones), importing its module then. `read_scene` / `load_scene` read a scene and check
it under the ruleset it names. One `suggest` serves every sheet: a ruleset lists the questions
each phase asks (`Ruleset.candidates`). Never imports cv2, flask or `vision`.
"""

from __future__ import annotations

import importlib
import math
import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, Final

import numpy as np

from . import geometry as geo
from .answer import Cite, Lines, RangeBand, Resolution, Suggestion, length_json, plural
from .errors import MissingAttribute, QuestionError, SceneError, UnknownRulesetError, accepted
from .measure import CoverPolicy, SightPolicy, table_of
from .scene import (
    BASE_KEYS,
    SCENE_KEYS,
    TERRAIN_KEYS,
    UNIT_KEYS,
    Cover,
    Scene,
    TerrainKind,
    Unit,
    grouped_problems,
    parse_scene,
    read_json_file,
)
from .sheetdata import Sheet
from .state import (
    HAND_FIELDS,
    RULED_FIELDS,
    Change,
    Field,
    Outcome,
    Phase,
    Report,
    Scope,
    check_reported,
    close_key,
)

Action = Callable[[Scene, Sequence[str]], Resolution]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A question a phase of play asks: an action and its arguments (`Ruleset.candidates`)."""

    kind: str
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Asked:
    """A question asked once to settle its dice: the scene, the arguments and the answer
    (`Ruleset.resolve`), which an outcome's form and its changes read instead of asking again."""

    scene: Scene
    args: tuple[str, ...]
    answer: Resolution

    @property
    def data(self) -> Mapping[str, Any]:
        """The answer's data."""
        return self.answer.data

    def unit(self, index: int) -> Unit:
        """The unit the argument at `index` names."""
        return self.scene.unit_of(self.args[index])


MAX_MISSING: Final = 40
"""Most missing attributes gathered for one question before the message is given anyway."""
SCENE_TOOL_KEYS: Final = frozenset({"detection", "phase", "turn", "game", "name", "notes"})
"""Top-level keys Umpire itself writes into scenes (the tracker's diagnostics, the phase)."""


_BLOCKING: Final = frozenset(
    {TerrainKind.WOODS, TerrainKind.TOWN, TerrainKind.BUILDING, TerrainKind.HILL}
)
"""The terrain kinds that block sight unless a sheet says otherwise."""


class Ruleset:
    """The rules of one sheet. Subclasses set the class constants and add actions."""

    data: ClassVar[Sheet | None] = None
    """The sheet's data (`rules.sheetdata.load_sheet`): a subclass that sets it takes its `id`,
    `sheet`, `unit_fields`, `phase_steps` and `phases` from it."""
    id: ClassVar[str]
    """Registry id, as in a scene's `ruleset`."""
    title: ClassVar[str]
    """The title printed on the sheet."""
    sheet: ClassVar[str]
    """The sheet's file name in `rules/sheets/`."""
    unit: ClassVar[str]
    """The unit the sheet measures in (`cm` or `in`)."""
    grid: ClassVar[bool] = False
    """True when the sheet measures in grid squares."""
    phases: ClassVar[tuple[str, ...]] = ()
    """The sheet's sequence of play, as short lower-case names (`suggest PHASE` takes one)."""
    phase_steps: ClassVar[tuple[Phase, ...]] = ()
    """The same steps explained for the page: what happens, who acts, the sheet's line."""
    usage: ClassVar[Mapping[str, str]] = MappingProxyType({"measure": "A B", "suggest": "[PHASE]"})
    """What each action takes, by its name in `actions()`, as `umpire resolve SCENE ACTION ...`
    is written: `NAME` an argument, `[NAME]` one that may be left out, `[NAME...]` any number
    of them (`shoot = "SHOOTER TARGET"`, `move = "UNIT [TERRAIN...]"`). A subclass that sets
    `data` adds its sheet.toml's `[usage]` table to the engine's. `resolve` checks the arguments
    against it before it asks the action, and the page counts the pieces to click in it. An
    action with no usage, or a usage of the sheet naming no action, is a `TypeError` naming
    them when the ruleset is made."""
    sides_rule: ClassVar[str] = ""
    """How the sheet splits the table's sides into the labels `Phase.acting` uses (`side A is
    every side with a player character`), for the page."""

    unit_fields: ClassVar[tuple[Field, ...]] = ()
    """Every unit attribute this sheet reads besides `id`, `side` and `bases`: troop
    descriptions (no default, required where read) and the state of play (with a default when
    every unit starts a game the same way)."""
    terrain_keys: ClassVar[frozenset[str]] = frozenset()
    """Terrain keys this sheet reads besides the format's (`difficult`), for typo checks."""
    scene_keys: ClassVar[frozenset[str]] = frozenset()
    """Top-level scene keys this sheet reads besides the format's (`ranges`), for typo checks."""

    sight_policy: ClassVar[SightPolicy] = SightPolicy(
        blocking=_BLOCKING, see_into=tuple((kind, geo.REACH) for kind in sorted(_BLOCKING))
    )
    """How the sheet judges sight (`rules.measure.SightPolicy`, what `Table.sights` and
    `Table.seen` are asked under); a sheet that judges otherwise sets its own, as
    `replace(Ruleset.sight_policy, ...)`. By default woods, towns, buildings and hills block the
    sight lines across them, but a base sees out of (and is seen in) the piece it stands in
    however deep: a hill hides what is behind it from what is below, not from what stands on
    it."""
    sight_rule: ClassVar[Cite | None] = None
    """Where the sheet says what blocks sight."""
    cover_policy: ClassVar[CoverPolicy] = CoverPolicy(
        cover=(
            (TerrainKind.BUILDING, Cover.HARD),
            (TerrainKind.FENCE, Cover.SOFT),
            (TerrainKind.FORTIFICATION, Cover.HARD),
            (TerrainKind.HEDGE, Cover.SOFT),
            (TerrainKind.TOWN, Cover.HARD),
            (TerrainKind.WALL, Cover.HARD),
            (TerrainKind.WOODS, Cover.SOFT),
        ),
        obstacles=frozenset(
            {TerrainKind.HEDGE, TerrainKind.WALL, TerrainKind.FENCE, TerrainKind.FORTIFICATION}
        ),
        behind_within=30.0,
    )
    """How the sheet reads cover (`rules.measure.CoverPolicy`, what `Table.cover` is asked
    under), set by a sheet as the sight policy is. By default the cover of a terrain piece
    whose scene does not say is that of its kind above (other kinds give none), and a base up
    to 30 mm (edge to edge) behind a hedge, wall, fence or fortification claims its cover."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if (data := cls.__dict__.get("data")) is not None:
            given = {"id", "sheet", "unit_fields", "phase_steps", "phases", "usage"}
            given &= set(cls.__dict__)
            if given:
                raise TypeError(
                    f"{cls.__name__} sets data and {', '.join(sorted(given))}: data gives them"
                )
            cls.id, cls.sheet, cls.unit_fields = data.ruleset, data.sheet, data.fields
            cls.phase_steps, cls.phases = data.phases, tuple(p.name for p in data.phases)
            cls.usage = MappingProxyType({**Ruleset.usage, **data.tables.get("usage", {})})

    def __init__(self) -> None:
        # Every action has its usage and every usage of the sheet its action, checked when the
        # ruleset is made (`get_ruleset`) rather than when the action left out is first asked.
        # The actions are made once here: `suggest` looks one up for every candidate.
        self._actions: Mapping[str, Action] = MappingProxyType(self.actions())
        actions = self._actions
        missing = [name for name in actions if name not in self.usage]
        unknown = sorted(set(self.usage) - set(Ruleset.usage) - set(actions))
        problems = []
        if missing:
            problems.append(f"no usage for {', '.join(missing)}")
        if unknown:
            problems.append(f"a usage for no action: {', '.join(unknown)}")
        if problems:
            raise TypeError(
                f"{type(self).__name__} ({self.id}): {'; '.join(problems)} (each action "
                "declares what it takes in its sheet's [usage] table)"
            )

    # ----------------------------------------------------------------------------------------
    # Actions

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """The range bands of the unit's weapon, nearest first, for drawing on the table.

        Empty for a unit the sheet gives no ranged fire; a ruleset whose sheet has weapon ranges
        overrides this. Raises `QuestionError` for a weapon the sheet does not know."""
        return ()

    def actions(self) -> dict[str, Action]:
        """The actions this ruleset answers, by name (as in `umpire resolve SCENE ACTION`)."""
        return {"measure": self.measure}

    def action(self, name: str) -> Action:
        """The action called `name`; a `QuestionError` naming the actions otherwise."""
        table = self._actions
        if name not in table:
            raise QuestionError(
                f"{self.id} has no action {name!r}; its actions are {', '.join(table)}"
            )
        return table[name]

    def check_args(self, action: str, args: Sequence[str]) -> None:
        """A `QuestionError` naming the usage of `action` (`usage`) and what it got, unless
        `args` are as many as it takes."""
        names = self.usage[action].split()
        least = sum(not name.startswith("[") for name in names)
        most = math.inf if any(name.endswith("...]") for name in names) else len(names)
        if least <= len(args) <= most:
            return
        if most == least:
            takes = plural(least, "argument")
        elif most == math.inf:
            takes = f"{least} or more arguments"
        else:
            takes = f"{least} {'or' if most == least + 1 else 'to'} {most} arguments"
        raise QuestionError(
            f"{self.id}: {action} takes {takes} ({' '.join([action, *names])}), "
            f"got {len(args)}: {' '.join(repr(a) for a in args) or 'none'}"
        )

    def check_phase(self, phase: object) -> str:
        """`phase` if it is one of the sheet's phases; a `QuestionError` naming them (or saying
        the sheet has none) otherwise."""
        if isinstance(phase, str) and phase in self.phases:
            return phase
        known = f"the phases are {accepted(self.phases)}" if self.phases else "it has no phases"
        raise QuestionError(f"{self.id}: unknown phase {phase!r}; {known}")

    # ----------------------------------------------------------------------------------------
    # Suggestions: one `suggest` for every sheet. A ruleset says which questions each phase
    # asks (`candidates`) and, when it needs to, how one is answered in the context of the
    # whole table (`answer_candidate`) and summarised; this builds the answer.

    suggestions_say_their_phase: ClassVar[bool] = True
    """Whether each suggestion's JSON names the phase that asks it."""
    left_off_when_refused: ClassVar[frozenset[str]] = frozenset()
    """The actions `suggest` leaves off its list when their answer refuses them (not allowed,
    not in contact: what `settle` reads as a refusal)."""

    def suggest(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`suggest [PHASE]`: every resolution the sheet's sequence of play asks for in a phase
        (in every phase, phase by phase, without one), then those every phase asks for."""
        phase = self.check_phase(args[0]) if args else None
        named = self.phases if phase is None else (phase,)
        asked = [(name, self.candidates(scene, name)) for name in named]
        items = []
        for name, candidates in [*asked, (None, self.standing_candidates(scene))]:
            for candidate in candidates:
                result = self.answer_candidate(scene, candidate)
                if result is not None:
                    summary = self.summarise(scene, candidate, result)
                    item = Suggestion(candidate.kind, candidate.args, result.data, summary, name)
                    items.append(item)  # the answer's data: its lines are left to be freed
        data = {
            "phase": phase,
            "phases": list(self.phases),
            **self.suggestion_extras(scene, phase),
            "items": [i.as_json(self.suggestions_say_their_phase) for i in items],
        }
        return self.answer("suggest", data, self.suggestion_lines(data, items))

    def candidates(self, scene: Scene, phase: str) -> Iterable[Candidate]:
        """The questions `phase` asks of the table, in the order they are listed."""
        return ()

    def standing_candidates(self, scene: Scene) -> Iterable[Candidate]:
        """Questions every phase asks (listed after the phase's own, with no phase)."""
        return ()

    def answer_candidate(self, scene: Scene, candidate: Candidate) -> Resolution | None:
        """The answer to a candidate, None to leave it off the list (nothing to resolve). By
        default the action itself, asked of the scene, as `listed`."""
        return self.listed(candidate, self._actions[candidate.kind](scene, candidate.args))

    def listed(self, candidate: Candidate, answer: Resolution) -> Resolution | None:
        """A candidate's answer as `suggest` lists it: None (left off) for one of
        `left_off_when_refused` whose answer refuses it."""
        if candidate.kind in self.left_off_when_refused and _refuses(answer):
            return None
        return answer

    def summarise(self, scene: Scene, candidate: Candidate, result: Resolution) -> str:
        """A suggestion's line in the list: by default its answer's summary, given apart from
        its lines or else their first."""
        if result.summary is not None:
            return result.summary
        return next(iter(result.say()), candidate.kind)

    def suggestion_extras(self, scene: Scene, phase: str | None) -> dict[str, Any]:
        """Keys a sheet adds to the `suggest` answer (who is side A, where the phases come
        from...)."""
        return {}

    def suggestion_lines(self, data: dict[str, Any], items: list[Suggestion]) -> tuple[str, ...]:
        """The readable answer to `suggest`, whose `data` (its `phase`, its extras) it may read:
        one line a suggestion."""
        lines = [f"{i.phase}: {i.kind} {' '.join(i.args)}: {i.summary}" for i in items]
        return tuple(lines or ["nothing to resolve"])

    def resolve(self, scene: Scene, action: str, args: Sequence[str]) -> Resolution:
        """Answer `action` with `args` on `scene`.

        A rule that reads an attribute the scene leaves out raises `MissingAttribute`; the
        question is then asked again with a stand-in value, until every missing attribute is
        known, and one `QuestionError` names them all. An answer that relied on start-of-game
        defaults for the units it names says which."""
        answering = self.action(action)
        self.check_args(action, args)
        gaps: list[MissingAttribute] = []
        asked = scene
        while True:
            try:
                answer = answering(asked, args)
                break
            except MissingAttribute as gap:
                if len(gaps) >= MAX_MISSING or any(
                    (g.unit, g.key) == (gap.unit, gap.key) for g in gaps
                ):
                    raise
                gaps.append(gap)
                stand_in = {gap.key: gap.placeholder}  # asked again with it, to find the next
                units = (_with_values(u, stand_in) if u.id == gap.unit else u for u in asked.units)
                asked = replace(asked, units=tuple(units))
        if len(gaps) == 1:
            raise gaps[0]
        if gaps:
            listed = "; ".join(
                f"{g.unit!r} has no {g.key!r} (give {g.accepted_values})" for g in gaps
            )
            raise QuestionError(f"{self.id}: {len(gaps)} attributes are missing: {listed}")
        # The start-of-game values the answer assumed for the units it is about (every unit
        # for `suggest`, none for `measure`).
        if action == "measure":
            return answer
        about = list(scene.units)
        if action != "suggest":  # the units the arguments name, each once
            ids = set(scene.ids())
            named = (scene.unit_of(ident) for ident in args if ident in ids)
            about = list({unit.id: unit for unit in named}.values())
        fields = {f.name: f for f in self.unit_fields}
        assumed = [
            {
                "unit": unit.id,
                "field": name,
                "value": unit.get(name),
                "source": str(fields[name].cite) if name in fields else None,
            }
            for unit in about
            for name in sorted(unit.defaulted)
        ]
        if not assumed:
            return answer
        said = ", ".join(f"{a['unit']} {a['field']} {_word(a['value'])}" for a in assumed)
        noted = f"assumed at their start-of-game values (not given): {said}"
        data = MappingProxyType({**answer.data, "defaults": assumed})
        return replace(answer, data=data, say=lambda: (*answer.say(), noted))

    # ----------------------------------------------------------------------------------------
    # State: the fields a scene's units carry, checked and completed once when it is read

    def state_fields(self) -> tuple[Field, ...]:
        """The fields that change in play (the page edits them, the server keeps them)."""
        return tuple(f for f in self.unit_fields if f.in_play)

    def known_unit_keys(self) -> frozenset[str]:
        """Every key a unit of this sheet may carry that is not a free note."""
        return UNIT_KEYS | {f.name for f in self.unit_fields}

    def problems(self, scene: Scene, doc: Mapping[str, Any]) -> list[tuple[str, str]]:
        """What is wrong with a parsed scene under this sheet, as (path, message) pairs: a
        declared attribute with a value the sheet does not accept, and keys that are plainly
        typos of known ones (`heavy_armor`, `facng`). Free keys (`name`, `notes`) pass."""
        out: list[tuple[str, str]] = []
        top_known = SCENE_KEYS | SCENE_TOOL_KEYS | self.scene_keys
        out += _typos(doc, "", top_known, "a scene key")
        unit_known = self.known_unit_keys()
        for i, (unit, unit_doc) in enumerate(zip(scene.units, doc.get("units", ()), strict=False)):
            path = f"units[{i}]"
            out += _typos(unit_doc, path, unit_known, f"a {self.id} unit key")
            for j, base_doc in enumerate(unit_doc.get("bases", ())):
                out += _typos(base_doc, f"{path}.bases[{j}]", BASE_KEYS, "a base key")
            for f in self.unit_fields:
                value = unit.get(f.name)
                problem = None if value is None else f.check(value, f"unit {unit.id!r}:")
                if problem:
                    out.append((f"{path}.{f.name}", problem))
        terrain_known = TERRAIN_KEYS | self.terrain_keys
        for i, piece in enumerate(doc.get("terrain", ()) or ()):
            out += _typos(piece, f"terrain[{i}]", terrain_known, "a terrain key")
        return out

    def with_defaults(self, scene: Scene) -> Scene:
        """The scene with every start-of-game field its units leave out set to its default
        (`default_of`), and noted in `Unit.defaulted`."""
        units = []
        for unit in scene.units:
            values = ((f.name, self.default_of(unit, f.name, f.default)) for f in self.unit_fields)
            missing = {k: v for k, v in values if v is not None and unit.get(k) is None}
            units.append(_with_values(unit, missing, defaulted=True) if missing else unit)
        return replace(scene, units=tuple(units))

    def default_of(self, unit: Unit, name: str, default: Any) -> Any:
        """The start-of-game value of the field `name` for a unit that leaves it out (None: it
        has none): the field's `default`; a sheet whose default depends on the unit overrides
        this."""
        return default

    # ----------------------------------------------------------------------------------------
    # Sequence of play

    def side_groups(
        self, scene: Scene, initiative: str | None = None
    ) -> dict[str, tuple[str, ...]]:
        """The scene's sides under each label `Phase.acting` uses. By default every side acts
        in every phase (`all`)."""
        return {"all": tuple(dict.fromkeys(u.side for u in scene.units))}

    # ----------------------------------------------------------------------------------------
    # Outcomes: what the dice the players threw do to the state of the game

    outcomes: ClassVar[tuple[str, ...]] = ()
    """The actions whose result changes the game (none by default), each with the methods of its
    name `_ACTION_form(asked)`, the `Report`s the players are asked for after it (none when it
    has no dice to report: a move), and `_ACTION_apply(asked, reported)`, the `Change`s of
    state the reported dice lead to (`settle` has checked `reported` against the form first:
    every value the form asks for is given, and no other; it asks for no changes of a question
    refused with nothing to report, and keeps only the changes that change something: one that
    sets a field to the value it has now is left out, so a sheet need not check for it). Both
    read the question as it was asked once (`Asked`: the scene, the arguments, the answer) and
    never ask it again."""

    def answer(
        self, action: str, data: Mapping[str, Any], lines: Lines, summary: str | None = None
    ) -> Resolution:
        """An action's answer: its `data` headed by the action and this ruleset's id, its
        readable lines (said, or a function that says them when read) and its summary."""
        return Resolution.of(action, {"action": action, "ruleset": self.id, **data}, lines, summary)

    def report_form(
        self, scene: Scene, action: str, args: Sequence[str], answer: Resolution | None = None
    ) -> tuple[Report, ...]:
        """What the players are asked after `action args`, whose `answer` a caller that has just
        shown it passes: empty for an action whose result changes nothing the sheet keeps
        (`measure`), and for a question the sheet refuses."""
        form = self._form_of(action)
        if form is None:
            self.action(action)  # an action the sheet does not have is named as such
            return ()
        try:
            if answer is None:
                answer = self.resolve(scene, action, args)
            return tuple(form(Asked(scene, tuple(args), answer)))
        except QuestionError:
            # A question the sheet refuses (a shot out of range, a gun that may not fire):
            # the players roll nothing, so there is nothing to report. `settle` still says why.
            return ()

    def settle(
        self, scene: Scene, action: str, args: Sequence[str], reported: Mapping[str, Any]
    ) -> Outcome:
        """The changes of state that the reported dice of `action args` lead to on `scene`
        (nothing is changed here: the caller applies them). The question is asked once, so
        wrong arguments are its refusal; a bad report is one `QuestionError` naming every
        problem."""
        if action not in self.outcomes:
            self.action(action)  # an action the sheet does not have is named as such
            raise QuestionError(
                f"{self.id}: the result of {action} changes no state the sheet keeps; actions "
                f"whose dice do: {', '.join(self.outcomes) or 'none'}"
            )
        asked = Asked(scene, tuple(args), self.resolve(scene, action, args))
        form = self._form_of(action)
        reports = () if form is None else form(asked)
        check_reported(reports, reported, f"{self.id} {action} {' '.join(args)}".strip())
        # A question the sheet refused (not allowed, not in contact) with no dice to report
        # changes nothing; a sheet that refuses it outright says so in its form.
        refused = _refuses(asked.answer)
        apply = getattr(self, f"_{action}_apply")
        made: tuple[Change, ...] = () if refused and not reports else apply(asked, reported)
        for change in made:
            self.check_change(scene, change)
        # A change to the value its field has now changes nothing: left out, for every sheet.
        changes = tuple(c for c in made if c.value != _value_now(scene, c))
        lines = [self.describe_change(scene, change) for change in changes]
        return Outcome(
            action, tuple(args), MappingProxyType(dict(reported)), tuple(changes), tuple(lines)
        )

    def _form_of(self, action: str) -> Callable[[Asked], Sequence[Report]] | None:
        """The form the players fill after `action` (its `_ACTION_form`), None when the action
        is not an outcome or has no dice to report."""
        return getattr(self, f"_{action}_form", None) if action in self.outcomes else None

    def check_change(self, scene: Scene, change: Change, *, by_hand: bool = False) -> None:
        """A change names a field it may change with a value that field accepts, of a unit or
        base of `scene`; `QuestionError` otherwise. The dice of an action change a unit's
        in-play fields and `RULED_FIELDS`; by hand, every base and game field (`HAND_FIELDS`)."""
        problem = self.change_problem(change, by_hand=by_hand)
        if problem:
            raise QuestionError(f"{self.id}: {problem}")
        if change.scope is Scope.UNIT:
            scene.unit_of(change.target)
        elif change.scope is Scope.BASE:
            scene.base(change.target)

    def change_problem(self, change: Change, *, by_hand: bool = False) -> str | None:
        """What is wrong with `change` (`check_change`), in words; None when nothing is."""
        name, value = change.field, change.value
        if change.scope is Scope.UNIT:
            declared = next((f for f in self.unit_fields if f.name == name), None)
            if declared is None:
                names = [f.name for f in self.unit_fields]
                near = close_key(name, names)
                hint = f" (did you mean {near!r}?)" if near else ""
                return f"no unit field {name!r}{hint}; its fields are {', '.join(names)}"
            if not declared.in_play:
                return f"{name} describes the troops and does not change in play"
            return declared.check(value, f"unit {change.target!r}:")
        fields = (HAND_FIELDS if by_hand else RULED_FIELDS)[change.scope]
        if name not in fields:
            return f"{name!r} is not a {change.scope.value} field; fields: {accepted(fields)}"
        if change.scope is Scope.BASE:
            ok, accepts = isinstance(value, bool), "true or false"
        elif name == "turn":
            ok, accepts = type(value) is int and value >= 1, "a whole number from 1"
        elif name == "phase":
            ok, accepts = value in self.phases, accepted(self.phases)
        else:  # the initiative: a side, or nobody's yet
            ok, accepts = value is None or (type(value) is str and value != ""), "a side, or null"
        return None if ok else f"{change.target}: {name} is {value!r}; accepted: {accepts}"

    def describe_change(self, scene: Scene, change: Change) -> str:
        """`zouaves casualties 1 -> 3: 2 killed (000_...txt:48)`, from the value in `scene`."""
        before = _value_now(scene, change)
        where = f" ({change.cite})" if change.cite is not None else ""
        return (
            f"{change.target} {change.field.replace('_', ' ')} {_word(before)} -> "
            f"{_word(change.value)}: {change.reason}{where}"
        )

    def measure(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`measure A B`: edge-to-edge distance, where A stands relative to B's facing, sight."""
        a_id, b_id = args
        table = table_of(scene)
        near = table.gap(table.select(a_id), table.select(b_id))
        reading = geo.aspect(near.a, near.b)
        sight = table.sight(self.sight_policy, near.a, near.b)
        # How far the terrain lets near.a see near.b whatever the lines (None: no limit).
        pair = np.array([table.index[near.a.id]]), np.array([table.index[near.b.id]])
        reaches = table.sight_reach(self.sight_policy, *pair)
        reach = math.inf if reaches is None else float(reaches[0])
        lines_clear = sight.entire if self.sight_policy.entire_base else sight.any
        in_sight = lines_clear and geo.within(near.distance, reach)
        data: dict[str, Any] = {
            "a": a_id,
            "b": b_id,
            "between": {"a": near.a.id, "b": near.b.id},
            "distance": length_json(scene, near.distance),
            "uncertainty": length_json(scene, near.uncertainty),
            "aspect": reading.aspect.value,
            "aspect_margin": length_json(scene, reading.margin),
            "in_sight": in_sight,
            "sight": sight.as_json() | {"needs_entire_base": self.sight_policy.entire_base},
        }
        if reach != math.inf:
            # Only sheets whose terrain limits how far a base is seen say so.
            data["sight"]["seen_within"] = None if reach < 0 else length_json(scene, reach)
        lines = [
            f"{a_id} to {b_id}: {scene.show(near.distance)} edge to edge "
            f"(+/- {scene.show(near.uncertainty)})"
            + (
                ""
                if near.a.id == a_id and near.b.id == b_id
                else f", between bases {near.a.id} and {near.b.id}"
            ),
            f"{near.a.id} stands to the {reading.aspect.value} of {near.b.id} "
            f"({scene.show(reading.margin)} from the sector line)",
        ]
        if scene.grid_box is not None:
            boxes = geo.grid_distance(near.a, near.b, scene.grid_box)
            data["boxes"] = boxes
            lines.append(f"{boxes:g} boxes apart on the grid (a diagonal step counts 1.5)")
        if in_sight:
            lines.append(
                f"{near.b.id} is in sight of {near.a.id}"
                + (" (the entire base)" if self.sight_policy.entire_base else "")
            )
        elif lines_clear:
            lines.append(
                f"{near.b.id} is not in sight of {near.a.id}: the terrain lets it be seen "
                + ("nowhere" if reach < 0 else f"only within {scene.show(reach)}")
            )
        else:
            blockers = ", ".join(sight.blocked_by) or "nothing"
            lines.append(
                f"{near.b.id} is not in sight of {near.a.id}: "
                f"{sight.clear_rays} of {sight.rays} sight lines clear, blocked by "
                f"{blockers}"
            )
        if self.sight_rule is not None:
            lines.append(f"sight as the sheet says at {self.sight_rule}")
        return self.answer("measure", data, lines)


def _refuses(answer: Resolution) -> bool:
    """Whether an answer refuses its question: the action not allowed, the units not in contact."""
    return answer.data.get("allowed") is False or answer.data.get("in_contact") is False


def _value_now(scene: Scene, change: Change) -> Any:
    """The value the field `change` sets has in `scene`, before the change."""
    if change.scope is Scope.BASE:
        return False  # a removed base is not in the scene
    if change.scope is Scope.GAME:
        return scene.extra.get(change.field)
    return scene.unit_of(change.target).get(change.field)


def _word(value: Any) -> str:
    """A state value as a sentence says it."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _with_values(unit: Unit, values: Mapping[str, Any], *, defaulted: bool = False) -> Unit:
    """The unit with `values` set, noted as start-of-game values assumed when `defaulted`."""
    noted = unit.defaulted | frozenset(values) if defaulted else unit.defaulted
    return replace(unit, attrs=MappingProxyType({**unit.attrs, **values}), defaulted=noted)


def _typos(doc: Any, path: str, known: Collection[str], what: str) -> list[tuple[str, str]]:
    """Keys of an object that are close to a known key without being one."""
    if not isinstance(doc, Mapping):
        return []
    out = []
    for key in doc:
        if key in known:
            continue
        near = close_key(key, known)
        if near is not None:
            where = f"{path}.{key}" if path else str(key)
            out.append((where, f"{key!r} is not {what}; did you mean {near!r}?"))
    return out


# --------------------------------------------------------------------------------------------
# Registry

REGISTRY: Final[tuple[tuple[str, str], ...]] = (
    ("skirmish-19c", "rules.rulesets.skirmish_19c.ruleset:Skirmish19c"),
    ("sepoys-and-soldiers", "rules.rulesets.sepoys_and_soldiers.ruleset:SepoysAndSoldiers"),
    ("colonial-adventure", "rules.rulesets.colonial_adventure.ruleset:ColonialAdventure"),
    ("age-of-napoleon", "rules.rulesets.age_of_napoleon.ruleset:AgeOfNapoleon"),
    ("europe-19c", "rules.rulesets.europe_19c.ruleset:Europe19c"),
)
"""Every ruleset: its id (as a scene's `ruleset` names it) and where its class is
(`module:Class`). A ruleset's module is imported the first time the ruleset is asked for, so a
question about one sheet loads no other; a new sheet is one more line here."""

_INSTANCES: dict[str, Ruleset] = {}
_INSTANCES_LOCK = threading.Lock()


def ruleset_ids() -> list[str]:
    """Every ruleset id, sorted."""
    return sorted(ident for ident, _ in REGISTRY)


def check_ruleset_id(ident: object) -> str:
    """Return `ident` if it names a ruleset of the registry, else raise `UnknownRulesetError`."""
    if not isinstance(ident, str) or ident not in dict(REGISTRY):
        raise UnknownRulesetError(ident, ruleset_ids())
    return ident


def get_ruleset(ident: str) -> Ruleset:
    """The ruleset registered under `ident` (its module imported on first asking)."""
    check_ruleset_id(ident)
    with _INSTANCES_LOCK:
        found = _INSTANCES.get(ident)
        if found is None:
            module, name = dict(REGISTRY)[ident].split(":")
            cls = getattr(importlib.import_module(module), name)
            if not (isinstance(cls, type) and issubclass(cls, Ruleset)) or cls.id != ident:
                raise TypeError(f"the registry's {ident!r} names {module}:{name}, no such ruleset")
            found = _INSTANCES[ident] = cls()
        return found


# --------------------------------------------------------------------------------------------
# Reading a scene: the format (`rules.scene`), then the rules of the sheet it names


def read_scene(doc: Any, source: str = "<scene>") -> Scene:
    """A decoded scene document as a `Scene`, checked against the ruleset it names: a known
    ruleset, the grid it measures on, the attribute values and keys its sheet reads
    (`Ruleset.problems`), the start-of-game state left out filled in
    (`Ruleset.with_defaults`). Any fault is a `SceneError` naming the path and what is
    accepted."""
    scene = parse_scene(doc, source, ruleset_ids())
    rules = get_ruleset(scene.ruleset)
    if scene.grid_box is None and rules.grid:
        raise SceneError(
            source,
            "grid",
            f"missing (required): {scene.ruleset} measures in grid boxes, so the scene must give "
            "grid.box, the side of one square",
        )
    problems = grouped_problems(rules.problems(scene, doc))
    if problems:
        path, first = problems[0]
        more = "; ".join(f"{p}: {m}" for p, m in problems[1:])
        raise SceneError(source, path, first + (f"; also {more}" if more else ""))
    return rules.with_defaults(scene)


def load_scene(path: str | Path) -> Scene:
    """Read and check a scene file (`read_scene`). Raises `SceneError` for any bad input."""
    return read_scene(read_json_file(path), str(path))
