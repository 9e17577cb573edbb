"""The tag detector adapter, on real pixels: markers drawn with `cv2.aruco.generateImageMarker` at
known corners, then found by both back ends. Each trap of pupil-apriltags 1.0.4.post11 (see
vision/detect.py) and of OpenCV's ArUco defaults has a test that fails if the adapter stops working
around it.

Ground truth: a marker of S pixels pasted with its top-left pixel at column x0, row y0 covers the
pixel centres x0 .. x0+S-1, so in OpenCV's convention (pixel centres on integers) its black
square's outer corners are (x0-0.5, y0-0.5), (x0+S-0.5, y0-0.5), (x0+S-0.5, y0+S-0.5),
(x0-0.5, y0+S-0.5), in generateImageMarker's order top-left, top-right, bottom-right,
bottom-left. Warped markers are drawn 8x supersampled and area-averaged down, so their edges sit
where the homography puts them to well under 0.1 px.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap

import cv2
import numpy as np
import pytest

from vision.detect import (
    APRILTAG_FAMILIES,
    AprilTagDetector,
    ArucoDetector,
    Detector,
    DetectorError,
    TagDetection,
    image_facing,
    make_detector,
)

SUPERSAMPLE = 8
CORNER_TOLERANCE_PX = 0.3

# family, border_bits -> the OpenCV dictionary that draws it
DRAWN_BY = {
    "tag36h11": "DICT_APRILTAG_36h11",
    "tag25h9": "DICT_APRILTAG_25h9",
    "tag16h5": "DICT_APRILTAG_16h5",
    "DICT_4X4_50": "DICT_4X4_50",
    "DICT_6X6_250": "DICT_6X6_250",
}


def marker(family: str, tag_id: int, cell_px: int, border_bits: int = 1) -> np.ndarray:
    """The marker picture as generateImageMarker draws it, `cell_px` pixels per cell."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, DRAWN_BY[family]))
    side = (dictionary.markerSize + 2 * border_bits) * cell_px
    return cv2.aruco.generateImageMarker(dictionary, tag_id, side, borderBits=border_bits)


def square_corners(x0: float, y0: float, side: float) -> np.ndarray:
    """Outer corners of a marker pasted at column x0, row y0 (see the module docstring)."""
    return np.array(
        [
            [x0 - 0.5, y0 - 0.5],
            [x0 + side - 0.5, y0 - 0.5],
            [x0 + side - 0.5, y0 + side - 0.5],
            [x0 - 0.5, y0 + side - 0.5],
        ]
    )


def paste(canvas: np.ndarray, picture: np.ndarray, x0: int, y0: int) -> np.ndarray:
    """Paste a marker picture pixel for pixel; returns its true corners."""
    side = picture.shape[0]
    canvas[y0 : y0 + side, x0 : x0 + side] = picture
    return square_corners(x0, y0, side)


def warp_onto(canvas: np.ndarray, picture: np.ndarray, quad: np.ndarray) -> None:
    """Draw the marker so that its corners (TL, TR, BR, BL of the picture) land on `quad`.

    Rendered SUPERSAMPLE times larger and area-averaged: a pixel centre x of the canvas is at
    SUPERSAMPLE * (x + 0.5) - 0.5 in the large rendering.
    """
    side = picture.shape[0]
    source = square_corners(0, 0, side).astype(np.float32)
    target = (SUPERSAMPLE * (np.asarray(quad) + 0.5) - 0.5).astype(np.float32)
    homography = cv2.getPerspectiveTransform(source, target)
    height, width = canvas.shape
    large = cv2.warpPerspective(
        picture,
        homography,
        (width * SUPERSAMPLE, height * SUPERSAMPLE),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=255,
    )
    small = cv2.resize(large, (width, height), interpolation=cv2.INTER_AREA)
    np.minimum(canvas, small, out=canvas)


def white(height: int, width: int) -> np.ndarray:
    return np.full((height, width), 255, dtype=np.uint8)


def only(found: list[TagDetection]) -> TagDetection:
    assert len(found) == 1, f"expected one tag, found {[(t.family, t.tag_id) for t in found]}"
    return found[0]


def worst_corner_error(found: TagDetection, truth: np.ndarray) -> float:
    return float(np.linalg.norm(found.corners - truth, axis=1).max())


def angle_gap(first: float, second: float) -> float:
    """Signed difference of two directions in degrees, in [-180, 180): 359.9 vs 0 is -0.1."""
    return (first - second + 180.0) % 360.0 - 180.0


# The back ends: pupil (with and without our edge fit, so the +0.5 px shift and the corner order
# are pinned on pupil's own corners), OpenCV for an ArUco dictionary, OpenCV for 2-cell borders.
BACK_ENDS = [
    pytest.param("tag36h11", 1, {"corner_refinement": "none"}, id="pupil-raw"),
    pytest.param("tag36h11", 1, {}, id="pupil-edges"),
    pytest.param("tag25h9", 1, {"corner_refinement": "none"}, id="pupil-25h9-raw"),
    pytest.param("DICT_4X4_50", 1, {}, id="opencv-aruco"),
    pytest.param("tag36h11", 2, {}, id="opencv-aprilgrid"),
]


@pytest.mark.parametrize(("family", "border_bits", "options"), BACK_ENDS)
def test_corners_of_a_pasted_marker_in_opencv_convention_and_order(
    family: str, border_bits: int, options: dict[str, str]
) -> None:
    # 6 px per cell: 48 px for 36h11 (6 + 2 border cells), 36 px for 4X4, 60 px with 2-cell
    # borders. Pasted at (41, 37) on a white quiet zone all round.
    picture = marker(family, 7, 6, border_bits)
    canvas = white(130, 130)
    truth = paste(canvas, picture, 41, 37)
    found = only(make_detector(family, border_bits, **options).detect(canvas))
    assert (found.family, found.tag_id) == (family, 7)
    # Without pupil's -0.5 px shift every corner would be 0.5 * sqrt(2) = 0.71 px off; with
    # pupil's own order, corner 0 would be the top-right one, a whole side (36-60 px) away.
    assert worst_corner_error(found, truth) < CORNER_TOLERANCE_PX


def test_opencv_own_corners_sit_inside_the_square_hence_the_edge_fit() -> None:
    # OpenCV's contour corners are the centres of the outermost black pixels, half a pixel in
    # from the square's edge along x and y: 0.5 * sqrt(2) = 0.71 px from each true corner.
    canvas = white(130, 130)
    truth = paste(canvas, marker("DICT_4X4_50", 7, 6), 41, 37)
    raw = only(make_detector("DICT_4X4_50", corner_refinement="none").detect(canvas))
    fitted = only(make_detector("DICT_4X4_50").detect(canvas))
    assert np.linalg.norm(raw.corners - truth, axis=1) == pytest.approx([math.sqrt(0.5)] * 4)
    assert worst_corner_error(fitted, truth) < CORNER_TOLERANCE_PX


@pytest.mark.parametrize(("family", "border_bits", "options"), BACK_ENDS)
def test_corners_of_a_marker_seen_in_perspective(
    family: str, border_bits: int, options: dict[str, str]
) -> None:
    # A marker about 50 px across, turned ~35 degrees and foreshortened, with mild lens blur.
    quad = np.array([[52.3, 21.6], [96.8, 49.1], [70.2, 92.7], [24.9, 63.4]])
    canvas = white(115, 120)
    warp_onto(canvas, marker(family, 3, 12, border_bits), quad)
    canvas = cv2.GaussianBlur(canvas, (0, 0), 0.6)
    found = only(make_detector(family, border_bits, **options).detect(canvas))
    assert found.tag_id == 3
    assert worst_corner_error(found, quad) < CORNER_TOLERANCE_PX


def test_the_centre_is_where_the_diagonals_cross_not_the_mean_of_the_corners() -> None:
    # A strongly foreshortened marker: the image of its true centre is H(marker centre), which
    # lies on both diagonals; the corner mean is pulled towards the wide (near) side.
    quad = np.array([[40.0, 20.0], [80.0, 20.0], [100.0, 80.0], [20.0, 80.0]])
    canvas = white(100, 120)
    picture = marker("tag36h11", 1, 12)
    warp_onto(canvas, picture, quad)
    side = picture.shape[0]
    homography = cv2.getPerspectiveTransform(
        square_corners(0, 0, side).astype(np.float32), quad.astype(np.float32)
    )
    middle = (side - 1) / 2.0  # the centre of a side-pixel picture, in pixel-centre coordinates
    projected = homography @ np.array([middle, middle, 1.0])
    true_centre = projected[:2] / projected[2]
    # By hand: the diagonals (40,20)-(100,80) and (80,20)-(20,80) cross at (60, 40); the corner
    # mean is (60, 50), 10 px away.
    assert true_centre == pytest.approx([60.0, 40.0], abs=1e-9)
    found = only(make_detector("tag36h11").detect(canvas))
    assert np.linalg.norm(found.center - true_centre) < CORNER_TOLERANCE_PX
    assert found.corners.mean(axis=0) == pytest.approx([60.0, 50.0], abs=CORNER_TOLERANCE_PX)


@pytest.mark.parametrize(("family", "border_bits"), [("tag36h11", 1), ("DICT_4X4_50", 1)])
@pytest.mark.parametrize(
    ("quarter_turns", "facing"),
    # np.rot90 turns the picture counter-clockwise as seen on screen: the top edge, pointing up
    # (90 degrees) when upright, points left (180), down (270), right (0 = 360).
    [(0, 90.0), (1, 180.0), (2, 270.0), (3, 0.0)],
)
def test_image_facing_of_a_marker_turned_by_quarter_turns(
    family: str, border_bits: int, quarter_turns: int, facing: float
) -> None:
    canvas = white(90, 90)
    picture = np.rot90(marker(family, 9, 6, border_bits), quarter_turns)
    paste(canvas, np.ascontiguousarray(picture), 21, 19)
    found = only(make_detector(family, border_bits).detect(canvas))
    assert found.tag_id == 9
    assert 0.0 <= image_facing(found) < 360.0
    assert angle_gap(image_facing(found), facing) == pytest.approx(0.0, abs=0.5)


def test_image_facing_of_a_marker_turned_thirty_degrees() -> None:
    # The upright square's corners turned 30 degrees counter-clockwise on screen about (60, 60):
    # with y down that is x' = c + dx cos30 + dy sin30, y' = c - dx sin30 + dy cos30; its top edge
    # then points at 90 + 30 = 120 degrees.
    angle = math.radians(30.0)
    upright = np.array([[-25.0, -25.0], [25.0, -25.0], [25.0, 25.0], [-25.0, 25.0]])
    turn = np.array([[math.cos(angle), math.sin(angle)], [-math.sin(angle), math.cos(angle)]])
    quad = upright @ turn.T + 60.0
    canvas = white(120, 120)
    warp_onto(canvas, marker("tag36h11", 4, 10), quad)
    found = only(make_detector("tag36h11").detect(canvas))
    assert angle_gap(image_facing(found), 120.0) == pytest.approx(0.0, abs=0.5)
    assert worst_corner_error(found, quad) < CORNER_TOLERANCE_PX


def test_decode_sharpening_reaches_the_c_struct_unrounded() -> None:
    # pupil's constructor stores int(decode_sharpening): 0.25 would become 0.
    detector = make_detector("tag36h11")
    assert isinstance(detector, AprilTagDetector)
    assert detector.native_settings()["decode_sharpening"] == 0.25
    custom = make_detector("tag36h11", decode_sharpening=0.6, quad_decimate=1.5, quad_sigma=0.4)
    assert isinstance(custom, AprilTagDetector)
    settings = custom.native_settings()
    assert settings["decode_sharpening"] == pytest.approx(0.6)
    assert settings["quad_decimate"] == 1.5
    assert settings["quad_sigma"] == pytest.approx(0.4)


def test_decode_sharpening_lifts_recall_of_small_blurred_tags() -> None:
    # Twelve 13 px tag36h11 tags (1.6 px per cell), blurred (sigma 0.6 px): sharpening is what
    # lets the decoder separate the bits (measured: 86.5% -> 96.5% recall on 20 mm tags at
    # 1080p). A detector whose sharpening silently fell to 0 reads clearly fewer.
    rng = np.random.default_rng(4)
    canvas = white(40, 40 * 12)
    for tag_id in range(12):
        x, y = 20 + 40 * tag_id + rng.uniform(-0.5, 0.5), 20 + rng.uniform(-0.5, 0.5)
        quad = square_corners(x - 6.0, y - 6.0, 13.0)
        warp_onto(canvas, marker("tag36h11", tag_id, 16), quad)
    canvas = cv2.GaussianBlur(canvas, (0, 0), 0.6)
    sharpened = {t.tag_id for t in make_detector("tag36h11").detect(canvas)}
    plain = {t.tag_id for t in make_detector("tag36h11", decode_sharpening=0.0).detect(canvas)}
    assert sharpened <= set(range(12))
    assert len(sharpened) >= 11
    assert len(plain) <= len(sharpened) - 3


def test_two_families_in_one_image_need_two_detectors() -> None:
    canvas = white(80, 160)
    paste(canvas, marker("tag36h11", 5, 6), 16, 16)  # 48 px
    paste(canvas, marker("tag25h9", 3, 6), 96, 19)  # 42 px
    found_36 = make_detector("tag36h11").detect(canvas)
    found_25 = make_detector("tag25h9").detect(canvas)
    assert [(t.family, t.tag_id) for t in found_36] == [("tag36h11", 5)]
    assert [(t.family, t.tag_id) for t in found_25] == [("tag25h9", 3)]
    # pupil would register only one of several names, silently: the adapter refuses instead.
    with pytest.raises(DetectorError, match="one family per detector"):
        make_detector("tag36h11 tag25h9")


THREADS_SCRIPT = textwrap.dedent(
    """
    import sys, threading
    import cv2, numpy as np
    from vision.detect import make_detector

    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11)
    canvas = np.full((120, 240), 255, np.uint8)
    for i, tag_id in enumerate((2, 11, 17, 23)):
        picture = cv2.aruco.generateImageMarker(dictionary, tag_id, 40)
        canvas[20 + 40 * (i % 2) : 60 + 40 * (i % 2), 12 + 56 * i : 52 + 56 * i] = picture
    canvas = cv2.GaussianBlur(canvas, (0, 0), 0.5)
    shared = make_detector("tag36h11")
    failures = []

    def work(detector):
        for _ in range(40):
            ids = sorted(t.tag_id for t in detector.detect(canvas))
            if ids != [2, 11, 17, 23]:
                failures.append(ids)

    for detectors in ([make_detector("tag36h11"), make_detector("tag36h11")], [shared, shared]):
        threads = [threading.Thread(target=work, args=(d,)) for d in detectors]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    print("failures", failures)
    sys.exit(1 if failures else 0)
    """
)


def test_concurrent_threads_each_with_a_native_detector_do_not_crash() -> None:
    # A native pupil detector used by two threads at once kills the process, so this runs in a
    # child interpreter: a crash shows as a non-zero exit (SIGSEGV, SIGABRT) instead of taking
    # pytest down. Two adapters in two threads, then one adapter shared by two threads (its
    # per-thread cache gives each thread its own native detector).
    result = subprocess.run(
        [sys.executable, "-c", THREADS_SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr[-2000:])
    assert "failures []" in result.stdout


DROP_16H5_SCRIPT = textwrap.dedent(
    """
    import gc
    import numpy as np
    from vision.detect import make_detector

    frame = np.full((60, 60), 255, np.uint8)
    for _ in range(20):
        detector = make_detector("tag16h5")
        detector.detect(frame)
        del detector
        gc.collect()
        scratch = [np.zeros(1000 + i) for i in range(2000)]
    print("survived")
    """
)


def test_dropping_tag16h5_detectors_leaves_the_heap_intact() -> None:
    # pupil's own __del__ frees the family before the detector that still points at it; with
    # tag16h5 and glibc's heap checks on, a few create/drop cycles abort the process. The
    # adapter frees the detector first.
    env = {**os.environ, "MALLOC_CHECK_": "3"}
    result = subprocess.run(
        [sys.executable, "-c", DROP_16H5_SCRIPT],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    assert "survived" in result.stdout


def test_opencv_finds_a_small_marker_only_with_the_lowered_perimeter_rate() -> None:
    # A 14 px DICT_4X4_50 marker (6 cells of 2.33 px) in a 1920 px wide strip. OpenCV keeps a
    # candidate only if its perimeter is at least minMarkerPerimeterRate * 1920 px: with its
    # default 0.03 that is 57.6 px, and this marker's perimeter is 4 * 14 = 56 px; the adapter's
    # 0.005 needs only 9.6 px.
    canvas = white(48, 1920)
    quad = square_corners(950.0, 17.0, 14.0)
    warp_onto(canvas[:, 930:980], marker("DICT_4X4_50", 6, 16), quad - [930.0, 0.0])
    opencv_default = make_detector("DICT_4X4_50", min_perimeter_rate=0.03).detect(canvas)
    ours = make_detector("DICT_4X4_50").detect(canvas)
    assert opencv_default == []
    found = only(ours)
    assert found.tag_id == 6
    assert worst_corner_error(found, quad) < CORNER_TOLERANCE_PX


@pytest.mark.parametrize("family", ["tag36h11", "tag16h5", "DICT_4X4_50"])
def test_two_cell_borders_are_read_by_the_opencv_path(family: str) -> None:
    canvas = white(100, 100)
    picture = marker(family, 8, 6, border_bits=2)
    truth = paste(canvas, picture, 20, 18)
    detector = make_detector(family, border_bits=2)
    assert isinstance(detector, ArucoDetector)
    found = only(detector.detect(canvas))
    assert (found.family, found.tag_id) == (family, 8)
    assert worst_corner_error(found, truth) < CORNER_TOLERANCE_PX
    # The usual 1-cell reader does not see a 2-cell border as a marker.
    assert make_detector(family, border_bits=1).detect(canvas) == []


def test_pupil_cannot_read_an_aprilgrid_marker() -> None:
    # Kalibr aprilgrid tags (2-cell border) are why border_bits=2 goes to OpenCV.
    canvas = white(100, 100)
    paste(canvas, marker("tag36h11", 8, 6, border_bits=2), 20, 18)
    pupil = make_detector("tag36h11", corner_refinement="none")
    assert isinstance(pupil, AprilTagDetector)
    assert pupil.detect(canvas) == []


def two_tag_frame() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 160 x 220 frame with tag 1 (36 px) at (30, 40) and a smaller tag 2 (32 px) at (150, 90),
    mildly blurred; returns the frame and both tags' true corners."""
    canvas = white(160, 220)
    first = paste(canvas, marker("tag36h11", 1, 5), 30, 40)  # 8 cells * 5 px = 40 px
    second = paste(canvas, marker("tag36h11", 2, 4), 150, 90)  # 8 cells * 4 px = 32 px
    return cv2.GaussianBlur(canvas, (0, 0), 0.5), first, second


@pytest.mark.parametrize("upscale", [1, 2, 3])
@pytest.mark.parametrize("family", ["tag36h11"])
def test_detect_in_window_returns_full_frame_coordinates(family: str, upscale: int) -> None:
    frame, _first, second = two_tag_frame()
    detector = make_detector(family)
    # A window around tag 2 only: columns 140..191, rows 80..131 (tag 2 spans 150..181, 90..121).
    found = only(detector.detect_in_window(frame, 140, 80, 192, 132, upscale=upscale))
    assert found.tag_id == 2
    assert worst_corner_error(found, second) < CORNER_TOLERANCE_PX


def test_detect_in_window_on_the_opencv_path_and_clipped_to_the_frame() -> None:
    canvas = white(100, 120)
    truth = paste(canvas, marker("DICT_4X4_50", 12, 6), 70, 50)  # 36 px: 70..105, 50..85
    detector = make_detector("DICT_4X4_50")
    # The window runs past the right and bottom edges of the frame: it is clipped, not refused.
    found = only(detector.detect_in_window(canvas, 60, 40, 400, 300, upscale=2))
    assert found.tag_id == 12
    assert worst_corner_error(found, truth) < CORNER_TOLERANCE_PX
    assert detector.detect_in_window(canvas, 0, 0, 40, 40) == []
    assert detector.detect_in_window(canvas, 150, 150, 200, 200) == []


@pytest.mark.parametrize("upscale", [0, -1, 1.5, True])
def test_detect_in_window_refuses_a_bad_upscale(upscale: object) -> None:
    frame, _first, _second = two_tag_frame()
    with pytest.raises(DetectorError, match="upscale"):
        make_detector("tag36h11").detect_in_window(frame, 0, 0, 50, 50, upscale=upscale)  # type: ignore[arg-type]


def test_every_detector_follows_the_protocol() -> None:
    for family, border_bits in [("tag36h11", 1), ("DICT_6X6_250", 1), ("tag25h9", 2)]:
        detector = make_detector(family, border_bits)
        assert isinstance(detector, Detector)
        assert (detector.family, detector.border_bits) == (family, border_bits)


@pytest.mark.parametrize(
    ("family", "border_bits", "options", "message"),
    [
        ("tag37h11", 1, {}, "unknown 'tag37h11'.*'tag36h11'.*'DICT_4X4_50'"),
        ("DICT_4X4_49", 1, {}, "unknown 'DICT_4X4_49'.*accepted are"),
        ("tag36h11", 3, {}, "border_bits: expected 1 .* or 2"),
        ("tagStandard41h12", 2, {}, "'tagStandard41h12' cannot be read with border_bits=2"),
        ("tag36h11", 1, {"decimate": 2}, "unknown option 'decimate'.*'quad_decimate'"),
        ("DICT_4X4_50", 1, {"quad_decimate": 2.0}, "unknown option 'quad_decimate'"),
        ("tag36h11", 1, {"quad_decimate": 0.5}, "quad_decimate: expected 1.0 or more"),
        ("tag36h11", 1, {"nthreads": 1.5}, "nthreads: expected a whole number"),
        ("tag36h11", 1, {"corner_refinement": "subpix"}, "'edges' or 'none'"),
        ("tagStandard41h12", 1, {"corner_refinement": "edges"}, "use 'none'"),
        ("DICT_4X4_50", 1, {"corner_refinement": "best"}, "'edges'.*'subpix'"),
        ("DICT_4X4_50", 1, {"min_perimeter_rate": 0.0}, "above 0 and below 4"),
    ],
)
def test_bad_requests_name_what_is_accepted(
    family: str, border_bits: int, options: dict[str, object], message: str
) -> None:
    with pytest.raises(DetectorError, match=message):
        make_detector(family, border_bits, **options)


def test_every_apriltag_family_is_accepted() -> None:
    # Creation is lazy (a tagStandard41h12 native detector takes ~160 MB): only the adapters.
    for family in APRILTAG_FAMILIES:
        assert make_detector(family).family == family


@pytest.mark.parametrize(
    "image",
    [np.zeros((20, 20, 3), np.uint8), np.zeros((20, 20), np.float32), [[0, 255], [255, 0]]],
)
def test_a_frame_that_is_not_8_bit_gray_is_refused(image: object) -> None:
    with pytest.raises(DetectorError, match="gray: expected a 2-D uint8"):
        make_detector("tag36h11").detect(image)  # type: ignore[arg-type]


def test_a_detection_is_immutable() -> None:
    tag = TagDetection("tag36h11", 1, np.array([[0, 0], [10, 0], [10, 10], [0, 10]]))
    assert tag.corners.dtype == np.float64
    with pytest.raises(ValueError, match="read-only"):
        tag.corners[0, 0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        tag.center[0] = 5.0
    # By hand: the diagonals of the 10 px square cross at (5, 5); its top edge points up.
    assert tag.center == pytest.approx([5.0, 5.0])
    assert image_facing(tag) == pytest.approx(90.0)
    with pytest.raises(DetectorError, match="4 finite"):
        TagDetection("tag36h11", 1, np.array([[0, 0], [1, 0], [1, 1]]))
