"""Where a phone can reach the app: the address a class's join link and QR code carry.

A teacher who opens the app as http://127.0.0.1:8501 or http://localhost:8501 (the way `streamlit run` and
scripts/serve.sh print it) would hand out a link that every phone resolves to itself. So the link is built from
EXPLORER_PUBLIC_URL when it is set; else from the browser's address when that is not this machine's loopback;
else from this machine's address on its network, when the server listens there too. Otherwise the link is
the browser's own, and says why a phone cannot open it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

PUBLIC_URL_ENV = "EXPLORER_PUBLIC_URL"
ALL_ADDRESSES = ("", "0.0.0.0", "::")   # what a server told to listen on every interface was given


@dataclass(frozen=True)
class JoinBase:
    url: str            # scheme://host[:port][/path], no trailing slash
    reachable: bool     # whether a phone on the network could open it, as far as this server can tell
    note: str           # for the teacher: where the address came from, or why a phone cannot open it


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost names: this machine, to whoever opens them."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def network_address() -> str | None:
    """This machine's address on the network its default route leaves by (a UDP socket's connect sends
    nothing), or None when it has none but loopback."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("198.51.100.1", 9))    # TEST-NET-2: the route is looked up, nothing is sent
            found = probe.getsockname()[0]
        except OSError:
            return None
    return None if is_loopback(found) or found == "0.0.0.0" else found


def _with_host(parts, host: str) -> str:
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}"


def join_base(browser_url: str, public_url: str | None, listening_on: str | None,
              find_address: Callable[[], str | None] = network_address) -> JoinBase:
    """The base of a class's links. `browser_url`: the page's address as the teacher's browser sees it;
    `public_url`: EXPLORER_PUBLIC_URL; `listening_on`: the address the server (or the proxy in front of it) was
    told to listen on ('' or 0.0.0.0: every interface)."""
    if public_url:
        parts = urlsplit(public_url.strip())
        if parts.scheme in ("http", "https") and parts.hostname:
            url = f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"
            if is_loopback(parts.hostname):
                return JoinBase(url, False, f"{PUBLIC_URL_ENV} is {url}, which names the server's own machine: "
                                            "a phone opens itself there. Set it to the address the room can reach.")
            return JoinBase(url, True, f"The link uses {PUBLIC_URL_ENV}, {url}.")
        bad = f"{PUBLIC_URL_ENV} ({public_url!r}) is not an http:// or https:// address, so it is not used. "
    else:
        bad = ""
    parts = urlsplit(browser_url or "http://localhost:8501/")
    own = f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"
    if not is_loopback(parts.hostname or "localhost"):
        return JoinBase(own, True, bad + f"The link uses the address this browser opened, {own}.")
    everywhere = (listening_on or "") in ALL_ADDRESSES
    address = find_address() if everywhere else None
    if address:
        lan = _with_host(parts, address)
        return JoinBase(lan, True, bad + f"This browser opened the app as {parts.hostname}, which a phone takes "
                                         f"for itself, so the link uses this computer's network address, {lan}. "
                                         "Phones must be on the same network.")
    why = ("the server listens on this computer only" if not everywhere else
           "this computer has no network address but its own")
    return JoinBase(own, False, bad + f"A phone cannot open {own}: {parts.hostname} is this computer itself, and "
                                      f"{why}. Start the app with --server.address 0.0.0.0, or set "
                                      f"{PUBLIC_URL_ENV} to the address the room can reach.")
