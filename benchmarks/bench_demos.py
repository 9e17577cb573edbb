"""Issue 13: does the tracker lose a base the built-in demos plainly show?

Run: `python -m benchmarks.bench_demos [--frames N] [--ruleset NAME ...] [--json]`

Each built-in demo (`vision/demo.py`: `open_demo_game(RULESET, realtime=False)`, 1280x720
looking straight down, 10 frames a second, a unit moved every 3 s, a hand over the table every
12 s) is played for `--frames` frames (default 900: 90 s of demo). Every frame is scanned, in
the same run and one after the other, by the whole-frame detector (`naive`:
`Scanner(second_pass=False)`, pupil over every whole frame) and by the tracker (`Tracker`, which
sees the frames in order), both as `umpire serve` makes them (no camera intrinsics). The truth of
each frame (which bases are fully visible: in the frame and no part under the hand) comes from
the renderer, for the layout the demo says it drew (`DemoGame.layout()`, `DemoGame.hand`).

Printed per demo and detector: recall of the visible bases, `longest_miss_frames` (the longest
run of frames in which one fully visible base was not found, `vision.benchtrack.count_misses`),
which base and frames, the median frame time and the slowest frame after the first. The
tracker's column also gives `missing_frames`: frames in which it named a base missing
(`Tracker.missing`). Whole-frame detection of 900 frames takes a few minutes a demo on 2 cores:
`--frames 150` for a quick look. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time
from typing import Any

from calibration.units import to_mm
from vision.benchtrack import FrameTruth, Tally, summary, time_frame, visible_bases
from vision.demo import demo_rulesets, open_demo_game
from vision.pipeline import Scanner
from vision.render import Effects, tag_truths
from vision.synthetic import table_spec
from vision.track import Tracker

DEFAULT_FRAMES = 900


def frame_truth(source: Any) -> FrameTruth:
    """What the demo's last frame truly showed: every base's centre (mm) and which bases were
    fully visible."""
    layout = source.layout()
    unit = layout["unit"]
    bases = {
        b["id"]: (to_mm(b["x"], unit), to_mm(b["y"], unit))
        for u in layout["units"]
        for b in u["bases"]
    }
    game = source.game
    tags = tag_truths(table_spec(game, layout), source.camera, Effects(hand=source.hand))
    base_of_tag = {b.tag: b.id for u in game.units for b in u.bases}
    return FrameTruth(bases, visible_bases(tags, base_of_tag), source.hand, frozenset())


def run_demo(ruleset: str, frames: int, seed: int = 0) -> dict[str, Any]:
    """Play one demo for `frames` frames through both detectors."""
    source = open_demo_game(ruleset, realtime=False, seed=seed)
    game = source.game
    naive = Scanner(game, None, second_pass=False)
    tracker = Tracker(game, None)
    tallies = {"naive": Tally(), "tracker": Tally()}
    missing_frames = 0
    missing_bases: set[str] = set()
    load = os.getloadavg()
    started = time.perf_counter()
    gc.collect()
    visible = []
    for _ in range(frames):
        frame = source.read()
        assert frame is not None, "the demo always has a next frame"
        truth = frame_truth(source)
        visible.append(len(truth.visible))
        time_frame(tallies["naive"], naive, frame.image, truth)
        time_frame(tallies["tracker"], tracker, frame.image, truth)
        if tracker.missing:
            missing_frames += 1
            missing_bases.update(tracker.missing)
    source.close()
    sides = {name: summary(tally) for name, tally in tallies.items()}
    sides["tracker"]["missing_frames"] = missing_frames
    sides["tracker"]["missing_bases"] = sorted(missing_bases)
    return {
        "ruleset": ruleset,
        "frames": frames,
        "fps": source.fps,
        "moves": source.moves,
        "visible_per_frame": round(statistics.fmean(visible), 1),
        "naive": sides["naive"],
        "tracker": sides["tracker"],
        "seconds": round(time.perf_counter() - started, 1),
        "load_average": [round(v, 2) for v in load],
    }


def text(results: list[dict[str, Any]]) -> str:
    lines = [
        f"{'demo':22}{'side':>9}{'recall %':>10}{'longest miss':>14}  {'(base, frames)':28}"
        f"{'median ms':>10}{'slowest ms':>11}"
    ]
    for r in results:
        for side in ("naive", "tracker"):
            s = r[side]
            where = "-"
            if s["longest_miss"] is not None:
                first, last = s["longest_miss"]["frames"]
                where = f"{s['longest_miss']['base']} {first}-{last}"
            recall = "-" if s["recall"] is None else f"{100 * s['recall']:.2f}"
            lines.append(
                f"{r['ruleset'] if side == 'naive' else '':22}{side:>9}{recall:>10}"
                f"{s['longest_miss_frames']:>14}  {where:28}{s['latency_ms']['median']:>10.1f}"
                f"{s['slowest_after_first_ms'] or 0:>11.1f}"
            )
        t = r["tracker"]
        lines.append(
            f"{'':22}{'':9}  {r['frames']} frames at {r['fps']:g} fps, {r['moves']} moves, "
            f"{r['visible_per_frame']} visible bases a frame; tracker named a base missing in "
            f"{t['missing_frames']} frames ({', '.join(t['missing_bases']) or 'none'}); "
            f"{r['seconds']} s, load {r['load_average'][0]:.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--frames", type=int, default=DEFAULT_FRAMES, help="frames per demo")
    parser.add_argument(
        "--ruleset", action="append", choices=demo_rulesets(), help="one demo (repeatable)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = []
    for ruleset in args.ruleset or demo_rulesets():
        results.append(run_demo(ruleset, args.frames, args.seed))
        if not args.json:
            print(text(results[-1:]), flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
