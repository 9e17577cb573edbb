"""Small builders for scenes written in tests: a dict in the contract's words, parsed by the real
loader (`rules.engine.read_scene`), so every test scene is also a valid scene file."""

from __future__ import annotations

from typing import Any

from rules.engine import read_scene
from rules.scene import Scene


def base(
    ident: str,
    x: float,
    y: float,
    facing: float = 90.0,
    width: float = 2.5,
    depth: float = 2.5,
    **extra: Any,
) -> dict[str, Any]:
    """A rectangular base (in the scene's unit); `diameter=` in `extra` makes it round."""
    doc: dict[str, Any] = {"id": ident, "x": x, "y": y, "facing": facing}
    if "diameter" not in extra:
        doc.update(width=width, depth=depth)
    doc.update(extra)
    return doc


def unit(ident: str, side: str, bases: list[dict[str, Any]], **attrs: Any) -> dict[str, Any]:
    """A unit with its bases and any attributes (`type`, `quality`, `casualties`, ...)."""
    return {"id": ident, "side": side, **attrs, "bases": bases}


def terrain(ident: str, kind: str, polygon: list[list[float]], **attrs: Any) -> dict[str, Any]:
    return {"id": ident, "kind": kind, "polygon": polygon, **attrs}


def rect(x0: float, y0: float, x1: float, y1: float) -> list[list[float]]:
    """An axis-aligned rectangle polygon."""
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def scene_doc(
    ruleset: str,
    units: list[dict[str, Any]],
    *,
    unit: str = "cm",
    terrain: list[dict[str, Any]] | None = None,
    width: float = 180,
    depth: float = 120,
    grid_box: float | None = None,
    **extra: Any,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "umpire-scene/1",
        "ruleset": ruleset,
        "unit": unit,
        "table": {"width": width, "depth": depth},
        "terrain": terrain or [],
        "units": units,
    }
    if grid_box is not None:
        doc["grid"] = {"box": grid_box}
    doc.update(extra)
    return doc


def make_scene(ruleset: str, units: list[dict[str, Any]], **kw: Any) -> Scene:
    """Build and load a scene in one step."""
    return read_scene(scene_doc(ruleset, units, **kw), "<test scene>")
