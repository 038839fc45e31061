"""After every battery: nothing reached the machine. No file named after a run's marker exists
anywhere a write could land, no listener was reached, no planted file was imported, no process
was left behind, and the grader itself stayed small (memory) and quick (CPU time)."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import pytest

import redteam_harness as harness
from redteam_harness import MODES

BATTERIES = ("hypermines", "neighbors", "bots", "cpu")
#: The old design let a large answer grow the grader to about 1.5 GB; a quadratic check of a
#: 90,000-coordinate answer kept it busy for 250 s. Generous bounds far below both.
PEAK_MB, GRADER_CPU_SECONDS = 768, 120


@pytest.fixture(scope="module")
def marker_files(stage, all_runs) -> dict[str, list[str]]:
    """One search of the machine for every marker of the session (each mode's and the planted
    files'), once every battery has run: first needed above the control below, which plants files
    of its own."""
    markers = [*stage.markers.values(), stage.planted_marker]
    return harness.files_named_any(markers, [stage.base, *(str(stage.home(mode)) for mode in MODES)])


@pytest.mark.parametrize("mode", MODES)
def test_no_file_named_after_the_marker_anywhere(stage, marker_files, mode):
    assert marker_files[stage.markers[mode]] == []


@pytest.mark.parametrize("mode", MODES)
def test_no_file_changed_to_hold_the_marker(stage, all_runs, mode):
    marker = stage.markers[mode]
    runtimes = [stage.base / f"tmp-{m}" for m in MODES] + [stage.instructor]
    assert harness.files_holding(marker, runtimes) == []
    assert harness.tracked_files_holding(marker) == []


def test_no_planted_file_was_imported(stage, marker_files):
    assert marker_files[stage.planted_marker] == []


def test_no_listener_on_the_host_was_reached(stage, all_runs):
    assert stage.listeners.contacts == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("battery", BATTERIES)
def test_every_run_finished_and_left_no_process(all_runs, battery, mode):
    run = all_runs[battery][mode]
    assert run.exit_code == 0 and run.error == "", (run.exit_code, run.error[-3000:], run.output[-2000:])
    assert run.survivors == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("battery", BATTERIES)
def test_the_grader_stays_small_and_quick(all_runs, battery, mode):
    run = all_runs[battery][mode]
    assert 0 < run.peak_mb < PEAK_MB, run.peak_mb
    assert run.grader_cpu < GRADER_CPU_SECONDS, run.grader_cpu


def test_the_planted_files_would_be_imported_by_a_plain_pytest(stage):
    """The control: without the grader's own pytest options the plant works."""
    found = harness.plain_pytest_imports_the_plant(stage)
    assert sorted(name.rsplit("-", 1)[1] for name in found) == ["conftest", "redteam_planted_plugin"], found


# ---------------------------------------------------------------------------- the checks can fail
def test_the_marker_search_finds_a_file_and_a_changed_file(tmp_path):
    marker = "rtmselfcheck" + secrets.token_hex(6)
    planted = tmp_path / f"x-{marker}"
    planted.write_text("")
    (tmp_path / "ordinary.txt").write_text(f"... {marker} ...")
    assert harness.files_named(marker, [tmp_path]) == [str(planted)]
    assert harness.files_holding(marker, [tmp_path]) == [str(tmp_path / "ordinary.txt")]
    other = "rtmselfcheck" + secrets.token_hex(6)  # one search for several markers tells them apart
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / f"{other}-y").write_text("")
    absent = "rtmselfcheck" + secrets.token_hex(6)
    assert harness.files_named_any([marker, other, absent], [tmp_path]) == {
        marker: [str(planted)], other: [str(tmp_path / "sub" / f"{other}-y")], absent: []}


def test_the_listeners_record_a_contact(tmp_path):
    import socket

    listeners = harness.Listeners(tmp_path, f"rtmselfcheck-{tmp_path.name}")
    try:
        with socket.create_connection(("127.0.0.1", listeners.port), timeout=5):
            pass
        with socket.socket(socket.AF_UNIX) as client:
            client.connect("\0" + f"rtmselfcheck-{tmp_path.name}")
        import time

        deadline = time.monotonic() + 10
        while len(listeners.contacts) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        listeners.close()
    assert len(listeners.contacts) == 2, listeners.contacts


def test_a_leftover_process_is_found(tmp_path):
    import subprocess
    import sys

    marker = "rtmselfcheck" + secrets.token_hex(6)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", marker])
    try:
        found = harness.leftover_processes(tmp_path, [marker], wait=0.5)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert len(found) == 1 and found[0].startswith(f"{sleeper.pid}: "), found


def test_the_watch_sees_a_grader_process_grow():
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "import time; b = b'x' * (300 * 2**20); time.sleep(1.5)"])
    watch = harness.GraderWatch(child.pid, include_root=True, every=0.1)
    child.wait()
    peak, _ = watch.stop()
    assert peak > 300, peak


def test_the_watch_leaves_out_processes_that_were_there_before_it():
    """A server another test started long ago is not the grader: its CPU time is not counted,
    while a grader process started under the watch is."""
    import os
    import subprocess
    import sys

    burn = "import time\nend = time.process_time() + {0}\nwhile time.process_time() < end: pass\ntime.sleep({1})"
    old = subprocess.Popen([sys.executable, "-c", burn.format(1.5, 30)])
    try:
        time_spent = 0.0
        while time_spent < 1.5:  # the old process has its CPU time before the watch starts
            ticks = Path(f"/proc/{old.pid}/stat").read_bytes().rpartition(b")")[2].split()
            time_spent = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
            time.sleep(0.1)
        watch = harness.GraderWatch(os.getpid(), include_root=False, every=0.1, only_new=True)
        new = subprocess.Popen([sys.executable, "-c", burn.format(0.5, 0.5)])
        new.wait()
        _, cpu = watch.stop()
    finally:
        old.kill()
        old.wait()
    assert 0.4 < cpu < 1.4, cpu


@pytest.mark.parametrize("mode", MODES)
def test_no_key_was_planted_in_the_graders_keyring(stage, all_runs, mode):
    assert not harness.session_keys(f"planted-{stage.markers[mode]}")
    assert harness.session_keys("redteam-grader-secret")  # the control: the secret is still there
