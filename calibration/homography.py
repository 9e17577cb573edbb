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

DEFAULT_TOLERANCE_PX = 1.0
"""A reference is within tolerance when its residual is under this many pixels of table where it
lies (or `max_residual_mm`, whichever is larger): on a 752 x 480 view of the whole table one
pixel spans 2-3 mm, and the joint fit of unmoved tags leaves 0.4-0.65 px there."""

_SIGMAS = 3.0
"""A left-out reference agrees when its prediction misses it by no more than its limit and this
many times the error the prediction is expected to have, in quadrature."""

_MIN_NOISE_PX = 0.05
"""The least pixel noise assumed when the fitted references show less (a perfect render)."""

_DEGENERATE = 1e-3
"""Smallest accepted ratio of the 8th to the 1st singular value of the normalised DLT system:
below it the points (nearly) lie on a line, or repeat, and do not determine a homography."""


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
    uncertainty_mm: float = 0.0
    """How far off a position may be from the fit alone, mm, beyond `rms_mm`: set (to the worst
    reference's residual) when the fit kept references it could not confirm."""
    warnings: tuple[str, ...] = ()
    """What the fit accepted without being able to check it, in words."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "warnings", tuple(str(w) for w in self.warnings))
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
    tolerance_px: float = DEFAULT_TOLERANCE_PX,
) -> TableFit:
    """Fit the image -> table homography to reference points, robustly, or refuse.

    `groups` labels points that stand or fall together (the four corners of a corner tag);
    by default each point is its own group. `image_size` (width, height) and `table_size_mm`
    (width, depth) let the fit check that the table lands plausibly in the picture; without
    `table_size_mm` the box around the reference points stands for the table. With `lens`,
    pixels are lens-corrected before fitting.

    Each reference's tolerance is `tolerance_px` pixels turned into table millimetres where it
    lies, or `max_residual_mm` where that is larger (the floor). A reference left out of a
    hypothesis is judged against the error its prediction from the others is expected to have
    (one pixel of noise propagated through their homography: predicting one corner tag from
    three far away multiplies it several times). When every reference is within tolerance of
    the joint fit but the vote cannot confirm them, or when the vote cannot tell which one is
    off, the fit is kept with a warning and `uncertainty_mm` set; a reference that is clearly
    off (a confirmed agreement of the others, beyond the expected error) is rejected.

    Refuses (CalibrationError) fewer than 4 points, NaN, points on a line or repeated, residuals
    over tolerance that no choice of outliers explains (or that could be explained more than
    one way), a transform that mirrors the table, and one that puts the table behind the camera
    or absurdly far outside the picture.
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
    if not (math.isfinite(tolerance_px) and tolerance_px >= 0):
        raise CalibrationError(f"tolerance_px {tolerance_px!r} must be a number at least 0")
    labels = np.arange(len(seen)) if groups is None else np.array(groups, dtype=int)
    if labels.shape != (len(seen),):
        raise CalibrationError(f"groups must give one label per point, got {len(labels)}")
    pixels = seen if lens is None else undistort_points(lens, seen)
    if degenerate(pixels, true):
        raise CalibrationError(
            "the reference points lie on one line (or repeat): they do not pin down the table; "
            "use tags near at least 4 corners of the table"
        )

    limits = _limits(_least_squares(pixels, true), pixels, labels, max_residual_mm, tolerance_px)
    inliers, warning = _robust_inliers(pixels, true, labels, limits, tolerance_px)
    matrix = _least_squares(pixels[inliers], true[inliers])
    residuals = _residuals(matrix, pixels, true)
    transform = plausible_transform(matrix, pixels[inliers], true, image_size, table_size_mm)
    fit = TableFit(transform, seen, true, residuals, inliers, tuple(labels), max_residual_mm, lens)
    by_group = fit.residuals_by_group()
    kept = set(labels[inliers].tolist())
    over = [g for g in sorted(kept) if by_group[g] > limits[g]]
    if over:
        raise CalibrationError(_over_limit(fit, over, limits, lens is None))
    if warning:
        worst = max(by_group[g] for g in kept)
        return TableFit(
            transform,
            seen,
            true,
            residuals,
            inliers,
            tuple(labels),
            max_residual_mm,
            lens,
            uncertainty_mm=worst,
            warnings=(warning + f"; positions carry {worst:.1f} mm more uncertainty",),
        )
    return fit


def _limits(
    matrix: NDArray[np.float64],
    pixels: NDArray[np.float64],
    labels: NDArray[np.int_],
    floor_mm: float,
    tolerance_px: float,
) -> dict[int, float]:
    """Each reference's tolerance, mm: `tolerance_px` pixels of table where its points lie (the
    RMS of the local scale along the two image axes), or `floor_mm` if larger."""
    names, member_of = np.unique(labels, return_inverse=True)
    spans = np.sqrt(np.sum(_local_jacobians(matrix, pixels) ** 2, axis=(1, 2)) / 2)
    spans = np.where(np.isfinite(spans), spans, 0.0)
    mean_span = np.bincount(member_of, spans) / np.bincount(member_of)
    return {
        int(name): max(floor_mm, tolerance_px * float(span))
        for name, span in zip(names, mean_span, strict=True)
    }


def _local_jacobians(
    matrix: NDArray[np.float64], pixels: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(N, 2, 2) derivative of the table position by the pixel at each point."""
    w = _homogeneous(pixels) @ matrix[2]
    mapped = _project(matrix, pixels)
    jac = np.empty((len(pixels), 2, 2))
    for row in range(2):
        for col in range(2):
            jac[:, row, col] = (matrix[row, col] - mapped[:, row] * matrix[2, col]) / w
    return jac


def prediction_spread(
    matrix: NDArray[np.float64],
    pixels: NDArray[np.float64],
    fitted: NDArray[np.bool_],
) -> NDArray[np.float64]:
    """(N,) expected error, mm (RMS, both axes), of each point's table position predicted by
    the homography `matrix` fitted to the `fitted` points, with one pixel of noise on every
    pixel (its own included for points not fitted; fitted points get their own noise only).

    The fit's covariance, propagated: with J the derivative of the mapped point by the 8
    homography parameters and C = A A^T its noise (A the local pixel-to-table derivative), the
    parameters' covariance is (sum J^T C^-1 J)^-1 over the fitted points and a prediction's is
    J cov J^T + C. Computed on Hartley-normalised pixels, so the sums are well conditioned."""
    centre = pixels[fitted].mean(axis=0)
    spread = float(np.mean(np.linalg.norm(pixels[fitted] - centre, axis=1)))
    scale = math.sqrt(2) / spread if spread > 0 else 1.0
    normaliser = np.array(
        [[scale, 0, -scale * centre[0]], [0, scale, -scale * centre[1]], [0, 0, 1]]
    )
    h = matrix @ np.linalg.inv(normaliser)
    own = _local_jacobians(matrix, pixels)
    noise = own @ np.transpose(own, (0, 2, 1))
    own_var = np.trace(noise, axis1=1, axis2=2)
    if abs(h[2, 2]) < 1e-12:
        return np.sqrt(own_var)
    h = h / h[2, 2]
    norm = (pixels - centre) * scale
    w = norm @ h[2, :2] + 1.0
    mapped = _project(h, norm)
    jac = np.zeros((len(norm), 2, 8))
    for row in range(2):
        jac[:, row, 3 * row] = norm[:, 0] / w
        jac[:, row, 3 * row + 1] = norm[:, 1] / w
        jac[:, row, 3 * row + 2] = 1.0 / w
        jac[:, row, 6] = -mapped[:, row] * norm[:, 0] / w
        jac[:, row, 7] = -mapped[:, row] * norm[:, 1] / w
    try:
        weights = np.linalg.inv(noise[fitted])
        information = np.einsum(
            "nij,njk,nkl->il", np.transpose(jac[fitted], (0, 2, 1)), weights, jac[fitted]
        )
        covariance = np.linalg.pinv(information)
    except np.linalg.LinAlgError:
        return np.sqrt(own_var)
    predicted = np.einsum("nij,jk,nlk->nil", jac, covariance, jac)
    var = np.trace(predicted, axis1=1, axis2=2)
    var = np.where(fitted, own_var, var + own_var)
    return np.sqrt(np.where(np.isfinite(var), var, np.inf))


def _robust_inliers(
    pixels: NDArray[np.float64],
    table: NDArray[np.float64],
    labels: NDArray[np.int_],
    limits: dict[int, float],
    tolerance_px: float,
) -> tuple[NDArray[np.bool_], str]:
    """Which points to fit: those of the groups that agree with the best group hypothesis; and
    a warning when all were kept though the vote could not confirm them (else "").

    Each group is predicted from the others (leave one out): it agrees when the prediction
    misses it by no more than the hypot of its limit and 3 times the extra error the prediction
    is expected to have (the pixel noise the others' residuals show, at most `tolerance_px`,
    propagated through their homography). A group that alone disagrees, and whose leaving out
    makes the rest agree, is rejected; with one group to spare, or several whose leaving out
    would do, the fit cannot tell which moved."""
    names, member_of, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    limit = np.array([limits[int(n)] for n in names])
    smallest = int(sizes.min())
    sample = max(3, math.ceil(4 / smallest))
    everyone = np.ones(len(pixels), dtype=bool)
    joint = group_rms(_residuals(_least_squares(pixels, table), pixels, table), labels)[1]
    within = bool(np.all(joint <= limit))
    if len(names) <= sample:  # no group to spare: nothing to vote with
        if within:
            return everyone, ""
        raise _unexplained(joint, names, limit)

    # Every group agreeing closely with one fit of them all is the common case: no vote needed.
    # (A vote by a few tags alone extrapolates their perspective by several mm to a far tag.)
    # Closely: a knocked tag among few pulls the common fit towards itself, so its residual
    # shrinks to near the limit; only a fit well inside the limit skips the vote.
    if np.all(joint <= limit / 2):
        return everyone, ""

    group_of = names[member_of]

    def ratios(keep: frozenset[int]) -> dict[int, float]:
        """Each kept group's residual predicted from the other kept groups, over what that
        prediction may miss by: its limit and its expected extra error, in quadrature."""
        out = {}
        for name in keep:
            fitted = np.isin(group_of, list(keep - {name}))
            if degenerate(pixels[fitted], table[fitted]):
                out[name] = 0.0  # the others cannot predict it: no evidence against it
                continue
            matrix = _least_squares(pixels[fitted], table[fitted])
            mine = group_of == name
            miss = math.sqrt(float(np.mean(_residuals(matrix, pixels[mine], table[mine]) ** 2)))
            expected = prediction_spread(matrix, pixels, fitted)[mine]
            own = _own_spread(pixels[mine], matrix)
            extra = math.sqrt(max(float(np.mean(expected**2 - own**2)), 0.0))
            noise = _noise_px(matrix, pixels[fitted], table[fitted], tolerance_px)
            out[name] = miss / math.hypot(limits[name], _SIGMAS * noise * extra)
        return out

    def consistent(keep: frozenset[int]) -> bool:
        return max(ratios(keep).values()) <= 1.0

    everyone_set = frozenset(int(n) for n in names)
    first = ratios(everyone_set)
    if max(first.values()) <= 1.0:
        return everyone, ""
    n = len(names)
    if n - 1 <= sample:  # one reference to spare shows that one moved, but not which
        if within:
            return everyone, (
                "the reference tags agree with one fit within tolerance, but there are too few "
                "to tell whether one has moved"
            )
        raise CalibrationError(
            f"the reference points disagree by more than their tolerance "
            f"({_tolerances(limit)}) and there are too few to tell which one moved: check the "
            f"positions of the reference tags in the game file, or add a reference tag (with "
            f"{n + 1} the fit can name the one that moved)"
        )
    fixes = [g for g, r in first.items() if r > 1.0 and consistent(everyone_set - {g})]
    if len(fixes) == 1:
        return np.isin(labels, list(everyone_set - {fixes[0]})), ""
    if len(fixes) > 1:
        if within:
            return everyone, (
                "the reference tags agree with one fit within tolerance, but leaving out any "
                f"one of {', '.join(str(g) for g in sorted(fixes))} fits as well"
            )
        raise CalibrationError(
            f"the reference points disagree by more than their tolerance "
            f"({_tolerances(limit)}) and leaving out any one of "
            f"{', '.join(str(g) for g in sorted(fixes))} fits as well, so there is no telling "
            "which moved: check their positions in the game file"
        )
    # More than one off: leave out the worst until the rest agree, while most groups remain
    # and each is confirmed by more than a bare sample of others.
    keep, current = everyone_set, first
    while True:
        keep = keep - {max(current, key=lambda g: current[g])}
        if len(keep) <= sample or 2 * len(keep) <= n:
            break
        current = ratios(keep)
        if max(current.values()) <= 1.0:
            return np.isin(labels, list(keep)), ""
    if within:
        return everyone, (
            "the reference tags agree with one fit within tolerance, but not with each other's "
            "predictions"
        )
    raise _unexplained(joint, names, limit)


def _noise_px(
    matrix: NDArray[np.float64],
    pixels: NDArray[np.float64],
    table: NDArray[np.float64],
    tolerance_px: float,
) -> float:
    """The pixel noise (per axis) the fitted points' residuals show, with 8 degrees of freedom
    taken by the homography, kept between `_MIN_NOISE_PX` and `tolerance_px`."""
    per_axis = _own_spread(pixels, matrix) / math.sqrt(2)
    in_px = _residuals(matrix, pixels, table) / np.maximum(per_axis, 1e-12)
    dof = max(2 * len(pixels) - 8, 1)
    sigma = math.sqrt(float(np.sum(in_px**2)) / dof)
    return min(max(sigma, _MIN_NOISE_PX), max(tolerance_px, _MIN_NOISE_PX))


def _own_spread(pixels: NDArray[np.float64], matrix: NDArray[np.float64]) -> NDArray[np.float64]:
    """(N,) table error, mm (RMS, both axes), of one pixel of noise at each point."""
    return np.sqrt(np.sum(_local_jacobians(matrix, pixels) ** 2, axis=(1, 2)))


def _tolerances(limit: NDArray[np.float64]) -> str:
    low, high = float(limit.min()), float(limit.max())
    return f"{low:.1f} mm" if high - low < 0.05 else f"{low:.1f}-{high:.1f} mm"


def group_rms(
    residuals: NDArray[np.float64], labels: NDArray[np.int_]
) -> tuple[NDArray[np.int_], NDArray[np.float64]]:
    """The group labels (sorted) and the RMS residual of each group's points.

    A knocked tag moves all its corners, so the RMS over them flags it while averaging down the
    detection noise of single corners (which reaches a millimetre at the far edge of a 1080p
    frame)."""
    names, member_of, sizes = np.unique(labels, return_inverse=True, return_counts=True)
    return names, np.sqrt(np.bincount(member_of, np.asarray(residuals) ** 2) / sizes)


def _unexplained(
    joint: NDArray[np.float64], names: NDArray[np.int_], limit: NDArray[np.float64]
) -> CalibrationError:
    worst = int(np.argmax(joint / limit))
    return CalibrationError(
        f"reference residuals reach {joint[worst]:.1f} mm (reference {int(names[worst])}), over "
        f"the {limit[worst]:.1f} mm limit, and no choice of moved tags explains them: check the "
        "reference positions in the game file, or the lens distortion (give [camera] "
        "intrinsics, or 8+ reference tags so the lens can be fitted)"
    )


def _over_limit(fit: TableFit, over: Sequence[int], limits: dict[int, float], no_lens: bool) -> str:
    by_group = fit.residuals_by_group()
    worst = max(over, key=lambda g: by_group[g] / limits[g])
    hint = (
        "; the lens may be bending the picture: give [camera] intrinsics or use 8+ reference "
        "tags so the lens can be fitted"
        if no_lens
        else ""
    )
    return (
        f"reference {worst} is {by_group[worst]:.1f} mm from where the fit puts "
        f"it, over its {limits[worst]:.1f} mm limit: check its position in the game file" + hint
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
