"""Image <-> table: a plane-to-plane homography, fitted robustly to reference points.

The table is flat, so (after any lens correction) every pixel of the table maps to table
millimetres through one 3x3 homography. `fit_table_transform` fits it to four or more reference
points and refuses a fit that cannot be trusted: too few or degenerate points, residuals over the
limit, a transform that mirrors the table or throws its corners out of the picture.

Robustness works on *groups* of points: the four corners of one corner tag move together when a
player knocks the tag, so a tag is kept or rejected as a whole. Hypotheses are fitted to every
small set of groups (3 tags, or 4 single points; a seeded sample when there are many), the one
that agrees with most groups wins, and the final transform is the least-squares fit to those.
An agreement is trusted only when a group outside the sample confirms it and most groups agree:
so finding a moved tag needs 5 reference tags (or 6 single points); with one reference to spare
the fit can tell that one moved but not which, and says so.

Imports cv2 and numpy; never imports `rules` or `vision`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.camera import CameraModel, as_points, distort_points, read_only, undistort_points
from calibration.errors import CalibrationError

DEFAULT_MAX_RESIDUAL_MM = 2.0
"""A reference further than this from where the fit puts it (for a tag, the RMS over its four
corners) is an outlier (a tag that moved); a fit that cannot bring enough references under it is
refused. Detection noise on a 1080p
frame of a 180 x 120 cm table is a few tenths of a millimetre, so 2 mm leaves room for it while
catching a knocked tag or an uncorrected lens."""

_DEGENERATE = 1e-3
"""Smallest accepted ratio of the 8th to the 1st singular value of the normalised DLT system:
below it the points (nearly) lie on a line, or repeat, and do not determine a homography."""

_MAX_HYPOTHESES = 300


@dataclass(frozen=True, slots=True, eq=False)
class TableTransform:
    """A homography between image pixels and table millimetres, and its inverse.

    Like norfair's transformation objects: two matrices and two mapping methods. The matrix is
    scaled so that the homogeneous coordinate is positive over the table; a pixel whose
    coordinate is not lies beyond the horizon of the table plane and has no table position.
    """

    image_to_table_matrix: NDArray[np.float64]
    """3x3 homography taking (x, y, 1) pixels to table millimetres (read-only)."""
    table_to_image_matrix: NDArray[np.float64]
    """Its inverse (read-only)."""

    def __post_init__(self) -> None:
        forward = _matrix(self.image_to_table_matrix, "image-to-table matrix")
        backward = _matrix(self.table_to_image_matrix, "table-to-image matrix")
        product = forward @ backward
        # Any positive multiple of the inverse maps the same points with the same sign of w.
        if not (product[2, 2] > 0 and np.allclose(product / product[2, 2], np.eye(3), atol=1e-6)):
            raise CalibrationError(
                "the table-to-image matrix is not (a positive multiple of) the inverse of the "
                "image-to-table matrix"
            )
        object.__setattr__(self, "image_to_table_matrix", read_only(forward))
        object.__setattr__(self, "table_to_image_matrix", read_only(backward))

    @classmethod
    def from_matrix(cls, image_to_table: ArrayLike) -> TableTransform:
        """The transform of an image-to-table homography (its inverse computed here)."""
        forward = _matrix(image_to_table, "image-to-table matrix")
        if not np.isfinite(np.linalg.cond(forward)) or np.linalg.cond(forward) > 1e15:
            raise CalibrationError(
                "the image-to-table matrix is singular: it squashes the picture onto a line"
            )
        return cls(forward, np.asarray(np.linalg.inv(forward), dtype=np.float64))

    def image_to_table(self, points: ArrayLike) -> NDArray[np.float64]:
        """Table millimetres (N, 2) of image pixels (N, 2)."""
        return _apply(self.image_to_table_matrix, as_points(points, "image points"), "pixel")

    def table_to_image(self, points: ArrayLike) -> NDArray[np.float64]:
        """Image pixels (N, 2) of table millimetres (N, 2)."""
        return _apply(self.table_to_image_matrix, as_points(points, "table points"), "table point")

    def mm_per_pixel(self, points: ArrayLike) -> NDArray[np.float64]:
        """How many millimetres of table one pixel spans at each image point (the square root of
        the local area scale): what a pixel of corner noise costs there."""
        pts = as_points(points, "image points")
        return read_only(np.sqrt(np.abs(_jacobian_det(self.image_to_table_matrix, pts))))


@dataclass(frozen=True, slots=True, eq=False)
class TableFit:
    """A table transform fitted to reference points, with how well each point agrees.

    When `lens` is set, image points are lens-corrected with it before the homography (the
    homography then maps ideal pinhole pixels); `image_to_table` and `table_to_image` do both.
    """

    transform: TableTransform
    """The homography (of lens-corrected pixels when `lens` is set)."""
    image_points: NDArray[np.float64]
    """(N, 2) reference pixels as seen (read-only)."""
    table_points: NDArray[np.float64]
    """(N, 2) their true table positions, mm (read-only)."""
    residuals_mm: NDArray[np.float64]
    """(N,) distance on the table between each true position and where the fit maps its pixel."""
    inliers: NDArray[np.bool_]
    """(N,) False for points of a group the fit rejected (a moved tag); those were not fitted."""
    groups: tuple[int, ...]
    """Which reference (corner tag id, or point index) each point belongs to."""
    max_residual_mm: float = DEFAULT_MAX_RESIDUAL_MM
    """The limit the fit was held to."""
    lens: CameraModel | None = None
    """Lens model applied to pixels before the homography, or None."""

    def __post_init__(self) -> None:
        for name in ("image_points", "table_points", "residuals_mm", "inliers"):
            value = np.array(getattr(self, name))
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "groups", tuple(int(g) for g in self.groups))
        sizes = {len(self.image_points), len(self.table_points), len(self.residuals_mm)}
        if sizes | {len(self.inliers), len(self.groups)} != {len(self.image_points)}:
            raise CalibrationError(
                "a table fit needs one residual, inlier flag and group per point"
            )

    @property
    def rms_mm(self) -> float:
        """Root-mean-square residual of the inlier points, mm."""
        return float(np.sqrt(np.mean(self.residuals_mm[self.inliers] ** 2)))

    @property
    def median_mm(self) -> float:
        """Median residual of the inlier points, mm."""
        return float(np.median(self.residuals_mm[self.inliers]))

    @property
    def worst_mm(self) -> float:
        """Largest residual of an inlier point, mm."""
        return float(np.max(self.residuals_mm[self.inliers]))

    @property
    def worst_group_mm(self) -> float:
        """Largest residual of a kept reference (a tag's RMS over its corners), mm."""
        kept = set(np.asarray(self.groups)[self.inliers].tolist())
        return max(v for g, v in self.residuals_by_group().items() if g in kept)

    @property
    def outlier_groups(self) -> tuple[int, ...]:
        """The references the fit rejected (for a tag: it moved, or was misread)."""
        return tuple(sorted({g for g, ok in zip(self.groups, self.inliers, strict=True) if not ok}))

    def residuals_by_group(self) -> dict[int, float]:
        """The residual of each reference, mm (for a corner tag, the RMS over its four corners):
        what the page shows per corner tag."""
        names, rms = group_rms(self.residuals_mm, np.asarray(self.groups))
        return dict(zip(names.tolist(), rms.tolist(), strict=True))

    def image_to_table(self, points: ArrayLike) -> NDArray[np.float64]:
        """Table millimetres of pixels as seen (lens-corrected first when `lens` is set)."""
        pts = as_points(points, "image points")
        if self.lens is not None:
            pts = undistort_points(self.lens, pts)
        return self.transform.image_to_table(pts)

    def table_to_image(self, points: ArrayLike) -> NDArray[np.float64]:
        """Pixels as seen (through the lens when `lens` is set) of table millimetres."""
        pixels = self.transform.table_to_image(points)
        return pixels if self.lens is None else distort_points(self.lens, pixels)


def fit_table_transform(
    image_points: ArrayLike,
    table_points: ArrayLike,
    *,
    groups: Sequence[int] | None = None,
    max_residual_mm: float = DEFAULT_MAX_RESIDUAL_MM,
    image_size: tuple[int, int] | None = None,
    table_size_mm: tuple[float, float] | None = None,
    lens: CameraModel | None = None,
) -> TableFit:
    """Fit the image -> table homography to reference points, robustly, or refuse.

    `groups` labels points that stand or fall together (the four corners of a corner tag);
    by default each point is its own group. `image_size` (width, height) and `table_size_mm`
    (width, depth) let the fit check that the table lands plausibly in the picture; without
    `table_size_mm` the box around the reference points stands for the table. With `lens`,
    pixels are lens-corrected before fitting.

    Refuses (CalibrationError) fewer than 4 points, NaN, points on a line or repeated, residuals
    over `max_residual_mm` that no choice of outliers explains (or that could be explained
    more than one way), a transform that mirrors the table, and one that puts the table behind
    the camera or absurdly far outside the picture.
    """
    seen = as_points(image_points, "image points")
    true = as_points(table_points, "table points")
    if len(seen) != len(true):
        raise CalibrationError(
            f"{len(seen)} image points but {len(true)} table points: give one table position "
            "per image point"
        )
    if len(seen) < 4:
        raise CalibrationError(
            f"only {len(seen)} reference points; at least 4 are needed to fit the table "
            "(a homography has 8 unknowns, each point gives 2)"
        )
    if not (math.isfinite(max_residual_mm) and max_residual_mm > 0):
        raise CalibrationError(f"max_residual_mm {max_residual_mm!r} must be a positive number")
    labels = np.arange(len(seen)) if groups is None else np.array(groups, dtype=int)
    if labels.shape != (len(seen),):
        raise CalibrationError(f"groups must give one label per point, got {len(labels)}")
    pixels = seen if lens is None else undistort_points(lens, seen)
    if degenerate(pixels, true):
        raise CalibrationError(
            "the reference points lie on one line (or repeat): they do not pin down the table; "
            "use tags near at least 4 corners of the table"
        )

    inliers = _robust_inliers(pixels, true, labels, max_residual_mm)
    matrix = _least_squares(pixels[inliers], true[inliers])
    residuals = _residuals(matrix, pixels, true)
    transform = plausible_transform(matrix, pixels[inliers], true, image_size, table_size_mm)
    fit = TableFit(transform, seen, true, residuals, inliers, tuple(labels), max_residual_mm, lens)
    if fit.worst_group_mm > max_residual_mm:
        raise CalibrationError(_over_limit(fit, lens is None))
    return fit


def _robust_inliers(
    pixels: NDArray[np.float64],
    table: NDArray[np.float64],
    labels: NDArray[np.int_],
    limit: float,
) -> NDArray[np.bool_]:
    """Which points to fit: those of the groups that agree with the best group hypothesis."""
    names, member_of, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    smallest = int(sizes.min())
    sample = max(3, math.ceil(4 / smallest))
    everyone = np.ones(len(pixels), dtype=bool)
    if len(names) <= sample:  # no group to spare: nothing to vote with
        residuals = _residuals(_least_squares(pixels, table), pixels, table)
        if group_rms(residuals, labels)[1].max() <= limit:
            return everyone
        raise _unexplained(residuals, limit)

    # Every group agreeing closely with one fit of them all is the common case: no vote needed.
    # (A vote by a few tags alone extrapolates their perspective by several mm to a far tag.)
    # Closely: a knocked tag among few pulls the common fit towards itself, so its residual
    # shrinks to near the limit; only a fit well inside the limit skips the vote.
    residuals = _residuals(_least_squares(pixels, table), pixels, table)
    if group_rms(residuals, labels)[1].max() <= limit / 2:
        return everyone

    subsets: list[tuple[int, ...]] = list(
        itertools.islice(itertools.combinations(names.tolist(), sample), _MAX_HYPOTHESES + 1)
    )
    if len(subsets) > _MAX_HYPOTHESES:
        rng = np.random.default_rng(0)  # deterministic: the same frame gives the same fit
        subsets = [
            tuple(rng.choice(names, size=sample, replace=False).tolist())
            for _ in range(_MAX_HYPOTHESES)
        ]
    best: list[tuple[float, frozenset[int]]] = []
    best_count = 0
    for subset in subsets:
        chosen = np.isin(labels, subset)
        if degenerate(pixels[chosen], table[chosen]):
            continue
        residuals = _residuals(_least_squares(pixels[chosen], table[chosen]), pixels, table)
        agrees = np.bincount(member_of, residuals**2) / sizes <= limit**2
        agreeing = frozenset(names[agrees].tolist())
        cost = float(np.sum(residuals[agrees[member_of]] ** 2))
        if len(agreeing) > best_count:
            best_count, best = len(agreeing), [(cost, agreeing)]
        elif len(agreeing) == best_count:
            best.append((cost, agreeing))
    # Trust an agreement only if a group outside the sample confirms it, and most groups agree.
    # One reference to spare shows that one moved, but not which: every sample fits as well.
    one_spare = best_count == sample == len(names) - 1
    if not one_spare and (best_count <= sample or 2 * best_count <= len(names)):
        residuals = _residuals(_least_squares(pixels, table), pixels, table)
        raise _unexplained(residuals, limit)
    if one_spare or len({agreeing for _, agreeing in best}) > 1:
        raise CalibrationError(
            f"the reference points disagree by more than {limit:g} mm and there are too few to "
            "tell which one moved; check the positions of the reference tags in the game file, "
            "or add reference tags"
        )
    agreeing = min(best, key=lambda item: item[0])[1]
    return np.isin(labels, list(agreeing))


def group_rms(
    residuals: NDArray[np.float64], labels: NDArray[np.int_]
) -> tuple[NDArray[np.int_], NDArray[np.float64]]:
    """The group labels (sorted) and the RMS residual of each group's points.

    A knocked tag moves all its corners, so the RMS over them flags it while averaging down the
    detection noise of single corners (which reaches a millimetre at the far edge of a 1080p
    frame)."""
    names, member_of, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    return names, np.sqrt(np.bincount(member_of, np.asarray(residuals) ** 2) / sizes)


def _unexplained(residuals: NDArray[np.float64], limit: float) -> CalibrationError:
    return CalibrationError(
        f"reference residuals reach {residuals.max():.1f} mm, over the {limit:g} mm limit, "
        "and no choice of moved tags explains them: check the reference positions in the game "
        "file, or the lens distortion (give [camera] intrinsics, or 8+ reference tags so the "
        "lens can be fitted)"
    )


def _over_limit(fit: TableFit, no_lens: bool) -> str:
    worst = max(
        (g for g, ok in zip(fit.groups, fit.inliers, strict=True) if ok),
        key=lambda g: fit.residuals_by_group()[g],
    )
    hint = (
        "; the lens may be bending the picture: give [camera] intrinsics or use 8+ reference "
        "tags so the lens can be fitted"
        if no_lens
        else ""
    )
    return (
        f"reference {worst} is {fit.residuals_by_group()[worst]:.1f} mm from where the fit puts "
        f"it, over the {fit.max_residual_mm:g} mm limit: check its position in the game file" + hint
    )


def _least_squares(pixels: NDArray[np.float64], table: NDArray[np.float64]) -> NDArray[np.float64]:
    """The least-squares homography (table-space error, refined by OpenCV's LM)."""
    matrix, _ = cv2.findHomography(pixels, table, 0)
    if matrix is None or not np.all(np.isfinite(matrix)):
        raise CalibrationError(
            "no homography fits the reference points: check they are not all on one line"
        )
    return np.asarray(matrix, dtype=float)


def _residuals(
    matrix: NDArray[np.float64], pixels: NDArray[np.float64], table: NDArray[np.float64]
) -> NDArray[np.float64]:
    mapped = _project(matrix, pixels)
    with np.errstate(invalid="ignore"):
        distances = np.linalg.norm(mapped - table, axis=1)
    return np.where(np.isfinite(distances), distances, np.inf)


def plausible_transform(
    matrix: NDArray[np.float64],
    pixels: NDArray[np.float64],
    table: NDArray[np.float64],
    image_size: tuple[int, int] | None,
    table_size_mm: tuple[float, float] | None,
) -> TableTransform:
    """The fitted matrix as a transform, sign-normalised, if it could be a real camera's view."""
    w = _homogeneous(pixels) @ matrix[2]
    if np.all(w < 0):
        matrix = -matrix
        w = -w
    if not np.all(w > 0):
        raise CalibrationError(
            "the fit puts the horizon of the table plane between reference points: the "
            "reference positions do not match the picture"
        )
    transform = TableTransform.from_matrix(matrix)
    centre = pixels.mean(axis=0, keepdims=True)
    # Pixel y grows down the picture and table y grows away from the players, so any real view
    # from above reverses orientation: a positive Jacobian determinant is a mirror image.
    if _jacobian_det(transform.image_to_table_matrix, centre)[0] > 0:
        raise CalibrationError(
            "the fit mirrors the table: reference tags are probably mislabelled (two swapped "
            "across a diagonal) or the camera image is mirrored (a webcam 'mirror' setting)"
        )
    if table_size_mm is None:
        low, high = table.min(axis=0), table.max(axis=0)
    else:
        low, high = np.zeros(2), np.asarray(table_size_mm, dtype=float)
    corners = np.array([[low[0], low[1]], [high[0], low[1]], [high[0], high[1]], [low[0], high[1]]])
    if not np.all(_homogeneous(corners) @ transform.table_to_image_matrix[2] > 0):
        raise CalibrationError(
            "the fit puts part of the table behind the camera: check the reference positions "
            "and the table size in the game file"
        )
    in_image = _project(transform.table_to_image_matrix, corners)
    if image_size is not None:
        width, height = image_size
        margin = np.array([width, height], dtype=float)
        if np.any(in_image < -margin) or np.any(in_image > 2 * margin):
            raise CalibrationError(
                f"the fit puts table corners at pixels {np.round(in_image).astype(int).tolist()}, "
                f"far outside the {width}x{height} picture: check the reference positions and "
                "the table size in the game file"
            )
    return transform


def degenerate(pixels: NDArray[np.float64], table: NDArray[np.float64]) -> bool:
    """Whether the points fail to determine a homography (collinear, repeated, too few)."""
    if len(pixels) < 4:
        return True
    rows = []
    for (x, y, _), (u, v, _) in zip(_normalise(pixels), _normalise(table), strict=True):
        rows.append([x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, -u])
        rows.append([0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, -v])
    singular = np.linalg.svd(np.array(rows), compute_uv=False)
    return bool(singular[7] < _DEGENERATE * singular[0])


def _normalise(points: NDArray[np.float64]) -> NDArray[np.float64]:
    """Hartley normalisation: centred, mean distance sqrt(2), homogeneous."""
    centred = points - points.mean(axis=0)
    spread = np.mean(np.linalg.norm(centred, axis=1))
    scale = math.sqrt(2) / spread if spread > 0 else 1.0
    return _homogeneous(centred * scale)


def _homogeneous(points: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.column_stack([points, np.ones(len(points))])


def _project(matrix: NDArray[np.float64], points: NDArray[np.float64]) -> NDArray[np.float64]:
    mapped = _homogeneous(points) @ matrix.T
    with np.errstate(divide="ignore", invalid="ignore"):
        return mapped[:, :2] / mapped[:, 2:]


def _apply(
    matrix: NDArray[np.float64], points: NDArray[np.float64], what: str
) -> NDArray[np.float64]:
    w = _homogeneous(points) @ matrix[2]
    if np.any(w <= 1e-12 * np.abs(matrix[2]).sum()):
        bad = int(np.flatnonzero(w <= 1e-12 * np.abs(matrix[2]).sum())[0])
        raise CalibrationError(
            f"{what} {points[bad].tolist()} lies beyond the horizon of the table plane: it has "
            "no position on the other side"
        )
    return read_only(_project(matrix, points))


def _jacobian_det(matrix: NDArray[np.float64], points: NDArray[np.float64]) -> NDArray[np.float64]:
    """Determinant of the 2x2 Jacobian of the homography at each point."""
    w = _homogeneous(points) @ matrix[2]
    mapped = _project(matrix, points)
    a = matrix[0, 0] - mapped[:, 0] * matrix[2, 0]
    b = matrix[0, 1] - mapped[:, 0] * matrix[2, 1]
    c = matrix[1, 0] - mapped[:, 1] * matrix[2, 0]
    d = matrix[1, 1] - mapped[:, 1] * matrix[2, 1]
    return (a * d - b * c) / w**2


def _matrix(values: object, name: str) -> NDArray[np.float64]:
    try:
        matrix = np.array(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise CalibrationError(f"{name} must be 3x3 numbers: {error}") from None
    if matrix.shape != (3, 3):
        raise CalibrationError(f"{name} must be 3x3, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise CalibrationError(f"{name} {matrix.tolist()} contains NaN or inf")
    return matrix
