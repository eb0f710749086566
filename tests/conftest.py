"""Shared fixtures: a tiny random model for fast unit tests, and the bundled checkpoint; and the `browser` marker,
given to every test that needs Chromium (tests/README.md lists the tiers)."""

from __future__ import annotations

import io
import os
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from transformer.checkpoint import load  # noqa: E402
from transformer.config import ModelConfig  # noqa: E402
from transformer.model import Transformer  # noqa: E402

BUNDLED = ROOT / "checkpoints" / "reverse"


def pytest_configure(config: pytest.Config) -> None:
    # Class mode's store: a SQLite file of this run's own, never the project's data/classes.db (a test that
    # needs its own database sets EXPLORER_DATABASE_URL itself; servers the tests start inherit this one).
    # Under xdist each worker has a file of its own: workers inherit the first process's environment, and two
    # processes writing one SQLite file can find it locked.
    ours = os.environ.get("EXPLORER_TEST_DATABASE") == os.environ.get("EXPLORER_DATABASE_URL")
    if "EXPLORER_DATABASE_URL" not in os.environ or (ours and os.environ.get("PYTEST_XDIST_WORKER")):
        folder = tempfile.mkdtemp(prefix="explorer-classes-")
        os.environ["EXPLORER_DATABASE_URL"] = os.environ["EXPLORER_TEST_DATABASE"] = f"sqlite:///{folder}/classes.db"
    if os.environ.get("PYTEST_XDIST_WORKER"):   # `-n 2` on two cores: one torch thread per worker, as the server
        torch.set_num_threads(1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test needs the browser when any fixture it uses, however indirectly, is tests/e2e's chromium_path, so
    the marker follows the fixtures and cannot drift from them."""
    for item in items:
        if "chromium_path" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def tiny_config() -> ModelConfig:
    return ModelConfig(d_model=16, n_heads=4, n_encoder_layers=2, n_decoder_layers=2, d_ff=32, max_len=8)


@pytest.fixture
def tiny_model(tiny_config: ModelConfig) -> Transformer:
    torch.manual_seed(0)
    return Transformer(tiny_config).eval()


@pytest.fixture(scope="session")
def bundled():
    return load(BUNDLED)


def zip_of(files: dict[str, bytes]) -> bytes:
    """A zip holding these files, for upload tests."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()
