"""Sepoys & Soldiers: the sheet's tables (read from `sheet.toml`, every number with its line)
and the exact odds of its dice: nerve tests, volleys, charge combats, rocket bursts.

Lengths in millimetres (1" = 25.4 mm); probabilities are exact, shown as
`{"value": float, "exact": "p/q"}`. Pure: no scene, nothing measured, nothing remembered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ...answer import Cite, Modifier, Roll, chance_json, fraction_json
from ...errors import QuestionError
from ...measure import flight_pattern
from ...scene import TerrainKind
from ...sheetdata import load_sheet_data
from ...state import Field, Kind, Phase

SHEET = "001_14e3e4b7ab0503f1.txt"
ID = "sepoys-and-soldiers"
INCH = 25.4
"""mm in an inch: the sheet measures in inches."""

DATA = load_sheet_data(Path(__file__).with_name("sheet.toml"), SHEET)
CITE: dict[str, Cite] = DATA["cite"]
WORDS: dict[str, str] = DATA["words"]
"""Texts the answers and forms fill in (`str.format`), kept with the tables."""
UNIT_FIELDS = tuple(
    Field(**f | {"kind": Kind(f["kind"]), "choices": tuple(f.get("choices", ()))})
    for f in DATA["fields"]
)
PHASE_STEPS = tuple(Phase(p["name"], p["title"], "all", p["cite"]) for p in DATA["phases"])


def say(name: str, **blanks: Any) -> str:
    """A text of sheet.toml's `[words]`, `{names}` filled in (`{cite[key]}`: a line quoted)."""
    return WORDS[name].format(cite=CITE, **blanks)


def refusal(key: str, **blanks: Any) -> QuestionError:
    """A question the sheet refuses, in the words of sheet.toml's `[refusals]`."""
    return QuestionError(DATA["refusals"][key].format(id=ID, cite=CITE, **blanks))


def plural(n: int, word: str, many: str = "s") -> str:
    """`1 hit`, `2 hits`: a count and its word."""
    return f"{n} {word}{many * (n != 1)}"


_WORDS = {f.name: f.choices for f in UNIT_FIELDS}
TYPES = _WORDS["type"]
"""The orders (and troop types), best first: one quality less is one step along (line 43)."""
ARMS, GUNS, RATINGS, HURT = _WORDS["arm"], _WORDS["weapon"], _WORDS["rating"], _WORDS["hurt"]
STATUS_WORDS, ORDERS_THIS_TURN = _WORDS["status"], _WORDS["orders_this_turn"]
STEADY, AS_ORDERED = STATUS_WORDS[0], ORDERS_THIS_TURN[0]

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


def fire_need(row: dict[str, Any], band: str, target_kind: str | None) -> int | None:
    """The score a die needs in a fire table's row at a band (None: N/A), against a target of
    `target_kind` (infantry) or any (artillery)."""
    need = row.get(band)
    return need if need is None or target_kind is None else need[TYPES.index(target_kind)]


# --------------------------------------------------------------------------------------------
# Nerve (line 21; lines 42-44 when disordered)


@dataclass(frozen=True, slots=True)
class NerveTest:
    """How a unit tests its nerve: the dice, how many times it must pass, and the odds."""

    dice: int
    tests: int
    reasons: tuple[Modifier, ...]
    p_pass: Fraction
    roll: Roll

    def describe(self, unit: str) -> str:
        twice = "" if self.tests == 1 else f", {self.tests} times"
        return f"{unit} rolls {self.dice}d6, 4+ on any die passes{twice}: pass {self.p_pass}"


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
    return NerveTest(count, tests, tuple(reasons), p_pass, roll)


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


def to_hit_roll(bases: int, disordered: bool, need: int, band: FireBand, cite: Cite) -> Roll:
    """The to-hit roll of a unit of `bases` bases (half of them, rounded up, when disordered:
    line 42) needing `need`+ at `band` range, from the row `cite`."""
    dice = math.ceil(bases / 2) if disordered else bases
    half = "disordered: counts only half its bases (rounded up)"
    mods = (Modifier(dice - bases, half, CITE["disorder_half_bases"]),) if disordered else ()
    note = f"each base rolls 1d6; each success {band.hits} hit" + "s" * (band.hits > 1)
    return Roll.success_roll("to hit", dice, 6, need, mods, cite, note)


Chances = list[dict[str, Any]]


def volley(
    roll: Roll, hits_per: int, carried: int, bases: int
) -> tuple[Chances, Chances, Fraction]:
    """The odds of a to-hit `roll` whose every success causes `hits_per` hits, on a unit of
    `bases` bases carrying `carried` hits (every third hit removes a base, at most all of them),
    for JSON: of each number of hits and of each number of bases lost; and of losing one or more."""
    lost = [Fraction(0)] * (bases + 1)
    for k, p in enumerate(roll.distribution):
        lost[min((carried + k * hits_per) // HITS_PER_BASE, bases)] += p
    hits = [{"k": k * hits_per, **fraction_json(p)} for k, p in enumerate(roll.distribution) if p]
    return hits, [{"k": k, **fraction_json(p)} for k, p in enumerate(lost) if p], 1 - lost[0]


# --------------------------------------------------------------------------------------------
# Commanders (lines 11-15) and charge combat (lines 88-91)


def commander_risk(commander: str, rating: str) -> dict[str, Any]:
    """The commander's lose-a-base/nerve roll (lines 11-15) and the if-hit table."""
    row = COMMANDERS[rating]
    hit_up_to, if_hit = row["hit_up_to"], []
    for r in IF_HIT:
        (low, high), source = r["faces"], str(r["cite"])
        faces, p = f"{low}-{high}" if high > low else str(low), chance_json(high - low + 1, 6)
        overall = chance_json(hit_up_to * (high - low + 1), 36)
        if_hit.append(dict(faces=faces, result=r["result"], p=p, p_overall=overall, source=source))
    hit_on = f"1-{hit_up_to}" if hit_up_to > 1 else "1"
    risk = {"commander": commander, "rating": rating, "hit_on": hit_on}
    return risk | {"p_hit": chance_json(hit_up_to, 6), "source": str(row["cite"]), "if_hit": if_hit}


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
ROCKET_WHITE_DIE = Roll(
    "flight path (white die)", 1, 6, None, cite=CITE["rocket_path"], note=_WHITE
)


BURSTS, BURST_DENOMINATOR = flight_pattern(ROCKET_LEG, ROCKET_LEGS, ROCKETS["turns"], _EXPLODES)
"""Where a rocket may burst (the white die turns it, it flies a leg, the red die explodes it),
laid from the middle of its base's front toward the base it is aimed at (`Table.laid`); a
burst's chance is its weight / BURST_DENOMINATOR (3^8)."""
