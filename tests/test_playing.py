"""The game in play behind `umpire serve` (webui/playing.py and the state routes of
webui/api.py): state set by hand, bases taken off and held, undo, the end of a game and a new
one, every change in the log before it is answered, and a restarted server - a real one,
killed with SIGKILL - resuming the same turn, phase and state."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.test_api import CSRF, TOKEN, live  # noqa: F401  (the tracker over a scanned photo)
from webui.api import install_playing, open_playing
from webui.app import create_app
from webui.gamelog import LOG_FILE, GameLog, install_log
from webui.live import Live

ROOT = Path(__file__).resolve().parent.parent


def make_app(live: Live, data: Path) -> Flask:  # noqa: F811
    """The app as `umpire serve` makes it: its log and its game opened at start-up (a read
    route never opens or starts one: tests/test_read_routes.py)."""
    app = create_app({"TESTING": True, "DATA_DIR": str(data), "CSRF_TOKEN": TOKEN}, live=live)
    log = GameLog(data / LOG_FILE)
    install_log(app, log)
    install_playing(app, open_playing(log, live))
    return app


@pytest.fixture
def app(live: Live, tmp_path: Path) -> Flask:  # noqa: F811
    return make_app(live, tmp_path / "data")


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def bases_in_scene(client: FlaskClient) -> set[str]:
    scene = client.get("/api/scene").get_json()
    return {b["id"] for u in scene["units"] for b in u["bases"]}


def test_the_state_starts_from_the_game_file(client: FlaskClient) -> None:
    state = client.get("/api/state").get_json()
    assert (state["game"], state["turn"], state["phase"], state["ended"]) == (
        1,
        1,
        "command",
        False,
    )
    assert set(state["units"]) == {"rifles", "zouaves", "hussars", "captain-hart"}
    assert state["bases"]["zouaves-2"] == "zouaves"
    assert state["removed"] == [] and state["held"] == [] and state["undo"] is None


def test_fields_phases_and_dice_forms_carry_their_sheet_line(client: FlaskClient) -> None:
    # skirmish-19c's sheet (000_157c880a83b52d41.txt): `fired` is read from line 95, the
    # command phase is line 84; a shot at the zouaves (examples/games/skirmish.toml) asks the
    # hits (lines 40-43), the kills and wounds of the damage dice (lines 45-49) and which of
    # the zouaves' bases came off.
    sheet = "000_157c880a83b52d41.txt"
    state = client.get("/api/state").get_json()
    fired = state["fields"]["fired"]
    assert (fired["kind"], fired["default"], fired["per_turn"]) == ("flag", False, True)
    assert (fired["source"], fired["quote"]) == (
        f"{sheet}:95",
        "- 1 Dice if Officer loading/Firing or in Melee",
    )
    command = state["phases"][0]
    assert (command["name"], command["acting"], command["source"]) == (
        "command",
        "A",
        f"{sheet}:84",
    )
    assert command["quote"] == "Player Characters dice for Command points"
    answer = client.get("/api/resolve?action=shoot&args=rifles,zouaves").get_json()
    form = {r["name"]: r for r in answer["report_form"]}
    assert list(form) == ["hits", "kills", "wounds", "taken_off"]
    assert [form[n]["kind"] for n in form] == ["count", "count", "count", "bases"]
    assert form["hits"]["source"] in {f"{sheet}:{line}" for line in range(40, 44)}
    assert form["kills"]["source"] in {f"{sheet}:{line}" for line in range(45, 50)}
    assert form["taken_off"]["unit"] == "zouaves"
    assert set(form["taken_off"]["bases"]) <= {"zouaves-1", "zouaves-2", "zouaves-3"}


def test_a_base_taken_off_leaves_the_scene_and_the_status_and_can_be_put_back(
    client: FlaskClient,
) -> None:
    assert "zouaves-2" in bases_in_scene(client)
    taken = client.post(
        "/api/state", json={"base": "zouaves-2", "set": {"removed": True}}, headers=CSRF
    )
    assert taken.status_code == 200
    assert taken.get_json()["state"] == {"removed": True, "held": False}
    # At once, without waiting for a frame: the rules no longer count it ...
    assert "zouaves-2" not in bases_in_scene(client)
    measured = client.get("/api/resolve?action=measure&args=rifles,zouaves").get_json()
    assert measured["between"]["b"] != "zouaves-2"
    # ... and the status does not call it missing.
    bases = client.get("/api/status").get_json()["bases"]
    assert (bases["removed"], bases["missing"]) == (1, 0)
    back = client.post(
        "/api/state", json={"base": "zouaves-2", "set": {"removed": False}}, headers=CSRF
    )
    assert back.status_code == 200 and "zouaves-2" in bases_in_scene(client)


def test_a_whole_unit_taken_off_is_no_longer_asked_about(client: FlaskClient) -> None:
    for base in ("hussars-1", "hussars-2"):
        client.post("/api/state", json={"base": base, "set": {"removed": True}}, headers=CSRF)
    response = client.get("/api/resolve?action=measure&args=rifles,hussars")
    assert response.status_code == 400 and "'hussars'" in response.get_json()["error"]


def test_undo_takes_back_the_last_change_that_stands(client: FlaskClient) -> None:
    post = lambda path, body: client.post(path, json=body, headers=CSRF)  # noqa: E731
    assert post("/api/state/undo", {}).status_code == 409  # nothing yet
    post("/api/phase", {"phase": "shoot-a"})
    post("/api/state", {"base": "hart", "set": {"held": True}})
    state = client.get("/api/state").get_json()
    assert state["held"] == ["hart"] and state["undo"]["kind"] == "set"
    undone = post("/api/state/undo", {}).get_json()
    assert undone["step"]["kind"] == "undo"
    state = client.get("/api/state").get_json()
    assert state["held"] == [] and state["phase"] == "shoot-a"
    assert state["undo"]["kind"] == "phase"  # the next undo takes back the phase
    post("/api/state/undo", {})
    assert client.get("/api/state").get_json()["phase"] == "command"
    assert post("/api/state/undo", {}).status_code == 409


def test_a_new_turn_is_counted_and_logged(client: FlaskClient, app: Flask) -> None:
    for phase in ("move-a", "shoot-a", "actions-b", "shoot-b", "melee", "command"):
        answer = client.post("/api/phase", json={"phase": phase}, headers=CSRF).get_json()
    assert answer["turn"] == 2
    status = client.get("/api/status").get_json()
    assert (status["turn"], status["phase"]) == (2, "command")
    with GameLog(Path(app.config["DATA_DIR"]) / LOG_FILE, read_only=True) as log:
        steps = log.steps(1)
    assert [s["kind"] for s in steps] == ["phase"] * 6
    assert {"scope": "game", "target": "game", "field": "turn", "before": 1, "after": 2} in steps[
        -1
    ]["edits"]


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"unit": "rifles"}, "name one unit, base or the game"),
        ({"unit": "rifles", "base": "rifles-1", "set": {}}, "name one unit, base or the game"),
        ({"unit": "nobody", "set": {"casualties": 1}}, "no unit 'nobody'"),
        ({"base": "rifles-1", "set": {"removed": "yes"}}, "accepted: true or false"),
        ({"base": "rifles-1", "set": {"gone": True}}, "'gone' is not a base field"),
        ({"game": True, "set": {"phase": "lunch"}}, "phase is 'lunch'"),
        ({"unit": "rifles", "set": {}}, "nothing to set"),
        ({"unit": 5, "set": {"x": 1}}, "must be an id"),
        ({"unit": "rifles", "set": {"x": 1}, "why": 1}, "unknown key 'why'"),
    ],
)
def test_bad_state_changes_are_refused_and_change_nothing(
    client: FlaskClient, body: dict[str, Any], fragment: str
) -> None:
    before = client.get("/api/state").get_json()
    response = client.post("/api/state", json=body, headers=CSRF)
    assert response.status_code == 400, response.data
    assert fragment in response.get_json()["error"]
    assert client.get("/api/state").get_json() == before


def test_an_override_sets_values_by_hand_with_its_note(client: FlaskClient) -> None:
    question = {"action": "measure", "args": ["rifles", "zouaves"]}
    asked = client.post("/api/resolve", json=question, headers=CSRF).get_json()["log_id"]
    body = {
        "resolution": asked,
        "decision": "override",
        "note": "the zouave fled off the table",
        "changes": [{"base": "zouaves-3", "field": "removed", "value": True}],
    }
    saved = client.post("/api/results", json=body, headers=CSRF)
    assert saved.status_code == 201
    step = saved.get_json()["step"]
    assert step["kind"] == "override" and step["note"] == "the zouave fled off the table"
    assert client.get("/api/state").get_json()["removed"] == ["zouaves-3"]
    # One undo takes the whole override back.
    client.post("/api/state/undo", json={}, headers=CSRF)
    assert client.get("/api/state").get_json()["removed"] == []
    bad = {**body, "changes": [{"base": "zouaves-3", "field": "removed"}]}
    assert client.post("/api/results", json=bad, headers=CSRF).status_code == 400


def test_an_action_whose_result_changes_nothing_has_no_outcome(client: FlaskClient) -> None:
    question = {"action": "measure", "args": ["rifles", "zouaves"], "result": {}}
    response = client.post("/api/outcome", json=question, headers=CSRF)
    assert response.status_code == 400
    assert "changes no state the sheet keeps" in response.get_json()["error"]


def test_an_ended_game_takes_no_change_until_a_new_game(client: FlaskClient, app: Flask) -> None:
    client.post("/api/state", json={"base": "hart", "set": {"removed": True}}, headers=CSRF)
    assert client.post("/api/game/end", json={}, headers=CSRF).get_json() == {
        "game": 1,
        "ended": True,
    }
    refused = client.post("/api/phase", json={"phase": "melee"}, headers=CSRF)
    assert refused.status_code == 409 and "start a new game" in refused.get_json()["error"]
    assert client.get("/api/state").get_json()["ended"] is True
    made = client.post("/api/game/new", json={}, headers=CSRF)
    assert made.status_code == 201 and made.get_json()["game"] == 2
    state = client.get("/api/state").get_json()
    assert (state["game"], state["turn"], state["removed"], state["ended"]) == (2, 1, [], False)
    with GameLog(Path(app.config["DATA_DIR"]) / LOG_FILE, read_only=True) as log:
        games = log.games()
    assert [g["ended"] is not None for g in games] == [True, False]


def test_a_new_app_on_the_same_data_resumes_the_game(live: Live, tmp_path: Path) -> None:  # noqa: F811
    first = make_app(live, tmp_path).test_client()
    first.post("/api/phase", json={"phase": "shoot-b"}, headers=CSRF)
    first.post("/api/state", json={"base": "rifles-4", "set": {"removed": True}}, headers=CSRF)
    again = make_app(live, tmp_path).test_client()
    state = again.get("/api/state").get_json()
    assert (state["game"], state["resumed"], state["phase"], state["removed"]) == (
        1,
        True,
        "shoot-b",
        ["rifles-4"],
    )


# --------------------------------------------------------------------------------- a real server


def _serve(data: Path, *args: str, group: bool = False) -> tuple[subprocess.Popen[str], str]:
    """`umpire serve` started (`group`: as a terminal starts it, in a process group of its own)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "webui.cli", "serve", "--port", "0", "--fps", "4", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "UMPIRE_DATA": str(data)},
        start_new_session=group,
    )
    assert process.stdout is not None
    said = []
    for _ in range(5):
        line = process.stdout.readline()
        said.append(line)
        if line.startswith("umpire: serving"):
            port = re.search(r":(\d+)/", line).group(1)  # type: ignore[union-attr]
            game_line = process.stdout.readline()
            return process, f"http://127.0.0.1:{port}" + "\n" + game_line
    process.kill()
    pytest.fail(
        f"umpire serve did not start: {said} {process.stderr.read() if process.stderr else ''}"
    )


def _http(url: str, body: dict[str, Any] | None = None, token: str = "") -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("X-CSRF-Token", token)
    with urllib.request.urlopen(request, timeout=30) as response:
        return (
            json.loads(response.read())
            if "json" in response.headers["Content-Type"]
            else (response.read().decode())
        )


def test_kill_9_and_a_restart_resume_the_same_turn_phase_and_state(tmp_path: Path) -> None:
    process, said = _serve(tmp_path)
    url, game_line = said.split("\n", 1)
    try:
        assert game_line.startswith("umpire: game 1 starts at turn 1, command")
        page = _http(url + "/")
        token = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        for phase in ("move-a", "shoot-a", "actions-b", "shoot-b", "melee", "command", "move-a"):
            _http(url + "/api/phase", {"phase": phase}, token)
        # the built-in demo's player character, hart, taken off by hand
        _http(url + "/api/state", {"base": "hart", "set": {"removed": True}}, token)
        before = _http(url + "/api/state")
    finally:
        process.send_signal(signal.SIGKILL)  # no goodbye: whatever was answered is on disk
        process.wait(30)
    assert (before["turn"], before["phase"], before["removed"]) == (2, "move-a", ["hart"])
    process, said = _serve(tmp_path)
    url, game_line = said.split("\n", 1)
    try:
        assert game_line.startswith("umpire: resuming game 1 at turn 2, move-a")
        after = _http(url + "/api/state")
        assert {k: after[k] for k in ("game", "turn", "phase", "units", "removed", "held")} == {
            k: before[k] for k in ("game", "turn", "phase", "units", "removed", "held")
        }
        assert after["resumed"] is True
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    process, said = _serve(tmp_path, "--new-game")
    try:
        assert said.split("\n", 1)[1].startswith("umpire: game 2 starts at turn 1, command")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)


@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_stops_the_server_and_its_tracker_quietly(tmp_path: Path, presses: int) -> None:
    """Ctrl-C, once or twice (the second forces the stop), reaches the whole process group in a
    terminal: the server stops, its tracker's process with it, and nothing but `stopping` is
    said (a forced stop once logged the cancelled lifespan's traceback)."""
    process, said = _serve(tmp_path, group=True)
    try:
        url = said.split("\n", 1)[0]
        deadline = time.monotonic() + 60
        while _http(url + "/api/status")["frame"] < 1 and time.monotonic() < deadline:
            time.sleep(0.2)  # until a frame is scanned: the tracker's process has started
        children = _children(process.pid)
        assert children, "umpire serve runs its tracker in a process of its own"
        for _ in range(presses):  # impatient: the second press at once
            os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: to the whole process group
            time.sleep(0.01)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:  # a failed check above: nothing may outlive the test
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "Traceback" not in err and "Traceback" not in out, err
    assert out.rstrip().endswith("umpire: stopping"), out
    for child in children:
        assert not Path(f"/proc/{child}").exists() or "zombie" in _state_of(child)


def _children(pid: int) -> list[int]:
    """The processes `pid` started, from whichever of its threads (Linux's /proc)."""
    return [
        int(child)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for child in (task / "children").read_text().split()
    ]


def _state_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:", 1)[1].split("\n", 1)[0]
    except (OSError, IndexError):
        return "gone"


# --------------------------------------------------------------------------------- the tracker


def test_a_lost_base_is_named_missing_and_held_in_place_it_comes_back_where_it_was() -> None:
    from rules.engine import get_ruleset
    from rules.play import Edit, start
    from rules.state import Scope
    from tests.test_live import GAME, LAYOUT, ScriptedSource, wait_until
    from vision.game import load_game
    from vision.render import Effects, camera_for_table, render
    from vision.synthetic import table_spec
    from webui.playing import game_units

    game = load_game(GAME)
    layout = json.loads(LAYOUT.read_text())
    spec = table_spec(game, layout)
    camera = camera_for_table(spec, 1280, 720)
    full = render(spec, camera, Effects()).image
    for unit in layout["units"]:  # hart walks into the farmhouse: the camera loses him
        unit["bases"] = [b for b in unit["bases"] if b["id"] != "hart"]
    without = render(table_spec(game, layout), camera, Effects()).image
    source = ScriptedSource()
    tracker = Live(source, game, stale_seconds=0).start()
    try:
        source.feed(full)
        seen = wait_until(tracker, lambda s: s.frame == 0)
        assert seen.scene is not None
        where = seen.scene.base("hart")
        source.feed(without)
        state = wait_until(tracker, lambda s: s.frame == 1)
        assert state.status["missing_bases"] == ["hart"]
        assert state.scene is not None and "hart" not in state.scene.ids()
        # Held in place: back on the table where last seen, named missing no more.
        first = start(get_ruleset(game.ruleset), game_units(game))
        tracker.set_play(first.apply([Edit(Scope.BASE, "hart", "held", False, True)]))
        state = tracker.state
        assert state.scene is not None and state.scene.base("hart").attrs["held"] is True
        assert (state.scene.base("hart").x, state.scene.base("hart").y) == (where.x, where.y)
        source.feed(without)
        state = wait_until(tracker, lambda s: s.frame == 2)
        assert state.scene is not None and "hart" in state.scene.ids()
        assert state.status["missing_bases"] == []
        assert state.status["bases"]["stale"] == 1 and state.status["bases"]["held"] == 1
        # Taken off the table instead: not on it, and not missing either.
        tracker.set_play(first.apply([Edit(Scope.BASE, "hart", "removed", False, True)]))
        state = tracker.state
        assert state.scene is not None and "hart" not in state.scene.ids()
        assert state.status["missing_bases"] == [] and state.status["bases"]["removed"] == 1
        source.feed(None)
    finally:
        tracker.stop()


def test_a_base_lost_in_plain_view_is_warned_of_until_it_is_marked_removed() -> None:
    from rules.engine import get_ruleset
    from rules.play import Edit, start
    from rules.state import Scope
    from tests.test_live import GAME, LAYOUT, ScriptedSource, wait_until
    from vision.game import load_game
    from vision.render import Effects, camera_for_table, render
    from vision.synthetic import table_spec
    from vision.track import MISSING_AFTER
    from webui.playing import game_units

    game = load_game(GAME)
    layout = json.loads(LAYOUT.read_text())
    spec = table_spec(game, layout)
    camera = camera_for_table(spec, 1280, 720)
    full = render(spec, camera, Effects()).image
    for unit in layout["units"]:  # hart is taken off the table, his place in plain view
        unit["bases"] = [b for b in unit["bases"] if b["id"] != "hart"]
    without = render(table_spec(game, layout), camera, Effects()).image
    source = ScriptedSource()
    watcher = Live(source, game, stale_seconds=0).start()
    try:
        source.feed(full)
        wait_until(watcher, lambda s: s.frame == 0)
        frames = MISSING_AFTER + 2
        for i in range(1, frames + 1):
            source.feed(without)
            state = wait_until(watcher, lambda s, i=i: s.frame == i)
        assert state.status["lost_in_view"] == ["hart"]
        assert any(w.startswith("hart is not found") for w in state.status["warnings"])
        assert watcher.tracker.stats["helped"] == 1  # searched for, with help, every frame
        # The players mark him removed (a casualty): no warning, and the tracker stops looking.
        first = start(get_ruleset(game.ruleset), game_units(game))
        watcher.set_play(first.apply([Edit(Scope.BASE, "hart", "removed", False, True)]))
        for i in range(frames + 1, frames + 3):
            source.feed(without)
            state = wait_until(watcher, lambda s, i=i: s.frame == i)
        assert state.status["lost_in_view"] == []
        assert not any("hart" in w for w in state.status["warnings"])
        assert watcher.tracker.stats["helped"] == 0
        source.feed(None)
    finally:
        watcher.stop()
