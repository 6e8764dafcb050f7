"""Pointing nbgrader at a course: the gradebook's schema without a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from autograder.term import nbgrader_course


def test_in_process_alembic_head_matches_alembic_heads():
    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite:////tmp/unused.db") as ini:
        printed = subprocess.run(
            [str(Path(sys.executable).parent / "alembic"), "-c", ini, "heads"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    assert nbgrader_course.alembic_head() == printed.split()[0]
