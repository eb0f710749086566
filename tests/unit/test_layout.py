"""Each module in its room: the model package needs torch alone, analysis and teaching need no Streamlit, viz knows
arrays and not models, a page script computes nothing (no numpy, torch or transformer/: its page model does),
class mode's store knows only its database,
the app never imports test code, and tests and benchmarks share drivers/ alone."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEST_CODE = {"tests", "benchmarks", "drivers"}
FORBIDDEN = {
    "transformer": {"streamlit", "plotly", "sklearn", "scipy", "pandas", "analysis", "explorer", "viz", "teaching",
                    *TEST_CODE},
    "analysis": {"streamlit", "plotly", "explorer", "viz", *TEST_CODE},
    "teaching": {"streamlit", "plotly", "explorer", "viz", *TEST_CODE},
    "classroom": {"streamlit", "plotly", "torch", "transformer", "analysis", "explorer", "viz", "teaching",
                  *TEST_CODE},
    "viz": {"streamlit", "torch", "transformer", "analysis", "explorer", "teaching", *TEST_CODE},
    "explorer": TEST_CODE,
    "server": {"torch", "transformer", "analysis", "explorer", "viz", "teaching", "classroom", "app_pages",
               *TEST_CODE},
    "app_pages": {"numpy", "torch", "transformer", *TEST_CODE},
    "drivers": {"tests", "benchmarks"},        # what both share imports neither
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
