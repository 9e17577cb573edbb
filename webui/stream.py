"""The pushed routes: `/events` (server-sent events: `event: frame` within a few milliseconds of
each scanned frame, a comment heartbeat every 15 s; each frame event written counts in the
tracker's frame-to-page latency) and `/stream.mjpg` (the live view with the overlays common to
every viewer, as `multipart/x-mixed-replace` JPEGs, which an `<img>` shows as video).

One picture per frame for everybody: the live view shows every base's outline, facing arrow
and id, never a viewer's selection. The page draws the selected unit's rings, sectors and
measuring line itself over the picture (webui/static/app.js), through the table-to-pixel
mapping each frame event carries (`view`, `frame_view`): fifty viewers selecting fifty units
cost the server one JPEG a frame, not fifty.

Served by `umpire serve` (`webui.server`), the two streams are the event loop's: these views
only check the request and answer a marker, and one broadcaster makes each frame's event and
picture once for every viewer. Served by werkzeug (tests, the Flask test client), each open
stream holds one server thread and sleeps on the tracker's `Condition` between frames, so it
costs nothing while the table is still. A stream ends when the client goes, when the tracker
stops, or after the configured `SSE_MAX_S` / `MJPEG_MAX_S` seconds (unset: never).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any, Final

import cv2
from flask import Blueprint, Response, current_app, request
from flask.typing import ResponseReturnValue

from rules.errors import UmpireError

from .api import BadRequest, tracker
from .live import Live, LiveState
from .overlay import draw_overlay

stream = Blueprint("stream", __name__)

BOUNDARY: Final = "umpireframe"
WAIT_STEP_S: Final = 1.0
"""Longest sleep between two looks at the stop flag and the clock."""
LIVE_VIEW_MAX_WIDTH: Final = 1280
"""The live view's picture is at most this wide: a 1080p frame is shrunk to 1280x720 before it
is drawn on and encoded (less than half the pixels to encode, 77 KiB instead of 174 a picture
for every viewer to be sent: both compete with the tracker for the cores), which a phone or a
laptop's page panel shows just as well."""


@stream.errorhandler(BadRequest)
def _bad_request(error: BadRequest) -> ResponseReturnValue:
    return {"error": error.message}, error.status


def _deadline(setting: str) -> float:
    limit = current_app.config.get(setting)
    return float("inf") if limit is None else time.monotonic() + float(limit)


NATIVE_KEY: Final = "umpire.native_streams"
"""In the WSGI environ when `webui.server` serves the streams itself: the views then answer
only whether the stream may open (every check of the app passed) and what it shows."""


def _native(what: dict[str, Any]) -> ResponseReturnValue:
    """The marker `webui.server` replaces with the stream itself."""
    return Response(json.dumps(what), headers={"X-Umpire-Stream": "1", "Cache-Control": "no-store"})


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def shrink_factor(width: int) -> float:
    """Pixels of the live view's picture per pixel of a frame `width` wide."""
    return min(1.0, LIVE_VIEW_MAX_WIDTH / width)


def picture_size(width: int, height: int) -> tuple[int, int]:
    """The live view's picture size for a frame of this size (as `cv2.resize` rounds it)."""
    factor = shrink_factor(width)
    return (width, height) if factor == 1.0 else (round(width * factor), round(height * factor))


def frame_view(state: LiveState) -> dict[str, Any] | None:
    """How the page puts a table point on this frame's live-view picture: `{"frame", "width",
    "height", "table_to_image", "lens", "scale"}`, None before the table is fitted.
    `table_to_image` is the 3x3 homography from table millimetres (x, y, 1) to the frame's
    pixels; `lens` (None for a plain fit) is the camera's `matrix` and OpenCV `distortion`
    (k1, k2, p1, p2[, k3]) that then bend the homography's pixels into the pixels seen, as
    `TableFit.table_to_image` does; `scale` (at most 1) turns the frame's pixels into the
    picture's, `width` x `height`."""
    if state.image is None or state.scan is None:
        return None
    fit = state.scan.fit
    frame_height, frame_width = state.image.shape[:2]
    width, height = picture_size(frame_width, frame_height)
    lens = fit.lens
    return {
        "frame": state.frame,
        "width": width,
        "height": height,
        "scale": shrink_factor(frame_width),
        "table_to_image": [[float(v) for v in row] for row in fit.transform.table_to_image_matrix],
        "lens": None
        if lens is None
        else {
            "matrix": [[float(v) for v in row] for row in lens.camera_matrix],
            "distortion": [float(v) for v in lens.dist_coeffs.ravel()],
        },
    }


def frame_event(state: LiveState, status: dict[str, Any]) -> dict[str, Any]:
    """The body of a `frame` (or `status`) event: the frame, the status and the frame's `view`."""
    return {"frame": state.frame, "status": status, "view": frame_view(state)}


@stream.get("/events")
def events() -> ResponseReturnValue:
    """`event: frame` {"frame", "status", "view"} for each new frame; `event: status` when only the
    status changed (camera lost, phase); `: heartbeat` comments every `SSE_HEARTBEAT_S`."""
    live = tracker()
    if request.environ.get(NATIVE_KEY):
        return _native({"stream": "events"})
    heartbeat = float(current_app.config["SSE_HEARTBEAT_S"])
    deadline = _deadline("SSE_MAX_S")

    def generate() -> Iterator[str]:
        yield "retry: 2000\n\n"
        state = live.state
        yield _event("frame", frame_event(state, live.status()))
        beat = time.monotonic() + heartbeat
        while not live.stopping and time.monotonic() < deadline:
            wait = min(WAIT_STEP_S, beat - time.monotonic(), deadline - time.monotonic())
            newer = live.wait_for_version(state.version, max(wait, 0.0))
            if newer.version != state.version:
                kind = "frame" if newer.frame != state.frame else "status"
                state = newer
                yield _event(kind, frame_event(state, live.status()))
                if kind == "frame":
                    # werkzeug asks for the next chunk once this one is written and flushed:
                    # the frame has reached this page's connection now.
                    live.frame_sent(state)
            if time.monotonic() >= beat:
                beat = time.monotonic() + heartbeat
                yield ": heartbeat\n\n"

    return Response(
        generate(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


class _Pictures:
    """The JPEGs of the latest frames, encoded once however many streams show them.

    Fifty spectators on one frame would otherwise draw and encode it fifty times (a 720p frame
    costs ~5 ms): the tracker's two cores would go to them. An entry is found by the frame's
    image object itself (kept alive by the entry, so never confused with a newer one) and the
    quality; the lock also makes the streams that ask for a new frame at once wait for the one
    that encodes it."""

    KEEP: Final = 2

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[tuple[Any, int, bytes | None]] = []

    def get(self, state: LiveState, quality: int) -> bytes | None:
        if state.image is None:
            return None
        with self._lock:
            for image, q, jpeg in self._entries:
                if image is state.image and q == quality:
                    return jpeg
            jpeg = picture(state, quality)
            self._entries = [(state.image, quality, jpeg), *self._entries][: self.KEEP]
            return jpeg


_pictures = _Pictures()


def picture(state: LiveState, quality: int) -> bytes | None:
    """The frame with the overlays every viewer shares (each base's outline, facing and id) as
    a JPEG at most `LIVE_VIEW_MAX_WIDTH` wide; the bare frame before the table is fitted."""
    if state.image is None:
        return None
    image = state.image
    factor = shrink_factor(image.shape[1])
    if factor < 1.0:
        size = picture_size(image.shape[1], image.shape[0])
        # Linear, not area: at 2/3 area averaging costs four times the encoding itself (27 ms
        # against 6 ms for the shrink and the encoding together, 1080p, this machine).
        image = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)
    if state.scan is not None and state.scene is not None:
        image = draw_overlay(image, state.scan, state.scene, shrunk=factor)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return jpeg.tobytes() if ok else None


PART_HEAD: Final = f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n\r\n".encode("ascii")
"""The delimiter and the headers of a part, sent ahead of its picture. A browser shows a part
only once the next part's headers have come (Chromium finishes a part when it has parsed the
next one's): sent with the next picture, a still source (one photo) would never be shown at
all, and every frame would reach the page one frame late. So each picture is followed at once
by the next part's head, and a part has no Content-Length: it ends at the delimiter."""


def _part(jpeg: bytes) -> bytes:
    """One picture, the end of its part, and the head of the part the next picture fills."""
    return jpeg + b"\r\n" + PART_HEAD


@stream.get("/stream.mjpg")
def mjpeg() -> ResponseReturnValue:
    """The live view: one picture a frame, the same for every viewer. `?select=ID` is still
    accepted (an id not in the current scene is a 400) but changes nothing: the page draws the
    selection over the picture itself."""
    unknown = sorted(set(request.args) - {"select"})
    if unknown:
        raise BadRequest(f"unknown parameter {unknown[0]!r}; accepted: select")
    live: Live = tracker()
    select = request.args.get("select") or None
    current = live.state.scene
    if select is not None and current is not None:
        try:
            current.select(select)
        except UmpireError as error:
            raise BadRequest(str(error)) from None
    if request.environ.get(NATIVE_KEY):
        return _native({"stream": "mjpeg"})
    quality = int(current_app.config["MJPEG_QUALITY"])
    deadline = _deadline("MJPEG_MAX_S")

    def generate() -> Iterator[bytes]:
        yield PART_HEAD
        state = live.state
        sent = -2
        while not live.stopping and time.monotonic() < deadline:
            if state.frame != sent:
                jpeg = _pictures.get(state, quality)
                if jpeg is not None:
                    sent = state.frame
                    yield _part(jpeg)
            wait = min(WAIT_STEP_S, deadline - time.monotonic())
            state = live.wait_for_version(state.version, max(wait, 0.0))

    return Response(
        generate(),
        mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
        headers={"Cache-Control": "no-store"},
    )
