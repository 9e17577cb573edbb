"""skirmish-19c: "19th Century rules: QRS" (rules/sheets/000_157c880a83b52d41.txt), in cm.

A figure-level skirmish game: each base is a figure (or a few), groups shoot with a D8 each by
range band and cover, player characters (PCs) dice for command points, and every group dices on
the risk-factor actions table. Never imports cv2, flask or `vision`.

Attributes read (unit unless said; the sheet's words, lower-case, hyphens):
- `type`: `infantry`, `cavalry` or `civilians` (civilians go on foot; the sheet has only an
  infantry and a cavalry actions table, so civilians use the infantry one).
- `quality`: `hero`, `veteran` or `raw` (lines 93-95). "Good troops" (line 162) are veterans and
  heroes; a "Poor unit" (line 166) is raw.
- `weapon`: `rifle`, `rifled-musket` (a Minie rifle: the Rifles row), `baker-rifle` (the Rifles
  row, fires 1 per 3 / 1 per 4, line 36), `musket`, `pistol`, `partisan`, `sword`, `hatchet`,
  `knife`, `rocks` (lines 10-16).
- base `role`: `officer`, `leader`, `commander` and `hero` are command figures, and command
  figures are the player characters (line 84: PCs dice for command points; line 99: command
  figures command). `nco`, `drummer`, `bugler`, `standard-bearer` are other roles. A unit is a
  PC when every base of it is a command figure (a lone officer or hero).
- Declared in `UNIT_FIELDS` (the engine fills in defaults, checks values and names typos):
  - descriptions, required where a rule reads them (missing ones are named together):
    `type`, `quality`, `weapon`, `regular` (infantry risk, line 120), `bayonet` (melee with
    rifles and muskets, line 10); and `formation` (`line`, `column`, `skirmish`, `square`,
    `circle`: state the group is set up in, read for infantry risk with shock cavalry within
    50 cm, line 128; a lone figure or a PC forms no square and is not asked for one);
  - descriptions that mark an exception, defaulted: `loyal` (true; false = disloyal, line
    103), `heavy_armour` (false, line 107); optional: `platoon` (a name shared by the groups of
    one platoon, line 143), `strength` (figures the group started with; else the figures on
    the table plus `casualties`);
  - the state of play, defaulted at the start of a game: `casualties` 0 and `wounded` 0
    (figures killed; figures wounded still on the table), `status` `steady` (`running`,
    `retreating`, `falling-back`, `routing`), `loaded` false (line 24: troops spend a turn
    halted to load before a turn in which they fire, and the sheet does not say they start
    loaded); per turn (back to false at the start of each turn): `commanded` (line 84: the
    units under command are determined each turn), `moved`, `fired` and `loading` (line 95).
- Terrain: cover and enclosure as the scene says, else the engine's defaults; a terrain piece
  may say `"difficult": true/false`, else woods, rough ground, streams and rivers are difficult
  going; hedges, walls and fences are low barriers (line 111).

Readings of the sheet:
- Sight (line 55): "figures can see the entire base of a figure without obstruction, unless
  shooting over an object or person within 2 cms": a target is in sight only when every sight
  line from the viewer's centre to the target's centre and corners is clear; other bases block,
  except bases within 2 cm (edge to edge) of the viewer.
- Woods (line 57): "shot at in, or from, woods up to 10cms inside": a sight line may run up to
  10 cm into the woods at each end that stands in them; woods between two figures block.
- Woods (line 63): "Visibility is 20 cms within woods": two figures whose centres both stand in
  one wood see each other when at most 20 cm apart (edge to edge, as every distance), however
  deep in it they are: that wood does not block the lines between them (other figures and
  other terrain still do); farther apart they do not see each other, however the lines run.
- Figures in terrain (line 61): "Figures in terrain are seen at D6 x 10cms range if within
  10cms of the edge, or if they fire, or are in plain sight." A figure is in terrain when its
  centre stands in woods, a town or a building (the pieces that hide a figure; on a hill, in
  rough ground or a stream, behind a hedge it is in the open), and the line applies to viewers
  outside that piece (inside one wood line 63 rules). Such a figure is seen at all only when it
  stands within 10 cm of the piece's edge (its base's nearest point; line 57 says the same of
  woods) or its group has fired this turn (`fired`), and then only at D6 x 10 cm: beyond 60 cm
  it is not in sight, and a shot at it needs the spotting D6 to reach the distance first
  (`spotting` in the answer: a D6 needing the face whose 10 cm reach it; the hits shown are
  those of a shot at a figure spotted). Every other question ("in sight" of the risk factors,
  the nearest target) counts the figure seen when it may be spotted. "Or are in plain sight"
  is read as the figures a piece does not hide: a piece the scene says gives no cover (`cover:
  none`: ruins, a village green) hides nobody.
- Sight is traced as `geometry.sight` traces it (the same obstacles, the same answer), but for a
  viewer against every figure of a target group in one vectorised call (`Board.sees`).
- Towns, buildings and hills block sight across them; a figure sees out of the piece it stands
  in (the sheet is silent; this is the usual club reading).
- Range bands (lines 10-16): a band reaches up to and including its figure (30 cm is short for a
  rifle); the group's range is measured between the nearest figures that see each other.
- Shooters (lines 29-36): commanded groups and PCs fire every figure that sees a target if
  loaded; others fire one per whole 2 (stationary) or 3 (moving) figures that see a target,
  rounded down, Baker rifles one per 3 or 4. Non-gunpowder weapons (partisans, hatchets, knives,
  rocks) need no loading.
- Cover is the best cover of the nearest target figure in sight (`Table.cover`): the terrain
  holding its centre, or a hedge, wall or fence it is close behind.
- Damage (lines 45-49): a modified D6 below 1 reads as 1 and above 6 as 6.
- Allocation (line 53): officers, NCOs and leaders of the target's side within 5 cm of the
  target group join it; hits go among its nearest 10 figures to the shooting group.
- Command (line 99): the distance is 25 cm when the command figure OR the commanded figure
  stands (centre) in enclosed terrain, else 50 cm: a voice carries no further into a wood than
  out of it. The contract's `radius` is the command figure's own (by the terrain it stands in).
  Activation dice are summed for command points (line 84); loyal figures cost 1 point, disloyal
  figures and routers 2. "-1 Dice if Officer loading/Firing or in Melee" counts once.
- Risk (lines 117-130 infantry, 160-171 cavalry): "No enemy, or friends retreating, in sight"
  scores -4 when neither an enemy nor a retreating, running or routing friendly group is in
  sight. "Raw unit in range of any enemy unit in sight" (and the cavalry's "Poor unit") scores
  when some enemy group in sight has the unit within its weapon's long range, as the line above
  it. "Good troops or Officer" scores -1 once. Shock cavalry are cavalry armed with swords or
  partisans (lances). A group is entirely in cover when every figure stands entirely inside
  terrain that gives cover, or is behind a hedge, wall or fence against the nearest enemy.
  "Per 10%" is whole tenths of the starting strength wounded or killed, rounded down. The sheet
  lists no modifier of the D6, so the roll is plain and the RF picks the row; "Up to RF0" is
  every RF of 0 or below.
- The infantry actions table (lines 150-154) prints seven cells under six faces in every row;
  each row has one cell printed twice side by side (the extraction doubled it), and read with
  one copy dropped every row matches the cavalry table's pattern cell for cell. Where the two
  copies differ in italics ("Move to take cover..." in RF6-8 and RF9+) the italic one is kept,
  as the cavalry table has "Walk to take cover..." in italics in the same places and RF2-5 puts
  it in italics after the forced moves.
- The sequence of play (lines 84-89): side A is every side with a player character, side B the
  others. Phases: `command` (command points, and side A's units on the actions table),
  `move-a`, `shoot-a`, `actions-b` (side B on the actions table), `shoot-b`, `melee`.
- Melee (lines 67-80): figures are in base contact when their bases touch (a gap no wider than
  the measurement's uncertainty counts, flagged `too close to call`); each figure fights one
  matched opponent (a maximum matching), and the figures left over join, one each, the opponent
  they touch with the fewest assailants so far. A figure facing two assailants throws one die
  against each. Enemies in contact count from every enemy group.
- Movement (lines 107-111): wounded figures slow the whole group to 20 cm; heavy armour means
  15 cm. Cavalry move up to 60 cm (gallop); a move between 45 and 50 cm falls in no band of the
  sheet. A barrier costs a quarter of the group's full move. A move to a target runs straight
  from the mover's nearest figure; the length of that centre line inside difficult going (at
  most the whole move) counts twice.
- Outcomes (what the players' dice change):
  - shoot: the hits (lines 40-43), then of those the kills and wounds read off each hit's
    damage D6 (lines 45-49), and which figures of the allocation (line 53) are taken off: a
    base goes when every figure on it is killed, so with one figure a base the bases taken
    off are the kills. Kills add to `casualties` (an officer who had joined the group counts
    in his own group's), wounds to `wounded` (of the target group, at most its figures left);
    the shooter has `fired`. Firing leaves `loaded` as it is: line 24 lets loaded troops
    "still shoot in any subsequent turn".
  - melee: which group had the worse results, or drawn (line 80), and each side's figures
    killed (an opponent's winning natural 6) and wounded (a natural 5, line 78), one hit at
    most a fight. The worse group, or both if drawn, moves back 5 cm: its `status` becomes
    `retreating`, the "retreating as a result of melee" of line 130 (+3 at its next risk).
  - risk: the row (the risk factor's, which the players may change when a factor was too
    close to call) and the D6 face; the cell sets `status`: `running` after "Run from ..." or
    "Flee at Gallop ...", `falling-back` after a withdrawal, a canter away or a move to cover,
    `steady` after a halt or an advance; "Continue current actions" keeps the status, but a
    group falling back halts on a 5 or 6 of the RF0 row (lines 150, 193), and a retreat after
    melee (one move back) is over. A commanded group or a PC ignores a cell in italics (lines
    141, 182). Groups `running` (or `routing`) are the "Routers" of line 103: 2 pts a figure.
  - command: the command points thrown (the activation dice summed, line 84) and which groups
    in command distance they activate (1 pt a loyal figure, 2 a disloyal one or a router,
    lines 101-103); each group chosen becomes `commanded` for the turn. A group with some
    figures beyond the distance costs its figures within it.
  - charge and move: no dice; the group has `moved` (a charge only when it is allowed).
- Suggestions: side A's commanded groups and PCs may charge every enemy within a move (line
  69); any other group is offered a charge at its nearest enemy within a move, for a
  "(Charge?)" result (line 67); side B's groups move in their actions phase (line 87).
- Platoons (lines 143, 186): a group stays with its platoon when all groups of the platoon are
  linked by gaps of at most 5 cm and an officer or NCO of the side is within 5 cm of one of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from calibration.units import format_length

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
from ..scene import Base, Cover, Scene, Terrain, TerrainKind, Unit
from ..state import Change, Field, Kind, Phase, Report, Scope

SHEET = "000_157c880a83b52d41.txt"
RULESET = "skirmish-19c"
OVER_FIGURES_WITHIN_MM = 20.0
"""Line 55: a shooter may shoot over an object or person within 2 cm."""


def cite(line: int, text: str) -> Cite:
    return Cite(SHEET, line, text)


# --------------------------------------------------------------------------------------------
# The sheet's tables


@dataclass(frozen=True, slots=True)
class Weapon:
    """One row of the weapons table (lines 9-16). Ranges in mm, None where the sheet has '-'."""

    row: str
    short: float | None
    medium: float | None
    long: float | None
    melee: int
    bayonet_melee: int | None
    """The melee factor with a bayonet, for the rows that say "(3 with Bayonet)"."""
    gunpowder: bool
    """Line 48: gunpowder weapons use the first damage row."""
    cite: Cite

    @property
    def bands(self) -> tuple[tuple[str, float], ...]:
        """(band, upper limit in mm) from short to long; empty for a weapon that cannot shoot."""
        if self.short is None or self.medium is None or self.long is None:
            return ()
        return (("short", self.short), ("medium", self.medium), ("long", self.long))


_RIFLES = cite(10, "Rifles 30 cms 90 cms 180 cms 2 (3 with Bayonet)")
_HATCHET = cite(15, "Hatchet / Knife. 5 cms 10 cms 20 cms 2")
WEAPONS: MappingProxyType[str, Weapon] = MappingProxyType(
    {
        "rifle": Weapon("Rifles", 300, 900, 1800, 2, 3, True, _RIFLES),
        "rifled-musket": Weapon("Rifles", 300, 900, 1800, 2, 3, True, _RIFLES),
        "baker-rifle": Weapon("Rifles", 300, 900, 1800, 2, 3, True, _RIFLES),
        "musket": Weapon(
            "Muskets", 200, 400, 1200, 2, 3, True, cite(11, "Muskets 20 cms 40 cms 120 cms")
        ),
        "pistol": Weapon("Pistols", 40, 80, 200, 1, None, True, cite(12, "Pistols 4 cms 8 cms")),
        "partisan": Weapon(
            "Partisans etc", 80, 120, 240, 3, None, False, cite(13, "Partisans etc 8 cms 12 cms")
        ),
        "sword": Weapon("Swords", None, None, None, 3, None, False, cite(14, "Swords - - - 3")),
        "hatchet": Weapon("Hatchet / Knife", 50, 100, 200, 2, None, False, _HATCHET),
        "knife": Weapon("Hatchet / Knife", 50, 100, 200, 2, None, False, _HATCHET),
        "rocks": Weapon("Rocks etc", 40, 80, 200, 1, None, False, cite(16, "Rocks etc 4 cms")),
    }
)
SHOCK_WEAPONS = frozenset({"sword", "partisan"})
"""Cavalry with these are the "Shock Cavalry" of line 128 (reading in the docstring)."""

TO_HIT: MappingProxyType[str, tuple[Cite, MappingProxyType[Cover, int]]] = MappingProxyType(
    {
        "short": (
            cite(41, "Short Range 2 4 6"),
            MappingProxyType({Cover.NONE: 2, Cover.SOFT: 4, Cover.HARD: 6}),
        ),
        "medium": (
            cite(42, "Medium Range 4 6 7"),
            MappingProxyType({Cover.NONE: 4, Cover.SOFT: 6, Cover.HARD: 7}),
        ),
        "long": (
            cite(43, "Long Range 6 7 8"),
            MappingProxyType({Cover.NONE: 6, Cover.SOFT: 7, Cover.HARD: 8}),
        ),
    }
)
"""Line 40: "To Hit: Throw a D8" by band and Open / Soft cover / Hard Cover."""
TO_HIT_HEADER = cite(40, "To Hit: Throw a D8")

DAMAGE_ROWS: MappingProxyType[bool, tuple[Cite, tuple[str, ...]]] = MappingProxyType(
    {
        True: (
            cite(48, "Gunpowder weapons Graze Graze Wound Wound Kill Kill"),
            ("graze", "graze", "wound", "wound", "kill", "kill"),
        ),
        False: (
            cite(49, "Other Graze Graze Graze Wound Wound Kill"),
            ("graze", "graze", "graze", "wound", "wound", "kill"),
        ),
    }
)
DAMAGE_HERO = cite(45, "+1 to die roll if Hero")
DAMAGE_RAW = cite(45, "-1 to die roll if Raw shooters")

RATIO_CITES = MappingProxyType(
    {
        ("stationary", False): (2, cite(33, "Stationary troops: 1 per 2 figures may shoot")),
        ("moving", False): (3, cite(34, "Moving troops: 1 per 3 figures may shoot")),
        ("stationary", True): (3, cite(36, "Baker rifles and similar fire 1 per 3 if stationary")),
        ("moving", True): (4, cite(36, "1 per 4 if moving")),
    }
)
"""(how, Baker rifle) -> (one shooter per so many figures, where)."""
ALL_FIRE = cite(29, "All commanded troops may fire if loaded")
LOADING = cite(24, "Commanded troops must spend a turn halted to load muzzle loaded weapons")
NON_MINIE = cite(25, "Non – Minie rifles must remain halted for 1 ½ turns to load")
NEAREST_ONLY = cite(38, "Uncommanded troops only shoot at the nearest enemy they can hit")
PC_TARGETS = cite(51, "player characters, who may shoot at any figure they wish in clear sight")
NEAREST_TEN = cite(53, "allocate hits among the nearest 10 figures to the shooting group")
LEADERS_JOIN = cite(53, "considered part of the nearest group within 5 cms of them")
SIGHT_ENTIRE = cite(55, "can see the entire base of a figure without obstruction")
SPOTTING = cite(61, "Figures in terrain are seen at D6 x 10cms range")
SPOTTED_NEAR_EDGE = cite(61, "if within 10cms of the edge, or if they fire")
WOODS_VISIBILITY = cite(63, "Visibility is 20 cms within woods")
WOODS_VISIBILITY_MM = 200.0
HIDING_KINDS = frozenset({TerrainKind.WOODS, TerrainKind.TOWN, TerrainKind.BUILDING})
"""Line 61's "terrain" (reading in the docstring)."""
HIDDEN_EDGE_MM = 100.0
SPOTTING_STEP_MM, SPOTTING_FACES = 100.0, 6
ALLOCATE_AMONG = 10
LEADER_JOIN_MM = 50.0

ACTIVATION: MappingProxyType[str, tuple[int, Cite]] = MappingProxyType(
    {
        "hero": (4, cite(93, "Heroes throw 4D6 a turn.")),
        "veteran": (3, cite(94, "Veterans throw 3D6 a turn.")),
        "raw": (2, cite(95, "Raw figures throw 2D6.")),
    }
)
ACTIVATION_BUSY = cite(95, "- 1 Dice if Officer loading/Firing or in Melee")
ACTIVATION_DRUMMER = cite(97, "Throw an extra D6 if at least 1 Drummer and/or Bugler is commanded")
COMMAND_OPEN_MM, COMMAND_ENCLOSED_MM = 500.0, 250.0
COMMAND_DISTANCE = cite(99, "Command distance is 50cms in the open, 25cms in enclosed terrain")
LOYAL_COST = (1, cite(101, "Loyal figures require 1 pt to activate them."))
DISLOYAL_COST = (2, cite(103, "Disloyal figures and Routers require 2 pts to activate them."))
COMMAND_POINTS = cite(84, "Player Characters dice for Command points")

FOOT_MOVE = (250.0, cite(107, "Foot Figures may move a maximum of 25 cms a turn"))
WOUNDED_MOVE = (200.0, cite(107, "wounded men and civilians may only move 20cms"))
ARMOUR_MOVE = (150.0, cite(107, "15 cms if in heavy armour/clothing"))
CAVALRY_PACES: tuple[tuple[str, float, float, Cite], ...] = (
    ("walk", 50.0, 300.0, cite(109, "Cavalry walk at 5-30cms")),
    ("trot", 310.0, 450.0, cite(109, "Trot at 31-45cms")),
    ("gallop", 500.0, 600.0, cite(109, "Gallop at 50-60cms")),
)
DIFFICULT_GOING = cite(111, "Difficult going counts double the distance")
BARRIER = cite(111, "it takes ¼ move to clear a low barrier (Fallen tree etc) or fence")
DIFFICULT_KINDS = frozenset(
    {TerrainKind.WOODS, TerrainKind.ROUGH, TerrainKind.STREAM, TerrainKind.RIVER}
)
BARRIER_KINDS = frozenset({TerrainKind.HEDGE, TerrainKind.WALL, TerrainKind.FENCE})
PLATOON_MM = 50.0
PLATOON_RULE = MappingProxyType(
    {
        "infantry": cite(143, "will always stay in company with the first group in their platoon"),
        "cavalry": cite(186, "Uncommanded Formed units Dice once for all the groups"),
    }
)
CHARGE_WHO = cite(69, "Player Characters and Commanded troops may charge if in reach")
CHARGE_NEAREST = cite(67, "It moves to contact the nearest enemy figures in reach")

MATCHING = cite(67, "Figures are matched as evenly as possible")
MELEE_DIE = cite(71, "each figure throws a D6")
MELEE_RAW = cite(72, "-1 if Raw, or per enemy over 1 in base to base contact with him")
MELEE_HERO = cite(73, "+1 If a Hero.")
MELEE_FACTOR = cite(74, "+1 If have a better Melee Factor weapon than all your opponents")
MELEE_HITS = cite(78, "wounds an opponent if his die naturally rolled a 5")
MELEE_BACK = cite(80, "is moved back 5cms")
MELEE_BACK_MM = 50.0

# Risk factors: (key, value, reason, cite), one list per actions table.
RISK_FACTORS: MappingProxyType[str, MappingProxyType[str, tuple[int, Cite]]] = MappingProxyType(
    {
        "infantry": MappingProxyType(
            {
                "no-enemy": (-4, cite(117, "No enemy, or friends retreating, in sight.")),
                "hero": (-1, cite(119, "Hero within 5 cms of unit.")),
                "regulars": (-1, cite(120, "Unit formed of regulars")),
                "cover": (-1, cite(121, "Unit entirely in cover.")),
                "in-range": (1, cite(123, "Enemy in sight and within their weapons range")),
                "raw": (1, cite(124, "Raw unit in range of any enemy unit in sight.")),
                "losses": (1, cite(125, "Per 10% of group wounded or killed")),
                "flank": (2, cite(127, "Enemy to flank or rear and in sight.")),
                "shock-cavalry": (
                    2,
                    cite(128, "Infantry not in square/circle facing Shock Cavalry within 50cms"),
                ),
                "running": (3, cite(130, "If running from enemy last turn, or retreating")),
            }
        ),
        "cavalry": MappingProxyType(
            {
                "no-enemy": (-4, cite(160, "No enemy, or friends retreating, in sight.")),
                "good": (-1, cite(162, "Good troops or Officer.")),
                "cover": (-1, cite(163, "Unit entirely in cover.")),
                "in-range": (1, cite(165, "Any enemy in sight and within their weapons range")),
                "raw": (1, cite(166, "Poor unit in range of any enemy unit in sight.")),
                "losses": (1, cite(167, "Per 10% of group wounded or killed")),
                "flank": (2, cite(169, "Enemy to flank or rear and in sight.")),
                "running": (3, cite(171, "If running from enemy last turn, or retreating")),
            }
        ),
    }
)
HERO_NEAR_MM = 50.0
SHOCK_CAVALRY_MM = 500.0
ITALICS = MappingProxyType(
    {
        "infantry": cite(141, "ignore shooting and movement instructions written in *Italics*"),
        "cavalry": cite(182, "ignore shooting and movement instructions written in *Italics*"),
    }
)
ROW_LABELS = ("RF0", "RF1", "RF2-5", "RF6-8", "RF9+")


@dataclass(frozen=True, slots=True)
class Outcome:
    """One face of one row of an actions table."""

    face: int
    text: str
    italic: bool
    """Printed in italics: commanded troops and PCs ignore it when it is about shooting or
    movement (lines 141, 182)."""
    cite: Cite
    note: str = ""

    @property
    def charge(self) -> bool:
        """The cell ends in '(Charge?)': the group may charge the nearest enemy in reach."""
        return "(Charge?)" in self.text

    def as_json(self) -> dict[str, Any]:
        return {
            "face": self.face,
            "text": self.text,
            "italic": self.italic,
            "charge": self.charge,
            "probability": "1/6",
            "source": str(self.cite),
            "note": self.note,
        }


def _row(
    line: int, quote: str, cells: Sequence[tuple[str, bool]], notes: Sequence[str] = ()
) -> tuple[Outcome, ...]:
    c = cite(line, quote)
    padded = list(notes) + [""] * (6 - len(notes))
    return tuple(
        Outcome(face, text, italic, c, padded[face - 1])
        for face, (text, italic) in enumerate(cells, start=1)
    )


_CONT = "Continue current actions"
_CONT_N = "Continue current actions facing the nearest enemy"
_CONT_C = "Continue current actions facing the nearest enemy (Charge?)"
_HALT = "Halt in position facing the nearest enemy"
_COVER_I = "Move to take cover in the nearest terrain within 1 move, or away from all enemies"
_COVER_C = (
    "Walk to take cover in the nearest accessible terrain within 1 move, or away from all enemies"
)
_WITHDRAW = "Withdraw towards cover further from enemy"
_RUN = "Run from nearest enemy"
_CANTER = "Canter further from the nearest enemy"
_FLEE = "Flee at Gallop from nearest enemy"
_FALLING_BACK_I = (
    "; units falling back away from the enemy will halt in the nearest cover facing the last "
    "known enemy position"
)
_FALLING_BACK_C = (
    "; units falling back away from the enemy will halt facing the last known enemy position"
)
_DOUBLED = "the sheet prints this cell twice in this row (see the module docstring)"
_DOUBLED_ITALIC = "printed twice, once plain and once in italics; read in italics (docstring)"

ACTIONS_TABLE: MappingProxyType[str, MappingProxyType[str, tuple[Outcome, ...]]] = MappingProxyType(
    {
        "infantry": MappingProxyType(
            {
                "RF0": _row(
                    150,
                    "unless a 6 (D6) is thrown, in which case they will move towards the "
                    "nearest visible enemy",
                    [(_CONT, False)] * 4
                    + [
                        (_CONT + _FALLING_BACK_I, False),
                        (
                            "Move towards the nearest visible enemy (not from fortified "
                            "positions they are defending)" + _FALLING_BACK_I,
                            False,
                        ),
                    ],
                ),
                "RF1": _row(
                    151,
                    "RF1 Move to take cover in the nearest terrain within 1 move",
                    [(_COVER_I, False), (_HALT, True)]
                    + [(_CONT_C, True)] * 3
                    + [("Advance towards nearest enemy (Charge?)", True)],
                    ["", "", _DOUBLED, _DOUBLED, _DOUBLED],
                ),
                "RF2-5": _row(
                    152,
                    "RF2-5 Withdraw towards cover further from enemy",
                    [(_WITHDRAW, False), (_COVER_I, True), (_HALT, True)]
                    + [(_CONT_C, True)] * 2
                    + [("Advance towards nearest enemy (Charge?)", True)],
                    ["", "", "", _DOUBLED, _DOUBLED],
                ),
                "RF6-8": _row(
                    153,
                    "RF6-8 Run from nearest enemy Withdraw towards cover further from enemy",
                    [(_RUN, False), (_WITHDRAW, False), (_COVER_I, True), (_HALT, True)]
                    + [(_CONT_C, True)] * 2,
                    ["", "", _DOUBLED_ITALIC],
                ),
                "RF9+": _row(
                    154,
                    "RF9+ Run from nearest enemy Run from nearest enemy",
                    [(_RUN, False), (_RUN, False), (_WITHDRAW, False), (_COVER_I, True)]
                    + [(_HALT, True)] * 2,
                    ["", "", "", _DOUBLED_ITALIC],
                ),
            }
        ),
        "cavalry": MappingProxyType(
            {
                "RF0": _row(
                    193,
                    "Up to RF0 Continue current actions Units falling back away from the enemy",
                    [(_CONT, False)] * 4 + [(_CONT + _FALLING_BACK_C, False)] * 2,
                ),
                "RF1": _row(
                    194,
                    "Advance towards nearest enemy at gallop (Charge?)",
                    [(_COVER_C, True), (_HALT, True), (_CONT_N, True)]
                    + [(_CONT_C, True)] * 2
                    + [("Advance towards nearest enemy at gallop (Charge?)", True)],
                ),
                "RF2-5": _row(
                    195,
                    "RF2-5 Canter further from the nearest enemy",
                    [
                        (_CANTER, False),
                        (_COVER_C, True),
                        (_HALT, True),
                        (_CONT_N, True),
                        (_CONT_C, True),
                        ("Advance towards nearest enemy at gallop (Charge?)", True),
                    ],
                ),
                "RF6-8": _row(
                    196,
                    "RF6-8 Flee at Gallop from nearest enemy Canter further from the nearest",
                    [
                        (_FLEE, False),
                        (_CANTER, False),
                        (_COVER_C, True),
                        (_HALT, True),
                        (_CONT_N, True),
                        (_CONT_C, True),
                    ],
                ),
                "RF9+": _row(
                    197,
                    "RF9+ Flee at Gallop from nearest enemy Flee at Gallop from nearest enemy",
                    [(_FLEE, False), (_FLEE, False), (_CANTER, False), (_COVER_C, True)]
                    + [(_HALT, True)] * 2,
                ),
            }
        ),
    }
)


@lru_cache(maxsize=16)
def outcomes_json(kind: str, label: str) -> tuple[dict[str, Any], ...]:
    """`Outcome.as_json` of a row of an actions table, worked out once per row (every risk
    answer shows its row). Shared: an answer copies each dict, and no one changes them."""
    return tuple(o.as_json() for o in ACTIONS_TABLE[kind][label])


@lru_cache(maxsize=16)
def actions_roll_json(kind: str, label: str) -> dict[str, Any]:
    """The JSON of the D6 thrown on a row of an actions table, worked out once per row."""
    return Roll(
        "actions",
        1,
        6,
        None,
        cite=ACTIONS_TABLE[kind][label][0].cite,
        note="cross-reference the row with the D6",
    ).as_json()


PHASES = ("command", "move-a", "shoot-a", "actions-b", "shoot-b", "melee")
PHASE_CITES = MappingProxyType(
    {
        "command": cite(84, "Player Characters dice for Command points"),
        "move-a": cite(85, "Move all the P.C.s side's actions."),
        "shoot-a": cite(86, "Calculate any shooting by Side 'A's units."),
        "actions-b": cite(87, "Dice and move Side 'B's units according to the Actions table"),
        "shoot-b": cite(88, "Calculate shooting by side 'B's units"),
        "melee": cite(89, "Calculate all melees, and record casualties from melee"),
    }
)

PHASE_STEPS = (
    Phase(
        "command",
        "Player characters dice for command points and choose the groups they command; then "
        "side A's groups dice on the actions table",
        "A",
        PHASE_CITES["command"],
    ),
    Phase("move-a", "Side A moves (and charges)", "A", PHASE_CITES["move-a"]),
    Phase("shoot-a", "Side A shoots", "A", PHASE_CITES["shoot-a"]),
    Phase(
        "actions-b",
        "Side B's groups dice on the actions table and move as it says",
        "B",
        PHASE_CITES["actions-b"],
    ),
    Phase("shoot-b", "Side B shoots", "B", PHASE_CITES["shoot-b"]),
    Phase("melee", "Every melee is fought; casualties are recorded", "all", PHASE_CITES["melee"]),
)
SIDES_RULE = (
    "side A is every side with a player character (a figure whose role is officer, leader, "
    "commander or hero: line 84, 'Player Characters dice for Command points'); side B is "
    "every other side"
)

FIRING = cite(24, "Shooting takes ½ turn halted for Firearms.")
KILLED_OFF = cite(89, "record casualties from melee")
RETREATING = cite(130, "retreating as a result of melee")
D6_FACES = 6
STATUS_BY_CELL: tuple[tuple[str, str], ...] = (
    # (how the cell begins, the status it gives): the rest leave the status as it is.
    ("Run from", "running"),
    ("Flee at Gallop", "running"),
    ("Withdraw towards cover", "falling-back"),
    ("Canter further", "falling-back"),
    ("Move to take cover", "falling-back"),
    ("Walk to take cover", "falling-back"),
    ("Halt in position", "steady"),
    ("Advance towards", "steady"),
    ("Move towards the nearest visible enemy", "steady"),
)
"""What an actions-table cell does to a group's `status` (module docstring)."""

QUALITIES = ("hero", "veteran", "raw")
TYPES = ("infantry", "cavalry", "civilians")
COMMAND_ROLES = frozenset({"officer", "leader", "commander", "hero"})
OFFICER_ROLES = frozenset({"officer", "nco", "leader"})
STATUSES = ("steady", "running", "retreating", "falling-back", "routing")
FORMATIONS = ("line", "column", "skirmish", "square", "circle")
ROUTERS = frozenset({"running", "routing"})
"""Statuses whose groups are the "Routers" of line 103 (2 pts to activate)."""

UNIT_FIELDS: tuple[Field, ...] = (
    # What the troops are: given in the scene, never changed by the rules.
    Field(
        "type",
        Kind.CHOICE,
        cite(147, "Infantry units"),
        "troops (infantry, cavalry or civilians)",
        choices=TYPES,
        in_play=False,
    ),
    Field(
        "quality",
        Kind.CHOICE,
        cite(93, "Heroes throw 4D6 a turn."),
        "quality (hero, veteran or raw)",
        choices=QUALITIES,
        in_play=False,
    ),
    Field(
        "weapon",
        Kind.CHOICE,
        cite(9, "Weapon type"),
        "weapon",
        choices=tuple(WEAPONS),
        in_play=False,
    ),
    Field(
        "regular",
        Kind.FLAG,
        cite(120, "Unit formed of regulars"),
        "formed of regulars",
        in_play=False,
    ),
    Field("bayonet", Kind.FLAG, cite(10, "2 (3 with Bayonet)"), "has bayonets", in_play=False),
    Field(
        "loyal",
        Kind.FLAG,
        cite(101, "Loyal figures require 1 pt to activate them."),
        "loyal (false: disloyal, 2 pts to activate)",
        default=True,
        in_play=False,
    ),
    Field(
        "heavy_armour",
        Kind.FLAG,
        cite(107, "15 cms if in heavy armour/clothing"),
        "in heavy armour or clothing",
        default=False,
        in_play=False,
    ),
    Field(
        "platoon",
        Kind.TEXT,
        cite(143, "will always stay in company with the first group in their platoon"),
        "platoon (a name its groups share)",
        in_play=False,
    ),
    Field(
        "strength",
        Kind.COUNT,
        cite(125, "Per 10% of group wounded or killed"),
        "figures the group started with (else on the table plus killed)",
        in_play=False,
    ),
    # The state of play.
    Field(
        "formation",
        Kind.CHOICE,
        cite(128, "Infantry not in square/circle facing Shock Cavalry"),
        "formation",
        choices=FORMATIONS,
    ),
    Field(
        "casualties",
        Kind.COUNT,
        cite(125, "Per 10% of group wounded or killed"),
        "figures killed",
        default=0,
    ),
    Field(
        "wounded",
        Kind.COUNT,
        cite(107, "wounded men and civilians may only move 20cms"),
        "figures wounded (still on the table)",
        default=0,
    ),
    Field(
        "status",
        Kind.CHOICE,
        cite(130, "If running from enemy last turn, or retreating as a result of melee."),
        "what the group is doing",
        default="steady",
        choices=STATUSES,
    ),
    Field(
        "loaded",
        Kind.FLAG,
        cite(24, "Commanded troops must spend a turn halted to load muzzle loaded weapons"),
        "loaded",
        default=False,
    ),
    Field(
        "commanded",
        Kind.FLAG,
        cite(84, "Determine units under command"),
        "under command this turn",
        default=False,
        per_turn=True,
    ),
    Field(
        "moved",
        Kind.FLAG,
        cite(34, "Moving troops: 1 per 3 figures may shoot per turn."),
        "moved this turn",
        default=False,
        per_turn=True,
    ),
    Field(
        "fired",
        Kind.FLAG,
        cite(95, "- 1 Dice if Officer loading/Firing or in Melee"),
        "fired this turn",
        default=False,
        per_turn=True,
    ),
    Field(
        "loading",
        Kind.FLAG,
        cite(95, "- 1 Dice if Officer loading/Firing or in Melee"),
        "loading this turn",
        default=False,
        per_turn=True,
    ),
)
"""Every unit attribute the rules read besides `id`, `side` and `bases` (module docstring)."""
FIELDS: MappingProxyType[str, Field] = MappingProxyType({f.name: f for f in UNIT_FIELDS})


# --------------------------------------------------------------------------------------------
# Small readings of the scene


def row_label(risk_factor: int) -> str:
    """The actions-table row for a risk factor: 'Up to RF0', RF1, RF2-5, RF6-8, RF9+."""
    if risk_factor <= 0:
        return "RF0"
    if risk_factor == 1:
        return "RF1"
    if risk_factor <= 5:
        return "RF2-5"
    if risk_factor <= 8:
        return "RF6-8"
    return "RF9+"


def band_of(weapon: Weapon, distance: float) -> str:
    """The range band a distance (mm) falls in, `out-of-range` beyond long."""
    for band, limit in weapon.bands:
        if geo.within(distance, limit):
            return band
    return "out-of-range"


def band_threshold(weapon: Weapon, distance: float, uncertainty: float) -> Threshold | None:
    """The distance against the band boundary nearest to it (None for a weapon with no range)."""
    limits = [limit for _, limit in weapon.bands]
    if not limits:
        return None
    nearest = min(limits, key=lambda limit: abs(limit - distance))
    return Threshold(distance, nearest, uncertainty)


def damage_odds(gunpowder: bool, modifier: int) -> dict[str, Fraction]:
    """Chance of each damage result for one hit: a D6 plus `modifier`, read within 1-6."""
    _, faces = DAMAGE_ROWS[gunpowder]
    odds = {"graze": Fraction(0), "wound": Fraction(0), "kill": Fraction(0)}
    for face in range(1, 7):
        read = min(6, max(1, face + modifier))
        odds[faces[read - 1]] += Fraction(1, 6)
    return odds


@dataclass(frozen=True, slots=True)
class Count:
    """The exact distribution of a count (hits, kills, wounds) and its mean, with the strings
    and floats the answer shows, worked out once."""

    distribution: tuple[Fraction, ...]
    mean: Fraction
    shown: tuple[tuple[str, float], ...]

    @classmethod
    def of(cls, distribution: tuple[Fraction, ...]) -> Count:
        shown = tuple((str(p), float(p)) for p in distribution)
        return cls(distribution, dice_math.mean(distribution), shown)

    def as_json(self) -> dict[str, Any]:
        return {
            "distribution": [{"exact": e, "value": v} for e, v in self.shown],
            "mean": _frac(self.mean),
        }


@dataclass(frozen=True, slots=True)
class ShotOdds:
    """The odds of one volley: hits (one D8 a shooter, lines 40-43), then the damage of each
    hit (one D6, lines 45-49) as kills and wounds."""

    per_hit: MappingProxyType[str, Fraction]
    hits: Count
    kills: Count
    wounds: Count


@lru_cache(maxsize=1024)
def shot_odds(shooters: int, need: int, gunpowder: bool, shift: int) -> ShotOdds:
    """The odds of `shooters` D8s needing `need`+ to hit, each hit then a D6 (+ `shift`) on the
    damage row of `gunpowder` weapons or not. The same for every volley with these numbers, so
    computed once: `suggest` asks hundreds of shots of a few kinds."""
    p_hit = dice_math.p_at_least(8, need)
    odds = damage_odds(gunpowder, shift)
    return ShotOdds(
        MappingProxyType(odds),
        Count.of(dice_math.successes(shooters, 8, need)),
        Count.of(dice_math.binomial(shooters, p_hit * odds["kill"])),
        Count.of(dice_math.binomial(shooters, p_hit * odds["wound"])),
    )


@dataclass(frozen=True, slots=True)
class Volley:
    """One kind of volley as a shot answer shows it: its two rolls (to hit, lines 40-43;
    damage, lines 45-49), its odds, their JSON and the readable lines about them."""

    odds: ShotOdds
    rolls_json: tuple[dict[str, Any], dict[str, Any]]
    hits_json: dict[str, Any]
    damage_json: dict[str, Any]
    kills_json: dict[str, Any]
    wounds_json: dict[str, Any]
    lines: tuple[str, ...]
    """The lines about the dice, the damage and the expected losses."""


@lru_cache(maxsize=1024)
def volley(
    shooters: int, need: int, band: str, column: str, gunpowder: bool, quality: str
) -> Volley:
    """The dice of `shooters` D8s needing `need`+ at `band` range against `column` cover,
    each hit a D6 on the damage row of `gunpowder` weapons or not, modified by the shooters'
    `quality`: pure values, the same for every volley with them, so worked out once (a
    `suggest` shows hundreds of volleys of a few kinds). The JSON is shared between answers:
    each answer copies the top-level dicts, and no one changes what they hold."""
    row_cite, _ = TO_HIT[band]
    to_hit = Roll.success_roll(
        "to hit", shooters, 8, need, cite=row_cite, note=f"{band} range, {column}"
    )
    mods: list[Modifier] = []
    if quality == "hero":
        mods.append(Modifier(1, "hero shooter", DAMAGE_HERO))
    if quality == "raw":
        mods.append(Modifier(-1, "raw shooters", DAMAGE_RAW))
    shift = int(sum(m.value for m in mods))
    damage_cite, faces = DAMAGE_ROWS[gunpowder]
    shot = shot_odds(shooters, need, gunpowder, shift)
    odds = shot.per_hit
    damage = Roll(
        "damage",
        1,
        6,
        None,
        (),
        tuple(mods),
        damage_cite,
        note="one D6 a hit: " + ", ".join(f"{f} {r}" for f, r in enumerate(faces, 1)),
    )
    lines = (
        f"- {to_hit.describe()}; P(at least 1 hit) = {1 - to_hit.distribution[0]}",
        f"- damage, one D6 a hit{f' ({shift:+d})' if shift else ''} [{damage_cite}]: "
        + ", ".join(f"{k} {v}" for k, v in odds.items()),
        f"- expected hits {float(shot.hits.mean):.2f}, kills "
        f"{float(shot.kills.mean):.2f}, wounds {float(shot.wounds.mean):.2f}",
    )
    return Volley(
        shot,
        (to_hit.as_json(), damage.as_json()),
        shot.hits.as_json(),
        {
            "row": "gunpowder weapons" if gunpowder else "other",
            "modifier": shift,
            "per_hit": {k: _frac(v) for k, v in odds.items()},
        },
        shot.kills.as_json(),
        shot.wounds.as_json(),
        lines,
    )


@lru_cache(maxsize=64)
def command_points(dice: int) -> Count:
    """The command points of `dice` D6 summed (none: 0 points for sure), worked out once per
    number of dice."""
    return Count.of(dice_math.total(dice, 6) if dice else (Fraction(1),))


@lru_cache(maxsize=64)
def command_points_json(dice: int) -> dict[str, Any]:
    """`command_points(dice).as_json()`, worked out once per number of dice (shared: an
    answer copies the top-level dict and changes nothing)."""
    return command_points(dice).as_json()


@lru_cache(maxsize=1024)
def enough_points(dice: int, cost: int) -> tuple[Fraction, dict[str, Any]]:
    """The chance that `dice` D6 summed make at least `cost` command points, and its JSON:
    pure numbers, worked out once for each (a `suggest` asks a few again and again)."""
    p = dice_math.at_least(command_points(dice).distribution, cost)
    return p, _frac(p)


def spotting_need(distance: float) -> int:
    """The lowest D6 face whose 10 cm a face reach `distance` (mm): line 61's D6 x 10 cm
    (the caller knows the distance is at most 60 cm)."""
    return next(
        (k for k in range(1, SPOTTING_FACES + 1) if geo.within(distance, k * SPOTTING_STEP_MM)),
        SPOTTING_FACES + 1,
    )


def shooters_allowed(figures: int, per: int) -> int:
    """One shooter per whole `per` figures (line 33: '1 per 2 figures')."""
    return figures // per


def melee_odds(mod_a: int, mod_b: int) -> dict[str, Fraction]:
    """One fight: each throws a D6 plus modifiers; the better score wins; the winner wounds on
    a natural 5 and kills on a natural 6 (line 78)."""
    return {k: p for k, p, _ in _melee_odds(mod_a, mod_b)}


def melee_odds_json(mod_a: int, mod_b: int) -> dict[str, dict[str, Any]]:
    """`melee_odds` for the answer: each chance exact and as a float (`_frac`)."""
    return {
        k: {"exact": exact, "value": value} for k, _, (exact, value) in _melee_odds(mod_a, mod_b)
    }


@lru_cache(maxsize=256)
def _melee_odds(mod_a: int, mod_b: int) -> tuple[tuple[str, Fraction, tuple[str, float]], ...]:
    """`melee_odds`, with each chance's string and float, worked out once per pair of
    modifiers: a melee of many figures asks the same few again and again."""
    return tuple((k, p, (str(p), float(p))) for k, p in _melee_fight(mod_a, mod_b).items())


def _melee_fight(mod_a: int, mod_b: int) -> dict[str, Fraction]:
    out = {
        k: Fraction(0)
        for k in ("a_wins", "a_wounds", "a_kills", "b_wins", "b_wounds", "b_kills", "draw")
    }
    p = Fraction(1, 36)
    for x in range(1, 7):
        for y in range(1, 7):
            sa, sb = x + mod_a, y + mod_b
            if sa > sb:
                out["a_wins"] += p
                out["a_wounds"] += p if x == 5 else 0
                out["a_kills"] += p if x == 6 else 0
            elif sb > sa:
                out["b_wins"] += p
                out["b_wounds"] += p if y == 5 else 0
                out["b_kills"] += p if y == 6 else 0
            else:
                out["draw"] += p
    return out


def match_evenly(
    attackers: Sequence[str], defenders: Sequence[str], touching: set[tuple[str, str]]
) -> list[tuple[str, str]]:
    """Pair figures in contact as evenly as possible (line 67).

    First as many one-to-one pairs as the contacts allow (augmenting paths), then each figure
    left over joins the opponent it touches that has the fewest assailants so far; a figure
    that touches no one fights no one.
    """
    partner: dict[str, str] = {}  # defender -> attacker

    def augment(a: str, seen: set[str]) -> bool:
        options = [d for d in defenders if (a, d) in touching and d not in seen]
        for d in sorted(options, key=lambda d: d in partner):  # a free opponent first
            if d not in seen:
                seen.add(d)
                if d not in partner or augment(partner[d], seen):
                    partner[d] = a
                    return True
        return False

    for a in attackers:
        augment(a, set())
    pairs = [(a, d) for d, a in partner.items()]
    load: dict[str, int] = {}
    for a, d in pairs:
        load[a] = load.get(a, 0) + 1
        load[d] = load.get(d, 0) + 1
    for a in attackers:
        if a not in load:
            near = [d for d in defenders if (a, d) in touching]
            if near:
                d = min(near, key=lambda k: (load.get(k, 0), defenders.index(k)))
                pairs.append((a, d))
                load[a], load[d] = 1, load.get(d, 0) + 1
    for d in defenders:
        if d not in load:
            near = [a for a in attackers if (a, d) in touching]
            if near:
                a = min(near, key=lambda k: (load.get(k, 0), attackers.index(k)))
                pairs.append((a, d))
                load[d], load[a] = 1, load.get(a, 0) + 1
    return sorted(pairs, key=lambda p: (attackers.index(p[0]), defenders.index(p[1])))


def _state(unit: Unit, key: str) -> Any:
    """A declared attribute the rules read (`UNIT_FIELDS`): the unit's value, else the field's
    start-of-game default (a scene read by `parse_scene` has them filled in already; one built
    otherwise may not). A missing attribute with no default (a description: `regular`,
    `bayonet`, `formation`) is a `MissingAttribute`, which the engine gathers with the
    question's other missing ones; a value the field does not accept is a `QuestionError`."""
    declared = FIELDS[key]
    value = unit.get(key)
    if value is None:
        value = declared.default
    if value is None:
        raise MissingAttribute(RULESET, unit.id, key, _accepts(declared), _placeholder(declared))
    problem = declared.check(value, f"unit {unit.id!r}:")
    if problem:
        raise QuestionError(f"{RULESET}: {problem}")
    return value


def _accepts(declared: Field) -> str:
    """What a missing attribute's message asks for."""
    if declared.kind is Kind.FLAG:
        return "true or false"
    if declared.kind is Kind.COUNT:
        return "a whole number from 0"
    if declared.kind is Kind.CHOICE:
        return f"one of {accepted(declared.choices)}"
    return "a name"


def _placeholder(declared: Field) -> Any:
    """The stand-in value the engine asks again with while it gathers missing attributes."""
    if declared.kind is Kind.FLAG:
        return False
    if declared.kind is Kind.COUNT:
        return 0
    if declared.kind is Kind.CHOICE:
        return declared.choices[0]
    return "?"


def _quality(unit: Unit) -> str:
    return check_attr(unit, "quality", QUALITIES, ruleset=RULESET)


def _type(unit: Unit) -> str:
    return check_attr(unit, "type", TYPES, ruleset=RULESET)


def _weapon(unit: Unit) -> Weapon:
    return WEAPONS[check_attr(unit, "weapon", tuple(WEAPONS), ruleset=RULESET)]


def _status(unit: Unit) -> str:
    return str(_state(unit, "status"))


def is_command_figure(base: Base) -> bool:
    """A base whose role makes it a command figure (and a player character)."""
    return base.role in COMMAND_ROLES


def status_after(outcome: Outcome, row: str, status: str, commanded: bool) -> tuple[str, str]:
    """A group's status after the actions table gave it `outcome` on `row`, and why: running
    after "Run from ..." or "Flee ...", falling back after a withdrawal or a move to cover,
    steady after a halt or an advance; a commanded group or PC ignores the movement of a cell
    in italics (lines 141, 182); "Continue current actions" keeps what the group was doing,
    but a group falling back halts on a 5 or 6 of the RF0 row (lines 150, 193), and a retreat
    after melee (a single move back, line 80) is over."""
    if outcome.italic and commanded:
        why = "in italics: commanded troops and player characters ignore it"
        return ("steady" if status == "retreating" else status), why
    for start, after in STATUS_BY_CELL:
        if outcome.text.startswith(start):
            return after, outcome.text
    if row == "RF0" and outcome.face >= 5 and status == "falling-back":
        return "steady", "units falling back halt facing the last known enemy position"
    return ("steady" if status == "retreating" else status), outcome.text


def _no_form(scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
    """An action with no dice to report (a move, a charge)."""
    return ()


def _faces(faces: Sequence[str], result: str) -> str:
    """The faces of a damage row that read `result`: `5-6`, `6`."""
    shown = [k for k, f in enumerate(faces, 1) if f == result]
    return f"{shown[0]}" if len(shown) == 1 else f"{shown[0]}-{shown[-1]}"


def sides_with_player_characters(scene: Scene) -> set[str]:
    """The sides of side A: those with a command figure (line 84)."""
    return {u.side for u in scene.units if any(is_command_figure(b) for b in u.bases)}


def is_player_character(unit: Unit) -> bool:
    """A group made only of command figures: a PC acting alone."""
    return all(is_command_figure(b) for b in unit.bases)


def is_hero(unit: Unit, base: Base) -> bool:
    return base.role == "hero" or unit.get("quality") == "hero"


def _fmt(scene: Scene, mm: float) -> str:
    return format_length(mm, scene.unit)


def _surely_in_front(pairs: Sequence[tuple[Base, Base, float]]) -> npt.NDArray[np.bool_]:
    """(P,): for each (base, enemy, mm), whether the enemy's centre lies inside the base's
    front sector by far more than rounding (angles a billionth of a radian inside the
    diagonal), so `geometry.aspect` is sure to say front: only the rest need asking."""
    if not pairs:
        return np.zeros(0, dtype=bool)
    own = [b for b, _, _ in pairs]
    return _surely_ahead(
        np.array([e.x - b.x for b, e, _ in pairs]),
        np.array([e.y - b.y for b, e, _ in pairs]),
        np.radians([b.facing for b in own]),
        np.radians([geo.front_half_angle(b) for b in own]),
    )


def _surely_ahead(
    px: geo.Array, py: geo.Array, facing: geo.Array, half_angle: geo.Array
) -> npt.NDArray[np.bool_]:
    """`_surely_in_front` of points (px, py) from the centres of bases facing `facing` with
    front sectors of `half_angle` either side (radians)."""
    fx, fy = np.cos(facing), np.sin(facing)
    u, v = px * fy - py * fx, px * fx + py * fy  # to the base's right, ahead of it
    return np.asarray(np.arctan2(np.abs(u), v) < half_angle - 1e-9)


def _frac(p: Fraction) -> dict[str, Any]:
    return {"exact": str(p), "value": float(p)}


def _verdict(t: Threshold) -> str:
    if t.too_close_to_call:
        return "too close to call"
    return "within" if t.within else "beyond"


# --------------------------------------------------------------------------------------------
# One scene's measurements, shared by every question asked of it


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where each unit's bases lie in the table's order (a unit's bases are consecutive), to
    answer unit-against-unit questions with whole rows of the table's arrays."""

    number: dict[str, int]
    """Each unit's place in the scene's order, by id."""
    starts: npt.NDArray[np.int_]
    """(U,) where each unit's bases start in `Table.bases`."""
    owner: npt.NDArray[np.int_]
    """(N,) the unit number of each base."""
    local: npt.NDArray[np.int_]
    """(N,) each base's place in its unit."""
    side: npt.NDArray[np.int_]
    """(N,) a number per side for each base, to tell friend from enemy as arrays."""
    sides: dict[str, int]
    """Each side's number."""


@dataclass(frozen=True, slots=True)
class UnitSightings:
    """What each figure of one group sees of every group of the table within a reach (line 55):
    `Board.sighting_each` and `Board.sightings` of the group against any enemy group, read off
    one pass over the group's rows of the table (`Board.unit_sightings`)."""

    nearest: list[list[float]]
    """[unit number][figure]: the distance from the figure to the nearest figure of that unit
    it sees entirely within the reach; infinity when it sees none (and for friends)."""
    target: list[list[int]]
    """[unit number][figure]: the table index of that nearest figure (the first in the unit's
    order of equally near ones); meaningless where `nearest` is infinite."""
    first: int
    """The table index of the group's first figure."""

    def each(self, bases: Sequence[Base], unit: int) -> list[tuple[Base, Base, float] | None]:
        """`Board.sighting_each` of the group's figures, one by one, against unit `unit`."""
        at, to = self.nearest[unit], self.target[unit]
        start = self.first
        return [
            (bases[start + r], bases[to[r]], d) if d < math.inf else None for r, d in enumerate(at)
        ]

    def nearest_pair(self, bases: Sequence[Base], unit: int) -> tuple[Base, Base, float] | None:
        """`Board.sighting` of the whole group against unit `unit`: the nearest pair, of equally
        near pairs the first in reading order (the first figure, then its first target)."""
        at = self.nearest[unit]
        d = min(at)
        if not d < math.inf:
            return None
        r = at.index(d)
        return bases[self.first + r], bases[self.target[unit][r]], d


class Board:
    """A `Table` plus the unit-level answers this sheet asks again and again (who sees whom)."""

    def __init__(
        self,
        ruleset: Skirmish19c,
        scene: Scene,
        table: Table | None = None,
        *,
        explain: bool = True,
    ) -> None:
        self.rs = ruleset
        self.scene = scene
        self.explain = explain
        """Whether answers write all their readable lines; `suggest` reads only the first
        (the headline) of each, so it asks for no more."""
        self.table = table if table is not None else table_of(scene)
        self._seen: dict[
            tuple[tuple[str, ...], tuple[str, ...], float], tuple[Base, Base, float] | None
        ] = {}
        self._by_distance: dict[
            tuple[tuple[str, ...], tuple[str, ...]],
            tuple[npt.NDArray[np.int_], npt.NDArray[np.int_], geo.Array],
        ] = {}
        self._cover: dict[tuple[str, str], tuple[bool, list[str]]] = {}
        self._seen_pairs: dict[
            tuple[tuple[str, ...], tuple[str, ...], float], list[tuple[Base, Base, float]]
        ] = {}
        self._enemy_bases: dict[str, list[Base]] = {}
        self._joining: dict[str, list[tuple[Base, Threshold]]] = {}
        self._enemy_weapons: dict[str, tuple[dict[str, Weapon], dict[str, Unit]]] = {}
        self.hero_gaps: dict[str, list[tuple[Base, Threshold]]] = {}
        """`Skirmish19c._hero_gaps` of each unit asked (its memo)."""
        self._enclosed: dict[str, Terrain | None] = {}
        self._side_figures: dict[str, list[tuple[Unit, Base, int, bool]]] = {}
        self._group_ids: dict[int, tuple[Sequence[Base], tuple[str, ...]]] = {}
        self._enemy_rows: dict[tuple[str, float], geo.Array] = {}
        self._enemy_reach: dict[str, geo.Array] = {}
        self._officers: dict[str, list[tuple[Unit, Base]]] = {}
        self._heroes: dict[str, list[tuple[Unit, Base]]] = {}
        self._shock: dict[str, list[Unit]] = {}
        self._unit_nearest: list[list[float]] | None = None
        self._seen_sides: set[str] = set()
        self._in_sight: dict[
            tuple[str, float], list[tuple[float, Unit, tuple[Base, Base, float]]]
        ] = {}
        self._pc: dict[str, bool] = {}
        self._enemy_gaps: dict[str, list[tuple[Unit, float]]] = {}
        self.allocation_pools: dict[
            str,
            tuple[Sequence[Base], tuple[list[Base], list[int], list[dict[str, Any]], str]],
        ] = {}
        """`Skirmish19c._allocation_pool` of each target group asked, with its bases (its memo)."""
        self._side_arrays: dict[str, tuple[npt.NDArray[np.int_], npt.NDArray[np.bool_]]] = {}
        self._ahead_sides: set[str] = set()
        self._sightings_by_side: dict[
            tuple[str, float], tuple[list[list[float]], list[list[int]]]
        ] = {}
        self._unit_sightings: dict[tuple[str, float], UnitSightings] = {}
        n = len(self.table.bases)
        self._sees = np.full((n, n), -1, dtype=np.int8)
        """Whether base i sees the entire base j (1, 0), -1 while not traced."""

    def unit(self, ident: str) -> Unit:
        """`Scene.unit_of` through a lookup table: the first unit named so or holding a base
        named so; an unknown id is the scene's `UnknownIdError`."""
        found = self._unit_of.get(ident)
        return found if found is not None else self.scene.unit_of(ident)

    def select(self, ident: str) -> tuple[Base, ...]:
        """`Scene.select` through `unit`'s lookup table: the first unit or base named so, in
        the scene's order (a unit's id before its bases'), all of a unit's bases or the one
        base; an unknown id is the scene's `UnknownIdError`."""
        unit = self.unit(ident)
        if unit.id == ident:
            return unit.bases
        return (next(b for b in unit.bases if b.id == ident),)

    @cached_property
    def _unit_of(self) -> dict[str, Unit]:
        out: dict[str, Unit] = {}
        for u in self.scene.units:
            out.setdefault(u.id, u)
            for b in u.bases:
                out.setdefault(b.id, u)
        return out

    def _ids(self, group: Sequence[Base]) -> tuple[str, ...]:
        """The ids of a group of bases, the key of the memos (memoised by the group's identity:
        the same units' bases are asked of again and again; the group is held, so its identity
        is not reused)."""
        held = self._group_ids.get(id(group))
        if held is None or held[0] is not group:
            held = (group, tuple(b.id for b in group))
            self._group_ids[id(group)] = held
        return held[1]

    def enemies(self, unit: Unit) -> list[Unit]:
        return [u for u in self.scene.units if u.side != unit.side]

    @cached_property
    def layout(self) -> _Layout | None:
        """The units' places in the table's order; None when a unit has no base (then the
        questions go group by group)."""
        units = self.scene.units
        sizes = np.array([len(u.bases) for u in units], dtype=int)
        if not len(sizes) or np.any(sizes == 0):
            return None
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        owner = np.repeat(np.arange(len(sizes)), sizes)
        sides: dict[str, int] = {}
        for u in units:
            sides.setdefault(u.side, len(sides))
        side = np.array([sides[u.side] for u in units], dtype=int)[owner]
        local = np.arange(len(owner)) - starts[owner]
        return _Layout({u.id: k for k, u in enumerate(units)}, starts, owner, local, side, sides)

    def enemy_rows(self, unit: Unit, within: float) -> geo.Array:
        """(F, N) for each figure of the unit and each base of the table: their distance when
        the base is an enemy's that the figure sees entirely (line 55) no further than
        `within`, else infinity (memoised per unit and reach: a unit's shots and risk read
        them). Needs `layout`; the array is shared: read it, never change it."""
        key = (unit.id, within)
        found = self._enemy_rows.get(key)
        if found is None:
            lay = self.layout
            assert lay is not None
            start = int(lay.starts[lay.number[unit.id]])
            stop = start + len(unit.bases)
            found = self._side_seen(unit.side)[start:stop]
            if within < math.inf:
                block = self.table.distances[start:stop]
                found = np.where(geo.within(block, within), found, np.inf)
            self._enemy_rows[key] = found
        return found

    @cached_property
    def _seen_d(self) -> geo.Array:
        """`_side_seen`'s rows, filled side by side (made on first use: a single question
        may never ask)."""
        n = len(self.table.bases)
        return np.full((n, n), np.inf)

    @cached_property
    def _ahead(self) -> npt.NDArray[np.bool_]:
        """`_side_ahead`'s rows, filled side by side (made on first use)."""
        n = len(self.table.bases)
        return np.zeros((n, n), dtype=bool)

    def _side_seen(self, side: str) -> geo.Array:
        """(N, N) whose rows of the side's bases hold the distance to each base of the table
        that is an enemy's and that the row's base sees entirely (line 55), else infinity:
        the side's `enemy_rows`, worked out for the whole side on first asking (its sight
        traced side against side, `sees_many`). Rows of other sides are not filled."""
        lay = self.layout
        assert lay is not None
        if side not in self._seen_sides:
            mine = lay.side == lay.sides[side]
            rows, cols = np.flatnonzero(mine), np.flatnonzero(~mine)
            r = np.repeat(rows, len(cols))
            c = np.tile(cols, len(rows))
            seen = self.sees_many(r, c).reshape(len(rows), len(cols))
            block = self.table.distances[np.ix_(rows, cols)]
            self._seen_d[np.ix_(rows, cols)] = np.where(seen, block, np.inf)
            self._seen_sides.add(side)
        return self._seen_d

    def _side_sightings(
        self, side: str, within: float
    ) -> tuple[list[list[float]], list[list[int]]]:
        """[U][B] for each unit and each base of the side (in table order): the distance to
        the nearest figure of the unit the base sees entirely within `within` (infinity when
        none, and for friends), and the table index of that figure (the first in the unit's
        order of equally near ones, as `argmin` picks it): for the whole side at once, once
        per reach (the side's weapons have a few)."""
        key = (side, within)
        found = self._sightings_by_side.get(key)
        if found is None:
            lay = self.layout
            assert lay is not None
            rows = np.flatnonzero(lay.side == lay.sides[side])
            seen = self._side_seen(side)[rows]
            if within < math.inf:
                block = self.table.distances[rows]
                seen = np.where(geo.within(block, within), seen, np.inf)
            starts = lay.starts
            nearest = np.minimum.reduceat(seen, starts, axis=1)
            at_min = np.where(seen == nearest[:, lay.owner], lay.local, len(lay.owner))
            place = np.minimum.reduceat(at_min, starts, axis=1) + starts
            # As plain numbers by unit, once: each unit of the side reads its columns.
            found = self._sightings_by_side[key] = (nearest.T.tolist(), place.T.tolist())
        return found

    def unit_sightings(self, unit: Unit, within: float) -> UnitSightings | None:
        """What each figure of the unit sees of every enemy unit within `within`
        (`_side_sightings`), memoised per unit and reach (every shot of the unit and the
        nearest-target checks read it); None without `layout`."""
        lay = self.layout
        if lay is None:
            return None
        key = (unit.id, within)
        found = self._unit_sightings.get(key)
        if found is None:
            nearest, place = self._side_sightings(unit.side, within)
            first = int(lay.starts[lay.number[unit.id]])
            # The unit's bases are consecutive in the table, so in its side's rows too.
            at = int(np.count_nonzero(lay.side[:first] == lay.sides[unit.side]))
            stop = at + len(unit.bases)
            found = UnitSightings(
                [row[at:stop] for row in nearest], [row[at:stop] for row in place], first
            )
            self._unit_sightings[key] = found
        return found

    def leaders_joining(self, target: Unit) -> list[tuple[Base, Threshold]]:
        """Officers of other groups of the side within 5 cm of the target group, who join it
        when hits are allocated (lines 51-53), in the groups' order, with their distance (to
        the first nearest figure, as `Table.closest` names it) against 5 cm (memoised: every
        shot at the group asks it)."""
        found = self._joining.get(target.id)
        if found is None:
            found = self._joining[target.id] = []
            officers = [b for u, b in self.side_officers(target.side) if u.id != target.id]
            if officers:
                block = self.table.block(officers, target.bases)
                nearest = block.argmin(axis=1).tolist()
                for i, (b, j) in enumerate(zip(officers, nearest, strict=True)):
                    d = float(block[i, j])
                    if geo.within(d, LEADER_JOIN_MM):  # `Threshold.within`
                        unc = self.table.uncertainty(b, target.bases[j])
                        found.append((b, Threshold(d, LEADER_JOIN_MM, unc)))
        return found

    def shock_cavalry(self, unit: Unit) -> list[Unit]:
        """The enemy groups of shock cavalry (line 128), in the scene's order (memoised per
        side). The list is shared: read it, never change it."""
        found = self._shock.get(unit.side)
        if found is None:
            found = self._shock[unit.side] = [
                e
                for e in self.enemies(unit)
                if e.get("type") == "cavalry" and e.get("weapon") in SHOCK_WEAPONS
            ]
        return found

    def side_officers(self, side: str) -> list[tuple[Unit, Base]]:
        """Each base of the side with an officer's, NCO's or leader's role, with its unit, in
        the scene's order (memoised per side). The list is shared: read it, never change it."""
        found = self._officers.get(side)
        if found is None:
            found = self._officers[side] = [
                (u, b)
                for u in self.scene.units
                if u.side == side
                for b in u.bases
                if b.role in OFFICER_ROLES
            ]
        return found

    def side_heroes(self, side: str) -> list[tuple[Unit, Base]]:
        """Each hero of the side (`is_hero`), with its unit, in the scene's order (memoised per
        side). The list is shared: read it, never change it."""
        found = self._heroes.get(side)
        if found is None:
            found = self._heroes[side] = [
                (u, b) for u in self.scene.units if u.side == side for b in u.bases if is_hero(u, b)
            ]
        return found

    def nearest_to_unit(self, unit: Unit) -> list[float] | None:
        """(N,) the distance from each base of the table to the nearest figure of the unit
        (the minimum of its rows of `Table.distances`, the same numbers), for every unit at
        once on first asking; None without `layout`."""
        lay = self.layout
        if lay is None:
            return None
        if self._unit_nearest is None:
            d = self.table.distances
            self._unit_nearest = np.minimum.reduceat(d, lay.starts, axis=0).tolist()
        return self._unit_nearest[lay.number[unit.id]]

    def enemy_weapons(self, unit: Unit) -> tuple[dict[str, Weapon], dict[str, Unit]]:
        """Each enemy group's weapon by its id, and the enemy group of each enemy base by
        the base's id (memoised per side: every risk asks them; a bad weapon is the
        `QuestionError` every time, as it is not remembered)."""
        found = self._enemy_weapons.get(unit.side)
        if found is None:
            enemies = self.enemies(unit)
            weapons = {e.id: _weapon(e) for e in enemies}
            owner = {b.id: e for e in enemies for b in e.bases}
            found = self._enemy_weapons[unit.side] = (weapons, owner)
        return found

    def enemy_bases(self, unit: Unit) -> list[Base]:
        """Every base of every enemy of the unit, in the scene's order (the same list for a
        side: risk, command and melee ask it of every unit, and the memos key on it)."""
        found = self._enemy_bases.get(unit.side)
        if found is None:
            found = self._enemy_bases[unit.side] = [b for u in self.enemies(unit) for b in u.bases]
        return found

    def enemy_gaps(self, unit: Unit) -> list[tuple[Unit, float]]:
        """Each enemy group of the unit, in the scene's order, with the shortest edge-to-edge
        distance to it (`Table.unit_gap`; memoised per unit: charges ask it again and again)."""
        found = self._enemy_gaps.get(unit.id)
        if found is None:
            gaps = self.table.unit_gaps()
            enemies = self.enemies(unit)
            if gaps.size:
                row = gaps[self.table.unit_row(unit)].tolist()
                number = self.table.unit_row
                found = [(e, row[number(e)]) for e in enemies]
            else:
                found = [(e, self.table.unit_gap(unit, e)) for e in enemies]
            self._enemy_gaps[unit.id] = found
        return found

    def nearest_enemy(self, unit: Unit) -> Unit | None:
        """The enemy group nearest the unit (edge to edge; of equally near ones the first in
        the scene's order), None when it has none."""
        gaps = self.enemy_gaps(unit)
        return min(gaps, key=lambda g: g[1])[0] if gaps else None

    def friends(self, unit: Unit) -> list[Unit]:
        return [u for u in self.scene.units if u.side == unit.side and u.id != unit.id]

    def _nearest_first(
        self, group_a: Sequence[Base], group_b: Sequence[Base]
    ) -> tuple[npt.NDArray[np.int_], npt.NDArray[np.int_], geo.Array]:
        """Every pair of bases between two groups, nearest first (ties in reading order): their
        table indices and distances (memoised: the same groups are asked again and again)."""
        key = (self._ids(group_a), self._ids(group_b))
        if key not in self._by_distance:
            t = self.table
            rows, cols = np.array(t.rows(group_a), dtype=int), np.array(t.rows(group_b), dtype=int)
            flat = t.distances.take(rows, axis=0).take(cols, axis=1).ravel()
            order = np.argsort(flat, kind="stable")
            n = len(group_b)
            self._by_distance[key] = (rows[order // n], cols[order % n], flat[order])
        return self._by_distance[key]

    def sees_many(
        self, viewers: npt.NDArray[np.int_], targets: npt.NDArray[np.int_]
    ) -> npt.NDArray[np.bool_]:
        """Line 55, for many pairs of bases (table indices): viewers[p] sees the entire base of
        targets[p].

        Traced a side against a side at once (`Table.visible`): one batch answers every pair of
        bases of those two sides."""
        while True:
            known = self._sees[viewers, targets]
            todo = np.flatnonzero(known < 0)
            if not len(todo):
                return known > 0
            self._trace_sides(
                self.table.bases[viewers[todo[0]]], self.table.bases[targets[todo[0]]]
            )

    def _trace_sides(self, a: Base, b: Base) -> None:
        """Whether each base of `a`'s side sees each base of `b`'s side, in one batch."""
        index = self.table.index
        sides = {u.id: u.side for u in self.scene.units}
        viewers = [v for v in self.table.bases if sides[v.unit_id] == sides[a.unit_id]]
        targets = [t for t in self.table.bases if sides[t.unit_id] == sides[b.unit_id]]
        seen = self.table.visible(self.rs.sight_policy, viewers, targets)
        rows = [index[v.id] for v in viewers]
        cols = [index[t.id] for t in targets]
        self._sees[np.ix_(rows, cols)] = seen

    def seen_nearest_first(
        self, group_a: Sequence[Base], group_b: Sequence[Base], within: float = math.inf
    ) -> list[tuple[Base, Base, float]]:
        """The pairs of `pairs_by_distance` where the base of `group_a` sees the entire base of
        `group_b` (line 55), nearest first (memoised: a unit's risk asks it twice). The list
        is shared: read it, never change it."""
        key = (self._ids(group_a), self._ids(group_b), within)
        found = self._seen_pairs.get(key)
        if found is None:
            found = self._seen_pairs[key] = self._seen_nearest_first(group_a, group_b, within)
        return found

    def _seen_nearest_first(
        self, group_a: Sequence[Base], group_b: Sequence[Base], within: float
    ) -> list[tuple[Base, Base, float]]:
        rows, cols, distance = self._nearest_first(group_a, group_b)
        stop = int(np.searchsorted(distance, within + geo.EPS, side="right"))
        rows, cols, distance = rows[:stop], cols[:stop], distance[:stop]
        keep = np.flatnonzero(self.sees_many(rows, cols))
        bases = self.table.bases
        return [
            (bases[i], bases[j], d)
            for i, j, d in zip(
                rows[keep].tolist(), cols[keep].tolist(), distance[keep].tolist(), strict=True
            )
        ]

    def sighting(
        self, viewer: Sequence[Base], target: Sequence[Base], within: float = math.inf
    ) -> tuple[Base, Base, float] | None:
        """The nearest pair (viewer base, target base, mm) where the viewer sees the entire
        target base, no further than `within`; None when no figure sees any. Of equally near
        pairs, the first in the groups' order."""
        return self.sightings(viewer, [target], within)[0]

    def sightings(
        self, viewer: Sequence[Base], targets: Sequence[Sequence[Base]], within: float
    ) -> list[tuple[Base, Base, float] | None]:
        """`sighting(viewer, target, within)` for each group of `targets` (memoised), the
        groups not asked yet in one pass."""
        ids, of = self._ids(viewer), self._ids
        keys = [(ids, of(target), within) for target in targets]
        todo = [k for k, key in enumerate(keys) if key not in self._seen]
        if todo:
            t = self.table
            groups = [t.rows(targets[k]) for k in todo]
            rows = np.array(t.rows(viewer), dtype=int)
            cols = np.array([i for g in groups for i in g], dtype=int)
            seen = self._seen_within(rows, cols, within)
            start = 0
            for k, g in zip(todo, groups, strict=True):
                self._seen[keys[k]] = self._nearest_seen(seen[:, start : start + len(g)], rows, g)
                start += len(g)
        return [self._seen[key] for key in keys]

    def number_first(self, unit: Unit) -> int:
        """The table index of the unit's first base (needs `layout`)."""
        lay = self.layout
        assert lay is not None
        return int(lay.starts[lay.number[unit.id]])

    def enemy_reach(self, unit: Unit) -> geo.Array:
        """(N,) for each base of the table, the long range of its group's weapon when the
        group is an enemy of the unit with a shooting weapon, else minus infinity (memoised
        per side; needs `layout`)."""
        found = self._enemy_reach.get(unit.side)
        if found is None:
            weapons, _ = self.enemy_weapons(unit)
            reach = [
                weapons[u.id].bands[-1][1]
                if u.side != unit.side and weapons[u.id].bands
                else -math.inf
                for u in self.scene.units
            ]
            lay = self.layout
            assert lay is not None
            found = self._enemy_reach[unit.side] = np.array(reach, dtype=float)[lay.owner]
        return found

    def flank_candidates(self, unit: Unit) -> Iterator[tuple[Base, Base]]:
        """The pairs (figure of the unit, enemy figure it sees entirely) nearest first, ties in
        reading order, as `seen_nearest_first(unit.bases, enemy_bases(unit))` lists them,
        without those `_surely_in_front` settles: the ones a flank check must ask (needs
        `layout`). One at a time, as asked: the first is nearly always the answer."""
        first = self.number_first(unit)
        ahead = self._side_ahead(unit.side)[first : first + len(unit.bases)]
        left = np.where(ahead, np.inf, self.enemy_rows(unit, math.inf))
        bases, n = self.table.bases, left.shape[1]
        while True:
            # The first least pair in reading order, then struck out: nearest first, ties in
            # reading order, as a stable sort orders them.
            k = int(left.argmin())
            if not left.flat[k] < math.inf:
                return
            yield bases[first + k // n], bases[k % n]
            left.flat[k] = np.inf

    def _side_ahead(self, side: str) -> npt.NDArray[np.bool_]:
        """(N, N) whose rows of the side's bases say which bases of the table stand surely in
        front of the row's base (`_surely_ahead`), for the whole side at once on first asking.
        Rows of other sides are not filled."""
        if side not in self._ahead_sides:
            lay = self.layout
            assert lay is not None
            rows = np.flatnonzero(lay.side == lay.sides[side])
            bases = self.table.bases
            x, y = self.table.centres[:, 0], self.table.centres[:, 1]
            facing = np.radians([bases[i].facing for i in rows.tolist()]).reshape(-1, 1)
            half = [geo.front_half_angle(bases[i]) for i in rows.tolist()]
            self._ahead[rows] = _surely_ahead(
                x[None, :] - x[rows, None],
                y[None, :] - y[rows, None],
                facing,
                np.radians(half).reshape(-1, 1),
            )
            self._ahead_sides.add(side)
        return self._ahead

    def enemies_in_sight(
        self, unit: Unit, within: float
    ) -> list[tuple[float, Unit, tuple[Base, Base, float]]]:
        """Each enemy group some figure of the unit sees entirely within `within`, nearest
        first (equally near ones in the scene's order), with that distance and its
        `sighting` (memoised per unit and reach: each shot of an uncommanded group asks
        whether its target is the nearest). The list is shared: read it, never change it."""
        key = (unit.id, within)
        found = self._in_sight.get(key)
        if found is None:
            enemies = self.enemies(unit)
            sightings = self.unit_sightings_of(unit, enemies, within)
            found = [
                (seen[2], enemy, seen)
                for enemy, seen in zip(enemies, sightings, strict=True)
                if seen is not None
            ]
            found.sort(key=lambda o: o[0])
            self._in_sight[key] = found
        return found

    def is_pc(self, unit: Unit) -> bool:
        """`is_player_character` of a unit of the scene (memoised: every shot asks it)."""
        found = self._pc.get(unit.id)
        if found is None:
            found = self._pc[unit.id] = is_player_character(unit)
        return found

    def number(self, unit: Unit) -> int:
        """The unit's place in the scene's order (needs `layout`)."""
        lay = self.layout
        assert lay is not None
        return lay.number[unit.id]

    def unit_sightings_of(
        self, unit: Unit, targets: Sequence[Unit], within: float
    ) -> list[tuple[Base, Base, float] | None]:
        """`sightings(unit.bases, [t.bases for t in targets], within)`, read off
        `unit_sightings` when the table's layout allows."""
        view = self.unit_sightings(unit, within)
        if view is None:
            return self.sightings(unit.bases, [t.bases for t in targets], within)
        bases, number = self.table.bases, self.number
        return [view.nearest_pair(bases, number(t)) for t in targets]

    def sighting_each(
        self, viewers: Sequence[Sequence[Base]], target: Sequence[Base], within: float
    ) -> list[tuple[Base, Base, float] | None]:
        """`sighting(viewer, target, within)` for each group of `viewers`, in one pass."""
        t = self.table
        groups = [t.rows(group) for group in viewers]
        rows = np.array([i for g in groups for i in g], dtype=int)
        cols = np.array(t.rows(target), dtype=int)
        seen = self._seen_within(rows, cols, within)
        if all(len(g) == 1 for g in groups):
            # A figure apiece: `_nearest_seen` of each row, all rows at once.
            first = seen.argmin(axis=1).tolist()
            bases = self.table.bases
            return [
                (bases[r], bases[int(cols[j])], float(seen[i, j])) if seen[i, j] < np.inf else None
                for i, (r, j) in enumerate(zip(rows.tolist(), first, strict=True))
            ]
        out: list[tuple[Base, Base, float] | None] = []
        start = 0
        for g in groups:
            out.append(self._nearest_seen(seen[start : start + len(g)], g, cols))
            start += len(g)
        return out

    def _seen_within(
        self, rows: npt.NDArray[np.int_], cols: npt.NDArray[np.int_], within: float
    ) -> geo.Array:
        """(R, C) the distance from base rows[r] to base cols[c] where the first sees the entire
        second within `within` (line 55), else infinity."""
        block = self.table.distances.take(rows, axis=0).take(cols, axis=1)
        near = geo.within(block, within)
        if near.any():
            r, c = np.nonzero(near)
            near[r, c] = self.sees_many(rows[r], cols[c])
        return np.where(near, block, np.inf)

    def _nearest_seen(
        self,
        seen: geo.Array,
        rows: Sequence[int] | npt.NDArray[np.int_],
        cols: Sequence[int] | npt.NDArray[np.int_],
    ) -> tuple[Base, Base, float] | None:
        """The nearest pair of a block of `_seen_within` (the first in reading order of equally
        near pairs), as (viewer base, target base, mm); None when no pair is seen."""
        k = int(np.argmin(seen))
        i, j = divmod(k, seen.shape[1])
        if not seen[i, j] < np.inf:
            return None
        bases = self.table.bases
        return bases[int(rows[i])], bases[int(cols[j])], float(seen[i, j])

    def centre_in(self, base: Base) -> list[Terrain]:
        return self.table.centre_in(base)

    def in_enclosed(self, base: Base) -> Terrain | None:
        """The enclosed terrain piece holding the base's centre, if any (memoised: every
        command asks it of every figure of the side)."""
        if base.id not in self._enclosed:
            self._enclosed[base.id] = next(
                (t for t in self.centre_in(base) if self.rs.is_enclosed(t)), None
            )
        return self._enclosed[base.id]

    def side_figures(self, side: str) -> list[tuple[Unit, Base, int, bool]]:
        """Each base of a side in the scene's order, as (its unit, the base, its table index,
        whether its centre is in enclosed terrain) (memoised: every command of the side
        weighs every figure of it). The list is shared: read it, never change it."""
        found = self._side_figures.get(side)
        if found is None:
            index = self.table.index
            found = self._side_figures[side] = [
                (u, b, index[b.id], self.in_enclosed(b) is not None)
                for u in self.scene.units
                if u.side == side
                for b in u.bases
            ]
        return found

    def side_figure_arrays(self, side: str) -> tuple[npt.NDArray[np.int_], npt.NDArray[np.bool_]]:
        """`side_figures` as arrays: each figure's table index, and whether its centre is in
        enclosed terrain (memoised per side)."""
        found = self._side_arrays.get(side)
        if found is None:
            figures = self.side_figures(side)
            found = self._side_arrays[side] = (
                np.array([k for _, _, k, _ in figures], dtype=int),
                np.array([there for _, _, _, there in figures], dtype=bool),
            )
        return found

    def entirely_in_cover(self, unit: Unit) -> tuple[bool, list[str]]:
        """Every figure stands entirely inside terrain that gives cover, or is behind a hedge,
        wall or fence against the nearest enemy figure; with the reasons."""
        key = (unit.id, "")
        if key in self._cover:
            return self._cover[key]
        enemy_bases = self.enemy_bases(unit)
        reasons: list[str] = []
        covered = True
        for base in unit.bases:
            found = ""
            for standing in self.table.standing(base):
                piece = standing.terrain
                if (
                    standing.containment is geo.Containment.INSIDE
                    and self.rs.cover_of(piece) is not Cover.NONE
                ):
                    found = f"{base.id} stands entirely in {piece.id} ({piece.kind})"
                    break
            if not found and enemy_bases:
                nearest = self.table.closest([base], enemy_bases).b
                reading = self.table.cover(self.rs.cover_policy, nearest, base)
                behind = [r for r in reading.reasons if " is behind " in r]
                if behind:
                    found = f"{behind[0]} against {nearest.id}"
            if not found:
                covered = False
                reasons = [f"{base.id} is not in cover"]
                break
            reasons.append(found)
        self._cover[key] = (covered, reasons)
        return covered, reasons

    def contacts(self, base: Base, of: Iterable[Base]) -> list[tuple[Base, Threshold]]:
        """Bases of `of` in base contact with `base`: touching, or a gap inside the
        measurement's uncertainty (then too close to call)."""
        table = self.table
        others = list(of)
        gaps = table.distances[table.index[base.id]].take(table.rows(others)).tolist()
        # No two bases' combined uncertainty exceeds twice the largest: only the bases that
        # near can be in contact, and only they are asked exactly.
        reach = 2 * self._most_uncertain
        out = []
        for other, d in zip(others, gaps, strict=True):
            if geo.within(d, reach):
                unc = table.uncertainty(base, other)
                if d <= unc:
                    out.append((other, Threshold(d, 0.0, unc)))
        return out

    @cached_property
    def terrain_boxes(self) -> list[tuple[Terrain, geo.Array, tuple[float, float, float, float]]]:
        """Each terrain piece with its polygon as an array and its bounding box (x0, y0, x1,
        y1), mm: a path asks only the pieces whose box it crosses."""
        out = []
        for piece in self.scene.terrain:
            poly = np.asarray(piece.polygon, dtype=float)
            lo, hi = poly.min(axis=0), poly.max(axis=0)
            out.append((piece, poly, (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))))
        return out

    @cached_property
    def _most_uncertain(self) -> float:
        """The largest position uncertainty of any base on the table, mm."""
        return max((self.scene.uncertainty_of(b) for b in self.table.bases), default=0.0)


# --------------------------------------------------------------------------------------------
# The ruleset


class Skirmish19c(Ruleset):
    id = "skirmish-19c"
    title = "19th Century rules: QRS"
    sheet = SHEET
    unit = "cm"
    phases: ClassVar[tuple[str, ...]] = PHASES
    phase_steps: ClassVar[tuple[Phase, ...]] = PHASE_STEPS
    sides_rule: ClassVar[str] = SIDES_RULE
    unit_fields: ClassVar[tuple[Field, ...]] = UNIT_FIELDS
    terrain_keys: ClassVar[frozenset[str]] = frozenset({"difficult"})
    scene_keys: ClassVar[frozenset[str]] = frozenset()
    bases_block_sight = True
    shoot_over_within = OVER_FIGURES_WITHIN_MM  # line 55
    sight_needs_entire_base = True
    sight_rule: ClassVar[Cite | None] = SIGHT_ENTIRE
    see_into = MappingProxyType(
        {
            TerrainKind.WOODS: 100.0,  # line 57: "up to 10cms inside"
            TerrainKind.TOWN: geo.REACH,
            TerrainKind.BUILDING: geo.REACH,
            TerrainKind.HILL: geo.REACH,
        }
    )
    visibility_within = MappingProxyType({TerrainKind.WOODS: WOODS_VISIBILITY_MM})  # line 63
    hidden_in = HIDING_KINDS  # line 61
    hidden_edge = HIDDEN_EDGE_MM
    hidden_seen_within = SPOTTING_FACES * SPOTTING_STEP_MM
    revealed_by = "fired"

    # ----------------------------------------------------------------------------------------
    # Sequence of play

    def side_groups(
        self, scene: Scene, initiative: str | None = None
    ) -> dict[str, tuple[str, ...]]:
        """Side A: every side with a player character; side B: the others (line 84). The sheet
        dices for no initiative, so `initiative` changes nothing."""
        side_a = sides_with_player_characters(scene)
        every = tuple(dict.fromkeys(u.side for u in scene.units))
        return {
            "A": tuple(s for s in every if s in side_a),
            "B": tuple(s for s in every if s not in side_a),
            "all": every,
        }

    # ----------------------------------------------------------------------------------------
    # Actions

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """The weapons table's short, medium and long ranges (lines 10-16); swords have none."""
        weapon = _weapon(unit)
        reaches = (("short", weapon.short), ("medium", weapon.medium), ("long", weapon.long))
        return tuple(RangeBand(label, reach, weapon.cite) for label, reach in reaches if reach)

    def actions(self) -> dict[str, Action]:
        return {
            **super().actions(),
            "shoot": self.shoot,
            "command": self.command,
            "risk": self.risk,
            "suggest": self.suggest,
            "melee": self.melee,
            "move": self.move,
            "charge": self.charge,
        }

    def shoot(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`shoot SHOOTER TARGET`: who may fire, the band, cover, the D8s and the damage."""
        shooter_id, target_id = expect_args("shoot", args, ("SHOOTER", "TARGET"))
        return self._shoot(Board(self, scene), shooter_id, target_id)

    def command(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`command LEADER`: who the command figure may command and its activation dice."""
        (leader_id,) = expect_args("command", args, ("LEADER",))
        return self._command(Board(self, scene), leader_id)

    def risk(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`risk UNIT`: the risk factors, the actions-table row and its six outcomes."""
        (unit_id,) = expect_args("risk", args, ("UNIT",))
        return self._risk(Board(self, scene), unit_id)

    def melee(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`melee A B`: the figures in base contact, how they pair off, each fight's odds."""
        a_id, b_id = expect_args("melee", args, ("A", "B"))
        return self._melee(Board(self, scene), a_id, b_id)

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT [TARGET]`: the move allowance, and the cost of moving to TARGET."""
        if len(args) == 1:
            return self._move(Board(self, scene), args[0], None)
        unit_id, target_id = expect_args("move", args, ("UNIT", "TARGET"))
        return self._move(Board(self, scene), unit_id, target_id)

    def charge(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`charge A B`: whether A may charge B: who may charge, and B in reach."""
        a_id, b_id = expect_args("charge", args, ("A", "B"))
        return self._charge(Board(self, scene), a_id, b_id)

    def suggest(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`suggest [PHASE]`: every resolution that applies in the phase (all phases without)."""
        if len(args) > 1:
            expect_args("suggest", args, ("PHASE",))
        phase = args[0] if args else None
        if phase is not None and phase not in PHASES:
            raise QuestionError(
                f"{RULESET}: unknown phase {phase!r}; the phases are {accepted(PHASES)}"
            )
        return self._suggest(Board(self, scene, explain=False), phase)

    # ----------------------------------------------------------------------------------------
    # Shooting

    def _shoot(self, board: Board, shooter_id: str, target_id: str) -> Resolution:
        scene = board.scene
        shooter, target_unit = board.unit(shooter_id), board.unit(target_id)
        if shooter.side == target_unit.side:
            raise QuestionError(
                f"{RULESET}: {shooter_id!r} and {target_id!r} are both of side "
                f"{shooter.side!r}; shoot names a shooter and an enemy target"
            )
        weapon = _weapon(shooter)
        quality = _quality(shooter)
        pc = board.is_pc(shooter)
        picked = board.select(target_id)
        individual = pc and target_id != target_unit.id
        target_bases = picked if individual else target_unit.bases
        reasons: list[tuple[str, Cite | None]] = []
        data: dict[str, Any] = {
            "action": "shoot",
            "ruleset": self.id,
            "shooter": shooter_id,
            "target": target_id,
            "weapon": weapon.row,
            "weapon_source": str(weapon.cite),
        }
        if individual:
            near_distance = board.table.closest(shooter.bases, target_bases).distance
        else:
            near_distance = board.table.unit_gap(shooter, target_unit)
        if not weapon.bands:
            return self._no_shot(
                board, data, near_distance, f"{weapon.row} have no shooting range", weapon.cite
            )

        # Who sees a target figure, and at what range (line 55).
        longest = weapon.bands[-1][1]
        view = None if individual else board.unit_sightings(shooter, longest)
        if view is None:
            each = board.sighting_each([[b] for b in shooter.bases], target_bases, longest)
        else:
            each = view.each(board.table.bases, board.number(target_unit))
        eligible = [seen for seen in each if seen is not None]
        if not eligible:
            in_range = geo.within(near_distance, longest)
            why = (
                "no figure sees the entire base of a target figure within range"
                if in_range
                else f"beyond long range ({_fmt(scene, longest)})"
            )
            return self._no_shot(
                board, data, near_distance, why, SIGHT_ENTIRE if in_range else weapon.cite
            )
        eligible.sort(key=lambda e: e[2])
        first_shooter, first_target, distance = eligible[0]
        band = band_of(weapon, distance)
        unc = board.table.uncertainty(first_shooter, first_target)
        edge = band_threshold(weapon, distance, unc)
        assert edge is not None
        data.update(
            distance=length_json(scene, distance),
            band=band,
            between={"shooter": first_shooter.id, "target": first_target.id},
            band_threshold=threshold_json(scene, edge),
        )
        reasons.append(
            (
                f"{first_target.id} is {_fmt(scene, distance)} from {first_shooter.id}: "
                f"{band} range for {weapon.row}"
                + (" (too close to call against the band edge)" if edge.too_close_to_call else ""),
                weapon.cite,
            )
        )

        # A figure hidden in terrain is seen only if a D6 x 10 cm reaches it (line 61).
        hidden = board.table.hiding(self.sight_policy, first_shooter, first_target)
        spot: Roll | None = None
        if hidden is not None:
            spot = Roll.success_roll(
                "to spot",
                1,
                6,
                spotting_need(distance),
                cite=SPOTTING,
                note=f"{first_target.id} stands in {hidden.id}: a D6 x 10 cm must reach "
                f"{_fmt(scene, distance)}",
            )
            data["spotting"] = spot.as_json()
            reasons.append(
                (
                    f"{first_target.id} stands in {hidden.id} ({hidden.kind}): seen only if a D6 "
                    f"x 10 cm reaches {_fmt(scene, distance)}, {spot.need}+ on the D6 (the hits "
                    "below are those of a shot at a figure spotted)",
                    SPOTTING,
                )
            )

        # Uncommanded troops only shoot at the nearest enemy they can hit (line 38).
        commanded = pc or bool(_state(shooter, "commanded"))
        if not commanded:
            verdict = self._nearest_check(board, shooter, target_unit, weapon, distance)
            if verdict is not None:
                data["nearest"] = verdict["json"]
                if not verdict["ok"]:
                    return self._no_shot(board, data, distance, verdict["why"], NEAREST_ONLY)
                reasons.append((verdict["why"], NEAREST_ONLY))

        # How many figures shoot (lines 24-36).
        figures = sum(b.figures for b, _, _ in eligible)
        baker = shooter.get("weapon") == "baker-rifle"
        if commanded:
            who = "player character" if pc else "commanded troops"
            if weapon.gunpowder and not _state(shooter, "loaded"):
                note = (
                    f" (a Baker rifle is no Minie: 1½ turns halted [{NON_MINIE}])" if baker else ""
                )
                return self._no_shot(
                    board,
                    data,
                    distance,
                    f"{who} must spend a turn halted to load" + note,
                    LOADING,
                )
            shooters = figures
            reasons.append((f"{who}: all {figures} figures that see a target fire", ALL_FIRE))
            data["shooters"] = {"figures": figures, "fire": shooters, "rule": "all fire"}
        else:
            moving = bool(_state(shooter, "moved"))
            how = "moving" if moving else "stationary"
            per, ratio_cite = RATIO_CITES[(how, baker)]
            shooters = shooters_allowed(figures, per)
            reasons.append(
                (
                    f"{how} {'Baker riflemen' if baker else 'troops'}: 1 per {per} of {figures} "
                    f"figures that see a target: {shooters} fire",
                    ratio_cite,
                )
            )
            data["shooters"] = {"figures": figures, "fire": shooters, "rule": f"1 per {per}"}
            if shooters == 0:
                return self._no_shot(board, data, distance, "no figure may fire", ratio_cite)

        # To hit: one D8 a shooter (lines 40-43), cover from the terrain (Table.cover).
        reading = board.table.cover(self.cover_policy, first_shooter, first_target)
        row_cite, needs = TO_HIT[band]
        need = needs[reading.cover]
        column = {"none": "open", "soft": "soft cover", "hard": "hard cover"}[reading.cover.value]
        reasons.append(
            (
                f"{band} range, {column}"
                + (f" ({'; '.join(reading.reasons)})" if reading.reasons else "")
                + f": {need}+ on a D8 [{TO_HIT_HEADER}]",
                row_cite,
            )
        )

        # Damage: one D6 a hit (lines 45-49).
        shot = volley(shooters, need, band, column, weapon.gunpowder, quality)
        allocation = self._allocation(board, shooter, target_unit, target_bases, individual)
        data.update(
            allowed=True,
            cover=reading.cover.value,
            cover_reasons=list(reading.reasons),
            rolls=[dict(j) for j in shot.rolls_json],
            hits=dict(shot.hits_json),
            damage=dict(shot.damage_json),
            kills=dict(shot.kills_json),
            wounds=dict(shot.wounds_json),
            allocation=allocation,
            reasons=[{"reason": r, "source": None if c is None else str(c)} for r, c in reasons],
        )
        lines = [
            f"{shooter_id} shoots at {target_id} with {weapon.row.lower()}: allowed"
            + ("" if spot is None else f" if spotted ({spot.need}+ on a D6)")
        ]
        if board.explain:
            lines += [f"- {r}" + (f" [{c}]" if c else "") for r, c in reasons]
            lines += shot.lines
            lines.append(f"- {allocation['summary']}")
        return Resolution("shoot", MappingProxyType(data), tuple(lines))

    def _no_shot(
        self, board: Board, data: dict[str, Any], distance: float, why: str, source: Cite | None
    ) -> Resolution:
        """A shot that may not be taken, with the reason."""
        data.setdefault("distance", length_json(board.scene, distance))
        if "band" not in data:
            weapon = WEAPONS.get(str(board.unit(data["shooter"]).get("weapon")))
            data["band"] = band_of(weapon, distance) if weapon and weapon.bands else "out-of-range"
        data.update(
            allowed=False,
            rolls=[],
            reasons=[{"reason": why, "source": None if source is None else str(source)}],
        )
        lines = [
            f"{data['shooter']} may not shoot at {data['target']}: {why}"
            + (f" [{source}]" if source else "")
        ]
        if board.explain:
            lines.append(f"- {_fmt(board.scene, distance)} between the nearest figures")
        return Resolution("shoot", MappingProxyType(data), tuple(lines))

    def _nearest_check(
        self, board: Board, shooter: Unit, target: Unit, weapon: Weapon, distance: float
    ) -> dict[str, Any] | None:
        """Whether `target` is the nearest enemy the uncommanded shooter can hit (line 38)."""
        longest = weapon.bands[-1][1]
        # The nearest enemy in sight but the target: of equally near ones the first in the
        # scene's order (the list is sorted stably, nearest first).
        found = next(
            (o for o in board.enemies_in_sight(shooter, longest) if o[1].id != target.id), None
        )
        if found is None:
            return None
        d_other, other, (a, b, _) = found
        t = Threshold(distance, d_other, board.table.uncertainty(a, b))
        scene = board.scene
        ok = t.within
        why = (
            f"{target.id} ({_fmt(scene, distance)}) is "
            + ("nearer than" if ok else "further than")
            + f" {other.id} ({_fmt(scene, d_other)}), the nearest other enemy it can hit"
            + (" (too close to call)" if t.too_close_to_call else "")
        )
        if not ok:
            why = "uncommanded troops only shoot at the nearest enemy they can hit: " + why
        return {
            "ok": ok,
            "why": why,
            "json": {
                "other": other.id,
                "threshold": threshold_json(scene, t),
                "verdict": _verdict(t),
            },
        }

    def _allocation(
        self, board: Board, shooter: Unit, target: Unit, bases: Sequence[Base], individual: bool
    ) -> dict[str, Any]:
        """Where hits land (lines 51-53)."""
        if individual:
            return {
                "figures": [b.id for b in bases],
                "summary": f"a player character picks his target: hits fall on {bases[0].id}",
                "source": str(PC_TARGETS),
            }
        pool, rows, joined, summary = self._allocation_pool(board, target, bases)
        # Nearest first (to any shooting figure), ties in the pool's order.
        table = board.table
        row = board.nearest_to_unit(shooter)
        if row is None:
            nearest = table.block(shooter.bases, pool).min(axis=0).tolist()
        else:
            nearest = [row[k] for k in rows]
        ranked = [pool[k] for k in sorted(range(len(pool)), key=nearest.__getitem__)]
        chosen: list[Base] = []
        figures = 0
        for b in ranked:
            if figures >= ALLOCATE_AMONG:
                break
            chosen.append(b)
            figures += b.figures
        return {
            "figures": [b.id for b in chosen],
            "joined": list(joined),
            "summary": summary,
            "source": str(NEAREST_TEN),
        }

    def _allocation_pool(
        self, board: Board, target: Unit, bases: Sequence[Base]
    ) -> tuple[list[Base], list[int], list[dict[str, Any]], str]:
        """The figures hits may fall on (the target group's and the officers joining it,
        line 53), their table indices, the joined officers' JSON and the summary: the same
        for every shooter, so worked out once per target group (memoised on the board; the
        JSON is shared between answers, which copy the list and change nothing)."""
        found = board.allocation_pools.get(target.id)
        if found is None or found[0] is not bases:
            pool = list(bases)
            joined: list[dict[str, Any]] = []
            for b, t in board.leaders_joining(target):
                pool.append(b)
                joined.append(
                    {
                        "base": b.id,
                        "threshold": threshold_json(board.scene, t),
                        "source": str(LEADERS_JOIN),
                    }
                )
            total = sum(b.figures for b in pool)
            summary = (
                f"hits are randomised among the nearest {ALLOCATE_AMONG} of {total} figures"
                if total > ALLOCATE_AMONG
                else f"hits are randomised among the {total} figures of the group"
            )
            if joined:
                summary += " (with " + ", ".join(j["base"] for j in joined) + " within 5 cm)"
            rows = board.table.rows(pool)
            found = board.allocation_pools[target.id] = (bases, (pool, rows, joined, summary))
        return found[1]

    # ----------------------------------------------------------------------------------------
    # Command

    def _leader(self, board: Board, leader_id: str) -> tuple[Unit, Base]:
        unit = board.unit(leader_id)
        if leader_id != unit.id:
            base = board.select(leader_id)[0]
            if not is_command_figure(base):
                raise QuestionError(
                    f"{RULESET}: base {leader_id!r} has role {base.role!r}; a command figure has "
                    f"role {accepted(sorted(COMMAND_ROLES))}"
                )
            return unit, base
        figures = [b for b in unit.bases if is_command_figure(b)]
        if not figures:
            raise QuestionError(
                f"{RULESET}: unit {unit.id!r} has no command figure; give one of its bases "
                f"role {accepted(sorted(COMMAND_ROLES))}"
            )
        return unit, figures[0]

    def _command(self, board: Board, leader_id: str) -> Resolution:
        scene = board.scene
        unit, leader = self._leader(board, leader_id)
        quality = _quality(unit)
        dice, dice_cite = ACTIVATION[quality]
        enclosed_here = board.in_enclosed(leader)
        radius = COMMAND_ENCLOSED_MM if enclosed_here else COMMAND_OPEN_MM
        in_command: list[str] = []
        close_calls: list[dict[str, Any]] = []
        commanded_units: dict[str, list[Base]] = {}
        table = board.table
        on_side = board.side_figures(unit.side)
        at, enclosed = board.side_figure_arrays(unit.side)
        row = table.distances[table.index[leader.id], at]
        limits = np.where(
            enclosed | (enclosed_here is not None), COMMAND_ENCLOSED_MM, COMMAND_OPEN_MM
        )
        # Only figures within the limit or near it (no two bases' combined uncertainty exceeds
        # twice the largest) are in command or too close to call: the rest are not looked at.
        near_limit = 2 * board._most_uncertain
        asked = np.flatnonzero(geo.within(row, limits) | (np.abs(limits - row) <= near_limit))
        measured_at = row[asked].tolist()
        for k, measured in zip(asked.tolist(), measured_at, strict=True):
            friend, base, _, there = on_side[k]
            if friend.id == unit.id and is_command_figure(base):
                continue  # the leader's own bases: it commands the others
            limit = COMMAND_ENCLOSED_MM if (enclosed_here or there) else COMMAND_OPEN_MM
            # `Threshold(distance, limit, uncertainty)`'s verdicts, the object built only
            # for the close calls the answer shows (a command asks of every figure); the
            # uncertainty only for figures near the limit.
            if abs(limit - measured) <= near_limit:
                unc = table.uncertainty(leader, base)
                if abs(limit - measured) <= unc:
                    t = Threshold(measured, limit, unc)
                    close_calls.append({"base": base.id, "threshold": threshold_json(scene, t)})
            if geo.within(measured, limit):
                in_command.append(base.id)
                commanded_units.setdefault(friend.id, []).append(base)

        modifiers: list[Modifier] = []
        busy = [k for k in ("fired", "loading") if _state(unit, k)]
        enemy_bases = board.enemy_bases(unit)
        in_melee = board.contacts(leader, enemy_bases)
        if busy or in_melee:
            why = f"{leader.id} is " + " and ".join(
                (["loading or firing"] if busy else [])
                + ([f"in melee with {in_melee[0][0].id}"] if in_melee else [])
            )
            modifiers.append(Modifier(-1, why, ACTIVATION_BUSY))
        drummers = [
            b.id for u in commanded_units.values() for b in u if b.role in ("drummer", "bugler")
        ]
        if drummers:
            modifiers.append(
                Modifier(
                    1, f"{drummers[0]} ({'drummer or bugler'}) is commanded", ACTIVATION_DRUMMER
                )
            )
        total_dice = max(0, dice + int(sum(m.value for m in modifiers)))
        points = command_points(total_dice)

        costs = []
        cost_all = 0
        for uid, bases in commanded_units.items():
            friend = board.unit(uid)
            status = _status(friend)
            loyal = bool(_state(friend, "loyal"))
            # Routers (line 103) are groups routing, or running from the enemy (module docstring).
            router = status in ROUTERS
            each, cost_cite = LOYAL_COST if loyal and not router else DISLOYAL_COST
            figures = sum(b.figures for b in bases)
            cost_all += each * figures
            why = f"{status} (a router)" if router else "loyal" if loyal else "disloyal"
            costs.append(
                {
                    "unit": uid,
                    "figures": figures,
                    "points_each": each,
                    "why": why,
                    "source": str(cost_cite),
                }
            )
        p_enough, p_enough_json = enough_points(total_dice, cost_all)
        roll = Roll(
            "command points",
            total_dice,
            6,
            None,
            (),
            tuple(modifiers),
            dice_cite,
            note=f"summed for command points [{COMMAND_POINTS}]",
        )
        data: dict[str, Any] = {
            "action": "command",
            "ruleset": self.id,
            "leader": leader_id,
            "leader_base": leader.id,
            "radius": length_json(scene, radius),
            "radius_reason": (
                f"{leader.id} stands in enclosed terrain ({enclosed_here.id})"
                if enclosed_here
                else f"{leader.id} stands in the open"
            ),
            "radius_source": str(COMMAND_DISTANCE),
            "in_command": in_command,
            "too_close_to_call": close_calls,
            "rolls": [roll.as_json()],
            "points": dict(command_points_json(total_dice)),
            "costs": costs,
            "cost_all": cost_all,
            "p_enough_for_all": dict(p_enough_json),
        }
        lines = [
            f"{leader.id} ({quality}) commands within {_fmt(scene, radius)} "
            f"({data['radius_reason']}; 25 cm to or from enclosed terrain) [{COMMAND_DISTANCE}]",
            f"- may command {len(in_command)} figures: {', '.join(in_command) or 'none'}",
        ]
        if not board.explain:
            return Resolution("command", MappingProxyType(data), tuple(lines[:1]))
        for c in close_calls:
            lines.append(f"- {c['base']}: too close to call at the command distance")
        lines.append(
            f"- throws {total_dice}D6 for command points [{dice_cite}]"
            + "".join(f"; {m.value:+g} die: {m.reason} [{m.cite}]" for m in modifiers)
            + f"; mean {float(points.mean):.1f} points"
        )
        for c in costs:
            lines.append(
                f"- {c['unit']}: {c['figures']} figures at {c['points_each']} pt each "
                f"({c['why']}) [{c['source']}]"
            )
        lines.append(f"- P(enough points to activate all {cost_all} pts) = {p_enough}")
        return Resolution("command", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # Risk

    def _risk(self, board: Board, unit_id: str) -> Resolution:
        scene = board.scene
        unit = board.unit(unit_id)
        kind = "cavalry" if _type(unit) == "cavalry" else "infantry"
        table = RISK_FACTORS[kind]
        quality = _quality(unit)
        factors: list[dict[str, Any]] = []
        close_calls: list[str] = []

        def add(key: str, reason: str, times: int = 1, threshold: Threshold | None = None) -> None:
            value, source = table[key]
            entry: dict[str, Any] = {
                "value": value * times,
                "reason": reason,
                "source": str(source),
            }
            if threshold is not None:
                entry["threshold"] = threshold_json(scene, threshold)
                if threshold.too_close_to_call:
                    entry["too_close_to_call"] = True
                    close_calls.append(reason)
            factors.append(entry)

        # Enemies in sight, and one that has the unit within its weapon's range.
        seen, ranged = self._enemy_in_sight(board, unit)
        if seen is None:
            retreating = [
                f
                for f in board.friends(unit)
                if _status(f) in ("running", "retreating", "routing")
                and board.sighting(unit.bases, f.bases) is not None
            ]
            if not retreating:
                add("no-enemy", "no enemy, and no friends retreating, in sight")

        if kind == "infantry":
            hero = self._hero_near(board, unit)
            if hero is not None:
                base, t = hero
                add("hero", f"hero {base.id} within 5 cm ({_fmt(scene, t.measured)})", threshold=t)
            elif any(t.too_close_to_call for _, t in self._hero_gaps(board, unit)):
                close_calls.append("a hero just beyond 5 cm (too close to call)")
            if _state(unit, "regular"):
                add("regulars", "unit formed of regulars")
        elif quality in ("veteran", "hero") or any(b.role == "officer" for b in unit.bases):
            good = f"{quality} troops" if quality != "raw" else "an officer leads it"
            add("good", f"good troops or officer: {good}")

        covered, cover_reasons = board.entirely_in_cover(unit)
        if covered:
            add("cover", "unit entirely in cover: " + "; ".join(cover_reasons))

        if ranged is not None:
            enemy, weapon, t = ranged
            why = (
                f"{enemy.id} in sight, {_fmt(scene, t.measured)} away, within "
                f"{weapon.row.lower()} range ({_fmt(scene, t.limit)})"
            )
            add("in-range", why, threshold=t)
            if quality == "raw":
                add("raw", f"{'raw' if kind == 'infantry' else 'poor'} unit in range of {enemy.id}")

        losses = int(_state(unit, "casualties"))
        wounded = int(_state(unit, "wounded"))
        strength = (
            int(_state(unit, "strength"))
            if unit.get("strength") is not None
            else unit.figures + losses
        )
        tenths = (10 * (losses + wounded)) // strength if strength else 0
        if tenths:
            add(
                "losses",
                f"{losses + wounded} of {strength} figures wounded or killed: {tenths} x 10%",
                times=tenths,
            )

        flank = self._flank_enemy(board, unit) if seen is not None else None
        if flank is not None:
            add("flank", flank)

        if kind == "infantry" and _type(unit) == "infantry" and not covered:
            shock = self._shock_cavalry(board, unit)
            if shock is not None:
                cav, t = shock
                # A lone figure or a player character forms no square or circle: it has no
                # formation to read (module docstring).
                alone = unit.figures <= 1 or board.is_pc(unit)
                formation = "a lone figure" if alone else str(_state(unit, "formation"))
                if formation not in ("square", "circle"):
                    add(
                        "shock-cavalry",
                        f"shock cavalry {cav.id} within 50 cm "
                        f"({_fmt(scene, t.measured)}), "
                        + ("a lone figure in no square" if alone else "not in square or circle"),
                        threshold=t,
                    )

        status = _status(unit)
        if status in ("running", "retreating"):
            add("running", f"status {status}")

        rf = int(sum(f["value"] for f in factors))
        label = row_label(rf)
        outcomes = ACTIONS_TABLE[kind][label]
        commanded = unit.get("commanded") is True or is_player_character(unit)
        data: dict[str, Any] = {
            "action": "risk",
            "ruleset": self.id,
            "unit": unit_id,
            "table": kind,
            "risk_factor": rf,
            "factors": factors,
            "row": label,
            "row_source": str(outcomes[0].cite),
            "roll": dict(actions_roll_json(kind, label)),
            "outcomes": [dict(o) for o in outcomes_json(kind, label)],
            "italics": {
                "commanded": commanded,
                "rule": "commanded troops and player characters ignore shooting and movement "
                "instructions written in italics",
                "source": str(ITALICS[kind]),
            },
            "too_close_to_call": close_calls,
        }
        lines = [f"{unit_id} ({kind} table): risk factor {rf}, row {label}"]
        if not board.explain:
            return Resolution("risk", MappingProxyType(data), tuple(lines))
        lines += [f"- {f['value']:+d} {f['reason']} [{f['source']}]" for f in factors] or [
            "- no risk factor applies"
        ]
        lines += [f"- too close to call: {c}" for c in close_calls]
        for o in outcomes:
            mark = " (italics" + (": a commanded group may ignore it" if commanded else "") + ")"
            lines.append(f"  D6 {o.face}: {o.text}{mark if o.italic else ''}")
        return Resolution("risk", MappingProxyType(data), tuple(lines))

    def _hero_gaps(self, board: Board, unit: Unit) -> list[tuple[Base, Threshold]]:
        """Each hero of another group of the side (in the groups' order) within 5 cm of the
        unit or too close to call, with its distance to the nearest figure of the unit
        against 5 cm (line 119), read off one block of the table's distances (the first
        nearest figure, as `Table.closest` names it); memoised per unit (a risk asks it
        twice). Heroes further off are left out: no two bases' combined uncertainty exceeds
        twice the largest, so they are neither within nor too close to call."""
        found = board.hero_gaps.get(unit.id)
        if found is not None:
            return found
        heroes = [b for f, b in board.side_heroes(unit.side) if f.id != unit.id]
        found = board.hero_gaps[unit.id] = []
        if heroes:
            table = board.table
            block = table.block(heroes, unit.bases)
            gaps = block.min(axis=1)
            reach = HERO_NEAR_MM + 2 * board._most_uncertain
            for i in np.flatnonzero(geo.within(gaps, reach)).tolist():
                j = int(block[i].argmin())
                b = heroes[i]
                t = Threshold(float(block[i, j]), HERO_NEAR_MM, table.uncertainty(b, unit.bases[j]))
                found.append((b, t))
        return found

    def _hero_near(self, board: Board, unit: Unit) -> tuple[Base, Threshold] | None:
        """The nearest hero of another group of the side within 5 cm of the unit (line 119)."""
        found = [(b, t) for b, t in self._hero_gaps(board, unit) if t.within]
        return min(found, key=lambda f: f[1].measured) if found else None

    def _enemy_in_sight(
        self, board: Board, unit: Unit
    ) -> tuple[Base | None, tuple[Unit, Weapon, Threshold] | None]:
        """The nearest enemy figure in sight, and the nearest enemy group in sight that has the
        unit within its weapon's long range (lines 117, 123), in one pass nearest first."""
        if board.layout is not None:
            return self._enemy_in_sight_rows(board, unit)
        weapons, owner = board.enemy_weapons(unit)
        seen: Base | None = None
        for a, b, d in board.seen_nearest_first(unit.bases, board.enemy_bases(unit)):
            enemy = owner[b.id]
            bands = weapons[enemy.id].bands
            seen = seen or b
            if bands and geo.within(d, bands[-1][1]):
                t = Threshold(d, bands[-1][1], board.table.uncertainty(a, b))
                return seen, (enemy, weapons[enemy.id], t)
        return seen, None

    def _enemy_in_sight_rows(
        self, board: Board, unit: Unit
    ) -> tuple[Base | None, tuple[Unit, Weapon, Threshold] | None]:
        """`_enemy_in_sight` off the unit's `Board.enemy_rows`: the pairs in sight nearest
        first, ties in reading order, is the order `argmin` reads the rows in."""
        weapons, owner = board.enemy_weapons(unit)
        seen = board.enemy_rows(unit, math.inf)
        bases, n = board.table.bases, seen.shape[1]
        k = int(seen.argmin())
        if not seen.flat[k] < math.inf:
            return None, None
        nearest = bases[k % n]
        in_reach = np.where(geo.within(seen, board.enemy_reach(unit)[None, :]), seen, math.inf)
        k = int(in_reach.argmin())
        d = float(in_reach.flat[k])
        if not d < math.inf:
            return nearest, None
        a, b = bases[board.number_first(unit) + k // n], bases[k % n]
        enemy = owner[b.id]
        weapon = weapons[enemy.id]
        t = Threshold(d, weapon.bands[-1][1], board.table.uncertainty(a, b))
        return nearest, (enemy, weapon, t)

    def _flank_enemy(self, board: Board, unit: Unit) -> str | None:
        """An enemy figure in sight standing to the flank or rear of a figure of the unit."""
        asked: Iterable[tuple[Base, Base]]
        if board.layout is None:
            pairs = board.seen_nearest_first(unit.bases, board.enemy_bases(unit))
            asked = [pairs[k][:2] for k in np.flatnonzero(~_surely_in_front(pairs)).tolist()]
        else:
            asked = board.flank_candidates(unit)
        for base, e in asked:
            where = geo.aspect(e, base)
            if where.aspect is not geo.Aspect.FRONT:
                unc = board.table.uncertainty(e, base)
                close = " (too close to call)" if where.margin <= unc else ""
                return f"{e.id} is to the {where.aspect.value} of {base.id}{close}"
        return None

    def _shock_cavalry(self, board: Board, unit: Unit) -> tuple[Unit, Threshold] | None:
        """The nearest enemy shock cavalry within 50 cm (line 128)."""
        found = []
        for enemy in board.shock_cavalry(unit):
            if board.table.unit_gap(unit, enemy) > SHOCK_CAVALRY_MM:
                continue  # not `Threshold.within`: the pair need not be named
            near = board.table.unit_distance(unit, enemy)
            t = Threshold(near.distance, SHOCK_CAVALRY_MM, board.table.uncertainty(near.a, near.b))
            if t.within:
                found.append((enemy, t))
        return min(found, key=lambda f: f[1].measured) if found else None

    # ----------------------------------------------------------------------------------------
    # Melee

    def _melee(self, board: Board, a_id: str, b_id: str) -> Resolution:
        scene = board.scene
        side_a, side_b = board.unit(a_id), board.unit(b_id)
        if side_a.side == side_b.side:
            raise QuestionError(
                f"{RULESET}: {a_id!r} and {b_id!r} are both of side {side_a.side!r}; "
                "melee names two enemy groups"
            )
        bases_a, bases_b = list(scene.select(a_id)), list(scene.select(b_id))
        for b in bases_a + bases_b:
            if b.figures != 1:
                raise QuestionError(
                    f"{RULESET}: base {b.id!r} holds {b.figures} figures; melee is figure to "
                    "figure, so give each figure its own base (figures: 1)"
                )
        touching: set[tuple[str, str]] = set()
        close: list[dict[str, Any]] = []
        for a in bases_a:
            for b, t in board.contacts(a, bases_b):
                touching.add((a.id, b.id))
                if t.measured > geo.EPS:
                    close.append({"a": a.id, "b": b.id, "threshold": threshold_json(scene, t)})
        data: dict[str, Any] = {"action": "melee", "ruleset": self.id, "a": a_id, "b": b_id}
        if not touching:
            near = board.table.closest(bases_a, bases_b)
            data.update(in_contact=False, distance=length_json(scene, near.distance), fights=[])
            return Resolution(
                "melee",
                MappingProxyType(data),
                (
                    f"{a_id} and {b_id} are not in base contact: {_fmt(scene, near.distance)} "
                    f"apart ({near.a.id} to {near.b.id})",
                ),
            )
        pairs = match_evenly([b.id for b in bases_a], [b.id for b in bases_b], touching)
        by_id = {b.id: b for b in bases_a + bases_b}
        unit_of = {b.id: side_a for b in bases_a} | {b.id: side_b for b in bases_b}
        opponents: dict[str, list[str]] = {}
        for x, y in pairs:
            opponents.setdefault(x, []).append(y)
            opponents.setdefault(y, []).append(x)
        mods = {
            fid: self._melee_modifiers(
                board, by_id[fid], unit_of[fid], [(by_id[o], unit_of[o]) for o in opponents[fid]]
            )
            for fid in opponents
        }
        fights = []
        lines = [f"melee {a_id} against {b_id} [{MATCHING}]"]
        totals = {"a_wins": Fraction(0), "b_wins": Fraction(0)}
        for x, y in pairs:
            mx, my = int(sum(m.value for m in mods[x])), int(sum(m.value for m in mods[y]))
            odds = melee_odds(mx, my)
            totals["a_wins"] += odds["a_wins"]
            totals["b_wins"] += odds["b_wins"]
            fights.append(
                {
                    "a": x,
                    "b": y,
                    "a_modifiers": [m.as_json() for m in mods[x]],
                    "b_modifiers": [m.as_json() for m in mods[y]],
                    "a_modifier": mx,
                    "b_modifier": my,
                    "odds": melee_odds_json(mx, my),
                }
            )
            lines.append(
                f"- {x} ({mx:+d}) v {y} ({my:+d}): {x} wins {odds['a_wins']} (wounds "
                f"{odds['a_wounds']}, kills {odds['a_kills']}), {y} wins {odds['b_wins']} "
                f"(wounds {odds['b_wounds']}, kills {odds['b_kills']}), draw {odds['draw']}"
            )
            for fid, ms in ((x, mods[x]), (y, mods[y])):
                for m in ms:
                    lines.append(f"    {fid} {m.value:+g}: {m.reason} [{m.cite}]")
        engaged = {f for p in pairs for f in p}
        idle = [b.id for b in bases_a + bases_b if b.id not in engaged]
        for c in close:
            lines.append(f"- {c['a']} and {c['b']}: contact too close to call")
        lines.append(
            f"- each D6 [{MELEE_DIE}]; the winner wounds on a natural 5, kills on a natural 6 "
            f"[{MELEE_HITS}]; the side with the worse results (both if drawn) is moved back "
            f"{_fmt(scene, MELEE_BACK_MM)} [{MELEE_BACK}]"
        )
        data.update(
            in_contact=True,
            contacts=sorted([list(p) for p in touching]),
            too_close_to_call=close,
            fights=fights,
            not_engaged=idle,
            rolls=[
                Roll(
                    "melee",
                    1,
                    6,
                    None,
                    cite=MELEE_DIE,
                    note="one D6 a figure, modified; compare with the opponent",
                ).as_json()
            ],
            expected_fights_won={"a": _frac(totals["a_wins"]), "b": _frac(totals["b_wins"])},
            pull_back={
                "loser": length_json(scene, MELEE_BACK_MM),
                "source": str(MELEE_BACK),
                "rule": "the group(s) with the worst results, or both if drawn, move back",
            },
        )
        return Resolution("melee", MappingProxyType(data), tuple(lines))

    def _melee_modifiers(
        self, board: Board, me: Base, unit: Unit, opponents: list[tuple[Base, Unit]]
    ) -> list[Modifier]:
        """Lines 72-74, for one figure against the opponents it fights."""
        mods = []
        if _quality(unit) == "raw":
            mods.append(Modifier(-1, "raw", MELEE_RAW))
        enemy_bases = board.enemy_bases(unit)
        touching = board.contacts(me, enemy_bases)
        if len(touching) > 1:
            mods.append(
                Modifier(
                    -(len(touching) - 1), f"{len(touching)} enemies in base contact", MELEE_RAW
                )
            )
        if is_hero(unit, me):
            mods.append(Modifier(1, "a hero", MELEE_HERO))
        mine = self._melee_factor(unit)
        theirs = max(self._melee_factor(u) for _, u in opponents)
        if mine > theirs:
            mods.append(Modifier(1, f"melee factor {mine} beats {theirs}", MELEE_FACTOR))
        return mods

    def _melee_factor(self, unit: Unit) -> int:
        weapon = _weapon(unit)
        if weapon.bayonet_melee is None:
            return weapon.melee
        bayonet = _state(unit, "bayonet")
        return weapon.bayonet_melee if bayonet else weapon.melee

    # ----------------------------------------------------------------------------------------
    # Movement and charges

    def _allowance(self, unit: Unit) -> tuple[float, str, Cite]:
        """The most a group may move this turn (lines 107-109), with why."""
        kind = _type(unit)
        if kind == "cavalry":
            pace, _, top, pace_cite = CAVALRY_PACES[-1]
            return top, f"cavalry at the {pace}", pace_cite
        if _state(unit, "heavy_armour"):
            return ARMOUR_MOVE[0], "foot in heavy armour/clothing", ARMOUR_MOVE[1]
        wounded = int(_state(unit, "wounded"))
        if kind == "civilians" or wounded:
            why = "civilians" if kind == "civilians" else f"{wounded} wounded figures"
            return WOUNDED_MOVE[0], why, WOUNDED_MOVE[1]
        return FOOT_MOVE[0], "foot figures", FOOT_MOVE[1]

    def _difficult(self, piece: Terrain) -> bool:
        flag = piece.attrs.get("difficult")
        if isinstance(flag, bool):
            return flag
        return piece.kind in DIFFICULT_KINDS

    def _path(self, board: Board, unit: Unit, target: Sequence[Base]) -> dict[str, Any]:
        """Cost of moving the group's nearest figure straight into contact with `target`."""
        near = board.table.closest(unit.bases, target)
        eye, aim = (near.a.x, near.a.y), (near.b.x, near.b.y)
        difficult_mm = 0.0
        crossed: list[str] = []
        hard_going: list[str] = []
        lo_x, hi_x = min(eye[0], aim[0]), max(eye[0], aim[0])
        lo_y, hi_y = min(eye[1], aim[1]), max(eye[1], aim[1])
        for piece, poly, (x0, y0, x1, y1) in board.terrain_boxes:
            if (
                x0 > hi_x + geo.EPS
                or x1 < lo_x - geo.EPS
                or y0 > hi_y + geo.EPS
                or y1 < lo_y - geo.EPS
            ):
                continue  # the line and its ends lie wholly outside the piece's bounding box
            total, _, _ = geo.length_inside(eye, aim, geo.Obstacle(piece.id, poly))
            inside_end = bool(geo.point_in_polygon(aim, poly)) or bool(
                geo.point_in_polygon(eye, poly)
            )
            if total <= geo.EPS and not inside_end:
                continue
            if self._difficult(piece):
                difficult_mm += total
                hard_going.append(piece.id)
            elif piece.kind in BARRIER_KINDS:
                crossed.append(piece.id)
        difficult_mm = min(difficult_mm, near.distance)
        return {
            "from": near.a,
            "to": near.b,
            "distance": near.distance,
            "difficult": difficult_mm,
            "difficult_pieces": hard_going,
            "barriers": crossed,
        }

    def _move(self, board: Board, unit_id: str, target_id: str | None) -> Resolution:
        scene = board.scene
        unit = board.unit(unit_id)
        allowance, why, allowance_cite = self._allowance(unit)
        kind = _type(unit)
        data: dict[str, Any] = {
            "action": "move",
            "ruleset": self.id,
            "unit": unit_id,
            "allowance": length_json(scene, allowance),
            "allowance_reason": why,
            "allowance_source": str(allowance_cite),
        }
        lines = [f"{unit_id} may move up to {_fmt(scene, allowance)} ({why}) [{allowance_cite}]"]
        if kind == "cavalry":
            data["paces"] = [
                {
                    "pace": p,
                    "from": length_json(scene, lo),
                    "to": length_json(scene, hi),
                    "source": str(c),
                }
                for p, lo, hi, c in CAVALRY_PACES
            ]
            lines.append(
                "- "
                + ", ".join(
                    f"{p} {_fmt(scene, lo)}-{_fmt(scene, hi)}" for p, lo, hi, _ in CAVALRY_PACES
                )
                + f" [{CAVALRY_PACES[0][3]}]"
            )
        standing = sorted(
            {t.id for b in unit.bases for t in board.centre_in(b) if self._difficult(t)}
        )
        data["in_difficult_going"] = standing
        if standing:
            lines.append(
                f"- stands in difficult going ({', '.join(standing)}): every cm there counts "
                f"double, {_fmt(scene, allowance / 2)} of it at most [{DIFFICULT_GOING}]"
            )
        if target_id is not None:
            target = scene.select(target_id)
            if any(b.unit_id == unit.id for b in target):
                raise QuestionError(f"{RULESET}: {unit_id!r} cannot move to its own {target_id!r}")
            path = self._path(board, unit, target)
            barrier_cost = allowance / 4 * len(path["barriers"])
            cost = path["distance"] + path["difficult"] + barrier_cost
            t = Threshold(cost, allowance, board.table.uncertainty(path["from"], path["to"]))
            data["path"] = {
                "from": path["from"].id,
                "to": path["to"].id,
                "distance": length_json(scene, path["distance"]),
                "difficult": length_json(scene, path["difficult"]),
                "difficult_pieces": path["difficult_pieces"],
                "barriers": path["barriers"],
                "barrier_cost": length_json(scene, barrier_cost),
                "cost": length_json(scene, cost),
            }
            data["reachable"] = t.within
            data["threshold"] = threshold_json(scene, t)
            lines.append(
                f"- to {target_id}: {_fmt(scene, path['distance'])} from {path['from'].id} to "
                f"{path['to'].id}"
                + (
                    f", +{_fmt(scene, path['difficult'])} for difficult going "
                    f"({', '.join(path['difficult_pieces'])}) [{DIFFICULT_GOING}]"
                    if path["difficult"] > 0
                    else ""
                )
                + (
                    f", +{_fmt(scene, barrier_cost)} to clear "
                    f"{', '.join(path['barriers'])} [{BARRIER}]"
                    if path["barriers"]
                    else ""
                )
                + f": costs {_fmt(scene, cost)}, {_verdict(t)} the allowance"
            )
            if kind == "cavalry":
                pace = next((p for p, lo, hi, _ in CAVALRY_PACES if cost <= hi), None)
                data["pace"] = pace
                if pace is not None:
                    lines.append(f"- at the {pace}")
        platoon = self._platoon(board, unit)
        data["platoon"] = platoon
        lines.append(f"- {platoon['summary']}")
        return Resolution("move", MappingProxyType(data), tuple(lines))

    def _platoon(self, board: Board, unit: Unit) -> dict[str, Any]:
        """Lines 143 and 186: a platoon within 5 cm of each other with an officer or NCO near."""
        kind = "cavalry" if unit.get("type") == "cavalry" else "infantry"
        rule = PLATOON_RULE[kind]
        name = unit.get("platoon")
        if name is None:
            return {
                "platoon": None,
                "in_company": False,
                "source": str(rule),
                "summary": f"not part of a platoon (give platoon: NAME) [{rule}]",
            }
        members = [u for u in board.scene.units if u.side == unit.side and u.get("platoon") == name]
        # Linked by gaps of at most 5 cm: grow the group from this unit.
        # No two bases' combined uncertainty exceeds twice the largest: groups further apart
        # than 5 cm and that are neither within 5 cm nor too close to call.
        reach = 2 * board._most_uncertain
        linked = {unit.id}
        grow = True
        close: list[str] = []
        while grow:
            grow = False
            for m in members:
                if m.id in linked:
                    continue
                for other in members:
                    if other.id not in linked:
                        continue
                    if board.table.unit_gap(m, other) - PLATOON_MM > reach:
                        continue  # neither within 5 cm nor too close to call
                    near = board.table.unit_distance(m, other)
                    t = Threshold(
                        near.distance, PLATOON_MM, board.table.uncertainty(near.a, near.b)
                    )
                    if t.too_close_to_call:
                        close.append(f"{m.id}-{other.id}")
                    if t.within:
                        linked.add(m.id)
                        grow = True
                        break
        together = len(linked) == len(members)
        officer = None
        bases = [b for m in members for b in m.bases]
        # The first officer or NCO of the side (in the scene's order) within 5 cm of a member,
        # by its first nearest figure (as `Table.closest` names it).
        officers = [b for _, b in board.side_officers(unit.side) if b.role in ("officer", "nco")]
        if officers and bases:
            block = board.table.block(officers, bases)
            gaps = block.min(axis=1).tolist()
            first = next((i for i, d in enumerate(gaps) if d <= PLATOON_MM), None)
            if first is not None:
                b = officers[first]
                near_b = bases[int(block[first].argmin())]
                t = Threshold(gaps[first], PLATOON_MM, board.table.uncertainty(b, near_b))
                officer = b.id
                if t.too_close_to_call:
                    close.append(f"{b.id}")
        in_company = together and officer is not None
        summary = (
            f"platoon {name!r} ({', '.join(m.id for m in members)}): "
            + ("all within 5 cm of each other" if together else "not all within 5 cm")
            + (f", {officer} within 5 cm" if officer else ", no officer or NCO within 5 cm")
            + (
                ": uncommanded, it stays in company with the first group of its platoon to move "
                "when its orders are in italics"
                if in_company
                else ": each group acts alone"
            )
            + f" [{rule}]"
        )
        return {
            "platoon": name,
            "members": [m.id for m in members],
            "together": together,
            "officer": officer,
            "in_company": in_company,
            "too_close_to_call": close,
            "source": str(rule),
            "summary": summary,
        }

    def _charge(self, board: Board, a_id: str, b_id: str) -> Resolution:
        scene = board.scene
        unit, target = board.unit(a_id), board.unit(b_id)
        if unit.side == target.side:
            raise QuestionError(
                f"{RULESET}: {a_id!r} and {b_id!r} are both of side {unit.side!r}; "
                "charge names a group and an enemy"
            )
        pc = board.is_pc(unit)
        commanded = pc or bool(_state(unit, "commanded"))
        allowance, why, allowance_cite = self._allowance(unit)
        path = self._path(board, unit, board.select(b_id))
        barrier_cost = allowance / 4 * len(path["barriers"])
        cost = path["distance"] + path["difficult"] + barrier_cost
        t = Threshold(cost, allowance, board.table.uncertainty(path["from"], path["to"]))
        reasons = []
        allowed = t.within
        reasons.append(
            f"{b_id} costs {_fmt(scene, cost)} to reach ({_fmt(scene, path['distance'])}"
            + (f" + {_fmt(scene, path['difficult'])} difficult going" if path["difficult"] else "")
            + (f" + {_fmt(scene, barrier_cost)} for barriers" if path["barriers"] else "")
            + f"), reach {_fmt(scene, allowance)} ({why}): {_verdict(t)} [{allowance_cite}]"
        )
        nearest_id = None
        if commanded:
            reasons.append(
                f"{'a player character' if pc else 'commanded troops'} may charge if in reach "
                f"and not forced to move otherwise by the actions table [{CHARGE_WHO}]"
            )
        else:
            nearest = board.nearest_enemy(unit)
            assert nearest is not None  # the target is one
            nearest_id = nearest.id
            if nearest.id != target.id:
                allowed = False
            reasons.append(
                f"uncommanded: charges only on a (Charge?) result of the actions table, at the "
                f"nearest enemy in reach ({nearest.id}) [{CHARGE_NEAREST}]"
            )
        data = {
            "action": "charge",
            "ruleset": self.id,
            "a": a_id,
            "b": b_id,
            "allowed": allowed,
            "commanded": commanded,
            "reach": length_json(scene, allowance),
            "cost": length_json(scene, cost),
            "distance": length_json(scene, path["distance"]),
            "threshold": threshold_json(scene, t),
            "nearest_enemy": nearest_id,
            "reasons": reasons,
            "source": str(CHARGE_WHO),
        }
        head = f"{a_id} {'may' if allowed else 'may not'} charge {b_id}"
        return Resolution("charge", MappingProxyType(data), (head, *[f"- {r}" for r in reasons]))

    # ----------------------------------------------------------------------------------------
    # Outcomes: what the dice the players threw do to the game

    def outcomes(self) -> dict[str, OutcomeRule]:
        return {
            "shoot": OutcomeRule(self._shoot_form, self._shoot_apply),
            "melee": OutcomeRule(self._melee_form, self._melee_apply),
            "risk": OutcomeRule(self._risk_form, self._risk_apply),
            "command": OutcomeRule(self._command_form, self._command_apply),
            "charge": OutcomeRule(_no_form, self._charge_apply),
            "move": OutcomeRule(_no_form, self._move_apply),
        }

    def _shoot_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Hits (lines 40-43), then each hit's damage D6 as kills and wounds (lines 45-49),
        and the figures killed, taken off the table (lines 51-53)."""
        data = self.resolve(scene, "shoot", args).data
        if not data["allowed"]:
            return ()
        fire = int(data["shooters"]["fire"])
        need = int(data["rolls"][0]["need"])
        weapon = WEAPONS[str(scene.unit_of(args[0]).get("weapon"))]
        shift = int(data["damage"]["modifier"])
        damage_cite, faces = DAMAGE_ROWS[weapon.gunpowder]
        why = {1: " (+1 hero)", -1: " (-1 raw shooters)"}.get(shift, "")
        read = f"damage D6{why}"
        target = scene.unit_of(args[1])
        pool = tuple(data["allocation"]["figures"])
        hits = [p["exact"] for p in data["hits"]["distribution"]]
        likeliest = max(range(len(hits)), key=lambda k: Fraction(hits[k]))
        return (
            Report(
                "hits",
                Kind.COUNT,
                f"hits: D8s showing {need} or more ({fire} thrown)",
                TO_HIT[data["band"]][0],
                maximum=fire,
                default=likeliest,
            ),
            Report(
                "kills",
                Kind.COUNT,
                f"figures killed: hits whose {read} reads Kill ({_faces(faces, 'kill')})",
                damage_cite,
                maximum=fire,
                default=0,
            ),
            Report(
                "wounds",
                Kind.COUNT,
                f"figures wounded: hits whose {read} reads Wound ({_faces(faces, 'wound')})",
                damage_cite,
                maximum=fire,
                default=0,
            ),
            Report(
                "taken_off",
                Kind.BASES,
                f"which figures of {target.id} are killed and taken off the table",
                PC_TARGETS if len(pool) == 1 and args[1] != target.id else NEAREST_TEN,
                maximum=fire,
                unit=target.id,
                bases=pool,
                default=(),
            ),
        )

    def _shoot_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        if not self._shoot_form(scene, args):
            return ()
        hits, kills, wounds = (int(reported[k]) for k in ("hits", "kills", "wounds"))
        shooter, target = scene.unit_of(args[0]), scene.unit_of(args[1])
        what = f"{args[0]} shoot {args[1]}"
        if kills + wounds > hits:
            raise QuestionError(
                f"{RULESET} {what}: {kills} killed and {wounds} wounded come from {hits} hits; "
                f"each hit throws one damage D6 [{DAMAGE_ROWS[True][0]}]"
            )
        off = [scene.base(b) for b in reported["taken_off"]]
        changes = self._losses(scene, target, kills, wounds, off, what, DAMAGE_ROWS[True][0])
        changes.append(Change(shooter.id, "fired", True, "fired this turn", FIRING))
        return tuple(changes)

    def _losses(
        self,
        scene: Scene,
        group: Unit,
        kills: int,
        wounds: int,
        off: Sequence[Base],
        what: str,
        source: Cite,
    ) -> list[Change]:
        """The changes of `kills` figures killed and `wounds` wounded in `group`, the bases
        `off` taken off the table: a base goes when every figure on it is killed, so the
        figures taken off are at most the kills, and the kills left over must fit on the
        bases that stay. An officer of another group who had joined it (line 53) counts in
        his own group's casualties; wounds count in the target group (module docstring)."""
        taken = sum(b.figures for b in off)
        if taken > kills:
            raise QuestionError(
                f"{RULESET} {what}: {', '.join(b.id for b in off)} hold {taken} figures, but "
                f"{kills} were killed"
            )
        off_ids = {b.id for b in off}
        spare = sum(b.figures - 1 for b in group.bases if b.id not in off_ids)
        if kills - taken > spare:
            raise QuestionError(
                f"{RULESET} {what}: {kills} killed, so take off {kills - taken - spare} more "
                f"figure(s) of those hit (a base with one figure goes when he is killed)"
            )
        changes: list[Change] = []
        by_group: dict[str, int] = {}
        for b in off:
            by_group[b.unit_id] = by_group.get(b.unit_id, 0) + b.figures
        own = kills - sum(n for u, n in by_group.items() if u != group.id)
        for uid, n in [(group.id, own)] + [(u, n) for u, n in by_group.items() if u != group.id]:
            if n:
                unit = scene.unit_of(uid)
                before = int(_state(unit, "casualties"))
                changes.append(Change(uid, "casualties", before + n, f"{n} killed", source))
        if wounds:
            before = int(_state(group, "wounded"))
            alive = group.figures - own
            after = min(before + wounds, max(alive, 0))
            changes.append(Change(group.id, "wounded", after, f"{wounds} wounded", source))
        changes += [
            Change(b.id, "removed", True, "killed: taken off the table", source, Scope.BASE)
            for b in off
        ]
        return changes

    def _melee_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Each side's result (line 80), the wounds and kills of the winners' natural 5s and
        6s (line 78), and the figures killed."""
        data = self.resolve(scene, "melee", args).data
        if not data["in_contact"]:
            return ()
        fights = data["fights"]
        n = len(fights)
        unit_a, unit_b = scene.unit_of(args[0]), scene.unit_of(args[1])
        engaged_a = tuple(dict.fromkeys(f["a"] for f in fights))
        engaged_b = tuple(dict.fromkeys(f["b"] for f in fights))
        won = data["expected_fights_won"]
        a_won, b_won = Fraction(won["a"]["exact"]), Fraction(won["b"]["exact"])
        worse = unit_b.id if a_won > b_won else unit_a.id if b_won > a_won else "drawn"
        reports = [
            Report(
                "worse",
                Kind.CHOICE,
                f"which group had the worse results ({unit_a.id}, {unit_b.id} or drawn): it "
                "is moved back 5 cm, both if drawn",
                MELEE_BACK,
                choices=(unit_a.id, unit_b.id, "drawn"),
                default=worse,
            )
        ]
        for key, unit, engaged in (("a", unit_a, engaged_a), ("b", unit_b, engaged_b)):
            reports += [
                Report(
                    f"killed_{key}",
                    Kind.COUNT,
                    f"figures of {unit.id} killed (an opponent won with a natural 6)",
                    MELEE_HITS,
                    maximum=n,
                    default=0,
                ),
                Report(
                    f"wounded_{key}",
                    Kind.COUNT,
                    f"figures of {unit.id} wounded (an opponent won with a natural 5)",
                    MELEE_HITS,
                    maximum=n,
                    default=0,
                ),
                Report(
                    f"taken_off_{key}",
                    Kind.BASES,
                    f"which figures of {unit.id} are killed and taken off the table",
                    KILLED_OFF,
                    maximum=n,
                    unit=unit.id,
                    bases=engaged,
                    default=(),
                ),
            ]
        return tuple(reports)

    def _melee_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        form = self._melee_form(scene, args)
        if not form:
            return ()
        fights = next(r.maximum for r in form if r.name == "killed_a") or 0
        hits = sum(int(reported[f"{k}_{s}"]) for k in ("killed", "wounded") for s in "ab")
        what = f"melee {args[0]} {args[1]}"
        if hits > fights:
            raise QuestionError(
                f"{RULESET} {what}: {hits} figures killed or wounded, but only {fights} fights: "
                f"the winner of a fight wounds or kills one opponent [{MELEE_HITS}]"
            )
        changes: list[Change] = []
        units = {"a": scene.unit_of(args[0]), "b": scene.unit_of(args[1])}
        for key, unit in units.items():
            off = [scene.base(b) for b in reported[f"taken_off_{key}"]]
            kills, wounds = int(reported[f"killed_{key}"]), int(reported[f"wounded_{key}"])
            changes += self._losses(scene, unit, kills, wounds, off, what, MELEE_HITS)
        worse = reported["worse"]
        for unit in units.values():
            if worse in (unit.id, "drawn"):
                why = "drawn: both move back 5 cm" if worse == "drawn" else "worse results"
                changes.append(
                    Change(unit.id, "status", "retreating", f"{why}, moved back 5 cm", MELEE_BACK)
                )
        return tuple(changes)

    def _risk_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """The row of the actions table (the risk factor's) and the D6 thrown on it."""
        data = self.resolve(scene, "risk", args).data
        row = ACTIONS_TABLE[data["table"]][data["row"]][0]
        return (
            Report(
                "row",
                Kind.CHOICE,
                f"the actions-table row (risk factor {data['risk_factor']})",
                row.cite,
                choices=ROW_LABELS,
                default=data["row"],
            ),
            Report(
                "face",
                Kind.COUNT,
                "the D6 thrown on the actions table (1 to 6)",
                row.cite,
                maximum=D6_FACES,
            ),
        )

    def _risk_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        face = int(reported["face"])
        if face < 1:
            raise QuestionError(f"{RULESET} risk {args[0]}: face is 0; a D6 shows 1 to 6")
        data = self.resolve(scene, "risk", args).data
        row = str(reported["row"])
        outcome = ACTIONS_TABLE[data["table"]][row][face - 1]
        unit = scene.unit_of(args[0])
        before = _status(unit)
        after, why = status_after(outcome, row, before, bool(data["italics"]["commanded"]))
        if after == before:
            return ()
        return (Change(unit.id, "status", after, f"D6 {face} on row {row}: {why}", outcome.cite),)

    def _command_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """The command points thrown (line 84), and which groups in command distance they
        activate (lines 99-103)."""
        data = self.resolve(scene, "command", args).data
        if not data["costs"]:
            return ()
        dice = int(data["rolls"][0]["dice"])
        leader = scene.unit_of(args[0])
        mean = Fraction(data["points"]["mean"]["exact"])
        reports = [
            Report(
                "points",
                Kind.COUNT,
                f"command points: the {dice}D6 of {data['leader_base']} summed",
                ACTIVATION[_quality(leader)][1],
                maximum=6 * dice,
                default=round(mean),
            )
        ]
        spent = 0
        for c in data["costs"]:
            cost = int(c["figures"]) * int(c["points_each"])
            spent += cost
            reports.append(
                Report(
                    f"command_{c['unit']}",
                    Kind.FLAG,
                    f"{c['unit']} commanded this turn: {c['figures']} figures at "
                    f"{c['points_each']} pt ({c['why']}) = {cost} pts",
                    LOYAL_COST[1] if c["points_each"] == LOYAL_COST[0] else DISLOYAL_COST[1],
                    default=spent <= mean,
                )
            )
        return tuple(reports)

    def _command_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        data = self.resolve(scene, "command", args).data
        points = int(reported.get("points", 0))
        chosen = [c for c in data["costs"] if reported.get(f"command_{c['unit']}") is True]
        cost = sum(int(c["figures"]) * int(c["points_each"]) for c in chosen)
        if cost > points:
            raise QuestionError(
                f"{RULESET} command {args[0]}: the groups chosen cost {cost} points, but "
                f"{points} were thrown [{LOYAL_COST[1]}]"
            )
        return tuple(
            Change(
                c["unit"],
                "commanded",
                True,
                f"activated by {data['leader_base']}: {int(c['figures']) * int(c['points_each'])}"
                f" of {points} command points",
                COMMAND_POINTS,
            )
            for c in chosen
        )

    def _charge_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        """A charge allowed is a move into contact: the group has moved (lines 67-69)."""
        data = self.resolve(scene, "charge", args).data
        if not data["allowed"]:
            return ()
        unit = scene.unit_of(args[0])
        return (Change(unit.id, "moved", True, f"charged {args[1]}", CHARGE_WHO),)

    def _move_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        """A move has no dice: the group has moved this turn (line 34: moving troops shoot
        1 per 3 figures)."""
        unit = scene.unit_of(args[0])
        _, _, source = self._allowance(unit)
        return (Change(unit.id, "moved", True, "moved this turn", source),)

    # ----------------------------------------------------------------------------------------
    # Suggest

    def _suggest(self, board: Board, phase: str | None) -> Resolution:
        scene = board.scene
        side_a = sides_with_player_characters(scene)
        items: list[dict[str, Any]] = []

        def item(kind: str, args: list[str], run: Any) -> None:
            try:
                res = run()
            except QuestionError as exc:
                if isinstance(exc, MissingAttribute):
                    # Asked again as a question of its own: the engine names every missing
                    # attribute of it in one message, not the first one met.
                    try:
                        self.resolve(scene, kind, args)
                    except QuestionError as gathered:
                        exc = gathered
                items.append(
                    {
                        "kind": kind,
                        "args": args,
                        "summary": f"cannot answer: {exc}",
                        "result": {"error": str(exc)},
                    }
                )
                return
            items.append(
                {"kind": kind, "args": args, "summary": res.lines[0], "result": res.as_json()}
            )

        phases = PHASES if phase is None else (phase,)
        for ph in phases:
            group_a = [u for u in scene.units if u.side in side_a]
            group_b = [u for u in scene.units if u.side not in side_a]
            if ph == "command":
                leaders = [b for u in group_a for b in u.bases if is_command_figure(b)]
                for b in leaders:
                    item("command", [b.id], lambda b=b: self._command(board, b.id))
                self._out_of_command(board, group_a, leaders, items)
                for u in group_a:
                    item("risk", [u.id], lambda u=u: self._risk(board, u.id))
            elif ph == "move-a":
                for u in group_a:
                    item("move", [u.id], lambda u=u: self._move(board, u.id, None))
                    self._suggest_charges(board, u, item)
            elif ph in ("shoot-a", "shoot-b"):
                for u in group_a if ph == "shoot-a" else group_b:
                    self._suggest_shots(board, u, item)
            elif ph == "actions-b":
                for u in group_b:
                    item("risk", [u.id], lambda u=u: self._risk(board, u.id))
                    item("move", [u.id], lambda u=u: self._move(board, u.id, None))
                    self._suggest_charges(board, u, item)
            elif ph == "melee":
                for x, y in self._melees(board):
                    item("melee", [x.id, y.id], lambda x=x, y=y: self._melee(board, x.id, y.id))
        data = {
            "action": "suggest",
            "ruleset": self.id,
            "phase": phase,
            "phases": list(PHASES),
            "side_a": sorted(side_a),
            "phase_sources": {ph: str(PHASE_CITES[ph]) for ph in phases},
            "items": items,
        }
        lines = [
            f"{len(items)} suggestions"
            + (f" for phase {phase}" if phase else "")
            + f"; side A (with player characters): {', '.join(sorted(side_a)) or 'none'}"
        ]
        lines += [f"- {i['kind']} {' '.join(i['args'])}: {i['summary']}" for i in items]
        return Resolution("suggest", MappingProxyType(data), tuple(lines))

    def _suggest_shots(self, board: Board, unit: Unit, item: Any) -> None:
        """Every legal target of a commanded group or PC; the nearest one of any other."""
        weapon = WEAPONS.get(str(unit.get("weapon")))
        if weapon is None or not weapon.bands:
            return
        longest = weapon.bands[-1][1]
        gap = board.table.unit_gap
        reachable = [e for e in board.enemies(unit) if geo.within(gap(unit, e), longest)]
        commanded = board.is_pc(unit) or unit.get("commanded") is True
        if not commanded:
            sightings = board.unit_sightings_of(unit, reachable, longest)
            seen = [(s[2], e) for e, s in zip(reachable, sightings, strict=True) if s is not None]
            reachable = [min(seen, key=lambda s: s[0])[1]] if seen else []
        for e in reachable:
            item("shoot", [unit.id, e.id], lambda e=e: self._shoot(board, unit.id, e.id))

    def _suggest_charges(self, board: Board, unit: Unit, item: Any) -> None:
        """The charges a group may make: a player character or commanded group at every enemy
        in reach (line 69), any other group at the nearest enemy, should the actions table
        say "(Charge?)" (line 67). Enemies further than the group's whole move are left out."""
        try:
            allowance, _, _ = self._allowance(unit)
            commanded = board.is_pc(unit) or bool(_state(unit, "commanded"))
        except QuestionError:
            return  # the group's move names the problem
        enemies = board.enemy_gaps(unit)
        if enemies and not commanded:
            enemies = [min(enemies, key=lambda g: g[1])]
        reach = allowance + 2 * board._most_uncertain
        for e, gap in enemies:
            if geo.within(gap, reach):
                item("charge", [unit.id, e.id], lambda e=e: self._charge(board, unit.id, e.id))

    def _out_of_command(
        self, board: Board, units: list[Unit], leaders: list[Base], items: list[dict[str, Any]]
    ) -> None:
        """Groups of side A with no figure within command distance of a command figure."""
        for u in units:
            if is_player_character(u):
                continue
            ok = False
            for leader in leaders:
                if board.unit(leader.id).side != u.side:
                    continue
                here = board.in_enclosed(leader)
                for b in u.bases:
                    enclosed = here or board.in_enclosed(b)
                    limit = COMMAND_ENCLOSED_MM if enclosed else COMMAND_OPEN_MM
                    if geo.within(board.table.distance(leader, b), limit):
                        ok = True
                        break
                if ok:
                    break
            if not ok:
                items.append(
                    {
                        "kind": "out-of-command",
                        "args": [u.id],
                        "summary": f"{u.id} is beyond command distance of every command figure",
                        "result": {
                            "unit": u.id,
                            "in_command": False,
                            "source": str(COMMAND_DISTANCE),
                        },
                    }
                )

    def _melees(self, board: Board) -> list[tuple[Unit, Unit]]:
        """Pairs of enemy groups with figures in base contact."""
        out = []
        units = board.scene.units
        gaps = board.table.unit_gaps()
        # No two bases' combined uncertainty exceeds twice the largest: units further apart
        # than that are in contact with none of the other's figures.
        reach = 2 * board._most_uncertain
        near_units = geo.within(gaps, reach).tolist() if gaps.size else None
        for i, a in enumerate(units):
            for k, b in enumerate(units[i + 1 :], i + 1):
                if a.side == b.side or (near_units is not None and not near_units[i][k]):
                    continue
                near = board.table.unit_distance(a, b)
                if near.distance <= board.table.uncertainty(near.a, near.b):
                    out.append((a, b))
        return out
