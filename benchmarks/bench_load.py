"""Spectators on the built-in demo: what following the table page costs the tracker, and what
every spectator gets.

Run: `python -m benchmarks.bench_load [--spectators 200] [--seconds 30] [--baseline 10]
[--server umpire|werkzeug|waitress|cheroot|hypercorn] [--select ID] [--map] [--json]`

`umpire serve`'s built-in demo as it starts (skirmish-19c, its synthetic camera at 1280x720 and
10 frames a second, each frame rendered as it is due) runs the real tracker behind the real app,
served on loopback by `umpire serve`'s server (or, to compare, another: `--server`). The tracker
runs alone for `--baseline` seconds, then a crowd in another process (benchmarks/crowd.py)
connects `--spectators` spectators, each from an address of its own, each holding the event
stream and the live view open and asking for `/api/status` every second (with `--map`, also
asking for the map after each frame event, as the table page does), while a player asks a
question and confirms the answer every 2 s. After a warm-up, `--seconds` are measured.

Printed: frames a second the tracker scanned alone and under the crowd (the second as a share
of the first); each spectator's pictures and frame events a second (the fewest, the median),
as a share of the tracker's rate under the crowd; `/api/status` median, p95 and worst; the
server's resident memory (this process and the tracker's own) at its largest, and this
process's threads; errors; results
confirmed and found in the game log; the load average (the machine may be shared). Every
viewer watches the plain live view (`--select ID`: all of them ask for it with `?select=ID`,
which the server accepts and ignores since the page draws the selection). Nothing here is
asserted: tests/test_load.py checks, without timing, that every spectator is served and no
confirmed result is lost.
"""

from __future__ import annotations

import argparse
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

import numpy as np

from vision.demo import open_demo_game
from vision.game import Game
from webui.live import Live, open_live

from .serving import SERVERS, logged_results, serve

ROOT: Final = Path(__file__).resolve().parent.parent
WARMUP_S: Final = 8.0


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


def rss_mb(live: Live) -> float:
    """The server's resident memory now, in MB: this process's and its tracker's process's."""
    pids = ["self"] + ([str(pid)] if (pid := getattr(live.tracker, "pid", None)) else [])
    total = 0.0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) / 1024
    return total


def scanned_per_second(live: Live, seconds: float) -> float:
    first, started = live.scanned, time.monotonic()
    time.sleep(seconds)
    return (live.scanned - first) / (time.monotonic() - started)


def _p95(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


def run(
    spectators: int,
    seconds: float,
    baseline: float,
    server: str = "umpire",
    select: str | None = None,
    threads: int | None = None,
    maps: bool = False,
) -> dict[str, Any]:
    load_before = os.getloadavg()
    live = open_live(tracker_process=True)  # the built-in demo as `umpire serve` starts it
    pool = threads if threads is not None else 2 * spectators + 32
    with (
        tempfile.TemporaryDirectory() as data,
        serve(live, Path(data), server=server, threads=pool) as served,
    ):
        time.sleep(3.0)  # past the first frames' whole scans
        alone = scanned_per_second(live, baseline)
        rss_alone = rss_mb(live)
        command = [
            sys.executable,
            "-m",
            "benchmarks.crowd",
            str(served.port),
            "--spectators",
            str(spectators),
            "--seconds",
            str(seconds),
            "--warmup",
            str(WARMUP_S),
            "--token",
            served.token,
            *(["--select", select] if select else []),
            *(["--map"] if maps else []),
        ]
        largest = [rss_alone, float(threading.active_count())]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(1.0):
                largest[0] = max(largest[0], rss_mb(live))
                largest[1] = max(largest[1], float(threading.active_count()))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        crowd = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        time.sleep(WARMUP_S)
        loaded = scanned_per_second(live, seconds)
        out, _ = crowd.communicate(timeout=seconds + 300)
        done.set()
        sampler.join()
        load_during = os.getloadavg()
        got = json.loads(out)
        time.sleep(1.0)
        logged = logged_results(served.data)
    crowd_seen = got["spectators"]
    pictures = [s["pictures"] / seconds for s in crowd_seen]
    events = [s["events"] / seconds for s in crowd_seen]
    drawn = [s["maps"] / seconds for s in crowd_seen]
    status = got["status_s"]
    errors = [e for s in crowd_seen for e in s["errors"]]
    return {
        "server": server,
        "spectators": spectators,
        "seconds": seconds,
        "source": live.source.description,
        "fps_alone": round(alone, 2),
        "fps_loaded": round(loaded, 2),
        "share": round(loaded / alone, 3) if alone else None,
        "viewer_pictures_fps": {
            "fewest": round(min(pictures), 2),
            "median": round(statistics.median(pictures), 2),
        },
        "viewer_events_fps": {
            "fewest": round(min(events), 2),
            "median": round(statistics.median(events), 2),
        },
        "viewer_share": round(min(min(pictures), min(events)) / loaded, 3) if loaded else None,
        "status_ms": {
            "count": len(status),
            "median": _ms(statistics.median(status)) if status else None,
            "p95": _ms(_p95(status)),
            "max": _ms(max(status)) if status else None,
        },
        "rss_mb": {"alone": round(rss_alone), "largest": round(largest[0])},
        "threads_largest": int(largest[1]),
        "connected": sum(s["connected"] for s in crowd_seen),
        "errors": len(errors),
        "error_examples": errors[:5],
        "confirmed": len(got["confirmed"]),
        "confirmed_in_log": len(set(got["confirmed"]) & set(logged)),
        "select": select,
        "viewer_maps_fps": {
            "fewest": round(min(drawn), 2),
            "median": round(statistics.median(drawn), 2),
        }
        if maps
        else None,
        "load_average": {
            "before": [round(v, 2) for v in load_before],
            "during": [round(v, 2) for v in load_during],
        },
        "cpus": os.cpu_count(),
    }


def text(r: dict[str, Any]) -> str:
    load = r["load_average"]
    st = r["status_ms"]
    return "\n".join(
        [
            f"{r['spectators']} spectators on {r['server']}'s server for {r['seconds']:g} s "
            f"({r['source']}, 1280x720)"
            + (f", every live view asked with ?select={r['select']}" if r["select"] else ""),
            f"  tracker: {r['fps_alone']} frames a second alone, {r['fps_loaded']} with the "
            f"crowd ({r['share']:.0%})",
            f"  each viewer, pictures a second: fewest {r['viewer_pictures_fps']['fewest']}, "
            f"median {r['viewer_pictures_fps']['median']}; frame events: fewest "
            f"{r['viewer_events_fps']['fewest']}, median {r['viewer_events_fps']['median']} "
            f"(the fewest: {r['viewer_share']:.0%} of the tracker's rate)",
            *(
                [
                    f"  maps a second, each asked after a frame event: fewest {m['fewest']}, "
                    f"median {m['median']}"
                ]
                if (m := r["viewer_maps_fps"])
                else []
            ),
            f"  /api/status ({st['count']} asked): median {st['median']} ms, p95 {st['p95']} "
            f"ms, worst {st['max']} ms",
            f"  memory {r['rss_mb']['alone']} MB alone, at most {r['rss_mb']['largest']} MB with "
            f"the crowd; {r['threads_largest']} threads at most; {r['connected']} streams "
            f"connected; {r['errors']} errors",
            f"  results confirmed: {r['confirmed']}, in the game log: {r['confirmed_in_log']}",
            f"  load average {' '.join(map(str, load['before']))} before, "
            f"{' '.join(map(str, load['during']))} at the end, on {r['cpus']} CPUs",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0, help="measured (default 30)")
    parser.add_argument("--baseline", type=float, default=10.0, help="alone (default 10)")
    parser.add_argument("--server", choices=SERVERS, default="umpire")
    parser.add_argument("--threads", type=int, help="a thread-pool server's threads")
    parser.add_argument("--select", metavar="ID", help="every live view asks ?select=ID")
    parser.add_argument(
        "--map",
        action="store_true",
        help="each spectator asks for the map after each frame event, as the page does",
    )
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    result = run(
        opts.spectators,
        opts.seconds,
        opts.baseline,
        opts.server,
        opts.select,
        opts.threads,
        opts.map,
    )
    print(json.dumps(result, indent=2) if opts.json else text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
