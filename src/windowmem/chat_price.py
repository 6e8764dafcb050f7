"""Price your own chat from a few numbers, without a transcript.

A builder knows roughly how long the agent's System Message is, how long a customer's message
and the agent's reply run, how many turns a chat lasts, how many tools a turn asks for and
whether customers pause between messages. :func:`chat_bill` builds a chat of that shape (every
message distinct, so no two calls share more than they truly would), sends it through n8n's AI
Agent with Simple Memory at a Context Window Length (:func:`windowmem.calls.agent_calls.model_calls`:
every model call, the tool rounds included) and bills each call with the model's list prices and
prompt-cache rule (:mod:`windowmem.prices`).

>>> bill = chat_bill(system_tokens=2_000, question_tokens=50, reply_tokens=150, turns=3,
...                  window=0, model="gpt-5.4-mini")
>>> [(c.input, c.cached) for c in bill.calls]
[(2050, 0), (2250, 2048), (2450, 2176)]
"""

from __future__ import annotations

from windowmem.calls.agent_calls import model_calls
from windowmem.conversation import Conversation
from windowmem.errors import PolicyError
from windowmem.messages import Message, assistant, system, tool, user
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.prices import (
    Bill,
    CallTokens,
    ModelPrice,
    cache_tokens,
    price_of,
    without_cache,
)
from windowmem.tokens import TokenCounter


def _words(tokens: int, label: str) -> str:
    # *tokens* whitespace words, the first naming the message so that no two are alike.
    return " ".join([label] + ["w"] * (tokens - 1))


def _whole(name: str, value: object, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise PolicyError(f"{name} must be a whole number of at least {least}, got {value!r}")
    return value


def _counter(tool_call_tokens: int) -> TokenCounter:
    # Words of the content, and *tool_call_tokens* for each tool the message asks for (the
    # tool's name and arguments, which a provider counts although the content is empty).
    def count(message: Message) -> int:
        return len(message.content.split()) + tool_call_tokens * len(message.tool_calls)

    return count


def chat_bill(
    *,
    system_tokens: int,
    question_tokens: int,
    reply_tokens: int,
    turns: int,
    window: int,
    model: ModelPrice | str,
    tool_calls: int = 0,
    tool_result_tokens: int = 100,
    tool_call_tokens: int = 20,
    long_pauses: bool = False,
) -> Bill:
    """The bill of one *turns*-long chat of this shape at Context Window Length *window* (0: no
    limit) on *model* (a :class:`~windowmem.prices.ModelPrice` or its API id, e.g.
    ``"gpt-5.4-mini"``).

    Every turn without tools is one model call. With *tool_calls* > 0, the model asks for that
    many tools in one reply (*tool_call_tokens* each, billed as output), each tool answers with
    *tool_result_tokens*, and a second model call writes the reply: two model calls a turn, and
    n8n stores the turn as the question, each tool call with its result, and the reply.
    *long_pauses*: every message comes after a pause longer than the prompt cache lives, so
    nothing is read from the cache.

    >>> paused = chat_bill(system_tokens=2_000, question_tokens=50, reply_tokens=150, turns=3,
    ...                    window=0, model="gpt-5.4-mini", long_pauses=True)
    >>> paused.total("cached")
    0
    >>> chat_bill(system_tokens=0, question_tokens=50, reply_tokens=150, turns=3, window=5,
    ...           model="gpt-5.4-mini")
    Traceback (most recent call last):
    ...
    windowmem.errors.PolicyError: system_tokens must be a whole number of at least 1, got 0
    """
    _whole("system_tokens", system_tokens, 1)
    _whole("question_tokens", question_tokens, 1)
    _whole("reply_tokens", reply_tokens, 1)
    _whole("turns", turns, 1)
    _whole("window", window, 0)
    _whole("tool_calls", tool_calls, 0)
    _whole("tool_result_tokens", tool_result_tokens, 1)
    _whole("tool_call_tokens", tool_call_tokens, 0)
    if not isinstance(long_pauses, bool):
        raise PolicyError(f"long_pauses must be True or False, got {long_pauses!r}")
    price = price_of(model) if isinstance(model, str) else model
    if long_pauses:
        price = without_cache(price)
    messages = [system(_words(system_tokens, "system"))]
    for turn in range(1, turns + 1):
        messages.append(user(_words(question_tokens, f"q{turn}")))
        ids = [f"call_{turn}_{i}" for i in range(1, tool_calls + 1)]
        if ids:
            messages.append(assistant("", ids))
            messages += [tool(_words(tool_result_tokens, i), i) for i in ids]
        messages.append(assistant(_words(reply_tokens, f"a{turn}")))
    chat = Conversation.of(messages, "a chat of this shape")
    counter = _counter(tool_call_tokens)
    calls = model_calls(chat, N8nSimpleMemory(window))
    sent = [call.messages for call in calls]
    read_written = cache_tokens(sent, price.cache, counter)
    billed = tuple(
        CallTokens(
            call.turn,
            sum(counter(m) for m in call.messages),
            read,
            written,
            counter(call.reply) if call.reply else 0,
        )
        for call, (read, written) in zip(calls, read_written, strict=True)
    )
    return Bill(price, billed)
