"""A course's settings as data: one ``course.toml`` instead of edits to the grader's code.

Per assignment (a ``[assignments.<id>]`` table, the kit's id) the file may set the course's
assignment name (nbgrader's folder name), the notebook students hand in, the hidden tests' points,
the time and memory limits, imports added to or taken from the rule, what a disallowed import
costs, the visibility of the results on Gradescope, the due date, the late policy, the seed, and
whether the student's own tests are graded (``own_tests``), what they are worth
(``own_tests_points``, on top of ``points``: an assignment is out of ``points +
own_tests_points``, see ``scale.py``) and the CPU seconds the grader may spend on them
(``own_tests_time_limit``).
Top-level ``due``, ``seed``, ``visibility``, ``disallowed_import`` and a ``[late]`` table are the
defaults of every assignment. A key the grader does not know is an error, never ignored: a typo
must not silently leave the default in force. Without a file the defaults are today's behaviour.

    due = 2026-12-04T23:59:00Z
    [late]
    grace_minutes = 15
    penalty_per_day = 0.10       # share of the points lost per started day late
    max_days = 3                 # later than this: the score is 0

    [assignments.hypermines]
    name = "ps4-hypermines"      # nbgrader's submitted/<student>/ps4-hypermines/
    points = 25
    own_tests_points = 5         # the student's own tests: planted bugs caught (default 0: reported only)
    own_tests_time_limit = 60    # CPU seconds spent on them, the grader's work for them included
    allow_imports = ["math"]
    disallowed_import = "lose-tests"
    visibility = "after_due_date"
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from minesweeper_kit.own_tests_requirements import REQUIREMENTS

from .assignments import ASSIGNMENTS, Assignment, LatePolicy, get_assignment

__all__ = ["Course", "CourseError", "LatePolicy", "load_course", "find_course_file", "VISIBILITIES", "IMPORT_POLICIES"]

#: Gradescope's words for when a test's result is shown to the student.
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")
#: What a disallowed import costs: the whole file refused (nothing loads), or only the tests that
#: reach the import (the import raises ImportError when it runs).
IMPORT_POLICIES = ("refuse", "lose-tests")
FILE_NAME = "course.toml"

_LATE_KEYS = {"grace_minutes", "penalty_per_day", "max_days"}
_SHARED_KEYS = {"due", "seed", "visibility", "disallowed_import", "late"}
_ASSIGNMENT_KEYS = _SHARED_KEYS | {
    "name",
    "notebook",
    "points",
    "time_limit",
    "test_time_limit",
    "wall_limit",
    "memory_mb",
    "allow_imports",
    "deny_imports",
    "own_tests",
    "own_tests_points",
    "own_tests_time_limit",
}


class CourseError(ValueError):
    """The course file is wrong: the message names the file, the key and what was expected."""


@dataclass(frozen=True)
class Course:
    """The settings read from a course file (or the defaults), per kit assignment id."""

    path: Path | None
    tables: Mapping[str, Mapping[str, Any]]  #: the merged, checked table of each assignment

    def settings(self, assignment_id: str) -> dict[str, Any]:
        """The assignment's settings as plain data (what a grading job carries to a worker)."""
        get_assignment(assignment_id)
        return dict(self.tables.get(assignment_id, {}))

    def with_setting(self, assignment_id: str, key: str, value: Any) -> Course:
        """These settings with one more for one assignment (a command-line option that overrides
        the file), checked like the file's own."""
        checked = _check_table({key: value}, f"--{key.replace('_', '-')}", _ASSIGNMENT_KEYS)
        return Course(self.path, {**self.tables, assignment_id: {**self.tables.get(assignment_id, {}), **checked}})

    def assignment(self, assignment_id: str) -> Assignment:
        """The kit's assignment with this course's settings applied."""
        return apply_settings(get_assignment(assignment_id), self.settings(assignment_id))

    def describe(self, assignment_id: str) -> list[str]:
        """What the course changes for this assignment, one line per setting, for the instructor."""
        base, applied = get_assignment(assignment_id), self.assignment(assignment_id)
        lines = []
        for field in dataclasses.fields(Assignment):
            old, new = getattr(base, field.name), getattr(applied, field.name)
            if old != new:
                shown = sorted(new) if isinstance(new, frozenset) else new
                if isinstance(new, LatePolicy):
                    shown = new.describe()
                lines.append(f"{field.name} = {shown}")
        return lines


def find_course_file(explicit: Path | None, *places: Path | None, here: Path | None = None) -> Path | None:
    """The course file to use: the one named, else ``course.toml`` in ``here`` (the current folder,
    when the caller has checked it is the instructor's), else in one of ``places`` (an nbgrader
    course's root); None when there is none. Only the instructor's folders are ever asked: the
    caller never passes a folder a student handed in."""
    if explicit is not None:
        return Path(explicit)
    for folder in (here, *places):
        if folder is not None and (Path(folder) / FILE_NAME).is_file():
            return Path(folder) / FILE_NAME
    return None


def _toml_reader() -> Any:
    """tomllib, or tomli before Python 3.11; imported only when a course file is read, so that
    every command without one works in an install without the grader extra."""
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    import tomli  # type: ignore[import-not-found]  # pragma: no cover - the extras install it there

    return tomli  # pragma: no cover


def load_course(path: Path | None) -> Course:
    """Read and check a course file; ``None`` gives the defaults. Raises :class:`CourseError`."""
    if path is None:
        return Course(None, {})
    path = Path(path)
    tomllib = _toml_reader()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise CourseError(f"cannot read the course file {path}: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise CourseError(f"{path} is not valid TOML: {error}") from None
    where = str(path)
    _unknown(data, _SHARED_KEYS | {"assignments"}, where)
    shared = {k: v for k, v in data.items() if k != "assignments"}
    shared = _check_table(shared, where, _SHARED_KEYS)
    assignments = data.get("assignments", {})
    if not isinstance(assignments, dict):
        raise CourseError(f"{where}: 'assignments' must be a table of [assignments.<id>] tables")
    unknown = [a for a in assignments if a not in ASSIGNMENTS]
    if unknown:
        shown = ", ".join(map(repr, unknown))
        raise CourseError(f"{where}: unknown assignment(s) {shown}; the kit's ids are {', '.join(ASSIGNMENTS)}")
    tables: dict[str, dict[str, Any]] = {}
    names: dict[str, str] = {}
    for assignment_id in ASSIGNMENTS:
        own = assignments.get(assignment_id, {})
        if not isinstance(own, dict):
            raise CourseError(f"{where}: [assignments.{assignment_id}] must be a table")
        table = _check_table(own, f"{where} [assignments.{assignment_id}]", _ASSIGNMENT_KEYS)
        if table.get("own_tests_points") and assignment_id not in REQUIREMENTS:
            raise CourseError(
                f"{where} [assignments.{assignment_id}]: own_tests_points: the {assignment_id} step asks for no tests "
                "of the students' own, so they cannot be worth points"
            )
        late = {**shared.get("late", {}), **table.get("late", {})}
        merged = {**{k: v for k, v in shared.items() if k != "late"}, **table}
        if late:
            merged["late"] = late
        if merged:
            tables[assignment_id] = merged
        name = merged.get("name", assignment_id)
        if name in names:
            raise CourseError(f"{where}: assignments {names[name]!r} and {assignment_id!r} share the name {name!r}")
        names[name] = assignment_id
    return Course(path, tables)


def _unknown(table: Mapping[str, Any], known: set[str], where: str) -> None:
    extra = sorted(set(table) - known)
    if extra:
        raise CourseError(f"{where}: unknown setting(s) {', '.join(extra)}; known: {', '.join(sorted(known))}")


def _check_table(table: Mapping[str, Any], where: str, known: set[str]) -> dict[str, Any]:
    """The table's settings checked and turned into plain data (dates as ISO 8601 strings)."""
    _unknown(table, known, where)
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key in ("name", "notebook"):
            if not isinstance(value, str) or not value or "/" in value or value.startswith("."):
                raise CourseError(f"{where}: {key} must be a plain file or folder name, got {value!r}")
            if key == "notebook" and not value.endswith((".ipynb", ".py")):
                raise CourseError(f"{where}: notebook must end in .ipynb or .py, got {value!r}")
        elif key in ("points", "time_limit", "test_time_limit", "wall_limit", "own_tests_time_limit"):
            _positive_number(value, key, where)
            if key == "points":
                _four_places(value, key, where)
        elif key == "own_tests_points":
            _positive_number(value, key, where, zero=True)
            _four_places(value, key, where)
        elif key == "own_tests":
            if not isinstance(value, bool):
                raise CourseError(f"{where}: own_tests must be true or false, got {value!r}")
        elif key in ("memory_mb", "seed"):
            if not isinstance(value, int) or isinstance(value, bool) or value < (64 if key == "memory_mb" else 0):
                least = "64" if key == "memory_mb" else "0"
                raise CourseError(f"{where}: {key} must be a whole number of at least {least}, got {value!r}")
        elif key in ("allow_imports", "deny_imports"):
            if not isinstance(value, list) or not all(isinstance(v, str) and v.isidentifier() for v in value):
                raise CourseError(f"{where}: {key} must be a list of module names, got {value!r}")
        elif key == "visibility":
            if value not in VISIBILITIES:
                raise CourseError(f"{where}: visibility must be one of {', '.join(VISIBILITIES)}, got {value!r}")
        elif key == "disallowed_import":
            if value not in IMPORT_POLICIES:
                raise CourseError(
                    f"{where}: disallowed_import must be one of {', '.join(IMPORT_POLICIES)}, got {value!r}"
                )
        elif key == "due":
            value = _due(value, where)
        elif key == "late":
            if not isinstance(value, dict):
                raise CourseError(f"{where}: late must be a table (grace_minutes, penalty_per_day, max_days)")
            _unknown(value, _LATE_KEYS, f"{where} late")
            for late_key, number in value.items():
                _positive_number(number, f"late.{late_key}", where, zero=True)
            if value.get("penalty_per_day", 0) > 1:
                raise CourseError(f"{where}: late.penalty_per_day is a share of the points, at most 1")
            value = dict(value)
        out[key] = value
    return out


def _positive_number(value: Any, key: str, where: str, zero: bool = False) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (value == 0 and not zero):
        kind = "a number of at least 0" if zero else "a number above 0"
        raise CourseError(f"{where}: {key} must be {kind}, got {value!r}")


def _four_places(value: float, key: str, where: str) -> None:
    """Points are written to 4 decimal places at most: every weight of the scale is exact there."""
    if round(value, 4) != value:
        raise CourseError(f"{where}: {key} has at most 4 decimal places, got {value!r}")


def _due(value: Any, where: str) -> str:
    """A due date as an ISO 8601 string in UTC; a date without a time zone is refused (the
    machine's zone would silently decide who is late)."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise CourseError(f"{where}: due needs a time zone, e.g. 2026-12-04T23:59:00Z or ...-05:00")
        return value.astimezone(dt.timezone.utc).isoformat()
    raise CourseError(f"{where}: due must be a TOML date-time with a zone (2026-12-04T23:59:00Z), got {value!r}")


def apply_settings(assignment: Assignment, settings: Mapping[str, Any]) -> Assignment:
    """``assignment`` with a course's settings (see :meth:`Course.settings`) applied."""
    if not settings:
        return assignment
    changes: dict[str, Any] = {}
    simple = {
        "name": "course_name",
        "notebook": "release_file",
        "points": "points",
        "time_limit": "time_limit",
        "test_time_limit": "test_time_limit",
        "wall_limit": "wall_limit",
        "memory_mb": "memory_mb",
        "visibility": "visibility",
        "disallowed_import": "disallowed_import",
        "due": "due",
        "seed": "seed",
        "own_tests": "own_tests",
        "own_tests_points": "own_tests_points",
        "own_tests_time_limit": "own_tests_time_limit",
    }
    for key, attribute in simple.items():
        if key in settings:
            changes[attribute] = settings[key]
    allow = frozenset(settings.get("allow_imports", ()))
    deny = frozenset(settings.get("deny_imports", ()))
    if allow:
        if assignment.allowed_imports is not None:
            changes["allowed_imports"] = assignment.allowed_imports | allow
        changes["extra_denied"] = assignment.extra_denied - allow
    if deny:
        changes["extra_denied"] = changes.get("extra_denied", assignment.extra_denied) | deny
    if "late" in settings:
        changes["late"] = LatePolicy(**settings["late"])
    return dataclasses.replace(assignment, **changes)
