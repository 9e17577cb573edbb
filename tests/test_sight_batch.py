"""The batched sight tracer (`Table.sights`, `geometry.sight_many`) against the reference
`sight_reference.sight`, ray for ray, on seeded random tables: rectangular and round bases of
several sizes, concave terrain seen into (and a solid piece that is not), and skirmish-19c's
rule that a figure shoots over bases within 2 cm of it."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from rules import geometry as geo
from rules.engine import Ruleset, get_ruleset, ruleset_ids
from rules.measure import Table, table_of
from rules.scene import Base, Scene, TerrainKind
from tests import sight_reference as ref
from tests.builders import make_scene, terrain, unit


class _SolidWoods(Ruleset):
    """Bases block sight and woods cannot be seen into at all (`see_into` 0): a line that runs
    into woods is blocked whichever end stands in them."""

    id = "test-solid-woods"
    title = "test"
    sheet = "none"
    unit = "mm"
    sight_policy = replace(
        Ruleset.sight_policy,
        bases_block=True,
        see_into=(
            (TerrainKind.BUILDING, geo.REACH),
            (TerrainKind.HILL, geo.REACH),
            (TerrainKind.TOWN, 40.0),
            (TerrainKind.WOODS, 0.0),
        ),
    )


def _concave(rng: random.Random, cx: float, cy: float, size: float) -> list[list[float]]:
    """An L-shaped (concave) piece, counter-clockwise or clockwise at random."""
    s = size
    pts = [(0.0, 0.0), (s, 0.0), (s, s / 2), (s / 2, s / 2), (s / 2, s), (0.0, s)]
    out = [[cx + x - s / 2, cy + y - s / 2] for x, y in pts]
    return out if rng.random() < 0.5 else out[::-1]


def _random_scene(seed: int, ruleset: str) -> Scene:
    """A 600 x 400 mm table crowded with 40 bases in 14 units and four terrain pieces."""
    rng = random.Random(seed)
    units = []
    for u in range(14):
        bases = []
        x0, y0 = rng.uniform(30, 570), rng.uniform(30, 370)
        for k in range(rng.randint(1, 5)):
            shape: dict[str, Any]
            roll = rng.random()
            if roll < 0.25:
                shape = {"diameter": rng.choice([20.0, 25.0, 40.0])}
            else:
                shape = {"width": rng.choice([20.0, 25.0, 40.0]), "depth": rng.choice([20.0, 30.0])}
            bases.append(
                {
                    "id": f"u{u}-{k}",
                    "x": x0 + rng.uniform(-45, 45),
                    "y": y0 + rng.uniform(-45, 45),
                    # whole right angles now and then: sight lines along base edges
                    "facing": rng.choice([0.0, 90.0, rng.uniform(0, 360)]),
                    **shape,
                }
            )
        # foot in each sheet's words (sepoys-and-soldiers types are orders: the arm is foot)
        troops = (
            {"type": "active", "arm": "foot"}
            if ruleset == "sepoys-and-soldiers"
            else {"type": "infantry"}
        )
        units.append(unit(f"u{u}", "red" if u % 2 else "blue", bases, **troops))
    pieces = [
        terrain("woods-1", "woods", _concave(rng, 200, 150, 120)),
        terrain("town-1", "town", _concave(rng, 430, 260, 100)),
        terrain(
            "woods-2",
            "woods",
            [[300, 40], [380, 40], [380, 90], [300, 90]],
        ),
        terrain("hill-1", "hill", _concave(rng, 120, 320, 90)),
    ]
    grid = 50.0 if get_ruleset(ruleset).grid else None
    return make_scene(
        ruleset, units, unit="mm", terrain=pieces, width=600, depth=400, grid_box=grid
    )


def _reference_rays(viewer: Base, target: Base, obstacles: list[geo.Obstacle]) -> list[bool]:
    """Whether each sight line is blocked, decided as `sight_reference.pair_sight` decides it:
    bases (`BaseObstacle`) by their clipped length, terrain by `ray_blocked`."""
    eye = (viewer.x, viewer.y)
    out = []
    for p in ref.sight_points(target):
        blocked = False
        for o in obstacles:
            if isinstance(o, ref.BaseObstacle):
                inside = ref.solid_inside_lengths(
                    np.array([eye]), p[None], o.polygon[None], np.array([o.radius])
                )
                blocked |= bool(inside[0, 0] > geo.EPS)
            else:
                blocked |= ref.ray_blocked(eye, (float(p[0]), float(p[1])), o)
        out.append(blocked)
    return out


RULESETS = [*ruleset_ids(), _SolidWoods.id]


def _ruleset(ident: str) -> Ruleset:
    return _SolidWoods() if ident == _SolidWoods.id else get_ruleset(ident)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ident", RULESETS)
def test_batched_sight_matches_reference(ident: str, seed: int) -> None:
    rs = _ruleset(ident)
    scene = _random_scene(seed, ident if ident != _SolidWoods.id else "skirmish-19c")
    table = Table(scene)
    bases = list(table.bases)
    pairs = [(a, b) for a in bases for b in bases if a.unit_id != b.unit_id]
    pairs = random.Random(seed).sample(pairs, 400)  # the reference is slow: a sample
    batched = table.sights(rs.sight_policy, pairs)
    blocked_somewhere = 0
    for (a, b), got in zip(pairs, batched, strict=True):
        want = ref.sight(a, b, ref.obstacles(table_of(scene), rs.sight_policy, a, b))
        assert got == want, (a.id, b.id)
        blocked_somewhere += want.clear_rays < want.rays
    # the scenes are busy enough to test something: many pairs have a blocked line
    assert blocked_somewhere > len(pairs) // 10


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ident", ["skirmish-19c", _SolidWoods.id, "colonial-adventure"])
def test_sight_many_ray_for_ray(ident: str, seed: int) -> None:
    """One line per pair (K = 1): each ray's verdict is the reference's for that ray."""
    rs = _ruleset(ident)
    scene = _random_scene(100 + seed, "skirmish-19c")
    table = Table(scene)
    rows = []
    pairs = [(a, b) for a in table.bases for b in table.bases if a.unit_id != b.unit_id]
    for a, b in random.Random(seed).sample(pairs, 150):
        rays = _reference_rays(a, b, ref.obstacles(table_of(scene), rs.sight_policy, a, b))
        for r, blocked in enumerate(rays):
            rows.append((table.index[a.id], table.index[b.id], r, blocked))
    v = np.array([row[0] for row in rows])
    t = np.array([row[1] for row in rows])
    k = np.array([row[2] for row in rows])
    mask = None  # the bases that may block each line, as the reference names them
    if rs.sight_policy.bases_block:
        pairs_asked = [(table.bases[i], table.bases[j]) for i, j in zip(v, t, strict=True)]
        ids = [{o.id for o in ref.obstacles(table, rs.sight_policy, a, b)} for a, b in pairs_asked]
        mask = np.array([[b.id in row for b in table.bases] for row in ids])
    got = geo.sight_many(
        table.centres[v],
        table.sight_points[t, k][:, None, :],
        table.terrain_obstacles(rs.sight_policy),
        table.solids,
        mask,
    )
    assert [s.clear_rays == 0 for s in got] == [row[3] for row in rows]
    assert any(row[3] for row in rows) and not all(row[3] for row in rows)


def _rows(table: Table, pairs: list[tuple[Base, Base]]) -> tuple[np.ndarray, np.ndarray]:
    """The table indices of the viewers and of the targets of (viewer, target) pairs."""
    return np.array(table.rows([a for a, _ in pairs])), np.array(table.rows([b for _, b in pairs]))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ident", ["skirmish-19c", _SolidWoods.id, "colonial-adventure"])
def test_centre_lines_and_seen_match_reference(ident: str, seed: int) -> None:
    """`Table._centre_lines` is the reference's verdict on the line to the target's centre (the
    first sight point), and `Table.seen_pairs`, which answers most pairs from that line alone,
    is the reference's whole-base or any-line verdict for every pair."""
    rs = _ruleset(ident)
    scene = _random_scene(200 + seed, "skirmish-19c")
    table = Table(scene)
    red = [b for b in table.bases if int(b.unit_id[1:]) % 2][:12]
    blue = [b for b in table.bases if not int(b.unit_id[1:]) % 2][:12]
    refs = {
        (a.id, b.id): _reference_rays(a, b, ref.obstacles(table_of(scene), rs.sight_policy, a, b))
        for a in red
        for b in blue
    }
    pairs = [(a, b) for a in red for b in blue]
    any_line = replace(rs.sight_policy, entire_base=False)  # every pair's centre line judged
    centre, _ = table._centre_lines(any_line, *_rows(table, pairs))
    assert centre.tolist() == [not refs[(a.id, b.id)][0] for a, b in pairs]
    policy = rs.sight_policy
    seen = np.array(table.seen_pairs(policy, pairs))
    seen = seen.reshape(len(red), len(blue))
    for i, a in enumerate(red):
        for j, b in enumerate(blue):
            rays = refs[(a.id, b.id)]
            want = not any(rays) if rs.sight_policy.entire_base else not all(rays)
            assert bool(seen[i, j]) == want, (a.id, b.id)
    # busy enough to test something: some pairs in sight, some not
    assert seen.any() and not seen.all()


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("ident", ["skirmish-19c", _SolidWoods.id, "colonial-adventure"])
def test_lines_clear_is_the_reference_line_by_line(ident: str, seed: int) -> None:
    """`Table._lines_clear` at each sight point, past the bases `Table._centre_lines` found near
    the line to the centre, is the reference's verdict on that one line (which `Table.seen`
    relies on when it judges the lines of the pairs the centre line leaves open)."""
    rs = _ruleset(ident)
    scene = _random_scene(400 + seed, "skirmish-19c")
    table = Table(scene)
    red = [b for b in table.bases if int(b.unit_id[1:]) % 2][:10]
    blue = [b for b in table.bases if not int(b.unit_id[1:]) % 2][:10]
    pairs = [(a, b) for a in red for b in blue]
    refs = [
        _reference_rays(a, b, ref.obstacles(table_of(scene), rs.sight_policy, a, b))
        for a, b in pairs
    ]
    points = table.sight_points.shape[1]
    viewers, targets = _rows(table, pairs)
    any_line = replace(rs.sight_policy, entire_base=False)  # every pair's bases found
    _, near = table._centre_lines(any_line, viewers, targets)
    for point in range(points):
        got = table._lines_clear(rs.sight_policy, viewers, targets, point, near)
        assert got.tolist() == [not rays[point] for rays in refs], point
    # busy enough to test something: some lines to the corners blocked, some clear
    corners = [rays[k] for rays in refs for k in range(1, points)]
    assert any(corners) and not all(corners)


@pytest.mark.parametrize("seed", range(4))
def test_terrain_hits_is_ray_blocked_line_by_line(seed: int) -> None:
    """`geometry.terrain_hits` (which settles lines plainly through a convex piece without
    clipping them) is `ray_blocked` for every line: random lines, many ending inside or on
    the piece, past a convex quadrilateral seen into, a convex hexagon and an L-shaped
    (concave) piece, both windings."""
    rng = random.Random(seed)
    quad = [[100.0, 100.0], [300.0, 120.0], [280.0, 260.0], [90.0, 240.0]]
    hexagon = [
        [200 + 80 * math.cos(k * math.pi / 3), 180 + 80 * math.sin(k * math.pi / 3)]
        for k in range(6)
    ]
    ell = _concave(rng, 200.0, 180.0, 160.0)
    eyes = np.array([[rng.uniform(0, 400), rng.uniform(0, 360)] for _ in range(600)])
    aims = np.array([[rng.uniform(0, 400), rng.uniform(0, 360)] for _ in range(600)])
    aims[:50] = eyes[:50] + rng.uniform(-1, 1)  # some lines shorter than a millimetre
    aims[50:100, 0] = 100.0  # some lines ending on a side of the quadrilateral
    # the shortcut is taken: many lines plainly cross the quadrilateral
    through, clear = geo.convex_verdicts(eyes, aims, np.array(quad), 0.0)
    assert through.sum() > 50 and clear.sum() > 50
    for poly in (quad, quad[::-1], hexagon, ell):
        for see_into in (0.0, 30.0):
            piece = geo.Obstacle("piece", np.array(poly), see_into=see_into)
            got = geo.terrain_hits(eyes, aims, piece)
            want = [
                ref.ray_blocked(tuple(a), tuple(b), piece)
                for a, b in zip(eyes.tolist(), aims.tolist(), strict=True)
            ]
            assert got.tolist() == want
            # busy enough to test something: lines blocked and lines clear
            assert any(want) and not all(want)


def test_lines_plainly_through_or_clear_of_a_convex_piece_are_settled_without_clipping() -> None:
    """A line from 1 m left of a 200 mm square to 1 m right of it, through its middle, is
    surely blocked (over 2 mm inside, both ends outside); one ending 0.5 mm short of the square,
    grazing along a side, or ending 100 mm inside when the square is seen into 100 mm, is left
    to the exact clip; one ending 2 mm short, or passing 5 mm below the square, is surely
    clear."""
    square = np.array([[0.0, 0.0], [200.0, 0.0], [200.0, 200.0], [0.0, 200.0]])
    eyes = np.array([[-1000.0, 100.0]] * 3 + [[-1000.0, 0.0], [-1000.0, -5.0]])
    aims = np.array([[1200.0, 100.0], [-0.5, 100.0], [-2.0, 100.0], [1200.0, 0.0], [1200.0, -5.0]])
    aims = np.vstack([aims, [[100.0, 100.0]]])
    eyes = np.vstack([eyes, [[-1000.0, 100.0]]])
    through, clear = geo.convex_verdicts(eyes, aims, square, 100.0)
    # through; 0.5 mm short; 2 mm short; along the side y = 0; 5 mm below; ends inside
    assert through.tolist() == [True, False, False, False, False, False]
    assert clear.tolist() == [False, False, True, False, True, False]
    # seen into only 30 mm, the line ending 100 mm deep is plainly blocked
    blocked, clear = geo.convex_verdicts(eyes[-1:], aims[-1:], square, 30.0)
    assert (blocked.tolist(), clear.tolist()) == ([True], [False])


@pytest.mark.parametrize("seed", range(3))
def test_gap_of_two_units_is_the_first_nearest_pair(seed: int) -> None:
    """`Table.gap` of two units' bases (read off one pass over all units) names the same pair
    as the first least of `geometry.distance_matrix` on them, and as `Table.gap` of copies of
    the groups (which are not units' bases, so measured from their block of distances): the
    nearest, the first in reading order of equally near pairs (a unit against itself ties at 0
    on every base's own pair: the first, base 0 with base 0, is the one named)."""
    scene = _random_scene(300 + seed, "skirmish-19c")
    table = Table(scene)
    for a in scene.units:
        for b in scene.units:
            got, apart = table.gap(a.bases, b.bases), geo.distance_matrix(a.bases, b.bases)
            i, j = np.unravel_index(int(np.argmin(apart)), apart.shape)
            assert got.distance == pytest.approx(float(apart[i, j]), abs=1e-9)
            assert (got.a.id, got.b.id) == (a.bases[i].id, b.bases[j].id)
            assert got == table.gap(list(a.bases), list(b.bases))


def test_skirmish_shoots_over_bases_within_2cm() -> None:
    """A base 1 cm in front of the viewer does not block it (line 55's 2 cm rule); the same
    base 3 cm in front of it does. Geometry: viewer at (0, 0) looking at a target 30 cm up the
    y axis; a 4 cm wide blocker centred on the line."""
    rs = get_ruleset("skirmish-19c")
    for gap_cm, blocks in ((1.0, False), (3.0, True)):
        # blocker 2 cm deep: its near edge `gap_cm` above the viewer's far edge (y = 1.25)
        y = 1.25 + gap_cm + 1.0
        scene = make_scene(
            "skirmish-19c",
            [
                unit(
                    "v",
                    "red",
                    [{"id": "v-1", "x": 50, "y": 10, "facing": 90, "width": 2.5, "depth": 2.5}],
                ),
                unit(
                    "t",
                    "blue",
                    [{"id": "t-1", "x": 50, "y": 40, "facing": 90, "width": 2.5, "depth": 2.5}],
                ),
                unit(
                    "x",
                    "blue",
                    [{"id": "x-1", "x": 50, "y": 10 + y, "facing": 90, "width": 4, "depth": 2}],
                ),
            ],
        )
        table = Table(scene)
        viewer, target = table.bases[0], table.bases[1]
        assert math.isclose(table.distance(viewer, table.bases[2]), gap_cm * 10)
        (seen,) = table.sights(rs.sight_policy, [(viewer, target)])
        assert seen == ref.sight(
            viewer, target, ref.obstacles(table_of(scene), rs.sight_policy, viewer, target)
        )
        assert seen.entire is not blocks
        assert seen.blocked_by == (("x-1",) if blocks else ())


def test_a_line_traced_once_answers_both_ways() -> None:
    """The centre line from the viewer to the target is the line back, traced once for both
    pairs, but a base seen over from one end still blocks from the other: viewer v-1 at (50, 10)
    sees over x-1, whose near edge is 1 cm from it (line 55's 2 cm), to t-1 at (50, 40); t-1
    looks back past x-1 from 24.5 cm away (x-1 spans y 12.25..14.25, t-1 starts at 38.75), and
    every line to v-1 (2.5 cm wide, behind the 4 cm wide x-1) is blocked."""
    rs = get_ruleset("skirmish-19c")
    scene = make_scene(
        "skirmish-19c",
        [
            unit(
                "v",
                "red",
                [{"id": "v-1", "x": 50, "y": 10, "facing": 90, "width": 2.5, "depth": 2.5}],
            ),
            unit(
                "t",
                "blue",
                [{"id": "t-1", "x": 50, "y": 40, "facing": 90, "width": 2.5, "depth": 2.5}],
            ),
            unit(
                "x",
                "blue",
                [{"id": "x-1", "x": 50, "y": 13.25, "facing": 90, "width": 4, "depth": 2}],
            ),
        ],
    )
    table = Table(scene)
    for entire in (True, False):
        policy = replace(rs.sight_policy, entire_base=entire)
        both = table.seen(policy, np.array([0, 1]), np.array([1, 0]))
        assert both.tolist() == [True, False]
