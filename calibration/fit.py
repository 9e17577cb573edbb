"""Calibrating from what the camera sees: corner tags, a lens fitted with the table, a ChArUco
board.

- `fit_corner_tags`: the table transform from the reference ("corner") tags of the game file.
  The reference points are all four CORNERS of every reference tag, not just its centre: four
  times the points (detection noise averages down), each tag pins the local scale and direction
  as well as its position, and a knocked tag is caught even with only four reference tags (its
  four corners disagree with the other three tags' twelve, where four centres would fit any
  four positions exactly and check nothing). Only the tags' centres are in the game file; each
  tag's quarter turn is read from the picture, so players need only lay them square to the
  table edges.
- `fit_lens_and_table`: with 8 or more reference points and no camera intrinsics, radial lens
  distortion (k1, k2 about the image centre) fitted together with the homography by
  Levenberg-Marquardt on the pixel error.
- `calibrate_camera`: intrinsics and distortion from several photos of a printed ChArUco board
  (`render_charuco_board` draws one).

Imports cv2 and numpy; never imports `rules` or `vision`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.camera import CameraModel, as_points, read_only, undistort_points
from calibration.errors import CalibrationError
from calibration.homography import (
    DEFAULT_MAX_RESIDUAL_MM,
    DEFAULT_TOLERANCE_PX,
    TableFit,
    degenerate,
    fit_table_transform,
    group_rms,
    plausible_transform,
)

MIN_CORNER_TAGS = 4
"""Reference tags needed for a table fit: with three, a moved tag could not be told apart."""

MIN_LENS_POINTS = 8
"""Reference points needed to fit the lens with the table (10 unknowns, and some to spare)."""

MIN_LENS_TAGS = 8
"""Reference tags from which `fit_corner_tags` fits the lens by itself when no intrinsics are
given: a strip of tags along the table edges shows the lens bending them."""

MAX_SKEW_DEG = 20.0
"""How far from square to the table edges a reference tag may lie and still have its corners'
table positions inferred (further, and its quarter turn is a guess)."""

# Corners of a tag in its own frame, in units of the tag size: OpenCV's order (top-left,
# top-right, bottom-right, bottom-left of the marker's picture), +y towards the tag's top edge.
_TAG_CORNERS = np.array([[-0.5, 0.5], [0.5, 0.5], [0.5, -0.5], [-0.5, -0.5]])


@dataclass(frozen=True, slots=True, eq=False)
class ReferencePoints:
    """Matched pixel and table positions, grouped by the tag they come from."""

    image_points: NDArray[np.float64]
    """(N, 2) pixels as seen (read-only)."""
    table_points: NDArray[np.float64]
    """(N, 2) table millimetres (read-only)."""
    groups: tuple[int, ...]
    """The tag id of each point."""
    facings_deg: Mapping[int, float]
    """The facing (degrees counter-clockwise from +x) each tag was taken to have."""


def tag_centre(corners: ArrayLike) -> NDArray[np.float64]:
    """The centre of a tag seen in perspective: where its diagonals cross (the mean of the four
    corners is pulled towards the nearer side)."""
    pts = as_points(corners, "tag corners")
    if pts.shape != (4, 2):
        raise CalibrationError(f"a tag has 4 corners, got {len(pts)}")
    p, r = pts[0], pts[2] - pts[0]
    q, s = pts[1], pts[3] - pts[1]
    cross = r[0] * s[1] - r[1] * s[0]
    if abs(cross) < 1e-12:
        raise CalibrationError(
            f"tag corners {pts.tolist()} are degenerate: its diagonals do not cross"
        )
    along = ((q - p)[0] * s[1] - (q - p)[1] * s[0]) / cross
    return read_only(p + along * r)


def corner_tag_references(
    seen: Mapping[int, ArrayLike],
    layout: Mapping[int, tuple[float, float]],
    tag_size_mm: float,
    *,
    facings_deg: Mapping[int, float] | None = None,
    lens: CameraModel | None = None,
) -> ReferencePoints:
    """Pixel and table positions of the four corners of every reference tag seen.

    `seen` maps tag id -> its 4 corners in pixels (OpenCV order); `layout` maps reference tag
    id -> its centre on the table (mm); tags seen but not in `layout` are ignored. A tag's
    facing is taken from `facings_deg` when given, else read from the picture through a
    homography of the tag centres and rounded to a quarter turn. With `lens`, facings are read
    from lens-corrected pixels (the points returned stay as seen).
    """
    if not (math.isfinite(tag_size_mm) and tag_size_mm > 0):
        raise CalibrationError(f"reference tag size {tag_size_mm!r} mm must be positive")
    if len(layout) < MIN_CORNER_TAGS:
        raise CalibrationError(
            f"the game file places only {len(layout)} corner tags; at least {MIN_CORNER_TAGS} "
            "are needed: list one near each corner of the table in [calibration] corners"
        )
    present = sorted(tag for tag in layout if tag in seen)
    missing = sorted(tag for tag in layout if tag not in seen)
    if len(present) < MIN_CORNER_TAGS:
        listed = ", ".join(str(t) for t in present) or "none"
        raise CalibrationError(
            f"only {len(present)} corner tags seen ({listed}); at least {MIN_CORNER_TAGS} are "
            f"needed: check that tag{'s' if len(missing) > 1 else ''} "
            f"{', '.join(str(t) for t in missing)} "
            f"{'are' if len(missing) > 1 else 'is'} uncovered and inside the picture"
        )
    corners = {tag: as_points(seen[tag], f"corners of tag {tag}") for tag in present}
    for tag, pts in corners.items():
        if pts.shape != (4, 2):
            raise CalibrationError(f"tag {tag} has {len(pts)} corners; a tag has 4")
    centres_mm = np.array([_position(layout[tag], tag) for tag in present])
    facings = dict(facings_deg or {})
    unknown = [tag for tag in present if tag not in facings]
    if unknown:
        facings.update(_read_quarter_turns(corners, present, centres_mm, unknown, lens))
    image, table, groups = [], [], []
    for tag, centre in zip(present, centres_mm, strict=True):
        turn = math.radians(facings[tag] - 90.0)  # a tag facing 90 deg is upright on the table
        rotation = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
        image.append(corners[tag])
        table.append(centre + tag_size_mm * _TAG_CORNERS @ rotation.T)
        groups.extend([tag] * 4)
    return ReferencePoints(
        read_only(np.vstack(image)),
        read_only(np.vstack(table)),
        tuple(groups),
        MappingProxyType(facings),
    )


def fit_corner_tags(
    seen: Mapping[int, ArrayLike],
    layout: Mapping[int, tuple[float, float]],
    tag_size_mm: float,
    *,
    image_size: tuple[int, int] | None = None,
    table_size_mm: tuple[float, float] | None = None,
    max_residual_mm: float = DEFAULT_MAX_RESIDUAL_MM,
    lens: CameraModel | None = None,
    fit_lens: bool | None = None,
    facings_deg: Mapping[int, float] | None = None,
    tolerance_px: float = DEFAULT_TOLERANCE_PX,
) -> TableFit:
    """The table fit from the reference tags seen, or a CalibrationError saying what to fix.

    Each reference tag's tolerance is `tolerance_px` pixels where it lies, or `max_residual_mm`
    if larger (`fit_table_transform`). With `lens` (known intrinsics) pixels are lens-corrected
    first. Without, and with
    `fit_lens` True, or None and 8+ reference tags seen, the lens is fitted along with the
    table (`fit_lens_and_table`; needs `image_size`).
    """
    refs = corner_tag_references(seen, layout, tag_size_mm, facings_deg=facings_deg, lens=lens)
    tags_seen = len(set(refs.groups))
    if fit_lens is None:
        fit_lens = lens is None and tags_seen >= MIN_LENS_TAGS and image_size is not None
    if fit_lens:
        if lens is not None:
            raise CalibrationError("give either known intrinsics (lens) or fit_lens, not both")
        if image_size is None:
            raise CalibrationError("fitting the lens needs the image size (width, height)")
        return fit_lens_and_table(
            refs.image_points,
            refs.table_points,
            image_size,
            groups=refs.groups,
            max_residual_mm=max_residual_mm,
            table_size_mm=table_size_mm,
        )
    return fit_table_transform(
        refs.image_points,
        refs.table_points,
        groups=refs.groups,
        max_residual_mm=max_residual_mm,
        image_size=image_size,
        table_size_mm=table_size_mm,
        lens=lens,
        tolerance_px=tolerance_px,
    )


def _position(value: object, tag: int) -> NDArray[np.float64]:
    try:
        position = np.array(value, dtype=float)
    except (TypeError, ValueError):
        position = np.array([])
    if position.shape != (2,) or not np.all(np.isfinite(position)):
        raise CalibrationError(f"corner tag {tag} position {value!r} must be a finite (x, y)")
    return position


def _read_quarter_turns(
    corners: Mapping[int, NDArray[np.float64]],
    present: Sequence[int],
    centres_mm: NDArray[np.float64],
    unknown: Sequence[int],
    lens: CameraModel | None,
) -> dict[int, float]:
    """Each tag's facing on the table, to the nearest quarter turn, from the picture."""
    pixels = {
        tag: (pts if lens is None else undistort_points(lens, pts)) for tag, pts in corners.items()
    }
    centres_px = np.array([tag_centre(pixels[tag]) for tag in present])
    if degenerate(centres_px, centres_mm):
        raise CalibrationError(
            f"corner tags {', '.join(str(t) for t in present)} lie on one line: place them near "
            "at least 4 corners of the table"
        )
    matrix, _ = cv2.findHomography(centres_px, centres_mm, 0)
    if matrix is None:
        raise CalibrationError("the corner tag centres do not fit the layout in the game file")
    facings = {}
    for tag in unknown:
        top_mid = (pixels[tag][0] + pixels[tag][1]) / 2
        ends = cv2.perspectiveTransform(np.array([[tag_centre(pixels[tag]), top_mid]]), matrix)[0]
        direction = ends[1] - ends[0]
        angle = math.degrees(math.atan2(direction[1], direction[0]))
        square = 90.0 * round(angle / 90.0)
        if abs(angle - square) > MAX_SKEW_DEG:
            raise CalibrationError(
                f"corner tag {tag} is turned {abs(angle - square):.0f} degrees from square to "
                "the table edges: lay the corner tags square to the edges (any quarter turn)"
            )
        facings[tag] = square % 360.0
    return facings


def fit_lens_and_table(
    image_points: ArrayLike,
    table_points: ArrayLike,
    image_size: tuple[int, int],
    *,
    groups: Sequence[int] | None = None,
    max_residual_mm: float = DEFAULT_MAX_RESIDUAL_MM,
    table_size_mm: tuple[float, float] | None = None,
    focal_px: float | None = None,
) -> TableFit:
    """The table transform and radial lens distortion (k1, k2), fitted together.

    The model: a table point goes through a homography to an ideal pixel p, then the lens moves
    it radially about the image centre c: ``c + (p - c)(1 + k1 r^2 + k2 r^4)`` with
    ``r = |p - c| / f``. The focal length f only sets the unit of k1 and k2 (they scale as f^2
    and f^4) and is not a measurement: it defaults to the image width (about a 53 degree
    horizontal field of view), or `focal_px` when the real one is known. Fitted by
    Levenberg-Marquardt on the pixel error; the groups (tags) with the worst RMS residual over
    `max_residual_mm` are dropped one at a time while at least 8 points and three quarters of
    the groups remain. The result is a `TableFit` whose `lens` undistorts before the
    homography; residuals are table millimetres measured that way.
    """
    seen = as_points(image_points, "image points")
    true = as_points(table_points, "table points")
    if len(seen) != len(true):
        raise CalibrationError(
            f"{len(seen)} image points but {len(true)} table points: give one table position "
            "per image point"
        )
    if len(seen) < MIN_LENS_POINTS:
        raise CalibrationError(
            f"only {len(seen)} reference points; fitting the lens needs at least "
            f"{MIN_LENS_POINTS} (use a strip of reference tags along the table edges)"
        )
    width, height = _image_size(image_size)
    focal = float(width if focal_px is None else focal_px)
    if not (math.isfinite(focal) and focal > 0):
        raise CalibrationError(f"focal length {focal_px!r} px must be positive")
    if degenerate(seen, true):
        raise CalibrationError(
            "the reference points lie on one line (or repeat): spread reference tags along "
            "at least two edges of the table"
        )
    labels = np.arange(len(seen)) if groups is None else np.array(groups, dtype=int)
    if labels.shape != (len(seen),):
        raise CalibrationError(f"groups must give one label per point, got {len(labels)}")
    intrinsics = np.array(
        [[focal, 0.0, (width - 1) / 2], [0.0, focal, (height - 1) / 2], [0, 0, 1]]
    )

    inliers = np.ones(len(seen), dtype=bool)
    all_groups = len(np.unique(labels))
    while True:
        lens, matrix = _fit_lens(seen[inliers], true[inliers], intrinsics, (width, height))
        residuals = _lens_residuals(lens, matrix, seen, true)
        names, rms = group_rms(residuals, labels)
        rms[~np.isin(names, labels[inliers])] = 0.0  # dropped already
        if rms.max() <= max_residual_mm:
            break
        worst = int(names[np.argmax(rms)])
        remaining = inliers & (labels != worst)
        if (
            remaining.sum() < MIN_LENS_POINTS
            or len(np.unique(labels[remaining])) < 0.75 * all_groups
        ):
            raise CalibrationError(
                f"after fitting the lens, reference {worst} is still "
                f"{rms.max():.1f} mm off (limit {max_residual_mm:g} mm) "
                "and too few references agree: check the reference positions in the game file"
            )
        inliers = remaining
    transform = plausible_transform(
        np.asarray(np.linalg.inv(matrix), dtype=np.float64),
        undistort_points(lens, seen[inliers]),
        true,
        (width, height),
        table_size_mm,
    )
    return TableFit(transform, seen, true, residuals, inliers, tuple(labels), max_residual_mm, lens)


def _image_size(image_size: object) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in image_size)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise CalibrationError(f"image size {image_size!r} must be (width, height)") from None
    if width <= 0 or height <= 0:
        raise CalibrationError(f"image size {image_size!r} must be positive")
    return width, height


def _fit_lens(
    seen: NDArray[np.float64],
    true: NDArray[np.float64],
    intrinsics: NDArray[np.float64],
    image_size: tuple[int, int],
) -> tuple[CameraModel, NDArray[np.float64]]:
    """Levenberg-Marquardt over (homography, k1, k2); returns the lens and table->pixel matrix."""
    focal, cx, cy = intrinsics[0, 0], intrinsics[0, 2], intrinsics[1, 2]
    observed = (seen - (cx, cy)) / focal  # normalised image coordinates
    centre = true.mean(axis=0)
    scale = math.sqrt(2) / np.mean(np.linalg.norm(true - centre, axis=1))
    table_n = (true - centre) * scale
    start, _ = cv2.findHomography(table_n, observed, 0)
    if start is None:
        raise CalibrationError("no homography fits the reference points")
    params = np.concatenate([(start / start[2, 2]).ravel()[:8], [0.0, 0.0]])

    def residual(p: NDArray[np.float64]) -> NDArray[np.float64]:
        matrix = np.append(p[:8], 1.0).reshape(3, 3)
        mapped = np.column_stack([table_n, np.ones(len(table_n))]) @ matrix.T
        ideal = mapped[:, :2] / mapped[:, 2:]
        r2 = np.sum(ideal**2, axis=1, keepdims=True)
        return ((ideal * (1 + p[8] * r2 + p[9] * r2**2)) - observed).ravel()

    params = _levenberg_marquardt(residual, params)
    if not np.all(np.isfinite(params)):
        raise CalibrationError("the lens fit diverged: check the reference positions")
    normalise = np.array(
        [[scale, 0, -scale * centre[0]], [0, scale, -scale * centre[1]], [0, 0, 1]]
    )
    table_to_pixel = intrinsics @ np.append(params[:8], 1.0).reshape(3, 3) @ normalise
    k1, k2 = float(params[8]), float(params[9])
    corner_r2 = ((image_size[0] / 2) ** 2 + (image_size[1] / 2) ** 2) / focal**2
    r2 = np.linspace(0.0, corner_r2, 64)
    # The lens must not fold the picture: radius out grows with radius in, up to the corners.
    if np.any(1 + 3 * k1 * r2 + 5 * k2 * r2**2 <= 0):
        raise CalibrationError(
            f"the fitted lens (k1 = {k1:.3g}, k2 = {k2:.3g}) folds the picture before its "
            "corners: the reference points cannot be right; check their positions"
        )
    lens = CameraModel.from_values(intrinsics, [k1, k2, 0.0, 0.0], image_size)
    return lens, table_to_pixel


def _lens_residuals(
    lens: CameraModel,
    table_to_pixel: NDArray[np.float64],
    seen: NDArray[np.float64],
    true: NDArray[np.float64],
) -> NDArray[np.float64]:
    ideal = undistort_points(lens, seen)
    mapped = np.column_stack([ideal, np.ones(len(ideal))]) @ np.linalg.inv(table_to_pixel).T
    return np.linalg.norm(mapped[:, :2] / mapped[:, 2:] - true, axis=1)


def _levenberg_marquardt(
    residual: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    params: NDArray[np.float64],
    iterations: int = 100,
) -> NDArray[np.float64]:
    """Minimise |residual(params)|^2 (numeric Jacobian: a dozen parameters at most)."""
    current = residual(params)
    cost = float(current @ current)
    damping = 1e-3
    for _ in range(iterations):
        steps = 1e-7 * np.maximum(1.0, np.abs(params))
        jacobian = np.column_stack(
            [
                (residual(params + np.eye(len(params))[i] * steps[i]) - current) / steps[i]
                for i in range(len(params))
            ]
        )
        normal = jacobian.T @ jacobian
        gradient = jacobian.T @ current
        improved = False
        while damping < 1e12:
            step = np.linalg.solve(normal + damping * np.diag(np.diag(normal) + 1e-12), -gradient)
            trial = params + step
            trial_residual = residual(trial)
            trial_cost = float(trial_residual @ trial_residual)
            if np.isfinite(trial_cost) and trial_cost < cost:
                improved = cost - trial_cost > 1e-15 * cost
                params, current, cost = trial, trial_residual, trial_cost
                damping = max(damping / 10, 1e-12)
                break
            damping *= 10
        if not improved:
            break
    return params


@dataclass(frozen=True, slots=True)
class CharucoSpec:
    """A printed ChArUco board: a chessboard whose white squares carry ArUco markers."""

    squares_x: int = 7
    """Squares along the board's width."""
    squares_y: int = 5
    """Squares along the board's height."""
    square_mm: float = 30.0
    """Side of one chessboard square as printed, mm."""
    marker_mm: float = 22.0
    """Side of the ArUco marker inside a white square, mm (smaller than `square_mm`)."""
    dictionary: str = "DICT_4X4_50"
    """OpenCV ArUco dictionary name of the markers."""

    def __post_init__(self) -> None:
        if not (
            isinstance(self.squares_x, int)
            and isinstance(self.squares_y, int)
            and self.squares_x >= 2
            and self.squares_y >= 2
        ):
            raise CalibrationError(
                f"a ChArUco board needs at least 2 x 2 squares, got "
                f"{self.squares_x!r} x {self.squares_y!r}"
            )
        if not (0 < self.marker_mm < self.square_mm and math.isfinite(self.square_mm)):
            raise CalibrationError(
                f"ChArUco marker size {self.marker_mm!r} mm must be positive and smaller than "
                f"the square size {self.square_mm!r} mm"
            )
        size = _dictionary(self.dictionary).bytesList.shape[0]
        if self.squares_x * self.squares_y // 2 > size:
            raise CalibrationError(
                f"a {self.squares_x} x {self.squares_y} ChArUco board needs "
                f"{self.squares_x * self.squares_y // 2} markers; {self.dictionary} has {size}"
            )


@dataclass(frozen=True, slots=True)
class BoardCalibration:
    """Camera intrinsics from photos of a ChArUco board, and which photos were used."""

    camera: CameraModel
    """The fitted camera (its `reprojection_error_px` is the RMS over all corners used)."""
    views_used: tuple[int, ...]
    """Indices of the photos that showed enough of the board to be used."""
    corners_per_view: tuple[int, ...]
    """Chessboard corners found in each photo given (0 where the board was not found)."""

    @property
    def rms_px(self) -> float:
        """RMS reprojection error of the board corners, pixels."""
        return float(self.camera.reprojection_error_px or 0.0)


def charuco_board(spec: CharucoSpec) -> cv2.aruco.CharucoBoard:
    """The OpenCV board object of `spec` (object points in mm, origin at the top-left corner of
    the board's picture, x right, y down the picture, z = 0)."""
    return cv2.aruco.CharucoBoard(
        (spec.squares_x, spec.squares_y),
        float(spec.square_mm),
        float(spec.marker_mm),
        _dictionary(spec.dictionary),
    )


def render_charuco_board(
    spec: CharucoSpec, px_per_mm: float = 4.0, margin_mm: float = 10.0
) -> NDArray[np.uint8]:
    """The board as a white-margined greyscale picture for printing or synthetic views.

    Squares are ``round(square_mm * px_per_mm)`` pixels and the margin
    ``round(margin_mm * px_per_mm)``; board point (X, Y) mm is at pixel
    ``margin - 0.5 + (X, Y) * square_px / square_mm`` (pixel centres at whole numbers).
    """
    if not (math.isfinite(px_per_mm) and px_per_mm > 0 and margin_mm >= 0):
        raise CalibrationError(
            f"board picture scale {px_per_mm!r} px/mm must be positive and margin "
            f"{margin_mm!r} mm not negative"
        )
    square_px = round(spec.square_mm * px_per_mm)
    margin_px = round(margin_mm * px_per_mm)
    if square_px < 8:
        raise CalibrationError(
            f"{px_per_mm:g} px/mm draws {spec.square_mm:g} mm squares {square_px} px wide; "
            "at least 8 are needed for the markers to be drawn"
        )
    size = (spec.squares_x * square_px + 2 * margin_px, spec.squares_y * square_px + 2 * margin_px)
    image = charuco_board(spec).generateImage(size, marginSize=margin_px)
    return np.asarray(image, dtype=np.uint8)


def calibrate_camera(
    views: Sequence[ArrayLike],
    spec: CharucoSpec | None = None,
    *,
    min_views: int = 3,
    min_corners: int = 8,
    max_rms_px: float = 1.0,
) -> BoardCalibration:
    """Intrinsics and distortion (k1, k2, p1, p2) from several photos of a ChArUco board.

    Photos where fewer than `min_corners` chessboard corners are found are skipped. Refuses
    fewer than `min_views` usable photos, photos of different sizes, and a fit whose RMS
    reprojection error is over `max_rms_px` (blurred photos, a board that is not flat, or
    photos from different cameras) or whose intrinsics are implausible.
    """
    spec = spec or CharucoSpec()
    board = charuco_board(spec)
    detector = cv2.aruco.CharucoDetector(board)
    sizes = set()
    object_points, image_points, used, counts = [], [], [], []
    for index, view in enumerate(views):
        image = _grey(view, index)
        sizes.add((image.shape[1], image.shape[0]))
        corners, ids, _, _ = detector.detectBoard(image)
        found = 0 if ids is None else len(ids)
        counts.append(found)
        if found < min_corners:
            continue
        # The stubs type only the ArUco-board form (a list of marker corners); ChArUco corners
        # are one (N, 1, 2) array, which OpenCV accepts.
        objects, pixels = board.matchImagePoints(corners, ids)  # type: ignore[call-overload]
        if objects is None or len(objects) < min_corners:
            continue
        object_points.append(np.asarray(objects, dtype=np.float32).reshape(-1, 1, 3))
        image_points.append(np.asarray(pixels, dtype=np.float32).reshape(-1, 1, 2))
        used.append(index)
    if len(sizes) > 1:
        raise CalibrationError(
            f"the calibration photos have different sizes {sorted(sizes)}: take them all with "
            "the same camera at the same resolution"
        )
    if len(used) < min_views:
        raise CalibrationError(
            f"only {len(used)} of {len(counts)} photos show the ChArUco board clearly (at least "
            f"{min_corners} corners each); at least {min_views} are needed: photograph the "
            "whole board, sharp and well lit, from several angles"
        )
    (width, height) = sizes.pop()
    flags = cv2.CALIB_FIX_K3
    rms, matrix, distortion, _, _ = cv2.calibrateCamera(
        object_points, image_points, (width, height), None, None, flags=flags
    )
    coefficients = np.asarray(distortion, dtype=float).ravel()[:4]
    if not (
        math.isfinite(rms) and np.all(np.isfinite(matrix)) and np.all(np.isfinite(coefficients))
    ):
        raise CalibrationError("the camera calibration came out as NaN: retake the photos")
    if rms > max_rms_px:
        raise CalibrationError(
            f"camera calibration reprojection error {rms:.2f} px is over the {max_rms_px:g} px "
            "limit: retake the photos sharp, with the board flat, all from the same camera"
        )
    camera = CameraModel.from_values(matrix, coefficients, (width, height), rms)
    return BoardCalibration(camera, tuple(used), tuple(counts))


def _grey(view: ArrayLike, index: int) -> NDArray[np.uint8]:
    image = np.asarray(view)
    if image.dtype != np.uint8 or image.ndim not in (2, 3):
        raise CalibrationError(
            f"calibration photo {index} must be an 8-bit greyscale or BGR image, got "
            f"{image.dtype} of shape {image.shape}"
        )
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return np.asarray(image, dtype=np.uint8)


def _dictionary(name: str) -> cv2.aruco.Dictionary:
    known = sorted(n for n in dir(cv2.aruco) if n.startswith("DICT_"))
    if name not in known:
        raise CalibrationError(
            f"unknown ArUco dictionary {name!r}: accepted are {', '.join(known)}"
        )
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
