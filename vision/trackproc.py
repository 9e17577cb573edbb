"""The tracker in a process of its own, for `umpire serve`.

A show's server holds a hundred streams on one event loop, serves the page's API from a thread
pool and draws the live view's pictures, all in Python and all under one interpreter lock. The
tracker's own Python (following tags, the table fit, the scene) waited behind them. In a
process of its own the tracker waits for no lock: the system shares the cores between the two
processes. Measured at 1080p with 50 spectators watching (benchmarks/bench_latency.py, and
`--tracker thread` to compare): frame-to-page p95 41-45 ms here in three runs, 40-60 ms in
a thread in three (with OpenCV on one thread here, and the tracker's frame budget in both).

`TrackerProcess` answers as `Tracker` does (`scan`, `reset`, `set_removed`, `use_camera`,
`camera`, `stats`, `missing`), one call at a time. A frame goes to the tracker's process as its
grey picture (the only part the tracker reads: 2 MB at 1080p, a third of the colour frame) and
its scene comes back pickled. A process that dies (killed, out of memory) is started again for
the next frame, which is then scanned whole: that frame's `scan` raises `TrackerError` saying
so. Never imports flask or webui.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import traceback
from collections.abc import Iterable, Mapping
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from types import MappingProxyType
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraModel

from .game import Game
from .pipeline import Scan, to_gray
from .track import Tracker, TrackerError, check_frame

START_TIMEOUT_S = 60.0
"""How long a new tracker process may take to start (importing OpenCV and the detector)."""


def _read_only(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(items)


def _reduce_read_only(proxy: MappingProxyType[Any, Any]) -> tuple[Any, tuple[dict[Any, Any]]]:
    return _read_only, (dict(proxy),)


# A game and a scan hold read-only mappings, which pickle cannot send as they are: they travel
# as plain dicts and are made read-only again on arrival (only in what multiprocessing sends).
ForkingPickler.register(MappingProxyType, _reduce_read_only)


class TrackerProcess:
    """A `Tracker` of `game` running in a child process (see the module's docstring). `close()`
    ends the process; so does the end of the parent."""

    def __init__(self, game: Game, camera: CameraModel | None = None, **options: Any) -> None:
        """`options`: the `Tracker`'s own (its budgets), for the tracker in the process."""
        self.game = game
        self._camera = camera
        self._options = options
        self.stats: dict[str, Any] = {}
        self.missing: tuple[str, ...] = ()
        self._removed: frozenset[str] = frozenset()
        self._lock = threading.Lock()
        """One call at a time: a request and its answer share the pipe."""
        self._process: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None

    # ------------------------------------------------------------------------ as Tracker

    @property
    def camera(self) -> CameraModel | None:
        return self._camera

    @property
    def pid(self) -> int | None:
        """The tracker's process's id (None before its first call, or once closed)."""
        return None if self._process is None else self._process.pid

    def scan(
        self,
        image: npt.NDArray[np.uint8],
        state: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Scan:
        """The scene in this frame, as `Tracker.scan` gives it (and raises)."""
        check_frame(image)
        gray = np.ascontiguousarray(to_gray(image))
        head = ("scan", gray.shape, None if state is None else dict(state))
        scan: Scan = self._ask(head, gray)
        return scan

    def reset(self) -> None:
        """Forget everything: the next frame is scanned whole."""
        self._ask(("reset",), start=False)

    def set_removed(self, owners: Iterable[str]) -> None:
        """As `Tracker.set_removed`: the bases taken off are no longer searched for."""
        self._removed = frozenset(owners)
        self._ask(("removed", self._removed), start=False)

    def use_camera(self, camera: CameraModel | None) -> None:
        """Scan with these intrinsics from the next frame on, which is scanned whole."""
        self._camera = camera
        self._ask(("camera", camera), start=False)

    def close(self, timeout: float = 5.0) -> None:
        """End the tracker's process (it is started again by the next call). A frame stuck in
        it for `timeout` seconds is not waited for: the process is killed, and that frame's
        `scan` raises `TrackerError`."""
        if self._lock.acquire(timeout=timeout):
            try:
                self._stop(timeout)
            finally:
                self._lock.release()
            return
        process = self._process
        if process is not None:
            process.kill()  # the scan waiting for it raises TrackerError

    # ------------------------------------------------------------------------ the process

    def _ask(
        self,
        head: tuple[Any, ...],
        picture: npt.NDArray[np.uint8] | None = None,
        *,
        start: bool = True,
    ) -> Any:
        """`head` (and `picture`) to the tracker's process, and its answer. With `start=False`
        nothing is sent while no process runs: a process started later is given the camera and
        the removed bases as they are then, and scans its first frame whole anyway."""
        with self._lock:
            if not start and self._conn is None:
                return None
            conn = self._started()
            try:
                conn.send(head)
                if picture is not None:
                    conn.send_bytes(picture.reshape(-1).data)
                kind, answer, stats, missing = conn.recv()
            except (EOFError, OSError) as exc:  # it died (killed, out of memory)
                code = None if self._process is None else self._process.poll()
                self._stop(0.5)
                raise TrackerError(
                    f"the tracker's process ended (exit code {code}): it starts again, and "
                    "scans the next frame whole"
                ) from exc
            self.stats, self.missing = stats, missing
            if kind == "raise":
                raise answer
            if kind == "crash":
                raise RuntimeError(f"the tracker failed in its process:\n{answer}")
            return answer

    def _started(self) -> Connection:
        if self._conn is not None:
            return self._conn
        # A fresh interpreter running this module (not multiprocessing's spawn, which imports
        # the server's main script again, nor a fork of a process full of threads), talking
        # over a socket pair: the game and camera first, then one request at a time.
        mine, theirs = socket.socketpair()
        root = str(Path(__file__).resolve().parents[1])
        path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
        process = subprocess.Popen(
            [sys.executable, "-m", "vision.trackproc", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            env={**os.environ, "PYTHONPATH": path},
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        conn = Connection(mine.detach())
        try:
            conn.send((self.game, self._camera, self._removed, self._options))
            ready = conn.poll(START_TIMEOUT_S) and conn.recv() == "ready"
        except (EOFError, OSError):  # it ended at once (its error is on the server's stderr)
            ready = False
        if not ready:
            process.kill()
            process.wait()
            conn.close()
            raise TrackerError(
                f"the tracker's process did not start within {START_TIMEOUT_S:g} s, or ended"
            )
        self._process, self._conn = process, conn
        return conn

    def _stop(self, timeout: float) -> None:
        conn, process = self._conn, self._process
        self._conn = self._process = None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.send(("stop",))
            conn.close()
        if process is not None:
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout)


def _serve(conn: Connection) -> None:
    """The tracker's process: answer each request on `conn` until told to stop (or until the
    server has gone). Ctrl-C is the server's to handle: it stops this process by `close()`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The server's process shares the cores with this one: OpenCV's own threads would make a
    # frame cost ~40% more CPU (23 against 16 ms a 1080p frame of the `umpire bench` video,
    # median) to save ~1 ms of its time, and take that CPU from the server.
    cv2.setNumThreads(1)
    try:
        game, camera, removed, options = conn.recv()
    except EOFError:
        return
    tracker = Tracker(game, camera, **options)
    tracker.set_removed(removed)
    conn.send("ready")
    while True:
        try:
            head = conn.recv()
        except EOFError:
            return  # the server has gone
        what = head[0]
        if what == "stop":
            return
        try:
            answer: Any = None
            if what == "scan":
                shape, state = head[1], head[2]
                gray = np.frombuffer(conn.recv_bytes(), dtype=np.uint8).reshape(shape)
                answer = tracker.scan(gray, state)
            elif what == "reset":
                tracker.reset()
            elif what == "removed":
                tracker.set_removed(head[1])
            elif what == "camera":
                tracker.use_camera(head[1])
            else:
                raise ValueError(f"the tracker's process has no request {what!r}")
            reply: tuple[str, Any] = ("ok", answer)
        except Exception as exc:  # sent back whole: the server says what went wrong
            try:
                ForkingPickler.dumps(exc)
                reply = ("raise", exc)
            except Exception:
                reply = ("crash", traceback.format_exc())
        conn.send((*reply, tracker.stats, tracker.missing))


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
