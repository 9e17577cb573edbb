"""The table page of a server that listens beyond its own machine (an access code is set), in
headless Chromium: the operator's page carries the code and its QR code, a spectator's page is
view only until the code is typed or comes in a link, and every change the page sends carries
the CSRF token and the code. The confirm and override buttons of a resolution card record what
the table agreed in the game log.

The browser runs on the server's machine, so to be a spectator it is handed the page the server
gives a client from another address (rendered by the same app for REMOTE_ADDR 192.168.1.20).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, Request, Route

from .conftest import Served
from .test_page import SHOOTER, TARGET, map_ready, pick_pair

CODE = "2468-1357"
TOKEN = "browser-test-token"
SPECTATOR = {"REMOTE_ADDR": "192.168.1.20"}


@pytest.fixture
def server_config() -> dict[str, object]:
    return {"ACCESS_CODE": CODE, "CSRF_TOKEN": TOKEN}


def changes(page: Page) -> list[Request]:
    """Every state-changing request the page sends from now on."""
    sent: list[Request] = []
    page.on("request", lambda r: sent.append(r) if r.method != "GET" else None)
    return sent


def as_spectator(page: Page, served: Served, path: str = "/") -> None:
    """Load the page as the server renders it for another machine on the network."""
    spectator_page = served.app.test_client().get("/", environ_base=SPECTATOR)
    assert spectator_page.status_code == 200
    html = spectator_page.get_data(as_text=True)
    assert CODE not in html and 'name="csrf-token"' in html

    def fulfil(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html)

    page.route(re.compile(rf"^{re.escape(served.url)}/(\?.*)?$"), fulfil)
    page.goto(served.url + path)
    map_ready(page)


def carries_token_and_code(request: Request) -> None:
    headers = request.all_headers()
    assert headers.get("x-csrf-token") == TOKEN, (request.url, headers)
    assert headers.get("x-access-code") == CODE, (request.url, headers)


def test_the_operators_page_shows_the_code_and_its_qr_and_sends_both(
    page: Page, served: Served
) -> None:
    map_ready(page)
    assert page.locator("#view-only").is_hidden()
    local = page.locator("#local-code")
    assert local.locator("#local-code-text").inner_text() == CODE
    local.locator("summary").click()
    page.wait_for_function(
        "() => document.getElementById('access-qr').complete"
        " && document.getElementById('access-qr').naturalWidth > 0"
    )
    assert page.locator(".join-url").inner_text() == f"{served.url}/?code={CODE}"
    local.locator("summary").click()  # folded away again: the QR code covers the phases
    sent = changes(page)
    page.wait_for_selector('#phases button[data-phase="shoot-a"]:not([disabled])')
    page.locator('#phases button[data-phase="shoot-a"]').click()
    page.wait_for_selector('#phases button.current[data-phase="shoot-a"]')
    assert [r.url for r in sent] == [served.url + "/api/phase"]
    carries_token_and_code(sent[0])
    assert served.live.status()["phase"] == "shoot-a"


def test_a_spectator_is_view_only_until_the_right_code_is_typed(page: Page, served: Served) -> None:
    as_spectator(page, served)
    assert page.locator("#view-only").is_visible()
    assert page.locator("#local-code").count() == 0  # the code is not in a spectator's page
    assert page.locator("#snap").is_disabled()
    page.wait_for_selector("#phases button.phase")
    assert all(b.is_disabled() for b in page.locator("#phases button.phase").all())

    page.locator("#code-open").click()
    page.locator("#code-input").fill("1111-2222")
    page.locator("#code-use").click()
    page.wait_for_function(
        "() => document.getElementById('code-msg').textContent === 'that is not the access code'"
    )
    assert page.locator("#snap").is_disabled() and page.locator("#view-only").is_visible()

    sent = changes(page)
    page.locator("#code-input").fill("2468 1357")  # read aloud with a pause: the same code
    page.locator("#code-use").click()
    page.wait_for_selector("#view-only", state="hidden")
    assert page.locator("#code-form").is_hidden()
    page.locator("#snap").click()
    page.wait_for_selector("#snapshots li.snapshot")
    assert [r.url.removeprefix(served.url) for r in sent] == ["/api/access-check", "/api/snapshot"]
    assert sent[1].all_headers()["x-access-code"] == "2468 1357"
    assert sent[1].all_headers()["x-csrf-token"] == TOKEN


def test_a_link_with_the_code_unlocks_the_page_and_leaves_the_address_bar(
    page: Page, served: Served
) -> None:
    as_spectator(page, served, f"/?code={CODE}")
    page.wait_for_selector("#view-only", state="hidden")
    assert page.url == served.url + "/"
    assert page.evaluate("sessionStorage.getItem('umpire-access-code')") == CODE
    assert page.locator("#snap").is_enabled()


def test_a_refusal_for_the_code_asks_for_it_again(page: Page, served: Served) -> None:
    as_spectator(page, served)
    # A code kept from before the server restarted with a new one.
    page.evaluate("sessionStorage.setItem('umpire-access-code', '9999-9999')")
    page.reload()
    map_ready(page)
    assert page.locator("#snap").is_enabled()  # the page believes its stored code
    page.locator("#snap").click()
    page.wait_for_selector("#code-form:not([hidden])")
    assert "needs the access code" in page.locator("#code-msg").inner_text()
    assert page.locator("#view-only").is_visible() and page.locator("#snap").is_disabled()
    assert page.evaluate("sessionStorage.getItem('umpire-access-code')") is None


def decision_row(page: Page) -> Any:
    page.wait_for_selector("#card .resolution .decide button.confirm")
    return page.locator("#card .resolution .decide")


def results(served: Served) -> list[dict[str, Any]]:
    log = served.app.test_client().get("/api/log").get_json()
    found: list[dict[str, Any]] = log["results"]
    return found


def test_confirm_records_the_answer_shown_and_says_so_on_the_card(
    page: Page, served: Served
) -> None:
    map_ready(page)
    served.live.stop()  # hold the scene: the card (and its log_id) stays the one clicked
    pick_pair(page, SHOOTER, TARGET)
    row = decision_row(page)
    log_id = int(row.get_attribute("data-log-id") or "")
    sent = changes(page)
    # The card asks what the dice showed (a shot: hits, kills and wounds, the figures taken
    # off); Confirm sends those values with the decision.
    page.wait_for_selector("#card .report-form .report")
    page.wait_for_selector("#card .preview .will-apply, #card .preview p")
    row.locator("button.confirm").click()
    page.wait_for_selector("#card .decided.confirm")
    assert page.locator("#card .decided").inner_text() == "confirmed ✓"
    sent = [r for r in sent if r.url == served.url + "/api/results"]
    assert len(sent) == 1
    carries_token_and_code(sent[0])
    body = sent[0].post_data_json
    assert isinstance(body, dict)
    assert (body["resolution"], body["decision"]) == (log_id, "confirm")
    assert set(body["result"]) == {"hits", "kills", "wounds", "taken_off"}
    newest = results(served)[0]
    assert newest["resolution"] == log_id and newest["decision"] == "confirm"


def test_override_asks_for_a_note_inline_and_records_it(page: Page, served: Served) -> None:
    map_ready(page)
    served.live.stop()
    pick_pair(page, SHOOTER, TARGET)
    row = decision_row(page)
    log_id = int(row.get_attribute("data-log-id") or "")
    row.locator("button.override").click()
    note = page.locator("#card .override-note")
    note.fill("rifles were in the wood: long range")
    sent = changes(page)
    page.locator("#card .save-override").click()
    page.wait_for_selector("#card .decided.override")
    assert page.locator("#card .decided").inner_text().startswith("overridden")
    body = next(r for r in sent if r.url.endswith("/api/results")).post_data_json
    assert isinstance(body, dict)
    assert {k: body[k] for k in ("resolution", "decision", "note")} == {
        "resolution": log_id,
        "decision": "override",
        "note": "rifles were in the wood: long range",
    }
    newest = results(served)[0]
    assert newest["resolution"] == log_id and newest["decision"] == "override"


def test_a_spectator_sees_the_card_but_cannot_confirm(page: Page, served: Served) -> None:
    # A spectator's questions are answered but not written to the game log (they carry no
    # log_id), so the card comes without the Confirm and Override buttons.
    as_spectator(page, served)
    pick_pair(page, SHOOTER, TARGET)
    page.wait_for_selector("#card .resolution")
    assert page.locator("#card .resolution").inner_text()
    assert page.locator("#card .resolution .decide button").count() == 0
    assert results(served) == []
