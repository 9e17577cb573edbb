"""What a dispute snapshot draws on its picture: the measured line between the pair of bases
the answer measured, its length, and the ruling in words along the foot of the picture.

The pair is the answer's `between` (the card's pair, as the page shows it) or its two
arguments; the line runs between the nearest points of the two footprints, as on the map.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.homography import TableFit
from calibration.units import format_length
from rules.measure import table_of
from rules.scene import Scene

from .mapsvg import nearest_points
from .words import plain

LINE_BGR = (0, 215, 255)
"""The measured line: amber, seen on green cloth and on brown."""
INK_BGR = (255, 255, 255)
BANNER_BGR = (24, 24, 24)


def measured_pair(answer: Mapping[str, Any], args: Sequence[str]) -> tuple[str, str] | None:
    """The two bases (or units) an answer measured between."""
    between = answer.get("between")
    if isinstance(between, Mapping):
        ids = [v for v in between.values() if isinstance(v, str)]
        if len(ids) >= 2:
            return ids[0], ids[1]
    if len(args) == 2:
        return args[0], args[1]
    return None


def _ascii(text: str) -> str:
    """OpenCV's fonts draw ASCII only."""
    swaps = {"→": "->", "±": "+/-", "≥": ">=", "≤": "<=", "×": "x", "–": "-", "—": "-"}
    for a, b in swaps.items():
        text = text.replace(a, b)
    return text.encode("ascii", "replace").decode("ascii")


def draw_ruling(
    picture: npt.NDArray[np.uint8],
    fit: TableFit,
    scene: Scene,
    answer: Mapping[str, Any],
    args: Sequence[str],
    lines: Sequence[str],
) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
    """The picture with the measured line, its length and the ruling drawn on it, and what was
    drawn (`line`: the pair, `length`: as written, `ruling`: the lines in words)."""
    out = np.array(picture, dtype=np.uint8, copy=True)
    height, width = out.shape[:2]
    scale = max(width / 1600.0, 0.4)
    thick = max(2, round(3 * scale))
    drawn: dict[str, Any] = {}
    pair = measured_pair(answer, args)
    if pair is not None:
        try:
            near = table_of(scene).gap(scene.select(pair[0]), scene.select(pair[1]))
        except ValueError:
            near = None
        if near is not None:
            a, b = nearest_points(near.a, near.b)
            ends = fit.table_to_image(np.array([a, b], dtype=np.float64)).reshape(2, 2)
            pa = (round(float(ends[0][0])), round(float(ends[0][1])))
            pb = (round(float(ends[1][0])), round(float(ends[1][1])))
            cv2.line(out, pa, pb, (0, 0, 0), thick + 3, cv2.LINE_AA)
            cv2.line(out, pa, pb, LINE_BGR, thick, cv2.LINE_AA)
            for p in (pa, pb):
                cv2.circle(out, p, thick + 3, LINE_BGR, -1, cv2.LINE_AA)
            length = format_length(near.distance, scene.unit)
            mid = ((pa[0] + pb[0]) // 2 + 8, (pa[1] + pb[1]) // 2)
            text = _ascii(length)
            size = 0.9 * scale
            cv2.putText(out, text, mid, cv2.FONT_HERSHEY_SIMPLEX, size, (0, 0, 0), thick + 3)
            cv2.putText(out, text, mid, cv2.FONT_HERSHEY_SIMPLEX, size, LINE_BGR, thick)
            drawn["line"] = [near.a.id, near.b.id]
            drawn["length"] = length
            drawn["line_pixels"] = [list(pa), list(pb)]
    words = [plain(line) for line in lines[:3]]
    if words:
        size = 0.6 * scale
        step = int(30 * scale)
        top = height - step * len(words) - int(10 * scale)
        band = out[top:height].astype(np.float32)
        out[top:height] = (band * 0.25 + np.array(BANNER_BGR) * 0.75).astype(np.uint8)
        for n, line in enumerate(words):
            y = top + step * (n + 1) - int(6 * scale)
            cv2.putText(
                out,
                _ascii(line)[:140],
                (int(10 * scale), y),
                cv2.FONT_HERSHEY_SIMPLEX,
                size,
                INK_BGR,
                max(1, thick - 1),
                cv2.LINE_AA,
            )
        drawn["ruling"] = words
        drawn["banner_top"] = top
    return out, drawn
