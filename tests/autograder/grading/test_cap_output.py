"""CapOutput: long outputs truncated, huge HTML dropped."""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_output

from autograder.grading import cap_output
from tests.nbgrader_helpers import run_preprocessor


def test_cap_output_truncates_long_streams_and_drops_huge_html():
    cell = new_code_cell(
        "flood()",
        outputs=[
            new_output("stream", text="x" * 50_000),
            new_output("display_data", data={"text/html": "<p>" * 30_000, "text/plain": "ok"}),
            new_output("stream", name="stderr", text="short"),
        ],
    )
    capped = run_preprocessor(cap_output.CapOutput(max_chars=1_000), cell)
    assert (
        capped.outputs[0].text.startswith("x" * 1_000)
        and "50,000 characters in all" in capped.outputs[0].text
    )
    assert len(capped.outputs[0].text) < 1_200
    assert capped.outputs[1].data == {"text/plain": "ok"}
    assert capped.outputs[2].text == "short"
