"""The camera: intrinsics, lens distortion, pose over the table, and height correction.

OpenCV conventions throughout: pixel (0, 0) is the centre of the top-left pixel; the camera
matrix is ``[[fx, s, cx], [0, fy, cy], [0, 0, 1]]``; distortion is ``k1, k2, p1, p2[, k3]``.
The table frame is the contract's (origin at the near-left corner, x right, y away from the near
edge, millimetres) with z up, so the camera sits at z > 0 and a tag on a 5 mm base at z = 5.
Imports cv2 and numpy; never imports `rules` or `vision`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.errors import CalibrationError

Matrix3 = tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]

# cv2.undistortPoints iterates to invert the lens model; its default of 5 rounds leaves
# sub-pixel errors at the corners of a strongly barrelled frame, so ask for convergence.
_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-12)


@dataclass(frozen=True, slots=True)
class CameraModel:
    """A calibrated camera: what the lens does to a ray, independent of where the camera is.

    Build one with `CameraModel.from_values` (which accepts lists or arrays); the fields hold
    plain tuples so a model compares, hashes and serialises simply.
    """

    matrix: Matrix3
    """The 3x3 camera matrix ``[[fx, skew, cx], [0, fy, cy], [0, 0, 1]]`` in pixels."""
    distortion: tuple[float, ...]
    """OpenCV distortion coefficients ``k1, k2, p1, p2`` or ``k1, k2, p1, p2, k3``."""
    image_size: tuple[int, int] | None = None
    """(width, height) in pixels of the frames this model was calibrated for, when known."""
    reprojection_error_px: float | None = None
    """RMS reprojection error of the calibration that produced the model, when known."""

    def __post_init__(self) -> None:
        matrix = _finite_array(self.matrix, "camera matrix", (3, 3))
        if not np.allclose(matrix[2], (0.0, 0.0, 1.0)) or matrix[1, 0] != 0.0:
            raise CalibrationError(
                f"camera matrix {matrix.tolist()} is not of the form "
                "[[fx, 0, cx], [0, fy, cy], [0, 0, 1]]"
            )
        if matrix[0, 0] <= 0 or matrix[1, 1] <= 0:
            raise CalibrationError(
                f"camera matrix has focal lengths fx = {matrix[0, 0]:g}, fy = {matrix[1, 1]:g}; "
                "both must be positive (pixels)"
            )
        distortion = np.asarray(self.distortion, dtype=float).ravel()
        if distortion.size not in (4, 5):
            raise CalibrationError(
                f"lens distortion has {distortion.size} coefficients; give 4 (k1, k2, p1, p2) "
                "or 5 (k1, k2, p1, p2, k3)"
            )
        if not np.all(np.isfinite(distortion)):
            raise CalibrationError(f"lens distortion {distortion.tolist()} contains NaN or inf")
        object.__setattr__(self, "matrix", tuple(tuple(float(v) for v in row) for row in matrix))
        object.__setattr__(self, "distortion", tuple(float(v) for v in distortion))
        if self.image_size is not None:
            size = tuple(self.image_size)
            if len(size) != 2 or not all(isinstance(v, int | np.integer) and v > 0 for v in size):
                raise CalibrationError(
                    f"image size {self.image_size!r} must be two positive whole numbers of "
                    "pixels (width, height)"
                )
            width, height = int(size[0]), int(size[1])
            object.__setattr__(self, "image_size", (width, height))
            if not (0 <= matrix[0, 2] <= width and 0 <= matrix[1, 2] <= height):
                raise CalibrationError(
                    f"principal point ({matrix[0, 2]:g}, {matrix[1, 2]:g}) lies outside the "
                    f"{width}x{height} image: the camera matrix does not belong to this camera"
                )
        if self.reprojection_error_px is not None:
            error = float(self.reprojection_error_px)
            if not math.isfinite(error) or error < 0:
                raise CalibrationError(
                    f"reprojection error {self.reprojection_error_px!r} must be a finite number "
                    "of pixels, 0 or more"
                )
            object.__setattr__(self, "reprojection_error_px", error)

    @classmethod
    def from_values(
        cls,
        matrix: ArrayLike,
        distortion: ArrayLike,
        image_size: Sequence[int] | None = None,
        reprojection_error_px: float | None = None,
    ) -> CameraModel:
        """A validated model from any array-like matrix and distortion (lists, numpy arrays)."""
        matrix_array = _finite_array(matrix, "camera matrix", (3, 3))
        rows = tuple(tuple(float(v) for v in row) for row in matrix_array)
        size = None if image_size is None else (int(image_size[0]), int(image_size[1]))
        if image_size is not None and len(image_size) != 2:
            raise CalibrationError(f"image size {image_size!r} must be (width, height)")
        coefficients = tuple(float(v) for v in np.asarray(distortion, dtype=float).ravel())
        return cls(rows, coefficients, size, reprojection_error_px)  # type: ignore[arg-type]

    @property
    def camera_matrix(self) -> NDArray[np.float64]:
        """The camera matrix as a read-only 3x3 array, for OpenCV."""
        return read_only(np.array(self.matrix, dtype=float))

    @property
    def dist_coeffs(self) -> NDArray[np.float64]:
        """The distortion coefficients as a read-only array, for OpenCV."""
        return read_only(np.array(self.distortion, dtype=float))

    @property
    def fx(self) -> float:
        """Focal length along x, pixels."""
        return self.matrix[0][0]

    @property
    def fy(self) -> float:
        """Focal length along y, pixels."""
        return self.matrix[1][1]

    @property
    def cx(self) -> float:
        """Principal point x, pixels."""
        return self.matrix[0][2]

    @property
    def cy(self) -> float:
        """Principal point y, pixels."""
        return self.matrix[1][2]


@dataclass(frozen=True, slots=True, eq=False)
class CameraPose:
    """Where the camera is over the table: ``x_camera = rotation @ x_table + translation``.

    Table coordinates in millimetres with z up (the camera is at z > 0).
    """

    rotation: NDArray[np.float64]
    """3x3 rotation from the table frame to the camera frame (read-only)."""
    translation: NDArray[np.float64]
    """(3,) translation in millimetres: the table origin in the camera frame (read-only)."""
    reprojection_rms_px: float = 0.0
    """RMS distance in pixels between the reference points seen and where the pose puts them."""
    residuals_px: NDArray[np.float64] | None = None
    """Per reference point reprojection distance in pixels (read-only), when fitted."""

    def __post_init__(self) -> None:
        rotation = _finite_array(self.rotation, "camera rotation", (3, 3))
        if (
            not np.allclose(rotation @ rotation.T, np.eye(3), atol=1e-6)
            or np.linalg.det(rotation) < 0
        ):
            raise CalibrationError("camera rotation is not a rotation matrix (R R^T = I, det 1)")
        translation = _finite_array(self.translation, "camera translation", (3,))
        object.__setattr__(self, "rotation", read_only(rotation))
        object.__setattr__(self, "translation", read_only(translation))
        if self.residuals_px is not None:
            object.__setattr__(
                self, "residuals_px", read_only(np.asarray(self.residuals_px, dtype=float))
            )

    @property
    def camera_centre_mm(self) -> NDArray[np.float64]:
        """Where the camera's centre of projection is, in table millimetres (z = height)."""
        return read_only(-self.rotation.T @ self.translation)


def undistort_points(model: CameraModel, points: ArrayLike) -> NDArray[np.float64]:
    """Where pixels seen through the lens would be in the ideal pinhole camera with the same
    camera matrix: straight table lines come out straight, so a homography applies."""
    pts = as_points(points, "image points")
    if len(pts) == 0:
        return read_only(pts)
    out = cv2.undistortPoints(
        pts.reshape(-1, 1, 2),
        model.camera_matrix,
        model.dist_coeffs,
        P=model.camera_matrix,
        criteria=_UNDISTORT_CRITERIA,
    )
    return read_only(out.reshape(-1, 2).astype(float))


def distort_points(model: CameraModel, points: ArrayLike) -> NDArray[np.float64]:
    """The inverse of `undistort_points`: where the lens puts ideal pinhole pixels."""
    pts = as_points(points, "ideal image points")
    if len(pts) == 0:
        return read_only(pts)
    rays = _homogeneous(pts) @ np.linalg.inv(model.camera_matrix).T
    projected, _ = cv2.projectPoints(
        rays.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), model.camera_matrix, model.dist_coeffs
    )
    return read_only(projected.reshape(-1, 2).astype(float))


def camera_pose(
    model: CameraModel,
    image_points: ArrayLike,
    table_points_mm: ArrayLike,
    *,
    max_reprojection_px: float = 3.0,
) -> CameraPose:
    """The camera's pose from reference points on the table plane (z = 0) and their pixels.

    Planar PnP (IPPE) refined by Levenberg-Marquardt. Refuses fewer than 4 points, points that
    are not finite, a camera that ends up under the table or behind it, and an RMS
    reprojection error over `max_reprojection_px` (wrong intrinsics or mislabelled points).
    """
    image = as_points(image_points, "image points")
    table = as_points(table_points_mm, "table points")
    if len(image) != len(table):
        raise CalibrationError(
            f"{len(image)} image points but {len(table)} table points: give one table position "
            "per image point"
        )
    if len(image) < 4:
        raise CalibrationError(
            f"only {len(image)} reference points for the camera pose; at least 4 are needed"
        )
    objects = np.column_stack([table, np.zeros(len(table))])
    ok, rvec, tvec = cv2.solvePnP(
        objects, image, model.camera_matrix, model.dist_coeffs, flags=cv2.SOLVEPNP_IPPE
    )
    if not ok:
        raise CalibrationError(
            "no camera pose fits the reference points: check they are not all on one line"
        )
    rvec, tvec = cv2.solvePnPRefineLM(
        objects, image, model.camera_matrix, model.dist_coeffs, rvec, tvec
    )
    rotation = np.asarray(cv2.Rodrigues(rvec)[0], dtype=np.float64)
    translation = np.asarray(tvec, dtype=np.float64).reshape(3)
    if not (np.all(np.isfinite(rotation)) and np.all(np.isfinite(translation))):
        raise CalibrationError("the camera pose came out as NaN: the reference points are wrong")
    in_camera = objects @ rotation.T + translation
    centre = -rotation.T @ translation
    if np.any(in_camera[:, 2] <= 0) or centre[2] <= 0:
        raise CalibrationError(
            "the fitted camera is under the table or behind it: the reference points are "
            "probably mislabelled or the picture mirrored"
        )
    projected, _ = cv2.projectPoints(objects, rvec, tvec, model.camera_matrix, model.dist_coeffs)
    residuals = np.linalg.norm(projected.reshape(-1, 2) - image, axis=1)
    rms = float(np.sqrt(np.mean(residuals**2)))
    if not rms <= max_reprojection_px:
        raise CalibrationError(
            f"camera pose reprojection error {rms:.2f} px is over the {max_reprojection_px:g} px "
            "limit: check the camera intrinsics belong to this camera and resolution, and the "
            "reference tag positions in the game file"
        )
    return CameraPose(rotation, translation, rms, residuals)


def project_table_points(
    model: CameraModel, pose: CameraPose, points_mm: ArrayLike
) -> NDArray[np.float64]:
    """Pixels (through the lens) where table points appear; (N, 2) points are on the table,
    (N, 3) points give their height z in millimetres."""
    pts = np.asarray(points_mm, dtype=float)
    if pts.ndim == 2 and pts.shape[1] == 2:
        pts = np.column_stack([pts, np.zeros(len(pts))])
    if pts.ndim != 2 or pts.shape[1] != 3 or not np.all(np.isfinite(pts)):
        raise CalibrationError(
            f"table points must be a finite (N, 2) or (N, 3) array of millimetres, got shape "
            f"{pts.shape}"
        )
    if len(pts) == 0:
        return read_only(np.zeros((0, 2)))
    rvec, _ = cv2.Rodrigues(pose.rotation)
    projected, _ = cv2.projectPoints(
        pts.reshape(-1, 1, 3), rvec, pose.translation, model.camera_matrix, model.dist_coeffs
    )
    return read_only(projected.reshape(-1, 2).astype(float))


def table_point_at_height(
    model: CameraModel, pose: CameraPose, image_points: ArrayLike, height_mm: ArrayLike
) -> NDArray[np.float64]:
    """The table (x, y) directly under points seen at `height_mm` above the table.

    The ray through each (lens-corrected) pixel is intersected with the plane z = height, so a
    tag on top of a 5 mm base is placed over its base's true position instead of where the
    table-plane homography would put it (further from the point under the camera, by
    ``r * h / (H - h)`` for a camera at height H looking straight down).
    """
    pts = as_points(image_points, "image points")
    heights = np.broadcast_to(np.asarray(height_mm, dtype=float), (len(pts),))
    if not np.all(np.isfinite(heights)):
        raise CalibrationError(f"heights {np.asarray(height_mm).tolist()} must be finite mm")
    if len(pts) == 0:
        return read_only(np.zeros((0, 2)))
    normalized = np.asarray(
        cv2.undistortPoints(
            pts.reshape(-1, 1, 2),
            model.camera_matrix,
            model.dist_coeffs,
            criteria=_UNDISTORT_CRITERIA,
        ),
        dtype=np.float64,
    ).reshape(-1, 2)
    directions = _homogeneous(normalized) @ pose.rotation  # rows: R^T d, in the table frame
    centre = pose.camera_centre_mm
    if np.any(heights >= centre[2]):
        raise CalibrationError(
            f"a height of {heights.max():g} mm is at or above the camera ({centre[2]:.0f} mm "
            "over the table): check the tag heights in the game file"
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        steps = (heights - centre[2]) / directions[:, 2]
    if not np.all(np.isfinite(steps)) or np.any(steps <= 0):
        raise CalibrationError(
            "a point's ray never meets the table: it lies above the horizon of the table plane"
        )
    return read_only(centre[:2] + steps[:, None] * directions[:, :2])


def read_only(array: NDArray[np.float64]) -> NDArray[np.float64]:
    """`array` made read-only (values handed across the package boundary must not change)."""
    array.setflags(write=False)
    return array


def as_points(points: ArrayLike, name: str) -> NDArray[np.float64]:
    """A fresh finite (N, 2) float array of points, or a `CalibrationError` naming `name`."""
    try:
        array = np.array(points, dtype=float)
    except (TypeError, ValueError) as error:
        raise CalibrationError(f"{name} must be (N, 2) numbers: {error}") from None
    if array.size == 0:
        return np.zeros((0, 2))
    if array.ndim == 3 and array.shape[1] == 1:  # OpenCV's (N, 1, 2)
        array = array.reshape(-1, 2)
    if array.ndim == 1 and array.shape == (2,):
        array = array.reshape(1, 2)
    if array.ndim != 2 or array.shape[1] != 2:
        raise CalibrationError(f"{name} must be an (N, 2) array of (x, y), got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        bad = int(np.flatnonzero(~np.all(np.isfinite(array), axis=1))[0])
        raise CalibrationError(
            f"{name} contain NaN or inf (point {bad}: {array[bad].tolist()}): every point must "
            "be a finite position"
        )
    return array


def _homogeneous(points: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.column_stack([points, np.ones(len(points))])


def _finite_array(values: object, name: str, shape: tuple[int, ...]) -> NDArray[np.float64]:
    try:
        array = np.array(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise CalibrationError(f"{name} must be numbers of shape {shape}: {error}") from None
    if array.shape != shape:
        raise CalibrationError(f"{name} must have shape {shape}, got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise CalibrationError(f"{name} {array.tolist()} contains NaN or inf")
    return array
