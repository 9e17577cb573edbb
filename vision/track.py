"""The tracker: a stream of frames of one table in, a scene per frame out, fast.

Running the detector over every whole frame costs ~270 ms at 1920x1080 on this machine, and a
table is mostly still between frames. So `Tracker.scan(frame)` (the same call and result as
`vision.pipeline.Scanner.scan`) looks only where the picture changed:

1. The frame is shrunk 4 times each way (an area average: cheap, and it averages the sensor
   noise down) and compared with what each tag's window looked like when the tag was last read.
   A window that has not changed holds the same tag at the same place: the tag is seen, with no
   detection at all.
2. A window that changed is read again at full resolution around where the tag is expected
   (its last place plus its last motion). A tag not found there (a hand over it, or moved away)
   is not seen in this frame; it is tried again only when its window changes again, and it is
   seen again at once if its window comes back to what it was (the hand lifted off it).
3. New tags, and tags carried further than their window, can only appear where the picture
   changed: the small picture is split in cells of 64 x 64 frame pixels, and each cell that
   differs from the last time it was searched, and has stopped changing (no hand moving over
   it), is searched whole at full resolution. A few cells a frame are searched anyway, in turn,
   so the whole table is looked at again every few seconds whatever happens.
4. A few still tags a frame are read again in turn and each reading averaged in, so a base
   that stands still is measured more closely the longer it stands (16 readings at most).
5. The table fit is reused until the corner tags are read at other places: then the camera
   has moved, the table is fitted again and the next frame is scanned whole. One corner tag
   moving alone was knocked: the fit is kept and the tag reported.

The first frame (and any frame of another size) is scanned whole by `Scanner`, with its second
pass for small tags. Never imports flask or webui.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraModel, CameraPose
from calibration.errors import CalibrationError
from calibration.homography import TableFit
from rules.errors import UmpireError

from .detect import TagDetection
from .game import Game, pattern_family
from .pipeline import WEAK_MARGIN, Scan, Scanner, to_gray
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


class Tracker:
    """Follows the tags of one game's table over consecutive frames of one camera.

    `scan(image)` answers like `Scanner.scan`; `stats` says what the last call did.
    """

    def __init__(
        self,
        game: Game,
        camera: CameraModel | None = None,
        *,
        sweep_cells: int = SWEEP_CELLS,
        refresh_per_frame: int = REFRESH_PER_FRAME,
        search_budget_px: int = SEARCH_BUDGET_PX,
        **detector_options: Any,
    ) -> None:
        self.scanner = Scanner(game, camera, **detector_options)
        self.game = game
        self.sweep_cells = int(sweep_cells)
        self.refresh_per_frame = int(refresh_per_frame)
        self.search_budget_px = int(search_budget_px)
        corners = game.calibration
        self._corner_keys = {(pattern_family(corners.spec.family), c.tag) for c in corners.corners}
        self._detector_of = {
            pattern_family(family): detector
            for (family, _bits), detector in self.scanner.detectors.items()
        }
        self.stats: dict[str, Any] = {}
        self.reset()

    @property
    def camera(self) -> CameraModel | None:
        return self.scanner.camera

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
        self._knocked: set[tuple[str, int]] = set()
        self._fit_problem: str | None = None
        """Why the camera, having moved, could not be fitted again (no scene meanwhile)."""
        self._tried: set[tuple[str, int]] = set()
        self._rescan = False
        self._fit_readings = 0

    # ------------------------------------------------------------------------------ frames

    def scan(
        self,
        image: npt.NDArray[np.uint8],
        state: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Scan:
        """The scene in this frame. Raises `CalibrationError` while the table cannot be fitted."""
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
            raise TrackerError(
                "a frame must be a non-empty image array (BGR or grey), got "
                + (
                    f"shape {image.shape}"
                    if isinstance(image, np.ndarray)
                    else type(image).__name__
                )
            )
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
        """The first frame: every tag, both passes of the scanner, a fresh table fit."""
        first, second, _dropped = self.scanner._detect_both(frame.gray)
        self._largest_side = 0.0
        self._tracks = [self._new_track(det, frame) for det in first + second]
        self._searched = frame.small.copy()
        self.stats = {
            "mode": "whole frame",
            "read_again": 0,
            "unchanged": 0,
            "refreshed": 0,
            "searched_px": 0,
        }
        self._refit(force=True)

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
        read_again = unchanged = 0
        steps: list[npt.NDArray[np.float64]] = []
        lost: list[_Track] = []
        done = self._read_now = set()
        for track in self._tracks:
            window = self._patch_view(frame.small, track.box)
            if not self._differs(window, track.reference) and not (track.seen and track.moving):
                track.seen, track.tried = True, None
                unchanged += 1
                continue
            if not track.seen and not self._differs(window, track.tried):
                continue  # looked for here already, and nothing changed since
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
        for track in lost:
            track.seen, track.tried = False, self._patch(frame.small, track.box)
        refreshed = self._refresh(frame, done)
        searched = self._search(frame)
        self.stats = {
            "mode": "tracking",
            "read_again": read_again,
            "unchanged": unchanged,
            "refreshed": refreshed,
            "searched_px": searched,
        }
        self._refit()

    @staticmethod
    def _patch_view(small: npt.NDArray[np.uint8], box: tuple[int, int, int, int]) -> Any:
        x0, y0, x1, y1 = box
        return small[y0:y1, x0:x1]

    def _read_at(
        self, track: _Track, frame: _Frame, step: npt.NDArray[np.float64] | None
    ) -> TagDetection | None:
        """The tag read again at full resolution where it is expected (its last place moved by
        `step` pixels), or None."""
        det = track.detection
        move = np.zeros(2) if step is None else step
        expected = det.center + move
        side = _side(det)
        reach = 0.5 * side + max(8.0, 0.6 * side) + 2.0 * float(np.hypot(*move))
        x0, y0 = (expected - reach).astype(int)
        x1, y1 = (expected + reach).astype(int) + 2
        detector = self._detector_of[pattern_family(track.family)]
        found = [
            d
            for d in detector.detect_in_window(frame.gray, x0, y0, x1, y1)
            if d.tag_id == track.tag_id
        ]
        if not found:
            return None
        return min(found, key=lambda d: float(np.hypot(*(d.center - expected))))

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
        track.seen, track.tried, track.observation = True, None, None

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

    # ------------------------------------------------------------------------------ search

    def _search(self, frame: _Frame) -> int:
        """Search whole the cells that changed since they were last searched and have stopped
        changing (those waiting longest first, in pieces that fit the budget), then this
        frame's turn of the sweep if the budget allows; returns the frame pixels searched."""
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
            sweep[r, c] = not wanted[r, c]
            self._sweep_at += 1
        margin = self._margin_px()
        waiting = self._waiting
        pieces = sorted(  # the longest waiting first
            self._pieces(self._regions(wanted), margin),
            key=lambda p: int(waiting[p[0] : p[2], p[1] : p[3]].min()),
        )
        pieces += self._pieces(self._regions(sweep), margin)
        searched_px = 0
        for r0, c0, r1, c1 in pieces:
            area = self._piece_area(r0, c0, r1, c1, margin)
            if searched_px and searched_px + area > self.search_budget_px:
                continue  # next frame: these cells still differ from what was searched
            searched_px += area
            x0, y0, x1, y1 = c0 * CELL, r0 * CELL, c1 * CELL, r1 * CELL
            fx0, fy0 = x0 * SHRINK - margin, y0 * SHRINK - margin
            fx1, fy1 = x1 * SHRINK + margin, y1 * SHRINK + margin
            for detector in self.scanner.detectors.values():
                for det in detector.detect_in_window(frame.gray, fx0, fy0, fx1, fy1):
                    self._adopt(det, frame)
            self._searched[y0:y1, x0:x1] = small[y0:y1, x0:x1]
            self._waiting[r0:r1, c0:c1] = 0
        return searched_px

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
        self._tracks.append(self._new_track(det, frame))  # a new tag, or a second copy of one

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
            self.stats, tracks=len(self._tracks), seen=len(seen), averaged=averaged
        )
        doc["detection"]["calibration"]["moved_tags"] = sorted(tag for _, tag in self._knocked)
        if self._fit_problem is not None:
            doc["detection"]["calibration"]["kept_because"] = self._fit_problem
        return Scan(doc, self._fit, self._pose, tuple(t.detection for t in seen))
