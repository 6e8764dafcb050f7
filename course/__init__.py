"""The course as a package, ``windowmem_course``: the lessons, their self-checks and their files.

``setup.py`` builds this folder into the wheel under that name (``release/`` as its
``assignments``, ``learner_jupyter/`` as its ``jupyter``), so a lesson's
``from windowmem_course.checks.lesson03 import check`` works wherever windowmem is installed.
``windowmem-course`` copies the lessons into a working folder and opens JupyterLab there.
"""
