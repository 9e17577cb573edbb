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
from dataclasses import dataclass, field
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
    legacy: bool = False
    """OpenCV's layout before 4.6 (and most boards printed from older tools): for an even number
    of rows the chessboard starts with a white square at the top left, not a black one."""

    def describe(self) -> str:
        """The board in words, as the command line's flags name it."""
        return f"{self.squares_x}x{self.squares_y} ChArUco board of {self.dictionary} markers" + (
            " (legacy layout)" if self.legacy else ""
        )

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
class AprilGridSpec:
    """A printed Kalibr aprilgrid: `tags_x` x `tags_y` AprilTags with a 2-cell black border,
    `spacing` times the tag size apart. Tag 0 is at the bottom left of the board as printed,
    ids running along each row, rows upwards, each tag turned half a turn from OpenCV's picture
    of it (Kalibr's layout, as its photos show it)."""

    tags_x: int = 6
    """Tags along the board's width (Kalibr's tagCols)."""
    tags_y: int = 6
    """Tags along its height (tagRows)."""
    tag_mm: float = 88.0
    """Side of one tag's black square, mm (tagSize)."""
    spacing: float = 0.3
    """Gap between tags over the tag size (tagSpacing)."""
    dictionary: str = "DICT_APRILTAG_36h11"
    """OpenCV dictionary name of the tags (tag36h11 is `DICT_APRILTAG_36h11`)."""

    def describe(self) -> str:
        """The board in words, as the command line's flags name it."""
        return f"{self.tags_x}x{self.tags_y} aprilgrid of {self.dictionary} tags"

    def __post_init__(self) -> None:
        if not (
            isinstance(self.tags_x, int)
            and isinstance(self.tags_y, int)
            and self.tags_x >= 1
            and self.tags_y >= 1
            and self.tags_x * self.tags_y >= 2
        ):
            raise CalibrationError(
                f"an aprilgrid needs at least 2 tags, got {self.tags_x!r} x {self.tags_y!r}"
            )
        if not (math.isfinite(self.tag_mm) and self.tag_mm > 0):
            raise CalibrationError(f"aprilgrid tag size {self.tag_mm!r} mm must be positive")
        if not (math.isfinite(self.spacing) and self.spacing >= 0):
            raise CalibrationError(f"aprilgrid spacing {self.spacing!r} must be 0 or more")
        size = _dictionary(self.dictionary).bytesList.shape[0]
        if self.tags_x * self.tags_y > size:
            raise CalibrationError(
                f"a {self.tags_x} x {self.tags_y} aprilgrid needs {self.tags_x * self.tags_y} "
                f"tags; {self.dictionary} has {size}"
            )

    def object_corners(self, tag: int) -> NDArray[np.float64]:
        """(4, 3) board millimetres of the tag's corners (OpenCV's order: top-left, top-right,
        bottom-right, bottom-left of its picture), origin at the top-left of the grid, x right,
        y down the board as printed, z = 0."""
        pitch = self.tag_mm * (1 + self.spacing)
        col, row = tag % self.tags_x, self.tags_y - 1 - tag // self.tags_x
        x0, y0, side = col * pitch, row * pitch, self.tag_mm
        # Kalibr draws each tag turned half a turn from OpenCV's picture of the same id (read off
        # real aprilgrid photos): the picture's top-left corner is the tag's bottom right.
        return np.array(
            [[x0 + side, y0 + side, 0], [x0, y0 + side, 0], [x0, y0, 0], [x0 + side, y0, 0]],
            dtype=float,
        )


def render_aprilgrid(
    spec: AprilGridSpec, px_per_mm: float = 4.0, margin_mm: float = 10.0
) -> NDArray[np.uint8]:
    """The aprilgrid as a white-margined greyscale picture: board point (X, Y) mm is at pixel
    ``margin - 0.5 + (X, Y) * px_per_mm`` (tags drawn whole pixels wide: choose a scale that
    makes the tag and the gap whole pixels)."""
    side = round(spec.tag_mm * px_per_mm)
    pitch = round(spec.tag_mm * (1 + spec.spacing) * px_per_mm)
    margin = round(margin_mm * px_per_mm)
    if side < 16:
        raise CalibrationError(f"{px_per_mm:g} px/mm draws the tags {side} px wide; 16 needed")
    width = 2 * margin + (spec.tags_x - 1) * pitch + side
    height = 2 * margin + (spec.tags_y - 1) * pitch + side
    image = np.full((height, width), 255, dtype=np.uint8)
    dictionary = _dictionary(spec.dictionary)
    for tag in range(spec.tags_x * spec.tags_y):
        col, row = tag % spec.tags_x, spec.tags_y - 1 - tag // spec.tags_x
        marker = np.rot90(cv2.aruco.generateImageMarker(dictionary, tag, side, borderBits=2), 2)
        y, x = margin + row * pitch, margin + col * pitch
        image[y : y + side, x : x + side] = marker
    return image


Board = CharucoSpec | AprilGridSpec
"""A calibration board as printed."""

REFUSE_SPREAD = 0.05
"""A calibration whose focal length is uncertain by more than this fraction (one standard
deviation), or its principal point by more than this fraction of the picture's width, is
refused: the views do not pin the camera down."""

WARN_SPREAD = 0.01
"""Above this fraction (1%) it is kept with a warning and the views to add."""


@dataclass(frozen=True, slots=True)
class BoardCalibration:
    """Camera intrinsics from photos of a calibration board, and which photos were used."""

    camera: CameraModel
    """The fitted camera (its `reprojection_error_px` is the RMS over all corners used)."""
    views_used: tuple[int, ...]
    """Indices of the photos that showed enough of the board to be used."""
    corners_per_view: tuple[int, ...]
    """Board corners found in each photo given (0 where the board was not found)."""
    std_px: Mapping[str, float] = field(default_factory=dict)
    """One standard deviation of each parameter as OpenCV estimates it (`fx`, `fy`, `cx`, `cy`
    in pixels; `k1`, `k2`, `p1`, `p2` unitless)."""
    warnings: tuple[str, ...] = ()
    """What is poorly determined, and which views to add."""
    coverage: BoardCoverage | None = None
    """Where in the picture the board's corners were seen, and at which tilts."""

    @property
    def rms_px(self) -> float:
        """RMS reprojection error of the board corners, pixels."""
        return float(self.camera.reprojection_error_px or 0.0)


def charuco_board(spec: CharucoSpec) -> cv2.aruco.CharucoBoard:
    """The OpenCV board object of `spec` (object points in mm, origin at the top-left corner of
    the board's picture, x right, y down the picture, z = 0)."""
    board = cv2.aruco.CharucoBoard(
        (spec.squares_x, spec.squares_y),
        float(spec.square_mm),
        float(spec.marker_mm),
        _dictionary(spec.dictionary),
    )
    board.setLegacyPattern(bool(spec.legacy))
    return board


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


@dataclass(frozen=True, slots=True, eq=False)
class BoardView:
    """The board corners found in one photo: what a calibration is fitted to."""

    object_points: NDArray[np.float64]
    """(N, 3) board millimetres of the corners found (read-only)."""
    image_points: NDArray[np.float64]
    """(N, 2) their pixels (read-only)."""
    image_size: tuple[int, int]
    """(width, height) of the photo, pixels."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "object_points", read_only(np.array(self.object_points, float)))
        object.__setattr__(self, "image_points", read_only(np.array(self.image_points, float)))

    @property
    def corners(self) -> int:
        """How many board corners were found."""
        return len(self.object_points)


def board_view(view: ArrayLike, spec: Board, index: int = 0) -> BoardView:
    """The board corners one photo shows (`index` names the photo in error messages)."""
    image = _grey(view, index)
    objects, pixels = board_points(image, spec)
    return BoardView(objects, pixels, (image.shape[1], image.shape[0]))


def calibrate_camera(
    views: Sequence[ArrayLike],
    spec: Board | None = None,
    *,
    min_views: int = 3,
    min_corners: int = 8,
    max_rms_px: float = 1.0,
) -> BoardCalibration:
    """Intrinsics and distortion (k1, k2, p1, p2) from several photos of a calibration board
    (a ChArUco board, default the one `umpire tags --charuco` prints, or a Kalibr aprilgrid).

    Photos where fewer than `min_corners` board corners are found are skipped. Refuses fewer
    than `min_views` usable photos (saying which board the photos show when it is not `spec`),
    photos of different sizes, a fit whose RMS reprojection error is over `max_rms_px` (blurred
    photos, a board that is not flat, or photos from different cameras), and one whose focal
    length or principal point OpenCV's own uncertainty leaves undetermined (more than
    `REFUSE_SPREAD`); warns above `WARN_SPREAD`. Refusals and warnings say which views to add.
    """
    spec = spec or CharucoSpec()
    greys = [_grey(view, index) for index, view in enumerate(views)]
    found = [board_view(image, spec, index) for index, image in enumerate(greys)]
    usable = [view.corners >= min_corners for view in found]
    if sum(usable) < min_views and len({view.image_size for view in found}) <= 1:
        seen = identify_board(greys, spec) if greys else ""
        if seen:
            raise CalibrationError(
                f"only {sum(usable)} of {len(found)} photos show the {spec.describe()}, but "
                f"they show {seen}"
            )
    return calibrate_views(
        found, spec, min_views=min_views, min_corners=min_corners, max_rms_px=max_rms_px
    )


def calibrate_views(
    views: Sequence[BoardView],
    spec: Board,
    *,
    min_views: int = 3,
    min_corners: int = 8,
    max_rms_px: float = 1.0,
) -> BoardCalibration:
    """`calibrate_camera` from board corners already found (one `BoardView` a photo): the
    calibration page finds each view's corners once, when it is captured, and fits again as
    views are added. Refuses and warns as `calibrate_camera` does."""
    sizes = {view.image_size for view in views}
    if len(sizes) > 1:
        raise CalibrationError(
            f"the calibration photos have different sizes {sorted(sizes)}: take them all with "
            "the same camera at the same resolution"
        )
    used = [index for index, view in enumerate(views) if view.corners >= min_corners]
    counts = tuple(view.corners for view in views)
    if len(used) < min_views:
        raise CalibrationError(
            f"only {len(used)} of {len(views)} photos show the {_kind(spec)} clearly (at least "
            f"{min_corners} corners each); at least {min_views} are needed: photograph the "
            "whole board, sharp and well lit, from several angles"
        )
    object_points = [
        np.asarray(views[i].object_points, dtype=np.float32).reshape(-1, 1, 3) for i in used
    ]
    image_points = [
        np.asarray(views[i].image_points, dtype=np.float32).reshape(-1, 1, 2) for i in used
    ]
    (width, height) = sizes.pop()
    flags = cv2.CALIB_FIX_K3
    # The stubs want arrays for the camera matrix and coefficients to start from; None (no
    # guess) is what OpenCV takes.
    rms, matrix, distortion, rvecs, _, std_intrinsics, _, _ = cv2.calibrateCameraExtended(  # type: ignore[call-overload]
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
    deviations = np.asarray(std_intrinsics, dtype=float).ravel()
    names = ("fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2")
    std = dict(zip(names, deviations[:8].tolist(), strict=True))
    camera = CameraModel.from_values(matrix, coefficients, (width, height), rms)
    seen = board_coverage(image_points, rvecs, (width, height))
    focal = max(std["fx"] / camera.fx, std["fy"] / camera.fy)
    centre = max(std["cx"], std["cy"]) / width
    worst = max(focal, centre)
    warnings: list[str] = []
    if worst > WARN_SPREAD or not math.isfinite(worst):
        advice = seen.advice()
        found = (
            f"fx {camera.fx:.0f} +- {std['fx']:.0f}, fy {camera.fy:.0f} +- {std['fy']:.0f}, "
            f"centre ({camera.cx:.0f} +- {std['cx']:.0f}, {camera.cy:.0f} +- {std['cy']:.0f}) px"
        )
        if worst > REFUSE_SPREAD or not math.isfinite(worst):
            raise CalibrationError(
                f"the photos do not pin the camera down: {found} (reprojection error "
                f"{rms:.2f} px); {advice}"
            )
        warnings.append(f"the camera is only loosely determined: {found}; {advice}")
    return BoardCalibration(
        camera, tuple(used), counts, MappingProxyType(std), tuple(warnings), seen
    )


def board_points(
    image: NDArray[np.uint8], spec: Board
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(N, 3) board millimetres and (N, 2) pixels of the board corners found in one photo."""
    if isinstance(spec, AprilGridSpec):
        detector = cv2.aruco.ArucoDetector(_dictionary(spec.dictionary), _aprilgrid_params())
        corners, ids, _ = detector.detectMarkers(image)
        objects, pixels = [], []
        for quad, tag in zip(corners, [] if ids is None else ids.ravel(), strict=False):
            if 0 <= int(tag) < spec.tags_x * spec.tags_y:
                objects.append(spec.object_corners(int(tag)))
                pixels.append(np.asarray(quad, dtype=float).reshape(4, 2))
        if not objects:
            return np.zeros((0, 3)), np.zeros((0, 2))
        return np.vstack(objects), np.vstack(pixels)
    board = charuco_board(spec)
    charuco, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(image)
    if ids is None or len(ids) == 0:
        return np.zeros((0, 3)), np.zeros((0, 2))
    # The stubs type only the ArUco-board form (a list of marker corners); ChArUco corners
    # are one (N, 1, 2) array, which OpenCV accepts.
    objects, pixels = board.matchImagePoints(charuco, ids)  # type: ignore[call-overload]
    if objects is None:
        return np.zeros((0, 3)), np.zeros((0, 2))
    return np.asarray(objects, dtype=float).reshape(-1, 3), np.asarray(pixels, dtype=float).reshape(
        -1, 2
    )


def _aprilgrid_params() -> cv2.aruco.DetectorParameters:
    # AprilTag's own corner refinement: on three phone photos of an aprilgrid it fits them to
    # 0.30 px RMS, where sub-pixel corners give 1.9 px and contour fitting 1.4 px.
    params = cv2.aruco.DetectorParameters()
    params.markerBorderBits = 2
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_APRILTAG
    return params


def _kind(spec: Board) -> str:
    return "aprilgrid" if isinstance(spec, AprilGridSpec) else "ChArUco board"


_CANDIDATES = (
    "DICT_4X4_1000",
    "DICT_5X5_1000",
    "DICT_6X6_1000",
    "DICT_7X7_1000",
    "DICT_ARUCO_ORIGINAL",
    "DICT_APRILTAG_36h11",
    "DICT_APRILTAG_25h9",
    "DICT_APRILTAG_16h5",
)


def identify_board(views: Sequence[NDArray[np.uint8]], named: Board) -> str:
    """Which board the photos show, in words with the flags to give, when markers of another
    dictionary, border or layout are found in them; "" when none is recognised."""
    sample = list(views[:4])

    def markers(name: str, border: int) -> tuple[int, list[int]]:
        params = cv2.aruco.DetectorParameters()
        params.markerBorderBits = border
        detector = cv2.aruco.ArucoDetector(_dictionary(name), params)
        ids: list[int] = []
        counts = []
        for image in sample:
            _, found, _ = detector.detectMarkers(image)
            got = [] if found is None else [int(v) for v in found.ravel()]
            counts.append(len(got))
            ids.extend(got)
        return (int(np.median(counts)) if counts else 0), sorted(set(ids))

    # The named board's own markers, as many as any other's: the board is the one named (some
    # photos are poor, or its corners were not found), so nothing else to say.
    # (Its first markers are those of the larger dictionaries of the same bits: an 8x8 board of
    # DICT_4X4_1000 shows DICT_4X4_50's ids 0-31, so then only the layout tells them apart.)
    own_border = 2 if isinstance(named, AprilGridSpec) else 1
    own, own_ids = markers(named.dictionary, own_border)
    best: tuple[int, str, int, list[int]] = (own, named.dictionary, own_border, own_ids)
    for name in _CANDIDATES:
        for border in (1, 2):
            score, ids = markers(name, border)
            if score > best[0]:
                best = (score, name, border, ids)
    score, name, border, ids = best
    same = name == named.dictionary and border == own_border
    if score < 4 or (same and not isinstance(named, CharucoSpec)):
        return ""
    top = max(ids)
    if border == 2:
        side = math.isqrt(top + 1)
        grid = f"{side}x{side}" if side * side == top + 1 else f"CxR with C*R = {top + 1}"
        family = name.replace("DICT_APRILTAG_", "tag")
        return (
            f"a Kalibr aprilgrid ({family} tags with a 2-cell border, ids 0-{top}): give "
            f"--board aprilgrid --squares {grid} --square-size TAG_MM"
            + ("" if family == "tag36h11" else f" --dictionary {name}")
        )
    if isinstance(named, CharucoSpec):
        # Another layout must find more corners than the named board does, not as many.
        floor = max(8.0, float(np.median([len(board_points(im, named)[0]) for im in sample])) + 1)
        for shape in _charuco_shapes(top + 1):
            # The legacy layout differs only when the number of rows is even.
            for legacy in (False, True) if shape[1] % 2 == 0 else (False,):
                candidate = CharucoSpec(
                    shape[0], shape[1], named.square_mm, named.marker_mm, name, legacy
                )
                if candidate == named:
                    continue
                found = [len(board_points(image, candidate)[0]) for image in sample]
                if np.median(found) >= floor:
                    return (
                        f"a {candidate.describe()}: give --squares {shape[0]}x{shape[1]} "
                        f"--dictionary {name}" + (" --legacy" if legacy else "")
                    )
    if same:
        return ""
    return (
        f"{name} markers (ids 0-{top}, about {score} a photo): give --dictionary {name} and "
        f"--squares CxR of the board as printed (C*R/2 markers)"
    )


def _charuco_shapes(markers: int) -> list[tuple[int, int]]:
    """Board shapes (squares across, down) holding exactly `markers` markers, squarest first."""
    shapes = [(c, r) for c in range(3, 33) for r in range(3, 33) if c * r // 2 == markers]
    return sorted(shapes, key=lambda s: (abs(s[0] - s[1]), -s[0]))


_PLACES = {
    (0, 0): "top left",
    (1, 0): "top",
    (2, 0): "top right",
    (0, 1): "left",
    (1, 1): "middle",
    (2, 1): "right",
    (0, 2): "bottom left",
    (1, 2): "bottom",
    (2, 2): "bottom right",
}


@dataclass(frozen=True, slots=True)
class ViewTilt:
    """How one view saw the board: how far it leans from square to the camera, and which way."""

    tilt_deg: float
    """Angle between the board's normal and the camera's axis, degrees (0: seen square on)."""
    direction_deg: float
    """Which way it leans in the picture, degrees 0-180 (0: about the picture's vertical
    axis, towards the left or right; 90: about its horizontal axis, up or down)."""


TILTED_DEG = 15.0
"""A view whose board leans more than this from square to the camera counts as tilted."""


@dataclass(frozen=True, slots=True)
class BoardCoverage:
    """Where the board's corners have been seen over all views (the picture cut into 3 x 3
    cells) and the tilt of each view: what pins the principal point and the focal length."""

    image_size: tuple[int, int]
    """(width, height) of the picture, pixels."""
    cells: tuple[tuple[int, ...], ...]
    """Corners seen in each cell, rows top to bottom, cells left to right."""
    tilts: tuple[ViewTilt, ...]
    """One per view, in the order given."""

    def missing_places(self) -> list[str]:
        """The parts of the picture the board never reached, in words."""
        return [words for (c, r), words in _PLACES.items() if self.cells[r][c] == 0]

    def advice(self) -> str:
        """Which views would pin the camera down, in words."""
        tilted = [t.direction_deg for t in self.tilts if t.tilt_deg > TILTED_DEG]
        tilts = [t.tilt_deg for t in self.tilts]
        advice = []
        if len(tilted) < 2:
            advice.append("the board tilted 30-45 degrees, to the left and right and up and down")
        else:
            spread = max(min(abs(a - b), 180.0 - abs(a - b)) for a in tilted for b in tilted)
            if spread < 45.0:
                advice.append(
                    "the board tilted the other way too (it leans the same way in every "
                    "photo): turn it a quarter turn, or tilt it up and down as well as sideways"
                )
        if max(tilts, default=0.0) - min(tilts, default=0.0) < TILTED_DEG and len(tilted) >= 2:
            advice.append("one view of the board square to the camera")
        missing = self.missing_places()
        if missing:
            advice.append(f"the board near the {', '.join(missing)} of the picture")
        if not advice:
            return "add more views from other angles and distances"
        return "add views with " + "; ".join(advice)


def board_coverage(
    image_points: Sequence[ArrayLike],
    rvecs: Sequence[ArrayLike],
    image_size: tuple[int, int],
) -> BoardCoverage:
    """The coverage of views whose corners are `image_points` and whose board poses (from the
    calibration) are `rvecs`; `rvecs` may be empty before a fit (then no tilts are known)."""
    width, height = image_size
    counts = np.zeros((3, 3), dtype=int)
    for pts in image_points:
        xy = np.asarray(pts, dtype=float).reshape(-1, 2)
        cells = np.clip((xy / (width / 3, height / 3)).astype(int), 0, 2)
        np.add.at(counts, (cells[:, 1], cells[:, 0]), 1)
    tilts = []
    for rvec in rvecs:
        rotation, _ = cv2.Rodrigues(np.asarray(rvec, dtype=float))
        normal = rotation[:, 2]
        tilt = math.degrees(math.acos(min(1.0, abs(float(normal[2])))))
        direction = math.degrees(math.atan2(float(normal[1]), float(normal[0]))) % 180.0
        tilts.append(ViewTilt(tilt, direction))
    return BoardCoverage(
        (int(width), int(height)), tuple(tuple(int(v) for v in row) for row in counts), tuple(tilts)
    )


def views_to_add(
    image_points: Sequence[ArrayLike], rvecs: Sequence[ArrayLike], image_size: tuple[int, int]
) -> str:
    """Which views would pin the camera down: parts of the picture the board never reached,
    and tilts it was never seen at (the focal length is measured by the board seen tilted,
    in more than one direction)."""
    return board_coverage(image_points, rvecs, image_size).advice()


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


PRINTED_BOARD = CharucoSpec(7, 5, 25.0, 18.0, "DICT_4X4_50")
"""The ChArUco board `umpire tags --charuco` prints and `umpire calibrate camera` looks for
by default (it fits an A4 or letter page)."""
