"""HideHiddenTests: feedback that gives away no test (hidden code removed, test cells reduced to a verdict)."""

from __future__ import annotations

from nbformat.notebooknode import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import Integer


class HideHiddenTests(ClearHiddenTests):
    """Feedback that gives away no test: hidden code removed, test cells reduced to a verdict.

    Each graded test cell keeps its visible code and, as its only output, one line: passed
    or failed, its points, and for a failure the error's type and message, capped at
    ``max_message_chars`` and with every hidden-test line removed. Its stdout, displays
    and traceback are never shown. Every other cell's output loses any line that repeats
    a hidden-test line (a student's code can read the tests it is sent and print them).
    """

    max_message_chars = Integer(300, help="Longest error message shown for a test").tag(config=True)

    def preprocess(self, nb, resources):
        markers = (self.begin_test_delimeter, self.end_test_delimeter)
        self._hidden = _hidden_lines(nb, *markers) | frozenset(markers)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        # Hidden tests live in the instructor's test cells only. A marker line anywhere else is
        # the student's own text (nbgrader's ClearHiddenTests would stop at it, unpaired, and
        # leave the student without a feedback page), so it is left as written.
        had_hidden = _is_test(cell) and self._remove_hidden_test_region(cell)
        if cell.cell_type != "code":
            return cell, resources
        if had_hidden:
            cell.source = (
                cell.source.rstrip("\n") + "\n# (hidden tests ran here; their code is not shown)"
            )
        if _is_test(cell):
            cell.outputs = [self._verdict(cell)]
        else:
            for output in cell.get("outputs", []):
                _scrub_output(output, self._hidden)
        return cell, resources

    def _verdict(self, cell: NotebookNode) -> NotebookNode:
        meta = cell.metadata.get("nbgrader", {})
        score, points = meta.get("score"), meta.get("points", 0)
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        passed = not errors and score is not None and float(score) >= float(points)
        text = f"{'passed' if passed else 'failed'} ({_points(score)} of {_points(points)} points)"
        if errors:
            message = f"{errors[0].get('ename', 'Error')}: {errors[0].get('evalue', '')}"
            message = _drop_lines(message, self._hidden).strip().rstrip(":")
            if len(message) > self.max_message_chars:
                message = message[: self.max_message_chars] + " ..."
            text += f": {message}"
        elif not passed:
            text += ": the test printed to stderr or reported partial credit"
        return NotebookNode(output_type="stream", name="stdout", text=text + "\n")


def _is_test(cell: NotebookNode) -> bool:
    """An instructor's test cell: graded, and not a cell the student answers in."""
    return bool(utils.is_grade(cell) and not utils.is_solution(cell))


def _points(value) -> str:
    return "no" if value is None else f"{float(value):g}"


def _hidden_lines(nb: NotebookNode, begin: str, end: str) -> frozenset[str]:
    """Every line of code between the hidden-test markers that is long enough to be telling."""
    lines: set[str] = set()
    for cell in filter(_is_test, nb.cells):
        inside = False
        for line in cell.source.splitlines():
            if begin in line:
                inside = True
            elif end in line:
                inside = False
            elif inside and len(line.strip()) >= 8:
                lines.add(line.strip())
    return frozenset(lines)


def _drop_lines(text: str, hidden: frozenset[str]) -> str:
    """*text* without the lines that repeat a hidden-test line, and without whole hidden regions."""
    if not hidden:
        return text
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        if "BEGIN HIDDEN TESTS" in line:
            inside = True
        elif "END HIDDEN TESTS" in line:
            inside = False
        elif not inside and not any(h in line for h in hidden):
            kept.append(line)
    return "".join(kept)


def _scrub_output(output: NotebookNode, hidden: frozenset[str]) -> None:
    if output.output_type == "stream":
        output.text = _drop_lines(output.text, hidden)
    elif output.output_type == "error":
        output.evalue = _drop_lines(output.evalue, hidden)
        output.traceback = [_drop_lines(line, hidden) for line in output.traceback]
    elif "data" in output:
        for mime, value in list(output.data.items()):
            if isinstance(value, str):
                output.data[mime] = _drop_lines(value, hidden)
