"""The JSON API the table page uses (and any script may): status, the scene, resolutions, the
`suggest` list, the rulesets, the phase of play, the SVG map and dispute snapshots.

Thin views over `rules` and the tracker's latest `LiveState`: `/api/resolve` answers exactly what
`umpire resolve SCENE ACTION ARGS --json` prints for the same scene. Bad requests answer 4xx
`{"error": ...}` with the rules' own message (unknown action, wrong arguments, unknown id, unknown
phase) or ours (a body that is not a JSON object, a snapshot id that is not in the list); no path
from a request is ever opened: a snapshot is served only when its id is one of those listed.

Everything the table sees and agrees goes into the game log (`webui.gamelog`): each answer of
`/api/resolve` and `/api/suggest` (with its `log_id`), the results the players confirm or
override (`POST /api/results`, answered only once the row is on disk), each snapshot, and the
scene at the start of each turn (the game's first scene is turn 1; moving to the ruleset's first
phase from another phase starts the next turn). `GET /api/log` shows the game so far.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import threading
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Final, NoReturn

import cv2
from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    make_response,
    request,
    send_file,
)
from flask.typing import ResponseReturnValue

from rules.engine import get_ruleset, ruleset_ids
from rules.errors import UmpireError
from rules.play import Edit, edits_of, set_by_hand
from rules.scene import Scene
from rules.state import Field, Phase, Report, Scope

from .app import umpire
from .arity import arities_json
from .bands import band_range
from .gamelog import (
    DECISIONS,
    LOG_FILE,
    GameLog,
    LogError,
    NotInLog,
    current_log,
    json_depth,
)
from .live import Live, LiveState, ServeError
from .overlay import draw_overlay
from .playing import GameOver, NothingToUndo, Playing
from .ruling import draw_ruling
from .words import ruleset_info, sheet_lines, sheet_titles

api = Blueprint("api", __name__)

SNAPSHOT_ID: Final = re.compile(r"\d{8}-\d{6}-\d{3}(?:-\d{1,3})?")
"""A snapshot's name: its local time, to the millisecond (a counter when two share one)."""
_snapshot_lock = threading.Lock()
_recording_lock = threading.Lock()
NOTE_MAX_CHARS: Final = 500
"""Longest note the players may attach to a result."""
RESULT_MAX_DEPTH: Final = 16
"""Deepest nesting of lists and objects in a result (`{"hits": 2}` has depth 1)."""
GAME_FILE_MAX_BYTES: Final = 1024 * 1024
"""A game file larger than this is not copied into the log (a real one is a few KB)."""


class BadRequest(Exception):
    """A request we answer with a 4xx JSON error."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@api.errorhandler(BadRequest)
def _bad_request(error: BadRequest) -> ResponseReturnValue:
    return {"error": error.message}, error.status


@api.errorhandler(NotInLog)
def _not_in_log(error: NotInLog) -> ResponseReturnValue:
    return {"error": str(error)}, 404


@api.errorhandler(LogError)
def _log_broken(error: LogError) -> ResponseReturnValue:
    """The log file cannot be used: the server's fault, not the request's."""
    return {"error": f"the game log cannot record this: {error}"}, 503


@api.errorhandler(GameOver)
def _game_over(error: GameOver) -> ResponseReturnValue:
    return {"error": str(error), "needs": "new-game"}, 409


@api.errorhandler(NothingToUndo)
def _nothing_to_undo(error: NothingToUndo) -> ResponseReturnValue:
    return {"error": str(error)}, 409


@api.errorhandler(UmpireError)
def _rules_said_no(error: UmpireError) -> ResponseReturnValue:
    """The rules' own message for a question they cannot answer (the CLI's exit status 2)."""
    return {"error": str(error)}, 400


def _fail(message: str, status: int = 400) -> NoReturn:
    raise BadRequest(message, status)


def tracker() -> Live:
    """The app's tracker, or a 503 when it has none."""
    live = umpire().live
    if live is None:
        _fail("no tracker runs in this server (start it with `umpire serve`)", 503)
    return live


def _state_with_scene() -> tuple[LiveState, Scene]:
    """The tracker's latest state and scene, the game in play applied to it."""
    live = tracker()
    playing()  # a game found on first use applies its state before the scene is read
    state = live.state
    if state.scene is None:
        why = f" (last error: {state.error})" if state.error else ""
        _fail(
            "no scene yet: the tracker has not fitted the table to a frame; try again in a "
            f"moment{why}",
            503,
        )
    return state, state.scene


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is too large")
    return value


def _body() -> dict[str, Any]:
    """The request's JSON object (an empty body counts as `{}`). Strict JSON: no NaN or
    Infinity, no number too large for a float, no text that is not UTF-8."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        _fail("the request body nests too deep; accepted: a JSON object of a few levels")
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError, a 5000-digit integer
        _fail(f"the request body is not JSON ({error}); accepted: a JSON object")
    if not isinstance(body, dict):
        _fail(f"the request body is a JSON {type(body).__name__}; accepted: a JSON object")
    return body


def _question(body: dict[str, Any], *, required: bool) -> tuple[str, list[str]] | None:
    """`{"action": ..., "args": [...]}` checked: an action name and a list of ids."""
    unknown = sorted(set(body) - {"action", "args"})
    if unknown:
        _fail(f"unknown key {unknown[0]!r} in the body; accepted keys: 'action', 'args'")
    action = body.get("action")
    if action is None and not required:
        if "args" in body:
            _fail("'args' given without 'action'; accepted: {'action': NAME, 'args': [IDS]}")
        return None
    if not isinstance(action, str) or not action:
        _fail(f"'action' must be an action name (a string), got {action!r}")
    args = body.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        _fail(f"'args' must be a list of ids (strings), got {args!r}")
    return action, args


# --------------------------------------------------------------------------------- the log


@dataclass(slots=True)
class Recording:
    """The scene row of this server's game last written to the log (so a question asked ten
    times about one frame does not hash the scene ten times)."""

    game: int | None = None
    scene_doc: Any = None
    scene_turn: int = 0
    scene_id: int = 0
    scene_table: str = ""
    """`_table_key` of the scene row last written."""
    lock: threading.RLock = field(default_factory=threading.RLock)


def open_playing(log: GameLog, live: Live, *, new: bool = False, key: str | None = "") -> Playing:
    """The game a server plays on `live`'s table, kept in `log`: the last unfinished game of
    the same game file, resumed (or a new one with `new`). `key` names the game file (default:
    the tracker's own; None: never resume, as a replay does). Every change of its state is
    applied to the tracker's scenes, except for a replay, whose scenes carry their own."""
    playing = Playing(
        log,
        live.game,
        live.ruleset,
        key=live.game_key if key == "" else key,
        source=live.source.description,
        game_toml=_game_file_text(live.game.source),
        new=new,
    )
    if key is not None:
        playing.listen(live.set_play)
    return playing


def install_playing(app: Flask, playing: Playing) -> None:
    """Give `app` the game it plays (the CLI opens it at start-up)."""
    app.extensions["umpire_play"] = playing


def playing() -> Playing:
    """This server's game in play: the installed one, or the one `open_playing` finds on first
    use (the last unfinished game of the tracker's game file)."""
    found = current_app.extensions.get("umpire_play")
    installed = current_app.extensions.get("umpire_log")
    if isinstance(found, Playing) and found.log is installed:
        return found
    if request.method in ("GET", "HEAD"):
        return _watched()
    with _recording_lock:
        found = current_app.extensions.get("umpire_play")
        if not (isinstance(found, Playing) and found.log is current_log()):
            found = open_playing(current_log(), tracker())
            current_app.extensions["umpire_play"] = found
    assert isinstance(found, Playing)
    return found


def _watched() -> Playing:
    """The game as a read route sees it before any write opened it (no read route writes:
    `umpire serve` opens its game at start-up, an app made by `create_app` on the first
    write): the log only read, if there is one, and its unfinished game of the tracker's game
    file as it stands; else the game file's first state, a game not yet in any log."""
    live = tracker()
    path = Path(current_app.config["DATA_DIR"]).expanduser() / LOG_FILE
    installed = current_app.extensions.get("umpire_log")
    log = installed if isinstance(installed, GameLog) else None
    if log is None and path.is_file():
        log = GameLog(path, read_only=True)
    if log is None:
        log = GameLog.memory()
    return Playing(
        log,
        live.game,
        live.ruleset,
        key=live.game_key,
        source=live.source.description,
        create=False,
    )


def _recording() -> Recording:
    """The app's `Recording` (made on first use)."""
    found = current_app.extensions.get("umpire_log_game")
    if not isinstance(found, Recording):
        with _recording_lock:
            found = current_app.extensions.get("umpire_log_game")
            if not isinstance(found, Recording):
                found = Recording()
                current_app.extensions["umpire_log_game"] = found
    return found


def end_logged_game(app: Flask) -> None:
    """Close the game log when serving stops (a log never opened is left alone). The game
    itself is not ended: the next `umpire serve` of the same game file resumes it."""
    log = app.extensions.get("umpire_log")
    if isinstance(log, GameLog):
        log.close()


def _game_file_text(path: str) -> str | None:
    """The game file's text, kept in the log so the game can be replayed (None when the game
    did not come from a readable file)."""
    try:
        file = Path(path)
        if not file.is_file() or file.stat().st_size > GAME_FILE_MAX_BYTES:
            return None
        return file.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None


def _logged_game() -> tuple[GameLog, Recording, int]:
    """The log, this server's recording and its game id (the scene rows start afresh with a
    new game)."""
    log, recording, game = current_log(), _recording(), playing()
    with recording.lock:
        if recording.game != game.game_id:
            recording.game = game.game_id
            recording.scene_doc, recording.scene_turn, recording.scene_id = None, 0, 0
            recording.scene_table = ""
        return log, recording, game.game_id


def _scene_row(log: GameLog, recording: Recording, state: LiveState, phase: str | None) -> int:
    """The log's row of the scene in `state` for the current turn, written only when the table
    itself changed: every frame's document differs (its diagnostics, a hundredth of a
    millimetre of noise), so the scene is compared by its pieces, to 0.001 of its unit."""
    turn = playing().play.turn
    with recording.lock:
        doc = state.scene_doc
        if recording.scene_doc is doc and recording.scene_turn == turn:
            return recording.scene_id
        assert recording.game is not None and doc is not None
        table = _table_key(doc)
        if table == recording.scene_table and recording.scene_turn == turn:
            recording.scene_doc = doc
            return recording.scene_id
        ident = log.record_scene(recording.game, turn, phase, state.frame, dict(doc))
        recording.scene_doc, recording.scene_turn, recording.scene_id = doc, turn, ident
        recording.scene_table = table
        return ident


def _table_key(doc: Any) -> str:
    """What a scene says about the table (its units, bases and terrain), lengths rounded."""

    def rounded(value: Any) -> Any:
        if isinstance(value, float):
            return round(value, 3)
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        if isinstance(value, list):
            return [rounded(v) for v in value]
        return value

    pieces = {k: doc.get(k) for k in ("units", "terrain", "table", "unit")}
    return json.dumps(rounded(pieces), sort_keys=True)


def _logged(state: LiveState, action: str, args: list[str], answer: dict[str, Any]) -> int | None:
    """Record an answer a player asked for (a POST: it passed the CSRF check and, on a shared
    server, the access code); its resolution's row id. A GET is anybody's question, answered
    the same whoever asks and never written: watching cannot grow the log."""
    if request.method != "POST":
        return None
    log, recording, game = _logged_game()
    scene_id = _scene_row(log, recording, state, tracker().phase)
    return log.record_resolution(game, scene_id, action, args, answer)


# --------------------------------------------------------------------------------- reading


@api.get("/api/status")
def status() -> ResponseReturnValue:
    return tracker().status()


@api.post("/api/source/next")
def next_photo() -> ResponseReturnValue:
    """The page's "Next photo": a folder of photos shows its next photo now (stepped by hand
    with `--step`, or sooner than its time). 409 saying why when there is no next photo."""
    if _body():
        _fail("this route takes no body; accepted: an empty body or {}")
    try:
        return tracker().step()
    except ServeError as error:
        _fail(str(error), 409)


@api.get("/api/scene")
def scene() -> ResponseReturnValue:
    state, _ = _state_with_scene()
    return jsonify(dict(state.scene_doc or {}))


@api.route("/api/resolve", methods=["GET", "POST"])
def resolve() -> ResponseReturnValue:
    """One question, as `umpire resolve SCENE ACTION ARGS --json` answers it."""
    if request.method == "POST":
        asked = _question(_body(), required=True)
        assert asked is not None
        action, args = asked
    else:
        unknown = sorted(set(request.args) - {"action", "args"})
        if unknown:
            _fail(f"unknown parameter {unknown[0]!r}; accepted: action=ACTION&args=A,B")
        action = request.args.get("action", "")
        if not action:
            _fail("missing 'action'; accepted: /api/resolve?action=ACTION&args=A,B")
        text = request.args.get("args", "")
        args = [a.strip() for a in text.split(",")] if text.strip() else []
        if any(not a for a in args):
            _fail(f"'args' has an empty id in {text!r}; accepted: ids separated by commas")
    state, current = _state_with_scene()
    ruleset = get_ruleset(current.ruleset)
    resolution = ruleset.resolve(current, action, args)
    answer = resolution.as_json()
    form = [_cited_json(r) for r in ruleset.report_form(current, action, args, resolution)]
    extra = band_range(current, answer, args)
    return jsonify(
        {**answer, **extra, "log_id": _logged(state, action, args, answer), "report_form": form}
    )


@api.get("/api/suggest")
def suggest() -> ResponseReturnValue:
    """The `suggest` list of one phase (`?phase=P`), or of every phase."""
    phase = request.args.get("phase")
    state, current = _state_with_scene()
    ruleset = get_ruleset(current.ruleset)
    if "suggest" not in ruleset.actions():
        _fail(f"{ruleset.id} has no suggest action; its actions are {', '.join(ruleset.actions())}")
    args = [phase] if phase else []
    answer = ruleset.resolve(current, "suggest", args).as_json()
    return jsonify({**answer, "log_id": _logged(state, "suggest", args, answer)})


def _replay() -> Any:
    """The replay playing, or None when the source is not one."""
    from .replay import ReplaySource

    source = getattr(tracker(), "source", None)
    return source if isinstance(source, ReplaySource) else None


@api.route("/api/replay", methods=["GET", "POST"])
def replay() -> ResponseReturnValue:
    """A replay's scene, its logged turn, phase, state and decisions, and how it plays;
    POST `{"do": "play"|"pause"|"step"}` or `{"speed": X}` (0.25 to 8) to change that."""
    source = _replay()
    if source is None:
        if request.method == "POST":
            _fail("not a replay: nothing to play, pause or step", 409)
        return jsonify({"replay": False})
    if request.method == "POST":
        body = _body()
        unknown = sorted(set(body) - {"do", "speed"})
        if unknown:
            _fail(f"unknown key {unknown[0]!r}; accepted: do (play, pause, step), speed")
        do = body.get("do")
        if do is not None and do not in ("play", "pause", "step"):
            _fail(f"'do' must be play, pause or step, not {do!r}")
        if "speed" in body:
            try:
                source.set_speed(body["speed"])
            except LogError as error:
                _fail(str(error))
        if do == "play":
            source.play()
        elif do == "pause":
            source.pause()
        elif do == "step":
            source.step()
    return jsonify(source.replay_state())


@api.get("/api/sheets")
def sheets() -> ResponseReturnValue:
    """The rule sheets as the page cites them: each file's title and its lines (quoted on hover)."""
    return jsonify(
        {
            name: {"title": title, "lines": list(sheet_lines(name))}
            for name, title in sheet_titles().items()
        }
    )


@api.get("/api/actions")
def actions() -> ResponseReturnValue:
    """The current ruleset's actions and how many clicked units or bases each takes."""
    _, current = _state_with_scene()
    return jsonify({"actions": arities_json(get_ruleset(current.ruleset))})


@api.get("/api/rulesets")
def rulesets() -> ResponseReturnValue:
    """What `umpire rulesets --json` prints."""
    return jsonify([ruleset_info(ident) for ident in ruleset_ids()])


@api.post("/api/phase")
def phase() -> ResponseReturnValue:
    """Move to a phase of the sequence of play (back to the first: the next turn)."""
    body = _body()
    unknown = sorted(set(body) - {"phase"})
    if unknown or "phase" not in body:
        what = f"unknown key {unknown[0]!r}" if unknown else "missing 'phase'"
        _fail(f"{what}; accepted: {{'phase': PHASE}}")
    game = playing()
    before = game.play
    state = tracker().state
    log, recording, _ = _logged_game()
    if state.scene_doc is not None:
        _scene_row(log, recording, state, before.phase)  # the turn being left has its scene
    step = game.set_phase(body["phase"])  # on disk before it is applied, or a 503
    play = game.play
    if play.turn != before.turn and state.scene_doc is not None:
        # The step stands (it is on disk): a full disk here only delays the new turn's scene
        # row, which the next write of the turn records; the answer must not say otherwise.
        with contextlib.suppress(LogError):
            _scene_row(log, recording, tracker().state, play.phase)
    return {
        "phase": play.phase,
        "phases": list(game.ruleset.phases),
        "turn": play.turn,
        "step": None if step is None else step.as_json(),
    }


@api.post("/api/results")
def results() -> ResponseReturnValue:
    """What the table did with a resolution: `{"resolution": LOG_ID, "decision": "confirm" |
    "override", "result": {...}, "changes": [...], "note": "..."}`.

    `result` holds what the dice showed, as the answer's `report_form` asks: with `confirm`, the
    changes of state it leads to (the ruleset's outcome) are applied. `changes` (with
    `override`) sets values by hand instead: `[{"unit"|"base"|"game": ID, "field": F,
    "value": V}]`. The result and its changes are written in one step; 201 once on disk."""
    body = _body()
    allowed = ("resolution", "decision", "result", "changes", "note")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        _fail(f"unknown key {unknown[0]!r}; accepted keys: {', '.join(map(repr, allowed))}")
    resolution = body.get("resolution")
    if isinstance(resolution, bool) or not isinstance(resolution, int) or resolution < 1:
        _fail(f"'resolution' must be a log id (a whole number from 1), got {_short(resolution)}")
    decision = body.get("decision")
    if decision not in DECISIONS:
        _fail(f"'decision' must be 'confirm' or 'override', got {_short(decision)}")
    result = body.get("result")
    if result is not None and not (
        isinstance(result, dict) and json_depth(result, RESULT_MAX_DEPTH)
    ):
        _fail(
            "'result' must be a JSON object (what the dice showed, e.g. {\"kills\": 2}) nesting "
            f"at most {RESULT_MAX_DEPTH} levels, got {_short(result)}"
        )
    note = body.get("note")
    if note is not None and not (isinstance(note, str) and len(note) <= NOTE_MAX_CHARS):
        _fail(f"'note' must be text of at most {NOTE_MAX_CHARS} characters, got {_short(note)}")
    if note is not None and not _is_unicode(note):
        _fail("'note' holds a lone surrogate (\\ud800 ...); accepted: Unicode text")
    changes = body.get("changes")
    if changes is not None and decision != "override":
        _fail("'changes' sets values by hand and goes with 'decision': 'override'")
    log = current_log()
    question = log.question(resolution)
    game = playing()
    if question["game"] != game.game_id and (result is not None or changes is not None):
        _fail(
            f"resolution {resolution} was asked in game {question['game']}, not in the game "
            f"in play ({game.game_id}); ask the question again",
            409,
        )
    edits: tuple[Edit, ...] = ()
    lines: list[str] = []
    if decision == "confirm" and result is not None:
        _, current = _state_with_scene()
        ruleset = get_ruleset(current.ruleset)
        if question["action"] in ruleset.outcomes:
            outcome = ruleset.settle(current, question["action"], question["args"], result)
            edits = edits_of(game.play, outcome.changes)
            lines = list(outcome.lines)
    elif changes is not None:
        edits = _hand_changes(game, changes)
    ident, step = game.confirm(resolution, str(decision), edits, result, note)
    return {
        "id": ident,
        "resolution": resolution,
        "decision": decision,
        "step": None if step is None else step.as_json(),
        "lines": lines,
    }, 201


def _hand_changes(game: Playing, changes: Any) -> tuple[Edit, ...]:
    """An override's `changes`, checked, as edits from where the game stands."""
    shape = '[{"unit" | "base" | "game": ID, "field": FIELD, "value": VALUE}, ...]'
    if not isinstance(changes, list) or not changes or len(changes) > 200:
        _fail(f"'changes' must be a list of 1 to 200 changes, {shape}, got {_short(changes)}")
    edits: list[Edit] = []
    for i, item in enumerate(changes):
        if not isinstance(item, dict) or set(item) - {"unit", "base", "game", "field", "value"}:
            _fail(f"changes[{i}] must be an object like {shape}, got {_short(item)}")
        scopes = [k for k in ("unit", "base", "game") if k in item]
        if len(scopes) != 1 or not isinstance(item.get("field"), str) or "value" not in item:
            _fail(f"changes[{i}] names one unit, base or game, a field and a value: {shape}")
        scope = Scope(scopes[0])
        target = "game" if scope is Scope.GAME else item[scopes[0]]
        if not isinstance(target, str):
            _fail(f"changes[{i}].{scopes[0]} must be an id (text), got {_short(target)}")
        play = game.play.apply(edits)
        edits.extend(set_by_hand(game.ruleset, play, scope, target, {item["field"]: item["value"]}))
    return tuple(edits)


@api.post("/api/outcome")
def outcome_preview() -> ResponseReturnValue:
    """What a result would change, before it is confirmed: `{"action", "args", "result"}` ->
    the changes (with the values they replace) and their account. Changes nothing."""
    body = _body()
    unknown = sorted(set(body) - {"action", "args", "result"})
    if unknown:
        _fail(f"unknown key {unknown[0]!r}; accepted keys: 'action', 'args', 'result'")
    asked = _question({k: v for k, v in body.items() if k != "result"}, required=True)
    assert asked is not None
    result = body.get("result", {})
    if not isinstance(result, dict) or not json_depth(result, RESULT_MAX_DEPTH):
        _fail(f"'result' must be a JSON object of reported values, got {_short(result)}")
    _, current = _state_with_scene()
    ruleset = get_ruleset(current.ruleset)
    outcome = ruleset.settle(current, asked[0], asked[1], result)
    edits = edits_of(playing().play, outcome.changes)
    return {
        "action": outcome.action,
        "args": list(outcome.args),
        "edits": [e.as_json() for e in edits],
        "lines": list(outcome.lines),
    }


def _short(value: Any) -> str:
    """A value quoted in an error message, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@api.get("/api/log")
def game_log() -> ResponseReturnValue:
    """This server's game in the log: the game, its turn, counts and the last 50 results."""
    game = playing()
    if game.game_id == 0:  # no game logged yet (see _watched)
        summary: dict[str, Any] = {
            "game": None,
            "scenes": 0,
            "resolutions": 0,
            "results": [],
        }
    else:
        summary = game.log.summary(game.game_id)
    summary["turn"] = game.play.turn
    summary["phase"] = game.play.phase
    summary["ended"] = game.ended
    summary["steps"] = game.history()
    return jsonify(summary)


# --------------------------------------------------------------------------------- state


def _cited_json(item: Field | Report | Phase) -> dict[str, Any]:
    """A state field (`/api/state`), a question of a dice form (`report_form`) or a step of
    play as the page reads it: its attributes (tuples as lists) and its sheet line as `source`
    and `quote`."""
    doc = {f.name: getattr(item, f.name) for f in fields(item)}
    doc = {k: list(v) if isinstance(v, tuple) else v for k, v in doc.items()}
    cite = doc.pop("cite")
    if cite is None:
        return {**doc, "source": None, "quote": None}
    return {**doc, "source": str(cite), "quote": cite.text}


@api.get("/api/state")
def state_now() -> ResponseReturnValue:
    """The game in play: turn, phase, who acts, every unit's state, the ruleset's fields."""
    game = playing()
    play = game.play
    ruleset = game.ruleset
    live_state = tracker().state
    scene = live_state.scene
    groups = ruleset.side_groups(scene, play.initiative) if scene is not None else {}
    step = next((p for p in ruleset.phase_steps if p.name == play.phase), None)
    last = game.undoable()
    return jsonify(
        {
            "game": game.game_id or None,  # None: no game logged yet (see _watched)
            "resumed": game.resumed,
            "ended": game.ended,
            "ruleset": ruleset.id,
            "turn": play.turn,
            "phase": play.phase,
            "phases": [_cited_json(p) for p in ruleset.phase_steps]
            or [{"name": name} for name in ruleset.phases],
            "acting": None if step is None else step.acting,
            "acting_sides": list(groups.get(step.acting, ())) if step is not None else [],
            "sides": {label: list(sides) for label, sides in groups.items()},
            "sides_rule": ruleset.sides_rule,
            "initiative": play.initiative,
            "units": {k: dict(v) for k, v in play.units.items()},
            "bases": dict(play.bases),
            "removed": sorted(play.removed),
            "held": sorted(play.held),
            "fields": {f.name: _cited_json(f) for f in ruleset.state_fields()},
            "undo": None if last is None else last.as_json(),
        }
    )


@api.post("/api/state")
def state_set() -> ResponseReturnValue:
    """Set state by hand: `{"unit": ID, "set": {FIELD: VALUE}}`, `{"base": ID, "set":
    {"removed" | "held": BOOL}}` or `{"game": true, "set": {"turn" | "phase" |
    "initiative": VALUE}}`. Logged before it is answered."""
    body = _body()
    unknown = sorted(set(body) - {"unit", "base", "game", "set"})
    shape = '{"unit": ID, "set": {FIELD: VALUE}} (or "base": ID, or "game": true)'
    if unknown:
        _fail(f"unknown key {unknown[0]!r}; accepted: {shape}")
    scopes = [k for k in ("unit", "base", "game") if k in body]
    values = body.get("set")
    if len(scopes) != 1 or not isinstance(values, dict):
        _fail(f"name one unit, base or the game, and the values to set: {shape}")
    scope = Scope(scopes[0])
    target = "game" if scope is Scope.GAME else body[scopes[0]]
    if not isinstance(target, str):
        _fail(f"'{scopes[0]}' must be an id (text), got {_short(target)}")
    game = playing()
    step = game.set_values(scope, target, values)
    play = game.play
    if scope is Scope.UNIT:
        now: Any = dict(play.units[target])
    elif scope is Scope.BASE:
        now = {"removed": target in play.removed, "held": target in play.held}
    else:
        now = {"turn": play.turn, "phase": play.phase, "initiative": play.initiative}
    return {
        scopes[0]: target if scope is not Scope.GAME else True,
        "state": now,
        "step": None if step is None else step.as_json(),
    }


@api.post("/api/state/undo")
def state_undo() -> ResponseReturnValue:
    """Take back the last change of state that stands (a confirmed result is one step)."""
    _body()
    game = playing()
    step = game.undo()
    return {"undone": step.undoes, "step": step.as_json(), "turn": game.play.turn}


@api.post("/api/game/end")
def game_end() -> ResponseReturnValue:
    """Close this game in the log: nothing changes it any more; start a new game to play on."""
    _body()
    game = playing()
    game.end()
    return {"game": game.game_id, "ended": True}


@api.post("/api/game/new")
def game_new() -> ResponseReturnValue:
    """End this game (if it is not) and start a fresh one from the game file."""
    _body()
    game = playing()
    ident = game.new_game()
    return {"game": ident, "turn": game.play.turn, "phase": game.play.phase}, 201


@api.get("/api/map.svg")
def map_svg() -> ResponseReturnValue:
    """The top-down map: `?select=ID&target=ID&line=A,B&unit=cm|in`."""
    unknown = sorted(set(request.args) - {"select", "target", "unit", "line"})
    if unknown:
        _fail(f"unknown parameter {unknown[0]!r}; accepted: select, target, line, unit")
    line = None
    if request.args.get("line"):
        ends = [e.strip() for e in request.args["line"].split(",")]
        if len(ends) != 2 or not all(ends):
            _fail("'line' takes two ids separated by a comma: line=A,B")
        line = (ends[0], ends[1])
    try:
        from .mapsvg import map_svg as draw_map
    except ImportError:
        _fail("map not available", 503)
    state, current = _state_with_scene()
    unit, select, target = (request.args.get(k) or None for k in ("unit", "select", "target"))

    def draw() -> str:  # only when no page has asked this of this scene yet
        detection = (state.scene_doc or {}).get("detection", {})
        stale = [s["base"] for s in detection.get("stale_bases", [])]
        return draw_map(current, unit=unit, select=select, target=target, stale=stale, line=line)

    try:
        svg = umpire().maps.get(current, (unit, select, target, line), draw)
    except ValueError as error:
        _fail(str(error))
    response = make_response(svg)
    response.content_type = "image/svg+xml; charset=utf-8"
    response.cache_control.no_store = True
    return response


# --------------------------------------------------------------------------------- snapshots


def _snapshot_dir() -> Path:
    return umpire().snapshot_dir


def _new_snapshot_id(folder: Path, now: float) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + f"-{int(now * 1000) % 1000:03d}"
    ident, n = stamp, 1
    while (folder / f"{ident}.json").exists() or (folder / f"{ident}.png").exists():
        n += 1
        ident = f"{stamp}-{n}"
    return ident


def _os_reason(error: OSError) -> str:
    """An OSError in words, without a traceback (a full disk, read-only media)."""
    reason = error.strerror or str(error)
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the data folder's disk is full ({reason}); free some space and try again"
    if error.errno == errno.EROFS:
        return f"the data folder is on read-only media ({reason})"
    return reason


def _write_synced(path: Path, data: bytes) -> None:
    """`data` in `path`, on disk when this returns (a full disk raises here, not later)."""
    with path.open("wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())


def _listing(ident: str) -> dict[str, Any]:
    return {"id": ident, "png": f"/snapshots/{ident}.png", "json": f"/snapshots/{ident}.json"}


@api.post("/api/snapshot")
def snapshot() -> ResponseReturnValue:
    """Freeze the current frame with its overlay (and the answer to a question, if one is
    given): NAME.png + NAME.json in the data folder's snapshots/, NAME from the clock."""
    asked = _question(_body(), required=False)
    state, current = _state_with_scene()
    if state.image is None or state.scan is None:
        _fail("no frame to freeze yet; try again in a moment", 503)
    answer: dict[str, Any] | None = None
    select: str | None = None
    log_id: int | None = None
    lines: tuple[str, ...] = ()
    if asked is not None:
        action, args = asked
        resolution = get_ruleset(current.ruleset).resolve(current, action, args)
        answer = resolution.as_json()
        lines = resolution.lines
        log_id = _logged(state, action, args, answer)
        answer = {**answer, "log_id": log_id}
        select = args[0] if args else None
    log, recording, game = _logged_game()
    scene_id = _scene_row(log, recording, state, tracker().phase)
    try:
        picture = draw_overlay(state.image, state.scan, current, select)
    except UmpireError:
        picture = draw_overlay(state.image, state.scan, current, None)
    drawn: dict[str, Any] = {}
    if asked is not None and answer is not None:
        # The ruling on the picture: the measured line, its length, the answer in words.
        picture, drawn = draw_ruling(picture, state.scan.fit, current, answer, asked[1], lines)
    ok, png = cv2.imencode(".png", picture)
    if not ok:
        _fail("the frame could not be encoded as PNG", 500)
    folder = _snapshot_dir()
    with _snapshot_lock:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            _fail(f"the snapshot cannot be saved: {_os_reason(error)}", 503)
        created = time.time()
        ident = _new_snapshot_id(folder, created)
        record = {
            **_listing(ident),
            "created": created,
            "frame": state.frame,
            "question": None if asked is None else {"action": asked[0], "args": asked[1]},
            "resolution": answer,
            "drawn": drawn,
            "status": dict(state.status),
            "scene": dict(state.scene_doc or {}),
        }
        # Both files are written under names the listing never shows, then renamed; the log
        # row comes last. Any failure (a full disk) removes whatever was written: a snapshot
        # is its PNG, its JSON and its row, or nothing.
        files = {
            folder / f"{ident}.png": png.tobytes(),
            folder / f"{ident}.json": json.dumps(record, indent=2).encode("utf-8"),
        }
        done: list[Path] = []
        try:
            for path, data in files.items():
                part = path.with_name(f".{path.name}.part")
                done.append(part)
                _write_synced(part, data)
            for path in files:
                done.append(path)
                os.replace(path.with_name(f".{path.name}.part"), path)
            log.record_snapshot(
                ident,
                game,
                question=record["question"],
                resolution=log_id,
                scene=scene_id,
                created=created,
            )
        except (OSError, LogError) as error:
            for path in done:
                with contextlib.suppress(OSError):
                    path.unlink()
            why = _os_reason(error) if isinstance(error, OSError) else str(error)
            _fail(f"the snapshot cannot be saved, nothing of it was kept: {why}", 503)
    return {**_listing(ident), "created": created, "log_id": log_id}, 201


def _snapshots() -> dict[str, dict[str, Any]]:
    """The saved snapshots by id: those whose PNG and JSON are both in the folder."""
    folder = _snapshot_dir()
    if not folder.is_dir():
        return {}
    found: dict[str, dict[str, Any]] = {}
    for entry in folder.glob("*.json"):
        ident = entry.stem
        if not SNAPSHOT_ID.fullmatch(ident) or not (folder / f"{ident}.png").is_file():
            continue
        try:
            record = json.loads(entry.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        question = record.get("question") if isinstance(record, dict) else None
        created = record.get("created") if isinstance(record, dict) else None
        found[ident] = {
            **_listing(ident),
            "created": created if isinstance(created, int | float) else entry.stat().st_mtime,
            "question": question,
        }
    return found


@api.get("/api/snapshots")
def snapshots() -> ResponseReturnValue:
    """The saved snapshots, newest first."""
    listed = sorted(_snapshots().values(), key=lambda s: s["created"], reverse=True)
    return jsonify(listed)


@api.get("/snapshots/<path:name>")
def snapshot_file(name: str) -> Response:
    """A snapshot's PNG or JSON, only for an id in the list: the request never names a path."""
    ident, dot, kind = name.rpartition(".")
    if not dot or kind not in ("png", "json"):
        _fail(f"{name!r} is not a snapshot file; accepted: /snapshots/ID.png or /snapshots/ID.json")
    known = _snapshots()
    if ident not in known:
        shown = ", ".join(sorted(known)[-5:]) or "none yet"
        _fail(f"no snapshot {ident!r}; the latest snapshots are: {shown}", 404)
    # The file name is rebuilt from the listed id, never taken from the request.
    path = _snapshot_dir() / f"{known[ident]['id']}.{kind}"
    mimetype = "image/png" if kind == "png" else "application/json"
    return send_file(path, mimetype=mimetype, max_age=0)
