"""Detection on a real photograph: the AprilTag library's own test photo (a NASA Swarmathon
arena, ten tag36h11 tags, tests/data/photos) read by Umpire's detector, every tag at the
corners the library's test expects."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detect import make_detector

PHOTOS = Path(__file__).parent / "data" / "photos"


def expected() -> list[np.ndarray]:
    text = (PHOTOS / "apriltag_test_34139872896.txt").read_text(encoding="utf-8")
    out = []
    for line in text.splitlines():
        numbers = [float(v) for v in re.findall(r"-?\d+\.\d+", line)]
        if numbers:
            out.append(np.array(numbers).reshape(4, 2))
    return out


def test_every_tag_of_the_apriltag_test_photo_is_read_at_its_corners() -> None:
    image = cv2.imread(str(PHOTOS / "apriltag_test_34139872896.jpg"), cv2.IMREAD_GRAYSCALE)
    assert image is not None and image.shape == (533, 799)
    found = [d for d in make_detector("tag36h11").detect(image) if d.tag_id == 0]
    truth = np.array(expected())
    assert len(truth) == 10 and len(found) == 10
    gaps: list[float] = []
    for corners in truth - 0.5:  # the library puts a pixel's centre at +0.5, Umpire at 0
        centre = corners.mean(0)
        nearest = min(found, key=lambda d: float(np.linalg.norm(d.corners.mean(0) - centre)))
        # The same four corners, in whichever order each library lists them.
        gaps.extend(float(np.min(np.linalg.norm(nearest.corners - c, axis=1))) for c in corners)
    # Measured: 39 of the 40 corners within 0.66 px, median 0.29 px; one at 3.3 px.
    assert np.median(gaps) < 0.4
    assert sum(g < 0.75 for g in gaps) >= 39
    assert max(gaps) < 4.0


# --------------------------------------------------------------------------------------------
# A 12.5 MP photo of a Kalibr aprilgrid at full size (3072 x 4080): tags ~150 px across, whose
# contour corners came 5-10 px inside their edges, beyond the reach of the edge refinement


GRID_TAG = 88.0
"""Kalibr's default tag size: positions are compared in units of it (the print's is unknown)."""
GRID = {k: ((k % 6) * 1.3 * GRID_TAG, (k // 6) * 1.3 * GRID_TAG) for k in range(36)}


def test_a_12_megapixel_aprilgrid_photo_is_fitted_at_full_size() -> None:
    from calibration.fit import corner_tag_references, fit_corner_tags
    from vision.pipeline import square_fit

    image = cv2.imread(str(PHOTOS / "fullsize-aprilgrid-002.jpg"), cv2.IMREAD_GRAYSCALE)
    assert image is not None and image.shape == (4080, 3072)
    seen = {d.tag_id: d.corners for d in make_detector("tag36h11", 2).detect(image)}
    assert sorted(seen) == list(range(36))
    # Each tag's side is 1 / 1.3 of the pitch between neighbouring tags' centres: read off the
    # tags' own corners, a corner 5-10 px inside its edge makes the tag 5-10% too small.
    for tag in (0, 5, 17, 18, 30, 35):
        corners = seen[tag]
        side = float(np.mean(np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)))
        neighbour = tag + 1 if tag % 6 < 5 else tag - 1
        pitch = float(np.linalg.norm(seen[neighbour].mean(0) - corners.mean(0)))
        assert side / pitch == pytest.approx(1 / 1.3, rel=0.04), tag
    for references in ((0, 5, 30, 35), (0, 2, 5, 17, 35, 33, 30, 18)):
        layout = {k: GRID[k] for k in references}
        fit = fit_corner_tags(seen, layout, GRID_TAG, image_size=(3072, 4080), fit_lens=False)
        assert fit.outlier_groups == ()
        refs = corner_tag_references(seen, layout, GRID_TAG)
        plain, _ = cv2.findHomography(refs.image_points, refs.table_points, 0)
        ours_mm, plain_mm = [], []
        for tag, corners in seen.items():
            if tag in references:
                continue
            truth = np.array(GRID[tag])
            ours_mm.append(np.linalg.norm(square_fit(fit.image_to_table(corners)).mean(0) - truth))
            mapped = cv2.perspectiveTransform(corners[None], plain)[0]
            plain_mm.append(np.linalg.norm(mapped.mean(0) - truth))
        ours, base = float(np.median(ours_mm)), float(np.median(plain_mm))
        assert ours <= 1.5 * base + 0.3, (references, ours, base)
        assert ours < 1.2, (references, ours)  # under 1.4% of the tag size
