"""village-brawl: "VILLAGE BRAWL - QUICK REFERENCE" (tests/data/005_village_brawl.txt), in inches.

A sixth sheet added by following rules/rulesets/README.md ("Adding a rule sheet") and nothing
else, to check the guide: the sheet is a made-up page kept with the tests, so the package the
guide asks for is folded into this one module: its README is this docstring, its sheet.toml is
tests/data/village_brawl.toml (its cites name a file in `tests/data/`), and the tests add the
registry line themselves.

Unit attributes read (declared in `DATA.fields`): `dazed` (false; a brawler hit is dazed, line
17, and a dazed brawler moves only 3", line 11). Every unit is one brawler on its own base.

Readings of the sheet:
- Throwing (lines 14-15): the distance is the edge-to-edge distance between the two brawlers;
  "within 12 inches" and "up to 6 inches" include the limit; "beyond 6 inches" is the rest of
  the 12.
- Line 16: a wood gives cover to the brawler standing in it, a hedge or a wall to one close
  behind it (the engine's 3 cm); other terrain gives none. Cover of any kind is the one -1.
- "That he can see" (line 14): woods, towns, buildings and hills between them block the line
  of sight (the engine's default); other brawlers do not.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rules.answer import (
    Cite,
    Modifier,
    Resolution,
    Roll,
    Threshold,
    length_json,
    reason_json,
    threshold_json,
)
from rules.engine import Action, Candidate, Ruleset
from rules.measure import table_of
from rules.scene import Cover, Scene, TerrainKind, Unit
from rules.sheetdata import load_sheet

SHEET, ID = "005_village_brawl.txt", "village-brawl"
DATA = load_sheet(Path(__file__).parent / "data" / "village_brawl.toml", SHEET, ID, names=["cites"])
CITE = DATA["cites"]
INCH = 25.4


def _length(row: dict[str, Any]) -> tuple[float, Cite]:
    """A length of the sheet in mm, with its line."""
    return row["inches"] * INCH, row["cite"]


MOVE, DAZED_MOVE, THROW_REACH = (_length(DATA[k]) for k in ("move", "dazed_move", "throw_reach"))
THROW_NEEDS = tuple((r["up_to_inches"] * INCH, r["need"], r["cite"]) for r in DATA["throw_needs"])
COVER = Modifier(DATA["cover"]["dice"], DATA["cover"]["reason"], DATA["cover"]["cite"])
say = DATA.say


class VillageBrawl(Ruleset):
    data = DATA
    title = "VILLAGE BRAWL - QUICK REFERENCE"
    unit = "in"
    cover_policy = replace(
        Ruleset.cover_policy,
        cover=(
            (TerrainKind.HEDGE, Cover.SOFT),
            (TerrainKind.WALL, Cover.HARD),
            (TerrainKind.WOODS, Cover.SOFT),
        ),
        obstacles=frozenset({TerrainKind.HEDGE, TerrainKind.WALL}),
    )
    left_off_when_refused = frozenset({"throw"})  # suggest lists only throws that may be made

    def actions(self) -> dict[str, Action]:
        return {
            **super().actions(),
            "move": self.move,
            "throw": self.throw,
            "suggest": self.suggest,
        }

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move BRAWLER`: how far the brawler moves this turn (lines 10-11)."""
        (ident,) = args
        unit = scene.unit_of(ident)
        reach, cite = DAZED_MOVE if unit.get("dazed") else MOVE
        data = {
            "unit": unit.id,
            "allowance": length_json(scene, reach),
            "source": str(cite),
        }
        line = say("moves", unit=unit.id, reach=scene.show(reach), cite=cite)
        return self.answer("move", data, [line])

    def throw(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`throw THROWER TARGET`: in reach and in sight, the need on 1D6 and the odds."""
        a, b = args
        thrower, target = scene.unit_of(a), scene.unit_of(b)
        table = table_of(scene)
        near = table.gap(thrower.bases, target.bases)
        reach = Threshold(near.distance, THROW_REACH[0], near.uncertainty)
        (seen,) = table.seen_pairs(self.sight_policy, [(near.a, near.b)])
        cover = table.cover(self.cover_policy, near.a, near.b)
        refused = {
            "not_an_enemy": thrower.side == target.side,
            "out_of_reach": not reach.within,
            "out_of_sight": not seen,
        }
        reasons = [
            reason_json(say(why, a=a, b=b), THROW_REACH[1]) for why, no in refused.items() if no
        ]
        data: dict[str, Any] = {
            "thrower": a,
            "target": b,
            "distance": length_json(scene, near.distance),
            "reach": threshold_json(scene, reach),
            "in_sight": seen,
            "cover": cover.cover.value,
            "allowed": not reasons,
            "reasons": reasons,
            "rolls": [],
        }
        if reasons:
            line = say("may_not_throw", a=a, b=b, reasons="; ".join(r["reason"] for r in reasons))
            return self.answer("throw", data, [line])
        need, cite = next((n, c) for limit, n, c in THROW_NEEDS if _within(near.distance, limit))
        modifiers = (COVER,) if cover.cover is not Cover.NONE else ()
        roll = Roll.success_roll(
            "to hit", 1, 6, need - sum(int(m.value) for m in modifiers), modifiers, cite
        )
        data["rolls"] = [roll.as_json()]
        lines = (say("throws", a=a, b=b, roll=roll.describe()), say("dazes"))
        return self.answer("throw", data, lines)

    def candidates(self, scene: Scene, phase: str) -> Iterable[Candidate]:
        units: Sequence[Unit] = scene.units
        if phase == "move":
            for unit in units:
                yield Candidate("move", (unit.id,))
        elif phase == "throw":
            for a in units:
                for b in units:
                    if a.side != b.side:
                        yield Candidate("throw", (a.id, b.id))


def _within(length: float, limit: float) -> bool:
    return Threshold(length, limit, 0.0).within
