"""Render a photo of the example game (or a busy table) and time it.

By default it draws `examples/games/skirmish.toml` with its pieces where `examples/skirmish.json`
puts them: a 1920x1080 frame from a camera 150 cm up tilted 15 degrees, with a little blur and
noise, which `umpire scan OUT --game examples/games/skirmish.toml` reads (examples/skirmish.jpg is
this frame). `--game` and `--scene` draw another game; `--busy` draws the timing table instead:
120 bases carrying 16-25 mm tag36h11 tags, four 60 mm corner tags, a little barrel distortion,
blur, noise and uneven light. The first frame pays for the per-camera set-up (undistorting
every pixel, painting the felt); the following ones show the steady cost of a video frame.

    python -m benchmarks.render_sample OUT.png|OUT.jpg [--game GAME --scene SCENE] [--busy]
        [--frames N] [--raised MM] [--hand]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from vision.game import load_game
from vision.render import Effects, camera_for_table, demo_table, hand_polygon, render
from vision.synthetic import table_spec

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GAME = EXAMPLES / "games" / "skirmish.toml"
SCENE = EXAMPLES / "skirmish.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="image file to write the frame to (.png, or .jpg at q90)")
    parser.add_argument("--game", default=str(GAME), help="game file to draw (default: example)")
    parser.add_argument("--scene", default=str(SCENE), help="scene placing the game's pieces")
    parser.add_argument("--busy", action="store_true", help="the 120-base timing table instead")
    parser.add_argument("--frames", type=int, default=10, help="frames to time after the first")
    parser.add_argument("--raised", type=float, default=0.0, help="busy table: tag height, mm")
    parser.add_argument("--hand", action="store_true", help="a hand over the table")
    args = parser.parse_args(argv)

    hand = hand_polygon((700.0, 650.0), 80.0) if args.hand else None
    if args.busy:
        table = demo_table(
            1800.0, 1200.0, bases=120, tag_sizes_mm=(16.0, 25.0), height_mm=args.raised, seed=1
        )
        camera = camera_for_table(
            table, 1920, 1080, 1500.0, tilt_deg=15.0, distortion=(-0.08, 0.015, 0.0, 0.0, 0.0)
        )
        effects = Effects(blur_px=0.7, noise_sigma=3.0, light_gradient=0.25, hand=hand)
    else:
        scene = json.loads(Path(args.scene).read_text(encoding="utf-8"))
        table = table_spec(load_game(args.game), scene)
        camera = camera_for_table(table, 1920, 1080, 1500.0, 15.0)
        effects = Effects(blur_px=0.6, noise_sigma=2.0, light_gradient=0.1, hand=hand)
    rng = np.random.default_rng(0)

    start = time.perf_counter()
    frame = render(table, camera, effects, rng)
    first = time.perf_counter() - start
    times = []
    for _ in range(args.frames):
        start = time.perf_counter()
        render(table, camera, effects, rng)
        times.append(time.perf_counter() - start)
    plain = []
    for _ in range(args.frames):
        start = time.perf_counter()
        render(table, camera, None, rng)
        plain.append(time.perf_counter() - start)

    quality = [cv2.IMWRITE_JPEG_QUALITY, 90] if args.out.lower().endswith((".jpg", ".jpeg")) else []
    if not cv2.imwrite(args.out, frame.image, quality):
        parser.error(f"cannot write {args.out!r}")
    sides = [
        float(np.linalg.norm(t.corners_px[0] - t.corners_px[1]))
        for t in frame.truth.tags
        if t.corners_px is not None
    ]
    print(
        f"wrote {args.out}: {frame.image.shape[1]}x{frame.image.shape[0]}, "
        f"{len(frame.truth.tags)} tags, {sum(t.visible for t in frame.truth.tags)} visible, "
        f"tags {min(sides):.1f}-{max(sides):.1f} px across"
    )
    print(f"first frame (camera set-up included): {first * 1000:.0f} ms")
    if times:
        print(
            f"next {len(times)} frames with effects: median {statistics.median(times) * 1000:.1f}"
            f" ms, max {max(times) * 1000:.1f} ms"
        )
        print(
            f"next {len(plain)} frames, clean: median {statistics.median(plain) * 1000:.1f} ms, "
            f"max {max(plain) * 1000:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
