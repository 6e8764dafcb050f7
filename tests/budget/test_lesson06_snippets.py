"""Lesson 6's LangChain snippets, run as printed against the installed langchain 1.x.

Each ```python block of the lesson is executed, then driven through ``create_agent`` with a
fake chat model from langchain_core that records what every call sends: a snippet the
installed langchain no longer accepts, or one that does not do what its sentence says, fails.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import Field

from windowmem.budget import help_centre, prepare, run_task
from windowmem.budget.money import task_calls
from windowmem.prices import price_of

LESSON = Path(__file__).parents[2] / "course" / "06_token_budget_and_context_drift.ipynb"
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def snippets() -> list[str]:
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return FENCE.findall(text)


def snippet_defining(name: str) -> dict[str, Any]:
    """The namespace of the lesson's one snippet that defines *name*."""
    found = [code for code in snippets() if re.search(rf"^def {name}\(", code, re.M)]
    assert len(found) == 1, f"lesson 6 should print one snippet defining {name}"
    namespace: dict[str, Any] = {}
    exec(compile(found[0], f"lesson 6: {name}", "exec"), namespace)  # noqa: S102 - our page
    return namespace


class RecordingModel(GenericFakeChatModel):
    """A fake chat model that answers from a script and keeps every call's messages."""

    seen: list[list[Any]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingModel:
        return self

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)


CHUNKS = {
    6: '[chunk 6, "Warranty"]\nEvery product carries a two-year warranty from delivery.',
    2: '[chunk 2, "Returns"]\nYou can return an item within 30 days of delivery.',
}


@tool
def read_chunk(chunk: int) -> str:
    """Read a help-centre chunk by its id."""
    return CHUNKS[chunk]


def call(name: str, args: dict[str, Any], n: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{n}"}])


def test_the_snippets_are_five_and_compile():
    assert len(snippets()) == 5
    for code in snippets():
        compile(code, "lesson 6", "exec")


def test_keep_references_leaves_the_latest_tool_result_and_references_the_others():
    keep_references = snippet_defining("keep_references")["keep_references"]
    model = RecordingModel(
        messages=iter(
            [
                call("read_chunk", {"chunk": 6}, 1),
                call("read_chunk", {"chunk": 2}, 2),
                AIMessage(content="Two years; 30 days."),
            ]
        )
    )
    agent = create_agent(
        model,
        [read_chunk],
        system_prompt="You answer from the help centre.",
        middleware=[keep_references],
    )
    result = agent.invoke({"messages": [HumanMessage("Warranty? Returns?")]})
    assert result["messages"][-1].content == "Two years; 30 days."
    first, second, third = model.seen
    # The system prompt comes first, unchanged, on every call.
    assert all(
        isinstance(s[0], SystemMessage) and s[0].content == first[0].content for s in model.seen
    )
    tools_second = [m.content for m in second if isinstance(m, ToolMessage)]
    tools_third = [m.content for m in third if isinstance(m, ToolMessage)]
    assert tools_second == [CHUNKS[6]]  # the latest tool result is whole
    assert tools_third == ['[chunk 6, "Warranty"]', CHUNKS[2]]  # the older one, its reference
    # The agent's own history keeps the whole results: only what the model is sent changes.
    assert [m.content for m in result["messages"] if isinstance(m, ToolMessage)] == [
        CHUNKS[6],
        CHUNKS[2],
    ]


@tool
def read_page(page: int) -> str:
    """Read a long help-centre page by its number."""
    return f"Page {page}. " + "Orders ship within two working days of payment. " * 8


def test_truncate_in_blocks_cuts_rarely_and_only_appends_between_cuts():
    """The snippet, run in an agent of the installed langchain: each call stays within the
    budget, the task stays first, no tool result loses its request, and between two cuts each
    call sends the call before it plus the new messages (the prefix a cache serves)."""
    from langchain_core.messages.utils import count_tokens_approximately

    namespace = snippet_defining("truncate_in_blocks")
    assert (namespace["BUDGET"], namespace["CUT_TO"]) == (1500, 1100)  # as the lesson prints
    namespace["BUDGET"], namespace["CUT_TO"] = 600, 350  # pages of about 100 tokens
    reads = 12
    model = RecordingModel(
        messages=iter(
            [call("read_page", {"page": n}, n) for n in range(reads)] + [AIMessage("Done.")]
        )
    )
    agent = create_agent(
        model,
        [read_page],
        system_prompt="Answer from the pages.",
        middleware=[namespace["truncate_in_blocks"]],
    )
    result = agent.invoke({"messages": [HumanMessage("Read the pages.")]})
    assert result["messages"][-1].content == "Done." and len(model.seen) == reads + 1
    sent = [s[1:] for s in model.seen]  # without the system prompt
    for messages in sent:
        assert isinstance(messages[0], HumanMessage) and messages[0].content == "Read the pages."
        assert count_tokens_approximately(messages) <= 600
        assert not isinstance(messages[1] if len(messages) > 1 else None, ToolMessage)
        requested = {c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
        assert all(m.tool_call_id in requested for m in messages if isinstance(m, ToolMessage))
    appends = [
        len(b) > len(a) and [m.id for m in b[: len(a)]] == [m.id for m in a]
        for a, b in zip(sent, sent[1:])
    ]
    cuts = appends.count(False)
    # Cut in blocks: a few cuts, and most calls only append to the call before.
    assert 1 <= cuts < appends.count(True)
    # The cut stays in the agent's state: the final history is what the last call was sent.
    assert [m.id for m in result["messages"][:-1]] == [m.id for m in sent[-1]]


@pytest.mark.parametrize(
    ("policy", "model", "per_1000_tasks"),
    [("unbounded", "gpt-5.4-mini", "6.75"), ("truncate", "claude-sonnet-4-6", "51.85")],
)
def test_dollars_prices_usage_metadata_as_the_lesson_s_bills_do(policy, model, per_1000_tasks):
    """The usage LangChain reports for the lesson's runs (input_tokens counting the cached and
    written tokens, as langchain-anthropic and langchain-openai report them) priced by the
    snippet gives the lesson's figures."""
    dollars = snippet_defining("dollars")["dollars"]
    price = price_of(model)
    run = run_task(prepare(help_centre()), 1500, policy)
    messages = [
        AIMessage(
            content="",
            usage_metadata={
                "input_tokens": c.input,
                "output_tokens": c.output,
                "total_tokens": c.input + c.output,
                "input_token_details": {"cache_read": c.cached, "cache_creation": c.written},
            },
        )
        for c in task_calls(run, price)
    ]
    total = dollars(
        messages,
        float(price.input),
        float(price.cached_input),
        float(price.cache_write or price.input),
        float(price.output),
    )
    assert f"{total * 1000:.2f}" == per_1000_tasks


def test_pin_order_number_adds_the_number_once_given_and_keeps_the_instructions_first():
    namespace = snippet_defining("pin_order_number")
    pin = namespace["pin_order_number"]
    model = RecordingModel(messages=iter([AIMessage("Hello!"), AIMessage("Let me check.")]))
    agent = create_agent(model, [], middleware=[pin])
    state = agent.invoke({"messages": [HumanMessage("Hi there")]})
    agent.invoke(
        {"messages": [*state["messages"], HumanMessage("My order #7781 has not arrived.")]}
    )
    before, after = (s[0].content for s in model.seen)
    assert before == namespace["INSTRUCTIONS"]
    assert after == namespace["INSTRUCTIONS"] + "\nThe customer's order number is #7781."


def test_claude_s_cache_marker_snippet_builds_the_content_block_langchain_anthropic_keeps():
    """The snippet's marker is a content block of the system message; where langchain-anthropic
    is installed (this project does not install it: the reference page cites 1.7.10's source),
    its message formatting keeps the marker on the block it sends."""
    (code,) = [c for c in snippets() if "cache_control" in c]
    compile(code, "lesson 6: cache_control", "exec")
    block = {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
    assert '"cache_control": {"type": "ephemeral"}' in code and "SystemMessage(content=[" in code
    formatting = pytest.importorskip("langchain_anthropic.chat_models")
    system, _ = formatting._format_messages(
        [SystemMessage(content=[block]), HumanMessage("Hi")], model="claude-sonnet-4-6"
    )
    assert system == [block]
