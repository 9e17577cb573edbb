"""Every route of `umpire serve`, fuzzed: thousands of requests of every method, with random
path parameters, query strings (non-UTF-8 bytes included), JSON bodies of every shape and type,
wrong content types, raw bytes, huge numbers, deep nesting and long strings, through Flask's
test client on an app with a real tracker (`Live`) over a photo of the demo table.

Whatever comes in, the answer is a 2xx or 3xx, or a 4xx whose body is JSON `{"error": str}`:
never a 500, never an HTML error page, never a traceback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import live_over_photo
from vision.game import load_game
from webui.app import create_app
from webui.live import Live

TOKEN: Final = "fuzz-csrf-token"
ROOT: Final = Path(__file__).resolve().parent.parent
DEMO_GAME: Final = ROOT / "examples" / "games" / "skirmish.toml"
DEMO_LAYOUT: Final = ROOT / "examples" / "skirmish.json"
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ROUTES: Final[dict[str, tuple[str, ...]]] = {
    "/": ("GET",),
    "/api/status": ("GET",),
    "/api/source/next": ("POST",),
    "/api/scene": ("GET",),
    "/api/resolve": ("GET", "POST"),
    "/api/suggest": ("GET",),
    "/api/rulesets": ("GET",),
    "/api/phase": ("POST",),
    "/api/results": ("POST",),
    "/api/log": ("GET",),
    "/api/map.svg": ("GET",),
    "/api/snapshot": ("POST",),
    "/api/snapshots": ("GET",),
    "/snapshots/<path:name>": ("GET",),
    "/events": ("GET",),
    "/stream.mjpg": ("GET",),
    "/api/access-check": ("POST",),
    "/api/access-qr.svg": ("GET",),
    "/static/<path:filename>": ("GET",),
    "/api/state": ("GET", "POST"),
    "/api/state/undo": ("POST",),
    "/api/outcome": ("POST",),
    "/api/game/end": ("POST",),
    "/api/game/new": ("POST",),
    "/show": ("GET",),
    "/api/actions": ("GET",),
    "/api/sheets": ("GET",),
    "/api/replay": ("GET", "POST"),
    "/calibrate": ("GET",),
    "/api/calibration": ("GET",),
    "/api/calibration/settings": ("POST",),
    "/api/calibration/capture": ("POST",),
    "/api/calibration/clear": ("POST",),
    "/api/calibration/save": ("POST",),
    "/api/calibration/coverage.svg": ("GET",),
    "/api/calibration/frame.jpg": ("GET",),
    "/api/calibration/table-check": ("GET",),
    "/api/calibration/table-check.jpg": ("GET",),
}
"""Every route and the methods it answers (HEAD and OPTIONS come with GET and POST)."""
METHODS: Final = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")

IDS: Final = ("rifles", "rifles-1", "zouaves", "hussars", "hussars-2", "hart", "wood-1", "farm")
ACTIONS: Final = ("measure", "shoot", "command", "suggest", "risk", "melee", "morale")
PHASES: Final = ("command", "move-a", "shoot-a", "actions-b", "shoot-b", "melee")
PARAMS: Final = ("action", "args", "phase", "select", "target", "unit", "code", "line")
CONTENT_TYPES: Final = (
    "application/json",
    "application/json; charset=utf-16",
    "text/plain",
    "text/html",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=xyz",
    "application/octet-stream",
    "",
)


# --------------------------------------------------------------------------------- the app


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A real tracker over one photo of the demo table (a fixed scene), scanned once."""
    folder = tmp_path_factory.mktemp("photo")
    with live_over_photo(
        load_game(DEMO_GAME), json.loads(DEMO_LAYOUT.read_text()), folder
    ) as tracker:
        yield tracker


@pytest.fixture(scope="module")
def app(live: Live, tmp_path_factory: pytest.TempPathFactory) -> Flask:
    data = tmp_path_factory.mktemp("data")
    config = {
        "TESTING": True,
        "DATA_DIR": str(data),
        "CSRF_TOKEN": TOKEN,
        "SSE_MAX_S": 0.0,  # a stream ends at once: the fuzz asks, it does not watch
        "MJPEG_MAX_S": 0.0,
    }
    made = create_app(config, live=live)
    client = made.test_client()
    # A resolution and a snapshot exist, so ids 1, 2 ... and listed files are in play too.
    question = {"action": "measure", "args": ["rifles", "hart"]}
    asked = client.post("/api/resolve", json=question, headers={"X-CSRF-Token": TOKEN})
    assert asked.status_code == 200
    assert client.post("/api/snapshot", headers={"X-CSRF-Token": TOKEN}).status_code == 201
    return made


@pytest.fixture(scope="module")
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def check(response: Any, what: str) -> None:
    """The one promise: no 5xx, and every 4xx is JSON `{"error": str}`."""
    status = response.status_code
    assert status < 500, f"{what} -> {status} {response.data[:300]!r}"
    if status >= 400:
        assert response.mimetype == "application/json", f"{what} -> {status} {response.mimetype}"
        if response.request.method != "HEAD":  # a HEAD answer has no body to read
            body = response.get_json()
            assert isinstance(body, dict) and isinstance(body.get("error"), str), what


# --------------------------------------------------------------------------------- strategies

HUGE_INTS = st.sampled_from([2**63 - 1, 2**63, -(2**63) - 1, 2**64, 10**300, -(10**300)])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | HUGE_INTS
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(IDS + ACTIONS + PHASES + ("confirm", "override"))
    | st.text(min_size=1000, max_size=5000).filter(bool)
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=25,
)


def encoded(value: Any) -> bytes:
    """JSON text of `value`, NaN and Infinity written as Python's json writes them."""
    return json.dumps(value).encode()


QUESTIONS = st.fixed_dictionaries(
    {},
    optional={
        "action": st.sampled_from(ACTIONS) | JSON_VALUES,
        "args": st.lists(st.sampled_from(IDS) | st.text(max_size=20), max_size=4) | JSON_VALUES,
        "extra": JSON_VALUES,
    },
)
GOOD_QUESTIONS = st.fixed_dictionaries(
    {
        "action": st.sampled_from(ACTIONS),
        "args": st.lists(st.sampled_from(IDS), min_size=1, max_size=2),
    }
)
"""Mostly answerable: these reach the rules and the log, not only the body checks."""
PHASE_BODIES = st.fixed_dictionaries(
    {}, optional={"phase": st.sampled_from(PHASES) | JSON_VALUES, "also": JSON_VALUES}
)
RESULT_BODIES = st.fixed_dictionaries(
    {},
    optional={
        "resolution": st.integers(min_value=-3, max_value=5) | HUGE_INTS | JSON_VALUES,
        "decision": st.sampled_from(("confirm", "override")) | JSON_VALUES,
        "result": st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4) | JSON_VALUES,
        "note": st.text(max_size=600) | JSON_VALUES,
        "why": JSON_VALUES,
    },
)
FIELDS: Final = ("casualties", "loaded", "moved", "formation", "removed", "held", "turn", "phase")
STATE_BODIES = st.fixed_dictionaries(
    {},
    optional={
        "unit": st.sampled_from(IDS) | JSON_VALUES,
        "base": st.sampled_from(IDS) | JSON_VALUES,
        "game": JSON_VALUES,
        "set": st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), JSON_VALUES)
        | JSON_VALUES,
        "other": JSON_VALUES,
    },
)
"""Hand changes of state: a unit's, a base's or the game's fields, good and bad."""
OUTCOME_BODIES = st.fixed_dictionaries(
    {},
    optional={
        "action": st.sampled_from(ACTIONS) | JSON_VALUES,
        "args": st.lists(st.sampled_from(IDS), max_size=3) | JSON_VALUES,
        "result": st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4) | JSON_VALUES,
        "changes": st.lists(JSON_VALUES, max_size=3) | JSON_VALUES,
    },
)
"""Reported dice (and an override's hand changes), good and bad."""
CALIBRATION_BODIES = st.fixed_dictionaries(
    {},
    optional={
        "camera": st.integers(min_value=-1, max_value=2) | JSON_VALUES,
        "resolution": st.sampled_from(("640x480", "800x600", "1280x720", "9x9", "wide"))
        | st.lists(st.integers(min_value=-10, max_value=5000), max_size=3)
        | JSON_VALUES,
        "exposure": st.floats(min_value=-20, max_value=20) | JSON_VALUES,
        "focus": st.integers(min_value=-5, max_value=300) | JSON_VALUES,
        "path": st.sampled_from(("camera.json", "../camera.json", "/tmp/x.json", "c.txt", ""))
        | st.text(max_size=30)
        | JSON_VALUES,
    },
)
"""Camera settings and a camera file's name for the calibration page, good and bad."""
GOOD_RESULTS = st.fixed_dictionaries(
    {
        "resolution": st.integers(min_value=1, max_value=4),
        "decision": st.sampled_from(("confirm", "override")),
    },
    optional={
        "result": st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=4),
        "note": st.text(max_size=510),
    },
)


def nested(depth: int, kind: str) -> bytes:
    if kind == "list":
        return b"[" * depth + b"]" * depth
    if kind == "object":
        return b'{"a":' * depth + b"1" + b"}" * depth
    return b'{"result": ' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"


RAW_BODIES = (
    st.binary(max_size=200)
    | st.builds(
        nested,
        st.integers(min_value=1, max_value=30000),
        st.sampled_from(["list", "object", "result"]),
    )
    | st.sampled_from(
        [
            b'{"resolution": 1' + b"9" * 5000 + b', "decision": "confirm"}',  # > 4300 digits
            b'{"resolution": 1, "decision": "confirm", "result": {"x": 1e999}}',
            b'{"resolution": 1, "decision": "confirm", "result": {"x": NaN}}',
            b'{"resolution": 1, "decision": "confirm", "result": {"x": -Infinity}}',
            b'{"resolution": 1, "decision": "confirm", "note": "\\ud800\\udfff\\ud800"}',
            b'{"action": "measure", "args": ["\\ud800", "rifles"]}',
            b'{"phase": "\\u0000command"}',
            b'{"action": "\xff\xfe", "args": []}',
            b"\xef\xbb\xbf{}",
            b"\xff\xfe{\x00}\x00",
            b'{"a": 1, "a": 2}',
            b"{" + b'"k":1,' * 5000 + b'"k":2}',
            # Issue 17: what the JSON parser accepts, in the ids and values of every write.
            b'{"unit": "ri\\ud800fles", "set": {"casualties": 1}}',
            b'{"unit": "rifles", "set": {"\\udfff": 1}}',
            b'{"unit": "rifles", "set": {"casualties": 1e999}}',
            b'{"unit": "rifles", "set": {"casualties": ' + b"9" * 400 + b"}}",
            b'{"unit": "rifles", "set": {"casualties": NaN}}',
            b'{"base": "\\udc00", "set": {"removed": true}}',
            b'{"game": true, "set": {"phase": "\\ud800"}}',
            b'{"phase": "\\ud83d"}',
            b'{"resolution": 1, "decision": "override", "changes": [{"unit": "\\ud800", '
            b'"field": "casualties", "value": 1}]}',
            b'{"resolution": 1, "decision": "confirm", "result": {"\\ud800": Infinity}}',
            b'{"action": "measure", "args": ["rifles", "zouaves"], "select": "\\ud800"}',
        ]
    )
)

BODIES = (
    st.builds(encoded, JSON_VALUES)
    | st.builds(encoded, QUESTIONS)
    | st.builds(encoded, PHASE_BODIES)
    | st.builds(encoded, RESULT_BODIES)
    | st.builds(encoded, GOOD_QUESTIONS)
    | st.builds(encoded, st.fixed_dictionaries({"phase": st.sampled_from(PHASES)}))
    | st.builds(encoded, GOOD_RESULTS)
    | st.builds(encoded, STATE_BODIES)
    | st.builds(encoded, OUTCOME_BODIES)
    | st.builds(encoded, CALIBRATION_BODIES)
    | RAW_BODIES
    | st.just(b"")
)


def _path_text() -> st.SearchStrategy[str]:
    listed = st.sampled_from(["..", "../..", "%2e%2e", "secret.json", "x.png", "app.js", "a/b/c"])
    return listed | st.text(max_size=40)


@st.composite
def paths(draw: st.DrawFn) -> str:
    rule = draw(st.sampled_from(sorted(ROUTES)) | st.text(max_size=30).map(lambda t: "/api/" + t))
    if "<" not in rule:
        return quote(rule, safe="/.") if rule.startswith("/api/") and rule not in ROUTES else rule
    name = draw(_path_text())
    ending = draw(st.sampled_from(["", ".png", ".json", ".svg", ".js", ".css"]))
    raw = draw(st.booleans())
    value = name + ending
    return rule.split("<")[0] + (value.replace("?", "").replace("#", "") if raw else quote(value))


@st.composite
def query_strings(draw: st.DrawFn) -> str:
    """Pairs of known and unknown keys with any value, some values raw (non-UTF-8) bytes."""
    parts: list[bytes] = []
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        key = draw(st.sampled_from(PARAMS) | st.text(max_size=8))
        value = draw(
            st.sampled_from(IDS + ACTIONS + PHASES + ("cm", "in", "furlong", ""))
            | st.lists(st.sampled_from(IDS) | st.text(max_size=8), max_size=4).map(",".join)
            | st.text(max_size=50)
        )
        encoded_value = quote(value).encode()
        if draw(st.integers(min_value=0, max_value=9)) == 0:
            encoded_value = "".join(f"%{b:02X}" for b in draw(st.binary(max_size=8))).encode()
        parts.append(quote(key).encode() + b"=" + encoded_value)
    return b"&".join(parts).decode("ascii")  # percent-encoded: ASCII whatever the bytes


@st.composite
def headers(draw: st.DrawFn) -> dict[str, str]:
    sent: dict[str, str] = {}
    token = draw(st.sampled_from([TOKEN, TOKEN, TOKEN, TOKEN, None, "", "wrong"]))
    if token is not None:
        sent["X-CSRF-Token"] = token
    origin = draw(
        st.sampled_from([None, None, None, "http://localhost", "http://evil.example", "null"])
    )
    if origin is not None:
        sent["Origin"] = origin
    if draw(st.integers(min_value=0, max_value=7)) == 0:
        sent["X-Access-Code"] = draw(st.text(alphabet="0123456789-", max_size=12))
    return sent


# --------------------------------------------------------------------------------- the tests


def test_every_route_is_fuzzed(app: Flask) -> None:
    """A route added later without being fuzzed here fails this test."""
    served: dict[str, set[str]] = {}
    for rule in app.url_map.iter_rules():
        served.setdefault(rule.rule, set()).update(set(rule.methods or ()) - {"HEAD", "OPTIONS"})
    assert {r: tuple(sorted(m)) for r, m in served.items()} == {
        rule: tuple(sorted(methods)) for rule, methods in ROUTES.items()
    }


@settings(FUZZ, max_examples=1200)
@given(
    method=st.sampled_from(METHODS),
    path=paths(),
    query=query_strings(),
    body=BODIES,
    content_type=st.sampled_from(CONTENT_TYPES),
    sent=headers(),
)
def test_any_request_to_any_route(
    client: FlaskClient,
    method: str,
    path: str,
    query: str,
    body: bytes,
    content_type: str,
    sent: dict[str, str],
) -> None:
    response = client.open(
        path,
        method=method,
        query_string=query,
        data=body if method not in ("GET", "HEAD") else b"",
        content_type=content_type or None,
        headers=sent,
    )
    check(response, f"{method} {path}?{query!r} {body[:80]!r}")


@settings(FUZZ, max_examples=1500)
@given(
    path=st.sampled_from(
        [
            *("/api/resolve", "/api/phase", "/api/results", "/api/snapshot", "/api/state"),
            *("/api/state/undo", "/api/outcome", "/api/game/end", "/api/game/new"),
        ]
    ),
    body=BODIES,
    content_type=st.sampled_from(CONTENT_TYPES),
)
def test_state_changing_routes_with_every_kind_of_body(
    client: FlaskClient, path: str, body: bytes, content_type: str
) -> None:
    response = client.post(
        path, data=body, content_type=content_type or None, headers={"X-CSRF-Token": TOKEN}
    )
    check(response, f"POST {path} {body[:80]!r}")


@settings(FUZZ, max_examples=800)
@given(
    path=st.sampled_from(
        [
            *("/api/resolve", "/api/suggest", "/api/map.svg", "/stream.mjpg", "/events"),
            *("/api/log", "/api/status", "/api/scene", "/api/snapshots", "/api/rulesets", "/"),
            "/api/state",
        ]
    ),
    query=query_strings(),
)
def test_reading_routes_with_every_query(client: FlaskClient, path: str, query: str) -> None:
    check(client.get(path, query_string=query), f"GET {path}?{query!r}")


def test_results_and_the_log_still_make_sense_after_the_fuzz(client: FlaskClient) -> None:
    """The fuzz wrote through the real log: it still answers, and a good result still lands (in
    a game in play: the fuzz may have ended the last one)."""
    csrf = {"X-CSRF-Token": TOKEN}
    assert client.post("/api/game/new", json={}, headers=csrf).status_code == 201
    question = {"action": "measure", "args": ["rifles", "zouaves"]}
    asked = client.post("/api/resolve", json=question, headers=csrf).get_json()["log_id"]
    body = {"resolution": asked, "decision": "confirm", "result": {"hits": 1}}
    made = client.post("/api/results", json=body, headers=csrf)
    assert made.status_code == 201
    shown = client.get("/api/log").get_json()
    assert shown["results"][0]["id"] == made.get_json()["id"]
    assert shown["results"][0]["result"] == {"hits": 1}
