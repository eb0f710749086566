"""The contract between server/ and the Streamlit it was written against: every symbol server.install replaces
(server.PATCHES) and every private name the server reads is still where, and shaped as, the server expects. A
Streamlit upgrade that moves one fails here, naming it, before any page misbehaves."""

import ast
import importlib
import inspect
from pathlib import Path

import pytest
import streamlit

import server
from server.middleware import CODE_WHEN_IDLE, ELEMENT_CODE, element_code_files

ROOT = Path(__file__).resolve().parents[2]
CHECKED_AGAINST = "1.67.0"   # the Streamlit whose source these contracts were read from (requirements.txt)

# The parameters each replaced function takes, as the wrapper in server/ calls it.
PARAMETERS = {
    "SessionState.on_script_will_rerun": ["self", "fresh_widget_states", "replay_trigger_states",
                                          "replay_trigger_values", "is_history_navigation"],
    "SessionState._seed_widget_from_url": ["self", "metadata", "user_key", "widget_id", "url_value"],
    "MemoryUploadedFileManager.get_upload_urls": ["self", "session_id", "file_names"],
    "MemoryUploadedFileManager.add_file": ["self", "session_id", "file"],
    "MemoryUploadedFileManager.remove_session_files": ["self", "session_id"],
}
# ButtonGroupMixin._button_group is called with keywords: the ones the wrapper reads or passes on.
BUTTON_GROUP_KEYWORDS = {"required", "deserializer"}

# Private names read, not replaced: (module, class or None for the module, name, how it is made there).
PRIVATE_READS = [
    ("streamlit.runtime.runtime", "Runtime", "_session_mgr", "attribute"),
    ("streamlit.runtime.state.session_state", "SessionState", "_new_widget_state", "attribute"),
    ("streamlit.runtime.state.session_state", "SessionState", "_new_session_state", "attribute"),
    ("streamlit.runtime.state.session_state", "SessionState", "_clear_url_param", "method"),
    ("streamlit.runtime.memory_uploaded_file_manager", "MemoryUploadedFileManager", "file_storage", "attribute"),
    ("streamlit.runtime.memory_uploaded_file_manager", "MemoryUploadedFileManager", "_total_bytes", "attribute"),
    ("streamlit.delta_generator", None, "_maybe_print_use_warning", "function"),
    ("streamlit.runtime.runtime_util", None, "_max_widget_state_size_bytes", "global read by "
                                                                             "get_max_widget_state_size_bytes"),
]


def resolve(module: str, path: str):
    obj = importlib.import_module(module)
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def test_the_streamlit_installed_is_the_one_the_contracts_were_read_against():
    """On an upgrade: read each symbol below in the new source, mend what moved, then move CHECKED_AGAINST."""
    assert streamlit.__version__ == CHECKED_AGAINST


def test_every_patch_is_listed_with_its_contract():
    listed = {path for _, path, _ in server.PATCHES}
    assert listed == {*PARAMETERS, "ButtonGroupMixin._button_group", "_max_widget_state_size_bytes",
                      "AppSession._handle_clear_cache_request"}
    for _, _, owner in server.PATCHES:
        assert (ROOT / Path(*owner.split("."))).with_suffix(".py").exists(), owner


@pytest.mark.parametrize("owner", sorted({owner for _, _, owner in server.PATCHES}))
def test_each_patching_module_names_the_upstream_issue_it_waits_for(owner):
    """A patch is a debt to a Streamlit release: its docstring says which upstream issue (or that none was found,
    and why the patch is this app's own policy), so an upgrade knows when to delete it."""
    doc = importlib.import_module(owner).__doc__ or ""
    assert "Upstream:" in doc, f"{owner}'s docstring names no upstream issue"


@pytest.mark.parametrize("module, path, owner", [p for p in server.PATCHES if p[1] in PARAMETERS])
def test_each_replaced_function_still_takes_what_its_wrapper_passes(module, path, owner):
    server.install()
    installed = resolve(module, path)
    original = inspect.unwrap(installed)
    assert installed is not original, f"{path} not replaced"
    parameters = list(inspect.signature(original).parameters)
    assert parameters == PARAMETERS[path], f"Streamlit's {module}.{path} moved: it takes {parameters} ({owner})"


def test_the_button_group_still_takes_a_required_flag_and_a_deserializer():
    server.install()
    original = inspect.unwrap(resolve("streamlit.elements.widgets.button_group", "ButtonGroupMixin._button_group"))
    parameters = set(inspect.signature(original).parameters)
    assert BUTTON_GROUP_KEYWORDS <= parameters, f"ButtonGroupMixin._button_group lost {BUTTON_GROUP_KEYWORDS - parameters}"


def test_a_clear_cache_message_still_goes_through_the_method_the_server_replaces():
    """server.guards replaces AppSession._handle_clear_cache_request outright: it holds only while Streamlit's
    handler of a browser's messages calls it by that name."""
    server.install()
    source = inspect.getsource(importlib.import_module("streamlit.runtime.app_session").AppSession)
    assert "self._handle_clear_cache_request()" in source, "AppSession no longer calls _handle_clear_cache_request"
    from streamlit.runtime.app_session import AppSession
    assert getattr(AppSession._handle_clear_cache_request, "refuses", False)


def test_the_message_size_is_still_read_from_the_global_the_server_sets():
    server.install()
    runtime_util = importlib.import_module("streamlit.runtime.runtime_util")
    assert runtime_util.get_max_widget_state_size_bytes() == 64 * 1024


def defines(module: str, owner: str | None, name: str) -> bool:
    """Whether Streamlit's source of `module` makes `name` in `owner` (a method, or `self.name = ...`) or, with no
    owner, at its top level (a function or a global)."""
    tree = ast.parse(inspect.getsource(importlib.import_module(module)))
    scopes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner] if owner else [tree]
    for scope in scopes:
        for node in ast.walk(scope):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return True
            if (isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Store)
                    and getattr(node, "attr", getattr(node, "id", None)) == name):
                return True
            if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == name:
                return True
    return False


@pytest.mark.parametrize("module, owner, name, kind", PRIVATE_READS)
def test_each_private_name_the_server_reads_is_still_made_where_it_was(module, owner, name, kind):
    assert defines(module, owner, name), f"Streamlit's {module}.{owner or ''}.{name} ({kind}) is gone"


def test_the_private_names_listed_are_every_one_the_server_reads():
    """The list above is whole: the layout test's finder, run over server/, finds no other private Streamlit name
    (the server's own names, self's and cls's, aside)."""
    from tests.unit.test_layout import private_reads, streamlit_private_names
    private = streamlit_private_names()
    read = {entry.split(".")[-1].split(" ")[-1] for f in sorted((ROOT / "server").glob("*.py"))
            for entry in private_reads(f, private)}
    listed = {name for *_, name, _ in PRIVATE_READS} | {p.split(".")[-1] for _, p, _ in server.PATCHES}
    assert read <= listed, read - listed


def test_each_element_the_first_page_loads_first_is_still_a_file_of_streamlits_build():
    """server.middleware's ElementCodeFirst finds these by name in the build: a renamed module would be loaded
    by nobody, silently."""
    files = element_code_files()
    assert [f.split(".")[0] for f in files] == list(ELEMENT_CODE)
    assert [f.split(".")[0] for f in element_code_files(CODE_WHEN_IDLE)] == list(CODE_WHEN_IDLE)
