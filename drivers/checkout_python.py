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
import site
import subprocess
import sys
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

CACHE = Path.home() / ".cache" / "attention-explorer"


def pins(requirements: Path) -> dict[str, Requirement]:
    """name -> requirement, for every exact (==) pin of one requirements file whose environment marker holds here
    (its -r and -c includes are not followed: no commit of this project has used one in its runtime file)."""
    found = {}
    for line in requirements.read_text().splitlines():
        line = line.split(" #")[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        exact = [s for s in requirement.specifier if s.operator in ("==", "===")]
        if exact and (requirement.marker is None or requirement.marker.evaluate()):
            found[requirement.name] = requirement
    return found


def differing_pins(requirements: Path) -> list[str]:
    """The pins of `requirements` that this Python does not have installed at a version they allow (torch's
    2.13.0+cpu is allowed by torch==2.13.0, as pip itself reads it)."""
    differ = []
    for name, requirement in pins(requirements).items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            installed = None
        if installed is None or not requirement.specifier.contains(installed, prereleases=True):
            differ.append(str(requirement))
    return sorted(differ)


def python_for(checkout: Path) -> str:
    """The interpreter that serves `checkout` with its own pins (runtime requirements.txt)."""
    differ = differing_pins(checkout / "requirements.txt")
    if not differ:
        return sys.executable
    key = hashlib.sha256("\n".join([sys.executable, sys.version, *differ]).encode()).hexdigest()[:16]
    venv = CACHE / f"python-{key}"
    python = venv / "bin" / "python"
    if not (venv / "done").exists():              # written last: a half-made environment is made again (--clear)
        print(f"making {venv} for {checkout.name}'s pins that differ: {', '.join(differ)}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", "--system-site-packages", str(venv)], check=True)
        if sys.prefix != sys.base_prefix:         # run from a virtual environment: see its packages too, not only
            own = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                                 check=True, capture_output=True, text=True).stdout.strip()
            Path(own, "parent-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
        constraints = venv / "constraints.txt"    # the checkout's other pins hold too (pip takes no extras here)
        constraints.write_text("".join(f"{r.name}{r.specifier}\n" for r in pins(checkout / "requirements.txt").values()))
        subprocess.run([str(python), "-m", "pip", "install", "-q", *differ, "-c", str(constraints)], check=True)
        (venv / "done").write_text("\n".join(differ) + "\n")
    return str(python)
