"""A crowd of spectators in a process of its own, for the serving benchmarks: each spectator
holds the event stream (`/events`) and the live view (`/stream.mjpg`) open, as the table page
does, and asks for `/api/status` every `--poll` seconds, from an address of its own on the
loopback network (127.0.1.x). A player may ask a question and confirm the answer every 2 s.
With `--map`, each spectator also asks for the map (`/api/map.svg`) after each frame event, one
at a time, as the table page does; with `--selects A,B,...` spectator 1 has selected A, spectator
2 B, and so on (spectator 0 selects nothing): their map draws that unit's rings, and their live
view is asked for with `?select=` as the page once did.

Run by `benchmarks.bench_load` and `benchmarks.bench_viewers` (not by hand):

    python -m benchmarks.crowd PORT --spectators N --seconds S --warmup W [--poll 1]
        [--select ID | --selects A,B,...] [--map] [--token T]

Prints one JSON document: per spectator the pictures, frame events and maps received within the
measured window (after the warm-up), every `/api/status` time in the window, errors, and the
results the player had confirmed. asyncio: one process and one thread hold every connection, so
the crowd costs the machine as little as it can. Every loop has a deadline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from .serving import spectator_address

READ_BYTES = 1 << 18


@dataclass
class Seen:
    pictures: int = 0
    events: int = 0
    maps: int = 0
    connected: int = 0
    frame_seen: asyncio.Event | None = None
    """Set on each frame event when the spectator's page asks for the map after it."""
    status_s: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class Window:
    """The measured window: from `start` to `end` (monotonic)."""

    def __init__(self, warmup: float, seconds: float) -> None:
        now = time.monotonic()
        self.start = now + warmup
        self.end = self.start + seconds

    def inside(self) -> bool:
        now = time.monotonic()
        return self.start <= now < self.end

    def over(self) -> bool:
        return time.monotonic() >= self.end


async def _connect(port: int, address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0), limit=READ_BYTES),
        timeout=30,
    )


def _request(method: str, path: str, body: bytes = b"", headers: str = "") -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}"
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return (head + "\r\n").encode() + body


async def _response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One whole response (Content-Length or chunked) on a kept-alive connection."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    if "content-length" in headers:
        return status, await reader.readexactly(int(headers["content-length"]))
    body = b""
    while True:
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            return status, body
        body += chunk[:-2]


async def follow(
    port: int, address: str, path: str, marker: bytes, seen: Seen, window: Window, kind: str
) -> None:
    try:
        reader, writer = await _connect(port, address)
    except (TimeoutError, OSError) as error:
        seen.errors.append(f"{path}: cannot connect ({error})")
        return
    try:
        writer.write(_request("GET", path))
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=30)
        if not head.startswith(b"HTTP/1.1 200"):
            first = head.split(b"\r\n", 1)[0].decode("latin-1")
            seen.errors.append(f"{path}: {first}")
            return
        seen.connected += 1
        tail = b""
        while not window.over():
            data = await asyncio.wait_for(reader.read(READ_BYTES), timeout=30)
            if not data:
                seen.errors.append(f"{path}: closed by the server")
                return
            joined = tail + data
            if window.inside():
                count = joined.count(marker)
                if kind == "pictures":
                    seen.pictures += count
                else:
                    seen.events += count
            if kind == "events" and seen.frame_seen is not None and marker in joined:
                seen.frame_seen.set()
            tail = joined[-len(marker) + 1 :]
    except (TimeoutError, OSError, asyncio.IncompleteReadError) as error:
        seen.errors.append(f"{path}: {type(error).__name__} {error}")
    finally:
        writer.close()


async def poll(port: int, address: str, every: float, seen: Seen, window: Window) -> None:
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    while not window.over():
        try:
            if writer is None or reader is None:
                reader, writer = await _connect(port, address)
            started = time.monotonic()
            writer.write(_request("GET", "/api/status"))
            status, _ = await asyncio.wait_for(_response(reader), timeout=30)
            took = time.monotonic() - started
            if status != 200:
                seen.errors.append(f"/api/status: HTTP {status}")
            elif window.inside():
                seen.status_s.append(took)
        except (TimeoutError, OSError, asyncio.IncompleteReadError) as error:
            seen.errors.append(f"/api/status: {type(error).__name__} {error}")
            if writer is not None:
                writer.close()
            reader = writer = None
        await asyncio.sleep(every)
    if writer is not None:
        writer.close()


async def page_map(port: int, address: str, select: str | None, seen: Seen, window: Window) -> None:
    """The map after each frame event, one request at a time (the page's `refreshMap`)."""
    assert seen.frame_seen is not None
    path = "/api/map.svg?unit=cm" + (f"&select={select}" if select else "")
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    while not window.over():
        try:
            await asyncio.wait_for(seen.frame_seen.wait(), timeout=1.0)
        except TimeoutError:
            continue
        seen.frame_seen.clear()
        try:
            if writer is None or reader is None:
                reader, writer = await _connect(port, address)
            writer.write(_request("GET", path))
            status, _ = await asyncio.wait_for(_response(reader), timeout=30)
            if status != 200:
                seen.errors.append(f"{path}: HTTP {status}")
            elif window.inside():
                seen.maps += 1
        except (TimeoutError, OSError, asyncio.IncompleteReadError) as error:
            seen.errors.append(f"{path}: {type(error).__name__} {error}")
            if writer is not None:
                writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


async def player(port: int, token: str, window: Window, confirmed: list[int]) -> None:
    """Ask a question and confirm the answer every 2 s, as a player at the table."""
    headers = f"X-CSRF-Token: {token}\r\n"
    address = "127.0.0.2"
    while not window.over():
        try:
            reader, writer = await _connect(port, address)
            try:
                ask = json.dumps({"action": "measure", "args": ["rifles", "tirailleurs"]}).encode()
                writer.write(_request("POST", "/api/resolve", ask, headers))
                status, body = await asyncio.wait_for(_response(reader), timeout=30)
                if status == 200:
                    log_id = json.loads(body)["log_id"]
                    said = {"resolution": log_id, "decision": "confirm", "note": "agreed"}
                    tell = json.dumps(said).encode()
                    writer.write(_request("POST", "/api/results", tell, headers))
                    status, body = await asyncio.wait_for(_response(reader), timeout=30)
                    if status == 201:
                        confirmed.append(int(json.loads(body)["id"]))
            finally:
                writer.close()
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError):
            pass
        await asyncio.sleep(2.0)


async def crowd(opts: argparse.Namespace) -> dict[str, Any]:
    window = Window(opts.warmup, opts.seconds)
    seen = [Seen() for _ in range(opts.spectators)]
    confirmed: list[int] = []
    selects = [None, *opts.selects.split(",")] if opts.selects else [opts.select]
    tasks = []
    for i, s in enumerate(seen):
        address = spectator_address(i)
        select = selects[i] if i < len(selects) else selects[-1]
        view = "/stream.mjpg" + (f"?select={select}" if select else "")
        tasks += [
            follow(opts.port, address, "/events", b"event: frame", s, window, "events"),
            follow(opts.port, address, view, b"Content-Type: image/jpeg", s, window, "pictures"),
        ]
        if opts.map:
            s.frame_seen = asyncio.Event()
            tasks.append(page_map(opts.port, address, select, s, window))
        if opts.poll > 0:
            tasks.append(poll(opts.port, address, opts.poll, s, window))
    if opts.token:
        tasks.append(player(opts.port, opts.token, window, confirmed))
    await asyncio.gather(*tasks)
    return {
        "spectators": [
            {
                "pictures": s.pictures,
                "events": s.events,
                "maps": s.maps,
                "connected": s.connected,
                "errors": s.errors[:5],
            }
            for s in seen
        ],
        "status_s": [t for s in seen for t in s.status_s],
        "confirmed": confirmed,
        "seconds": opts.seconds,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("port", type=int)
    parser.add_argument("--spectators", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--poll", type=float, default=1.0, help="status every S s (0: never)")
    parser.add_argument("--select", help="every viewer asks for the live view ?select=ID")
    parser.add_argument("--selects", help="A,B,...: spectator 1 selects A, 2 B, ... (0 none)")
    parser.add_argument("--map", action="store_true", help="the map after each frame event")
    parser.add_argument("--token", help="the CSRF token: a player confirms results")
    opts = parser.parse_args(argv)
    print(json.dumps(asyncio.run(crowd(opts))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
