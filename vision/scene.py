"""From tags seen on the table to a scene: `build_scene(game, observations)`.

The observations are already in the table frame (millimetres): detection and calibration have
done their work. Here each base's tag becomes a base (position, facing and footprint per
docs/formats.md), each terrain card's tag a polygon, and the result an `umpire-scene/1` document in
the game's unit that `rules.engine.read_scene` reads. What could not be used is reported under
the extra top-level key `detection`, never silently dropped: unknown tags, duplicate tags, bases
and terrain cards not seen, and pieces whose tag lies off the table.

Never imports cv2, pupil_apriltags, flask or webui.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from calibration.units import from_mm
from rules.errors import UmpireError, UnknownIdError
from rules.scene import SCENE_FORMAT, Point

from .game import BaseSpec, Game, TerrainSpec, UnitSpec, pattern_family

Array = npt.NDArray[np.float64]


class ObservationError(UmpireError):
    """A tag observation that cannot describe a tag (wrong shape, NaN, negative uncertainty)."""


@dataclass(frozen=True, slots=True)
class TagObservation:
    """One tag seen on the table, already mapped to the table frame."""

    family: str
    """AprilTag family or ArUco dictionary name, as in the game file."""
    tag_id: int
    corners_mm: Array
    """(4, 2) read-only, table frame, mm, in OpenCV's order: the marker picture's top-left,
    top-right, bottom-right, bottom-left."""
    uncertainty_mm: float
    """One-sigma uncertainty of the tag's centre, mm."""

    def __post_init__(self) -> None:
        if isinstance(self.tag_id, bool) or not isinstance(self.tag_id, int) or self.tag_id < 0:
            raise ObservationError(
                f"tag id must be a whole number at least 0, got {self.tag_id!r} ({self.family})"
            )
        try:
            corners = np.array(self.corners_mm, dtype=np.float64)  # a copy nobody else alters
        except (TypeError, ValueError):
            corners = np.empty(0)
        if corners.shape != (4, 2):
            raise ObservationError(
                f"tag {self.tag_id} of {self.family}: corners_mm must be 4 points (x, y), "
                f"shape (4, 2), got shape {corners.shape}"
            )
        if not np.isfinite(corners).all():
            raise ObservationError(f"tag {self.tag_id} of {self.family}: corners_mm has NaN or inf")
        if not math.isfinite(self.uncertainty_mm) or self.uncertainty_mm < 0:
            raise ObservationError(
                f"tag {self.tag_id} of {self.family}: uncertainty_mm must be a finite number "
                f"at least 0, got {self.uncertainty_mm!r}"
            )
        corners.setflags(write=False)
        object.__setattr__(self, "corners_mm", corners)

    @property
    def centre(self) -> Point:
        """The tag's centre: the mean of its corners, mm."""
        c = self.corners_mm
        return (
            float((c[0, 0] + c[1, 0] + c[2, 0] + c[3, 0]) / 4.0),
            float((c[0, 1] + c[1, 1] + c[2, 1] + c[3, 1]) / 4.0),
        )

    @property
    def top_direction(self) -> float:
        """Degrees CCW from +x of the way the tag's top edge points: from the centre towards the
        midpoint of corners 0-1 (docs/formats.md), in [0, 360)."""
        c = self.corners_mm
        cx, cy = self.centre
        dx = float((c[0, 0] + c[1, 0]) / 2.0) - cx
        dy = float((c[0, 1] + c[1, 1]) / 2.0) - cy
        return math.degrees(math.atan2(dy, dx)) % 360.0


_TagKey = tuple[str, int]


def _key(family: str, tag_id: int) -> _TagKey:
    # Families that print identical markers are one family here (game.pattern_family).
    return (pattern_family(family), tag_id)


def base_pose(base: BaseSpec, seen: TagObservation) -> tuple[Point, float]:
    """Footprint centre (mm) and facing (degrees) of a base whose tag was seen.

    The facing is the tag's top direction plus the base's `facing_offset`. The offset is in the
    base's own frame (x to its right, y ahead along that facing), so it turns with the base:
    centre = tag centre + dx * right + dy * forward, with forward = (cos f, sin f) and
    right = (sin f, -cos f) as in rules/geometry.py.
    """
    facing = (seen.top_direction + base.facing_offset) % 360.0
    t = math.radians(facing)
    dx, dy = base.offset
    cx, cy = seen.centre
    x = cx + dx * math.sin(t) + dy * math.cos(t)
    y = cy - dx * math.cos(t) + dy * math.sin(t)
    return (x, y), facing


def card_polygon(card: TerrainSpec, seen: TagObservation) -> list[Point]:
    """A terrain card's polygon in the table frame (mm): its points are in the tag's frame
    (x = the tag's right, y = the tag's top), so each is turned with the tag and moved to its
    centre."""
    t = math.radians(seen.top_direction)
    up = (math.cos(t), math.sin(t))
    right = (math.sin(t), -math.cos(t))
    cx, cy = seen.centre
    return [
        (cx + px * right[0] + py * up[0], cy + px * right[1] + py * up[1])
        for px, py in card.polygon
    ]


def build_scene(
    game: Game,
    observations: Iterable[TagObservation],
    *,
    uncertainty: float = 0.0,
    state: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """An `umpire-scene/1` document (in the game's unit) of what the tags show.

    `uncertainty` is a one-sigma position uncertainty in mm common to every measured position
    (the calibration residual, say); it is added in quadrature to each tag's own. `state` maps a
    unit id to attributes the camera cannot see (`casualties`, `shock`, ...), written over the
    game file's.
    """
    if not math.isfinite(uncertainty) or uncertainty < 0:
        raise ObservationError(
            f"uncertainty must be a finite number of mm at least 0, got {uncertainty!r}"
        )
    state = state or {}
    unit_ids = [u.id for u in game.units]
    for ident, attrs in state.items():
        if ident not in unit_ids:
            raise UnknownIdError(ident, unit_ids, "unit (in the state)")
        for key in attrs:
            if key in _STATE_FORBIDDEN:
                raise ObservationError(
                    f"state of unit {ident!r}: {key!r} comes from the game file and cannot be "
                    "changed by the state"
                )

    builder = _Builder(game, list(observations), uncertainty)
    units = [u for u in (builder.unit(spec, state.get(spec.id, {})) for spec in game.units) if u]
    terrain = [t for t in (builder.terrain(card) for card in game.terrain) if t]
    doc: dict[str, Any] = {
        "format": SCENE_FORMAT,
        "ruleset": game.ruleset,
        "unit": game.unit,
        "table": {"width": builder.show(game.table_width), "depth": builder.show(game.table_depth)},
    }
    if game.grid_box is not None:
        doc["grid"] = {"box": builder.show(game.grid_box)}
    doc.update(game.scene_extra)
    doc["terrain"] = terrain
    doc["units"] = units
    doc["detection"] = builder.report()
    return doc


_STATE_FORBIDDEN: Final = ("id", "side", "bases")


class _Builder:
    """The tags sorted out once, then each piece of the game looked up among them."""

    def __init__(self, game: Game, observations: Sequence[TagObservation], uncertainty: float):
        self.game = game
        self.uncertainty = uncertainty
        self.tags_seen = len(observations)
        by_key: dict[_TagKey, list[TagObservation]] = defaultdict(list)
        for seen in observations:
            by_key[_key(seen.family, seen.tag_id)].append(seen)
        expected = self._expected()
        self.single = {k: v[0] for k, v in by_key.items() if len(v) == 1}
        self.duplicates = [
            {
                "family": group[0].family,
                "id": group[0].tag_id,
                "tag_of": expected.get(key, "unknown"),
                "seen_at": [self.point(seen.centre) for seen in group],
            }
            for key, group in by_key.items()
            if len(group) > 1
        ]
        self.duplicated = {k for k, v in by_key.items() if len(v) > 1}
        self.unknown = [
            {"family": seen.family, "id": seen.tag_id, "seen_at": self.point(seen.centre)}
            for key, group in by_key.items()
            if key not in expected
            for seen in group
        ]
        self.corners_seen = sorted(
            c.tag
            for c in game.calibration.corners
            if _key(game.calibration.spec.family, c.tag) in self.single
        )
        self.missing_bases: list[dict[str, Any]] = []
        self.missing_units: list[str] = []
        self.missing_terrain: list[dict[str, Any]] = []
        self.off_table: list[dict[str, Any]] = []

    def _expected(self) -> dict[_TagKey, str]:
        """Every tag of the game and what it is on, for the report."""
        game = self.game
        cal = game.calibration.spec.family
        out = {_key(cal, c.tag): f"corner {c.tag}" for c in game.calibration.corners}
        for unit in game.units:
            out.update({_key(b.spec.family, b.tag): f"base {b.id}" for b in unit.bases})
        for card in game.terrain:
            if card.tag is not None and card.spec is not None:
                out[_key(card.spec.family, card.tag)] = f"terrain {card.id}"
        return out

    def show(self, length_mm: float) -> float:
        return from_mm(length_mm, self.game.unit)

    def point(self, p: Point) -> list[float]:
        return [self.show(p[0]), self.show(p[1])]

    def find(self, family: str, tag: int) -> tuple[TagObservation | None, str]:
        """The one observation of a tag, or None and why not."""
        key = _key(family, tag)
        if key in self.duplicated:
            return None, "duplicate tag"
        seen = self.single.get(key)
        return seen, ("" if seen else "not seen")

    def on_table(self, p: Point) -> bool:
        return 0.0 <= p[0] <= self.game.table_width and 0.0 <= p[1] <= self.game.table_depth

    def unit(self, spec: UnitSpec, state: Mapping[str, Any]) -> dict[str, Any] | None:
        """The scene's unit with the bases seen on the table, or None when none was."""
        bases = [b for b in (self.base(spec.id, base) for base in spec.bases) if b]
        if not bases:
            self.missing_units.append(spec.id)
            return None
        return {**dict(spec.attrs), **dict(state), "id": spec.id, "side": spec.side, "bases": bases}

    def base(self, unit_id: str, spec: BaseSpec) -> dict[str, Any] | None:
        seen, why = self.find(spec.spec.family, spec.tag)
        if seen is None:
            self.missing_bases.append(
                {"unit": unit_id, "base": spec.id, "tag": spec.tag, "reason": why}
            )
            return None
        (x, y), facing = base_pose(spec, seen)
        if not self.on_table((x, y)):
            self.off_table.append({"base": spec.id, "tag": spec.tag, "at": self.point((x, y))})
            self.missing_bases.append(
                {"unit": unit_id, "base": spec.id, "tag": spec.tag, "reason": "off the table"}
            )
            return None
        doc: dict[str, Any] = {**dict(spec.attrs), "id": spec.id, "x": self.show(x)}
        doc.update(y=self.show(y), facing=facing)
        if spec.footprint.circle:
            doc["diameter"] = self.show(spec.footprint.width)
        else:
            doc.update(width=self.show(spec.footprint.width), depth=self.show(spec.footprint.depth))
        doc["figures"] = spec.figures
        if spec.role is not None:
            doc["role"] = spec.role
        doc["uncertainty"] = self.show(math.hypot(seen.uncertainty_mm, self.uncertainty))
        doc["tag"] = spec.tag
        return doc

    def terrain(self, card: TerrainSpec) -> dict[str, Any] | None:
        """The scene's terrain piece: fixed, or where its card's tag was seen."""
        if card.tag is None or card.spec is None:
            polygon = list(card.polygon)
        else:
            seen, why = self.find(card.spec.family, card.tag)
            if seen is None:
                self.missing_terrain.append({"terrain": card.id, "tag": card.tag, "reason": why})
                return None
            if not self.on_table(seen.centre):
                self.off_table.append(
                    {"terrain": card.id, "tag": card.tag, "at": self.point(seen.centre)}
                )
                self.missing_terrain.append(
                    {"terrain": card.id, "tag": card.tag, "reason": "off the table"}
                )
                return None
            polygon = card_polygon(card, seen)
        doc: dict[str, Any] = {**dict(card.attrs), "id": card.id, "kind": card.kind.value}
        if card.cover is not None:
            doc["cover"] = card.cover.value
        if card.enclosed is not None:
            doc["enclosed"] = card.enclosed
        doc["polygon"] = [self.point(p) for p in polygon]
        if card.tag is not None:
            doc["tag"] = card.tag
        return doc

    def report(self) -> dict[str, Any]:
        return {
            "tags_seen": self.tags_seen,
            "corners_seen": self.corners_seen,
            "unknown_tags": self.unknown,
            "duplicate_tags": self.duplicates,
            "missing_bases": self.missing_bases,
            "missing_units": self.missing_units,
            "missing_terrain": self.missing_terrain,
            "off_table": self.off_table,
        }
