"""sepoys-and-soldiers: "Sepoys & Soldiers - QRS" (rules/sheets/001_14e3e4b7ab0503f1.txt), in
inches (1" = 25 yards, line 3).

The sheet's tables are the data below, each entry citing its line. Pure: never imports cv2,
flask, vision or webui.

Unit attributes read (declared in `UNIT_FIELDS`: kind, accepted words, default, sheet line; a bad
value is refused when the scene is read, a missing description names the unit and the accepted
values, every missing one of a question in one message):
- Descriptions (no default, needed where a rule reads them): `type`: `aggressive`, `active`,
  `passive` (lines 5-7: King's regiments; trained sepoys, matchlock skirmishers, rocket troops,
  artillery; all others); `arm`: `foot`, `cavalry`, `artillery`, `rockets` (the movement table,
  line 49, parts foot from cavalry; line 6 names rocket troops and artillery); `weapon`
  (artillery only): `european-light` (6 pound or less), `european-heavy`, `indian` (lines
  60-62); `rating` (commanders only): `energetic`, `competent`, `dull`, `dithering` (lines
  12-15). A commander is a unit with a base whose `role` is `commander`; it has no `type`/`arm`.
- State (the page edits it; left out, a unit starts the game so, and answers say so):
  `orders` (aggressive / active / passive: the order the unit acts on; left out, the order of
  its `type`, lines 5-7), `orders_this_turn` (`as-ordered`, or the order it keeps this turn while
  new orders wait for next turn, line 20; per turn), `status` (`steady`, `routed`,
  `falling-back`, `pursuing`), `disordered` (false), `hits` (0: hits not yet making up a lost
  base, 0-2, line 3), `moved` (false, per turn: European guns manhandled may not fire, line 56),
  `acted` (false, per turn: the unit has taken its ONE action, line 21), and for commanders
  `orders_given` (0, per turn: units whose orders he tried to change, line 11 "Orders") and
  `hurt` (`unhurt`, `wounded`, `horse-killed`: the if-hit column, lines 12-15).

Outcomes (`outcomes()`): after a question the players roll real dice and report them in the
sheet's words; the answer is the new state.
- `shoot`: the dice that succeeded (each 2 / 1 hits for infantry, 4 / 2 / 1 for guns, lines 58,
  65) and the bases taken off; every third hit on a unit removes a base (line 3), the rest stay
  as `hits`. Rockets: the bases each burst fell on, whoever's (line 72). The shooter has acted.
- `command COMMANDER UNIT`: the order given and whether the die equalled the commander's quality
  (lines 17-20): equal or more, the unit acts on it now; lower, `orders` becomes the new order
  and `orders_this_turn` keeps the old one, so it acts on the new one from next turn.
- `nerve UNIT [SITUATION]`: passed or not; failing does what the nerve table says (lines 22-30):
  fall back (`status` falling-back), rout (`status` routed and `disordered`, line 44), stand; a
  reform passed ends disorder (line 41), a rally passed ends the rout; the risk roll of each
  commander in contact (lines 11-15): dead takes him off, wounded / horse killed is `hurt`.
- `charge`: which of the charge sequence's ends came (lines 79-84): no charge, the target routs,
  or a charge combat. `melee`: the drawn rounds, the winner and the bases taken off (lines
  88-91): hits, the loser routs, both disordered (line 43), British cavalry pursue.
- `move`: no dice; the unit has moved and acted, is disordered by rough ground or an obstacle
  (lines 50-51), ends a fall-back, and disorders the friends it fell back through (line 37).

Readings of the sheet (an OCR scan; cells are displaced and some words are garbled):
- Line 21 is three columns run together: the actions list (rally, reform, pursue, move as the
  result of a failed nerve test, charge, move, fire), the commander's actions, and the nerve
  rule "Aggressive units roll 3d6, Active units roll ... 2d6, Passive units roll 1d6 Roll 4+ to
  pass". "Roll 4+ to pass" is read per die: the test passes when ANY die shows 4 or more
  (aggressive 1-(1/2)^3 = 7/8, active 3/4, passive 1/2). Read as a total it would make 3d6
  pass 215 times in 216 and the three types nearly alike, which the table plainly does not mean.
- Line 21 "a unit may do ONE of: Routed units must attempt to rally / Disordered units must
  attempt to reform / ...": a routed or disordered unit spends its action so and may not charge;
  once it has made the attempt (`acted`) it may not fire or move either (but for a routed
  unit's rout move). Line 42's halved fire is for a unit disordered after it could reform
  (passed through by a routing friend, or asked before its attempt is reported).
- Line 43: a disordered unit counts "as one unit quality less for nerve": aggressive rolls 2d6,
  active 1d6; a passive unit cannot drop lower, so it "must roll twice for each nerve test" and
  passes only if both rolls pass (1/4). Line 44 repeats that phrase garbled ("foil", "herve").
- Line 28 "Attacked in flank / rear (test twice)": the unit tests twice and must pass both;
  a disordered passive unit so attacked rolls four times. The aspect is measured from the
  charger's nearest base to the target's nearest base.
- Lines 12-15: the "If hit roll 1d6" column is one table spread over the four rows (1 dead;
  2,3 wounded, captured in a charge; 4,5 horse killed; 6 a mere scratch), not a column per
  rating. "Lose a base/nerve roll 1d6": when a unit the commander is with (in base contact)
  loses a base or tests its nerve, the commander rolls 1d6 and is hit on the faces listed.
- Lines 19-20: "Unit acts on the order the[...]nis turn" is "Unit acts on the order this turn"
  (the result equals or beats the quality); lower, "Unit acts on the order next turn".
  "Orders" (line 11) is how many units' orders the commander may try to change each turn.
- "Adjacent" (line 17) is base contact: edge-to-edge distance 0, judged with the scene's
  measurement uncertainty; a unit too close to call is listed as in command and flagged.
- Fire: range is the shortest distance between the two units; every base of the firing unit
  rolls 1d6 (line 65) at that band's need. "Counts only half its bases for firing" (line 42)
  is half rounded up: the sheet never says disorder stops a unit firing (it says "no fire" where
  it means it, line 56). The sheet has no cover, arc or line-of-sight rule: woods, towns,
  buildings and hills between the units block sight, and the target must be in sight of some
  firing base. Cavalry have no fire table (the sheet gives infantry, artillery and rockets
  only), so cavalry fire is not allowed.
- Range bands (lines 59, 66): a band reaches up to and including its limit, compared as every
  ruleset compares a length with a limit (`geometry.within`: a rounding error past the limit is
  on it), so two bases exactly 4" apart are at short range wherever they stand on the table.
- Artillery rows (lines 60-62): "Indian - all 5+ 6 N/A" is short 5+, long 6, extreme N/A (the
  three cells ran together); "N/A" means the gun may not fire at that range.
- Rockets (lines 72-75): each rocket base fires one rocket aimed at the target (the first leg
  points from the rocket base's centre at the nearest target base's centre) from the middle of
  its front edge. Each leg the white die turns it (1-2 left 45 degrees, 3-4 straight, 5-6 right
  45 degrees; turns add up) and it flies 8"; then the red die explodes it on 5-6. After the
  fourth leg without a 5-6 it has "moved 4 times" and burns out harmlessly. A base under the
  explosion point is lost (line 72 "Causes loss of a base"), whoever's it is.
- Charges (lines 79-84): steps 4-6 are the follow-through after the charged unit routs. A
  charged unit that holds its nerve receives the charge: the units meet in a Charge Combat;
  only when both are cavalry does the charged unit counter-charge (line 81). Artillery cannot
  charge (European guns only manhandle, Indian guns are static, line 56). A charge reaches as
  far as the charger's move in the going it stands in.
- Charge combat (lines 88-91): rounds of simultaneous nerve tests; each round both pass or both
  fail, each side takes 1 hit (no nerve test for a base so lost); the first round only one
  side passes, it takes 1 hit and the loser 2. A unit whose last base goes in a drawn round is
  destroyed and the combat ends. "British cavalry" is a cavalry unit whose side is `british`.
- Movement (lines 49-52): rivers include streams; towns and buildings, not on the sheet, are
  read as rough ground; fences and fortifications are among "hedges, walls, etc"; roads give
  no bonus. "I turn & disordered" is "1 turn": crossing the obstacle takes the whole move.
  Passive units take 8" through both columns, foot and cavalry alike. The sheet gives no move
  for a commander, so `move` refuses one.
- Falling back past friends (lines 32-37): a friendly unit is "to its rear" when it lies behind
  the falling unit's rear edge, overlaps its frontage and is within its full move. The 8" is
  the edge-to-edge distance between the two units; a gap on a side is the free width beside
  the friend (over the friend's depth) up to the nearest other base. Table edges are not
  considered.
- Sequence of play: the sheet prints none and dices for no initiative. `phases` follow its
  own order: changing orders (lines 17-20), rally and reform (line 21), charge, move, fire,
  charge combat; every side acts in every step (`side_groups`' one label, `all`).
- Orders (lines 5-7, 9-20): the three words Aggressive / Active / Passive are the orders a unit
  acts on; lines 5-7 say which troops start on which (`type`), and an adjacent commander may
  change them. Every table whose rows are "Unit type" (fire, lines 66-70; nerve, line 21;
  movement, lines 49-52) reads the order the unit acts on now, and "one unit quality less"
  (line 43) is one step down that ladder. A failed roll (line 20) gives the new order at once
  in `orders` and keeps the old one in `orders_this_turn`, a per-turn field: when the turn
  ends it goes back to `as-ordered` and the unit acts on the new order. "Orders" (line 11) is
  counted in the commander's per-turn `orders_given`.
- One action (line 21): firing, charging, moving and the attempts to rally or reform each take
  the unit's action (`acted`, per turn); a unit that has acted may not fire, charge or move,
  except the move a routed or falling-back unit makes "as the result of a failed nerve test"
  (a unit moves once a turn: `moved`). Reforming passed ends disorder (line 41, and it cannot
  move); a rally passed ends the rout, the unit stays disordered until it reforms; a rally
  failed leaves it routing. A falling-back unit is steady again once it has made its fall-back
  move; `pursuing` stays until the players change it (British cavalry pursue two moves).
- Nerve failures (lines 22-30): "fall back" sets `status` falling-back (never over a rout);
  "rout" sets routed and disordered (line 44); "stand - no charge" and "stand - remain
  disordered" use up the action. "Having lost a charge combat" (line 26) is the loser of
  `melee`, who routs at once (line 90) with no further test.
- Commander risk (line 11 "Lose a base/nerve roll 1d6"): reported with the nerve test of a unit
  he is in base contact with (one roll when a lost base leads to that test): dead takes his
  base off; wounded and horse killed set `hurt`, and a commander whose horse was killed may
  not change orders (line 14, "no action this turn / next") until the players clear it.
  "Captured in a charge" (line 13) is left to the players.
- Hits (line 3): the players report the dice that scored and name the bases taken off (one
  for every three hits, counting the hits the unit carried); the rest stay in `hits`.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from calibration.units import format_length

from .. import dice as dice_math
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
from ..measure import Table, table_of
from ..scene import Base, Scene, TerrainKind, Unit
from ..state import Change, Field, Kind, Phase, Report, Scope

SHEET = "001_14e3e4b7ab0503f1.txt"
ID = "sepoys-and-soldiers"
INCH = 25.4
"""mm in an inch: the sheet measures in inches."""


def _cite(line: int, text: str) -> Cite:
    return Cite(SHEET, line, text)


TYPES: tuple[str, ...] = ("aggressive", "active", "passive")
"""Unit types, best first (lines 5-7): one quality less is one step along."""
ARMS: tuple[str, ...] = ("foot", "cavalry", "artillery", "rockets")
GUNS: tuple[str, ...] = ("european-light", "european-heavy", "indian")
RATINGS: tuple[str, ...] = ("energetic", "competent", "dull", "dithering")
STATUSES: tuple[str, ...] = ("routed", "falling-back", "pursuing")
STEADY = "steady"
"""The status of a unit in good order (not routed, falling back or pursuing)."""
STATUS_WORDS: tuple[str, ...] = (STEADY, *STATUSES)
AS_ORDERED = "as-ordered"
"""`orders_this_turn` when the unit acts on its `orders` (no new order waits for next turn)."""
HURT: tuple[str, ...] = ("unhurt", "wounded", "horse-killed")

HITS_PER_BASE = 3
HITS_PER_BASE_CITE = _cite(3, "Each base takes 3 hits before it is removed")

# --------------------------------------------------------------------------------------------
# Fire


@dataclass(frozen=True, slots=True)
class FireBand:
    """One range band of a fire table."""

    label: str
    limit: float
    """mm: the band reaches this far."""
    hits: int
    """Hits each success causes."""
    range_cite: Cite
    hits_cite: Cite


INFANTRY_BANDS: tuple[FireBand, ...] = (
    FireBand("short", 4 * INCH, 2, _cite(66, 'Short range - 4"'), _cite(65, "2 hits at short")),
    FireBand("long", 8 * INCH, 1, _cite(66, 'Long range - 8"'), _cite(65, "and 1 at long")),
)
ARTILLERY_BANDS: tuple[FireBand, ...] = (
    FireBand("short", 8 * INCH, 4, _cite(59, 'Short range – 8"'), _cite(58, "4 hits at short")),
    FireBand("long", 20 * INCH, 2, _cite(59, 'Long range – 20"'), _cite(58, "2 at long")),
    FireBand("extreme", 30 * INCH, 1, _cite(59, 'Extreme – 30"'), _cite(58, "1 at extreme")),
)


@dataclass(frozen=True, slots=True)
class FireRow:
    """One row of a fire table: the need per band (None = N/A) and, for infantry, per target."""

    needs: Mapping[str, Any]
    cite: Cite


INFANTRY_FIRE: Mapping[str, FireRow] = MappingProxyType(
    {
        # Columns (line 67): short vs aggressive, active, passive; long vs the same.
        "aggressive": FireRow(
            {"short": (4, 3, 3), "long": (5, 4, 4)}, _cite(68, "Aggressive 4+ 3+ 3+ 5+ 4+ 4+")
        ),
        "active": FireRow(
            {"short": (5, 4, 4), "long": (6, 5, 5)}, _cite(69, "Active 5+ 4+ 4+ 6 5+ 5+")
        ),
        "passive": FireRow(
            {"short": (6, 5, 4), "long": (6, 6, 5)}, _cite(70, "Passive 6+ 5+ 4+ 6 6 5+")
        ),
    }
)
ARTILLERY_FIRE: Mapping[str, FireRow] = MappingProxyType(
    {
        "european-light": FireRow(
            {"short": 4, "long": 5, "extreme": None}, _cite(60, "ound or less) 4+ 5+ N/A")
        ),
        "european-heavy": FireRow(
            {"short": 3, "long": 5, "extreme": 6}, _cite(61, "European – Heavy 3+ 5+ 6")
        ),
        "indian": FireRow(
            {"short": 5, "long": 6, "extreme": None}, _cite(62, "Indian – all 5+ 6 N/A")
        ),
    }
)
EACH_BASE_ROLLS = _cite(65, "Each base rolls 1d6")
ARTILLERY_EACH_BASE_ROLLS = _cite(58, "Each base rolls 1d6")
DISORDER_HALF_BASES = _cite(42, "A disordered unit counts only half its bases for")
GUNS_MOVED_NO_FIRE = _cite(56, 'manhandle across open ground (only) at 2" per move, no fire')

# Rockets (lines 72-75)
ROCKET_LEG = 8 * INCH
ROCKET_LEGS = 4
ROCKET_TURNS: tuple[tuple[str, float], ...] = (
    ("left 45", 45.0),
    ("forward", 0.0),
    ("right 45", -45.0),
)
"""White die: faces 1-2, 3-4, 5-6 (each 1/3); degrees counter-clockwise."""
ROCKET_PATH = _cite(74, '1 or 2 = Left 45°, Forward 8" 3 or 4 = Forward 8"')
ROCKET_EXPLODES = _cite(75, "Red dice score is 5 or 6 = explodes")
ROCKET_FOUR_MOVES = _cite(75, "until it explodes or has moved 4 times")
ROCKET_LOSS = _cite(72, "Causes loss of a base")


@dataclass(frozen=True, slots=True)
class _Volley:
    """The odds of one volley of fire: hits, then bases lost, with the JSON rows shown."""

    hits: tuple[Fraction, ...]
    lost: tuple[Fraction, ...]
    shown_hits: tuple[tuple[int, float, str], ...]
    shown_lost: tuple[tuple[int, float, str], ...]
    p_lost: Fraction
    """The chance the target loses at least one base."""
    p_lost_shown: tuple[float, str]
    """`p_lost` as (value, exact)."""

    def hits_json(self) -> list[dict[str, Any]]:
        return [{"k": k, "value": v, "exact": e} for k, v, e in self.shown_hits]

    def lost_json(self) -> list[dict[str, Any]]:
        return [{"k": k, "value": v, "exact": e} for k, v, e in self.shown_lost]


@lru_cache(maxsize=1024)
def _volley(dice: int, need: int, hits_per: int, carried: int, bases: int) -> _Volley:
    """`dice` d6 needing `need`+, each success `hits_per` hits, on a unit of `bases` bases
    carrying `carried` hits (lines 3, 5-9): the same for every volley with these numbers, so
    worked out once (`suggest` fires hundreds of volleys of a few kinds)."""

    def shown(dist: tuple[Fraction, ...]) -> tuple[tuple[int, float, str], ...]:
        return tuple((k, float(p), str(p)) for k, p in enumerate(dist) if p)

    hits = dice_math.scale(dice_math.successes(dice, 6, need), hits_per)
    lost = bases_lost(hits, carried, bases)
    p_lost = 1 - lost[0]
    return _Volley(
        hits,
        lost,
        shown(hits),
        shown(lost),
        p_lost,
        _odds(p_lost),
    )


@lru_cache(maxsize=256)
def _to_hit(bases: int, disordered: bool, need: int, band: FireBand, cite: Cite) -> Roll:
    """The to-hit roll of a unit of `bases` bases (half of them, rounded up, when disordered:
    line 42) needing `need`+ at `band` range, from the row `cite`: the same for every such
    volley, so built once."""
    dice = math.ceil(bases / 2) if disordered else bases
    mods: tuple[Modifier, ...] = ()
    if disordered:
        mods = (
            Modifier(
                dice - bases,
                "disordered: counts only half its bases (rounded up)",
                DISORDER_HALF_BASES,
            ),
        )
    return _success_roll(
        "to hit",
        dice,
        6,
        need,
        mods,
        cite,
        f"each base rolls 1d6; each success {band.hits} hit" + "s" * (band.hits > 1),
    )


# --------------------------------------------------------------------------------------------
# Nerve


NERVE_DICE: Mapping[str, tuple[int, Cite]] = MappingProxyType(
    {
        "aggressive": (3, _cite(21, "Aggressive units roll 3d6")),
        "active": (2, _cite(21, "Active units roll")),
        "passive": (1, _cite(21, "Passive units roll 1d6")),
    }
)
NERVE_NEED = 4
NERVE_NEED_CITE = _cite(21, "Roll 4+ to pass")
DISORDER_NERVE = _cite(43, "as one unit quality less for nerve")
PASSIVE_TWICE = _cite(43, "Passive units must roll twice for each nerve test")


@dataclass(frozen=True, slots=True)
class Situation:
    """A row of the nerve table (lines 22-30): when a unit tests and what failing does."""

    key: str
    name: str
    on_fail: str
    cite: Cite
    tests: int = 1


SITUATIONS: Mapping[str, Situation] = MappingProxyType(
    {
        s.key: s
        for s in (
            Situation(
                "loss-of-a-base",
                "Loss of a base",
                "fall back a full move (end facing enemy)",
                _cite(23, "Loss of a base Fall back a full move (end facing enemy)"),
            ),
            Situation(
                "attempting-to-charge",
                "Attempting to charge",
                "stand - no charge",
                _cite(24, "Attempting to charge Stand – no charge"),
            ),
            Situation(
                "being-charged",
                "Being charged",
                "rout back a full move (end with backs to enemy)",
                _cite(25, "Being charged Rout back a full move"),
            ),
            Situation(
                "lost-a-charge-combat",
                "Having lost a charge combat",
                "rout back a full move (end with backs to enemy)",
                _cite(26, "Having lost a charge combat Rout back a full move"),
            ),
            Situation(
                "adjacent-unit-routs",
                "Adjacent unit routs",
                "fall back a full move (end facing enemy)",
                _cite(27, "Adjacent unit routs Fall back a full move"),
            ),
            Situation(
                "attacked-in-flank-or-rear",
                "Attacked in flank / rear (test twice)",
                "rout back a full move (end with backs to enemy)",
                _cite(28, "Attacked in flank / rear (test twice)"),
                tests=2,
            ),
            Situation(
                "attempt-to-reform",
                "Attempt to reform",
                "stand - remain disordered",
                _cite(29, "Attempt to reform Stand - remain disordered"),
            ),
            Situation(
                "commander-killed-wounded-or-unhorsed",
                "Commander killed, wounded or unhorsed",
                "rout back a full move (end with backs to enemy)",
                _cite(30, "Commander killed, wounded or unhorsed Rout back a full move"),
            ),
        )
    }
)

LOSS_OF_A_BASE = SITUATIONS["loss-of-a-base"]
LOSS_OF_A_BASE_SOURCE = str(LOSS_OF_A_BASE.cite)

# --------------------------------------------------------------------------------------------
# Commanders


@dataclass(frozen=True, slots=True)
class CommanderRow:
    """A row of the commanders table (lines 11-15)."""

    quality: int
    """The lowest face of 1d6 that changes a unit's orders this turn."""
    orders: int
    """Units whose orders he may try to change each turn."""
    hit_up_to: int
    """The highest face of the lose-a-base/nerve roll that hits him."""
    cite: Cite


COMMANDERS: Mapping[str, CommanderRow] = MappingProxyType(
    {
        "energetic": CommanderRow(2, 2, 3, _cite(12, "Energetic 2+ 2 1 - 3 = hit, roll again")),
        "competent": CommanderRow(3, 1, 2, _cite(13, "Competent 3+ 1 1 - 2 = hit, roll again")),
        "dull": CommanderRow(4, 1, 1, _cite(14, "Dull 4+ 1 1 = hit, roll again")),
        "dithering": CommanderRow(5, 1, 1, _cite(15, "Dithering 5+ 1 1 = hit, roll again")),
    }
)
IF_HIT: tuple[tuple[range, str, Cite], ...] = (
    (range(1, 2), "dead", _cite(12, "1 = dead.")),
    (
        range(2, 4),
        "wounded; captured in a charge",
        _cite(13, "2,3 = wounded. Captured in a charge"),
    ),
    (
        range(4, 6),
        "horse killed: no action this turn / next",
        _cite(14, "4,5 = horse killed, no action this turn / next"),
    ),
    (range(6, 7), "a mere scratch! Carry on!", _cite(15, "6 = a mere scratch! Carry on!")),
)
ADJACENT_CITE = _cite(17, "Commander must be adjacent to the unit")
ORDER_ROLL_CITE = _cite(17, "Roll 1d6 v the commander's quality")
ORDER_THIS_TURN = _cite(19, "Result is equal to or more than quality")
ORDER_NEXT_TURN = _cite(20, "Unit acts on the order next turn")

# --------------------------------------------------------------------------------------------
# Movement


@dataclass(frozen=True, slots=True)
class MoveRow:
    """A row of the movement table (lines 49-52); None in `rough`/`obstacle` = the open move."""

    foot: float
    cavalry: float
    rough: float
    rough_disorders: bool
    obstacle_whole_turn: bool
    cite: Cite


MOVES: Mapping[str, MoveRow] = MappingProxyType(
    {
        "aggressive": MoveRow(
            8 * INCH,
            12 * INCH,
            4 * INCH,
            True,
            True,
            _cite(50, 'Aggressive 8" 12" 4" and disordered I turn & disordered'),
        ),
        "active": MoveRow(
            8 * INCH,
            12 * INCH,
            4 * INCH,
            True,
            True,
            _cite(51, 'Active 8" 12" 4" and disordered I turn & disordered'),
        ),
        "passive": MoveRow(
            8 * INCH, 12 * INCH, 8 * INCH, False, False, _cite(52, 'Passive 8" 12" 8" 8"')
        ),
    }
)
PASSIVE_OBSTACLE = 8 * INCH
ROUGH_KINDS = frozenset(
    {
        TerrainKind.ROUGH,
        TerrainKind.HILL,
        TerrainKind.WOODS,
        TerrainKind.RIVER,
        TerrainKind.STREAM,
        TerrainKind.BRIDGE,
        TerrainKind.TOWN,
        TerrainKind.BUILDING,
    }
)
OBSTACLE_KINDS = frozenset(
    {TerrainKind.HEDGE, TerrainKind.WALL, TerrainKind.FENCE, TerrainKind.FORTIFICATION}
)
RALLY_CITE = _cite(21, "Routed units must attempt to rally")
REFORM_CITE = _cite(21, "Disordered units must attempt to reform")
ROUGH_CITE = _cite(49, "Rough ground/hills/woods/rivers/bridges")
OBSTACLE_CITE = _cite(49, "hedges, walls, etc")
EUROPEAN_GUNS_MOVE = 2 * INCH
EUROPEAN_GUNS_CITE = _cite(56, 'European guns - manhandle across open ground (only) at 2" per move')
INDIAN_STATIC_CITE = _cite(56, "Indian artillery is static")
PIVOT_CITE = _cite(54, "pivots on its centre at the start or end of the turn (only) at no cost")
INTERPENETRATE_CITE = _cite(56, "freely interpenetrate with a Commander/Rocket troops")
GAP_DISTANCE = 8 * INCH
GAP_DISTANCE_CITE = _cite(34, 'minimum distance of 8" between the starting positions')
GAP_WIDTH_CITE = _cite(35, "a gap of the same frontage as the routing unit")
GAP_OTHERWISE_CITE = _cite(37, "move straight back disordering units pass through")

# --------------------------------------------------------------------------------------------
# Charges and charge combat

CHARGE_STEPS: tuple[Cite, ...] = (
    _cite(79, "A unit attempting to charge must test its nerve"),
    _cite(80, "the unit facing the charge must test its nerve"),
    _cite(81, "both units are cavalry, it counter-charges"),
    _cite(81, "If the charged unit is infantry it will stand"),
    _cite(82, "charging unit continues to the extent of charge move"),
    _cite(83, 'test the nerve of the chargers. Fails stops short 4"'),
    _cite(84, "repeat the cycle above"),
)
STOP_SHORT = 4 * INCH
LONGEST_REACH: Mapping[str, float] = MappingProxyType(
    {"artillery": ARTILLERY_BANDS[-1].limit, "rockets": ROCKET_LEG * ROCKET_LEGS}
)
"""The farthest an arm's fire reaches (a gun's extreme range, a rocket's 4 legs; other arms
`INFANTRY_BANDS`' long range)."""
COMBAT_TESTS = _cite(88, "Each unit tests its nerve simultaneously")
COMBAT_DRAW = _cite(89, "each side takes 1 hit (do not test nerve if a base is lost)")
COMBAT_REROLL = _cite(90, "Re-roll until only one side passes")
COMBAT_ROUT = _cite(90, "The losing unit then routs for one full move")
COMBAT_WIN = _cite(91, "advance and occupy the enemy position. Take 1 hit. The loser takes 2 hits")
COMBAT_PURSUE = _cite(91, "British cavalry must pursue for two moves")
COMBAT_DISORDERS = _cite(43, "After resolving a charge combat (all units involved)")
WIN_HITS, LOSE_HITS, DRAW_HITS = 1, 2, 1
CHARGE_STEP_SOURCES = tuple(str(c) for c in CHARGE_STEPS)
"""`CHARGE_STEPS` as written in an answer's `source`."""

# --------------------------------------------------------------------------------------------
# State as data: the unit attributes this sheet reads, and what the dice change

TYPE_CITE = _cite(5, "Aggressive King's regiments")
ARM_CITE = _cite(49, "Foot - Open Cavalry - Open")
WEAPON_CITE = _cite(60, "European – Light (6 po")
RATING_CITE = _cite(11, "Rating Quality Orders")
ORDERS_CITE = _cite(17, "Changing orders Commander must be adjacent to the unit")
ORDERS_PER_TURN_CITE = _cite(11, "Quality Orders")
HURT_CITE = _cite(11, "If hit roll 1d6")
RISK_ROLL_CITE = _cite(11, "Lose a base/nerve roll 1d6")
STATUS_CITE = _cite(32, "A unit falling back or routing may manoeuvre")
DISORDERED_CITE = _cite(41, "unit is disordered in the following circumstances")
ONE_ACTION_CITE = _cite(21, "Actions - a unit may do ONE of")
REFORM_PASS_CITE = _cite(41, "To reform: pass a nerve and cannot move")
ROUT_DISORDERS_CITE = _cite(44, "While Routing or Pursuing")
PASSED_THROUGH_CITE = _cite(45, "Routing unit has passed through a unit")
INTERPENETRATION_CITE = _cite(56, "Otherwise, all units are disordered")
CHARGE_CONTINUES_CITE = _cite(82, "charging unit continues to the extent of charge move")
ACTED_REASON = "it has taken its one action this turn"

UNIT_FIELDS: tuple[Field, ...] = (
    Field(
        "type",
        Kind.CHOICE,
        TYPE_CITE,
        "troop type, the order it starts on (King's regiments aggressive; trained sepoys, "
        "matchlock skirmishers, rocket troops, artillery active; all others passive)",
        choices=TYPES,
        in_play=False,
    ),
    Field(
        "arm",
        Kind.CHOICE,
        ARM_CITE,
        "foot, cavalry, artillery or rockets",
        choices=ARMS,
        in_play=False,
    ),
    Field(
        "weapon",
        Kind.CHOICE,
        WEAPON_CITE,
        "guns (artillery only): European light (6 pound or less), European heavy, Indian",
        choices=GUNS,
        in_play=False,
    ),
    Field(
        "rating",
        Kind.CHOICE,
        RATING_CITE,
        "commander's rating",
        choices=RATINGS,
        in_play=False,
    ),
    Field(
        "orders",
        Kind.CHOICE,
        ORDERS_CITE,
        "orders it acts on (left out: the order of its troop type)",
        choices=TYPES,
    ),
    Field(
        "orders_this_turn",
        Kind.CHOICE,
        ORDER_NEXT_TURN,
        "order it keeps this turn while new orders wait for next turn",
        default=AS_ORDERED,
        choices=(AS_ORDERED, *TYPES),
        per_turn=True,
    ),
    Field(
        "status",
        Kind.CHOICE,
        STATUS_CITE,
        "steady, routed, falling back or pursuing",
        default=STEADY,
        choices=STATUS_WORDS,
    ),
    Field("disordered", Kind.FLAG, DISORDERED_CITE, "disordered", default=False),
    Field(
        "hits",
        Kind.COUNT,
        HITS_PER_BASE_CITE,
        "hits not yet making up a lost base (0-2)",
        default=0,
    ),
    Field(
        "moved",
        Kind.FLAG,
        GUNS_MOVED_NO_FIRE,
        "moved this turn",
        default=False,
        per_turn=True,
    ),
    Field(
        "acted",
        Kind.FLAG,
        ONE_ACTION_CITE,
        "has taken its one action this turn",
        default=False,
        per_turn=True,
    ),
    Field(
        "orders_given",
        Kind.COUNT,
        ORDERS_PER_TURN_CITE,
        "units whose orders he tried to change this turn (commander)",
        default=0,
        per_turn=True,
    ),
    Field(
        "hurt",
        Kind.CHOICE,
        HURT_CITE,
        "commander wounded or his horse killed",
        default="unhurt",
        choices=HURT,
    ),
)

PHASE_STEPS: tuple[Phase, ...] = (
    Phase("orders", "Commanders change the orders of adjacent units", "all", ORDERS_CITE),
    Phase(
        "rally",
        "Routed units attempt to rally, disordered units to reform",
        "all",
        RALLY_CITE,
    ),
    Phase("charge", "Units charge (the chargers test their nerve first)", "all", CHARGE_STEPS[0]),
    Phase("move", "Units move", "all", _cite(21, "Move (may not contact an enemy unit)")),
    Phase("fire", "Units fire", "all", EACH_BASE_ROLLS),
    Phase("combat", "Charge combats are resolved", "all", _cite(86, "To resolve a Charge Combat")),
)

RISK_RESULTS: tuple[str, ...] = ("not-hit", "dead", "wounded", "horse-killed", "scratch")
"""A commander's lose-a-base/nerve roll as the players report it (lines 11-15)."""
CHARGE_RESULTS: tuple[str, ...] = ("no-charge", "target-routs", "charge-combat")
"""How a charge ended (lines 79-84), as the players report it."""
BOTH_DESTROYED = "both-destroyed"


# --------------------------------------------------------------------------------------------
# Small helpers


@lru_cache(maxsize=4096)
def _success_roll(
    purpose: str,
    dice: int,
    sides: int,
    need: int,
    modifiers: tuple[Modifier, ...] = (),
    cite: Cite | None = None,
    note: str = "",
) -> Roll:
    """`Roll.success_roll`, remembered: a table of 120 bases asks the same rolls many times."""
    return Roll.success_roll(purpose, dice, sides, need, modifiers, cite, note)


_ROLL_JSON: dict[int, tuple[Roll, dict[str, Any]]] = {}
"""`Roll.as_json` by the roll's identity (the roll is kept, so its id is not reused): the
remembered rolls of `_success_roll` are shown hundreds of times a `suggest`, and hashing a
roll's exact distribution costs about as much as writing it out."""


def _roll_json(roll: Roll) -> dict[str, Any]:
    """`roll.as_json()`, a fresh top-level dict each time (its lists are shared, read-only)."""
    known = _ROLL_JSON.get(id(roll))
    if known is None or known[0] is not roll:
        if len(_ROLL_JSON) >= 4096:
            _ROLL_JSON.clear()
        known = _ROLL_JSON[id(roll)] = (roll, roll.as_json())
    return dict(known[1])


def _odds(p: Fraction) -> tuple[float, str]:
    """A probability as (value, exact): the float and the exact fraction."""
    # `float(p)` is this division (numbers.Rational.__float__), without two calls on the way.
    return p.numerator / p.denominator, str(p)


def _prob(p: Fraction) -> dict[str, Any]:
    """A probability for JSON: the float and the exact fraction."""
    return _shown(_odds(p))


@lru_cache(maxsize=4096)
def _ratio_shown(numerator: int, denominator: int) -> tuple[float, str]:
    """`_prob(Fraction(numerator, denominator))` as (value, exact), remembered: a rocket's
    chances are whole numbers of 1/3^8, and `suggest` shows hundreds of them."""
    return _odds(Fraction(numerator, denominator))


def _ratio(numerator: int, denominator: int) -> dict[str, Any]:
    """`_prob` of the fraction numerator / denominator (a fresh dict each time)."""
    value, exact = _ratio_shown(numerator, denominator)
    return {"value": value, "exact": exact}


def _dist_json(dist: Sequence[Fraction]) -> list[dict[str, Any]]:
    return [{"k": k, **_prob(p)} for k, p in enumerate(dist) if p]


_format_length = lru_cache(maxsize=1024)(format_length)
"""`format_length`, remembered: the same few lengths are written in hundreds of reasons."""


def _src(cite: Cite) -> str:
    return f"[{cite}]"


def _unit_type(unit: Unit) -> str:
    return check_attr(unit, "type", TYPES, ruleset=ID)


def _arm(unit: Unit) -> str:
    return check_attr(unit, "arm", ARMS, ruleset=ID)


def _guns(unit: Unit) -> str:
    return check_attr(unit, "weapon", GUNS, ruleset=ID)


def _rating(unit: Unit) -> str:
    return check_attr(unit, "rating", RATINGS, ruleset=ID)


def _order(unit: Unit) -> str:
    """The order the unit acts on this turn: the one it keeps while new orders wait for next
    turn (line 20), else its `orders`, else the order of its troop type (lines 5-7). It is the
    row the fire, nerve and movement tables read ("Unit type", lines 49, 66-67)."""
    kept = unit.get("orders_this_turn")
    if kept is not None and kept != AS_ORDERED:
        return check_attr(unit, "orders_this_turn", (AS_ORDERED, *TYPES), ruleset=ID)
    if unit.get("orders") is None:
        return _unit_type(unit)
    return check_attr(unit, "orders", TYPES, ruleset=ID)


def _status(unit: Unit) -> str | None:
    """`routed`, `falling-back` or `pursuing`; None for a steady unit."""
    status = check_attr(unit, "status", STATUS_WORDS, ruleset=ID)
    return None if status == STEADY else status


def _flag(unit: Unit, key: str) -> bool:
    """A true-or-false state the scene gives (or its loader set to its start-of-game value)."""
    value = unit.get(key)
    if value is None:
        raise MissingAttribute(ID, unit.id, key, "true or false", False)
    return bool(value)


def _count(unit: Unit, key: str) -> int:
    """A whole-number state the scene gives (or its loader set to its start-of-game value)."""
    value = unit.get(key)
    if value is None:
        raise MissingAttribute(ID, unit.id, key, "a whole number from 0", 0)
    return int(value)


def _disordered(unit: Unit) -> bool:
    return _flag(unit, "disordered")


def _moved(unit: Unit) -> bool:
    """Whether the unit moved this turn (European guns manhandled may not fire, line 56)."""
    return _flag(unit, "moved")


def _acted(unit: Unit) -> bool:
    """Whether the unit has taken its one action this turn (line 21)."""
    return _flag(unit, "acted")


def _hits(unit: Unit) -> int:
    """Hits carried by the unit: 0-2, since the third hit removes a base (line 3)."""
    hits = _count(unit, "hits")
    if hits >= HITS_PER_BASE:
        raise QuestionError(
            f"{ID}: unit {unit.id!r} has hits {hits}; each base takes 3 hits before it is "
            f"removed ({HITS_PER_BASE_CITE}): remove the base and give hits 0, 1 or 2"
        )
    return hits


def is_commander(unit: Unit) -> bool:
    """A commander is a unit with a base whose role is `commander`."""
    # `in` over the roles rather than any() over a generator: asked tens of thousands of
    # times a `suggest`.
    return "commander" in [b.role for b in unit.bases]


def _fighting_unit(unit: Unit, action: str) -> Unit:
    if is_commander(unit):
        raise QuestionError(
            f"{ID}: {unit.id!r} is a commander; {action} is for units "
            "(a commander changes orders: use command)"
        )
    return unit


def _enemies(a: Unit, b: Unit, action: str) -> None:
    if a.side == b.side:
        raise QuestionError(
            f"{ID}: {action} pairs enemies, but {a.id!r} and {b.id!r} are both of side {a.side!r}"
        )


def _contact(table: Table, a: Unit, b: Unit) -> Threshold:
    """Base contact between two units: edge-to-edge distance 0, with its uncertainty."""
    distance, unc = _gap(table, a, b)
    return Threshold(distance, 0.0, unc)


def _touching(t: Threshold) -> bool:
    return t.within or t.too_close_to_call


def bases_lost(hits: Sequence[Fraction], carried: int, bases: int) -> tuple[Fraction, ...]:
    """Distribution of bases removed when `hits` (a distribution) land on a unit already
    carrying `carried` hits: every third hit removes a base (line 3), at most all of them."""
    out = [Fraction(0)] * (bases + 1)
    for h, p in enumerate(hits):
        out[min((carried + h) // HITS_PER_BASE, bases)] += p
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Nerve


@dataclass(frozen=True, slots=True)
class NerveTest:
    """How a unit tests its nerve: the dice, how many times it must pass, and the odds."""

    unit: Unit
    dice: int
    tests: int
    reasons: tuple[Modifier, ...]
    p_pass: Fraction

    @property
    def roll(self) -> Roll:
        return _nerve_roll(self.dice, self.tests, self.reasons)

    def describe(self) -> str:
        twice = "" if self.tests == 1 else f", {self.tests} times"
        return (
            f"{self.unit.id} rolls {self.dice}d6, 4+ on any die passes{twice}: pass {self.p_pass}"
        )


def nerve_test(unit: Unit, tests: int = 1) -> NerveTest:
    """The nerve test of a unit (line 21), one quality less when disordered (line 43)."""
    return NerveTest(unit, *_nerve_odds(_order(unit), _disordered(unit), tests))


def _nerve_test_of(table: Table, unit: Unit, tests: int = 1) -> tuple[NerveTest, Roll]:
    """`nerve_test` and its roll, reading the unit's type and disorder remembered
    (`_Measured.troop`) and the roll built once per kind (`_nerve_roll_of`)."""
    troop = _measured(table).troop(unit)
    kind, disordered = troop.kind, troop.disordered
    return (
        NerveTest(unit, *_nerve_odds(kind, disordered, tests)),
        _nerve_roll_of(kind, disordered, tests),
    )


@lru_cache(maxsize=64)
def _nerve_roll_of(kind: str, disordered: bool, tests: int) -> Roll:
    """`NerveTest.roll` of a unit of this kind and disorder tested `tests` times."""
    dice, tests, reasons, _ = _nerve_odds(kind, disordered, tests)
    return _nerve_roll(dice, tests, reasons)


@lru_cache(maxsize=64)
def _nerve_odds(
    kind: str, disordered: bool, tests: int
) -> tuple[int, int, tuple[Modifier, ...], Fraction]:
    """`nerve_test`'s dice, tests, reasons and odds: the same for every unit of a kind, so
    worked out once (`suggest` tests hundreds of units)."""
    level = TYPES.index(kind)
    reasons: list[Modifier] = [Modifier(NERVE_DICE[kind][0], f"{kind}", NERVE_DICE[kind][1])]
    if disordered:
        if level + 1 < len(TYPES):
            level += 1
            less = TYPES[level]
            reasons.append(
                Modifier(
                    NERVE_DICE[less][0] - NERVE_DICE[kind][0],
                    f"disordered: tests as {less}",
                    DISORDER_NERVE,
                )
            )
        else:
            tests *= 2
            reasons.append(Modifier(0, "disordered passive unit: rolls twice", PASSIVE_TWICE))
    dice = NERVE_DICE[TYPES[level]][0]
    return dice, tests, tuple(reasons), _p_pass(dice, tests)


@lru_cache(maxsize=64)
def _nerve_roll(dice: int, tests: int, reasons: tuple[Modifier, ...]) -> Roll:
    """The roll of a nerve test of `dice` d6 passed `tests` times, for these reasons."""
    note = "passes if any die shows 4+"
    if tests > 1:
        note += f"; must pass {tests} times"
    return _success_roll("nerve", dice, 6, NERVE_NEED, reasons, NERVE_NEED_CITE, note)


def _p_pass(dice: int, tests: int) -> Fraction:
    """The chance to pass `tests` nerve tests of `dice` d6, each passed by a 4+ on any die."""
    one = 1 - Fraction(1, 2) ** dice  # 4+ on a d6 is 1/2; fails only if every die fails
    return one**tests


def commander_risk(commander: Unit) -> dict[str, Any]:
    """The commander's lose-a-base/nerve roll (lines 11-15) and the if-hit table."""
    rating = _rating(commander)
    hit_on, p_hit, source, if_hit = _risk_of(rating)
    return {
        "commander": commander.id,
        "rating": rating,
        "hit_on": hit_on,
        "p_hit": _shown(p_hit),
        "source": source,
        "if_hit": [
            {
                "faces": faces,
                "result": text,
                "p": _shown(p),
                "p_overall": _shown(p_all),
                "source": c,
            }
            for faces, text, p, p_all, c in if_hit
        ],
    }


@lru_cache(maxsize=len(RATINGS))
def _risk_of(
    rating: str,
) -> tuple[
    str,
    tuple[float, str],
    str,
    tuple[tuple[str, str, tuple[float, str], tuple[float, str], str], ...],
]:
    """`commander_risk`'s numbers and words for a rating (lines 11-15), worked out once:
    the faces that hit him and their chance, the source, and per row of the if-hit table its
    faces, result, chance and overall chance (as (value, exact)) and source."""
    row = COMMANDERS[rating]
    p_hit = Fraction(row.hit_up_to, 6)
    return (
        f"1-{row.hit_up_to}" if row.hit_up_to > 1 else "1",
        _odds(p_hit),
        str(row.cite),
        tuple(
            (
                f"{r.start}-{r.stop - 1}" if len(r) > 1 else str(r.start),
                text,
                _odds(Fraction(len(r), 6)),
                _odds(p_hit * Fraction(len(r), 6)),
                str(c),
            )
            for r, text, c in IF_HIT
        ),
    )


def _commander_risk_line(risk: dict[str, Any]) -> str:
    return (
        f"commander {risk['commander']} ({risk['rating']}) rolls 1d6: hit on {risk['hit_on']} "
        f"({risk['p_hit']['exact']}), then 1 dead, 2-3 wounded, 4-5 horse killed, 6 a scratch "
        f"[{risk['source']}]"
    )


# --------------------------------------------------------------------------------------------
# Charge combat


@dataclass(frozen=True, slots=True)
class Combat:
    """The exact outcome of a charge combat between two units (lines 88-91)."""

    p_a_wins: Fraction
    p_b_wins: Fraction
    p_both_destroyed: Fraction
    a_bases_lost: tuple[Fraction, ...]
    b_bases_lost: tuple[Fraction, ...]
    p_drawn_round: Fraction


def charge_combat(a: NerveTest, b: NerveTest) -> Combat:
    """Rounds of simultaneous nerve tests until one side alone passes.

    A drawn round costs each side 1 hit; the decisive round costs the winner 1 and the loser 2.
    A unit whose every base is gone in a drawn round is destroyed and loses.
    """
    return _combat(
        a.p_pass, b.p_pass, len(a.unit.bases), len(b.unit.bases), _hits(a.unit), _hits(b.unit)
    )


@lru_cache(maxsize=1024)
def _combat(pa: Fraction, pb: Fraction, na: int, nb: int, ha: int, hb: int) -> Combat:
    """`charge_combat` from the odds, bases and carried hits alone (many pairs repeat)."""
    a_only, b_only = pa * (1 - pb), pb * (1 - pa)
    draw = 1 - a_only - b_only
    lost_a = [Fraction(0)] * (na + 1)
    lost_b = [Fraction(0)] * (nb + 1)
    wins_a = wins_b = both = Fraction(0)

    def settle(p: Fraction, hits_a: int, hits_b: int) -> None:
        lost_a[min(hits_a // HITS_PER_BASE, na)] += p
        lost_b[min(hits_b // HITS_PER_BASE, nb)] += p

    reach, k = Fraction(1), 0
    while reach:
        dead_a = ha + k >= HITS_PER_BASE * na
        dead_b = hb + k >= HITS_PER_BASE * nb
        if dead_a or dead_b:
            if dead_a and dead_b:
                both += reach
            elif dead_a:
                wins_b += reach
            else:
                wins_a += reach
            settle(reach, ha + k, hb + k)
            break
        wins_a += reach * a_only
        settle(reach * a_only, ha + k + WIN_HITS, hb + k + LOSE_HITS)
        wins_b += reach * b_only
        settle(reach * b_only, ha + k + LOSE_HITS, hb + k + WIN_HITS)
        reach *= draw
        k += DRAW_HITS
    return Combat(wins_a, wins_b, both, tuple(lost_a), tuple(lost_b), draw)


@lru_cache(maxsize=1024)
def _charge_odds(
    charger: tuple[int, int], target: tuple[int, int], bases: tuple[int, int], hits: tuple[int, int]
) -> dict[str, tuple[float, str]]:
    """A charge's odds for JSON, (value, exact) by name: from the charger's and the target's
    nerve tests (dice, tests) and the charge combat of units with these bases and hits
    carried. The same for every charge with these numbers, so worked out once (`suggest`
    weighs hundreds of charges of a few kinds)."""
    pc, pt = _p_pass(*charger), _p_pass(*target)
    combat = _combat(pc, pt, *bases, *hits)
    p_combat = pc * pt
    odds = {
        "charger_passes": pc,
        "target_passes": pt,
        "no_charge": 1 - pc,
        "target_routs": pc * (1 - pt),
        "charge_combat": p_combat,
        "charger_wins_combat": p_combat * combat.p_a_wins,
        "target_wins_combat": p_combat * combat.p_b_wins,
        "both_destroyed": p_combat * combat.p_both_destroyed,
    }
    return {k: _odds(p) for k, p in odds.items()}


@lru_cache(maxsize=256)
def _fire_reasons(
    arm: str,
    guns: str | None,
    kind: str | None,
    target_kind: str | None,
    band: str | None,
    moved: bool,
) -> tuple[tuple[str, Cite | None], ...]:
    """The reasons a shot of `arm` (a gun of `guns`, else a unit of `kind` at a unit of
    `target_kind`) at `band` range (None: out of range) may or may not be taken, before
    sight (lines 56-70; `moved`: European guns manhandled this turn): the same words for
    every such shot, so written once."""
    reasons: list[tuple[str, Cite | None]] = []
    bands = ARTILLERY_BANDS if guns is not None else INFANTRY_BANDS
    at = next((b for b in bands if b.label == band), None)
    if at is None:
        last = bands[-1]
        reasons.append(
            (f"beyond the longest range ({format_length(last.limit, 'in')})", last.range_cite)
        )
    else:
        reasons.append((f"{at.label} range (up to {format_length(at.limit, 'in')})", at.range_cite))
        if guns is not None:
            row = ARTILLERY_FIRE[guns]
            need = row.needs[at.label]
            if need is None:
                reasons.append((f"{guns} guns: N/A at {at.label} range", row.cite))
            else:
                reasons.append((f"{guns} guns at {at.label} range: {need}+", row.cite))
        else:
            assert kind is not None and target_kind is not None
            row = INFANTRY_FIRE[kind]
            need = row.needs[at.label][TYPES.index(target_kind)]
            reasons.append(
                (f"{kind} firing at {target_kind} at {at.label} range: {need}+", row.cite)
            )
    if arm == "cavalry":
        reasons.append(
            (
                "cavalry: the sheet has fire tables for infantry, artillery and rockets only",
                EACH_BASE_ROLLS,
            )
        )
    if moved:
        reasons.append(("European guns manhandled this turn may not fire", GUNS_MOVED_NO_FIRE))
    return tuple(reasons)


def _shown(odds: tuple[float, str]) -> dict[str, Any]:
    """A remembered (value, exact) as `_prob` shows it."""
    return {"value": odds[0], "exact": odds[1]}


# --------------------------------------------------------------------------------------------
# Movement


@dataclass(frozen=True, slots=True)
class Allowance:
    """How far a unit may move this turn in the going it stands in or must cross."""

    distance: float
    """mm"""
    going: str
    """`open`, `rough` or `obstacle`."""
    disordered: bool
    whole_turn: bool
    pieces: tuple[str, ...]
    reasons: tuple[tuple[str, Cite], ...]


def _going(kinds: Sequence[TerrainKind]) -> str:
    if any(k in OBSTACLE_KINDS for k in kinds):
        return "obstacle"
    if any(k in ROUGH_KINDS for k in kinds):
        return "rough"
    return "open"


def move_allowance(table: Table, unit: Unit, crossing: Sequence[str] = ()) -> Allowance:
    """The move of a unit (lines 49-56) in the terrain it stands in plus any it must cross."""
    if crossing:
        return _move_allowance(table, unit, crossing)
    known = _measured(table).allowances
    if unit.id not in known:
        known[unit.id] = _move_allowance(table, unit, ())
    return known[unit.id]


def _move_allowance(table: Table, unit: Unit, crossing: Sequence[str]) -> Allowance:
    if is_commander(unit):
        raise QuestionError(
            f"{ID}: {unit.id!r} is a commander; the sheet gives no move allowance for a "
            "commander (he moves independently or with a unit, line 21)"
        )
    arm = _arm(unit)
    pieces = [s.terrain for b in unit.bases if _near_terrain(table, b) for s in table.standing(b)]
    pieces += [table.scene.terrain_piece(t) for t in crossing]
    names = tuple(dict.fromkeys(p.id for p in pieces))
    going = _going([p.kind for p in pieces])
    if arm == "artillery":
        guns = _guns(unit)
        if guns == "indian":
            return Allowance(
                0.0,
                going,
                False,
                False,
                names,
                (("Indian artillery is static", INDIAN_STATIC_CITE),),
            )
        if going != "open":
            return Allowance(
                0.0,
                going,
                False,
                False,
                names,
                (("European guns manhandle across open ground only", EUROPEAN_GUNS_CITE),),
            )
        return Allowance(
            EUROPEAN_GUNS_MOVE,
            going,
            False,
            False,
            names,
            (
                (
                    'European guns manhandle 2" across open ground, and may not fire',
                    EUROPEAN_GUNS_CITE,
                ),
            ),
        )
    kind = _order(unit)
    row = MOVES[kind]
    mounted = arm == "cavalry"
    open_move = row.cavalry if mounted else row.foot
    what = "cavalry" if mounted else "foot"
    if going == "open":
        return Allowance(
            open_move, going, False, False, names, ((f"{kind} {what} in the open", row.cite),)
        )
    if going == "rough":
        return Allowance(
            row.rough,
            going,
            row.rough_disorders,
            False,
            names,
            ((f"{kind} in rough ground/hills/woods/rivers/bridges", row.cite), ("", ROUGH_CITE)),
        )
    if row.obstacle_whole_turn:
        return Allowance(
            0.0,
            going,
            True,
            True,
            names,
            (
                (f"{kind}: crossing hedges, walls, etc takes the whole turn", row.cite),
                ("", OBSTACLE_CITE),
            ),
        )
    return Allowance(
        PASSIVE_OBSTACLE,
        going,
        False,
        False,
        names,
        ((f"{kind} across hedges, walls, etc", row.cite), ("", OBSTACLE_CITE)),
    )


def _near_terrain(table: Table, base: Base) -> bool:
    """Whether any terrain piece's bounding box touches the base's: only then can it stand in
    one (saves clipping every base against every piece)."""
    m = _measured(table)
    if not m.maybe_in_terrain[table.index[base.id]]:
        return False
    pts = geo.outline_polygon(base, 8)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    boxes_lo, boxes_hi = m.terrain_boxes
    return bool(((boxes_lo <= hi).all(axis=1) & (boxes_hi >= lo).all(axis=1)).any())


def _frame(unit: Unit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unit's frame: origin, right and forward unit vectors (from its first base)."""
    ref = unit.bases[0]
    f = geo.forward(ref.facing)
    return np.array([ref.x, ref.y]), np.array([f[1], -f[0]]), f


def _extent(bases: Sequence[Base], frame: tuple[np.ndarray, ...]) -> tuple[float, ...]:
    """(right-min, right-max, ahead-min, ahead-max) of the bases' outlines in a frame, mm."""
    origin, right, fwd = frame
    pts = np.vstack([geo.outline_polygon(b, 16) for b in bases]) - origin
    u, v = pts @ right, pts @ fwd
    return float(u.min()), float(u.max()), float(v.min()), float(v.max())


def fall_back_past(table: Table, unit: Unit, full_move: float) -> list[dict[str, Any]]:
    """Friendly units to the rear of a unit falling back or routing, and whether it may
    manoeuvre past each (lines 32-37)."""
    scene = table.scene
    frame = _frame(unit)
    u0, u1, v0, _ = _extent(unit.bases, frame)
    frontage = u1 - u0
    out = []
    for friend in scene.units:
        if friend.id == unit.id or friend.side != unit.side or is_commander(friend):
            continue
        fu0, fu1, fv0, fv1 = _extent(friend.bases, frame)
        behind = fv1 <= v0 and fu0 < u1 and fu1 > u0 and v0 - fv1 <= full_move
        if not behind:
            continue
        near = _near(table, unit, friend)
        unc = table.uncertainty(near.a, near.b)
        apart = Threshold(near.distance, GAP_DISTANCE, unc)
        others = [
            _extent((b,), frame)
            for other in scene.units
            if other.id not in (unit.id, friend.id)
            for b in other.bases
        ]
        gaps = {}
        for side, edge, sign in (("left", fu0, -1), ("right", fu1, 1)):
            free = math.inf
            for ou0, ou1, ov0, ov1 in others:
                if ov1 <= fv0 or ov0 >= fv1:
                    continue  # not level with the friend
                gap = (edge - ou1) if sign < 0 else (ou0 - edge)
                if gap >= -geo.EPS:
                    free = min(free, max(gap, 0.0))
            gaps[side] = free
        gap_checks = {
            side: None if math.isinf(free) else Threshold(frontage, free, unc)
            for side, free in gaps.items()
        }
        # Condition 1 is met when the distance is at least 8": beyond (or on) the limit.
        far_enough = geo.within(apart.limit, apart.measured)
        gap_ok = any(t is None or t.within for t in gap_checks.values())
        close = apart.too_close_to_call or any(
            t is not None and t.too_close_to_call for t in gap_checks.values()
        )
        out.append(
            {
                "friend": friend.id,
                "distance": threshold_json(scene, apart),
                "at_least_8in": far_enough,
                "frontage": length_json(scene, frontage),
                "gaps": {
                    side: (
                        {"free": "clear"}
                        if t is None
                        else {"free": length_json(scene, t.limit), **threshold_json(scene, t)}
                    )
                    for side, t in gap_checks.items()
                },
                "gap_of_frontage": gap_ok,
                "may_manoeuvre": far_enough and gap_ok,
                "too_close_to_call": close,
                "sources": [str(GAP_DISTANCE_CITE), str(GAP_WIDTH_CITE), str(GAP_OTHERWISE_CITE)],
            }
        )
    return out


# --------------------------------------------------------------------------------------------
# Rockets


def _burst_pattern() -> tuple[np.ndarray, np.ndarray]:
    """Every point a rocket may explode at, launched from (0, 0) along +x, and its chance
    as a whole number of 1/3^8 (lines 74-75).

    Leg k of 1..4: the white die turns it (1/3 each way, turns add up), it flies 8", the red
    die explodes it on 5-6 (1/3); it gets to leg k only if the red die failed k-1 times (2/3
    each). So each of the 3^k points of leg k bursts with (1/3)^k (2/3)^(k-1) (1/3)
    = 2^(k-1) / 3^(2k) = 2^(k-1) 3^(8-2k) / 3^8.
    """
    points: list[tuple[float, float]] = []
    weights: list[int] = []
    paths = [((0.0, 0.0), 0.0)]
    for k in range(1, ROCKET_LEGS + 1):
        nxt = []
        for (x, y), h in paths:
            for _, turn in ROCKET_TURNS:
                t = math.radians(h + turn)
                point = (x + ROCKET_LEG * math.cos(t), y + ROCKET_LEG * math.sin(t))
                points.append(point)
                weights.append(2 ** (k - 1) * 3 ** (2 * ROCKET_LEGS - 2 * k))
                nxt.append((point, h + turn))
        paths = nxt
    return np.array(points), np.array(weights, dtype=np.int64)


ROCKET_BURN_OUT = Fraction(2, 3) ** ROCKET_LEGS
"""A rocket flies all 4 legs unexploded: 1-4 on the red die (2/3) after each."""
ROCKET_RED_DIE = Roll.success_roll(
    "explodes (red die)", 1, 6, 5, (), ROCKET_EXPLODES, 'rolled after each 8" leg; 1-4 flies on'
)
ROCKET_WHITE_DIE = Roll(
    "flight path (white die)",
    1,
    6,
    None,
    (),
    (),
    ROCKET_PATH,
    '1-2 left 45 degrees, 3-4 straight on, 5-6 right 45 degrees; then 8"',
)
ROCKET_SOURCES = tuple(
    str(c) for c in (ROCKET_PATH, ROCKET_EXPLODES, ROCKET_FOUR_MOVES, ROCKET_LOSS)
)
"""The sources of a rocket battery's answer, as written."""
BURST_POINTS, BURST_WEIGHTS = _burst_pattern()
BURST_DENOMINATOR = 3 ** (2 * ROCKET_LEGS)
"""A burst's chance is its weight / 3^8."""


def rocket_bursts(start: tuple[float, float], heading: float) -> np.ndarray:
    """The burst points of a rocket launched from `start` (mm) along `heading` (degrees), in
    the order of `BURST_WEIGHTS`."""
    return _rockets_bursts([start], [heading])[0]


def _rockets_bursts(starts: Sequence[tuple[float, float]], headings: Sequence[float]) -> np.ndarray:
    """(R, P, 2) the burst points of R rockets, each launched from `starts[k]` (mm) along
    `headings[k]` (degrees): one stacked matrix product, the same numbers as one by one."""
    rotations: list[float] = []
    for heading in headings:
        t = math.radians(heading)
        c, s = math.cos(t), math.sin(t)
        rotations += (c, s, -s, c)
    turned = BURST_POINTS @ np.array(rotations).reshape(-1, 2, 2)
    return np.asarray(turned + np.array(starts).reshape(-1, 1, 2))


@dataclass(frozen=True, slots=True)
class _Footprints:
    """Every base's footprint as arrays, for judging many burst points at once."""

    xy: np.ndarray
    fwd: np.ndarray
    half_width: np.ndarray
    half_depth: np.ndarray
    circle: np.ndarray

    @classmethod
    def of(cls, bases: Sequence[Base]) -> _Footprints:
        t = np.radians([b.facing for b in bases])
        return cls(
            np.array([(b.x, b.y) for b in bases]),
            np.stack([np.cos(t), np.sin(t)], axis=1),
            np.array([b.footprint.width / 2 for b in bases])[:, None],
            np.array([b.footprint.depth / 2 for b in bases])[:, None],
            np.array([b.footprint.circle for b in bases])[:, None],
        )

    def bursts(
        self,
        points: np.ndarray,
        unc: np.ndarray,
        groups: np.ndarray,
        rows: np.ndarray,
        row_groups: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(row, point, near_row, near_point): the (row, point) pairs of the same group where
        the point lies on the footprint of the base of rows[row], and those where it lies
        within `unc[point]` of the base's edge (inside or out), judged in the base's own frame.
        (A group is one launcher's rockets and the bases they are judged against.)

        Only the (base, point) pairs within a base's circumradius (plus the point's `unc`) of
        its centre are judged exactly; the rest cannot be on or near it. Those pairs are found
        through the points sorted by cell (group, then strip of y as tall as two reaches),
        then x: the points within that reach (and a millimetre) of a centre lie in two cells
        at most, and in each they are a run of the sorted points. The distance test then runs
        on those runs only."""
        xy = self.xy[rows]
        radius = np.hypot(self.half_width[rows], self.half_depth[rows])[:, 0]
        window = radius + (float(unc.max()) if len(unc) else 0.0) + 1.0
        widest = float(window.max(initial=0.0))
        tall = 2 * widest + 1.0
        # Cells laid end to end along x: each cell spans more than the table and a window
        # each side, so a window never reaches into the next cell (and the group is checked
        # exactly below too).
        low = min(float(points[:, 0].min(initial=0.0)), float(xy[:, 0].min(initial=0.0)))
        high = max(float(points[:, 0].max(initial=0.0)), float(xy[:, 0].max(initial=0.0)))
        bottom = min(float(points[:, 1].min(initial=0.0)), float(xy[:, 1].min(initial=0.0)))
        bottom -= tall
        span = 2 * (high - low + widest) + 1.0
        strip = np.floor((points[:, 1] - bottom) / tall).astype(int)
        first = np.floor((xy[:, 1] - window - bottom) / tall).astype(int)
        strips = int(max(strip.max(initial=0), first.max(initial=0))) + 2
        key = points[:, 0] - low + (groups * strips + strip) * span
        order = np.argsort(key)
        keys = key[order]
        # each row's window in its first strip and the next one
        cells = np.concatenate([row_groups * strips + first, row_groups * strips + first + 1])
        centre = np.tile(xy[:, 0] - low, 2) + cells * span
        lo = np.searchsorted(keys, centre - np.tile(window, 2), side="left")
        sizes = np.searchsorted(keys, centre + np.tile(window, 2), side="right") - lo
        r = np.repeat(np.tile(np.arange(len(rows)), 2), sizes)
        p = order[np.arange(int(sizes.sum())) + np.repeat(lo - (np.cumsum(sizes) - sizes), sizes)]
        same = groups[p] == row_groups[r]
        r, p = r[same], p[same]
        dx = points[p, 0] - xy[r, 0]
        dy = points[p, 1] - xy[r, 1]
        d2 = dx * dx + dy * dy  # (x**2).sum over a last axis of 2 is many times slower
        keep = d2 <= (radius[r] + unc[p]) ** 2
        r, p = r[keep], p[keep]
        unc = unc[p]
        sel = rows[r]
        rel = points[p] - xy[r]
        fwd = self.fwd[sel]
        v = np.abs((rel * fwd).sum(axis=1))
        u = np.abs(rel[:, 0] * fwd[:, 1] - rel[:, 1] * fwd[:, 0])
        hw, hd = self.half_width[sel, 0], self.half_depth[sel, 0]
        out_dist = np.hypot(np.maximum(u - hw, 0), np.maximum(v - hd, 0))
        in_dist = np.minimum(hw - u, hd - v)
        signed = np.where(
            self.circle[sel, 0],
            hw - np.hypot(u, v),
            np.where(out_dist > 0, -out_dist, in_dist),
        )
        inside, near = signed >= 0, np.abs(signed) <= unc
        return r[inside], p[inside], r[near], p[near]


def _aim(table: Table, launcher: Base, target: Unit) -> Base:
    """The base of `target` a launcher aims its rocket at: the nearest (the first of equals)."""
    return min(target.bases, key=lambda b: table.distance(launcher, b))


def _rocket_path(launcher: Base, aim: Base) -> tuple[tuple[float, float], float]:
    """Where a rocket leaves the launcher's front edge (mm) and its heading (degrees)."""
    heading = math.degrees(math.atan2(aim.y - launcher.y, aim.x - launcher.x))
    f = geo.forward(heading)
    start_mm = (
        launcher.x + f[0] * launcher.footprint.depth / 2,
        launcher.y + f[1] * launcher.footprint.depth / 2,
    )
    return start_mm, heading


@dataclass(frozen=True, slots=True)
class _Flight:
    """Where the rocket a launcher fires at one aimed-at base may burst, base by base."""

    weight: np.ndarray
    """(N,) the chance the rocket bursts on each base of the Table (0 on its own unit's and
    those out of reach), in whole 1/3^8; read-only."""
    near: np.ndarray
    """(N,) whether a burst point lies within the uncertainty of each base's edge (never its
    own unit's); read-only."""
    on_unit: np.ndarray
    """(U,) the chance it bursts on each unit of the scene (the sum over its bases), in whole
    1/3^8; read-only."""

    def hits(self, ids: Sequence[str]) -> list[tuple[str, int]]:
        """(base id, chance) of every base it may burst on, in table order (`ids`: the
        Table's base ids)."""
        at = np.flatnonzero(self.weight)
        return list(zip([ids[i] for i in at.tolist()], self.weight[at].tolist(), strict=True))

    def near_edge(self, ids: Sequence[str]) -> list[str]:
        """The ids of the bases with a burst point near their edge, in table order."""
        return [ids[i] for i in np.flatnonzero(self.near).tolist()]


def _flight(table: Table, shooter: Unit, launcher: Base, aim: Base) -> _Flight:
    """The flight of the rocket `launcher` fires at `aim` (memoised per Table; judged with
    the flights at the nearest base of every other enemy in reach, see `_fly`)."""
    m = _measured(table)
    key = (launcher.id, aim.id)
    if key not in m.flights:
        found = {aim.id: aim}
        for other in _aims(table, shooter, launcher):
            found.setdefault(other.id, other)
        _fly(table, [(shooter, launcher, list(found.values()))])
    return m.flights[key]


def _aims(table: Table, shooter: Unit, launcher: Base) -> list[Base]:
    """The bases a launcher aims at in the enemies in a rocket's reach (those `suggest` asks
    of), one per enemy unit."""
    m = _measured(table)
    gaps = m.gaps[m.units[shooter.id]]
    reach = ROCKET_LEG * ROCKET_LEGS + m.slack
    return [
        _aim(table, launcher, u)
        for u in table.scene.units
        if u.side != shooter.side and u.bases and gaps[m.units[u.id]] <= reach
    ]


def _fly(table: Table, launches: Sequence[tuple[Unit, Base, Sequence[Base]]]) -> None:
    """Judge the flights of the rockets of each (shooter, launcher, aimed-at bases) into the
    Table's memo of flights (a flight already judged is kept), all in one batch.

    `suggest` fires every launcher at every enemy in reach, and the flight at one aimed-at
    base is the same whichever unit is the target: so all of them are judged at once
    (`_Footprints.bursts`), each (base, burst point) pair with the same arithmetic as alone.
    A rocket is judged against the bases of other units no farther than 4 legs (and its
    uncertainty) from the launcher's edge: no burst is farther."""
    m = _measured(table)
    reach = ROCKET_LEG * ROCKET_LEGS
    starts, headings, launch_of, uncs, aimed = [], [], [], [], []
    allowed = np.zeros((len(launches), len(table.bases)), dtype=bool)
    for n, (shooter, launcher, aims) in enumerate(launches):
        unc = table.scene.uncertainty_of(launcher)
        allowed[n] = (table.unit_numbers != m.units[shooter.id]) & (
            table.distances[table.index[launcher.id]] <= reach + unc + 1.0
        )
        for a in aims:
            start, heading = _rocket_path(launcher, a)
            starts.append(start)
            headings.append(heading)
            launch_of.append(n)
            uncs.append(unc)
            aimed.append((launcher.id, a.id))
    if not aimed:
        return
    size = len(BURST_POINTS)
    points = _rockets_bursts(starts, headings).reshape(-1, 2)
    judged = [np.flatnonzero(a) for a in allowed]
    rows = np.concatenate(judged)
    hit_row, hit_point, near_row, near_point = m.footprints.bursts(
        points,
        np.repeat(uncs, size),
        np.repeat(launch_of, size),
        rows,
        np.repeat(np.arange(len(launches)), [len(j) for j in judged]),
    )
    # rocket k's bursts on each base: weight[k, base] summed, near[k, base]
    weight = np.zeros((len(aimed), len(table.bases)), dtype=np.int64)
    np.add.at(weight, (hit_point // size, rows[hit_row]), BURST_WEIGHTS[hit_point % size])
    near = np.zeros((len(aimed), len(table.bases)), dtype=bool)
    near[near_point // size, rows[near_row]] = True
    on_unit = np.zeros((len(aimed), len(m.units)), dtype=np.int64)
    np.add.at(
        on_unit,
        (hit_point // size, table.unit_numbers[rows[hit_row]]),
        BURST_WEIGHTS[hit_point % size],
    )
    for judged_array in (weight, near, on_unit):
        judged_array.flags.writeable = False
    for k, key in enumerate(aimed):
        m.flights.setdefault(key, _Flight(weight[k], near[k], on_unit[k]))


class _Troop:
    """A unit's attributes the rules read, each checked when first read and then remembered
    (a scene's units do not change, and `suggest` reads each hundreds of times). A bad value
    is never remembered: it raises each time it is read, as the reader does."""

    def __init__(self, unit: Unit) -> None:
        self.unit = unit

    @cached_property
    def commander(self) -> bool:
        return is_commander(self.unit)

    @cached_property
    def arm(self) -> str:
        return _arm(self.unit)

    @cached_property
    def kind(self) -> str:
        """The order it acts on: the row of every "Unit type" table (`_order`)."""
        return _order(self.unit)

    @cached_property
    def guns(self) -> str:
        return _guns(self.unit)

    @cached_property
    def status(self) -> str | None:
        return _status(self.unit)

    @cached_property
    def disordered(self) -> bool:
        return _disordered(self.unit)

    @cached_property
    def hits(self) -> int:
        return _hits(self.unit)

    @cached_property
    def moved(self) -> bool:
        return _moved(self.unit)

    @cached_property
    def acted(self) -> bool:
        return _acted(self.unit)


class _Measured:
    """What `suggest` asks of one Table again and again, computed once: the footprints as
    arrays, the shortest distance between every two units (`Table.unit_gaps`), each unit's
    rows, and the memos filled as questions are asked (units' attributes, nearest pairs,
    sight verdicts, rocket flights). Kept per Table (`_measured`, keyed weakly by it): a
    scene's units and bases do not change, so nothing here can go stale."""

    def __init__(self, table: Table) -> None:
        self.table = weakref.ref(table)
        """The Table measured, weakly: `_MEASURED` is keyed weakly by it, and a strong
        reference from its value would keep every Table (and scene) alive for ever."""
        self.footprints = _Footprints.of(table.bases)
        self.units = {u.id: i for i, u in enumerate(table.scene.units)}
        self.unit_of_base = {b.id: table.scene.units[self.units[b.unit_id]] for b in table.bases}
        """The unit of each base, by the base's id."""
        self.base_ids = [b.id for b in table.bases]
        sizes = [len(u.bases) for u in table.scene.units]
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        self.gaps = table.unit_gaps()
        """(U, U) the shortest distance between every two units (the least of their block of
        `table.distances`, as `Table.unit_distance` measures it)."""
        if self.gaps.shape != (len(sizes), len(sizes)):  # a unit without bases
            d = table.distances
            self.gaps = np.minimum.reduceat(
                np.minimum.reduceat(d, self.starts, axis=0), self.starts, axis=1
            )
        self.gap_rows: list[list[float]] = self.gaps.tolist()
        """`gaps` as plain numbers, read one by one."""
        self.sees = np.full((len(table.bases), len(table.bases)), -1, dtype=np.int8)
        """[i, j]: whether base i sees base j (some sight line clear): 1 or 0 once judged for
        `suggest`, else -1."""
        self.rows_of: dict[str, slice | np.ndarray] = {}
        """Each unit's rows in `table.bases`: a slice when they are consecutive, as a unit's
        bases are (`table.distances[rows_of[a]][:, rows_of[b]]` is the block of two units)."""
        self.row_numbers: dict[str, np.ndarray] = {}
        """Each unit's rows in `table.bases`, as an array."""
        self.place = np.zeros(len(table.bases), dtype=int)
        """(N,) where each base stands in its unit's bases (reading order of a unit's pairs)."""
        self.first_seen: dict[tuple[str, str], tuple[float, tuple[str, str] | None]] = {}
        """Per (unit, unit) whose sight `suggest` judged in one batch: the limit, and the
        nearest pair of bases within it that sees (the first in reading order of equals), or
        None (`_sight_seen`)."""
        for u, start in zip(table.scene.units, self.starts.tolist(), strict=True):
            run = table.bases[start : start + len(u.bases)]
            rows = np.array(table.rows(u.bases), dtype=int)
            self.row_numbers[u.id] = rows
            self.place[rows] = np.arange(len(rows))
            same = len(run) == len(u.bases) and all(
                x is y for x, y in zip(run, u.bases, strict=True)
            )
            self.rows_of[u.id] = slice(start, start + len(u.bases)) if same else rows
        self.allowances: dict[str, Allowance] = {}
        """Each unit's move in the going it stands in, once asked."""
        self.flights: dict[tuple[str, str], _Flight] = {}
        """Per (launcher, aimed-at base): where its rocket may burst (`_flight`)."""
        scene = table.scene
        polys = [np.asarray(piece.polygon) for piece in scene.terrain]
        self.terrain_boxes = (
            np.array([p.min(axis=0) for p in polys]).reshape(-1, 2),
            np.array([p.max(axis=0) for p in polys]).reshape(-1, 2),
        )
        """Each terrain piece's bounding box: (P, 2) lower and upper corners, mm."""
        feet = self.footprints
        reach = np.hypot(feet.half_width, feet.half_depth) + 1.0  # (N, 1)
        lo, hi = feet.xy - reach, feet.xy + reach
        boxes_lo, boxes_hi = self.terrain_boxes
        self.maybe_in_terrain = (
            (boxes_lo[None, :, :] <= hi[:, None, :]).all(axis=2)
            & (boxes_hi[None, :, :] >= lo[:, None, :]).all(axis=2)
        ).any(axis=1)
        """(N,) whether the box a millimetre around each base's circumcircle touches a terrain
        piece's box: when not, no point of its outline can (`_near_terrain` is False)."""
        self.slack = 2 * max((scene.uncertainty_of(b) for b in table.bases), default=0.0)
        """More than the uncertainty of any distance between two bases, mm."""
        self.troops = [u for u in scene.units if not is_commander(u)]
        """The units that are not commanders, in the scene's order."""
        alike = {scene.uncertainty_of(b) for b in table.bases}
        self.uncertainty = (
            table.uncertainty(table.bases[0], table.bases[0]) if len(alike) == 1 else None
        )
        """The uncertainty of any distance between two bases when every base has the same
        position uncertainty (`Table.uncertainty` of any two), else None: per pair."""
        self.nearest: dict[tuple[str, str], tuple[geo.Closest, float]] = {}
        """Per (unit, unit) asked: `_near_and_uncertainty`."""
        self.troop_of: dict[str, _Troop] = {}
        """Each unit's attributes read so far (`troop`)."""

    @staticmethod
    def block(rows: np.ndarray, a: slice | np.ndarray, b: slice | np.ndarray) -> np.ndarray:
        """rows[a][:, b] (two units' block of an (N, N) array, `rows_of`), as a view when
        both are slices."""
        if isinstance(a, slice) and isinstance(b, slice):
            return rows[a, b]
        return rows[a][:, b]

    def troop(self, unit: Unit) -> _Troop:
        """The unit's attributes, read once (`_Troop`)."""
        found = self.troop_of.get(unit.id)
        if found is None:
            found = self.troop_of[unit.id] = _Troop(unit)
        return found


_MEASURED: weakref.WeakKeyDictionary[Table, _Measured] = weakref.WeakKeyDictionary()


_LAST_MEASURED: _Measured | None = None
"""The last table's measurements: `suggest` asks for them thousands of times in a row, and a
weak dictionary's lookup is slow by comparison. Read once into a local, so a thread never
gets another thread's table's."""
_MEASURED_LOCK = threading.Lock()


def _measured(table: Table) -> _Measured:
    global _LAST_MEASURED
    last = _LAST_MEASURED
    if last is not None and last.table() is table:
        return last
    with _MEASURED_LOCK:
        found = _MEASURED.get(table)
        if found is None:
            found = _MEASURED[table] = _Measured(table)
    _LAST_MEASURED = found
    return found


def _near(table: Table, a: Unit, b: Unit) -> geo.Closest:
    """The nearest pair of bases of two units and their distance."""
    return table.unit_distance(a, b)


def _gap(table: Table, a: Unit, b: Unit) -> tuple[float, float]:
    """The shortest distance between two units and its uncertainty: `_near_and_uncertainty`
    without naming the nearest pair of bases when no uncertainty depends on it (the
    distance is the least of the two units' block of distances, `_Measured.gaps`)."""
    m = _measured(table)
    if m.uncertainty is None:
        near, unc = _near_and_uncertainty(table, a, b)
        return near.distance, unc
    return m.gap_rows[m.units[a.id]][m.units[b.id]], m.uncertainty


def _near_and_uncertainty(table: Table, a: Unit, b: Unit) -> tuple[geo.Closest, float]:
    """The nearest pair of bases of two units, and the uncertainty of their distance
    (`Table.uncertainty`): remembered per Table, since `suggest` asks it of the same two
    units in several phases (and the uncertainty is one number when all bases share one)."""
    m = _measured(table)
    key = (a.id, b.id)
    found = m.nearest.get(key)
    if found is None:
        near = table.unit_distance(a, b)
        unc = m.uncertainty
        found = m.nearest[key] = (
            near,
            table.uncertainty(near.a, near.b) if unc is None else unc,
        )
    return found


# --------------------------------------------------------------------------------------------
# The ruleset


class SepoysAndSoldiers(Ruleset):
    id = ID
    title = "Sepoys & Soldiers - QRS"
    sheet = SHEET
    unit = "in"
    phases: ClassVar[tuple[str, ...]] = tuple(p.name for p in PHASE_STEPS)
    phase_steps: ClassVar[tuple[Phase, ...]] = PHASE_STEPS
    sides_rule: ClassVar[str] = (
        "the sheet prints no sequence of play and dices for no initiative: every side acts in "
        "every step (all), in the sheet's own order: orders (line 17), rally and reform "
        "(line 21), charges (line 79), moves, fire, charge combats (line 86)"
    )
    unit_fields: ClassVar[tuple[Field, ...]] = UNIT_FIELDS

    def with_defaults(self, scene: Scene) -> Scene:
        """The engine's start-of-game values, and the `orders` of a unit that gives none: the
        order of its troop type (lines 5-7), noted as assumed like the others."""
        scene = super().with_defaults(scene)
        units = []
        for unit in scene.units:
            kind = unit.get("type")
            if unit.get("orders") is None and kind in TYPES:
                unit = replace(
                    unit,
                    attrs=MappingProxyType({**unit.attrs, "orders": kind}),
                    defaulted=unit.defaulted | {"orders"},
                )
            units.append(unit)
        return replace(scene, units=tuple(units))

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """Infantry fire's 4" and 8" (line 66); a gun's 8", 20" and 30" where its row is not
        N/A (lines 59-62). Cavalry have no fire table and rockets fly their own path."""
        arm = _arm(unit)
        if arm == "foot":
            return tuple(RangeBand(b.label, b.limit, b.range_cite) for b in INFANTRY_BANDS)
        if arm == "artillery":
            needs = ARTILLERY_FIRE[_guns(unit)].needs
            return tuple(
                RangeBand(b.label, b.limit, b.range_cite)
                for b in ARTILLERY_BANDS
                if needs[b.label] is not None
            )
        return ()

    def actions(self) -> dict[str, Any]:
        return {
            **super().actions(),
            "shoot": self.shoot,
            "command": self.command,
            "nerve": self.nerve,
            "charge": self.charge,
            "melee": self.melee,
            "move": self.move,
            "suggest": self.suggest,
        }

    # ----------------------------------------------------------------------------------------
    # Outcomes: what the dice the players threw do to the state of the game

    def outcomes(self) -> Mapping[str, OutcomeRule]:
        return {
            "shoot": OutcomeRule(self._shoot_form, self._shoot_apply),
            "command": OutcomeRule(self._command_form, self._command_apply),
            "nerve": OutcomeRule(self._nerve_form, self._nerve_apply),
            "charge": OutcomeRule(self._charge_form, self._charge_apply),
            "melee": OutcomeRule(self._melee_form, self._melee_apply),
            "move": OutcomeRule(self._move_form, self._move_apply),
        }

    @staticmethod
    def _removed_report(
        unit: Unit, label: str, cite: Cite, most: int, likely_hits: int = 0
    ) -> Report:
        """Which bases of `unit` the players take off (at most `most`); shown first: the last
        bases of the unit, as many as `likely_hits` more hits would take (line 3)."""
        bases = tuple(b.id for b in unit.bases)
        lost = min((_hits(unit) + likely_hits) // HITS_PER_BASE, len(bases))
        return Report(
            f"removed_{unit.id}",
            Kind.BASES,
            label,
            cite,
            maximum=min(most, len(bases)),
            unit=unit.id,
            bases=bases,
            default=bases[len(bases) - lost :],
        )

    @staticmethod
    def _hits_landed(
        unit: Unit,
        carried: int,
        hits: int,
        named: Sequence[str],
        why: str,
        cite: Cite,
        question: str,
    ) -> list[Change]:
        """`hits` more on a unit carrying `carried`: every third removes a base (line 3), the
        players having named the bases; what is left over stays on the unit as `hits`."""
        total = carried + hits
        bases = len(unit.bases)
        lost = min(total // HITS_PER_BASE, bases)
        if len(named) != lost:
            raise QuestionError(
                f"{question}: {why} make {hits} hit{'s' * (hits != 1)}; with the {carried} "
                f"{unit.id} carried that is {total}, and each base takes 3 hits before it is "
                f"removed ({HITS_PER_BASE_CITE}): name {lost} base{'s' * (lost != 1)} of "
                f"{unit.id} to take off, not {len(named)}"
            )
        changes = [
            Change(
                base_id,
                "removed",
                True,
                f"{unit.id} has taken {total} hits, a base for every 3"
                + (
                    "" if lost == bases else "; it tests its nerve for the loss of a base (line 23)"
                ),
                HITS_PER_BASE_CITE,
                Scope.BASE,
            )
            for base_id in named
        ]
        left = total - HITS_PER_BASE * lost
        if lost < bases and left != carried:
            changes.append(
                Change(
                    unit.id,
                    "hits",
                    left,
                    f"{why}: {hits} hit{'s' * (hits != 1)} on the {carried} it carried"
                    + (f", {lost} base{'s' * (lost != 1)} lost" if lost else ""),
                    cite,
                )
            )
        return changes

    @staticmethod
    def _refused(question: str, data: Mapping[str, Any], fallback: str) -> QuestionError:
        """The error of an outcome asked of a question the rules refused."""
        why = "; ".join(r["reason"] for r in data.get("reasons", ()) if r.get("reason"))
        return QuestionError(f"{ID} {question}: {why or fallback}; there are no dice to report")

    # shoot

    def _shot(self, scene: Scene, args: Sequence[str]) -> tuple[Unit, Unit, Resolution]:
        shooter_id, target_id = expect_args("shoot", args, ("SHOOTER", "TARGET"))
        shooter, target = scene.unit_of(shooter_id), scene.unit_of(target_id)
        shot = self._shoot(table_of(scene), shooter, target)
        if not shot.data["allowed"]:
            raise self._refused(
                f"shoot {shooter.id} {target.id}", shot.data, f"{shooter.id} may not shoot"
            )
        return shooter, target, shot

    def _shoot_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        shooter, target, shot = self._shot(scene, args)
        if _arm(shooter) == "rockets":
            rockets = len(shooter.bases)
            return tuple(
                self._removed_report(
                    unit,
                    f"bases of {unit.id} a rocket burst on (each burst takes one base, "
                    f"whoever's; {rockets} rocket{'s' * (rockets > 1)} fired)",
                    ROCKET_LOSS,
                    rockets,
                )
                for unit in self._rocket_risk(scene, target, shot)
            )
        roll = shot.data["rolls"][0]
        dice, need, per = roll["dice"], roll["need"], shot.data["hits_per_success"]
        dist = roll["distribution"]
        carried = shot.data["target_hits_carried"]
        dice_cite = ARTILLERY_EACH_BASE_ROLLS if _arm(shooter) == "artillery" else EACH_BASE_ROLLS
        likeliest = max(range(len(dist)), key=lambda k: dist[k])
        return (
            Report(
                "successes",
                Kind.COUNT,
                f"dice of the {dice}d6 that scored {need}+ (each success {per} "
                f"hit{'s' * (per > 1)})",
                dice_cite,
                maximum=dice,
                default=likeliest,
            ),
            self._removed_report(
                target,
                f"bases of {target.id} taken off: one for every 3 hits, counting the "
                f"{carried} it carries",
                HITS_PER_BASE_CITE,
                len(target.bases),
                likeliest * per,
            ),
        )

    def _rocket_risk(self, scene: Scene, target: Unit, shot: Resolution) -> list[Unit]:
        """The target, then every other unit with a base a rocket may burst on."""
        ids = dict.fromkeys([target.id, *(h["unit"] for h in shot.data["bases_hit"])])
        return [scene.unit_of(i) for i in ids]

    def _shoot_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        shooter, target, shot = self._shot(scene, args)
        question = f"{ID} shoot {shooter.id} {target.id}"
        changes: list[Change] = []
        if _arm(shooter) == "rockets":
            rockets = len(shooter.bases)
            named = [
                (unit, base_id)
                for unit in self._rocket_risk(scene, target, shot)
                for base_id in reported[f"removed_{unit.id}"]
            ]
            if len(named) > rockets:
                raise QuestionError(
                    f"{question}: {len(named)} bases named, but {shooter.id} fired {rockets} "
                    f"rocket{'s' * (rockets > 1)} and each burst takes one base ({ROCKET_LOSS})"
                )
            changes += [
                Change(
                    base_id,
                    "removed",
                    True,
                    f"a rocket of {shooter.id} burst on it: loss of a base"
                    + ("" if unit.side == shooter.side else "; its unit tests its nerve (line 23)"),
                    ROCKET_LOSS,
                    Scope.BASE,
                )
                for unit, base_id in named
            ]
        else:
            bands = ARTILLERY_BANDS if _arm(shooter) == "artillery" else INFANTRY_BANDS
            band = next(b for b in bands if b.label == shot.data["band"])
            successes = reported["successes"]
            changes += self._hits_landed(
                target,
                shot.data["target_hits_carried"],
                successes * band.hits,
                reported[f"removed_{target.id}"],
                f"{successes} success{'es' * (successes != 1)} at {band.label} range",
                band.hits_cite,
                question,
            )
        changes.append(
            Change(shooter.id, "acted", True, "fired: its one action this turn", ONE_ACTION_CITE)
        )
        return tuple(changes)

    # command

    def _order_change(self, scene: Scene, args: Sequence[str]) -> tuple[Unit, Unit, Resolution]:
        if len(args) != 2:
            raise QuestionError(
                f"{ID}: the dice of a change of orders are reported for one unit: command "
                f"COMMANDER UNIT (got {len(args)} argument{'s' * (len(args) != 1)})"
            )
        commander, unit = scene.unit_of(args[0]), scene.unit_of(args[1])
        r = self._command(table_of(scene), commander, unit, explain=False)
        if not r.data["allowed"]:
            raise self._refused(
                f"command {commander.id} {unit.id}",
                r.data,
                f"{unit.id} is not adjacent to {commander.id} (line 17)",
            )
        return commander, unit, r

    def _command_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        commander, unit, r = self._order_change(scene, args)
        need, now = r.data["rolls"][0]["need"], r.data["orders"]
        return (
            Report(
                "order",
                Kind.CHOICE,
                f"the order {commander.id} gives {unit.id} (it acts on {now} orders now)",
                ORDERS_CITE,
                choices=TYPES,
                default=next(t for t in TYPES if t != now),
            ),
            Report(
                "this_turn",
                Kind.FLAG,
                f"the 1d6 scored {need}+ ({commander.id}'s quality or more): {unit.id} acts on "
                "the order this turn; lower, next turn",
                ORDER_THIS_TURN,
                default=r.data["this_turn"]["value"] >= 0.5,
            ),
        )

    def _command_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        commander, unit, r = self._order_change(scene, args)
        order, now = reported["order"], _order(unit)
        changes = []
        if reported["this_turn"]:
            changes.append(
                Change(
                    unit.id,
                    "orders",
                    order,
                    f"{commander.id}'s die equalled his quality or more: acts on the order "
                    "this turn",
                    ORDER_THIS_TURN,
                )
            )
            if unit.get("orders_this_turn") != AS_ORDERED:
                changes.append(
                    Change(
                        unit.id, "orders_this_turn", AS_ORDERED, "acts on it now", ORDER_THIS_TURN
                    )
                )
        else:
            changes += [
                Change(
                    unit.id,
                    "orders",
                    order,
                    f"{commander.id}'s die was lower than his quality: acts on the order next turn",
                    ORDER_NEXT_TURN,
                ),
                Change(
                    unit.id,
                    "orders_this_turn",
                    now,
                    f"keeps to its {now} orders this turn",
                    ORDER_NEXT_TURN,
                ),
            ]
        given = r.data["orders_given"] + 1
        most = r.data["orders_per_turn"]
        changes.append(
            Change(
                commander.id,
                "orders_given",
                given,
                f"{given} of the {most} order change{'s' * (most > 1)} he may try each turn",
                COMMANDERS[r.data["rating"]].cite,
            )
        )
        return tuple(changes)

    # nerve

    def _nerve_question(
        self, scene: Scene, args: Sequence[str]
    ) -> tuple[Unit, Situation | None, Resolution]:
        """The unit, its situation (None: a routed unit's attempt to rally) and the answer."""
        res = self.nerve(scene, args)  # checks the arguments and the situation's name
        unit = scene.unit_of(args[0])
        situation = SITUATIONS[args[1]] if len(args) == 2 else None
        if situation is None and _status(unit) != "routed":
            raise QuestionError(
                f"{ID}: name the situation {unit.id} tests its nerve in (nerve UNIT SITUATION, "
                f"one of {accepted(SITUATIONS)}): only a routed unit tests without one, to "
                f"rally ({RALLY_CITE})"
            )
        return unit, situation, res

    def _nerve_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        unit, situation, res = self._nerve_question(scene, args)
        dice, tests = res.data["dice"], res.data["tests"]
        what, on_fail = (
            ("attempting to rally", "it keeps routing")
            if situation is None
            else (situation.name.lower(), situation.on_fail)
        )
        out = [
            Report(
                "passed",
                Kind.FLAG,
                f"{unit.id} passed: a 4+ on any of its {dice}d6"
                + (f", in each of {tests} tests" if tests > 1 else "")
                + f" ({what}; failing: {on_fail})",
                NERVE_NEED_CITE,
                default=Fraction(res.data["p_pass"]["exact"]) >= Fraction(1, 2),
            )
        ]
        out += [
            Report(
                f"risk_{risk['commander']}",
                Kind.CHOICE,
                f"{risk['commander']}'s risk roll (1d6, hit on {risk['hit_on']}; then 1d6: "
                "1 dead, 2-3 wounded, 4-5 horse killed, 6 a mere scratch)",
                RISK_ROLL_CITE,
                choices=RISK_RESULTS,
                default="not-hit",
            )
            for risk in res.data["commander_risk"]
        ]
        return tuple(out)

    def _nerve_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        unit, situation, res = self._nerve_question(scene, args)
        passed = reported["passed"]
        changes: list[Change] = []
        if situation is None:
            if passed:
                changes.append(
                    Change(
                        unit.id,
                        "status",
                        STEADY,
                        "rallied: it stops routing (disordered still, it must reform)",
                        RALLY_CITE,
                    )
                )
            changes.append(
                Change(unit.id, "acted", True, "attempting to rally is its action", RALLY_CITE)
            )
        elif situation.key == "attempt-to-reform":
            if passed:
                changes.append(
                    Change(
                        unit.id, "disordered", False, "reformed; it cannot move", REFORM_PASS_CITE
                    )
                )
            changes.append(
                Change(
                    unit.id,
                    "acted",
                    True,
                    "attempting to reform is its action"
                    + ("" if passed else ": stand - remain disordered"),
                    REFORM_CITE,
                )
            )
        elif not passed:
            changes += self._nerve_failed(unit, situation)
        for risk in res.data["commander_risk"]:
            changes += self._commander_hit(scene, risk["commander"], reported)
        return tuple(changes)

    @staticmethod
    def _nerve_failed(unit: Unit, situation: Situation) -> list[Change]:
        """What failing the nerve test of `situation` does (lines 22-30)."""
        why = f"failed its nerve ({situation.name.lower()}): {situation.on_fail}"
        if situation.key == "attempting-to-charge":
            return [Change(unit.id, "acted", True, why, situation.cite)]
        if situation.on_fail.startswith("fall back"):
            if _status(unit) == "routed":
                return []  # already routing, which is worse
            return [Change(unit.id, "status", "falling-back", why, situation.cite)]
        return SepoysAndSoldiers._routs(unit, why, situation.cite)

    @staticmethod
    def _routs(unit: Unit, why: str, cite: Cite) -> list[Change]:
        """A unit routs: `status` routed, and disordered while routing (line 44)."""
        changes = [Change(unit.id, "status", "routed", why, cite)]
        if not _disordered(unit):
            changes.append(
                Change(unit.id, "disordered", True, "disordered while routing", ROUT_DISORDERS_CITE)
            )
        return changes

    @staticmethod
    def _commander_hit(scene: Scene, ident: str, reported: Mapping[str, Any]) -> list[Change]:
        """What a commander's risk roll did to him (lines 11-15)."""
        result = reported[f"risk_{ident}"]
        commander = scene.unit_of(ident)
        if result == "dead":
            return [
                Change(b.id, "removed", True, f"{ident} is dead", IF_HIT[0][2], Scope.BASE)
                for b in commander.bases
            ]
        if result in ("wounded", "horse-killed"):
            row = IF_HIT[1] if result == "wounded" else IF_HIT[2]
            return [Change(ident, "hurt", result, row[1], row[2])]
        return []

    # charge

    def _charge_question(self, scene: Scene, args: Sequence[str]) -> tuple[Unit, Unit, Resolution]:
        a, b = expect_args("charge", args, ("CHARGER", "TARGET"))
        charger, target = scene.unit_of(a), scene.unit_of(b)
        r = self._charge(table_of(scene), charger, target)
        if not r.data["allowed"]:
            raise self._refused(
                f"charge {charger.id} {target.id}", r.data, f"{charger.id} may not charge"
            )
        return charger, target, r

    def _charge_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        charger, target, r = self._charge_question(scene, args)
        odds = r.data["outcomes"]
        tests = r.data["steps"][1]["tests"]
        likeliest = max(CHARGE_RESULTS, key=lambda k: odds[k.replace("-", "_")]["value"])
        return (
            Report(
                "result",
                Kind.CHOICE,
                f"how the charge ended: no-charge ({charger.id} failed its nerve and stands), "
                f"target-routs ({charger.id} passed, {target.id} failed"
                + (" one of its two tests" if tests > 1 else "")
                + "), charge-combat (both passed: "
                + ("it counter-charges" if r.data["counter_charge"] else "it stands")
                + " and the units fight a charge combat)",
                CHARGE_STEPS[0],
                choices=CHARGE_RESULTS,
                default=likeliest,
            ),
        )

    def _charge_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        charger, target, r = self._charge_question(scene, args)
        result = reported["result"]
        if result == "no-charge":
            stand = SITUATIONS["attempting-to-charge"]
            return (
                Change(
                    charger.id,
                    "acted",
                    True,
                    f"failed its nerve: {stand.on_fail}",
                    stand.cite,
                ),
            )
        if result == "target-routs":
            situation = SITUATIONS[r.data["steps"][1]["situation"]]
            return (
                *self._routs(target, f"failed its nerve: {situation.on_fail}", situation.cite),
                Change(
                    charger.id,
                    "acted",
                    True,
                    "charged: it continues to the extent of its charge move",
                    CHARGE_CONTINUES_CITE,
                ),
            )
        counter = r.data["counter_charge"]
        changes = [
            Change(
                charger.id,
                "acted",
                True,
                "charged home: the units fight a charge combat",
                CHARGE_STEPS[2] if counter else CHARGE_STEPS[3],
            )
        ]
        if counter:
            changes.append(Change(target.id, "acted", True, "counter-charged", CHARGE_STEPS[2]))
        return tuple(changes)

    # melee

    def _combat_question(self, scene: Scene, args: Sequence[str]) -> tuple[Unit, Unit, Resolution]:
        a, b = expect_args("melee", args, ("A", "B"))
        ua, ub = scene.unit_of(a), scene.unit_of(b)
        return ua, ub, self._melee(table_of(scene), ua, ub)

    def _melee_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        a, b, r = self._combat_question(scene, args)
        most = min(HITS_PER_BASE * len(a.bases) - _hits(a), HITS_PER_BASE * len(b.bases) - _hits(b))
        likelier = a.id if r.data["p_a_wins"]["value"] >= r.data["p_b_wins"]["value"] else b.id
        return (
            Report(
                "drawn_rounds",
                Kind.COUNT,
                "rounds in which both sides passed or both failed (each costs each side 1 hit)",
                COMBAT_DRAW,
                maximum=most,
                default=0,
            ),
            Report(
                "winner",
                Kind.CHOICE,
                f"the side that alone passed its nerve ({BOTH_DESTROYED}: drawn rounds took "
                "the last base of both)",
                COMBAT_REROLL,
                choices=(a.id, b.id, BOTH_DESTROYED),
                default=likelier,
            ),
            *(
                self._removed_report(
                    u,
                    f"bases of {u.id} taken off: one for every 3 hits, counting the "
                    f"{_hits(u)} it carries",
                    HITS_PER_BASE_CITE,
                    len(u.bases),
                    WIN_HITS if u.id == likelier else LOSE_HITS,
                )
                for u in (a, b)
            ),
        )

    def _melee_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        a, b, _ = self._combat_question(scene, args)
        question = f"{ID} melee {a.id} {b.id}"
        drawn, winner = reported["drawn_rounds"], reported["winner"]
        carried = {u.id: _hits(u) for u in (a, b)}
        taken = {a.id: drawn, b.id: drawn}
        dead = [u.id for u in (a, b) if carried[u.id] + drawn >= HITS_PER_BASE * len(u.bases)]
        if dead:
            ended = BOTH_DESTROYED if len(dead) == 2 else (b.id if dead == [a.id] else a.id)
            if winner != ended:
                raise QuestionError(
                    f"{question}: after {drawn} drawn round{'s' * (drawn != 1)} "
                    f"{' and '.join(dead)} had no base left and the combat ended there: "
                    f"the winner is {ended}, not {winner}"
                )
        elif winner == BOTH_DESTROYED:
            raise QuestionError(
                f"{question}: after {drawn} drawn round{'s' * (drawn != 1)} both sides still "
                f"have bases: name the side that alone passed its nerve ({a.id} or {b.id})"
            )
        else:
            loser = b.id if winner == a.id else a.id
            taken[winner] += WIN_HITS
            taken[loser] += LOSE_HITS
        changes: list[Change] = []
        for u in (a, b):
            why = f"{drawn} drawn round{'s' * (drawn != 1)}" + (
                ""
                if dead
                else (" and the winning round" if u.id == winner else " and the losing round")
            )
            changes += self._hits_landed(
                u,
                carried[u.id],
                taken[u.id],
                reported[f"removed_{u.id}"],
                why,
                COMBAT_WIN if not dead else COMBAT_DRAW,
                question,
            )
        survivors = [
            u for u in (a, b) if carried[u.id] + taken[u.id] < HITS_PER_BASE * len(u.bases)
        ]
        for u in survivors:
            if not dead and u.id != winner:
                changes += self._routs(
                    u, "lost the charge combat: routs one full move", COMBAT_ROUT
                )
                continue
            if u.id == winner and _arm(u) == "cavalry" and u.side.lower() == "british":
                changes.append(
                    Change(u.id, "status", "pursuing", "British cavalry must pursue", COMBAT_PURSUE)
                )
            if not _disordered(u):
                changes.append(
                    Change(
                        u.id,
                        "disordered",
                        True,
                        "after resolving a charge combat (all units involved)",
                        COMBAT_DISORDERS,
                    )
                )
        return tuple(changes)

    # move

    def _move_question(
        self, scene: Scene, args: Sequence[str]
    ) -> tuple[Unit, Allowance, Resolution]:
        res = self.move(scene, args)
        table = table_of(scene)
        unit = scene.unit_of(args[0])
        allowance = move_allowance(table, unit, tuple(args[1:]))
        question = f"{ID} move {' '.join(args)}"
        if not allowance.distance and not allowance.whole_turn:
            raise QuestionError(f"{question}: {unit.id} may not move: {allowance.reasons[0][0]}")
        if _moved(unit):
            raise QuestionError(f"{question}: {unit.id} has moved this turn")
        if _acted(unit) and _status(unit) not in ("routed", "falling-back"):
            raise QuestionError(
                f"{question}: {unit.id} has taken its one action this turn ({ONE_ACTION_CITE})"
            )
        return unit, allowance, res

    def _move_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        unit, _, res = self._move_question(scene, args)
        return tuple(
            Report(
                f"through_{p['friend']}",
                Kind.FLAG,
                f"{unit.id} moved straight back through {p['friend']} (no room to manoeuvre "
                'past it: 8" between them and a gap of its frontage beside it)',
                GAP_OTHERWISE_CITE,
                default=True,
            )
            for p in res.data.get("fall_back_past", ())
            if not p["may_manoeuvre"]
        )

    def _move_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        unit, allowance, res = self._move_question(scene, args)
        changes = [Change(unit.id, "moved", True, "moved", GUNS_MOVED_NO_FIRE)]
        if not _acted(unit):
            changes.append(
                Change(unit.id, "acted", True, "moving is its one action", ONE_ACTION_CITE)
            )
        disorder: tuple[str, Cite] | None = None
        if allowance.disordered:
            disorder = (
                f"{allowance.going} going ({', '.join(allowance.pieces)})",
                allowance.reasons[0][1],
            )
        status = _status(unit)
        through = [
            p["friend"]
            for p in res.data.get("fall_back_past", ())
            if not p["may_manoeuvre"] and reported[f"through_{p['friend']}"]
        ]
        for friend in through:
            changes.append(
                Change(
                    friend,
                    "disordered",
                    True,
                    f"{unit.id} fell back straight through it",
                    GAP_OTHERWISE_CITE,
                )
            )
            if disorder is None:
                disorder = (
                    f"passed through {friend}",
                    PASSED_THROUGH_CITE if status == "routed" else INTERPENETRATION_CITE,
                )
        if disorder is not None and not _disordered(unit):
            changes.append(Change(unit.id, "disordered", True, disorder[0], disorder[1]))
        if status == "falling-back":
            changes.append(
                Change(
                    unit.id,
                    "status",
                    STEADY,
                    "has fallen back its full move (end facing enemy)",
                    LOSS_OF_A_BASE.cite,
                )
            )
        return tuple(changes)

    # ----------------------------------------------------------------------------------------
    # shoot

    def shoot(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`shoot SHOOTER TARGET`: the fire of one unit at another (lines 58-75)."""
        shooter_id, target_id = expect_args("shoot", args, ("SHOOTER", "TARGET"))
        table = table_of(scene)
        return self._shoot(table, scene.unit_of(shooter_id), scene.unit_of(target_id))

    def _shoot(self, table: Table, shooter: Unit, target: Unit) -> Resolution:
        shot = self._fire(table, shooter, target, refusals=True)
        assert shot is not None  # a refusal is answered too
        return shot

    def _fire(
        self, table: Table, shooter: Unit, target: Unit, *, refusals: bool
    ) -> Resolution | None:
        """`shoot`; None for a shot that may not be taken unless `refusals` asks for its
        reasons (`suggest` lists only the shots that may be taken)."""
        scene = table.scene
        m = _measured(table)
        by, at = m.troop(shooter), m.troop(target)
        if by.commander:
            _fighting_unit(shooter, "shoot")
        if at.commander:
            _fighting_unit(target, "shoot")
        _enemies(shooter, target, "shoot")
        arm = by.arm
        if arm == "rockets":
            if by.acted and not refusals:
                return None  # its one action is taken: refused, not asked
            rockets = self._rockets(table, shooter, target, only_hits=not refusals)
            if rockets is not None and by.acted:
                spent = {
                    **rockets.data,
                    "allowed": False,
                    "reasons": [{"reason": ACTED_REASON, "source": str(ONE_ACTION_CITE)}],
                }
                told = (f"{ACTED_REASON} {_src(ONE_ACTION_CITE)}", *rockets.lines)
                rockets = Resolution("shoot", MappingProxyType(spent), told)
            return rockets
        if arm == "cavalry" and not refusals:
            # Cavalry never fire (below): asked only for the shots allowed, checked as the
            # full answer checks them and refused before measuring anything.
            _ = (by.kind, at.kind)  # read, so a bad type is the same error
            return None
        distance, unc = _gap(table, shooter, target)
        guns = kind = target_kind = None
        if arm == "artillery":
            guns = by.guns
            bands, row = ARTILLERY_BANDS, ARTILLERY_FIRE[guns]
            dice_cite = ARTILLERY_EACH_BASE_ROLLS
        else:
            kind = by.kind
            bands, row = INFANTRY_BANDS, INFANTRY_FIRE[kind]
            dice_cite = EACH_BASE_ROLLS
            target_kind = at.kind
        thresholds = [Threshold(distance, b.limit, unc) for b in bands]
        band = next((b for b, t in zip(bands, thresholds, strict=True) if t.within), None)
        need: int | None = None
        if band is not None:
            need = (
                row.needs[band.label]
                if target_kind is None
                else row.needs[band.label][TYPES.index(target_kind)]
            )
        moved = guns is not None and guns != "indian" and by.moved
        acted = by.acted
        allowed = (
            band is not None and need is not None and arm != "cavalry" and not moved and not acted
        )
        if not allowed and not refusals:
            # Refused, and only the shots allowed are asked for: out of range, beyond the
            # gun's reach, or European guns manhandled this turn.
            return None
        sight: dict[str, Any] | None = None
        if band is not None and (allowed or refusals):
            if refusals:
                sight = self._sight(table, shooter, target, bands[-1].limit + unc)
            else:
                sight = self._sight_seen(table, shooter, target, bands[-1].limit + unc)
                if sight is None:
                    return None  # no firing base sees the target: a refusal, not asked
        close = any(t.too_close_to_call for t in thresholds)
        reasons = list(
            _fire_reasons(arm, guns, kind, target_kind, None if band is None else band.label, moved)
        )
        if sight is not None and not sight["in_sight"]:
            allowed = False
            reasons.append(
                (
                    "no firing base can see the target (blocked by "
                    f"{', '.join(sight['blocked_by']) or 'nothing'})",
                    None,
                )
            )
        if acted:
            reasons.append((ACTED_REASON, ONE_ACTION_CITE))
        near = _near(table, shooter, target)
        data: dict[str, Any] = {
            "action": "shoot",
            "ruleset": self.id,
            "shooter": shooter.id,
            "target": target.id,
            "between": {"a": near.a.id, "b": near.b.id},
            "distance": length_json(scene, distance),
            "band": "out-of-range" if band is None else band.label,
            "thresholds": [
                {"band": b.label, **threshold_json(scene, t)}
                for b, t in zip(bands, thresholds, strict=True)
            ],
            "too_close_to_call": close,
            "allowed": allowed,
            "in_sight": None if sight is None else sight["in_sight"],
            "sight": sight,
            "cover": "none: the sheet has no cover rule",
            "rolls": [],
            "reasons": [{"reason": r, "source": None if c is None else str(c)} for r, c in reasons],
        }
        # `suggest` (no refusals) reads only the data: the readable lines are for `shoot`.
        lines: list[str] = []
        if refusals:
            lines.append(
                f"{shooter.id} shoots at {target.id}: {format_length(distance, scene.unit)} "
                f"(+/- {format_length(unc, scene.unit)}), "
                + ("out of range" if band is None else f"{band.label} range")
                + (" - too close to call, check the band by hand" if close else "")
            )
            lines += [f"{r} {_src(c)}" if c else r for r, c in reasons]
        if allowed and band is not None and need is not None:
            bases = len(shooter.bases)
            disordered = by.disordered
            dice = math.ceil(bases / 2) if disordered else bases
            roll = _to_hit(bases, disordered, need, band, row.cite)
            mods = roll.modifiers
            carried = at.hits
            volley = _volley(dice, need, band.hits, carried, len(target.bases))
            p_lost = volley.p_lost
            data["rolls"] = [_roll_json(roll)]
            data["hits_per_success"] = band.hits
            data["hits_source"] = str(band.hits_cite)
            data["hits"] = volley.hits_json()
            data["target_hits_carried"] = carried
            data["bases_lost"] = volley.lost_json()
            data["p_base_lost"] = _shown(volley.p_lost_shown)
            data["then"] = {
                "situation": "loss-of-a-base",
                "p": _shown(volley.p_lost_shown),
                "on_fail": LOSS_OF_A_BASE.on_fail,
                "source": LOSS_OF_A_BASE_SOURCE,
            }
            if refusals:
                lines.append(roll.describe() + f" {_src(dice_cite)}")
                lines += [f"  {m.reason} {_src(m.cite)}" for m in mods if m.cite]
                lines.append(
                    f"each success causes {band.hits} hit{'s' * (band.hits > 1)} "
                    f"{_src(band.hits_cite)}; "
                    f"{target.id} carries {carried} hits, a base goes at every 3rd "
                    f"{_src(HITS_PER_BASE_CITE)}"
                )
                lines.append(
                    f"chance {target.id} loses a base: {p_lost} ({float(p_lost):.3f}); "
                    f"then it tests nerve or falls back a full move "
                    f"{_src(SITUATIONS['loss-of-a-base'].cite)}"
                )
        if refusals:
            lines.append("the sheet has no cover rule")
        return Resolution("shoot", MappingProxyType(data), tuple(lines))

    def _nearest_pairs(
        self, table: Table, a: Unit, b: Unit, limit: float
    ) -> list[tuple[float, Base, Base]]:
        """The pairs of bases of `a` and `b` at most `limit` apart, nearest first."""
        pairs = sorted(
            ((table.distance(x, y), x, y) for x in a.bases for y in b.bases),
            key=lambda p: p[0],
        )
        return [p for p in pairs if geo.within(p[0], limit)]

    def _sight_seen(self, table: Table, a: Unit, b: Unit, limit: float) -> dict[str, Any] | None:
        """`_sight` when some base of `a` sees some base of `b`, else None (without the
        obstacles that block: `suggest` lists only the shots that may be taken), read off the
        verdicts `_judge_sight` finds.

        `_sight` tries the pairs of bases at most `limit` apart nearest first (of equals, in
        reading order) and answers with the first that sees: the nearest pair that sees, the
        first in reading order of equals, as `argmin` finds it."""
        m = _measured(table)
        known = m.first_seen.get((a.id, b.id))
        if known is not None and known[0] == limit:
            if known[1] is None:
                return None
            return {
                "in_sight": True,
                "between": {"a": known[1][0], "b": known[1][1]},
                "blocked_by": [],
            }
        ra, rb = m.rows_of[a.id], m.rows_of[b.id]
        distances, sees = m.block(table.distances, ra, rb), m.block(m.sees, ra, rb)
        near = geo.within(distances, limit)
        if (sees[near] < 0).any():
            new_a, new_b = np.nonzero(near & (sees < 0))
            self._judge_sight(table, m.row_numbers[a.id][new_a], m.row_numbers[b.id][new_b])
            sees = m.block(m.sees, ra, rb)
        best: tuple[float, int, int] | None = None
        for i, (row, verdicts) in enumerate(zip(distances.tolist(), sees.tolist(), strict=True)):
            for j, (d, seen) in enumerate(zip(row, verdicts, strict=True)):
                if seen == 1 and geo.within(d, limit) and (best is None or d < best[0]):
                    best = (d, i, j)
        if best is None:
            return None
        return {
            "in_sight": True,
            "between": {"a": a.bases[best[1]].id, "b": b.bases[best[2]].id},
            "blocked_by": [],
        }

    def _sight(self, table: Table, a: Unit, b: Unit, limit: float) -> dict[str, Any]:
        """Whether some base of `a` sees some base of `b`, nearest pairs first."""
        pairs = self._nearest_pairs(table, a, b, limit)
        # traced in one batch
        sights = table.sights(self.sight_policy, [(x, y) for _, x, y in pairs])
        blocked: list[str] = []
        for (_, x, y), s in zip(pairs, sights, strict=True):
            if s.any:
                return {"in_sight": True, "between": {"a": x.id, "b": y.id}, "blocked_by": []}
            blocked += [o for o in s.blocked_by if o not in blocked]
        return {"in_sight": False, "between": None, "blocked_by": blocked}

    @staticmethod
    def _first_seen(
        table: Table,
        rows: np.ndarray,
        cols: np.ndarray,
        volleys: Mapping[tuple[int, int], tuple[Unit, Unit, float]],
    ) -> None:
        """For each volley (by its units' numbers: shooter, target, limit) whose pairs of
        bases within the limit are among the judged (rows[k], cols[k]), remember the pair
        `_sight_seen` answers with: the nearest that sees, the first in reading order of
        equals (sorted by units, distance, then place in each unit: the order `_sight` tries
        them in), or None when none sees."""
        m = _measured(table)
        owner = table.unit_numbers
        seen = m.sees[rows, cols] == 1
        r, c = rows[seen], cols[seen]
        order = np.lexsort((m.place[c], m.place[r], table.distances[r, c], owner[c], owner[r]))
        r, c = r[order], c[order]
        first = np.ones(len(r), dtype=bool)
        first[1:] = (owner[r][1:] != owner[r][:-1]) | (owner[c][1:] != owner[c][:-1])
        found = {
            (int(owner[i]), int(owner[j])): (i, j)
            for i, j in zip(r[first].tolist(), c[first].tolist(), strict=True)
        }
        ids = m.base_ids
        for units, (a, b, limit) in volleys.items():
            pair = found.get(units)
            m.first_seen[(a.id, b.id)] = (
                limit,
                None if pair is None else (ids[pair[0]], ids[pair[1]]),
            )

    def _judge_sight(self, table: Table, rows: np.ndarray, cols: np.ndarray) -> None:
        """Whether base rows[k] sees base cols[k] (table indices; some sight line clear), for
        the pairs not judged yet, in one batch (`Table.seen`, which traces only the lines that
        decide), into the Table's verdicts (`_Measured.sees`)."""
        sees = _measured(table).sees
        todo = sees[rows, cols] < 0
        rows, cols = rows[todo], cols[todo]
        if len(rows):
            sees[rows, cols] = table.seen(self.sight_policy, rows, cols, entire=False)

    def _rockets(
        self, table: Table, shooter: Unit, target: Unit, *, only_hits: bool = False
    ) -> Resolution | None:
        """`shoot` of a rocket battery; None when `only_hits` and no burst point of any rocket
        falls on the target (`suggest` lists only the shots that may take a base of it)."""
        scene = table.scene
        m = _measured(table)
        flights = []
        for launcher in shooter.bases:
            aim = _aim(table, launcher, target)
            flight = _flight(table, shooter, launcher, aim)
            flights.append((launcher, aim, flight, int(flight.on_unit[m.units[target.id]])))
        if only_hits and not any(on_target for *_, on_target in flights):
            return None  # no rocket may burst on the target
        distance, unc = _gap(table, shooter, target)
        reach = ROCKET_LEG * ROCKET_LEGS
        in_reach = Threshold(distance, reach, unc)
        # Rockets are independent: a base is spared only if every rocket spares it, each with
        # 1 - weight / 3^8. Counted in whole numbers of 1 / (3^8)^launchers, exactly.
        whole = BURST_DENOMINATOR ** len(shooter.bases)
        spared: dict[str, int] = {}
        """Of `whole`, the chance that no rocket so far bursts on the base (those it may hit)."""
        target_spared = whole
        close: set[str] = set()
        rockets = []
        for launcher, aim, flight, on_target in flights:
            for bid, w in flight.hits(m.base_ids):
                spared[bid] = spared.get(bid, whole) // BURST_DENOMINATOR * (BURST_DENOMINATOR - w)
            close.update(flight.near_edge(m.base_ids))
            target_spared = target_spared // BURST_DENOMINATOR * (BURST_DENOMINATOR - on_target)
            rockets.append(
                {
                    "base": launcher.id,
                    "aimed_at": aim.id,
                    "p_hits_target": _ratio(on_target, BURST_DENOMINATOR),
                }
            )
        hit_target = whole - target_spared
        for bid in sorted(close):
            spared.setdefault(bid, whole)
        unit_of = m.unit_of_base
        hit_list: list[dict[str, Any]] = [
            {
                "base": bid,
                "unit": unit_of[bid].id,
                "side": unit_of[bid].side,
                "p_lost": _ratio(whole - left, whole),
                "too_close_to_call": bid in close,
            }
            for bid, left in sorted(spared.items(), key=lambda kv: kv[1])  # likeliest lost first
            if left < whole or bid in close
        ]
        burn_out, red, white = ROCKET_BURN_OUT, ROCKET_RED_DIE, ROCKET_WHITE_DIE
        friendly = [h for h in hit_list if h["side"] == shooter.side]
        data: dict[str, Any] = {
            "action": "shoot",
            "ruleset": self.id,
            "shooter": shooter.id,
            "target": target.id,
            "distance": length_json(scene, distance),
            "band": "rocket" if in_reach.within or in_reach.too_close_to_call else "out-of-range",
            "reach": threshold_json(scene, in_reach),
            "allowed": True,
            "rolls": [_roll_json(red), _roll_json(white)],
            "rockets": rockets,
            "p_burns_out": _prob(burn_out),
            "p_target_loses_base": _ratio(hit_target, whole),
            "bases_hit": hit_list,
            "friendly_at_risk": [h["base"] for h in friendly],
            "too_close_to_call": sorted(close),
            "sources": list(ROCKET_SOURCES),
        }
        if only_hits:
            return Resolution("shoot", MappingProxyType(data), ())  # `suggest` reads the data
        p_hit = Fraction(hit_target, whole)
        lines = [
            f"{shooter.id} fires {len(shooter.bases)} rocket(s) at {target.id} "
            f"({format_length(distance, scene.unit)} away) {_src(ROCKET_PATH)}",
            f'each leg: white die turns it, flies 8", red die 5-6 explodes '
            f"{_src(ROCKET_EXPLODES)}; after 4 legs it burns out ({burn_out}) "
            f"{_src(ROCKET_FOUR_MOVES)}",
            f"chance {target.id} loses a base: {p_hit} ({float(p_hit):.3f}) {_src(ROCKET_LOSS)}",
        ]
        lines += [
            f"  {h['base']} ({h['unit']}, {h['side']}): lost with {h['p_lost']['exact']}"
            + (" - a burst point is too close to call" if h["too_close_to_call"] else "")
            for h in hit_list
        ]
        return Resolution("shoot", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # command

    def command(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`command COMMANDER [UNIT]`: whom a commander may give new orders, and the roll."""
        if len(args) not in (1, 2):
            raise QuestionError(
                f"command takes 1 or 2 arguments (command COMMANDER [UNIT]), got {len(args)}: "
                f"{' '.join(args) or 'none'}"
            )
        table = table_of(scene)
        unit = scene.unit_of(args[1]) if len(args) == 2 else None
        return self._command(table, scene.unit_of(args[0]), unit)

    def _command(
        self, table: Table, commander: Unit, asked: Unit | None, *, explain: bool = True
    ) -> Resolution:
        """`command`; without the readable lines unless `explain` (`suggest` reads the data)."""
        scene = table.scene
        if not is_commander(commander):
            raise QuestionError(
                f"{ID}: {commander.id!r} is not a commander: a commander is a unit with a base "
                "whose role is 'commander'"
            )
        rating = _rating(commander)
        row = COMMANDERS[rating]
        given = _count(commander, "orders_given")
        hurt = check_attr(commander, "hurt", HURT, ruleset=ID)
        refusals: list[tuple[str, Cite]] = []
        if given >= row.orders:
            refusals.append(
                (
                    f"he has tried {given} of his {row.orders} order change"
                    f"{'s' * (row.orders > 1)} this turn",
                    row.cite,
                )
            )
        if hurt == "horse-killed":
            refusals.append(("his horse was killed: no action this turn / next", IF_HIT[2][2]))
        units: list[dict[str, Any]] = []
        in_command: list[str] = []
        candidates = [  # the troops (`_Measured.troops`: not commanders) of his side
            u for u in _measured(table).troops if u.side == commander.side and u.id != commander.id
        ]
        if asked is not None:
            if asked.side != commander.side or is_commander(asked):
                raise QuestionError(
                    f"{ID}: {commander.id!r} commands only units of side {commander.side!r}; "
                    f"{asked.id!r} is of side {asked.side!r}"
                    + (" and is a commander" if is_commander(asked) else "")
                )
            candidates = [asked]
        for u in candidates:
            t = _contact(table, commander, u)
            adjacent = _touching(t)
            units.append(
                {
                    "unit": u.id,
                    "adjacent": adjacent,
                    "contact": threshold_json(scene, t),
                    "too_close_to_call": t.too_close_to_call,
                }
            )
            if adjacent:
                in_command += [b.id for b in u.bases]
        roll = _success_roll(
            "change orders",
            1,
            6,
            row.quality,
            (),
            row.cite,
            "equal or more: acts on the order this turn; lower: next turn",
        )
        risk = commander_risk(commander)
        data: dict[str, Any] = {
            "action": "command",
            "ruleset": self.id,
            "leader": commander.id,
            "rating": rating,
            "radius": length_json(scene, 0.0),
            "contact_rule": str(ADJACENT_CITE),
            "in_command": in_command,
            "units": units,
            "orders_per_turn": row.orders,
            "orders_given": given,
            "may_order": not refusals,
            "reasons": [{"reason": r, "source": str(c)} for r, c in refusals],
            "rolls": [_roll_json(roll)],
            "this_turn": {**_prob(roll.p_success or Fraction(0)), "source": str(ORDER_THIS_TURN)},
            "next_turn": {
                **_prob(1 - (roll.p_success or Fraction(0))),
                "source": str(ORDER_NEXT_TURN),
            },
            "risk": risk,
        }
        if asked is not None:
            data["unit"] = asked.id
            data["orders"] = _order(asked)
            data["allowed"] = units[0]["adjacent"] and not refusals
        if not explain:
            return Resolution("command", MappingProxyType(data), ())
        adjacent_units = [u["unit"] for u in units if u["adjacent"]]
        lines = [
            f"{commander.id} ({rating}) must be adjacent (in base contact) to a unit to change "
            f"its orders {_src(ADJACENT_CITE)}",
            "adjacent: "
            + (
                ", ".join(
                    u["unit"]
                    + (
                        " (too close to call: check contact by eye)"
                        if u["too_close_to_call"]
                        else ""
                    )
                    for u in units
                    if u["adjacent"]
                )
                or "no unit"
            ),
            f"{roll.describe()} {_src(ORDER_ROLL_CITE)}: {roll.need}+ acts on the order this "
            f"turn, lower next turn {_src(row.cite)}",
            f"orders per turn: {row.orders}, tried this turn: {given} {_src(row.cite)}",
            _commander_risk_line(risk),
        ]
        lines += [f"{commander.id} may not change orders now: {r} {_src(c)}" for r, c in refusals]
        if asked is not None:
            lines.append(f"{asked.id} acts on {_order(asked)} orders now {_src(ORDERS_CITE)}")
        if asked is not None and asked.id not in adjacent_units:
            lines.insert(1, f"{asked.id} is not adjacent: {commander.id} cannot change its orders")
        return Resolution("command", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # nerve

    def nerve(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`nerve UNIT [SITUATION]`: the unit's nerve test, and what failing it does."""
        if len(args) not in (1, 2):
            raise QuestionError(
                f"nerve takes 1 or 2 arguments (nerve UNIT [SITUATION]), got {len(args)}: "
                f"{' '.join(args) or 'none'}"
            )
        situation = None
        if len(args) == 2:
            if args[1] not in SITUATIONS:
                raise QuestionError(
                    f"{ID}: unknown nerve situation {args[1]!r}; accepted values are "
                    f"{accepted(SITUATIONS)}"
                )
            situation = SITUATIONS[args[1]]
        return self._nerve(table_of(scene), scene.unit_of(args[0]), situation)

    def _nerve(self, table: Table, unit: Unit, situation: Situation | None) -> Resolution:
        scene = table.scene
        _fighting_unit(unit, "nerve")
        test = nerve_test(unit, situation.tests if situation else 1)
        commanders = [
            u
            for u in scene.units
            if u.side == unit.side and is_commander(u) and _touching(_contact(table, u, unit))
        ]
        risks = [commander_risk(c) for c in commanders]
        data: dict[str, Any] = {
            "action": "nerve",
            "ruleset": self.id,
            "unit": unit.id,
            "type": unit.get("type"),
            "orders": _order(unit),
            "disordered": _disordered(unit),
            "dice": test.dice,
            "tests": test.tests,
            "need": NERVE_NEED,
            "p_pass": _prob(test.p_pass),
            "rolls": [_roll_json(test.roll)],
            "commander_risk": risks,
        }
        lines = [f"{test.describe()} {_src(NERVE_NEED_CITE)}"]
        lines += [f"  {m.reason} {_src(m.cite)}" for m in test.reasons if m.cite]
        if situation is not None:
            data["situation"] = situation.key
            data["on_fail"] = situation.on_fail
            data["source"] = str(situation.cite)
            lines.append(f"{situation.name}: failing, {situation.on_fail} {_src(situation.cite)}")
        else:
            data["situations"] = [
                {
                    "situation": s.key,
                    "tests": s.tests,
                    "on_fail": s.on_fail,
                    "p_pass": _prob(nerve_test(unit, s.tests).p_pass),
                    "source": str(s.cite),
                }
                for s in SITUATIONS.values()
            ]
            lines += [
                f"  {s.name}: failing, {s.on_fail} {_src(s.cite)}" for s in SITUATIONS.values()
            ]
        lines += [_commander_risk_line(r) for r in risks]
        return Resolution("nerve", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # charge

    def charge(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`charge CHARGER TARGET`: the charge sequence (lines 79-84) and its odds."""
        a, b = expect_args("charge", args, ("CHARGER", "TARGET"))
        return self._charge(table_of(scene), scene.unit_of(a), scene.unit_of(b))

    def _charge(self, table: Table, charger: Unit, target: Unit) -> Resolution:
        charge = self._charge_if(table, charger, target, refusals=True)
        assert charge is not None  # a refusal is answered too
        return charge

    def _charge_if(
        self, table: Table, charger: Unit, target: Unit, *, refusals: bool
    ) -> Resolution | None:
        """`charge`; None for a charge that may not be made unless `refusals` asks for its
        reasons (`suggest` lists only the charges that may be made)."""
        scene = table.scene
        m = _measured(table)
        by, at = m.troop(charger), m.troop(target)
        if by.commander:
            _fighting_unit(charger, "charge")
        if at.commander:
            _fighting_unit(target, "charge")
        _enemies(charger, target, "charge")
        arm, target_arm = by.arm, at.arm
        distance, unc = _gap(table, charger, target)
        reasons: list[tuple[str, Cite | None]] = []
        allowed = True
        if arm == "artillery":
            allowed = False
            reasons.append(
                (
                    "artillery cannot charge: European guns are only manhandled, "
                    "Indian guns are static",
                    EUROPEAN_GUNS_CITE,
                )
            )
            reach = Threshold(distance, 0.0, unc)
        else:
            move = move_allowance(table, charger)
            reach = Threshold(distance, move.distance, unc)
            reasons.append(
                (
                    f"charge reach: the {move.going} move of {_format_length(move.distance, 'in')}",
                    move.reasons[0][1],
                )
            )
            if not (reach.within or reach.too_close_to_call):
                allowed = False
                reasons.append(("the target is beyond the charge move", None))
        if by.status == "routed":
            allowed = False
            reasons.append(("a routed unit must attempt to rally, not charge", RALLY_CITE))
        elif by.disordered:
            allowed = False
            reasons.append(("a disordered unit must attempt to reform, not charge", REFORM_CITE))
        if by.acted:
            allowed = False
            reasons.append((ACTED_REASON, ONE_ACTION_CITE))
        if not allowed and not refusals:
            # The attributes the odds below read, checked in the order they read them, so a
            # bad one is the same error as when the refusal is answered in full.
            _ = (by.kind, at.kind, by.hits, at.hits)
            return None
        near = _near(table, charger, target)
        facing = geo.aspect(near.a, near.b)
        flank = facing.aspect is not geo.Aspect.FRONT
        aspect_close = facing.margin <= unc
        charger_test, charger_roll = _nerve_test_of(table, charger)
        situation = SITUATIONS["attacked-in-flank-or-rear" if flank else "being-charged"]
        target_test, target_roll = _nerve_test_of(table, target, situation.tests)
        counter = arm == "cavalry" and target_arm == "cavalry"
        odds = _charge_odds(
            (charger_test.dice, charger_test.tests),
            (target_test.dice, target_test.tests),
            (len(charger.bases), len(target.bases)),
            (by.hits, at.hits),
        )
        steps = [
            {
                "step": 1,
                "unit": charger.id,
                "situation": "attempting-to-charge",
                "tests": charger_test.tests,
                "p_pass": _shown(odds["charger_passes"]),
                "on_fail": SITUATIONS["attempting-to-charge"].on_fail,
                "source": CHARGE_STEP_SOURCES[0],
            },
            {
                "step": 2,
                "unit": target.id,
                "situation": situation.key,
                "tests": target_test.tests,
                "p_pass": _shown(odds["target_passes"]),
                "on_fail": situation.on_fail,
                "source": CHARGE_STEP_SOURCES[1] if not flank else str(situation.cite),
            },
            {
                "step": 3,
                "unit": target.id,
                "holds": "counter-charges: the units meet in a charge combat"
                if counter
                else "stands and receives the charge: charge combat",
                "source": CHARGE_STEP_SOURCES[2] if counter else CHARGE_STEP_SOURCES[3],
            },
            {
                "step": 4,
                "unit": charger.id,
                "if_target_routs": "the charger continues to the extent of its charge move; "
                'meeting another unit it tests nerve again and, failing, stops 4" short; '
                "passing, the cycle repeats with that unit",
                "p_pass_again": _shown(odds["charger_passes"]),
                "stop_short": length_json(scene, STOP_SHORT),
                "source": ", ".join(CHARGE_STEP_SOURCES[4:7]),
            },
        ]
        data: dict[str, Any] = {
            "action": "charge",
            "ruleset": self.id,
            "charger": charger.id,
            "target": target.id,
            "distance": length_json(scene, distance),
            "reach": threshold_json(scene, reach),
            "aspect": facing.aspect.value,
            "aspect_margin": length_json(scene, facing.margin),
            "aspect_too_close_to_call": aspect_close,
            "allowed": allowed,
            "counter_charge": counter,
            "steps": steps,
            "rolls": [_roll_json(charger_roll), _roll_json(target_roll)],
            "outcomes": {
                k: _shown(odds[k])
                for k in (
                    "no_charge",
                    "target_routs",
                    "charge_combat",
                    "charger_wins_combat",
                    "target_wins_combat",
                    "both_destroyed",
                )
            },
            "reasons": [{"reason": r, "source": None if c is None else str(c)} for r, c in reasons],
        }
        if not refusals:
            return Resolution("charge", MappingProxyType(data), ())  # `suggest` reads the data
        lines = [
            f"{charger.id} charges {target.id}: {format_length(distance, scene.unit)}, "
            f"from its {facing.aspect.value}"
            + (" (too close to call: check the aspect by eye)" if aspect_close else ""),
        ]
        lines += [f"{r} {_src(c)}" if c else r for r, c in reasons]
        lines += [
            f"1. {charger_test.describe()}; failing, stand - no charge {_src(CHARGE_STEPS[0])}",
            f"2. {target_test.describe()}; failing, {situation.on_fail} {_src(situation.cite)}",
            ("3. holding, it counter-charges (both cavalry) " + _src(CHARGE_STEPS[2]))
            if counter
            else (
                "3. holding, it stands and the units fight a charge combat " + _src(CHARGE_STEPS[3])
            ),
            f"no charge {odds['no_charge'][1]}, target routs {odds['target_routs'][1]}, "
            f"charge combat {odds['charge_combat'][1]}; "
            f"the charger wins the combat {odds['charger_wins_combat'][1]}",
            f"4-6. if the target routs the charger follows through; meeting another unit it "
            f'tests again, failing it stops 4" short {_src(CHARGE_STEPS[5])}',
        ]
        return Resolution("charge", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # melee

    def melee(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`melee A B`: a charge combat between two units (lines 86-91)."""
        a, b = expect_args("melee", args, ("A", "B"))
        return self._melee(table_of(scene), scene.unit_of(a), scene.unit_of(b))

    def _melee(self, table: Table, a: Unit, b: Unit) -> Resolution:
        scene = table.scene
        _fighting_unit(a, "melee")
        _fighting_unit(b, "melee")
        _enemies(a, b, "melee")
        contact = _contact(table, a, b)
        ta, tb = nerve_test(a), nerve_test(b)
        result = charge_combat(ta, tb)

        def pursuit(u: Unit) -> str:
            if _arm(u) == "cavalry" and u.side.lower() == "british":
                return "pursues for two moves (British cavalry)"
            return "advances and occupies the enemy position"

        data: dict[str, Any] = {
            "action": "melee",
            "ruleset": self.id,
            "a": a.id,
            "b": b.id,
            "in_contact": _touching(contact),
            "contact": threshold_json(scene, contact),
            "rolls": [_roll_json(ta.roll), _roll_json(tb.roll)],
            "p_drawn_round": _prob(result.p_drawn_round),
            "p_a_wins": _prob(result.p_a_wins),
            "p_b_wins": _prob(result.p_b_wins),
            "p_both_destroyed": _prob(result.p_both_destroyed),
            "a_bases_lost": _dist_json(result.a_bases_lost),
            "b_bases_lost": _dist_json(result.b_bases_lost),
            "winner": {"hits": WIN_HITS, "a": pursuit(a), "b": pursuit(b)},
            "loser": {"hits": LOSE_HITS, "then": "routs one full move"},
            "after": "all units involved are disordered",
            "sources": [
                str(c)
                for c in (
                    COMBAT_TESTS,
                    COMBAT_DRAW,
                    COMBAT_REROLL,
                    COMBAT_ROUT,
                    COMBAT_WIN,
                    COMBAT_PURSUE,
                    COMBAT_DISORDERS,
                )
            ],
        }
        lines = [
            f"charge combat {a.id} v {b.id}"
            + ("" if _touching(contact) else " (not yet in contact: the combat a charge brings)"),
            f"both test nerve at once {_src(COMBAT_TESTS)}: {ta.describe()}; {tb.describe()}",
            f"both pass or both fail ({result.p_drawn_round}): each takes 1 hit, no nerve test "
            f"for a base so lost, roll again {_src(COMBAT_DRAW)}",
            f"{a.id} wins {result.p_a_wins} ({float(result.p_a_wins):.3f}), {b.id} wins "
            f"{result.p_b_wins} ({float(result.p_b_wins):.3f})"
            + (f", both destroyed {result.p_both_destroyed}" if result.p_both_destroyed else ""),
            f"the winner {pursuit(a)} and takes 1 hit; the loser takes 2 hits and "
            f"routs a full move {_src(COMBAT_WIN)} {_src(COMBAT_ROUT)}",
            f"afterwards all units involved are disordered {_src(COMBAT_DISORDERS)}",
        ]
        if pursuit(a) != pursuit(b):
            lines[4] = (
                f"the winner takes 1 hit ({a.id} {pursuit(a)}; {b.id} {pursuit(b)}); "
                f"the loser takes 2 hits and routs a full move {_src(COMBAT_WIN)}"
            )
        return Resolution("melee", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # move

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT [TERRAIN...]`: the unit's move in the going it stands in and crosses."""
        if not args:
            raise QuestionError("move takes 1 or more arguments (move UNIT [TERRAIN...]), got none")
        return self._move(table_of(scene), scene.unit_of(args[0]), tuple(args[1:]))

    def _move(self, table: Table, unit: Unit, crossing: Sequence[str]) -> Resolution:
        scene = table.scene
        allowance = move_allowance(table, unit, crossing)
        status = _status(unit)
        data: dict[str, Any] = {
            "action": "move",
            "ruleset": self.id,
            "unit": unit.id,
            "crossing": list(crossing),
            "terrain": list(allowance.pieces),
            "going": allowance.going,
            "allowance": length_json(scene, allowance.distance),
            "disordered_after": allowance.disordered,
            "whole_turn": allowance.whole_turn,
            "reasons": [{"reason": r, "source": str(c)} for r, c in allowance.reasons if r],
            "sources": [str(c) for _, c in allowance.reasons]
            + [str(PIVOT_CITE), str(INTERPENETRATE_CITE)],
        }
        where = ", ".join(allowance.pieces) or "the open"
        lines = [
            f"{unit.id} in {where} ({allowance.going}): "
            + (
                "crossing takes the whole turn"
                if allowance.whole_turn
                else f"moves {format_length(allowance.distance, scene.unit)}"
                + ("" if allowance.distance else f" ({allowance.reasons[0][0]})")
            )
            + (", and is disordered" if allowance.disordered else "")
        ]
        lines += [f"  {r} {_src(c)}" for r, c in allowance.reasons if r]
        lines.append(
            f"it may pivot on its centre at the start or end of the turn at no cost "
            f"{_src(PIVOT_CITE)}"
        )
        lines.append(
            f"it passes freely through commanders and rocket troops, any other "
            f"interpenetration disorders all units {_src(INTERPENETRATE_CITE)}"
        )
        if status in ("routed", "falling-back"):
            full = move_allowance(table, unit).distance
            past = fall_back_past(table, unit, max(full, 8 * INCH))
            data["status"] = status
            data["fall_back_past"] = past
            for p in past:
                lines.append(
                    f"friendly {p['friend']} to the rear: "
                    + (
                        "may manoeuvre past it"
                        if p["may_manoeuvre"]
                        else "must move straight back through it, disordering it"
                    )
                    + f' (8" apart: {p["at_least_8in"]}; gap of frontage: '
                    f"{p['gap_of_frontage']})"
                    + (" - too close to call" if p["too_close_to_call"] else "")
                    + f" {_src(GAP_DISTANCE_CITE)}"
                )
        return Resolution("move", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # suggest

    def suggest(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`suggest [PHASE]`: every resolution that applies now, by phase."""
        if len(args) > 1:
            raise QuestionError(
                f"suggest takes at most 1 argument (suggest [PHASE]), got "
                f"{len(args)}: {' '.join(args)}"
            )
        if args and args[0] not in self.phases:
            raise QuestionError(
                f"{ID}: unknown phase {args[0]!r}; accepted values are {accepted(self.phases)}"
            )
        phases = tuple(args) if args else self.phases
        table = table_of(scene)
        items: list[dict[str, Any]] = []
        for phase in phases:
            items += getattr(self, f"_suggest_{phase}")(table)
        data = {
            "action": "suggest",
            "ruleset": self.id,
            "phase": args[0] if args else None,
            "phases": list(self.phases),
            "items": items,
        }
        lines = [f"{len(items)} things to resolve" + (f" in the {args[0]} phase" if args else "")]
        lines += [f"[{i['kind']}] {i['summary']}" for i in items]
        return Resolution("suggest", MappingProxyType(data), tuple(lines))

    @staticmethod
    def _item(kind: str, args: Sequence[str], summary: str, res: Resolution) -> dict[str, Any]:
        return {"kind": kind, "args": list(args), "summary": summary, "result": res.as_json()}

    def _troops(self, table: Table) -> list[Unit]:
        return _measured(table).troops

    def _suggest_orders(self, table: Table) -> list[dict[str, Any]]:
        """Each unit a commander may give new orders (in base contact, orders left, line 17);
        a commander who may order none is listed alone, with the reason."""
        out = []
        for c in table.scene.units:
            if not is_commander(c):
                continue
            r = self._command(table, c, None, explain=False)
            adj = [u["unit"] for u in r.data["units"] if u["adjacent"]]
            if adj and r.data["may_order"]:
                need = r.data["rolls"][0]["need"]
                for ident in adj:
                    ru = self._command(table, c, table.scene.unit_of(ident), explain=False)
                    out.append(
                        self._item(
                            "command",
                            [c.id, ident],
                            f"{c.id} may change the orders of {ident} (now {ru.data['orders']}): "
                            f"{need}+ on 1d6 acts on them this turn",
                            ru,
                        )
                    )
                continue
            why = "none adjacent" if not adj else "; ".join(x["reason"] for x in r.data["reasons"])
            out.append(
                self._item("command", [c.id], f"{c.id} may change no unit's orders ({why})", r)
            )
        return out

    def _suggest_rally(self, table: Table) -> list[dict[str, Any]]:
        out = []
        for u in self._troops(table):
            if _acted(u):
                continue  # its one action this turn is taken (line 21)
            if _status(u) == "routed":
                r = self._nerve(table, u, None)
                out.append(
                    self._item(
                        "nerve",
                        [u.id],
                        f"{u.id} is routed and must attempt to "
                        f"rally: pass {r.data['p_pass']['exact']}",
                        r,
                    )
                )
            elif _disordered(u):
                s = SITUATIONS["attempt-to-reform"]
                r = self._nerve(table, u, s)
                out.append(
                    self._item(
                        "nerve",
                        [u.id, s.key],
                        f"{u.id} is disordered and must "
                        f"attempt to reform: pass {r.data['p_pass']['exact']}",
                        r,
                    )
                )
        return out

    def _enemy_pairs(self, table: Table, limit: float) -> list[tuple[Unit, Unit]]:
        """Pairs of enemy units (not commanders) at most `limit` mm apart, give or take the
        measurement uncertainty."""
        m = _measured(table)
        troops = m.troops
        number = np.array([m.units[u.id] for u in troops], dtype=int)
        sides = np.array([u.side for u in troops], dtype=object)
        # A pair no farther apart than the limit is in, whatever the uncertainty; beyond the
        # limit and any uncertainty it is out; only the pairs between are measured one by one
        # (all alike when every base has the same uncertainty). np.nonzero keeps the order
        # of the loops over `troops`.
        gaps = m.gaps[number][:, number]
        enemies = sides[:, None] != sides[None, :]
        if m.uncertainty is not None:
            return self._pairs_of(troops, enemies & geo.within(gaps, limit + m.uncertainty))
        maybe = enemies & geo.within(gaps, limit + m.slack)
        for i, j in zip(*np.nonzero(maybe & ~geo.within(gaps, limit)), strict=True):
            near, unc = _near_and_uncertainty(table, troops[i], troops[j])
            maybe[i, j] = geo.within(near.distance, limit + unc)
        return self._pairs_of(troops, maybe)

    @staticmethod
    def _pairs_of(troops: Sequence[Unit], mask: np.ndarray) -> list[tuple[Unit, Unit]]:
        """The (troops[i], troops[j]) where mask[i, j], row by row."""
        rows, cols = np.nonzero(mask)
        return [(troops[i], troops[j]) for i, j in zip(rows.tolist(), cols.tolist(), strict=True)]

    def _suggest_charge(self, table: Table) -> list[dict[str, Any]]:
        out = []
        troop = _measured(table).troop
        for a, b in self._enemy_pairs(table, 12 * INCH):
            if troop(a).arm == "artillery" or troop(a).status is not None:
                continue
            r = self._charge_if(table, a, b, refusals=False)
            if r is not None:
                o = r.data["outcomes"]
                out.append(
                    self._item(
                        "charge",
                        [a.id, b.id],
                        f"{a.id} may charge {b.id}: "
                        f"combat {o['charge_combat']['exact']}, target routs "
                        f"{o['target_routs']['exact']}",
                        r,
                    )
                )
        return out

    def _suggest_move(self, table: Table) -> list[dict[str, Any]]:
        """Every unit that may still move: not one that has moved this turn or taken its
        action (line 21; a routed or falling-back unit still makes the move its failed nerve
        test brings), nor one whose move is nothing (Indian guns, European guns off open
        ground, line 56)."""
        out = []
        for u in self._troops(table):
            if _moved(u) or (_acted(u) and _status(u) not in ("routed", "falling-back")):
                continue
            r = self._move(table, u, ())
            if not r.data["allowance"]["value"] and not r.data["whole_turn"]:
                continue
            out.append(self._item("move", [u.id], r.lines[0], r))
        return out

    def _suggest_fire(self, table: Table) -> list[dict[str, Any]]:
        out = []
        shots = []
        troop = _measured(table).troop
        for a, b in self._enemy_pairs(table, ROCKET_LEG * ROCKET_LEGS):
            arm = troop(a).arm
            longest = LONGEST_REACH.get(arm, INFANTRY_BANDS[-1].limit)
            distance, unc = _gap(table, a, b)
            limit = longest + unc
            if geo.within(distance, limit):
                shots.append((a, b, arm, limit))
        # The flights of every rocket at the enemies it may fire at, in one batch (`_flight`
        # finds them judged).
        aims: dict[tuple[str, str], tuple[Unit, Base, dict[str, Base]]] = {}
        for a, b, arm, _ in shots:
            if arm == "rockets":
                for launcher in a.bases:
                    aim = _aim(table, launcher, b)
                    aims.setdefault((a.id, launcher.id), (a, launcher, {}))[2][aim.id] = aim
        _fly(table, [(a, launcher, list(at.values())) for a, launcher, at in aims.values()])
        # Whether each pair of bases within the firer's longest reach is in sight, in one
        # batch (`_sight_seen` finds them judged). Cavalry never fire, and rockets fly their
        # own path: their pairs are never asked.
        m = _measured(table)
        reach = np.full((len(m.units), len(m.units)), -np.inf)
        volleys = {}
        for a, b, arm, limit in shots:
            if arm not in ("rockets", "cavalry"):
                reach[m.units[a.id], m.units[b.id]] = limit
                volleys[(m.units[a.id], m.units[b.id])] = (a, b, limit)
        owner = table.unit_numbers
        rows, cols = np.nonzero(geo.within(table.distances, reach[owner][:, owner]))
        self._judge_sight(table, rows, cols)
        self._first_seen(table, rows, cols, volleys)
        for a, b, arm, _ in shots:
            r = self._fire(table, a, b, refusals=False)
            if r is None or not r.data["allowed"]:
                continue
            if arm == "rockets":
                if not r.data["p_target_loses_base"]["value"]:
                    continue  # no burst point falls on the target
                summary = (
                    f"{a.id} may fire rockets at {b.id}: loses a base "
                    f"{r.data['p_target_loses_base']['exact']}"
                )
            else:
                summary = (
                    f"{a.id} may fire at {b.id} ({r.data['band']}): loses a base "
                    f"{r.data['p_base_lost']['exact']}"
                )
            out.append(self._item("shoot", [a.id, b.id], summary, r))
        return out

    def _suggest_combat(self, table: Table) -> list[dict[str, Any]]:
        out = []
        seen: set[frozenset[str]] = set()
        for a, b in self._enemy_pairs(table, 0.0):
            key = frozenset((a.id, b.id))
            if key in seen:
                continue
            seen.add(key)
            r = self._melee(table, a, b)
            out.append(
                self._item(
                    "melee",
                    [a.id, b.id],
                    f"{a.id} and {b.id} are in contact: {a.id} wins {r.data['p_a_wins']['exact']}",
                    r,
                )
            )
        return out
