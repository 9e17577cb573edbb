"""The Flask application of `umpire serve`: `create_app(test_config=None, *, live=None)`.

The app wires what the other packages built: the tracker (`webui.live.Live`, running in its own
threads) is handed in and kept, with the data folder, in `app.extensions["umpire"]`; the JSON
API (`webui.api`) and the streams (`webui.stream`) are blueprints with thin views. Every error,
404 and 405 included, answers JSON `{"error": ...}`: the page and scripts never get HTML back.

Who may change the game is `webui.security`'s business: `CSRF_TOKEN` (random per app), and
`ACCESS_CODE` (None on a loopback-only server) are settings here, checked before every view.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from flask import Flask, current_app, render_template
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException, InternalServerError

from . import security
from .live import Live

MAX_BODY_BYTES: Final = 64 * 1024
"""Largest request body: an API call carries a few ids, never a file."""

NO_PAGE: Final = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Umpire</title></head>
<body><h1>Umpire</h1><p>The table page is not built in this copy (webui/templates/index.html is
missing). The JSON API answers: <a href="/api/status">/api/status</a>,
<a href="/api/scene">/api/scene</a>; the live view is <a href="/stream.mjpg">/stream.mjpg</a>.</p>
</body></html>
"""


def default_data_dir() -> Path:
    """Where snapshots go: `$UMPIRE_DATA`, else `~/.local/share/umpire`."""
    env = os.environ.get("UMPIRE_DATA")
    return Path(env).expanduser() if env else Path.home() / ".local" / "share" / "umpire"


class DrawnMaps:
    """The map drawings of the newest scene, by what was asked (`select`, `target`, `line`,
    `unit`): every table page asks for its map right after each frame event, so the pages of a
    crowd watching one scene get one drawing per distinct question, not one each. Forgotten as
    soon as a newer scene is asked for; at most `MOST` questions a scene are kept (the rest are
    drawn each time). Thread-safe: a drawing asked for by several pages at once is made once,
    the others wait for it; a drawing that fails fails alike for each of them."""

    MOST: Final = 64

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scene: object = None
        self._drawn: dict[Hashable, Future[str]] = {}

    def get(self, scene: object, question: Hashable, draw: Callable[[], str]) -> str:
        """The drawing of `scene` for `question`, `draw()` made once."""
        with self._lock:
            if scene is not self._scene:
                self._scene, self._drawn = scene, {}
            drawing = self._drawn.get(question)
            mine = drawing is None
            if drawing is None:
                drawing = Future()
                if len(self._drawn) < self.MOST:
                    self._drawn[question] = drawing
        if mine:
            try:
                drawing.set_result(draw())
            except BaseException as error:
                drawing.set_exception(error)
        return drawing.result()


@dataclass(frozen=True, slots=True)
class Umpire:
    """What the views share: the tracker, the data folder and the newest scene's maps."""

    live: Live | None
    """None only in an app made without a tracker (every live route then answers 503)."""
    data_dir: Path
    maps: DrawnMaps = field(default_factory=DrawnMaps)

    @property
    def snapshot_dir(self) -> Path:
        return self.data_dir / "snapshots"


def umpire() -> Umpire:
    """The shared objects of the app serving the current request."""
    shared = current_app.extensions["umpire"]
    assert isinstance(shared, Umpire)
    return shared


def create_app(test_config: dict[str, Any] | None = None, *, live: Live | None = None) -> Flask:
    """The app. `test_config` overrides settings (`DATA_DIR`, `MAX_CONTENT_LENGTH`,
    `CSRF_TOKEN`, `ACCESS_CODE`, `PUBLIC_URL`, `ALLOWED_HOSTS`, ...); `live` is the tracker to
    serve (started or not: the app does not start or stop it)."""
    app = Flask(__name__)
    # `/api//phase` is not `/api/phase`: no redirect (with an HTML body) between the two.
    app.url_map.merge_slashes = False
    app.config.from_mapping(
        CSRF_TOKEN=security.new_csrf_token(),
        ACCESS_CODE=None,  # `umpire serve` sets one when it listens beyond this machine
        PUBLIC_URL=None,  # the page's address for players (default: the request's own)
        ALLOWED_HOSTS=(),  # host names accepted beyond IP addresses and localhost
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        DATA_DIR=str(default_data_dir()),
        JSON_SORT_KEYS=False,
        SSE_HEARTBEAT_S=15.0,
        SSE_MAX_S=None,
        MJPEG_MAX_S=None,
        MJPEG_QUALITY=80,
    )
    if test_config is not None:
        app.config.from_mapping(test_config)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["umpire"] = Umpire(live, Path(app.config["DATA_DIR"]).expanduser())

    from .api import api
    from .stream import stream

    security.install(app)
    app.register_blueprint(api)
    app.register_blueprint(stream)
    from .calibrate import calibrate, install_calibration

    app.register_blueprint(calibrate)
    install_calibration(app)
    app.add_url_rule("/", "page", _page)
    app.add_url_rule("/show", "show", _show)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected_error)
    return app


def _page() -> ResponseReturnValue:
    """The table page, or a short note when the page's files are not there. The page carries
    the CSRF token; on the server's own machine it also carries the access code and its QR
    code, so the operator never types it (never cached: both change with each start)."""
    template = Path(current_app.root_path) / "templates" / "index.html"
    if not template.is_file():
        return NO_PAGE, 200, {"Content-Type": "text/html; charset=utf-8"}
    page = render_template("index.html", **security.page_secrets())
    return page, 200, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"}


def _show() -> ResponseReturnValue:
    """`/show`: the full-screen view for a projector or a TV at a show - the map, the last
    ruling in words, the turn, phase and side - updating live, for watching only."""
    template = Path(current_app.root_path) / "templates" / "show.html"
    if not template.is_file():
        return NO_PAGE, 200, {"Content-Type": "text/html; charset=utf-8"}
    return (
        render_template("show.html"),
        200,
        {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"},
    )


def _http_error(error: HTTPException) -> ResponseReturnValue:
    """Any HTTP error as JSON, with what was wrong and what is accepted."""
    code = error.code or 500
    if code == 404:
        message = "no such page or API route; routes: /, /show, /api/status, /api/source/next, "
        message += "/api/scene, /api/resolve, "
        message += "/api/suggest, /api/rulesets, /api/actions, /api/sheets, /api/phase, "
        message += "/api/results, /api/log, /api/replay, "
        message += "/api/map.svg, /api/snapshot, "
        message += "/api/snapshots, /snapshots/<id>.png|.json, /api/access-check, "
        message += "/api/access-qr.svg, /events, /stream.mjpg, /calibrate, /api/calibration"
    elif code == 405:
        allowed = sorted(getattr(error, "valid_methods", None) or [])
        message = f"method not allowed here; accepted: {', '.join(allowed) or 'none'}"
    elif code == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        message = f"request body too large; accepted: at most {limit} bytes of JSON"
    else:
        message = error.description or error.name
    response = error.get_response()
    response.data = current_app.json.dumps({"error": message}).encode()
    response.content_type = "application/json"
    return response


def _unexpected_error(error: Exception) -> ResponseReturnValue:
    """A bug of ours: logged with its traceback, answered as JSON 500 without one."""
    current_app.logger.exception("unexpected error", exc_info=error)
    return {"error": f"internal error: {InternalServerError.description}"}, 500
