"""The map for fingers (issue 15): zoom and pan, a tap picks the nearest base within 44 px,
labels that do not overlap, range rings only for the selected unit labelled with their band
in the page's unit, the main flow fitting 1366x768, a phone layout at 390x844."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from .conftest import Player, Served


def open_page(browser: Browser, served: Served, width: int, height: int, **extra: object) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height}, **extra)  # type: ignore[arg-type]
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(served.url + "/")
    page.wait_for_selector("#map g.base[data-base] .footprint")
    return page


@pytest.fixture
def phone(browser: Browser, served: Served, tmp_path: Path) -> Iterator[Page]:
    page = open_page(browser, served, 390, 844, has_touch=True, is_mobile=True)
    yield page
    page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    page.context.close()


@pytest.fixture
def laptop(browser: Browser, served: Served, tmp_path: Path) -> Iterator[Page]:
    page = open_page(browser, served, 1366, 768)
    yield page
    page.screenshot(path=str(tmp_path / "laptop.png"))
    page.context.close()


NEAR_SPOT = """reach => {
    // A spot `reach` px beside a base (left, right, above or below) whose nearest footprint
    // is that base: where a finger lands a little off.
    const shapes = [...document.querySelectorAll('#map g.base[data-base] .footprint')];
    const gap = (box, x, y) => Math.hypot(Math.max(box.left - x, 0, x - box.right),
                                          Math.max(box.top - y, 0, y - box.bottom));
    for (const shape of shapes) {
        const box = shape.getBoundingClientRect();
        const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
        for (const [x, y] of [[box.left - reach, cy], [box.right + reach, cy],
                              [cx, box.top - reach], [cx, box.bottom + reach]]) {
            if (x < 5 || y < 5 || x > innerWidth - 5 || y > innerHeight - 5) continue;
            const under = document.elementFromPoint(x, y);
            if (!under || !document.getElementById('map').contains(under)) continue;
            if (under.closest('g.base')) continue;
            const mine = gap(box, x, y);
            const others = shapes.filter(s => s !== shape)
                .map(s => gap(s.getBoundingClientRect(), x, y));
            if (others.every(d => d > mine + 4)) {
                return {base: shape.closest('g.base').dataset.base, x, y};
            }
        }
    }
    return null;
}"""


def test_a_tap_within_44_px_picks_the_nearest_base_on_a_phone(phone: Page, served: Served) -> None:
    served.live.stop()
    phone.eval_on_selector("#map", "m => m.scrollIntoView({block: 'center'})")
    spot = phone.evaluate(NEAR_SPOT, 30)
    assert spot is not None, "no base with a free spot 30 px beside it"
    phone.touchscreen.tap(spot["x"], spot["y"])
    phone.wait_for_function(
        "b => document.getElementById('pick').textContent.startsWith(`${b} selected`)",
        arg=spot["base"],
    )
    # Bases are big enough to aim at: the map fills the phone's width.
    phone.wait_for_function(
        "() => document.querySelector('#map svg')?.getBoundingClientRect().width >= 330"
    )


def test_the_main_flow_fits_1366x768(laptop: Page, served: Served) -> None:
    served.live.stop()
    player = Player(laptop, served)
    player.pair("rifles-1", "zouaves-1")
    confirm = laptop.locator("#card .decide button.confirm")
    confirm.wait_for()
    laptop.wait_for_timeout(300)
    box = confirm.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 768, box
    assert confirm.is_visible()
    the_map = laptop.locator("#map svg").bounding_box()
    assert the_map is not None and the_map["y"] >= 0 and the_map["y"] + 40 <= 768, the_map
    scroll = laptop.evaluate("() => document.scrollingElement.scrollHeight - innerHeight")
    assert scroll <= 0, f"the page scrolls by {scroll} px"


def test_labels_do_not_overlap_at_default_zoom(page: Page, served: Served) -> None:
    served.live.stop()
    page.wait_for_selector("#map g.base text.label")
    page.wait_for_timeout(300)
    overlaps = page.evaluate(
        """() => {
            const boxes = [...document.querySelectorAll('#map g.base text.label')]
                .map(t => [t.textContent, t.getBoundingClientRect()]);
            const out = [];
            for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
                const [na, a] = boxes[i], [nb, b] = boxes[j];
                if (a.left < b.right - 0.5 && b.left < a.right - 0.5
                    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) out.push([na, nb]);
            }
            return out;
        }"""
    )
    assert overlaps == []


def test_zoom_and_pan_with_buttons_and_wheel(page: Page, served: Served) -> None:
    served.live.stop()
    page.wait_for_selector("#map svg")
    page.locator("#zoom-in").click()
    page.wait_for_function("() => Number(document.getElementById('map').dataset.zoom) > 1.4")
    box = page.locator("#map svg").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -300)
    page.wait_for_function("() => Number(document.getElementById('map').dataset.zoom) > 2")
    before = page.eval_on_selector("#map svg", "s => s.getAttribute('viewBox')")
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 80, y + 40, steps=8)
    page.mouse.up()
    after = page.eval_on_selector("#map svg", "s => s.getAttribute('viewBox')")
    assert after != before  # panned
    page.locator("#zoom-reset").click()
    page.wait_for_function("() => Number(document.getElementById('map').dataset.zoom) === 1")


def test_range_rings_only_for_the_selected_unit_labelled_in_the_page_unit(
    page: Page, served: Served
) -> None:
    served.live.stop()
    player = Player(page, served)
    page.wait_for_selector("#map g.base")
    assert page.locator("#map g.range").count() == 0
    player.base_click("rifles-1")
    page.wait_for_selector("#map g.range .band-label")
    units = page.eval_on_selector_all(
        "#map g.selection", "gs => [...new Set(gs.map(g => g.dataset.unit))]"
    )
    assert units == ["rifles"]
    labels = page.eval_on_selector_all("#map g.range", "gs => gs.map(g => g.textContent)")
    bands = page.eval_on_selector_all("#map g.range", "gs => gs.map(g => g.dataset.band)")
    assert len(labels) == len(bands) > 0
    for band, label in zip(bands, labels, strict=True):
        assert label.startswith(band + " ") and label.endswith(" cm"), label
    # One ring a band round the whole unit, not one a base.
    assert page.locator("#map g.range path, #map g.range rect, #map g.range circle").count() == len(
        bands
    )


def test_the_map_starts_above_the_fold_at_1920x1080(
    browser: Browser, served: Served, tmp_path: Path
) -> None:
    page = open_page(browser, served, 1920, 1080)
    try:
        # The map is redrawn with every frame: its box is read in the same turn of the page's
        # script that found it drawn, never from an element a redraw may have replaced since.
        box = page.wait_for_function(
            """() => {
                const rect = document.querySelector('#map svg')?.getBoundingClientRect();
                return rect && rect.height > 300 ? {y: rect.y, height: rect.height} : null;
            }"""
        ).json_value()
        assert box["y"] < 200 and box["y"] + box["height"] <= 1080, box
        page.screenshot(path=str(tmp_path / "wide.png"))
    finally:
        page.context.close()
