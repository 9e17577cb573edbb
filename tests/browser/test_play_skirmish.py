"""A real browser plays the skirmish-19c demo game (vision/demo_game/skirmish-19c.toml) on the
page, as a player does: Next phase through the sequence of play, a suggestion clicked, what the
dice showed set in the card's form, Confirm and apply.

Every expected value is worked out by hand from the sheet (rules/sheets/000_157c880a83b52d41.txt,
its line in the comment) and the game file, never copied from the code's answers. The demo's
camera holds every unit still (`move_every` 0, no hand), so the table stays as the game file
lays it out; what changes is the game's state.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .conftest import Player, Served

PHASES = ("command", "move-a", "shoot-a", "actions-b", "shoot-b", "melee")
"""The sequence of play, lines 84-89."""


@pytest.fixture
def demo_options() -> dict[str, object]:
    return {"ruleset": "skirmish-19c", "move_every": 0, "hand_every": 0}


def test_next_phase_clicked_as_soon_as_the_page_shows_a_phase_moves_on_from_it(
    page: Page, served: Served
) -> None:
    player = Player(page, served)
    player.ready()
    player.at(1, "command")
    # Each click as soon as the sequence of play shows the phase the last one set.
    for phase in PHASES[1:]:
        player.next_phase(1, phase)
    player.next_phase(2, "command")  # from the last phase back to the first: the next turn
    # Two clicks in a row, the second before the first is saved: two phases on.
    page.locator("#next-phase").click()
    page.locator("#next-phase").click()
    player.at(2, "shoot-a")
    state = player.state()
    assert (state["turn"], state["phase"]) == (2, "shoot-a")


def test_confirming_a_move_without_dice_marks_the_group_moved_and_its_next_shot_counts_it(
    page: Page, served: Served
) -> None:
    player = Player(page, served)
    player.ready()
    for phase in PHASES[1:4]:
        player.next_phase(1, phase)
    # The tirailleurs (side B, uncommanded, 4 figures) move in their actions phase (line 87).
    before = player.ask("shoot", "tirailleurs", "lieutenant-price")["shooters"]
    assert (before["figures"], before["fire"]) == (4, 2)  # stationary: 1 per 2 (line 33)
    player.suggestion("actions-b", "move", "tirailleurs")
    assert page.locator("#card .report-form").count() == 0  # no dice to report
    # A move sets `moved` (line 107: a foot figure's move this turn).
    assert player.confirm() == ["tirailleurs moved: no → yes"]
    assert player.state()["units"]["tirailleurs"]["moved"] is True
    after = player.ask("shoot", "tirailleurs", "lieutenant-price")["shooters"]
    assert (after["figures"], after["fire"]) == (4, 1)  # moving: 1 per 3 (line 34)
