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
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from werkzeug.serving import BaseWSGIServer, make_server

from vision.demo import open_demo_game
from vision.game import load_game
from vision.sources import FrameSource, open_source
from webui.api import install_playing, open_playing
from webui.app import create_app
from webui.gamelog import LOG_FILE, GameLog, install_log
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
    """A running `umpire serve`: its address, its tracker and its app (for its settings).

    `restart()` stops the tracker and the web server the way a crash does - the game log is
    not closed, the game not ended - and serves a new tracker and app on the same data folder
    and port, as `umpire serve` started again with the same game file would."""

    url: str
    live: Live
    data_dir: Path
    app: Flask
    server_config: dict[str, object] = field(default_factory=dict, repr=False)
    demo_options: dict[str, object] = field(default_factory=dict, repr=False)
    server: BaseWSGIServer | None = field(default=None, repr=False)
    thread: threading.Thread | None = field(default=None, repr=False)
    stopped: list[Flask] = field(default_factory=list, repr=False)
    """The apps of the servers `restart` stopped, kept so that their game logs stay open."""

    @classmethod
    def start(
        cls,
        data_dir: Path,
        server_config: dict[str, object],
        demo_options: dict[str, object],
        port: int = 0,
    ) -> Served:
        """The real app over a demo camera, as `umpire serve` starts it, once it has a scene."""
        options = dict(demo_options)
        camera = options.pop("camera", None)  # a lens model (`[camera]` of a game file)
        photo = options.pop("photo", None)  # a still photo of the example table instead
        if photo is not None:
            source: FrameSource = open_source(str(photo))
            game = load_game(EXAMPLE_GAME)
        else:
            demo = open_demo_game(str(options.pop("ruleset", "skirmish-19c")), **options)  # type: ignore[arg-type]
            source, game = demo, demo.game
        live = Live(source, game, camera, tracker_process=True).start()  # type: ignore[arg-type]
        app = create_app({"TESTING": True, "DATA_DIR": str(data_dir), **server_config}, live=live)
        # Its log and game opened at start-up, as `umpire serve` does (a read route never
        # opens or starts one).
        log = GameLog(data_dir / LOG_FILE)
        install_log(app, log)
        install_playing(app, open_playing(log, live))
        server = make_server("127.0.0.1", port, app, threaded=True)
        thread = threading.Thread(
            target=server.serve_forever, name="browser-test-server", daemon=True
        )
        thread.start()
        served = cls(
            f"http://127.0.0.1:{server.port}",
            live,
            data_dir,
            app,
            dict(server_config),
            dict(demo_options),
            server,
            thread,
        )
        deadline = time.monotonic() + FIRST_SCENE_S
        while live.state.scene is None:
            if time.monotonic() > deadline:
                served.stop()
                pytest.fail(f"the demo gave no scene in {FIRST_SCENE_S:.0f} s: {live.status()}")
            time.sleep(0.05)
        return served

    def stop(self) -> None:
        """Stop the tracker and the web server, leaving the game log open (as a crash does)."""
        self.live.stop()  # ends the event and video streams, so the server's threads finish
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()  # the port is free for the next server
        if self.thread is not None:
            self.thread.join(10)
        self.server = self.thread = None

    def restart(self) -> None:
        """Stop this server and serve another on the same data folder and port."""
        assert self.server is not None, "the server is not running"
        port = self.server.port
        self.stop()
        self.stopped.append(self.app)
        again = Served.start(self.data_dir, self.server_config, self.demo_options, port)
        assert again.url == self.url, (again.url, self.url)
        self.live, self.app, self.server, self.thread = (
            again.live,
            again.app,
            again.server,
            again.thread,
        )


@pytest.fixture
def server_config() -> dict[str, object]:
    """Settings of the served app beyond the test defaults; a test module overrides this
    fixture to serve, say, with an access code."""
    return {}


@pytest.fixture
def demo_options() -> dict[str, object]:
    """How the demo camera plays: the example table by default; a test module overrides this
    fixture to serve a ruleset's own demo game (`{"ruleset": ..., "move_every": 0}`), or a still
    photo of the example table seen through a lens (`{"photo": PATH, "camera": CameraModel}`)."""
    return {"game_path": EXAMPLE_GAME, "layout_path": EXAMPLE_LAYOUT}


@pytest.fixture
def served(
    tmp_path: Path, server_config: dict[str, object], demo_options: dict[str, object]
) -> Iterator[Served]:
    """The real app over a demo camera, as `umpire serve` starts it, on a free port."""
    quiet = logging.getLogger("werkzeug")
    level = quiet.level
    quiet.setLevel(logging.WARNING)  # one log line per request would bury a failure's story
    served = Served.start(tmp_path / "data", server_config, demo_options)
    try:
        yield served
    finally:
        served.stop()
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


# --------------------------------------------------------------------------------------------
# Playing a game on the page: what a player clicks, and what the page then shows


class Player:
    """A player at the table page: Next phase, a suggestion clicked, what the dice showed set
    in the card's form, Confirm; the Game and Unit panels and the map read back. Every step
    waits for the page to show its effect (never a fixed sleep)."""

    def __init__(self, page: Page, served: Served) -> None:
        self.page = page
        self.served = served
        self.card = page.locator("#card")

    # ----------------------------------------------------------------------------- the server

    def state(self) -> dict[str, Any]:
        """`/api/state`: the game in play as the server keeps it."""
        answer: dict[str, Any] = self.page.request.get(self.served.url + "/api/state").json()
        return answer

    def ask(self, action: str, *args: str) -> dict[str, Any]:
        """The server's answer to a question now (anybody's GET: nothing logged)."""
        response = self.page.request.get(
            self.served.url + "/api/resolve", params={"action": action, "args": ",".join(args)}
        )
        assert response.ok, response.text()
        answer: dict[str, Any] = response.json()
        return answer

    # ----------------------------------------------------------------------------- game panel

    def ready(self) -> None:
        """The page has drawn the map, the sequence of play and the game panel."""
        self.page.wait_for_selector("#map g.base[data-base]")
        self.page.wait_for_selector("#phases button.phase.current")
        self.page.wait_for_function(
            "() => /^Turn \\d+$/.test(document.getElementById('turn').textContent)"
        )

    def at(self, turn: int, phase: str) -> None:
        """Wait until the page shows this turn and phase; if it never does, fail saying what
        the page and the server show instead."""
        try:
            self.page.wait_for_function(
                """([turn, phase]) => document.getElementById('turn').textContent === `Turn ${turn}`
                    && document.querySelector('#phases button.phase.current')?.dataset.phase
                        === phase
                    && document.getElementById('suggest-head').textContent
                        === `Suggested for ${phase}`""",
                arg=[turn, phase],
            )
        except PlaywrightTimeout:
            shown = self.page.evaluate(
                """() => [document.getElementById('turn').textContent,
                    document.querySelector('#phases button.phase.current')?.dataset.phase,
                    document.getElementById('suggest-head').textContent]"""
            )
            server = self.state()
            pytest.fail(
                f"waited for turn {turn}, phase {phase!r}: the page shows {shown}, the server "
                f"turn {server['turn']}, phase {server['phase']!r}"
            )

    def next_phase(self, turn: int, phase: str) -> None:
        """Click Next phase and wait for the page to show where it leads."""
        self.page.locator("#next-phase").click()
        self.at(turn, phase)

    def undo(self) -> None:
        self.page.locator("#undo").click()
        self.page.wait_for_function(
            "() => document.getElementById('game-msg').textContent.startsWith('undone')"
        )

    # ----------------------------------------------------------------------------- a resolution

    def suggestion(self, phase: str, kind: str, *args: str) -> None:
        """Click the suggestion `kind args` of the current phase; wait for its card's Confirm."""
        items = self.page.request.get(
            self.served.url + "/api/suggest", params={"phase": phase}
        ).json()["items"]
        found = [i for i in items if i["kind"] == kind and i["args"] == list(args)]
        assert found, (
            f"no suggestion {kind} {args} in {phase}: {[(i['kind'], i['args']) for i in items]}"
        )
        key = " ".join([kind, *args])
        button = self.page.locator(f'#suggest button.suggestion[data-key="{key}"]').first
        button.click()
        self.page.wait_for_function(
            "text => document.getElementById('question').textContent === text",
            arg=f"suggested: {kind} {' '.join(args)}",
        )
        self.card.locator(".decide button.confirm").wait_for()

    def count(self, name: str, value: int) -> None:
        """Step a count of the dice form to `value` with its - and + buttons."""
        shown = self.card.locator(f'output.count-value[data-report="{name}"]')
        for _ in range(30):
            text = shown.inner_text()
            now = int(text) if text.isdigit() else None  # a die not yet reported shows "–"
            if now == value:
                return
            step = "plus" if now is None or now < value else "minus"
            self.card.locator(f'.report[data-report="{name}"] .step.{step}').click()
        pytest.fail(f"{name} would not come to {value}: it shows {shown.inner_text()}")

    def flag(self, name: str, value: bool) -> None:
        toggle = self.card.locator(f'.toggle[data-report="{name}"]')
        if (toggle.get_attribute("aria-pressed") == "true") != value:
            toggle.click()
        assert toggle.get_attribute("aria-pressed") == ("true" if value else "false")

    def choose(self, name: str, value: str) -> None:
        self.card.locator(f'select[data-report="{name}"]').select_option(value)

    def bases(self, name: str, *chosen: str) -> None:
        """Tick exactly these bases of a form's list of bases."""
        boxes = self.card.locator(f'.report[data-report="{name}"] .base-pick input')
        for i in range(boxes.count()):
            box = boxes.nth(i)
            box.set_checked(box.get_attribute("value") in chosen)

    def will_apply(self, *expected: str) -> None:
        """Wait for the card's preview to list exactly these changes (in any order)."""
        self.page.wait_for_function(
            """want => {
                const got = [...document.querySelectorAll('#card .preview .will-apply li')]
                    .map(li => li.textContent).sort();
                return JSON.stringify(got) === JSON.stringify(want);
            }""",
            arg=sorted(expected),
            timeout=15_000,
        )

    def confirm(self) -> list[str]:
        """Confirm and apply; the changes the card then says were applied."""
        self.card.locator(".decide button.confirm").click()
        self.card.locator(".decided.confirm").wait_for()
        return sorted(self.card.locator(".applied li").all_text_contents())

    # ----------------------------------------------------------------------------- map, unit panel

    def base_click(self, ident: str) -> None:
        """Click the middle of a base's footprint on the map."""
        self.page.eval_on_selector("#map", "map => map.scrollIntoView({block: 'center'})")
        for _ in range(20):
            box = self.page.locator(f'#map g.base[data-base="{ident}"] .footprint').bounding_box()
            if box is not None:
                self.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                return
            time.sleep(0.1)
        pytest.fail(f"base {ident} is not on the map")

    def select(self, base: str, unit: str) -> None:
        """Click a base alone on the map: the Unit panel shows its unit."""
        for _ in range(3):
            if self.page.locator("#clear").is_visible():
                self.page.locator("#clear").click()
            self.base_click(base)
            try:
                self.page.wait_for_function(
                    "text => document.getElementById('unit-name').textContent === text"
                    " && !document.getElementById('unit-panel').hidden",
                    arg=f"{unit} (base {base})",
                    timeout=5_000,
                )
                return
            except PlaywrightTimeout:
                continue
        pytest.fail(f"could not select {base} on the map: {self.page.inner_text('#pick')!r}")

    def pair(self, first: str, second: str) -> None:
        """Click one base then another on the map: the card answers the pair."""
        picked = f"{first} and {second}: click a base to start again."
        for _ in range(3):
            if self.page.locator("#clear").is_visible():
                self.page.locator("#clear").click()
            self.base_click(first)
            self.base_click(second)
            try:
                self.page.wait_for_function(
                    "text => document.getElementById('pick').textContent === text",
                    arg=picked,
                    timeout=5_000,
                )
                return
            except PlaywrightTimeout:
                continue
        pytest.fail(f"could not pick {first} then {second}: {self.page.inner_text('#pick')!r}")

    def unit_shows(self, **values: object) -> None:
        """Wait for the Unit panel to show these values (counts, flags, choices)."""
        self.page.wait_for_function(
            """want => Object.entries(want).every(([name, value]) => {
                const row = document.querySelector(`#unit-fields .field[data-field="${name}"]`);
                if (!row) return false;
                const count = row.querySelector('output.count-value');
                if (count) return Number(count.textContent) === value;
                const toggle = row.querySelector('.toggle');
                if (toggle) return toggle.getAttribute('aria-pressed') === String(value);
                return row.querySelector('select').value === value;
            })""",
            arg=values,
        )

    def on_map(self, base: str) -> bool:
        return self.page.locator(f'#map g.base[data-base="{base}"]').count() > 0

    def taken_off(self) -> list[str]:
        """The bases the Game panel lists as taken off the table."""
        found: list[str] = self.page.eval_on_selector_all(
            "#taken-off .put-back", "buttons => buttons.map(b => b.dataset.base)"
        )
        return sorted(found)
