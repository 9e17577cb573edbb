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
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import numpy.typing as npt

from . import geometry as geo
from .scene import Base, Cover, Scene, Terrain, Unit

if TYPE_CHECKING:
    from .engine import Ruleset


@dataclass(frozen=True, slots=True)
class Standing:
    """A terrain piece a base stands in, and how (entirely or partly)."""

    terrain: Terrain
    containment: geo.Containment


@dataclass(frozen=True, slots=True)
class CoverReading:
    """The cover a target has against one shooter, and why."""

    cover: Cover
    reasons: tuple[str, ...]
    """`rifles-2 stands in wood-1 (woods)`, `... is behind wall-1 (wall)`; empty in the open."""


def _hull_of(poly: geo.Array) -> tuple[geo.Array, float]:
    """A convex outline of a (possibly non-convex) obstacle polygon, for distances to it."""
    pts = sorted(map(tuple, poly.tolist()))

    def half(points: list[tuple[float, ...]]) -> list[tuple[float, ...]]:
        out: list[tuple[float, ...]] = []
        for p in points:
            while (
                len(out) >= 2
                and (
                    (out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                    - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])
                )
                <= 0
            ):
                out.pop()
            out.append(p)
        return out

    lower, upper = half(pts), half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1], dtype=float), 0.0


class _Near(NamedTuple):
    """The bases that may block the lines to a target's other sight points, found with the
    line to its centre (`Table._centre_lines_near`)."""

    pair: npt.NDArray[np.int_]
    """(M,) the pair (of the batch) each candidate base belongs to"""
    base: npt.NDArray[np.int_]
    """(M,) a base that may block a line of that pair (`geometry.solids_block_spread`)"""


class Table:
    """Cached measurements of one scene. Lengths in mm."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.bases: tuple[Base, ...] = tuple(scene.bases())
        self.index = {b.id: i for i, b in enumerate(self.bases)}
        self._sight: dict[tuple[str, str, str], geo.Sight] = {}
        self._standing: dict[str, tuple[Standing, ...]] = {}
        self._terrain_obstacles: dict[str, tuple[geo.Obstacle, ...]] = {}
        self._base_obstacles: dict[str, geo.Obstacle] = {}
        self._unit_distance: dict[tuple[str, str], geo.Closest] = {}
        self._centre_in: dict[str, tuple[Terrain, ...]] = {}
        self._cover: dict[tuple[str, str, str], CoverReading] = {}
        self._hulls: dict[str, tuple[geo.Array, float]] = {}
        self._hull_sides: dict[str, list[tuple[float, float, float]] | None] = {}
        self._gaps: dict[tuple[str, str], float] = {}
        self._apart: dict[float, npt.NDArray[np.bool_]] = {}
        self._others_apart: dict[float, npt.NDArray[np.bool_]] = {}

    @cached_property
    def _terrain_boxes(self) -> list[tuple[float, float, float, float]]:
        """Bounding boxes of the terrain polygons (x_lo, y_lo, x_hi, y_hi) as plain numbers, to
        skip the pieces a base or a line cannot touch (read for every base and every cover
        question)."""
        boxes = []
        for p in (np.asarray(t.polygon, dtype=float) for t in self.scene.terrain):
            boxes.append((*np.min(p, axis=0).tolist(), *np.max(p, axis=0).tolist()))
        return boxes

    @cached_property
    def distances(self) -> geo.Array:
        """Edge-to-edge distances between every pair of bases (N, N), mm."""
        return geo.distance_matrix(self.bases)

    def apart(self, limit: float) -> npt.NDArray[np.bool_]:
        """(N, N) whether each two bases are more than `limit` mm apart, edge to edge
        (memoised per limit: sight masks gather rows of it for thousands of lines)."""
        if limit not in self._apart:
            self._apart[limit] = self.distances > limit
        return self._apart[limit]

    def others_apart(self, limit: float) -> npt.NDArray[np.bool_]:
        """(N, N) whether base j is of another unit than base i and more than `limit` mm from
        it, edge to edge (memoised per limit: a viewer's row of it is where a sight mask that
        lets near bases be seen over starts, for thousands of lines)."""
        if limit not in self._others_apart:
            units = self.unit_numbers
            self._others_apart[limit] = (units[None, :] != units[:, None]) & self.apart(limit)
        return self._others_apart[limit]

    def distance(self, a: Base, b: Base) -> float:
        """Edge-to-edge distance between two bases, mm."""
        return float(self.distances[self.index[a.id], self.index[b.id]])

    def rows(self, group: Sequence[Base]) -> list[int]:
        """The table indices of a group of bases (rows of `distances`)."""
        return [self.index[b.id] for b in group]

    def block(self, group_a: Sequence[Base], group_b: Sequence[Base]) -> geo.Array:
        """(A, B) the distances from each base of `group_a` to each of `group_b`, in the
        groups' order: `distances[rows(group_a)][:, rows(group_b)]`, the same numbers, read
        as a slice when a group is a unit's bases (asked a thousand times by a `suggest`)."""
        return self._take(self._take(self.distances, group_a, 0), group_b, 1)

    def _take(self, rows: geo.Array, group: Sequence[Base], axis: int) -> geo.Array:
        """`rows` cut down to a group of bases along an axis: a slice for a unit's bases (they
        are consecutive in `bases`), else the group's indices."""
        span = self._spans.get(id(group))
        if span is not None and span[2] is group:
            cut = slice(span[0], span[1])
            return rows[cut] if axis == 0 else rows[:, cut]
        index = self.index
        return rows.take([index[b.id] for b in group], axis=axis)

    @cached_property
    def _spans(self) -> dict[int, tuple[int, int, tuple[Base, ...]]]:
        """Each unit's tuple of bases by its identity: where it starts and stops in `bases`
        (and the tuple, to be sure of the identity)."""
        return {
            id(u.bases): (start, start + len(u.bases), u.bases)
            for u, start in zip(self.scene.units, self._unit_first, strict=True)
        }

    def closest(self, group_a: Sequence[Base], group_b: Sequence[Base]) -> geo.Closest:
        """The nearest pair of bases between two groups (units) and their distance; of equally
        near pairs, the first in the groups' order."""
        sub = self.block(group_a, group_b)
        k = int(sub.argmin())
        i, j = divmod(k, len(group_b))
        return geo.Closest(float(sub.flat[k]), group_a[i], group_b[j])

    def unit_distance(self, a: Unit, b: Unit) -> geo.Closest:
        """The shortest edge-to-edge distance between two units (memoised: rules ask it of the
        same two units again and again)."""
        key = (a.id, b.id)
        found = self._unit_distance.get(key)
        if found is None:
            found = self._unit_distance[key] = self._unit_nearest(a, b)
        return found

    def _unit_nearest(self, a: Unit, b: Unit) -> geo.Closest:
        """`closest(a.bases, b.bases)` read off `_unit_pairs`, the first nearest pair."""
        ua, ub = self._unit_number.get(a.id), self._unit_number.get(b.id)
        if ua is None or ub is None or self._unit_pairs[0].size == 0:
            return self.closest(a.bases, b.bases)
        first, (distance, cell) = self._unit_first, self._unit_pair_lists
        i, j = divmod(cell[ua][ub], len(b.bases))
        return geo.Closest(distance[ua][ub], self.bases[first[ua] + i], self.bases[first[ub] + j])

    @cached_property
    def _unit_pair_lists(self) -> tuple[list[list[float]], list[list[int]]]:
        """`_unit_pairs` as plain numbers (read a thousand times a `suggest`, one by one)."""
        distance, cell = self._unit_pairs
        return distance.tolist(), cell.tolist()

    def unit_gap(self, a: Unit, b: Unit) -> float:
        """`unit_distance(a, b).distance`, read straight off `_unit_pairs` (no pair named)."""
        ua, ub = self._unit_number.get(a.id), self._unit_number.get(b.id)
        if ua is None or ub is None or self._unit_pairs[0].size == 0:
            return self.unit_distance(a, b).distance
        return self._unit_pair_lists[0][ua][ub]

    def unit_gaps(self) -> geo.Array:
        """(U, U) the shortest edge distance between every two units, in the scene's order
        of units (`unit_distance(a, b).distance` of each pair, all at once); empty when a
        unit has no base."""
        return self._unit_pairs[0]

    def unit_row(self, unit: Unit) -> int:
        """The unit's row (and column) in `unit_gaps`: its place in the scene's units."""
        return self._unit_number[unit.id]

    @cached_property
    def _unit_number(self) -> dict[str, int]:
        return {u.id: k for k, u in enumerate(self.scene.units)}

    @cached_property
    def _unit_first(self) -> list[int]:
        """Where each unit's bases start in `bases` (a unit's bases are consecutive)."""
        sizes = [len(u.bases) for u in self.scene.units]
        return [sum(sizes[:k]) for k in range(len(sizes))]

    @cached_property
    def _unit_pairs(self) -> tuple[geo.Array, npt.NDArray[np.int_]]:
        """(U, U) the shortest distance between every two units with bases, and where in
        their block of `distances` the first nearest pair lies (row * columns + column, in
        reading order, as `closest` picks it): a few array passes for every pair of units."""
        sizes = np.array([len(u.bases) for u in self.scene.units], dtype=int)
        if len(sizes) == 0 or np.any(sizes == 0):
            empty = np.zeros((0, 0))
            return empty, empty.astype(int)
        starts = np.array(self._unit_first, dtype=int)
        owner = np.repeat(np.arange(len(sizes)), sizes)  # unit number of each base
        local = np.arange(len(owner)) - starts[owner]  # place of each base in its unit
        d = self.distances
        nearest = np.minimum.reduceat(np.minimum.reduceat(d, starts, axis=0), starts, axis=1)
        reading = local[:, None] * sizes[owner][None, :] + local[None, :]
        at_min = d == nearest[owner][:, owner]
        cell = np.where(at_min, reading, np.iinfo(np.int64).max)
        first = np.minimum.reduceat(np.minimum.reduceat(cell, starts, axis=0), starts, axis=1)
        return nearest, first

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
            reach = math.hypot(base.footprint.width, base.footprint.depth) / 2
            boxes = self._terrain_boxes
            for piece, (x_lo, y_lo, x_hi, y_hi) in zip(self.scene.terrain, boxes, strict=True):
                if (
                    base.x + reach < x_lo
                    or base.x - reach > x_hi
                    or base.y + reach < y_lo
                    or base.y - reach > y_hi
                ):
                    continue
                how = geo.containment(base, piece.polygon)
                if how is not geo.Containment.OUTSIDE:
                    out.append(Standing(piece, how))
            self._standing[base.id] = tuple(out)
        return self._standing[base.id]

    def sight(self, ruleset: Ruleset, viewer: Base, target: Base) -> geo.Sight:
        """Sight lines from viewer to target under a ruleset, memoised."""
        return self.sights(ruleset, [(viewer, target)])[0]

    def sights(self, ruleset: Ruleset, pairs: Sequence[tuple[Base, Base]]) -> list[geo.Sight]:
        """Sight lines of many (viewer, target) pairs under a ruleset, memoised: the pairs not
        traced yet are traced together (`geometry.sight_many`), past the sheet's terrain and
        the bases `ruleset.sight_mask` says may block each pair. The same answer, ray for ray,
        as `geometry.sight(viewer, target, ruleset.obstacles(scene, viewer, target))`."""
        keys = [(ruleset.id, v.id, t.id) for v, t in pairs]
        todo = {k: p for k, p in zip(keys, pairs, strict=True) if k not in self._sight}
        if todo:
            viewers = np.array([self.index[v.id] for v, _ in todo.values()], dtype=int)
            targets = np.array([self.index[t.id] for _, t in todo.values()], dtype=int)
            mask = ruleset.sight_mask(self, viewers, targets)
            exempt = self._terrain_exempt(ruleset, viewers, targets)
            traced = geo.sight_many(
                self.centres[viewers],
                self.sight_points[targets],
                self.terrain_obstacles(ruleset),
                self.solids,
                mask,
                None if exempt is None else ~exempt,
            )
            self._sight.update(zip(todo, traced, strict=True))
        return [self._sight[k] for k in keys]

    def visible(
        self, ruleset: Ruleset, viewers: Sequence[Base], targets: Sequence[Base]
    ) -> npt.NDArray[np.bool_]:
        """(V, T): whether each viewer sees each target under the sheet's sight rule (every
        sight line clear when `sight_needs_entire_base`, else any): `seen` of every pair."""
        rows = np.repeat(np.array(self.rows(viewers), dtype=int), len(targets))
        cols = np.tile(np.array(self.rows(targets), dtype=int), len(viewers))
        seen = self.seen(ruleset, rows, cols, entire=ruleset.sight_needs_entire_base)
        return seen.reshape(len(viewers), len(targets))

    def seen(
        self,
        ruleset: Ruleset,
        viewers: npt.NDArray[np.int_],
        targets: npt.NDArray[np.int_],
        *,
        entire: bool,
    ) -> npt.NDArray[np.bool_]:
        """(P,): whether base viewers[p] sees base targets[p] (table indices) under a ruleset:
        every sight line clear when `entire`, else any. Not memoised.

        Pairs traced before are read off the memo. For the rest the line to the target's centre
        is judged first: when it is blocked no base is entirely in sight, and when it is clear
        some of the base is, so it alone answers most pairs. The other lines of the pairs it
        leaves open are judged in one more batch (`lines_clear`): the same verdict, line for
        line, as the full trace, without its list of obstacles or the lines it need not trace.
        """
        seen = np.zeros(len(viewers), dtype=bool)
        fresh = np.ones(len(viewers), dtype=bool)
        if self._sight:
            bases = self.bases
            for p, (i, j) in enumerate(zip(viewers.tolist(), targets.tolist(), strict=True)):
                sight = self._sight.get((ruleset.id, bases[i].id, bases[j].id))
                if sight is not None:
                    fresh[p] = False
                    seen[p] = sight.entire if entire else sight.any
        open_ = np.flatnonzero(fresh)
        points = self.sight_points.shape[1] if len(self.bases) else 0
        if len(open_) and points:
            self._seen_lines(ruleset, viewers, targets, open_, seen, entire=entire)
        reach = self.sight_reach(ruleset, viewers, targets)
        if reach is not None:
            seen &= geo.within(self.distances[viewers, targets], reach)
        return seen

    def _seen_lines(
        self,
        ruleset: Ruleset,
        viewers: npt.NDArray[np.int_],
        targets: npt.NDArray[np.int_],
        open_: npt.NDArray[np.int_],
        seen: npt.NDArray[np.bool_],
        *,
        entire: bool,
    ) -> None:
        """`seen` of the pairs `open_` by their sight lines alone, written into `seen`."""
        points = self.sight_points.shape[1]
        if entire:
            centre, near = self._centre_lines_near(ruleset, viewers[open_], targets[open_])
        else:
            centre, near = self._lines_clear(ruleset, viewers[open_], targets[open_], 0), None
        # Entire base: still open when the centre line is clear. Any line: when it is blocked.
        seen[open_] = centre
        still = np.flatnonzero(centre == entire)
        open_ = open_[still]
        if len(open_) and points > 1:
            # The other lines of the open pairs, in one batch: pair by pair, line by line.
            others = np.arange(1, points)
            pair = np.repeat(open_, len(others))
            aims = np.tile(others, len(open_))
            if near is None:
                clear = self._lines_clear(ruleset, viewers[pair], targets[pair], aims)
            else:
                # The bases near each centre line are the only ones that may block the lines
                # to the same target's other points: line k of open pair i is i * (K - 1) + k.
                place = np.full(len(centre), -1)
                place[still] = np.arange(len(still))
                at = place[near.pair]
                kept = at >= 0
                lines = (at[kept][:, None] * len(others) + np.arange(len(others))).reshape(-1)
                blockers = np.repeat(near.base[kept], len(others))
                clear = self._lines_clear_among(
                    ruleset, viewers[pair], targets[pair], aims, lines, blockers
                )
            clear = clear.reshape(len(open_), len(others))
            seen[open_] = clear.all(axis=1) if entire else clear.any(axis=1)

    def _centre_lines_near(
        self, ruleset: Ruleset, viewers: npt.NDArray[np.int_], targets: npt.NDArray[np.int_]
    ) -> tuple[npt.NDArray[np.bool_], _Near | None]:
        """`_lines_clear` of the lines to the targets' centres, and, when bases may block
        sight, what may block the other lines of the pairs no terrain blocks the centre line of
        (`_Near`); None when no base blocks sight."""
        eyes, aims = self.centres[viewers], self.sight_points[targets, 0]
        clear = self._terrain_clear(ruleset, eyes, aims, viewers, targets)
        open_ = np.flatnonzero(clear)
        mask = ruleset.sight_mask(self, viewers[open_], targets[open_])
        if mask is None:
            return clear, None
        blocked, pair, base = geo.solids_block_spread(
            eyes[open_], aims[open_], self._sight_spread[targets[open_]], self.solids, mask
        )
        clear[open_] = ~blocked
        return clear, _Near(open_[pair], base)

    def _lines_clear_among(
        self,
        ruleset: Ruleset,
        viewers: npt.NDArray[np.int_],
        targets: npt.NDArray[np.int_],
        point: npt.NDArray[np.int_],
        lines: npt.NDArray[np.int_],
        bases: npt.NDArray[np.int_],
    ) -> npt.NDArray[np.bool_]:
        """`_lines_clear`, the bases that may block line lines[m] being among bases[m]
        (`geometry.solids_block_among`): the same verdicts without searching every base."""
        eyes, aims = self.centres[viewers], self.sight_points[targets, point]
        clear = self._terrain_clear(ruleset, eyes, aims, viewers, targets)
        keep = clear[lines]
        clear &= ~geo.solids_block_among(eyes, aims, self.solids, lines[keep], bases[keep])
        return clear

    def _terrain_clear(
        self,
        ruleset: Ruleset,
        eyes: geo.Array,
        aims: geo.Array,
        viewers: npt.NDArray[np.int_],
        targets: npt.NDArray[np.int_],
    ) -> npt.NDArray[np.bool_]:
        """(P,): whether no terrain piece blocks each line eyes[p]-aims[p], from base
        viewers[p] to base targets[p], under a ruleset (`_terrain_exempt` pieces block none)."""
        clear = np.ones(len(eyes), dtype=bool)
        exempt = self._terrain_exempt(ruleset, viewers, targets)
        for k, piece in enumerate(self.terrain_obstacles(ruleset)):
            asked = clear if exempt is None else clear & ~exempt[:, k]
            open_ = np.flatnonzero(asked)
            clear[open_] = ~geo.terrain_hits(eyes[open_], aims[open_], piece)
        return clear

    @cached_property
    def _sight_spread(self) -> geo.Array:
        """(N,) how far each base's sight points lie from its first (its centre), mm."""
        points = self.sight_points
        if not len(points):
            return np.zeros(0)
        return np.asarray(np.hypot(*np.moveaxis(points - points[:, :1], -1, 0)).max(axis=1))

    def centre_lines_clear(
        self, ruleset: Ruleset, pairs: Sequence[tuple[Base, Base]]
    ) -> npt.NDArray[np.bool_]:
        """(P,): whether the sight line from each viewer's centre to its target's centre (the
        first of `sight_points`) is clear under a ruleset (`lines_clear` of point 0)."""
        return self.lines_clear(ruleset, pairs, 0)

    def lines_clear(
        self, ruleset: Ruleset, pairs: Sequence[tuple[Base, Base]], point: int
    ) -> npt.NDArray[np.bool_]:
        """(P,): whether the sight line from each viewer's centre to sight point `point` of its
        target (`sight_points`) is clear under a ruleset: the same answer, to the bit, as that
        line of the full trace, at a fraction of the work. Not memoised."""
        viewers = np.array([self.index[v.id] for v, _ in pairs], dtype=int)
        targets = np.array([self.index[t.id] for _, t in pairs], dtype=int)
        return self._lines_clear(ruleset, viewers, targets, point)

    def _lines_clear(
        self,
        ruleset: Ruleset,
        viewers: npt.NDArray[np.int_],
        targets: npt.NDArray[np.int_],
        point: int | npt.NDArray[np.int_],
    ) -> npt.NDArray[np.bool_]:
        """`lines_clear` of the bases viewers[p] and targets[p] (table indices), to sight
        point `point` of every target or point[p] of each."""
        eyes, aims = self.centres[viewers], self.sight_points[targets, point]
        clear = self._terrain_clear(ruleset, eyes, aims, viewers, targets)
        # Only the lines no terrain blocks are clipped against the bases.
        open_ = np.flatnonzero(clear)
        mask = ruleset.sight_mask(self, viewers[open_], targets[open_])
        if mask is not None:
            clear[open_] = ~geo.solids_block(eyes[open_], aims[open_], self.solids, mask)
        return clear

    @cached_property
    def centres(self) -> geo.Array:
        """(N, 2) the centre of every base, mm."""
        return np.array([(b.x, b.y) for b in self.bases], dtype=float).reshape(-1, 2)

    @cached_property
    def sight_points(self) -> geo.Array:
        """(N, K, 2) the points of every base a sight line aims at (`geometry.sight_points`)."""
        if not self.bases:
            return np.zeros((0, 5, 2))
        # Rectangles all at once, element for element `geometry.sight_points`' arithmetic
        # (c + (point - c) * (1 - 1e-9) of the centre and the corners); round bases one by one.
        out = np.empty((len(self.bases), 5, 2))
        rects = [k for k, b in enumerate(self.bases) if not b.footprint.circle]
        if rects:
            c = self.centres[rects][:, None]
            points = np.concatenate([c, self.outlines[rects]], axis=1)
            out[rects] = c + (points - c) * (1 - 1e-9)
        for k, b in enumerate(self.bases):
            if b.footprint.circle:
                out[k] = geo.sight_points(b)
        return out

    @cached_property
    def outlines(self) -> geo.Array:
        """(N, 4, 2) every base's outline (`geometry.corners`), in table order."""
        return np.stack([geo.corners(b) for b in self.bases]).reshape(-1, 4, 2)

    @cached_property
    def solids(self) -> geo.Solids:
        """Every base as a solid obstacle to sight, in table order (`base_obstacle` of each,
        from the outlines already stacked)."""
        radii = np.array([geo.radius(b) for b in self.bases], dtype=float)
        return geo.Solids.of_outlines(tuple(b.id for b in self.bases), self.outlines, radii)

    @cached_property
    def unit_numbers(self) -> npt.NDArray[np.int_]:
        """(N,) a number per unit for every base, to compare units as arrays."""
        numbers = {u.id: k for k, u in enumerate(self.scene.units)}
        return np.array([numbers[b.unit_id] for b in self.bases], dtype=int)

    def terrain_obstacles(self, ruleset: Ruleset) -> tuple[geo.Obstacle, ...]:
        """The terrain pieces that block sight under a ruleset, as obstacles (cached)."""
        if ruleset.id not in self._terrain_obstacles:
            self._terrain_obstacles[ruleset.id] = tuple(
                geo.Obstacle(
                    t.id,
                    np.asarray(t.polygon, dtype=float),
                    see_into=ruleset.see_into.get(t.kind, 0.0),
                )
                for t in self.scene.terrain
                if t.kind in ruleset.sight_blocking
            )
        return self._terrain_obstacles[ruleset.id]

    def _obstacle_pieces(self, ruleset: Ruleset) -> list[int]:
        """The places in the scene's terrain of the pieces `terrain_obstacles` lists."""
        return [k for k, t in enumerate(self.scene.terrain) if t.kind in ruleset.sight_blocking]

    @cached_property
    def _centre_inside(self) -> npt.NDArray[np.bool_]:
        """(N, T) whether the centre of base n stands in terrain piece t (`centre_in`)."""
        place = {id(t): k for k, t in enumerate(self.scene.terrain)}
        out = np.zeros((len(self.bases), len(self.scene.terrain)), dtype=bool)
        for n, b in enumerate(self.bases):
            for piece in self.centre_in(b):
                out[n, place[id(piece)]] = True
        return out

    def _visibility(self, ruleset: Ruleset) -> geo.Array:
        """(T,) how far two bases standing in terrain piece t see each other inside it under
        a ruleset (`Ruleset.visibility_within`), NaN for the pieces with no such limit."""
        return np.array(
            [ruleset.visibility_within.get(t.kind, np.nan) for t in self.scene.terrain],
            dtype=float,
        )

    def _terrain_exempt(
        self, ruleset: Ruleset, viewers: npt.NDArray[np.int_], targets: npt.NDArray[np.int_]
    ) -> npt.NDArray[np.bool_] | None:
        """(P, O): which of a ruleset's sight-blocking pieces (`terrain_obstacles`) do not block
        the lines from base viewers[p] to base targets[p]: a piece of
        `Ruleset.visibility_within` that both stand in (how far they see each other inside it
        is `sight_reach`'s). None when every piece blocks every pair."""
        if not ruleset.visibility_within:
            return None
        pieces = self._obstacle_pieces(ruleset)
        limited = ~np.isnan(self._visibility(ruleset)[pieces])
        if not limited.any():
            return None
        inside = self._centre_inside[:, pieces]
        return np.asarray(inside[viewers] & inside[targets] & limited[None, :])

    def sight_reach(
        self, ruleset: Ruleset, viewers: npt.NDArray[np.int_], targets: npt.NDArray[np.int_]
    ) -> geo.Array | None:
        """(P,) how far (mm, edge to edge) base viewers[p] may see base targets[p] under the
        ruleset's terrain rules, whatever the sight lines: infinity where they set no limit;
        the visibility inside a piece of `Ruleset.visibility_within` both stand in;
        `Ruleset.hidden_seen_within` for a target hidden in terrain (`hiding`) that shows
        itself (within `hidden_edge` of the piece's edge, or `revealed_by`); minus infinity
        for one that does not. None when the ruleset has no such rule."""
        if not ruleset.visibility_within and not ruleset.hidden_in:
            return None
        reach = np.full(len(viewers), np.inf)
        if not self.scene.terrain:
            return reach
        inside = self._centre_inside
        v_in, t_in = inside[viewers], inside[targets]
        limits = self._visibility(ruleset)
        shared = v_in & t_in & ~np.isnan(limits)[None, :]
        if shared.any():
            reach = np.minimum(reach, np.where(shared, limits[None, :], np.inf).min(axis=1))
        hidden = t_in & ~v_in & self._hides(ruleset)[None, :]
        for p in np.flatnonzero(hidden.any(axis=1)).tolist():
            target = self.bases[int(targets[p])]
            shows = self._shows_itself(ruleset, target, np.flatnonzero(hidden[p]).tolist())
            reach[p] = min(reach[p], ruleset.hidden_seen_within if shows else -np.inf)
        return reach

    def hiding(self, ruleset: Ruleset, viewer: Base, target: Base) -> Terrain | None:
        """The terrain piece that hides `target` from `viewer` under a ruleset
        (`Ruleset.hidden_in`: the target's centre stands in it, the viewer's does not), if any."""
        if not ruleset.hidden_in:
            return None
        inside, hides = self._centre_inside, self._hides(ruleset)
        i, j = self.index[viewer.id], self.index[target.id]
        k = np.flatnonzero(inside[j] & ~inside[i] & hides)
        return self.scene.terrain[int(k[0])] if len(k) else None

    def _hides(self, ruleset: Ruleset) -> npt.NDArray[np.bool_]:
        """(T,) which terrain pieces hide the bases standing in them (`Ruleset.hidden_in`): a
        piece the scene says gives no cover hides nobody."""
        return np.array(
            [t.kind in ruleset.hidden_in and t.cover is not Cover.NONE for t in self.scene.terrain],
            dtype=bool,
        )

    def _shows_itself(self, ruleset: Ruleset, base: Base, pieces: list[int]) -> bool:
        """Whether a base hidden in terrain pieces (places in the scene's terrain) may be seen
        at all: its unit has done what `Ruleset.revealed_by` names (fired), or it stands within
        `Ruleset.hidden_edge` of the edge of every piece hiding it."""
        if ruleset.revealed_by is not None:
            unit = self._units[base.unit_id]
            if unit.get(ruleset.revealed_by) is True:
                return True
        terrain = self.scene.terrain
        return all(
            geo.within(geo.gap_to_boundary(base, terrain[k].polygon), ruleset.hidden_edge)
            for k in pieces
        )

    @cached_property
    def _units(self) -> dict[str, Unit]:
        return {u.id: u for u in self.scene.units}

    def base_obstacle(self, base: Base) -> geo.Obstacle:
        """A base as an obstacle to sight (cached)."""
        if base.id not in self._base_obstacles:
            self._base_obstacles[base.id] = geo.obstacle_of_base(base)
        return self._base_obstacles[base.id]

    def centre_in(self, base: Base) -> list[Terrain]:
        """Terrain pieces holding the base's centre (the piece it counts as standing in)."""
        if base.id not in self._centre_in:
            self._centre_in[base.id] = tuple(
                s.terrain
                for s in self.standing(base)
                if bool(geo.point_in_polygon((base.x, base.y), s.terrain.polygon))
            )
        return list(self._centre_in[base.id])

    def cover(self, ruleset: Ruleset, shooter: Base, target: Base) -> CoverReading:
        """The best cover `target` has against `shooter` under a ruleset.

        Cover comes from the terrain piece holding the target's centre, or from a linear
        obstacle (`ruleset.cover_obstacles`: hedges, walls, fences, fortifications) that the
        sight line from the shooter's centre to the target's centre crosses within
        `ruleset.cover_behind_within` mm of the target's edge.
        """
        key = (ruleset.id, shooter.id, target.id)
        if key not in self._cover:
            self._cover[key] = self._find_cover(ruleset, shooter, target)
        return self._cover[key]

    def _find_cover(self, ruleset: Ruleset, shooter: Base, target: Base) -> CoverReading:
        found: list[tuple[Cover, str]] = []
        holding = self.centre_in(target)
        for piece in holding:
            found.append(
                (ruleset.cover_of(piece), f"{target.id} stands in {piece.id} ({piece.kind})")
            )
        eye, aim = (shooter.x, shooter.y), (target.x, target.y)
        x_lo, x_hi = min(eye[0], aim[0]) - 1.0, max(eye[0], aim[0]) + 1.0
        y_lo, y_hi = min(eye[1], aim[1]) - 1.0, max(eye[1], aim[1]) + 1.0
        reach = math.hypot(target.footprint.width, target.footprint.depth) / 2
        boxes = self._terrain_boxes
        for piece, (lo_x, lo_y, hi_x, hi_y) in zip(self.scene.terrain, boxes, strict=True):
            if piece.kind not in ruleset.cover_obstacles or piece in holding:
                continue
            if lo_x > x_hi or lo_y > y_hi or hi_x < x_lo or hi_y < y_lo:
                continue  # the line passes a millimetre and more clear of the piece's box
            poly = np.asarray(piece.polygon, dtype=float)
            if self._plainly_beside(piece.id, poly, eye, aim):
                continue  # the line does not cross the piece, nor ends in it
            # Too far behind it: the box round the piece and the circle round the target's
            # footprint more than a millimetre further apart than the limit need no exact
            # gap; else the exact gap (memoised per target: asked by every shooter).
            box_gap = math.hypot(
                max(lo_x - target.x, target.x - hi_x, 0.0),
                max(lo_y - target.y, target.y - hi_y, 0.0),
            )
            if box_gap - reach > ruleset.cover_behind_within + 1.0:
                continue
            if self._gap_to(piece.id, poly, target) > ruleset.cover_behind_within:
                continue
            total, _, _ = geo.length_inside(eye, aim, geo.Obstacle(piece.id, poly))
            if total > geo.EPS or bool(geo.point_in_polygon(aim, poly)):
                found.append(
                    (ruleset.cover_of(piece), f"{target.id} is behind {piece.id} ({piece.kind})")
                )
        rank = {Cover.NONE: 0, Cover.SOFT: 1, Cover.HARD: 2}
        best = max((c for c, _ in found), key=rank.__getitem__, default=Cover.NONE)
        reasons = tuple(r for c, r in found if c is best and c is not Cover.NONE)
        return CoverReading(best, reasons)

    def _plainly_beside(
        self, piece_id: str, poly: geo.Array, eye: geo.Point, aim: geo.Point
    ) -> bool:
        """Whether both ends of a line lie more than a millimetre outside one side of the
        piece's convex outline: then the whole line does, so it runs nowhere inside the piece
        and does not end in it (`length_inside` finds 0, `point_in_polygon` False), whatever
        rounding does, and need not be clipped."""
        if piece_id not in self._hull_sides:
            self._hull_sides[piece_id] = self._outward_sides(piece_id, poly)
        sides = self._hull_sides[piece_id]
        if sides is None:
            return False
        # Each side's outward distance of both ends, in the arithmetic of the arrays it was
        # written in (a product, a product, their sum, less the offset: no fused steps).
        ex, ey, ax, ay = float(eye[0]), float(eye[1]), float(aim[0]), float(aim[1])
        return any(
            nx * ex + ny * ey - offset > 1.0 and nx * ax + ny * ay - offset > 1.0
            for nx, ny, offset in sides
        )

    def _outward_sides(
        self, piece_id: str, poly: geo.Array
    ) -> list[tuple[float, float, float]] | None:
        """The sides of a piece's convex outline as (outward unit normal x, y, offset), for
        `_plainly_beside` (remembered per piece); None for an outline with no area."""
        if piece_id not in self._hulls:
            self._hulls[piece_id] = _hull_of(poly)
        hull = self._hulls[piece_id][0]
        if len(hull) < 3:
            return None
        edge = np.concatenate([hull[1:], hull[:1]]) - hull
        normal = np.stack([edge[:, 1], -edge[:, 0]], axis=1)  # outward: the hull turns left
        size = np.hypot(normal[:, 0], normal[:, 1])
        if np.any(size == 0):
            return None
        normal /= size[:, None]
        offset = normal[:, 0] * hull[:, 0] + normal[:, 1] * hull[:, 1]
        return [
            (nx, ny, off)
            for nx, ny, off in zip(
                normal[:, 0].tolist(), normal[:, 1].tolist(), offset.tolist(), strict=True
            )
        ]

    def _gap_to(self, piece_id: str, poly: geo.Array, target: Base) -> float:
        """Edge distance from a base to a cover obstacle's convex outline (memoised: the same
        target is shot at from many sides)."""
        key = (piece_id, target.id)
        if key not in self._gaps:
            if piece_id not in self._hulls:
                self._hulls[piece_id] = _hull_of(poly)
            hull = self._hulls[piece_id]
            self._gaps[key] = geo.convex_distance(geo.corners(target), geo.radius(target), *hull)
        return self._gaps[key]

    def uncertainty(self, a: Base, b: Base) -> float:
        """Combined position uncertainty (mm) of a length measured between two bases."""
        of = self._uncertainty_of
        if a.id in of and b.id in of:
            return math.hypot(of[a.id], of[b.id])
        return math.hypot(self.scene.uncertainty_of(a), self.scene.uncertainty_of(b))

    @cached_property
    def _uncertainty_of(self) -> dict[str, float]:
        """`Scene.uncertainty_of` of every base, by id (asked thousands of times a `suggest`)."""
        return {b.id: self.scene.uncertainty_of(b) for b in self.bases}


_RECENT: list[tuple[Scene, Table]] = []
"""The tables of the last few scenes asked about: a question and the page's many questions about
one frame share one set of measurements. Holding the scene keeps its id from being reused."""


def table_for(scene: Scene) -> Table:
    """The (cached) measurements of a scene."""
    for held, table in _RECENT:
        if held is scene:
            return table
    table = Table(scene)
    _RECENT.insert(0, (scene, table))
    del _RECENT[4:]
    return table
