"""GuardedExecute's parts that need no kernel."""

from __future__ import annotations

from autograder.grading import guarded_execute


def test_import_lines_keep_only_imports():
    assert guarded_execute.import_lines(
        "import os\nx = 1\nfrom a.b import (c,\n d)\ndef f():\n    import json"
    ) == ["import os", "from a.b import c, d"]
    assert guarded_execute.import_lines("this is not python") == []
