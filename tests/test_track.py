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

import cv2
import numpy as np
import pytest

from benchmarks.bench_scan import bench_game, layout
from calibration.camera import CameraModel
from calibration.errors import CalibrationError
from vision.detect import make_detector, tag_candidates
from vision.game import Game
from vision.pipeline import Scan, Scanner
from vision.render import (
    CameraSpec,
    Effects,
    Frame,
    TableSpec,
    TagSpec,
    camera_for_table,
    hand_polygon,
    render,
)
from vision.synthetic import table_spec
from vision.track import (
    CHANGE_LEVEL,
    EXTRA_BUDGET_MS,
    MISSING_AFTER,
    REFRESH_PER_FRAME,
    Tracker,
    TrackerError,
)

SIZE = (1920, 1080)


def frozen_clock() -> float:
    """A clock that never moves: no time budget runs out, so what a frame finds does not depend
    on how busy the machine is (the budgets themselves are tested with `StepClock`)."""
    return 0.0


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
    naive, tracker = (
        Scanner(game, model, second_pass=False),
        Tracker(game, model, clock=frozen_clock),
    )
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
    tracker = Tracker(game, lens(frames[0]), clock=frozen_clock)
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
    tracker = Tracker(game, lens(frames[0]), clock=frozen_clock)
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
    tracker = Tracker(game, None, clock=frozen_clock)
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
    tracker = Tracker(game, None, clock=frozen_clock)
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
    tracker = Tracker(game, clock=frozen_clock)
    with pytest.raises(TrackerError, match="image array"):
        tracker.scan(np.zeros((0, 0), np.uint8))
    with pytest.raises(TrackerError, match="image array"):
        tracker.scan("frame.png")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- issue 13

BLURRED = 1.2
"""Lens blur (px) under which the full-frame pass reads about half of the 20 mm tags and the
second pass the rest: a base lost there needs that help to be found again."""


def blurred(game: Game, scene: dict[str, Any], camera: CameraSpec, seed: int, **fx: Any) -> Frame:
    look = Effects(blur_px=BLURRED, noise_sigma=3.0, light_gradient=0.2, **fx)
    return render(table_spec(game, scene), camera, look, np.random.default_rng(seed))


def needs_help(game: Game, frame: Frame) -> list[str]:
    """Bases whose tag the full-frame pass misses in `frame` and the second pass reads."""
    scanner = Scanner(game)
    gray = np.asarray(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), np.uint8)
    first = {d.tag_id for d in next(iter(scanner.detectors.values())).detect(gray)}
    every = {d.tag_id for d in scanner.detect(gray)}
    by_tag = {b.tag: b.id for u in game.units for b in u.bases}
    return sorted(by_tag[t] for t in every - first if t in by_tag)


def nudged(scene: dict[str, Any], base_id: str, dx: float) -> dict[str, Any]:
    out = copy.deepcopy(scene)
    for unit in out["units"]:
        for base in unit["bases"]:
            if base["id"] == base_id:
                base["x"] += dx
    return out


def without(scene: dict[str, Any], base_id: str) -> dict[str, Any]:
    out = copy.deepcopy(scene)
    for unit in out["units"]:
        unit["bases"] = [b for b in unit["bases"] if b["id"] != base_id]
    return out


def hand_over(scene: dict[str, Any], base_id: str) -> tuple[tuple[float, float], ...]:
    base = next(b for u in scene["units"] for b in u["bases"] if b["id"] == base_id)
    return hand_polygon((base["x"], base["y"] + 40.0), 90.0)


def test_a_base_lost_in_plain_view_is_found_again_with_help(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    # A base whose small blurred tag only the second pass reads is nudged 3 mm under a hand.
    # When the hand has gone its window differs from what it was (the base moved) and the
    # full-resolution read fails: before issue 13 it stayed lost until its window changed
    # again. Now it is looked for with help in the first frame its window is still: the frame
    # after the hand left (which itself changed from the frame with the hand: covered).
    first = blurred(game, start, camera, 80)
    base = needs_help(game, first)[0]
    moved = nudged(start, base, 3.0)
    frames = [
        first,
        blurred(game, moved, camera, 81, hand=hand_over(start, base)),
        blurred(game, moved, camera, 82),
        blurred(game, moved, camera, 83),
    ]
    by_tag = {b.tag: b.id for u in game.units for b in u.bases}
    covered = {by_tag.get(t.tag_id) for t in frames[1].truth.tags if t.occluded}
    assert base in covered
    tracker = Tracker(game, lens(first), clock=frozen_clock)
    scans = []
    for frame in frames:
        scans.append(tracker.scan(frame.image))
        assert tracker.missing == ()  # covered, then found at once
    assert base in positions(scans[0])
    assert base not in positions(scans[1])
    assert base not in positions(scans[2])  # the hand leaving: its window still changes
    assert tracker.stats["found_again"] == 1
    found = positions(scans[3])
    assert base in found, "lost in plain view and not found again with help"
    assert math.dist(found[base], truth_of(moved)[base]) < 0.5


def test_a_base_taken_off_is_named_missing_and_searched_every_frame(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    first = photograph(game, start, camera, 90)
    base = "b3"
    gone = without(start, base)
    tracker = Tracker(game, lens(first), clock=frozen_clock)
    tracker.scan(first.image)
    assert tracker.missing == ()
    # A hand takes it off: while the hand moves over its place, it is covered, not missing.
    tracker.scan(photograph(game, start, camera, 91, hand=hand_over(start, base)).image)
    assert tracker.missing == ()
    tracker.scan(photograph(game, gone, camera, 92).image)  # the hand leaving
    assert tracker.missing == ()
    # Its place in plain view: looked for with help every frame, and named once it has been
    # in plain view for MISSING_AFTER frames.
    for i in range(MISSING_AFTER + 2):
        scan = tracker.scan(photograph(game, gone, camera, 93 + i).image)
        assert tracker.stats["helped"] == 1
        named = [base] if i + 1 >= MISSING_AFTER else []
        assert list(tracker.missing) == named
        assert scan.scene["detection"]["tracker"]["missing"] == named
    # Put back (a hand, then still): found, and no longer missing.
    tracker.scan(photograph(game, start, camera, 96, hand=hand_over(start, base)).image)
    tracker.scan(photograph(game, start, camera, 97).image)
    scan = tracker.scan(photograph(game, start, camera, 98).image)
    assert base in positions(scan)
    assert tracker.missing == ()


def test_a_base_removed_in_play_is_not_searched_for_nor_named_missing(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    # The players take b3 off as a casualty and mark it removed: its empty place in plain view
    # gets no help and no "missing"; put back in the game, it is searched for again.
    first = photograph(game, start, camera, 110)
    base = "b3"
    gone = without(start, base)
    tracker = Tracker(game, lens(first), clock=frozen_clock)
    tracker.scan(first.image)
    tracker.scan(photograph(game, start, camera, 111, hand=hand_over(start, base)).image)
    tracker.set_removed({base})
    for i in range(MISSING_AFTER + 2):
        tracker.scan(photograph(game, gone, camera, 112 + i).image)
        assert tracker.stats["helped"] == 0
        assert tracker.missing == ()
    tracker.set_removed(set())
    for i in range(MISSING_AFTER + 1):
        tracker.scan(photograph(game, gone, camera, 120 + i).image)
        assert tracker.stats["helped"] == 1
    assert tracker.missing == (base,)
    tracker.set_removed({base})  # removed again: no longer named at once
    assert tracker.missing == ()


def test_a_frame_out_of_time_searches_one_piece_and_leaves_the_rest_to_the_next_frames(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    # Two bases put down at once at the two ends of the table: two pieces of changed cells,
    # searched once they stop changing (frame 2).
    away = copy.deepcopy(start)
    put = [away["units"][0]["bases"].pop(), away["units"][-1]["bases"].pop()]
    assert math.dist((put[0]["x"], put[0]["y"]), (put[1]["x"], put[1]["y"])) > 500
    frames = [photograph(game, away, camera, 50)]
    frames += [photograph(game, start, camera, 51 + i) for i in range(3)]
    ids = {b["id"] for b in put}

    def found(scan: Any) -> set[str]:
        return ids & set(positions(scan))

    # With time for everything, both are found in frame 2, and read once in it: every other
    # still tag is read again to be averaged (a refresh of 1,000 a frame), not the two new ones.
    tracker = Tracker(game, lens(frames[0]), refresh_per_frame=1000, clock=frozen_clock)
    scans = [tracker.scan(f.image) for f in frames[:3]]
    assert found(scans[2]) == ids
    counts = scans[2].scene["detection"]["tracker"]
    assert counts["averaged"] == counts["seen"] - 2
    # ... and with every frame out of time from its start (a budget of 0 ms on a clock that
    # moves), one piece a frame: one base in frame 2, the other in frame 3; no still tag read
    # again to be averaged, and no more than one extra pass a frame.
    tracker = Tracker(game, lens(frames[0]), frame_budget_ms=0.0, clock=StepClock())
    tracker.scan(frames[0].image)
    seen = []
    for frame in frames[1:]:
        seen.append(found(tracker.scan(frame.image)))
        stats = tracker.stats
        assert stats["refreshed"] == 0
        assert stats["helped"] + stats["looked"] + stats["coarse"] <= 1
    assert seen[0] == set() and len(seen[1]) == 1 and seen[2] == ids
    where = positions(tracker.scan(frames[3].image))
    for base in put:
        assert math.dist(where[base["id"]], (base["x"], base["y"])) < 0.5


def test_the_sweep_searches_every_cell_within_its_bound_whatever_happens(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    # A hand waving over the table in every frame, and no budget at all for searching what
    # changed or for any extra pass: the sweep still searches every cell of the frame at full
    # resolution within `sweep_frames` frames (ceil(30 x 17 cells / 2) = 255 at 1080p).
    hands = [None, hand_polygon((700.0, 650.0), 95.0), hand_polygon((900.0, 500.0), 80.0)]
    frames = [photograph(game, start, camera, 100 + i, hand=h).image for i, h in enumerate(hands)]
    tracker = Tracker(game, lens_of(camera), search_budget_px=0, extra_budget_ms=0.0)
    tracker.scan(frames[0])
    assert tracker.sweep_frames == 255
    covered = np.zeros((SIZE[1], SIZE[0]), bool)
    for i in range(tracker.sweep_frames):
        tracker.scan(frames[1 + i % 2])
        for x0, y0, x1, y1 in tracker.stats["swept"]:
            covered[y0:y1, x0:x1] = True
    assert covered.all()


def lens_of(camera: CameraSpec) -> CameraModel:
    return CameraModel.from_values(camera.matrix(), np.array(camera.distortion), SIZE)


class StepClock:
    """A clock that advances `step` seconds each time it is read: a budget of n steps allows
    about n checks, on any machine."""

    def __init__(self, step: float = 0.001) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture(scope="module")
def chequered(game: Game, start: dict[str, Any], camera: CameraSpec) -> list[Frame]:
    look = Effects(blur_px=0.9, noise_sigma=3.0, light_gradient=0.2)
    table = table_spec(game, start, mat_squares_mm=50.0)
    return [render(table, camera, look, np.random.default_rng(110 + i)) for i in range(6)]


def test_a_chequered_mat_is_looked_at_within_the_budget(game: Game, chequered: list[Frame]) -> None:
    gray = np.asarray(cv2.cvtColor(chequered[0].image, cv2.COLOR_BGR2GRAY), np.uint8)
    detector = next(iter(Scanner(game).detectors.values()))
    found = detector.detect(gray)
    # Every dark square of the mat is a quad that may be a tag; those flat inside are not
    # looked at (FLAT_LEVELS): most of them.
    quads = tag_candidates(gray)
    looks = detector.missed_looks(gray, found)
    assert len(quads) > 400 and len(looks) < len(quads) / 3
    # The whole scan gets 40 checks of a 1 ms step clock for its extra passes: the looks left
    # are queued, not taken in that frame...
    tracker = Tracker(game, lens(chequered[0]), whole_budget_ms=40.0, clock=StepClock())
    scans = [tracker.scan(chequered[0].image)]
    assert tracker.stats["deferred"] > 0
    assert tracker.stats["pending"] == tracker.stats["deferred"]
    assert tracker.stats["looked"] < len(looks)
    # ... and each next frame takes what its budget (12 ms of the step clock, read more than
    # once a look) allows, in turn.
    for frame in chequered[1:]:
        scans.append(tracker.scan(frame.image))
        assert 0 < tracker.stats["looked"] <= EXTRA_BUDGET_MS
    assert tracker.stats["pending"] < scans[0].scene["detection"]["tracker"]["pending"]
    # Meanwhile every base is seen (the full-frame pass reads these 20 mm tags).
    assert set(positions(scans[-1])) == visible_bases(game, chequered[-1])
    # A frame out of time from its start makes one extra pass, whatever is queued.
    tracker = Tracker(game, lens(chequered[0]), whole_budget_ms=40.0, clock=StepClock())
    tracker.scan(chequered[0].image)
    tracker.frame_budget_ms = 0.0
    for frame in chequered[1:]:
        waiting = tracker.stats["pending"]
        tracker.scan(frame.image)
        assert waiting > 0
        assert tracker.stats["looked"] + tracker.stats["coarse"] + tracker.stats["helped"] == 1


def test_the_coarse_pass_reads_a_large_blurred_tag_the_full_pass_misses() -> None:
    # A 150 px tag blurred 6 px (close to the camera, out of focus) at 1280x720: tag 20, the
    # first base of the game below.
    table = TableSpec(300.0, 200.0, tags=(TagSpec("tag36h11", 20, 150.0, 100.0, size_mm=60.0),))
    camera = CameraSpec(1280, 720, 1000.0, tilt_deg=30.0, focal_px=150 / 60 * 1000)
    frame = render(table, camera, Effects(blur_px=6.0, noise_sigma=2.0))
    gray = np.asarray(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), np.uint8)
    detector = make_detector("tag36h11")
    assert detector.detect(gray) == []
    coarse = detector.detect_coarse(gray)
    assert [d.tag_id for d in coarse] == [20]
    truth = frame.truth.tags[0].corners_px
    assert np.abs(coarse[0].corners - truth).max() < 2.0
    # The scanner's extra passes (and so the tracker's whole scan) include it.
    found = Scanner(bench_game(bases=1)).detect_all(gray)
    assert found.first == [] and [d.tag_id for d in found.second] == [20]
    assert "coarse" in found.passes
