"""scripts/site_live.py: a lesson's explorer and self-checks become live on the site, or the build says why not."""

from __future__ import annotations

import copy
import json
import sys

import pytest

from tests.conftest import REPO_ROOT as REPO

sys.path.insert(0, str(REPO / "scripts"))

from site_live import (  # noqa: E402
    CHECK_CELL,
    EXPLORERS,
    WIDGET_VIEW,
    SiteExplorerError,
    check_form,
    live_box,
    make_checks_live,
    make_live,
)

LESSON6 = "06_token_budgets.ipynb"


@pytest.fixture(scope="module")
def lesson6() -> dict:
    return json.loads((REPO / "course" / LESSON6).read_text(encoding="utf-8"))


def _explorer_cell(notebook: dict) -> dict:
    return next(
        cell
        for cell in notebook["cells"]
        if any(WIDGET_VIEW in o.get("data", {}) for o in cell.get("outputs", []))
    )


def test_the_snapshot_becomes_the_live_box_and_the_data_is_written(lesson6, tmp_path):
    notebook = copy.deepcopy(lesson6)
    snapshot = "".join(_explorer_cell(notebook)["outputs"][0]["data"]["text/html"])
    live = make_live(notebook, LESSON6, tmp_path)
    assert live is not None and live.key == "lesson06"
    outputs = next(
        c["outputs"]
        for c in notebook["cells"]
        if c.get("outputs")
        and "wm-site-explorer" in "".join(c["outputs"][0].get("data", {}).get("text/html", ""))
    )
    assert len(outputs) == 1, "the widget's 'needs a running kernel' stand-in is gone"
    box = outputs[0]["data"]["text/html"]
    assert box == live_box("lesson06", snapshot.split("</p>", 1)[1])
    script = (tmp_path / "windowmem" / "lesson06_explorer.js").read_text(encoding="utf-8")
    prefix = '(window.WM_EXPLORERS = window.WM_EXPLORERS || {})["lesson06"] = '
    assert script.startswith(prefix)
    data = json.loads(script[len(prefix) :].rstrip().rstrip(";"))
    assert data["kind"] == "budget" and live.size == len(script.encode("utf-8"))
    assert live.count == sum(len(r[2]) for runs in data["runs"].values() for r in runs)
    assert 0 < live.gzipped < live.size
    assert live.summary().startswith(f"lesson06 explorer: {live.count:,} states, ")


def test_a_lesson_without_a_live_explorer_is_left_alone(tmp_path):
    notebook = {"cells": []}
    assert make_live(notebook, "02_with_and_without_memory.ipynb", tmp_path) is None
    assert notebook == {"cells": []} and not any(tmp_path.iterdir())


def test_a_snapshot_the_explorer_does_not_start_from_stops_the_build(lesson6, tmp_path):
    notebook = copy.deepcopy(lesson6)
    output = _explorer_cell(notebook)["outputs"][0]
    output["data"]["text/html"] = "".join(output["data"]["text/html"]).replace(
        'data-budget="1500"', 'data-budget="1550"', 1
    )
    with pytest.raises(SiteExplorerError, match="does not start where the lesson's does"):
        make_live(notebook, LESSON6, tmp_path)


def test_a_lesson_with_no_stored_snapshot_says_to_run_it(lesson6, tmp_path):
    notebook = copy.deepcopy(lesson6)
    _explorer_cell(notebook)["outputs"] = []
    with pytest.raises(SiteExplorerError, match="found 0; run the lesson"):
        make_live(notebook, LESSON6, tmp_path)


def test_every_named_lesson_exists():
    assert all((REPO / "course" / name).is_file() for name in EXPLORERS)


def test_every_check_cell_gets_an_answer_box_and_the_book_is_written(lesson6, tmp_path):
    notebook = copy.deepcopy(lesson6)
    cells = [c for c in notebook["cells"] if CHECK_CELL.fullmatch("".join(c["source"]))]
    stored = ["".join("".join(o["text"]) for o in c["outputs"]).strip() for c in cells]
    live = make_checks_live(notebook, LESSON6, tmp_path, REPO / "course")
    assert live is not None and live.count == len(cells) == 5
    for number, (cell, text) in enumerate(zip(cells, stored)):
        (output,) = cell["outputs"]
        check_id = CHECK_CELL.fullmatch("".join(cell["source"]))["id"]
        box = output["data"]["text/html"]
        assert box.startswith(check_form("lesson06", check_id, text))
        assert ("lesson06_checks.js" in box) is (number == 0), "the data comes once, first"
        assert output["data"]["text/plain"] == text
    script = (tmp_path / "windowmem" / "lesson06_checks.js").read_text(encoding="utf-8")
    assert script.startswith('(window.WM_CHECKS = window.WM_CHECKS || {})["lesson06"] = ')


def test_a_check_cell_naming_a_check_the_book_lacks_stops_the_build(lesson6, tmp_path):
    notebook = copy.deepcopy(lesson6)
    notebook["cells"].append(
        {"cell_type": "code", "metadata": {}, "outputs": [], "source": 'check("9z", answer)'}
    )
    with pytest.raises(
        SiteExplorerError, match=r"check cells name checks its book lacks: \['9z'\]"
    ):
        make_checks_live(notebook, LESSON6, tmp_path, REPO / "course")


def test_a_lesson_without_check_cells_is_left_alone_by_the_checks(tmp_path):
    assert make_checks_live({"cells": []}, "00_start_here.ipynb", tmp_path, REPO / "course") is None
