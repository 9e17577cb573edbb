"""Print-ready tag sheets and the rig plan, for `umpire tags`.

A tag only measures well if it is printed at its true size: the scene builder turns pixels into
millimetres from the tag size the game file states. So the sheets are drawn as vectors at exact
physical size (1:1 when printed at 100%), one filled rectangle per black cell of the marker that
`cv2.aruco.generateImageMarker` draws, with a white quiet zone of one cell, grey crop marks just
outside it, a label under each tag, and on every page a 100 mm ruler to check the printer did not
"fit to page". The PDF (1.4, Helvetica, uncompressed) and the SVG are written by hand so no new
dependency is needed.

The rig plan answers "how high must the camera be, and how small may my tags be?" for a table
size, a camera resolution and its horizontal field of view.

Lengths are millimetres; PDF coordinates are points (1 pt = 25.4/72 mm) with y up, SVG and the
internal drawing use millimetres from the page's top-left corner with y down.
Never imports pupil_apriltags, flask, webui or calibration.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import cv2
import numpy as np

from rules.errors import UmpireError, accepted
from vision.tags import (
    APRILTAGS_IN_OPENCV,
    BORDER_BITS,
    FAMILIES,
    NOT_IN_OPENCV,
    cells_across,
    family_size,
    opencv_dictionary,
    tag_bitmap,
)

MM_PER_PT = 25.4 / 72
"""One PostScript point in millimetres."""

PAGE_SIZES_MM: dict[str, tuple[float, float]] = {"A4": (210.0, 297.0), "letter": (215.9, 279.4)}
"""Paper sizes (width, height) in millimetres; letter is 8.5 x 11 in exactly."""

MIN_PX_ACROSS = 17.0
"""Pixels across a tag's black border below which reading stops being reliable.

Measured (1920x1080, 180 x 120 cm table, camera 150 cm up, tilted 15 degrees): 25 mm tags
spanning 17-22 px were all read (100%), while 20 mm tags spanning 13-18 px were read 86.5-96.5%
of the time. 17 px is the smallest span at which every tag was read; below it tags were lost.
Raise it for a soft lens or poor light.
"""

QUIET_ZONE_CELLS = 1
"""White margin around a tag's black border, in cells: the detector needs at least one."""

LABEL_PT = 6.0
FOOTER_PT = 7.0
RULER_NUMBER_PT = 5.0
CROP_GAP_MM = 0.5
"""Crop marks start this far outside the quiet zone, so they never eat into it."""
CROP_LENGTH_MM = 2.0
CROP_REACH_MM = 3.0
"""Room kept around a tag's quiet zone for its crop marks."""
GAP_MM = 2.0
"""Space between two tags on a sheet."""
FOOTER_MM = 16.0
"""Height kept at the bottom of each page for the ruler, its instruction and the page number."""
RULER_MM = 100
RULER_WORDS = "print at 100% (no fit-to-page): this line must measure 100 mm"
MAX_MARGIN_MM = 40.0
CROP_GREY = 0.5


class PrintingError(UmpireError):
    """A tag, board, page or rig that cannot be printed or planned as asked.

    The message names the argument, what is wrong and what is accepted.
    """


# ---------------------------------------------------------------------------------------------
# Families and markers


def _check_drawable(family: str, what: str) -> None:
    """Refuse a family OpenCV cannot draw, with a clear error naming `what` asked for it."""
    if family in NOT_IN_OPENCV:
        raise PrintingError(
            f"{what}: family {family!r} cannot be printed here: OpenCV has no dictionary that "
            f"draws it; print it with the AprilTag project's own images, or use "
            f"{accepted(APRILTAGS_IN_OPENCV)}"
        )
    if family not in FAMILIES:
        raise PrintingError(
            f"{what}: unknown family {family!r}: accepted are {accepted(APRILTAGS_IN_OPENCV)} "
            f"or an OpenCV ArUco dictionary such as 'DICT_4X4_50' or 'DICT_6X6_250'"
        )


def _black_cells(family: str, tag_id: int, border_bits: int) -> np.ndarray:
    """The marker as a read-only boolean grid, True where a cell is black, one entry per cell."""
    cells = tag_bitmap(family, tag_id, border_bits) < 128
    cells.setflags(write=False)
    return cells


def _is_whole(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _is_length(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def _mm_text(value: float) -> str:
    return f"{value:g} mm"


@dataclass(frozen=True, slots=True)
class PrintTag:
    """One tag to print, with the words that tell the players which base it belongs to."""

    family: str
    """`tag36h11`, `tag25h9`, `tag16h5`, or an OpenCV ArUco dictionary name (`DICT_4X4_50`)."""
    tag_id: int
    """The id within the family."""
    border_bits: int
    """Width of the black border in cells: 1, or 2 for Kalibr aprilgrid-style targets."""
    size_mm: float
    """Edge of the black border square (the whole marker, without its white quiet zone)."""
    label: str
    """Who carries it, in the players' words, e.g. `rifles / rifles-1` or `corner 0`."""

    def __post_init__(self) -> None:
        what = f"tag {self.label!r}" if self.label else "tag"
        _check_drawable(self.family, what)
        if not _is_whole(self.border_bits) or self.border_bits not in BORDER_BITS:
            raise PrintingError(
                f"{what}: border_bits {self.border_bits!r}: accepted are {accepted(BORDER_BITS)}"
            )
        count = family_size(self.family)
        if not _is_whole(self.tag_id) or not 0 <= self.tag_id < count:
            raise PrintingError(
                f"{what}: tag id {self.tag_id!r} is not in {self.family}: accepted are whole "
                f"numbers 0 to {count - 1}"
            )
        if not _is_length(self.size_mm):
            raise PrintingError(
                f"{what}: size_mm {self.size_mm!r}: accepted is a length in mm above 0"
            )
        if not isinstance(self.label, str):
            raise PrintingError(f"tag label {self.label!r}: accepted is a string")

    @property
    def cells_across(self) -> int:
        """Cells along one edge of the black border square, border included."""
        return cells_across(self.family, int(self.border_bits))

    @property
    def cell_mm(self) -> float:
        """The printed edge of one cell."""
        return float(self.size_mm) / self.cells_across

    def cells(self) -> np.ndarray:
        """The marker as OpenCV draws it, row 0 at the top: True where a cell is black."""
        return _black_cells(self.family, int(self.tag_id), int(self.border_bits))

    @property
    def details(self) -> str:
        """What the tag is: `tag36h11 #10 · 16 mm` (plus the border when it is not 1)."""
        text = f"{self.family} #{self.tag_id} · {_mm_text(float(self.size_mm))}"
        return text + (f" · border {self.border_bits}" if self.border_bits != 1 else "")

    @property
    def caption(self) -> str:
        """The label and the details on one line: `rifles / rifles-1 · tag36h11 #10 · 16 mm`."""
        return f"{self.label} · {self.details}" if self.label else self.details


@dataclass(frozen=True, slots=True)
class CharucoSheet:
    """A ChArUco calibration board to print: a chessboard with an ArUco marker in each white
    square, laid out exactly as `cv2.aruco.CharucoBoard` defines it (its top-left square black)."""

    squares_x: int
    """Squares along the board's width."""
    squares_y: int
    """Squares along the board's height."""
    square_mm: float
    """Edge of one chessboard square."""
    marker_mm: float
    """Edge of the black border of each marker (smaller than a square)."""
    dictionary: str
    """The markers' dictionary: an OpenCV name (`DICT_4X4_50`) or an AprilTag family."""

    def __post_init__(self) -> None:
        what = "ChArUco board"
        _check_drawable(self.dictionary, what)
        for field_name in ("squares_x", "squares_y"):
            value = getattr(self, field_name)
            if not _is_whole(value) or value < 2:
                raise PrintingError(
                    f"{what}: {field_name} {value!r}: accepted are whole numbers 2 or more"
                )
        for field_name in ("square_mm", "marker_mm"):
            value = getattr(self, field_name)
            if not _is_length(value):
                raise PrintingError(
                    f"{what}: {field_name} {value!r}: accepted is a length in mm above 0"
                )
        if self.marker_mm >= self.square_mm:
            raise PrintingError(
                f"{what}: marker_mm {self.marker_mm!r} must be smaller than square_mm "
                f"{self.square_mm!r} so each marker sits inside its white square"
            )
        markers = (self.squares_x * self.squares_y) // 2
        available = family_size(self.dictionary)
        if markers > available:
            raise PrintingError(
                f"{what}: {self.squares_x} x {self.squares_y} squares need {markers} markers but "
                f"{self.dictionary} has only {available}: use fewer squares or a "
                f"larger dictionary such as 'DICT_5X5_100'"
            )

    @property
    def width_mm(self) -> float:
        return self.squares_x * float(self.square_mm)

    @property
    def height_mm(self) -> float:
        return self.squares_y * float(self.square_mm)

    def board(self) -> Any:
        """The `cv2.aruco.CharucoBoard` of this sheet, in millimetres (for detection too)."""
        return cv2.aruco.CharucoBoard(
            (int(self.squares_x), int(self.squares_y)),
            float(self.square_mm),
            float(self.marker_mm),
            opencv_dictionary(self.dictionary),
        )

    @property
    def caption_lines(self) -> tuple[str, ...]:
        return (
            f"ChArUco board · {self.squares_x} x {self.squares_y} squares of "
            f"{_mm_text(float(self.square_mm))} · markers {_mm_text(float(self.marker_mm))} · "
            f"{self.dictionary}",
            f"check with a ruler: each square must measure {_mm_text(float(self.square_mm))}; "
            f"glue the sheet flat on card",
        )


def charuco_sheet(
    squares_x: int, squares_y: int, square_mm: float, marker_mm: float, dictionary: str
) -> CharucoSheet:
    """A ChArUco board to print with `render_sheets(..., boards=[...])`, checked on creation."""
    return CharucoSheet(squares_x, squares_y, square_mm, marker_mm, dictionary)


# ---------------------------------------------------------------------------------------------
# A tiny drawing model: millimetres from the page's top-left corner, y down.


@dataclass(frozen=True, slots=True)
class _Rect:
    """A black filled rectangle given by its edges, so neighbouring cells share exact edges."""

    left: float
    top: float
    right: float
    bottom: float


@dataclass(frozen=True, slots=True)
class _Line:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float
    grey: float
    """0 is black, 1 is white."""


@dataclass(frozen=True, slots=True)
class _Text:
    x: float
    y: float
    """The baseline."""
    text: str
    size_pt: float
    anchor: str
    """`start`, `middle` or `end`, as in SVG."""


@dataclass(frozen=True, slots=True)
class _Group:
    kind: str
    attrs: tuple[tuple[str, str], ...]
    items: tuple[_Item, ...]


_Item = _Rect | _Line | _Text | _Group


@dataclass(frozen=True, slots=True)
class _Page:
    width: float
    height: float
    items: tuple[_Item, ...]


# Helvetica advance widths (Adobe AFM, 1/1000 em) for printable ASCII, to centre labels.
_HELVETICA = dict(
    zip(
        (chr(c) for c in range(32, 127)),
        (
            278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
            556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
            1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
            667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
            333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
            556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
        ),
        strict=True,
    )
)  # fmt: skip
_HELVETICA["·"] = 278


def _text_width(text: str, size_pt: float) -> float:
    """Width of `text` set in Helvetica, in mm (unknown characters count as a digit)."""
    return sum(_HELVETICA.get(ch, 556) for ch in text) / 1000 * size_pt * MM_PER_PT


def _cell_rects(cells: np.ndarray, left: float, top: float, cell: float) -> tuple[_Rect, ...]:
    """One rectangle per black cell; grid lines computed once so shared edges are identical."""
    rows, cols = cells.shape
    xs = [left + i * cell for i in range(cols + 1)]
    ys = [top + i * cell for i in range(rows + 1)]
    return tuple(
        _Rect(xs[c], ys[r], xs[c + 1], ys[r + 1])
        for r in range(rows)
        for c in range(cols)
        if cells[r, c]
    )


def _crop_marks(left: float, top: float, right: float, bottom: float) -> _Group:
    """Short grey lines on the extension of each edge, starting a little outside the corners."""
    near, far = CROP_GAP_MM, CROP_GAP_MM + CROP_LENGTH_MM
    lines = []
    for x, sx in ((left, -1), (right, 1)):
        for y, sy in ((top, -1), (bottom, 1)):
            lines.append(_Line(x + sx * near, y, x + sx * far, y, 0.1, CROP_GREY))
            lines.append(_Line(x, y + sy * near, x, y + sy * far, 0.1, CROP_GREY))
    return _Group("crop-marks", (), tuple(lines))


@dataclass(frozen=True, slots=True)
class _Block:
    """Something to place on a page: its size, what it is (for messages), and the tag or the
    board it draws."""

    width: float
    height: float
    what: str
    tag: PrintTag | None = None
    board: CharucoSheet | None = None


def _line_height(size_pt: float) -> float:
    return 1.25 * size_pt * MM_PER_PT


def _tag_block(tag: PrintTag) -> _Block:
    box = tag.size_mm + 2 * QUIET_ZONE_CELLS * tag.cell_mm
    lines = _tag_lines(tag)
    width = max(box + 2 * CROP_REACH_MM, *(_text_width(t, LABEL_PT) for t in lines))
    height = box + 2 * CROP_REACH_MM + len(lines) * _line_height(LABEL_PT)
    return _Block(width, height, f"tag {tag.caption!r}", tag=tag)


def _tag_lines(tag: PrintTag) -> tuple[str, ...]:
    return (tag.label, tag.details) if tag.label else (tag.details,)


def _draw_tag(tag: PrintTag, block: _Block, x: float, y: float) -> tuple[_Item, ...]:
    quiet = QUIET_ZONE_CELLS * tag.cell_mm
    box = tag.size_mm + 2 * quiet
    box_left = x + (block.width - box) / 2
    box_top = y + CROP_REACH_MM
    cells = _cell_rects(tag.cells(), box_left + quiet, box_top + quiet, tag.cell_mm)
    attrs = (
        ("family", tag.family),
        ("id", str(tag.tag_id)),
        ("size-mm", f"{tag.size_mm:g}"),
        ("border-bits", str(tag.border_bits)),
    )
    items: list[_Item] = [
        _Group("tag", attrs, cells),
        _crop_marks(box_left, box_top, box_left + box, box_top + box),
    ]
    centre = x + block.width / 2
    line_top = box_top + box + CROP_REACH_MM
    for i, text in enumerate(_tag_lines(tag)):
        baseline = line_top + (i + 0.8) * _line_height(LABEL_PT)
        items.append(_Text(centre, baseline, text, LABEL_PT, "middle"))
    return tuple(items)


def _board_block(board: CharucoSheet) -> _Block:
    lines = board.caption_lines
    width = max(board.width_mm, *(_text_width(t, FOOTER_PT) for t in lines))
    height = board.height_mm + CROP_REACH_MM + len(lines) * _line_height(FOOTER_PT)
    return _Block(width, height, "ChArUco board", board=board)


def _draw_board(board: CharucoSheet, block: _Block, x: float, y: float) -> tuple[_Item, ...]:
    """Black squares are the squares holding no marker; each marker is drawn cell by cell where
    OpenCV's board places it (its object points, y down as in `generateImage`)."""
    cv_board = board.board()
    left = x + (block.width - board.width_mm) / 2
    square = float(board.square_mm)
    corners = [np.asarray(c, dtype=float).reshape(4, 3) for c in cv_board.getObjPoints()]
    ids = [int(i) for i in np.asarray(cv_board.getIds()).ravel()]
    with_marker = {(int(c[:, 0].mean() // square), int(c[:, 1].mean() // square)) for c in corners}
    xs = [left + i * square for i in range(board.squares_x + 1)]
    ys = [y + i * square for i in range(board.squares_y + 1)]
    squares = tuple(
        _Rect(xs[col], ys[row], xs[col + 1], ys[row + 1])
        for row in range(board.squares_y)
        for col in range(board.squares_x)
        if (col, row) not in with_marker
    )
    markers: list[_Item] = []
    for marker_id, c in zip(ids, corners, strict=True):
        cells = _black_cells(board.dictionary, marker_id, 1)
        cell = float(board.marker_mm) / cells.shape[0]
        rects = _cell_rects(cells, left + c[0, 0], y + c[0, 1], cell)
        markers.append(_Group("marker", (("id", str(marker_id)),), rects))
    attrs = (
        ("squares", f"{board.squares_x}x{board.squares_y}"),
        ("square-mm", f"{board.square_mm:g}"),
        ("marker-mm", f"{board.marker_mm:g}"),
        ("dictionary", board.dictionary),
    )
    items: list[_Item] = [_Group("charuco", attrs, (_Group("squares", (), squares), *markers))]
    line_top = y + board.height_mm + CROP_REACH_MM
    for i, text in enumerate(board.caption_lines):
        baseline = line_top + (i + 0.8) * _line_height(FOOTER_PT)
        items.append(_Text(x + block.width / 2, baseline, text, FOOTER_PT, "middle"))
    return tuple(items)


def _draw(block: _Block, x: float, y: float) -> tuple[_Item, ...]:
    if block.tag is not None:
        return _draw_tag(block.tag, block, x, y)
    assert block.board is not None
    return _draw_board(block.board, block, x, y)


def _footer(width: float, height: float, margin: float, number: int, pages: int) -> _Group:
    """The 100 mm ruler with mm ticks, what it is for, and the page number."""
    line_y = height - margin - 12.0
    left = margin
    ruler: list[_Item] = [_Line(left, line_y, left + RULER_MM, line_y, 0.2, 0.0)]
    for mm in range(RULER_MM + 1):
        length = 4.0 if mm % 10 == 0 else 2.5 if mm % 5 == 0 else 1.5
        ruler.append(_Line(left + mm, line_y, left + mm, line_y + length, 0.15, 0.0))
        if mm % 10 == 0:
            ruler.append(_Text(left + mm, line_y + 6.2, str(mm), RULER_NUMBER_PT, "middle"))
    words = _Text(left, height - margin, RULER_WORDS, FOOTER_PT, "start")
    page = _Text(width - margin, height - margin, f"page {number} of {pages}", FOOTER_PT, "end")
    ruler_group = _Group("ruler", (("length-mm", str(RULER_MM)),), tuple(ruler))
    return _Group("footer", (), (ruler_group, words, page))


def _page_size(page: str) -> tuple[float, float]:
    for name, size in PAGE_SIZES_MM.items():
        if isinstance(page, str) and page.lower() == name.lower():
            return size
    raise PrintingError(f"page {page!r}: accepted are {accepted(PAGE_SIZES_MM)}")


def _layout(
    tags: Iterable[PrintTag], boards: Iterable[CharucoSheet], page: str, margin_mm: float
) -> tuple[_Page, ...]:
    """Tags flow left to right, row by row, page by page, in the order given; each board gets a
    page of its own after the tags. Every page gets the footer."""
    width, height = _page_size(page)
    if (
        not isinstance(margin_mm, int | float)
        or isinstance(margin_mm, bool)
        or not 0 <= margin_mm <= MAX_MARGIN_MM
    ):
        raise PrintingError(
            f"margin_mm {margin_mm!r}: accepted is a length from 0 to {MAX_MARGIN_MM:g} mm"
        )
    tags, boards = list(tags), list(boards)
    for item in (*tags, *boards):
        if not isinstance(item, PrintTag | CharucoSheet):
            raise PrintingError(f"cannot print {item!r}: accepted are PrintTag and CharucoSheet")
    if not tags and not boards:
        raise PrintingError("nothing to print: give at least one tag or board")
    left, top = float(margin_mm), float(margin_mm)
    right, bottom = width - margin_mm, height - margin_mm - FOOTER_MM
    room = f"{right - left:g} x {bottom - top:g} mm"

    def check_fits(block: _Block) -> None:
        if block.width > right - left or block.height > bottom - top:
            raise PrintingError(
                f"{block.what} needs {block.width:.1f} x {block.height:.1f} mm but the {page} page "
                f"with {margin_mm:g} mm margins has room for {room}: make it smaller or use a "
                f"larger page"
            )

    pages: list[list[_Item]] = []
    current: list[_Item] = []
    x, y, row_height = left, top, 0.0
    for block in (_tag_block(t) for t in tags):
        check_fits(block)
        if x > left and x + block.width > right:
            x, y, row_height = left, y + row_height + GAP_MM, 0.0
        if y + block.height > bottom:
            pages.append(current)
            current, x, y, row_height = [], left, top, 0.0
        current.extend(_draw(block, x, y))
        x += block.width + GAP_MM
        row_height = max(row_height, block.height)
    if current:
        pages.append(current)
    for board in boards:
        block = _board_block(board)
        check_fits(block)
        pages.append(list(_draw(block, left + (right - left - block.width) / 2, top)))
    return tuple(
        _Page(width, height, (*items, _footer(width, height, margin_mm, n, len(pages))))
        for n, items in enumerate(pages, start=1)
    )


# ---------------------------------------------------------------------------------------------
# PDF


def _num(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _pt(mm: float) -> float:
    return round(mm / MM_PER_PT, 4)


def _pdf_string(text: str) -> str:
    """A PDF literal string in WinAnsiEncoding; characters it lacks print as '?'."""
    out = []
    for byte in text.encode("cp1252", errors="replace"):
        if byte in b"\\()":
            out.append("\\" + chr(byte))
        elif 32 <= byte < 127:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return "(" + "".join(out) + ")"


def _pdf_ops(item: _Item, page_height: float, out: list[str]) -> None:
    if isinstance(item, _Rect):
        x0, x1 = _pt(item.left), _pt(item.right)
        y0, y1 = _pt(page_height - item.bottom), _pt(page_height - item.top)
        out.append(f"{_num(x0)} {_num(y0)} {_num(x1 - x0)} {_num(y1 - y0)} re f")
    elif isinstance(item, _Line):
        out.append(
            f"{_num(item.grey)} G {_num(_pt(item.width))} w {_num(_pt(item.x1))} "
            f"{_num(_pt(page_height - item.y1))} m {_num(_pt(item.x2))} "
            f"{_num(_pt(page_height - item.y2))} l S"
        )
    elif isinstance(item, _Text):
        width = _text_width(item.text, item.size_pt)
        shift = {"start": 0.0, "middle": width / 2, "end": width}[item.anchor]
        out.append(
            f"BT /F1 {_num(item.size_pt)} Tf {_num(_pt(item.x - shift))} "
            f"{_num(_pt(page_height - item.y))} Td {_pdf_string(item.text)} Tj ET"
        )
    else:
        # Comments are allowed in content streams; they let a reader find each tag's cells.
        label = " ".join(value for _, value in item.attrs)
        out.append(f"% {item.kind} {label}".rstrip())
        for child in item.items:
            _pdf_ops(child, page_height, out)
        out.append(f"% end {item.kind}")


def _pdf(pages: Sequence[_Page]) -> bytes:
    """A PDF 1.4 file: catalog, page tree, Helvetica, then a page and its content per page."""
    objects: list[bytes] = []
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(len(pages)))
    # PrintScaling /None asks viewers to default to 100% in their print dialogue.
    objects.append(
        b"<< /Type /Catalog /Pages 2 0 R /ViewerPreferences << /PrintScaling /None >> >>"
    )
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    for i, page in enumerate(pages):
        ops = ["0 g 0 G 0 J"]
        for item in page.items:
            _pdf_ops(item, page.height, ops)
        content = ("\n".join(ops) + "\n").encode("ascii")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {_num(_pt(page.width))} "
            f"{_num(_pt(page.height))}] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {5 + 2 * i} 0 R >>".encode()
        )
        objects.append(f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"endstream")
    objects.append(b"<< /Title (Umpire tag sheets) /Producer (umpire) >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {len(objects)} 0 R >>\n"
        f"startxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# SVG


def _svg_items(item: _Item, out: list[str]) -> None:
    if isinstance(item, _Rect):
        out.append(
            f'<rect x="{_num(item.left)}" y="{_num(item.top)}" '
            f'width="{_num(item.right - item.left)}" height="{_num(item.bottom - item.top)}"/>'
        )
    elif isinstance(item, _Line):
        grey = round(255 * item.grey)
        out.append(
            f'<line x1="{_num(item.x1)}" y1="{_num(item.y1)}" x2="{_num(item.x2)}" '
            f'y2="{_num(item.y2)}" stroke="#{grey:02x}{grey:02x}{grey:02x}" '
            f'stroke-width="{_num(item.width)}"/>'
        )
    elif isinstance(item, _Text):
        out.append(
            f'<text x="{_num(item.x)}" y="{_num(item.y)}" '
            f'font-size="{_num(item.size_pt * MM_PER_PT)}" text-anchor="{item.anchor}">'
            f"{escape(item.text)}</text>"
        )
    else:
        attrs = "".join(f" data-{key}={quoteattr(value)}" for key, value in item.attrs)
        out.append(f'<g class="{item.kind}"{attrs}>')
        for child in item.items:
            _svg_items(child, out)
        out.append("</g>")


def _svg(page: _Page, number: int, pages: int) -> bytes:
    """One page as SVG: width and height in mm, a viewBox in mm, so 1 user unit = 1 mm."""
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(page.width)}mm" '
        f'height="{_num(page.height)}mm" viewBox="0 0 {_num(page.width)} {_num(page.height)}">',
        f"<title>Umpire tag sheets, page {number} of {pages}</title>",
        '<rect class="paper" width="100%" height="100%" fill="#fff"/>',
        '<g fill="#000" shape-rendering="crispEdges" stroke-linecap="butt" '
        'font-family="Helvetica, Arial, sans-serif">',
    ]
    for item in page.items:
        _svg_items(item, out)
    out += ["</g>", "</svg>", ""]
    return "\n".join(out).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# Public entry points


def render_sheets(
    tags: Iterable[PrintTag],
    *,
    boards: Iterable[CharucoSheet] = (),
    page: str = "A4",
    margin_mm: float = 10,
    fmt: str = "pdf",
) -> bytes:
    """The tags (then any ChArUco boards, a page each) as one printable document.

    `fmt="pdf"` gives every page in one PDF; `fmt="svg"` gives one SVG and so refuses when the
    sheets need more than one page (use `render_svg_pages` or `write_sheets` then).
    """
    pages = _layout(tags, boards, page, margin_mm)
    if fmt == "pdf":
        return _pdf(pages)
    if fmt == "svg":
        if len(pages) > 1:
            raise PrintingError(
                f"the sheets need {len(pages)} pages but one SVG holds one page: write a PDF, "
                f"or one SVG per page with render_svg_pages / write_sheets"
            )
        return _svg(pages[0], 1, 1)
    raise PrintingError(f"fmt {fmt!r}: accepted are 'pdf' or 'svg'")


def render_svg_pages(
    tags: Iterable[PrintTag],
    *,
    boards: Iterable[CharucoSheet] = (),
    page: str = "A4",
    margin_mm: float = 10,
) -> tuple[bytes, ...]:
    """The sheets as one SVG per page."""
    pages = _layout(tags, boards, page, margin_mm)
    return tuple(_svg(p, n, len(pages)) for n, p in enumerate(pages, start=1))


def write_sheets(
    out: Path,
    tags: Iterable[PrintTag],
    *,
    boards: Iterable[CharucoSheet] = (),
    page: str = "A4",
    margin_mm: float = 10,
) -> tuple[Path, ...]:
    """Write the sheets to `out`, its suffix choosing the format; returns the files written.

    A `.pdf` is one file. A `.svg` is one file per page: `out` itself for a single page, else
    `NAME-1.svg`, `NAME-2.svg`, ... beside it.
    """
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix == ".pdf":
        out.write_bytes(render_sheets(tags, boards=boards, page=page, margin_mm=margin_mm))
        return (out,)
    if suffix == ".svg":
        pages = render_svg_pages(tags, boards=boards, page=page, margin_mm=margin_mm)
        if len(pages) == 1:
            paths = [out]
        else:
            paths = [out.with_name(f"{out.stem}-{n}{out.suffix}") for n in range(1, len(pages) + 1)]
        for path, data in zip(paths, pages, strict=True):
            path.write_bytes(data)
        return tuple(paths)
    raise PrintingError(f"output file {str(out)!r}: accepted suffixes are '.pdf' or '.svg'")


# ---------------------------------------------------------------------------------------------
# Rig plan


@dataclass(frozen=True, slots=True)
class RigPlan:
    """Where to put the camera and how small the tags may be, for one table and camera.

    The model is an ideal pinhole camera (square pixels, no lens distortion) over the table's
    centre line, the table's width along the picture's width and its far edge at the top. With
    `tilt_deg = 0` the camera looks straight down at the table centre; then the table is parallel
    to the sensor and one pixel covers the same millimetres everywhere, so the centre and far
    edge figures are equal. A tilted camera still aims at the table centre, from the near side,
    and the far edge is then the worst place. A real wide lens squeezes the corners (barrel
    distortion), which this model does not include: that is one reason to print tags a little
    larger than `smallest_tag_mm`.
    """

    table_w_mm: float
    table_d_mm: float
    width_px: int
    height_px: int
    hfov_deg: float
    """Horizontal field of view (across the picture's width)."""
    vfov_deg: float
    """Vertical field of view, from the horizontal one and the picture's shape."""
    tilt_deg: float
    """Camera tilt from straight down, towards the far edge."""
    min_px_across: float
    """Pixels across a tag's black border needed to read it reliably."""
    camera_height_mm: float
    """Lens height above the table for the whole table to just fill the picture."""
    camera_y_mm: float
    """Where the camera stands along the table's depth (table frame; negative: behind the near
    edge)."""
    limited_by: str
    """`width` or `depth`: which of the table's sides fills the picture first."""
    mm_per_px_centre: float
    """Table millimetres one pixel covers at the table centre (the worse direction)."""
    mm_per_px_far_edge: float
    """The same at the far edge (its worst point)."""
    mm_per_px_worst: float
    """The largest over the table: what limits the smallest tag."""
    smallest_tag_mm: int
    """Smallest black-border size that spans `min_px_across` pixels at the worst point, rounded
    up to a whole millimetre."""

    def px_across(self, tag_mm: float) -> float:
        """Pixels across a tag of this size at the worst point of the table."""
        return tag_mm / self.mm_per_px_worst

    def lines(self) -> tuple[str, ...]:
        """A readable summary, one sentence a line."""
        look = (
            "looking straight down at the table centre"
            if self.tilt_deg == 0
            else f"tilted {self.tilt_deg:g}° from straight down towards the far edge"
        )
        where = (
            "over the table centre"
            if self.tilt_deg == 0
            else f"{self.camera_y_mm:.0f} mm from the near edge along the table's centre line"
            if self.camera_y_mm >= 0
            else f"{-self.camera_y_mm:.0f} mm behind the near edge, on the table's centre line"
        )
        return (
            f"table {self.table_w_mm:g} x {self.table_d_mm:g} mm, camera {self.width_px} x "
            f"{self.height_px} px with a {self.hfov_deg:g}° x {self.vfov_deg:.1f}° field of "
            f"view, {look}",
            f"camera height: {self.camera_height_mm:.0f} mm above the table, {where} (the "
            f"table's {self.limited_by} fills the picture)",
            f"mm per pixel: {self.mm_per_px_centre:.2f} at the centre, "
            f"{self.mm_per_px_far_edge:.2f} at the far edge, {self.mm_per_px_worst:.2f} at worst",
            f"smallest tag that reads reliably: {self.smallest_tag_mm} mm black border "
            f"({self.px_across(self.smallest_tag_mm):.1f} px across at worst; "
            f"{self.min_px_across:g} px needed)",
            "ideal lens assumed: with a wide-angle lens, print tags a few mm larger",
        )


def _rig_number(name: str, value: object, low: float, high: float = math.inf) -> float:
    if (
        not isinstance(value, int | float)
        or isinstance(value, bool)
        or not math.isfinite(value)
        or not low < value < high
    ):
        bound = f"above {low:g}" if high == math.inf else f"between {low:g} and {high:g}"
        raise PrintingError(f"rig plan: {name} {value!r}: accepted is a number {bound}")
    return float(value)


def rig_plan(
    table_w_mm: float,
    table_d_mm: float,
    width_px: int,
    height_px: int,
    hfov_deg: float,
    *,
    tilt_deg: float = 0.0,
    min_px_across: float = MIN_PX_ACROSS,
) -> RigPlan:
    """The camera height that shows the whole table, mm per pixel, and the smallest tag.

    Camera frame (OpenCV): x right, y down the picture, z along the view. The camera aims at the
    table centre from distance L along its axis a = (0, sin t, -cos t) in the table frame (z up).
    A table point at (qx, qy) from the centre is then at x = qx, y = -qy cos t, z = L + qy sin t
    in the camera, and lands at f x / z, f y / z pixels from the principal point. It is inside
    the picture when |f x / z| <= width/2 and |f y / z| <= height/2, which gives the least L for
    each corner in closed form. The camera's height is L cos t.
    """
    width = _rig_number("table width (mm)", table_w_mm, 0)
    depth = _rig_number("table depth (mm)", table_d_mm, 0)
    for name, value in (("width_px", width_px), ("height_px", height_px)):
        if not _is_whole(value) or int(value) < 1:
            raise PrintingError(f"rig plan: {name} {value!r}: accepted is a whole number of pixels")
    hfov = _rig_number("hfov_deg", hfov_deg, 0, 180)
    tilt = 0.0 if tilt_deg == 0 else _rig_number("tilt_deg", tilt_deg, 0, 60)
    needed = _rig_number("min_px_across", min_px_across, 0)
    half_w, half_h = width_px / 2, height_px / 2
    f = half_w / math.tan(math.radians(hfov) / 2)
    vfov = math.degrees(2 * math.atan(half_h / f))
    s, c = math.sin(math.radians(tilt)), math.cos(math.radians(tilt))
    corners = [(sx * width / 2, sy * depth / 2) for sx in (-1, 1) for sy in (-1, 1)]
    by_width = max(f * abs(qx) / half_w - s * qy for qx, qy in corners)
    by_depth = max(f * c * abs(qy) / half_h - s * qy for qx, qy in corners)
    distance = max(by_width, by_depth)

    def mm_per_px(qx: float, qy: float) -> float:
        # Jacobian of the pixel position against the table position; its smallest singular
        # value is the fewest pixels per mm in any direction, i.e. the worst direction.
        z = distance + s * qy
        jacobian = np.array([[f / z, -f * qx * s / z**2], [0.0, -f * c * distance / z**2]])
        return float(1 / np.linalg.svd(jacobian, compute_uv=False)[-1])

    xs, ys = (-width / 2, 0.0, width / 2), (-depth / 2, 0.0, depth / 2)
    far_edge = max(mm_per_px(qx, depth / 2) for qx in xs)
    worst = max(mm_per_px(qx, qy) for qx in xs for qy in ys)
    return RigPlan(
        table_w_mm=width,
        table_d_mm=depth,
        width_px=int(width_px),
        height_px=int(height_px),
        hfov_deg=hfov,
        vfov_deg=vfov,
        tilt_deg=tilt,
        min_px_across=needed,
        camera_height_mm=distance * c,
        camera_y_mm=depth / 2 - distance * s,
        limited_by="width" if by_width >= by_depth else "depth",
        mm_per_px_centre=mm_per_px(0.0, 0.0),
        mm_per_px_far_edge=far_edge,
        mm_per_px_worst=worst,
        smallest_tag_mm=math.ceil(needed * worst - 1e-9),
    )
