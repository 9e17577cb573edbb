"""The JSON API of `umpire serve` (webui/api.py, webui/app.py), route by route, through Flask's
test client: what each answers on a scanned skirmish-19c table, and the 4xx JSON error (naming
what is wrong) for every kind of bad request."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.conftest import live_over_photo, run_umpire
from vision.game import load_game
from vision.sources import open_source
from webui.app import MAX_BODY_BYTES, create_app
from webui.cli import main
from webui.live import Live

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "games" / "skirmish.toml"
LAYOUT = ROOT / "examples" / "skirmish.json"
PHASES = ["command", "move-a", "shoot-a", "actions-b", "shoot-b", "melee"]  # sheet lines 84-89
TOKEN = "test-csrf-token"
CSRF = {"X-CSRF-Token": TOKEN}
"""Every POST carries the page's CSRF token (webui/security.py); tests/test_security.py checks
that one without it is refused."""


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """The tracker over one photo of skirmish.json (1280x720, a clean render), scanned once."""
    folder = tmp_path_factory.mktemp("photo")
    with live_over_photo(load_game(GAME), json.loads(LAYOUT.read_text()), folder) as tracker:
        yield tracker
    assert not [t for t in threading.enumerate() if t.name.startswith("umpire-")]


@pytest.fixture
def app(live: Live, tmp_path: Path) -> Flask:
    config = {"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "CSRF_TOKEN": TOKEN}
    return create_app(config, live=live)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def error_of(response: Any, status: int, *fragments: str) -> str:
    """The JSON error of a response, checked for its status and the words it must contain."""
    assert response.status_code == status, response.data[:300]
    assert response.is_json, response.data[:300]
    message = response.get_json()["error"]
    for fragment in fragments:
        assert fragment in message, message
    return str(message)


def logged(answer: dict[str, Any], *, by_post: bool = False) -> dict[str, Any]:
    """An API answer without what the server adds to the rules' answer (the `log_id` of the game
    log: an int for a player's POST, None for anybody's GET; the form for the dice), so it can
    be compared with what the command line prints; `band_range`, where the named band starts and
    ends, for the page's range row)."""
    rest = dict(answer)
    rest.pop("band_range", None)
    log_id = rest.pop("log_id", 0)
    assert isinstance(log_id, int) if by_post else log_id is None, log_id
    rest.pop("report_form", None)
    return rest


def cli_json(*args: str | Path) -> Any:
    """What the `umpire` command prints with --json (run in-process, `main(argv)`)."""
    done = run_umpire(*args, "--json", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def scene_file(client: FlaskClient, tmp_path: Path) -> Path:
    """The server's current scene, written where the CLI can read it."""
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(client.get("/api/scene").get_json()))
    return path


# --------------------------------------------------------------------------------- status, scene


def test_status_reports_the_game_and_what_was_seen(client: FlaskClient) -> None:
    response = client.get("/api/status")
    assert response.status_code == 200
    status = response.get_json()
    assert status["ruleset"] == "skirmish-19c" and status["unit"] == "cm"
    assert status["phases"] == PHASES and status["phase"] == "command"
    assert status["camera_lost"] is False
    assert status["live"] is False  # a photo is not a live source
    assert status["source_state"] == "still" and status["source_words"] == "still photo table.png"
    assert status["error"] is None and status["can_step"] is False
    assert status["frame"] == 0
    assert 0 < status["captured"] <= status["updated"]  # the photo's capture, wall clock
    assert status["latency_ms"] == {"median": None, "p95": None, "events": 0, "window_s": 10.0}
    assert status["calibration"]["unit"] == "cm" and status["calibration"]["rms"] >= 0
    # skirmish.toml: 4 rifles + 3 zouaves + 2 hussars + 1 hero = 10 bases.
    assert sum(status["bases"].values()) == 10
    assert status["unknown_tags"] == [] and status["duplicate_tags"] == []
    assert isinstance(status["fps"], float) and isinstance(status["updated"], float)


def test_scene_is_the_latest_scene_document(client: FlaskClient) -> None:
    doc = client.get("/api/scene").get_json()
    assert doc["format"] == "umpire-scene/1" and doc["ruleset"] == "skirmish-19c"
    assert "detection" in doc
    ids = {b["id"] for u in doc["units"] for b in u["bases"]}
    assert {"rifles-1", "zouaves-1", "hussars-1", "hart"} <= ids


def test_routes_that_need_a_scene_answer_503_before_the_first_frame(tmp_path: Path) -> None:
    game = load_game(GAME)
    photo = tmp_path / "x.png"
    cv2.imwrite(str(photo), np.zeros((64, 64, 3), np.uint8))
    idle = Live(open_source(str(photo)), game)  # never started: no frame yet
    try:
        client = create_app({"TESTING": True, "DATA_DIR": str(tmp_path)}, live=idle).test_client()
        for path in ("/api/scene", "/api/resolve?action=measure&args=rifles,zouaves"):
            error_of(client.get(path), 503, "no scene yet")
        assert client.get("/api/status").get_json()["frame"] == -1
    finally:
        idle.stop()


def test_an_app_without_a_tracker_says_so(tmp_path: Path) -> None:
    client = create_app({"TESTING": True, "DATA_DIR": str(tmp_path)}).test_client()
    error_of(client.get("/api/status"), 503, "no tracker")


# --------------------------------------------------------------------------------- resolve


@pytest.mark.parametrize(
    "action, args",
    [
        ("measure", ["rifles", "zouaves"]),
        ("measure", ["hart", "hussars-1"]),
        ("shoot", ["rifles", "zouaves"]),
        ("command", ["rifles"]),
    ],
)
def test_resolve_equals_the_cli_on_the_same_scene(
    client: FlaskClient, scene_file: Path, action: str, args: list[str]
) -> None:
    expected = cli_json("resolve", scene_file, action, *args)
    by_get = client.get(f"/api/resolve?action={action}&args={','.join(args)}")
    assert by_get.status_code == 200
    assert logged(by_get.get_json()) == expected
    by_post = client.post("/api/resolve", headers=CSRF, json={"action": action, "args": args})
    assert by_post.status_code == 200
    assert logged(by_post.get_json(), by_post=True) == expected


@pytest.mark.parametrize(
    "query, fragments",
    [
        ("action=fly&args=rifles", ["has no action 'fly'", "measure"]),
        ("action=measure&args=rifles", ["measure takes 2 arguments", "got 1"]),
        ("action=measure&args=rifles,nobody", ["'nobody'", "ids are"]),
        ("action=command&args=zouaves-2", ["zouaves-2", "role"]),
        ("args=rifles,zouaves", ["missing 'action'"]),
        ("action=measure&args=rifles,,zouaves", ["empty id"]),
        ("action=measure&args=rifles,zouaves&unit=in", ["unknown parameter 'unit'"]),
    ],
)
def test_resolve_rejects_bad_questions(
    client: FlaskClient, query: str, fragments: list[str]
) -> None:
    error_of(client.get(f"/api/resolve?{query}"), 400, *fragments)


@pytest.mark.parametrize(
    "body, fragments",
    [
        (b"{not json", ["not JSON"]),
        (b"[1, 2]", ["JSON list", "a JSON object"]),
        (b'{"args": ["rifles"]}', ["'action' must be an action name"]),
        (b'{"action": "measure", "args": "rifles,zouaves"}', ["'args' must be a list of ids"]),
        (b'{"action": "measure", "args": ["rifles", 3]}', ["'args' must be a list of ids"]),
        (b'{"action": "measure", "args": [], "why": 1}', ["unknown key 'why'"]),
        (b'{"action": "shoot", "args": ["rifles", "ghosts"]}', ["'ghosts'"]),
    ],
)
def test_resolve_by_post_rejects_bad_bodies(
    client: FlaskClient, body: bytes, fragments: list[str]
) -> None:
    response = client.post("/api/resolve", headers=CSRF, data=body, content_type="application/json")
    error_of(response, 400, *fragments)


def test_a_body_too_large_is_refused(client: FlaskClient) -> None:
    big = json.dumps({"action": "measure", "args": ["x" * MAX_BODY_BYTES]})
    response = client.post("/api/resolve", headers=CSRF, data=big, content_type="application/json")
    error_of(response, 413, "too large", str(MAX_BODY_BYTES))


# ------------------------------------------------------------------------- suggest, rulesets


def test_suggest_lists_every_phase_or_one(client: FlaskClient, scene_file: Path) -> None:
    every = client.get("/api/suggest").get_json()
    assert every["action"] == "suggest" and every["phases"] == PHASES
    assert logged(every) == cli_json("resolve", scene_file, "suggest")
    one = client.get("/api/suggest?phase=shoot-a")
    assert one.status_code == 200 and one.get_json()["phase"] == "shoot-a"


def test_suggest_rejects_an_unknown_phase(client: FlaskClient) -> None:
    error_of(client.get("/api/suggest?phase=lunch"), 400, "unknown phase 'lunch'", "melee")


def test_rulesets_is_what_the_cli_prints(
    client: FlaskClient, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rulesets", "--json"]) == 0
    assert client.get("/api/rulesets").get_json() == json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------------- phase


def test_phase_is_set_and_shown_in_the_status(client: FlaskClient) -> None:
    response = client.post("/api/phase", headers=CSRF, json={"phase": "shoot-a"})
    assert response.status_code == 200
    answer = response.get_json()
    assert (answer["phase"], answer["phases"], answer["turn"]) == ("shoot-a", PHASES, 1)
    assert answer["step"]["edits"] == [
        {
            "scope": "game",
            "target": "game",
            "field": "phase",
            "before": "command",
            "after": "shoot-a",
        }
    ]
    assert client.get("/api/status").get_json()["phase"] == "shoot-a"


@pytest.mark.parametrize(
    "body, fragments",
    [
        ({"phase": "lunch"}, ["unknown phase 'lunch'", "'command'"]),
        ({"phase": 3}, ["unknown phase 3"]),
        ({}, ["missing 'phase'"]),
        ({"phase": "melee", "also": 1}, ["unknown key 'also'"]),
    ],
)
def test_phase_rejects_bad_bodies(client: FlaskClient, body: Any, fragments: list[str]) -> None:
    error_of(client.post("/api/phase", headers=CSRF, json=body), 400, *fragments)
    assert client.get("/api/status").get_json()["phase"] == "command"


# --------------------------------------------------------------------------------- map


def test_map_is_svg(client: FlaskClient) -> None:
    response = client.get("/api/map.svg?select=rifles&target=zouaves&unit=in")
    if response.status_code == 503:  # the map's module is not in this copy
        error_of(response, 503, "map not available")
        return
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert "<svg" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "query, fragments",
    [
        ("select=nobody", ["'nobody'"]),
        ("unit=furlong", ["furlong"]),
        ("zoom=2", ["unknown parameter 'zoom'"]),
    ],
)
def test_map_rejects_bad_parameters(client: FlaskClient, query: str, fragments: list[str]) -> None:
    response = client.get(f"/api/map.svg?{query}")
    if response.status_code == 503 and "zoom" not in query:
        return  # no map module: nothing to ask it
    error_of(response, 400, *fragments)


# --------------------------------------------------------------------------------- snapshots


def test_snapshot_freezes_frame_overlay_and_answer(
    client: FlaskClient, app: Flask, tmp_path: Path
) -> None:
    question = {"action": "measure", "args": ["rifles", "hussars"]}
    response = client.post("/api/snapshot", headers=CSRF, json=question)
    assert response.status_code == 201
    saved = response.get_json()
    ident = saved["id"]
    folder = tmp_path / "data" / "snapshots"
    assert sorted(p.name for p in folder.iterdir()) == [f"{ident}.json", f"{ident}.png"]
    assert saved["png"] == f"/snapshots/{ident}.png" and saved["json"] == f"/snapshots/{ident}.json"

    listed = client.get("/api/snapshots").get_json()
    assert [s["id"] for s in listed] == [ident]
    assert listed[0]["question"] == question

    picture = client.get(saved["png"])
    assert picture.status_code == 200 and picture.mimetype == "image/png"
    image = cv2.imdecode(np.frombuffer(picture.data, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and image.shape == (720, 1280, 3)
    record = client.get(saved["json"]).get_json()
    answer = client.post("/api/resolve", headers=CSRF, json=question).get_json()
    assert record["resolution"] == {k: v for k, v in answer.items() if k != "report_form"}
    assert record["scene"]["format"] == "umpire-scene/1"


def test_snapshot_without_a_question_and_two_in_a_row(client: FlaskClient) -> None:
    first = client.post("/api/snapshot", headers=CSRF).get_json()
    second = client.post("/api/snapshot", headers=CSRF, json={}).get_json()
    assert first["id"] != second["id"]
    assert {s["id"] for s in client.get("/api/snapshots").get_json()} == {
        first["id"],
        second["id"],
    }


def test_snapshot_with_a_bad_question_writes_nothing(client: FlaskClient, tmp_path: Path) -> None:
    error_of(
        client.post("/api/snapshot", headers=CSRF, json={"action": "fly", "args": []}), 400, "'fly'"
    )
    error_of(
        client.post("/api/snapshot", headers=CSRF, data=b"{", content_type="application/json"),
        400,
        "JSON",
    )
    assert client.get("/api/snapshots").get_json() == []
    assert not (tmp_path / "data" / "snapshots").exists()


@pytest.mark.parametrize(
    "path, status, fragments",
    [
        ("/snapshots/..%2f..%2fetc%2fpasswd.json", 404, ["no snapshot"]),
        ("/snapshots/../../etc/passwd.json", 404, []),
        ("/snapshots/%2e%2e/%2e%2e/etc/passwd.json", 404, []),
        ("/snapshots/20240101-120000-000.json", 404, ["no snapshot '20240101-120000-000'"]),
        ("/snapshots/anything.txt", 400, ["not a snapshot file", "ID.png"]),
        ("/snapshots/noextension", 400, ["not a snapshot file"]),
    ],
)
def test_snapshot_files_are_served_only_by_listed_id(
    client: FlaskClient, path: str, status: int, fragments: list[str]
) -> None:
    client.post("/api/snapshot", headers=CSRF)  # one real snapshot, so the folder exists
    error_of(client.get(path), status, *fragments)


def test_a_snapshot_file_dropped_in_by_hand_is_not_served(
    client: FlaskClient, tmp_path: Path
) -> None:
    folder = tmp_path / "data" / "snapshots"
    folder.mkdir(parents=True)
    (folder / "secret.json").write_text("{}")
    (folder / "secret.png").write_bytes(b"")
    error_of(client.get("/snapshots/secret.json"), 404, "no snapshot 'secret'")
    assert client.get("/api/snapshots").get_json() == []


# --------------------------------------------------------------------------------- the rest


def test_page_is_html(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert "Umpire" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "method, path, allowed",
    [
        ("delete", "/api/scene", "GET"),
        ("post", "/api/status", "GET"),
        ("get", "/api/phase", "POST"),
        ("get", "/api/snapshot", "POST"),
        ("put", "/api/resolve", "POST"),
        ("post", "/stream.mjpg", "GET"),
        ("post", "/events", "GET"),
        ("post", "/", "GET"),
    ],
)
def test_wrong_method_is_405_json(
    client: FlaskClient, method: str, path: str, allowed: str
) -> None:
    error_of(getattr(client, method)(path), 405, "method not allowed", allowed)


def test_unknown_route_is_404_json(client: FlaskClient) -> None:
    error_of(client.get("/api/nothing"), 404, "no such page", "/api/status")


@pytest.mark.parametrize(
    "query, fragments",
    [("select=nobody", ["'nobody'", "ids are"]), ("fps=3", ["unknown parameter 'fps'"])],
)
def test_mjpeg_rejects_bad_parameters(
    client: FlaskClient, query: str, fragments: list[str]
) -> None:
    error_of(client.get(f"/stream.mjpg?{query}"), 400, *fragments)


def test_events_start_with_the_current_frame(app: Flask, live: Live) -> None:
    app.config["SSE_MAX_S"] = 0.5  # no new frame comes from a photo: the stream ends by itself
    response = app.test_client().get("/events")
    text = response.get_data(as_text=True)
    assert response.mimetype == "text/event-stream"
    event = next(e for e in text.split("\n\n") if e.startswith("event: frame"))
    data = json.loads(event.split("data: ", 1)[1])
    assert data["frame"] == 0 and data["status"]["ruleset"] == "skirmish-19c"


def test_next_photo_of_a_still_photo_is_409_saying_why(client: FlaskClient) -> None:
    error_of(client.post("/api/source/next", headers=CSRF), 409, "one photo", "no next photo")
    error_of(client.post("/api/source/next", json={"photo": 3}, headers=CSRF), 400, "no body")
    error_of(client.get("/api/source/next"), 405, "POST")


def test_next_photo_steps_a_folder_and_says_which_photo_comes(tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    for n in (1, 2, 3):
        cv2.imwrite(str(folder / f"p{n}.png"), np.full((48, 64, 3), 40 * n, np.uint8))
    tracker = Live(open_source(str(folder), step=True), load_game(GAME))
    config = {"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "CSRF_TOKEN": TOKEN}
    client = create_app(config, live=tracker).test_client()
    # Not started: the folder waits on its first photo, each ask brings the next one.
    first = client.post("/api/source/next", headers=CSRF)
    assert first.status_code == 200 and first.get_json() == {"photo": 2, "photos": 3}
    assert client.post("/api/source/next", json={}, headers=CSRF).get_json()["photo"] == 3
    error_of(client.post("/api/source/next", headers=CSRF), 409, "all 3 photos", "--at-end loop")
    assert client.post("/api/source/next").status_code == 403  # a change needs the token
    tracker.stop()


def test_serve_needs_a_game_for_a_camera(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--source", "camera:0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs --game" in err
