"""Each framework's sizing rule: the smallest window that sends the last few turns whole.

For lesson 5's "in your framework" table. A window is set in the framework's own unit, and
what one turn takes of it depends on the framework's store (:func:`~windowmem.design.
side_by_side.stored_per_turn`). When the window is applied changes the rule too:

* **before every model call** (langchain 1.x ``create_agent`` with a ``@before_model`` trim,
  the Agent Framework's ``TruncationStrategy``): the answering call of a turn also counts the
  turn in progress, all of it but its answer, so ``(turns + 1) × turn size − 1``
  (:func:`windowmem.design.sizing.per_call_window`);
* **once, when the turn starts** (the OpenAI Agents SDK session's ``limit``, n8n's Simple
  Memory, Spring AI's advisor): only the stored turns count, ``turns × turn size`` in the
  framework's unit (n8n halves it: it loads ``2 × k`` messages);
* **on write** (LlamaIndex ``Memory``): the queue, the new question included, must stay under
  ``token_limit × 0.7`` tokens, so ``token_limit`` is the smallest whole number of tokens with
  ``token_limit × 0.7 ≥ turns × turn tokens + question tokens``; with ``token_flush_size`` at
  most one turn's tokens a flush moves out one turn at a time.

Each rule is held to windowmem's model of the framework by ``tests/design/test_sizing_rules.py``,
which finds the smallest size by trying every size.

>>> langchain_max_tokens(turns=3, turn_size=6)
23
>>> agents_sdk_limit(turns=3, turn_size=4), spring_ai_max_messages(turns=3)
(12, 6)
>>> n8n_context_window_length(turns=3, turn_size=4)
6
>>> llamaindex_token_limit(turns=4, turn_tokens=23, question_tokens=13)
150
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from windowmem.design.side_by_side import framework_lineup, stored_per_turn
from windowmem.design.sizing import parallel_tool_chat, per_call_window
from windowmem.errors import WindowMemError
from windowmem.messages import interactions
from windowmem.policies.llamaindex_memory import (
    DEFAULT_CHAT_HISTORY_RATIO,
    LlamaIndexMemory,
    function_agent_counter,
)
from windowmem.tokens import count_text


def _whole(value: object, label: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise WindowMemError(f"{label} must be a whole number >= {minimum}, got {value!r}")
    return value


def langchain_max_tokens(*, turns: int, turn_size: int) -> int:
    """``max_tokens`` for a ``@before_model`` trim with ``token_counter=len``: ``(turns + 1) × turn size − 1``."""
    return per_call_window(turn_size=turn_size, turns=turns)


def agent_framework_max_n(*, turns: int, turn_size: int) -> int:
    """``TruncationStrategy(max_n=…, compact_to=…)``: the same rule, a round's results one message."""
    return per_call_window(turn_size=turn_size, turns=turns)


def agents_sdk_limit(*, turns: int, turn_size: int) -> int:
    """``SessionSettings(limit=…)``, read once when the run starts: ``turns × turn size`` items.

    >>> agents_sdk_limit(turns=0, turn_size=4)
    Traceback (most recent call last):
    ...
    windowmem.errors.WindowMemError: turns must be a whole number >= 1, got 0
    """
    return _whole(turns, "turns") * _whole(turn_size, "turn_size")


def spring_ai_max_messages(*, turns: int) -> int:
    """``maxMessages`` behind the memory advisor (default order): two a turn, ``2 × turns``."""
    return 2 * _whole(turns, "turns")


def n8n_context_window_length(*, turns: int, turn_size: int) -> int:
    """Context Window Length ``k`` (n8n loads ``2 × k`` messages): ``turns × turn size ÷ 2``, rounded up."""
    return math.ceil(_whole(turns, "turns") * _whole(turn_size, "turn_size") / 2)


def llamaindex_token_limit(
    *,
    turns: int,
    turn_tokens: int,
    question_tokens: int,
    ratio: float = DEFAULT_CHAT_HISTORY_RATIO,
) -> int:
    """``Memory.from_defaults(token_limit=…)``: the smallest limit whose ``limit × ratio`` holds
    *turns* turns of *turn_tokens* and the new question (``token_flush_size`` at most one turn).

    LlamaIndex compares in floating point, and ``90 × 0.7`` is just under 63: the limit is
    checked as LlamaIndex computes it.

    >>> llamaindex_token_limit(turns=1, turn_tokens=50, question_tokens=13)
    91
    """
    need = _whole(turns, "turns") * _whole(turn_tokens, "turn_tokens")
    need += _whole(question_tokens, "question_tokens")
    limit = math.ceil(need / ratio)
    while limit * ratio < need:
        limit += 1
    while limit > 1 and (limit - 1) * ratio >= need:
        limit -= 1
    return limit


@dataclass(frozen=True)
class SizingRule:
    """One framework's row of lesson 5's table: where its window is set, and how to size it."""

    framework: str
    setting: str
    """The code that sets the window, as its users write it."""
    turn_size: str
    """What one turn stores, in the window's unit."""
    rule: str
    """The smallest setting that sends the last *turns* turns whole."""


#: Lesson 5's table, LangChain first (the lesson's framework), in the lesson's order.
SIZING_RULES = (
    SizingRule(
        "LangChain 1.x `create_agent`",
        "`trim_messages(..., max_tokens=N, token_counter=len)` in `@before_model`",
        "messages: question, one AI message per round of calls, one per result, answer",
        "`(turns + 1) × turn size − 1`",
    ),
    SizingRule(
        "LlamaIndex `Memory`",
        "`Memory.from_defaults(token_limit=N, token_flush_size=F)`",
        "tokens",
        "`N × 0.7 ≥ turns × turn tokens + question tokens`, `F` ≤ one turn's tokens",
    ),
    SizingRule(
        "OpenAI Agents SDK",
        "`SQLiteSession(..., session_settings=SessionSettings(limit=N))`",
        "items: question, one per call, one per result, answer",
        "`turns × turn size`",
    ),
    SizingRule(
        "Microsoft Agent Framework",
        "`TruncationStrategy(max_n=N, compact_to=N)`",
        "messages, a round's results as one",
        "`(turns + 1) × turn size − 1`",
    ),
    SizingRule(
        "Spring AI",
        "`MessageWindowChatMemory.builder().maxMessages(N)`",
        "2 messages (question and answer)",
        "`2 × turns`",
    ),
    SizingRule(
        "n8n Simple Memory",
        "Context Window Length `N`",
        "messages: question, a call and a result per tool call, answer",
        "`turns × turn size ÷ 2`, rounded up",
    ),
)


def worked_sizes(*, turns: int = 3, calls: int = 1) -> dict[str, int]:
    """Each framework's smallest window for *turns* whole turns of a chat that asks *calls*
    tools at once every turn (:func:`~windowmem.design.sizing.parallel_tool_chat`), by its
    rule, with the turn's size as the framework stores it (LlamaIndex in Qwen2.5 tokens, as a
    ``FunctionAgent`` stores them).

    >>> worked_sizes()["LangChain 1.x `create_agent`"]
    15
    """
    chat = parallel_tool_chat(_whole(turns, "turns") + 1, calls=_whole(calls, "calls", 0))
    n8n, langchain, sdk, _, _, agent_framework = framework_lineup()
    size = {p.name: stored_per_turn(chat, p)[0] for p in (n8n, langchain, sdk, agent_framework)}
    counter = LlamaIndexMemory(1, counter=function_agent_counter(count_text)).counter
    first = interactions(chat)[0].messages
    turn_tokens = sum(counter(m) for m in first)
    return dict(
        zip(
            (r.framework for r in SIZING_RULES),
            (
                langchain_max_tokens(turns=turns, turn_size=size[langchain.name]),
                llamaindex_token_limit(
                    turns=turns, turn_tokens=turn_tokens, question_tokens=counter(first[0])
                ),
                agents_sdk_limit(turns=turns, turn_size=size[sdk.name]),
                agent_framework_max_n(turns=turns, turn_size=size[agent_framework.name]),
                spring_ai_max_messages(turns=turns),
                n8n_context_window_length(turns=turns, turn_size=size[n8n.name]),
            ),
            strict=True,
        )
    )


def sizing_table(examples: dict[str, int] | None = None) -> str:
    """:data:`SIZING_RULES` as a Markdown table, with a column of worked sizes when given
    (framework -> the setting for the lesson's example).

    >>> print(sizing_table().splitlines()[0])
    | framework | what sets the window | what one turn stores | the smallest window for *turns* whole turns |
    """
    head = ["framework", "what sets the window", "what one turn stores"]
    head.append("the smallest window for *turns* whole turns")
    if examples is not None:
        head.append("3 turns, one tool call each")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in SIZING_RULES:
        cells = [r.framework, r.setting, r.turn_size, r.rule]
        if examples is not None:
            cells.append(f"{examples[r.framework]:,}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


__all__ = [
    "SIZING_RULES",
    "SizingRule",
    "agent_framework_max_n",
    "agents_sdk_limit",
    "langchain_max_tokens",
    "llamaindex_token_limit",
    "n8n_context_window_length",
    "sizing_table",
    "spring_ai_max_messages",
    "worked_sizes",
]
