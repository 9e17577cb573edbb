"""The JSON API the table page uses (and any script may): status, the scene, resolutions, the
`suggest` list, the rulesets, the phase of play, the SVG map and dispute snapshots.

Thin views over `rules` and the tracker's latest `LiveState`: `/api/resolve` answers exactly what
`umpire resolve SCENE ACTION ARGS --json` prints for the same scene. Bad requests answer 4xx
`{"error": ...}` with the rules' own message (unknown action, wrong arguments, unknown id, unknown
phase) or ours (a body that is not a JSON object, a snapshot id that is not in the list); no path
from a request is ever opened: a snapshot is served only when its id is one of those listed.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Final, NoReturn

import cv2
from flask import Blueprint, Response, jsonify, make_response, request, send_file
from flask.typing import ResponseReturnValue

from rules.engine import describe, get_ruleset, ruleset_ids
from rules.errors import UmpireError
from rules.scene import Scene

from .app import umpire
from .live import Live, LiveState
from .overlay import draw_overlay

api = Blueprint("api", __name__)

SNAPSHOT_ID: Final = re.compile(r"\d{8}-\d{6}-\d{3}(?:-\d{1,3})?")
"""A snapshot's name: its local time, to the millisecond (a counter when two share one)."""
_snapshot_lock = threading.Lock()


class BadRequest(Exception):
    """A request we answer with a 4xx JSON error."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@api.errorhandler(BadRequest)
def _bad_request(error: BadRequest) -> ResponseReturnValue:
    return {"error": error.message}, error.status


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


def _body() -> dict[str, Any]:
    """The request's JSON object (an empty body counts as `{}`)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
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
    _, current = _state_with_scene()
    answer = get_ruleset(current.ruleset).resolve(current, action, args)
    return jsonify(answer.as_json())


@api.get("/api/suggest")
def suggest() -> ResponseReturnValue:
    """The `suggest` list of one phase (`?phase=P`), or of every phase."""
    phase = request.args.get("phase")
    _, current = _state_with_scene()
    ruleset = get_ruleset(current.ruleset)
    if "suggest" not in ruleset.actions():
        _fail(f"{ruleset.id} has no suggest action; its actions are {', '.join(ruleset.actions())}")
    answer = ruleset.resolve(current, "suggest", [phase] if phase else [])
    return jsonify(answer.as_json())


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
    chosen = live.set_phase(body["phase"])
    return {"phase": chosen, "phases": list(live.ruleset.phases)}


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
    if asked is not None:
        action, args = asked
        answer = get_ruleset(current.ruleset).resolve(current, action, args).as_json()
        select = args[0] if args else None
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
    return {**_listing(ident), "created": created}, 201


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
