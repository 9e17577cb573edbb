"""Length units: millimetres inside, the file's or the player's unit at the edges.

Pure Python; never imports numpy, cv2 or anything of the project. Every package may use it.
"""

from __future__ import annotations

from typing import Final

MM_PER_UNIT: Final[dict[str, float]] = {"mm": 1.0, "cm": 10.0, "in": 25.4}
"""How many millimetres one of each accepted unit is (1 in = 2.54 cm exactly)."""

UNITS: Final[tuple[str, ...]] = tuple(MM_PER_UNIT)


class UnknownUnitError(ValueError):
    """A length unit that is not one of `UNITS`."""

    def __init__(self, unit: object) -> None:
        super().__init__(f"unknown unit {unit!r}: accepted units are {', '.join(UNITS)}")
        self.unit = unit


def check_unit(unit: object) -> str:
    """Return `unit` if it is an accepted unit name, else raise `UnknownUnitError`."""
    if not isinstance(unit, str) or unit not in MM_PER_UNIT:
        raise UnknownUnitError(unit)
    return unit


def to_mm(value: float, unit: str) -> float:
    """Convert `value` given in `unit` to millimetres."""
    return float(value) * MM_PER_UNIT[check_unit(unit)]


def from_mm(value_mm: float, unit: str) -> float:
    """Convert a length in millimetres to `unit`."""
    return float(value_mm) / MM_PER_UNIT[check_unit(unit)]


def unit_symbol(unit: str) -> str:
    """How a length in `unit` is written for players: `12.5 cm`, `4.0"`."""
    return '"' if check_unit(unit) == "in" else f" {unit}"


def format_length(value_mm: float, unit: str, decimals: int = 1) -> str:
    """A length for people: `from_mm` rounded to `decimals`, with its unit (`12.5 cm`, `4.9"`)."""
    return f"{from_mm(value_mm, unit):.{decimals}f}{unit_symbol(unit)}"
