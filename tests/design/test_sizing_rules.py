"""Each framework's sizing rule in lesson 5's table is the smallest window its model needs.

For every rule, on chats that ask 0 to 3 tools at once every turn, every size is tried on
windowmem's model of the framework (each model held to its real package by the differential
tests), and the smallest that sends the last *turns* turns whole is the rule's. LlamaIndex's
rule is also played through the real ``FunctionAgent`` and ``Memory``: at the rule's limit
the turns arrive whole, one token below they do not.
"""

from __future__ import annotations

import pytest

from windowmem.design.side_by_side import side_by_side, stored_per_turn
from windowmem.design.sizing import parallel_tool_chat, smallest_window
from windowmem.design.sizing_rules import (
    SIZING_RULES,
    agent_framework_max_n,
    agents_sdk_limit,
    langchain_max_tokens,
    llamaindex_token_limit,
    n8n_context_window_length,
    sizing_table,
    spring_ai_max_messages,
    worked_sizes,
)
from windowmem.errors import WindowMemError
from windowmem.messages import interactions
from windowmem.policies import N8nSimpleMemory
from windowmem.policies.agent_framework import AgentFrameworkTruncation
from windowmem.policies.base import WindowPolicy
from windowmem.policies.langchain_agents import LangChainTrimState
from windowmem.policies.llamaindex_memory import LlamaIndexMemory, function_agent_counter
from windowmem.policies.registry import make_policy
from windowmem.tokens import count_messages, count_text

CASES = [(calls, turns) for calls in (0, 1, 2, 3) for turns in (1, 2, 3, 4)]


def sends_whole(chat, policy: WindowPolicy, turn: int, turns: int) -> bool:
    """Whether *turn*'s first call sends the *turns* turns before it whole (read-once windows)."""
    (row,) = [r for r in side_by_side(chat, [policy]) if r.turn == turn]
    whole = {t for t in row.visible_turns if t not in row.partial_turns}
    return set(range(turn - turns, turn)) <= whole


def smallest_read_once(chat, make, turn: int, turns: int, start: int = 1) -> int:
    return next(n for n in range(start, 2000) if sends_whole(chat, make(n), turn, turns))


def turn_size(chat, policy: WindowPolicy) -> int:
    return stored_per_turn(chat, policy)[0]


@pytest.mark.parametrize(("calls", "turns"), CASES)
def test_the_before_every_call_rules_are_the_smallest_on_every_call(calls, turns):
    chat = parallel_tool_chat(turns + 2, calls=calls)
    langchain = LangChainTrimState(10, counter=count_messages)
    assert smallest_window(
        chat, lambda n: LangChainTrimState(n, counter=count_messages), turns + 2, turns
    ) == langchain_max_tokens(turns=turns, turn_size=turn_size(chat, langchain))
    assert smallest_window(
        chat, lambda n: AgentFrameworkTruncation(max(n, 1)), turns + 2, turns
    ) == agent_framework_max_n(turns=turns, turn_size=turn_size(chat, AgentFrameworkTruncation(10)))


@pytest.mark.parametrize(("calls", "turns"), CASES)
def test_the_read_once_rules_are_the_smallest(calls, turns):
    chat = parallel_tool_chat(turns + 2, calls=calls)
    last = turns + 2

    def sdk(n: int) -> WindowPolicy:
        return make_policy("openai-agents", n)

    def spring(n: int) -> WindowPolicy:
        return make_policy("spring-ai", n)

    assert smallest_read_once(chat, sdk, last, turns) == agents_sdk_limit(
        turns=turns, turn_size=turn_size(chat, sdk(10))
    )
    assert smallest_read_once(chat, spring, last, turns) == spring_ai_max_messages(turns=turns)
    assert smallest_read_once(chat, N8nSimpleMemory, last, turns) == n8n_context_window_length(
        turns=turns, turn_size=turn_size(chat, N8nSimpleMemory(5))
    )


@pytest.mark.parametrize(("calls", "turns"), CASES)
@pytest.mark.parametrize("flush", ["one token", "one turn"])
def test_the_llamaindex_rule_is_the_smallest_limit(calls, turns, flush):
    chat = parallel_tool_chat(turns + 2, calls=calls)
    counter = function_agent_counter()
    first = interactions(chat)[0].messages
    tokens = sum(counter(m) for m in first)
    size = 1 if flush == "one token" else tokens

    def memory(n: int) -> WindowPolicy:
        return LlamaIndexMemory(n, token_flush_size=min(size, n), counter=counter)

    rule = llamaindex_token_limit(
        turns=turns, turn_tokens=tokens, question_tokens=counter(first[0])
    )
    assert smallest_read_once(chat, memory, turns + 2, turns) == rule


def test_the_llamaindex_rule_checks_the_limit_as_llamaindex_multiplies():
    # 90 × 0.7 is 62.99999999999999 in floating point: 90 does not hold 63 tokens.
    assert 90 * 0.7 < 63 and 91 * 0.7 >= 63
    assert llamaindex_token_limit(turns=1, turn_tokens=50, question_tokens=13) == 91
    assert llamaindex_token_limit(turns=2, turn_tokens=10, question_tokens=1, ratio=1.0) == 21


def test_the_worked_sizes_are_each_rule_on_the_lesson_s_example():
    sizes = worked_sizes()
    assert list(sizes) == [r.framework for r in SIZING_RULES]
    assert list(sizes.values())[0] == 15 and sizes["Spring AI"] == 6
    chat = parallel_tool_chat(4, calls=1)
    # Played on the models, each the smallest (LlamaIndex in Qwen2.5 tokens).
    assert (
        smallest_window(chat, lambda n: LangChainTrimState(n, counter=count_messages), 4, 3)
        == (sizes["LangChain 1.x `create_agent`"])
    )
    counter = function_agent_counter(count_text)

    def memory(n: int) -> WindowPolicy:
        return LlamaIndexMemory(n, token_flush_size=1, counter=counter)

    assert smallest_read_once(chat, memory, 4, 3) == sizes["LlamaIndex `Memory`"]
    assert smallest_read_once(chat, N8nSimpleMemory, 4, 3) == sizes["n8n Simple Memory"]


def test_the_table_has_a_row_per_rule_and_the_worked_column():
    table = sizing_table(worked_sizes()).splitlines()
    assert len(table) == 2 + len(SIZING_RULES)
    assert table[2].startswith("| LangChain 1.x") and table[2].endswith("| 15 |")
    assert "`(turns + 1) × turn size − 1`" in table[2]


def test_the_rules_refuse_what_is_not_a_whole_number():
    with pytest.raises(WindowMemError, match="turns must be a whole number >= 1, got 0"):
        spring_ai_max_messages(turns=0)
    with pytest.raises(WindowMemError, match="turn_size must be a whole number >= 1"):
        n8n_context_window_length(turns=2, turn_size=True)
    with pytest.raises(WindowMemError, match="question_tokens"):
        llamaindex_token_limit(turns=1, turn_tokens=5, question_tokens=0)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("calls", [0, 2])
def test_the_llamaindex_rule_holds_in_the_real_function_agent(calls):
    pytest.importorskip("llama_index.core.memory")
    driver = pytest.importorskip("tests.policies.llamaindex_driver")
    from llama_index.core.memory import Memory

    from tests.policies.test_differential_llamaindex_memory import split_words

    turns = 3
    chat = parallel_tool_chat(turns + 2, calls=calls)
    counter = function_agent_counter()
    first = interactions(chat)[0].messages
    tokens = sum(counter(m) for m in first)
    limit = llamaindex_token_limit(
        turns=turns, turn_tokens=tokens, question_tokens=counter(first[0])
    )

    def last_call_questions(token_limit: int) -> list[str]:
        calls_made, _ = driver.play(
            chat,
            lambda: Memory.from_defaults(
                token_limit=token_limit, token_flush_size=tokens, tokenizer_fn=split_words
            ),
        )
        last_turn_first_call = calls_made[-(1 + (1 if calls else 0))]
        return [text for role, text, _ in last_turn_first_call if role == "user"]

    asked = last_call_questions(limit)
    assert len(asked) == turns + 1 and asked[-1].startswith(f"Is item {turns + 2} ")
    assert len(last_call_questions(limit - 1)) == turns
