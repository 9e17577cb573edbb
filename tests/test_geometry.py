"""Tests of rules/geometry.py: hand-computed cases (the arithmetic is in the comments) and
hypothesis properties of footprints, edge-to-edge distance, aspect, fire arcs, terrain, line of
sight and the square grid. Every length is in millimetres.

Unless a case says otherwise, a "square" is a 20 x 20 mm base facing 90 degrees (towards +y), so
its footprint runs 10 mm either side of its centre in x and y.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rules import geometry as g
from rules.geometry import Aspect, Containment, Obstacle
from rules.scene import Base, Footprint
from tests import sight_reference as ref
from tests.builders import base as base_doc
from tests.builders import make_scene
from tests.builders import unit as unit_doc

SQRT2 = math.sqrt(2)


# --------------------------------------------------------------------------------------------
# Builders


def rect(
    x: float,
    y: float,
    facing: float = 90.0,
    width: float = 20.0,
    depth: float = 20.0,
    ident: str = "r",
) -> Base:
    """A rectangular base, `width` across its facing and `depth` along it (mm)."""
    return Base(ident, "u", x, y, facing, Footprint(width, depth))


def disc(x: float, y: float, diameter: float = 20.0, facing: float = 0.0, ident: str = "d") -> Base:
    """A round base (mm)."""
    return Base(ident, "u", x, y, facing, Footprint(diameter, diameter, circle=True))


def at_local(b: Base, right: float, ahead: float) -> tuple[float, float]:
    """The table point `right` mm to the base's right and `ahead` mm ahead of its centre."""
    t = math.radians(b.facing)
    fx, fy = math.cos(t), math.sin(t)
    return (b.x + right * fy + ahead * fx, b.y - right * fx + ahead * fy)


def polygon_area(polygon: np.ndarray) -> float:
    """Unsigned area of a simple polygon (shoelace)."""
    x, y = np.asarray(polygon, dtype=float).T
    return abs(float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))) / 2


def aspect_of_point(target: Base, point: tuple[float, float]) -> g.Face:
    """`geometry.aspect` of a base whose centre is `point`."""
    return g.aspect(dataclasses.replace(target, x=point[0], y=point[1]), target)


def turn_table(b: Base, theta: float, dx: float, dy: float) -> Base:
    """The base after turning the whole table `theta` degrees about the origin, then moving it."""
    t = math.radians(theta)
    c, s = math.cos(t), math.sin(t)
    return dataclasses.replace(
        b, x=c * b.x - s * b.y + dx, y=s * b.x + c * b.y + dy, facing=b.facing + theta
    )


def poly(points: Sequence[tuple[float, float]]) -> np.ndarray:
    return np.array(points, dtype=float)


SQUARE_TERRAIN = [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)]
# An L: the 100 x 100 square with its top-right 60 x 60 cut away.
# Area 100*40 (bottom bar) + 40*60 (left arm above it) = 6400.
L_TERRAIN = [(0.0, 0.0), (100.0, 0.0), (100.0, 40.0), (40.0, 40.0), (40.0, 100.0), (0.0, 100.0)]
# A U: 120 x 100 with a 40 x 60 notch (x 40..80, y 40..100) cut from the top.
# Area 120*100 - 40*60 = 9600.
U_TERRAIN = [
    (0.0, 0.0),
    (120.0, 0.0),
    (120.0, 100.0),
    (80.0, 100.0),
    (80.0, 40.0),
    (40.0, 40.0),
    (40.0, 100.0),
    (0.0, 100.0),
]


# --------------------------------------------------------------------------------------------
# Footprints


@pytest.mark.parametrize(
    ("b", "expected"),
    [
        # Facing 90: forward (0, 1) * depth/2 = (0, 10), right (1, 0) * width/2 = (20, 0).
        # Front-right (120, 60), front-left (80, 60), rear-left (80, 40), rear-right (120, 40).
        (rect(100, 50, 90, 40, 20), [(120, 60), (80, 60), (80, 40), (120, 40)]),
        # Facing 0: forward (1, 0) * 10 = (10, 0), right (0, -1) * 20 = (0, -20).
        (rect(100, 50, 0, 40, 20), [(110, 30), (110, 70), (90, 70), (90, 30)]),
        # Facing 45, 20 x 20: forward*10 + right*10 = (10*sqrt2, 0): a diamond.
        (
            rect(0, 0, 45, 20, 20),
            [(10 * SQRT2, 0), (0, 10 * SQRT2), (-10 * SQRT2, 0), (0, -10 * SQRT2)],
        ),
        # Facing 180: forward (-1, 0) * 10, right (0, 1) * 20: front-right (-10, 20).
        (rect(0, 0, 180, 40, 20), [(-10, 20), (-10, -20), (10, -20), (10, 20)]),
    ],
    ids=["facing-90", "facing-0", "facing-45", "facing-180"],
)
def test_corners_run_counter_clockwise_from_front_right(b: Base, expected: list[tuple]) -> None:
    assert g.corners(b) == pytest.approx(np.array(expected, dtype=float), abs=1e-9)


def test_round_base_is_its_centre_grown_by_its_radius() -> None:
    b = disc(30, 40, diameter=25)
    assert g.corners(b) == pytest.approx(np.array([(30.0, 40.0)] * 4))
    assert g.radius(b) == pytest.approx(12.5)
    assert g.radius(rect(0, 0)) == 0.0


def test_to_local_gives_right_and_ahead() -> None:
    # Facing 90 at (100, 50): right is +x, ahead is +y.
    b = rect(100, 50, 90)
    got = g.to_local(b, [(110, 50), (100, 70), (90, 30)])
    assert got == pytest.approx(np.array([(10, 0), (0, 20), (-10, -20)]), abs=1e-9)
    # Facing 0: ahead is +x, right is -y, so (100, 60) is 10 to the left.
    assert g.to_local(rect(100, 50, 0), (100, 60)) == pytest.approx(np.array([-10, 0]), abs=1e-9)
    # Facing 180: ahead is -x, right is +y.
    assert g.to_local(rect(0, 0, 180), (-5, 3)) == pytest.approx(np.array([3, 5]), abs=1e-9)


def test_outline_polygon_of_a_rectangle_is_its_corners() -> None:
    b = rect(10, 20, 30, 40, 15)
    assert g.outline_polygon(b) == pytest.approx(g.corners(b))


def test_outline_polygon_of_a_round_base_is_a_regular_polygon_on_its_rim() -> None:
    b = disc(5, 5, diameter=20)
    outline = g.outline_polygon(b, segments=8)
    assert outline.shape == (8, 2)
    assert np.hypot(outline[:, 0] - 5, outline[:, 1] - 5) == pytest.approx(np.full(8, 10.0))
    # A regular 8-gon of circumradius 10: 8/2 * 10^2 * sin(2*pi/8) = 400 * sqrt2/2 = 282.84.
    assert polygon_area(outline) == pytest.approx(200 * SQRT2)


# --------------------------------------------------------------------------------------------
# Edge-to-edge distance, hand-computed


EDGE_CASES = [
    # Squares side by side: centres 50 apart, each reaches 10 towards the other: 50 - 20 = 30.
    ("side-by-side", rect(0, 0), rect(50, 0), 30.0),
    # One behind the other: 45 - 10 - 10 = 25.
    ("front-to-rear", rect(0, 0), rect(0, 45), 25.0),
    # 40 wide x 20 deep facing 0: depth lies along x, so each reaches 10 in x: 50 - 20 = 30.
    ("wide-facing-0", rect(0, 0, 0, 40, 20), rect(50, 0, 0, 40, 20), 30.0),
    # The same bases facing 90: width along x, each reaches 20: 50 - 40 = 10.
    ("wide-facing-90", rect(0, 0, 90, 40, 20), rect(50, 0, 90, 40, 20), 10.0),
    # One turned a right angle to the other: 50 - 20 - 10 = 20.
    ("turned-90", rect(0, 0, 90, 40, 20), rect(50, 0, 0, 40, 20), 20.0),
    # Corner (10, 10) to corner (15, 15): a gap of 5 each way is 5 * sqrt2 on the diagonal.
    ("corner-to-corner", rect(0, 0), rect(25, 25), 5 * SQRT2),
    # Two squares at 45 degrees are diamonds whose points reach 10*sqrt2 along x:
    # 40 - 2 * 10*sqrt2 = 11.716.
    ("diamond-points", rect(0, 0, 45), rect(40, 0, 45), 40 - 20 * SQRT2),
    # Diamond point at x = 10*sqrt2 against the flat side x = 30 - 10 = 20: 20 - 14.142.
    ("diamond-to-side", rect(0, 0, 45), rect(30, 0, 90), 20 - 10 * SQRT2),
    # Round bases: 50 - 10 - 15 = 25.
    ("circles", disc(0, 0, 20), disc(50, 0, 30), 25.0),
    # Circle of radius 5 beside a square's side x = 10: 30 - 5 - 10 = 15.
    ("circle-beside-side", rect(0, 0), disc(30, 0, 10), 15.0),
    # Circle centre (20, 20) off the corner (10, 10): 10*sqrt2 - 5.
    ("circle-off-corner", rect(0, 0), disc(20, 20, 10), 10 * SQRT2 - 5),
    # Circle (30, 0) r 5 off a diamond point at x = 10*sqrt2: 30 - 5 - 14.142.
    ("circle-off-diamond", rect(0, 0, 45), disc(30, 0, 10), 25 - 10 * SQRT2),
    # Touching: side to side, corner to corner, circles, circle on a side.
    ("touching-sides", rect(0, 0), rect(20, 0), 0.0),
    ("touching-corners", rect(0, 0), rect(20, 20), 0.0),
    ("touching-circles", disc(0, 0, 20), disc(20, 0, 20), 0.0),
    ("circle-touching-side", rect(0, 0), disc(15, 0, 10), 0.0),
    # Overlapping.
    ("overlapping", rect(0, 0), rect(15, 5), 0.0),
    ("same-centre-turned", rect(0, 0), rect(0, 0, 37), 0.0),
    # A small base wholly inside a big one, off centre, no edges touching.
    ("inside-off-centre", rect(0, 0, 90, 100, 100), rect(30, -20, 90, 10, 10), 0.0),
    # A plus sign: 60 x 10 across and 10 x 60 along; no corner of either is inside the other.
    ("plus-sign", rect(0, 0, 90, 60, 10), rect(0, 0, 0, 60, 10), 0.0),
    ("plus-sign-off-centre", rect(0, 0, 90, 60, 10), rect(10, 3, 0, 60, 10), 0.0),
    # Circle wholly inside a rectangle.
    ("circle-in-rect", rect(0, 0, 90, 100, 100), disc(20, 20, 10), 0.0),
    # Rectangle (x 20..40) wholly inside a circle of radius 50 whose centre is outside it:
    # its farthest corner (40, 10) is sqrt(1700) = 41.2 < 50 from the centre.
    ("rect-in-circle", disc(0, 0, 100), rect(30, 0), 0.0),
    ("circle-in-circle", disc(0, 0, 100), disc(10, 0, 10), 0.0),
]


@pytest.mark.parametrize(
    ("a", "b", "expected"), [c[1:] for c in EDGE_CASES], ids=[c[0] for c in EDGE_CASES]
)
def test_edge_distance_by_hand(a: Base, b: Base, expected: float) -> None:
    assert ref.edge_distance(a, b) == pytest.approx(expected, abs=1e-9)
    assert ref.edge_distance(b, a) == pytest.approx(expected, abs=1e-9)


# Collinear, disjoint edges once counted as crossing through rounding noise (~1e-12).


def test_twins_abreast_with_a_gap_are_that_gap_apart() -> None:
    # Two 40 x 20 bases facing 35 degrees, the second's centre 50 mm to the first's right: a
    # line abreast whose front (and rear) edges lie on one line. Gap 50 - 20 - 20 = 10.
    a = rect(0, 0, 35, 40, 20)
    b = rect(*at_local(a, 50, 0), 35, 40, 20)
    assert ref.edge_distance(a, b) == pytest.approx(10.0)
    assert g.distance_matrix([a, b])[0, 1] == pytest.approx(10.0)


def test_segment_distance_of_collinear_front_edges() -> None:
    # The front edges (corners 0 -> 1) of the twins above: on one line, the first ending 10 mm
    # before the second begins.
    a = rect(0, 0, 35, 40, 20)
    pa, pb = g.corners(a), g.corners(rect(*at_local(a, 50, 0), 35, 40, 20))
    assert float(g.segment_distance(pa[0], pa[1], pb[0], pb[1])) == pytest.approx(10.0)


def test_edge_distance_of_bases_loaded_in_cm() -> None:
    # 2.5 cm squares at x = 10 cm and x = 20 cm: centres 100 mm apart, 100 - 25 = 75 mm.
    scene = make_scene(
        "skirmish-19c",
        [
            unit_doc("a", "red", [base_doc("a1", 10, 30)]),
            unit_doc("b", "blue", [base_doc("b1", 20, 30)]),
        ],
    )
    assert ref.edge_distance(scene.base("a1"), scene.base("b1")) == pytest.approx(75.0)


def test_distance_matrix_all_pairs_by_hand() -> None:
    bases = [rect(0, 0), rect(50, 0), disc(0, 40, 10)]
    # 0-1: 50 - 20 = 30.  0-2: 40 - 10 - 5 = 25.
    # 1-2: nearest point of x 40..60, y -10..10 to (0, 40) is (40, 10): hypot(40, 30) - 5 = 45.
    expected = np.array([[0, 30, 25], [30, 0, 45], [25, 45, 0]], dtype=float)
    assert g.distance_matrix(bases) == pytest.approx(expected, abs=1e-9)
    assert g.distance_matrix(bases[:1], bases[1:]) == pytest.approx(np.array([[30.0, 25.0]]))


def test_distance_matrix_of_no_bases_is_empty() -> None:
    assert g.distance_matrix([]).shape == (0, 0)
    assert g.distance_matrix([rect(0, 0)], []).shape == (1, 0)


@pytest.mark.parametrize(
    ("b", "point", "expected"),
    [
        (rect(0, 0), (25, 0), 15.0),  # 25 - 10
        (rect(0, 0), (13, 14), 5.0),  # from corner (10, 10): hypot(3, 4)
        (rect(0, 0), (3, 4), 0.0),  # inside
        (rect(0, 0), (10, 0), 0.0),  # on the edge
        (disc(0, 0, 20), (30, 40), 40.0),  # hypot(30, 40) - 10
        (disc(0, 0, 20), (3, 4), 0.0),  # inside
    ],
)
def test_point_distance(b: Base, point: tuple[float, float], expected: float) -> None:
    assert g.point_distance(b, point) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    ("p", "a", "b", "expected"),
    [
        ((5, 3), (0, 0), (10, 0), 3.0),  # foot of the perpendicular inside the segment
        ((13, 4), (0, 0), (10, 0), 5.0),  # beyond b: hypot(3, 4)
        ((-3, -4), (0, 0), (10, 0), 5.0),  # before a
        ((4, 5), (1, 1), (1, 1), 5.0),  # a segment of no length is a point: hypot(3, 4)
    ],
)
def test_point_segment_distance(p: tuple, a: tuple, b: tuple, expected: float) -> None:
    assert float(g.point_segment_distance(poly([p])[0], poly([a])[0], poly([b])[0])) == (
        pytest.approx(expected)
    )


@pytest.mark.parametrize(
    ("a1", "a2", "b1", "b2", "expected"),
    [
        ((0, 0), (10, 0), (0, 5), (10, 5), 5.0),  # parallel
        ((0, 0), (10, 10), (0, 10), (10, 0), 0.0),  # an X
        ((0, 0), (10, 0), (5, 0), (5, 10), 0.0),  # a T: one ends on the other
        ((0, 0), (10, 0), (13, 4), (20, 10), 5.0),  # end (10, 0) to end (13, 4)
        ((0, 0), (10, 0), (13, 0), (20, 0), 3.0),  # collinear, apart
        ((0, 0), (10, 0), (5, 0), (20, 0), 0.0),  # collinear, overlapping
    ],
)
def test_segment_distance(a1: tuple, a2: tuple, b1: tuple, b2: tuple, expected: float) -> None:
    got = g.segment_distance(poly([a1])[0], poly([a2])[0], poly([b1])[0], poly([b2])[0])
    assert float(got) == pytest.approx(expected, abs=1e-12)


def test_segment_distance_broadcasts_over_many_segments() -> None:
    a1 = poly([(0, 0), (0, 0)])
    a2 = poly([(10, 0), (10, 10)])
    b1 = poly([(0, 5), (0, 10)])
    b2 = poly([(10, 5), (10, 0)])
    assert g.segment_distance(a1, a2, b1, b2) == pytest.approx(np.array([5.0, 0.0]), abs=1e-12)


def test_convex_distance_with_radii() -> None:
    p = poly([(0, 0), (10, 0), (10, 10), (0, 10)])
    q = poly([(13, 4), (23, 4), (23, 14), (13, 14)])
    # y ranges overlap (4..10); x gap 13 - 10 = 3.
    assert g.convex_distance(p, 0.0, q, 0.0) == pytest.approx(3.0)
    assert g.convex_distance(p, 1.0, q, 1.0) == pytest.approx(1.0)  # 3 - 1 - 1
    assert g.convex_distance(p, 2.0, q, 2.0) == 0.0  # the grown shapes overlap


# --------------------------------------------------------------------------------------------
# Edge-to-edge distance, properties


def bounded(examples: int) -> settings:
    """Hypothesis settings for this file: few examples, a fixed seed and no example database, so
    every run (here and in CI) tries the same cases; no deadline, as CI machines are shared."""
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None)


coords = st.floats(min_value=-600.0, max_value=600.0)
facings = st.floats(min_value=0.0, max_value=360.0, exclude_max=True)
sizes = st.floats(min_value=5.0, max_value=120.0)
rect_bases = st.builds(rect, coords, coords, facings, sizes, sizes)
round_bases = st.builds(disc, coords, coords, sizes, facings)
any_bases = st.one_of(rect_bases, round_bases)
angles = st.floats(min_value=-360.0, max_value=360.0)
gaps = st.floats(min_value=0.0, max_value=200.0)


@bounded(120)
@given(any_bases, any_bases)
def test_edge_distance_is_symmetric(a: Base, b: Base) -> None:
    assert ref.edge_distance(a, b) == pytest.approx(ref.edge_distance(b, a), abs=1e-9)


@bounded(120)
@given(any_bases, any_bases, angles, coords, coords)
def test_edge_distance_survives_moving_and_turning_the_table(
    a: Base, b: Base, theta: float, dx: float, dy: float
) -> None:
    before = ref.edge_distance(a, b)
    after = ref.edge_distance(turn_table(a, theta, dx, dy), turn_table(b, theta, dx, dy))
    assert after == pytest.approx(before, abs=1e-6)


@bounded(100)
@given(any_bases, any_bases)
def test_bases_on_the_same_centre_are_zero_apart(a: Base, b: Base) -> None:
    assert ref.edge_distance(a, dataclasses.replace(b, x=a.x, y=a.y)) == 0.0


@bounded(120)
@given(rect_bases, gaps, st.sampled_from(["right", "left", "ahead", "behind"]))
def test_twin_placed_a_gap_away_is_that_gap_apart(a: Base, gap: float, side: str) -> None:
    # A twin of `a` (same size and facing) whose centre is one base width (or depth) plus `gap`
    # to one side: their facing edges are parallel and exactly `gap` apart; 0 = touching.
    w, d = a.footprint.width, a.footprint.depth
    offset = {
        "right": (w + gap, 0.0),
        "left": (-(w + gap), 0.0),
        "ahead": (0.0, d + gap),
        "behind": (0.0, -(d + gap)),
    }[side]
    x, y = at_local(a, *offset)
    assert ref.edge_distance(a, dataclasses.replace(a, x=x, y=y)) == pytest.approx(gap, abs=1e-6)


@bounded(120)
@given(round_bases, round_bases, gaps, angles)
def test_round_bases_are_centre_distance_less_radii(
    a: Base, b: Base, gap: float, direction: float
) -> None:
    reach = g.radius(a) + g.radius(b) + gap
    t = math.radians(direction)
    b = dataclasses.replace(b, x=a.x + reach * math.cos(t), y=a.y + reach * math.sin(t))
    assert ref.edge_distance(a, b) == pytest.approx(gap, abs=1e-6)


@bounded(120)
@given(
    st.lists(
        st.tuples(coords, coords, st.sampled_from([0.0, 90.0, 180.0, 270.0]), sizes, sizes),
        min_size=2,
        max_size=2,
    )
)
def test_square_on_rectangles_match_the_box_gap_formula(specs: list[tuple]) -> None:
    # Rectangles square to the table: the gap is hypot of the x gap and the y gap, each
    # |centre difference| - the two half extents (never below 0). A base facing 0 or 180 has
    # its depth along x; facing 90 or 270 its width along x.
    a, b = (rect(*s) for s in specs)

    def half_extents(r: Base) -> tuple[float, float]:
        w, d = r.footprint.width / 2, r.footprint.depth / 2
        return (d, w) if r.facing in (0.0, 180.0) else (w, d)

    (ax, ay), (bx, by) = half_extents(a), half_extents(b)
    gap_x = max(0.0, abs(a.x - b.x) - ax - bx)
    gap_y = max(0.0, abs(a.y - b.y) - ay - by)
    assert ref.edge_distance(a, b) == pytest.approx(math.hypot(gap_x, gap_y), abs=1e-6)


@bounded(120)
@given(any_bases, any_bases)
def test_edge_distance_is_at_most_the_centre_distance(a: Base, b: Base) -> None:
    assert ref.edge_distance(a, b) <= math.hypot(a.x - b.x, a.y - b.y) + 1e-9


@bounded(60)
@given(st.lists(any_bases, min_size=1, max_size=6), st.lists(any_bases, min_size=1, max_size=4))
def test_distance_matrix_agrees_with_edge_distance(
    group_a: list[Base], group_b: list[Base]
) -> None:
    square = g.distance_matrix(group_a)
    cross = g.distance_matrix(group_a, group_b)
    for i, a in enumerate(group_a):
        for j, b in enumerate(group_a):
            assert square[i, j] == pytest.approx(ref.edge_distance(a, b), abs=1e-6)
        for j, b in enumerate(group_b):
            assert cross[i, j] == pytest.approx(ref.edge_distance(a, b), abs=1e-6)


@bounded(100)
@given(
    any_bases, st.floats(min_value=-1.0, max_value=1.0), st.floats(min_value=-1.0, max_value=1.0)
)
def test_points_on_the_footprint_are_zero_from_it(b: Base, s: float, t: float) -> None:
    # A point s, t of the way from the centre to the rectangle's side/front (or, for a round
    # base, within its radius) lies on the base.
    if b.footprint.circle:
        r = g.radius(b) * max(abs(s), abs(t))
        point = (b.x + r * math.cos(s * math.pi), b.y + r * math.sin(s * math.pi))
    else:
        point = at_local(b, s * b.footprint.width / 2, t * b.footprint.depth / 2)
    assert g.point_distance(b, point) == pytest.approx(0.0, abs=1e-6)


@bounded(100)
@given(any_bases, coords, coords)
def test_to_local_inverts_at_local(b: Base, right: float, ahead: float) -> None:
    assert g.to_local(b, at_local(b, right, ahead)) == pytest.approx(
        np.array([right, ahead]), abs=1e-6
    )


# --------------------------------------------------------------------------------------------
# Aspect


@pytest.mark.parametrize(
    ("b", "expected"),
    [
        (rect(0, 0, 90, 20, 20), 45.0),  # square: the diagonals are at 45 degrees
        (rect(0, 0, 90, 40, 20), math.degrees(math.atan2(20, 10))),  # wide: 63.43
        (rect(0, 0, 90, 20, 40), math.degrees(math.atan2(10, 20))),  # deep: 26.57
        (disc(0, 0, 30), 45.0),  # round: quarters
    ],
    ids=["square", "wide", "deep", "round"],
)
def test_front_half_angle(b: Base, expected: float) -> None:
    assert g.front_half_angle(b) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("target", "point", "expected"),
    [
        (rect(0, 0), (0, 50), Aspect.FRONT),
        (rect(0, 0), (0, -50), Aspect.REAR),
        (rect(0, 0), (50, 0), Aspect.FLANK),
        (rect(0, 0), (-50, 0), Aspect.FLANK),
        (rect(0, 0), (30, 30), Aspect.FRONT),  # on the front-right diagonal: still front
        (rect(0, 0), (-30, -30), Aspect.REAR),  # on the rear-left diagonal: still rear
        (rect(0, 0), (31, 30), Aspect.FLANK),  # atan2(31, 30) = 45.9 > 45 degrees
        (rect(0, 0), (30, 31), Aspect.FRONT),  # 44.1 degrees
        # A wide base (40 x 20) has a 63.4 degree front half angle: (30, 20) is at
        # atan2(30, 20) = 56.3 degrees, in front, where a square would see its flank.
        (rect(0, 0, 90, 40, 20), (30, 20), Aspect.FRONT),
        # A deep base (20 x 40): 26.6 degrees; (30, 50) is at 31.0 degrees: flank.
        (rect(0, 0, 90, 20, 40), (30, 50), Aspect.FLANK),
        # A square facing 0 (+x): (50, 10) is ahead.
        (rect(0, 0, 0), (50, 10), Aspect.FRONT),
        (rect(0, 0, 0), (10, 50), Aspect.FLANK),
        # A round base facing 0, quarters: (50, 40) is atan2(40, 50) = 38.7 degrees off ahead.
        (disc(0, 0, 20, 0), (50, 40), Aspect.FRONT),
        (disc(0, 0, 20, 0), (-50, 60), Aspect.FLANK),  # 129.8 degrees from ahead
        (disc(0, 0, 20, 0), (-60, 50), Aspect.REAR),  # 140.2 degrees
    ],
)
def test_aspect_of_point(target: Base, point: tuple[float, float], expected: Aspect) -> None:
    assert aspect_of_point(target, point).aspect is expected


@pytest.mark.parametrize(
    ("point", "margin"),
    [
        # Square facing 90: the diagonals are the lines y = x and y = -x.
        ((0, 50), 50 / SQRT2),  # |0 - 50| / sqrt2 to either line
        ((50, 0), 50 / SQRT2),
        ((30, 40), 10 / SQRT2),  # |30 - 40| / sqrt2 to y = x (to y = -x: 70 / sqrt2)
        ((30, 30), 0.0),  # on a diagonal
    ],
)
def test_aspect_margin_is_distance_to_the_nearer_diagonal(
    point: tuple[float, float], margin: float
) -> None:
    assert aspect_of_point(rect(0, 0), point).margin == pytest.approx(margin, abs=1e-9)


@pytest.mark.parametrize(
    ("target_facing", "expected"),
    [(90.0, Aspect.FRONT), (270.0, Aspect.REAR), (0.0, Aspect.FLANK), (180.0, Aspect.FLANK)],
)
def test_aspect_of_attacker_is_judged_from_its_centre(
    target_facing: float, expected: Aspect
) -> None:
    # The attacker stands 50 mm towards +y of the target.
    assert g.aspect(rect(0, 50, 0), rect(0, 0, target_facing)).aspect is expected


def test_aspect_matrix_by_hand() -> None:
    # A (0, 0) faces +y; B (0, 50) faces -y, towards A; C (60, 0) beside A faces +y;
    # D (0, -70) behind A faces +y. Entry [i, j] is where i stands relative to j.
    bases = [rect(0, 0, 90), rect(0, 50, 270), rect(60, 0, 90), rect(0, -70, 90)]
    F, S, R = 0, 1, 2  # front, flank (side), rear
    expected = [
        # A rel B: 50 ahead of B.  A rel C: 60 to C's left, 0 ahead.  A rel D: 70 ahead.
        [None, F, S, F],
        # B rel A: ahead.  B rel C: (-60, 50) is atan2(60, 50) = 50.2 degrees: flank.  B rel D.
        [F, None, S, F],
        # C rel A: beside.  C rel B: 50 ahead, 60 aside: 50.2 degrees.  C rel D: (60, 70) is
        # atan2(60, 70) = 40.6 degrees: front.
        [S, S, None, F],
        # D rel A: straight behind.  D rel B: 120 ahead of B.  D rel C: (-60, -70) is 139.4
        # degrees from ahead, past 180 - 45: rear.
        [R, F, R, None],
    ]
    got = g.aspect_matrix(bases)
    assert got.shape == (4, 4)
    for i, row in enumerate(expected):
        for j, code in enumerate(row):
            if code is not None:
                assert got[i, j] == code, (i, j)


def test_aspect_matrix_of_no_bases_is_empty() -> None:
    assert g.aspect_matrix([]).shape == (0, 0)


@bounded(120)
@given(any_bases, st.floats(min_value=1.0, max_value=500.0))
def test_point_straight_ahead_behind_beside(target: Base, k: float) -> None:
    assert aspect_of_point(target, at_local(target, 0, k)).aspect is Aspect.FRONT
    assert aspect_of_point(target, at_local(target, 0, -k)).aspect is Aspect.REAR
    assert aspect_of_point(target, at_local(target, k, 0)).aspect is Aspect.FLANK
    assert aspect_of_point(target, at_local(target, -k, 0)).aspect is Aspect.FLANK


@bounded(100)
@given(any_bases, any_bases, angles, coords, coords)
def test_aspect_survives_moving_and_turning_the_table(
    attacker: Base, target: Base, theta: float, dx: float, dy: float
) -> None:
    reading = g.aspect(attacker, target)
    assume(reading.margin > 1e-6)  # a point on a diagonal may go either way after rounding
    moved = g.aspect(turn_table(attacker, theta, dx, dy), turn_table(target, theta, dx, dy))
    assert moved.aspect is reading.aspect
    assert moved.margin == pytest.approx(reading.margin, abs=1e-6)


@bounded(100)
@given(st.lists(any_bases, min_size=1, max_size=6))
def test_aspect_matrix_agrees_with_aspect(bases: list[Base]) -> None:
    codes = list(Aspect)
    got = g.aspect_matrix(bases)
    for i, a in enumerate(bases):
        for j, b in enumerate(bases):
            reading = g.aspect(a, b)
            if reading.margin > 1e-6:
                assert codes[got[i, j]] is reading.aspect, (i, j)


# --------------------------------------------------------------------------------------------
# Fire arcs
#
# The shooter is a 20 x 20 square; in its own frame (right, ahead) its front corners are
# (10, 10) and (-10, 10). The cases are written in that frame and checked at several facings.

ARC_CASES = [
    # half angle 0: a corridor x -10..10 ahead of the front edge.
    ((0, 100), 0, True),
    ((10, 100), 0, True),  # on the corridor's edge
    ((10.5, 100), 0, False),
    ((0, -100), 0, False),
    # 45: the ray from (10, 10) runs through (10 + t, 10 + t); at 55 ahead it is 55 to the right.
    ((50, 55), 45, True),
    ((55, 55), 45, True),  # on the ray
    ((60, 55), 45, False),
    ((-60, 55), 45, False),
    # 90: the half-plane ahead of the front edge (ahead >= 10).
    ((1000, 10.5), 90, True),
    ((1000, 9.5), 90, False),
    # 135: rays leave (10, 10) through (10 + t, 10 - t), 45 degrees behind the side.
    ((100, -50), 135, True),  # the ray is at ahead = 10 - 90 = -80 here; -50 is above it
    ((-100, -50), 135, True),
    ((100, -100), 135, False),
    ((0, -100), 135, False),  # straight behind is never between the rays
    # 180 and more: all round.
    ((0, -100), 180, True),
    ((0, -100), 360, True),
]


def point_in_arc(shooter: Base, point: tuple[float, float], half_angle: float) -> bool:
    """Whether a point lies in the shooter's fire arc (boundaries included): in or on one of
    `arc_regions` of tests/sight_reference.py."""
    regions = ref.arc_regions(shooter, half_angle)
    if regions is None:
        return True
    p = np.repeat(np.array(point, dtype=float)[None], 4, axis=0)
    return any(g.convex_distance(r, 0.0, p, 0.0) <= g.EPS for r in regions)


@pytest.mark.parametrize("facing", [90.0, 0.0, 217.0])
@pytest.mark.parametrize(("local", "half_angle", "expected"), ARC_CASES)
def test_point_in_arc(
    facing: float, local: tuple[float, float], half_angle: float, expected: bool
) -> None:
    shooter = rect(40, -30, facing)
    assert point_in_arc(shooter, at_local(shooter, *local), half_angle) is expected


@pytest.mark.parametrize(
    ("half_angle", "regions"), [(0, 1), (45, 1), (90, 1), (135, 3), (180, None), (360, None)]
)
def test_arc_regions_count(half_angle: float, regions: int | None) -> None:
    got = ref.arc_regions(rect(0, 0), half_angle)
    assert (None if got is None else len(got)) == regions


@pytest.mark.parametrize("half_angle", [-1.0, 360.5])
def test_arc_regions_reject_a_bad_half_angle(half_angle: float) -> None:
    with pytest.raises(ValueError, match="half_angle"):
        ref.arc_regions(rect(0, 0), half_angle)


@pytest.mark.parametrize(
    ("point", "half_angle", "expected"),
    [
        # A round shooter (radius 10, facing +y) shoots from its rim point (0, 10).
        ((0, 100), 0, True),
        ((1, 100), 0, False),
        ((30, 50), 45, True),  # the ray from (0, 10) is at x = 50 - 10 = 40 here
        ((50, 50), 45, False),
        ((100, 10), 90, True),  # on the line through the rim point
        ((100, 9), 90, False),
    ],
)
def test_point_in_arc_of_a_round_shooter(
    point: tuple[float, float], half_angle: float, expected: bool
) -> None:
    assert point_in_arc(disc(0, 0, 20, 90), point, half_angle) is expected


@pytest.mark.parametrize(
    ("target", "half_angle", "expected"),
    [
        (rect(25, 100), 0, False),  # x 15..35, the corridor is x -10..10
        (rect(18, 100), 0, True),  # x 8..28: partly in the corridor is in
        (disc(15, 100, 10), 0, True),  # x 10..20: touching the corridor's edge
        (disc(16, 100, 10), 0, False),
        (rect(0, 500), 45, True),  # wholly inside the arc
        (rect(0, -100), 45, False),  # behind
        (rect(0, -100), 180, True),
    ],
)
def test_base_in_arc(target: Base, half_angle: float, expected: bool) -> None:
    assert ref.base_in_arc(rect(0, 0, 90), target, half_angle) is expected


@bounded(100)
@given(
    rect_bases,
    coords,
    coords,
    st.floats(min_value=0.0, max_value=200.0),
    st.floats(min_value=0.0, max_value=200.0),
)
def test_a_wider_arc_holds_what_a_narrower_one_does(
    shooter: Base, x: float, y: float, h1: float, h2: float
) -> None:
    narrow, wide = sorted((h1, h2))
    if point_in_arc(shooter, (x, y), narrow):
        assert point_in_arc(shooter, (x, y), wide)


# --------------------------------------------------------------------------------------------
# Terrain


def test_point_in_non_convex_polygon() -> None:
    points = np.array([[(20, 80), (70, 70)], [(70, 20), (150, 50)]], dtype=float)
    # (20, 80) in the L's arm; (70, 70) in the cut-away corner; (70, 20) in the bar; (150, 50) off.
    got = g.point_in_polygon(points, L_TERRAIN)
    assert got.shape == (2, 2)
    assert got.tolist() == [[True, False], [True, False]]


@pytest.mark.parametrize(
    ("point", "polygon", "expected"),
    [
        ((30, 50), SQUARE_TERRAIN, 30.0),  # nearest edge x = 0
        ((150, 50), SQUARE_TERRAIN, 50.0),  # outside: to x = 100
        ((130, 140), SQUARE_TERRAIN, 50.0),  # off the corner (100, 100): hypot(30, 40)
        ((60, 70), L_TERRAIN, 20.0),  # in the cut-away: x = 40 is 20 away, y = 40 is 30
    ],
)
def test_gaps_to_boundary_of_a_round_base(point: tuple, polygon: list, expected: float) -> None:
    # A round base of radius 1 mm on the point: its rim is 1 mm nearer the edge than its centre.
    outlines, radii, _ = g.shapes([disc(point[0], point[1], 2.0)])
    assert g.gaps_to_boundary(outlines, radii, polygon)[0] == pytest.approx(expected - 1)


def test_gaps_to_boundary_of_rectangles_and_discs_at_once() -> None:
    # 20 x 10 rectangles (width across a facing of 90: x 20 wide, y 10 deep) in the square:
    # at (30, 50) its left side x = 20 is 20 from x = 0; at (50, 96) it crosses y = 100: 0;
    # at (130, 50) outside, its left side x = 120 is 20 from x = 100; a disc of radius 5 at
    # (50, 90) is 10 - 5 = 5 from y = 100
    bases = [rect(30, 50, 90, 20, 10), rect(50, 96, 90, 20, 10), rect(130, 50, 90, 20, 10)]
    outlines, radii, _ = g.shapes([*bases, disc(50, 90, 10.0)])
    gaps = g.gaps_to_boundary(outlines, radii, SQUARE_TERRAIN)
    assert gaps.tolist() == pytest.approx([20.0, 0.0, 20.0, 5.0])


@pytest.mark.parametrize(
    ("subject", "clip", "expected"),
    [
        # Squares overlapping in a 50 x 50 corner.
        (SQUARE_TERRAIN, [(50, 50), (150, 50), (150, 150), (50, 150)], 2500.0),
        # The L inside the window 20..80: 60*60 less the cut-away part 40..80 squared (40*40).
        (L_TERRAIN, [(20, 20), (80, 20), (80, 80), (20, 80)], 3600.0 - 1600.0),
        # The window inside the square: the window's own area.
        (SQUARE_TERRAIN, [(10, 10), (30, 10), (30, 40), (10, 40)], 600.0),
        # Apart: nothing.
        (SQUARE_TERRAIN, [(200, 0), (300, 0), (300, 100), (200, 100)], 0.0),
    ],
)
def test_clip_to_convex_area(subject: list, clip: list, expected: float) -> None:
    assert polygon_area(g.clip_to_convex(poly(subject), poly(clip))) == pytest.approx(expected)


CONTAINMENT_CASES = [
    ("square-inside", rect(50, 50), SQUARE_TERRAIN, Containment.INSIDE),
    ("touching-edge-from-inside", rect(10, 50), SQUARE_TERRAIN, Containment.INSIDE),
    ("touching-edge-from-outside", rect(-10, 50), SQUARE_TERRAIN, Containment.OUTSIDE),
    ("straddling-edge", rect(100, 50), SQUARE_TERRAIN, Containment.PARTLY),
    ("far-away", rect(200, 50), SQUARE_TERRAIN, Containment.OUTSIDE),
    # A diamond reaches 14.14 from its centre.
    ("diamond-inside", rect(50, 50, 45), SQUARE_TERRAIN, Containment.INSIDE),
    ("diamond-on-edge", rect(90, 50, 45), SQUARE_TERRAIN, Containment.PARTLY),
    ("terrain-inside-base", rect(50, 50, 90, 300, 300), SQUARE_TERRAIN, Containment.PARTLY),
    # The U's notch is x 40..80, y 40..100.
    ("in-the-notch", rect(60, 80), U_TERRAIN, Containment.OUTSIDE),
    ("bar-below-notch", rect(60, 30), U_TERRAIN, Containment.INSIDE),
    ("across-notch-mouth", rect(60, 45), U_TERRAIN, Containment.PARTLY),
    ("left-arm", rect(20, 70), U_TERRAIN, Containment.INSIDE),
    # x 5..115 at y 60..80: all four corners are in the arms, the middle is in the notch.
    ("corners-in-both-arms", rect(60, 70, 90, 110, 20), U_TERRAIN, Containment.PARTLY),
    # Round bases: inside when the centre is in and at least a radius from every edge.
    ("round-inside", disc(50, 50, 20), SQUARE_TERRAIN, Containment.INSIDE),
    ("round-touching-inside", disc(10, 50, 20), SQUARE_TERRAIN, Containment.INSIDE),
    ("round-touching-outside", disc(-10, 50, 20), SQUARE_TERRAIN, Containment.OUTSIDE),
    ("round-straddling", disc(100, 50, 20), SQUARE_TERRAIN, Containment.PARTLY),
    ("round-far", disc(150, 50, 20), SQUARE_TERRAIN, Containment.OUTSIDE),
    ("round-over-terrain", disc(50, 50, 400), SQUARE_TERRAIN, Containment.PARTLY),
    ("round-in-notch", disc(60, 80, 20), U_TERRAIN, Containment.OUTSIDE),  # 20 from each arm
    ("round-over-notch", disc(60, 80, 50), U_TERRAIN, Containment.PARTLY),  # radius 25 > 20
]


@pytest.mark.parametrize(
    ("b", "polygon", "expected"),
    [c[1:] for c in CONTAINMENT_CASES],
    ids=[c[0] for c in CONTAINMENT_CASES],
)
def test_containment(b: Base, polygon: list, expected: Containment) -> None:
    assert g.containment(b, polygon) is expected


@bounded(100)
@given(any_bases, angles, coords, coords)
def test_containment_survives_moving_and_turning_the_table(
    b: Base, theta: float, dx: float, dy: float
) -> None:
    # Bases scattered over the U (and around it) keep their containment when the table turns.
    b = dataclasses.replace(b, x=b.x / 5 + 60, y=b.y / 5 + 50)
    before = g.containment(b, U_TERRAIN)
    t = math.radians(theta)
    c, s = math.cos(t), math.sin(t)
    moved_poly = [(c * x - s * y + dx, s * x + c * y + dy) for x, y in U_TERRAIN]
    assert g.containment(turn_table(b, theta, dx, dy), moved_poly) is before


# --------------------------------------------------------------------------------------------
# Line of sight

SQUARE_OBSTACLE = Obstacle("square", poly(SQUARE_TERRAIN))
U_OBSTACLE = Obstacle("u", poly(U_TERRAIN))
ROUND_OBSTACLE = ref.BaseObstacle("round", poly([(0, 0)] * 4), radius=10.0)


@pytest.mark.parametrize(
    ("a", "b", "obstacle", "expected"),
    [
        ((-50, 50), (150, 50), SQUARE_OBSTACLE, (100, 0, 0)),  # straight through
        ((50, 50), (150, 50), SQUARE_OBSTACLE, (50, 50, 0)),  # from inside: 50 to x = 100
        ((-50, 50), (50, 50), SQUARE_OBSTACLE, (50, 0, 50)),  # into it
        ((20, 50), (80, 50), SQUARE_OBSTACLE, (60, 60, 60)),  # wholly inside
        ((-50, 0), (150, 0), SQUARE_OBSTACLE, (0, 0, 0)),  # along an edge
        ((-50, 50), (50, -50), SQUARE_OBSTACLE, (0, 0, 0)),  # grazing the corner (0, 0)
        ((-50, -50), (150, 150), SQUARE_OBSTACLE, (100 * SQRT2, 0, 0)),  # the diagonal
        ((-10, 70), (130, 70), U_OBSTACLE, (80, 0, 0)),  # through both arms: 40 + 40
        ((20, 70), (130, 70), U_OBSTACLE, (60, 20, 0)),  # from the left arm: 20 + 40
        # Circle of radius 10 about (0, 0): the chord at y = 6 is 2 * sqrt(100 - 36) = 16.
        ((-50, 6), (50, 6), ROUND_OBSTACLE, (16, 0, 0)),
        ((0, 0), (50, 0), ROUND_OBSTACLE, (10, 10, 0)),
        ((-50, 10), (50, 10), ROUND_OBSTACLE, (0, 0, 0)),  # tangent
        ((-5, 0), (5, 0), ROUND_OBSTACLE, (10, 10, 10)),
    ],
)
def test_length_inside(a: tuple, b: tuple, obstacle: Obstacle, expected: tuple) -> None:
    # the per-segment reference, round obstacles too; the product's batch for polygons
    assert ref.length_inside(a, b, obstacle) == pytest.approx(expected, abs=1e-9)
    if not isinstance(obstacle, ref.BaseObstacle):
        lengths = g.inside_lengths(np.array([a]), np.array([b]), obstacle.polygon)
        assert [float(x[0]) for x in lengths] == pytest.approx(expected, abs=1e-9)


WALL = Obstacle("wall", poly([(45, -50), (55, -50), (55, 50), (45, 50)]))
WOODS = Obstacle("woods", poly(SQUARE_TERRAIN), see_into=100.0)  # seen into for 10 cm
THIN_WOODS = Obstacle("woods", poly(SQUARE_TERRAIN), see_into=30.0)
DEEP_WOODS = Obstacle("woods", poly([(0, 0), (300, 0), (300, 100), (0, 100)]), see_into=100.0)


@pytest.mark.parametrize(
    ("a", "b", "obstacle", "kwargs", "expected"),
    [
        ((0, 0), (100, 0), WALL, {}, True),
        ((0, 60), (100, 60), WALL, {}, False),  # passes above the wall
        ((0, 50), (100, 50), WALL, {}, False),  # runs along its top edge
        # From 50 mm inside woods seen into for 100 mm: forgiven.
        ((50, 50), (150, 50), WOODS, {}, False),
        ((50, 50), (150, 50), WOODS, {"a_inside_ok": False}, True),
        ((-50, 50), (50, 50), WOODS, {}, False),  # the target stands 50 inside
        ((-50, 50), (50, 50), WOODS, {"b_inside_ok": False}, True),
        ((-50, 50), (150, 50), WOODS, {}, True),  # through 100 mm, neither end inside
        ((50, 50), (150, 50), THIN_WOODS, {}, True),  # 50 mm inside, only 30 forgiven
        ((50, 50), (400, 50), DEEP_WOODS, {}, True),  # 250 mm inside, only 100 forgiven
        # Both ends in the same woods, 60 mm apart: each end forgives up to 30 mm of the one
        # stretch they share, 30 + 30 = 60, so a sight line within woods reaches 2 * see_into.
        ((20, 50), (80, 50), THIN_WOODS, {}, False),
        ((20, 50), (81, 50), THIN_WOODS, {}, True),  # 61 > 60
    ],
)
def test_ray_blocked(a: tuple, b: tuple, obstacle: Obstacle, kwargs: dict, expected: bool) -> None:
    assert ref.ray_blocked(a, b, obstacle, **kwargs) is expected


def test_obstacle_of_base() -> None:
    square = ref.obstacle_of_base(rect(5, 5, ident="blocker"))
    assert square.id == "blocker"
    assert square.radius == 0.0
    assert square.polygon == pytest.approx(g.corners(rect(5, 5)))
    assert ref.obstacle_of_base(disc(0, 0, 30)).radius == pytest.approx(15.0)


def test_sight_points_of_a_rectangle_are_centre_and_corners() -> None:
    b = rect(0, 0)
    expected = [(0, 0), (10, 10), (-10, 10), (-10, -10), (10, -10)]
    assert g.sight_points(g.shapes([b]))[0] == pytest.approx(
        np.array(expected, dtype=float), abs=1e-6
    )


def test_sight_points_lie_just_inside_the_base() -> None:
    # Pulled in towards the centre so an aim point is never on the base's own edge.
    b = rect(30, 40, 20, 40, 20)
    local = g.to_local(b, g.sight_points(g.shapes([b]))[0, 1:])
    assert np.all(np.abs(local[:, 0]) < 20) and np.all(np.abs(local[:, 1]) < 10)
    assert np.abs(local) == pytest.approx(np.array([(20.0, 10.0)] * 4), abs=1e-6)


def test_sight_points_of_a_round_base_are_centre_and_rim() -> None:
    # Facing +y, radius 10: ahead (0, 10), behind (0, -10), right (10, 0), left (-10, 0).
    expected = [(0, 0), (0, 10), (0, -10), (10, 0), (-10, 0)]
    got = g.sight_points(g.shapes([disc(0, 0, 20, 90)]))[0]
    assert got == pytest.approx(np.array(expected, dtype=float), abs=1e-6)


VIEWER = rect(0, 0, 0)
TARGET = rect(200, 0, 180)  # corners (190 or 210, +-10)


def test_sight_with_nothing_between_sees_everything() -> None:
    seen = ref.pair_sight(VIEWER, TARGET, [])
    assert (seen.rays, seen.clear_rays, seen.blocked_by) == (5, 5, ())
    assert seen.entire and seen.any


def test_sight_behind_a_wall_sees_nothing() -> None:
    wall = Obstacle("wall", poly([(95, -100), (105, -100), (105, 100), (95, 100)]))
    seen = ref.pair_sight(VIEWER, TARGET, [wall])
    assert (seen.rays, seen.clear_rays, seen.blocked_by) == (5, 0, ("wall",))
    assert not seen.entire and not seen.any


def test_sight_over_a_low_wall_sees_part() -> None:
    # The wall covers y -100..-2 between x 95 and 105. The rays to the near corners (190, -10) and
    # (210, -10) are at y = -10*95/190 = -5 and -10*95/210 = -4.5 there: blocked. The rays to the
    # centre (y = 0) and the far corners (y > 0) pass.
    wall = Obstacle("wall", poly([(95, -100), (105, -100), (105, -2), (95, -2)]))
    seen = ref.pair_sight(VIEWER, TARGET, [wall])
    assert (seen.clear_rays, seen.blocked_by) == (3, ("wall",))
    assert seen.any and not seen.entire


def test_sight_past_a_base_in_the_way() -> None:
    # A round base of radius 2 at (100, 0) blocks the centre ray only: the ray to (190, 10)
    # passes 100*10/hypot(190, 10) = 5.26 mm from its centre (the others likewise or more).
    blocker = ref.obstacle_of_base(disc(100, 0, 4, ident="blocker"))
    other = ref.obstacle_of_base(rect(100, 300, ident="elsewhere"))
    seen = ref.pair_sight(VIEWER, TARGET, [blocker, other])
    assert (seen.clear_rays, seen.blocked_by) == (4, ("blocker",))


def test_sight_past_a_base_touching_the_target() -> None:
    # A neighbour (y 10..30) touches the target's side (y -10..10). The ray to the shared corner
    # (190, 10) ends on the neighbour's corner; the ray to (210, 10) stays at y = 10x/210 < 10
    # until it arrives. Neither runs inside the neighbour.
    neighbour = ref.obstacle_of_base(rect(200, 20, 180, ident="neighbour"))
    assert ref.pair_sight(VIEWER, TARGET, [neighbour]).entire


def test_sight_out_of_woods_the_viewer_stands_in() -> None:
    # The viewer stands 50 mm inside woods seen into for 100 mm: its own woods do not block.
    viewer = rect(50, 50, 0)
    target = rect(200, 50, 180)
    assert ref.pair_sight(viewer, target, [WOODS]).entire
    assert not ref.pair_sight(viewer, target, [THIN_WOODS]).any


# --------------------------------------------------------------------------------------------
# Square grid


@pytest.mark.parametrize(
    ("point", "box", "cell"),
    [
        ((25, 5), 10, (2, 0)),
        ((10, 10), 10, (1, 1)),  # a square's near-left edge belongs to it
        ((9.99, 0), 10, (0, 0)),
        ((-1, 0.5), 10, (-1, 0)),
    ],
)
def test_grid_cell(point: tuple[float, float], box: float, cell: tuple[int, int]) -> None:
    assert g.grid_cell(point, box) == cell


@pytest.mark.parametrize("box", [0.0, -5.0])
def test_grid_cell_refuses_a_box_that_is_not_positive(box: float) -> None:
    with pytest.raises(ValueError, match="grid box"):
        g.grid_cell((1, 1), box)


@pytest.mark.parametrize(
    ("a", "b", "boxes"),
    [
        # 003_5b7c133d01707a77.txt lines 18-19: "fires 2 boxes on the diagonal. Range becomes
        # 3 (1.5 +1.5)".
        ((0, 0), (2, 2), 3.0),
        ((0, 0), (1, 1), 1.5),
        ((0, 0), (3, 0), 3.0),  # straight
        ((0, 0), (3, 1), 3.5),  # one diagonal (1.5) and two straight
        ((5, 5), (2, 1), 5.5),  # dx 3, dy 4: three diagonals (4.5) and one straight
        ((4, 4), (4, 4), 0.0),
    ],
)
def test_grid_steps(a: tuple[int, int], b: tuple[int, int], boxes: float) -> None:
    assert g.grid_steps(a, b) == boxes


def test_grid_distance_between_bases_in_a_grid_scene() -> None:
    # Box 10 cm = 100 mm. Centres at (5, 5) cm, (25, 25) cm and (35, 5) cm stand in squares
    # (0, 0), (2, 2) and (3, 0): two diagonal steps = 3 boxes; three straight = 3 boxes.
    scene = make_scene(
        "age-of-napoleon",
        [
            unit_doc("a", "red", [base_doc("a1", 5, 5, width=4, depth=2)]),
            unit_doc("b", "blue", [base_doc("b1", 25, 25, width=4, depth=2)]),
            unit_doc("c", "blue", [base_doc("c1", 35, 5, width=4, depth=2)]),
        ],
        grid_box=10,
    )
    assert scene.grid_box is not None
    a1, b1, c1 = scene.base("a1"), scene.base("b1"), scene.base("c1")
    assert g.grid_distance(a1, b1, scene.grid_box) == 3.0
    assert g.grid_distance(a1, c1, scene.grid_box) == 3.0
    # (2, 2) to (3, 0): one diagonal and one straight.
    assert g.grid_distance(b1, c1, scene.grid_box) == 2.5


def shortest_path_boxes(a: tuple[int, int], b: tuple[int, int]) -> float:
    """Dijkstra over the squares around a and b: straight steps cost 1, diagonal steps 1.5."""
    lo_x, hi_x = min(a[0], b[0]) - 2, max(a[0], b[0]) + 2
    lo_y, hi_y = min(a[1], b[1]) - 2, max(a[1], b[1]) + 2
    best = {a: 0.0}
    queue = [(0.0, a)]
    while queue:
        cost, (x, y) = heapq.heappop(queue)
        if (x, y) == b:
            return cost
        if cost > best[(x, y)]:
            continue
        for sx in (-1, 0, 1):
            for sy in (-1, 0, 1):
                nxt = (x + sx, y + sy)
                if nxt == (x, y) or not (lo_x <= nxt[0] <= hi_x and lo_y <= nxt[1] <= hi_y):
                    continue
                step = 1.5 if sx and sy else 1.0
                if cost + step < best.get(nxt, math.inf):
                    best[nxt] = cost + step
                    heapq.heappush(queue, (cost + step, nxt))
    raise AssertionError("unreachable")


cells = st.tuples(st.integers(-6, 6), st.integers(-6, 6))


@bounded(120)
@given(cells, cells, cells)
def test_grid_steps_is_the_shortest_path_and_a_distance(
    a: tuple[int, int], b: tuple[int, int], c: tuple[int, int]
) -> None:
    assert g.grid_steps(a, b) == shortest_path_boxes(a, b)
    assert g.grid_steps(a, b) == g.grid_steps(b, a)
    assert g.grid_steps(a, c) <= g.grid_steps(a, b) + g.grid_steps(b, c)


@pytest.mark.parametrize("clockwise", [False, True])
def test_a_solid_square_blocks_a_line_through_it_whichever_way_round_it_is_listed(
    clockwise: bool,
) -> None:
    # A 10 mm square (0..10, 0..10) that cannot be seen into; the line y = 5 from x = -20 to
    # x = 30 runs 10 mm inside it, the line y = 15 misses it by 5 mm.
    outline = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]
    piece = Obstacle("house", np.array(outline[::-1] if clockwise else outline))
    eyes = np.array([[-20.0, 5.0], [-20.0, 15.0]])
    aims = np.array([[30.0, 5.0], [30.0, 15.0]])
    assert g.terrain_hits(eyes, aims, piece).tolist() == [True, False]


def test_within_takes_a_length_a_rounding_error_past_the_limit() -> None:
    # Two bases 4" apart measure 101.60000000000002 mm in some places of the table: on the
    # 101.6 mm edge, as every ruleset's band edges read it; a thousandth of a millimetre past
    # is beyond.
    assert g.within(101.60000000000002, 4 * 25.4)
    assert g.within(101.6, 101.6)
    assert not g.within(101.601, 101.6)
    assert g.within(np.array([101.6, 101.60000000000002, 101.7]), 101.6).tolist() == [
        True,
        True,
        False,
    ]


def test_nearest_pair_is_the_first_least_edge_distance_between_two_groups() -> None:
    # 20 mm squares: A at x = 0 and x = 100, B at x = 150 and x = 50 (all on y = 0). Edge to
    # edge: A0-B0 130, A0-B1 30, A1-B0 30, A1-B1 30: three pairs tie at 30 mm and the first in
    # reading order, A0-B1, is named.
    a = [rect(0, 0, ident="a0"), rect(100, 0, ident="a1")]
    b = [rect(150, 0, ident="b0"), rect(50, 0, ident="b1")]
    first, second, distance = g.nearest_pair(a, b)
    assert (first.id, second.id) == ("a0", "b1")
    assert distance == pytest.approx(30.0)
    first, second, distance = g.nearest_pair(a[1:], b[:1])
    assert (first.id, second.id, distance) == ("a1", "b0", pytest.approx(30.0))
