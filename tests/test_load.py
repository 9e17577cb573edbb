"""Load: 50 spectators on loopback follow the live view and the event stream for 60 s while
the tracker runs and a player confirms results; the tracker keeps at least 80% of the frame
rate it had alone, every spectator keeps getting pictures and events, and every result
confirmed with a 201 is in the game log afterwards.

The frames are the built-in demo's (1280x720, the skirmish-19c table), rendered beforehand and
played in a loop at 30 frames a second like a webcam, so the frame rate measured is the
tracker's and not the renderer's. Every loop has a deadline: the test stops by itself.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from werkzeug.serving import make_server

from vision.demo import open_demo_game
from vision.sources import BaseSource, FramePacer
from webui.app import create_app
from webui.gamelog import LOG_FILE, GameLog, install_log
from webui.live import Live

SPECTATORS = 50
BASELINE_S = 10.0
LOAD_S = 60.0
SOURCE_FPS = 30.0
CONFIRM_EVERY_S = 2.0


class LoopSource(BaseSource):
    """Pre-rendered frames played in a loop at `fps`, like a webcam."""

    live = True

    def __init__(self, frames: list[np.ndarray], fps: float) -> None:
        super().__init__("looped demo frames")
        self.frames = frames
        self.pacer = FramePacer(fps)
        self.played = 0

    def _open(self) -> None:
        pass

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        shown = self.pacer.wait(self.played)
        image = self.frames[self.played % len(self.frames)]
        self.played += 1
        return image, shown, self.description

    def _release(self) -> None:
        pass


@dataclass
class Spectator:
    """One viewer's two streams: counts of JPEG parts and events received."""

    pictures: int = 0
    events: int = 0
    error: str | None = None


def follow(port: int, path: str, marker: bytes, until: float, count: Any) -> None:
    """Read a stream until `until`, calling `count(n)` with the number of `marker`s seen."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        assert response.status == 200, f"{path}: HTTP {response.status}"
        tail = b""
        while time.monotonic() < until:
            chunk = response.read1(65536)
            if not chunk:
                break
            data = tail + chunk
            count(data.count(marker))
            tail = data[-len(marker) + 1 :]
    finally:
        conn.close()


def spectate(port: int, until: float, seen: Spectator) -> None:
    def pictures(n: int) -> None:
        seen.pictures += n

    def events(n: int) -> None:
        seen.events += n

    try:
        other = threading.Thread(
            target=follow, args=(port, "/events", b"event: frame", until, events), daemon=True
        )
        other.start()
        follow(port, "/stream.mjpg", b"Content-Type: image/jpeg", until, pictures)
        other.join(timeout=15)
    except (OSError, AssertionError, http.client.HTTPException) as error:
        seen.error = f"{type(error).__name__}: {error}"


def post(port: int, path: str, body: dict[str, Any], token: str) -> tuple[int, dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"Content-Type": "application/json", "X-CSRF-Token": token}
        conn.request("POST", path, json.dumps(body), headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def confirm_results(port: int, token: str, until: float, confirmed: list[int]) -> None:
    """A player asking a question and confirming the answer every couple of seconds."""
    while time.monotonic() < until:
        status, answer = post(
            port, "/api/resolve", {"action": "measure", "args": ["rifles", "zouaves"]}, token
        )
        if status == 200:
            status, result = post(
                port,
                "/api/results",
                {"resolution": answer["log_id"], "decision": "confirm", "note": "agreed"},
                token,
            )
            if status == 201:
                confirmed.append(int(result["id"]))
        time.sleep(CONFIRM_EVERY_S)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Live, int, Path, str]]:
    root = Path(__file__).resolve().parent.parent  # the small example table: rifles, zouaves...
    demo = open_demo_game(
        resolution=(1280, 720),
        realtime=False,
        game_path=root / "examples" / "games" / "skirmish.toml",
        layout_path=root / "examples" / "skirmish.json",
    )
    frames = [demo.read() for _ in range(45)]
    demo.close()
    images = [f.image for f in frames if f is not None]
    live = Live(LoopSource(images, SOURCE_FPS), demo.game).start()
    data = tmp_path_factory.mktemp("load")
    app = create_app({"DATA_DIR": str(data), "CSRF_TOKEN": "load-test-token"}, live=live)
    install_log(app, GameLog(data / LOG_FILE))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while live.state.scene is None:
        assert time.monotonic() < deadline, "the tracker never fitted the demo table"
        time.sleep(0.2)
    try:
        yield live, server.port, data, "load-test-token"
    finally:
        live.stop()
        server.shutdown()
        thread.join(timeout=10)


def scanned_per_second(live: Live, seconds: float) -> float:
    first, started = live.scanned, time.monotonic()
    time.sleep(seconds)
    return (live.scanned - first) / (time.monotonic() - started)


def test_fifty_spectators_for_a_minute_cost_the_tracker_under_a_fifth_of_its_frames(
    served: tuple[Live, int, Path, str],
) -> None:
    live, port, data, token = served
    alone = scanned_per_second(live, BASELINE_S)
    assert alone > 0.8 * SOURCE_FPS, f"the tracker alone scans {alone:.1f} fps"

    until = time.monotonic() + LOAD_S
    crowd = [Spectator() for _ in range(SPECTATORS)]
    threads = [threading.Thread(target=spectate, args=(port, until, s), daemon=True) for s in crowd]
    confirmed: list[int] = []
    player = threading.Thread(
        target=confirm_results, args=(port, token, until, confirmed), daemon=True
    )
    for t in threads:
        t.start()
    player.start()
    time.sleep(2.0)  # everybody connected
    loaded = scanned_per_second(live, LOAD_S - 4.0)
    for t in [*threads, player]:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a spectator never finished"

    pictures = sum(s.pictures for s in crowd)
    print(f"tracker {alone:.2f} fps alone, {loaded:.2f} fps under load; {pictures} pictures sent")
    assert loaded >= 0.8 * alone, f"tracker fps fell from {alone:.1f} to {loaded:.1f}"
    errors = [s.error for s in crowd if s.error]
    assert not errors, errors[:3]
    # Every spectator kept up: at least one picture and one event a second on average.
    assert min(s.pictures for s in crowd) >= LOAD_S
    assert min(s.events for s in crowd) >= LOAD_S
    assert len(confirmed) >= LOAD_S / CONFIRM_EVERY_S / 2

    log = GameLog(data / LOG_FILE)
    try:
        exported = log.export(log.games()[-1]["id"])
    finally:
        log.close()
    logged = {r["id"]: r for r in exported["results"]}
    assert set(confirmed) <= set(logged)
    assert all(logged[i]["decision"] == "confirm" for i in confirmed)
