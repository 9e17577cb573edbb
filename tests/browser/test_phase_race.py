"""A status made before the page's own phase change must not take the page back to the phase
before: the events stream and the API's answer travel apart, and a quick "Next phase" would
then step from the old phase again (found when a whole-game test timed out on a fresh clone).

The page's event stream is replaced (Playwright's routing) by one that says, again and again,
the status as it was before any change: the staleness made certain instead of left to timing.
"""

from __future__ import annotations

import json

from playwright.sync_api import Page, Route

from .conftest import Player, Served


def test_next_phase_twice_steps_twice_whatever_stale_status_arrives(
    page: Page, served: Served
) -> None:
    player = Player(page, served)
    before = page.request.get(served.url + "/api/status").json()
    phases = before["phases"]
    assert before["phase"] == phases[0]
    said = json.dumps({"frame": before["frame"], "status": before, "view": None})
    stale = f"retry: 100\nevent: status\ndata: {said}\n\n"

    def stale_events(route: Route) -> None:
        # The stream ends after one stale status; the page reconnects within 100 ms and gets
        # it again: a status from before the change, arriving after it, over and over.
        route.fulfill(status=200, content_type="text/event-stream", body=stale)

    page.route("**/events", stale_events)
    page.goto(served.url)
    player.ready()
    page.locator("#next-phase").click()
    page.wait_for_function(
        "phase => document.querySelector('#phases button.phase.current')?.dataset.phase === phase",
        arg=phases[1],
    )
    page.wait_for_timeout(300)  # stale statuses arrive meanwhile
    page.locator("#next-phase").click()
    page.wait_for_function(
        "phase => document.querySelector('#phases button.phase.current')?.dataset.phase === phase",
        arg=phases[2],
    )
    assert player.state()["phase"] == phases[2]  # stepped twice, not twice to the second phase
