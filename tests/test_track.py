"""The tracker finds what the plain full-frame detector finds, on the same rendered frames.

Real pixels (vision/render.py) and the real detector: a 1920x1080 camera over the benchmark's
table with 40 bases carrying 20 mm tags, bases slid and turned by a hand between frames, a hand
passing over part of the table. The naive side is `Scanner(second_pass=False)`: pupil over every
whole frame. No timing is asserted here (benchmarks/bench_track.py and `umpire bench` measure
speed); what is asserted is what the tracker reports.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest

from benchmarks.bench_scan import bench_game, layout
from calibration.camera import CameraModel
from calibration.errors import CalibrationError
from vision.game import Game
from vision.pipeline import Scan, Scanner
from vision.render import CameraSpec, Effects, Frame, camera_for_table, hand_polygon, render
from vision.synthetic import table_spec
from vision.track import CHANGE_LEVEL, REFRESH_PER_FRAME, Tracker, TrackerError

SIZE = (1920, 1080)
MOVED = ("b0", "b1", "b2")
"""The bases a hand slides 5 mm a frame to the right and turns 2 degrees a frame."""


@pytest.fixture(scope="module")
def game() -> Game:
    return bench_game(bases=40)


@pytest.fixture(scope="module")
def start(game: Game) -> dict[str, Any]:
    return layout(game, np.random.default_rng(7))


@pytest.fixture(scope="module")
def camera(game: Game, start: dict[str, Any]) -> CameraSpec:
    return camera_for_table(table_spec(game, start), *SIZE, 1500.0, tilt_deg=8.0)


def photograph(
    game: Game, scene: dict[str, Any], camera: CameraSpec, seed: int, **effects: Any
) -> Frame:
    """One webcam frame: a little blur, fresh sensor noise every frame."""
    look = Effects(blur_px=0.9, noise_sigma=3.0, light_gradient=0.2, **effects)
    return render(table_spec(game, scene), camera, look, np.random.default_rng(seed))


def moved(scene: dict[str, Any], step: int) -> dict[str, Any]:
    out = copy.deepcopy(scene)
    for unit in out["units"]:
        for base in unit["bases"]:
            if base["id"] in MOVED:
                base["x"] += 5.0 * step
                base["facing"] = (base["facing"] + 2.0 * step) % 360.0
    return out


def lens(frame: Frame) -> CameraModel:
    truth = frame.truth.camera
    return CameraModel.from_values(truth.matrix, truth.distortion, SIZE)


def positions(scan: Scan) -> dict[str, tuple[float, float]]:
    return {b["id"]: (b["x"], b["y"]) for u in scan.scene["units"] for b in u["bases"]}


def truth_of(scene: dict[str, Any]) -> dict[str, tuple[float, float]]:
    return {b["id"]: (b["x"], b["y"]) for u in scene["units"] for b in u["bases"]}


def visible_bases(game: Game, frame: Frame) -> set[str]:
    by_tag = {b.tag: b.id for u in game.units for b in u.bases}
    return {by_tag[t.tag_id] for t in frame.truth.tags if t.visible and t.tag_id in by_tag}


@pytest.fixture(scope="module")
def clip(game: Game, start: dict[str, Any], camera: CameraSpec) -> list[tuple[Frame, dict]]:
    """Six frames: still, three bases sliding (a hand holding them), a hand sweeping across
    the middle of the table, then the bases at rest where they ended."""
    scenes = [start, start, moved(start, 1), moved(start, 2), moved(start, 3), moved(start, 3)]
    hands = [None, None, None, hand_polygon((700.0, 650.0), 95.0), None, None]
    return [
        (photograph(game, scene, camera, 10 + i, hand=hand), scene)
        for i, (scene, hand) in enumerate(zip(scenes, hands, strict=True))
    ]


@pytest.fixture(scope="module")
def both(game: Game, clip: list[tuple[Frame, dict]]) -> list[tuple[Scan, Scan]]:
    model = lens(clip[0][0])
    naive, tracker = Scanner(game, model, second_pass=False), Tracker(game, model)
    return [(naive.scan(frame.image), tracker.scan(frame.image)) for frame, _ in clip]


def test_the_tracker_finds_every_base_the_naive_detector_finds(
    both: list[tuple[Scan, Scan]],
) -> None:
    for i, (naive, tracked) in enumerate(both):
        missing = set(positions(naive)) - set(positions(tracked))
        assert not missing, f"frame {i}: the tracker lost {sorted(missing)}"


def test_every_base_is_where_it_stands_as_closely_as_the_naive_detector_says(
    game: Game, both: list[tuple[Scan, Scan]], clip: list[tuple[Frame, dict]]
) -> None:
    # Issue 4 holds the scan to 0.5 mm median, 2 mm p99; the tracker must not add error: each
    # base within 0.5 mm of where it stands in every frame, and its median error within 0.05 mm
    # of the naive detector's over the clip.
    tracker_errors, naive_errors = [], []
    for (naive, tracked), (_, scene) in zip(both, clip, strict=True):
        truth = truth_of(scene)
        for ident, (x, y) in positions(tracked).items():
            error = math.dist((x, y), truth[ident])
            assert error < 0.5, f"{ident} is {error:.2f} mm from where it stands"
            tracker_errors.append(error)
        naive_errors += [math.dist(p, truth[i]) for i, p in positions(naive).items()]
    assert float(np.median(tracker_errors)) <= float(np.median(naive_errors)) + 0.05


def test_bases_moved_by_hand_are_followed_frame_by_frame(
    both: list[tuple[Scan, Scan]], clip: list[tuple[Frame, dict]]
) -> None:
    for (_, tracked), (_frame, scene) in zip(both[2:5], clip[2:5], strict=True):
        truth = truth_of(scene)
        for ident in MOVED:
            assert ident in positions(tracked)
            assert math.dist(positions(tracked)[ident], truth[ident]) < 0.5


def test_tags_under_the_hand_are_not_reported_seen(
    game: Game, both: list[tuple[Scan, Scan]], clip: list[tuple[Frame, dict]]
) -> None:
    frame, _ = clip[3]
    by_tag = {b.tag: b.id for u in game.units for b in u.bases}
    covered = {
        by_tag[t.tag_id] for t in frame.truth.tags if t.hand_fraction > 0.5 and t.tag_id in by_tag
    }
    assert covered, "the hand of frame 3 must cover some bases for this test to mean anything"
    assert not covered & set(positions(both[3][1]))
    # ... and they are seen again, where they were, once the hand has gone.
    assert covered <= set(positions(both[4][1]))


def test_the_tracker_sees_every_visible_base_in_every_frame(
    game: Game, both: list[tuple[Scan, Scan]], clip: list[tuple[Frame, dict]]
) -> None:
    for i, ((_, tracked), (frame, _)) in enumerate(zip(both, clip, strict=True)):
        lost = visible_bases(game, frame) - set(positions(tracked))
        assert not lost, f"frame {i}: visible but not reported: {sorted(lost)}"


def test_a_still_table_is_not_read_again(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    frames = [photograph(game, start, camera, 30 + i) for i in range(3)]
    tracker = Tracker(game, lens(frames[0]))
    first = tracker.scan(frames[0].image)
    assert tracker.stats["mode"] == "whole frame"
    for frame in frames[1:]:
        scan = tracker.scan(frame.image)
        # Fresh sensor noise (sigma 3) never crosses CHANGE_LEVEL: nothing is read again, only
        # the sweep's two cells are searched, and the camera is never taken to have moved
        # (that would scan the next frame whole).
        assert tracker.stats["mode"] == "tracking"
        assert tracker.stats["read_again"] == 0
        assert tracker.stats["unchanged"] == 40 + 4
        # Only the refresh's few readings move a base, averaged in: by far under 0.1 mm.
        assert tracker.stats["refreshed"] == REFRESH_PER_FRAME == 2
        moved = [math.dist(p, positions(first)[i]) for i, p in positions(scan).items()]
        assert max(moved) < 0.1
    # Two frames of two refresh readings, corner tags first (until each has 16 readings):
    # the four corner tags are the ones averaged so far.
    assert scan.scene["detection"]["tracker"]["averaged"] == 4
    assert CHANGE_LEVEL >= 10


def test_a_base_put_down_later_is_found_once_the_hand_has_gone(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    away = copy.deepcopy(start)
    unit = away["units"][0]
    held = unit["bases"].pop()  # not on the table yet
    placed = copy.deepcopy(start)
    frames = [
        photograph(game, away, camera, 40),
        photograph(game, placed, camera, 41, hand=hand_polygon((held["x"], held["y"] - 30), 90)),
        photograph(game, placed, camera, 42),
        photograph(game, placed, camera, 43),
    ]
    tracker = Tracker(game, lens(frames[0]))
    scans = [tracker.scan(f.image) for f in frames]
    assert held["id"] not in positions(scans[0])
    # The cells where it appeared changed; they are searched as soon as they stop changing.
    found = positions(scans[2])
    assert held["id"] in found
    assert math.dist(found[held["id"]], (held["x"], held["y"])) < 0.5


def test_a_bumped_camera_is_fitted_again(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    first = photograph(game, start, camera, 50)
    bumped_camera = camera_for_table(
        table_spec(game, start), *SIZE, 1500.0, tilt_deg=8.0, yaw_deg=0.4
    )
    bumped = [photograph(game, start, bumped_camera, 51 + i) for i in range(3)]
    # The lens is the same; only where it points changed (no intrinsics: the fit does it all).
    tracker = Tracker(game, None)
    before = tracker.scan(first.image)
    scans = [tracker.scan(f.image) for f in bumped]
    assert scans[-1].fit is not before.fit
    truth = truth_of(start)
    settled = positions(scans[-1])
    assert len(settled) == 40
    assert max(math.dist(p, truth[i]) for i, p in settled.items()) < 1.0


def test_a_camera_moved_while_a_corner_tag_is_covered_gives_no_scene_until_it_is_seen(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    # The old fit no longer matches the picture and the new one needs all four corner tags:
    # every frame until corner tag 0 is uncovered is refused, never placed through the old fit.
    moved = camera_for_table(table_spec(game, start), *SIZE, 1500.0, tilt_deg=8.0, yaw_deg=0.6)
    corner = game.calibration.corners[0]
    hand = hand_polygon((corner.x + 10.0, corner.y + 60.0), 90.0)
    tracker = Tracker(game, None)
    tracker.scan(photograph(game, start, camera, 60).image)
    for i in range(4):
        with pytest.raises(CalibrationError, match="camera has moved"):
            tracker.scan(photograph(game, start, moved, 61 + i, hand=hand).image)
    # Uncovered: the first frame still shows the hand lifting (its cells are moving), the
    # next one searches them, finds corner tag 0 and fits the table.
    truth = truth_of(start)
    with pytest.raises(CalibrationError, match="camera has moved"):
        tracker.scan(photograph(game, start, moved, 70).image)
    scans = [tracker.scan(photograph(game, start, moved, 71 + i).image) for i in range(2)]
    settled = positions(scans[-1])
    assert len(settled) == 40
    assert max(math.dist(p, truth[i]) for i, p in settled.items()) < 1.0


def test_a_frame_that_is_not_an_image_is_refused(game: Game) -> None:
    tracker = Tracker(game)
    with pytest.raises(TrackerError, match="image array"):
        tracker.scan(np.zeros((0, 0), np.uint8))
    with pytest.raises(TrackerError, match="image array"):
        tracker.scan("frame.png")  # type: ignore[arg-type]
