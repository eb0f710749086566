"""A real server and a real browser: `streamlit run app.py` on a free port, driven by Debian's Chromium."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

import pytest

from drivers.harness import CHROMIUM, CHROMIUM_ARGS, ROOT, start_server, stop_server

ARTIFACTS = ROOT / "artifacts" / "screenshots"


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing in CI: scripts/test.sh should have installed Debian's chromium")
        pytest.skip(f"browser tests skipped: {CHROMIUM} not found (install Debian's chromium, or run scripts/test.sh)")
    return CHROMIUM


@pytest.fixture(scope="session")
def haproxy():
    if shutil.which("haproxy") is None:
        if os.environ.get("CI"):
            pytest.fail("haproxy is missing in CI: scripts/test.sh should have installed it")
        pytest.skip("haproxy is not installed here (scripts/test.sh installs it); in CI these tests must run")


@dataclass(frozen=True)
class Server:
    url: str
    pid: int


def attacked_server(log_name: str):
    """A server of its own for one module of attacks, so that its memory and its limits by address are that
    module's alone, with the bundled lab tables loaded and the pages the attacks use visited first."""
    from drivers.hostile_class import run_async, warm_up
    process, url = start_server(log_name)
    run_async(warm_up(url))
    yield Server(url, process.pid)
    stop_server(process)


@pytest.fixture(scope="session")
def running_server(chromium_path):
    process, url = start_server("e2e-server.log")
    yield Server(url, process.pid)
    stop_server(process)


@pytest.fixture(scope="session")
def server(running_server) -> str:
    return running_server.url


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield context.new_page()
    context.close()


PICTURES = ROOT / "docs" / "pictures"   # the README's and the docs' pictures, taken again by every run


def picture(page, name: str) -> None:
    """docs/pictures/<name>.png: the screen as its user sees it, at the page's own viewport (a phone's 390×844,
    a projector's 1280×720), so the docs never show an older app than the one the tests ran."""
    PICTURES.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=str(PICTURES / f"{name}.png"))


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1400, "height": 3400})
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})
