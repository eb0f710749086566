"""GET /api/warm-up reads the warm-up's STATUS without importing it (server.status_of). A module is in sys.modules
before its body has run: asked in that moment, the route answered 500 in CI."""

import sys
import types

import pytest

from server import status_of

NOT_BEGUN = {"models": [], "pages_imported": False, "done": False}


@pytest.fixture
def module_name(monkeypatch):
    name = "warm_up_under_test"
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


def test_a_module_not_imported_has_not_begun(module_name):
    assert status_of(module_name, NOT_BEGUN) == NOT_BEGUN


def test_a_module_still_being_imported_has_not_begun(module_name, monkeypatch):
    monkeypatch.setitem(sys.modules, module_name, types.ModuleType(module_name))   # its body not yet at STATUS
    assert status_of(module_name, NOT_BEGUN) == NOT_BEGUN


def test_the_status_is_a_copy_the_warm_up_can_go_on_changing(module_name, monkeypatch):
    module = types.ModuleType(module_name)
    module.STATUS = {"models": ["reverse"], "pages_imported": False, "done": False}
    monkeypatch.setitem(sys.modules, module_name, module)
    status = status_of(module_name, NOT_BEGUN)
    module.STATUS["models"].append("copy")
    assert status == {"models": ["reverse"], "pages_imported": False, "done": False}
    assert status_of(module_name, NOT_BEGUN)["models"] == ["reverse", "copy"]
