"""Photos on the table page, as `umpire serve --source DIR --game GAME.toml` serves them: a
still photo is shown in the live view and named in the status strip (never "live", never "no
more frames"), and a folder stepped by hand moves on a photo each time "Next photo" is pressed.

The photos are clean 1280x720 renders of the skirmish example table; the tracker is the real
one, behind the real app, on a free port.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import pytest
from playwright.sync_api import Page
from werkzeug.serving import make_server

from tests.test_live import GAME, LAYOUT
from vision.game import load_game
from vision.render import Effects, camera_for_table, render
from vision.synthetic import table_spec
from webui.app import create_app
from webui.live import open_live

from .conftest import FIRST_SCENE_S, Served

STRIP_WORDS = "() => document.getElementById('status').innerText"


@pytest.fixture
def photos() -> int:
    """How many photos the folder holds (a test module or a test overrides it)."""
    return 1


@pytest.fixture
def step() -> bool:
    return False


@pytest.fixture
def served(tmp_path: Path, photos: int, step: bool) -> Iterator[Served]:
    game = load_game(GAME)
    spec = table_spec(game, json.loads(LAYOUT.read_text(encoding="utf-8")))
    image = render(spec, camera_for_table(spec, 1280, 720), Effects(noise_sigma=2.0)).image
    folder = tmp_path / "photos"
    folder.mkdir()
    for n in range(1, photos + 1):
        cv2.imwrite(str(folder / f"table-{n}.png"), image)
    live = open_live(str(folder), GAME, step=step).start()
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


def strip(page: Page) -> str:
    return str(page.evaluate(STRIP_WORDS))


def test_a_still_photo_is_shown_in_the_live_view_and_named_in_the_strip(page: Page) -> None:
    state = page.locator("#st-conn")
    page.wait_for_function(
        "() => document.getElementById('st-conn').dataset.state === 'still'", timeout=60_000
    )
    assert state.inner_text() == "still photo table-1.png"
    # The live view shows the photo: the browser has decoded a 1280x720 picture.
    page.wait_for_function(
        "() => document.getElementById('live').naturalWidth === 1280", timeout=60_000
    )
    words = strip(page)
    assert "live" not in words.split() and "no more frames" not in words
    assert page.locator("#st-error").is_hidden()
    assert page.locator("#st-fps-item").is_hidden()  # frames a second mean nothing for a photo
    assert page.locator("#next-photo").is_hidden()


@pytest.mark.parametrize(("photos", "step"), [(3, True)])
def test_next_photo_steps_through_a_folder_to_its_end(page: Page, served: Served) -> None:
    conn = page.locator("#st-conn")
    button = page.locator("#next-photo")
    page.wait_for_function(
        "() => document.getElementById('st-conn').textContent.startsWith('photo 1 of 3')",
        timeout=60_000,
    )
    assert conn.get_attribute("data-state") == "stepping"
    assert served.live.state.frame == 0  # nobody asked: the folder waits on its first photo
    button.wait_for(state="visible")
    for number in (2, 3):
        button.click()
        page.wait_for_function(
            "n => document.getElementById('st-conn').textContent.startsWith(`photo ${n} of 3`)"
            " || (n === 3 && document.getElementById('st-conn').dataset.state === 'ended')",
            arg=number,
            timeout=60_000,
        )
    page.wait_for_function(
        "() => document.getElementById('st-conn').dataset.state === 'ended'", timeout=60_000
    )
    assert conn.inner_text() == "finished: all 3 photos shown"
    assert served.live.state.frame == 2  # every photo scanned, the third last
    assert button.is_hidden()
    assert "live" not in strip(page).split()
    assert page.locator("#st-error").is_hidden()
