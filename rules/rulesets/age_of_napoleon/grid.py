"""The square grid of the page: boxes counted with a diagonal step as 1.5 (line 18), the boxes a
move reaches (lines 26-31), facings (lines 24-25) and where a drifting rocket lands (line 21)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...answer import length_json
from ...errors import accepted
from ...geometry import grid_steps
from ...measure import Box, GridPlace
from ...scene import Scene
from .sheet import DATA, N, fail, grid_box_of

DIRECTIONS: dict[str, Any] = DATA["directions"]
"""The 8 directions of the grid, each a facing in degrees and the step to the next box."""
SIDES = ("east", "north", "west", "south")
CORNERS = ("north-east", "north-west", "south-west", "south-east")
STEPS: dict[str, tuple[Box, ...]] = {
    "straight": tuple((DIRECTIONS[s]["step"][0], DIRECTIONS[s]["step"][1]) for s in SIDES),
    "diagonal": tuple((DIRECTIONS[c]["step"][0], DIRECTIONS[c]["step"][1]) for c in CORNERS),
}
"""The one-box steps of a move (lines 26-31): `straight`, `diagonal` or `any`."""
STEPS["any"] = STEPS["straight"] + STEPS["diagonal"]
DRIFTS = tuple((d["step"][0], d["step"][1]) for d in DIRECTIONS.values())
"""The step of each of the 8 directions a rocket drifts in, in the order of the 1d8."""


def side_adjacent(a: Box, b: Box) -> bool:
    """The same box or two boxes sharing a side."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) <= 1


def box_verdict(a: GridPlace, b: GridPlace, judge: Callable[[Box, Box], object]) -> bool:
    """True when `judge` gives the same answer for every box each unit might be in."""
    if len(a.boxes) == len(b.boxes) == 1:
        return True
    return len({judge(x, y) for x in a.boxes for y in b.boxes}) == 1


def nearest_steps(a: GridPlace, b: GridPlace) -> float:
    """The fewest boxes between any box each unit might be in."""
    return min(grid_steps(x, y) for x in a.boxes for y in b.boxes)


def boxes_on_table(scene: Scene) -> tuple[int, int]:
    """Columns and rows of boxes wholly on the table."""
    size = grid_box_of(scene)
    return (
        math.floor(scene.table_width / size + 1e-9),
        math.floor(scene.table_depth / size + 1e-9),
    )


def on_table(box: Box, extent: tuple[int, int]) -> bool:
    return 0 <= box[0] < extent[0] and 0 <= box[1] < extent[1]


def drift_landings(start: Box, extent: tuple[int, int]) -> list[Box | None]:
    """Where each of the 48 equally likely drifts (8 directions x 1-6 boxes, line 21) lands;
    None when off the table."""
    (x, y), (columns, rows) = start, extent
    boxes = [(x + k * dx, y + k * dy) for dx, dy in DRIFTS for k in range(1, N.drift_boxes + 1)]
    return [(c, r) if 0 <= c < columns and 0 <= r < rows else None for c, r in boxes]


def box_centre_json(scene: Scene, box: Box) -> dict[str, Any]:
    size = grid_box_of(scene)
    return {
        "x": length_json(scene, (box[0] + 0.5) * size)["value"],
        "y": length_json(scene, (box[1] + 0.5) * size)["value"],
        "unit": scene.unit,
    }


def reachable(scene: Scene, kind: str, start: Box) -> list[tuple[Box, dict[str, Any], Box]]:
    """Every box a unit of `kind` may end its move in: (box, the first pattern of the sheet's
    moves reaching it, the step of its first box). Steps off the table are not taken."""
    extent = boxes_on_table(scene)
    found: dict[Box, tuple[dict[str, Any], Box]] = {}

    def walk(pattern: dict[str, Any], at: Box, left: list[str], first: Box | None) -> None:
        if not left:
            if at != start and at not in found and first is not None:
                found[at] = (pattern, first)
            return
        for step in STEPS[left[0]]:
            if pattern.get("same_line") and first is not None and step != first:
                continue
            nxt = (at[0] + step[0], at[1] + step[1])
            if on_table(nxt, extent):
                walk(pattern, nxt, left[1:], first or step)

    for pattern in DATA["moves"][kind]:
        walk(pattern, start, pattern["steps"], None)
    return [(box, p, first) for box, (p, first) in sorted(found.items())]


def facing_name(degrees: float) -> tuple[str, float]:
    """The nearest of the 8 grid directions to a facing, and how many degrees off it is."""
    gaps = {name: _angle_gap(degrees, d["degrees"]) for name, d in DIRECTIONS.items()}
    best = min(gaps, key=gaps.__getitem__)
    return best, gaps[best]


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
    raise fail(
        f"facing {text!r} is not a side or a corner of a box; give one of "
        f"{accepted(DIRECTIONS)} or degrees (0 = east, 90 = north, the far edge)"
    )
