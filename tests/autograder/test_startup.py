"""autograder.startup keeps nbformat's import quick and loses nothing."""

from __future__ import annotations

import subprocess
import sys


def test_startup_blocks_only_the_slow_format_checker():
    code = (
        "import autograder, sys, nbformat, jsonschema\n"
        "print(sys.modules['rfc3987_syntax'] is None, 'iri' in jsonschema.FormatChecker().checkers,"
        " 'uri' in jsonschema.FormatChecker().checkers)\n"
        "nbformat.validate(nbformat.v4.new_notebook())"
    )
    printed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert printed == ["True", "False", "True"]
