"""The game this server plays: its state in play, written to the game log before it changes.

`Playing` holds the current `rules.play.Play` of one game: every unit's state, the turn, the
phase, the side with the initiative, the bases taken off or held. Each change (a value set by
hand, a result the players confirmed, an override, a change of phase, an undo) is one *step*:
written to the game log first (`GameLog.record_step`, fsynced), then applied, then announced to
the listeners (the tracker, which applies the state to every scene). A server restarted with the
same data folder and game file resumes the last unfinished game of that file by replaying its
steps on the game file's first state; `new_game` (the page's button, `umpire serve --new-game`)
ends it and starts another; `end` closes it (no further change until a new game).

Never imports cv2 or vision's detector; thread-safe (one lock for every change).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.engine import Ruleset
from rules.errors import QuestionError, UmpireError
from rules.play import Edit, Play, phase_edits, set_by_hand, start, undo
from rules.state import Scope
from vision.game import Game

from .gamelog import GameLog

Listener = Callable[[Play], None]


class GameOver(UmpireError):
    """A change asked of a game that has ended (a new game must be started first)."""


class NothingToUndo(UmpireError):
    """Undo asked with no change left to take back."""


@dataclass(frozen=True, slots=True)
class Step:
    """One change of a game as logged: its id, how it came about, its edits."""

    id: int
    kind: str
    edits: tuple[Edit, ...]
    note: str | None = None
    undoes: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "edits": [e.as_json() for e in self.edits],
            "note": self.note,
            "undoes": self.undoes,
        }


def game_units(game: Game) -> list[tuple[str, Mapping[str, Any], list[str]]]:
    """(unit id, its attributes in the game file, its base ids) of every unit."""
    return [(u.id, u.attrs, [b.id for b in u.bases]) for u in game.units]


class Playing:
    """One game in play, kept in the log. Read `play`; change it through the methods."""

    def __init__(
        self,
        log: GameLog,
        game: Game,
        ruleset: Ruleset,
        *,
        key: str | None,
        source: str,
        game_toml: str | None = None,
        new: bool = False,
        create: bool = True,
    ) -> None:
        """`create=False`: write nothing; without an unfinished game of `key` in the log,
        `game_id` is 0 (no game logged yet) and the state is the game file's first."""
        self.log = log
        self.game = game
        self.ruleset = ruleset
        self.key = key
        self.source = source
        self.game_toml = game_toml
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self.first = start(ruleset, game_units(game))
        """The game file's state: where every game of this file starts."""
        found = None if (new or key is None) else log.unfinished_game(key)
        self.resumed = found is not None
        """Whether this server took up a game left unfinished."""
        self._steps: list[Step] = []
        self._play = self.first
        self.ended = False
        if found is None and not create:
            self.game_id = 0
            return
        if found is None:
            if new and key is not None:
                old = log.unfinished_game(key)
                if old is not None:
                    log.end_game(old)
            found = log.start_game(ruleset.id, source, game_toml, key=key)
        self.game_id = found
        for row in log.steps(found):
            step = Step(
                int(row["id"]),
                str(row["kind"]),
                tuple(Edit.from_json(e) for e in row["edits"]),
                row["note"],
                row["undoes"],
            )
            self._steps.append(step)
            self._play = self._play.apply(step.edits)

    # ----------------------------------------------------------------------------- reading

    @property
    def play(self) -> Play:
        with self._lock:
            return self._play

    def listen(self, listener: Listener) -> None:
        """Call `listener(play)` now and after every change."""
        with self._lock:
            self._listeners.append(listener)
            play = self._play
        listener(play)

    def undoable(self) -> Step | None:
        """The step an undo would take back: the last one that stands (not an undo, not
        undone)."""
        with self._lock:
            undone = {s.undoes for s in self._steps if s.kind == "undo"}
            for step in reversed(self._steps):
                if step.kind != "undo" and step.id not in undone:
                    return step
        return None

    def history(self, last: int = 20) -> list[dict[str, Any]]:
        """The last steps, newest first, for the page."""
        with self._lock:
            return [s.as_json() for s in reversed(self._steps[-last:])]

    # ----------------------------------------------------------------------------- changing

    def _take(
        self,
        kind: str,
        edits: Sequence[Edit],
        *,
        note: str | None = None,
        undoes: int | None = None,
    ) -> Step:
        """Log the step, then apply it and tell the listeners. Holds the lock."""
        ident = self.log.record_step(
            self.game_id, kind, [e.as_json() for e in edits], note=note, undoes=undoes
        )
        return self._applied(Step(ident, kind, tuple(edits), note, undoes))

    def _applied(self, step: Step) -> Step:
        self._steps.append(step)
        self._play = self._play.apply(step.edits)
        play = self._play
        for listener in list(self._listeners):
            listener(play)
        return step

    def _open(self) -> None:
        if self.ended:
            raise GameOver(f"game {self.game_id} has ended; start a new game to change anything")

    def set_values(self, scope: Scope, target: str, values: Mapping[str, Any]) -> Step | None:
        """Set fields of a unit, a base or the game by hand; None when nothing changed."""
        with self._lock:
            self._open()
            edits = set_by_hand(self.ruleset, self._play, scope, target, values)
            return self._take("set", edits) if edits else None

    def set_phase(self, phase: object) -> Step | None:
        """Move to a phase (back to the first: a new turn, per-turn fields reset)."""
        with self._lock:
            self._open()
            edits = phase_edits(self.ruleset, self._play, phase)
            return self._take("phase", edits) if edits else None

    def confirm(
        self,
        resolution: int,
        decision: str,
        edits: Sequence[Edit],
        result: Mapping[str, Any] | None,
        note: str | None,
    ) -> tuple[int, Step | None]:
        """Record the table's decision on a resolution and apply the edits it leads to, in
        one write: the result's id and the step (None when nothing changed)."""
        with self._lock:
            if edits:
                self._open()
            result_id, step_id = self.log.record_result_and_step(
                resolution, decision, result, note, [e.as_json() for e in edits]
            )
            step = None
            if step_id is not None:
                kind = "outcome" if decision == "confirm" else "override"
                step = self._applied(Step(step_id, kind, tuple(edits), note))
            return result_id, step

    def undo(self) -> Step:
        """Take back the last change that stands; `NothingToUndo` when there is none."""
        with self._lock:
            self._open()
            last = self.undoable()
            if last is None:
                raise NothingToUndo("nothing to undo in this game yet")
            return self._take("undo", undo(last.edits), undoes=last.id)

    def end(self) -> None:
        """Close the game in the log: no further change until `new_game`."""
        with self._lock:
            if not self.ended:
                self.log.end_game(self.game_id)
                self.ended = True

    def new_game(self) -> int:
        """End this game (if it is not already) and start a fresh one from the game file."""
        with self._lock:
            self.end()
            self.game_id = self.log.start_game(
                self.ruleset.id, self.source, self.game_toml, key=self.key
            )
            self.ended = False
            self.resumed = False
            self._steps = []
            self._play = self.first
            play = self._play
            for listener in list(self._listeners):
                listener(play)
            return self.game_id

    def check_unit(self, ident: str) -> None:
        if ident not in self._play.units:
            raise QuestionError(
                f"no unit {ident!r} in this game; units: {', '.join(sorted(self._play.units))}"
            )
