"""`webui/server.py`'s broadcaster: its pictures thread (the live view's drawing and encoding)
runs below the tracker where the system lets one thread be set apart (the tracker's scan comes
first on a busy CPU), and it makes one picture a frame for every viewer, whatever each selected;
the frame event says where the table is in that picture."""

from __future__ import annotations

import http.client
import json
import math
import os
import sys
import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.conftest import live_over_photo
from vision.game import load_game
from vision.pipeline import Scanner
from webui.app import create_app
from webui.server import PICTURE_NICENESS, Server, _lower_this_thread, listen
from webui.stream import BOUNDARY


@pytest.mark.skipif(sys.platform != "linux", reason="threads have their own nice value on Linux")
def test_a_lowered_thread_runs_niceness_steps_below_the_others() -> None:
    seen: dict[str, int] = {}

    def lowered() -> None:
        tid = threading.get_native_id()
        before = os.getpriority(os.PRIO_PROCESS, tid)
        _lower_this_thread(PICTURE_NICENESS)
        seen["before"], seen["after"] = before, os.getpriority(os.PRIO_PROCESS, tid)

    worker = threading.Thread(target=lowered)
    worker.start()
    worker.join()
    # Nice values stop at 19: a thread already near it is lowered as far as it goes.
    assert seen["after"] == min(seen["before"] + PICTURE_NICENESS, 19)
    assert seen["after"] > seen["before"] or seen["before"] == 19
    # The calling thread (the tracker's side of the process) keeps its own.
    main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert main == seen["before"]


# --------------------------------------------------------------------------------- one picture


GAME = Path(__file__).resolve().parent.parent / "examples" / "games" / "skirmish.toml"
LAYOUT = GAME.parent.parent / "skirmish.json"


def first_picture(port: int, path: str) -> bytes:
    """The first JPEG of a live view served at `path`."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        assert response.status == 200, response.read()
        buffer = b""
        while buffer.count(b"--" + BOUNDARY.encode()) < 2:
            data = response.read1(1 << 16)
            assert data, "the stream ended before its first picture"
            buffer += data
    finally:
        conn.close()
    first = buffer.split(b"--" + BOUNDARY.encode())[1]
    return first.partition(b"\r\n\r\n")[2].removesuffix(b"\r\n")


def first_event(port: int) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/events")
        response = conn.getresponse()
        buffer = b""
        while b"event: frame\ndata: " not in buffer or not buffer.endswith(b"\n\n"):
            data = response.read1(1 << 16)
            assert data, "the stream ended before its first event"
            buffer += data
    finally:
        conn.close()
    block = buffer.split(b"event: frame\ndata: ", 1)[1].split(b"\n\n", 1)[0]
    event: dict[str, Any] = json.loads(block)
    return event


def test_every_viewer_gets_the_same_picture_and_the_event_says_where_the_bases_are(
    tmp_path: Path,
) -> None:
    """`umpire serve`'s server makes one picture a frame for everybody: viewers who asked for
    different selections get the very same bytes. The frame event's `view` puts each base where
    the real detector finds its tag in that frame (the page draws the selection with it)."""
    game = load_game(GAME)
    with live_over_photo(game, json.loads(LAYOUT.read_text()), tmp_path) as live:
        app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")}, live=live)
        server = Server(app, listen("127.0.0.1", 0)).start()
        try:
            plain = first_picture(server.port, "/stream.mjpg")
            rifles = first_picture(server.port, "/stream.mjpg?select=rifles")
            zouaves = first_picture(server.port, "/stream.mjpg?select=zouaves")
            event = first_event(server.port)
        finally:
            server.stop()
        scan_image, scene = live.state.image, live.state.scene
    assert scan_image is not None and scene is not None
    assert plain == rifles == zouaves
    picture = cv2.imdecode(np.frombuffer(plain, np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None and picture.shape == (720, 1280, 3)

    view = event["view"]
    assert (view["width"], view["height"], view["scale"], view["lens"]) == (1280, 720, 1.0, None)
    to_image = np.array(view["table_to_image"])
    # Where the tracker put each base (its scene, mm), through the event's mapping, lands on
    # the tag the detector finds in the frame.
    tags = {
        d.tag_id: np.asarray(d.corners).mean(axis=0)
        for d in Scanner(game).scan(scan_image).detections
    }
    for unit in game.units:
        for base in unit.bases:
            # The tag sits `offset` (right, ahead; mm) behind the footprint's centre.
            seen = scene.base(base.id)
            ahead = np.array(
                [math.cos(math.radians(seen.facing)), math.sin(math.radians(seen.facing))]
            )
            right = np.array([ahead[1], -ahead[0]])
            x, y = np.array([seen.x, seen.y]) - base.offset[0] * right - base.offset[1] * ahead
            u, v, w = to_image @ (x, y, 1.0)
            assert w > 0
            gap = float(np.hypot(u / w - tags[base.tag][0], v / w - tags[base.tag][1]))
            assert gap <= 3.0, (base.id, gap)
