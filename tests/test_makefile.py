"""The Makefile's checks for the Debian programs `make test` needs: found, each is named; missing
where nothing can install it, each is named with the package to install, and `make` stops. And the
interpreter `.venv` is made with: which one is chosen, and an existing `.venv` made with another."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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


def chosen_python(tmp_path: Path, *settings: str, env: dict[str, str] | None = None) -> str:
    """The interpreter the Makefile would make .venv with."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    done = subprocess.run([shutil.which("make") or "make", "--no-print-directory", "--eval",
                           "show-python: ; @echo $(PYTHON)", "show-python", *settings],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env or dict(os.environ))
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_venv_is_made_with_the_distributions_python_when_it_can_make_one(tmp_path):
    """The distribution's optimised build first; python3 on PATH where it is missing, too old or
    cannot make a venv; PYTHON, on the command line or in the environment, wins."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHON"}
    fake = tmp_path / "old-python3"
    fake.write_text("#!/bin/sh\nexec python3 -c 'import sys; sys.exit(1)'\n")  # a Python too old or without venv
    fake.chmod(0o755)
    usable = subprocess.run(["/usr/bin/python3", "-c", "import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 10))"],
                            capture_output=True).returncode == 0 if Path("/usr/bin/python3").exists() else False
    assert chosen_python(tmp_path, env=env) == ("/usr/bin/python3" if usable else "python3")
    assert chosen_python(tmp_path, f"SYSTEM_PYTHON={fake}", env=env) == "python3"
    assert chosen_python(tmp_path, f"SYSTEM_PYTHON={tmp_path / 'none'}", env=env) == "python3"
    assert chosen_python(tmp_path, "PYTHON=/opt/python3.12", env=env) == "/opt/python3.12"
    assert chosen_python(tmp_path, env={**env, "PYTHON": "/opt/python3.13"}) == "/opt/python3.13"


def test_a_venv_made_with_another_interpreter_is_kept_and_said(tmp_path):
    """`.venv` is never remade behind the user's back, but one made with another interpreter than
    the one PYTHON names is said, with how to remake it; nothing is said when they agree, or when
    there is no `.venv` yet."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    base = os.path.realpath(sys._base_executable)  # the interpreter beneath the suite's own venv
    other = tmp_path / "other-python"
    other.write_text("#!/bin/sh\necho /opt/other/bin/python3.12\n")  # answers as another interpreter would
    other.chmod(0o755)

    # as a command typed in a terminal: not a make inside another (`make test` runs this suite)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}

    def said(python: str) -> str:
        done = subprocess.run([shutil.which("make") or "make", "--no-print-directory", "venv-made-with",
                               f"PYTHON={python}"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                              env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert said(str(other)) == ""  # no .venv yet
    subprocess.run([base, "-m", "venv", "--without-pip", str(tmp_path / ".venv")], check=True, timeout=120)
    assert said(base) == ""
    note = said(str(other))
    assert f".venv was made with {base}, not with {other} (/opt/other/bin/python3.12)" in note
    assert "'make clean' remakes it" in note
