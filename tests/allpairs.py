"""Every pair of bases measured at once: edge distance, aspect and centre-to-centre sight.

Reference code kept with the tests (no part of the product asks for it): an all-pairs kernel
held, pair for pair, to the per-pair functions of `rules.geometry` (tests/test_allpairs.py).

`measure_all(scene)` answers for all N x N pairs what `measure` answers for one (the distance,
where one base stands relative to the other's facing, whether the line between their centres
is clear), in a few array passes, so a page can colour the whole table every frame. Pure numpy
and `rules`.

How each part stays cheap and exact:
- distance: two convex outlines that do not overlap are nearest at a vertex of one of them, so
  the distance is the smallest distance from a vertex of either to the SOLID other (in the
  other's own frame a clamp and a `hypot`); only pairs whose bounding circles meet are tested
  for crossing (a "+" of two thin bases, where no vertex lies inside the other).
- aspect: `geometry.aspect_matrix` as it is.
- sight, terrain: which side of a piece each centre lies is judged once per base, and clears
  most lines at once; for a convex piece, how far each remaining line runs inside it settles
  most of the rest; only lines within a millimetre of a verdict's edge go to
  `geometry.terrain_hits`.
- sight, bases: the `NEIGHBOURS` nearest bases of each end are tried first, before terrain
  (they shut most lines of a crowded table at once); for the lines still open,
  each base's angular shadow around each centre is looked up in a uniform grid of directions
  around that centre (no line is missed: see `_shadow_candidates`), and only those candidates
  are measured against the line and, when it comes within a millimetre of a verdict, clipped
  exactly (`geometry.paired_inside_lengths`).
Every pre-test keeps a millimetre to spare, so rounding never turns its verdict: the answers
are those of the per-pair functions, pair for pair (tests/test_allpairs.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from rules import geometry as geo
from rules.engine import Ruleset, get_ruleset
from rules.measure import table_of
from rules.scene import Scene

Bools = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.intp]
ScalarT = TypeVar("ScalarT", bound=np.generic)

MARGIN = 1.0
"""mm of slack in every pre-test (shadows, sides of terrain, gaps, depths): rounding, at a
millionth of a millimetre, can never move a line or a footprint across it."""


@dataclass(frozen=True, slots=True)
class AllPairs:
    """Measurements of every pair of bases of a scene (N bases, in `scene.bases()` order)."""

    ids: tuple[str, ...]
    """The base ids: row and column i of every matrix is base ids[i]."""
    distance: geo.Array
    """(N, N) edge-to-edge distance, mm; 0 on the diagonal and for touching or overlapping
    bases (`geometry.distance_matrix`)."""
    aspect: npt.NDArray[np.int8]
    """(N, N) where base i stands relative to base j's facing: 0 front, 1 flank, 2 rear
    (`geometry.aspect_matrix`)."""
    in_sight: Bools
    """(N, N) whether the straight line between the two centres is clear: it crosses no other
    base's footprint and no terrain piece that blocks sight (as the scene's ruleset's
    `measure` judges that line). Symmetric; True on the diagonal."""

    def index(self, base_id: str) -> int:
        """The row of a base, by id."""
        return self.ids.index(base_id)


@dataclass(frozen=True, slots=True)
class Footprints:
    """The bases of a scene as arrays (mm), in the shapes the vectorised parts want."""

    centres: geo.Array
    """(N, 2)"""
    forward: geo.Array
    """(N, 2) unit vector of each facing"""
    half_width: geo.Array
    """(N,) half the width of a rectangle; 0 for a round base (a point grown by `radius`)"""
    half_depth: geo.Array
    """(N,) half the depth of a rectangle; 0 for a round base"""
    radius: geo.Array
    """(N,) radius of a round base; 0 for a rectangle"""
    outlines: geo.Array
    """(N, 4, 2) `geometry.corners` of every base, to the bit"""

    @property
    def reach(self) -> geo.Array:
        """(N,) how far any part of each footprint lies from its centre."""
        return np.asarray(np.hypot(self.half_width, self.half_depth) + self.radius)

    @property
    def inscribed(self) -> geo.Array:
        """(N,) the radius of the largest circle about the centre inside each footprint."""
        return np.asarray(np.minimum(self.half_width, self.half_depth) + self.radius)


def footprints(scene: Scene) -> Footprints:
    """Every base's footprint as arrays."""
    rows = [
        (
            b.x,
            b.y,
            math.cos(math.radians(b.facing)),
            math.sin(math.radians(b.facing)),
            b.footprint.width,
            b.footprint.depth,
            b.footprint.circle,
        )
        for b in scene.bases()
    ]
    table = np.array(rows, dtype=float).reshape(-1, 7)
    x, y, cos, sin, width, depth, circle = table.T
    round_ = circle > 0
    # `geometry.corners`, step for step (the same IEEE operations give the same bits): the
    # front-right corner is (x + fx) + rx, then counter-clockwise.
    half = depth / 2
    fx, fy = cos * half, sin * half
    ratio = width / depth
    rx, ry = fy * ratio, -fx * ratio
    outlines = np.stack(
        [
            np.stack([(x + fx) + rx, (y + fy) + ry], axis=1),
            np.stack([(x + fx) - rx, (y + fy) - ry], axis=1),
            np.stack([(x - fx) - rx, (y - fy) - ry], axis=1),
            np.stack([(x - fx) + rx, (y - fy) + ry], axis=1),
        ],
        axis=1,
    )
    centres = np.stack([x, y], axis=1)
    outlines[round_] = centres[round_][:, None, :]  # a round base's outline is its centre
    return Footprints(
        centres=centres,
        forward=np.stack([cos, sin], axis=1),
        half_width=np.where(round_, 0.0, width / 2),
        half_depth=np.where(round_, 0.0, depth / 2),
        radius=np.where(round_, width / 2, 0.0),
        outlines=outlines,
    )


def measure_all(scene: Scene, ruleset: Ruleset | None = None) -> AllPairs:
    """Distance, aspect and centre-line sight of every pair of bases of a scene.

    Terrain blocks sight as `measure` under `ruleset` (by default the scene's own, the one
    `umpire resolve SCENE measure` uses) judges the line between two centres: the pieces
    `Table.terrain_obstacles` gives for that ruleset, each seen into from a base standing in it
    as far as the ruleset says. Every base other than the pair's own two blocks, whatever the
    ruleset says of bases: this is the plain geometric line, not a sheet's rule.
    """
    sheet = ruleset if ruleset is not None else get_ruleset(scene.ruleset)
    feet = footprints(scene)
    bases = list(scene.bases())
    terrain = table_of(scene).terrain_obstacles(sheet.sight_policy)
    return AllPairs(
        ids=tuple(b.id for b in bases),
        distance=_read_only(distances(feet)),
        aspect=_read_only(geo.aspect_matrix(bases)),
        in_sight=_read_only(sight_lines(feet, terrain)),
    )


def _read_only(array: npt.NDArray[ScalarT]) -> npt.NDArray[ScalarT]:
    """The array, no longer writeable: the matrices are shared by every reader of a frame."""
    array.flags.writeable = False
    return array


# --------------------------------------------------------------------------------------------
# Distance


def distances(feet: Footprints) -> geo.Array:
    """(N, N) edge-to-edge distances: the nearest vertex of either outline to the other
    outline as a solid, less the radii; 0 where the outlines overlap."""
    n = len(feet.centres)
    if n == 0:
        return np.zeros((0, 0))
    fx, fy = feet.forward[:, 0], feet.forward[:, 1]  # ahead; right is (fy, -fx)
    cx, cy = feet.centres[:, 0], feet.centres[:, 1]
    # [i, j]: base i's centre in base j's frame (across to j's right, and ahead of j) ...
    rel_x, rel_y = cx[:, None] - cx[None, :], cy[:, None] - cy[None, :]
    centre_across = rel_x * fy - rel_y * fx
    centre_ahead = rel_x * fx + rel_y * fy
    # ... and the half-depth and half-width vectors of base i in j's frame: base i's corners
    # are its centre plus or minus each of them.
    ux, uy = fx * feet.half_depth, fy * feet.half_depth
    wx, wy = fy * feet.half_width, -fx * feet.half_width
    u_across, u_ahead = np.outer(ux, fy) - np.outer(uy, fx), np.outer(ux, fx) + np.outer(uy, fy)
    w_across, w_ahead = np.outer(wx, fy) - np.outer(wy, fx), np.outer(wx, fx) + np.outer(wy, fy)
    nearest = np.full((n, n), np.inf)
    for sign in (1.0, -1.0):
        # Two corners: centre + sign * (u + w) and centre + sign * (u - w).
        for across_off, ahead_off in (
            (u_across + w_across, u_ahead + w_ahead),
            (u_across - w_across, u_ahead - w_ahead),
        ):
            across = _past(centre_across + sign * across_off, feet.half_width)
            ahead = _past(centre_ahead + sign * ahead_off, feet.half_depth)
            across += ahead
            np.minimum(nearest, across, out=nearest)
    gap = np.sqrt(np.minimum(nearest, nearest.T))
    _zero_crossings(feet, rel_x, rel_y, gap)
    out = gap - feet.radius[:, None] - feet.radius[None, :]
    np.maximum(out, 0.0, out=out)
    np.fill_diagonal(out, 0.0)
    return out


def _past(offset: geo.Array, half: geo.Array) -> geo.Array:
    """(N, N) the square of how far each offset along one axis of base j (column) lies past
    j's solid rectangle, whose half-extent on that axis is half[j] (0 within it)."""
    out = np.abs(offset)
    out -= half[None, :]
    np.maximum(out, 0.0, out=out)
    out *= out
    return out


def _zero_crossings(feet: Footprints, rel_x: geo.Array, rel_y: geo.Array, gap: geo.Array) -> None:
    """Set `gap` to 0 for two rectangles that overlap though neither has a vertex inside the
    other (a "+"): only pairs whose bounding circles meet can, and a separating-axis test
    (an axis of either rectangle that holds them apart) tells which do."""
    reach = feet.reach - feet.radius  # of the outline alone
    meet = reach[:, None] + reach[None, :] + MARGIN
    rect = (feet.half_width > 0) & (feet.half_depth > 0)
    near = (rel_x * rel_x + rel_y * rel_y <= meet * meet) & (gap > 0)
    near &= rect[:, None] & rect[None, :]
    i, j = np.nonzero(np.triu(near, 1))
    if not len(i):
        return
    fx, fy = feet.forward[:, 0], feet.forward[:, 1]
    hd, hw = feet.half_depth, feet.half_width
    dx, dy = rel_x[j, i], rel_y[j, i]  # from centre i to centre j
    separated = np.zeros(len(i), dtype=bool)
    # The axes: ahead and right of i, ahead and right of j.
    for ax, ay in ((fx[i], fy[i]), (fy[i], -fx[i]), (fx[j], fy[j]), (fy[j], -fx[j])):
        # Each rectangle's half extent along the axis, against the centres' distance on it.
        span_i = hd[i] * np.abs(fx[i] * ax + fy[i] * ay) + hw[i] * np.abs(fy[i] * ax - fx[i] * ay)
        span_j = hd[j] * np.abs(fx[j] * ax + fy[j] * ay) + hw[j] * np.abs(fy[j] * ax - fx[j] * ay)
        separated |= np.abs(dx * ax + dy * ay) >= span_i + span_j
    gap[i[~separated], j[~separated]] = 0.0
    gap[j[~separated], i[~separated]] = 0.0


# --------------------------------------------------------------------------------------------
# Sight


def sight_lines(feet: Footprints, terrain: tuple[geo.Obstacle, ...]) -> Bools:
    """(N, N) whether the line between each two centres is clear of terrain and other bases.

    Each line is judged once (i < j) and the answer mirrored: a segment crosses the same
    things both ways. The few lines a terrain piece leaves unsure are traced last, and only
    if nothing else has blocked them by then."""
    n = len(feet.centres)
    clear = np.ones((n, n), dtype=bool)
    if n < 2:
        return clear
    first, second = np.triu_indices(n, 1)
    c = feet.centres
    dx = c[None, :, 0] - c[:, None, 0]  # [i, j]: from centre i to centre j
    dy = c[None, :, 1] - c[:, None, 1]
    # The nearest bases of each end first: on a crowded table they shut about 40% of the
    # lines, as whole (N, N) arrays, so terrain has fewer lines to judge.
    shut = _neighbours_block(feet, dx, dy)
    open_ = ~(shut[first, second] | shut[second, first])
    unsure: list[tuple[geo.Obstacle, Ints]] = []
    for piece in terrain:
        lines = np.flatnonzero(open_)
        hits, maybe = _terrain_verdicts(feet.centres, first[lines], second[lines], piece)
        open_[lines[hits]] = False
        unsure.append((piece, lines[maybe]))
    lines = np.flatnonzero(open_)
    open_[lines] = ~_bases_block(feet, dx, dy, first[lines], second[lines])
    for piece, maybe in unsure:
        lines = maybe[open_[maybe]]
        if len(lines):
            eyes, aims = feet.centres[first[lines]], feet.centres[second[lines]]
            open_[lines] = ~geo.terrain_hits(eyes, aims, piece)
    clear[first, second] = open_
    clear[second, first] = open_
    return clear


# Terrain


def _terrain_verdicts(
    centres: geo.Array, first: Ints, second: Ints, piece: geo.Obstacle
) -> tuple[Ints, Ints]:
    """(blocked, unsure): which of the lines centres[first[p]]-centres[second[p]] one terrain
    piece surely blocks as `geometry.terrain_hits` judges them, and which it may (those only
    `terrain_hits` can settle); the rest it surely leaves clear.

    Settled here: by which side of the piece each centre lies (judged once per base) and, for
    a convex piece, by how far each line runs inside it, both with a millimetre to spare;
    unsure are only the lines that come within a millimetre of a verdict's edge."""
    outside = _outside(centres, piece)  # (N, S) mm outside each side
    # Both ends well beyond one side: the line misses the piece. Each centre's sides as the
    # bits of one number (the first 62 sides: fewer sides only leave more lines unsure), and
    # a line misses when its two ends share a bit.
    beyond = outside[:, :62] > MARGIN
    bits = beyond @ (1 << np.arange(beyond.shape[1], dtype=np.int64))
    unsure = np.flatnonzero((bits[first] & bits[second]) == 0)
    blocked = np.zeros(0, dtype=np.intp)
    if outside.shape[1] > 4 and len(unsure):
        eyes, aims = first[unsure], second[unsure]
        ab = centres[aims] - centres[eyes]
        length = np.hypot(ab[:, 0], ab[:, 1])
        sides = outside.T[4:]  # (E, N)
        hit, seen = _convex_verdicts(sides[:, eyes], sides[:, aims], length, piece.see_into)
        blocked = unsure[hit]
        unsure = unsure[~hit & ~seen]
    if len(unsure):
        unsure = unsure[~_beside(centres[first[unsure]], centres[second[unsure]], piece)]
    return blocked, unsure


def _beside(eyes: geo.Array, aims: geo.Array, piece: geo.Obstacle) -> Bools:
    """(P,) whether every corner of the piece lies more than a millimetre to one side of the
    whole line through eyes[p] and aims[p]: then the line misses it (a line passing a corner
    of the piece diagonally, beyond no single side)."""
    ab = aims - eyes
    length = np.hypot(ab[:, 0], ab[:, 1])
    rel_x = piece.polygon[None, :, 0] - eyes[:, None, 0]
    rel_y = piece.polygon[None, :, 1] - eyes[:, None, 1]
    side = ab[:, None, 0] * rel_y - ab[:, None, 1] * rel_x  # distance from the line * length
    margin = (MARGIN * length)[:, None]
    return np.asarray((side.min(axis=1) > margin[:, 0]) | (side.max(axis=1) < -margin[:, 0]))


def _outside(points: geo.Array, piece: geo.Obstacle) -> geo.Array:
    """(N, S) how far (mm) each point lies outside each side of the piece's bounding box
    (negative: inside it) and then, for a strictly convex outline, outside each of its sides."""
    poly = piece.polygon
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    x, y = points[:, 0], points[:, 1]
    sides = [lo[0] - x, x - hi[0], lo[1] - y, y - hi[1]]
    a, b = poly, np.roll(poly, -1, axis=0)
    edge = b - a
    area2 = float(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]))
    turns = edge[:, 0] * np.roll(edge[:, 1], -1) - edge[:, 1] * np.roll(edge[:, 0], -1)
    if len(poly) >= 3 and area2 != 0 and bool(np.all(turns * area2 > 0)):
        normal = np.stack([edge[:, 1], -edge[:, 0]], axis=1) * math.copysign(1.0, area2)
        normal /= np.hypot(normal[:, 0], normal[:, 1])[:, None]  # outward, unit length
        offset = np.sum(normal * a, axis=1)
        sides.extend((x[:, None] * normal[:, 0] + y[:, None] * normal[:, 1] - offset).T)
    return np.stack(sides, axis=1)


def _convex_verdicts(
    from_a: geo.Array, from_b: geo.Array, length: geo.Array, see_into: float
) -> tuple[Bools, Bools]:
    """(blocked, seen) (P,): the lines a strictly convex piece surely blocks, and those it
    surely leaves clear, given how far (mm) each end lies outside each side (E, P).

    The line runs inside from t_in to t_out (Cyrus-Beck), one stretch (the piece is convex).
    `terrain_hits` forgives up to `see_into` of it from each end that stands in the piece:
    - blocked: the middle of the stretch over a millimetre deep (so it truly runs inside, not
      along a side), and over a millimetre of it left when every end that is not a millimetre
      outside (it may stand in the piece, or on its edge) is forgiven;
    - seen: an end over a millimetre inside and the stretch over a millimetre shorter than
      `see_into` (all forgiven; twice `see_into` with both ends inside), or the line nowhere
      inside (a stretch of no length).
    Every other line is left to the exact trace. Side by side, not (P, E) reductions: numpy
    reduces a short trailing axis slowly."""
    lines = from_a.shape[1]
    t_in, t_out = np.zeros(lines), np.ones(lines)
    never = np.zeros(lines, dtype=bool)  # parallel to a side, outside it
    a_out, b_out = np.zeros(lines, dtype=bool), np.zeros(lines, dtype=bool)
    a_in, b_in = np.ones(lines, dtype=bool), np.ones(lines, dtype=bool)
    for ha, hb in zip(from_a, from_b, strict=True):
        drop = ha - hb  # > 0: entering through this side, < 0: leaving
        with np.errstate(divide="ignore", invalid="ignore"):
            t = ha / drop  # where the line crosses the side's line
        np.maximum(t_in, np.where(drop > 0, t, 0.0), out=t_in)
        np.minimum(t_out, np.where(drop < 0, t, 1.0), out=t_out)
        never |= (drop == 0) & (ha > 0)
        a_out |= ha > MARGIN
        b_out |= hb > MARGIN
        a_in &= ha < -MARGIN
        b_in &= hb < -MARGIN
    run = np.where(never, 0.0, np.maximum(t_out - t_in, 0.0)) * length
    middle = (t_in + t_out) / 2
    depth = np.full(lines, np.inf)  # how deep the middle of the stretch lies
    for ha, hb in zip(from_a, from_b, strict=True):
        np.minimum(depth, -(ha + middle * (hb - ha)), out=depth)
    forgiven = np.minimum(run, see_into) * ((~a_out).astype(float) + (~b_out).astype(float))
    blocked = (depth > MARGIN) & (run - forgiven > MARGIN)
    seen = (
        ((a_in | b_in) & (run < see_into - MARGIN))
        | (a_in & b_in & (run < 2 * see_into - MARGIN))  # each end forgiven its part
        | (run < geo.EPS / 10)
    )
    return blocked, seen


# Bases

ANGLE_BINS = 256
"""Bins of direction around each centre (1.4 degrees each) in the index of sight lines."""

NEIGHBOURS = 3
"""How many nearest bases of each end are tried first as blockers of a line: on a crowded
table most lines leave or reach a unit through its other bases. Measured on the examples tiled
to 120 bases (`measure_all`, CPU time, against 2): 1 costs 1.06-1.26x, 3 0.85-1.0x, 4 and 6
no better than 3."""


def _bases_block(
    feet: Footprints, dx: geo.Array, dy: geo.Array, first: Ints, second: Ints
) -> Bools:
    """(P,) whether some base other than the two blocks the line between their centres, as
    `geometry.paired_inside_lengths` (what the sight tracer clips bases with) judges it, for
    lines the nearest bases of their ends (`_neighbours_block`) left open; `dx`, `dy` are the
    (N, N) vectors between centres.

    Every base is a candidate for the lines in its shadow (`_shadow_candidates`). A candidate
    plainly through its footprint blocks (`_deep`, `_through`), one plainly past it or beyond
    its reach does not, and only the rest are clipped exactly. Every plain verdict keeps a
    millimetre to spare, so clipping would have found the same."""
    if not len(first):
        return np.zeros(0, dtype=bool)
    n, c = len(feet.centres), feet.centres
    rays = _Rays(dx.ravel(), dy.ravel(), n)
    distance = np.sqrt(dx * dx + dy * dy)
    spacing = distance.ravel()
    reach_of = feet.reach + MARGIN
    blocked = np.zeros(len(first), dtype=bool)
    line, base = _shadow_candidates(feet, dx, dy, distance, first, second)
    eye, aim = first[line], second[line]
    # Not the aim itself, and not beyond the aim's end of the line: a base farther from the
    # eye than the line is long, by more than its reach and a millimetre, cannot touch it.
    to_base, to_aim = eye * n + base, eye * n + aim
    keep = (base != aim) & (spacing[to_base] - reach_of[base] <= spacing[to_aim])
    line, base, eye, aim = line[keep], base[keep], eye[keep], aim[keep]
    # Plainly deep inside a footprint: blocked. Only the candidates of lines still open, and
    # within reach (and a millimetre) of their segment, are looked at further.
    gaps = rays.gaps(eye, aim, base)
    blocked[line[_deep(feet, base, gaps.gap2, gaps.length2)]] = True
    reach = reach_of[base]
    live = np.flatnonzero((gaps.gap2 <= reach * reach) & ~blocked[line])
    line, base, eye, aim = line[live], base[live], eye[live], aim[live]
    near = gaps.take(live).near()
    blocked[line[_through(feet, base, near)]] = True
    # On a line not yet blocked, and not plainly past the footprint: clip exactly.
    clip = np.flatnonzero(~blocked[line] & ~(near.across > _support(feet, base, near) + MARGIN))
    if len(clip):
        with np.errstate(over="ignore"):  # a line far shorter than a side: t is infinite
            inside = geo.paired_inside_lengths(
                c[eye[clip]], c[aim[clip]], feet.outlines[base[clip]], feet.radius[base[clip]]
            )
        blocked[line[clip[inside > geo.EPS]]] = True
    return blocked


def _neighbours_block(feet: Footprints, dx: geo.Array, dy: geo.Array) -> Bools:
    """(N, N) whether one of the `NEIGHBOURS` nearest bases of centre i (other than j) surely
    blocks the line from centre i to centre j (`_deep`): as whole (N, N) arrays, one per
    neighbour, so no line is gathered."""
    n = len(feet.centres)
    spacing = dx * dx + dy * dy
    np.fill_diagonal(spacing, np.inf)
    shut = np.zeros((n, n), dtype=bool)
    if n < 3:
        return shut
    rows = np.arange(n)
    # (a base is its own farthest: never more than the n - 1 others)
    for base in np.argsort(spacing, axis=1)[:, : min(NEIGHBOURS, n - 1)].T:
        kx, ky = dx[rows, base][:, None], dy[rows, base][:, None]  # to the neighbour
        t = (kx * dx + ky * dy) / np.where(spacing > 0, spacing, 1.0)
        np.clip(t, 0.0, 1.0, out=t)
        ox, oy = kx - t * dx, ky - t * dy
        gap2 = ox * ox + oy * oy
        deep = np.maximum(feet.inscribed[base] - MARGIN, 0.0)[:, None]
        shut |= (gap2 < deep * deep) & (spacing > MARGIN * MARGIN) & (base[:, None] != rows)
    return shut


def _deep(feet: Footprints, base: Ints, gap2: geo.Array, length2: geo.Array) -> Bools:
    """Whether a line over a millimetre long passes more than a millimetre inside the circle
    inscribed in the footprint of `base`: then it runs over half a millimetre inside the
    footprint, which clipping finds whatever rounding does."""
    deep = np.maximum(feet.inscribed[base] - MARGIN, 0.0)
    return np.asarray((gap2 < deep * deep) & (length2 > MARGIN * MARGIN))


class _Near(NamedTuple):
    """Where a base's centre lies from a segment between two centres (mm, squared where
    named so)."""

    gap2: geo.Array
    """squared distance from the base's centre to the segment"""
    length2: geo.Array
    """squared length of the segment"""
    length: geo.Array
    across: geo.Array
    """distance from the base's centre to the whole line"""
    along: geo.Array
    """how far along the segment from its eye the base's centre lies"""
    normal_x: geo.Array
    """unit normal of the line, x"""
    normal_y: geo.Array


@dataclass(frozen=True, slots=True)
class _Rays:
    """The vectors between every two centres, flattened: [i * n + j] from centre i to j."""

    dx: geo.Array
    dy: geo.Array
    n: int

    def gaps(self, eye: Ints, aim: Ints, base: Ints) -> _Gaps:
        """How far centre base[m] lies from the segment from centre eye[m] to centre aim[m]
        (squared), and what the rest of `_Near` is made from."""
        to_base, to_aim = eye * self.n + base, eye * self.n + aim
        kx, ky = self.dx[to_base], self.dy[to_base]
        ax, ay = self.dx[to_aim], self.dy[to_aim]
        length2 = ax * ax + ay * ay
        length = np.sqrt(length2)
        safe = np.where(length > 0, length, 1.0)
        dot = kx * ax + ky * ay
        t = np.clip(dot / (safe * safe), 0.0, 1.0)
        ox, oy = kx - t * ax, ky - t * ay
        return _Gaps(ox * ox + oy * oy, length2, length, safe, dot, kx, ky, ax, ay)


class _Gaps(NamedTuple):
    """`_Rays.gaps`: each candidate's squared gap to its segment, and the numbers `near`
    finishes the `_Near` from, for the few candidates still wanted."""

    gap2: geo.Array
    length2: geo.Array
    length: geo.Array
    safe: geo.Array
    dot: geo.Array
    kx: geo.Array
    ky: geo.Array
    ax: geo.Array
    ay: geo.Array

    def take(self, which: Ints) -> _Gaps:
        return _Gaps(*(part[which] for part in self))

    def near(self) -> _Near:
        safe, kx, ky, ax, ay = self.safe, self.kx, self.ky, self.ax, self.ay
        across = np.abs(ax * ky - ay * kx) / safe
        return _Near(
            self.gap2, self.length2, self.length, across, self.dot / safe, -ay / safe, ax / safe
        )


def _support(feet: Footprints, base: Ints, near: _Near) -> geo.Array:
    """How far each footprint reaches from its centre across the line (along its normal): a
    line farther than this from the centre misses it, a line nearer cuts it."""
    fx, fy = feet.forward[base, 0], feet.forward[base, 1]
    nx, ny = near.normal_x, near.normal_y
    return np.asarray(
        feet.half_width[base] * np.abs(nx * fy - ny * fx)
        + feet.half_depth[base] * np.abs(nx * fx + ny * fy)
        + feet.radius[base]
    )


def _through(feet: Footprints, base: Ints, near: _Near) -> Bools:
    """Whether the segment surely runs through the footprint: the whole line cuts it over a
    millimetre inside its reach across the line (so along a chord over 2 mm long), and that
    chord, within the footprint's reach of its centre, lies over a millimetre inside the
    segment's ends."""
    reach = feet.reach[base] + MARGIN
    return np.asarray(
        (near.across < _support(feet, base, near) - MARGIN)
        & (near.along > reach)
        & (near.along < near.length - reach)
    )


def _shadow_candidates(
    feet: Footprints, dx: geo.Array, dy: geo.Array, distance: geo.Array, first: Ints, second: Ints
) -> tuple[Ints, Ints]:
    """(line, base) pairs among which are every base (other than first[p]) whose centre lies
    within its reach plus a millimetre of line p, from centre first[p] to centre second[p].

    Seen from a centre i, a base k at distance r whose centre is within rho of a line from i
    lies within asin(rho / r) of the line's direction (or within rho of i itself, when every
    direction counts): its shadow. Lines are indexed by their eye and a uniform grid of
    `ANGLE_BINS` directions around it; each base's shadow covers a run of bins, so its
    candidates are a run of the index, found by counting, with no search per line. `dx`, `dy`
    and `distance` are the (N, N) vectors and distances between centres."""
    n, bins = len(feet.centres), ANGLE_BINS
    per_bin = bins / (2 * math.pi)
    # Direction of each line from its eye, in bins; lines sorted by (eye, bin).
    heading = np.arctan2(dy, dx) + math.pi  # [0, 2 pi]
    slot = np.minimum((heading.ravel()[first * n + second] * per_bin).astype(np.intp), bins - 1)
    key = first * bins + slot
    order = np.argsort(key, kind="stable")
    before = np.zeros(n * bins + 1, dtype=np.intp)  # lines in the cells before each cell
    np.cumsum(np.bincount(key, minlength=n * bins), out=before[1:])
    # Each base's shadow from each eye, as a run of bins (two where it wraps past 0).
    ratio = (feet.reach + MARGIN)[None, :] / np.where(distance > 0, distance, 1.0)
    half = np.arcsin(np.minimum(ratio, 1.0)) + 1e-9
    lo = np.floor((heading - half) * per_bin).astype(np.intp)
    hi = np.floor((heading + half) * per_bin).astype(np.intp)
    everywhere = (ratio >= 1.0) | (hi - lo >= bins - 1)
    lo[everywhere], hi[everywhere] = 0, bins - 1
    np.fill_diagonal(hi, -1)  # a base does not shade itself
    np.fill_diagonal(lo, 0)
    eye = np.arange(n)[:, None] * bins
    first_cell = (eye + np.maximum(lo, 0)).ravel()
    last_cell = (eye + np.minimum(hi, bins - 1)).ravel()
    under, over = np.flatnonzero(lo < 0), np.flatnonzero(hi >= bins)
    # Shadow (i, k) is number i * n + k; the wrapped parts follow, numbered alike.
    shadow = np.concatenate([np.arange(n * n), under, over])
    first_cell = np.concatenate(
        [first_cell, under // n * bins + lo.ravel()[under] + bins, over // n * bins]
    )
    last_cell = np.concatenate(
        [last_cell, under // n * bins + bins - 1, over // n * bins + hi.ravel()[over] - bins]
    )
    start, stop = before[first_cell], before[last_cell + 1]
    size = np.maximum(stop - start, 0)
    # The runs laid end to end: every line in each run, with the base casting it.
    run = np.repeat(np.arange(len(size)), size)
    ends = np.cumsum(size)
    place = np.arange(len(run)) + (start - (ends - size))[run]
    return order[place], shadow[run] % n
