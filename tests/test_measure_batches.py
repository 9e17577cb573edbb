"""The measuring layer's batched questions (`rules/measure.py`): every base against every enemy
base in sight (`sight_matrix`, `nearest_seen`, `sight_distances`), the terrain holding each
base's centre (`centres_in`), the pieces a straight move crosses (`pieces_on_lines`), and the
scene's look-ups (`unit_of`, `select`, `span`): each the answer of the per-pair or per-base
question it batches."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from benchmarks.bench_rules import tiled_doc
from rules import geometry as geo
from rules.engine import get_ruleset, read_scene
from rules.measure import Table
from rules.scene import Scene
from tests import sight_reference as ref
from tests.builders import make_scene, unit

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.json"))


def _tiled(example: Path, bases: int) -> Scene:
    doc = json.loads(example.read_text(encoding="utf-8"))
    return read_scene(tiled_doc(doc, bases), example.name)


@pytest.mark.parametrize("example", EXAMPLES[:2], ids=lambda p: p.stem)
def test_sight_matrix_and_nearest_seen_are_the_per_pair_answers(example: Path) -> None:
    scene = _tiled(example, 40)
    policy = get_ruleset(scene.ruleset).sight_policy
    table = Table(scene)
    bases, units = table.bases, scene.units
    side = {u.id: u.side for u in units}
    seen = table.sight_matrix(policy)
    assert seen is table.sight_matrix(policy)  # remembered
    for i in range(0, len(bases), 3):
        for j, b in enumerate(bases):
            enemy = side[bases[i].unit_id] != side[b.unit_id]
            sees = enemy and table.seen_pairs(policy, [(bases[i], b)])[0]
            assert seen[i, j] == (table.distances[i, j] if sees else math.inf), (i, j)
    nearest, which = table.nearest_seen(policy)
    for i in range(0, len(bases), 3):
        for k, u in enumerate(units):
            row = seen[i, table.span(u)]
            assert nearest[i, k] == row.min()
            if row.min() < math.inf:
                assert which[i, k] == table.span(u).start + int(row.argmin())
    viewers, targets = bases[:10], bases[10:]
    within = table.sight_distances(policy, viewers, targets, within=300.0)
    for v in range(len(viewers)):
        for t in range(len(targets)):
            d = seen[v, 10 + t]
            expected = d if d < math.inf and geo.within(d, 300.0) else math.inf
            if side[viewers[v].unit_id] != side[targets[t].unit_id]:
                assert within[v, t] == expected, (v, t)


@pytest.mark.parametrize("entire", [False, True])
def test_seen_pairs_is_seen_asked_of_bases(entire: bool) -> None:
    scene = _tiled(EXAMPLES[0], 40)
    policy = replace(get_ruleset(scene.ruleset).sight_policy, entire_base=entire)
    table, bases = Table(scene), Table(scene).bases
    pairs = [(bases[i], bases[j]) for i in range(0, len(bases), 5) for j in range(len(bases))]
    rows = np.array([[table.index[v.id], table.index[t.id]] for v, t in pairs])
    expected = table.seen(policy, rows[:, 0], rows[:, 1]).tolist()
    assert Table(scene).seen_pairs(policy, pairs) == expected
    assert table.seen_pairs(policy, []) == []


def test_the_look_ups_and_the_terrain_are_the_scenes_answers() -> None:
    scene = _tiled(EXAMPLES[0], 40)
    table = Table(scene)
    for u in scene.units:
        assert table.unit_of(u.id) is u and table.select(u.id) == u.bases
        assert tuple(table.bases[table.span(u)]) == tuple(u.bases)
        for b in u.bases:
            assert table.unit_of(b.id) is u and table.select(b.id) == (b,)
    with pytest.raises(Exception, match="nobody"):
        table.unit_of("nobody")
    pieces = list(scene.terrain)
    inside = table.centres_in(pieces[1:])
    for k, b in enumerate(table.bases):
        assert inside[k] == any(t.id != pieces[0].id for t in table.centre_in(b))
    a, b = table.bases[0], table.bases[-1]
    (crossed,) = table.pieces_on_lines([((a.x, a.y), (b.x, b.y))])
    for piece, length in crossed:
        poly = np.asarray(piece.polygon, dtype=float)
        want = ref.length_inside((a.x, a.y), (b.x, b.y), geo.Obstacle(piece.id, poly))[0]
        assert length == pytest.approx(want, abs=1e-9)
    missed = {t.id for t in pieces} - {p.id for p, _ in crossed}
    for piece in (t for t in pieces if t.id in missed):
        poly = np.asarray(piece.polygon, dtype=float)
        inside_len = ref.length_inside((a.x, a.y), (b.x, b.y), geo.Obstacle(piece.id, poly))[0]
        assert inside_len <= geo.EPS


def test_others_apart_leaves_out_the_own_unit_and_near_bases() -> None:
    """25 mm square bases: a-1 is 10 mm from a-0 (edge to edge) in its own unit, b-0 15 mm
    from it, c-0 175 mm; only c-0 is of another unit and more than 2 cm from a-0 (the bases a
    skirmish-19c figure cannot shoot over, line 55)."""
    sq = {"width": 25.0, "depth": 25.0}
    own = [{"id": "a-0", "x": 100.0, "y": 100.0, **sq}, {"id": "a-1", "x": 135.0, "y": 100.0, **sq}]
    units = [
        unit("a", "red", own),
        unit("b", "blue", [{"id": "b-0", "x": 100.0, "y": 140.0, **sq}]),
        unit("c", "blue", [{"id": "c-0", "x": 300.0, "y": 100.0, **sq}]),
    ]
    table = Table(make_scene("skirmish-19c", units, unit="mm", width=900, depth=600))
    row = table.others_apart(20.0)[table.index["a-0"]]
    assert dict(zip([b.id for b in table.bases], row.tolist(), strict=True)) == {
        "a-0": False,
        "a-1": False,
        "b-0": False,
        "c-0": True,
    }
