"""The synthetic table renderer: tags are drawn where the truth says, at their true size, and real
detectors agree: OpenCV's ArUco detector decodes the ids, pupil-apriltags (its corners are the
most exact of the two; read through vision.detect, which frees it safely) locates the corners.

Scenes are small (640x480, a 40 x 30 cm table) so the file runs in a few seconds."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
from collections.abc import Callable

import cv2
import numpy as np
import pytest

from vision.detect import AprilTagDetector
from vision.render import (
    BaseSpec,
    CameraSpec,
    Effects,
    Frame,
    Glare,
    RenderError,
    Scenario,
    TableSpec,
    TagSpec,
    camera_for_table,
    demo_table,
    hand_polygon,
    moving,
    render,
)
from vision.tags import (
    FAMILIES,
    TagError,
    cells_across,
    dictionary_name,
    family_size,
    pattern_family,
    tag_bitmap,
)

# A camera straight down over the centre (200, 150) of a 400 x 300 mm table, 500 mm up,
# focal length 500 px, principal point at the image centre (319.5, 239.5): one table mm at
# z = 0 is one pixel, x to the right, y upwards in the image.
F, CX, CY, H = 500.0, 319.5, 239.5, 500.0
DOWN = CameraSpec(640, 480, H, focal_px=F)


def table_of(*tags: TagSpec) -> TableSpec:
    return TableSpec(400.0, 300.0, (), tags)


def upright(tag_id: int, x: float, y: float, size: float = 40.0, **kw: object) -> TagSpec:
    return TagSpec("tag36h11", tag_id, x, y, 90.0, size, **kw)  # type: ignore[arg-type]


GRID = table_of(
    *(
        TagSpec(
            "tag36h11",
            i,
            80.0 + (i % 4) * 80,
            100.0 + (i // 4) * 100,
            90.0 + 37 * i,
            40.0,
            base=BaseSpec(50.0, 50.0, colour=(60, 70, 80)),
        )
        for i in range(8)
    )
)


def detect(
    image: np.ndarray, dictionary: int = cv2.aruco.DICT_APRILTAG_36h11, border_bits: int = 1
) -> dict[int, np.ndarray]:
    """Tag id -> 4x2 corners found by OpenCV (its own corner order), sub-pixel refined."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.minMarkerPerimeterRate = 0.01
    params.markerBorderBits = border_bits
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary), params)
    corners, ids, _ = detector.detectMarkers(image)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel(), strict=True)}


Locate = Callable[[np.ndarray], dict[int, np.ndarray]]


@pytest.fixture(scope="module")
def locate() -> Locate:
    """Tag id -> 4x2 corners found by pupil-apriltags, in OpenCV's convention and order.

    Read through the detector adapter with pupil's own corners (no edge refinement): it shifts
    them by -0.5 px and reorders them 1, 0, 3, 2 (pinned by test_detect.py), and it frees pupil's
    native detector in the right order. A bare `pupil_apriltags.Detector` freed by its own
    `__del__` reads freed memory, which now and then crashed this file's teardown."""
    detector = AprilTagDetector("tag36h11", corner_refinement="none")

    def corners(image: np.ndarray) -> dict[int, np.ndarray]:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        return {d.tag_id: d.corners for d in detector.detect(grey)}

    return corners


def truth_of(frame: Frame) -> dict[int, np.ndarray]:
    out = {}
    for tag in frame.truth.tags:
        assert tag.corners_px is not None
        out[tag.tag_id] = tag.corners_px
    return out


# ----------------------------------------------------------------------------- tags.py


@pytest.mark.parametrize(
    ("family", "border_bits", "cells"),
    [
        ("tag36h11", 1, 8),  # 6x6 data cells + 1 black cell each side
        ("tag36h11", 2, 10),  # 6 + 2 * 2
        ("tag25h9", 1, 7),  # 5 + 2
        ("tag16h5", 1, 6),  # 4 + 2
        ("DICT_4X4_50", 1, 6),  # 4 + 2
        ("DICT_6X6_250", 2, 10),  # 6 + 2 * 2
    ],
)
def test_tag_bitmap_is_one_pixel_per_cell_with_a_black_border(
    family: str, border_bits: int, cells: int
) -> None:
    bitmap = tag_bitmap(family, 3, border_bits)
    assert bitmap.shape == (cells, cells)
    assert bitmap.dtype == np.uint8
    assert set(np.unique(bitmap)) <= {0, 255}
    ring = np.ones((cells, cells), bool)
    ring[border_bits:-border_bits, border_bits:-border_bits] = False
    assert (bitmap[ring] == 0).all()
    assert not bitmap.flags.writeable


@pytest.mark.parametrize(
    ("family", "size"),
    [("tag36h11", 587), ("tag25h9", 35), ("tag16h5", 30), ("DICT_4X4_50", 50)],
)
def test_ids_out_of_range_name_the_family_size(family: str, size: int) -> None:
    assert family_size(family) == size
    tag_bitmap(family, size - 1)
    with pytest.raises(TagError, match=f"{family}.*{size} ids"):
        tag_bitmap(family, size)
    with pytest.raises(TagError, match="out of range"):
        tag_bitmap(family, -1)


@pytest.mark.parametrize(
    ("family", "border_bits", "words"),
    [
        ("tagStandard41h12", 1, "OpenCV has no dictionary"),
        ("tag99h1", 1, "unknown tag family 'tag99h1'"),
        ("DICT_5X5_7", 1, "unknown tag family"),
        ("tag36h11", 3, "border_bits must be 1 or 2"),
    ],
)
def test_bad_families_and_borders_are_refused_clearly(
    family: str, border_bits: int, words: str
) -> None:
    with pytest.raises(TagError, match=words):
        tag_bitmap(family, 0, border_bits)


def test_family_names_and_sizes_need_no_opencv() -> None:
    # The game file loader checks names and ids: it must not pull in cv2 to do so.
    code = (
        "import sys, vision.game, vision.tags as t; "
        "print(t.family_size('tagStandard41h12'), t.family_size('DICT_4X4_50'), "
        "'cv2' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["2115", "50", "False"]


@pytest.mark.parametrize(
    ("family", "same"),
    [
        ("DICT_APRILTAG_36h11", "tag36h11"),
        ("DICT_APRILTAG_25h9", "tag25h9"),
        ("DICT_APRILTAG_16h5", "tag16h5"),
        ("DICT_APRILTAG_36h10", "DICT_APRILTAG_36h10"),  # no tag* family prints 36h10
        ("DICT_4X4_50", "DICT_4X4_50"),
        ("tag36h11", "tag36h11"),
    ],
)
def test_dictionaries_that_print_an_apriltag_family_are_that_family(family: str, same: str) -> None:
    assert pattern_family(family) == same


def test_every_family_but_tagstandard41h12_has_an_opencv_dictionary() -> None:
    drawable = [f for f in FAMILIES if f != "tagStandard41h12"]
    for family in drawable:
        assert hasattr(cv2.aruco, dictionary_name(family))
        # markerSize data cells + a 1-cell border each side, as OpenCV's own dictionary says.
        marker = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary_name(family)))
        assert cells_across(family, 1) == marker.markerSize + 2
    with pytest.raises(TagError, match="OpenCV has no dictionary"):
        dictionary_name("tagStandard41h12")


@pytest.mark.parametrize(
    ("family", "dictionary", "border_bits"),
    [
        ("tag36h11", cv2.aruco.DICT_APRILTAG_36h11, 1),
        ("tag36h11", cv2.aruco.DICT_APRILTAG_36h11, 2),
        ("tag16h5", cv2.aruco.DICT_APRILTAG_16h5, 1),
        ("DICT_4X4_50", cv2.aruco.DICT_4X4_50, 1),
    ],
)
def test_rendered_tags_decode_to_their_ids(family: str, dictionary: int, border_bits: int) -> None:
    tags = (
        TagSpec(family, 7, 150.0, 150.0, 90.0, 40.0, border_bits=border_bits),
        TagSpec(family, 12, 260.0, 140.0, 200.0, 40.0, border_bits=border_bits),
    )
    frame = render(table_of(*tags), DOWN)
    assert sorted(detect(frame.image, dictionary, border_bits)) == [7, 12]


# ----------------------------------------------------------------------------- geometry


def test_truth_corners_agree_with_detected_corners_on_a_clean_frame(locate: Locate) -> None:
    frame = render(GRID, DOWN)
    truth = truth_of(frame)
    found = locate(frame.image)
    assert sorted(found) == list(range(8))
    for tag_id, corners in found.items():
        side = np.linalg.norm(truth[tag_id][0] - truth[tag_id][1])
        assert side == pytest.approx(40.0, abs=0.01)  # 40 mm at 1 px/mm
        assert np.abs(corners - truth[tag_id]).max() < 0.5


def test_corner_order_and_facing_follow_opencv() -> None:
    # Upright (facing 90): corner 0 is top-left in the image, 1 top-right, 2 bottom-right.
    frame = render(table_of(upright(5, 200.0, 150.0)), DOWN)
    corners = truth_of(frame)[5]
    # Tag centre (200, 150) is the image centre; half a side is 20 px.
    expected = [(CX - 20, CY - 20), (CX + 20, CY - 20), (CX + 20, CY + 20), (CX - 20, CY + 20)]
    assert corners == pytest.approx(np.array(expected), abs=1e-6)
    # OpenCV's own detector returns its own order (its sub-pixel refinement is rougher).
    assert detect(frame.image)[5] == pytest.approx(np.array(expected), abs=1.0)
    # Facing 0 (the top edge points to +x): corners 0-1 are on the right side of the image.
    turned = render(table_of(TagSpec("tag36h11", 5, 200.0, 150.0, 0.0, 40.0)), DOWN)
    top = truth_of(turned)[5][:2]
    assert top[:, 0] == pytest.approx([CX + 20, CX + 20], abs=1e-6)
    assert detect(turned.image)[5][:2] == pytest.approx(top, abs=1.0)


def test_a_raised_tag_is_seen_with_the_parallax_of_its_height(locate: Locate) -> None:
    # Straight down from 500 mm: a point (X, Y) on a tag 10 mm up is 490 mm from the camera,
    # so it lands at u = CX + 500 (X - 200) / 490, v = CY - 500 (Y - 150) / 490.
    # Top-left corner of a 40 mm tag at (300, 200): X = 280, Y = 220:
    # u = 319.5 + 500 * 80 / 490 = 319.5 + 81.6327 = 401.1327 (flat: 319.5 + 80 = 399.5),
    # v = 239.5 - 500 * 70 / 490 = 239.5 - 71.4286 = 168.0714 (flat: 239.5 - 70 = 169.5).
    raised = upright(3, 300.0, 200.0, height_mm=10.0, base=BaseSpec(50.0, 50.0))
    flat = dataclasses.replace(raised, tag_id=4, x_mm=120.0, y_mm=100.0, height_mm=0.0)
    frame = render(table_of(raised, flat), DOWN)
    truth = truth_of(frame)
    assert truth[3][0] == pytest.approx([401.1327, 168.0714], abs=1e-3)
    for (x, y), (u, v) in zip(
        [(280, 220), (320, 220), (320, 180), (280, 180)], truth[3], strict=True
    ):
        assert u == pytest.approx(CX + F * (x - 200) / (H - 10))
        assert v == pytest.approx(CY - F * (y - 150) / (H - 10))
    found = locate(frame.image)
    assert np.abs(found[3] - truth[3]).max() < 0.5
    # The flat projection of the raised tag's corner is 1.63 px away: the picture shows parallax.
    assert np.abs(found[3][0] - [399.5, 169.5]).max() > 1.2


def test_lens_distortion_moves_corners_as_k1_says(locate: Locate) -> None:
    k1 = -0.2
    camera = dataclasses.replace(DOWN, distortion=(k1, 0.0, 0.0, 0.0, 0.0))
    tag = upright(9, 320.0, 230.0)
    frame = render(table_of(tag), camera)
    truth = truth_of(frame)[9]
    # Corner 0 at (300, 250): normalised x = 100 / 500 = 0.2, y = -100 / 500 = -0.2,
    # r^2 = 0.08, scale 1 + k1 r^2 = 0.984: u = 319.5 + 500 * 0.2 * 0.984 = 417.9,
    # v = 239.5 - 98.4 = 141.1 (without distortion: 419.5, 139.5).
    assert truth[0] == pytest.approx([417.9, 141.1], abs=1e-6)
    for (x, y), corner in zip([(300, 250), (340, 250), (340, 210), (300, 210)], truth, strict=True):
        xn, yn = (x - 200) / H, -(y - 150) / H
        scale = 1 + k1 * (xn * xn + yn * yn)
        assert corner == pytest.approx([CX + F * xn * scale, CY + F * yn * scale], abs=1e-6)
    assert np.abs(locate(frame.image)[9] - truth).max() < 0.5


def test_tags_out_of_the_frame_have_no_corners() -> None:
    # The image spans table x from 200 - 319.5 to 200 + 320.5 mm; a tag at x = -100 is beyond.
    camera = dataclasses.replace(DOWN, width_px=400, focal_px=F)
    frame = render(table_of(upright(1, 200.0, 150.0), upright(2, 20.0, 150.0)), camera)
    by_id = {t.tag_id: t for t in frame.truth.tags}
    assert by_id[1].corners_px is not None and by_id[1].visible
    assert by_id[2].corners_px is None and not by_id[2].visible


def test_the_camera_truth_reprojects_the_corners(locate: Locate) -> None:
    camera = CameraSpec(
        640,
        480,
        450.0,
        tilt_deg=15.0,
        yaw_deg=10.0,
        fov_deg=70.0,
        distortion=(-0.1, 0.01, 0.001, -0.001, 0.0),
    )
    tag = TagSpec("tag36h11", 4, 150.0, 170.0, 30.0, 40.0, height_mm=5.0)
    frame = render(table_of(tag), camera)
    cam = frame.truth.camera
    a = math.radians(30.0)
    right, up = np.array([math.sin(a), -math.cos(a)]), np.array([math.cos(a), math.sin(a)])
    local = [(-20, 20), (20, 20), (20, -20), (-20, -20)]
    points = np.array([[*(np.array([150.0, 170.0]) + u * right + v * up), 5.0] for u, v in local])
    px, _ = cv2.projectPoints(points, cam.rvec, cam.tvec, cam.matrix, cam.distortion)
    assert truth_of(frame)[4] == pytest.approx(px.reshape(4, 2), abs=1e-6)
    # The camera stands back towards the near edge: 450 tan(15 deg) = 120.6 mm from the centre.
    assert np.hypot(*(cam.position_mm[:2] - [200, 150])) == pytest.approx(
        450 * math.tan(math.radians(15))
    )
    assert cam.position_mm[2] == pytest.approx(450.0)
    assert np.abs(locate(frame.image)[4] - truth_of(frame)[4]).max() < 0.5


# ----------------------------------------------------------------------------- the hand


def test_the_hand_hides_the_tags_under_it_and_the_truth_says_so() -> None:
    # A hand at 0.7 scale is at most 2 * 48 * 0.7 = 67 mm wide (the palm; the forearm is
    # 2 * 38 * 0.7 = 53 mm): fingertips at (160, 230), it spans x = 126.4 to 193.6 up to
    # y = 230. Seen from 500 mm it is 60 mm nearer the lens, so it looks 500 / 440 = 1.136
    # times larger about the image centre (table x 200): x = 116.0 to 192.7, up to
    # y = 150 + 80 * 1.136 = 240.9. Tags 1 and 5 (x = 160, y = 100 and 200) are (nearly all)
    # under it; the others, whose corners reach at most 20 * sqrt(2) = 28.3 mm from their
    # centres at x = 80, 240, 320, are clear of it.
    hand = hand_polygon((160.0, 230.0), 90.0, scale=0.7)
    frame = render(GRID, DOWN, Effects(hand=hand, hand_height_mm=60.0))
    hidden = {t.tag_id for t in frame.truth.tags if t.occluded}
    assert hidden == {1, 5}
    assert all(t.hand_fraction > 0.95 for t in frame.truth.tags if t.occluded)
    assert frame.truth.hand_px is not None
    assert sorted(detect(frame.image)) == [0, 2, 3, 4, 6, 7]


# ----------------------------------------------------------------------------- effects


@pytest.mark.parametrize(
    "effects",
    [
        Effects(blur_px=1.0),
        Effects(noise_sigma=4.0),
        Effects(light_gradient=0.5, light_angle_deg=30.0),
        Effects(jpeg_quality=70),
        Effects(motion_blur_px=4.0, motion_angle_deg=30.0),
        Effects(print_contrast=(60, 220)),
        Effects(glare=Glare(0.5, 0.5, 0.15, 0.6)),
    ],
    ids=lambda e: next(k for k in e.__slots__ if getattr(e, k) != getattr(Effects(), k)),
)
def test_each_camera_effect_changes_the_picture_not_the_truth(
    effects: Effects, locate: Locate
) -> None:
    clean = render(GRID, DOWN)
    frame = render(GRID, DOWN, effects, np.random.default_rng(1))
    assert np.abs(frame.image.astype(int) - clean.image).mean() > 0.5
    truth = truth_of(frame)
    for tag_id, corners in truth_of(clean).items():
        assert np.array_equal(truth[tag_id], corners)
    found = locate(frame.image)
    assert sorted(found) == list(range(8))
    for tag_id, corners in found.items():
        assert np.abs(corners - truth[tag_id]).max() < 0.6


def test_rolling_shutter_shifts_lower_rows_and_the_truth_with_them(locate: Locate) -> None:
    shift = 6.0
    clean = render(GRID, DOWN)
    frame = render(GRID, DOWN, Effects(rolling_shutter_px=shift))
    assert np.abs(frame.image.astype(int) - clean.image).mean() > 0.5
    for tag_id, corners in truth_of(frame).items():
        before = truth_of(clean)[tag_id]
        # Row v moves right by 6 * v / 479 pixels (top row 0, bottom row 6).
        assert corners[:, 0] == pytest.approx(before[:, 0] + shift * before[:, 1] / 479)
        assert corners[:, 1] == pytest.approx(before[:, 1])
        assert np.abs(locate(frame.image)[tag_id] - corners).max() < 0.6


def test_a_bent_card_lifts_its_corners_and_the_truth_follows(locate: Locate) -> None:
    # A 40 mm tag36h11 card with a 1-cell quiet zone is 40 * (1 + 2/8) = 50 mm wide; its corners
    # (u = +-20 mm) curl up 1.5 * (40 / 50)^2 = 0.96 mm, so straight down from 500 mm a corner
    # 80 mm right of the centre moves out by 500 * 80 / (500 - 0.96) - 80 = 0.154 px.
    tag = upright(2, 300.0, 150.0)
    clean = render(table_of(tag), DOWN)
    bent = render(table_of(tag), DOWN, Effects(card_bend_mm=1.5))
    assert np.abs(bent.image.astype(int) - clean.image).mean() > 0.01
    moved = truth_of(bent)[2][1, 0] - truth_of(clean)[2][1, 0]  # corner 1 at x = 320
    assert moved == pytest.approx(500 * 120 / (500 - 0.96) - 120, abs=1e-6)
    assert np.abs(locate(bent.image)[2] - truth_of(bent)[2]).max() < 0.5


def test_the_same_seed_gives_the_same_frame() -> None:
    effects = Effects(noise_sigma=5.0, blur_px=0.8, jpeg_quality=80)
    one = render(GRID, DOWN, effects, np.random.default_rng(42))
    two = render(GRID, DOWN, effects, np.random.default_rng(42))
    other = render(GRID, DOWN, effects, np.random.default_rng(43))
    assert np.array_equal(one.image, two.image)
    assert not np.array_equal(one.image, other.image)


# ----------------------------------------------------------------------------- rigs and scenes


def test_a_sample_table_renders_to_a_png(tmp_path: pytest.TempPathFactory) -> None:
    table = demo_table(600.0, 400.0, bases=12, tag_sizes_mm=(20.0, 25.0), seed=3)
    camera = camera_for_table(
        table, 640, 480, 700.0, tilt_deg=15.0, distortion=(-0.05, 0.0, 0.0, 0.0, 0.0)
    )
    frame = render(table, camera, Effects(blur_px=0.6, noise_sigma=2.0))
    path = tmp_path / "sample.png"  # type: ignore[operator]
    assert cv2.imwrite(str(path), frame.image)
    back = cv2.imread(str(path))
    assert back is not None and np.array_equal(back, frame.image)
    # The whole table is in view: all 4 corner tags and 12 bases have corners.
    assert all(t.corners_px is not None for t in frame.truth.tags)
    assert len(frame.truth.tags) == 16
    assert not frame.image.flags.writeable


def test_moving_nudges_bases_and_never_the_corner_tags() -> None:
    table = demo_table(600.0, 400.0, bases=20, seed=1)
    later = moving(table, np.random.default_rng(0), step_mm=2.0, share=1.0)
    for before, after in zip(table.tags, later.tags, strict=True):
        step = math.hypot(after.x_mm - before.x_mm, after.y_mm - before.y_mm)
        if before.base is None:
            assert step == 0
        else:
            assert 0 < step <= 2.0 * math.sqrt(2)


def test_a_scenario_moves_bases_and_passes_a_hand_over() -> None:
    table = demo_table(600.0, 400.0, bases=10, seed=2)
    camera = camera_for_table(table, 320, 240, 700.0)
    frames = list(Scenario(table, camera, seed=5, hand_period=4, hand_frames=2).frames(4))
    hands = [f.truth.hand_px is not None for f in frames]
    assert hands == [True, True, False, False]
    centres = [[t.centre_mm for t in f.truth.tags] for f in frames]
    assert centres[0] != centres[3]


def test_bad_specs_are_refused_by_name() -> None:
    with pytest.raises(RenderError, match="exactly one of fov_deg or focal_px"):
        CameraSpec(640, 480, 500.0)
    with pytest.raises(RenderError, match="size_mm of tag 3"):
        TagSpec("tag36h11", 3, 0.0, 0.0, size_mm=0.0)
    with pytest.raises(TagError, match="out of range"):
        TagSpec("tag16h5", 30, 0.0, 0.0)
    with pytest.raises(RenderError, match="diameter_mm, or both width_mm and depth_mm"):
        BaseSpec(width_mm=20.0)
    with pytest.raises(RenderError, match="print_contrast"):
        Effects(print_contrast=(200, 100))


def test_noise_has_the_asked_sigma_in_every_channel() -> None:
    # Rows 0-59 see only the floor beyond the table (the table starts 150 px above the image
    # centre, at row 89.5), a flat colour far from 0 and 255, so nothing clips.
    clean = render(GRID, DOWN)
    noisy = render(GRID, DOWN, Effects(noise_sigma=4.0), np.random.default_rng(7))
    diff = noisy.image[:60].astype(float) - clean.image[:60]
    assert diff.reshape(-1, 3).std(axis=0) == pytest.approx([4.0, 4.0, 4.0], rel=0.05)
    assert diff.mean() == pytest.approx(0.0, abs=0.1)
