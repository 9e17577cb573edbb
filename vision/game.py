"""The game file: what the players set up before the game (docs/formats.md, "Game file").

`load_game` reads the TOML file (or `parse_game` a decoded document) into frozen values with
every length in millimetres: the table, the corner tags of the calibration, the units with the
tag of each base, the terrain cards and an optional camera. `game_tags` lists every tag the game
expects, for the tag printer and the detector.

Every bad input raises `GameError` naming the file, the path inside it
(`units[1].bases[0].tag`) and what is accepted. Builds on `rules` (ruleset ids, and the readers
of what a game file shares with a scene: table, ids, units, footprints, terrain) and on
`vision.tags` (the family names and their id counts); never imports cv2, pupil_apriltags, flask
or webui, and keeps the camera matrix as plain tuples (the calibration code makes arrays of it).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from calibration.units import MM_PER_UNIT, UNITS
from rules.engine import read_scene
from rules.errors import DocumentError, accepted, close_key
from rules.reader import MAX_GAME_BYTES, DocumentReader, join_path, read_text_file
from rules.scene import (
    SCENE_FORMAT,
    Cover,
    Footprint,
    Point,
    TerrainKind,
    read_footprint,
    read_id,
    read_table,
    read_terrain_head,
    read_unit_head,
)
from vision.tags import BORDER_BITS, FAMILIES, family_size, pattern_family


class GameError(DocumentError):
    """A game file that does not follow docs/formats.md (the message names the file, the path inside
    it, `units[1].bases[0].tag`, and what is accepted)."""


DEFAULT_FAMILY: Final = "tag36h11"
"""The family of a tag whose file names none."""


# --------------------------------------------------------------------------------------------
# The game's values (millimetres)


@dataclass(frozen=True, slots=True)
class TagSpec:
    """How one printed tag looks and where its surface is."""

    family: str
    """AprilTag family or OpenCV ArUco dictionary name."""
    border_bits: int
    """Width of the black border in cells (1, or 2 for aprilgrid-style prints)."""
    size: float
    """Edge length of the black border square, mm."""
    height: float
    """Height of the tag's surface above the table, mm (0 for a tag lying on the table)."""


@dataclass(frozen=True, slots=True)
class Corner:
    """A reference tag of the calibration, fixed at a known place on the table."""

    tag: int
    x: float
    """Centre of the tag, table frame, mm."""
    y: float


@dataclass(frozen=True, slots=True)
class Calibration:
    """The reference tags the table transform is fitted to."""

    spec: TagSpec
    corners: tuple[Corner, ...]
    """In the file's order."""


@dataclass(frozen=True, slots=True)
class BaseSpec:
    """A base as set up: its tag and footprint; the camera measures where it stands."""

    id: str
    tag: int
    spec: TagSpec
    footprint: Footprint
    """In mm."""
    figures: int = 1
    role: str | None = None
    offset: Point = (0.0, 0.0)
    """Footprint centre minus tag centre, mm, in the base's own frame: x to the base's right,
    y ahead along its facing."""
    facing_offset: float = 0.0
    """Degrees added to the direction of the tag's top edge to get the base's facing."""
    attrs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Further keys of the base in the file, copied onto the scene's base."""


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """A unit as set up: side, the attributes the ruleset reads, and its bases."""

    id: str
    side: str
    bases: tuple[BaseSpec, ...]
    attrs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Every other key of the unit (`type`, `quality`, `weapon`, `casualties`, ...), as written;
    copied onto the scene's unit."""


@dataclass(frozen=True, slots=True)
class TerrainSpec:
    """A terrain card: a polygon carried by a tag, or fixed on the table (then `tag` is None)."""

    id: str
    kind: TerrainKind
    polygon: tuple[Point, ...]
    """mm; in the tag's own frame (x = the tag's right, y = the tag's top, origin at its centre)
    when `tag` is given, else in the table frame."""
    tag: int | None = None
    spec: TagSpec | None = None
    """Present exactly when `tag` is."""
    cover: Cover | None = None
    enclosed: bool | None = None
    attrs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Further keys of the card, copied onto the scene's terrain piece."""


@dataclass(frozen=True, slots=True)
class Camera:
    """Intrinsics in OpenCV's convention (pixels)."""

    matrix: tuple[tuple[float, float, float], ...]
    """3 x 3: [[fx, 0, cx], [0, fy, cy], [0, 0, 1]]."""
    distortion: tuple[float, ...]
    """k1, k2, p1, p2 or k1, k2, p1, p2, k3."""


@dataclass(frozen=True, slots=True)
class Game:
    """A whole game file. Lengths in mm; `unit` is only how to show them."""

    source: str
    ruleset: str
    unit: str
    table_width: float
    table_depth: float
    calibration: Calibration
    units: tuple[UnitSpec, ...]
    terrain: tuple[TerrainSpec, ...] = ()
    grid_box: float | None = None
    """Side of one grid square in mm, for grid rulesets."""
    camera: Camera | None = None
    scene_extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Top-level keys the ruleset reads from every scene (its `scene_keys`, such as the weapon
    ranges of a sheet that leaves them to the game), copied into each scene as written."""


class TagRole(StrEnum):
    """What a printed tag is for."""

    CORNER = "corner"
    BASE = "base"
    TERRAIN = "terrain"


@dataclass(frozen=True, slots=True)
class GameTag:
    """One tag the game expects to see: what to print, what to look for."""

    family: str
    border_bits: int
    id: int
    size: float
    """Black-border edge, mm."""
    height: float
    """Tag surface above the table, mm."""
    role: TagRole
    owner: str
    """The base id or terrain id the tag is on; `corner-<id>` for a corner."""
    unit: str | None = None
    """The unit of a base's tag."""


def game_tags(game: Game) -> tuple[GameTag, ...]:
    """Every tag the game expects: corners, then bases unit by unit, then terrain cards."""

    def tag(
        spec: TagSpec, ident: int, role: TagRole, owner: str, unit: str | None = None
    ) -> GameTag:
        return GameTag(
            spec.family, spec.border_bits, ident, spec.size, spec.height, role, owner, unit
        )

    cal = game.calibration
    out = [tag(cal.spec, c.tag, TagRole.CORNER, f"corner-{c.tag}") for c in cal.corners]
    for unit in game.units:
        out += [tag(b.spec, b.tag, TagRole.BASE, b.id, unit.id) for b in unit.bases]
    for card in game.terrain:
        if card.tag is not None and card.spec is not None:
            out.append(tag(card.spec, card.tag, TagRole.TERRAIN, card.id))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Loading


def load_game(path: str | Path) -> Game:
    """Read and validate a game file. Raises `GameError` for any bad input."""
    source = str(path)
    text = read_text_file(
        path, lambda message: GameError(source, "", message), "game", "TOML", MAX_GAME_BYTES
    )
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib's message already ends with "(at line L, column C)".
        raise GameError(source, "", f"not valid TOML: {exc}") from None
    except RecursionError:  # tomllib reads nested arrays and tables recursively
        raise GameError(source, "", "not a usable TOML document: nested too deeply") from None
    except ValueError as exc:  # an integer of thousands of digits
        raise GameError(source, "", f"not a usable TOML document: {exc}") from None
    return parse_game(doc, source)


MAX_ATTRIBUTE_DEPTH: Final = 32
"""How deep a unit's, base's or card's own attributes may nest arrays and tables: far more than
any ruleset reads, and far less than would exhaust Python's recursion when copied."""
_TAG_KEYS: Final = ("family", "border_bits", "tag_size", "height")
"""Keys that set how tags look; inherited top level -> [calibration] / unit -> base / card."""
_UNIT_FIELDS: Final = ("id", "side", "bases", *_TAG_KEYS)
_TOP_FIELDS: Final = (
    "ruleset",
    "unit",
    "table",
    "grid",
    "calibration",
    "units",
    "terrain",
    "camera",
    *_TAG_KEYS,
)
"""Top-level keys of a game file (besides the ruleset's own `scene_keys`)."""
_BASE_FIELDS: Final = (
    "id",
    "tag",
    "width",
    "depth",
    "diameter",
    "figures",
    "role",
    "offset",
    "facing_offset",
    *_TAG_KEYS,
)
_MEASURED: Final = ("x", "y", "facing", "uncertainty")
"""Base keys of a scene that the camera measures, so a game file must not give them."""
_TERRAIN_FIELDS: Final = ("id", "kind", "cover", "enclosed", "polygon", "tag", *_TAG_KEYS)


def parse_game(doc: Any, source: str = "<game>") -> Game:
    """Validate a decoded game document (as `tomllib` gives it) and convert it to millimetres."""
    from rules.engine import check_ruleset_id, get_ruleset, ruleset_ids

    r = _Reader(source)
    top = r.mapping(doc, "")
    ruleset = r.text(r.key(top, "ruleset", "", tuple(ruleset_ids())), "ruleset")
    try:
        check_ruleset_id(ruleset)
    except ValueError as exc:
        raise r.fail("ruleset", str(exc)) from None
    rules = get_ruleset(ruleset)
    known = {*_TOP_FIELDS, *rules.scene_keys}
    for key in top:
        near = close_key(key, known) if key not in known else None
        if near is not None:
            raise r.fail(key, f"{key!r} is not a game file key; did you mean {near!r}?")
    unit = r.choice(r.key(top, "unit", "", UNITS), "unit", UNITS)
    scale = MM_PER_UNIT[unit]
    width, depth, grid_box = read_table(r, top, scale)
    if grid_box is None and rules.grid:
        raise r.fail(
            "grid",
            f"missing (required): {ruleset} measures in grid boxes, so the game must give "
            "[grid] box, the side of one square",
        )

    defaults = _TagDefaults.read(r, top, "", scale, _TagDefaults())
    registry = _Registry(r)

    calibration = _parse_calibration(r, r.key(top, "calibration", ""), scale, defaults, registry)
    units_doc = r.array(r.key(top, "units", ""), "units")
    if not units_doc:
        raise r.fail("units", "a game needs at least one unit ([[units]])")
    r.check_size(units_doc, top.get("terrain"))
    units = tuple(
        _parse_unit(r, item, f"units[{i}]", scale, defaults, registry)
        for i, item in enumerate(units_doc)
    )
    terrain = tuple(
        _parse_terrain(r, item, f"terrain[{i}]", scale, defaults, registry)
        for i, item in enumerate(r.array(top.get("terrain", []), "terrain"))
    )
    camera = _parse_camera(r, top["camera"]) if "camera" in top else None
    scene_extra = {k: r.plain(v, k) for k, v in top.items() if k in rules.scene_keys}
    game = Game(
        source=source,
        ruleset=ruleset,
        unit=unit,
        table_width=width,
        table_depth=depth,
        calibration=calibration,
        units=units,
        terrain=terrain,
        grid_box=grid_box,
        camera=camera,
        scene_extra=MappingProxyType(scene_extra),
    )
    _check_attributes(game, source)
    return game


@dataclass(frozen=True, slots=True)
class _TagDefaults:
    """Tag settings in force at one level of the file; None where no level has given one."""

    family: str | None = None
    border_bits: int | None = None
    size: float | None = None
    height: float | None = None

    @staticmethod
    def read(
        r: _Reader, obj: dict[str, Any], path: str, scale: float, outer: _TagDefaults
    ) -> _TagDefaults:
        """The settings of `obj`, each falling back to `outer` (the most specific wins)."""
        family = outer.family
        if "family" in obj:
            family = r.choice(obj["family"], _join(path, "family"), FAMILIES)
        border_bits = outer.border_bits
        if "border_bits" in obj:
            border_bits = r.integer(obj["border_bits"], _join(path, "border_bits"))
            if border_bits not in BORDER_BITS:
                raise r.fail(
                    _join(path, "border_bits"),
                    f"got {border_bits}; accepted values are {accepted(BORDER_BITS)} "
                    "(2 for Kalibr aprilgrid-style prints)",
                )
        size = outer.size
        if "tag_size" in obj:
            size = r.length(obj["tag_size"], _join(path, "tag_size"), scale, positive=True)
        height = outer.height
        if "height" in obj:
            height = r.length(obj["height"], _join(path, "height"), scale, minimum=0)
        return _TagDefaults(family, border_bits, size, height)

    def spec(self, r: _Reader, path: str) -> TagSpec:
        """The complete settings of a tag at `path`; its size must have been given somewhere."""
        if self.size is None:
            raise r.fail(
                _join(path, "tag_size"),
                "missing (required): give tag_size (the black-border edge, in the file's unit) "
                "here or on an enclosing level (unit, [calibration] or the top of the file)",
            )
        return TagSpec(
            self.family or DEFAULT_FAMILY,
            self.border_bits or 1,
            self.size,
            self.height or 0.0,
        )


class _Registry:
    """Every id (`rules.scene.read_id`) and every tag claimed so far, so that a second use
    names the first."""

    def __init__(self, r: _Reader) -> None:
        self.r = r
        self.ids: dict[str, str] = {}
        self.tags: dict[tuple[str, int], str] = {}

    def claim_tag(self, value: Any, path: str, family: str, what: str) -> int:
        tag = self.r.integer(value, path)
        size = family_size(family)
        if tag >= size:
            raise self.r.fail(path, f"{family} has ids 0 to {size - 1}, got {tag}")
        key = (pattern_family(family), tag)
        if key in self.tags:
            same = "" if key[0] == family else f" (which prints the markers of {key[0]})"
            raise self.r.fail(
                path,
                f"tag {tag} of {family}{same} is already used by {self.tags[key]}; a base, a "
                "corner and a terrain card cannot share a tag of one family",
            )
        self.tags[key] = f"{what} ({path})"
        return tag


def _parse_calibration(
    r: _Reader, value: Any, scale: float, defaults: _TagDefaults, registry: _Registry
) -> Calibration:
    cal = r.mapping(value, "calibration")
    spec = _TagDefaults.read(r, cal, "calibration", scale, defaults).spec(r, "calibration")
    corners_doc = r.mapping(r.key(cal, "corners", "calibration"), "calibration.corners")
    corners: list[Corner] = []
    for key, point in corners_doc.items():
        path = _join("calibration.corners", key)
        if not (key.isascii() and key.isdigit()):
            raise r.fail(path, f"a corner is keyed by its tag id, a whole number; got {key!r}")
        tag = registry.claim_tag(int(key), path, spec.family, f"corner {key}")
        x, y = r.point(point, path, scale)
        corners.append(Corner(tag, x, y))
    if len(corners) < 4:
        raise r.fail(
            "calibration.corners",
            f"needs at least 4 reference tags (tag id -> [x, y] of its centre), got {len(corners)}",
        )
    seen: dict[Point, int] = {}
    for corner in corners:
        if (corner.x, corner.y) in seen:
            raise r.fail(
                f"calibration.corners.{corner.tag}",
                f"same place as corner {seen[(corner.x, corner.y)]}; each reference tag needs "
                "its own place",
            )
        seen[(corner.x, corner.y)] = corner.tag
    return Calibration(spec, tuple(corners))


def _parse_unit(
    r: _Reader,
    item: Any,
    path: str,
    scale: float,
    defaults: _TagDefaults,
    registry: _Registry,
) -> UnitSpec:
    obj = r.mapping(item, path)
    ident, side, bases_doc = read_unit_head(r, obj, path, registry.ids)
    unit_defaults = _TagDefaults.read(r, obj, path, scale, defaults)
    bases = tuple(
        _parse_base(r, b, f"{path}.bases[{i}]", scale, unit_defaults, registry)
        for i, b in enumerate(bases_doc)
    )
    attrs = {k: r.plain(v, _join(path, k)) for k, v in obj.items() if k not in _UNIT_FIELDS}
    return UnitSpec(ident, side, bases, MappingProxyType(attrs))


def _parse_base(
    r: _Reader,
    item: Any,
    path: str,
    scale: float,
    defaults: _TagDefaults,
    registry: _Registry,
) -> BaseSpec:
    obj = r.mapping(item, path)
    ident = read_id(r, obj, path, registry.ids)
    for key in _MEASURED:
        if key in obj:
            raise r.fail(
                _join(path, key),
                "the camera measures this; a game file gives a base's tag, size, offset and "
                "facing_offset instead",
            )
    spec = _TagDefaults.read(r, obj, path, scale, defaults).spec(r, path)
    tag = registry.claim_tag(r.key(obj, "tag", path), _join(path, "tag"), spec.family, ident)
    footprint = read_footprint(r, obj, path, scale)
    figures = r.integer(obj.get("figures", 1), _join(path, "figures"), minimum=1)
    role = None if "role" not in obj else r.text(obj["role"], _join(path, "role"))
    offset = (0.0, 0.0)
    if "offset" in obj:
        offset = r.point(obj["offset"], _join(path, "offset"), scale)
    facing_offset = 0.0
    if "facing_offset" in obj:
        facing_offset = r.angle(obj["facing_offset"], _join(path, "facing_offset"))
    attrs = {k: r.plain(v, _join(path, k)) for k, v in obj.items() if k not in _BASE_FIELDS}
    return BaseSpec(
        ident, tag, spec, footprint, figures, role, offset, facing_offset, MappingProxyType(attrs)
    )


def _parse_terrain(
    r: _Reader,
    item: Any,
    path: str,
    scale: float,
    defaults: _TagDefaults,
    registry: _Registry,
) -> TerrainSpec:
    obj = r.mapping(item, path)
    ident = read_id(r, obj, path, registry.ids)
    kind, polygon, cover, enclosed = read_terrain_head(r, obj, path, scale)
    tag = None
    spec = None
    if "tag" in obj:
        spec = _TagDefaults.read(r, obj, path, scale, defaults).spec(r, path)
        tag = registry.claim_tag(obj["tag"], _join(path, "tag"), spec.family, ident)
    else:
        for key in _TAG_KEYS:
            if key in obj:
                raise r.fail(
                    _join(path, key),
                    "only a card with a tag has tag settings; give tag = <id> (polygon in the "
                    "tag's frame) or leave both out (polygon fixed in table coordinates)",
                )
    attrs = {k: r.plain(v, _join(path, k)) for k, v in obj.items() if k not in _TERRAIN_FIELDS}
    return TerrainSpec(ident, kind, polygon, tag, spec, cover, enclosed, MappingProxyType(attrs))


def _parse_camera(r: _Reader, value: Any) -> Camera:
    cam = r.mapping(value, "camera")
    shape = "a 3 x 3 matrix [[fx, 0, cx], [0, fy, cy], [0, 0, 1]] in pixels"
    rows = r.array(r.key(cam, "matrix", "camera"), "camera.matrix")
    if len(rows) != 3 or not all(isinstance(row, list) and len(row) == 3 for row in rows):
        raise r.fail("camera.matrix", f"expected {shape}")
    matrix = tuple(
        (
            r.number(row[0], f"camera.matrix[{i}][0]"),
            r.number(row[1], f"camera.matrix[{i}][1]"),
            r.number(row[2], f"camera.matrix[{i}][2]"),
        )
        for i, row in enumerate(rows)
    )
    fx, fy = matrix[0][0], matrix[1][1]
    if fx <= 0 or fy <= 0 or matrix[1][0] != 0 or matrix[2] != (0.0, 0.0, 1.0):
        raise r.fail("camera.matrix", f"expected {shape} with fx and fy greater than 0")
    distortion: tuple[float, ...] = ()
    if "distortion" in cam:
        coeffs = r.array(cam["distortion"], "camera.distortion")
        if len(coeffs) not in (4, 5):
            raise r.fail(
                "camera.distortion",
                f"expected [k1, k2, p1, p2] or [k1, k2, p1, p2, k3] (OpenCV's order), "
                f"got {len(coeffs)} numbers",
            )
        distortion = tuple(r.number(c, f"camera.distortion[{i}]") for i, c in enumerate(coeffs))
    return Camera(matrix, distortion)


def _check_attributes(game: Game, source: str) -> None:
    """Check the unit and base attributes with the scene loader, so a wrong type
    (`casualties = "two"`) is reported when the game is loaded, not at the first photo.

    The probe scene keeps the file's unit and base order, so the scene loader's paths
    (`units[1].bases[0].role`) are the game file's paths too.
    """
    from rules.errors import SceneError

    probe = {
        "format": SCENE_FORMAT,
        "ruleset": game.ruleset,
        "unit": "mm",
        "table": {"width": game.table_width, "depth": game.table_depth},
        "units": [
            {
                **dict(u.attrs),
                "id": u.id,
                "side": u.side,
                "bases": [
                    {**dict(b.attrs), "id": b.id, "x": 0.0, "y": 0.0, "width": 1.0, "depth": 1.0}
                    for b in u.bases
                ],
            }
            for u in game.units
        ],
    }
    if game.grid_box is not None:
        probe["grid"] = {"box": game.grid_box}
    probe.update(game.scene_extra)
    try:
        read_scene(probe, source)
    except SceneError as exc:
        raise GameError(source, exc.path, exc.detail) from None


# --------------------------------------------------------------------------------------------
# Typed access to the decoded TOML


class _Reader(DocumentReader):
    """The game's TOML (tables and arrays, `GameError`s), and what of it a scene can carry."""

    def __init__(self, source: str) -> None:
        super().__init__(source, GameError, "a table", "an array")

    def plain(self, value: Any, path: str, depth: int = 0) -> Any:
        """A value a scene (JSON) can carry: TOML dates and times cannot go into a scene, nor
        arrays and tables nested deeper than a scene's reader can follow."""
        if isinstance(value, dict | list) and depth >= MAX_ATTRIBUTE_DEPTH:
            raise self.fail(path, f"nested more than {MAX_ATTRIBUTE_DEPTH} arrays or tables deep")
        if isinstance(value, dict):
            return {k: self.plain(v, _join(path, k), depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [self.plain(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
        if isinstance(value, float):
            return self.number(value, path)
        if isinstance(value, bool | int | str):
            return value
        raise self.fail(
            path,
            f"got {self.describe(value)}; a scene attribute is a string, number, true/false, "
            "array or table (write a date as a string)",
        )


_join = join_path
