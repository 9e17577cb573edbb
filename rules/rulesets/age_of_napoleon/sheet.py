"""The page's tables (sheet.toml, every number and word with its Cite) and how a scene's units
are read under them: their die, their dice, their weapon's range bands, their state."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NamedTuple

from ...answer import Modifier
from ...engine import check_attr
from ...errors import MissingAttribute, QuestionError, accepted
from ...scene import Scene, Unit
from ...sheetdata import load_sheet_data
from ...state import Field, Kind, Phase

RULESET_ID = "age-of-napoleon"
SHEET = "003_5b7c133d01707a77.txt"
DATA: dict[str, Any] = load_sheet_data(Path(__file__).with_name("sheet.toml"), SHEET)
CITE = SimpleNamespace(**DATA["cites"])
"""The lines the mechanics quote, by name (`CITE.diagonal`)."""
N = SimpleNamespace(**DATA["numbers"])
"""The page's numbers, by name (`N.leader_check_hits`)."""

UNIT_FIELDS = tuple(
    Field(**{**f, "kind": Kind(f["kind"]), "choices": tuple(f.get("choices", ()))})
    for f in DATA["fields"]
)
PHASE_STEPS = tuple(Phase(p["name"], p["title"], "all", p["cite"]) for p in DATA["phases"])
TYPES, DIES, GRADES, GUN_STATES = (
    next(f.choices for f in UNIT_FIELDS if f.name == name)
    for name in ("type", "die", "quality", "gun_state")
)
GUN_OK, GUN_HOT, GUN_COOLING, GUN_BROKEN = GUN_STATES
"""A machine gun's overheating (lines 15-17): ok; overheated and kept firing (a second failure
breaks it); cooling (overheated and rests: it may not fire this turn, then it is ok); broken
for good."""
ROCKET_WEAPON, LEADER_ROLE = "rocket", "leader"
MODIFIER_KEYS = ("fire_modifiers", "melee_modifiers")
"""Lists of the QRC's modifiers the players give on a unit (not a `Field`: lists of objects)."""


def fail(message: str) -> QuestionError:
    return QuestionError(f"{RULESET_ID}: {message}")


def sides_of(die: str) -> int:
    return int(DATA["dice"][die]["sides"])


def grid_box_of(scene: Scene) -> float:
    """The side of one box, mm; a scene without a grid cannot be measured in boxes."""
    if scene.grid_box is None:
        raise fail(
            'the scene has no grid; give "grid": {"box": SIDE} (the side of one square, in the '
            f"scene's unit): every distance of this sheet is counted in boxes ({CITE.diagonal})"
        )
    return scene.grid_box


class Band(NamedTuple):
    """One range band of a weapon: it reaches out to `limit` boxes."""

    label: str
    limit: float


def range_bands(scene: Scene, unit: Unit) -> tuple[Band, ...]:
    """The range bands of a unit's weapon from the scene's `ranges`, nearest first."""
    weapon = unit.get("weapon")
    if weapon is None:
        raise fail(f"unit {unit.id!r} has no 'weapon', so it does not fire")
    ranges = scene.extra.get("ranges")
    example = f'"ranges": {{"{weapon}": {{"short": B, "medium": B, "long": B}}}} (in boxes)'
    qrc = "the range table is on the QRC, not on page 3"
    if ranges is None:
        raise fail(
            f"the scene has no 'ranges', so the range of weapon {weapon!r} of unit {unit.id!r} "
            f"is unknown ({qrc}); give {example}"
        )
    if not isinstance(ranges, dict):
        raise fail(f"the scene's 'ranges' must be an object of weapons; give {example}")
    if weapon not in ranges:
        raise fail(
            f"the scene's 'ranges' has no entry for weapon {weapon!r} of unit {unit.id!r} "
            f"(weapons with ranges: {accepted(sorted(ranges)) or 'none'}); {qrc}; give {example}"
        )
    entry = ranges[weapon]
    if not isinstance(entry, dict) or not entry:
        raise fail(f"ranges.{weapon} must be an object of band limits in boxes; give {example}")
    for label, limit in entry.items():
        if isinstance(limit, bool) or not isinstance(limit, int | float) or not limit >= 0:
            raise fail(
                f"ranges.{weapon}.{label} must be a number of boxes (0 or more), got {limit!r}"
            )
    return tuple(sorted((Band(str(k), float(v)) for k, v in entry.items()), key=lambda b: b[1]))


def unit_type(unit: Unit) -> str:
    """The unit's `type`, one of the four this page names (required)."""
    return check_attr(unit, "type", TYPES, ruleset=RULESET_ID)


def die_of(unit: Unit, melee: bool = False) -> str:
    """The die a unit rolls: `melee_die` in melee when given, else `die` (lines 7-9, 35)."""
    key = "melee_die" if melee and unit.get("melee_die") is not None else "die"
    return check_attr(unit, key, DIES, ruleset=RULESET_ID)


def flag(unit: Unit, key: str) -> bool:
    """A flag of the unit's state (its default is filled in when a scene is read; a scene made
    otherwise without it is missing it)."""
    value = unit.get(key)
    if value is None:
        raise MissingAttribute(RULESET_ID, unit.id, key, "true or false", False)
    if not isinstance(value, bool):
        raise fail(f"unit {unit.id!r} has {key} {value!r}; accepted values are true or false")
    return value


def count(unit: Unit, key: str) -> int:
    """A count of the unit's state (0 or more)."""
    value = unit.get(key)
    if value is None:
        raise MissingAttribute(RULESET_ID, unit.id, key, "a whole number from 0", 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise fail(f"unit {unit.id!r} has {key} {value!r}; accepted: a whole number from 0")
    return value


def gun_state(unit: Unit) -> str:
    """A machine gun's overheating state (lines 15-17); every other unit stays `ok`."""
    return check_attr(unit, "gun_state", GUN_STATES, ruleset=RULESET_ID)


def may_fire(unit: Unit) -> tuple[bool, str]:
    """Whether a unit may fire this turn, and why not: a machine gun cooling down or broken for
    good does not (line 16)."""
    state = gun_state(unit)
    if state == GUN_COOLING:
        return False, f"it overheated and rests: it may not fire this turn ({CITE.overheat_rest})"
    if state == GUN_BROKEN:
        return False, f"it overheated twice and is permanently broken ({CITE.overheat_again})"
    return True, ""


def leader_base(unit: Unit) -> str | None:
    """The id of the unit's leader base, if it has one (line 4; no other role is on the page)."""
    found = None
    for base in unit.bases:
        if base.role is not None and base.role != LEADER_ROLE:
            raise fail(
                f"base {base.id!r} of unit {unit.id!r} has role {base.role!r}; the accepted "
                f"value is {LEADER_ROLE!r} (the unit's leader base, line 4)"
            )
        found = found or (base.id if base.role else None)
    return found


class DiceCount(NamedTuple):
    """How many dice a unit rolls and why."""

    bases: int
    leader: str | None
    modifiers: tuple[Modifier, ...]
    raw: Fraction
    """Bases plus modifiers, before rounding."""
    dice: int
    floor_applied: bool
    """Line 6 lifted a zero to one die."""


def scene_modifiers(unit: Unit, key: str, target: Unit) -> tuple[Modifier, ...]:
    """The QRC modifiers the players gave on the unit (`fire_modifiers`/`melee_modifiers`)."""
    given = unit.get(key)
    if given is None:
        return ()
    form = f'{key} is a list of {{"dice": N, "reason": "...", "target": "id" (optional)}}'
    if not isinstance(given, list):
        raise fail(f"unit {unit.id!r}: {form}, got {given!r}")
    out = []
    target_ids = {target.id, *(b.id for b in target.bases)}
    for i, item in enumerate(given):
        where = f"unit {unit.id!r} {key}[{i}]"
        if not isinstance(item, dict) or set(item) - {"dice", "reason", "target"}:
            raise fail(f"{where}: {form}, got {item!r}")
        value, reason = item.get("dice"), item.get("reason")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise fail(f"{where}: 'dice' must be a number of dice to add, got {value!r}")
        if not isinstance(reason, str) or not reason.strip():
            raise fail(f"{where}: 'reason' must say which QRC modifier this is, got {reason!r}")
        if item.get("target") in (None, *target_ids):
            out.append(Modifier(value, f"{reason} (QRC, given in the scene)"))
    return tuple(out)


def count_dice(unit: Unit, target: Unit, *, melee: bool) -> DiceCount:
    """Dice of a unit: one a base including the leader's, plus modifiers, rounded up (lines
    4-6, 32-33); in fire an unbroken unit rolls at least one."""
    mods = scene_modifiers(unit, "melee_modifiers" if melee else "fire_modifiers", target)
    raw = len(unit.bases) + sum((Fraction(m.value) for m in mods), Fraction(0))
    dice = max(math.ceil(raw), 0)
    lifted = not melee and dice == 0 and not flag(unit, "broken")
    return DiceCount(len(unit.bases), leader_base(unit), mods, raw, 1 if lifted else dice, lifted)
