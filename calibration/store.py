"""Saving and loading calibrations as JSON, with errors that name the file and the key.

A camera file (``umpire-camera/1``)::

    {"format": "umpire-camera/1",
     "matrix": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
     "distortion": [k1, k2, p1, p2],
     "image_size": [1920, 1080], "reprojection_error_px": 0.21}

`camera_from_dict` reads the same keys from any mapping, so the game file's ``[camera]`` section
(``matrix`` and ``distortion``) is validated by the same code. A table fit file
(``umpire-table-fit/1``) holds the image-to-table matrix, the reference points, their groups and
inlier flags, and the lens when one was used; residuals are written for people to read and
recomputed on loading. Never imports `rules` or `vision`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import CameraModel
from calibration.errors import CalibrationError
from calibration.homography import TableFit, TableTransform

CAMERA_FORMAT = "umpire-camera/1"
TABLE_FIT_FORMAT = "umpire-table-fit/1"


def camera_to_dict(model: CameraModel) -> dict[str, Any]:
    """The camera as plain JSON-ready values."""
    data: dict[str, Any] = {
        "format": CAMERA_FORMAT,
        "matrix": [list(row) for row in model.matrix],
        "distortion": list(model.distortion),
    }
    if model.image_size is not None:
        data["image_size"] = list(model.image_size)
    if model.reprojection_error_px is not None:
        data["reprojection_error_px"] = model.reprojection_error_px
    return data


def camera_from_dict(data: object, source: str = "camera") -> CameraModel:
    """A validated camera from a mapping with ``matrix`` and ``distortion`` (and optionally
    ``image_size``, ``reprojection_error_px``); `source` names it in error messages."""
    mapping = _mapping(data, source)
    _check_format(mapping, CAMERA_FORMAT, source)
    matrix = _numbers(mapping, "matrix", source, "a 3x3 list of numbers", shape=(3, 3))
    distortion = _numbers(mapping, "distortion", source, "4 or 5 numbers (k1, k2, p1, p2[, k3])")
    if distortion.ndim != 1 or distortion.size not in (4, 5):
        raise CalibrationError(
            f"{source}: 'distortion' must be 4 or 5 numbers (k1, k2, p1, p2[, k3]), got "
            f"{_shown(mapping['distortion'])}"
        )
    size = None
    if mapping.get("image_size") is not None:
        size_array = _numbers(mapping, "image_size", source, "[width, height] in pixels", (2,))
        if not np.all(size_array == np.round(size_array)) or np.any(size_array <= 0):
            raise CalibrationError(
                f"{source}: 'image_size' must be two positive whole numbers, got "
                f"{_shown(mapping['image_size'])}"
            )
        size = (int(size_array[0]), int(size_array[1]))
    error = mapping.get("reprojection_error_px")
    if error is not None and not _is_number(error):
        raise CalibrationError(
            f"{source}: 'reprojection_error_px' must be a number of pixels, got {_shown(error)}"
        )
    try:
        return CameraModel.from_values(matrix, distortion, size, error)
    except CalibrationError as problem:
        raise CalibrationError(f"{source}: {problem}") from None


def save_camera(path: str | Path, model: CameraModel) -> None:
    """Write the camera to a JSON file."""
    _write(Path(path), camera_to_dict(model))


def load_camera(path: str | Path) -> CameraModel:
    """Read a camera JSON file, or raise a CalibrationError naming the file and the problem."""
    source = f"camera file {str(path)!r}"
    return camera_from_dict(_read(Path(path), source), source)


def table_fit_to_dict(fit: TableFit) -> dict[str, Any]:
    """The table fit as plain JSON-ready values."""
    return {
        "format": TABLE_FIT_FORMAT,
        "image_to_table": fit.transform.image_to_table_matrix.tolist(),
        "image_points": fit.image_points.tolist(),
        "table_points": fit.table_points.tolist(),
        "groups": list(fit.groups),
        "inliers": [bool(v) for v in fit.inliers],
        "residuals_mm": fit.residuals_mm.tolist(),
        "max_residual_mm": fit.max_residual_mm,
        "lens": None if fit.lens is None else camera_to_dict(fit.lens),
    }


def table_fit_from_dict(data: object, source: str = "table fit") -> TableFit:
    """A table fit from its dict; residuals are recomputed from the matrix and the points."""
    mapping = _mapping(data, source)
    _check_format(mapping, TABLE_FIT_FORMAT, source)
    matrix = _numbers(mapping, "image_to_table", source, "a 3x3 list of numbers", (3, 3))
    image = _numbers(mapping, "image_points", source, "a list of [x, y] pixels")
    table = _numbers(mapping, "table_points", source, "a list of [x, y] millimetres")
    count = len(image)
    for name, points in (("image_points", image), ("table_points", table)):
        if points.ndim != 2 or points.shape != (count, 2) or count < 4:
            raise CalibrationError(
                f"{source}: {name!r} must be 4 or more [x, y] pairs, as many as "
                f"'image_points' ({count}), got shape {points.shape}"
            )
    groups = _list(mapping, "groups", source, count, int, "whole numbers")
    inliers = _list(mapping, "inliers", source, count, bool, "true/false")
    given = mapping.get("max_residual_mm")
    if not isinstance(given, int | float) or not _is_number(given) or not given > 0:
        raise CalibrationError(
            f"{source}: 'max_residual_mm' must be a positive number, got {_shown(given)}"
        )
    limit = float(given)
    lens_data = mapping.get("lens")
    lens = None if lens_data is None else camera_from_dict(lens_data, f"{source}: lens")
    try:
        transform = TableTransform.from_matrix(matrix)
        draft = TableFit(
            transform, image, table, np.zeros(count), np.array(inliers), tuple(groups), limit, lens
        )
        residuals = np.linalg.norm(draft.image_to_table(image) - table, axis=1)
    except CalibrationError as problem:
        raise CalibrationError(f"{source}: {problem}") from None
    return TableFit(
        transform, image, table, residuals, np.array(inliers), tuple(groups), limit, lens
    )


def save_table_fit(path: str | Path, fit: TableFit) -> None:
    """Write the table fit to a JSON file."""
    _write(Path(path), table_fit_to_dict(fit))


def load_table_fit(path: str | Path) -> TableFit:
    """Read a table fit JSON file, or raise a CalibrationError naming the file and problem."""
    source = f"table fit file {str(path)!r}"
    return table_fit_from_dict(_read(Path(path), source), source)


def _write(path: Path, data: Mapping[str, Any]) -> None:
    try:
        text = json.dumps(data, indent=2, allow_nan=False)
        path.write_text(text + "\n", encoding="utf-8")
    except ValueError:
        raise CalibrationError(f"cannot save {str(path)!r}: it would contain NaN") from None
    except OSError as error:
        raise CalibrationError(f"cannot write {str(path)!r}: {error.strerror}") from None


def _read(path: Path, source: str) -> object:
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM, as Windows editors write, is fine
    except OSError as error:
        raise CalibrationError(f"{source} cannot be read: {error.strerror}") from None
    except UnicodeDecodeError:
        raise CalibrationError(f"{source} is not a text (UTF-8 JSON) file") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CalibrationError(
            f"{source} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except RecursionError:
        raise CalibrationError(f"{source} is not a usable JSON file: nested too deeply") from None
    except ValueError as error:  # an integer of thousands of digits
        raise CalibrationError(f"{source} is not a usable JSON file: {error}") from None


def _mapping(data: object, source: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise CalibrationError(f"{source} must be a JSON object / table, got {type(data).__name__}")
    return data


def _check_format(mapping: Mapping[str, Any], expected: str, source: str) -> None:
    found = mapping.get("format", expected)
    if found != expected:
        raise CalibrationError(f"{source}: 'format' is {_shown(found)}; expected {expected!r}")


def _shown(value: object, limit: int = 80) -> str:
    """A value as a message quotes it: its repr, cut short (a message is one readable line)."""
    try:
        text = repr(value)
    except RecursionError:
        return "a value nested too deeply to show"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_number(value: object) -> bool:
    """A finite int or float (an int too large for a float is not one)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _numbers(
    mapping: Mapping[str, Any],
    key: str,
    source: str,
    what: str,
    shape: tuple[int, ...] | None = None,
) -> np.ndarray:
    if key not in mapping:
        raise CalibrationError(f"{source}: missing key {key!r} ({what})")
    value = mapping[key]
    flat = np.array(value, dtype=object).ravel() if _rectangular(value) else None
    if flat is None or not all(_is_number(v) for v in flat):
        raise CalibrationError(f"{source}: {key!r} must be {what} (finite), got {_shown(value)}")
    array = np.array(value, dtype=float)
    if shape is not None and array.shape != shape:
        raise CalibrationError(f"{source}: {key!r} must be {what}, got shape {array.shape}")
    return array


def _rectangular(value: object) -> bool:
    """Whether nested lists have a regular shape numpy can hold without ragged objects."""
    try:
        np.array(value, dtype=float)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return False
    return True


def _list(
    mapping: Mapping[str, Any], key: str, source: str, count: int, kind: type, what: str
) -> list[Any]:
    value = mapping.get(key)
    if (
        not isinstance(value, list)
        or len(value) != count
        or not all(isinstance(v, kind) and (kind is bool or not isinstance(v, bool)) for v in value)
    ):
        raise CalibrationError(
            f"{source}: {key!r} must be a list of {count} {what} (one per point), "
            f"got {_shown(value)}"
        )
    return value
