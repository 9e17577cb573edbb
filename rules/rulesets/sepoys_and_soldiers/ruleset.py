"""Sepoys & Soldiers - QRS: the sheet's tables (read from `sheet.toml`, every number with its
line, with the texts the answers fill in), the exact odds of its dice (nerve tests, volleys,
charge combats, rocket bursts), the mechanics, and at the end of the class what the players'
dice change. How the garbled lines of the sheet are read is README.md. Lengths in millimetres
(1" = 25.4 mm); probabilities are exact, shown as `{"value": float, "exact": "p/q"}`. Pure:
never imports cv2, flask, vision or webui.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from calibration.units import format_length

from ... import geometry as geo
from ...answer import (
    Cite,
    Modifier,
    RangeBand,
    Resolution,
    Roll,
    Suggestion,
    Threshold,
    plural,
    reason_json,
)
from ...answer import chance_json as exact
from ...answer import chances_json as chances
from ...answer import fraction_json as prob
from ...answer import length_json as length
from ...answer import threshold_json as threshold
from ...engine import Action, Asked, Candidate, Ruleset
from ...errors import QuestionError, accepted
from ...measure import Table, flight_pattern, table_of
from ...scene import Base, Scene, TerrainKind, Unit
from ...sheetdata import load_sheet
from ...state import Change, Kind, Report, Scope, bases_report, count_report, likeliest, removals

# --------------------------------------------------------------------------------------------
# The sheet's tables

SHEET = "001_14e3e4b7ab0503f1.txt"
ID = "sepoys-and-soldiers"
INCH = 25.4
"""mm in an inch: the sheet measures in inches."""

DATA = load_sheet(Path(__file__).with_name("sheet.toml"), SHEET, ID, names=["cite"])
CITE: dict[str, Cite] = DATA["cite"]
SOURCES = {what: [str(CITE[key]) for key in keys] for what, keys in DATA["sources"].items()}
"""The lines a fall back, a charge combat, a rocket shot and a follow through list, quoted
(sheet.toml `[sources]`: keys of `[cite]`, so a key missing from it fails here, as the sheet
loads)."""
say, say_lines, refusal, read = DATA.say, DATA.lines, DATA.refusal, DATA.read
"""A text of sheet.toml's `[texts]` the answers and forms fill in (`{cite[key]}` quotes a line);
a question the sheet refuses, in the words of its `[refusals]`; a unit's declared field."""


TYPES = DATA.field["type"].choices
"""The orders (and troop types), best first: one quality less is one step along (line 43)."""
STEADY, AS_ORDERED = DATA.field["status"].default, DATA.field["orders_this_turn"].default

HITS_PER_BASE: int = DATA["hits_per_base"]
NERVE_NEED: int = DATA["nerve_need"]
COMBAT_HITS: dict[str, int] = DATA["charge_combat_hits"]
STOP_SHORT, FALL_BACK_GAP = DATA["stop_short"] * INCH, DATA["fall_back_gap"] * INCH
EUROPEAN_GUNS_MOVE = DATA["european_guns_move"] * INCH
SITUATIONS: dict[str, dict[str, Any]] = {s["key"]: {"tests": 1} | s for s in DATA["situations"]}
"""The nerve table (lines 22-30): name, what failing does, how many tests, line."""
COMMANDERS: dict[str, dict[str, Any]] = DATA["commanders"]
IF_HIT: list[dict[str, Any]] = DATA["if_hit"]
"""The if-hit rows: dead, wounded, horse killed, a mere scratch (faces from, to)."""
ROUGH_KINDS = frozenset(TerrainKind(k) for k in DATA["terrain"]["rough"])
OBSTACLE_KINDS = frozenset(TerrainKind(k) for k in DATA["terrain"]["obstacle"])


@dataclass(frozen=True, slots=True)
class FireBand:
    """One range band of a fire table: how far it reaches (mm) and the hits of a success."""

    label: str
    inches: float
    hits: int
    range_cite: Cite
    hits_cite: Cite

    @property
    def limit(self) -> float:
        return self.inches * INCH


INFANTRY_BANDS = tuple(FireBand(**b) for b in DATA["infantry_bands"])
ARTILLERY_BANDS = tuple(FireBand(**b) for b in DATA["artillery_bands"])
LONGEST_FIRE = max(b.limit for b in INFANTRY_BANDS + ARTILLERY_BANDS)
"""The farthest any unit fires (a gun's longest band, lines 59-62)."""


# --------------------------------------------------------------------------------------------
# Nerve (line 21; lines 42-44 when disordered)


@dataclass(frozen=True, slots=True)
class NerveTest:
    """How a unit tests its nerve: the roll, how many times it must pass, and the odds."""

    roll: Roll
    tests: int
    p_pass: Fraction

    def describe(self, unit: str) -> str:
        twice = "" if self.tests == 1 else f", {self.tests} times"
        return f"{unit} rolls {self.roll.dice}d6, 4+ on any die passes{twice}: pass {self.p_pass}"


def _nerve_test(kind: str, disordered: bool, tests: int) -> NerveTest:
    nerve = DATA["nerve"]
    reasons = [Modifier(nerve[kind]["dice"], kind, nerve[kind]["cite"])]
    tests_as = kind
    if disordered and kind != TYPES[-1]:
        tests_as = TYPES[TYPES.index(kind) + 1]
        fewer = nerve[tests_as]["dice"] - nerve[kind]["dice"]
        reasons.append(Modifier(fewer, f"disordered: tests as {tests_as}", CITE["disorder_nerve"]))
    elif disordered:
        tests *= 2
        reasons.append(Modifier(0, "disordered passive unit: rolls twice", CITE["passive_twice"]))
    count = nerve[tests_as]["dice"]
    note = "passes if any die shows 4+" + (f"; must pass {tests} times" if tests > 1 else "")
    roll = Roll.success_roll("nerve", count, 6, NERVE_NEED, reasons, CITE["nerve_need"], note)
    # A test fails only when every die fails (1/2 each): passed `tests` times.
    p_pass = (1 - Fraction(1, 2) ** count) ** tests
    return NerveTest(roll, tests, p_pass)


NERVE_TESTS = {
    (kind, disordered, tests): _nerve_test(kind, disordered, tests)
    for kind in TYPES
    for disordered in (False, True)
    for tests in (1, 2)
}
"""The nerve table worked out for every case: a unit acting on each order, disordered or not
(one quality less, line 43; a disordered passive unit, which cannot drop lower, rolls twice),
tested once or twice (line 28)."""


# --------------------------------------------------------------------------------------------
# Fire: every base rolls 1d6 (lines 58, 65); every third hit takes a base (line 3)


Chances = list[dict[str, Any]]


def volley(
    dice: int, need: int, hits_per: int, carried: int, bases: int
) -> tuple[Chances, Chances, Fraction]:
    """The odds of `dice` d6 needing `need`+, each success `hits_per` hits, on a unit of `bases`
    bases carrying `carried` hits (every third hit removes a base, at most all of them), for
    JSON: of each number of hits and of each number of bases lost; and of losing one or more.
    Counted in whole numbers of the 6^dice ways the dice fall: `suggest` asks it of every shot,
    and the roll's own distribution, in fractions, cost it some 4 ms on 120 bases."""
    scoring, whole = 7 - need, 6**dice
    ways = [math.comb(dice, k) * scoring**k * (6 - scoring) ** (dice - k) for k in range(dice + 1)]
    lost = [0] * (bases + 1)
    for k, n in enumerate(ways):
        lost[min((carried + k * hits_per) // HITS_PER_BASE, bases)] += n
    hits = [{"k": k * hits_per, **exact(n, whole)} for k, n in enumerate(ways) if n]
    return hits, chances(lost, whole), Fraction(whole - lost[0], whole)


# --------------------------------------------------------------------------------------------
# Commanders (lines 11-15) and charge combat (lines 88-91)


def commander_risk(commander: str, rating: str) -> dict[str, Any]:
    """The commander's lose-a-base/nerve roll (lines 11-15) and the if-hit table."""
    row = COMMANDERS[rating]
    hit_up_to, if_hit = row["hit_up_to"], []
    for r in IF_HIT:
        (low, high), source = r["faces"], str(r["cite"])
        faces, p = f"{low}-{high}" if high > low else str(low), exact(high - low + 1, 6)
        overall = exact(hit_up_to * (high - low + 1), 36)
        if_hit.append(dict(faces=faces, result=r["result"], p=p, p_overall=overall, source=source))
    hit_on = f"1-{hit_up_to}" if hit_up_to > 1 else "1"
    risk = {"commander": commander, "rating": rating, "hit_on": hit_on}
    return risk | {"p_hit": exact(hit_up_to, 6), "source": str(row["cite"]), "if_hit": if_hit}


@dataclass(frozen=True, slots=True)
class Combat:
    """The exact outcome of a charge combat between two units (lines 88-91), in whole numbers
    of 1 / `whole`: who wins, both destroyed, and the bases each side loses (0, 1, ...)."""

    a_wins: int
    b_wins: int
    both_destroyed: int
    a_bases_lost: list[int]
    b_bases_lost: list[int]
    whole: int
    p_drawn_round: Fraction


def charge_combat(pa: Fraction, pb: Fraction, na: int, nb: int, ha: int, hb: int) -> Combat:
    """Rounds of simultaneous nerve tests (passed with `pa`, `pb`) of units of `na`, `nb`
    bases carrying `ha`, `hb` hits, until one side alone passes. A drawn round costs each side
    1 hit; the decisive round costs the winner 1 and the loser 2. A unit whose every base is
    gone in a drawn round is destroyed and loses.

    Counted exactly in whole numbers: with a round's chances over one denominator q (only a
    passes A/q, only b B/q, a draw D/q), r drawn rounds then a decisive one come with
    D^r A / q^(r+1), a whole number of 1 / q^(n+1) when n drawn rounds can be fought."""
    win, lose, per_draw = COMBAT_HITS["win"], COMBAT_HITS["lose"], COMBAT_HITS["draw"]
    q = pa.denominator * pb.denominator
    a = pa.numerator * (pb.denominator - pb.numerator)  # a alone passes
    b = pb.numerator * (pa.denominator - pa.numerator)  # b alone passes
    draw, rounds = q - a - b, 0  # rounds: drawn rounds fought before a side has no base left
    most_a, most_b = HITS_PER_BASE * na, HITS_PER_BASE * nb
    while ha + rounds * per_draw < most_a and hb + rounds * per_draw < most_b:
        rounds += 1
    wins_a = wins_b = both = 0
    lost_a, lost_b = [0] * (na + 1), [0] * (nb + 1)

    def settle(chance: int, hits_a: int, hits_b: int) -> None:
        lost_a[min(hits_a // HITS_PER_BASE, na)] += chance
        lost_b[min(hits_b // HITS_PER_BASE, nb)] += chance

    reach = q**rounds  # r drawn rounds, then this one: D^r q^(rounds - r)
    for r in range(rounds):
        k = r * per_draw
        wins_a, wins_b = wins_a + reach * a, wins_b + reach * b
        settle(reach * a, ha + k + win, hb + k + lose)
        settle(reach * b, ha + k + lose, hb + k + win)
        reach = reach // q * draw
    last, k = reach * q, rounds * per_draw  # every round drawn: a side is gone
    dead_a, dead_b = ha + k >= most_a, hb + k >= most_b
    if dead_a and dead_b:
        both += last
    elif dead_a:
        wins_b += last
    else:
        wins_a += last
    settle(last, ha + k, hb + k)
    return Combat(wins_a, wins_b, both, lost_a, lost_b, q ** (rounds + 1), Fraction(draw, q))


# --------------------------------------------------------------------------------------------
# Rockets (lines 72-75)

ROCKETS = DATA["rockets"]
ROCKET_LEG, ROCKET_LEGS = ROCKETS["leg"] * INCH, ROCKETS["legs"]
ROCKET_REACH = ROCKET_LEG * ROCKET_LEGS
"""The farthest a rocket bursts from where it leaves its base."""
_EXPLODES = Fraction(7 - ROCKETS["explodes_on"], 6)
ROCKET_BURN_OUT = (1 - _EXPLODES) ** ROCKET_LEGS
"""A rocket flies all its legs unexploded: the red die fails after each."""
_RED, _WHITE = 'rolled after each 8" leg; 1-4 flies on', ROCKETS["white_die"]
ROCKET_RED_DIE = Roll.success_roll(
    "explodes (red die)", 1, 6, ROCKETS["explodes_on"], (), CITE["rocket_explodes"], _RED
)
ROCKET_WHITE_DIE = Roll("flight path (white die)", 1, 6, None, (), (), CITE["rocket_path"], _WHITE)


BURSTS, BURST_DENOMINATOR = flight_pattern(ROCKET_LEG, ROCKET_LEGS, ROCKETS["turns"], _EXPLODES)
"""Where a rocket may burst (the white die turns it, it flies a leg, the red die explodes it),
laid from the middle of its base's front toward the base it is aimed at (`Table.laid_many`); a
burst's chance is its weight / BURST_DENOMINATOR (3^8)."""


ACTED = "it has taken its one action this turn"
LONGEST_CHARGE = max(row["cavalry"] for row in DATA["moves"].values()) * INCH
"""The farthest a unit charges: cavalry's move in the open (12", lines 50-52)."""
TWO_UNITS = ("shoot", "charge", "melee")
"""The actions asked of two units (`_two_units`)."""
Args = Sequence[str]
Reported = Mapping[str, Any]
Reasons = list[tuple[str, Cite | None]]
Situation = dict[str, Any]
"""A row of the nerve table (lines 22-30): `key`, `name`, `on_fail`, `tests`, `cite`."""
RISK_RESULTS = ("not-hit", "dead", "wounded", "horse-killed", "scratch")
"""A commander's lose-a-base/nerve roll as the players report it (lines 11-15)."""
CHARGE_RESULTS = ("no-charge", "target-routs", "charge-combat")
"""How a charge ended (lines 79-84), as the players report it."""
BOTH_DESTROYED = "both-destroyed"
MOVES_AFTER_ACTING = ("routed", "falling-back")
"""A unit that has acted still makes the move of a failed nerve test (line 21)."""


def _reasons(reasons: Sequence[tuple[str, Cite | None]]) -> list[dict[str, Any]]:
    return [reason_json(r, c) for r, c in reasons]


def _said(reasons: Sequence[tuple[str, Cite | None]], indent: str = "") -> list[str]:
    """Reasons as readable lines, each with its line of the sheet."""
    return [f"{indent}{r} [{c}]" if c else indent + r for r, c in reasons if r]


def _roll_lines(said: str, cite: Cite, roll: Roll) -> list[str]:
    """A roll as readable lines: as `said`, with its line of the sheet, then each of its
    modifiers that quotes one."""
    return [f"{said} [{cite}]", *(f"  {m.reason} [{m.cite}]" for m in roll.modifiers if m.cite)]


# --------------------------------------------------------------------------------------------
# What the rules read of a unit


def is_commander(unit: Unit) -> bool:
    """A commander is a unit with a base whose role is `commander`."""
    return "commander" in [b.role for b in unit.bases]


def _order(unit: Unit) -> str:
    """The order the unit acts on this turn: the one it keeps while new orders wait for next
    turn (line 20), else its `orders`, else the order of its troop type (lines 5-7). It is the
    row of every "Unit type" table (fire, nerve, movement: lines 21, 49, 66-67)."""
    if unit.get("orders_this_turn") not in (None, AS_ORDERED):
        return read(unit, "orders_this_turn")
    return read(unit, "type" if unit.get("orders") is None else "orders")


def _status(unit: Unit) -> str | None:
    """`routed`, `falling-back` or `pursuing`; None for a steady unit."""
    status = read(unit, "status")
    return None if status == STEADY else status


def _hits(unit: Unit) -> int:
    """Hits carried by the unit: 0-2, since the third hit removes a base (line 3)."""
    hits = read(unit, "hits")
    if hits >= HITS_PER_BASE:
        raise refusal("hits-carried", unit=unit.id, hits=hits)
    return hits


def _nerve_of(unit: Unit, tests: int = 1) -> NerveTest:
    """How the unit tests its nerve (line 21): by the order it acts on, and its disorder."""
    return NERVE_TESTS[_order(unit), read(unit, "disordered"), tests]


def _fire_row(unit: Unit) -> tuple[tuple[FireBand, ...], dict[str, Any], str | None]:
    """The range bands of a unit's fire table, its row, and its guns: an artillery unit's
    (lines 59-62), else infantry's, the row of the order it acts on (lines 66-70)."""
    if read(unit, "arm") == "artillery":
        return ARTILLERY_BANDS, DATA["artillery_fire"][read(unit, "weapon")], read(unit, "weapon")
    return INFANTRY_BANDS, DATA["infantry_fire"][_order(unit)], None


def _fighting(action: str, *units: Unit) -> None:
    """Commanders neither fight nor fire; an action of two units pairs enemies."""
    for unit in units:
        if is_commander(unit):
            raise refusal("commander-acts", unit=unit.id, action=action)
    if len(units) == 2:
        DATA.enemies(*units, action=action)


def _commanded(scene: Scene, commander: Unit) -> list[Unit]:
    """The units a commander gives orders: his side's, but commanders."""
    return [u for u in scene.units if u.side == commander.side and not is_commander(u)]


def _order_refusals(commander: Unit) -> Reasons:
    """Why a commander may change no unit's orders now: he has tried as many as his rating
    gives him this turn (line 11), or his horse was killed (line 14)."""
    row, given = COMMANDERS[read(commander, "rating")], read(commander, "orders_given")
    out: Reasons = []
    if given >= row["orders"]:
        changes = plural(row["orders"], "order change")
        out.append((f"he has tried {given} of his {changes} this turn", row["cite"]))
    if read(commander, "hurt") == "horse-killed":
        out.append(("his horse was killed: no action this turn / next", IF_HIT[2]["cite"]))
    return out


def _pursues(unit: Unit) -> bool:
    """Whether the unit, winning a charge combat, must pursue: British cavalry (line 91)."""
    return read(unit, "arm") == "cavalry" and unit.side.lower() == "british"


# --------------------------------------------------------------------------------------------
# Movement (lines 49-56) and falling back past friends (lines 32-37)


@dataclass(frozen=True, slots=True)
class Allowance:
    """How far (mm) a unit may move this turn in the going it stands in or must cross
    (`open`, `rough`, `obstacle`), whether that disorders it or takes the whole turn."""

    distance: float
    going: str
    disordered: bool
    whole_turn: bool
    pieces: tuple[str, ...]
    reasons: tuple[tuple[str, Cite], ...]


def move_allowance(table: Table, unit: Unit, crossing: Sequence[str] = ()) -> Allowance:
    """The move of a unit in the terrain it stands in plus any it must cross: its order's row
    of the movement table (lines 49-52), or its guns' (line 56)."""
    if is_commander(unit):
        raise refusal("commander-moves", unit=unit.id)
    arm = read(unit, "arm")
    pieces = [s.terrain for b in unit.bases for s in table.standing(b)]
    pieces += [table.scene.terrain_piece(t) for t in crossing]
    names, kinds = tuple(dict.fromkeys(p.id for p in pieces)), {p.kind for p in pieces}
    going = "rough" if kinds & ROUGH_KINDS else "open"
    going = "obstacle" if kinds & OBSTACLE_KINDS else going
    if arm == "artillery":
        static = read(unit, "weapon") == "indian"
        moves = not static and going == "open"
        text = "guns_static" if static else "guns_manhandled" if moves else "guns_open_only"
        why = (say(text), CITE["indian_static" if static else "european_guns"])
        return Allowance(EUROPEAN_GUNS_MOVE * moves, going, False, False, names, (why,))
    kind = _order(unit)
    row = DATA["moves"][kind]
    whole_turn = going == "obstacle" and row["obstacle_whole_turn"]
    column = ("cavalry" if arm == "cavalry" else "foot") if going == "open" else going
    text = say("move_whole_turn" if whole_turn else f"move_{going}", kind=kind, arm=column)
    reasons = ((text, row["cite"]),) + (() if going == "open" else (("", CITE[going]),))
    disordered = whole_turn or (going == "rough" and row["rough_disorders"])
    distance = 0.0 if whole_turn else row[column] * INCH
    return Allowance(distance, going, disordered, whole_turn, names, reasons)


def fall_back_past(table: Table, unit: Unit, full_move: float) -> list[dict[str, Any]]:
    """Friendly units to the rear of a unit falling back or routing, and whether it may
    manoeuvre past each: 8" apart and a gap of its frontage beside the friend (lines 32-37),
    judged in the frame of the unit's first base: how far each base's outline (a round one as
    a 16-gon) reaches to its right (u) and ahead (v)."""
    scene, first, number = table.scene, unit.bases[0], table.unit_numbers
    local = [geo.to_local(first, geo.outline_polygon(b, 16)) for b in table.bases]
    # (N, 2) each: the least and the most u and v of every base
    lo, hi = np.array([p.min(axis=0) for p in local]), np.array([p.max(axis=0) for p in local])

    def extent(of: Unit) -> tuple[geo.Array, geo.Array]:
        return lo[table.span(of)].min(axis=0), hi[table.span(of)].max(axis=0)

    (u0, v0), (u1, _) = extent(unit)
    frontage, out = float(u1 - u0), []
    for friend in scene.units:
        if friend.id == unit.id or friend.side != unit.side or is_commander(friend):
            continue
        (fu0, fv0), (fu1, fv1) = extent(friend)
        if not (fv1 <= v0 and fu0 < u1 and fu1 > u0 and v0 - fv1 <= full_move):
            continue  # not to its rear, across its frontage, within its move
        near = table.gap(unit.bases, friend.bases)
        apart, unc = near.against(FALL_BACK_GAP), near.uncertainty
        # The free width either side of the friend among the other bases level with it (some
        # of them as far ahead as some of it); inf where nothing is beside it.
        level = (number != table.unit_row(unit)) & (number != table.unit_row(friend))
        level &= (hi[:, 1] > fv0) & (lo[:, 1] < fv1)
        free = {}
        for side, gap in (("left", fu0 - hi[level, 0]), ("right", lo[level, 0] - fu1)):
            free[side] = float(np.maximum(gap[gap >= -geo.EPS], 0.0).min(initial=math.inf))
        gaps = {k: None if math.isinf(w) else Threshold(frontage, w, unc) for k, w in free.items()}
        far_enough = geo.within(apart.limit, apart.measured)  # at least 8": on or beyond it
        gap_ok = any(t is None or t.within for t in gaps.values())
        close = any(t is not None and t.too_close_to_call for t in (apart, *gaps.values()))
        shown: dict[str, Any] = {side: {"free": "clear"} for side, t in gaps.items() if t is None}
        for side, t in ((side, t) for side, t in gaps.items() if t is not None):
            shown[side] = {"free": length(scene, t.limit), **threshold(scene, t)}
        past = dict(friend=friend.id, distance=threshold(scene, apart), at_least_8in=far_enough)
        past |= dict(frontage=length(scene, frontage), gaps=shown, gap_of_frontage=gap_ok)
        past |= dict(may_manoeuvre=far_enough and gap_ok, too_close_to_call=close)
        out.append(past | {"sources": list(SOURCES["fall_back_past_friends"])})
    return out


# --------------------------------------------------------------------------------------------
# The ruleset


class SepoysAndSoldiers(Ruleset):
    data = DATA
    title = "Sepoys & Soldiers - QRS"
    unit = "in"
    sides_rule = say("sides_rule")
    suggestions_say_their_phase: ClassVar[bool] = False

    def default_of(self, unit: Unit, name: str, default: Any) -> Any:
        """The `orders` of a unit that gives none: the order of its troop type (lines 5-7)."""
        return unit.get("type") if name == "orders" and unit.get("type") in TYPES else default

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """Infantry fire's 4" and 8" (line 66); a gun's 8", 20" and 30" where its row is not
        N/A (lines 59-62). Cavalry have no fire table and rockets fly their own path."""
        arm = read(unit, "arm")
        if arm == "foot":
            return tuple(RangeBand(b.label, b.limit, b.range_cite) for b in INFANTRY_BANDS)
        if arm != "artillery":
            return ()
        row = DATA["artillery_fire"][read(unit, "weapon")]
        bands = [b for b in ARTILLERY_BANDS if b.label in row]
        return tuple(RangeBand(b.label, b.limit, b.range_cite) for b in bands)

    def actions(self) -> dict[str, Action]:
        """The engine's (`measure`), then every action whose dice change the game (`outcomes`,
        in their order: every sepoys action has an outcome), then suggest."""
        ask = {k: partial(self._two_units, k) for k in TWO_UNITS}
        mine: dict[str, Action] = {k: ask.get(k) or getattr(self, k) for k in self.outcomes}
        return {**super().actions(), **mine, "suggest": self.suggest}

    def _two_units(self, action: str, scene: Scene, args: Args) -> Resolution:
        """`shoot SHOOTER TARGET` (the fire of one unit at another), `charge CHARGER TARGET`
        (the charge sequence and its odds), `melee A B` (a charge combat): refusals too."""
        table = table_of(scene)
        a, b = map(table.unit_of, args)
        answer: Callable[[Table, Unit, Unit], Resolution] = getattr(self, f"_{action}")
        return answer(table, a, b)

    outcomes = ("shoot", "command", "nerve", "charge", "melee", "move")
    """What the players' dice change: each action's form and what it leads to (at the end
    of the class)."""

    # ----------------------------------------------------------------------------------------
    # shoot (lines 58-75)

    def _shoot(self, table: Table, shooter: Unit, target: Unit) -> Resolution:
        """`shoot`: range is the distance between the nearest bases, and some firing base must
        see some base of the target within the longest range."""
        scene = table.scene
        _fighting("shoot", shooter, target)
        arm = read(shooter, "arm")
        if arm == "rockets":
            return self._rockets(table, shooter, target)
        near = table.gap(shooter.bases, target.bases)
        bands, row, guns = _fire_row(shooter)
        kind, target_kind = (None, None) if guns else (_order(shooter), _order(target))
        banded = [(b, near.against(b.limit)) for b in bands]
        band = next((b for b, t in banded if t.within), None)
        # The score a die needs in the row at the band (None: N/A), against a target of the
        # order it acts on (infantry's row) or any (a gun's).
        need = None if band is None else row.get(band.label)
        if need is not None and target_kind is not None:
            need = need[TYPES.index(target_kind)]
        # Why it may not fire, in the order the answer gives them after the range and the need.
        refusals: Reasons = []
        if arm == "cavalry":
            refusals.append((say("cavalry_no_fire"), CITE["each_base_rolls"]))
        if guns not in (None, "indian") and read(shooter, "moved"):
            refusals.append((say("guns_moved_no_fire"), CITE["guns_moved_no_fire"]))
        sight = None
        if band is None:
            longest = format_length(bands[-1].limit, "in")
            reasons: Reasons = [(say("beyond_range", longest=longest), bands[-1].range_cite)]
        else:
            up_to = say("band_range", band=band.label, limit=format_length(band.limit, "in"))
            text = "needs_na" if need is None else "needs_guns" if guns else "needs"
            needs = say(text, kind=kind, target=target_kind, guns=guns, band=band.label, need=need)
            reasons = [(up_to, band.range_cite), (needs, row["cite"])]
            limit, policy = bands[-1].limit + near.uncertainty, self.sight_policy
            seen = self._seen(table, shooter, target, limit)
            blocked = [] if seen else table.blocked_by(policy, shooter.bases, target.bases, limit)
            pair = {"a": seen[0].id, "b": seen[1].id} if seen else None
            sight = {"in_sight": bool(seen), "between": pair, "blocked_by": blocked}
            if not seen:
                refusals.append((say("unseen", blockers=", ".join(blocked) or "nothing"), None))
        if read(shooter, "acted"):
            refusals.append((ACTED, CITE["one_action"]))
        reasons += refusals
        allowed = need is not None and not refusals
        close = any(t.too_close_to_call for _, t in banded)
        data: dict[str, Any] = dict(shooter=shooter.id, target=target.id, too_close_to_call=close)
        data |= {"between": {"a": near.a.id, "b": near.b.id}}
        data["distance"] = length(scene, near.distance)
        data["band"] = "out-of-range" if band is None else band.label
        data["thresholds"] = [{"band": b.label, **threshold(scene, t)} for b, t in banded]
        data |= {"allowed": allowed, "in_sight": sight and sight["in_sight"], "sight": sight}
        data |= {"cover": "none: the sheet has no cover rule", "reasons": _reasons(reasons)}
        data["rolls"] = []
        fire, loss = None, SITUATIONS["loss-of-a-base"]
        if allowed and band is not None and need is not None:
            # Each base rolls 1d6, a disordered unit only half its bases, rounded up (line 42).
            disordered, bases = read(shooter, "disordered"), len(shooter.bases)
            dice = math.ceil(bases / 2) if disordered else bases
            half = "disordered: counts only half its bases (rounded up)"
            mods = [Modifier(dice - bases, half, CITE["disorder_half_bases"])] if disordered else []
            note = f"each base rolls 1d6; each success {plural(band.hits, 'hit')}"
            fire = Roll.success_roll("to hit", dice, 6, need, mods, row["cite"], note)
            carried = _hits(target)
            hits, lost, p_lost = volley(fire.dice, need, band.hits, carried, len(target.bases))
            then = {"situation": loss["key"], "p": prob(p_lost), "on_fail": loss["on_fail"]}
            data |= {"rolls": [fire.as_json()], "hits_per_success": band.hits, "hits": hits}
            data |= {"hits_source": str(band.hits_cite), "target_hits_carried": carried}
            data |= {"bases_lost": lost, "p_base_lost": prob(p_lost)}
            data["then"] = then | {"source": str(loss["cite"])}

        def lines() -> list[str]:
            at = "out of range" if band is None else f"{band.label} range"
            said = dict(
                distance=scene.show(near.distance), unc=scene.show(near.uncertainty), band=at
            )
            close_band = say("close_band") if close else ""
            out = [say("shoot", d=data, **said) + close_band, *_said(reasons)]
            if fire is not None and band is not None:
                dice_cite = CITE["artillery_each_base_rolls" if guns else "each_base_rolls"]
                out += _roll_lines(fire.describe(), dice_cite, fire)
                out += say_lines("hits", d=data, hits=plural(band.hits, "hit"))
            return [*out, "the sheet has no cover rule"]

        return self.answer("shoot", data, lines)

    def _rockets(self, table: Table, shooter: Unit, target: Unit) -> Resolution:
        """Each rocket base fires a rocket at the target's nearest base (lines 72-75). Rockets
        are independent: a base is spared only if every rocket spares it, counted exactly in
        whole numbers of 1 / BURST_DENOMINATOR ** rockets. (`suggest` lists only the
        rockets of a unit that has not acted and that may burst on the target: `_shots`.)"""
        acted = read(shooter, "acted")
        each = BURST_DENOMINATOR  # a burst's chance is its weight / each
        scene, whole = table.scene, each ** len(shooter.bases)
        spared: dict[str, int] = {}  # of `whole`, the chance no rocket so far bursts on a base
        target_spared, close, rockets = whole, set[str](), []
        aims = self._aims(table, shooter, target)  # where each may burst: BURSTS laid toward it
        for (launcher, aim), laid in zip(aims, table.laid_many(BURSTS, aims), strict=True):
            on_target = sum(w for b, w in laid.on if b.unit_id == target.id)
            for b, w in ((b, w) for b, w in laid.on if b.unit_id != shooter.id):
                spared[b.id] = spared.get(b.id, whole) // each * (each - w)
            close.update(b.id for b in laid.near if b.unit_id != shooter.id)
            target_spared = target_spared // each * (each - on_target)
            hits_target = exact(on_target, each)
            rockets.append({"base": launcher.id, "aimed_at": aim.id, "p_hits_target": hits_target})
        for bid in sorted(close):
            spared.setdefault(bid, whole)
        hits: list[dict[str, Any]] = []
        # Every base a burst may fall on (a weight is never 0) or near: likeliest lost first.
        for bid, left in sorted(spared.items(), key=lambda kv: kv[1]):
            unit = table.unit_of(table.bases[table.index[bid]].unit_id)
            hit = dict(base=bid, unit=unit.id, side=unit.side, too_close_to_call=bid in close)
            hits.append(hit | {"p_lost": exact(whole - left, whole)})
        near = table.gap(shooter.bases, target.bases)
        reach = near.against(ROCKET_REACH)
        p_hit = Fraction(whole - target_spared, whole)
        data: dict[str, Any] = {"shooter": shooter.id, "target": target.id, "rockets": rockets}
        data |= {"distance": length(scene, near.distance), "reach": threshold(scene, reach)}
        data["band"], data["allowed"] = "out-of-range" if reach.beyond else "rocket", not acted
        data["rolls"] = [ROCKET_RED_DIE.as_json(), ROCKET_WHITE_DIE.as_json()]
        data |= {"p_burns_out": prob(ROCKET_BURN_OUT), "p_target_loses_base": prob(p_hit)}
        data |= {"bases_hit": hits, "too_close_to_call": sorted(close)}
        data["friendly_at_risk"] = [h["base"] for h in hits if h["side"] == shooter.side]
        data["sources"] = list(SOURCES["rocket_shot"])
        if acted:
            data["reasons"] = _reasons([(ACTED, CITE["one_action"])])

        def lines() -> list[str]:
            away = scene.show(near.distance)
            out = [f"{ACTED} [{CITE['one_action']}]"] if acted else []
            out += say_lines("rockets", d=data, rockets=len(shooter.bases), away=away)
            for h in hits:
                close_burst = say("close_burst") if h["too_close_to_call"] else ""
                out.append(say("rocket_base", **h) + close_burst)
            return out

        return self.answer("shoot", data, lines)

    def _seen(
        self, table: Table, shooter: Unit, target: Unit, limit: float
    ) -> tuple[Base, Base] | None:
        """The nearest pair of bases at most `limit` apart, one of the shooter's seeing one of
        the target's (`Table.nearest_seen_pair`), read within the reach of every shot: no
        limit is longer than the longest band and the uncertainty of a length."""
        reach = LONGEST_FIRE + table.most_off + geo.EPS
        return table.nearest_seen_pair(self.sight_policy, shooter, target, limit, reach)

    @staticmethod
    def _aims(table: Table, shooter: Unit, target: Unit) -> list[tuple[Base, Base]]:
        """Each rocket base, and the target's base its rocket is aimed at: the nearest."""
        return [(r, min(target.bases, key=lambda b: table.distance(r, b))) for r in shooter.bases]

    # ----------------------------------------------------------------------------------------
    # command (lines 11-20)

    def command(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`command COMMANDER [UNIT]`: whom a commander may give new orders, and the roll."""
        table = table_of(scene)
        commander, asked = table.unit_of(args[0]), table.unit_of(args[-1]) if args[1:] else None
        if not is_commander(commander):
            raise refusal("not-commander", unit=commander.id)
        if asked is not None and (asked.side != commander.side or is_commander(asked)):
            too = " and is a commander" if is_commander(asked) else ""
            raise refusal("not-his", commander=commander, unit=asked, and_commander=too)
        rating, refusals = read(commander, "rating"), _order_refusals(commander)
        row, given = COMMANDERS[rating], read(commander, "orders_given")
        units = _commanded(scene, commander) if asked is None else [asked]
        contacts = [(u, table.gap(commander.bases, u.bases).contact) for u in units]
        adjacent = [(u, t) for u, t in contacts if not t.beyond]
        note = "equal or more: acts on the order this turn; lower: next turn"
        roll = Roll.success_roll("change orders", 1, 6, row["quality"], (), row["cite"], note)
        p_now, risk = roll.p_success or Fraction(0), commander_risk(commander.id, rating)
        data: dict[str, Any] = dict(leader=commander.id, rating=rating, radius=length(scene, 0.0))
        data["contact_rule"] = str(CITE["adjacent"])
        data["in_command"] = [b.id for u, _ in adjacent for b in u.bases]
        data["units"] = [
            {"unit": u.id, "adjacent": not t.beyond, "contact": threshold(scene, t)}
            | {"too_close_to_call": t.too_close_to_call}
            for u, t in contacts
        ]
        data |= {"orders_per_turn": row["orders"], "orders_given": given, "may_order": not refusals}
        data |= {"reasons": _reasons(refusals), "rolls": [roll.as_json()], "risk": risk}
        data["this_turn"] = prob(p_now) | {"source": str(CITE["order_this_turn"])}
        data["next_turn"] = prob(1 - p_now) | {"source": str(CITE["order_next_turn"])}
        checked = " (too close to call: check contact by eye)"
        listed = ", ".join(u.id + (checked if t.too_close_to_call else "") for u, t in adjacent)
        lines = [
            *say_lines("adjacent", d=data, listed=listed or "no unit", roll=roll.describe()),
            say("risk_line", **risk),
            *_said([(f"{commander.id} may not change orders now: {r}", c) for r, c in refusals]),
        ]
        if asked is not None:
            data |= {"unit": asked.id, "orders": _order(asked)}
            data["allowed"] = bool(adjacent) and not refusals
            lines.append(say("acts_on", d=data))
            if not adjacent:
                lines.insert(1, say("not_adjacent", unit=asked.id, commander=commander.id))
        return self.answer("command", data, lines)

    # ----------------------------------------------------------------------------------------
    # nerve (lines 21-30, 42-44)

    def nerve(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`nerve UNIT [SITUATION]`: the unit's nerve test, and what failing it does."""
        if len(args) == 2 and args[1] not in SITUATIONS:
            raise refusal("situation", situation=args[1], accepted=accepted(SITUATIONS))
        table = table_of(scene)
        unit, situation = table.unit_of(args[0]), SITUATIONS.get(args[-1]) if args[1:] else None
        _fighting("nerve", unit)
        kind, disordered = _order(unit), read(unit, "disordered")
        test = NERVE_TESTS[kind, disordered, situation["tests"] if situation else 1]
        by = [u for u in scene.units if u.side == unit.side and is_commander(u)]
        by = [u for u in by if table.gap(u.bases, unit.bases).touching]  # adjacent (line 17)
        risks = [commander_risk(u.id, read(u, "rating")) for u in by]
        data: dict[str, Any] = dict(unit=unit.id, type=unit.get("type"), orders=kind)
        data |= dict(disordered=disordered, dice=test.roll.dice, tests=test.tests)
        data |= dict(need=NERVE_NEED, p_pass=prob(test.p_pass))
        data |= dict(rolls=[test.roll.as_json()], commander_risk=risks)
        lines = _roll_lines(test.describe(unit.id), CITE["nerve_need"], test.roll)
        if situation is not None:
            data |= dict(situation=situation["key"], on_fail=situation["on_fail"])
            data["source"] = str(situation["cite"])
            lines.append(say("failing", s=situation))
        else:
            data["situations"] = [
                dict(situation=s["key"], tests=s["tests"], on_fail=s["on_fail"])
                | {"p_pass": prob(NERVE_TESTS[kind, disordered, s["tests"]].p_pass)}
                | {"source": str(s["cite"])}
                for s in SITUATIONS.values()
            ]
            lines += ["  " + say("failing", s=s) for s in SITUATIONS.values()]
        return self.answer("nerve", data, [*lines, *(say("risk_line", **r) for r in risks)])

    # ----------------------------------------------------------------------------------------
    # charge (lines 79-84)

    def _charge(self, table: Table, charger: Unit, target: Unit) -> Resolution:
        """`charge`: a charge reaches as far as the charger's move in the going it stands in."""
        scene = table.scene
        _fighting("charge", charger, target)
        arm, target_arm = read(charger, "arm"), read(target, "arm")
        near = table.gap(charger.bases, target.bases)
        if arm == "artillery":
            reach = near.contact
            reasons: Reasons = [(say("guns_charge"), CITE["european_guns"])]
        else:
            move = move_allowance(table, charger)
            reach = near.against(move.distance)
            how_far = say("charge_reach", going=move.going, move=format_length(move.distance, "in"))
            reasons = [(how_far, move.reasons[0][1])]
            if reach.beyond:
                reasons.append(("the target is beyond the charge move", None))
        if _status(charger) == "routed":
            reasons.append(("a routed unit must attempt to rally, not charge", CITE["rally"]))
        elif read(charger, "disordered"):
            reasons.append(("a disordered unit must attempt to reform, not charge", CITE["reform"]))
        if read(charger, "acted"):
            reasons.append((ACTED, CITE["one_action"]))
        allowed = arm != "artillery" and len(reasons) == 1  # the reach, and no refusal
        facing = geo.aspect(near.a, near.b)
        flank = facing.aspect is not geo.Aspect.FRONT
        aspect_close = facing.margin <= near.uncertainty
        situation = SITUATIONS["attacked-in-flank-or-rear" if flank else "being-charged"]
        charger_test, target_test = _nerve_of(charger), _nerve_of(target, situation["tests"])
        counter = arm == "cavalry" and target_arm == "cavalry"
        pc, pt = charger_test.p_pass, target_test.p_pass
        bases, hits = (len(charger.bases), len(target.bases)), (_hits(charger), _hits(target))
        combat = charge_combat(pc, pt, *bases, *hits)
        # whole numbers of 1 / (dc dt), then of 1 / (dc dt combat.whole) once the units meet
        (nc, dc), (nt, dt) = (pc.numerator, pc.denominator), (pt.numerator, pt.denominator)
        met, whole = nc * nt, dc * dt * combat.whole
        odds = dict(no_charge=exact(dc - nc, dc), target_routs=exact(nc * (dt - nt), dc * dt))
        odds |= dict(charge_combat=exact(met, dc * dt))
        odds |= dict(charger_wins_combat=exact(met * combat.a_wins, whole))
        odds |= dict(target_wins_combat=exact(met * combat.b_wins, whole))
        odds["both_destroyed"] = exact(met * combat.both_destroyed, whole)
        first = SITUATIONS["attempting-to-charge"]
        holds = CITE["counter_charge" if counter else "infantry_stands"]
        follow = ", ".join(SOURCES["charge_follow_through"])
        steps = [
            dict(step=1, unit=charger.id, situation=first["key"], tests=charger_test.tests)
            | dict(p_pass=prob(pc), on_fail=first["on_fail"], source=str(CITE["charge_test"])),
            dict(step=2, unit=target.id, situation=situation["key"], tests=target_test.tests)
            | dict(p_pass=prob(pt), on_fail=situation["on_fail"])
            | dict(source=str(situation["cite"] if flank else CITE["charged_test"])),
            dict(step=3, unit=target.id, source=str(holds))
            | dict(holds=say("counter_charges" if counter else "receives_charge")),
            dict(step=4, unit=charger.id, p_pass_again=prob(pc), source=follow)
            | dict(if_target_routs=say("charger_follows_through"))
            | dict(stop_short=length(scene, STOP_SHORT)),
        ]
        data: dict[str, Any] = dict(charger=charger.id, target=target.id, steps=steps)
        data |= dict(distance=length(scene, near.distance), counter_charge=counter)
        data |= dict(reach=threshold(scene, reach), aspect=facing.aspect.value, allowed=allowed)
        data |= dict(aspect_margin=length(scene, facing.margin))
        data["aspect_too_close_to_call"] = aspect_close
        data["rolls"] = [charger_test.roll.as_json(), target_test.roll.as_json()]
        data |= {"outcomes": odds, "reasons": _reasons(reasons)}

        def lines() -> list[str]:
            head = say("charges", d=data, distance=scene.show(near.distance))
            close = say("close_aspect") if aspect_close else ""
            tests = dict(t1=charger_test.describe(charger.id), t2=target_test.describe(target.id))
            stands = say("counter_stands" if counter else "stands_combat")
            steps = say_lines("charge_steps", d=data, stands=stands, s=situation, **tests)
            return [head + close, *_said(reasons), *steps]

        return self.answer("charge", data, lines)

    # ----------------------------------------------------------------------------------------
    # melee: a charge combat (lines 86-91)

    def _melee(self, table: Table, a: Unit, b: Unit) -> Resolution:
        """A charge combat: every one is listed."""
        scene = table.scene
        _fighting("melee", a, b)
        contact, (ta, tb) = table.gap(a.bases, b.bases).contact, (_nerve_of(a), _nerve_of(b))
        bases, hits = (len(a.bases), len(b.bases)), (_hits(a), _hits(b))
        result = charge_combat(ta.p_pass, tb.p_pass, *bases, *hits)
        whole = result.whole
        data: dict[str, Any] = dict(a=a.id, b=b.id, contact=threshold(scene, contact))
        data |= dict(in_contact=not contact.beyond, rolls=[ta.roll.as_json(), tb.roll.as_json()])
        data |= dict(p_a_wins=exact(result.a_wins, whole), p_b_wins=exact(result.b_wins, whole))
        data["p_both_destroyed"] = exact(result.both_destroyed, whole)
        data["p_drawn_round"] = prob(result.p_drawn_round)
        data["a_bases_lost"] = chances(result.a_bases_lost, whole)
        data["b_bases_lost"] = chances(result.b_bases_lost, whole)
        pa, pb = (say("pursues" if _pursues(u) else "advances") for u in (a, b))
        data["winner"] = {"hits": COMBAT_HITS["win"], "a": pa, "b": pb}
        data["loser"] = {"hits": COMBAT_HITS["lose"], "then": "routs one full move"}
        data |= {"after": "all units involved are disordered"}
        data["sources"] = list(SOURCES["charge_combat"])

        def lines() -> list[str]:
            same = pa == pb
            won = say("won", pursuit=pa) if same else say("won_apart", a=a.id, b=b.id, pa=pa, pb=pb)
            said = dict(ta=ta.describe(a.id), tb=tb.describe(b.id), won=won)
            said["apart"] = say("not_in_contact") if contact.beyond else ""
            said["rout"] = f" [{CITE['combat_rout']}]" if same else ""
            said["both"] = say("both_destroyed", d=data) if result.both_destroyed else ""
            return say_lines("melee", d=data, **said)

        return self.answer("melee", data, lines)

    # ----------------------------------------------------------------------------------------
    # move (lines 32-37, 49-56)

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT [TERRAIN...]`: the unit's move in the going it stands in and crosses."""
        table, crossing = table_of(scene), tuple(args[1:])
        unit = table.unit_of(args[0])
        allowance, status = move_allowance(table, unit, crossing), _status(unit)
        data: dict[str, Any] = dict(unit=unit.id, crossing=list(crossing), going=allowance.going)
        data |= dict(allowance=length(scene, allowance.distance), whole_turn=allowance.whole_turn)
        data |= dict(terrain=list(allowance.pieces), disordered_after=allowance.disordered)
        data["reasons"] = _reasons([r for r in allowance.reasons if r[0]])
        cites = [c for _, c in allowance.reasons] + [CITE["pivot"], CITE["interpenetrate"]]
        data["sources"] = [str(c) for c in cites]
        how = f"moves {scene.show(allowance.distance)}"
        if allowance.whole_turn:
            how = "crossing takes the whole turn"
        elif not allowance.distance:
            how += f" ({allowance.reasons[0][0]})"
        where = ", ".join(allowance.pieces) or "the open"
        lines = [
            say("moves", unit=unit.id, where=where, going=allowance.going, how=how)
            + (", and is disordered" if allowance.disordered else ""),
            *_said(allowance.reasons, "  "),
            *_said([(say(k), CITE[k]) for k in ("pivot", "interpenetrate")]),
        ]
        if status in MOVES_AFTER_ACTING:
            full = max(move_allowance(table, unit).distance, FALL_BACK_GAP)  # 8" at least
            past = fall_back_past(table, unit, full)
            data |= {"status": status, "fall_back_past": past}
            for p in past:
                how = "may manoeuvre past it" if p["may_manoeuvre"] else say("through_it")
                close = say("close_past") if p["too_close_to_call"] else ""
                lines.append(say("past", how=how, close=close, **p))
        return self.answer("move", data, lines)

    # ----------------------------------------------------------------------------------------
    # suggest: the questions each step of play asks (the engine's one `suggest` answers them)

    def candidates(self, scene: Scene, phase: str) -> Iterable[Candidate]:
        table, troops = table_of(scene), [u for u in scene.units if not is_commander(u)]
        if phase == "orders":
            # Each unit a commander may give new orders (adjacent, orders left: line 17); a
            # commander who may order none is asked alone, to say why.
            # Only units this near him may touch him: no length between two bases is more
            # uncertain than twice the most uncertain base.
            touch = table.most_off + geo.EPS
            for c in (u for u in scene.units if is_commander(u)):
                nearby = {u.id for u in table.units_within(c, touch)}
                near = [u for u in _commanded(scene, c) if u.id in nearby]
                near = [u for u in near if table.gap(c.bases, u.bases).touching]
                if near and not _order_refusals(c):
                    yield from (Candidate("command", (c.id, u.id)) for u in near)
                else:
                    yield Candidate("command", (c.id,))
        elif phase == "rally":
            # A routed unit must attempt to rally, a disordered one to reform (line 21).
            for u in troops:
                if not read(u, "acted") and _status(u) == "routed":
                    yield Candidate("nerve", (u.id,))
                elif not read(u, "acted") and read(u, "disordered"):
                    yield Candidate("nerve", (u.id, "attempt-to-reform"))
        elif phase == "charge":
            # Not artillery, nor a unit routed, falling back, disordered or that has acted, nor
            # at an enemy beyond its charge move (lines 79-84; `_charge` says each refusal).
            for a, b, gap, unc in table.enemy_pairs(troops, LONGEST_CHARGE):
                may = read(a, "arm") != "artillery" and _status(a) is None
                may = may and not read(a, "disordered") and not read(a, "acted")
                if may and not Threshold(gap, move_allowance(table, a).distance, unc).beyond:
                    yield Candidate("charge", (a.id, b.id))
        elif phase == "move":
            # Not a unit that has moved, or acted (but for the move of a failed nerve test).
            for u in troops:
                may = not read(u, "acted") or _status(u) in MOVES_AFTER_ACTING
                if may and not read(u, "moved"):
                    yield Candidate("move", (u.id,))
        elif phase == "fire":
            yield from self._shots(table, troops)
        elif phase == "combat":
            for a, b, _, _ in table.enemy_pairs(troops, 0.0, once=True):
                yield Candidate("melee", (a.id, b.id))

    def _shots(self, table: Table, troops: list[Unit]) -> list[Candidate]:
        """Each unit at each enemy it may hit: within the reach of its fire (its last range
        band not N/A) and seen by some firing base, or (rockets) up to 32" away, give or take
        the measurement, where a rocket may burst on it; not cavalry, which never fire, nor a
        unit that has acted. What each sees and where each rocket may burst is judged in one
        batch (the table remembers)."""
        shots: list[tuple[Unit, Unit, slice | None]] = []  # a rocket shot: where its aims lie
        aims: list[tuple[Base, Base]] = []
        reach: dict[str, float] = {}  # each unit's fire reach, read once for all its targets
        for a, b, gap, unc in table.enemy_pairs(troops, ROCKET_REACH):
            arm = read(a, "arm")
            if arm == "cavalry" or read(a, "acted"):
                continue
            if arm == "rockets":
                aims += self._aims(table, a, b)
                shots.append((a, b, slice(len(aims) - len(a.bases), len(aims))))
                continue
            if a.id not in reach:
                reach[a.id] = self.range_bands(table.scene, a)[-1].reach
            bands = ARTILLERY_BANDS if arm == "artillery" else INFANTRY_BANDS
            if geo.within(gap, reach[a.id]) and self._seen(table, a, b, bands[-1].limit + unc):
                shots.append((a, b, None))
        laid = table.laid_many(BURSTS, aims)
        return [  # a shot seen already, or rockets one of whose bursts may fall on the target
            Candidate("shoot", (a.id, b.id))
            for a, b, rockets in shots
            if rockets is None or any(h.unit_id == b.id for f in laid[rockets] for h, _ in f.on)
        ]

    left_off_when_refused = frozenset({"shoot", "charge"})  # every melee asked is listed

    def answer_candidate(self, scene: Scene, candidate: Candidate) -> Resolution | None:
        """The action's answer as the engine lists it (a shot or charge the rules refuse is
        left off), and a unit that may not move at all is left off too."""
        res = super().answer_candidate(scene, candidate)
        if res is None or candidate.kind != "move":
            return res
        return res if res.data["allowance"]["value"] or res.data["whole_turn"] else None

    def summarise(self, scene: Scene, candidate: Candidate, result: Resolution) -> str:
        d, (kind, args) = result.data, (candidate.kind, candidate.args)
        if kind == "command" and len(args) == 1:
            adjacent = any(u["adjacent"] for u in d["units"])
            why = "; ".join(r["reason"] for r in d["reasons"]) if adjacent else "none adjacent"
            return say("no_orders", commander=args[0], why=why)
        if kind == "nerve":
            return say("reform" if args[1:] else "rally", unit=args[0], p=d["p_pass"]["exact"])
        if kind == "move":
            return result.lines[0]
        key = "rockets" if kind == "shoot" and "rockets" in d else kind
        return say(f"suggest_{key}", a=args[0], b=args[-1], d=d)

    def suggestion_lines(self, data: dict[str, Any], items: list[Suggestion]) -> tuple[str, ...]:
        phase = f" in the {data['phase']} phase" if data["phase"] else ""
        head = f"{len(items)} things to resolve{phase}"
        return (head, *(f"[{i.kind}] {i.summary}" for i in items))

    # ----------------------------------------------------------------------------------------
    # Outcomes: after a question the players roll real dice and report them in the sheet's
    # words (the form, `Report`s); the answer is the new state (`Change`s)

    def _pair(self, asked: Asked) -> tuple[Unit, Unit]:
        """The two units of a `shoot`, `charge`, `melee` or `command COMMANDER UNIT`; a question
        the rules refused has no dice to report."""
        action, args = asked.answer.action, asked.args
        if action == "command" and len(args) != 2:
            raise refusal("one-order", got=plural(len(args), "argument"))
        a, b = asked.unit(0), asked.unit(1)
        if not asked.data.get("allowed", True):
            # Every refusal gives its reasons, but a change of orders to a unit not adjacent.
            why = "; ".join(x["reason"] for x in asked.data.get("reasons", ()) if x.get("reason"))
            why = why or f"{b.id} is not adjacent to {a.id} (line 17)"
            raise QuestionError(f"{ID} {action} {a.id} {b.id}: {why}; there are no dice to report")
        return a, b

    def _shoot_form(self, asked: Asked) -> tuple[Report, ...]:
        shooter, target = self._pair(asked)
        if read(shooter, "arm") == "rockets":
            fired, cite = len(shooter.bases), CITE["rocket_loss"]
            burst = partial(say, "burst_bases", rockets=plural(fired, "rocket"))
            risk = _rocket_risk(asked.scene, target, asked.answer)
            return tuple(_removed_report(u, fired, 0, burst(unit=u.id), cite) for u in risk)
        roll, per = asked.data["rolls"][0], asked.data["hits_per_success"]
        dice, likely = roll["dice"], likeliest(roll["distribution"])
        label = say("successes", dice=dice, need=roll["need"], each=plural(per, "hit"))
        artillery = read(shooter, "arm") == "artillery"
        cite = CITE["artillery_each_base_rolls" if artillery else "each_base_rolls"]
        return (
            count_report("successes", label, cite, roll["distribution"], most=dice),
            _removed_report(target, len(target.bases), likely * per),
        )

    def _shoot_apply(self, asked: Asked, reported: Reported) -> tuple[Change, ...]:
        shooter, target = self._pair(asked)
        question = f"{ID} shoot {shooter.id} {target.id}"
        changes: list[Change] = []
        if read(shooter, "arm") == "rockets":
            fired = plural(len(shooter.bases), "rocket")
            units = _rocket_risk(asked.scene, target, asked.answer)
            named = [(u, base) for u in units for base in reported[f"removed_{u.id}"]]
            if len(named) > len(shooter.bases):
                raise refusal("bursts", q=question, n=len(named), unit=shooter.id, fired=fired)
            for unit, base in named:
                tests = "" if unit.side == shooter.side else say("its_unit_tests")
                why = say("burst_on", shooter=shooter.id, tests=tests)
                changes.append(Change(base, "removed", True, why, CITE["rocket_loss"], Scope.BASE))
        else:
            band = next(b for b in _fire_row(shooter)[0] if b.label == asked.data["band"])
            successes, named = reported["successes"], reported[f"removed_{target.id}"]
            why = f"{plural(successes, 'success', 'es')} at {band.label} range"
            hits = successes * band.hits
            changes += _hits_landed(target, hits, named, why, band.hits_cite, question)
        changes.append(_acted(shooter, "fired: its one action this turn", CITE["one_action"]))
        return tuple(changes)

    def _command_form(self, asked: Asked) -> tuple[Report, ...]:
        commander, unit = self._pair(asked)
        who, now = dict(commander=commander.id, unit=unit.id), asked.data["orders"]
        order = say("order_given", now=now, **who)
        this_turn = say("order_scored", need=asked.data["rolls"][0]["need"], **who)
        other, likely = next(t for t in TYPES if t != now), asked.data["this_turn"]["value"]
        cite, now_cite = CITE["orders"], CITE["order_this_turn"]
        return (
            Report("order", Kind.CHOICE, order, cite, choices=TYPES, default=other),
            Report("this_turn", Kind.FLAG, this_turn, now_cite, default=likely >= 0.5),
        )

    def _command_apply(self, asked: Asked, reported: Reported) -> tuple[Change, ...]:
        commander, unit = self._pair(asked)
        now, this_turn = asked.data["orders"], reported["this_turn"]
        cite = CITE["order_this_turn" if this_turn else "order_next_turn"]
        why = say("order_now" if this_turn else "order_next", commander=commander.id)
        changes = [Change(unit.id, "orders", reported["order"], why, cite)]
        if not this_turn:
            why = f"keeps to its {now} orders this turn"
            changes.append(Change(unit.id, "orders_this_turn", now, why, cite))
        else:
            why = "acts on it now"
            changes.append(Change(unit.id, "orders_this_turn", AS_ORDERED, why, cite))
        given, most = asked.data["orders_given"] + 1, asked.data["orders_per_turn"]
        why = f"{given} of the {plural(most, 'order change')} he may try each turn"
        cite = COMMANDERS[asked.data["rating"]]["cite"]
        return (*changes, Change(commander.id, "orders_given", given, why, cite))

    def _nerve_tested(self, asked: Asked) -> tuple[Unit, Situation | None]:
        """The unit and its situation (None: a routed unit's attempt to rally)."""
        unit = asked.unit(0)
        situation = SITUATIONS[asked.args[1]] if len(asked.args) == 2 else None
        if situation is None and _status(unit) != "routed":
            raise refusal("no-situation", unit=unit.id, accepted=accepted(SITUATIONS))
        return unit, situation

    def _nerve_form(self, asked: Asked) -> tuple[Report, ...]:
        unit, situation = self._nerve_tested(asked)
        data = asked.data
        what, on_fail, tests = "attempting to rally", "it keeps routing", data["tests"]
        if situation is not None:
            what, on_fail = situation["name"].lower(), situation["on_fail"]
        each = f", in each of {tests} tests" if tests > 1 else ""
        label = say("passed", unit=unit.id, dice=data["dice"], each=each, what=(what, on_fail))
        likely = Fraction(data["p_pass"]["exact"]) >= Fraction(1, 2)
        risk = partial(Report, kind=Kind.CHOICE, cite=CITE["risk_roll"], choices=RISK_RESULTS)
        risks = [
            risk(f"risk_{r['commander']}", label=say("risk_roll", **r), default="not-hit")
            for r in data["commander_risk"]
        ]
        return (Report("passed", Kind.FLAG, label, CITE["nerve_need"], default=likely), *risks)

    def _nerve_apply(self, asked: Asked, reported: Reported) -> tuple[Change, ...]:
        unit, situation = self._nerve_tested(asked)
        passed = reported["passed"]
        changes: list[Change] = []
        if situation is None:
            if passed:
                why = "rallied: it stops routing (disordered still, it must reform)"
                changes.append(Change(unit.id, "status", STEADY, why, CITE["rally"]))
            changes.append(_acted(unit, "attempting to rally is its action", CITE["rally"]))
        elif situation["key"] == "attempt-to-reform":
            if passed:
                why = "reformed; it cannot move"
                changes.append(Change(unit.id, "disordered", False, why, CITE["reform_passed"]))
            why = "attempting to reform is its action" + ("" if passed else say("stands"))
            changes.append(_acted(unit, why, CITE["reform"]))
        elif not passed:
            changes += _nerve_failed(unit, situation)
        for name in (risk["commander"] for risk in asked.data["commander_risk"]):
            hit = reported[f"risk_{name}"]  # what his risk roll did to him (lines 11-15)
            if hit == "dead":
                bases = [b.id for b in asked.scene.unit_of(name).bases]
                changes += removals(bases, f"{name} is dead", IF_HIT[0]["cite"])
            elif hit in ("wounded", "horse-killed"):
                row = IF_HIT[1] if hit == "wounded" else IF_HIT[2]
                changes.append(Change(name, "hurt", hit, row["result"], row["cite"]))
        return tuple(changes)

    def _charge_form(self, asked: Asked) -> tuple[Report, ...]:
        charger, target = self._pair(asked)
        odds, tests = asked.data["outcomes"], asked.data["steps"][1]["tests"]
        likeliest = max(CHARGE_RESULTS, key=lambda k: odds[k.replace("-", "_")]["value"])
        holds = "it counter-charges" if asked.data["counter_charge"] else "it stands"
        one_of = " one of its two tests" if tests > 1 else ""
        label = say("charge_ended", charger=charger.id, target=target.id, of=one_of, holds=holds)
        ended = Report("result", Kind.CHOICE, label, CITE["charge_test"], choices=CHARGE_RESULTS)
        return (replace(ended, default=likeliest),)

    def _charge_apply(self, asked: Asked, reported: Reported) -> tuple[Change, ...]:
        charger, target = self._pair(asked)
        result = reported["result"]
        if result == "no-charge":
            return tuple(_nerve_failed(charger, SITUATIONS["attempting-to-charge"]))
        if result == "target-routs":
            routs = _nerve_failed(target, SITUATIONS[asked.data["steps"][1]["situation"]])
            why = "charged: it continues to the extent of its charge move"
            return (*routs, _acted(charger, why, CITE["charge_continues"]))
        why = "charged home: the units fight a charge combat"
        if asked.data["counter_charge"]:
            cite = CITE["counter_charge"]
            return (_acted(charger, why, cite), _acted(target, "counter-charged", cite))
        return (_acted(charger, why, CITE["infantry_stands"]),)

    def _melee_form(self, asked: Asked) -> tuple[Report, ...]:
        a, b = self._pair(asked)
        most = min(HITS_PER_BASE * len(u.bases) - _hits(u) for u in (a, b))
        odds = asked.data
        likelier = a.id if odds["p_a_wins"]["value"] >= odds["p_b_wins"]["value"] else b.id
        drawn, winner = say("drawn_rounds"), say("combat_winner", both=BOTH_DESTROYED)
        sides, cite = (a.id, b.id, BOTH_DESTROYED), CITE["combat_reroll"]
        hits = {u.id: COMBAT_HITS["win" if u.id == likelier else "lose"] for u in (a, b)}
        return (
            Report("drawn_rounds", Kind.COUNT, drawn, CITE["combat_draw"], maximum=most, default=0),
            Report("winner", Kind.CHOICE, winner, cite, choices=sides, default=likelier),
            *(_removed_report(u, len(u.bases), hits[u.id]) for u in (a, b)),
        )

    def _melee_apply(self, asked: Asked, reported: Reported) -> tuple[Change, ...]:
        a, b = self._pair(asked)
        question = f"{ID} melee {a.id} {b.id}"
        drawn, winner = reported["drawn_rounds"], reported["winner"]
        rounds, taken = plural(drawn, "drawn round"), {a.id: drawn, b.id: drawn}
        dead = [u.id for u in (a, b) if _hits(u) + drawn >= HITS_PER_BASE * len(u.bases)]
        if dead:
            ended = BOTH_DESTROYED if len(dead) == 2 else (b.id if dead == [a.id] else a.id)
            if winner != ended:
                gone, chosen = " and ".join(dead), dict(ended=ended, winner=winner)
                raise refusal("ended", q=question, rounds=rounds, gone=gone, **chosen)
        elif winner == BOTH_DESTROYED:
            raise refusal("both-stand", question=question, rounds=rounds, a=a.id, b=b.id)
        else:
            taken[winner] += COMBAT_HITS["win"]
            taken[b.id if winner == a.id else a.id] += COMBAT_HITS["lose"]
        changes: list[Change] = []
        cite = CITE["combat_draw" if dead else "combat_win"]
        for u in (a, b):
            last = "" if dead else f" and the {'winning' if u.id == winner else 'losing'} round"
            named = reported[f"removed_{u.id}"]
            changes += _hits_landed(u, taken[u.id], named, rounds + last, cite, question)
        for u in (a, b):
            if _hits(u) + taken[u.id] >= HITS_PER_BASE * len(u.bases):
                continue  # destroyed
            if not dead and u.id != winner:
                changes += _routs(u, say("lost_combat"), CITE["combat_rout"])
                continue
            if u.id == winner and _pursues(u):
                why = "British cavalry must pursue"
                changes.append(Change(u.id, "status", "pursuing", why, CITE["combat_pursue"]))
            why = "after resolving a charge combat (all units involved)"
            changes.append(Change(u.id, "disordered", True, why, CITE["combat_disorders"]))
        return tuple(changes)

    def _move_question(self, asked: Asked) -> Unit:
        """The unit that moves; a move the rules refuse (its answer says why) has nothing to
        report."""
        unit, data = asked.unit(0), asked.data
        question = f"{ID} move {' '.join(asked.args)}"
        if not data["allowance"]["value"] and not data["whole_turn"]:
            why = data["reasons"][0]["reason"]
            raise QuestionError(f"{question}: {unit.id} may not move: {why}")
        if read(unit, "moved"):
            raise QuestionError(f"{question}: {unit.id} has moved this turn")
        if read(unit, "acted") and _status(unit) not in MOVES_AFTER_ACTING:
            raise refusal("acted", question=question, unit=unit.id)
        return unit

    def _move_form(self, asked: Asked) -> tuple[Report, ...]:
        unit = self._move_question(asked)
        label, cite = partial(say, "moved_through", unit=unit.id), CITE["gap_otherwise"]
        return tuple(
            Report(f"through_{f}", Kind.FLAG, label(friend=f), cite, default=True)
            for f in _through(asked.answer)
        )

    def _move_apply(self, asked: Asked, reported: Reported) -> tuple[Change, ...]:
        unit, data = self._move_question(asked), asked.data
        acted = _acted(unit, "moving is its one action", CITE["one_action"])
        changes = [Change(unit.id, "moved", True, "moved", CITE["guns_moved_no_fire"]), acted]
        disorder: tuple[str, Cite] | None = None
        if data["disordered_after"]:  # only troops: a gun's move never disorders it (line 56)
            going = f"{data['going']} going ({', '.join(data['terrain'])})"
            disorder = (going, DATA["moves"][_order(unit)]["cite"])  # its row of the move table
        status = _status(unit)
        for friend in (f for f in _through(asked.answer) if reported[f"through_{f}"]):
            why = f"{unit.id} fell back straight through it"
            changes.append(Change(friend, "disordered", True, why, CITE["gap_otherwise"]))
            if disorder is None:
                why = "passed_through" if status == "routed" else "interpenetration_disorders"
                disorder = (f"passed through {friend}", CITE[why])
        if disorder is not None:
            changes.append(Change(unit.id, "disordered", True, *disorder))
        if status == "falling-back":
            why, cite = say("fell_back"), SITUATIONS["loss-of-a-base"]["cite"]
            changes.append(Change(unit.id, "status", STEADY, why, cite))
        return tuple(changes)


def _removed_report(
    unit: Unit, most: int, likely: int = 0, label: str = "", cite: Cite = CITE["hits_per_base"]
) -> Report:
    """Which bases of `unit` the players take off (at most `most`); shown first: the last
    bases of the unit, as many as `likely` more hits would take (line 3)."""
    label = label or say("removed", unit=unit.id, carried=_hits(unit))
    lost = (_hits(unit) + likely) // HITS_PER_BASE
    return bases_report(f"removed_{unit.id}", label, cite, unit, most, lost)


def _hits_landed(
    unit: Unit, hits: int, named: Sequence[str], why: str, cite: Cite, question: str
) -> list[Change]:
    """`hits` more on a unit: every third, counting those it carries, removes a base (line 3),
    the players having named the bases; what is left over stays on the unit as `hits`."""
    carried, bases = _hits(unit), len(unit.bases)
    total = carried + hits
    lost = min(total // HITS_PER_BASE, bases)
    if len(named) != lost:
        counts = dict(hits=plural(hits, "hit"), lost=plural(lost, "base"), named=len(named))
        said = dict(q=question, why=why, unit=unit.id, total=total, carried=carried)
        raise refusal("name-bases", **said, **counts)
    tests = "" if lost == bases else say("tests_for_loss")
    removed = f"{unit.id} has taken {total} hits, a base for every 3{tests}"
    changes = list(removals(named, removed, CITE["hits_per_base"]))
    left = total - HITS_PER_BASE * lost
    if lost < bases:
        lost_too = f", {plural(lost, 'base')} lost" if lost else ""
        reason = f"{why}: {plural(hits, 'hit')} on the {carried} it carried{lost_too}"
        changes.append(Change(unit.id, "hits", left, reason, cite))
    return changes


def _routs(unit: Unit, why: str, cite: Cite) -> list[Change]:
    """A unit routs: `status` routed, and disordered while routing (line 44)."""
    disordered = "disordered while routing"
    routed = Change(unit.id, "status", "routed", why, cite)
    return [routed, Change(unit.id, "disordered", True, disordered, CITE["rout_disorders"])]


def _acted(unit: Unit, why: str, cite: Cite) -> Change:
    return Change(unit.id, "acted", True, why, cite)


def _rocket_risk(scene: Scene, target: Unit, shot: Resolution) -> list[Unit]:
    """The target, then every other unit with a base a rocket may burst on."""
    ids = dict.fromkeys([target.id, *(h["unit"] for h in shot.data["bases_hit"])])
    return [scene.unit_of(i) for i in ids]


def _nerve_failed(unit: Unit, situation: dict[str, Any]) -> list[Change]:
    """What failing the nerve test of `situation` does (lines 22-30)."""
    why = say("nerve_failed", s=situation)
    if situation["key"] == "attempting-to-charge":
        return [_acted(unit, why, situation["cite"])]
    if situation["on_fail"].startswith("fall back"):
        if _status(unit) == "routed":
            return []  # already routing, which is worse
        return [Change(unit.id, "status", "falling-back", why, situation["cite"])]
    return _routs(unit, why, situation["cite"])


def _through(res: Resolution) -> list[str]:
    """The friends a falling-back or routing unit has no room to manoeuvre past."""
    return [p["friend"] for p in res.data.get("fall_back_past", ()) if not p["may_manoeuvre"]]
