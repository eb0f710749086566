"""Who is asking: one browser across all its tabs, or, for a client without the browser's cookie, its address.

Streamlit gives every tab a session of its own, so budgets counted per session let one person with ten tabs be
ten learners (issue 63). The server sets a signed cookie on every page it serves (BrowserCookie, an ASGI
middleware in app.py); the tabs of one browser send it with their websocket, so they share one key. A client that
sends no cookie, or one the server did not sign, is counted by its address: behind HAProxy (scripts/serve.sh sets
EXPLORER_BEHIND_PROXY) the address HAProxy appended to X-Forwarded-For, else the connection's own. New cookies are
handed out to an address at most ISSUE_BURST at once and one every ISSUE_EVERY seconds after that, so that a
script cannot mint a new browser for every tab faster than a class arrives; past that, its pages are served
without one, and it is counted by its address.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .limits import Buckets

COOKIE = "explorer_browser"
BEHIND_PROXY = "EXPLORER_BEHIND_PROXY"   # set (to 1) when HAProxy is in front: trust the address it appends
SECRET_ENV = "EXPLORER_SECRET"          # the key cookies are signed with, shared by replicas on several hosts
SECRET_FILE = Path(__file__).resolve().parents[1] / "data" / "browser-key"   # else this, made once per host
ISSUE_BURST = 300        # new cookies one address may be given at once (a class behind one school router)...
ISSUE_EVERY = 1.0        # ...and then one each this many seconds
COOKIE_MAX_AGE = 365 * 24 * 3600
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Browser:
    """`key` names what budgets count: "browser:<id>" for a signed cookie, "address:<ip>" without one, and
    "session:<id>" where there is no connection at all (AppTest). `address` is the client's address."""
    key: str
    address: str

    @property
    def has_cookie(self) -> bool:
        return self.key.startswith("browser:")


_secret_lock = threading.Lock()
_secret: list[bytes] = []


def secret() -> bytes:
    with _secret_lock:
        if not _secret:
            given = os.environ.get(SECRET_ENV)
            if given:
                _secret.append(given.encode())
            else:
                SECRET_FILE.parent.mkdir(parents=True, exist_ok=True)
                try:   # the first replica to start writes it; the others read it
                    fd = os.open(SECRET_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with os.fdopen(fd, "w") as file:
                        file.write(secrets.token_hex(32))
                except FileExistsError:
                    pass
                _secret.append(SECRET_FILE.read_text().strip().encode())
        return _secret[0]


COOKIE_FORM = re.compile(r"([0-9a-f]{24})\.([0-9a-f]{32})")   # the browser's id, then its signature


def _signature(browser_id: str) -> str:
    """Signed under a purpose of its own: the seat tokens (classroom.codes) use the same secret, and a value
    signed for one use must never pass as the other."""
    return hmac.new(secret(), f"browser cookie\n{browser_id}".encode(), hashlib.sha256).hexdigest()[:32]


def new_cookie_value() -> str:
    browser_id = secrets.token_hex(12)
    return f"{browser_id}.{_signature(browser_id)}"


def browser_id(cookie_value: str | None) -> str | None:
    """The browser's id if the cookie is one this server signed, else None: anything but 24 and 32 lowercase hex
    digits is refused before it is compared (a non-ASCII signature made hmac.compare_digest raise)."""
    found = COOKIE_FORM.fullmatch(cookie_value) if isinstance(cookie_value, str) else None
    if found is None:
        return None
    browser, signature = found.groups()
    return browser if hmac.compare_digest(signature.encode(), _signature(browser).encode()) else None


def address_from(peer: str | None, forwarded_for: str | None) -> str:
    """The client's address: behind the proxy, the last address in X-Forwarded-For (HAProxy appends the one it
    saw, so a value the client sent itself comes before it); else the connection's."""
    if os.environ.get(BEHIND_PROXY) and forwarded_for:
        return forwarded_for.split(",")[-1].strip() or UNKNOWN
    return peer or UNKNOWN


def browser_from(cookies, peer: str | None, forwarded_for: str | None) -> Browser:
    address = address_from(peer, forwarded_for)
    found = browser_id(cookies.get(COOKIE))
    return Browser(f"browser:{found}" if found else f"address:{address}", address)


_ISSUED = Buckets(ISSUE_BURST, ISSUE_EVERY)


def may_issue(address: str) -> bool:
    """Whether a new cookie may be handed to this address now (and counted if so)."""
    return _ISSUED.take(address)


def is_page_request(scope) -> bool:
    """A GET of one of the app's pages (Streamlit's index.html, served for / and every page's path), not of a file,
    an endpoint of Streamlit's or the app's, or the health check."""
    path = scope.get("path", "")
    return scope["type"] == "http" and scope["method"] == "GET" and "." not in path.rsplit("/", 1)[-1] and (
        not path.startswith(("/_stcore/", "/static/", "/media/", "/component/", "/api/")))


class BrowserCookie:
    """ASGI middleware: every page's HTML (not Streamlit's files, its endpoints or the health check) sets the
    browser's cookie when the request carries no valid one and its address may be given another."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if not is_page_request(scope):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        cookies = _parse_cookies(headers.get("cookie", ""))
        peer = scope.get("client")[0] if scope.get("client") else None
        if browser_id(cookies.get(COOKIE)) or not may_issue(address_from(peer, headers.get("x-forwarded-for"))):
            await self.app(scope, receive, send)
            return
        cookie = (f"{COOKIE}={new_cookie_value()}; Path=/; Max-Age={COOKIE_MAX_AGE}; HttpOnly; SameSite=Lax"
                  ).encode("latin-1")

        async def with_cookie(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, with_cookie)


def _parse_cookies(header: str) -> dict[str, str]:
    found = {}
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name:
            found[name] = value
    return found


def browser_of_session(session_id: str) -> Browser:
    """The browser behind a connected session, read from its websocket's handshake; a session with no connection
    (AppTest's, or one that has gone) is its own."""
    from streamlit.runtime import Runtime
    client = Runtime.instance().get_client(session_id) if Runtime.exists() else None
    context = getattr(client, "client_context", None)
    if not isinstance(getattr(context, "cookies", None), Mapping):   # none, or AppTest's mock of a runtime
        return Browser(f"session:{session_id}", UNKNOWN)
    forwarded = ",".join(v for k, v in context.headers if k.lower() == "x-forwarded-for") or None
    return browser_from(context.cookies, context.remote_ip, forwarded)


def current() -> Browser:
    """The browser of the session whose script is running (a session of its own outside any run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    return browser_of_session(ctx.session_id if ctx is not None else "no session")
