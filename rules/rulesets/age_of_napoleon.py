"""age-of-napoleon: "Warfare in the Age of Napoleon", page 3
(rules/sheets/003_5b7c133d01707a77.txt), on a square grid.

We have page 3 only. The Quick Reference Chart (QRC) with the weapon ranges, the fire and melee
modifiers, the Leader Hits Table and the morale procedure is not on it, so this ruleset never
guesses them: ranges and modifiers come from the scene, an answer that needs the QRC says so,
and the players report what the QRC made of their dice. Never imports cv2, flask or `vision`.

What the scene must carry
- `grid.box`: the side of one square. Every distance here is in boxes, a diagonal step counting
  1.5 (line 18); a scene without a grid is an error.
- `ranges` (top level): the range bands of each weapon in boxes, from the game's QRC, e.g.
  `"ranges": {"rifle": {"short": 1, "medium": 2, "long": 4}}`. A band reaches out to its limit
  (inclusive); the bands are taken in order of their limits and may carry the QRC's own labels.
  A unit firing a weapon with no entry is an error naming the weapon.

Unit attributes read (`UNIT_FIELDS`; a bad value is refused when the scene is read)
Descriptions (no default: required where a rule reads them)
- `type`: `infantry`, `cavalry`, `artillery` or `machine-gun` (lines 24-26). Needed to move, to
  check overheating, for a rocket's morale modifier, and by `suggest` for the end of the turn.
- `weapon`: any name with an entry in `ranges`; `rocket` fires rockets (`rocket`, not `shoot`).
  A unit with no `weapon` does not fire.
- `die`: `d6` or `d3`, the die of the Unit Stats list (lines 7-9: regulars shoot d6, natives d3).
  `melee_die` (same values) when the list gives another die in melee (line 35: gunners roll d3);
  without it the unit fights with `die`.
- `quality`: the morale grade, `raw`, `experienced` or `elite` (line 39), read by `morale` only.
- base `role`: `leader` marks the unit's leader base (line 4); no other role is on this page.
- `fire_modifiers` / `melee_modifiers`: the QRC's modifiers, given by the players, as a list of
  `{"dice": N, "reason": "...", "target": "id"}` (`target` optional: only against that unit).
  `dice` is added to the dice count; fractions are allowed and the count is rounded up (line 5).
  Not `Field`s (lists of objects), but known keys, so a misspelt one is refused.
State (every unit starts the game with its default; the page edits it, the outcomes change it)
- `broken` (false): a broken unit may end with zero dice (line 6); set by a morale result.
- `hits` (0): the hits the unit has taken (lines 5, 34), added by `shoot` and `melee`.
- `fired`, `moved` (false, per turn): fired / moved this turn; `suggest` leaves out units that
  have, and a machine gun's run of turns firing grows with its first shot of a turn.
- `consecutive_fire` (0): turns in a row a machine gun has fired, this turn included once it has
  fired (lines 13-14), for `overheat`.
- `gun_state` (`ok`): a machine gun's overheating, `ok`, `overheated` (overheated and kept
  firing), `cooling` (overheated and rests: it may not fire this turn) or `broken` (for good)
  (lines 15-17). A gun `cooling` or `broken` may not fire.
- `rocket_checks` (0): morale checks rockets forced on the unit, not yet taken (line 22).

Outcomes (the players roll real dice and report them; `outcomes()`)
- `shoot`: the hits (the dice score, line 5), whether one or more top faces showed (when the
  target has a leader base and 5 hits are possible, line 10), the target's bases taken off (the
  QRC's Unit Stats say how many hits take off a base). Leads to the target's `hits`, bases
  `removed`, the shooter's `fired` and, for a machine gun's first shot of the turn,
  `consecutive_fire` + 1. A leader check that is due (at least 5 hits and a top face) is named
  in the change's reason: the 2d6 Leader Hits Table is on the QRC.
- `rocket`: the unit the rocket landed on (the target on a 5-6, a unit in its drift's reach, or
  `nothing`): its `rocket_checks` + 1 (line 22); the firer's `fired`.
- `melee`: the hits each side takes (its enemy's dice total, line 34), the top faces for leader
  checks (one is enough in melee), each side's bases taken off.
- `morale`: whether the QRC's result leaves the unit broken: its `broken`; one pending
  `rocket_checks` taken.
- `overheat`: the 1d6 score (when a check is due) and, for a first overheating, rest or keep
  firing: `gun_state` `cooling` (and `consecutive_fire` 0), `overheated`, or `broken` for a
  second failure (lines 14-16). With no check: a gun `cooling` cools down and is `ok` (line 16);
  a gun that did not fire this turn ends its run (`consecutive_fire` 0), and cools down if it was
  `overheated`.
- `move`: no dice; `moved`.

Readings of the sheet
- Lost bases are taken off the table, so a unit's dice are the bases the camera sees (line 4).
- A unit stands in the box holding the mean of its bases' centres; boxes between two units are
  counted between those boxes (line 18). Only squares wholly on the table are boxes.
- Measurement: a range band or a contact is `too close to call` when a unit's centre lies within
  its position uncertainty of a box side and the neighbouring box would change the answer.
- Hits are the total of the dice (line 5), so their distribution is that of the sum.
- "Never less than one die" (line 6) is written for firing; in melee the dice may fall to zero.
- A broken unit fires with the dice it has; it only loses the one-die floor (line 6).
- Leader hit (lines 10 and 36-37): from fire, checked when the hits are at least 5 and one or
  more dice show a 6 (d6) or 3 (d3) and the target has a leader base; in melee the 5-hit rule
  (written under Firing) does not apply, one top face is enough. The 2d6 Leader Hits Table
  itself is on the QRC. The chance quoted is for rolling the dice themselves (d3s); rolling d6s
  halved instead (line 9) changes the hits and is shown as its own distribution.
  Each shot is its own check, so a unit shot by 4 units is checked up to 4 times (lines 11-12).
- Rockets (lines 20-23) are fired like other shots (range band from `ranges`, line of sight).
  On a 1-4 they drift: 1d8 for one of the 8 grid directions (which face is which is not on the
  page: each is 1/8 whatever the numbering) and 1d6 boxes. A rocket landing on a unit forces a
  morale check, -1 for infantry and -2 for cavalry; the page gives no rocket modifier for
  artillery or machine guns.
- Overheating (lines 13-17): checked at the end of a turn in which the gun fired (`fired`), once
  it has fired 2 turns in a row; it overheats when 1d6 <= the turns of firing. Then it either
  rests a turn and cools (it may not fire the next turn, and is ok at its end), or keeps firing
  and checking, and a second failure breaks it for good. A turn without firing ends a run of
  turns firing, and cools an overheated gun as a rest does. A scene that gives
  `consecutive_fire` but not `fired` is read as the gun has not fired yet this turn (the
  default): no check, and the answer names the assumed `fired`.
- Moves (lines 24-31): infantry 1 box in any of 8 directions; cavalry 1 or 2 boxes in a straight
  line, 1 diagonal, or 1 diagonal and 1 straight in either order, never 2 diagonals; a move may
  stop after its first box. The page does not say how artillery and machine guns move, nor
  whether terrain or other units stop a move (occupied boxes are listed, not refused).
- Facing (lines 24-26): a unit faces as its first base does, read as the nearest of the 8 grid
  directions; `move` reports an infantry or cavalry unit facing a corner as illegal and
  `move UNIT FACING` refuses a corner for them.
- Base-to-base contact: the two units' boxes share a side (or are the same box), or their
  bases touch within the measurement's uncertainty. Boxes meeting only at a corner are not
  contact unless the bases touch.
- Sight: the page says nothing; woods, towns, buildings and hills between two units block it
  (traced between their nearest bases), a unit sees out of the piece it stands in. Cover is
  reported, but its modifier is on the QRC.
- Morale (line 39): the page names the three grades only; `morale UNIT` gives the grade, the
  rocket modifier of each check a rocket forced (line 22) and says the procedure is on the QRC.
  The only result the page knows is `broken` (line 6), so the players say whether the QRC's
  result leaves the unit broken. `suggest` asks it of units with a check a rocket forced.
- The sequence of play is not on page 3: `phases` follow the page's sections (1. Firing,
  2. Movement, 3. Melee, 5. Morale) and the end of the turn, when overheating is checked
  (line 13); every side acts in each (no initiative on the page).
- Hits (lines 5, 34) are kept as a count; how many take off a base is on the QRC's Unit Stats,
  so the players say which bases come off, and the camera stops counting them (line 4).
- A unit fires once a turn: `suggest` leaves out units that have fired (`fired`); `shoot`
  still answers for them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from .. import dice as dice_math
from .. import geometry as geo
from ..engine import (
    Action,
    Candidate,
    Cite,
    Modifier,
    OutcomeRule,
    RangeBand,
    Resolution,
    Roll,
    Ruleset,
    Threshold,
    check_attr,
    expect_args,
    length_json,
    threshold_json,
)
from ..errors import MissingAttribute, QuestionError, accepted
from ..measure import table_of
from ..scene import Scene, Unit
from ..state import Change, Field, Kind, Phase, Report, Scope

SHEET = "003_5b7c133d01707a77.txt"
RULESET_ID = "age-of-napoleon"


def _cite(line: int, text: str) -> Cite:
    return Cite(SHEET, line, text)


# --------------------------------------------------------------------------------------------
# The sheet's numbers, each with its line

DIAGONAL = _cite(18, "Firing on the diagonal: Count each square as 1.5 boxes")
DIAGONAL_EXAMPLE = _cite(19, "Range becomes 3 (1.5 +1.5) and the shot is long range")
DICE_PER_BASE = _cite(4, "Add 1 die for each base in the firing unit")
MODIFIERS_ROUND_UP = _cite(5, "modifiers as per the QRC (round fractions up)")
SCORE_IS_HITS = _cite(5, "the dice score is the number of")
NEVER_LESS_THAN_ONE = _cite(6, "it will still roll 1 die (i.e. never less than")
REGULARS_D6 = _cite(8, "will shoot with six sided dice (d6)")
NATIVES_D3 = _cite(9, "native units will shoot with 3 sided dice (d3)")
D6_HALVED = _cite(9, "If no d3s are available just roll d6s and divide the total by 2")
LEADER_CHECK_FIRE = _cite(10, "When a unit gets at least 5 hits on an enemy unit with a leader")
LEADER_FACE = _cite(37, "if one or more 6 is rolled on a d6 or one or more 3 is rolled on a d3")
LEADER_TABLE = _cite(37, "The attacker now rolls 2d6 on")
OVERHEAT_START = _cite(13, "Begin checking at the end of a turn in which the machine gun")
OVERHEAT_ROLL = _cite(14, "gun overheats if the die score is equal to or less than the number")
OVERHEAT_AGAIN = _cite(16, "but if it fails again it is permanently broken")
OVERHEAT_REST = _cite(16, "Otherwise it may not fire for 1 turn and then it cools down")
ROCKET_ON_TARGET = _cite(20, "Roll 1d6 and rocket lands on target on a 5 or 6")
ROCKET_DRIFT = _cite(21, "Dice for direction (1d8) and roll 1d6 for distance")
ROCKET_NO_HITS = _cite(22, "cause hits but force a morale check at -1 for infantry")
ROCKET_CAVALRY = _cite(23, "and -2 for cavalry")
FACE_SIDE = _cite(24, "Infantry and cavalry units must face a specific side")
FACE_CORNER = _cite(25, "Artillery and machine guns may face")
INFANTRY_MOVE = _cite(26, "Infantry moves 1 box in any")
INFANTRY_TURN = _cite(27, "may change facing with no additional effect")
CAVALRY_STRAIGHT = _cite(28, "Cavalry may move 1 or 2 boxes if moving straight")
CAVALRY_DIAGONAL_FIRST = _cite(29, "unit may move 1 box diagonally and then 1 box straight or 1")
CAVALRY_STRAIGHT_FIRST = _cite(30, "box straight and then 1 box diagonally but never 2 boxes")
MELEE_DICE = _cite(32, "When in base to base contact add up the number of bases")
MELEE_HITS = _cite(34, "the number of hits the enemy takes")
GUNNERS_D3 = _cite(35, "most units will roll d6s with gunners rolling d3s")
MORALE_GRADES = _cite(39, "There are only 3 morale grades: Raw, Experienced and Elite")
MORALE_QRC = _cite(40, "modifiers and results")
FIRING_SECTION = _cite(3, "1. Firing:")
MOVEMENT_SECTION = _cite(24, "2. Movement:")
MELEE_SECTION = _cite(32, "3. Melee:")
MORALE_SECTION = _cite(39, "5. Morale:")
UNIT_STATS_DICE = _cite(
    7, "As per the Unit Stats list different units will roll one of 2 different dice"
)
RIFLE_ARMED = _cite(18, "a rifle armed unit fires 2 boxes on the")
NOT_BROKEN = _cite(6, "If a unit, that is not broken, ends up with zero dice")
LEADER_BASE = _cite(4, "including the unit’s leader base")
GUN_FIRED = _cite(13, "in which the machine gun has fired for at")
CONSECUTIVE_TURNS = _cite(14, "least 2 consecutive turns")
OVERHEAT_KEEP_FIRING = _cite(15, "Machine gun may continue to fire and check as above")
COOLS_DOWN = _cite(16, "then it cools down")

TYPES = ("infantry", "cavalry", "artillery", "machine-gun")
DIE_SIDES = MappingProxyType({"d6": 6, "d3": 3})
DIE_CITES = MappingProxyType({"d6": REGULARS_D6, "d3": NATIVES_D3})
GRADES = ("raw", "experienced", "elite")
LEADER_ROLE = "leader"
LEADER_CHECK_HITS = 5
"""Line 10: a leader is checked for from fire when a unit gets at least 5 hits."""
ROCKET_LANDS_ON = 5
"""Line 20: the rocket lands on target on a 5 or 6."""
ROCKET_DRIFT_DIRECTIONS = 8
ROCKET_DRIFT_DISTANCE = 6
ROCKET_MORALE = MappingProxyType(
    {"infantry": (-1, ROCKET_NO_HITS), "cavalry": (-2, ROCKET_CAVALRY)}
)
OVERHEAT_FROM_TURNS = 2
"""Line 13: checks begin once the gun has fired for at least 2 consecutive turns."""
ROCKET_WEAPON = "rocket"

GUN_OK, GUN_HOT, GUN_COOLING, GUN_BROKEN = "ok", "overheated", "cooling", "broken"
GUN_STATES = (GUN_OK, GUN_HOT, GUN_COOLING, GUN_BROKEN)
"""A machine gun's overheating (lines 15-17): ok; overheated and kept firing (a second failure
breaks it); cooling (overheated and rests: it may not fire this turn, then it is ok); broken
for good."""
REST, KEEP_FIRING = "rest", "keep firing"
"""What the players choose for a gun that overheats for the first time (lines 15-17)."""
NOTHING = "nothing"
"""A rocket that lands on no unit (drifts onto an empty box or off the table)."""
MODIFIER_KEYS = ("fire_modifiers", "melee_modifiers")
"""Lists of the QRC's modifiers the players give on a unit (not a `Field`: a list of objects)."""

UNIT_FIELDS: tuple[Field, ...] = (
    Field("type", Kind.CHOICE, FACE_SIDE, "troop type", choices=TYPES, in_play=False),
    Field(
        "weapon",
        Kind.TEXT,
        RIFLE_ARMED,
        "weapon (a name in the game's ranges; rocket fires rockets; none: does not fire)",
        in_play=False,
    ),
    Field(
        "die",
        Kind.CHOICE,
        UNIT_STATS_DICE,
        "die it rolls (Unit Stats list)",
        choices=tuple(DIE_SIDES),
        in_play=False,
    ),
    Field(
        "melee_die",
        Kind.CHOICE,
        GUNNERS_D3,
        "die it rolls in melee, when the Unit Stats list gives another",
        choices=tuple(DIE_SIDES),
        in_play=False,
    ),
    Field("quality", Kind.CHOICE, MORALE_GRADES, "morale grade", choices=GRADES, in_play=False),
    Field("broken", Kind.FLAG, NOT_BROKEN, "broken", default=False),
    Field("hits", Kind.COUNT, MELEE_HITS, "hits taken", default=0),
    Field("fired", Kind.FLAG, GUN_FIRED, "fired this turn", default=False, per_turn=True),
    Field("moved", Kind.FLAG, INFANTRY_MOVE, "moved this turn", default=False, per_turn=True),
    Field(
        "consecutive_fire",
        Kind.COUNT,
        CONSECUTIVE_TURNS,
        "turns in a row the machine gun has fired",
        default=0,
    ),
    Field(
        "gun_state",
        Kind.CHOICE,
        OVERHEAT_KEEP_FIRING,
        "machine gun: ok, overheated (kept firing), cooling (rests this turn) or broken",
        default=GUN_OK,
        choices=GUN_STATES,
    ),
    Field(
        "rocket_checks",
        Kind.COUNT,
        ROCKET_NO_HITS,
        "morale checks forced by rockets, not yet taken",
        default=0,
    ),
)
"""Every unit attribute this page reads besides `id`, `side`, `bases` and the modifier lists."""

Box = tuple[int, int]

# Directions on the grid: the facing in degrees (CONTRACT.md: counter-clockwise from +x,
# 90 = towards the far edge) and the step to the neighbouring box.
DIRECTIONS: MappingProxyType[str, tuple[int, Box]] = MappingProxyType(
    {
        "east": (0, (1, 0)),
        "north-east": (45, (1, 1)),
        "north": (90, (0, 1)),
        "north-west": (135, (-1, 1)),
        "west": (180, (-1, 0)),
        "south-west": (225, (-1, -1)),
        "south": (270, (0, -1)),
        "south-east": (315, (1, -1)),
    }
)
SIDES = ("east", "north", "west", "south")
CORNERS = ("north-east", "north-west", "south-west", "south-east")
LEGAL_FACINGS: MappingProxyType[str, tuple[tuple[str, ...], Cite]] = MappingProxyType(
    {
        "infantry": (SIDES, FACE_SIDE),
        "cavalry": (SIDES, FACE_SIDE),
        "artillery": (SIDES + CORNERS, FACE_CORNER),
        "machine-gun": (SIDES + CORNERS, FACE_CORNER),
    }
)


@dataclass(frozen=True, slots=True)
class MovePattern:
    """One way a unit may move: a sequence of straight or diagonal one-box steps."""

    steps: tuple[str, ...]
    """`straight`, `diagonal` or `any` for each box entered."""
    how: str
    """The pattern in players' words."""
    cite: Cite
    same_line: bool = False
    """All steps in the same direction (a straight line)."""


MOVES: MappingProxyType[str, tuple[MovePattern, ...]] = MappingProxyType(
    {
        "infantry": (MovePattern(("any",), "1 box", INFANTRY_MOVE),),
        "cavalry": (
            MovePattern(("straight",), "1 box straight", CAVALRY_STRAIGHT),
            MovePattern(("straight", "straight"), "2 boxes straight", CAVALRY_STRAIGHT, True),
            MovePattern(("diagonal",), "1 box diagonally", CAVALRY_DIAGONAL_FIRST),
            MovePattern(
                ("diagonal", "straight"),
                "1 box diagonally then 1 straight",
                CAVALRY_DIAGONAL_FIRST,
            ),
            MovePattern(
                ("straight", "diagonal"),
                "1 box straight then 1 diagonally",
                CAVALRY_STRAIGHT_FIRST,
            ),
        ),
    }
)
"""Lines 26-31. Never 2 diagonals: no pattern has two."""


# --------------------------------------------------------------------------------------------
# Dice math of this sheet


@lru_cache(maxsize=256)
def hits_distribution(dice: int, sides: int) -> tuple[Fraction, ...]:
    """P(hits = k): the hits are the dice total (line 5)."""
    return dice_math.total(dice, sides)


@lru_cache(maxsize=256)
def d6_halved_distribution(dice: int) -> tuple[Fraction, ...]:
    """P(hits = k) rolling d6s for d3s and halving the total, rounding up (line 9)."""
    out = [Fraction(0)] * (3 * dice + 1)
    for total, p in enumerate(dice_math.total(dice, 6)):
        out[math.ceil(total / 2)] += p
    return tuple(out)


@lru_cache(maxsize=256)
def leader_check_chance(dice: int, sides: int, min_hits: int) -> Fraction:
    """P(the total is at least `min_hits` and one or more dice show the top face).

    Outcomes with no top face are those of dice numbered 1..sides-1, so the chance is
    (#outcomes with total >= min_hits) - (#such outcomes without a top face), over sides**dice.
    """
    if dice == 0:
        return Fraction(0)
    every = dice_math.face_counts(dice, sides)
    no_top = dice_math.face_counts(dice, sides - 1) if sides > 2 else {dice: 1}
    hits = sum(n for total, n in every.items() if total >= min_hits)
    misses = sum(n for total, n in no_top.items() if total >= min_hits)
    return Fraction(hits - misses, sides**dice)


def overheat_chance(turns: int) -> Fraction:
    """P(1d6 <= turns of firing) (line 14)."""
    return Fraction(min(max(turns, 0), 6), 6)


# --------------------------------------------------------------------------------------------
# Reading the scene


def _fail(message: str) -> QuestionError:
    return QuestionError(f"{RULESET_ID}: {message}")


def grid_box_of(scene: Scene) -> float:
    """The side of one box, mm; a scene without a grid cannot be measured in boxes."""
    if scene.grid_box is None:
        raise _fail(
            'the scene has no grid; give "grid": {"box": SIDE} (the side of one square, in the '
            f"scene's unit): every distance of this sheet is counted in boxes ({DIAGONAL})"
        )
    return scene.grid_box


@dataclass(frozen=True, slots=True)
class Band:
    """One range band of a weapon: it reaches out to `limit` boxes."""

    label: str
    limit: float


def range_bands(scene: Scene, unit: Unit) -> tuple[Band, ...]:
    """The range bands of a unit's weapon from the scene's `ranges`, nearest first."""
    weapon = unit.get("weapon")
    if weapon is None:
        raise _fail(f"unit {unit.id!r} has no 'weapon', so it does not fire")
    ranges = scene.extra.get("ranges")
    example = f'"ranges": {{"{weapon}": {{"short": B, "medium": B, "long": B}}}} (in boxes)'
    if ranges is None:
        raise _fail(
            f"the scene has no 'ranges', so the range of weapon {weapon!r} of unit {unit.id!r} "
            f"is unknown (the range table is on the QRC, not on page 3); give {example}"
        )
    if not isinstance(ranges, dict):
        raise _fail(f"the scene's 'ranges' must be an object of weapons; give {example}")
    if weapon not in ranges:
        known = accepted(sorted(ranges)) or "none"
        raise _fail(
            f"the scene's 'ranges' has no entry for weapon {weapon!r} of unit {unit.id!r} "
            f"(weapons with ranges: {known}); the range table is on the QRC, not on page 3; "
            f"give {example}"
        )
    entry = ranges[weapon]
    if not isinstance(entry, dict) or not entry:
        raise _fail(f"ranges.{weapon} must be an object of band limits in boxes; give {example}")
    bands = []
    for label, limit in entry.items():
        if isinstance(limit, bool) or not isinstance(limit, int | float) or not limit >= 0:
            raise _fail(
                f"ranges.{weapon}.{label} must be a number of boxes (0 or more), got {limit!r}"
            )
        bands.append(Band(str(label), float(limit)))
    return tuple(sorted(bands, key=lambda b: b.limit))


def band_of(bands: Sequence[Band], boxes: float) -> Band | None:
    """The nearest band reaching `boxes`, or None when beyond the longest."""
    return next((b for b in bands if geo.within(boxes, b.limit)), None)


def unit_type(unit: Unit) -> str:
    """The unit's `type`, one of the four this page names (required)."""
    return check_attr(unit, "type", TYPES, ruleset=RULESET_ID)


def die_of(unit: Unit, melee: bool = False) -> str:
    """The die a unit rolls: `melee_die` in melee when given, else `die` (lines 7-9, 35)."""
    if melee and unit.get("melee_die") is not None:
        return check_attr(unit, "melee_die", tuple(DIE_SIDES), ruleset=RULESET_ID)
    return check_attr(unit, "die", tuple(DIE_SIDES), ruleset=RULESET_ID)


def _flag(unit: Unit, key: str) -> bool:
    """A flag of the unit's state (its start-of-game default is filled in when a scene is read;
    a scene made otherwise without it is missing it)."""
    value = unit.get(key)
    if value is None:
        raise MissingAttribute(RULESET_ID, unit.id, key, "true or false", False)
    if not isinstance(value, bool):
        raise _fail(f"unit {unit.id!r} has {key} {value!r}; accepted values are true or false")
    return value


def _count(unit: Unit, key: str) -> int:
    """A count of the unit's state (0 or more)."""
    value = unit.get(key)
    if value is None:
        raise MissingAttribute(RULESET_ID, unit.id, key, "a whole number from 0", 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail(f"unit {unit.id!r} has {key} {value!r}; accepted: a whole number from 0")
    return value


def gun_state(unit: Unit) -> str:
    """A machine gun's overheating state (lines 15-17)."""
    return check_attr(unit, "gun_state", GUN_STATES, ruleset=RULESET_ID)


def may_fire(unit: Unit) -> tuple[bool, str]:
    """Whether a unit may fire this turn, and why not: a machine gun cooling down or broken for
    good does not (line 16). Only a machine gun's `gun_state` leaves `ok`."""
    state = gun_state(unit)
    if state == GUN_COOLING:
        return False, f"it overheated and rests: it may not fire this turn ({OVERHEAT_REST})"
    if state == GUN_BROKEN:
        return False, f"it overheated twice and is permanently broken ({OVERHEAT_AGAIN})"
    return True, ""


def leader_base(unit: Unit) -> str | None:
    """The id of the unit's leader base, if it has one (roles checked)."""
    found = None
    for base in unit.bases:
        if base.role is None:
            continue
        if base.role != LEADER_ROLE:
            raise _fail(
                f"base {base.id!r} of unit {unit.id!r} has role {base.role!r}; the accepted "
                f"value is {LEADER_ROLE!r} (the unit's leader base, line 4)"
            )
        found = found or base.id
    return found


@dataclass(frozen=True, slots=True)
class DiceCount:
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
        raise _fail(f"unit {unit.id!r}: {form}, got {given!r}")
    out = []
    target_ids = {target.id, *(b.id for b in target.bases)}
    for i, item in enumerate(given):
        where = f"unit {unit.id!r} {key}[{i}]"
        if not isinstance(item, dict) or set(item) - {"dice", "reason", "target"}:
            raise _fail(f"{where}: {form}, got {item!r}")
        value, reason = item.get("dice"), item.get("reason")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(f"{where}: 'dice' must be a number of dice to add, got {value!r}")
        if not isinstance(reason, str) or not reason.strip():
            raise _fail(f"{where}: 'reason' must say which QRC modifier this is, got {reason!r}")
        only = item.get("target")
        if only is not None and only not in target_ids:
            continue
        out.append(Modifier(value, f"{reason} (QRC, given in the scene)"))
    return tuple(out)


def count_dice(unit: Unit, target: Unit, *, melee: bool) -> DiceCount:
    """Dice of a unit: one a base including the leader's, plus modifiers, rounded up."""
    mods = scene_modifiers(unit, "melee_modifiers" if melee else "fire_modifiers", target)
    raw = len(unit.bases) + sum((Fraction(m.value) for m in mods), Fraction(0))
    dice = max(math.ceil(raw), 0)
    lifted = not melee and dice == 0 and not _flag(unit, "broken")
    return DiceCount(len(unit.bases), leader_base(unit), mods, raw, 1 if lifted else dice, lifted)


# --------------------------------------------------------------------------------------------
# The grid


@dataclass(frozen=True, slots=True)
class Placing:
    """Where a unit stands on the grid."""

    unit: Unit
    box: Box
    """The box holding the mean of its bases' centres."""
    centre: tuple[float, float]
    """That mean, mm."""
    edge_margin: float
    """mm from the centre to the nearest side of its box."""
    uncertainty: float
    """mm: the largest position uncertainty of its bases."""
    candidates: frozenset[Box]
    """Every box the centre may be in, given the uncertainty."""


def place(scene: Scene, unit: Unit) -> Placing:
    """The box a unit stands in, and the boxes it might be in given the measurement."""
    size = grid_box_of(scene)
    x = sum(b.x for b in unit.bases) / len(unit.bases)
    y = sum(b.y for b in unit.bases) / len(unit.bases)
    box = geo.grid_cell((x, y), size)
    margin = min(x - box[0] * size, (box[0] + 1) * size - x, y - box[1] * size)
    margin = min(margin, (box[1] + 1) * size - y)
    unc = max(scene.uncertainty_of(b) for b in unit.bases)
    near = frozenset(
        geo.grid_cell((x + dx, y + dy), size) for dx in (-unc, 0, unc) for dy in (-unc, 0, unc)
    )
    return Placing(unit, box, (x, y), margin, unc, near)


def box_verdict(a: Placing, b: Placing, judge: Callable[[Box, Box], object]) -> bool:
    """True when `judge` gives the same answer for every box each unit might be in."""
    if len(a.candidates) == len(b.candidates) == 1:
        return True
    answers = {judge(ca, cb) for ca in a.candidates for cb in b.candidates}
    return len(answers) == 1


class Board:
    """One scene's grid measurements, made once and shared by every question `suggest` asks:
    the `Table` of edge distances, each unit's box, and the nearest bases of two units."""

    def __init__(self, scene: Scene) -> None:
        grid_box_of(scene)
        self.scene = scene
        self.table = table_of(scene)
        self._places: dict[str, Placing] = {}
        self._first = {u.id: self.table.index[u.bases[0].id] for u in scene.units}
        self._row = {u.id: k for k, u in enumerate(scene.units)}
        self._by_id = {i: u for u in scene.units for i in (u.id, *(b.id for b in u.bases))}

    def unit(self, ident: str) -> Unit:
        """The unit an id names (a unit or one of its bases)."""
        found = self._by_id.get(ident)
        return found if found is not None else self.scene.unit_of(ident)  # raises, naming ids

    def place(self, unit: Unit) -> Placing:
        if unit.id not in self._places:
            self._places[unit.id] = place(self.scene, unit)
        return self._places[unit.id]

    def closest(self, ua: Unit, ub: Unit) -> geo.Closest:
        """The nearest pair of bases of two units."""
        return self.table.unit_distance(ua, ub)

    @cached_property
    def unit_gaps(self) -> geo.Array:
        """The shortest edge distance between every two units (U, U), mm."""
        starts = [self._first[u.id] for u in self.scene.units]
        rows = np.minimum.reduceat(self.table.distances, starts, axis=0)
        return np.asarray(np.minimum.reduceat(rows, starts, axis=1))

    @cached_property
    def occupants(self) -> dict[Box, list[Unit]]:
        """The units standing in each occupied box."""
        out: dict[Box, list[Unit]] = {}
        for unit in self.scene.units:
            out.setdefault(self.place(unit).box, []).append(unit)
        return out

    def gap(self, ua: Unit, ub: Unit) -> float:
        return float(self.unit_gaps[self._row[ua.id], self._row[ub.id]])


def boxes_on_table(scene: Scene) -> tuple[int, int]:
    """Columns and rows of boxes wholly on the table."""
    size = grid_box_of(scene)
    return (
        math.floor(scene.table_width / size + 1e-9),
        math.floor(scene.table_depth / size + 1e-9),
    )


def on_table(box: Box, extent: tuple[int, int]) -> bool:
    return 0 <= box[0] < extent[0] and 0 <= box[1] < extent[1]


@lru_cache(maxsize=1024)
def drift_landings(start: Box, extent: tuple[int, int]) -> tuple[Box | None, ...]:
    """Where each of the 48 equally likely drifts (8 directions x 1-6 boxes, line 21) lands;
    None when off the table."""
    out: list[Box | None] = []
    for _, (dx, dy) in DIRECTIONS.values():
        for k in range(1, ROCKET_DRIFT_DISTANCE + 1):
            box = (start[0] + k * dx, start[1] + k * dy)
            out.append(box if on_table(box, extent) else None)
    return tuple(out)


def box_centre_json(scene: Scene, box: Box) -> dict[str, Any]:
    size = grid_box_of(scene)
    return {
        "x": length_json(scene, (box[0] + 0.5) * size)["value"],
        "y": length_json(scene, (box[1] + 0.5) * size)["value"],
        "unit": scene.unit,
    }


def side_adjacent(a: Box, b: Box) -> bool:
    """The same box or two boxes sharing a side."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) <= 1


def reachable(scene: Scene, unit_kind: str, start: Box) -> list[tuple[Box, MovePattern, Box]]:
    """Every box a unit of `unit_kind` may end in: (box, the first pattern reaching it, the
    step of its first box). Steps off the table are not taken."""
    extent = boxes_on_table(scene)
    straight = [DIRECTIONS[s][1] for s in SIDES]
    diagonal = [DIRECTIONS[c][1] for c in CORNERS]
    pool = {"straight": straight, "diagonal": diagonal, "any": straight + diagonal}
    found: dict[Box, tuple[MovePattern, Box]] = {}

    def walk(pattern: MovePattern, at: Box, left: tuple[str, ...], first: Box | None) -> None:
        if not left:
            if at != start and at not in found and first is not None:
                found[at] = (pattern, first)
            return
        for step in pool[left[0]]:
            if pattern.same_line and first is not None and step != first:
                continue
            nxt = (at[0] + step[0], at[1] + step[1])
            if on_table(nxt, extent):
                walk(pattern, nxt, left[1:], first or step)

    for pattern in MOVES[unit_kind]:
        walk(pattern, start, pattern.steps, None)
    return [(box, p, first) for box, (p, first) in sorted(found.items())]


def facing_name(degrees: float) -> tuple[str, float]:
    """The nearest of the 8 grid directions to a facing, and how many degrees off it is."""
    best = min(DIRECTIONS, key=lambda n: _angle_gap(degrees, DIRECTIONS[n][0]))
    return best, _angle_gap(degrees, DIRECTIONS[best][0])


def _angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


def parse_facing(text: str) -> str:
    """A facing asked for: a direction name or degrees that are a multiple of 45."""
    word = text.strip().lower()
    if word in DIRECTIONS:
        return word
    try:
        degrees = float(word)
    except ValueError:
        degrees = math.nan
    if math.isfinite(degrees):
        name, off = facing_name(degrees)
        if off < 1e-6:
            return name
    raise _fail(
        f"facing {text!r} is not a side or a corner of a box; give one of "
        f"{accepted(DIRECTIONS)} or degrees (0 = east, 90 = north, the far edge)"
    )


# --------------------------------------------------------------------------------------------
# Results shared by the actions


def _boxes(n: float) -> str:
    return f"{n:g} box" if n == 1 else f"{n:g} boxes"


def _reason(text: str, cite: Cite | None) -> dict[str, Any]:
    return {"reason": text, "source": None if cite is None else str(cite)}


def _fraction_json(p: Fraction) -> dict[str, Any]:
    return {"p": float(p), "exact": str(p)}


@lru_cache(maxsize=256)
def _dist_parts(
    dice: int, sides: int, halved: bool
) -> tuple[tuple[float, ...], tuple[str, ...], float, float]:
    """The JSON pieces of a hits distribution, made once per dice and die (`suggest` asks the
    same few hundreds of times)."""
    dist = d6_halved_distribution(dice) if halved else hits_distribution(dice, sides)
    return (
        tuple(dice_math.as_floats(dist)),
        tuple(str(p) for p in dist),
        float(dice_math.mean(dist)),
        float(dice_math.at_least(dist, LEADER_CHECK_HITS)),
    )


def hits_json(dice: int, sides: int, *, halved: bool = False) -> dict[str, Any]:
    """P(k hits) as floats and exact fractions, and the mean; `halved`: d6s halved (line 9)."""
    floats, exact, mean, five = _dist_parts(dice, sides, halved)
    return {
        "distribution": list(floats),
        "distribution_exact": list(exact),
        "mean": mean,
        "p_at_least_5": five,
    }


def dice_json(count: DiceCount, die: str) -> dict[str, Any]:
    return {
        "bases": count.bases,
        "leader_base": count.leader,
        "modifiers": [m.as_json() for m in count.modifiers],
        "before_rounding": float(count.raw),
        "dice": count.dice,
        "die": die,
        "never_less_than_one_applied": count.floor_applied,
    }


def hits_roll(purpose: str, count: DiceCount, die: str, cite: Cite) -> Roll:
    """The dice whose total is the hits, with the distribution of that total."""
    sides = DIE_SIDES[die]
    return Roll(
        purpose,
        count.dice,
        sides,
        None,
        hits_distribution(count.dice, sides),
        count.modifiers,
        cite,
        "the dice total is the number of hits; distribution[k] = P(k hits)",
    )


def roll_json(roll: Roll) -> dict[str, Any]:
    """`Roll.as_json`, with the floats of a dice-total distribution made once per dice and die
    (`suggest` turns the same few distributions into JSON hundreds of times)."""
    if roll.need is not None or not roll.distribution:
        return roll.as_json()
    out = replace(roll, distribution=()).as_json()
    out["distribution"] = list(_dist_parts(roll.dice, roll.sides, False)[0])
    return out


def leader_roll() -> Roll:
    return Roll(
        "leader hit (2d6 on the Leader Hits Table, QRC)",
        2,
        6,
        None,
        hits_distribution(2, 6),
        (),
        LEADER_TABLE,
        "the Leader Hits Table is on the QRC, not on page 3; distribution[k] = P(2d6 = k)",
    )


def leader_check_json(
    target: Unit, count: DiceCount, die: str, min_hits: int, cite: Cite
) -> dict[str, Any]:
    """Whether and how likely the target's leader must be checked for (lines 10, 36-37)."""
    leader = leader_base(target)
    sides = DIE_SIDES[die]
    p = leader_check_chance(count.dice, sides, min_hits) if leader else Fraction(0)
    return {
        "target_has_leader": leader is not None,
        "leader_base": leader,
        "min_hits": min_hits,
        "top_face": sides,
        "p": float(p),
        "p_exact": str(p),
        "source": [str(cite), str(LEADER_FACE)],
    }


def _who(scene: Scene, ident: str) -> Unit:
    return scene.unit_of(ident)


def _enemies(a: Unit, b: Unit, action: str) -> None:
    if a.id == b.id:
        raise _fail(f"{action}: {a.id!r} and {b.id!r} are the same unit")
    if a.side == b.side:
        raise _fail(
            f"{action}: units {a.id!r} and {b.id!r} are both on side {a.side!r}; pick an enemy unit"
        )


# --------------------------------------------------------------------------------------------
# Outcomes: the reports the players fill in and the changes they lead to


def _refuse_unless_allowed(res: Resolution, what: str) -> None:
    """No dice to report for a shot the rules do not allow (a range band too close to call
    is the players' to decide, so its shot may be reported)."""
    data = res.data
    if data["allowed"]:
        return
    if not data["in_sight"]:
        why = "out of sight"
    elif not data.get("may_fire", True):
        why = "it may not fire this turn"
    elif "dice" in data and not data["dice"]["dice"]:
        why = "it has no dice"
    elif data["range"]["verdict"] == "too close to call":
        return
    else:
        why = "out of range"
    raise _fail(f"{what}: {why}, so there are no dice to report")


def _likeliest(dice: int, sides: int) -> int:
    """The likeliest dice total (the form's first reading)."""
    dist = hits_distribution(dice, sides)
    return max(range(len(dist)), key=lambda k: dist[k])


def _hits_report(
    name: str, victim: Unit, attacker: str, dice: int, sides: int, cite: Cite
) -> Report:
    return Report(
        name,
        Kind.COUNT,
        f"hits {victim.id} takes: the total of the {dice}d{sides} of {attacker}",
        cite,
        maximum=dice * sides,
        default=_likeliest(dice, sides),
    )


def _top_face_report(name: str, victim: Unit, attacker: str, sides: int) -> Report:
    return Report(
        name,
        Kind.FLAG,
        f"one or more {sides}s rolled by {attacker} (a leader check on {victim.id})",
        LEADER_FACE,
        default=False,
    )


def _removed_report(name: str, unit: Unit) -> Report:
    return Report(
        name,
        Kind.BASES,
        f"bases of {unit.id} taken off for the hits (the QRC's Unit Stats say how many hits "
        "take off a base; the leader's if the Leader Hits Table says so)",
        DICE_PER_BASE,
        unit=unit.id,
        bases=tuple(b.id for b in unit.bases),
        maximum=len(unit.bases),
        default=(),
    )


def _hits_changes(
    victim: Unit, attacker: Unit, hits: int, leader_check: bool, sides: int, cite: Cite
) -> tuple[Change, ...]:
    """The hits a unit takes, added to those it took before; a leader check when due."""
    if not hits:
        return ()
    reason = f"{hits} hits from {attacker.id} (the dice total)"
    if leader_check:
        reason += (
            f"; a {sides} rolled"
            + (" with at least 5 hits" if cite == SCORE_IS_HITS else "")
            + f": {attacker.id} rolls 2d6 on the Leader Hits Table (QRC) "
            f"({LEADER_CHECK_FIRE if cite == SCORE_IS_HITS else LEADER_FACE})"
        )
    return (Change(victim.id, "hits", _count(victim, "hits") + hits, reason, cite),)


def _removed_changes(bases: Sequence[str], attacker: Unit) -> tuple[Change, ...]:
    return tuple(
        Change(
            b,
            "removed",
            True,
            f"taken off for the hits of {attacker.id}",
            DICE_PER_BASE,
            Scope.BASE,
        )
        for b in bases
    )


def _fired_changes(unit: Unit) -> tuple[Change, ...]:
    """A unit fires once a turn: `fired`, and a machine gun's run of turns firing grows."""
    if _flag(unit, "fired"):
        return ()
    out = [Change(unit.id, "fired", True, "fired this turn", GUN_FIRED)]
    if unit.get("type") == "machine-gun":
        turns = _count(unit, "consecutive_fire") + 1
        out.append(
            Change(unit.id, "consecutive_fire", turns, f"{turns} turns in a row", CONSECUTIVE_TURNS)
        )
    return tuple(out)


# --------------------------------------------------------------------------------------------
# The ruleset


class AgeOfNapoleon(Ruleset):
    id = "age-of-napoleon"
    title = "Warfare in the Age of Napoleon (page 3)"
    sheet = SHEET
    unit = "cm"
    grid = True
    phases: ClassVar[tuple[str, ...]] = ("firing", "movement", "melee", "morale", "end-of-turn")
    phase_steps: ClassVar[tuple[Phase, ...]] = (
        Phase(
            "firing",
            "Every side fires: shots in range and sight, rockets, leader checks",
            "all",
            FIRING_SECTION,
        ),
        Phase(
            "movement",
            "Every side moves: infantry 1 box, cavalry 1 or 2 boxes",
            "all",
            MOVEMENT_SECTION,
        ),
        Phase("melee", "Units in base to base contact fight", "all", MELEE_SECTION),
        Phase(
            "morale",
            "Units a rocket landed on take their morale check (procedure on the QRC)",
            "all",
            MORALE_SECTION,
        ),
        Phase(
            "end-of-turn",
            "Machine guns that fired 2 turns in a row check for overheating",
            "all",
            OVERHEAT_START,
        ),
    )
    sides_rule: ClassVar[str] = (
        "page 3 gives no sequence of play and no initiative: every side acts in every phase "
        "('all'); the page's sections give the order (1. Firing, 2. Movement, 3. Melee, "
        "5. Morale) and overheating is checked at the end of the turn (line 13)"
    )
    unit_fields: ClassVar[tuple[Field, ...]] = UNIT_FIELDS
    scene_keys: ClassVar[frozenset[str]] = frozenset({"ranges"})

    def known_unit_keys(self) -> frozenset[str]:
        """The declared fields and the QRC modifier lists (not a `Field`: lists of objects), so
        that `fire_modifier` is refused as a typo of `fire_modifiers`."""
        return super().known_unit_keys() | frozenset(MODIFIER_KEYS)

    def side_groups(
        self, scene: Scene, initiative: str | None = None
    ) -> dict[str, tuple[str, ...]]:
        """Every side acts in every phase (no initiative on page 3)."""
        return {"all": tuple(dict.fromkeys(u.side for u in scene.units))}

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """None to draw: on this grid a range is counted in boxes (a diagonal step 1.5), which a
        ring around the unit would misstate; `shoot` gives the band in boxes."""
        return ()

    def actions(self) -> dict[str, Action]:
        return {
            **super().actions(),
            "shoot": self.shoot,
            "rocket": self.rocket,
            "overheat": self.overheat,
            "move": self.move,
            "melee": self.melee,
            "morale": self.morale,
            "suggest": self.suggest,
        }

    # ------------------------------------------------------------------------------------
    # Firing

    def shoot(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`shoot SHOOTER TARGET`: range band in boxes, sight, dice, hits and leader check."""
        a, b = expect_args("shoot", args, ("SHOOTER", "TARGET"))
        return self._shoot(Board(scene), a, b)

    def _shoot(self, board: Board, a: str, b: str) -> Resolution:
        shooter, target = board.unit(a), board.unit(b)
        _enemies(shooter, target, "shoot")
        if shooter.get("weapon") == ROCKET_WEAPON:
            raise _fail(
                f"unit {shooter.id!r} fires rockets, which cause no hits ({ROCKET_NO_HITS}); "
                f"ask 'rocket {a} {b}'"
            )
        die = die_of(shooter)
        sight_ok, data, lines = self._shot(board, shooter, target, "shoot", a, b)
        count = count_dice(shooter, target, melee=False)
        band = data["band"]
        fires, why_not = may_fire(shooter)
        allowed = band != "out-of-range" and sight_ok and count.dice > 0 and fires
        reasons = data["reasons"]
        lines.append(
            f"{count.dice}{die} for {count.bases} bases"
            + (f" including leader base {count.leader}" if count.leader else "")
            + "".join(f", {m.value:+g} {m.reason}" for m in count.modifiers)
            + (" (never less than one die)" if count.floor_applied else "")
        )
        reasons.append(_reason("one die a base, including the leader's", DICE_PER_BASE))
        reasons.append(_reason(f"{die} as the Unit Stats list gives (unit 'die')", DIE_CITES[die]))
        if count.modifiers:
            reasons.append(_reason("modifiers added, fractions rounded up", MODIFIERS_ROUND_UP))
        if count.floor_applied:
            reasons.append(_reason("an unbroken unit rolls at least 1 die", NEVER_LESS_THAN_ONE))
        if count.dice == 0:
            lines.append(f"{shooter.id} is broken and ends with no dice: it does not fire")
        if not fires:
            lines.append(f"{shooter.id} does not fire: {why_not}")
            reasons.append(_reason(why_not, None))
        rolls: list[Roll] = []
        if allowed:
            roll = hits_roll("hits (dice total)", count, die, SCORE_IS_HITS)
            rolls.append(roll)
            check = leader_check_json(target, count, die, LEADER_CHECK_HITS, LEADER_CHECK_FIRE)
            data["hits"] = hits_json(count.dice, roll.sides)
            data["leader_check"] = check
            lines.append(
                f"hits = the dice total ({SCORE_IS_HITS}): {count.dice} to "
                f"{count.dice * roll.sides}, {data['hits']['mean']:.2f} on average"
            )
            if check["target_has_leader"]:
                rolls.append(leader_roll())
                lines.append(
                    f"leader check on {target.id} (at least 5 hits and a {roll.sides} rolled): "
                    f"{check['p_exact']} = {check['p']:.3f}; then 2d6 on the Leader Hits Table "
                    "(QRC)"
                )
            if die == "d3":
                halved = hits_json(count.dice, 6, halved=True)
                data["d6_substitute"] = {**halved, "source": str(D6_HALVED)}
                lines.append(
                    f"no d3s? roll {count.dice}d6 and halve the total, rounding up ({D6_HALVED})"
                )
        data.update(
            allowed=allowed,
            may_fire=fires,
            weapon=shooter.get("weapon"),
            die=die,
            dice=dice_json(count, die),
            rolls=[roll_json(r) for r in rolls],
        )
        lines.append("allowed" if allowed else "not allowed")
        return Resolution("shoot", MappingProxyType(data), tuple(lines))

    def _shot(
        self,
        board: Board,
        shooter: Unit,
        target: Unit,
        action: str,
        a: str,
        b: str,
    ) -> tuple[bool, dict[str, Any], list[str]]:
        """The range band in boxes, sight and cover of one shot: (in sight, data, lines)."""
        scene, table = board.scene, board.table
        bands = range_bands(scene, shooter)
        pa, pb = board.place(shooter), board.place(target)
        boxes = geo.grid_steps(pa.box, pb.box)
        band = band_of(bands, boxes)
        steady = box_verdict(pa, pb, lambda x, y: band_of(bands, geo.grid_steps(x, y)))
        near = board.closest(shooter, target)
        sight = table.sight(self.sight_policy, near.a, near.b)
        cover = table.cover(self.cover_policy, near.a, near.b)
        label = "out-of-range" if band is None else band.label
        limit = bands[-1].limit if band is None else band.limit
        verdict = "too close to call" if not steady else "within" if band else "beyond"
        dx, dy = abs(pa.box[0] - pb.box[0]), abs(pa.box[1] - pb.box[1])
        data: dict[str, Any] = {
            "action": action,
            "ruleset": self.id,
            "shooter": a,
            "target": b,
            "between": {"a": near.a.id, "b": near.b.id},
            "distance": length_json(scene, near.distance),
            "boxes": boxes,
            "shooter_box": list(pa.box),
            "target_box": list(pb.box),
            "band": label,
            "bands": [{"label": x.label, "limit": x.limit} for x in bands],
            "range": {
                "boxes": boxes,
                "limit": limit,
                "margin_boxes": limit - boxes,
                "nearest_box_side": length_json(scene, min(pa.edge_margin, pb.edge_margin)),
                "uncertainty": length_json(scene, max(pa.uncertainty, pb.uncertainty)),
                "verdict": verdict,
            },
            "in_sight": sight.any,
            "sight": {
                "rays": sight.rays,
                "clear": sight.clear_rays,
                "blocked_by": list(sight.blocked_by),
            },
            "cover": {
                "cover": cover.cover.value,
                "reasons": list(cover.reasons),
                "note": "the cover modifier is on the QRC: give it in fire_modifiers",
            },
            "reasons": [
                _reason(f"{_boxes(boxes)}, a diagonal step counting 1.5", DIAGONAL),
                _reason(f"range bands of {shooter.get('weapon')} from the scene's ranges", None),
            ],
        }
        where = f"{label} (out to {_boxes(limit)})" if band else f"out-of-range (beyond {limit:g})"
        lines = [
            f"{a} ({shooter.get('weapon')}) to {b}: {_boxes(boxes)} ({min(dx, dy)} diagonal and "
            f"{abs(dx - dy)} straight steps, a diagonal counting 1.5, {DIAGONAL}): {where}",
        ]
        if min(dx, dy):
            data["reasons"].append(_reason("2 boxes on the diagonal are 3", DIAGONAL_EXAMPLE))
        if not steady:
            lines.append(
                "range band too close to call: a unit's centre is within the measurement's "
                "uncertainty of a box side"
            )
        if sight.any:
            lines.append(f"{b} is in sight of {a}")
        else:
            lines.append(f"{b} is not in sight of {a}: blocked by {', '.join(sight.blocked_by)}")
        if cover.cover.value != "none":
            lines.append(
                f"{b} has {cover.cover.value} cover ({'; '.join(cover.reasons)}): its modifier "
                "is on the QRC (give it in fire_modifiers)"
            )
        return sight.any, data, lines

    def rocket(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`rocket FIRER TARGET`: on target on 5-6, else drift; the morale check it forces."""
        a, b = expect_args("rocket", args, ("FIRER", "TARGET"))
        return self._rocket(Board(scene), a, b)

    def _rocket(self, board: Board, a: str, b: str) -> Resolution:
        scene = board.scene
        firer, target = board.unit(a), board.unit(b)
        _enemies(firer, target, "rocket")
        if firer.get("weapon") != ROCKET_WEAPON:
            raise _fail(
                f"unit {firer.id!r} has weapon {firer.get('weapon')!r}; rockets are fired by a "
                f"unit with weapon {ROCKET_WEAPON!r} (ask 'shoot' for other weapons)"
            )
        sight_ok, data, lines = self._shot(board, firer, target, "rocket", a, b)
        allowed = data["band"] != "out-of-range" and sight_ok
        on_target = Roll.success_roll(
            "rocket lands on target", 1, 6, ROCKET_LANDS_ON, cite=ROCKET_ON_TARGET
        )
        p_on = on_target.p_success or Fraction(0)
        p_drift = 1 - p_on
        direction = Roll(
            "drift direction",
            1,
            ROCKET_DRIFT_DIRECTIONS,
            None,
            cite=ROCKET_DRIFT,
            note="one of the 8 grid directions, each 1/8",
        )
        distance = Roll(
            "drift distance in boxes",
            1,
            ROCKET_DRIFT_DISTANCE,
            None,
            hits_distribution(1, ROCKET_DRIFT_DISTANCE),
            cite=ROCKET_DRIFT,
            note="distribution[k] = P(drifts k boxes)",
        )
        pb = board.place(target)
        struck = [(target, p_on), *self._drift_victims(board, pb.box, p_drift)]
        morale = [self._rocket_morale(unit, p) for unit, p in struck]
        landings = drift_landings(pb.box, boxes_on_table(scene))
        off = Fraction(landings.count(None), len(landings)) * p_drift
        data.update(
            allowed=allowed,
            weapon=firer.get("weapon"),
            rolls=[roll_json(r) for r in (on_target, direction, distance)] if allowed else [],
            on_target=_fraction_json(p_on),
            drift={**_fraction_json(p_drift), "off_table": _fraction_json(off)},
            morale_checks=morale,
            hits=0,
        )
        data["reasons"].append(_reason("rockets cause no hits", ROCKET_NO_HITS))
        lines += [
            f"1d6: lands on {b} on a 5 or 6 ({p_on}); on a 1-4 it drifts ({p_drift}): 1d8 for "
            f"direction, 1d6 boxes ({ROCKET_DRIFT})",
            f"no hits; a unit it lands on takes a morale check ({ROCKET_NO_HITS})",
        ]
        for m in morale:
            mod = "no rocket modifier on page 3" if m["modifier"] is None else f"{m['modifier']:+d}"
            lines.append(f"{m['unit']} ({m['type']}): morale check, {mod}, chance {m['exact']}")
        lines.append("allowed" if allowed else "not allowed")
        return Resolution("rocket", MappingProxyType(data), tuple(lines))

    def _drift_victims(
        self, board: Board, start: Box, p_drift: Fraction
    ) -> list[tuple[Unit, Fraction]]:
        """Units a drifting rocket may land on, with the chance of each."""
        landings = drift_landings(start, boxes_on_table(board.scene))
        hits: dict[str, int] = {}
        for box in landings:
            for unit in board.occupants.get(box, []) if box is not None else []:
                hits[unit.id] = hits.get(unit.id, 0) + 1
        share = p_drift / len(landings)
        return [(u, share * hits[u.id]) for u in board.scene.units if u.id in hits]

    def _rocket_morale(self, unit: Unit, p: Fraction) -> dict[str, Any]:
        kind = unit_type(unit)
        mod = ROCKET_MORALE.get(kind)
        return {
            "unit": unit.id,
            "type": kind,
            "p": float(p),
            "exact": str(p),
            "modifier": None if mod is None else mod[0],
            "source": None if mod is None else str(mod[1]),
            "note": "morale procedure, modifiers and results on the QRC (not on page 3)",
        }

    def overheat(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`overheat GUN`: the end-of-turn overheating check of a machine gun."""
        (a,) = expect_args("overheat", args, ("GUN",))
        return self._overheat(_who(scene, a), a)

    def _overheat(self, gun: Unit, a: str) -> Resolution:
        kind = unit_type(gun)
        if kind != "machine-gun":
            raise _fail(
                f"unit {gun.id!r} is {kind}; only a machine gun (type 'machine-gun') overheats"
            )
        turns = _count(gun, "consecutive_fire")
        fired = _flag(gun, "fired")
        state = gun_state(gun)
        check = state in (GUN_OK, GUN_HOT) and fired and turns >= OVERHEAT_FROM_TURNS
        again = state == GUN_HOT
        p = overheat_chance(turns) if check else Fraction(0)
        data: dict[str, Any] = {
            "action": "overheat",
            "ruleset": self.id,
            "gun": a,
            "consecutive_fire": turns,
            "fired_this_turn": fired,
            "gun_state": state,
            "check": check,
            "overheated_before": again,
            "p_overheat": _fraction_json(p),
            "rolls": [],
        }
        lines = [
            f"{gun.id} has fired {turns} consecutive turns"
            + ("" if fired else " and has not fired this turn")
            + ("" if state == GUN_OK else f"; it is {state}")
        ]
        if state == GUN_BROKEN:
            lines.append(f"it is permanently broken ({OVERHEAT_AGAIN}): no check")
            data["effect"] = "permanently broken"
            data["effect_source"] = str(OVERHEAT_AGAIN)
        elif state == GUN_COOLING:
            lines.append(f"it rested this turn and now cools down and is ok ({COOLS_DOWN})")
            data["effect"] = "cools down"
            data["effect_source"] = str(COOLS_DOWN)
        elif not fired:
            lines.append(
                f"no check: it did not fire this turn ({OVERHEAT_START}); its run of turns "
                "firing ends" + (", and a turn without firing cools it down" if again else "")
            )
            data["effect"] = "run ends" + (", cools down" if again else "")
            data["effect_source"] = str(OVERHEAT_START)
        elif not check:
            lines.append(
                f"no check before {OVERHEAT_FROM_TURNS} consecutive turns ({OVERHEAT_START})"
            )
            data["effect"] = "none"
        else:
            roll = Roll.success_roll(
                "overheating (the gun stays cool)",
                1,
                6,
                turns + 1,
                cite=OVERHEAT_ROLL,
                note=f"it overheats on {turns} or less",
            )
            data["rolls"] = [roll.as_json()]
            effect = (
                f"permanently broken ({OVERHEAT_AGAIN})"
                if again
                else "either it rests 1 turn and cools down, or it keeps firing and checking "
                f"and a second failure breaks it for good ({OVERHEAT_REST})"
            )
            data["effect"] = "permanently broken" if again else "rest 1 turn or keep firing"
            data["effect_source"] = str(OVERHEAT_AGAIN if again else OVERHEAT_REST)
            lines += [
                f"1d6: overheats on {f'a roll of {turns} or less' if turns < 6 else 'any roll'} "
                f"({OVERHEAT_ROLL}): {p} = {float(p):.3f}",
                f"if it overheats: {effect}",
            ]
        return Resolution("overheat", MappingProxyType(data), tuple(lines))

    # ------------------------------------------------------------------------------------
    # Movement

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT [FACING]`: the boxes it may reach, its facing and whether it is legal."""
        if len(args) not in (1, 2):
            raise QuestionError(
                f"move takes 1 or 2 arguments (move UNIT [FACING]), got {len(args)}: "
                f"{' '.join(args) or 'none'}"
            )
        return self._move(Board(scene), args[0], args[1] if len(args) == 2 else None)

    def _move(self, board: Board, a: str, want: str | None) -> Resolution:
        scene = board.scene
        unit = board.unit(a)
        kind = unit_type(unit)
        legal, rule = LEGAL_FACINGS[kind]
        if want is not None:
            asked = parse_facing(want)
            if asked not in legal:
                raise _fail(
                    f"unit {unit.id!r} is {kind} and may not face {asked!r} (a corner); "
                    f"accepted facings are {accepted(legal)} ({rule})"
                )
        pa = board.place(unit)
        now, off = facing_name(unit.bases[0].facing)
        facing = {
            "degrees": unit.bases[0].facing,
            "nearest": now,
            "off_by_degrees": round(off, 1),
            "legal": now in legal,
            "legal_facings": list(legal),
            "source": str(rule),
            "requested": None if want is None else parse_facing(want),
        }
        lines = [
            f"{unit.id} ({kind}) stands in box {pa.box} facing {now} "
            f"({unit.bases[0].facing:.0f} degrees)"
            + ("" if now in legal else f": illegal, {kind} must face a box side ({rule})")
        ]
        moved = _flag(unit, "moved")
        if moved:
            lines.append(f"{unit.id} has already moved this turn")
        data: dict[str, Any] = {
            "action": "move",
            "ruleset": self.id,
            "unit": a,
            "type": kind,
            "moved_this_turn": moved,
            "box": list(pa.box),
            "facing": facing,
            "nearest_box_side": length_json(scene, pa.edge_margin),
            "box_too_close_to_call": len(pa.candidates) > 1,
        }
        if kind == "infantry":
            data["may_change_facing"] = {"value": True, "source": str(INFANTRY_TURN)}
            lines.append(f"it may change facing with no additional effect ({INFANTRY_TURN})")
        else:
            data["may_change_facing"] = {"value": None, "source": None}
        if kind not in MOVES:
            data["boxes"] = None
            lines.append(f"page 3 gives no move for {kind}: see the QRC")
            return Resolution("move", MappingProxyType(data), tuple(lines))
        occupants = board.occupants
        options: list[dict[str, Any]] = []
        for box, pattern, first in reachable(scene, kind, pa.box):
            options.append(
                {
                    "box": list(box),
                    "centre": box_centre_json(scene, box),
                    "boxes_moved": geo.grid_steps(pa.box, box),
                    "first_step": list(first),
                    "how": pattern.how,
                    "source": str(pattern.cite),
                    "occupied_by": [u.id for u in occupants.get(box, []) if u.id != unit.id],
                }
            )
        data["boxes"] = options
        rules = ", ".join(f"{p.how} ({p.cite})" for p in MOVES[kind])
        lines.append(f"{len(options)} boxes in reach: {rules}")
        if kind == "cavalry":
            lines.append(f"never 2 boxes diagonally ({CAVALRY_STRAIGHT_FIRST})")
        for o in options:
            there: list[str] = o["occupied_by"]
            held = f" (occupied by {', '.join(there)})" if there else ""
            lines.append(f"  {o['box']}: {o['how']}{held}")
        if pa.candidates != {pa.box}:
            lines.append("its box is too close to call: its centre is near a box side")
        return Resolution("move", MappingProxyType(data), tuple(lines))

    # ------------------------------------------------------------------------------------
    # Melee

    def melee(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`melee A B`: contact, each side's dice, hits and leader checks."""
        a, b = expect_args("melee", args, ("A", "B"))
        return self._melee(Board(scene), a, b)

    def _contact(self, board: Board, ua: Unit, ub: Unit) -> tuple[str, dict[str, Any]]:
        """Whether two units are in base-to-base contact: adjacent boxes or touching bases."""
        scene, table = board.scene, board.table
        pa, pb = board.place(ua), board.place(ub)
        adjacent = side_adjacent(pa.box, pb.box)
        steady = box_verdict(pa, pb, side_adjacent)
        near = board.closest(ua, ub)
        touch = Threshold(near.distance, 0.0, table.uncertainty(near.a, near.b))
        if touch.within:
            verdict = "touching"
        elif adjacent and steady:
            verdict = "adjacent boxes"
        elif adjacent or not steady or touch.too_close_to_call:
            verdict = "too close to call"
        else:
            verdict = "not in contact"
        return verdict, {
            "verdict": verdict,
            "boxes": [list(pa.box), list(pb.box)],
            "adjacent_boxes": adjacent,
            "touching": threshold_json(scene, touch),
            "between": {"a": near.a.id, "b": near.b.id},
            "distance": length_json(scene, near.distance),
        }

    def _melee(self, board: Board, a: str, b: str) -> Resolution:
        ua, ub = board.unit(a), board.unit(b)
        _enemies(ua, ub, "melee")
        verdict, contact = self._contact(board, ua, ub)
        in_contact = verdict != "not in contact"
        lines = [f"{a} and {b}: {verdict}"]
        sides: dict[str, Any] = {}
        rolls: list[Roll] = []
        for me, them in ((ua, ub), (ub, ua)):
            die = die_of(me, melee=True)
            count = count_dice(me, them, melee=True)
            side: dict[str, Any] = {"unit": me.id, "dice": dice_json(count, die)}
            if in_contact and count.dice > 0:
                roll = hits_roll(f"hits on {them.id} (dice total)", count, die, MELEE_HITS)
                rolls.append(roll)
                side["hits"] = hits_json(count.dice, roll.sides)
                side["leader_check"] = leader_check_json(them, count, die, 0, LEADER_FACE)
                leader = side["leader_check"]
                lines.append(
                    f"{me.id}: {count.dice}{die} ({count.bases} bases"
                    + (f" including leader base {count.leader}" if count.leader else "")
                    + "".join(f", {m.value:+g} {m.reason}" for m in count.modifiers)
                    + f"), the total is the hits {them.id} takes ({MELEE_HITS}), "
                    f"{side['hits']['mean']:.2f} on average"
                )
                if leader["target_has_leader"]:
                    lines.append(
                        f"  leader check on {them.id} (a {roll.sides} rolled, {LEADER_FACE}): "
                        f"{leader['p_exact']} = {leader['p']:.3f}; then 2d6 on the Leader Hits "
                        "Table (QRC)"
                    )
            elif in_contact:
                lines.append(f"{me.id}: no dice after modifiers")
            sides[me.id] = side
        if any(s.get("leader_check", {}).get("target_has_leader") for s in sides.values()):
            rolls.append(leader_roll())
        data = {
            "action": "melee",
            "ruleset": self.id,
            "a": a,
            "b": b,
            "in_contact": in_contact,
            "contact": contact,
            "sides": sides,
            "rolls": [roll_json(r) for r in rolls],
            "reasons": [
                _reason("in base to base contact: dice per base incl. leader", MELEE_DICE),
                _reason("the dice total is the hits the enemy takes", MELEE_HITS),
                *(
                    _reason(f"{u.id} fights with its melee_die", GUNNERS_D3)
                    for u in (ua, ub)
                    if u.get("melee_die") is not None
                ),
            ],
        }
        return Resolution("melee", MappingProxyType(data), tuple(lines))

    # ------------------------------------------------------------------------------------
    # Morale

    def morale(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`morale UNIT`: its grade and the rocket modifiers of the checks rockets forced; the
        procedure, the other modifiers and the results are on the QRC."""
        (a,) = expect_args("morale", args, ("UNIT",))
        return self._morale(_who(scene, a), a)

    def _morale(self, unit: Unit, a: str) -> Resolution:
        grade = check_attr(unit, "quality", GRADES, ruleset=self.id)
        forced = _count(unit, "rocket_checks")
        broken = _flag(unit, "broken")
        modifier: dict[str, Any] = {"value": None, "source": None}
        lines = [
            f"{unit.id} is {grade} (one of {accepted(GRADES)}, {MORALE_GRADES})"
            + (", and broken" if broken else "")
        ]
        if forced:
            kind = unit_type(unit)
            mod = ROCKET_MORALE.get(kind)
            if mod is not None:
                modifier = {"value": mod[0], "source": str(mod[1])}
            said = "no rocket modifier on page 3" if mod is None else f"{mod[0]:+d} ({mod[1]})"
            lines.append(
                f"{forced} morale check{'s' if forced > 1 else ''} forced by a rocket "
                f"({ROCKET_NO_HITS}): {said} for {kind}, in addition to any other modifiers"
            )
        lines.append(
            f"the morale procedure, modifiers and results are on the QRC, not on page 3 "
            f"({MORALE_QRC})"
        )
        data = {
            "action": "morale",
            "ruleset": self.id,
            "unit": a,
            "grade": grade,
            "grades": list(GRADES),
            "source": str(MORALE_GRADES),
            "broken": broken,
            "rocket_checks": forced,
            "rocket_modifier": modifier,
            "procedure": "on the QRC (not on page 3)",
            "rolls": [],
        }
        return Resolution("morale", MappingProxyType(data), tuple(lines))

    # ------------------------------------------------------------------------------------
    # Outcomes: what the dice the players threw do to the units

    def outcomes(self) -> Mapping[str, OutcomeRule]:
        return {
            "shoot": OutcomeRule(self._shoot_form, self._shoot_apply),
            "rocket": OutcomeRule(self._rocket_form, self._rocket_apply),
            "melee": OutcomeRule(self._melee_form, self._melee_apply),
            "morale": OutcomeRule(self._morale_form, self._morale_apply),
            "overheat": OutcomeRule(self._overheat_form, self._overheat_apply),
            "move": OutcomeRule(self._move_form, self._move_apply),
        }

    def _shoot_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        a, b = expect_args("shoot", args, ("SHOOTER", "TARGET"))
        res = self._shoot(Board(scene), a, b)
        _refuse_unless_allowed(res, f"{a} may not shoot at {b}")
        target = scene.unit_of(b)
        dice, sides = res.data["dice"]["dice"], DIE_SIDES[res.data["die"]]
        reports = [_hits_report("hits", target, a, dice, sides, SCORE_IS_HITS)]
        if leader_base(target) and dice * sides >= LEADER_CHECK_HITS:
            reports.append(_top_face_report("top_face", target, a, sides))
        reports.append(_removed_report("removed", target))
        return tuple(reports)

    def _shoot_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        shooter, target = scene.unit_of(args[0]), scene.unit_of(args[1])
        sides = DIE_SIDES[die_of(shooter)]
        checked = bool(reported.get("top_face")) and reported["hits"] >= LEADER_CHECK_HITS
        return (
            *_hits_changes(target, shooter, reported["hits"], checked, sides, SCORE_IS_HITS),
            *_removed_changes(reported["removed"], shooter),
            *_fired_changes(shooter),
        )

    def _rocket_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        a, b = expect_args("rocket", args, ("FIRER", "TARGET"))
        res = self._rocket(Board(scene), a, b)
        _refuse_unless_allowed(res, f"{a} may not fire a rocket at {b}")
        struck = [m["unit"] for m in res.data["morale_checks"]]
        return (
            Report(
                "landed_on",
                Kind.CHOICE,
                f"where the rocket landed: on {struck[0]} on a 5 or 6; on a 1-4 it drifts (1d8 "
                f"for direction, 1d6 boxes): the unit in that box, or {NOTHING}",
                ROCKET_ON_TARGET,
                choices=(*struck, NOTHING),
                default=struck[0],
            ),
        )

    def _rocket_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        firer = scene.unit_of(args[0])
        changes = list(_fired_changes(firer))
        if reported["landed_on"] != NOTHING:
            struck = scene.unit_of(reported["landed_on"])
            kind = struck.get("type")
            mod = ROCKET_MORALE.get(kind) if isinstance(kind, str) else None
            said = "" if mod is None else f" at {mod[0]:+d} for {kind}"
            changes.insert(
                0,
                Change(
                    struck.id,
                    "rocket_checks",
                    _count(struck, "rocket_checks") + 1,
                    f"a rocket of {firer.id} landed on it: no hits, a morale check{said}",
                    ROCKET_NO_HITS if mod is None else mod[1],
                ),
            )
        return tuple(changes)

    def _melee_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        a, b = expect_args("melee", args, ("A", "B"))
        res = self._melee(Board(scene), a, b)
        if not res.data["in_contact"]:
            raise _fail(f"{a} and {b} are not in base to base contact ({MELEE_DICE}): no melee")
        ua, ub = scene.unit_of(a), scene.unit_of(b)
        reports: list[Report] = []
        for key, victim, attacker in (("a", ua, ub), ("b", ub, ua)):
            side = res.data["sides"][attacker.id]
            dice, sides = side["dice"]["dice"], DIE_SIDES[side["dice"]["die"]]
            reports.append(
                _hits_report(f"hits_on_{key}", victim, attacker.id, dice, sides, MELEE_HITS)
            )
            if leader_base(victim) and dice > 0:
                other = "b" if key == "a" else "a"
                reports.append(_top_face_report(f"top_face_by_{other}", victim, attacker.id, sides))
        reports += [_removed_report("removed_a", ua), _removed_report("removed_b", ub)]
        return tuple(reports)

    def _melee_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        ua, ub = scene.unit_of(args[0]), scene.unit_of(args[1])
        changes: list[Change] = []
        for key, victim, attacker, other in (("a", ua, ub, "b"), ("b", ub, ua, "a")):
            sides = DIE_SIDES[die_of(attacker, melee=True)]
            checked = bool(reported.get(f"top_face_by_{other}"))
            hits = reported[f"hits_on_{key}"]
            changes += _hits_changes(victim, attacker, hits, checked, sides, MELEE_HITS)
        for key, attacker in (("a", ub), ("b", ua)):
            changes += _removed_changes(reported[f"removed_{key}"], attacker)
        return tuple(changes)

    def _morale_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        (a,) = expect_args("morale", args, ("UNIT",))
        unit = _who(scene, a)
        self._morale(unit, a)
        return (
            Report(
                "broken",
                Kind.FLAG,
                f"is {unit.id} broken after the check? (the QRC's morale results)",
                MORALE_QRC,
                default=_flag(unit, "broken"),
            ),
        )

    def _morale_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        unit = _who(scene, args[0])
        changes = []
        if reported["broken"] != _flag(unit, "broken"):
            said = "broken" if reported["broken"] else "no longer broken"
            changes.append(
                Change(
                    unit.id, "broken", reported["broken"], f"{said} (QRC morale result)", MORALE_QRC
                )
            )
        forced = _count(unit, "rocket_checks")
        if forced:
            changes.append(
                Change(
                    unit.id,
                    "rocket_checks",
                    forced - 1,
                    "took the morale check a rocket forced",
                    ROCKET_NO_HITS,
                )
            )
        return tuple(changes)

    def _overheat_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        (a,) = expect_args("overheat", args, ("GUN",))
        res = self._overheat(_who(scene, a), a)
        if not res.data["check"]:
            return ()
        turns = res.data["consecutive_fire"]
        reports = [
            Report(
                "score",
                Kind.COUNT,
                f"the 1d6 score (it overheats on {turns} or less)",
                OVERHEAT_ROLL,
                maximum=6,
            )
        ]
        if not res.data["overheated_before"]:
            reports.append(
                Report(
                    "if_overheated",
                    Kind.CHOICE,
                    "if it overheats: rest (it may not fire for 1 turn, then cools down) or keep "
                    "firing (and checking: a second failure breaks it for good)",
                    OVERHEAT_REST,
                    choices=(REST, KEEP_FIRING),
                    default=REST,
                )
            )
        return tuple(reports)

    def _overheat_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        gun = _who(scene, args[0])
        state, fired = gun_state(gun), _flag(gun, "fired")
        turns = _count(gun, "consecutive_fire")
        run_ends = (
            (Change(gun.id, "consecutive_fire", 0, "its run of turns firing ends", GUN_FIRED),)
            if turns
            else ()
        )
        if state == GUN_BROKEN:
            return ()
        if state == GUN_COOLING:
            cool = Change(gun.id, "gun_state", GUN_OK, "rested 1 turn: cools down, ok", COOLS_DOWN)
            return (cool, *run_ends)
        if not fired:
            cool = Change(
                gun.id, "gun_state", GUN_OK, "a turn without firing: cools down", COOLS_DOWN
            )
            return (*run_ends, *((cool,) if state == GUN_HOT else ()))
        if turns < OVERHEAT_FROM_TURNS:
            return ()
        score = reported["score"]
        if score < 1:
            raise _fail(f"overheat {args[0]}: a d6 shows 1 to 6, got {score}")
        if score > turns:
            return ()
        why = f"overheated ({score} is {turns} or less)"
        if state == GUN_HOT:
            return (
                Change(
                    gun.id,
                    "gun_state",
                    GUN_BROKEN,
                    f"{why} again: permanently broken",
                    OVERHEAT_AGAIN,
                ),
            )
        if reported["if_overheated"] == REST:
            return (
                Change(
                    gun.id,
                    "gun_state",
                    GUN_COOLING,
                    f"{why}: rests, may not fire for 1 turn",
                    OVERHEAT_REST,
                ),
                *run_ends,
            )
        return (
            Change(
                gun.id,
                "gun_state",
                GUN_HOT,
                f"{why}: keeps firing; a second failure breaks it for good",
                OVERHEAT_KEEP_FIRING,
            ),
        )

    def _move_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """A move rolls no dice: nothing to report (the camera sees where the unit went)."""
        if len(args) not in (1, 2):
            self.move(scene, args)  # raises, naming the arguments
        _who(scene, args[0])
        return ()

    def _move_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        unit = _who(scene, args[0])
        if _flag(unit, "moved"):
            return ()
        return (Change(unit.id, "moved", True, "moved this turn", MOVEMENT_SECTION),)

    # ------------------------------------------------------------------------------------
    # Suggest

    # `suggest` is the engine's: the questions each phase asks, answered on one Board.

    def suggestion_context(self, scene: Scene) -> Board:
        return Board(scene)

    def candidates(self, board: Board, phase: str) -> Iterable[Candidate]:
        scene = board.scene
        if phase == "firing":
            shots = list(self._in_range_pairs(board))
            # Every sight line the shots trace, in one batch (`_shot` finds them memoised).
            near = [board.closest(shooter, target) for shooter, target in shots]
            board.table.sights(self.sight_policy, [(n.a, n.b) for n in near])
            for shooter, target in shots:
                kind = "rocket" if shooter.get("weapon") == ROCKET_WEAPON else "shoot"
                yield Candidate(kind, (shooter.id, target.id))
        elif phase == "movement":
            for unit in scene.units:
                if not _flag(unit, "moved"):
                    yield Candidate("move", (unit.id,))
        elif phase == "melee":
            units = scene.units
            for i, ua in enumerate(units):
                for ub in units[i + 1 :]:
                    if ua.side != ub.side and self._maybe_touching(board, ua, ub):
                        yield Candidate("melee", (ua.id, ub.id))
        elif phase == "morale":
            for unit in scene.units:
                if _count(unit, "rocket_checks"):
                    yield Candidate("morale", (unit.id,))
        else:
            for unit in scene.units:
                if unit_type(unit) == "machine-gun" and gun_state(unit) != GUN_BROKEN:
                    yield Candidate("overheat", (unit.id,))

    def answer_candidate(self, board: Board, candidate: Candidate) -> Resolution | None:
        kind, args = candidate.kind, candidate.args
        if kind == "shoot":
            return self._shoot(board, *args)
        if kind == "rocket":
            return self._rocket(board, *args)
        if kind == "move":
            return self._move(board, args[0], None)
        if kind == "melee":
            res = self._melee(board, *args)
            return res if res.data["in_contact"] else None  # only units in contact fight
        unit = board.scene.unit_of(args[0])
        return self._morale(unit, unit.id) if kind == "morale" else self._overheat(unit, unit.id)

    def _in_range_pairs(self, board: Board) -> Iterable[tuple[Unit, Unit]]:
        """Shooter-target pairs of enemies within (or maybe within) the longest band."""
        units = board.scene.units
        for shooter in units:
            if shooter.get("weapon") is None or _flag(shooter, "fired") or not may_fire(shooter)[0]:
                continue
            reach = range_bands(board.scene, shooter)[-1].limit
            ps = board.place(shooter)
            for target in units:
                if target.side == shooter.side:
                    continue
                pt = board.place(target)
                nearest = min(geo.grid_steps(x, y) for x in ps.candidates for y in pt.candidates)
                if geo.within(nearest, reach):
                    yield shooter, target

    def _maybe_touching(self, board: Board, ua: Unit, ub: Unit) -> bool:
        """A cheap test before `_contact`: boxes that may be adjacent, or bases that may touch
        (the gap within the units' largest uncertainties)."""
        pa, pb = board.place(ua), board.place(ub)
        if any(side_adjacent(x, y) for x in pa.candidates for y in pb.candidates):
            return True
        return board.gap(ua, ub) <= math.hypot(pa.uncertainty, pb.uncertainty)
