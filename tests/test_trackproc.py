"""The tracker in a process of its own (vision/trackproc.py, as `umpire serve` runs it) answers
what the tracker in this process answers, frame for frame, and survives its process dying.

Real pixels: the built-in demo's camera (rendered frames, hands moving bases) and the real
detector on both sides. No timing is asserted (benchmarks/bench_latency.py measures why the
process is there)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.errors import CalibrationError
from vision.demo import open_demo_game
from vision.game import Game
from vision.track import Tracker, TrackerError
from vision.trackproc import TrackerProcess
from webui.live import Live

FRAMES = 12
ENOUGH_TIME: dict[str, Any] = {
    "search_budget_ms": 1e9,
    "extra_budget_ms": 1e9,
    "whole_budget_ms": 1e9,
    "frame_budget_ms": 1e9,
}
"""Budgets no frame runs out of: what the two trackers find does not depend on how busy the
machine is (each would otherwise stop its extra passes after so many milliseconds)."""


@pytest.fixture(scope="module")
def demo() -> tuple[Game, list[np.ndarray]]:
    source = open_demo_game("europe-19c", realtime=False)
    try:
        frames = [frame.image for frame in (source.read() for _ in range(FRAMES)) if frame]
    finally:
        source.close()
    return source.game, frames


@pytest.fixture()
def apart(demo: tuple[Game, list[np.ndarray]]) -> Iterator[TrackerProcess]:
    tracker = TrackerProcess(demo[0], None, **ENOUGH_TIME)
    yield tracker
    tracker.close()


def _units(scene: Any) -> list[Any]:
    return list(scene["units"])


def test_the_same_scenes_as_the_tracker_in_this_process(
    demo: tuple[Game, list[np.ndarray]], apart: TrackerProcess
) -> None:
    game, frames = demo
    here = Tracker(game, None, **ENOUGH_TIME)
    for image in frames:
        mine, theirs = here.scan(image), apart.scan(image)
        assert _units(theirs.scene) == _units(mine.scene)
        assert theirs.scene["detection"]["tags_seen"] == mine.scene["detection"]["tags_seen"]
        assert np.array_equal(
            theirs.fit.transform.table_to_image_matrix, mine.fit.transform.table_to_image_matrix
        )
        assert len(theirs.detections) == len(mine.detections)
        assert apart.stats["mode"] == here.stats["mode"]
        assert apart.missing == here.missing
    assert apart.stats["mode"] == "tracking"  # the first frame whole, then followed


def test_a_bad_frame_is_refused_with_the_trackers_own_message(apart: TrackerProcess) -> None:
    with pytest.raises(TrackerError, match=r"non-empty image array .* got shape \(0, 0\)"):
        apart.scan(np.zeros((0, 0), np.uint8))
    with pytest.raises(TrackerError, match="got list"):
        apart.scan([[0]])  # type: ignore[arg-type]


def test_the_trackers_errors_come_back_as_they_are(apart: TrackerProcess) -> None:
    """A blank frame shows no corner tag: the table cannot be fitted, said as in-process."""
    blank = np.full((720, 1280, 3), 128, np.uint8)
    with pytest.raises(CalibrationError) as here:
        Tracker(apart.game).scan(blank)
    with pytest.raises(CalibrationError) as theirs:
        apart.scan(blank)
    assert str(theirs.value) == str(here.value)


def test_a_killed_process_is_said_and_started_again(
    demo: tuple[Game, list[np.ndarray]], apart: TrackerProcess
) -> None:
    frames = demo[1]
    first = apart.scan(frames[0])
    process = apart._process
    assert process is not None
    os.kill(process.pid, signal.SIGKILL)
    process.wait(10)
    with pytest.raises(TrackerError, match=r"tracker's process ended \(exit code -9\)"):
        apart.scan(frames[1])
    again = apart.scan(frames[2])  # a new process, scanning whole
    assert apart._process is not None and apart._process.pid != process.pid
    assert apart.stats["mode"] == "whole frame"
    assert {u["id"] for u in _units(again.scene)} == {u["id"] for u in _units(first.scene)}


def test_closing_does_not_wait_for_a_stuck_process(
    demo: tuple[Game, list[np.ndarray]], apart: TrackerProcess
) -> None:
    frames = demo[1]
    apart.scan(frames[0])
    process = apart._process
    assert process is not None
    os.kill(process.pid, signal.SIGSTOP)  # stuck: it will never answer
    failed: list[BaseException] = []

    def scan() -> None:
        try:
            apart.scan(frames[1])
        except TrackerError as error:
            failed.append(error)

    scanning = threading.Thread(target=scan)
    scanning.start()
    deadline = time.monotonic() + 30
    while not apart._lock.locked() and time.monotonic() < deadline:
        time.sleep(0.01)  # until the frame is on its way to the stuck process
    apart.close(timeout=1.0)
    scanning.join(30)
    assert not scanning.is_alive()
    assert process.wait(10) == -signal.SIGKILL
    assert len(failed) == 1 and "tracker's process ended" in str(failed[0])


def test_ctrl_c_is_the_servers_not_the_trackers(
    demo: tuple[Game, list[np.ndarray]], apart: TrackerProcess
) -> None:
    """Ctrl-C in a terminal reaches every process of the group: the tracker's ignores it and
    is stopped by the server, which handles it."""
    apart.scan(demo[1][0])
    assert apart._process is not None
    os.kill(apart._process.pid, signal.SIGINT)
    assert apart.scan(demo[1][1]).scene["units"]
    assert apart._process.poll() is None


def test_a_new_camera_and_removed_bases_reach_the_process(
    demo: tuple[Game, list[np.ndarray]], apart: TrackerProcess
) -> None:
    frames = demo[1]
    apart.scan(frames[0])
    height, width = frames[0].shape[:2]
    camera = CameraModel.from_values(
        [[1000.0, 0, width / 2], [0, 1000.0, height / 2], [0, 0, 1]],
        [0, 0, 0, 0, 0],
        (width, height),
    )
    apart.use_camera(camera)
    assert apart.camera == camera
    scan = apart.scan(frames[1])
    assert apart.stats["mode"] == "whole frame"  # a new camera: scanned afresh
    assert scan.pose is not None  # intrinsics known: the camera's pose is worked out
    gone = _units(scan.scene)[0]["bases"][0]["id"]
    apart.set_removed({gone})
    apart.scan(frames[2])
    assert gone not in apart.missing


def test_live_stops_its_trackers_process() -> None:
    source = open_demo_game("europe-19c", realtime=False)
    live = Live(source, source.game, tracker_process=True).start()
    try:
        state = live.wait_for_version(0, 60)
        while state.scene is None and live.running:
            state = live.wait_for_version(state.version, 60)
        assert state.scene is not None and state.scene.units
        tracker = live.tracker
        assert isinstance(tracker, TrackerProcess)
        process = tracker._process
        assert process is not None
    finally:
        live.stop()
    assert process.poll() is not None  # ended with the server


def test_a_process_that_cannot_start_is_said(demo: tuple[Game, list[np.ndarray]]) -> None:
    """A tracker that fails as it starts (here: an option the tracker does not have) ends its
    process at once: the frame is refused saying so, not waited for or crashed on."""
    broken = TrackerProcess(demo[0], None, no_such_option=1)
    try:
        with pytest.raises(TrackerError, match=r"did not start within .* or ended"):
            broken.scan(demo[1][0])
        assert broken.pid is None
    finally:
        broken.close()
