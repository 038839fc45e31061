"""When the browser tests take screenshots (support.py): of a failed test's page and of a step that
went wrong, always; of a passing step, only when MINESWEEPER_SCREENSHOTS asks. No browser needed: a
stand-in page records what it is asked to save."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import support


class RecordingPage:
    """A page whose screenshot writes a small file, as Playwright's does, and says so."""

    def __init__(self, fails: bool = False) -> None:
        self.fails = fails
        self.saved: list[Path] = []

    def screenshot(self, path: str, full_page: bool = False) -> None:
        if self.fails:
            raise RuntimeError("Target page, context or browser has been closed")
        Path(path).write_bytes(b"\x89PNG")
        self.saved.append(Path(path))


@pytest.fixture
def artifacts(tmp_path, monkeypatch):
    monkeypatch.setattr(support, "ARTIFACTS", tmp_path / "browser")
    return tmp_path / "browser"


@pytest.mark.parametrize("asked", ["", "0"])
def test_a_passing_step_is_not_screenshot_unless_asked(artifacts, monkeypatch, asked):
    monkeypatch.setenv("MINESWEEPER_SCREENSHOTS", asked)
    page = RecordingPage()
    assert support.step_shot(page, "web-01-fresh") is None
    assert page.saved == [] and not artifacts.exists()


def test_a_passing_step_is_screenshot_when_asked(artifacts, monkeypatch):
    monkeypatch.setenv("MINESWEEPER_SCREENSHOTS", "1")
    page = RecordingPage()
    assert support.step_shot(page, "web-01-fresh") == artifacts / "web-01-fresh.png"
    assert page.saved == [artifacts / "web-01-fresh.png"]


def test_a_step_that_went_wrong_and_a_failed_test_are_always_screenshot(artifacts, monkeypatch):
    monkeypatch.delenv("MINESWEEPER_SCREENSHOTS", raising=False)
    page = RecordingPage()
    support.step_shot(page, "walk-03-run-lost-resumed", always=True)
    support.failure_shot(page, "tests/browser/test_board.py::test_left_and_right_clicks_play_the_engine[2-D]")
    assert [p.name for p in page.saved] == [
        "walk-03-run-lost-resumed.png",
        "failed-browser-test_board.py-test_left_and_right_clicks_play_the_engine-2-D.png",
    ]


def test_a_page_that_cannot_be_screenshot_fails_nothing_more(artifacts):
    """The shot is there to diagnose a failure already reported: a closed page adds no error."""
    page = RecordingPage(fails=True)
    assert support.failure_shot(page, "tests/browser/test_web.py::test_play_web") is None
    assert page.saved == [] and list(artifacts.glob("*.png")) == []
