"""The calibration page's JSON API (`webui/calibrate.py`) on the real app, over the synthetic
board camera (`--source board`) and the demo table: the access code, bad settings, files only
under the data folder, settings and the camera file kept over a restart, the coverage picture,
and the table fit's residual per reference tag."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from calibration.fit import BoardCoverage, BoardView, ViewTilt
from calibration.store import load_camera
from vision.game import load_game
from vision.sources import open_source
from webui.app import create_app
from webui.calibrate import coverage_svg
from webui.live import Live

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "examples" / "games" / "skirmish.toml"
CODE = "1234-5678"
TOKEN = "token"
CHANGE = {"X-CSRF-Token": TOKEN, "X-Access-Code": CODE}
WAIT_S = 60.0


def board_app(data_dir: Path) -> tuple[Flask, Live]:
    """The app over the board camera, shared with an access code, as `umpire serve --source
    board --host 0.0.0.0` serves it."""
    live = Live(open_source("board", hold=1, fps=10.0), load_game(GAME)).start()
    app = create_app(
        {"TESTING": True, "DATA_DIR": str(data_dir), "CSRF_TOKEN": TOKEN, "ACCESS_CODE": CODE},
        live=live,
    )
    return app, live


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[FlaskClient, Live, Path]]:
    data_dir = tmp_path / "data"
    app, live = board_app(data_dir)
    try:
        yield app.test_client(), live, data_dir
    finally:
        live.stop()


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("/api/calibration/settings", {"resolution": "800x600"}),
        ("/api/calibration/capture", {}),
        ("/api/calibration/clear", {}),
        ("/api/calibration/save", {"path": "camera.json"}),
    ],
)
def test_a_change_without_the_access_code_is_refused(
    served: tuple[FlaskClient, Live, Path], route: str, body: dict[str, Any]
) -> None:
    client, live, data_dir = served
    answer = client.post(route, json=body, headers={"X-CSRF-Token": TOKEN})
    assert answer.status_code == 403
    assert answer.is_json and answer.json is not None
    assert answer.json["needs"] == "access-code"
    assert "access code" in answer.json["error"]
    # Nothing changed: the camera still renders 640x480, nothing was written.
    assert live.source.controls().took.resolution == (640, 480)  # type: ignore[attr-defined]
    assert not (data_dir / "camera.json").exists()
    assert not (data_dir / "camera-settings.json").exists()


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (
            {"resolution": "1920x1080"},
            "resolution '1920x1080' is not offered; accepted: 640x480, 800x600, 1024x768, 1280x720",
        ),
        ({"resolution": 640}, "resolution 640 is not offered; accepted: 640x480"),
        ({"exposure": 9}, "exposure 9 is out of range; accepted: -3 to 3"),
        ({"exposure": "bright"}, "exposure 'bright' is not a number"),
        ({"camera": 3}, "camera 3 is not offered; accepted: 0"),
        ({"gain": 2}, "unknown setting 'gain'; accepted: camera, resolution, exposure, focus"),
    ],
)
def test_bad_settings_are_refused_naming_what_is_accepted(
    served: tuple[FlaskClient, Live, Path], body: dict[str, Any], words: str
) -> None:
    client, live, _ = served
    answer = client.post("/api/calibration/settings", json=body, headers=CHANGE)
    assert answer.status_code == 400
    assert answer.json is not None and words in answer.json["error"]
    assert live.source.controls().took.resolution == (640, 480)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "path",
    ["../camera.json", "/tmp/camera.json", "cameras/../../camera.json", "out/camera.json", ""],
)
def test_a_camera_file_outside_the_data_folder_is_refused(
    served: tuple[FlaskClient, Live, Path], tmp_path: Path, path: str
) -> None:
    client, _, data_dir = served
    data_dir.mkdir(parents=True, exist_ok=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (data_dir / "out").symlink_to(elsewhere)  # a link out of the data folder
    answer = client.post("/api/calibration/save", json={"path": path}, headers=CHANGE)
    assert answer.status_code == 400
    assert answer.json is not None
    assert "accepted: a .json file name inside the data folder" in answer.json["error"]
    assert list(elsewhere.iterdir()) == []
    assert not (tmp_path / "camera.json").exists()


def test_a_file_that_is_not_json_is_refused(served: tuple[FlaskClient, Live, Path]) -> None:
    client, _, _ = served
    answer = client.post("/api/calibration/save", json={"path": "camera.txt"}, headers=CHANGE)
    assert answer.status_code == 400
    assert answer.json is not None and "is not a .json file" in answer.json["error"]


def test_saving_before_any_view_says_what_is_missing(
    served: tuple[FlaskClient, Live, Path],
) -> None:
    client, _, data_dir = served
    answer = client.post("/api/calibration/save", json={}, headers=CHANGE)
    assert answer.status_code == 409
    assert answer.json is not None
    assert "no calibration to save: capture views of the board first" in answer.json["error"]
    assert not (data_dir / "camera.json").exists()


def capture_views(client: FlaskClient, count: int) -> dict[str, Any]:
    """Capture until `count` views are kept (a frame showing a view already kept is refused
    and the next frame is taken)."""
    doc: dict[str, Any] = {}
    deadline = time.monotonic() + WAIT_S * 2
    while len(doc.get("views", ())) < count:
        assert time.monotonic() < deadline, f"only {len(doc.get('views', ()))} views captured"
        answer = client.post("/api/calibration/capture", headers=CHANGE)
        assert answer.json is not None
        if answer.status_code == 422:
            assert "move or tilt the board" in answer.json["error"], answer.json
            continue
        assert answer.status_code == 200, answer.json
        doc = answer.json
    return doc


def test_captured_views_calibrate_and_the_saved_camera_drives_the_scan(
    served: tuple[FlaskClient, Live, Path],
) -> None:
    client, live, data_dir = served
    doc = capture_views(client, 2)
    assert doc["fit"] is None
    assert doc["problem"].startswith("2 views captured; at least 3 are needed")
    doc = capture_views(client, 8)
    assert all(view["corners"] >= 8 for view in doc["views"])
    truth = 320 / math.tan(math.radians(30))  # 60 degrees across 640 pixels
    assert doc["fit"]["fx"] == pytest.approx(truth, rel=0.02)
    assert doc["fit"]["std"]["fx"] > 0
    assert sum(map(sum, doc["coverage"]["cells"])) == sum(v["corners"] for v in doc["views"])
    assert len(doc["coverage"]["tilts"]) == 8
    saved = client.post("/api/calibration/save", json={"path": "cams/board.json"}, headers=CHANGE)
    assert saved.status_code == 200, saved.json
    model = load_camera(data_dir / "cams" / "board.json")
    assert model.fx == pytest.approx(truth, rel=0.02)
    assert model.image_size == (640, 480)
    assert live.tracker.camera == model
    assert saved.json is not None and saved.json["camera_file"] == "cams/board.json"
    assert saved.json["camera_mismatch"] is None
    # Another resolution: the views are dropped, and the camera file is said not to fit.
    bigger = client.post(
        "/api/calibration/settings", json={"resolution": "800x600"}, headers=CHANGE
    )
    assert bigger.json is not None and bigger.json["dropped_views"] == 8
    deadline = time.monotonic() + WAIT_S
    while live.state.image is None or live.state.image.shape != (600, 800, 3):
        assert time.monotonic() < deadline, "no 800x600 frame"
        time.sleep(0.1)
    now = client.get("/api/calibration").json
    assert now is not None and now["views"] == []
    assert now["camera_mismatch"].startswith(
        "the camera file was calibrated at 640x480 but the camera now gives 800x600"
    )


def test_a_washed_out_picture_is_not_captured(served: tuple[FlaskClient, Live, Path]) -> None:
    client, _, _ = served
    bright = client.post("/api/calibration/settings", json={"exposure": 3}, headers=CHANGE)
    assert bright.status_code == 200
    assert bright.json is not None and bright.json["controls"]["took"]["exposure"] == 3.0
    # Three stops up, the board's black (30) becomes 240 and its white clips at 255: no corners.
    answer = client.post("/api/calibration/capture", headers=CHANGE)
    assert answer.status_code == 422
    assert answer.json is not None
    assert "corners of the 7x5 ChArUco board of DICT_4X4_50 markers found" in answer.json["error"]


def test_camera_settings_and_camera_file_survive_a_restart(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    app, live = board_app(data_dir)
    client = app.test_client()
    try:
        answer = client.post(
            "/api/calibration/settings",
            json={"resolution": "800x600", "exposure": -1, "focus": 20},
            headers=CHANGE,
        )
        assert answer.status_code == 200, answer.json
        controls = answer.json["controls"]  # type: ignore[index]
        assert controls["took"] == {
            "camera": 0,
            "resolution": "800x600",
            "exposure": -1.0,
            "focus": None,
        }
        assert controls["refused"] == [
            "focus 20 refused: the synthetic board camera has a fixed focus"
        ]
        capture_views(client, 3)
        assert client.post("/api/calibration/save", json={}, headers=CHANGE).status_code == 200
    finally:
        live.stop()
    saved = load_camera(data_dir / "camera.json")

    again, live = board_app(data_dir)
    try:
        took = live.source.controls().took  # type: ignore[attr-defined]
        assert (took.resolution, took.exposure) == ((800, 600), -1.0)
        assert live.tracker.camera == saved
        doc = again.test_client().get("/api/calibration").json
        assert doc is not None
        assert doc["controls"]["took"]["resolution"] == "800x600"
        assert doc["camera_file"] == "camera.json"
        assert "camera settings of this game applied again at start-up" in doc["notes"]
        deadline = time.monotonic() + WAIT_S
        while live.state.image is None or live.state.image.shape != (600, 800, 3):
            assert time.monotonic() < deadline, "no 800x600 frame after the restart"
            time.sleep(0.1)
    finally:
        live.stop()


def test_the_coverage_picture_marks_the_cells_and_the_tilts() -> None:
    # Two corners in the top-left cell and one in the bottom-right of a 640 x 480 picture.
    view = BoardView(np.zeros((3, 3)), np.array([[10, 10], [200, 150], [630, 470]]), (640, 480))
    cells = ((2, 0, 0), (0, 0, 0), (0, 0, 1))
    coverage = BoardCoverage((640, 480), cells, (ViewTilt(30.0, 0.0),))
    svg = coverage_svg([view], coverage)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count('data-corners="2"') == 1 and svg.count('data-corners="1"') == 1
    assert svg.count('data-corners="0"') == 7
    # 320 px wide for 640: the corner at (630, 470) is drawn at (315, 235).
    assert '<circle cx="315.0" cy="235.0"' in svg
    # The dial is 90 px in radius, centred at (440, 100): 30 degrees of tilt leaning along the
    # picture's x axis is 45 px either side of the centre.
    assert '<circle class="tilt" cx="485.0" cy="100.0"' in svg
    assert '<circle class="tilt" cx="395.0" cy="100.0"' in svg


def test_the_table_check_gives_each_reference_tags_residual(tmp_path: Path) -> None:
    from vision.demo import open_demo_game

    demo = open_demo_game(
        "skirmish-19c",
        game_path=GAME,
        layout_path=ROOT / "examples" / "skirmish.json",
        realtime=False,
    )
    live = Live(demo, demo.game).start()
    try:
        app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path)}, live=live)
        client = app.test_client()
        deadline = time.monotonic() + WAIT_S
        while live.state.scan is None:
            assert time.monotonic() < deadline, f"no table fit: {live.state.error}"
            time.sleep(0.1)
        doc = client.get("/api/calibration/table-check").json
        assert doc is not None and doc["fitted"]
        game = load_game(GAME)
        assert [r["tag"] for r in doc["references"]] == sorted(
            c.tag for c in game.calibration.corners
        )
        for ref in doc["references"]:
            # A rendered table: the corner tags are where the game file says, to the detector's
            # noise, well inside the fit's limit.
            assert 0 <= ref["residual_mm"] < doc["limit_mm"] / 2
            assert 0 <= ref["residual_px"] < 1.0
            assert not ref["rejected"]
            height, width = live.state.image.shape[:2]  # type: ignore[union-attr]
            assert 0 <= ref["x_px"] < width and 0 <= ref["y_px"] < height
        picture = client.get("/api/calibration/table-check.jpg")
        assert picture.status_code == 200 and picture.mimetype == "image/jpeg"
        assert picture.data[:2] == b"\xff\xd8"
    finally:
        live.stop()


def test_a_settings_file_edited_wrongly_is_said_not_applied(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    settings = {"camera": 0, "resolution": "big", "exposure": None, "focus": None}
    stored = {
        "format": "umpire-camera-settings/1",
        "games": {str(GAME.resolve()): {"settings": settings}},
    }
    (data_dir / "camera-settings.json").write_text(json.dumps(stored))
    app, live = board_app(data_dir)
    try:
        doc = app.test_client().get("/api/calibration").json
        assert doc is not None
        assert doc["controls"]["took"]["resolution"] == "640x480"
        assert doc["notes"][0].startswith("the stored camera settings were not applied: ")
        assert "'resolution': 'big'" in doc["notes"][0]
    finally:
        live.stop()


def test_a_still_photo_is_not_waited_for(tmp_path: Path) -> None:
    """A still photo gives no newer frame: a capture is refused at once (409) saying so and
    pointing to `umpire calibrate camera`, not a 503 after waiting for a frame that cannot
    come."""
    live = Live(open_source(str(ROOT / "examples" / "skirmish.jpg")), load_game(GAME)).start()
    try:
        app = create_app(
            {"TESTING": True, "DATA_DIR": str(tmp_path), "CSRF_TOKEN": TOKEN, "ACCESS_CODE": CODE},
            live=live,
        )
        client = app.test_client()
        deadline = time.monotonic() + WAIT_S
        while live.state.frame < 0:
            assert time.monotonic() < deadline, "the photo was never read"
            time.sleep(0.1)
        first = client.post("/api/calibration/capture", json={}, headers=CHANGE)
        refused = first.json
        assert first.status_code == 409 and refused is not None, first.data
        error = refused["error"]
        assert "still photo skirmish.jpg" in error and "no new frame will come" in error
        assert "umpire calibrate camera" in error
    finally:
        live.stop()
