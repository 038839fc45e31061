"""The workspace's nbgrader settings: the kit rewrites its file only while it is the kit's, and the
cell time limit it sets covers the budgets the notebooks state.

That a built workspace holds that file, and that neither Validate nor the JupyterLab `mines lab`
starts prints warnings or news a student can do nothing about, is tested on the workspace
test_workspace.py builds with `mines lab`, in the Validate runs there too: a bot within its budget
passes although its cell runs past nbgrader's default limit.
"""

import nbformat

from minesweeper_kit import workspace as ws
from notebook_tools import NOTEBOOKS


def test_the_settings_are_rewritten_only_while_they_are_the_kits(tmp_path):
    target = tmp_path / ws.CONFIG_NAME
    assert ws.write_config(tmp_path) == "written"
    assert ws.write_config(tmp_path) == "unchanged"

    # An older version the kit wrote: its checksum still matches, so it is brought up to date.
    body = "c = get_config()\nc.Execute.timeout = 30\n"
    target.write_text(f"# minesweeper-kit settings, sha256 {ws._digest(body)}\n{body}")
    assert ws.write_config(tmp_path) == "updated"
    assert target.read_text() == ws.workspace_config()

    # The student's edit: the checksum no longer matches, and the file stays as they wrote it.
    mine = target.read_text().replace(f"timeout = {ws.CELL_TIMEOUT}", "timeout = 5000")
    target.write_text(mine)
    assert ws.write_config(tmp_path) == "kept"
    assert target.read_text() == mine

    # A file of the student's own, without the kit's first line.
    target.write_text("c = get_config()\n")
    assert ws.write_config(tmp_path) == "kept"
    assert target.read_text() == "c = get_config()\n"


def test_the_cell_time_limit_covers_the_budgets_the_notebooks_state():
    """The limit is worked out from the notebooks' stated budgets: if one of them changes, so must it."""
    bots = "\n".join(c.source for c in nbformat.read(NOTEBOOKS / "05-bots.ipynb", as_version=4).cells)
    assert "240 seconds of CPU time" in bots and "2.4 seconds per beginner" in bots
    assert ws.SLOWEST_GRADED_CELL >= 240 + 3110 * 2.4 / 81
    stated = {"02-make-board.ipynb": 30, "03-flood-fill.ipynb": 90, "04-nd-dig.ipynb": 100}
    for name, seconds in stated.items():
        text = "\n".join(c.source for c in nbformat.read(NOTEBOOKS / name, as_version=4).cells)
        assert f"{seconds} seconds" in text, f"{name} no longer states {seconds} seconds"
        assert ws.SLOWEST_GRADED_CELL >= seconds
    assert ws.CELL_TIMEOUT >= 2 * ws.SLOWEST_GRADED_CELL
