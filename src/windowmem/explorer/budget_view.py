"""What the token-budget explorer shows, computed by pure functions: one step of a run, and its HTML.

A run of the budget task (:func:`windowmem.budget.run_task`) leaves a trace: the window
and the bill after every event. :func:`budget_view` picks one step of that trace and
gathers what the explorer displays at once: the window's items, how much of the budget
they use, which of the task's facts the window holds, and the bill so far.
:func:`render_budget_html` turns the view into a self-contained HTML fragment, both the
live widget's content and the static snapshot a notebook stores for readers without a
kernel. All the budget logic is :mod:`windowmem.budget`'s; this module only arranges it.

>>> from windowmem.budget import help_centre
>>> runs = RunCache(help_centre())
>>> view = budget_view(runs.run(1500, "truncate"), -1, choice="truncate", scale=runs.scale(1500), prepared=runs.prepared)
>>> view.step == view.step_count - 1, len(view.facts_held) == view.final_answered
(True, True)
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass

from windowmem.budget import (
    Corpus,
    ItemKind,
    Policy,
    Prepared,
    Summariser,
    TaskResult,
    prepare,
    run_task,
)
from windowmem.budget.engine import check_budget
from windowmem.errors import PolicyError

#: The explorer's policy menu: a label for each (policy, summariser) pair it offers.
CHOICES: Mapping[str, tuple[Policy, Summariser]] = {
    "unbounded": (Policy.UNBOUNDED, Summariser.PERFECT),
    "truncate": (Policy.TRUNCATE, Summariser.PERFECT),
    "compact": (Policy.COMPACT, Summariser.PERFECT),
    "compact (lossy)": (Policy.COMPACT, Summariser.LOSSY),
    "retrieve": (Policy.RETRIEVE, Summariser.PERFECT),
}


def choice_named(choice: str) -> tuple[Policy, Summariser]:
    """The (policy, summariser) pair the menu entry *choice* stands for.

    >>> choice_named("compact (lossy)")
    (<Policy.COMPACT: 'compact'>, <Summariser.LOSSY: 'lossy'>)
    """
    if choice not in CHOICES:
        raise PolicyError(f"unknown explorer policy {choice!r}: use one of {', '.join(CHOICES)}")
    return CHOICES[choice]


class RunCache:
    """The task's runs on one corpus, one per budget and menu choice, each computed once.

    Moving the step slider then only indexes a trace; moving the budget slider runs the
    task once per new budget and policy (a millisecond or two on the help-centre corpus).
    """

    def __init__(self, corpus: Corpus | Prepared) -> None:
        self.prepared = corpus if isinstance(corpus, Prepared) else prepare(corpus)
        self._runs: dict[tuple[int, str], TaskResult] = {}

    def run(self, budget: int, choice: str) -> TaskResult:
        """The run at *budget* tokens under the menu entry *choice*."""
        key = (check_budget(budget), choice)
        if key not in self._runs:
            policy, summariser = choice_named(choice)
            self._runs[key] = run_task(self.prepared, budget, policy, summariser)
        return self._runs[key]

    def scale(self, budget: int) -> int:
        """The token count the window bar spans: the unbounded run's peak, or *budget* if larger.

        A fixed scale keeps the bar comparable while the sliders move.
        """
        return max(self.run(budget, "unbounded").bill.peak, budget)


@dataclass(frozen=True)
class ItemRow:
    """One item of the window as the explorer lists it."""

    kind: str
    tokens: int
    label: str
    facts: tuple[int, ...]
    """The task positions (1 to 12) of the facts the item holds."""


@dataclass(frozen=True)
class BudgetView:
    """Everything the explorer shows for one run at one step of its trace."""

    corpus: str
    budget: int
    choice: str
    step: int
    step_count: int
    event: str
    detail: str
    items: tuple[ItemRow, ...]
    used: int
    scale: int
    """The token count the window bar spans (fixed while the sliders move)."""
    questions: tuple[str, ...]
    """The task's questions, in task order: fact *n* answers ``questions[n - 1]``."""
    facts_held: tuple[int, ...]
    """The task positions of the facts the window holds after this step."""
    input_tokens: int
    """The input bill so far: the window summed over every call up to this step."""
    calls: int
    reads: int
    compactions: int
    final_input_tokens: int
    final_answered: int

    @property
    def over_budget(self) -> bool:
        """Whether the window is over its budget right now (between a read and its trim)."""
        return self.used > self.budget

    @property
    def task_size(self) -> int:
        """How many questions the task holds."""
        return len(self.questions)


def _positions(result: TaskResult) -> dict[int, int]:
    return {question: position for position, question in enumerate(result.task, start=1)}


def _label(
    result: TaskResult,
    prepared: Prepared,
    kind: ItemKind,
    chunk: int | None,
    lines: tuple[int, ...],
) -> str:
    if kind is ItemKind.SYSTEM:
        return "system prompt"
    if kind is ItemKind.TASK:
        return f"the task: {len(result.task)} questions"
    if kind is ItemKind.SUMMARY:
        return f"summary of earlier reads: {len(lines)} line(s)"
    assert chunk is not None
    title = prepared.corpus.articles[prepared.chunks[chunk].article].title
    return f"chunk {chunk} of “{title}”"


def budget_view(
    result: TaskResult, step: int, *, choice: str, scale: int, prepared: Prepared
) -> BudgetView:
    """The explorer's view of *result* after trace step *step* (negative counts from the end).

    *choice* is the menu label the run was made with; *scale* the token count the window
    bar spans; *prepared* the corpus the run was made on (it names the chunks' articles).
    """
    count = len(result.trace)
    if isinstance(step, bool) or not isinstance(step, int) or not -count <= step < count:
        raise ValueError(f"step {step!r} is out of range: pick a step from 0 to {count - 1}")
    state = result.trace[step]
    positions = _positions(result)
    items = tuple(
        ItemRow(
            item.kind.value,
            item.tokens,
            _label(result, prepared, item.kind, item.chunk, item.lines),
            tuple(sorted(positions[q] for q in item.facts)),
        )
        for item in state.window
    )
    return BudgetView(
        corpus=result.corpus,
        budget=result.budget,
        choice=choice,
        step=state.number,
        step_count=count,
        event=state.event.value,
        detail=state.detail,
        items=items,
        used=state.used,
        scale=max(scale, state.used),
        questions=tuple(prepared.corpus.questions[q].question for q in result.task),
        facts_held=tuple(sorted(positions[q] for q in state.facts)),
        input_tokens=state.bill.input_tokens,
        calls=state.bill.calls,
        reads=state.bill.reads,
        compactions=state.bill.compactions,
        final_input_tokens=result.bill.input_tokens,
        final_answered=result.answered,
    )


STYLE = """
<style>
.wm-budget{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;font-size:13px;line-height:1.4;color:#1f2328;max-width:980px}
.wm-budget h4{margin:10px 0 4px;font-size:13px;text-transform:uppercase;letter-spacing:.04em;color:#57606a}
.wm-budget .wm-headline{font-size:14px;margin:4px 0 8px}
.wm-bar{position:relative;height:26px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px;overflow:hidden}
.wm-seg{position:absolute;top:0;bottom:0;border-right:1px solid #fff}
.wm-seg-system{background:#8250df}.wm-seg-task{background:#6e7781}.wm-seg-read{background:#2da44e}
.wm-seg-read.wm-nofact{background:#9be9a8}.wm-seg-summary{background:#bf8700}
.wm-limit{position:absolute;top:0;bottom:0;border-left:3px dashed #cf222e}
.wm-bar-key span{margin-right:12px}
.wm-bar-key i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
.wm-figures{display:flex;gap:10px;flex-wrap:wrap;margin:6px 0}
.wm-figure{border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;min-width:140px}
.wm-figure b{display:block;font-size:18px;font-variant-numeric:tabular-nums}
.wm-over b{color:#cf222e}
.wm-dots{display:flex;gap:4px;flex-wrap:wrap}
.wm-dot{border-radius:50%;width:26px;height:26px;line-height:26px;text-align:center;font-size:11px;font-variant-numeric:tabular-nums}
.wm-dot.wm-held{background:#1a7f37;color:#fff}.wm-dot.wm-gone{background:#eaeef2;color:#57606a}
.wm-items{max-height:320px;overflow:auto;border:1px solid #d0d7de;border-radius:6px}
.wm-items table{border-collapse:collapse;width:100%}
.wm-budget .wm-items table td,.wm-budget .wm-items table th{padding:3px 8px;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top}
.wm-budget .wm-items table td.wm-num{text-align:right;font-variant-numeric:tabular-nums}
</style>
"""


def _bar_html(view: BudgetView) -> str:
    segments, left = [], 0
    for item in view.items:
        width = 100 * item.tokens / view.scale
        factless = " wm-nofact" if item.kind == "read" and not item.facts else ""
        segments.append(
            f'<div class="wm-seg wm-seg-{item.kind}{factless}" style="left:{100 * left / view.scale:.2f}%;width:{width:.2f}%"'
            f' title="{html.escape(item.label)}: {item.tokens} tokens"></div>'
        )
        left += item.tokens
    limit = f'<div class="wm-limit" style="left:{100 * view.budget / view.scale:.2f}%" title="budget: {view.budget} tokens"></div>'
    key = "".join(
        f'<span><i class="wm-seg-{kind}{extra}"></i>{label}</span>'
        for kind, extra, label in (
            ("system", "", "system"),
            ("task", "", "task"),
            ("read", "", "read with a fact"),
            ("read", " wm-nofact", "read without"),
            ("summary", "", "summary"),
        )
    )
    return (
        f'<div class="wm-bar" data-used="{view.used}" data-budget="{view.budget}">{"".join(segments)}{limit}</div>'
        f'<div class="wm-bar-key">{key}<span>dashed red line: the budget</span></div>'
    )


def _figures_html(view: BudgetView) -> str:
    over = " wm-over" if view.over_budget else ""
    return (
        '<div class="wm-figures">'
        f'<div class="wm-figure{over}">window used / budget<b class="wm-used">{view.used:,} / {view.budget:,}</b>'
        f"{'over budget: the policy acts next' if view.over_budget else 'tokens'}</div>"
        f'<div class="wm-figure">facts held<b class="wm-facts-held">{len(view.facts_held)} / {view.task_size}</b>'
        f"questions answerable now</div>"
        f'<div class="wm-figure">input bill so far<b class="wm-running-bill">{view.input_tokens:,}</b>'
        f"{view.calls} call(s), {view.reads} read(s), {view.compactions} compaction(s)</div>"
        f'<div class="wm-figure">whole task<b class="wm-final-bill">{view.final_input_tokens:,}</b>'
        f"{view.final_answered} of {view.task_size} answered at the end</div>"
        "</div>"
    )


def _dots_html(view: BudgetView) -> str:
    held = set(view.facts_held)
    return (
        '<div class="wm-dots">'
        + "".join(
            f'<span class="wm-dot {"wm-held" if n in held else "wm-gone"}" title="Q{n}: {html.escape(q)}">Q{n}</span>'
            for n, q in enumerate(view.questions, start=1)
        )
        + "</div>"
    )


def _items_html(view: BudgetView) -> str:
    rows = "".join(
        f'<tr><td>{item.kind}</td><td>{html.escape(item.label)}</td><td class="wm-num">{item.tokens}</td>'
        f"<td>{', '.join(f'Q{n}' for n in item.facts) or '—'}</td></tr>"
        for item in view.items
    )
    return (
        '<div class="wm-items"><table><tr><th>item</th><th>what</th><th>tokens</th><th>facts</th></tr>'
        f"{rows}</table></div>"
    )


def render_budget_html(view: BudgetView) -> str:
    """The explorer's view as one self-contained HTML fragment (styles included)."""
    headline = (
        f"<b>{html.escape(view.corpus)}</b> task, policy <b>{html.escape(view.choice)}</b>, budget "
        f"<b>{view.budget:,}</b> tokens · step <b>{view.step}</b> of {view.step_count - 1}: "
        f"<i>{html.escape(view.event)}</i>, {html.escape(view.detail)}"
    )
    return (
        f'{STYLE}<div class="wm-budget" data-budget="{view.budget}" data-step="{view.step}" data-choice="{html.escape(view.choice)}">'
        f'<div class="wm-headline">{headline}</div>'
        f"<h4>The window against its budget</h4>{_bar_html(view)}"
        f"{_figures_html(view)}"
        f"<h4>Facts the window holds</h4>{_dots_html(view)}"
        f"<h4>The window's items</h4>{_items_html(view)}"
        "</div>"
    )
