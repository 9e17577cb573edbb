"""The top-down map of the table: a pure function from a scene to an SVG string.

Modelled on python-chess's `chess.svg`: `map_svg(scene, ...)` returns a self-contained SVG
document (no scripts, no external resources) that the server sends as `image/svg+xml` and the
page embeds. The viewBox is the table in millimetres with the near edge at the bottom, so one
SVG unit is one millimetre of table. Every element the page or a test needs carries data
attributes (`<g class="base" data-base="ID" data-unit="UNIT" data-side="SIDE">`,
`<g class="terrain" data-terrain="ID">`, ...). Ids come from files, so every text and attribute
is escaped.

The selected unit's overlays follow the rules: proximity halos and command areas are the
footprint grown by the distance (edge-to-edge measuring, as every sheet here measures), the
flank and rear sectors are cut by the base's diagonals (`geometry.front_half_angle`), and the
measuring line joins the pair `geometry.nearest_pair` picks (as `measure.Table.gap` does, but
measuring the two units only: the map is drawn again every frame), labelled with the distance
`umpire resolve SCENE measure A B` gives.

Imports `rules` and `calibration.units` only; never cv2, flask or `vision`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final
from xml.sax.saxutils import escape, quoteattr

from calibration.units import MM_PER_UNIT, check_unit, format_length, unit_symbol
from rules import geometry as geo
from rules.engine import RangeBand, get_ruleset
from rules.errors import UmpireError
from rules.scene import Base, Point, Scene, TerrainKind, Unit

LEADER_ROLES: Final = frozenset({"officer", "leader", "commander", "hero"})
"""Base roles that lead others (the scene format's roles less `nco` and the musicians and flags):
only these are asked for a command radius."""

GRID_STEP: Final[Mapping[str, float]] = {"cm": 10.0, "mm": 100.0, "in": 4.0}
"""The light measuring grid, in each shown unit: 10 cm, or 4 in (a common wargames move)."""

SIDE_COLOURS: Final[tuple[tuple[str, str], ...]] = (
    ("#0072B2", "#ffffff"),  # blue
    ("#D55E00", "#ffffff"),  # vermillion
    ("#009E73", "#ffffff"),  # bluish green
    ("#E69F00", "#000000"),  # orange
    ("#CC79A7", "#000000"),  # reddish purple
    ("#56B4E9", "#000000"),  # sky blue
    ("#F0E442", "#000000"),  # yellow
    ("#000000", "#ffffff"),  # black
)
"""(fill, text) per side: the Okabe-Ito palette, told apart by colour-blind players, in an order
where the first two (most games have two sides) differ most."""

TERRAIN_FILL: Final[Mapping[TerrainKind, str]] = {
    TerrainKind.WOODS: "#8fc68a",
    TerrainKind.TOWN: "#c9a27e",
    TerrainKind.BUILDING: "#a5826a",
    TerrainKind.HILL: "#dcc89a",
    TerrainKind.ROUGH: "#bdb98c",
    TerrainKind.STREAM: "#9fd0ee",
    TerrainKind.RIVER: "#66aedb",
    TerrainKind.ROAD: "#e6d8b6",
    TerrainKind.BRIDGE: "#b49a76",
    TerrainKind.HEDGE: "#4f8a45",
    TerrainKind.WALL: "#8c8c8c",
    TerrainKind.FENCE: "#9b7b58",
    TerrainKind.FORTIFICATION: "#6e6e6e",
    TerrainKind.OPEN: "#eef2e2",
}
"""Fill of each terrain kind: greens for vegetation, browns for buildings, blues for water."""

TABLE_FILL: Final = "#f6f3ea"
HIGHLIGHT: Final = "#ffd400"
"""Outline of the selected unit: a yellow no side colour uses next to black."""
TARGET: Final = "#e0007a"
MEASURE: Final = "#111111"


@dataclass(frozen=True, slots=True)
class _View:
    """Table millimetres to SVG coordinates (the y axis flipped), and the text sizes."""

    depth: float
    """Table depth in mm: SVG y = depth - table y, so the near edge is at the bottom."""
    font: float
    """Height of labels in mm of table."""

    def xy(self, x: float, y: float) -> tuple[float, float]:
        return x, self.depth - y

    def point(self, x: float, y: float) -> str:
        sx, sy = self.xy(x, y)
        return f"{_num(sx)},{_num(sy)}"


def _num(value: float) -> str:
    """A coordinate to 0.01 mm, without trailing zeros (`187.5`, `900`)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attr(value: object) -> str:
    """A quoted XML attribute value."""
    return quoteattr(str(value))


def map_svg(
    scene: Scene,
    *,
    unit: str | None = None,
    select: str | None = None,
    target: str | None = None,
    size_px: int | None = None,
    stale: Collection[str] | None = None,
    proximity_mm: float = 50.0,
    line: tuple[str, str] | None = None,
) -> str:
    """The table seen from above as an SVG document.

    `unit` (`cm`, `in` or `mm`; default the scene's) sets the grid, the scale bar and the
    measuring label. `select` (a unit or base id) highlights that unit and draws its command
    areas, proximity halos (`proximity_mm`, edge to edge) and flank/rear sectors; `target` (a
    unit or base id) then adds the measuring line between the nearest pair of bases; `line` (two
    base or unit ids: the pair the answer card measured) draws that line instead, so the map and
    the card show the same pair and the same length. Bases whose
    ids are in `stale` are drawn dashed. `size_px` sets the width in pixels (height follows the
    table); without it the SVG has no size of its own and fills what holds it.

    An unknown unit or id raises the package's `ValueError` (`UnknownUnitError`,
    `UnknownIdError`); a ruleset that cannot say a command radius only leaves the circle out.
    """
    shown = check_unit(unit if unit is not None else scene.unit)
    if size_px is not None and (isinstance(size_px, bool) or size_px <= 0):
        raise ValueError(f"size_px must be a positive number of pixels, got {size_px!r}")
    if not proximity_mm >= 0:
        raise ValueError(f"proximity_mm must be 0 or more, got {proximity_mm!r}")
    selected = scene.unit_of(select) if select is not None else None
    targeted = scene.select(target) if target is not None else ()
    view = _View(scene.table_depth, max(scene.table_width, scene.table_depth) / 140)
    colours = side_colours(u.side for u in scene.units)
    marks = side_marks(colours)
    stale_ids = frozenset(stale or ())
    target_ids = frozenset(b.id for b in targeted)

    parts = [_header(scene, shown, size_px)]
    parts.append(_table(scene, shown, view))
    parts.extend(_terrain(scene, view))
    if selected is not None:
        parts.append(_selection_overlays(scene, selected, view, proximity_mm, shown))
    parts.append(f'<g class="bases" font-family="sans-serif" font-size="{_num(view.font)}">')
    for u in scene.units:
        for b in u.bases:
            state = []
            if selected is not None and u.id == selected.id:
                state.append("selected")
            if b.id in target_ids:
                state.append("target")
            if b.id in stale_ids:
                state.append("stale")
            parts.append(_base(u, b, colours[u.side], marks[u.side], state, view))
    parts.append("</g>")
    if line is not None and _known(scene, line):
        parts.append(_measuring_line(scene, line[0], line[1], shown, view))
    elif select is not None and target is not None:
        parts.append(_measuring_line(scene, select, target, shown, view))
    parts.append(_scale_bar(scene, shown, view))
    parts.append(_legend(colours, marks, view))
    parts.append("</svg>")
    return "\n".join(parts)


def _known(scene: Scene, ids: Iterable[str]) -> bool:
    """Whether every id names a base or unit of the scene (a base of the card's pair may have
    been taken off the table since: the map then draws no line rather than failing)."""
    try:
        for ident in ids:
            scene.select(ident)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# Sides


def side_colours(sides: Iterable[str]) -> dict[str, tuple[str, str]]:
    """(fill, text) colour of each side, by the sides' sorted names: the same sides always get
    the same colours, frame after frame, whatever order the units come in."""
    names = sorted(set(sides))
    return {side: SIDE_COLOURS[i % len(SIDE_COLOURS)] for i, side in enumerate(names)}


def side_marks(sides: Collection[str]) -> dict[str, str]:
    """The letters drawn on each side's bases: the initial, or as many letters (up to 3) as
    tell two sides with the same initial apart."""
    out: dict[str, str] = {}
    for side in sides:
        for k in (1, 2, 3):
            prefix = side[:k].lower()
            if all(other == side or other[:k].lower() != prefix for other in sides):
                break
        out[side] = side[:k].capitalize()
    return out


# --------------------------------------------------------------------------------------------
# Layers


def _header(scene: Scene, shown: str, size_px: int | None) -> str:
    w, d = scene.table_width, scene.table_depth
    size = ""
    if size_px is not None:
        size = f' width="{_num(size_px)}" height="{_num(size_px * d / w)}"'
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {_num(w)} {_num(d)}"'
        f'{size} class="umpire-map" data-ruleset={_attr(scene.ruleset)} data-unit={_attr(shown)}'
        f' data-table-width-mm="{_num(w)}" data-table-depth-mm="{_num(d)}">\n'
        f"<title>{escape(scene.ruleset)} table, {_num(w / MM_PER_UNIT[shown])} x "
        f"{_num(d / MM_PER_UNIT[shown])} {escape(shown)}</title>"
    )


def _table(scene: Scene, shown: str, view: _View) -> str:
    """The playing surface, the light measuring grid and the game's own grid squares."""
    w, d = scene.table_width, scene.table_depth
    out = [
        f'<rect class="table" x="0" y="0" width="{_num(w)}" height="{_num(d)}" '
        f'fill="{TABLE_FILL}" stroke="#333333" stroke-width="{_num(view.font * 0.3)}"/>'
    ]
    step = GRID_STEP[shown] * MM_PER_UNIT[shown]
    out.append(
        f'<path class="grid" data-step-mm="{_num(step)}" data-unit={_attr(shown)} '
        f'd="{_grid_path(w, d, step, view)}" fill="none" stroke="#000000" '
        f'stroke-opacity="0.12" stroke-width="{_num(view.font * 0.1)}"/>'
    )
    if scene.grid_box is not None:
        out.append(
            f'<path class="game-grid" data-step-mm="{_num(scene.grid_box)}" '
            f'd="{_grid_path(w, d, scene.grid_box, view)}" fill="none" stroke="#000000" '
            f'stroke-opacity="0.3" stroke-width="{_num(view.font * 0.12)}"/>'
        )
    return "\n".join(out)


def _grid_path(width: float, depth: float, step: float, view: _View) -> str:
    """Lines every `step` mm from the near-left corner, as one path."""
    cmds = []
    for i in range(1, math.ceil(width / step - 1e-9)):
        cmds.append(f"M{_num(i * step)} 0V{_num(depth)}")
    for j in range(1, math.ceil(depth / step - 1e-9)):
        _, sy = view.xy(0, j * step)
        cmds.append(f"M0 {_num(sy)}H{_num(width)}")
    return "".join(cmds) or "M0 0"


def _terrain(scene: Scene, view: _View) -> list[str]:
    out = ['<g class="terrain-layer" font-family="sans-serif">']
    for piece in scene.terrain:
        points = " ".join(view.point(x, y) for x, y in piece.polygon)
        lx, ly = view.xy(*_label_spot(piece.polygon, view.font))
        out.append(
            f'<g class="terrain" data-terrain={_attr(piece.id)} data-kind="{piece.kind.value}">'
            f"<title>{escape(piece.id)} ({piece.kind.value})</title>"
            f'<polygon points="{points}" fill="{TERRAIN_FILL[piece.kind]}" fill-opacity="0.85" '
            f'stroke="#555555" stroke-width="{_num(view.font * 0.12)}"/>'
            f'<text x="{_num(lx)}" y="{_num(ly)}" font-size="{_num(view.font * 1.1)}" '
            f'font-style="italic" text-anchor="middle" dominant-baseline="middle" '
            f'fill="#333333" stroke="{TABLE_FILL}" stroke-width="{_num(view.font * 0.25)}" '
            f'paint-order="stroke">{escape(piece.id)}</text></g>'
        )
    out.append("</g>")
    return out


def _label_spot(polygon: Sequence[Point], font: float) -> Point:
    """Where a terrain label goes: inside near the far edge, clear of the bases standing in the
    middle; just beyond the far edge for a piece too shallow to hold it (a wall, a hedge)."""
    cx, _ = _centroid(polygon)
    top = max(p[1] for p in polygon)
    bottom = min(p[1] for p in polygon)
    if top - bottom > 3 * font:
        return cx, top - font * 0.9
    return cx, top + font * 0.7


def _centroid(polygon: Sequence[Point]) -> Point:
    """The area centroid of a simple polygon (where its label goes)."""
    a2 = cx = cy = 0.0
    n = len(polygon)
    for i in range(n):
        x0, y0 = polygon[i]
        x1, y1 = polygon[(i + 1) % n]
        cross = x0 * y1 - x1 * y0
        a2 += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    if abs(a2) < 1e-12:
        return sum(p[0] for p in polygon) / n, sum(p[1] for p in polygon) / n
    return cx / (3 * a2), cy / (3 * a2)


def _base(
    unit: Unit, base: Base, colour: tuple[str, str], mark: str, state: list[str], view: _View
) -> str:
    """One base: its true footprint in its side's colour and letters, a facing arrow, its id."""
    fill, ink = colour
    sx, sy = view.xy(base.x, base.y)
    classes = " ".join(["base", *state])
    if "selected" in state:
        stroke, width = HIGHLIGHT, view.font * 0.35
    elif "target" in state:
        stroke, width = TARGET, view.font * 0.35
    else:
        stroke, width = "#000000", view.font * 0.12
    dash = f' stroke-dasharray="{_num(view.font * 0.4)} {_num(view.font * 0.25)}"'
    style = f'fill="{fill}" stroke="{stroke}" stroke-width="{_num(width)}"' + (
        dash if "stale" in state else ""
    )
    if base.footprint.circle:
        shape = (
            f'<circle class="footprint" cx="{_num(sx)}" cy="{_num(sy)}" '
            f'r="{_num(geo.radius(base))}" {style}/>'
        )
    else:
        points = " ".join(view.point(float(x), float(y)) for x, y in geo.corners(base))
        shape = f'<polygon class="footprint" points="{points}" {style}/>'
    size = min(base.footprint.width, base.footprint.depth)
    letters = (
        f'<text class="side-mark" x="{_num(sx)}" y="{_num(sy)}" '
        f'font-size="{_num(size * 0.55 / max(1, len(mark) * 0.7))}" font-weight="bold" '
        f'text-anchor="middle" dominant-baseline="central" fill="{ink}">{escape(mark)}</text>'
    )
    reach = math.hypot(base.footprint.width, base.footprint.depth) / 2
    label = (
        f'<text class="label" x="{_num(sx)}" y="{_num(sy + reach + view.font)}" '
        f'text-anchor="middle" fill="#111111" stroke="#ffffff" '
        f'stroke-width="{_num(view.font * 0.25)}" paint-order="stroke">{escape(base.id)}</text>'
    )
    return (
        f'<g class="{classes}" data-base={_attr(base.id)} data-unit={_attr(unit.id)} '
        f'data-side={_attr(unit.side)} data-facing="{_num(base.facing)}">'
        f"<title>{escape(base.id)} ({escape(unit.id)}, {escape(unit.side)})</title>"
        f"{shape}{_facing_arrow(base, view)}{letters}{label}</g>"
    )


def _facing_arrow(base: Base, view: _View) -> str:
    """A dark arrowhead on the front edge, its tip beyond the base, pointing the way it faces."""
    f = geo.forward(base.facing)
    right = (f[1], -f[0])
    half_depth = base.footprint.depth / 2
    half_width = base.footprint.width / 2 * 0.6
    head = min(base.footprint.width, base.footprint.depth) * 0.4
    cx, cy = base.x, base.y
    tip = (cx + f[0] * (half_depth + head * 0.6), cy + f[1] * (half_depth + head * 0.6))
    back = (cx + f[0] * (half_depth - head * 0.4), cy + f[1] * (half_depth - head * 0.4))
    left_pt = (back[0] - right[0] * half_width, back[1] - right[1] * half_width)
    right_pt = (back[0] + right[0] * half_width, back[1] + right[1] * half_width)
    points = " ".join(view.point(float(x), float(y)) for x, y in (tip, right_pt, left_pt))
    return (
        f'<polygon class="facing" points="{points}" fill="#1a1a1a" stroke="#ffffff" '
        f'stroke-width="{_num(view.font * 0.08)}"/>'
    )


# --------------------------------------------------------------------------------------------
# The selected unit


def _selection_overlays(
    scene: Scene, unit: Unit, view: _View, proximity_mm: float, shown: str = "cm"
) -> str:
    """Range bands, command areas, proximity halos and flank/rear sectors of the selected
    unit. Each range band is one ring round the whole unit, labelled with the band and its
    reach in the map's unit (`medium 90.0 cm`)."""
    out = [f'<g class="selection" data-unit={_attr(unit.id)}>']
    for band in range_bands(scene, unit):
        ring, top = _unit_ring(unit, band.reach, view)
        if top[1] < view.font:  # beyond the far edge: the label goes on the near side
            bottom = max(view.xy(b.x, b.y)[1] for b in unit.bases)
            top = (top[0], min(bottom + band.reach, view.depth - view.font * 1.2) - view.font * 1.1)
        label = f"{band.label} {format_length(band.reach, shown)}"
        out.append(
            f'<g class="range" data-band={_attr(band.label)} data-reach-mm="{_num(band.reach)}" '
            f'stroke-dasharray="{_num(view.font * 0.8)} {_num(view.font * 0.5)}">'
            + ring
            + f'<text class="band-label" x="{_num(top[0])}" y="{_num(top[1] + view.font * 1.1)}" '
            f'font-family="sans-serif" font-size="{_num(view.font)}" text-anchor="middle" '
            f'fill="#333333" stroke="#ffffff" stroke-width="{_num(view.font * 0.25)}" '
            f'paint-order="stroke">{escape(label)}</text>' + "</g>"
        )
    for leader, radius in command_radii(scene, unit):
        out.append(
            f'<g class="command" data-for={_attr(leader.id)} data-radius-mm="{_num(radius)}">'
            f"{_grown(leader, radius, view)}</g>"
        )
    for base in unit.bases:
        out.append(
            f'<g class="halo" data-for={_attr(base.id)} data-distance-mm="{_num(proximity_mm)}">'
            f"{_grown(base, proximity_mm, view)}</g>"
        )
    for base in unit.bases:
        out.append(_sectors(base, view, proximity_mm))
    out.append("</g>")
    return "\n".join(out)


def range_bands(scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
    """The unit's weapon range bands as its ruleset gives them; none when the sheet does not
    know its weapon (the answer card says why): the map never fails for want of a band."""
    try:
        return get_ruleset(scene.ruleset).range_bands(scene, unit)
    except UmpireError:
        return ()


def command_radii(scene: Scene, unit: Unit) -> list[tuple[Base, float]]:
    """(leader base, command radius in mm) for each base of `unit` whose role leads, as the
    scene's ruleset answers `command BASE`. A ruleset without the action, a radius of none or 0
    (every unit of the side; base contact), or a question the sheet cannot answer for this base
    (a `QuestionError`: a missing rating, a role the sheet does not count) gives no circle:
    the map never fails for want of a radius."""
    ruleset = get_ruleset(scene.ruleset)
    if "command" not in ruleset.actions():
        return []
    out = []
    for base in unit.bases:
        if base.role not in LEADER_ROLES:
            continue
        try:
            data = ruleset.resolve(scene, "command", [base.id]).as_json()
        except UmpireError:
            continue
        radius = data.get("radius")
        if not isinstance(radius, Mapping):
            continue
        value, length_unit = radius.get("value"), radius.get("unit")
        if isinstance(value, int | float) and value > 0 and length_unit in MM_PER_UNIT:
            out.append((base, float(value) * MM_PER_UNIT[length_unit]))
    return out


def _unit_ring(unit: Unit, grow: float, view: _View) -> tuple[str, tuple[float, float]]:
    """One ring `grow` mm out from a unit's bases (the convex hull of their footprints, grown
    by `grow`: a single base's footprint grown exactly), and the ring's topmost point."""
    if len(unit.bases) == 1:
        base = unit.bases[0]
        sx, sy = view.xy(base.x, base.y)
        reach = math.hypot(base.footprint.width, base.footprint.depth) / 2
        return _grown(base, grow, view), (sx, sy - reach - grow)
    points: list[tuple[float, float]] = []
    for base in unit.bases:
        if base.footprint.circle:
            r = geo.radius(base)
            points.extend(
                view.xy(
                    base.x + r * math.cos(a / 8 * math.pi), base.y + r * math.sin(a / 8 * math.pi)
                )
                for a in range(16)
            )
        else:
            points.extend(view.xy(float(x), float(y)) for x, y in geo.corners(base))
    hull = _hull(points)
    n = len(hull)
    normals = []
    for i in range(n):
        (ax, ay), (bx, by) = hull[i], hull[(i + 1) % n]
        length = math.hypot(bx - ax, by - ay) or 1.0
        normals.append(((by - ay) / length, -(bx - ax) / length))
    path = []
    for i in range(n):
        vx, vy = hull[i]
        n_in, n_out = normals[i - 1], normals[i]
        start = (vx + grow * n_in[0], vy + grow * n_in[1])
        end = (vx + grow * n_out[0], vy + grow * n_out[1])
        path.append(("M" if i == 0 else "L") + f"{_num(start[0])} {_num(start[1])}")
        path.append(f"A{_num(grow)} {_num(grow)} 0 0 1 {_num(end[0])} {_num(end[1])}")
    top_x, top_y = min(hull, key=lambda p: p[1])
    ring = (
        f'<path d="{" ".join(path)} Z" fill="none" stroke="#333333" '
        f'stroke-width="{_num(view.font * 0.15)}"/>'
    )
    return ring, (top_x, top_y - grow)


def _hull(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The convex hull of points, counter-clockwise (Andrew's monotone chain)."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _grown(base: Base, grow: float, view: _View) -> str:
    """The footprint grown by `grow` mm all round: everything within `grow` of the base edge to
    edge (a rectangle with corners rounded by `grow`, or a wider circle)."""
    sx, sy = view.xy(base.x, base.y)
    common = 'fill="none" stroke="#333333"'
    if base.footprint.circle:
        return (
            f'<circle cx="{_num(sx)}" cy="{_num(sy)}" r="{_num(geo.radius(base) + grow)}" '
            f'{common} stroke-width="{_num(view.font * 0.15)}"/>'
        )
    # Drawn as facing 0 (depth along x), then turned: counter-clockwise on the table is
    # clockwise in SVG's y-down frame, hence the minus.
    along, across = base.footprint.depth + 2 * grow, base.footprint.width + 2 * grow
    return (
        f'<rect x="{_num(sx - along / 2)}" y="{_num(sy - across / 2)}" width="{_num(along)}" '
        f'height="{_num(across)}" rx="{_num(grow)}" ry="{_num(grow)}" '
        f'transform="rotate({_num(-base.facing)} {_num(sx)} {_num(sy)})" {common} '
        f'stroke-width="{_num(view.font * 0.15)}"/>'
    )


def _sectors(base: Base, view: _View, proximity_mm: float) -> str:
    """The base's diagonals, which part its front, flanks and rear, and its rear sector shaded.

    The lines reach a little past the proximity halo: far enough to read where a nearby
    figure stands."""
    alpha = geo.front_half_angle(base)
    reach = math.hypot(base.footprint.width, base.footprint.depth) / 2 + 2 * max(
        proximity_mm, view.font
    )
    ends = []
    for turn in (alpha, -alpha, 180 - alpha, 180 + alpha):
        t = math.radians(base.facing + turn)
        ends.append((base.x + reach * math.cos(t), base.y + reach * math.sin(t)))
    front_left, front_right, rear_left, rear_right = ends
    centre = view.point(base.x, base.y)
    d = (
        f"M{view.point(*front_left)}L{view.point(*rear_right)}"
        f"M{view.point(*front_right)}L{view.point(*rear_left)}"
    )
    rear = f"{centre} {view.point(*rear_left)} {view.point(*rear_right)}"
    return (
        f'<g class="sectors" data-for={_attr(base.id)} data-front-half-angle="{_num(alpha)}">'
        f'<polygon class="rear" points="{rear}" fill="#000000" fill-opacity="0.08"/>'
        f'<path class="diagonals" d="{d}" fill="none" stroke="#333333" '
        f'stroke-width="{_num(view.font * 0.1)}" stroke-dasharray="{_num(view.font * 0.5)} '
        f'{_num(view.font * 0.3)}"/></g>'
    )


# --------------------------------------------------------------------------------------------
# Measuring


def _measuring_line(scene: Scene, select: str, target: str, shown: str, view: _View) -> str:
    """The shortest line between the two units' footprints, labelled as `measure` reads it."""
    a, b, distance = geo.nearest_pair(scene.select(select), scene.select(target))
    (ax, ay), (bx, by) = nearest_points(a, b)
    (sax, say), (sbx, sby) = view.xy(ax, ay), view.xy(bx, by)
    label = format_length(distance, shown)
    mx, my = (sax + sbx) / 2, (say + sby) / 2
    return (
        f'<g class="measure" data-a={_attr(a.id)} data-b={_attr(b.id)} '
        f'data-distance-mm="{_num(distance)}" font-family="sans-serif">'
        f'<line x1="{_num(sax)}" y1="{_num(say)}" x2="{_num(sbx)}" y2="{_num(sby)}" '
        f'stroke="{MEASURE}" stroke-width="{_num(view.font * 0.2)}"/>'
        f'<circle cx="{_num(sax)}" cy="{_num(say)}" r="{_num(view.font * 0.25)}" '
        f'fill="{MEASURE}"/>'
        f'<circle cx="{_num(sbx)}" cy="{_num(sby)}" r="{_num(view.font * 0.25)}" '
        f'fill="{MEASURE}"/>'
        f'<text x="{_num(mx + view.font * 0.5)}" y="{_num(my)}" font-size="{_num(view.font * 1.4)}"'
        f' font-weight="bold" fill="{MEASURE}" stroke="#ffffff" '
        f'stroke-width="{_num(view.font * 0.3)}" paint-order="stroke" '
        f'dominant-baseline="middle">{escape(label)}</text></g>'
    )


def nearest_points(a: Base, b: Base) -> tuple[Point, Point]:
    """The two points, one on each footprint's edge, that the edge-to-edge distance joins.

    Every corner of one outline against every side of the other (a round base's outline is its
    centre, grown afterwards by its radius along the line)."""
    pa, pb = geo.corners(a), geo.corners(b)
    best: tuple[float, Point, Point] = (math.inf, (a.x, a.y), (b.x, b.y))
    for outline, other, flipped in ((pa, pb, False), (pb, pa, True)):
        for vx, vy in outline:
            for k in range(4):
                (x1, y1), (x2, y2) = other[k], other[(k + 1) % 4]
                q = _closest_on_segment((float(vx), float(vy)), (x1, y1), (x2, y2))
                gap = math.hypot(q[0] - vx, q[1] - vy)
                if gap < best[0]:
                    v = (float(vx), float(vy))
                    best = (gap, q, v) if flipped else (gap, v, q)
    gap, p, q = best
    if gap > geo.EPS:
        ux, uy = (q[0] - p[0]) / gap, (q[1] - p[1]) / gap
        ra, rb = geo.radius(a), geo.radius(b)
        p = (p[0] + ux * ra, p[1] + uy * ra)
        q = (q[0] - ux * rb, q[1] - uy * rb)
    return p, q


def _closest_on_segment(p: Point, a: Point, b: Point) -> Point:
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    if length2 <= 0:
        return a
    t = min(1.0, max(0.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
    return a[0] + t * dx, a[1] + t * dy


# --------------------------------------------------------------------------------------------
# Scale bar and legend


def _scale_bar(scene: Scene, shown: str, view: _View) -> str:
    """A bar of up to three grid steps at the near-left corner, labelled in the shown unit."""
    step = GRID_STEP[shown] * MM_PER_UNIT[shown]
    steps = max(1, min(3, int(scene.table_width / 4 // step)))
    length = steps * step
    pad = view.font * 0.6
    bar = view.font * 0.5
    x0, y0 = pad * 2, scene.table_depth - pad * 2 - bar  # SVG frame: near the bottom-left
    label = f"{_num(steps * GRID_STEP[shown])}{unit_symbol(shown)}"
    out = [
        f'<g class="scale-bar" data-unit={_attr(shown)} data-length-mm="{_num(length)}" '
        f'font-family="sans-serif" font-size="{_num(view.font)}">',
        f'<rect x="{_num(x0 - pad)}" y="{_num(y0 - view.font - pad * 1.5)}" '
        f'width="{_num(length + 2 * pad)}" height="{_num(bar + view.font + pad * 2.5)}" '
        f'fill="#ffffff" fill-opacity="0.8"/>',
    ]
    for i in range(steps):
        fill = "#111111" if i % 2 == 0 else "#ffffff"
        out.append(
            f'<rect x="{_num(x0 + i * step)}" y="{_num(y0)}" width="{_num(step)}" '
            f'height="{_num(bar)}" fill="{fill}" stroke="#111111" '
            f'stroke-width="{_num(view.font * 0.08)}"/>'
        )
    out.append(
        f'<text x="{_num(x0 + length)}" y="{_num(y0 - pad * 0.6)}" text-anchor="end" '
        f'fill="#111111">{escape(label)}</text>'
    )
    out.append("</g>")
    return "".join(out)


def _legend(colours: Mapping[str, tuple[str, str]], marks: Mapping[str, str], view: _View) -> str:
    """Each side's colour and letters, at the far-left corner."""
    size = view.font * 1.4
    pad = view.font * 0.6
    longest = max((len(s) + len(marks[s]) for s in colours), default=0)
    width = size + pad * 3 + longest * view.font * 0.62
    out = [
        f'<g class="legend" font-family="sans-serif" font-size="{_num(view.font)}">',
        f'<rect x="{_num(pad)}" y="{_num(pad)}" width="{_num(width)}" '
        f'height="{_num(pad * 2 + len(colours) * (size + pad * 0.5))}" fill="#ffffff" '
        f'fill-opacity="0.8"/>',
    ]
    for i, (side, (fill, ink)) in enumerate(colours.items()):
        y = pad * 2 + i * (size + pad * 0.5)
        out.append(
            f'<g class="legend-side" data-side={_attr(side)} data-colour="{fill}">'
            f'<rect x="{_num(pad * 2)}" y="{_num(y)}" width="{_num(size)}" height="{_num(size)}"'
            f' fill="{fill}" stroke="#000000" stroke-width="{_num(view.font * 0.08)}"/>'
            f'<text x="{_num(pad * 2 + size / 2)}" y="{_num(y + size / 2)}" text-anchor="middle"'
            f' dominant-baseline="central" font-weight="bold" fill="{ink}" '
            f'font-size="{_num(size * 0.55)}">{escape(marks[side])}</text>'
            f'<text x="{_num(pad * 3 + size)}" y="{_num(y + size / 2)}" '
            f'dominant-baseline="central" fill="#111111">{escape(side)}</text></g>'
        )
    out.append("</g>")
    return "".join(out)
