"""Building a scene from tags seen on the table (`vision.scene.build_scene`).

Observations are written by hand in the table frame (mm) with their corners in OpenCV's order
(the marker picture's top-left, top-right, bottom-right, bottom-left); every expected position,
facing and polygon is worked out by hand in a comment. The result must load with the rules'
scene loader and answer `umpire resolve ... measure`.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rules.engine import read_scene
from rules.errors import UnknownIdError
from tests.conftest import Ran, run_umpire
from vision.game import Game, load_game, parse_game
from vision.scene import ObservationError, TagObservation, build_scene

REPO = Path(__file__).resolve().parents[1]

GAME = """\
ruleset = "skirmish-19c"
unit = "cm"
tag_size = 2.0

[table]
width = 180
depth = 120

[calibration]
tag_size = 6.0
corners = { 0 = [4, 4], 1 = [176, 4], 2 = [176, 116], 3 = [4, 116] }

[[units]]
id = "rifles"
side = "british"
type = "infantry"
quality = "veteran"
weapon = "rifle"
regular = true
casualties = 0
bases = [
  { id = "rifles-1", tag = 10, width = 2.5, depth = 2.5, role = "officer" },
  { id = "rifles-2", tag = 11, width = 2.5, depth = 2.5 },
]

[[units]]
id = "zouaves"
side = "french"
type = "infantry"
quality = "veteran"
weapon = "rifled-musket"
bases = [{ id = "zouaves-1", tag = 20, width = 2.5, depth = 2.5, label = "front rank" }]

[[units]]
id = "hussars"
side = "french"
type = "cavalry"
bases = [{ id = "hussars-1", tag = 30, width = 2.5, depth = 5, offset = [0, -1.0] }]

[[units]]
id = "hart"
side = "british"
bases = [{ id = "hart-1", tag = 40, diameter = 2.5, facing_offset = 180, offset = [0, -1.0] }]

[[terrain]]
id = "wood-1"
kind = "woods"
cover = "soft"
enclosed = true
tag = 100
tag_size = 4.0
polygon = [[-15, -10], [15, -10], [15, 10], [-15, 10]]

[[terrain]]
id = "wall-1"
kind = "wall"
polygon = [[100, 60], [130, 60], [130, 61], [100, 61]]
"""


@pytest.fixture
def game() -> Game:
    return parse_game(tomllib.loads(GAME), "<game>")


def tag(tag_id: int, corners: Any, uncertainty: float = 0.2) -> TagObservation:
    return TagObservation("tag36h11", tag_id, np.array(corners), uncertainty)


# A 20 mm tag centred on (500, 300), its top edge towards +y (the far edge): corner 0 (top-left)
# at (490, 310), 1 (top-right) (510, 310), 2 (bottom-right) (510, 290), 3 (bottom-left) (490, 290).
UP_AT_500_300 = [[490, 310], [510, 310], [510, 290], [490, 290]]


def the_base(doc: dict[str, Any], ident: str) -> dict[str, Any]:
    return next(b for u in doc["units"] for b in u["bases"] if b["id"] == ident)


def the_terrain(doc: dict[str, Any], ident: str) -> dict[str, Any]:
    return next(t for t in doc["terrain"] if t["id"] == ident)


def flat(points: list[list[float]]) -> list[float]:
    return [c for p in points for c in p]


# --------------------------------------------------------------------------------------------
# Bases


def test_a_tag_whose_top_points_away_faces_90(game: Game) -> None:
    doc = build_scene(game, [tag(10, UP_AT_500_300)])
    rifles_1 = the_base(doc, "rifles-1")
    # the top edge's midpoint (500, 310) lies straight +y of the centre (500, 300): facing 90
    assert rifles_1["facing"] == pytest.approx(90.0)
    # no offset: the footprint is centred on the tag, (500, 300) mm = (50, 30) cm
    assert (rifles_1["x"], rifles_1["y"]) == pytest.approx((50.0, 30.0))
    assert (rifles_1["width"], rifles_1["depth"]) == pytest.approx((2.5, 2.5))
    assert rifles_1["role"] == "officer"
    assert rifles_1["figures"] == 1


def test_an_offset_in_the_bases_frame_moves_the_footprint(game: Game) -> None:
    doc = build_scene(game, [tag(30, UP_AT_500_300)])
    hussars_1 = the_base(doc, "hussars-1")
    # facing 90, so ahead = +y; offset [0, -1.0] cm = 10 mm behind the tag: (500, 290) mm
    assert hussars_1["facing"] == pytest.approx(90.0)
    assert (hussars_1["x"], hussars_1["y"]) == pytest.approx((50.0, 29.0))
    assert (hussars_1["width"], hussars_1["depth"]) == pytest.approx((2.5, 5.0))


def test_facing_offset_180_flips_the_facing_and_the_bases_frame(game: Game) -> None:
    doc = build_scene(game, [tag(40, UP_AT_500_300)])
    hart_1 = the_base(doc, "hart-1")
    # 90 + 180 = 270: the base faces the near edge; ahead = -y, so 10 mm behind it is +y:
    # (500, 310) mm = (50, 31) cm
    assert hart_1["facing"] == pytest.approx(270.0)
    assert (hart_1["x"], hart_1["y"]) == pytest.approx((50.0, 31.0))
    assert hart_1["diameter"] == pytest.approx(2.5)
    assert "width" not in hart_1


@pytest.mark.parametrize(
    ("corners", "facing", "x", "y"),
    [
        # top edge 0-1 on the right (x = 510): faces 0; 10 mm behind = (490, 300)
        ([[510, 310], [510, 290], [490, 290], [490, 310]], 0.0, 49.0, 30.0),
        # top edge on the left (x = 490): faces 180; 10 mm behind = (510, 300)
        ([[490, 290], [490, 310], [510, 310], [510, 290]], 180.0, 51.0, 30.0),
        # top edge at the bottom (y = 290): faces 270; 10 mm behind = (500, 310)
        ([[510, 290], [490, 290], [490, 310], [510, 310]], 270.0, 50.0, 31.0),
        # turned 45 degrees: corners at distance 10*sqrt(2) on the diagonals; top edge
        # midpoint (500 + 7.07, 300 + 7.07) -> facing 45; 10 mm behind = (492.93, 292.93)
        (
            [[500, 300 + 10 * 2**0.5], [500 + 10 * 2**0.5, 300], [500, 300 - 10 * 2**0.5],
             [500 - 10 * 2**0.5, 300]],
            45.0,
            50.0 - 0.5**0.5,
            30.0 - 0.5**0.5,
        ),
    ],
)  # fmt: skip
def test_facing_follows_the_tags_top_edge(
    game: Game, corners: list[list[float]], facing: float, x: float, y: float
) -> None:
    hussars_1 = the_base(build_scene(game, [tag(30, corners)]), "hussars-1")
    assert hussars_1["facing"] == pytest.approx(facing)
    assert (hussars_1["x"], hussars_1["y"]) == pytest.approx((x, y))


def test_a_sideways_offset_is_to_the_bases_right() -> None:
    game = parse_game(
        tomllib.loads(
            GAME.replace("offset = [0, -1.0] }]\n\n[[units]]", "offset = [0.5, 0] }]\n\n[[units]]")
        ),
        "<game>",
    )
    assert game.units[2].bases[0].offset == pytest.approx((5.0, 0.0))
    # tag top towards +x (facing 0): the base's right is -y, so 5 mm right = (500, 295)
    facing_right = [[510, 310], [510, 290], [490, 290], [490, 310]]
    hussars_1 = the_base(build_scene(game, [tag(30, facing_right)]), "hussars-1")
    assert (hussars_1["x"], hussars_1["y"]) == pytest.approx((50.0, 29.5))


def test_unit_attributes_and_base_extras_are_copied(game: Game) -> None:
    doc = build_scene(
        game, [tag(10, UP_AT_500_300), tag(20, [[10, 20], [30, 20], [30, 0], [10, 0]])]
    )
    rifles = next(u for u in doc["units"] if u["id"] == "rifles")
    assert {k: v for k, v in rifles.items() if k != "bases"} == {
        "id": "rifles",
        "side": "british",
        "type": "infantry",
        "quality": "veteran",
        "weapon": "rifle",
        "regular": True,
        "casualties": 0,
    }
    assert the_base(doc, "zouaves-1")["label"] == "front rank"
    assert the_base(doc, "rifles-1")["tag"] == 10


def test_state_is_merged_over_the_games_attributes(game: Game) -> None:
    doc = build_scene(
        game, [tag(10, UP_AT_500_300)], state={"rifles": {"casualties": 2, "loaded": False}}
    )
    rifles = doc["units"][0]
    assert (rifles["casualties"], rifles["loaded"], rifles["quality"]) == (2, False, "veteran")
    assert read_scene(doc).unit_of("rifles").attrs["casualties"] == 2


def test_state_for_an_unknown_unit_or_a_fixed_key_is_refused(game: Game) -> None:
    with pytest.raises(UnknownIdError, match="'ghosts'"):
        build_scene(game, [], state={"ghosts": {"casualties": 1}})
    with pytest.raises(ObservationError, match="'side'"):
        build_scene(game, [], state={"rifles": {"side": "french"}})


def test_each_bases_uncertainty_adds_the_common_one_in_quadrature(game: Game) -> None:
    doc = build_scene(game, [tag(10, UP_AT_500_300, uncertainty=0.3)], uncertainty=0.4)
    # sqrt(0.3^2 + 0.4^2) = 0.5 mm = 0.05 cm
    assert the_base(doc, "rifles-1")["uncertainty"] == pytest.approx(0.05)
    scene = read_scene(doc)
    assert scene.uncertainty_of(scene.base("rifles-1")) == pytest.approx(0.5)


# --------------------------------------------------------------------------------------------
# Terrain


def test_a_terrain_card_turned_90_degrees(game: Game) -> None:
    # A 40 mm tag centred on (800, 400), turned 90 degrees counter-clockwise: its top edge now
    # on the left. Corner 0 (picture top-left, (-20, +20) from the centre) turns to (-20, -20),
    # 1 (+20, +20) to (-20, +20), 2 (+20, -20) to (+20, +20), 3 (-20, -20) to (+20, -20).
    turned = [[780, 380], [780, 420], [820, 420], [820, 380]]
    doc = build_scene(game, [tag(100, turned)])
    wood = the_terrain(doc, "wood-1")
    # The tag's top now points -x and its right +y. A card point (px, py) cm lands at
    # (80 - py, 40 + px) cm:
    # (-15, -10) -> (90, 25); (15, -10) -> (90, 55); (15, 10) -> (70, 55); (-15, 10) -> (70, 25)
    assert flat(wood["polygon"]) == pytest.approx([90, 25, 90, 55, 70, 55, 70, 25])
    assert (wood["kind"], wood["cover"], wood["enclosed"]) == ("woods", "soft", True)


def test_an_upright_terrain_card_is_only_moved(game: Game) -> None:
    upright = [[780, 420], [820, 420], [820, 380], [780, 380]]
    wood = the_terrain(build_scene(game, [tag(100, upright)]), "wood-1")
    # (80 + px, 40 + py) cm
    assert flat(wood["polygon"]) == pytest.approx([65, 30, 95, 30, 95, 50, 65, 50])


def test_fixed_terrain_is_copied_whether_or_not_tags_are_seen(game: Game) -> None:
    wall = the_terrain(build_scene(game, []), "wall-1")
    assert wall["kind"] == "wall"
    assert flat(wall["polygon"]) == pytest.approx([100, 60, 130, 60, 130, 61, 100, 61])
    assert "cover" not in wall


# --------------------------------------------------------------------------------------------
# What could not be used is reported


def test_unknown_tags_are_reported_with_where_they_were(game: Game) -> None:
    doc = build_scene(game, [tag(10, UP_AT_500_300), tag(77, [[0, 20], [20, 20], [20, 0], [0, 0]])])
    # tag 77 is in no list of the game; its centre (10, 10) mm = (1, 1) cm
    (unknown,) = doc["detection"]["unknown_tags"]
    assert (unknown["family"], unknown["id"]) == ("tag36h11", 77)
    assert unknown["seen_at"] == pytest.approx([1.0, 1.0])
    assert doc["detection"]["tags_seen"] == 2


def test_a_tag_of_another_family_is_unknown(game: Game) -> None:
    other = TagObservation("DICT_4X4_50", 10, np.array(UP_AT_500_300), 0.2)
    doc = build_scene(game, [other])
    assert [(t["family"], t["id"]) for t in doc["detection"]["unknown_tags"]] == [
        ("DICT_4X4_50", 10)
    ]
    assert "rifles" in doc["detection"]["missing_units"]


def test_the_opencv_name_of_an_apriltag_family_finds_the_same_tag(game: Game) -> None:
    # DICT_APRILTAG_36h11 draws exactly the markers of tag36h11
    seen = TagObservation("DICT_APRILTAG_36h11", 10, np.array(UP_AT_500_300), 0.2)
    doc = build_scene(game, [seen])
    assert the_base(doc, "rifles-1")["x"] == pytest.approx(50.0)
    assert doc["detection"]["unknown_tags"] == []


def test_a_duplicate_tag_is_used_for_neither_and_both_are_reported(game: Game) -> None:
    elsewhere = [[990, 310], [1010, 310], [1010, 290], [990, 290]]  # centre (1000, 300)
    doc = build_scene(
        game,
        [tag(10, UP_AT_500_300), tag(10, elsewhere), tag(11, [[0, 20], [20, 20], [20, 0], [0, 0]])],
    )
    (dup,) = doc["detection"]["duplicate_tags"]
    assert (dup["family"], dup["id"], dup["tag_of"]) == ("tag36h11", 10, "base rifles-1")
    assert flat(dup["seen_at"]) == pytest.approx([50, 30, 100, 30])
    assert [b["id"] for b in doc["units"][0]["bases"]] == ["rifles-2"]
    assert {"unit": "rifles", "base": "rifles-1", "tag": 10, "reason": "duplicate tag"} in doc[
        "detection"
    ]["missing_bases"]


def test_a_duplicate_unknown_tag_is_reported_both_ways(game: Game) -> None:
    stray = [[0, 20], [20, 20], [20, 0], [0, 0]]
    doc = build_scene(game, [tag(500, stray), tag(500, stray)])
    assert [d["tag_of"] for d in doc["detection"]["duplicate_tags"]] == ["unknown"]
    assert [t["id"] for t in doc["detection"]["unknown_tags"]] == [500, 500]


def test_bases_not_seen_are_listed_and_a_unit_with_none_is_left_out(game: Game) -> None:
    doc = build_scene(game, [tag(11, UP_AT_500_300)])
    report = doc["detection"]
    assert [u["id"] for u in doc["units"]] == ["rifles"]
    assert [b["id"] for b in doc["units"][0]["bases"]] == ["rifles-2"]
    assert report["missing_units"] == ["zouaves", "hussars", "hart"]
    assert report["missing_bases"] == [
        {"unit": "rifles", "base": "rifles-1", "tag": 10, "reason": "not seen"},
        {"unit": "zouaves", "base": "zouaves-1", "tag": 20, "reason": "not seen"},
        {"unit": "hussars", "base": "hussars-1", "tag": 30, "reason": "not seen"},
        {"unit": "hart", "base": "hart-1", "tag": 40, "reason": "not seen"},
    ]
    assert report["missing_terrain"] == [{"terrain": "wood-1", "tag": 100, "reason": "not seen"}]
    assert report["corners_seen"] == []


def test_a_base_off_the_table_is_left_out_and_reported(game: Game) -> None:
    # centre (1850, 300) mm: 5 cm beyond the right edge of a 180 cm table
    beyond = [[1840, 310], [1860, 310], [1860, 290], [1840, 290]]
    doc = build_scene(game, [tag(10, beyond), tag(11, UP_AT_500_300)])
    report = doc["detection"]
    (off,) = report["off_table"]
    assert (off["base"], off["tag"]) == ("rifles-1", 10)
    assert off["at"] == pytest.approx([185.0, 30.0])
    assert {"unit": "rifles", "base": "rifles-1", "tag": 10, "reason": "off the table"} in report[
        "missing_bases"
    ]
    assert [b["id"] for b in doc["units"][0]["bases"]] == ["rifles-2"]


def test_a_terrain_card_off_the_table_is_left_out_and_reported(game: Game) -> None:
    below = [[780, -30], [820, -30], [820, -70], [780, -70]]  # centre (800, -50)
    doc = build_scene(game, [tag(100, below)])
    assert [t["id"] for t in doc["terrain"]] == ["wall-1"]
    assert doc["detection"]["off_table"][0]["terrain"] == "wood-1"
    assert doc["detection"]["missing_terrain"] == [
        {"terrain": "wood-1", "tag": 100, "reason": "off the table"}
    ]


def test_corner_tags_are_known_not_unknown(game: Game) -> None:
    corner_0 = [[10, 70], [70, 70], [70, 10], [10, 10]]  # 60 mm tag centred on (40, 40)
    doc = build_scene(game, [tag(0, corner_0)])
    assert doc["detection"]["corners_seen"] == [0]
    assert doc["detection"]["unknown_tags"] == []


@pytest.mark.parametrize(
    ("corners", "uncertainty", "fragment"),
    [
        ([[0, 0], [1, 0], [1, 1]], 0.1, "shape"),
        ([[0, 0], [1, 0], [1, 1], [0, float("nan")]], 0.1, "NaN"),
        (UP_AT_500_300, -1.0, "uncertainty"),
        (UP_AT_500_300, float("inf"), "uncertainty"),
    ],
)
def test_a_bad_observation_is_refused(corners: Any, uncertainty: float, fragment: str) -> None:
    with pytest.raises(ObservationError, match=fragment):
        TagObservation("tag36h11", 10, np.array(corners), uncertainty)


def test_observation_corners_are_a_read_only_copy() -> None:
    corners = np.array(UP_AT_500_300, dtype=np.float64)
    seen = TagObservation("tag36h11", 10, corners, 0.1)
    corners[0, 0] = 0.0
    assert seen.corners_mm[0, 0] == 490.0
    with pytest.raises(ValueError):
        seen.corners_mm[0, 0] = 1.0
    assert seen.centre == pytest.approx((500.0, 300.0))


# --------------------------------------------------------------------------------------------
# The result is a scene the rules read


def umpire(*args: str | Path, cwd: Path) -> Ran:
    return run_umpire(*args, cwd=cwd)


def test_the_built_scene_loads_and_umpire_resolve_measures_on_it(
    game: Game, tmp_path: Path
) -> None:
    zouaves_at_500_700 = [[510, 690], [490, 690], [490, 710], [510, 710]]  # facing 270
    doc = build_scene(game, [tag(10, UP_AT_500_300), tag(20, zouaves_at_500_700)])
    scene = read_scene(json.loads(json.dumps(doc)), "<built>")
    assert scene.extra["detection"]["tags_seen"] == 2
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    done = umpire("resolve", path, "measure", "rifles", "zouaves", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    # centres 40 cm apart along y, 25 mm square bases: 40 - 1.25 - 1.25 = 37.5 cm edge to edge
    assert answer["distance"] == {"value": pytest.approx(37.5), "unit": "cm"}
    # rifles stand straight ahead of the zouaves, who face 270 (towards the rifles)
    assert answer["aspect"] == "front"


def corners_of(x_mm: float, y_mm: float, top_deg: float, size_mm: float) -> list[list[float]]:
    """The corners (OpenCV order) of a tag centred on (x, y) whose top points to `top_deg`:
    the picture's corners (-h, +h), (+h, +h), (+h, -h), (-h, -h) in (right, up) turned so that
    up = (cos t, sin t) and right = (sin t, -cos t)."""
    h = size_mm / 2
    t = math.radians(top_deg)
    up = (math.cos(t), math.sin(t))
    right = (math.sin(t), -math.cos(t))
    picture = [(-h, h), (h, h), (h, -h), (-h, -h)]
    return [[x_mm + a * right[0] + b * up[0], y_mm + a * right[1] + b * up[1]] for a, b in picture]


def test_the_skirmish_game_rebuilds_the_skirmish_example(tmp_path: Path) -> None:
    """Tags placed where examples/skirmish.json has its bases give back that scene."""
    game = load_game(REPO / "examples" / "games" / "skirmish.toml")
    example = json.loads((REPO / "examples" / "skirmish.json").read_text(encoding="utf-8"))
    offsets = {b.id: (b.offset, b.spec.size, b.tag) for u in game.units for b in u.bases}
    observations = []
    for unit in example["units"]:
        for b in unit["bases"]:
            (dx, dy), size, tag_id = offsets[b["id"]]
            assert dx == 0  # the example's offsets are straight ahead or behind
            f = math.radians(b["facing"])
            # the tag sits -dy ahead of the footprint centre
            tx = b["x"] * 10 - dy * math.cos(f)
            ty = b["y"] * 10 - dy * math.sin(f)
            observations.append(tag_obs(tag_id, corners_of(tx, ty, b["facing"], size)))
    # wood-1 (60..90 x 40..70 cm; its tag 3 cm in from the near-left corner) and farm
    # (120..135 x 20..32 cm; tag in the middle) cards, tags upright
    observations.append(tag_obs(100, corners_of(630, 430, 90, 40)))
    observations.append(tag_obs(101, corners_of(1275, 260, 90, 40)))
    for corner in game.calibration.corners:
        observations.append(tag_obs(corner.tag, corners_of(corner.x, corner.y, 90, 60)))

    doc = build_scene(game, observations)
    assert doc["detection"] == {
        "tags_seen": 10 + 2 + 4,
        "corners_seen": [0, 1, 2, 3],
        "unknown_tags": [],
        "duplicate_tags": [],
        "missing_bases": [],
        "missing_units": [],
        "missing_terrain": [],
        "off_table": [],
    }
    for unit in example["units"]:
        built = next(u for u in doc["units"] if u["id"] == unit["id"])
        for key, value in unit.items():
            if key != "bases":
                assert built[key] == value
        for want, got in zip(unit["bases"], built["bases"], strict=True):
            assert (got["id"], got.get("role")) == (want["id"], want.get("role"))
            assert (got["x"], got["y"]) == pytest.approx((want["x"], want["y"]))
            assert got["facing"] % 360 == pytest.approx(want["facing"] % 360)
    assert flat(the_terrain(doc, "wood-1")["polygon"]) == pytest.approx(
        [60, 40, 90, 40, 90, 70, 60, 70]
    )
    assert flat(the_terrain(doc, "farm")["polygon"]) == pytest.approx(
        [120, 20, 135, 20, 135, 32, 120, 32]
    )

    path = tmp_path / "scene.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    done = umpire("resolve", path, "measure", "rifles", "zouaves", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # nearest: rifles-4 at (32, 30) and zouaves-1 at (40, 95), 2.5 cm squares:
    # dx = 38.75 - 33.25 = 5.5, dy = 93.75 - 31.25 = 62.5, sqrt(5.5^2 + 62.5^2) = sqrt(3936.5)
    # (the command rounds to 0.001 of the unit)
    assert json.loads(done.stdout)["distance"]["value"] == pytest.approx(
        math.sqrt(3936.5), abs=5e-4
    )


def tag_obs(tag_id: int, corners: Any) -> TagObservation:
    return TagObservation("tag36h11", tag_id, np.array(corners), 0.1)


def test_the_game_and_scene_modules_pull_in_no_camera_or_web_code() -> None:
    code = (
        "import json, sys; import vision.game, vision.scene; print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    loaded = json.loads(done.stdout)
    forbidden = ("cv2", "pupil_apriltags", "flask", "webui")
    assert [m for m in loaded if m.split(".")[0] in forbidden] == []
