"""Which packages the wheel holds, and where their files come from (the rest is pyproject.toml).

``windowmem`` (``src/``) and ``autograder`` are found as they lie. The course travels as
``windowmem_course``, mapped at build time from the folders the repository keeps it in, so
the lessons, their checks and the assignments stay where their authors edit them:

- ``windowmem_course`` is ``course/``: the lessons, the reference pages, diagrams, pictures
  and workflows; ``windowmem_course.checks`` is ``course/checks``, so a lesson imports its
  self-checks as ``windowmem_course.checks.lessonNN`` wherever the package is installed;
- ``windowmem_course/assignments`` is ``release/``, the student versions;
- ``windowmem_course/jupyter`` is ``learner_jupyter/``, the learner's Jupyter configuration
  and its prebuilt lab extension (not the extension's sources).

``windowmem-course`` (``windowmem.learner``) copies them into a working folder and opens
JupyterLab there. In an editable install (``pip install -e .``) the last two are not importable
packages; ``windowmem.learner.content`` finds them beside ``course/`` instead.

setuptools' declarative ``packages.find`` cannot give a folder another package name, which
is why this file exists; it holds only the package lists.
"""

from setuptools import find_packages, setup

#: The course's packages, by name, and the repository folder each is built from.
COURSE = {
    "windowmem_course": "course",
    "windowmem_course.checks": "course/checks",
    "windowmem_course.assignments": "release",
    "windowmem_course.jupyter": "learner_jupyter",
}

setup(
    packages=[
        *find_packages("src", include=["windowmem", "windowmem.*"]),
        *find_packages(".", include=["autograder", "autograder.*"]),
        *COURSE,
    ],
    package_dir={"windowmem": "src/windowmem", "autograder": "autograder", **COURSE},
    package_data={
        "windowmem": ["data/*.json", "data/**/*"],
        "windowmem_course": [
            "*.ipynb",
            "*.svg",
            "reference/*",
            "images/**/*",
            "workflows/*.json",
        ],
        "windowmem_course.assignments": ["*/*.ipynb", "*/data/**/*"],
        "windowmem_course.jupyter": [
            "*.json",
            "labconfig/*.json",
            "labextensions/**/*",
        ],
    },
)
