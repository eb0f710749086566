"""Two ASGI middlewares around Streamlit's own HTTP answers: the code of the elements a page draws at once loaded
with the page (ElementCodeFirst), and Streamlit's hashed build files answered from memory (HashedFilesFromMemory).
Both read Streamlit's build (its index.html, the names of its files under static/): an upgrade that renames a
module leaves ElementCodeFirst with nothing to load, which tests/unit/test_server_contracts.py catches."""

import mimetypes
import re
from pathlib import Path

import streamlit as st

from server.identity import is_page_request


# Streamlit's browser code loads each element's code (a file whose name carries a content hash) only when a first
# element of its kind arrives; React then holds the page back until every such file is loaded and run. On a cold
# start the home page waited for them between its run's end and its answer drawn (DataFrame and its Arrow
# formatting, KaTeX, the widgets); loading these first halves that wait (benchmarks.browser_latency).
ELEMENT_CODE = ("Html", "TextInput", "ButtonGroup", "Checkbox", "PageLink", "Button", "Metric", "BidiComponent",
                "DataFrame", "rehype-katex")
# Code to load once the page's first run is drawn and the browser is idle: st.code's syntax highlighter (1.6 MB,
# every Prism language registered as it runs) held the browser's main thread 0.3-0.46 s the first time a document
# showed an st.code (a learner's text in full, the lesson's "What the model writes"): the lesson's → key from step 7
# to step 8 took 0.65 s, of which 0.46 s were the highlighter. Loaded with the page, it would hold back its first
# drawing as long; loaded in idle time, a learner waits for it only if they act in the half-second after the page
# is drawn.
CODE_WHEN_IDLE = ("StreamlitSyntaxHighlighter",)


STATIC = Path(st.__file__).parent / "static"   # Streamlit's build: index.html, and its files under static/


def element_code_files(modules: tuple[str, ...] = ELEMENT_CODE,
                       static_js: Path = STATIC / "static" / "js") -> list[str]:
    """The file of each module in this Streamlit's build (none for a name it no longer has)."""
    names = {p.name for p in static_js.glob("*.js")}
    return [f for name in modules for f in sorted(names) if re.fullmatch(rf"{re.escape(name)}\.[\w-]+\.js", f)]


# The page's first run drawn: an element in the main part of a page that is not running (before it connects, the
# app is "notRunning" too, with nothing in it)
FIRST_RUN_DRAWN = ("[data-testid='stApp'][data-test-script-state='notRunning'] [data-testid='stMain'] "
                   "[data-testid='stElementContainer']")


def load_first_script(files: list[str], when_idle: list[str] | None = None) -> bytes:
    """A module script that imports `files` as the page starts, and `when_idle` once its first run is drawn and the
    browser has nothing else to do; Streamlit's own imports later find them loaded."""
    def imports(names):
        return ",".join(f'"./static/js/{f}"' for f in names)
    idle = ("" if not when_idle else               # a Streamlit with no such file: nothing to wait for
            f"const idle = window.requestIdleCallback || setTimeout;"
            f"const later = () => document.querySelector(\"{FIRST_RUN_DRAWN}\") ? idle(() => {{ for (const f of "
            f"[{imports(when_idle)}]) import(f).catch(() => {{}}); }}) : setTimeout(later, 500);"
            f"later();")
    return (f"<script type=\"module\">for (const f of [{imports(files)}]) import(f).catch(() => {{}});{idle}"
            f"</script>").encode()


class ElementCodeFirst:
    """ASGI middleware: adds load_first_script to every page's HTML (Streamlit's index.html, served for / and every
    page's path). A page's path asks for no compression, so that its 6 kB of HTML can be read and changed."""

    def __init__(self, app, files: list[str] | None = None):
        self.app = app
        self.script = load_first_script(element_code_files() if files is None else files,
                                        element_code_files(CODE_WHEN_IDLE))

    async def __call__(self, scope, receive, send):
        if not is_page_request(scope):
            await self.app(scope, receive, send)
            return
        scope = dict(scope, headers=[(k, v) for k, v in scope["headers"] if k.lower() != b"accept-encoding"])
        start, body = None, []

        async def send_page(message):
            nonlocal start
            if message["type"] == "http.response.start":
                headers = {k.lower(): v for k, v in message.get("headers", [])}
                if message["status"] == 200 and b"content-encoding" not in headers and (
                        headers.get(b"content-type", b"").startswith(b"text/html")):   # a 206 or 304 is left as is
                    start = message
                    return
            elif start is not None:
                body.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                html = b"".join(body).replace(b"</head>", self.script + b"</head>", 1)
                headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
                await send({**start, "headers": [*headers, (b"content-length", str(len(html)).encode())]})
                message = {"type": "http.response.body", "body": html}
            await send(message)

        await self.app(scope, receive, send_page)


LEFT_TO_STREAMLIT = {b"range", b"if-range", b"if-none-match", b"if-modified-since"}   # a part, or a check for a 304


class HashedFilesFromMemory:
    """ASGI middleware: Streamlit's own files under /static/ (each name carries a hash of its content, and Streamlit
    lets browsers keep them for a year) answered from memory, each read once when first asked for, with the
    content type and caching Streamlit gives them. Streamlit's handler read each file in 64 kB pieces on a worker
    thread: a browser's first visit asks for about 130 files, which took the server 0.61 s of CPU (0.37-0.41 s
    with httptools and uvloop), 0.06-0.12 s from here: on a cold start that time came out of torch's import, and
    in a class each student who joins costs it. A HEAD, a range request or a conditional one (a browser checking its
    copy, answered 304 by Streamlit) is left to Streamlit. Each file is read on the event loop, once: milliseconds
    from the system's cache for the largest (Plotly's, 4.7 MB)."""

    def __init__(self, app, root: Path = STATIC):
        self.app = app
        self.paths = {f"/{p.relative_to(root).as_posix()}": p for p in (root / "static").rglob("*") if p.is_file()}
        self.answers: dict[str, tuple[list, bytes]] = {}

    def answer(self, path: str) -> tuple[list, bytes]:
        if path not in self.answers:
            body = self.paths[path].read_bytes()
            kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
            kind += "; charset=utf-8" if kind.startswith("text/") else ""   # as Starlette's FileResponse says it
            self.answers[path] = ([(b"content-type", kind.encode()), (b"content-length", str(len(body)).encode()),
                                   (b"cache-control", b"public, immutable, max-age=31536000")], body)
        return self.answers[path]

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "GET" and scope["path"] in self.paths and not any(
                k.lower() in LEFT_TO_STREAMLIT for k, _ in scope["headers"]):
            headers, body = self.answer(scope["path"])
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
