"""Fifty spectators: what following the table page costs the tracker.

Run: `python -m benchmarks.bench_load [--spectators 50] [--seconds 60] [--baseline 10] [--json]`

The built-in demo's frames (1280x720, the small skirmish table of `examples/`) are rendered
first and played in a loop at 30 frames a second like a webcam into the real tracker behind the
real app, on loopback. The tracker runs alone for `--baseline` seconds, then `--spectators`
clients each follow the live view (`/stream.mjpg`) and the event stream (`/events`) for
`--seconds` while a player asks a question and confirms the answer every 2 s. Printed: frames a
second the tracker scanned alone and under the load (the second as a share of the first),
pictures and frame events sent (each frame is drawn and encoded once for everybody), the fewest
any one spectator got, results confirmed and found in the game log, and the load average (the
machine may be shared). Nothing here is asserted: tests/test_load.py checks, without timing,
that every spectator is served and no confirmed result is lost.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Final

import numpy as np

from vision.demo import open_demo_game
from vision.game import Game
from webui.live import Live

from .serving import LoopSource, Spectator, confirm_results, logged_results, serve, spectate

ROOT: Final = Path(__file__).resolve().parent.parent
SOURCE_FPS: Final = 30.0
CONFIRM_EVERY_S: Final = 2.0


def demo_frames(count: int) -> tuple[list[np.ndarray], Game]:
    """`count` frames of the demo camera over the small skirmish table, and its game."""
    demo = open_demo_game(
        resolution=(1280, 720),
        realtime=False,
        game_path=ROOT / "examples" / "games" / "skirmish.toml",
        layout_path=ROOT / "examples" / "skirmish.json",
    )
    frames = [demo.read() for _ in range(count)]
    demo.close()
    return [f.image for f in frames if f is not None], demo.game


def scanned_per_second(live: Live, seconds: float) -> float:
    first, started = live.scanned, time.monotonic()
    time.sleep(seconds)
    return (live.scanned - first) / (time.monotonic() - started)


def run(spectators: int, seconds: float, baseline: float) -> dict[str, Any]:
    load_before = os.getloadavg()
    images, game = demo_frames(45)
    live = Live(LoopSource(images, SOURCE_FPS), game)
    with tempfile.TemporaryDirectory() as data, serve(live, Path(data)) as served:
        alone = scanned_per_second(live, baseline)
        until = time.monotonic() + seconds
        stop = threading.Event()
        crowd = [Spectator() for _ in range(spectators)]
        threads = [
            threading.Thread(target=spectate, args=(served.port, until, s, stop), daemon=True)
            for s in crowd
        ]
        confirmed: list[int] = []
        player = threading.Thread(
            target=confirm_results,
            args=(served.port, served.token, until, confirmed, CONFIRM_EVERY_S, stop),
            daemon=True,
        )
        for thread in [*threads, player]:
            thread.start()
        time.sleep(min(2.0, seconds / 4))  # everybody connected
        loaded = scanned_per_second(live, max(seconds - 4.0, 1.0))
        for thread in [*threads, player]:
            thread.join(timeout=30)
        logged = logged_results(served.data)
    return {
        "spectators": spectators,
        "seconds": seconds,
        "source_fps": SOURCE_FPS,
        "fps_alone": round(alone, 2),
        "fps_loaded": round(loaded, 2),
        "share": round(loaded / alone, 3) if alone else None,
        "pictures": sum(s.pictures.count for s in crowd),
        "events": sum(s.events.count for s in crowd),
        "fewest_pictures": min(s.pictures.count for s in crowd),
        "fewest_events": min(s.events.count for s in crowd),
        "errors": [s.error for s in crowd if s.error],
        "confirmed": len(confirmed),
        "confirmed_in_log": len(set(confirmed) & set(logged)),
        "load_average": {
            "before": [round(v, 2) for v in load_before],
            "after": [round(v, 2) for v in os.getloadavg()],
        },
        "cpus": os.cpu_count(),
    }


def text(r: dict[str, Any]) -> str:
    load = r["load_average"]
    return "\n".join(
        [
            f"{r['spectators']} spectators for {r['seconds']:g} s, frames at "
            f"{r['source_fps']:g} fps (1280x720 demo table)",
            f"  tracker: {r['fps_alone']} frames a second alone, {r['fps_loaded']} under the "
            f"load ({r['share']:.0%})",
            f"  sent {r['pictures']} pictures and {r['events']} frame events; the fewest one "
            f"spectator got: {r['fewest_pictures']} pictures, {r['fewest_events']} events; "
            f"{len(r['errors'])} errors",
            f"  results confirmed: {r['confirmed']}, in the game log: {r['confirmed_in_log']}",
            f"  load average {' '.join(map(str, load['before']))} before, "
            f"{' '.join(map(str, load['after']))} after, on {r['cpus']} CPUs",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0, help="under load (default 60)")
    parser.add_argument("--baseline", type=float, default=10.0, help="alone (default 10)")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    result = run(opts.spectators, opts.seconds, opts.baseline)
    print(json.dumps(result, indent=2) if opts.json else text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
