"""The scene loader (`rules.scene`): `umpire-scene/1` JSON into frozen values in millimetres, and
every bad input a `SceneError` naming the file, the path inside it and the accepted values."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rules.engine import load_scene, read_scene
from rules.errors import SceneError, UnknownIdError
from rules.scene import Cover, Footprint, Scene, TerrainKind
from tests.builders import base, rect, scene_doc, terrain, unit

RULESET_IDS = (
    "age-of-napoleon",
    "colonial-adventure",
    "europe-19c",
    "sepoys-and-soldiers",
    "skirmish-19c",
)
"""The five sheets of rules/sheets/README.md."""

TERRAIN_KINDS = (
    "woods",
    "town",
    "building",
    "hill",
    "rough",
    "stream",
    "river",
    "road",
    "bridge",
    "hedge",
    "wall",
    "fence",
    "fortification",
    "open",
)
"""The terrain kinds of the scene format (docs/formats.md)."""


def small_doc(unit_name: str = "cm") -> dict[str, Any]:
    """Two units of two bases each and one wood, in the contract's words."""
    return scene_doc(
        "skirmish-19c",
        [
            unit(
                "rifles",
                "british",
                [base("rifles-1", 20, 30, role="officer"), base("rifles-2", 24, 30)],
                type="infantry",
            ),
            unit(
                "zouaves",
                "french",
                [base("zouaves-1", 40, 95, facing=270), base("zouaves-2", 44, 95, facing=270)],
            ),
        ],
        unit=unit_name,
        terrain=[terrain("wood-1", "woods", rect(60, 40, 90, 70))],
    )


def write(tmp_path: Path, doc: Any, name: str = "scene.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Lengths in millimetres


@pytest.mark.parametrize(
    ("unit_name", "mm_per_unit"),
    [("mm", 1.0), ("cm", 10.0), ("in", 25.4)],  # 1 in = 2.54 cm = 25.4 mm exactly
)
def test_every_length_is_converted_to_mm(unit_name: str, mm_per_unit: float) -> None:
    doc = scene_doc(
        "age-of-napoleon",
        [
            unit(
                "guard",
                "french",
                [
                    base("guard-1", 12, 8, width=4, depth=2, uncertainty=0.5),
                    base("guard-2", 20, 8, diameter=3),
                ],
            )
        ],
        unit=unit_name,
        terrain=[terrain("hill-1", "hill", [[1, 2], [7, 2], [4, 6]])],
        width=180,
        depth=120,
        grid_box=10,
        uncertainty=0.25,
    )
    scene = read_scene(doc, "<t>")
    k = mm_per_unit
    assert scene.unit == unit_name
    assert scene.table_width == pytest.approx(180 * k)
    assert scene.table_depth == pytest.approx(120 * k)
    assert scene.grid_box == pytest.approx(10 * k)
    assert scene.uncertainty == pytest.approx(0.25 * k)
    g1, g2 = scene.units[0].bases
    assert (g1.x, g1.y) == (pytest.approx(12 * k), pytest.approx(8 * k))
    assert (g1.footprint.width, g1.footprint.depth) == (pytest.approx(4 * k), pytest.approx(2 * k))
    assert not g1.footprint.circle
    assert g1.uncertainty == pytest.approx(0.5 * k)
    assert g2.footprint.width == pytest.approx(3 * k)
    assert g2.footprint.circle
    assert scene.terrain[0].polygon == (
        (pytest.approx(1 * k), pytest.approx(2 * k)),
        (pytest.approx(7 * k), pytest.approx(2 * k)),
        (pytest.approx(4 * k), pytest.approx(6 * k)),
    )
    # Shown back in the scene's unit: 12 units in, 12 units out, written to one decimal.
    assert scene.show(g1.x) == {"mm": "12.0 mm", "cm": "12.0 cm", "in": '12.0"'}[unit_name]


def test_an_inch_is_exactly_25_4_mm() -> None:
    scene = read_scene(small_doc("in"), "<t>")
    # rifles-1 at x = 20 in = 20 * 25.4 = 508 mm; its base 2.5 in = 63.5 mm wide.
    rifles_1 = scene.base("rifles-1")
    assert rifles_1.x == pytest.approx(508.0, abs=1e-9)
    assert rifles_1.footprint.width == pytest.approx(63.5, abs=1e-9)


# --------------------------------------------------------------------------------------------
# Frozen values


def test_loaded_values_cannot_be_changed() -> None:
    scene = read_scene(small_doc(), "<t>")
    rifles = scene.unit_of("rifles")
    rifles_1 = rifles.bases[0]
    wood = scene.terrain[0]
    for value, name, new in [
        (scene, "unit", "in"),
        (scene, "table_width", 1.0),
        (rifles, "side", "french"),
        (rifles_1, "x", 0.0),
        (rifles_1.footprint, "width", 1.0),
        (wood, "kind", TerrainKind.OPEN),
    ]:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, new)


def test_collections_inside_a_scene_are_read_only() -> None:
    scene = read_scene(small_doc(), "<t>")
    rifles = scene.unit_of("rifles")
    assert isinstance(scene.units, tuple)
    assert isinstance(rifles.bases, tuple)
    assert isinstance(scene.terrain[0].polygon, tuple)
    with pytest.raises(TypeError):
        rifles.attrs["casualties"] = 3  # type: ignore[index]
    with pytest.raises(TypeError):
        scene.extra["phase"] = "shooting"  # type: ignore[index]


def test_the_scene_does_not_keep_the_callers_dict() -> None:
    doc = small_doc()
    doc["units"][0]["casualties"] = 1
    scene = read_scene(doc, "<t>")
    doc["units"][0]["casualties"] = 5
    doc["units"][0]["bases"][0]["x"] = 99
    assert scene.unit_of("rifles").get("casualties") == 1
    assert scene.base("rifles-1").x == pytest.approx(200.0)


# --------------------------------------------------------------------------------------------
# Defaults and optional keys


def test_defaults_of_a_base() -> None:
    doc = small_doc()
    doc["units"][0]["bases"] = [{"id": "rifles-1", "x": 20, "y": 30, "width": 2.5, "depth": 2.5}]
    scene = read_scene(doc, "<t>")
    rifles_1 = scene.base("rifles-1")
    assert rifles_1.facing == 0.0  # facing 0 = facing right (+x)
    assert rifles_1.figures == 1
    assert rifles_1.role is None
    assert rifles_1.uncertainty is None
    assert rifles_1.unit_id == "rifles"


def test_defaults_of_a_scene_and_terrain() -> None:
    doc = small_doc()
    del doc["terrain"]
    scene = read_scene(doc, "<t>")
    assert scene.terrain == ()
    assert scene.grid_box is None
    assert scene.uncertainty is None
    wood = read_scene(small_doc(), "<t>").terrain[0]
    assert wood.kind is TerrainKind.WOODS
    assert wood.cover is None  # the ruleset decides from the kind
    assert wood.enclosed is None


def test_given_optional_keys_are_kept() -> None:
    doc = small_doc()
    doc["terrain"][0].update(cover="hard", enclosed=False, name="Hougoumont orchard")
    doc["units"][0].update(casualties=2, disordered=True, formation="line", banner="95th")
    doc["units"][0]["bases"][0].update(figures=3, tag=10)
    doc["phase"] = "shooting"
    scene = read_scene(doc, "<t>")
    wood = scene.terrain[0]
    assert (wood.cover, wood.enclosed) == (Cover.HARD, False)
    assert wood.attrs["name"] == "Hougoumont orchard"
    rifles = scene.unit_of("rifles")
    assert rifles.get("type") == "infantry"
    assert rifles.get("quality") is None
    assert rifles.get("casualties") == 2
    assert rifles.get("disordered") is True
    assert rifles.get("formation") == "line"
    assert rifles.get("banner") == "95th"
    assert rifles.figures == 3 + 1
    assert scene.base("rifles-1").role == "officer"
    assert scene.base("rifles-1").attrs["tag"] == 10
    assert scene.extra["phase"] == "shooting"


@pytest.mark.parametrize(("given", "kept"), [(-90, 270.0), (450, 90.0), (360, 0.0), (45.5, 45.5)])
def test_facing_is_kept_in_0_to_360(given: float, kept: float) -> None:
    doc = small_doc()
    doc["units"][0]["bases"][0]["facing"] = given
    assert read_scene(doc, "<t>").base("rifles-1").facing == pytest.approx(kept)


def test_a_round_base_is_given_by_its_diameter() -> None:
    doc = small_doc()
    doc["units"][0]["bases"][0] = {"id": "rifles-1", "x": 20, "y": 30, "diameter": 3}
    rifles_1 = read_scene(doc, "<t>").base("rifles-1")
    assert rifles_1.footprint == Footprint(30.0, 30.0, circle=True)  # 3 cm = 30 mm across
    rect_base = read_scene(small_doc(), "<t>").base("rifles-2")
    assert rect_base.footprint == Footprint(25.0, 25.0, circle=False)


def test_a_closed_ring_polygon_drops_its_repeated_last_point() -> None:
    doc = small_doc()
    doc["terrain"][0]["polygon"] = [[60, 40], [90, 40], [90, 70], [60, 70], [60, 40]]
    wood = read_scene(doc, "<t>").terrain[0]
    assert wood.polygon == ((600.0, 400.0), (900.0, 400.0), (900.0, 700.0), (600.0, 700.0))


# --------------------------------------------------------------------------------------------
# Looking things up


def test_select_names_a_whole_unit_or_one_base() -> None:
    scene = read_scene(small_doc(), "<t>")
    assert [b.id for b in scene.select("zouaves")] == ["zouaves-1", "zouaves-2"]
    assert [b.id for b in scene.select("zouaves-2")] == ["zouaves-2"]
    with pytest.raises(UnknownIdError, match="'wood-9'"):
        scene.select("wood-9")


def test_unit_of_takes_a_unit_or_a_base_id() -> None:
    scene = read_scene(small_doc(), "<t>")
    assert scene.unit_of("rifles").id == "rifles"
    assert scene.unit_of("zouaves-2").id == "zouaves"
    with pytest.raises(UnknownIdError) as err:
        scene.unit_of("hussars")
    # The message lists the ids the scene has.
    assert "'hussars'" in str(err.value)
    for ident in ("rifles", "rifles-1", "zouaves", "zouaves-2"):
        assert ident in str(err.value)


def test_base_takes_only_a_base_id() -> None:
    scene = read_scene(small_doc(), "<t>")
    assert scene.base("rifles-2").x == pytest.approx(240.0)  # 24 cm
    with pytest.raises(UnknownIdError, match="'rifles'"):
        scene.base("rifles")  # a unit is not a base


def test_every_base_is_listed_once() -> None:
    scene = read_scene(small_doc(), "<t>")
    assert [b.id for b in scene.bases()] == ["rifles-1", "rifles-2", "zouaves-1", "zouaves-2"]
    assert scene.ids() == ["rifles", "rifles-1", "rifles-2", "zouaves", "zouaves-1", "zouaves-2"]
    assert scene.terrain_piece("wood-1").kind is TerrainKind.WOODS


def test_uncertainty_is_the_bases_then_the_scenes_then_2_mm() -> None:
    doc = small_doc()
    doc["units"][0]["bases"][0]["uncertainty"] = 0.1  # 0.1 cm = 1 mm
    scene = read_scene(doc, "<t>")
    assert scene.uncertainty_of(scene.base("rifles-1")) == pytest.approx(1.0)
    assert scene.uncertainty_of(scene.base("rifles-2")) == pytest.approx(2.0)
    doc["uncertainty"] = 0.3  # 3 mm for every base without its own
    scene = read_scene(doc, "<t>")
    assert scene.uncertainty_of(scene.base("rifles-1")) == pytest.approx(1.0)
    assert scene.uncertainty_of(scene.base("rifles-2")) == pytest.approx(3.0)


def test_the_example_scene_loads() -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "skirmish.json"
    scene = load_scene(example)
    assert isinstance(scene, Scene)
    assert scene.ruleset == "skirmish-19c"
    assert scene.source == str(example)
    # rifles-1 at (20, 30) cm = (200, 300) mm.
    assert (scene.base("rifles-1").x, scene.base("rifles-1").y) == (200.0, 300.0)
    assert scene.base("hart").footprint.circle


# --------------------------------------------------------------------------------------------
# Ids are unique across units, bases and terrain


@pytest.mark.parametrize(
    ("rename", "path", "first"),
    [
        # (where to write the clashing id, its path, where the id was first used)
        (lambda d: d["units"][1].update(id="rifles"), "units[1].id", "units[0].id"),
        (
            lambda d: d["units"][1]["bases"][0].update(id="rifles-2"),
            "units[1].bases[0].id",
            "units[0].bases[1].id",
        ),
        (
            lambda d: d["units"][0]["bases"][1].update(id="rifles-1"),
            "units[0].bases[1].id",
            "units[0].bases[0].id",
        ),
        (
            lambda d: d["units"][1]["bases"][0].update(id="rifles"),
            "units[1].bases[0].id",
            "units[0].id",
        ),
        (lambda d: d["units"][0].update(id="wood-1"), "units[0].id", "terrain[0].id"),
        (
            lambda d: d["units"][0]["bases"][0].update(id="wood-1"),
            "units[0].bases[0].id",
            "terrain[0].id",
        ),
        (
            lambda d: d["terrain"].append(terrain("wood-1", "hill", rect(0, 0, 5, 5))),
            "terrain[1].id",
            "terrain[0].id",
        ),
    ],
)
def test_ids_are_unique_across_the_whole_scene(
    tmp_path: Path, rename: Callable[[dict[str, Any]], None], path: str, first: str
) -> None:
    doc = small_doc()
    rename(doc)
    file = write(tmp_path, doc)
    with pytest.raises(SceneError) as err:
        load_scene(file)
    message = str(err.value)
    assert str(file) in message
    assert f": {path}:" in message
    assert "duplicate id" in message
    assert first in message
    assert err.value.path == path


# --------------------------------------------------------------------------------------------
# Bad input: file, path inside it, accepted values


def _drop(*keys: str | int) -> Callable[[dict[str, Any]], None]:
    """Delete the key at the end of a path of keys."""

    def edit(doc: dict[str, Any]) -> None:
        node: Any = doc
        for key in keys[:-1]:
            node = node[key]
        del node[keys[-1]]

    return edit


def _set(value: Any, *keys: str | int) -> Callable[[dict[str, Any]], None]:
    """Set the value at the end of a path of keys."""

    def edit(doc: dict[str, Any]) -> None:
        node: Any = doc
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value

    return edit


BASE_1_1 = ("units", 0, "bases", 1)

BAD_SCENES = [
    # (case, edit of the good document, JSON path, fragments the message must hold)
    ("missing key", _drop(*BASE_1_1, "x"), "units[0].bases[1].x", ["missing"]),
    ("missing units", _drop("units"), "units", ["missing"]),
    ("missing side", _drop("units", 1, "side"), "units[1].side", ["missing"]),
    ("wrong type", _set("ten", *BASE_1_1, "x"), "units[0].bases[1].x", ["number", "'ten'"]),
    ("bool for number", _set(True, *BASE_1_1, "y"), "units[0].bases[1].y", ["number", "true"]),
    ("null for number", _set(None, "table", "depth"), "table.depth", ["number", "null"]),
    (
        "unknown unit",
        _set("furlong", "unit"),
        "unit",
        ["'furlong'", "'mm'", "'cm'", "'in'"],
    ),
    (
        "wrong format",
        _set("umpire-scene/2", "format"),
        "format",
        ["'umpire-scene/2'", "'umpire-scene/1'"],
    ),
    ("unknown ruleset", _set("chess", "ruleset"), "ruleset", ["'chess'", *RULESET_IDS]),
    (
        "unknown kind",
        _set("swamp", "terrain", 0, "kind"),
        "terrain[0].kind",
        ["'swamp'", *(f"'{k}'" for k in TERRAIN_KINDS)],
    ),
    (
        "unknown cover",
        _set("thick", "terrain", 0, "cover"),
        "terrain[0].cover",
        ["'thick'", "'none'", "'soft'", "'hard'"],
    ),
    (
        "polygon of 2 points",
        _set([[0, 0], [10, 0]], "terrain", 0, "polygon"),
        "terrain[0].polygon",
        ["3 points", "2"],
    ),
    (
        "self-crossing polygon",  # a lopsided bow tie: edge 0-1 (y = x) crosses edge 2-3
        _set([[0, 0], [10, 10], [10, 0], [0, 4]], "terrain", 0, "polygon"),
        "terrain[0].polygon",
        ["cross"],
    ),
    (
        "polygon on one line",
        _set([[0, 0], [5, 0], [10, 0]], "terrain", 0, "polygon"),
        "terrain[0].polygon",
        ["area"],
    ),
    (
        "polygon point not a pair",
        _set([[0, 0], [10, 0, 3], [10, 10]], "terrain", 0, "polygon"),
        "terrain[0].polygon[1]",
        ["[x, y]"],
    ),
    (
        "polygon not a list",
        _set("square", "terrain", 0, "polygon"),
        "terrain[0].polygon",
        ["list", "'square'"],
    ),
    ("negative width", _set(-180, "table", "width"), "table.width", ["greater than 0", "-180"]),
    ("zero grid box", _set({"box": 0}, "grid"), "grid.box", ["greater than 0"]),
    ("table not an object", _set([180, 120], "table"), "table", ["object", "list"]),
    ("units not a list", _set({"id": "rifles"}, "units"), "units", ["list", "object"]),
    ("unit without bases", _set([], "units", 0, "bases"), "units[0].bases", ["at least one"]),
    ("base not an object", _set("rifles-2", *BASE_1_1), "units[0].bases[1]", ["object"]),
    (
        "base without size",
        lambda d: [_drop(*BASE_1_1, k)(d) for k in ("width", "depth")],
        "units[0].bases[1]",
        ["width", "depth", "diameter"],
    ),
    ("width without depth", _drop(*BASE_1_1, "depth"), "units[0].bases[1].depth", ["missing"]),
    (
        "diameter and width",
        _set(3, *BASE_1_1, "diameter"),
        "units[0].bases[1]",
        ["diameter", "width"],
    ),
    ("no figures", _set(0, *BASE_1_1, "figures"), "units[0].bases[1].figures", ["at least 1"]),
    (
        "half a figure",
        _set(1.5, *BASE_1_1, "figures"),
        "units[0].bases[1].figures",
        ["whole number", "1.5"],
    ),
    ("empty id", _set("  ", "units", 0, "id"), "units[0].id", ["non-empty string"]),
    ("numeric id", _set(7, *BASE_1_1, "id"), "units[0].bases[1].id", ["string", "7"]),
    (
        "negative casualties",
        _set(-1, "units", 0, "casualties"),
        "units[0].casualties",
        ["a whole number from 0", "-1"],
    ),
    ("yes for a bool", _set("yes", "units", 1, "loaded"), "units[1].loaded", ["true or false"]),
    (
        "enclosed not a bool",
        _set(1, "terrain", 0, "enclosed"),
        "terrain[0].enclosed",
        ["true or false"],
    ),
    ("negative uncertainty", _set(-0.1, "uncertainty"), "uncertainty", ["at least 0"]),
]


@pytest.mark.parametrize(
    ("edit", "path", "fragments"),
    [pytest.param(edit, path, fragments, id=case) for case, edit, path, fragments in BAD_SCENES],
)
def test_a_bad_scene_names_file_path_and_accepted_values(
    tmp_path: Path,
    edit: Callable[[dict[str, Any]], None],
    path: str,
    fragments: list[str],
) -> None:
    doc = copy.deepcopy(small_doc())
    edit(doc)
    file = write(tmp_path, doc, "bad-scene.json")
    with pytest.raises(SceneError) as err:
        load_scene(file)
    message = str(err.value)
    assert message.startswith(f"{file}: {path}: "), message
    assert err.value.path == path
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        pytest.param("", ["not valid JSON", "line 1 column 1"], id="empty file"),
        pytest.param('{\n  "format": "umpire-scene/1",\n  "unit": cm\n}', ["line 3"], id="bad"),
        pytest.param("[1, 2]", ["object", "list"], id="array at top"),
        pytest.param('"umpire-scene/1"', ["object", "'umpire-scene/1'"], id="string at top"),
        pytest.param('{"format": NaN}', ["NaN"], id="NaN"),
        pytest.param('{"format": -Infinity}', ["-Infinity"], id="-Infinity"),
        pytest.param(
            '{"format": "umpire-scene/1", "format": "umpire-scene/1"}',
            ["'format'", "twice"],
            id="duplicate key",
        ),
        pytest.param("[" * 100_000 + "]" * 100_000, ["deep"], id="nested too deep"),
    ],
)
def test_a_file_that_is_not_a_json_object_names_the_file(
    tmp_path: Path, text: str, fragments: list[str]
) -> None:
    file = tmp_path / "scene.json"
    file.write_text(text, encoding="utf-8")
    with pytest.raises(SceneError) as err:
        load_scene(file)
    message = str(err.value)
    assert message.startswith(f"{file}: "), message
    assert message.count(str(file)) == 1, message  # named once, not again inside
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_nan_inside_the_scene_is_refused(tmp_path: Path) -> None:
    doc = small_doc()
    doc["units"][0]["bases"][1]["x"] = float("nan")
    file = tmp_path / "nan.json"
    file.write_text(json.dumps(doc), encoding="utf-8")  # json.dumps writes the bare NaN
    assert '"x": NaN' in file.read_text(encoding="utf-8")
    with pytest.raises(SceneError, match="NaN"):
        load_scene(file)


def test_a_file_that_cannot_be_read_names_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    with pytest.raises(SceneError, match="no such file") as err:
        load_scene(missing)
    assert str(missing) in str(err.value)
    with pytest.raises(SceneError, match="folder") as err:
        load_scene(tmp_path)
    assert str(tmp_path) in str(err.value)
    latin = tmp_path / "latin.json"
    latin.write_bytes('{"ruleset": "caf\u00e9"}'.encode("latin-1"))
    with pytest.raises(SceneError, match="UTF-8") as err:
        load_scene(latin)
    assert str(latin) in str(err.value)


def test_parse_scene_names_its_source() -> None:
    doc = small_doc()
    doc["unit"] = "yd"
    with pytest.raises(SceneError) as err:
        read_scene(doc, "camera frame 12")
    assert str(err.value).startswith("camera frame 12: unit: ")


# --------------------------------------------------------------------------------------------
# Inputs that once slipped past the loader.


@pytest.mark.parametrize(
    ("edit", "path", "accepted"),
    [
        (_drop("unit"), "unit", ["'mm'", "'cm'", "'in'"]),
        (_drop("format"), "format", ["'umpire-scene/1'"]),
        (_drop("ruleset"), "ruleset", list(RULESET_IDS)),
        (_drop("terrain", 0, "kind"), "terrain[0].kind", ["'woods'", "'open'"]),
    ],
)
def test_a_missing_closed_set_key_lists_the_accepted_values(
    edit: Callable[[dict[str, Any]], None], path: str, accepted: list[str]
) -> None:
    doc = small_doc()
    edit(doc)
    with pytest.raises(SceneError) as err:
        read_scene(doc, "scene.json")
    message = str(err.value)
    assert message.startswith(f"scene.json: {path}: ")
    for value in accepted:
        assert value in message, (value, message)


def _rename(old: str, new: str, *keys: str | int) -> Callable[[dict[str, Any]], None]:
    """Rename the key `old` of the object at the end of a path of keys to `new`."""

    def edit(doc: dict[str, Any]) -> None:
        node: Any = doc
        for key in keys:
            node = node[key]
        node[new] = node.pop(old)

    return edit


def _nested(depth: int) -> list[Any]:
    """A list nested `depth` lists deep."""
    deep: list[Any] = []
    for _ in range(depth):
        deep = [deep]
    return deep


REFUSED = [
    # (case, edit of the good document, the whole message after `scene.json: `), worked out
    # from the format and the fields skirmish-19c declares.
    (
        "misspelt required key",  # CONTRACT's own typo: `widht` for `width`
        _rename("width", "widht", "units", 0, "bases", 0),
        "units[0].bases[0].width: missing (required); 'widht' is given: did you mean 'width'?",
    ),
    (
        # Shoelace of (0,0) (10,10) (10,0) (0,10): 0 - 100 + 100 + 0 = 0, but the crossing of
        # edge 0-1 and edge 2-3 at (5, 5) is found first.
        "symmetric bow tie",
        _set([[0, 0], [10, 10], [10, 0], [0, 10]], "terrain", 0, "polygon"),
        "terrain[0].polygon: not a simple polygon: edge 0-1 crosses edge 2-3",
    ),
    (
        "length overflowing in mm",  # 1e308 in is a float, 2.54e309 mm is not
        lambda d: [_set("in", "unit")(d), _set(1e308, *BASE_1_1, "x")(d)],
        "units[0].bases[1].x: expected a finite number of sensible size, got 1e+308",
    ),
    *(
        (
            f"flag {key}",
            _set("yes", "units", 0, key),
            f"units[0].{key}: unit 'rifles': {key} is 'yes'; accepted: true or false",
        )
        for key in ("loaded", "moved", "fired", "regular", "bayonet")
    ),
    *(
        (
            f"count {key} {value!r}",
            _set(value, "units", 0, key),
            f"units[0].{key}: unit 'rifles': {key} is {value!r}; accepted: a whole number from 0",
        )
        for key in ("casualties", "wounded", "strength")
        for value in ("two", -1, 2.0, True)
    ),
    (
        "another format",  # the one format this version reads, named as a choice is
        _set("umpire-scene/2", "format"),
        "format: got the string 'umpire-scene/2'; accepted values are 'umpire-scene/1'",
    ),
    (
        "flag nested thousands deep",  # quoted to reprlib's depth: six lists, then [...]
        _set(_nested(5000), "units", 0, "loaded"),
        "units[0].loaded: unit 'rifles': loaded is [[[[[[[...]]]]]]]; accepted: true or false",
    ),
]


@pytest.mark.parametrize(
    ("edit", "message"),
    [pytest.param(edit, message, id=case) for case, edit, message in REFUSED],
)
def test_a_refused_scene_is_one_message_naming_the_path_and_what_is_accepted(
    edit: Callable[[dict[str, Any]], None], message: str
) -> None:
    doc = small_doc()
    edit(doc)
    with pytest.raises(SceneError) as err:
        read_scene(doc, "scene.json")
    assert str(err.value) == f"scene.json: {message}"


def test_an_integer_too_large_for_a_float_is_a_scene_error(tmp_path: Path) -> None:
    doc = small_doc()
    doc["table"]["width"] = 10**400
    file = write(tmp_path, doc)
    with pytest.raises(SceneError, match=r"table\.width"):
        load_scene(file)


def test_an_integer_of_5000_digits_is_a_scene_error(tmp_path: Path) -> None:
    file = tmp_path / "digits.json"
    text = json.dumps(small_doc()).replace('"width": 180', '"width": 1' + "0" * 5000)
    file.write_text(text, encoding="utf-8")
    with pytest.raises(SceneError) as err:
        load_scene(file)
    assert str(file) in str(err.value)


# --------------------------------------------------------------------------------------------
# Unit state the camera cannot see: checked by the ruleset that reads it (its declared fields).


def test_a_key_no_ruleset_reads_is_kept_as_written() -> None:
    doc = small_doc()
    doc["units"][0]["overheated"] = "yes"  # not a skirmish-19c field, nor close to one
    assert read_scene(doc, "scene.json").units[0].get("overheated") == "yes"


def test_state_is_kept_on_the_unit() -> None:
    doc = small_doc()
    doc["units"][0].update(overheated=True, bases_removed=2, formation="line")
    unit0 = read_scene(doc, "scene.json").units[0]
    assert unit0.get("overheated") is True
    assert unit0.get("bases_removed") == 2
    assert unit0.get("formation") == "line"


def test_a_scene_built_in_code_refuses_a_unit_with_no_bases() -> None:
    """Every length of a unit is measured from its bases: a unit without any is refused when
    the scene is made, naming it, rather than measured as if it stood somewhere."""
    from rules.scene import Base, Footprint, Scene, Unit

    base = Base("a1", "a", 100.0, 100.0, 0.0, Footprint(40.0, 20.0))
    with pytest.raises(ValueError, match="units with no bases: b"):
        units = (Unit("a", "red", (base,)), Unit("b", "blue", ()))
        Scene(ruleset="r", unit="cm", table_width=1800.0, table_depth=1200.0, units=units)
