"""One photo in, one scene out: detect every tag family the game uses, fit the table to the
corner tags, map each tag onto the table (from its height, when the camera is known), and build
the `umpire-scene/1` document with what was seen and what was not.

Data flow: image -> `vision.detect` (tags in pixels) -> `calibration.fit` (pixels -> table mm)
-> `vision.scene` (tags -> bases, terrain, diagnostics). Never imports flask or webui.

What issue 4's measurement bar needed (benchmarks/bench_scan.py measures it): a second detection
pass for the small tags a full-frame pass misses, doubtful full-frame reads looked at again
instead of trusted, and each tag's corners on the table replaced by the square that fits all
four (`square_fit`), so a base's facing comes from all four edges of its tag.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
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


# A tag's corners in its own frame, in units of its size: OpenCV's order (the marker picture's
# top-left, top-right, bottom-right, bottom-left), +y towards the tag's top edge.
_UNIT_SQUARE: Final = np.array([[-0.5, 0.5], [0.5, 0.5], [0.5, -0.5], [-0.5, -0.5]])


def square_fit(corners_mm: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The square closest (least squares) to four tag corners on the table: same centre (their
    mean), turned and scaled to fit all four.

    A base's facing then comes from all four edges of its tag, not only from the centre and the
    top edge's midpoint: each edge's direction is a measurement of the turn, so the noise of
    one corner moves the facing about half as much (measured on rendered 1080p frames, the
    median facing error of 20 mm tags fell from ~0.3-0.5 to ~0.15-0.2 degrees). The fit is the
    similarity transform of `_UNIT_SQUARE`: with points as complex numbers, scale * turn =
    sum(conj(q) * p) / sum(|q|^2) over the centred corners p and the unit square's q.
    """
    points = np.asarray(corners_mm, dtype=np.float64).reshape(4, 2)
    centre = points.mean(axis=0)
    p = (points[:, 0] - centre[0]) + 1j * (points[:, 1] - centre[1])
    q = _UNIT_SQUARE[:, 0] + 1j * _UNIT_SQUARE[:, 1]
    turn = complex(np.sum(np.conj(q) * p) / np.sum(np.abs(q) ** 2))
    fitted = q * turn
    return np.column_stack([fitted.real, fitted.imag]) + centre


WEAK_MARGIN: Final = 15.0
"""pupil's decision margin under which a full-frame read must be confirmed by a second look.
Measured on rendered 1080p frames: pupil read felt texture under strong glare as a tag at a
margin of 2.1 (hamming 2), while real tags read at 7-17 under strong glare or a grey print and
at 34 or more otherwise; the second pass's upscaled, sharpened windows read real tags at 35 or
more under the same conditions."""


def _weak(det: TagDetection) -> bool:
    return det.decision_margin is not None and det.decision_margin < WEAK_MARGIN


def _same_place(first: TagDetection, second: TagDetection) -> bool:
    """Two readings of one printed tag: their centres closer than half a tag side."""
    side = float(np.linalg.norm(first.corners[1] - first.corners[0]))
    return float(np.linalg.norm(first.center - second.center)) < 0.5 * side


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


def to_gray(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """A camera frame (BGR, or already grey) as the 8-bit grey picture the detectors read."""
    if image.ndim == 2:
        return np.asarray(image, dtype=np.uint8)
    return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8)


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
    """Turns photos of one game's table into scenes; keeps one detector per tag family.

    `second_pass` (on by default) looks again, upscaled and sharpened, at every dark quad the
    full-frame pass did not read (`Detector.detect_missed`) and keeps the tags of the game found
    there: on rendered 1080p frames with 20 mm tags it lifts recall from 86-97% to over 99.5%
    for about 100 ms more a frame (benchmarks/bench_scan.py).
    """

    def __init__(
        self,
        game: Game,
        camera: CameraModel | None = None,
        *,
        second_pass: bool = True,
        **detector_options: Any,
    ):
        self.game = game
        self.camera = camera
        self.second_pass = second_pass
        self.tags = game_tags(game)
        self._expected = {(pattern_family(t.family), t.id) for t in self.tags}
        self._heights = {(pattern_family(t.family), t.id): t.height for t in self.tags}
        families = sorted({(t.family, t.border_bits) for t in self.tags})
        self.detectors: dict[tuple[str, int], Detector] = {
            key: make_detector(key[0], key[1], **detector_options) for key in families
        }

    def detect(self, gray: npt.NDArray[np.uint8]) -> list[TagDetection]:
        """Every tag of the game's families in the picture (both passes)."""
        first, second, _dropped = self._detect_both(gray)
        return first + second

    def _detect_both(
        self, gray: npt.NDArray[np.uint8]
    ) -> tuple[list[TagDetection], list[TagDetection], list[TagDetection]]:
        """The full-frame pass's tags, the game's tags only the second pass found, and the weak
        full-frame reads it did not confirm (left out).

        The second pass keeps only ids the game expects and has not seen: a quad re-read with
        sharpening is a guess, and an unknown id there is likelier a misread than a stray tag.
        Full-frame reads that are doubtful are looked at again rather than trusted: a weak one
        (decision margin under `WEAK_MARGIN`) stands only if the second look reads the same id
        at the same place, and one with an id the game does not have is replaced when the
        second look reads a game tag there (else it stays, to be reported as unknown).
        """
        first: list[TagDetection] = []
        second: list[TagDetection] = []
        dropped: list[TagDetection] = []
        for detector in self.detectors.values():
            found = detector.detect(gray)
            if not self.second_pass:
                first.extend(found)
                continue
            weak = [d for d in found if _weak(d)]
            known = [d for d in found if not _weak(d) and self._key(d) in self._expected]
            strays = [d for d in found if not _weak(d) and self._key(d) not in self._expected]
            seen = {self._key(d) for d in first + known}
            for det in detector.detect_missed(gray, known):
                if self._key(det) in self._expected and self._key(det) not in seen:
                    second.append(det)
                    seen.add(self._key(det))
            first.extend(known)
            first.extend(s for s in strays if not any(_same_place(s, d) for d in second))
            for w in weak:
                if any(_same_place(w, d) for d in second):
                    continue  # the candidates' second look read it (the same id or a game tag)
                again = [
                    d
                    for d in detector.detect_at(gray, w.corners)
                    if d.tag_id == w.tag_id and _same_place(w, d)
                ]
                if not again:
                    dropped.append(w)
                elif self._key(w) not in self._expected:
                    first.append(again[0])  # read twice alike: a stray tag, reported
                elif self._key(w) not in seen:
                    second.append(again[0])
                    seen.add(self._key(w))
        return first, second, dropped

    @staticmethod
    def _key(det: TagDetection) -> tuple[str, int]:
        return (pattern_family(det.family), det.tag_id)

    def scan(
        self,
        image: npt.NDArray[np.uint8],
        state: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Scan:
        """The scene in one photo. Raises `CalibrationError` when the table cannot be fitted."""
        gray = to_gray(image)
        height, width = gray.shape[:2]
        camera = self.camera or self.game_camera((width, height))
        first, second, dropped = self._detect_both(gray)
        detections = first + second
        fit, pose = self.fit_table(detections, (width, height), camera)
        observations = [self.observe(det, fit, camera, pose) for det in detections]
        doc = self.scene_document(observations, fit, camera, pose, (width, height), state)
        doc["detection"]["second_pass"] = {
            "on": self.second_pass,
            "recovered_tags": sorted([pattern_family(d.family), d.tag_id] for d in second),
            "unconfirmed_weak_reads": sorted([pattern_family(d.family), d.tag_id] for d in dropped),
        }
        return Scan(doc, fit, pose, tuple(detections))

    def fit_table(
        self,
        detections: Sequence[TagDetection],
        image_size: tuple[int, int],
        camera: CameraModel | None,
    ) -> tuple[TableFit, CameraPose | None]:
        """The table fitted to the corner tags among `detections` (a corner tag seen twice is
        not used), and the camera's pose when its intrinsics are known."""
        cal = self.game.calibration
        layout = {c.tag: (c.x, c.y) for c in cal.corners}
        corner_family = pattern_family(cal.spec.family)
        by_tag: dict[int, list[TagDetection]] = defaultdict(list)
        for det in detections:
            if pattern_family(det.family) == corner_family and det.tag_id in layout:
                by_tag[det.tag_id].append(det)
        seen_corners = {tag: dets[0].corners for tag, dets in by_tag.items() if len(dets) == 1}
        fit = fit_corner_tags(
            seen_corners,
            layout,
            cal.spec.size,
            image_size=image_size,
            table_size_mm=(self.game.table_width, self.game.table_depth),
            lens=camera,
        )
        pose = None
        if camera is not None:
            pose = camera_pose(camera, fit.image_points[fit.inliers], fit.table_points[fit.inliers])
        return fit, pose

    def scene_document(
        self,
        observations: Sequence[TagObservation],
        fit: TableFit,
        camera: CameraModel | None,
        pose: CameraPose | None,
        image_size: tuple[int, int],
        state: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The `umpire-scene/1` document of these tags, with the calibration under
        `detection`."""
        doc = build_scene(self.game, observations, state=state)
        doc["detection"]["calibration"] = self._calibration_report(fit, camera, pose)
        doc["detection"]["image"] = {"width": image_size[0], "height": image_size[1]}
        raised = [t.owner for t in self.tags if t.height > 0 and t.role is TagRole.BASE]
        if raised and pose is None:
            doc["detection"]["warnings"] = [
                f"{len(raised)} base tags stand above the table but the camera's intrinsics "
                "are unknown, so their parallax is not corrected: give [camera] in the game "
                "file or --camera from `umpire calibrate camera`"
            ]
        return doc

    def game_camera(self, image_size: tuple[int, int]) -> CameraModel | None:
        """The game file's `[camera]` for pictures of this size, if it gives one."""
        if self.game.camera is None:
            return None
        return CameraModel.from_values(
            self.game.camera.matrix, self.game.camera.distortion, image_size
        )

    def observe(
        self,
        det: TagDetection,
        fit: TableFit,
        camera: CameraModel | None,
        pose: CameraPose | None,
    ) -> TagObservation:
        """One tag on the table: its corners mapped through the fit (from its height above the
        table, when the camera's pose is known), squared up, with its uncertainty."""
        height_mm = self._heights.get((pattern_family(det.family), det.tag_id), 0.0)
        if pose is not None and camera is not None and height_mm > 0:
            corners_mm = table_point_at_height(camera, pose, det.corners, height_mm)
        else:
            corners_mm = fit.image_to_table(det.corners)
        corners_mm = square_fit(corners_mm)
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
