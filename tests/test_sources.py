"""Frame sources: every `--source` form opens through `open_source`, gives read-only BGR frames
numbered from 0, and fails with a `SourceError` that names what was given and what is accepted.

No camera and no network beyond 127.0.0.1: videos are written here with `cv2.VideoWriter`,
folders are filled with PNGs, a stream is an MJPEG (`multipart/x-mixed-replace`) response served
by werkzeug in a daemon thread, and the demo renders a small 640x360 table."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from flask import Flask, Response
from werkzeug.serving import make_server

import vision.sources as sources
from vision.render import Effects
from vision.sources import (
    CameraSource,
    CapturedFrame,
    Clock,
    DemoSource,
    FramePacer,
    FrameSource,
    ImageFolderSource,
    SourceError,
    SourceSpec,
    StreamSource,
    VideoFileSource,
    Wake,
    open_source,
    parse_source,
)

FPS = 10.0


def grey(level: int, width: int = 96, height: int = 64) -> np.ndarray:
    return np.full((height, width, 3), level, np.uint8)


def video_level(i: int) -> int:
    """Grey level of frame i of the test videos: 20, 60, 100, ... (distinct, so order shows)."""
    return 20 + 40 * i


def write_video(path: Path, fourcc: str, count: int) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*fourcc), FPS, (96, 64))
    assert writer.isOpened()
    for i in range(count):
        writer.write(grey(video_level(i)))
    writer.release()


class WouldWaitForever(Exception):
    """A fake clock asked to wait for a hand that nobody will lend."""


class FakeClock(Clock):
    """Time that moves only when slept (or `pass_time`): pacing is checked by what it asks
    for, never by timing it. `slept` lists every sleep asked for: seconds, or None for "until
    asked"."""

    def __init__(self) -> None:
        self.time = 0.0
        self.slept: list[float | None] = []

    def now(self) -> float:
        return self.time

    def pass_time(self, seconds: float) -> None:
        self.time += seconds

    def sleep(self, seconds: float | None, wake: Wake | None = None) -> bool:
        self.slept.append(None if seconds is None else round(seconds, 9))
        if wake is not None and (wake.asked or wake.interrupted):
            return True
        if seconds is None:
            raise WouldWaitForever("waits until asked for the next frame")
        self.time += seconds
        return False


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A fake clock that every source pacing itself on real time uses instead (the demo)."""
    clock = FakeClock()
    monkeypatch.setattr(sources, "REAL_TIME", clock)
    return clock


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("demo", SourceSpec("demo", None)),
        (" Demo ", SourceSpec("demo", None)),
        ("camera:0", SourceSpec("camera", 0)),
        ("camera:12", SourceSpec("camera", 12)),
        ("http://192.168.1.20:8080/video", SourceSpec("url", "http://192.168.1.20:8080/video")),
        ("https://cam.example/live", SourceSpec("url", "https://cam.example/live")),
        ("rtsp://10.0.0.5:554/stream1", SourceSpec("url", "rtsp://10.0.0.5:554/stream1")),
    ],
)
def test_parse_source_reads_each_contract_form(spec: str, expected: SourceSpec) -> None:
    assert parse_source(spec) == expected


def test_parse_source_tells_files_from_folders(tmp_path: Path) -> None:
    (tmp_path / "game.MP4").write_bytes(b"x")
    (tmp_path / "photo.jpeg").write_bytes(b"x")
    assert parse_source(str(tmp_path)) == SourceSpec("images", tmp_path)
    assert parse_source(str(tmp_path / "game.MP4")) == SourceSpec("video", tmp_path / "game.MP4")
    assert parse_source(str(tmp_path / "photo.jpeg")) == SourceSpec(
        "images", tmp_path / "photo.jpeg"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "no source given"),
        ("webcam", "unknown source 'webcam'"),
        ("camera:one", "camera index 'one'"),
        ("camera:-1", "camera index '-1'"),
        ("ftp://host/video", "unsupported URL 'ftp://host/video'"),
        ("http://", "unsupported URL 'http://'"),
        ("missing/game.mp4", "no such file or folder: 'missing/game.mp4'"),
        ("nowhere.png", "no such file or folder: 'nowhere.png'"),
    ],
)
def test_bad_specs_name_the_input_and_the_accepted_forms(spec: str, message: str) -> None:
    with pytest.raises(SourceError, match=r"accepted|no such") as caught:
        parse_source(spec)
    assert message in str(caught.value)


def test_unknown_form_lists_every_accepted_form() -> None:
    with pytest.raises(SourceError) as caught:
        open_source("webcam")
    text = str(caught.value)
    for form in ("'demo'", "camera:N", ".mp4", ".avi", ".png", "http://", "rtsp://"):
        assert form in text


def test_a_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a video")
    with pytest.raises(SourceError, match="neither a video nor an image file"):
        open_source(str(notes))


def test_an_option_that_does_not_apply_is_refused_by_name() -> None:
    with pytest.raises(SourceError) as caught:
        open_source("demo", loop=True)
    assert "option 'loop' does not apply to 'demo'" in str(caught.value)
    assert "'resolution'" in str(caught.value)


def test_source_errors_are_umpire_errors() -> None:
    from rules.errors import UmpireError

    assert issubclass(SourceError, UmpireError)
    assert issubclass(SourceError, ValueError)


# --------------------------------------------------------------------------- pacing


def test_pacer_waits_until_each_frame_is_due() -> None:
    clock = FakeClock()
    pacer = FramePacer(20.0, clock)
    shown = [pacer.wait(n) for n in range(4)]
    # The first frame at once, then one every 1 / 20 s, each waited for.
    assert clock.slept == [0.05, 0.05, 0.05]
    assert shown == pytest.approx([0.0, 0.05, 0.10, 0.15])


def test_pacer_moves_its_schedule_for_a_late_frame_instead_of_bursting() -> None:
    clock = FakeClock()
    pacer = FramePacer(20.0, clock)
    pacer.wait(0)
    clock.pass_time(0.3)  # a slow reader: frames 1-6 were due meanwhile
    shown = [pacer.wait(n) for n in range(1, 4)]
    # Frame 1 is shown at once, and the next ones a full period apart: no catching up.
    assert shown == pytest.approx([0.3, 0.35, 0.40])
    assert clock.slept == [0.05, 0.05]


def test_pacer_without_a_rate_waits_to_be_asked_and_an_ask_comes_at_once() -> None:
    clock = FakeClock()
    wake = Wake()
    pacer = FramePacer(None, clock)
    assert pacer.wait(0, wake) == 0.0  # the first frame needs no ask
    with pytest.raises(WouldWaitForever):
        pacer.wait(1, wake)
    wake.ask()
    assert pacer.wait(1, wake) == 0.0
    assert wake.asked == 0  # the ask was used up
    wake.interrupt()
    assert pacer.wait(2, wake) is None


def test_an_ask_brings_the_next_frame_now_and_the_schedule_carries_on_from_it() -> None:
    clock = FakeClock()
    wake = Wake()
    pacer = FramePacer(1.0, clock)
    pacer.wait(0, wake)
    clock.pass_time(0.25)
    wake.ask()
    assert pacer.wait(1, wake) == pytest.approx(0.25)  # not at 1.0
    assert pacer.wait(2, wake) == pytest.approx(1.25)  # a full second after the asked one


# --------------------------------------------------------------------------- video files


@pytest.mark.parametrize(("fourcc", "suffix"), [("MJPG", ".avi"), ("mp4v", ".mp4")])
def test_video_file_plays_every_frame_in_order(tmp_path: Path, fourcc: str, suffix: str) -> None:
    path = tmp_path / f"game{suffix}"
    write_video(path, fourcc, 6)
    with open_source(str(path)) as source:
        assert isinstance(source, VideoFileSource)
        assert isinstance(source, FrameSource)
        assert source.live is False
        assert source.frame_count == 6
        assert source.fps == pytest.approx(FPS)
        frames = list(source)
        assert source.read() is None  # the end stays the end
        assert source.failures == 0  # the end of a file is not a failure
    assert [f.index for f in frames] == [0, 1, 2, 3, 4, 5]
    # Timestamps are positions in the file: frame i at i / 10 fps = 0.1 * i seconds.
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    for i, frame in enumerate(frames):
        assert frame.image.shape == (64, 96, 3)
        assert frame.image.dtype == np.uint8
        assert frame.source == str(path)
        # A flat grey survives the codec within a few levels: 20, 60, 100, 140, 180, 220.
        assert float(frame.image.mean()) == pytest.approx(video_level(i), abs=4)


def test_frames_are_read_only(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    write_video(path, "MJPG", 2)
    with open_source(str(path)) as source:
        frame = source.read()
    assert frame is not None
    with pytest.raises(ValueError, match="read-only"):
        frame.image[0, 0, 0] = 1


def test_video_loop_starts_again_and_the_clock_runs_on(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    write_video(path, "MJPG", 3)
    with open_source(str(path), loop=True) as source:
        frames = [source.read() for _ in range(8)]
    assert all(f is not None for f in frames)
    got = [f for f in frames if f is not None]
    assert [f.index for f in got] == list(range(8))
    # Levels cycle through the 3 frames: 20, 60, 100, 20, 60, 100, 20, 60.
    levels = [float(f.image.mean()) for f in got]
    assert levels == pytest.approx([video_level(i % 3) for i in range(8)], abs=4)
    # One pass lasts 3 frames / 10 fps = 0.3 s, so frame n is at 0.1 * n seconds.
    assert [f.timestamp for f in got] == pytest.approx([0.1 * n for n in range(8)])


def test_a_video_played_in_real_time_waits_for_each_frame_at_its_own_rate(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    write_video(path, "MJPG", 6)
    clock = FakeClock()
    with open_source(str(path), realtime=True, clock=clock) as source:
        assert isinstance(source, VideoFileSource)
        assert source.play_rate == pytest.approx(FPS)
        frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2, 3, 4, 5]
    assert [float(f.image.mean()) for f in frames] == pytest.approx(
        [video_level(i) for i in range(6)], abs=4
    )
    # Each frame after the first waited 1 / 10 s: six frames span half a second of the clock
    # (then one more wait finds the end of the file).
    assert clock.slept[:5] == pytest.approx([0.1] * 5)
    assert clock.time == pytest.approx(0.6)
    # Timestamps stay positions in the file.
    assert [f.timestamp for f in frames] == pytest.approx([0.1 * i for i in range(6)])


def test_a_video_played_at_a_rate_of_its_own_waits_that_long(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    write_video(path, "MJPG", 6)
    clock = FakeClock()
    with open_source(str(path), realtime=True, rate=5.0, clock=clock) as source:
        frames = list(source)
    # --fps 5 on a 10 fps video: every frame, one every 0.2 s, never faster.
    assert len(frames) == 6
    assert clock.slept[:5] == pytest.approx([0.2] * 5)
    assert [f.timestamp for f in frames] == pytest.approx([0.1 * i for i in range(6)])


def test_a_looping_video_in_real_time_keeps_its_pace_across_the_loop(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    write_video(path, "MJPG", 3)
    clock = FakeClock()
    with open_source(str(path), loop=True, realtime=True, clock=clock) as source:
        frames = read_some(source, 7)
    assert [float(f.image.mean()) for f in frames] == pytest.approx(
        [video_level(i % 3) for i in range(7)], abs=4
    )
    assert clock.slept == pytest.approx([0.1] * 6)


def test_a_video_that_is_not_played_in_real_time_never_waits(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    write_video(path, "MJPG", 4)
    clock = FakeClock()
    with open_source(str(path), clock=clock) as source:
        assert isinstance(source, VideoFileSource) and source.play_rate is None
        assert len(list(source)) == 4
    assert clock.slept == []


def test_reopen_plays_a_video_from_its_first_frame(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    write_video(path, "MJPG", 3)
    with open_source(str(path)) as source:
        assert len(list(source)) == 3
        source.reopen()
        again = source.read()
    assert again is not None
    assert again.index == 3  # numbering goes on across reopens
    assert again.timestamp == pytest.approx(0.0)
    assert float(again.image.mean()) == pytest.approx(video_level(0), abs=4)


def test_a_video_that_cannot_be_decoded_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.mp4"
    path.write_bytes(b"this is not a video" * 50)
    with pytest.raises(SourceError) as caught:
        open_source(str(path))
    assert f"cannot decode the video {str(path)!r}" in str(caught.value)
    assert "accepted" in str(caught.value)


def test_a_missing_video_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such video file"):
        VideoFileSource(tmp_path / "gone.avi")


# --------------------------------------------------------------------------- image folders

# BGR colours of the test images, one per name; PNG is lossless, so they come back exactly.
COLOURS = {"frame-1.png": (10, 20, 30), "frame-2.png": (40, 50, 60), "frame-10.png": (70, 80, 90)}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name, colour in COLOURS.items():
        cv2.imwrite(str(tmp_path / name), np.full((24, 32, 3), colour, np.uint8))
    (tmp_path / "notes.txt").write_text("the blue army moves first")
    (tmp_path / "broken.png").write_bytes(b"\x89PNG but not really")
    return tmp_path


def test_folder_plays_images_in_name_order_and_reports_what_it_skipped(folder: Path) -> None:
    with open_source(str(folder)) as source:
        assert isinstance(source, ImageFolderSource)
        assert source.live is False
        frames = list(source)
        skipped = {s.path.name: s.reason for s in source.skipped}
    # Numbers in names compare as numbers: frame-1, frame-2, frame-10 (broken.png skipped).
    assert [Path(f.source).name for f in frames] == ["frame-1.png", "frame-2.png", "frame-10.png"]
    assert [f.index for f in frames] == [0, 1, 2]
    for frame in frames:
        colour = COLOURS[Path(frame.source).name]
        assert np.array_equal(frame.image, np.full((24, 32, 3), colour, np.uint8))
    assert set(skipped) == {"notes.txt", "broken.png"}
    assert "not an image file" in skipped["notes.txt"]
    assert "cannot be decoded" in skipped["broken.png"]


def test_skipped_files_are_logged(folder: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="vision.sources"), open_source(str(folder)) as s:
        list(s)
    assert any("notes.txt" in r.getMessage() for r in caplog.records)
    assert any("broken.png" in r.getMessage() for r in caplog.records)


def test_folder_loop_goes_round_and_skips_a_broken_image_once(folder: Path) -> None:
    with open_source(str(folder), loop=True) as source:
        assert isinstance(source, ImageFolderSource)
        frames = [source.read() for _ in range(7)]
        skipped = [s.path.name for s in source.skipped]
    names = [Path(f.source).name for f in frames if f is not None]
    assert names == ["frame-1.png", "frame-2.png", "frame-10.png"] * 2 + ["frame-1.png"]
    assert sorted(skipped) == ["broken.png", "notes.txt"]


def test_one_image_file_is_a_one_frame_source(folder: Path) -> None:
    with open_source(str(folder / "frame-2.png")) as source:
        frames = list(source)
    assert len(frames) == 1
    assert tuple(int(c) for c in frames[0].image[0, 0]) == COLOURS["frame-2.png"]


@pytest.fixture
def seven(tmp_path: Path) -> list[str]:
    """A folder of seven photos (issue 13: only the first and the last were scanned)."""
    names = [f"IMG_{n}.png" for n in (1, 2, 3, 4, 5, 6, 7)]
    for n, name in enumerate(names):
        cv2.imwrite(str(tmp_path / name), np.full((24, 32, 3), 30 * n, np.uint8))
    return names


def test_a_folder_in_real_time_gives_every_photo_in_order_one_a_second(
    tmp_path: Path, seven: list[str]
) -> None:
    clock = FakeClock()
    with open_source(str(tmp_path), realtime=True, clock=clock) as source:
        assert isinstance(source, ImageFolderSource)
        assert source.every_frame and source.play_rate == 1.0
        frames = list(source)
        assert source.finished and source.position == 7
    assert [Path(f.source).name for f in frames] == seven
    assert [int(f.image[0, 0, 0]) for f in frames] == [30 * n for n in range(7)]
    # One a second: the first at once, then a wait of a second before each of the six others.
    assert clock.slept == [1.0] * 6
    assert [f.timestamp for f in frames] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_a_folder_at_another_rate_waits_that_long(tmp_path: Path, seven: list[str]) -> None:
    clock = FakeClock()
    with open_source(str(tmp_path), realtime=True, rate=4.0, clock=clock) as source:
        assert len(list(source)) == 7
    assert clock.slept == [0.25] * 6


def test_a_folder_stepped_by_hand_waits_for_each_ask(tmp_path: Path, seven: list[str]) -> None:
    clock = FakeClock()
    with open_source(str(tmp_path), step=True, clock=clock) as source:
        assert isinstance(source, ImageFolderSource)
        first = source.read()
        assert first is not None and Path(first.source).name == "IMG_1.png"
        with pytest.raises(WouldWaitForever):
            source.read()  # nobody asked: it would wait for as long as it takes
        assert source.advance() == 2  # the photo the ask brings
        second = source.read()
        assert second is not None and Path(second.source).name == "IMG_2.png"
        # Two asks at once bring two photos, one each.
        assert (source.advance(), source.advance()) == (3, 4)
        names = [Path(f.source).name for f in read_some(source, 2)]
        assert names == ["IMG_3.png", "IMG_4.png"]
        for _ in range(3):
            assert source.advance() is not None
        assert source.advance() is None  # photo 7 is the last asked for: nothing left to ask
        assert [Path(f.source).name for f in read_some(source, 3)] == seven[4:]
        assert source.finished
        assert source.read() is None
    assert clock.time == 0.0  # stepping never waits on the clock


def test_a_looping_folder_stepped_by_hand_goes_round(tmp_path: Path, seven: list[str]) -> None:
    clock = FakeClock()
    with open_source(str(tmp_path), step=True, loop=True, clock=clock) as source:
        assert isinstance(source, ImageFolderSource)
        source.read()
        asked = [source.advance() for _ in range(7)]
        names = [Path(f.source).name for f in read_some(source, 7)]
    assert asked == [2, 3, 4, 5, 6, 7, 1]
    assert names == [*seven[1:], seven[0]]


def test_next_photo_while_playing_brings_it_now(tmp_path: Path, seven: list[str]) -> None:
    clock = FakeClock()
    with open_source(str(tmp_path), realtime=True, clock=clock) as source:
        assert isinstance(source, ImageFolderSource)
        source.read()
        clock.pass_time(0.2)
        assert source.advance() == 2
        second = source.read()
        third = source.read()
    assert second is not None and second.timestamp == pytest.approx(0.2)  # not at 1 s
    assert third is not None and third.timestamp == pytest.approx(1.2)  # a second after it


def test_a_stepped_folder_waiting_for_a_hand_gives_none_when_interrupted(
    tmp_path: Path, seven: list[str]
) -> None:
    source = open_source(str(tmp_path), step=True)
    assert source.read() is not None
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(source.read()), daemon=True)
    reader.start()
    reader.join(0.2)
    assert reader.is_alive()  # waiting for "next photo"
    source.interrupt()  # the tracker stopping
    reader.join(30)
    assert not reader.is_alive() and got == [None]
    source.reopen()
    frame = source.read()  # open again: the first photo at once
    assert frame is not None and Path(frame.source).name == "IMG_1.png"
    source.close()


def test_one_photo_has_nothing_to_step_to(folder: Path) -> None:
    with open_source(str(folder / "frame-2.png"), step=True) as source:
        assert isinstance(source, ImageFolderSource)
        assert source.read() is not None
        assert source.advance() is None
        assert source.finished and source.read() is None


def test_folder_options_are_checked(folder: Path) -> None:
    with pytest.raises(SourceError, match="rate must be above 0"):
        open_source(str(folder), realtime=True, rate=0)
    with pytest.raises(SourceError, match="give step or rate"):
        open_source(str(folder), step=True, rate=2.0)


def test_an_empty_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as caught:
        open_source(str(tmp_path))
    assert f"the folder {str(tmp_path)!r} holds no images" in str(caught.value)
    assert ".png" in str(caught.value)


def test_a_folder_without_images_says_what_it_holds(tmp_path: Path) -> None:
    (tmp_path / "readme.md").write_text("#")
    with pytest.raises(SourceError, match=r"holds no images \(it holds: readme.md\)"):
        ImageFolderSource(tmp_path)


def test_a_folder_whose_images_all_fail_ends_even_when_looping(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(b"junk")
    (tmp_path / "b.jpg").write_bytes(b"junk")
    with open_source(str(tmp_path), loop=True) as source:
        assert source.read() is None
        assert isinstance(source, ImageFolderSource)
        assert [s.path.name for s in source.skipped] == ["a.png", "b.jpg"]


# --------------------------------------------------------------------------- cameras


@pytest.mark.skipif(Path("/dev/video0").exists(), reason="a camera is attached to this machine")
def test_camera_that_does_not_open_is_a_clear_error_and_does_not_hang() -> None:
    outcome: dict[str, object] = {}

    def attempt() -> None:
        try:
            open_source("camera:0")
        except SourceError as error:
            outcome["error"] = error
        else:
            outcome["opened"] = True

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=10.0)
    assert not worker.is_alive(), "opening camera:0 did not return within 10 s"
    assert "camera:0 did not open" in str(outcome["error"])
    assert "accepted" in str(outcome["error"])


@pytest.mark.parametrize(("index", "width"), [(-1, None), (True, None), (0, 0), (0, -640)])
def test_camera_arguments_are_checked_by_name(index: int, width: int | None) -> None:
    with pytest.raises(SourceError, match="camera"):
        CameraSource(index, width=width)


# --------------------------------------------------------------------------- streams

BOUNDARY = "umpireframe"
STREAM_TIMEOUT_S = 30.0
"""How long a read waits for the test server's next part. The server sends one every 10 ms, but
on a loaded machine its thread may get no CPU for seconds: only a silent server should ever
reach this bound, and no test here waits it out."""
SILENT_TIMEOUT_S = 3.0
"""The timeout of the test that does wait it out once: long enough that none of the 29 parts
sent before the silence is missed on a busy machine."""


def stream_level(k: int) -> int:
    """Grey level of the k-th part of the test stream: 16, 24, 32, ... (k from 0)."""
    return 16 + 8 * k


class MjpegServer:
    """An IP-camera app in miniature: `/video` serves flat grey JPEGs as an MJPEG stream (with
    or without Content-Length headers), `/page` an HTML page. `stop()` ends every stream and
    closes the port; a new server can then take the same port."""

    def __init__(self, port: int = 0, content_length: bool = True) -> None:
        self.stopping = threading.Event()
        self.content_length = content_length
        app = Flask("mjpeg-test-server")
        app.add_url_rule("/video", "video", self._video)
        app.add_url_rule("/page", "page", lambda: "<html>an IP camera's settings page</html>")
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self._server = make_server("127.0.0.1", port, app, threaded=True)
        self.port = self._server.server_port
        self.url = f"http://127.0.0.1:{self.port}/video"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def _parts(self) -> Iterator[bytes]:
        for k in range(29):  # levels 16 .. 240
            if self.stopping.is_set():
                return
            ok, jpeg = cv2.imencode(".jpg", grey(stream_level(k), 80, 48))
            assert ok
            body = jpeg.tobytes()
            head = f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
            if self.content_length:
                head += f"Content-Length: {len(body)}\r\n"
            yield head.encode() + b"\r\n" + body + b"\r\n"
            time.sleep(0.01)
        while not self.stopping.wait(0.01):  # then stay connected, sending nothing more
            pass

    def _video(self) -> Response:
        return Response(self._parts(), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}")

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def server() -> Iterator[MjpegServer]:
    running = MjpegServer()
    yield running
    running.stop()


def part_number(frame: CapturedFrame) -> int:
    """Which part of the stream a frame is, from its grey level (16 + 8k, so k = (level-16)/8)."""
    level = float(frame.image.mean())
    k = round((level - 16) / 8)
    assert level == pytest.approx(stream_level(k), abs=2.5)
    return k


def read_some(source: FrameSource, count: int) -> list[CapturedFrame]:
    frames = [source.read() for _ in range(count)]
    assert all(f is not None for f in frames)
    return [f for f in frames if f is not None]


@pytest.mark.parametrize("reader", ["auto", "opencv", "mjpeg"])
def test_stream_url_gives_frames_in_order(server: MjpegServer, reader: str) -> None:
    if reader == "opencv" and not sources.opencv_reads_streams():
        pytest.skip("this OpenCV build has no FFmpeg back end")
    with open_source(server.url, reader=reader, timeout=STREAM_TIMEOUT_S) as source:
        assert isinstance(source, StreamSource)
        assert source.live is True
        assert source.reader == (reader if reader != "auto" else "opencv")
        before = time.monotonic()
        frames = read_some(source, 4)
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert all(f.image.shape == (48, 80, 3) for f in frames)
    assert all(f.source == server.url for f in frames)
    # Live timestamps are the monotonic clock at capture: after `before`, never going back.
    stamps = [f.timestamp for f in frames]
    assert stamps == sorted(stamps) and stamps[0] >= before
    parts = [part_number(f) for f in frames]
    assert parts == list(range(parts[0], parts[0] + 4))


def test_mjpeg_parser_finds_parts_without_content_length() -> None:
    server = MjpegServer(content_length=False)
    try:
        with open_source(server.url, reader="mjpeg", timeout=STREAM_TIMEOUT_S) as source:
            frames = read_some(source, 3)
    finally:
        server.stop()
    # Our parser reads from the first part: levels 16, 24, 32.
    assert [part_number(f) for f in frames] == [0, 1, 2]


def test_without_ffmpeg_the_url_falls_back_to_the_mjpeg_parser(
    server: MjpegServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "opencv_reads_streams", lambda: False)
    with open_source(server.url, timeout=STREAM_TIMEOUT_S) as source:
        assert isinstance(source, StreamSource)
        assert source.reader == "mjpeg"
        frames = read_some(source, 2)
    assert [part_number(f) for f in frames] == [0, 1]


def test_opencv_without_ffmpeg_is_refused_by_the_opencv_reader(
    server: MjpegServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "opencv_reads_streams", lambda: False)
    with pytest.raises(SourceError, match="no FFmpeg back end"):
        open_source(server.url, reader="opencv", timeout=STREAM_TIMEOUT_S)


@pytest.mark.parametrize("reader", ["auto", "mjpeg"])
def test_stream_that_stops_gives_none_counts_failures_and_reopens(reader: str) -> None:
    server = MjpegServer()
    port = server.port
    source = open_source(server.url, reader=reader, timeout=STREAM_TIMEOUT_S)
    try:
        read_some(source, 2)
        assert source.failures == 0
        server.stop()
        # Frames already buffered may still come; then None, each one counted.
        results = [source.read() for _ in range(60)]
        first_none = results.index(None)
        assert all(r is None for r in results[first_none:])
        assert source.failures == 60 - first_none
        with pytest.raises(SourceError, match="cannot open the stream"):
            source.reopen()  # nothing listens on the port now
        assert source.failures == 60 - first_none + 1
        server = MjpegServer(port=port)
        source.reopen()
        frame = source.read()
        assert frame is not None
        assert source.failures == 0
        assert frame.index == 2 + first_none  # numbering goes on across reopens
    finally:
        source.close()
        server.stop()


@pytest.mark.parametrize("reader", ["auto", "mjpeg"])
def test_a_silent_server_gives_none_after_the_timeout(server: MjpegServer, reader: str) -> None:
    # The test server sends its 29 parts, then keeps the connection open and says nothing.
    # The read after the last part ends at the timeout with None, counted as a failure (a
    # read that hung would never come back to be counted).
    with open_source(server.url, reader=reader, timeout=SILENT_TIMEOUT_S) as source:
        got = [source.read() for _ in range(29)]
        silent = source.read()
        assert source.failures == 1
    assert all(f is not None for f in got)
    assert silent is None


def test_a_page_that_is_not_a_stream_is_refused(server: MjpegServer) -> None:
    page = f"http://127.0.0.1:{server.port}/page"
    with pytest.raises(SourceError) as caught:
        open_source(page, reader="mjpeg", timeout=STREAM_TIMEOUT_S)
    assert f"cannot open the stream {page!r}" in str(caught.value)
    assert "content type is 'text/html'" in str(caught.value)


def test_a_missing_stream_path_is_refused(server: MjpegServer) -> None:
    with pytest.raises(SourceError, match="404"):
        open_source(
            f"http://127.0.0.1:{server.port}/nothing", reader="mjpeg", timeout=STREAM_TIMEOUT_S
        )


@pytest.mark.parametrize(
    ("url", "options", "message"),
    [
        ("http://127.0.0.1:9/video", {"reader": "vlc"}, "unknown stream reader 'vlc'"),
        ("rtsp://127.0.0.1:9/s", {"reader": "mjpeg"}, "http:// and https:// only"),
        ("http://127.0.0.1:9/video", {"timeout": 0}, "timeout must be"),
    ],
)
def test_stream_options_are_checked(url: str, options: dict[str, object], message: str) -> None:
    with pytest.raises(SourceError, match=message):
        open_source(url, **options)


# --------------------------------------------------------------------------- demo


def small_demo(seed: int = 3, **options: object) -> DemoSource:
    demo = open_source("demo", resolution="640x360", realtime=False, seed=seed, bases=12, **options)
    assert isinstance(demo, DemoSource)
    return demo


def test_demo_gives_frames_with_their_truth() -> None:
    with small_demo() as demo:
        assert demo.live is True
        assert demo.last_truth is None
        frames = read_some(demo, 3)
        truth = demo.last_truth
    assert truth is not None
    assert [f.index for f in frames] == [0, 1, 2]
    assert all(f.image.shape == (360, 640, 3) and f.source == "demo" for f in frames)
    # Not paced: the game's own clock, index / fps = 0, 1/10, 2/10 s.
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.1, 0.2])
    # demo_table: 4 corner tags (ids 0-3) then the 12 bases (ids 10-21).
    assert [t.tag_id for t in truth.tags] == [0, 1, 2, 3, *range(10, 22)]
    # Corner tag 0 is centred 60 mm in from the near-left corner.
    assert truth.tags[0].centre_mm == pytest.approx((60.0, 60.0))
    # The truth matches the picture: inside corner tag 0's image quad there is black border
    # and white quiet zone / bits, far darker and far lighter than the felt.
    corners = truth.tags[0].corners_px
    assert corners is not None
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
    patch = frames[-1].image[y0 : y1 + 1, x0 : x1 + 1]
    assert patch.min() < 60 and patch.max() > 180


def test_demo_is_deterministic_with_a_seed() -> None:
    with small_demo(seed=5) as one, small_demo(seed=5) as two, small_demo(seed=6) as other:
        a, b, c = read_some(one, 2), read_some(two, 2), read_some(other, 2)
        truth_a, truth_b = one.last_truth, two.last_truth
    assert all(np.array_equal(x.image, y.image) for x, y in zip(a, b, strict=True))
    assert truth_a is not None and truth_b is not None
    assert [t.centre_mm for t in truth_a.tags] == [t.centre_mm for t in truth_b.tags]
    assert not np.array_equal(a[0].image, c[0].image)


def test_demo_bases_move_between_frames() -> None:
    with small_demo(seed=1) as demo:
        demo.read()
        assert demo.last_truth is not None
        first = [t.centre_mm for t in demo.last_truth.tags]
        for _ in range(5):
            demo.read()
        assert demo.last_truth is not None
        later = [t.centre_mm for t in demo.last_truth.tags]
    assert first[:4] == later[:4]  # corner tags never move
    assert first[4:] != later[4:]


def test_demo_hand_passes_over_the_table() -> None:
    # Scenario: with hand_period 40 and hand_frames 16 the hand is over the table in frames
    # 0-15 of every 40 and gone in frames 16-39. hand_period 0: never a hand.
    with small_demo() as demo:
        hands = []
        for _ in range(17):
            demo.read()
            assert demo.last_truth is not None
            hands.append(demo.last_truth.hand_px is not None)
    assert hands[8] and not hands[16]
    with small_demo(hand_period=0) as demo:
        demo.read()
        assert demo.last_truth is not None and demo.last_truth.hand_px is None


def test_demo_reopen_starts_the_game_again() -> None:
    with small_demo(effects=Effects()) as demo:
        first = read_some(demo, 2)[0]
        demo.reopen()
        again = demo.read()
    assert again is not None
    assert again.index == 2
    assert again.timestamp == pytest.approx(0.0)
    assert np.array_equal(again.image, first.image)


def test_demo_paces_frames_in_real_time(fake_clock: FakeClock) -> None:
    with open_source("demo", resolution="320x180", fps=20.0, bases=4, hand_period=0) as demo:
        frames = read_some(demo, 4)
    # Four frames at 20 fps: the demo waits 1 / 20 s before each after the first, however long
    # it takes to render them.
    assert fake_clock.slept == [0.05, 0.05, 0.05]
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.05, 0.10, 0.15])


def test_demo_late_reader_gets_no_burst_of_stale_frames(fake_clock: FakeClock) -> None:
    with open_source("demo", resolution="320x180", fps=20.0, bases=4, hand_period=0) as demo:
        read_some(demo, 1)
        fake_clock.pass_time(0.3)  # a slow tracker: frames 1-6 were due meanwhile
        frames = read_some(demo, 3)
    # The schedule moves to now instead of handing out the 6 overdue frames at once: the
    # frames after the pause still come 1 / 20 = 0.05 s apart.
    assert [f.timestamp for f in frames] == pytest.approx([0.3, 0.35, 0.40])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"resolution": "big"}, "resolution 'big' is not WIDTHxHEIGHT"),
        ({"resolution": "10x10"}, "64 to 8192"),
        ({"fps": 0}, "fps must be above 0"),
        ({"bases": -1}, "bases must be a whole number"),
    ],
)
def test_demo_options_are_checked(options: dict[str, object], message: str) -> None:
    with pytest.raises(SourceError, match=message):
        open_source("demo", **options)


def test_every_source_closes_and_then_reads_nothing(folder: Path) -> None:
    opened = [small_demo(), open_source(str(folder))]
    for source in opened:
        assert isinstance(source, FrameSource)
        with source:
            assert source.read() is not None
        assert source.read() is None
