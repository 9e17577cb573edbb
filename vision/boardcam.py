"""A synthetic camera filming a printed ChArUco calibration board held at varied poses, with
KNOWN intrinsics: the calibration page's tests and demo without a webcam (`--source board`).

The board is the one `umpire tags --charuco` prints (`calibration.fit.PRINTED_BOARD`), laid
on the plane z = 0 and filmed through the demo renderer's own projection
(`vision.render.plane_maps`: a `CameraSpec`) from a cycle of poses - square on, tilted 15-40
degrees every way (the camera turned about its axis: `CameraSpec.roll_deg`), off to each side
of the picture - each held for `hold` frames, as a player holds the board still a moment. Its
camera has a 60 degree horizontal field of view, so at W pixels wide
fx = fy = (W / 2) / tan(30 degrees), the principal point is the picture's centre
((W - 1) / 2, (H - 1) / 2), and the lens is distortion-free (`true_camera` gives them).

Its settings act on the picture, as a webcam's do: the resolution is the rendered size (the
focal length in pixels scales with it), the exposure brightens or darkens the picture by
2 ** exposure (-3 to 3 stops; far enough and the board washes out). It has one camera (index 0)
and a fixed focus: asked for another camera or a focus, it says so in `refused`.

Never imports flask, webui, rules or pupil_apriltags.
"""

from __future__ import annotations

import math
import threading
from typing import Final

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.fit import PRINTED_BOARD, CharucoSpec, render_charuco_board
from vision.render import CameraSpec, RenderError, plane_maps
from vision.sources import (
    BaseSource,
    CameraControls,
    CameraSettings,
    FramePacer,
    SourceError,
    _resolution,
)

FOV_DEG: Final = 60.0
"""Horizontal field of view of the synthetic camera: fx = (W / 2) / tan(30 degrees)."""
DISTORTION: Final = (0.0, 0.0, 0.0, 0.0, 0.0)
"""Its lens: an ideal pinhole (the renderer bends every pixel's ray through a lens once per
pose, about a second a frame on a busy machine: too slow for a live view)."""
RESOLUTIONS: Final = ((640, 480), (800, 600), (1024, 768), (1280, 720))
"""The sizes it renders at (the page offers these)."""
EXPOSURE_RANGE: Final = (-3.0, 3.0)
"""Stops darker or brighter than its normal picture."""
PX_PER_MM: Final = 8.0
MARGIN_MM: Final = 20.0
BOARD_TONES: Final = (30.0, 190.0)
"""Grey of the board's black and white (room above white for a brighter exposure)."""
TABLE_GREY: Final = 110.0
"""Grey of what lies around the board."""

POSES: Final = (
    # tilt, roll (degrees), aim off the board's centre (mm), camera height (mm)
    (0.0, 0.0, 0.0, 0.0, 290.0),
    (35.0, 0.0, 0.0, 0.0, 270.0),
    (35.0, 90.0, 0.0, 0.0, 270.0),
    (35.0, 45.0, 0.0, 0.0, 270.0),
    (35.0, 135.0, 0.0, 0.0, 270.0),
    (40.0, 20.0, 45.0, 30.0, 300.0),
    (40.0, 110.0, -45.0, 30.0, 300.0),
    (40.0, 70.0, -45.0, -30.0, 300.0),
    (40.0, 160.0, 45.0, -30.0, 300.0),
    (15.0, 60.0, 60.0, 40.0, 250.0),
    (15.0, 150.0, -60.0, -40.0, 250.0),
    (20.0, 30.0, 60.0, -40.0, 260.0),
    (20.0, 120.0, -60.0, 40.0, 260.0),
)
"""The poses it cycles through: every part of the picture and tilts every way."""


class BoardCameraSource(BaseSource):
    """A live source of synthetic views of the printed ChArUco board (see the module)."""

    live = True
    resolutions: tuple[tuple[int, int], ...] = RESOLUTIONS
    cameras: tuple[int, ...] = (0,)
    exposure_range: tuple[float, float] | None = EXPOSURE_RANGE
    focus_range: tuple[float, float] | None = None
    """None: a fixed focus."""

    def __init__(
        self,
        *,
        resolution: str | tuple[int, int] = "640x480",
        fps: float = 5.0,
        hold: int = 3,
        realtime: bool = True,
        seed: int = 0,
    ) -> None:
        size = _resolution(resolution)
        if size not in RESOLUTIONS:
            raise SourceError(_bad_resolution(size))
        if not (isinstance(fps, int | float) and 0 < fps <= 60):
            raise SourceError(f"board camera: fps must be above 0 and at most 60, not {fps!r}")
        if isinstance(hold, bool) or not isinstance(hold, int) or hold < 1:
            raise SourceError(f"board camera: hold must be a whole number of frames, not {hold!r}")
        super().__init__("board")
        self.board: CharucoSpec = PRINTED_BOARD
        self.size = size
        self.exposure = 0.0
        self.fps = float(fps)
        self.hold = hold
        self.realtime = bool(realtime)
        self._rng = np.random.default_rng(seed)
        self._lock = threading.Lock()
        """Held while a frame is drawn and while the settings change."""
        self._asked = CameraSettings(0, size, None, None)
        self._refused: tuple[str, ...] = ()
        picture = render_charuco_board(self.board, PX_PER_MM, MARGIN_MM).astype(np.float32)
        dark, light = BOARD_TONES
        # Row 0 of a plane picture is the near edge (y = 0), the bottom of the view: flipped,
        # the board reads the right way up, not mirrored.
        self._texture = np.ascontiguousarray(np.flipud(dark + (light - dark) * picture / 255.0))
        height, width = picture.shape
        self._centre = (width / PX_PER_MM / 2, height / PX_PER_MM / 2)
        self._open()

    def _open(self) -> None:
        self._played = 0
        self._pacer = FramePacer(self.fps)

    def _release(self) -> None:
        return

    def true_camera(self) -> CameraModel:
        """The intrinsics it films with at its current resolution (what a calibration should
        find)."""
        spec = self._spec(POSES[0])
        return CameraModel.from_values(spec.matrix(), DISTORTION[:4], self.size)

    def pose_index(self, frame: int) -> int:
        """Which of `POSES` frame number `frame` shows."""
        return (frame // self.hold) % len(POSES)

    def _spec(self, pose: tuple[float, float, float, float, float]) -> CameraSpec:
        tilt, roll, _, _, height = pose
        return CameraSpec(
            self.size[0],
            self.size[1],
            height,
            tilt,
            fov_deg=FOV_DEG,
            distortion=DISTORTION,
            roll_deg=roll,
        )

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        with self._lock:
            pose = POSES[self.pose_index(self._played)]
            target = (self._centre[0] + pose[2], self._centre[1] + pose[3])
            try:
                fixed, fraction = plane_maps(self._spec(pose), target, PX_PER_MM)
            except RenderError as error:  # never for the poses above; said, not raised
                raise SourceError(f"board camera: {error}") from None
            grey = cv2.remap(
                self._texture,
                fixed,
                fraction,
                cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=TABLE_GREY,
            )
            blurred = np.asarray(cv2.GaussianBlur(grey, (0, 0), 0.6), dtype=np.float32)
            noisy = blurred + self._rng.normal(0.0, 1.5, blurred.shape).astype(np.float32)
            exposed = noisy * np.float32(2.0**self.exposure)
            image = np.clip(exposed + 0.5, 0, 255).astype(np.uint8)
            played = self._played
            self._played += 1
        timestamp = self._pacer.wait(played) if self.realtime else played / self.fps
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), timestamp, self.description

    # ----------------------------------------------------------------------------- settings

    def controls(self) -> CameraControls:
        with self._lock:
            return CameraControls(self._asked, self._took(), self._refused)

    def adjust(self, settings: CameraSettings) -> CameraControls:
        """Take the resolution and exposure asked for; say that there is no other camera and
        no focus control. A resolution or exposure it cannot take raises `SourceError` naming
        what it accepts (nothing is changed then)."""
        if settings.resolution is not None and settings.resolution not in RESOLUTIONS:
            raise SourceError(_bad_resolution(settings.resolution))
        low, high = EXPOSURE_RANGE
        if settings.exposure is not None and not (
            math.isfinite(settings.exposure) and low <= settings.exposure <= high
        ):
            raise SourceError(
                f"board camera: exposure {settings.exposure!r} is out of range; accepted: "
                f"{low:g} to {high:g} stops, or automatic"
            )
        refused = []
        if settings.camera not in (None, 0):
            refused.append(
                f"the synthetic board camera is camera 0; there is no camera {settings.camera}"
            )
        if settings.focus is not None:
            refused.append(
                f"focus {settings.focus:g} refused: the synthetic board camera has a fixed focus"
            )
        with self._lock:
            if settings.resolution is not None:
                self.size = settings.resolution
            self.exposure = 0.0 if settings.exposure is None else float(settings.exposure)
            self._asked = settings
            self._refused = tuple(refused)
            return CameraControls(settings, self._took(), self._refused)

    def _took(self) -> CameraSettings:
        return CameraSettings(0, self.size, self.exposure, None)


def _bad_resolution(size: tuple[int, int]) -> str:
    accepted = ", ".join(f"{w}x{h}" for w, h in RESOLUTIONS)
    return (
        f"board camera: resolution {size[0]}x{size[1]} is not one it renders; accepted: {accepted}"
    )
