"""Issue 13: the extra passes' time budget, and the coarse pass, measured.

Run: `python -m benchmarks.bench_passes [--frames N] [--skip-before] [--json]`

The budget. The second pass looks again, upscaled and sharpened, at every dark quad the
full-frame pass did not read; on a chequered mat or a ChArUco board every square is one. Each
scene is scanned:
- `before`: the second pass as it was before issue 13 (every quad looked at; here `FLAT_LEVELS`
  set to 0), no budget: `Scanner.detect_all` once, wall and CPU time, quads looked at;
- `flat filter`: the same with quads flat inside left out (`holds_a_code`), still no budget;
- `tracker`: `Tracker` over `--frames` frames of the still scene (fresh sensor noise each), its
  whole scan first: the first frame's time, then the slowest and median of the others, looks
  taken a frame at most, and the frame by which the looks left over by the whole scan were all
  taken (`pending` 0).
Scenes: the bench game (120 tags of 16-25 mm, `vision/benchtrack.py`) on a 5 cm chequered mat
at 1920x1080 and with the demo's camera at 1280x720, and a ChArUco board (7 x 5 squares of
DICT_5X5, OpenCV's) filling a 1280x720 and a 640x480 picture (no game tags: `before` and
`flat filter` only).

The coarse pass. A large tag blurred over many pixels (close to the camera, out of focus) at
three sizes: whether the full-frame pass reads it, whether the coarse pass (the picture shrunk
twice, `Detector.detect_coarse`) does, and each one's time.

Timings are single runs on a shared machine: the load average is printed. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraModel
from vision.benchtrack import MATS, RIGS, Layout, bench_game
from vision.detect import make_detector
from vision.pipeline import Scanner, to_gray
from vision.render import (
    CameraSpec,
    Effects,
    TableSpec,
    TagSpec,
    camera_for_table,
    render,
)
from vision.synthetic import table_spec
from vision.track import Tracker


def timed(run: Callable[[], Any]) -> tuple[Any, float, float]:
    """`run()`, its wall and CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = run()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def mat_frames(rig: str, frames: int) -> tuple[Any, list[npt.NDArray[np.uint8]], Any]:
    """The bench game on the chequered mat, still, `frames` frames (fresh noise each)."""
    game = bench_game(120, (16.0, 25.0) if rig == "bench" else (30.0, 30.0))
    layout = Layout(game)
    layout.place_units(np.random.default_rng(0))
    table = table_spec(game, layout.scene(), mat_squares_mm=MATS["chequered"])
    setup = RIGS[rig]
    camera = camera_for_table(
        table, *setup.resolution, 1500.0, tilt_deg=setup.tilt_deg, distortion=setup.lens
    )
    shots = [
        render(table, camera, setup.effects, np.random.default_rng([7, i])) for i in range(frames)
    ]
    truth = shots[0].truth.camera
    model = CameraModel.from_values(truth.matrix, truth.distortion, setup.resolution)
    return game, [shot.image for shot in shots], model


def charuco_picture(size: tuple[int, int]) -> npt.NDArray[np.uint8]:
    """A ChArUco board (7 x 5 squares, DICT_5X5_100) filling most of the picture, slightly
    turned, blurred and noisy, as a camera would see one."""
    board = cv2.aruco.CharucoBoard(
        (7, 5), 0.04, 0.03, cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_100)
    )
    width, height = size
    face = board.generateImage((int(width * 0.8), int(width * 0.8 * 5 / 7)), marginSize=20)
    picture = np.full((height, width), 120, np.uint8)
    h, w = face.shape
    scale = min(0.9 * height / h, 1.0)
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), 4.0, scale)
    turn[:, 2] += ((width - w) / 2, (height - h) / 2)
    cv2.warpAffine(face, turn, (width, height), picture, borderMode=cv2.BORDER_TRANSPARENT)
    blurred = cv2.GaussianBlur(picture, (0, 0), 0.8).astype(np.float64)
    noise = np.random.default_rng(0).normal(0.0, 2.5, picture.shape)
    return np.asarray(np.clip(blurred + noise, 0, 255), np.uint8)


def second_pass_before(game: Any, gray: npt.NDArray[np.uint8]) -> tuple[int, int]:
    """The full-frame pass and the second pass as they were before issue 13: a look at every
    dark quad not read (none left out as flat), no budget. Returns (looks, tags)."""
    looks = tags = 0
    for detector in Scanner(game).detectors.values():
        found = detector.detect(gray)
        listed = detector.missed_looks(gray, found, flat_levels=0.0)
        looks += len(listed)
        tags += len(found) + sum(len(detector.read_look(gray, look)) for look in listed)
    return looks, tags


def scanner_passes(game: Any, gray: npt.NDArray[np.uint8], before: bool) -> dict[str, Any]:
    """`Scanner.detect_all` without a budget (the flat filter on), and (if `before`) the second
    pass as it was before issue 13."""
    found, wall, cpu = timed(lambda: Scanner(game).detect_all(gray))
    out: dict[str, Any] = {
        "flat filter": {
            "ms": round(1000 * wall, 1),
            "cpu_ms": round(1000 * cpu, 1),
            "looks": found.looks,
            "tags": len(found.first) + len(found.second),
        }
    }
    if before:
        (looks, tags), wall, cpu = timed(lambda: second_pass_before(game, gray))
        out["before"] = {
            "ms": round(1000 * wall, 1),
            "cpu_ms": round(1000 * cpu, 1),
            "looks": looks,
            "tags": tags,
        }
    return out


def tracker_frames(game: Any, images: list[npt.NDArray[np.uint8]], model: Any) -> dict[str, Any]:
    tracker = Tracker(game, model)
    times, cpus, looked, pending = [], [], [], []
    emptied = None
    seen = 0
    for index, image in enumerate(images):
        scan, wall, cpu = timed(partial(tracker.scan, image))
        seen = len(scan.detections)
        times.append(wall)
        cpus.append(cpu)
        looked.append(tracker.stats["looked"])
        pending.append(tracker.stats["pending"])
        if emptied is None and index and tracker.stats["pending"] == 0:
            emptied = index
    rest = times[1:]
    return {
        "first_ms": round(1000 * times[0], 1),
        "first_deferred": pending[0],
        "slowest_after_first_ms": round(1000 * max(rest), 1) if rest else None,
        "slowest_cpu_after_first_ms": round(1000 * max(cpus[1:]), 1) if rest else None,
        "median_ms": round(1000 * statistics.median(rest), 1) if rest else None,
        "most_looks_a_frame": max(looked[1:]) if rest else None,
        "queue_empty_at_frame": emptied,
        "seen": seen,
    }


def budget_rows(frames: int, before: bool) -> list[dict[str, Any]]:
    rows = []
    for rig, label in (("bench", "1920x1080 chequered mat"), ("demo", "1280x720 chequered mat")):
        game, images, model = mat_frames(rig, frames)
        gray = to_gray(images[0])
        row = {"scene": label, **scanner_passes(game, gray, before)}
        row["tracker"] = tracker_frames(game, images, model)
        rows.append(row)
    game = bench_game(12, (25.0, 25.0))
    for size in ((1280, 720), (640, 480)):
        gray = charuco_picture(size)
        rows.append(
            {"scene": f"{size[0]}x{size[1]} ChArUco board", **scanner_passes(game, gray, before)}
        )
    return rows


COARSE_SCENES = (
    ((1280, 720), 150.0, 6.0),
    ((1920, 1080), 200.0, 8.0),
    ((3872, 2592), 400.0, 12.0),
)
"""(picture size, tag side in pixels, lens blur in pixels): large tags close to the camera."""


def coarse_rows() -> list[dict[str, Any]]:
    detector = make_detector("tag36h11")
    rows = []
    for size, side_px, blur in COARSE_SCENES:
        table = TableSpec(300.0, 200.0, tags=(TagSpec("tag36h11", 20, 150.0, 100.0, size_mm=60.0),))
        camera = CameraSpec(*size, 1000.0, tilt_deg=30.0, focal_px=side_px / 60.0 * 1000.0)
        frame = render(table, camera, Effects(blur_px=blur, noise_sigma=2.0))
        gray = to_gray(frame.image)
        full, full_s, _ = timed(partial(detector.detect, gray))
        coarse, coarse_s, _ = timed(partial(detector.detect_coarse, gray))
        rows.append(
            {
                "scene": f"{size[0]}x{size[1]}, a {side_px:g} px tag blurred {blur:g} px",
                "full_found": len(full),
                "full_ms": round(1000 * full_s, 1),
                "coarse_found": len(coarse),
                "coarse_ms": round(1000 * coarse_s, 1),
            }
        )
    return rows


def text(result: dict[str, Any]) -> str:
    lines = [f"load average {result['load'][0]:.2f} on {os.cpu_count()} CPUs", ""]
    lines.append("The second pass on dark squares (Scanner.detect_all, no budget):")
    for row in result["budget"]:
        parts = [f"  {row['scene']:28}"]
        for name in ("before", "flat filter"):
            if name in row:
                r = row[name]
                parts.append(
                    f"{name}: {r['looks']} looks, {r['ms']:.0f} ms ({r['cpu_ms']:.0f} CPU)"
                )
        lines.append("; ".join(parts))
    lines.append("")
    lines.append("The tracker on the chequered mat (budget: EXTRA_BUDGET_MS a frame):")
    for row in result["budget"]:
        t = row.get("tracker")
        if t is None:
            continue
        lines.append(
            f"  {row['scene']:28} first frame {t['first_ms']:.0f} ms ({t['first_deferred']} "
            f"looks queued); then slowest {t['slowest_after_first_ms']:.0f} ms (CPU "
            f"{t['slowest_cpu_after_first_ms']:.0f}), median {t['median_ms']:.1f} ms, at most "
            f"{t['most_looks_a_frame']} looks a frame, queue empty at frame "
            f"{t['queue_empty_at_frame']}; {t['seen']} tags seen"
        )
    lines.append("")
    lines.append("The coarse pass (large blurred tags):")
    for row in result["coarse"]:
        lines.append(
            f"  {row['scene']:40} full resolution: {row['full_found']} found, "
            f"{row['full_ms']:.0f} ms; half: {row['coarse_found']} found, {row['coarse_ms']:.0f} ms"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--frames", type=int, default=30, help="tracker frames a scene")
    parser.add_argument(
        "--skip-before", action="store_true", help="leave out the pre-issue-13 second pass"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    load = os.getloadavg()
    result = {
        "load": [round(v, 2) for v in load],
        "budget": budget_rows(args.frames, not args.skip_before),
        "coarse": coarse_rows(),
    }
    print(json.dumps(result, indent=2) if args.json else text(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
