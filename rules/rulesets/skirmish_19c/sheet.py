"""skirmish-19c's sheet as values: the tables of `sheet.toml`, each number with its line of
rules/sheets/000_157c880a83b52d41.txt, and the arithmetic the sheet implies without a table: the
odds of a volley and of a melee fight, how figures pair off in a melee, the actions-table row of
a risk factor and what a cell of it does to a group's status. Lengths are mm."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain, product
from pathlib import Path
from typing import Any

from ... import dice as dice_math
from ... import geometry as geo
from ...answer import Cite, Modifier, Roll, Threshold
from ...answer import fraction_json as odds_json
from ...scene import TerrainKind
from ...sheetdata import load_sheet

SHEET = "000_157c880a83b52d41.txt"
RULESET = "skirmish-19c"
DATA = load_sheet(
    Path(__file__).with_name("sheet.toml"),
    SHEET,
    RULESET,
    names=["melee", "shooting", "command", "movement"],
)
"""The sheet's tables; its texts and refusals may name the tables of `names` (`{melee[die]}`)."""
say = DATA.say


def cm(length: float) -> float:
    """A length the sheet gives in cm, in mm."""
    return length * 10.0


@dataclass(frozen=True, slots=True)
class Weapon:
    """One row of the weapons table (lines 9-16), as `[weapons]` gives it."""

    row: str
    ranges_cm: list[float]
    """Short, medium and long range in cm; none for a weapon that cannot shoot (swords)."""
    melee: int
    gunpowder: bool
    """Line 48: gunpowder weapons use the first damage row."""
    cite: Cite
    bayonet_melee: int | None = None
    """The melee factor with a bayonet, for the rows that say "(3 with Bayonet)"."""
    bands: tuple[tuple[str, float], ...] = field(init=False)
    """(band, reach in mm), short to long; empty for a weapon that cannot shoot."""
    reach: float = field(init=False)
    """Its long range (mm); minus infinity for a weapon that cannot shoot."""

    def __post_init__(self) -> None:
        bands = tuple(zip(("short", "medium", "long"), map(cm, self.ranges_cm), strict=False))
        object.__setattr__(self, "bands", bands)
        object.__setattr__(self, "reach", bands[-1][1] if bands else -math.inf)


WEAPONS = {name: Weapon(**row) for name, row in DATA["weapons"].items()}
TO_HIT, DAMAGE, SHOOTING, SIGHT = DATA["to_hit"], DATA["damage"], DATA["shooting"], DATA["sight"]
COMMAND, MOVEMENT, MELEE, RISK = DATA["command"], DATA["movement"], DATA["melee"], DATA["risk"]
ACTIVATION = {q: (a["dice"], a["cite"]) for q, a in DATA["activation"].items()}
DIFFICULT_KINDS = frozenset(TerrainKind(k) for k in MOVEMENT["difficult_kinds"])
BARRIER_KINDS = frozenset(TerrainKind(k) for k in MOVEMENT["barrier_kinds"])
CAVALRY_PACES = tuple(
    (p["pace"], cm(p["from_cm"]), cm(p["to_cm"]), p["cite"]) for p in MOVEMENT["paces"]
)


ACTIONS_TABLE = {
    kind: {
        label: (
            row["cite"],
            tuple(
                # A cell ending in '(Charge?)': the group may charge the nearest enemy in reach.
                {"face": face, "text": c["text"], "italic": c["italic"]}
                | {"charge": "(Charge?)" in c["text"], "probability": "1/6"}
                | {"source": str(row["cite"]), "note": c.get("note", "")}
                for face, c in enumerate(row["cells"], start=1)
            ),
        )
        for label, row in rows.items()
    }
    for kind, rows in DATA["actions"].items()
}
"""The actions tables (lines 150-154, 193-197): each row's line, and its six cells as answers
show them, by face of the D6. A cell printed in italics (`italic`): commanded troops and PCs
ignore it when it is about shooting or movement (lines 141, 182)."""
ROW_LABELS = tuple(DATA["actions"]["infantry"])
"""The rows of the actions tables, from 'Up to RF0' to RF9+."""


def row_label(risk_factor: int) -> str:
    """The actions-table row for a risk factor (`[risk] row_tops`)."""
    tops = RISK["row_tops"].items()
    return next((label for label, top in tops if risk_factor <= top), ROW_LABELS[-1])


def status_after(
    cell: Mapping[str, Any], row: str, status: str, commanded: bool
) -> tuple[str, str]:
    """A group's status after the actions table gave it `cell` on `row`, and why: running after
    "Run from ..." or "Flee ...", falling back after a withdrawal or a move to cover, steady
    after a halt or an advance; a commanded group or PC ignores the movement of a cell in
    italics (lines 141, 182); "Continue current actions" keeps what the group was doing, but a
    group falling back halts on a 5 or 6 of the RF0 row (lines 150, 193), and a retreat after
    melee (a single move back, line 80) is over."""
    if cell["italic"] and commanded:
        why = "in italics: commanded troops and player characters ignore it"
        return ("steady" if status == "retreating" else status), why
    for start, after in RISK["status_after"]:
        if cell["text"].startswith(start):
            return after, cell["text"]
    if row == "RF0" and cell["face"] >= 5 and status == "falling-back":
        return "steady", "units falling back halt facing the last known enemy position"
    return ("steady" if status == "retreating" else status), cell["text"]


# --------------------------------------------------------------------------------------------
# Shooting


def band_of(weapon: Weapon, distance: float) -> str:
    """The range band a distance (mm) falls in, `out-of-range` beyond long."""
    return next((b for b, reach in weapon.bands if geo.within(distance, reach)), "out-of-range")


def band_threshold(weapon: Weapon, distance: float, uncertainty: float) -> Threshold:
    """The distance against the band edge nearest to it."""
    nearest = min((reach for _, reach in weapon.bands), key=lambda reach: abs(reach - distance))
    return Threshold(distance, nearest, uncertainty)


def spotting_need(distance: float) -> int:
    """The lowest D6 face whose 10 cm a face reach `distance` (mm): line 61's D6 x 10 cm."""
    step = cm(SIGHT["spotting_step_cm"])
    return next((k for k in range(1, 7) if geo.within(distance, k * step)), 7)


def damage_roll(gunpowder: bool, quality: str) -> tuple[Roll, dict[str, Fraction]]:
    """The D6 a hit throws on the damage row of `gunpowder` weapons or not, one better for a
    hero, one worse for raw shooters (lines 45-49), and the chance of each result: the face
    plus the modifier, read within 1-6."""
    mods = tuple(Modifier(**SHOOTING[q]) for q in ("hero", "raw") if q == quality)
    row = DAMAGE["gunpowder" if gunpowder else "other"]
    shift = int(sum(m.value for m in mods))
    read = [row["faces"][min(6, max(1, face + shift)) - 1] for face in range(1, 7)]
    odds = {result: Fraction(read.count(result), 6) for result in ("graze", "wound", "kill")}
    faces = ", ".join(f"{f} {r}" for f, r in enumerate(row["faces"], 1))
    return Roll("damage", 1, 6, None, (), mods, row["cite"], f"one D6 a hit: {faces}"), odds


DAMAGE_ROLLS = {
    (gunpowder, quality): damage_roll(gunpowder, quality)
    for gunpowder in (True, False)
    for quality in DATA.field["quality"].choices
}
"""`damage_roll` of every weapon kind and quality, read off the table when a volley is shot."""


def count_json(shown: dice_math.Shown) -> dict[str, Any]:
    """The distribution of a count (hits, kills, command points) and its mean, as `rules.dice`
    remembers them shown."""
    distribution = [
        {"exact": e, "value": v} for e, v in zip(shown.exact, shown.floats, strict=True)
    ]
    return {"distribution": distribution, "mean": odds_json(shown.mean)}


def volley(
    shooters: int, need: int, band: str, column: str, gunpowder: bool, quality: str
) -> tuple[dict[str, Any], Callable[[], list[str]]]:
    """One volley as a shot answer shows it: `shooters` D8s needing `need`+ at `band` range
    against `column` cover (lines 40-43), each hit a D6 on the damage row of `gunpowder`
    weapons or not, one better for a hero, one worse for raw shooters (lines 45-49); the
    answer's rolls and the odds of hits, kills and wounds, and what writes its readable lines
    (asked only when the answer is shown in full)."""
    note = f"{band} range, {column}"
    to_hit = Roll.success_roll("to hit", shooters, 8, need, cite=TO_HIT[band]["cite"], note=note)
    damage, per_hit = DAMAGE_ROLLS[gunpowder, quality]
    shift = int(sum(m.value for m in damage.modifiers))
    hit = dice_math.p_at_least(8, need)
    # a shooter's chance of a hit, a kill, a wound
    each = {"hits": hit, "kills": hit * per_hit["kill"], "wounds": hit * per_hit["wound"]}
    counts = {k: dice_math.binomial_shown(shooters, p) for k, p in each.items()}
    row = "gunpowder weapons" if gunpowder else "other"
    per = {k: odds_json(v) for k, v in per_hit.items()}
    data: dict[str, Any] = {"rolls": [to_hit.as_json(), damage.as_json()]}
    data.update((k, count_json(shown)) for k, shown in counts.items())
    data["damage"] = {"row": row, "modifier": shift, "per_hit": per}

    def lines() -> list[str]:
        sign = f" ({shift:+d})" if shift else ""
        read = ", ".join(f"{k} {v}" for k, v in per_hit.items())
        means = ", ".join(f"{k} {float(shown.mean):.2f}" for k, shown in counts.items())
        return [
            f"- {to_hit.describe()}; P(at least 1 hit) = {counts['hits'].p_at_least(1)}",
            f"- damage, one D6 a hit{sign} [{damage.cite}]: {read}",
            f"- expected {means}",
        ]

    return data, lines


# --------------------------------------------------------------------------------------------
# Melee


def melee_odds(mod_a: int, mod_b: int) -> dict[str, Fraction]:
    """One fight: each throws a D6 plus modifiers; the better score wins; the winner wounds on
    a natural 5 and kills on a natural 6 (line 78). Chances out of the 36 throws."""
    ways = dict.fromkeys(("a_wins", "a_wounds", "a_kills", "b_wins", "b_wounds", "b_kills"), 0)
    ways["draw"] = 0
    for x, y in product(range(1, 7), repeat=2):
        side, natural = ("a", x) if x + mod_a > y + mod_b else ("b", y)
        if x + mod_a == y + mod_b:
            ways["draw"] += 1
        else:
            ways[f"{side}_wins"] += 1
            ways[f"{side}_wounds"] += natural == 5
            ways[f"{side}_kills"] += natural == 6
    return {k: Fraction(n, 36) for k, n in ways.items()}


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
    load = Counter(chain.from_iterable(pairs))  # the fights of each figure so far
    for mine, theirs, flip in ((attackers, defenders, False), (defenders, attackers, True)):
        for f in mine:  # the figures left over, attackers first
            near = [o for o in theirs if ((o, f) if flip else (f, o)) in touching]
            if f not in load and near:
                o = min(near, key=lambda k: (load[k], theirs.index(k)))
                pairs.append((o, f) if flip else (f, o))
                load.update((f, o))
    return sorted(pairs, key=lambda p: (attackers.index(p[0]), defenders.index(p[1])))
