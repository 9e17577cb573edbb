"""Fixtures of the browser tests: the real app over a demo table (the small skirmish table of
`examples/`, photographed by the demo's synthetic camera, or a ruleset's built-in demo game),
served on a free port, and Debian's Chromium driven by Python Playwright.

`playwright install` downloads a browser build, which cannot work here, so the tests drive the
system's /usr/bin/chromium (installed by tests/setup-browser). Without it the tests fail, never
skip: a page nobody looked at must not pass. Each test gets its own tracker and server (one
test stops its tracker to hold a scene still) and its own browser context (Chromium allows six
connections per host, and each page holds two streams), and leaves a screenshot of the page in
its pytest temp folder.

The page is served under a strict Content-Security-Policy (no eval), so every
`page.wait_for_function` predicate is written as a function (`"() => ..."`, `"n => ..."`):
Playwright re-evaluates a bare expression string on each poll, which the policy refuses.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from flask import Flask
from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, sync_playwright
from werkzeug.serving import make_server

from vision.demo import open_demo_game
from webui.app import create_app
from webui.live import Live

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_GAME = ROOT / "examples" / "games" / "skirmish.toml"
EXAMPLE_LAYOUT = ROOT / "examples" / "skirmish.json"
"""The small skirmish table (10 bases) the page tests click on."""

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
FIRST_SCENE_S = 60.0
"""The longest a test waits for the demo's first scanned scene (a loaded 2-core machine)."""


@pytest.fixture(scope="session")
def pw() -> Iterator[Playwright]:
    if not CHROMIUM.is_file():
        pytest.fail(
            f"{CHROMIUM} is missing: run `bash tests/setup-browser` (installs Debian's chromium) "
            "before the browser tests",
            pytrace=False,
        )
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(pw: Playwright) -> Iterator[Browser]:
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@dataclass
class Served:
    """A running `umpire serve`: its address, its tracker and its app (for its settings)."""

    url: str
    live: Live
    data_dir: Path
    app: Flask


@pytest.fixture
def server_config() -> dict[str, object]:
    """Settings of the served app beyond the test defaults; a test module overrides this
    fixture to serve, say, with an access code."""
    return {}


@pytest.fixture
def demo_options() -> dict[str, object]:
    """How the demo camera plays: the example table by default; a test module overrides this
    fixture to serve a ruleset's own demo game (`{"ruleset": ..., "move_every": 0}`)."""
    return {"game_path": EXAMPLE_GAME, "layout_path": EXAMPLE_LAYOUT}


@pytest.fixture
def served(
    tmp_path: Path, server_config: dict[str, object], demo_options: dict[str, object]
) -> Iterator[Served]:
    """The real app over a demo camera, as `umpire serve` starts it, on a free port."""
    quiet = logging.getLogger("werkzeug")
    level = quiet.level
    quiet.setLevel(logging.WARNING)  # one log line per request would bury a failure's story
    options = dict(demo_options)
    demo = open_demo_game(str(options.pop("ruleset", "skirmish-19c")), **options)  # type: ignore[arg-type]
    live = Live(demo, demo.game).start()
    data_dir = tmp_path / "data"
    app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), **server_config}, live=live)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="browser-test-server", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + FIRST_SCENE_S
        while live.state.scene is None:
            if time.monotonic() > deadline:
                pytest.fail(f"the demo gave no scene in {FIRST_SCENE_S:.0f} s: {live.status()}")
            time.sleep(0.05)
        yield Served(f"http://127.0.0.1:{server.port}", live, data_dir, app)
    finally:
        live.stop()  # ends the event and video streams, so the server's threads finish
        server.shutdown()
        thread.join(10)
        quiet.setLevel(level)


@dataclass
class PageErrors:
    """Uncaught script errors of a page, and anything its Content-Security-Policy refused: a
    test fails on any (a refused script or style means the page does not work as served)."""

    errors: list[str] = field(default_factory=list)

    def console(self, message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            self.errors.append(message.text)


@pytest.fixture
def page(browser: Browser, served: Served, tmp_path: Path) -> Iterator[Page]:
    """The table page in a fresh browser context, screenshot saved to tmp_path at the end."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    page = context.new_page()
    seen = PageErrors()
    page.on("pageerror", lambda error: seen.errors.append(str(error)))
    page.on("console", seen.console)
    page.goto(served.url + "/")
    yield page
    shot = tmp_path / "page.png"
    page.screenshot(path=str(shot), full_page=True)
    context.close()
    assert shot.stat().st_size > 0
    assert seen.errors == [], f"script errors on the page: {seen.errors}"


@pytest.fixture
def wait_for() -> Callable[[Callable[[], bool], float, str], None]:
    """Poll `done()` until true, failing with `what` after `timeout` seconds."""

    def wait(done: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                pytest.fail(f"waited {timeout:.0f} s for {what}")
            time.sleep(0.1)

    return wait
