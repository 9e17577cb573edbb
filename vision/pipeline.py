"""One photo in, one scene out: detect every tag family the game uses, fit the table to the
corner tags, map each tag onto the table (from its height, when the camera is known), and build
the `umpire-scene/1` document with what was seen and what was not.

Data flow: image -> `vision.detect` (tags in pixels) -> `calibration.fit` (pixels -> table mm)
-> `vision.scene` (tags -> bases, terrain, diagnostics). Never imports flask or webui.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraModel, CameraPose, camera_pose, table_point_at_height
from calibration.fit import fit_corner_tags, tag_centre
from calibration.homography import TableFit
from calibration.units import from_mm
from rules.errors import UmpireError

from .detect import Detector, TagDetection, make_detector
from .game import Game, TagRole, game_tags, pattern_family
from .scene import TagObservation, build_scene

CORNER_NOISE_PX: Final = 0.2
"""One-sigma noise of a detected tag corner, pixels (measured on rendered frames: 0.05 px
median, up to 0.3 px on small blurred tags); the centre averages four corners."""


class ImageError(UmpireError):
    """An image file that cannot be read as a photo."""


def read_image(path: str | Path) -> npt.NDArray[np.uint8]:
    """A photo from a file (PNG, JPEG, ...), or `ImageError` naming the file and what is wrong."""
    p = Path(path)
    if not p.exists():
        raise ImageError(f"{p}: no such image file")
    if p.is_dir():
        raise ImageError(f"{p}: is a folder; give one image file (PNG, JPEG, BMP, TIFF, WebP)")
    data = np.fromfile(str(p), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ImageError(
            f"{p}: not an image OpenCV can read; give a PNG, JPEG, BMP, TIFF or WebP photo"
        )
    return np.asarray(image, dtype=np.uint8)


@dataclass(frozen=True, slots=True)
class Scan:
    """What one photo showed."""

    scene: Mapping[str, Any]
    """The `umpire-scene/1` document, with diagnostics under `detection`."""
    fit: TableFit
    pose: CameraPose | None
    """The camera's pose, when intrinsics are known (then raised tags are corrected)."""
    detections: tuple[TagDetection, ...] = field(default=())


class Scanner:
    """Turns photos of one game's table into scenes; keeps one detector per tag family."""

    def __init__(self, game: Game, camera: CameraModel | None = None, **detector_options: Any):
        self.game = game
        self.camera = camera
        self.tags = game_tags(game)
        families = sorted({(t.family, t.border_bits) for t in self.tags})
        self.detectors: dict[tuple[str, int], Detector] = {
            key: make_detector(key[0], key[1], **detector_options) for key in families
        }

    def detect(self, gray: npt.NDArray[np.uint8]) -> list[TagDetection]:
        """Every tag of the game's families in the picture."""
        found: list[TagDetection] = []
        for detector in self.detectors.values():
            found.extend(detector.detect(gray))
        return found

    def scan(
        self,
        image: npt.NDArray[np.uint8],
        state: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Scan:
        """The scene in one photo. Raises `CalibrationError` when the table cannot be fitted."""
        gray: npt.NDArray[np.uint8] = np.asarray(
            image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8
        )
        height, width = gray.shape[:2]
        camera = self.camera or self._game_camera((width, height))
        detections = self.detect(gray)
        by_tag: dict[tuple[str, int], list[TagDetection]] = defaultdict(list)
        for det in detections:
            by_tag[(pattern_family(det.family), det.tag_id)].append(det)

        cal = self.game.calibration
        layout = {c.tag: (c.x, c.y) for c in cal.corners}
        corner_family = pattern_family(cal.spec.family)
        seen_corners = {
            tag: by_tag[(corner_family, tag)][0].corners
            for tag in layout
            if len(by_tag.get((corner_family, tag), [])) == 1
        }
        fit = fit_corner_tags(
            seen_corners,
            layout,
            cal.spec.size,
            image_size=(width, height),
            table_size_mm=(self.game.table_width, self.game.table_depth),
            lens=camera,
        )
        pose = None
        if camera is not None:
            pose = camera_pose(camera, fit.image_points[fit.inliers], fit.table_points[fit.inliers])

        heights = {(pattern_family(t.family), t.id): t.height for t in self.tags}
        observations = [
            self._observe(
                det, fit, camera, pose, heights.get((pattern_family(det.family), det.tag_id), 0.0)
            )
            for det in detections
        ]
        doc = build_scene(self.game, observations, state=state)
        doc["detection"]["calibration"] = self._calibration_report(fit, camera, pose)
        doc["detection"]["image"] = {"width": width, "height": height}
        raised = [t.owner for t in self.tags if t.height > 0 and t.role is TagRole.BASE]
        if raised and pose is None:
            doc["detection"]["warnings"] = [
                f"{len(raised)} base tags stand above the table but the camera's intrinsics "
                "are unknown, so their parallax is not corrected: give [camera] in the game "
                "file or --camera from `umpire calibrate camera`"
            ]
        return Scan(doc, fit, pose, tuple(detections))

    def _game_camera(self, image_size: tuple[int, int]) -> CameraModel | None:
        if self.game.camera is None:
            return None
        return CameraModel.from_values(
            self.game.camera.matrix, self.game.camera.distortion, image_size
        )

    def _observe(
        self,
        det: TagDetection,
        fit: TableFit,
        camera: CameraModel | None,
        pose: CameraPose | None,
        height_mm: float,
    ) -> TagObservation:
        if pose is not None and camera is not None and height_mm > 0:
            corners_mm = table_point_at_height(camera, pose, det.corners, height_mm)
        else:
            corners_mm = fit.image_to_table(det.corners)
        centre_px = tag_centre(det.corners)
        mm_per_px = float(np.max(fit.transform.mm_per_pixel(centre_px[None])))
        # The centre averages four corners: its noise is half a corner's.
        noise = CORNER_NOISE_PX / 2 * mm_per_px
        sigma = math.hypot(noise, fit.rms_mm)
        return TagObservation(det.family, det.tag_id, corners_mm, sigma)

    def _calibration_report(
        self, fit: TableFit, camera: CameraModel | None, pose: CameraPose | None
    ) -> dict[str, Any]:
        unit = self.game.unit
        return {
            "reference_tags": sorted(set(fit.groups)),
            "rms": round(from_mm(fit.rms_mm, unit), 4),
            "worst": round(from_mm(fit.worst_mm, unit), 4),
            "per_tag": {
                str(tag): round(from_mm(mm, unit), 4)
                for tag, mm in fit.residuals_by_group().items()
            },
            "rejected_tags": list(fit.outlier_groups),
            "unit": unit,
            "lens": (
                "known intrinsics"
                if camera is not None
                else ("fitted radial k1, k2" if fit.lens is not None else "none (pinhole)")
            ),
            "height_corrected": pose is not None,
        }
