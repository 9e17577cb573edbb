"""Tests of tests/allpairs.py: every pair of bases measured at once.

Hand-computed cases first (the arithmetic is in the comments), then hypothesis properties against
the slow per-pair functions (`sight_reference.edge_distance`, `geometry.aspect`, and the centre
line of `measure`'s sight trace) on random scenes built through the real loader. Every scene is
in mm.

Unless a case says otherwise, a "square" is a 20 x 20 mm base facing 90 degrees (towards +y), so
its footprint runs 10 mm either side of its centre in x and y.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import geometry as geo
from rules.engine import Ruleset, get_ruleset
from rules.measure import Table
from rules.scene import Scene, TerrainKind
from tests import allpairs
from tests import sight_reference as ref
from tests.allpairs import AllPairs, measure_all
from tests.builders import base, make_scene, rect, terrain, unit

SQRT2 = math.sqrt(2)
FRONT, FLANK, REAR = 0, 1, 2


def square(ident: str, x: float, y: float, facing: float = 90.0, size: float = 20.0) -> Any:
    return base(ident, x, y, facing, width=size, depth=size)


def scene_of(
    bases: list[dict[str, Any]],
    terrain_: list[dict[str, Any]] | None = None,
    ruleset: str = "europe-19c",
) -> Scene:
    """Each base its own unit (so no ruleset excuses a unit-mate), in mm."""
    units = [unit(f"u-{b['id']}", "blue", [b]) for b in bases]
    return make_scene(ruleset, units, unit="mm", terrain=terrain_, width=1000, depth=1000)


def pair(result: AllPairs, a: str, b: str) -> tuple[float, int, bool]:
    i, j = result.index(a), result.index(b)
    return float(result.distance[i, j]), int(result.aspect[i, j]), bool(result.in_sight[i, j])


# --------------------------------------------------------------------------------------------
# Distance, by hand


def test_two_squares_side_by_side_30_mm_apart() -> None:
    # 25 mm squares with centres 55 mm apart in x: a's right edge at 100 + 12.5 = 112.5, b's
    # left edge at 155 - 12.5 = 142.5, so 142.5 - 112.5 = 30 mm edge to edge.
    result = measure_all(scene_of([square("a", 100, 100, size=25), square("b", 155, 100, size=25)]))
    assert result.distance == pytest.approx(np.array([[0.0, 30.0], [30.0, 0.0]]), abs=1e-9)
    # a lies straight to b's left (b faces +y): 90 degrees off b's facing, past the 45-degree
    # diagonal of a square's front sector, and short of the 135-degree one: the flank.
    assert pair(result, "a", "b")[1] == FLANK
    assert pair(result, "b", "a")[1] == FLANK
    assert result.in_sight.all()


def test_a_square_rotated_corner_on() -> None:
    # Measured from a's centre: b, 50 mm to the right, faces 45 degrees, so a corner points
    # straight at a, 10 sqrt(2) = 14.142 from b's centre, at x = 50 - 14.142 = 35.858; a's
    # right edge is at x = 10: 25.858 mm = 40 - 10 sqrt(2) apart.
    result = measure_all(scene_of([square("a", 200, 200), square("b", 250, 200, 45)]))
    assert pair(result, "a", "b")[0] == pytest.approx(40 - 10 * SQRT2, abs=1e-9)
    # b lies straight to a's right (a faces +y): the flank.
    assert pair(result, "b", "a")[1] == FLANK


def test_a_cross_of_two_thin_bases_is_0_apart() -> None:
    # a: 100 wide, 10 deep, facing +y: x in [-50, 50], y in [-5, 5] about (300, 300).
    # b: 100 wide, 10 deep, facing +x: x in [15, 25], y in [-40, 60] about it. They cross like
    # a "+", though no corner of either lies inside the other: a's are at x = +-50, outside
    # b's [15, 25]; b's at y = -40 or 60, outside a's [-5, 5].
    a = base("a", 300, 300, 90, width=100, depth=10)
    b = base("b", 320, 310, 0, width=100, depth=10)
    result = measure_all(scene_of([a, b]))
    assert result.distance[0, 1] == 0.0
    assert result.distance[1, 0] == 0.0


def test_thin_bases_just_apart_are_not_0() -> None:
    # The same cross with b moved 60 mm to the right: its x span [75, 85] starts 25 mm past
    # a's right edge at 50.
    a = base("a", 300, 300, 90, width=100, depth=10)
    b = base("b", 380, 310, 0, width=100, depth=10)
    assert measure_all(scene_of([a, b])).distance[0, 1] == pytest.approx(25.0, abs=1e-9)


@pytest.mark.parametrize(
    ("other", "expected"),
    [
        # A square 50 mm to the right of a round base of 20 mm: 50 - 10 (radius) - 10 (half
        # square) = 30 mm.
        (square("b", 550, 500), 30.0),
        # Another round base, 30 mm across, 100 mm away: 100 - 10 - 15 = 75 mm.
        (base("b", 500, 600, diameter=30), 75.0),
        # A round base overlapping it: 15 mm apart, radii 10 + 10: 0.
        (base("b", 515, 500, diameter=20), 0.0),
        # A square corner-on at 45 degrees, 40 mm to the right: its corner at
        # 40 - 10 sqrt(2) from the round base's centre, less the radius 10.
        (square("b", 540, 500, 45), 30 - 10 * SQRT2),
    ],
)
def test_round_bases(other: dict[str, Any], expected: float) -> None:
    result = measure_all(scene_of([base("a", 500, 500, diameter=20), other]))
    assert result.distance[0, 1] == pytest.approx(expected, abs=1e-9)
    assert result.distance[1, 0] == pytest.approx(expected, abs=1e-9)


# --------------------------------------------------------------------------------------------
# Sight, by hand


def test_a_base_between_two_others_blocks_their_line() -> None:
    # a (0) and b (200) on y = 500, c halfway: the centre line runs through c's middle.
    result = measure_all(
        scene_of([square("a", 100, 500), square("b", 300, 500), square("c", 200, 500)])
    )
    assert not pair(result, "a", "b")[2]
    assert not pair(result, "b", "a")[2]
    # c does not block the lines to itself: its own footprint is not in the way.
    assert pair(result, "a", "c")[2] and pair(result, "c", "b")[2]


@pytest.mark.parametrize(
    ("blocker", "blocks"),
    [
        # A square 25 mm off the line: it spans y = 15 .. 35 about the line, clear by 15 mm.
        (square("c", 200, 525), False),
        # A square 9 mm off the line: it spans -1 .. 19, so the line runs 1 mm inside it.
        (square("c", 200, 509), True),
        # A round base of radius 10, 9.9 mm off: the line cuts a chord of 2 sqrt(100 - 98.01).
        (base("c", 200, 509.9, diameter=20), True),
        # The same 10.5 mm off: 0.5 mm clear of its rim.
        (base("c", 200, 510.5, diameter=20), False),
        # A square touching the line with its edge (10 mm off): along an edge is not inside.
        (square("c", 200, 510), False),
    ],
)
def test_a_base_near_the_line(blocker: dict[str, Any], blocks: bool) -> None:
    result = measure_all(scene_of([square("a", 100, 500), square("b", 300, 500), blocker]))
    assert pair(result, "a", "b")[2] is not blocks
    assert pair(result, "b", "a")[2] is not blocks


@pytest.mark.parametrize("kind", ["woods", "building", "town", "hill"])
def test_terrain_that_blocks_sight_between_two_bases(kind: str) -> None:
    # A 40 x 100 mm piece across the line from (100, 500) to (300, 500), both bases outside it.
    piece = terrain("t", kind, rect(180, 450, 220, 550))
    result = measure_all(scene_of([square("a", 100, 500), square("b", 300, 500)], [piece]))
    assert not result.in_sight[0, 1]
    # Moved 100 mm off the line, it blocks nothing.
    piece = terrain("t", kind, rect(180, 560, 220, 660))
    assert measure_all(scene_of([square("a", 100, 500), square("b", 300, 500)], [piece])).in_sight[
        0, 1
    ]


@pytest.mark.parametrize(("centre_y", "blocks"), [(500, True), (540, True), (570, False)])
def test_a_round_hill_of_80_sides(centre_y: float, blocks: bool) -> None:
    # A hill drawn as an 80-gon of radius 50 about (200, centre_y); its sides lie at least
    # 50 cos(180 / 80 degrees) = 49.96 mm from its centre. The line y = 500 passes 0, 40 or
    # 70 mm from that centre: through it, through it, and 20 mm clear of it.
    step = 2 * math.pi / 80
    outline = [
        [200 + 50 * math.cos(k * step), centre_y + 50 * math.sin(k * step)] for k in range(80)
    ]
    scene = scene_of(
        [square("a", 100, 500), square("b", 300, 500)], [terrain("h", "hill", outline)]
    )
    assert bool(measure_all(scene).in_sight[0, 1]) is not blocks


@pytest.mark.parametrize("kind", ["wall", "hedge", "road", "rough", "stream"])
def test_terrain_that_does_not_block_sight(kind: str) -> None:
    piece = terrain("t", kind, rect(180, 450, 220, 550))
    result = measure_all(scene_of([square("a", 100, 500), square("b", 300, 500)], [piece]))
    assert result.in_sight[0, 1]


def test_a_concave_wood_blocks_only_where_it_lies() -> None:
    # An L-shaped wood: the square [150, 250] x [400, 600] with its top-right quarter
    # [200, 250] x [500, 600] cut away. The line y = 450 crosses the foot of the L; the line
    # y = 550 runs through the cut-away part from x = 200 on, but through the wood from
    # 150 to 200 first.
    wood = terrain(
        "w",
        "woods",
        [[150, 400], [250, 400], [250, 500], [200, 500], [200, 600], [150, 600]],
    )
    bases = [
        square("a", 100, 450),
        square("b", 300, 450),
        square("c", 225, 650),
        square("d", 225, 350),
    ]
    result = measure_all(scene_of(bases, [wood]))
    assert not pair(result, "a", "b")[2]
    # c (225, 650) to d (225, 350): down x = 225, through the wood from y = 500 to 400.
    assert not pair(result, "c", "d")[2]
    # c to b (300, 450): from (225, 650) to (300, 450), x = 225 + 75 * (650 - y) / 200, at
    # y = 500 x = 281.25, past the wood's right side at 250: clear.
    assert pair(result, "c", "b")[2]


@pytest.mark.parametrize(
    ("ruleset", "depth", "seen"),
    [
        # skirmish-19c sees 10 cm into woods (sheet line 57): a figure 60 mm inside sees out,
        # one 150 mm inside does not.
        ("skirmish-19c", 60, True),
        ("skirmish-19c", 150, False),
        # europe-19c keeps the default: a base sees out of the piece it stands in, however deep.
        ("europe-19c", 150, True),
    ],
)
def test_a_base_standing_in_woods_sees_out_as_the_ruleset_says(
    ruleset: str, depth: float, seen: bool
) -> None:
    # The wood spans x in [200, 600]; a stands `depth` mm inside its left edge, b at x = 100.
    wood = terrain("w", "woods", rect(200, 300, 600, 700))
    bases = [square("a", 200 + depth, 500), square("b", 100, 500)]
    result = measure_all(scene_of(bases, [wood], ruleset))
    assert bool(result.in_sight[0, 1]) is seen
    assert bool(result.in_sight[1, 0]) is seen


@pytest.mark.parametrize("clockwise", [False, True])
def test_a_wood_that_cannot_be_seen_into_blocks_whichever_way_round(clockwise: bool) -> None:
    # The 40 x 100 mm wood across the line from (100, 500) to (300, 500), on a sheet that
    # sees 0 mm into woods; the line crosses it from x = 180 to 220, 40 mm inside.
    outline = rect(180, 450, 220, 550)
    piece = terrain("t", "woods", outline[::-1] if clockwise else outline)
    scene = scene_of([square("a", 100, 500), square("b", 300, 500)], [piece])
    assert not measure_all(scene, _SeeLittle()).in_sight[0, 1]


def test_matrices_are_read_only_symmetric_and_seen_on_the_diagonal() -> None:
    result = measure_all(
        scene_of([square("a", 100, 500), square("b", 300, 500), square("c", 200, 500)])
    )
    assert result.ids == ("a", "b", "c")
    assert np.array_equal(result.in_sight, result.in_sight.T)
    assert np.array_equal(result.distance, result.distance.T)
    assert result.in_sight.diagonal().all()
    assert not result.distance.diagonal().any()
    for array in (result.distance, result.aspect, result.in_sight):
        with pytest.raises(ValueError, match="read-only"):
            array[0, 0] = 1


def test_one_base_and_no_base() -> None:
    one = measure_all(scene_of([square("a", 100, 500)]))
    assert one.distance.shape == one.aspect.shape == one.in_sight.shape == (1, 1)
    none = measure_all(make_scene("europe-19c", [], unit="mm"))
    assert none.ids == ()
    assert none.distance.shape == none.aspect.shape == none.in_sight.shape == (0, 0)


def test_footprints_outline_every_base_as_geometry_does() -> None:
    bases = [
        square("a", 100, 500, 33.3),
        base("b", 10.5, 7, 271, width=40, depth=15),
        base("c", 50, 60, diameter=25),
    ]
    scene = scene_of(bases)
    feet = allpairs.footprints(scene)
    assert np.array_equal(feet.outlines, np.stack([geo.corners(b) for b in scene.bases()]))


# --------------------------------------------------------------------------------------------
# Properties against the per-pair functions, on random scenes


coordinate = st.one_of(
    st.integers(0, 300).map(float),  # whole millimetres: bases that touch, lines along edges
    st.floats(0, 300, allow_nan=False, allow_subnormal=False),
)
facing = st.one_of(st.sampled_from([0.0, 45.0, 90.0, 180.0, 270.0]), st.floats(0, 359.9))
size = st.sampled_from([5.0, 10.0, 20.0, 25.0, 40.0, 100.0])


@st.composite
def base_docs(draw: st.DrawFn, ident: str) -> dict[str, Any]:
    x, y = draw(coordinate), draw(coordinate)
    if draw(st.booleans()) and draw(st.booleans()):
        return base(ident, x, y, draw(facing), diameter=draw(size))
    return base(ident, x, y, draw(facing), width=draw(size), depth=draw(size))


@st.composite
def terrain_docs(draw: st.DrawFn, ident: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(["woods", "building", "hill", "wall", "town"]))
    x0, y0 = draw(st.integers(0, 250)), draw(st.integers(0, 250))
    w, h = draw(st.integers(5, 150)), draw(st.integers(5, 150))
    shape = draw(st.sampled_from(["box", "triangle", "ell"]))
    if shape == "box":
        polygon = rect(x0, y0, x0 + w, y0 + h)
    elif shape == "triangle":
        polygon = [[x0, y0], [x0 + w, y0], [x0 + w / 2, y0 + h]]
    else:
        polygon = [
            [x0, y0],
            [x0 + w, y0],
            [x0 + w, y0 + h / 2],
            [x0 + w / 2, y0 + h / 2],
            [x0 + w / 2, y0 + h],
            [x0, y0 + h],
        ]
    if draw(st.booleans()):
        polygon = polygon[::-1]  # clockwise
    return terrain(ident, kind, polygon)


class _SeeLittle(Ruleset):
    """Woods and hills that cannot be seen into at all (`see_into` 0), towns 40 mm deep,
    buildings however deep: every way a terrain piece can forgive a line, on one sheet."""

    id = "test-see-little"
    title = "test"
    sheet = "none"
    unit = "mm"
    sight_policy = replace(
        Ruleset.sight_policy,
        see_into=(
            (TerrainKind.BUILDING, geo.REACH),
            (TerrainKind.HILL, 0.0),
            (TerrainKind.TOWN, 40.0),
            (TerrainKind.WOODS, 0.0),
        ),
    )


SHEETS = ["europe-19c", "skirmish-19c", "colonial-adventure", _SeeLittle.id]


def sheet_of(ident: str) -> Ruleset:
    return _SeeLittle() if ident == _SeeLittle.id else get_ruleset(ident)


@st.composite
def scenes(draw: st.DrawFn) -> tuple[Scene, Ruleset]:
    count = draw(st.integers(2, 12))
    bases = [draw(base_docs(f"b{k}")) for k in range(count)]
    pieces = [draw(terrain_docs(f"t{k}")) for k in range(draw(st.integers(0, 3)))]
    sheet = sheet_of(draw(st.sampled_from(SHEETS)))
    scene_ruleset = sheet.id if sheet.id != _SeeLittle.id else "europe-19c"
    return scene_of(bases, pieces, scene_ruleset), sheet


def centre_line_clear(scene: Scene, ruleset: Ruleset, i: int, j: int) -> bool:
    """The slow reference: the centre line of `measure`'s sight trace from base i to base j
    (terrain as `sight_reference.pair_sight` judges the line, past the ruleset's terrain),
    and every other base clipped as it clips a solid."""
    bases = list(scene.bases())
    eye = np.array([[bases[i].x, bases[i].y]])
    aim = np.array([[bases[j].x, bases[j].y]])
    for piece in Table(scene).terrain_obstacles(ruleset.sight_policy):
        if geo.terrain_hits(eye, aim, piece)[0]:
            return False
    others = [ref.obstacle_of_base(b) for k, b in enumerate(bases) if k not in (i, j)]
    if not others:
        return True
    polys = np.stack([o.polygon for o in others])
    radii = np.array([o.radius for o in others])
    with np.errstate(over="ignore", invalid="ignore"):  # lines of no length: t is infinite
        inside = ref.solid_inside_lengths(eye, aim, polys, radii)
    return not bool(np.any(inside > geo.EPS))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenes())
def test_every_pair_agrees_with_the_per_pair_functions(drawn: tuple[Scene, Ruleset]) -> None:
    scene, sheet = drawn
    result = measure_all(scene, sheet)
    bases = list(scene.bases())
    assert result.ids == tuple(b.id for b in bases)
    assert np.abs(result.distance - geo.distance_matrix(bases)).max() <= 1e-9
    for i, a in enumerate(bases):
        for j, b in enumerate(bases):
            if i == j:
                continue
            assert result.distance[i, j] == pytest.approx(ref.edge_distance(a, b), abs=1e-9)
            assert result.aspect[i, j] == list(geo.Aspect).index(geo.aspect(a, b).aspect)
            clear = centre_line_clear(scene, sheet, i, j)
            assert bool(result.in_sight[i, j]) is clear, (a.id, b.id)


def crowd(seed: int, count: int) -> Scene:
    """A seeded crowded table: `count` bases (a fifth of them round) in units of up to four
    side by side, and a wood, a building and a wall, as on a busy game."""
    rng = np.random.default_rng(seed)
    bases: list[dict[str, Any]] = []
    while len(bases) < count:
        x0, y0, turn = rng.uniform(0, 600), rng.uniform(0, 400), float(rng.uniform(0, 360))
        for k in range(int(rng.integers(1, 5))):
            ident = f"b{len(bases)}"
            x = x0 + 26 * k * math.cos(math.radians(turn - 90))
            y = y0 + 26 * k * math.sin(math.radians(turn - 90))
            if rng.random() < 0.2:
                bases.append(base(ident, x, y, turn, diameter=25))
            else:
                bases.append(base(ident, x, y, turn, width=25, depth=25))
    pieces = [
        terrain("wood", "woods", rect(200, 150, 320, 260)),
        terrain("farm", "building", [[420, 60], [480, 90], [450, 140], [400, 110]]),
        terrain("wall", "wall", rect(100, 300, 250, 305)),
    ]
    return scene_of(bases[:count], pieces, "skirmish-19c")


@pytest.mark.parametrize("seed", range(3))
def test_a_crowded_table_agrees_pair_by_pair(seed: int) -> None:
    scene = crowd(seed, 60)
    sheet = get_ruleset(scene.ruleset)
    result = measure_all(scene)
    for i in range(60):
        for j in range(i + 1, 60):
            assert bool(result.in_sight[i, j]) is centre_line_clear(scene, sheet, i, j)
    assert np.abs(result.distance - geo.distance_matrix(list(scene.bases()))).max() <= 1e-9
