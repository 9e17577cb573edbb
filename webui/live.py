"""The tracker running behind `umpire serve`: frames in, scenes out, in two threads.

- The source thread reads frames into a `queue.Queue(maxsize=1)`; a frame nobody scanned yet is
  dropped for the newer one (Northstar's rule: scan the present, never a backlog), except the
  photos of a folder: each is a frame of its own, and the source thread waits for it to be
  taken. A video file or a folder plays at its own pace (`vision.sources`: a video at its frame
  rate, a folder a photo a second or stepped by hand, `step()`), and is said to have ended
  once its last frame is scanned.
- The scan thread runs `Tracker.scan` (vision/track.py: only what changed is read again) on
  the newest frame and publishes an immutable `LiveState`
  under a lock, then wakes every waiter of a `threading.Condition` (the page's event streams).
  Under `umpire serve` the tracker itself runs in a process of its own (`tracker_process`,
  vision/trackproc.py): the scan thread hands it the frame's grey picture and waits for the
  scene, so the tracker never waits for the interpreter lock that a hundred streams share.

Each state carries its frame's capture time; `/events` reports each frame event it has written
(`frame_sent`), and the status gives the frame-to-page latency of the last 10 s (`latency_ms`).

A live source that gives no frame (a camera unplugged, a stream dropped) sets `camera_lost` and
is reopened with back-off, while the server keeps serving the last scene. A frame whose table
cannot be fitted keeps the last good scene and says why in the status's `error`. A base hidden
for a moment (a hand over it) stays on the table as `stale` for `stale_seconds`, at its last
seen place, so the map does not flicker; a base the players hold in place (hidden for long,
inside a building) stays there until it is seen again.

The game in play (`set_play`, a `rules.play.Play`) is applied to every scene: each unit's
state from it, the bases taken off the table left out (the rules stop counting them, the status
stops naming them as missing), the turn and phase in the status. A change of state is applied
to the last frame's scene at once, without waiting for the next frame.

Never imports flask or werkzeug: the web layer reads `LiveState` and waits on `Live.changed`.
"""

from __future__ import annotations

import json
import logging
import math
import queue
import statistics
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

import numpy as np

from calibration.camera import CameraModel
from calibration.errors import CalibrationError
from calibration.units import to_mm
from rules.engine import check_ruleset_id, get_ruleset, read_scene
from rules.errors import UmpireError
from rules.play import Play
from rules.scene import Scene
from vision.game import Game, load_game
from vision.pipeline import Scan
from vision.sources import (
    CameraControls,
    CameraSettings,
    FrameSource,
    ImageFolderSource,
    SourceError,
    VideoFileSource,
    open_source,
    parse_source,
)
from vision.track import Tracker
from vision.trackproc import TrackerProcess

_log = logging.getLogger(__name__)

FPS_WINDOW_S: Final = 10.0
"""Frames per second are counted over the last few seconds (enough for a slow scanner)."""
LATENCY_WINDOW_S: Final = 10.0
"""The frame-to-page latency in the status is the median and p95 of the last 10 seconds."""
LATENCY_EVERY_S: Final = 0.5
"""How often the latency figures are worked out again."""
LATENCY_KEEP: Final = 20_000
"""The most frame events the latency remembers (fifty pages at 30 fps for 13 s)."""
AT_END: Final = ("stop", "loop")
"""What a video file or a folder of photos does after its last frame (`--at-end`)."""
BACKOFF_FIRST_S: Final = 0.25
BACKOFF_MAX_S: Final = 5.0
"""Reopening a lost camera waits this long, doubling up to the maximum, between tries."""
STALE_SECONDS: Final = 20.0
"""How long a base not seen any more stays on the table at its last seen place."""
SETTLE_SECONDS: Final = 0.5
"""How long a base that reappears elsewhere must be seen still before it is shown moved."""
MOVED_MM: Final = 3.0
"""A base seen again this far from where it was hidden has been moved (measurement noise is
a tenth of a millimetre; a nudge under 3 mm is not a move the page needs to hold back)."""
SETTLED_MM: Final = 1.0
"""A base seen again within this of its previous sighting is standing still."""
CALIBRATION_WARN_MM: Final = 2.0
"""A table fit whose worst corner residual passes this is shown as a warning: a corner tag
or the camera has moved and the fit no longer agrees with the game file."""


class ServeError(UmpireError):
    """`umpire serve` options that do not go together (a camera without a game file, ...)."""


@dataclass(frozen=True, slots=True)
class LiveState:
    """What the tracker knows at one moment. Never changed once published: readers need no
    lock to use one."""

    version: int
    """Counts publications: a new frame, or a change of status (camera lost, phase)."""
    frame: int
    """Index (from the source) of the frame last scanned; -1 before the first."""
    image: np.ndarray | None
    """That frame (BGR, read-only), None before the first."""
    scan: Scan | None
    """The last scan whose table fitted (its `fit` places overlays on `image`)."""
    scene_doc: Mapping[str, Any] | None
    """The last good `umpire-scene/1` document, stale bases included, with `detection`."""
    scene: Scene | None
    """`scene_doc` parsed by the rules (mm)."""
    status: Mapping[str, Any]
    """The `/api/status` document."""
    error: str | None = None
    """Why the last frame gave no scene, if it did not."""
    timings: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    """`scan_s`: seconds the last scan took."""
    captured: float | None = None
    """`time.monotonic()` when the source handed over the frame last scanned (None before)."""


class Live:
    """The tracker of one game: start it, read `state`, wait on `changed`, `stop()` it."""

    def __init__(
        self,
        source: FrameSource,
        game: Game,
        camera: CameraModel | None = None,
        *,
        stale_seconds: float = STALE_SECONDS,
        settle_seconds: float = SETTLE_SECONDS,
        backoff: tuple[float, float] = (BACKOFF_FIRST_S, BACKOFF_MAX_S),
        max_fps: float | None = None,
        tracker_process: bool = False,
    ) -> None:
        self.source = source
        self.game = game
        self.tracker: Tracker | TrackerProcess = (
            TrackerProcess(game, camera) if tracker_process else Tracker(game, camera)
        )
        """Follows the tags from frame to frame (a whole scan only for the first frame): in a
        process of its own with `tracker_process` (`umpire serve`: vision/trackproc.py says
        why), else in the scan thread."""
        self.ruleset = get_ruleset(game.ruleset)
        for name, value in (("stale seconds", stale_seconds), ("settle seconds", settle_seconds)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                raise ServeError(f"{name} must be a number of seconds 0 or more, not {value!r}")
        self.stale_seconds = float(stale_seconds)
        self.settle_seconds = float(settle_seconds)
        self.backoff = backoff
        if max_fps is not None and not (isinstance(max_fps, int | float) and max_fps > 0):
            raise ServeError(f"fps must be a number above 0, not {max_fps!r}")
        self.min_interval = 0.0 if max_fps is None else 1.0 / float(max_fps)
        """Shortest time between two scans (`--fps` for a camera, file or stream)."""
        self._fps_lock = threading.Lock()
        self.changed = threading.Condition()
        """Notified after each publication; `wait_for_version` waits on it."""
        self._lock = threading.Lock()
        self._scan_lock = threading.Lock()
        """Held while a frame's scene is made, and while a new game state is applied to it."""
        self._frames: queue.Queue[Any] = queue.Queue(maxsize=1)
        self._stopping = threading.Event()
        self._reset_tracker = threading.Event()
        self._threads: list[threading.Thread] = []
        self._scanned_at: deque[float] = deque()
        self._seen: dict[str, tuple[float, str, dict[str, Any]]] = {}
        self._unit_docs: dict[str, dict[str, Any]] = {}
        self._hidden: set[str] = set()
        """Bases not seen in the last frame but remembered (shown stale)."""
        self._pending: dict[str, tuple[float, dict[str, Any]]] = {}
        """Bases seen again elsewhere: since when, and where, they have been standing still."""
        self._glimpsed: dict[str, float] = {}
        """When each settling base was last seen at its new place."""
        self.dropped = 0
        """Frames the scan thread never saw because a newer one came first."""
        self.scanned = 0
        """Frames scanned so far (a table fitted or not)."""
        self._camera_lost = False
        self._ended = False
        self._latency_lock = threading.Lock()
        self._latencies: deque[tuple[float, float]] = deque(maxlen=LATENCY_KEEP)
        """(when sent, seconds from capture) of each frame event written to a page."""
        self._latency_doc: tuple[float, dict[str, Any]] | None = None
        """When `latency_ms` was last worked out, and what it gave."""
        self._origin: tuple[int, str] | None = None
        """Index and origin (a folder's photo path) of the frame last scanned."""
        self._play: Play | None = None
        self._told_removed: frozenset[str] = frozenset()
        """The removed bases the tracker was last told of (scan thread only)."""
        """The game in play, applied to every scene (None: the game file's state as it is)."""
        self._seen_doc: dict[str, Any] | None = None
        """The last good scan's scene with its stale bases, before the game state is applied."""
        self._state = LiveState(0, -1, None, None, None, None, MappingProxyType({}))
        self._state = self._with_status(self._state, error=None, bump=False)

    # ----------------------------------------------------------------------------- control

    def start(self) -> Live:
        if self._threads:
            return self
        self._threads = [
            threading.Thread(target=self._read_loop, name="umpire-source", daemon=True),
            threading.Thread(target=self._scan_loop, name="umpire-scan", daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop both threads and close the source. Waiters on `changed` are woken, and so is a
        source waiting for its next frame to be due (a folder waiting for "next photo")."""
        self._stopping.set()
        interrupt = getattr(self.source, "interrupt", None)
        if callable(interrupt):
            interrupt()
        with self.changed:
            self.changed.notify_all()
        for thread in self._threads:
            thread.join(timeout)
        self._threads = []
        self.source.close()
        if isinstance(self.tracker, TrackerProcess):
            self.tracker.close()

    def adjust_camera(self, settings: CameraSettings) -> CameraControls:
        """Ask the source's camera for other settings (the calibration page): it answers with
        what its driver took and what it refused. The tracker starts afresh with the next frame
        (another camera or resolution sees the table elsewhere). `ServeError` for a source
        without camera settings; `SourceError` for a value the camera does not accept."""
        adjust = getattr(self.source, "adjust", None)
        if not callable(adjust):
            raise ServeError(
                f"{self.source.description} has no camera settings: they are for a camera "
                "(camera:N) or the synthetic board camera (--source board)"
            )
        controls: CameraControls = adjust(settings)
        self._reset_tracker.set()
        return controls

    def use_camera(self, camera: CameraModel | None) -> None:
        """Scan with these intrinsics from the next frame on (a calibration just saved)."""
        with self._scan_lock:
            self.tracker.use_camera(camera)

    @property
    def running(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    @property
    def state(self) -> LiveState:
        with self._lock:
            return self._state

    def wait_for_version(self, after: int, timeout: float) -> LiveState:
        """The state once its version passes `after`, or the current one after `timeout`."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while self.state.version <= after and not self.stopping:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.changed.wait(left)
        return self.state

    @property
    def phase(self) -> str | None:
        """The phase of play (the first phase until a game state is set)."""
        if self._play is not None:
            return self._play.phase
        return self.ruleset.phases[0] if self.ruleset.phases else None

    @property
    def play(self) -> Play | None:
        return self._play

    @property
    def game_key(self) -> str:
        """What names the game file this tracker plays, for resuming its unfinished game: the
        built-in demo by its ruleset, a game file by its full path."""
        if self.source.description.startswith("demo"):
            return f"demo:{self.game.ruleset}"
        return str(Path(self.game.source).resolve())

    def set_play(self, play: Play) -> None:
        """Apply the game in play to every scene from now on, starting with the last one."""
        with self._scan_lock:
            self._play = play
            take_off = getattr(self.source, "take_off", None)
            if callable(take_off):
                take_off(play.removed)  # the demo's camera stops seeing them
            seen = self._seen_doc
            scene_doc: dict[str, Any] | None = None
            scene: Scene | None = None
            error: str | None = None
            if seen is not None:
                try:
                    scene_doc = self._with_play(seen)
                    scene = read_scene(json.loads(json.dumps(scene_doc)), "live scene")
                except UmpireError as exc:
                    error = f"the game state does not fit the table: {exc}"
                    scene_doc, scene = None, None

            def update(s: LiveState) -> LiveState:
                if scene is None:
                    return s
                return LiveState(
                    s.version,
                    s.frame,
                    s.image,
                    s.scan,
                    MappingProxyType(scene_doc or {}),
                    scene,
                    s.status,
                    s.error,
                    s.timings,
                    s.captured,
                )

            self._publish(update, error=error)

    def status(self) -> dict[str, Any]:
        """The `/api/status` document now (frames per second counted up to this moment)."""
        status = dict(self.state.status)
        status["fps"] = self._fps()
        status["latency_ms"] = self.latency_ms()
        return status

    def frame_sent(self, state: LiveState) -> None:
        """A page has been written the `frame` event of `state`'s frame (called by `/events`
        once the event is written): its latency from capture counts in `latency_ms`."""
        if state.captured is None:
            return
        now = time.monotonic()
        with self._latency_lock:
            self._latencies.append((now, now - state.captured))

    def latency_ms(self, *, fresh: bool = False) -> dict[str, Any]:
        """Frame-to-page latency over the last `LATENCY_WINDOW_S`: from a frame's capture to
        its `frame` event written to a page, median and p95 in ms (None without a page), and
        how many events were counted. Worked out at most every `LATENCY_EVERY_S` (fifty pages
        at 30 frames a second ask for the status 1500 times a second); `fresh`: now."""
        now = time.monotonic()
        with self._latency_lock:
            known = self._latency_doc
            if not fresh and known is not None and now - known[0] < LATENCY_EVERY_S:
                return dict(known[1])
            sent = self._latencies
            while sent and now - sent[0][0] > LATENCY_WINDOW_S:
                sent.popleft()
            values = sorted(latency for _, latency in sent)
            median = p95 = None
            if values:
                median = round(statistics.median(values) * 1000, 1)
                p95 = round(values[math.ceil(0.95 * len(values)) - 1] * 1000, 1)
            figures = {
                "median": median,
                "p95": p95,
                "events": len(values),
                "window_s": LATENCY_WINDOW_S,
            }
            self._latency_doc = (now, figures)
            return dict(figures)

    def step(self) -> dict[str, int]:
        """Ask a folder of photos for its next photo now (the page's "Next photo"): stepping
        by hand, or sooner than its time. Returns `{"photo": N, "photos": M}`, the number of
        the photo asked for and how many the folder holds. Raises `ServeError` saying why when
        there is no next photo (not a folder, one photo, all shown)."""
        source = self.source
        if not isinstance(source, ImageFolderSource):
            raise ServeError(
                f"{source.description} is not a folder of photos: only a folder steps from one "
                "photo to the next"
            )
        photos = len(source.images)
        if photos < 2:
            raise ServeError(f"{source.description} is one photo: there is no next photo")
        if not source.paced:
            raise ServeError(
                f"{source.description} is read as fast as its photos load: there is no photo to "
                "wait for"
            )
        number = source.advance()
        if number is None:
            raise ServeError(
                f"all {photos} photos have been shown (or asked for); serve with --at-end loop "
                "to go round again"
            )
        return {"photo": number, "photos": photos}

    # ----------------------------------------------------------------------------- threads

    def _read_loop(self) -> None:
        delay = self.backoff[0]
        offered = 0
        while not self._stopping.is_set():
            frame = self.source.read()
            if frame is not None:
                delay = self.backoff[0]
                if self._camera_lost:
                    self._camera_lost = False
                    self._reset_tracker.set()  # it may be another camera, or moved
                    self._publish(lambda s: s)
                if getattr(self.source, "every_frame", False):
                    self._hand_over(frame)
                else:
                    self._offer(frame)
                offered += 1
                continue
            if self._stopping.is_set():
                return
            if not self.source.live:
                # Played to its end: said so once its last frame has been scanned.
                while self.scanned + self.dropped < offered:
                    if self._stopping.wait(0.02):
                        return
                self._ended = True
                self._publish(lambda s: s)
                return
            if not self._camera_lost:
                self._camera_lost = True
                self._publish(lambda s: s)
            if self._stopping.wait(delay):
                return
            delay = min(delay * 2, self.backoff[1])
            try:
                self.source.reopen()
            except SourceError as error:
                _log.info("reopening %s failed: %s", self.source.description, error)

    def _offer(self, frame: Any) -> None:
        """Put the newest frame in the queue, dropping the one waiting there."""
        try:
            self._frames.put_nowait(frame)
        except queue.Full:
            try:
                self._frames.get_nowait()
                self.dropped += 1
            except queue.Empty:
                pass
            self._frames.put_nowait(frame)  # one producer: the slot is free now

    def _hand_over(self, frame: Any) -> None:
        """Put a frame that must be scanned in the queue, waiting for the slot to be free."""
        while not self._stopping.is_set():
            try:
                self._frames.put(frame, timeout=0.1)
                return
            except queue.Full:
                continue

    def _scan_loop(self) -> None:
        last = -float("inf")
        while not self._stopping.is_set():
            wait = last + self.min_interval - time.monotonic()
            if wait > 0 and self._stopping.wait(wait):
                return
            try:
                frame = self._frames.get(timeout=0.1)
            except queue.Empty:
                continue
            last = time.monotonic()
            self._scan_one(frame)

    def _scan_one(self, frame: Any) -> None:
        with self._scan_lock:
            self._scan_locked(frame)

    def _scan_locked(self, frame: Any) -> None:
        started = time.perf_counter()
        if self._reset_tracker.is_set():
            self._reset_tracker.clear()
            self.tracker.reset()
        error: str | None = None
        scan: Scan | None = None
        doc: dict[str, Any] | None = None
        scene: Scene | None = None
        play = self._play
        removed = play.removed if play is not None else frozenset()
        if removed != self._told_removed:
            self.tracker.set_removed(removed)  # bases taken off are no longer searched for
            self._told_removed = removed
        try:
            scan = self.tracker.scan(frame.image, state=None)
            seen = self._with_stale(scan.scene, frame.timestamp)
            doc = self._with_play(seen)
            scene = read_scene(doc, "live scene")  # new containers over values nobody changes
            self._seen_doc = seen
        except (CalibrationError, UmpireError) as exc:
            error = f"frame {frame.index}: {exc}"
            scan = None
        except Exception as exc:  # the tracker must outlive any one bad frame
            _log.exception("scanning frame %s failed", frame.index)
            error = f"frame {frame.index}: internal error while scanning: {exc}"
            scan = None
        elapsed = time.perf_counter() - started
        with self._fps_lock:
            self._scanned_at.append(time.monotonic())
        self._origin = (frame.index, str(frame.source))
        captured = getattr(frame, "captured", None)

        def update(s: LiveState) -> LiveState:
            keep = scan is None
            return LiveState(
                s.version,
                frame.index,
                frame.image,
                s.scan if keep else scan,
                s.scene_doc if keep else MappingProxyType(doc or {}),
                s.scene if keep else scene,
                s.status,
                error,
                MappingProxyType({"scan_s": elapsed}),
                captured,
            )

        self._publish(update, error=error)
        self.scanned += 1  # after the publication: "ended" is said after the last frame

    # ----------------------------------------------------------------------------- state

    def _with_stale(self, seen_doc: Mapping[str, Any], now: float) -> dict[str, Any]:
        """The scan's scene plus every base seen within `stale_seconds` but not in this frame,
        at its last seen place and marked `"stale": true`; listed under `detection`.

        A base that comes back into view somewhere else (it was moved while hidden, or a hand
        is still over it) keeps its old place, marked stale and `"settling": true`, until it
        has been seen at its new place for `settle_seconds`: the page never shows a base moved
        while the move is still going on."""
        # New containers wherever this changes the document, over the scan's own values: the
        # scan's scene stays as the tracker made it (a JSON copy of the whole scene cost ~2 ms
        # of the server's Python a frame, on the way from the camera to the page).
        doc = {
            **seen_doc,
            "units": [
                {**unit, "bases": [dict(base) for base in unit["bases"]]}
                for unit in seen_doc["units"]
            ],
            "detection": dict(seen_doc["detection"]),
        }
        seen_units = {u["id"]: u for u in doc["units"]}
        held: dict[str, dict[str, Any]] = {}
        settling: list[dict[str, Any]] = []
        for unit in doc["units"]:
            self._unit_docs[unit["id"]] = {k: v for k, v in unit.items() if k != "bases"}
            for base in unit["bases"]:
                ident = base["id"]
                memory = self._seen.get(ident)
                if ident in self._hidden and memory is not None and self._apart(memory[2], base):
                    self._glimpsed[ident] = now
                    since, where = self._pending.get(ident, (now, base))
                    if self._apart(where, base, SETTLED_MM):
                        # Moved from where its settling began: it starts again from here (a
                        # slow creep is never taken for standing still).
                        since, where = now, base
                    self._pending[ident] = (since, where)
                    if now - since < self.settle_seconds:
                        held[ident] = {**memory[2], "stale": True, "settling": True}
                        settling.append(
                            {"unit": unit["id"], "base": ident, "seen_for": round(now - since, 2)}
                        )
                        continue
                self._pending.pop(ident, None)
                self._glimpsed.pop(ident, None)
                self._hidden.discard(ident)
                self._seen[ident] = (now, unit["id"], base)
            unit["bases"] = [held.get(b["id"], b) for b in unit["bases"]]
        stale: list[dict[str, Any]] = []
        units: list[dict[str, Any]] = []
        for spec in self.game.units:
            current = seen_units.get(spec.id)
            bases = list(current["bases"]) if current else []
            present = {b["id"] for b in bases}
            for base_spec in spec.bases:
                memory = self._seen.get(base_spec.id)
                if base_spec.id in present or memory is None:
                    continue
                self._hidden.add(base_spec.id)
                self._pending.pop(base_spec.id, None)
                # Stale since it was last seen, at its old place or settling at a new one.
                age = now - max(memory[0], self._glimpsed.get(base_spec.id, memory[0]))
                if age > self.stale_seconds:
                    continue  # gone from the map (unless the players hold it: `_with_play`)
                bases.append({**memory[2], "stale": True})
                stale.append({"unit": spec.id, "base": base_spec.id, "age": round(age, 2)})
            if bases:
                head = current or self._unit_docs.get(spec.id)
                if head is not None:
                    units.append(
                        {**{k: v for k, v in head.items() if k != "bases"}, "bases": bases}
                    )
        doc["units"] = units
        doc["detection"]["stale_bases"] = stale
        doc["detection"]["settling_bases"] = settling
        return doc

    def _with_play(self, seen: Mapping[str, Any]) -> dict[str, Any]:
        """The scene with the game in play applied: each unit's state, the bases taken off the
        table left out (a unit with none left is left out), listed under `detection`."""
        # A new document over the same base entries: nothing of `seen` is changed (a JSON copy
        # of the whole scene cost a millisecond a frame).
        play = self._play
        doc = {**seen, "units": [{**unit, "bases": list(unit["bases"])} for unit in seen["units"]]}
        doc["detection"] = dict(seen["detection"])
        if play is None:
            return doc
        # A held base the camera cannot see stays where it was last seen, however long.
        present = {b["id"] for u in doc["units"] for b in u["bases"]}
        by_unit = {u["id"]: u for u in doc["units"]}
        for ident in sorted(play.held - present - play.removed):
            memory = self._seen.get(ident)
            if memory is None:
                continue  # never seen: nowhere to hold it
            unit_doc = by_unit.get(memory[1])
            if unit_doc is None:
                head = self._unit_docs.get(memory[1])
                if head is None:
                    continue
                unit_doc = by_unit[memory[1]] = {**head, "bases": []}
                doc["units"].append(unit_doc)
            unit_doc["bases"].append({**memory[2], "stale": True})
        for unit in doc["units"]:
            unit["bases"] = [
                {**base, "held": True} if base["id"] in play.held and base.get("stale") else base
                for base in unit["bases"]
            ]
        units = []
        for unit in doc["units"]:
            unit.update(json.loads(json.dumps(dict(play.units.get(unit["id"], {})))))
            unit["bases"] = [b for b in unit["bases"] if b["id"] not in play.removed]
            if unit["bases"]:
                units.append(unit)
        doc["units"] = units
        doc["turn"] = play.turn
        if play.phase is not None:
            doc["phase"] = play.phase
        doc["detection"]["removed_bases"] = sorted(play.removed)
        doc["detection"]["held_bases"] = sorted(play.held)
        return doc

    def _apart(
        self, before: Mapping[str, Any], after: Mapping[str, Any], limit_mm: float = MOVED_MM
    ) -> bool:
        """Whether two sightings of a base (scene docs, game unit) are more than `limit_mm`
        apart."""
        scale = to_mm(1.0, self.game.unit)
        dx = (float(after["x"]) - float(before["x"])) * scale
        dy = (float(after["y"]) - float(before["y"])) * scale
        return math.hypot(dx, dy) > limit_mm

    def _fps(self) -> float:
        """Frames scanned per second over the last `FPS_WINDOW_S`, counted up to now: it falls
        towards 0 while no frame comes."""
        now = time.monotonic()
        with self._fps_lock:
            times = self._scanned_at
            while times and now - times[0] > FPS_WINDOW_S:
                times.popleft()
            if len(times) < 2:
                return 0.0
            return round((len(times) - 1) / max(now - times[0], 1e-6), 2)

    def _publish(self, update: Any, *, error: str | None = None) -> None:
        with self._lock:
            state = update(self._state)
            self._state = self._with_status(state, error=error or state.error, bump=True)
        with self.changed:
            self.changed.notify_all()

    def _with_status(self, state: LiveState, *, error: str | None, bump: bool) -> LiveState:
        doc = state.scene_doc
        det: Mapping[str, Any] = doc.get("detection", {}) if doc else {}
        cal = det.get("calibration")
        play = self._play
        removed = play.removed if play is not None else frozenset()
        expected = sum(len(u.bases) for u in self.game.units) - len(removed)
        shown = [b for u in doc["units"] for b in u["bases"]] if doc else []
        stale = sum(1 for b in shown if b.get("stale"))  # a held base included
        seen = len(shown) - stale
        on_map = {b["id"] for b in shown}
        missing = sorted(
            b.id
            for u in self.game.units
            for b in u.bases
            if b.id not in on_map and b.id not in removed
        )
        playback, words = self._playback()
        captured = (
            None
            if state.captured is None
            else round(time.time() - (time.monotonic() - state.captured), 4)
        )
        status = {
            "fps": self._fps(),
            "frame": state.frame,
            "source": self.source.description,
            "live": bool(self.source.live) and not self._ended,
            "source_state": playback,
            "source_words": words,
            "can_step": playback in ("playing", "stepping") and self._can_step(),
            "camera_lost": self._camera_lost,
            "ruleset": self.game.ruleset,
            "phase": self.phase,
            "phases": list(self.ruleset.phases),
            "turn": play.turn if play is not None else 1,
            "unit": self.game.unit,
            "calibration": (
                None
                if cal is None
                else {"rms": cal["rms"], "worst": cal["worst"], "unit": cal["unit"]}
            ),
            "bases": {
                "seen": seen,
                "stale": stale,
                "missing": expected - seen - stale,
                "removed": len(removed),
                "held": len(play.held) if play is not None else 0,
            },
            "missing_bases": missing if doc else [],
            "lost_in_view": list(det.get("tracker", {}).get("missing", [])),
            "unknown_tags": list(det.get("unknown_tags", [])),
            "duplicate_tags": list(det.get("duplicate_tags", [])),
            "off_table": list(det.get("off_table", [])),
            "warnings": self._warnings(det),
            "error": error,
            "updated": time.time(),
            "dropped_frames": self.dropped,
            "scan_ms": round(state.timings.get("scan_s", 0.0) * 1000, 1),
            "captured": captured,
            "latency_ms": self.latency_ms(),
        }
        return LiveState(
            state.version + (1 if bump else 0),
            state.frame,
            state.image,
            state.scan,
            state.scene_doc,
            state.scene,
            MappingProxyType(status),
            error,
            state.timings,
            state.captured,
        )

    def _playback(self) -> tuple[str, str]:
        """Where the source stands, as a word for the page to style and a phrase to show:
        `live` (a camera, stream or the demo giving frames), `lost` (it gives none), `playing`
        (a video, or a folder in real time), `stepping` (a folder stepped by hand), `still` (one
        photo), `ended` (a video or folder played to its end)."""
        source = self.source
        if source.live:
            return ("lost", "no frames: reconnecting") if self._camera_lost else ("live", "live")
        if isinstance(source, ImageFolderSource):
            return self._photo_playback(source)
        if isinstance(source, VideoFileSource):
            name = source.path.name
            if self._ended:
                return "ended", f"finished: {name} played to its end"
            where = ""
            if self._origin is not None:
                count = source.frame_count
                number = self._origin[0] % count + 1 if count else self._origin[0] + 1
                where = f", frame {number}" + (f" of {count}" if count else "")
            pace = f" at {source.play_rate:g} fps" if source.play_rate else ""
            return "playing", f"playing {name}{pace}{where}"
        if self._ended:
            return "ended", f"finished: {source.description} has no more frames"
        return "playing", f"playing {source.description}"

    def _photo_playback(self, source: ImageFolderSource) -> tuple[str, str]:
        photos = source.images
        shown = Path(self._origin[1]) if self._origin is not None else None
        if len(photos) == 1:
            return "still", f"still photo {photos[0].name}"
        if self._ended:
            return "ended", f"finished: all {len(photos)} photos shown"
        if shown is not None and shown in photos:
            where = f"photo {photos.index(shown) + 1} of {len(photos)} ({shown.name})"
        else:
            where = f"{len(photos)} photos"
        if source.step:
            return "stepping", f"{where}: next photo steps on"
        pace = f", one every {1 / source.play_rate:g} s" if source.play_rate else ""
        return "playing", where + pace

    def _can_step(self) -> bool:
        source = self.source
        if not isinstance(source, ImageFolderSource) or len(source.images) < 2:
            return False
        if not source.paced:
            return False
        return source.loop or not source.finished

    def _warnings(self, det: Mapping[str, Any]) -> list[str]:
        """What the players should look at: the fit drifting, corner tags left out, tags that
        are not used. Each names the tags or bases and what to do."""
        out: list[str] = []
        cal = det.get("calibration")
        if cal is not None:
            worst_mm = to_mm(float(cal["worst"]), cal["unit"])
            if worst_mm > CALIBRATION_WARN_MM:
                out.append(
                    f"the table fit is off by up to {cal['worst']:g} {cal['unit']} at the corner "
                    "tags: a corner tag or the camera has moved; put the corner tags back where "
                    "the game file says"
                )
            for tag in cal.get("moved_tags", []):
                out.append(
                    f"corner tag {tag} has moved since the table was fitted (the camera has "
                    "not): the fit is kept; put the tag back where the game file says"
                )
            if cal.get("kept_because"):
                out.append(
                    f"the camera has moved but the table cannot be fitted again: "
                    f"{cal['kept_because']}"
                )
            if cal.get("rejected_tags"):
                tags = ", ".join(str(t) for t in cal["rejected_tags"])
                out.append(
                    f"corner tag {tags} is not where the game file puts it and is left out of "
                    "the fit; put it back"
                )
        for name in det.get("tracker", {}).get("missing", []):
            out.append(
                f"{name} is not found although nothing covers its place: check that its tag "
                "is face up and clean (a base taken off the table: mark it removed)"
            )
        for tag in det.get("duplicate_tags", []):
            out.append(f"tag {_tag_words(tag)} is seen more than once; neither copy is used")
        for tag in det.get("unknown_tags", []):
            out.append(f"tag {_tag_words(tag)} is not in the game file; it is ignored")
        for base in det.get("off_table", []):
            name = base.get("base") or base.get("terrain") or base.get("tag")
            out.append(f"{name} is seen off the table; it is left out of the scene")
        return out


def _tag_words(tag: Any) -> str:
    """A tag of the detection report in words: `7 (tag36h11, base b3)`."""
    if not isinstance(tag, Mapping):
        return str(tag)
    ident = tag.get("id", tag.get("tag"))
    about = [str(tag["family"])] if "family" in tag else []
    owner = tag.get("tag_of")
    if owner and owner != "unknown":
        about.append(str(owner))
    return f"{ident} ({', '.join(about)})" if about else str(ident)


def open_live(
    source: str = "demo",
    game_path: str | Path | None = None,
    camera_path: str | Path | None = None,
    *,
    fps: float | None = None,
    realtime: bool = True,
    resolution: str | tuple[int, int] = (1280, 720),
    stale_seconds: float = STALE_SECONDS,
    demo: str | None = None,
    at_end: str | None = None,
    step: bool = False,
    tracker_process: bool = False,
) -> Live:
    """The tracker for a `--source` (not started): the built-in demo of `demo` (a ruleset id,
    default skirmish-19c), or a camera, file, folder or stream scanned with the game file
    `game_path` (required for anything but the demo).

    `fps`: the demo's frame rate (default 10); a video is played at it (default: the file's
    own rate) and a folder shows that many photos a second (default 1); a camera or stream is
    scanned at most that often. `step`: a folder shows each photo until the page asks for the
    next. `at_end`: what a video or a folder does after its last frame, `stop` (default) or
    `loop`. `realtime=False` reads the demo, a video or a folder as fast as it comes (tests).
    `tracker_process`: the tracker runs in a process of its own (`umpire serve`)."""
    from calibration.store import load_camera

    kind = "demo" if source.strip().lower() == "demo" else parse_source(source).kind
    if at_end is not None and at_end not in AT_END:
        raise ServeError(f"--at-end must be one of {', '.join(AT_END)}, not {at_end!r}")
    if at_end is not None and kind not in ("video", "images"):
        raise ServeError(
            f"--at-end applies to a video file or a folder of photos, not to {source!r}: a "
            "camera, a stream or the demo has no end"
        )
    if step and kind != "images":
        raise ServeError(
            f"--step steps through a folder of photos, not {source!r}"
            + (": a video plays at its own frame rate, or at --fps" if kind == "video" else "")
        )
    if step and fps is not None:
        raise ServeError("--step and --fps: a folder stepped by hand has no rate; give one of them")
    camera = load_camera(camera_path) if camera_path else None
    if kind == "demo":
        from vision.demo import DEFAULT_DEMO, open_demo_game

        if demo is not None:
            check_ruleset_id(demo)
        demo_source = open_demo_game(
            demo or DEFAULT_DEMO, resolution=resolution, fps=fps or 10.0, realtime=realtime
        )
        game = load_game(game_path) if game_path else demo_source.game
        if game.ruleset != demo_source.game.ruleset:
            demo_source.close()
            raise ServeError(
                f"the demo plays {demo_source.game.ruleset}, but {game_path} is a "
                f"{game.ruleset} game; leave --game out for the demo"
            )
        return Live(
            demo_source, game, camera, stale_seconds=stale_seconds, tracker_process=tracker_process
        )
    if game_path is None:
        raise ServeError(
            f"--source {source!r} needs --game GAME.toml (which tags are which bases); only the "
            "built-in demo brings its own game"
        )
    game = load_game(game_path)
    if kind in ("video", "images"):
        # Played like a camera: a video at its frame rate, a folder a photo a second or by
        # hand; every photo of a folder is scanned. Once, or over and over with --at-end loop.
        options: dict[str, Any] = {"loop": at_end == "loop"}
        if step:
            options["step"] = True
        else:
            options.update(realtime=realtime, rate=fps)
        frames, max_fps = open_source(source, **options), None
    else:
        frames, max_fps = open_source(source), fps
    return Live(
        frames,
        game,
        camera,
        max_fps=max_fps,
        stale_seconds=stale_seconds,
        tracker_process=tracker_process,
    )
