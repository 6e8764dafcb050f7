"""nbgrader's configuration for this course: the repository itself is the course directory.

Instructors write assignments in ``source/``; ``scripts/release_assignments.py`` turns
them into the student versions in ``release/``. The gradebook defaults to nbgrader's
``gradebook.db`` at the course root; set ``NBGRADER_DB_URL`` (an SQLAlchemy URL, four
slashes for an absolute SQLite path: ``sqlite:////abs/path/gradebook.db``) to keep it
elsewhere. The release script and the tests always use a temporary one.
"""

import os
from pathlib import Path

c = get_config()  # noqa: F821 - traitlets injects get_config into config files

#: The course directory: the folder this file is in, wherever nbgrader is started from.
COURSE_ROOT = Path(__file__).resolve().parent

c.CourseDirectory.root = str(COURSE_ROOT)
c.CourseDirectory.course_id = "windowmem"
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"
if os.environ.get("NBGRADER_DB_URL"):
    c.CourseDirectory.db_url = os.environ["NBGRADER_DB_URL"]

# What students see in place of solutions, and the markers that delimit what they must not.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
c.ClearSolutions.begin_solution_delimeter = "BEGIN SOLUTION"  # nbgrader's spelling
c.ClearSolutions.end_solution_delimeter = "END SOLUTION"
c.ClearSolutions.enforce_metadata = True
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"
c.ClearHiddenTests.enforce_metadata = True

# A warning on stderr would otherwise score a passing test cell 0 (see PITFALLS.md);
# the pattern is the grading pipeline's, defined once.
from autograder.term.nbgrader_course import WARNING_PATTERN  # noqa: E402

c.IgnorePattern.pattern = WARNING_PATTERN

# Each assignment's hidden-test support (source/<assignment>/hidden_support.py) is loaded by
# the judge from source/; nbgrader copies it nowhere (release, autograded folders).
from autograder.term.nbgrader_course import NBGRADER_IGNORE, NEVER_COPIED  # noqa: E402

c.CourseDirectory.ignore = [*NBGRADER_IGNORE, *NEVER_COPIED]
c.IgnorePattern.enabled = True

# Saved widget state is not cleared by nbgrader: the release script strips it
# (metadata.widgets) after generate_assignment, together with outputs and checkpoints.
