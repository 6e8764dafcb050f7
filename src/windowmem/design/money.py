"""Lesson 5's designs in dollars: each design's calls priced on three models, prompt cache included.

A real agent's system prompt is long: its instructions and the JSON schemas of its tools
come to a thousand tokens or more, and it is sent first on every call. That matters to the
prompt cache (:mod:`windowmem.prices`): the cache reuses an exact prefix of at least 1,024
tokens, so a long system prompt is cached on every call of every design, and what differs
between designs is how much of the rest each call shares with an earlier one. The whole
history shares all of it; a sliding window, once full, shares nothing past the system
prompt.

:func:`with_system_prompt_of` lengthens a sample chat's system prompt to a chosen size
(repeating one instruction, :data:`FILLER`), and :func:`design_costs` prices named designs,
each a conversation under a window policy, on every model of
:data:`windowmem.prices.MODEL_PRICES`.

>>> from windowmem.messages import system, user, assistant
>>> from windowmem.policies.n8n import N8nSimpleMemory
>>> chat = [system("Be brief.")] + [m for t in range(6) for m in (user(f"q{t}"), assistant(f"a{t}"))]
>>> long = with_system_prompt_of(chat, 30)
>>> count_words(long.messages[0]) >= 30
True
>>> [c.design for c in design_costs([("window", long, N8nSimpleMemory(1))])][:1]
['window']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from windowmem.conversation import Conversation, as_conversation
from windowmem.design.anchor_facts import with_fact_in_system_prompt
from windowmem.design.rolling_summary import extractive_summary
from windowmem.errors import WindowMemError
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.messages import Message, Role, system
from windowmem.policies.base import WindowPolicy
from windowmem.policies.langgraph import LangChainSummarization, LangGraphThread
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.prices import MODEL_PRICES, CallTokens, ModelPrice, call_cost, conversation_bill
from windowmem.tokens import TokenCounter, count_words

#: The instruction repeated to give a sample system prompt a real agent's size.
FILLER = "Check the order's status with the tools before you answer, and never guess."

#: Bills are stated per this many conversations: one chat costs fractions of a cent.
CHATS = 1000

#: Lesson 5's system prompt, instructions and tool schemas, in the counter's tokens.
SYSTEM_PROMPT_TOKENS = 1700
#: Lesson 5's window, in messages (n8n's Context Window Length 5, a limit of 10 items).
WINDOW_MESSAGES = 10
#: When lesson 5's ``SummarizationMiddleware`` summarises: from this many messages.
SUMMARY_TRIGGER = 30

#: LangChain's ``DEFAULT_SUMMARY_PROMPT`` (langchain 1.5.2), the summarising model's instruction
#: without the messages it summarises, in Qwen2.5 tokens (tests/design/test_money.py counts
#: the real one).
SUMMARY_INSTRUCTION_TOKENS = 494

#: One design to price: its name, the conversation as its agent sees it, and its window.
Design = tuple[str, Conversation | Sequence[Message], WindowPolicy]


def with_system_prompt_of(
    conversation: Conversation | Sequence[Message], tokens: int, counter: TokenCounter = count_words
) -> Conversation:
    """*conversation* with its system prompt lengthened by :data:`FILLER` lines to at least *tokens*.

    >>> from windowmem.messages import user
    >>> with_system_prompt_of([user("hi")], 0)
    Traceback (most recent call last):
    ...
    windowmem.errors.WindowMemError: with_system_prompt_of: the conversation has no system prompt to lengthen
    """
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise WindowMemError(
            f"with_system_prompt_of: tokens must be a whole number >= 0, got {tokens!r}"
        )
    chat = as_conversation(conversation)
    messages = list(chat.messages)
    if not messages or messages[0].role is not Role.SYSTEM:
        raise WindowMemError(
            "with_system_prompt_of: the conversation has no system prompt to lengthen"
        )
    prompt = messages[0].content
    while counter(system(prompt)) < tokens:
        prompt += "\n" + FILLER
    return as_conversation([system(prompt), *messages[1:]])


@dataclass(frozen=True, slots=True)
class DesignCost:
    """One design's calls on one model: tokens over the conversation, dollars per :data:`CHATS`."""

    design: str
    model: str
    input: int
    """Every input token of every call, cached or not."""
    cached: int
    """The input tokens read from the provider's prompt cache."""
    output: int
    dollars: Decimal
    """What :data:`CHATS` such conversations cost, in US dollars."""

    @property
    def cached_share(self) -> float:
        """The part of the input read from the cache."""
        return self.cached / self.input if self.input else 0.0


def design_costs(
    designs: Sequence[Design],
    counter: TokenCounter = count_words,
    models: Sequence[ModelPrice] = MODEL_PRICES,
) -> tuple[DesignCost, ...]:
    """Each design priced on each model (one call per turn, as :func:`~windowmem.prices.conversation_bill`)."""
    if not designs:
        raise WindowMemError("design_costs: give at least one (name, conversation, policy) design")
    out = []
    for name, conversation, policy in designs:
        for model in models:
            bill = conversation_bill(conversation, policy, model, counter)
            out.append(
                DesignCost(
                    name,
                    model.name,
                    bill.total("input"),
                    bill.total("cached"),
                    bill.total("output"),
                    bill.dollars * CHATS,
                )
            )
    return tuple(out)


def support_designs(counter: TokenCounter = count_words) -> tuple[Design, ...]:
    """Lesson 5's five designs on Lucía's 60 turns (``support_60``), its system prompt lengthened.

    The whole history (a ``create_agent`` with no middleware); a window of
    :data:`WINDOW_MESSAGES`, alone and with the order pinned in the system prompt; a window
    of 40 messages; and ``SummarizationMiddleware`` (from :data:`SUMMARY_TRIGGER` messages,
    keeping the newest :data:`WINDOW_MESSAGES`, the order pinned too).

    >>> [name for name, _, _ in support_designs()]  # doctest: +NORMALIZE_WHITESPACE
    ['whole history', 'window of 10 messages', 'window of 10, order pinned',
     'window of 40 messages', 'summary at 30 messages, keep 10']
    """
    chat = with_system_prompt_of(load_example("support_60"), SYSTEM_PROMPT_TOKENS, counter)
    fact = ANCHOR_FACTS["support_60"]
    pinned = with_fact_in_system_prompt(chat, f"Order on file for this customer: {fact}")
    summarised = LangChainSummarization(
        WINDOW_MESSAGES,
        trigger_tokens=None,
        trigger_messages=SUMMARY_TRIGGER,
        counter=counter,
        summarizer=extractive_summary,
    )
    window = N8nSimpleMemory(WINDOW_MESSAGES // 2)
    return (
        ("whole history", chat, LangGraphThread()),
        (f"window of {WINDOW_MESSAGES} messages", chat, window),
        (f"window of {WINDOW_MESSAGES}, order pinned", pinned, window),
        ("window of 40 messages", chat, N8nSimpleMemory(20)),
        (f"summary at {SUMMARY_TRIGGER} messages, keep {WINDOW_MESSAGES}", pinned, summarised),
    )


def last_call(design: Design, model: ModelPrice, counter: TokenCounter = count_words) -> CallTokens:
    """The tokens of *design*'s last call on *model*, by kind (input, cached, written, output)."""
    _, conversation, policy = design
    return conversation_bill(conversation, policy, model, counter).calls[-1]


def priced_call(call: CallTokens, price: ModelPrice) -> str:
    """One call's price worked out, kind by kind, at *price*'s list prices per million tokens.

    >>> from windowmem.prices import price_of
    >>> print(priced_call(CallTokens(60, 2_000, 1_664, 0, 22), price_of("gpt-5.4-mini")))
    turn 60 on GPT-5.4 mini, US$ per million tokens:
      uncached input       336 × 0.75
      cached input       1,664 × 0.075
      output                22 × 4.5
      = US$0.000476 for the call
    """
    lines = [
        f"turn {call.turn} on {price.name}, US$ per million tokens:",
        f"  uncached input {call.uncached:>9,} × {price.input}",
        f"  cached input   {call.cached:>9,} × {price.cached_input}",
    ]
    if call.written:
        lines.append(f"  written        {call.written:>9,} × {price.cache_write}")
    lines.append(f"  output         {call.output:>9,} × {price.output}")
    lines.append(f"  = US${call_cost(call, price):.6f} for the call")
    return "\n".join(lines)


def per_call_by_block(
    design: Design,
    model: ModelPrice,
    counter: TokenCounter = count_words,
    block: int = 10,
) -> tuple[Decimal, ...]:
    """*design*'s calls on *model*, averaged over each *block* turns: US$ per :data:`CHATS` calls.

    Per call, the whole history grows by a turn's cached tokens, where a full window stays
    flat: these averages show where one line passes the other.
    """
    if isinstance(block, bool) or not isinstance(block, int) or block < 1:
        raise WindowMemError(f"per_call_by_block: block must be a whole number >= 1, got {block!r}")
    _, conversation, policy = design
    costs = [
        call_cost(c, model) for c in conversation_bill(conversation, policy, model, counter).calls
    ]
    chunks = [costs[i : i + block] for i in range(0, len(costs), block)]
    return tuple(sum(chunk, Decimal(0)) / len(chunk) * CHATS for chunk in chunks)


def summariser_calls(design: Design, counter: TokenCounter = count_words) -> tuple[CallTokens, ...]:
    """The summarising model's own calls in *design* (none unless its policy is
    ``SummarizationMiddleware``): on each, :data:`SUMMARY_INSTRUCTION_TOKENS` and the messages
    it replaces go in, uncached (the instruction comes first and is under any cache's
    minimum), and the summary comes out.
    """
    _, conversation, policy = design
    if not isinstance(policy, LangChainSummarization):
        return ()
    thread: tuple[Message, ...] = ()
    out = []
    turn = 0
    for message in as_conversation(conversation).messages:
        if message.role is Role.SYSTEM:
            continue
        if message.role is Role.USER:
            turn += 1
        if message.role is Role.ASSISTANT and policy.triggered(thread):
            cut = policy.cutoff(thread)
            if cut > 0:
                summary = policy.summarised(thread)[0]
                read = SUMMARY_INSTRUCTION_TOKENS + sum(counter(m) for m in thread[:cut])
                out.append(CallTokens(turn, read, 0, 0, counter(summary)))
        thread = policy.write(thread, [message])
    return tuple(out)


def summariser_dollars(
    design: Design, model: ModelPrice, counter: TokenCounter = count_words
) -> Decimal:
    """What the summariser's calls of :data:`CHATS` such chats cost on *model* (the agent's own
    calls are :func:`design_costs`)."""
    return sum((call_cost(c, model) for c in summariser_calls(design, counter)), Decimal(0)) * CHATS
