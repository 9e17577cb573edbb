"""The game file (`vision.game`): its TOML (docs/formats.md) into frozen values in millimetres, tag
settings inherited from the most specific level, and every bad input a `GameError` naming the
file, the path inside it and what is accepted."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable
from pathlib import Path

import cv2
import pytest

from rules.errors import UmpireError
from rules.scene import Cover, Footprint, TerrainKind
from vision.game import (
    GameError,
    TagRole,
    TagSpec,
    game_tags,
    load_game,
    parse_game,
)
from vision.tags import OPENCV_DICTIONARIES, family_size, pattern_family

REPO = Path(__file__).resolve().parents[1]

FORMATS_EXAMPLE = """\
ruleset = "skirmish-19c"
unit = "cm"

[table]
width = 180
depth = 120

[calibration]
family = "tag36h11"
tag_size = 6.0                                        # black-border edge length of the corner tags
corners = { 0 = [4, 4], 1 = [176, 4], 2 = [176, 116], 3 = [4, 116] }   # tag id -> its centre

[[units]]
id = "rifles"
side = "british"
type = "infantry"
quality = "veteran"
weapon = "rifle"
tag_size = 1.6                                        # default for this unit's bases
height = 0.3                                          # tag surface above the table
bases = [
  { id = "rifles-1", tag = 10, width = 2.5, depth = 2.5, role = "officer" },
  { id = "rifles-2", tag = 11, width = 2.5, depth = 2.5 },
]

[[terrain]]
id = "wood-1"
kind = "woods"
cover = "soft"
enclosed = true
tag = 100
tag_size = 4.0
polygon = [[-15, -10], [15, -10], [15, 10], [-15, 10]]  # in the tag's own frame: +y = tag's top
"""
"""The example game file of docs/formats.md, verbatim."""


def flat(points: tuple[tuple[float, float], ...]) -> list[float]:
    """A polygon's coordinates in one list, for `pytest.approx`."""
    return [c for p in points for c in p]


def write(tmp_path: Path, text: str, name: str = "game.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_contract_example_loads_in_millimetres(tmp_path: Path) -> None:
    game = load_game(write(tmp_path, FORMATS_EXAMPLE))
    assert game.ruleset == "skirmish-19c"
    assert game.unit == "cm"
    # 180 x 120 cm = 1800 x 1200 mm
    assert (game.table_width, game.table_depth) == pytest.approx((1800.0, 1200.0))
    assert game.grid_box is None
    assert game.camera is None

    cal = game.calibration
    assert cal.spec == TagSpec("tag36h11", 1, pytest.approx(60.0), 0.0)  # type: ignore[arg-type]
    # corner centres: [4, 4] cm = (40, 40) mm, [176, 116] cm = (1760, 1160) mm
    assert [(c.tag, c.x, c.y) for c in cal.corners] == [
        (0, pytest.approx(40.0), pytest.approx(40.0)),
        (1, pytest.approx(1760.0), pytest.approx(40.0)),
        (2, pytest.approx(1760.0), pytest.approx(1160.0)),
        (3, pytest.approx(40.0), pytest.approx(1160.0)),
    ]

    (rifles,) = game.units
    assert (rifles.id, rifles.side) == ("rifles", "british")
    assert dict(rifles.attrs) == {"type": "infantry", "quality": "veteran", "weapon": "rifle"}
    one, two = rifles.bases
    assert (one.id, one.tag, one.role) == ("rifles-1", 10, "officer")
    assert (two.id, two.tag, two.role) == ("rifles-2", 11, None)
    for b in (one, two):
        # the unit's tag_size 1.6 cm = 16 mm and height 0.3 cm = 3 mm; family by default tag36h11
        assert b.spec.family == "tag36h11"
        assert b.spec.border_bits == 1
        assert b.spec.size == pytest.approx(16.0)
        assert b.spec.height == pytest.approx(3.0)
        assert b.footprint == Footprint(pytest.approx(25.0), pytest.approx(25.0))  # type: ignore[arg-type]
        assert (b.offset, b.facing_offset, b.figures) == ((0.0, 0.0), 0.0, 1)

    (wood,) = game.terrain
    assert (wood.id, wood.kind, wood.cover, wood.enclosed) == (
        "wood-1",
        TerrainKind.WOODS,
        Cover.SOFT,
        True,
    )
    assert wood.tag == 100
    assert wood.spec is not None
    assert wood.spec.size == pytest.approx(40.0)  # 4.0 cm
    # [-15, -10] cm ... in the tag's frame = (-150, -100) mm ...
    assert flat(wood.polygon) == pytest.approx([-150, -100, 150, -100, 150, 100, -150, 100])


def test_game_values_cannot_be_changed() -> None:
    game = parse_game(tomllib.loads(FORMATS_EXAMPLE), "<t>")
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.unit = "in"  # type: ignore[misc]
    with pytest.raises(TypeError):
        game.units[0].attrs["type"] = "cavalry"  # type: ignore[index]


def test_game_tags_lists_every_tag_with_what_it_is_on() -> None:
    game = parse_game(tomllib.loads(FORMATS_EXAMPLE), "<t>")
    tags = [
        (t.family, t.border_bits, t.id, t.size, t.role, t.owner, t.unit) for t in game_tags(game)
    ]
    assert tags == [
        ("tag36h11", 1, 0, pytest.approx(60.0), TagRole.CORNER, "corner-0", None),
        ("tag36h11", 1, 1, pytest.approx(60.0), TagRole.CORNER, "corner-1", None),
        ("tag36h11", 1, 2, pytest.approx(60.0), TagRole.CORNER, "corner-2", None),
        ("tag36h11", 1, 3, pytest.approx(60.0), TagRole.CORNER, "corner-3", None),
        ("tag36h11", 1, 10, pytest.approx(16.0), TagRole.BASE, "rifles-1", "rifles"),
        ("tag36h11", 1, 11, pytest.approx(16.0), TagRole.BASE, "rifles-2", "rifles"),
        ("tag36h11", 1, 100, pytest.approx(40.0), TagRole.TERRAIN, "wood-1", None),
    ]
    heights = [t.height for t in game_tags(game)]
    assert heights == pytest.approx([0, 0, 0, 0, 3.0, 3.0, 0])  # the unit's 0.3 cm


# --------------------------------------------------------------------------------------------
# Inheritance of family, border_bits, tag_size and height: the most specific level wins

LAYERED = """\
ruleset = "skirmish-19c"
unit = "in"
family = "DICT_4X4_50"
tag_size = 1.0
height = 0.25

[table]
width = 72
depth = 48

[calibration]
family = "tag36h11"
border_bits = 2
tag_size = 3
height = 0
corners = { 0 = [1, 1], 1 = [71, 1], 2 = [71, 47], 3 = [1, 47] }

[[units]]
id = "guns"
side = "union"
tag_size = 0.75
bases = [
  { id = "gun-1", tag = 0, width = 2, depth = 3 },
  { id = "gun-2", tag = 1, width = 2, depth = 3, family = "tag25h9", tag_size = 0.5, height = 0 },
]

[[units]]
id = "scouts"
side = "union"
family = "tag16h5"
border_bits = 2
bases = [{ id = "scout-1", tag = 0, diameter = 1 }]

[[terrain]]
id = "hill"
kind = "hill"
tag = 2
polygon = [[-5, -5], [5, -5], [0, 5]]

[[terrain]]
id = "barn"
kind = "building"
tag = 3
family = "tagStandard41h12"
tag_size = 2
polygon = [[-1, -1], [1, -1], [1, 1], [-1, 1]]
"""


def test_the_most_specific_level_wins() -> None:
    game = parse_game(tomllib.loads(LAYERED), "<layered>")
    guns, scouts = game.units
    hill, barn = game.terrain
    specs = {
        "corners": game.calibration.spec,
        "gun-1": guns.bases[0].spec,
        "gun-2": guns.bases[1].spec,
        "scout-1": scouts.bases[0].spec,
        "hill": hill.spec,
        "barn": barn.spec,
    }
    # 1 in = 25.4 mm: 3 in = 76.2, 1 in = 25.4, 0.75 in = 19.05, 0.5 in = 12.7, 0.25 in = 6.35
    assert specs == {
        # [calibration] overrides every top-level setting
        "corners": TagSpec("tag36h11", 2, pytest.approx(76.2), 0.0),  # type: ignore[arg-type]
        # the unit's tag_size over the top's; family and height from the top
        "gun-1": TagSpec("DICT_4X4_50", 1, pytest.approx(19.05), pytest.approx(6.35)),  # type: ignore[arg-type]
        # the base's own family, size and height over the unit's and the top's
        "gun-2": TagSpec("tag25h9", 1, pytest.approx(12.7), 0.0),  # type: ignore[arg-type]
        # the unit's family and border_bits; size and height from the top
        "scout-1": TagSpec("tag16h5", 2, pytest.approx(25.4), pytest.approx(6.35)),  # type: ignore[arg-type]
        # a card inherits the top level only (not [calibration] nor a unit)
        "hill": TagSpec("DICT_4X4_50", 1, pytest.approx(25.4), pytest.approx(6.35)),  # type: ignore[arg-type]
        "barn": TagSpec("tagStandard41h12", 1, pytest.approx(50.8), pytest.approx(6.35)),  # type: ignore[arg-type]
    }


def test_one_id_may_be_used_once_in_each_family() -> None:
    # LAYERED uses id 0 in tag36h11 (a corner), DICT_4X4_50 (gun-1) and tag16h5 (scout-1).
    game = parse_game(tomllib.loads(LAYERED), "<layered>")
    zeros = sorted((t.family, t.owner) for t in game_tags(game) if t.id == 0)
    assert zeros == [
        ("DICT_4X4_50", "gun-1"),
        ("tag16h5", "scout-1"),
        ("tag36h11", "corner-0"),
    ]


def test_offset_facing_offset_and_extra_keys_are_kept() -> None:
    text = FORMATS_EXAMPLE.replace(
        '{ id = "rifles-2", tag = 11, width = 2.5, depth = 2.5 }',
        '{ id = "rifles-2", tag = 11, width = 2.5, depth = 5, offset = [0.5, -1.25], '
        'facing_offset = -90, figures = 3, label = "B" }',
    )
    game = parse_game(tomllib.loads(text), "<t>")
    rifles_2 = game.units[0].bases[1]
    assert rifles_2.offset == pytest.approx((5.0, -12.5))  # [0.5, -1.25] cm
    assert rifles_2.facing_offset == pytest.approx(270.0)  # -90 degrees kept in [0, 360)
    assert rifles_2.figures == 3
    assert dict(rifles_2.attrs) == {"label": "B"}


def test_a_fixed_terrain_polygon_and_a_camera() -> None:
    text = FORMATS_EXAMPLE + (
        '\n[[terrain]]\nid = "lane"\nkind = "road"\npolygon = [[0, 50], [180, 50], [180, 55]]\n'
        "\n[camera]\nmatrix = [[1400, 0, 960], [0, 1400, 540], [0, 0, 1]]\n"
        "distortion = [-0.1, 0.02, 0.001, -0.002, 0.0005]\n"
    )
    game = parse_game(tomllib.loads(text), "<t>")
    lane = game.terrain[1]
    assert (lane.tag, lane.spec, lane.kind) == (None, None, TerrainKind.ROAD)
    assert flat(lane.polygon) == pytest.approx([0, 500, 1800, 500, 1800, 550])
    assert game.camera is not None
    assert game.camera.matrix == ((1400, 0, 960), (0, 1400, 540), (0, 0, 1))
    assert game.camera.distortion == pytest.approx((-0.1, 0.02, 0.001, -0.002, 0.0005))


def test_the_skirmish_example_game_loads() -> None:
    game = load_game(REPO / "examples" / "games" / "skirmish.toml")
    assert [u.id for u in game.units] == ["rifles", "zouaves", "hussars", "captain-hart"]
    assert [c.tag for c in game.calibration.corners] == [0, 1, 2, 3]
    base_tags = [b.tag for u in game.units for b in u.bases]
    assert min(base_tags) >= 10
    assert {t.id for t in game.terrain} == {"wood-1", "farm", "wall-1"}


@pytest.mark.parametrize(("family", "size"), sorted(OPENCV_DICTIONARIES.items()))
def test_aruco_dictionary_names_and_sizes_are_opencvs(family: str, size: int) -> None:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, family))
    assert dictionary.bytesList.shape[0] == size


@pytest.mark.parametrize(
    ("family", "same_as"),
    [
        ("tag36h11", "DICT_APRILTAG_36h11"),
        ("tag25h9", "DICT_APRILTAG_25h9"),
        ("tag16h5", "DICT_APRILTAG_16h5"),
    ],
)
def test_apriltag_family_sizes_match_opencvs_copy(family: str, same_as: str) -> None:
    assert pattern_family(same_as) == family
    assert family_size(family) == OPENCV_DICTIONARIES[same_as]


# --------------------------------------------------------------------------------------------
# Bad input: a GameError naming the file, the path inside it and what is accepted

MINIMAL = """\
ruleset = "skirmish-19c"
unit = "cm"
tag_size = 2

[table]
width = 180
depth = 120

[calibration]
corners = { 0 = [4, 4], 1 = [176, 4], 2 = [176, 116], 3 = [4, 116] }

[[units]]
id = "rifles"
side = "british"
type = "infantry"
bases = [
  { id = "rifles-1", tag = 10, width = 2.5, depth = 2.5 },
  { id = "rifles-2", tag = 11, width = 2.5, depth = 2.5 },
]

[[terrain]]
id = "wood-1"
kind = "woods"
tag = 100
polygon = [[-15, -10], [15, -10], [15, 10], [-15, 10]]
"""


def edit(old: str, new: str) -> str:
    assert old in MINIMAL, old
    return MINIMAL.replace(old, new, 1)


BASE_1 = '{ id = "rifles-1", tag = 10, width = 2.5, depth = 2.5 }'
BASE_2 = '{ id = "rifles-2", tag = 11, width = 2.5, depth = 2.5 }'
WOOD_POLYGON = "polygon = [[-15, -10], [15, -10], [15, 10], [-15, 10]]"
SECOND_UNIT = (
    '\n[[units]]\nid = "zouaves"\nside = "french"\n'
    'bases = [{ id = "%s", tag = %s, width = 2.5, depth = 2.5 }]\n'
)

BAD = [
    # (case, text, path, fragments the message must hold)
    ("toml syntax", edit('unit = "cm"', 'unit = "cm'), "", ["not valid TOML", "line 2"]),
    (
        "missing ruleset",
        edit('ruleset = "skirmish-19c"\n', ""),
        "ruleset",
        ["missing", "'skirmish-19c'"],
    ),
    ("unknown ruleset", edit('"skirmish-19c"', '"chess"'), "ruleset", ["'chess'", "skirmish-19c"]),
    (
        "unknown unit",
        edit('unit = "cm"', 'unit = "furlong"'),
        "unit",
        ["'furlong'", "'mm', 'cm' or 'in'"],
    ),
    (
        "wrong type",
        edit("depth = 120", 'depth = "120"'),
        "table.depth",
        ["expected a number", "'120'"],
    ),
    ("non-positive table", edit("width = 180", "width = -180"), "table.width", ["greater than 0"]),
    ("missing table", edit("[table]\nwidth = 180\ndepth = 120\n", ""), "table", ["missing"]),
    (
        "calibration misspelt",
        edit("[calibration]\n", "[calibrate]\n"),
        "calibrate",
        ["did you mean 'calibration'"],
    ),
    ("missing calibration", edit("[calibration]\n", "[notes]\n"), "calibration", ["missing"]),
    (
        "too few corners",
        edit(", 3 = [4, 116] }", " }"),
        "calibration.corners",
        ["at least 4", "got 3"],
    ),
    (
        "corner key",
        edit("3 = [4, 116]", "three = [4, 116]"),
        "calibration.corners.three",
        ["tag id"],
    ),
    (
        "corner twice at one place",
        edit("3 = [4, 116]", "3 = [176, 116]"),
        "calibration.corners.3",
        ["same place as corner 2"],
    ),
    ("corner point", edit("3 = [4, 116]", "3 = [4]"), "calibration.corners.3", ["[x, y]"]),
    (
        "unknown family",
        edit(BASE_2, BASE_2[:-2] + ', family = "tag99h1" }'),
        "units[0].bases[1].family",
        ["'tag99h1'", "'tag36h11'", "'DICT_4X4_50'"],
    ),
    (
        "border bits",
        edit("tag_size = 2\n", "tag_size = 2\nborder_bits = 3\n"),
        "border_bits",
        ["got 3", "1 or 2"],
    ),
    (
        "unknown kind",
        edit('kind = "woods"', 'kind = "swamp"'),
        "terrain[0].kind",
        ["'swamp'", "'woods'", "'open'"],
    ),
    (
        "unknown cover",
        edit('kind = "woods"', 'kind = "woods"\ncover = "thick"'),
        "terrain[0].cover",
        ["'soft'", "'hard'"],
    ),
    (
        "enclosed not bool",
        edit('kind = "woods"', 'kind = "woods"\nenclosed = "yes"'),
        "terrain[0].enclosed",
        ["true or false"],
    ),
    (
        "duplicate base id",
        edit('id = "rifles-2"', 'id = "rifles-1"'),
        "units[0].bases[1].id",
        ["duplicate id 'rifles-1'", "units[0].bases[0].id", "unique"],
    ),
    (
        "unit id equal to a terrain id",
        MINIMAL + SECOND_UNIT % ("wood-1", 12),
        "terrain[0].id",
        ["duplicate id 'wood-1'", "units[1].bases[0].id"],
    ),
    (
        "base tag equal to a corner tag",
        edit("tag = 10", "tag = 3"),
        "units[0].bases[0].tag",
        ["tag 3 of tag36h11", "corner 3", "cannot share a tag of one family"],
    ),
    (
        "two bases share a tag",
        MINIMAL + SECOND_UNIT % ("zouaves-1", 11),
        "units[1].bases[0].tag",
        ["tag 11", "rifles-2 (units[0].bases[1].tag)"],
    ),
    (
        "terrain tag equal to a base tag",
        edit("tag = 100", "tag = 10"),
        "terrain[0].tag",
        ["tag 10", "rifles-1"],
    ),
    (
        "the same marker under its OpenCV name",
        edit(
            BASE_2,
            '{ id = "rifles-2", tag = 10, width = 2.5, depth = 2.5, '
            'family = "DICT_APRILTAG_36h11" }',
        ),
        "units[0].bases[1].tag",
        ["tag 10 of DICT_APRILTAG_36h11", "rifles-1"],
    ),
    (
        "tag outside the family",
        edit("tag = 100", 'tag = 30\nfamily = "tag16h5"'),
        "terrain[0].tag",
        ["ids 0 to 29"],
    ),
    ("negative tag", edit("tag = 10", "tag = -1"), "units[0].bases[0].tag", ["at least 0"]),
    (
        "tag not a whole number",
        edit("tag = 10", "tag = 10.5"),
        "units[0].bases[0].tag",
        ["whole number"],
    ),
    (
        "no tag size anywhere",
        edit("tag_size = 2\n", ""),
        "calibration.tag_size",
        ["missing", "black-border edge"],
    ),
    (
        "zero tag size",
        edit(BASE_1, BASE_1[:-2] + ", tag_size = 0 }"),
        "units[0].bases[0].tag_size",
        ["greater than 0"],
    ),
    (
        "negative height",
        edit("tag_size = 2\n", "tag_size = 2\nheight = -0.1\n"),
        "height",
        ["at least 0"],
    ),
    (
        "zero base size",
        edit("tag = 10, width = 2.5", "tag = 10, width = 0"),
        "units[0].bases[0].width",
        ["greater than 0"],
    ),
    (
        "no base size",
        edit(BASE_1, '{ id = "rifles-1", tag = 10 }'),
        "units[0].bases[0]",
        ["width and depth", "diameter"],
    ),
    (
        "diameter and width",
        edit(BASE_1, BASE_1[:-2] + ", diameter = 2 }"),
        "units[0].bases[0]",
        ["either diameter", "not both"],
    ),
    (
        "base position given",
        edit(BASE_1, BASE_1[:-2] + ", x = 20 }"),
        "units[0].bases[0].x",
        ["camera measures"],
    ),
    (
        "figures",
        edit(BASE_1, BASE_1[:-2] + ", figures = 0 }"),
        "units[0].bases[0].figures",
        ["at least 1"],
    ),
    (
        "offset",
        edit(BASE_1, BASE_1[:-2] + ", offset = 1 }"),
        "units[0].bases[0].offset",
        ["[x, y]"],
    ),
    (
        "facing offset",
        edit(BASE_1, BASE_1[:-2] + ', facing_offset = "left" }'),
        "units[0].bases[0].facing_offset",
        ["expected a number"],
    ),
    (
        "unit without bases",
        edit(f"  {BASE_1},\n  {BASE_2},\n", ""),
        "units[0].bases",
        ["at least one base"],
    ),
    ("unit without side", edit('side = "british"\n', ""), "units[0].side", ["missing"]),
    (
        "state of the wrong type",
        edit('type = "infantry"', 'casualties = "two"'),
        "units[0].casualties",
        ["whole number"],
    ),
    (
        "date attribute",
        edit('type = "infantry"', "raised = 1858-04-01"),
        "units[0].raised",
        ["date as a string"],
    ),
    ("nan", edit("width = 180", "width = nan"), "table.width", ["finite"]),
    (
        "crossing polygon",
        edit(WOOD_POLYGON, "polygon = [[-15, -10], [15, 10], [15, -10], [-15, 10]]"),
        "terrain[0].polygon",
        ["not a simple polygon", "crosses"],
    ),
    (
        "two-point polygon",
        edit(WOOD_POLYGON, "polygon = [[0, 0], [1, 1]]"),
        "terrain[0].polygon",
        ["at least 3 points"],
    ),
    (
        "flat polygon",
        edit(WOOD_POLYGON, "polygon = [[0, 0], [1, 1], [2, 2]]"),
        "terrain[0].polygon",
        ["area is zero"],
    ),
    (
        "tag settings without a tag",
        edit("tag = 100\n", "tag_size = 4\n"),
        "terrain[0].tag_size",
        ["only a card with a tag"],
    ),
    (
        "camera matrix shape",
        MINIMAL + "\n[camera]\nmatrix = [[1400, 0, 960], [0, 1400, 540]]\n",
        "camera.matrix",
        ["3 x 3", "[[fx, 0, cx], [0, fy, cy], [0, 0, 1]]"],
    ),
    (
        "camera matrix bottom row",
        MINIMAL + "\n[camera]\nmatrix = [[1400, 0, 960], [0, 1400, 540], [0, 0, 2]]\n",
        "camera.matrix",
        ["3 x 3"],
    ),
    (
        "camera distortion",
        MINIMAL
        + "\n[camera]\nmatrix = [[1400, 0, 960], [0, 1400, 540], [0, 0, 1]]\n"
        + "distortion = [0.1, 0.01, 0]\n",
        "camera.distortion",
        ["[k1, k2, p1, p2]", "got 3 numbers"],
    ),
    (
        "grid ruleset without a grid",
        edit('"skirmish-19c"', '"age-of-napoleon"'),
        "grid",
        ["[grid] box"],
    ),
    ("no units", edit("[[units]]", "[[troops]]"), "units", ["missing"]),
]


@pytest.mark.parametrize(("case", "text", "path", "fragments"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_game_names_file_path_and_what_is_accepted(
    tmp_path: Path, case: str, text: str, path: str, fragments: list[str]
) -> None:
    source = write(tmp_path, text)
    with pytest.raises(GameError) as caught:
        load_game(source)
    err = caught.value
    assert isinstance(err, UmpireError)
    assert isinstance(err, ValueError)
    assert err.path == path
    message = str(err)
    assert message.startswith(f"{source}: {path}" if path else f"{source}: ")
    for fragment in fragments:
        assert fragment in message, (case, message)


def test_the_minimal_game_is_good() -> None:
    """The bad cases above are each one edit away from a good game."""
    game = parse_game(tomllib.loads(MINIMAL), "<minimal>")
    assert [b.id for b in game.units[0].bases] == ["rifles-1", "rifles-2"]


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda p: p / "nowhere.toml", "no such file"),
        (lambda p: p, "is a folder"),
    ],
)
def test_a_file_that_cannot_be_read_names_the_file(
    tmp_path: Path, make: Callable[[Path], Path], fragment: str
) -> None:
    path = make(tmp_path)
    with pytest.raises(GameError, match=fragment) as caught:
        load_game(path)
    assert str(caught.value).startswith(str(path))


def test_a_file_that_is_not_utf8_is_a_game_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(MINIMAL.replace("british", "britannique façon").encode("latin-1"))
    with pytest.raises(GameError, match="not UTF-8"):
        load_game(path)


def test_parse_game_of_a_non_table_names_its_source() -> None:
    with pytest.raises(GameError, match=r"^<doc>: expected a table"):
        parse_game(["not", "a", "table"], "<doc>")
