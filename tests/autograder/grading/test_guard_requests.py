"""The guard requests' parts that need no kernel."""

from __future__ import annotations

from autograder.grading import guard_requests


def test_import_lines_keep_only_imports():
    assert guard_requests.import_lines(
        "import os\nx = 1\nfrom a.b import (c,\n d)\ndef f():\n    import json"
    ) == ["import os", "from a.b import c, d"]
    assert guard_requests.import_lines("this is not python") == []
