"""The tag detector adapter: one small interface over pupil-apriltags and OpenCV's ArUco detector.

Everything downstream (tracker, calibration fit, scene builder) sees only `TagDetection` values
in one convention, whichever back end found them:

- pixel coordinates in OpenCV's convention: the centre of the top-left pixel is (0, 0);
- corners in OpenCV's ArUco order, which is the order of the marker as
  `cv2.aruco.generateImageMarker` draws it: top-left, top-right, bottom-right, bottom-left of the
  marker's own picture (so corner 0 -> corner 1 is the marker's top edge, the way a base faces).

Back ends, one family per detector (`make_detector`):

- AprilTag families (`tag36h11`, `tag25h9`, `tag16h5`, `tagStandard41h12`) with the usual
  1-cell black border: pupil-apriltags. This is the only module that imports `pupil_apriltags`,
  and it works around the traps of 1.0.4.post11 measured on a 2-core machine:
  `decode_sharpening` is cast to int by the constructor (0.25 becomes 0), so it is written again
  into the C struct; only one family is registered however many are named, so a detector takes
  exactly one; a native detector shared by two threads crashes the process, so each thread gets
  its own (a `threading.local` cache); its corners sit +0.5 px from OpenCV's convention and in
  another order, so both are converted here. Found while building this: pupil's `__del__` frees
  the family before the detector (a use after free that corrupts the heap with tag16h5), so the
  adapter frees them itself, in the right order.
- OpenCV ArUco dictionaries by name (`DICT_4X4_50`, ...), and AprilTag families printed with a
  2-cell border (`border_bits=2`, Kalibr "aprilgrid" style, which pupil cannot read): OpenCV's
  `ArucoDetector`, with `minMarkerPerimeterRate` lowered (its default, 0.03 of the image's larger
  side, ignores tags under ~14 px across in a 1920 px frame) and the corners refined on the
  marker's edges (OpenCV's own corners sit ~0.4 px inside the black square).

A second pass (`detect_missed`) looks again at the small tags a full-frame pass misses: every
dark quad OpenCV's ArUco finder lists that is not already a found tag is re-read in a small
window, upscaled and sharpened; a patch of merged tags with one sharpening, and a quad the size
of the mat not at all (`PATCH_SIZE`, `MAT_SIZE`).

Never imports `rules` beyond its errors, nor `webui` or `calibration`.
"""

from __future__ import annotations

import math
import threading
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, Protocol, runtime_checkable

import cv2
import numpy as np
import pupil_apriltags

from rules.errors import UmpireError, accepted
from vision.tags import (
    APRILTAG_FAMILIES,
    APRILTAGS_IN_OPENCV,
    BORDER_BITS,
    FAMILIES,
    OPENCV_DICTIONARIES,
    cells_across,
    opencv_dictionary,
)

__all__ = [
    "APRILTAG_FAMILIES",
    "CORNER_REFINEMENTS",
    "AprilTagDetector",
    "ArucoDetector",
    "Detector",
    "DetectorError",
    "Look",
    "TagDetection",
    "holds_a_code",
    "image_facing",
    "make_detector",
    "tag_candidates",
]


class DetectorError(UmpireError):
    """A detector asked for with a bad family, border or option, or handed a bad image."""


# How the OpenCV path places corners. "edges" (ours, the default) fits a line to each side of the
# black square with sub-pixel edge positions and intersects them; the others are OpenCV's own
# `cornerRefinementMethod`s, kept for speed comparisons ("none" and "contour" sit ~0.5 px inside
# the square, "subpix" ~0.3 px, "apriltag" is 5-20x slower).
CORNER_REFINEMENTS: Mapping[str, int | None] = MappingProxyType(
    {
        "edges": None,
        "none": cv2.aruco.CORNER_REFINE_NONE,
        "subpix": cv2.aruco.CORNER_REFINE_SUBPIX,
        "contour": cv2.aruco.CORNER_REFINE_CONTOUR,
        "apriltag": cv2.aruco.CORNER_REFINE_APRILTAG,
    }
)

# pupil's +0.5 px: its pixel (0, 0) spans [0, 1), OpenCV's is centred on 0.
_PUPIL_TO_OPENCV_SHIFT = -0.5
# pupil's corner i that is OpenCV's corner k: pupil lists the marker's top-right, top-left,
# bottom-left, bottom-right (measured on generateImageMarker pictures, pinned by the tests).
_PUPIL_TO_OPENCV_ORDER = (1, 0, 3, 2)


@dataclass(frozen=True, slots=True, eq=False)
class TagDetection:
    """One tag found in one image. Compared by identity (it holds an array)."""

    family: str
    """The family or dictionary name the detector was made for (`tag36h11`, `DICT_4X4_50`)."""
    tag_id: int
    """The decoded id within that family."""
    corners: np.ndarray
    """(4, 2) float64, read-only: pixel x, y in OpenCV's convention (top-left pixel centred on
    (0, 0)), in the order top-left, top-right, bottom-right, bottom-left of the marker's own
    picture, as `cv2.aruco.generateImageMarker` draws it."""
    decision_margin: float | None = None
    """pupil's decoding quality (mean bit contrast over the threshold); None from OpenCV."""
    hamming: int | None = None
    """Bits corrected by pupil to decode the id; None from OpenCV."""

    def __post_init__(self) -> None:
        corners = np.array(self.corners, dtype=np.float64)
        if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
            raise DetectorError(
                f"tag {self.family} {self.tag_id}: corners must be 4 finite (x, y) pairs, "
                f"got shape {corners.shape}"
            )
        corners.setflags(write=False)
        object.__setattr__(self, "corners", corners)

    @property
    def center(self) -> np.ndarray:
        """The tag's centre in pixels: where its diagonals cross.

        Under perspective that is the image of the tag's true centre (the mean of the corners is
        not); it is also exactly the centre pupil-apriltags reports, in OpenCV's convention.
        """
        p0, p1, p2, p3 = self.corners
        d02, d13 = p2 - p0, p3 - p1
        denominator = d02[0] * d13[1] - d02[1] * d13[0]
        if abs(denominator) < 1e-12:
            centre = self.corners.mean(axis=0)
        else:
            offset = p1 - p0
            s = (offset[0] * d13[1] - offset[1] * d13[0]) / denominator
            centre = p0 + s * d02
        centre.setflags(write=False)
        return centre


def image_facing(detection: TagDetection) -> float:
    """Which way the tag's top edge points in the image, in degrees within [0, 360).

    The angle of the vector from the tag's centre to the midpoint of corners 0-1 (the top edge of
    the marker's picture), measured counter-clockwise as the image is seen on a screen, from the
    image's +x axis (to the right). Because image rows grow downwards this is
    `atan2(-(dy), dx)` on pixel offsets: an upright marker gives 90, one turned a quarter turn
    counter-clockwise on screen (top edge pointing left) gives 180. This is a direction in the
    IMAGE; the table facing of a base comes from mapping the same two points onto the table.
    """
    top_middle = (detection.corners[0] + detection.corners[1]) / 2.0
    dx, dy = top_middle - detection.center
    return math.degrees(math.atan2(-dy, dx)) % 360.0


@runtime_checkable
class Detector(Protocol):
    """Finds the tags of one family in a grayscale frame."""

    family: str
    border_bits: int

    def detect(self, gray: np.ndarray) -> list[TagDetection]:
        """All tags of this detector's family in an 8-bit grayscale image."""
        ...

    def detect_in_window(
        self,
        gray: np.ndarray,
        x0: int,
        y0: int,
        x1: int,
        y1: int,
        upscale: int = 1,
        sharpen: float = 0.0,
    ) -> list[TagDetection]:
        """The tags inside `gray[y0:y1, x0:x1]`, in full-frame pixel coordinates."""
        ...

    def detect_missed(self, gray: np.ndarray, found: Sequence[TagDetection]) -> list[TagDetection]:
        """Tags of this family that a full-frame `detect` left out of `found` (second pass)."""
        ...

    def missed_looks(
        self,
        gray: np.ndarray,
        found: Sequence[TagDetection],
        sharpen: Sequence[float] = ...,
        *,
        window: tuple[int, int, int, int] | None = None,
        largest: float | None = None,
        flat_levels: float = ...,
    ) -> list[Look]:
        """The second pass's looks, in the order it takes them (see `detect_missed`)."""
        ...

    def read_look(self, gray: np.ndarray, look: Look, upscale: int = ...) -> list[TagDetection]:
        """The tags one look of the second pass reads."""
        ...

    def detect_coarse(
        self,
        gray: np.ndarray,
        window: tuple[int, int, int, int] | None = None,
        factor: int = ...,
    ) -> list[TagDetection]:
        """The tags read in the picture shrunk `factor` times (the coarse pass)."""
        ...

    def detect_at(
        self,
        gray: np.ndarray,
        quad: np.ndarray,
        *,
        margin: float | None = None,
        patch: bool = False,
    ) -> list[TagDetection]:
        """The tags read again, upscaled and sharpened, in a window around `quad` reaching
        `margin` pixels past it (default: three quarters of its side); with `patch`, every tag
        inside the quad, not only one near its middle."""
        ...


def _checked_gray(gray: object) -> np.ndarray:
    """The image as a contiguous 2-D uint8 array, or a clear error about what it is."""
    if not isinstance(gray, np.ndarray) or gray.ndim != 2 or gray.dtype != np.uint8:
        what = (
            f"array of shape {gray.shape} and dtype {gray.dtype}"
            if isinstance(gray, np.ndarray)
            else type(gray).__name__
        )
        raise DetectorError(
            f"gray: expected a 2-D uint8 grayscale image (cv2.cvtColor(frame, "
            f"cv2.COLOR_BGR2GRAY)), got {what}"
        )
    return np.ascontiguousarray(gray)


SECOND_PASS_UPSCALE: Final = 3
SECOND_PASS_SHARPEN: Final = (1.5, 3.0, 5.0)
"""How `detect_missed` looks again at a candidate (see `detect_in_window`): 3x, sharpened 1.5,
then harder while nothing is read. Measured on rendered 1080p frames with motion blur across a
cell or more (3 px on 14-17 px tags): recall 84% with (1.5, 2.5), 93% with these, no false
reads (the pipeline keeps only game ids found where the candidate was)."""
PATCH_SIZE: Final = 3.0
"""A dark quad more than this many times the side of the largest tag found is not one tag but
a patch where several merged (bases packed on a dark card). The second pass still reads it,
with a tag's margin and one sharpening (1.5) instead of up to three: on the 24 frames of
`bench_scan`'s plain, grey-print and motion-blur rows it found the same tags (the patches gave
56 of them) in a third of the time."""
MAT_SIZE: Final = 24.0
"""A dark quad more than this many times the largest tag's side (half a metre across with
20 mm tags) is the mat or a shadow over much of it, and is not read again: measured on the
first frame of `umpire bench`'s 1080p video, reading the whole mat 3x upscaled cost 1.5 s of
a 2.0 s scan and found nothing; on those 24 `bench_scan` frames no tag came from one."""
FLAT_LEVELS: Final = 15.0
"""A dark quad whose inside (the means of its inner 6 x 6 of 8 x 8 cells) spans fewer grey
levels than this holds no code and is not looked at again: a square of a chequered mat or a
ChArUco board. Measured on rendered 1080p and 720p frames (blur 0.4-1.0 px, motion blur 3 px,
grey print 90-170, JPEG q40, strong glare, noise 2.5-5): every quad on a tag spanned 23 levels
or more (strong glare; 35 for grey print, over 90 otherwise), and of the ~600 quads of a 5 cm
chequered mat at 1080p about 100 were left (quads across a dark and a light square)."""
COARSE_FACTOR: Final = 2
"""The coarse pass (`detect_coarse`) reads the picture shrunk this many times each way. Measured
on rendered frames: a 150 px tag blurred 6 px at 1280x720, and a 200-400 px tag blurred 8-12 px
at 3872x2592, are missed at full resolution and found at half; a full-frame pupil pass over
such a picture also costs 10-30 times the shrunk one."""
MAT_FRACTION: Final = 0.5
"""With no tag found to size by, a dark quad wider than this fraction of the image's shorter
side is taken for the mat (a tag that big is never missed by the full-frame pass)."""


class _WindowedDetector(ABC):
    """`detect_in_window` for any back end, in terms of its `detect`."""

    family: str
    border_bits: int

    @abstractmethod
    def detect(self, gray: np.ndarray) -> list[TagDetection]:
        """All tags of this detector's family in an 8-bit grayscale image."""

    _marker_cells: int | None
    options: Mapping[str, Any]

    def detect_in_window(
        self,
        gray: np.ndarray,
        x0: int,
        y0: int,
        x1: int,
        y1: int,
        upscale: int = 1,
        sharpen: float = 0.0,
    ) -> list[TagDetection]:
        """Detect inside `gray[y0:y1, x0:x1]` (clipped to the image), optionally upscaled by an
        integer factor and sharpened first, and return the tags in full-frame coordinates.

        Upscaling (bicubic) helps the smallest tags, and an unsharp mask of strength `sharpen`
        (the crop plus `sharpen` times its difference from a one-source-pixel Gaussian blur)
        restores the contrast of their cells: on 13-17 px tags blurred by a 1 px lens, 3x with
        `sharpen=1.5` read 104 of 104 tags the full-frame pass missed, 3x alone 59, bilinear 3x
        with the same sharpening 103 (measured for issue 4). `cv2.resize` keeps pixel centres
        consistent: a window pixel x sits at `upscale * (x + 0.5) - 0.5` in the upscaled crop,
        so a point u there maps back to `(u + 0.5) / upscale - 0.5 + x0`.
        """
        gray = _checked_gray(gray)
        if isinstance(upscale, bool) or not isinstance(upscale, int | np.integer) or upscale < 1:
            raise DetectorError(f"upscale: expected an integer 1 or more, got {upscale!r}")
        if (
            isinstance(sharpen, bool)
            or not isinstance(sharpen, int | float)
            or not (math.isfinite(sharpen) and sharpen >= 0)
        ):
            raise DetectorError(f"sharpen: expected a number 0 or more, got {sharpen!r}")
        height, width = gray.shape
        left, top = max(0, int(x0)), max(0, int(y0))
        right, bottom = min(width, int(x1)), min(height, int(y1))
        if right - left < 1 or bottom - top < 1:
            return []
        crop = gray[top:bottom, left:right]
        scale = int(upscale)
        if scale > 1:
            crop = cv2.resize(
                crop,
                ((right - left) * scale, (bottom - top) * scale),
                interpolation=cv2.INTER_CUBIC,
            )
        if sharpen > 0:
            smooth = cv2.GaussianBlur(crop.astype(np.float32), (0, 0), float(scale))
            sharpened = crop.astype(np.float32) * (1 + sharpen) - smooth * sharpen
            crop = np.clip(sharpened + 0.5, 0, 255).astype(np.uint8)
        found = []
        for tag in self.detect(np.ascontiguousarray(crop)):
            corners = (tag.corners + 0.5) / scale - 0.5 + np.array([left, top], dtype=np.float64)
            found.append(
                TagDetection(tag.family, tag.tag_id, corners, tag.decision_margin, tag.hamming)
            )
        return found

    def detect_at(
        self,
        gray: np.ndarray,
        quad: np.ndarray,
        upscale: int = SECOND_PASS_UPSCALE,
        sharpen: Sequence[float] = SECOND_PASS_SHARPEN,
        margin: float | None = None,
        patch: bool = False,
    ) -> list[TagDetection]:
        """The tags read in a small window around `quad` ((4, 2) pixels: a dark square that may
        be a tag), upscaled and sharpened with each strength of `sharpen` in turn until one
        reads a tag centred within the quad. Their corners are refined again on the original
        pixels, so they agree with a full-frame pass's (the upscaled, sharpened crop only
        decodes the tag). The window reaches `margin` pixels past the quad (default: three
        quarters of its side; at least 4). With `patch` (a patch of several merged tags) a tag
        counts when its centre lies inside the quad or within `margin` of it, not only near
        its middle."""
        image = _checked_gray(gray)
        if margin is not None and (
            isinstance(margin, bool)
            or not isinstance(margin, int | float)
            or not (math.isfinite(margin) and margin >= 0)
        ):
            raise DetectorError(f"margin: expected a number of pixels, 0 or more, got {margin!r}")
        square = np.asarray(quad, dtype=np.float64).reshape(4, 2)
        centre, side = square.mean(axis=0), _side_px(square)
        margin = max(4.0, 0.75 * side if margin is None else float(margin))
        x0, y0 = np.floor(square.min(axis=0) - margin).astype(int)
        x1, y1 = np.ceil(square.max(axis=0) + margin).astype(int) + 1
        refine = self._marker_cells is not None and self.options["corner_refinement"] == "edges"
        outline = square.astype(np.float32).reshape(-1, 1, 2)

        def belongs(tag: TagDetection) -> bool:
            if patch:
                point = (float(tag.center[0]), float(tag.center[1]))
                return bool(cv2.pointPolygonTest(outline, point, True) >= -margin)
            return bool(np.hypot(*(tag.center - centre)) <= 0.5 * max(side, _side_px(tag.corners)))

        for strength in sharpen:
            tags = [
                tag
                for tag in self.detect_in_window(image, x0, y0, x1, y1, upscale, strength)
                if belongs(tag)
            ]
            if tags:
                if not refine or self._marker_cells is None:
                    return tags
                cells = self._marker_cells
                return [
                    TagDetection(
                        t.family,
                        t.tag_id,
                        refine_corners_on_edges(image, t.corners, cells),
                        t.decision_margin,
                        t.hamming,
                    )
                    for t in tags
                ]
        return []

    def missed_looks(
        self,
        gray: np.ndarray,
        found: Sequence[TagDetection],
        sharpen: Sequence[float] = SECOND_PASS_SHARPEN,
        *,
        window: tuple[int, int, int, int] | None = None,
        largest: float | None = None,
        flat_levels: float = FLAT_LEVELS,
    ) -> list[Look]:
        """The second looks `detect_missed` takes, in the order it takes them: every dark quad
        of the picture (or of `window`, x0, y0, x1, y1) that is not on a tag of `found`, not
        the mat and not flat inside (`holds_a_code` with `flat_levels`; 0 looks at every one),
        single tags first, patches of merged tags after them. `largest` (pixels) sizes a tag
        when `found` is empty or smaller than the tags of the game (a tracker knows it from
        earlier frames)."""
        image = _checked_gray(gray)
        centres = np.array([tag.center for tag in found]).reshape(-1, 2)
        reaches = np.array([0.6 * _side_px(tag.corners) for tag in found])
        sizes = [_side_px(tag.corners) for tag in found] + ([largest] if largest else [])
        if sizes:
            biggest = max(sizes)
            patch, mat = PATCH_SIZE * biggest, MAT_SIZE * biggest
        else:  # nothing to size a tag by: every quad is read whole, but the mat is not
            biggest = math.inf
            patch = mat = MAT_FRACTION * min(image.shape)
        if window is None:
            quads = tag_candidates(image)
        else:
            height, width = image.shape
            x0, y0 = max(0, int(window[0])), max(0, int(window[1]))
            x1, y1 = min(width, int(window[2])), min(height, int(window[3]))
            if x1 - x0 < 8 or y1 - y0 < 8:
                return []
            offset = np.array([x0, y0], dtype=np.float64)
            smallest = CANDIDATE_PERIMETER_RATE * max(height, width)
            quads = [q + offset for q in tag_candidates(image[y0:y1, x0:x1], smallest)]
        singles: list[Look] = []
        patches: list[Look] = []
        for quad in quads:
            middle = quad.mean(axis=0)
            if len(centres) and bool(np.any(np.linalg.norm(centres - middle, axis=1) < reaches)):
                # A found tag, or a quad inside it. A big dark quad is looked at too: on a dark
                # terrain card the tags merge into one dark patch, and a look at the whole card
                # reads them (measured on grey prints: 3 tags in 360 found only that way).
                continue
            side = _side_px(quad)
            if side > mat:
                continue  # the mat, or a shadow over much of it (see MAT_SIZE)
            if flat_levels > 0 and not holds_a_code(image, quad, flat_levels):
                continue  # a dark square with nothing inside (see FLAT_LEVELS)
            if side <= patch:
                singles.append(Look(quad, tuple(sharpen)))
            else:
                # A patch of merged tags: they lie inside it (anywhere, not only near its
                # middle), so the margin is a tag's, and one sharpening reads what three do
                # (see PATCH_SIZE).
                patches.append(Look(quad, tuple(sharpen[:1]), margin=0.75 * biggest, patch=True))
        return singles + patches

    def read_look(
        self, gray: np.ndarray, look: Look, upscale: int = SECOND_PASS_UPSCALE
    ) -> list[TagDetection]:
        """The tags one second look reads (`detect_at` with the look's settings)."""
        return self.detect_at(
            gray, look.quad, upscale, look.sharpen, margin=look.margin, patch=look.patch
        )

    def detect_missed(
        self,
        gray: np.ndarray,
        found: Sequence[TagDetection],
        upscale: int = SECOND_PASS_UPSCALE,
        sharpen: Sequence[float] = SECOND_PASS_SHARPEN,
    ) -> list[TagDetection]:
        """The tags a full-frame pass left out of `found`: a second look at every dark quad in
        the picture that is not already a found tag, in a small window upscaled and sharpened
        (with each strength of `sharpen` in turn, until one reads a tag).

        Small, blurred tags are where a full-frame pass fails (measured: 86.5-96.5% recall of
        20 mm tags at 1080p), yet their black squares still stand out: `tag_candidates` lists
        them (about 100 ms at 1080p) and each window costs about 1 ms. A tag found in a window
        is only returned if its centre lies within the candidate it was looked for at, and
        not on a tag found already; its corners are refined again on the original pixels, so
        they agree with the first pass's (the upscaled, sharpened crop only decodes it). A quad
        over `PATCH_SIZE` times the largest found tag is a patch of merged tags, read with one
        sharpening; one over `MAT_SIZE` times it (with no tag found, over `MAT_FRACTION` of the
        image's shorter side) is the mat, and is not read; nor is a quad flat inside
        (`FLAT_LEVELS`: a square of a chequered mat). `missed_looks` and `read_look` are the
        two halves, for a caller that looks within a time budget.
        """
        image = _checked_gray(gray)
        centres = [tag.center for tag in found]
        reaches = [0.6 * _side_px(tag.corners) for tag in found]

        def on_a_found_tag(point: np.ndarray) -> bool:
            if not centres:
                return False
            gaps = np.linalg.norm(np.asarray(centres) - point, axis=1)
            return bool(np.any(gaps < np.asarray(reaches)))

        extra: list[TagDetection] = []
        for look in self.missed_looks(image, found, sharpen):
            if extra and on_a_found_tag(look.quad.mean(axis=0)):
                continue  # read already by an earlier look
            for tag in self.read_look(image, look, upscale):
                if on_a_found_tag(tag.center):
                    continue
                extra.append(tag)
                centres.append(tag.center)
                reaches.append(0.6 * _side_px(tag.corners))
        return extra

    def detect_coarse(
        self,
        gray: np.ndarray,
        window: tuple[int, int, int, int] | None = None,
        factor: int = COARSE_FACTOR,
    ) -> list[TagDetection]:
        """The tags read in the picture (or `window`, x0, y0, x1, y1) shrunk `factor` times
        each way (an area average), in full-frame pixels, their corners refined again on the
        full picture. A large tag blurred over many pixels (close to the camera, out of focus)
        has edges too soft for a full-resolution pass; shrunk, they are sharp again
        (`COARSE_FACTOR`)."""
        image = _checked_gray(gray)
        height, width = image.shape
        x0, y0, x1, y1 = (0, 0, width, height) if window is None else window
        x0, y0 = max(0, int(x0)), max(0, int(y0))
        x1, y1 = min(width, int(x1)), min(height, int(y1))
        w, h = (x1 - x0) // factor, (y1 - y0) // factor
        if w < 8 or h < 8:
            return []
        crop = image[y0 : y0 + h * factor, x0 : x0 + w * factor]
        small = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA)
        cells = self._marker_cells
        refine = cells is not None and self.options["corner_refinement"] == "edges"
        found = []
        for tag in self.detect(np.ascontiguousarray(small)):
            corners = (tag.corners + 0.5) * factor - 0.5 + np.array([x0, y0], dtype=np.float64)
            if refine and cells is not None:
                corners = refine_corners_on_edges(image, corners, cells)
            found.append(
                TagDetection(tag.family, tag.tag_id, corners, tag.decision_margin, tag.hamming)
            )
        return found


@dataclass(frozen=True, slots=True, eq=False)
class Look:
    """One look of the second pass: a dark quad that may hold a tag, and how to read it."""

    quad: np.ndarray
    """(4, 2) pixel corners of the dark quad."""
    sharpen: tuple[float, ...]
    """The sharpenings tried in turn until one reads a tag."""
    margin: float | None = None
    """How far past the quad the window reaches (None: three quarters of its side)."""
    patch: bool = False
    """A patch of merged tags: every tag inside it counts, not only one near its middle."""


def holds_a_code(gray: np.ndarray, quad: np.ndarray, levels: float = FLAT_LEVELS) -> bool:
    """Whether a dark quad is more than a flat dark square: the means of its inner 6 x 6 of
    8 x 8 cells span `levels` grey levels or more (white cells of a code among black ones), as
    a tag's do however small, blurred or grey its print."""
    square = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    side = 32
    target = np.array(
        [[-0.5, -0.5], [side - 0.5, -0.5], [side - 0.5, side - 0.5], [-0.5, side - 0.5]],
        dtype=np.float32,
    )
    transform = cv2.getPerspectiveTransform(square, target)
    upright = cv2.warpPerspective(
        gray, transform, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    cells = cv2.resize(upright.astype(np.float32), (8, 8), interpolation=cv2.INTER_AREA)[1:7, 1:7]
    return bool(float(cells.max() - cells.min()) >= levels)


def _side_px(quad: np.ndarray) -> float:
    """Mean edge length of a quad, pixels."""
    return float(np.mean(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)))


def _candidate_finder() -> Any:
    """OpenCV's ArUco quad finder, set up to list small dark squares cheaply.

    Its decoding is not used (every quad it finds, accepted or rejected, is a candidate), so one
    adaptive-threshold window of 11 px suffices, with a threshold constant of 5 (not 7) for
    grey prints, and a looser polygon fit (0.08 of the perimeter, against 0.03) keeps the
    blurred corners of 13-17 px tags: measured on 30 rendered 1080p frames (plain, motion blur,
    grey print, JPEG, bent cards), this listed all 371 tags the full-frame pass missed in
    ~95 ms, where OpenCV's defaults list 98% of them in ~210 ms.
    """
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = CANDIDATE_PERIMETER_RATE
    params.adaptiveThreshWinSizeMin = 11
    params.adaptiveThreshWinSizeMax = 11
    params.adaptiveThreshWinSizeStep = 10
    params.adaptiveThreshConstant = 5
    params.polygonalApproxAccuracyRate = 0.08
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    return cv2.aruco.ArucoDetector(opencv_dictionary("DICT_APRILTAG_36h11"), params)


CANDIDATE_PERIMETER_RATE: Final = 0.02
"""`tag_candidates` lists quads whose perimeter is at least this fraction of the picture's
longer side (38 px at 1920 wide: tags of ~10 px and up)."""


def tag_candidates(gray: np.ndarray, min_perimeter_px: float | None = None) -> list[np.ndarray]:
    """Every dark quad in `gray` that may be a tag's black square: (4, 2) pixel corners each,
    in OpenCV's convention (whatever family they turn out to be). `min_perimeter_px` is the
    smallest perimeter listed (default `CANDIDATE_PERIMETER_RATE` of the longer side): a window
    of a larger frame is given the frame's, as OpenCV scales it to the window otherwise and
    lists every speck of a small window (measured: 4 times slower on a 400 x 300 window)."""
    image = _checked_gray(gray)
    finder = _CANDIDATE_FINDER()
    rate = CANDIDATE_PERIMETER_RATE
    if min_perimeter_px is not None:
        rate = min(max(float(min_perimeter_px) / max(image.shape), 1e-3), 3.9)
    params = finder.getDetectorParameters()
    if params.minMarkerPerimeterRate != rate:
        params.minMarkerPerimeterRate = rate
        finder.setDetectorParameters(params)
    accepted_quads, _ids, rejected = finder.detectMarkers(image)
    return [
        np.asarray(quad, dtype=np.float64).reshape(4, 2) for quad in (*accepted_quads, *rejected)
    ]


def _per_thread(factory: Callable[[], Any]) -> Callable[[], Any]:
    """A getter returning one object per calling thread, made on first use by `factory`.

    pupil's native detector crashes the process when two threads use it at once; giving each
    thread its own makes a shared adapter safe (measured scaling on 2 cores: 220 -> 114
    ms per frame with two threads).
    """
    local = threading.local()

    def get() -> Any:
        native = getattr(local, "native", None)
        if native is None:
            native = factory()
            local.native = native
        return native

    return get


_CANDIDATE_FINDER: Final = _per_thread(_candidate_finder)
"""`tag_candidates`' quad finder, one per thread like the detectors."""


class _PupilHandle:
    """Owns one pupil `Detector` and frees it in the right order.

    pupil's `__del__` destroys the tag family before the C detector, whose destroy then reads
    the freed family (a use after free): with tag16h5 it corrupts the heap and a later malloc
    aborts the process (measured: MALLOC_CHECK_=3, a few create/drop cycles). Here the detector
    goes first, then its families, and pupil's own `__del__` is disarmed.
    """

    __slots__ = ("__weakref__", "native")

    def __init__(self, native: Any) -> None:
        self.native = native
        weakref.finalize(self, _destroy_pupil_detector, native)


def _destroy_pupil_detector(native: Any) -> None:
    pointer = native.tag_detector_ptr
    if pointer is None:
        return
    native.tag_detector_ptr = None  # disarms pupil's __del__
    libc = native.libc
    libc.apriltag_detector_destroy.restype = None
    libc.apriltag_detector_destroy(pointer)
    for name, family in native.tag_families.items():
        destroy = getattr(libc, f"{name}_destroy")
        destroy.restype = None
        destroy(family)


class AprilTagDetector(_WindowedDetector):
    """AprilTag families with a 1-cell border, read by pupil-apriltags."""

    OPTIONS: Mapping[str, Any] = MappingProxyType(
        {
            "quad_decimate": 1.0,  # 2.0 (pupil's default) reads 10% of 20 mm tags at 1080p
            "quad_sigma": 0.0,
            "refine_edges": True,
            "decode_sharpening": 0.25,
            "nthreads": 1,
            # pupil's corners are within ~0.3 px; fitting the edges again brings a sharp 20 px
            # tag to ~0.04 px median (see refine_corners_on_edges). "none" keeps pupil's.
            "corner_refinement": "edges",
        }
    )

    def __init__(self, family: str, **options: Any) -> None:
        self.family = family
        self.border_bits = 1
        settings = dict(self.OPTIONS)
        # Cells across the black square (data bits plus a 1-cell border each side), for the edge
        # fit. tagStandard41h12 has its data outside a white-bordered square: no edge fit for it.
        cells = cells_across(family, 1) if family in APRILTAGS_IN_OPENCV else None
        if cells is None:
            settings["corner_refinement"] = "none"
        settings.update(options)
        checked = _checked_pupil_options(settings)
        if cells is None and checked["corner_refinement"] == "edges":
            raise DetectorError(
                f"option corner_refinement: 'edges' needs a black square on a white ground, "
                f"which {family} does not have; use 'none'"
            )
        self.options: Mapping[str, Any] = MappingProxyType(checked)
        self._marker_cells = cells
        self._native = _per_thread(self._create_native)

    def _create_native(self) -> _PupilHandle:
        opts = self.options
        native = pupil_apriltags.Detector(
            families=self.family,
            nthreads=opts["nthreads"],
            quad_decimate=opts["quad_decimate"],
            quad_sigma=opts["quad_sigma"],
            refine_edges=int(opts["refine_edges"]),
            decode_sharpening=opts["decode_sharpening"],
        )
        # The constructor stored int(decode_sharpening): put the real value back.
        native.tag_detector_ptr.contents.decode_sharpening = float(opts["decode_sharpening"])
        return _PupilHandle(native)

    def native_settings(self) -> dict[str, float]:
        """The settings as the C detector of the calling thread holds them (for diagnostics and
        for the test that pins the `decode_sharpening` repair)."""
        struct = self._native().native.tag_detector_ptr.contents
        return {
            "nthreads": int(struct.nthreads),
            "quad_decimate": float(struct.quad_decimate),
            "quad_sigma": float(struct.quad_sigma),
            "refine_edges": int(struct.refine_edges),
            "decode_sharpening": float(struct.decode_sharpening),
        }

    def detect(self, gray: np.ndarray) -> list[TagDetection]:
        """All tags of this family in `gray`, converted to OpenCV's convention and order."""
        image = _checked_gray(gray)
        found = []
        for raw in self._native().native.detect(image):
            corners = np.asarray(raw.corners, dtype=np.float64)[list(_PUPIL_TO_OPENCV_ORDER)]
            corners = corners + _PUPIL_TO_OPENCV_SHIFT
            if self._marker_cells is not None and self.options["corner_refinement"] == "edges":
                corners = refine_corners_on_edges(image, corners, self._marker_cells)
            found.append(
                TagDetection(
                    family=self.family,
                    tag_id=int(raw.tag_id),
                    corners=corners,
                    decision_margin=float(raw.decision_margin),
                    hamming=int(raw.hamming),
                )
            )
        return found

    def __repr__(self) -> str:
        return f"AprilTagDetector({self.family!r}, {dict(self.options)})"


class ArucoDetector(_WindowedDetector):
    """OpenCV's ArUco detector: ArUco dictionaries, and AprilTag families with a 2-cell border."""

    OPTIONS: Mapping[str, Any] = MappingProxyType(
        {
            # 0.03 (OpenCV's default) drops tags whose perimeter is under 3% of the image's larger
            # side: 57.6 px, i.e. ~14 px across, in a 1920 px frame. 0.005 keeps tags down to
            # 9.6 px of perimeter there, smaller than any tag that still decodes.
            "min_perimeter_rate": 0.005,
            "corner_refinement": "edges",
        }
    )

    def __init__(self, family: str, dictionary: str, border_bits: int, **options: Any) -> None:
        self.family = family
        self.dictionary = dictionary
        self.border_bits = border_bits
        settings = dict(self.OPTIONS)
        settings.update(options)
        self.options: Mapping[str, Any] = MappingProxyType(_checked_aruco_options(settings))
        self._marker_cells = cells_across(dictionary, border_bits)
        self._native = _per_thread(self._create_native)

    def _create_native(self) -> Any:
        params = cv2.aruco.DetectorParameters()
        params.markerBorderBits = self.border_bits
        params.minMarkerPerimeterRate = float(self.options["min_perimeter_rate"])
        method = CORNER_REFINEMENTS[self.options["corner_refinement"]]
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE if method is None else method
        return cv2.aruco.ArucoDetector(opencv_dictionary(self.dictionary), params)

    def detect(self, gray: np.ndarray) -> list[TagDetection]:
        """All markers of this dictionary in `gray`, corners refined on the marker's edges."""
        image = _checked_gray(gray)
        corners_list, ids, _rejected = self._native().detectMarkers(image)
        if ids is None:
            return []
        cells = self._marker_cells
        refine = self.options["corner_refinement"] == "edges" and cells is not None
        found = []
        for corners, tag_id in zip(corners_list, ids.ravel(), strict=True):
            quad = np.asarray(corners, dtype=np.float64).reshape(4, 2)
            if refine and cells is not None:
                quad = refine_corners_on_edges(image, quad, cells)
            found.append(TagDetection(family=self.family, tag_id=int(tag_id), corners=quad))
        return found

    def __repr__(self) -> str:
        return (
            f"ArucoDetector({self.family!r}, {self.dictionary}, border_bits={self.border_bits}, "
            f"{dict(self.options)})"
        )


CONVERGED_PX: Final = 1e-3
"""Edge refinement stops once a pass moves no corner further than this (pixels)."""


def refine_corners_on_edges(
    gray: np.ndarray, corners: np.ndarray, marker_cells: int, iterations: int = 3
) -> np.ndarray:
    """Corners of a dark square on a light ground, moved to where its four edges cross.

    Each side is sampled across its normal (bilinear, quarter-pixel steps) at points spaced about
    a pixel apart; the edge sits at the centroid of the dark-to-light intensity rise along each
    profile. A line fitted to those edge points per side, and adjacent lines intersected, give
    the corners. The profiles reach at most half a cell either way, so the next edge inside the
    border (a white data cell) is not mixed in. Returns the input unchanged when a side cannot
    be fitted (a tag cut by the image border, a smeared edge) or a corner would jump further than
    a profile reaches.
    """
    quad = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    side_px = float(np.mean(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)))
    # The detector's corners can be off by more on a larger tag: on a 12.5 MP photo of an
    # aprilgrid (tags 150 px across, their edges soft over several pixels) OpenCV's contour
    # corners lay 4 px (median) and up to 8.5 px inside the edges, out of reach of 2 px
    # profiles, and the fit refused the photo (the same polygon fit to 1% of the perimeter
    # instead of 3% did no better). So the reach grows with the tag: a twentieth of its side,
    # at least 2 px (as before for tags up to 40 px across), never beyond half a cell.
    reach = min(max(2.0, side_px / 20.0), max(0.75, 0.5 * side_px / marker_cells))
    # Work on a float patch around the tag: converting a whole frame per tag would cost more
    # than the fit itself.
    margin = math.ceil(3.0 * reach) + 2
    height, width = gray.shape
    left = max(0, math.floor(quad[:, 0].min()) - margin)
    top = max(0, math.floor(quad[:, 1].min()) - margin)
    right = min(width, math.ceil(quad[:, 0].max()) + margin + 1)
    bottom = min(height, math.ceil(quad[:, 1].max()) + margin + 1)
    if right - left < 4 or bottom - top < 4:
        return quad
    patch = gray[top:bottom, left:right].astype(np.float32)
    origin = np.array([left, top], dtype=np.float64)
    local = quad - origin
    for _ in range(iterations):
        lines = _edge_lines(patch, local, reach)
        if lines is None:
            return quad
        refined = np.empty_like(local)
        for k in range(4):
            crossing = _intersect(lines[k - 1], lines[k])  # side k-1 ends at corner k
            if crossing is None or np.linalg.norm(crossing - local[k]) > 2.0 * reach:
                return quad
            refined[k] = crossing
        settled = float(np.abs(refined - local).max()) < CONVERGED_PX
        local = refined
        if settled:
            break  # another pass would move no corner by a thousandth of a pixel
    return local + origin


_Line = tuple[np.ndarray, np.ndarray]  # a point on the line and its unit direction


def _edge_lines(image: np.ndarray, quad: np.ndarray, reach: float) -> list[_Line] | None:
    """The fitted line of each side k (corner k -> corner k+1), or None if one cannot be fitted.

    All profiles of the four sides are sampled in one `cv2.remap` call.
    """
    ends = np.roll(quad, -1, axis=0)
    lengths = np.linalg.norm(ends - quad, axis=1)
    if lengths.min() < 4.0:
        return None
    along = (ends - quad) / lengths[:, None]
    normals = np.stack([along[:, 1], -along[:, 0]], axis=1)
    outwards = np.sign(np.einsum("ij,ij->i", normals, quad - quad.mean(axis=0)))
    normals *= np.where(outwards == 0, 1.0, outwards)[:, None]  # black border -> quiet zone
    count = max(4, int(lengths.max()))
    fractions = np.linspace(0.15, 0.85, count)
    offsets = np.arange(-reach, reach + 1e-9, 0.25)
    bases = quad[:, None, :] + fractions[None, :, None] * (ends - quad)[:, None, :]
    samples = bases[:, :, None, :] + offsets[None, None, :, None] * normals[:, None, None, :]
    flat = samples.reshape(4 * count, offsets.size, 2).astype(np.float32)
    profile = cv2.remap(
        image,
        np.ascontiguousarray(flat[..., 0]),
        np.ascontiguousarray(flat[..., 1]),
        interpolation=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).reshape(4, count, offsets.size)
    rise = np.clip(np.diff(profile, axis=2), 0.0, None)
    weight = rise.sum(axis=2)
    contrast = float(profile.max() - profile.min())
    if contrast <= 0.0:
        return None
    middles = (offsets[:-1] + offsets[1:]) / 2.0
    usable = weight > 0.2 * contrast  # (4, count): profiles that cross a clear edge
    counts = usable.sum(axis=1)
    if counts.min() < 3:
        return None
    # The edge point of each usable profile; then, per side, the line through the mean of its
    # points along their principal direction (the 2x2 scatter's larger eigenvector, in closed
    # form: the same line a singular value decomposition gives, for all four sides at once).
    shift = (rise @ middles) / np.where(usable, weight, 1.0)
    points = bases + shift[:, :, None] * normals[:, None, :]
    use = usable[:, :, None]
    centre = np.where(use, points, 0.0).sum(axis=1) / counts[:, None]
    d = np.where(use, points - centre[:, None, :], 0.0)
    sxx = np.einsum("ij,ij->i", d[..., 0], d[..., 0])
    syy = np.einsum("ij,ij->i", d[..., 1], d[..., 1])
    sxy = np.einsum("ij,ij->i", d[..., 0], d[..., 1])
    angle = 0.5 * np.arctan2(2.0 * sxy, sxx - syy)
    direction = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    return [(centre[k], direction[k]) for k in range(4)]


def _intersect(first: _Line, second: _Line) -> np.ndarray | None:
    """Where two lines cross, or None when they are (nearly) parallel."""
    (p, u), (q, v) = first, second
    denominator = u[0] * v[1] - u[1] * v[0]
    if abs(denominator) < 1e-9:
        return None
    t = ((q - p)[0] * v[1] - (q - p)[1] * v[0]) / denominator
    return np.asarray(p + t * u, dtype=np.float64)


def _checked_options(
    options: Mapping[str, Any], accepted_names: Mapping[str, Any], who: str
) -> None:
    unknown = sorted(set(options) - set(accepted_names))
    if unknown:
        raise DetectorError(
            f"{who}: unknown option {unknown[0]!r}; accepted options are "
            f"{accepted(sorted(accepted_names))}"
        )


def _number(options: Mapping[str, Any], name: str, low: float, kind: type = float) -> Any:
    value = options[name]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise DetectorError(f"option {name}: expected a number, got {value!r}")
    if kind is int and value != int(value):
        raise DetectorError(f"option {name}: expected a whole number, got {value!r}")
    if value < low:
        raise DetectorError(f"option {name}: expected {low} or more, got {value!r}")
    return kind(value)


def _checked_pupil_options(options: dict[str, Any]) -> dict[str, Any]:
    _checked_options(options, AprilTagDetector.OPTIONS, "pupil-apriltags detector")
    refine = options["refine_edges"]
    if not isinstance(refine, bool | int) or refine not in (0, 1):
        raise DetectorError(f"option refine_edges: expected True or False, got {refine!r}")
    refinement = options["corner_refinement"]
    if refinement not in ("edges", "none"):
        raise DetectorError(
            f"option corner_refinement: unknown {refinement!r}; accepted are 'edges' or 'none'"
        )
    return {
        "corner_refinement": refinement,
        "quad_decimate": _number(options, "quad_decimate", 1.0),
        "quad_sigma": _number(options, "quad_sigma", 0.0),
        "refine_edges": bool(refine),
        "decode_sharpening": _number(options, "decode_sharpening", 0.0),
        "nthreads": _number(options, "nthreads", 1, int),
    }


def _checked_aruco_options(options: dict[str, Any]) -> dict[str, Any]:
    _checked_options(options, ArucoDetector.OPTIONS, "OpenCV ArUco detector")
    rate = _number(options, "min_perimeter_rate", 0.0)
    if not 0.0 < rate < 4.0:
        raise DetectorError(
            f"option min_perimeter_rate: expected a fraction of the image's larger side "
            f"above 0 and below 4, got {rate!r}"
        )
    refinement = options["corner_refinement"]
    if refinement not in CORNER_REFINEMENTS:
        raise DetectorError(
            f"option corner_refinement: unknown {refinement!r}; accepted are "
            f"{accepted(CORNER_REFINEMENTS)}"
        )
    return {"min_perimeter_rate": rate, "corner_refinement": refinement}


def make_detector(family: str = "tag36h11", border_bits: int = 1, **options: Any) -> Detector:
    """A detector for ONE family or dictionary, printed with a `border_bits`-cell black border.

    AprilTag families with `border_bits=1` go to pupil-apriltags (options: quad_decimate,
    quad_sigma, refine_edges, decode_sharpening, nthreads); ArUco dictionaries, and AprilTag
    families with `border_bits=2`, go to OpenCV (options: min_perimeter_rate,
    corner_refinement). Several families in one image need one detector each: pupil silently
    registers only one of several names, so a name with a space is refused rather than
    half-honoured.
    """
    if isinstance(border_bits, bool) or border_bits not in BORDER_BITS:
        raise DetectorError(
            f"border_bits: expected 1 (the usual border) or 2 (Kalibr aprilgrid style), "
            f"got {border_bits!r}"
        )
    if not isinstance(family, str) or family not in FAMILIES:
        several = isinstance(family, str) and len(family.split()) > 1
        hint = " (one family per detector: make one detector for each)" if several else ""
        raise DetectorError(
            f"family: unknown {family!r}{hint}; accepted are the AprilTag families "
            f"{accepted(APRILTAG_FAMILIES)} and the OpenCV dictionaries "
            f"{accepted(OPENCV_DICTIONARIES)}"
        )
    if family in OPENCV_DICTIONARIES:
        return ArucoDetector(family, family, int(border_bits), **options)
    if border_bits == 1:
        return AprilTagDetector(family, **options)
    dictionary = APRILTAG_FAMILIES[family]
    if dictionary is None:
        raise DetectorError(
            f"family: {family!r} cannot be read with border_bits=2 (OpenCV has no dictionary "
            f"for it); with border_bits=2 use {accepted(APRILTAGS_IN_OPENCV)} or an OpenCV "
            f"dictionary"
        )
    return ArucoDetector(family, dictionary, 2, **options)
