"""LAN safety for `umpire serve`: who may change the game, and who may only watch.

On a club's wifi anyone can open the page. Reading stays open to all of them (spectators see
the table and the answers); changing the game (a phase, a snapshot, a confirmed result) needs:

- the CSRF token (`X-CSRF-Token`, the page's `<meta name="csrf-token">`, one random value per
  server start), so that another web site open in a player's browser cannot post for them; a
  request whose `Origin` is not this server's own is refused too;
- when the server listens beyond this machine (`ACCESS_CODE` is set), the access code printed at
  start-up (`X-Access-Code`). Wrong codes slow the sender down: FREE_TRIES free guesses per
  address, then a lock that doubles with each further wrong code. Every request that carries a
  code counts, whatever its route and method (a read too, `/api/access-check` too), and a read
  answers the same to a right and a wrong code: only a change tells them apart, and changes are
  what the lock slows down;
- on every request, a `Host` that is an IP address, `localhost` or a name the server was told
  (`ALLOWED_HOSTS`): a web page cannot then reach this server through a DNS name of its own
  that points here (DNS rebinding), which would make it "same origin" and able to read the
  token.

The QR code of the page's address with the code (`GET /api/access-qr.svg`) is given only to the
server's own machine, where the operator shows it to the players.

This module imports flask and segno; never cv2, vision or rules.
"""

from __future__ import annotations

import contextlib
import hmac
import io
import ipaddress
import re
import secrets
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

import segno
from flask import Blueprint, Flask, Response, abort, current_app, request
from flask.typing import ResponseReturnValue

CSRF_HEADER: Final = "X-CSRF-Token"
CODE_HEADER: Final = "X-Access-Code"
STATE_CHANGING: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})

CODE_DIGITS: Final = 8
"""An access code is 8 digits read aloud as two groups of four ("4829-1530"): 10^8 codes. With
FREE_TRIES and the doubling lock below, one address gets about 5 + 12 * 24 = 293 guesses a day,
a chance of 3 in a million of finding the code in a day."""
FREE_TRIES: Final = 5
LOCK_FIRST_S: Final = 1.0
LOCK_MAX_S: Final = 300.0
GUARD_ADDRESSES: Final = 4096
"""The most addresses the guard remembers (the oldest are forgotten first)."""
STREAMED_BODY_DRAIN_BYTES: Final = 1024 * 1024
"""How much of a too-large chunked body is read and dropped before the 413 goes out, so the
client sees the answer rather than a reset connection; a longer one is cut off there."""

_HOSTNAME: Final = re.compile(
    r"(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(?:\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?", re.IGNORECASE
)

security = Blueprint("security", __name__)


class HostError(ValueError):
    """A `--host` that is neither an IP address nor a name this machine can resolve."""


# --------------------------------------------------------------------------------- secrets


def new_csrf_token() -> str:
    """A fresh CSRF token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def new_access_code() -> str:
    """A fresh access code, easy to read aloud: two groups of four digits, "4829-1530"."""
    digits = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
    return f"{digits[:4]}-{digits[4:]}"


def _same_secret(sent: str, expected: str) -> bool:
    """Constant-time comparison; any text (non-ASCII too) is compared as UTF-8 bytes."""
    return hmac.compare_digest(sent.encode("utf-8", "replace"), expected.encode("utf-8", "replace"))


def code_matches(sent: str, code: str) -> bool:
    """Whether a typed code is the access code: spaces and hyphens do not count ("4829 1530",
    "48291530" and "4829-1530" are the same code)."""

    def bare(text: str) -> str:
        return "".join(text.split()).replace("-", "")

    return _same_secret(bare(sent), bare(code))


# --------------------------------------------------------------------------------- addresses


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address a host or client address names, or None for a name."""
    bare = text.strip().removeprefix("[").removesuffix("]").split("%", 1)[0]
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def is_loopback(host: str | None) -> bool:
    """Whether an address (a bind address or a client's `remote_addr`) is this machine only:
    127.0.0.0/8, ::1 (also as ::ffff:127.x.x.x), or `localhost`."""
    if not host:
        return False
    name = host.strip().lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    address = _ip(name)
    return address is not None and address.is_loopback


def check_bind_host(host: str) -> bool:
    """Check a `--host`: True when it is loopback only (no access code needed), False when
    the server will be reachable from other machines. `HostError` for an address that is no
    IP address and no name this machine resolves."""
    if not host or not host.strip():
        raise HostError("--host is empty; accepted: an IP address (0.0.0.0, 192.168.1.20) or name")
    if _ip(host) is not None or is_loopback(host):
        return is_loopback(host)
    if not _HOSTNAME.fullmatch(host):
        raise HostError(
            f"--host {host!r} is not an IP address or a host name; accepted: 127.0.0.1 "
            "(this machine only, the default), 0.0.0.0 (every network), or one address"
        )
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise HostError(
            f"--host {host!r} does not resolve to an address of this machine; accepted: an IP "
            "address (0.0.0.0 for every network) or a name that resolves"
        ) from None
    return all(is_loopback(str(info[4][0])) for info in found)


def lan_address() -> str | None:
    """This machine's address on its local network, as another machine reaches it (the address
    its route to the outside leaves from: a UDP "connect" sends nothing). None offline."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached, only routed
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    return None if is_loopback(address) or address == "0.0.0.0" else address


def page_url(host: str, port: int) -> str:
    """The page's address as players type it: an "every network" bind (0.0.0.0, ::) is shown
    as this machine's LAN address."""
    address = _ip(host)
    if address is not None and address.is_unspecified:
        host = lan_address() or socket.gethostname()
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def host_names(host: str) -> list[str]:
    """The names a browser may use for this server beyond IP addresses and localhost: the
    `--host` itself when it is a name, and this machine's name (with its `.local` mDNS form)."""
    names = {socket.gethostname().lower()}
    names |= {f"{name.split('.')[0]}.local" for name in names}
    if _ip(host) is None:
        names.add(host.lower().rstrip("."))
    return sorted(names)


def _host_allowed(host_header: str, extra: Iterable[str]) -> bool:
    name = host_header.strip().lower()
    if name.startswith("["):  # [v6]:port
        name = name[1 : name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.rsplit(":", 1)[0]
    name = name.rstrip(".")
    return _ip(name) is not None or is_loopback(name) or name in set(extra)


# --------------------------------------------------------------------------------- the guard


@dataclass(slots=True)
class _Strikes:
    wrong: int
    locked_until: float


class CodeGuard:
    """Slows down anyone guessing the access code. Each address (an IPv6 client by its /64,
    since one machine may hold a whole /64) has FREE_TRIES wrong codes; each further wrong code
    locks it out for LOCK_FIRST_S, then twice as long as the last time, up to LOCK_MAX_S. While
    locked, its requests are refused before the code is even looked at. A right code clears it.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._strikes: OrderedDict[str, _Strikes] = OrderedDict()

    @staticmethod
    def key(remote_addr: str | None) -> str:
        address = _ip(remote_addr or "")
        if isinstance(address, ipaddress.IPv6Address):
            return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
        return str(address) if address is not None else (remote_addr or "?")

    def wait_s(self, remote_addr: str | None) -> float:
        """Seconds this address must still wait before its code is checked (0: none)."""
        with self._lock:
            strikes = self._strikes.get(self.key(remote_addr))
            return 0.0 if strikes is None else max(0.0, strikes.locked_until - self._clock())

    def attempt(self, remote_addr: str | None, *, right: bool, counted: bool = True) -> float:
        """One try at the code: the seconds this address must still wait (the try refused,
        not counted), else 0 with a right code clearing its strikes and a wrong one (when
        `counted`) adding one. All under one lock."""
        key = self.key(remote_addr)
        with self._lock:
            strikes = self._strikes.get(key)
            if strikes is not None and strikes.locked_until > self._clock():
                return strikes.locked_until - self._clock()
            if right:
                self._strikes.pop(key, None)
            elif counted:
                self._count(key)
            return 0.0

    def _count(self, key: str) -> None:
        strikes = self._strikes.pop(key, None) or _Strikes(0, 0.0)
        strikes.wrong += 1
        beyond = strikes.wrong - FREE_TRIES
        if beyond > 0:
            lock = min(LOCK_MAX_S, LOCK_FIRST_S * 2.0 ** min(beyond - 1, 30))
            strikes.locked_until = self._clock() + lock
        self._strikes[key] = strikes
        while len(self._strikes) > GUARD_ADDRESSES:
            self._strikes.popitem(last=False)

    def failed(self, remote_addr: str | None) -> None:
        """One more wrong code from this address."""
        key = self.key(remote_addr)
        with self._lock:
            self._count(key)

    def passed(self, remote_addr: str | None) -> None:
        """A right code: this address starts afresh."""
        with self._lock:
            self._strikes.pop(self.key(remote_addr), None)


def _guard() -> CodeGuard:
    guard = current_app.extensions["umpire-guard"]
    assert isinstance(guard, CodeGuard)
    return guard


# --------------------------------------------------------------------------------- the check


def _refuse(
    status: int, message: str, needs: str, headers: dict[str, str] | None = None
) -> ResponseReturnValue:
    """A refusal as JSON; `needs` tells the page what to ask for ("access-code", ...)."""
    return {"error": message, "needs": needs}, status, headers or {}


def _own_origin() -> str:
    return f"{request.scheme}://{request.host}".lower()


def check_request() -> ResponseReturnValue | None:
    """Runs before every view. None lets the request through; otherwise the refusal."""
    config = current_app.config
    if not _host_allowed(request.host, config.get("ALLOWED_HOSTS") or ()):
        return _refuse(
            400,
            f"unknown host name {request.host!r}; accepted: this server's IP address, localhost, "
            f"or {', '.join(config.get('ALLOWED_HOSTS') or ()) or 'no other name'}",
            "host",
        )
    limit = config.get("MAX_CONTENT_LENGTH")
    if limit is not None and (request.content_length or 0) > limit:
        abort(413)  # before any body is read; the app's handler words it as JSON
    if limit is not None and _streamed_body(request.environ):
        _read_streamed_body(request.environ, limit)
    code = config.get("ACCESS_CODE")
    sent = request.headers.get(CODE_HEADER)
    right = False
    if code is not None and sent is not None:
        # Any request carrying a code is a guess, counted before anything else is looked at.
        right = code_matches(sent, str(code))
        refusal = _slowed(right)
        if refusal is not None:
            return refusal
    if request.method not in STATE_CHANGING or request.routing_exception is not None:
        return None  # reads are open, whatever code they carry; a 404 or 405 changes nothing
    if not _same_secret(request.headers.get(CSRF_HEADER, ""), str(config["CSRF_TOKEN"])):
        return _refuse(
            403,
            f"a change needs the {CSRF_HEADER} header of this server's page (reload the page)",
            "csrf",
        )
    origin = request.headers.get("Origin")
    if origin is not None and origin.rstrip("/").lower() != _own_origin():
        return _refuse(
            403, f"a change must come from this server's own page, not from {origin!r}", "origin"
        )
    if code is None or right:
        return None
    what = "a wrong access code" if sent is not None else f"no {CODE_HEADER} header"
    return _refuse(
        403,
        f"this change needs the access code printed when the server started ({what}); "
        "spectators may only watch",
        "access-code",
    )


def _streamed_body(environ: dict[str, Any]) -> bool:
    """A body sent without a Content-Length (`Transfer-Encoding: chunked`) that the server ends
    for us (`wsgi.input_terminated`, set by werkzeug's server for chunked requests). Without
    that flag werkzeug hands the views an empty body and there is nothing to read."""
    return (
        request.content_length is None
        and "HTTP_TRANSFER_ENCODING" in environ
        and "wsgi.input_terminated" in environ
    )


def _read_streamed_body(environ: dict[str, Any], limit: int) -> None:
    """Read a streamed body here, at most `limit` + 1 bytes: more than `limit` is a 413 like a
    Content-Length over it. (Left to werkzeug, reading stops at the limit without saying the
    body went on, and the views get JSON cut short: a 400 naming the wrong fault.) A body within
    the limit is handed on to the views from memory."""
    stream = environ["wsgi.input"]
    try:
        body = _read_at_most(stream, limit + 1)
    except (OSError, ValueError) as error:  # a broken chunk header, a client gone
        abort(
            400,
            description=f"the request body could not be read ({error}); accepted: "
            "a JSON body with a Content-Length or in well-formed chunks",
        )
    if len(body) > limit:
        # What follows is read and dropped (up to a bound), so that the client, still sending,
        # reads the 413 instead of a connection reset by a socket closed with data unread.
        with contextlib.suppress(OSError, ValueError):
            _read_at_most(stream, STREAMED_BODY_DRAIN_BYTES)
        abort(413)
    environ["wsgi.input"] = io.BytesIO(body)


def _read_at_most(stream: Any, size: int) -> bytes:
    """Up to `size` bytes of `stream`, fewer only at its end (a read may give less than asked)."""
    parts: list[bytes] = []
    left = size
    while left > 0:
        part = stream.read(min(left, 64 * 1024))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _slowed(right: bool) -> ResponseReturnValue | None:
    """Count one try at the code from this request's address: a 429 while the address is
    locked out, else None (a right code clears its strikes, a wrong one adds one)."""
    who = request.remote_addr
    # This machine is never slowed down (a guesser on the club's wifi must not lock the
    # operator out); elsewhere the lock is looked at and a wrong code counted in one step, so
    # parallel guesses cannot all slip past the check.
    wait = 0.0 if is_loopback(who) else _guard().attempt(who, right=right)
    if wait <= 0:
        return None
    seconds = max(1, round(wait + 0.5))
    return _refuse(
        429,
        f"too many wrong access codes from {who}; try again in {seconds} s",
        "access-code",
        {"Retry-After": str(seconds)},
    )


SECURITY_HEADERS: Final = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Content-Security-Policy": "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    ),
}


def add_security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def install(app: Flask) -> None:
    """Wire the check, the headers and the QR route into `app` (called by `create_app`)."""
    app.extensions["umpire-guard"] = CodeGuard()
    app.before_request(check_request)
    app.after_request(add_security_headers)
    app.register_blueprint(security)


# --------------------------------------------------------------------------------- the page


def the_page_url() -> str:
    """The page's address for players: `PUBLIC_URL` (set by `umpire serve`), else this
    request's own."""
    return str(current_app.config.get("PUBLIC_URL") or request.host_url)


def join_url_for(page: str, code: str) -> str:
    """A page address with the access code, which the page reads and keeps for the session."""
    return f"{page.rstrip('/')}/?code={quote(code)}"


def join_url() -> str | None:
    """This server's page address with its access code, as the QR code carries it (None: no
    code to carry)."""
    code = current_app.config.get("ACCESS_CODE")
    return None if code is None else join_url_for(the_page_url(), str(code))


def page_secrets() -> dict[str, Any]:
    """What a served page carries for its scripts: the CSRF token, whether changes need the
    access code and, on the server's own machine only, the code itself and the page address
    that carries it (so the operator never types it). Both change with each start: a page
    carrying them is never cached."""
    code = current_app.config.get("ACCESS_CODE")
    local = is_loopback(request.remote_addr)
    return {
        "csrf_token": current_app.config["CSRF_TOKEN"],
        "code_needed": code is not None,
        "access_code": code if local else None,
        "join_url": join_url() if local else None,
    }


def qr_svg(text: str) -> str:
    """An SVG QR code of `text` (dark modules on white, 4 px a module)."""
    buffer = io.BytesIO()
    segno.make(text, error="m").save(
        buffer, kind="svg", scale=4, border=2, xmldecl=False, svgclass="qr", title=text
    )
    return buffer.getvalue().decode("utf-8")


@security.get("/api/access-qr.svg")
def access_qr() -> ResponseReturnValue:
    """The QR code that opens the page with the access code: for the server's own screen only."""
    if not is_loopback(request.remote_addr):
        return _refuse(
            403, "the access code's QR code is shown only on the server's own machine", "loopback"
        )
    url = join_url()
    if url is None:
        return _refuse(404, "no access code: this server listens only on this machine", "nothing")
    return Response(
        qr_svg(url),
        content_type="image/svg+xml; charset=utf-8",
        headers={"Cache-Control": "no-store"},
    )


@security.post("/api/access-check")
def access_check() -> ResponseReturnValue:
    """Changes nothing: a request that gets here passed the CSRF and access-code checks, so the
    page asks this to learn whether a typed code is right before it enables its controls."""
    return {"access": "granted", "code_needed": current_app.config.get("ACCESS_CODE") is not None}
