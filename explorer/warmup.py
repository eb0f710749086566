"""What a server does once so that no learner waits for it: import the app's modules (torch among them), load the shown
model and run one text through it, then (once a first page has run, and 1 s more for its browser: warm_up_server)
the other models and every page's modules (its page model and what its script imports; scikit-learn, SciPy and
Captum among them, about 2 s, which no page but the four that compute with them imports) and compute the √d_k
experiments that Masks shows (0.8 s), all kept for the process; on a server's start, what it made is then hidden
from the garbage collector (hide_from_the_collector). Whatever a first run does once per process (imports on its
way, Streamlit's REPL check) is done here first.

`streamlit run app.py` serves the app through st.App, whose lifespan (app.py, server.warm) runs `warm_up_server` in a thread as
the server starts, so a browser loads the page's code while the server imports its own; a first page waits at most
for what is not done yet, and the rest waits for it. GET /api/warm-up shows STATUS. Where no lifespan ran (AppTest),
the second half starts after the first page. `python -m benchmarks.browser_latency --first-visits` measures each
page's first visit on a fresh server, `--cold-starts` the server's start.
"""

from __future__ import annotations

import gc
import importlib
import io
import threading
import time
import tokenize
from pathlib import Path

from server.warm import STREAMLIT_FIRST_RUN_IMPORTS, streamlit_once_per_process_check

_CLAIM = threading.Lock()
_claimed = False               # the second half has begun (or is about to): it runs once per process
PAGE_DONE = threading.Event()  # a session's page has run to its end (warm_up_once): the second half may begin
SECOND_HALF_WAITS = 3.0        # seconds the server's second half waits for a first page before it begins anyway
BROWSER_DRAWS = 1.0            # seconds left, after that page's run, to a browser loading its elements' code and
                               # drawing: on a teacher's laptop the browser shares the server's cores
STATUS: dict[str, object] = {"models": [], "pages_imported": False, "done": False}   # what /api/warm-up shows
HEAVY_IMPORTS = ("sklearn.linear_model", "sklearn.decomposition", "scipy.stats", "captum.attr")
FIRST_TEXT = "hello"        # one text through each model, so that torch's first calls are not a learner's
# What a session's first run imports beyond explorer.frame and its page's own modules: Streamlit's dataframe path
# (pandas, pyarrow), its emoji catalogue (the page icon), its component manifest scanner and its magic commands.
# Under AppTest the home page's first run took 0.85 s without them imported and 0.20 s with them.
FIRST_RUN_IMPORTS = ("pandas", "pyarrow.pandas_compat", "pyarrow.vendored.version", *STREAMLIT_FIRST_RUN_IMPORTS)


def warm_up_once(d_k: int | None = None) -> None:
    """Called by app.py at the end of a page's run (one that ends normally; a stopped one leaves the server's
    warm-up to its SECOND_HALF_WAITS): tells the server's warm-up that a page has run, and starts the second half
    in a daemon thread the first time only (later calls, and calls after the server-start warm-up claimed it,
    return at once). `d_k`: that of the model whose √d_k experiment Masks draws first (default: the shown one's)."""
    PAGE_DONE.set()
    if _claim():
        if d_k is None:
            from .cache import checkpoint_or_stop
            d_k = checkpoint_or_stop().model.config.d_k
        threading.Thread(target=_warm_up, args=(d_k,), daemon=True, name="warm-up").start()


def _claim() -> bool:
    """True for the one caller that may run the second half (a check and a set no two threads interleave)."""
    global _claimed
    with _CLAIM:
        first, _claimed = not _claimed, True
        return first


def page_imports(pages=None) -> list[str]:
    """Every module the scripts of `pages` (all by default) import (read from app_pages/*.py), and what a
    first run imports on its way (FIRST_RUN_IMPORTS)."""
    from .pages import PAGES, ROOT
    found = set(FIRST_RUN_IMPORTS)
    for page in PAGES if pages is None else pages:
        found.update(imported_modules((ROOT / page.script).read_text()))
    return sorted(found)


def imported_modules(source: str) -> set[str]:
    """The modules a script's import statements name (`import a.b, c`; `from a.b import x`, not relative ones),
    read with tokenize, not ast: in the test suite, ast.parse on this thread raised "SystemError: AST constructor
    recursion depth mismatch" (CPython 3.11, whose ast conversion is not safe on two threads at once), one reading
    being that a test's run was parsing its script meanwhile (Streamlit's magic parses every script). In a server
    the second half runs beside learners' runs, where such a race could fail a learner's page instead."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type not in (tokenize.COMMENT, tokenize.NL)]
    found: set[str] = set()
    for i, token in enumerate(tokens):
        starts_a_line = i == 0 or tokens[i - 1].type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT) or (
            tokens[i - 1].string in (";", ":"))   # a statement: after `;`, or after `if c:` on the same line
        if token.type != tokenize.NAME or token.string not in ("import", "from") or not starts_a_line:
            continue
        j = i + 1
        while True:
            name, j = _dotted_name(tokens, j)
            if name:
                found.add(name)
            if token.string == "from":
                break                          # one module; a relative one (from . import x) has no name here
            if tokens[j].string == "as":
                j += 2
            if tokens[j].string != ",":
                break
            j += 1
    return found


def _dotted_name(tokens, j: int) -> tuple[str, int]:
    """The dotted name starting at tokens[j] ("" if it starts with a dot or is not a name), and the index after it."""
    if tokens[j].type != tokenize.NAME:
        return "", j
    parts = [tokens[j].string]
    j += 1
    while tokens[j].string == "." and tokens[j + 1].type == tokenize.NAME:
        parts.append(tokens[j + 1].string)
        j += 2
    return ".".join(parts), j


def _warm_up(d_k: int) -> None:
    from analysis.lesson import scaling_experiment
    from analysis.page_models.masks import D_K_SIZES
    from .pages import PAGES
    for module in (*HEAVY_IMPORTS, *(page.model for page in PAGES), *page_imports(), "viz"):
        importlib.import_module(module)
    STATUS["pages_imported"] = True
    for size in (d_k, *D_K_SIZES):
        scaling_experiment(size)
    STATUS["done"] = True


def warm_up_first_page() -> list[str]:
    """What a first page needs, in the order its run needs it: the frame's modules (what app.py imports on a
    session's first run), Streamlit's emoji catalogue (the router checks each page's icon) and its REPL check, the
    shown model through the cached loader the pages call and one run of it, then what the home page's first run
    imports. Returns the models' keys, the shown one first; the others are loaded by warm_up_server."""
    importlib.import_module("explorer.frame")
    importlib.import_module("streamlit.emojis")
    streamlit_once_per_process_check()
    from transformer.checkpoint import bundled_checkpoint
    from transformer.data import TASKS
    from .cache import pointed_checkpoint
    pointed = pointed_checkpoint()
    keys = [str(pointed)] if pointed else [str(bundled_checkpoint(task)) for task in TASKS]   # reverse first
    run_once(keys[0])
    from .pages import at_url_path
    for module in page_imports([at_url_path("")]):   # the home page's: the default page, a first visit's
        importlib.import_module(module)
    return keys


def run_once(key: str) -> None:
    """Load a server's model (the cached loader the pages call) and run one text through it."""
    from .cache import text_run
    text_run(key, FIRST_TEXT)
    STATUS["models"].append(Path(key).name)   # a folder's name, never a path of the server


def warm_up_server() -> None:
    """The whole warm-up: what a first page needs; then, once a first page has run and its browser has had
    BROWSER_DRAWS seconds to draw it (or after SECOND_HALF_WAITS seconds with no page), the other models and the
    second half. The second half used to begin as soon as the three models were loaded: its imports then ran beside
    the first learner's run and beside the browser drawing it (benchmarks.browser_latency measures a cold start).
    In a server, app.py runs it with Python's cyclic garbage collector off (app.warm_up)."""
    mine = _claim()        # first, so that a first page finished meanwhile does not start the second half too
    keys = warm_up_first_page()
    if mine and PAGE_DONE.wait(SECOND_HALF_WAITS):
        time.sleep(BROWSER_DRAWS)
    for key in keys[1:]:
        run_once(key)
    if mine:
        from .cache import checkpoint_for
        _warm_up(checkpoint_for(keys[0]).model.config.d_k)
    hide_from_the_collector()


def hide_from_the_collector() -> None:
    """What the server made so far (torch, pandas, the models: 250,000 objects) is moved out of the garbage
    collector's view, after one collection of the imports' garbage. A full collection walked them all, 0.36 s
    each, five times a minute under a class's load; 0.08 s after. On the server's start only: under AppTest the
    warm-up ends in the middle of a later test, whose page globals would then never be freed."""
    gc.collect()
    gc.freeze()
