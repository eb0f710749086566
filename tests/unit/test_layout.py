"""Each module in its room: the model package needs torch alone, analysis and teaching need no Streamlit, viz knows
arrays and not models, a page script computes nothing (no numpy, torch or transformer/: its page model does),
class mode's store knows only its database,
the app never imports test code, tests and benchmarks share drivers/ alone, and the tools stand in floors: drivers/
below scripts/ below benchmarks/ (farm-studio counted an arrow running back up from each of the two lower)."""

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEST_CODE = {"tests", "benchmarks", "drivers"}
FORBIDDEN = {
    "transformer": {"streamlit", "plotly", "sklearn", "scipy", "pandas", "analysis", "explorer", "viz", "teaching",
                    *TEST_CODE},
    "analysis": {"streamlit", "plotly", "explorer", "viz", "teaching", *TEST_CODE},
    "teaching": {"streamlit", "plotly", "explorer", "viz", *TEST_CODE},
    "classroom": {"streamlit", "plotly", "torch", "transformer", "analysis", "explorer", "viz", "teaching",
                  *TEST_CODE},
    "viz": {"streamlit", "torch", "transformer", "analysis", "explorer", "teaching", *TEST_CODE},
    "explorer": TEST_CODE,
    "server": {"torch", "transformer", "analysis", "explorer", "viz", "teaching", "classroom", "app_pages",
               *TEST_CODE},
    "app_pages": {"numpy", "torch", "transformer", *TEST_CODE},
    "drivers": {"tests", "benchmarks", "scripts"},   # what both share imports neither, nor the scripts above it
    "scripts": {"tests", "benchmarks"},
    "benchmarks": {"tests"},
    "tests": {"benchmarks"},
}


def imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", list(FORBIDDEN))
def test_a_package_imports_nothing_outside_its_room(package):
    files = sorted((ROOT / package).rglob("*.py"))
    assert files
    found = {str(f.relative_to(ROOT)): imported(f) & FORBIDDEN[package] for f in files}
    assert {name: names for name, names in found.items() if names} == {}


def test_the_forbidden_names_are_really_caught():
    """The check itself: a line importing streamlit is seen."""
    assert "streamlit" in imported(ROOT / "app.py")


PRODUCT = ("app.py", "app_pages", "explorer", "analysis", "teaching", "viz", "classroom", "transformer")
STREAMLIT_INSIDES = ("streamlit.runtime", "streamlit.elements", "streamlit.proto", "streamlit.web",
                     "streamlit.delta_generator")


def product_files() -> list[Path]:
    return sorted(f for part in PRODUCT for f in ([ROOT / part] if part.endswith(".py") else (ROOT / part).rglob("*.py")))


def streamlit_insides(path: Path) -> list[str]:
    """The modules of Streamlit's internals a file imports (its public `streamlit`, `streamlit.errors` and
    `streamlit.components.v2` are the app's to use)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
        found += [n for n in names if n.startswith(STREAMLIT_INSIDES)]
    return found


def test_only_the_server_imports_streamlits_internals():
    found = {str(f.relative_to(ROOT)): streamlit_insides(f) for f in product_files()}
    assert {name: mods for name, mods in found.items() if mods} == {}


@functools.cache
def streamlit_private_names() -> frozenset[str]:
    """Every private name Streamlit's own code defines: its functions and methods, and the attributes it sets."""
    import streamlit
    names = set()
    for source in Path(streamlit.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return frozenset(n for n in names if n.startswith("_") and not n.endswith("__"))


def private_reads(path: Path, private: frozenset[str]) -> list[str]:
    """Where a file reaches a private name of Streamlit's on an object not its own (self and cls are its own), as
    an attribute or through getattr/setattr/hasattr."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Attribute) and node.attr in private
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            found.append(f"{node.lineno}: .{node.attr}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) > 1
              and isinstance(node.args[1], ast.Constant) and node.args[1].value in private):
            found.append(f"{node.lineno}: {node.func.id} {node.args[1].value}")
    return found


def test_only_the_server_reads_streamlits_private_attributes():
    private = streamlit_private_names()
    found = {str(f.relative_to(ROOT)): private_reads(f, private) for f in product_files()}
    assert {name: reads for name, reads in found.items() if reads} == {}


def test_the_internals_checks_see_what_the_server_does():
    """The checks themselves: the server's own files import Streamlit's internals and read its private names."""
    private = streamlit_private_names()
    assert {"_session_mgr", "_button_group", "_new_widget_state"} <= private
    assert streamlit_insides(ROOT / "server" / "widget_guard.py")
    assert private_reads(ROOT / "server" / "guards.py", private)
    assert private_reads(ROOT / "server" / "gate.py", private)


PRODUCT_ROOMS = ("transformer", "analysis", "teaching", "classroom", "viz", "explorer", "server")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports_of(path: Path, modules: set[str]) -> set[str]:
    """The product modules `path` imports, at its top or inside a function, by `import`, `from` (a relative one
    too) or `importlib.import_module("...")`: a circle closed through a late import is a circle all the same."""
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = set()

    def add(name: str) -> None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != here:
            found.add(name)

    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            add(node.args[0].value)
    return found


def test_no_product_module_imports_itself_back_through_a_circle():
    """The issue-67 frame <-> warmup circle, and any other: following imports from a module never comes back to it.
    A package's __init__ importing its own submodules is not a circle unless a submodule imports the package back."""
    files = [f for room in PRODUCT_ROOMS for f in sorted((ROOT / room).rglob("*.py"))]
    modules = {_module_name(f) for f in files}
    graph = {_module_name(f): _imports_of(f, modules) for f in files}
    circles = []
    for start in graph:
        seen, stack = set(), [(start, (start,))]
        while stack:
            node, path = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    circles.append(" -> ".join((*path, start)))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, (*path, nxt)))
    assert circles == []
    assert "explorer.frame" in graph and graph["explorer.frame"], "the walk must see the frame's imports"


def test_the_chart_components_are_one_unit_that_imports_nothing_else_of_the_project():
    """explorer/components is the front end's one Python entry beside its JS and CSS: it takes specs (dicts) and
    mounts them, so it may be moved or replaced without the page glue around it."""
    unit = ROOT / "explorer" / "components"
    files = sorted(unit.rglob("*.py"))
    assert files == [unit / "__init__.py"]
    project = {"transformer", "analysis", "teaching", "classroom", "viz", "explorer", "server", "app_pages"}
    assert imported(files[0]) & project == set()
    assert not any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(ast.parse(files[0].read_text())))
    read = {p.name for p in unit.iterdir() if p.suffix in {".js", ".css"}}
    source = files[0].read_text()
    assert read and all(f'"{name}"' in source for name in read), "every JS and CSS file beside it is read by it"


@pytest.mark.parametrize("view, page_model, spec", [
    ("explorer/attention_view.py", "analysis.page_models.attention", "viz.canvas_heatmap"),
    ("explorer/decode_view.py", "analysis.page_models.decode", "viz.decode_steps"),
])
def test_a_charts_drawing_half_crosses_five_files(view, page_model, spec):
    """The Attention heatmap and Decode's bars, from the page model to the pixel: the page model, the view that
    takes its numbers, one viz module that specifies the chart (importing no other viz module that touches the
    numbers), the components' Python entry and its one front-end module. The data half (layer, trace, run, cache,
    page model) is DESIGN.md's five."""
    files = [ROOT / view]
    modules = {_module_name(f) for room in PRODUCT_ROOMS for f in (ROOT / room).rglob("*.py")}
    used = _imports_of(files[0], modules)
    assert page_model in used and spec in used and "explorer.components" in used
    spec_file = ROOT / (spec.replace(".", "/") + ".py")
    drawing = {m for m in _imports_of(spec_file, modules) if m.startswith("viz.")}
    # what else of viz the spec reads is named constants (colours, tick widths) and the height rule, no numbers
    assert drawing <= {"viz.canvas_heatmap", "viz.notes", "viz.strips", "viz.style"} - {spec}
    assert sorted(p.name for p in (ROOT / "explorer" / "components").glob("*.js")) == ["front_end.js"]
