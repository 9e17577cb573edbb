"""The built-in demos of `umpire serve --demo RULESET`: a synthetic camera over a game of each
ruleset (its game file `vision/demo_game/RULESET.toml`, laid out as `RULESET.json` says; both
shipped with the package and linked from `examples/games/`), with a unit advancing or wheeling
every few seconds and a player's hand reaching over the table now and then. Bases the players
take off the table (`take_off`) leave the picture, as they would leave a real table.

It is a `FrameSource` like a webcam: `read()` gives the next `CapturedFrame`, paced to `fps` in
real time (or as fast as it renders, with `realtime=False`, for tests). `game` is the parsed game
file, so the tracker scans the demo with the same code as a real table; `layout()` is where every
piece truly stands now (ground truth for tests).

Moves stay on the table, clear of the corner and terrain tags (a base standing on a reference tag
would hide it), clear of other bases, and out of terrain a base does not walk into (buildings
and linear obstacles). Never imports flask, werkzeug, webui or pupil_apriltags.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import numpy as np

from calibration.units import to_mm
from rules import geometry as geo
from rules.engine import read_scene
from rules.errors import UmpireError
from rules.scene import TerrainKind

from .game import Game, load_game
from .render import CameraSpec, Effects, Point, TableSpec, camera_for_table, hand_polygon, render
from .sources import BaseSource, FramePacer, SourceError
from .synthetic import table_spec

DEMO_DIR: Final = Path(__file__).resolve().parent / "demo_game"
"""Shipped with the package (examples/games/ links here), so the demo runs from an installed
copy too."""
DEFAULT_DEMO: Final = "skirmish-19c"
"""The ruleset `umpire serve` demonstrates when none is named."""
DEMO_GAME: Final = DEMO_DIR / f"{DEFAULT_DEMO}.toml"
DEMO_LAYOUT: Final = DEMO_DIR / f"{DEFAULT_DEMO}.json"
DEMO_CAMERA_TILT_DEG: Final = 0.0
"""The demo camera looks straight down from 1.5 m: at 1280x720 the rig rule (`umpire tags
--rig`) then asks for 29 mm tags, and every demo prints 32 mm or more. Tilted 15 degrees, the
far edge would need 41 mm."""


def demo_rulesets() -> list[str]:
    """The rulesets with a built-in demo game."""
    return sorted(p.stem for p in DEMO_DIR.glob("*.toml") if p.with_suffix(".json").is_file())


def demo_files(ruleset: str = DEFAULT_DEMO) -> tuple[Path, Path]:
    """The game file and layout of a ruleset's demo; `SourceError` naming the demos."""
    game, layout = DEMO_DIR / f"{ruleset}.toml", DEMO_DIR / f"{ruleset}.json"
    if not (game.is_file() and layout.is_file()):
        known = ", ".join(demo_rulesets())
        raise SourceError(f"no built-in demo for {ruleset!r}; the demos are: {known}")
    return game, layout


DEMO_GAME_EFFECTS: Final = Effects(blur_px=0.4, noise_sigma=1.5)
"""A little lens blur and sensor noise. At 1280x720 a 20 mm tag spans about 13 pixels: the
0.7 px blur of the big demo table already hides most of them, 0.4 px leaves them readable."""

NO_GO: Final = frozenset(
    {
        TerrainKind.BUILDING,
        TerrainKind.WALL,
        TerrainKind.FENCE,
        TerrainKind.HEDGE,
        TerrainKind.FORTIFICATION,
        TerrainKind.RIVER,
    }
)
"""Terrain no base of the demo ends a move in: buildings, obstacles and rivers."""
EDGE_MARGIN_MM: Final = 30.0
"""How far every base stays from the table's edges."""
TAG_CLEARANCE_MM: Final = 30.0
"""Gap kept between a base and a corner or terrain tag's printed card."""
BASE_GAP_MM: Final = 5.0
"""Smallest gap between two bases after a move."""


def _size(value: str | tuple[int, int]) -> tuple[int, int]:
    """`"1280x720"` or `(1280, 720)` -> (width, height), each side 64 to 8192 pixels."""
    size: tuple[int, int] | None = None
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", value)
        size = (int(match[1]), int(match[2])) if match else None
    elif isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        size = (value[0], value[1])
    if size is None or min(size) < 64 or max(size) > 8192:
        raise SourceError(
            f"demo: resolution {value!r} is not WIDTHxHEIGHT with each side 64 to 8192 pixels "
            "(for example '1280x720' or '640x360')"
        )
    return size


class DemoGame(BaseSource):
    """The skirmish-19c demo table as a live frame source.

    Every `move_every` seconds of game time (frames / fps) one unit, picked at random, advances,
    falls back or wheels a little; every `hand_every` seconds a hand reaches in from the near
    edge for `hand_seconds`. The same `seed` gives the same game, frame for frame."""

    live = True

    def __init__(
        self,
        *,
        game_path: str | Path = DEMO_GAME,
        layout_path: str | Path = DEMO_LAYOUT,
        resolution: str | tuple[int, int] = (1280, 720),
        fps: float = 10.0,
        realtime: bool = True,
        seed: int = 0,
        effects: Effects | None = None,
        move_every: float = 3.0,
        hand_every: float = 12.0,
        hand_seconds: float = 1.5,
        tilt_deg: float = DEMO_CAMERA_TILT_DEG,
    ) -> None:
        self.width, self.height = _size(resolution)
        self.tilt_deg = float(tilt_deg)
        if not (isinstance(fps, int | float) and 0 < fps <= 240):
            raise SourceError(f"demo: fps must be above 0 and at most 240, not {fps!r}")
        for name, value in (("move_every", move_every), ("hand_every", hand_every)):
            if not (isinstance(value, int | float) and value >= 0):
                raise SourceError(f"demo: {name} must be 0 (never) or more seconds, not {value!r}")
        if not (isinstance(hand_seconds, int | float) and hand_seconds > 0):
            raise SourceError(f"demo: hand_seconds must be above 0, not {hand_seconds!r}")
        if hand_every and hand_seconds > hand_every:
            raise SourceError(
                f"demo: hand_seconds ({hand_seconds!r}) must not be longer than hand_every "
                f"({hand_every!r})"
            )
        super().__init__("demo")
        try:
            self.game: Game = load_game(game_path)
            self._start = json.loads(Path(layout_path).read_text(encoding="utf-8"))
            read_scene(self._start, str(layout_path))
        except (OSError, json.JSONDecodeError, UmpireError) as error:
            raise SourceError(f"demo: cannot read the demo game: {error}") from None
        self.fps = float(fps)
        self.realtime = bool(realtime)
        self.seed = seed
        self.effects = DEMO_GAME_EFFECTS if effects is None else effects
        self.move_every = float(move_every)
        self.hand_every = float(hand_every)
        self.hand_seconds = float(hand_seconds)
        self.moves = 0
        """Moves made since the game (re)started."""
        self._taken_off: frozenset[str] = frozenset()
        """Bases the players took off the table: no longer in the picture."""
        self._table: TableSpec
        self._open()

    # ----------------------------------------------------------------------------- the game

    def layout(self) -> dict[str, Any]:
        """Where every piece stands now: an `umpire-scene/1` document (a copy)."""
        return copy.deepcopy(self._layout)

    def take_off(self, bases: frozenset[str] | set[str]) -> None:
        """Take these bases off the table (and put back any other taken off before): the
        camera stops seeing them from the next frame."""
        self._taken_off = frozenset(bases)
        self._table = self._spec()

    def _spec(self) -> TableSpec:
        """The renderer's table as the layout stands, without the bases taken off."""
        shown = copy.deepcopy(self._layout)
        for unit in shown["units"]:
            unit["bases"] = [b for b in unit["bases"] if b["id"] not in self._taken_off]
        return table_spec(self.game, shown)

    def _open(self) -> None:
        self._layout: dict[str, Any] = copy.deepcopy(self._start)
        self._rng = np.random.default_rng(self.seed)
        self._table = self._spec()
        self.camera: CameraSpec = camera_for_table(
            table_spec(self.game, self._layout), self.width, self.height, tilt_deg=self.tilt_deg
        )
        self._keep_out = self._tag_cards(self._table)
        self._played = 0
        self._pacer = FramePacer(self.fps)
        self._hand_x = 0.0
        self.moves = 0
        self.hand: tuple[Point, ...] | None = None
        """The hand over the table in the frame last read (table mm), None when there is none."""

    def _tag_cards(self, table: TableSpec) -> list[tuple[float, float, float]]:
        """(x, y, radius) mm of every corner and terrain tag's card, widened by the clearance."""
        base_tags = {b.tag for u in self.game.units for b in u.bases}
        return [
            (t.x_mm, t.y_mm, t.card_mm / math.sqrt(2) + TAG_CLEARANCE_MM)
            for t in table.tags
            if t.tag_id not in base_tags
        ]

    def _frames_every(self, seconds: float) -> int:
        return max(1, round(seconds * self.fps)) if seconds > 0 else 0

    def _step(self, index: int) -> None:
        """Advance the game to frame `index`: maybe a move."""
        every = self._frames_every(self.move_every)
        if every and index > 0 and index % every == 0 and self._try_move():
            self.moves += 1
            self._table = self._spec()

    def _try_move(self) -> bool:
        """Move one unit a little; False when no try of a few found a legal move."""
        units = self._layout["units"]
        for _ in range(12):
            unit = units[int(self._rng.integers(len(units)))]
            kind = self._rng.choice(["advance", "advance", "fall back", "wheel"])
            moved = self._moved(unit, str(kind))
            if self._legal(unit["id"], moved):
                unit["bases"] = moved
                return True
        return False

    def _moved(self, unit: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
        """The unit's bases after an advance or fall-back (along their mean facing) or a wheel
        (a turn about the unit's centre), lengths in the layout's unit."""
        scale = to_mm(1.0, self._layout["unit"])
        bases = [dict(b) for b in unit["bases"]]
        if kind == "wheel":
            turn = float(self._rng.choice([-1, 1]) * self._rng.uniform(8, 20))
            cx = sum(b["x"] for b in bases) / len(bases)
            cy = sum(b["y"] for b in bases) / len(bases)
            c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
            for b in bases:
                dx, dy = b["x"] - cx, b["y"] - cy
                b["x"], b["y"] = cx + c * dx - s * dy, cy + s * dx + c * dy
                b["facing"] = (float(b.get("facing", 0.0)) + turn) % 360.0
            return bases
        step = float(self._rng.uniform(20, 50)) / scale  # 2 to 5 cm
        if kind == "fall back":
            step = -step / 2
        facing = math.radians(float(bases[0].get("facing", 0.0)))
        for b in bases:
            b["x"] += step * math.cos(facing)
            b["y"] += step * math.sin(facing)
        return bases

    def _legal(self, unit_id: str, bases: list[dict[str, Any]]) -> bool:
        """On the table, off the tags, clear of other bases and out of no-go terrain."""
        trial = copy.deepcopy(self._layout)
        for unit in trial["units"]:
            if unit["id"] == unit_id:
                unit["bases"] = bases
        scene = read_scene(trial, "demo move")
        mover = next(u for u in scene.units if u.id == unit_id)
        others = [b for b in scene.bases() if b.unit_id != unit_id]
        for base in mover.bases:
            outline = geo.outline_polygon(base)
            if (
                outline[:, 0].min() < EDGE_MARGIN_MM
                or outline[:, 1].min() < EDGE_MARGIN_MM
                or outline[:, 0].max() > scene.table_width - EDGE_MARGIN_MM
                or outline[:, 1].max() > scene.table_depth - EDGE_MARGIN_MM
            ):
                return False
            if any(geo.point_distance(base, (x, y)) < r for x, y, r in self._keep_out):
                return False
            for piece in scene.terrain:
                if piece.kind in NO_GO and geo.containment(base, piece.polygon) != "outside":
                    return False
        return not others or float(geo.distance_matrix(mover.bases, others).min()) >= BASE_GAP_MM

    def _hand(self, index: int) -> tuple[Point, ...] | None:
        """The hand over the table at frame `index`: in from the near edge and out again."""
        period = self._frames_every(self.hand_every)
        length = self._frames_every(self.hand_seconds)
        if not period:
            return None
        phase = index % period
        if phase == 0:
            self._hand_x = float(self._rng.uniform(0.25, 0.75)) * self._table.width_mm
        if phase >= length or index < period:  # the first pass comes after one period
            return None
        progress = math.sin(math.pi * (phase + 0.5) / length)
        tip = (self._hand_x, -100.0 + progress * 0.45 * self._table.depth_mm)
        return hand_polygon(tip, 90.0)

    # ----------------------------------------------------------------------------- frames

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        index = self._played
        self._step(index)
        self.hand = self._hand(index)
        effects = replace(self.effects, hand=self.hand)
        frame = render(self._table, self.camera, effects, self._rng)
        timestamp = self._pacer.wait(self._played) if self.realtime else index / self.fps
        self._played += 1
        return frame.image, timestamp, self.description

    def _release(self) -> None:
        """Nothing to let go: the game restarts from its first layout on `reopen`."""

    def position_of(self, base_id: str) -> tuple[float, float]:
        """Where a base truly stands now, in mm (for tests)."""
        unit = self._layout["unit"]
        for u in self._layout["units"]:
            for b in u["bases"]:
                if b["id"] == base_id:
                    return to_mm(b["x"], unit), to_mm(b["y"], unit)
        known = [b["id"] for u in self._layout["units"] for b in u["bases"]]
        raise SourceError(f"demo: no base {base_id!r}; bases are {', '.join(known)}")


def open_demo_game(
    ruleset: str = DEFAULT_DEMO,
    *,
    resolution: str | tuple[int, int] = (1280, 720),
    fps: float = 10.0,
    realtime: bool = True,
    seed: int = 0,
    **options: Any,
) -> DemoGame:
    """The demo source `umpire serve` uses with `--demo RULESET` (or no `--source`)."""
    game, layout = demo_files(ruleset)
    options.setdefault("game_path", game)
    options.setdefault("layout_path", layout)
    return DemoGame(resolution=resolution, fps=fps, realtime=realtime, seed=seed, **options)
