"""Measurements of one scene, computed once and shared by every question about it.

`Table(scene)` holds the all-pairs edge distances (one vectorised call), which terrain each base
stands in, and memoised sight lines, so `suggest` over 120 bases does not measure the same pair
twice. Pure: numpy and `rules` only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from . import geometry as geo
from .scene import Base, Scene, Terrain, Unit

if TYPE_CHECKING:
    from .engine import Ruleset


@dataclass(frozen=True, slots=True)
class Standing:
    """A terrain piece a base stands in, and how (entirely or partly)."""

    terrain: Terrain
    containment: geo.Containment


class Table:
    """Cached measurements of one scene. Lengths in mm."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.bases: tuple[Base, ...] = tuple(scene.bases())
        self.index = {b.id: i for i, b in enumerate(self.bases)}
        self._sight: dict[tuple[str, str, str], geo.Sight] = {}
        self._standing: dict[str, tuple[Standing, ...]] = {}

    @cached_property
    def distances(self) -> geo.Array:
        """Edge-to-edge distances between every pair of bases (N, N), mm."""
        return geo.distance_matrix(self.bases)

    def distance(self, a: Base, b: Base) -> float:
        """Edge-to-edge distance between two bases, mm."""
        return float(self.distances[self.index[a.id], self.index[b.id]])

    def closest(self, group_a: Sequence[Base], group_b: Sequence[Base]) -> geo.Closest:
        """The nearest pair of bases between two groups (units) and their distance."""
        ia = [self.index[b.id] for b in group_a]
        ib = [self.index[b.id] for b in group_b]
        sub = self.distances[np.ix_(ia, ib)]
        i, j = np.unravel_index(int(np.argmin(sub)), sub.shape)
        return geo.Closest(float(sub[i, j]), group_a[int(i)], group_b[int(j)])

    def unit_distance(self, a: Unit, b: Unit) -> geo.Closest:
        """The shortest edge-to-edge distance between two units."""
        return self.closest(a.bases, b.bases)

    def within(self, base: Base, limit: float) -> list[Base]:
        """Every other base whose edge is at most `limit` mm from this one's."""
        row = self.distances[self.index[base.id]]
        return [
            self.bases[k]
            for k in np.flatnonzero(row <= limit + geo.EPS)
            if self.bases[k].id != base.id
        ]

    def standing(self, base: Base) -> tuple[Standing, ...]:
        """The terrain pieces a base stands in, entirely or partly."""
        if base.id not in self._standing:
            out = []
            for piece in self.scene.terrain:
                how = geo.containment(base, piece.polygon)
                if how is not geo.Containment.OUTSIDE:
                    out.append(Standing(piece, how))
            self._standing[base.id] = tuple(out)
        return self._standing[base.id]

    def sight(self, ruleset: Ruleset, viewer: Base, target: Base) -> geo.Sight:
        """Sight lines from viewer to target under a ruleset, memoised."""
        key = (ruleset.id, viewer.id, target.id)
        if key not in self._sight:
            self._sight[key] = ruleset.sight(self.scene, viewer, target)
        return self._sight[key]

    def uncertainty(self, a: Base, b: Base) -> float:
        """Combined position uncertainty (mm) of a length measured between two bases."""
        return math.hypot(self.scene.uncertainty_of(a), self.scene.uncertainty_of(b))
