"""The batched rocket arithmetic of Sepoys & Soldiers (lines 72-75): many rockets' burst points
at once, and burst points judged against bases by launcher, each checked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rules.rulesets import sepoys_and_soldiers as ss
from rules.scene import Base, Footprint

LEG = 8 * 25.4  # 8" a leg (line 74)
DIAGONAL = LEG / math.sqrt(2)  # a leg turned 45 degrees: 8" cos 45 each way


def test_first_leg_of_a_rocket_along_x() -> None:
    # White die (line 74): 1-2 left 45, 3-4 straight on, 5-6 right 45; then 8".
    points = ss.rocket_bursts((0.0, 0.0), 0.0)
    assert points[0] == pytest.approx((DIAGONAL, DIAGONAL))
    assert points[1] == pytest.approx((LEG, 0.0), abs=1e-9)
    assert points[2] == pytest.approx((DIAGONAL, -DIAGONAL))


def test_many_rockets_at_once_turn_and_shift_each_pattern() -> None:
    # A rocket from (10, 20) flying along +y: straight on lands 8" further up, left 45 lands
    # up and to the left (-x).
    both = ss._rockets_bursts([(0.0, 0.0), (10.0, 20.0)], [0.0, 90.0])
    assert both.shape == (2, len(ss.BURST_POINTS), 2)
    assert both[1, 1] == pytest.approx((10.0, 20.0 + LEG))
    assert both[1, 0] == pytest.approx((10.0 - DIAGONAL, 20.0 + DIAGONAL))


def test_many_rockets_at_once_are_the_same_numbers_as_one_by_one() -> None:
    starts = [(0.0, 0.0), (123.4, -56.7), (1000.0, 250.5)]
    headings = [0.0, 37.5, -171.25]
    both = ss._rockets_bursts(starts, headings)
    for k, (start, heading) in enumerate(zip(starts, headings, strict=True)):
        # one by one: the single rocket's matrix product
        t = math.radians(heading)
        c, s = math.cos(t), math.sin(t)
        alone = ss.BURST_POINTS @ np.array([[c, s], [-s, c]]) + np.asarray(start)
        assert np.array_equal(both[k], alone)


def _base(ident: str, x: float, y: float, facing: float = 0.0) -> Base:
    # 50 mm across the facing, 25 mm along it: half 25 and 12.5.
    return Base(ident, "u", x, y, facing, Footprint(50.0, 25.0))


def test_bursts_on_and_near_a_base_by_group() -> None:
    feet = ss._Footprints.of([_base("a", 100.0, 100.0), _base("b", 400.0, 100.0, 90.0)])
    points = np.array(
        [
            (100.0, 100.0),  # 0: the centre of a
            (100.0 + 12.5 + 1.0, 100.0),  # 1: 1 mm ahead of a's front edge
            (100.0, 100.0 + 25.0 - 0.5),  # 2: 0.5 mm inside a's side edge
            (400.0 + 20.0, 100.0),  # 3: b faces +y, so 20 mm to its side is inside (25)
            (100.0, 100.0),  # 4: a's centre again, but another launcher's rocket
            (700.0, 700.0),  # 5: far from everything
        ]
    )
    unc = np.full(len(points), 2.0)
    groups = np.array([0, 0, 0, 0, 1, 0])
    rows = np.array([0, 1])
    row_groups = np.array([0, 0])
    hit_row, hit_point, near_row, near_point = feet.bursts(points, unc, groups, rows, row_groups)
    hits = sorted(zip(hit_row.tolist(), hit_point.tolist(), strict=True))
    near = sorted(zip(near_row.tolist(), near_point.tolist(), strict=True))
    assert hits == [(0, 0), (0, 2), (1, 3)]
    # within 2 mm of an edge: point 1 (1 mm out) and point 2 (0.5 mm in)
    assert near == [(0, 1), (0, 2)]
    # point 4 lies on a, but only the rows of its own group are judged against it
    assert feet.bursts(points, unc, groups, rows, np.array([1, 1]))[:2][1].tolist() == [4]


def test_ratio_is_the_reduced_fraction() -> None:
    # 2187 / 6561 = 1/3 (3^7 / 3^8)
    assert ss._ratio(2187, 6561) == {"value": 1 / 3, "exact": "1/3"}
    assert ss._ratio(0, 6561) == {"value": 0.0, "exact": "0"}
