"""One run of the budget task: its settings, what it answered, its bill and its trace."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from windowmem.budget.context import Bill, Event, Step
from windowmem.budget.strategies import OverflowStrategy, Summariser


@dataclass(frozen=True)
class TaskResult:
    """One run: its settings, the task, which questions were answered, the bill and the trace."""

    corpus: str
    budget: int
    strategy: OverflowStrategy
    summariser: Summariser
    seed: int
    task: tuple[int, ...]
    answered_questions: tuple[int, ...]
    bill: Bill
    trace: tuple[Step, ...]
    answering_from: int = 0
    """The trace step at which the answering began (0 where it is not known)."""

    @property
    def answered(self) -> int:
        """How many task questions were answered."""
        return len(self.answered_questions)

    def reads_while_answering(self) -> int:
        """How many reads the agent made while answering: re-reads by id or searches again."""
        return (
            sum(1 for s in self.trace[self.answering_from :] if s.event is Event.READ)
            if self.answering_from
            else 0
        )

    def facts_known(self) -> tuple[int, ...]:
        """How many facts the context held after each step: the curve a lesson plots."""
        return tuple(len(step.facts) for step in self.trace)

    def answered_so_far(self) -> tuple[int, ...]:
        """How many questions had been answered after each step (0 until the answering starts).

        A question counts once its fact is in the window at the moment the agent answers
        it, after a re-read under a retrieve policy; what the window holds later does not
        matter. The last value is :attr:`answered`.
        """
        count, out = 0, []
        for step in self.trace:
            if step.event is Event.ANSWER and step.question in self.answered_questions:
                count += 1
            out.append(count)
        return tuple(out)

    def as_dict(self, *, trace: bool = False) -> dict[str, Any]:
        """The result as plain JSON-ready values; the step trace only when asked for."""
        summary: dict[str, Any] = {
            "corpus": self.corpus,
            "budget": self.budget,
            "policy": self.strategy.value,
            "summariser": self.summariser.value,
            "seed": self.seed,
            "task": list(self.task),
            "answered": self.answered,
            "answered_questions": list(self.answered_questions),
            "input_tokens": self.bill.input_tokens,
            "output_tokens": self.bill.output_tokens,
            "calls": self.bill.calls,
            "reads": self.bill.reads,
            "compactions": self.bill.compactions,
            "peak": self.bill.peak,
        }
        if trace:
            summary["trace"] = [
                {
                    "step": s.number,
                    "event": s.event.value,
                    "question": s.question,
                    "detail": s.detail,
                    "used": s.used,
                    "facts": sorted(s.facts),
                    "input_tokens": s.bill.input_tokens,
                }
                for s in self.trace
            ]
        return summary
