"""Tag families: their names, their id counts, the OpenCV dictionaries that draw them, and the
black-and-white pictures of their tags, one pixel per cell, as OpenCV draws them.

The one home of these facts: the game file (which families a game may name), the detector
adapter (which back end reads a family), the tag printer and the synthetic table renderer all
import them from here. AprilTag families are spelled as pupil-apriltags spells them (`tag36h11`);
OpenCV's `DICT_APRILTAG_*` dictionaries draw the same ids that pupil-apriltags decodes, so
`DICT_APRILTAG_36h11` and `tag36h11` print identical markers (`pattern_family`). ArUco
dictionaries are named as OpenCV names them (`DICT_4X4_50`, ...). The picture's top row is the
tag's "top edge", the edge a base faces (docs/formats.md).

Names and id counts need no OpenCV: cv2 is imported only inside the functions that draw, so the
game file loader stays light. Never imports pupil_apriltags (only vision/detect.py does) nor rules
beyond its errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from numbers import Integral
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from rules.errors import UmpireError, accepted

if TYPE_CHECKING:
    import cv2
    import numpy as np

APRILTAG_FAMILIES: Final[Mapping[str, str | None]] = MappingProxyType(
    {
        "tag36h11": "DICT_APRILTAG_36h11",
        "tag25h9": "DICT_APRILTAG_25h9",
        "tag16h5": "DICT_APRILTAG_16h5",
        "tagStandard41h12": None,
    }
)
"""The AprilTag families pupil-apriltags reads -> the OpenCV dictionary that draws (and reads) the
same ids, or None: tagStandard41h12 has its data bits outside the black square, and OpenCV has no
dictionary for it."""

OPENCV_DICTIONARIES: Final[Mapping[str, int]] = MappingProxyType(
    {
        **{f"DICT_{n}X{n}_{k}": k for n in (4, 5, 6, 7) for k in (50, 100, 250, 1000)},
        "DICT_ARUCO_ORIGINAL": 1024,
        "DICT_APRILTAG_16h5": 30,
        "DICT_APRILTAG_25h9": 35,
        "DICT_APRILTAG_36h10": 2320,
        "DICT_APRILTAG_36h11": 587,
        "DICT_ARUCO_MIP_36h12": 250,
    }
)
"""OpenCV's predefined dictionaries (the names of `cv2.aruco.DICT_*`) with how many ids each has
(the tests check them against OpenCV)."""

NOT_IN_OPENCV: Final[Mapping[str, int]] = MappingProxyType({"tagStandard41h12": 2115})
"""The AprilTag families OpenCV cannot draw, with how many ids each has (the AprilTag library's
tagStandard41h12 family holds 2115 codes; the tests check it against pupil-apriltags)."""

APRILTAGS_IN_OPENCV: Final[tuple[str, ...]] = tuple(
    family for family, dictionary in APRILTAG_FAMILIES.items() if dictionary is not None
)
"""The AprilTag families OpenCV can draw and read."""

FAMILIES: Final[tuple[str, ...]] = (*APRILTAG_FAMILIES, *OPENCV_DICTIONARIES)
"""Every family or dictionary name the project knows."""

BORDER_BITS: Final[tuple[int, ...]] = (1, 2)
"""Black border width in cells: 1 for ordinary tags, 2 for Kalibr "aprilgrid" boards."""

_SAME_PATTERNS: Final[Mapping[str, str]] = MappingProxyType(
    {dictionary: family for family, dictionary in APRILTAG_FAMILIES.items() if dictionary}
)
"""OpenCV dictionaries that draw exactly the markers of an AprilTag family (a test checks it)."""

_ID_COUNTS: Final[Mapping[str, int]] = MappingProxyType(
    {
        **{
            family: OPENCV_DICTIONARIES[dictionary] for dictionary, family in _SAME_PATTERNS.items()
        },
        **NOT_IN_OPENCV,
        **OPENCV_DICTIONARIES,
    }
)
"""How many ids each name in `FAMILIES` has."""


class TagError(UmpireError):
    """A tag that cannot be drawn: unknown family, id out of range, bad border width."""


def _unknown_family(family: object, families: tuple[str, ...]) -> TagError:
    return TagError(
        f"unknown tag family {family!r}: accepted are {accepted(families)} "
        f"or an OpenCV ArUco dictionary such as 'DICT_4X4_50' or 'DICT_6X6_250'"
    )


def pattern_family(family: str) -> str:
    """The family whose printed markers `family` draws: the same id is the same marker.

    `DICT_APRILTAG_36h11` and `tag36h11` print identical tags, so a game cannot use id 5 in both
    and an observation of one may be matched to a tag declared in the other.
    """
    return _SAME_PATTERNS.get(family, family)


def family_size(family: str) -> int:
    """How many ids the family has (ids run from 0 to this minus one). Needs no OpenCV."""
    if family not in _ID_COUNTS:
        raise _unknown_family(family, tuple(APRILTAG_FAMILIES))
    return _ID_COUNTS[family]


def dictionary_name(family: str) -> str:
    """The `cv2.aruco.DICT_*` name that draws and reads `family`; raises `TagError` for a family
    OpenCV has no dictionary for, naming what it can draw."""
    if family in NOT_IN_OPENCV:
        raise TagError(
            f"family {family!r} cannot be drawn: OpenCV has no dictionary for it "
            f"(it draws {accepted(APRILTAGS_IN_OPENCV)} and the ArUco DICT_* dictionaries)"
        )
    if family in OPENCV_DICTIONARIES:
        return family
    dictionary = APRILTAG_FAMILIES.get(family)
    if dictionary is None:
        raise _unknown_family(family, APRILTAGS_IN_OPENCV)
    return dictionary


@lru_cache(maxsize=32)
def opencv_dictionary(family: str) -> cv2.aruco.Dictionary:
    """OpenCV's dictionary for a family or dictionary name (shared: do not modify it)."""
    import cv2

    name = dictionary_name(family)
    constant = getattr(cv2.aruco, name, None)
    if not isinstance(constant, int):
        raise TagError(f"this OpenCV ({cv2.__version__}) has no dictionary {name}")
    return cv2.aruco.getPredefinedDictionary(constant)


def cells_across(family: str, border_bits: int = 1) -> int:
    """Cells along one edge of the marker, black border included (8 for tag36h11, border 1)."""
    check_border_bits(border_bits)
    return int(opencv_dictionary(family).markerSize) + 2 * border_bits


def check_border_bits(border_bits: int) -> None:
    """Reject a border width other than 1 or 2 cells."""
    if border_bits not in BORDER_BITS:
        raise TagError(f"border_bits must be {accepted(BORDER_BITS)}, not {border_bits!r}")


@lru_cache(maxsize=4096)
def _cached_bitmap(family: str, tag_id: int, border_bits: int) -> np.ndarray:
    import cv2

    dictionary = opencv_dictionary(family)
    size = family_size(family)
    if not 0 <= tag_id < size:
        raise TagError(
            f"tag id {tag_id} is out of range for family {family!r}: it has {size} ids "
            f"(0 to {size - 1})"
        )
    cells = cells_across(family, border_bits)
    # One pixel per cell: OpenCV scales the cell grid to sidePixels, so asking for exactly
    # `cells` pixels gives an exact cell-per-pixel picture.
    bitmap = cv2.aruco.generateImageMarker(dictionary, tag_id, cells, borderBits=border_bits)
    bitmap.setflags(write=False)
    return bitmap


def tag_bitmap(family: str, tag_id: int, border_bits: int = 1) -> np.ndarray:
    """The marker as a read-only uint8 array, one pixel per cell (0 black, 255 white).

    The black border is included; no white quiet zone is added around it. Its shape is
    `cells_across(family, border_bits)` square; row 0 is the tag's top edge.
    """
    # numpy's integer types register as numbers.Integral, so no numpy import is needed here.
    if isinstance(tag_id, bool) or not isinstance(tag_id, Integral):
        raise TagError(f"tag id must be an integer, not {tag_id!r}")
    return _cached_bitmap(family, int(tag_id), border_bits)
