"""The calibration page (`/calibrate`) and its JSON API (`/api/calibration...`).

What a club does once per camera: pick the camera, its resolution, exposure and focus (where
the driver allows: what it took is read back and shown, what it refused said plainly); capture
views of the printed ChArUco board from the live camera, each one's corners found by the same
code as `umpire calibrate camera` (`calibration.fit.board_view`, `calibrate_views`), with a
coverage picture and the running error; save `camera.json` under the data folder, which the
live scan then uses; and check the table fit, each reference tag's residual drawn on the view.

The camera settings and the camera file in use are kept per game file in the data folder
(`camera-settings.json`, keyed like the game log's games: the built-in demo by its ruleset, a
game file by its path), and applied again when `umpire serve` starts with the same game.

Every POST needs the page's CSRF token and, when the server is shared, the access code
(`webui.security` checks them before any view). Files are written only under the data folder.
Never imports rules; reaches the camera only through `webui.live.Live`.
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
from flask import Blueprint, Flask, current_app, render_template, request
from flask.typing import ResponseReturnValue

from calibration.camera import CameraModel
from calibration.errors import CalibrationError
from calibration.fit import (
    PRINTED_BOARD,
    BoardCalibration,
    BoardCoverage,
    BoardView,
    board_coverage,
    board_view,
    calibrate_views,
    identify_board,
)
from calibration.store import camera_to_dict, load_camera, save_camera
from vision.sources import CameraControls, CameraSettings, SourceError

from . import security
from .live import Live, ServeError

_log = logging.getLogger(__name__)

SETTINGS_FILE: Final = "camera-settings.json"
SETTINGS_FORMAT: Final = "umpire-camera-settings/1"
DEFAULT_CAMERA_FILE: Final = "camera.json"
MIN_CORNERS: Final = 8
"""Board corners a captured view must show (as `umpire calibrate camera` asks)."""
SAME_VIEW_PX: Final = 2.0
"""A capture whose corners lie within this of the last capture's (median) is the same view."""
FRAME_WAIT_S: Final = 10.0
"""The longest a capture waits for a frame newer than the last one captured."""
SETTING_KEYS: Final = ("camera", "resolution", "exposure", "focus")

calibrate = Blueprint("calibrate", __name__)


class CalibrationPageError(ValueError):
    """A request the calibration page cannot act on; `status` is the HTTP answer."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------- stored settings


class CameraSettingsStore:
    """`camera-settings.json` in the data folder: per game, the camera settings asked for and
    the camera file in use. Written whole to a temporary file and renamed over the old one,
    so a crash leaves the old file or the new, never half of one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def load(self, game: str) -> dict[str, Any] | None:
        with self._lock:
            return self._games().get(game)

    def save(self, game: str, record: Mapping[str, Any]) -> None:
        with self._lock:
            games = self._games()
            games[game] = {**games.get(game, {}), **record}
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".json.tmp")
            temporary.write_text(
                json.dumps({"format": SETTINGS_FORMAT, "games": games}, indent=2) + "\n",
                encoding="utf-8",
            )
            os.replace(temporary, self.path)

    def _games(self) -> dict[str, Any]:
        if not self.path.is_file():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            _log.warning("%s cannot be read (%s): camera settings start afresh", self.path, error)
            return {}
        games = data.get("games") if isinstance(data, dict) else None
        return dict(games) if isinstance(games, dict) else {}


# --------------------------------------------------------------------------- the session


@dataclass
class Captured:
    """One captured view: the frame it came from and the board corners found in it."""

    frame: int
    view: BoardView


@dataclass
class CalibrationSession:
    """What the page has done so far (one per app; every change under `lock`)."""

    store: CameraSettingsStore
    lock: threading.Lock = field(default_factory=threading.Lock)
    captured: list[Captured] = field(default_factory=list)
    result: BoardCalibration | None = None
    problem: str | None = None
    """Why the views so far give no calibration (too few, or what `calibrate_views` refused)."""
    controls: CameraControls | None = None
    camera_file: str | None = None
    """The camera file (relative to the data folder) the live scan uses, if any."""
    camera_in_use: CameraModel | None = None
    notes: list[str] = field(default_factory=list)
    """What happened when the stored settings were applied at start-up."""
    last_frame: int = -1
    """The frame of the last capture tried (a refused one too): the next takes a newer one."""

    def refit(self) -> None:
        """Fit again over every view captured (`calibrate_views` refuses or warns as
        `umpire calibrate camera` does)."""
        self.result, self.problem = None, None
        views = [c.view for c in self.captured]
        if len(views) < 3:
            self.problem = (
                f"{len(views)} view{'s' if len(views) != 1 else ''} captured; at least 3 are "
                "needed for a calibration (10 or more, tilted every way, for a good one)"
            )
            return
        try:
            self.result = calibrate_views(views, PRINTED_BOARD, min_corners=MIN_CORNERS)
        except CalibrationError as error:
            self.problem = str(error)


def session() -> CalibrationSession:
    found = current_app.extensions["umpire-calibration"]
    assert isinstance(found, CalibrationSession)
    return found


def _live() -> Live:
    live = current_app.extensions["umpire"].live
    if live is None:
        raise CalibrationPageError("no camera: this server runs without a tracker", 503)
    assert isinstance(live, Live)
    return live


def _data_dir() -> Path:
    data_dir = current_app.extensions["umpire"].data_dir
    assert isinstance(data_dir, Path)
    return data_dir


def install_calibration(app: Flask) -> None:
    """Give `app` its calibration session, and apply the camera settings and camera file
    stored for the game being served (a restart of `umpire serve` keeps them)."""
    shared = app.extensions["umpire"]
    store = CameraSettingsStore(shared.data_dir / SETTINGS_FILE)
    state = CalibrationSession(store)
    app.extensions["umpire-calibration"] = state
    live = shared.live
    if live is None:
        return
    record = store.load(live.game_key)
    if not record:
        return
    settings = record.get("settings")
    if isinstance(settings, dict) and callable(getattr(live.source, "adjust", None)):
        try:
            state.controls = live.adjust_camera(_settings_from_json(settings))
            state.notes.append("camera settings of this game applied again at start-up")
        except (SourceError, ServeError, CalibrationPageError) as error:
            state.notes.append(f"the stored camera settings were not applied: {error}")
    camera_file = record.get("camera_file")
    if isinstance(camera_file, str):
        try:
            path = _inside_data_dir(shared.data_dir, camera_file)
            model = load_camera(path)
        except (CalibrationPageError, CalibrationError) as error:
            state.notes.append(f"the camera file of this game was not loaded: {error}")
        else:
            live.use_camera(model)
            state.camera_file, state.camera_in_use = camera_file, model
            state.notes.append(f"the live scan uses {camera_file} (stored with this game)")


def _settings_from_json(data: Mapping[str, Any]) -> CameraSettings:
    """Settings as `camera-settings.json` keeps them; `CalibrationPageError` for a value that
    is not of their form (a file edited by hand)."""
    camera, resolution = data.get("camera"), data.get("resolution")
    exposure, focus = data.get("exposure"), data.get("focus")
    fine = (
        (camera is None or (isinstance(camera, int) and not isinstance(camera, bool)))
        and (
            resolution is None
            or (
                isinstance(resolution, list)
                and len(resolution) == 2
                and all(isinstance(v, int) and v > 0 for v in resolution)
            )
        )
        and all(v is None or isinstance(v, int | float) for v in (exposure, focus))
    )
    if not fine:
        raise CalibrationPageError(
            f"{SETTINGS_FILE}: settings {dict(data)!r} are not of the form {{camera: N, "
            "resolution: [W, H], exposure: number or null, focus: number or null}"
        )
    return CameraSettings(
        camera,
        None if resolution is None else (resolution[0], resolution[1]),
        None if exposure is None else float(exposure),
        None if focus is None else float(focus),
    )


# --------------------------------------------------------------------------- checking requests


def _body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if data is None and not request.get_data():
        return {}
    if not isinstance(data, dict):
        raise CalibrationPageError("the request body must be a JSON object")
    return data


def _choices(live: Live) -> dict[str, Any]:
    source = live.source
    resolutions = getattr(source, "resolutions", ())
    exposure = getattr(source, "exposure_range", None)
    focus = getattr(source, "focus_range", None)
    return {
        "cameras": list(getattr(source, "cameras", ())),
        "resolutions": [f"{w}x{h}" for w, h in resolutions],
        "exposure": None if exposure is None else {"min": exposure[0], "max": exposure[1]},
        "focus": None if focus is None else {"min": focus[0], "max": focus[1]},
    }


def _number(value: object, name: str, span: tuple[float, float] | None) -> float | None:
    """A setting's number, None for automatic; 400 naming what is accepted otherwise."""
    if value is None or value == "auto":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CalibrationPageError(
            f"{name} {value!r} is not a number; accepted: a number"
            + ("" if span is None else f" from {span[0]:g} to {span[1]:g}")
            + ", or null / 'auto' for automatic"
        )
    if span is not None and not span[0] <= value <= span[1]:
        raise CalibrationPageError(
            f"{name} {value:g} is out of range; accepted: {span[0]:g} to {span[1]:g}, or "
            "null / 'auto' for automatic"
        )
    return float(value)


def settings_asked(body: Mapping[str, Any], live: Live, now: CameraSettings) -> CameraSettings:
    """The settings a request asks for: each key given replaces the current value. Refuses
    unknown keys and values the camera does not offer, naming what it accepts."""
    unknown = sorted(set(body) - set(SETTING_KEYS))
    if unknown:
        raise CalibrationPageError(
            f"unknown setting {unknown[0]!r}; accepted: {', '.join(SETTING_KEYS)}"
        )
    source = live.source
    camera = now.camera
    if "camera" in body:
        cameras = tuple(getattr(source, "cameras", ()))
        value = body["camera"]
        if isinstance(value, bool) or not isinstance(value, int) or value not in cameras:
            raise CalibrationPageError(
                f"camera {value!r} is not offered; accepted: " + ", ".join(str(c) for c in cameras)
            )
        camera = value
    resolution = now.resolution
    if "resolution" in body:
        offered = {f"{w}x{h}": (w, h) for w, h in getattr(source, "resolutions", ())}
        value = body["resolution"]
        if not isinstance(value, str) or value.strip().lower() not in offered:
            raise CalibrationPageError(
                f"resolution {value!r} is not offered; accepted: {', '.join(offered)}"
            )
        resolution = offered[value.strip().lower()]
    exposure = now.exposure
    if "exposure" in body:
        exposure = _number(body["exposure"], "exposure", getattr(source, "exposure_range", None))
    focus = now.focus
    if "focus" in body:
        focus = _number(body["focus"], "focus", getattr(source, "focus_range", None))
    return CameraSettings(camera, resolution, exposure, focus)


def _inside_data_dir(data_dir: Path, name: object) -> Path:
    """`name` as a path under the data folder; 400 for anything else (an absolute path, a
    `..` that climbs out, a link out, not a `.json` file)."""
    if not isinstance(name, str) or not name.strip():
        raise CalibrationPageError(
            f"path {name!r} is not a file name; accepted: a .json file name inside the data "
            "folder, such as camera.json or cameras/table-2.json"
        )
    relative = Path(name.strip())
    root = data_dir.resolve()
    target = (root / relative).resolve()
    if relative.is_absolute() or ".." in relative.parts or not target.is_relative_to(root):
        raise CalibrationPageError(
            f"path {name!r} is outside the data folder; accepted: a .json file name inside "
            "the data folder, such as camera.json or cameras/table-2.json"
        )
    if target.suffix.lower() != ".json":
        raise CalibrationPageError(
            f"path {name!r} is not a .json file; accepted: a .json file name inside the data "
            "folder, such as camera.json"
        )
    return target


# --------------------------------------------------------------------------- what the page reads


def _camera_json(model: CameraModel, std: Mapping[str, float] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "fx": round(model.fx, 2),
        "fy": round(model.fy, 2),
        "cx": round(model.cx, 2),
        "cy": round(model.cy, 2),
        "distortion": [round(v, 5) for v in model.distortion],
        "image_size": None if model.image_size is None else list(model.image_size),
    }
    if std is not None:
        doc["std"] = {k: round(float(v), 4) for k, v in std.items()}
    return doc


def _coverage(state: CalibrationSession) -> BoardCoverage | None:
    if state.result is not None and state.result.coverage is not None:
        return state.result.coverage
    if not state.captured:
        return None
    size = state.captured[-1].view.image_size
    return board_coverage([c.view.image_points for c in state.captured], [], size)


def status_doc(state: CalibrationSession, live: Live | None) -> dict[str, Any]:
    """`GET /api/calibration`: everything the page shows."""
    result = state.result
    coverage = _coverage(state)
    fit = None
    if result is not None:
        fit = {
            "rms_px": round(result.rms_px, 4),
            **_camera_json(result.camera, result.std_px),
            "warnings": list(result.warnings),
            "views_used": len(result.views_used),
        }
    doc: dict[str, Any] = {
        "source": None if live is None else live.source.description,
        "adjustable": live is not None and callable(getattr(live.source, "adjust", None)),
        "board": PRINTED_BOARD.describe(),
        "controls": None,
        "choices": None if live is None else _choices(live),
        "views": [{"frame": c.frame, "corners": c.view.corners} for c in state.captured],
        "fit": fit,
        "problem": state.problem,
        "advice": None if coverage is None else coverage.advice(),
        "coverage": None
        if coverage is None
        else {
            "cells": [list(row) for row in coverage.cells],
            "missing": coverage.missing_places(),
            "tilts": [
                {"tilt_deg": round(t.tilt_deg, 1), "direction_deg": round(t.direction_deg, 1)}
                for t in coverage.tilts
            ],
        },
        "camera_file": state.camera_file,
        "camera_in_use": None if state.camera_in_use is None else _camera_json(state.camera_in_use),
        "notes": list(state.notes),
        "camera_mismatch": _mismatch(state.camera_in_use, live),
    }
    if state.controls is not None:
        doc["controls"] = _controls_json(state.controls)
    elif doc["adjustable"] and live is not None:
        doc["controls"] = _controls_json(live.source.controls())  # type: ignore[attr-defined]
    return doc


def _mismatch(camera: CameraModel | None, live: Live | None) -> str | None:
    """Why the camera file in use does not fit the frames the camera now gives, if it does
    not (intrinsics in pixels belong to one resolution)."""
    image = None if live is None else live.state.image
    if camera is None or camera.image_size is None or image is None:
        return None
    size = (image.shape[1], image.shape[0])
    if size == camera.image_size:
        return None
    return (
        f"the camera file was calibrated at {camera.image_size[0]}x{camera.image_size[1]} but "
        f"the camera now gives {size[0]}x{size[1]}: calibrate again at this resolution, or set "
        "the resolution back"
    )


def _controls_json(controls: CameraControls) -> dict[str, Any]:
    def shown(settings: CameraSettings) -> dict[str, Any]:
        doc = settings.as_json()
        doc["resolution"] = (
            None if settings.resolution is None else "{}x{}".format(*settings.resolution)
        )
        return doc

    return {
        "asked": shown(controls.asked),
        "took": shown(controls.took),
        "refused": list(controls.refused),
    }


# --------------------------------------------------------------------------- routes


@calibrate.errorhandler(CalibrationPageError)
def _page_error(error: CalibrationPageError) -> ResponseReturnValue:
    return {"error": str(error)}, error.status


@calibrate.get("/calibrate")
def page() -> ResponseReturnValue:
    html = render_template("calibrate.html", **security.page_secrets())
    return html, 200, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}


@calibrate.get("/api/calibration")
def status() -> ResponseReturnValue:
    state = session()
    with state.lock:
        return status_doc(state, current_app.extensions["umpire"].live)


@calibrate.post("/api/calibration/settings")
def settings() -> ResponseReturnValue:
    """Ask the camera for settings; answer what it took and refused. Changing the camera or
    the resolution drops the views captured so far (a calibration is for one of each)."""
    live = _live()
    if not callable(getattr(live.source, "adjust", None)):
        raise CalibrationPageError(
            f"{live.source.description} has no camera settings; accepted: a camera "
            "(--source camera:N) or the synthetic board camera (--source board)",
            409,
        )
    body = _body()
    state = session()
    with state.lock:
        before = live.source.controls()  # type: ignore[attr-defined]
        asked = settings_asked(body, live, before.asked)
        try:
            controls = live.adjust_camera(asked)
        except (SourceError, ServeError) as error:
            raise CalibrationPageError(str(error)) from None
        state.controls = controls
        # A frame being read while the camera changed may show the old settings; the next
        # capture takes one read after it.
        state.last_frame = max(state.last_frame, int(getattr(live.source, "delivered", -1)))
        dropped = 0
        if (controls.took.camera, controls.took.resolution) != (
            before.took.camera,
            before.took.resolution,
        ):
            dropped = len(state.captured)
            state.captured.clear()
            state.refit()
        state.store.save(
            live.game_key,
            {"source": live.source.description, "settings": asked.as_json()},
        )
        doc = status_doc(state, live)
    doc["dropped_views"] = dropped
    return doc


@calibrate.post("/api/calibration/capture")
def capture() -> ResponseReturnValue:
    """Take the newest frame as a view of the board (a frame newer than the last captured),
    find the board's corners in it and fit again over every view."""
    live = _live()
    state = session()
    with state.lock:
        _expect_new_frames(live, state.last_frame)
        want = state.controls.took.resolution if state.controls is not None else None
        frame, image = _fresh_frame(live, state.last_frame, want)
        state.last_frame = frame
        view = board_view(image, PRINTED_BOARD, len(state.captured))
        if view.corners < MIN_CORNERS:
            grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
            seen = identify_board([grey], PRINTED_BOARD)
            raise CalibrationPageError(
                f"frame {frame}: {view.corners} corners of the {PRINTED_BOARD.describe()} "
                f"found, at least {MIN_CORNERS} are needed: hold the whole board in view, "
                "sharp and well lit" + (f" (the picture shows {seen})" if seen else ""),
                422,
            )
        same = _same_view(view, state.captured)
        if same is not None:
            raise CalibrationPageError(
                f"frame {frame} shows the board where view {same + 1} did: move or tilt the "
                "board, then capture again",
                422,
            )
        state.captured.append(Captured(frame, view))
        state.refit()
        return status_doc(state, live)


def _expect_new_frames(live: Live, last: int) -> None:
    """409 at once when no newer frame can come without the player: a still photo, a video or
    folder played to its end, a folder stepped by hand whose photo was captured already."""
    status = live.status()
    playback, words = status.get("source_state"), status.get("source_words")
    waiting = playback == "stepping" and live.state.frame <= last
    if playback in ("still", "ended") or waiting:
        then = "press Next photo, then capture" if waiting else "no new frame will come"
        raise CalibrationPageError(
            f"{words}: {then}; the calibration page captures views from a camera (or a folder "
            "of board photos stepped with Next photo). For photos already taken: umpire "
            "calibrate camera PHOTO...",
            409,
        )


def _fresh_frame(live: Live, last: int, size: tuple[int, int] | None) -> tuple[int, np.ndarray]:
    deadline = time.monotonic() + FRAME_WAIT_S
    state = live.state
    while True:
        image = state.image
        if image is not None and state.frame > last:
            shape = (image.shape[1], image.shape[0])
            if size is None or shape == size:
                return state.frame, image
        left = deadline - time.monotonic()
        if left <= 0:
            raise CalibrationPageError(
                f"no new frame from {live.source.description} in {FRAME_WAIT_S:g} s: is the "
                "camera running?",
                503,
            )
        state = live.wait_for_version(state.version, min(left, 1.0))


def _same_view(view: BoardView, captured: Sequence[Captured]) -> int | None:
    """The index of a captured view showing the board at the same place, if any."""
    for index, earlier in enumerate(captured):
        mine = {
            tuple(p): q for p, q in zip(view.object_points.tolist(), view.image_points, strict=True)
        }
        shared = [
            (mine[tuple(p)], q)
            for p, q in zip(
                earlier.view.object_points.tolist(), earlier.view.image_points, strict=True
            )
            if tuple(p) in mine
        ]
        if len(shared) < 0.8 * view.corners:
            continue
        apart = np.median([np.hypot(*(a - b)) for a, b in shared])
        if apart < SAME_VIEW_PX:
            return index
    return None


@calibrate.post("/api/calibration/clear")
def clear() -> ResponseReturnValue:
    state = session()
    with state.lock:
        state.captured.clear()
        state.refit()
        return status_doc(state, current_app.extensions["umpire"].live)


@calibrate.post("/api/calibration/save")
def save() -> ResponseReturnValue:
    """Save the calibration as `camera.json` (or the .json name given) under the data folder
    and have the live scan use it from the next frame; stored with the game."""
    live = _live()
    body = _body()
    unknown = sorted(set(body) - {"path"})
    if unknown:
        raise CalibrationPageError(f"unknown key {unknown[0]!r}; accepted: path")
    name = body.get("path", DEFAULT_CAMERA_FILE)
    data_dir = _data_dir()
    target = _inside_data_dir(data_dir, name)
    state = session()
    with state.lock:
        if state.result is None:
            raise CalibrationPageError(
                f"no calibration to save: {state.problem or 'capture views of the board first'}",
                409,
            )
        model = state.result.camera
        target.parent.mkdir(parents=True, exist_ok=True)
        save_camera(target, model)
        relative = target.relative_to(data_dir.resolve()).as_posix()
        live.use_camera(model)
        state.camera_file, state.camera_in_use = relative, model
        state.store.save(live.game_key, {"camera_file": relative})
        doc = status_doc(state, live)
    doc["saved"] = {"path": relative, "camera": camera_to_dict(model)}
    return doc


@calibrate.get("/api/calibration/coverage.svg")
def coverage_picture() -> ResponseReturnValue:
    state = session()
    with state.lock:
        views = [c.view for c in state.captured]
        coverage = _coverage(state)
    live = current_app.extensions["umpire"].live
    image = None if live is None else live.state.image
    size = (640, 480) if image is None else (image.shape[1], image.shape[0])
    svg = coverage_svg(views, coverage, size)
    return svg, 200, {"Content-Type": "image/svg+xml", "Cache-Control": "no-store"}


@calibrate.get("/api/calibration/frame.jpg")
def frame_picture() -> ResponseReturnValue:
    """The newest frame, as the camera took it."""
    image = _live().state.image
    if image is None:
        raise CalibrationPageError("no frame yet from the camera", 503)
    return _jpeg(image)


@calibrate.get("/api/calibration/table-check")
def table_check() -> ResponseReturnValue:
    return table_check_doc(_live())


@calibrate.get("/api/calibration/table-check.jpg")
def table_check_picture() -> ResponseReturnValue:
    live = _live()
    state = live.state
    if state.image is None:
        raise CalibrationPageError("no frame yet from the camera", 503)
    doc = table_check_doc(live)
    return _jpeg(draw_residuals(state.image, doc))


def _jpeg(image: np.ndarray) -> ResponseReturnValue:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise CalibrationPageError("the frame could not be encoded as JPEG", 500)
    return data.tobytes(), 200, {"Content-Type": "image/jpeg", "Cache-Control": "no-store"}


# --------------------------------------------------------------------------- the table fit


def table_check_doc(live: Live) -> dict[str, Any]:
    """The last table fit, one entry per reference tag: where it is in the picture, its
    residual on the table (mm, the scan's own `residuals_by_group`) and in pixels (its
    corners against where the fit puts their table positions)."""
    state = live.state
    scan = state.scan
    camera = live.tracker.camera
    doc: dict[str, Any] = {
        "fitted": scan is not None,
        "error": state.error,
        "lens": "none (pinhole)" if camera is None else "known intrinsics",
        "references": [],
    }
    if scan is None:
        return doc
    fit = scan.fit
    by_group_mm = fit.residuals_by_group()
    groups = np.asarray(fit.groups)
    predicted = fit.table_to_image(fit.table_points)
    apart_px = np.hypot(*(predicted - fit.image_points).T)
    for tag in sorted(by_group_mm):
        mask = groups == tag
        centre = fit.image_points[mask].mean(axis=0)
        doc["references"].append(
            {
                "tag": int(tag),
                "x_px": round(float(centre[0]), 1),
                "y_px": round(float(centre[1]), 1),
                "residual_mm": round(float(by_group_mm[tag]), 3),
                "residual_px": round(float(np.sqrt(np.mean(apart_px[mask] ** 2))), 3),
                "rejected": int(tag) in fit.outlier_groups,
            }
        )
    doc.update(
        rms_mm=round(fit.rms_mm, 3),
        worst_mm=round(fit.worst_group_mm, 3),
        limit_mm=round(fit.max_residual_mm, 3),
        warnings=list(fit.warnings),
    )
    return doc


def draw_residuals(image: np.ndarray, doc: Mapping[str, Any]) -> np.ndarray:
    """`image` with each reference tag ringed (green within half the fit's limit, amber
    within it, red for a tag the fit rejected) and its residual written beside it."""
    out = np.ascontiguousarray(image.copy())
    scale = max(1.0, out.shape[1] / 800)
    limit = float(doc.get("limit_mm") or 1.0)
    for ref in doc["references"]:
        centre = (round(ref["x_px"]), round(ref["y_px"]))
        if ref["rejected"]:
            colour = (40, 40, 230)
        elif ref["residual_mm"] <= limit / 2:
            colour = (60, 200, 60)
        else:
            colour = (0, 170, 240)
        cv2.circle(out, centre, round(18 * scale), colour, max(2, round(2 * scale)))
        words = f"tag {ref['tag']}: {ref['residual_mm']:.2f} mm / {ref['residual_px']:.2f} px"
        if ref["rejected"]:
            words += " (rejected)"
        (width, _), _ = cv2.getTextSize(words, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * scale, 1)
        # Beside the ring, on the side towards the middle of the picture (a corner tag's words
        # would run off the edge otherwise).
        step = round(22 * scale)
        left = centre[0] > out.shape[1] / 2
        where = (centre[0] - step - width if left else centre[0] + step, centre[1] + step // 3)
        for thickness, shade in ((4, (0, 0, 0)), (1, colour)):
            cv2.putText(
                out,
                words,
                where,
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5 * scale,
                shade,
                max(1, round(thickness * scale)),
                cv2.LINE_AA,
            )
    return out


# --------------------------------------------------------------------------- the coverage picture

_VIEW_COLOURS: Final = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def coverage_svg(
    views: Sequence[BoardView],
    coverage: BoardCoverage | None,
    image_size: tuple[int, int] = (640, 480),
) -> str:
    """The coverage as an SVG string: on the left the picture (3 x 3 cells, darker where more
    corners were seen, each corner a dot coloured by its view); on the right the tilt dial
    (each view a dot: its distance from the centre is the tilt, 0-60 degrees, its angle the
    direction it leans; the dial's rings are 15, 30 and 45 degrees)."""
    width_px = 320.0
    size = image_size if coverage is None else coverage.image_size
    height_px = width_px * size[1] / size[0]
    k = width_px / size[0]
    dial_r = min(90.0, height_px / 2 - 10)
    dial_x, dial_y = width_px + 30 + dial_r, 10 + dial_r
    total_w, total_h = dial_x + dial_r + 60, max(height_px, 2 * dial_r + 30) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {total_w:.0f} {total_h:.0f}" '
        f'width="{total_w:.0f}" height="{total_h:.0f}" font-family="sans-serif" '
        'font-size="11">',
        f'<rect x="0" y="0" width="{width_px:.1f}" height="{height_px:.1f}" fill="#f4f4f4" '
        'stroke="#444"/>',
    ]
    if coverage is not None:
        most = max(1, max(max(row) for row in coverage.cells))
        for r, row in enumerate(coverage.cells):
            for c, count in enumerate(row):
                shade = 0.08 + 0.5 * count / most if count else 0.0
                parts.append(
                    f'<rect class="cell" data-corners="{count}" x="{c * width_px / 3:.1f}" '
                    f'y="{r * height_px / 3:.1f}" width="{width_px / 3:.1f}" '
                    f'height="{height_px / 3:.1f}" fill="#2a7" fill-opacity="{shade:.2f}" '
                    'stroke="#999" stroke-dasharray="3 3"/>'
                )
    for index, view in enumerate(views):
        colour = _VIEW_COLOURS[index % len(_VIEW_COLOURS)]
        for x, y in view.image_points.tolist():
            parts.append(f'<circle cx="{x * k:.1f}" cy="{y * k:.1f}" r="1.6" fill="{colour}"/>')
    parts.append(
        f'<text x="4" y="{height_px + 8:.0f}">the picture ({size[0]}x{size[1]}): '
        f"{len(views)} views</text>"
    )
    # The tilt dial.
    for ring in (15, 30, 45, 60):
        parts.append(
            f'<circle cx="{dial_x:.1f}" cy="{dial_y:.1f}" r="{dial_r * ring / 60:.1f}" '
            f'fill="none" stroke="#bbb"/>'
        )
    parts.append(
        f'<text x="{dial_x - dial_r:.0f}" y="{dial_y + dial_r + 14:.0f}">tilts: rings at '
        "15-60 deg</text>"
    )
    for index, tilt in enumerate(coverage.tilts if coverage is not None else ()):
        radius = dial_r * min(tilt.tilt_deg, 60.0) / 60.0
        for turn in (0.0, 180.0):  # a lean one way and its opposite tilt the board alike
            angle = math.radians(tilt.direction_deg + turn)
            x, y = dial_x + radius * math.cos(angle), dial_y - radius * math.sin(angle)
            colour = _VIEW_COLOURS[index % len(_VIEW_COLOURS)]
            parts.append(
                f'<circle class="tilt" cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}"/>'
            )
    parts.append("</svg>")
    return "\n".join(parts)
