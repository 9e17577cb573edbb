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

import json
import math
import re
import threading
import time
from dataclasses import asdict, dataclass, field
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

from rules.engine import describe, get_ruleset, ruleset_ids
from rules.errors import UmpireError
from rules.scene import Scene

from .app import umpire
from .gamelog import DECISIONS, GameLog, LogError, NotInLog, current_log, json_depth
from .live import Live, LiveState
from .overlay import draw_overlay
from .security import CODE_HEADER, code_matches

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
    state = tracker().state
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
    """This server's game in the log: its row, the turn, and the scene row last written (so a
    question asked ten times about one frame does not hash the scene ten times)."""

    game: int | None = None
    turn: int = 1
    scene_doc: Any = None
    scene_turn: int = 0
    scene_id: int = 0
    scene_table: str = ""
    """`_table_key` of the scene row last written."""
    lock: threading.RLock = field(default_factory=threading.RLock)


def _recording() -> Recording:
    """The app's `Recording` (made on first use; a newly installed log starts a new one)."""
    log = current_log()
    found = current_app.extensions.get("umpire_log_game")
    if not isinstance(found, tuple) or found[0] is not log:
        with _recording_lock:
            found = current_app.extensions.get("umpire_log_game")
            if not isinstance(found, tuple) or found[0] is not log:
                found = (log, Recording())
                current_app.extensions["umpire_log_game"] = found
    recording = found[1]
    assert isinstance(recording, Recording)
    return recording


def end_logged_game(app: Flask) -> None:
    """Mark this server's game ended in the log and close the log (call it when serving
    stops; a log never opened is left alone)."""
    log = app.extensions.get("umpire_log")
    if not isinstance(log, GameLog):
        return
    found = app.extensions.get("umpire_log_game")
    if isinstance(found, tuple) and found[0] is log and found[1].game is not None:
        log.end_game(found[1].game)
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
    """The log, this server's recording and its game id: the game row is written on first use,
    with the scene of turn 1 if the tracker has one."""
    log, recording = current_log(), _recording()
    with recording.lock:
        if recording.game is None:
            live = tracker()
            recording.game = log.start_game(
                live.game.ruleset, live.source.description, _game_file_text(live.game.source)
            )
            recording.turn = 1
            state = live.state
            if state.scene_doc is not None:
                _scene_row(log, recording, state, live.phase)
        return log, recording, recording.game


def _scene_row(log: GameLog, recording: Recording, state: LiveState, phase: str | None) -> int:
    """The log's row of the scene in `state` for the current turn, written only when the table
    itself changed: every frame's document differs (its diagnostics, a hundredth of a
    millimetre of noise), so the scene is compared by its pieces, to 0.001 of its unit."""
    with recording.lock:
        doc = state.scene_doc
        if recording.scene_doc is doc and recording.scene_turn == recording.turn:
            return recording.scene_id
        assert recording.game is not None and doc is not None
        table = _table_key(doc)
        if table == recording.scene_table and recording.scene_turn == recording.turn:
            recording.scene_doc = doc
            return recording.scene_id
        ident = log.record_scene(recording.game, recording.turn, phase, state.frame, dict(doc))
        recording.scene_doc, recording.scene_turn, recording.scene_id = doc, recording.turn, ident
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


def _may_log() -> bool:
    """Whether this request's answer is one the table is shown: not a spectator's when the
    server is shared (an access code is set and the request does not carry it), and not a
    HEAD. Spectators' questions are answered, never written: they could grow the log
    without end."""
    if request.method == "HEAD":
        return False
    code = current_app.config.get("ACCESS_CODE")
    if code is None:
        return True
    sent = request.headers.get(CODE_HEADER)
    return sent is not None and code_matches(sent, str(code))


def _logged(state: LiveState, action: str, args: list[str], answer: dict[str, Any]) -> int | None:
    """Record an answer shown on the scene of `state`; its resolution's row id (None for a
    spectator's question, which is not written)."""
    if not _may_log():
        return None
    log, recording, game = _logged_game()
    scene_id = _scene_row(log, recording, state, tracker().phase)
    return log.record_resolution(game, scene_id, action, args, answer)


# --------------------------------------------------------------------------------- reading


@api.get("/api/status")
def status() -> ResponseReturnValue:
    return tracker().status()


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
    answer = get_ruleset(current.ruleset).resolve(current, action, args).as_json()
    return jsonify({**answer, "log_id": _logged(state, action, args, answer)})


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


@api.get("/api/rulesets")
def rulesets() -> ResponseReturnValue:
    """What `umpire rulesets --json` prints."""
    return jsonify([asdict(describe(ident)) for ident in ruleset_ids()])


@api.post("/api/phase")
def phase() -> ResponseReturnValue:
    body = _body()
    unknown = sorted(set(body) - {"phase"})
    if unknown or "phase" not in body:
        what = f"unknown key {unknown[0]!r}" if unknown else "missing 'phase'"
        _fail(f"{what}; accepted: {{'phase': PHASE}}")
    live = tracker()
    log, recording, _ = _logged_game()
    with recording.lock:
        before = live.phase
        chosen = live.set_phase(body["phase"])
        first = live.ruleset.phases[0]
        if chosen == first and before != first:
            recording.turn += 1
            state = live.state
            if state.scene_doc is not None:
                _scene_row(log, recording, state, chosen)
    return {"phase": chosen, "phases": list(live.ruleset.phases)}


@api.post("/api/results")
def results() -> ResponseReturnValue:
    """What the table did with a resolution: `{"resolution": LOG_ID, "decision": "confirm" |
    "override", "result": {...}, "note": "..."}`. Answers 201 once the row is on disk."""
    body = _body()
    unknown = sorted(set(body) - {"resolution", "decision", "result", "note"})
    if unknown:
        _fail(
            f"unknown key {unknown[0]!r}; accepted keys: 'resolution', 'decision', 'result', 'note'"
        )
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
            "'result' must be a JSON object (what the table agreed, e.g. {\"hits\": 2}) nesting "
            f"at most {RESULT_MAX_DEPTH} levels, got {_short(result)}"
        )
    note = body.get("note")
    if note is not None and not (isinstance(note, str) and len(note) <= NOTE_MAX_CHARS):
        _fail(f"'note' must be text of at most {NOTE_MAX_CHARS} characters, got {_short(note)}")
    if note is not None and not _is_unicode(note):
        _fail("'note' holds a lone surrogate (\\ud800 ...); accepted: Unicode text")
    log = current_log()
    ident = log.record_result(resolution, str(decision), result, note)
    return {"id": ident, "resolution": resolution, "decision": decision}, 201


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
    log, recording, game = _logged_game()
    summary = log.summary(game)
    summary["turn"] = recording.turn
    return jsonify(summary)


@api.get("/api/map.svg")
def map_svg() -> ResponseReturnValue:
    """The top-down map: `?select=ID&target=ID&unit=cm|in`."""
    unknown = sorted(set(request.args) - {"select", "target", "unit"})
    if unknown:
        _fail(f"unknown parameter {unknown[0]!r}; accepted: select, target, unit")
    try:
        from .mapsvg import map_svg as draw_map
    except ImportError:
        _fail("map not available", 503)
    state, current = _state_with_scene()
    stale = [s["base"] for s in (state.scene_doc or {}).get("detection", {}).get("stale_bases", [])]
    try:
        svg = draw_map(
            current,
            unit=request.args.get("unit") or None,
            select=request.args.get("select") or None,
            target=request.args.get("target") or None,
            stale=stale,
        )
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
    if asked is not None:
        action, args = asked
        answer = get_ruleset(current.ruleset).resolve(current, action, args).as_json()
        log_id = _logged(state, action, args, answer)
        answer = {**answer, "log_id": log_id}
        select = args[0] if args else None
    log, recording, game = _logged_game()
    scene_id = _scene_row(log, recording, state, tracker().phase)
    try:
        picture = draw_overlay(state.image, state.scan, current, select)
    except UmpireError:
        picture = draw_overlay(state.image, state.scan, current, None)
    ok, png = cv2.imencode(".png", picture)
    if not ok:
        _fail("the frame could not be encoded as PNG", 500)
    folder = _snapshot_dir()
    with _snapshot_lock:
        folder.mkdir(parents=True, exist_ok=True)
        created = time.time()
        ident = _new_snapshot_id(folder, created)
        record = {
            **_listing(ident),
            "created": created,
            "frame": state.frame,
            "question": None if asked is None else {"action": asked[0], "args": asked[1]},
            "resolution": answer,
            "status": dict(state.status),
            "scene": dict(state.scene_doc or {}),
        }
        (folder / f"{ident}.png").write_bytes(png.tobytes())
        (folder / f"{ident}.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
        log.record_snapshot(
            ident,
            game,
            question=record["question"],
            resolution=log_id,
            scene=scene_id,
            created=created,
        )
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
