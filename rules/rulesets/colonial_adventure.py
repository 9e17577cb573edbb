"""colonial-adventure: "QRS / COLONIAL ADVENTURE" (rules/sheets/002_9c2296e6290248df.txt), in
inches.

The sheet's tables live in this module as data, each entry citing its line; the actions
`shoot`, `melee`, `move`, `morale`, `actions`, `initiative` and `suggest` read them. Pure: never
imports cv2, flask, vision or webui.

Unit fields (`UNIT_FIELDS`, checked against the sheet's words when a scene is read; a
description left out where a rule reads it is a `MissingAttribute`, and the engine names every
missing one of a question in one message):
- descriptions (no default): `type` `infantry`, `mounted-infantry`, `cavalry`, `artillery`
  (lines 39-43); `class` `a`-`d` (lines 72-75, 156-159; not read when a gun fires); `weapon`
  `musket`, `rifle`, `carbine`, `pistol`, `throwing-weapon` (lines 86-89) for foot and horse,
  `light-gun`, `heavy-gun`, `repeating-gun` (lines 94-96) for artillery (any other pairing is
  refused); `fighters` (default false, line 136).
- state with no start-of-game value (a unit is set up so): `formation` `formed`, `line`,
  `column`, `square` (all "in Formation", line 84) or `unformed` for foot and horse, `limbered` or
  `unlimbered` for a gun (lines 25, 42-43); `mounted` on `mounted-infantry` only (mounted they
  move 8" and take hits as mounted men, dismounted they move and fight as infantry, line 24).
- start-of-game state (may be left out; the answer then says so): `shock` 0; `casualties` 0;
  `loaded` true; `jammed` false; `supporting_units` 0; and per turn (back to 0 each turn)
  `actions_spent`, `commander_actions` and `attack_actions`.
- base `role`: `leader` (also `officer`, the sheet's "Officer/Leader", line 126), `commander`,
  `musician`, `flag-bearer`; a base without a role is a rank-and-file figure.
- base `figures`: each figure is a man (line 65: "1W6 per miniature firing").
- terrain `obstacle`: `low` or `high` (lines 21-22), overriding the kind; terrain `barred`
  (true/false) on a building (line 23 prices only an unbarred building).

Readings of the sheet:
- The header of the infantry/cavalry "Necessary result / range" table was displaced to the end
  of the file (lines 163-165: 0-9", 9-18", 18-27", 27-36"); its rows Musket, Rifle, Carbine and
  Pistol / Throwing Weapon stand at lines 86-89, above the artillery table. We read those rows
  against that header: a musket needs 6 at 0-9" and 9-18" and cannot reach further; a rifle 5-6,
  5-6, 6; a carbine 5-6, 6; a pistol 6 at 0-9" only. "-" means the weapon cannot shoot that far.
- Bands include their upper edge: exactly 9" is 0-9". Artillery's "36"+" band has no end, so a
  light or heavy gun reaches the whole table; a repeating gun ("-" at 36"+) stops at 36".
- Distances are edge to edge between the nearest bases of the two units (or of the bases named),
  measured from the bases that fire (not musicians or flag bearers, line 65); the target is in
  the 180 degree arc (line 61) when some base of it lies in front of the front edge of some
  firing base; line of sight is traced between the nearest pair. The sheet says
  nothing of sight: woods, towns, buildings and hills between two bases block it, a base sees
  out of the piece it stands in, and other bases do not block.
- Dice (lines 65-84), in the sheet's order: 1 die per figure but musicians and flag bearers
  (leaders and commanders fire too) or the gun's 8/12/14; the class adjustment per whole four or
  five men firing (small arms only); +1 die per leader figure, +3 per commander; -1 per whole two
  shock points; then cover removes a third of that pool rounded up, fortification a half rounded
  up. A pool below 0 is 0 dice. Formation (line 84) lowers the need by 1.
- Cover against fortification: `Table.cover` grades the target's cover as none, soft or hard.
  Soft is the sheet's "cover", hard its "fortification". With no `cover` in the scene, a piece of
  kind `fortification` is hard and woods, towns, buildings, hedges, walls and fences are soft;
  a scene that marks a piece `cover: hard` makes it a fortification.
- Hits (lines 102-106): each hit rolls 1D6, 1-2 nothing, 3-4 a shock point, 5-6 a kill; with a
  chance p a die to hit, kills follow exactly Binomial(dice, p/3) and shock points too. Against
  mounted men (cavalry, mounted infantry that are mounted) each hit first rolls 1D6 (line 110):
  1-3 the horse takes it, 4-6 the man; a kill of a horse is reported apart from a kill of a man,
  and shock points count on the unit whoever took them.
- Repeating gun (line 98) jams when its dice show more 1s than 6s: computed exactly over the
  dice actually rolled, natural faces (the formation bonus does not change a face).
- Leaders hit (line 120): each leader or commander base of a unit that loses men rolls a D10
  and is hit when it scores at most the men killed: P = sum over k of P(k killed) * min(k, 10)/10.
- Close combat (lines 124-138): the pool per side is 1 die per man but musicians and flag
  bearers, +1 per leader, +3 per commander, +1 per attack action, +3 per supporting unit, +2 per
  step of class ("Status") above the enemy (A > B > C > D), -1 per two shock points; then the
  percentages, each on the pool as it then stands with the change rounded up (like line 82):
  a defender in fortification +1/3 (line 132's 33%), a defender hit in flank or rear (the
  attacker's nearest base past the diagonals of the defender's nearest base) -1/2, cavalry
  (mounted men) against unformed infantry in the open (no cover and standing in no terrain but
  open ground, roads or hills) +1, cavalry attacking a defender in fortification -2/3 (66%).
  The first id of `melee A B` is the attacker. Each 6 kills, each 5 a shock point; "Fighters +1
  on roll" makes 5s kill and 4s shock. "Defeated by N" compares the dead each side lost.
- Close combat needs base contact: units touching (0 apart) are in contact; a gap inside the
  measurement uncertainty is `too close to call` and resolved as in contact. Thrown-back
  distances use the cavalry figures for mounted men. The odds are for one round: a draw fights
  again (line 146), which the players roll anew.
- "Hits on Gunners" (lines 112-116): the -1 shooting die per two shock points is the general
  rule of line 81; gunners dead (`casualties`) raise the reload cost by 1 per two.
- Morale (lines 154-161): men are the figures on the table less the casualties. A unit with
  more shock points than men retires, at the end of the turn, 1"/2"/3"/4" per shock point over
  (classes A-D); twice as many shock points as men breaks it. The sheet writes "infantry
  Group" at line 154 but gives no other morale rule, so the same rule is applied to every type.
- Movement (lines 37-51): one Move action (line 20) moves the Unit Movement distance; the
  "Action Movement" dice are reported beside it as the sheet gives them (their distribution in
  inches), since the sheet does not say when they replace the fixed distance. Crossing a low
  obstacle (hedges, fences, walls) costs 1 more action, a high one (fortifications) 2, entering
  an unbarred building 1; a unit has two actions a turn (line 16). The sheet prices no other
  terrain: crossing woods or a stream needs the piece marked `obstacle: low` or `high`.
- Reloading (lines 27-31, 114): a rifle 1 action, a musket 2, an artillery piece 2 plus 1 per
  two gunners dead, a repeating gun ("Machine Gun") 1; the sheet gives no reload for carbines or
  pistols, so none is listed.
- Initiative (line 8): each side rolls 1D6, the side with more leader and commander bases +1;
  the sheet does not say how a tie is broken, so its chance is reported apart (and a tie
  reported as the outcome is refused: roll again). The winner acts first in each Action Phase
  (`side_groups` label `initiative-order`); the sheet says no more of it.
- Men (`casualties`): a man killed is taken off with his base; a base of several figures (a
  gun's crew) stays until its last man falls, and the dead on it are the unit's `casualties`
  (for a gun its gunners dead, line 114). Men remaining (line 154), men firing (line 65) and men
  in the fight (line 124) are the figures on the table less the casualties, taken from the rank
  and file.
- Actions (line 16): each unit has two actions a turn (`actions_spent`), and a commander two of
  his own (`commander_actions`) for "-1 Shock Point" and "Attack order" (lines 32-33), both on
  the unit he stands with. Small arms fire costs 1 (line 26); guns fire in the Artillery Phase
  (line 7) at no action cost and spend their actions reloading. A rifle, musket, gun or repeating
  gun that fired is not `loaded` until reloaded (lines 27-30); carbines, pistols and throwing
  weapons have no reload cost and are always ready. A limbered gun does not fire (line 25); a
  jammed repeating gun fires again once fixed (line 31). An attack order gives +1D6 in this
  turn's close combat (line 128).
- Outcomes (what the reported dice change): shoot asks hits, kills (5-6; on mounted men only the
  hits the man took), shock points (3-4), the bases taken off (a leader hit on his D10 falls in
  place of a man, line 120) and a repeating gun's jam; the target's shock and men change, the
  shooter is unloaded, spends its action or jams. A horse killed changes nothing the sheet keeps.
  Melee asks each side's kills (6s, 5-6 for fighters) and shock points (5s, 4s) and the bases
  taken off; the loser by 2 or 3 dead takes +2 shock points, by 4 or more the shock points it
  took count twice ("double the number of Shock points taken", line 150); thrown back, no
  movement and shock-only next turn are said in the reason, not kept. Morale removes a broken
  unit (line 161). Actions spend the chosen action and do what it does (reload, fix, -1 shock,
  +1 attack action, mount or dismount, limber or unlimber); a move spends its actions;
  initiative sets the game's initiative side.

Speed (`suggest` on a busy table): the two Action Phases ask the same questions of the same
table, so they are answered once; the dice math of a pool is cached (the same pools recur);
the arc is screened for all pairs of bases in one numpy pass (the half-plane ahead of the front
edge that `geometry.base_in_arc` draws for 180 degrees; pairs on the edge are settled by
`base_in_arc`); sight and cover skip terrain pieces whose bounding box cannot matter. The tests
check each shortcut against the shared geometry on random tables.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from calibration.units import format_length

from .. import dice
from .. import geometry as geo
from ..engine import (
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
from ..measure import CoverReading, Table, table_of
from ..scene import Base, Cover, Scene, Terrain, TerrainKind, Unit
from ..state import Change, Field, Kind, Phase, Report, Scope

SHEET = "002_9c2296e6290248df.txt"
INCH = 25.4
"""mm in one inch: the sheet measures in inches."""


def _cite(line: int, text: str) -> Cite:
    return Cite(SHEET, line, text)


def _fmt(p: Fraction) -> str:
    return f"{p} ({float(p):.1%})"


# --------------------------------------------------------------------------------------------
# The sheet's words

TYPES = ("infantry", "mounted-infantry", "cavalry", "artillery")
CLASSES = ("a", "b", "c", "d")
SMALL_ARMS = ("musket", "rifle", "carbine", "pistol", "throwing-weapon")
GUNS = ("light-gun", "heavy-gun", "repeating-gun")
FORMED = ("formed", "line", "column", "square")
FOOT_FORMATIONS = (*FORMED, "unformed")
GUN_FORMATIONS = ("limbered", "unlimbered")
LEADER_ROLES = ("leader", "officer")
NON_FIRING_ROLES = ("musician", "flag-bearer")
ROLES = (*LEADER_ROLES, "commander", *NON_FIRING_ROLES)

PHASES: tuple[tuple[str, Cite], ...] = (
    ("artillery", _cite(7, "Artillery Phase")),
    ("initiative", _cite(8, "Initiative die roll")),
    ("action-1", _cite(9, "1. Action Phase")),
    ("action-2", _cite(10, "2. Action Phase")),
    ("close-combat", _cite(11, "Close Combat")),
    ("morale", _cite(12, "Moral Phase")),
)
INITIATIVE = _cite(8, "Initiative die roll (1d6 / +1 if more leader)")
ACTIONS_PER_TURN = (2, _cite(16, "Units and Commanders have two Actions each turn"))
ACTION_COST = _cite(18, "ACTION COST")
ACTION_PHASES = ("action-1", "action-2")
ALL = "all"
"""`side_groups` label: every side on the table."""
IN_ORDER = "initiative-order"
"""`side_groups` label: every side, the side that won the initiative die roll first."""
PHASE_STEPS = (
    Phase("artillery", "The guns of both sides fire", ALL, PHASES[0][1]),
    Phase(
        "initiative",
        "Each side rolls 1D6 for the initiative, +1 for the side with more leaders",
        ALL,
        INITIATIVE,
    ),
    Phase(
        "action-1",
        "First action: every unit spends an action, the side with the initiative first",
        IN_ORDER,
        PHASES[2][1],
    ),
    Phase(
        "action-2",
        "Second action: every unit spends an action, the side with the initiative first",
        IN_ORDER,
        PHASES[3][1],
    ),
    Phase("close-combat", "Units in base contact fight", ALL, PHASES[4][1]),
    Phase(
        "morale",
        "Units with more shock points than men retire, or break at twice as many",
        ALL,
        PHASES[5][1],
    ),
)
SIDES_RULE = (
    "all: every side on the table; initiative-order: the same sides, the side that won the "
    f"initiative die roll ({INITIATIVE}) first (in table order until it is rolled)"
)

# --------------------------------------------------------------------------------------------
# Actions and movement


@dataclass(frozen=True, slots=True)
class Cost:
    """What one action of the sheet's ACTION COST list costs."""

    action: str
    actions: int
    cite: Cite


COSTS = MappingProxyType(
    {
        "move": Cost("move", 1, _cite(20, "Move 1")),
        "low-obstacle": Cost("cross a low obstacle", 1, _cite(21, "Cross a low obstacle 1")),
        "high-obstacle": Cost("cross a high obstacle", 2, _cite(22, "Cross a High Obstacle 2")),
        "building": Cost(
            "enter an unbarred building", 1, _cite(23, "Enter an unbarred Building 1")
        ),
        "mount": Cost("dismount / mount", 1, _cite(24, "Dismounting / Mounting 1")),
        "limber": Cost("limber / unlimber", 1, _cite(25, "Limber / Unlimber 1")),
        "fire": Cost("fire", 1, _cite(26, "Fire 1")),
        "reload-rifle": Cost("reload rifle", 1, _cite(27, "Reload rifle 1")),
        "reload-musket": Cost("reload musket", 2, _cite(28, "Reload musket 2")),
        "reload-gun": Cost("reload artillery piece", 2, _cite(29, "Reload artillery piece 2")),
        "reload-mg": Cost("reload machine gun", 1, _cite(30, "Reload Machine Gun 1")),
        "fix-jam": Cost("fix jammed machine gun", 2, _cite(31, "Fix jammed Machine Gun 2")),
        "rally": Cost("-1 shock point (commander)", 1, _cite(32, "-1 Shock Point (Com.) 1")),
        "attack-order": Cost("attack order (commander)", 1, _cite(33, "Attack order (Com.) 1")),
    }
)
GUNNERS_DEAD = (2, _cite(114, "For every two Gunner dead, + 1 Action die to reload"))
"""Per this many gunners dead, reloading a gun costs one more action."""
BY_COMMANDER = frozenset({"rally", "attack-order"})
"""The actions a commander takes with his own two actions (lines 16, 32-33)."""
RELOAD = MappingProxyType(
    {
        "rifle": "reload-rifle",
        "musket": "reload-musket",
        "light-gun": "reload-gun",
        "heavy-gun": "reload-gun",
        "repeating-gun": "reload-mg",
    }
)
"""The weapons the ACTION COST list reloads (lines 27-30), and the cost that does: firing one
unloads it. Carbines, pistols and throwing weapons have no reload cost and are always ready."""


@dataclass(frozen=True, slots=True)
class Movement:
    """A way of moving: Unit Movement (inches a Move action) and the Action Movement dice."""

    inches: int
    move_cite: Cite
    dice: int
    sides: int
    dice_cite: Cite


MOVEMENT = MappingProxyType(
    {
        "infantry": Movement(6, _cite(39, 'Infantry 6"'), 1, 6, _cite(47, "Infantry 1D6")),
        "mounted-infantry": Movement(
            8, _cite(40, 'Mounted Infantry 8"'), 2, 6, _cite(48, "Mounted Infantry 2D6")
        ),
        "cavalry": Movement(12, _cite(41, 'Cavalry 12"'), 3, 6, _cite(49, "Cavalry 3D6")),
        "limbered": Movement(
            8, _cite(42, 'Artillery limbered 8"'), 2, 6, _cite(50, "Artillery limbered 2D6")
        ),
        "unlimbered": Movement(
            4, _cite(43, 'Artillery unlimbered 4"'), 1, 3, _cite(51, "Artillery unlimbered 1D3")
        ),
    }
)
INTERPENETRATION = _cite(55, "No troops may pass through other units.")

# --------------------------------------------------------------------------------------------
# Shooting

ARC = (90.0, _cite(61, "180° to the front"))
"""Half-angle of the arc (degrees either side of straight ahead): 180 degrees to the front."""


@dataclass(frozen=True, slots=True)
class Band:
    """A range band of the "Necessary result / range" tables, in inches."""

    label: str
    low: float
    high: float | None
    """None for the open-ended 36"+ band."""
    cite: Cite


SMALL_ARM_BANDS = (
    Band("0-9", 0, 9, _cite(165, '0-9"')),
    Band("9-18", 9, 18, _cite(165, '9-18"')),
    Band("18-27", 18, 27, _cite(165, '18-27"')),
    Band("27-36", 27, 36, _cite(165, '27-36"')),
)
GUN_BANDS = (
    Band("0-9", 0, 9, _cite(93, '0-9"')),
    Band("9-18", 9, 18, _cite(93, '9-18"')),
    Band("18-27", 18, 27, _cite(93, '18-27"')),
    Band("27-36", 27, 36, _cite(93, '27-36"')),
    Band("36+", 36, None, _cite(93, '36"+')),
)


@dataclass(frozen=True, slots=True)
class NeedRow:
    """A weapon's row: the lowest D6 face that hits in each band (None for "-")."""

    needs: tuple[int | None, ...]
    cite: Cite


NEEDS = MappingProxyType(
    {
        "musket": NeedRow((6, 6, None, None), _cite(86, "Musket 6 6 - -")),
        "rifle": NeedRow((5, 5, 6, None), _cite(87, "Rifle 5-6 5-6 6 -")),
        "carbine": NeedRow((5, 6, None, None), _cite(88, "Carbine 5-6 6 - -")),
        "pistol": NeedRow((6, None, None, None), _cite(89, "Pistol / Throwing Weapon 6 - - -")),
        "throwing-weapon": NeedRow(
            (6, None, None, None), _cite(89, "Pistol / Throwing Weapon 6 - - -")
        ),
        "light-gun": NeedRow((4, 4, 5, 5, 6), _cite(94, "Light Gun 4-6 4-6 5-6 5-6 6")),
        "heavy-gun": NeedRow((4, 4, 5, 5, 5), _cite(95, "Heavy Gun 4-6 4-6 5-6 5-6 5-6")),
        "repeating-gun": NeedRow((4, 5, 6, 6, None), _cite(96, "Repeating Gun 4-6 5-6 6 6 -")),
    }
)
NEED_TABLE_HEADERS = (
    _cite(163, "Necessary result / range (Infantry / Cavalry)"),
    _cite(91, "Necessary result / range (Artillery pieces)"),
)

DICE_PER_FIGURE = (1, _cite(65, "1W6 per miniature firing (no musician or flag bearer)"))
GUN_DICE = MappingProxyType(
    {
        "light-gun": (8, _cite(66, "8W6 Light Gun")),
        "heavy-gun": (12, _cite(67, "12W6 Heavy Gun")),
        "repeating-gun": (14, _cite(68, "14W6 Repeating Gun")),
    }
)


@dataclass(frozen=True, slots=True)
class ClassAdjustment:
    """Troop class adjustment: `dice` per whole `per` men firing (none when `per` is None)."""

    dice: int
    per: int | None
    cite: Cite


CLASS_FIRE = MappingProxyType(
    {
        "a": ClassAdjustment(1, 4, _cite(72, "A +1 die per four men firing")),
        "b": ClassAdjustment(1, 5, _cite(73, "B +1 die per five men firing")),
        "c": ClassAdjustment(0, None, _cite(74, "C No adjustment")),
        "d": ClassAdjustment(-1, 5, _cite(75, "D -1 die per five men firing")),
    }
)
LEADER_FIRE = (1, _cite(79, "Leader: + 1D6 per figure"))
COMMANDER_FIRE = (3, _cite(80, "Commander: + 3D6"))
SHOCK_FIRE = (2, _cite(81, "Each two Shock points on the firer: - 1 firing dice"))
COVER_FIRE = (Fraction(1, 3), _cite(82, "Target in cover: - 1/3 of dices (round up)"))
FORTIFICATION_FIRE = (
    Fraction(1, 2),
    _cite(83, "Target in fortification: - 1/2 of dices (round up)"),
)
FORMATION_FIRE = (1, _cite(84, "Firer is unit in Formation: +1 on roll."))
JAM = _cite(98, "If there are more 1's than 6's")


@dataclass(frozen=True, slots=True)
class HitEffect:
    """A row of the Hits table: the faces of 1D6 and what they do."""

    faces: tuple[int, ...]
    effect: str
    cite: Cite


HITS = (
    HitEffect((1, 2), "no effect", _cite(104, "1-2 No effect")),
    HitEffect((3, 4), "shock point", _cite(105, "3-4 Shock Point")),
    HitEffect((5, 6), "kill", _cite(106, "5-6 Kill")),
)
HORSE_OR_MAN = (4, _cite(110, "1 to 3 the horse will take the hit, on a 4 to 6 the man"))
"""The lowest face on which the man, not the horse, takes a hit on mounted men."""
LEADER_HIT = (10, _cite(120, "roll a D10. If the score is equal to or below the number of men"))

# --------------------------------------------------------------------------------------------
# Close combat

MELEE_PER_MAN = (1, _cite(124, "Roll 1D6 per man in the fight (no musician or flag bearer)"))
MELEE_LEADER = (1, _cite(126, "+ 1D6 per Officer/Leader"))
MELEE_COMMANDER = (3, _cite(127, "+ 3D6 for Commander"))
MELEE_ATTACK_ACTION = (1, _cite(128, "+ 1D6 for each Attack Action"))
MELEE_SUPPORT = (3, _cite(129, "+ 3D6 for supporting unit"))
MELEE_STATUS = (2, _cite(130, "+ 2D6 for every Status higher than the enemy."))
MELEE_SHOCK = (2, _cite(131, "- 1D6 per two Shock points on a unit"))
MELEE_FORTIFICATION = (Fraction(1, 3), _cite(132, "Defending fortification +33%"))
MELEE_FLANK = (Fraction(-1, 2), _cite(133, "Unit hit in flank or rear -50%"))
MELEE_CAVALRY_OPEN = (Fraction(1), _cite(134, "Cavalry v unformed infantry in the open +100%"))
MELEE_CAVALRY_FORT = (
    Fraction(-2, 3),
    _cite(135, "Cavalry against troops in fortification -66%"),
)
MELEE_FIGHTERS = (1, _cite(136, "Unit are Fighters +1 on roll"))
MELEE_KILL = (6, _cite(138, "Each 6 kills one enemy"))
MELEE_SHOCK_FACE = (5, _cite(138, "each 5 is 1 point of Shock on the enemy"))
MELEE_LEADER_HITS = _cite(140, "Hits on Officer/Leader/Commander: As shooting")


@dataclass(frozen=True, slots=True)
class MeleeResult:
    """A row of "Result of Close Combat": what the side that lost more dead does."""

    label: str
    foot_back: float
    """Inches thrown back (both sides retire this far after a second draw)."""
    horse_back: float
    effect: str
    """What else befalls the loser (shock points, no movement)."""
    cite: Cite


@dataclass(frozen=True, slots=True)
class MeleeSide:
    """One side of a close combat: its pool with reasons, the kill roll and shock points dealt."""

    unit: str
    modifiers: tuple[Modifier, ...]
    roll: Roll
    """1D6 a die, `need` the face that kills."""
    kill_face: int
    """The lowest face that kills: 6, or 5 for fighters (line 136)."""
    kills: Outcome
    """Enemy men killed: the roll's successes."""
    shock: Outcome
    """Shock points dealt to the enemy: exactly one face a die (a 5, or a 4 for fighters)."""
    fighters: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "dice": self.roll.dice,
            "modifiers": [m.as_json() for m in self.modifiers],
            "rolls": [self.roll.as_json()],
            "kills": self.kills.as_json(),
            "shock_points": self.shock.as_json(),
            "fighters": self.fighters,
        }


DRAW = MeleeResult(
    "draw",
    2,
    2,
    'fight again immediately, at most 2 rounds, then both sides retire 2"',
    _cite(146, 'after which both sides retire 2"'),
)
DEFEATS = (
    MeleeResult(
        "defeated by 1",
        4,
        8,
        "thrown back facing the enemy",
        _cite(147, 'Defeated by 1: Thrown back 4" (8" for cavalry) facing your enemy'),
    ),
    MeleeResult(
        "defeated by 2",
        6,
        12,
        "+2 shock points",
        _cite(148, 'Defeated by 2: Thrown back 6" (12" for cavalry) facing enemy, + 2 Shock'),
    ),
    MeleeResult(
        "defeated by 3",
        8,
        16,
        "+2 shock points, no movement next turn",
        _cite(149, 'Defeated by 3: Thrown back 8" (16" for cavalry) facing enemy, + 2 Shock'),
    ),
    MeleeResult(
        "defeated by 4 or more",
        10,
        20,
        "double the shock points taken, may only remove shock points next turn",
        _cite(150, 'Defeated by 4 or more: Thrown back 10" (20" for cavalry), double the'),
    ),
)

# --------------------------------------------------------------------------------------------
# Morale

RETIRE = _cite(154, "more Shock points than men remaining, it has to retire at the end")
RETIRE_PER_SHOCK = MappingProxyType(
    {
        "a": (1, _cite(156, '1" for per Shock point over No.of men for A units')),
        "b": (2, _cite(157, '2" for B units')),
        "c": (3, _cite(158, '3" for C units')),
        "d": (4, _cite(159, '4" for D units')),
    }
)
BROKEN = (2, _cite(161, "twice the number of Shock points as men, they are broken"))
BROKEN_REMOVED = _cite(161, "they are broken (remove from table)")

# --------------------------------------------------------------------------------------------
# State as data: every unit attribute the rules read

UNIT_FIELDS: tuple[Field, ...] = (
    Field(
        "type",
        Kind.CHOICE,
        _cite(37, "Unit Movement"),
        "troop type",
        choices=TYPES,
        in_play=False,
    ),
    Field(
        "class",
        Kind.CHOICE,
        _cite(70, "Troop Adjustment"),
        "troop class (A best, D worst)",
        choices=CLASSES,
        in_play=False,
    ),
    Field(
        "weapon",
        Kind.CHOICE,
        _cite(163, "Necessary result / range (Infantry / Cavalry)"),
        "weapon (a gun for artillery)",
        choices=(*SMALL_ARMS, *GUNS),
        in_play=False,
    ),
    Field(
        "fighters",
        Kind.FLAG,
        _cite(136, "Unit are Fighters +1 on roll"),
        "fighters (+1 on the close combat roll)",
        default=False,
        in_play=False,
    ),
    Field(
        "formation",
        Kind.CHOICE,
        _cite(84, "Firer is unit in Formation: +1 on roll."),
        "formation (a gun: limbered or unlimbered)",
        choices=(*FOOT_FORMATIONS, *GUN_FORMATIONS),
    ),
    Field(
        "mounted",
        Kind.FLAG,
        _cite(24, "Dismounting / Mounting 1"),
        "mounted (mounted infantry)",
    ),
    Field("shock", Kind.COUNT, _cite(105, "3-4 Shock Point"), "shock points", default=0),
    Field(
        "casualties",
        Kind.COUNT,
        _cite(154, "than men remaining"),
        "men lost whose figures still stand (gunners dead)",
        default=0,
    ),
    Field("loaded", Kind.FLAG, _cite(27, "Reload rifle 1"), "loaded", default=True),
    Field(
        "jammed",
        Kind.FLAG,
        _cite(98, "Repeating Gun jammed!"),
        "repeating gun jammed",
        default=False,
    ),
    Field(
        "actions_spent",
        Kind.COUNT,
        ACTIONS_PER_TURN[1],
        "actions spent this turn",
        default=0,
        per_turn=True,
    ),
    Field(
        "commander_actions",
        Kind.COUNT,
        ACTIONS_PER_TURN[1],
        "actions its commander spent this turn",
        default=0,
        per_turn=True,
    ),
    Field(
        "attack_actions",
        Kind.COUNT,
        _cite(128, "+ 1D6 for each Attack Action"),
        "attack orders this turn",
        default=0,
        per_turn=True,
    ),
    Field(
        "supporting_units",
        Kind.COUNT,
        _cite(129, "+ 3D6 for supporting unit"),
        "supporting units",
        default=0,
    ),
)
TERRAIN_KEYS = frozenset({"obstacle", "barred"})
"""Terrain keys the sheet's action costs read (lines 21-23)."""

# --------------------------------------------------------------------------------------------
# Exact odds the sheet's rules need beyond `rules.dice`


@lru_cache(maxsize=1024)
def _melee_kills(pool: int, kill_face: int) -> Outcome:
    """Kills of a close combat pool: each die at `kill_face` or more (cached: pools recur)."""
    return Outcome.of(dice.successes(pool, 6, kill_face))


@lru_cache(maxsize=1024)
def _melee_margin(
    a_pool: int, a_face: int, b_pool: int, b_face: int
) -> MappingProxyType[int, Fraction]:
    """`margin_distribution` of two close combat pools (cached: the same pools meet again)."""
    return margin_distribution(_melee_kills(a_pool, a_face).dist, _melee_kills(b_pool, b_face).dist)


@lru_cache(maxsize=1024)
def _melee_shock(pool: int) -> Outcome:
    """Shock points of a close combat pool: one face a die gives one (a 5, or 4 for fighters)."""
    return Outcome.of(dice.binomial(pool, Fraction(1, 6)))


@lru_cache(maxsize=256)
def jam_chance(n: int) -> Fraction:
    """P(more 1s than 6s) among `n` D6: the multinomial sum over ones > sixes."""
    sixth, rest = Fraction(1, 6), Fraction(4, 6)
    total = Fraction(0)
    for ones in range(n + 1):
        for sixes in range(min(ones, n - ones + 1)):
            if sixes >= ones:
                break
            others = n - ones - sixes
            ways = math.comb(n, ones) * math.comb(n - ones, sixes)
            total += ways * sixth ** (ones + sixes) * rest**others
    return total


@dataclass(frozen=True, slots=True)
class FireOdds:
    """The exact outcome of a volley of `dice` dice needing `need`, hit by hit (lines 102-120)."""

    hits: Outcome
    kills: Outcome
    """Men killed: each hit kills on 5-6 (1/3), and on mounted men only when the man took it."""
    shock: Outcome
    """Shock points: each hit gives one on 3-4 (1/3), whoever took it."""
    horses: Outcome
    """Horses killed (mounted targets): a hit the horse took (1-3) and rolled 5-6."""
    leader_hit: Fraction
    """Chance one leader's D10 scores at most the men killed."""


@lru_cache(maxsize=1024)
def _fire_odds(dice_count: int, need: int, mounted: bool) -> FireOdds:
    """Exact odds of one volley; the same few pools recur all over a table, so cached."""
    p = dice.p_at_least(6, need)
    per_hit = Fraction(len(HITS[2].faces), 6)  # kill faces, and as many shock faces
    man = dice.p_at_least(6, HORSE_OR_MAN[0]) if mounted else Fraction(1)
    kills = dice.binomial(dice_count, p * per_hit * man)
    horses = dice.binomial(dice_count, p * per_hit * (1 - man))
    return FireOdds(
        Outcome.of(dice.successes(dice_count, 6, need)),
        Outcome.of(kills),
        Outcome.of(dice.binomial(dice_count, p * Fraction(len(HITS[1].faces), 6))),
        Outcome.of(horses),
        leader_hit_chance(kills),
    )


def leader_hit_chance(killed: Sequence[Fraction]) -> Fraction:
    """P(a leader's D10 scores at most the men killed), given the distribution of men killed."""
    sides = LEADER_HIT[0]
    return sum((p * Fraction(min(k, sides), sides) for k, p in enumerate(killed)), Fraction(0))


def margin_distribution(
    a_kills: Sequence[Fraction], b_kills: Sequence[Fraction]
) -> MappingProxyType[int, Fraction]:
    """P(A's kills - B's kills = m) for every m, two independent distributions."""
    out: dict[int, Fraction] = {}
    for i, pa in enumerate(a_kills):
        if not pa:
            continue
        for j, pb in enumerate(b_kills):
            if pb:
                out[i - j] = out.get(i - j, Fraction(0)) + pa * pb
    return MappingProxyType(out)


def _share_of(n: int, fraction: Fraction) -> int:
    """The change to a pool of `n` dice of `fraction` of it, rounded up (away from zero)."""
    change = n * abs(fraction)
    whole = math.ceil(change)
    return whole if fraction > 0 else -whole


@dataclass(frozen=True, slots=True)
class Outcome:
    """An exact distribution with what players read off it, worked out once."""

    dist: tuple[Fraction, ...]
    """P(k) for k = 0, 1, 2, ..."""
    floats: tuple[float, ...]
    exact: tuple[str, ...]
    mean: float
    p_any: float
    """P(at least 1)."""

    @classmethod
    def of(cls, dist: tuple[Fraction, ...]) -> Outcome:
        return cls(
            dist,
            tuple(dice.as_floats(dist)),
            tuple(str(p) for p in dist),
            float(dice.mean(dist)),
            float(dice.at_least(dist, 1)),
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "distribution": list(self.floats),
            "exact": list(self.exact),
            "mean": self.mean,
            "p_any": self.p_any,
        }


@lru_cache(maxsize=2048)
def _dist_parts(
    dist: tuple[Fraction, ...],
) -> tuple[tuple[float, ...], tuple[str, ...], float, float]:
    return (
        tuple(dice.as_floats(dist)),
        tuple(str(p) for p in dist),
        float(dice.mean(dist)),
        float(dice.at_least(dist, 1)),
    )


# --------------------------------------------------------------------------------------------
# The ruleset


@dataclass(frozen=True, slots=True)
class Troops:
    """The figures of a unit counted as the sheet counts them."""

    men: int
    """Men remaining: every figure on the table but the unit's `casualties`."""
    firing: int
    """Men that roll a die (not musicians or flag bearers), less the `casualties`."""
    leaders: int
    commanders: int
    leader_bases: tuple[str, ...]
    """Ids of the leader and commander bases, for "hits on leaders"."""
    lost: int = 0
    """The unit's `casualties`: men dead whose figures still stand (rank and file)."""

    def firing_text(self) -> str:
        """`9 figures firing`, saying how many dead were left out of the count."""
        lost = f" ({self.lost} dead not counted)" if self.lost else ""
        return f"{self.firing} figures firing{lost}"


class ColonialAdventure(Ruleset):
    id = "colonial-adventure"
    title = "QRS / COLONIAL ADVENTURE"
    sheet = SHEET
    unit = "in"
    phases = tuple(name for name, _ in PHASES)
    phase_steps = PHASE_STEPS
    sides_rule = SIDES_RULE
    unit_fields = UNIT_FIELDS
    terrain_keys = TERRAIN_KEYS
    default_cover: ClassVar[Any] = MappingProxyType(
        {
            TerrainKind.WOODS: Cover.SOFT,
            TerrainKind.TOWN: Cover.SOFT,
            TerrainKind.BUILDING: Cover.SOFT,
            TerrainKind.HEDGE: Cover.SOFT,
            TerrainKind.FENCE: Cover.SOFT,
            TerrainKind.WALL: Cover.SOFT,
            TerrainKind.FORTIFICATION: Cover.HARD,
        }
    )
    """Soft is the sheet's "cover", hard its "fortification" (see the module docstring)."""

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """The "Necessary result / range" bands (lines 86-89 with the header at line 165; guns
        lines 93-97) in which the unit's weapon can hit; the guns' open-ended 36"+ band has no
        edge to draw."""
        weapon = self._weapon(unit)
        bands = GUN_BANDS if weapon in GUNS else SMALL_ARM_BANDS
        return tuple(
            RangeBand(band.label, band.high * INCH, band.cite)
            for band, need in zip(bands, NEEDS[weapon].needs, strict=True)
            if need is not None and band.high is not None
        )

    def actions(self) -> dict[str, Any]:
        return {
            **super().actions(),
            "shoot": self.shoot,
            "melee": self.melee,
            "move": self.move,
            "morale": self.morale,
            "actions": self.unit_actions,
            "initiative": self.initiative,
            "suggest": self.suggest,
        }

    def side_groups(
        self, scene: Scene, initiative: str | None = None
    ) -> dict[str, tuple[str, ...]]:
        """Every side (`all`), and the same sides with the initiative winner first
        (`initiative-order`, line 8)."""
        sides = tuple(dict.fromkeys(u.side for u in scene.units))
        first = tuple(s for s in sides if s == initiative)
        return {ALL: sides, IN_ORDER: first + tuple(s for s in sides if s != initiative)}

    # ----------------------------------------------------------------------------------------
    # Attributes

    def _type(self, unit: Unit) -> str:
        return check_attr(unit, "type", TYPES, ruleset=self.id)

    def _class(self, unit: Unit) -> str:
        return check_attr(unit, "class", CLASSES, ruleset=self.id)

    def _weapon(self, unit: Unit) -> str:
        kind = self._type(unit)
        allowed = GUNS if kind == "artillery" else SMALL_ARMS
        weapon = unit.get("weapon")
        if weapon in (GUNS if kind != "artillery" else SMALL_ARMS):
            raise QuestionError(
                f"{self.id}: unit {unit.id!r} is {kind} but has weapon {weapon!r}; "
                f"{kind} carries {accepted(allowed)}"
            )
        return check_attr(unit, "weapon", allowed, ruleset=self.id)

    def _shock(self, unit: Unit) -> int:
        return self._count(unit, "shock")

    def _count(self, unit: Unit, key: str) -> int:
        """A count field (checked when the scene was read; left out, its start-of-game 0)."""
        value = unit.get(key)
        if value is None:
            raise MissingAttribute(self.id, unit.id, key, "a whole number from 0", 0)
        return int(value)

    def _flag(self, unit: Unit, key: str) -> bool:
        """A flag field (checked when the scene was read); `MissingAttribute` when a flag with
        no start-of-game value (`mounted`) is left out."""
        value = unit.get(key)
        if value is None:
            raise MissingAttribute(self.id, unit.id, key, "true or false", False)
        return bool(value)

    def _left(self, unit: Unit, *, commander: bool = False) -> int:
        """Actions the unit (or the commander with it) has left this turn (line 16)."""
        spent = self._count(unit, _spent_field(commander))
        return max(0, ACTIONS_PER_TURN[0] - spent)

    def _loaded(self, unit: Unit, weapon: str) -> bool:
        """Whether the weapon is ready: always for one the sheet never reloads."""
        return weapon not in RELOAD or self._flag(unit, "loaded")

    def _formed(self, unit: Unit) -> bool:
        """Whether the unit is "in Formation" (line 84); artillery never is."""
        if self._type(unit) == "artillery":
            return False
        return check_attr(unit, "formation", FOOT_FORMATIONS, ruleset=self.id) in FORMED

    def _mounted(self, unit: Unit) -> bool:
        """Cavalry, and mounted infantry while mounted, are mounted men."""
        kind = self._type(unit)
        if kind == "mounted-infantry":
            return self._flag(unit, "mounted")
        return kind == "cavalry"

    def _troops(self, unit: Unit) -> Troops:
        men = firing = leaders = commanders = 0
        leader_bases: list[str] = []
        for b in unit.bases:
            role = b.role
            if role is not None and role not in ROLES:
                raise QuestionError(
                    f"{self.id}: base {b.id!r} of unit {unit.id!r} has role {role!r}; accepted "
                    f"values are {accepted(ROLES)} (or no role)"
                )
            men += b.figures
            if role not in NON_FIRING_ROLES:
                firing += b.figures
            if role in LEADER_ROLES:
                leaders += b.figures
                leader_bases.append(b.id)
            elif role == "commander":
                commanders += b.figures
                leader_bases.append(b.id)
        lost = self._count(unit, "casualties")
        return Troops(
            max(0, men - lost),
            max(0, firing - lost),
            leaders,
            commanders,
            tuple(leader_bases),
            lost,
        )

    # ----------------------------------------------------------------------------------------
    # Shooting

    def shoot(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`shoot SHOOTER TARGET`: arc, sight, band, the dice pool, the need, hits and effects."""
        a, b = expect_args("shoot", args, ("SHOOTER", "TARGET"))
        answer = self._shoot(scene, table_of(scene), a, b)
        assert answer is not None  # only `only_allowed` answers None
        return answer

    def _pair(self, scene: Scene, a: str, b: str) -> tuple[Unit, Unit]:
        ua, ub = scene.unit_of(a), scene.unit_of(b)
        if ua.id == ub.id:
            raise QuestionError(f"{self.id}: {a!r} and {b!r} are the same unit {ua.id!r}")
        if ua.side == ub.side:
            raise QuestionError(
                f"{self.id}: {ua.id!r} and {ub.id!r} are both on side {ua.side!r}; "
                "they do not fight each other"
            )
        return ua, ub

    def _shoot(
        self, scene: Scene, table: Table, a: str, b: str, *, only_allowed: bool = False
    ) -> Resolution | None:
        """The whole answer to `shoot A B`; with `only_allowed` (for `suggest`), None as soon as
        a check fails, the cheap checks first so far targets cost no sight trace."""
        shooter, target = self._pair(scene, a, b)
        weapon = self._weapon(shooter)
        not_ready = self._not_ready(shooter, weapon)
        if only_allowed and not_ready:
            return None
        fire_bases, target_bases = _firing_bases(scene.select(a)), scene.select(b)
        near = table.closest(fire_bases, target_bases)
        bands = GUN_BANDS if weapon in GUNS else SMALL_ARM_BANDS
        row = NEEDS[weapon]
        index = _band_index(bands, near.distance)
        need = row.needs[index] if index is not None else None
        if only_allowed and need is None:
            return None
        in_arc = _in_arc(table, fire_bases, target_bases)
        if only_allowed and not in_arc:
            return None
        sight = table.sight(self.sight_policy, near.a, near.b)
        if only_allowed and not sight.any:
            return None
        formed = self._formed(shooter)
        troops = self._troops(shooter)
        target_mounted = self._mounted(target)
        target_troops = self._troops(target)
        cover = self._cover(table, near.a, near.b)
        pool, modifiers = self._fire_dice(
            shooter, weapon, troops, self._shock(shooter), cover.cover
        )
        if only_allowed and pool == 0:
            return None

        band = bands[index].label if index is not None and need is not None else "out-of-range"
        unc = table.uncertainty(near.a, near.b)
        edge = _nearest_edge(bands, near.distance)
        threshold = Threshold(near.distance, edge * INCH, unc) if edge is not None else None
        reasons: list[str] = []
        if not in_arc:
            reasons.append(f"{target.id} is outside the 180 degree arc of fire ({ARC[1]})")
        if not sight.any:
            reasons.append(f"{target.id} is out of sight, blocked by {', '.join(sight.blocked_by)}")
        if need is None:
            reasons.append(
                f"a {weapon} cannot reach {format_length(near.distance, 'in')} ({row.cite})"
            )
        if pool == 0:
            reasons.append("no dice are left to roll")
        reasons += not_ready
        lines = [
            f"{shooter.id} ({weapon}) shoots at {target.id}: "
            f"{format_length(near.distance, scene.unit)} between {near.a.id} and {near.b.id}, "
            f"band {band}" + ("" if reasons else ", allowed"),
        ]
        if threshold is not None and threshold.too_close_to_call:
            lines.append(
                f'too close to call: within {format_length(unc, scene.unit)} of the {edge:g}" '
                "band edge"
            )
        if cover.cover is not Cover.NONE:
            lines.append(f"target in {_cover_word(cover.cover)}: {'; '.join(cover.reasons)}")
        lines += [f"not allowed: {r}" for r in reasons]
        data: dict[str, Any] = {
            "action": "shoot",
            "ruleset": self.id,
            "shooter": a,
            "target": b,
            "between": {"a": near.a.id, "b": near.b.id},
            "distance": length_json(scene, near.distance),
            "band": band,
            "band_source": str(bands[index].cite) if index is not None else None,
            "band_threshold": None if threshold is None else threshold_json(scene, threshold),
            "allowed": not reasons,
            "reasons": reasons,
            "in_arc": in_arc,
            "in_sight": sight.any,
            "sight": {
                "rays": sight.rays,
                "clear": sight.clear_rays,
                "blocked_by": list(sight.blocked_by),
            },
            "cover": _cover_word(cover.cover),
            "cover_reasons": list(cover.reasons),
            "weapon": weapon,
            "dice": pool,
            "modifiers": [m.as_json() for m in modifiers],
            "rolls": [],
        }
        lines.append(f"dice: {pool} ({'; '.join(_mod_text(m) for m in modifiers)})")
        if need is None:
            return Resolution("shoot", MappingProxyType(data), tuple(lines))

        final_need = need - FORMATION_FIRE[0] if formed else need
        roll_mods: tuple[Modifier, ...] = ()
        if formed:
            roll_mods = (
                Modifier(
                    FORMATION_FIRE[0], "firer in formation: +1 on the roll", FORMATION_FIRE[1]
                ),
            )
        odds = _fire_odds(pool, final_need, target_mounted)
        to_hit = Roll(
            "to hit",
            pool,
            6,
            final_need,
            odds.hits.dist,
            roll_mods,
            row.cite,
            note=f'need {need}+ at {band}"' + (", +1 on the roll in formation" if formed else ""),
        )
        rolls = [to_hit]
        if target_mounted:
            rolls.append(
                Roll(
                    "man not horse",
                    1,
                    6,
                    HORSE_OR_MAN[0],
                    cite=HORSE_OR_MAN[1],
                    note="each hit: 1-3 the horse takes it, 4-6 the man",
                )
            )
        rolls.append(
            Roll(
                "effect of each hit",
                1,
                6,
                None,
                cite=HITS[0].cite,
                note="1-2 no effect, 3-4 shock point, 5-6 kill",
            )
        )
        data["need"] = final_need
        data["rolls"] = [r.as_json() for r in rolls]
        data["hits"] = odds.hits.as_json()
        data["kills"] = odds.kills.as_json()
        data["shock_points"] = odds.shock.as_json()
        data["effects"] = [
            {"faces": list(h.faces), "effect": h.effect, "source": str(h.cite)} for h in HITS
        ]
        lines.append(to_hit.describe())
        lines.append(
            f"expected {data['hits']['mean']:.2f} hits; "
            f"P(at least one hit) = {data['hits']['p_any']:.1%}"
        )
        lines.append(
            f"each hit 1D6: 1-2 no effect, 3-4 shock point, 5-6 kill ({HITS[0].cite}-"
            f"{HITS[2].cite.line}): expected {data['kills']['mean']:.2f} kills, "
            f"{data['shock_points']['mean']:.2f} shock points"
        )
        if target_mounted:
            data["horses_killed"] = odds.horses.as_json()
            lines.append(
                f"{target.id} is mounted: each hit 1-3 the horse, 4-6 the man ({HORSE_OR_MAN[1]});"
                f" expected {data['horses_killed']['mean']:.2f} horses killed"
            )
        if weapon == "repeating-gun":
            jam = jam_chance(pool)
            data["jam"] = {"p": float(jam), "exact": str(jam), "source": str(JAM)}
            lines.append(f"the gun jams on more 1s than 6s: {_fmt(jam)} ({JAM})")
        if target_troops.leader_bases:
            data["leader_hit"] = [
                {
                    "base": ident,
                    "p": float(odds.leader_hit),
                    "exact": str(odds.leader_hit),
                    "source": str(LEADER_HIT[1]),
                }
                for ident in target_troops.leader_bases
            ]
            lines.append(
                f"each of {', '.join(target_troops.leader_bases)} is hit with chance "
                f"{_fmt(odds.leader_hit)} (D10 at most the men killed, {LEADER_HIT[1]})"
            )
        return Resolution("shoot", MappingProxyType(data), tuple(lines))

    def _not_ready(self, unit: Unit, weapon: str) -> list[str]:
        """Why the unit cannot fire now, whatever its target: its weapon is not loaded (lines
        27-30), its repeating gun jammed (line 31), its gun limbered (line 25), or it has no
        action left (small arms: fire costs 1 of the 2 a turn, lines 16 and 26; guns fire in
        the Artillery Phase, line 7, and spend their actions reloading)."""
        out: list[str] = []
        if not self._loaded(unit, weapon):
            cost = self._reload_cost(unit, weapon)
            out.append(
                f"{unit.id} is not loaded: reload first ({cost.action}, "
                f"{_actions_word(cost.actions)}, {cost.cite})"
            )
        if weapon == "repeating-gun" and self._flag(unit, "jammed"):
            fix = COSTS["fix-jam"]
            out.append(
                f"{unit.id} is jammed: fix it first ({fix.action}, "
                f"{_actions_word(fix.actions)}, {fix.cite})"
            )
        if weapon in GUNS:
            if check_attr(unit, "formation", GUN_FORMATIONS, ruleset=self.id) == "limbered":
                out.append(f"{unit.id} is limbered: unlimber it first ({COSTS['limber'].cite})")
        elif self._left(unit) < COSTS["fire"].actions:
            out.append(
                f"{unit.id} has spent its {ACTIONS_PER_TURN[0]} actions this turn "
                f"({ACTIONS_PER_TURN[1]}); fire costs {COSTS['fire'].actions} "
                f"({COSTS['fire'].cite})"
            )
        return out

    def _reload_cost(self, unit: Unit, weapon: str) -> Cost:
        """What reloading the weapon costs: lines 27-30, a gun +1 per two gunners dead (114)."""
        cost = COSTS[RELOAD[weapon]]
        if weapon in GUNS:
            extra = self._count(unit, "casualties") // GUNNERS_DEAD[0]
            if extra:
                cost = Cost(cost.action, cost.actions + extra, cost.cite)
        return cost

    def _cover(self, table: Table, shooter: Base, target: Base) -> CoverReading:
        """`Table.cover`, skipped when no terrain piece is near enough to give any: the target's
        centre stands in none and every cover obstacle's bounding box is farther than
        `cover_behind_within` from the target's (a lower bound of the true gap)."""
        if table.centre_in(target):
            return table.cover(self.cover_policy, shooter, target)
        reach = geo.radius(target) + math.hypot(target.footprint.width, target.footprint.depth) / 2
        for piece in table.scene.terrain:
            if piece.kind not in self.cover_obstacles:
                continue
            x0, y0, x1, y1 = _bbox(piece.polygon)
            gap = max(x0 - target.x, target.x - x1, y0 - target.y, target.y - y1, 0.0) - reach
            if gap <= self.cover_behind_within:
                return table.cover(self.cover_policy, shooter, target)
        return CoverReading(Cover.NONE, ())

    def _fire_dice(
        self, shooter: Unit, weapon: str, troops: Troops, shock: int, cover: Cover
    ) -> tuple[int, list[Modifier]]:
        """The firing pool of lines 65-83 and each modifier with its reason."""
        mods: list[Modifier] = []
        if weapon in GUNS:
            base, cite = GUN_DICE[weapon]
            mods.append(Modifier(base, f"{weapon}: {base} dice", cite))
        else:
            base = troops.firing * DICE_PER_FIGURE[0]
            mods.append(Modifier(base, f"{troops.firing_text()}, 1 die each", DICE_PER_FIGURE[1]))
            adj = CLASS_FIRE[self._class(shooter)]
            if adj.per is not None:
                extra = adj.dice * (troops.firing // adj.per)
                mods.append(
                    Modifier(
                        extra,
                        f"class {self._class(shooter).upper()}: "
                        f"{adj.dice:+d} per {adj.per} men firing",
                        adj.cite,
                    )
                )
        if troops.leaders:
            mods.append(
                Modifier(
                    LEADER_FIRE[0] * troops.leaders,
                    f"{troops.leaders} leader figures",
                    LEADER_FIRE[1],
                )
            )
        if troops.commanders:
            mods.append(
                Modifier(
                    COMMANDER_FIRE[0] * troops.commanders,
                    f"{troops.commanders} commander",
                    COMMANDER_FIRE[1],
                )
            )
        if shock >= SHOCK_FIRE[0]:
            mods.append(
                Modifier(
                    -(shock // SHOCK_FIRE[0]), f"{shock} shock points on the firer", SHOCK_FIRE[1]
                )
            )
        pool = max(0, int(sum(m.value for m in mods)))
        if cover is not Cover.NONE:
            share, cite = FORTIFICATION_FIRE if cover is Cover.HARD else COVER_FIRE
            cut = math.ceil(pool * share)
            mods.append(
                Modifier(
                    -cut,
                    f"target in {_cover_word(cover)}: -{share} of {pool} dice, rounded up",
                    cite,
                )
            )
            pool -= cut
        return pool, mods

    # ----------------------------------------------------------------------------------------
    # Close combat

    def melee(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`melee ATTACKER DEFENDER`: both dice pools, kills and shock, the result table."""
        a, b = expect_args("melee", args, ("ATTACKER", "DEFENDER"))
        return self._melee(scene, table_of(scene), a, b)

    def _melee(self, scene: Scene, table: Table, a: str, b: str) -> Resolution:
        attacker, defender = self._pair(scene, a, b)
        near = table.closest(scene.select(a), scene.select(b))
        contact = Threshold(near.distance, 0.0, table.uncertainty(near.a, near.b))
        touching = near.distance <= geo.EPS  # touching or overlapping: certainly in contact
        in_contact = touching or contact.too_close_to_call
        reading = geo.aspect(near.a, near.b)
        defender_cover = table.cover(self.cover_policy, near.a, near.b).cover
        att = self._melee_side(
            table, attacker, defender, near.b, defender_cover, Cover.NONE, reading, True
        )
        dfd = self._melee_side(
            table, defender, attacker, near.a, Cover.NONE, defender_cover, reading, False
        )
        # The defender's dead are the attacker's kills: a margin m > 0 means the defender lost
        # m more men than the attacker, so the defender is "defeated by m".
        margin = _melee_margin(att.roll.dice, att.kill_face, dfd.roll.dice, dfd.kill_face)
        p_draw = margin.get(0, Fraction(0))
        results: list[dict[str, Any]] = [
            {
                "loser": None,
                "result": DRAW.label,
                "p": float(p_draw),
                "exact": str(p_draw),
                "thrown_back": length_json(scene, DRAW.foot_back * INCH),
                "effect": DRAW.effect,
                "source": str(DRAW.cite),
            }
        ]
        outcome_lines: list[str] = []
        for loser, sign in ((defender, 1), (attacker, -1)):
            cavalry = self._mounted(loser)
            for by, row in enumerate(DEFEATS, start=1):
                last = by == len(DEFEATS)
                p = sum(
                    (q for m, q in margin.items() if (m * sign >= by if last else m * sign == by)),
                    Fraction(0),
                )
                back = (row.horse_back if cavalry else row.foot_back) * INCH
                outcome_lines.append(
                    f"{loser.id} {row.label}: {_fmt(p)}, thrown back "
                    f"{format_length(back, scene.unit)}, {row.effect} ({row.cite})"
                )
                results.append(
                    {
                        "loser": loser.id,
                        "result": row.label,
                        "p": float(p),
                        "exact": str(p),
                        "thrown_back": length_json(scene, back),
                        "effect": row.effect,
                        "source": str(row.cite),
                    }
                )
        data: dict[str, Any] = {
            "action": "melee",
            "ruleset": self.id,
            "attacker": a,
            "defender": b,
            "between": {"a": near.a.id, "b": near.b.id},
            "distance": length_json(scene, near.distance),
            "in_contact": in_contact,
            "contact": threshold_json(scene, contact),
            "aspect": reading.aspect.value,
            "defender_cover": _cover_word(defender_cover),
            "sides": [side.as_json() for side in (att, dfd)],
            "results": results,
            "leader_hit": [
                {"base": ident, "p": float(p), "exact": str(p), "source": str(MELEE_LEADER_HITS)}
                for side, enemy in ((att, defender), (dfd, attacker))
                for p in (leader_hit_chance(side.kills.dist),)
                for ident in self._troops(enemy).leader_bases
            ],
        }
        if touching:
            contact_text = "in base contact"
        elif contact.too_close_to_call:
            contact_text = (
                f"base contact too close to call: {format_length(near.distance, scene.unit)} apart"
            )
        else:
            contact_text = f"NOT in base contact: {format_length(near.distance, scene.unit)} apart"
        lines = [f"close combat: {attacker.id} attacks {defender.id} ({contact_text})"]
        for side in (att, dfd):
            lines.append(
                f"{side.unit}: {side.roll.dice} dice "
                f"({'; '.join(_mod_text(m) for m in side.modifiers)}); {side.roll.note}; "
                f"expected {side.kills.mean:.2f} kills"
            )
        lines.append(f"draw {_fmt(p_draw)}: {DRAW.effect} ({DRAW.cite})")
        lines += outcome_lines
        for hit in data["leader_hit"]:
            lines.append(
                f"{hit['base']} is hit with chance {hit['exact']} ({hit['p']:.1%}): a D10 at most "
                f"the men killed, as shooting ({MELEE_LEADER_HITS}, {LEADER_HIT[1]})"
            )
        return Resolution("melee", MappingProxyType(data), tuple(lines))

    def _melee_side(
        self,
        table: Table,
        unit: Unit,
        enemy: Unit,
        enemy_base: Base,
        enemy_cover: Cover,
        own_cover: Cover,
        reading: geo.AspectReading,
        attacking: bool,
    ) -> MeleeSide:
        """One side's close combat pool (lines 124-136), its kill roll and shock odds.

        Covers are the defender's against the attacker (hard: a fortification); the attacker is
        taken to have none, the sheet giving no modifier for it.
        """
        pool, mods = self._melee_dice(unit, self._class(unit), self._class(enemy))
        shares: list[tuple[Fraction, str, Cite]] = []
        mounted = self._mounted(unit)
        if not attacking and own_cover is Cover.HARD:
            shares.append(
                (MELEE_FORTIFICATION[0], "defending a fortification", MELEE_FORTIFICATION[1])
            )
        if not attacking and reading.aspect is not geo.Aspect.FRONT:
            shares.append((MELEE_FLANK[0], f"hit in the {reading.aspect.value}", MELEE_FLANK[1]))
        if (
            mounted
            and self._type(enemy) != "artillery"
            and not self._mounted(enemy)
            and not self._formed(enemy)
            and self._in_open(table, enemy_base, enemy_cover)
        ):
            shares.append(
                (
                    MELEE_CAVALRY_OPEN[0],
                    "cavalry against unformed infantry in the open",
                    MELEE_CAVALRY_OPEN[1],
                )
            )
        if mounted and attacking and enemy_cover is Cover.HARD:
            shares.append(
                (
                    MELEE_CAVALRY_FORT[0],
                    "cavalry against troops in fortification",
                    MELEE_CAVALRY_FORT[1],
                )
            )
        for share, why, cite in shares:
            change = _share_of(pool, share)
            sign = "+" if share > 0 else ""
            mods.append(Modifier(change, f"{why}: {sign}{share} of {pool} dice, rounded up", cite))
            pool = max(0, pool + change)
        fighters = self._flag(unit, "fighters")
        bonus = MELEE_FIGHTERS[0] if fighters else 0
        kill_face, shock_face = MELEE_KILL[0] - bonus, MELEE_SHOCK_FACE[0] - bonus
        roll_mods = list(mods)
        if fighters:
            roll_mods.append(Modifier(bonus, "fighters: +1 on the roll", MELEE_FIGHTERS[1]))
        roll = Roll(
            "kill",
            pool,
            6,
            kill_face,
            _melee_kills(pool, kill_face).dist,
            tuple(roll_mods),
            MELEE_KILL[1],
            note=f"{kill_face}+ kills, {shock_face} a shock point",
        )
        return MeleeSide(
            unit.id,
            tuple(mods),
            roll,
            kill_face,
            _melee_kills(pool, kill_face),
            _melee_shock(pool),
            fighters,
        )

    @staticmethod
    def _in_open(table: Table, base: Base, cover: Cover) -> bool:
        """No cover, and standing on nothing but open ground, roads or hills."""
        open_kinds = (TerrainKind.OPEN, TerrainKind.ROAD, TerrainKind.HILL)
        return cover is Cover.NONE and all(
            s.terrain.kind in open_kinds for s in table.standing(base)
        )

    def _melee_dice(self, unit: Unit, cls: str, enemy_cls: str) -> tuple[int, list[Modifier]]:
        """The additive part of the close combat pool (lines 124-131)."""
        troops = self._troops(unit)
        mods = [
            Modifier(
                troops.firing * MELEE_PER_MAN[0],
                f"{troops.firing} men in the fight",
                MELEE_PER_MAN[1],
            )
        ]
        if troops.leaders:
            mods.append(
                Modifier(
                    troops.leaders * MELEE_LEADER[0],
                    f"{troops.leaders} officers/leaders",
                    MELEE_LEADER[1],
                )
            )
        if troops.commanders:
            mods.append(
                Modifier(
                    troops.commanders * MELEE_COMMANDER[0],
                    f"{troops.commanders} commander",
                    MELEE_COMMANDER[1],
                )
            )
        attacks = self._count(unit, "attack_actions")
        if attacks:
            mods.append(
                Modifier(
                    attacks * MELEE_ATTACK_ACTION[0],
                    f"{attacks} attack actions",
                    MELEE_ATTACK_ACTION[1],
                )
            )
        support = self._count(unit, "supporting_units")
        if support:
            mods.append(
                Modifier(
                    support * MELEE_SUPPORT[0], f"{support} supporting units", MELEE_SUPPORT[1]
                )
            )
        steps = CLASSES.index(enemy_cls) - CLASSES.index(cls)
        if steps > 0:
            mods.append(
                Modifier(
                    steps * MELEE_STATUS[0],
                    f"class {cls.upper()} is {steps} status above {enemy_cls.upper()}",
                    MELEE_STATUS[1],
                )
            )
        shock = self._shock(unit)
        if shock >= MELEE_SHOCK[0]:
            mods.append(
                Modifier(-(shock // MELEE_SHOCK[0]), f"{shock} shock points", MELEE_SHOCK[1])
            )
        return max(0, int(sum(m.value for m in mods))), mods

    # ----------------------------------------------------------------------------------------
    # Movement, actions, morale, initiative

    def _movement(self, unit: Unit) -> tuple[str, Movement]:
        kind = self._type(unit)
        if kind == "artillery":
            key = check_attr(unit, "formation", GUN_FORMATIONS, ruleset=self.id)
        elif kind == "mounted-infantry" and not self._mounted(unit):
            key = "infantry"
        else:
            key = kind
        return key, MOVEMENT[key]

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT [TERRAIN...]`: Unit Movement, the Action Movement dice and the actions
        spent crossing the named obstacles or entering the named buildings."""
        return self._move(scene, table_of(scene), args)

    def _move_steps(self, scene: Scene, args: Sequence[str]) -> tuple[Unit, list[Cost]]:
        """The unit of `move UNIT [TERRAIN...]` and what its move costs (lines 20-23)."""
        if not args:
            raise QuestionError(
                "move takes a unit and optionally terrain ids (move UNIT [TERRAIN...]), got none"
            )
        unit = scene.unit_of(args[0])
        steps = [COSTS["move"]]
        for ident in args[1:]:
            steps.append(self._crossing(scene.terrain_piece(ident)))
        return unit, steps

    def _move(self, scene: Scene, table: Table, args: Sequence[str]) -> Resolution:
        unit, steps = self._move_steps(scene, args)
        key, mv = self._movement(unit)
        floats, exact, mean = _spread(mv.dice, mv.sides)
        standing = sorted({s.terrain.id for b in unit.bases for s in table.standing(b)})
        spent = sum(c.actions for c in steps)
        before = self._count(unit, "actions_spent")
        allowed = before + spent <= ACTIONS_PER_TURN[0]
        data: dict[str, Any] = {
            "action": "move",
            "ruleset": self.id,
            "unit": args[0],
            "moves_as": key,
            "allowance": length_json(scene, mv.inches * INCH),
            "allowance_source": str(mv.move_cite),
            "action_movement": {
                "dice": mv.dice,
                "sides": mv.sides,
                "source": str(mv.dice_cite),
                "distribution_inches": list(floats),
                "exact": list(exact),
                "mean_inches": mean,
            },
            "stands_in": standing,
            "actions": [
                {"action": c.action, "cost": c.actions, "source": str(c.cite)} for c in steps
            ],
            "actions_spent": spent,
            "actions_spent_before": before,
            "actions_per_turn": ACTIONS_PER_TURN[0],
            "allowed": allowed,
            "interpenetration": str(INTERPENETRATION),
        }
        earlier = f", {before} spent before" if before else ""
        lines = [
            f"{unit.id} moves as {key}: {format_length(mv.inches * INCH, scene.unit)} a Move "
            f"action ({mv.move_cite}); Action Movement {mv.dice}D{mv.sides}, mean "
            f'{mean:g}" ({mv.dice_cite})',
            "actions: "
            + ", ".join(f"{c.action} {c.actions} ({c.cite})" for c in steps)
            + f"; {spent}{earlier} of {ACTIONS_PER_TURN[0]} a turn ({ACTIONS_PER_TURN[1]})",
        ]
        if not allowed:
            lines.append(
                f"not allowed this turn: {before + spent} actions is more than "
                f"{ACTIONS_PER_TURN[0]}"
            )
        if standing:
            lines.append(
                f"stands in {', '.join(standing)}: the sheet slows no terrain, only "
                "obstacles and buildings cost actions"
            )
        lines.append(f"no troops may pass through other units ({INTERPENETRATION})")
        return Resolution("move", MappingProxyType(data), tuple(lines))

    def _crossing(self, piece: Terrain) -> Cost:
        """The action cost of crossing a piece of terrain (lines 21-23)."""
        mark = piece.attrs.get("obstacle")
        if mark is not None:
            if mark not in ("low", "high"):
                raise QuestionError(
                    f"{self.id}: terrain {piece.id!r} has obstacle {mark!r}; accepted values "
                    "are 'low' or 'high'"
                )
            return COSTS[f"{mark}-obstacle"]
        if piece.kind is TerrainKind.BUILDING:
            barred = piece.attrs.get("barred", False)
            if barred is not False:
                raise QuestionError(
                    f"{self.id}: terrain {piece.id!r} is a barred building (barred {barred!r}); "
                    "the sheet prices only entering an unbarred building (barred: false)"
                )
            return COSTS["building"]
        if piece.kind in (TerrainKind.HEDGE, TerrainKind.FENCE, TerrainKind.WALL):
            return COSTS["low-obstacle"]
        if piece.kind is TerrainKind.FORTIFICATION:
            return COSTS["high-obstacle"]
        raise QuestionError(
            f"{self.id}: the sheet gives no action cost for crossing {piece.kind} "
            f"({piece.id!r}); mark it obstacle 'low' or 'high', or use a hedge, fence, wall, "
            "fortification or building"
        )

    def _costs(self, unit: Unit) -> tuple[list[tuple[str, Cost]], list[str]]:
        """Every action of the ACTION COST list (lines 20-33) open to the unit, by its key in
        `COSTS`, with what it costs this unit; and notes."""
        kind = self._type(unit)
        weapon = self._weapon(unit)
        troops = self._troops(unit)
        keys = ["move", "low-obstacle", "high-obstacle", "building"]
        if kind == "mounted-infantry":
            keys.append("mount")
        if kind == "artillery":
            keys.append("limber")
        keys.append("fire")
        costs = [(key, COSTS[key]) for key in keys]
        notes: list[str] = []
        if weapon in RELOAD:
            cost = self._reload_cost(unit, weapon)
            if cost.actions != COSTS[RELOAD[weapon]].actions:
                dead = self._count(unit, "casualties")
                extra = cost.actions - COSTS[RELOAD[weapon]].actions
                notes.append(f"{dead} gunners dead: +{extra} to reload ({GUNNERS_DEAD[1]})")
            costs.append((RELOAD[weapon], cost))
        else:
            notes.append(f"the sheet lists no reload cost for a {weapon}")
        if weapon == "repeating-gun":
            costs.append(("fix-jam", COSTS["fix-jam"]))
        if troops.commanders:
            costs += [("rally", COSTS["rally"]), ("attack-order", COSTS["attack-order"])]
        return costs, notes

    def _open_now(self, unit: Unit) -> list[tuple[str, Cost]]:
        """The actions the unit may take now: affordable with the actions it has left, and with
        something to do (a reload when unloaded, a fix when jammed, a shock point to remove).
        Fire is left out: its outcome is the shoot's."""
        weapon = self._weapon(unit)
        out = []
        for key, cost in self._costs(unit)[0]:
            if key == "fire" or cost.actions > self._left(unit, commander=key in BY_COMMANDER):
                continue
            if key.startswith("reload") and self._loaded(unit, weapon):
                continue
            if key == "fix-jam" and not self._flag(unit, "jammed"):
                continue
            if key == "rally" and not self._shock(unit):
                continue
            out.append((key, cost))
        return out

    def unit_actions(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`actions UNIT`: the two actions a turn, what each action open to the unit costs, and
        what it may still do this turn."""
        (ident,) = expect_args("actions", args, ("UNIT",))
        unit = scene.unit_of(ident)
        costs, notes = self._costs(unit)
        spent = self._count(unit, "actions_spent")
        left = self._left(unit)
        open_now = [cost.action for _, cost in self._open_now(unit)]
        data: dict[str, Any] = {
            "action": "actions",
            "ruleset": self.id,
            "unit": ident,
            "actions_per_turn": ACTIONS_PER_TURN[0],
            "source": str(ACTIONS_PER_TURN[1]),
            "actions_spent": spent,
            "actions_left": left,
            "costs": [
                {"action": c.action, "cost": c.actions, "source": str(c.cite)} for _, c in costs
            ],
            "open_now": open_now,
            "notes": notes,
        }
        lines = [
            f"{unit.id} has {ACTIONS_PER_TURN[0]} actions a turn ({ACTIONS_PER_TURN[1]}), "
            f"{left} left:"
        ]
        lines += [f"  {c.action}: {c.actions} ({c.cite})" for _, c in costs]
        if self._troops(unit).commanders:
            data["commander_actions_left"] = self._left(unit, commander=True)
            notes.append(
                f"its commander has {ACTIONS_PER_TURN[0]} actions of his own, "
                f"{data['commander_actions_left']} left: -1 shock point and attack orders are his"
            )
        lines += notes
        lines.append(
            "open now (fire is settled through shoot): "
            + (", ".join(open_now) if open_now else "nothing")
        )
        return Resolution("actions", MappingProxyType(data), tuple(lines))

    def morale(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`morale UNIT`: shock points against men: hold, retire how far, or broken."""
        (ident,) = expect_args("morale", args, ("UNIT",))
        unit = scene.unit_of(ident)
        shock, men = self._shock(unit), self._troops(unit).men
        per_point, cite = RETIRE_PER_SHOCK[self._class(unit)]
        over = max(0, shock - men)
        broken = shock >= BROKEN[0] * men
        retire = 0.0 if broken else over * per_point * INCH
        status = "broken" if broken else "retire" if over else "steady"
        data = {
            "action": "morale",
            "ruleset": self.id,
            "unit": ident,
            "shock": shock,
            "men": men,
            "status": status,
            "over": over,
            "retire": length_json(scene, retire),
            "sources": [str(RETIRE), str(cite), str(BROKEN[1])],
        }
        if broken:
            line = (
                f"{unit.id} is broken: {shock} shock points, at least twice its {men} men; "
                f"remove it from the table ({BROKEN[1]})"
            )
        elif over:
            line = (
                f"{unit.id} retires {format_length(retire, scene.unit)} at the end of the "
                f'turn: {over} shock points over its {men} men x {per_point}" for class '
                f"{self._class(unit).upper()} ({RETIRE}, {cite})"
            )
        else:
            line = f"{unit.id} stands: {shock} shock points, not more than its {men} men ({RETIRE})"
        return Resolution("morale", MappingProxyType(data), (line,))

    def _initiative_bonus(self, scene: Scene) -> tuple[list[str], dict[str, int], dict[str, int]]:
        """The two sides (sorted), their leader and commander figures, and the +1 of the side
        with more (line 8)."""
        sides = sorted({u.side for u in scene.units})
        if len(sides) != 2:
            raise QuestionError(
                f"{self.id}: initiative is rolled between two sides; the scene has "
                f"{len(sides)}: {', '.join(map(repr, sides)) or 'none'}"
            )
        leaders = {
            s: sum(
                t.leaders + t.commanders
                for t in (self._troops(u) for u in scene.units if u.side == s)
            )
            for s in sides
        }
        bonus = {s: int(leaders[s] > leaders[o]) for s, o in (sides, sides[::-1])}
        return sides, leaders, bonus

    def initiative(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`initiative`: each side's 1D6, +1 to the side with more leaders (line 8)."""
        expect_args("initiative", args, ())
        sides, leaders, bonus = self._initiative_bonus(scene)
        wins = {s: Fraction(0) for s in sides}
        tie = Fraction(0)
        for x in range(1, 7):
            for y in range(1, 7):
                sx, sy = x + bonus[sides[0]], y + bonus[sides[1]]
                if sx > sy:
                    wins[sides[0]] += Fraction(1, 36)
                elif sy > sx:
                    wins[sides[1]] += Fraction(1, 36)
                else:
                    tie += Fraction(1, 36)
        data = {
            "action": "initiative",
            "ruleset": self.id,
            "source": str(INITIATIVE),
            "sides": [
                {
                    "side": s,
                    "leaders": leaders[s],
                    "bonus": bonus[s],
                    "p_win": float(wins[s]),
                    "exact": str(wins[s]),
                }
                for s in sides
            ],
            "p_tie": float(tie),
            "tie_exact": str(tie),
        }
        lines = [
            f"{s}: {leaders[s]} leaders, 1D6{'+1' if bonus[s] else ''}, wins {_fmt(wins[s])}"
            for s in sides
        ] + [f"tie {_fmt(tie)}: the sheet does not say how a tie is broken ({INITIATIVE})"]
        return Resolution("initiative", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # Outcomes: what the dice the players rolled do to the game

    def outcomes(self) -> Mapping[str, OutcomeRule]:
        return {
            "shoot": OutcomeRule(self._shoot_form, self._shoot_apply),
            "melee": OutcomeRule(self._melee_form, self._melee_apply),
            "morale": OutcomeRule(self._morale_form, self._morale_apply),
            "actions": OutcomeRule(self._actions_form, self._actions_apply),
            "initiative": OutcomeRule(self._initiative_form, self._initiative_apply),
            "move": OutcomeRule(self._move_form, self._move_apply),
        }

    def _removed_report(self, name: str, unit: Unit) -> Report:
        """Which bases of `unit` the players take off for its men killed (a leader hit on his
        D10 falls in place of a man, line 120)."""
        return Report(
            name,
            Kind.BASES,
            f"bases of {unit.id} taken off for its men killed (a leader or commander whose D10 "
            "scored at most the men killed falls in place of a man)",
            LEADER_HIT[1],
            maximum=len(unit.bases),
            unit=unit.id,
            bases=tuple(b.id for b in unit.bases),
            default=(),
        )

    def _losses(
        self, unit: Unit, killed: int, removed: Sequence[str], why: str, cite: Cite
    ) -> list[Change]:
        """The men a unit lost: the bases taken off, and the dead whose figures still stand in
        `casualties`; every base when every man is dead."""
        figures = {b.id: b.figures for b in unit.bases}
        before = self._count(unit, "casualties")
        lost = before + killed
        if lost >= sum(figures.values()):
            return [
                Change(
                    b, "removed", True, f"{why}: every man of {unit.id} is dead", cite, Scope.BASE
                )
                for b in figures
            ]
        taken = sum(figures[b] for b in removed)
        if taken > lost:
            raise QuestionError(
                f"{self.id}: the bases of {unit.id} taken off ({', '.join(removed)}) hold "
                f"{taken} figures, more than the {lost} men it has lost"
            )
        changes = []
        if lost - taken != before:
            changes.append(
                Change(
                    unit.id,
                    "casualties",
                    lost - taken,
                    f"{killed} killed ({why}), {lost - taken} of its dead still on the table",
                    cite,
                )
            )
        changes += [
            Change(b, "removed", True, f"killed ({why})", cite, Scope.BASE) for b in removed
        ]
        return changes

    def _shoot_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Hits, kills and shock points of the volley (lines 100-106), the bases taken off, and
        for a repeating gun whether it jammed (line 98)."""
        a, b = expect_args("shoot", args, ("SHOOTER", "TARGET"))
        data = self.shoot(scene, (a, b)).data
        if not data["allowed"]:
            raise QuestionError(
                f"{self.id}: {a} does not shoot at {b}: {'; '.join(data['reasons'])}"
            )
        target = scene.unit_of(b)
        pool, need, weapon = data["dice"], data["need"], data["weapon"]
        man = (
            " the man took (4-6 on the horse-or-man die) and"
            if data.get("horses_killed") is not None
            else ""
        )
        reports = [
            Report(
                "hits",
                Kind.COUNT,
                f"dice that hit ({need}+ on {pool} dice)",
                NEEDS[weapon].cite,
                maximum=pool,
                default=_mode(data["hits"]["distribution"]),
            ),
            Report(
                "kills",
                Kind.COUNT,
                f"hits that{man} killed (5-6 on the hit's die)",
                HITS[2].cite,
                maximum=pool,
                default=_mode(data["kills"]["distribution"]),
            ),
            Report(
                "shock",
                Kind.COUNT,
                "hits that gave a shock point (3-4 on the hit's die)",
                HITS[1].cite,
                maximum=pool,
                default=_mode(data["shock_points"]["distribution"]),
            ),
            self._removed_report("removed", target),
        ]
        if weapon == "repeating-gun":
            reports.append(
                Report(
                    "jammed", Kind.FLAG, "more 1s than 6s among the gun's dice", JAM, default=False
                )
            )
        return tuple(reports)

    def _shoot_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        shooter, target = scene.unit_of(args[0]), scene.unit_of(args[1])
        weapon = self._weapon(shooter)
        hits, kills, shock = (int(reported[k]) for k in ("hits", "kills", "shock"))
        if kills + shock > hits:
            raise QuestionError(
                f"{self.id}: {kills} kills and {shock} shock points are more than the {hits} "
                f"hits: each hit rolls one die, 1-2 no effect, 3-4 a shock point, 5-6 a kill "
                f"({HITS[0].cite}-{HITS[2].cite.line})"
            )
        changes = []
        if shock:
            changes.append(
                Change(
                    target.id,
                    "shock",
                    self._shock(target) + shock,
                    f"{shock} hits of {shooter.id} rolled 3-4",
                    HITS[1].cite,
                )
            )
        changes += self._losses(
            target, kills, reported["removed"], f"shot by {shooter.id}", HITS[2].cite
        )
        if weapon in RELOAD:
            reload = self._reload_cost(shooter, weapon)
            changes.append(
                Change(
                    shooter.id,
                    "loaded",
                    False,
                    f"fired: {reload.action} costs {_actions_word(reload.actions)}",
                    reload.cite,
                )
            )
        if weapon not in GUNS:
            fire = COSTS["fire"]
            changes.append(
                Change(
                    shooter.id,
                    "actions_spent",
                    self._count(shooter, "actions_spent") + fire.actions,
                    f"fired: {_actions_word(fire.actions)}",
                    fire.cite,
                )
            )
        if reported.get("jammed"):
            changes.append(Change(shooter.id, "jammed", True, "more 1s than 6s", JAM))
        return tuple(changes)

    def _melee_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Each side's kills (6s, or 5-6 for fighters) and shock points (5s, or 4s) on the
        enemy (lines 136-138), and the bases each side takes off."""
        a, b = expect_args("melee", args, ("ATTACKER", "DEFENDER"))
        data = self.melee(scene, (a, b)).data
        if not data["in_contact"]:
            raise QuestionError(
                f"{self.id}: {a} and {b} are not in base contact "
                f"({data['distance']['value']:g} {scene.unit} apart); close combat needs it"
            )
        units = (scene.unit_of(a), scene.unit_of(b))
        reports: list[Report] = []
        for role, side, unit, enemy in zip(
            ("attacker", "defender"), data["sides"], units, units[::-1], strict=True
        ):
            kill = side["rolls"][0]["need"]
            faces = "6s" if kill == 6 else f"{kill}s and 6s"
            reports += [
                Report(
                    f"{role}_kills",
                    Kind.COUNT,
                    f"{faces} rolled by {unit.id}: men of {enemy.id} killed",
                    MELEE_KILL[1],
                    maximum=side["dice"],
                    default=_mode(side["kills"]["distribution"]),
                ),
                Report(
                    f"{role}_shock",
                    Kind.COUNT,
                    f"{kill - 1}s rolled by {unit.id}: shock points on {enemy.id}",
                    MELEE_SHOCK_FACE[1],
                    maximum=side["dice"],
                    default=_mode(side["shock_points"]["distribution"]),
                ),
            ]
        reports += [
            self._removed_report(f"{role}_removed", u)
            for role, u in zip(("attacker", "defender"), units, strict=True)
        ]
        return tuple(reports)

    def _melee_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        attacker, defender = scene.unit_of(args[0]), scene.unit_of(args[1])
        sides = self.melee(scene, args).data["sides"]
        for role, side in zip(("attacker", "defender"), sides, strict=True):
            kills, shock = int(reported[f"{role}_kills"]), int(reported[f"{role}_shock"])
            if kills + shock > side["dice"]:
                raise QuestionError(
                    f"{self.id}: {side['unit']} rolled {side['dice']} dice, fewer than its "
                    f"{kills} kills and {shock} shock points (one face a die)"
                )
        a_kills, d_kills = int(reported["attacker_kills"]), int(reported["defender_kills"])
        # Shock points each unit takes: the enemy's 5s (line 138), then the result (148-150).
        taken = {
            attacker.id: int(reported["defender_shock"]),
            defender.id: int(reported["attacker_shock"]),
        }
        why = {
            attacker.id: [f"{taken[attacker.id]} shock from {defender.id}'s dice"],
            defender.id: [f"{taken[defender.id]} shock from {attacker.id}'s dice"],
        }
        cites = {attacker.id: MELEE_SHOCK_FACE[1], defender.id: MELEE_SHOCK_FACE[1]}
        margin = a_kills - d_kills  # the defender's dead less the attacker's
        if margin:
            loser = defender if margin > 0 else attacker
            by = abs(margin)
            row = DEFEATS[min(by, len(DEFEATS)) - 1]
            back = row.horse_back if self._mounted(loser) else row.foot_back
            extra = 0 if by == 1 else 2 if by < len(DEFEATS) else taken[loser.id]
            why[loser.id].append(
                f'{row.label}: thrown back {back:g}" facing the enemy'
                + (f", +{extra} shock" if extra else "")
                + (", no movement next turn" if by == 3 else "")
                + (", may only remove shock points next turn" if by >= 4 else "")
            )
            taken[loser.id] += extra
            cites[loser.id] = row.cite
        else:
            for unit in (attacker, defender):
                why[unit.id].append(DRAW.effect)
        changes: list[Change] = []
        for unit in (attacker, defender):
            if taken[unit.id]:
                changes.append(
                    Change(
                        unit.id,
                        "shock",
                        self._shock(unit) + taken[unit.id],
                        "; ".join(why[unit.id]),
                        cites[unit.id],
                    )
                )
        changes += self._losses(
            defender,
            a_kills,
            reported["defender_removed"],
            f"close combat with {attacker.id}",
            MELEE_KILL[1],
        )
        changes += self._losses(
            attacker,
            d_kills,
            reported["attacker_removed"],
            f"close combat with {defender.id}",
            MELEE_KILL[1],
        )
        return tuple(changes)

    def _morale_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """No dice: the shock points against the men decide (lines 154-161)."""
        expect_args("morale", args, ("UNIT",))
        return ()

    def _morale_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        data = self.morale(scene, args).data
        if data["status"] != "broken":
            return ()
        unit = scene.unit_of(args[0])
        why = f"broken: {data['shock']} shock points, at least twice its {data['men']} men"
        return tuple(
            Change(b.id, "removed", True, why, BROKEN_REMOVED, Scope.BASE) for b in unit.bases
        )

    def _actions_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Which action of the ACTION COST list (lines 18-33) the unit takes."""
        (ident,) = expect_args("actions", args, ("UNIT",))
        unit = scene.unit_of(ident)
        options = self._open_now(unit)
        if not options:
            raise QuestionError(
                f"{self.id}: {unit.id} has no action open now: {self._left(unit)} of its "
                f"{ACTIONS_PER_TURN[0]} actions left this turn ({ACTIONS_PER_TURN[1]}), nothing "
                "to reload, fix or rally (fire is settled through shoot)"
            )
        names = tuple(cost.action for _, cost in options)
        return (
            Report(
                "action",
                Kind.CHOICE,
                f"the action {unit.id} takes",
                ACTION_COST,
                choices=names,
                default=names[0],
            ),
        )

    def _actions_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        unit = scene.unit_of(args[0])
        key, cost = next((k, c) for k, c in self._open_now(unit) if c.action == reported["action"])
        commander = key in BY_COMMANDER
        field = _spent_field(commander)
        who = f"{unit.id}'s commander" if commander else unit.id
        changes = [
            Change(
                unit.id,
                field,
                self._count(unit, field) + cost.actions,
                f"{who}: {cost.action}, {_actions_word(cost.actions)}",
                cost.cite,
            )
        ]
        if key.startswith("reload"):
            changes.append(Change(unit.id, "loaded", True, cost.action, cost.cite))
        elif key == "fix-jam":
            changes.append(Change(unit.id, "jammed", False, cost.action, cost.cite))
        elif key == "rally":
            changes.append(Change(unit.id, "shock", self._shock(unit) - 1, cost.action, cost.cite))
        elif key == "attack-order":
            changes.append(
                Change(
                    unit.id,
                    "attack_actions",
                    self._count(unit, "attack_actions") + 1,
                    f"{cost.action}: +1D6 in close combat",
                    MELEE_ATTACK_ACTION[1],
                )
            )
        elif key == "mount":
            mounted = self._flag(unit, "mounted")
            changes.append(
                Change(
                    unit.id, "mounted", not mounted, "dismounts" if mounted else "mounts", cost.cite
                )
            )
        elif key == "limber":
            now = check_attr(unit, "formation", GUN_FORMATIONS, ruleset=self.id)
            after = "unlimbered" if now == "limbered" else "limbered"
            changes.append(Change(unit.id, "formation", after, after, cost.cite))
        return tuple(changes)

    def _initiative_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Each side's 1D6 (line 8); the +1 for more leaders is added here."""
        expect_args("initiative", args, ())
        sides, _, bonus = self._initiative_bonus(scene)
        return tuple(
            Report(
                f"roll_{side}",
                Kind.COUNT,
                f"{side}'s 1D6"
                + (" (its +1 for more leaders is added for you)" if bonus[side] else ""),
                INITIATIVE,
                maximum=6,
            )
            for side in sides
        )

    def _initiative_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        sides, _, bonus = self._initiative_bonus(scene)
        faces = {s: int(reported[f"roll_{s}"]) for s in sides}
        bad = [f"roll_{s} is {faces[s]}" for s in sides if not 1 <= faces[s] <= 6]
        if bad:
            raise QuestionError(f"{self.id}: {'; '.join(bad)}; a D6 shows 1 to 6")
        totals = {s: faces[s] + bonus[s] for s in sides}
        said = " against ".join(
            f"{s} {faces[s]}" + (f"+{bonus[s]} = {totals[s]}" if bonus[s] else "") for s in sides
        )
        first, second = sides
        if totals[first] == totals[second]:
            raise QuestionError(
                f"{self.id}: a tie ({said}): the sheet does not say how a tie is broken; roll "
                "again and report the new dice"
            )
        winner = first if totals[first] > totals[second] else second
        return (
            Change(
                "game",
                "initiative",
                winner,
                f"won the initiative die roll: {said}",
                INITIATIVE,
                Scope.GAME,
            ),
        )

    def _move_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """No dice to report: the move spends its actions (lines 20-23)."""
        self._move_spent(scene, args)
        return ()

    def _move_spent(self, scene: Scene, args: Sequence[str]) -> tuple[Unit, list[Cost], int]:
        """The unit, its move's costs and its actions spent after it; a move the actions left
        this turn cannot pay for is refused."""
        unit, steps = self._move_steps(scene, args)
        before = self._count(unit, "actions_spent")
        after = before + sum(c.actions for c in steps)
        if after > ACTIONS_PER_TURN[0]:
            raise QuestionError(
                f"{self.id}: {unit.id} cannot make this move this turn: "
                + ", ".join(f"{c.action} {c.actions}" for c in steps)
                + f" with {before} spent is {after} actions, more than {ACTIONS_PER_TURN[0]} "
                f"({ACTIONS_PER_TURN[1]})"
            )
        return unit, steps, after

    def _move_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        unit, steps, after = self._move_spent(scene, args)
        return (
            Change(
                unit.id,
                "actions_spent",
                after,
                ", ".join(f"{c.action} {_actions_word(c.actions)}" for c in steps),
                steps[-1].cite if len(steps) > 1 else steps[0].cite,
            ),
        )

    # ----------------------------------------------------------------------------------------
    # Suggest

    def suggest(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`suggest [PHASE]`: every resolution that applies now, phase by phase."""
        if len(args) > 1:
            raise QuestionError(
                f"suggest takes at most one PHASE, got {len(args)}: {', '.join(map(repr, args))}"
            )
        if args and args[0] not in self.phases:
            raise QuestionError(
                f"{self.id} has no phase {args[0]!r}; its phases are {accepted(self.phases)}"
            )
        wanted = tuple(args) or self.phases
        table = table_of(scene)
        items: list[dict[str, Any]] = []
        found: dict[str, list[tuple[str, tuple[str, ...], Resolution]]] = {}
        for phase in wanted:
            # The two Action Phases ask the same questions of the same table: answered once.
            same = "action" if phase in ACTION_PHASES else phase
            if same not in found:
                found[same] = self._phase_items(scene, table, phase)
            for kind, item_args, answer in found[same]:
                items.append(
                    {
                        "phase": phase,
                        "kind": kind,
                        "args": list(item_args),
                        "summary": answer.lines[0],
                        "result": answer.as_json(),
                    }
                )
        data = {
            "action": "suggest",
            "ruleset": self.id,
            "phase": args[0] if args else None,
            "phases": list(self.phases),
            "items": items,
        }
        lines = [f"{len(items)} resolutions for {', '.join(wanted)}"]
        lines += [
            f"[{i['phase']}] {i['kind']} {' '.join(i['args'])}: {i['summary']}" for i in items
        ]
        return Resolution("suggest", MappingProxyType(data), tuple(lines))

    def _phase_items(
        self, scene: Scene, table: Table, phase: str
    ) -> list[tuple[str, tuple[str, ...], Resolution]]:
        out: list[tuple[str, tuple[str, ...], Resolution]] = []
        if phase == "initiative":
            if len({u.side for u in scene.units}) == 2:
                out.append(("initiative", (), self.initiative(scene, ())))
        elif phase in ("artillery", "action-1", "action-2"):
            guns = phase == "artillery"
            for shooter in scene.units:
                if (self._type(shooter) == "artillery") != guns:
                    continue
                for target in self._targets(table, shooter):
                    answer = self._shoot(scene, table, shooter.id, target.id, only_allowed=True)
                    if answer is not None:
                        out.append(("shoot", (shooter.id, target.id), answer))
            if not guns:
                # Each unit with an action left may move, or spend it on another action.
                for unit in scene.units:
                    if self._left(unit) < COSTS["move"].actions:
                        continue
                    out.append(("move", (unit.id,), self._move(scene, table, (unit.id,))))
                    out.append(("actions", (unit.id,), self.unit_actions(scene, (unit.id,))))
        elif phase == "close-combat":
            done: set[frozenset[str]] = set()
            for unit in scene.units:
                for enemy in scene.units:
                    pair = frozenset((unit.id, enemy.id))
                    if enemy.side == unit.side or pair in done:
                        continue
                    near = table.unit_distance(unit, enemy)
                    if near.distance <= table.uncertainty(near.a, near.b):
                        done.add(pair)
                        out.append(
                            (
                                "melee",
                                (unit.id, enemy.id),
                                self._melee(scene, table, unit.id, enemy.id),
                            )
                        )
        else:
            for unit in scene.units:
                if self._shock(unit) > self._troops(unit).men:
                    out.append(("morale", (unit.id,), self.morale(scene, (unit.id,))))
        return out

    def _targets(self, table: Table, shooter: Unit) -> list[Unit]:
        """Enemy units within the shooter's longest reach (sight and arc judged later)."""
        weapon = self._weapon(shooter)
        bands = GUN_BANDS if weapon in GUNS else SMALL_ARM_BANDS
        reach = _reach(bands, NEEDS[weapon])
        out = []
        for enemy in table.scene.units:
            if enemy.side == shooter.side:
                continue
            near = table.unit_distance(shooter, enemy)
            if reach is None or geo.within(
                near.distance, reach * INCH + table.uncertainty(near.a, near.b)
            ):
                out.append(enemy)
        return out


# --------------------------------------------------------------------------------------------
# Helpers


ARC_SETTLE_MM = 1e-3
"""Pairs whose screened margin is within this of the arc's edge are settled by
`geometry.base_in_arc` itself, so float rounding never decides a case."""


def _in_arc(table: Table, fire_bases: Sequence[Base], target_bases: Sequence[Base]) -> bool:
    """Whether some target base lies in the 180 degree arc of some firing base (line 61):
    screened with `Table.ahead`, pairs on the edge settled by `geometry.base_in_arc`."""
    rows = [table.index[b.id] for b in fire_bases]
    cols = [table.index[b.id] for b in target_bases]
    margins = table.ahead[np.ix_(rows, cols)]
    if bool((margins > ARC_SETTLE_MM).any()):
        return True
    return any(
        geo.base_in_arc(fire_bases[int(i)], target_bases[int(j)], ARC[0])
        for i, j in np.argwhere(margins >= -ARC_SETTLE_MM)
    )


def _firing_bases(bases: Sequence[Base]) -> Sequence[Base]:
    """The bases that fire (line 65: no musician or flag bearer), or all when none would."""
    firing = [b for b in bases if b.role not in NON_FIRING_ROLES]
    return firing or bases


@lru_cache(maxsize=256)
def _bbox(polygon: tuple[tuple[float, float], ...]) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in polygon], [p[1] for p in polygon]
    return min(xs), min(ys), max(xs), max(ys)


def _band_index(bands: Sequence[Band], distance_mm: float) -> int | None:
    """The band a distance falls in (upper edges included), None beyond the last."""
    for i, band in enumerate(bands):
        if band.high is None or geo.within(distance_mm, band.high * INCH):
            return i
    return None


def _reach(bands: Sequence[Band], row: NeedRow) -> float | None:
    """A weapon's longest range in inches (None: no end)."""
    reach: float | None = 0.0
    for band, need in zip(bands, row.needs, strict=True):
        if need is not None:
            reach = band.high
    return reach


def _nearest_edge(bands: Sequence[Band], distance_mm: float) -> float | None:
    """The band edge (inches) nearest the distance: where the band label changes."""
    edges = [band.high for band in bands if band.high is not None]
    if not edges:
        return None
    return min(edges, key=lambda e: abs(e * INCH - distance_mm))


def _mode(distribution: Sequence[float]) -> int:
    """The likeliest count of a distribution (the first of equals)."""
    return max(range(len(distribution)), key=lambda k: (distribution[k], -k)) if distribution else 0


def _spent_field(commander: bool) -> str:
    return "commander_actions" if commander else "actions_spent"


@lru_cache(maxsize=16)
def _spread(count: int, sides: int) -> tuple[tuple[float, ...], tuple[str, ...], float]:
    """The total of `count` dice of `sides`: its distribution as floats and exact fractions, and
    its mean (cached: the few movement rolls recur on every unit)."""
    dist = dice.total(count, sides)
    return tuple(dice.as_floats(dist)), tuple(str(p) for p in dist), float(dice.mean(dist))


def _actions_word(n: int) -> str:
    return f"{n} action" + ("s" if n != 1 else "")


def _cover_word(cover: Cover) -> str:
    return {Cover.NONE: "none", Cover.SOFT: "cover", Cover.HARD: "fortification"}[cover]


def _mod_text(m: Modifier) -> str:
    return f"{m.value:+g} {m.reason}" + (f" ({m.cite})" if m.cite else "")
