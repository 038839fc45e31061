"""The statuses a student's result ends with, in one place: the grader writes them and every reader
(the CSV, the report page, the gradebook, Gradescope) tells them apart by these words."""

from __future__ import annotations

__all__ = ["GRADED", "NOT_GRADED", "NOT_SUBMITTED", "STATUSES"]

#: A score stands, whatever the student's code did.
GRADED = "graded"
#: The grader failed: no score at all, and a cause for the instructor.
NOT_GRADED = "not graded"
#: The student handed in nothing for this assignment: no score, no feedback about functions.
NOT_SUBMITTED = "not submitted"
STATUSES = (GRADED, NOT_GRADED, NOT_SUBMITTED)
