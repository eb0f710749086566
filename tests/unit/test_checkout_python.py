"""drivers.checkout_python: which pins of another checkout differ from what this Python has installed, so that
an older commit is benchmarked on its own Streamlit, not on the working tree's."""

import importlib.metadata
import sys

from drivers.checkout_python import differing_pins, pins, python_for
from drivers.harness import ROOT


def test_pins_reads_exact_pins_with_extras_and_skips_includes_and_comments(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# a comment\n-r other.txt\ntorch==2.13.0\npsycopg[binary]==3.3.6  # PostgreSQL\n"
                            "loose>=1.0\nstreamlit == 1.65.0\nelsewhere==1.0; sys_platform == 'nowhere'\n")
    assert {name: str(r) for name, r in pins(requirements).items()} == {
        "torch": "torch==2.13.0", "psycopg": "psycopg[binary]==3.3.6", "streamlit": "streamlit==1.65.0"}


def test_a_pin_differs_when_another_version_or_nothing_is_installed(tmp_path):
    streamlit = importlib.metadata.version("streamlit")
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(f"streamlit=={streamlit}\nstreamlit-is-not-a-package==1.0\nplotly==0.0.1\n")
    assert differing_pins(requirements) == ["plotly==0.0.1", "streamlit-is-not-a-package==1.0"]


def test_the_working_tree_is_served_by_this_python_itself():
    """The suite installs requirements.txt's pins (torch's local label, +cpu, aside), so nothing differs."""
    assert differing_pins(ROOT / "requirements.txt") == []
    assert python_for(ROOT) == sys.executable
