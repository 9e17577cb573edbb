"""The scene model: what the camera saw plus the unit state it cannot see.

`parse_scene` reads a decoded `umpire-scene/1` document (`read_json_file` reads and decodes a
file) into frozen values with every length in millimetres, as the format says; every bad input
raises `SceneError` naming the file, the path inside it and what is accepted. What a sheet reads
of a scene is checked where the sheets are: `rules.engine.read_scene` / `load_scene` name the
ruleset, then check and complete the scene under it. Imports no rules: never numpy, the engine,
a ruleset, cv2 or flask.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from calibration.units import MM_PER_UNIT, UNITS, format_length

from .errors import SceneError, UnknownIdError, UnknownRulesetError
from .reader import (
    MAX_SCENE_BYTES,
    DocumentReader,
    Point,
    join_path,
    read_text_file,
    surrogate_path,
)

SCENE_FORMAT: Final = "umpire-scene/1"
DEFAULT_UNCERTAINTY_MM: Final = 2.0
"""Position uncertainty of a base when the scene does not say (issue 3: 2 mm)."""


class TerrainKind(StrEnum):
    """The terrain kinds of the contract."""

    WOODS = "woods"
    TOWN = "town"
    BUILDING = "building"
    HILL = "hill"
    ROUGH = "rough"
    STREAM = "stream"
    RIVER = "river"
    ROAD = "road"
    BRIDGE = "bridge"
    HEDGE = "hedge"
    WALL = "wall"
    FENCE = "fence"
    FORTIFICATION = "fortification"
    OPEN = "open"


class Cover(StrEnum):
    """How much a terrain piece protects what stands in or behind it."""

    NONE = "none"
    SOFT = "soft"
    HARD = "hard"


@dataclass(frozen=True, slots=True)
class Footprint:
    """The shape of a base on the table, in millimetres."""

    width: float
    """Across the facing (for a circle, the diameter)."""
    depth: float
    """Along the facing (for a circle, the diameter)."""
    circle: bool = False
    """True for a round base of diameter `width`."""


@dataclass(frozen=True, slots=True)
class Base:
    """One base (one or more figures) on the table."""

    id: str
    unit_id: str
    """The unit the base belongs to."""
    x: float
    """Centre of the footprint, table frame, mm."""
    y: float
    facing: float
    """Degrees counter-clockwise from +x, in [0, 360)."""
    footprint: Footprint
    figures: int = 1
    """Figures on the base."""
    role: str | None = None
    """`officer`, `nco`, `leader`, `commander`, `hero`, `drummer`, `bugler`, ..."""
    uncertainty: float | None = None
    """One-sigma position uncertainty in mm, when the scene gives one."""
    attrs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Any further keys of the base, as written in the file."""


@dataclass(frozen=True, slots=True)
class Unit:
    """A group of bases acting together, with the state the camera cannot see."""

    id: str
    side: str
    bases: tuple[Base, ...]
    attrs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Every other key of the unit, in the sheet's words: what the troops are (`type`,
    `quality`, `weapon`, `formation`, ...) and their state (`casualties`, `shock`, ...)."""
    defaulted: frozenset[str] = frozenset()
    """Keys of `attrs` the file left out and the ruleset set to their start-of-game value."""

    def get(self, key: str, default: Any = None) -> Any:
        """An attribute by its contract name: `side` or one of `attrs`."""
        return self.side if key == "side" else self.attrs.get(key, default)

    @property
    def figures(self) -> int:
        """Figures on the table in this unit (summed over its bases)."""
        return sum(b.figures for b in self.bases)


@dataclass(frozen=True, slots=True)
class Terrain:
    """A terrain piece: a simple polygon in the table frame, mm."""

    id: str
    kind: TerrainKind
    polygon: tuple[Point, ...]
    cover: Cover | None = None
    """As the scene says; None lets the ruleset decide from `kind`."""
    enclosed: bool | None = None
    """As the scene says; None lets the ruleset decide from `kind`."""
    attrs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class Scene:
    """A whole table at one moment. Lengths in mm; `unit` is only how to show them."""

    ruleset: str
    unit: str
    table_width: float
    table_depth: float
    units: tuple[Unit, ...]
    terrain: tuple[Terrain, ...] = ()
    grid_box: float | None = None
    """Side of one grid square in mm, for grid rulesets; None otherwise."""
    uncertainty: float | None = None
    """Scene-wide position uncertainty in mm, when the scene gives one."""
    source: str = "<scene>"
    """Where the scene came from, for messages."""
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Top-level keys beyond the contract (`phase`, diagnostics, ...)."""

    def __post_init__(self) -> None:
        # Every measurement of a unit is of its bases: a scene file's unit has at least one
        # (the reader refuses it otherwise), and so must one built in code.
        empty = [u.id for u in self.units if not u.bases]
        if empty:
            raise ValueError(f"units with no bases: {', '.join(empty)}")

    def bases(self) -> Iterator[Base]:
        """Every base on the table, unit by unit."""
        for unit in self.units:
            yield from unit.bases

    def unit_of(self, ident: str) -> Unit:
        """The unit with this id, or the unit of the base with this id."""
        for unit in self.units:
            if unit.id == ident or any(b.id == ident for b in unit.bases):
                return unit
        raise UnknownIdError(ident, self.ids(), "unit or base")

    def base(self, ident: str) -> Base:
        """The base with this id."""
        for base in self.bases():
            if base.id == ident:
                return base
        raise UnknownIdError(ident, [b.id for b in self.bases()], "base")

    def select(self, ident: str) -> tuple[Base, ...]:
        """The bases an id names: all of a unit's, or the one base."""
        unit = self.unit_of(ident)
        return unit.bases if unit.id == ident else (self.base(ident),)

    def terrain_piece(self, ident: str) -> Terrain:
        """The terrain piece with this id."""
        for piece in self.terrain:
            if piece.id == ident:
                return piece
        raise UnknownIdError(ident, [t.id for t in self.terrain], "terrain piece")

    def ids(self) -> list[str]:
        """Every unit and base id, for messages."""
        out: list[str] = []
        for unit in self.units:
            out.append(unit.id)
            out.extend(b.id for b in unit.bases)
        return out

    def uncertainty_of(self, base: Base) -> float:
        """Position uncertainty of a base in mm: its own, the scene's, else 2 mm."""
        if base.uncertainty is not None:
            return base.uncertainty
        if self.uncertainty is not None:
            return self.uncertainty
        return DEFAULT_UNCERTAINTY_MM

    def show(self, length_mm: float) -> str:
        """A length as a line shows it, in the scene's unit: `12.5 cm`, `4.9"` (`format_length`,
        as the page writes it)."""
        return format_length(length_mm, self.unit)


# --------------------------------------------------------------------------------------------
# Loading


def read_json_file(path: str | Path) -> Any:
    """A scene file read and decoded strictly: no NaN/Infinity, no duplicate keys, no lone
    surrogates; a decoding error names its line and column. Raises `SceneError` for any bad
    input."""
    source = str(path)

    def fail(message: str) -> SceneError:
        return SceneError(source, "", message)

    def no_constants(name: str) -> Any:
        raise fail(f"{name} is not a number JSON allows")

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise fail(f"key {key!r} appears twice in one object")
            out[key] = value
        return out

    text = read_text_file(path, fail, "scene", "JSON", MAX_SCENE_BYTES)
    try:
        doc = json.loads(text, parse_constant=no_constants, object_pairs_hook=no_duplicates)
    except json.JSONDecodeError as exc:
        raise fail(f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise fail("JSON nested too deeply") from None
    except SceneError:  # a NaN or a key given twice, refused above as it was read
        raise
    except ValueError as exc:  # e.g. an integer literal of thousands of digits
        raise fail(f"not a usable JSON document: {exc}") from None
    where = surrogate_path(doc)
    if where is not None:
        raise fail(
            f"text at {where} holds a lone surrogate (such as \\ud800): JSON allows it, but it "
            "is not Unicode text; write the character itself"
        )
    return doc


SCENE_KEYS: Final = frozenset(
    {"format", "ruleset", "unit", "table", "grid", "terrain", "units", "uncertainty"}
)
"""The top-level keys of the format; any other is kept in `Scene.extra`."""
UNIT_KEYS: Final = frozenset({"id", "side", "type", "quality", "weapon", "bases"})
"""A unit's keys of the format; all but `id`, `side` and `bases` are kept in `Unit.attrs`."""
TERRAIN_KEYS: Final = frozenset({"id", "kind", "cover", "enclosed", "polygon"})
"""A terrain piece's keys of the format; any other is kept in `Terrain.attrs`."""
BASE_KEYS: Final = frozenset(
    {"id", "x", "y", "facing", "width", "depth", "diameter", "figures", "role", "uncertainty"}
)
"""A base's keys of the format; any other is kept in `Base.attrs`."""


def parse_scene(doc: Any, source: str, rulesets: Sequence[str]) -> Scene:
    """Validate a decoded scene document as the format says, naming one of `rulesets`, and
    convert it to a `Scene` in millimetres. The ruleset's own checks are
    `rules.engine.read_scene`'s."""
    r = DocumentReader(source, SceneError)
    top = r.mapping(doc, "")
    r.choice(r.key(top, "format", "", (SCENE_FORMAT,)), "format", (SCENE_FORMAT,))
    # The ruleset first: it says how to read the rest.
    ruleset = r.text(r.key(top, "ruleset", "", tuple(rulesets)), "ruleset")
    if ruleset not in rulesets:
        raise r.fail("ruleset", str(UnknownRulesetError(ruleset, sorted(rulesets))))
    unit = r.choice(r.key(top, "unit", "", UNITS), "unit", UNITS)
    scale = MM_PER_UNIT[unit]
    width, depth, grid_box = read_table(r, top, scale)

    uncertainty = None
    if "uncertainty" in top:
        uncertainty = r.length(top["uncertainty"], "uncertainty", scale, minimum=0)

    r.check_size(top.get("units"), top.get("terrain"))
    ids: dict[str, str] = {}
    terrain = tuple(
        _parse_terrain(r, item, f"terrain[{i}]", scale, ids)
        for i, item in enumerate(r.array(top.get("terrain", []), "terrain"))
    )
    units_doc = r.array(r.key(top, "units", ""), "units")
    units = tuple(
        _parse_unit(r, item, f"units[{i}]", scale, ids) for i, item in enumerate(units_doc)
    )
    extra = MappingProxyType({k: v for k, v in top.items() if k not in SCENE_KEYS})
    return Scene(
        ruleset=ruleset,
        unit=unit,
        table_width=width,
        table_depth=depth,
        units=units,
        terrain=terrain,
        grid_box=grid_box,
        uncertainty=uncertainty,
        source=source,
        extra=extra,
    )


# The shapes a scene and a game file (`vision.game`) share, read alike from either.


def read_table(
    r: DocumentReader, top: dict[str, Any], scale: float
) -> tuple[float, float, float | None]:
    """The `table`'s width and depth and the `grid`'s box (None without a grid), in mm."""
    table = r.mapping(r.key(top, "table", ""), "table")
    width = r.length(r.key(table, "width", "table"), "table.width", scale, positive=True)
    depth = r.length(r.key(table, "depth", "table"), "table.depth", scale, positive=True)
    if top.get("grid") is None:
        return width, depth, None
    grid = r.mapping(top["grid"], "grid")
    return width, depth, r.length(r.key(grid, "box", "grid"), "grid.box", scale, positive=True)


def read_id(r: DocumentReader, obj: dict[str, Any], path: str, ids: dict[str, str]) -> str:
    """The `id` of the object at `path`, claimed in `ids` (id -> where it was given): an id is
    given once in a whole document, whether of a unit, a base or a terrain piece."""
    where = join_path(path, "id")
    ident = r.text(r.key(obj, "id", path), where)
    if ident in ids:
        raise r.fail(
            where,
            f"duplicate id {ident!r} (already used at {ids[ident]}); unit, base and terrain "
            "ids must be unique across the whole file",
        )
    ids[ident] = where
    return ident


def read_unit_head(
    r: DocumentReader, obj: dict[str, Any], path: str, ids: dict[str, str]
) -> tuple[str, str, list[Any]]:
    """A unit's id, its side and its bases as written (at least one)."""
    ident = read_id(r, obj, path, ids)
    side = r.text(r.key(obj, "side", path), join_path(path, "side"))
    bases = r.array(r.key(obj, "bases", path), join_path(path, "bases"))
    if not bases:
        raise r.fail(join_path(path, "bases"), "a unit needs at least one base")
    return ident, side, bases


def read_footprint(r: DocumentReader, obj: dict[str, Any], path: str, scale: float) -> Footprint:
    """A base's size: a `diameter` (round) or a `width` and `depth` (rectangle), in mm."""
    if "diameter" in obj:
        if "width" in obj or "depth" in obj:
            raise r.fail(path, "give either diameter (round base) or width and depth, not both")
        d = r.length(obj["diameter"], join_path(path, "diameter"), scale, positive=True)
        return Footprint(d, d, circle=True)
    if "width" in obj or "depth" in obj:
        w = r.length(r.key(obj, "width", path), join_path(path, "width"), scale, positive=True)
        dep = r.length(r.key(obj, "depth", path), join_path(path, "depth"), scale, positive=True)
        return Footprint(w, dep)
    raise r.fail(path, "missing a size: give width and depth (rectangle) or diameter (round)")


def read_terrain_head(
    r: DocumentReader, obj: dict[str, Any], path: str, scale: float
) -> tuple[TerrainKind, tuple[Point, ...], Cover | None, bool | None]:
    """A terrain piece's kind, polygon (in mm) and the cover and enclosure it gives (None:
    the ruleset decides from the kind)."""
    kinds = tuple(k.value for k in TerrainKind)
    kind = TerrainKind(r.choice(r.key(obj, "kind", path, kinds), join_path(path, "kind"), kinds))
    cover = None
    if obj.get("cover") is not None:
        covers = tuple(c.value for c in Cover)
        cover = Cover(r.choice(obj["cover"], join_path(path, "cover"), covers))
    enclosed = None
    if obj.get("enclosed") is not None:
        enclosed = r.boolean(obj["enclosed"], join_path(path, "enclosed"))
    polygon = r.polygon(r.key(obj, "polygon", path), join_path(path, "polygon"), scale)
    return kind, polygon, cover, enclosed


_UNIT_PREFIX: Final = re.compile(r"^unit '[^']*': ")


def grouped_problems(problems: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Problems that are the same but for the unit (`arm is 'infantry'` on 14 units) said once,
    with the paths they stand at."""
    by_detail: dict[str, list[tuple[str, str]]] = {}
    for path, message in problems:
        by_detail.setdefault(_UNIT_PREFIX.sub("", message), []).append((path, message))
    out = []
    for detail, found in by_detail.items():
        if len(found) == 1:
            out.append(found[0])
            continue
        paths = [path for path, _ in found]
        more = f" and {len(paths) - 4} more" if len(paths) > 4 else ""
        out.append((paths[0], f"{detail} (also at {', '.join(paths[1:4])}{more})"))
    return out


def _parse_terrain(
    r: DocumentReader, item: Any, path: str, scale: float, ids: dict[str, str]
) -> Terrain:
    obj = r.mapping(item, path)
    ident = read_id(r, obj, path, ids)
    kind, polygon, cover, enclosed = read_terrain_head(r, obj, path, scale)
    extra = {k: v for k, v in obj.items() if k not in TERRAIN_KEYS}
    return Terrain(ident, kind, polygon, cover, enclosed, MappingProxyType(extra))


def _parse_unit(r: DocumentReader, item: Any, path: str, scale: float, ids: dict[str, str]) -> Unit:
    obj = r.mapping(item, path)
    ident, side, bases_doc = read_unit_head(r, obj, path, ids)
    for key in ("type", "quality", "weapon"):  # the words every sheet reads: text if given
        if obj.get(key) is not None:
            r.text(obj[key], join_path(path, key))
    # The troops' words and their state of play: the ruleset checks those it reads.
    attrs = {k: v for k, v in obj.items() if k not in ("id", "side", "bases")}
    bases = tuple(
        _parse_base(r, b, f"{path}.bases[{i}]", scale, ids, ident) for i, b in enumerate(bases_doc)
    )
    return Unit(ident, side, bases, MappingProxyType(attrs))


def _parse_base(
    r: DocumentReader, item: Any, path: str, scale: float, ids: dict[str, str], unit_id: str
) -> Base:
    obj = r.mapping(item, path)
    ident = read_id(r, obj, path, ids)
    x = r.length(r.key(obj, "x", path), join_path(path, "x"), scale)
    y = r.length(r.key(obj, "y", path), join_path(path, "y"), scale)
    facing = r.angle(obj.get("facing", 0.0), join_path(path, "facing"))
    footprint = read_footprint(r, obj, path, scale)
    figures = r.integer(obj.get("figures", 1), join_path(path, "figures"), minimum=1)
    role = None if obj.get("role") is None else r.text(obj["role"], join_path(path, "role"))
    uncertainty = None
    if obj.get("uncertainty") is not None:
        uncertainty = r.length(obj["uncertainty"], join_path(path, "uncertainty"), scale, minimum=0)
    extra = {k: v for k, v in obj.items() if k not in BASE_KEYS}
    return Base(
        ident, unit_id, x, y, facing, footprint, figures, role, uncertainty, MappingProxyType(extra)
    )
