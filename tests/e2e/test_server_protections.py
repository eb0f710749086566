"""The server keeps Streamlit's protections on: XSRF and CORS, an upload limit that matches the one
checkpoint zip the app accepts (checkpoint.MAX_UPLOAD_BYTES), and exceptions shown without their details; and
closes requests whose headers never finish."""

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from transformer.checkpoint import MAX_UPLOAD_BYTES

from drivers.harness import ROOT
from server.header_timeout import HEADER_SECONDS


def effective_config() -> str:
    return subprocess.run([sys.executable, "-m", "streamlit", "config", "show"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


def test_xsrf_and_cors_protection_stay_on():
    config = effective_config()
    assert "enableXsrfProtection = true" in config
    assert "enableCORS = true" in config
    assert f"maxUploadSize = {MAX_UPLOAD_BYTES // 2**20}\n" in config


def test_an_uncaught_exception_shows_its_type_alone():
    """client.showErrorDetails = "type": no message or traceback, which name the server's files, reaches a learner."""
    assert 'showErrorDetails = "type"\n' in effective_config()


def test_the_running_server_refuses_requests_without_the_xsrf_token_and_foreign_origins(server):
    with urllib.request.urlopen(f"{server}/_stcore/health") as response:
        cookies = response.headers.get_all("Set-Cookie") or []
    assert any(c.startswith("_streamlit_xsrf=") for c in cookies), cookies
    upload = urllib.request.Request(f"{server}/_stcore/upload_file/session/file", data=b"x", method="PUT")
    try:
        urllib.request.urlopen(upload)
        status = 200
    except urllib.error.HTTPError as err:
        status = err.code
    assert status == 403  # a write without the XSRF token is refused
    foreign = urllib.request.Request(f"{server}/_stcore/host-config", headers={"Origin": "http://elsewhere.example"})
    with urllib.request.urlopen(foreign) as response:
        assert response.headers.get("Access-Control-Allow-Origin") in (None, "")


def test_requests_whose_headers_never_finish_are_closed_and_the_server_still_answers(server):
    """Slowloris (issue 63): with no HAProxy in front, the server closes a request whose headers have not arrived
    within header_timeout.HEADER_SECONDS (uvicorn alone waited for ever: 0 of 200 closed after 40 s)."""
    host, port = server.removeprefix("http://").split(":")
    slow = []
    for _ in range(20):
        sock = socket.create_connection((host, int(port)))
        sock.sendall(b"GET / HTTP/1.1\r\nHost: slow\r\n")          # and never the blank line that ends them
        slow.append(sock)
    time.sleep(HEADER_SECONDS + 3)
    closed = 0
    for sock in slow:
        sock.settimeout(2)
        try:
            closed += sock.recv(1024) == b""
        except OSError:
            pass
        sock.close()
    assert closed == len(slow)
    with urllib.request.urlopen(f"{server}/_stcore/health") as response:
        assert response.status == 200
