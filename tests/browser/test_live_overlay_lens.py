"""The page's layer over the live view through a lens (issue 15): with a `[camera]` whose lens
bends the picture, the frame event sends the camera's matrix and distortion, and the page bends
the homography's pixels through them as OpenCV does. The photo is rendered through a barrel
lens (k1 = -0.12: a table edge bows by several pixels), the tracker is given that lens, and the
marks the page draws must land where OpenCV puts the bases and where the detector finds their
tags."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from playwright.sync_api import Page

from calibration.camera import CameraModel
from vision.game import load_game
from vision.pipeline import Scanner
from vision.render import Effects, camera_for_table, render
from vision.synthetic import table_spec

from .conftest import EXAMPLE_GAME, EXAMPLE_LAYOUT, Player, Served

DISTORTION = (-0.12, 0.03, 0.0, 0.0, 0.0)
RIFLES = ("rifles-1", "rifles-2", "rifles-3", "rifles-4")


@pytest.fixture
def demo_options(tmp_path: Path) -> dict[str, object]:
    spec = table_spec(load_game(EXAMPLE_GAME), json.loads(EXAMPLE_LAYOUT.read_text()))
    camera = camera_for_table(spec, 1280, 720, tilt_deg=0.0, distortion=DISTORTION)
    photo = tmp_path / "through-a-lens.png"
    cv2.imwrite(str(photo), render(spec, camera, Effects()).image)
    lens = CameraModel.from_values(camera.matrix(), DISTORTION, (1280, 720))
    return {"photo": photo, "camera": lens}


def test_marks_through_the_lens_sit_where_opencv_and_the_detector_put_the_bases(
    page: Page, served: Served
) -> None:
    state = served.live.state
    assert state.image is not None and state.scan is not None and state.scene is not None
    fit = state.scan.fit
    assert fit.lens is not None
    player = Player(page, served)
    page.wait_for_selector("#map g.base[data-base]")
    player.base_click("rifles-1")
    page.wait_for_function(
        "() => document.querySelectorAll('#live-overlay circle.base-mark').length === 4"
    )
    marks = page.eval_on_selector_all(
        "#live-overlay circle.base-mark",
        "cs => cs.map((c) => [c.dataset.base, Number(c.getAttribute('cx')), "
        "Number(c.getAttribute('cy'))])",
    )
    tags = {
        d.tag_id: np.asarray(d.corners).mean(axis=0)
        for d in Scanner(load_game(EXAMPLE_GAME), served.live.tracker.camera)
        .scan(state.image)
        .detections
    }
    tag_of = {b.id: b.tag for u in load_game(EXAMPLE_GAME).units for b in u.bases}
    assert sorted(m[0] for m in marks) == list(RIFLES)
    for base, x, y in marks:
        seen = state.scene.base(base)
        # OpenCV through the lens (TableFit.table_to_image: the homography, then
        # cv2.projectPoints with the distortion), to the page's 0.1 px.
        expected = fit.table_to_image([[seen.x, seen.y]])[0]
        assert math.dist((x, y), expected) <= 0.2, (base, (x, y), expected.tolist())
        # Without the lens the homography alone would put it elsewhere.
        straight = fit.transform.table_to_image([[seen.x, seen.y]])[0]
        assert math.dist((x, y), straight) >= 1.0, (base, straight.tolist())
        assert math.dist((x, y), tags[tag_of[base]]) <= 3.0, (base, tags[tag_of[base]].tolist())
