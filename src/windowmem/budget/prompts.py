"""The texts the simulated agent puts in its window or writes as output, word for word.

Their token counts are part of every published figure, so each text is fixed here once.

>>> print(task_prompt(["Where is the store?", "Is it open on Sundays?"]), end="")
Task: answer these questions.
1. Where is the store?
2. Is it open on Sundays?
>>> search_call("Where is the store?")
'search("Where is the store?")'
"""

from __future__ import annotations

from collections.abc import Iterable

SYSTEM_PROMPT = (
    "You are a research agent. Answer every question in the task. Use the search tool "
    "to read the corpus; you can only answer from what is in your context."
)

SUMMARY_HEADER = "Summary of earlier reads:\n"


def task_prompt(questions: Iterable[str]) -> str:
    """The task item: a heading, then the questions numbered from 1."""
    return "Task: answer these questions.\n" + "".join(
        f"{i}. {q}\n" for i, q in enumerate(questions, 1)
    )


def search_call(question: str) -> str:
    """The output of a call that searches for *question*."""
    return f'search("{question}")'


def read_call(chunk: int) -> str:
    """The output of a call that reads *chunk* again by its id, as a reference names it.

    >>> read_call(7)
    'read(chunk=7)'
    """
    return f"read(chunk={chunk})"


def reference_line(chunk: int, title: str, position: int) -> str:
    """What stays of a read once the model has seen it: its id, its article, what it answers.

    >>> reference_line(7, "Payments", 2)
    '[chunk 7, "Payments": answers question 2]\\n'
    """
    return f'[chunk {chunk}, "{title}": answers question {position}]\n'


def summary_line(question: str, answer: str) -> str:
    """One fact of a summary: the question and its answer."""
    return f"- {question} -> {answer}\n"


def summary_text(lines: Iterable[str]) -> str:
    """A summary: the header line, then its fact lines (possibly none)."""
    return SUMMARY_HEADER + "".join(lines)


def answers_text(answers: Iterable[tuple[int, str]]) -> str:
    """The final output: each answered question's 1-based task position and its answer.

    >>> answers_text([(1, "Zona T"), (3, "10 days")])
    'Answers:\\n1. Zona T\\n3. 10 days\\n'
    """
    return "Answers:\n" + "".join(f"{position}. {answer}\n" for position, answer in answers)
