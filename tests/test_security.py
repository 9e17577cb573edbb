"""LAN safety of `umpire serve` (webui/security.py, webui/app.py, webui/cli.py): a change needs
the page's CSRF token and comes from the server's own origin; beyond this machine it also needs
the access code printed at start-up, and guessing it is slowed down; reads stay open to
spectators; bodies have a size limit; the QR code of the code goes only to the server's own
screen; every response carries the browser-side protections.

A client on another machine is simulated with `environ_base={"REMOTE_ADDR": ...}` on Flask's
test client; the loopback cases also run through a real werkzeug server on 127.0.0.1, and
`umpire serve --host 0.0.0.0` runs as a real command in a subprocess.
"""

from __future__ import annotations

import io
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.serving import make_server

from tests.test_api import live  # noqa: F401  (the tracker over one scanned photo, a fixture)
from webui import security
from webui.app import MAX_BODY_BYTES, create_app
from webui.cli import main
from webui.live import Live

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "security-test-token"
CODE = "1234-5678"
CSRF = {"X-CSRF-Token": TOKEN}
WITH_CODE = {**CSRF, "X-Access-Code": CODE}
SPECTATOR = {"REMOTE_ADDR": "192.168.1.20"}
OTHER_SPECTATOR = {"REMOTE_ADDR": "192.168.1.21"}


@pytest.fixture
def app(live: Live, tmp_path: Path) -> Flask:  # noqa: F811
    """A server bound beyond this machine: an access code is set."""
    config = {
        "TESTING": True,
        "DATA_DIR": str(tmp_path / "data"),
        "CSRF_TOKEN": TOKEN,
        "ACCESS_CODE": CODE,
        "PUBLIC_URL": "http://192.168.1.5:8000/",
    }
    return create_app(config, live=live)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def log_id(client: FlaskClient) -> int:
    """The game-log id of one answer shown to a player, for POST /api/results."""
    question = {"action": "measure", "args": ["rifles", "zouaves"]}
    answer = client.post("/api/resolve", json=question, headers=WITH_CODE).get_json()
    assert isinstance(answer["log_id"], int)
    return int(answer["log_id"])


CHANGES = ["/api/phase", "/api/snapshot", "/api/results", "/api/access-check"]
"""Every route that changes the game (and the one that only checks the code)."""


def change(path: str, log_id: int) -> tuple[dict[str, Any], int]:
    """A good body for a state-changing route, and the status it answers when let through."""
    good: dict[str, tuple[dict[str, Any], int]] = {
        "/api/phase": ({"phase": "command"}, 200),  # the phase it is in: the game is unchanged
        "/api/snapshot": ({}, 201),
        "/api/results": ({"resolution": log_id, "decision": "confirm"}, 201),
        "/api/access-check": ({}, 200),
    }
    return good[path]


def refusal(response: Any, status: int, *fragments: str) -> dict[str, Any]:
    assert response.status_code == status, response.data[:300]
    assert response.is_json, response.data[:300]
    doc: dict[str, Any] = response.get_json()
    for fragment in fragments:
        assert fragment in doc["error"], doc
    return doc


# --------------------------------------------------------------------------------- the pieces


@pytest.mark.parametrize(
    "host, loopback",
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),  # all of 127.0.0.0/8 is this machine
        ("::1", True),
        ("[::1]", True),
        ("::ffff:127.0.0.1", True),  # an IPv4 client on a dual-stack socket
        ("localhost", True),
        ("LocalHost.", True),
        ("0.0.0.0", False),  # every network: not loopback
        ("::", False),
        ("192.168.1.20", False),
        ("::ffff:192.168.1.20", False),
        ("fe80::1%eth0", False),
        ("127.0.0.1.example.com", False),
        ("", False),
        (None, False),
    ],
)
def test_loopback_addresses(host: str | None, loopback: bool) -> None:
    assert security.is_loopback(host) is loopback


@pytest.mark.parametrize(
    "host, loopback",
    [("127.0.0.1", True), ("localhost", True), ("::1", True), ("0.0.0.0", False), ("::", False)],
)
def test_bind_hosts(host: str, loopback: bool) -> None:
    assert security.check_bind_host(host) is loopback


@pytest.mark.parametrize("host", ["", "  ", "not a host!", "a..b", "-x.example", "name.invalid"])
def test_bad_bind_hosts_are_refused(host: str) -> None:
    with pytest.raises(security.HostError, match="--host"):
        security.check_bind_host(host)


def test_access_codes_are_eight_digits_read_as_two_fours() -> None:
    codes = {security.new_access_code() for _ in range(50)}
    assert all(re.fullmatch(r"\d{4}-\d{4}", code) for code in codes)
    # 50 draws from 10^8 codes: all alike only if the generator is broken.
    assert len(codes) > 1
    assert len(security.new_csrf_token()) >= 43  # 32 random bytes in base64: 43 characters


@pytest.mark.parametrize(
    "typed, right",
    [
        ("1234-5678", True),
        ("12345678", True),
        ("1234 5678", True),
        (" 1234-5678 ", True),
        ("1234-5679", False),
        ("", False),
        ("1234-56789", False),
        ("１２３４-５６７８", False),  # full-width digits are other characters
    ],
)
def test_a_typed_code_matches_without_its_spaces_and_hyphens(typed: str, right: bool) -> None:
    assert security.code_matches(typed, CODE) is right


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_guard_locks_an_address_out_for_doubling_times() -> None:
    clock = Clock()
    guard = security.CodeGuard(clock)
    who = "192.168.1.20"
    for _ in range(security.FREE_TRIES):  # 5 free wrong codes
        guard.failed(who)
        assert guard.wait_s(who) == 0
    # The 6th, 7th, 8th wrong codes lock for 1, 2, 4 s.
    for lock in (1.0, 2.0, 4.0):
        guard.failed(who)
        assert guard.wait_s(who) == pytest.approx(lock)
        clock.now += lock
        assert guard.wait_s(who) == 0
    assert guard.wait_s("192.168.1.21") == 0  # another address is not touched
    for _ in range(20):  # 1 * 2^19 s would be days: the lock stops at 300 s
        guard.failed(who)
    assert guard.wait_s(who) == pytest.approx(security.LOCK_MAX_S)
    guard.passed(who)
    assert guard.wait_s(who) == 0


def test_the_guard_counts_an_ipv6_client_by_its_64() -> None:
    guard = security.CodeGuard(Clock())
    for i in range(security.FREE_TRIES + 1):  # each guess from another address of one /64
        guard.failed(f"2001:db8:1:2::{i + 1:x}")
    assert guard.wait_s("2001:db8:1:2::ffff") == pytest.approx(1.0)
    assert guard.wait_s("2001:db8:1:3::1") == 0


def qr_text(svg: str) -> str:
    """What a phone reads from segno's SVG: the path drawn as modules, decoded by OpenCV."""
    size = int(re.search(r'width="(\d+)"', svg).group(1)) // 4  # type: ignore[union-attr]
    modules = np.full((size, size), 255, np.uint8)
    path = re.search(r' d="([^"]+)"', svg).group(1)  # type: ignore[union-attr]
    x = y = 0.0
    for op, numbers in re.findall(r"([MmHh])([-\d. ]+)", path):
        values = [float(n) for n in numbers.split()]
        if op == "M":
            x, y = values
        elif op == "m":
            x, y = x + values[0], y + values[1]
        else:
            modules[int(y), int(x) : int(x + values[0])] = 0
            x += values[0]
    picture = cv2.resize(modules, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    picture = cv2.copyMakeBorder(picture, 32, 32, 32, 32, cv2.BORDER_CONSTANT, value=255)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(picture)
    return str(text)


def test_the_qr_code_carries_the_page_address_with_the_code() -> None:
    assert qr_text(security.qr_svg("http://192.168.1.5:8000/?code=1234-5678")) == (
        "http://192.168.1.5:8000/?code=1234-5678"
    )


def test_page_urls_for_players() -> None:
    assert security.page_url("192.168.1.5", 8000) == "http://192.168.1.5:8000/"
    assert security.page_url("::1", 80) == "http://[::1]:80/"
    every = security.page_url("0.0.0.0", 8000)  # shown as an address other machines can use
    assert every.startswith("http://") and "0.0.0.0" not in every and every.endswith(":8000/")
    assert security.join_url_for("http://192.168.1.5:8000/", CODE) == (
        "http://192.168.1.5:8000/?code=1234-5678"
    )


# --------------------------------------------------------------------------------- CSRF, origin


@pytest.mark.parametrize("path", [*CHANGES, "/api/resolve"])
@pytest.mark.parametrize("headers", [{}, {"X-CSRF-Token": "guess"}, {"X-CSRF-Token": ""}])
def test_a_change_without_the_token_is_refused(
    client: FlaskClient, path: str, headers: dict[str, str]
) -> None:
    body = {"action": "measure", "args": ["rifles", "zouaves"]} if path == "/api/resolve" else {}
    doc = refusal(client.post(path, json=body, headers={**headers, "X-Access-Code": CODE}), 403)
    assert doc["needs"] == "csrf" and "X-CSRF-Token" in doc["error"]


@pytest.mark.parametrize("method", ["put", "patch", "delete"])
def test_put_patch_and_delete_meet_405_before_any_check(client: FlaskClient, method: str) -> None:
    # No route takes them: routing answers 405 before any check, and nothing changes.
    response = getattr(client, method)("/api/phase", json={"phase": "melee"})
    refusal(response, 405, "method not allowed")


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://localhost:9999"])
@pytest.mark.parametrize("path", CHANGES)
def test_a_change_from_another_origin_is_refused(
    client: FlaskClient, log_id: int, path: str, origin: str
) -> None:
    body, _ = change(path, log_id)
    doc = refusal(client.post(path, json=body, headers={**WITH_CODE, "Origin": origin}), 403)
    assert doc["needs"] == "origin" and repr(origin) in doc["error"]


@pytest.mark.parametrize("path", CHANGES)
def test_a_change_from_the_servers_own_page_is_accepted(
    client: FlaskClient, log_id: int, path: str
) -> None:
    body, status = change(path, log_id)
    # The test client's server is http://localhost: the page's own origin.
    response = client.post(path, json=body, headers={**WITH_CODE, "Origin": "http://localhost"})
    assert response.status_code == status, response.data[:300]


# --------------------------------------------------------------------------------- access code


@pytest.mark.parametrize("code", [None, "", "1111-1111", "1234-5679"])
@pytest.mark.parametrize("path", CHANGES)
def test_a_spectator_without_the_right_code_cannot_change(
    client: FlaskClient, log_id: int, path: str, code: str | None
) -> None:
    body, _ = change(path, log_id)
    headers = CSRF if code is None else {**CSRF, "X-Access-Code": code}
    response = client.post(path, json=body, headers=headers, environ_base=SPECTATOR)
    doc = refusal(response, 403, "needs the access code printed when the server started")
    assert doc["needs"] == "access-code"


@pytest.mark.parametrize("path", CHANGES)
def test_a_spectator_with_the_code_and_the_token_can_change(
    client: FlaskClient, log_id: int, path: str
) -> None:
    body, status = change(path, log_id)
    response = client.post(path, json=body, headers=WITH_CODE, environ_base=SPECTATOR)
    assert response.status_code == status, response.data[:300]


def test_a_refused_change_changes_nothing(client: FlaskClient, log_id: int, tmp_path: Path) -> None:
    before = client.get("/api/log").get_json()
    client.post("/api/phase", json={"phase": "melee"}, headers=CSRF, environ_base=SPECTATOR)
    client.post("/api/snapshot", json={}, headers=CSRF, environ_base=SPECTATOR)
    body = {"resolution": log_id, "decision": "override", "note": "no"}
    client.post("/api/results", json=body, environ_base=SPECTATOR)
    assert client.get("/api/status").get_json()["phase"] == "command"
    assert client.get("/api/snapshots").get_json() == []
    assert not (tmp_path / "data" / "snapshots").exists()
    after = client.get("/api/log").get_json()
    assert after["results"] == before["results"] == []


def test_the_code_is_needed_from_this_machine_too(client: FlaskClient) -> None:
    """The server's own page carries the code, so even local changes send it: a page on this
    machine is no exception an attacker could borrow (say, through a proxy on this machine)."""
    response = client.post("/api/phase", json={"phase": "command"}, headers=CSRF)
    refusal(response, 403, "access code")


def test_asking_by_post_is_a_players_logged_question_and_needs_the_code(
    client: FlaskClient,
) -> None:
    # A POST question is written to the log (its answer gets a log_id to confirm), so it needs
    # the code like any change; spectators ask by GET, answered the same and never written.
    question = {"action": "measure", "args": ["rifles", "zouaves"]}
    response = client.post("/api/resolve", json=question, headers=CSRF, environ_base=SPECTATOR)
    refusal(response, 403, "access code")
    response = client.post("/api/resolve", json=question, headers=WITH_CODE, environ_base=SPECTATOR)
    assert response.status_code == 200 and isinstance(response.get_json()["log_id"], int)


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/api/status",
        "/api/scene",
        "/api/resolve?action=measure&args=rifles,zouaves",
        "/api/suggest",
        "/api/rulesets",
        "/api/snapshots",
        "/api/log",
        "/static/app.js",
    ],
)
def test_reading_is_open_to_spectators(client: FlaskClient, path: str) -> None:
    response = client.get(path, environ_base=SPECTATOR)
    assert response.status_code == 200, response.data[:300]


def test_wrong_codes_lock_an_address_out_and_say_when_to_come_back(
    app: Flask, client: FlaskClient
) -> None:
    clock = Clock()
    app.extensions["umpire-guard"] = security.CodeGuard(clock)
    wrong = {**CSRF, "X-Access-Code": "1111-1111"}
    for _ in range(security.FREE_TRIES + 1):  # 5 free, the 6th locks for 1 s
        refusal(client.post("/api/access-check", headers=wrong, environ_base=SPECTATOR), 403)
    locked = client.post("/api/access-check", headers=WITH_CODE, environ_base=SPECTATOR)
    refusal(locked, 429, "too many wrong access codes", "try again in")
    assert int(locked.headers["Retry-After"]) >= 1
    # Another player's machine is not held up, and after the lock the right code works.
    ok = client.post("/api/access-check", headers=WITH_CODE, environ_base=OTHER_SPECTATOR)
    assert ok.status_code == 200
    clock.now += 1.0
    assert (
        client.post("/api/access-check", headers=WITH_CODE, environ_base=SPECTATOR).status_code
        == 200
    )


def test_a_loopback_server_needs_only_the_token(live: Live, tmp_path: Path) -> None:  # noqa: F811
    config = {"TESTING": True, "DATA_DIR": str(tmp_path), "CSRF_TOKEN": TOKEN}
    client = create_app(config, live=live).test_client()
    ok = client.post("/api/phase", json={"phase": "command"}, headers=CSRF)
    assert ok.status_code == 200
    refusal(client.post("/api/phase", json={"phase": "command"}), 403, "X-CSRF-Token")
    page = client.get("/").get_data(as_text=True)
    assert '<meta name="code-needed" content="no">' in page
    assert 'name="access-code"' not in page and 'id="access-qr"' not in page
    refusal(client.get("/api/access-qr.svg"), 404, "no access code")


def test_every_app_has_its_own_token() -> None:
    first, second = create_app({"TESTING": True}), create_app({"TESTING": True})
    assert first.config["CSRF_TOKEN"] != second.config["CSRF_TOKEN"]
    assert first.config["ACCESS_CODE"] is None


# --------------------------------------------------------------------------------- the page


def meta(page: str, name: str) -> str | None:
    found = re.search(rf'<meta name="{name}" content="([^"]*)">', page)
    return found.group(1) if found else None


def test_the_local_page_carries_the_token_the_code_and_the_qr(client: FlaskClient) -> None:
    response = client.get("/")
    page = response.get_data(as_text=True)
    assert meta(page, "csrf-token") == TOKEN
    assert meta(page, "code-needed") == "yes"
    assert meta(page, "access-code") == CODE
    assert 'src="/api/access-qr.svg"' in page
    assert "http://192.168.1.5:8000/?code=1234-5678" in page
    assert response.headers["Cache-Control"] == "no-store"


def test_a_spectators_page_carries_the_token_but_not_the_code(client: FlaskClient) -> None:
    page = client.get("/", environ_base=SPECTATOR).get_data(as_text=True)
    assert meta(page, "csrf-token") == TOKEN
    assert meta(page, "code-needed") == "yes"
    assert meta(page, "access-code") is None
    assert CODE not in page and CODE.replace("-", "") not in page
    assert "access-qr" not in page


def test_the_qr_code_is_for_the_servers_own_screen(client: FlaskClient) -> None:
    response = client.get("/api/access-qr.svg")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    assert qr_text(response.get_data(as_text=True)) == "http://192.168.1.5:8000/?code=1234-5678"
    refusal(client.get("/api/access-qr.svg", environ_base=SPECTATOR), 403, "own machine")


# --------------------------------------------------------------------------------- limits, hosts


@pytest.mark.parametrize("headers", [WITH_CODE, {}])
def test_a_body_too_large_is_413_json(client: FlaskClient, headers: dict[str, str]) -> None:
    big = json.dumps({"phase": "x" * MAX_BODY_BYTES})
    response = client.post("/api/phase", data=big, content_type="application/json", headers=headers)
    refusal(response, 413, "too large", str(MAX_BODY_BYTES))


def chunked(client: FlaskClient, path: str, body: bytes, headers: dict[str, str]) -> Any:
    """POST `body` as werkzeug's server hands a `Transfer-Encoding: chunked` request to the app:
    no Content-Length, and a stream the server ends (`wsgi.input_terminated`)."""
    return client.post(
        path,
        input_stream=io.BytesIO(body),
        headers={**headers, "Transfer-Encoding": "chunked", "Content-Type": "application/json"},
        environ_overrides={"wsgi.input_terminated": True},
    )


@pytest.mark.parametrize("extra", [1, 5000, 10 * MAX_BODY_BYTES])
@pytest.mark.parametrize("headers", [WITH_CODE, {}])
def test_a_chunked_body_too_large_is_413_json(
    client: FlaskClient, headers: dict[str, str], extra: int
) -> None:
    # Without a Content-Length the limit is only found while reading: the body must not be
    # cut at the limit and handed on as (broken) JSON, a 400.
    big = json.dumps({"phase": "x" * (MAX_BODY_BYTES + extra)}).encode()
    refusal(chunked(client, "/api/phase", big, headers), 413, "too large", str(MAX_BODY_BYTES))


def test_a_chunked_body_within_the_limit_reaches_the_view(client: FlaskClient) -> None:
    response = chunked(client, "/api/phase", json.dumps({"phase": "command"}).encode(), WITH_CODE)
    assert response.status_code == 200, response.data[:300]
    assert response.get_json()["phase"] == "command"
    # Exactly at the limit is still allowed: read whole, then refused for its content only.
    padding = MAX_BODY_BYTES - len(json.dumps({"phase": ""}))
    exact = json.dumps({"phase": "x" * padding}).encode()
    assert len(exact) == MAX_BODY_BYTES
    refusal(chunked(client, "/api/phase", exact, WITH_CODE), 400, "phase")


@pytest.mark.parametrize(
    "host, allowed",
    [
        ("localhost", True),
        ("127.0.0.1:8000", True),
        ("192.168.1.5:8000", True),
        ("[::1]:8000", True),
        ("umpire-box.local:8000", True),  # named in ALLOWED_HOSTS
        ("evil.example", False),  # a name pointed here by someone else's DNS (rebinding)
        ("evil.example:8000", False),
    ],
)
def test_the_host_header_must_be_an_address_or_a_known_name(
    app: Flask, host: str, allowed: bool
) -> None:
    app.config["ALLOWED_HOSTS"] = ["umpire-box.local"]
    response = app.test_client().get("/api/status", headers={"Host": host})
    if allowed:
        assert response.status_code == 200
    else:
        assert refusal(response, 400, "unknown host name")["needs"] == "host"


@pytest.mark.parametrize(
    "method, path",
    [("get", "/"), ("get", "/api/status"), ("get", "/api/nothing"), ("post", "/api/phase")],
)
def test_every_response_carries_the_browser_protections(
    client: FlaskClient, method: str, path: str
) -> None:
    headers = getattr(client, method)(path).headers
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Referrer-Policy"] == "no-referrer"
    policy = headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy


# --------------------------------------------------------------------------------- real servers


@pytest.fixture
def real_server(app: Flask) -> Iterator[str]:
    """The app on a real werkzeug server on 127.0.0.1: request.remote_addr is the socket's."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.port}"
    server.shutdown()
    thread.join(10)


def http(url: str, body: dict[str, Any] | None = None, **headers: str) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_a_real_loopback_client_gets_the_code_and_still_sends_it(real_server: str) -> None:
    status, page = http(real_server + "/")
    assert status == 200 and meta(page.decode(), "access-code") == CODE
    status, svg = http(real_server + "/api/access-qr.svg")
    assert status == 200 and svg.startswith(b"<svg")
    status, _ = http(real_server + "/api/phase", {"phase": "command"}, **{"X-CSRF-Token": TOKEN})
    assert status == 403
    status, _ = http(
        real_server + "/api/phase",
        {"phase": "command"},
        **{"X-CSRF-Token": TOKEN, "X-Access-Code": CODE},
    )
    assert status == 200


def in_chunks(body: bytes) -> bytes:
    """`body` in the chunked transfer coding, 4 KiB a chunk."""
    pieces = [body[i : i + 4096] for i in range(0, len(body), 4096)]
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


def raw_chunked_post(url: str, path: str, chunks: bytes, **headers: str) -> tuple[int, bytes]:
    """POST `chunks` with `Transfer-Encoding: chunked` over a plain socket, as urllib cannot:
    the status and the response body."""
    host, port = url.removeprefix("http://").split(":")
    head = f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    head += "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(head.encode() + chunks)
        answer = b""
        while data := sock.recv(65536):
            answer += data
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def test_a_real_server_answers_a_chunked_body_too_large_413(real_server: str) -> None:
    big = json.dumps({"phase": "x" * (MAX_BODY_BYTES + 5000)}).encode()
    status, body = raw_chunked_post(real_server, "/api/phase", in_chunks(big), **WITH_CODE)
    assert status == 413, body[:300]
    error = json.loads(body)["error"]
    assert "too large" in error and str(MAX_BODY_BYTES) in error
    small = json.dumps({"phase": "command"}).encode()
    status, body = raw_chunked_post(real_server, "/api/phase", in_chunks(small), **WITH_CODE)
    assert status == 200 and json.loads(body)["phase"] == "command"
    broken = b"zz\r\n{}\r\n0\r\n\r\n"  # not a chunk size
    status, body = raw_chunked_post(real_server, "/api/phase", broken, **WITH_CODE)
    assert status == 400 and "could not be read" in json.loads(body)["error"]


def wait_for_line(process: subprocess.Popen[str], prefix: str, seconds: float) -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if line.startswith(prefix):
            return line
    pytest.fail(f"`umpire serve` printed no line starting {prefix!r}")


def serve(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "webui.cli", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def test_serve_on_every_network_prints_a_code_that_spectators_lack(tmp_path: Path) -> None:
    process = serve("--host", "0.0.0.0", "--fps", "2")
    try:
        address = wait_for_line(process, "umpire: serving", 120)
        port = re.search(r":(\d+)/", address).group(1)  # type: ignore[union-attr]
        assert "0.0.0.0" in address  # where it listens, beside the address players type
        said = wait_for_line(process, "umpire: access code for changes:", 10)
        code = re.search(r"changes: (\d{4}-\d{4})", said).group(1)  # type: ignore[union-attr]
        assert f"?code={code}" in said
        url = f"http://127.0.0.1:{port}"
        _, page = http(url + "/")
        token = meta(page.decode(), "csrf-token")
        assert token and meta(page.decode(), "access-code") == code
        status, body = http(url + "/api/phase", {"phase": "command"}, **{"X-CSRF-Token": token})
        assert status == 403 and b"access code" in body
        status, _ = http(url + "/api/status")
        assert status == 200  # reading stays open
        status, _ = http(
            url + "/api/phase",
            {"phase": "command"},
            **{"X-CSRF-Token": token, "X-Access-Code": code},
        )
        assert status == 200
    finally:
        stop(process)
    assert process.returncode == 0


def test_serve_on_this_machine_prints_no_code() -> None:
    process = serve("--fps", "2")
    try:
        address = wait_for_line(process, "umpire: serving", 120)
        assert re.search(r"http://127\.0\.0\.1:\d+/", address)
    finally:
        stop(process)
    out = process.stdout.read() if process.stdout else ""
    assert "access code" not in address + out


@pytest.mark.parametrize("host", ["not a host!", "", "name.invalid"])
def test_serve_refuses_a_bad_host(host: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--host", host]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--host" in err


def test_a_spectators_questions_are_answered_but_never_written_to_the_log(
    client: FlaskClient,
) -> None:
    # Spectators could otherwise grow the log without end by asking again and again.
    lan = {"REMOTE_ADDR": "192.168.1.20"}
    path = "/api/resolve?action=measure&args=rifles,zouaves"
    spectator = client.get(path, environ_base=lan).get_json()
    assert spectator["distance"] and spectator["log_id"] is None
    assert client.get("/api/suggest", environ_base=lan).get_json()["log_id"] is None
    assert client.head(path, environ_base=lan, headers={"X-Access-Code": CODE}).status_code == 200
    # Even with the code, a GET is a read: the same answer, not written.
    with_code = client.get(path, environ_base=lan, headers={"X-Access-Code": CODE}).get_json()
    assert with_code == spectator
    question = {"action": "measure", "args": ["rifles", "zouaves"]}
    player = client.post("/api/resolve", json=question, headers=WITH_CODE, environ_base=lan)
    assert isinstance(player.get_json()["log_id"], int)
    # The same question on the same table again: the same row, not a new one.
    again = client.post("/api/resolve", json=question, headers=WITH_CODE, environ_base=lan)
    assert again.get_json()["log_id"] == player.get_json()["log_id"]
    log = client.get("/api/log").get_json()
    assert log["resolutions"] == 1 and log["scenes"] == 1


def _read_routes(app: Flask) -> list[str]:
    """A GET of every read route of the app (with arguments where it needs them)."""
    filled = {
        "/api/resolve": "/api/resolve?action=measure&args=rifles,zouaves",
        "/api/map.svg": "/api/map.svg?select=rifles&target=zouaves",
        "/snapshots/<path:name>": "/snapshots/20260101-000000-000.png",
        "/static/<path:filename>": "/static/app.js",
    }
    paths = []
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.rule in ("/events", "/stream.mjpg"):
            continue
        paths.append(filled.get(rule.rule, rule.rule))
    return sorted(paths)


VOLATILE = ("fps", "updated", "frame", "scan_ms", "dropped_frames", "created", "started")


def _steady(body: Any) -> Any:
    """A JSON answer without what changes from one moment to the next (frames a second, the
    clock), so two answers a moment apart can be compared."""
    if isinstance(body, dict):
        return {k: _steady(v) for k, v in body.items() if k not in VOLATILE}
    if isinstance(body, list):
        return [_steady(v) for v in body]
    return body


def test_no_read_route_answers_differently_to_a_right_and_a_wrong_code(
    app: Flask, client: FlaskClient
) -> None:
    # A guesser must learn nothing from a read: every GET route answers a wrong code exactly
    # as it answers the right one (and as it answers no code at all).
    routes = _read_routes(app)
    assert len(routes) >= 10 and "/api/state" in routes and "/api/log" in routes
    lan = {"REMOTE_ADDR": "192.168.1.40"}
    for path in routes:
        answers = []
        for headers in ({"X-Access-Code": CODE}, {"X-Access-Code": "1111-1111"}, {}):
            response = client.get(path, headers=headers, environ_base=lan)
            app.extensions["umpire-guard"] = security.CodeGuard()  # never locked out here
            body = response.get_json() if response.is_json else response.data
            answers.append((response.status_code, _steady(body)))
        assert answers[0] == answers[1] == answers[2], path


@pytest.mark.parametrize(
    "method, path",
    [
        ("GET", "/api/status"),
        ("GET", "/api/state"),
        ("GET", "/api/resolve?action=measure&args=rifles,zouaves"),
        ("GET", "/api/log"),
        ("GET", "/no/such/route"),
        ("POST", "/api/access-check"),
        ("POST", "/api/resolve"),
        ("POST", "/api/state/undo"),
    ],
)
def test_wrong_codes_on_every_route_count_toward_one_slow_down(
    app: Flask, client: FlaskClient, method: str, path: str
) -> None:
    # Wrong codes sent with reads, changes and unknown routes alike add up for one address:
    # after the free tries the address is locked out everywhere, a change included.
    clock = Clock()
    app.extensions["umpire-guard"] = security.CodeGuard(clock)
    guesser = {"REMOTE_ADDR": "192.168.1.50"}
    wrong = {**CSRF, "X-Access-Code": "1111-1111"}
    reads = ["/api/status", "/api/state", "/api/log", "/api/scene"]
    for i in range(security.FREE_TRIES):  # the free tries, spent on reads
        client.get(reads[i % len(reads)], headers=wrong, environ_base=guesser)
    client.open(
        path,
        method=method,
        headers=wrong,
        json={} if method == "POST" else None,
        environ_base=guesser,
    )
    # That one wrong code more, on this route, locked the address: the next guess anywhere is
    # refused before its code is looked at.
    locked = client.post("/api/access-check", json={}, headers=WITH_CODE, environ_base=guesser)
    refusal(locked, 429, "too many wrong access codes")
    locked = client.get("/api/status", headers=wrong, environ_base=guesser)
    refusal(locked, 429, "too many wrong access codes")
    # Another address is not affected; this address may read without a code meanwhile.
    assert client.get("/api/status", environ_base=OTHER_SPECTATOR).status_code == 200
    assert client.get("/api/status", environ_base=guesser).status_code == 200
    clock.now += 2.0
    ok = client.post("/api/access-check", json={}, headers=WITH_CODE, environ_base=guesser)
    assert ok.status_code == 200


def test_this_machine_is_never_slowed_down_by_wrong_codes(client: FlaskClient) -> None:
    # Ten wrong codes from this machine: each refused 403, none locked out with 429, and the
    # right code still goes through.
    headers = {"X-CSRF-Token": TOKEN, "X-Access-Code": "0000-0000"}
    for _ in range(10):
        assert client.post("/api/access-check", json={}, headers=headers).status_code == 403
    headers["X-Access-Code"] = CODE
    assert client.post("/api/access-check", json={}, headers=headers).status_code == 200
