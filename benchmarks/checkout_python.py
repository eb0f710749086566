"""The Python that runs another checkout of the app with that checkout's own pinned packages.

A benchmark that compares the working tree with an older commit must not run the old commit on the new
commit's packages: after a Streamlit upgrade, the old app served by the new Streamlit would be credited with
the new Streamlit's speed. When every pin in the checkout's requirements.txt is what this Python has installed,
this Python is used; otherwise a virtual environment that sees this Python's packages and installs, on top, the
pins that differ (made once per set of pins, under ~/.cache/attention-explorer/).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

CACHE = Path.home() / ".cache" / "attention-explorer"
PIN = re.compile(r"^\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?==([^\s#;]+)")


def pins(requirements: Path) -> dict[str, str]:
    """name -> 'name[extras]==version' for every exact pin of one requirements file (not its -r includes)."""
    found = {}
    for line in requirements.read_text().splitlines():
        match = PIN.match(line)
        if match:
            name, extras, version = match.groups()
            found[name] = f"{name}{extras or ''}=={version}"
    return found


def differing_pins(requirements: Path) -> list[str]:
    """The pins of `requirements` that this Python does not have installed at that version."""
    differ = []
    for name, pin in pins(requirements).items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            installed = None
        if installed is None or installed.split("+")[0] != pin.split("==")[1]:   # 2.13.0+cpu is torch==2.13.0
            differ.append(pin)
    return sorted(differ)


def python_for(checkout: Path) -> str:
    """The interpreter that serves `checkout` with its own pins (runtime requirements.txt)."""
    differ = differing_pins(checkout / "requirements.txt")
    if not differ:
        return sys.executable
    key = hashlib.sha256("\n".join([sys.executable, *differ]).encode()).hexdigest()[:16]
    venv = CACHE / f"python-{key}"
    python = venv / "bin" / "python"
    if not (venv / "done").exists():
        print(f"making {venv} for {checkout.name}'s pins that differ: {', '.join(differ)}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", "--system-site-packages", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *differ], check=True)
        (venv / "done").write_text("\n".join(differ) + "\n")
    return str(python)
