"""A real browser plays the sepoys-and-soldiers demo game (Delhi Ridge, 1857:
vision/demo_game/sepoys-and-soldiers.toml) on the page, as a player does: Next phase through the
sequence of play, a suggestion clicked, what the dice showed set in the card's form, Confirm and
apply.

Every expected value is worked out by hand from the sheet (rules/sheets/001_14e3e4b7ab0503f1.txt,
its line in the comment) and the game file, never copied from the code's answers. The demo's
camera holds every unit still (`move_every` 0, no hand), so the table stays as laid out; what
changes is the game's state.
"""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from playwright.sync_api import Page

from .conftest import ROOT, Player, Served

DEMO_GAME = ROOT / "vision" / "demo_game" / "sepoys-and-soldiers.toml"
PHASES = ("orders", "rally", "charge", "move", "fire", "combat")
"""The sheet prints no sequence of play; the ruleset follows its own order: changing orders
(lines 17-20), rally and reform (line 21), charge (79), move (21), fire (65), charge combat (86)."""


@pytest.fixture
def demo_options() -> dict[str, object]:
    return {"ruleset": "sepoys-and-soldiers", "move_every": 0, "hand_every": 0}


def suggested(player: Player, phase: str) -> list[tuple[str, list[str]]]:
    """What the page's suggest list holds for a phase, as (kind, args)."""
    items = player.page.request.get(
        player.served.url + "/api/suggest", params={"phase": phase}
    ).json()["items"]
    return [(i["kind"], i["args"]) for i in items]


def form_label(answer: dict[str, Any], name: str) -> str:
    label: str = next(r["label"] for r in answer["report_form"] if r["name"] == name)
    return label


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


def test_three_turns_of_the_demo_game(page: Page, served: Served) -> None:
    player = Player(page, served)
    player.ready()
    player.at(1, "orders")
    first = player.state()
    assert (first["game"], first["turn"], first["phase"]) == (1, 1, "orders")

    # ---- Turn 1, orders: the rissaldar (dull: 4+, 1 order a turn, line 14), in base contact
    # behind the 54th BNI (line 17), gives them aggressive orders and rolls a 4: equal to his
    # quality, they act on it this turn (lines 19-20).
    slow = player.ask("shoot", "54th-bni", "hm-61st")
    # Active firing at aggressive at long range: 6 (line 69), each of the 4 bases a die (65).
    assert (slow["band"], slow["rolls"][0]["dice"], slow["rolls"][0]["need"]) == ("long", 4, 6)
    player.select("54th-bni-1", "54th-bni")
    player.unit_shows(orders="active")
    player.suggestion("orders", "command", "rissaldar", "54th-bni")
    player.choose("order", "aggressive")
    player.flag("this_turn", True)
    orders = ("54th-bni orders: active → aggressive", "rissaldar orders given: 0 → 1")
    player.will_apply(*orders)
    assert player.confirm() == sorted(orders)
    player.unit_shows(orders="aggressive")
    fast = player.ask("shoot", "54th-bni", "hm-61st")
    assert fast["rolls"][0]["need"] == 5  # aggressive at aggressive, long: 5+ (line 68)
    assert player.ask("command", "rissaldar", "54th-bni")["allowed"] is False  # 1 a turn

    # ---- Turn 1, rally: the routed 20th BNI must attempt to rally (line 21); active and
    # disordered, it tests one quality less (line 43): passive, 1d6, 4+ to pass (line 21).
    player.next_phase(1, "rally")
    rally = player.ask("nerve", "20th-bni")
    assert (rally["dice"], rally["p_pass"]["exact"]) == (1, "1/2")
    assert player.ask("command", "bakht-khan", "20th-bni")["allowed"] is True
    player.select("20th-bni-1", "20th-bni")
    player.unit_shows(status="routed", disordered=True, hits=2, acted=False)
    player.suggestion("rally", "nerve", "20th-bni")
    player.flag("passed", True)
    # Bakht Khan, in base contact, rolls for his risk (line 11): hit on a 1 (dithering, line
    # 15), then a 4: his horse is killed (line 14).
    player.choose("risk_bakht-khan", "horse-killed")
    rallied = (
        "20th-bni status: routed → steady",  # a rally passed ends the rout
        "20th-bni acted: no → yes",  # its ONE action this turn (line 21)
        "bakht-khan hurt: unhurt → horse-killed",
    )
    player.will_apply(*rallied)
    assert player.confirm() == sorted(rallied)
    player.unit_shows(status="steady", disordered=True, acted=True)
    # "no action this turn / next" (line 14): he may not change orders.
    assert player.ask("command", "bakht-khan", "20th-bni")["allowed"] is False

    # ---- Turn 1, charge: the 9th Lancers charge the irregular horse, which fail their nerve
    # and rout back a full move (lines 25, 82), disordered while routing (line 44).
    player.next_phase(1, "charge")
    player.select("irregular-horse-1", "irregular-horse")
    player.unit_shows(status="falling-back", disordered=False)
    player.suggestion("charge", "charge", "9th-lancers", "irregular-horse")
    player.choose("result", "target-routs")
    charged = (
        "irregular-horse status: falling-back → routed",
        "irregular-horse disordered: no → yes",
        "9th-lancers acted: no → yes",
    )
    player.will_apply(*charged)
    assert player.confirm() == sorted(charged)
    player.unit_shows(status="routed", disordered=True)
    # A routed unit must attempt to rally (line 21): it may not charge, and the rally step
    # asks for its attempt.
    assert player.ask("charge", "irregular-horse", "9th-lancers")["allowed"] is False
    assert ("nerve", ["irregular-horse"]) in suggested(player, "rally")

    # ---- Turn 1, move: the matchlockmen move in the mango grove: 4" and disordered (line 50).
    player.next_phase(1, "move")
    assert player.ask("nerve", "matchlockmen")["dice"] == 2  # active: 2d6 (line 21)
    player.suggestion("move", "move", "matchlockmen")
    assert page.locator("#card .report-form").count() == 0  # no dice to report
    moved = (
        "matchlockmen moved: no → yes",
        "matchlockmen acted: no → yes",
        "matchlockmen disordered: no → yes",
    )
    assert player.confirm() == sorted(moved)
    # Disordered: one unit quality less for nerve (line 43): passive, 1d6.
    assert player.ask("nerve", "matchlockmen")["dice"] == 1

    # ---- Turn 1, fire: HM 61st at the 11th BNI in contact with it: short range (4", line 66),
    # aggressive at active 3+ (line 68), each of its 4 bases a d6 (line 65). Two succeed:
    # 2 x 2 hits = 4 (line 65) on a unit carrying none: a base off (3 hits, line 3), 1 carried.
    player.next_phase(1, "fire")
    player.select("11th-bni-1", "11th-bni")
    player.unit_shows(hits=0)
    before_fire = player.state()
    fire = (
        "11th-bni-4 removed: no → yes",
        "11th-bni hits: 0 → 1",
        "hm-61st acted: no → yes",
    )
    for again in (False, True):
        player.suggestion("fire", "shoot", "hm-61st", "11th-bni")
        player.count("successes", 2)
        player.bases("removed_11th-bni", "11th-bni-4")
        player.will_apply(*fire)
        assert player.confirm() == sorted(fire)
        player.unit_shows(hits=1)
        page.wait_for_function(
            "() => !document.querySelector('#map g.base[data-base=\"11th-bni-4\"]')"
        )
        assert player.taken_off() == ["11th-bni-4"]
        state = player.state()
        assert state["removed"] == ["11th-bni-4"] and state["units"]["11th-bni"]["hits"] == 1
        assert state["units"]["hm-61st"]["acted"] is True
        assert state["undo"]["kind"] == "outcome" and len(state["undo"]["edits"]) == 3
        if again:
            break
        # One Undo takes the whole result back: its three changes together.
        player.undo()
        player.unit_shows(hits=0)
        page.wait_for_selector('#map g.base[data-base="11th-bni-4"]')
        assert player.taken_off() == []
        undone = player.state()
        assert undone["units"] == before_fire["units"] and undone["removed"] == []
    # The 61st has taken its one action (line 21): no second volley this turn.
    assert player.ask("shoot", "hm-61st", "11th-bni")["allowed"] is False

    # ---- Turn 1, combat: the 61st (carrying 1 hit, the game file) and the 11th (1, above).
    # No drawn round; the 61st alone passes: it takes 1 hit, the 11th 2 (line 91): 61st 1 + 1
    # = 2, no base; 11th 1 + 2 = 3: a base off (line 3), none carried. The 11th routs (line
    # 90); both are disordered (line 43).
    player.next_phase(1, "combat")
    combat = player.ask("melee", "hm-61st", "11th-bni")
    assert "counting the 1 it carries" in form_label(combat, "removed_11th-bni")
    player.suggestion("combat", "melee", "hm-61st", "11th-bni")
    player.count("drawn_rounds", 0)
    player.choose("winner", "hm-61st")
    player.bases("removed_hm-61st")
    player.bases("removed_11th-bni", "11th-bni-3")
    melee = (
        "hm-61st hits: 1 → 2",
        "hm-61st disordered: no → yes",
        "11th-bni-3 removed: no → yes",
        "11th-bni hits: 1 → 0",
        "11th-bni status: steady → routed",
        "11th-bni disordered: no → yes",
    )
    player.will_apply(*melee)
    assert player.confirm() == sorted(melee)
    player.unit_shows(hits=0, status="routed", disordered=True)
    page.wait_for_function("() => !document.querySelector('#map g.base[data-base=\"11th-bni-3\"]')")
    assert player.taken_off() == ["11th-bni-3", "11th-bni-4"]
    # A routed unit must attempt to rally, not charge (line 21); disordered, the 11th (active)
    # tests its nerve as passive: 1d6 (line 43).
    assert player.ask("charge", "11th-bni", "hm-61st")["allowed"] is False
    assert player.ask("nerve", "11th-bni")["dice"] == 1

    # ---- Turn 2: the per-turn state starts afresh: the rissaldar may give an order again
    # (line 14: 1 a turn) and every unit may act (line 21: ONE action a turn).
    player.next_phase(2, "orders")
    player.select("rissaldar-1", "rissaldar")
    player.unit_shows(orders_given=0, hurt="unhurt")
    state = player.state()
    assert not any(u.get("acted") or u.get("moved") for u in state["units"].values())
    assert state["units"]["54th-bni"]["orders"] == "aggressive"  # not per turn
    assert state["units"]["bakht-khan"]["hurt"] == "horse-killed"  # until the players clear it
    assert player.ask("command", "rissaldar", "54th-bni")["allowed"] is True
    # The rally step asks every routed unit to rally and every disordered one to reform (21).
    player.next_phase(2, "rally")
    rally_step = suggested(player, "rally")
    for wanted in (
        ("nerve", ["11th-bni"]),
        ("nerve", ["irregular-horse"]),
        ("nerve", ["hm-61st", "attempt-to-reform"]),
        ("nerve", ["20th-bni", "attempt-to-reform"]),
        ("nerve", ["matchlockmen", "attempt-to-reform"]),
    ):
        assert wanted in rally_step, (wanted, rally_step)
    # The 61st, disordered, tests as active: 2d6 (lines 21, 43); passing, it reforms (line 41)
    # and tests as aggressive again: 3d6. Nicholson, in contact, is not hit (line 11).
    assert player.ask("nerve", "hm-61st", "attempt-to-reform")["dice"] == 2
    player.select("hm-61st-1", "hm-61st")
    player.suggestion("rally", "nerve", "hm-61st", "attempt-to-reform")
    player.flag("passed", True)
    player.choose("risk_nicholson", "not-hit")
    reformed = ("hm-61st disordered: yes → no", "hm-61st acted: no → yes")
    player.will_apply(*reformed)
    assert player.confirm() == sorted(reformed)
    player.unit_shows(disordered=False, hits=2)
    assert player.ask("nerve", "hm-61st", "loss-of-a-base")["dice"] == 3
    for phase in PHASES[2:]:
        player.next_phase(2, phase)

    # ---- Turn 3: the server stops mid-game and starts again on the same data folder.
    for phase in PHASES[:3]:
        player.next_phase(3, phase)
    held = player.state()
    served.restart()
    page.reload()
    player.ready()
    player.at(3, "charge")
    resumed = player.state()
    assert (resumed["game"], resumed["resumed"], resumed["turn"], resumed["phase"]) == (
        1,
        True,
        3,
        "charge",
    )
    assert resumed["units"] == held["units"]
    assert resumed["removed"] == ["11th-bni-3", "11th-bni-4"]
    assert player.taken_off() == ["11th-bni-3", "11th-bni-4"]
    assert not player.on_map("11th-bni-3") and not player.on_map("11th-bni-4")
    player.select("hm-61st-1", "hm-61st")
    player.unit_shows(hits=2, disordered=False)
    assert player.ask("charge", "11th-bni", "hm-61st")["allowed"] is False  # still routed
    for phase in PHASES[3:]:
        player.next_phase(3, phase)
    player.next_phase(4, "orders")  # three whole turns played

    # ---- End game: nothing changes it any more; New game: the game file's state again.
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator("#end-game").click()
    page.wait_for_function(
        "() => document.getElementById('game-msg').textContent === 'game 1 ended'"
    )
    page.wait_for_selector("#next-phase:disabled")  # the ended game has no next phase
    page.locator("#unit-fields .field[data-field='hits'] .step.plus").click()
    page.wait_for_function(
        "text => document.getElementById('unit-msg').textContent === text",
        arg="game 1 has ended; start a new game to change anything",
    )
    ended = player.state()
    assert ended["ended"] is True and ended["units"]["hm-61st"]["hits"] == 2
    page.locator("#new-game").click()
    page.wait_for_function(
        "() => document.getElementById('game-msg').textContent === 'game 2 started'"
    )
    player.at(1, "orders")
    fresh = player.state()
    assert (fresh["game"], fresh["turn"], fresh["phase"], fresh["ended"]) == (
        2,
        1,
        "orders",
        False,
    )
    assert fresh["removed"] == [] and fresh["undo"] is None
    assert fresh["units"] == first["units"]
    game_file = tomllib.loads(DEMO_GAME.read_text(encoding="utf-8"))
    for unit in game_file["units"]:
        given = {k: v for k, v in unit.items() if k in fresh["fields"]}
        assert {k: fresh["units"][unit["id"]][k] for k in given} == given, unit["id"]
    page.wait_for_selector('#map g.base[data-base="11th-bni-3"]')
    page.wait_for_selector('#map g.base[data-base="11th-bni-4"]')
    assert player.taken_off() == []
    player.unit_shows(hits=1, disordered=False)  # hm-61st as the game file sets it up
    assert page.locator("#unit-msg").inner_text() == ""  # the ended game's refusal is gone
