"""Table geometry in millimetres: footprints, edge-to-edge distance, aspect, terrain, line of
sight and grid distance.

Pure functions of frozen values and numpy arrays; the all-pairs forms are vectorised. Never
imports cv2, flask or anything outside `rules` and `calibration.units`.

Conventions (docs/formats.md): the table frame has x to the right and y away from the near edge;
`facing` is degrees counter-clockwise from +x. A base's *forward* vector is (cos f, sin f) and its
*right* vector (sin f, -cos f). A rectangle is `width` across the facing and `depth` along it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, overload

import numpy as np
import numpy.typing as npt

from .scene import Base, Point

Array = npt.NDArray[np.float64]

EPS = 1e-6
"""Lengths below this (mm) are zero: touching bases are 0 apart, a grazing ray is not blocked."""
REACH = 1.0e6
"""How far (mm) an 'unbounded' fire arc is drawn: a kilometre, far beyond any table."""


@overload
def within(length: float, limit: float) -> bool: ...
@overload
def within(length: Array, limit: float | Array) -> npt.NDArray[np.bool_]: ...


def within(length: float | Array, limit: float | Array) -> bool | npt.NDArray[np.bool_]:
    """Whether a measured length is within a rule's limit (at most it): the one comparison every
    range band edge, weapon reach and "within N" of every ruleset makes.

    A length that comes out a rounding error past the limit is on it: two bases exactly 4"
    apart measure 101.60000000000002 mm in some places of the table and 101.6 mm in others,
    and a 4" band must take both (`EPS`, as touching bases are 0 apart). Works element by
    element on arrays."""
    return length <= limit + EPS


class Aspect(StrEnum):
    """Where something stands relative to a base's facing."""

    FRONT = "front"
    FLANK = "flank"
    REAR = "rear"


class Containment(StrEnum):
    """How a base stands in a terrain piece."""

    INSIDE = "inside"
    """Entirely in (touching the edge from inside counts as in)."""
    PARTLY = "partly"
    OUTSIDE = "outside"


# --------------------------------------------------------------------------------------------
# Footprints


def forward(facing_deg: float) -> Array:
    """Unit vector of a facing."""
    t = math.radians(facing_deg)
    return np.array([math.cos(t), math.sin(t)])


def to_local(base: Base, points: npt.ArrayLike) -> Array:
    """Points (..., 2) in the base's frame: column 0 to its right, column 1 ahead of its centre."""
    p = np.asarray(points, dtype=float) - (base.x, base.y)
    f = forward(base.facing)
    right = np.array([f[1], -f[0]])
    return np.stack([p @ right, p @ f], axis=-1)


def corners(base: Base) -> Array:
    """The footprint's outline (4, 2), counter-clockwise from the front-right corner.

    A round base has no corners: its outline is its centre four times, and `radius` is its
    radius, so every distance function treats it as a point grown by that radius.
    """
    if base.footprint.circle:
        return np.repeat(np.array([base.x, base.y], dtype=float)[None, :], 4, axis=0)
    # Scalar arithmetic, operation for operation what the array form `c + f + r, c + f - r,
    # c - f - r, c - f + r` does (f = forward * depth / 2, r = f turned right * width / depth):
    # the same corners to the bit at a fraction of the cost (asked thousands of times a
    # `suggest`).
    t = math.radians(base.facing)
    half = base.footprint.depth / 2
    fx, fy = math.cos(t) * half, math.sin(t) * half
    ratio = base.footprint.width / base.footprint.depth
    rx, ry = fy * ratio, -fx * ratio
    x, y = base.x, base.y
    return np.array(
        [
            ((x + fx) + rx, (y + fy) + ry),
            ((x + fx) - rx, (y + fy) - ry),
            ((x - fx) - rx, (y - fy) - ry),
            ((x - fx) + rx, (y - fy) + ry),
        ],
        dtype=float,
    )


def radius(base: Base) -> float:
    """How far the footprint reaches beyond its outline: half the diameter of a round base."""
    return base.footprint.width / 2 if base.footprint.circle else 0.0


def outline_polygon(base: Base, segments: int = 32) -> Array:
    """A polygon for drawing or clipping: the rectangle, or a round base as a `segments`-gon."""
    if not base.footprint.circle:
        return corners(base)
    t = np.linspace(0, 2 * math.pi, segments, endpoint=False)
    r = radius(base)
    return np.stack([base.x + r * np.cos(t), base.y + r * np.sin(t)], axis=1)


class Frames(NamedTuple):
    """Each base's centre (x, y), facing (cos, sin) and half width and depth, (N,) each; a
    round base has no width and no depth (its radius is taken off later, as for every
    distance)."""

    cx: Array
    cy: Array
    ct: Array
    st: Array
    hw: Array
    hd: Array


Shapes = tuple[Array, Array, Frames]
"""Outlines (N, 4, 2), radii (N,) and frames of many bases (`shapes`)."""


def shapes(bases: Sequence[Base]) -> Shapes:
    """Outlines (N, 4, 2) (`corners` of each base), radii (N,) and frames (`Frames`: sines and
    cosines from `math`, as in `corners`) of many bases, for the vectorised functions; a table
    stacks its bases' once (`Table._shapes`)."""
    n = len(bases)
    cx, cy, ct, st, hw, hd, radii = (np.zeros(n) for _ in range(7))
    for k, b in enumerate(bases):
        t = math.radians(b.facing)
        cx[k], cy[k], ct[k], st[k] = b.x, b.y, math.cos(t), math.sin(t)
        if b.footprint.circle:
            radii[k] = b.footprint.width / 2
        else:
            hw[k], hd[k] = b.footprint.width / 2, b.footprint.depth / 2
    outlines = np.array([corners(b) for b in bases], dtype=float).reshape(n, 4, 2)
    return outlines, radii, Frames(cx, cy, ct, st, hw, hd)


# --------------------------------------------------------------------------------------------
# Distances


def _cross(a: Array, b: Array) -> Array:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def point_segment_distance(p: Array, a: Array, b: Array) -> Array:
    """Distance from points p to segments a-b (broadcast over leading axes)."""
    ab = b - a
    denom = np.einsum("...i,...i->...", ab, ab)
    t = np.einsum("...i,...i->...", p - a, ab) / np.where(denom > 0, denom, 1.0)
    t = np.clip(np.where(denom > 0, t, 0.0), 0.0, 1.0)
    closest = a + t[..., None] * ab
    return np.asarray(np.hypot(*np.moveaxis(p - closest, -1, 0)))


def segment_distance(a1: Array, a2: Array, b1: Array, b2: Array) -> Array:
    """Distance between segments a1-a2 and b1-b2 (broadcast); 0 where they cross or touch."""
    d = np.minimum(
        np.minimum(point_segment_distance(a1, b1, b2), point_segment_distance(a2, b1, b2)),
        np.minimum(point_segment_distance(b1, a1, a2), point_segment_distance(b2, a1, a2)),
    )
    o1 = _cross(a2 - a1, b1 - a1)
    o2 = _cross(a2 - a1, b2 - a1)
    o3 = _cross(b2 - b1, a1 - b1)
    o4 = _cross(b2 - b1, a2 - b1)
    # Segments on one line can get cross products of opposite sign from rounding alone; two
    # segments that really cross are never parallel (overlapping parallel ones are 0 apart by
    # their endpoint distances already).
    ua, ub = a2 - a1, b2 - b1
    scale = np.hypot(*np.moveaxis(ua, -1, 0)) * np.hypot(*np.moveaxis(ub, -1, 0))
    parallel = np.abs(_cross(ua, ub)) <= 1e-9 * scale
    crossing = (o1 * o2 < 0) & (o3 * o4 < 0) & ~parallel
    return np.where(crossing, 0.0, d)


def _edges(poly: Array) -> tuple[Array, Array]:
    """Each vertex and the next one round the outline (`np.roll(poly, -1, axis=-2)`, faster)."""
    return poly, np.concatenate([poly[..., 1:, :], poly[..., :1, :]], axis=-2)


def _inside_convex(points: Array, poly: Array) -> npt.NDArray[np.bool_]:
    """Whether points (..., 2) lie in or on the counter-clockwise convex polygons (..., k, 2).

    A polygon with no area (a round base's outline) contains nothing.
    """
    a, b = _edges(poly)
    side = _cross(b - a, points[..., None, :] - a)
    area2 = np.sum(_cross(a, b), axis=-1)
    return np.asarray(np.all(side >= -EPS * 10, axis=-1) & (area2 > EPS))


def convex_distance(p: Array, rp: float | Array, q: Array, rq: float | Array) -> Array:
    """Shortest distance between two counter-clockwise convex polygons (k, 2) and (m, 2) grown
    by radii; 0 when they touch or overlap. A polygon may be degenerate (a point repeated) for
    a round base. Pair by pair over leading axes: polygons (..., k, 2) and (..., m, 2), radii
    (...) or numbers, distances (...)."""
    pa, pb = _edges(p)
    qa, qb = _edges(q)
    ends = (pa[..., :, None, :], pb[..., :, None, :], qa[..., None, :, :], qb[..., None, :, :])
    d = segment_distance(*ends).min(axis=(-2, -1))
    inside = _inside_convex(p[..., 0, :], q) | _inside_convex(q[..., 0, :], p)
    return np.asarray(np.maximum(0.0, np.where(inside, 0.0, d) - rp - rq))


APART = 1e-3
"""mm: outlines beyond one side of each other by more than this neither cross nor contain one
another, rounding and the slack of `_inside_convex` notwithstanding."""


def _vertex_solid_sq(pa: Array, frames_b: Frames) -> tuple[Array, npt.NDArray[np.bool_]]:
    """Squared distance (k, M, N) from vertex k of each outline in `pa` to the SOLID footprint
    of each base framed in `frames_b` (0 for a vertex inside it); and (M, N) whether every
    vertex lies beyond one and the same side of that footprint (more than `APART` out), which
    separates the two outright.

    In a base's own frame a point (u to its right, v ahead) is hypot(max(|u| - w/2, 0),
    max(|v| - d/2, 0)) from the filled rectangle: four cheap terms per vertex and base instead
    of four point-to-edge distances."""
    cx, cy, ct, st, hw, hd = frames_b
    out = np.empty((pa.shape[1], len(pa), len(cx)))
    beyond = np.ones((4, len(pa), len(cx)), dtype=bool)  # right, left, ahead, behind
    for k in range(pa.shape[1]):
        dx = pa[:, k, 0, None] - cx  # (M, N)
        dy = pa[:, k, 1, None] - cy
        u = dx * st
        u -= dy * ct  # to the base's right (sin f, -cos f)
        v = dx * ct
        v += dy * st  # ahead of it (cos f, sin f)
        beyond[0] &= u > hw + APART
        beyond[1] &= u < -hw - APART
        beyond[2] &= v > hd + APART
        beyond[3] &= v < -hd - APART
        np.abs(u, out=u)
        u -= hw
        np.maximum(u, 0.0, out=u)
        np.abs(v, out=v)
        v -= hd
        np.maximum(v, 0.0, out=v)
        u *= u
        v *= v
        np.add(u, v, out=out[k])
    return out, np.asarray(beyond.any(axis=0))


NEAR_TIE = 1e-6
"""mm: every vertex within this of the nearest distance of a pair is measured exactly
(rounding moves a distance by about a millionth of this)."""


def _nearest_vertex_edge_sq(pa: Array, pb: Array, solid: Array, limit: Array) -> Array:
    """(M, N) the squared distance from the vertices of each outline in `pa` to the edges of
    each outline in `pb`, measured only for the vertices whose distance to the solid other
    (`solid`, (k, M, N) squared) is within `limit` (M, N, squared): the others are farther
    than the pair's nearest vertex, so never the smallest. Infinity where no vertex is.

    The arithmetic of `point_segment_distance`, step for step and in place: every (vertex,
    edge) pair gets the same number to the bit however many are measured at once. The edges
    are kept edge-major, (k, N) each (numpy gathers and reduces along a short trailing axis
    slowly): start x, y, run x, y and squared length (1 for a point, never divided by)."""
    b1, b2 = _edges(pb)
    x, y = np.ascontiguousarray(b1[..., 0].T), np.ascontiguousarray(b1[..., 1].T)
    run_x, run_y = b2[..., 0].T - x, b2[..., 1].T - y
    denom = run_x * run_x + run_y * run_y
    denom = np.where(denom > 0, denom, 1.0)
    out = np.full(limit.size, np.inf)
    for k in range(pa.shape[1]):
        i, j = np.nonzero(solid[k] <= limit)
        if not len(i):
            continue
        abx, aby = run_x.take(j, axis=1), run_y.take(j, axis=1)
        rx = pa[i, k, 0] - x.take(j, axis=1)
        ry = pa[i, k, 1] - y.take(j, axis=1)
        # t = clip((rx abx + ry aby) / denom), o = r - t ab, sq = o.o
        t = rx * abx
        scratch = ry * aby
        t += scratch
        t /= denom.take(j, axis=1)
        np.clip(t, 0.0, 1.0, out=t)
        np.multiply(t, abx, out=scratch)
        rx -= scratch
        np.multiply(t, aby, out=scratch)
        ry -= scratch
        rx *= rx
        ry *= ry
        rx += ry
        flat = i * limit.shape[1] + j
        out[flat] = np.minimum(out[flat], rx.min(axis=0))
    return out.reshape(limit.shape)


def distance_matrix(bases_a: Sequence[Base], bases_b: Sequence[Base] | None = None) -> Array:
    """Edge-to-edge distances (M, N) between every base of `bases_a` and of `bases_b`; with one
    argument, all pairs of `bases_a` (`shaped_distances` of their `shapes`)."""
    return shaped_distances(shapes(bases_a), None if bases_b is None else shapes(bases_b))


def shaped_distances(shapes_a: Shapes, shapes_b: Shapes | None = None) -> Array:
    """Edge-to-edge distances (M, N) between every base of `shapes_a` and of `shapes_b`.

    With one argument, all pairs of `shapes_a` (the diagonal is 0). For outlines that do not
    overlap the distance is the nearest vertex-to-edge distance either way. The distance of
    every vertex to the solid other footprint (a few cheap terms) picks the vertices that may
    be nearest, and only those are measured to the other's edges: the same arithmetic, and
    the same numbers to the bit, as measuring every vertex. Only pairs neither of which lies
    wholly beyond a side of the other (two convex outlines apart lie beyond a side of one of
    them) are tested for crossing edges or containment. Vectorised.
    """
    same = shapes_b is None
    pa, ra, frames_a = shapes_a
    pb, rb, frames_b = shapes_a if shapes_b is None else shapes_b
    if len(pa) == 0 or len(pb) == 0:
        return np.zeros((len(pa), len(pb)))
    solid_ab, apart_ab = _vertex_solid_sq(pa, frames_b)
    solid_ba, apart_ba = (solid_ab, apart_ab) if same else _vertex_solid_sq(pb, frames_a)
    nearest = np.minimum(solid_ab.min(axis=0), solid_ba.min(axis=0).T)
    limit = np.sqrt(nearest)
    limit += NEAR_TIE
    limit *= limit
    # A vertex on or in the other footprint may be farther from its edges than another
    # vertex is: measure every vertex of such a pair.
    limit[nearest <= NEAR_TIE * NEAR_TIE] = np.inf
    ab = _nearest_vertex_edge_sq(pa, pb, solid_ab, limit)
    ba = ab.T if same else _nearest_vertex_edge_sq(pb, pa, solid_ba, limit.T).T
    d = np.sqrt(np.minimum(ab, ba))
    touching = ~apart_ab & ~apart_ba.T
    if same:
        # A base lies on itself: 0 apart with no test.
        np.fill_diagonal(touching, False)
        np.fill_diagonal(d, 0.0)
    i, j = np.nonzero(touching)
    if len(i):
        # Outlines that cross or hold one another (`convex_distance` of the bare outlines)
        met = convex_distance(pa[i], 0.0, pb[j], 0.0) <= 0
        d[i[met], j[met]] = 0.0
    return np.maximum(d - ra[:, None] - rb[None, :], 0.0)


def nearest_pair(group_a: Sequence[Base], group_b: Sequence[Base]) -> tuple[Base, Base, float]:
    """The nearest pair of bases between two groups and their edge-to-edge distance (mm); of
    equally near pairs, the first in the groups' order, as `measure.Table.gap` picks it. For a
    one-off length of a scene no `Table` measures (the map's line, drawn again every frame):
    it measures the two groups, not every pair of the table."""
    apart = distance_matrix(group_a, group_b)
    i, j = divmod(int(apart.argmin()), apart.shape[1])
    return group_a[i], group_b[j], float(apart[i, j])


def point_distance(base: Base, point: Point) -> float:
    """Distance from a point to a base's footprint (0 inside)."""
    p = np.array(point, dtype=float)
    return float(convex_distance(corners(base), radius(base), np.repeat(p[None], 4, axis=0), 0.0))


# --------------------------------------------------------------------------------------------
# Aspect


def front_half_angle(base: Base) -> float:
    """Half the angle (degrees) of a base's front sector, cut by its diagonals.

    For a rectangle the diagonals through its corners bound the sectors: a square base has a
    90 degree front; a wide, shallow one a wider front. A round base has no corners: its sectors
    are quarters (45 degrees either side of straight ahead).
    """
    if base.footprint.circle:
        return 45.0
    return math.degrees(math.atan2(base.footprint.width / 2, base.footprint.depth / 2))


class Face(NamedTuple):
    """Which sector (face) of a target a base's centre lies in (`aspect`)."""

    name: str
    """`front`, `left-flank`, `right-flank` or `rear`, as the target sees it."""
    aspect: Aspect
    margin: float
    """Distance (mm) from the centre to the nearer diagonal that bounds its sector."""


def aspect(attacker: Base, target: Base) -> Face:
    """Where `attacker` stands relative to `target`'s facing, judged from the attacker's centre:
    the sector (front, flank, rear) of `target` that centre lies in, a flank named by its side:
    left or right as the target faces.

    A centre exactly on a diagonal counts as the front (or rear) sector, not the flank: a claim
    of a flank needs it to be past the diagonal.
    """
    u, v = to_local(target, (attacker.x, attacker.y))
    alpha = math.radians(front_half_angle(target))
    phi = math.atan2(abs(u), v)  # 0 straight ahead, pi straight behind
    if phi <= alpha + 1e-12:
        sector, name = Aspect.FRONT, Aspect.FRONT.value
    elif phi >= math.pi - alpha - 1e-12:
        sector, name = Aspect.REAR, Aspect.REAR.value
    else:
        sector, name = Aspect.FLANK, "right-flank" if u > 0 else "left-flank"
    # Distance to the two diagonal lines through the centre at +-alpha from the forward axis.
    r = math.hypot(u, v)
    margin = min(abs(math.sin(phi - alpha)), abs(math.sin(phi - (math.pi - alpha)))) * r
    return Face(name, sector, margin)


def aspect_matrix(bases: Sequence[Base]) -> npt.NDArray[np.int8]:
    """Aspect codes (N, N): entry [i, j] is where base i stands relative to base j.

    0 = front, 1 = flank, 2 = rear (the order of `Aspect`). Vectorised.
    """
    if not bases:
        return np.zeros((0, 0), dtype=np.int8)
    xy = np.array([(b.x, b.y) for b in bases])
    t = np.radians([b.facing for b in bases])
    fwd = np.stack([np.cos(t), np.sin(t)], axis=1)
    alpha = np.radians([front_half_angle(b) for b in bases])
    rel = xy[:, None, :] - xy[None, :, :]  # i relative to j
    v = np.einsum("ijk,jk->ij", rel, fwd)
    u = rel[..., 0] * fwd[None, :, 1] - rel[..., 1] * fwd[None, :, 0]
    phi = np.arctan2(np.abs(u), v)
    code = np.where(
        phi <= alpha[None, :] + 1e-12, 0, np.where(phi >= np.pi - alpha[None, :] - 1e-12, 2, 1)
    )
    return code.astype(np.int8)


# --------------------------------------------------------------------------------------------
# Terrain


def point_in_polygon(
    points: npt.ArrayLike, polygon: Sequence[Point] | Array
) -> npt.NDArray[np.bool_]:
    """Whether points (..., 2) lie inside a simple polygon (any shape; even-odd rule)."""
    p = np.asarray(points, dtype=float)
    poly = np.asarray(polygon, dtype=float)
    a, b = _edges(poly)
    px, py = p[..., 0, None], p[..., 1, None]
    straddles = (a[:, 1] > py) != (b[:, 1] > py)
    dy = b[:, 1] - a[:, 1]
    dy = np.where(np.abs(dy) < 1e-12, 1.0, dy)  # a flat edge never straddles
    x_cross = a[:, 0] + (py - a[:, 1]) * (b[:, 0] - a[:, 0]) / dy
    return np.asarray(np.sum(straddles & (px < x_cross), axis=-1) % 2 == 1)


def gaps_to_boundary(outlines: Array, radii: Array, polygon: Sequence[Point] | Array) -> Array:
    """(B,) how far each footprint (outlines (B, 4, 2) and radii (B,), `shapes`) lies from the
    nearest edge of a polygon (mm): 0 when it crosses or touches the edge, whether the base
    stands inside or outside."""
    a, b = _edges(np.asarray(polygon, dtype=float))
    c1, c2 = _edges(outlines)
    # (a round base's outline is its centre four times: its edges' distance is the centre's)
    edges = segment_distance(c1[:, :, None], c2[:, :, None], a[None, None], b[None, None])
    return np.maximum(edges.min(axis=(1, 2)) - radii, 0.0)


def clip_to_convex(subject: Array, clip: Array) -> Array:
    """Sutherland-Hodgman: the part of `subject` (any simple polygon) inside the convex,
    counter-clockwise `clip`. For a non-convex subject the result may have zero-width bridges,
    but its area is exact."""
    out = subject
    for a, b in zip(*_edges(clip), strict=True):
        if len(out) == 0:
            break
        edge = b - a
        side = _cross(edge, out - a)
        nxt = _edges(out)[1]
        side_next = np.concatenate([side[1:], side[:1]])
        points: list[Array] = []
        for k in range(len(out)):
            if side[k] >= 0:
                points.append(out[k])
            if (side[k] >= 0) != (side_next[k] >= 0):
                t = side[k] / (side[k] - side_next[k])
                points.append(out[k] + t * (nxt[k] - out[k]))
        out = np.array(points) if points else np.zeros((0, 2))
    return out


def containment(base: Base, polygon: Sequence[Point] | Array) -> Containment:
    """Whether a base stands entirely in, partly in, or outside a terrain polygon."""
    poly = np.asarray(polygon, dtype=float)
    if base.footprint.circle:
        # In or out when the nearest edge is no nearer the centre than the radius.
        centre = np.array([base.x, base.y], dtype=float)
        clearance = float(point_segment_distance(centre, *_edges(poly)).min())
        if clearance >= radius(base) - EPS:
            inside = bool(point_in_polygon(centre, poly))
            return Containment.INSIDE if inside else Containment.OUTSIDE
        return Containment.PARTLY
    # Plain without clipping, for a strictly convex piece: OUTSIDE when every corner lies more
    # than a millimetre outside one side (no overlap at all), INSIDE when every corner lies
    # more than a millimetre inside every side (the overlap is the whole rectangle).
    foot, sides = corners(base), convex_sides(poly)
    if sides is not None:
        out = distance_outside(foot, sides)  # (4, E) how far each corner lies outside each side
        if np.any(np.all(out > 1.0, axis=0)):
            return Containment.OUTSIDE
        if np.all(out < -1.0):
            return Containment.INSIDE
    overlap = abs(float(np.sum(_cross(*_edges(clip_to_convex(poly, foot)))))) / 2  # shoelace
    whole = base.footprint.width * base.footprint.depth
    if overlap >= whole * (1 - 1e-9) - EPS:
        return Containment.INSIDE
    if overlap <= EPS:
        return Containment.OUTSIDE
    return Containment.PARTLY


def convex_sides(poly: Array) -> tuple[Array, Array] | None:
    """The sides of a strictly convex polygon (either way round) as outward unit normals (E, 2)
    and offsets (E,), for `distance_outside`; None for a polygon that is not strictly convex."""
    if len(poly) < 3:
        return None
    e1, e2 = _edges(poly)
    edge = e2 - e1
    area2 = float(np.sum(_cross(e1, e2)))
    turns = _cross(edge, np.concatenate([edge[1:], edge[:1]]))
    if area2 == 0 or not (np.all(turns > 0) if area2 > 0 else np.all(turns < 0)):
        return None
    normal = np.stack([edge[:, 1], -edge[:, 0]], axis=1) * (1.0 if area2 > 0 else -1.0)
    normal /= np.hypot(normal[:, 0], normal[:, 1])[:, None]
    return normal, np.sum(normal * e1, axis=1)


def distance_outside(points: Array, sides: tuple[Array, Array]) -> Array:
    """(R, E) how far (mm) each point (R, 2) lies outside each side's line (`convex_sides`;
    negative: inside it). Products, not a matrix product (BLAS threads stall on a busy
    machine)."""
    normal, offset = sides
    return np.asarray(
        points[:, 0, None] * normal[None, :, 0] + points[:, 1, None] * normal[None, :, 1] - offset
    )


# --------------------------------------------------------------------------------------------
# Line of sight


@dataclass(frozen=True, slots=True)
class Obstacle:
    """A terrain piece that may block a sight line (mm); bases block as `Solids`."""

    id: str
    polygon: Array
    """Vertices (k, 2), any simple polygon, listed either way round."""
    see_into: float = 0.0
    """How deep (mm) a sight line may run inside it from an end that stands in it (woods that
    can be seen into for 10 cm); 0 for a piece not seen into."""


def inside_lengths(
    eyes: npt.ArrayLike, aims: npt.ArrayLike, polygon: Array
) -> tuple[Array, Array, Array]:
    """How much of each segment eyes[r]-aims[r] (R, 2) runs inside a polygon (any shape):
    (total, from_a, from_b), (R,) each. `from_a` is the first inside stretch when eyes[r]
    itself is inside (else 0), `from_b` likewise at aims[r], so callers can forgive the
    terrain a figure stands in. A stretch along an edge is not inside; a split point within
    `EPS` of an end is the end; a segment shorter than `EPS` runs nowhere.

    `eyes` is one point (2,) shared by every segment, or one point per segment (R, 2)."""
    pb = np.asarray(aims, dtype=float).reshape(-1, 2)
    pa = np.broadcast_to(np.asarray(eyes, dtype=float), pb.shape)  # (R, 2)
    poly = np.asarray(polygon, dtype=float)
    ab = pb - pa  # (R, 2)
    length = np.hypot(ab[:, 0], ab[:, 1])
    safe_len = np.where(length > EPS, length, 1.0)
    e1, e2 = _edges(poly)
    edge = e2 - e1  # (E, 2)
    rel = e1[None] - pa[:, None]  # (R, E, 2)
    denom = ab[:, None, 0] * edge[None, :, 1] - ab[:, None, 1] * edge[None, :, 0]  # (R, E)
    ok = np.abs(denom) > 1e-12
    safe = np.where(ok, denom, 1.0)
    t = (rel[..., 0] * edge[None, :, 1] - rel[..., 1] * edge[None, :, 0]) / safe
    s = (rel[..., 0] * ab[:, None, 1] - rel[..., 1] * ab[:, None, 0]) / safe
    t_lo, t_hi = (EPS / safe_len)[:, None], 1 - (EPS / safe_len)[:, None]  # ends, not splits
    hit = ok & (t > t_lo) & (t < t_hi) & (s >= 0) & (s <= 1)
    vrel = poly[None] - pa[:, None]  # (R, V, 2)
    ab_sq = np.sum(ab * ab, axis=1)
    ab_sq = np.where(ab_sq > 0, ab_sq, 1.0)
    tv = (vrel[..., 0] * ab[:, None, 0] + vrel[..., 1] * ab[:, None, 1]) / ab_sq[:, None]
    off = np.abs(ab[:, None, 0] * vrel[..., 1] - ab[:, None, 1] * vrel[..., 0])
    on = (off / safe_len[:, None] <= EPS) & (tv > t_lo) & (tv < t_hi)
    n = len(pb)
    ts = np.concatenate(
        [np.zeros((n, 1)), np.ones((n, 1)), np.where(hit, t, np.nan), np.where(on, tv, np.nan)],
        axis=1,
    )
    ts.sort(axis=1)  # NaN last
    lo, hi = ts[:, :-1], ts[:, 1:]
    valid = np.isfinite(hi) & (hi - lo > 0)
    mid_t = np.where(valid, (lo + hi) / 2, 0.0)
    mids = pa[:, None, :] + mid_t[..., None] * ab[:, None, :]  # (R, K, 2)
    inside = point_in_polygon(mids, poly) & valid
    if inside.any():
        # Only a midpoint inside can be one on an edge (a ray along a side), which is not.
        rows, cols = np.nonzero(inside)
        on_edge = (
            point_segment_distance(mids[rows, cols][:, None, :], e1[None], e2[None]).min(axis=1)
            <= EPS
        )
        inside[rows[on_edge], cols[on_edge]] = False
    spans = np.where(valid, hi - lo, 0.0) * length[:, None]
    total = np.sum(np.where(inside, spans, 0.0), axis=1)
    last = np.sum(np.isfinite(ts), axis=1) - 2  # index of the span ending at t = 1
    rows = np.arange(n)
    from_a = np.where(inside[:, 0], spans[:, 0], 0.0)
    from_b = np.where(inside[rows, last], spans[rows, last], 0.0)
    short = length <= EPS
    return np.where(short, 0.0, total), np.where(short, 0.0, from_a), np.where(short, 0.0, from_b)


def sight_points(shaped: Shapes) -> Array:
    """(N, 5, 2) the points of each base (`shapes`) that a sight line aims at: its centre and
    its corners (for a round base, the four points of its rim ahead, behind and to each side),
    pulled a billionth of the way towards the centre so a target's own edge never grazes an
    obstacle it only touches."""
    outlines, radii, f = shaped
    centres = np.stack([f.cx, f.cy], axis=1)[:, None, :]
    ahead = np.stack([f.ct, f.st], axis=1) * radii[:, None]
    side = np.stack([ahead[:, 1], -ahead[:, 0]], axis=1)
    rim = centres + np.stack([ahead, -ahead, side, -side], axis=1)
    points = np.concatenate([centres, np.where(radii[:, None, None] > 0, rim, outlines)], axis=1)
    return centres + (points - centres) * (1 - 1e-9)


@dataclass(frozen=True, slots=True)
class Sight:
    """What a viewer sees of a target."""

    rays: int
    """Sight lines drawn: from the viewer's centre to the target's centre and corners."""
    clear_rays: int
    blocked_by: tuple[str, ...]
    """Ids of obstacles that block at least one sight line."""

    @property
    def entire(self) -> bool:
        """The whole base is in view (every sight line clear)."""
        return self.clear_rays == self.rays

    @property
    def any(self) -> bool:
        """Some of the base is in view."""
        return self.clear_rays > 0

    def as_json(self) -> dict[str, Any]:
        """The reading as an answer's data gives it (`sight` of a `measure` or a `shoot`)."""
        return {"rays": self.rays, "clear": self.clear_rays, "blocked_by": list(self.blocked_by)}


def paired_inside_lengths(a: Array, b: Array, polys: Array, radii: Array) -> Array:
    """Length (M,) of each segment a[m]-b[m] (a, b: (M, 2)) inside its own solid convex obstacle
    polys[m] (counter-clockwise), radii[m] the radius of a round one.

    Cyrus-Beck clipping against each outline's edges; an outline with no area is a round base,
    whose chord is used instead. A segment running along an edge is not inside.
    """
    d = b - a  # (M, 2)
    length = np.hypot(d[:, 0], d[:, 1])
    e1, e2 = _edges(polys)  # (M, k, 2)
    edge = e2 - e1
    rel = a[:, None, :] - e1
    num = edge[..., 1] * rel[..., 0] + -edge[..., 0] * rel[..., 1]  # n.(a - p), n outward
    den = edge[..., 1] * d[:, None, 0] + -edge[..., 0] * d[:, None, 1]  # n.d
    with np.errstate(divide="ignore", invalid="ignore"):
        t = -num / den
    entering = den < -1e-12
    exiting = den > 1e-12
    parallel_out = (~entering & ~exiting) & (num >= -EPS * np.maximum(1.0, np.abs(den)))
    degenerate = np.all(np.abs(edge) < 1e-12, axis=(-1, -2))  # round bases
    parallel_out &= ~degenerate[:, None]
    t_in = np.clip(np.max(np.where(entering, t, 0.0), axis=-1), 0.0, 1.0)
    t_out = np.clip(np.min(np.where(exiting, t, 1.0), axis=-1), 0.0, 1.0)
    inside = np.where(np.any(parallel_out, axis=-1), 0.0, np.maximum(0.0, t_out - t_in))
    out = inside * length
    if np.any(degenerate):
        c, r = polys[degenerate][:, 0, :], radii[degenerate]
        ad, dd, ld = a[degenerate], d[degenerate], length[degenerate]
        rel_c = c - ad
        with np.errstate(divide="ignore", invalid="ignore"):
            t0 = (rel_c[:, 0] * dd[:, 0] + rel_c[:, 1] * dd[:, 1]) / (ld**2)
        foot = ad + t0[:, None] * dd
        perp = np.hypot(*np.moveaxis(foot - c, -1, 0))
        half = np.sqrt(np.maximum(0.0, r**2 - perp**2)) / ld
        lo = np.clip(t0 - half, 0.0, 1.0)
        hi = np.clip(t0 + half, 0.0, 1.0)
        out[degenerate] = np.where(perp < r, np.maximum(0.0, hi - lo), 0.0) * ld
    return np.asarray(np.where(length > EPS, out, 0.0))


@dataclass(frozen=True, slots=True)
class Solids:
    """Solid convex obstacles (bases) as arrays, for tracing many sight lines past them."""

    ids: tuple[str, ...]
    polygons: Array
    """(N, 4, 2) counter-clockwise outlines; a round base's is its centre four times."""
    radii: Array
    """(N,) radius of a round base, else 0."""
    centres: Array
    """(N, 2) the middle of each outline."""
    reach: Array
    """(N,) how far any part of each obstacle lies from its centre."""

    @classmethod
    def of(cls, ids: tuple[str, ...], polys: Array, radii: Array) -> Solids:
        """From ids, outlines (N, 4, 2) and radii (N,) (`shapes`, `Table.outlines`)."""
        centres = polys.mean(axis=1)
        spread = np.hypot(*np.moveaxis(polys - centres[:, None], -1, 0)).max(axis=1)
        return cls(ids, polys, radii, centres, spread + radii)


def sight_many(
    eyes: Array,
    points: Array,
    terrain: Sequence[Obstacle],
    solids: Solids,
    may_block: npt.NDArray[np.bool_] | None,
    terrain_may_block: npt.NDArray[np.bool_] | None = None,
) -> list[Sight]:
    """What P viewers see of their targets: lines from eyes[p] (P, 2) to points[p] (P, K, 2)
    past the terrain pieces each pair's row of `terrain_may_block` (P, T) allows (None: every
    piece; each judged by `terrain_hits`) and the solids each pair's row of `may_block` (P, N)
    allows (None: no solid blocks). `blocked_by` names the terrain first, then the solids, each
    in its order.

    Only a solid whose centre lies within its reach (plus the spread of the target's points)
    of the line from the eye to the target's first point can touch a sight line, so only those
    (pair, solid) candidates are clipped (`paired_inside_lengths`).
    """
    n_pairs, k = points.shape[:2]
    names: list[list[str]] = [[] for _ in range(n_pairs)]
    flat_eyes, flat_points = np.repeat(eyes, k, axis=0), points.reshape(-1, 2)
    allowed = None if terrain_may_block is None else np.repeat(terrain_may_block, k, axis=0)
    hits = terrain_blocks(flat_eyes, flat_points, terrain, allowed, every=True)
    hits = hits.reshape(n_pairs, k, len(terrain))
    blocked = hits.any(axis=2)
    for p, t in np.argwhere(hits.any(axis=1)).tolist():  # by pair, then piece
        names[p].append(terrain[t].id)
    if may_block is not None and len(solids.ids):
        spread = np.hypot(*np.moveaxis(points - points[:, :1], -1, 0)).max(axis=1)
        pair, solid = solids_near(eyes, points[:, 0], spread, solids, may_block)
        if len(pair):
            rays = (pair[:, None] * k + np.arange(k)).reshape(-1)
            hit = solids_hit(flat_eyes, flat_points, solids, rays, np.repeat(solid, k))
            hit = hit.reshape(-1, k)
            blocked.reshape(-1)[rays[hit.reshape(-1)]] = True  # (a view: `hits.any` is fresh)
            stops = np.flatnonzero(hit.any(axis=1))
            for p, s in zip(pair[stops].tolist(), solid[stops].tolist(), strict=True):
                names[p].append(solids.ids[s])
    clear = (k - blocked.sum(axis=1)).tolist()
    return [Sight(k, c, tuple(n)) for c, n in zip(clear, names, strict=True)]


def terrain_hits(eyes: Array, aims: Array, piece: Obstacle) -> npt.NDArray[np.bool_]:
    """(R,): whether each sight line eyes[r]-aims[r] is blocked by one terrain piece, line by
    line as `sight` judges it (a line's answer never depends on the other lines): it runs
    inside for more than `EPS` (`inside_lengths`), besides up to `see_into` at an end standing
    inside it (that end's own terrain)."""
    # A line whose box misses the piece's by more than EPS cannot run inside it (`sight`
    # box-tests the pair's lines together: a coarser test, the same answer).
    # (Column by column: numpy reduces a trailing axis of two or four slowly.)
    box_lo, box_hi = piece.polygon.min(axis=0) - EPS, piece.polygon.max(axis=0) + EPS
    ex, ey, ax, ay = eyes[:, 0], eyes[:, 1], aims[:, 0], aims[:, 1]
    off = box_lo[0] > np.maximum(ex, ax)
    off |= box_lo[1] > np.maximum(ey, ay)
    off |= box_hi[0] < np.minimum(ex, ax)
    off |= box_hi[1] < np.minimum(ey, ay)
    near = np.flatnonzero(~off)
    # Nor can a line with every corner of the piece more than a millimetre to one side of it:
    # `side` is each corner's distance from the line times the line's length.
    ex, ey = ex[near], ey[near]
    abx, aby = ax[near] - ex, ay[near] - ey
    margin = np.hypot(abx, aby)  # a millimetre, times the line's length
    left = np.ones(len(near), dtype=bool)
    right = np.ones(len(near), dtype=bool)
    for cx, cy in piece.polygon.tolist():
        side = abx * (cy - ey) - aby * (cx - ex)
        left &= side > margin
        right &= side < -margin
    near = near[~(left | right)]
    flat = np.zeros(len(eyes), dtype=bool)
    if len(near):
        # Lines a convex piece plainly blocks or plainly leaves clear need not be clipped
        # exactly; the rest are.
        blocked, clear = convex_verdicts(eyes[near], aims[near], piece.polygon, piece.see_into)
        flat[near[blocked]] = True
        rest = near[~blocked & ~clear]
        if len(rest):
            total, from_a, from_b = inside_lengths(eyes[rest], aims[rest], piece.polygon)
            forgiven = np.minimum(from_a, piece.see_into) + np.minimum(from_b, piece.see_into)
            flat[rest] = (total > EPS) & (total - forgiven > EPS)
    return flat


def terrain_blocks(
    eyes: Array,
    aims: Array,
    terrain: Sequence[Obstacle],
    may_block: npt.NDArray[np.bool_] | None = None,
    *,
    every: bool = False,
) -> npt.NDArray[np.bool_]:
    """(R, T): whether terrain piece t blocks the sight line eyes[r]-aims[r] (`terrain_hits`),
    of the pieces line r's row of `may_block` (R, T) allows (None: every piece). The one
    terrain verdict of both the full trace (`sight_many`, `every`: each piece asked of every
    line, to name them all) and a line's clear-or-not (not `every`: a line is asked no more
    once a piece blocks it, so only its first blocking piece is marked)."""
    hits = np.zeros((len(eyes), len(terrain)), dtype=bool)
    open_ = np.ones(len(eyes), dtype=bool)
    for t, piece in enumerate(terrain):
        asked = open_ if may_block is None else open_ & may_block[:, t]
        rows = np.flatnonzero(asked)
        rows = rows[terrain_hits(eyes[rows], aims[rows], piece)]
        hits[rows, t] = True
        if not every:
            open_[rows] = False
    return hits


def convex_verdicts(
    eyes: Array, aims: Array, poly: Array, see_into: float
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """(blocked, clear) (R,): the lines the exact test of `terrain_hits` is sure to find blocked
    by a strictly convex polygon seen into `see_into` from an end standing in it, and those it
    is sure to find clear; every other line, and every line past a polygon not strictly convex,
    is neither. Each verdict keeps a millimetre to spare: rounding, at a millionth of a
    millimetre, cannot change it.

    - Through: each end more than 1 mm outside the side it crosses, and the middle of the part
      inside more than 1 mm deep: the line runs over 2 mm inside and no end stands inside
      (nothing is forgiven). Blocked.
    - From an end inside: one end more than 1 mm inside every side, the other more than 1 mm
      outside some side: the line runs inside in one stretch, from that end to where it leaves
      (a convex piece is never re-entered), forgiven up to `see_into`. Blocked when over it by
      more than a millimetre, clear when under it by more than one.
    - Both ends more than 1 mm outside one side: the whole line is. Clear."""
    none = np.zeros(len(eyes), dtype=bool)
    sides = convex_sides(poly)
    if len(eyes) == 0 or sides is None:
        return none, none.copy()
    ha, hb = distance_outside(eyes, sides), distance_outside(aims, sides)
    entering, exiting = ha > hb, hb > ha
    with np.errstate(divide="ignore", invalid="ignore"):
        t = ha / (ha - hb)  # where the line crosses each side's line
    side_in = np.argmax(np.where(entering, t, -np.inf), axis=1)
    side_out = np.argmin(np.where(exiting, t, np.inf), axis=1)
    rows = np.arange(len(eyes))
    lo, hi = t[rows, side_in], t[rows, side_out]  # where it enters, where it leaves
    crossing = (
        entering[rows, side_in]
        & exiting[rows, side_out]
        & (lo > 0.0)
        & (lo < hi)
        & (hi < 1.0)
        & (ha[rows, side_in] > 1.0)
        & (hb[rows, side_out] > 1.0)
    )
    mid = np.where(crossing, (np.where(crossing, lo, 0.0) + np.where(crossing, hi, 0.0)) / 2, 0.0)
    depth = np.min(-distance_outside(eyes + mid[:, None] * (aims - eyes), sides), axis=1)
    through = crossing & (depth > 1.0)
    eye_in = np.all(ha < -1.0, axis=1) & np.any(hb > 1.0, axis=1)
    aim_in = np.all(hb < -1.0, axis=1) & np.any(ha > 1.0, axis=1)
    length = np.hypot(aims[:, 0] - eyes[:, 0], aims[:, 1] - eyes[:, 1])
    stretch = np.where(eye_in, hi, np.where(aim_in, 1.0 - lo, 0.0)) * length
    one_end = eye_in | aim_in
    blocked = through | (one_end & (stretch > see_into + 1.0))
    clear = np.any((ha > 1.0) & (hb > 1.0), axis=1) | (one_end & (stretch < see_into - 1.0))
    return np.asarray(blocked), np.asarray(clear)


def solids_near(
    eyes: Array, aims: Array, spread: Array, solids: Solids, may_block: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.int_], npt.NDArray[np.int_]]:
    """The (line, solid) pairs, in reading order, that `may_block` allows and whose centre
    lies within the solid's reach plus spread[p] plus a millimetre of the line eyes[p]-aims[p]:
    for any line from eyes[p] to a point within spread[p] of aims[p], a superset of the solids
    that may block it (each point of that line lies within spread[p] of the line to aims[p]),
    to hand to `solids_hit`.

    A cheap strip test comes first (`_strip`), and the exact test (`_gap2`) runs on the rest
    only, element for element the same arithmetic as on every pair."""
    ab = aims - eyes
    length2 = np.sum(ab * ab, axis=1)
    pair, solid = _strip(eyes, ab, length2, spread, solids, may_block)
    gap2 = _gap2(eyes, ab, length2, solids, pair, solid)
    limit = solids.reach[solid] + spread[pair] + 1.0
    near = gap2 <= limit * limit
    return pair[near], solid[near]


def solids_hit(
    eyes: Array,
    aims: Array,
    solids: Solids,
    pair: npt.NDArray[np.int_],
    solid: npt.NDArray[np.int_],
) -> npt.NDArray[np.bool_]:
    """(M,) whether solid[m] runs more than `EPS` across the line eyes[p]-aims[p], p = pair[m]
    (candidates from `solids_near`). Only a solid whose centre lies within its reach plus a
    millimetre of the line can touch it, so only those are clipped (`paired_inside_lengths`)."""
    ab = aims - eyes
    gap2 = _gap2(eyes, ab, np.sum(ab * ab, axis=1), solids, pair, solid)
    own = solids.reach[solid] + 1.0
    near = np.flatnonzero(gap2 <= own * own)
    hit = np.zeros(len(pair), dtype=bool)
    p, s = pair[near], solid[near]
    inside = paired_inside_lengths(eyes[p], aims[p], solids.polygons[s], solids.radii[s])
    hit[near] = inside > EPS
    return hit


def _strip(
    eyes: Array,
    ab: Array,
    length2: Array,
    spread: Array,
    solids: Solids,
    may_block: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.int_], npt.NDArray[np.int_]]:
    """The (pair, solid) pairs, in reading order, that `may_block` allows and whose centre
    lies in a strip about the whole line through eyes[p] along ab[p], wider than any solid's
    reach plus spread[p] plus a millimetre: a centre that near the segment is at least that
    near the whole line, so the pairs dropped (outer products over every pair and solid) are
    further from the segment than the exact test (`_gap2`) could keep."""
    # Conservative by a millimetre: a solid left out must miss every line by far more than
    # rounding, so clipping it would have found nothing.
    widest = float(solids.reach.max()) + spread + 1.0
    # The strip is one millimetre (and some) wider than the widest limit: rounding in the
    # products cannot drop a pair the exact test keeps.
    half_width = (widest + 1.0) * np.sqrt(length2) + 1.0
    offset = ab[:, 0] * eyes[:, 1] - ab[:, 1] * eyes[:, 0]
    cx, cy = solids.centres[:, 0], solids.centres[:, 1]
    found: list[tuple[npt.NDArray[np.int_], npt.NDArray[np.int_]]] = []
    block = max(1, 32768 // max(1, len(cx)))  # pairs at a time: the arrays stay in the cache
    for lo in range(0, len(eyes), block):
        hi = min(lo + block, len(eyes))
        # cross[p, s] = ab[p] x (centre[s] - eye[p]): the distance from the line times |ab|
        # (outer products, not a matrix product: BLAS threads stall on a busy machine).
        cross = np.multiply.outer(ab[lo:hi, 1], cx)
        cross -= np.multiply.outer(ab[lo:hi, 0], cy)
        cross += offset[lo:hi, None]
        np.abs(cross, out=cross)
        strip = cross <= half_width[lo:hi, None]
        strip &= may_block[lo:hi]
        p, s = np.nonzero(strip)
        found.append((p + lo, s))
    pair = np.concatenate([p for p, _ in found]) if found else np.zeros(0, dtype=int)
    solid = np.concatenate([s for _, s in found]) if found else np.zeros(0, dtype=int)
    return pair, solid


def _gap2(
    eyes: Array,
    ab: Array,
    length2: Array,
    solids: Solids,
    pair: npt.NDArray[np.int_],
    solid: npt.NDArray[np.int_],
) -> Array:
    """(M,) the squared distance from the centre of solid[m] to the segment from eyes[p]
    along ab[p], p = pair[m]: the exact candidate test, always this arithmetic."""
    rel_x = solids.centres[solid, 0] - eyes[pair, 0]
    rel_y = solids.centres[solid, 1] - eyes[pair, 1]
    abx, aby = ab[pair, 0], ab[pair, 1]
    t = (rel_x * abx + rel_y * aby) / np.where(length2 > 0, length2, 1.0)[pair]
    t = np.clip(t, 0.0, 1.0)
    return np.asarray((rel_x - t * abx) ** 2 + (rel_y - t * aby) ** 2)


# --------------------------------------------------------------------------------------------
# Square grid


def grid_cell(point: Point, box: float) -> tuple[int, int]:
    """The (column, row) of the grid square holding a point; squares of side `box` mm start at the
    table's near-left corner."""
    if box <= 0:
        raise ValueError(f"grid box must be greater than 0, got {box!r}")
    return math.floor(point[0] / box), math.floor(point[1] / box)


def grid_steps(a: tuple[int, int], b: tuple[int, int]) -> float:
    """Boxes from square a to square b, a diagonal step counting 1.5.

    The shortest path takes min(dx, dy) diagonal steps and the rest straight:
    |dx - dy| + 1.5 * min(dx, dy).
    """
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return abs(dx - dy) + 1.5 * min(dx, dy)


def grid_distance(a: Base, b: Base, box: float) -> float:
    """Boxes between the squares holding the centres of two bases."""
    return grid_steps(grid_cell((a.x, a.y), box), grid_cell((b.x, b.y), box))
