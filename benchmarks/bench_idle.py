"""Idle and half-sent connections against `umpire serve`'s server: whether they stop anybody
else from getting the page.

Run: `python -m benchmarks.bench_idle [--connections 1000] [--json]`

The built-in demo is served as `umpire serve` serves it (webui/server.py, its default limits).
First `--connections` connections are opened from one address (127.0.0.1) and left idle (no
byte sent); then as many from another (127.0.0.3), each sending half a request head and no
more. Meanwhile a third address (127.0.0.2) asks for the page (`/`) and `/api/status` 20 times
each. Printed: how many of each crowd the server turned away at once (503 and closed: over the
limit per address), how many it held, how many it still held after its request timeout; the
third address's answers (status codes) and their times (median, worst). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import socket
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from webui.live import open_live
from webui.server import Limits

from .serving import serve


def _open(port: int, address: str, count: int, send: bytes) -> list[socket.socket]:
    opened = []
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((address, 0))
        sock.settimeout(5.0)
        try:
            sock.connect(("127.0.0.1", port))
            if send:
                sock.sendall(send)
        except OSError:
            sock.close()
            continue
        sock.setblocking(False)
        opened.append(sock)
    return opened


def _held(socks: list[socket.socket]) -> tuple[int, int]:
    """(refused with a 503, still open) among `socks` (the closed ones are read to the end)."""
    refused = held = 0
    for sock in socks:
        try:
            data = sock.recv(4096)
        except BlockingIOError:  # nothing to read and not closed: held
            held += 1
            continue
        except OSError:
            continue
        if data.startswith(b"HTTP/1.1 503"):
            refused += 1
        elif data:
            held += 1
    return refused, held


def _ask(port: int, path: str, times: int) -> dict[str, Any]:
    codes: list[int] = []
    seconds: list[float] = []
    for _ in range(times):
        started = time.monotonic()
        conn = http.client.HTTPConnection(
            "127.0.0.1", port, timeout=30, source_address=("127.0.0.2", 0)
        )
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            codes.append(response.status)
        except OSError as error:
            codes.append(-1)
            print(f"  {path}: {error!r}")
        finally:
            conn.close()
        seconds.append(time.monotonic() - started)
        time.sleep(0.1)
    return {
        "codes": sorted(set(codes)),
        "ok": sum(c == 200 for c in codes),
        "asked": times,
        "median_ms": round(statistics.median(seconds) * 1000, 1),
        "max_ms": round(max(seconds) * 1000, 1),
    }


def run(connections: int) -> dict[str, Any]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 2 * connections + 4096
    if soft != resource.RLIM_INFINITY and soft < want:
        limit = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    limits = Limits()
    live = open_live(tracker_process=True)
    with tempfile.TemporaryDirectory() as data, serve(live, Path(data)) as served:
        port = served.port
        before = {"page": _ask(port, "/", 5), "status": _ask(port, "/api/status", 5)}
        idle = _open(port, "127.0.0.1", connections, b"")
        half = _open(port, "127.0.0.3", connections, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        time.sleep(3.0)  # every connection accepted (and the extra ones answered)
        idle_refused, idle_held = _held(idle)
        half_refused, half_held = _held(half)
        during = {"page": _ask(port, "/", 20), "status": _ask(port, "/api/status", 20)}
        time.sleep(max(limits.request_timeout, limits.idle_timeout) + 3.0)
        _, idle_after = _held(idle)
        _, half_after = _held(half)
        for sock in idle + half:
            sock.close()
    return {
        "connections": connections,
        "limits": {
            "max_connections": limits.max_connections,
            "max_per_address": limits.max_per_address,
            "request_timeout_s": limits.request_timeout,
            "idle_timeout_s": limits.idle_timeout,
        },
        "idle": {
            "opened": len(idle),
            "refused": idle_refused,
            "held": idle_held,
            "held_after_timeout": idle_after,
        },
        "half_sent": {
            "opened": len(half),
            "refused": half_refused,
            "held": half_held,
            "held_after_timeout": half_after,
        },
        "other_address_before": before,
        "other_address_during": during,
        "load_average": [round(v, 2) for v in os.getloadavg()],
    }


def text(r: dict[str, Any]) -> str:
    n = r["connections"]
    lines = [f"{n} idle and {n} half-sent connections (limits: {r['limits']})"]
    for kind in ("idle", "half_sent"):
        k = r[kind]
        lines.append(
            f"  {kind}: {k['opened']} opened, {k['refused']} turned away at once (503), "
            f"{k['held']} open 3 s later, {k['held_after_timeout']} still open after the timeouts"
        )
    for when in ("other_address_before", "other_address_during"):
        for what, got in r[when].items():
            lines.append(
                f"  {when.replace('_', ' ')}: {what} {got['ok']}/{got['asked']} answered 200 "
                f"(codes {got['codes']}), median {got['median_ms']} ms, worst {got['max_ms']} ms"
            )
    lines.append(f"  load average {' '.join(map(str, r['load_average']))}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    result = run(opts.connections)
    print(json.dumps(result, indent=1) if opts.json else text(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
