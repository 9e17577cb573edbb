"""Tests of the all-pairs distance kernel (`geometry.distance_matrix`: vertices to the SOLID
other footprint pick the vertices measured exactly; outlines beyond a side of each other skip
the crossing test) and of the per-unit gaps read off it (`Table.unit_gaps`, `gap`).

Every length is in millimetres; the arithmetic is in the comments. A "square" is 20 x 20 mm
facing 90 degrees (towards +y): 10 mm either side of its centre in x and y.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from rules import geometry as g
from rules.measure import Table
from rules.scene import Base, Footprint
from tests import sight_reference as ref
from tests.builders import base as base_doc
from tests.builders import make_scene
from tests.builders import unit as unit_doc


def rect(
    x: float, y: float, facing: float = 90.0, width: float = 20.0, depth: float = 20.0
) -> Base:
    return Base(f"r{x},{y},{facing}", "u", x, y, facing, Footprint(width, depth))


def disc(x: float, y: float, diameter: float = 20.0) -> Base:
    return Base(f"d{x},{y}", "u", x, y, 0.0, Footprint(diameter, diameter, circle=True))


CASES = [
    # Squares side by side, 30 mm between centres: 30 - 10 - 10 = 10.
    ("abreast", rect(0, 0), rect(30, 0), 10.0),
    # Corner to corner: the nearest points are (10, 10) and (20, 20): hypot(10, 10).
    ("corner to corner", rect(0, 0), rect(30, 30), math.hypot(10, 10)),
    # A square turned 45 degrees, centre (40, 0): its corner points at the first square's
    # right edge, half its diagonal (10 * sqrt 2) from its centre: 40 - 10 sqrt 2 - 10.
    ("corner to edge", rect(0, 0), rect(40, 0, 45.0), 40 - 10 * math.sqrt(2) - 10),
    # Touching along an edge: 0.
    ("touching", rect(0, 0), rect(20, 0), 0.0),
    # A thin 100 x 4 bar across a thin 4 x 100 bar: a "+", no corner of either inside the
    # other, yet they overlap: 0.
    ("plus", rect(0, 0, 90.0, 100, 4), rect(0, 0, 90.0, 4, 100), 0.0),
    # A square wholly inside a bigger one: 0.
    ("inside", rect(0, 0, 90.0, 100, 100), rect(5, 5), 0.0),
    # A disc (radius 10) 40 mm right of a square's centre: 40 - 10 - 10 = 20.
    ("disc", rect(0, 0), disc(40, 0), 20.0),
    # A disc beyond a square's corner: from (10, 10) to (40, 50) is 50, less the radius 10.
    ("disc at corner", rect(0, 0), disc(40, 50), 40.0),
    # Two discs: centres 50 apart, radii 10 and 5: 35.
    ("two discs", disc(0, 0), disc(50, 0, 10), 35.0),
]


@pytest.mark.parametrize(("a", "b", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_distance_matrix_by_hand(a: Base, b: Base, expected: float) -> None:
    assert g.distance_matrix([a, b])[0, 1] == pytest.approx(expected, abs=1e-9)
    assert g.distance_matrix([b, a])[0, 1] == pytest.approx(expected, abs=1e-9)
    assert g.distance_matrix([a], [b])[0, 0] == pytest.approx(expected, abs=1e-9)
    assert g.distance_matrix([b], [a])[0, 0] == pytest.approx(expected, abs=1e-9)


def test_distance_matrix_of_a_turned_base_ahead() -> None:
    # A 60 x 20 base facing 0 degrees (towards +x): it spans x -10..10 and y -30..30. A
    # square facing 90 at (40, 45): x 30..50, y 35..55. Nearest points (10, 30) and
    # (30, 35): hypot(20, 5).
    a, b = rect(0, 0, 0.0, 60, 20), rect(40, 45)
    assert g.distance_matrix([a, b])[0, 1] == pytest.approx(math.hypot(20, 5))


def test_distance_matrix_agrees_with_edge_distance_pair_by_pair() -> None:
    # Many bases at many angles, some touching and overlapping: every entry is the distance
    # `edge_distance` measures pair by pair over every vertex and edge (to rounding: the two
    # take different, equally exact, routes), and exactly 0 where that is 0.
    rng = np.random.default_rng(7)
    bases = []
    for k in range(40):
        x, y = rng.uniform(0, 150, 2).tolist()
        facing = float(rng.choice([0.0, 30.0, 45.0, 90.0, rng.uniform(0, 360)]))
        if k % 5 == 0:
            bases.append(Base(f"d{k}", "u", x, y, 0.0, Footprint(25, 25, circle=True)))
        else:
            width, depth = float(rng.choice([20, 40, 60])), float(rng.choice([15, 20, 40]))
            bases.append(Base(f"r{k}", "u", x, y, facing, Footprint(width, depth)))
    matrix = g.distance_matrix(bases)
    for i, a in enumerate(bases):
        for j, b in enumerate(bases):
            if i != j:
                expected = ref.edge_distance(a, b)
                assert matrix[i, j] == pytest.approx(expected, abs=1e-9)
                assert (matrix[i, j] == 0) == (expected == 0)
    assert np.array_equal(g.distance_matrix(bases[:15], bases[15:]), matrix[:15, 15:])


def test_unit_gaps_by_hand() -> None:
    # Unit a: 2.5 cm squares at x = 10 and 13 cm (y 30); unit b: one at x = 20 cm; unit c
    # at x = 40 cm. a-b: 200 - 130 - 25 = 45 mm; a-c: 400 - 130 - 25 = 245; b-c: 175.
    scene = make_scene(
        "skirmish-19c",
        [
            unit_doc("a", "red", [base_doc("a1", 10, 30), base_doc("a2", 13, 30)]),
            unit_doc("b", "blue", [base_doc("b1", 20, 30)]),
            unit_doc("c", "blue", [base_doc("c1", 40, 30)]),
        ],
    )
    table = Table(scene)
    a, b, c = scene.units
    expected = np.array([[0, 45, 245], [45, 0, 175], [245, 175, 0]], dtype=float)
    assert table.unit_gaps() == pytest.approx(expected)
    near = table.gap(a.bases, b.bases)
    assert (near.a.id, near.b.id) == ("a2", "b1")
    assert near.distance == pytest.approx(45.0)
    assert table.gap(c.bases, a.bases).distance == pytest.approx(245.0)


def test_europe_fire_arcs_of_many_shooters_at_once_by_hand() -> None:
    # Two 4 x 2 cm firing bases facing 90 degrees (towards +y): s1 at (50, 50) cm, s2 at
    # (120, 50) cm. s1's front corners are (48, 51) and (52, 51); its arc (45 degrees either
    # side of straight ahead, line 74) holds a point (x, y) with y >= 51, x - 52 <= y - 51
    # and 48 - x <= y - 51. For s2 the corners are (118, 51) and (122, 51).
    def b(ident: str, x: float, y: float) -> dict[str, object]:
        return base_doc(ident, x, y, width=4, depth=2)

    scene = make_scene(
        "europe-19c",
        [
            unit_doc("s", "red", [b("s1", 50, 50), b("s2", 120, 50)]),
            unit_doc("t", "blue", [b("t1", 50, 80), b("t2", 50, 20), b("t3", 112, 60)]),
        ],
    )
    table = Table(scene)
    s1, s2 = scene.base("s1"), scene.base("s2")
    targets = [scene.base("t1"), scene.base("t2"), scene.base("t3")]
    together = table.in_arcs([(s1, targets, 45.0), (s2, targets, 45.0)])
    # t1 (x 48..52, y 79..81) from s1: straight ahead, in.  t2 (y 19..21) lies behind both.
    # t3 (x 110..114, y 59..61) from s1: 110 - 52 = 58 > 61 - 51 = 10, out; from s2: its
    # corner (114, 61) has 118 - 114 = 4 <= 10, in.  t1 from s2: 118 - 52 = 66 > 30, out.
    assert together == [[True, False, False], [False, False, True]]
    # One shooter at a time, on a fresh table: the same verdicts.
    fresh = Table(scene)
    assert [fresh.in_arcs([(s, targets, 45.0)])[0] for s in (s1, s2)] == together
