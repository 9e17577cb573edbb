"""No read route writes (webui/api.py `_watched`): every GET route of the app, streams
included, on a data folder with no log (no file is made), on a log a served game left (its
bytes and modification time unchanged, no game or scene added) and on a server holding its log
open (`umpire serve`: the log's files, the WAL included, unchanged by every GET)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from tests.conftest import live_over_photo
from vision.game import load_game
from webui.api import install_playing, open_playing
from webui.app import create_app
from webui.gamelog import LOG_FILE, GameLog, install_log
from webui.live import Live

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "games" / "skirmish.toml"
LAYOUT = ROOT / "examples" / "skirmish.json"
TOKEN = "test-csrf-token"
CSRF = {"X-CSRF-Token": TOKEN}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    folder = tmp_path_factory.mktemp("photo")
    with live_over_photo(load_game(GAME), json.loads(LAYOUT.read_text()), folder) as tracker:
        yield tracker
    assert not [t for t in threading.enumerate() if t.name.startswith("umpire-")]


def make_app(live: Live, data: Path) -> Flask:
    config = {
        "TESTING": True,
        "DATA_DIR": str(data),
        "CSRF_TOKEN": TOKEN,
        "SSE_MAX_S": 0.3,  # the streams end by themselves
        "MJPEG_MAX_S": 0.3,
    }
    return create_app(config, live=live)


def read_routes(app: Flask) -> list[str]:
    """Every GET route of the app, with its parameters filled in."""
    filled = {
        "/static/<path:filename>": "/static/app.js",
        "/snapshots/<path:name>": "/snapshots/x.png",
    }
    routes = []
    for rule in app.url_map.iter_rules():
        if rule.methods is not None and "GET" in rule.methods:
            routes.append(filled.get(rule.rule, rule.rule))
    assert "/api/log" in routes and "/events" in routes and len(routes) >= 15, routes
    extra = [
        "/api/resolve?action=measure&args=rifles,hussars",
        "/api/suggest?phase=command",
        "/api/map.svg?select=rifles",
        "/stream.mjpg?select=rifles",
    ]
    return routes + extra


def ask_every_read_route(app: Flask) -> dict[str, int]:
    client = app.test_client()
    answered = {}
    for route in read_routes(app):
        for method in (client.get, client.head):
            response = method(route)
            response.get_data()  # a stream runs to its end
            answered[f"{method.__name__} {route}"] = response.status_code
            assert response.status_code < 500, (route, response.data[:300])
    return answered


def files(folder: Path) -> dict[str, tuple[bytes, int]]:
    if not folder.exists():
        return {}
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*"))}


def test_read_routes_on_a_fresh_data_folder_make_no_file(live: Live, tmp_path: Path) -> None:
    data = tmp_path / "data"
    app = make_app(live, data)
    answered = ask_every_read_route(app)
    assert answered["get /api/log"] == 200 and answered["get /api/state"] == 200
    log = app.test_client().get("/api/log").get_json()
    assert log["game"] is None and log["turn"] == 1 and log["results"] == []
    state = app.test_client().get("/api/state").get_json()
    assert state["game"] is None and (state["turn"], state["phase"]) == (1, "command")
    assert files(data) == {}


def test_read_routes_leave_a_served_games_log_as_it_was(live: Live, tmp_path: Path) -> None:
    data = tmp_path / "data"
    writer = make_app(live, data)
    asked = writer.test_client().post("/api/phase", headers=CSRF, json={"phase": "shoot-a"})
    assert asked.status_code == 200
    writer.extensions["umpire_log"].close()  # the server stopped
    before = files(data)
    assert list(before) == [LOG_FILE]

    app = make_app(live, data)
    ask_every_read_route(app)
    # A spectator sees the game as it stands, read from the log.
    state = app.test_client().get("/api/state").get_json()
    assert (state["game"], state["phase"]) == (1, "shoot-a")
    assert app.test_client().get("/api/log").get_json()["game"]["id"] == 1
    after = files(data)
    assert after[LOG_FILE] == before[LOG_FILE]  # the same bytes, the same mtime
    # A reader of a WAL log may make its -shm index; the WAL itself holds no frame.
    assert set(after) <= {LOG_FILE, f"{LOG_FILE}-wal", f"{LOG_FILE}-shm"}, list(after)
    assert after.get(f"{LOG_FILE}-wal", (b"", 0))[0] == b""
    with GameLog(data / LOG_FILE, read_only=True) as log:
        assert [g["id"] for g in log.games()] == [1]
        assert log.summary(1)["scenes"] == 1


def test_read_routes_of_a_running_server_write_nothing(live: Live, tmp_path: Path) -> None:
    """As `umpire serve` runs: its log and game opened at start-up, a player's write done."""
    data = tmp_path / "data"
    app = make_app(live, data)
    log = GameLog(data / LOG_FILE)
    install_log(app, log)
    install_playing(app, open_playing(log, live))
    client = app.test_client()
    assert (
        client.post(
            "/api/resolve", headers=CSRF, json={"action": "measure", "args": ["rifles", "hussars"]}
        ).status_code
        == 200
    )
    before = files(data)
    counted = log.games()
    ask_every_read_route(app)
    after = files(data)
    # The -shm file is SQLite's shared index of the WAL (its readers' marks), not the log.
    for name in (LOG_FILE, f"{LOG_FILE}-wal"):
        assert after[name] == before[name], name
    assert log.games() == counted
    log.close()
