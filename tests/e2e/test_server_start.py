"""`streamlit run app.py` serves the app through st.App (app.py), whose lifespan warms the server up before any learner
arrives (explorer/warmup.py): torch imported, the shown model loaded and run once; with no page opened, the other
two bundled models and every page's modules follow after 3 s. Measured by `python -m benchmarks.browser_latency
--first-visits` (docs/benchmarks.md)."""

from __future__ import annotations

import ast
import asyncio
import gzip
import json
import re
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import streamlit

from drivers.harness import ROOT, start_server, stop_server
from drivers.protocol_session import ProtocolSession

READY_WITHIN = 180   # seconds: a wait for the warm-up, not a time limit on it (the machine may be busy)


def warm_up_status(url: str) -> dict:
    with urllib.request.urlopen(f"{url}/api/warm-up", timeout=10) as response:
        return json.load(response)


def test_a_fresh_server_warms_up_before_any_session_and_its_first_page_answers(chromium_path):
    process, url = start_server("e2e-server-start.log")
    try:
        deadline = time.monotonic() + READY_WITHIN
        status = warm_up_status(url)
        while not status["done"] and time.monotonic() < deadline:
            time.sleep(0.25)
            status = warm_up_status(url)
        assert status == {"models": ["reverse", "copy", "sort"], "pages_imported": True, "done": True}
        maps = Path(f"/proc/{process.pid}/maps").read_text()
        assert "libtorch_cpu" in maps          # torch loaded in the server with no session ever opened
        assert "httptools" in maps and "uvloop" in maps   # Streamlit's "performance" extra: uvicorn chose both

        async def first_page():
            session = ProtocolSession(url, "", "text=warm")
            answer = await session.open()
            await session.close()
            return answer

        with ThreadPoolExecutor(1) as pool:   # the sync Playwright of the other tests owns this thread's loop
            answer = pool.submit(asyncio.run, first_page()).result()
        assert not answer.exceptions
        assert answer.model_writes == "mraw"
    finally:
        stop_server(process)


def fetch(url: str) -> tuple[bytes, dict]:
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read(), {k.lower(): v for k, v in response.headers.items()}


def test_every_page_asks_the_browser_for_its_elements_code_at_once_and_nothing_else_changes():
    """server.middleware's ElementCodeFirst: the HTML of / and of any page's path imports the code of the elements the pages
    draw (one file per name in server.middleware.ELEMENT_CODE, in this Streamlit's build), each served; a script file itself is
    served as it is on disk. A page's HTML compressed by Streamlit could not be read: it asks for none."""
    names = next(ast.literal_eval(node.value) for node in ast.parse((ROOT / "server" / "middleware.py").read_text()).body
                 if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "ELEMENT_CODE")
    static = Path(streamlit.__file__).parent / "static"
    process, url = start_server("e2e-element-code.log")
    try:
        imported = set()
        for path in ("/", "/decode", "/attention?text=abc&kind=cross"):
            html, headers = fetch(url + path)
            assert "content-encoding" not in headers and headers["content-type"].startswith("text/html")
            assert int(headers["content-length"]) == len(html)
            script = re.search(rb'<script type="module">for \(const f of \[(.*?)\]\) import\(f\)', html)
            assert script, path
            assert html.index(script.group(0)) < html.index(b"</head>")
            files = re.findall(rb'"\./static/js/([^"]+)"', script.group(1))
            imported.add(tuple(files))
        assert len(imported) == 1
        assert [f.decode().split(".")[0] for f in files] == list(names)     # one file each, in order
        for f in files:
            body, headers = fetch(f"{url}/static/js/{f.decode()}")
            assert headers["content-type"].startswith(("application/javascript", "text/javascript"))
            assert body == (static / "static" / "js" / f.decode()).read_bytes()
        index = (static / "index.html").read_bytes()
        part = index.index(b"</head>") + 20
        page_part = urllib.request.Request(url + "/decode", headers={"Range": f"bytes=0-{part - 1}"})
        with urllib.request.urlopen(page_part) as response:   # a part of a page is Streamlit's, unchanged
            assert response.status == 206 and response.read() == index[:part]
        html, _ = fetch(url + "/")   # the script is all that changed
        assert re.sub(rb'<script type="module">for .*?</script>', b"", html) == index
        body, headers = fetch(f"{url}/api/warm-up")   # not a page: left as the route answered
        assert "models" in json.loads(gzip.decompress(body) if headers.get("content-encoding") == "gzip" else body)
    finally:
        stop_server(process)


def test_streamlits_own_files_are_answered_from_memory_as_streamlit_answers_them():
    """server.middleware's HashedFilesFromMemory: the same bytes, content type and year-long caching as Streamlit's handler
    (which still answers HEAD and range requests); a path that is not one of its files is left to Streamlit."""
    static = Path(streamlit.__file__).parent / "static" / "static"
    process, url = start_server("e2e-static-files.log")
    try:
        for name in ("js/" + next(p.name for p in (static / "js").glob("index.*.js")),
                     "css/" + next(p.name for p in (static / "css").glob("*.css")),
                     "media/" + next(p.name for p in (static / "media").glob("*.woff2"))):
            body, headers = fetch(f"{url}/static/{name}")
            assert body == (static / name).read_bytes()
            with urllib.request.urlopen(urllib.request.Request(f"{url}/static/{name}", method="HEAD")) as response:
                streamlits = {k.lower(): v for k, v in response.headers.items()}
            assert "etag" in streamlits      # the HEAD was Streamlit's own answer
            for header in ("content-type", "content-length", "cache-control"):
                assert headers[header] == streamlits[header], (name, header)
            assert "etag" not in headers     # and the GET was not
            ranged = urllib.request.Request(f"{url}/static/{name}", headers={"Range": "bytes=0-9"})
            with urllib.request.urlopen(ranged) as response:
                assert response.status == 206 and response.read() == body[:10]
            checking = urllib.request.Request(f"{url}/static/{name}", headers={"If-None-Match": streamlits["etag"]})
            try:
                urllib.request.urlopen(checking)
            except urllib.error.HTTPError as error:   # a browser checking its copy: Streamlit's 304
                assert error.code == 304
            else:
                raise AssertionError("a conditional request was answered in full")
        try:
            urllib.request.urlopen(f"{url}/static/js/../../index.html")
        except urllib.error.HTTPError as error:
            assert error.code in (400, 404)
        else:
            raise AssertionError("a path outside Streamlit's files was answered")
    finally:
        stop_server(process)
