"""A game laid out on the synthetic table: the renderer's spec for a game file and a scene.

This is `build_scene` run backwards: from where the scene says each base stands (and which way it
faces) to where its tag must lie, so the demo and the tests photograph a table whose true scene
is known. Never imports flask, webui or pupil_apriltags.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

import numpy as np

from calibration.units import to_mm
from rules.errors import UmpireError
from rules.scene import TerrainKind

from .game import Game, TerrainSpec
from .render import BaseSpec, TableSpec, TagSpec
from .render import TerrainSpec as RenderedTerrain

TERRAIN_COLOURS: Final[Mapping[TerrainKind, tuple[int, int, int]]] = {
    TerrainKind.WOODS: (40, 80, 40),
    TerrainKind.TOWN: (90, 100, 120),
    TerrainKind.BUILDING: (70, 90, 140),
    TerrainKind.HILL: (70, 120, 150),
    TerrainKind.ROUGH: (80, 110, 120),
    TerrainKind.STREAM: (160, 110, 60),
    TerrainKind.RIVER: (150, 100, 50),
    TerrainKind.ROAD: (140, 170, 190),
    TerrainKind.BRIDGE: (110, 130, 150),
    TerrainKind.HEDGE: (30, 90, 50),
    TerrainKind.WALL: (150, 150, 150),
    TerrainKind.FENCE: (60, 100, 140),
    TerrainKind.FORTIFICATION: (100, 110, 110),
    TerrainKind.OPEN: (60, 120, 80),
}
"""BGR colours of terrain kinds on the synthetic mat."""


class LayoutError(UmpireError):
    """A scene that does not fit the game it is laid out with."""


def _rotate(points: np.ndarray, degrees: float) -> np.ndarray:
    t = math.radians(degrees)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return np.asarray(points @ rot.T)


def _card_pose(card: TerrainSpec, table_polygon: np.ndarray) -> tuple[float, float, float]:
    """Where a terrain card's tag lies (x, y, facing of its top edge) for its polygon to land on
    `table_polygon` (a rigid fit of the card's own polygon onto it)."""
    local = np.asarray(card.polygon, dtype=float)
    if local.shape != table_polygon.shape:
        raise LayoutError(
            f"terrain {card.id!r}: the scene's polygon has {len(table_polygon)} points, the "
            f"card's {len(local)}"
        )
    lc, tc = local.mean(axis=0), table_polygon.mean(axis=0)
    a, b = local - lc, table_polygon - tc
    angle = math.atan2(float(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])), float(np.sum(a * b)))
    centre = tc - _rotate(lc[None], math.degrees(angle))[0]
    # The card's +y (its tag's top) is at 90 degrees when the card is not turned.
    return float(centre[0]), float(centre[1]), (90.0 + math.degrees(angle)) % 360.0


def table_spec(
    game: Game, scene: Mapping[str, Any], *, mat_seed: int = 0, mat_squares_mm: float = 0.0
) -> TableSpec:
    """The renderer's table for a game whose pieces stand where `scene` (an `umpire-scene/1`
    document in any unit) puts them. Bases not in the scene are left off the table. A
    `mat_squares_mm` above 0 chequers the mat with squares that wide."""
    unit = scene["unit"]
    placed = {b["id"]: b for u in scene.get("units", []) for b in u.get("bases", [])}
    pieces = {t["id"]: t for t in scene.get("terrain", [])}
    tags: list[TagSpec] = []
    cal = game.calibration
    for corner in cal.corners:
        tags.append(
            TagSpec(
                cal.spec.family,
                corner.tag,
                corner.x,
                corner.y,
                90.0,
                cal.spec.size,
                cal.spec.height,
                cal.spec.border_bits,
            )
        )
    for unit_spec in game.units:
        for base in unit_spec.bases:
            if base.id not in placed:
                continue
            doc = placed[base.id]
            x, y = to_mm(doc["x"], unit), to_mm(doc["y"], unit)
            facing = float(doc.get("facing", 0.0))
            fwd = np.array([math.cos(math.radians(facing)), math.sin(math.radians(facing))])
            right = np.array([fwd[1], -fwd[0]])
            tag_xy = np.array([x, y]) - base.offset[0] * right - base.offset[1] * fwd
            fp = base.footprint
            under = (
                BaseSpec(diameter_mm=fp.width)
                if fp.circle
                else BaseSpec(width_mm=fp.width, depth_mm=fp.depth)
            )
            tags.append(
                TagSpec(
                    base.spec.family,
                    base.tag,
                    float(tag_xy[0]),
                    float(tag_xy[1]),
                    (facing - base.facing_offset) % 360.0,
                    base.spec.size,
                    base.spec.height,
                    base.spec.border_bits,
                    under,
                )
            )
    terrain: list[RenderedTerrain] = []
    for card in game.terrain:
        if card.tag is None:
            polygon = tuple((float(px), float(py)) for px, py in card.polygon)
        elif card.id in pieces:
            table_poly = np.array(
                [[to_mm(px, unit), to_mm(py, unit)] for px, py in pieces[card.id]["polygon"]]
            )
            assert card.spec is not None
            cx, cy, rotation = _card_pose(card, table_poly)
            tags.append(
                TagSpec(
                    card.spec.family,
                    card.tag,
                    cx,
                    cy,
                    rotation,
                    card.spec.size,
                    card.spec.height,
                    card.spec.border_bits,
                )
            )
            polygon = tuple((float(px), float(py)) for px, py in table_poly)
        else:
            continue
        terrain.append(RenderedTerrain(polygon, TERRAIN_COLOURS[card.kind]))
    return TableSpec(
        game.table_width,
        game.table_depth,
        tuple(terrain),
        tuple(tags),
        mat_seed=mat_seed,
        mat_squares_mm=mat_squares_mm,
    )
