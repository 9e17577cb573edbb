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
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
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

from .detect import Detector, Look, TagDetection, make_detector
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


COARSE_MIN_PX: Final = 48.0
"""The coarse pass (the picture shrunk twice) runs only when the game's largest tag may be this
many pixels across or more: shrunk, it is still 24 px (3 px a cell of tag36h11). A smaller tag
the full-frame pass misses is small, not soft, and the second pass's upscaled look reads it."""


def _side_px(corners: npt.NDArray[np.float64]) -> float:
    return float(np.mean(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)))


WEAK_MARGIN: Final = 15.0
"""pupil's decision margin under which a full-frame read must be confirmed by a second look.
Measured on rendered 1080p frames: pupil read felt texture under strong glare as a tag at a
margin of 2.1 (hamming 2), while real tags read at 7-17 under strong glare or a grey print and
at 34 or more otherwise; the second pass's upscaled, sharpened windows read real tags at 35 or
more under the same conditions."""


def _weak(det: TagDetection) -> bool:
    return det.decision_margin is not None and det.decision_margin < WEAK_MARGIN


@dataclass(slots=True)
class _Keeper:
    """Keeps a tag a later pass read when it is one of the game's, not seen yet, and not on a
    tag the full-frame pass read."""

    expected: set[tuple[str, int]]
    known: list[TagDetection]
    seen: set[tuple[str, int]]
    mine: list[TagDetection]
    second: list[TagDetection]

    def __call__(self, det: TagDetection) -> None:
        key = (pattern_family(det.family), det.tag_id)
        if key not in self.expected or key in self.seen:
            return
        if any(_same_place(det, d) for d in self.known):
            return
        self.second.append(det)
        self.mine.append(det)
        self.seen.add(key)


def _same_place_as_quad(det: TagDetection, quad: npt.NDArray[np.float64]) -> bool:
    """A tag read on (or inside) a dark quad: its centre within 0.6 of its side of the quad's."""
    side = float(np.linalg.norm(det.corners[1] - det.corners[0]))
    return float(np.linalg.norm(det.center - np.asarray(quad).mean(axis=0))) < 0.6 * side


class Budget:
    """Time for the extra passes of one frame, counted from its first `spent()` check (so the
    work that must be done before them is not charged to it): `spent()` once `seconds` have
    gone by since, on `clock` (a test gives a clock of its own, so what is deferred does not
    depend on the machine's speed)."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.perf_counter) -> None:
        self.seconds = float(seconds)
        self.clock = clock
        self.start: float | None = None

    def spent(self) -> bool:
        now = self.clock()
        if self.start is None:
            self.start = now
        return now - self.start >= self.seconds

    def used(self) -> float:
        """Seconds used since the first check (0 if none)."""
        return 0.0 if self.start is None else self.clock() - self.start


@dataclass(slots=True)
class Detected:
    """What `Scanner.detect_all` found in one picture, and what it left for later."""

    first: list[TagDetection] = field(default_factory=list)
    """The full-frame pass's tags (weak reads confirmed, strays kept to be reported)."""
    second: list[TagDetection] = field(default_factory=list)
    """The game's tags only the later passes found (coarse, second look, weak reads again)."""
    dropped: list[TagDetection] = field(default_factory=list)
    """Weak full-frame reads a second look did not confirm (left out)."""
    deferred: list[tuple[Detector, Look]] = field(default_factory=list)
    """Second looks not taken when the budget was spent, with the detector to take them."""
    passes: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Extra passes (`coarse`) run, and skipped because the budget was spent."""
    coarse_deferred: list[Detector] = field(default_factory=list)
    """The detectors whose coarse pass was skipped for want of budget."""
    looks: int = 0
    looked: int = 0
    """Second looks listed, and taken."""


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
    for about 100 ms more a frame (benchmarks/bench_scan.py). It also turns on the coarse pass
    (`Detector.detect_coarse`, the picture shrunk twice: large tags blurred close to the
    camera). Off, the scanner is the plain full-frame detector.
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
        self._sizes = {(pattern_family(t.family), t.id): t.size for t in self.tags}
        families = sorted({(t.family, t.border_bits) for t in self.tags})
        self.detectors: dict[tuple[str, int], Detector] = {
            key: make_detector(key[0], key[1], **detector_options) for key in families
        }

    def detect(self, gray: npt.NDArray[np.uint8]) -> list[TagDetection]:
        """Every tag of the game's families in the picture (every pass)."""
        first, second, _dropped = self._detect_both(gray)
        return first + second

    def _detect_both(
        self, gray: npt.NDArray[np.uint8]
    ) -> tuple[list[TagDetection], list[TagDetection], list[TagDetection]]:
        """`detect_all` with no budget: the first pass's tags, the game's tags only the later
        passes found, and the weak full-frame reads not confirmed (left out)."""
        found = self.detect_all(gray)
        return found.first, found.second, found.dropped

    def detect_all(self, gray: npt.NDArray[np.uint8], budget: Budget | None = None) -> Detected:
        """Every pass over the picture, the later ones within `budget` (None: no limit).

        The full-frame pass reads every tag it can. With `second_pass` on, two more passes look
        for the game's tags it missed: the coarse pass reads the picture shrunk twice each way
        (`Detector.detect_coarse`: large tags blurred close to the camera; only when the game's
        tags may be `COARSE_MIN_PX` across), and the second pass looks again, upscaled and
        sharpened, at every dark quad not read (`missed_looks`, `read_look`: small tags). Looks
        left when the budget is spent are returned in `deferred`, and a coarse pass skipped in
        `coarse_deferred`, for a caller that sees the next frames too (the tracker).

        The later passes keep only ids the game expects and has not seen: a quad re-read with
        sharpening is a guess, and an unknown id there is likelier a misread than a stray tag.
        Full-frame reads that are doubtful are looked at again rather than trusted: a weak one
        (decision margin under `WEAK_MARGIN`) stands only if the second look reads the same id
        at the same place, and one with an id the game does not have is replaced when the
        second look reads a game tag there (else it stays, to be reported as unknown).
        """
        out = Detected()
        first, second, dropped = out.first, out.second, out.dropped
        for detector in self.detectors.values():
            found = detector.detect(gray)
            if not self.second_pass:
                first.extend(found)
                continue
            weak = [d for d in found if _weak(d)]
            known = [d for d in found if not _weak(d) and self._key(d) in self._expected]
            strays = [d for d in found if not _weak(d) and self._key(d) not in self._expected]
            seen = {self._key(d) for d in first + known}
            mine: list[TagDetection] = []  # what the later passes of this detector found
            keep = _Keeper(self._expected, known, seen, mine, second)

            if self._coarse_needed(found):
                if budget is None or not budget.spent():
                    out.passes.append("coarse")
                    for det in detector.detect_coarse(gray):
                        keep(det)
                else:
                    out.skipped.append("coarse")
                    out.coarse_deferred.append(detector)
            looks = detector.missed_looks(gray, known + mine)
            out.looks += len(looks)
            for index, look in enumerate(looks):
                if budget is not None and budget.spent():
                    out.deferred.extend((detector, later) for later in looks[index:])
                    break
                if any(_same_place_as_quad(d, look.quad) for d in mine):
                    continue  # read by an earlier look
                out.looked += 1
                for det in detector.read_look(gray, look):
                    keep(det)
            first.extend(known)
            first.extend(s for s in strays if not any(_same_place(s, d) for d in mine))
            for w in weak:
                if any(_same_place(w, d) for d in mine):
                    continue  # the later passes read it (the same id or a game tag)
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
        return out

    def _coarse_needed(self, found: Sequence[TagDetection]) -> bool:
        """Whether the game's largest tag may be `COARSE_MIN_PX` across or more in this picture,
        judged from the tags the full-frame pass read (their pixels per mm), or it read none:
        smaller tags are better read by the second pass's upscaled looks."""
        scales = [
            _side_px(d.corners) / self._sizes[self._key(d)]
            for d in found
            if self._sizes.get(self._key(d), 0.0) > 0
        ]
        if not scales:
            return True
        return max(scales) * max(self._sizes.values()) >= COARSE_MIN_PX

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
        if fit.warnings:
            doc["detection"].setdefault("warnings", []).extend(fit.warnings)
        if raised and pose is None:
            doc["detection"].setdefault("warnings", []).extend(
                [
                    f"{len(raised)} base tags stand above the table but the camera's intrinsics "
                    "are unknown, so their parallax is not corrected: give [camera] in the game "
                    "file or --camera from `umpire calibrate camera`"
                ]
            )
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
        sigma = math.hypot(noise, max(fit.rms_mm, fit.uncertainty_mm))
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
