"""server.identity and server.limits: one browser across its tabs by a cookie the server signs, a client without
one counted by its address, and new cookies handed to an address at a bounded rate."""

from __future__ import annotations

import asyncio
import hashlib
import hmac

import pytest

from server import identity
from server.identity import COOKIE, BrowserCookie, browser_from, browser_id, new_cookie_value
from server.limits import Buckets


def test_a_cookie_the_server_signed_names_its_browser_and_a_made_up_one_names_none():
    value = new_cookie_value()
    assert browser_id(value) == value.split(".")[0]
    made_up = value.split(".")[0] + "." + "0" * 32
    assert browser_id(made_up) is None and browser_id("") is None and browser_id("a.b.c") is None
    assert browser_id(None) is None


def test_a_cookie_of_any_other_form_or_signed_for_another_use_names_no_browser_and_never_raises():
    """A review found that a signature with a non-ASCII character (a quoted cookie such as a."\\351") made
    hmac.compare_digest raise TypeError in every learner's gate, and that a seat token, signed with the same
    secret, could be reshaped into a cookie that passed, minting browsers past the issue rate."""
    value = new_cookie_value()
    browser, signature = value.split(".")
    for hostile in ("a.é", f"{browser}.{signature[:-1]}é", f"{browser.upper()}.{signature}", f" {value}",
                    f"{value}\n", "x" * 10_000, f"seat\nABCDEF\nbrowser:{browser}.{signature}"):
        assert browser_id(hostile) is None, hostile
    seat = hmac.new(identity.secret(), f"seat\nABCDEF\nbrowser:{browser}".encode(), hashlib.sha256).digest()
    assert browser_id(f"{browser}.{seat[:16].hex()}") is None        # a seat's MAC is no cookie signature
    plain = hmac.new(identity.secret(), browser.encode(), hashlib.sha256).hexdigest()[:32]
    assert browser_id(f"{browser}.{plain}") is None                  # nor is the id signed for no purpose


def test_tabs_with_one_cookie_are_one_browser_and_clients_without_one_are_their_address():
    value = new_cookie_value()
    tab1 = browser_from({COOKIE: value}, "10.0.0.5", None)
    tab2 = browser_from({COOKIE: value}, "10.0.0.5", None)
    assert tab1 == tab2 and tab1.has_cookie
    other = browser_from({COOKIE: new_cookie_value()}, "10.0.0.5", None)
    assert other.key != tab1.key
    forged = browser_from({COOKIE: "mine.0123"}, "10.0.0.5", None)
    assert forged.key == "address:10.0.0.5" and not forged.has_cookie


def test_x_forwarded_for_is_believed_only_behind_the_proxy_and_its_last_address_counts(monkeypatch):
    monkeypatch.delenv(identity.BEHIND_PROXY, raising=False)
    assert browser_from({}, "127.0.0.1", "6.6.6.6").key == "address:127.0.0.1"   # a client's own header
    monkeypatch.setenv(identity.BEHIND_PROXY, "1")
    assert browser_from({}, "127.0.0.1", "6.6.6.6, 203.0.113.7").key == "address:203.0.113.7"


def test_buckets_give_a_burst_then_one_each_period():
    now = [0.0]
    buckets = Buckets(3, 2.0, clock=lambda: now[0])
    assert [buckets.take("a") for _ in range(4)] == [True, True, True, False]
    assert buckets.take("b")                              # another key has its own
    assert buckets.wait_for("a") == pytest.approx(2.0)
    now[0] = 2.0
    assert buckets.take("a") and not buckets.take("a")


def page_response(middleware, path="/", cookie: str | None = None, client=("198.51.100.1", 5000)) -> list:
    """The headers the middleware's app sends for one request."""
    sent = []

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": b"<html></html>"})

    async def send(message):
        sent.append(message)

    headers = [(b"cookie", f"{COOKIE}={cookie}".encode())] if cookie else []
    scope = {"type": "http", "method": "GET", "path": path, "headers": headers, "client": client}
    asyncio.run(middleware(app)(scope, None, send))
    return [v.decode() for k, v in sent[0]["headers"] if k == b"set-cookie"]


def test_a_page_sets_the_cookie_once_and_files_and_the_health_check_never(monkeypatch):
    monkeypatch.setattr(identity, "_ISSUED", Buckets(100, 1.0))
    [set_cookie] = page_response(BrowserCookie)
    value = set_cookie.split(";")[0].split("=", 1)[1]
    assert browser_id(value) and "HttpOnly" in set_cookie and "SameSite=Lax" in set_cookie
    assert page_response(BrowserCookie, "/attention", cookie=value) == []            # already has one
    assert page_response(BrowserCookie, "/_stcore/health") == []
    assert page_response(BrowserCookie, "/static/js/index.js") == []


def test_an_address_is_handed_new_cookies_at_a_bounded_rate(monkeypatch):
    monkeypatch.setattr(identity, "_ISSUED", Buckets(identity.ISSUE_BURST, 3600.0))
    given = [bool(page_response(BrowserCookie)) for _ in range(identity.ISSUE_BURST + 5)]
    assert given == [True] * identity.ISSUE_BURST + [False] * 5
    assert page_response(BrowserCookie, client=("192.0.2.9", 1)) != []   # another address is not slowed
