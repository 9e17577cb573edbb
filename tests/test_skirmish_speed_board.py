"""skirmish-19c's unit-at-a-time readings of a scene (`Board.unit_sightings`, `enemy_rows`,
`flank_candidates`, `nearest_to_unit`, ...) against the group-by-group ways they replace in
`suggest`, on random crowded tables; and the remembered odds and JSON against hand-worked
values from the sheet."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

import pytest

from rules import geometry as geo
from rules.engine import get_ruleset
from rules.measure import Table
from rules.rulesets.skirmish_19c import (
    ACTIONS_TABLE,
    Board,
    Skirmish19c,
    actions_roll_json,
    outcomes_json,
    volley,
)
from rules.scene import Scene
from tests.builders import make_scene, rect, terrain, unit

WEAPONS = ["rifle", "musket", "pistol", "sword", "baker-rifle"]
ROLES = ["officer", "nco", "hero", "leader", None, None, None]


def _crowded(seed: int) -> Scene:
    """A 900 x 600 mm table with 16 units of two sides (1-4 bases each, some officers and
    heroes), a wood, a building and a wall."""
    rng = random.Random(seed)
    units = []
    for u in range(16):
        x0, y0 = rng.uniform(40, 860), rng.uniform(40, 560)
        bases = []
        for k in range(rng.randint(1, 4)):
            doc: dict[str, Any] = {
                "id": f"u{u}-{k}",
                "x": x0 + rng.uniform(-40, 40),
                "y": y0 + rng.uniform(-40, 40),
                "facing": rng.choice([0.0, 90.0, rng.uniform(0, 360)]),
            }
            if rng.random() < 0.2:
                doc["diameter"] = 25.0
            else:
                doc.update(width=25.0, depth=rng.choice([20.0, 30.0]))
            role = rng.choice(ROLES)
            if role:
                doc["role"] = role
            bases.append(doc)
        units.append(
            unit(
                f"u{u}",
                "blue" if u % 2 else "red",
                bases,
                type=rng.choice(["infantry", "infantry", "cavalry"]),
                weapon=rng.choice(WEAPONS),
                quality=rng.choice(["hero", "veteran", "raw"]),
            )
        )
    pieces = [
        terrain("wood", "woods", rect(350, 200, 500, 350)),
        terrain("farm", "building", rect(650, 100, 720, 160)),
        terrain("wall", "wall", rect(150, 400, 300, 405)),
    ]
    return make_scene("skirmish-19c", units, unit="mm", terrain=pieces, width=900, depth=600)


def _boards(scene: Scene) -> tuple[Board, Board]:
    """A board reading whole rows of the table, and one that must go group by group."""
    rs = get_ruleset("skirmish-19c")
    assert isinstance(rs, Skirmish19c)
    fast, slow = Board(rs, scene, Table(scene)), Board(rs, scene, Table(scene))
    slow.__dict__["layout"] = None  # as for a scene with a unit of no base
    assert fast.layout is not None
    return fast, slow


def _ids(found: tuple[geo.Base, geo.Base, float] | None) -> tuple[str, str, float] | None:
    return None if found is None else (found[0].id, found[1].id, found[2])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("within", [200.0, 1200.0, math.inf])
def test_unit_sightings_name_the_pairs_the_group_ways_name(seed: int, within: float) -> None:
    fast, slow = _boards(_crowded(seed))
    for u in fast.scene.units:
        enemies = fast.enemies(u)
        got = [_ids(s) for s in fast.unit_sightings_of(u, enemies, within)]
        want = [_ids(s) for s in slow.sightings(u.bases, [e.bases for e in enemies], within)]
        assert got == want, u.id
        view = fast.unit_sightings(u, within)
        assert view is not None
        for e in enemies:
            each = [_ids(s) for s in view.each(fast.table.bases, fast.number(e))]
            singles = [[b] for b in u.bases]
            assert each == [_ids(s) for s in slow.sighting_each(singles, e.bases, within)]


@pytest.mark.parametrize("seed", range(4))
def test_enemy_in_sight_and_flank_read_off_rows_as_off_pairs(seed: int) -> None:
    scene = _crowded(seed)
    fast, slow = _boards(scene)
    rs = fast.rs
    for u in scene.units:
        seen_f, ranged_f = rs._enemy_in_sight(fast, u)
        seen_s, ranged_s = rs._enemy_in_sight(slow, u)
        assert (seen_f and seen_f.id) == (seen_s and seen_s.id)
        if ranged_s is None:
            assert ranged_f is None
        else:
            assert ranged_f is not None
            assert ranged_f[0].id == ranged_s[0].id
            assert ranged_f[2] == ranged_s[2]
        assert rs._flank_enemy(fast, u) == rs._flank_enemy(slow, u)


@pytest.mark.parametrize("seed", range(3))
def test_nearest_to_unit_is_the_least_of_the_units_rows(seed: int) -> None:
    fast, _ = _boards(_crowded(seed))
    table = fast.table
    for u in fast.scene.units:
        row = fast.nearest_to_unit(u)
        assert row is not None
        for b in table.bases:
            assert row[table.index[b.id]] == min(table.distance(a, b) for a in u.bases)


@pytest.mark.parametrize("seed", range(3))
def test_joining_officers_are_those_within_5_cm(seed: int) -> None:
    fast, _ = _boards(_crowded(seed))
    table = fast.table
    for target in fast.scene.units:
        want = [
            (b.id, table.closest([b], target.bases).distance)
            for f in fast.friends(target)
            for b in f.bases
            if b.role in ("officer", "nco", "leader")
            and table.closest([b], target.bases).distance <= 50.0
        ]
        got = [(b.id, t.measured) for b, t in fast.leaders_joining(target)]
        assert got == want


def test_a_volley_of_one_rifle_at_short_range_in_the_open() -> None:
    """One D8 needing 4+ (line 41, open): hits 5/8. Gunpowder damage (line 48): 1-2 graze,
    3-4 wound, 5-6 kill, so a kill is 5/8 * 2/6 = 5/24 and a wound the same."""
    shot = volley(1, 4, "short", "open", True, "veteran")
    assert shot.odds.hits.distribution == (Fraction(3, 8), Fraction(5, 8))
    assert shot.odds.kills.distribution == (Fraction(19, 24), Fraction(5, 24))
    assert shot.odds.wounds.distribution == (Fraction(19, 24), Fraction(5, 24))
    assert shot.damage_json["modifier"] == 0
    assert shot.damage_json["per_hit"]["kill"]["exact"] == "1/3"
    assert shot.rolls_json[0]["need"] == 4 and shot.rolls_json[0]["dice"] == 1


def test_a_hero_shoots_with_a_die_one_better() -> None:
    """Line 45: +1 if hero. The other weapons' row (line 49) is graze graze graze wound
    wound kill; read one face up (2, 3, 4, 5, 6, 6) it gives graze, graze, wound, wound,
    kill, kill: a third each."""
    shot = volley(2, 6, "medium", "open", False, "hero")
    assert shot.damage_json["modifier"] == 1
    per_hit = shot.damage_json["per_hit"]
    assert (per_hit["graze"]["exact"], per_hit["wound"]["exact"], per_hit["kill"]["exact"]) == (
        "1/3",
        "1/3",
        "1/3",
    )
    # two D8 needing 6+: each hits 3/8
    assert shot.odds.hits.distribution == (Fraction(25, 64), Fraction(30, 64), Fraction(9, 64))


def test_a_row_of_the_actions_table_as_json() -> None:
    """Line 151 (infantry RF1): six outcomes, faces 1-6, the first the move to cover in plain
    type, the D6 cited to the same line."""
    row = outcomes_json("infantry", "RF1")
    assert [o["face"] for o in row] == [1, 2, 3, 4, 5, 6]
    assert row[0]["text"].startswith("Move to take cover") and not row[0]["italic"]
    assert all(o["italic"] for o in row[1:])
    assert row[5]["charge"] is True
    roll = actions_roll_json("infantry", "RF1")
    assert (roll["dice"], roll["sides"], roll["need"]) == (1, 6, None)
    assert roll["source"] == str(ACTIONS_TABLE["infantry"]["RF1"][0].cite)
    assert roll["source"].endswith(":151")


def wall_cover(a: tuple[float, float], b: tuple[float, float]) -> str:
    """The cover a-0 at `a` shoots b-0 at `b` through, past a wall from (150, 400) to (300, 405)
    on a 900 x 600 mm table (25 mm square bases)."""
    units = [
        unit("a", "red", [{"id": "a-0", "x": a[0], "y": a[1], "width": 25.0, "depth": 25.0}]),
        unit("b", "blue", [{"id": "b-0", "x": b[0], "y": b[1], "width": 25.0, "depth": 25.0}]),
    ]
    scene = make_scene(
        "skirmish-19c",
        units,
        unit="mm",
        terrain=[terrain("wall", "wall", rect(150, 400, 300, 405))],
        width=900,
        depth=600,
    )
    table = Table(scene)
    shooter, target = scene.select("a-0")[0], scene.select("b-0")[0]
    return str(table.cover(get_ruleset("skirmish-19c").cover_policy, shooter, target).cover.value)


@pytest.mark.parametrize(
    ("y", "cover"),
    [
        (420.0, "hard"),  # near edge (y 407.5) 2.5 mm behind the wall (y 405): within 3 cm
        (460.0, "none"),  # near edge (y 447.5) 42.5 mm behind: too far
    ],
)
def test_cover_behind_a_wall_by_the_gap(y: float, cover: str) -> None:
    """A wall gives hard cover to a figure within 3 cm behind it (engine default), the line
    from the shooter's centre crossing it; further back it gives none."""
    assert wall_cover((200.0, 100.0), (200.0, y)) == cover


def test_cover_of_a_line_beside_a_wall() -> None:
    """A line passing well beside the wall gets no cover from it, however close behind."""
    assert wall_cover((500.0, 100.0), (320.0, 420.0)) == "none"


@pytest.mark.parametrize("bases", [10, 40])
def test_suggest_is_the_same_read_group_by_group(
    bases: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every answer of `suggest` on the example scene is the same whether the board reads
    whole rows of the table or must go group by group (a scene with a unit of no base)."""
    from benchmarks.bench_rules import example_for, tiled

    rs = get_ruleset("skirmish-19c")
    fast = rs.resolve(tiled(example_for("skirmish-19c"), bases), "suggest", []).data
    monkeypatch.setattr(Board, "layout", property(lambda self: None))
    slow = rs.resolve(tiled(example_for("skirmish-19c"), bases), "suggest", []).data
    assert fast == slow


def test_others_apart_leaves_out_the_own_unit_and_near_bases() -> None:
    """25 mm square bases: a-1 is 10 mm from a-0 (edge to edge) in its own unit, b-0 15 mm
    from it, c-0 175 mm; only c-0 is of another unit and more than 2 cm from a-0."""
    sq = {"width": 25.0, "depth": 25.0}
    units = [
        unit(
            "a",
            "red",
            [
                {"id": "a-0", "x": 100.0, "y": 100.0, **sq},
                {"id": "a-1", "x": 135.0, "y": 100.0, **sq},
            ],
        ),
        unit("b", "blue", [{"id": "b-0", "x": 100.0, "y": 140.0, **sq}]),
        unit("c", "blue", [{"id": "c-0", "x": 300.0, "y": 100.0, **sq}]),
    ]
    table = Table(make_scene("skirmish-19c", units, unit="mm", width=900, depth=600))
    row = table.others_apart(20.0)[table.index["a-0"]]
    assert dict(zip([b.id for b in table.bases], row.tolist(), strict=True)) == {
        "a-0": False,
        "a-1": False,
        "b-0": False,
        "c-0": True,
    }
