"""Fixtures for the real-browser tests: one JupyterLab, one Chromium and one built site per session.

Where Chromium is absent the tests skip, saying why; in CI (``CI=true``) they fail
instead, since there a skip would hide a broken set-up.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.browser.lab_harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    VIEWPORT,
    copy_notebooks,
    start_lab,
)
from tests.conftest import REPO_ROOT as REPO
from tests.conftest import skip_or_fail


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    """Debian's Chromium, or a skip (outside CI) saying how to get it."""
    if not CHROMIUM.exists():
        skip_or_fail(f"{CHROMIUM} is missing: run `apt-get update && apt-get install -y chromium`")
    return CHROMIUM


@pytest.fixture(scope="session")
def lab_server(chromium_path, tmp_path_factory):
    """JupyterLab on a free loopback port, serving a scratch copy of course/."""
    scratch = tmp_path_factory.mktemp("jupyterlab")
    root = copy_notebooks(REPO / "course", scratch / "course")
    server = start_lab(root, scratch)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _no_kernel_outlives_its_test(request):
    """After a test that used JupyterLab, shut down the kernels it started."""
    yield
    if "lab_server" in request.fixturenames:
        request.getfixturevalue("lab_server").end_sessions()


@pytest.fixture(scope="session")
def browser(chromium_path):
    """Headless Chromium driven by Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium_path), headless=True, args=list(CHROMIUM_ARGS)
        )
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser):
    """A fresh browser tab with the course's viewport; closed after the test."""
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    try:
        yield tab
    finally:
        context.close()


def _no_network_prefix() -> list[str]:
    """``unshare --net --`` where this machine can give a command no network, else []."""
    if shutil.which("unshare") is None:
        return []
    probe = subprocess.run(["unshare", "--net", "--", "true"], capture_output=True)
    return ["unshare", "--net", "--"] if probe.returncode == 0 else []


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> dict:
    """The site built from today's notebooks: its html folder and whether the build had no network."""
    out = tmp_path_factory.mktemp("site")
    prefix = _no_network_prefix()
    result = subprocess.run(
        [*prefix, sys.executable, str(REPO / "scripts" / "build_site.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, (
        f"make site failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    )
    return {"html": out / "html", "offline": bool(prefix), "log": result.stdout + result.stderr}


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # the test reports what matters itself
        pass


@pytest.fixture(scope="session")
def site_url(built_site):
    """The built site served over HTTP on a free 127.0.0.1 port."""
    handler = functools.partial(_QuietHandler, directory=str(built_site["html"]))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
