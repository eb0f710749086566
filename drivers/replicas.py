"""Driving `scripts/serve.sh`: N app replicas behind HAProxy, started and stopped as a teacher would, for the
browser tests of issue 17 and benchmarks.classroom."""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .harness import ROOT, _free_port, wait_until_healthy


COOKIE = "EXPLORER_REPLICA"   # the cookie HAProxy keeps each browser on its replica with (scripts/serve.sh)


@dataclass
class Replicas:
    process: subprocess.Popen   # scripts/serve.sh, leader of its own process group
    url: str                    # the proxy's
    logs: Path

    def table(self) -> list[tuple[int, int, int]]:
        """(replica number, private port, process id) of each replica, from the script's replicas.txt."""
        lines = (self.logs / "replicas.txt").read_text().split("\n")
        return [tuple(int(x) for x in line.split()) for line in lines if line.strip()]

    def pids(self) -> list[int]:
        return [pid for _, _, pid in self.table()]


def start_replicas(n: int, logs: Path, timeout: float = 180) -> Replicas:
    """`bash scripts/serve.sh --replicas n` on a free localhost port, returned once the proxy answers the health
    check and every replica is up."""
    port = _free_port()
    logs.mkdir(parents=True, exist_ok=True)
    out = open(logs / "serve.out", "w")
    process = subprocess.Popen(
        ["bash", "scripts/serve.sh", "--replicas", str(n), "--port", str(port), "--address", "127.0.0.1",
         "--logs", str(logs)],
        cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    served = Replicas(process, url, logs)
    if wait_until_healthy(url, process, timeout):
        return served
    if process.poll() is not None:
        raise RuntimeError(f"scripts/serve.sh ended with {process.returncode}: {(logs / 'serve.out').read_text()}")
    stop_replicas(served)
    raise RuntimeError(f"the proxy did not answer {url}/api/ready within {timeout:.0f} s")


def stop_replicas(replicas: Replicas) -> None:
    """SIGTERM to the script, as Ctrl-C would stop it: its trap stops the replicas and the proxy."""
    if replicas.process.poll() is None:
        replicas.process.send_signal(signal.SIGTERM)
        try:
            replicas.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(replicas.process.pid, signal.SIGKILL)
            replicas.process.wait()
