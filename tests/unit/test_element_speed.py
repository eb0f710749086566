"""explorer.element_speed: Streamlit's DeltaGenerator made without its per-element renaming pass, and the same
object in every other respect."""

import hashlib
import inspect

import pytest
import streamlit.delta_generator as streamlit_dg
from streamlit.cursor import RunningCursor
from streamlit.delta_generator import DeltaGenerator
from streamlit.proto.RootContainer_pb2 import RootContainer

import explorer  # noqa: F401 - importing the package installs the mend
from explorer import element_speed

# Streamlit 1.65.0's DeltaGenerator.__init__, read when the mend was written. Another version's may set more than
# the six attributes the mend sets: then this fails, and the mend is rewritten against it (or dropped).
STREAMLITS_INIT_SHA256 = "c27cd8511c21e33d367f79a8229616313e118d5933b0fa990bae9cb72f58ad66"


def test_importing_the_explorer_installs_it_and_streamlits_init_is_the_one_it_was_written_against():
    assert DeltaGenerator.__init__ is element_speed._init_without_renaming
    assert DeltaGenerator.__init__.__qualname__ == "DeltaGenerator.__init__"     # as errors name it
    source = inspect.getsource(element_speed._STREAMLITS_INIT)
    assert hashlib.sha256(source.encode()).hexdigest() == STREAMLITS_INIT_SHA256
    assert source.rstrip().endswith("func.__module__ = self.__module__")   # the pass it skips is its last


def test_every_mixin_function_is_already_renamed():
    renamed = [f for mixin in DeltaGenerator.__bases__ for f in mixin.__dict__.values() if callable(f)]
    assert len(renamed) > 100
    assert {f.__module__ for f in renamed} == {streamlit_dg.__name__}


def _made(init, *args, **kwargs) -> dict:
    made = DeltaGenerator.__new__(DeltaGenerator)
    init(made, *args, **kwargs)
    return vars(made)


@pytest.mark.parametrize("root", [RootContainer.MAIN, RootContainer.SIDEBAR, RootContainer.BOTTOM, None])
@pytest.mark.parametrize("block_type", [None, "column", "form"])
def test_it_makes_the_same_delta_generator_as_streamlits(root, block_type):
    parent = DeltaGenerator()
    cursor = RunningCursor(root_container=root if root is not None else RootContainer.MAIN, parent_path=(1,))
    for args, kwargs in [((), {}), ((root,), {}), ((root, cursor, parent, block_type), {}),
                         ((), {"root_container": root, "parent": parent, "block_type": block_type})]:
        ours, theirs = _made(element_speed._init_without_renaming, *args, **kwargs), \
            _made(element_speed._STREAMLITS_INIT, *args, **kwargs)
        assert ours == theirs and set(ours) == {"_root_container", "_provided_cursor", "_parent", "_block_type",
                                                "_creating_fragment_id", "_form_data"}


def test_streamlits_containers_are_made_the_same_way(monkeypatch):
    """An expander's, a tab's, a popover's, a status's and a dialog's container: DeltaGenerator subclasses with
    their own __init__ that calls DeltaGenerator's. Each made under both inits, with the same arguments."""
    import streamlit.elements.lib.dialog  # noqa: F401 - imported so that each container class exists
    import streamlit.elements.lib.mutable_expander_container  # noqa: F401
    import streamlit.elements.lib.mutable_popover_container  # noqa: F401
    import streamlit.elements.lib.mutable_status_container  # noqa: F401
    import streamlit.elements.lib.mutable_tab_container  # noqa: F401
    containers = [c for c in DeltaGenerator.__subclasses__() if c.__module__.startswith("streamlit.")]
    assert {c.__name__ for c in containers} >= {"ExpanderContainer", "TabContainer", "PopoverContainer",
                                                 "StatusContainer", "Dialog"}
    parent = DeltaGenerator()
    for container in containers:
        made = {}
        for name, init in (("ours", element_speed._init_without_renaming),
                           ("theirs", element_speed._STREAMLITS_INIT)):
            monkeypatch.setattr(DeltaGenerator, "__init__", init)
            cursor = RunningCursor(root_container=RootContainer.MAIN, parent_path=(0, 2))
            made[name] = vars(container(RootContainer.MAIN, cursor, parent, "expandable"))
        cursors = made["ours"].pop("_provided_cursor"), made["theirs"].pop("_provided_cursor")
        assert made["ours"] == made["theirs"] and cursors[0].parent_path == cursors[1].parent_path, container


def test_a_cursor_of_another_container_is_refused_by_both():
    cursor = RunningCursor(root_container=RootContainer.SIDEBAR)
    for init in (element_speed._init_without_renaming, element_speed._STREAMLITS_INIT):
        with pytest.raises(RuntimeError, match="must be the same"):
            _made(init, RootContainer.MAIN, cursor)
