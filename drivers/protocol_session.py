"""A Streamlit session without a browser: Streamlit's own websocket protocol, spoken from Python.

A classroom's students each bring their own browser, so the server is the only thing they share. Thirty
headless Chromium tabs on this 2-core machine measure the machine drowning in rendering instead; this
client asks the server for exactly what a browser asks (a rerun with the text box's new value) and times
the answer up to the script's end, drawing nothing.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from classroom.codes import NICKNAME_LABEL
from explorer.pages import page

TEXT_LABEL = "Your text"
WRITES = "The model writes: "          # explorer.frame.WRITES (a test holds them equal)


@dataclass
class Answer:
    """What one rerun sent back: the page drawn, its markdown, any exception shown, and how long it took."""
    seconds: float
    page: str | None = None  # the url path of the page the run drew
    markdown: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)

    @property
    def model_writes(self) -> str | None:
        """The sidebar's "The model writes" line, if the run drew it: "The model writes: **answer**" (the prefix is
        explorer.frame.WRITES), or a level-4 heading from a version before 2026-11-26 (benchmarks serve both)."""
        for line in self.markdown:
            if line.startswith(WRITES):
                return line.removeprefix(WRITES).strip("*")
            if line.startswith("#### "):
                return line.removeprefix("#### ")
        return None


BROWSER_COOKIE = "explorer_browser"    # server.identity.COOKIE (a test holds them equal)
NEW_BROWSER = object()


def browser_cookies(http_url: str) -> dict[str, str]:
    """Every cookie a server (and a proxy before it) sets on a fresh browser's first page."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{http_url}/", timeout=30).read()
    return {c.name: c.value for c in jar}


def browser_cookie(http_url: str) -> str | None:
    """The cookie a server sets on a fresh browser's first page (None from a server that sets none)."""
    return browser_cookies(http_url).get(BROWSER_COOKIE)


class ProtocolSession:
    """One session on one page. `await session.open()`, then `await session.type(word)` as often as wanted."""

    def __init__(self, url: str, page: str, query: str = "", browser: str | None | object = NEW_BROWSER) -> None:
        """`browser`: the value of the browser's cookie (server.identity) its websocket sends, shared by the
        tabs of one browser; NEW_BROWSER (the default) fetches a page first, as a fresh browser does, and
        keeps the cookie the server set; None sends none (a client counted by its address)."""
        self.url = url
        self.stream_url = url.replace("http://", "ws://") + "/_stcore/stream"
        self.browser = browser
        self.page = page
        self.query = query                     # the page's query string (when given, as the server last set it)
        self.page_hash = ""
        self.text_id: str | None = None
        self.widget_ids: dict[str, str] = {}   # label -> id of every widget the last runs drew
        self.deferred_ids: dict[str, str] = {}  # label -> deferred file id of every download button drawn
        self.session_id: str | None = None     # the server's id of this session (sent in new_session)
        self.replies: list = []                # ForwardMsgs answering a request (file URLs, downloads)
        self.fragments: dict[str, float] = {}  # id -> seconds of each timed fragment the last full run drew
        self.drawn_fragments: dict[str, float] = {}  # the same, for the run being read (a fragment's id
                                                     # follows its place on the page, so each full run redraws it)
        self.cookies: dict[str, str] = {}      # every other cookie the first page set (a proxy's replica)
        self.socket = None

    async def open(self) -> Answer:
        if self.browser is NEW_BROWSER:
            self.cookies = await asyncio.to_thread(browser_cookies, self.url)
            self.browser = self.cookies.pop(BROWSER_COOKIE, None)
        sent = {**self.cookies, **({BROWSER_COOKIE: self.browser} if self.browser else {})}
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in sent.items())} if sent else None
        self.socket = await websockets.connect(self.stream_url, subprotocols=["streamlit"], max_size=None,
                                               additional_headers=headers)
        return await self._rerun(None)

    async def reopen(self) -> Answer:
        """A new socket with the same cookies and the page's query, as Streamlit's client opens one when its
        socket closes (its server gone, a replica killed): the page runs again from the top."""
        self.page_hash, self.fragments = "", {}
        return await self.open()

    async def type(self, text: str) -> Answer:
        if self.text_id is None:
            raise RuntimeError("the page never showed its text box")
        return await self._rerun(text)

    async def close(self) -> None:
        await self.socket.close()

    async def send(self, widgets: list) -> Answer:
        """A rerun carrying these WidgetState messages as they are, as a crafted client could send them."""
        return await self._rerun(None, widgets)

    async def send_raw(self, data: bytes) -> None:
        """Bytes sent as they are, as a crafted client could send them; nothing is awaited."""
        await self.socket.send(data)

    async def fill_and_press(self, values: dict[str, str], label: str) -> Answer:
        """Type these text inputs (by label) and press a button (a form's submit button too) in one rerun, as a
        browser sends a form."""
        states = [WidgetState(id=self.widget_ids[name], string_value=value) for name, value in values.items()]
        states.append(WidgetState(id=self.widget_ids[label], trigger_value=True))
        return await self._rerun(None, states)

    async def poll(self) -> Answer:
        """One timed rerun of the page's busiest fragment (the shortest run_every), as the browser's timer sends
        it (the app's hourly reconnect check is another)."""
        return await self._rerun(None, fragment_id=min(self.fragments, key=self.fragments.get))

    async def goto(self, page: str) -> Answer:
        """Switch this session to another page (its url path), as the page list does."""
        self.page, self.page_hash = page, ""
        return await self._rerun(None)

    async def press(self, label: str) -> Answer:
        """Press the button with this label, drawn by an earlier run."""
        state = WidgetState(id=self.widget_ids[label], trigger_value=True)
        return await self._rerun(None, [state])

    async def upload(self, http_url: str, label: str, name: str, data: bytes) -> Answer:
        """Upload a file into the uploader with this label as a browser does: ask the server for an upload URL,
        PUT the file there with the XSRF token, then rerun with the uploader's new state."""
        message = BackMsg()
        message.file_urls_request.request_id = uuid.uuid4().hex
        message.file_urls_request.file_names.append(name)
        message.file_urls_request.session_id = self.session_id
        await self.socket.send(message.SerializeToString())
        reply = await self._reply(lambda f: f.WhichOneof("type") == "file_urls_response"
                                  and f.file_urls_response.response_id == message.file_urls_request.request_id)
        urls = list(reply.file_urls_response.file_urls)
        if not urls:
            raise PermissionError(f"the server gave no upload URL: {reply.file_urls_response.error_msg!r}")
        await asyncio.to_thread(put_file, http_url, urls[0].upload_url, name, data)
        state = WidgetState(id=self.widget_ids[label])
        info = state.file_uploader_state_value.uploaded_file_info.add()
        info.file_id, info.name, info.size = urls[0].file_id, name, len(data)
        info.file_urls.CopyFrom(urls[0])
        return await self._rerun(None, [state])

    async def download(self, label: str) -> tuple[str, float]:
        """Press a download button whose data is built on the click (Streamlit's deferred file): (the URL of
        the built file or the error, seconds until the server answered)."""
        message = BackMsg()
        request = message.backend_operation_request
        request.request_id, request.session_id = uuid.uuid4().hex, self.session_id
        request.deferred_file.file_id = self.deferred_ids[label]
        start = time.perf_counter()
        await self.socket.send(message.SerializeToString())
        reply = await self._reply(lambda f: f.WhichOneof("type") == "backend_operation_response"
                                  and f.backend_operation_response.request_id == request.request_id)
        answer = reply.backend_operation_response
        return answer.deferred_file.url or answer.error_msg, time.perf_counter() - start

    async def _reply(self, wanted, timeout: float = 300) -> ForwardMsg:
        """The first ForwardMsg that `wanted` accepts, reading (and keeping) what comes before it."""
        async def read() -> ForwardMsg:
            while True:
                kept = next((f for f in self.replies if wanted(f)), None)
                if kept is not None:
                    self.replies.remove(kept)
                    return kept
                forward = ForwardMsg()
                forward.ParseFromString(await self.socket.recv())
                self._note(forward)
                if wanted(forward):
                    return forward
        return await asyncio.wait_for(read(), timeout)

    def _note(self, forward: ForwardMsg) -> None:
        kind = forward.WhichOneof("type")
        if kind == "new_session":
            self.session_id = forward.new_session.initialize.session_id
        elif kind in ("file_urls_response", "backend_operation_response"):
            self.replies.append(forward)
        elif kind == "auto_rerun":
            self.drawn_fragments[forward.auto_rerun.fragment_id] = forward.auto_rerun.interval
        elif kind == "page_info_changed" and self.query:   # a session opened with a query keeps the URL's
            self.query = forward.page_info_changed.query_string

    async def _rerun(self, text: str | None, widgets: list = (), fragment_id: str = "") -> Answer:
        message = BackMsg()
        state = message.rerun_script
        state.query_string = self.query
        if fragment_id:
            state.fragment_id, state.is_auto_rerun = fragment_id, True
        if self.page_hash:
            state.page_script_hash = self.page_hash
        else:
            state.page_name = self.page
        if text is not None:
            widget = state.widget_states.widgets.add()
            widget.id, widget.string_value = self.text_id, text
        state.widget_states.widgets.extend(widgets)
        start = time.perf_counter()
        self.drawn_fragments = {}
        await self.socket.send(message.SerializeToString())
        answer = Answer(0.0)
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await self.socket.recv())
            self._note(forward)
            kind = forward.WhichOneof("type")
            if kind == "navigation":  # the page this run drew, asked for by its hash from now on
                self.page_hash = forward.navigation.page_script_hash
                answer.page = next(p.url_pathname for p in forward.navigation.app_pages
                                   if p.page_script_hash == self.page_hash)
            elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                self._read(forward.delta.new_element, answer)
            elif kind == "script_finished":
                if forward.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    self.drawn_fragments = {}
                    continue   # st.rerun(): the run it asked for follows, and answers this request
                if forward.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY:
                    self.fragments = self.drawn_fragments
                answer.seconds = time.perf_counter() - start
                return answer

    def _read(self, element, answer: Answer) -> None:
        kind = element.WhichOneof("type")
        widget = getattr(element, kind) if kind else None
        if widget is not None and hasattr(widget, "id") and hasattr(widget, "label"):
            self.widget_ids[widget.label] = widget.id
        if kind == "download_button" and element.download_button.deferred_file_id:
            self.deferred_ids[element.download_button.label] = element.download_button.deferred_file_id
        if kind == "text_input" and element.text_input.label == TEXT_LABEL:
            self.text_id = element.text_input.id
        elif kind == "markdown":
            answer.markdown.append(element.markdown.body)
        elif kind == "alert":
            answer.markdown.append(element.alert.body)
        elif kind == "exception":
            answer.exceptions.append(f"{element.exception.type}: {element.exception.message}")


def put_file(http_url: str, upload_url: str, name: str, data: bytes) -> int:
    """PUT one file to Streamlit's upload endpoint as its frontend does (multipart form, the XSRF cookie echoed in
    a header); returns the HTTP status."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{http_url}/_stcore/health").read()
    token = next((c.value for c in jar if c.name == "_streamlit_xsrf"), "")
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            f"Content-Type: application/zip\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    url = upload_url if upload_url.startswith("http") else f"{http_url}{upload_url}"
    request = urllib.request.Request(url, data=body, method="PUT", headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}", "X-Xsrftoken": token})
    try:
        with opener.open(request) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


async def joined(url: str, code: str, nickname: str) -> ProtocolSession:
    """A student's session on Join a class after the join form (the page then reruns itself with the seat)."""
    session = ProtocolSession(url, page("join").url_path, f"class={code}")
    await session.open()
    await session.fill_and_press({NICKNAME_LABEL: nickname}, "Join")
    return session

