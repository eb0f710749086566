"""The README's two commands on a machine whose Python refuses `pip install` (PEP 668, as current Debian and
Ubuntu do): both make and use the project's own virtual environment, and never install into the system Python.

The scripts are the project's own (scripts/venv.sh, apt.sh, run.sh, test.sh), copied into a fresh folder beside a small
project of the same shape (a one-line app, one test per tier, a one-page site): the real requirements would
take minutes to install again, and what is under test is the scripts' path, not the packages."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from drivers.harness import ROOT, _free_port

# A python3 first on the PATH that refuses installs outside a virtual environment, as Debian's does.
REFUSING_PYTHON = """#!/bin/sh
case " $* " in
  *" -m pip install "*|*" -m pip "*" install "*)
    if [ -z "$VIRTUAL_ENV" ]; then
      echo "error: externally-managed-environment" >&2
      echo "This environment is externally managed (PEP 668)." >&2
      exit 1
    fi ;;
esac
exec {real} "$@"
"""


def pinned(name: str) -> str:
    return next(line.split("#")[0].strip() for line in (ROOT / "requirements-dev.txt").read_text().splitlines()
                + (ROOT / "requirements.txt").read_text().splitlines() if line.lower().startswith(f"{name}=="))


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    """(the project folder, the environment a newcomer's shell has: no virtual environment active, the refusing
    python3 first on the PATH)."""
    folder = tmp_path_factory.mktemp("fresh")
    project, bin_ = folder / "project", folder / "bin"
    (project / "scripts").mkdir(parents=True)
    for script in ("venv.sh", "apt.sh", "run.sh", "test.sh"):
        shutil.copy(ROOT / "scripts" / script, project / "scripts" / script)
    (project / "requirements.txt").write_text(pinned("streamlit") + "\n")
    (project / "requirements-dev.txt").write_text("-r requirements.txt\n" + "\n".join(
        pinned(n) for n in ("pytest", "pytest-xdist", "mkdocs", "mkdocs-material")) + "\n")
    (project / "app.py").write_text('import streamlit as st\nst.write("fresh")\n')
    for tier in ("unit", "app", "e2e"):
        (project / "tests" / tier).mkdir(parents=True)
        (project / "tests" / tier / f"test_{tier}.py").write_text(
            "import sys\n\ndef test_runs_in_the_projects_environment():\n"
            f"    open('{tier}.prefix', 'w').write(sys.prefix)\n")
    (project / "docs").mkdir()
    (project / "docs" / "index.md").write_text("# Fresh\n\n[Itself](index.md)\n")
    (project / "mkdocs.yml").write_text("site_name: Fresh\ntheme:\n  name: material\n")
    (project / "node_modules" / "axe-core").mkdir(parents=True)          # npm's part is not under test
    (project / "node_modules" / "axe-core" / "axe.min.js").write_text("")
    bin_.mkdir()
    (bin_ / "python3").write_text(REFUSING_PYTHON.format(real=getattr(sys, "_base_executable", sys.executable)))
    (bin_ / "python3").chmod(0o755)
    path = [p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "activate").exists()]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "EXPLORER_VENV")}
    env["PATH"] = os.pathsep.join([str(bin_), *path])
    return project, env


def test_the_machines_python_refuses_a_system_install(machine):
    project, env = machine
    refused = subprocess.run(["python3", "-m", "pip", "install", "six"], cwd=project, env=env,
                             capture_output=True, text=True)
    assert refused.returncode == 1 and "externally-managed-environment" in refused.stderr


def test_the_run_command_makes_its_environment_and_serves_the_app(machine):
    project, env = machine
    port = _free_port()
    log = open(project / "run.log", "w")
    process = subprocess.Popen(["bash", "scripts/run.sh", "--server.headless", "true", "--server.port", str(port)],
                               cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline, answer = time.monotonic() + 600, None
        while time.monotonic() < deadline and process.poll() is None and answer is None:
            try:
                answer = urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read()
            except OSError:
                time.sleep(1)
        assert answer == b"ok", (project / "run.log").read_text()[-2000:]
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=30)
    assert (project / ".venv" / "bin" / "streamlit").exists()
    assert "externally-managed" not in (project / "run.log").read_text()


def test_the_test_command_uses_the_same_environment_and_builds_the_docs(machine):
    project, env = machine
    done = subprocess.run(["bash", "scripts/test.sh"], cwd=project, env=env, capture_output=True, text=True,
                          timeout=1200)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"\b2 passed\b", done.stdout) and re.search(r"\b1 passed\b", done.stdout)  # two tiers
    venv = (project / ".venv").resolve()
    for tier in ("unit", "app", "e2e"):
        assert Path((project / f"{tier}.prefix").read_text()).resolve() == venv, tier
    assert (project / "site" / "index.html").exists()                            # mkdocs build --strict
