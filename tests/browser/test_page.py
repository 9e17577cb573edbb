"""The table page in headless Chromium, over the real app and the real demo table.

What a player does: look at the map, click a base and then another, read the answer, watch the
status strip, take a dispute snapshot. The numbers on the page are checked against the real
`umpire resolve --json` run on the same scene, not against values copied from the code.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from vision.game import load_game

from .conftest import EXAMPLE_GAME as DEMO_GAME
from .conftest import Served

BASE = "#map g.base[data-base]"
Wait = Callable[[Callable[[], bool], float, str], None]

# Two bases of the example table (examples/skirmish.json): a British rifleman and a Zouave 65 cm
# apart, inside the 90 cm medium band of Rifles, so the card has rolls to compare.
SHOOTER, TARGET = "rifles-1", "zouaves-1"


def number(text: str) -> float:
    """The first number in a text the page shows (`64.904 cm` -> 64.904)."""
    found = re.search(r"-?\d+(?:\.\d+)?", text)
    assert found, f"no number in {text!r}"
    return float(found.group())


def umpire_resolve(scene: Path, action: str, *args: str) -> dict[str, Any]:
    """What the command line answers, run as a player runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "webui.cli", "resolve", str(scene), action, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def too_close_to_call(answer: object) -> bool:
    """Whether the rules flagged a measurement as too close to call anywhere in an answer: a
    threshold's `verdict`, or a `too_close_to_call` that is true or lists ids."""
    if isinstance(answer, list):
        return any(too_close_to_call(item) for item in answer)
    if not isinstance(answer, dict):
        return False
    flag = answer.get("too_close_to_call")
    if (
        answer.get("verdict") == "too close to call"
        or flag is True
        or (isinstance(flag, list) and flag)
    ):
        return True
    return any(too_close_to_call(value) for value in answer.values())


def map_ready(page: Page) -> None:
    page.wait_for_selector(BASE)
    page.wait_for_function("() => document.getElementById('ruleset').textContent.length > 0")


def click_base(page: Page, ident: str) -> bool:
    """Click the middle of a base's footprint, as a player's mouse does. False when the base
    was not there to click: the map is redrawn with every frame (an element may be replaced
    between finding it and measuring it) and the demo moves a unit every few seconds."""
    page.eval_on_selector("#map", "map => map.scrollIntoView({block: 'center'})")
    for _ in range(20):
        box = page.locator(f'{BASE}[data-base="{ident}"] .footprint').bounding_box()
        if box is not None:
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            return True
        time.sleep(0.1)
    return False


def pick_pair(page: Page, first: str, second: str) -> None:
    """Click one base then another until the page says it has that pair (a unit the demo moves
    just as the mouse comes down is clicked again)."""
    picked = f"{first} and {second}: click a base to start again."
    for _ in range(3):
        if page.locator("#clear").is_visible():
            page.locator("#clear").click()
        if click_base(page, first) and click_base(page, second):
            try:
                page.wait_for_function(
                    "text => document.getElementById('pick').textContent === text",
                    arg=picked,
                    timeout=5_000,
                )
                return
            except PlaywrightTimeout:
                continue
    pytest.fail(f"could not pick {first} then {second} on the map: {page.inner_text('#pick')!r}")


def test_the_demo_map_shows_every_base_of_the_demo_game(page: Page) -> None:
    game = load_game(DEMO_GAME)
    expected = sorted(b.id for u in game.units for b in u.bases)
    assert len(expected) == 10  # skirmish.toml: 4 rifles, 3 zouaves, 2 hussars, captain hart
    # Every base drawn with a size: waited for, not read once, since the map is swapped in anew
    # with each frame and a read between the swap and the next layout sees no size yet.
    page.wait_for_function(
        """n => {
            const gs = document.querySelectorAll('#map g.base[data-base]');
            return gs.length >= n && [...gs].every(g => {
                const box = g.querySelector('.footprint').getBoundingClientRect();
                return box.width > 0 && box.height > 0;
            });
        }""",
        arg=len(expected),
    )
    drawn = page.eval_on_selector_all(BASE, "gs => gs.map(g => g.dataset.base)")
    assert sorted(drawn) == expected
    # The switch starts on the ruleset's unit: skirmish-19c measures in cm (set once the page's
    # first status has come, which may be after the first map).
    expect(page.locator('#unit-switch input[value="cm"]')).to_be_checked()
    assert page.locator("#map svg").get_attribute("data-unit") == "cm"
    page.locator('#unit-switch input[value="in"]').check()
    page.wait_for_function("() => document.querySelector('#map svg').dataset.unit === 'in'")


def test_two_clicked_bases_show_what_umpire_resolve_says(
    page: Page, served: Served, tmp_path: Path
) -> None:
    map_ready(page)
    # The demo rescans every frame and sensor noise moves every base by a fraction of a
    # millimetre: hold the tracker's last scene so the page and the command line read the same.
    served.live.stop()
    scene_doc = page.request.get(served.url + "/api/scene").json()
    scene = tmp_path / "scene.json"
    scene.write_text(json.dumps(scene_doc), encoding="utf-8")
    shot = umpire_resolve(scene, "shoot", SHOOTER, TARGET)
    # One answer per question: the measurement shown is the pair the shot was measured between.
    measured = umpire_resolve(scene, "measure", *shot["between"].values())

    pick_pair(page, SHOOTER, TARGET)
    page.wait_for_selector("#card .resolution")

    measure = page.locator("#measure")
    unit = measured["distance"]["unit"]
    assert unit == "cm"
    distance = measure.locator(".distance").inner_text()
    assert distance.endswith(f" {unit}")
    # The page shows lengths as the map's label does, to 0.1; the JSON keeps them exact.
    assert abs(number(distance) - measured["distance"]["value"]) <= 0.051
    uncertainty = number(measure.locator(".uncertainty").inner_text())
    assert abs(uncertainty - measured["uncertainty"]["value"]) <= 0.051
    assert measure.locator(".aspect").inner_text() == measured["aspect"]
    sight = "in sight" if measured["in_sight"] else "out of sight"
    assert measure.locator(".sight").inner_text() == sight

    card = page.locator("#card .resolution")
    assert abs(number(card.locator(".distance").inner_text()) - shot["distance"]["value"]) <= 0.051
    assert card.locator(".band").inner_text() == shot["band"]
    allowed = "allowed" if shot["allowed"] else "not allowed"
    assert card.locator(".allowed").inner_text() == allowed
    rolls = card.locator(".roll")
    assert rolls.count() == len(shot["rolls"])
    assert shot["rolls"], "the chosen pair should have dice to throw"
    for i, roll in enumerate(shot["rolls"]):
        row = rolls.nth(i)
        assert row.locator(".purpose").inner_text() == roll["purpose"]
        assert row.locator(".dice").inner_text() == f"{roll['dice']}D{roll['sides']}"
        if roll["need"] is None:
            assert row.locator(".exact").count() == 0
        else:
            assert row.locator(".need").inner_text() == f"{roll['need']}+"
            # Odds read as a percentage; a short fraction stays beside it (JSON keeps it exact).
            odds = row.locator(".odds")
            assert odds.get_attribute("title") == f"exactly {roll['p_success_exact']}"
            assert number(odds.inner_text()) == round(100 * roll["p_success"], 1)
        assert row.locator(".modifier").count() == len(roll["modifiers"])
    assert card.locator(".too-close").count() == (1 if too_close_to_call(shot) else 0)
    # The map draws the measuring line between the pair it was asked about.
    page.wait_for_function(
        "t => document.querySelector(`#map g.base[data-base='${t}']`)"
        "?.classList.contains('target')",
        arg=TARGET,
    )


def test_the_status_strip_follows_the_tracker(page: Page, served: Served, wait_for: Wait) -> None:
    map_ready(page)
    frame = page.locator("#st-frame")
    wait_for(lambda: frame.inner_text().isdigit(), 30, "a frame number")
    first = int(frame.inner_text())
    wait_for(lambda: int(frame.inner_text()) > first, 30, "the frame number to move on")
    assert page.locator("#st-conn").inner_text() == "live"
    fps = page.locator("#st-fps")
    wait_for(lambda: number(fps.inner_text()) > 0, 30, "frames per second above 0")
    calibration = page.locator("#st-cal").inner_text()
    assert re.fullmatch(r"\d+\.\d\d cm rms, worst \d+\.\d\d cm", calibration), calibration
    counts = [int(page.locator(f"#st-{k}").inner_text()) for k in ("seen", "stale", "missing")]
    assert sum(counts) == 10  # every base of the game is seen, stale or missing
    assert page.locator("#st-lost").is_hidden()


def test_a_dispute_snapshot_is_saved_and_listed(page: Page, served: Served, wait_for: Wait) -> None:
    map_ready(page)
    assert page.locator("#snapshots li.snapshot").count() == 0
    pick_pair(page, SHOOTER, TARGET)
    page.wait_for_selector("#card .resolution")
    page.locator("#snap").click()
    page.wait_for_selector("#snapshots li.snapshot")
    item = page.locator("#snapshots li.snapshot")
    assert item.count() == 1
    ident = item.get_attribute("data-id")
    assert ident and page.locator("#snap-msg").inner_text() == f"saved {ident}"
    assert item.locator(".snap-question").inner_text() == f"shoot {SHOOTER} {TARGET}"

    picture_href = item.locator("a", has_text="picture").get_attribute("href")
    answer_href = item.locator("a", has_text="answer").get_attribute("href")
    assert picture_href == f"/snapshots/{ident}.png"
    assert answer_href == f"/snapshots/{ident}.json"
    picture = page.request.get(served.url + picture_href)
    assert picture.status == 200 and picture.body()[:8] == b"\x89PNG\r\n\x1a\n"
    record = page.request.get(served.url + answer_href).json()
    assert record["question"] == {"action": "shoot", "args": [SHOOTER, TARGET]}
    assert record["resolution"]["shooter"] == SHOOTER
    saved = sorted(p.name for p in (served.data_dir / "snapshots").iterdir())
    assert saved == [f"{ident}.json", f"{ident}.png"]


def test_clicking_a_phase_makes_it_current_and_lists_its_suggestions(
    page: Page, served: Served
) -> None:
    map_ready(page)
    phases = page.locator("#phases button.phase")
    page.wait_for_selector("#phases button.phase")
    # skirmish-19c's sequence of play, sheet lines 84-89: command, move, shoot, actions, shoot,
    # melee (side A moves and shoots first).
    names = [phases.nth(i).inner_text() for i in range(phases.count())]
    assert names == ["command", "move-a", "shoot-a", "actions-b", "shoot-b", "melee"]
    page.locator('#phases button[data-phase="shoot-a"]').click()
    page.wait_for_selector('#phases button.current[data-phase="shoot-a"]')
    assert page.request.get(served.url + "/api/status").json()["phase"] == "shoot-a"
    page.wait_for_function(
        "() => document.getElementById('suggest-head').textContent === 'Suggested for shoot-a'"
    )
    suggested = page.request.get(served.url + "/api/suggest?phase=shoot-a").json()["items"]
    page.wait_for_function(
        "n => document.querySelectorAll('#suggest button.suggestion').length === n",
        arg=len(suggested),
    )
    kinds = page.locator("#suggest .kind").all_text_contents()  # as written, not as styled
    assert kinds == [item["kind"] for item in suggested]
