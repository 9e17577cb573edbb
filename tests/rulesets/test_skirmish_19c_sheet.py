"""skirmish-19c's sheet as values (`rules/rulesets/skirmish_19c/sheet.py`): a volley's odds and
an actions-table row against hand-worked values from the sheet, and the cover a wall gives
(the measuring layer under the ruleset's cover policy). Kept from the tests of the old
per-scene `Board`, which no longer exists; its other tests compared the board's fast and slow
ways, which are now the measuring layer's (tests/test_measure_batches.py)."""

from __future__ import annotations

import pytest

from rules.engine import get_ruleset
from rules.measure import Table
from rules.rulesets.skirmish_19c.sheet import ACTIONS_TABLE, volley
from tests.builders import make_scene, rect, terrain, unit


def _exact(count: dict[str, list[dict[str, str]]]) -> list[str]:
    return [p["exact"] for p in count["distribution"]]


def test_a_volley_of_one_rifle_at_short_range_in_the_open() -> None:
    """One D8 needing 4+ (line 41, open): hits 5/8. Gunpowder damage (line 48): 1-2 graze,
    3-4 wound, 5-6 kill, so a kill is 5/8 * 2/6 = 5/24 and a wound the same."""
    shot, _ = volley(1, 4, "short", "open", True, "veteran")
    assert _exact(shot["hits"]) == ["3/8", "5/8"]
    assert _exact(shot["kills"]) == ["19/24", "5/24"]
    assert _exact(shot["wounds"]) == ["19/24", "5/24"]
    assert shot["damage"]["modifier"] == 0
    assert shot["damage"]["per_hit"]["kill"]["exact"] == "1/3"
    assert shot["rolls"][0]["need"] == 4 and shot["rolls"][0]["dice"] == 1


def test_a_hero_shoots_with_a_die_one_better() -> None:
    """Line 45: +1 if hero. The other weapons' row (line 49) is graze graze graze wound
    wound kill; read one face up (2, 3, 4, 5, 6, 6) it gives graze, graze, wound, wound,
    kill, kill: a third each. Two D8 needing 6+: each hits 3/8."""
    shot, lines = volley(2, 6, "medium", "open", False, "hero")  # its lines, written when asked
    assert shot["damage"]["modifier"] == 1
    per_hit = shot["damage"]["per_hit"]
    assert [per_hit[k]["exact"] for k in ("graze", "wound", "kill")] == ["1/3", "1/3", "1/3"]
    assert _exact(shot["hits"]) == ["25/64", "15/32", "9/64"]
    assert lines()[1].startswith("- damage, one D6 a hit (+1) [")


def test_a_row_of_the_actions_table() -> None:
    """Line 151 (infantry RF1): six outcomes, faces 1-6, the first the move to cover in plain
    type, the others in italics, the sixth a charge, all cited to line 151."""
    cite, row = ACTIONS_TABLE["infantry"]["RF1"]
    assert cite.line == 151
    assert [o["face"] for o in row] == [1, 2, 3, 4, 5, 6]
    assert row[0]["text"].startswith("Move to take cover") and not row[0]["italic"]
    assert all(o["italic"] for o in row[1:])
    assert row[5]["charge"] is True
    assert all(o["source"].endswith(":151") for o in row)


def _wall_cover(a: tuple[float, float], b: tuple[float, float]) -> str:
    units = [
        unit("a", "red", [{"id": "a-0", "x": a[0], "y": a[1], "width": 25.0, "depth": 25.0}]),
        unit("b", "blue", [{"id": "b-0", "x": b[0], "y": b[1], "width": 25.0, "depth": 25.0}]),
    ]
    wall = terrain("wall", "wall", rect(150, 400, 300, 405))
    scene = make_scene("skirmish-19c", units, unit="mm", terrain=[wall], width=900, depth=600)
    shooter, target = scene.select("a-0")[0], scene.select("b-0")[0]
    policy = get_ruleset("skirmish-19c").cover_policy
    return str(Table(scene).cover(policy, shooter, target).cover.value)


@pytest.mark.parametrize(
    ("a", "b", "cover"),
    [
        ((200.0, 100.0), (200.0, 420.0), "hard"),  # near edge 2.5 mm behind the wall: within 3 cm
        ((200.0, 100.0), (200.0, 460.0), "none"),  # near edge 42.5 mm behind: too far
        ((500.0, 100.0), (320.0, 420.0), "none"),  # the line passes well beside the wall
    ],
)
def test_cover_behind_a_wall(a: tuple[float, float], b: tuple[float, float], cover: str) -> None:
    """A wall gives hard cover to a figure within 3 cm behind it (the engine's default), the
    line from the shooter's centre crossing it; further back, or beside it, none."""
    assert _wall_cover(a, b) == cover
