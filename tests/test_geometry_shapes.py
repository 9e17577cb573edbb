"""Tests of the array form of the footprints (`geometry.shapes`): each
outline to the bit what `corners` gives base by base, and each base's frame (centre, facing,
half width and depth) as `distance_matrix` measures in it.

Lengths in millimetres; facings in degrees counter-clockwise from +x.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import geometry as g
from rules.scene import Base, Footprint

coords = st.floats(-2000, 2000, allow_nan=False, allow_infinity=False)
facings = st.floats(-720, 720, allow_nan=False, allow_infinity=False)
sizes = st.floats(1, 200, allow_nan=False, allow_infinity=False)


@st.composite
def bases(draw: st.DrawFn) -> Base:
    circle = draw(st.booleans())
    width = draw(sizes)
    depth = width if circle else draw(sizes)
    return Base(
        "b", "u", draw(coords), draw(coords), draw(facings), Footprint(width, depth, circle)
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(bases(), min_size=1, max_size=12))
def test_stacked_outlines_are_corners_to_the_bit(group: list[Base]) -> None:
    outlines, radii, _ = g.shapes(group)
    assert outlines.tobytes() == np.stack([g.corners(b) for b in group]).tobytes()
    assert radii.tobytes() == np.array([g.radius(b) for b in group]).tobytes()


@settings(max_examples=200, deadline=None)
@given(st.lists(bases(), min_size=1, max_size=8))
def test_frames_are_each_bases_centre_facing_and_half_sizes(group: list[Base]) -> None:
    _, _, frames = g.shapes(group)
    for k, b in enumerate(group):
        t = math.radians(b.facing)
        half = (0.0, 0.0) if b.footprint.circle else (b.footprint.width / 2, b.footprint.depth / 2)
        assert (frames.cx[k], frames.cy[k]) == (b.x, b.y)
        assert (frames.ct[k], frames.st[k]) == (math.cos(t), math.sin(t))
        assert (frames.hw[k], frames.hd[k]) == half


def test_stacked_outlines_by_hand() -> None:
    # A 40 x 20 base at (100, 50) facing +y: 20 either side in x, 10 ahead and behind in y,
    # counter-clockwise from the front right corner (120, 60); a disc is its centre 4 times.
    square = Base("a", "u", 100.0, 50.0, 90.0, Footprint(40.0, 20.0))
    disc = Base("d", "u", -5.0, 7.0, 33.0, Footprint(25.0, 25.0, circle=True))
    outlines, radii, _ = g.shapes([square, disc])
    expected = [(120, 60), (80, 60), (80, 40), (120, 40)]
    assert np.allclose(outlines[0], expected, atol=1e-9)
    assert outlines[1].tolist() == [[-5.0, 7.0]] * 4
    assert radii.tolist() == [0.0, 12.5]


def test_no_bases_have_no_shapes() -> None:
    outlines, radii, _ = g.shapes([])
    assert outlines.shape == (0, 4, 2) and radii.shape == (0,)
