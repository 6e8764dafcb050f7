"""CapOutput: an nbgrader preprocessor that caps every output's size, so a flood cannot swamp feedback."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Integer


class CapOutput(NbGraderPreprocessor):
    """Cap every output at ``max_chars`` characters, so flooding cannot swamp feedback.

    nbgrader's LimitOutput counts lines; one enormous line (or HTML) passes it.
    """

    max_chars = Integer(20_000, help="Largest output kept whole, in characters").tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                output.text = self._cap(output.text)
            elif output.output_type == "error":
                output.evalue = self._cap(output.evalue)
                output.traceback = [self._cap(line) for line in output.traceback]
            elif "data" in output:
                for mime in list(output.data):
                    value = output.data[mime]
                    if isinstance(value, str) and len(value) > self.max_chars:
                        if mime == "text/plain":
                            output.data[mime] = self._cap(value)
                        else:
                            del output.data[mime]
                            output.data.setdefault(
                                "text/plain",
                                f"[{mime} output of {len(value):,} characters removed by the autograder]",
                            )
        return cell, resources

    def _cap(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        return (
            text[: self.max_chars]
            + f"\n... output truncated by the autograder ({len(text):,} characters in all) ...\n"
        )
