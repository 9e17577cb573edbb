"""The remembered and shortcut helpers behind europe-19c's fast `suggest`, worked by hand.

Geometry: a firing base 40 x 20 mm centred on the origin facing +y (90 degrees), so its front edge
runs from (-20, 10) to (20, 10). Its 45-degree arc (sheet line 74) is bounded by the front edge and
two rays from the front corners, (20, 10) + t (1, 1) and (-20, 10) + t (-1, 1): the right ray lies
on the line x - y = 10, the left one on x + y = -10.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import geometry as geo
from rules.engine import Cite, Roll
from rules.errors import QuestionError, SceneError
from rules.measure import _extent
from rules.measure import arc_regions as _arc_regions
from rules.measure import circle_in_arc as _circle_in_arc
from rules.measure import edge_normals as _normals
from rules.measure import overlap_pairs as _overlap_pairs
from rules.rulesets.europe_19c import (
    WEAPON_NAMES,
    _fire_odds,
    _formation,
    _mean_command_score,
    _not_beyond,
    _order,
    _success_json,
    _type,
    _word,
)
from rules.scene import Base, Footprint, Unit
from tests.builders import base as base_doc
from tests.builders import make_scene
from tests.builders import unit as unit_doc

SHOOTER = Base("gun", "battery", 0.0, 0.0, 90.0, Footprint(40.0, 20.0))
ARC = geo.arc_regions(SHOOTER, 45.0)


def round_base(x: float, y: float, diameter: float) -> Base:
    return Base("hq", "staff", x, y, 0.0, Footprint(diameter, diameter, circle=True))


def test_the_arc_is_one_region() -> None:
    assert ARC is not None and len(ARC) == 1


@pytest.mark.parametrize(
    ("x", "y", "diameter", "expected"),
    [
        # Straight ahead, 90 mm beyond the front edge: inside by far.
        (0.0, 100.0, 20.0, True),
        # Behind the base: 110 mm outside the front edge's line, radius 10.
        (0.0, -100.0, 20.0, False),
        # Right of the right ray: x - y = 150, (150 - 10) / sqrt 2 = 99 mm outside, radius 10.
        (200.0, 50.0, 20.0, False),
        # Left of the left ray: x + y = -150, (150 - 10) / sqrt 2 = 99 mm outside it.
        (-200.0, 50.0, 20.0, False),
        # x - y = 40: 30 / sqrt 2 = 21.2 mm outside the right ray, radius 10 clear of it.
        (110.0, 70.0, 20.0, False),
    ],
)
def test_plain_round_targets(x: float, y: float, diameter: float, expected: bool) -> None:
    target = round_base(x, y, diameter)
    assert ARC is not None
    assert _circle_in_arc(ARC, target) is expected
    assert geo.base_in_arc(SHOOTER, target, 45.0) is expected


def test_a_round_target_across_the_arc_edge_is_left_to_base_in_arc() -> None:
    # Centre (20 - 10) / sqrt 2 = 7.1 mm outside the right ray (x - y = 20) but radius 10:
    # the disc reaches across the ray, so it is in the arc, yet its centre is not inside.
    target = round_base(100.0, 80.0, 20.0)
    assert ARC is not None
    assert _circle_in_arc(ARC, target) is None
    assert geo.base_in_arc(SHOOTER, target, 45.0) is True


def test_a_round_target_centred_on_the_arc_edge_is_left_to_base_in_arc() -> None:
    target = round_base(60.0, 50.0, 20.0)  # x - y = 10: on the right ray
    assert ARC is not None
    assert _circle_in_arc(ARC, target) is None


@settings(max_examples=300, deadline=None)
@given(
    x=st.floats(-400, 400),
    y=st.floats(-400, 400),
    diameter=st.floats(1, 80),
    facing=st.floats(0, 359.9),
    half_angle=st.sampled_from([0.0, 30.0, 45.0, 89.0, 90.0, 120.0]),
)
def test_plain_verdicts_agree_with_base_in_arc(
    x: float, y: float, diameter: float, facing: float, half_angle: float
) -> None:
    shooter = Base("gun", "battery", 5.0, -3.0, facing, Footprint(40.0, 20.0))
    regions = geo.arc_regions(shooter, half_angle)
    assert regions is not None
    target = round_base(x, y, diameter)
    plain = _circle_in_arc(regions, target)
    if plain is not None:
        assert plain is geo.base_in_arc(shooter, target, half_angle)


def test_fire_odds_two_dice_hitting_on_4_saved_on_5() -> None:
    # A hit is 1/2 (4+); a save 1/3 (5+), so a die leaves an unsaved hit 1/2 * 2/3 = 1/3.
    odds = _fire_odds(2, 4, 5)
    assert odds.hits_exact == ("1/4", "1/2", "1/4")
    assert odds.hits == (0.25, 0.5, 0.25)
    assert odds.unsaved_exact == ("4/9", "4/9", "1/9")
    assert odds.unsaved == pytest.approx((4 / 9, 4 / 9, 1 / 9))
    assert odds.mean == pytest.approx(2 / 3)  # 2 dice x 1/3
    assert odds.p_at_least_one == "5/9"  # 1 - (2/3)^2


def test_fire_odds_without_a_save() -> None:
    # One die hitting on 6, no saving roll (the Open / All else cell, sheet line 96).
    odds = _fire_odds(1, 6, None)
    assert odds.unsaved_exact == ("5/6", "1/6")
    assert odds.mean == pytest.approx(1 / 6)
    assert odds.p_at_least_one == "1/6"


def test_success_json_three_dice_on_4() -> None:
    cite = Cite("004_8318ee244ed3ffb0.txt", 83, "Inf line, Art 2+ 3+ 4+ 5+")
    shown = _success_json("to hit", 3, 4, cite, "Inf line, Art against Normal")
    assert shown["p_success"] == 0.5 and shown["p_success_exact"] == "1/2"
    assert shown["distribution"] == [1 / 8, 3 / 8, 3 / 8, 1 / 8]
    assert shown["source"] == "004_8318ee244ed3ffb0.txt:83"
    assert shown["modifiers"] == []
    # Key for key, in order, what the roll itself shows.
    roll = Roll.success_roll("to hit", 3, 6, 4, cite=cite, note="Inf line, Art against Normal")
    assert list(shown.items()) == list(roll.as_json().items())


def test_success_json_gives_fresh_lists() -> None:
    cite = Cite("004_8318ee244ed3ffb0.txt", 95, "Woods, towns 3+ 4+ 5+")
    first = _success_json("save (one die per hit)", 1, 3, cite, "a")
    first["distribution"].append(99.0)
    again = _success_json("save (one die per hit)", 1, 3, cite, "b")
    assert again["distribution"] == [1 / 3, 2 / 3]  # 3+ on a D6 is 4/6
    assert math.isclose(again["p_success"], float(Fraction(2, 3)))


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    scale=st.sampled_from([1.0, 100.0, 1e6]),
    k=st.sampled_from([3, 4]),
)
def test_extent_is_the_einsum_projection_bit_for_bit(seed: int, scale: float, k: int) -> None:
    rng = np.random.default_rng(seed)
    poly = rng.normal(size=(7, k, 2)) * scale
    axes = rng.normal(size=(7, 5, 2))
    on = np.einsum("kad,kpd->kap", axes, poly)
    lo, hi = _extent(axes[..., 0], axes[..., 1], poly)
    assert np.array_equal(lo, on.min(axis=2))
    assert np.array_equal(hi, on.max(axis=2))


def test_overlap_pairs_by_hand() -> None:
    # A unit square region [0, 1]^2 against three squares of side 1: one overlapping it
    # (from x = 0.5), one touching its right side (from x = 1) and one 0.5 clear of it.
    def square(x0: float) -> list[list[float]]:
        return [[x0, 0.0], [x0 + 1, 0.0], [x0 + 1, 1.0], [x0, 1.0]]

    region = np.array([square(0.0)] * 3)
    feet = np.array([square(0.5), square(1.0), square(1.5)])
    hit = _overlap_pairs(region, _normals(region), feet, _normals(feet))
    assert hit.tolist() == [True, True, False]


def _unit(**attrs: object) -> Unit:
    scene = make_scene(
        "europe-19c", [unit_doc("u", "red", [base_doc("u-1", 10, 10, width=4, depth=2)], **attrs)]
    )
    return scene.units[0]


def test_word_reads_the_sheets_words() -> None:
    u = _unit(type="infantry", formation="column", order="loose", weapon="musket")
    assert _type(u) == "infantry"
    assert _formation(u) == "column"
    assert _order(u) == "loose"
    assert _word(u, "weapon", u.weapon, WEAPON_NAMES) == "musket"


@pytest.mark.parametrize(
    ("attrs", "reader", "message"),
    [
        ({}, _type, "has no 'type'"),
        ({"type": "artillery", "formation": "line"}, _formation, "has formation 'line'"),
        ({"type": "infantry"}, _order, "has no 'order'"),
    ],
)
def test_word_errors_are_check_attrs(attrs: dict[str, object], reader: Any, message: str) -> None:
    with pytest.raises(QuestionError, match=message):
        reader(_unit(**attrs))


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"type": "hussars"}, "type is 'hussars'; accepted: 'infantry'"),
        ({"type": "infantry", "formation": "square"}, "formation is 'square'; accepted"),
    ],
)
def test_words_the_sheet_does_not_know_are_refused_when_the_scene_is_read(
    attrs: dict[str, object], message: str
) -> None:
    with pytest.raises(SceneError, match=message):
        _unit(**attrs)


def test_cavalry_have_no_formation() -> None:
    assert _formation(_unit(type="cavalry", formation="column")) is None


def test_not_beyond_keeps_what_is_not_more_than_the_limit() -> None:
    row = np.array([5.0, 10.0, 10.000001, 0.0, 25.0])
    assert _not_beyond(row, 10.0) == [0, 1, 3]
    assert _not_beyond(row, -1.0) == []


@pytest.mark.parametrize(
    ("column", "mean"),
    [
        (0, "3"),  # poor, standard game: 2, 3, 4 a third each (lines 147-149)
        (2, "7"),  # good, standard: 6, 7, 8
        (3, "2"),  # poor, mini game: 1, 2, 3
        (5, "5"),  # good, mini: 4, 5, 6
        (1, "5"),  # average, standard: 4, 5, 6
        (4, "3"),  # average, mini: 2, 3, 4
    ],
)
def test_mean_command_score(column: int, mean: str) -> None:
    assert _mean_command_score(column) == mean


@settings(max_examples=400, deadline=None)
@given(
    x=st.floats(-2000, 2000),
    y=st.floats(-2000, 2000),
    facing=st.floats(0, 359.999),
    width=st.floats(1, 200),
    depth=st.floats(1, 200),
    half_angle=st.one_of(st.sampled_from([0.0, 45.0, 89.999]), st.floats(0, 89.999)),
)
def test_arc_regions_are_geometrys_bit_for_bit(
    x: float, y: float, facing: float, width: float, depth: float, half_angle: float
) -> None:
    shooter = Base("gun", "battery", x, y, facing, Footprint(width, depth))
    ours, theirs = _arc_regions(shooter, half_angle), geo.arc_regions(shooter, half_angle)
    assert ours is not None and theirs is not None and len(ours) == len(theirs) == 1
    assert ours[0].shape == theirs[0].shape and ours[0].tobytes() == theirs[0].tobytes()


def test_arc_regions_by_hand() -> None:
    # The 40 x 20 mm base at the origin facing +y: front corners (20, 10) and (-20, 10); at 45
    # degrees the far corners lie REACH along (1, 1) / sqrt 2 and (-1, 1) / sqrt 2.
    (region,) = _arc_regions(SHOOTER, 45.0) or []
    far = geo.REACH / math.sqrt(2)
    assert region.ravel().tolist() == pytest.approx(
        [20, 10, 20 + far, 10 + far, -20 - far, 10 + far, -20, 10]
    )


def test_wide_arcs_and_round_shooters_come_from_geometry() -> None:
    assert _arc_regions(SHOOTER, 180.0) is None  # all round (a town, line 74)
    wide = _arc_regions(SHOOTER, 120.0)
    assert wide is not None and len(wide) == 3
    disc = round_base(0.0, 0.0, 30.0)
    (ours,) = _arc_regions(disc, 45.0) or []
    (theirs,) = geo.arc_regions(disc, 45.0) or []
    assert ours.tobytes() == theirs.tobytes()
