"""Issue 4's measurement bar, held loosely so that a regression fails CI.

benchmarks/bench_scan.py measures the bar on many frames (recall of visible 20 mm tags at least
99.5%, no false tags, median base position error at most 0.5 mm and p99 at most 2 mm, median
facing error at most 0.5 degrees). Here the same set-up runs on two frames (the camera straight
down and tilted 15 degrees), with bounds loose enough that noise cannot trip them and tight
enough that losing the second pass, the height correction, the lens correction or the corner
refinement would: recall at least 98%, no false tags, median position error at most 1 mm, p99
at most 3 mm, median facing error at most 1 degree. No timing is asserted.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import pytest

from benchmarks.bench_scan import (
    CONDITIONS,
    FIRST_BASE_TAG,
    Condition,
    Tally,
    condition_effects,
    measure,
    setup,
)
from calibration.camera import CameraModel
from tests.test_detect import marker, square_corners, warp_onto, white, worst_corner_error
from vision.detect import Detector, DetectorError, TagDetection, make_detector
from vision.game import Game
from vision.pipeline import Scanner, square_fit
from vision.render import CameraSpec, render
from vision.synthetic import table_spec

SEED = 1


@pytest.fixture(scope="module")
def bench() -> tuple[dict[str, Game], list[dict[str, Any]], list[CameraSpec]]:
    # Two frames: frame_cameras spreads the tilts over 0 to 15 degrees, so 0 and 15.
    return setup(2, SEED)


def condition(name: str) -> Condition:
    return next(c for c in CONDITIONS if c.name == name)


@pytest.mark.parametrize(
    "name", ["plain", "heavier blur 1.0 px", "raised 5 mm", "lens fit (12 refs)"]
)
def test_the_scan_holds_the_bar_loosely(
    bench: tuple[dict[str, Game], list[dict[str, Any]], list[CameraSpec]], name: str
) -> None:
    games, layouts, cameras = bench
    assert [c.tilt_deg for c in cameras] == [0.0, 15.0]
    tally: Tally = measure(condition(name), games, layouts, cameras, SEED)
    row = tally.row()
    assert row["failed_frames"] == 0, tally.notes
    assert row["visible"] >= 2 * 118  # 120 bases a frame, all in view
    assert row["recall_pct"] >= 98.0
    assert row["false_tags"] == 0
    assert row["position_median_mm"] <= 1.0
    assert row["position_p99_mm"] <= 3.0
    assert row["facing_median_deg"] <= 1.0


def test_the_second_pass_reads_what_the_full_frame_pass_misses() -> None:
    # Twelve 14 px tag36h11 tags (1.75 px a cell) blurred by a 1 px lens with sensor noise: the
    # full-frame pass reads few or none of them; every dark quad it left is looked at again,
    # upscaled and sharpened, and all twelve are read, each where it was drawn.
    rng = np.random.default_rng(4)
    canvas = white(48, 48 * 12)
    truth = {}
    for tag_id in range(12):
        x, y = 24 + 48 * tag_id + rng.uniform(-0.5, 0.5), 24 + rng.uniform(-0.5, 0.5)
        truth[tag_id] = square_corners(x - 7.0, y - 7.0, 14.0)
        warp_onto(canvas, marker("tag36h11", tag_id, 16), truth[tag_id])
    blurred = cv2.GaussianBlur(canvas, (0, 0), 1.0)
    noise = np.random.default_rng(1).normal(0.0, 3.0, canvas.shape)
    frame = np.clip(blurred + noise + 0.5, 0, 255).astype(np.uint8)
    detector = make_detector("tag36h11")
    first = detector.detect(frame)
    more = detector.detect_missed(frame, first)
    assert len(first) <= 6
    ids = sorted(t.tag_id for t in first + more)
    assert ids == list(range(12))  # each once, none invented
    errors = [worst_corner_error(t, truth[t.tag_id]) for t in more]
    assert float(np.median(errors)) < 0.5
    assert max(errors) < 1.0
    # A second look at a frame whose tags were all found adds nothing.
    assert detector.detect_missed(frame, first + more) == []


def test_the_second_pass_reads_small_tags_but_never_the_mat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Nothing found by the full-frame pass to size a tag by: a 14 px blurred tag is still read,
    # but a dark square half the image's height (the mat, a shadow) is not looked into: reading
    # it 3x upscaled costs seconds at 1080p and finds nothing.
    canvas = white(400, 600)
    canvas[50:300, 300:550] = 40
    truth = square_corners(93.0, 193.0, 14.0)
    warp_onto(canvas, marker("tag36h11", 5, 16), truth)
    frame = np.clip(cv2.GaussianBlur(canvas, (0, 0), 1.0) + 0.5, 0, 255).astype(np.uint8)
    detector = make_detector("tag36h11")
    looked_at: list[float] = []
    read_at = detector.detect_at

    def spy(gray: Any, quad: Any, *args: Any, **kwargs: Any) -> list[TagDetection]:
        looked_at.append(float(np.ptp(np.asarray(quad)[:, 0])))
        return read_at(gray, quad, *args, **kwargs)

    monkeypatch.setattr(detector, "detect_at", spy)
    found = detector.detect_missed(frame, [])
    assert [t.tag_id for t in found] == [5]
    assert worst_corner_error(found[0], truth) < 1.0
    assert looked_at and max(looked_at) < 200  # the 250 px square was never read


def test_a_patch_of_merged_tags_counts_a_tag_anywhere_inside_it() -> None:
    # A dark strip 240 x 40 px (tags merged into one patch) with a tag near its left end: as a
    # single tag's quad, only a tag near its middle counts (within half its mean side, 70 px,
    # of (150, 50)); as a patch, one anywhere inside it does.
    canvas = white(100, 300)
    truth = square_corners(40.0, 40.0, 20.0)
    warp_onto(canvas, marker("tag36h11", 3, 16), truth)
    strip = np.array([[30.0, 30.0], [270.0, 30.0], [270.0, 70.0], [30.0, 70.0]])
    detector = make_detector("tag36h11")
    assert detector.detect_at(canvas, strip, margin=15.0) == []
    found = detector.detect_at(canvas, strip, margin=15.0, patch=True)
    assert [t.tag_id for t in found] == [3]
    assert worst_corner_error(found[0], truth) < 0.5


@pytest.mark.parametrize("margin", [-1.0, math.inf, math.nan, True, "7"])
def test_detect_at_refuses_a_bad_margin(margin: object) -> None:
    quad = square_corners(20.0, 20.0, 10.0)
    with pytest.raises(DetectorError, match="margin"):
        make_detector("tag36h11").detect_at(white(50, 50), quad, margin=margin)  # type: ignore[arg-type]


@pytest.mark.parametrize("sharpen", [-0.5, math.nan, True, "1"])
def test_detect_in_window_refuses_a_bad_sharpening(sharpen: object) -> None:
    with pytest.raises(DetectorError, match="sharpen"):
        make_detector("tag36h11").detect_in_window(
            white(50, 50),
            0,
            0,
            50,
            50,
            upscale=2,
            sharpen=sharpen,  # type: ignore[arg-type]
        )


def test_the_facing_comes_from_all_four_edges() -> None:
    # A 20 mm tag upright at (100, 50) whose top-left corner was seen 0.4 mm too far right.
    # Corners, OpenCV order: (90.4, 60), (110, 60), (110, 40), (90, 40); their mean (100.1, 50).
    # The square fit (complex numbers, q the unit square's corners, sum |q|^2 = 2):
    #   sum conj(q) p = 20 * 2 (the true square) + conj(-0.5 + 0.5i) * 0.4 = 40 - 0.2 - 0.2i
    #   (the shift of the mean adds sum conj(q) * 0.1 = 0), so scale * turn = 19.9 - 0.1i:
    #   the top edge turned by atan2(-0.1, 19.9) = -0.2879 degrees, the side 19.9003 mm.
    # From the top edge's midpoint (100.2, 60) and the mean alone it would be
    # atan2(10, 0.1) = 89.427 degrees: twice the error.
    seen = np.array([[90.4, 60.0], [110.0, 60.0], [110.0, 40.0], [90.0, 40.0]])
    fitted = square_fit(seen)
    assert fitted.mean(axis=0) == pytest.approx([100.1, 50.0])
    top = (fitted[0] + fitted[1]) / 2 - fitted.mean(axis=0)
    assert math.degrees(math.atan2(top[1], top[0])) == pytest.approx(90.0 - 0.2879, abs=1e-4)
    assert np.linalg.norm(fitted[1] - fitted[0]) == pytest.approx(math.hypot(19.9, 0.1))
    # A perfect square comes back unchanged.
    square = np.array([[90.0, 60.0], [110.0, 60.0], [110.0, 40.0], [90.0, 40.0]])
    assert square_fit(square) == pytest.approx(square)


class _Doubting:
    """A tag36h11 detector whose full-frame pass also returns two weak reads (decision margin
    5, under the pipeline's 15): one of a real game tag, one of an id the game does not have on
    bare felt (what pupil did under strong glare)."""

    def __init__(self, real: Detector, felt_quad: np.ndarray) -> None:
        self.real = real
        self.family, self.border_bits = real.family, real.border_bits
        self.felt_quad = felt_quad
        self.weakened: int | None = None

    def detect(self, gray: np.ndarray) -> list[TagDetection]:
        found = self.real.detect(gray)
        base = next(d for d in found if d.tag_id >= FIRST_BASE_TAG)
        self.weakened = base.tag_id
        weak = TagDetection(base.family, base.tag_id, base.corners, 5.0, 2)
        ghost = TagDetection(base.family, 500, self.felt_quad, 5.0, 2)
        return [d for d in found if d is not base] + [weak, ghost]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def test_weak_reads_stand_only_when_a_second_look_reads_them_again(
    bench: tuple[dict[str, Game], list[dict[str, Any]], list[CameraSpec]],
) -> None:
    games, layouts, cameras = bench
    game = games["flat"]
    frame = render(
        table_spec(game, layouts[0], mat_seed=SEED),
        cameras[0],
        condition_effects(condition("plain")),
        np.random.default_rng(SEED),
    )
    truth = frame.truth.camera
    scanner = Scanner(game, CameraModel.from_values(truth.matrix, truth.distortion, (1920, 1080)))
    # A 15 px square of bare felt: of a grid of points over the middle of the picture, the one
    # furthest from every tag (over 40 px from the nearest, checked).
    tags_px = np.array(
        [t.corners_px.mean(axis=0) for t in frame.truth.tags if t.corners_px is not None]
    )
    grid = np.array([(x, y) for x in range(600, 1321, 20) for y in range(300, 781, 20)], float)
    gaps = np.linalg.norm(grid[:, None, :] - tags_px[None, :, :], axis=2).min(axis=1)
    assert gaps.max() > 40
    felt = np.array([[0, 0], [15, 0], [15, 15], [0, 15]], dtype=float) + grid[gaps.argmax()] - 7.5
    key = ("tag36h11", 1)
    doubting = _Doubting(scanner.detectors[key], felt)
    scanner.detectors[key] = doubting
    scan = scanner.scan(frame.image)
    det = scan.scene["detection"]
    assert det["unknown_tags"] == []  # the ghost was not confirmed: left out, not reported
    assert det["second_pass"]["unconfirmed_weak_reads"] == [["tag36h11", 500]]
    weakened = doubting.weakened
    assert ["tag36h11", weakened] in det["second_pass"]["recovered_tags"]  # read again: kept
    assert weakened in [b["tag"] for u in scan.scene["units"] for b in u["bases"]]
