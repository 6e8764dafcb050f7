"""The learner's side of the course: a working copy of the lessons, opened in JupyterLab.

``windowmem-course`` (:mod:`windowmem.learner.cli`) is the command; ``make course`` in a
clone runs the same code through ``scripts/course_lab.py``. :mod:`~windowmem.learner.content`
says where the installed course's files are, :mod:`~windowmem.learner.working_copy` copies
them without losing a learner's work, :mod:`~windowmem.learner.lab` starts JupyterLab with the
learner's configuration.
"""
