"""`/show` (issue 15): the full-screen view for a show - the map, the last ruling in words, the
turn, phase and side, in text of at least 32 px at 1920x1080, updated by the server's push on a
Confirm (the same document, never reloaded). How soon is not asserted: a loaded machine would
fail a bound for nothing."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page

from .conftest import Served


def test_show_is_big_live_and_follows_a_confirm(
    browser: Browser, page: Page, served: Served, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    show = context.new_page()
    show.goto(served.url + "/show")
    show.wait_for_selector("#show-map svg g.base")
    show.wait_for_function(
        "() => /^Turn \\d+$/.test(document.getElementById('show-turn').textContent)"
    )
    assert show.inner_text("#show-phase").strip()
    assert show.inner_text("#show-side").strip()
    # Every piece of text at least 32 px (the map's own labels are drawing, not text to read).
    small = show.evaluate(
        """() => [...document.querySelectorAll('body *:not(svg):not(svg *)')]
            .filter(el => [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
            .map(el => [el.id || el.className || el.tagName,
                        parseFloat(getComputedStyle(el).fontSize)])
            .filter(([, size]) => size < 32)"""
    )
    assert small == [], small
    # Measured in the page in one go: the show puts a new map in place after every frame, and
    # a box asked for from outside can find the one it resolved already gone (None).
    the_map = show.evaluate(
        "() => { const r = document.querySelector('#show-map svg').getBoundingClientRect();"
        " return {width: r.width, y: r.y}; }"
    )
    assert the_map["width"] > 800 and the_map["y"] + 200 < 1080

    # A player confirms a result on the table page; the show says so in the same document.
    show.evaluate("() => { window.beforeTheConfirm = true; }")
    page.wait_for_selector("#map g.base")
    csrf = page.get_attribute('meta[name="csrf-token"]', "content")
    headers = {"X-CSRF-Token": csrf or "", "Origin": served.url}
    asked = page.request.post(
        served.url + "/api/resolve",
        headers=headers,
        data={"action": "measure", "args": ["rifles", "zouaves"]},
    )
    assert asked.ok, asked.text()
    confirmed = page.request.post(
        served.url + "/api/results",
        headers=headers,
        data={"resolution": asked.json()["log_id"], "decision": "confirm"},
    )
    assert confirmed.status == 201, confirmed.text()
    show.wait_for_function(
        "() => document.getElementById('show-ruling').textContent"
        ".startsWith('Confirmed: measure rifles zouaves')"
    )
    assert show.evaluate("() => window.beforeTheConfirm === true"), "/show was reloaded"
    show.screenshot(path=str(tmp_path / "show.png"))
    context.close()
