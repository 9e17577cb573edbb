"""The measuring layer's square grid (`Table.grid`: places, occupants, steps, extent) and
units by id (`Table.unit_of`): worked out by hand on a 10 cm grid."""

from __future__ import annotations

from typing import Any

import pytest

from rules import geometry as geo
from rules.errors import UnknownIdError
from rules.measure import steady_on_grid, table_of
from rules.scene import Scene
from tests.builders import base, make_scene, unit

BOX = 100.0  # mm: a 10 cm grid


def at(ident: str, side: str, *centres: tuple[float, float], **kw: Any) -> dict[str, Any]:
    """A unit of 1 cm square bases centred at the given points (cm)."""
    bases = [base(f"{ident}-{k}", x, y, width=1, depth=1, **kw) for k, (x, y) in enumerate(centres)]
    return unit(ident, side, bases, type="infantry", die="d6")


def scene(*units: dict[str, Any], uncertainty: float = 0.2) -> Scene:
    return make_scene("age-of-napoleon", list(units), grid_box=10, uncertainty=uncertainty)


def test_a_unit_stands_in_the_box_of_the_mean_of_its_centres() -> None:
    # bases at x = 12 and 16 cm, y = 25: mean (14, 25) cm is in box (1, 2), 4 cm from its left
    # side and 5 from its top and bottom: 40 mm to the nearest side
    sc = scene(at("a", "red", (12, 25), (16, 25)))
    place = table_of(sc).grid(BOX).places["a"]
    assert (place.box, place.edge_margin) == ((1, 2), 40.0)
    assert (place.uncertainty, place.boxes) == (2.0, frozenset({(1, 2)}))


def test_the_grid_extent_counts_the_boxes_wholly_on_the_table() -> None:
    # a 180 x 120 cm table: 18 x 12 boxes of 10 cm, 7 x 4 of 25 cm (the last part-boxes left out)
    table = table_of(scene(at("a", "red", (12, 25))))
    assert (table.grid(BOX).extent, table.grid(250.0).extent) == ((18, 12), (7, 4))


def test_a_judgement_is_steady_when_every_box_a_unit_may_be_in_gives_it() -> None:
    # a at 19.9 cm may be in box 1 or 2 (row 2); b at 45 cm is in box 4: 2 or 3 boxes apart
    places = table_of(scene(at("a", "red", (19.9, 25)), at("b", "blue", (45, 25)))).grid(BOX).places
    a, b = places["a"], places["b"]
    assert steady_on_grid(a, b, lambda x, y: geo.grid_steps(x, y) <= 3)
    assert not steady_on_grid(a, b, lambda x, y: geo.grid_steps(x, y) <= 2)


def test_a_centre_within_its_uncertainty_of_a_side_may_be_in_either_box() -> None:
    # mean at x = 19.9 cm: 1 mm from the side between boxes 1 and 2, uncertainty 2 mm
    place = table_of(scene(at("a", "red", (19.9, 25)))).grid(BOX).places["a"]
    assert place.box == (1, 2)
    assert place.boxes == frozenset({(1, 2), (2, 2)})
    assert place.edge_margin == pytest.approx(1.0)


def test_the_occupants_of_each_box_in_the_order_of_the_units() -> None:
    sc = scene(at("a", "red", (15, 15)), at("b", "blue", (35, 15)), at("c", "red", (12, 18)))
    occupants = table_of(sc).grid(BOX).occupants
    assert {box: [u.id for u in units] for box, units in occupants.items()} == {
        (1, 1): ["a", "c"],
        (3, 1): ["b"],
    }


def test_grid_steps_count_a_diagonal_as_one_and_a_half() -> None:
    # a in (1, 1); b in (3, 1): 2 straight; c in (4, 4): 3 diagonal = 4.5; b to c: 1 diagonal
    # and 2 straight = 3.5
    sc = scene(at("a", "red", (15, 15)), at("b", "blue", (35, 15)), at("c", "blue", (45, 45)))
    steps = table_of(sc).grid(BOX).steps
    assert steps.tolist() == [[0.0, 2.0, 4.5], [2.0, 0.0, 3.5], [4.5, 3.5, 0.0]]
    with pytest.raises(ValueError, match="read-only"):
        steps[0, 1] = 1.0


def test_grid_steps_take_the_nearest_of_the_boxes_a_unit_may_be_in() -> None:
    # a's centre (19.9, 15) may be in box (1, 1) or (2, 1); b in (5, 1): 3 boxes from (2, 1)
    sc = scene(at("a", "red", (19.9, 15)), at("b", "blue", (55, 15)))
    table = table_of(sc)
    assert table.grid(BOX).steps[0, 1] == 3.0
    places = table.grid(BOX).places
    assert min(geo.grid_steps(x, y) for x in places["a"].boxes for y in places["b"].boxes) == 3.0


def test_a_unit_is_found_by_its_id_or_a_base_id() -> None:
    sc = scene(at("a", "red", (15, 15), (16, 15)), at("b", "blue", (35, 15)))
    table = table_of(sc)
    assert [table.unit_of(i).id for i in ("a", "a-1", "b-0", "b")] == ["a", "a", "b", "b"]
    with pytest.raises(UnknownIdError, match="'nobody'"):
        table.unit_of("nobody")
