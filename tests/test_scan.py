"""From a photo to a scene, on real pixels: the example game is laid out as
examples/skirmish.json says, photographed by the synthetic camera, and scanned by the real
detector and calibration. The true scene is the file the table was laid out from."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.errors import CalibrationError
from calibration.store import load_camera
from rules.engine import read_scene
from tests.conftest import Ran, run_umpire
from tests.test_calibration import TRUE_DIST, TRUE_K, board_views
from vision.game import Game, load_game
from vision.pipeline import Scan, Scanner
from vision.render import Effects, Frame, TableSpec, TagSpec, camera_for_table, render
from vision.synthetic import table_spec

REPO = Path(__file__).resolve().parent.parent
GAME = REPO / "examples" / "games" / "skirmish.toml"
TRUTH = json.loads((REPO / "examples" / "skirmish.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def game() -> Game:
    return load_game(GAME)


@pytest.fixture(scope="module")
def spec(game: Game) -> TableSpec:
    return table_spec(game, TRUTH)


def photograph(spec: TableSpec, **effects: Any) -> Frame:
    camera = camera_for_table(spec, 1920, 1080, 1500.0, 15.0)
    return render(spec, camera, Effects(**effects), np.random.default_rng(7))


@pytest.fixture(scope="module")
def frame(spec: TableSpec) -> Frame:
    return photograph(spec, blur_px=0.6, noise_sigma=2.0)


@pytest.fixture(scope="module")
def scan(game: Game, frame: Frame) -> Scan:
    return Scanner(game).scan(frame.image)


def bases_of(doc: Any) -> dict[str, dict[str, Any]]:
    return {b["id"]: b for u in doc["units"] for b in u["bases"]}


def errors_mm(doc: Any) -> tuple[list[float], list[float]]:
    """Position errors (mm) and facing errors (degrees) of every base against the truth."""
    got = bases_of(doc)
    where, facing = [], []
    for ident, true in bases_of(TRUTH).items():
        seen = got[ident]
        where.append(math.hypot(seen["x"] - true["x"], seen["y"] - true["y"]) * 10)
        facing.append(abs((seen["facing"] - true["facing"] + 180) % 360 - 180))
    return where, facing


def test_every_base_and_card_is_found_and_nothing_is_left_over(scan: Scan) -> None:
    det = scan.scene["detection"]
    assert det["corners_seen"] == [0, 1, 2, 3]
    for key in ("unknown_tags", "duplicate_tags", "missing_bases", "missing_units",
                "missing_terrain", "off_table"):  # fmt: skip
        assert det[key] == [], key
    assert sorted(bases_of(scan.scene)) == sorted(bases_of(TRUTH))
    assert sorted(t["id"] for t in scan.scene["terrain"]) == ["farm", "wall-1", "wood-1"]


def test_positions_and_facings_match_the_laid_out_scene(scan: Scan) -> None:
    # The tags stand 3 mm above the table (the game's `height = 0.3`) and no intrinsics are
    # given, so the table-plane fit leaves their parallax: r * h / (H - h) is at most about
    # 1000 mm * 3 / 1450 = 2.1 mm for a base a metre from the point under the camera.
    where, facing = errors_mm(scan.scene)
    assert max(where) < 3.0
    assert float(np.median(facing)) < 1.0
    assert max(facing) < 3.0
    assert scan.scene["detection"]["warnings"]  # says the parallax is not corrected


def test_terrain_cards_land_where_they_were_laid(scan: Scan) -> None:
    truth = {t["id"]: np.array(t["polygon"]) for t in TRUTH["terrain"]}
    for piece in scan.scene["terrain"]:
        # cm: within 2 mm at every corner
        assert np.abs(np.array(piece["polygon"]) - truth[piece["id"]]).max() < 0.2


def test_the_scene_loads_and_the_rules_measure_on_it(scan: Scan) -> None:
    scene = read_scene(scan.scene, "scan")
    assert scene.ruleset == "skirmish-19c"
    assert all(scene.uncertainty_of(b) > 0 for b in scene.bases())
    cal = scan.scene["detection"]["calibration"]
    assert cal["reference_tags"] == [0, 1, 2, 3]
    assert cal["rms"] < 0.05  # cm: the corner tags agree to half a millimetre


def test_known_intrinsics_correct_the_height_of_raised_tags(game: Game, frame: Frame) -> None:
    truth = frame.truth.camera
    camera = CameraModel.from_values(truth.matrix, truth.distortion, (1920, 1080))
    scan = Scanner(game, camera).scan(frame.image)
    assert scan.scene["detection"]["calibration"]["height_corrected"] is True
    assert "warnings" not in scan.scene["detection"]
    where, _ = errors_mm(scan.scene)
    assert float(np.median(where)) < 0.5
    assert max(where) < 1.0


def test_a_hand_over_a_base_leaves_it_missing_not_moved(game: Game, spec: TableSpec) -> None:
    rifles_1 = bases_of(TRUTH)["rifles-1"]
    x, y = rifles_1["x"] * 10, rifles_1["y"] * 10
    hand = ((x - 40, y - 40), (x + 40, y - 40), (x + 40, y + 40), (x - 40, y + 40))
    scan = Scanner(game).scan(photograph(spec, hand=hand).image)
    missing = [m["base"] for m in scan.scene["detection"]["missing_bases"]]
    assert "rifles-1" in missing
    assert "rifles-1" not in bases_of(scan.scene)


def test_a_tag_not_in_the_game_is_reported(game: Game, spec: TableSpec) -> None:
    stray = TagSpec("tag36h11", 77, 900.0, 600.0, 90.0, 20.0)
    scan = Scanner(game).scan(photograph(dataclasses.replace(spec, tags=(*spec.tags, stray))).image)
    unknown = scan.scene["detection"]["unknown_tags"]
    assert [(t["family"], t["id"]) for t in unknown] == [("tag36h11", 77)]
    assert unknown[0]["seen_at"] == pytest.approx([90.0, 60.0], abs=0.3)  # cm, where it lay


def test_a_covered_corner_tag_stops_the_scan_with_what_to_fix(game: Game, spec: TableSpec) -> None:
    covered = dataclasses.replace(spec, tags=tuple(t for t in spec.tags if t.tag_id != 2))
    with pytest.raises(CalibrationError, match=r"only 3 corner tags seen.*tag 2"):
        Scanner(game).scan(photograph(covered).image)


# --------------------------------------------------------------------------------------------
# Through the command line


def umpire(*args: str, cwd: Path) -> Ran:
    return run_umpire(*args, cwd=cwd)


def test_umpire_scan_prints_the_scene(frame: Frame, tmp_path: Path) -> None:
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), frame.image)
    out = umpire("scan", str(photo), "--game", str(GAME), "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["format"] == "umpire-scene/1"
    read_scene(doc, "stdout")
    readable = umpire("scan", str(photo), "--game", str(GAME), cwd=tmp_path)
    assert readable.returncode == 0
    assert "10 of 10 bases seen" in readable.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["scan", "nothing.png", "--game", str(GAME)], "nothing.png: no such image file"),
        (["scan", str(GAME), "--game", str(GAME)], "not an image OpenCV can read"),
        (["scan", "x.png"], "--game"),
        (["tags", "--game", str(GAME), "--out", "sheet.txt"], "must end in .pdf or .svg"),
        (["tags", "--rig"], "--rig needs --table"),
        (["tags", "--rig", "--table", "big"], "--table must be two numbers"),
        (["calibrate", "camera", str(GAME), "--out", "cam.json"], "not an image"),
        (["calibrate", "lens", "x.png", "--out", "cam.json"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], says: str, tmp_path: Path) -> None:
    out = umpire(*args, cwd=tmp_path)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert says in lines[0]
    assert "Traceback" not in out.stderr


def test_a_blank_photo_says_which_corner_tags_to_uncover(tmp_path: Path) -> None:
    photo = tmp_path / "blank.png"
    cv2.imwrite(str(photo), np.full((480, 640, 3), 200, dtype=np.uint8))
    out = umpire("scan", str(photo), "--game", str(GAME), cwd=tmp_path)
    assert out.returncode == 2
    assert "only 0 corner tags seen" in out.stderr


def test_umpire_tags_writes_sheets_and_a_rig_plan(tmp_path: Path) -> None:
    out = umpire("tags", "--game", str(GAME), "--out", "sheets.pdf", "--charuco", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    pdf = (tmp_path / "sheets.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4")
    assert b"rifles / rifles-1" in pdf
    # 180 x 120 cm at 1920 x 1080 with a 70 degree lens, looking straight down: the depth
    # fills the picture, 1200 mm / 1080 px = 1.11 mm a pixel; 17 px across = 18.9 -> 19 mm.
    plan = umpire("tags", "--rig", "--table", "180x120", cwd=tmp_path)
    assert plan.returncode == 0
    assert "1.11 at the centre" in plan.stdout
    assert "19 mm" in plan.stdout


def test_umpire_calibrate_camera_recovers_the_lens(tmp_path: Path) -> None:
    from webui.cli import _board

    paths = []
    for k, view in enumerate(board_views((640, 480), _board())):
        paths.append(str(tmp_path / f"board-{k}.png"))
        cv2.imwrite(paths[-1], view)
    out = umpire("calibrate", "camera", *paths, "--out", "cam.json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    camera = load_camera(tmp_path / "cam.json")
    assert camera.fx == pytest.approx(TRUE_K[0, 0], rel=0.02)
    assert camera.fy == pytest.approx(TRUE_K[1, 1], rel=0.02)
    assert camera.distortion[0] == pytest.approx(TRUE_DIST[0], abs=0.03)
