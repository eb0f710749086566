"""A real PostgreSQL server of its own in a temporary folder, for the tests and benchmarks of class mode:
Debian's postgresql (scripts/test.sh installs it), initdb'd and started on a free localhost port, stopped and
deleted afterwards. As root it runs as the postgres user (initdb refuses root)."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .harness import _free_port


def postgres_bin() -> Path | None:
    """Debian's newest PostgreSQL binaries folder, or None when the package is not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def _as_owner(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextmanager
def temporary_postgres() -> Iterator[str]:
    """Yields a SQLAlchemy URL (postgresql+psycopg://…) to a fresh server with an empty database."""
    binaries = postgres_bin()
    if binaries is None:
        raise RuntimeError("PostgreSQL is not installed (Debian's postgresql; scripts/test.sh installs it)")
    folder = Path(tempfile.mkdtemp(prefix="explorer-pg-"))
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    port = _free_port()
    subprocess.run(_as_owner([str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust",
                              "--no-sync", "-E", "UTF8"]), check=True, capture_output=True)
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=on -c max_connections=300"
    subprocess.run(_as_owner([str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"),
                              "-w", "-t", "60", "start"]), check=True, capture_output=True)
    try:
        deadline = time.monotonic() + 30
        while subprocess.run([str(binaries / "pg_isready"), "-h", "127.0.0.1", "-p", str(port)],
                             capture_output=True).returncode != 0:
            if time.monotonic() > deadline:
                raise RuntimeError("PostgreSQL did not accept connections within 30 s")
            time.sleep(0.2)
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_owner([str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
