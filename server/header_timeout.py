"""A request whose headers do not arrive within HEADER_SECONDS is closed, when no proxy in front does it.

Uvicorn (Streamlit's server) waits for a request's headers for ever: 200 connections sending a header every 10 s
were all still open after 40 s (issue 63, slowloris). Behind HAProxy its `timeout http-request 10s` closes them
first (scripts/serve.sh); served alone by `streamlit run`, the server does it here, in uvicorn's httptools
protocol (requirements.txt installs httptools, so uvicorn's "auto" picks it): a timer armed when a connection is
made and when each request's first byte arrives, and disarmed once its headers are complete.
"""

from __future__ import annotations

import os

from .identity import BEHIND_PROXY

HEADER_SECONDS = 10.0    # as HAProxy's timeout http-request in scripts/serve.sh


def install(seconds: float = HEADER_SECONDS) -> bool:
    """Patch uvicorn's httptools protocol once per process, unless a proxy in front times headers; whether the
    patch is in place."""
    if os.environ.get(BEHIND_PROXY):
        return False
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    if getattr(HttpToolsProtocol.connection_made, "times_headers", False):
        return True
    made, begun, complete = (HttpToolsProtocol.connection_made, HttpToolsProtocol.on_message_begin,
                             HttpToolsProtocol.on_headers_complete)

    def arm(protocol) -> None:
        disarm(protocol)
        protocol._headers_timer = protocol.loop.call_later(seconds, close_unless_headers, protocol)

    def disarm(protocol) -> None:
        timer = getattr(protocol, "_headers_timer", None)
        if timer is not None:
            timer.cancel()
            protocol._headers_timer = None

    def close_unless_headers(protocol) -> None:
        protocol._headers_timer = None
        if not protocol.transport.is_closing():
            protocol.transport.close()

    def connection_made(self, transport) -> None:
        made(self, transport)
        arm(self)

    def on_message_begin(self) -> None:
        begun(self)
        arm(self)

    def on_headers_complete(self) -> None:
        disarm(self)
        complete(self)

    connection_made.times_headers = True
    HttpToolsProtocol.connection_made = connection_made
    HttpToolsProtocol.on_message_begin = on_message_begin
    HttpToolsProtocol.on_headers_complete = on_headers_complete
    return True
