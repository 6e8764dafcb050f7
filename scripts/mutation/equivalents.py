"""The record of equivalent mutants (``scripts/mutation_equivalent.toml``): what a reader found, and why."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mutation.notebooks import Mutant


@dataclass(frozen=True)
class Equivalent:
    """A mutant that no input the question allows can tell from the model solution, and why.

    It is named as the report lists it: the assignment's folder, the answer cell's grade id,
    the line of the cell, the operator and the change.
    """

    assignment: str
    grade_id: str
    line: int
    operator: str
    before: str
    after: str
    why: str

    def matches(self, assignment: str, mutant: Mutant) -> bool:
        """Is *mutant*, of *assignment*, the one this record names?"""
        return (assignment, mutant.grade_id, mutant.line, mutant.operator) == (
            self.assignment,
            self.grade_id,
            self.line,
            self.operator,
        ) and (mutant.before, mutant.after) == (self.before, self.after)


#: The record of equivalent mutants: what a reader found, and why (see the module's docstring).
EQUIVALENT_FILE = Path(__file__).resolve().parents[1] / "mutation_equivalent.toml"


def load_equivalents(path: Path = EQUIVALENT_FILE) -> tuple[Equivalent, ...]:
    """The records of *path*: each ``[[mutant]]``, its ``why`` a text or a name in ``[reasons]``."""
    import tomllib

    data = tomllib.loads(path.read_text(encoding="utf-8"))
    reasons = data.get("reasons", {})
    return tuple(
        Equivalent(
            assignment=record["assignment"],
            grade_id=record["cell"],
            line=int(record["line"]),
            operator=record["operator"],
            before=record["before"],
            after=record["after"],
            why=reasons.get(record["why"], record["why"]),
        )
        for record in data.get("mutant", [])
    )
