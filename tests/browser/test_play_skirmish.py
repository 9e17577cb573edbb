"""A real browser plays the skirmish-19c demo game (vision/demo_game/skirmish-19c.toml) on the
page, as a player does: Next phase through the sequence of play, a suggestion clicked, what the
dice showed set in the card's form, Confirm and apply.

Every expected value is worked out by hand from the sheet (rules/sheets/000_157c880a83b52d41.txt,
its line in the comment) and the game file, never copied from the code's answers. The demo's
camera holds every unit still (`move_every` 0, no hand), so the table stays as the game file
lays it out; what changes is the game's state.
"""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from playwright.sync_api import Page

from .conftest import ROOT, Player, Served

DEMO_GAME = ROOT / "vision" / "demo_game" / "skirmish-19c.toml"

PHASES = ("command", "move-a", "shoot-a", "actions-b", "shoot-b", "melee")
"""The sequence of play, lines 84-89."""


@pytest.fixture
def demo_options() -> dict[str, object]:
    return {"ruleset": "skirmish-19c", "move_every": 0, "hand_every": 0}


def factors(answer: dict[str, Any]) -> list[tuple[int, int]]:
    """A risk answer's factors as (value, sheet line)."""
    return [(f["value"], int(f["source"].rsplit(":", 1)[1])) for f in answer["factors"]]


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
    # ... but the card still says what Confirm will change before it is pressed.
    page.wait_for_selector("#card .preview .will-apply li")
    assert page.locator("#card .preview .will-apply li").all_inner_texts() == [
        "tirailleurs moved: no → yes"
    ]
    # A move sets `moved` (line 107: a foot figure's move this turn).
    assert player.confirm() == ["tirailleurs moved: no → yes"]
    assert player.state()["units"]["tirailleurs"]["moved"] is True
    after = player.ask("shoot", "tirailleurs", "lieutenant-price")["shooters"]
    assert (after["figures"], after["fire"]) == (4, 1)  # moving: 1 per 3 (line 34)


def test_three_turns_of_the_demo_game(page: Page, served: Served) -> None:
    player = Player(page, served)
    player.ready()
    player.at(1, "command")
    first = player.state()
    assert (first["game"], first["turn"], first["phase"]) == (1, 1, "command")

    # ---- Turn 1, command (line 84): captain Hart, a hero (4D6, line 93) with the rifles'
    # bugler (an extra D6, line 97), throws 14: the rifles' 6 loyal figures and line-coy's 8 at
    # 1 pt each (line 101) cost 14. The rifles are commanded already (the game file).
    player.select("line-1", "line-coy")
    player.unit_shows(commanded=False, casualties=1)
    refused = player.ask("shoot", "line-coy", "fusiliers")
    assert refused["allowed"] is False  # uncommanded: only at the nearest enemy (line 38)
    player.suggestion("command", "command", "hart")
    player.count("points", 14)
    player.flag("command_rifles", True)
    player.flag("command_line-coy", True)
    player.will_apply("line-coy commanded: no → yes")
    assert player.confirm() == ["line-coy commanded: no → yes"]
    player.unit_shows(commanded=True)
    # Commanded and loaded, all 8 figures fire, at any target (line 29).
    volley = player.ask("shoot", "line-coy", "fusiliers")
    assert volley["allowed"] is True and volley["shooters"]["fire"] == 8

    # ---- Turn 1, shoot-a (line 86): the rifles at the fusiliers behind wall-2.
    player.next_phase(1, "move-a")
    player.next_phase(1, "shoot-a")
    player.select("fusiliers-1", "fusiliers")
    player.unit_shows(casualties=1, wounded=1)
    # The fusiliers' risk (lines 117-128): regulars -1 (120), entirely in cover behind the wall
    # -1 (121), line-coy in sight within musket range +1 (123), raw in range +1 (124), 1 killed
    # and 1 wounded of 9 figures (8 on the table + 1 killed) = 22%: 2 x 10% +2 (125), price to
    # their flank +2 (127): RF 4.
    risk = player.ask("risk", "fusiliers")
    assert factors(risk) == [(-1, 120), (-1, 121), (1, 123), (1, 124), (2, 125), (2, 127)]
    assert (risk["risk_factor"], risk["row"]) == (4, "RF2-5")
    before_shot = player.state()
    # Rolled: 2 hits; damage D6s 5 and 3: a Kill and a Wound (gunpowder, line 48); the
    # killed figure is fusiliers-5 (hits randomised among the group, line 51).
    shot = (
        "fusiliers casualties: 1 → 2",
        "fusiliers wounded: 1 → 2",
        "fusiliers-5 removed: no → yes",  # one figure a base: taken off (line 53)
        "rifles fired: no → yes",  # fired this turn (line 24)
    )
    for again in (False, True):
        player.suggestion("shoot-a", "shoot", "rifles", "fusiliers")
        player.count("hits", 2)
        player.count("kills", 1)
        player.count("wounds", 1)
        player.bases("taken_off", "fusiliers-5")
        player.will_apply(*shot)
        assert player.confirm() == sorted(shot)
        player.unit_shows(casualties=2, wounded=2)
        page.wait_for_function(
            "() => !document.querySelector('#map g.base[data-base=\"fusiliers-5\"]')"
        )
        assert player.taken_off() == ["fusiliers-5"]
        after = player.state()
        assert after["removed"] == ["fusiliers-5"]
        assert after["units"]["fusiliers"]["casualties"] == 2
        assert after["units"]["fusiliers"]["wounded"] == 2
        assert after["units"]["rifles"]["fired"] is True
        assert after["undo"]["kind"] == "outcome" and len(after["undo"]["edits"]) == 4
        if again:
            break
        # One Undo takes the whole result back: every one of its four changes.
        player.undo()
        player.unit_shows(casualties=1, wounded=1)
        page.wait_for_selector('#map g.base[data-base="fusiliers-5"]')
        assert player.taken_off() == []
        undone = player.state()
        assert undone["units"] == before_shot["units"] and undone["removed"] == []
    # The next risk: 1 + 1 killed and 1 + 1 wounded of 9 = 44%: 4 x 10% (line 125): RF 6.
    risk = player.ask("risk", "fusiliers")
    assert factors(risk) == [(-1, 120), (-1, 121), (1, 123), (1, 124), (4, 125), (2, 127)]
    assert (risk["risk_factor"], risk["row"]) == (6, "RF6-8")

    # ---- Turn 1, actions-b (line 87): the fusiliers dice on the actions table.
    player.next_phase(1, "actions-b")
    player.suggestion("actions-b", "risk", "fusiliers")
    assert page.locator('#card select[data-report="row"]').input_value() == "RF6-8"
    player.count("face", 1)  # RF6-8, D6 1: "Run from nearest enemy" (line 153)
    player.will_apply("fusiliers status: steady → running")
    assert player.confirm() == ["fusiliers status: steady → running"]
    player.unit_shows(status="running")
    # Running from the enemy: +3 at the next risk (line 130): RF 9, the RF9+ row.
    risk = player.ask("risk", "fusiliers")
    assert (3, 130) in factors(risk)
    assert (risk["risk_factor"], risk["row"]) == (9, "RF9+")

    # ---- Turn 1, melee (line 89): the highlanders against the grenadiers, 3 figures each.
    player.next_phase(1, "shoot-b")
    player.next_phase(1, "melee")
    player.select("highlanders-1", "highlanders")
    player.unit_shows(wounded=0)
    assert player.ask("move", "highlanders")["allowance"] == {"value": 25.0, "unit": "cm"}
    # A grenadier won with a natural 5 (a wound), a highlander with a natural 6 (a kill:
    # grenadiers-3); the grenadiers had the worse results (lines 78, 80).
    player.suggestion("melee", "melee", "highlanders", "grenadiers")
    player.choose("worse", "grenadiers")
    player.count("killed_a", 0)
    player.count("wounded_a", 1)
    player.bases("taken_off_a")
    player.count("killed_b", 1)
    player.count("wounded_b", 0)
    player.bases("taken_off_b", "grenadiers-3")
    melee = (
        "highlanders wounded: 0 → 1",
        "grenadiers casualties: 0 → 1",
        "grenadiers-3 removed: no → yes",
        "grenadiers status: steady → retreating",  # moved back 5 cm (line 80)
    )
    player.will_apply(*melee)
    assert player.confirm() == sorted(melee)
    player.unit_shows(wounded=1)
    page.wait_for_function(
        "() => !document.querySelector('#map g.base[data-base=\"grenadiers-3\"]')"
    )
    assert player.taken_off() == ["fusiliers-5", "grenadiers-3"]
    # A wounded man moves 20 cm (line 107); the grenadiers' next risk: 1 killed of 3 = 33%:
    # +3 (line 125), and +3 retreating as a result of melee (line 130).
    assert player.ask("move", "highlanders")["allowance"] == {"value": 20.0, "unit": "cm"}
    risk = player.ask("risk", "grenadiers")
    assert {(3, 125), (3, 130)} <= set(factors(risk))

    # ---- Turn 2: the per-turn state starts afresh (line 84: command is diced each turn).
    player.next_phase(2, "command")
    player.select("line-1", "line-coy")
    player.unit_shows(commanded=False, casualties=1)
    state = player.state()
    assert state["units"]["rifles"]["fired"] is False
    assert state["units"]["fusiliers"]["status"] == "running"  # not per turn
    for phase in PHASES[1:4]:
        player.next_phase(2, phase)
    # The fusiliers, running, dice on RF9+ (RF 9, above): D6 6, "Halt in position facing the
    # nearest enemy" (line 154).
    player.select("fusiliers-1", "fusiliers")
    player.suggestion("actions-b", "risk", "fusiliers")
    assert page.locator('#card select[data-report="row"]').input_value() == "RF9+"
    player.count("face", 6)
    player.will_apply("fusiliers status: running → steady")
    assert player.confirm() == ["fusiliers status: running → steady"]
    player.unit_shows(status="steady", casualties=2, wounded=2)
    risk = player.ask("risk", "fusiliers")
    assert (3, 130) not in factors(risk) and risk["risk_factor"] == 6
    player.next_phase(2, "shoot-b")
    player.next_phase(2, "melee")

    # ---- Turn 3: the server stops mid-game and starts again on the same data folder.
    for phase in PHASES[:3]:
        player.next_phase(3, phase)
    held = player.state()
    served.restart()
    page.reload()
    player.ready()
    player.at(3, "shoot-a")
    resumed = player.state()
    assert (resumed["game"], resumed["resumed"], resumed["turn"], resumed["phase"]) == (
        1,
        True,
        3,
        "shoot-a",
    )
    assert resumed["units"] == held["units"]
    assert resumed["removed"] == ["fusiliers-5", "grenadiers-3"]
    assert player.taken_off() == ["fusiliers-5", "grenadiers-3"]
    assert not player.on_map("fusiliers-5") and not player.on_map("grenadiers-3")
    player.select("fusiliers-1", "fusiliers")
    player.unit_shows(casualties=2, wounded=2, status="steady")
    assert (4, 125) in factors(player.ask("risk", "fusiliers"))  # the next resolution too
    for phase in PHASES[3:]:
        player.next_phase(3, phase)
    player.next_phase(4, "command")  # three whole turns played

    # ---- End game: nothing changes it any more; New game: the game file's state again.
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator("#end-game").click()
    page.wait_for_function(
        "() => document.getElementById('game-msg').textContent === 'game 1 ended'"
    )
    page.wait_for_selector("#next-phase:disabled")  # the ended game has no next phase
    page.locator("#unit-fields .field[data-field='casualties'] .step.plus").click()
    page.wait_for_function(
        "text => document.getElementById('unit-msg').textContent === text",
        arg="game 1 has ended; start a new game to change anything",
    )
    assert player.state()["ended"] is True
    assert player.state()["units"]["fusiliers"]["casualties"] == 2
    page.locator("#new-game").click()
    page.wait_for_function(
        "() => document.getElementById('game-msg').textContent === 'game 2 started'"
    )
    player.at(1, "command")
    fresh = player.state()
    assert (fresh["game"], fresh["turn"], fresh["phase"], fresh["ended"]) == (
        2,
        1,
        "command",
        False,
    )
    assert fresh["removed"] == [] and fresh["undo"] is None
    game_file = tomllib.loads(DEMO_GAME.read_text(encoding="utf-8"))
    assert fresh["units"] == {
        u["id"]: {k: u[k] for k in fresh["units"][u["id"]]} for u in game_file["units"]
    }
    page.wait_for_selector('#map g.base[data-base="fusiliers-5"]')
    page.wait_for_selector('#map g.base[data-base="grenadiers-3"]')
    assert player.taken_off() == []
    player.unit_shows(casualties=1, wounded=1, status="steady")  # fusiliers, as set up
    assert page.locator("#unit-msg").inner_text() == ""  # the ended game's refusal is gone


def test_a_die_face_not_yet_reported_is_asked_for_before_anything_is_refused(
    page: Page, served: Served
) -> None:
    player = Player(page, served)
    player.ready()
    for phase in PHASES[1:4]:
        player.next_phase(1, phase)
    before = player.state()
    # The fusiliers dice on the actions table (line 87); their RF 4 (worked out in the three
    # turns above) picks the RF2-5 row (line 152). The D6 has no face until the players say
    # what it showed.
    player.suggestion("actions-b", "risk", "fusiliers")
    face = player.card.locator('output.count-value[data-report="face"]')
    assert face.inner_text() == "–"
    preview = player.card.locator(".preview")
    page.wait_for_function(
        "() => document.querySelector('#card .preview')?.textContent"
        " === 'say what the dice showed first: face'"
    )
    assert preview.locator(".error").count() == 0
    player.card.locator(".decide button.confirm").click()  # not sent: the form says why
    assert player.card.locator(".decide-msg").inner_text() == "say what the dice showed first: face"
    assert player.state()["units"] == before["units"]
    # The first + is a 1 (a D6 shows 1 to 6, line 150), and - goes no lower.
    player.card.locator('.report[data-report="face"] .step.plus').click()
    assert face.inner_text() == "1"
    player.card.locator('.report[data-report="face"] .step.minus').click()
    assert face.inner_text() == "1"
    # RF2-5, D6 1: "Withdraw towards cover further from enemy" (line 152).
    player.will_apply("fusiliers status: steady → falling-back")
    assert player.confirm() == ["fusiliers status: steady → falling-back"]
