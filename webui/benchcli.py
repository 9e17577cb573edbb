"""`umpire bench`: the command-line side of `vision.benchtrack`.

`add_bench_parser(commands)` adds the sub-command to the `umpire` parser; `run_bench_command`
checks every option (a bad one raises `BenchOptionError`, which `umpire` turns into one line on
stderr and exit status 2), runs the benchmark and prints its table or its JSON. The options are
read as text and checked here, so that each message names the option and what it accepts.
The benchmark (OpenCV, pupil-apriltags) is imported only when the command runs.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from typing import Any, Final

from rules.errors import UmpireError

DEFAULT_RESOLUTION: Final = "1920x1080"
"""The `bench` camera's; the `demo` camera's is 1280x720."""
CAMERAS: Final = ("bench", "demo")
MATS: Final = ("felt", "chequered")
DEFAULT_TAGS: Final = "120"
DEFAULT_TAG_SIZE: Final = "16-25"
MAX_TAGS: Final = 300
"""As many as `vision.benchtrack` can lay out on a 180 x 120 cm table with room to move."""
TAG_MM: Final = (8.0, 60.0)
MAX_FRAMES: Final = 10_000
SIDES: Final = ((320, 8192), (240, 8192))
"""Accepted widths and heights, pixels."""


class BenchOptionError(UmpireError):
    """An option of `umpire bench` that is not of the accepted form."""


@dataclass(frozen=True, slots=True)
class BenchOptions:
    """The checked options."""

    resolution: tuple[int, int] | None
    """None: the camera's own (1920x1080 for `bench`, 1280x720 for `demo`)."""
    tags: int
    tag_size: tuple[float, float]
    """Smallest and largest black-border edge, mm (equal for one size)."""
    frames: int | None
    """None: the benchmark's default for the resolution."""
    seed: int
    json: bool
    camera: str = "bench"
    """`bench` (tilted 8 degrees, a barrel lens) or `demo` (the built-in demo's camera)."""
    mat: str = "felt"
    """`felt` or `chequered`."""


def parse_resolution(text: str) -> tuple[int, int]:
    """`1920x1080` -> (1920, 1080)."""
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    (low_w, high_w), (low_h, high_h) = SIDES
    if match:
        width, height = int(match[1]), int(match[2])
        if low_w <= width <= high_w and low_h <= height <= high_h:
            return width, height
    raise BenchOptionError(
        f"--resolution: expected WIDTHxHEIGHT in pixels, {low_w}-{high_w} wide and "
        f"{low_h}-{high_h} high (for example 1920x1080 or 3840x2160), got {text!r}"
    )


def _whole(text: str, option: str, low: int, high: int) -> int:
    value = int(text) if re.fullmatch(r"\s*\d+\s*", text) else None
    if value is None or not low <= value <= high:
        raise BenchOptionError(
            f"{option}: expected a whole number from {low} to {high}, got {text!r}"
        )
    return value


def parse_tags(text: str) -> int:
    """How many tags in all, the 4 corner tags included: at least one base besides them."""
    return _whole(text, "--tags", 5, MAX_TAGS)


def parse_frames(text: str) -> int:
    return _whole(text, "--frames", 1, MAX_FRAMES)


def parse_tag_size(text: str) -> tuple[float, float]:
    """`20` -> (20, 20); `16-25` -> (16, 25): black-border edge in mm."""
    number = r"\s*(\d+(?:\.\d+)?)\s*"
    low, high = TAG_MM
    match = re.fullmatch(number + f"(?:-{number})?", text)
    if match:
        smallest = float(match[1])
        largest = float(match[2]) if match[2] is not None else smallest
        if low <= smallest <= largest <= high:
            return smallest, largest
    raise BenchOptionError(
        f"--tag-size: expected a size in mm ({low:g} to {high:g}, for example 20) or a range "
        f"MIN-MAX with MIN <= MAX (for example 16-25), got {text!r}"
    )


def bench_options(opts: argparse.Namespace) -> BenchOptions:
    """The parsed `umpire bench` options, each checked; `BenchOptionError` names a bad one."""
    camera = _choice(getattr(opts, "camera", "bench"), "--camera", CAMERAS)
    mat = _choice(getattr(opts, "mat", "felt"), "--mat", MATS)
    return BenchOptions(
        resolution=None if opts.resolution is None else parse_resolution(opts.resolution),
        tags=parse_tags(opts.tags),
        tag_size=parse_tag_size(opts.tag_size),
        frames=None if opts.frames is None else parse_frames(opts.frames),
        seed=_whole(opts.seed, "--seed", 0, 2**31 - 1),
        json=bool(opts.json),
        camera=camera,
        mat=mat,
    )


def _choice(text: str, option: str, choices: tuple[str, ...]) -> str:
    if text not in choices:
        raise BenchOptionError(f"{option}: expected one of {', '.join(choices)}, got {text!r}")
    return text


def add_bench_parser(commands: Any) -> argparse.ArgumentParser:
    """Add `bench` to the `umpire` sub-commands (the `add_subparsers` object)."""
    bench = commands.add_parser(
        "bench",
        help="will this computer keep up? the full-frame detector against the tracker",
        description="Render a synthetic video of a 180 x 120 cm table (units pushed by a "
        "player's hand, a hand sweeping over part of the table, 30 fps), then run the plain "
        "full-frame detector and the tracker over the same frames, one after the other, and "
        "report each one's frames per second, latency, recall of the visible tags and "
        "position error, and the ratio tracker / naive measured in this run.",
    )
    bench.add_argument(
        "--resolution",
        metavar="WxH",
        help=f"camera pixels (default {DEFAULT_RESOLUTION}; 1280x720 with --camera demo)",
    )
    bench.add_argument(
        "--camera",
        default="bench",
        metavar="RIG",
        help="bench: 150 cm up, tilted 8 degrees, a mild barrel lens (default); demo: the "
        "built-in demo's camera, 150 cm up looking straight down, no lens distortion",
    )
    bench.add_argument(
        "--mat",
        default="felt",
        metavar="MAT",
        help="felt (default) or chequered: 5 cm dark and light squares, the worst ground for "
        "the detector's second look at every dark square",
    )
    bench.add_argument(
        "--tags",
        default=DEFAULT_TAGS,
        metavar="N",
        help=f"tags in all, 4 corner tags included, 5 to {MAX_TAGS} (default {DEFAULT_TAGS})",
    )
    bench.add_argument(
        "--tag-size",
        default=DEFAULT_TAG_SIZE,
        metavar="MM",
        help=f"black-border edge in mm, one size (20) or a range (default {DEFAULT_TAG_SIZE})",
    )
    bench.add_argument(
        "--frames",
        metavar="N",
        help="frames of video at 30 fps (default 90; 45 above 1920x1080)",
    )
    bench.add_argument("--seed", default="0", metavar="N", help="layout and noise seed")
    bench.add_argument("--json", action="store_true", help="print JSON")
    bench.set_defaults(run=run_bench_command)
    return bench


def run_bench_command(opts: argparse.Namespace) -> int:
    """Check the options, run the benchmark and print the result."""
    options = bench_options(opts)
    from vision.benchtrack import bench_text, run_bench

    result = run_bench(
        resolution=options.resolution,
        tags=options.tags,
        tag_size=options.tag_size,
        frames=options.frames,
        seed=options.seed,
        camera=options.camera,
        mat=options.mat,
    )
    print(json.dumps(result, indent=2) if options.json else bench_text(result))
    return 0
