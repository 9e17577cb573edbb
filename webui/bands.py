"""What a range row compares: the band an answer names, with where that band starts and ends.

An answer with a `band` (a shot) names the band the measured length falls in; the page's row
reads "range 62.7 cm: medium band, 30-90 cm", so it needs the band's two ends. They are read
off the ruleset's own `range_bands` for the shooting unit (the first argument): a band starts
where the one before it ends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.answer import length_json
from rules.engine import get_ruleset
from rules.errors import UmpireError
from rules.scene import Scene


def band_range(scene: Scene, answer: Mapping[str, Any], args: Sequence[str]) -> dict[str, Any]:
    """`{"band_range": {"from": LENGTH, "to": LENGTH}}` for an answer naming a band of the first
    argument's weapon, else `{}` (no band, a band the ruleset does not list, no such unit)."""
    band = answer.get("band")
    if not isinstance(band, str) or not args:
        return {}
    try:
        unit = scene.unit_of(args[0])
        bands = sorted(get_ruleset(scene.ruleset).range_bands(scene, unit), key=lambda b: b.reach)
    except (UmpireError, ValueError, KeyError):
        return {}
    start = 0.0
    for b in bands:
        if b.label == band:
            return {
                "band_range": {"from": length_json(scene, start), "to": length_json(scene, b.reach)}
            }
        start = b.reach
    return {}
