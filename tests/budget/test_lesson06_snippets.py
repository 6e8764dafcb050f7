"""Lesson 6's LangChain code, run as printed against the installed langchain 1.x.

The lesson points to its reference page's section 10, which prints the fixes as one agent's
code. Each ```python block there is executed, then driven through ``create_agent`` with a
fake chat model from langchain_core that records what every call sends: a snippet the
installed langchain no longer accepts, or one that does not do what its sentence says, fails.
"""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from windowmem.budget import help_centre, prepare, run_task
from windowmem.budget.money import task_calls
from windowmem.prices import price_of

COURSE = Path(__file__).parents[2] / "course"
LESSON = COURSE / "06_token_budgets.ipynb"
NOTES = COURSE / "reference" / "06_token_budgets_notes.ipynb"
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def markdown(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def snippets() -> list[str]:
    """The reference page's code blocks: the agent's fixes, then Claude's cache marker."""
    cells = json.loads(NOTES.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return FENCE.findall(text)


def snippet_defining(name: str) -> dict[str, Any]:
    """The namespace of the lesson's one snippet that defines *name*."""
    found = [code for code in snippets() if re.search(rf"^def {name}\(", code, re.M)]
    assert len(found) == 1, f"lesson 6's reference page should print one block defining {name}"
    # Run as a module of its own, as a reader's file would be (langgraph reads the state
    # schema's type hints from the module that defines it).
    module = types.ModuleType(f"lesson06_{name}")
    sys.modules[module.__name__] = module
    exec(compile(found[0], f"lesson 6: {name}", "exec"), module.__dict__)  # noqa: S102 - our page
    return module.__dict__


class RecordingModel(GenericFakeChatModel):
    """A fake chat model that answers from a script and keeps every call's messages."""

    seen: list[list[Any]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingModel:
        return self

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)


CHUNKS = {
    6: '[chunk 6, "Warranty": answers question 1]\nEvery product carries a two-year warranty.',
    2: '[chunk 2, "Returns": answers question 2]\nYou can return an item within 30 days.',
}


@tool
def read_chunk(chunk: int) -> str:
    """Read a help-centre chunk by its id."""
    return CHUNKS[chunk]


def call(name: str, args: dict[str, Any], n: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call-{n}"}])


def test_the_code_is_two_blocks_that_compile_and_the_lesson_points_to_them():
    assert len(snippets()) == 2
    for code in snippets():
        compile(code, "lesson 6", "exec")
    assert "```python" not in markdown(LESSON)  # one place for the code: the reference page
    assert "reference/06_token_budgets_notes.ipynb#langchain" in markdown(LESSON)


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
    # The older one, its reference line.
    assert tools_third == ['[chunk 6, "Warranty": answers question 1]', CHUNKS[2]]
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


def test_the_pin_survives_truncate_in_blocks_in_one_agent():
    """The pin and the cap together, as the reference page prints them, in a chat with a
    checkpointer: the order number, given on turn 2, stays in every later system prompt after
    truncate_in_blocks has removed the message that gave it from the agent's state."""
    namespace = snippet_defining("pin_order_number")
    namespace["BUDGET"], namespace["CUT_TO"] = 600, 350  # pages of about 100 tokens
    instructions, pinned = namespace["INSTRUCTIONS"], "\nThe customer's order number is #7781."
    reads = 8
    model = RecordingModel(
        messages=iter(
            [AIMessage("Hello!")]
            + [call("read_page", {"page": n}, n) for n in range(reads)]
            + [AIMessage("It ships this week."), AIMessage("Tomorrow.")]
        )
    )
    agent = create_agent(
        model,
        [read_page],
        checkpointer=InMemorySaver(),
        middleware=[
            namespace["find_order_number"],
            namespace["truncate_in_blocks"],
            namespace["pin_order_number"],
        ],
    )
    chat = {"configurable": {"thread_id": "lucia"}}
    agent.invoke({"messages": [HumanMessage("Hi")]}, chat)
    agent.invoke({"messages": [HumanMessage("My order #7781 has not arrived.")]}, chat)
    final = agent.invoke({"messages": [HumanMessage("When will it come?")]}, chat)
    assert final["messages"][-1].content == "Tomorrow." and len(model.seen) == reads + 3
    systems = [s[0].content for s in model.seen]
    assert systems[0] == instructions  # before the number is given, the instructions alone
    assert all(s == instructions + pinned for s in systems[1:])
    gave = [any("#7781" in m.text for m in s[1:]) for s in model.seen]
    # The message that gave the number was cut, from what is sent and from the state ...
    assert gave[1] and not gave[-1] and not any("#7781" in m.text for m in final["messages"])
    # ... and the turn-1 message, the first, is kept by the cap.
    assert all(s[1].content == "Hi" for s in model.seen)
    assert final["order_number"] == "#7781"


def test_claude_s_cache_marker_snippet_builds_the_content_block_langchain_anthropic_keeps():
    """The snippet's marker is a content block of the system message; where langchain-anthropic
    is installed (this project does not install it: the reference page cites 1.7.10's source),
    its message formatting keeps the marker on the block it sends."""
    (code,) = [c for c in snippets() if '"cache_control"' in c]
    compile(code, "lesson 6: cache_control", "exec")
    block = {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}
    assert '"cache_control": {"type": "ephemeral"}' in code and "SystemMessage(content=[" in code
    formatting = pytest.importorskip("langchain_anthropic.chat_models")
    system, _ = formatting._format_messages(
        [SystemMessage(content=[block]), HumanMessage("Hi")], model="claude-sonnet-4-6"
    )
    assert system == [block]


def test_the_agents_sdk_cached_count_the_lesson_names_is_where_the_installed_sdk_keeps_it():
    """Section 3's Spot it names ``usage.input_tokens_details.cached_tokens`` beside LangChain's
    ``cache_read``: the installed openai-agents keeps a run's cached input tokens there, and adds
    them up over the run's requests as it adds the input tokens."""
    from agents.run_context import RunContextWrapper
    from agents.usage import InputTokensDetails, OutputTokensDetails, Usage

    assert "`usage.input_tokens_details.cached_tokens`" in markdown(LESSON)
    run = RunContextWrapper(context=None)
    for cached, sent in ((0, 1_200), (1_024, 1_400)):
        run.usage.add(
            Usage(
                requests=1,
                input_tokens=sent,
                output_tokens=30,
                total_tokens=sent + 30,
                input_tokens_details=InputTokensDetails(cached_tokens=cached, cache_write_tokens=0),
                output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
            )
        )
    assert run.usage.input_tokens_details.cached_tokens == 1_024
    assert run.usage.input_tokens == 2_600 and run.usage.requests == 2
