"""Every pandas table windowmem builds, and the one module that imports pandas.

pandas takes about half a second to import, so the library keeps it here: a replay,
a bill or a budget run costs nothing extra until a lesson asks for its table.

* :func:`replay_frame`: one row per turn of a replay (which turns are visible, the tokens);
* :func:`cost_by_window` and :func:`cost_by_conversation_length`: the input bill across
  window sizes and across conversation lengths;
* :func:`reference_table` and :func:`trace_table`: the token-budget task's runs side by
  side, and one run step by step;
* :func:`side_by_side_frame`: every product's window per turn, in each product's unit;
* :func:`bill_frame`: lesson 5's bill, one row per design (:func:`windowmem.design.bill.design_bill`);
* :func:`price_table`: a conversation's bill in US dollars, one row per window size, one
  column per model, prompt cache included (:func:`windowmem.prices.conversation_bill`).

>>> from windowmem.messages import user, assistant
>>> from windowmem.policies.n8n import N8nSimpleMemory
>>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
>>> replay_frame(chat, N8nSimpleMemory(5)).iloc[-1]["visible"]
'2–6'
>>> from windowmem.budget.corpus import help_centre
>>> table = reference_table(help_centre(), budgets=[1000], strategies=["truncate", "compact"])
>>> table[["policy", "summariser", "answered"]].to_string(index=False)
'  policy summariser  answered\\ntruncate    perfect         3\\n compact    perfect        12\\n compact      lossy         5'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import accumulate

import pandas as pd

from windowmem.budget.corpus import Corpus
from windowmem.budget.engine import TaskResult, run_task
from windowmem.budget.prepared import Prepared, prepare
from windowmem.budget.strategies import (
    SUMMARY_SEED,
    OverflowStrategy,
    Summariser,
    strategy_named,
    summariser_named,
)
from windowmem.budget.task import REFERENCE_BUDGETS
from windowmem.conversation import Conversation, as_conversation
from windowmem.cost import policy_factory, tokens_per_call, unbounded_tokens_per_call
from windowmem.design.bill import BillRow
from windowmem.design.side_by_side import LineupEntry, side_by_side
from windowmem.errors import WindowMemError
from windowmem.messages import Message
from windowmem.policies.base import PolicyFactory, WindowPolicy
from windowmem.prices import MODEL_PRICES, ModelPrice, conversation_bill, price_of
from windowmem.recall import fact_visible
from windowmem.replay import iter_turn_views, turn_view
from windowmem.tokens import TokenCounter, count_messages
from windowmem.turn_ranges import gap_spans, turn_runs, turn_spans, write_spans

#: The columns of :func:`replay_frame`, in order.
REPLAY_COLUMNS = (
    "turn",
    "user message",
    "visible",
    "evicted",
    "messages in window",
    "interactions in window",
    "input tokens",
    "cumulative input tokens",
)


def replay_frame(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    counter: TokenCounter = count_messages,
) -> pd.DataFrame:
    """One row per turn: the user message, which earlier turns are visible or evicted, the tokens.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> last = replay_frame(chat, N8nSimpleMemory(5)).iloc[-1]
    >>> last["visible"], last["evicted"], int(last["input tokens"])
    ('2–6', '1', 11)
    """
    rows = []
    total = 0
    for view in iter_turn_views(conversation, policy, counter):
        total += view.input_tokens
        visible = turn_spans(view.visible_turns)
        rows.append(
            (
                view.turn,
                view.new_message.content if view.new_message is not None else "",
                write_spans(visible),
                # Written from the gaps, so a long replay never lists evicted turns one by one.
                write_spans(gap_spans(visible, view.turn)),
                len(view.window),
                len(view.visible_turns),
                view.input_tokens,
                total,
            )
        )

    return pd.DataFrame.from_records(rows, columns=list(REPLAY_COLUMNS))


#: The columns of :func:`cost_by_window`, in order.
COST_BY_WINDOW_COLUMNS = (
    "size",
    "mean tokens per call",
    "max tokens per call",
    "input bill",
    "last-turn tokens",
)


def cost_by_window(
    conversation: Conversation | Sequence[Message],
    make_policy: PolicyFactory | str,
    sizes: Iterable[int],
    counter: TokenCounter = count_messages,
) -> pd.DataFrame:
    """One row per window size: mean and max tokens per call, the input bill, the last call.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> cost_by_window(chat, N8nSimpleMemory, [1, 5, 10])["input bill"].tolist()
    [19, 47, 49]
    """
    conversation = as_conversation(conversation)
    factory = policy_factory(make_policy)
    rows = []
    for size in sizes:
        calls = tokens_per_call(conversation, factory(size), counter)
        if not calls:
            raise WindowMemError("the conversation has no turns, so there is no call to cost")
        rows.append((size, sum(calls) / len(calls), max(calls), sum(calls), calls[-1]))

    return pd.DataFrame.from_records(rows, columns=list(COST_BY_WINDOW_COLUMNS))


def keeping_frame(
    choices: Mapping[str, tuple[Conversation | Sequence[Message], WindowPolicy]],
    fact: str,
    counter: TokenCounter = count_messages,
) -> pd.DataFrame:
    """One row per choice (a conversation and its window): what keeping *fact* costs, and whether
    the last turn's call still shows it.

    >>> from windowmem.messages import system, user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [system("hi")] + [m for t in range(4) for m in (user(f"#{t}"), assistant("ok"))]
    >>> frame = keeping_frame({"window of 1": (chat, N8nSimpleMemory(1))}, "#0")
    >>> int(frame["input bill"].item()), bool(frame["#0 in view on turn 4"].item())
    (14, False)
    """
    rows = []
    for name, (conversation, policy) in choices.items():
        chat = as_conversation(conversation)
        calls = tokens_per_call(chat, policy, counter)
        if not calls:
            raise WindowMemError(
                f"{name}: the conversation has no turns, so there is no call to cost"
            )
        last = turn_view(chat, policy, chat.turn_count, counter)
        rows.append(
            {
                "choice": name,
                "last call tokens": last.input_tokens,
                "mean tokens per call": round(sum(calls) / len(calls)),
                "input bill": sum(calls),
                f"{fact} in view on turn {chat.turn_count}": fact_visible(last, fact),
            }
        )
    return pd.DataFrame(rows).set_index("choice")


#: The columns of :func:`cost_by_conversation_length`, in order.
COST_BY_LENGTH_COLUMNS = (
    "turns",
    "last-turn tokens",
    "input bill",
    "unbounded last-turn tokens",
    "unbounded input bill",
)


def cost_by_conversation_length(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    counter: TokenCounter = count_messages,
    lengths: Iterable[int] | None = None,
) -> pd.DataFrame:
    """How the bill grows with the conversation: one row per length (in turns), windowed and not.

    The first *n* turns of a conversation are billed the same whatever follows them, so
    one replay gives every prefix: the bill of *n* turns is the running total at *n*.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> cost_by_conversation_length(chat, N8nSimpleMemory(2), lengths=[3, 7])["input bill"].tolist()
    [9, 29]
    """
    conversation = as_conversation(conversation)
    windowed = tokens_per_call(conversation, policy, counter)
    unbounded = unbounded_tokens_per_call(conversation, counter)
    windowed_bill = list(accumulate(windowed))
    unbounded_bill = list(accumulate(unbounded))
    turn_count = len(windowed)
    chosen = range(1, turn_count + 1) if lengths is None else list(lengths)
    rows = []
    for n in chosen:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= turn_count:
            raise WindowMemError(
                f"conversation length {n!r} is out of range: pick whole numbers from 1 to {turn_count}"
            )
        rows.append(
            (n, windowed[n - 1], windowed_bill[n - 1], unbounded[n - 1], unbounded_bill[n - 1])
        )

    return pd.DataFrame.from_records(rows, columns=list(COST_BY_LENGTH_COLUMNS))


#: The columns of :func:`reference_table`, in order.
REFERENCE_COLUMNS = (
    "budget",
    "policy",
    "summariser",
    "answered",
    "input_tokens",
    "output_tokens",
    "calls",
    "reads",
    "compactions",
    "peak",
)


def reference_table(
    corpus: Corpus | Prepared,
    budgets: Iterable[int] = REFERENCE_BUDGETS,
    strategies: Iterable[str | OverflowStrategy] = tuple(OverflowStrategy),
    summarisers: Iterable[str | Summariser] = tuple(Summariser),
    seed: int = SUMMARY_SEED,
) -> pd.DataFrame:
    """A budget run per budget and overflow strategy, and per summariser for those that compact.

    The strategy's column is ``policy``, the chapter's word, as in ``windowmem budget``.
    """
    prepared = corpus if isinstance(corpus, Prepared) else prepare(corpus)
    chosen_strategies = [strategy_named(s) for s in strategies]
    chosen_summarisers = [summariser_named(s) for s in summarisers]
    rows = []
    for budget in budgets:
        for strategy in chosen_strategies:
            # A summariser only matters when the strategy summarises.
            for summariser in chosen_summarisers if strategy.compacts else [Summariser.PERFECT]:
                rows.append(run_task(prepared, budget, strategy, summariser, seed).as_dict())
    return pd.DataFrame(rows, columns=list(REFERENCE_COLUMNS))


def trace_table(result: TaskResult) -> pd.DataFrame:
    """One row per step of *result*: the event, the window's size, the facts it holds, the bill so far.

    >>> from windowmem.budget.corpus import help_centre
    >>> frame = trace_table(run_task(help_centre(), 1000, "truncate"))
    >>> list(frame.columns), frame["event"].iloc[0]
    (['step', 'event', 'question', 'detail', 'used', 'facts_known', 'facts', 'input_tokens'], 'start')
    """

    rows = [
        {
            "step": step.number,
            "event": step.event.value,
            "question": step.question,
            "detail": step.detail,
            "used": step.used,
            "facts_known": len(step.facts),
            "facts": tuple(sorted(step.facts)),
            "input_tokens": step.bill.input_tokens,
        }
        for step in result.trace
    ]
    frame = pd.DataFrame(rows)
    frame["question"] = frame["question"].astype("Int64")  # the start and the final call have none
    return frame


def side_by_side_frame(
    conversation: Conversation | Sequence[Message],
    lineup: Sequence[LineupEntry] | None = None,
) -> pd.DataFrame:
    """A table: one row per turn, one column per product, each cell "amount unit (turns seen)".

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2")]
    >>> side_by_side_frame(chat, [("n8n", 1), ("spring-ai", 1)]).loc[2].tolist()
    ['2 interactions (1)', '1 messages (none)']
    """
    rows: dict[int, dict[str, str]] = {}
    for row in side_by_side(conversation, lineup):
        cell = f"{row.amount} {row.unit} ({turn_runs(row.visible_turns)})"
        rows.setdefault(row.turn, {})[row.policy] = cell
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "turn"
    return frame


#: The columns of :func:`bill_frame`, in order; its index is the design.
BILL_COLUMNS = (
    "agent input",
    "summariser input",
    "summariser output",
    "input total",
    "share of whole history",
    "calls that send the summary",
)


def bill_frame(rows: Iterable[BillRow]) -> pd.DataFrame:
    """Lesson 5's bill as a table: one row per design, in the order given, the share as a percentage.

    >>> from windowmem.design.bill import design_bill
    >>> from windowmem.messages import user, assistant
    >>> chat = [m for t in range(1, 6) for m in (user(f"order #{t}0"), assistant(f"a{t}"))]
    >>> bill_frame(design_bill(chat, "Order on file: #10", window=1))["share of whole history"].tolist()
    ['52%', '72%', '100%']
    """
    kept = list(rows)
    frame = pd.DataFrame(
        [
            (
                r.agent_input,
                r.summariser_input,
                r.summariser_output,
                r.total,
                f"{r.share:.0%}",
                r.calls_sending_summary,
            )
            for r in kept
        ],
        index=pd.Index([r.mechanism for r in kept], name="design"),
        columns=list(BILL_COLUMNS),
    )
    return frame


#: The first column of :func:`price_table`; one column per model follows.
PRICE_TOKENS_COLUMN = "input tokens"
#: :func:`price_table`'s column of input read from the cache, with ``token_kinds``.
PRICE_CACHED_COLUMN = "cached input tokens, {model}"
#: :func:`price_table`'s column of output tokens, with ``token_kinds``.
PRICE_OUTPUT_COLUMN = "output tokens"


def price_table(
    conversation: Conversation | Sequence[Message],
    make_policy: PolicyFactory | str,
    sizes: Iterable[int],
    models: Iterable[ModelPrice | str] = MODEL_PRICES,
    counter: TokenCounter = count_messages,
    chats: int = 1000,
    *,
    token_kinds: bool = False,
) -> pd.DataFrame:
    """What *conversation* costs at each window size: its input tokens, then US dollars per
    *chats* such conversations on each model (input, cached input, cache writes and output).

    With *token_kinds*, two columns follow the input tokens: the part of them read from the
    first model's cache (:data:`PRICE_CACHED_COLUMN`, named for that model) and the output
    tokens (:data:`PRICE_OUTPUT_COLUMN`).

    >>> from windowmem.messages import system, user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> from windowmem.tokens import count_words
    >>> chat = [system("rule " * 1100)]
    >>> chat += [m for t in range(8) for m in (user(f"u{t} " * 100), assistant(f"a{t} " * 100))]
    >>> table = price_table(chat, N8nSimpleMemory, [2, 0], ["gpt-5.4-mini"], count_words)
    >>> table.to_dict("list")
    {'input tokens': [12200, 15200], 'GPT-5.4 mini, US$ per 1,000 chats': [7.65, 6.79]}
    >>> price_table(chat, N8nSimpleMemory, [2], ["gpt-5.4-mini"], count_words, token_kinds=True).to_dict("list")
    {'input tokens': [12200], 'cached input tokens, GPT-5.4 mini': [7552], 'output tokens': [800], 'GPT-5.4 mini, US$ per 1,000 chats': [7.65]}
    """
    chat = as_conversation(conversation)
    factory = policy_factory(make_policy)
    prices = [price_of(m) if isinstance(m, str) else m for m in models]
    kept = list(sizes)
    if not kept or not prices:
        raise WindowMemError("give at least one window size and one model to price")
    rows = []
    for size in kept:
        bills = [conversation_bill(chat, factory(size), price, counter) for price in prices]
        kinds = [bills[0].total("cached"), bills[0].total("output")] if token_kinds else []
        rows.append(
            [bills[0].total("input"), *kinds] + [round(float(b.dollars) * chats, 2) for b in bills]
        )
    kind_columns = (
        [PRICE_CACHED_COLUMN.format(model=prices[0].name), PRICE_OUTPUT_COLUMN]
        if token_kinds
        else []
    )
    columns = [
        PRICE_TOKENS_COLUMN,
        *kind_columns,
        *(f"{p.name}, US$ per {chats:,} chats" for p in prices),
    ]
    return pd.DataFrame(rows, index=pd.Index(kept, name="window"), columns=columns)


__all__ = [
    "keeping_frame",
    "BILL_COLUMNS",
    "PRICE_CACHED_COLUMN",
    "PRICE_OUTPUT_COLUMN",
    "PRICE_TOKENS_COLUMN",
    "COST_BY_LENGTH_COLUMNS",
    "COST_BY_WINDOW_COLUMNS",
    "REFERENCE_COLUMNS",
    "REPLAY_COLUMNS",
    "bill_frame",
    "cost_by_conversation_length",
    "cost_by_window",
    "price_table",
    "reference_table",
    "replay_frame",
    "side_by_side_frame",
    "trace_table",
]
