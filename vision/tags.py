"""The black-and-white pictures of fiducial tags, one pixel per cell, as OpenCV draws them.

Used by the synthetic table renderer (and by anything that prints or draws tags). AprilTag
families come from OpenCV's `DICT_APRILTAG_*` dictionaries, which draw the same ids that
pupil-apriltags decodes; ArUco dictionaries are named as OpenCV names them (`DICT_4X4_50`, ...).
The picture's top row is the tag's "top edge", the edge a base faces (CONTRACT.md).

Never imports pupil_apriltags (only vision/detect.py does) nor rules.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from rules.errors import UmpireError, accepted

# AprilTag family names (as pupil-apriltags spells them) -> OpenCV dictionary constant names.
APRILTAG_FAMILIES: dict[str, str] = {
    "tag36h11": "DICT_APRILTAG_36h11",
    "tag25h9": "DICT_APRILTAG_25h9",
    "tag16h5": "DICT_APRILTAG_16h5",
}

# AprilTag families the project knows but OpenCV cannot draw.
NOT_IN_OPENCV: tuple[str, ...] = ("tagStandard41h12",)

BORDER_BITS: tuple[int, ...] = (1, 2)


class TagError(UmpireError):
    """A tag that cannot be drawn: unknown family, id out of range, bad border width."""


def aruco_dictionary_names() -> tuple[str, ...]:
    """The ArUco dictionary names OpenCV offers (`DICT_4X4_50`, ...), AprilTag ones excluded."""
    return tuple(
        sorted(
            name
            for name in dir(cv2.aruco)
            if name.startswith("DICT_") and not name.startswith("DICT_APRILTAG")
        )
    )


def known_families() -> tuple[str, ...]:
    """Every family name `tag_bitmap` accepts."""
    return (*APRILTAG_FAMILIES, *aruco_dictionary_names())


@lru_cache(maxsize=32)
def _dictionary(family: str) -> cv2.aruco.Dictionary:
    """OpenCV's dictionary for a family name; raises `TagError` naming the accepted names."""
    if family in NOT_IN_OPENCV:
        raise TagError(
            f"family {family!r} cannot be drawn: OpenCV has no dictionary for it "
            f"(it draws {accepted(APRILTAG_FAMILIES)} and the ArUco DICT_* dictionaries)"
        )
    constant = APRILTAG_FAMILIES.get(family, family)
    if not constant.startswith("DICT_") or not hasattr(cv2.aruco, constant):
        raise TagError(
            f"unknown tag family {family!r}: accepted are {accepted(APRILTAG_FAMILIES)} "
            f"or an OpenCV ArUco dictionary such as 'DICT_4X4_50' or 'DICT_6X6_250'"
        )
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, constant))


def family_size(family: str) -> int:
    """How many ids the family has (ids run from 0 to this minus one)."""
    return int(_dictionary(family).bytesList.shape[0])


def cells_across(family: str, border_bits: int = 1) -> int:
    """Cells along one edge of the marker, black border included (8 for tag36h11, border 1)."""
    check_border_bits(border_bits)
    return int(_dictionary(family).markerSize) + 2 * border_bits


def check_border_bits(border_bits: int) -> None:
    """Reject a border width other than 1 or 2 cells."""
    if border_bits not in BORDER_BITS:
        raise TagError(f"border_bits must be {accepted(BORDER_BITS)}, not {border_bits!r}")


@lru_cache(maxsize=4096)
def _cached_bitmap(family: str, tag_id: int, border_bits: int) -> np.ndarray:
    dictionary = _dictionary(family)
    size = family_size(family)
    if not 0 <= tag_id < size:
        raise TagError(
            f"tag id {tag_id} is out of range for family {family!r}: it has {size} ids "
            f"(0 to {size - 1})"
        )
    check_border_bits(border_bits)
    cells = cells_across(family, border_bits)
    # One pixel per cell: OpenCV scales the cell grid to sidePixels, so asking for exactly
    # `cells` pixels gives an exact cell-per-pixel picture.
    bitmap = cv2.aruco.generateImageMarker(dictionary, int(tag_id), cells, borderBits=border_bits)
    bitmap.setflags(write=False)
    return bitmap


def tag_bitmap(family: str, tag_id: int, border_bits: int = 1) -> np.ndarray:
    """The marker as a read-only uint8 array, one pixel per cell (0 black, 255 white).

    The black border is included; no white quiet zone is added around it. Its shape is
    `cells_across(family, border_bits)` square; row 0 is the tag's top edge.
    """
    if isinstance(tag_id, bool) or not isinstance(tag_id, int | np.integer):
        raise TagError(f"tag id must be an integer, not {tag_id!r}")
    return _cached_bitmap(family, int(tag_id), border_bits)
