"""Weapon range bands for drawing on the table, read off each sheet by hand."""

from __future__ import annotations

from typing import Any

import pytest

from rules.engine import get_ruleset
from tests.builders import base, make_scene, unit


def bands(ruleset: str, scene_unit: str = "cm", **attrs: Any) -> list[tuple[str, float]]:
    scene = make_scene(ruleset, [unit("u", "red", [base("u-1", 50, 50)], **attrs)], unit=scene_unit)
    return [
        (b.label, round(b.reach, 3))
        for b in get_ruleset(ruleset).range_bands(scene, scene.units[0])
    ]


def test_skirmish_weapons_table() -> None:
    # 000 line 10: Rifles 30 / 90 / 180 cms
    assert bands("skirmish-19c", weapon="rifle") == [
        ("short", 300.0),
        ("medium", 900.0),
        ("long", 1800.0),
    ]
    # line 14: Swords have no range
    assert bands("skirmish-19c", weapon="sword") == []


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        # 004 line 69: Rifled Musket* 16cm; line 72: skirmishers +8cm
        ({"type": "infantry", "weapon": "rifled-musket"}, [("within range", 160.0)]),
        ({"type": "skirmishers", "weapon": "rifled-musket"}, [("within range", 240.0)]),
        # lines 65-66: Smoothbore Artillery 12cm (canister) and 32cm (round shot)
        (
            {"type": "artillery", "weapon": "smoothbore-artillery"},
            [("canister", 120.0), ("round shot", 320.0)],
        ),
        # cavalry have no row of the firing table
        ({"type": "cavalry"}, []),
    ],
)
def test_europe_weapon_table(attrs: dict[str, Any], expected: list[tuple[str, float]]) -> None:
    assert bands("europe-19c", **attrs) == expected


def test_colonial_needs_table_bands_where_a_weapon_hits() -> None:
    # 002 lines 86-87 with the header of line 165: Musket 6 6 - - ; Rifle 5-6 5-6 6 -
    assert bands("colonial-adventure", "in", type="infantry", weapon="musket") == [
        ("0-9", 228.6),
        ("9-18", 457.2),
    ]
    assert bands("colonial-adventure", "in", type="infantry", weapon="rifle") == [
        ("0-9", 228.6),
        ("9-18", 457.2),
        ("18-27", 685.8),
    ]


def test_a_grid_ruleset_draws_no_rings() -> None:
    scene = make_scene(
        "age-of-napoleon",
        [unit("u", "red", [base("u-1", 5, 5)], type="infantry", weapon="rifle")],
        grid_box=10,
    )
    assert get_ruleset("age-of-napoleon").range_bands(scene, scene.units[0]) == ()


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        # 001 line 66: infantry short range 4", long range 8"
        ({"type": "active", "arm": "foot"}, [("short", 101.6), ("long", 203.2)]),
        # lines 59-61: European heavy 3+ 5+ 6 at 8" / 20" / 30"
        (
            {"type": "active", "arm": "artillery", "weapon": "european-heavy"},
            [("short", 203.2), ("long", 508.0), ("extreme", 762.0)],
        ),
        # line 60: European light has N/A at extreme
        (
            {"type": "active", "arm": "artillery", "weapon": "european-light"},
            [("short", 203.2), ("long", 508.0)],
        ),
        ({"type": "aggressive", "arm": "cavalry"}, []),
    ],
)
def test_sepoys_fire_tables(attrs: dict[str, Any], expected: list[tuple[str, float]]) -> None:
    assert bands("sepoys-and-soldiers", "in", **attrs) == expected
