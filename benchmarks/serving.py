"""What the serving benchmarks (and tests/test_load.py) share: pre-rendered frames played like a
webcam, the real app served on loopback, and clients that follow its two streams as a page
does (`/events` and `/stream.mjpg`) or confirm results as a player does.

Nothing here measures or asserts anything by itself; every loop has a deadline.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from werkzeug.serving import make_server

from vision.sources import BaseSource, FramePacer
from webui.app import create_app
from webui.gamelog import LOG_FILE, GameLog, install_log
from webui.live import Live


class LoopSource(BaseSource):
    """Pre-rendered frames played at `fps` like a webcam: each frame is handed over when it is
    due (its capture time), so what is measured is the server's and not the renderer's.
    `pingpong` plays them forward then backward (no jump from the last frame to the first)."""

    live = True

    def __init__(self, frames: Sequence[np.ndarray], fps: float, *, pingpong: bool = False) -> None:
        super().__init__("looped frames")
        order = list(range(len(frames)))
        if pingpong and len(frames) > 2:
            order += order[-2:0:-1]
        self.frames = list(frames)
        self.order = order
        self.pacer = FramePacer(fps)
        self.played = 0

    def _open(self) -> None:
        pass

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        shown = self.pacer.wait(self.played)
        image = self.frames[self.order[self.played % len(self.order)]]
        self.played += 1
        return image, shown, self.description

    def _release(self) -> None:
        pass


@dataclass
class Served:
    live: Live
    port: int
    data: Path
    token: str


@contextmanager
def serve(live: Live, data: Path, token: str = "bench-token") -> Iterator[Served]:
    """The real app over `live` (started here) on a free loopback port, with a game log in
    `data`; waits for the first scene; stops the tracker and the server on leaving."""
    live.start()
    app = create_app({"DATA_DIR": str(data), "CSRF_TOKEN": token}, live=live)
    install_log(app, GameLog(data / LOG_FILE))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="bench-server", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 120
        while live.state.scene is None:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the tracker never fitted the table: {live.status()}")
            time.sleep(0.05)
        yield Served(live, server.port, data, token)
    finally:
        live.stop()
        server.shutdown()
        thread.join(timeout=10)


def get_json(port: int, path: str) -> Any:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def post(port: int, path: str, body: dict[str, Any], token: str) -> tuple[int, dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"Content-Type": "application/json", "X-CSRF-Token": token}
        conn.request("POST", path, json.dumps(body), headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def follow(
    port: int, path: str, until: float, chunk: Callable[[bytes], None], stop: threading.Event
) -> None:
    """Read a stream until `until` (or `stop`), handing every chunk read to `chunk`."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        if response.status != 200:
            raise http.client.HTTPException(f"{path}: HTTP {response.status}")
        while time.monotonic() < until and not stop.is_set():
            data = response.read1(65536)
            if not data:
                break
            chunk(data)
    finally:
        conn.close()


class Counter:
    """Counts a marker in a stream read in chunks (a marker split between two chunks too)."""

    def __init__(self, marker: bytes) -> None:
        self.marker = marker
        self.count = 0
        self._tail = b""

    def __call__(self, data: bytes) -> None:
        joined = self._tail + data
        self.count += joined.count(self.marker)
        self._tail = joined[-len(self.marker) + 1 :]


@dataclass
class Spectator:
    """One viewer's two streams: JPEG parts and frame events received."""

    pictures: Counter = field(default_factory=lambda: Counter(b"Content-Type: image/jpeg"))
    events: Counter = field(default_factory=lambda: Counter(b"event: frame"))
    error: str | None = None


def spectate(port: int, until: float, seen: Spectator, stop: threading.Event) -> None:
    """Follow the live view and the event stream together, as the table page does."""
    try:
        other = threading.Thread(
            target=follow, args=(port, "/events", until, seen.events, stop), daemon=True
        )
        other.start()
        follow(port, "/stream.mjpg", until, seen.pictures, stop)
        other.join(timeout=15)
    except (OSError, http.client.HTTPException) as error:
        seen.error = f"{type(error).__name__}: {error}"


def confirm_results(
    port: int, token: str, until: float, confirmed: list[int], every: float, stop: threading.Event
) -> None:
    """A player asking a question and confirming the answer every `every` seconds; the ids of
    the results the server said it recorded (201) go into `confirmed`."""
    while time.monotonic() < until and not stop.is_set():
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
        stop.wait(every)


def logged_results(data: Path) -> dict[int, dict[str, Any]]:
    """The results of the last game in the log under `data`, by id."""
    log = GameLog(data / LOG_FILE)
    try:
        exported = log.export(log.games()[-1]["id"])
    finally:
        log.close()
    return {int(r["id"]): r for r in exported["results"]}
