"""Issues 6 and 13: the tracker against the full-frame detector, scene by scene, in one run.

Run: `python -m benchmarks.bench_track [--quick] [--scene NAME ...] [--json]`

Each scene is `umpire bench` (vision/benchtrack.py): a synthetic video of a 180 x 120 cm table
with 120 tags (4 corner tags, 116 bases in units of 4), units pushed by a player's hand, a hand
sweeping over part of the table, 30 fps, rendered before anything is timed; then the naive
full-frame detector and the tracker over the same frames. The scenes:
- `1080p`: `umpire bench` (1920x1080, 16-25 mm tags, the bench camera tilted 8 degrees);
- `720p-demo`: `umpire bench --camera demo --tag-size 30` (the demo's camera, 1280x720 looking
  straight down, with the tags the rig rule asks for there);
- `1080p-chequered`: `umpire bench --mat chequered` (5 cm dark and light squares);
- `4k`: `umpire bench --resolution 3840x2160`.
All are printed side by side with the load average (the machine may be shared). The figures to
quote are each scene's ratio tracker / naive, `longest_miss_frames` of both, and the
tracker's slowest frame after the first. Nothing here is asserted.

Default: 90 frames a scene, 45 at 3840x2160 (about 8 minutes on 2 cores); `--quick`: 30 and 12.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any, Final

from vision.benchtrack import comparison_lines, run_bench

TAGS: Final = 120
TAG_SIZE: Final = (16.0, 25.0)
SCENES: Final[dict[str, tuple[dict[str, Any], int, int]]] = {
    "1080p": ({"resolution": (1920, 1080)}, 90, 30),
    "720p-demo": ({"camera": "demo", "tag_size": (30.0, 30.0)}, 90, 30),
    "1080p-chequered": ({"resolution": (1920, 1080), "mat": "chequered"}, 90, 30),
    "4k": ({"resolution": (3840, 2160)}, 45, 12),
}
"""name: (`run_bench` options, frames, frames with --quick)."""


def run(quick: bool, seed: int, scenes: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """One benchmark per scene, in turn."""
    results = {}
    for name in scenes or list(SCENES):
        options, frames, quick_frames = SCENES[name]
        settings = {"tags": TAGS, "tag_size": TAG_SIZE, **options}
        results[name] = run_bench(frames=quick_frames if quick else frames, seed=seed, **settings)
    return results


def text(results: dict[str, dict[str, Any]], load: tuple[float, float, float]) -> str:
    """Both resolutions side by side, each with its ratio."""
    columns = [
        (f"{name} {side}", result[side])
        for name, result in results.items()
        for side in ("naive", "tracker")
    ]
    lines = [
        f"{TAGS} tags on a 180 x 120 cm table, 30 fps video; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs",
        *(
            f"{name}: {r['resolution']}, {r['camera']} camera, {r['mat']} mat, tags "
            f"{'-'.join(f'{v:g}' for v in dict.fromkeys(r['tag_size_mm']))} mm, "
            f"{r['frames']} frames, {r['video']['moves']} units moved, "
            f"{r['video']['visible_per_frame']} visible base tags a frame, rendered in "
            f"{r['video']['render_seconds']} s"
            for name, r in results.items()
        ),
        "",
        *comparison_lines(columns),
        "",
        *(
            f"{name}: tracker / naive = {r['ratio']:.2f}x median fps "
            f"({r['ratio_sustained']:.2f}x sustained, {r['ratio_cpu']:.2f}x in median CPU time)"
            for name, r in results.items()
        ),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="30 frames a scene, 12 at 4K")
    parser.add_argument("--scene", action="append", choices=list(SCENES), help="repeatable")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print both results as JSON")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    started = time.perf_counter()
    results = run(args.quick, args.seed, args.scene)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(text(results, load))
        print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
