"""All-pairs measurement of a busy table: distance, aspect and sight of every pair of bases.

Run: `python -m benchmarks.bench_allpairs [--bases 120] [--repeat 30] [--json]`

On the skirmish example tiled to N bases (`bench_rules.tiled`) it reports the CPU-time median
(`time.process_time`, so other jobs on the machine weigh less) of `allpairs.measure_all` and of
its three parts, against the naive baseline measured in the same run: `edge_distance` and
`aspect` pair by pair and one centre-to-centre sight line per pair, clipped against every
terrain piece and every other base. Printed with the load average; nothing here is asserted by
the test suite (the answers are, in tests/test_allpairs.py).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

import numpy as np

from benchmarks.bench_rules import example_for, median_ms, tiled
from rules import allpairs
from rules import geometry as geo
from rules.engine import get_ruleset
from rules.scene import Scene
from rules.table import Table


def naive_all_pairs(scene: Scene) -> None:
    """Pair by pair: edge distance, aspect, and the centre line past every obstacle."""
    bases = list(scene.bases())
    terrain = Table(scene).terrain_obstacles(get_ruleset(scene.ruleset))
    polys, radii = geo.stack_shapes(bases)
    for i, a in enumerate(bases):
        for j, b in enumerate(bases):
            if i == j:
                continue
            geo.edge_distance(a, b)
            geo.aspect(a, b)
            if j > i:  # one sight line per pair: it is the same segment both ways
                eye, aim = np.array([[a.x, a.y]]), np.array([[b.x, b.y]])
                blocked = any(geo.terrain_hits(eye, aim, piece)[0] for piece in terrain)
                if not blocked:
                    others = [k for k in range(len(bases)) if k not in (i, j)]
                    geo.solid_inside_lengths(eye, aim, polys[others], radii[others])


def parts(scene: Scene) -> dict[str, Any]:
    """The three parts of `measure_all` on their own (the footprints are read in each)."""
    bases = list(scene.bases())
    terrain = Table(scene).terrain_obstacles(get_ruleset(scene.ruleset))
    return {
        "distance": lambda: allpairs.distances(allpairs.footprints(scene)),
        "aspect": lambda: geo.aspect_matrix(bases),
        "sight": lambda: allpairs.sight_lines(allpairs.footprints(scene), terrain),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bases", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()

    scene = tiled(example_for("skirmish-19c"), opts.bases)
    allpairs.measure_all(scene)  # warm: the rulesets imported, numpy's first calls made
    fast = median_ms(lambda: allpairs.measure_all(scene), opts.repeat)
    split = {name: median_ms(fn, opts.repeat) for name, fn in parts(scene).items()}
    naive = median_ms(lambda: naive_all_pairs(scene), max(3, opts.repeat // 10))
    result = allpairs.measure_all(scene)
    n = len(result.ids)
    report: dict[str, Any] = {
        "bases": n,
        "pairs": n * (n - 1) // 2,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "repeat": opts.repeat,
        "measure_all_ms": round(fast, 3),
        "parts_ms": {name: round(ms, 3) for name, ms in split.items()},
        "naive_ms": round(naive, 1),
        "ratio": round(naive / fast, 1),
        "in_sight_pairs": int((np.sum(result.in_sight) - n) // 2),
    }
    if opts.json:
        print(json.dumps(report, indent=2))
        return
    print(
        "load average {:.2f} {:.2f} {:.2f}; CPU time, median of {} runs".format(
            *report["load_average"], opts.repeat
        )
    )
    print(f"all pairs of {n} bases ({report['pairs']} pairs): distance, aspect, sight")
    print(f"  naive pair by pair  {report['naive_ms']:10.1f} ms")
    print(
        f"  measure_all         {report['measure_all_ms']:10.3f} ms   ({report['ratio']}x faster)"
    )
    for name, ms in report["parts_ms"].items():
        print(f"    {name:<17} {ms:10.3f} ms")
    print(f"  pairs in sight: {report['in_sight_pairs']}")


if __name__ == "__main__":
    main()
