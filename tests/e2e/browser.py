"""Headless Chromium for the admin console tests: Debian's ``chromium`` driven by Playwright.

The browser is the system's (``/usr/bin/chromium``, apt package ``chromium``), never one
Playwright downloads. Without it a test skips with the reason, except in CI (``CI`` set),
where it fails: CI installs it (.ci/run).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, async_playwright

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


def chromium_path() -> str:
    """The system Chromium, or skip (fail in CI) saying how to install it."""
    for candidate in (os.environ.get("VEILBOT_TEST_CHROMIUM"), *CHROMIUM_CANDIDATES):
        if candidate and Path(candidate).is_file():
            return candidate
    found = shutil.which("chromium")
    if found:
        return found
    reason = "no system Chromium: apt-get install chromium chromium-driver"
    if os.environ.get("CI"):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    """A headless Chromium for this test, closed afterwards."""
    path = chromium_path()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=path, headless=True, args=["--no-sandbox"]
        )
        try:
            yield launched
        finally:
            await launched.close()


class Pages:
    """Keeps every page's HTML and writes a screenshot of each under ``shots``."""

    def __init__(self, shots: Path) -> None:
        self.shots = shots
        self.html: dict[str, str] = {}
        shots.mkdir(parents=True, exist_ok=True)

    async def keep(self, page: Page, name: str) -> str:
        """The page's HTML now; also saved as ``name`` with a full-page screenshot."""
        html = await page.content()
        self.html[name] = html
        await page.screenshot(path=str(self.shots / f"{name}.png"), full_page=True)
        return html


def slug(value: str) -> str:
    """A file-name-safe version of ``value``."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", value)
