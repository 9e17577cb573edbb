"""Viewers who each select a different unit: what they cost a plain viewer's live view.

Run: `python -m benchmarks.bench_viewers [--viewers 14] [--seconds 15] [--rounds 2]
[--demo europe-19c] [--no-map] [--json]`

A built-in demo as `umpire serve` starts it (its synthetic camera at 1280x720 and 10 frames a
second; `europe-19c` by default, whose table has 18 units: `skirmish-19c`, the default of
`umpire serve`, has 10, too few for 14 different selections) runs the real tracker behind the
real app on `umpire serve`'s server. A crowd in another process (benchmarks/crowd.py) plays
table pages: each follows `/events` and `/stream.mjpg` and asks for the map after each frame
event, as app.js does (`--no-map`: the two streams alone, to see the live view's own cost).

First one plain viewer (nothing selected) alone, for `--seconds`; then the same plain viewer
beside `--viewers` viewers who each selected a different unit (their map draws its rings; their
live view is asked for with `?select=UNIT`, as the page did before the selection moved into the
page), for `--seconds` again; `--rounds` times in turn, all in one run, on one server. Printed:
the plain viewer's live view and frame events a second alone and beside them, the second as a
share of the first (the goal: at least 80%), the tracker's frames a second in each, the
selecting viewers' pictures and maps a second, errors, and the load average (the machine may be
shared: under load every figure is pessimistic). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from webui.live import Live, open_live

from .serving import serve

WARMUP_S: Final = 6.0


def _crowd(
    port: int, spectators: int, seconds: float, selects: list[str], maps: bool
) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "benchmarks.crowd",
        str(port),
        "--spectators",
        str(spectators),
        "--seconds",
        str(seconds),
        "--warmup",
        str(WARMUP_S),
        "--poll",
        "0",
        *(["--map"] if maps else []),
        *(["--selects", ",".join(selects)] if selects else []),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 300)
    if done.returncode != 0:
        raise RuntimeError(f"the crowd failed: {done.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _phase(
    live: Live, port: int, spectators: int, seconds: float, selects: list[str], maps: bool
) -> Any:
    """The crowd's answer, with the tracker's frames a second over the crowd's whole run."""
    first, started = live.scanned, time.monotonic()
    got = _crowd(port, spectators, seconds, selects, maps)
    got["tracker_fps"] = (live.scanned - first) / (time.monotonic() - started)
    return got


def run(
    viewers: int, seconds: float, demo: str, maps: bool = True, rounds: int = 2
) -> dict[str, Any]:
    load_before = os.getloadavg()
    # The built-in demo as `umpire serve --demo` starts it.
    live = open_live(demo=demo, tracker_process=True)
    units = [u.id for u in live.game.units]
    if viewers > len(units):
        live.source.close()
        raise SystemExit(
            f"the {demo} demo has {len(units)} units, fewer than {viewers} viewers; "
            "choose fewer viewers or another --demo"
        )
    selects = units[:viewers]
    alone: list[Any] = []
    beside: list[Any] = []
    with tempfile.TemporaryDirectory() as data, serve(live, Path(data)) as served:
        time.sleep(3.0)  # past the first frames' whole scans
        # Alone and beside in turn, so that a change of the machine's load meanwhile falls on
        # both alike.
        for _ in range(rounds):
            alone.append(_phase(live, served.port, 1, seconds, [], maps))
            beside.append(_phase(live, served.port, 1 + viewers, seconds, selects, maps))
    load_during = os.getloadavg()
    measured = seconds * rounds

    def plain(phases: list[Any], key: str) -> float:
        return sum(p["spectators"][0][key] for p in phases) / measured

    def tracker(phases: list[Any]) -> float:
        return statistics.fmean(p["tracker_fps"] for p in phases)

    others = [
        sum(p["spectators"][i][key] for p in beside) / measured
        for i in range(1, viewers + 1)
        for key in ("pictures", "maps")
    ]
    errors = [e for p in alone + beside for s in p["spectators"] for e in s["errors"]]
    alone_fps, beside_fps = plain(alone, "pictures"), plain(beside, "pictures")
    return {
        "demo": demo,
        "viewers": viewers,
        "selects": selects,
        "seconds": seconds,
        "rounds": rounds,
        "maps": maps,
        "plain_pictures_fps": {"alone": round(alone_fps, 2), "beside": round(beside_fps, 2)},
        "plain_events_fps": {
            "alone": round(plain(alone, "events"), 2),
            "beside": round(plain(beside, "events"), 2),
        },
        "share": round(beside_fps / alone_fps, 3) if alone_fps else None,
        "tracker_fps": {"alone": round(tracker(alone), 2), "beside": round(tracker(beside), 2)},
        "selecting_pictures_fps_median": round(statistics.median(others[0::2]), 2),
        "selecting_maps_fps_median": round(statistics.median(others[1::2]), 2),
        "errors": len(errors),
        "error_examples": errors[:5],
        "load_average": {
            "before": [round(v, 2) for v in load_before],
            "during": [round(v, 2) for v in load_during],
        },
        "cpus": os.cpu_count(),
    }


def text(r: dict[str, Any]) -> str:
    load = r["load_average"]
    pictures, events, tracker = r["plain_pictures_fps"], r["plain_events_fps"], r["tracker_fps"]
    return "\n".join(
        [
            f"a plain viewer, then beside {r['viewers']} viewers each selecting a different unit "
            f"({r['demo']} demo, 1280x720, {r['rounds']} rounds of {r['seconds']:g} s each"
            + (", every page asking for its map after each frame)" if r["maps"] else ")"),
            f"  plain viewer's live view: {pictures['alone']} pictures a second alone, "
            f"{pictures['beside']} beside them ({r['share']:.0%}; goal: 80% or more)",
            f"  plain viewer's frame events: {events['alone']} a second alone, "
            f"{events['beside']} beside them",
            f"  tracker: {tracker['alone']} frames a second, then {tracker['beside']}",
            f"  each selecting viewer (median): {r['selecting_pictures_fps_median']} pictures "
            f"and {r['selecting_maps_fps_median']} maps a second; {r['errors']} errors",
            f"  load average {' '.join(map(str, load['before']))} before, "
            f"{' '.join(map(str, load['during']))} at the end, on {r['cpus']} CPUs",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--viewers", type=int, default=14)
    parser.add_argument("--seconds", type=float, default=15.0, help="each phase (default 15)")
    parser.add_argument("--rounds", type=int, default=2, help="alone then beside (default 2)")
    parser.add_argument("--demo", default="europe-19c", help="a built-in demo's ruleset")
    parser.add_argument(
        "--no-map", action="store_true", help="the pages never ask for the map (streams only)"
    )
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    if opts.viewers < 1 or opts.seconds <= 0 or opts.rounds < 1:
        parser.error("--viewers and --rounds must be 1 or more, --seconds above 0")
    result = run(opts.viewers, opts.seconds, opts.demo, not opts.no_map, opts.rounds)
    print(json.dumps(result, indent=2) if opts.json else text(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
