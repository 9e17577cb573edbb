"""`umpire serve --replay GAME`: a logged game played back to the page as camera frames.

`ReplaySource` is a `vision.sources.FrameSource` like a webcam: each scene the log recorded for
the game (the scene of each turn's start and every scene a question was asked about, in the
order they were recorded) is laid out on the synthetic table (`vision.synthetic.table_spec`),
photographed once by `vision.render`, and shown for `hold_s` seconds; after the last scene it
starts again. The tracker scans these frames with the same code as a real table, so the page,
the map and `/api/resolve` work on a replay exactly as on the game itself.

The game file comes from the log too (stored as text when the game started), so a replay needs
nothing but the log. Never imports flask: the web layer only receives the source.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from rules.engine import get_ruleset
from rules.errors import UmpireError
from vision.game import Game, parse_game
from vision.render import Effects, TableSpec, camera_for_table, render
from vision.sources import BaseSource, FramePacer
from vision.synthetic import table_spec

from .gamelog import GameLog, LogError

REPLAY_EFFECTS: Final = Effects(blur_px=0.4, noise_sigma=1.5)
"""The demo's camera: a little lens blur and sensor noise, so a replay looks like a table."""
HOLD_SECONDS: Final = 3.0
"""How long each logged scene stays on the table."""


class ReplaySource(BaseSource):
    """A logged game's scenes, each held `hold_s` seconds, over and over (a live source: it
    never ends, so the page keeps showing the game)."""

    live = True

    def __init__(
        self,
        game: Game,
        scenes: Sequence[Mapping[str, Any]],
        *,
        game_id: int,
        log_path: str | Path,
        resolution: tuple[int, int] = (1280, 720),
        fps: float = 10.0,
        hold_s: float = HOLD_SECONDS,
        realtime: bool = True,
        effects: Effects | None = REPLAY_EFFECTS,
        seed: int = 0,
        info: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        super().__init__(f"replay of game {game_id} ({log_path})")
        if not scenes:
            raise LogError(f"game {game_id} in {str(log_path)!r} has no scene logged to replay")
        if not (isinstance(fps, int | float) and 0 < fps <= 240):
            raise LogError(f"replay: fps must be above 0 and at most 240, not {fps!r}")
        if not (isinstance(hold_s, int | float) and hold_s > 0):
            raise LogError(f"replay: hold_s must be above 0 seconds, not {hold_s!r}")
        self.game = game
        self.game_id = game_id
        self.fps = float(fps)
        self.hold_frames = max(1, round(hold_s * self.fps))
        """Frames each scene is shown for."""
        self.realtime = bool(realtime)
        self.effects = effects or Effects()
        self.seed = seed
        self.tables: tuple[TableSpec, ...] = tuple(
            self._layout(game, scene, n) for n, scene in enumerate(scenes)
        )
        """The table of each logged scene, in the order played."""
        self.info: tuple[Mapping[str, Any], ...] = tuple(info or ({} for _ in scenes))
        """What the log says of each scene: its turn, phase and the decisions taken with it."""
        self.paused = False
        self.speed = 1.0
        """Scenes go by `speed` times as fast as `hold_s` says (0.25 to 8)."""
        width, height = resolution
        self.camera = camera_for_table(self.tables[0], width, height)
        self._open()

    @staticmethod
    def _layout(game: Game, scene: Mapping[str, Any], n: int) -> TableSpec:
        try:
            return table_spec(game, scene)
        except (UmpireError, KeyError, TypeError, ValueError) as error:
            raise LogError(f"replay: logged scene {n + 1} cannot be laid out: {error}") from None

    def _open(self) -> None:
        self._played = 0
        self._index = 0
        self._in_scene = 0.0
        self._pacer = FramePacer(self.fps)
        self._shown: tuple[int, np.ndarray] | None = None

    @property
    def scene_index(self) -> int:
        """Which logged scene the next frame shows (0 for the first)."""
        return self._index

    # ------------------------------------------------------------------ play, pause, step, speed

    def play(self) -> None:
        self.paused = False

    def pause(self) -> None:
        self.paused = True

    def step(self) -> None:
        """The next logged scene now (paused or not)."""
        self._index = (self._index + 1) % len(self.tables)
        self._in_scene = 0.0

    def set_speed(self, speed: float) -> None:
        if not (isinstance(speed, int | float) and 0.25 <= speed <= 8):
            raise LogError(f"replay: speed must be from 0.25 to 8, not {speed!r}")
        self.speed = float(speed)

    def replay_state(self) -> dict[str, Any]:
        """What the page shows of the replay: which scene, the log's turn, phase and decisions
        for it, and how it plays."""
        index = self._index
        return {
            "replay": True,
            "game": self.game_id,
            "scene": index + 1,
            "scenes": len(self.tables),
            "paused": self.paused,
            "speed": self.speed,
            **dict(self.info[index] if index < len(self.info) else {}),
        }

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        index = self.scene_index
        if self._shown is None or self._shown[0] != index:
            # Photographed once per scene: a held scene is a still table, and rendering every
            # frame would only spend the computer's time the scanner needs.
            rng = np.random.default_rng(self.seed + index)
            self._shown = (index, render(self.tables[index], self.camera, self.effects, rng).image)
        timestamp = self._pacer.wait(self._played) if self.realtime else self._played / self.fps
        self._played += 1
        if not self.paused:
            self._in_scene += self.speed
            if self._in_scene >= self.hold_frames:
                self._index = (self._index + 1) % len(self.tables)
                self._in_scene = 0.0
        return self._shown[1], timestamp, self.description

    def _release(self) -> None:
        """Nothing to let go: `reopen` starts again from the first scene."""
        self._shown = None


def load_logged_game(record: Mapping[str, Any], log_path: str | Path) -> Game:
    """The game file a game was logged with, parsed from its stored text."""
    source = f"game {record['id']} in {str(log_path)!r}"
    text = record.get("game_toml")
    if not text:
        raise LogError(
            f"{source} was logged without its game file (its source was {record['source']!r}), "
            "so it cannot be laid out again"
        )
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise LogError(f"{source}: its stored game file is not valid TOML: {error}") from None
    return parse_game(doc, source)


def open_replay(log_path: str | Path, game_id: int, **options: Any) -> tuple[ReplaySource, Game]:
    """The replay of game `game_id` of the log at `log_path`, and its game. `LogError` for a
    missing log or an unknown game (listing the games the log holds). `options` go to
    `ReplaySource` (resolution, fps, hold_s, realtime, ...)."""
    path = Path(log_path).expanduser()
    with GameLog(path, read_only=True) as log:  # never writes; a missing log is refused
        record = log.game(game_id)
        entries = log.scenes(game_id)
        results = log.summary(game_id, last=100_000).get("results", [])
    scenes = [entry["doc"] for entry in entries]
    game = load_logged_game(record, path)
    info = scene_info(entries, results)
    source = ReplaySource(game, scenes, game_id=game_id, log_path=path, info=info, **options)
    return source, game


def _state_fields(ruleset: object) -> tuple[str, ...]:
    """The names of the state a ruleset keeps for units (casualties, shock...), none for an
    unknown ruleset."""
    try:
        return tuple(f.name for f in get_ruleset(str(ruleset)).state_fields())
    except (UmpireError, ValueError):
        return ()


def scene_info(
    entries: Sequence[Mapping[str, Any]], results: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """For each logged scene: its turn and phase, the units' state the scene carried, and the
    decisions the table took while it stood (results logged after it and before the next)."""
    out = []
    times = [float(e.get("created") or 0) for e in entries]
    for n, entry in enumerate(entries):
        start = times[n]
        end = times[n + 1] if n + 1 < len(times) else float("inf")
        decided = [
            {
                "decision": r.get("decision"),
                "question": r.get("question"),
                "result": r.get("result"),
                "note": r.get("note"),
            }
            for r in sorted(results, key=lambda r: float(r.get("created") or 0))
            if start <= float(r.get("created") or 0) < end
        ]
        doc = entry.get("doc") or {}
        fields = _state_fields(doc.get("ruleset"))
        state = {
            str(u.get("id")): {k: u[k] for k in fields if k in u}
            for u in doc.get("units", [])
            if isinstance(u, Mapping) and any(k in u for k in fields)
        }
        out.append(
            {
                "turn": entry.get("turn"),
                "phase": entry.get("phase"),
                "state": state,
                "decisions": decided,
            }
        )
    return out
