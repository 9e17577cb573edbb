"""The selection drawn by the page over the live view (issue 15): the server sends every viewer
the same picture, and the page draws the selected unit's rings, sectors and measuring line over
it through the frame's table-to-pixel mapping. These tests check that what the page draws sits
where the bases are in the picture: the real detector finds the tags in the frame the page
shows, and the layer's marks and rings must land on them.

The lengths are the sheet's (skirmish-19c, examples/games/skirmish.toml): rifles-1 is the
rifles' officer, who commands within 50 cm in the open (sheet line 99); Rifles reach 30, 90 and
180 cm (sheet line 10)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from playwright.sync_api import Page

from rules import geometry as geo
from vision.game import load_game
from vision.pipeline import Scanner

from .conftest import EXAMPLE_GAME, Player, Served

RIFLES = ("rifles-1", "rifles-2", "rifles-3", "rifles-4")
COMMAND_MM = 500.0
BANDS_MM = {"short": 300.0, "medium": 900.0, "long": 1800.0}
CLOSE_PX = 3.0
"""How far (pixels of the frame) a mark may sit from the tag the detector finds."""
ON_RING_MM = 1.5
"""How far a point of a drawn ring may be from the length it stands for (table mm)."""


def layer(page: Page) -> dict[str, Any]:
    """What the live view's layer draws: its marks, rings and line, in pixels of the frame."""
    found: dict[str, Any] = page.evaluate(
        """() => {
            const layer = document.getElementById('live-overlay');
            const runs = (g) => [...g.querySelectorAll('polyline')].map((p) =>
                p.getAttribute('points').trim().split(' ').map((xy) => xy.split(',').map(Number)));
            const box = (el) => { const r = el.getBoundingClientRect();
                return [r.left, r.top, r.width, r.height]; };
            return {
                viewBox: layer.getAttribute('viewBox'),
                layerBox: box(layer),
                pictureBox: box(document.getElementById('live')),
                marks: [...layer.querySelectorAll('circle.base-mark')].map((c) => ({
                    base: c.dataset.base, cls: c.getAttribute('class'),
                    x: Number(c.getAttribute('cx')), y: Number(c.getAttribute('cy')) })),
                commands: [...layer.querySelectorAll('g.command')].map((g) => ({
                    for: g.dataset.for, radius: Number(g.dataset.radiusMm), runs: runs(g) })),
                ranges: [...layer.querySelectorAll('g.range')].map((g) => ({
                    band: g.dataset.band, reach: Number(g.dataset.reachMm), label: g.dataset.label,
                    text: g.querySelector('text')?.textContent ?? null, runs: runs(g) })),
                halos: [...layer.querySelectorAll('g.halo')].map((g) => g.dataset.for),
                sectors: [...layer.querySelectorAll('g.sectors')].map((g) => g.dataset.for),
            };
        }"""
    )
    return found


def tag_centres(image: np.ndarray) -> dict[str, np.ndarray]:
    """Each base's tag centre in the frame, as the real detector finds it (pixels)."""
    game = load_game(EXAMPLE_GAME)
    base_of = {b.tag: b.id for u in game.units for b in u.bases}
    scan = Scanner(game).scan(image)
    return {
        base_of[d.tag_id]: np.asarray(d.corners).mean(axis=0)
        for d in scan.detections
        if d.tag_id in base_of
    }


def test_rings_over_the_live_view_sit_where_the_bases_are(page: Page, served: Served) -> None:
    served.live.stop()  # hold the frame: the page and the detector look at the same picture
    state = served.live.state
    assert state.image is not None and state.scan is not None and state.scene is not None
    player = Player(page, served)
    page.wait_for_selector("#map g.base[data-base]")
    player.base_click("rifles-1")
    page.wait_for_function(
        """() => document.querySelectorAll('#live-overlay circle.base-mark').length === 4
            && document.querySelector('#live-overlay g.command polyline')
            && document.querySelectorAll('#live-overlay g.range').length === 3""",
        timeout=15_000,
    )
    drawn = layer(page)
    height, width = state.image.shape[:2]
    assert drawn["viewBox"] == f"0 0 {width} {height}"
    # The layer lies exactly over the picture's box (both fit the frame in it the same way).
    assert drawn["layerBox"] == drawn["pictureBox"]

    # Every base of the selected unit is marked on its tag, as the detector sees it.
    tags = tag_centres(state.image)
    marks = {m["base"]: m for m in drawn["marks"]}
    assert sorted(marks) == list(RIFLES)
    for base in RIFLES:
        assert "selected" in marks[base]["cls"]
        gap = math.dist((marks[base]["x"], marks[base]["y"]), tags[base])
        assert gap <= CLOSE_PX, (base, marks[base], tags[base].tolist(), gap)

    # The command ring: every point drawn is 50 cm from rifles-1's footprint, edge to edge.
    fit = state.scan.fit
    leader = state.scene.base("rifles-1")
    (command,) = drawn["commands"]
    assert command["for"] == "rifles-1" and command["radius"] == COMMAND_MM
    points = [p for run in command["runs"] for p in run]
    assert len(points) > 50
    for x, y in fit.image_to_table(np.array(points)):
        assert abs(geo.point_distance(leader, (x, y)) - COMMAND_MM) <= ON_RING_MM, (x, y)

    # The range bands: labelled with band and length in the page's unit; each ring keeps at
    # least its reach from every rifle base and touches the reach of the nearest one. The rifles
    # stand 30 cm from the near edge of a 180 x 120 cm table: the long band's 180 cm ring lies
    # off the table all round, and is not drawn over the picture (only named).
    bases = [state.scene.base(b) for b in RIFLES]
    assert {r["band"]: r["reach"] for r in drawn["ranges"]} == BANDS_MM
    on_picture = {r["band"] for r in drawn["ranges"] if r["runs"]}
    assert on_picture == {"short", "medium"}
    for ring in drawn["ranges"]:
        reach = BANDS_MM[ring["band"]]
        assert ring["label"] == f"{ring['band']} {reach / 10:.1f} cm", ring
        if not ring["runs"]:
            continue
        assert ring["text"] == ring["label"]
        table = fit.image_to_table(np.array([p for run in ring["runs"] for p in run]))
        nearest = [min(geo.point_distance(b, (x, y)) for b in bases) for x, y in table]
        assert min(nearest) >= reach - ON_RING_MM, (ring["band"], min(nearest))
        assert min(nearest) <= reach + ON_RING_MM, (ring["band"], min(nearest))
    assert sorted(drawn["halos"]) == sorted(drawn["sectors"]) == list(RIFLES)


def test_the_layer_follows_the_unit_switch_and_the_clear_button(page: Page, served: Served) -> None:
    served.live.stop()
    player = Player(page, served)
    page.wait_for_selector("#map g.base[data-base]")
    player.base_click("rifles-1")
    page.wait_for_function(
        "() => document.querySelector('#live-overlay g.range')?.dataset.label === 'short 30.0 cm'"
    )
    page.locator('#unit-switch input[value="in"]').check()
    # 30 cm is 11.811 in: the label follows the page's unit (inches written 11.8").
    page.wait_for_function(
        """() => document.querySelector('#live-overlay g.range')?.dataset.label
            === 'short 11.8"'"""
    )
    page.locator("#clear").click()
    page.wait_for_function("() => document.querySelector('#live-overlay').childElementCount === 0")
    # One picture for everybody: the page never asks the server for a selection's picture.
    assert page.locator("#live").get_attribute("src") == "/stream.mjpg"
