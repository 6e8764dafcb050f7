"""Grade a class's nbgrader submissions with one command, reporting every problem.

``python -m autograder grade ASSIGNMENT --submissions DIR`` builds an nbgrader course
under ``--out``, autogrades every student in parallel worker processes, merges the
scores into one SQLite gradebook, writes feedback, ``grades.csv`` and a summary.
"""

# Before anything imports nbformat: see autograder.startup for why.
from autograder import startup as _startup  # noqa: F401
