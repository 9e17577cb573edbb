"""Tests of calibration/: the table homography, the camera model and pose, height correction,
the lens fit, ChArUco camera calibration and the JSON files.

Expected values are worked out by hand in the comments (scale-and-shift maps, similar triangles
for parallax, the radial lens formula). Synthetic cameras: `look_at` builds a pose from where
the camera is and what it looks at; points are projected with OpenCV's full lens model.
Lengths in millimetres, pixels with (0, 0) at the centre of the top-left pixel.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from calibration.camera import (
    CameraModel,
    CameraPose,
    camera_pose,
    distort_points,
    project_table_points,
    table_point_at_height,
    undistort_points,
)
from calibration.errors import CalibrationError
from calibration.fit import (
    CharucoSpec,
    calibrate_camera,
    corner_tag_references,
    fit_corner_tags,
    fit_lens_and_table,
    render_charuco_board,
    tag_centre,
)
from calibration.homography import TableFit, TableTransform, fit_table_transform
from calibration.store import (
    camera_from_dict,
    load_camera,
    load_table_fit,
    save_camera,
    save_table_fit,
)

Points = NDArray[np.float64]
TABLE = (1800.0, 1200.0)  # a 180 x 120 cm table
HD = (1920, 1080)


def look_at(camera: tuple[float, float, float], target: tuple[float, float, float]) -> CameraPose:
    """The pose of a camera at `camera` (table mm, z up) looking at `target`, image x along the
    table's x as far as the view allows."""
    centre = np.array(camera, dtype=float)
    forward = np.array(target, dtype=float) - centre
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, (0.0, 1.0, 0.0))
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rotation = np.array([right, down, forward])
    return CameraPose(rotation, -rotation @ centre)


def pinhole(f: float = 1100.0, distortion: tuple[float, ...] = (0, 0, 0, 0)) -> CameraModel:
    """A 1920x1080 camera with its principal point at the image centre."""
    matrix = np.array([[f, 0, 959.5], [0, f, 539.5], [0, 0, 1]])
    return CameraModel.from_values(matrix, distortion, HD)


# Camera 145 cm up, 25 cm in front of the near edge, looking at the middle of the table.
TILTED = look_at((900, -250, 1450), (900, 600, 0))
TAG_CORNERS = np.array([[-0.5, 0.5], [0.5, 0.5], [0.5, -0.5], [-0.5, -0.5]])


def upright_corners(centre: tuple[float, float], size: float) -> Points:
    """Table positions of a tag's corners (OpenCV order) when its top edge faces +y."""
    return np.asarray(centre) + size * TAG_CORNERS


# --------------------------------------------------------------------------------------------
# TableTransform and fit_table_transform

# A camera straight over the table at 2 mm per pixel, the near edge at the bottom:
#   u = 50 + x / 2,  v = 650 - y / 2   <=>   x = 2u - 100,  y = 1300 - 2v.
SCALE_SHIFT = [[2.0, 0.0, -100.0], [0.0, -2.0, 1300.0], [0.0, 0.0, 1.0]]


def by_hand_pixels(table: Points) -> Points:
    return np.column_stack([50 + table[:, 0] / 2, 650 - table[:, 1] / 2])


REFS = np.array(
    [[0, 0], [1800, 0], [1800, 1200], [0, 1200], [900, 0], [900, 1200], [0, 600], [1800, 600]],
    dtype=float,
)


def test_scale_and_shift_maps_as_computed_by_hand() -> None:
    transform = TableTransform.from_matrix(SCALE_SHIFT)
    # (50, 650) is the near-left corner; (950, 50) the far-right: 2 * 950 - 100 = 1800,
    # 1300 - 2 * 50 = 1200; (500, 350): 900, 600.
    pixels = [[50, 650], [950, 50], [500, 350]]
    assert transform.image_to_table(pixels) == pytest.approx(
        np.array([[0, 0], [1800, 1200], [900, 600]])
    )
    assert transform.table_to_image([[900, 600]]) == pytest.approx(np.array([[500, 350]]))
    assert transform.mm_per_pixel([[500, 350]]) == pytest.approx([2.0])
    assert not transform.image_to_table(pixels).flags.writeable


def test_a_perfect_fit_recovers_the_hand_matrix_with_zero_residuals() -> None:
    fit = fit_table_transform(
        by_hand_pixels(REFS), REFS, image_size=(1000, 700), table_size_mm=TABLE
    )
    matrix = fit.transform.image_to_table_matrix
    assert matrix / matrix[2, 2] == pytest.approx(np.array(SCALE_SHIFT), abs=1e-3)
    assert fit.residuals_mm == pytest.approx(np.zeros(len(REFS)), abs=1e-3)
    assert fit.rms_mm == pytest.approx(0.0, abs=1e-3)
    assert fit.inliers.all() and fit.outlier_groups == ()


def test_image_to_table_to_image_round_trips_through_a_tilted_view() -> None:
    camera = pinhole()
    fit = fit_table_transform(project_table_points(camera, TILTED, REFS), REFS)
    grid = np.stack(np.meshgrid(np.linspace(0, 1800, 7), np.linspace(0, 1200, 5)), -1)
    table = grid.reshape(-1, 2)
    pixels = project_table_points(camera, TILTED, table)
    assert fit.image_to_table(pixels) == pytest.approx(table, abs=1e-3)
    assert fit.table_to_image(fit.image_to_table(pixels)) == pytest.approx(pixels, abs=1e-3)


def test_a_moved_reference_point_is_flagged_and_left_out() -> None:
    pixels = by_hand_pixels(REFS)
    pixels[5] += (5.0, 0.0)  # 5 px = 10 mm at 2 mm per pixel
    fit = fit_table_transform(pixels, REFS)
    assert fit.outlier_groups == (5,)
    assert list(fit.inliers) == [True] * 5 + [False] + [True] * 2
    assert fit.residuals_mm[5] == pytest.approx(10.0, abs=1e-3)
    assert fit.worst_mm == pytest.approx(0.0, abs=1e-3)


def test_a_knocked_corner_tag_is_rejected_as_a_whole() -> None:
    centres = [(40.0, 40.0), (1760.0, 40.0), (1760.0, 1160.0), (40.0, 1160.0), (900.0, 1160.0)]
    table = np.vstack([upright_corners(c, 60) for c in centres])
    pixels = project_table_points(pinhole(), TILTED, table)
    moved = pixels.copy()
    moved[8:12] = project_table_points(pinhole(), TILTED, table[8:12] + np.array([6.0, 0.0]))
    fit = fit_table_transform(moved, table, groups=np.repeat([0, 1, 2, 3, 4], 4).tolist())
    assert fit.outlier_groups == (2,)
    # Tag 2 really sits 6 mm to the right of where the game file says.
    assert fit.residuals_mm[8:12] == pytest.approx([6.0] * 4, abs=0.01)
    assert fit.residuals_by_group()[2] == pytest.approx(6.0, abs=0.01)
    assert fit.worst_mm < 1e-3


def refuse(message: str, image: Any, table: Any, **options: Any) -> None:
    with pytest.raises(CalibrationError, match=message):
        fit_table_transform(image, table, **options)


def test_refuses_fewer_than_four_points() -> None:
    refuse("only 3 reference points; at least 4", by_hand_pixels(REFS[:3]), REFS[:3])


def test_refuses_nan() -> None:
    pixels = by_hand_pixels(REFS)
    pixels[2, 1] = np.nan
    refuse(r"image points contain NaN or inf \(point 2", pixels, REFS)


@pytest.mark.parametrize(
    "table",
    [
        [[0, 0], [600, 0], [1200, 0], [1800, 0], [900, 0]],  # all on the near edge
        [[0, 0], [900, 0], [1800, 0], [0, 1200], [0, 1200]],  # three in line and a repeat
        [[0, 0], [0, 0], [1800, 0], [0, 1200]],  # a repeated point leaves only three
    ],
)
def test_refuses_collinear_or_repeated_points(table: list[list[float]]) -> None:
    points = np.array(table, dtype=float)
    refuse("lie on one line", by_hand_pixels(points), points)


def test_refuses_residuals_no_moved_point_explains() -> None:
    noisy = by_hand_pixels(REFS) + np.random.default_rng(3).normal(0, 4, (len(REFS), 2))
    refuse("over the 2.0 mm limit, and no choice of moved tags", noisy, REFS)


def test_refuses_when_too_few_points_to_tell_which_one_moved() -> None:
    # Five points, one off: every four of them fit exactly, so any could be the one that moved.
    pixels = by_hand_pixels(REFS[:5])
    pixels[4] += (5.0, 0.0)
    refuse("too few to tell which one moved", pixels, REFS[:5])


def test_refuses_a_mirrored_table() -> None:
    # The pixels of a table whose y runs the wrong way: x = 2u - 100, y = 2v - 100.
    mirrored = np.column_stack([50 + REFS[:, 0] / 2, 50 + REFS[:, 1] / 2])
    refuse("mirrors the table", mirrored, REFS)


def test_refuses_a_table_far_outside_the_picture() -> None:
    # The fit is right, but the picture is said to be 100 x 70 px while the table spans 900 px.
    refuse(
        "far outside the 100x70 picture",
        by_hand_pixels(REFS),
        REFS,
        image_size=(100, 70),
        table_size_mm=TABLE,
    )


def test_refuses_a_table_reaching_behind_the_camera() -> None:
    # A camera 40 cm up over y = 300, looking down 24 degrees towards the far edge: its image
    # plane through the lens meets the table where 900 (y - 300) + 400^2 = 0, y = 122, so the
    # near edge (y = 0) is behind it. The far half of the table alone fits fine.
    low = look_at((900, 300, 400), (900, 1200, 0))
    far = REFS[REFS[:, 1] >= 600]
    pixels = project_table_points(pinhole(), low, far)
    assert fit_table_transform(pixels, far).worst_mm < 1e-3
    refuse("behind the camera", pixels, far, table_size_mm=TABLE)


def test_a_pixel_above_the_horizon_has_no_table_position() -> None:
    fit = fit_table_transform(project_table_points(pinhole(), TILTED, REFS), REFS)
    # The camera looks atan(1450 / 850) = 59.6 degrees below level, so the horizon of the table
    # plane is 1100 * tan(59.6 deg) = 1874 px above the image centre, at pixel y = -1335.
    with pytest.raises(CalibrationError, match="beyond the horizon"):
        fit.image_to_table([[959.5, -1400.0]])
    assert fit.image_to_table([[959.5, -1300.0]])[0, 1] > 10_000  # still on the plane, far off


# --------------------------------------------------------------------------------------------
# CameraModel, lens distortion, pose


@pytest.mark.parametrize(
    ("matrix", "distortion", "size", "message"),
    [
        ([[0, 0, 500], [0, 900, 400], [0, 0, 1]], [0, 0, 0, 0], None, "fx = 0"),
        ([[900, 0, 500], [0, -900, 400], [0, 0, 1]], [0, 0, 0, 0], None, "both must be positive"),
        ([[900, 0, 500], [0, 900, 400]], [0, 0, 0, 0], None, r"shape \(3, 3\)"),
        ([[900, 0, 500], [0, 900, 400], [0, 0, 1]], [0, 0, 0], None, "3 coefficients"),
        ([[900, 0, 500], [0, 900, 400], [0, 0, 1]], [0, math.nan, 0, 0], None, "NaN"),
        ([[900, 0, 500], [0, 900, 400], [0, 0, 1]], [0, 0, 0, 0], (400, 300), "outside the"),
        ([[900, 0, 500], [0, 900, 400], [1, 0, 1]], [0, 0, 0, 0], None, "not of the form"),
    ],
)
def test_camera_model_rejects_bad_values(
    matrix: Any, distortion: Any, size: Any, message: str
) -> None:
    with pytest.raises(CalibrationError, match=message):
        CameraModel.from_values(matrix, distortion, size)


def test_barrel_distortion_moves_points_as_the_radial_formula_says() -> None:
    # f = 1000, centre (500, 500), k1 = -0.2: the ideal pixel (1000, 500) is at normalised
    # radius 0.5; the lens puts it at 0.5 * (1 - 0.2 * 0.25) = 0.475, i.e. pixel 975.
    lens = CameraModel.from_values([[1000, 0, 500], [0, 1000, 500], [0, 0, 1]], [-0.2, 0, 0, 0])
    assert distort_points(lens, [[1000, 500]]) == pytest.approx(np.array([[975, 500]]))
    assert undistort_points(lens, [[975, 500]]) == pytest.approx(np.array([[1000, 500]]))
    # On the diagonal, (800, 800): r^2 = 0.18, factor 1 - 0.036 = 0.964 -> 500 + 289.2.
    assert distort_points(lens, [[800, 800]]) == pytest.approx(np.array([[789.2, 789.2]]))


def test_camera_pose_recovers_where_the_camera_is() -> None:
    camera = pinhole(distortion=(-0.1, 0.02, 0, 0))
    pixels = project_table_points(camera, TILTED, REFS)
    noisy = pixels + np.random.default_rng(1).normal(0, 0.2, pixels.shape)
    pose = camera_pose(camera, noisy, REFS)
    assert pose.camera_centre_mm == pytest.approx([900, -250, 1450], abs=5.0)
    assert pose.reprojection_rms_px < 0.5


def test_camera_pose_refusals() -> None:
    camera = pinhole()
    pixels = project_table_points(camera, TILTED, REFS)
    with pytest.raises(CalibrationError, match="only 3 reference points"):
        camera_pose(camera, pixels[:3], REFS[:3])
    off = pixels.copy()
    off[0] += (40.0, 0.0)
    with pytest.raises(CalibrationError, match=r"reprojection error .* over the 3 px limit"):
        camera_pose(camera, off, REFS)
    # A mirrored picture (u -> 1919 - u, about the principal point) is what a camera under the
    # table, looking up through it, would see.
    mirrored = np.column_stack([1919 - pixels[:, 0], pixels[:, 1]])
    with pytest.raises(CalibrationError, match="under the table or behind it"):
        camera_pose(camera, mirrored, REFS)


# Straight down from 1000 mm over (900, 600), f = 1000 px: 1 px = 1 mm on the table.
# Rows of the rotation: image right = table +x, image down = table -y, view = table -z.
OVERHEAD = CameraPose(np.diag([1.0, -1.0, -1.0]), -np.diag([1.0, -1.0, -1.0]) @ [900, 600, 1000])
OVERHEAD_LENS = CameraModel.from_values(
    np.array([[1000, 0, 959.5], [0, 1000, 539.5], [0, 0, 1]]), np.zeros(4)
)


def test_height_correction_undoes_parallax_computed_by_similar_triangles() -> None:
    # A tag 5 mm up, 800 mm to the right of the point under the camera. Its ray reaches the
    # table plane 800 * 1000 / (1000 - 5) = 804.02 mm out, so the table homography puts it
    # at x = 1704.02: 4.02 mm off. The ray meets z = 5 at the true x = 1700.
    table_refs = np.array([[100, 100], [1700, 100], [1700, 1100], [100, 1100]], dtype=float)
    fit = fit_table_transform(project_table_points(OVERHEAD_LENS, OVERHEAD, table_refs), table_refs)
    seen = project_table_points(OVERHEAD_LENS, OVERHEAD, [[1700, 600, 5]])
    assert seen == pytest.approx(np.array([[959.5 + 800 * 1000 / 995, 539.5]]))
    plain = fit.image_to_table(seen)
    assert plain == pytest.approx(np.array([[900 + 800 * 1000 / 995, 600]]))
    assert plain[0, 0] - 1700 == pytest.approx(4.02, abs=0.005)
    corrected = table_point_at_height(OVERHEAD_LENS, OVERHEAD, seen, 5.0)
    assert corrected == pytest.approx(np.array([[1700, 600]]), abs=1e-3)


def test_height_correction_with_a_pose_fitted_through_a_distorting_lens() -> None:
    camera = pinhole(distortion=(-0.15, 0.03, 0, 0))
    rng = np.random.default_rng(7)
    refs_seen = project_table_points(camera, TILTED, REFS) + rng.normal(0, 0.15, (len(REFS), 2))
    pose = camera_pose(camera, refs_seen, REFS)
    raised = np.array([[100, 1100, 5], [1700, 1100, 5], [1700, 100, 5], [300, 200, 5]], float)
    seen = project_table_points(camera, TILTED, raised)
    flat = fit_table_transform(refs_seen, REFS, lens=camera)
    plain_error = np.linalg.norm(flat.image_to_table(seen) - raised[:, :2], axis=1)
    corrected = table_point_at_height(camera, pose, seen, raised[:, 2])
    corrected_error = np.linalg.norm(corrected - raised[:, :2], axis=1)
    # The camera is 1450 mm over (900, -250). Each tag is r from that point, so the table
    # homography puts it r * 5 / (1450 - 5) further out: r = hypot(800, 1350) = 1569 for the
    # two far corners (5.43 mm), hypot(800, 350) = 873 (3.02 mm), hypot(600, 450) = 750 (2.60).
    assert plain_error == pytest.approx([5.43, 5.43, 3.02, 2.60], abs=0.3)
    assert corrected_error.max() < 0.5


def test_height_at_or_above_the_camera_is_refused() -> None:
    with pytest.raises(CalibrationError, match="at or above the camera"):
        table_point_at_height(OVERHEAD_LENS, OVERHEAD, [[959.5, 539.5]], 1000.0)


# --------------------------------------------------------------------------------------------
# Corner tags


def test_tag_centre_is_where_the_diagonals_cross() -> None:
    # Diagonal 0-2 runs along y = x, diagonal 1-3 along y = 4 - x: they cross at (2, 2),
    # while the mean of the corners, (2, 1.5), is pulled towards the long near edge.
    assert tag_centre([[0, 0], [4, 0], [3, 3], [1, 3]]) == pytest.approx([2.0, 2.0])


LAYOUT = {0: (40.0, 40.0), 1: (1760.0, 40.0), 2: (1760.0, 1160.0), 3: (40.0, 1160.0)}


def seen_tags(
    layout: dict[int, tuple[float, float]],
    facings: dict[int, float],
    size: float = 60.0,
    camera: CameraModel | None = None,
    noise_px: float = 0.0,
) -> dict[int, Points]:
    """Pixels of each tag's corners, the tag turned to `facings` (degrees, 90 = upright)."""
    camera = camera or pinhole()
    rng = np.random.default_rng(11)
    seen = {}
    for tag, centre in layout.items():
        turn = math.radians(facings.get(tag, 90.0) - 90.0)
        rotation = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
        table = np.asarray(centre) + size * TAG_CORNERS @ rotation.T
        pixels = project_table_points(camera, TILTED, table)
        seen[tag] = pixels + rng.normal(0, noise_px, pixels.shape)
    return seen


def test_corner_tags_turned_any_quarter_turn_give_the_right_corner_positions() -> None:
    facings = {0: 90.0, 1: 180.0, 2: 270.0, 3: 0.0}
    refs = corner_tag_references(seen_tags(LAYOUT, facings), LAYOUT, 60.0)
    assert dict(refs.facings_deg) == facings
    # Tag 1 faces 180 degrees (its top edge towards -x): its top-left corner, (-30, +30) in
    # its own frame, turns a quarter turn anticlockwise to (-30, -30): (1730, 10) on the table.
    # Its top-right (30, 30) turns to (-30, 30): (1730, 70).
    assert refs.table_points[4] == pytest.approx([1730, 10])
    assert refs.table_points[5] == pytest.approx([1730, 70])
    # Tag 3 faces 0 degrees: top-left (-30, 30) turns clockwise to (30, 30): (70, 1190).
    assert refs.table_points[12] == pytest.approx([70, 1190])
    fit = fit_corner_tags(seen_tags(LAYOUT, facings), LAYOUT, 60.0)
    assert fit.worst_mm < 1e-3


def test_four_corner_tags_with_detection_noise_are_accepted() -> None:
    # Three tags alone fix the perspective poorly: a fit of any three, extrapolated to the
    # fourth 1.7 m away, is off by several mm with 0.2 px of corner noise. One fit of all four
    # agrees to a fraction of a millimetre, so no tag is taken for a moved one.
    layout = {0: (40.0, 40.0), 1: (1760.0, 40.0), 2: (1760.0, 1160.0), 3: (40.0, 1160.0)}
    seen = seen_tags(layout, {}, noise_px=0.2)
    fit = fit_corner_tags(seen, layout, 60.0)
    assert fit.outlier_groups == ()
    assert fit.rms_mm < 0.5


def test_fewer_than_four_corner_tags_say_which_to_uncover() -> None:
    seen = seen_tags(LAYOUT, {})
    del seen[2]
    message = (
        "only 3 corner tags seen (0, 1, 3); at least 4 are needed: check that tag 2 is "
        "uncovered and inside the picture"
    )
    with pytest.raises(CalibrationError) as caught:
        fit_corner_tags(seen, LAYOUT, 60.0)
    assert str(caught.value) == message


def test_a_game_file_with_three_corner_tags_is_refused() -> None:
    three = {tag: LAYOUT[tag] for tag in (0, 1, 2)}
    with pytest.raises(CalibrationError, match="places only 3 corner tags; at least 4"):
        fit_corner_tags(seen_tags(LAYOUT, {}), three, 60.0)


def test_a_corner_tag_laid_askew_is_refused() -> None:
    with pytest.raises(CalibrationError, match="corner tag 3 is turned 30 degrees from square"):
        fit_corner_tags(seen_tags(LAYOUT, {3: 120.0}), LAYOUT, 60.0)


# --------------------------------------------------------------------------------------------
# Lens fitted with the table

BARREL = pinhole(f=1100.0, distortion=(-0.2, 0.0, 0.0, 0.0))
# Twelve 60 mm tags along the edges of the table.
EDGE_LAYOUT = {
    i: p
    for i, p in enumerate(
        [(x, y) for x in (40.0, 620.0, 1180.0, 1760.0) for y in (40.0, 1160.0)]
        + [(x, y) for y in (420.0, 780.0) for x in (40.0, 1760.0)]
    )
}


def table_grid() -> Points:
    grid = np.stack(np.meshgrid(np.linspace(0, 1800, 19), np.linspace(0, 1200, 13)), -1)
    return grid.reshape(-1, 2)


def test_barrel_lens_defeats_a_plain_homography() -> None:
    seen = seen_tags(EDGE_LAYOUT, {}, camera=BARREL, noise_px=0.15)
    with pytest.raises(CalibrationError, match=r"no choice of moved tags.*lens"):
        fit_corner_tags(seen, EDGE_LAYOUT, 60.0, image_size=HD, fit_lens=False)


def test_lens_fit_with_twelve_edge_tags_measures_the_table_to_a_fraction_of_a_mm() -> None:
    seen = seen_tags(EDGE_LAYOUT, {}, camera=BARREL, noise_px=0.15)
    fit = fit_corner_tags(seen, EDGE_LAYOUT, 60.0, image_size=HD, table_size_mm=TABLE)
    assert fit.lens is not None and fit.outlier_groups == ()
    assert fit.median_mm < 0.4
    # Everywhere on the table, not only at the reference tags (measured: median ~0.1 mm).
    truth = table_grid()
    errors = np.linalg.norm(
        fit.image_to_table(project_table_points(BARREL, TILTED, truth)) - truth, axis=1
    )
    assert np.median(errors) < 0.3
    assert errors.max() < 1.0


def test_lens_fit_with_the_true_focal_length_finds_k1() -> None:
    # With f = 1100 px given, the model is exactly the camera's: k1 = -0.2, k2 = 0.
    refs = corner_tag_references(seen_tags(EDGE_LAYOUT, {}, camera=BARREL), EDGE_LAYOUT, 60.0)
    fit = fit_lens_and_table(refs.image_points, refs.table_points, HD, focal_px=1100.0)
    assert fit.lens is not None
    assert fit.lens.distortion[:2] == pytest.approx((-0.2, 0.0), abs=1e-4)
    assert fit.worst_mm < 1e-3


def test_lens_fit_drops_a_knocked_tag() -> None:
    seen = seen_tags(EDGE_LAYOUT, {}, camera=BARREL, noise_px=0.15)
    layout = dict(EDGE_LAYOUT)
    layout[5] = (layout[5][0] + 8.0, layout[5][1])  # the game file says 8 mm right of the truth
    fit = fit_corner_tags(seen, layout, 60.0, image_size=HD)
    assert fit.outlier_groups == (5,)
    # Its four corners (points 20-23) are each 8 mm from where the file says, give or take noise.
    assert np.mean(fit.residuals_mm[20:24]) == pytest.approx(8.0, abs=0.3)


def test_lens_fit_needs_eight_points() -> None:
    with pytest.raises(CalibrationError, match="only 7 reference points; fitting the lens"):
        fit_lens_and_table(by_hand_pixels(REFS[:7]), REFS[:7], (1000, 700))


# --------------------------------------------------------------------------------------------
# ChArUco camera calibration

SPEC = CharucoSpec()  # 7 x 5 squares of 30 mm, 22 mm DICT_4X4_50 markers
TRUE_K = np.array([[520.0, 0, 318.0], [0, 525.0, 243.0], [0, 0, 1]])
TRUE_DIST = np.array([-0.25, 0.08, 0.001, -0.0005])


def test_render_charuco_board_draws_the_board_at_scale() -> None:
    # 4 px/mm: 30 mm squares are 120 px, the 10 mm margin 40 px: 7 * 120 + 80 = 920 wide,
    # 5 * 120 + 80 = 680 high; the top-left square is black, the margin white.
    board = render_charuco_board(SPEC, px_per_mm=4.0, margin_mm=10.0)
    assert board.shape == (680, 920)
    assert board[45, 45] == 0 and board[20, 20] == 255 and board[45, 165] == 255


def board_views(
    size: tuple[int, int] = (640, 480), spec: CharucoSpec = SPEC
) -> list[NDArray[np.uint8]]:
    """Photos of the board through the TRUE_K / TRUE_DIST camera from six places.

    Each output pixel's ray (lens-corrected by OpenCV) is followed to the board plane z = 0;
    board point (X, Y) mm is at board picture pixel 40 - 0.5 + 4 (X, Y). The places are those
    that frame a 7 x 5 board of 30 mm squares, scaled to `spec`'s squares.
    """
    texture = cv2.GaussianBlur(render_charuco_board(spec, 4.0, 10.0), (0, 0), 1.0)
    width, height = size
    grid = np.stack(np.meshgrid(np.arange(width), np.arange(height)), -1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-10)
    normal = cv2.undistortPoints(grid.astype(float), TRUE_K, TRUE_DIST, criteria=criteria)
    rays = np.column_stack([normal.reshape(-1, 2), np.ones(width * height)])
    views = []
    k = spec.square_mm / 30.0
    # The board's frame has z pointing away from the camera side, so cameras sit at z < 0.
    for place in [(105, 75, -250), (260, 75, -230), (-50, 75, -230), (105, 210, -220),
                  (105, -60, -220), (230, 190, -200)]:  # fmt: skip
        pose = look_at((place[0] * k, place[1] * k, place[2] * k), (105 * k, 75 * k, 0))
        centre, directions = pose.camera_centre_mm, rays @ pose.rotation
        board_mm = centre[:2] + (-centre[2] / directions[:, 2])[:, None] * directions[:, :2]
        maps = (39.5 + 4.0 * board_mm).astype(np.float32).reshape(height, width, 2)
        view = cv2.remap(texture, maps[..., 0], maps[..., 1], cv2.INTER_LINEAR, borderValue=255)
        views.append(np.asarray(view, dtype=np.uint8))
    return views


def test_calibrate_camera_recovers_known_intrinsics() -> None:
    result = calibrate_camera(board_views(), SPEC)
    camera = result.camera
    assert result.views_used == (0, 1, 2, 3, 4, 5)
    assert camera.image_size == (640, 480)
    assert camera.fx == pytest.approx(520.0, rel=0.01)
    assert camera.fy == pytest.approx(525.0, rel=0.01)
    assert camera.cx == pytest.approx(318.0, abs=3.0)
    assert camera.cy == pytest.approx(243.0, abs=3.0)
    assert camera.distortion[0] == pytest.approx(-0.25, abs=0.02)
    assert result.rms_px < 0.5


def test_calibrate_camera_refuses_too_few_views() -> None:
    blank = np.full((480, 640), 255, dtype=np.uint8)
    views = [*board_views()[:2], blank]
    with pytest.raises(CalibrationError, match="only 2 of 3 photos show the ChArUco board"):
        calibrate_camera(views, SPEC)


def test_calibrate_camera_refuses_mixed_sizes() -> None:
    views = [*board_views()[:3], np.full((240, 320), 255, dtype=np.uint8)]
    with pytest.raises(CalibrationError, match="different sizes"):
        calibrate_camera(views, SPEC)


def test_charuco_spec_is_validated() -> None:
    with pytest.raises(CalibrationError, match="unknown ArUco dictionary 'DICT_9X9'"):
        CharucoSpec(dictionary="DICT_9X9")
    with pytest.raises(CalibrationError, match="smaller than the square size"):
        CharucoSpec(square_mm=20.0, marker_mm=25.0)


# --------------------------------------------------------------------------------------------
# Files


def test_camera_file_round_trip(tmp_path: Path) -> None:
    camera = CameraModel.from_values(TRUE_K, TRUE_DIST, (640, 480), 0.21)
    save_camera(tmp_path / "camera.json", camera)
    assert load_camera(tmp_path / "camera.json") == camera


def test_table_fit_file_round_trip_with_a_lens(tmp_path: Path) -> None:
    seen = seen_tags(EDGE_LAYOUT, {}, camera=BARREL, noise_px=0.15)
    fit = fit_corner_tags(seen, EDGE_LAYOUT, 60.0, image_size=HD)
    save_table_fit(tmp_path / "table.json", fit)
    loaded = load_table_fit(tmp_path / "table.json")
    assert isinstance(loaded, TableFit) and loaded.lens == fit.lens
    assert loaded.residuals_mm == pytest.approx(fit.residuals_mm, abs=1e-9)
    pixels = [[600.0, 500.0], [1200.0, 700.0]]
    assert loaded.image_to_table(pixels) == pytest.approx(fit.image_to_table(pixels))


GOOD_CAMERA = {"matrix": [[900, 0, 320], [0, 900, 240], [0, 0, 1]], "distortion": [0, 0, 0, 0]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "is not valid JSON \\(line 1"),
        ("[1, 2]", "must be a JSON object"),
        (json.dumps({"distortion": [0, 0, 0, 0]}), "missing key 'matrix'"),
        (json.dumps({**GOOD_CAMERA, "matrix": [[900, 0], [0, 900]]}), "'matrix' must be a 3x3"),
        (
            '{"matrix": [[NaN, 0, 320], [0, 900, 240], [0, 0, 1]], "distortion": [0, 0, 0, 0]}',
            "'matrix' must be a 3x3 list of numbers \\(finite\\)",
        ),
        (json.dumps({**GOOD_CAMERA, "distortion": [0, 0, 0]}), "'distortion' must be 4 or 5"),
        (json.dumps({**GOOD_CAMERA, "distortion": ["a", 0, 0, 0]}), "'distortion' must be 4"),
        (json.dumps({**GOOD_CAMERA, "format": "umpire-scene/1"}), "expected 'umpire-camera/1'"),
        (json.dumps({**GOOD_CAMERA, "image_size": [640.5, 480]}), "'image_size' must be two"),
    ],
)
def test_bad_camera_files_are_refused_with_the_file_and_key(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "cam.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=f"camera file '{path}'.*{message}"):
        load_camera(path)


def test_missing_camera_file(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="cannot be read: No such file"):
        load_camera(tmp_path / "nowhere.json")


def test_bad_table_fit_file(tmp_path: Path) -> None:
    path = tmp_path / "table.json"
    fit = fit_table_transform(by_hand_pixels(REFS), REFS)
    save_table_fit(path, fit)
    data = json.loads(path.read_text())
    data["inliers"] = data["inliers"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="'inliers' must be a list of 8 true/false"):
        load_table_fit(path)


def test_game_file_camera_section_uses_the_same_checks() -> None:
    camera = camera_from_dict(GOOD_CAMERA, "game.toml [camera]")
    assert (camera.fx, camera.cx, camera.cy) == (900.0, 320.0, 240.0)
    with pytest.raises(CalibrationError, match=r"game.toml \[camera\]: missing key 'distortion'"):
        camera_from_dict({"matrix": GOOD_CAMERA["matrix"]}, "game.toml [camera]")
