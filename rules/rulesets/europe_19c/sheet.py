"""europe-19c's sheet as data: the tables of `sheet.toml` under the names the mechanics use, and
the readers of a unit's attributes in the sheet's words (README.md says which and why)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Final

from ...answer import Cite, Threshold
from ...engine import check_attr
from ...errors import MissingAttribute, QuestionError, accepted
from ...geometry import Closest
from ...measure import Table
from ...scene import Scene, TerrainKind, Unit
from ...sheetdata import load_sheet_data
from ...state import Field, Kind, Phase

SHEET: Final = "004_8318ee244ed3ffb0.txt"
ID: Final = "europe-19c"
MM_PER_CM: Final = 10.0
DATA: Final = load_sheet_data(Path(__file__).with_name("sheet.toml"), SHEET)

CITE: Final[dict[str, Cite]] = DATA["cite"]
"""The sheet's single rules, by name (`CITE["arc"]`: line 74)."""
NUMBERS: Final[dict[str, Any]] = DATA["numbers"]
UNIT_FIELDS: Final = tuple(
    Field(
        f["name"],
        Kind(f["kind"]),
        f["cite"],
        f["label"],
        default=f.get("default"),
        choices=tuple(f.get("choices", ())),
        in_play=f.get("in_play", True),
        per_turn=f.get("per_turn", False),
    )
    for f in DATA["fields"]
)
WORDS: Final = {f.name: f.choices for f in UNIT_FIELDS}
"""The words each attribute accepts (`WORDS["type"]`)."""
FORMATIONS: Final = {kind: tuple(words) for kind, words in DATA["formations"].items()}
"""The formations of the types that have them: infantry line or column, artillery limbered or
unlimbered (lines 15, 19)."""
PHASE_STEPS: Final = tuple(Phase(p["name"], p["what"], "all", p["cite"]) for p in DATA["phases"])

CHARGE: Final[dict[str, Any]] = DATA["charge"]
MOVE_COLUMNS: Final[list[str]] = DATA["move"]["columns"]
MOVE_ROWS: Final[dict[str, Any]] = {
    key: {**row, "pivot_cost": Fraction(row["pivot_cost"]) if "pivot_cost" in row else None}
    for key, row in DATA["move"]["rows"].items()
}
WEAPONS: Final[dict[str, Any]] = DATA["weapons"]
FIRING: Final[dict[str, Any]] = DATA["firing"]
SAVES: Final[dict[str, Any]] = DATA["saves"]
MELEE: Final[dict[str, Any]] = DATA["melee"]
MORALE: Final[dict[str, Any]] = DATA["morale"]
COMMAND: Final[list[dict[str, Any]]] = DATA["command"]

WOODS_TOWNS: Final = frozenset({TerrainKind.WOODS, TerrainKind.TOWN, TerrainKind.BUILDING})
TOWNS: Final = frozenset({TerrainKind.TOWN, TerrainKind.BUILDING})
STREAMS: Final = frozenset({TerrainKind.STREAM, TerrainKind.RIVER})
ROADS: Final = frozenset({TerrainKind.ROAD, TerrainKind.BRIDGE})


def kind_of(unit: Unit) -> str:
    """The unit's `type`: infantry, cavalry, dragoons, skirmishers or artillery."""
    return check_attr(unit, "type", WORDS["type"], ruleset=ID)


def formation_of(unit: Unit) -> str | None:
    """Infantry line or column, artillery limbered or unlimbered; None for the other types."""
    words = FORMATIONS.get(kind_of(unit))
    return None if words is None else check_attr(unit, "formation", words, ruleset=ID)


def order_of(unit: Unit) -> str:
    """Infantry's order, close or loose."""
    return check_attr(unit, "order", WORDS["order"], ruleset=ID)


def flag(unit: Unit, key: str) -> bool:
    """A state flag (declared with a default, so a scene read by the engine has it)."""
    value = unit.get(key)
    if value is None:
        raise MissingAttribute(ID, unit.id, key, "true or false", False)
    return bool(value)


def count(unit: Unit, key: str) -> int:
    """A state count (declared with a default, so a scene read by the engine has it)."""
    value = unit.get(key)
    if value is None:
        raise MissingAttribute(ID, unit.id, key, "a whole number from 0", 0)
    return int(value)


def described(unit: Unit) -> str:
    """`close order infantry in line`, `unlimbered artillery`, `cavalry`."""
    kind, formation = kind_of(unit), formation_of(unit)
    if kind == "infantry":
        return f"{order_of(unit)} order infantry in {formation}"
    return f"{formation} artillery" if kind == "artillery" else kind


def weapon_of(unit: Unit, kind: str) -> tuple[str, dict[str, Any]]:
    """The unit's row of the weapon table: artillery carries an artillery weapon, every other
    type a small arm."""
    arms = [k for k, w in WEAPONS.items() if w.get("artillery", False) == (kind == "artillery")]
    if unit.weapon is None:
        raise MissingAttribute(ID, unit.id, "weapon", f"one of {accepted(arms)}", arms[0])
    name = check_attr(unit, "weapon", WORDS["weapon"], ruleset=ID)
    if name not in arms:
        raise QuestionError(
            f"{ID}: unit {unit.id!r} is {kind} with weapon {name!r}; a unit of type {kind} "
            f"carries {accepted(arms)}"
        )
    return name, WEAPONS[name]


def bands_of(weapon: dict[str, Any], kind: str) -> list[tuple[dict[str, Any], float]]:
    """The weapon's bands, nearest first, with their reach in mm: skirmishers' starred weapons
    reach 8 cm further (line 72)."""
    starred = weapon.get("starred", False) and kind == "skirmishers"
    bonus = NUMBERS["skirmisher_bonus_cm"] if starred else 0
    return [(band, (band["reach_cm"] + bonus) * MM_PER_CM) for band in weapon["bands"]]


def move_row(unit: Unit) -> str:
    """The unit's row of the movement table."""
    kind = kind_of(unit)
    if kind == "infantry":
        return "infantry-close" if order_of(unit) == "close" else "infantry-loose"
    return kind


def game_size(scene: Scene, given: str | None) -> tuple[str, str]:
    """Standard or mini game, and why: the question's word, else the scene's `game_size`, else
    the standard game."""
    sizes = ("standard", "mini")
    if given is not None:
        if given not in sizes:
            raise QuestionError(f"{ID}: game size {given!r}; accepted values are {accepted(sizes)}")
        return given, "as asked"
    value = scene.extra.get("game_size")
    if value is None:
        return "standard", "the scene gives no game_size, so the standard game"
    if value not in sizes:
        raise QuestionError(
            f"{ID}: the scene's game_size is {value!r}; accepted values are {accepted(sizes)}"
        )
    return str(value), "the scene's game_size"


def contact(table: Table, near: Closest) -> Threshold:
    """The edge distance of the nearest pair of bases of two units against 0: base contact."""
    return Threshold(near.distance, 0.0, table.uncertainty(near.a, near.b))


def in_contact(t: Threshold) -> bool:
    """Base contact: edge distance 0, within the measuring uncertainty."""
    return t.within or t.too_close_to_call


def reason(text: str, cite: Cite | None) -> dict[str, Any]:
    """A reason in an answer, with the line it comes from."""
    return {"reason": text, "source": None if cite is None else str(cite)}


def shown(scene: Scene, mm: float) -> str:
    """A length as a line shows it: `12.5 cm`."""
    return f"{scene.show(mm):.1f} {scene.unit}"
