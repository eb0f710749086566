"""Driving uploads against a real server while another learner types: shared by the browser test of issue 16
and benchmarks.hostile_uploads."""

from __future__ import annotations

import glob
import json
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch

from transformer import checkpoint
from transformer.config import ModelConfig
from transformer.model import Transformer
from transformer.vocab import Vocab

from .harness import ROOT, load, resident_mb, run_ends

UPLOADER = "[data-testid='stFileUploaderDropzoneInput']"
TEMP_PATTERN = str(Path(tempfile.gettempdir()) / "attention-explorer-*")


def temporary_folders() -> set[str]:
    return set(glob.glob(TEMP_PATTERN))


LARGE = ModelConfig(d_model=192, n_heads=4, n_encoder_layers=1, n_decoder_layers=1, d_ff=512)  # 847,744 parameters


def large_valid_zip(seed: int) -> bytes:
    """A valid model near the parameter limit (LARGE: 3.4 MB of weights), random weights."""
    torch.manual_seed(seed)
    config = LARGE
    return checkpoint.to_zip(checkpoint.Checkpoint(Transformer(config).eval(), Vocab(), {"task": f"seed {seed}"}))


def upload(page, name: str, data: bytes) -> str:
    """Upload a zip on the Training page and return the message the learner is shown about it (every message
    names the file, so give each upload a name of its own)."""
    message = page.locator("[data-testid='stAlertContentError'], [data-testid='stAlertContentSuccess']")
    mine = message.filter(has_text=name)
    with run_ends(page, "whole", 120_000):
        page.locator(UPLOADER).set_input_files(files=[{"name": name, "mimeType": "application/zip", "buffer": data}])
        mine.first.wait_for(timeout=120_000)
    return mine.first.inner_text()


def sessions_holding_uploads(context, url: str, zips: list[bytes]) -> list[tuple[object, str]]:
    """One tab per zip in `context` (a tab is a Streamlit session of its own; the tabs share the browser's cache of
    the app's scripts, which a fresh context fetched again for 2-4 s), each uploading its zip on the Training page
    and keeping it as its model: (page, the message shown) for each, still open. Closing a tab ends its session.
    Each tab is another learner: the browser's cookie (server.identity) is cleared before it opens, so the server
    hands it one of its own, as it would to another student's phone (the tabs of one browser share a budget of
    three models)."""
    sessions = []
    for seed, data in enumerate(zips):
        context.clear_cookies()
        page = context.new_page()
        load(page, f"{url}/training?text=level", timeout=120_000)
        sessions.append((page, upload(page, f"model-{seed}.zip", data)))
    return sessions


class MemoryWatch:
    """Samples a process's resident memory every 50 ms in a thread: before, peak and now."""

    def __init__(self, pid: int) -> None:
        self.pid, self.before, self.peak = pid, resident_mb(pid), 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, resident_mb(self.pid))

    def __enter__(self) -> "MemoryWatch":
        self.peak = self.before
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def now(self) -> float:
        return resident_mb(self.pid)


@dataclass
class Typist:
    """A second learner on the same server, typing a new word every second over Streamlit's own protocol
    (drivers.protocol_session) while the attack goes on: every answer timed and checked. It types from a
    process of its own (drivers.typist), so that an attacker driven from this process never holds the
    interpreter while the learner's answer is timed: only the server is shared, as in a class."""

    url: str
    seed: int = 0                      # typists with different seeds type different words (no cache hits)
    page: str = "attention"
    answers: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    _process: subprocess.Popen | None = None
    _reader: threading.Thread | None = None

    def _read(self) -> None:
        for line in self._process.stdout:
            answer = json.loads(line)
            if answer["wrong"]:
                self.wrong.append(answer["wrong"])
            self.answers.append(answer["seconds"])

    def __enter__(self) -> "Typist":
        self._process = subprocess.Popen(
            [sys.executable, "-m", "drivers.typist", self.url, str(self.seed), self.page],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        while not self.answers and self._process.poll() is None:   # typing has begun (or failed to)
            time.sleep(0.05)
        if not self.answers:
            raise RuntimeError(f"the typist stopped before its first answer (exit {self._process.returncode})")
        return self

    def __exit__(self, *exc) -> None:
        self._process.stdin.close()           # the typist's signal to finish its word and leave
        self._process.wait(timeout=120)
        self._reader.join(timeout=10)
