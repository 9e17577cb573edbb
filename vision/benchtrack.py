"""`umpire bench`: will this computer keep up with a busy club table?

Issue 6's measurement. A synthetic video of a 180 x 120 cm table is rendered first (bases on it,
a few units pushed about by a player's hand, a hand and forearm sweeping over part of the
table, sensor noise different in every frame, mild lens blur), then, on the very same frames and
in the same run, two scanners are timed one after the other:

- `naive`: what a newcomer would write, pupil-apriltags over every full frame, then the
  calibration and the scene (`Scanner(game, camera, second_pass=False)`);
- `tracker`: `vision.track.Tracker`, which sees the frames in order and may keep what it learnt.

Both get the camera's true intrinsics (a perfect calibration, as `benchmarks/bench_scan.py`
does), so what differs is only how each finds the tags. Per frame: the wall time of `.scan`
(the frame-to-scene latency; nothing else runs in between) and the process CPU time; recall of
the visible base tags (the renderer's ground truth: in the frame, not under the hand) whose base
is in the scene; position error, mm, of every visible base found. The figure to quote is
`ratio`, tracker fps / naive fps, measured in the same run on the same machine.

Never imports flask or webui; timing assertions belong here and in `benchmarks/`, not in tests.
"""

from __future__ import annotations

import gc
import math
import os
import platform
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import metadata
from typing import Any, Final, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraModel
from calibration.units import to_mm
from rules.errors import UmpireError

from .demo import DEMO_CAMERA_TILT_DEG, DEMO_GAME_EFFECTS
from .game import Game, parse_game
from .pipeline import Scan, Scanner
from .render import CameraSpec, Effects, Point, TagTruth, camera_for_table, hand_polygon, render
from .synthetic import table_spec

FPS: Final = 30.0
"""The video's frame rate: a webcam's."""
TABLE_MM: Final = (1800.0, 1200.0)
CAMERA_HEIGHT_MM: Final = 1500.0
CAMERA_TILT_DEG: Final = 8.0
LENS: Final = (-0.05, 0.01, 0.0, 0.0, 0.0)
"""A mild barrel (k1, k2, p1, p2, k3): a webcam's lens, known to both scanners."""
EFFECTS: Final = Effects(blur_px=0.6, noise_sigma=2.5, light_gradient=0.15)
"""Mild lens blur, sensor noise (fresh in every frame) and a little uneven light."""
CORNER_INSET_MM: Final = 50.0
"""Corner tags are centred this far in from each corner of the table."""
FIRST_BASE_TAG: Final = 10
BASES_PER_UNIT: Final = 4
MOVE_FRAMES: Final = 30
"""A move lasts one second."""
MOVE_MM: Final = (80.0, 120.0)
"""How far a moved unit slides (about 10 cm)."""
TURN_DEG: Final = (10.0, 30.0)
"""How far a moved unit turns about its centre, either way."""
SWEEP_FRAMES: Final = 45
"""The sweeping hand is over the table for 1.5 seconds."""
PAUSE_FRAMES: Final = 3
"""Between one hand leaving the table and the next coming in (one hand at a time)."""
DEFAULT_FRAMES_HD: Final = 90
DEFAULT_FRAMES_LARGE: Final = 45
"""Above 1920x1080 the naive detector takes about a second a frame: a shorter default video."""
MAX_TAGS: Final = 300
"""About as many bases as fit a 180 x 120 cm table with room left to move them."""
MIN_TAG_MM: Final = 8.0
MAX_TAG_MM: Final = 60.0
CHEQUER_MM: Final = 50.0
"""The chequered mat's squares: 5 cm, dark and light (a chessboard-like grid mat)."""
MATS: Final[Mapping[str, float]] = {"felt": 0.0, "chequered": CHEQUER_MM}
"""The mats `--mat` offers: the plain felt, or a chequered mat (its squares' side in mm), the
worst ground for a second pass that looks again at every dark square."""


@dataclass(frozen=True, slots=True)
class Rig:
    """How the table is filmed: `bench` is a webcam tilted 8 degrees through a mild barrel lens
    (issue 6's video); `demo` the camera of the built-in demo (`vision/demo.py`): 1280x720
    looking straight down, no lens distortion, its blur and noise."""

    tilt_deg: float
    lens: tuple[float, float, float, float, float]
    effects: Effects
    resolution: tuple[int, int]
    """The resolution when none is given."""


RIGS: Final[Mapping[str, Rig]] = {
    "bench": Rig(CAMERA_TILT_DEG, LENS, EFFECTS, (1920, 1080)),
    "demo": Rig(DEMO_CAMERA_TILT_DEG, (0.0, 0.0, 0.0, 0.0, 0.0), DEMO_GAME_EFFECTS, (1280, 720)),
}
WRONG_PLACE_MM: Final = 5.0
"""A base found farther than this from where it stands is counted as misplaced (reported
beside the error figures, which still include it)."""


class BenchError(UmpireError):
    """A benchmark that cannot be set up as asked (a bad size, count or tag size)."""


class SceneScanner(Protocol):
    """Anything that turns one photo into a scene: `Scanner`, or the stateful `Tracker`."""

    def scan(self, image: npt.NDArray[np.uint8]) -> Scan: ...


ScannerFactory = Callable[[Game, CameraModel], SceneScanner]
"""Makes a fresh scanner for the game, given the camera's intrinsics."""


# --------------------------------------------------------------------------- the game


@dataclass(frozen=True, slots=True)
class BasePose:
    """Where a base stands in one frame: centre (mm) and facing (degrees CCW from +x)."""

    x: float
    y: float
    facing: float


def tag_sizes(count: int, tag_size: tuple[float, float]) -> list[float]:
    """`count` tag sizes spread evenly from the smallest to the largest, 0.1 mm steps."""
    low, high = tag_size
    if count == 1:
        return [round((low + high) / 2, 1)]
    return [round(low + (high - low) * i / (count - 1), 1) for i in range(count)]


def base_side(tag_mm: float) -> float:
    """A square base carrying a tag: the printed card (a quarter wider than the black square,
    one white cell each side of tag36h11's eight) and a 3 mm rim."""
    return round(tag_mm * 1.25 + 6.0, 1)


def bench_game(
    tags: int = 120, tag_size: tuple[float, float] = (16.0, 25.0), seed: int = 0
) -> Game:
    """The benchmark's game, in mm: 4 corner tags of the largest size, then `tags - 4` bases in
    units of 4, their tag sizes spread evenly over `tag_size` and dealt out at random."""
    check_setup(tags, tag_size)
    rng = np.random.default_rng(seed)
    high = tag_size[1]
    bases = tags - 4
    sizes = tag_sizes(bases, tag_size)
    rng.shuffle(sizes)
    units = []
    for first in range(0, bases, BASES_PER_UNIT):
        units.append(
            {
                "id": f"unit-{first // BASES_PER_UNIT + 1}",
                "side": "red" if (first // BASES_PER_UNIT) % 2 == 0 else "blue",
                "type": "infantry",
                "bases": [
                    {
                        "id": f"b{n + 1}",
                        "tag": FIRST_BASE_TAG + n,
                        "tag_size": sizes[n],
                        "width": base_side(sizes[n]),
                        "depth": base_side(sizes[n]),
                    }
                    for n in range(first, min(first + BASES_PER_UNIT, bases))
                ],
            }
        )
    w, d = TABLE_MM
    i = CORNER_INSET_MM
    doc = {
        "ruleset": "skirmish-19c",
        "unit": "mm",
        "family": "tag36h11",
        "table": {"width": w, "depth": d},
        "calibration": {
            "tag_size": high,
            "corners": {"0": [i, i], "1": [w - i, i], "2": [w - i, d - i], "3": [i, d - i]},
        },
        "units": units,
        "terrain": [
            {"id": "wood", "kind": "woods", "polygon": [[300, 650], [620, 600], [680, 900]]},
            {
                "id": "road",
                "kind": "road",
                "polygon": [[0, 360], [1800, 450], [1800, 500], [0, 410]],
            },
        ],
    }
    return parse_game(doc, "bench-game")


def check_setup(tags: int, tag_size: tuple[float, float]) -> None:
    """Refuse what the table cannot hold or the renderer cannot print, naming the value."""
    if isinstance(tags, bool) or not isinstance(tags, int) or not 5 <= tags <= MAX_TAGS:
        raise BenchError(f"tags must be a whole number from 5 to {MAX_TAGS}, not {tags!r}")
    low, high = tag_size
    if not (MIN_TAG_MM <= low <= high <= MAX_TAG_MM):
        raise BenchError(
            f"tag sizes must be {MIN_TAG_MM:g} to {MAX_TAG_MM:g} mm, smallest first, not "
            f"{low:g}-{high:g}"
        )


# --------------------------------------------------------------------------- the layout


def _outline(pose: BasePose, side: float) -> npt.NDArray[np.float64]:
    """The four corners of a square base."""
    t = math.radians(pose.facing)
    c, s = math.cos(t), math.sin(t)
    h = side / 2
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    return local @ np.array([[c, s], [-s, c]]) + (pose.x, pose.y)


class Layout:
    """Where every base stands, and what may not be bumped into: the table's edges, the
    corner tags and the other bases (each base as the circle around its square)."""

    EDGE_MM: Final = 40.0
    GAP_MM: Final = 4.0

    def __init__(self, game: Game) -> None:
        self.game = game
        self.side = {b.id: b.footprint.width for u in game.units for b in u.bases}
        card = game.calibration.spec.size * 1.25
        self.keep_out = [(c.x, c.y, card / math.sqrt(2) + 30.0) for c in game.calibration.corners]
        self.poses: dict[str, BasePose] = {}

    def radius(self, base_id: str) -> float:
        return self.side[base_id] / math.sqrt(2)

    def fits(self, moved: Mapping[str, BasePose]) -> bool:
        """`moved` bases on the table, clear of the corner tags and of every other base."""
        far = np.array(TABLE_MM) - self.EDGE_MM
        for ident, pose in moved.items():
            corners = _outline(pose, self.side[ident])
            if corners.min() < self.EDGE_MM or (corners.max(axis=0) > far).any():
                return False
            r = self.radius(ident)
            if any(math.hypot(pose.x - x, pose.y - y) < r + k for x, y, k in self.keep_out):
                return False
            for other, there in self.poses.items():
                if other in moved:
                    continue
                gap = r + self.radius(other) + self.GAP_MM
                if math.hypot(pose.x - there.x, pose.y - there.y) < gap:
                    return False
        return True

    def place_units(self, rng: np.random.Generator) -> None:
        """Every unit in a line, its bases side by side, at a random place and facing."""
        for unit in self.game.units:
            ids = [b.id for b in unit.bases]
            spacing = max(self.side[i] for i in ids) + 3.0
            for _ in range(20_000):
                centre = (
                    float(rng.uniform(150.0, TABLE_MM[0] - 150.0)),
                    float(rng.uniform(150.0, TABLE_MM[1] - 150.0)),
                )
                facing = float(rng.uniform(0.0, 360.0))
                poses = line_of_bases(ids, centre, facing, spacing)
                if self.fits(poses):
                    self.poses.update(poses)
                    break
            else:
                raise BenchError(
                    f"cannot place {sum(len(u.bases) for u in self.game.units)} bases on a "
                    f"{TABLE_MM[0]:g} x {TABLE_MM[1]:g} mm table: ask for fewer or smaller tags"
                )

    def scene(self) -> dict[str, Any]:
        """The layout as a scene document (mm) for `vision.synthetic.table_spec`."""
        return {
            "unit": "mm",
            "units": [
                {
                    "id": unit.id,
                    "bases": [
                        {"id": b.id, "x": p.x, "y": p.y, "facing": p.facing}
                        for b in unit.bases
                        for p in [self.poses[b.id]]
                    ],
                }
                for unit in self.game.units
            ],
            "terrain": [],
        }


def line_of_bases(
    ids: Sequence[str], centre: Point, facing: float, spacing: float
) -> dict[str, BasePose]:
    """Bases side by side across `facing`, centred on `centre`."""
    t = math.radians(facing)
    right = (math.sin(t), -math.cos(t))
    offsets = [(i - (len(ids) - 1) / 2) * spacing for i in range(len(ids))]
    return {
        ident: BasePose(centre[0] + o * right[0], centre[1] + o * right[1], facing % 360.0)
        for ident, o in zip(ids, offsets, strict=True)
    }


# --------------------------------------------------------------------------- what happens


@dataclass(frozen=True, slots=True)
class Move:
    """One unit slid by (dx, dy) mm and turned by `turn` degrees about its centre, starting at
    frame `start` and lasting `MOVE_FRAMES`, a player's hand behind it."""

    unit: str
    start: int
    dx: float
    dy: float
    turn: float
    origin: Mapping[str, BasePose]

    def poses(self, frame: int) -> dict[str, BasePose]:
        """The unit's bases at `frame`: eased in and out, as a hand pushes a tray."""
        t = min(max((frame - self.start) / (MOVE_FRAMES - 1), 0.0), 1.0)
        share = (1 - math.cos(math.pi * t)) / 2
        return self.at(share)

    def at(self, share: float) -> dict[str, BasePose]:
        cx = statistics.fmean(p.x for p in self.origin.values())
        cy = statistics.fmean(p.y for p in self.origin.values())
        a = math.radians(self.turn * share)
        c, s = math.cos(a), math.sin(a)
        out = {}
        for ident, p in self.origin.items():
            rx, ry = p.x - cx, p.y - cy
            out[ident] = BasePose(
                cx + c * rx - s * ry + self.dx * share,
                cy + s * rx + c * ry + self.dy * share,
                (p.facing + self.turn * share) % 360.0,
            )
        return out


def hand_over(poses: Mapping[str, BasePose]) -> tuple[Point, ...]:
    """The hand pushing a unit: fingertips on the near side of the base closest to the edge
    the arm comes from (the near edge, or the far one for a unit in the far half)."""
    from_far = statistics.fmean(p.y for p in poses.values()) > TABLE_MM[1] / 2
    closest = (max if from_far else min)(poses.values(), key=lambda p: p.y)
    if from_far:
        return hand_polygon((closest.x, closest.y + 5.0), 270.0)
    return hand_polygon((closest.x, closest.y - 5.0), 90.0)


def sweep_hand(frame: int, start: int) -> tuple[Point, ...]:
    """The sweeping hand: in from the near edge, across the middle of the table, out again."""
    t = (frame - start + 0.5) / SWEEP_FRAMES
    reach = math.sin(math.pi * t)
    tip = ((0.25 + 0.4 * t) * TABLE_MM[0], -80.0 + reach * 0.5 * TABLE_MM[1])
    return hand_polygon(tip, 90.0 + 15.0 * math.sin(2 * math.pi * t))


def _clear_of_corners(layout: Layout, hands: Iterable[tuple[Point, ...]]) -> bool:
    """No hand comes near a corner tag: a table the players cannot calibrate is not the test."""
    for hand in hands:
        poly = np.asarray(hand, np.float32)
        for x, y, keep in layout.keep_out:
            if cv2.pointPolygonTest(poly, (x, y), True) > -(keep + 60.0):
                return False
    return True


def plan_move(layout: Layout, start: int, rng: np.random.Generator) -> Move | None:
    """A move of a random unit that stays on the table and clear of everything (checked along
    the way), or None when a few tries found none."""
    for _ in range(40):
        unit = layout.game.units[int(rng.integers(len(layout.game.units)))]
        origin = {b.id: layout.poses[b.id] for b in unit.bases}
        heading = float(rng.uniform(0.0, 2 * math.pi))
        length = float(rng.uniform(*MOVE_MM))
        turn = float(rng.choice([-1.0, 1.0]) * rng.uniform(*TURN_DEG))
        move = Move(
            unit.id, start, length * math.cos(heading), length * math.sin(heading), turn, origin
        )
        steps = [move.at(share) for share in np.linspace(0.0, 1.0, 9)]
        if all(layout.fits(step) for step in steps) and _clear_of_corners(
            layout, (hand_over(step) for step in steps)
        ):
            return move
    return None


@dataclass(frozen=True, slots=True)
class FrameTruth:
    """What one frame truly shows."""

    bases: Mapping[str, Point]
    """Every base's true centre, mm."""
    visible: frozenset[str]
    """Bases whose tag is in the frame and not under a hand: a scanner should find them."""
    hand: tuple[Point, ...] | None
    moving: frozenset[str]
    """Bases being pushed in this frame."""


@dataclass(frozen=True, slots=True)
class Video:
    """Pre-rendered frames (BGR, read-only) and the truth of each."""

    game: Game
    camera: CameraModel
    """The camera's true intrinsics, as a perfect calibration would give them."""
    images: tuple[npt.NDArray[np.uint8], ...]
    truth: tuple[FrameTruth, ...]
    moves: int
    sweep: tuple[int, int] | None
    """First and last frame of the sweeping hand."""
    render_seconds: float


def visible_bases(tags: Iterable[TagTruth], base_of_tag: Mapping[int, str]) -> frozenset[str]:
    """The bases whose tag the renderer says is visible (in the frame, not under a hand)."""
    return frozenset(base_of_tag[t.tag_id] for t in tags if t.tag_id in base_of_tag and t.visible)


def make_video(
    game: Game,
    frames: int,
    resolution: tuple[int, int] = (1920, 1080),
    seed: int = 0,
    effects: Effects = EFFECTS,
    sweep: bool = True,
    *,
    tilt_deg: float = CAMERA_TILT_DEG,
    lens: tuple[float, float, float, float, float] = LENS,
    mat_squares_mm: float = 0.0,
) -> Video:
    """Render `frames` frames at 30 fps: units pushed one after another (a second each), and
    after the first move a hand sweeping over the middle of the table for 1.5 s. One hand at a
    time; sensor noise seeded per frame, so each frame's noise differs and every run is alike."""
    rng = np.random.default_rng(seed)
    layout = Layout(game)
    layout.place_units(rng)
    spec = table_spec(game, layout.scene(), mat_seed=seed, mat_squares_mm=mat_squares_mm)
    width, height = resolution
    camera_spec: CameraSpec = camera_for_table(
        spec, width, height, CAMERA_HEIGHT_MM, tilt_deg=tilt_deg, distortion=lens
    )
    base_of_tag = {b.tag: b.id for u in game.units for b in u.bases}
    images: list[npt.NDArray[np.uint8]] = []
    truths: list[FrameTruth] = []
    move: Move | None = None
    moves = 0
    next_move = PAUSE_FRAMES
    sweep_at: int | None = None
    camera: CameraModel | None = None
    started = time.perf_counter()
    for index in range(frames):
        hand: tuple[Point, ...] | None = None
        moving: frozenset[str] = frozenset()
        if sweep_at is not None and sweep_at <= index < sweep_at + SWEEP_FRAMES:
            hand = sweep_hand(index, sweep_at)
        elif move is None and index >= next_move:
            move = plan_move(layout, index, rng)
            next_move = index + 1  # when no unit can move now, try again next frame
        if move is not None:
            moves += index == move.start
            layout.poses.update(move.poses(index))
            hand = hand_over({i: layout.poses[i] for i in move.origin})
            moving = frozenset(move.origin)
            if index == move.start + MOVE_FRAMES - 1:  # the last frame of the move
                move = None
                next_move = index + 1 + PAUSE_FRAMES
                if sweep and sweep_at is None:  # the sweep comes after the first move
                    sweep_at = next_move
                    next_move = sweep_at + SWEEP_FRAMES + PAUSE_FRAMES
        table = table_spec(game, layout.scene(), mat_seed=seed, mat_squares_mm=mat_squares_mm)
        frame = render(
            table, camera_spec, replace(effects, hand=hand), np.random.default_rng([seed, index])
        )
        if camera is None:
            truth_camera = frame.truth.camera
            camera = CameraModel.from_values(
                truth_camera.matrix, truth_camera.distortion, (width, height)
            )
        images.append(frame.image)
        truths.append(
            FrameTruth(
                {i: (p.x, p.y) for i, p in layout.poses.items()},
                visible_bases(frame.truth.tags, base_of_tag),
                hand,
                moving,
            )
        )
    assert camera is not None, "a video has at least one frame"
    return Video(
        game,
        camera,
        tuple(images),
        tuple(truths),
        moves,
        None
        if sweep_at is None or sweep_at >= frames
        else (sweep_at, min(sweep_at + SWEEP_FRAMES, frames) - 1),
        time.perf_counter() - started,
    )


# --------------------------------------------------------------------------- scoring


@dataclass(slots=True)
class Tally:
    """What one scanner measured over the video."""

    seconds: list[float] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)
    visible: int = 0
    found: int = 0
    errors_mm: list[float] = field(default_factory=list)
    misplaced: int = 0
    held: int = 0
    """Bases in the scene whose tag is hidden or out of the frame (remembered, not seen)."""
    held_errors_mm: list[float] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    """Frames the scanner refused (a calibration it could not fit), with its reason."""
    frames: int = 0
    missed_for: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Each base's current run: frames in a row it was fully visible and not found, and the
    frame (from 0) the run began at."""
    longest_miss: int = 0
    longest_miss_base: str | None = None
    longest_miss_frames: tuple[int, int] | None = None
    """The first and last frame (from 0) of the longest run."""


def count_misses(tally: Tally, visible: Iterable[str], found: Iterable[str]) -> None:
    """Add one frame to the miss runs: a base fully visible and not found lengthens its run, a
    base found ends it; a hidden one (out of the frame or partly under a hand) leaves its run
    as it is, so a base missed, covered a moment, then missed again counts as one long run.
    `longest_miss` is the longest run of any one base so far."""
    found = set(found)
    index = tally.frames
    tally.frames += 1
    for ident in visible:
        if ident in found:
            tally.missed_for.pop(ident, None)
            continue
        run, start = tally.missed_for.get(ident, (0, index))
        run += 1
        tally.missed_for[ident] = (run, start)
        if run > tally.longest_miss:
            tally.longest_miss, tally.longest_miss_base = run, ident
            tally.longest_miss_frames = (start, index)


def scene_positions(scene: Mapping[str, Any]) -> dict[str, Point]:
    """Every base of an `umpire-scene/1` document, its centre in mm."""
    unit = scene["unit"]
    return {
        b["id"]: (to_mm(b["x"], unit), to_mm(b["y"], unit))
        for u in scene.get("units", [])
        for b in u.get("bases", [])
    }


def score_frame(tally: Tally, scene: Mapping[str, Any], truth: FrameTruth) -> None:
    """Add one scanned frame: recall counts the visible bases found; the error of each found is
    the distance from where the scene puts it to where it stands."""
    seen = scene_positions(scene)
    tally.visible += len(truth.visible)
    count_misses(tally, truth.visible, seen)
    for ident, (x, y) in seen.items():
        true = truth.bases.get(ident)
        if true is None:
            continue
        error = math.hypot(x - true[0], y - true[1])
        if ident in truth.visible:
            tally.found += 1
            tally.errors_mm.append(error)
            tally.misplaced += error > WRONG_PLACE_MM
        else:
            tally.held += 1
            tally.held_errors_mm.append(error)


def _percentile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def summary(tally: Tally) -> dict[str, Any]:
    """The contract's figures (`fps`, `recall`, `median_error_mm`, `p99_error_mm`) and more.

    `fps` is 1 / the median frame time; `fps_worst5` 1 / the 95th percentile (the slowest 5% of
    frames run at this rate or slower); `fps_sustained` the frames over the total time, and
    `fps_sustained_after_first` the same without the first frame (a one-off start-up: a
    tracker reads the whole table once); `slowest_frames` the five slowest as [frame index,
    ms], to show where the time went, and `slowest_after_first_ms` the slowest but the first;
    `longest_miss_frames` the longest run of frames in which one base fully visible (in the
    frame, no part under a hand) was not found (`count_misses`), `longest_miss` which base and
    its first and last frame."""
    times = tally.seconds
    median_s = statistics.median(times) if times else math.nan
    p95_s = float(np.percentile(times, 95)) if times else math.nan
    return {
        "fps": round(1.0 / median_s, 2),
        "fps_worst5": round(1.0 / p95_s, 2),
        "fps_sustained": round(len(times) / sum(times), 2) if times else None,
        "fps_sustained_after_first": round((len(times) - 1) / sum(times[1:]), 2)
        if len(times) > 1
        else None,
        "slowest_after_first_ms": round(1000 * max(times[1:]), 1) if len(times) > 1 else None,
        "slowest_cpu_after_first_ms": round(1000 * max(tally.cpu_seconds[1:]), 1)
        if len(times) > 1
        else None,
        "latency_ms": {"median": round(1000 * median_s, 1), "p95": round(1000 * p95_s, 1)},
        "cpu_ms": {
            "median": round(1000 * statistics.median(tally.cpu_seconds), 1),
            "p95": round(1000 * float(np.percentile(tally.cpu_seconds, 95)), 1),
        },
        "recall": round(tally.found / tally.visible, 5) if tally.visible else None,
        "longest_miss_frames": tally.longest_miss,
        "longest_miss": None
        if tally.longest_miss_frames is None
        else {"base": tally.longest_miss_base, "frames": list(tally.longest_miss_frames)},
        "visible": tally.visible,
        "found": tally.found,
        "median_error_mm": _round(_percentile(tally.errors_mm, 50), 3),
        "p99_error_mm": _round(_percentile(tally.errors_mm, 99), 3),
        "max_error_mm": _round(_percentile(tally.errors_mm, 100), 3),
        "misplaced": tally.misplaced,
        "held": tally.held,
        "held_median_error_mm": _round(_percentile(tally.held_errors_mm, 50), 3),
        "failed_frames": tally.failed,
        "slowest_frames": [
            [index, round(1000 * times[index], 1)]
            for index in sorted(range(len(times)), key=lambda i: -times[i])[:5]
        ],
    }


def time_scanner(scanner: SceneScanner, video: Video) -> Tally:
    """Scan every frame in order, timing each `.scan` alone (wall clock and process CPU)."""
    tally = Tally()
    gc.collect()
    for image, truth in zip(video.images, video.truth, strict=True):
        time_frame(tally, scanner, image, truth)
    return tally


def time_frame(
    tally: Tally, scanner: SceneScanner, image: npt.NDArray[np.uint8], truth: FrameTruth
) -> None:
    """Scan one frame, timing `.scan` alone (wall clock and process CPU), and score it."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        scan = scanner.scan(image)
    except ValueError as error:  # a refused calibration: the frame counts, found nothing
        tally.seconds.append(time.perf_counter() - wall)
        tally.cpu_seconds.append(time.process_time() - cpu)
        tally.visible += len(truth.visible)
        tally.failed.append(str(error))
        count_misses(tally, truth.visible, ())
        return
    tally.seconds.append(time.perf_counter() - wall)
    tally.cpu_seconds.append(time.process_time() - cpu)
    score_frame(tally, scan.scene, truth)


# --------------------------------------------------------------------------- the run


def naive_scanner(game: Game, camera: CameraModel) -> SceneScanner:
    """The newcomer's baseline: pupil over every full frame, no second pass, no memory."""
    return Scanner(game, camera, second_pass=False)


def tracker(game: Game, camera: CameraModel) -> SceneScanner:
    """The tracker of `vision/track.py`: reads again only what changed since the last frame."""
    from .track import Tracker

    return Tracker(game, camera=camera)


DEFAULT_SCANNERS: Final[Mapping[str, ScannerFactory]] = {
    "naive": naive_scanner,
    "tracker": tracker,
}


def default_frames(resolution: tuple[int, int]) -> int:
    """90 frames (3 s) up to 1920x1080; 45 above, where the naive side takes ~1 s a frame."""
    return (
        DEFAULT_FRAMES_HD if resolution[0] * resolution[1] <= 1920 * 1080 else DEFAULT_FRAMES_LARGE
    )


def check_resolution(resolution: tuple[int, int]) -> None:
    width, height = resolution
    if not (320 <= width <= 8192 and 240 <= height <= 8192):
        raise BenchError(
            f"resolution must be 320 to 8192 pixels wide and 240 to 8192 high, not {width}x{height}"
        )


def versions() -> dict[str, str]:
    """What the figures were measured with."""
    found = {
        "python": platform.python_version(),
        "opencv": cv2.__version__,
        "numpy": np.__version__,
    }
    try:
        found["pupil-apriltags"] = metadata.version("pupil-apriltags")
    except metadata.PackageNotFoundError:
        found["pupil-apriltags"] = "not installed"
    return found


def run_bench(
    resolution: tuple[int, int] | None = None,
    tags: int = 120,
    tag_size: tuple[float, float] = (16.0, 25.0),
    frames: int | None = None,
    seed: int = 0,
    scanners: Mapping[str, ScannerFactory] | None = None,
    effects: Effects | None = None,
    camera: str = "bench",
    mat: str = "felt",
) -> dict[str, Any]:
    """Render the video, then time the naive scanner and the tracker on it, one after the other.

    `camera` is a rig of `RIGS` (`bench`, or `demo`: the built-in demo's), which gives the
    resolution and effects when they are not given; `mat` one of `MATS` (`felt` or
    `chequered`). `scanners` maps `naive` and `tracker` to factories `(game, camera) -> object
    with .scan` (default: `Scanner(second_pass=False)` and `vision.track.Tracker`); each is made
    fresh just before its turn. Every frame is rendered before anything is timed.
    """
    if camera not in RIGS:
        raise BenchError(f"camera must be one of {', '.join(RIGS)}, not {camera!r}")
    if mat not in MATS:
        raise BenchError(f"mat must be one of {', '.join(MATS)}, not {mat!r}")
    rig = RIGS[camera]
    resolution = rig.resolution if resolution is None else resolution
    effects = rig.effects if effects is None else effects
    check_resolution(resolution)
    frames = default_frames(resolution) if frames is None else frames
    if isinstance(frames, bool) or not isinstance(frames, int) or not 1 <= frames <= 10_000:
        raise BenchError(f"frames must be a whole number from 1 to 10000, not {frames!r}")
    factories = dict(DEFAULT_SCANNERS if scanners is None else scanners)
    if set(factories) != {"naive", "tracker"}:
        raise BenchError(f"scanners must be 'naive' and 'tracker', not {sorted(factories)}")
    game = bench_game(tags, tag_size, seed)
    video = make_video(
        game,
        frames,
        resolution,
        seed,
        effects,
        tilt_deg=rig.tilt_deg,
        lens=rig.lens,
        mat_squares_mm=MATS[mat],
    )
    load_before = os.getloadavg()
    sides: dict[str, Any] = {}
    for name in ("naive", "tracker"):
        scanner = factories[name](game, video.camera)
        sides[name] = summary(time_scanner(scanner, video)) | {
            "scanner": f"{type(scanner).__module__}.{type(scanner).__qualname__}"
        }
        del scanner
    ratio = sides["tracker"]["fps"] / sides["naive"]["fps"]
    return {
        "frames": frames,
        "naive": sides["naive"],
        "tracker": sides["tracker"],
        "ratio": round(ratio, 2),
        "ratio_cpu": round(
            sides["naive"]["cpu_ms"]["median"] / max(sides["tracker"]["cpu_ms"]["median"], 1e-3), 2
        ),
        "ratio_sustained": round(
            sides["tracker"]["fps_sustained"] / sides["naive"]["fps_sustained"], 2
        ),
        "resolution": f"{resolution[0]}x{resolution[1]}",
        "camera": camera,
        "mat": mat,
        "tags": tags,
        "bases": tags - 4,
        "tag_size_mm": list(tag_size),
        "video": {
            "fps": FPS,
            "seconds": round(frames / FPS, 2),
            "moves": video.moves,
            "sweep_frames": list(video.sweep) if video.sweep else None,
            "visible_per_frame": round(statistics.fmean(len(t.visible) for t in video.truth), 1),
            "render_seconds": round(video.render_seconds, 1),
        },
        "seed": seed,
        "load_average": {
            "before": [round(v, 2) for v in load_before],
            "after": [round(v, 2) for v in os.getloadavg()],
        },
        "cpus": os.cpu_count(),
        "versions": versions(),
    }


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


ROWS: Final[tuple[tuple[str, Callable[[Mapping[str, Any]], str]], ...]] = (
    ("fps (median)", lambda s: _num(s["fps"])),
    ("fps (worst 5%)", lambda s: _num(s["fps_worst5"])),
    ("fps (sustained)", lambda s: _num(s["fps_sustained"])),
    ("  after the 1st frame", lambda s: _num(s["fps_sustained_after_first"])),
    ("latency median, ms", lambda s: _num(s["latency_ms"]["median"])),
    ("latency p95, ms", lambda s: _num(s["latency_ms"]["p95"])),
    ("CPU median, ms", lambda s: _num(s["cpu_ms"]["median"])),
    ("slowest after 1st, ms", lambda s: _num(s["slowest_after_first_ms"])),
    ("recall, %", lambda s: "-" if s["recall"] is None else f"{100 * s['recall']:.2f}"),
    ("longest miss, frames", lambda s: str(s["longest_miss_frames"])),
    ("visible tags found", lambda s: f"{s['found']}/{s['visible']}"),
    ("median error, mm", lambda s: _num(s["median_error_mm"], 3)),
    ("p99 error, mm", lambda s: _num(s["p99_error_mm"], 3)),
    ("misplaced > 5 mm", lambda s: str(s["misplaced"])),
    ("hidden bases held", lambda s: str(s["held"])),
    ("failed frames", lambda s: str(len(s["failed_frames"]))),
)
"""The rows of the side-by-side table, each read off one side's summary."""


def comparison_lines(columns: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """A fixed-width table: one row per figure, one column per (title, side summary)."""
    width = max(12, *(len(title) for title, _ in columns))
    lines = [f"{'':22}" + "".join(f"{title:>{width + 2}}" for title, _ in columns)]
    for label, read in ROWS:
        lines.append(f"{label:22}" + "".join(f"{read(side):>{width + 2}}" for _, side in columns))
    return lines


def bench_text(result: Mapping[str, Any]) -> str:
    """The run as a reader wants it: what was rendered, both sides, and the ratio to quote."""
    video = result["video"]
    low, high = result["tag_size_mm"]
    sizes = f"{low:g} mm" if low == high else f"{low:g}-{high:g} mm"
    load = result["load_average"]["before"]
    sweep = (
        "frames " + "-".join(map(str, video["sweep_frames"]))
        if video["sweep_frames"]
        else "no frame"
    )
    lines = [
        f"umpire bench: {result['resolution']} ({result['camera']} camera, {result['mat']} mat), "
        f"{result['tags']} tags of {sizes} "
        f"({result['bases']} bases and 4 corner tags), {result['frames']} frames at "
        f"{video['fps']:g} fps ({video['moves']} units moved, a hand sweeping over "
        f"{sweep}), {video['visible_per_frame']} visible base tags a frame, seed {result['seed']}",
        f"rendered in {video['render_seconds']} s before timing; load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {result['cpus']} CPUs",
        "",
        *comparison_lines([("naive", result["naive"]), ("tracker", result["tracker"])]),
        "",
        f"tracker / naive: {result['ratio']:.2f}x (median fps; {result['ratio_sustained']:.2f}x "
        f"sustained; {result['ratio_cpu']:.2f}x in median CPU time), measured in this run",
    ]
    for name in ("naive", "tracker"):
        reasons = result[name]["failed_frames"]
        lines.extend(
            f"{name} refused {reasons.count(why)} frame(s): {why}" for why in dict.fromkeys(reasons)
        )
    return "\n".join(lines)
