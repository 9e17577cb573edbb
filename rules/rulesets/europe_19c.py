"""europe-19c: "19th Century Europe QRS" (rules/sheets/004_8318ee244ed3ffb0.txt), in cm.

A unit-level game: a unit is a group of bases, fire and hand-to-hand are rolled in D6 per base.
Every number below is a row of the sheet, cited with its line. Never imports cv2, flask or vision.

Unit attributes read (the sheet's words, lower-case), declared in `UNIT_FIELDS`:
- Descriptions (never changed by the dice; required where a rule reads them):
  `type`: `infantry`, `cavalry`, `dragoons`, `skirmishers` or `artillery` (every action);
  `order`: `close` or `loose`, infantry only (the movement rows `Inf (LO)` / `Inf (CO)` and the
  firing-table target categories); `weapon`: `steel-rifled-artillery`,
  `bronze-rifled-artillery`, `smoothbore-artillery`, `later-breech-loader`,
  `early-breech-loader`, `rifled-musket`, `musket` (shoot; artillery carries an artillery
  weapon, every other type a small arm); `quality`: the morale level `fanatic`, `elite`,
  `average`, `levy` or `rabble` (morale); `rating`: the command rating `poor`, `average` or
  `good` (command, on the leader's unit only).
- `formation`: infantry `line` or `column`; artillery `limbered` or `unlimbered` (lines 15, 19).
  State with no default: a unit is set up in one, and `formation`'s outcome changes it. Not
  read for cavalry, dragoons and skirmishers: the sheet gives them no formations.
- State every unit starts the game without (left out: 0 / false, and the answer says so):
  `bases_removed` (bases lost since its last morale test, one test each, line 130); per turn,
  back to false (0) at the start of each turn: `fired_on` (charging cavalry fired on by its
  target, one test, line 131), `lost_melee` (lost hand-to-hand, two tests, line 132),
  `charged` (the unit charged: the attacker of the hand-to-hand `suggest` lists), `moved`
  (moved or charged), `pivoted` (the artillery pivoted: it cannot fire, line 78), `fired`,
  `command_score` (the leader's command score, 0 until rolled).
- Scene top level (`scene_keys`): `game_size`, `standard` or `mini`, picks the command-roll
  columns (line 145); `command LEADER mini` overrides it; with neither, the standard game is
  used and the answer says so. A game file may carry it as a top-level key.

Sequence of play (lines 5-11): five steps, every side acting in each (`all`): the sheet dices
for no initiative and puts no side before another.

Outcomes (`outcomes()`), what the players report and what it changes:
- shoot: hits (the firing table's need), saves (one die a hit, when the target has a save) and
  the bases taken off, one per unsaved hit; the firer has `fired`, the bases are removed,
  `bases_removed` grows by as many (a morale test each), and charging cavalry in contact with
  the firer is `fired_on` (line 131). A shot that is not allowed asks nothing, changes nothing.
- command: the row of the command table the D6 fell in; the leader's `command_score`.
- charge: whether the charger reached base contact (asked when the charge is allowed, or only
  too close to call); `charged` when it did, and `moved` either way. A refused charge: nothing.
- melee: the hits each side scored and whether the loser's retreat is blocked; the side that
  took more hits loses, a tie the defender (lines 120-122); the loser is `lost_melee` (it
  retreats 12 cm and takes two tests), or eliminated (every base removed) when it is artillery
  (line 123) or its retreat is blocked (line 121).
- move: `moved`; artillery is also asked whether it pivoted (`pivoted`, line 78).
- morale: the tests failed and the bases they take off (line 141); `bases_removed`, `fired_on`
  and `lost_melee` go back to 0 / false (the tests are taken). Nothing when there is no test.
- formation: the formation the unit is in now (infantry and artillery); `formation`.

Readings of the sheet:
- Sight (lines 75-76): "Woods, Towns, Hills, other Units are obstructions" and "Level fire any
  obstruction blocks LOS": woods, towns, buildings, hills and the bases of other units block a
  sight line; a target is in sight when at least one sight line to its base is clear (fire is by
  unit, and the sheet does not ask for the whole base). A unit sees out of the piece it stands in.
- Fire between higher and lower ground (line 77) is left to the players: the scene has no
  heights yet.
- The sight lines are those of `Ruleset.sight` (the viewer's centre to the target's centre and
  corners), traced by a vectorised tracer in this module so `suggest` stays fast; a test checks
  it agrees with the base class ray for ray.
- Fire dice (lines 62-70) are per base: each base of the firing unit that has a base of the
  target within range, inside its arc and in sight rolls its weapon's dice (artillery is usually
  one base, infantry several; hand-to-hand is also "die per base", line 98).
- The two Smoothbore Artillery rows (32 cm 2 dice, 12 cm 5 dice) are round shot and canister:
  within 12 cm a base rolls 5 dice (band `short`, canister), from 12 to 32 cm 2 dice (band
  `long`, round shot). Every other weapon has one range, its band is called `short`.
- "*Skirmishers +8cm" (line 72): a unit of `type` skirmishers adds 8 cm to a starred weapon.
- "may only fire frontally 45°" (line 74): 45 degrees either side of straight ahead (a
  half-angle, from the front corners of the base, `geometry.base_in_arc`), the same sector a
  square base's diagonals cut; a base whose centre stands in a town or building fires all round.
- Firing table rows (lines 83-85): infantry in line and (unlimbered) artillery use `Inf line,
  Art`; skirmishers and dragoons `Sk, Dgns`; infantry in column `Infantry Col`. Cavalry have no
  row and no weapon on the sheet: they do not fire. Target columns: cavalry `Cav`; close order
  infantry in column `CO If Col`; `Normal` and `Dispersed` as lines 87 and 89 define them.
- Saving roll (lines 93-96): against breech-loaders the `Sk or Ln` column serves skirmishers,
  infantry in line and unlimbered artillery (deployed, spread out), the `Dgns or Col` column
  dragoons, infantry in column, cavalry and limbered artillery (formed bodies); against every
  other weapon `All else`. The target is in `Woods, towns` when the centre of the target base
  fired at stands in woods, a town or a building; anywhere else is `Open`. A 6 is "6+".
- Hits: one die per hit for the save; an unsaved hit removes a base, and each base removed is a
  morale test (lines 130, 141). The sheet does not say more; this is the reading.
- Hand-to-hand (lines 98-112): rows are the unit rolling, columns its opponent. Cavalry use the
  `Cav` row whether charging or defending, skirmishers and artillery the `Ski/Art` row; dragoons
  and infantry use their `Charging` row when they charged and their `Defending` row otherwise.
  Every `-` is a pairing that cannot happen: the charge table forbids that charge (infantry may
  not charge cavalry or dragoons, dragoons may not charge cavalry), infantry in line may not move
  (line 17) so cannot charge, and skirmishers and artillery never charge. Asking for one is an
  error. Every base of each unit rolls (die per base); the modifiers are per base and a base never
  rolls fewer than 0 dice. "-1 Cavalry vs Close order Infantry" applies to `type` cavalry only.
  Riverbank: the defender is charged frontally across a stream or river. Higher ground: a unit
  whose base centre stands on a hill fighting one whose base does not.
- Outcomes (lines 120-123): the unit taking more hits retreats 12 cm, a tie makes the defender
  retreat; artillery that would retreat is eliminated; the loser takes two morale tests.
- Charge (lines 27-38): "Maybe: If Attacker begins larger than target" compares the number of
  bases. The face charged is the sector of the target base nearest the attacker that the
  attacker's nearest base's centre stands in (`geometry.aspect`, flanks split left and right);
  a target in a town has no flank or rear (line 54). One attacker per face: another unit of the
  attacker's side already in base contact on that face blocks the charge. The charge must reach
  contact with the move of the movement table, in the slower of the terrain the attacker stands
  in and the target stands in (never the road rate: a unit on the road must remain 24 cm from
  the enemy, line 52). Base contact is an edge distance within the measuring uncertainty.
- Movement (lines 42-52): a unit moves at the rate of the slowest terrain any of its bases
  stands in (woods, towns and buildings, then streams and rivers, a bridge negating the stream);
  the road rate needs every base centre on a road or bridge and every enemy 24 cm or more away.
  Hills, rough ground and linear obstacles are not on the sheet: they move as open ground.
  Infantry in line and unlimbered artillery may not move, only pivot (lines 17, 23). "Cost per
  Pivot ¼" is a quarter of the unit's move.
- Morale: a base removed by a failed morale test does not cause a further test (else one loss
  would cascade).
- Melee hits decide only who loses (lines 118-123): the sheet removes no base for them.
- Which bases an unsaved hit or a failed test takes off is the players' choice; the form shows
  the unit's last bases first.
- Once a turn: a unit that fired is not suggested to fire again, one that charged or moved not
  to charge or move again (a charger's move is its move to contact, line 38), and a leader
  with a command score not to roll again; the questions themselves still answer.
- Hand-to-hand in `suggest`: a pair in contact is fought with the unit marked `charged` as the
  attacker; when the table has `-` that way round the other is taken, and a pair that cannot
  fight either way (two skirmisher units side by side) is not listed.
- Command roll (lines 143-149): one D6 read against the leader's `rating`; the sheet does not
  say what the number buys, so it is given as the command score of the turn. The sheet has no
  command radius: `radius` is null and every base of the leader's side is in command. It is
  listed by `suggest` in the change-formation phase, the start of the turn.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt

from .. import dice as dice_math
from .. import geometry as geo
from ..engine import (
    Action,
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
from ..measure import Table, table_of
from ..scene import Base, Scene, TerrainKind, Unit
from ..state import Change, Field, Kind, Phase, Report, Scope

SHEET = "004_8318ee244ed3ffb0.txt"
RULESET_ID: Final = "europe-19c"
MM_PER_CM: Final = 10.0


def _cite(line: int, text: str) -> Cite:
    return Cite(SHEET, line, text)


# --------------------------------------------------------------------------------------------
# The sheet's words

TYPES: Final = ("infantry", "cavalry", "dragoons", "skirmishers", "artillery")
INFANTRY_FORMATIONS: Final = ("line", "column")
ARTILLERY_FORMATIONS: Final = ("limbered", "unlimbered")
ORDERS: Final = ("close", "loose")
RATINGS: Final = ("poor", "average", "good")
GAME_SIZES: Final = ("standard", "mini")
PHASES: Final = ("change-formation", "charge", "movement", "firing", "hand-to-hand")
PHASE_CITES: Final = MappingProxyType(
    {
        "change-formation": _cite(7, "1. Change Formation"),
        "charge": _cite(8, "2. Charge Sequence"),
        "movement": _cite(9, "3. Movement"),
        "firing": _cite(10, "4. Firing"),
        "hand-to-hand": _cite(11, "5. Hand-to-Hand Combat"),
    }
)

WOODS_TOWNS: Final = frozenset({TerrainKind.WOODS, TerrainKind.TOWN, TerrainKind.BUILDING})
TOWNS: Final = frozenset({TerrainKind.TOWN, TerrainKind.BUILDING})
STREAMS: Final = frozenset({TerrainKind.STREAM, TerrainKind.RIVER})
ROADS: Final = frozenset({TerrainKind.ROAD, TerrainKind.BRIDGE})


# --------------------------------------------------------------------------------------------
# Firing (lines 60-96)


@dataclass(frozen=True, slots=True)
class Band:
    """One range band of a weapon: out to `reach_cm` a base rolls `dice`."""

    label: str
    reach_cm: int
    dice: int
    cite: Cite
    name: str
    """What players call it: `canister`, `round shot`, `within range`."""


@dataclass(frozen=True, slots=True)
class Weapon:
    """A row (or two) of the weapon table."""

    name: str
    bands: tuple[Band, ...]
    """Nearest band first."""
    starred: bool
    """Marked `*`: skirmishers add 8 cm (line 72)."""
    breech_loader: bool
    """Saves against it use the `Breech-loaders` columns (line 93)."""
    artillery: bool


def _one_band(reach: int, dice: int, cite: Cite) -> tuple[Band, ...]:
    return (Band("short", reach, dice, cite, "within range"),)


WEAPONS: Final[Mapping[str, Weapon]] = MappingProxyType(
    {
        "steel-rifled-artillery": Weapon(
            "Steel Rifled Artillery",
            _one_band(60, 4, _cite(63, "Steel Rifled Artillery 60cm 4")),
            starred=False,
            breech_loader=False,
            artillery=True,
        ),
        "bronze-rifled-artillery": Weapon(
            "Bronze Rifled Artillery",
            _one_band(48, 3, _cite(64, "Bronze Rifled Artillery 48cm 3")),
            starred=False,
            breech_loader=False,
            artillery=True,
        ),
        "smoothbore-artillery": Weapon(
            "Smoothbore Artillery",
            (
                Band("short", 12, 5, _cite(66, "Smoothbore Artillery 12cm 5"), "canister"),
                Band("long", 32, 2, _cite(65, "Smoothbore Artillery 32cm 2"), "round shot"),
            ),
            starred=False,
            breech_loader=False,
            artillery=True,
        ),
        "later-breech-loader": Weapon(
            "Later breech-loader",
            _one_band(24, 2, _cite(67, "Later breech-loader* 24cm 2")),
            starred=True,
            breech_loader=True,
            artillery=False,
        ),
        "early-breech-loader": Weapon(
            "Early breech-loader",
            _one_band(16, 2, _cite(68, "Early breech-loader* 16cm 2")),
            starred=True,
            breech_loader=True,
            artillery=False,
        ),
        "rifled-musket": Weapon(
            "Rifled Musket",
            _one_band(16, 1, _cite(69, "Rifled Musket* 16cm 1")),
            starred=True,
            breech_loader=False,
            artillery=False,
        ),
        "musket": Weapon(
            "Musket",
            _one_band(8, 1, _cite(70, "Musket* 8cm 1")),
            starred=True,
            breech_loader=False,
            artillery=False,
        ),
    }
)
WEAPON_NAMES: Final = tuple(WEAPONS)
SKIRMISHER_BONUS_CM: Final = 8
SKIRMISHER_BONUS_CITE: Final = _cite(72, "*Skirmishers +8cm")
ARC_HALF_ANGLE: Final = 45.0
ARC_CITE: Final = _cite(74, "Unit may only fire frontally 45° (360° in towns)")
WEAPONS_RANGE_CITE: Final = _cite(62, "Weapon Range Dice")
LIMBERED_CITE: Final = _cite(21, "Limbered Artillery: Can not fire")
PIVOTED_CITE: Final = _cite(78, "Pivoting Artillery cannot fire")

FIRER_CLASSES: Final = MappingProxyType(
    {
        "inf-line-art": ("Inf line, Art", _cite(83, "Inf line, Art 2+ 3+ 4+ 5+")),
        "sk-dgns": ("Sk, Dgns", _cite(84, "Sk, Dgns 3+ 4+ 5+ 6")),
        "infantry-col": ("Infantry Col", _cite(85, "Infantry Col 4+ 5+ 6 6")),
    }
)
TARGET_CATEGORIES: Final = ("cav", "co-col", "normal", "dispersed")
TARGET_LABELS: Final = MappingProxyType(
    {"cav": "Cav", "co-col": "CO If Col", "normal": "Normal", "dispersed": "Dispersed"}
)
TARGET_CITES: Final = MappingProxyType(
    {
        "cav": _cite(82, "Cav CO If Col Normal Dispersed"),
        "co-col": _cite(82, "CO If Col"),
        "normal": _cite(87, "Normal: Dragoons, Limbered Artillery"),
        "dispersed": _cite(89, "Dispersed: Skirmishers, Unlimbered Artillery"),
    }
)
FIRING_TABLE: Final[Mapping[str, Mapping[str, int]]] = MappingProxyType(
    {
        "inf-line-art": MappingProxyType({"cav": 2, "co-col": 3, "normal": 4, "dispersed": 5}),
        "sk-dgns": MappingProxyType({"cav": 3, "co-col": 4, "normal": 5, "dispersed": 6}),
        "infantry-col": MappingProxyType({"cav": 4, "co-col": 5, "normal": 6, "dispersed": 6}),
    }
)

SAVE_COLUMNS: Final = MappingProxyType(
    {
        "sk-ln": ("Breech-loaders, Sk or Ln", _cite(94, "Sk or Ln")),
        "dgns-col": ("Breech-loaders, Dgns or Col", _cite(94, "Dgns or Col")),
        "all-else": ("All else", _cite(93, "All else")),
    }
)
SAVES: Final[Mapping[str, tuple[Mapping[str, int | None], Cite]]] = MappingProxyType(
    {
        "woods-towns": (
            MappingProxyType({"sk-ln": 3, "dgns-col": 4, "all-else": 5}),
            _cite(95, "Woods, towns 3+ 4+ 5+"),
        ),
        "open": (
            MappingProxyType({"sk-ln": 5, "dgns-col": 6, "all-else": None}),
            _cite(96, "Open 5+ 6 None"),
        ),
    }
)
HIT_EFFECT_CITE: Final = _cite(130, "Each base removed")


# --------------------------------------------------------------------------------------------
# Charge sequence (lines 25-38)

CHARGE_COLUMNS: Final = ("cavalry", "dragoons", "infantry", "skirmishers", "artillery")
CHARGE_TABLE: Final[Mapping[str, tuple[tuple[str, ...], Cite]]] = MappingProxyType(
    {
        "cavalry": (("yes", "yes", "yes", "yes", "yes"), _cite(28, "Cavalry Yes Yes Yes Yes Yes")),
        "dragoons": (("no", "maybe", "maybe", "yes", "yes"), _cite(29, "Dgns No Maybe Maybe")),
        "infantry": (("no", "no", "maybe", "yes", "yes"), _cite(30, "Inf No No Maybe Yes Yes")),
        "skirmishers": (("no", "no", "no", "no", "no"), _cite(31, "Ski No No No No No")),
        "artillery": (("no", "no", "no", "no", "no"), _cite(32, "Art No No No No No")),
    }
)
MAYBE_CITE: Final = _cite(34, "*Maybe: If Attacker begins larger than target")
ONE_PER_FACE_CITE: Final = _cite(36, "One attacker per face")
PIVOT_45_CITE: Final = _cite(37, "May pivot 45°")
CONTACT_CITE: Final = _cite(38, "Move to contact per movement table.")
NO_FLANK_IN_TOWN_CITE: Final = _cite(54, "Units have no flank or rear.")
LINE_NO_MOVE_CITE: Final = _cite(17, "Infantry in Line: May not move but may pivot.")
UNLIMBERED_NO_MOVE_CITE: Final = _cite(23, "Unlimbered Artillery: Can not move but may pivot")


# --------------------------------------------------------------------------------------------
# Movement (lines 40-58)

MOVE_COLUMNS: Final = ("open", "woods-towns", "stream", "road")


@dataclass(frozen=True, slots=True)
class MoveRow:
    """A row of the movement table: cm per terrain column (None = N/A) and pivot cost."""

    label: str
    cm: tuple[int | None, int | None, int | None, int | None]
    pivot_cost: Fraction | None
    """Fraction of the move one pivot costs; None when pivots are free."""
    cite: Cite


MOVE_TABLE: Final[Mapping[str, MoveRow]] = MappingProxyType(
    {
        "infantry-loose": MoveRow(
            "Inf (LO)", (12, 8, 8, 16), Fraction(1, 4), _cite(43, "Inf (LO) 12 8 8 16 ¼")
        ),
        "infantry-close": MoveRow(
            "Inf (CO)", (8, 4, 4, 16), Fraction(1, 4), _cite(44, "Inf (CO) 8 4 4 16 ¼")
        ),
        "skirmishers": MoveRow("Ski", (12, 12, 12, 16), None, _cite(45, "Ski 12 12 12 16 None")),
        "cavalry": MoveRow("Cav", (16, None, 12, 24), None, _cite(46, "Cav 16 N/A 12 24 None")),
        "dragoons": MoveRow("Dgns", (16, None, 12, 24), None, _cite(47, "Dgns 16 N/A 12 24 None")),
        "artillery": MoveRow("Art", (12, None, None, 16), None, _cite(48, "Art 12 N/A N/A 16")),
    }
)
MOVE_HEADER_CITE: Final = _cite(42, "Open Woods Towns Stream Road Cost per Pivot")
BRIDGE_CITE: Final = _cite(50, "Bridges: Negate Streams")
ROAD_CITE: Final = _cite(52, "Road: Remain 24cm from enemy and spend entire movement on road")
ROAD_ENEMY_CM: Final = 24
INTERPENETRATION_CITE: Final = _cite(58, "Only skirmishers may pass through friendly units.")


# --------------------------------------------------------------------------------------------
# Hand-to-hand (lines 98-124)

MELEE_COLUMNS: Final = (
    "cavalry",
    "dragoons",
    "infantry-column",
    "infantry-line",
    "skirmishers-artillery",
)
MELEE_COLUMN_LABELS: Final = MappingProxyType(
    dict(zip(MELEE_COLUMNS, ("Cav", "Dgns", "Inf Col.", "Inf Ln", "Sk/Art"), strict=True))
)
MELEE_TABLE: Final[Mapping[str, tuple[str, tuple[int | None, ...], Cite]]] = MappingProxyType(
    {
        "cavalry": ("Cav", (1, 2, 2, 3, 4), _cite(101, "Cav 1 2 2 3 4")),
        "skirmishers-artillery": ("Ski/Art", (1, 1, 1, 1, None), _cite(102, "Ski/Art 1 1 1 1 -")),
        "charging-dragoons": (
            "Charging Dgns",
            (None, 2, 2, 2, 3),
            _cite(106, "Dgns - 2 2 2 3"),
        ),
        "charging-infantry": (
            "Charging Inf",
            (None, None, 2, 2, 3),
            _cite(107, "Inf - - 2 2 3"),
        ),
        "defending-dragoons": (
            "Defending Dgns",
            (1, 1, None, None, None),
            _cite(111, "Dgns 1 1 - - -"),
        ),
        "defending-infantry": (
            "Defending Infantry",
            (1, 1, 1, None, None),
            _cite(112, "Infantry 1 1 1 - -"),
        ),
    }
)
MELEE_HIT_NEED: Final = 4
MELEE_HIT_CITE: Final = _cite(98, "Hand-to-Hand Combat (Hit on 4+) Die per base")
FLANK_CITE: Final = _cite(114, "Attacking Flank or Rear")
RIVERBANK_CITE: Final = _cite(114, "Defending riverbank frontally")
HIGHER_CITE: Final = _cite(114, "On higher ground")
CAV_VS_CO_CITE: Final = _cite(115, "Cavalry vs Close order Infantry")
RETREAT_CM: Final = 12
RETREAT_CITE: Final = _cite(120, "Unit taking greatest number of hits retreats 12cm facing enemy.")
BLOCKED_CITE: Final = _cite(121, "Unit eliminated if retreat blocked.")
TIE_CITE: Final = _cite(122, "If a tie defender retreats.")
ARTILLERY_CITE: Final = _cite(123, "Artillery are eliminated")
TOWN_VACATED_CITE: Final = _cite(124, "If a unit vacates a town attacker may occupy it.")
MULTIPLE_CITE: Final = _cite(116, "defender may only inflict casualties on unit to front")


# --------------------------------------------------------------------------------------------
# Morale (lines 126-141) and command (lines 143-149)

MORALE_LEVELS: Final[Mapping[str, tuple[int, Cite]]] = MappingProxyType(
    {
        "fanatic": (2, _cite(135, "Fanatic 2+")),
        "elite": (3, _cite(136, "Elite 3+")),
        "average": (4, _cite(137, "Average 4+")),
        "levy": (5, _cite(138, "Levy 5+")),
        "rabble": (6, _cite(139, "Rabble 6")),
    }
)
BASE_REMOVED_CITE: Final = _cite(130, "Each base removed")
FIRED_ON_CITE: Final = _cite(131, "Charging cavalry fired on by target")
LOST_MELEE_CITE: Final = _cite(132, "Lost hand-to-hand combat (two tests)")
FAILURE_CITE: Final = _cite(141, "Failure: Remove a base.")

COMMAND_ROWS: Final[tuple[tuple[str, tuple[int, ...], Cite], ...]] = (
    ("1-2", (2, 4, 6, 1, 2, 4), _cite(147, "1-2 2 4 6 1 2 4")),
    ("3-4", (3, 5, 7, 2, 3, 5), _cite(148, "3-4 3 5 7 2 3 5")),
    ("5-6", (4, 6, 8, 3, 4, 6), _cite(149, "5-6 4 6 8 3 4 6")),
)
COMMAND_HEADER_CITE: Final = _cite(145, "Die Roll Standard game Mini game")


# --------------------------------------------------------------------------------------------
# What the sheet reads of a unit (state as data) and its sequence of play explained

FORMATIONS: Final = (*INFANTRY_FORMATIONS, *ARTILLERY_FORMATIONS)
FORMATION_PHASE_CITE: Final = _cite(7, "1. Change Formation")
CHARGE_PHASE_CITE: Final = _cite(8, "2. Charge Sequence")
MOVE_PHASE_CITE: Final = _cite(9, "3. Movement")
FIRE_PHASE_CITE: Final = _cite(10, "4. Firing")
INFANTRY_FORMATION_CITE: Final = _cite(15, "Infantry: Line or Column")
ARTILLERY_FORMATION_CITE: Final = _cite(19, "Artillery: Limbered or Unlimbered")

UNIT_FIELDS: Final[tuple[Field, ...]] = (
    # What the troops are (set up before the game; never changed by the dice)
    Field(
        "type",
        Kind.CHOICE,
        _cite(27, "Cav. Dgns Inf Sk Art"),
        "troop type",
        choices=TYPES,
        in_play=False,
    ),
    Field(
        "order",
        Kind.CHOICE,
        _cite(87, "Loose order Infantry in column, Close order Infantry in line"),
        "infantry order (close or loose)",
        choices=ORDERS,
        in_play=False,
    ),
    Field(
        "weapon",
        Kind.CHOICE,
        WEAPONS_RANGE_CITE,
        "weapon (a row of the weapon table)",
        choices=WEAPON_NAMES,
        in_play=False,
    ),
    Field(
        "quality",
        Kind.CHOICE,
        _cite(134, "Level Required Score"),
        "morale level",
        choices=tuple(MORALE_LEVELS),
        in_play=False,
    ),
    Field(
        "rating",
        Kind.CHOICE,
        _cite(146, "Poor Average Good"),
        "leader's command rating",
        choices=RATINGS,
        in_play=False,
    ),
    # The state of play: the formation a unit is set up in, then what the turn has done to it
    Field(
        "formation",
        Kind.CHOICE,
        INFANTRY_FORMATION_CITE,
        "formation (infantry line or column, artillery limbered or unlimbered)",
        choices=FORMATIONS,
    ),
    Field(
        "bases_removed",
        Kind.COUNT,
        BASE_REMOVED_CITE,
        "bases removed since its last morale test (a test each)",
        default=0,
    ),
    Field(
        "fired_on",
        Kind.FLAG,
        FIRED_ON_CITE,
        "charging cavalry fired on by its target this turn (a morale test)",
        default=False,
        per_turn=True,
    ),
    Field(
        "lost_melee",
        Kind.FLAG,
        LOST_MELEE_CITE,
        "lost hand-to-hand this turn (two morale tests)",
        default=False,
        per_turn=True,
    ),
    Field(
        "charged",
        Kind.FLAG,
        CHARGE_PHASE_CITE,
        "charged this turn (the attacker in hand-to-hand)",
        default=False,
        per_turn=True,
    ),
    Field(
        "moved",
        Kind.FLAG,
        MOVE_PHASE_CITE,
        "moved (or charged) this turn",
        default=False,
        per_turn=True,
    ),
    Field(
        "pivoted",
        Kind.FLAG,
        PIVOTED_CITE,
        "artillery pivoted this turn (it cannot fire)",
        default=False,
        per_turn=True,
    ),
    Field(
        "fired",
        Kind.FLAG,
        FIRE_PHASE_CITE,
        "fired this turn",
        default=False,
        per_turn=True,
    ),
    Field(
        "command_score",
        Kind.COUNT,
        COMMAND_HEADER_CITE,
        "the leader's command roll score this turn (0: not rolled yet)",
        default=0,
        per_turn=True,
    ),
)

PHASE_STEPS: Final = (
    Phase(
        "change-formation",
        "Every side changes formations; leaders make their command rolls",
        "all",
        FORMATION_PHASE_CITE,
    ),
    Phase(
        "charge",
        "Every side declares its charges and moves the chargers to contact",
        "all",
        CHARGE_PHASE_CITE,
    ),
    Phase("movement", "Every side moves the units that did not charge", "all", MOVE_PHASE_CITE),
    Phase("firing", "Every side fires", "all", FIRE_PHASE_CITE),
    Phase(
        "hand-to-hand",
        "Units in contact fight hand-to-hand; losers retreat and test morale",
        "all",
        PHASE_CITES["hand-to-hand"],
    ),
)
SIDES_RULE: Final = (
    "the sheet dices for no initiative and orders no side before another: every side acts in "
    "every step of the sequence of play (lines 5-11)"
)


# --------------------------------------------------------------------------------------------
# Small readers of unit attributes


def _word(unit: Unit, key: str, value: Any, words: tuple[str, ...]) -> str:
    """`check_attr(unit, key, words)` of a unit whose `key` is `value`: the value itself when
    it is one of the words (what `check_attr` returns, without its calls: `suggest` reads
    the same attributes thousands of times), else `check_attr`'s answer or error."""
    if type(value) is str and value in words:
        return value
    return check_attr(unit, key, words, ruleset=RULESET_ID)


def _type(unit: Unit) -> str:
    return _word(unit, "type", unit.type, TYPES)


def _formation(unit: Unit) -> str | None:
    """Infantry line/column, artillery limbered/unlimbered; None for the other types."""
    kind = _type(unit)
    if kind == "infantry":
        return _word(unit, "formation", unit.attrs.get("formation"), INFANTRY_FORMATIONS)
    if kind == "artillery":
        return _word(unit, "formation", unit.attrs.get("formation"), ARTILLERY_FORMATIONS)
    return None


def _order(unit: Unit) -> str:
    return _word(unit, "order", unit.attrs.get("order"), ORDERS)


def _flag(unit: Unit, key: str) -> bool:
    """A state flag (declared in `UNIT_FIELDS` with a default, so a loaded scene has it)."""
    value = unit.get(key)
    if value is None:
        raise MissingAttribute(RULESET_ID, unit.id, key, "true or false", False)
    return bool(value)


def _count(unit: Unit, key: str) -> int:
    """A state count (declared in `UNIT_FIELDS` with a default, so a loaded scene has it)."""
    value = unit.get(key)
    if value is None:
        raise MissingAttribute(RULESET_ID, unit.id, key, "a whole number from 0", 0)
    return int(value)


def _describe_unit(unit: Unit) -> str:
    kind = _type(unit)
    formation = _formation(unit)
    if kind == "infantry":
        return f"{_order(unit)} order infantry in {formation}"
    if kind == "artillery":
        return f"{formation} artillery"
    return kind


def _cites(*cites: Cite) -> list[str]:
    return [str(c) for c in cites]


def _reason(text: str, cite: Cite | None) -> dict[str, Any]:
    return {"reason": text, "source": None if cite is None else str(cite)}


def _exact(dist: Sequence[Fraction]) -> list[str]:
    return [str(p) for p in dist]


def _check_enemies(a: Unit, b: Unit) -> None:
    if a.side == b.side:
        raise QuestionError(
            f"{RULESET_ID}: {a.id!r} and {b.id!r} are both on side {a.side!r}; "
            "the question needs two opposing units"
        )


def _in_contact(t: Threshold) -> bool:
    """Base contact: edge distance 0, within the measuring uncertainty."""
    return t.within or t.too_close_to_call


def _in_kinds(table: Table, base: Base, kinds: frozenset[TerrainKind]) -> list[str]:
    """Ids of the pieces of these kinds holding the base's centre."""
    return [t.id for t in table.centre_in(base) if t.kind in kinds]


@dataclass(frozen=True, slots=True)
class _Face:
    """The face of a target a charger strikes."""

    name: str
    """`front`, `left-flank`, `right-flank` or `rear`."""
    aspect: geo.Aspect
    margin: float
    """mm from the sector line."""


def _face(table: Table, attacker: Base, target: Base) -> _Face:
    """Which face of `target` the attacker stands against; no flank or rear in a town."""
    if _in_kinds(table, target, TOWNS):
        return _Face("front", geo.Aspect.FRONT, math.inf)
    reading = geo.aspect(attacker, target)
    if reading.aspect is geo.Aspect.FLANK:
        across = float(geo.to_local(target, (attacker.x, attacker.y))[0])
        side = "right-flank" if across > 0 else "left-flank"
        return _Face(side, reading.aspect, reading.margin)
    return _Face(reading.aspect.value, reading.aspect, reading.margin)


# --------------------------------------------------------------------------------------------
# The ruleset


class Europe19c(Ruleset):
    id = "europe-19c"
    title = "19th Century Europe QRS"
    sheet = SHEET
    unit = "cm"
    phases = PHASES
    bases_block_sight = True
    sight_rule: ClassVar[Cite | None] = Cite(
        SHEET, 75, "Woods, Towns, Hills, other Units are obstructions"
    )
    phase_steps = PHASE_STEPS
    sides_rule = SIDES_RULE
    unit_fields = UNIT_FIELDS
    scene_keys: ClassVar[frozenset[str]] = frozenset({"game_size"})
    """`game_size`, `standard` or `mini`: the command-roll columns (line 145)."""

    def side_groups(
        self, scene: Scene, initiative: str | None = None
    ) -> dict[str, tuple[str, ...]]:
        """Every side acts in every step (`all`): the sheet has no initiative (lines 5-11)."""
        return {"all": tuple(dict.fromkeys(u.side for u in scene.units))}

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """The weapon table's bands (lines 62-72), skirmishers' starred weapons +8 cm; cavalry
        have no row of the firing table and no bands."""
        kind = _type(unit)
        if kind == "cavalry":
            return ()
        _, weapon = _weapon(unit, kind)
        return tuple(RangeBand(band.name, reach, band.cite) for band, reach in _bands(weapon, kind))

    def actions(self) -> dict[str, Action]:
        return {
            **super().actions(),
            "shoot": self.shoot,
            "command": self.command,
            "charge": self.charge,
            "melee": self.melee,
            "move": self.move,
            "morale": self.morale,
            "formation": self.formation,
            "suggest": self.suggest,
        }

    def _sees_first(self, table: Table, viewer: Base, aims: Sequence[Base]) -> bool:
        """Whether the viewer sees aims[0]: at least one sight line clear (lines 75-76), as
        `sights(...)[0].any`; it and the aims after it (asked next when it is hidden) are
        judged in one batch (`_seen`)."""
        return self._seen(table, [(viewer, aim) for aim in aims])[0]

    def _seen(self, table: Table, pairs: Sequence[tuple[Base, Base]]) -> list[bool]:
        """Whether each viewer sees its target, in one batch (`Table.seen`: the same verdict as
        the full trace, without tracing every line)."""
        viewers = np.array(table.rows([v for v, _ in pairs]), dtype=int)
        targets = np.array(table.rows([t for _, t in pairs]), dtype=int)
        return table.seen(self.sight_policy, viewers, targets, entire=False).tolist()

    # ----------------------------------------------------------------------------------------
    # shoot

    def shoot(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`shoot SHOOTER TARGET`: range, arc, sight, dice, to-hit need, save and unsaved hits."""
        shooter_id, target_id = expect_args("shoot", args, ("SHOOTER", "TARGET"))
        table = table_of(scene)
        return self._shoot(table, scene.unit_of(shooter_id), scene.unit_of(target_id))

    def _shoot(self, table: Table, firer: Unit, target: Unit, explain: bool = True) -> Resolution:
        """The shot; `explain` False leaves out the readable lines after the first, the only
        one `suggest` reads."""
        scene = table.scene
        _check_enemies(firer, target)
        category, category_why = _target_category(target)
        firer_type = _type(firer)
        formation = _formation(firer)
        nearest = table.unit_distance(firer, target)
        data: dict[str, Any] = {
            "action": "shoot",
            "ruleset": self.id,
            "shooter": firer.id,
            "target": target.id,
            "distance": length_json(scene, nearest.distance),
            "target_category": {
                "column": TARGET_LABELS[category],
                "why": category_why,
                "source": str(TARGET_CITES[category]),
            },
        }
        refusals: list[dict[str, Any]] = []
        if firer_type == "cavalry":
            refusals.append(
                _reason(
                    "cavalry do not fire: the firing table has no cavalry row",
                    FIRER_CLASSES["inf-line-art"][1],
                )
            )
        if formation == "limbered":
            refusals.append(_reason("limbered artillery can not fire", LIMBERED_CITE))
        if firer_type == "artillery" and _flag(firer, "pivoted"):
            refusals.append(_reason("the artillery pivoted this turn", PIVOTED_CITE))
        if refusals:
            data.update(band="out-of-range", allowed=False, reasons=refusals, rolls=[])
            lines = [_no_shot_opening(scene, firer, target, nearest.distance)] + [
                f"not allowed: {r['reason']} ({r['source']})" for r in refusals
            ]
            return Resolution("shoot", MappingProxyType(data), tuple(lines))

        weapon_name, weapon = _weapon(firer, firer_type)
        bands = _bands(weapon, firer_type)
        longest = bands[-1][1]
        firer_class = _firer_class(firer_type, formation)
        class_label, class_cite = FIRER_CLASSES[firer_class]
        data["weapon"] = {
            "name": weapon_name,
            "bands": [
                {
                    "band": b.label,
                    "name": b.name,
                    "reach": length_json(scene, mm),
                    "dice_per_base": b.dice,
                    "source": str(b.cite),
                }
                for b, mm in bands
            ],
            "skirmisher_bonus": length_json(scene, SKIRMISHER_BONUS_CM * MM_PER_CM)
            if weapon.starred and firer_type == "skirmishers"
            else None,
        }
        data["firer_class"] = {"row": class_label, "source": str(class_cite)}

        shots = [self._base_shot(table, b, target, bands) for b in firer.bases]
        firing = [s for s in shots if s.target is not None]
        lead = min(firing, key=lambda s: s.distance) if firing else None
        whole = Threshold(nearest.distance, longest, table.uncertainty(nearest.a, nearest.b))
        data["range"] = threshold_json(scene, whole if lead is None else lead.threshold)
        data["arc"] = {
            "half_angle": ARC_HALF_ANGLE,
            "all_round_in_town": [s.base.id for s in shots if s.in_town],
            "source": str(ARC_CITE),
        }
        data["firing_bases"] = [s.as_json(scene) for s in shots]
        if lead is None:
            reason = _why_no_shot(shots)
            data.update(
                band=next(
                    (b.label for b, mm in bands if geo.within(nearest.distance, mm)), "out-of-range"
                ),
                allowed=False,
                in_sight=any(s.seen for s in shots),
                reasons=[reason],
                rolls=[],
            )
            lines = [
                _no_shot_opening(scene, firer, target, nearest.distance),
                f"not allowed: {reason['reason']} ({reason['source']})",
            ]
            return Resolution("shoot", MappingProxyType(data), tuple(lines))

        assert lead.band is not None and lead.target is not None
        dice = sum(s.dice for s in firing)
        need = FIRING_TABLE[firer_class][category]
        note = f"{class_label} against {TARGET_LABELS[category]}"
        save_need, save_why, save_cite = _save(table, weapon, target, lead.target)
        odds = _fire_odds(dice, need, save_need)
        rolls = [_success_json("to hit", dice, need, class_cite, note)]
        if save_need is not None:
            rolls.append(_success_json("save (one die per hit)", 1, save_need, save_cite, save_why))
        data.update(
            band=lead.band.label,
            band_name=lead.band.name,
            allowed=True,
            in_sight=True,
            reasons=[],
            rolls=rolls,
            hits={"distribution": list(odds.hits), "exact": list(odds.hits_exact)},
            save={"need": save_need, "why": save_why, "source": str(save_cite)},
            unsaved_hits={
                "distribution": list(odds.unsaved),
                "exact": list(odds.unsaved_exact),
                "mean": odds.mean,
                "p_at_least_one": odds.p_at_least_one,
            },
            effect=_reason(
                "each unsaved hit removes a base; each base removed is a morale test",
                HIT_EFFECT_CITE,
            ),
        )
        lines = [
            f"{firer.id} fires at {target.id}: {dice}D6 hitting on {need}+, "
            + ("no save" if save_need is None else f"saved on {save_need}+")
            + f", {odds.mean:.2f} unsaved hits expected"
        ]
        if not explain:
            return Resolution("shoot", MappingProxyType(data), tuple(lines))
        hit = Roll.success_roll("to hit", dice, 6, need, cite=class_cite, note=note)
        lines.append(
            f"{len(firing)} of {len(firer.bases)} bases fire ({weapon.name}, "
            f"{lead.band.name}, {lead.band.cite}); nearest firing base "
            f"{_fmt(scene, lead.distance)} from {lead.target.id}"
            + (" - too close to call" if lead.threshold.too_close_to_call else "")
        )
        lines.append(f"{hit.describe()} [{class_cite}]; {category_why}")
        if save_need is None:
            lines.append(f"no saving roll: {save_why} [{save_cite}]")
        else:
            lines.append(f"save {save_need}+ a hit: {save_why} [{save_cite}]")
        lines.append(
            "unsaved hits: "
            + ", ".join(f"{k}: {p}" for k, p in enumerate(odds.unsaved_exact) if p != "0")
            + f"; each removes a base and is a morale test [{HIT_EFFECT_CITE}]"
        )
        return Resolution("shoot", MappingProxyType(data), tuple(lines))

    def _base_shot(
        self, table: Table, base: Base, target: Unit, bands: Sequence[tuple[Band, float]]
    ) -> _Shot:
        """Whether one firing base has a target base in range, in its arc and in sight."""
        longest = bands[-1][1]
        in_town = bool(_in_kinds(table, base, TOWNS))
        half = 180.0 if in_town else ARC_HALF_ANGLE
        row, index = table.distances[table.index[base.id]], table.index
        away = {b.id: float(row[index[b.id]]) for b in target.bases}
        order = sorted(target.bases, key=lambda b: away[b.id])
        nearest = order[0]
        d0 = away[nearest.id]
        shot = _Shot(base, in_town, d0, Threshold(d0, longest, table.uncertainty(base, nearest)))
        in_range = [aim for aim in order if geo.within(away[aim.id], longest)]
        in_arc = [
            aim for aim, ok in zip(in_range, table.in_arc(base, in_range, half), strict=True) if ok
        ]
        shot.in_range, shot.in_arc = bool(in_range), bool(in_arc)
        for k, aim in enumerate(in_arc):
            # The nearest aim in sight is the one fired at: the lines to those after it are
            # not needed (a lone `shoot` judges them with the first, in one batch).
            if not self._sees_first(table, base, in_arc[k:]):
                continue
            d = away[aim.id]
            shot.seen = True
            band, limit = next((b, mm) for b, mm in bands if geo.within(d, mm))
            shot.target, shot.band, shot.distance = aim, band, d
            shot.threshold = Threshold(d, limit, table.uncertainty(base, aim))
            shot.dice = band.dice
            break
        return shot

    # ----------------------------------------------------------------------------------------
    # command

    def command(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`command LEADER [standard|mini]`: the command roll table for the leader's rating."""
        if len(args) not in (1, 2):
            raise QuestionError(
                f"command takes 1 or 2 arguments (command LEADER [standard|mini]), got "
                f"{len(args)}: {' '.join(args) or 'none'}"
            )
        leader = scene.unit_of(args[0])
        size, size_why = _game_size(scene, args[1] if len(args) == 2 else None)
        return self._command(scene, leader, args[0], size, size_why)

    def _command(
        self, scene: Scene, leader: Unit, leader_id: str, size: str, size_why: str
    ) -> Resolution:
        rating = check_attr(leader, "rating", RATINGS, ruleset=self.id)
        column = RATINGS.index(rating) + (3 if size == "mini" else 0)
        outcomes = [
            {"roll": faces, "score": values[column], "p": "1/3", "source": str(cite)}
            for faces, values, cite in COMMAND_ROWS
        ]
        in_command = [
            b.id for u in scene.units if u.side == leader.side and u is not leader for b in u.bases
        ]
        roll = Roll(
            "command roll",
            1,
            6,
            None,
            cite=COMMAND_HEADER_CITE,
            note=f"{rating} leader, {size} game: the faces index the command table",
        )
        data = {
            "action": "command",
            "ruleset": self.id,
            "leader": leader_id,
            "rating": rating,
            "game_size": size,
            "game_size_from": size_why,
            "radius": None,
            "radius_note": "the sheet gives no command radius: every unit of the side",
            "in_command": in_command,
            "rolls": [roll.as_json()],
            "outcomes": outcomes,
            "mean_score": _mean_command_score(column),
        }
        lines = [
            f"command roll for {leader.id} ({rating}, {size} game: {size_why}) "
            f"[{COMMAND_HEADER_CITE}]",
            *(f"  D6 {o['roll']}: {o['score']} [{o['source']}]" for o in outcomes),
            "the sheet gives no command radius: every other unit of side "
            f"{leader.side!r} is in command ({len(in_command)} bases)",
        ]
        return Resolution("command", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # charge

    def charge(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`charge ATTACKER TARGET`: the charge table, the face struck, the move to contact."""
        attacker_id, target_id = expect_args("charge", args, ("ATTACKER", "TARGET"))
        table = table_of(scene)
        return self._charge(table, scene.unit_of(attacker_id), scene.unit_of(target_id))

    def _charge(
        self, table: Table, attacker: Unit, target: Unit, explain: bool = True
    ) -> Resolution:
        """The charge; `explain` False leaves out the readable lines after the first, the
        only one `suggest` reads."""
        scene = table.scene
        _check_enemies(attacker, target)
        a_type, t_type = _type(attacker), _type(target)
        a_form = _formation(attacker)
        _formation(target)
        cells, row_cite = CHARGE_TABLE[a_type]
        entry = cells[CHARGE_COLUMNS.index(t_type)]
        refusals: list[dict[str, Any]] = []
        table_says: dict[str, Any] = {"entry": entry, "source": str(row_cite)}
        if entry == "no":
            refusals.append(_reason(f"{a_type} may not charge {t_type}", row_cite))
        elif entry == "maybe":
            larger = len(attacker.bases) > len(target.bases)
            table_says.update(
                attacker_bases=len(attacker.bases),
                target_bases=len(target.bases),
                larger=larger,
                maybe_source=str(MAYBE_CITE),
            )
            if not larger:
                refusals.append(
                    _reason(
                        f"maybe, but {attacker.id} ({len(attacker.bases)} bases) does not begin "
                        f"larger than {target.id} ({len(target.bases)} bases)",
                        MAYBE_CITE,
                    )
                )
        if a_type == "infantry" and a_form == "line":
            refusals.append(_reason("infantry in line may not move", LINE_NO_MOVE_CITE))

        near = table.unit_distance(attacker, target)
        face = _face(table, near.a, near.b)
        rivals = self._face_rivals(table, attacker, target, face.name)
        if rivals:
            refusals.append(
                _reason(
                    f"the {face.name} of {target.id} is already attacked by {', '.join(rivals)}",
                    ONE_PER_FACE_CITE,
                )
            )
        allowance, column, why = _charge_allowance(table, attacker, target)
        reach: Threshold | None = None
        if allowance is None:
            refusals.append(_reason(why, MOVE_TABLE[_move_row(attacker)].cite))
        else:
            reach = Threshold(near.distance, allowance, table.uncertainty(near.a, near.b))
            if not reach.within:
                refusals.append(
                    _reason(
                        f"{_fmt(scene, near.distance)} to contact, beyond the "
                        f"{_fmt(scene, allowance)} move ({column})",
                        CONTACT_CITE,
                    )
                )
        flank_bonus = face.aspect is not geo.Aspect.FRONT
        data: dict[str, Any] = {
            "action": "charge",
            "ruleset": self.id,
            "attacker": attacker.id,
            "target": target.id,
            "allowed": not refusals,
            "charge_table": table_says,
            "distance": length_json(scene, near.distance),
            "between": {"attacker": near.a.id, "target": near.b.id},
            "face": face.name,
            "aspect": face.aspect.value,
            "aspect_margin": None if math.isinf(face.margin) else length_json(scene, face.margin),
            "face_taken_by": rivals,
            "move": None if reach is None else threshold_json(scene, reach),
            "move_column": column,
            "melee_bonus": _reason("+1 die per base attacking flank or rear", FLANK_CITE)
            if flank_bonus
            else None,
            "reasons": refusals,
            "notes": [
                _reason("the charger may pivot 45 degrees", PIVOT_45_CITE),
                *(
                    [
                        _reason(
                            "if the target fires on the charging cavalry, the cavalry test morale",
                            FIRED_ON_CITE,
                        )
                    ]
                    if a_type == "cavalry"
                    else []
                ),
            ],
        }
        verdict = "may charge" if not refusals else "may not charge"
        lines = [
            f"{attacker.id} ({_describe_unit(attacker)}) {verdict} {target.id} "
            f"({_describe_unit(target)}): charge table says {entry} [{row_cite}]"
        ]
        if not explain:
            return Resolution("charge", MappingProxyType(data), tuple(lines))
        lines += [
            f"{near.a.id} strikes the {face.name} of {near.b.id}"
            + (f" [{NO_FLANK_IN_TOWN_CITE}]" if math.isinf(face.margin) else "")
            + (f"; +1 die per base in hand-to-hand [{FLANK_CITE}]" if flank_bonus else ""),
        ]
        if reach is not None:
            lines.append(
                f"{_fmt(scene, near.distance)} to contact, move {_fmt(scene, allowance or 0)} "
                f"({column}) [{CONTACT_CITE}]"
                + (" - too close to call" if reach.too_close_to_call else "")
            )
        lines += [f"not allowed: {r['reason']} ({r['source']})" for r in refusals]
        return Resolution("charge", MappingProxyType(data), tuple(lines))

    def _face_rivals(self, table: Table, attacker: Unit, target: Unit, face: str) -> list[str]:
        """Other units of the attacker's side in contact with the same face of the target."""
        out = []
        units = table.scene.units
        # The units not clearly out of contact with the target, in the scene's order.
        gaps = table.unit_gaps()[:, table.unit_row(target)]
        for k in _not_beyond(gaps, _slack(table)):
            other = units[k]
            if other.side != attacker.side or other is attacker:
                continue
            near = table.unit_distance(other, target)
            contact = Threshold(near.distance, 0.0, table.uncertainty(near.a, near.b))
            if _in_contact(contact) and _face(table, near.a, near.b).name == face:
                out.append(other.id)
        return out

    # ----------------------------------------------------------------------------------------
    # melee

    def melee(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`melee ATTACKER DEFENDER`: dice per base, hits on 4+, who retreats or is eliminated."""
        attacker_id, defender_id = expect_args("melee", args, ("ATTACKER", "DEFENDER"))
        table = table_of(scene)
        return self._melee(table, scene.unit_of(attacker_id), scene.unit_of(defender_id))

    def _melee(self, table: Table, attacker: Unit, defender: Unit) -> Resolution:
        scene = table.scene
        _check_enemies(attacker, defender)
        near = table.unit_distance(attacker, defender)
        contact = Threshold(near.distance, 0.0, table.uncertainty(near.a, near.b))
        face = _face(table, near.a, near.b)
        a_side = self._melee_side(table, attacker, defender, near.a, near.b, True, face)
        d_side = self._melee_side(table, defender, attacker, near.b, near.a, False, face)
        a_hits, d_hits = a_side.roll.distribution, d_side.roll.distribution
        p_defender_retreats = sum(
            (pa * pd for i, pa in enumerate(a_hits) for j, pd in enumerate(d_hits) if i >= j),
            Fraction(0),
        )
        p_tie = sum(
            (a_hits[k] * d_hits[k] for k in range(min(len(a_hits), len(d_hits)))), Fraction(0)
        )
        p_attacker_retreats = 1 - p_defender_retreats
        outcome = {
            "defender_loses": str(p_defender_retreats),
            "attacker_loses": str(p_attacker_retreats),
            "tie": str(p_tie),
            "defender_loses_float": float(p_defender_retreats),
            "attacker_loses_float": float(p_attacker_retreats),
            "loser": _loser_fate(defender),
            "attacker_loser": _loser_fate(attacker),
            "loser_morale_tests": 2,
            "sources": _cites(
                RETREAT_CITE, TIE_CITE, ARTILLERY_CITE, BLOCKED_CITE, LOST_MELEE_CITE
            ),
        }
        data = {
            "action": "melee",
            "ruleset": self.id,
            "attacker": attacker.id,
            "defender": defender.id,
            "in_contact": _in_contact(contact),
            "contact": threshold_json(scene, contact),
            "face": face.name,
            "sides": {"attacker": a_side.as_json(), "defender": d_side.as_json()},
            "rolls": [a_side.roll.as_json(), d_side.roll.as_json()],
            "outcome": outcome,
            "notes": [
                _reason(
                    "in multiple combats the defender may only inflict casualties on the "
                    "unit to its front",
                    MULTIPLE_CITE,
                ),
                _reason("if a unit vacates a town the attacker may occupy it", TOWN_VACATED_CITE),
            ],
        }
        lines = []
        if not _in_contact(contact):
            lines.append(
                f"{attacker.id} and {defender.id} are not in base contact "
                f"({_fmt(scene, near.distance)} apart); the dice below are what contact would give"
            )
        elif contact.too_close_to_call:
            lines.append("base contact is too close to call; taken as in contact")
        for side in (a_side, d_side):
            lines.append(side.describe())
        lines.append(
            f"{defender.id} loses (takes more hits, or a tie) with chance {p_defender_retreats} "
            f"(tie {p_tie}) and {_loser_fate(defender)} [{RETREAT_CITE}; {TIE_CITE}]"
        )
        lines.append(
            f"{attacker.id} loses with chance {p_attacker_retreats} and {_loser_fate(attacker)}; "
            f"the loser takes two morale tests [{LOST_MELEE_CITE}]"
        )
        return Resolution("melee", MappingProxyType(data), tuple(lines))

    def _melee_side(
        self,
        table: Table,
        unit: Unit,
        enemy: Unit,
        base: Base,
        enemy_base: Base,
        charging: bool,
        face: _Face,
    ) -> _MeleeSide:
        """One side's dice: the table row and column, then the per-base modifiers."""
        row = _melee_row(unit, charging)
        column = _melee_column(enemy)
        row_label, cells, cite = MELEE_TABLE[row]
        per_base = cells[MELEE_COLUMNS.index(column)]
        if per_base is None:
            raise QuestionError(
                f"{RULESET_ID}: {unit.id!r} ({row_label}) against {enemy.id!r} "
                f"({MELEE_COLUMN_LABELS[column]}) is '-' on the hand-to-hand table "
                f"({cite}): that combat cannot happen (see the charge table, lines 27-32)"
            )
        mods: list[Modifier] = []
        if charging and face.aspect is not geo.Aspect.FRONT:
            mods.append(Modifier(1, f"attacking the {face.name}", FLANK_CITE))
        if not charging and face.aspect is geo.Aspect.FRONT:
            river = _river_between(table, enemy_base, base)
            if river:
                mods.append(Modifier(1, f"defending the bank of {river} frontally", RIVERBANK_CITE))
        hill = _in_kinds(table, base, frozenset({TerrainKind.HILL}))
        if hill and not _in_kinds(table, enemy_base, frozenset({TerrainKind.HILL})):
            mods.append(Modifier(1, f"on higher ground ({hill[0]})", HIGHER_CITE))
        if _type(unit) == "cavalry" and _type(enemy) == "infantry" and _order(enemy) == "close":
            mods.append(Modifier(-1, "cavalry against close order infantry", CAV_VS_CO_CITE))
        dice_per_base = max(0, per_base + int(sum(m.value for m in mods)))
        dice = dice_per_base * len(unit.bases)
        roll = Roll.success_roll(
            f"hits by {unit.id}",
            dice,
            6,
            MELEE_HIT_NEED,
            mods,
            MELEE_HIT_CITE,
            note=f"{len(unit.bases)} bases x {dice_per_base}",
        )
        return _MeleeSide(
            unit, row_label, MELEE_COLUMN_LABELS[column], per_base, cite, dice_per_base, roll
        )

    # ----------------------------------------------------------------------------------------
    # move

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT`: the movement allowance where the unit stands, pivots and the road."""
        (unit_id,) = expect_args("move", args, ("UNIT",))
        return self._move(table_of(scene), scene.unit_of(unit_id))

    def _move(self, table: Table, unit: Unit) -> Resolution:
        scene = table.scene
        row_key = _move_row(unit)
        row = MOVE_TABLE[row_key]
        formation = _formation(unit)
        column, why = _standing_column(table, unit)
        road = _road_check(table, unit)
        if column == "open" and road is not None and road[0]:
            column, why = "road", road[1]
        cm = row.cm[MOVE_COLUMNS.index(column)]
        static_cite = {"line": LINE_NO_MOVE_CITE, "unlimbered": UNLIMBERED_NO_MOVE_CITE}.get(
            formation or ""
        )
        if static_cite is not None:
            allowance: float | None = 0.0
            verdict = f"{_describe_unit(unit)} may not move but may pivot [{static_cite}]"
        elif cm is None:
            allowance = None
            verdict = f"{row.label} may not move in {column} (N/A) [{row.cite}]"
        else:
            allowance = cm * MM_PER_CM
            verdict = f"{row.label} moves {cm} cm in {column} ({why}) [{row.cite}]"
        data = {
            "action": "move",
            "ruleset": self.id,
            "unit": unit.id,
            "row": row.label,
            "column": column,
            "why": why,
            "allowance": None if allowance is None else length_json(scene, allowance),
            "table_row": {
                c: None if v is None else length_json(scene, v * MM_PER_CM)
                for c, v in zip(MOVE_COLUMNS, row.cm, strict=True)
            },
            "pivot_cost": None if row.pivot_cost is None else str(row.pivot_cost),
            "pivot_cost_length": None
            if row.pivot_cost is None or not allowance
            else length_json(scene, float(allowance * row.pivot_cost)),
            "may_move": bool(allowance),
            "may_pivot": True,
            "road": None
            if road is None
            else {"eligible": road[0], "why": road[1], "enemy": road[2], "source": str(ROAD_CITE)},
            "source": str(static_cite or row.cite),
            "notes": [
                _reason("bridges negate streams", BRIDGE_CITE),
                _reason("only skirmishers may pass through friendly units", INTERPENETRATION_CITE),
            ],
        }
        lines = [f"{unit.id}: {verdict}"]
        if row.pivot_cost is None:
            lines.append(f"pivots cost nothing [{row.cite}]")
        else:
            lines.append(f"each pivot costs {row.pivot_cost} of the move [{row.cite}]")
        if road is not None:
            lines.append(f"road: {road[1]} [{ROAD_CITE}]")
        return Resolution("move", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # morale

    def morale(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`morale UNIT`: the score needed, how many tests the unit's state calls for, the odds."""
        (unit_id,) = expect_args("morale", args, ("UNIT",))
        return self._morale(scene, scene.unit_of(unit_id))

    def _morale(self, scene: Scene, unit: Unit) -> Resolution:
        level = check_attr(unit, "quality", tuple(MORALE_LEVELS), ruleset=self.id)
        need, level_cite = MORALE_LEVELS[level]
        reasons: list[dict[str, Any]] = []
        removed = _count(unit, "bases_removed")
        if removed:
            reasons.append(
                {**_reason(f"{removed} base(s) removed", BASE_REMOVED_CITE), "tests": removed}
            )
        if _flag(unit, "fired_on"):
            if _type(unit) != "cavalry":
                raise QuestionError(
                    f"{RULESET_ID}: unit {unit.id!r} has fired_on true but is "
                    f"{_type(unit)}; only charging cavalry test for being fired on "
                    f"({FIRED_ON_CITE})"
                )
            reasons.append(
                {**_reason("charging cavalry fired on by the target", FIRED_ON_CITE), "tests": 1}
            )
        if _flag(unit, "lost_melee"):
            reasons.append({**_reason("lost hand-to-hand combat", LOST_MELEE_CITE), "tests": 2})
        tests = sum(int(r["tests"]) for r in reasons)
        roll = Roll.success_roll(
            "morale test",
            tests,
            6,
            need,
            cite=level_cite,
            note=f"{level}: {need}+ to pass each test",
        )
        lost = tuple(reversed(roll.distribution))  # failures = tests - passes
        data = {
            "action": "morale",
            "ruleset": self.id,
            "unit": unit.id,
            "level": level,
            "need": need,
            "p_pass": str(dice_math.p_at_least(6, need)),
            "tests": tests,
            "reasons": reasons,
            "rolls": [roll.as_json()],
            "bases_lost": {
                "distribution": dice_math.as_floats(lost),
                "exact": _exact(lost),
                "source": str(FAILURE_CITE),
            },
        }
        lines = [
            f"{unit.id} is {level}: {need}+ on a D6 passes "
            f"({dice_math.p_at_least(6, need)} a test) [{level_cite}]"
        ]
        if tests:
            lines += [f"  {r['tests']} test(s): {r['reason']} [{r['source']}]" for r in reasons]
            lines.append(
                "bases lost (a failure removes a base): "
                + ", ".join(f"{k}: {p}" for k, p in enumerate(lost) if p)
                + f" [{FAILURE_CITE}]"
            )
        else:
            lines.append(
                "its state gives no reason to test now (bases_removed, fired_on, lost_melee)"
            )
        return Resolution("morale", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # formation

    def formation(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`formation UNIT`: the unit's formation, the other it may change to, what each allows."""
        (unit_id,) = expect_args("formation", args, ("UNIT",))
        return self._formation(scene.unit_of(unit_id))

    def _formation(self, unit: Unit) -> Resolution:
        kind = _type(unit)
        current = _formation(unit)
        options: dict[str, tuple[str, Cite]] = {}
        if kind == "infantry":
            options = {
                "line": ("may not move but may pivot", LINE_NO_MOVE_CITE),
                "column": (
                    "moves and charges; fires on the Infantry Col row",
                    FIRER_CLASSES["infantry-col"][1],
                ),
            }
        elif kind == "artillery":
            options = {
                "limbered": ("can not fire; moves", LIMBERED_CITE),
                "unlimbered": ("can not move but may pivot; fires", UNLIMBERED_NO_MOVE_CITE),
            }
        data = {
            "action": "formation",
            "ruleset": self.id,
            "unit": unit.id,
            "formation": current,
            "may_change_to": [f for f in options if f != current],
            "formations": {f: _reason(text, c) for f, (text, c) in options.items()},
        }
        if not options:
            lines = [
                f"{unit.id} ({kind}): the sheet gives formations only to infantry and "
                f"artillery [{_cite(15, 'Infantry: Line or Column')}]"
            ]
        else:
            lines = [f"{unit.id} is in {current}"] + [
                f"  {f}: {text} [{c}]" for f, (text, c) in options.items()
            ]
        return Resolution("formation", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # Outcomes: what the dice the players threw change (the form, then the changes)

    def outcomes(self) -> Mapping[str, OutcomeRule]:
        return {
            "shoot": OutcomeRule(self._shoot_form, self._shoot_apply),
            "command": OutcomeRule(self._command_form, self._command_apply),
            "charge": OutcomeRule(self._charge_form, self._charge_apply),
            "melee": OutcomeRule(self._melee_form, self._melee_apply),
            "move": OutcomeRule(self._move_form, self._move_apply),
            "morale": OutcomeRule(self._morale_form, self._morale_apply),
            "formation": OutcomeRule(self._formation_form, self._formation_apply),
        }

    def _shot_facts(self, scene: Scene, args: Sequence[str]) -> _ShotFacts | None:
        """What a shot's dice are, or None when the shot is not allowed."""
        shooter_id, target_id = expect_args("shoot", args, ("SHOOTER", "TARGET"))
        firer, target = scene.unit_of(shooter_id), scene.unit_of(target_id)
        table = table_of(scene)
        data = self._shoot(table, firer, target, explain=False).data
        if not data["allowed"]:
            return None
        hit = data["rolls"][0]
        class_label, class_cite = FIRER_CLASSES[_firer_class(_type(firer), _formation(firer))]
        save_need = data["save"]["need"]
        save_cite = next(c for _, c in SAVES.values() if str(c) == data["save"]["source"])
        near = table.unit_distance(firer, target)
        contact = _in_contact(Threshold(near.distance, 0.0, table.uncertainty(near.a, near.b)))
        charging_cavalry = contact and _type(target) == "cavalry" and _flag(target, "charged")
        return _ShotFacts(
            firer,
            target,
            int(hit["dice"]),
            int(hit["need"]),
            f"{class_label} against {data['target_category']['column']}",
            class_cite,
            save_need,
            save_cite,
            charging_cavalry,
        )

    def _shoot_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Hits (the firing table), saves (one die a hit, when the target has a save) and the
        bases taken off, one for each unsaved hit (lines 80-96, 130)."""
        shot = self._shot_facts(scene, args)
        if shot is None:
            return ()
        hits = _likeliest(dice_math.successes(shot.dice, 6, shot.need))
        reports = [
            Report(
                "hits",
                Kind.COUNT,
                f"hits: the dice of the {shot.dice}D6 showing {shot.need}+ ({shot.row})",
                shot.row_cite,
                maximum=shot.dice,
                default=hits,
            )
        ]
        saves = 0
        if shot.save_need is not None:
            saves = _likeliest(dice_math.successes(hits, 6, shot.save_need))
            reports.append(
                Report(
                    "saved",
                    Kind.COUNT,
                    f"saves: the saving dice (one a hit) showing {shot.save_need}+",
                    shot.save_cite,
                    maximum=shot.dice,
                    default=saves,
                )
            )
        reports.append(_bases_report(shot.target, hits - saves, "one for each unsaved hit"))
        return tuple(reports)

    def _shoot_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        shot = self._shot_facts(scene, args)
        if shot is None:
            return ()
        hits, saved = int(reported["hits"]), int(reported.get("saved", 0))
        if saved > hits:
            raise QuestionError(
                f"{self.id} shoot {' '.join(args)}: {saved} saves for {hits} hits; a saving "
                f"die is rolled for each hit ({SAVES['open'][1]})"
            )
        lost = _check_removed(shot.target, reported["removed"], hits - saved, "unsaved hits")
        changes = [Change(shot.firer.id, "fired", True, "fired this turn", FIRE_PHASE_CITE)]
        changes += _removals(lost, f"unsaved hit from {shot.firer.id}", HIT_EFFECT_CITE)
        if lost:
            before = _count(shot.target, "bases_removed")
            changes.append(
                Change(
                    shot.target.id,
                    "bases_removed",
                    before + len(lost),
                    f"{len(lost)} base(s) removed: a morale test each",
                    BASE_REMOVED_CITE,
                )
            )
        if shot.charging_cavalry and not _flag(shot.target, "fired_on"):
            changes.append(
                Change(
                    shot.target.id,
                    "fired_on",
                    True,
                    f"charging cavalry fired on by its target {shot.firer.id}: a morale test",
                    FIRED_ON_CITE,
                )
            )
        return tuple(changes)

    def _command_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """The row of the command table the leader's D6 fell in (lines 145-149)."""
        self.command(scene, args)  # the same checks as the question
        return (
            Report(
                "roll",
                Kind.CHOICE,
                "the command D6: 1-2, 3-4 or 5-6 (a row of the command table)",
                COMMAND_HEADER_CITE,
                choices=tuple(faces for faces, _, _ in COMMAND_ROWS),
                default=COMMAND_ROWS[1][0],
            ),
        )

    def _command_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        data = self.command(scene, args).data
        row = next(r for r in COMMAND_ROWS if r[0] == reported["roll"])
        score = next(o["score"] for o in data["outcomes"] if o["roll"] == row[0])
        return (
            Change(
                str(data["leader"]),
                "command_score",
                int(score),
                f"rolled {row[0]}: {data['rating']} leader, {data['game_size']} game",
                row[2],
            ),
        )

    def _charge_facts(self, scene: Scene, args: Sequence[str]) -> tuple[Unit, Unit, bool, bool]:
        """(attacker, target, allowed, possible): `possible` when the charge is allowed or is
        refused only for a move to contact too close to call (the players judge it)."""
        attacker_id, target_id = expect_args("charge", args, ("ATTACKER", "TARGET"))
        attacker, target = scene.unit_of(attacker_id), scene.unit_of(target_id)
        data = self._charge(table_of(scene), attacker, target, explain=False).data
        allowed = bool(data["allowed"])
        close = data["move"] is not None and data["move"]["verdict"] == "too close to call"
        only_reach = all(r["source"] == str(CONTACT_CITE) for r in data["reasons"])
        return attacker, target, allowed, allowed or (close and only_reach)

    def _charge_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Whether the charger reached base contact (line 38); nothing for a refused charge."""
        _, target, allowed, possible = self._charge_facts(scene, args)
        if not possible:
            return ()
        return (
            Report(
                "contact",
                Kind.FLAG,
                f"the charger moved into base contact with {target.id}",
                CONTACT_CITE,
                default=allowed,
            ),
        )

    def _charge_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        attacker, target, _, possible = self._charge_facts(scene, args)
        if not possible:
            return ()
        changes = [
            Change(attacker.id, "moved", True, "its move this turn was the charge", CONTACT_CITE)
        ]
        if reported["contact"]:
            changes.insert(
                0, Change(attacker.id, "charged", True, f"charged {target.id}", CHARGE_PHASE_CITE)
            )
        return tuple(changes)

    def _melee_facts(
        self, scene: Scene, args: Sequence[str]
    ) -> tuple[Unit, Unit, Mapping[str, Any]]:
        attacker_id, defender_id = expect_args("melee", args, ("ATTACKER", "DEFENDER"))
        attacker, defender = scene.unit_of(attacker_id), scene.unit_of(defender_id)
        return attacker, defender, self._melee(table_of(scene), attacker, defender).data

    def _melee_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """The hits each side scored (4+ a die, line 98) and whether the loser's retreat is
        blocked (line 121)."""
        attacker, defender, data = self._melee_facts(scene, args)
        reports = []
        for name, unit, roll in (
            ("attacker_hits", attacker, data["rolls"][0]),
            ("defender_hits", defender, data["rolls"][1]),
        ):
            dice = int(roll["dice"])
            reports.append(
                Report(
                    name,
                    Kind.COUNT,
                    f"hits scored by {unit.id}: the dice of its {dice}D6 showing {MELEE_HIT_NEED}+",
                    MELEE_HIT_CITE,
                    maximum=dice,
                    default=_likeliest(dice_math.successes(dice, 6, MELEE_HIT_NEED)),
                )
            )
        reports.append(
            Report(
                "retreat_blocked",
                Kind.FLAG,
                f"the loser's {RETREAT_CM} cm retreat facing the enemy is blocked "
                "(it is eliminated)",
                BLOCKED_CITE,
                default=False,
            )
        )
        return tuple(reports)

    def _melee_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        attacker, defender, _ = self._melee_facts(scene, args)
        by_attacker, by_defender = int(reported["attacker_hits"]), int(reported["defender_hits"])
        if by_attacker > by_defender:
            loser, why, cite = defender, f"took {by_attacker} hits to {by_defender}", RETREAT_CITE
        elif by_attacker == by_defender:
            loser, why, cite = defender, f"a tie at {by_attacker} hits: the defender", TIE_CITE
        else:
            loser, why, cite = attacker, f"took {by_defender} hits to {by_attacker}", RETREAT_CITE
        if _type(loser) == "artillery":
            return _removals(
                loser.bases, f"{why}; artillery that lose are eliminated", ARTILLERY_CITE
            )
        if reported["retreat_blocked"]:
            return _removals(loser.bases, f"{why}; its retreat is blocked", BLOCKED_CITE)
        return (
            Change(
                loser.id,
                "lost_melee",
                True,
                f"lost hand-to-hand ({why}): retreats {RETREAT_CM} cm facing the enemy and "
                "takes two morale tests",
                cite,
            ),
        )

    def _move_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Artillery: whether it pivoted (it then cannot fire, line 78); nothing else to say."""
        (unit_id,) = expect_args("move", args, ("UNIT",))
        unit = scene.unit_of(unit_id)
        self._move(table_of(scene), unit)  # the same checks as the question
        if _type(unit) != "artillery":
            return ()
        return (
            Report(
                "pivoted",
                Kind.FLAG,
                "the battery pivoted (it cannot fire this turn)",
                PIVOTED_CITE,
                default=False,
            ),
        )

    def _move_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        (unit_id,) = expect_args("move", args, ("UNIT",))
        unit = scene.unit_of(unit_id)
        changes = [Change(unit.id, "moved", True, "moved this turn", MOVE_PHASE_CITE)]
        if reported.get("pivoted") and not _flag(unit, "pivoted"):
            changes.append(
                Change(unit.id, "pivoted", True, "pivoted: it cannot fire this turn", PIVOTED_CITE)
            )
        return tuple(changes)

    def _morale_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """The tests failed (a D6 under the level's score each) and the bases they take off
        (line 141); nothing when the unit's state gives no reason to test."""
        (unit_id,) = expect_args("morale", args, ("UNIT",))
        unit = scene.unit_of(unit_id)
        data = self._morale(scene, unit).data
        tests = int(data["tests"])
        if not tests:
            return ()
        level_cite = MORALE_LEVELS[str(data["level"])][1]
        failed = _likeliest(tuple(Fraction(p) for p in data["bases_lost"]["exact"]))
        return (
            Report(
                "failed",
                Kind.COUNT,
                f"tests failed: the {tests} D6 showing under {data['need']}",
                level_cite,
                maximum=tests,
                default=failed,
            ),
            _bases_report(unit, failed, "one for each failed test", FAILURE_CITE, tests),
        )

    def _morale_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        (unit_id,) = expect_args("morale", args, ("UNIT",))
        unit = scene.unit_of(unit_id)
        if not self._morale(scene, unit).data["tests"]:
            return ()
        lost = _check_removed(unit, reported["removed"], int(reported["failed"]), "failed tests")
        changes = list(_removals(lost, "failed a morale test", FAILURE_CITE))
        if _count(unit, "bases_removed"):
            changes.append(
                Change(unit.id, "bases_removed", 0, "its tests are taken", BASE_REMOVED_CITE)
            )
        for key, cite in (("fired_on", FIRED_ON_CITE), ("lost_melee", LOST_MELEE_CITE)):
            if _flag(unit, key):
                changes.append(Change(unit.id, key, False, "its tests are taken", cite))
        return tuple(changes)

    def _formation_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """The formation the unit is in now (lines 15, 19); nothing for a type with none."""
        (unit_id,) = expect_args("formation", args, ("UNIT",))
        data = self._formation(scene.unit_of(unit_id)).data
        options = tuple(data["formations"])
        if not options:
            return ()
        kind = _type(scene.unit_of(unit_id))
        return (
            Report(
                "formation",
                Kind.CHOICE,
                f"the formation it is in now: {' or '.join(options)}",
                INFANTRY_FORMATION_CITE if kind == "infantry" else ARTILLERY_FORMATION_CITE,
                choices=options,
                default=data["may_change_to"][0],
            ),
        )

    def _formation_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        (unit_id,) = expect_args("formation", args, ("UNIT",))
        unit = scene.unit_of(unit_id)
        before = _formation(unit)
        after = reported.get("formation", before)
        if after == before:
            return ()
        return (
            Change(
                unit.id,
                "formation",
                after,
                f"changed formation from {before} to {after}",
                FORMATION_PHASE_CITE,
            ),
        )

    # ----------------------------------------------------------------------------------------
    # suggest

    def suggest(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`suggest [PHASE]`: every resolution that applies in a phase (or all phases)."""
        if len(args) > 1:
            raise QuestionError(f"suggest takes at most 1 argument (PHASE), got {len(args)}")
        phase = args[0] if args else None
        if phase is not None and phase not in PHASES:
            raise QuestionError(
                f"{self.id}: unknown phase {phase!r}; the phases are {accepted(PHASES)}"
            )
        table = table_of(scene)
        units = scene.units
        unit_d = table.unit_gaps()
        items: list[dict[str, Any]] = []
        for ph in PHASES if phase is None else (phase,):
            items += self._suggest_phase(table, units, unit_d, ph)
        items += self._suggest_morale(scene)
        data = {
            "action": "suggest",
            "ruleset": self.id,
            "phase": phase,
            "phases": list(PHASES),
            "items": items,
        }
        lines = [f"{len(items)} resolutions for {phase or 'every phase'}"] + [
            f"  [{i['kind']}] {i['summary']}" for i in items
        ]
        return Resolution("suggest", MappingProxyType(data), tuple(lines))

    def _suggest_phase(
        self, table: Table, units: Sequence[Unit], unit_d: np.ndarray, phase: str
    ) -> list[dict[str, Any]]:
        scene = table.scene
        slack = _slack(table)
        out: list[dict[str, Any]] = []
        if phase == "change-formation":
            for u in units:
                # A leader that has rolled this turn has its score (line 145).
                if u.get("rating") is not None and not _count(u, "command_score"):
                    size, why = _game_size(scene, None)
                    res = self._command(scene, u, u.id, size, why)
                    out.append(_item("command", [u.id], res, phase))
            for u in units:
                if _type(u) in ("infantry", "artillery"):
                    out.append(_item("formation", [u.id], self._formation(u), phase))
        elif phase == "movement":
            for u in units:
                if _done_moving(u):
                    continue  # it charged (its move to contact, line 38) or moved already
                out.append(_item("move", [u.id], self._move(table, u), phase))
        elif phase == "charge":
            for i, a in enumerate(units):
                if _type(a) in ("skirmishers", "artillery"):
                    continue  # the charge table's Ski and Art rows are all No (lines 31-32)
                if _done_moving(a):
                    continue  # it charged or moved this turn already
                fastest = max(v for v in MOVE_TABLE[_move_row(a)].cm[:3] if v is not None)
                for j in _not_beyond(unit_d[i], fastest * MM_PER_CM + slack):
                    t = units[j]
                    if t.side == a.side:
                        continue
                    res = self._charge(table, a, t, explain=False)
                    out.append(_item("charge", [a.id, t.id], res, phase))
        elif phase == "firing":
            may_fire = self._prime_fire(table, units)
            for i, f in enumerate(units):
                reach = _firer_reach(f)
                if reach is None:
                    continue
                for j in _not_beyond(unit_d[i], reach):
                    t = units[j]
                    if t.side == f.side:
                        continue
                    if (f.id, t.id) not in may_fire:
                        # Not allowed, so not listed; only the target's attributes are left
                        # for `_shoot` to check (the firer's are read by `_firer_reach`).
                        _target_category(t)
                        continue
                    res = self._shoot(table, f, t, explain=False)
                    if res.data["allowed"]:
                        out.append(_item("shoot", [f.id, t.id], res, phase))
        elif phase == "hand-to-hand":
            for i, a in enumerate(units):
                for j in _not_beyond(unit_d[i], slack):
                    d = units[j]
                    if j <= i or d.side == a.side:
                        continue
                    attacker, defender, note = _who_attacks(a, d)
                    try:
                        res = self._melee(table, attacker, defender)
                    except MissingAttribute:
                        raise
                    except QuestionError:
                        # A '-' of the hand-to-hand table: the other way round, else this pair
                        # cannot fight at all (two skirmisher units side by side).
                        note = (
                            f"{attacker.id} against {defender.id} is '-' on the hand-to-hand "
                            f"table: {defender.id} taken as the attacker"
                        )
                        attacker, defender = defender, attacker
                        try:
                            res = self._melee(table, attacker, defender)
                        except MissingAttribute:
                            raise
                        except QuestionError:
                            continue
                    if res.data["in_contact"]:
                        out.append(_item("melee", [attacker.id, defender.id], res, phase, note))
        return out

    def _prime_fire(self, table: Table, firers: Sequence[Unit]) -> set[tuple[str, str]]:
        """The (firer, target) unit ids of every shot some base of the firer may take: a base
        of the target in its range, its arc and its sight (`_base_shot`). Every arc is tested in
        one pass and every sight line in one batch, kept with the table for `_base_shot`.
        (Sight to only the nearest base of each target first, then to the others of the units
        it is hidden from, judges fewer lines but costs more: a batch has a large fixed cost.)"""
        sides = {u.id: u.side for u in table.scene.units}
        foes: dict[str, tuple[list[Base], npt.NDArray[np.int_]]] = {}
        asks: list[tuple[Base, list[Base], float]] = []
        for firer in firers:
            reach = _firer_reach(firer)
            if reach is None:
                continue
            if firer.side not in foes:
                found = [b for b in table.bases if sides[b.unit_id] != firer.side]
                foes[firer.side] = (found, np.array(table.rows(found), dtype=int))
            enemies, columns = foes[firer.side]
            for base in firer.bases:
                row = table.distances[table.index[base.id]].take(columns)
                half = 180.0 if _in_kinds(table, base, TOWNS) else ARC_HALF_ANGLE
                in_range = [enemies[k] for k in np.flatnonzero(geo.within(row, reach)).tolist()]
                asks.append((base, in_range, half))
        pairs = [
            (base, aim)
            for (base, in_range, _), arcs in zip(asks, table.in_arcs(asks), strict=True)
            for aim, ok in zip(in_range, arcs, strict=True)
            if ok
        ]
        seen = self._seen(table, pairs) if pairs else []
        return {
            (base.unit_id, aim.unit_id) for (base, aim), ok in zip(pairs, seen, strict=True) if ok
        }

    def _suggest_morale(self, scene: Scene) -> list[dict[str, Any]]:
        out = []
        for u in scene.units:
            if _count(u, "bases_removed") or _flag(u, "fired_on") or _flag(u, "lost_melee"):
                out.append(_item("morale", [u.id], self._morale(scene, u), None))
        return out


# --------------------------------------------------------------------------------------------
# Helpers of the actions


@dataclass(slots=True)
class _Shot:
    """What one firing base can do against the target unit."""

    base: Base
    in_town: bool
    distance: float
    threshold: Threshold
    in_range: bool = False
    in_arc: bool = False
    seen: bool = False
    target: Base | None = None
    band: Band | None = None
    dice: int = 0

    def as_json(self, scene: Scene) -> dict[str, Any]:
        return {
            "base": self.base.id,
            "target_base": None if self.target is None else self.target.id,
            "distance": length_json(scene, self.distance),
            "band": None if self.band is None else self.band.label,
            "dice": self.dice,
            "in_range": self.in_range,
            "in_arc": self.in_arc,
            "in_sight": self.seen,
            "range": threshold_json(scene, self.threshold),
        }


@dataclass(frozen=True, slots=True)
class _MeleeSide:
    unit: Unit
    row: str
    column: str
    table_dice: int
    cite: Cite
    dice_per_base: int
    roll: Roll

    def as_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit.id,
            "row": self.row,
            "column": self.column,
            "table_dice_per_base": self.table_dice,
            "dice_per_base": self.dice_per_base,
            "bases": len(self.unit.bases),
            "source": str(self.cite),
            "modifiers": [m.as_json() for m in self.roll.modifiers],
            "hits": {
                "distribution": dice_math.as_floats(self.roll.distribution),
                "exact": _exact(self.roll.distribution),
            },
        }

    def describe(self) -> str:
        mods = "".join(f"; {m.value:+g} {m.reason} [{m.cite}]" for m in self.roll.modifiers)
        return (
            f"{self.unit.id}: {self.row} vs {self.column} {self.table_dice} a base "
            f"[{self.cite}]{mods}; {self.roll.describe()} [{MELEE_HIT_CITE}]"
        )


@dataclass(frozen=True, slots=True)
class _ShotFacts:
    """What the form and the changes of a shot need to know of it."""

    firer: Unit
    target: Unit
    dice: int
    need: int
    row: str
    """`Inf line, Art against Normal`."""
    row_cite: Cite
    save_need: int | None
    save_cite: Cite
    charging_cavalry: bool
    """The target is cavalry that charged this turn, in contact with the firer (line 131)."""


def _likeliest(dist: Sequence[Fraction]) -> int:
    """The most likely number of successes (the lowest of equals): what a form shows first."""
    return max(range(len(dist)), key=lambda k: (dist[k], -k))


def _bases_report(
    unit: Unit, likely: int, why: str, cite: Cite = HIT_EFFECT_CITE, most: int | None = None
) -> Report:
    """Which bases of `unit` the players take off; first shown: its last `likely` bases."""
    ids = tuple(b.id for b in unit.bases)
    shown = ids[len(ids) - min(likely, len(ids)) :] if likely > 0 else ()
    return Report(
        "removed",
        Kind.BASES,
        f"bases of {unit.id} taken off: {why}",
        cite,
        maximum=len(ids) if most is None else min(most, len(ids)),
        unit=unit.id,
        bases=ids,
        default=shown,
    )


def _check_removed(unit: Unit, removed: Sequence[str], count: int, what: str) -> list[Base]:
    """The bases named, when they are as many as `count` calls for (all the unit's bases at
    most); a `QuestionError` otherwise."""
    wanted = min(count, len(unit.bases))
    if len(removed) != wanted:
        raise QuestionError(
            f"{RULESET_ID}: {count} {what} take off {wanted} base(s) of {unit.id}; "
            f"{len(removed)} named ({', '.join(removed) or 'none'})"
        )
    return [b for b in unit.bases if b.id in set(removed)]


def _removals(bases: Iterable[Base], why: str, cite: Cite) -> tuple[Change, ...]:
    """Each base taken off the table."""
    return tuple(Change(b.id, "removed", True, why, cite, Scope.BASE) for b in bases)


def _reach(base: Base) -> float:
    """Half the diagonal of a base (its radius if round): how far its footprint reaches."""
    if base.footprint.circle:
        return base.footprint.width / 2
    return math.hypot(base.footprint.width, base.footprint.depth) / 2


def _not_beyond(row: np.ndarray, limit: float) -> list[int]:
    """The places j, in order, where row[j] is not more than `limit`: the pairs of units a
    `suggest` loop looks at (one array pass instead of a comparison per pair)."""
    return np.flatnonzero(~(row > limit)).tolist()


def _fmt(scene: Scene, mm: float) -> str:
    return f"{scene.show(mm):.1f} {scene.unit}"


def _slack(table: Table) -> float:
    """A generous measuring slack for pre-filtering pairs in `suggest` (mm)."""
    return 2 * table.most_uncertain + geo.EPS


def _target_category(unit: Unit) -> tuple[str, str]:
    """The firing-table column a target falls in (lines 82-89), and why."""
    kind = _type(unit)
    formation = _formation(unit)
    if kind == "cavalry":
        return "cav", "cavalry are the Cav column"
    if kind == "dragoons":
        return "normal", "dragoons are Normal"
    if kind == "skirmishers":
        return "dispersed", "skirmishers are Dispersed"
    if kind == "artillery":
        if formation == "limbered":
            return "normal", "limbered artillery is Normal"
        return "dispersed", "unlimbered artillery is Dispersed"
    order = _order(unit)
    if formation == "column":
        if order == "close":
            return "co-col", "close order infantry in column are the CO If Col column"
        return "normal", "loose order infantry in column are Normal"
    if order == "close":
        return "normal", "close order infantry in line are Normal"
    return "dispersed", "loose order infantry in line are Dispersed"


def _firer_class(kind: str, formation: str | None) -> str:
    """The firing-table row of a firer (lines 83-85)."""
    if kind in ("skirmishers", "dragoons"):
        return "sk-dgns"
    if kind == "infantry" and formation == "column":
        return "infantry-col"
    return "inf-line-art"


def _weapon(unit: Unit, kind: str) -> tuple[str, Weapon]:
    if unit.weapon is None:
        # Missing: name the weapons of its type (and stand one of them in while the engine
        # looks for the question's other missing attributes).
        arms = [k for k, w in WEAPONS.items() if w.artillery == (kind == "artillery")]
        raise MissingAttribute(RULESET_ID, unit.id, "weapon", f"one of {accepted(arms)}", arms[0])
    name = _word(unit, "weapon", unit.weapon, WEAPON_NAMES)
    weapon = WEAPONS[name]
    if weapon.artillery != (kind == "artillery"):
        wanted = [k for k, w in WEAPONS.items() if w.artillery == (kind == "artillery")]
        raise QuestionError(
            f"{RULESET_ID}: unit {unit.id!r} is {kind} with weapon {name!r}; a unit of type "
            f"{kind} carries {accepted(wanted)}"
        )
    return name, weapon


def _bands(weapon: Weapon, kind: str) -> list[tuple[Band, float]]:
    """The weapon's bands with their reach in mm, skirmishers' starred weapons +8 cm."""
    bonus = SKIRMISHER_BONUS_CM if weapon.starred and kind == "skirmishers" else 0
    return [(b, (b.reach_cm + bonus) * MM_PER_CM) for b in weapon.bands]


def _firer_reach(unit: Unit) -> float | None:
    """The longest range (mm) of a unit that may fire at all and has not fired this turn, for
    `suggest`'s pre-filter."""
    kind = _type(unit)
    if kind == "cavalry" or _formation(unit) == "limbered":
        return None
    if kind == "artillery" and _flag(unit, "pivoted"):
        return None
    if _flag(unit, "fired"):
        return None  # it has fired this turn (line 10)
    return _bands(_weapon(unit, kind)[1], kind)[-1][1]


@dataclass(frozen=True, slots=True)
class _FireOdds:
    """What a shot's dice give, as its answer shows them (`_fire_odds`)."""

    hits: tuple[float, ...]
    """The chance of each number of hits."""
    hits_exact: tuple[str, ...]
    unsaved: tuple[float, ...]
    """The chance of each number of unsaved hits."""
    unsaved_exact: tuple[str, ...]
    mean: float
    """Unsaved hits expected."""
    p_at_least_one: str
    """The exact chance of at least one unsaved hit."""


@lru_cache(maxsize=1024)
def _fire_odds(dice: int, need: int, save_need: int | None) -> _FireOdds:
    """The hits of `dice` D6 hitting on `need`+, and the hits left when each is saved on
    `save_need`+ (None: no save): a pure function of three small numbers, so worked out
    once (a `suggest` shows the odds of a hundred shots of a few kinds)."""
    hits = dice_math.successes(dice, 6, need)
    p_hit = dice_math.p_at_least(6, need)
    p_save = Fraction(0) if save_need is None else dice_math.p_at_least(6, save_need)
    unsaved = dice_math.binomial(dice, p_hit * (1 - p_save))
    return _FireOdds(
        tuple(dice_math.as_floats(hits)),
        tuple(_exact(hits)),
        tuple(dice_math.as_floats(unsaved)),
        tuple(_exact(unsaved)),
        float(dice_math.mean(unsaved)),
        str(1 - unsaved[0]),
    )


@lru_cache(maxsize=256)
def _success_odds(dice: int, need: int) -> tuple[float, str, tuple[float, ...]]:
    """The chance of one D6 showing `need`+ (float and exact) and the distribution of
    successes of `dice` of them: pure, so worked out once."""
    p = dice_math.p_at_least(6, need)
    return float(p), str(p), tuple(dice_math.as_floats(dice_math.successes(dice, 6, need)))


def _success_json(purpose: str, dice: int, need: int, cite: Cite, note: str) -> dict[str, Any]:
    """`Roll.success_roll(purpose, dice, 6, need, cite=cite, note=note).as_json()`, from the
    remembered odds (`_success_odds`), in fresh containers."""
    p, exact, distribution = _success_odds(dice, need)
    return {
        "purpose": purpose,
        "dice": dice,
        "sides": 6,
        "need": need,
        "p_success": p,
        "p_success_exact": exact,
        "distribution": list(distribution),
        "modifiers": [],
        "source": str(cite),
        "note": note,
    }


def _no_shot_opening(scene: Scene, firer: Unit, target: Unit, nearest: float) -> str:
    """The first line of a shot that is not allowed."""
    return f"{firer.id} fires at {target.id}: {_fmt(scene, nearest)} edge to edge at the nearest"


def _why_no_shot(shots: Sequence[_Shot]) -> dict[str, Any]:
    if not any(s.in_range for s in shots):
        return _reason("out of range", WEAPONS_RANGE_CITE)
    if not any(s.in_arc for s in shots):
        return _reason("no base of the target within 45 degrees of a firing base's front", ARC_CITE)
    return _reason(
        "no line of sight from any base in range and arc",
        _cite(76, "Level fire any obstruction blocks LOS"),
    )


def _save(table: Table, weapon: Weapon, target: Unit, aimed: Base) -> tuple[int | None, str, Cite]:
    """The saving roll (lines 91-96): the target's terrain, the weapon, the target formation."""
    woods = _in_kinds(table, aimed, WOODS_TOWNS)
    terrain = "woods-towns" if woods else "open"
    if weapon.breech_loader:
        kind, formation = _type(target), _formation(target)
        spread = kind == "skirmishers" or formation in ("line", "unlimbered")
        column = "sk-ln" if spread else "dgns-col"
    else:
        column = "all-else"
    values, cite = SAVES[terrain]
    where = f"{aimed.id} stands in {woods[0]}" if woods else f"{aimed.id} stands in the open"
    return values[column], f"{where}, {SAVE_COLUMNS[column][0]}", cite


def _move_row(unit: Unit) -> str:
    kind = _type(unit)
    if kind == "infantry":
        return "infantry-close" if _order(unit) == "close" else "infantry-loose"
    return kind


def _standing_column(table: Table, unit: Unit) -> tuple[str, str]:
    """The slowest movement column of the terrain the unit's bases stand in (open if none),
    and why."""
    woods: list[str] = []
    streams: list[str] = []
    for base in unit.bases:
        kinds = {s.terrain.kind: s.terrain.id for s in table.standing(base)}
        woods += [i for k, i in kinds.items() if k in WOODS_TOWNS]
        if TerrainKind.BRIDGE not in kinds:
            streams += [i for k, i in kinds.items() if k in STREAMS]
    if woods:
        return "woods-towns", f"stands in {', '.join(sorted(set(woods)))}"
    if streams:
        return "stream", f"stands in {', '.join(sorted(set(streams)))}"
    return "open", "stands in the open"


def _road_check(table: Table, unit: Unit) -> tuple[bool, str, Any] | None:
    """Whether the road rate applies (line 52); None when the unit is not on a road."""
    if not all(_in_kinds(table, b, ROADS) for b in unit.bases):
        return None
    enemies = [b for u in table.scene.units if u.side != unit.side for b in u.bases]
    if not enemies:
        return True, "every base is on the road and no enemy is on the table", None
    near = table.closest(unit.bases, enemies)
    t = Threshold(near.distance, ROAD_ENEMY_CM * MM_PER_CM, table.uncertainty(near.a, near.b))
    far = near.distance >= t.limit
    text = (
        f"nearest enemy {near.b.id} is {_fmt(table.scene, near.distance)} away, "
        + ("at least" if far else "under")
        + f" {ROAD_ENEMY_CM} cm"
        + (" (too close to call)" if t.too_close_to_call else "")
    )
    return far, text, threshold_json(table.scene, t)


def _charge_allowance(table: Table, attacker: Unit, target: Unit) -> tuple[float | None, str, str]:
    """The move (mm) a charge may use: the slower terrain of attacker and target (never road)."""
    row = MOVE_TABLE[_move_row(attacker)]
    own, _ = _standing_column(table, attacker)
    theirs, _ = _standing_column(table, target)
    order = ("open", "stream", "woods-towns")
    column = max(own, theirs, key=order.index)
    cm = row.cm[MOVE_COLUMNS.index(column)]
    if cm is None:
        return None, column, f"{row.label} may not move in {column} (N/A)"
    return cm * MM_PER_CM, column, ""


def _melee_row(unit: Unit, charging: bool) -> str:
    kind = _type(unit)
    if kind == "cavalry":
        return "cavalry"
    if kind in ("skirmishers", "artillery"):
        return "skirmishers-artillery"
    return f"{'charging' if charging else 'defending'}-{kind}"


def _melee_column(unit: Unit) -> str:
    kind = _type(unit)
    if kind == "infantry":
        return f"infantry-{_formation(unit)}"
    if kind in ("skirmishers", "artillery"):
        return "skirmishers-artillery"
    return kind


def _loser_fate(unit: Unit) -> str:
    if _type(unit) == "artillery":
        return f"is eliminated ({ARTILLERY_CITE})"
    return (
        f"retreats {RETREAT_CM} cm facing the enemy, eliminated if the retreat is blocked "
        f"({BLOCKED_CITE})"
    )


def _river_between(table: Table, attacker: Base, defender: Base) -> str | None:
    """A stream or river the line between the two centres crosses, if any."""
    a, b = (attacker.x, attacker.y), (defender.x, defender.y)
    for piece in table.scene.terrain:
        if piece.kind in STREAMS:
            obstacle = geo.Obstacle(piece.id, np.asarray(piece.polygon, dtype=float))
            if geo.length_inside(a, b, obstacle)[0] > geo.EPS:
                return piece.id
    return None


@lru_cache(maxsize=8)
def _mean_command_score(column: int) -> str:
    """The mean score of the command roll in a column of the table (lines 147-149), exact:
    each row is two faces of the D6, a third. Pure, so worked out once per column."""
    scores: dict[int, Fraction] = {}
    for _, values, _ in COMMAND_ROWS:
        scores[values[column]] = scores.get(values[column], Fraction(0)) + Fraction(1, 3)
    return str(sum((s * p for s, p in scores.items()), Fraction(0)))


def _game_size(scene: Scene, given: str | None) -> tuple[str, str]:
    """Standard or mini game: the argument, else the scene's `game_size`, else standard."""
    if given is not None:
        if given not in GAME_SIZES:
            raise QuestionError(
                f"{RULESET_ID}: game size {given!r}; accepted values are {accepted(GAME_SIZES)}"
            )
        return given, "as asked"
    value = scene.extra.get("game_size")
    if value is None:
        return "standard", "the scene gives no game_size, so the standard game"
    if value not in GAME_SIZES:
        raise QuestionError(
            f"{RULESET_ID}: the scene's game_size is {value!r}; accepted values are "
            f"{accepted(GAME_SIZES)}"
        )
    return str(value), "the scene's game_size"


def _done_moving(unit: Unit) -> bool:
    """The unit charged (its move to contact, line 38) or moved this turn."""
    return _flag(unit, "moved") or _flag(unit, "charged")


def _who_attacks(a: Unit, b: Unit) -> tuple[Unit, Unit, str]:
    """The attacker of a melee in contact: the unit marked `charged`."""
    a_charged, b_charged = _flag(a, "charged"), _flag(b, "charged")
    if b_charged and not a_charged:
        return b, a, ""
    if a_charged and not b_charged:
        return a, b, ""
    return a, b, f"neither or both marked charged: {a.id} taken as the attacker"


def _item(
    kind: str, args: Iterable[str], res: Resolution, phase: str | None, note: str = ""
) -> dict[str, Any]:
    summary = res.lines[0] + (f" ({note})" if note else "")
    return {
        "kind": kind,
        "args": list(args),
        "phase": phase,
        "summary": summary,
        "result": res.as_json(),
    }
