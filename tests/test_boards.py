"""`calibrate_camera` on boards `umpire tags` does not print: ChArUco boards of other sizes and
dictionaries, OpenCV's legacy layout, a Kalibr aprilgrid. Rendered through the TRUE_K /
TRUE_DIST camera of test_calibration (fx 520, fy 525 px, barrel k1 -0.25): fx within 1%.
Also: which board the photos show when it is not the one named, each parameter's uncertainty,
and four similarly tilted views refused or warned with the views to add."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from calibration.errors import CalibrationError
from calibration.fit import (
    AprilGridSpec,
    Board,
    CharucoSpec,
    calibrate_camera,
    render_aprilgrid,
    render_charuco_board,
)
from tests.test_calibration import TRUE_DIST, TRUE_K, look_at

PHOTOS = Path(__file__).parent / "data" / "photos"
PX_PER_MM = 4.0
MARGIN_MM = 10.0

# Camera places around a 210 x 150 mm board centred on (105, 75), as test_calibration's
# board_views; scaled to each board. The board's z points away from the camera side.
VARIED = [(105, 75, -250), (260, 75, -230), (-50, 75, -230), (105, 210, -220),
          (105, -60, -220), (230, 190, -200)]  # fmt: skip
# Four views all leaning the same way (the board turned about its vertical, to the right).
SAME_TILT = [(250, 75, -240), (255, 85, -235), (245, 65, -245), (252, 78, -250)]


def texture_of(spec: Board) -> tuple[NDArray[np.uint8], tuple[float, float]]:
    """The board's picture and its size in mm (board point (X, Y) mm at pixel
    39.5 + 4 (X, Y))."""
    if isinstance(spec, AprilGridSpec):
        image = render_aprilgrid(spec, PX_PER_MM, MARGIN_MM)
    else:
        image = render_charuco_board(spec, PX_PER_MM, MARGIN_MM)
    height, width = image.shape
    return image, ((width / PX_PER_MM) - 2 * MARGIN_MM, (height / PX_PER_MM) - 2 * MARGIN_MM)


def views_of(
    spec: Board, places: Sequence[tuple[float, float, float]], size: tuple[int, int] = (640, 480)
) -> list[NDArray[np.uint8]]:
    texture, (board_w, board_h) = texture_of(spec)
    texture = np.asarray(cv2.GaussianBlur(texture, (0, 0), 1.0), dtype=np.uint8)
    width, height = size
    grid = np.stack(np.meshgrid(np.arange(width), np.arange(height)), -1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-10)
    normal = cv2.undistortPoints(grid.astype(float), TRUE_K, TRUE_DIST, criteria=criteria)
    rays = np.column_stack([normal.reshape(-1, 2), np.ones(width * height)])
    k = max(board_w / 210.0, board_h / 150.0)
    centre = np.array([board_w / 2, board_h / 2])
    out = []
    for x, y, z in places:
        where = centre + k * (np.array([x, y]) - (105.0, 75.0))
        pose = look_at((where[0], where[1], z * k), (centre[0], centre[1], 0.0))
        origin, directions = pose.camera_centre_mm, rays @ pose.rotation
        board_mm = origin[:2] + (-origin[2] / directions[:, 2])[:, None] * directions[:, :2]
        maps = (MARGIN_MM * PX_PER_MM - 0.5 + PX_PER_MM * board_mm).astype(np.float32)
        maps = maps.reshape(height, width, 2)
        view = cv2.remap(texture, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderValue=255)
        out.append(np.asarray(view, dtype=np.uint8))
    return out


BOARDS: dict[str, Board] = {
    "charuco-8x8-4x4_1000": CharucoSpec(8, 8, 20.0, 15.0, "DICT_4X4_1000"),
    "charuco-5x7-5x5_100": CharucoSpec(5, 7, 28.0, 20.0, "DICT_5X5_100"),
    "charuco-6x8-legacy": CharucoSpec(6, 8, 22.0, 16.0, "DICT_4X4_50", legacy=True),
    "aprilgrid-6x6": AprilGridSpec(6, 6, 20.0, 0.3),
}


@pytest.fixture(scope="module", params=sorted(BOARDS))
def board(request: pytest.FixtureRequest) -> tuple[Board, list[NDArray[np.uint8]]]:
    spec = BOARDS[request.param]
    return spec, views_of(spec, VARIED)


def test_boards_it_did_not_print_give_fx_within_one_percent(
    board: tuple[Board, list[NDArray[np.uint8]]],
) -> None:
    spec, views = board
    result = calibrate_camera(views, spec)
    assert len(result.views_used) == 6
    assert result.camera.fx == pytest.approx(520.0, rel=0.01)
    assert result.camera.fy == pytest.approx(525.0, rel=0.01)
    assert result.camera.cx == pytest.approx(318.0, abs=4.0)
    assert result.camera.cy == pytest.approx(243.0, abs=4.0)
    # Each parameter's uncertainty, as OpenCV estimates it: small for these views.
    assert set(result.std_px) >= {"fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2"}
    assert 0 < result.std_px["fx"] < 0.01 * result.camera.fx
    assert result.warnings == ()


def test_the_board_seen_is_named_when_it_is_not_the_one_given(
    board: tuple[Board, list[NDArray[np.uint8]]],
) -> None:
    spec, views = board
    named = AprilGridSpec() if isinstance(spec, CharucoSpec) else CharucoSpec()
    with pytest.raises(CalibrationError) as refused:
        calibrate_camera(views, named)
    message = str(refused.value)
    assert f"photos show the {named.describe()}, but they show" in message
    if isinstance(spec, AprilGridSpec):
        assert "Kalibr aprilgrid" in message and "--board aprilgrid --squares 6x6" in message
    elif spec.squares_x * spec.squares_y // 2 <= 50 or spec.dictionary != "DICT_4X4_50":
        assert spec.dictionary in message or "DICT_4X4" in message


def test_an_8x8_board_named_as_the_default_says_which_board_it_is() -> None:
    spec = BOARDS["charuco-8x8-4x4_1000"]
    with pytest.raises(CalibrationError) as refused:
        calibrate_camera(views_of(spec, VARIED[:4]), CharucoSpec())
    # Its ids 0-31 are DICT_4X4_50's too (the 1000 dictionary begins with the 50): either name
    # reads it.
    assert "but they show a 8x8 ChArUco board of DICT_4X4_" in str(refused.value)
    assert "--squares 8x8 --dictionary DICT_4X4_" in str(refused.value)


def test_four_similarly_tilted_views_are_refused_or_warned_with_views_to_add() -> None:
    spec = CharucoSpec(5, 7, 30.0, 22.0, "DICT_4X4_50")
    views = views_of(spec, SAME_TILT)
    try:
        result = calibrate_camera(views, spec)
    except CalibrationError as refused:
        message = str(refused)
        assert "do not pin the camera down" in message
    else:
        assert result.warnings, (result.camera.fx, dict(result.std_px))
        message = result.warnings[0]
    assert "fx " in message and "+-" in message
    assert "add views with the board tilted the other way" in message


def test_real_aprilgrid_photos_calibrate_with_the_board_flags(tmp_path: Path) -> None:
    # Three phone photos of a Kalibr 6x6 aprilgrid (tests/data/photos): the board as Kalibr
    # lays it out (tag 0 bottom left, tags turned half a turn from OpenCV's picture) fits them
    # to a third of a pixel; the default ChArUco board named instead is answered with the board
    # they show.
    photos = [str(p) for p in sorted(PHOTOS.glob("aprilgrid_*.jpg"))]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "webui.cli",
            "calibrate",
            "camera",
            *photos,
            "--out",
            "cam.json",
            "--board",
            "aprilgrid",
            "--squares",
            "6x6",
            "--square-size",
            "88",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "3 of 3 photos of the 6x6 aprilgrid of DICT_APRILTAG_36h11 tags" in out.stdout
    assert re.search(r"fx \d+\.\d \+- \d+\.\d", out.stdout)
    rms = float(re.search(r"reprojection error (\d+\.\d+) px", out.stdout).group(1))  # type: ignore[union-attr]
    assert rms < 0.5
    camera = json.loads((tmp_path / "cam.json").read_text(encoding="utf-8"))
    assert len(camera["matrix"]) == 3
    wrong = subprocess.run(
        [sys.executable, "-m", "webui.cli", "calibrate", "camera", *photos, "--out", "c.json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert wrong.returncode == 2
    assert "they show a Kalibr aprilgrid" in wrong.stderr
    assert "--board aprilgrid --squares 6x6" in wrong.stderr


def test_umpire_calibrate_camera_takes_an_8x8_board_by_its_flags(tmp_path: Path) -> None:
    spec = BOARDS["charuco-8x8-4x4_1000"]
    paths = []
    for index, view in enumerate(views_of(spec, VARIED)):
        paths.append(str(tmp_path / f"board-{index}.png"))
        cv2.imwrite(paths[-1], view)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "webui.cli",
            "calibrate",
            "camera",
            *paths,
            "--out",
            "cam.json",
            "--squares",
            "8x8",
            "--square-size",
            "20",
            "--marker-size",
            "15",
            "--dictionary",
            "DICT_4X4_1000",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    camera = json.loads((tmp_path / "cam.json").read_text(encoding="utf-8"))
    assert camera["matrix"][0][0] == pytest.approx(520.0, rel=0.01)


# --------------------------------------------------------------------------------------------
# The synthetic board camera (`--source board`): what the calibration page is tested on


def test_the_board_camera_calibrates_to_its_known_focal_length() -> None:
    from calibration.fit import PRINTED_BOARD, board_view, calibrate_views
    from vision.boardcam import POSES, BoardCameraSource

    with BoardCameraSource(realtime=False, hold=1) as camera:
        frames = [camera.read() for _ in POSES]
        views = [board_view(frame.image, PRINTED_BOARD) for frame in frames if frame is not None]
        truth = camera.true_camera()
    # 60 degree horizontal field of view over 640 pixels: fx = 320 / tan(30 degrees).
    assert truth.fx == pytest.approx(320 / np.tan(np.radians(30)))
    assert (truth.cx, truth.cy) == (319.5, 239.5)
    result = calibrate_views(views, PRINTED_BOARD)
    assert result.camera.fx == pytest.approx(554.256, rel=0.01)
    assert result.camera.fy == pytest.approx(554.256, rel=0.01)
    assert result.camera.cx == pytest.approx(319.5, abs=6)
    assert result.camera.cy == pytest.approx(239.5, abs=6)
    assert result.coverage is not None
    # Tilted every way: the views lean about four directions 45 degrees apart, or more.
    directions = sorted(t.direction_deg for t in result.coverage.tilts if t.tilt_deg > 15)
    assert len(directions) >= 8
    assert max(np.diff(directions)) < 50


def test_the_board_camera_settings_act_on_its_picture() -> None:
    from vision.boardcam import BoardCameraSource
    from vision.sources import CameraSettings, SourceError

    with BoardCameraSource(realtime=False, hold=100) as camera:
        normal = camera.read()
        assert normal is not None and normal.image.shape == (480, 640, 3)
        took = camera.adjust(CameraSettings(resolution=(800, 600), exposure=-1.0, focus=30.0))
        assert took.took.resolution == (800, 600) and took.took.exposure == -1.0
        assert took.refused == ("focus 30 refused: the synthetic board camera has a fixed focus",)
        darker = camera.read()
        assert darker is not None and darker.image.shape == (600, 800, 3)
        # One stop darker: every grey halves (the board, the table round it, alike).
        assert float(darker.image.mean()) == pytest.approx(float(normal.image.mean()) / 2, rel=0.05)
        assert camera.true_camera().fx == pytest.approx(400 / np.tan(np.radians(30)))
        with pytest.raises(SourceError, match="accepted: 640x480, 800x600, 1024x768, 1280x720"):
            camera.adjust(CameraSettings(resolution=(1920, 1080)))
        with pytest.raises(SourceError, match="accepted: -3 to 3 stops"):
            camera.adjust(CameraSettings(exposure=5.0))
        other = camera.adjust(CameraSettings(camera=2))
        assert other.refused == ("the synthetic board camera is camera 0; there is no camera 2",)
