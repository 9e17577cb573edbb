"""The measuring layer (`rules/measure.py`): one table of measurements per scene, shared by
every question and every thread, its arrays read-only, its batched answers those of the
per-pair functions of `rules.geometry`."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.bench_rules import tiled_doc
from rules import geometry as geo
from rules.engine import get_ruleset, read_scene
from rules.measure import CoverPolicy, CoverReading, Table, table_of
from rules.scene import Cover, Scene, TerrainKind, Unit
from tests import sight_reference as ref
from tests.builders import base, make_scene, rect, terrain, unit

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.json"))


def _tiled(example: Path, bases: int) -> Scene:
    doc = json.loads(example.read_text(encoding="utf-8"))
    return read_scene(tiled_doc(doc, bases), example.name)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_suggest_from_four_threads_at_once_equals_the_serial_answers(example: Path) -> None:
    # Four threads ask every phase's suggestions of one scene at once (one shared table,
    # filled as they go); every answer is the one a fresh scene asked alone gives.
    scene = _tiled(example, 40)
    rules = get_ruleset(scene.ruleset)
    phases: list[list[str]] = [[], *([p] for p in rules.phases)]
    serial = [rules.resolve(_tiled(example, 40), "suggest", p).as_json() for p in phases]

    def suggest(phase: list[str]) -> dict[str, Any]:
        return rules.resolve(scene, "suggest", phase).as_json()

    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(suggest, phases * 4))
    for k, answer in enumerate(answers):
        assert answer == serial[k % len(phases)], phases[k % len(phases)]


def test_one_table_per_scene_and_its_arrays_are_read_only() -> None:
    scene = _tiled(EXAMPLES[0], 10)
    table = table_of(scene)
    assert table_of(scene) is table
    with pytest.raises(ValueError, match="read-only"):
        table.distances[0, 1] = 0.0
    with pytest.raises(ValueError, match="read-only"):
        table.aspects[0, 1] = 0


def test_aspects_and_bases_within_are_the_per_pair_answers() -> None:
    scene = _tiled(EXAMPLES[-1], 40)
    table = Table(scene)
    bases = table.bases
    for i in range(0, len(bases), 7):
        for j in range(0, len(bases), 5):
            if i != j:
                want = list(geo.Aspect).index(geo.aspect(bases[i], bases[j]).aspect)
                assert table.aspects[i, j] == want
    found = [(i, table.index[b.id]) for i, a in enumerate(bases) for b in table.within(a, 100.0)]
    expected = [
        (i, j)
        for i, a in enumerate(bases)
        for j, b in enumerate(bases)
        if i != j and geo.within(ref.edge_distance(a, b), 100.0)
    ]
    assert found == expected


def test_a_length_on_a_reach_is_within_it() -> None:
    # Two 20 mm squares whose centres are 121.6 mm apart are 101.6 mm apart edge to edge: on a
    # 4" reach, however the subtraction rounds.
    pair = make_scene(
        "skirmish-19c",
        [
            unit("a", "red", [base("a-1", 3.0, 10.0, 0, 20, 20)]),
            unit("b", "blue", [base("b-1", 124.6, 10.0, 180, 20, 20)]),
        ],
        unit="mm",
    )
    table = table_of(pair)
    a, b = table.bases
    assert table.within(a, 101.6) == [b] and table.within(b, 101.6) == [a]


def _bases_on_a_table(seed: int) -> list[dict[str, Any]]:
    """Square, oblong and round bases at random places and facings, and some placed exactly on
    the line of the first one's front edge (level with it, touching it from either side)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(24):
        x, y, facing = rng.uniform(0, 400), rng.uniform(0, 400), float(rng.choice([0, 90, 33.5]))
        if i % 4 == 3:
            out.append(base(f"b{i}", x, y, facing, diameter=rng.uniform(10, 40)))
        else:
            out.append(base(f"b{i}", x, y, facing, rng.uniform(10, 60), rng.uniform(10, 60)))
    # The first base faces up (y grows) with its front edge at y = 110; these touch that line.
    out[0] = base("b0", 200, 100, 90, 40, 20)
    out += [
        base("level", 300, 120, 0, 20, 40),  # from y = 110 up: on the line, in front of it
        base("behind", 100, 100, 0, 20, 40),  # from y = 90 to 110: behind, touching the line
        base("round", 250, 120, 0, diameter=20),  # its rim touches the line from in front
        base("hair", 150, 99.9995, 0, 20, 40),  # half a micrometre behind the line
    ]
    return out


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("half_angle", [90.0, 45.0])
def test_any_in_arc_is_in_arc_of_some_pair(seed: int, half_angle: float) -> None:
    # Whether some target lies in the arc of some shooter is `sight_reference.base_in_arc` of
    # some pair, for the 180 degree arc (read off `ahead` for every pair at once) as for another.
    bases = _bases_on_a_table(seed)
    scene = make_scene("skirmish-19c", [unit(f"u-{b['id']}", "s", [b]) for b in bases], unit="mm")
    table = Table(scene)
    every = list(table.bases)
    for shooter in every[:8]:
        for target in every:
            if target is not shooter:
                expected = ref.base_in_arc(shooter, target, half_angle)
                assert table.any_in_arc([shooter], [target], half_angle) is expected
        shooters = [shooter, every[-2]]
        others = [b for b in every if b not in shooters]
        for group in (others[:3], others[3:9], others[-3:]):
            expected = any(ref.base_in_arc(s, t, half_angle) for s in shooters for t in group)
            assert table.any_in_arc(shooters, group, half_angle) is expected


def test_units_and_bases_by_id_are_the_scenes() -> None:
    # `Table.unit_of` and `Table.select` answer as `Scene.unit_of` and `Scene.select` for every
    # unit id and base id, and an unknown id is refused the same way.
    scene = _tiled(EXAMPLES[0], 40)
    table = Table(scene)
    for ident in [*(u.id for u in scene.units), *(b.id for b in scene.bases())]:
        assert table.unit_of(ident) is scene.unit_of(ident)
        assert table.select(ident) == scene.select(ident)
    with pytest.raises(Exception) as raised:
        scene.unit_of("nobody")
    with pytest.raises(type(raised.value), match="nobody"):
        table.unit_of("nobody")
    with pytest.raises(type(raised.value), match="nobody"):
        table.select("nobody")


def test_the_gap_names_the_nearest_of_every_pair_of_bases_either_way() -> None:
    # 20 x 20 mm squares. a2 (x 190..210, y 290..310) to b2 (x 230..250, y 300..320): y
    # overlaps, x gap 230 - 210 = 20. a2-b1 (x 290..310): 290 - 210 = 80. a1 (y 190..210) to
    # b2: hypot(20, 90) = 92.2. a1-b1: hypot(80, 80) = 113.1.
    square = dict(width=20, depth=20)
    army = [base("a1", 200, 200, **square), base("a2", 200, 300, **square)]
    enemy = [base("b1", 300, 300, **square), base("b2", 240, 310, **square)]
    units = [unit("A", "x", army), unit("B", "y", enemy)]
    scene = make_scene("skirmish-19c", units, unit="mm", width=600, depth=600)
    table, (a, b) = Table(scene), scene.units
    found = table.gap(a.bases, b.bases)
    assert (found.a.id, found.b.id, found.distance) == ("a2", "b2", pytest.approx(20.0))
    # Groups that are not units' bases are measured from their block of distances alike.
    assert table.gap(list(a.bases), list(b.bases)) == found
    back = table.gap(b.bases, a.bases)
    assert (back.a.id, back.b.id, back.distance) == ("b2", "a2", pytest.approx(20.0))


def test_the_units_within_a_reach_are_a_row_of_the_unit_gaps() -> None:
    scene = _tiled(EXAMPLES[0], 40)
    table = Table(scene)
    for u in scene.units:
        near = [v for v in scene.units if table.gap(u.bases, v.bases).distance <= 150.0]
        assert table.units_within(u, 150.0) == near and u in near


def test_an_empty_table_answers_empty() -> None:
    # No unit, so no base: every matrix has no rows, and no pair is asked.
    table = Table(make_scene("skirmish-19c", []))
    policy = get_ruleset("skirmish-19c").sight_policy
    nearest, which = table.nearest_seen(policy)
    assert table.unit_gaps().shape == table.unit_uncertainties.shape == (0, 0)
    assert nearest.shape == which.shape == table.sight_matrix(policy).shape == (0, 0)
    assert table.seen_pairs(policy, []) == [] and table.enemy_pairs([], math.inf) == []


def test_enemy_pairs_once_lists_each_pair_in_contact_once_the_first_unit_first() -> None:
    # 20 x 20 mm squares in a row along y = 100: r1 (x 90..110) touches b1 (x 110..130),
    # which touches r2 (x 130..150); b2 (x 290..310) is 140 mm from r2, in contact with none.
    square = dict(width=20, depth=20)
    placed = [("r1", "red", 100), ("b1", "blue", 120), ("r2", "red", 140), ("b2", "blue", 300)]
    units = [unit(u, side, [base(f"{u}-1", x, 100, **square)]) for u, side, x in placed]
    scene = make_scene("skirmish-19c", units, unit="mm", width=600, depth=600)
    table = Table(scene)

    def ids(asked: Sequence[Unit], once: bool) -> list[tuple[str, str]]:
        return [(a.id, b.id) for a, b, _, _ in table.enemy_pairs(asked, 0.0, once=once)]

    both = [("r1", "b1"), ("b1", "r1"), ("b1", "r2"), ("r2", "b1")]
    assert ids(scene.units, once=False) == both
    assert ids(scene.units, once=True) == [("r1", "b1"), ("b1", "r2")]
    # in the order asked: r2 first, then b1, then r1
    assert ids(scene.units[::-1], once=True) == [("r2", "b1"), ("b1", "r1")]


def test_enemy_pairs_are_the_units_of_other_sides_within_a_limit_give_or_take() -> None:
    scene = _tiled(EXAMPLES[0], 40)
    table, units = Table(scene), scene.units[::-1]  # in the order asked, not the scene's
    expected = []
    for a in units:
        for b in units:
            near = table.gap(a.bases, b.bases)
            unc = table.uncertainty(near.a, near.b)
            if a.side != b.side and geo.within(near.distance, 150.0 + unc):
                expected.append((a.id, b.id, near.distance, unc))
    found = [(a.id, b.id, gap, unc) for a, b, gap, unc in table.enemy_pairs(units, 150.0)]
    assert [f[:2] for f in found] == [e[:2] for e in expected] and expected
    assert np.array([f[2:] for f in found]) == pytest.approx(np.array([e[2:] for e in expected]))


def test_a_line_between_centres_crosses_the_pieces_it_runs_through() -> None:
    # A stream between a and b; a wood beside the line; a second stream the line only touches.
    scene = make_scene(
        "europe-19c",
        [
            unit("a", "red", [base("a-1", 10.0, 10.0)]),
            unit("b", "blue", [base("b-1", 30.0, 10.0)]),
        ],
        terrain=[
            terrain("brook", "stream", rect(18.0, 0.0, 22.0, 40.0)),
            terrain("copse", "woods", rect(18.0, 20.0, 22.0, 30.0)),
            terrain("ditch", "stream", rect(24.0, 10.0, 26.0, 40.0)),
        ],
    )
    table = Table(scene)
    a, b = table.bases
    # The centres are 20 cm apart at y = 10 cm: 4 cm of the line lie in the brook; the ditch's
    # near side is the line itself (touched, not run through), the copse lies 10 cm aside.
    for there, back in (((a.x, a.y), (b.x, b.y)), ((b.x, b.y), (a.x, a.y))):
        (crossed,) = table.pieces_on_lines([(there, back)])
        assert [(t.id, inside) for t, inside in crossed] == [("brook", pytest.approx(40.0))]
    # Many lines asked at once: each its own answer. From a's centre (100, 100) mm to
    # (200, 250) mm, the line enters x = 180 mm at y = 220 mm, inside the brook and the copse
    # at once, and ends in both: the last fifth of its hypot(100, 150) mm in each. The line at
    # y = 450 mm passes beyond the ends of the brook (y up to 400 mm) and the ditch.
    lines = [
        ((a.x, a.y), (b.x, b.y)),
        ((a.x, a.y), (200.0, 250.0)),
        ((100.0, 450.0), (300.0, 450.0)),
    ]
    slant = 0.2 * math.hypot(100.0, 150.0)
    assert [[(t.id, inside) for t, inside in on] for on in table.pieces_on_lines(lines)] == [
        [("brook", pytest.approx(40.0))],
        [("brook", pytest.approx(slant)), ("copse", pytest.approx(slant))],
        [],
    ]


@pytest.mark.parametrize(
    ("x", "y", "face"),
    [
        (0.0, 5.0, "front"),
        (5.0, 0.0, "right-flank"),
        (-5.0, 0.0, "left-flank"),
        (0.0, -5.0, "rear"),
    ],
)
def test_the_face_a_base_stands_against_names_its_flank(x: float, y: float, face: str) -> None:
    # The target faces up the table (90 degrees): its right is +x.
    scene = make_scene(
        "europe-19c",
        [
            unit("t", "red", [base("t-1", 10.0, 10.0, 90.0)]),
            unit("a", "blue", [base("a-1", 10.0 + x, 10.0 + y, 0.0)]),
        ],
    )
    table = Table(scene)
    target, attacker = table.bases
    found = geo.aspect(attacker, target)
    assert (found.name, found.aspect.value) == (face, face.split("-")[-1])
    # a square base: its diagonals at 45 degrees, 50 mm (5 cm) from the attacker's centre
    assert found.margin == pytest.approx(50.0 * math.sin(math.radians(45)))


def test_the_gap_of_two_units_is_their_nearest_pair_with_its_uncertainty() -> None:
    # 20 mm squares: a-1 spans x 0..20, a-2 x 30..50, b-1 x 70..90 (all y 0..20), so the
    # nearest pair is a-2, b-1, 20 mm apart; their uncertainties 3 and 4 mm combine to 5.
    def scene(b_x: float) -> Scene:
        a = [base("a-1", 10, 10, 0, 20, 20), base("a-2", 40, 10, 0, 20, 20, uncertainty=3)]
        b = [base("b-1", b_x, 10, 180, 20, 20, uncertainty=4)]
        return make_scene("skirmish-19c", [unit("a", "red", a), unit("b", "blue", b)], unit="mm")

    table = table_of(scene(80))
    a, b = table.scene.units
    gap = table.gap(a.bases, b.bases)
    assert (gap.a.id, gap.b.id) == ("a-2", "b-1")
    assert gap.distance == pytest.approx(20.0) and gap.uncertainty == pytest.approx(5.0)
    assert not gap.against(25.0).beyond  # 5 mm inside: within
    assert not gap.against(16.0).beyond  # 4 mm beyond, inside the 5 mm: too close to call
    assert gap.against(14.0).beyond  # 6 mm beyond: clearly
    assert gap.contact.limit == 0.0 and not gap.touching  # 20 mm apart
    # a-1 is 2 mm uncertain (the default): no length here is off by more than twice b-1's 4 mm
    assert table.most_off == 8.0
    pairs = [(x, y) for x in table.bases for y in table.bases if x is not y]
    assert max(table.uncertainty(x, y) for x, y in pairs) == 5.0  # a-2 and b-1
    # b-1 spans x 54..74: 4 mm from a-2, inside the uncertainty: maybe touching
    near = table_of(scene(64))
    assert near.gap(*(u.bases for u in near.scene.units)).touching


@pytest.mark.parametrize(("y", "behind"), [(30.0, True), (60.0, False)])
def test_cover_behind_an_l_shaped_wall_is_measured_to_the_wall_not_its_hull(
    y: float, behind: bool
) -> None:
    # A wall 10 mm thick in an L: along y = 0..10 from x = 0 to 200, and along x = 0..10 up
    # to y = 200. A 20 mm square target at (60, y) in the crook, shot at from (60, -100): the
    # line crosses the wall's foot. At y = 30 its near edge (y = 20) is 10 mm from the wall,
    # within 25 mm; at y = 60 it is 40 mm from either leg (its corner (70, 70) lies inside the
    # L's hull, x + y <= 210, but the hull is no wall), so it is not behind it.
    wall = [(0, 0), (200, 0), (200, 10), (10, 10), (10, 200), (0, 200)]
    moved = [(300.0 + x, 200.0 + yy) for x, yy in wall]  # on the table, as the bases
    got = _wall_cover(moved, shooter=(360, 100), target=(360, 200 + y, 20, 20))
    assert got.cover is (Cover.HARD if behind else Cover.NONE)
    assert got.reasons == (("t-1 is behind wall-1 (wall)",) if behind else ())


def _wall_cover(
    wall: list[tuple[float, float]],
    shooter: tuple[float, float],
    target: tuple[float, float, float, float],
) -> CoverReading:
    """The cover, against 25 mm behind a wall (hard), of a target base (x, y, width, depth;
    facing +y) shot at by a 20 mm square base at `shooter`, on a 1 m table in mm."""
    shooting = unit("s", "a", [base("s-1", *shooter, 90, 20, 20)])
    x, y, width, depth = target
    aimed = unit("t", "b", [base("t-1", x, y, 90, width, depth)])
    scene = make_scene(
        "skirmish-19c",
        [shooting, aimed],
        unit="mm",
        width=1000,
        depth=1000,
        terrain=[terrain("wall-1", "wall", [list(p) for p in wall])],
    )
    policy = CoverPolicy(((TerrainKind.WALL, Cover.HARD),), frozenset({TerrainKind.WALL}), 25.0)
    table = Table(scene)
    return table.cover(policy, table.bases[0], table.bases[1])


def test_a_cover_obstacle_lying_wholly_under_the_target_is_at_no_distance_from_it() -> None:
    # A 120 x 80 mm base centred at (500, 500) covers x 440..560, y 460..540; a wall 10 x 4 mm
    # at x 495..505, y 495..499 lies under it, no edge of it crossing the base's, and not under
    # its centre. The line from the shooter at (500, 300) runs 4 mm through the wall: the base
    # is 0 mm from the wall (it stands over it), so it is behind it.
    wall = [(495.0, 495.0), (505.0, 495.0), (505.0, 499.0), (495.0, 499.0)]
    got = _wall_cover(wall, shooter=(500, 300), target=(500, 500, 120, 80))
    assert (got.cover, got.reasons) == (Cover.HARD, ("t-1 is behind wall-1 (wall)",))
