"""The status strip says in words what the table should look at: here a tag that is in no game
file lies on the skirmish table, and the page must name it.

The served tracker watches a still photograph of the skirmish example (1280x720, rendered) with
one stray tag36h11 tag, id 400, laid on the table, played like a webcam at 5 frames a second.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page
from werkzeug.serving import make_server

from benchmarks.serving import LoopSource
from tests.test_live import GAME, LAYOUT
from vision.game import load_game
from vision.render import Effects, TagSpec, camera_for_table, render
from vision.synthetic import table_spec
from webui.app import create_app
from webui.live import Live

from .conftest import FIRST_SCENE_S, Served


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    game = load_game(GAME)
    spec = table_spec(game, json.loads(LAYOUT.read_text(encoding="utf-8")))
    stray = TagSpec("tag36h11", 400, 900.0, 150.0, size_mm=20.0)
    spec = dataclasses.replace(spec, tags=(*spec.tags, stray))
    image = render(spec, camera_for_table(spec, 1280, 720), Effects(noise_sigma=2.0)).image
    live = Live(LoopSource([image], 5.0), game).start()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data")}, live=live)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + FIRST_SCENE_S
        while live.state.scene is None:
            assert time.monotonic() < deadline, f"no scene: {live.status()}"
            time.sleep(0.05)
        yield Served(f"http://127.0.0.1:{server.port}", live, tmp_path / "data", app)
    finally:
        live.stop()
        server.shutdown()
        thread.join(10)


def test_the_status_strip_names_a_tag_that_is_in_no_game_file(page: Page) -> None:
    warning = page.locator("#st-warnings")
    warning.wait_for(state="visible")
    assert warning.inner_text() == "tag 400 (tag36h11) is not in the game file; it is ignored"
