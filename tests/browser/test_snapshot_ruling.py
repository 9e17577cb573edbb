"""Dispute snapshots draw the ruling (issue 15): the measured line between the pair the card
measured, its length, and the ruling in words on the picture itself."""

from __future__ import annotations

import cv2
import numpy as np
from playwright.sync_api import Page

from webui.ruling import LINE_BGR

from .conftest import Player, Served


def test_a_snapshot_draws_the_measured_line_its_length_and_the_ruling(
    page: Page, served: Served
) -> None:
    served.live.stop()
    player = Player(page, served)
    player.pair("rifles-1", "zouaves-1")
    page.wait_for_selector("#card .resolution .pair")
    card_pair = page.inner_text("#card .resolution .pair")
    card_length = page.inner_text("#card .resolution .distance")
    page.locator("#snap").click()
    page.wait_for_selector("#snapshots li.snapshot")
    ident = page.locator("#snapshots li.snapshot").first.get_attribute("data-id")
    record = page.request.get(f"{served.url}/snapshots/{ident}.json").json()
    drawn = record["drawn"]
    # The picture's line is the card's pair, its length the card's length.
    assert " and ".join(drawn["line"]) == card_pair
    assert drawn["length"] == card_length
    assert drawn["ruling"] and drawn["ruling"][0].startswith("rifles-1 shoots at zouaves-1")
    png = page.request.get(f"{served.url}/snapshots/{ident}.png").body()
    picture = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None
    (ax, ay), (bx, by) = drawn["line_pixels"]
    mid = picture[(ay + by) // 2 - 1 : (ay + by) // 2 + 2, (ax + bx) // 2 - 1 : (ax + bx) // 2 + 2]
    assert np.abs(mid.reshape(-1, 3).astype(int) - np.array(LINE_BGR)).sum(axis=1).min() < 60
    # The ruling's banner: a dark band at the foot with light text on it.
    banner = picture[drawn["banner_top"] :]
    assert banner.mean() < 90 and banner.max() > 200
