"""A benchmark's record: the command that ran, when, and its figures, in docs/records/<name>.json, which the
docs' benchmarks page is built from."""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from pathlib import Path

RECORDS = Path(__file__).resolve().parents[1] / "docs" / "records"


def machine() -> dict:
    """What the figures were measured on: they move with the machine, and this one is shared."""
    cpuinfo = Path("/proc/cpuinfo")
    models = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
              if line.startswith("model name")] if cpuinfo.exists() else []
    return {"cpu": models[0] if models else platform.machine(), "cores": os.cpu_count(),
            "python": platform.python_version()}


def read_record(name: str) -> dict:
    """docs/records/<name>.json as written: command, date, machine, figures."""
    return json.loads((RECORDS / f"{name}.json").read_text())


def write_record(name: str, figures: dict, module: str | None = None) -> Path:
    """docs/records/<name>.json for `python -m benchmarks.<module>` (default: <name>) as this process was called."""
    path = RECORDS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"command": " ".join([f"python -m benchmarks.{module or name}", *sys.argv[1:]]),
                                "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="minutes"),
                                "machine": machine(), "figures": figures}, indent=1, ensure_ascii=False) + "\n")
    print(f"written: docs/records/{path.name}")
    from scripts.benchmarks_page import main as write_page   # the docs' page follows its records at once
    write_page()
    return path
