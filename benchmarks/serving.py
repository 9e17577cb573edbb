"""What the serving benchmarks (and tests/test_load.py) share: pre-rendered frames played like a
webcam, the real app served on loopback by `umpire serve`'s server (or, to compare, by another:
`SERVERS`), and clients that follow its two streams as a page does (`/events` and
`/stream.mjpg`) or confirm results as a player does. Each spectator comes from an address of its
own on the loopback network (127.0.1.x), as each phone at a show does: the server limits
connections per address.

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
from typing import Any, Final

import numpy as np

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


SERVERS: Final = ("umpire", "werkzeug", "waitress", "cheroot", "hypercorn")
"""`umpire` is `umpire serve`'s (webui/server.py: uvicorn, streams native); the others serve the
same app to compare (waitress, cheroot and hypercorn are not dependencies of Umpire: install
them to measure them). hypercorn serves the same ASGI app as `umpire` (streams native)."""


def spectator_address(index: int) -> str:
    """The loopback address spectator `index` connects from: 127.0.1.1, 127.0.1.2, ..."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


@contextmanager
def _running(app: Any, server: str, threads: int) -> Iterator[int]:
    """`app` served by `server` on a free loopback port: yields the port."""
    if server == "umpire":
        from webui.server import Server, listen

        running = Server(app, listen("127.0.0.1", 0)).start()
        try:
            yield running.port
        finally:
            running.stop()
    elif server == "werkzeug":
        from werkzeug.serving import make_server

        dev = make_server("127.0.0.1", 0, app, threaded=True)
        thread = threading.Thread(target=dev.serve_forever, name="bench-server", daemon=True)
        thread.start()
        try:
            yield dev.port
        finally:
            dev.shutdown()
            thread.join(timeout=10)
    elif server == "waitress":
        import waitress

        pool = waitress.create_server(
            app, host="127.0.0.1", port=0, threads=threads, connection_limit=threads + 100
        )
        thread = threading.Thread(target=pool.run, name="bench-server", daemon=True)
        thread.start()
        try:
            yield int(pool.effective_port)
        finally:
            pool.close()
            thread.join(timeout=10)
    elif server == "cheroot":
        from cheroot import wsgi

        pool = wsgi.Server(("127.0.0.1", 0), app, numthreads=threads, max=-1)
        pool.prepare()
        thread = threading.Thread(target=pool.serve, name="bench-server", daemon=True)
        thread.start()
        try:
            yield int(pool.bind_addr[1])
        finally:
            pool.stop()
            thread.join(timeout=10)
    elif server == "hypercorn":
        import asyncio

        from hypercorn.asyncio import serve as hyper_serve
        from hypercorn.config import Config

        from webui.server import UmpireASGI, listen

        sock = listen("127.0.0.1", 0)
        port = sock.getsockname()[1]
        sock.close()
        config = Config()
        config.bind = [f"127.0.0.1:{port}"]
        config.accesslog = None
        config.errorlog = None
        stop = asyncio.Event()
        loop = asyncio.new_event_loop()
        asgi = UmpireASGI(app)
        thread = threading.Thread(
            target=loop.run_until_complete,
            args=(hyper_serve(asgi, config, shutdown_trigger=stop.wait),),
            daemon=True,
        )
        thread.start()
        time.sleep(2.0)
        try:
            yield port
        finally:
            if asgi.hub is not None:
                loop.call_soon_threadsafe(asgi.hub.close_streams)
            loop.call_soon_threadsafe(stop.set)
            thread.join(timeout=15)
    else:
        raise ValueError(f"server {server!r} is not one of {', '.join(SERVERS)}")


@contextmanager
def serve(
    live: Live,
    data: Path,
    token: str = "bench-token",
    *,
    server: str = "umpire",
    threads: int = 64,
) -> Iterator[Served]:
    """The real app over `live` (started here) on a free loopback port, with a game log in
    `data`, served by `server` (`threads`: the pool of a thread-pool server); waits for the
    first scene; stops the tracker and the server on leaving."""
    live.start()
    app = create_app({"DATA_DIR": str(data), "CSRF_TOKEN": token}, live=live)
    install_log(app, GameLog(data / LOG_FILE))
    try:
        with _running(app, server, threads) as port:
            deadline = time.monotonic() + 120
            while live.state.scene is None:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the tracker never fitted the table: {live.status()}")
                time.sleep(0.05)
            try:
                yield Served(live, port, data, token)
            finally:
                live.stop()  # every stream ends before the server stops
    finally:
        live.stop()


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
    port: int,
    path: str,
    until: float,
    chunk: Callable[[bytes], None],
    stop: threading.Event,
    address: str = "127.0.0.1",
) -> None:
    """Read a stream until `until` (or `stop`), handing every chunk read to `chunk`; the
    connection comes from `address`."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(address, 0))
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
    address: str = "127.0.0.1"


def spectate(port: int, until: float, seen: Spectator, stop: threading.Event) -> None:
    """Follow the live view and the event stream together, as the table page does."""
    try:
        other = threading.Thread(
            target=follow,
            args=(port, "/events", until, seen.events, stop, seen.address),
            daemon=True,
        )
        other.start()
        follow(port, "/stream.mjpg", until, seen.pictures, stop, seen.address)
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
