"""Lesson 5's code, run: the LangChain middleware, the Agents SDK session, LlamaIndex's
``Memory`` and the Agent Framework's ``TruncationStrategy`` the lesson shows, driven through
the real packages with a scripted model on Valentina's chat, send what ``framework_lineup``
predicts on every turn (the arrays the lesson's tables and printed turn-9 arrays are built
from)."""

from __future__ import annotations

from typing import NotRequired

import pytest

from tests.policies.model_calls import every_call, our_key
from windowmem.design.side_by_side import (
    LLAMAINDEX_FLUSH,
    LLAMAINDEX_TOKEN_LIMIT,
    SAME_NUMBER,
    framework_lineup,
    side_by_side,
    stored_per_turn,
)
from windowmem.errors import PolicyError
from windowmem.examples import load_example
from windowmem.replay import replay

CHAT = load_example("two_orders")


def lesson_middleware(max_tokens: int = 10):
    """The lesson's ``keep_last_10`` at *max_tokens* (10 in the lesson; self-check 1b asks for
    another): ``windowmem.design.summary_run.keep_last``, the same trim_messages call in a
    ``@before_model`` middleware (tests/design/test_lesson05_snippets.py runs the lesson's own)."""
    from windowmem.design.summary_run import keep_last

    return keep_last(max_tokens)


def test_the_lesson_s_langchain_middleware_sends_what_the_lineup_predicts():
    pytest.importorskip("langchain.agents.middleware")
    driver = pytest.importorskip("tests.policies.langgraph_driver")
    policy = framework_lineup()[1]
    assert policy.name == "langchain-trim-state" and policy.size == SAME_NUMBER
    messages = driver.with_replies(CHAT.messages)
    run = driver.play(messages, driver.middleware_agent(lesson_middleware()))
    assert run.first_inputs == [
        [our_key(m) for m in view.sent] for view in replay(messages, policy)
    ]
    assert run.every_input == every_call(messages, policy)


def test_the_lesson_s_agents_sdk_session_sends_what_the_lineup_predicts():
    pytest.importorskip("agents")
    driver = pytest.importorskip("tests.policies.openai_agents_driver")
    policy = framework_lineup()[2]
    assert policy.name == "openai-agents" and policy.size == SAME_NUMBER
    run = driver.play(CHAT.messages, SAME_NUMBER)
    assert run.first_inputs == driver.expected_inputs(CHAT.messages, policy)
    # Valentina's turn 3 asked for two tools at once: six items stored, as the lesson's table says.
    assert stored_per_turn(CHAT, policy)[2] == 6
    assert len(run.stored) == sum(stored_per_turn(CHAT, policy))


def turn_9_array(policy_name: str) -> list:
    """The array ``side_by_side`` predicts for turn 9's first call (the lesson prints it)."""
    (row,) = [
        r for r in side_by_side(CHAT, framework_lineup()) if r.turn == 9 and r.policy == policy_name
    ]
    return [our_key(m) for m in row.sent]


def lesson_llamaindex_memory():
    """The lesson's LlamaIndex memory, word for word (its default tokenizer, tiktoken's
    cl100k, ships inside llama-index-core: no download)."""
    from llama_index.core.memory import Memory

    return Memory.from_defaults(session_id="valentina", token_limit=400, token_flush_size=100)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_lesson_s_llamaindex_memory_sends_what_the_lineup_predicts():
    pytest.importorskip("llama_index.core.memory")
    driver = pytest.importorskip("tests.policies.llamaindex_driver")
    policy = framework_lineup()[4]
    assert policy.name == "llamaindex-memory"
    assert (policy.size, policy.flush) == (LLAMAINDEX_TOKEN_LIMIT, LLAMAINDEX_FLUSH) == (400, 100)
    messages = driver_messages()
    expected = driver.expected_calls(messages, policy)
    # Every call of every turn, and the queue left, with LlamaIndex's own default tokenizer:
    # the prediction counts Qwen2.5 tokens, and on this chat the cuts fall in the same places.
    assert driver.play(messages, lesson_llamaindex_memory) == expected
    calls, _ = expected
    first_calls = [calls[i] for i in first_call_indices(messages)]
    assert first_calls[8] == turn_9_array("llamaindex-memory")
    # Turn 9's call starts at turn 4's question: #4417 is gone, turn 1 with it.
    assert first_calls[8][1] == our_key(CHAT.interactions[3].messages[0])
    assert not any("#4417" in text for _, text, _ in first_calls[8])


def lesson_agent_framework_strategy():
    """The lesson's Agent Framework compaction strategy, word for word."""
    from agent_framework import TruncationStrategy

    return TruncationStrategy(max_n=10, compact_to=10)


def test_the_lesson_s_agent_framework_agent_sends_what_the_lineup_predicts():
    pytest.importorskip("agent_framework")
    driver = pytest.importorskip("tests.policies.agent_framework_driver")
    policy = framework_lineup()[5]
    assert (policy.name, policy.size) == ("agent-framework-truncation", SAME_NUMBER)
    messages = driver_messages()
    calls, stored = driver.play(
        messages, instructions=PROMPT, compaction_strategy=lesson_agent_framework_strategy()
    )
    # The instructions go beside the messages, never into the history.
    expected = every_call(messages, policy, system_sent=False)
    assert calls == [driver.one_message_per_round(c) for c in expected]
    first_calls = [calls[i] for i in first_call_indices(messages)]
    predicted = turn_9_array("agent-framework-truncation")
    assert first_calls[8] == driver.one_message_per_round(predicted[1:])
    # Turn 3's two results are one tool message: 4 stored, as the lesson's table says.
    assert stored_per_turn(CHAT, policy)[2] == 4
    assert len(stored) == sum(stored_per_turn(CHAT, policy))
    # Turn 9's call starts at turn 5's answer: the cut fell between whole groups.
    assert first_calls[8][0] == our_key(CHAT.interactions[4].messages[-1])


def driver_messages():
    driver = pytest.importorskip("tests.policies.langgraph_driver")
    messages = driver.with_replies(CHAT.messages)
    assert messages == CHAT.messages  # every turn of Valentina's chat ends in an answer
    return messages


def first_call_indices(messages) -> list[int]:
    """The index, among every model call, of each turn's first call."""
    from windowmem.messages import Role, interactions

    out, calls = [], 0
    for turn in interactions([m for m in messages if m.role is not Role.SYSTEM]):
        out.append(calls)
        calls += sum(1 for m in turn.messages if m.role is Role.ASSISTANT)
    return out


def test_the_lineup_wants_an_even_number():
    assert [p.size for p in framework_lineup(4)] == [2, 4, 4, 4, 400, 4]
    for bad in (3, 0, -2, True, "10"):
        with pytest.raises(PolicyError, match="even whole number"):
            framework_lineup(bad)


def anchor_middleware():
    """The lesson's anchor-fact fix in LangChain 1.x: save the order number in a state key of
    its own when first given, and read it in ``@dynamic_prompt`` on every call."""
    import re

    from langchain.agents import AgentState
    from langchain.agents.middleware import before_model, dynamic_prompt

    class OrderState(AgentState):
        order: NotRequired[str]

    @before_model(state_schema=OrderState)
    def remember_order(state, runtime):
        if not state.get("order"):
            for m in state["messages"]:
                if m.type == "human" and (found := re.search(r"#\d+", str(m.content))):
                    return {"order": found.group()}

    @dynamic_prompt
    def pin_order(request):
        order = request.state.get("order")
        return PROMPT + (f"\nOrder on file: {order}" if order else "")

    return remember_order, pin_order


PROMPT = "You are TuTienda's support agent."


def test_the_lesson_s_anchor_fix_carries_the_order_on_every_call():
    pytest.importorskip("langchain.agents.middleware")
    driver = pytest.importorskip("tests.policies.langgraph_driver")
    messages = driver.with_replies(CHAT.messages)
    agent = driver.middleware_agent(lesson_middleware(), *anchor_middleware())
    run = driver.play(messages, agent)
    assert len(run.first_inputs) == CHAT.turn_count == 9
    for sent in run.every_input:
        system = [content for role, content, _ in sent if role == "system"]
        assert system == [PROMPT + "\nOrder on file: #4417"]
    # Turn 9's call: the window has lost turn 1, the system prompt still carries #4417.
    turn_9 = run.first_inputs[8]
    assert not any("#4417" in content for role, content, _ in turn_9 if role != "system")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_lesson_s_llamaindex_anchor_fix_carries_the_order_on_every_call():
    """Lesson 5's fix in LlamaIndex: a static memory block, sent as a system message of its own
    on every call, beside the same window."""
    pytest.importorskip("llama_index.core.memory")
    driver = pytest.importorskip("tests.policies.llamaindex_driver")
    from llama_index.core.memory import Memory, StaticMemoryBlock

    def pinned():
        return Memory.from_defaults(
            session_id="valentina",
            token_limit=400,
            token_flush_size=100,
            memory_blocks=[StaticMemoryBlock(name="order", static_content="Order on file: #4417")],
        )

    messages = driver_messages()
    calls, _ = driver.play(messages, pinned)
    plain, _ = driver.expected_calls(messages, framework_lineup()[4])
    block = ("system", "<memory>\n<order>\nOrder on file: #4417\n</order>\n</memory>", ())
    assert all(
        call == [plain_call[0], block, *plain_call[1:]]
        for call, plain_call in zip(calls, plain, strict=True)
    )


def test_the_lesson_s_agent_framework_anchor_fix_keeps_the_first_question():
    """Lesson 5's fix in the Agent Framework: ``preserve_first_user_group=True`` never leaves
    out the first question, which holds #4417 in Valentina's chat."""
    pytest.importorskip("agent_framework")
    driver = pytest.importorskip("tests.policies.agent_framework_driver")
    from agent_framework import TruncationStrategy

    from windowmem.policies.agent_framework import AgentFrameworkTruncation

    strategy = TruncationStrategy(max_n=10, compact_to=10, preserve_first_user_group=True)
    messages = driver_messages()
    calls, _ = driver.play(messages, instructions=PROMPT, compaction_strategy=strategy)
    policy = AgentFrameworkTruncation(10, preserve_first_user_group=True)
    expected = every_call(messages, policy, system_sent=False)
    assert calls == [driver.one_message_per_round(c) for c in expected]
    turn_9 = calls[first_call_indices(messages)[8]]
    assert turn_9[0] == our_key(CHAT.interactions[0].messages[0]) and "#4417" in turn_9[0][1]


def test_the_lesson_shows_the_code_these_tests_run():
    """The framework code lesson 5 and its reference page show is the code above, word for
    word: LangChain's on the lesson (its keep_last_10 in a code cell that runs), the other
    frameworks' on the reference page."""
    import json
    from pathlib import Path

    course = Path(__file__).resolve().parents[2] / "course"
    pages = (
        "05_designing_multi_turn_conversations.ipynb",
        "reference/05_designing_multi_turn_conversations_notes.ipynb",
    )
    cells = [c for page in pages for c in json.loads((course / page).read_text())["cells"]]
    text = "".join("".join(c["source"]) for c in cells if c["cell_type"] in ("markdown", "code"))
    for shown in (
        'Memory.from_defaults(session_id="valentina", token_limit=400, token_flush_size=100)',
        "compaction_strategy=TruncationStrategy(max_n=10, compact_to=10))",
        'StaticMemoryBlock(name="order", static_content=f"Order on file: {order}")',
        "TruncationStrategy(..., preserve_first_user_group=True)",
        'max_tokens=10, start_on="human", end_on=("human", "tool"))',
        "@before_model(state_schema=OrderState)",
    ):
        assert shown in text, shown


def test_the_summary_middleware_beside_keep_last_10_never_fires():
    """Lesson 5, section 3: ``SummarizationMiddleware(trigger=("messages", 30), keep=("messages",
    10))`` stores its summary in the thread; beside ``keep_last_10`` it never fires, in either
    order, because the trim keeps the thread under 30 messages. Alone, it does."""
    pytest.importorskip("langchain.agents.middleware")
    driver = pytest.importorskip("tests.policies.langgraph_driver")
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from windowmem.design.sizing import parallel_tool_chat
    from windowmem.policies.langgraph import SUMMARY_PREFIX

    chat = parallel_tool_chat(20, calls=0)

    def summary() -> SummarizationMiddleware:
        return SummarizationMiddleware(
            model=FakeListChatModel(responses=["Order #4417."] * 20),
            trigger=("messages", 30),
            keep=("messages", 10),
        )

    def summarised(call) -> bool:
        return any(text.startswith(SUMMARY_PREFIX) for _, text, _ in call)

    alone = driver.play(chat, driver.middleware_agent(summary()))
    assert [summarised(call) for call in alone.every_input] == [False] * 15 + [True] * 5
    assert alone.thread[0] == ("user", SUMMARY_PREFIX + "Order #4417.", ())
    for both in ((summary(), lesson_middleware()), (lesson_middleware(), summary())):
        run = driver.play(chat, driver.middleware_agent(*both))
        assert not any(summarised(call) for call in run.every_input)
        assert len(run.thread) == 10
