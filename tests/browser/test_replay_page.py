"""Replay on the page (issue 15): `umpire serve --replay` says it is a replay (never "live"),
shows each scene's logged turn, phase, state and decisions, and has play, pause, step and
speed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from werkzeug.serving import make_server

from webui.app import create_app
from webui.gamelog import LOG_FILE
from webui.live import Live
from webui.replay import open_replay

from .conftest import Served


@pytest.fixture
def replay_page(browser: Browser, served: Served, tmp_path: Path) -> Iterator[Page]:
    """A game logged with one confirmed decision, then served again as a replay."""
    table = browser.new_page()
    table.goto(served.url + "/")
    csrf = table.get_attribute('meta[name="csrf-token"]', "content") or ""
    headers = {"X-CSRF-Token": csrf, "Origin": served.url}
    asked = table.request.post(
        served.url + "/api/resolve",
        headers=headers,
        data={"action": "measure", "args": ["rifles", "zouaves"]},
    )
    assert asked.ok, asked.text()
    done = table.request.post(
        served.url + "/api/results",
        headers=headers,
        data={"resolution": asked.json()["log_id"], "decision": "confirm"},
    )
    assert done.status == 201, done.text()
    game_id = table.request.get(served.url + "/api/state").json()["game"]
    table.close()
    served.stop()
    source, game = open_replay(
        served.data_dir / LOG_FILE, game_id, fps=10.0, hold_s=30.0, resolution=(960, 540)
    )
    live = Live(source, game).start()
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "replay-data")}, live=live)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{server.port}/")
    try:
        yield page
    finally:
        page.screenshot(path=str(tmp_path / "replay.png"))
        context.close()
        live.stop()
        server.shutdown()
        server.server_close()
        thread.join(10)


def test_replay_says_so_and_plays_pauses_steps_and_changes_speed(replay_page: Page) -> None:
    page = replay_page
    page.wait_for_selector("#replay:not([hidden])")
    assert page.inner_text("#replay-banner").startswith("REPLAY of game")
    page.wait_for_function(
        "() => document.getElementById('st-conn').dataset.state === 'replay'"
        " && document.getElementById('st-conn').textContent.startsWith('replay of game')"
    )
    assert page.inner_text("#replay-turn").startswith("logged: turn 1, phase ")
    # The scene's logged state and the decision taken with it.
    decisions = page.locator("#replay-decisions li")
    texts = [decisions.nth(i).inner_text() for i in range(decisions.count())]
    scenes = int(page.inner_text("#replay-where").split()[3])
    if scenes == 1:
        assert any(t.startswith("confirmed: measure rifles zouaves") for t in texts), texts
    assert page.locator("#replay-state .replay-unit").count() > 0
    # Pause, step (to the next logged scene, or round to the first), play, speed.
    page.locator("#replay-pause").click()
    page.wait_for_function(
        "() => document.getElementById('replay-where').textContent.endsWith('(paused)')"
    )
    before = page.inner_text("#replay-where")
    page.locator("#replay-step").click()
    page.wait_for_function(
        "b => document.getElementById('replay-where').textContent !== b || b.includes(' of 1 ')",
        arg=before,
    )
    page.locator("#replay-speed").select_option("2")
    page.wait_for_function("() => document.getElementById('replay-speed').value === '2'")
    page.locator("#replay-play").click()
    page.wait_for_function(
        "() => !document.getElementById('replay-where').textContent.endsWith('(paused)')"
    )
    state = page.request.get(page.url.rstrip("/") + "/api/replay").json()
    assert state["replay"] is True and state["speed"] == 2.0 and state["paused"] is False
