"""The game log (webui/gamelog.py): round trips on a real SQLite file, WAL and FULL sync, dedupe,
the export, files that are not ours; its API (webui/api.py) through Flask's test client; the
replay (webui/replay.py) scanned back; `umpire log` (webui/logcli.py); and the crash test: a
child process killed with SIGKILL while it writes, the log intact and complete on reopening."""

from __future__ import annotations

import argparse
import copy
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.conftest import live_over_photo
from vision.game import load_game
from vision.pipeline import Scanner
from vision.sources import FrameSource
from webui.api import end_logged_game
from webui.app import create_app
from webui.gamelog import (
    APPLICATION_ID,
    LOG_FILE,
    SCHEMA_VERSION,
    GameLog,
    LogError,
    NotInLog,
    install_log,
)
from webui.live import Live
from webui.logcli import add_log_parser, run_log
from webui.replay import ReplaySource, open_replay

ROOT = Path(__file__).resolve().parent.parent
DEMO_GAME = ROOT / "examples" / "games" / "skirmish.toml"
DEMO_LAYOUT = ROOT / "examples" / "skirmish.json"
"""The small skirmish table of the examples (10 bases), photographed by the tests."""
LAYOUT: dict[str, Any] = json.loads(DEMO_LAYOUT.read_text())
"""A real scene (skirmish-19c, cm): rifles-1 at (20, 30), hussars-1 at (110, 80), ..."""
ANSWER = {"action": "measure", "distance": {"value": 12.5, "unit": "cm"}, "in_sight": True}


def moved(scene: dict[str, Any], unit: str, dy: float) -> dict[str, Any]:
    """A copy of `scene` with every base of `unit` moved `dy` (scene unit) along +y."""
    doc = copy.deepcopy(scene)
    for u in doc["units"]:
        if u["id"] == unit:
            for b in u["bases"]:
                b["y"] += dy
    return doc


@pytest.fixture
def log(tmp_path: Path) -> Iterator[GameLog]:
    with GameLog(tmp_path / LOG_FILE) as opened:
        yield opened


# --------------------------------------------------------------------------------- the file


def test_a_game_round_trips_through_the_file(tmp_path: Path) -> None:
    path = tmp_path / LOG_FILE
    with GameLog(path) as log:
        game = log.start_game("skirmish-19c", "demo", "ruleset = 'x'\n", started=1000.0)
        scene = log.record_scene(game, 1, "command", 7, LAYOUT, created=1001.0)
        asked = log.record_resolution(
            game, scene, "measure", ["rifles", "zouaves"], ANSWER, created=1002.0
        )
        result = log.record_result(
            asked, "override", {"hits": 2}, "the dice fell off", created=1003
        )
        log.record_snapshot(
            "20240101-120000-000",
            game,
            question={"action": "measure", "args": ["rifles", "zouaves"]},
            resolution=asked,
            scene=scene,
            created=1004.0,
        )
    with GameLog(path) as log:  # everything read back from the file, not from memory
        exported = log.export(game)
        assert log.latest_game() == game
    assert exported["format"] == "umpire-log/1"
    assert exported["game"] == {
        "id": game,
        "started": 1000.0,
        "ended": None,
        "ruleset": "skirmish-19c",
        "source": "demo",
        "game_toml": "ruleset = 'x'\n",
    }
    [logged_scene] = exported["scenes"]
    assert logged_scene["doc"] == LAYOUT
    assert (logged_scene["id"], logged_scene["turn"], logged_scene["phase"]) == (
        scene,
        1,
        "command",
    )
    assert logged_scene["frame"] == 7 and len(logged_scene["sha256"]) == 64
    assert exported["resolutions"] == [
        {
            "id": asked,
            "scene": scene,
            "action": "measure",
            "args": ["rifles", "zouaves"],
            "answer": ANSWER,
            "created": 1002.0,
        }
    ]
    assert exported["results"] == [
        {
            "id": result,
            "resolution": asked,
            "decision": "override",
            "result": {"hits": 2},
            "note": "the dice fell off",
            "created": 1003.0,
            "question": {"action": "measure", "args": ["rifles", "zouaves"]},
        }
    ]
    assert exported["snapshots"] == [
        {
            "id": "20240101-120000-000",
            "created": 1004.0,
            "question": {"action": "measure", "args": ["rifles", "zouaves"]},
            "resolution": asked,
            "scene": scene,
        }
    ]
    json.dumps(exported, allow_nan=False)  # JSON-ready as it is


def test_the_file_is_in_wal_mode_with_full_sync_and_marked_ours(log: GameLog) -> None:
    other = sqlite3.connect(log.path)
    try:
        assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert other.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert other.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        other.close()
    # synchronous is a setting of the connection, not of the file: 2 is FULL.
    assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2
    assert log._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_a_confirmed_result_is_committed_when_record_returns(log: GameLog) -> None:
    game = log.start_game("skirmish-19c", "demo")
    scene = log.record_scene(game, 1, None, None, LAYOUT)
    asked = log.record_resolution(game, scene, "measure", ["a", "b"], ANSWER)
    ident = log.record_result(asked, "confirm")
    # Another connection (another process would see the same) reads the committed row.
    other = sqlite3.connect(log.path)
    try:
        row = other.execute("SELECT resolution, decision FROM results WHERE id = ?", (ident,))
        assert row.fetchone() == (asked, "confirm")
    finally:
        other.close()


def test_repeated_scenes_and_answers_share_rows(log: GameLog) -> None:
    game = log.start_game("skirmish-19c", "demo")
    first = log.record_scene(game, 1, "command", 0, LAYOUT)
    assert log.record_scene(game, 1, "move-a", 9, copy.deepcopy(LAYOUT)) == first
    changed = log.record_scene(game, 1, "command", 10, moved(LAYOUT, "rifles", 1.0))
    next_turn = log.record_scene(game, 2, "command", 11, LAYOUT)
    assert len({first, changed, next_turn}) == 3  # a new place, or a new turn: a new row
    asked = log.record_resolution(game, first, "measure", ["rifles", "hart"], ANSWER)
    assert log.record_resolution(game, first, "measure", ["rifles", "hart"], ANSWER) == asked
    other_answer = {**ANSWER, "in_sight": False}
    assert log.record_resolution(game, first, "measure", ["rifles", "hart"], other_answer) != asked
    assert log.record_resolution(game, changed, "measure", ["rifles", "hart"], ANSWER) != asked
    assert log.record_resolution(game, first, "measure", ["hart", "rifles"], ANSWER) != asked
    counts = log.games()[0]
    assert (counts["scenes"], counts["resolutions"], counts["turns"]) == (3, 4, 2)


def test_unknown_ids_and_bad_decisions_are_refused(log: GameLog) -> None:
    game = log.start_game("skirmish-19c", "demo")
    scene = log.record_scene(game, 1, None, None, LAYOUT)
    with pytest.raises(NotInLog, match="no resolution 99"):
        log.record_result(99, "confirm")
    with pytest.raises(NotInLog, match="no resolution"):
        log.record_result(2**70, "confirm")
    asked = log.record_resolution(game, scene, "measure", [], ANSWER)
    with pytest.raises(LogError, match="'shrug' is not one of confirm, override"):
        log.record_result(asked, "shrug")
    with pytest.raises(NotInLog, match=r"no game 5; its games are 1"):
        log.record_scene(5, 1, None, None, LAYOUT)
    with pytest.raises(NotInLog, match="no scene 42 in game 1"):
        log.record_resolution(game, 42, "measure", [], ANSWER)
    with pytest.raises(NotInLog, match="no game 7"):
        log.export(7)


def test_games_are_listed_with_their_counts(log: GameLog) -> None:
    first = log.start_game("skirmish-19c", "demo", started=10.0)
    second = log.start_game("europe-19c", "camera:0", started=20.0)
    scene = log.record_scene(second, 1, None, None, LAYOUT)
    asked = log.record_resolution(second, scene, "measure", [], ANSWER)
    log.record_result(asked, "confirm")
    log.record_result(asked, "override", {"hits": 1})
    log.end_game(first, ended=15.0)
    listed = log.games()
    assert [g["id"] for g in listed] == [first, second]
    assert listed[0] | {} == {
        "id": first,
        "started": 10.0,
        "ended": 15.0,
        "ruleset": "skirmish-19c",
        "source": "demo",
        "turns": 0,
        "scenes": 0,
        "resolutions": 0,
        "results": 0,
        "snapshots": 0,
        "steps": 0,
    }
    assert (listed[1]["turns"], listed[1]["resolutions"], listed[1]["results"]) == (1, 1, 2)
    assert log.latest_game() == second


def test_a_closed_log_says_so(tmp_path: Path) -> None:
    log = GameLog(tmp_path / LOG_FILE)
    log.close()
    log.close()  # twice is fine
    with pytest.raises(LogError, match="is closed"):
        log.games()


# --------------------------------------------------------------------------------- not ours


def _same_bytes_after(path: Path, what: str) -> None:
    before = path.read_bytes()
    with pytest.raises(LogError) as caught:
        GameLog(path)
    message = str(caught.value)
    assert str(path) in message and what in message, message
    assert path.read_bytes() == before
    assert not Path(f"{path}-wal").exists()


def test_a_text_file_is_not_a_log_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / LOG_FILE
    path.write_text("these are my notes, not a database\n" * 200)
    _same_bytes_after(path, "not a readable Umpire game log")


def test_another_programs_database_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / LOG_FILE
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE accounts (name TEXT, balance REAL)")
    other.execute("INSERT INTO accounts VALUES ('club', 12.5)")
    other.commit()
    other.close()
    _same_bytes_after(path, "another program")


def test_a_log_from_a_newer_umpire_is_refused(tmp_path: Path) -> None:
    path = tmp_path / LOG_FILE
    GameLog(path).close()
    other = sqlite3.connect(path)
    other.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    other.commit()
    other.close()
    _same_bytes_after(path, "newer Umpire")


def test_a_damaged_log_is_refused(tmp_path: Path) -> None:
    path = tmp_path / LOG_FILE
    with GameLog(path) as log:
        game = log.start_game("skirmish-19c", "demo")
        for turn in range(1, 40):  # enough pages that some lie past the first
            log.record_scene(game, turn, None, None, moved(LAYOUT, "rifles", turn))
    raw = bytearray(path.read_bytes())
    page = 4096
    assert len(raw) > 4 * page
    raw[2 * page : len(raw) - page] = b"\xa5" * (len(raw) - 3 * page)  # pages 3.. overwritten
    path.write_bytes(bytes(raw))
    with pytest.raises(LogError, match="is damaged") as caught:
        GameLog(path)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == bytes(raw)


def test_a_folder_is_not_a_log(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="is not a file"):
        GameLog(tmp_path)


# --------------------------------------------------------------------------------- the API


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """The tracker over one clean photo of the demo layout, scanned once."""
    folder = tmp_path_factory.mktemp("photo")
    with live_over_photo(load_game(DEMO_GAME), LAYOUT, folder) as tracker:
        yield tracker


@pytest.fixture
def app(live: Live, tmp_path: Path) -> Iterator[Flask]:
    made = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")}, live=live)
    yield made
    opened = made.extensions.get("umpire_log")
    if isinstance(opened, GameLog):
        opened.close()


def post(client: FlaskClient, app: Flask, path: str, body: Any) -> Any:
    token = app.config.get("CSRF_TOKEN") or ""
    return client.post(path, json=body, headers={"X-CSRF-Token": token})


def ask(client: FlaskClient, app: Flask, action: str, *args: str) -> Any:
    """A player's question (by POST: logged, with a log_id)."""
    return post(client, app, "/api/resolve", {"action": action, "args": list(args)}).get_json()


def test_a_players_answers_carry_their_log_id_and_repeats_share_it(app: Flask) -> None:
    client = app.test_client()
    first = ask(client, app, "measure", "rifles", "zouaves")
    again = ask(client, app, "measure", "rifles", "zouaves")
    other = ask(client, app, "measure", "hart", "hussars")
    assert isinstance(first["log_id"], int)
    assert again["log_id"] == first["log_id"]  # same scene, same answer: one row
    assert len({first["log_id"], other["log_id"]}) == 2
    # Anybody's GET is answered the same, with no log_id, and never written.
    read = client.get("/api/resolve?action=measure&args=hart,hussars").get_json()
    assert read["log_id"] is None and client.get("/api/suggest").get_json()["log_id"] is None
    exported = GameLog(Path(app.config["DATA_DIR"]) / LOG_FILE).export(1)
    assert [(r["action"], r["args"]) for r in exported["resolutions"]] == [
        ("measure", ["rifles", "zouaves"]),
        ("measure", ["hart", "hussars"]),
    ]
    logged = exported["resolutions"][0]["answer"]
    assert logged == {k: v for k, v in first.items() if k not in ("log_id", "report_form")}
    assert exported["game"]["ruleset"] == "skirmish-19c"
    assert exported["game"]["game_toml"] == DEMO_GAME.read_text()  # kept for the replay
    assert len(exported["scenes"]) == 1 and exported["scenes"][0]["turn"] == 1


def test_results_are_recorded_and_listed_newest_first(app: Flask) -> None:
    client = app.test_client()
    asked = ask(client, app, "shoot", "rifles", "zouaves")["log_id"]
    confirmed = post(client, app, "/api/results", {"resolution": asked, "decision": "confirm"})
    assert confirmed.status_code == 201
    assert confirmed.get_json() | {"id": 0} == {
        "id": 0,
        "resolution": asked,
        "decision": "confirm",
        "step": None,  # no dice reported: nothing changed
        "lines": [],
    }
    body = {"resolution": asked, "decision": "override", "result": {"hits": 2}, "note": "wet"}
    overridden = post(client, app, "/api/results", body)
    assert overridden.status_code == 201
    shown = client.get("/api/log").get_json()
    assert shown["game"]["ruleset"] == "skirmish-19c" and shown["turn"] == 1
    assert (shown["scenes"], shown["resolutions"]) == (1, 1)
    assert [(r["id"], r["decision"], r["result"], r["note"]) for r in shown["results"]] == [
        (overridden.get_json()["id"], "override", {"hits": 2}, "wet"),
        (confirmed.get_json()["id"], "confirm", None, None),
    ]


@pytest.mark.parametrize(
    "body, status, fragment",
    [
        ({"resolution": 999, "decision": "confirm"}, 404, "no resolution 999"),
        ({"resolution": 2**80, "decision": "confirm"}, 404, "no resolution"),
        ({"resolution": "1", "decision": "confirm"}, 400, "'resolution' must be a log id"),
        ({"resolution": True, "decision": "confirm"}, 400, "'resolution' must be a log id"),
        ({"resolution": 0, "decision": "confirm"}, 400, "'resolution' must be a log id"),
        ({"decision": "confirm"}, 400, "'resolution' must be a log id"),
        ({"resolution": 1, "decision": "maybe"}, 400, "'decision' must be 'confirm' or"),
        ({"resolution": 1, "decision": "confirm", "result": [2]}, 400, "'result' must be"),
        ({"resolution": 1, "decision": "confirm", "note": "x" * 501}, 400, "at most 500"),
        ({"resolution": 1, "decision": "confirm", "note": 5}, 400, "'note' must be text"),
        ({"resolution": 1, "decision": "confirm", "who": "me"}, 400, "unknown key 'who'"),
        (
            {
                "resolution": 1,
                "decision": "confirm",
                "result": {"a": [[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]},
            },
            400,
            "nesting at most 16",
        ),
    ],
)
def test_bad_results_are_refused(app: Flask, body: Any, status: int, fragment: str) -> None:
    client = app.test_client()
    ask(client, app, "measure", "rifles", "zouaves")  # resolution 1 exists
    response = post(client, app, "/api/results", body)
    assert response.status_code == status, response.data
    assert fragment in response.get_json()["error"]
    assert client.get("/api/log").get_json()["results"] == []


@pytest.mark.parametrize(
    "raw",
    [b'{"resolution": 1, "decision": "confirm", "note": "\\ud800"}', b'{"a": NaN}', b"[" * 5000],
)
def test_results_refuse_bodies_json_cannot_carry(app: Flask, raw: bytes) -> None:
    token = app.config.get("CSRF_TOKEN") or ""
    response = app.test_client().post(
        "/api/results", data=raw, content_type="application/json", headers={"X-CSRF-Token": token}
    )
    assert response.status_code == 400 and "error" in response.get_json()


def test_a_new_turn_records_its_scene(app: Flask, live: Live) -> None:
    client = app.test_client()
    first, second = live.ruleset.phases[0], live.ruleset.phases[1]
    assert client.get("/api/log").get_json()["turn"] == 1
    assert post(client, app, "/api/phase", {"phase": second}).status_code == 200
    assert post(client, app, "/api/phase", {"phase": first}).status_code == 200
    assert client.get("/api/log").get_json()["turn"] == 2
    assert post(client, app, "/api/phase", {"phase": first}).status_code == 200  # no move: no turn
    shown = client.get("/api/log").get_json()
    assert shown["turn"] == 2 and shown["scenes"] == 2
    scenes = GameLog(Path(app.config["DATA_DIR"]) / LOG_FILE).scenes(1)
    assert [(s["turn"], s["phase"]) for s in scenes] == [(1, first), (2, first)]
    # the same still photo, logged for each turn (each scene says its turn, and its units'
    # state of that turn: the per-turn fields start afresh)
    assert [s["doc"]["turn"] for s in scenes] == [1, 2]

    def where(doc: dict[str, Any]) -> Any:
        return [[(b["id"], b["x"], b["y"]) for b in u["bases"]] for u in doc["units"]]

    assert where(scenes[0]["doc"]) == where(scenes[1]["doc"])


def test_a_snapshot_is_recorded(app: Flask) -> None:
    client = app.test_client()
    question = {"action": "measure", "args": ["rifles", "hussars"]}
    saved = post(client, app, "/api/snapshot", question).get_json()
    exported = GameLog(Path(app.config["DATA_DIR"]) / LOG_FILE).export(1)
    [snap] = exported["snapshots"]
    assert snap["id"] == saved["id"] and snap["question"] == question
    assert snap["resolution"] == saved["log_id"] == exported["resolutions"][0]["id"]
    assert snap["scene"] == exported["scenes"][0]["id"]


def test_an_installed_log_is_the_one_recorded_into(live: Live, tmp_path: Path) -> None:
    elsewhere = GameLog(tmp_path / "elsewhere.sqlite")
    made = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")}, live=live)
    install_log(made, elsewhere)
    ask(made.test_client(), made, "measure", "rifles", "zouaves")
    assert elsewhere.games()[0]["resolutions"] == 1
    assert not (tmp_path / "data" / LOG_FILE).exists()
    elsewhere.close()


def test_stopping_the_server_closes_the_log_and_leaves_the_game_to_resume(
    live: Live, tmp_path: Path
) -> None:
    made = create_app({"TESTING": True, "DATA_DIR": str(tmp_path)}, live=live)
    end_logged_game(made)  # nothing opened yet: nothing to close, no file made
    assert not (tmp_path / LOG_FILE).exists()
    made.test_client().get("/api/log")  # a read route opens (and makes) nothing
    assert not (tmp_path / LOG_FILE).exists()
    ask(made.test_client(), made, "measure", "rifles", "zouaves")  # the first write starts it
    end_logged_game(made)
    with GameLog(tmp_path / LOG_FILE) as log:
        [game] = log.games()
        assert game["ended"] is None  # not over: the next server of this game file resumes it
        assert log.unfinished_game(live.game_key) == game["id"]


def test_a_foreign_file_in_the_data_folder_is_a_clear_503(live: Live, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / LOG_FILE).write_text("not ours")
    made = create_app({"TESTING": True, "DATA_DIR": str(data)}, live=live)
    response = post(
        made.test_client(), made, "/api/resolve", {"action": "measure", "args": ["rifles", "hart"]}
    )
    assert response.status_code == 503
    assert "not a readable Umpire game log" in response.get_json()["error"]
    assert (data / LOG_FILE).read_text() == "not ours"


# --------------------------------------------------------------------------------- replay


def _logged_demo(path: Path) -> tuple[int, list[dict[str, Any]]]:
    """A log holding the demo game with two turns: the rifles 5 cm further up in turn 2."""
    scenes = [LAYOUT, moved(LAYOUT, "rifles", 5.0)]
    with GameLog(path) as log:
        log.start_game("skirmish-19c", "camera:0")  # game 1: no game file, not replayable
        game = log.start_game("skirmish-19c", "demo", DEMO_GAME.read_text())
        for turn, scene in enumerate(scenes, start=1):
            log.record_scene(game, turn, "command", turn, scene)
    return game, scenes


def _positions(scene: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Base centres in mm (the demo's scenes are in cm)."""
    assert scene["unit"] == "cm"
    return {b["id"]: (b["x"] * 10, b["y"] * 10) for u in scene["units"] for b in u["bases"]}


def test_a_replay_shows_each_logged_scene_where_it_was(tmp_path: Path) -> None:
    path = tmp_path / LOG_FILE
    game_id, scenes = _logged_demo(path)
    source, game = open_replay(path, game_id, realtime=False, fps=10.0, hold_s=0.2)
    assert isinstance(source, FrameSource) and isinstance(source, ReplaySource)
    assert source.description.startswith(f"replay of game {game_id}")
    assert source.live and game.ruleset == "skirmish-19c"
    assert source.hold_frames == 2  # 0.2 s at 10 frames a second
    scanner = Scanner(game)
    frames = [source.read() for _ in range(5)]
    for frame, shown in zip(frames[::2], (0, 1, 0), strict=True):  # frames 0, 2, 4
        assert frame is not None
        seen = _positions(dict(scanner.scan(frame.image).scene))
        truth = _positions(scenes[shown])
        assert set(seen) == set(truth)
        for base, (x, y) in truth.items():
            assert seen[base] == pytest.approx((x, y), abs=3.0), base  # within 3 mm
    assert frames[1] is not None and frames[0] is not None
    assert (frames[1].image == frames[0].image).all()  # a scene is held: the same picture
    source.close()


def test_a_replay_needs_a_known_game_with_its_game_file(tmp_path: Path) -> None:
    path = tmp_path / LOG_FILE
    game_id, _ = _logged_demo(path)
    with pytest.raises(NotInLog, match=r"no game 9; its games are 1, 2"):
        open_replay(path, 9)
    with pytest.raises(LogError, match=r"game 1 .* without its game file"):
        open_replay(path, 1)
    with pytest.raises(LogError, match="no game log at"):
        open_replay(tmp_path / "nothing" / LOG_FILE, game_id)
    assert not (tmp_path / "nothing").exists()


# --------------------------------------------------------------------------------- umpire log


def _umpire_log(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="umpire")
    add_log_parser(parser.add_subparsers(dest="command"))
    opts = parser.parse_args(["log", *argv])
    result = opts.run(opts)
    assert isinstance(result, int)
    return result


def test_umpire_log_lists_and_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    game_id, _ = _logged_demo(data / LOG_FILE)
    assert _umpire_log("--data", str(data)) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["game", "started", "ruleset", "turns"]
    assert lines[2].split()[0] == str(game_id) and "skirmish-19c" in lines[2]
    # 2 turns, 0 resolutions, 0 results, 0 steps, not ended
    assert lines[2].split()[-6:] == ["2", "0", "0", "0", "playing", "demo"]

    assert _umpire_log(str(game_id), "--json", "--data", str(data)) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["game"]["id"] == game_id and len(exported["scenes"]) == 2

    out = tmp_path / "game.json"
    assert _umpire_log(str(game_id), "--out", str(out), "--data", str(data)) == 0
    assert json.loads(out.read_text()) == exported


def test_umpire_log_errors_are_log_errors(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with pytest.raises(LogError, match="no game log at"):
        _umpire_log("--data", str(data))
    assert not data.exists()  # reading never creates a log
    _logged_demo(data / LOG_FILE)
    with pytest.raises(NotInLog, match="no game 5; its games are 1, 2"):
        _umpire_log("5", "--data", str(data))
    with pytest.raises(LogError, match="'latest' is not a game id; the log's games are 1, 2"):
        _umpire_log("latest", "--data", str(data))


def test_run_log_reads_the_default_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("UMPIRE_DATA", str(tmp_path))
    _logged_demo(tmp_path / LOG_FILE)
    opts = argparse.Namespace(game=None, json=True, out=None, data=None)
    assert run_log(opts) == 0
    assert [g["id"] for g in json.loads(capsys.readouterr().out)] == [1, 2]


# --------------------------------------------------------------------------------- crash test

WRITER = textwrap.dedent(
    """
    import json, sys
    from webui.gamelog import GameLog

    log = GameLog(sys.argv[1])
    game = log.start_game("skirmish-19c", "crash test")
    layout = json.loads(open(sys.argv[2]).read())
    n = 0
    while True:  # until killed
        n += 1
        layout["units"][0]["bases"][0]["x"] = n  # a new scene every time: a real write
        layout["padding"] = "x" * (n % 7000)     # rows of many sizes, spilling over pages
        scene = log.record_scene(game, 1 + n // 10, "command", n, layout)
        asked = log.record_resolution(game, scene, "measure", ["rifles", "hart"], {"n": n})
        result = log.record_result(asked, "confirm", {"n": n})
        print(result, asked, flush=True)  # printed only after the commit returned
    """
)


def _run_until_killed(path: Path, confirmed: int, timeout: float) -> list[tuple[int, int]]:
    """Start a writer on `path`, kill it with SIGKILL once it reported `confirmed` committed
    results (whatever it is writing then); every (result, resolution) it reported, the lines
    still in the pipe when it died included."""
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(DEMO_LAYOUT)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    timer = threading.Timer(timeout, child.kill)  # the test stops by itself, whatever happens
    timer.start()
    lines: list[str] = []
    try:
        assert child.stdout is not None and child.stderr is not None
        for line in child.stdout:
            lines.append(line)
            if len(lines) >= confirmed:
                os.kill(child.pid, signal.SIGKILL)
                break
        lines += child.stdout.readlines()  # printed before it died: committed too
        child.wait(timeout=30)
        errors = child.stderr.read()
    finally:
        timer.cancel()
        child.kill()
        child.wait(timeout=30)
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()
    assert len(lines) >= confirmed, errors
    assert child.returncode == -signal.SIGKILL
    return [(int(a), int(b)) for a, b in (line.split() for line in lines)]


def test_a_writer_killed_mid_game_loses_nothing_confirmed(tmp_path: Path) -> None:
    path = tmp_path / LOG_FILE
    everything: list[tuple[int, int]] = []
    for _ in range(3):  # three kills, each reopening what the last one left
        everything += _run_until_killed(path, confirmed=200, timeout=120)
        assert Path(f"{path}-wal").exists()  # killed with its WAL open: reopening recovers it
        db = sqlite3.connect(path)
        try:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            assert db.execute("PRAGMA foreign_key_check").fetchall() == []
            stored = dict(db.execute("SELECT id, resolution FROM results").fetchall())
            # Every result reported as committed is there, with its resolution and scene.
            for result, asked in everything:
                assert stored.get(result) == asked
            orphans = db.execute(
                "SELECT count(*) FROM resolutions r LEFT JOIN scenes s ON r.scene = s.id"
                " WHERE s.id IS NULL"
            ).fetchone()[0]
            assert orphans == 0
            # At most the write in flight is lost: nothing past the last report but one row.
            assert len(stored) - len(everything) in (0, 1)
        finally:
            db.close()
        with GameLog(path) as reopened:  # and Umpire itself opens it again
            assert reopened.latest_game() == len(reopened.games())
    assert len({result for result, _ in everything}) == len(everything) >= 600


def test_an_export_is_one_snapshot_while_a_server_writes(
    log: GameLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `umpire log` reads while `umpire serve` writes: a result confirmed between the export's
    # queries must not show up half (a result whose resolution is missing, or the reverse).
    game = log.start_game("skirmish-19c", "demo")
    scene = log.record_scene(game, 1, None, None, LAYOUT)
    first = log.record_resolution(game, scene, "measure", ["a", "b"], ANSWER)
    log.record_result(first, "confirm")
    with GameLog(log.path, read_only=True) as reader:
        read_game = reader.game

        def game_then_a_write(ident: int) -> dict[str, Any]:
            header = read_game(ident)  # the export's first query: its snapshot starts here
            later = log.record_resolution(game, scene, "measure", ["a", "c"], ANSWER)
            log.record_result(later, "override", result={"distance": 13})
            return header

        monkeypatch.setattr(reader, "game", game_then_a_write)
        during = reader.export(game)
        monkeypatch.undo()
        after = reader.export(game)
    assert [r["id"] for r in during["resolutions"]] == [first]
    assert [r["resolution"] for r in during["results"]] == [first]
    assert len(after["resolutions"]) == 2
    assert len(after["results"]) == 2


def test_a_replay_never_writes_the_log(tmp_path: Path) -> None:
    # A replay only reads: an empty file is refused as not a game log and left empty.
    empty = tmp_path / "umpire.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(LogError, match="empty"):
        open_replay(empty, 1)
    assert empty.read_bytes() == b""


def test_an_export_cut_short_by_sqlite_keeps_its_own_error(
    log: GameLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite rolls a transaction back by itself on some errors (I/O, a full disk): the export
    # must end with that error as a LogError, not with "cannot commit - no transaction".
    game = log.start_game("skirmish-19c", "demo")
    with GameLog(log.path, read_only=True) as reader:

        def rolled_back(ident: int) -> dict[str, Any]:
            reader._db.execute("ROLLBACK")
            raise LogError("game log: cannot be read (disk I/O error)")

        monkeypatch.setattr(reader, "_export", rolled_back)
        with pytest.raises(LogError, match="disk I/O error"):
            reader.export(game)
        assert not reader._db.in_transaction
