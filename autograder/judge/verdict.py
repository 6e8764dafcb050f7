"""A hidden test's verdict, and the outputs nbgrader scores and the feedback page shows.

A verdict says what the student may learn: the test passed, or how many of its cases
failed, which name the notebook lacks, whether a call ran out of time, and the hint the
instructor wrote. It never holds an input, an expected value, a line of the test or the
text of an exception. The reason a test failed, as the judge saw it, goes only to the
instructor's log (:attr:`Verdict.log`).
"""

from __future__ import annotations

from dataclasses import dataclass

from nbformat.notebooknode import NotebookNode

#: The ``ename`` of a failed hidden test's error output.
FAILED = "HiddenTestFailed"


@dataclass(frozen=True)
class Verdict:
    """What the judge decided for one graded test cell."""

    grade_id: str
    max_points: float
    points: float  # in [0, max_points]
    cases_run: int | None = None
    cases_failed: int | None = None
    missing: tuple[str, ...] = ()  # question names the notebook does not define
    timed_out: bool = False
    kernel_gone: bool = False
    library_used: bool = False
    hint: str = ""
    log: str = ""  # for the instructor only: what raised, where

    @property
    def passed(self) -> bool:
        return self.points >= self.max_points

    def message(self) -> str:
        """The sentence the feedback page shows under the test.

        >>> Verdict("t", 2.0, 1.0, cases_run=4, cases_failed=2).message()
        'Hidden checks: 2 of 4 cases failed (1 of 2 points).'
        >>> Verdict("t", 2.0, 0.0, missing=("buffer_turns",)).message()
        'Hidden checks: failed (0 of 2 points). The notebook does not define buffer_turns.'
        """
        points = f"{_number(self.points)} of {_number(self.max_points)} points"
        if self.passed:
            head = "Hidden checks: passed"
            if self.cases_run:
                head += f", all {self.cases_run} cases"
            return head + f" ({points})."
        if (
            self.cases_run
            and self.cases_failed is not None
            and not (self.missing or self.kernel_gone)
        ):
            head = (
                f"Hidden checks: {self.cases_failed} of {self.cases_run} cases failed ({points})."
            )
        else:
            head = f"Hidden checks: failed ({points})."
        notes = []
        if self.missing:
            notes.append(f"The notebook does not define {', '.join(self.missing)}.")
        if self.library_used:
            notes.append("Your code used a windowmem helper this question does not allow.")
        if self.kernel_gone:
            notes.append("Your kernel stopped while the checks called your code.")
        elif self.timed_out:
            notes.append("A call to your code ran out of time.")
        if self.hint:
            notes.append(f"Hint: {self.hint}")
        return " ".join([head, *notes])

    def outputs(self) -> list[NotebookNode]:
        """The verdict as the cell's last output: an error (0), a partial score, or a note."""
        text = self.message()
        if self.points <= 0:
            return [NotebookNode(output_type="error", ename=FAILED, evalue=text, traceback=[text])]
        note = NotebookNode(output_type="stream", name="stdout", text=text + "\n")
        if self.passed:
            return [note]
        score = NotebookNode(
            output_type="execute_result",
            execution_count=None,
            metadata={},
            data={"text/plain": _number(self.points)},
        )
        return [note, score]


def _number(value: float) -> str:
    """A score as people write it: ``2`` rather than ``2.0``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def visible_outputs(outputs: list[NotebookNode]) -> list[NotebookNode]:
    """What the kernel showed for a test cell's visible checks, as text that scores nothing.

    nbgrader scores a test cell by its error outputs, its stderr and its ``execute_result``;
    a score comes from the judge only, so the kernel's outputs are kept as stdout text:
    streams as they were, an error as its name and message (of the visible checks, which
    the student has), and nothing else.
    """
    kept: list[NotebookNode] = []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            text = output.get("text", "")
            kept.append(NotebookNode(output_type="stream", name="stdout", text=_text(text)))
        elif kind == "error":
            line = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
            kept.append(
                NotebookNode(
                    output_type="stream",
                    name="stdout",
                    text=f"The visible checks stopped: {line}\n",
                )
            )
    return _merge_streams(kept)


def _merge_streams(outputs: list[NotebookNode]) -> list[NotebookNode]:
    """Adjacent stdout outputs as one: a kernel may send one print as one stream or two."""
    return coalesce_streams(outputs)


def coalesce_streams(outputs: list[NotebookNode]) -> list[NotebookNode]:
    """Adjacent stream outputs of the same name as one, whatever chunks the kernel sent.

    How a kernel splits a cell's stdout into messages depends on timing (a busy machine
    sends one ``print`` as two), so without this a re-run can write other bytes.

    >>> out = coalesce_streams([NotebookNode(output_type="stream", name="stdout", text="a"),
    ...                         NotebookNode(output_type="stream", name="stdout", text="b\\n")])
    >>> [o.text for o in out]
    ['ab\\n']
    """
    merged: list[NotebookNode] = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and previous.get("output_type") == "stream"
            and output.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] = _text(previous.get("text", "")) + _text(output.get("text", ""))
        else:
            merged.append(output)
    return merged


def _text(text: object) -> str:
    return "".join(text) if isinstance(text, list) else str(text)
