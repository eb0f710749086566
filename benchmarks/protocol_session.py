"""A Streamlit session without a browser: Streamlit's own websocket protocol, spoken from Python.

A classroom's students each bring their own browser, so the server is the only thing they share. Thirty
headless Chromium tabs on this 2-core machine measure the machine drowning in rendering instead; this
client asks the server for exactly what a browser asks (a rerun with the text box's new value) and times
the answer up to the script's end, drawing nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

TEXT_LABEL = "Your text"


@dataclass
class Answer:
    """What one rerun sent back: the page drawn, its markdown, any exception shown, and how long it took."""
    seconds: float
    page: str | None = None  # the url path of the page the run drew
    markdown: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)

    @property
    def model_writes(self) -> str | None:
        """The sidebar's "The model writes" line (a level-4 heading), if the run drew it."""
        return next((m.removeprefix("#### ") for m in self.markdown if m.startswith("#### ")), None)


class ProtocolSession:
    """One session on one page. `await session.open()`, then `await session.type(word)` as often as wanted."""

    def __init__(self, url: str, page: str) -> None:
        self.stream_url = url.replace("http://", "ws://") + "/_stcore/stream"
        self.page = page
        self.page_hash = ""
        self.text_id: str | None = None
        self.widget_ids: dict[str, str] = {}   # label -> id of every widget the last runs drew
        self.socket = None

    async def open(self) -> Answer:
        self.socket = await websockets.connect(self.stream_url, subprotocols=["streamlit"], max_size=None)
        return await self._rerun(None)

    async def type(self, text: str) -> Answer:
        if self.text_id is None:
            raise RuntimeError("the page never showed its text box")
        return await self._rerun(text)

    async def close(self) -> None:
        await self.socket.close()

    async def send(self, widgets: list) -> Answer:
        """A rerun carrying these WidgetState messages as they are, as a crafted client could send them."""
        return await self._rerun(None, widgets)

    async def _rerun(self, text: str | None, widgets: list = ()) -> Answer:
        message = BackMsg()
        state = message.rerun_script
        if self.page_hash:
            state.page_script_hash = self.page_hash
        else:
            state.page_name = self.page
        if text is not None:
            widget = state.widget_states.widgets.add()
            widget.id, widget.string_value = self.text_id, text
        state.widget_states.widgets.extend(widgets)
        start = time.perf_counter()
        await self.socket.send(message.SerializeToString())
        answer = Answer(0.0)
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await self.socket.recv())
            kind = forward.WhichOneof("type")
            if kind == "navigation":  # the page this run drew, asked for by its hash from now on
                self.page_hash = forward.navigation.page_script_hash
                answer.page = next(p.url_pathname for p in forward.navigation.app_pages
                                   if p.page_script_hash == self.page_hash)
            elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                self._read(forward.delta.new_element, answer)
            elif kind == "script_finished":
                answer.seconds = time.perf_counter() - start
                return answer

    def _read(self, element, answer: Answer) -> None:
        kind = element.WhichOneof("type")
        widget = getattr(element, kind) if kind else None
        if widget is not None and hasattr(widget, "id") and hasattr(widget, "label"):
            self.widget_ids[widget.label] = widget.id
        if kind == "text_input" and element.text_input.label == TEXT_LABEL:
            self.text_id = element.text_input.id
        elif kind == "markdown":
            answer.markdown.append(element.markdown.body)
        elif kind == "alert":
            answer.markdown.append(element.alert.body)
        elif kind == "exception":
            answer.exceptions.append(f"{element.exception.type}: {element.exception.message}")
