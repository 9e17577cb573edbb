"""The measuring layer: every measurement of one scene, computed once, batched, and shared by
every question and every ruleset about it.

`table_of(scene)` hands out the scene's `Table` (the last few scenes asked about are kept, so a
question and the page's many questions about one frame share one set of measurements). A
`Table` answers, in millimetres:
- edge distances: between every two bases (`distances`, `distance`, `block`, `within`),
  between units (`gap` names the nearest pair, its distance and uncertainty, `unit_gaps`
  only the distance), with their uncertainty (`uncertainty`);
- aspects: where each base stands relative to every other's facing (`aspects`);
- terrain: what each base stands in (`standing`, `centre_in`);
- sight under a frozen `SightPolicy` (what blocks, how deep a line may run into the terrain
  an end stands in, whether bases block, whether the entire base must be seen, how far the
  terrain lets a base be seen): the lines traced (`sights`), the verdicts (`seen`, `seen_pairs`,
  remembered per policy), how far the terrain lets a pair see (`sight_reach`, `hiding`);
- cover under a frozen `CoverPolicy` (`cover`);
- a square grid: the box each unit stands in, the units in each box, the steps between units
  (`grid`); and which unit an id names (`unit_of`).

Rulesets ask; they keep nothing between questions. Every memo here is filled under the table's
one lock and never changed once filled, so the page's threads may ask about one scene at once.
Pure: numpy and `rules` only; never imports a ruleset, cv2, flask or `vision`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from types import MappingProxyType
from typing import Any, NamedTuple, TypeVar, cast

import numpy as np
import numpy.typing as npt

from . import geometry as geo
from .answer import Threshold
from .scene import Base, Cover, Scene, Terrain, TerrainKind, Unit

_T = TypeVar("_T", bound=np.generic)
_V = TypeVar("_V")
_K = TypeVar("_K", bound=Hashable)
_UNKNOWN = object()
"""`Table._remember`'s mark of a question not answered yet (None may be an answer)."""


@dataclass(frozen=True, slots=True, eq=False)
class SightPolicy:
    """How a sheet judges sight: frozen, so the answers under it can be remembered per scene
    (keyed by the policy itself: each ruleset class makes its one policy once, and memos look
    it up thousands of times a `suggest`, so it hashes by identity).

    Sight lines run from the viewer's centre to the target's centre and corners
    (`geometry.sight_points`)."""

    blocking: frozenset[TerrainKind]
    """Terrain kinds that block sight lines across them."""
    see_into: tuple[tuple[TerrainKind, float], ...] = ()
    """(kind, mm): how deep a sight line may run into a blocking piece at an end that stands in
    it (0 for the kinds not listed)."""
    bases_block: bool = False
    """Whether bases of other units than the two block sight lines."""
    shoot_over_within: float | None = None
    """With `bases_block`: bases no farther than this (mm, edge to edge) from the viewer do not
    block its lines (it sees over them); None: every other unit's base blocks."""
    entire_base: bool = False
    """A target is in sight only when every line to it is clear (else when any is)."""
    visibility_within: tuple[tuple[TerrainKind, float], ...] = ()
    """(kind, mm): inside one piece of the kind, two bases whose centres both stand in it see
    each other up to this far (edge to edge) and no further, and the piece does not block the
    lines between them."""
    hidden_in: frozenset[TerrainKind] = frozenset()
    """Kinds of terrain that hide a base whose centre stands in them from viewers outside the
    piece (a piece the scene says gives no cover hides nobody)."""
    hidden_edge: float = 0.0
    """mm: a hidden base standing this near the edge of the pieces hiding it shows itself."""
    hidden_seen_within: float = math.inf
    """mm: how far a hidden base that shows itself is seen, edge to edge."""
    revealed_by: str | None = None
    """A unit flag (`fired`) that shows the unit's hidden bases wherever they stand."""


@dataclass(frozen=True, slots=True, eq=False)
class CoverPolicy:
    """How a sheet reads cover: frozen, so the answers under it can be remembered per scene
    (keyed, as `SightPolicy`, by the policy itself)."""

    cover: tuple[tuple[TerrainKind, Cover], ...]
    """(kind, cover) a terrain piece gives when the scene does not say; kinds not listed give
    none."""
    obstacles: frozenset[TerrainKind]
    """Linear terrain that gives cover to a base close behind it."""
    behind_within: float
    """How close (mm, edge to edge) behind a cover obstacle a target must be to claim it."""

    def cover_of(self, terrain: Terrain) -> Cover:
        """The cover a piece gives: the scene's word, else the sheet's for its kind."""
        if terrain.cover is not None:
            return terrain.cover
        return dict(self.cover).get(terrain.kind, Cover.NONE)


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


Box = tuple[int, int]
"""A square of a grid: (column, row), counted from the table's near-left corner."""


@dataclass(frozen=True, slots=True)
class GridPlace:
    """Where a unit stands on a square grid (`Table.grid`)."""

    box: Box
    """The box holding the mean of its bases' centres."""
    edge_margin: float
    """mm from the mean of its bases' centres to the nearest side of its box."""
    uncertainty: float
    """mm: the largest position uncertainty of its bases."""
    boxes: frozenset[Box]
    """Every box the centre may be in, given that uncertainty (just `box` when it is clear)."""


def steady_on_grid(a: GridPlace, b: GridPlace, judge: Callable[[Box, Box], object]) -> bool:
    """True when `judge` gives one answer for every box each of two units may stand in
    (`GridPlace.boxes`): the measurement's uncertainty cannot change it."""
    return len({judge(x, y) for x in a.boxes for y in b.boxes}) == 1


@dataclass(frozen=True, slots=True, eq=False)
class Pattern:
    """Points laid from one base toward another, each with a whole-number weight (a chance,
    a share of a template): a rocket's bursts, a template. In mm, in the frame of the line
    from the source's centre to the aim's (x along it, y to its left), from the point half
    the source's depth ahead of its centre along that line. Frozen, and keyed by identity as
    the policies are: a ruleset makes each of its patterns once (`Table.laid_many`)."""

    points: geo.Array
    """(P, 2) mm"""
    weights: npt.NDArray[np.int64]
    """(P,) each point's weight"""


def flight_pattern(
    leg: float, legs: int, turns: Sequence[float], p_stop: Fraction
) -> tuple[Pattern, int]:
    """Where a thing flying from (0, 0) along +x may come down, as a `Pattern`, and the
    denominator D of its weights (a point's chance is its weight / D). Before each leg of `leg`
    mm it turns by one of `turns` (degrees to the left, each alike likely; the turns add up);
    after each it comes down with chance `p_stop`; after `legs` legs it is spent, nowhere. The
    3^k points of leg k (for three turns) each come down with (1/T)^k (1 - p_stop)^(k-1)
    p_stop, T the number of turns."""
    points: list[tuple[float, float]] = []
    chances: list[Fraction] = []
    paths = [((0.0, 0.0), 0.0)]
    for k in range(1, legs + 1):
        chance = Fraction(1, len(turns)) ** k * (1 - p_stop) ** (k - 1) * p_stop
        paths = [
            ((x + leg * math.cos(t), y + leg * math.sin(t)), heading + turn)
            for (x, y), heading in paths
            for turn in turns
            for t in (math.radians(heading + turn),)
        ]
        points += [point for point, _ in paths]
        chances += [chance] * len(paths)
    whole = math.lcm(*(c.denominator for c in chances))
    weights = np.array([int(c * whole) for c in chances], dtype=np.int64)
    return Pattern(np.array(points), weights), whole


@dataclass(frozen=True, slots=True)
class Laid:
    """Where a pattern fell (`Table.laid_many`), in table order."""

    on: tuple[tuple[Base, int], ...]
    """Each base some points lie on, with the sum of their weights."""
    near: tuple[Base, ...]
    """The bases a point lies within the source's position uncertainty of (their edge, inside
    or out): too close to call."""


_Near = tuple[npt.NDArray[np.int_], npt.NDArray[np.int_]]
"""(line, base) (M,) each: a base that may block a line of a batch (`geometry.solids_near`), as
`Table._centre_lines` finds them for the lines to a target's other sight points."""


@dataclass(frozen=True, slots=True)
class Gap:
    """The nearest pair of bases of two groups (`Table.gap`), their edge distance and its
    uncertainty: what every contact and range rule measures."""

    a: Base
    b: Base
    distance: float
    """mm"""
    uncertainty: float
    """mm: the combined position uncertainty of `a` and `b`."""

    def against(self, limit: float) -> Threshold:
        """The gap against a rule's limit (mm)."""
        return Threshold(self.distance, limit, self.uncertainty)

    @property
    def contact(self) -> Threshold:
        """The gap against 0: base contact."""
        return self.against(0.0)

    @property
    def touching(self) -> bool:
        """In base contact, or too close to call."""
        return not self.contact.beyond


class Table:
    """The measurements of one scene, each computed once when first asked. Lengths in mm.

    Memos are filled under `_lock`, and an answer once filled in never changes (arrays handed
    out are read-only), so answers are the same whichever thread asks first. Two kinds of memo
    grow in place and are read without the lock: the dicts of `_remember_each` and the `seen`
    matrix (-1 until a pair is judged). That is safe because each entry is written whole, under
    the lock, before any reader can find it: a reader that misses it takes the lock and looks
    again."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.bases: tuple[Base, ...] = tuple(scene.bases())
        self.index = {b.id: i for i, b in enumerate(self.bases)}
        self._lock = threading.RLock()
        self._memo: dict[Hashable, Any] = {}

    def _remember(self, key: Hashable, make: Callable[[], _V]) -> _V:
        """The answer remembered under `key` (a question's name and arguments), made by `make`
        under the lock the first time it is asked, and the same object ever after."""
        found = self._memo.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            with self._lock:
                found = self._memo.get(key, _UNKNOWN)
                if found is _UNKNOWN:
                    found = self._memo[key] = make()
        return cast(_V, found)

    def _remember_each(
        self, name: Hashable, keys: Sequence[_K], make: Callable[[list[_K]], Sequence[_V]]
    ) -> list[_V]:
        """The answer remembered under `name` for each of `keys`: those not known yet made
        together by `make` (given each once, in order) under the lock, the first time any is
        asked, and the same objects ever after."""
        memo: dict[_K, _V] = self._remember(name, dict)
        if any(k not in memo for k in keys):
            with self._lock:
                todo = [k for k in dict.fromkeys(keys) if k not in memo]
                if todo:
                    memo.update(zip(todo, make(todo), strict=True))
        return [memo[k] for k in keys]

    @cached_property
    def _terrain_boxes(self) -> list[tuple[float, float, float, float]]:
        """Bounding boxes of the terrain polygons (x_lo, y_lo, x_hi, y_hi) as plain numbers, to
        skip the pieces a base or a line cannot touch (read for every base and every cover
        question)."""
        polygons = (np.asarray(t.polygon, dtype=float) for t in self.scene.terrain)
        return [(*p.min(axis=0).tolist(), *p.max(axis=0).tolist()) for p in polygons]

    def _pieces_near(
        self, a: geo.Point, b: geo.Point, margin: float
    ) -> list[tuple[Terrain, tuple[float, float, float, float]]]:
        """The terrain pieces, in the scene's order, whose bounding box (`_terrain_boxes`, given
        with each) meets the box round points a and b grown by `margin` mm: the pieces a base
        or a line there may touch."""
        x_lo, x_hi = min(a[0], b[0]) - margin, max(a[0], b[0]) + margin
        y_lo, y_hi = min(a[1], b[1]) - margin, max(a[1], b[1]) + margin
        return [
            (piece, box)
            for piece, box in zip(self.scene.terrain, self._terrain_boxes, strict=True)
            if box[0] <= x_hi and box[2] >= x_lo and box[1] <= y_hi and box[3] >= y_lo
        ]

    @cached_property
    def distances(self) -> geo.Array:
        """Edge-to-edge distances between every pair of bases (N, N), mm (read-only)."""
        return _read_only(geo.shaped_distances(self._shapes))

    @cached_property
    def aspects(self) -> npt.NDArray[np.int8]:
        """(N, N) where base i stands relative to base j's facing: 0 front, 1 flank, 2 rear
        (`geometry.aspect_matrix`, read-only)."""
        return _read_only(geo.aspect_matrix(self.bases))

    def others_apart(self, limit: float) -> npt.NDArray[np.bool_]:
        """(N, N) whether base j is of another unit than base i and more than `limit` mm from
        it, edge to edge (memoised per limit: a viewer's row of it is where a sight mask that
        lets near bases be seen over starts, for thousands of lines)."""

        def make() -> npt.NDArray[np.bool_]:
            units = self.unit_numbers
            return _read_only((units[None, :] != units[:, None]) & (self.distances > limit))

        return self._remember(("others_apart", limit), make)

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
    def _spans(self) -> dict[int, tuple[int, int, tuple[Base, ...], int]]:
        """Each unit's tuple of bases by its identity: where it starts and stops in `bases`
        (and the tuple, to be sure of the identity, and the unit's place in the scene)."""
        return {
            id(u.bases): (start, start + len(u.bases), u.bases, k)
            for k, (u, start) in enumerate(zip(self.scene.units, self._unit_first, strict=True))
        }

    def gap(self, group_a: Sequence[Base], group_b: Sequence[Base]) -> Gap:
        """The nearest pair of bases between two groups, their distance and its uncertainty; of
        equally near pairs, the first in the groups' order. Two units' bases are read off
        `_unit_pairs` (rules ask it of the same two units again and again)."""
        ua, ub = self._spans.get(id(group_a)), self._spans.get(id(group_b))
        if ua and ub and ua[2] is group_a and ub[2] is group_b:
            (distances, row, col), i, j = self._unit_pairs, ua[3], ub[3]
            a, b, distance = self.bases[row[i, j]], self.bases[col[i, j]], distances[i, j]
        else:
            sub = self.block(group_a, group_b)
            k = int(sub.argmin())
            i, j = divmod(k, len(group_b))
            a, b, distance = group_a[i], group_b[j], sub.flat[k]
        return Gap(a, b, float(distance), self.uncertainty(a, b))

    def unit_gaps(self) -> geo.Array:
        """(U, U) the shortest edge distance between every two units, in the scene's order
        of units (`gap(a.bases, b.bases).distance` of each pair, all at once)."""
        return self._unit_pairs[0]

    def unit_row(self, unit: Unit) -> int:
        """The unit's row (and column) in `unit_gaps`: its place in the scene's units."""
        return self._unit_number[unit.id]

    def span(self, unit: Unit) -> slice:
        """Where a unit's bases lie in `bases` (they are consecutive): its rows of `distances`
        and of every (N, ...) array here."""
        start = self._unit_first[self._unit_number[unit.id]]
        return slice(start, start + len(unit.bases))

    def units_within(self, unit: Unit, reach: float) -> list[Unit]:
        """The units at most `reach` mm from `unit` edge to edge (itself too), in the scene's
        order: a row of `unit_gaps`."""
        gaps = self.unit_gaps()[self.unit_row(unit)]
        return [self.scene.units[k] for k in np.flatnonzero(gaps <= reach).tolist()]

    def enemy_pairs(
        self, units: Sequence[Unit], limit: float, *, once: bool = False
    ) -> list[tuple[Unit, Unit, float, float]]:
        """Every ordered pair of `units` of different sides at most `limit` apart edge to
        edge, give or take the uncertainty of the distance, in the order of `units`: (a, b,
        distance, uncertainty), from `unit_gaps` and `unit_uncertainties` at once. `once`:
        each pair once, the unit first in the order of `units` as `a` (the pair's other order
        is the same two units the same distance apart)."""
        rows = np.array([self.unit_row(u) for u in units], dtype=int)
        gaps = self.unit_gaps()[rows][:, rows]
        unc = self.unit_uncertainties[rows][:, rows]
        sides = np.array([u.side for u in units], dtype=object)
        enemies = (sides[:, None] != sides[None, :]) & geo.within(gaps, limit + unc)
        near = np.nonzero(np.triu(enemies) if once else enemies)
        found = zip(*near, gaps[near].tolist(), unc[near].tolist(), strict=True)
        return [(units[i], units[j], gap, u) for i, j, gap, u in found]

    @cached_property
    def unit_uncertainties(self) -> geo.Array:
        """(U, U) the uncertainty of each of `unit_gaps`: of the distance between the nearest
        bases of two units (`uncertainty` of the pair `gap` names), all at once."""
        distance, row, col = self._unit_pairs
        of = np.array([self._uncertainty_of[b.id] for b in self.bases], dtype=float)
        if not distance.size or (of == of[0]).all():  # one uncertainty for every base
            same = math.hypot(of[0], of[0]) if distance.size else 0.0
            return _read_only(np.full(distance.shape, same))
        return _read_only(np.vectorize(math.hypot, otypes=[float])(of[row], of[col]))

    @cached_property
    def _unit_number(self) -> dict[str, int]:
        return {u.id: k for k, u in enumerate(self.scene.units)}

    def unit_of(self, ident: str) -> Unit:
        """The unit an id names, a unit's or one of its bases' (`Scene.unit_of`, looked up)."""
        found = self._unit_by_id.get(ident)
        return found if found is not None else self.scene.unit_of(ident)  # raises, naming ids

    @cached_property
    def _unit_by_id(self) -> dict[str, Unit]:
        # The first unit an id names wins, as in `Scene.unit_of`.
        return {i: u for u in reversed(self.scene.units) for i in (*(b.id for b in u.bases), u.id)}

    def select(self, ident: str) -> tuple[Base, ...]:
        """`Scene.select` looked up: all of a unit's bases, or the one base an id names."""
        unit = self.unit_of(ident)
        return unit.bases if unit.id == ident else (self.bases[self.index[ident]],)

    @cached_property
    def _unit_first(self) -> list[int]:
        """Where each unit's bases start in `bases` (a unit's bases are consecutive)."""
        sizes = [len(u.bases) for u in self.scene.units]
        return [sum(sizes[:k]) for k in range(len(sizes))]

    @cached_property
    def _unit_pairs(self) -> tuple[geo.Array, npt.NDArray[np.int_], npt.NDArray[np.int_]]:
        """(U, U) the shortest distance between every two units, and (U, U) each the table
        indices of the first nearest pair of bases, in reading order of their block of
        `distances` (as `gap` picks it): of `_nearest_by_unit`'s nearest base of each unit
        from every base, the first base of each unit at the least."""
        nearest, which = self._nearest_by_unit(self.distances)
        starts, n = np.array(self._unit_first, dtype=int), len(self.bases)
        least = np.minimum.reduceat(nearest, starts, axis=0)
        at = np.where(nearest == least[self.unit_numbers], np.arange(n)[:, None], n)
        row = np.minimum.reduceat(at, starts, axis=0)
        return least, row, which[row, np.arange(len(starts))[None, :]]

    def within(self, base: Base, limit: float) -> list[Base]:
        """Every other base whose edge is at most `limit` mm from this one's."""
        row = self.distances[self.index[base.id]]
        return [
            self.bases[k]
            for k in np.flatnonzero(geo.within(row, limit))
            if self.bases[k].id != base.id
        ]

    def standing(self, base: Base) -> tuple[Standing, ...]:
        """The terrain pieces a base stands in, entirely or partly."""
        return self._remember(("standing", base.id), lambda: self._stands_in(base))

    def _stands_in(self, base: Base) -> tuple[Standing, ...]:
        out = []
        reach = math.hypot(base.footprint.width, base.footprint.depth) / 2
        for piece, _ in self._pieces_near((base.x, base.y), (base.x, base.y), reach):
            how = geo.containment(base, piece.polygon)
            if how is not geo.Containment.OUTSIDE:
                out.append(Standing(piece, how))
        return tuple(out)

    def sight(self, policy: SightPolicy, viewer: Base, target: Base) -> geo.Sight:
        """The sight lines from viewer to target under a policy (`sights`)."""
        return self.sights(policy, [(viewer, target)])[0]

    def sights(self, policy: SightPolicy, pairs: Sequence[tuple[Base, Base]]) -> list[geo.Sight]:
        """The sight lines of many (viewer, target) pairs under a policy, memoised: the pairs
        not traced yet are traced together (`geometry.sight_many`), past the policy's terrain
        and the bases that may block each pair. The same answer, ray for ray, as
        `sight(viewer, target, obstacles(table, policy, viewer, target))` of
        tests/sight_reference.py."""
        keys = [(v.id, t.id) for v, t in pairs]
        return self._remember_each(("sights", policy), keys, lambda ids: self._trace(policy, ids))

    def _trace(self, policy: SightPolicy, pairs: Sequence[tuple[str, str]]) -> list[geo.Sight]:
        viewers = np.array([self.index[v] for v, _ in pairs], dtype=int)
        targets = np.array([self.index[t] for _, t in pairs], dtype=int)
        # Which bases may block each pair's lines: every base of another unit than the two (but
        # those the viewer sees over), when bases block at all.
        mask, units = None, self.unit_numbers
        if policy.bases_block:
            mask = units[None, :] != units[targets][:, None]
            if policy.shoot_over_within is None:
                mask &= units[None, :] != units[viewers][:, None]
            else:  # the viewer's part read off one remembered matrix (thousands of lines ask)
                mask &= self.others_apart(policy.shoot_over_within)[viewers]
        return geo.sight_many(
            self.centres[viewers],
            self.sight_points[targets],
            self.terrain_obstacles(policy),
            self.solids,
            mask,
            self._terrain_may_block(policy, viewers, targets),
        )

    def sight_distances(
        self,
        policy: SightPolicy,
        viewers: Sequence[Base],
        targets: Sequence[Base],
        within: float | geo.Array = math.inf,
    ) -> geo.Array:
        """(V, T) the edge distance from each viewer to each target where the viewer sees it
        under a policy (`seen`) no farther than `within` (mm, or (V, T) of them;
        `geometry.within`), else infinity: every pair within its limit judged in one batch.
        The one implementation of `sight_matrix` (and so `nearest_seen`) too."""
        block = self.block(viewers, targets)
        near = np.asarray(geo.within(block, within))
        r, c = np.nonzero(near)
        if len(r):
            rows, cols = (np.array(self.rows(group), dtype=int) for group in (viewers, targets))
            near[r, c] = self.seen(policy, rows[r], cols[c])
        return np.where(near, block, np.inf)

    def sight_matrix(self, policy: SightPolicy, within: float = math.inf) -> geo.Array:
        """(N, N) for every two bases of units of different sides at most `within` apart
        (`geometry.within`), the edge distance from the first to the second where the first
        sees it under a policy (`seen`), else infinity (and for two bases of one side). Every
        base against every enemy base in one batch, remembered per policy and reach
        (read-only)."""

        def make() -> geo.Array:
            units = self.scene.units
            sides = {side: k for k, side in enumerate(dict.fromkeys(u.side for u in units))}
            side = np.array([sides[u.side] for u in units], dtype=int)[self.unit_numbers]
            enemies = np.where(side[:, None] != side[None, :], within, -np.inf)
            return _read_only(self.sight_distances(policy, self.bases, self.bases, enemies))

        return self._remember(("sight_matrix", policy, within), make)

    def nearest_seen(
        self, policy: SightPolicy, within: float = math.inf
    ) -> tuple[geo.Array, npt.NDArray[np.int_]]:
        """(N, U) for each base and each unit of another side than its own, the edge distance
        to the nearest base of that unit it sees under a policy no farther than `within`
        (`sight_matrix`), infinity when it sees none (and for the units of its own side); and
        (N, U) the table index of that base, the first of the unit's equally near ones.
        Remembered per policy and reach (read-only).

        Within a shorter reach: the nearest base seen, if it is `geometry.within` that reach."""
        return self._remember(
            ("nearest_seen", policy, within),
            lambda: self._nearest_by_unit(self.sight_matrix(policy, within)),
        )

    def nearest_seen_pair(
        self, policy: SightPolicy, a: Unit, b: Unit, limit: float, within: float = math.inf
    ) -> tuple[Base, Base] | None:
        """The nearest pair of bases at most `limit` apart (`geometry.within`), one of `a`
        seeing one of `b` (a unit of another side) under a policy (`seen`); of equally near
        pairs, the first in the units' reading order. None when no such pair sees. Read off
        `nearest_seen` within a reach of at least `limit` (the nearest pair seen within it is
        the one within `limit`, if it is that near): a ruleset asking of many pairs gives them
        all one reach, and every pair of bases within it is judged in one batch. A `limit`
        beyond that reach is a `ValueError` (pairs past the reach are never judged)."""
        if limit > within:
            raise ValueError(f"limit {limit} mm is beyond the reach judged ({within} mm)")
        nearest, which = self.nearest_seen(policy, within)
        rows, column = self.span(a), self.unit_row(b)
        k = rows.start + int(nearest[rows, column].argmin())
        if not geo.within(float(nearest[k, column]), limit):
            return None
        return self.bases[k], self.bases[int(which[k, column])]

    def _nearest_by_unit(self, seen: geo.Array) -> tuple[geo.Array, npt.NDArray[np.int_]]:
        """(N, U) the least of each row of (N, N) `seen` over the bases of each unit, and (N, U)
        the first base (table index) of the unit at it: columns in reading order (read-only)."""
        n = len(self.bases)
        starts = np.array(self._unit_first, dtype=int)
        nearest = np.minimum.reduceat(seen, starts, axis=1)
        at = np.where(seen == nearest[:, self.unit_numbers], np.arange(n)[None, :], n)
        return _read_only(nearest), _read_only(np.minimum.reduceat(at, starts, axis=1))

    def seen(
        self,
        policy: SightPolicy,
        viewers: npt.NDArray[np.int_],
        targets: npt.NDArray[np.int_],
    ) -> npt.NDArray[np.bool_]:
        """(P,): whether base viewers[p] sees base targets[p] (table indices) under a policy:
        every sight line clear when `SightPolicy.entire_base`, else any, and no farther than the
        terrain lets it see (`sight_reach`). Remembered per policy.

        The line to the target's centre is judged first: when it is blocked no base is
        entirely in sight, and when it is clear some of the base is, so it alone answers most
        pairs. The other lines of the pairs it leaves open are judged in one more batch
        (`_seen_lines`): the same verdict, line for line, as the full trace, without its list
        of obstacles or the lines it need not trace.
        """
        viewers = np.asarray(viewers, dtype=int)
        targets = np.asarray(targets, dtype=int)
        # -1: not judged yet; 0 or 1: the verdict.
        memo: npt.NDArray[np.int8] = self._remember(
            ("seen", policy), lambda: np.full((len(self.bases),) * 2, -1, dtype=np.int8)
        )
        known = memo[viewers, targets]
        if (known < 0).any():
            with self._lock:
                known = memo[viewers, targets]
                todo = np.flatnonzero(known < 0)
                if len(todo):
                    # each pair once (`_centre_lines` traces a line for the pairs asking it)
                    n = len(self.bases)
                    asked = viewers[todo] * n + targets[todo]
                    # (a matrix's pairs, `sight_distances`', come in reading order already)
                    if not (asked[1:] > asked[:-1]).all():
                        asked = np.unique(asked)
                    v, t = asked // n, asked % n
                    seen = np.zeros(len(v), dtype=bool)
                    # A pair farther apart than the terrain lets it see is not in sight,
                    # whatever its lines: only the pairs within reach are traced.
                    reach = self.sight_reach(policy, v, t)
                    open_ = np.arange(len(v))
                    if reach is not None:
                        open_ = np.flatnonzero(geo.within(self.distances[v, t], reach))
                    if len(open_):
                        seen[open_] = self._seen_lines(policy, v[open_], t[open_])
                    memo[v, t] = seen
                    known = memo[viewers, targets]
        return np.asarray(known > 0)

    def seen_pairs(self, policy: SightPolicy, pairs: Sequence[tuple[Base, Base]]) -> list[bool]:
        """`seen` asked of (viewer, target) pairs of bases: whether each viewer sees its target."""
        viewers = np.array(self.rows([v for v, _ in pairs]), dtype=int)
        targets = np.array(self.rows([t for _, t in pairs]), dtype=int)
        return [bool(ok) for ok in self.seen(policy, viewers, targets)]

    def _seen_lines(
        self,
        policy: SightPolicy,
        viewers: npt.NDArray[np.int_],
        targets: npt.NDArray[np.int_],
    ) -> npt.NDArray[np.bool_]:
        """(P,) `seen` by the sight lines alone: the lines to the targets' centres first
        (`_centre_lines`), then, in one batch, the other lines of the pairs those leave open
        (an entire base: the centre line is clear; any line: it is blocked), past only the
        bases found near each centre line."""
        seen, near = self._centre_lines(policy, viewers, targets)
        still = np.flatnonzero(seen == policy.entire_base)
        others = np.arange(1, self.sight_points.shape[1])
        if not len(still) or not len(others):
            return seen
        # Line k of open pair i is i * (K - 1) + k - 1: pair by pair, line by line.
        pair, aims = np.repeat(still, len(others)), np.tile(others, len(still))
        if near is not None:
            place = np.full(len(seen), -1)
            place[still] = np.arange(len(still))
            at = place[near[0]]
            kept = at >= 0
            lines = (at[kept][:, None] * len(others) + others - 1).reshape(-1)
            near = lines, np.repeat(near[1][kept], len(others))
        clear = self._lines_clear(policy, viewers[pair], targets[pair], aims, near)
        clear = clear.reshape(len(still), len(others))
        seen[still] = clear.all(axis=1) if policy.entire_base else clear.any(axis=1)
        return seen

    def _centre_lines(
        self,
        policy: SightPolicy,
        viewers: npt.NDArray[np.int_],
        targets: npt.NDArray[np.int_],
    ) -> tuple[npt.NDArray[np.bool_], _Near | None]:
        """(P,) `_lines_clear` of the lines to the targets' centres, and, when bases block
        sight, the bases that may block the other lines of each pair (`_Near`: found with the
        line to the centre, as near as the farthest of the target's sight points); None when
        no base blocks sight. With `SightPolicy.entire_base`, only for the pairs no terrain
        blocks the centre line of (the others are not entirely in sight, whatever their other
        lines).

        The line from one centre to another is the line back: each is traced once, for both
        pairs that ask it (the whole table asks both). Terrain and the bases of other units
        than the two block it either way; only which bases the viewer sees over differs, and
        that is read off each blocking base afterwards."""
        n = len(self.bases)
        ends = np.sort(np.stack([viewers, targets]), axis=0)
        lines, first, line_of = np.unique(
            ends[0] * n + ends[1], return_index=True, return_inverse=True
        )
        line_of = line_of.reshape(-1)
        # each line traced the way its first pair looks along it
        eye, aim = viewers[first], targets[first]
        terrain_clear = self._lines_clear(policy, eye, aim, 0)
        clear = terrain_clear[line_of]
        if not policy.bases_block:
            return clear, None
        searched = np.flatnonzero(terrain_clear) if policy.entire_base else np.arange(len(lines))
        units = self.unit_numbers
        a, b = eye[searched], aim[searched]
        mask = (units[None, :] != units[a][:, None]) & (units[None, :] != units[b][:, None])
        if policy.shoot_over_within is not None:
            apart = self.others_apart(policy.shoot_over_within)
            mask &= apart[a] | apart[b]
        # (each base's sight points lie within its reach of its centre)
        spread = np.maximum(self.solids.reach[a], self.solids.reach[b]) + 1.0
        eyes, aims = self.centres[a], self.sight_points[b, 0]
        line, base = geo.solids_near(eyes, aims, spread, self.solids, mask)
        hit = geo.solids_hit(eyes, aims, self.solids, line, base)
        # Each candidate base of a line, for each of the (at most two) pairs asking it (one
        # looking the way the line was traced, one back) whose viewer does not see over it.
        asked = np.flatnonzero(clear) if policy.entire_base else np.arange(len(viewers))
        back = (viewers[asked] != eye[line_of[asked]]).astype(int)
        pair_at = np.full((len(lines), 2), -1)
        pair_at[line_of[asked], back] = asked
        pair = pair_at[searched[line]].reshape(-1)
        base, hit = np.repeat(base, 2), np.repeat(hit, 2)
        ok = pair >= 0
        if policy.shoot_over_within is not None:
            ok[ok] = apart[viewers[pair[ok]], base[ok]]
        clear[pair[ok & hit]] = False
        return clear, (pair[ok], base[ok])

    def _lines_clear(
        self,
        policy: SightPolicy,
        viewers: npt.NDArray[np.int_],
        targets: npt.NDArray[np.int_],
        point: int | npt.NDArray[np.int_],
        near: _Near | None = None,
    ) -> npt.NDArray[np.bool_]:
        """(P,): whether the sight line from the centre of base viewers[p] to sight point
        `point` of base targets[p] (`sight_points`; or point[p] of each) is clear under a
        policy of every terrain piece that may block it (`_terrain_may_block`) and, with
        `near`, of the bases near[1][m] that may block line near[0][m] (`_centre_lines`): the
        same answer, to the bit, as that line of the full trace."""
        eyes, aims = self.centres[viewers], self.sight_points[targets, point]
        may_block = self._terrain_may_block(policy, viewers, targets)
        hits = geo.terrain_blocks(eyes, aims, self.terrain_obstacles(policy), may_block)
        clear = np.asarray(~hits.any(axis=1))
        if near is not None:
            # Only the lines no terrain blocks are clipped against the bases.
            keep = clear[near[0]]
            line, base = near[0][keep], near[1][keep]
            clear[line[geo.solids_hit(eyes, aims, self.solids, line, base)]] = False
        return clear

    @cached_property
    def centres(self) -> geo.Array:
        """(N, 2) the centre of every base, mm."""
        return np.array([(b.x, b.y) for b in self.bases], dtype=float).reshape(-1, 2)

    @cached_property
    def sight_points(self) -> geo.Array:
        """(N, K, 2) the points of every base a sight line aims at (`geometry.sight_points`)."""
        return _read_only(geo.sight_points(self._shapes))

    @cached_property
    def _shapes(self) -> geo.Shapes:
        """Every base's outline, radius and frame (`geometry.shapes`), in table order: stacked
        once a table, for its distances, its sight points and the arcs."""
        outlines, radii, frames = geo.shapes(self.bases)
        return _read_only(outlines), _read_only(radii), frames

    @property
    def outlines(self) -> geo.Array:
        """(N, 4, 2) every base's outline (`geometry.corners`), in table order (read-only)."""
        return self._shapes[0]

    @property
    def radii(self) -> geo.Array:
        """(N,) every round base's radius (`geometry.radius`), 0 for a rectangle (read-only)."""
        return self._shapes[1]

    @cached_property
    def solids(self) -> geo.Solids:
        """Every base as a solid obstacle to sight, in table order (from the outlines already
        stacked)."""
        return geo.Solids.of(tuple(b.id for b in self.bases), self.outlines, self.radii)

    @cached_property
    def unit_numbers(self) -> npt.NDArray[np.int_]:
        """(N,) a number per unit for every base, to compare units as arrays."""
        return np.array([self._unit_number[b.unit_id] for b in self.bases], dtype=int)

    def terrain_obstacles(self, policy: SightPolicy) -> tuple[geo.Obstacle, ...]:
        """The terrain pieces that block sight under a policy, as obstacles (memoised)."""
        see_into = dict(policy.see_into)
        return self._remember(
            ("terrain_obstacles", policy),
            lambda: tuple(
                geo.Obstacle(t.id, np.asarray(t.polygon, dtype=float), see_into.get(t.kind, 0.0))
                for t in self.scene.terrain
                if t.kind in policy.blocking
            ),
        )

    def blocked_by(
        self, policy: SightPolicy, group_a: Sequence[Base], group_b: Sequence[Base], limit: float
    ) -> list[str]:
        """What blocks the sight lines from the bases of `group_a` to those of `group_b` at most
        `limit` apart (`geometry.within`), the nearest pair's first, each named once."""
        pairs = sorted(
            ((self.distance(x, y), x, y) for x in group_a for y in group_b), key=lambda p: p[0]
        )
        lines = [(x, y) for d, x, y in pairs if geo.within(d, limit)]
        blocked: list[str] = []
        for sight in self.sights(policy, lines):
            blocked += [o for o in sight.blocked_by if o not in blocked]
        return blocked

    @cached_property
    def _centre_inside(self) -> npt.NDArray[np.bool_]:
        """(N, T) whether the centre of base n stands in terrain piece t (`centre_in`: a base
        whose centre is inside a piece stands in it at least partly), every centre at once."""
        out = np.zeros((len(self.bases), len(self.scene.terrain)), dtype=bool)
        for k, piece in enumerate(self.scene.terrain):
            out[:, k] = geo.point_in_polygon(self.centres, piece.polygon)
        return _read_only(out)

    def _piece_rules(self, policy: SightPolicy) -> tuple[geo.Array, npt.NDArray[np.bool_]]:
        """(T,) how far two bases standing in terrain piece t see each other inside it under a
        policy (`SightPolicy.visibility_within`), infinity for the pieces with no such limit; and
        (T,) which pieces hide the bases standing in them (`SightPolicy.hidden_in`: a piece the
        scene says gives no cover hides nobody). Memoised per policy (read-only)."""

        def make() -> tuple[geo.Array, npt.NDArray[np.bool_]]:
            terrain, limits = self.scene.terrain, dict(policy.visibility_within)
            within = [limits.get(t.kind, np.inf) for t in terrain]
            hides = [t.kind in policy.hidden_in and t.cover is not Cover.NONE for t in terrain]
            return _read_only(np.array(within, dtype=float)), _read_only(np.array(hides, bool))

        return self._remember(("piece_rules", policy), make)

    def _terrain_may_block(
        self, policy: SightPolicy, viewers: npt.NDArray[np.int_], targets: npt.NDArray[np.int_]
    ) -> npt.NDArray[np.bool_] | None:
        """(P, O): which of a policy's sight-blocking pieces (`terrain_obstacles`) may block the
        lines from base viewers[p] to base targets[p]: all but a piece of
        `SightPolicy.visibility_within` that both stand in (how far they see each other inside
        it is `sight_reach`'s). None when every piece may block every pair."""
        if not policy.visibility_within:  # no piece limits sight inside it
            return None
        blocking = np.array([t.kind in policy.blocking for t in self.scene.terrain], dtype=bool)
        limited = np.isfinite(self._piece_rules(policy)[0][blocking])
        if not limited.any():
            return None
        inside = self._centre_inside[:, blocking]
        return np.asarray(~(inside[viewers] & inside[targets] & limited[None, :]))

    def sight_reach(
        self, policy: SightPolicy, viewers: npt.NDArray[np.int_], targets: npt.NDArray[np.int_]
    ) -> geo.Array | None:
        """(P,) how far (mm, edge to edge) base viewers[p] may see base targets[p] under the
        policy's terrain rules, whatever the sight lines: infinity where they set no limit;
        the visibility inside a piece of `SightPolicy.visibility_within` both stand in;
        `SightPolicy.hidden_seen_within` for a target hidden in terrain (`hiding`) that shows
        itself (within `hidden_edge` of the piece's edge, or `revealed_by`); minus infinity
        for one that does not. None when the policy has no such rule."""
        if not policy.visibility_within and not policy.hidden_in:
            return None
        reach = np.full(len(viewers), np.inf)
        inside, (limits, hides) = self._centre_inside, self._piece_rules(policy)
        # Only a target standing in a piece that limits sight or hides it may be limited.
        limited = np.asarray((inside & (np.isfinite(limits) | hides)[None, :]).any(axis=1))
        rows = np.flatnonzero(limited[targets])
        if not len(rows):
            return reach
        v_in, t_in = inside[viewers[rows]], inside[targets[rows]]
        near = np.where(v_in & t_in, limits[None, :], np.inf).min(axis=1)
        hidden = t_in & ~v_in & hides[None, :]
        # Seen at all only when it shows itself in every piece hiding it.
        shows = np.all(~hidden | self._shows(policy)[targets[rows]], axis=1)
        limit = np.where(shows, policy.hidden_seen_within, -np.inf)
        reach[rows] = np.where(hidden.any(axis=1), np.minimum(near, limit), near)
        return reach

    def hiding(self, policy: SightPolicy, viewer: Base, target: Base) -> Terrain | None:
        """The terrain piece that hides `target` from `viewer` under a policy
        (`SightPolicy.hidden_in`: the target's centre stands in it, the viewer's does not), if
        any."""
        i, j = self.index[viewer.id], self.index[target.id]
        inside = self._centre_inside
        k = np.flatnonzero(inside[j] & ~inside[i] & self._piece_rules(policy)[1])
        return self.scene.terrain[int(k[0])] if len(k) else None

    def _shows(self, policy: SightPolicy) -> npt.NDArray[np.bool_]:
        """(N, T) whether base n, standing in terrain piece t that hides it, shows itself there:
        its unit has done what `SightPolicy.revealed_by` names (fired), or it stands within
        `SightPolicy.hidden_edge` of the piece's edge (`geometry.gaps_to_boundary`; memoised per
        policy; False where the base is not hidden in the piece)."""

        def make() -> npt.NDArray[np.bool_]:
            hidden = self._centre_inside & self._piece_rules(policy)[1][None, :]
            found = np.zeros(hidden.shape, dtype=bool)
            for k in np.flatnonzero(hidden.any(axis=0)).tolist():
                rows = np.flatnonzero(hidden[:, k])
                polygon = self.scene.terrain[k].polygon
                edge = geo.gaps_to_boundary(self.outlines[rows], self.radii[rows], polygon)
                found[rows, k] = geo.within(edge, policy.hidden_edge)
            if policy.revealed_by is not None:
                flag = policy.revealed_by
                revealed = np.array([u.get(flag) is True for u in self.scene.units], dtype=bool)
                found |= hidden & revealed[self.unit_numbers][:, None]
            return _read_only(found)

        return self._remember(("shows", policy), make)

    def centre_in(self, base: Base) -> list[Terrain]:
        """Terrain pieces holding the base's centre (the piece it counts as standing in), in the
        scene's order."""
        row = self._centre_inside[self.index[base.id]]
        return [self.scene.terrain[k] for k in np.flatnonzero(row).tolist()]

    def centres_in(self, pieces: Sequence[Terrain]) -> npt.NDArray[np.bool_]:
        """(N,) whether each base's centre stands in any of the terrain pieces (of this scene):
        `centre_in` of every base at once."""
        ids = {t.id for t in pieces}
        picked = [k for k, t in enumerate(self.scene.terrain) if t.id in ids]
        return np.asarray(self._centre_inside[:, picked].any(axis=1))

    def pieces_on_lines(
        self, lines: Sequence[tuple[geo.Point, geo.Point]]
    ) -> list[list[tuple[Terrain, float]]]:
        """For each straight line a-b, the terrain pieces it crosses or ends in, in the scene's
        order, each with the length of the line inside it (`geometry.inside_lengths`, mm): what
        a move straight from a to b passes through. Remembered: the lines not known yet are
        judged together, piece by piece (a `suggest` asks every charge path of a phase at once,
        then each charge asks its own again)."""
        keys = [((float(a[0]), float(a[1])), (float(b[0]), float(b[1]))) for a, b in lines]
        return self._remember_each("pieces_on_lines", keys, self._pieces_on)

    def _pieces_on(
        self, lines: Sequence[tuple[tuple[float, float], tuple[float, float]]]
    ) -> list[list[tuple[Terrain, float]]]:
        """`pieces_on_lines`: each piece whose box (`_terrain_boxes`) meets a line's box grown
        by `EPS`, tested for every line at once, is clipped against those lines in one batch (a
        line's answer never depends on the others)."""
        ends = np.array(lines, dtype=float).reshape(-1, 2, 2)
        a, b = ends[:, 0], ends[:, 1]
        lo, hi = np.minimum(a, b) - geo.EPS, np.maximum(a, b) + geo.EPS
        found: list[list[tuple[Terrain, float]]] = [[] for _ in lines]
        for piece, box in zip(self.scene.terrain, self._terrain_boxes, strict=True):
            near = (box[0] <= hi[:, 0]) & (box[2] >= lo[:, 0])
            near &= (box[1] <= hi[:, 1]) & (box[3] >= lo[:, 1])
            rows = np.flatnonzero(near)
            if not len(rows):
                continue
            poly = np.asarray(piece.polygon, dtype=float)
            inside = geo.inside_lengths(a[rows], b[rows], poly)[0].tolist()
            ends_in = geo.point_in_polygon(b[rows], poly) | geo.point_in_polygon(a[rows], poly)
            for k, length, end in zip(rows.tolist(), inside, ends_in.tolist(), strict=True):
                if length > geo.EPS or end:
                    found[k].append((piece, length))
        return found

    def cover(self, policy: CoverPolicy, shooter: Base, target: Base) -> CoverReading:
        """The best cover `target` has against `shooter` under a policy (memoised).

        Cover comes from the terrain piece holding the target's centre, or from a linear
        obstacle (`CoverPolicy.obstacles`: hedges, walls, fences, fortifications) that the
        sight line from the shooter's centre to the target's centre crosses, with the target
        at most `CoverPolicy.behind_within` mm from the obstacle (edge to edge; the line may
        cross the obstacle further from the target than that).
        """
        return self._remember(
            ("cover", policy, shooter.id, target.id),
            lambda: self._find_cover(policy, shooter, target),
        )

    def _find_cover(self, policy: CoverPolicy, shooter: Base, target: Base) -> CoverReading:
        holding = self.centre_in(target)
        found = [(policy.cover_of(p), f"{target.id} stands in {p.id} ({p.kind})") for p in holding]
        eye, aim = (shooter.x, shooter.y), (target.x, target.y)
        reach = math.hypot(target.footprint.width, target.footprint.depth) / 2
        # (A line passing a millimetre and more clear of a piece's box is not behind it.)
        for piece, (lo_x, lo_y, hi_x, hi_y) in self._pieces_near(eye, aim, 1.0):
            if piece.kind not in policy.obstacles or piece in holding:
                continue
            poly = np.asarray(piece.polygon, dtype=float)
            # Too far behind it: the box round the piece and the circle round the target's
            # footprint more than a millimetre further apart than the limit need no exact
            # gap; else the exact gap (memoised per target: asked by every shooter).
            box_gap = math.hypot(
                max(lo_x - target.x, target.x - hi_x, 0.0),
                max(lo_y - target.y, target.y - hi_y, 0.0),
            )
            if box_gap - reach > policy.behind_within + 1.0:
                continue
            if self._gap_to(piece.id, poly, target) > policy.behind_within:
                continue
            # (the target's centre is in none of these pieces: they would hold it)
            if float(geo.inside_lengths(eye, aim, poly)[0][0]) > geo.EPS:
                found.append(
                    (policy.cover_of(piece), f"{target.id} is behind {piece.id} ({piece.kind})")
                )
        rank = {Cover.NONE: 0, Cover.SOFT: 1, Cover.HARD: 2}
        best = max((c for c, _ in found), key=rank.__getitem__, default=Cover.NONE)
        reasons = tuple(r for c, r in found if c is best and c is not Cover.NONE)
        return CoverReading(best, reasons)

    def _gap_to(self, piece_id: str, poly: geo.Array, target: Base) -> float:
        """Edge distance from a base to a cover obstacle's outline (`geometry.gaps_to_boundary`;
        remembered: the same target is shot at from many sides); 0 for an obstacle lying
        wholly under the base (no edge of it crosses the base's)."""

        def gap() -> float:
            if geo.point_distance(target, (float(poly[0, 0]), float(poly[0, 1]))) <= geo.EPS:
                return 0.0
            foot, radius = geo.corners(target)[None], np.array([geo.radius(target)])
            return float(geo.gaps_to_boundary(foot, radius, poly)[0])

        return self._remember(("gap_to", piece_id, target.id), gap)

    def uncertainty(self, a: Base, b: Base) -> float:
        """Combined position uncertainty (mm) of a length measured between two bases."""
        of = self._uncertainty_of
        return math.hypot(of[a.id], of[b.id])

    @cached_property
    def _uncertainty_of(self) -> dict[str, float]:
        """`Scene.uncertainty_of` of every base, by id (asked thousands of times a `suggest`)."""
        return {b.id: self.scene.uncertainty_of(b) for b in self.bases}

    # ----------------------------------------------------------------------------------------
    # Fire arcs

    def in_arcs(self, asks: Sequence[tuple[Base, Sequence[Base], float]]) -> list[list[bool]]:
        """For many (shooter, targets, half angle): whether each target base lies (partly) in
        the shooter's fire arc of `half_angle` degrees either side of its facing
        (`base_in_arc` of tests/sight_reference.py), remembered per shooter, angle and target.

        The arc starts at the shooter's front edge (a round base's rim straight ahead): from
        each front corner a ray leaves at `half_angle` degrees outward from straight ahead (0 a
        corridor the width of the base, 90 everything ahead of the front edge's line, 180 and
        more all round). The targets not known yet are judged together (`_judge_arcs`)."""
        for _, _, half in asks:
            if not 0 <= half <= 360:
                raise ValueError(f"half_angle must be between 0 and 360 degrees, got {half!r}")
        keys = [(s.id, half, t.id) for s, targets, half in asks for t in targets]
        found = iter(self._remember_each("in_arcs", keys, self._judge_arcs))
        return [[next(found) for _ in targets] for _, targets, _ in asks]

    def any_in_arc(
        self, shooters: Sequence[Base], targets: Sequence[Base], half_angle: float
    ) -> bool:
        """Whether some base of `targets` lies (partly) in the fire arc of `half_angle` degrees
        of some base of `shooters` (`in_arcs`; a pair plainly in the 180 degree arc is found
        in `ahead` for every pair at once)."""
        if half_angle == 90:
            reach = self._take(self._take(self.ahead, shooters, 0), targets, 1)
            if bool((reach > PLAIN_MARGIN).any()):
                return True
        return any(any(row) for row in self.in_arcs([(s, targets, half_angle) for s in shooters]))

    def _judge_arcs(self, keys: Sequence[tuple[str, float, str]]) -> list[bool]:
        """`in_arcs` of (shooter id, half angle, target id), all at once, by the three lines
        that bound an arc: the front edge's and each corner's ray. Up to 90 degrees the arc is
        the convex region inside all three, which a target misses when one of them or one of
        its own sides (a round target: the line to it from a front corner) separates them by
        more than `EPS`; beyond 90, what lies outside all three is a convex region behind the
        base, and a target is in the arc unless it lies more than `EPS` inside that."""
        shooters = np.array([self.index[s] for s, _, _ in keys], dtype=int)
        targets = np.array([self.index[t] for _, _, t in keys], dtype=int)
        turn = np.radians([half for _, half, _ in keys])[:, None]
        _, _, (_, _, ct, st, hw, hd) = self._shapes
        f = np.stack([ct, st], axis=1)[shooters]  # (P, 2) forward
        right = np.stack([st, -ct], axis=1)[shooters]
        front = self.centres[shooters] + f * (hd + self.radii)[shooters, None]
        fr, fl = front + right * hw[shooters, None], front - right * hw[shooters, None]
        cos, sin = np.cos(turn), np.sin(turn)
        # (P, 3, 2) the normal of each line out of the arc (up to 90 degrees): the front edge's,
        # the right ray's (forward turned right by the half angle), the left ray's
        normal = np.stack([-f, right * cos - f * sin, -right * cos - f * sin], axis=1)
        offset = (normal * np.stack([fr, fr, fl], axis=1)).sum(axis=2)
        feet, radii = self.outlines[targets], self.radii[targets, None]
        # (P, 3) how far the target's nearest point lies out past each line
        past = np.einsum("pld,pkd->plk", normal, feet).min(axis=2) - radii - offset
        wide = turn[:, 0] >= math.pi / 2
        inside = np.where(wide, past.min(axis=1) <= geo.EPS, past.max(axis=1) <= geo.EPS)
        rows = np.flatnonzero(inside & ~wide)
        if len(rows):
            # The arc (drawn `REACH` long) and the target on the axes of the target's sides each
            # way, or for a round one, of the lines to its centre from the front corners.
            ray_r, ray_l = f * cos + right * sin, f * cos - right * sin
            arc = np.stack([fr, fr + geo.REACH * ray_r, fl + geo.REACH * ray_l, fl], axis=1)[rows]
            foot, round_ = feet[rows], (radii[rows] > 0)[:, :, None]
            along = np.stack([foot[:, 1] - foot[:, 0], foot[:, 2] - foot[:, 1]], axis=1)
            toward = foot[:, :1] - np.stack([fr, fl], axis=1)[rows]
            sides = np.where(round_, np.tile(toward, (1, 2, 1)), np.concatenate([along, -along], 1))
            axes = sides / np.maximum(np.hypot(sides[..., 0], sides[..., 1]), 1e-300)[..., None]
            arc_hi = np.einsum("pad,pqd->paq", axes, arc).max(axis=2)
            foot_lo = np.einsum("pad,pkd->pak", axes, foot).min(axis=2) - radii[rows]
            inside[rows] = ~(foot_lo - arc_hi > geo.EPS).any(axis=1)
        return [bool(ok) for ok in (inside | (turn[:, 0] >= math.pi)).tolist()]

    @cached_property
    def ahead(self) -> geo.Array:
        """(N, N) for every pair of bases (i, j), how far (mm) base j reaches ahead of the
        line of base i's front edge: positive when part of j lies in i's 180 degree arc (the
        half-plane ahead of the front edge; for a round base, ahead of the tangent at its
        front), as `base_in_arc(i, j, 90)` of tests/sight_reference.py draws it. One numpy pass
        a table."""
        _, _, (_, _, cos, sin, _, half_depth) = self._shapes
        forward, front = np.stack([cos, sin], axis=1), half_depth + self.radii
        reach = np.einsum("tkc,sc->stk", self.outlines, forward).max(axis=2) + self.radii[None, :]
        reach -= np.einsum("sc,sc->s", self.centres, forward)[:, None]
        return _read_only(reach - front[:, None])

    def laid_many(self, pattern: Pattern, pairs: Sequence[tuple[Base, Base]]) -> list[Laid]:
        """Where `pattern` falls laid from each `source` toward its `aim` (`Pattern`): the bases
        its points lie on, with their weights summed, and the bases a point lies within the
        source's position uncertainty of (their edge, inside or out). Remembered per pattern;
        the pairs not laid yet are laid in one batch."""
        keys = [(s.id, a.id) for s, a in pairs]
        return self._remember_each(("laid", pattern), keys, lambda ids: self._lay(pattern, ids))

    def _lay(self, pattern: Pattern, pairs: Sequence[tuple[str, str]]) -> list[Laid]:
        rotations, starts, margins = [], [], []
        for source, aim in (
            (self.bases[self.index[s]], self.bases[self.index[a]]) for s, a in pairs
        ):
            heading = math.degrees(math.atan2(aim.y - source.y, aim.x - source.x))
            turn, f, half = math.radians(heading), geo.forward(heading), source.footprint.depth / 2
            rotations.append([[math.cos(turn), math.sin(turn)], [-math.sin(turn), math.cos(turn)]])
            starts.append((source.x + f[0] * half, source.y + f[1] * half))
            margins.append(self._uncertainty_of[source.id])
        size = len(pattern.points)
        points = pattern.points @ np.array(rotations) + np.array(starts)[:, None, :]
        margin = np.repeat(margins, size)
        point, base, depth = self._under(points.reshape(-1, 2), margin)
        weight = np.zeros((len(pairs), len(self.bases)), dtype=np.int64)
        on = depth >= 0
        np.add.at(weight, (point[on] // size, base[on]), pattern.weights[point[on] % size])
        near = np.zeros((len(pairs), len(self.bases)), dtype=bool)
        close = np.abs(depth) <= margin[point]
        near[point[close] // size, base[close]] = True
        bases = self.bases
        return [
            Laid(
                tuple((bases[k], int(w[k])) for k in np.flatnonzero(w).tolist()),
                tuple(bases[k] for k in np.flatnonzero(n).tolist()),
            )
            for w, n in zip(weight, near, strict=True)
        ]

    def _under(
        self, points: geo.Array, margin: geo.Array
    ) -> tuple[npt.NDArray[np.int_], npt.NDArray[np.int_], geo.Array]:
        """Every (point, base) where point p lies on a base's footprint or within margin[p]
        outside its edge: the points' rows, the bases' indices, and how deep inside the
        footprint each point lies (mm, negative outside), worked out in the base's own frame.

        Only the points within a base's circumradius and the margin of its centre are judged.
        They are found through the points sorted by strip (of y, as tall as two reaches), then
        x: the points within that reach of a centre lie in two strips at most, and in each they
        are a run of the sorted points."""
        centres, radii, (_, _, cos, sin, half_w, half_d) = self.centres, self.radii, self._shapes[2]
        # a round base as wide and deep as its diameter
        circle = radii > 0
        forward = np.stack([cos, sin], axis=1)
        half = np.stack([np.where(circle, radii, half_w), np.where(circle, radii, half_d)], axis=1)
        if not len(points) or not len(centres):
            return np.zeros(0, dtype=int), np.zeros(0, dtype=int), np.zeros(0)
        reach = np.hypot(half[:, 0], half[:, 1]) + float(margin.max())
        tall = 2 * float(reach.max()) + 1.0
        low = min(float(points[:, 0].min()), float(centres[:, 0].min())) - tall
        bottom = min(float(points[:, 1].min()), float(centres[:, 1].min())) - tall
        span = max(float(points[:, 0].max()), float(centres[:, 0].max())) - low + tall
        strip = np.floor((points[:, 1] - bottom) / tall)
        order = np.argsort(points[:, 0] - low + strip * span, kind="stable")
        keys = (points[:, 0] - low + strip * span)[order]
        first = np.floor((centres[:, 1] - reach - bottom) / tall)
        # each base's window in the strip of its lowest point, then the next strip up
        at = np.concatenate(
            [centres[:, 0] - low + first * span, centres[:, 0] - low + (first + 1) * span]
        )
        wide = np.tile(reach, 2)
        start = np.searchsorted(keys, at - wide, "left")
        count = np.searchsorted(keys, at + wide, "right") - start
        base = np.repeat(np.tile(np.arange(len(centres)), 2), count)
        point = order[np.repeat(start - np.cumsum(count) + count, count) + np.arange(count.sum())]
        gap = points[point] - centres[base]
        radius = np.hypot(half[base, 0], half[base, 1]) + margin[point]
        near = gap[:, 0] * gap[:, 0] + gap[:, 1] * gap[:, 1] <= radius**2
        point, base, gap = point[near], base[near], gap[near]
        ahead = np.abs((gap * forward[base]).sum(axis=1))
        across = np.abs(gap[:, 0] * forward[base, 1] - gap[:, 1] * forward[base, 0])
        half_w, half_d = half[base, 0], half[base, 1]
        out = np.hypot(np.maximum(across - half_w, 0), np.maximum(ahead - half_d, 0))
        inside = np.minimum(half_w - across, half_d - ahead)
        depth = np.where(
            circle[base], half_w - np.hypot(across, ahead), np.where(out > 0, -out, inside)
        )
        kept = depth >= -margin[point]
        return point[kept], base[kept], depth[kept]

    @cached_property
    def most_off(self) -> float:
        """mm: no length between two bases is off by more than this, twice the largest position
        uncertainty of any base (0 on an empty table); their combined uncertainty
        (`uncertainty`) is at most its 1/sqrt(2)."""
        return 2 * max(self._uncertainty_of.values(), default=0.0)

    # ----------------------------------------------------------------------------------------
    # A square grid

    def grid(self, size: float) -> Grid:
        """The scene on a grid of `size` mm squares (memoised per size)."""
        return self._remember(("grid", size), lambda: _grid(self.scene, size))


PLAIN_MARGIN = 1e-3
"""mm (a micrometre): a base this far ahead of the line of a front edge is plainly in the 180
degree arc, far beyond the rounding of coordinates (`Table.any_in_arc`)."""


class Grid(NamedTuple):
    """A scene on a grid of one size (`Table.grid`)."""

    places: Mapping[str, GridPlace]
    """Where each unit stands, by unit id."""
    occupants: Mapping[Box, tuple[Unit, ...]]
    """The units standing in each occupied box (by `places`), in the scene's order of units."""
    steps: geo.Array
    """(U, U) the fewest boxes between any box one unit may stand in and any the other may
    (`GridPlace.boxes`), a diagonal step counting 1.5 (`geometry.grid_steps`), in the scene's
    order of units (read-only)."""
    extent: tuple[int, int]
    """Columns and rows of squares wholly on the table."""


def _grid(scene: Scene, size: float) -> Grid:
    places = {u.id: _grid_place(scene, u, size) for u in scene.units}
    occupants: dict[Box, tuple[Unit, ...]] = {}
    for u in scene.units:
        box = places[u.id].box
        occupants[box] = (*occupants.get(box, ()), u)
    # Every box each unit may stand in, the boxes of one unit together; the steps between
    # every two such boxes, then the fewest between the boxes of each two units.
    boxes = [sorted(places[u.id].boxes) for u in scene.units]
    cells = np.array([b for unit in boxes for b in unit], dtype=float).reshape(-1, 2)
    starts = np.cumsum([0] + [len(b) for b in boxes[:-1]], dtype=int)
    dx = np.abs(cells[:, None, 0] - cells[None, :, 0])
    dy = np.abs(cells[:, None, 1] - cells[None, :, 1])
    steps = np.abs(dx - dy) + 1.5 * np.minimum(dx, dy)
    if len(boxes):
        steps = np.minimum.reduceat(np.minimum.reduceat(steps, starts, axis=0), starts, axis=1)
    columns, rows = (
        math.floor(side / size + 1e-9) for side in (scene.table_width, scene.table_depth)
    )
    return Grid(
        MappingProxyType(places), MappingProxyType(occupants), _read_only(steps), (columns, rows)
    )


def _grid_place(scene: Scene, unit: Unit, size: float) -> GridPlace:
    """Where one unit stands on a grid of `size` mm squares (`Table.grid`)."""
    x = sum(b.x for b in unit.bases) / len(unit.bases)
    y = sum(b.y for b in unit.bases) / len(unit.bases)
    box = geo.grid_cell((x, y), size)
    margin = min(x - box[0] * size, (box[0] + 1) * size - x, y - box[1] * size)
    margin = min(margin, (box[1] + 1) * size - y)
    unc = max(scene.uncertainty_of(b) for b in unit.bases)
    near = frozenset(
        geo.grid_cell((x + dx, y + dy), size) for dx in (-unc, 0, unc) for dy in (-unc, 0, unc)
    )
    return GridPlace(box, margin, unc, near)


def _read_only(array: npt.NDArray[_T]) -> npt.NDArray[_T]:
    array.flags.writeable = False
    return array


RECENT_TABLES = 4
"""How many scenes' tables `table_of` keeps."""
_RECENT: list[tuple[Scene, Table]] = []
"""The tables of the last few scenes asked about: a question and the page's many questions about
one frame share one set of measurements. Holding the scene keeps its id from being reused."""
_RECENT_LOCK = threading.Lock()


def table_of(scene: Scene) -> Table:
    """The measurements of a scene: the same `Table` for every question about it while it is
    among the last few scenes asked about."""
    with _RECENT_LOCK:
        for held, table in _RECENT:
            if held is scene:
                return table
        table = Table(scene)
        _RECENT.insert(0, (scene, table))
        del _RECENT[RECENT_TABLES:]
        return table
