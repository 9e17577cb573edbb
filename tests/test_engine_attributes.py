"""`rules/engine.py`: reading a unit's true-or-false and whole-number attributes."""

from __future__ import annotations

import pytest

from rules.engine import check_count, check_flag
from rules.errors import MissingAttribute
from rules.scene import Base, Footprint, Unit


def _unit(**attrs: object) -> Unit:
    base = Base("u-1", "u", 0.0, 0.0, 0.0, Footprint(40.0, 20.0))
    return Unit("u", "red", (base,), attrs=attrs)


def test_a_flag_and_a_count_read_as_given() -> None:
    unit = _unit(acted=True, moved=False, hits=2)
    assert check_flag(unit, "acted", ruleset="r") is True
    assert check_flag(unit, "moved", ruleset="r") is False
    assert check_count(unit, "hits", ruleset="r") == 2


def test_a_missing_flag_or_count_is_a_missing_attribute_with_its_stand_in() -> None:
    with pytest.raises(MissingAttribute, match="true or false") as flag:
        check_flag(_unit(), "acted", ruleset="r")
    with pytest.raises(MissingAttribute, match="a whole number from 0") as count:
        check_count(_unit(), "hits", ruleset="r")
    assert (flag.value.placeholder, count.value.placeholder) == (False, 0)
