"""Issue 13: frame-to-page latency, end to end, at 1920x1080 with 120 tags.

Run: `python -m benchmarks.bench_latency [--seconds 20] [--warmup 5] [--no-view] [--spectators N]
[--json]`

The table of `umpire bench` (vision/benchtrack.py: 120 tags of 16 to 25 mm on a 180 x 120 cm
table, units pushed by a hand, a hand sweeping over it, sensor noise in every frame) is rendered
at 1920x1080 first (90 frames), then played like a webcam at 30 frames a second (forward, then
backward, and again) into the real tracker (`webui.live.Live`) behind the real app
(`umpire serve`'s server on loopback). A client in another process follows `/events` as the
table page does, and the live view `/stream.mjpg` beside it as the page does (`--no-view`: the
events alone). For every `frame` event it receives after the warm-up:

    latency = when the client read the event - the frame's capture time

(the capture time is `captured` in the event's status: the moment the source handed the frame
over, on this machine's wall clock; the client reads the same clock). It is split at the
status's `updated` (when the tracker published the frame's scene) into capture-to-scene (the
frame waiting for the tracker, and its scan) and scene-to-page (the event made, written and
read). Printed: median, p95 and worst of each, the frames the tracker scanned and dropped, and
the server's own figure (`latency_ms` of `/api/status`: capture to the event written, the last
10 s). `--spectators N` adds a crowd in a third process (benchmarks/crowd.py: each spectator
holds the event stream and the live view and asks `/api/status` every second) for the whole
measurement. The load average is printed too: the machine may be shared. Nothing here is
asserted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Final

from vision.benchtrack import bench_game, make_video
from webui.live import Live

from .serving import LoopSource, get_json, serve

RESOLUTION: Final = (1920, 1080)
TAGS: Final = 120
TAG_SIZE: Final = (16.0, 25.0)
FRAMES: Final = 90
FPS: Final = 30.0


# --------------------------------------------------------------------------- the client


def client(port: int, seconds: float, warmup: float, view: bool) -> dict[str, Any]:
    """Follow `/events` (and `/stream.mjpg` when `view`) for `warmup + seconds`; every frame
    event read after the warm-up gives (read at, captured, updated, frame). Runs in its own
    process."""
    started = time.monotonic()
    until = started + warmup + seconds
    pictures = [0]
    stop = threading.Event()

    def watch() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", "/stream.mjpg")
            response = conn.getresponse()
            while not stop.is_set() and (data := response.read1(1 << 16)):
                pictures[0] += data.count(b"Content-Type: image/jpeg")
        except OSError:
            pass
        finally:
            conn.close()

    viewer = threading.Thread(target=watch, daemon=True)
    if view:
        viewer.start()
    events: list[tuple[float, float, float, int, float]] = []
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/events")
    response = conn.getresponse()
    buffer = b""
    first = True
    while time.monotonic() < until:
        data = response.read1(1 << 16)
        read_at = time.time()
        if not data:
            break
        buffer += data
        *blocks, buffer = buffer.split(b"\n\n")
        for block in blocks:
            if not block.startswith(b"event: frame"):
                continue
            if first:  # sent on connecting: an old frame
                first = False
                continue
            if time.monotonic() - started < warmup:
                continue
            doc = json.loads(block.split(b"data: ", 1)[1])
            status = doc["status"]
            if status.get("captured") is not None:
                events.append(
                    (
                        read_at,
                        status["captured"],
                        status["updated"],
                        doc["frame"],
                        status["scan_ms"],
                    )
                )
    conn.close()
    stop.set()
    return {"events": events, "pictures": pictures[0]}


# --------------------------------------------------------------------------- the run


def _summary(values_s: list[float]) -> dict[str, float | None]:
    if not values_s:
        return {"median": None, "p95": None, "max": None}
    ordered = sorted(values_s)
    p95 = ordered[math.ceil(0.95 * len(ordered)) - 1]
    return {
        "median": round(statistics.median(ordered) * 1000, 1),
        "p95": round(p95 * 1000, 1),
        "max": round(ordered[-1] * 1000, 1),
    }


def run(
    seconds: float,
    warmup: float,
    view: bool,
    seed: int = 0,
    spectators: int = 0,
    tracker_process: bool = True,
) -> dict[str, Any]:
    load_before = os.getloadavg()
    game = bench_game(TAGS, TAG_SIZE, seed)
    rendered = time.perf_counter()
    video = make_video(game, FRAMES, RESOLUTION, seed)
    rendered = time.perf_counter() - rendered
    source = LoopSource(list(video.images), FPS, pingpong=True)
    live = Live(source, game, video.camera, tracker_process=tracker_process)
    with tempfile.TemporaryDirectory() as data, serve(live, Path(data)) as served:
        command = [
            sys.executable,
            "-m",
            "benchmarks.bench_latency",
            "--client",
            str(served.port),
            "--seconds",
            str(seconds),
            "--warmup",
            str(warmup),
            *([] if view else ["--no-view"]),
        ]
        crowd = None
        if spectators:
            crowd = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "benchmarks.crowd",
                    str(served.port),
                    *("--spectators", str(spectators)),
                    *("--seconds", str(seconds + 2 * warmup)),
                    *("--warmup", "0"),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            time.sleep(warmup)  # the crowd connected before the client's warm-up begins
        scanned_before, dropped_before = live.scanned, live.dropped
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        scanned, dropped = live.scanned - scanned_before, live.dropped - dropped_before
        watched = None
        if crowd is not None:
            out, _ = crowd.communicate(timeout=seconds + 300)
            seen = json.loads(out)["spectators"]
            watched = {
                "spectators": spectators,
                "errors": sum(len(s["errors"]) for s in seen),
                "fewest_events": min((s["events"] for s in seen), default=0),
            }
        server = get_json(served.port, "/api/status")
    got = json.loads(done.stdout)
    events = got["events"]
    total = [read - captured for read, captured, _, _, _ in events]
    to_scene = [updated - captured for _, captured, updated, _, _ in events]
    scans = [scan_ms / 1000 for *_, scan_ms in events]
    to_page = [read - updated for read, _, updated, _, _ in events]
    return {
        "resolution": f"{RESOLUTION[0]}x{RESOLUTION[1]}",
        "tags": TAGS,
        "tag_size_mm": list(TAG_SIZE),
        "source_fps": FPS,
        "tracker_process": tracker_process,
        "seconds": seconds,
        "warmup_s": warmup,
        "live_view": view,
        "crowd": watched,
        "frame_events": len(events),
        "latency_ms": _summary(total),
        "capture_to_scene_ms": _summary(to_scene),
        "scan_ms": _summary(scans),
        "scene_to_page_ms": _summary(to_page),
        "server_latency_ms": server["latency_ms"],
        "scanned": scanned,
        "dropped": dropped,
        "pictures": got["pictures"],
        "scan_ms_last": server["scan_ms"],
        "render_seconds": round(rendered, 1),
        "load_average": {
            "before": [round(v, 2) for v in load_before],
            "after": [round(v, 2) for v in os.getloadavg()],
        },
        "cpus": os.cpu_count(),
    }


def text(result: dict[str, Any]) -> str:
    def row(name: str, figures: dict[str, Any]) -> str:
        return f"  {name:<28} median {figures['median']} ms, p95 {figures['p95']} ms" + (
            f", worst {figures['max']} ms" if "max" in figures else ""
        )

    load = result["load_average"]
    return "\n".join(
        [
            f"{result['resolution']}, {result['tags']} tags of {result['tag_size_mm'][0]:g}-"
            f"{result['tag_size_mm'][1]:g} mm, frames at {result['source_fps']:g} fps; "
            f"{result['seconds']:g} s measured after {result['warmup_s']:g} s; the tracker in "
            + ("a process of its own" if result["tracker_process"] else "the server's process")
            + "; a client in another process on /events"
            + (" and /stream.mjpg" if result["live_view"] else " only"),
            row("capture to page (client)", result["latency_ms"]),
            row("  capture to scene", result["capture_to_scene_ms"]),
            row("    of which the scan", result["scan_ms"]),
            row("  scene to page", result["scene_to_page_ms"]),
            row("server's latency_ms (10 s)", result["server_latency_ms"]),
            f"  {result['frame_events']} frame events; {result['scanned']} frames scanned, "
            f"{result['dropped']} dropped for newer ones; {result['pictures']} live-view "
            "pictures",
            *(
                [
                    f"  {crowd['spectators']} spectators watching meanwhile: "
                    f"{crowd['errors']} errors, the fewest got {crowd['fewest_events']} events"
                ]
                if (crowd := result["crowd"])
                else []
            ),
            f"  load average {' '.join(map(str, load['before']))} before, "
            f"{' '.join(map(str, load['after']))} after, on {result['cpus']} CPUs",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="measured (default 20)")
    parser.add_argument("--warmup", type=float, default=5.0, help="not measured (default 5)")
    parser.add_argument("--no-view", action="store_true", help="no /stream.mjpg client")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--tracker",
        choices=("process", "thread"),
        default="process",
        help="the tracker in a process of its own, as `umpire serve` runs it (default), or in "
        "a thread of the server's process",
    )
    parser.add_argument(
        "--spectators", type=int, default=0, help="a crowd watching meanwhile (default none)"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--client", type=int, metavar="PORT", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.client is not None:
        print(json.dumps(client(opts.client, opts.seconds, opts.warmup, not opts.no_view)))
        return 0
    if opts.spectators < 0:
        parser.error(f"--spectators must be 0 or more, not {opts.spectators}")
    result = run(
        opts.seconds,
        opts.warmup,
        not opts.no_view,
        opts.seed,
        opts.spectators,
        opts.tracker == "process",
    )
    print(json.dumps(result, indent=2) if opts.json else text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
