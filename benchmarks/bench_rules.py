"""How fast the rules core answers on a busy table: 120 bases.

Run: `.venv/bin/python -m benchmarks.bench_rules [--bases 120] [--repeat 20] [--ruleset ID]...
[--json]`

Reports, in one run on the same scenes:
- all-pairs measurement of N bases: the vectorised `distance_matrix` + `aspect_matrix` against a
  naive baseline measuring pair by pair (`convex_distance` of the two outlines, `aspect`; the
  ratio is the figure to quote), and the median time of one sight trace between two bases;
- `suggest` over every phase for each ruleset (or each `--ruleset` named), on its example scene
  tiled to N bases.
Timings are medians of `--repeat` runs of CPU time (`time.process_time`, so other jobs on the
machine weigh less), printed with the load average; nothing here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from rules import geometry as geo
from rules.engine import Ruleset, get_ruleset, read_scene, ruleset_ids
from rules.measure import Table
from rules.scene import Scene

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append((time.process_time() - t0) * 1000)
    return statistics.median(times)


def example_for(ruleset: str) -> dict[str, Any]:
    for path in sorted(EXAMPLES.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("ruleset") == ruleset:
            return dict(doc)
    raise SystemExit(f"no example scene for {ruleset} in {EXAMPLES}")


def tiled(doc: dict[str, Any], bases: int) -> Scene:
    """The example's units copied across the table, shifted, until there are `bases` bases."""
    return read_scene(tiled_doc(doc, bases), f"<{doc['ruleset']} x{bases}>")


def tiled_doc(doc: dict[str, Any], bases: int) -> dict[str, Any]:
    """`tiled`'s scene document (the golden answers at scale read it too)."""
    units: list[dict[str, Any]] = []
    count, copy_no = 0, 0
    width, depth = doc["table"]["width"], doc["table"]["depth"]
    while count < bases:
        for u in doc["units"]:
            if count >= bases:
                break
            nu = copy.deepcopy(u)
            # Copies land on a 5 x 7 lattice across the whole table (wrapping at its edges), so
            # the table is busy but not piled up.
            dx = (copy_no % 5) * width / 5 + copy_no * width / 97
            dy = (copy_no // 5) * depth / 7
            nu["id"] = f"{u['id']}~{copy_no}"
            kept = []
            for b in nu["bases"]:
                if count >= bases:
                    break
                b["id"] = f"{b['id']}~{copy_no}"
                b["x"] = (b["x"] + dx) % width
                b["y"] = (b["y"] + dy) % depth
                kept.append(b)
                count += 1
            nu["bases"] = kept
            units.append(nu)
        copy_no += 1
    return dict(doc, units=units)


def naive_all_pairs(scene: Scene) -> None:
    bases = list(scene.bases())
    for a in bases:
        for b in bases:
            if a is not b:
                geo.convex_distance(geo.corners(a), geo.radius(a), geo.corners(b), geo.radius(b))
                geo.aspect(a, b)


def vectorised_all_pairs(scene: Scene) -> None:
    bases = list(scene.bases())
    geo.distance_matrix(bases)
    geo.aspect_matrix(bases)


def sight_per_pair_ms(scene: Scene, pairs: int = 200) -> float:
    """Median time of one sight trace (5 sight lines past every terrain piece and base)."""
    rs = get_ruleset(scene.ruleset)
    bases = list(scene.bases())
    times = []
    for k in range(pairs):
        a, b = bases[k % len(bases)], bases[(k * 37 + 11) % len(bases)]
        if a.unit_id == b.unit_id:
            continue
        table = Table(scene)  # no memo: every trace is traced
        # the per-scene arrays every trace shares (measured once per frame, not per trace),
        # with which terrain each base stands in (the sheet's woods rules read it)
        _ = table.distances, table.solids, table.sight_points, table.centres
        table.sight_reach(rs.sight_policy, np.zeros(1, dtype=int), np.zeros(1, dtype=int))
        t0 = time.process_time()
        table.sight(rs.sight_policy, a, b)
        times.append((time.process_time() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bases", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument(
        "--ruleset", action="append", choices=ruleset_ids(), help="time only this (repeatable)"
    )
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()

    report: dict[str, Any] = {"bases": opts.bases, "load_average": list(os.getloadavg())}
    skirmish = tiled(example_for("skirmish-19c"), opts.bases)
    naive = median_ms(lambda: naive_all_pairs(skirmish), max(3, opts.repeat // 5))
    fast = median_ms(lambda: vectorised_all_pairs(skirmish), opts.repeat)
    report["all_pairs"] = {
        "naive_ms": round(naive, 2),
        "vectorised_ms": round(fast, 2),
        "ratio": round(naive / fast, 1),
        "sight_per_pair_ms": round(sight_per_pair_ms(skirmish), 3),
    }
    report["suggest_ms"] = {}
    for ident in opts.ruleset or ruleset_ids():
        rs = get_ruleset(ident)
        if "suggest" not in rs.actions():
            continue
        # A fresh scene each run, as each camera frame is: no measurements cached from the last.
        fresh = [tiled(example_for(ident), opts.bases) for _ in range(opts.repeat)]

        def suggest(fresh: list[Scene] = fresh, ruleset: Ruleset = rs) -> None:
            ruleset.resolve(fresh.pop(), "suggest", [])

        report["suggest_ms"][ident] = round(median_ms(suggest, opts.repeat), 2)

    if opts.json:
        print(json.dumps(report, indent=2))
        return
    ap = report["all_pairs"]
    print(
        "load average {:.2f} {:.2f} {:.2f}; CPU time, median of {} runs".format(
            *report["load_average"], opts.repeat
        )
    )
    print(f"all pairs of {opts.bases} bases (distance + aspect):")
    print(f"  naive pair-by-pair  {ap['naive_ms']:9.2f} ms")
    print(f"  vectorised          {ap['vectorised_ms']:9.2f} ms   ({ap['ratio']}x faster)")
    print(f"  one sight trace past every base and terrain piece: {ap['sight_per_pair_ms']} ms")
    for ident, ms in report["suggest_ms"].items():
        print(f"suggest, every phase, {ident:<20} {ms:8.2f} ms")


if __name__ == "__main__":
    main()
