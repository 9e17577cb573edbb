"""The page's square grid: which boxes are next to each other, the boxes a move reaches (lines
26-31), facings (lines 24-25) and where a drifting rocket lands (line 21). Boxes are counted
between with a diagonal step as 1.5 (line 18: `geometry.grid_steps`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...errors import accepted
from ...measure import Box, GridPlace
from ...scene import Scene
from .sheet import DATA, fail

DIRECTIONS: dict[str, Any] = DATA["directions"]
"""The 8 directions of the grid, each a facing in degrees and the step to the next box."""
STEP = {name: (d["step"][0], d["step"][1]) for name, d in DIRECTIONS.items()}
STRAIGHT = tuple(STEP[name] for name in ("east", "north", "west", "south"))
DIAGONAL = tuple(STEP[name] for name in ("north-east", "north-west", "south-west", "south-east"))
STEPS = {"straight": STRAIGHT, "diagonal": DIAGONAL, "any": STRAIGHT + DIAGONAL}
"""The one-box steps a move is made of (lines 26-31)."""


def box_verdict(a: GridPlace, b: GridPlace, judge: Callable[[Box, Box], object]) -> bool:
    """True when `judge` gives the same answer for every box each unit might be in."""
    return len({judge(x, y) for x in a.boxes for y in b.boxes}) == 1


def boxes_on_table(scene: Scene, size: float) -> tuple[int, int]:
    """Columns and rows of boxes wholly on the table."""
    return math.floor(scene.table_width / size + 1e-9), math.floor(scene.table_depth / size + 1e-9)


def on_table(box: Box, extent: tuple[int, int]) -> bool:
    return 0 <= box[0] < extent[0] and 0 <= box[1] < extent[1]


def drift_landings(start: Box, extent: tuple[int, int]) -> list[Box | None]:
    """Where each of the 48 equally likely drifts (1d8 directions x 1d6 boxes, line 21) lands,
    in the order of the dice; None when off the table."""
    boxes = DATA["rolls"]["drift_distance"]["sides"]
    x, y = start
    landings = [(x + k * dx, y + k * dy) for dx, dy in STEP.values() for k in range(1, boxes + 1)]
    return [box if on_table(box, extent) else None for box in landings]


def reachable(kind: str, start: Box, extent: tuple[int, int]) -> list[tuple[Box, Any, Box]]:
    """Every box a unit of `kind` may end its move in: (box, the first of the sheet's moves
    reaching it, the step into its first box). Steps off the table are not taken."""
    found: dict[Box, tuple[Any, Box]] = {}

    def walk(move: Any, at: Box, steps: list[str], first: Box | None) -> None:
        if not steps:
            if at != start and at not in found and first is not None:
                found[at] = (move, first)
            return
        for step in STEPS[steps[0]]:
            if move.get("same_line") and first is not None and step != first:
                continue
            nxt = (at[0] + step[0], at[1] + step[1])
            if on_table(nxt, extent):
                walk(move, nxt, steps[1:], first or step)

    for move in DATA["moves"][kind]:
        walk(move, start, move["steps"], None)
    return [(box, move, first) for box, (move, first) in sorted(found.items())]


def facing_name(degrees: float) -> tuple[str, float]:
    """The nearest of the 8 grid directions to a facing, and how many degrees off it is."""
    off = {name: abs(degrees - d["degrees"]) % 360.0 for name, d in DIRECTIONS.items()}
    off = {name: min(d, 360.0 - d) for name, d in off.items()}
    nearest = min(off, key=off.__getitem__)
    return nearest, off[nearest]


def parse_facing(text: str) -> str:
    """A facing asked for: a direction's name or degrees that are a multiple of 45."""
    word = text.strip().lower()
    if word in DIRECTIONS:
        return word
    try:
        nearest, off = facing_name(float(word))
    except ValueError:
        nearest, off = "", math.nan
    if off < 1e-6:
        return nearest
    raise fail(
        f"facing {text!r} is not a side or a corner of a box; give one of "
        f"{accepted(DIRECTIONS)} or degrees (0 = east, 90 = north, the far edge)"
    )
