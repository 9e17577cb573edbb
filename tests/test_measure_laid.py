"""Patterns laid on the table (`rules.measure.Table.laid_many`): points laid from one base toward
another, and the bases they fall on or too near to call, worked out by hand."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from rules.measure import Laid, Pattern, Table, flight_pattern
from rules.scene import Base, Footprint, Scene, Unit


def _base(ident: str, x: float, y: float, facing: float = 0.0, circle: bool = False) -> Base:
    # 40 mm across the facing, 20 mm along it (a circle: 40 mm across); 2 mm uncertain.
    size = Footprint(40.0, 40.0, True) if circle else Footprint(40.0, 20.0)
    return Base(ident, ident, x, y, facing, size)


def _table(*bases: Base) -> Table:
    units = tuple(Unit(b.id, "side", (b,)) for b in bases)
    return Table(Scene("test", "mm", 1800.0, 1200.0, units))


def _pattern(*points: tuple[float, float, int]) -> Pattern:
    return Pattern(
        np.array([(x, y) for x, y, _ in points], dtype=float),
        np.array([w for _, _, w in points], dtype=np.int64),
    )


def _ids(laid: Laid) -> tuple[list[tuple[str, int]], list[str]]:
    return [(b.id, w) for b, w in laid.on], [b.id for b in laid.near]


def test_points_on_and_near_bases_along_x() -> None:
    # The source at the origin facing +x, 20 mm deep: points start 10 mm ahead of its centre,
    # so (490, y) lands on (500, y). The aim at (500, 0) facing +x spans y -20..20.
    table = _table(_base("source", 0, 0), _base("aim", 500, 0), _base("other", 300, 100))
    pattern = _pattern(
        (490, 0, 3),  # the aim's centre
        (490, 19, 4),  # 1 mm inside its edge: on it, and too close to call
        (490, 21, 5),  # 1 mm outside: not on it, too close to call (2 mm uncertain)
        (490, 30, 6),  # 10 mm outside: neither
        (290, 100, 7),  # the centre of another base
        (-200, 0, 8),  # behind the source, on nothing
    )
    laid = table.laid_many(pattern, [(table.bases[0], table.bases[1])])[0]
    assert _ids(laid) == ([("aim", 3 + 4), ("other", 7)], ["aim"])


def test_the_pattern_turns_toward_the_aim() -> None:
    # Aimed up +y from a source facing +y: the pattern's x runs along +y from (0, 10), its y to
    # the left (-x), so (px, py) lands at (-py, 10 + px).
    table = _table(
        _base("source", 0, 0, 90),
        _base("aim", 0, 500),
        _base("left", -50, 110),
        _base("round", 60, 310, circle=True),  # radius 20
    )
    pattern = _pattern(
        (100, 50, 1),  # (-50, 110): the centre of "left"
        (300, -50, 2),  # (50, 310): 10 mm from the round base's centre
        (300, -55, 4),  # (55, 310): 5 mm from it
        (318, -78, 16),  # (78, 328): inside the round base's box, 25.5 mm from its centre
        (490, 0, 8),  # (0, 500): the aim's centre
    )
    laid = table.laid_many(pattern, [(table.bases[0], table.bases[1])])[0]
    assert _ids(laid) == ([("aim", 8), ("left", 1), ("round", 2 + 4)], [])


def test_laid_many_is_laid_one_by_one() -> None:
    bases = [_base("a", 0, 0), _base("b", 300, 0), _base("c", 300, 200), _base("d", 0, 200)]
    rng = np.random.default_rng(7)
    pattern = Pattern(rng.uniform(-50, 400, (200, 2)), rng.integers(1, 9, 200))
    pairs = [(bases[0], bases[1]), (bases[0], bases[2]), (bases[3], bases[1]), (bases[2], bases[3])]
    many = _table(*bases).laid_many(pattern, pairs)
    alone = [_table(*bases).laid_many(pattern, [(s, a)])[0] for s, a in pairs]
    assert [_ids(laid) for laid in many] == [_ids(laid) for laid in alone]
    assert any(laid.on for laid in many) and any(laid.near for laid in many)


def test_flight_pattern_one_point_a_path_weighted_by_its_chance() -> None:
    # Two legs of 100 mm, turning 90 left or not at all, coming down with 1/2 after each:
    # leg 1's 2 points come down with 1/2 x 1/2 = 1/4, leg 2's 4 with 1/4 x 1/2 x 1/2 = 1/16.
    pattern, whole = flight_pattern(100.0, 2, (90.0, 0.0), Fraction(1, 2))
    assert whole == 16
    assert pattern.weights.tolist() == [4, 4, 1, 1, 1, 1]
    expected = [(0, 100), (100, 0), (-100, 100), (0, 200), (100, 100), (200, 0)]
    assert pattern.points == pytest.approx(np.array(expected, dtype=float), abs=1e-9)
