"""The status of one student's notebook in ``grades.csv``."""

from enum import StrEnum


class Status(StrEnum):
    """What happened to one student's notebook."""

    GRADED = "graded"  # every cell ran (or was stopped and reported); the score stands
    TIMED_OUT = "timed_out"  # a cell or the whole student ran past a limit
    MALFORMED = "malformed"  # the file could not be read as a notebook, or was refused
    MISSING = "missing"  # nothing to grade was handed in
    ERROR = "error"  # grading itself failed; the detail says why
    FLAGGED = "flagged"  # the submission tampered with grading: score held for the instructor
