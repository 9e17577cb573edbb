"""The fire arcs `Table.in_arcs` answers (by the lines that bound them), worked by hand and
held to `base_in_arc` (tests/sight_reference.py: `arc_regions` and `geometry.convex_distance`).

Geometry: a firing base 40 x 20 mm centred on the origin facing +y (90 degrees), so its front edge
runs from (-20, 10) to (20, 10). Its 45-degree arc is bounded by the front edge and two rays from
the front corners, (20, 10) + t (1, 1) and (-20, 10) + t (-1, 1): the right ray lies on the line
x - y = 10, the left one on x + y = -10.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import geometry as geo
from rules.measure import Table
from rules.scene import Base, Footprint
from tests import sight_reference as ref
from tests.builders import base, make_scene, unit
from tests.sight_reference import arc_regions

SHOOTER = Base("gun", "battery", 0.0, 0.0, 90.0, Footprint(40.0, 20.0))
ARC = arc_regions(SHOOTER, 45.0)


def round_base(x: float, y: float, diameter: float) -> Base:
    return Base("hq", "staff", x, y, 0.0, Footprint(diameter, diameter, circle=True))


def test_the_arc_is_one_region() -> None:
    assert ARC is not None and len(ARC) == 1


@pytest.mark.parametrize(
    ("x", "y", "diameter", "expected"),
    [
        # Straight ahead, 90 mm beyond the front edge: inside by far.
        (0.0, 100.0, 20.0, True),
        # Behind the base: 110 mm outside the front edge's line, radius 10.
        (0.0, -100.0, 20.0, False),
        # Right of the right ray: x - y = 150, (150 - 10) / sqrt 2 = 99 mm outside, radius 10.
        (200.0, 50.0, 20.0, False),
        # Left of the left ray: x + y = -150, (150 - 10) / sqrt 2 = 99 mm outside it.
        (-200.0, 50.0, 20.0, False),
        # x - y = 40: 30 / sqrt 2 = 21.2 mm outside the right ray, radius 10 clear of it.
        (110.0, 70.0, 20.0, False),
    ],
)
def test_round_targets(x: float, y: float, diameter: float, expected: bool) -> None:
    assert ref.base_in_arc(SHOOTER, round_base(x, y, diameter), 45.0) is expected
    assert table_in_arc(x, y, diameter, 45.0) is expected


def table_in_arc(x: float, y: float, diameter: float, half_angle: float) -> bool:
    """`Table.in_arcs` of a round target at (x, y) from SHOOTER (both moved 300 mm up and right,
    onto the table)."""
    gun = base("gun", 300.0, 300.0, 90.0, 40, 20)
    hq = base("hq", 300.0 + x, 300.0 + y, 0.0, diameter=diameter)
    scene = make_scene("skirmish-19c", [unit("g", "a", [gun]), unit("t", "b", [hq])], unit="mm")
    table = Table(scene)
    return table.in_arcs([(table.bases[0], table.bases[1:], half_angle)])[0][0]


def test_a_round_target_across_the_arc_edge_is_in_it() -> None:
    # Centre (20 - 10) / sqrt 2 = 7.1 mm outside the right ray (x - y = 20) but radius 10:
    # the disc reaches across the ray, so it is in the arc, yet its centre is not inside.
    assert ref.base_in_arc(SHOOTER, round_base(100.0, 80.0, 20.0), 45.0) is True
    assert table_in_arc(100.0, 80.0, 20.0, 45.0) is True


@pytest.mark.parametrize(("away", "expected"), [(5.2, False), (4.9, True)])
def test_a_round_target_off_the_front_corner(away: float, expected: bool) -> None:
    # A disc of radius 5 straight out from the front-right corner (20, 10), midway between
    # the front edge's line (outward: -y) and the right ray's (outward: (1, -1) / sqrt 2), at
    # -67.5 degrees: each line alone has it away * cos 22.5 = 4.80 (or 4.53) mm out, less than
    # its radius, so only the line from the corner to its centre can tell: 5.2 mm is out.
    turn = math.radians(-67.5)
    x, y = 20 + away * math.cos(turn), 10 + away * math.sin(turn)
    assert table_in_arc(x, y, 10.0, 45.0) is expected
    assert ref.base_in_arc(SHOOTER, round_base(x, y, 10.0), 45.0) is expected


@pytest.mark.parametrize(
    ("x", "y", "expected"),
    [
        # 120 degrees: behind the front edge's line (y = 10) but right of the right ray, which
        # leaves (20, 10) at 30 degrees below +x: y = 10 - (x - 20) / sqrt 3.
        (100.0, -20.0, True),  # the ray is at y = 10 - 46.2 = -36.2 here
        (100.0, -50.0, False),  # 13.8 mm below it, radius 5 (perpendicular: 12.0 mm)
        (0.0, -100.0, False),  # straight behind
        (0.0, 30.0, True),  # straight ahead
    ],
)
def test_a_wide_arc_by_hand(x: float, y: float, expected: bool) -> None:
    assert table_in_arc(x, y, 10.0, 120.0) is expected
    assert ref.base_in_arc(SHOOTER, round_base(x, y, 10.0), 120.0) is expected


@settings(max_examples=40, deadline=None)
@given(
    facing=st.floats(0, 359.9),
    half_angle=st.sampled_from([0.0, 30.0, 45.0, 89.0, 89.9999, 90.0, 120.0, 180.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_in_arcs_is_base_in_arc_of_each_target(facing: float, half_angle: float, seed: int) -> None:
    # Round and square targets all round a 40 x 20 mm gun, some across the edges of its arc:
    # the batch answers each as `base_in_arc` (tests/sight_reference.py) does alone.
    rng = np.random.default_rng(seed)
    targets = []
    for k in range(12):
        x, y, turn = rng.uniform(150, 450), rng.uniform(150, 450), rng.uniform(0, 360)
        size = float(rng.uniform(5, 40))
        if k % 2:
            targets.append(base(f"t{k}", float(x), float(y), 0, diameter=size))
        else:
            targets.append(base(f"t{k}", float(x), float(y), float(turn), size, 10))
    gun = base("gun", 300.0, 300.0, facing, 40, 20)
    scene = make_scene("skirmish-19c", [unit("g", "a", [gun]), unit("t", "b", targets)], unit="mm")
    table = Table(scene)
    shooter, others = table.bases[0], table.bases[1:]
    expected = [ref.base_in_arc(shooter, t, half_angle) for t in others]
    assert table.in_arcs([(shooter, others, half_angle)]) == [expected]


def test_convex_distance_of_many_pairs_by_hand() -> None:
    # A unit square [0, 1]^2 against three squares of side 1: one overlapping it (from x = 0.5),
    # one touching its right side (from x = 1) and one 0.5 clear of it; and a round base of
    # radius 0.25 centred 1 right of the square's corner (1, 1): 0.75 clear.
    def square(x0: float) -> list[list[float]]:
        return [[x0, 0.0], [x0 + 1, 0.0], [x0 + 1, 1.0], [x0, 1.0]]

    region = np.array([square(0.0)] * 4)
    feet = np.array([square(0.5), square(1.0), square(1.5), [[2.0, 1.0]] * 4])
    gap = geo.convex_distance(region, 0.0, feet, np.array([0.0, 0.0, 0.0, 0.25]))
    assert gap.tolist() == pytest.approx([0.0, 0.0, 0.5, 0.75])


def testarc_regions_by_hand() -> None:
    # The 40 x 20 mm base at the origin facing +y: front corners (20, 10) and (-20, 10); at 45
    # degrees the far corners lie REACH along (1, 1) / sqrt 2 and (-1, 1) / sqrt 2, and REACH
    # straight ahead of each front corner between them.
    (region,) = arc_regions(SHOOTER, 45.0) or []
    far, r = geo.REACH / math.sqrt(2), geo.REACH
    assert region.ravel().tolist() == pytest.approx(
        [20, 10, 20 + far, 10 + far, 20, 10 + r, -20, 10 + r, -20 - far, 10 + far, -20, 10]
    )


def test_wide_arcs_and_round_shooters_by_hand() -> None:
    # All round: no regions (a town, line 74).
    assert arc_regions(SHOOTER, 180.0) is None
    # 120 degrees either side of +y: everything ahead of the front edge's line (right is +x),
    # and beyond each front corner a 30 degree wedge turned back from the edge's line.
    r = geo.REACH
    wide = arc_regions(SHOOTER, 120.0) or []
    assert [w.ravel().tolist() for w in wide] == [
        pytest.approx([20 + r, 10, 20 + r, 10 + r, -20 - r, 10 + r, -20 - r, 10]),
        pytest.approx([20, 10, 20 + r * math.sqrt(3) / 2, 10 - r / 2, 20 + r, 10]),
        pytest.approx([-20, 10, -20 - r, 10, -20 - r * math.sqrt(3) / 2, 10 - r / 2]),
    ]
    # A round base (30 mm, facing +x) shoots from the rim straight ahead, (15, 0).
    (region,) = arc_regions(round_base(0.0, 0.0, 30.0), 45.0) or []
    far = r / math.sqrt(2)
    assert region.ravel().tolist() == pytest.approx(
        [15, 0, 15 + far, -far, 15 + r, 0, 15 + r, 0, 15 + far, far, 15, 0]
    )


def test_an_arc_of_nearly_90_degrees_reaches_as_far_ahead_as_any() -> None:
    # At 89.9999 degrees the rays leave the front corners almost along the front edge; a round
    # target 85 mm straight ahead of the front edge (centre (0, 100), 10 mm across) is in the
    # arc, however little the rays rise (REACH cos(89.9999 degrees) is 1.7 mm).
    assert table_in_arc(0.0, 100.0, 10.0, 89.9999)
    assert ref.base_in_arc(SHOOTER, round_base(0.0, 100.0, 10.0), 89.9999)
    # and one beside the base whose rim stops 5 mm short of the front edge's line (centre
    # (60, 0), 10 mm across: y up to 5 against the line y = 10) is not, at any angle below 90
    assert not table_in_arc(60.0, 0.0, 10.0, 89.9999)
    assert not ref.base_in_arc(SHOOTER, round_base(60.0, 0.0, 10.0), 89.9999)


def rectangles(rng: np.random.Generator, n: int, scale: float) -> np.ndarray:
    """(n, 4, 2) corners of rectangles of random size (0.1-1 x `scale` each way), turn and place."""
    half = rng.uniform(0.1, 1.0, size=(n, 1, 2)) * scale
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=float) * half
    turn = rng.uniform(0, 2 * math.pi, size=n)
    cos, sin = np.cos(turn)[:, None], np.sin(turn)[:, None]
    x, y = corners[..., 0], corners[..., 1]
    turned = np.stack([x * cos - y * sin, x * sin + y * cos], axis=-1)
    return turned + rng.normal(size=(n, 1, 2)) * scale


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([1.0, 100.0, 1e6]))
def test_convex_distance_of_many_pairs_is_each_pair_alone(seed: int, scale: float) -> None:
    # Rectangles of random size and turn, measured eight pairs at once and pair by pair: the
    # same numbers to the bit (the batch in `Table.in_arcs` answers as `base_in_arc` alone).
    rng = np.random.default_rng(seed)

    a, b = rectangles(rng, 8, scale), rectangles(rng, 8, scale)
    radii = rng.uniform(0, 0.5, size=8) * scale
    got = geo.convex_distance(a, 0.0, b, radii).tolist()
    assert got == [float(geo.convex_distance(a[k], 0.0, b[k], radii[k])) for k in range(8)]


@pytest.mark.parametrize("half_angle", [-1.0, 360.5])
def test_in_arcs_rejects_a_bad_half_angle(half_angle: float) -> None:
    with pytest.raises(ValueError, match="half_angle"):
        table_in_arc(0.0, 100.0, 10.0, half_angle)
