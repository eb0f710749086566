"""One mend to Streamlit's speed, made once per process on import of the explorer package.

Streamlit 1.65's DeltaGenerator.__init__ ends by setting `__module__` on every function of its 56 mixins (127
of them) to "streamlit.delta_generator", and every element a page draws makes a new DeltaGenerator: 20 µs an
element, 7 % of a server's time with the GIL held while a learner typed new words on every page (py-spy --gil).
The first DeltaGenerator made (on `import streamlit`) has already renamed them all, so for a DeltaGenerator each
later pass changes nothing. (Streamlit's containers (an expander's, a tab's, a popover's, a dialog's) are
subclasses whose bases are DeltaGenerator alone: made with the pass, each renamed DeltaGenerator's own private
methods to its module, a quirk nothing reads; made without it, they keep theirs.) Here __init__ sets the same six
attributes without that pass; tests/unit/test_element_speed.py holds the two equal on plain DeltaGenerators and
on those containers, and fails if Streamlit's __init__ changes. Installed last in explorer/__init__.py, after the
guards that wrap mixin methods, so those too were renamed by Streamlit's own pass."""

from __future__ import annotations

from streamlit.delta_generator import DeltaGenerator

_STREAMLITS_INIT = DeltaGenerator.__init__


def _init_without_renaming(self: DeltaGenerator, root_container: int | None = _STREAMLITS_INIT.__defaults__[0],
                           cursor=None, parent: DeltaGenerator | None = None, block_type: str | None = None) -> None:
    if root_container is not None and cursor is not None and root_container != cursor.root_container:
        raise RuntimeError("DeltaGenerator root_container and cursor.root_container must be the same")
    self._root_container = root_container
    self._provided_cursor = cursor
    self._parent = parent
    self._block_type = block_type
    self._creating_fragment_id = None
    self._form_data = None


for _name in ("__name__", "__qualname__", "__doc__", "__annotations__"):   # errors and help read as Streamlit's
    setattr(_init_without_renaming, _name, getattr(_STREAMLITS_INIT, _name))


def install() -> None:
    """One DeltaGenerator is made with Streamlit's own __init__ first, so the renaming is done."""
    if DeltaGenerator.__init__ is not _init_without_renaming:
        DeltaGenerator()
        DeltaGenerator.__init__ = _init_without_renaming
