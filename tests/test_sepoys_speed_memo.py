"""The per-Table memos of Sepoys & Soldiers: what they remember, for how long, and that a bad
attribute is never remembered as good."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import numpy as np
import pytest

from rules.engine import read_scene
from rules.errors import QuestionError
from rules.measure import RECENT_TABLES, Table
from rules.rulesets import sepoys_and_soldiers as ss
from rules.scene import Base, Footprint, Scene, Unit

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _example() -> Scene:
    path = EXAMPLES / "sepoys-and-soldiers.json"
    return read_scene(json.loads(path.read_text(encoding="utf-8")), path.name)


def test_a_tables_measurements_go_with_the_table() -> None:
    # The memo is keyed weakly by the Table: once nothing else holds the Table (the measuring
    # layer keeps the last few scenes' tables), its measurements (and the scene) are freed,
    # however many scenes were asked about.
    rules = ss.SepoysAndSoldiers()
    gc.collect()
    before = len(ss._MEASURED)
    for _ in range(3 * RECENT_TABLES):
        rules.resolve(_example(), "suggest", [])
    gc.collect()
    assert len(ss._MEASURED) <= before + RECENT_TABLES


def _unit(ident: str, side: str, x: float, **attrs: object) -> Unit:
    base = Base(f"{ident}-1", ident, x, 0.0, 0.0, Footprint(40.0, 20.0))
    return Unit(ident, side, (base,), attrs=attrs)


def _table(*units: Unit) -> Table:
    return Table(Scene(ss.ID, "in", 1800.0, 1200.0, units))


def test_a_troops_attribute_is_read_once_and_a_bad_one_raises_each_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    good = _unit("foot-1", "british", 0.0, arm="foot")
    bad = _unit("foot-2", "sikh", 200.0, arm="camel")
    m = ss._measured(_table(good, bad))
    calls: list[str] = []
    read = ss._arm

    def arm(unit: Unit) -> str:
        calls.append(unit.id)
        return read(unit)

    monkeypatch.setattr(ss, "_arm", arm)
    assert m.troop(good).arm == "foot"
    assert m.troop(good).arm == "foot"
    assert m.troop(good) is m.troop(good)
    assert calls == ["foot-1"]
    for _ in range(2):
        with pytest.raises(QuestionError, match="camel"):
            _ = m.troop(bad).arm
    assert calls == ["foot-1", "foot-2", "foot-2"]


def test_nearest_and_uncertainty_of_two_units() -> None:
    # Bases 40 mm wide facing +x (20 mm deep), centres 200 mm apart along x: the near edges
    # are 200 - 10 - 10 = 180 mm apart. Each base is 2 mm uncertain (the scene's default),
    # so the distance is sqrt(2^2 + 2^2) mm uncertain.
    a = _unit("a", "british", 0.0, arm="foot")
    b = _unit("b", "sikh", 200.0, arm="foot")
    table = _table(a, b)
    near, unc = ss._near_and_uncertainty(table, a, b)
    assert near.distance == pytest.approx(180.0)
    assert (near.a.id, near.b.id) == ("a-1", "b-1")
    assert unc == pytest.approx(8**0.5)
    assert ss._near_and_uncertainty(table, a, b)[0] is near  # remembered


def test_fire_reasons_quote_the_sheet() -> None:
    # Aggressive foot at passive foot at short range need 3+ (line 68); a light European gun
    # has no extreme range (line 60); moved guns may not fire (line 56).
    assert ss._fire_reasons("foot", None, "aggressive", "passive", "short", False) == (
        ('short range (up to 4.0")', ss.INFANTRY_BANDS[0].range_cite),
        ("aggressive firing at passive at short range: 3+", ss.INFANTRY_FIRE["aggressive"].cite),
    )
    light = ss._fire_reasons("artillery", "european-light", None, None, "extreme", True)
    assert [r for r, _ in light] == [
        'extreme range (up to 30.0")',
        "european-light guns: N/A at extreme range",
        "European guns manhandled this turn may not fire",
    ]
    beyond = ss._fire_reasons("cavalry", None, "active", "active", None, False)
    assert [r for r, _ in beyond] == [
        'beyond the longest range (8.0")',
        "cavalry: the sheet has fire tables for infantry, artillery and rockets only",
    ]


def _base_at(ident: str, unit: str, x: float, y: float) -> Base:
    # 40 mm across the facing (+x), 20 mm along it: y from -20 to +20, x from -10 to +10.
    return Base(ident, unit, x, y, 0.0, Footprint(40.0, 20.0))


def _volley_table() -> tuple[Table, Unit, Unit]:
    # Two bases each, 100 mm apart along x, the units 300 mm apart along y: a1-b1 and a2-b2
    # are 300 - 20 - 20 = 260 mm apart edge to edge; a1-b2 and a2-b1 farther (x gap 80 mm).
    a = Unit("a", "british", (_base_at("a1", "a", 0, 0), _base_at("a2", "a", 100, 0)))
    b = Unit("b", "sikh", (_base_at("b1", "b", 0, 300), _base_at("b2", "b", 100, 300)))
    return _table(a, b), a, b


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        # rows a1, a2; columns b1, b2; 1 sees, 0 blocked
        (((1, 1), (1, 1)), ("a1", "b1")),  # nearest, the first in reading order of equals
        (((0, 1), (1, 1)), ("a2", "b2")),  # the other nearest pair
        (((0, 1), (1, 0)), ("a1", "b2")),  # farther pairs, the first in reading order
        (((0, 0), (0, 0)), None),  # none sees
    ],
)
def test_first_seen_is_the_nearest_pair_that_sees(
    verdicts: tuple[tuple[int, int], tuple[int, int]], expected: tuple[str, str] | None
) -> None:
    table, a, b = _volley_table()
    assert table.distances[0, 2] == pytest.approx(260.0)
    assert table.distances[0, 2] == table.distances[1, 3]
    assert table.distances[0, 3] > table.distances[0, 2]
    m = ss._measured(table)
    rows, cols = np.array([0, 0, 1, 1]), np.array([2, 3, 2, 3])
    m.sees[rows, cols] = np.array(verdicts).reshape(-1)
    limit = 400.0
    ss.SepoysAndSoldiers._first_seen(table, rows, cols, {(0, 1): (a, b, limit)})
    assert m.first_seen[("a", "b")] == (limit, expected)
    # read back as remembered, and (another limit, all pairs still within it) read off the
    # verdicts one pair at a time
    for asked in (limit, limit - 1.0):
        seen = ss.SepoysAndSoldiers()._sight_seen(table, a, b, asked)
        assert (None if seen is None else (seen["between"]["a"], seen["between"]["b"])) == expected
