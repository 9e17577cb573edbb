"""The shortcuts that make `suggest` fast, each against hand-worked geometry and against the slow
path it stands in for: bases near a centre sight line reused for the lines to the target's corners
(`geometry.solids_near`, `solids_hit`), lines from a figure standing in a convex
piece settled by how deep they run (`geometry.convex_verdicts`), bases plainly in or out of a
convex piece (`geometry.containment`), distance blocks read as slices (`Table.block`), the
sight points of every base at once (`Table.sight_points`), the corners by scalar arithmetic
(`geometry.corners`), remembered lengths (`engine.length_json`) and the terrain pieces across
each line (`geometry.terrain_blocks`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rules import geometry as geo
from rules.engine import length_json
from rules.measure import Table
from rules.scene import Base, Footprint, Point
from tests import sight_reference as ref
from tests.builders import base, make_scene, unit


def _blocked(eyes: geo.Array, aims: geo.Array, solids: geo.Solids, mask: np.ndarray) -> np.ndarray:
    """Whether some solid the mask allows blocks each line, clipping every one of them."""
    line, solid = np.nonzero(mask)
    inside = geo.paired_inside_lengths(
        eyes[line], aims[line], solids.polygons[solid], solids.radii[solid]
    )
    return np.bincount(line[inside > geo.EPS], minlength=len(eyes)) > 0


def _square(cx: float, cy: float, side: float = 10.0) -> geo.Obstacle:
    """A square solid (a base) of `side` mm centred at (cx, cy), counter-clockwise."""
    h = side / 2
    poly = np.array([[cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h], [cx - h, cy - h]])
    return geo.Obstacle(f"s{cx:g},{cy:g}", poly)


def test_bases_near_the_centre_line_are_the_candidates_for_the_corner_lines() -> None:
    """Eye (0, 0), target centre (100, 0), target points within 30 mm of it (spread 30).

    Squares of side 10 (reach 5 * sqrt 2 = 7.07 mm): A at (50, 14), 14 mm from the centre line,
    within 7.07 + 30 + 2 = 39.07 mm, so a candidate; it does not block the centre line (it
    spans y 9..19 and the line runs at y 0) but blocks the line to the corner (100, 25),
    which crosses x = 50 at y 12.5. B at (50, 60) is 60 mm off: no candidate. C at (50, -1)
    would block the centre line (it spans y -6..4) but the mask leaves it out.
    A second pair: eye (0, 100) to (100, 100), blocked by D at (50, 101) (spans y 96..106)."""
    squares = [_square(50, 14), _square(50, 60), _square(50, -1), _square(50, 101)]
    ids, outlines = tuple(s.id for s in squares), np.stack([s.polygon for s in squares])
    solids = geo.Solids.of(ids, outlines, np.zeros(4))
    eyes = np.array([[0.0, 0.0], [0.0, 100.0]])
    aims = np.array([[100.0, 0.0], [100.0, 100.0]])
    mask = np.array([[True, True, False, True], [True, True, True, True]])
    # the spread of the target's points, and a millimetre of rounding to spare
    pair, solid = geo.solids_near(eyes, aims, np.array([31.0, 31.0]), solids, mask)
    hit = geo.solids_hit(eyes, aims, solids, pair, solid)
    blocked = np.bincount(pair[hit], minlength=2) > 0
    assert blocked.tolist() == [False, True]
    assert hit.tolist() == [False, True]  # A misses the centre line, D blocks the second
    assert blocked.tolist() == _blocked(eyes, aims, solids, mask).tolist()
    # pair 0: only A (index 0); pair 1: D (index 3) on the line, A 86 mm off and B 40 mm off
    # (7.07 + 30 + 2 = 39.07 < 40), C 101 mm off
    assert list(zip(pair.tolist(), solid.tolist(), strict=True)) == [(0, 0), (1, 3)]
    corner = np.array([[100.0, 25.0]])
    among = geo.solids_hit(eyes[:1], corner, solids, pair[:1], solid[:1])
    assert among.tolist() == [True]
    assert among.tolist() == _blocked(eyes[:1], corner, solids, mask[:1]).tolist()
    # the corner line (100, -25) passes A by: clear, as the full search says
    low = np.array([[100.0, -25.0]])
    assert geo.solids_hit(eyes[:1], low, solids, pair[:1], solid[:1]).tolist() == [False]
    assert _blocked(eyes[:1], low, solids, mask[:1]).tolist() == [False]


# A 200 mm square piece, seen into 30 mm from a figure standing in it.
_PIECE = np.array([[0.0, 0.0], [200.0, 0.0], [200.0, 200.0], [0.0, 200.0]])


@pytest.mark.parametrize(
    ("eye", "aim", "blocked", "clear"),
    [
        # 100 mm inside before it leaves at x = 200: over 30 + 1, blocked
        ((100.0, 100.0), (300.0, 100.0), True, False),
        # 20 mm inside: under 30 - 1, clear
        ((180.0, 100.0), (300.0, 100.0), False, True),
        # 29.5 mm inside: within a millimetre of 30, left to the exact clip
        ((170.5, 100.0), (300.0, 100.0), False, False),
        # from outside to 10 mm inside the near side (x = 0): clear
        ((-100.0, 100.0), (10.0, 100.0), False, True),
        # from outside to 60 mm inside: blocked
        ((-100.0, 100.0), (60.0, 100.0), True, False),
        # both ends inside, or an end half a millimetre deep: left to the exact clip
        ((100.0, 100.0), (150.0, 100.0), False, False),
        ((199.5, 100.0), (300.0, 100.0), False, False),
        # neither end inside, right through the middle (200 mm): blocked
        ((-100.0, 100.0), (300.0, 100.0), True, False),
    ],
)
def test_lines_from_inside_a_convex_piece(
    eye: tuple[float, float], aim: tuple[float, float], blocked: bool, clear: bool
) -> None:
    got_blocked, got_clear = geo.convex_verdicts(np.array([eye]), np.array([aim]), _PIECE, 30.0)
    assert (bool(got_blocked[0]), bool(got_clear[0])) == (blocked, clear)
    # a settled line is what the exact clip says
    exact = ref.ray_blocked(eye, aim, geo.Obstacle("piece", _PIECE, see_into=30.0))
    if blocked or clear:
        assert exact == blocked


def test_convex_verdicts_leave_a_concave_piece_alone() -> None:
    """An L-shaped piece is not convex: a line from inside may leave and come back in."""
    ell = np.array([[0, 0], [200, 0], [200, 100], [100, 100], [100, 200], [0, 200]], float)
    blocked, clear = geo.convex_verdicts(
        np.array([[50.0, 50.0]]), np.array([[300.0, 50.0]]), ell, 30.0
    )
    assert not blocked[0] and not clear[0]


def _rect_base(x: float, y: float, width: float = 20.0, depth: float = 10.0) -> Base:
    return Base("b", "u", x, y, 90.0, Footprint(width, depth))


@pytest.mark.parametrize(
    ("x", "y", "how"),
    [
        # a 20 x 10 base facing 90 degrees (10 across x, 20 along y... width across the facing:
        # x from -10 to +10 of its centre, y from -5 to +5) well inside the 100 mm square
        (50.0, 50.0, geo.Containment.INSIDE),
        # 90 mm right of the square: every corner 80 mm and more outside the side x = 100
        (200.0, 50.0, geo.Containment.OUTSIDE),
        # straddling the side x = 100: partly in
        (100.0, 50.0, geo.Containment.PARTLY),
        # inside, its edge half a millimetre from the side x = 100
        (89.5, 50.0, geo.Containment.INSIDE),
    ],
)
def test_containment_plain_and_near_a_side(x: float, y: float, how: geo.Containment) -> None:
    # Plainly in or out (the corners alone settle it) and near a side (the clip settles it).
    square = np.array([[0.0, 0.0], [100.0, 0.0], [100.0, 100.0], [0.0, 100.0]])
    b = _rect_base(x, y)
    assert geo.containment(b, square) == how


def test_block_reads_unit_slices_and_any_group() -> None:
    """Bases 2.5 cm (25 mm) square facing 90, centres on y = 100 mm: a1 at x 100, a2 at 130
    (a 5 mm gap), b1 at 200 (45 mm from a2's edge at 142.5 to b1's at 187.5, 75 mm from a1's).
    Rows and columns follow the groups' order, whichever way they are given."""
    scene = make_scene(
        "skirmish-19c",
        [
            unit("a", "red", [base("a1", 10, 10), base("a2", 13, 10)]),
            unit("b", "blue", [base("b1", 20, 10)]),
        ],
    )
    table = Table(scene)
    a, b = scene.units
    assert table.block(a.bases, b.bases)[:, 0].tolist() == pytest.approx([75.0, 45.0])
    assert table.block([a.bases[1], a.bases[0]], b.bases)[:, 0].tolist() == pytest.approx(
        [45.0, 75.0]
    )
    assert table.block(b.bases, a.bases)[0].tolist() == pytest.approx([75.0, 45.0])
    assert table.gap(a.bases, b.bases).a.id == "a2"


def test_sight_points_of_every_base_at_once() -> None:
    """A 4 x 2 cm base at (10, 5) cm facing 90: centre (100, 50) mm, corners 20 mm to either
    side in x and 10 mm ahead or behind in y, pulled a billionth towards the centre; a round
    base's points are worked out one by one (`sight_reference.sight_points`)."""
    scene = make_scene(
        "skirmish-19c",
        [
            unit("r", "red", [base("r1", 10, 5, width=4, depth=2)]),
            unit("c", "blue", [base("c1", 30, 5, diameter=2)]),
        ],
    )
    table = Table(scene)
    points = table.sight_points
    assert points[0, 0].tolist() == [100.0, 50.0]
    assert sorted(map(tuple, np.round(points[0, 1:], 6).tolist())) == [
        (80.0, 40.0),
        (80.0, 60.0),
        (120.0, 40.0),
        (120.0, 60.0),
    ]
    for k, b in enumerate(table.bases):
        assert points[k].tobytes() == ref.sight_points(b).tobytes()


@pytest.mark.parametrize("facing", [0.0, 30.0, 90.0, 137.5, 270.0, 359.9])
def test_corners_are_the_array_form_to_the_bit(facing: float) -> None:
    """The scalar corners against the array form they replace: c + f + r, c + f - r,
    c - f - r, c - f + r with f = forward * depth / 2 and r = f turned right * width / depth."""
    b = Base("b", "u", 123.4, 56.7, facing, Footprint(40.0, 20.0))
    c = np.array([b.x, b.y])
    f = geo.forward(facing) * (20.0 / 2)
    r = np.array([f[1], -f[0]]) * (40.0 / 20.0)
    want = np.array([c + f + r, c + f - r, c - f - r, c - f + r])
    assert geo.corners(b).tobytes() == want.tobytes()
    # and the front-right corner is where the facing says: forward 10 mm, right 20 mm
    t = math.radians(facing)
    front_right = (
        123.4 + 10 * math.cos(t) + 20 * math.sin(t),
        56.7 + 10 * math.sin(t) - 20 * math.cos(t),
    )
    assert geo.corners(b)[0].tolist() == pytest.approx(front_right)


def test_length_json_remembers_but_keeps_the_sign_of_zero() -> None:
    """25.4 mm is 1 inch; -0.0 stays -0.0 (a memo keyed by value would answer 0.0); each call
    gives its own dict."""
    scene = make_scene("skirmish-19c", [unit("u", "a", [base("b", 1, 1)])], unit="in")
    first = length_json(scene, 25.4)
    assert first == {"value": 1.0, "unit": "in"}
    first["value"] = 99
    assert length_json(scene, 25.4) == {"value": 1.0, "unit": "in"}
    assert math.copysign(1.0, length_json(scene, -0.0)["value"]) == -1.0
    assert math.copysign(1.0, length_json(scene, 0.0)["value"]) == 1.0


def test_terrain_blocks_names_every_piece_or_stops_at_the_first() -> None:
    """Three lines from x = 0 to x = 100: along y = 0, y = 20 and y = 50. Square pieces of side
    10, not seen into: P at (30, 0) and Q at (60, 0) both stand across the first line, R at
    (60, 20) across the second; nothing stands across the third (P spans y -5..5, R 15..25).

    Every piece asked of every line: P and Q block line 0, R line 1. A verdict only: line 0
    is asked no more after P. With P left out of line 0 (may_block), Q is its first blocker."""
    pieces = [_square(30, 0), _square(60, 0), _square(60, 20)]
    eyes = np.array([[0.0, 0.0], [0.0, 20.0], [0.0, 50.0]])
    aims = np.array([[100.0, 0.0], [100.0, 20.0], [100.0, 50.0]])
    every = geo.terrain_blocks(eyes, aims, pieces, every=True)
    assert every.tolist() == [[True, True, False], [False, False, True], [False, False, False]]
    first = geo.terrain_blocks(eyes, aims, pieces)
    assert first.tolist() == [[True, False, False], [False, False, True], [False, False, False]]
    allowed = np.array([[False, True, True], [True, True, True], [True, True, True]])
    masked = geo.terrain_blocks(eyes, aims, pieces, allowed)
    assert masked.tolist() == [[False, True, False], [False, False, True], [False, False, False]]


def test_no_lines_give_no_answers() -> None:
    # No pairs asked, past a wall and a base that could block: nothing to answer, and no error.
    solids = geo.Solids.of(("a",), np.stack([_square(5, 5).polygon]), np.zeros(1))
    wall = geo.Obstacle("wall", np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]))
    none = np.zeros((0, 2))
    assert geo.paired_inside_lengths(none, none, np.zeros((0, 4, 2)), np.zeros(0)).shape == (0,)
    assert geo.sight_many(none, np.zeros((0, 5, 2)), [wall], solids, np.zeros((0, 1), bool)) == []


DART = ((0.0, 0.0), (100.0, 50.0), (0.0, 100.0), (30.0, 50.0))
"""A concave four-cornered piece: an arrowhead pointing along +x, its notch at (30, 50)."""


@pytest.mark.parametrize("winding", [1, -1])
@pytest.mark.parametrize(
    ("eye", "aim", "blocked"),
    [
        # y = 50 ends at x = 20, short of the notch at x = 30: outside (its hull would hold it)
        ((-50.0, 50.0), (20.0, 50.0), False),
        ((20.0, 50.0), (-50.0, 50.0), False),
        # x = 10 runs inside both arms: y 5 to 16.7 (edges y = x / 2 and y = 5x / 3) and
        # y 83.3 to 95
        ((10.0, -10.0), (10.0, 110.0), True),
        # y = 20 runs inside the lower arm from x = 12 (the notch edge) to x = 40 (y = x / 2)
        ((-50.0, 20.0), (60.0, 20.0), True),
    ],
)
def test_a_concave_four_cornered_piece_blocks_only_where_a_line_runs_inside_it(
    winding: int, eye: Point, aim: Point, blocked: bool
) -> None:
    """A piece not seen into blocks a line by the length it runs inside the piece's own shape:
    four corners are not taken as a convex solid."""
    piece = geo.Obstacle("dart", np.array(DART[::winding]), see_into=0.0)
    got = geo.terrain_hits(np.array([eye]), np.array([aim]), piece)
    assert got.tolist() == [blocked]
