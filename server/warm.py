"""The server's start: the app's warm-up in a thread beside the server, with Python's cyclic collector off while
it imports, and the work Streamlit does once per process at a first run asked for there instead of in a learner's."""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
from typing import Callable, Iterator

# Streamlit's modules a session's first run imports on its way: its dataframe path, its emoji catalogue (the page
# icon), its component manifest scanner and its magic commands (explorer.warmup imports them with the rest).
STREAMLIT_FIRST_RUN_IMPORTS = ("streamlit.dataframe_util", "streamlit.emojis",
                               "streamlit.components.v2.manifest_scanner",
                               "streamlit.runtime.scriptrunner.magic_funcs")


@contextlib.contextmanager
def collector_off() -> Iterator[None]:
    """Python's cyclic garbage collector off, and on again however the block ends. The warm-up's imports make
    400,000 objects, and each time they had grown by a quarter a full collection walked them all."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def lifespan(warm_up: Callable[[], None]):
    """st.App's lifespan: `warm_up` starts in a daemon thread as the server starts, and the server listens at
    once (importing the app's modules imports torch)."""
    @contextlib.asynccontextmanager
    async def warm_up_beside_the_server(_app):
        threading.Thread(target=warm_up, daemon=True, name="server warm-up").start()
        yield
    return warm_up_beside_the_server


def status_of(module_name: str, not_begun: dict) -> dict:
    """A copy of `module_name`'s STATUS, read without importing the module: `not_begun` while it is absent from
    sys.modules or still being imported (a module is in sys.modules before its body has run to STATUS; a GET
    /api/warm-up in that moment answered 500 in CI)."""
    status = getattr(sys.modules.get(module_name), "STATUS", None)
    if status is None:
        return dict(not_begun)
    return {name: list(value) if isinstance(value, list) else value for name, value in dict(status).items()}


def streamlit_once_per_process_check() -> None:
    """Streamlit asks once per process, at the first element any session draws, whether it runs in a REPL: it
    calls inspect.stack(), which reads the source of every frame, a quarter of a second on a script's deep stack
    (py-spy, the first page of a warm server). Asked on the warm-up thread's short stack, it costs no learner.
    Private (delta_generator._maybe_print_use_warning): without it, the first page pays for it again."""
    from streamlit import delta_generator
    check = getattr(delta_generator, "_maybe_print_use_warning", None)
    if check is not None:
        check()
