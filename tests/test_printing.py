"""Tag sheets at exact physical size, the ChArUco board, and the rig plan.

The PDF is parsed just enough to read page sizes, each tag's filled cells and the text; the SVG
is parsed with xml.etree and its cells rasterised by hand so a detector can read the ids back.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.printing import (
    PrintingError,
    PrintTag,
    charuco_sheet,
    render_sheets,
    render_svg_pages,
    rig_plan,
    write_sheets,
)

PT = 72 / 25.4  # points per mm
SVG = "{http://www.w3.org/2000/svg}"
Box = tuple[float, float, float, float]
RULER_WORDS = "print at 100% (no fit-to-page): this line must measure 100 mm"


# --- a minimal PDF reader -------------------------------------------------------------------


def pdf_objects(pdf: bytes) -> dict[int, bytes]:
    return {
        int(m.group(1)): m.group(2)
        for m in re.finditer(rb"(\d+) 0 obj\n(.*?)\nendobj", pdf, flags=re.DOTALL)
    }


def pdf_pages(pdf: bytes) -> list[tuple[tuple[float, ...], str]]:
    """(MediaBox, content stream) of each page, in the page tree's order."""
    objects = pdf_objects(pdf)
    kids = re.search(rb"/Kids \[([^\]]*)\]", objects[2])
    assert kids is not None
    pages = []
    for number in re.findall(rb"(\d+) 0 R", kids.group(1)):
        page = objects[int(number)]
        box = re.search(rb"/MediaBox \[([^\]]*)\]", page)
        contents = re.search(rb"/Contents (\d+) 0 R", page)
        assert box is not None and contents is not None
        stream = re.search(rb"stream\n(.*)endstream", objects[int(contents.group(1))], re.DOTALL)
        assert stream is not None
        pages.append((tuple(float(v) for v in box.group(1).split()), stream.group(1).decode()))
    return pages


def pdf_groups(content: str, kind: str) -> list[tuple[list[str], list[str]]]:
    """The operator lines inside each `% kind ... / % end kind` group, with the group's words."""
    groups: list[tuple[list[str], list[str]]] = []
    current: tuple[list[str], list[str]] | None = None
    for line in content.splitlines():
        if line.startswith(f"% {kind}"):
            current = (line.split()[2:], [])
        elif line == f"% end {kind}":
            assert current is not None
            groups.append(current)
            current = None
        elif current is not None:
            current[1].append(line)
    return groups


def pdf_rects(lines: list[str]) -> list[Box]:
    rects = []
    for line in lines:
        m = re.fullmatch(r"(\S+) (\S+) (\S+) (\S+) re f", line)
        if m:
            x, y, w, h = (float(v) for v in m.groups())
            rects.append((x, y, w, h))
    return rects


def pdf_texts(content: str) -> list[str]:
    texts = []
    for raw in re.findall(r"\(((?:[^\\)]|\\.)*)\) Tj", content):
        data = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), raw)
        data = re.sub(r"\\(.)", r"\1", data)
        texts.append(data.encode("latin-1").decode("cp1252"))
    return texts


# --- SVG helpers ----------------------------------------------------------------------------


def svg_rects(group: ET.Element) -> list[Box]:
    return [
        (float(r.get("x", 0)), float(r.get("y", 0)), float(r.get("width", 0)),
         float(r.get("height", 0)))
        for r in group.iter(f"{SVG}rect")
    ]  # fmt: skip


def rasterise(
    rects: list[Box], left: float, top: float, width: float, height: float, px_per_mm: float
) -> np.ndarray:
    """White paper with the rectangles painted black, `px_per_mm` pixels per mm."""
    image = np.full((round(height * px_per_mm), round(width * px_per_mm)), 255, np.uint8)
    for x, y, w, h in rects:
        c0, c1 = round((x - left) * px_per_mm), round((x + w - left) * px_per_mm)
        r0, r1 = round((y - top) * px_per_mm), round((y + h - top) * px_per_mm)
        image[r0:r1, c0:c1] = 0
    return image


def bbox(rects: list[Box]) -> Box:
    return (
        min(x for x, _, _, _ in rects),
        min(y for _, y, _, _ in rects),
        max(x + w for x, _, w, _ in rects),
        max(y + h for _, y, _, h in rects),
    )


RIFLES = PrintTag("tag36h11", 10, 1, 16, "rifles / rifles-1")


# --- PDF ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "width_pt", "height_pt"),
    [
        ("A4", 595.28, 841.89),  # 210 mm * 72 / 25.4 = 595.276; 297 mm -> 841.890
        ("letter", 612.0, 792.0),  # 8.5 in * 72, 11 in * 72
    ],
)
def test_pdf_pages_have_the_paper_size_in_points(
    page: str, width_pt: float, height_pt: float
) -> None:
    pdf = render_sheets([RIFLES], page=page)
    assert pdf.startswith(b"%PDF-1.4\n")
    [(box, _)] = pdf_pages(pdf)
    assert box == pytest.approx((0, 0, width_pt, height_pt), abs=0.005)


def test_a_16_mm_tag_spans_45_354_pt_with_one_filled_cell_per_black_cell() -> None:
    [(_, content)] = pdf_pages(render_sheets([RIFLES]))
    [(words, lines)] = pdf_groups(content, "tag")
    assert words[:3] == ["tag36h11", "10", "16"]
    rects = pdf_rects(lines)
    # tag36h11 is 6 x 6 data cells plus a one-cell border: 8 cells of 16 / 8 = 2 mm each.
    marker = cv2.aruco.generateImageMarker(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_36h11), 10, 8, borderBits=1
    )
    assert len(rects) == int((marker == 0).sum())
    assert len(rects) == len(lines)  # nothing but cells inside the tag
    left, bottom, right, top = bbox(rects)
    assert right - left == pytest.approx(16 * PT, abs=1e-3)  # 16 * 72 / 25.4 = 45.354 pt
    assert top - bottom == pytest.approx(45.354, abs=1e-3)
    for _, _, w, h in rects:
        assert (w, h) == pytest.approx((2 * PT, 2 * PT), abs=2e-4)


def test_pdf_text_names_the_base_the_tag_the_ruler_and_the_page() -> None:
    [(_, content)] = pdf_pages(render_sheets([RIFLES]))
    texts = pdf_texts(content)
    assert "rifles / rifles-1" in texts
    assert "tag36h11 #10 · 16 mm" in texts
    assert RULER_WORDS in texts
    assert "page 1 of 1" in texts
    assert RIFLES.caption == "rifles / rifles-1 · tag36h11 #10 · 16 mm"


def test_pdf_ruler_line_measures_100_mm_with_a_tick_per_mm() -> None:
    [(_, content)] = pdf_pages(render_sheets([RIFLES], page="letter"))
    [(_, lines)] = pdf_groups(content, "ruler")
    strokes = [
        tuple(float(v) for v in m.groups())
        for m in (re.search(r"(\S+) (\S+) m (\S+) (\S+) l S", line) for line in lines)
        if m
    ]
    main, ticks = strokes[0], strokes[1:]
    assert main[2] - main[0] == pytest.approx(100 * PT, abs=1e-3)  # 283.465 pt
    assert len(ticks) == 101  # 0, 1, ..., 100 mm
    assert ticks[-1][0] - ticks[0][0] == pytest.approx(100 * PT, abs=1e-3)
    assert ticks[1][0] - ticks[0][0] == pytest.approx(PT, abs=1e-3)


def test_pdf_cross_reference_table_points_at_every_object() -> None:
    pdf = render_sheets([RIFLES, PrintTag("tag16h5", 3, 1, 12, "corner 0")])
    start = re.search(rb"startxref\n(\d+)\n%%EOF\n$", pdf)
    assert start is not None
    xref = pdf[int(start.group(1)) :]
    assert xref.startswith(b"xref\n0 ")
    offsets = [int(v) for v in re.findall(rb"(\d{10}) 00000 n ", xref)]
    assert len(offsets) == len(pdf_objects(pdf))
    for number, offset in enumerate(offsets, start=1):
        assert pdf[offset:].startswith(f"{number} 0 obj\n".encode())
    for body in pdf_objects(pdf).values():
        m = re.match(rb"<< /Length (\d+) >>\nstream\n(.*)endstream$", body, re.DOTALL)
        if m:
            assert int(m.group(1)) == len(m.group(2))


def test_many_tags_flow_onto_several_pages_each_with_ruler_and_page_number() -> None:
    # 30 mm tag36h11: cells 3.75 mm, with a one-cell quiet zone 37.5 mm, plus 3 mm for crop
    # marks each side: 43.5 mm wide. A4 with 10 mm margins leaves 190 mm: 4 * 43.5 + 3 * 2 gap
    # = 180 fits, 5 do not. Height 43.5 + two 6 pt label lines (2 * 1.25 * 6 * 25.4 / 72 =
    # 5.29 mm) = 48.79 mm; 297 - 20 - 16 (footer) = 261 mm holds 5 rows (5 * 48.79 + 4 * 2 =
    # 251.96). So 20 tags a page: 41 tags need 3 pages.
    tags = [PrintTag("tag36h11", i, 1, 30, f"foot / foot-{i}") for i in range(41)]
    pages = pdf_pages(render_sheets(tags))
    assert len(pages) == 3
    seen = []
    for number, (_, content) in enumerate(pages, start=1):
        texts = pdf_texts(content)
        assert RULER_WORDS in texts
        assert f"page {number} of 3" in texts
        assert len(pdf_groups(content, "ruler")) == 1
        seen += [int(words[1]) for words, _ in pdf_groups(content, "tag")]
    assert seen == list(range(41))


# --- SVG ------------------------------------------------------------------------------------


def detector_for(dictionary: int, border_bits: int) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.markerBorderBits = border_bits
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary), params)


@pytest.mark.parametrize(
    ("family", "tag_id", "border_bits", "size_mm", "dictionary"),
    [
        ("tag36h11", 10, 1, 16, cv2.aruco.DICT_APRILTAG_36h11),
        ("tag25h9", 7, 1, 14, cv2.aruco.DICT_APRILTAG_25h9),
        ("tag16h5", 3, 1, 12, cv2.aruco.DICT_APRILTAG_16h5),
        ("DICT_4X4_50", 42, 1, 12, cv2.aruco.DICT_4X4_50),
        ("tag36h11", 5, 2, 20, cv2.aruco.DICT_APRILTAG_36h11),
    ],
)
def test_svg_tag_cells_read_back_as_the_same_id(
    family: str, tag_id: int, border_bits: int, size_mm: float, dictionary: int
) -> None:
    tag = PrintTag(family, tag_id, border_bits, size_mm, "unit / base-1")
    root = ET.fromstring(render_sheets([tag], fmt="svg"))
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == (
        "210mm",
        "297mm",
        "0 0 210 297",
    )
    [group] = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tag"]
    assert (group.get("data-family"), group.get("data-id")) == (family, str(tag_id))
    rects = svg_rects(group)
    left, top, right, bottom = bbox(rects)
    assert (right - left, bottom - top) == pytest.approx((size_mm, size_mm), abs=1e-3)
    # Rasterise with a 4 mm white margin at 10 px/mm and read it with OpenCV's detector.
    image = rasterise(rects, left - 4, top - 4, size_mm + 8, size_mm + 8, 10)
    corners, ids, _ = detector_for(dictionary, border_bits).detectMarkers(image)
    assert ids is not None and ids.ravel().tolist() == [tag_id]
    # Corner 0 (the top-left of the marker as drawn) is 4 mm in from the image's corner.
    assert corners[0][0][0] == pytest.approx((40, 40), abs=1.5)


def test_pupil_apriltags_reads_the_printed_tag36h11_id() -> None:
    pupil_apriltags = pytest.importorskip("pupil_apriltags")
    root = ET.fromstring(render_sheets([RIFLES], fmt="svg"))
    [group] = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tag"]
    rects = svg_rects(group)
    left, top, _, _ = bbox(rects)
    image = rasterise(rects, left - 4, top - 4, 24, 24, 10)
    found = pupil_apriltags.Detector(families="tag36h11").detect(image)
    assert [d.tag_id for d in found] == [10]


def test_nothing_else_is_drawn_inside_a_tags_one_cell_quiet_zone() -> None:
    tags = [PrintTag("tag36h11", i, 1, 16, f"u / u-{i}") for i in range(30)]
    root = ET.fromstring(render_sheets(tags, fmt="svg"))
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tag"]
    assert len(groups) == 30
    lines = [
        tuple(float(ln.get(k, 0)) for k in ("x1", "y1", "x2", "y2"))
        for ln in root.iter(f"{SVG}line")
    ]
    for group in groups:
        left, top, right, bottom = bbox(svg_rects(group))
        quiet = (left - 2, top - 2, right + 2, bottom + 2)  # one 2 mm cell each side

        def inside(x0: float, y0: float, x1: float, y1: float, q: Box = quiet) -> bool:
            return x1 > q[0] and x0 < q[2] and y1 > q[1] and y0 < q[3]

        for other in groups:
            if other is not group:
                for x, y, w, h in svg_rects(other):
                    assert not inside(x, y, x + w, y + h)
        for x1, y1, x2, y2 in lines:
            assert not inside(min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))


def test_svg_has_the_100_mm_ruler_and_its_instruction() -> None:
    root = ET.fromstring(render_sheets([RIFLES], fmt="svg", page="letter"))
    assert root.get("width") == "215.9mm"
    [ruler] = [g for g in root.iter(f"{SVG}g") if g.get("class") == "ruler"]
    first = next(ruler.iter(f"{SVG}line"))
    assert float(first.get("x2", 0)) - float(first.get("x1", 0)) == pytest.approx(100)
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert RULER_WORDS in texts
    assert "rifles / rifles-1" in texts


def test_several_pages_need_a_pdf_or_one_svg_per_page(tmp_path: Path) -> None:
    tags = [PrintTag("tag36h11", i, 1, 30, "") for i in range(41)]  # 3 pages, as above
    with pytest.raises(PrintingError, match="3 pages"):
        render_sheets(tags, fmt="svg")
    assert len(render_svg_pages(tags)) == 3
    written = write_sheets(tmp_path / "tags.svg", tags)
    assert [p.name for p in written] == ["tags-1.svg", "tags-2.svg", "tags-3.svg"]
    assert ET.fromstring(written[2].read_bytes()).get("width") == "210mm"
    [pdf] = write_sheets(tmp_path / "tags.pdf", tags)
    assert len(pdf_pages(pdf.read_bytes())) == 3
    with pytest.raises(PrintingError, match=re.escape("'.pdf' or '.svg'")):
        write_sheets(tmp_path / "tags.png", tags)


# --- ChArUco --------------------------------------------------------------------------------


def test_charuco_board_drawn_as_vectors_matches_opencvs_own_image() -> None:
    sheet = charuco_sheet(4, 3, 10, 7, "DICT_4X4_50")
    root = ET.fromstring(render_sheets([], boards=[sheet], fmt="svg"))
    [board] = [g for g in root.iter(f"{SVG}g") if g.get("class") == "charuco"]
    [squares] = [g for g in board.iter(f"{SVG}g") if g.get("class") == "squares"]
    markers = [g for g in board.iter(f"{SVG}g") if g.get("class") == "marker"]
    # 4 x 3 = 12 squares: half black, half white each holding a marker (ids 0..5).
    assert len(svg_rects(squares)) == 6
    assert sorted(int(g.get("data-id", -1)) for g in markers) == list(range(6))
    rects = svg_rects(board)
    left, top, right, bottom = bbox(rects)
    assert (right - left, bottom - top) == pytest.approx((40, 30))
    drawn = rasterise(rects, left, top, 40, 30, 10)
    board_cv = cv2.aruco.CharucoBoard(
        (4, 3), 10, 7, cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    )
    reference = board_cv.generateImage((400, 300), marginSize=0, borderBits=1)
    # Cells are 7 / 6 mm = 11.67 px: the two images may differ by a pixel along cell edges.
    assert np.mean(drawn == reference) > 0.98
    ids = detector_for(cv2.aruco.DICT_4X4_50, 1).detectMarkers(
        cv2.copyMakeBorder(drawn, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    )[1]
    assert sorted(ids.ravel().tolist()) == list(range(6))


def test_charuco_page_follows_the_tags_with_its_caption() -> None:
    sheet = charuco_sheet(5, 7, 25, 18, "DICT_4X4_50")
    pages = pdf_pages(render_sheets([RIFLES], boards=[sheet]))
    assert len(pages) == 2
    texts = pdf_texts(pages[1][1])
    assert "ChArUco board · 5 x 7 squares of 25 mm · markers 18 mm · DICT_4X4_50" in texts
    assert "page 2 of 2" in texts and RULER_WORDS in texts
    [(_, lines)] = pdf_groups(pages[1][1], "squares")
    assert len(pdf_rects(lines)) == 18  # 35 squares: 17 hold markers, 18 are black


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((4, 3, 10, 10, "DICT_4X4_50"), "smaller than square_mm"),
        ((11, 10, 10, 7, "DICT_4X4_50"), "need 55 markers"),
        ((1, 3, 10, 7, "DICT_4X4_50"), "squares_x 1"),
        ((4, 3, 10, 7, "tagStandard41h12"), "OpenCV has no dictionary"),
    ],
)
def test_charuco_sheet_refuses_bad_boards(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(PrintingError, match=message):
        charuco_sheet(*args)


def test_a_board_larger_than_the_page_is_refused() -> None:
    with pytest.raises(PrintingError, match="room for 190 x 261 mm"):
        render_sheets([], boards=[charuco_sheet(9, 12, 25, 18, "DICT_5X5_100")])


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("tagStandard41h12", 1, 1, 16, "a"), "tagStandard41h12.*OpenCV"),
        (("tag99h1", 1, 1, 16, "a"), "unknown family 'tag99h1'"),
        (("tag16h5", 30, 1, 16, "a"), "0 to 29"),  # tag16h5 has 30 codes
        (("tag36h11", -1, 1, 16, "a"), "0 to 586"),  # tag36h11 has 587 codes
        (("tag36h11", 1, 3, 16, "a"), "border_bits 3"),
        (("tag36h11", 1, 1, 0, "a"), "size_mm 0"),
        (("tag36h11", 1, 1, math.nan, "a"), "size_mm nan"),
    ],
)
def test_print_tag_refuses_what_cannot_be_printed(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(PrintingError, match=message) as caught:
        PrintTag(*args)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"page": "A3"}, "page 'A3': accepted are 'A4' or 'letter'"),
        ({"fmt": "png"}, "fmt 'png'"),
        ({"margin_mm": -1}, "margin_mm -1"),
    ],
)
def test_render_refuses_bad_options(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(PrintingError, match=re.escape(message)):
        render_sheets([RIFLES], **kwargs)


def test_render_refuses_an_empty_order_and_a_tag_larger_than_the_page() -> None:
    with pytest.raises(PrintingError, match="nothing to print"):
        render_sheets([])
    # 250 mm / 8 cells = 31.25 mm cells: 250 + 2 * 31.25 quiet + 2 * 3 crop = 318.5 mm wide.
    with pytest.raises(PrintingError, match=r"'big · tag36h11 #1 · 250 mm' needs 318\.5 x"):
        render_sheets([PrintTag("tag36h11", 1, 1, 250, "big")])


def test_tag_cells_are_read_only() -> None:
    with pytest.raises(ValueError):
        RIFLES.cells()[0, 0] = False


# --- rig plan -------------------------------------------------------------------------------


def test_rig_plan_for_a_straight_down_camera_over_a_6_by_4_foot_table() -> None:
    plan = rig_plan(1800, 1200, 1920, 1080, 70)
    # tan(35 deg) = 0.70021; focal length f = 960 px / 0.70021 = 1371.02 px.
    # To see the 1800 mm width: 900 / 0.70021 = 1285.3 mm up.
    # Vertical half-angle: tan = 0.70021 * 540 / 960 = 0.39387 (vfov = 2 * 21.50 = 42.99 deg).
    # To see the 1200 mm depth: 600 / 0.39387 = 1523.4 mm up: the depth decides.
    tan_half = math.tan(math.radians(35))
    assert plan.camera_height_mm == pytest.approx(600 / (tan_half * 540 / 960))
    assert plan.camera_height_mm == pytest.approx(1523.4, abs=0.1)
    assert plan.limited_by == "depth"
    assert plan.vfov_deg == pytest.approx(42.99, abs=0.01)
    assert plan.camera_y_mm == pytest.approx(600)
    # Straight down, mm per px = height / f = 1523.4 / 1371.02 = 1.1111 (= 1200 mm / 1080 px)
    # everywhere, centre and far edge alike.
    assert plan.mm_per_px_centre == pytest.approx(1200 / 1080)
    assert plan.mm_per_px_far_edge == pytest.approx(1200 / 1080)
    assert plan.mm_per_px_worst == pytest.approx(1200 / 1080)
    # 17 px * 1.1111 mm = 18.9 mm, rounded up: 19 mm.
    assert plan.min_px_across == 17
    assert plan.smallest_tag_mm == 19
    assert plan.px_across(20) == pytest.approx(18.0)  # 20 / 1.1111
    text = "\n".join(plan.lines())
    assert "1523 mm" in text and "19 mm" in text and "1.11" in text


def test_rig_plan_width_decides_on_a_4_by_3_camera() -> None:
    # 1800 x 1200 mm on a 1600 x 1200 picture at 70 deg: the width needs 900 / 0.70021 =
    # 1285.3 mm up, the depth only 600 / (0.70021 * 1200 / 1600) = 1142.5 mm: width decides.
    plan = rig_plan(1800, 1200, 1600, 1200, 70, min_px_across=20)
    assert plan.limited_by == "width"
    assert plan.camera_height_mm == pytest.approx(900 / math.tan(math.radians(35)))
    # mm per px = 1800 mm / 1600 px = 1.125; 20 px * 1.125 = 22.5 -> 23 mm.
    assert plan.mm_per_px_worst == pytest.approx(1.125)
    assert plan.smallest_tag_mm == 23


def test_tilted_rig_plan_agrees_with_opencvs_projection() -> None:
    plan = rig_plan(1800, 1200, 1920, 1080, 70, tilt_deg=15)
    f = 960 / math.tan(math.radians(35))
    K = np.array([[f, 0, 959.5], [0, f, 539.5], [0, 0, 1]])
    t = math.radians(15)
    # Camera axes in the table frame (z up): right = +x, forward tilted 15 deg towards the far
    # edge, down-the-picture = forward x right.
    right = np.array([1.0, 0, 0])
    forward = np.array([0, math.sin(t), -math.cos(t)])
    down = np.cross(forward, right)
    R = np.vstack([right, down, forward])
    centre = np.array([900, plan.camera_y_mm, plan.camera_height_mm])
    rvec, _ = cv2.Rodrigues(R)
    tvec = -R @ centre

    def project(points: list[tuple[float, float]]) -> np.ndarray:
        pts = np.array([[x, y, 0.0] for x, y in points])
        return cv2.projectPoints(pts, rvec, tvec, K, None)[0].reshape(-1, 2)

    # The camera aims at the table centre.
    assert project([(900, 600)])[0] == pytest.approx((959.5, 539.5), abs=1e-6)
    # Every table corner is in the picture, and one of them touches its border.
    corners = project([(0, 0), (1800, 0), (1800, 1200), (0, 1200)])
    reach = np.max(np.abs(corners - (959.5, 539.5)) / (960, 540))
    assert reach == pytest.approx(1.0)
    # Far corner: one pixel covers the mm the Jacobian of the projection says (worst direction).
    far = project([(0, 1200), (1, 1200), (0, 1201)])
    jacobian = np.column_stack([far[1] - far[0], far[2] - far[0]])
    far_mm_per_px = 1 / np.linalg.svd(jacobian, compute_uv=False)[-1]
    assert plan.mm_per_px_far_edge == pytest.approx(far_mm_per_px, rel=2e-3)
    assert plan.mm_per_px_worst == pytest.approx(far_mm_per_px, rel=2e-3)
    # Tilting costs resolution at the far edge: worse than straight down (1.1111 mm/px).
    assert plan.mm_per_px_far_edge > plan.mm_per_px_centre > 1200 / 1080
    assert plan.smallest_tag_mm == math.ceil(17 * plan.mm_per_px_worst)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((0, 1200, 1920, 1080, 70), {}, "table width"),
        ((1800, 1200, 0, 1080, 70), {}, "width_px 0"),
        ((1800, 1200, 1920, 1080, 180), {}, "hfov_deg 180"),
        ((1800, 1200, 1920, 1080, 70), {"tilt_deg": 60}, "tilt_deg 60"),
        ((1800, 1200, 1920, 1080, 70), {"min_px_across": 0}, "min_px_across 0"),
    ],
)
def test_rig_plan_refuses_impossible_rigs(
    args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(PrintingError, match=message):
        rig_plan(*args, **kwargs)
