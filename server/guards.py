"""What one browser may ask of the server on behalf of everyone: no cache clearing, small messages, and uploads
only for an uploader that asked, within a bound.

Streamlit obeys some messages from any client that the app never offers in its page: a `clear_cache` message
(the hidden menu item) emptied every session's cached runs and released every learner's own models, and the
upload endpoint stored any file a session sent (200 files of 5 MB took a server from 362 to 1,368 MB). Both
are Streamlit's own handlers; here they are wrapped once per process, by server.install.

A browser's message to this app is a few kB (every widget state of a page); Streamlit takes 25 MB, and the
config file's smallest setting is 1 MB. A rerun of 36,000 made-up widget states under 1 MB, sent 40 times,
made another learner 4x slower (each is parsed and sorted on the server's event loop before any script runs),
so the limit is set below what the config can say, by server.install.

Upstream: the message bound waits for a setting under 1 MB (server.maxWidgetStateSize, streamlit/streamlit#15804,
counts whole megabytes); the uploads' bound for streamlit/streamlit#9218 (uploaded files kept in the server's
memory). No upstream issue was found for a browser's clear_cache message reaching every session's caches: for an
app whose caches are shared by a class, refusing it is this app's policy, and stays.
"""

from __future__ import annotations

import functools
import logging
import threading
import time

from starlette.exceptions import HTTPException
from streamlit.runtime import Runtime, runtime_util
from streamlit.runtime.app_session import AppSession
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

MAX_MESSAGE_BYTES = 64 * 1024            # what one browser message may carry (Streamlit closes the connection)
UPLOADS_PER_SESSION = 2                  # files a session may hold in Streamlit's upload store (the app takes one)
UPLOAD_BYTES_ON_SERVER = 100 * 2 ** 20  # every session's uploads together: 20 of the largest checkpoint
                                        # the library reads (transformer.checkpoint.MAX_UPLOAD_BYTES)
UPLOADER_VALUE = "file_uploader_state_value"    # how a file uploader's widget registers its value
UNUSED_AFTER = 60.0                      # seconds a stored file may wait for its session's run to read it

_LOGGER = logging.getLogger(__name__)


def _refuse_cache_clearing(self: AppSession) -> None:
    """A browser's clear_cache message: refused. The caches hold every session's runs and own models; the
    app offers no such command, and a learner's own results are released with their session anyway."""
    _LOGGER.warning("Refused a clear_cache message from session %s", self.id)


_refuse_cache_clearing.refuses = True


class _Issued:
    """The upload ids the server gave each session (its uploader asks for one before each file)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ids: dict[str, list[str]] = {}   # session id -> ids given and not yet used, oldest first
        self.stored: dict[tuple[str, str], float] = {}   # (session id, file id) -> when it was stored


ISSUED = _Issued()


def _the_servers(manager: MemoryUploadedFileManager) -> bool:
    """Whether this is the running server's upload store, which browsers reach (AppTest registers its files
    straight into a store of its own)."""
    return Runtime.exists() and Runtime.instance().uploaded_file_mgr is manager


def _has_uploader(session_id: str) -> bool:
    """Whether the session's latest run drew a file uploader (Streamlit's session state keeps each drawn
    widget's metadata, with the kind of value it takes)."""
    runtime = Runtime.instance() if Runtime.exists() else None
    info = runtime._session_mgr.get_active_session_info(session_id) if runtime else None
    if info is None:
        return False
    metadata = info.session.session_state._new_widget_state.widget_metadata
    return any(m.value_type == UPLOADER_VALUE for m in list(metadata.values()))


def _issue_only_to_uploaders(get_upload_urls):
    @functools.wraps(get_upload_urls)
    def issue(self: MemoryUploadedFileManager, session_id: str, file_names):
        if not _the_servers(self):
            return get_upload_urls(self, session_id, file_names)
        if not _has_uploader(session_id):
            _LOGGER.warning("Refused upload URLs to session %s: it shows no file uploader", session_id)
            return []
        infos = get_upload_urls(self, session_id, list(file_names)[:UPLOADS_PER_SESSION])
        with ISSUED.lock:
            given = ISSUED.ids.setdefault(session_id, [])
            given.extend(i.file_id for i in infos)
            del given[:-UPLOADS_PER_SESSION]          # an uploader asks again for each file: the newest count
        return infos

    issue.guarded = True
    return issue


def _store_only_what_was_asked_for(add_file):
    @functools.wraps(add_file)
    def store(self: MemoryUploadedFileManager, session_id: str, file) -> None:
        if not _the_servers(self):
            return add_file(self, session_id, file)
        with ISSUED.lock:
            given = ISSUED.ids.get(session_id, [])
            if file.file_id not in given:
                raise HTTPException(status_code=403, detail="No uploader of this session asked for this file")
            _drop_unused(self)
            held = self.file_storage.get(session_id, {})
            if len(held) >= UPLOADS_PER_SESSION or self._total_bytes + len(file.data) > UPLOAD_BYTES_ON_SERVER:
                raise HTTPException(status_code=413, detail="The server holds as many uploads as it takes now")
            given.remove(file.file_id)
            add_file(self, session_id, file)
            ISSUED.stored[(session_id, file.file_id)] = time.monotonic()

    store.guarded = True
    return store


def _drop_unused(manager: MemoryUploadedFileManager) -> None:
    """Files stored more than UNUSED_AFTER ago and never read: the app reads an upload in the run that follows
    it and drops it at once, so these were sent to fill the store (which would refuse everyone's uploads)."""
    now = time.monotonic()
    for (session_id, file_id), stored in list(ISSUED.stored.items()):
        if now - stored > UNUSED_AFTER:
            del ISSUED.stored[(session_id, file_id)]
            manager.remove_file(session_id, file_id)


def _forget_issued_on_session_end(remove_session_files):
    @functools.wraps(remove_session_files)
    def forget(self: MemoryUploadedFileManager, session_id: str) -> None:
        with ISSUED.lock:
            ISSUED.ids.pop(session_id, None)
            for key in [k for k in ISSUED.stored if k[0] == session_id]:
                del ISSUED.stored[key]
        remove_session_files(self, session_id)

    forget.guarded = True
    return forget


def install() -> None:
    """Once per process (server.install)."""
    runtime_util._max_widget_state_size_bytes = MAX_MESSAGE_BYTES
    if not getattr(AppSession._handle_clear_cache_request, "refuses", False):
        AppSession._handle_clear_cache_request = _refuse_cache_clearing
    manager = MemoryUploadedFileManager
    if not getattr(manager.add_file, "guarded", False):
        manager.get_upload_urls = _issue_only_to_uploaders(manager.get_upload_urls)
        manager.add_file = _store_only_what_was_asked_for(manager.add_file)
        manager.remove_session_files = _forget_issued_on_session_end(manager.remove_session_files)
