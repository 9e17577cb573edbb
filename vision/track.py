"""The tracker: a stream of frames of one table in, a scene per frame out, fast.

Running the detector over every whole frame costs ~270 ms at 1920x1080 on this machine, and a
table is mostly still between frames. So `Tracker.scan(frame)` (the same call and result as
`vision.pipeline.Scanner.scan`) looks only where the picture changed:

1. The frame is shrunk 4 times each way (an area average: cheap, and it averages the sensor
   noise down) and compared with what each tag's window looked like when the tag was last read.
   A window that has not changed holds the same tag at the same place: the tag is seen, with no
   detection at all.
2. A window that changed is read again at full resolution around where the tag is expected
   (its last place plus its last motion); if it is not found there, in a window `WIDE_SIDES`
   sides wider (a base moved a few centimetres at once). A tag not found there is not seen in
   this frame; it is seen again at once if its window comes back to what it was (the hand
   lifted off it).
3. Re-acquisition is guaranteed, not hoped for: a tag that was seen and is not found now is
   looked for where it was in every frame in which its window is still (nothing moving over
   it: a hand moving over a window changes it from frame to frame, and the tag is then taken
   as covered), at full resolution and then with the help a small tag needs (the second pass's
   upscaled, sharpened look, `Detector.detect_at`) or a large one (the coarse pass, the window
   shrunk twice), until it is found. Once its place has been in plain view for
   `MISSING_AFTER` frames and it is still not found, `missing` names it: a base lost where the
   camera plainly sees its place (or taken off the table).
4. New tags, and tags carried further than their window, can only appear where the picture
   changed: the small picture is split in cells of 64 x 64 frame pixels, and each cell that
   differs from the last time it was searched, and has stopped changing (no hand moving over
   it), is searched whole at full resolution (`search_budget_px` frame pixels a frame at most,
   the rest the next frame), and the dark quads in it that hold no tag read yet are queued for
   a second look.
5. The sweep: `sweep_cells` cells a frame are searched anyway, in turn, whatever else happens
   (they are outside every budget), so every cell of the frame is searched at full resolution
   at least once every `sweep_frames` = ceil(cells / sweep_cells) frames: 120 frames at
   1280x720 (20 x 12 cells) and 255 at 1920x1080 (30 x 17 cells) with 2 cells a frame.
6. The extra passes of a frame (the helped reads of lost tags, the queued second looks, the
   coarse reads) share a time budget, `extra_budget_ms` (`EXTRA_BUDGET_MS`), taken in turn from
   the lost tags (the one tried longest ago first) and the queue (oldest first); what does not
   fit waits for the next frame. So a chequered mat or a ChArUco board, whose every square is
   a dark quad, costs a few frames of queued looks, never seconds in one frame. The whole scan
   of the first frame gives its extra passes `whole_budget_ms` and queues what is left.
7. A few still tags a frame are read again in turn and each reading averaged in, so a base
   that stands still is measured more closely the longer it stands (16 readings at most).
   The search of step 4 (beyond the sweep), the extra passes and this refresh begin only while
   the frame has taken less than `frame_budget_ms` (`FRAME_BUDGET_MS`) in all, but for one
   piece of changed cells and one extra pass a frame: a busy frame leaves the rest to the next
   frames rather than delay the next frame's scene.
8. The table fit is reused until the corner tags are read at other places: then the camera
   has moved, the table is fitted again and the next frame is scanned whole. One corner tag
   moving alone was knocked: the fit is kept and the tag reported.

The first frame (and any frame of another size) is scanned whole by `Scanner.detect_all`: the
full-frame pass, the coarse pass and the second pass. `stats` says what the last frame did
(`helped`, `looked`, `coarse`, `deferred`, `pending`, `extra_ms`, `swept`...). Never imports
flask or webui.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraModel, CameraPose
from calibration.errors import CalibrationError
from calibration.homography import TableFit
from rules.errors import UmpireError

from .detect import Detector, Look, TagDetection
from .game import Game, pattern_family
from .pipeline import COARSE_MIN_PX, WEAK_MARGIN, Budget, Scan, Scanner, to_gray
from .scene import TagObservation

SHRINK: Final = 4
"""The change test compares pictures shrunk this many times each way (an area average)."""
CELL: Final = 16
"""Side of a search cell in shrunk pixels (64 frame pixels)."""
CHANGE_LEVEL: Final = 10
"""A shrunk pixel that moved more than this many grey levels is a change. Two frames of a
still table, rendered with fresh sensor noise, differ by at most 3-4 levels over a whole
shrunk 1080p or 4K picture (noise sigma 3), 5 with JPEG at quality 70 and 6 with noise sigma 5
(measured with the renderer); a tag edge of 150 levels moving 0.3 px shifts a shrunk pixel by
~11."""

REFIT_PX: Final = 0.3
"""A corner tag read this far (pixels) from where the table fit used it has moved."""
STILL_PX: Final = 0.3
"""... and one read within this has not: two corner tags still while another moved mean that
tag was knocked, not the camera."""
RESTING_PX: Final = 0.1
"""A tag read again within this many pixels of its last reading has stopped moving (reading
noise of a still tag's centre is ~0.05 px)."""
MAX_READINGS: Final = 16
"""Readings averaged at most: later ones weigh 1/16, so a slow drift is still followed."""
REFRESH_PER_FRAME: Final = 2
"""Still tags read again each frame to average (about 1.5 ms a frame at 1080p; measured over
the 1080p `umpire bench` video: median error 0.0743 mm with none, 0.0711 mm with 2, 0.0718 mm
with 4)."""
SWEEP_CELLS: Final = 2
"""Cells searched each frame whatever changed, in turn over the whole picture."""
SEARCH_BUDGET_PX: Final = 250_000
"""Frame pixels searched for new tags in one frame at most; the rest wait for the next frame
(a hand resting on the table must not stall the tracker)."""
SEARCH_BUDGET_MS: Final = 30.0
"""... and no more piece is begun once this many milliseconds have gone on searching (pupil
reads a chequered mat about twice as slowly as felt: measured on the 1080p `umpire bench`
video on a chequered mat, 250,000 pixels took up to 70 ms of CPU)."""
EXTRA_BUDGET_MS: Final = 12.0
"""Milliseconds a frame for the extra passes (helped reads of lost tags, second looks, coarse
reads). A helped read of a 16-25 px tag costs 1-3 ms, a look at a 5 cm square of a chequered mat
at 1080p up to ~15 ms a sharpening: the budget is checked before each, so one frame overshoots
it by one of them at most (see benchmarks/bench_passes.py)."""
FRAME_BUDGET_MS: Final = 18.0
"""Once the frame's scan has taken this many milliseconds in all, no more piece of the search
for new tags (beyond the sweep's cells and one piece of changed cells), no more extra pass
(beyond the first) and no refresh of still tags begins: a busy frame (a hand over many windows,
bases pushed) ends before the camera's next frame instead of making it wait, and what is left
waits for the next frames (the cells still differ from what was searched; the lost tags and the
looks stay queued). One piece and one extra pass a frame are always made, so on a machine too
slow for the budget new and lost tags are still found, a frame later. Measured on 240 frames
of the 1080p `umpire bench` video (this machine, OpenCV on one thread as in the tracker's
process): CPU a frame p95 26-28 -> 24-25 ms and p99 38-40 -> 29-30 ms, with the same recall
(99.978%), misses and errors."""
WHOLE_BUDGET_MS: Final = 500.0
"""Milliseconds for the extra passes of a whole scan (the first frame): on a plain table they
take 100-200 ms at 1080p; on a chequered mat the looks left are queued for the next frames."""
WIDE_SIDES: Final = 2.5
"""A tag not found where it was expected is looked for at once in a window this many of its
sides wider each way (within the frame's budget): a base put down a few centimetres away, or
pushed further than its window in one frame (the built-in demo moves a unit 2-5 cm between two
frames), is found in that frame rather than once its cells have stopped changing."""
NEAR_SIDES: Final = 8.0
"""A changed cell is given second looks only where a lost tag may have gone: within this many
sides of the largest tag of where one was last seen (a base pushed 15-20 cm under a hand), or
anywhere while some tag of the game was never seen or one is named missing."""
MISSING_AFTER: Final = 5
"""A lost tag is named in `missing` once its place has been in plain view (nothing moving over
its window) for this many frames in a row: a hand pushing a base barely moves at the start
and the end of the push, and the tag under it is covered, not missing (measured on the 1080p
`umpire bench` video: a base under a slow hand was lost in plain view for 3 frames). It is
looked for with help from the first of them."""
COARSE_TILE_PX: Final = 512
"""A coarse pass left over from a whole scan is queued in tiles this wide (plus a margin of the
largest tag), so that no frame reads more than one at a time."""


class TrackerError(UmpireError):
    """A frame the tracker cannot use (not an image, or empty)."""


@dataclass(slots=True)
class _Track:
    """One printed tag followed from frame to frame."""

    family: str
    tag_id: int
    detection: TagDetection
    box: tuple[int, int, int, int]
    """Its window in the shrunk picture: x0, y0, x1, y1."""
    reference: npt.NDArray[np.uint8]
    """The shrunk window when the tag was last read there."""
    seen: bool = True
    tried: npt.NDArray[np.uint8] | None = None
    """The shrunk window when the tag was last looked for and not found."""
    readings: int = 1
    """How many readings of the tag where it stands are averaged in `detection`."""
    moving: bool = False
    """It was read somewhere else last time: it is read again until it stands still."""
    motion: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(2))
    """Pixels a frame, from its last two reads."""
    observation: TagObservation | None = None
    """Its place on the table under the current fit (None: to be computed)."""
    helped_at: int = 0
    """The frame it was last looked for with help (0: not since it was lost)."""
    in_view: int = 0
    """Frames in a row it has been lost with its place in plain view (nothing moving there)."""

    @property
    def key(self) -> tuple[str, int]:
        return (pattern_family(self.family), self.tag_id)


def _side(detection: TagDetection) -> float:
    c = detection.corners
    return float(np.mean(np.linalg.norm(c - np.roll(c, 1, axis=0), axis=1)))


@dataclass(slots=True)
class _Frame:
    gray: npt.NDArray[np.uint8]
    small: npt.NDArray[np.uint8]


@dataclass(slots=True)
class _Pending:
    """An extra pass waiting for budget: a second look at a dark quad, or a coarse read of a
    searched window (frame pixels x0, y0, x1, y1)."""

    detector: Detector
    look: Look | None = None
    window: tuple[int, int, int, int] | None = None

    @property
    def centre(self) -> npt.NDArray[np.float64]:
        if self.look is not None:
            return np.asarray(self.look.quad.mean(axis=0), dtype=np.float64)
        assert self.window is not None
        x0, y0, x1, y1 = self.window
        return np.array([(x0 + x1) / 2, (y0 + y1) / 2])


def check_frame(image: Any) -> None:
    """`TrackerError` unless `image` is a frame the tracker can read (a BGR or grey array)."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        got = f"shape {image.shape}" if isinstance(image, np.ndarray) else type(image).__name__
        raise TrackerError(f"a frame must be a non-empty image array (BGR or grey), got {got}")


class Tracker:
    """Follows the tags of one game's table over consecutive frames of one camera.

    `scan(image)` answers like `Scanner.scan`; `stats` says what the last call did; `missing`
    names the game's tags lost where the camera plainly sees their place.
    """

    def __init__(
        self,
        game: Game,
        camera: CameraModel | None = None,
        *,
        sweep_cells: int = SWEEP_CELLS,
        refresh_per_frame: int = REFRESH_PER_FRAME,
        search_budget_px: int = SEARCH_BUDGET_PX,
        search_budget_ms: float = SEARCH_BUDGET_MS,
        extra_budget_ms: float = EXTRA_BUDGET_MS,
        whole_budget_ms: float = WHOLE_BUDGET_MS,
        frame_budget_ms: float = FRAME_BUDGET_MS,
        clock: Callable[[], float] = time.perf_counter,
        **detector_options: Any,
    ) -> None:
        self.scanner = Scanner(game, camera, **detector_options)
        self.game = game
        self.sweep_cells = max(1, int(sweep_cells))
        self.refresh_per_frame = int(refresh_per_frame)
        self.search_budget_px = int(search_budget_px)
        self.search_budget_ms = float(search_budget_ms)
        self.extra_budget_ms = float(extra_budget_ms)
        self.whole_budget_ms = float(whole_budget_ms)
        self.frame_budget_ms = float(frame_budget_ms)
        self._frame_start = 0.0
        """When the frame being scanned began, on `clock`."""
        self.clock = clock
        """The clock the budgets are kept on (a test gives its own)."""
        corners = game.calibration
        self._corner_keys = {(pattern_family(corners.spec.family), c.tag) for c in corners.corners}
        self._detector_of = {
            pattern_family(family): detector
            for (family, _bits), detector in self.scanner.detectors.items()
        }
        self._owner = {(pattern_family(t.family), t.id): t.owner for t in self.scanner.tags}
        self._sought = dict(self._owner)
        """The game's tags searched for when lost: all but those of removed bases."""
        self._largest_game_mm = max((t.size for t in self.scanner.tags), default=0.0)
        self.stats: dict[str, Any] = {}
        self.missing: tuple[str, ...] = ()
        """The game's tags (by owner: a base's id, `corner-N`, a terrain piece's id) seen
        earlier and not found in the last frame although nothing has moved over their place
        for `MISSING_AFTER` frames: a base the camera plainly shows that the tracker has lost
        (or that was taken off the table). Searched for, with help, every frame until found.
        Also in the scene, under `detection.tracker.missing`."""
        self.reset()

    @property
    def camera(self) -> CameraModel | None:
        return self.scanner.camera

    @property
    def sweep_frames(self) -> int | None:
        """Frames within which the sweep searches every cell of the picture at full resolution,
        whatever else happens (None before the first frame)."""
        if self._size is None:
            return None
        rows, cols = self._cells_shape(self._size)
        return -(-(rows * cols) // self.sweep_cells)

    def set_removed(self, owners: Iterable[str]) -> None:
        """The bases taken off the table in play (by id): their tags are no longer searched
        for when lost, nor named `missing`; a removed base put back is searched for again.
        Found by chance, they are still reported (the rules ignore removed bases)."""
        gone = frozenset(owners)
        self._sought = {key: owner for key, owner in self._owner.items() if owner not in gone}
        self.missing = tuple(m for m in self.missing if m not in gone)

    def use_camera(self, camera: CameraModel | None) -> None:
        """Scan with these intrinsics (None: none known) from the next frame on, scanned whole."""
        self.scanner.camera = camera
        self.reset()

    @staticmethod
    def _cells_shape(size: tuple[int, int]) -> tuple[int, int]:
        w, h = size[0] // SHRINK, size[1] // SHRINK
        return -(-h // CELL), -(-w // CELL)

    def reset(self) -> None:
        """Forget everything: the next frame is scanned whole."""
        self._tracks: list[_Track] = []
        self._size: tuple[int, int] | None = None
        self._fit: TableFit | None = None
        self._pose: CameraPose | None = None
        self._fit_corners: dict[tuple[str, int], npt.NDArray[np.float64]] = {}
        self._searched: npt.NDArray[np.uint8] | None = None
        self._waiting: npt.NDArray[np.int64] | None = None
        self._read_now: set[int] = set()
        """The tracks read in the frame being followed (by `id`)."""
        self._previous: npt.NDArray[np.uint8] | None = None
        self._sweep_at = 0
        self._refresh_at = 0
        self._frames = 0
        self._largest_side = 32.0
        self._coarse_search = False
        """Searched cells are read at half resolution too (the game's largest tag is
        `COARSE_MIN_PX` or more in the picture)."""
        self._pending: deque[_Pending] = deque()
        self._failed: set[tuple[int, int]] = set()
        """Quads (their middle, to 4 px) a second look read nothing at, since their cells
        last changed: the sweep does not queue them again (a chequered mat's squares)."""
        self._knocked: set[tuple[str, int]] = set()
        self._fit_problem: str | None = None
        """Why the camera, having moved, could not be fitted again (no scene meanwhile)."""
        self._tried: set[tuple[str, int]] = set()
        self._rescan = False
        self._fit_readings = 0
        self.missing = ()

    # ------------------------------------------------------------------------------ frames

    def scan(
        self,
        image: npt.NDArray[np.uint8],
        state: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Scan:
        """The scene in this frame. Raises `CalibrationError` while the table cannot be fitted."""
        check_frame(image)
        self._frame_start = self.clock()
        gray = to_gray(image)
        height, width = gray.shape
        frame = _Frame(gray, self._shrink(gray))
        self._frames += 1
        if self._size != (width, height) or self._fit is None:
            self.reset()
            self._frames = 1
            self._size = (width, height)
            self._scan_whole(frame)
        elif self._rescan:
            self._rescan = False  # the camera moved last frame: every tag is somewhere else
            self._scan_whole(frame)
        else:
            self._follow(frame)
        self._previous = frame.small
        if self._fit_problem is not None:
            # The camera moved, so the old fit no longer matches the picture, and a new one
            # needs every corner tag: no scene until they are all in view again, rather than
            # bases placed through the wrong fit.
            raise CalibrationError(f"the camera has moved; {self._fit_problem}")
        return self._scene(state)

    @staticmethod
    def _shrink(gray: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        h, w = gray.shape[0] // SHRINK, gray.shape[1] // SHRINK
        whole = gray[: h * SHRINK, : w * SHRINK]
        return np.asarray(cv2.resize(whole, (w, h), interpolation=cv2.INTER_AREA), np.uint8)

    def _scan_whole(self, frame: _Frame) -> None:
        """The first frame: every tag, every pass of the scanner (the extra passes within
        `whole_budget_ms`, the looks left queued), a fresh table fit."""
        budget = Budget(self.whole_budget_ms / 1000.0, self.clock)
        found = self.scanner.detect_all(frame.gray, budget)
        self._largest_side = 0.0
        self._tracks = [self._new_track(det, frame) for det in found.first + found.second]
        self._searched = frame.small.copy()
        self._pending = deque(_Pending(detector, look) for detector, look in found.deferred)
        self._failed = set()
        self.missing = ()
        self.stats = {
            "mode": "whole frame",
            "read_again": 0,
            "unchanged": 0,
            "refreshed": 0,
            "searched_px": 0,
            "looked": found.looked,
            "deferred": len(found.deferred),
            "skipped": list(found.skipped),
            "pending": len(self._pending),
            "extra_ms": round(1000 * budget.used(), 1),
        }
        self._refit(force=True)
        largest = self._largest_in_picture()
        self._coarse_search = largest >= COARSE_MIN_PX
        height, width = frame.gray.shape
        margin = int(min(1.5 * largest, COARSE_TILE_PX))
        for detector in found.coarse_deferred:
            self._pending.extend(
                _Pending(detector, window=(x - margin, y - margin, x + step, y + step))
                for y in range(0, height, COARSE_TILE_PX)
                for x in range(0, width, COARSE_TILE_PX)
                for step in [COARSE_TILE_PX + margin]
            )
        self.stats["pending"] = len(self._pending)

    def _largest_in_picture(self) -> float:
        """How many pixels across the game's largest tag is where the table is nearest the
        camera (from the fit), or the largest tag seen if larger."""
        if self._fit is None or not len(self._fit.image_points):
            return self._largest_side
        mm_per_px = float(np.min(self._fit.transform.mm_per_pixel(self._fit.image_points)))
        return max(self._largest_side, self._largest_game_mm / max(mm_per_px, 1e-9))

    def _new_track(self, det: TagDetection, frame: _Frame) -> _Track:
        self._largest_side = max(self._largest_side, _side(det))
        box = self._box(det, np.zeros(2), frame.small.shape)
        return _Track(det.family, det.tag_id, det, box, self._patch(frame.small, box))

    def _box(
        self, det: TagDetection, motion: npt.NDArray[np.float64], shape: tuple[int, ...]
    ) -> tuple[int, int, int, int]:
        """A tag's window in the shrunk picture: its square with a margin of half a side."""
        margin = 0.5 * _side(det) + 4.0
        low = det.corners.min(axis=0) - margin + np.minimum(motion, 0)
        high = det.corners.max(axis=0) + margin + np.maximum(motion, 0)
        x0, y0 = (np.floor(low / SHRINK)).astype(int)
        x1, y1 = (np.ceil(high / SHRINK)).astype(int) + 1
        return (max(0, x0), max(0, y0), min(shape[1], x1), min(shape[0], y1))

    @staticmethod
    def _patch(small: npt.NDArray[np.uint8], box: tuple[int, int, int, int]) -> Any:
        x0, y0, x1, y1 = box
        return small[y0:y1, x0:x1].copy()

    @staticmethod
    def _differs(a: npt.NDArray[np.uint8], b: npt.NDArray[np.uint8] | None) -> bool:
        if b is None or a.shape != b.shape:
            return True
        return bool(cv2.absdiff(a, b).max() > CHANGE_LEVEL)

    def _follow(self, frame: _Frame) -> None:
        assert self._previous is not None
        budget = Budget(self.extra_budget_ms / 1000.0, self.clock)
        read_again = unchanged = 0
        steps: list[npt.NDArray[np.float64]] = []
        lost: list[_Track] = []
        done = self._read_now = set()
        for track in self._tracks:
            window = self._patch_view(frame.small, track.box)
            if not self._differs(window, track.reference) and not (track.seen and track.moving):
                track.seen, track.tried, track.helped_at = True, None, 0
                unchanged += 1
                continue
            if not track.seen and not self._differs(window, track.tried):
                continue  # looked for here already, and nothing changed since: helped below
            read_again += 1
            done.add(id(track))
            before = track.detection.center
            found = self._read_at(track, frame, track.motion if track.seen else None)
            if found is None:
                lost.append(track)
            else:
                steps.append(found.center - before)
                self._move(track, found, frame)
        if lost and len(steps) >= 3:
            # Many tags moved alike (the camera was knocked, the table pushed): look for the
            # lost ones where that common move would have taken them.
            common = np.median(np.array(steps), axis=0)
            for track in list(lost):
                found = self._read_at(track, frame, common)
                if found is not None:
                    lost.remove(track)
                    self._move(track, found, frame)
        wide = 0
        jumps: list[npt.NDArray[np.float64]] = []
        for track in list(lost):
            # Not where it was expected: picked up and put down, or pushed further than its
            # window in one frame. Look around it wider, in this frame (within the budget);
            # under a hand this finds nothing, and the cells are searched once it has gone.
            # A tag found so moved the others of its unit likely alike: they are tried at that
            # move first.
            if track.key not in self._sought:
                continue
            before = track.detection.center
            found = self._read_at(track, frame, jumps[-1]) if jumps else None
            if found is None and not budget.spent():
                wide += 1
                found = self._read_at(track, frame, None, reach_sides=WIDE_SIDES)
            if found is not None:
                jumps.append(found.center - before)
                lost.remove(track)
                self._move(track, found, frame)
        for track in lost:
            track.seen, track.tried = False, self._patch(frame.small, track.box)
        searched, swept = self._search(frame)
        extra = self._extra(frame, budget)
        # Last, and only in a frame that has time left: still tags read again to be averaged.
        refreshed = 0 if self._late() else self._refresh(frame, done)
        self.missing = tuple(
            sorted(
                {
                    self._sought[t.key]
                    for t in extra.pop("uncovered")
                    if t.key in self._sought and t.in_view >= MISSING_AFTER
                }
            )
        )
        self.stats = {
            "mode": "tracking",
            "read_again": read_again,
            "unchanged": unchanged,
            "refreshed": refreshed,
            "searched_px": searched,
            "swept": swept,
            "wide": wide,
            **extra,
            "pending": len(self._pending),
            "extra_ms": round(1000 * budget.used(), 1),
        }
        self._refit()

    @staticmethod
    def _patch_view(small: npt.NDArray[np.uint8], box: tuple[int, int, int, int]) -> Any:
        x0, y0, x1, y1 = box
        return small[y0:y1, x0:x1]

    def _window(
        self, track: _Track, step: npt.NDArray[np.float64] | None, reach_sides: float = 0.0
    ) -> tuple[npt.NDArray[np.float64], tuple[int, int, int, int]]:
        """Where a track's tag is expected (its last place moved by `step` pixels), and the
        frame window to read it in (`reach_sides` more sides of the tag each way)."""
        det = track.detection
        move = np.zeros(2) if step is None else step
        expected = det.center + move
        side = _side(det)
        reach = 0.5 * side + max(8.0, 0.6 * side) + 2.0 * float(np.hypot(*move))
        reach += reach_sides * side
        x0, y0 = (expected - reach).astype(int)
        x1, y1 = (expected + reach).astype(int) + 2
        return expected, (int(x0), int(y0), int(x1), int(y1))

    def _read_at(
        self,
        track: _Track,
        frame: _Frame,
        step: npt.NDArray[np.float64] | None,
        reach_sides: float = 0.0,
    ) -> TagDetection | None:
        """The tag read again at full resolution where it is expected (its last place moved by
        `step` pixels), or None."""
        expected, (x0, y0, x1, y1) = self._window(track, step, reach_sides)
        detector = self._detector_of[pattern_family(track.family)]
        found = [
            d
            for d in detector.detect_in_window(frame.gray, x0, y0, x1, y1)
            if d.tag_id == track.tag_id
        ]
        return self._nearest(found, expected)

    @staticmethod
    def _nearest(
        found: list[TagDetection], expected: npt.NDArray[np.float64]
    ) -> TagDetection | None:
        if not found:
            return None
        return min(found, key=lambda d: float(np.hypot(*(d.center - expected))))

    def _read_helped(self, track: _Track, frame: _Frame) -> TagDetection | None:
        """A lost tag looked for where it was with the help its size needs: a small one with
        the second pass's upscaled, sharpened look, a large one at half resolution."""
        detector = self._detector_of[pattern_family(track.family)]
        side = _side(track.detection)
        expected, window = self._window(track, None)
        found: list[TagDetection] = []
        if side >= COARSE_MIN_PX:
            found = detector.detect_coarse(frame.gray, window)
        if not [d for d in found if d.tag_id == track.tag_id] and side < COARSE_MIN_PX:
            found = detector.detect_at(frame.gray, track.detection.corners)
        return self._nearest([d for d in found if d.tag_id == track.tag_id], expected)

    def _move(self, track: _Track, found: TagDetection, frame: _Frame) -> None:
        """A new reading of a track's tag: averaged with the readings before it when the tag has
        not moved (so a still base is measured ever more closely), else its new place."""
        step = found.center - track.detection.center
        still = track.seen and float(np.hypot(*step)) <= RESTING_PX
        track.motion = step if track.seen and not still else np.zeros(2)
        # Read it again next frame until it is read where it was: the last small step of a
        # hand's push (a few tenths of a millimetre) changes too few grey levels to be seen.
        track.moving = not still and track.seen
        if still:
            n = min(track.readings, MAX_READINGS - 1)
            corners = (track.detection.corners * n + found.corners) / (n + 1)
            found = TagDetection(
                found.family, found.tag_id, corners, found.decision_margin, found.hamming
            )
            track.readings += 1
        else:
            track.readings = 1
        track.detection = found
        track.box = self._box(found, track.motion, frame.small.shape)
        track.reference = self._patch(frame.small, track.box)
        track.seen, track.tried, track.observation, track.helped_at = True, None, None, 0
        track.in_view = 0

    def _refresh(self, frame: _Frame, done: set[int]) -> int:
        """Read again, in turn, a few still tags that nothing else read this frame: each new
        reading is averaged in, so a base that stands still is measured closer every few
        seconds (the error of an average of n readings falls as 1/sqrt(n))."""
        candidates = [
            t
            for t in self._tracks
            if t.seen and not t.moving and t.readings < MAX_READINGS and id(t) not in done
        ]
        # The corner tags first: the table fit, and so every base, stands on them.
        corners = sorted(
            (t for t in candidates if t.key in self._corner_keys), key=lambda t: t.readings
        )
        picks = corners[: self.refresh_per_frame]
        others = [t for t in candidates if t.key not in self._corner_keys]
        room = self.refresh_per_frame - len(picks)
        if others and room > 0:
            start = self._refresh_at % len(others)
            picks += (others[start:] + others[:start])[:room]
            self._refresh_at = start + room
        for track in picks:
            found = self._read_at(track, frame, None)
            if found is not None:
                self._move(track, found, frame)
                done.add(id(track))
        return len(picks)

    # ------------------------------------------------------------------------------ extra passes

    def _extra(self, frame: _Frame, budget: Budget) -> dict[str, Any]:
        """The extra passes of a frame, within `budget` and `frame_budget_ms` (the first pass
        whatever the time): the lost tags whose place is in plain view (nothing moving over
        their window) looked for with help, the one tried longest ago first, in turn with the
        queued second looks and coarse reads, oldest first. Returns counts for `stats`, and
        under `uncovered` the lost tracks in plain view still lost."""
        assert self._previous is not None
        moving = np.asarray(cv2.absdiff(frame.small, self._previous), np.uint8)
        lost = [t for t in self._tracks if not t.seen and t.key in self._sought]
        uncovered = []
        for track in lost:
            if bool(self._patch_view(moving, track.box).max() > CHANGE_LEVEL):
                track.in_view = 0  # something moves over its place: covered
            else:
                uncovered.append(track)
        queue = deque(sorted(uncovered, key=lambda t: t.helped_at))
        helped = found_again = looked = coarse = 0
        turn = 0
        while (queue or self._pending) and not budget.spent() and not (turn and self._late()):
            turn += 1
            if queue and (turn % 2 == 1 or not self._pending):
                track = queue.popleft()
                helped += 1
                track.helped_at = self._frames
                det = self._read_at(track, frame, None) if id(track) not in self._read_now else None
                det = det or self._read_helped(track, frame)
                if det is not None:
                    self._move(track, det, frame)
                    self._read_now.add(id(track))
                    found_again += 1
                continue
            item = self._pending.popleft()
            if item.look is not None:
                if self._on_a_seen_tag(item.centre):
                    continue  # read meanwhile
                looked += 1
                look = item.look
                first = Look(look.quad, look.sharpen[:1], look.margin, look.patch)
                tags = item.detector.read_look(frame.gray, first)
                if not tags and len(look.sharpen) > 1:
                    # One sharpening a turn, so a look at a big quad never takes three.
                    rest = Look(look.quad, look.sharpen[1:], look.margin, look.patch)
                    self._pending.appendleft(_Pending(item.detector, rest))
                elif not tags:
                    self._failed.add(self._look_key(item.centre))
                for det in tags:
                    if (pattern_family(det.family), det.tag_id) in self.scanner._expected:
                        self._adopt(det, frame)
            else:
                assert item.window is not None
                coarse += 1
                for det in item.detector.detect_coarse(frame.gray, item.window):
                    if (pattern_family(det.family), det.tag_id) in self.scanner._expected:
                        self._adopt(det, frame)
        still_lost = [t for t in uncovered if not t.seen]
        for track in still_lost:
            track.in_view += 1
        return {
            "helped": helped,
            "found_again": found_again,
            "looked": looked,
            "coarse": coarse,
            "deferred": len(queue),
            "uncovered": still_lost,
        }

    def _late(self) -> bool:
        """The frame has taken `frame_budget_ms` (see `FRAME_BUDGET_MS`)."""
        return self.clock() - self._frame_start >= self.frame_budget_ms / 1000.0

    @staticmethod
    def _look_key(point: npt.NDArray[np.float64]) -> tuple[int, int]:
        return (round(float(point[0]) / 4), round(float(point[1]) / 4))

    def _on_a_seen_tag(self, point: npt.NDArray[np.float64]) -> bool:
        return any(
            t.seen and float(np.hypot(*(t.detection.center - point))) < 0.6 * _side(t.detection)
            for t in self._tracks
        )

    # ------------------------------------------------------------------------------ search

    def _search(self, frame: _Frame) -> tuple[int, list[tuple[int, int, int, int]]]:
        """Search whole the cells that changed since they were last searched and have stopped
        changing (those waiting longest first, in pieces that fit the budget), and this frame's
        turn of the sweep whatever the budget; queue a second look at each dark quad found
        there that no tag was read on (and a coarse read when the game's tags are large).
        Returns the frame pixels searched and the sweep's windows (frame pixels)."""
        assert self._searched is not None and self._previous is not None
        small = frame.small
        changed = self._cell_max(cv2.absdiff(small, self._searched)) > CHANGE_LEVEL
        moving = self._cell_max(cv2.absdiff(small, self._previous)) > CHANGE_LEVEL
        wanted = changed & ~moving
        if self._waiting is None or self._waiting.shape != wanted.shape:
            self._waiting = np.zeros(wanted.shape, np.int64)
        # Since which frame each wanted cell has waited (0: not waiting).
        self._waiting[~wanted] = 0
        self._waiting[wanted & (self._waiting == 0)] = self._frames
        rows, cols = wanted.shape
        sweep = np.zeros_like(wanted)
        for _ in range(self.sweep_cells):
            r, c = divmod(self._sweep_at % (rows * cols), cols)
            sweep[r, c] = True
            self._sweep_at += 1
        wanted &= ~sweep
        margin = self._margin_px()
        waiting = self._waiting
        pieces = sorted(  # the longest waiting first
            self._pieces(self._regions(wanted), margin),
            key=lambda p: int(waiting[p[0] : p[2], p[1] : p[3]].min()),
        )
        swept_pieces = self._pieces(self._regions(sweep), margin)
        searched_px = 0
        changed_begun = False  # a piece of changed cells searched: the one a frame always gets
        started = self.clock()
        swept: list[tuple[int, int, int, int]] = []
        for piece in swept_pieces + pieces:
            r0, c0, r1, c1 = piece
            area = self._piece_area(r0, c0, r1, c1, margin)
            is_sweep = piece in swept_pieces
            if (
                not is_sweep
                and searched_px
                and (
                    searched_px + area > self.search_budget_px
                    or self.clock() - started >= self.search_budget_ms / 1000.0
                    or (changed_begun and self._late())
                )
            ):
                continue  # next frame: these cells still differ from what was searched
            searched_px += area
            changed_begun = changed_begun or not is_sweep
            x0, y0, x1, y1 = c0 * CELL, r0 * CELL, c1 * CELL, r1 * CELL
            cells = (x0 * SHRINK, y0 * SHRINK, x1 * SHRINK, y1 * SHRINK)
            window = (cells[0] - margin, cells[1] - margin, cells[2] + margin, cells[3] + margin)
            if is_sweep:
                swept.append(cells)
            changed_here = bool(changed[r0:r1, c0:c1].any())
            self._search_window(frame, cells, window, changed=changed_here)
            self._searched[y0:y1, x0:x1] = small[y0:y1, x0:x1]
            self._waiting[r0:r1, c0:c1] = 0
        return searched_px, swept

    def _search_window(
        self,
        frame: _Frame,
        cells: tuple[int, int, int, int],
        window: tuple[int, int, int, int],
        *,
        changed: bool = True,
    ) -> None:
        """One search: the window read whole at full resolution; where the cells `changed`
        since they were last searched, also a coarse read queued when the game's tags are large,
        and a second look queued at each dark quad whose middle lies in them with no tag read on
        it (the looks queued there before are dropped: these replace them, and quads looked at
        in vain there before are looked at again). A sweep over cells that did not change reads
        them at full resolution only: they hold what was looked at before."""
        cx0, cy0, cx1, cy1 = cells

        def inside(point: npt.NDArray[np.float64]) -> bool:
            return bool(cx0 <= point[0] < cx1 and cy0 <= point[1] < cy1)

        if changed:
            self._pending = deque(p for p in self._pending if not inside(p.centre))
            x0, y0 = self._look_key(np.array([cx0, cy0]))
            x1, y1 = self._look_key(np.array([cx1, cy1]))
            self._failed = {(x, y) for x, y in self._failed if not (x0 <= x < x1 and y0 <= y < y1)}
        for detector in self.scanner.detectors.values():
            for det in detector.detect_in_window(frame.gray, *window):
                self._adopt(det, frame)
            if not changed:
                continue
            if self._coarse_search:
                self._pending.append(_Pending(detector, window=window))
            if not self._may_hold_a_lost_tag(window):
                continue
            known = [
                t.detection
                for t in self._tracks
                if t.seen
                and window[0] <= t.detection.center[0] < window[2]
                and window[1] <= t.detection.center[1] < window[3]
            ]
            for look in detector.missed_looks(
                frame.gray, known, window=window, largest=self._largest_side
            ):
                middle = look.quad.mean(axis=0)
                if inside(middle) and self._look_key(middle) not in self._failed:
                    self._pending.append(_Pending(detector, look))

    def _may_hold_a_lost_tag(self, window: tuple[int, int, int, int]) -> bool:
        """Whether the second pass may find here a tag of the game the full-resolution search
        missed: some of the game's tags were never seen, or one is named missing, or a lost
        one was last seen within `NEAR_SIDES` of the largest tag's sides of the window. Else
        every tag of the game is accounted for nearby, and listing the dark quads (a few ms a
        window) is skipped."""
        if self._missing_keys or self.missing:
            return True
        reach = NEAR_SIDES * self._largest_side
        x0, y0, x1, y1 = window
        return any(
            not t.seen
            and t.key in self._sought
            and x0 - reach <= t.detection.center[0] < x1 + reach
            and y0 - reach <= t.detection.center[1] < y1 + reach
            for t in self._tracks
        )

    @property
    def _missing_keys(self) -> bool:
        """Some of the game's tags have never been seen (no track)."""
        return len({t.key for t in self._tracks} & self._sought.keys()) < len(self._sought)

    @staticmethod
    def _piece_area(r0: int, c0: int, r1: int, c1: int, margin: int) -> int:
        side = CELL * SHRINK
        return ((c1 - c0) * side + 2 * margin) * ((r1 - r0) * side + 2 * margin)

    def _pieces(
        self, regions: list[tuple[int, int, int, int]], margin: int
    ) -> list[tuple[int, int, int, int]]:
        """The regions cut into pieces that each fit the search budget (bands of rows, cut
        across too when one row is too wide), so that one large changed area is searched over a
        few frames rather than waiting for a frame with nothing else to do."""
        out = []
        for r0, c0, r1, c1 in regions:
            step = r1 - r0
            while step > 1 and self._piece_area(r0, c0, r0 + step, c1, margin) > (
                self.search_budget_px
            ):
                step = (step + 1) // 2
            width = c1 - c0
            while width > 1 and self._piece_area(r0, c0, r0 + step, c0 + width, margin) > (
                self.search_budget_px
            ):
                width = (width + 1) // 2
            out += [
                (r, c, min(r + step, r1), min(c + width, c1))
                for r in range(r0, r1, step)
                for c in range(c0, c1, width)
            ]
        return out

    @staticmethod
    def _cell_max(diff: Any) -> npt.NDArray[np.uint8]:
        h, w = diff.shape
        rows, cols = -(-h // CELL), -(-w // CELL)
        padded = np.zeros((rows * CELL, cols * CELL), np.uint8)
        padded[:h, :w] = diff
        return np.asarray(padded.reshape(rows, CELL, cols, CELL).max(axis=(1, 3)), np.uint8)

    @staticmethod
    def _regions(wanted: npt.NDArray[np.bool_]) -> list[tuple[int, int, int, int]]:
        """Rectangles of cells (row0, col0, row1, col1) covering the wanted cells: each run of
        wanted cells in a row, merged with the same run in the rows below."""
        runs: list[tuple[int, int, int, int]] = []
        open_runs: dict[tuple[int, int], int] = {}
        rows, cols = wanted.shape
        for r in range(rows):
            line = wanted[r]
            current: dict[tuple[int, int], int] = {}
            c = 0
            while c < cols:
                if not line[c]:
                    c += 1
                    continue
                start = c
                while c < cols and line[c]:
                    c += 1
                span = (start, c)
                current[span] = open_runs.pop(span, r)
            for (c0, c1), r0 in open_runs.items():
                runs.append((r0, c0, r, c1))
            open_runs = current
        for (c0, c1), r0 in open_runs.items():
            runs.append((r0, c0, rows, c1))
        return runs

    def _margin_px(self) -> int:
        """How far a search reaches past its cells: the largest tag seen, so that a tag across
        a cell's edge is whole in the search of either cell."""
        return int(np.ceil(1.5 * self._largest_side)) + 4

    def _adopt(self, det: TagDetection, frame: _Frame) -> None:
        """A tag found by a search: the track it continues, or a new one."""
        key = (pattern_family(det.family), det.tag_id)
        weak = det.decision_margin is not None and det.decision_margin < WEAK_MARGIN
        if weak and key not in self.scanner._expected:
            return  # a doubtful read of an id the game does not have: not worth a track
        same = [t for t in self._tracks if t.key == key]
        for track in same:
            if float(np.hypot(*(track.detection.center - det.center))) < 0.5 * _side(det):
                if id(track) not in self._read_now:  # one reading a frame, not two
                    self._move(track, det, frame)  # seen again, or read once more
                    self._read_now.add(id(track))
                return
        lost = [t for t in same if not t.seen]
        if lost:
            # Carried further than its window (of two lost copies, the nearer one).
            nearest = min(lost, key=lambda t: float(np.hypot(*(t.detection.center - det.center))))
            self._move(nearest, det, frame)
            self._read_now.add(id(nearest))
            return
        track = self._new_track(det, frame)  # a new tag, or a second copy of one
        self._tracks.append(track)
        self._read_now.add(id(track))  # read this frame: not read again to be averaged

    # ------------------------------------------------------------------------------ the table

    def _refit(self, *, force: bool = False) -> None:
        """Fit the table again when the camera has moved: when the corner tags in view were all
        read somewhere else. One corner tag moving while the others stay put was knocked, not
        the camera: the fit is kept (a fit through it would bend the whole table, and with four
        corner tags its residual hardly shows it) and the tag is reported in `moved_tags`."""
        corners = {
            t.key: t.detection.corners
            for t in self._tracks
            if t.seen and t.key in self._corner_keys
        }
        if not force and self._fit_problem is not None:
            if corners.keys() == self._tried:
                return  # the same corner tags in view as at the last failed try
        elif not force:
            shift = {
                k: float(np.abs(corners[k] - self._fit_corners[k]).max())
                for k in corners.keys() & self._fit_corners.keys()
            }
            moved = {k for k, d in shift.items() if d > REFIT_PX}
            still = {k for k, d in shift.items() if d <= STILL_PX}
            self._knocked = (self._knocked - set(shift)) | {k for k in moved if len(still) >= 2}
            if moved and len(still) < 2:
                # The camera moved: every tag is somewhere else, the next frame is scanned
                # whole (tags carried out of their windows, corner tags included, are found).
                self._rescan = True
            else:
                # The corner tags, still, read twice as often as for the fit in use: a fit
                # through their averaged corners is closer than any one frame's.
                closer = self._readings(corners) >= 2 * self._fit_readings
                unchanged = corners.keys() == self._fit_corners.keys()
                if moved or self._knocked or not unchanged or not closer:
                    return
        assert self._size is not None
        camera = self.scanner.camera or self.scanner.game_camera(self._size)
        seen = [t.detection for t in self._tracks if t.seen and t.key in self._corner_keys]
        try:
            fit, pose = self.scanner.fit_table(seen, self._size, camera)
        except CalibrationError as error:
            if self._fit is None:
                raise
            self._fit_problem = str(error)  # the camera moved with a corner tag out of view
            self._tried = set(corners)
            return
        self._fit, self._pose, self._fit_corners = fit, pose, corners
        self._fit_readings = self._readings(corners)
        self._fit_problem, self._knocked = None, set()
        for track in self._tracks:
            track.observation = None

    def _readings(self, corners: Mapping[tuple[str, int], Any]) -> int:
        return sum(t.readings for t in self._tracks if t.seen and t.key in corners)

    def _scene(self, state: Mapping[str, Mapping[str, Any]] | None) -> Scan:
        assert self._fit is not None and self._size is not None
        camera = self.scanner.camera or self.scanner.game_camera(self._size)
        if not any(t.seen and t.key in self._corner_keys for t in self._tracks):
            # Not one corner tag in view: the camera is covered or looks elsewhere, and a scene
            # from the old fit would be a guess. The fit says which tags to uncover.
            self.scanner.fit_table([], self._size, camera)
        seen = [t for t in self._tracks if t.seen]
        for track in seen:
            if track.observation is None:
                track.observation = self.scanner.observe(
                    track.detection, self._fit, camera, self._pose
                )
        observations = [t.observation for t in seen if t.observation is not None]
        doc = self.scanner.scene_document(
            observations, self._fit, camera, self._pose, self._size, state
        )
        averaged = sum(1 for t in seen if t.readings > 1)
        doc["detection"]["tracker"] = dict(
            self.stats,
            swept=len(self.stats.get("swept", ())),
            tracks=len(self._tracks),
            seen=len(seen),
            averaged=averaged,
            missing=list(self.missing),
        )
        doc["detection"]["calibration"]["moved_tags"] = sorted(tag for _, tag in self._knocked)
        if self._fit_problem is not None:
            doc["detection"]["calibration"]["kept_because"] = self._fit_problem
        return Scan(doc, self._fit, self._pose, tuple(t.detection for t in seen))
