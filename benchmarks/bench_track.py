"""Issue 6: the tracker against the full-frame detector, at 1080p and at 4K, in one run.

Run: `python -m benchmarks.bench_track [--quick] [--json]`

Each resolution is `umpire bench` (vision/benchtrack.py): a synthetic video of a 180 x 120 cm
table with 120 tags of 16 to 25 mm (4 corner tags, 116 bases in units of 4), units pushed by a
player's hand, a hand sweeping over part of the table, 30 fps, rendered before anything is
timed; then the naive full-frame detector and the tracker over the same frames. Both
resolutions are printed side by side with the load average (the machine may be shared). The
figure to quote is the ratio tracker / naive of the same run. Nothing here is asserted.

Default: 90 frames at 1920x1080 and 45 at 3840x2160 (about 3 minutes on 2 cores); `--quick`:
30 and 12.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any, Final

from vision.benchtrack import comparison_lines, run_bench

RUNS: Final = (((1920, 1080), 90, 30), ((3840, 2160), 45, 12))
"""(resolution, frames, frames with --quick)."""
TAGS: Final = 120
TAG_SIZE: Final = (16.0, 25.0)


def run(quick: bool, seed: int) -> dict[str, dict[str, Any]]:
    """One benchmark per resolution, in turn."""
    results = {}
    for resolution, frames, quick_frames in RUNS:
        results[f"{resolution[0]}x{resolution[1]}"] = run_bench(
            resolution=resolution,
            tags=TAGS,
            tag_size=TAG_SIZE,
            frames=quick_frames if quick else frames,
            seed=seed,
        )
    return results


def text(results: dict[str, dict[str, Any]], load: tuple[float, float, float]) -> str:
    """Both resolutions side by side, each with its ratio."""
    columns = [
        (f"{name} {side}", result[side])
        for name, result in results.items()
        for side in ("naive", "tracker")
    ]
    lines = [
        f"{TAGS} tags of {TAG_SIZE[0]:g}-{TAG_SIZE[1]:g} mm on a 180 x 120 cm table, 30 fps video; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs",
        *(
            f"{name}: {r['frames']} frames, {r['video']['moves']} units moved, "
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
    parser.add_argument("--quick", action="store_true", help="30 frames at 1080p, 12 at 4K")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print both results as JSON")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    started = time.perf_counter()
    results = run(args.quick, args.seed)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(text(results, load))
        print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
