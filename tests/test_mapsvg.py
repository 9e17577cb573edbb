"""The top-down map (`webui.mapsvg.map_svg`), tested as a string the way python-chess tests
`chess.svg`: parsed with `xml.etree`, every coordinate checked against geometry done by hand.

The map's frame: SVG x = table x in mm, SVG y = table depth - table y (the near edge at the
bottom). The skirmish example is 180 x 120 cm, so SVG y = 1200 - y(mm).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from calibration.units import UnknownUnitError
from rules.engine import Resolution, get_ruleset, load_scene
from rules.errors import QuestionError, UnknownIdError
from rules.scene import Scene
from tests.builders import base, make_scene, rect, terrain, unit
from webui import cli
from webui.mapsvg import map_svg, side_colours, side_marks

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((REPO / "examples").glob("*.json"))
SKIRMISH = REPO / "examples" / "skirmish.json"
SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    """Every <g> whose class list holds `cls`."""
    return [g for g in root.iter(f"{SVG}g") if cls in g.get("class", "").split()]


def one(items: list[ET.Element]) -> ET.Element:
    assert len(items) == 1, items
    return items[0]


def points(element: ET.Element) -> list[tuple[float, float]]:
    """The `points` of a <polygon>."""
    out = []
    for pair in element.get("points", "").split():
        x, y = pair.split(",")
        out.append((float(x), float(y)))
    return out


def base_group(root: ET.Element, ident: str) -> ET.Element:
    return one([g for g in groups(root, "base") if g.get("data-base") == ident])


def by_for(root: ET.Element, cls: str, ident: str) -> ET.Element:
    return one([g for g in groups(root, cls) if g.get("data-for") == ident])


def one_base(**kw: object) -> Scene:
    """A 180 x 120 cm skirmish table with one base `a-1` of unit `a` at (20, 30) cm."""
    doc = base("a-1", 20, 30, **kw)  # type: ignore[arg-type]
    return make_scene("skirmish-19c", [unit("a", "british", [doc])])


# --------------------------------------------------------------------------------------------
# Frame and footprints


def test_the_view_box_is_the_table_in_millimetres() -> None:
    root = parse(map_svg(load_scene(SKIRMISH)))
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox") == "0 0 1800 1200"  # 180 cm x 120 cm
    assert root.get("width") is None and root.get("height") is None


def test_size_px_sets_the_width_and_the_height_follows_the_table() -> None:
    root = parse(map_svg(load_scene(SKIRMISH), size_px=900))
    assert float(root.get("width", "0")) == 900
    assert float(root.get("height", "0")) == pytest.approx(600)  # 900 * 120 / 180


@pytest.mark.parametrize("bad", [0, -5, True])
def test_a_size_that_is_not_positive_is_refused(bad: int) -> None:
    with pytest.raises(ValueError, match="size_px"):
        map_svg(load_scene(SKIRMISH), size_px=bad)


def test_a_square_base_facing_the_far_edge_draws_its_true_corners() -> None:
    root = parse(map_svg(one_base(facing=90, width=2.5, depth=2.5)))
    footprint = one(base_group(root, "a-1").findall(f"{SVG}polygon[@class='footprint']"))
    # Centre (200, 300) mm, half sides 12.5 mm: x 187.5..212.5, y 287.5..312.5 on the table.
    table = {(187.5, 287.5), (212.5, 287.5), (212.5, 312.5), (187.5, 312.5)}
    # The flip: SVG y = 1200 - table y.
    drawn = {(x, 1200 - y) for x, y in points(footprint)}
    assert drawn == table


def test_a_turned_oblong_base_draws_its_rotated_corners() -> None:
    # 4 cm wide, 2 cm deep, at (100, 50) cm facing 30 degrees.
    scene = make_scene(
        "skirmish-19c",
        [unit("a", "british", [base("a-1", 100, 50, facing=30, width=4, depth=2)])],
    )
    root = parse(map_svg(scene))
    footprint = one(base_group(root, "a-1").findall(f"{SVG}polygon[@class='footprint']"))
    # Forward f = (cos 30, sin 30) = (0.8660, 0.5); right r = (sin 30, -cos 30) = (0.5, -0.8660).
    # Corners = centre +- 10 mm * f +- 20 mm * r.
    c, s = math.sqrt(3) / 2, 0.5
    expected = [
        (1000 + sf * 10 * c + sr * 20 * s, 500 + sf * 10 * s - sr * 20 * c)
        for sf, sr in ((1, 1), (1, -1), (-1, -1), (-1, 1))
    ]
    drawn = [(x, 1200 - y) for x, y in points(footprint)]
    flat = [v for corner in sorted(drawn) for v in corner]
    assert flat == pytest.approx([v for corner in sorted(expected) for v in corner], abs=0.01)


def test_a_round_base_draws_a_circle_of_its_radius() -> None:
    root = parse(map_svg(one_base(diameter=2.5)))
    circle = one(base_group(root, "a-1").findall(f"{SVG}circle[@class='footprint']"))
    assert float(circle.get("r", "0")) == 12.5  # 2.5 cm across
    assert (float(circle.get("cx", "0")), float(circle.get("cy", "0"))) == (200, 1200 - 300)


@pytest.mark.parametrize("facing", [0, 90, 210, 315])
def test_the_facing_arrow_points_straight_ahead_beyond_the_front_edge(facing: float) -> None:
    root = parse(map_svg(one_base(facing=facing, width=2.5, depth=2.5)))
    arrow = one(base_group(root, "a-1").findall(f"{SVG}polygon[@class='facing']"))
    table = [(x - 200, (1200 - y) - 300) for x, y in points(arrow)]  # relative to the centre
    tip = max(table, key=lambda p: math.hypot(*p))
    ahead = (math.cos(math.radians(facing)), math.sin(math.radians(facing)))
    along = tip[0] * ahead[0] + tip[1] * ahead[1]
    across = tip[0] * ahead[1] - tip[1] * ahead[0]
    assert along > 12.5  # past the front edge, half the 25 mm depth ahead of the centre
    assert across == pytest.approx(0, abs=0.02)


def test_terrain_is_drawn_as_its_polygon_with_its_id_and_kind() -> None:
    root = parse(map_svg(load_scene(SKIRMISH)))
    wood = one([g for g in groups(root, "terrain") if g.get("data-terrain") == "wood-1"])
    assert wood.get("data-kind") == "woods"
    polygon = one(wood.findall(f"{SVG}polygon"))
    # (60, 40) (90, 40) (90, 70) (60, 70) cm -> mm, y flipped.
    assert points(polygon) == [(600, 800), (900, 800), (900, 500), (600, 500)]
    assert [t.text for t in wood.iter(f"{SVG}text")] == ["wood-1"]
    farm = one([g for g in groups(root, "terrain") if g.get("data-terrain") == "farm"])
    fills = {one(g.findall(f"{SVG}polygon")).get("fill") for g in (wood, farm)}
    assert len(fills) == 2  # woods and buildings are told apart


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_base_and_terrain_piece_of_the_examples_appears_exactly_once(path: Path) -> None:
    scene = load_scene(path)
    root = parse(map_svg(scene))
    drawn = Counter(g.get("data-base") for g in groups(root, "base"))
    assert drawn == Counter(b.id for b in scene.bases())
    for u in scene.units:
        for b in u.bases:
            g = base_group(root, b.id)
            assert (g.get("data-unit"), g.get("data-side")) == (u.id, u.side)
            assert [t.text for t in g.iter(f"{SVG}text") if t.get("class") == "label"] == [b.id]
    terrain_drawn = Counter(g.get("data-terrain") for g in groups(root, "terrain"))
    assert terrain_drawn == Counter(t.id for t in scene.terrain)


def test_each_side_has_its_own_colour_and_letter() -> None:
    root = parse(map_svg(load_scene(SKIRMISH)))
    fill: dict[str, set[str | None]] = {}
    mark: dict[str, set[str | None]] = {}
    for g in groups(root, "base"):
        side = g.get("data-side", "")
        shape = [e for e in g if e.get("class") == "footprint"]
        fill.setdefault(side, set()).add(one(shape).get("fill"))
        texts = [t.text for t in g.iter(f"{SVG}text") if t.get("class") == "side-mark"]
        mark.setdefault(side, set()).update(texts)
    assert mark == {"british": {"B"}, "french": {"F"}}
    assert len(fill["british"]) == len(fill["french"]) == 1
    assert fill["british"] != fill["french"]


def test_side_colours_do_not_depend_on_the_order_units_come_in() -> None:
    assert side_colours(["french", "british"]) == side_colours(["british", "french", "british"])
    assert len(set(side_colours(["a", "b", "c", "d"]).values())) == 4


def test_sides_with_the_same_initial_get_more_letters() -> None:
    assert side_marks(["france", "federal", "union"]) == {
        "france": "Fr",
        "federal": "Fe",
        "union": "U",
    }


def test_stale_bases_are_dashed_and_the_others_are_not() -> None:
    root = parse(map_svg(load_scene(SKIRMISH), stale={"rifles-2"}))
    for g in groups(root, "base"):
        shape = one([e for e in g if e.get("class") == "footprint"])
        is_stale = g.get("data-base") == "rifles-2"
        assert ("stale" in g.get("class", "").split()) == is_stale
        assert (shape.get("stroke-dasharray") is not None) == is_stale


# --------------------------------------------------------------------------------------------
# The selected unit


def test_select_highlights_the_whole_unit_of_a_base() -> None:
    root = parse(map_svg(load_scene(SKIRMISH), select="rifles-3"))
    chosen = {g.get("data-base") for g in groups(root, "selected")}
    assert chosen == {"rifles-1", "rifles-2", "rifles-3", "rifles-4"}


def test_an_officer_in_the_open_commands_within_50_cm() -> None:
    # skirmish-19c line 99: "Command distance is 50cms in the open, 25cms in enclosed terrain".
    root = parse(map_svg(load_scene(SKIRMISH), select="rifles"))
    command = one(groups(root, "command"))  # rifles-1 is the unit's only officer
    assert command.get("data-for") == "rifles-1"
    assert float(command.get("data-radius-mm", "0")) == 500
    area = one(command.findall(f"{SVG}rect"))
    # Everything within 500 mm of the 25 mm square base at (200, 300) mm, edge to edge: a
    # 25 + 2 * 500 = 1025 mm square with corners rounded by 500 mm, centred on (200, 900).
    assert float(area.get("width", "0")) == float(area.get("height", "0")) == 1025
    assert float(area.get("rx", "0")) == 500
    assert float(area.get("x", "0")) + 1025 / 2 == 200
    assert float(area.get("y", "0")) + 1025 / 2 == 900


def test_a_hero_in_an_enclosed_wood_commands_within_25_cm() -> None:
    # Hart (round, 2.5 cm) stands at (75, 55) cm inside wood-1 (60..90 x 40..70, enclosed).
    root = parse(map_svg(load_scene(SKIRMISH), select="captain-hart"))
    command = one(groups(root, "command"))
    assert float(command.get("data-radius-mm", "0")) == 250
    circle = one(command.findall(f"{SVG}circle"))
    assert float(circle.get("r", "0")) == 12.5 + 250  # the base's radius grown by 25 cm
    assert (float(circle.get("cx", "0")), float(circle.get("cy", "0"))) == (750, 1200 - 550)


@pytest.mark.parametrize(("inside", "radius"), [(True, 250), (False, 500)])
def test_a_leader_s_command_radius_follows_the_wood_he_stands_in(
    inside: bool, radius: float
) -> None:
    x = 50 if inside else 150  # the wood covers 40..60 cm
    scene = make_scene(
        "skirmish-19c",
        [
            unit(
                "band",
                "british",
                [base("band-lt", x, 50, role="leader"), base("band-1", x + 4, 50)],
                type="infantry",
                quality="veteran",
            )
        ],
        terrain=[terrain("copse", "woods", rect(40, 40, 60, 60), enclosed=True)],
    )
    root = parse(map_svg(scene, select="band-1"))
    command = one(groups(root, "command"))
    assert command.get("data-for") == "band-lt"
    assert float(command.get("data-radius-mm", "0")) == radius


def test_only_bases_whose_role_leads_are_asked_for_a_command_radius(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # skirmish-melee's rifles: rifles-1 the officer, rifles-4 a drummer, two without a role.
    scene = load_scene(REPO / "examples" / "skirmish-melee.json")
    ruleset = get_ruleset("skirmish-19c")
    asked: list[tuple[str, list[str]]] = []
    real = ruleset.resolve

    def spy(scene: Scene, action: str, args: Sequence[str]) -> Resolution:
        asked.append((action, list(args)))
        return real(scene, action, args)

    monkeypatch.setattr(ruleset, "resolve", spy)
    root = parse(map_svg(scene, select="rifles"))
    assert asked == [("command", ["rifles-1"])]
    assert [g.get("data-for") for g in groups(root, "command")] == ["rifles-1"]


def test_a_unit_without_a_leader_gets_no_command_area() -> None:
    root = parse(map_svg(load_scene(SKIRMISH), select="zouaves"))  # an nco leads no one
    assert groups(root, "command") == []
    assert len(groups(root, "halo")) == 3


def test_a_ruleset_that_cannot_answer_command_leaves_the_circle_out() -> None:
    # europe-19c's command needs the leader's `rating`; without one it raises QuestionError.
    scene = make_scene(
        "europe-19c",
        [unit("hq", "prussia", [base("moltke", 50, 50, role="commander")])],
    )
    with pytest.raises(QuestionError, match="rating"):
        get_ruleset("europe-19c").resolve(scene, "command", ["moltke"])
    root = parse(map_svg(scene, select="hq"))
    assert groups(root, "command") == []
    assert base_group(root, "moltke").get("class") == "base selected"


@pytest.mark.parametrize("leader", ["moltke", "wilson-1"])
def test_no_circle_where_the_sheet_gives_no_command_distance(leader: str) -> None:
    # europe-19c: no radius (every unit of the side); sepoys-and-soldiers: base contact (0).
    path = {"moltke": "europe-19c", "wilson-1": "sepoys-and-soldiers"}[leader]
    root = parse(map_svg(load_scene(REPO / "examples" / f"{path}.json"), select=leader))
    assert groups(root, "command") == []


def test_proximity_halos_surround_each_base_of_the_selected_unit() -> None:
    root = parse(map_svg(load_scene(SKIRMISH), select="rifles"))
    halos = groups(root, "halo")
    assert sorted(g.get("data-for") or "" for g in halos) == [f"rifles-{i}" for i in (1, 2, 3, 4)]
    rifles_2 = one(by_for(root, "halo", "rifles-2").findall(f"{SVG}rect"))
    # 5 cm all round a 2.5 cm square: 25 + 2 * 50 = 125 mm, corners rounded by 50 mm; the base
    # stands at (240, 300) mm.
    assert float(rifles_2.get("width", "0")) == float(rifles_2.get("height", "0")) == 125
    assert float(rifles_2.get("rx", "0")) == 50
    assert float(rifles_2.get("x", "0")) + 62.5 == 240
    assert float(rifles_2.get("y", "0")) + 62.5 == 1200 - 300


def rotate(x: float, y: float, transform: str) -> tuple[float, float]:
    """Apply an SVG `rotate(a cx cy)`: SVG y points down, so +a turns clockwise on screen."""
    a, cx, cy = (float(v) for v in transform.removeprefix("rotate(").rstrip(")").split())
    t = math.radians(a)
    dx, dy = x - cx, y - cy
    return cx + dx * math.cos(t) - dy * math.sin(t), cy + dx * math.sin(t) + dy * math.cos(t)


def test_the_halo_of_a_turned_oblong_base_turns_with_it() -> None:
    # 4 cm wide, 2 cm deep, at (100, 50) cm facing 30: the halo's straight sides lie 50 mm out
    # from the base's, so its unrounded corners are centre +- (10 + 50) f +- (20 + 50) r with
    # f = (cos 30, sin 30), r = (sin 30, -cos 30).
    scene = make_scene(
        "skirmish-19c",
        [unit("a", "british", [base("a-1", 100, 50, facing=30, width=4, depth=2)])],
    )
    root = parse(map_svg(scene, select="a"))
    halo = one(by_for(root, "halo", "a-1").findall(f"{SVG}rect"))
    x, y = float(halo.get("x", "0")), float(halo.get("y", "0"))
    w, h = float(halo.get("width", "0")), float(halo.get("height", "0"))
    turned = [
        rotate(px, py, halo.get("transform", ""))
        for px, py in ((x, y), (x + w, y), (x + w, y + h), (x, y + h))
    ]
    drawn = sorted((px, 1200 - py) for px, py in turned)
    c, s = math.sqrt(3) / 2, 0.5
    expected = sorted(
        (1000 + sf * 60 * c + sr * 70 * s, 500 + sf * 60 * s - sr * 70 * c)
        for sf, sr in ((1, 1), (1, -1), (-1, -1), (-1, 1))
    )
    flat = [v for corner in drawn for v in corner]
    assert flat == pytest.approx([v for corner in expected for v in corner], abs=0.01)


def test_the_proximity_distance_can_be_changed() -> None:
    root = parse(map_svg(load_scene(SKIRMISH), select="captain-hart", proximity_mm=30))
    halo = one(by_for(root, "halo", "hart").findall(f"{SVG}circle"))
    assert float(halo.get("r", "0")) == 12.5 + 30


@pytest.mark.parametrize(("width", "depth"), [(2.5, 2.5), (4, 2), (2, 5)])
def test_the_sector_lines_run_along_the_base_s_diagonals(width: float, depth: float) -> None:
    root = parse(map_svg(one_base(facing=90, width=width, depth=depth), select="a"))
    sectors = by_for(root, "sectors", "a-1")
    path = one(sectors.findall(f"{SVG}path")).get("d", "")
    ends = [
        (float(x), 1200 - float(y))
        for x, y in (p.split(",") for p in path.replace("M", " ").replace("L", " ").split())
    ]
    assert len(ends) == 4
    # Facing the far edge, a diagonal through the corners (+-w/2, +-d/2) has |dx| / |dy| = w / d.
    for x, y in ends:
        assert abs(x - 200) / abs(y - 300) == pytest.approx(width / depth, rel=1e-3)
    # The shaded rear sector lies behind the base (towards the near edge, y < 300 mm).
    rear = one(sectors.findall(f"{SVG}polygon"))
    corners = [(x, 1200 - y) for x, y in points(rear)]
    assert corners[0] == (200, 300)
    assert all(y < 300 for _, y in corners[1:])


# --------------------------------------------------------------------------------------------
# Measuring


def measured(capsys: pytest.CaptureFixture[str], a: str, b: str) -> float:
    """The distance `umpire resolve examples/skirmish.json measure A B --json` prints."""
    import json

    assert cli.main(["resolve", str(SKIRMISH), "measure", a, b, "--json"]) == 0
    return float(json.loads(capsys.readouterr().out)["distance"]["value"])


def test_the_measuring_line_joins_the_nearest_pair_with_the_measured_distance(
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = parse(map_svg(load_scene(SKIRMISH), select="rifles", target="zouaves"))
    measure = one(groups(root, "measure"))
    # Nearest pair: rifles-4 (32, 30) and zouaves-1 (40, 95), 2.5 cm squares. Corners facing
    # each other: (33.25, 31.25) and (38.75, 93.75): sqrt(5.5^2 + 62.5^2) = 62.7415 cm.
    assert (measure.get("data-a"), measure.get("data-b")) == ("rifles-4", "zouaves-1")
    line = one(measure.findall(f"{SVG}line"))
    ends = [(float(line.get(f"x{i}", "0")), 1200 - float(line.get(f"y{i}", "0"))) for i in (1, 2)]
    assert ends == [(332.5, 312.5), (387.5, 937.5)]
    label = one(measure.findall(f"{SVG}text")).text
    assert label == "62.7 cm"
    assert label == f"{measured(capsys, 'rifles', 'zouaves'):.1f} cm"


def test_the_measuring_line_ends_on_the_rim_of_a_round_base(
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = parse(map_svg(load_scene(SKIRMISH), select="hart", target="rifles-4"))
    measure = one(groups(root, "measure"))
    line = one(measure.findall(f"{SVG}line"))
    (x1, y1) = float(line.get("x1", "0")), 1200 - float(line.get("y1", "0"))
    (x2, y2) = float(line.get("x2", "0")), 1200 - float(line.get("y2", "0"))
    assert math.hypot(x1 - 750, y1 - 550) == pytest.approx(12.5, abs=0.02)  # on hart's rim
    distance = measured(capsys, "hart", "rifles-4")  # cm
    assert math.hypot(x2 - x1, y2 - y1) == pytest.approx(distance * 10, abs=0.05)
    assert one(measure.findall(f"{SVG}text")).text == f"{distance:.1f} cm"


def test_inches_label_the_scale_bar_grid_and_measuring_line_in_inches() -> None:
    root = parse(map_svg(load_scene(SKIRMISH), unit="in", select="rifles", target="zouaves"))
    assert root.get("data-unit") == "in"
    bar = one(groups(root, "scale-bar"))
    assert bar.get("data-unit") == "in"
    # Three 4-inch steps fit in a quarter of the 1800 mm table: 12 in = 304.8 mm.
    assert float(bar.get("data-length-mm", "0")) == pytest.approx(304.8)
    assert [t.text for t in bar.iter(f"{SVG}text")] == ['12"']
    grid = one([e for e in root.iter(f"{SVG}path") if e.get("class") == "grid"])
    assert float(grid.get("data-step-mm", "0")) == pytest.approx(101.6)  # 4 in
    # 627.415 mm / 25.4 = 24.70 in.
    assert one(one(groups(root, "measure")).findall(f"{SVG}text")).text == '24.7"'


def test_centimetres_label_the_scale_bar_in_centimetres() -> None:
    root = parse(map_svg(load_scene(SKIRMISH)))
    bar = one(groups(root, "scale-bar"))
    assert float(bar.get("data-length-mm", "0")) == 300  # three 10 cm steps
    assert [t.text for t in bar.iter(f"{SVG}text")] == ["30 cm"]


def test_inch_scenes_default_to_inches() -> None:
    root = parse(map_svg(load_scene(REPO / "examples" / "colonial-adventure.json")))
    assert one(groups(root, "scale-bar")).get("data-unit") == "in"


def test_a_grid_ruleset_also_draws_its_squares() -> None:
    root = parse(map_svg(load_scene(REPO / "examples" / "age-of-napoleon.json")))
    game_grid = one([e for e in root.iter(f"{SVG}path") if e.get("class") == "game-grid"])
    assert float(game_grid.get("data-step-mm", "0")) == 100  # box 10 cm


# --------------------------------------------------------------------------------------------
# Bad input and safety


def test_ids_from_files_are_escaped() -> None:
    nasty = 'a<&">b'
    scene = make_scene(
        "skirmish-19c",
        [unit(f"u{nasty}", f"s{nasty}", [base(nasty, 20, 30)])],
        terrain=[terrain(f"t{nasty}", "woods", rect(60, 40, 90, 70))],
    )
    svg = map_svg(scene, select=nasty, target=nasty)
    assert "<&" not in svg and '">b' not in svg
    root = parse(svg)
    g = base_group(root, nasty)
    assert (g.get("data-unit"), g.get("data-side")) == (f"u{nasty}", f"s{nasty}")
    assert nasty in [t.text for t in g.iter(f"{SVG}text")]
    wood = one(groups(root, "terrain"))
    assert wood.get("data-terrain") == f"t{nasty}"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_no_scripts_and_no_external_resources(path: Path) -> None:
    scene = load_scene(path)
    first, last = scene.units[0].id, scene.units[-1].id
    root = parse(map_svg(scene, select=first, target=last))
    for element in root.iter():
        assert element.tag.removeprefix(SVG) not in ("script", "image", "foreignObject", "use")
        for name, value in element.attrib.items():
            assert not name.startswith("on") and "href" not in name
            assert "url(" not in value and "javascript:" not in value


def test_an_unknown_unit_is_refused() -> None:
    with pytest.raises(UnknownUnitError, match="'ft'"):
        map_svg(load_scene(SKIRMISH), unit="ft")


@pytest.mark.parametrize(("select", "target"), [("nobody", None), ("rifles", "nobody")])
def test_an_unknown_id_is_refused(select: str, target: str | None) -> None:
    with pytest.raises(UnknownIdError, match="'nobody'"):
        map_svg(load_scene(SKIRMISH), select=select, target=target)


def test_select_draws_the_units_range_bands_europe() -> None:
    # 004 line 68: Early breech-loader* 16cm; line 72: skirmishers +8cm (jaeger: 24 cm)
    scene = load_scene(REPO / "examples" / "europe-19c.json")
    rings = groups(parse(map_svg(scene, select="jaeger")), "range")
    assert [float(g.get("data-reach-mm", "0")) for g in rings] == [240.0]
    # one grown footprint a base of the unit
    assert len(rings[0]) == len(scene.select("jaeger"))


def test_select_draws_skirmish_rifle_ranges() -> None:
    # 000 line 10: Rifles 30 / 90 / 180 cms
    rings = groups(parse(map_svg(load_scene(SKIRMISH), select="rifles")), "range")
    assert [(g.get("data-band"), float(g.get("data-reach-mm", "0"))) for g in rings] == [
        ("short", 300.0),
        ("medium", 900.0),
        ("long", 1800.0),
    ]
