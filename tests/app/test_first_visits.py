"""A fresh server's first page waits for no module it does not use, and what other pages need is prepared after
it (explorer/warmup.py). Each check runs in a fresh Python process: in this one, earlier tests imported
everything already."""

from __future__ import annotations

import subprocess
import sys

import pytest

from drivers.app_test import ROOT

pytestmark = pytest.mark.slow   # left out of the quick tier: each check starts a Python process and imports every page


def fresh_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1]


HEAVY = ('sklearn', 'scipy', 'captum', 'matplotlib')
USES_HEAVY = {"how_it_reverses", "lab_attribution", "lab_heads", "lab_query_key"}   # a probe, Captum, ρ, a PCA


def test_the_home_page_and_the_sidebar_import_neither_scikit_learn_nor_scipy():
    """They took 0.9 s of every server's first page (analysis.table_store imported Ridge at its top)."""
    code = ("import sys\nfrom drivers.app_test import open_page\n"
            "at = open_page('home', 'hello')\nassert not at.exception, at.exception\n"
            "import app_pages, explorer.cache, explorer.own_models, explorer.pages, explorer.state\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    assert fresh_python(code) == "[]"


def test_no_page_but_those_that_compute_with_them_imports_scipy_scikit_learn_or_captum():
    """The lesson imported Captum, matplotlib and SciPy (1.6 s of a fresh server's first page) through
    analysis.attribution, for its optional eleventh step, which calls none of them."""
    pages = sorted(p.stem for p in (ROOT / "app_pages").glob("*.py") if p.stem not in USES_HEAVY | {"__init__"})
    assert {"lesson", "home", "attention", "masks", "lab_ablation"} <= set(pages)
    code = ("import sys\nfrom drivers.app_test import open_page\n"
            f"for name in {pages!r}:\n"
            "    at = open_page(name, 'hello')\n    assert not at.exception, (name, at.exception)\n"
            f"    assert not [m for m in {HEAVY!r} if m in sys.modules], name\n"
            "print('none')")
    assert fresh_python(code) == "none"


def test_the_warm_up_imports_every_page_model_and_computes_masks_experiments_once():
    code = ("import sys, threading\nfrom analysis.lesson import scaling_experiment\n"
            "from explorer.pages import PAGES\nfrom explorer.warmup import warm_up_once\n"
            "warm_up_once(16)\nwarm_up_once(16)\n"
            "threads = [t for t in threading.enumerate() if t.name == 'warm-up']\n"
            "[t.join() for t in threads]\n"
            "print(len(threads), scaling_experiment.cache_info().currsize, "
            "all(p.model in sys.modules for p in PAGES), 'sklearn.linear_model' in sys.modules)")
    assert fresh_python(code) == "1 5 True True"      # one thread however often called; 16 is among the sizes


def test_the_server_warm_up_runs_every_bundled_model_and_imports_what_every_page_imports():
    """What st.App's lifespan starts (app.py): a first page then waits for no import, load or first run."""
    code = ("import sys\nfrom explorer.warmup import STATUS, page_imports, warm_up_server\n"
            "from explorer.cache import text_run\nfrom transformer.checkpoint import bundled_checkpoint\n"
            "assert 'explorer.frame' not in sys.modules and 'captum' not in sys.modules\n"
            "warm_up_server()\n"
            "runs = [text_run.is_cached(str(bundled_checkpoint(t)), 'hello') for t in ('reverse', 'copy', 'sort')]\n"
            "missing = [m for m in page_imports() if m not in sys.modules]\n"
            "import gc, torch\nfrozen = gc.get_freeze_count() > len(gc.get_objects())\n"
            "print(STATUS['models'], STATUS['done'], runs, 'explorer.frame' in sys.modules, "
            "'streamlit.emojis' in sys.modules, 'classroom.store' in sys.modules, missing, frozen)")
    # and what it made is hidden from the collector: more objects frozen than left in its view
    assert fresh_python(code) == "['reverse', 'copy', 'sort'] True [True, True, True] True True True [] True"


def test_the_server_warm_up_loads_the_shown_model_then_waits_for_a_first_page_before_the_rest():
    """The second half's imports began as soon as the three models were loaded and ran beside the first learner's
    run and then beside the browser drawing it; this wait shortens a cold start (benchmarks.browser_latency
    --cold-start-against REF measures by how much)."""
    code = ("import sys, threading, time\nimport explorer.warmup as w\n"
            "w.SECOND_HALF_WAITS, w.BROWSER_DRAWS = 600, 0.2\n"
            "server = threading.Thread(target=w.warm_up_server)\nserver.start()\n"
            "while 'reverse' not in w.STATUS['models']:\n    time.sleep(0.05)\n"
            "time.sleep(1)\n"
            "before = (list(w.STATUS['models']), w.STATUS['pages_imported'], 'sklearn' in sys.modules)\n"
            "w.warm_up_once(16)\nsignalled = w.PAGE_DONE.is_set()\nserver.join()\n"
            "print(before, signalled, w.STATUS['models'], w.STATUS['done'])")
    assert fresh_python(code) == "(['reverse'], False, False) True ['reverse', 'copy', 'sort'] True"


def test_the_warm_up_reads_each_page_scripts_imports_as_python_does_without_ast():
    """ast.parse on the warm-up's thread raised "SystemError: AST constructor recursion depth mismatch" in the whole
    suite at d7a776a (CPython 3.11; one reading: a test's run was parsing its own script meanwhile): the imports are
    read with tokenize, and must name what Python's own parser finds."""
    import ast

    from explorer.pages import PAGES
    from explorer.warmup import imported_modules
    for page in PAGES:
        source = (ROOT / page.script).read_text()
        parsed = set()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                parsed.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                parsed.add(node.module)
        assert imported_modules(source) == parsed, page.script
    tricky = ('"""A docstring line:\nfrom the top import nothing\n"""\nimport a.b as c, d  # e\nfrom . import f\n'
              'from .g import h\nfrom i.j import (k,\n    l)\nif True:\n    import m\nx = 1; import n\n'
              'if x: from o import p\nd = {"q": 1}\n')
    assert imported_modules(tricky) == {"a.b", "d", "i.j", "m", "n", "o"}


def test_the_first_page_warm_up_leaves_the_collector_alone():
    """Under AppTest the warm-up runs after the first page and ends in the middle of a later test: it must not
    freeze that test's objects (an own model held by a page's globals would never be freed)."""
    code = ("import gc\nimport threading\nimport explorer.warmup as w\nw.warm_up_once(16)\n"
            "[t.join() for t in threading.enumerate() if t.name == 'warm-up']\nprint(gc.get_freeze_count())")
    assert fresh_python(code) == "0"


def test_the_second_half_runs_once_when_a_first_page_ends_before_the_server_warm_up():
    """The first page's warm_up_once and the lifespan's warm_up_server both reach it: only one may run it (run
    twice, Masks' experiments took 0.8 s of CPU twice while the first learners arrived)."""
    code = ("import threading\nimport explorer.warmup as w\ncalls = []\noriginal = w._warm_up\n"
            "w._warm_up = lambda d_k: (calls.append(d_k), original(d_k))\n"
            "w.warm_up_once(16)\nw.warm_up_server()\n"
            "[t.join() for t in threading.enumerate() if t.name == 'warm-up']\nprint(len(calls))")
    assert fresh_python(code) == "1"


def test_after_the_first_page_warm_up_the_home_page_imports_nothing_of_its_own():
    """What a session's first run imported on its way (pandas and pyarrow for a table, Streamlit's emoji
    catalogue, the home page's modules: 0.85 s of 1.05 under AppTest) is imported by the server's warm-up before
    any learner arrives, and Streamlit's once-a-process REPL check (inspect.stack(), 0.25 s on a script's deep
    stack) is asked there too."""
    code = ("import sys\nfrom drivers.app_test import open_page\nfrom explorer.warmup import warm_up_first_page\n"
            "warm_up_first_page()\nimport streamlit.delta_generator as dg\nasked = dg._use_warning_has_been_displayed\n"
            "before = set(sys.modules)\nat = open_page('home', 'hello')\nassert not at.exception, at.exception\n"
            "tops = ('pandas', 'pyarrow', 'dateutil', 'torch', 'viz', 'analysis', 'explorer', 'transformer', "
            "'streamlit')\n"
            "new = sorted(m for m in set(sys.modules) - before if m.split('.')[0] in tops)\n"
            "print(asked, new)")
    assert fresh_python(code) == "True []"


def test_the_server_warm_up_runs_with_the_collector_off_and_turns_it_on_however_it_ends():
    """app.py's warm_up: Python's cyclic collector is off from its first import (400,000 objects made; each time
    they had grown by a quarter a full collection walked them all), and on again after, here after a failure."""
    code = ("import gc\nimport explorer.warmup as w\nseen = []\n"
            "def fails():\n    seen.append(gc.isenabled())\n    raise RuntimeError('no model')\n"
            "w.warm_up_first_page = fails\nimport app\n"
            "try:\n    app.warm_up()\nexcept RuntimeError:\n    pass\nprint(seen, gc.isenabled())")
    assert fresh_python(code) == "[False] True"
