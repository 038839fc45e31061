"""Session fixtures shared across test folders.

The browser fixtures live here, above tests/browser and tests/notebooks, so one JupyterLab and one
Chromium serve every browser test of a run (a fixture defined in two conftest files would start
two servers).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser.support import CHROMIUM, CHROMIUM_ARGS, Lab, Notebook, open_notebook


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: install Debian's 'chromium' package")
    return CHROMIUM


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    server = Lab(tmp_path_factory.mktemp("lab"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(chromium_path), args=CHROMIUM_ARGS,
                                     headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


@pytest.fixture
def notebook(page, lab):
    def opener(name: str, cells: list[str]) -> Notebook:
        return open_notebook(page, lab, name, cells)

    return opener
