"""Frame sources behind one small interface: a webcam by index, a video file, a folder of images
(or one still image), a network stream URL (a phone running an IP-camera app), and the built-in
demo table.

Every source is a `FrameSource`: `read()` gives the next `CapturedFrame` or None, `close()` lets
go of the device, and `with` does the closing. `open_source(spec)` turns the `--source` forms of
the contract into a source:

    demo                         the synthetic table of `vision.render`, bases moving, a hand
    board                        a synthetic camera filming the printed ChArUco board at varied
                                 poses, with known intrinsics (`vision.boardcam`)
    camera:N                     the webcam with OpenCV index N
    FILE.mp4 (.avi, .mkv, ...)   a video file, played once (or with `loop=True`)
    FILE.png (.jpg, ...)         one still photo, one frame (or the same one again with `loop`)
    DIR                          every image in the folder, in name order, each one a frame
    http:// https:// rtsp://     a network stream through OpenCV (FFmpeg); an MJPEG stream over
                                 HTTP is read by our own small parser when OpenCV cannot

Live sources (camera, URL, demo) keep going: a None from `read()` means "no frame now", counted
in `failures`, and `reopen()` connects again (the tracker decides when to retry, with back-off).
A file or a folder is not live: a None means it has ended. It is read as fast as it decodes,
or with `realtime=True` played like a camera: a video at its own frame rate (or `rate`), a
folder one photo a second (or `rate`), or a folder stepped by hand (`step=True`: each photo
after the first when `advance()` asks for it). Pacing waits on a `Clock` (tests bring a fake
one) and `interrupt()` cuts any wait short.

Bad input raises `SourceError` naming what was given and what is accepted. Never imports flask,
werkzeug, webui or pupil_apriltags.
"""

from __future__ import annotations

import http.client
import inspect
import logging
import math
import re
import sys
import threading
import time
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Any, Final, Protocol, Self, overload, runtime_checkable
from urllib.parse import urlsplit

import cv2
import numpy as np

from rules.errors import UmpireError, accepted
from vision.render import (
    CameraSpec,
    Effects,
    FrameTruth,
    RenderError,
    Scenario,
    TableSpec,
    camera_for_table,
    demo_table,
)

__all__ = [
    "IMAGE_SUFFIXES",
    "SOURCE_KINDS",
    "STREAM_READERS",
    "URL_SCHEMES",
    "VIDEO_SUFFIXES",
    "CameraControls",
    "CameraSettings",
    "CameraSource",
    "CapturedFrame",
    "DemoSource",
    "FrameSource",
    "ImageFolderSource",
    "SkippedFile",
    "SourceError",
    "SourceSpec",
    "StreamSource",
    "VideoFileSource",
    "open_source",
    "opencv_reads_streams",
    "parse_source",
]

_log = logging.getLogger(__name__)

VIDEO_SUFFIXES: Final = (".avi", ".mp4", ".mkv", ".webm", ".mov", ".m4v", ".mpg", ".mpeg", ".wmv")
IMAGE_SUFFIXES: Final = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
URL_SCHEMES: Final = ("http", "https", "rtsp")
ACCEPTED_FORMS: Final = (
    "accepted: 'demo', 'board' (a synthetic camera filming a calibration board), "
    "'camera:N' (N = 0, 1, ...), a video file ("
    + ", ".join(VIDEO_SUFFIXES)
    + "), an image file or a folder of images ("
    + ", ".join(IMAGE_SUFFIXES)
    + "), or a URL ("
    + ", ".join(f"{scheme}://" for scheme in URL_SCHEMES)
    + ")"
)

DEMO_EFFECTS: Final = Effects(blur_px=0.7, noise_sigma=2.0)
"""What a decent webcam adds to the demo table: a little lens blur and sensor noise."""
DEFAULT_PHOTO_RATE: Final = 1.0
"""Photos a second a folder is played at in real time, unless told otherwise."""
DEFAULT_VIDEO_FPS: Final = 25.0
"""The rate a video whose header gives none is played at in real time."""
MAX_PART_BYTES: Final = 32 * 1024 * 1024
"""Largest MJPEG part the stream parser accepts: a guard against a stream with no boundaries."""


class SourceError(UmpireError):
    """A frame source that cannot be opened: an unknown `--source` form, a missing file, an empty
    folder, a camera that does not open, a video that cannot be decoded, a stream that does not
    answer. The message quotes what was given and says what is accepted."""


@dataclass(frozen=True, slots=True)
class CapturedFrame:
    """One picture from a source, as the detector and the tracker receive it."""

    image: np.ndarray
    """HxWx3 uint8, BGR, read-only."""
    index: int
    """How many frames this source delivered before this one (0 for the first). It keeps
    counting across loops and reopens, so a tracker can tell frames apart."""
    timestamp: float
    """Seconds. Live sources: `time.monotonic()` when the frame was captured. A video file: the
    frame's position in the file (plus the file's length per completed loop). A folder: the
    monotonic time it was read. The demo without real-time pacing: its own clock, index / fps."""
    source: str
    """Where it came from: the source's description, or for a folder the image file's path."""
    captured: float = field(default_factory=time.monotonic)
    """`time.monotonic()` when the source handed the frame over (whatever its `timestamp`):
    where the frame-to-page latency is counted from."""

    def __post_init__(self) -> None:
        image = self.image
        if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
            raise SourceError(
                f"{self.source}: a frame must be HxWx3 uint8 BGR, not {image.dtype} {image.shape}"
            )
        image.setflags(write=False)


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file in an image folder that gave no frame, and why."""

    path: Path
    reason: str


@runtime_checkable
class FrameSource(Protocol):
    """What the tracker needs from any source of frames."""

    @property
    def description(self) -> str:
        """The source in the words of `--source` (`camera:0`, a path, a URL, `demo`)."""
        ...

    @property
    def live(self) -> bool:
        """True for a camera, a stream or the demo: a None from `read()` is a hiccup, not the
        end. False for a file or a folder."""
        ...

    @property
    def failures(self) -> int:
        """Failed reads and failed reopens since the last frame delivered (0 when all is well)."""
        ...

    def read(self) -> CapturedFrame | None:
        """The next frame, or None: no frame now (live) or no more frames (file, folder)."""
        ...

    def reopen(self) -> None:
        """Let go and open again: a camera or stream reconnects, a file or a folder starts from
        its first frame, the demo starts its game again. Raises `SourceError` if it cannot."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None: ...


class BaseSource(ABC):
    """The plumbing every source shares: frame numbering, failure counting, `with`, iteration.
    A subclass says how to open, how to grab one picture and how to let go."""

    live: bool = False
    every_frame: bool = False
    """True when every frame must be scanned (the photos of a folder): the tracker waits for
    each instead of dropping it for a newer one."""

    def __init__(self, description: str) -> None:
        self.description = description
        self.failures = 0
        self._delivered = 0
        self._closed = False

    @abstractmethod
    def _open(self) -> None:
        """Acquire the device, file or connection; raise `SourceError` if it cannot."""

    @abstractmethod
    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        """The next picture with its timestamp and origin, or None."""

    @abstractmethod
    def _release(self) -> None:
        """Let go of whatever `_open` acquired (safe to call twice)."""

    @property
    def delivered(self) -> int:
        """Frames delivered so far: the index the next frame will have (or, for a frame being
        read right now, the one it gets)."""
        return self._delivered

    def read(self) -> CapturedFrame | None:
        if self._closed:
            return None
        shot = self._grab()
        if shot is None:
            if self.live:
                self.failures += 1
            return None
        image, timestamp, origin = shot
        frame = CapturedFrame(image, self._delivered, timestamp, origin)
        self._delivered += 1
        self.failures = 0
        return frame

    def reopen(self) -> None:
        self._release()
        self._closed = False
        try:
            self._open()
        except SourceError:
            self.failures += 1
            raise

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._release()

    def interrupt(self) -> None:
        """Cut short a `read()` waiting for its frame to be due (the tracker is stopping): it
        gives None at once, and so does every read until `reopen`. Sources that never wait
        longer than a frame ignore it."""
        return

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[CapturedFrame]:
        """Frames until the first None: the whole of a file or folder, or a live source until
        its first hiccup."""
        while (frame := self.read()) is not None:
            yield frame

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.description!r})"


# --------------------------------------------------------------------------- pacing


class Wake:
    """What cuts a paced read's wait short: `ask()` (one frame now: the page's "next photo")
    or `interrupt()` (the tracker is stopping: every wait ends at once and reads give None).
    Thread-safe: the web server asks while the tracker's source thread waits."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._asked = 0
        self._interrupted = False

    @property
    def interrupted(self) -> bool:
        return self._interrupted

    @property
    def asked(self) -> int:
        """Frames asked for and not yet given."""
        return self._asked

    def ask(self) -> None:
        with self._condition:
            self._asked += 1
            self._condition.notify_all()

    def interrupt(self) -> None:
        with self._condition:
            self._interrupted = True
            self._condition.notify_all()

    def reset(self) -> None:
        """Forget asks and interruptions (a source opened again)."""
        with self._condition:
            self._asked = 0
            self._interrupted = False

    def take(self) -> bool:
        """Use up one ask, if there is one."""
        with self._condition:
            if self._asked:
                self._asked -= 1
                return True
            return False

    def wait(self, seconds: float | None) -> bool:
        """Wait up to `seconds` (None: for as long as it takes) for an ask or an interruption;
        True when one came."""
        with self._condition:
            return self._condition.wait_for(lambda: self._asked > 0 or self._interrupted, seconds)


class Clock:
    """Real time, for pacing: `now()` in monotonic seconds, `sleep(seconds, wake)` that an
    ask or an interruption of `wake` cuts short. Tests pass a clock of their own that moves on
    only when slept, so pacing is checked without timing anything."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float | None, wake: Wake | None = None) -> bool:
        """Sleep `seconds` (None: until woken); True when `wake` cut it short."""
        if wake is not None:
            return wake.wait(seconds)
        if seconds is None:
            raise ValueError("sleeping until woken needs something to wake it")
        time.sleep(max(seconds, 0.0))
        return False


REAL_TIME: Final = Clock()


class FramePacer:
    """Frame times at `fps` in real time: `wait` sleeps until a frame is due; a frame that is
    late moves the schedule instead of sprinting to catch up. With `fps=None` the first frame
    comes at once and each later one only when asked for (stepping by hand). An ask (`Wake`)
    brings the next frame at once, and the schedule carries on from it."""

    def __init__(self, fps: float | None, clock: Clock | None = None) -> None:
        self.fps = fps
        self.clock = REAL_TIME if clock is None else clock
        self._start: float | None = None

    @property
    def started(self) -> bool:
        """Whether the first frame has been given."""
        return self._start is not None

    @overload
    def wait(self, played: int) -> float: ...

    @overload
    def wait(self, played: int, wake: Wake | None) -> float | None: ...

    def wait(self, played: int, wake: Wake | None = None) -> float | None:
        """Sleep until frame number `played` (from 0) is due, or until `wake` asks for it;
        returns the time it is shown, or None when `wake` was interrupted."""
        clock = self.clock
        now = clock.now()
        if wake is not None and wake.interrupted:
            return None
        if self._start is None:  # the first frame comes at once, asked for or not
            self._start = now - (0.0 if self.fps is None else played / self.fps)
            return now
        woken = False
        if self.fps is None:
            woken = clock.sleep(None, wake)
        else:
            due = self._start + played / self.fps
            if due > now:
                woken = clock.sleep(due - now, wake)
            elif now - due > 1.0 / self.fps:
                self._start = now - played / self.fps
        if wake is not None:
            if wake.interrupted:
                return None
            asked = wake.take()
            if (woken or asked) and self.fps is not None:
                self._start = clock.now() - played / self.fps  # carry on from this frame
        return clock.now()


# --------------------------------------------------------------------------- camera


# --------------------------------------------------------------------------- camera settings


COMMON_RESOLUTIONS: Final = (
    (640, 480),
    (800, 600),
    (1280, 720),
    (1280, 960),
    (1920, 1080),
    (2560, 1440),
    (3840, 2160),
)
"""Resolutions a webcam is offered at (the driver takes the nearest it has, said back)."""


@dataclass(frozen=True, slots=True)
class CameraSettings:
    """What a camera is asked for, or what its driver says it took. None: left as it is
    (for exposure and focus: the camera's automatic setting)."""

    camera: int | None = None
    """The camera's index (OpenCV's, as `camera:N`)."""
    resolution: tuple[int, int] | None = None
    """(width, height) in pixels."""
    exposure: float | None = None
    """The driver's own exposure number (a webcam's CAP_PROP_EXPOSURE: often log2 of seconds,
    or 100 microsecond steps; the synthetic board camera: stops brighter, -3 to 3); None is
    automatic exposure."""
    focus: float | None = None
    """The driver's own focus number (CAP_PROP_FOCUS); None is autofocus."""

    def as_json(self) -> dict[str, Any]:
        return {
            "camera": self.camera,
            "resolution": None if self.resolution is None else list(self.resolution),
            "exposure": self.exposure,
            "focus": self.focus,
        }


@dataclass(frozen=True, slots=True)
class CameraControls:
    """The outcome of asking a camera for settings: what was asked, what the driver reports it
    took (read back), and each setting it refused or changed, in words."""

    asked: CameraSettings
    took: CameraSettings
    refused: tuple[str, ...] = ()


def _resolution_words(size: tuple[int, int] | None) -> str:
    return "unknown" if size is None else f"{size[0]}x{size[1]}"


@contextmanager
def _quiet_opencv() -> Iterator[None]:
    """Silence OpenCV's warnings while probing a device: a missing camera is reported by our
    own error, its WARN lines on stderr would only confuse."""
    previous = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    try:
        yield
    finally:
        cv2.utils.logging.setLogLevel(previous)


class CameraSource(BaseSource):
    """A webcam by OpenCV index. `width` and `height` ask the driver for a resolution (it may
    pick the nearest it has)."""

    live = True

    def __init__(self, index: int, *, width: int | None = None, height: int | None = None) -> None:
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise SourceError(f"camera index {index!r} is not a whole number 0, 1, 2, ...")
        for name, value in (("width", width), ("height", height)):
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise SourceError(f"camera:{index}: {name} must be a positive number of pixels")
        super().__init__(f"camera:{index}")
        self.index = index
        self._size = (width, height)
        self._capture: Any = None
        self._adjusting = threading.Lock()
        """Held while a frame is read and while settings change (two threads use them)."""
        self._asked = CameraSettings(
            index, None if width is None or height is None else (width, height)
        )
        self._refused: tuple[str, ...] = ()
        self._open()

    def _open(self) -> None:
        with _quiet_opencv():
            capture = cv2.VideoCapture(self.index)
        if not capture.isOpened():
            capture.release()
            raise SourceError(
                f"camera:{self.index} did not open: no camera with index {self.index} is "
                "attached, or another program is using it; accepted: camera:N for an attached "
                "camera, or 'demo', a video file, a folder of images or a stream URL"
            )
        width, height = self._size
        if width is not None:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height is not None:
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._capture = capture

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        with self._adjusting:
            if self._capture is None:
                return None
            ok, image = self._capture.read()
        if not ok or image is None:
            return None
        return image, time.monotonic(), self.description

    def _release(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None

    # The settings the calibration page offers. A driver takes what it can: every value is
    # read back after it is set, and what differs is said in `refused`.

    resolutions: tuple[tuple[int, int], ...] = COMMON_RESOLUTIONS
    """Resolutions offered (the driver takes the nearest it has)."""
    cameras: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 6, 7)
    """Camera indices that may be asked for (whether one is attached shows when it opens)."""
    exposure_range: tuple[float, float] | None = None
    """No fixed range: each driver has its own exposure numbers."""
    focus_range: tuple[float, float] | None = None

    def controls(self) -> CameraControls:
        """What the camera is set to now, as its driver reports it."""
        with self._adjusting:
            took = self._read_back()
        return CameraControls(self._asked, took, self._refused)

    def adjust(self, settings: CameraSettings) -> CameraControls:
        """Ask the driver for `settings` (another camera index is opened first; if it does not
        open, the current camera is kept and that is said) and read back what it took."""
        refused: list[str] = []
        with self._adjusting:
            if settings.camera is not None and settings.camera != self.index:
                with _quiet_opencv():
                    other = cv2.VideoCapture(settings.camera)
                if other.isOpened():
                    self._release()
                    self._capture = other
                    self.index = settings.camera
                    self.description = f"camera:{settings.camera}"
                else:
                    other.release()
                    refused.append(
                        f"camera:{settings.camera} did not open (none attached with that index, "
                        f"or another program uses it); still using camera:{self.index}"
                    )
            capture = self._capture
            if capture is None:
                raise SourceError(f"camera:{self.index} is closed; nothing to adjust")
            if settings.resolution is not None:
                self._size = settings.resolution
                capture.set(cv2.CAP_PROP_FRAME_WIDTH, settings.resolution[0])
                capture.set(cv2.CAP_PROP_FRAME_HEIGHT, settings.resolution[1])
            # V4L2's auto-exposure control: 1 is manual, 3 is automatic.
            if settings.exposure is None:
                capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, 3)
            else:
                capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)
                if not capture.set(cv2.CAP_PROP_EXPOSURE, settings.exposure):
                    refused.append(f"the driver refused exposure {settings.exposure:g}")
            if settings.focus is None:
                capture.set(cv2.CAP_PROP_AUTOFOCUS, 1)
            else:
                capture.set(cv2.CAP_PROP_AUTOFOCUS, 0)
                if not capture.set(cv2.CAP_PROP_FOCUS, settings.focus):
                    refused.append(f"the driver refused focus {settings.focus:g}")
            self._asked = settings
            took = self._read_back()
        if settings.resolution is not None and took.resolution != settings.resolution:
            refused.append(
                f"asked for {_resolution_words(settings.resolution)}, the driver took "
                f"{_resolution_words(took.resolution)}"
            )
        for name in ("exposure", "focus"):
            want, got = getattr(settings, name), getattr(took, name)
            told = any(name in words for words in refused)
            if want is not None and got is not None and abs(got - want) > 1e-6 and not told:
                refused.append(f"asked for {name} {want:g}, the driver reports {got:g}")
        self._refused = tuple(refused)
        return CameraControls(settings, took, self._refused)

    def _read_back(self) -> CameraSettings:
        capture = self._capture
        if capture is None:
            return CameraSettings(self.index)
        width = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))
        height = int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
        # A driver without the control reports 0 (or -1) whatever is set.
        exposure = float(capture.get(cv2.CAP_PROP_EXPOSURE))
        focus = float(capture.get(cv2.CAP_PROP_FOCUS))
        return CameraSettings(
            self.index,
            (width, height) if width > 0 and height > 0 else None,
            exposure if self._asked.exposure is not None else None,
            focus if self._asked.focus is not None else None,
        )


# --------------------------------------------------------------------------- video file


class VideoFileSource(BaseSource):
    """A recorded video, decoded by OpenCV, played once or over and over (`loop=True`). Each
    frame's timestamp is its position in the file: motion between frames is timed as it was
    recorded, however fast the file is read.

    With `realtime=True` the frames come as the video plays: `rate` frames a second (default:
    the file's own rate, `fps`), each decoded only when it is due, never faster; without it as
    fast as they decode (a benchmark, a test). `clock` is for tests (default: real time)."""

    live = False

    def __init__(
        self,
        path: str | Path,
        *,
        loop: bool = False,
        realtime: bool = False,
        rate: float | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.path = Path(path)
        super().__init__(str(path))
        if rate is not None and not (
            isinstance(rate, int | float) and not isinstance(rate, bool) and 0 < rate <= 240
        ):
            raise SourceError(f"{path}: rate must be above 0 and at most 240, not {rate!r}")
        self.loop = bool(loop)
        self._capture: Any = None
        self._pending: np.ndarray | None = None
        self._offset = 0.0  # seconds of the loops already played
        self._last_position = 0.0
        self._position_of_pending = 0.0
        self._in_pass = 0  # frames delivered in this pass through the file
        self.fps = 0.0
        """The file's own frame rate (0 when its header does not say)."""
        self.frame_count: int | None = None
        """Frames in the file as its header says (None when it does not say)."""
        self._open()
        self.play_rate: float | None = (rate or self.fps or DEFAULT_VIDEO_FPS) if realtime else None
        """Frames a second it is played at (None: as fast as it decodes)."""
        self._pacer = FramePacer(self.play_rate, clock)
        self._wake = Wake()

    @property
    def position(self) -> int:
        """Frames delivered in this pass through the file (the frame shown last is number
        `position`, from 1)."""
        return self._in_pass

    def interrupt(self) -> None:
        self._wake.interrupt()

    def reopen(self) -> None:
        self._wake.reset()
        self._pacer = FramePacer(self._pacer.fps, self._pacer.clock)
        super().reopen()

    def _open(self) -> None:
        if not self.path.is_file():
            raise SourceError(f"no such video file: {str(self.path)!r}")
        capture = cv2.VideoCapture(str(self.path))
        ok, first = capture.read() if capture.isOpened() else (False, None)
        if not ok or first is None:
            capture.release()
            raise SourceError(
                f"cannot decode the video {str(self.path)!r}: OpenCV (FFmpeg) reads no frame "
                f"from it; accepted: a video file OpenCV can decode ({', '.join(VIDEO_SUFFIXES)}"
                "), for example MJPG in .avi or mp4v in .mp4"
            )
        fps = float(capture.get(cv2.CAP_PROP_FPS))
        self.fps = fps if math.isfinite(fps) and fps > 0 else 0.0
        count = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
        self.frame_count = count if count > 0 else None
        self._capture = capture
        self._pending = first
        self._position_of_pending = self._position(0)
        self._offset = 0.0
        self._in_pass = 0

    def _position(self, frame_in_pass: int) -> float:
        """Seconds into the file of the frame just decoded: OpenCV's position, or the frame
        number over the frame rate when the container does not say."""
        msec = float(self._capture.get(cv2.CAP_PROP_POS_MSEC))
        if math.isfinite(msec) and msec >= 0 and (msec > 0 or frame_in_pass == 0):
            return msec / 1000.0
        return frame_in_pass / self.fps if self.fps else 0.0

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        if self._capture is None or self._wake.interrupted:
            return None
        if self.play_rate is not None and self._pacer.wait(self._delivered, self._wake) is None:
            return None
        if self._pending is not None:
            image, position = self._pending, self._position_of_pending
            self._pending = None
        else:
            ok, image = self._capture.read()
            if not ok or image is None:
                if not self.loop or self._in_pass == 0:
                    return None
                return self._restart()
            position = self._position(self._in_pass)
        self._in_pass += 1
        self._last_position = position
        return image, self._offset + position, self.description

    def _restart(self) -> tuple[np.ndarray, float, str] | None:
        """Back to the first frame: open the file again (seeking is unreliable in some
        containers) and carry the clock on by one pass of the file."""
        period = 1.0 / self.fps if self.fps else 0.0
        offset = self._offset + self._last_position + period
        self._release()
        try:
            self._open()
        except SourceError:
            return None
        self._offset = offset
        return self._grab()

    def _release(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None
        self._pending = None


# --------------------------------------------------------------------------- images


def _name_order(path: Path) -> list[object]:
    """Sort key: by name, numbers compared as numbers (frame2 before frame10), case ignored."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name.lower())]


class ImageFolderSource(BaseSource):
    """Every image of a folder in name order (or a single image file), one frame each, once or
    over and over (`loop=True`). A file that is not an image, or an image that does not decode,
    is skipped and listed in `skipped` (and logged), never silently dropped.

    With `realtime=True` the photos come one every 1 / `rate` seconds (default `rate` 1: a
    photo a second); with `step=True` the first at once and each next one only when `advance()`
    asks for it (the page's "next photo"); without either as fast as they load. `advance()`
    also brings the next photo at once while playing in real time. Every photo is a frame the
    tracker must scan (`every_frame`). `clock` is for tests (default: real time)."""

    live = False
    every_frame = True

    def __init__(
        self,
        path: str | Path,
        *,
        loop: bool = False,
        realtime: bool = False,
        rate: float | None = None,
        step: bool = False,
        clock: Clock | None = None,
    ) -> None:
        self.path = Path(path)
        super().__init__(str(path))
        if rate is not None and not (
            isinstance(rate, int | float) and not isinstance(rate, bool) and 0 < rate <= 240
        ):
            raise SourceError(f"{path}: rate must be above 0 and at most 240, not {rate!r}")
        if step and rate is not None:
            raise SourceError(f"{path}: a folder stepped by hand has no rate; give step or rate")
        self.loop = bool(loop)
        self.step = bool(step)
        self.play_rate: float | None = (
            (rate or DEFAULT_PHOTO_RATE) if realtime and not step else None
        )
        """Photos a second it is played at (None: stepped by hand, or as fast as they load)."""
        self.paced = bool(realtime or step)
        """Whether it waits for each photo to be due (or asked for)."""
        self._images: list[Path] = []
        self._skipped: dict[Path, str] = {}
        self._next = 0
        self._shown = 0
        self._pacer = FramePacer(None if step else self.play_rate, clock)
        self._wake = Wake()
        self._open()

    @property
    def images(self) -> tuple[Path, ...]:
        """The images still to be shown in each pass, in order."""
        return tuple(self._images)

    @property
    def position(self) -> int:
        """Photos delivered in this pass (the photo shown last is number `position`, from 1;
        0 before the first)."""
        return self._shown

    @property
    def finished(self) -> bool:
        """Every photo shown and no loop: the next read gives None."""
        return not self.loop and self._next >= len(self._images)

    def advance(self) -> int | None:
        """Ask for the next photo now (stepping by hand, or sooner than its time). Returns the
        number (from 1) of the photo it brings, or None when no photo is left to bring (the
        end of a folder that does not loop, a folder of one photo) or the folder does not wait
        for its photos anyway (neither `realtime` nor `step`)."""
        count = len(self._images)
        if count < 2 or not self.paced:
            return None
        coming = self._next + self._wake.asked + (0 if self._pacer.started else 1)
        if coming >= count:
            if not self.loop:
                return None
            coming %= count
        self._wake.ask()
        return coming + 1

    def interrupt(self) -> None:
        self._wake.interrupt()

    def reopen(self) -> None:
        self._wake.reset()
        self._pacer = FramePacer(self._pacer.fps, self._pacer.clock)
        super().reopen()

    @property
    def skipped(self) -> tuple[SkippedFile, ...]:
        """Files that gave no frame, with the reason, in the order they were met."""
        return tuple(SkippedFile(path, reason) for path, reason in self._skipped.items())

    def _skip(self, path: Path, reason: str) -> None:
        if path not in self._skipped:
            _log.warning("skipping %s: %s", path, reason)
            self._skipped[path] = reason

    def _open(self) -> None:
        self._next = 0
        self._shown = 0
        if self.path.is_file():
            if self.path.suffix.lower() not in IMAGE_SUFFIXES:
                raise SourceError(
                    f"{str(self.path)!r} is not an image file; accepted: {accepted(IMAGE_SUFFIXES)}"
                )
            self._images = [self.path]
            return
        if not self.path.is_dir():
            raise SourceError(f"no such folder of images: {str(self.path)!r}")
        self._images = []
        for entry in sorted(self.path.iterdir(), key=_name_order):
            if entry.is_dir():
                self._skip(entry, "a folder (sub-folders are not read)")
            elif entry.suffix.lower() not in IMAGE_SUFFIXES:
                self._skip(entry, f"not an image file (accepted: {', '.join(IMAGE_SUFFIXES)})")
            else:
                self._images.append(entry)
        if not self._images:
            listed = ", ".join(path.name for path in self._skipped) or "nothing"
            raise SourceError(
                f"the folder {str(self.path)!r} holds no images (it holds: {listed}); "
                f"accepted: {', '.join(IMAGE_SUFFIXES)}"
            )

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        if self._wake.interrupted or self.finished:
            return None
        shown = self._pacer.wait(self._delivered, self._wake) if self.paced else None
        if self._wake.interrupted:
            return None
        while self._images:
            if self._next >= len(self._images):
                if not self.loop:
                    return None
                self._next = 0
            path = self._images[self._next]
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                self._skip(path, "cannot be decoded as an image")
                del self._images[self._next]  # never tried again, even when looping
                continue
            self._next += 1
            self._shown = self._next
            return image, self._pacer.clock.now() if shown is None else shown, str(path)
        return None

    def _release(self) -> None:
        self._images = []  # `reopen` lists the folder again


# --------------------------------------------------------------------------- network streams


def opencv_reads_streams() -> bool:
    """Whether this OpenCV build can open network streams: it needs its FFmpeg back end."""
    try:
        return bool(cv2.videoio_registry.hasBackend(cv2.CAP_FFMPEG))
    except AttributeError:  # an OpenCV without the videoio registry
        return False


class _StreamReader(ABC):
    """One connection to a stream URL. Opening raises `SourceError`; `grab` gives a picture, or
    None when none came (a part that does not decode, or the connection ended: then every later
    `grab` is None too, until the source reopens)."""

    @abstractmethod
    def __init__(self, url: str, timeout: float) -> None: ...

    @abstractmethod
    def grab(self) -> np.ndarray | None: ...

    @abstractmethod
    def close(self) -> None: ...


class _OpenCvStream(_StreamReader):
    """OpenCV's FFmpeg back end: HTTP MJPEG, RTSP, HLS, ... with open and read time limits so a
    silent server cannot hang the tracker."""

    def __init__(self, url: str, timeout: float) -> None:
        if not opencv_reads_streams():
            raise SourceError("this OpenCV build has no FFmpeg back end to read streams")
        limit = int(timeout * 1000)
        params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, limit, cv2.CAP_PROP_READ_TIMEOUT_MSEC, limit]
        with _quiet_opencv():
            capture = cv2.VideoCapture(url, cv2.CAP_FFMPEG, params)
        if not capture.isOpened():
            capture.release()
            raise SourceError("OpenCV (FFmpeg) could not open it")
        self._capture: Any = capture

    def grab(self) -> np.ndarray | None:
        if self._capture is None:
            return None
        ok, image = self._capture.read()
        if not ok or image is None:
            self.close()
            return None
        return image

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class _MjpegStream(_StreamReader):
    """An MJPEG stream (`multipart/x-mixed-replace`, what IP-camera phone apps serve) read with
    urllib: each part is one JPEG, found by its `Content-Length` or, when a server leaves that
    out, by the next boundary line; decoded with `cv2.imdecode`."""

    def __init__(self, url: str, timeout: float) -> None:
        try:
            response = urllib.request.urlopen(url, timeout=timeout)
        except (OSError, ValueError, http.client.HTTPException) as error:
            raise SourceError(f"the server did not answer ({error})") from None
        content_type = response.headers.get_content_type()
        boundary = response.headers.get_param("boundary")
        if not content_type.startswith("multipart/") or not isinstance(boundary, str):
            response.close()
            raise SourceError(
                f"it is not an MJPEG stream: its content type is {content_type!r}; accepted: "
                "multipart/x-mixed-replace with a boundary"
            )
        self._token = boundary.strip().lstrip("-").encode("latin-1")
        self._response: http.client.HTTPResponse | None = response
        self._after_delimiter = False

    def grab(self) -> np.ndarray | None:
        try:
            body = self._next_part()
        except (OSError, ValueError, http.client.HTTPException) as error:
            _log.info("MJPEG stream broke off: %s", error)
            body = None
        if body is None:
            self.close()
            return None
        return cv2.imdecode(np.frombuffer(body, np.uint8), cv2.IMREAD_COLOR)

    def _boundary(self, line: bytes) -> str | None:
        """`"next"` for a delimiter line, `"close"` for the closing one, else None. Dashes before
        the boundary are not counted: some servers declare `boundary=--x` and send `--x`."""
        text = line.strip()
        if text.endswith(b"--") and text[:-2].lstrip(b"-") == self._token:
            return "close"
        if text.lstrip(b"-") == self._token:
            return "next"
        return None

    def _line(self) -> bytes:
        assert self._response is not None
        return self._response.readline(MAX_PART_BYTES)

    def _next_part(self) -> bytes | None:
        """The body of the next part, or None at the end of the stream."""
        if self._response is None:
            return None
        if not self._after_delimiter:
            while True:  # skip the preamble, or the CRLF after the previous body
                line = self._line()
                boundary = self._boundary(line)
                if not line or boundary == "close":
                    return None
                if boundary == "next":
                    break
        self._after_delimiter = False
        length: int | None = None
        while (line := self._line()).strip():
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length" and value.strip().isdigit():
                length = int(value.strip())
        if not line:
            return None
        if length is not None:
            if length > MAX_PART_BYTES:
                raise ValueError(f"a part of {length} bytes is larger than {MAX_PART_BYTES}")
            body = self._response.read(length)
            return body if len(body) == length else None
        return self._body_up_to_boundary()

    def _body_up_to_boundary(self) -> bytes | None:
        chunks: list[bytes] = []
        size = 0
        while line := self._line():
            boundary = self._boundary(line)
            if boundary is not None:
                self._after_delimiter = boundary == "next"
                body = b"".join(chunks)
                return body.removesuffix(b"\r\n").removesuffix(b"\n")
            chunks.append(line)
            size += len(line)
            if size > MAX_PART_BYTES:
                raise ValueError(f"no boundary within {MAX_PART_BYTES} bytes")
        return None

    def close(self) -> None:
        if self._response is not None:
            self._response.close()
            self._response = None


STREAM_READERS: Final[Mapping[str, type[_StreamReader]]] = MappingProxyType(
    {"opencv": _OpenCvStream, "mjpeg": _MjpegStream}
)
"""How a stream URL can be read, by name: OpenCV's FFmpeg back end, or our own MJPEG parser."""


class StreamSource(BaseSource):
    """A network stream: `http://`, `https://` or `rtsp://`, such as a phone's IP-camera app
    (`http://192.168.1.20:8080/video`).

    `reader` picks how: `"opencv"` (FFmpeg), `"mjpeg"` (our urllib parser, HTTP only) or
    `"auto"`: OpenCV when this build can read streams, falling back to the MJPEG parser for
    HTTP. Whichever opened first is used again by `reopen()`. `timeout` (seconds) bounds the
    connection and each read, so a silent server gives a None instead of a hang."""

    live = True

    def __init__(self, url: str, *, reader: str = "auto", timeout: float = 5.0) -> None:
        scheme = urlsplit(url).scheme.lower()
        if scheme not in URL_SCHEMES:
            raise SourceError(f"{url!r} is not a stream URL; accepted schemes: {URL_SCHEMES}")
        if reader != "auto" and reader not in STREAM_READERS:
            raise SourceError(
                f"unknown stream reader {reader!r}; accepted: {accepted(['auto', *STREAM_READERS])}"
            )
        if reader == "mjpeg" and scheme == "rtsp":
            raise SourceError(f"{url!r}: the MJPEG reader reads http:// and https:// only")
        if not (isinstance(timeout, int | float) and 0 < timeout <= 600):
            raise SourceError(f"{url!r}: timeout must be 0 to 600 seconds, not {timeout!r}")
        super().__init__(url)
        self.url = url
        self.timeout = float(timeout)
        if reader != "auto":
            self._candidates: tuple[str, ...] = (reader,)
        elif scheme == "rtsp":
            self._candidates = ("opencv",)
        elif opencv_reads_streams():
            self._candidates = ("opencv", "mjpeg")
        else:
            self._candidates = ("mjpeg",)
        self.reader: str | None = None
        """The reader in use (`opencv` or `mjpeg`), once a connection opened."""
        self._connection: _StreamReader | None = None
        self._open()

    def _open(self) -> None:
        reasons = []
        for name in self._candidates:
            try:
                self._connection = STREAM_READERS[name](self.url, self.timeout)
            except SourceError as error:
                reasons.append(f"{name}: {error}")
                continue
            self.reader = name
            self._candidates = (name,)
            return
        raise SourceError(
            f"cannot open the stream {self.url!r} ({'; '.join(reasons)}); accepted: an "
            "http://, https:// or rtsp:// URL that serves video now, such as an IP-camera "
            "app's MJPEG address"
        )

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        if self._connection is None:
            return None
        image = self._connection.grab()
        if image is None:
            return None
        return image, time.monotonic(), self.description

    def _release(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


# --------------------------------------------------------------------------- demo


def _resolution(value: str | tuple[int, int]) -> tuple[int, int]:
    """`"1920x1080"` or `(1920, 1080)` -> (width, height)."""
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", value)
        size = (int(match[1]), int(match[2])) if match else None
    elif isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        size = value
    else:
        size = None
    if size is None or min(size) < 64 or max(size) > 8192:
        raise SourceError(
            f"demo: resolution {value!r} is not WIDTHxHEIGHT with each side 64 to 8192 pixels "
            "(for example '1920x1080' or '640x360')"
        )
    return size


class DemoSource(BaseSource):
    """The built-in demo: the synthetic table of `vision.render.demo_table` filmed by a camera
    150 cm above it, bases shuffling every frame and a player's hand passing over now and then.

    With `realtime=True` frames come at `fps`, like a webcam (a slow computer gets them as fast
    as it can render, without sprinting to catch up); with `realtime=False` as fast as they
    render, the timestamps then following the game's own clock (index / fps). The same `seed`
    gives the same table, moves and noise. `last_truth` is where every tag really was in the
    frame last read."""

    live = True

    def __init__(
        self,
        *,
        resolution: str | tuple[int, int] = "1920x1080",
        fps: float = 10.0,
        realtime: bool = True,
        seed: int = 0,
        bases: int = 60,
        effects: Effects | None = None,
        hand_period: int = 40,
    ) -> None:
        self.width, self.height = _resolution(resolution)
        if not (isinstance(fps, int | float) and 0 < fps <= 240):
            raise SourceError(f"demo: fps must be above 0 and at most 240, not {fps!r}")
        if not isinstance(bases, int) or not 0 <= bases <= 500:
            raise SourceError(f"demo: bases must be a whole number 0 to 500, not {bases!r}")
        super().__init__("demo")
        self.fps = float(fps)
        self.realtime = bool(realtime)
        self.seed = seed
        try:
            self.table: TableSpec = demo_table(bases=bases, seed=seed)
            self.camera: CameraSpec = camera_for_table(self.table, self.width, self.height)
            self._scenario = Scenario(
                self.table,
                self.camera,
                DEMO_EFFECTS if effects is None else effects,
                seed=seed,
                hand_period=hand_period,
            )
        except RenderError as error:
            raise SourceError(f"demo: {error}") from None
        self.last_truth: FrameTruth | None = None
        """Ground truth of the frame last read (None before the first)."""
        self._open()

    def _open(self) -> None:
        self._frames = self._scenario.frames(sys.maxsize)
        self._played = 0
        self._pacer = FramePacer(self.fps)
        self.last_truth = None

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        frame = next(self._frames, None)
        if frame is None:
            return None
        timestamp = self._pacer.wait(self._played) if self.realtime else self._played / self.fps
        self._played += 1
        self.last_truth = frame.truth
        return frame.image, timestamp, self.description

    def _release(self) -> None:
        self._frames = iter(())  # the game so far is dropped; `reopen` starts a new one


# --------------------------------------------------------------------------- opening by spec


def _board_camera(
    *,
    resolution: str | tuple[int, int] = "640x480",
    fps: float = 5.0,
    hold: int = 3,
    realtime: bool = True,
    seed: int = 0,
) -> BaseSource:
    """The synthetic calibration board camera (`vision.boardcam`, which builds on this
    module, so it is imported when asked for)."""
    from vision.boardcam import BoardCameraSource

    return BoardCameraSource(
        resolution=resolution, fps=fps, hold=hold, realtime=realtime, seed=seed
    )


SOURCE_KINDS: Final[Mapping[str, Callable[..., BaseSource]]] = MappingProxyType(
    {
        "demo": DemoSource,
        "board": _board_camera,
        "camera": CameraSource,
        "video": VideoFileSource,
        "images": ImageFolderSource,
        "url": StreamSource,
    }
)
"""The back ends by kind: what `open_source` builds for each `--source` form."""


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A `--source` string understood: which kind of source, and its target (none for the demo,
    the camera index, the path, the URL)."""

    kind: str
    target: int | Path | str | None


def parse_source(spec: str) -> SourceSpec:
    """Read a `--source` string. Checks the form and that a file or folder exists; opening the
    device or the stream is `open_source`'s job."""
    if not isinstance(spec, str) or not spec.strip():
        raise SourceError(f"no source given ({spec!r}); {ACCEPTED_FORMS}")
    text = spec.strip()
    if text.lower() == "demo":
        return SourceSpec("demo", None)
    if text.lower() == "board":
        return SourceSpec("board", None)
    if text.lower().startswith("camera:"):
        number = text.partition(":")[2].strip()
        if not number.isdigit():
            raise SourceError(
                f"camera index {number!r} in {spec!r} is not a whole number; "
                "accepted: camera:N with N = 0, 1, 2, ..."
            )
        return SourceSpec("camera", int(number))
    if "://" in text:
        scheme = urlsplit(text).scheme.lower()
        if scheme not in URL_SCHEMES or not urlsplit(text).netloc:
            raise SourceError(f"unsupported URL {spec!r}; {ACCEPTED_FORMS}")
        return SourceSpec("url", text)
    path = Path(text).expanduser()
    suffix = path.suffix.lower()
    if path.is_dir():
        return SourceSpec("images", path)
    if path.is_file():
        if suffix in VIDEO_SUFFIXES:
            return SourceSpec("video", path)
        if suffix in IMAGE_SUFFIXES:
            return SourceSpec("images", path)
        raise SourceError(f"{spec!r} is neither a video nor an image file; {ACCEPTED_FORMS}")
    if suffix in VIDEO_SUFFIXES or suffix in IMAGE_SUFFIXES or "/" in text or "\\" in text:
        raise SourceError(f"no such file or folder: {spec!r}")
    raise SourceError(f"unknown source {spec!r}; {ACCEPTED_FORMS}")


def _options_of(kind: str) -> tuple[str, ...]:
    """The keyword options a kind of source accepts, from its constructor."""
    parameters = inspect.signature(SOURCE_KINDS[kind]).parameters.values()
    return tuple(p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY)


def open_source(spec: str, **options: Any) -> BaseSource:
    """Open the source a `--source` string names, with options for its kind (`loop`,
    `realtime`, `rate`, `clock` for a file or folder, and `step` for a folder; `width`,
    `height` for a camera; `reader`, `timeout` for a URL; `resolution`, `fps`, `realtime`,
    `seed`, `bases`, `effects`, `hand_period` for the demo)."""
    parsed = parse_source(spec)
    known = _options_of(parsed.kind)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise SourceError(
            f"option {unknown[0]!r} does not apply to {spec!r} (a {parsed.kind} source); "
            f"accepted: {accepted(known) if known else 'none'}"
        )
    args = () if parsed.target is None else (parsed.target,)
    return SOURCE_KINDS[parsed.kind](*args, **options)
