"""Words players use on the page (issue 15): for every kind of suggestion of every phase of
each ruleset's demo game, the page shows no sheet file name and no fraction of more than 6
digits; a citation reads as the sheet's title and line, its line quoted on hover or tap."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page

from rules.engine import ruleset_ids

from .conftest import Player, Served

HASH_NAME = re.compile(r"[0-9a-f]{16}\.txt")
FRACTION = re.compile(r"\b(\d+)/(\d+)\b")


@pytest.fixture(params=ruleset_ids())
def demo_options(request: pytest.FixtureRequest) -> dict[str, object]:
    return {"ruleset": request.param, "move_every": 0}


def check_words(page: Page, where: str) -> None:
    text = page.inner_text("body")
    assert not HASH_NAME.search(text), (where, HASH_NAME.search(text))
    long = [m.group() for m in FRACTION.finditer(text) if len(m[1]) + len(m[2]) > 6]
    assert long == [], (where, long)


def test_every_suggestion_reads_in_players_words(page: Page, served: Served) -> None:
    served.live.stop()
    player = Player(page, served)
    player.ready()
    game = player.state()
    cited = 0
    for phase in [p["name"] for p in game["phases"]]:
        page.locator(f'#phases button.phase[data-phase="{phase}"]').click()
        player.at(player.state()["turn"], phase)
        items = page.request.get(served.url + "/api/suggest", params={"phase": phase}).json()
        kinds: set[str] = set()
        for item in items["items"]:
            if item["kind"] in kinds:
                continue
            kinds.add(item["kind"])
            key = " ".join([item["kind"], *item["args"]])
            page.locator(f'#suggest button.suggestion[data-key="{key}"]').first.click()
            page.wait_for_function(
                "text => document.getElementById('question').textContent === text",
                arg=f"suggested: {' '.join([item['kind'], *item['args']])}",
            )
            page.locator("#card details.raw").first.wait_for(state="attached")
            check_words(page, f"{phase}: {item['kind']} {item['args']}")
            cited += page.locator("#card .source[title]").count()
        check_words(page, phase)
    assert cited > 0, "no citation with a quoted line on any card"
    # A citation: the sheet's title and line, the line itself on a tap.
    source = page.locator("#card .source[title], #phase-title [title]").first
    if source.count():
        assert re.search(r", line \d+", source.inner_text() + (source.get_attribute("title") or ""))
