"""The budget task's bill in money: each call's input, cached input and output, priced.

A run's trace holds the context every call was charged on (:mod:`windowmem.budget.engine`);
here each call becomes a :class:`windowmem.prices.CallTokens`, with the part of its input a
provider's prompt cache would serve (:func:`windowmem.prices.prefix_cache`): the longest
run of context items, from the first, that an earlier call sent unchanged. Two items match
when they are equal: the same kind, size, chunk, facts and summary lines.

What each policy does to that prefix:

* **unbounded** only appends, so every call starts with the whole of the call before it;
* **truncate** and **retrieve** drop the oldest read once the window is full, so every call
  after that differs right after the task text;
* **compact** keeps its prefix between compactions and rewrites it at each one;
* **just-in-time** turns the read the model has just seen into a short reference, at the
  end of the context, so the prefix up to it (the earlier references) is kept.

A call's output is what the engine says the model wrote (a search, a read by id, a summary,
the answers). The model assumes calls seconds apart, well within every cache's lifetime.

>>> from windowmem.budget import help_centre, run_task
>>> bill = task_bill(run_task(help_centre(), 1500, "unbounded"), "gpt-5.4-mini")
>>> bill.total("input") == run_task(help_centre(), 1500, "unbounded").bill.input_tokens
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from windowmem.budget.context import Event, Item, ItemKind, Step
from windowmem.budget.engine import TaskResult
from windowmem.prices import (
    MODEL_PRICES,
    Bill,
    CallTokens,
    ModelPrice,
    prefix_cache,
    price_of,
    shared_prefix,
)

#: The items every call of a run begins with, unchanged: the system prompt and the task.
OPENING_ITEMS = 2

#: Bills are stated per this many runs of the task: one run costs fractions of a cent.
RUNS = 1000


def call_steps(result: TaskResult) -> tuple[Step, ...]:
    """The trace's calls, in order: each step holds the context that call was charged on."""
    return tuple(step for step in result.trace if step.event is Event.CALL)


def call_outputs(result: TaskResult) -> tuple[int, ...]:
    """The output tokens of each call, from the bill's running total at each call step."""
    totals = [0] + [step.bill.output_tokens for step in call_steps(result)]
    return tuple(after - before for before, after in zip(totals, totals[1:]))


def _size(item: Item) -> int:
    return item.tokens


def _opening(_: Sequence[Item]) -> int:
    return OPENING_ITEMS


def task_calls(result: TaskResult, model: ModelPrice | str) -> tuple[CallTokens, ...]:
    """Each call of *result* as the tokens *model*'s provider bills, its prompt cache applied."""
    price = price_of(model) if isinstance(model, str) else model
    steps = call_steps(result)
    cached = prefix_cache([s.context for s in steps], price.cache, _size, _opening)
    return tuple(
        CallTokens(number, step.used, read, written, output)
        for number, (step, (read, written), output) in enumerate(
            zip(steps, cached, call_outputs(result), strict=True), start=1
        )
    )


def task_bill(result: TaskResult, model: ModelPrice | str) -> Bill:
    """What *result*'s calls cost on *model* (its API id, or a :class:`ModelPrice`)."""
    price = price_of(model) if isinstance(model, str) else model
    return Bill(price, task_calls(result, price))


@dataclass(frozen=True)
class PolicyCost:
    """One policy's run priced on one model; dollars per :data:`RUNS` runs of the task."""

    policy: str
    answered: int
    bill: Bill

    @property
    def model(self) -> str:
        return self.bill.model.name

    @property
    def calls(self) -> int:
        return len(self.bill.calls)

    @property
    def input(self) -> int:
        """Every input token of every call, cached or not."""
        return self.bill.total("input")

    @property
    def cached(self) -> int:
        """The input tokens read from the provider's prompt cache."""
        return self.bill.total("cached")

    @property
    def dollars(self) -> Decimal:
        """What :data:`RUNS` runs of the task cost, in US dollars."""
        return self.bill.dollars * RUNS

    @property
    def cached_share(self) -> float:
        """The part of the input read from the cache."""
        return self.cached / self.input if self.input else 0.0


def policy_costs(
    results: Iterable[TaskResult], models: Sequence[ModelPrice] = MODEL_PRICES
) -> tuple[PolicyCost, ...]:
    """Every run of *results* priced on every model of *models*, runs in order, models within.

    >>> from windowmem.budget import help_centre, run_task
    >>> [c.model for c in policy_costs([run_task(help_centre(), 1500, "truncate")])]
    ['GPT-5.4 mini', 'Claude Sonnet 4.6', 'Gemini 2.5 Flash']
    """
    return tuple(
        PolicyCost(result.strategy.value, result.answered, task_bill(result, model))
        for result in results
        for model in models
    )


def item_label(item: Item, task: Sequence[int]) -> str:
    """What a context item is, in a reader's words: "Q4's chunk", "reference to Q4's chunk"."""
    number = {q: n for n, q in enumerate(task, 1)}
    if item.kind is ItemKind.SYSTEM:
        return "system prompt"
    if item.kind is ItemKind.TASK:
        return "task text"
    if item.kind is ItemKind.SUMMARY:
        return f"summary of {len(item.lines)} facts"
    about = item.points_to if item.kind is ItemKind.REFERENCE else item.facts
    if not about:
        return f"chunk {item.chunk} (no fact)"
    (question,) = about
    chunk = f"Q{number[question]}'s chunk"
    return f"reference to {chunk}" if item.kind is ItemKind.REFERENCE else chunk


def call_entries(result: TaskResult, number: int) -> tuple[tuple[str, int], ...]:
    """What call *number* (from 1) of *result* sent, entry by entry: a label and its tokens.

    A run of two or more references is one entry ("references to Q1-Q11"), as a reader
    would group them.

    >>> from windowmem.budget import help_centre, run_task
    >>> call_entries(run_task(help_centre(), 1500, "just-in-time"), 3)
    (('system prompt', 33), ('task text', 160), ("reference to Q1's chunk", 15), ("Q2's chunk", 249))
    """
    steps = call_steps(result)
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(steps):
        raise ValueError(f"call {number!r} is not one of this run's calls: use 1 to {len(steps)}")
    entries: list[tuple[str, int]] = []
    run: list[Item] = []

    def close_run() -> None:
        if len(run) == 1:
            entries.append((item_label(run[0], result.task), run[0].tokens))
        elif run:
            first, last = (
                item_label(i, result.task).split("'")[0][len("reference to ") :]
                for i in (run[0], run[-1])
            )
            entries.append((f"references to {first}-{last}", sum(i.tokens for i in run)))
        run.clear()

    for item in steps[number - 1].context:
        if item.kind is ItemKind.REFERENCE:
            run.append(item)
            continue
        close_run()
        entries.append((item_label(item, result.task), item.tokens))
    close_run()
    return tuple(entries)


def shared_start(result: TaskResult, first: int, second: int) -> int:
    """The tokens calls *first* and *second* (from 1) of *result* send identically from the
    start: the most a prompt cache could serve the later one from the earlier.

    >>> from windowmem.budget import help_centre, run_task
    >>> shared_start(run_task(help_centre(), 1500, "unbounded"), 2, 3)
    388
    """
    steps = call_steps(result)
    a, b = steps[first - 1].context, steps[second - 1].context
    return sum(item.tokens for item in a[: shared_prefix(a, b)])
