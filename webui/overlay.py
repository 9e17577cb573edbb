"""The overlays drawn with OpenCV onto a copy of a camera frame where the bases really stand:
every table point goes through the scan's fit (`fit.table_to_image`).

Drawn for every base: its outline and id (side colours; grey when the base is stale, that is,
not seen in this frame) and a facing arrow. That is all the live view's picture carries: it is
the same for every viewer (webui/stream.py), and the page draws each viewer's selection over it.

With `select` (a dispute snapshot, `POST /api/snapshot`, draws the selection into the saved
picture): the selected unit's command radii, its weapon's range bands, a 5 cm proximity halo
(enemy bases inside it ringed) and its flank and rear sectors
(`rules.geometry.front_half_angle`). Which rings a unit has is the map's answer
(`mapsvg.range_bands`, `mapsvg.command_radii`), so the map, the page's live-view layer and the
snapshot draw the same rings.

`draw_overlay(image, scan, scene, select)` is a pure function: the same inputs give the same
picture, the input image is never written. What the rules say (radii, bands) comes from
`selected_overlays`, also pure. Never imports flask.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np
import numpy.typing as npt

from calibration.homography import TableFit
from rules import geometry as geo
from rules.scene import Base, Scene
from vision.pipeline import Scan

from .mapsvg import command_radii, range_bands, side_colours

Array = npt.NDArray[np.float64]
BGR = tuple[int, int, int]

PROXIMITY_MM: Final = 50.0
"""The proximity halo: 5 cm around the selected unit's bases."""
STALE_COLOUR: Final[BGR] = (150, 150, 150)
COMMAND_COLOUR: Final[BGR] = (80, 220, 255)
BAND_COLOURS: Final[tuple[BGR, ...]] = (
    (80, 255, 80),
    (60, 200, 255),
    (60, 120, 255),
    (90, 90, 200),
)
HALO_COLOUR: Final[BGR] = (255, 255, 120)
FLANK_COLOUR: Final[BGR] = (0, 200, 255)
REAR_COLOUR: Final[BGR] = (40, 40, 230)
CLOSE_ENEMY_COLOUR: Final[BGR] = (0, 255, 255)


@dataclass(frozen=True, slots=True)
class Band:
    """One range band of a weapon: its label and how far it reaches (edge to edge, mm)."""

    label: str
    reach_mm: float


@dataclass(frozen=True, slots=True)
class SelectedOverlays:
    """What the rules say about a selected unit or base, for drawing."""

    bases: tuple[Base, ...]
    """The selected bases."""
    commands: tuple[tuple[Base, float], ...] = ()
    """(leader base, command radius in mm) of each leader of the unit (`mapsvg.command_radii`)."""
    bands: tuple[Band, ...] = ()
    """The unit's weapon range bands (`Ruleset.range_bands`; empty when the sheet gives none)."""
    close_enemies: tuple[Base, ...] = ()
    """Enemy bases within `PROXIMITY_MM` of a selected base."""


def side_colour(side: str, sides: Sequence[str]) -> BGR:
    """A side's colour, the same as on the map (`mapsvg.side_colours`), as BGR."""
    fill, _ = side_colours([*sides, side])[side]
    red, green, blue = (int(fill[k : k + 2], 16) for k in (1, 3, 5))
    return (blue, green, red)


def selected_overlays(scene: Scene, select: str) -> SelectedOverlays:
    """The selected unit or base's overlays. An unknown id raises the scene's `UnknownIdError`;
    a question the ruleset cannot answer for it (no leader, no weapon) leaves that part out."""
    bases = scene.select(select)
    unit = scene.unit_of(select)
    commands = tuple(command_radii(scene, unit))
    bands = tuple(Band(b.label, b.reach) for b in range_bands(scene, unit))
    enemy_bases = [b for u in scene.units if u.side != unit.side for b in u.bases]
    close: tuple[Base, ...] = ()
    if enemy_bases:
        gaps = geo.distance_matrix(bases, enemy_bases).min(axis=0)
        close = tuple(b for b, gap in zip(enemy_bases, gaps, strict=True) if gap <= PROXIMITY_MM)
    return SelectedOverlays(bases, commands, bands, close)


# --------------------------------------------------------------------------------- geometry


def _grown(bases: Sequence[Base], reach_mm: float, steps: int = 48) -> Array:
    """The outline of everything within `reach_mm` of the bases: the convex hull of discs on
    every outline vertex. Exact for one base (a convex footprint grown by a disc); for a unit,
    the hull slightly overstates the reach in the gaps of a spread-out line."""
    t = np.linspace(0, 2 * math.pi, steps, endpoint=False)
    disc = np.stack([np.cos(t), np.sin(t)], axis=1) * reach_mm
    points = np.concatenate(
        [(geo.outline_polygon(b)[:, None, :] + disc).reshape(-1, 2) for b in bases]
    )
    hull = cv2.convexHull(points.astype(np.float32)).reshape(-1, 2)
    return np.asarray(hull, dtype=np.float64)


def _on_table(polygon: Array, scene: Scene) -> Array:
    """The part of a polygon over the table (a little beyond its edge): a plane homography
    sends points far off the table to nonsense, so rings are cut at the table's edge."""
    m = 20.0
    table = np.array(
        [
            [-m, -m],
            [scene.table_width + m, -m],
            [scene.table_width + m, scene.table_depth + m],
            [-m, scene.table_depth + m],
        ]
    )
    return np.asarray(geo.clip_to_convex(polygon, table), dtype=np.float64)


def _pixels(fit: TableFit | _Shrunk, points: Array) -> npt.NDArray[np.int32]:
    return np.round(fit.table_to_image(points)).astype(np.int32).reshape(-1, 1, 2)


def _sector(base: Base, start_deg: float, end_deg: float, reach: float) -> Array:
    """A fan from the base's centre between two directions (degrees, CCW from +x)."""
    angles = np.radians(np.linspace(start_deg, end_deg, 16))
    arc = np.stack([base.x + reach * np.cos(angles), base.y + reach * np.sin(angles)], axis=1)
    return np.vstack([[base.x, base.y], arc])


# --------------------------------------------------------------------------------- drawing


class _Shrunk:
    """A fit's `table_to_image` for a picture shrunk by `factor` from the frame it was fitted
    on (the live view's picture may be smaller than the camera's frame)."""

    __slots__ = ("factor", "fit")

    def __init__(self, fit: TableFit, factor: float) -> None:
        self.fit = fit
        self.factor = factor

    def table_to_image(self, points: Array) -> Array:
        return np.asarray(self.fit.table_to_image(points) * self.factor, dtype=np.float64)


def draw_overlay(
    image: npt.NDArray[np.uint8],
    scan: Scan,
    scene: Scene,
    select: str | None = None,
    *,
    shrunk: float = 1.0,
) -> npt.NDArray[np.uint8]:
    """A copy of `image` with the overlays drawn where the bases stand. `select` names a unit
    or base of `scene` (an unknown id raises `UnknownIdError`). `shrunk`: `image` is the
    scanned frame resized by this factor (pixels of `image` per pixel of the frame)."""
    out = np.array(image, dtype=np.uint8, copy=True)
    fit: TableFit | _Shrunk = scan.fit if shrunk == 1.0 else _Shrunk(scan.fit, shrunk)
    scale = max(out.shape[1] / 1600.0, 0.4)
    thick = max(1, round(2 * scale))
    chosen = selected_overlays(scene, select) if select else None
    if chosen is not None:
        _draw_selection(out, fit, scene, chosen, thick)
    sides = [u.side for u in scene.units]
    # Every base's outline, facing arrow and centre go through the fit in one call: a call per
    # point set costs more than the drawing (116 bases at 1080p: 44 ms a picture, now 5-9).
    bases = [b for u in scene.units for b in u.bases]
    outlines, tips, centres = _pixels_of(
        fit,
        [geo.outline_polygon(b) for b in bases],
        [_facing_tip(b) for b in bases],
        [np.array([[b.x, b.y]]) for b in bases],
    )
    # Each unit's labels (which depend on how close its bases stand), through the fit at once.
    per_unit: list[list[tuple[str, float, float]]] = []
    first = 0
    for unit in scene.units:
        mine = [c.reshape(2) for c in centres[first : first + len(unit.bases)]]
        per_unit.append(_labels(unit.id, unit.bases, mine, scale))
        first += len(unit.bases)
    (anchors,) = _pixels_of(fit, [np.array([[x, y - 12.0]]) for u in per_unit for _, x, y in u])
    first = label = 0
    for unit, texts in zip(scene.units, per_unit, strict=True):
        colour = side_colour(unit.side, sides)
        for k, base in enumerate(unit.bases, start=first):
            shade = STALE_COLOUR if base.attrs.get("stale") else colour
            _draw_base(out, outlines[k], tips[k], shade, thick)
        first += len(unit.bases)
        for text, _, _ in texts:
            _draw_label(out, text, anchors[label], colour, scale, thick)
            label += 1
    return out


def _pixels_of(
    fit: TableFit | _Shrunk, *groups: Sequence[Array]
) -> list[list[npt.NDArray[np.int32]]]:
    """`_pixels` of many point sets at once, in one pass through the fit: for each group, the
    pixels of each of its point sets."""
    sets = [points for group in groups for points in group]
    if not sets:
        return [[] for _ in groups]
    joined = np.round(fit.table_to_image(np.concatenate(sets))).astype(np.int32)
    ends = np.cumsum([len(points) for points in sets])[:-1]
    pixels = [part.reshape(-1, 1, 2) for part in np.split(joined, ends)]
    out: list[list[npt.NDArray[np.int32]]] = []
    for group in groups:
        out.append(pixels[: len(group)])
        pixels = pixels[len(group) :]
    return out


def _facing_tip(base: Base) -> Array:
    """The facing arrow, from the centre forward (at least 3 cm long, so it shows)."""
    ahead = geo.forward(base.facing)
    length = max(base.footprint.depth, 30.0)
    return np.array([[base.x, base.y], [base.x + length * ahead[0], base.y + length * ahead[1]]])


def _draw_base(
    out: npt.NDArray[np.uint8],
    outline: npt.NDArray[np.int32],
    tip: npt.NDArray[np.int32],
    colour: BGR,
    thick: int,
) -> None:
    """The base's outline and its facing arrow, in pixels."""
    cv2.polylines(out, [outline], True, colour, thick, cv2.LINE_AA)
    a, b = tip.reshape(2, 2)
    cv2.arrowedLine(
        out, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), colour, thick, cv2.LINE_AA, 0, 0.35
    )


def _labels(
    unit_id: str, bases: Sequence[Base], centres: Sequence[npt.NDArray[np.int32]], scale: float
) -> list[tuple[str, float, float]]:
    """Each base's id under it (text, and the table point 12 mm above which it is centred);
    when the unit's bases stand too close for their ids to be read apart (`centres`: their
    pixels), the unit's id once under the group."""
    font, size = cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale
    if not bases:
        return []
    widest = max(cv2.getTextSize(b.id, font, size, 1)[0][0] for b in bases)
    gaps = [
        float(np.hypot(*(centres[i] - centres[j])))
        for i in range(len(bases))
        for j in range(i + 1, len(bases))
    ]
    if gaps and min(gaps) < widest + 4:
        x = sum(b.x for b in bases) / len(bases)
        below = min(b.y - b.footprint.depth / 2 for b in bases)
        return [(unit_id, x, below)]
    return [(b.id, b.x, b.y - b.footprint.depth / 2) for b in bases]


def _draw_label(
    out: npt.NDArray[np.uint8],
    text: str,
    anchor: npt.NDArray[np.int32],
    colour: BGR,
    scale: float,
    thick: int,
) -> None:
    """A label's text centred under its anchor pixel, black-edged, in its colour."""
    font, size = cv2.FONT_HERSHEY_SIMPLEX, 0.7 * scale
    at = anchor.reshape(2)
    (w, h), _ = cv2.getTextSize(text, font, size, 1)
    org = (int(at[0]) - w // 2, int(at[1]) + h)
    cv2.putText(out, text, org, font, size, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(out, text, org, font, size, colour, max(1, thick - 1), cv2.LINE_AA)


def _blend(out: npt.NDArray[np.uint8], layer: npt.NDArray[np.uint8], alpha: float) -> None:
    """Lay a translucent layer (black = nothing) over `out`, in place."""
    painted = layer.any(axis=2)
    mixed = cv2.addWeighted(out, 1 - alpha, layer, alpha, 0)
    out[painted] = mixed[painted]


def _draw_selection(
    out: npt.NDArray[np.uint8],
    fit: TableFit | _Shrunk,
    scene: Scene,
    chosen: SelectedOverlays,
    thick: int,
) -> None:
    layer = np.zeros_like(out)
    for base in chosen.bases:
        half = geo.front_half_angle(base)
        reach = max(base.footprint.width, base.footprint.depth) / 2 + 60.0
        rear = _sector(base, base.facing + 180 - half, base.facing + 180 + half, reach)
        left = _sector(base, base.facing + half, base.facing + 180 - half, reach)
        right = _sector(base, base.facing - 180 + half, base.facing - half, reach)
        cv2.fillPoly(layer, [_pixels(fit, rear)], REAR_COLOUR, cv2.LINE_AA)
        for flank in (left, right):
            cv2.fillPoly(layer, [_pixels(fit, flank)], FLANK_COLOUR, cv2.LINE_AA)
    _blend(out, layer, 0.35)
    for base in chosen.bases:
        halo = _on_table(_grown([base], PROXIMITY_MM), scene)
        if len(halo) >= 3:
            cv2.polylines(out, [_pixels(fit, halo)], True, HALO_COLOUR, 1, cv2.LINE_AA)
    for enemy in chosen.close_enemies:
        ring = _on_table(_grown([enemy], 10.0), scene)
        cv2.polylines(out, [_pixels(fit, ring)], True, CLOSE_ENEMY_COLOUR, thick + 1, cv2.LINE_AA)
    for i, band in enumerate(chosen.bands):
        ring = _on_table(_grown(chosen.bases, band.reach_mm), scene)
        if len(ring) >= 3:
            colour = BAND_COLOURS[min(i, len(BAND_COLOURS) - 1)]
            cv2.polylines(out, [_pixels(fit, ring)], True, colour, thick, cv2.LINE_AA)
    for leader, radius in chosen.commands:
        ring = _on_table(_grown([leader], radius), scene)
        if len(ring) >= 3:
            cv2.polylines(out, [_pixels(fit, ring)], True, COMMAND_COLOUR, thick + 1, cv2.LINE_AA)
