"""The Makefile's checks for the Debian programs `make test` needs: found, each is named; missing
where nothing can install it, each is named with the package to install, and `make` stops."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = {"chromium": "chromium", "bubblewrap": "bwrap", "node": "node"}
PACKAGES = {"chromium": "chromium", "bubblewrap": "bubblewrap", "node": "nodejs"}


def run_make(tmp_path: Path, *targets: str, path: str, **variables: str) -> subprocess.CompletedProcess:
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    settings = [f"{name}={value}" for name, value in variables.items()]
    return subprocess.run([shutil.which("make") or "make", "-k", "--no-print-directory", *targets, *settings],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": path})


def test_each_program_found_is_named(tmp_path):
    done = run_make(tmp_path, *PROGRAMS, path=os.environ["PATH"])
    assert done.returncode == 0, done.stdout + done.stderr
    for target, program in PROGRAMS.items():
        # the Makefile's CHROMIUM, which the environment may set as for the browser tests
        where = shutil.which(program) if target != "chromium" else os.environ.get("CHROMIUM", "/usr/bin/chromium")
        assert f"{PACKAGES[target]}: {where}\n" in done.stdout, done.stdout


def test_a_missing_program_that_apt_cannot_install_stops_make_and_names_its_package(tmp_path):
    """A PATH with only the tools the checks need (no apt-get, so this holds as root too): every
    check fails, each naming the Debian package that brings its program."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("make", "sh", "id"):
        (tools / tool).symlink_to(shutil.which(tool) or tool)
    work = tmp_path / "work"
    work.mkdir()
    done = run_make(work, *PROGRAMS, path=str(tools), CHROMIUM=str(tmp_path / "no-chromium"))
    assert done.returncode != 0
    for package in PACKAGES.values():
        assert f"install Debian's '{package}' package (as root: apt-get install {package})" in done.stdout, done.stdout
    assert "installing" not in done.stdout
