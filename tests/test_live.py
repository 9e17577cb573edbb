"""The tracker behind `umpire serve` (webui/live.py), the demo source (vision/demo.py), the live
view's overlays (webui/overlay.py) and the two streams (/events, /stream.mjpg).

Every test is bounded in time and stops the tracker's threads in its fixture."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import cv2
import numpy as np
import pytest

import vision.sources
from rules.engine import read_scene
from rules.errors import UmpireError
from rules.play import Play
from rules.scene import TerrainKind
from vision.demo import DemoGame, open_demo_game
from vision.game import load_game
from vision.pipeline import Scanner
from vision.render import Effects, camera_for_table, render
from vision.sources import BaseSource, ImageFolderSource, SourceError
from vision.synthetic import table_spec
from webui.app import create_app
from webui.live import Live, LiveState, ServeError, open_live
from webui.overlay import draw_overlay
from webui.stream import frame_view, picture

from .test_sources import FakeClock

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "games" / "skirmish.toml"
LAYOUT = ROOT / "examples" / "skirmish.json"
WAIT_S = 90.0  # the longest any test waits for the tracker (a loaded 2-core machine)


def wait_until(live: Live, done: Any, timeout: float = WAIT_S) -> LiveState:
    """Wait on the tracker's condition until `done(state)`; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    state = live.state
    while not done(state):
        left = deadline - time.monotonic()
        assert left > 0, f"timed out; last status {dict(state.status)}"
        state = live.wait_for_version(state.version, min(left, 1.0))
    return state


def no_tracker_threads() -> bool:
    return not [t for t in threading.enumerate() if t.name.startswith("umpire-")]


# --------------------------------------------------------------------------------- the demo


def test_demo_source_is_the_skirmish_game_at_1280x720() -> None:
    with open_demo_game(realtime=False) as demo:
        frame = demo.read()
        assert frame is not None
        assert frame.image.shape == (720, 1280, 3)
        assert demo.game.ruleset == "skirmish-19c"
        assert demo.live and demo.description == "demo"
        # Unpaced, the timestamp is the game's clock: index / fps = 0 / 10.
        assert frame.timestamp == 0.0


def test_demo_moves_stay_on_the_table_and_out_of_buildings_and_walls() -> None:
    # Every 0.2 s at 10 fps = a move every 2 frames: 40 frames try 19 moves (frames 2..38).
    with DemoGame(resolution=(320, 180), realtime=False, move_every=0.2, hand_every=0) as demo:
        start = demo.layout()
        for _ in range(40):
            assert demo.read() is not None
        assert demo.moves > 0
        now = demo.layout()
    assert now != start
    scene = read_scene(now)
    blocked = [t for t in scene.terrain if t.kind in (TerrainKind.BUILDING, TerrainKind.WALL)]
    assert blocked  # the farm and the wall of skirmish.json
    from rules import geometry as geo

    for base in scene.bases():
        outline = geo.outline_polygon(base)
        # 180 x 120 cm table, 3 cm margin: 30 mm <= x <= 1770 mm, 30 <= y <= 1170.
        assert outline[:, 0].min() >= 30 and outline[:, 0].max() <= 1770
        assert outline[:, 1].min() >= 30 and outline[:, 1].max() <= 1170
        for piece in blocked:
            assert geo.containment(base, piece.polygon) == "outside"


def test_demo_hand_passes_after_one_period() -> None:
    # hand_every 1 s, hand_seconds 0.5 s at 10 fps: the hand is over the table in frames 10-14.
    with DemoGame(resolution=(320, 180), realtime=False, hand_every=1.0, hand_seconds=0.5) as demo:
        hands = []
        for _ in range(16):
            demo.read()
            hands.append(demo.hand is not None)
    assert hands == [False] * 10 + [True] * 5 + [False]


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A clock that moves only when slept, used by every source pacing itself on real time."""
    clock = FakeClock()
    monkeypatch.setattr(vision.sources, "REAL_TIME", clock)
    return clock


def test_demo_paces_frames_in_real_time(fake_clock: FakeClock) -> None:
    # 20 fps: the demo waits 1 / 20 s before each frame after the first, and the 5th frame is
    # shown 4 / 20 = 0.2 s after the first (on the test's clock: nothing here is timed).
    with DemoGame(resolution=(320, 180), fps=20, hand_every=0, move_every=0) as demo:
        frames = [demo.read() for _ in range(5)]
    assert fake_clock.slept == [0.05] * 4
    assert [f.timestamp for f in frames if f is not None] == pytest.approx(
        [0.0, 0.05, 0.1, 0.15, 0.2]
    )


def test_demo_rejects_a_bad_resolution() -> None:
    with pytest.raises(SourceError, match="WIDTHxHEIGHT"):
        DemoGame(resolution="big")


# --------------------------------------------------------------------------------- overlays


@pytest.fixture(scope="module")
def scanned() -> tuple[np.ndarray, Any, Any]:
    """A clean 1280x720 photo of skirmish.json, its scan and its parsed scene."""
    game = load_game(GAME)
    spec = table_spec(game, json.loads(LAYOUT.read_text()))
    image = render(spec, camera_for_table(spec, 1280, 720), Effects()).image
    scan = Scanner(game).scan(image)
    return image, scan, read_scene(json.loads(json.dumps(scan.scene)))


def changed_near(before: np.ndarray, after: np.ndarray, xy: np.ndarray, r: int = 3) -> bool:
    x, y = (round(float(v)) for v in xy)
    window = (slice(y - r, y + r + 1), slice(x - r, x + r + 1))
    return bool(np.any(before[window] != after[window]))


def test_overlay_draws_bases_and_leaves_the_rest_and_the_input_alone(scanned: Any) -> None:
    image, scan, scene = scanned
    keep = image.copy()
    drawn = draw_overlay(image, scan, scene)
    assert np.array_equal(image, keep)  # pure: the input is not written
    ids = {b.id for b in scene.bases()}
    assert "rifles-1" in ids
    # rifles-1 stands at (20, 30) cm facing 90: its facing arrow runs over (20, 32) cm.
    on_arrow = scan.fit.table_to_image([[200.0, 320.0]])[0]
    assert changed_near(image, drawn, on_arrow)
    # (160, 100) cm: open table, more than 40 cm from every piece of skirmish.json.
    empty = scan.fit.table_to_image([[1600.0, 1000.0]])[0]
    assert not changed_near(image, drawn, empty, r=10)


def test_overlay_of_a_selected_unit_draws_its_command_radius_and_sectors(scanned: Any) -> None:
    image, scan, scene = scanned
    plain = draw_overlay(image, scan, scene)
    chosen = draw_overlay(image, scan, scene, "rifles")
    # Sheet line 99: an officer commands within 50 cm in the open. rifles-1 is a 2.5 cm square
    # at (20, 30) cm: straight to its right the ring is at x = 20 + 1.25 + 50 = 71.25 cm.
    ring = scan.fit.table_to_image([[712.5, 300.0]])[0]
    assert changed_near(plain, chosen, ring)
    assert not changed_near(plain, draw_overlay(image, scan, scene, "zouaves"), ring)
    # 4 cm straight behind rifles-1 (facing 90): (20, 26) cm is in its rear sector.
    rear = scan.fit.table_to_image([[200.0, 260.0]])[0]
    assert changed_near(plain, chosen, rear, r=1)


def test_a_1080p_frame_is_shown_at_1280x720_with_the_bases_drawn_where_they_stand() -> None:
    """The live view's picture is at most 1280 wide: a 1920x1080 frame is shrunk by 2/3 before
    the bases are drawn on it, and the frame event's `view` says so (`scale`)."""
    game = load_game(GAME)
    spec = table_spec(game, json.loads(LAYOUT.read_text()))
    image = render(spec, camera_for_table(spec, 1920, 1080), Effects()).image
    scan = Scanner(game).scan(image)
    scene = read_scene(json.loads(json.dumps(scan.scene)))
    state = LiveState(1, 7, image, scan, scan.scene, scene, {})
    shown = cv2.imdecode(np.frombuffer(picture(state, 95) or b"", np.uint8), cv2.IMREAD_COLOR)
    assert shown is not None and shown.shape == (720, 1280, 3)
    view = frame_view(state)
    assert view is not None
    assert (view["frame"], view["width"], view["height"]) == (7, 1280, 720)
    assert view["scale"] == pytest.approx(2 / 3)
    bare = cv2.resize(image, (1280, 720), interpolation=cv2.INTER_LINEAR)
    # rifles-1 stands at (20, 30) cm facing 90: its facing arrow runs over (20, 32) cm; the
    # frame's pixel of that point times 2/3 is the picture's.
    on_arrow = scan.fit.table_to_image([[200.0, 320.0]])[0] * (2 / 3)
    assert (
        int(
            np.abs(shown.astype(int) - bare.astype(int))[
                round(on_arrow[1]) - 2 : round(on_arrow[1]) + 3,
                round(on_arrow[0]) - 2 : round(on_arrow[0]) + 3,
            ].max()
        )
        > 60
    )
    # (160, 100) cm: open table, far from every piece: only the JPEG's noise.
    empty = scan.fit.table_to_image([[1600.0, 1000.0]])[0] * (2 / 3)
    assert (
        int(
            np.abs(shown.astype(int) - bare.astype(int))[
                round(empty[1]) - 8 : round(empty[1]) + 9, round(empty[0]) - 8 : round(empty[0]) + 9
            ].max()
        )
        < 40
    )


# --------------------------------------------------------------------------------- the tracker


@pytest.fixture
def demo_live() -> Iterator[Live]:
    demo = open_demo_game(resolution=(960, 540), realtime=False, move_every=1.0)
    live = Live(demo, demo.game).start()
    yield live
    live.stop()
    assert no_tracker_threads()


def test_live_demo_produces_scenes_and_counts_frames_per_second(demo_live: Live) -> None:
    state = wait_until(demo_live, lambda s: s.scene is not None)
    first = state.frame
    state = wait_until(demo_live, lambda s: s.scene is not None and s.frame > first + 1)
    status = demo_live.status()
    assert status["fps"] > 0
    assert status["source"] == "demo" and status["live"] is True
    assert status["camera_lost"] is False
    assert status["ruleset"] == "skirmish-19c" and status["unit"] == "cm"
    assert status["calibration"] is not None and status["calibration"]["unit"] == "cm"
    bases = status["bases"]
    assert bases["seen"] + bases["stale"] + bases["missing"] == sum(
        len(u.bases) for u in demo_live.game.units
    )
    assert (bases["removed"], bases["held"]) == (0, 0)
    assert state.scene_doc is not None and state.scene_doc["format"] == "umpire-scene/1"
    assert state.image is not None and state.image.shape == (540, 960, 3)


def test_events_stream_yields_a_frame_event(demo_live: Live, tmp_path: Path) -> None:
    app = create_app(
        {"TESTING": True, "DATA_DIR": str(tmp_path), "SSE_MAX_S": WAIT_S}, live=demo_live
    )
    wait_until(demo_live, lambda s: s.scene is not None)
    response = app.test_client().get("/events", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    seen = ""
    deadline = time.monotonic() + WAIT_S
    frames = []
    for chunk in response.response:
        seen += chunk.decode() if isinstance(chunk, bytes) else chunk
        frames = [e for e in seen.split("\n\n") if e.startswith("event: frame")]
        if len(frames) >= 2 or time.monotonic() > deadline:
            break
    response.close()
    assert len(frames) >= 2  # the one sent on connecting, then one for a new frame
    data = json.loads(frames[1].split("data: ", 1)[1])
    assert data["frame"] >= 0 and data["status"]["ruleset"] == "skirmish-19c"


def test_frame_events_carry_the_capture_time_and_count_in_the_latency(
    demo_live: Live, tmp_path: Path
) -> None:
    app = create_app(
        {"TESTING": True, "DATA_DIR": str(tmp_path), "SSE_MAX_S": WAIT_S}, live=demo_live
    )
    wait_until(demo_live, lambda s: s.scene is not None)
    assert demo_live.latency_ms(fresh=True)["events"] == 0  # no page has been sent a frame
    response = app.test_client().get("/events", buffered=False)
    seen = ""
    frames: list[str] = []
    deadline = time.monotonic() + WAIT_S
    for chunk in response.response:
        seen += chunk.decode() if isinstance(chunk, bytes) else chunk
        frames = [e for e in seen.split("\n\n") if e.startswith("event: frame")]
        if len(frames) >= 4 or time.monotonic() > deadline:
            break
    response.close()
    assert len(frames) >= 4
    statuses = [json.loads(e.split("data: ", 1)[1])["status"] for e in frames]
    # Each frame's capture time is a wall-clock time before the status was made.
    assert all(0 < s["captured"] <= s["updated"] for s in statuses)
    # Frames 2 and 3 were written before the test asked for the next: both counted (the first,
    # sent on connecting, is an old frame and is not).
    latency = demo_live.latency_ms(fresh=True)  # the status's is worked out twice a second
    assert latency["events"] >= 2 and latency["window_s"] == 10.0
    assert 0 < latency["median"] <= latency["p95"]


def test_mjpeg_stream_yields_jpegs_that_decode(demo_live: Live, tmp_path: Path) -> None:
    app = create_app(
        {"TESTING": True, "DATA_DIR": str(tmp_path), "MJPEG_MAX_S": WAIT_S}, live=demo_live
    )
    wait_until(demo_live, lambda s: s.scene is not None)
    response = app.test_client().get("/stream.mjpg?select=rifles", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "multipart/x-mixed-replace"
    boundary = response.mimetype_params["boundary"].encode()
    buffer = b""
    deadline = time.monotonic() + WAIT_S
    for chunk in response.response:
        buffer += chunk if isinstance(chunk, bytes) else chunk.encode()
        if buffer.count(b"--" + boundary) >= 3 or time.monotonic() > deadline:
            break
    response.close()
    parts = [p for p in buffer.split(b"--" + boundary) if p.strip()]
    pictures = []
    for part in parts[:2]:
        head, _, body = part.partition(b"\r\n\r\n")
        assert b"Content-Type: image/jpeg" in head
        pictures.append(cv2.imdecode(np.frombuffer(body.rstrip(b"\r\n"), np.uint8), 1))
    assert len(pictures) == 2
    assert all(p is not None and p.shape == (540, 960, 3) for p in pictures)


# --------------------------------------------------------------------------------- failures


class ScriptedSource(BaseSource):
    """Frames the test hands in one at a time (`feed`); `feed(None)` ends it. Reading blocks
    until the next frame, like a camera, so none is dropped."""

    live = False

    def __init__(self) -> None:
        super().__init__("scripted")
        self._script: queue.Queue[np.ndarray | None] = queue.Queue()

    def feed(self, image: np.ndarray | None) -> None:
        self._script.put(image)

    def _open(self) -> None:
        pass

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        try:
            image = self._script.get(timeout=WAIT_S)
        except queue.Empty:
            return None
        return None if image is None else (image, time.monotonic(), self.description)

    def _release(self) -> None:
        pass


def test_a_failed_fit_keeps_the_last_scene_and_a_hidden_base_stays_stale() -> None:
    game = load_game(GAME)
    layout = json.loads(LAYOUT.read_text())
    spec = table_spec(game, layout)
    camera = camera_for_table(spec, 1280, 720)
    full = render(spec, camera, Effects()).image
    for unit in layout["units"]:  # rifles-1 picked up from the table
        unit["bases"] = [b for b in unit["bases"] if b["id"] != "rifles-1"]
    without = render(table_spec(game, layout), camera, Effects()).image
    blank = np.full_like(full, 90)

    source = ScriptedSource()
    live = Live(source, game).start()
    try:
        source.feed(full)
        wait_until(live, lambda s: s.frame == 0)
        source.feed(without)
        state = wait_until(live, lambda s: s.frame == 1)
        assert state.error is None and state.scene_doc is not None
        stale = state.scene_doc["detection"]["stale_bases"]
        assert [s["base"] for s in stale] == ["rifles-1"]
        assert state.scene is not None and state.scene.base("rifles-1").attrs["stale"] is True
        assert state.status["bases"]["stale"] == 1
        source.feed(blank)
        state = wait_until(live, lambda s: s.frame == 2)
        assert state.error is not None and "frame 2" in state.error
        assert state.status["error"] == state.error
        assert state.scene is not None and state.scene.base("rifles-1")  # the last good scene
        source.feed(None)
    finally:
        live.stop()
    assert no_tracker_threads()


class DyingCamera(BaseSource):
    """A live source that gives `frames` pictures and then nothing; `reopen` fails until
    `revive` is set."""

    live = True

    def __init__(self, image: np.ndarray, frames: int) -> None:
        super().__init__("camera:9")
        self.image = image
        self.left = frames
        self.reopens = 0
        self.revive = threading.Event()

    def _open(self) -> None:
        self.reopens += 1
        if self.reopens > 1 and not self.revive.is_set():
            raise SourceError("camera:9 did not open")
        if self.revive.is_set():
            self.left = 10**6

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        if self.left <= 0:
            time.sleep(0.01)
            return None
        self.left -= 1
        time.sleep(0.02)
        return self.image, time.monotonic(), self.description

    def _release(self) -> None:
        pass


def test_a_camera_that_dies_is_reported_lost_and_reopened() -> None:
    game = load_game(GAME)
    camera = DyingCamera(np.full((180, 320, 3), 90, np.uint8), frames=2)
    camera._open()
    live = Live(camera, game, backoff=(0.01, 0.05)).start()
    try:
        state = wait_until(live, lambda s: s.status["camera_lost"])
        assert live.running  # the tracker keeps going
        # Back-off retries: 0.01, 0.02, 0.04, 0.05 s ... so several reopen tries within 2 s.
        deadline = time.monotonic() + 2.0
        while camera.reopens < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert camera.reopens >= 3
        camera.revive.set()
        state = wait_until(live, lambda s: not s.status["camera_lost"])
        assert state.status["source"] == "camera:9"
    finally:
        live.stop()
    assert no_tracker_threads()


# --------------------------------------------------------------------------------- sources


class RecordingTracker:
    """Stands in for the tracker: notes the grey level of each frame it is given (the photos
    are flat greys), spends `seconds` on it, and finds no table in it."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.levels: list[int] = []
        self.seconds = seconds

    def scan(self, image: np.ndarray, state: object = None) -> Any:
        time.sleep(self.seconds)
        self.levels.append(int(image[0, 0, 0]))
        raise UmpireError("a grey picture has no table in it")

    def reset(self) -> None:
        pass


def grey_folder(folder: Path, count: int) -> list[int]:
    """`count` flat grey photos, IMG_1.png ... in name order, level 20, 50, 80, ..."""
    folder.mkdir(exist_ok=True)
    levels = [20 + 30 * n for n in range(count)]
    for n, level in enumerate(levels, start=1):
        cv2.imwrite(str(folder / f"IMG_{n}.png"), np.full((48, 64, 3), level, np.uint8))
    return levels


def ended(live: Live) -> LiveState:
    return wait_until(live, lambda s: s.status["source_state"] == "ended")


def test_every_photo_of_a_folder_is_scanned_in_order_however_slow_the_scan(
    tmp_path: Path,
) -> None:
    # Issue 13: of a folder of 7 photos only the first and the last were scanned (the others
    # were dropped for newer ones while the first was being scanned).
    levels = grey_folder(tmp_path / "photos", 7)
    live = open_live(str(tmp_path / "photos"), GAME, realtime=False)  # read as fast as it can
    recorder = RecordingTracker(seconds=0.05)
    live.tracker = recorder  # type: ignore[assignment]
    live.start()
    try:
        state = wait_until(
            live, lambda s: live.scanned == 7 and s.status["source_state"] == "ended"
        )
    finally:
        live.stop()
    assert recorder.levels == levels
    assert live.dropped == 0 and state.status["dropped_frames"] == 0
    status = state.status
    assert status["source_words"] == "finished: all 7 photos shown"
    assert status["live"] is False and status["can_step"] is False
    assert "no more frames" not in str(status["error"])
    assert no_tracker_threads()


def test_a_folder_in_real_time_is_scanned_a_photo_each_second_of_its_clock(
    tmp_path: Path,
) -> None:
    levels = grey_folder(tmp_path / "photos", 4)
    clock = FakeClock()
    source = ImageFolderSource(tmp_path / "photos", realtime=True, clock=clock)
    live = Live(source, load_game(GAME))
    recorder = RecordingTracker()
    live.tracker = recorder  # type: ignore[assignment]
    live.start()
    try:
        ended(live)
    finally:
        live.stop()
    assert recorder.levels == levels
    assert clock.slept == [1.0, 1.0, 1.0]  # waited a second before each photo after the first


def test_a_folder_stepped_by_hand_shows_each_photo_until_the_next_is_asked_for(
    tmp_path: Path,
) -> None:
    levels = grey_folder(tmp_path / "photos", 3)
    live = open_live(str(tmp_path / "photos"), GAME, step=True)
    recorder = RecordingTracker()
    live.tracker = recorder  # type: ignore[assignment]
    live.start()
    try:
        state = wait_until(live, lambda s: s.frame == 0)
        status = state.status
        assert status["source_state"] == "stepping" and status["can_step"] is True
        assert status["source_words"] == "photo 1 of 3 (IMG_1.png): next photo steps on"
        assert live.step() == {"photo": 2, "photos": 3}
        state = wait_until(live, lambda s: s.frame == 1)
        assert state.status["source_words"].startswith("photo 2 of 3 (IMG_2.png)")
        assert live.step() == {"photo": 3, "photos": 3}
        with pytest.raises(ServeError, match="all 3 photos have been shown"):
            live.step()
        state = ended(live)
    finally:
        live.stop()
    assert recorder.levels == levels  # nothing scanned but what was asked for, in order
    assert state.status["can_step"] is False
    assert no_tracker_threads()


def test_a_folder_waiting_for_next_photo_does_not_hold_up_stopping(tmp_path: Path) -> None:
    grey_folder(tmp_path / "photos", 2)
    live = open_live(str(tmp_path / "photos"), GAME, step=True)
    live.tracker = RecordingTracker()  # type: ignore[assignment]
    live.start()
    wait_until(live, lambda s: s.frame == 0)
    live.stop(timeout=30)  # the source thread is waiting for "next photo": it is woken
    assert no_tracker_threads()
    assert live.state.status["source_state"] != "ended"  # stopped, not played to the end


def write_grey_video(path: Path, count: int) -> list[int]:
    levels = [20 + 40 * n for n in range(count)]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (64, 48))
    for level in levels:
        writer.write(np.full((48, 64, 3), level, np.uint8))
    writer.release()
    return levels


@pytest.mark.parametrize("at_end", [None, "stop"])
def test_a_video_stops_after_its_last_frame_and_says_so(tmp_path: Path, at_end: str | None) -> None:
    path = tmp_path / "game.avi"
    levels = write_grey_video(path, 4)
    live = open_live(str(path), GAME, realtime=False, at_end=at_end)
    recorder = RecordingTracker(seconds=0.02)
    live.tracker = recorder  # type: ignore[assignment]
    live.start()
    try:
        state = ended(live)
        wait_until(live, lambda s: live.scanned + live.dropped == 4)
    finally:
        live.stop()
    # Read as fast as it decodes here, the tracker may drop frames for newer ones (a video
    # plays like a camera), but the last is always scanned and nothing comes after it.
    assert recorder.levels[-1] == pytest.approx(levels[-1], abs=4)
    assert state.status["source_words"] == "finished: game.avi played to its end"
    assert state.status["live"] is False and state.status["can_step"] is False
    assert "no more frames" not in str(state.status["error"])


def test_a_video_with_at_end_loop_plays_again_from_its_first_frame(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    write_grey_video(path, 3)
    live = open_live(str(path), GAME, at_end="loop", fps=50.0)
    live.tracker = RecordingTracker()  # type: ignore[assignment]
    live.start()
    try:
        state = wait_until(live, lambda s: s.frame >= 7)
    finally:
        live.stop()
    assert state.status["source_state"] == "playing"
    assert state.status["source_words"].startswith("playing game.avi at 50 fps, frame ")
    assert state.status["source_words"].endswith(" of 3")


def test_a_still_photo_is_shown_and_said_to_be_a_still_photo(tmp_path: Path) -> None:
    game = load_game(GAME)
    spec = table_spec(game, json.loads(LAYOUT.read_text()))
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), render(spec, camera_for_table(spec, 1280, 720), Effects()).image)
    live = open_live(str(photo), GAME).start()
    try:
        state = wait_until(live, lambda s: s.scene is not None)
        state = wait_until(live, lambda s: s.status["source_state"] == "still")
    finally:
        live.stop()
    status = state.status
    assert state.image is not None and state.image.shape == (720, 1280, 3)  # in the live view
    assert status["source_words"] == "still photo table.png"
    assert status["live"] is False and status["error"] is None and status["can_step"] is False
    with pytest.raises(ServeError, match="one photo: there is no next photo"):
        live.step()


def test_a_camera_does_not_step(tmp_path: Path) -> None:
    live = Live(ScriptedSource(), load_game(GAME))
    with pytest.raises(ServeError, match="not a folder of photos"):
        live.step()


@pytest.mark.parametrize(
    ("source", "options", "message"),
    [
        ("camera:0", {"at_end": "loop"}, "--at-end applies to a video file or a folder"),
        ("demo", {"at_end": "stop"}, "--at-end applies to a video file or a folder"),
        ("camera:0", {"step": True}, "--step steps through a folder of photos"),
        ("VIDEO", {"step": True}, "a video plays at its own frame rate, or at --fps"),
        ("DIR", {"step": True, "fps": 2.0}, "a folder stepped by hand has no rate"),
        ("DIR", {"at_end": "rewind"}, "--at-end must be one of stop, loop"),
    ],
)
def test_source_options_that_do_not_apply_are_refused(
    tmp_path: Path, source: str, options: dict[str, Any], message: str
) -> None:
    path = {"VIDEO": tmp_path / "game.avi", "DIR": tmp_path / "photos"}.get(source)
    if source == "VIDEO":
        write_grey_video(tmp_path / "game.avi", 2)
    elif source == "DIR":
        grey_folder(tmp_path / "photos", 2)
    with pytest.raises(ServeError, match=message):
        open_live(str(path or source), GAME, **options)


def test_the_game_in_play_leaves_the_seen_scene_as_it_was() -> None:
    # Base b2 of unit u1 was seen before and is not in this frame; the players hold it, and b1
    # (in view, but stale from a frame before) too. The scene made for the game in play shows
    # both held, and the scene as seen is not changed by it: the next game in play (b2 let go)
    # is made from the same seen scene and shows neither.
    b1 = {"id": "b1", "x": 100.0, "y": 100.0, "stale": True}
    seen = {"units": [{"id": "u1", "side": "a", "bases": [b1]}], "detection": {}}
    before = json.loads(json.dumps(seen))
    b2 = {"id": "b2", "x": 200.0, "y": 100.0}
    live = SimpleNamespace(
        _seen={"b2": (0.0, "u1", b2)}, _unit_docs={"u1": {"id": "u1", "side": "a"}}
    )

    def made(held: frozenset[str]) -> dict[str, Any]:
        live._play = Play(turn=1, phase=None, units={}, held=held)
        return Live._with_play(live, seen)  # type: ignore[arg-type]

    held = made(frozenset({"b1", "b2"}))["units"][0]["bases"]
    assert [(b["id"], b.get("held")) for b in held] == [("b1", True), ("b2", True)]
    assert seen == before
    assert [b["id"] for b in made(frozenset())["units"][0]["bases"]] == ["b1"]
    assert "held" not in made(frozenset())["units"][0]["bases"][0]
