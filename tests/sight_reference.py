"""The plain, per-line sight tracing the product's batched tracer (`geometry.sight_many`,
`geometry.terrain_hits`, `measure.Table.sights` and `seen`) is held to, line for line; the
pair-by-pair edge distance the all-pairs `geometry.distance_matrix` is held to; one pair's
sight by the product's tracer (`pair_sight`, past the obstacles the Table would trace it past:
`obstacles`) and one pair's fire arc (`base_in_arc`), which the batched questions of
`measure.Table` are held to.

Reference code kept with the tests (no part of the product asks for it): every line clipped
against every obstacle, one at a time, with nothing skipped. Pure numpy and `rules.geometry`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rules import geometry
from rules.geometry import (
    EPS,
    REACH,
    Array,
    Obstacle,
    Sight,
    _cross,
    _edges,
    convex_distance,
    corners,
    forward,
    point_in_polygon,
    point_segment_distance,
    radius,
)
from rules.measure import SightPolicy, Table
from rules.scene import Base, Point


@dataclass(frozen=True, slots=True)
class BaseObstacle(Obstacle):
    """A base as an obstacle to sight: solid and convex, its outline `geometry.corners` gives
    (counter-clockwise), grown by `radius` (a round base's outline is its centre four times).
    The product traces bases as `geometry.Solids`; `pair_sight` hands these over as such."""

    radius: float = 0.0


def _radius(obstacle: Obstacle) -> float:
    return obstacle.radius if isinstance(obstacle, BaseObstacle) else 0.0


def edge_distance(a: Base, b: Base) -> float:
    """Edge-to-edge distance between two bases in mm (0 when they touch or overlap): every edge
    of one against every edge of the other (`geometry.convex_distance`)."""
    return float(convex_distance(corners(a), radius(a), corners(b), radius(b)))


def ray_blocked(
    a: Point, b: Point, obstacle: Obstacle, a_inside_ok: bool = True, b_inside_ok: bool = True
) -> bool:
    """Whether the segment a-b is blocked by the obstacle.

    It is blocked when it runs inside the obstacle for more than `EPS`, except for up to
    `see_into` at an end standing inside it (that end's own terrain).
    """
    total, from_a, from_b = length_inside(a, b, obstacle)
    if total <= EPS:
        return False
    forgiven = 0.0
    if a_inside_ok and from_a > 0:
        forgiven += min(from_a, obstacle.see_into)
    if b_inside_ok and from_b > 0:
        forgiven += min(from_b, obstacle.see_into)
    return total - forgiven > EPS


def solid_inside_lengths(a: Array, b: Array, polys: Array, radii: Array) -> Array:
    """Length (R, P) of each segment a[r]-b[r] inside each solid convex obstacle p (a base).

    Vectorised Cyrus-Beck clipping against counter-clockwise convex outlines (R x P x edges);
    an outline with no area is a round base, whose chord is used instead. A segment running
    along an edge is not inside.
    """
    a = np.asarray(a, dtype=float).reshape(-1, 2)
    b = np.asarray(b, dtype=float).reshape(-1, 2)
    n_rays, n_obs = len(a), len(polys)
    if n_rays == 0 or n_obs == 0:
        return np.zeros((n_rays, n_obs))
    d = b - a  # (R, 2)
    length = np.hypot(d[:, 0], d[:, 1])  # (R,)
    e1, e2 = _edges(polys)  # (P, k, 2)
    edge = e2 - e1
    normal = np.stack([edge[..., 1], -edge[..., 0]], axis=-1)  # outward for CCW
    num = np.einsum("pki,rpki->rpk", normal, a[:, None, None, :] - e1[None])  # n.(a - p)
    den = np.einsum("pki,ri->rpk", normal, d)  # n.d
    with np.errstate(divide="ignore", invalid="ignore"):
        t = -num / den
    entering = den < -1e-12
    exiting = den > 1e-12
    parallel_out = (~entering & ~exiting) & (num >= -EPS * np.maximum(1.0, np.abs(den)))
    degenerate = np.all(np.abs(edge) < 1e-12, axis=(-1, -2))  # round bases
    parallel_out &= ~degenerate[None, :, None]
    t_in = np.max(np.where(entering, t, 0.0), axis=-1)
    t_out = np.min(np.where(exiting, t, 1.0), axis=-1)
    t_in = np.clip(t_in, 0.0, 1.0)
    t_out = np.clip(t_out, 0.0, 1.0)
    inside = np.where(np.any(parallel_out, axis=-1), 0.0, np.maximum(0.0, t_out - t_in))
    out = inside * length[:, None]
    if np.any(degenerate):
        c = polys[degenerate][:, 0, :]  # (C, 2)
        r = radii[degenerate]
        with np.errstate(divide="ignore", invalid="ignore"):
            t0 = np.einsum("rci,ri->rc", c[None] - a[:, None], d) / (length**2)[:, None]
        foot = a[:, None] + t0[..., None] * d[:, None]
        perp = np.hypot(*np.moveaxis(foot - c[None], -1, 0))
        half = np.sqrt(np.maximum(0.0, r[None] ** 2 - perp**2)) / length[:, None]
        lo = np.clip(t0 - half, 0.0, 1.0)
        hi = np.clip(t0 + half, 0.0, 1.0)
        chord = np.where(perp < r[None], np.maximum(0.0, hi - lo), 0.0) * length[:, None]
        out[:, degenerate] = chord
    return np.asarray(np.where(length[:, None] > EPS, out, 0.0))


def sight_points(base: Base) -> Array:
    """The points of one base a sight line aims at, worked out on their own: its centre and
    its corners (a round base: its rim ahead, behind and to each side), pulled a billionth of
    the way towards the centre; `geometry.sight_points` does every base at once."""
    c = np.array([base.x, base.y])
    if base.footprint.circle:
        f = forward(base.facing)
        rim = [c + f * radius(base), c - f * radius(base)]
        side = np.array([f[1], -f[0]]) * radius(base)
        rim += [c + side, c - side]
        pts = np.array([c, *rim])
    else:
        pts = np.vstack([c[None], corners(base)])
    return c + (pts - c) * (1 - 1e-9)


def sight(viewer: Base, target: Base, obstacles: Sequence[Obstacle]) -> Sight:
    """Trace sight lines from the viewer's centre to the target's centre and corners, as
    `geometry.sight` must.

    Bases (`BaseObstacle`) are clipped against every sight line as solids; terrain pieces,
    which may be concave and seen into, line by line (`ray_blocked`) after a bounding-box test.
    """
    eye = np.array([viewer.x, viewer.y])
    points = sight_points(target)
    hits = np.zeros((len(points), len(obstacles)), dtype=bool)
    solid = [k for k, o in enumerate(obstacles) if isinstance(o, BaseObstacle)]
    if solid:
        polys = np.stack([obstacles[k].polygon for k in solid])
        radii = np.array([_radius(obstacles[k]) for k in solid])
        lengths = solid_inside_lengths(
            np.repeat(eye[None], len(points), axis=0), points, polys, radii
        )
        hits[:, solid] = lengths > EPS
    lo = np.minimum(points.min(axis=0), eye)
    hi = np.maximum(points.max(axis=0), eye)
    solid_set = set(solid)
    for k, o in enumerate(obstacles):
        if k in solid_set:
            continue
        if np.any(o.polygon.min(axis=0) > hi) or np.any(o.polygon.max(axis=0) < lo):
            continue
        for r, p in enumerate(points):
            hits[r, k] = ray_blocked((eye[0], eye[1]), (float(p[0]), float(p[1])), o)
    blocked_by = tuple(obstacles[int(k)].id for k in np.flatnonzero(hits.any(axis=0)))
    clear = int(np.sum(~hits.any(axis=1)))
    return Sight(len(points), clear, blocked_by)


def length_inside(a: Point, b: Point, obstacle: Obstacle) -> tuple[float, float, float]:
    """How much of segment a-b runs inside an obstacle, polygon or round: (total, from_a,
    from_b), one segment at a time (`geometry.inside_lengths` is held to it).

    `from_a` is the length of the first inside stretch when `a` itself is inside (else 0), and
    `from_b` likewise at `b`, so callers can forgive the terrain a figure stands in.
    """
    pa, pb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ab = pb - pa
    length = float(np.hypot(*ab))
    if length <= EPS:
        return 0.0, 0.0, 0.0
    r = _radius(obstacle)
    if r > 0:
        # A round base: the chord of the circle around its centre.
        c = obstacle.polygon[0]
        t0 = float(np.dot(c - pa, ab) / length**2)
        perp = float(np.hypot(*(pa + t0 * ab - c)))
        if perp >= r:
            return 0.0, 0.0, 0.0
        half = math.sqrt(r**2 - perp**2) / length
        lo, hi = max(0.0, t0 - half), min(1.0, t0 + half)
        if hi <= lo:
            return 0.0, 0.0, 0.0
        total = (hi - lo) * length
        return total, total if lo == 0 else 0.0, total if hi == 1 else 0.0
    poly = obstacle.polygon
    e1, e2 = _edges(poly)
    edge = e2 - e1
    denom = _cross(ab, edge)
    ok = np.abs(denom) > 1e-12
    safe = np.where(ok, denom, 1.0)
    t = _cross(e1 - pa, edge) / safe
    s = _cross(e1 - pa, ab) / safe
    t_lo, t_hi = EPS / length, 1 - EPS / length  # split points this near an end are the end
    hits = t[ok & (t > t_lo) & (t < t_hi) & (s >= 0) & (s <= 1)]
    tv = _vertex_params(pa, ab, poly)
    ts = np.unique(np.concatenate([[0.0, 1.0], hits, tv[(tv > t_lo) & (tv < t_hi)]]))
    mids = pa + ((ts[:-1] + ts[1:]) / 2)[:, None] * ab
    inside = point_in_polygon(mids, poly) & (np.diff(ts) > 0)
    # A midpoint exactly on an edge (a ray along a side) is not inside.
    if inside.any():
        on_edge = point_segment_distance(mids[:, None, :], e1[None], e2[None]).min(axis=1) <= EPS
        inside &= ~on_edge
    spans = np.diff(ts) * length
    total = float(spans[inside].sum())
    from_a = float(spans[0]) if inside[0] else 0.0
    from_b = float(spans[-1]) if inside[-1] else 0.0
    return total, from_a, from_b


def _vertex_params(pa: Array, ab: Array, poly: Array) -> Array:
    """Parameters along a-b of polygon vertices that lie on the segment (grazing corners)."""
    rel = poly - pa
    length2 = float(np.dot(ab, ab))
    t = rel @ ab / length2
    off = np.abs(_cross(ab, rel)) / math.sqrt(length2)
    return t[(off <= EPS) & (t > 0) & (t < 1)]


def pair_sight(viewer: Base, target: Base, obstacles: Sequence[Obstacle]) -> Sight:
    """The product's batched tracer (`geometry.sight_many`) asked for one pair: the sight lines
    from the viewer's centre to the target's centre and corners past the obstacles: terrain
    judged by `terrain_hits`, bases (`BaseObstacle`) clipped as `geometry.Solids`. The
    hand-worked cases of tests/test_geometry.py ask it."""
    eye = np.array([[viewer.x, viewer.y]])
    terrain = [o for o in obstacles if not isinstance(o, BaseObstacle)]
    bases = [o for o in obstacles if isinstance(o, BaseObstacle)]
    polys = np.array([o.polygon for o in bases], dtype=float).reshape(-1, 4, 2)
    solids = geometry.Solids.of(
        tuple(o.id for o in bases), polys, np.array([_radius(o) for o in bases])
    )
    every = np.ones((1, len(bases)), dtype=bool)
    return geometry.sight_many(
        eye, geometry.sight_points(geometry.shapes([target])), terrain, solids, every
    )[0]


def arc_regions(shooter: Base, half_angle: float) -> list[Array] | None:
    """The fire arc as convex polygons (counter-clockwise), or None when it is all around.

    The arc starts at the shooter's front edge: from each front corner a ray leaves at
    `half_angle` degrees outward from straight ahead (0 = a corridor the width of the base,
    90 = everything in front of the front edge). 180 or more is all around.
    """
    if not 0 <= half_angle <= 360:
        raise ValueError(f"half_angle must be between 0 and 360 degrees, got {half_angle!r}")
    if half_angle >= 180:
        return None
    # Plain floats (a `suggest` asks this of every firing base): forward (fx, fy), right
    # (fy, -fx), the front corners fr and fl.
    t = math.radians(shooter.facing)
    fx, fy = math.cos(t), math.sin(t)
    if shooter.footprint.circle:
        # A round base shoots from the point of its rim straight ahead.
        r = radius(shooter)
        fr = fl = (shooter.x + fx * r, shooter.y + fy * r)
    else:
        ahead_x = shooter.x + fx * shooter.footprint.depth / 2
        ahead_y = shooter.y + fy * shooter.footprint.depth / 2
        side_x, side_y = fy * shooter.footprint.width / 2, -fx * shooter.footprint.width / 2
        fr = (ahead_x + side_x, ahead_y + side_y)
        fl = (ahead_x - side_x, ahead_y - side_y)

    def ray(start: tuple[float, float], x: float, y: float, deg: float) -> list[float]:
        """The point REACH from `start` along (x, y) turned `deg` degrees counter-clockwise."""
        c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
        return [start[0] + REACH * (x * c - y * s), start[1] + REACH * (x * s + y * c)]

    if half_angle < 90:
        # The two rays' far ends and, between them, the points REACH straight ahead of each
        # front corner: the arc is REACH deep however near 90 degrees it opens (the two far
        # ends alone would be only REACH cos(half_angle) ahead of the front edge).
        right, left = ray(fr, fx, fy, -half_angle), ray(fl, fx, fy, half_angle)
        return [np.array([fr, right, ray(fr, fx, fy, 0.0), ray(fl, fx, fy, 0.0), left, fl])]
    front = np.array(
        [
            ray(fr, fy, -fx, 0.0),
            ray(fr, fy + fx, fy - fx, 0.0),
            ray(fl, fx - fy, fy + fx, 0.0),
            ray(fl, -fy, fx, 0.0),
        ]
    )
    regions = [front]
    if half_angle > 90:
        extra = half_angle - 90
        regions.append(np.array([fr, ray(fr, fy, -fx, -extra), ray(fr, fy, -fx, 0.0)]))
        regions.append(np.array([fl, ray(fl, -fy, fx, 0.0), ray(fl, -fy, fx, extra)]))
    return regions


def base_in_arc(shooter: Base, target: Base, half_angle: float) -> bool:
    """Whether any part of `target`'s footprint lies in the shooter's fire arc, one pair at a
    time: what `Table.in_arcs` and `any_in_arc` answer in batches."""
    regions = arc_regions(shooter, half_angle)
    if regions is None:
        return True
    foot, r = corners(target), radius(target)
    return any(bool(convex_distance(region, 0.0, foot, r) <= EPS) for region in regions)


def obstacle_of_base(base: Base) -> BaseObstacle:
    """A base as an obstacle to sight."""
    return BaseObstacle(base.id, corners(base), radius=radius(base))


def obstacles(table: Table, policy: SightPolicy, viewer: Base, target: Base) -> list[Obstacle]:
    """What may block the sight lines from `viewer` to `target` under a policy, as `sight` and
    `pair_sight` take them: the reference `Table.sights` is held to."""
    out = list(table.terrain_obstacles(policy))
    pair = np.array([table.index[viewer.id]]), np.array([table.index[target.id]])
    may_block = table._terrain_may_block(policy, *pair)
    if may_block is not None:
        out = [o for o, blocks in zip(out, may_block[0].tolist(), strict=True) if blocks]
    if policy.bases_block:  # every base of another unit than the two, but those seen over
        near = policy.shoot_over_within
        for b in table.bases:
            if b.unit_id in (viewer.unit_id, target.unit_id):
                continue
            if near is None or table.distance(viewer, b) > near:
                out.append(obstacle_of_base(b))
    return out
