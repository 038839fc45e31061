"""The `autograder` command in the installs that provide it: it runs in the venv `make lab` makes,
and where a package it needs is missing it says what to install instead of a traceback."""

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_a_missing_package_is_named_with_the_command_that_installs_it():
    """pytest hidden from the interpreter, as in an install without the grader's extra."""
    code = ("import sys; sys.modules['pytest'] = None\n"
            "from autograder.cli import main\n"
            "sys.exit(main(['list']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "this command needs pytest" in done.stderr
    assert "pip install 'minesweeper-kit[grader]'" in done.stderr


def test_commands_without_a_course_file_need_no_toml_reader(tmp_path):
    """Before Python 3.11 the TOML reader comes from an extra: without it, `autograder --help` and
    `list` still work (the reader is imported only to read a course file)."""
    blocked = "import sys; sys.modules['tomllib'] = sys.modules['tomli'] = None; from autograder.cli import main; "
    for args, shown in ((["--help"], "usage: autograder"), (["list", "--assignment", "neighbors"], "total")):
        done = subprocess.run([sys.executable, "-c", blocked + f"sys.exit(main({args!r}))"],
                              capture_output=True, text=True, timeout=120, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr
        assert shown in done.stdout


def test_an_unexpected_missing_module_still_shows_its_traceback(monkeypatch, capsys):
    """Only the optional packages get advice: anything else missing is a bug to see in full."""
    from autograder import cli

    def broken(args):
        raise ModuleNotFoundError("No module named 'nowhere'", name="nowhere")

    monkeypatch.setattr(cli, "_list", broken)
    with pytest.raises(ModuleNotFoundError):
        cli.main(["list"])


@pytest.mark.slow
@pytest.mark.venv
def test_autograder_runs_in_the_venv_make_lab_makes(tmp_path):
    """A fresh venv with `pip install -e '.[lab]'` (the Makefile's recipe) on a copy of the kit:
    the same packages, installed by the pip of the venv the tests run in."""
    source = tmp_path / "kit"
    source.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    for name in ("minesweeper_kit", "autograder", "notebooks"):
        shutil.copytree(ROOT / name, source / name, ignore=skip)
    for name in ("pyproject.toml", "README.md", "Makefile"):
        shutil.copy2(ROOT / name, source / name)
    target = tmp_path / "venv"
    # Without a pip of its own (ensurepip installing one costs seconds of CPU, and nothing here uses
    # it): the pip of the venv these tests run in installs into it, by --python.
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(target)
    python = target / "bin" / "python"
    # --no-compile: the same packages, without byte-compiling the thousands of files of JupyterLab
    # and its kin that the command never imports
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                              "--no-compile", "-e", ".[lab]"], cwd=source, capture_output=True, text=True, timeout=1800)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]

    command = target / "bin" / "autograder"
    helped = subprocess.run([str(command), "--help"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert helped.returncode == 0 and "usage: autograder" in helped.stdout, helped.stderr[-3000:]
    listed = subprocess.run([str(command), "list"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr[-3000:]
    assert "Traceback" not in listed.stderr
    assert "bots: " in listed.stdout and "neighbors: " in listed.stdout, listed.stdout[-3000:]
    assert "total" in listed.stdout and "tests unavailable" not in listed.stdout, listed.stdout[-3000:]
