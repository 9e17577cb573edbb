"""One answer per question (issue 15): for every pair of bases clicked, the measurement, the
answer card, the map's measuring line and the line the page draws over the live view name the
same two bases and the same length; a
suggestion clicked moves the map's highlight and line to its own pair; the range row says
what it compares."""

from __future__ import annotations

import re

from playwright.sync_api import Page

from .conftest import Player, Served

PAIRS = [
    ("rifles-1", "zouaves-1"),
    ("rifles-2", "zouaves-3"),
    ("hussars-1", "rifles-3"),
    ("zouaves-2", "hart"),
]


def shown(page: Page) -> dict[str, object]:
    """What the measurement, the card and the map say about the pair, read off the page."""
    found: dict[str, object] = page.evaluate(
        """() => {
            const text = (sel) => document.querySelector(sel)?.textContent ?? null;
            const line = document.querySelector('#map g.measure');
            const view = document.querySelector('#live-overlay g.measure');
            return {
                measurePair: text('#measure .pair'),
                measureLength: text('#measure .distance'),
                cardPair: text('#card .resolution .pair'),
                cardLength: text('#card .resolution .distance'),
                mapPair: line ? `${line.dataset.a} and ${line.dataset.b}` : null,
                mapLength: line ? line.querySelector('text').textContent : null,
                viewPair: view ? `${view.dataset.a} and ${view.dataset.b}` : null,
                viewLength: view ? view.querySelector('text.length')?.textContent : null,
                viewLabel: view ? view.dataset.label : null,
            };
        }"""
    )
    return found


def test_card_map_and_measurement_agree_for_every_clicked_pair(page: Page, served: Served) -> None:
    served.live.stop()  # hold the scene: the three must agree on one scene, not two frames
    player = Player(page, served)
    page.wait_for_selector("#map g.base[data-base]")
    for first, second in PAIRS:
        player.pair(first, second)
        page.wait_for_selector("#card .resolution .pair")
        page.wait_for_function(
            """() => {
                const line = document.querySelector('#map g.measure');
                const view = document.querySelector('#live-overlay g.measure');
                const pair = document.querySelector('#card .resolution .pair')?.textContent;
                return line && pair === `${line.dataset.a} and ${line.dataset.b}`
                    && view && pair === `${view.dataset.a} and ${view.dataset.b}`
                    && document.querySelector('#measure .pair')?.textContent === pair;
            }""",
            timeout=10_000,
        )
        got = shown(page)
        assert got["measurePair"] == got["cardPair"] == got["mapPair"] == got["viewPair"], (
            first,
            second,
            got,
        )
        assert (
            got["measureLength"]
            == got["cardLength"]
            == got["mapLength"]
            == got["viewLength"]
            == got["viewLabel"]
        ), (first, second, got)
        assert re.fullmatch(r"\d+\.\d cm", str(got["cardLength"])), got


def test_a_range_row_says_what_it_compares(page: Page, served: Served) -> None:
    served.live.stop()
    player = Player(page, served)
    page.wait_for_selector("#map g.base[data-base]")
    player.pair("rifles-1", "zouaves-1")
    row = page.locator("#card .thresholds .threshold .what").first
    row.wait_for()
    assert re.fullmatch(r"range \d+\.\d cm: \w+ band, \d+\.\d-\d+\.\d cm", row.inner_text()), (
        row.inner_text()
    )


def test_a_clicked_suggestion_moves_the_map_highlight(page: Page, served: Served) -> None:
    served.live.stop()
    player = Player(page, served)
    player.ready()
    player.pair("hussars-1", "rifles-3")
    phases = [p["name"] for p in player.state()["phases"]]
    shot = None
    for phase in phases:  # the first phase with an item measured between two bases
        items = page.request.get(served.url + "/api/suggest", params={"phase": phase}).json()
        found = [i for i in items["items"] if len((i.get("result") or {}).get("between") or ()) > 1]
        if found:
            shot = found[0]
            player.page.locator(f'#phases button.phase[data-phase="{phase}"]').click()
            player.at(player.state()["turn"], phase)
            break
    assert shot is not None
    pair = list(shot["result"]["between"].values())[:2]
    key = " ".join([shot["kind"], *shot["args"]])
    page.locator(f'#suggest button.suggestion[data-key="{key}"]').first.click()
    page.wait_for_function(
        """pair => {
            const line = document.querySelector('#map g.measure');
            return line && line.dataset.a === pair[0] && line.dataset.b === pair[1];
        }""",
        arg=pair,
    )
    selected = page.eval_on_selector_all(
        "#map g.base.selected", "gs => [...new Set(gs.map(g => g.dataset.unit))]"
    )
    assert len(selected) == 1
    first = shot["args"][0]
    unit_of_first = page.evaluate(
        "id => document.querySelector(`#map g.base[data-base='${id}']`)?.dataset.unit ?? id", first
    )
    assert selected[0] == unit_of_first
