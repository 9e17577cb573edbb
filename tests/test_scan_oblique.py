"""An oblique photo whose near corner tags are large and blurred (out of focus close to the
camera): the full-frame pass misses them, the scan's coarse pass (the picture shrunk twice)
reads them, so `umpire scan` and the table fit do not refuse it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.errors import CalibrationError
from tests.conftest import run_umpire
from vision.game import load_game
from vision.pipeline import Scanner
from vision.render import Effects, camera_for_table, render
from vision.synthetic import table_spec

REPO = Path(__file__).resolve().parent.parent
GAME = REPO / "examples" / "games" / "skirmish.toml"
TRUTH = json.loads((REPO / "examples" / "skirmish.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def oblique() -> np.ndarray:
    """3840x2160, camera 80 cm up tilted 50 degrees: the near 60 mm corner tags are 113 px
    across, the far ones 56 px; the near 40% of the picture blurred (Gaussian sigma 7 px)."""
    spec = table_spec(load_game(GAME), TRUTH)
    camera = camera_for_table(spec, 3840, 2160, 800.0, 50.0)
    frame = render(spec, camera, Effects(noise_sigma=2.0), np.random.default_rng(3))
    near = {t.tag_id: t.corners_px for t in frame.truth.tags if t.size_mm == 60.0}
    assert near[0] is not None and np.linalg.norm(near[0][0] - near[0][1]) > 100
    image = frame.image.copy()
    image[1300:] = cv2.GaussianBlur(image[1300:], (0, 0), 7.0)
    return image


def test_the_full_frame_pass_alone_misses_the_near_corner_tags(oblique: np.ndarray) -> None:
    with pytest.raises(CalibrationError, match=r"only 2 corner tags seen.*tags 0, 1"):
        Scanner(load_game(GAME), second_pass=False).scan(oblique)


def test_the_scan_reads_them_in_its_coarse_pass(oblique: np.ndarray) -> None:
    scanner = Scanner(load_game(GAME))
    gray = cv2.cvtColor(oblique, cv2.COLOR_BGR2GRAY)
    found = scanner.detect_all(np.asarray(gray, dtype=np.uint8))
    assert "coarse" in found.passes
    assert {0, 1} <= {d.tag_id for d in found.second}
    scan = scanner.scan(oblique)
    assert sorted(set(scan.fit.groups)) == [0, 1, 2, 3]
    assert scan.fit.outlier_groups == ()


def test_umpire_scan_accepts_the_oblique_photo(oblique: np.ndarray, tmp_path: Path) -> None:
    photo = tmp_path / "oblique.png"
    cv2.imwrite(str(photo), oblique)
    out = run_umpire("scan", photo, "--game", GAME, "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["detection"]["calibration"]["reference_tags"] == [0, 1, 2, 3]
