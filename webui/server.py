"""The server behind `umpire serve`: uvicorn (asyncio, HTTP/1.1 through h11) with the Flask app
mounted through a WSGI adapter, and the two long-lived streams served natively.

Why this shape (the README's "The server" has the figures): a show's page holds two streams
open per spectator (`/events` and `/stream.mjpg`) beside short API calls. A server that gives
each connection a thread (werkzeug's development server, waitress's and cheroot's worker
pools, gunicorn's gthread workers) either runs out of workers or pays a thread, its stack and a
per-stream copy of every picture for each of them. Here a stream is a coroutine on one event
loop: each new frame's event text and JPEG are made once, by one broadcaster (`Hub`: an events
thread and a pictures thread), and every viewer's coroutine hands the same bytes to its socket
(one picture a frame whatever each viewer selected: the page draws the selection over it); a
viewer that reads slowly skips to the newest frame instead of queueing frames (at most one
picture waits in its socket's buffer), so memory per viewer is bounded whatever the viewer does.
The API's short calls run the unchanged Flask app in a small thread pool (a2wsgi).

Limits, all at the connection (before any request is parsed), so idle or half-sent connections
cannot starve anybody (`Limits`):

- at most `max_connections` open connections, and `max_per_address` from one address: one over
  the limit is answered 503 at once and closed, so its file descriptor comes straight back;
- a request's head and body must arrive within `request_timeout` seconds of the connection
  opening (or of the previous answer on a kept-alive connection), else it is closed;
- a kept-alive connection with nothing asked is closed after `idle_timeout` seconds;
- a client that stops reading for `write_timeout` seconds (its socket's buffer full) is cut;
- a request head is at most 16 KiB (h11), a body at most 64 KiB (the app's MAX_CONTENT_LENGTH).

The stream routes still go through the Flask app first, so every check (the Host header, the
access code guard, `?select=` against the scene, the security headers) is the app's own: the
Flask view answers a marker (`X-Umpire-Stream`, only when `umpire.native_streams` is in the WSGI
environ) that this module replaces with the native stream. Served by werkzeug (the tests' and the
Flask test client), the same views stream by themselves (webui/stream.py).

Quiet by default: no access log and only errors logged; `verbose` logs every request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import resource
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Final

import uvicorn
from a2wsgi import WSGIMiddleware
from flask import Flask
from uvicorn.protocols.http.h11_impl import H11Protocol

from .live import Live, LiveState
from .stream import BOUNDARY, NATIVE_KEY, PART_HEAD, frame_event, picture

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

MARKER_HEADER: Final = "X-Umpire-Stream"
STREAM_PATHS: Final = frozenset({"/events", "/stream.mjpg"})
TICK_S: Final = 0.25
"""How often every stream looks at the clock and the stop flag."""
PICTURE_NICENESS: Final = 5
"""How much lower the pictures thread (which draws and encodes the live view's picture) runs
than the tracker and the events thread, where the system lets one thread be set apart (Linux):
on a busy CPU the tracker's scan and the frame's event come first and a picture waits, instead
of every frame's scene waiting behind the picture of the frame before."""
PICTURE_MAX_FPS: Final = 15.0
"""The most live-view pictures made a second, whatever the camera's rate: a 30 fps camera's
every other frame is enough to watch the table by, and the encoding's share of the cores is
halved for the tracker."""
WORKERS: Final = 8
"""Threads running the Flask app (short API calls)."""
HEAD_MAX_BYTES: Final = 16 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """What one server accepts (see the module's docstring)."""

    max_connections: int = 2000
    max_per_address: int = 32
    request_timeout: float = 10.0
    idle_timeout: float = 5.0
    write_timeout: float = 30.0

    def fitted(self) -> Limits:
        """These limits, `max_connections` lowered to what the open-file limit allows (raised
        to its hard maximum first): 64 descriptors stay for the log, the camera, the tracker."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = self.max_connections + 64
        if soft != resource.RLIM_INFINITY and soft < want:
            target = want if hard == resource.RLIM_INFINITY else min(want, hard)
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft == resource.RLIM_INFINITY:
            return self
        return Limits(
            max(16, min(self.max_connections, soft - 64)),
            self.max_per_address,
            self.request_timeout,
            self.idle_timeout,
            self.write_timeout,
        )


@dataclass(slots=True)
class Counts:
    """Open connections, overall and by address, and what the limits turned away."""

    total: int = 0
    by_address: dict[str, int] = field(default_factory=dict)
    refused: int = 0
    timed_out: int = 0


def _refusal(message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nRetry-After: 5\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


def protocol_class(limits: Limits, counts: Counts) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the connection limits and timeouts of `limits`."""

    class LimitedH11Protocol(H11Protocol):
        _address: str | None = None
        _timer: asyncio.TimerHandle | None = None
        _write_timer: asyncio.TimerHandle | None = None
        _armed_cycle: object = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            address = self.client[0] if self.client else "?"
            held = counts.by_address.get(address, 0)
            if counts.total >= limits.max_connections:
                self._refuse(f"the server is full ({limits.max_connections} connections)")
                return
            if held >= limits.max_per_address:
                self._refuse(
                    f"too many connections from {address} (at most {limits.max_per_address}); "
                    "close some pages and try again"
                )
                return
            self._address = address
            counts.total += 1
            counts.by_address[address] = held + 1
            self._arm()

        def _refuse(self, message: str) -> None:
            counts.refused += 1
            self.transport.write(_refusal(message))
            self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._write_timer is not None:
                self._write_timer.cancel()
                self._write_timer = None
            address, self._address = self._address, None
            if address is not None:
                counts.total -= 1
                left = counts.by_address.get(address, 1) - 1
                if left > 0:
                    counts.by_address[address] = left
                else:
                    counts.by_address.pop(address, None)
            super().connection_lost(exc)

        # A request (head and body) must arrive within request_timeout.
        def _arm(self) -> None:
            self._disarm()
            self._armed_cycle = self.cycle
            self._timer = self.loop.call_later(limits.request_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _too_slow(self) -> None:
            self._timer = None
            if not self.transport.is_closing():
                counts.timed_out += 1
                self.transport.abort()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            cycle = self.cycle
            if (
                self._timer is not None
                and cycle is not None
                and cycle is not self._armed_cycle
                and not cycle.more_body
            ):
                self._disarm()  # the whole request is in

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        # A client that stops reading is cut after write_timeout.
        def pause_writing(self) -> None:
            super().pause_writing()
            if self._write_timer is None:
                self._write_timer = self.loop.call_later(limits.write_timeout, self._stuck)

        def resume_writing(self) -> None:
            super().resume_writing()
            if self._write_timer is not None:
                self._write_timer.cancel()
                self._write_timer = None

        def _stuck(self) -> None:
            self._write_timer = None
            if not self.transport.is_closing():
                counts.timed_out += 1
                self.transport.abort()

    return LimitedH11Protocol


# --------------------------------------------------------------------------------- streams


class _Viewer:
    """One open stream: woken on each new frame (and each tick)."""

    __slots__ = ("gone", "wake")

    def __init__(self) -> None:
        self.wake = asyncio.Event()
        self.gone = False


@dataclass(slots=True)
class _Channel:
    """The latest item of one stream kind (the live view's picture, or the event text) and the
    viewers waiting for it."""

    viewers: set[_Viewer] = field(default_factory=set)
    latest: Any = None

    def put(self, item: Any) -> None:
        self.latest = item
        for viewer in self.viewers:
            viewer.wake.set()


@dataclass(frozen=True, slots=True)
class _Event:
    seq: int
    state: LiveState
    data: bytes
    """`data: {...}\\n\\n`: the event's body, made once for every viewer."""


class Hub:
    """One broadcaster per server: two threads follow the tracker. The events thread makes, once
    per new state, the event text; the pictures thread (while somebody watches the live view)
    the JPEG of the newest frame. The event loop hands both to every viewer.

    A frame's event never waits for a picture: the events thread runs at the tracker's
    priority and does nothing else, and the pictures thread runs `PICTURE_NICENESS` below it
    and makes at most `PICTURE_MAX_FPS` pictures a second, always of the newest frame (when
    the tracker gets ahead of the encoding, the frames in between get an event each but no
    picture: the live view shows fewer frames, the page's scene never waits)."""

    def __init__(self, live: Live, quality: int) -> None:
        self.live = live
        self.quality = quality
        self.loop: asyncio.AbstractEventLoop | None = None
        self.events = _Channel()
        self.pictures = _Channel()
        self._watched = threading.Event()
        """Set while at least one live view is open: the pictures thread encodes only then."""
        self._closed = threading.Event()
        self.closing = False
        """Set on the loop when the server stops: every stream ends."""
        self._threads: list[threading.Thread] = []
        self._seq = 0

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._threads = [
            threading.Thread(target=self._run_events, name="umpire-events", daemon=True),
            threading.Thread(target=self._run_pictures, name="umpire-pictures", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._closed.set()
        for thread in self._threads:
            thread.join(timeout=10)

    def close_streams(self) -> None:
        """On the loop: end every stream."""
        self.closing = True
        self.tick()

    def tick(self) -> None:
        for channel in (self.events, self.pictures):
            for viewer in channel.viewers:
                viewer.wake.set()

    # ------------------------------------------------------------------ the broadcaster threads

    def _call(self, func: Callable[..., None], *args: Any) -> None:
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(func, *args)

    def _run_events(self) -> None:
        live = self.live
        state = live.state
        self._publish_event(state)
        while not self._closed.is_set():
            newer = live.wait_for_version(state.version, 0.1)
            if newer.version != state.version:
                state = newer
                self._publish_event(state)
            elif live.stopping:
                self._closed.wait(0.1)

    def _run_pictures(self) -> None:
        _lower_this_thread(PICTURE_NICENESS)
        live = self.live
        drawn = -2  # the frame of the last picture made
        last = 0.0  # when it was started
        while not self._closed.is_set():
            if not self._watched.wait(0.1):
                drawn = -2  # nobody watches: the next viewer's first picture is made afresh
                continue
            state = live.state
            if state.image is None or state.frame == drawn:
                live.wait_for_version(state.version, 0.1)
                continue
            wait = last + 1.0 / PICTURE_MAX_FPS - time.monotonic()
            if wait > 0:
                self._closed.wait(wait)
                continue  # then the newest frame, not this one
            last = time.monotonic()
            drawn = state.frame
            jpeg = picture(state, self.quality)
            if jpeg is not None:
                self._call(self._put_picture, state.frame, jpeg)

    def _publish_event(self, state: LiveState) -> None:
        self._seq += 1
        doc = frame_event(state, self.live.status())
        data = b"data: " + json.dumps(doc, separators=(",", ":")).encode() + b"\n\n"
        self._call(self.events.put, _Event(self._seq, state, data))

    # ------------------------------------------------------------------ on the loop

    def _put_picture(self, frame: int, jpeg: bytes) -> None:
        self.pictures.put((frame, jpeg))

    def join_pictures(self, viewer: _Viewer) -> _Channel:
        self.pictures.viewers.add(viewer)
        self._watched.set()
        return self.pictures

    def leave_pictures(self, viewer: _Viewer) -> None:
        self.pictures.viewers.discard(viewer)
        if not self.pictures.viewers:
            self._watched.clear()


def _headers(raw: list[tuple[bytes, bytes]], content_type: str) -> list[tuple[bytes, bytes]]:
    """The app's answer's headers for the native stream (its security headers kept)."""
    skip = {b"content-length", b"content-type", MARKER_HEADER.lower().encode()}
    kept = [(k, v) for k, v in raw if k.lower() not in skip]
    return [(b"content-type", content_type.encode()), *kept]


class _Grab:
    """Passes the app's answer on, unless it is the marker of a native stream: then keeps it."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.native = False
        self.headers: list[tuple[bytes, bytes]] = []
        self.body = b""

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            if any(k.lower() == MARKER_HEADER.lower().encode() for k, _ in headers):
                self.native = True
                self.headers = headers
                return
        elif self.native:
            self.body += message.get("body", b"")
            return
        await self.send(message)


class UmpireASGI:
    """The ASGI application: the Flask app for everything, the two streams natively."""

    def __init__(self, app: Flask, *, workers: int = WORKERS) -> None:
        self.flask = app
        shared = app.extensions["umpire"]
        self.live: Live | None = shared.live
        self.hub = (
            Hub(self.live, int(app.config["MJPEG_QUALITY"])) if self.live is not None else None
        )
        self.wsgi = WSGIMiddleware(self._marked, workers=workers)  # type: ignore[arg-type]
        self.server: uvicorn.Server | None = None
        self._ticker: asyncio.Task[None] | None = None

    def _marked(self, environ: dict[str, Any], start_response: Any) -> Any:
        environ[NATIVE_KEY] = True
        if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            environ["wsgi.input_terminated"] = True  # a2wsgi's body ends where the chunks do
        return self.flask.wsgi_app(environ, start_response)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if scope["path"] not in STREAM_PATHS or scope["method"] not in ("GET", "HEAD"):
            await self.wsgi(scope, receive, send)  # type: ignore[arg-type]
            return
        grab = _Grab(send)
        await self.wsgi(scope, receive, grab)  # type: ignore[arg-type]
        if not grab.native or self.hub is None:
            return
        what = json.loads(grab.body or b"{}")
        if scope["method"] == "HEAD":
            kind = (
                "text/event-stream; charset=utf-8"
                if scope["path"] == "/events"
                else f"multipart/x-mixed-replace; boundary={BOUNDARY}"
            )
            start = {"type": "http.response.start", "status": 200}
            await send({**start, "headers": _headers(grab.headers, kind)})
            await send({"type": "http.response.body", "body": b""})
            return
        if what.get("stream") == "events":
            await self._events(receive, send, grab.headers, what)
        else:
            await self._mjpeg(receive, send, grab.headers, what)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            try:
                message = await receive()
            except asyncio.CancelledError:
                # A second Ctrl-C forces the stop: uvicorn skips the shutdown message and the
                # loop cancels this task. The streams still end and the hub still stops, here,
                # quietly (a cancelled lifespan would be logged as a traceback).
                await self._shut_down()
                return
            if message["type"] == "lifespan.startup":
                if self.hub is not None:
                    self.hub.start(asyncio.get_running_loop())
                self._ticker = asyncio.create_task(self._tick())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self._shut_down()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _shut_down(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
        if self.hub is not None:
            self.hub.close_streams()
            await asyncio.get_running_loop().run_in_executor(None, self.hub.stop)
        self.wsgi.executor.shutdown(wait=False)

    async def _tick(self) -> None:
        hub = self.hub
        while True:
            await asyncio.sleep(TICK_S)
            if hub is None:
                continue
            server = self.server
            if (server is not None and server.should_exit) or (
                self.live is not None and self.live.stopping
            ):
                hub.close_streams()
            else:
                hub.tick()

    @contextlib.contextmanager
    def _watching(self, receive: Receive, viewer: _Viewer) -> Iterator[None]:
        async def listen() -> None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    viewer.gone = True
                    viewer.wake.set()
                    return

        task = asyncio.create_task(listen())
        try:
            yield
        finally:
            task.cancel()

    def _open(self, viewer: _Viewer, deadline: float) -> bool:
        assert self.hub is not None and self.live is not None
        return (
            not viewer.gone
            and not self.hub.closing
            and not self.live.stopping
            and time.monotonic() < deadline
        )

    def _deadline(self, setting: str) -> float:
        limit = self.flask.config.get(setting)
        return float("inf") if limit is None else time.monotonic() + float(limit)

    async def _events(
        self, receive: Receive, send: Send, headers: list[tuple[bytes, bytes]], what: Any
    ) -> None:
        hub, live = self.hub, self.live
        assert hub is not None and live is not None
        heartbeat = float(self.flask.config["SSE_HEARTBEAT_S"])
        deadline = self._deadline("SSE_MAX_S")
        viewer = _Viewer()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": _headers(headers, "text/event-stream; charset=utf-8"),
            }
        )
        state = live.state
        doc = frame_event(state, live.status())
        first = f"retry: 2000\n\nevent: frame\ndata: {json.dumps(doc, separators=(',', ':'))}\n\n"
        await send({"type": "http.response.body", "body": first.encode(), "more_body": True})
        sent_frame = state.frame
        latest = hub.events.latest
        seq = latest.seq if isinstance(latest, _Event) else 0
        beat = time.monotonic() + heartbeat
        hub.events.viewers.add(viewer)
        try:
            with self._watching(receive, viewer):
                while self._open(viewer, deadline):
                    await viewer.wake.wait()
                    viewer.wake.clear()
                    item = hub.events.latest
                    if (
                        isinstance(item, _Event)
                        and item.seq != seq
                        and self._open(viewer, deadline)
                    ):
                        seq = item.seq
                        kind = b"frame" if item.state.frame != sent_frame else b"status"
                        await send(
                            {
                                "type": "http.response.body",
                                "body": b"event: " + kind + b"\n" + item.data,
                                "more_body": True,
                            }
                        )
                        if kind == b"frame":
                            sent_frame = item.state.frame
                            if not viewer.gone:
                                live.frame_sent(item.state)
                    if time.monotonic() >= beat and not viewer.gone:
                        beat = time.monotonic() + heartbeat
                        await send(
                            {
                                "type": "http.response.body",
                                "body": b": heartbeat\n\n",
                                "more_body": True,
                            }
                        )
        finally:
            hub.events.viewers.discard(viewer)
        await send({"type": "http.response.body", "body": b""})

    async def _mjpeg(
        self, receive: Receive, send: Send, headers: list[tuple[bytes, bytes]], what: Any
    ) -> None:
        hub = self.hub
        assert hub is not None
        deadline = self._deadline("MJPEG_MAX_S")
        viewer = _Viewer()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": _headers(headers, f"multipart/x-mixed-replace; boundary={BOUNDARY}"),
            }
        )
        await send({"type": "http.response.body", "body": PART_HEAD, "more_body": True})
        channel = hub.join_pictures(viewer)
        sent = None
        try:
            with self._watching(receive, viewer):
                while self._open(viewer, deadline):
                    item = channel.latest
                    if item is not None and item[0] != sent:
                        sent = item[0]
                        await send(
                            {
                                "type": "http.response.body",
                                "body": item[1] + b"\r\n" + PART_HEAD,
                                "more_body": True,
                            }
                        )
                        continue
                    await viewer.wake.wait()
                    viewer.wake.clear()
        finally:
            hub.leave_pictures(viewer)
        await send({"type": "http.response.body", "body": b""})


# --------------------------------------------------------------------------------- running


def listen(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A listening socket on `host:port` (port 0: any free one). OSError when it cannot."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family = infos[0][0] if infos else socket.AF_INET
    address = infos[0][4][:2] if infos else (host, port)
    return socket.create_server(address, family=family, backlog=backlog)


class Server:
    """The app on a listening socket: `run()` in this thread (`umpire serve`: Ctrl-C and
    SIGTERM stop it), or `start()` in a thread of its own (tests, benchmarks) and `stop()`."""

    def __init__(
        self,
        app: Flask,
        sock: socket.socket,
        *,
        limits: Limits | None = None,
        verbose: bool = False,
        workers: int = WORKERS,
    ) -> None:
        self.sock = sock
        self.port: int = sock.getsockname()[1]
        self.limits = (limits or Limits()).fitted()
        self.counts = Counts()
        self.asgi = UmpireASGI(app, workers=workers)
        config = uvicorn.Config(
            self.asgi,
            http=protocol_class(self.limits, self.counts),
            ws="none",
            lifespan="on",
            loop="asyncio",
            interface="asgi3",
            log_config=None,
            log_level=logging.INFO if verbose else logging.ERROR,
            access_log=verbose,
            timeout_keep_alive=int(max(1, self.limits.idle_timeout)),
            timeout_graceful_shutdown=5,
            h11_max_incomplete_event_size=HEAD_MAX_BYTES,
            server_header=False,
            backlog=2048,
        )
        _quiet_logs(verbose)
        self.uvicorn = uvicorn.Server(config)
        self.asgi.server = self.uvicorn
        self._thread: threading.Thread | None = None

    def run(self) -> None:
        self.uvicorn.run(sockets=[self.sock])

    def start(self, timeout: float = 30.0) -> Server:
        self._thread = threading.Thread(target=self.run, name="umpire-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.uvicorn.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        return self

    def stop(self, timeout: float = 15.0) -> None:
        self.uvicorn.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
        with contextlib.suppress(OSError):
            self.sock.close()


def _quiet_logs(verbose: bool) -> None:
    """uvicorn's loggers to stderr: errors only, or every request with `verbose`."""
    level = logging.INFO if verbose else logging.ERROR
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("umpire: %(message)s"))
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "asyncio"):
        logger = logging.getLogger(name)
        logger.setLevel(level)
        if name in ("uvicorn", "asyncio") and not logger.handlers:
            logger.addHandler(handler)
        if name == "uvicorn":
            logger.propagate = False


def _lower_this_thread(niceness: int) -> None:
    """Run the calling thread `niceness` steps below the others of the process, where the
    system schedules threads one by one (Linux: a thread is a task with its own nice value);
    elsewhere, or if the system refuses, nothing changes."""
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + niceness)
