"""The term around grading: the nbgrader course, release, collect, formgrader, return.

``nbgrader_course`` is the one place that points nbgrader at a course folder, ``course``
builds the course a class is graded in, ``course_config`` writes its ``nbgrader_config.py``,
``formgrader`` opens JupyterLab on it for hand grading, and ``steps`` holds the command
line's steps around ``grade`` (release, collect, export, feedback, return).
"""
