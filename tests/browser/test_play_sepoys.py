"""A real browser plays the sepoys-and-soldiers demo game (Delhi Ridge, 1857:
vision/demo_game/sepoys-and-soldiers.toml) on the page, as a player does.

Every expected value is worked out by hand from the sheet (rules/sheets/001_14e3e4b7ab0503f1.txt,
its line in the comment) and the game file, never copied from the code's answers. The demo's
camera holds every unit still (`move_every` 0, no hand), so the table stays as laid out; what
changes is the game's state.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .conftest import Player, Served


@pytest.fixture
def demo_options() -> dict[str, object]:
    return {"ruleset": "sepoys-and-soldiers", "move_every": 0, "hand_every": 0}


def test_a_refused_shot_shows_its_card_and_confirming_it_changes_nothing(
    page: Page, served: Served
) -> None:
    player = Player(page, served)
    player.ready()
    before = player.state()
    # HM 52nd (front edge at y 12.875") and the Gwalior guns on the ridge (near edge at
    # y 39.75"): some 27" apart, beyond infantry's long range of 8" (line 66).
    player.pair("hm-52nd-1", "gwalior-guns-1")
    card = page.locator("#card .resolution")
    card.locator(".decide button.confirm").wait_for()
    assert card.locator(".allowed").inner_text() == "not allowed"
    reason = card.locator(".reasons li").first.inner_text()
    assert reason.startswith('beyond the longest range (8.0")')
    assert card.locator(".report-form").count() == 0  # no dice to report
    # Confirm records that the table agrees: the shot is not taken, nothing changes.
    card.locator(".decide button.confirm").click()
    card.locator(".decided.confirm").wait_for()
    assert card.locator(".applied li").count() == 0
    after = player.state()
    assert after["units"] == before["units"] and after["undo"] is None
