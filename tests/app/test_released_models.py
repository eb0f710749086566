"""An own model leaves memory with its session's shelf, whatever pages the session drew.

Streamlit keeps a disconnected session's state for server.disconnectedSessionTTL (120 s), so that a browser that
reconnects finds it. Its widgets stay in that state with their callbacks and format functions, and a function
defined in a page script keeps the whole page's globals alive (its `ckpt`, its runs). The shelf lets go of an
upload when the browser disconnects; these tests check that nothing the session still remembers holds it."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch
from streamlit.runtime import caching

from explorer.cache import SHARED_RUNS
from server.run_cache import OWN_RUN_BYTES
from transformer.checkpoint import Checkpoint
from transformer.config import ModelConfig
from transformer.model import Transformer
from transformer.vocab import Vocab

from .helpers import PAGES, no_exception, open_page, own_model_state, own_shelf

pytestmark = pytest.mark.slow   # left out of the quick tier: every page drawn with an own model, then released

APPTEST_SESSION = "test session id"   # the one session id AppTest runs every script under


def untrained_reverser() -> Checkpoint:
    torch.manual_seed(0)
    config = ModelConfig(d_model=16, n_heads=2, n_encoder_layers=1, n_decoder_layers=1, d_ff=32)
    return Checkpoint(Transformer(config).eval(), Vocab(), {"task": "reverse"})


def holders(obj) -> list[str]:
    """The types of what still refers to `obj`, for the failure message."""
    return sorted({type(r).__qualname__ for r in gc.get_referrers(obj)})


@pytest.mark.parametrize("page", sorted(p.stem for p in PAGES.glob("*.py")))
def test_nothing_a_page_leaves_in_session_state_holds_a_released_own_model(page):
    loaded = untrained_reverser()
    model = weakref.ref(loaded.model)
    state = own_model_state(loaded, "Your model")
    del loaded
    at = open_page(page, "level", state=state)
    no_exception(at)
    assert model() is not None                                   # the page really showed the own model
    caching.clear_session_resource_cache(APPTEST_SESSION)      # what Streamlit does when the browser disconnects
    caching.clear_session_data_cache(APPTEST_SESSION)
    open_page("glossary", None)     # another session's run: the script runner's __main__ module is the latest run's
    gc.collect()
    assert model() is None, holders(model())
    assert len(at.session_state) > 0                           # while the session's state lives on


def test_an_own_models_runs_stay_with_its_session_and_go_with_it():
    """Runs of an own model are cached on its session's shelf (bounded in bytes there), never in the cache every
    session shares, and the shelf's release empties them."""
    state = own_model_state(untrained_reverser(), "Your model")
    own_id = state["own_model"]
    mine = open_page("attention", "level", state=state)
    no_exception(mine)
    other = open_page("attention", "level")                   # another session, on the bundled model
    no_exception(other)
    runs = own_shelf(mine).runs
    assert runs.budget == OWN_RUN_BYTES
    assert {args[:2] for _, args in runs.keys()} == {(own_id, "level")}     # its text_run of "level"
    shared = {args[:2] for _, args in SHARED_RUNS.keys()}
    assert not any(key == own_id for key, _ in shared)
    assert any(text == "level" for _, text in shared)                       # the other session's run
    caching.clear_session_resource_cache(APPTEST_SESSION)    # the browser disconnects
    assert len(runs) == 0 and runs.total == 0
