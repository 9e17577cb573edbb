"""The measuring layer's questions about two units (`rules/measure.py`): `Table.unit`,
`unit_uncertainties` and `nearest_seen_pair` (the nearest pair of bases of which one sees the
other), each checked against the geometry of a small scene worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rules.measure import SightPolicy, Table
from rules.scene import Base, Footprint, Scene, Terrain, TerrainKind, Unit

OPEN = SightPolicy(frozenset())
WOODS = SightPolicy(frozenset({TerrainKind.WOODS}))


def _base(ident: str, unit: str, x: float, y: float, uncertainty: float | None = None) -> Base:
    # Facing +x: 40 mm across the facing, 20 mm along it (x from -10 to +10, y from -20 to +20).
    return Base(ident, unit, x, y, 0.0, Footprint(40.0, 20.0), uncertainty=uncertainty)


def _table(*terrain: Terrain, uncertainty: float | None = None) -> tuple[Table, Unit, Unit]:
    # Two bases each, 100 mm apart along x, the units 300 mm apart along y: a1-b1 and a2-b2
    # are 300 - 20 - 20 = 260 mm apart edge to edge; a1-b2 and a2-b1 farther (x gap 80 mm).
    a = Unit("a", "british", (_base("a1", "a", 0, 0, uncertainty), _base("a2", "a", 100, 0)))
    b = Unit("b", "sikh", (_base("b1", "b", 0, 300), _base("b2", "b", 100, 300)))
    return Table(Scene("test", "in", 1800.0, 1200.0, (a, b), terrain)), a, b


def _woods(x0: float, x1: float) -> Terrain:
    """A wood across the gap between the units, from x0 to x1."""
    return Terrain("wood", TerrainKind.WOODS, ((x0, 100.0), (x1, 100.0), (x1, 200.0), (x0, 200.0)))


def _ids(pair: tuple[Base, Base] | None) -> tuple[str, str] | None:
    return None if pair is None else (pair[0].id, pair[1].id)


def test_unit_is_the_scenes_unit() -> None:
    table, a, b = _table()
    assert table.unit_of("a") is a and table.unit_of("b") is b


def test_unit_uncertainties_are_those_of_the_nearest_bases() -> None:
    # Every base 2 mm uncertain (the scene's default): a distance sqrt(2^2 + 2^2) mm.
    table, a, b = _table()
    unc = table.unit_uncertainties
    assert unc[table.unit_row(a), table.unit_row(b)] == pytest.approx(math.hypot(2, 2))
    # a1 5 mm uncertain: a-b is measured between a1 and b1 (the first of the nearest pairs)
    table, a, b = _table(uncertainty=5.0)
    near = table.gap(a.bases, b.bases)
    assert (near.a.id, near.b.id) == ("a1", "b1")
    assert table.unit_uncertainties[table.unit_row(a), table.unit_row(b)] == pytest.approx(
        table.uncertainty(near.a, near.b)
    )


def _one(
    table: Table, policy: SightPolicy, a: Unit, b: Unit, limit: float
) -> tuple[Base, Base] | None:
    """`Table.nearest_seen_pair` read within a reach of just `limit`."""
    return table.nearest_seen_pair(policy, a, b, limit, limit)


def test_nearest_seen_on_an_open_table_is_the_first_nearest_pair() -> None:
    table, a, b = _table()
    assert table.distances[0, 2] == pytest.approx(260.0)
    assert _ids(_one(table, OPEN, a, b, 400.0)) == ("a1", "b1")
    assert _ids(_one(table, OPEN, b, a, 400.0)) == ("b1", "a1")
    assert _one(table, OPEN, a, b, 250.0) is None  # no pair within 250 mm


@pytest.mark.parametrize(
    ("woods", "expected"),
    [
        ((-30.0, 30.0), ("a2", "b2")),  # a1-b1 blocked: the other nearest pair
        ((-30.0, 130.0), None),  # every line crosses the wood
    ],
)
def test_nearest_seen_passes_over_blocked_pairs(
    woods: tuple[float, float], expected: tuple[str, str] | None
) -> None:
    table, a, b = _table(_woods(*woods))
    assert _ids(_one(table, WOODS, a, b, 400.0)) == expected
    assert _ids(_one(table, OPEN, a, b, 400.0)) == ("a1", "b1")  # woods do not block


def test_nearest_seen_pair_within_a_longer_reach_is_that_within_its_limit() -> None:
    # a1-b1 blocked by the wood: a2-b2 (260 mm) is the nearest pair seen, within 400 and
    # 270 mm; within 100 mm no pair is, however far the reach the table looked within.
    table, a, b = _table(_woods(-30.0, 30.0))
    asks = [(a, b, 400.0), (b, a, 400.0), (a, b, 270.0), (a, b, 100.0)]
    many = [_ids(table.nearest_seen_pair(WOODS, x, y, limit, 400.0)) for x, y, limit in asks]
    fresh, _, _ = _table(_woods(-30.0, 30.0))
    alone = [_ids(_one(fresh, WOODS, x, y, limit)) for x, y, limit in asks]
    assert many == alone == [("a2", "b2"), ("b2", "a2"), ("a2", "b2"), None]


def test_nearest_seen_pair_refuses_a_limit_beyond_the_reach_it_judged() -> None:
    # a1-b1 are 260 mm apart: within a 300 mm reach they are the pair; a 500 mm limit read off
    # a 300 mm reach would find nothing past 300 mm judged, so it is refused, not None.
    table, a, b = _table()
    assert _ids(table.nearest_seen_pair(OPEN, a, b, 300.0, 300.0)) == ("a1", "b1")
    with pytest.raises(ValueError, match=r"limit 500\.0 mm is beyond the reach judged"):
        table.nearest_seen_pair(OPEN, a, b, 500.0, 300.0)


def test_blocked_by_names_what_blocks_the_lines_within_the_limit_once() -> None:
    # One wood across every line: named once; past a limit shorter than the nearest pair's
    # 260 mm, no line is looked at; nothing blocks in the open.
    table, a, b = _table(_woods(-50.0, 150.0))
    assert table.blocked_by(WOODS, a.bases, b.bases, 400.0) == ["wood"]
    assert table.blocked_by(WOODS, a.bases, b.bases, 250.0) == []
    assert table.blocked_by(OPEN, a.bases, b.bases, 400.0) == []


def test_sight_matrix_within_a_reach_judges_only_the_pairs_that_near() -> None:
    # a1-b1 and a2-b2 are 260 mm apart, a1-b2 and a2-b1 sqrt(80^2 + 260^2) = 272 mm: a reach
    # of 265 mm keeps the first two, one of 250 mm none; bases of one side are never in it.
    table, _, b = _table()
    assert table.distances[0, 3] == pytest.approx(math.hypot(80.0, 260.0))
    near = table.sight_matrix(OPEN, 265.0)
    assert near[0, 2] == pytest.approx(260.0) and near[3, 1] == pytest.approx(260.0)
    assert math.isinf(near[0, 3]) and math.isinf(near[0, 1])
    assert np.isinf(table.sight_matrix(OPEN, 250.0)).all()
    nearest, which = table.nearest_seen(OPEN, 265.0)
    assert nearest[0, table.unit_row(b)] == pytest.approx(260.0) and which[0, 1] == 2
