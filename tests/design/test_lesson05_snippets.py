"""Lesson 5's LangChain code, run as a learner would run it: the lesson's setup cell (its
tools and an offline model replaying Valentina's recorded replies), its visible LangChain cell
(``keep_last_10`` over her 9 turns), its pinned-order cell, then every markdown snippet in page
order, in one namespace, against the installed langchain and langgraph. A snippet that names
something undefined, or that the installed packages reject, fails here; what the LangChain
cells print is held to windowmem's model of the same middleware."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import types
from pathlib import Path

import pytest

from tests import event_loop

LESSON = (
    Path(__file__).resolve().parents[2] / "course" / "05_designing_multi_turn_conversations.ipynb"
)
FENCE = re.compile(r"```python\n(.*?)```", re.S)


def cells() -> list[dict]:
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def markdown() -> str:
    """The lesson's markdown cells, one after another."""
    return "\n".join("".join(c["source"]) for c in cells() if c["cell_type"] == "markdown")


def setup_cells() -> tuple[str, str]:
    """(the hidden setup cell, the visible LangChain cell that runs keep_last_10)."""
    code = ["".join(c["source"]) for c in cells() if c["cell_type"] == "code"]
    (setup,) = [c for c in code if "model, tools = replay_model(chat" in c]
    (langchain,) = [c for c in code if "def keep_last_10" in c]
    assert "hide-input" in next(
        c["metadata"].get("tags", []) for c in cells() if "".join(c["source"]) == setup
    )
    return setup, langchain


def pinned_cell() -> str:
    """Section 2's visible cell: remember_order and pin_order on keep_last_10's agent."""
    code = ["".join(c["source"]) for c in cells() if c["cell_type"] == "code"]
    (pinned,) = [c for c in code if "def remember_order" in c]
    return pinned


def snippets() -> list[str]:
    """The lesson's markdown snippets in page order (folds left out), Going further's too."""
    shown = []
    for cell in cells():
        if cell["cell_type"] != "markdown":
            continue
        body = "".join(cell["source"])
        shown += FENCE.findall(re.sub(r"<details>.*?</details>", "", body, flags=re.S))
    return shown


def run(code: str, namespace: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<lesson 5 snippet>", "exec"), namespace)
    return out.getvalue()


@contextlib.contextmanager
def pinned_middleware(name: str, code: str | None = None):
    """A learner's module holding the lesson's setup, keep_last_10 and the pinned cell's
    middleware (or *code*, a changed copy of that cell), without the cell's own agent; yields
    the module's namespace and a MonkeyPatch for the test's own patches."""
    setup, langchain = setup_cells()
    code = pinned_cell() if code is None else code
    module = types.ModuleType(name)
    namespace = module.__dict__
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, module.__name__, module)
        run(setup, namespace)
        run(langchain.split("agent = create_agent")[0], namespace)
        run(code[: code.index("model = replay_model(chat")], namespace)
        yield namespace, patch


def test_every_snippet_runs_and_does_what_the_lesson_says():
    pytest.importorskip("langchain.agents.middleware")
    assert [s.splitlines()[0] for s in snippets()] == [
        "from langchain.agents.middleware import SummarizationMiddleware",
    ]
    # A module of its own, as a learner's script is: typing resolves OrderState's hints there.
    module = types.ModuleType("lesson05_snippets")
    namespace = module.__dict__
    patch_modules = pytest.MonkeyPatch()
    patch_modules.setitem(sys.modules, module.__name__, module)
    try:
        check_snippets(namespace)
    finally:
        patch_modules.undo()


def expected_lines() -> list[str]:
    """What the LangChain cell must print, from windowmem's model of keep_last_10: what each
    turn stored, and the turn whose question opens that turn's answering call (the saved
    thread, which the middleware rewrites to what that call sends, then the answer); then
    turn 9's reply, the recorded one."""
    from windowmem.design.side_by_side import framework_lineup, stored_per_turn
    from windowmem.design.sizing import calls_sent
    from windowmem.examples import load_example
    from windowmem.messages import Role

    chat = load_example("two_orders")
    model = framework_lineup()[1]
    assert (model.name, model.size) == ("langchain-trim-state", 10)
    questions = [turn.messages[0] for turn in chat.interactions]
    calls = iter(calls_sent(chat.messages, model))
    lines, total = [], 0
    for t, (turn, stored) in enumerate(zip(chat.interactions, stored_per_turn(chat, model)), 1):
        total += stored
        answering = [next(calls) for m in turn.messages if m.role is Role.ASSISTANT][-1]
        start = questions.index(answering[0]) + 1
        lines.append(
            f"turn {t} stored {stored} messages, {total} since turn 1; the thread now starts at turn {start}"
        )
    return [*lines, f"turn 9 reply: {chat.messages[-1].content}"]


def check_snippets(namespace: dict) -> None:
    from langchain_core.messages import AIMessage

    from windowmem.design.replay import OfflineModel
    from windowmem.examples import RECALLS

    setup, langchain = setup_cells()
    run(setup, namespace)
    # The real create_agent and keep_last_10 over Valentina's 9 turns: turn 1 leaves on turn 4,
    # and turn 9's reply cannot name the first order.
    printed = run(langchain, namespace).splitlines()
    assert printed == expected_lines()
    assert printed[3].endswith("starts at turn 3") and "#4417" not in printed[-1]
    stored = namespace["agent"].get_state(namespace["config"]).values["messages"]
    assert [m.type for m in stored][-2:] == ["human", "ai"]
    # The pinned agent over the same 9 turns: turn 9's call sends the system prompt with the
    # order on file, then the same last 9 messages keep_last_10 leaves (turns 6 to 9).
    turn_9_window = namespace["model"].sent[-1][1:]
    pinned = run(pinned_cell(), namespace).splitlines()
    assert pinned == [
        "turn 9's system prompt ends: Order on file: #4417",
        "then 9 messages, from turn 6",
        f"turn 9's reply: {RECALLS['two_orders'][1]}",
    ]
    assert [m.content for m in namespace["window"]] == [m.content for m in turn_9_window]
    assert namespace["agent"].get_state(namespace["config"]).values["order"] == "#4417"
    # The same middleware on another chat: remember_order saves its first order number and
    # pin_order adds it to the system prompt of the model call. A fresh offline model answers.
    model = OfflineModel(messages=iter([AIMessage("Noted."), AIMessage("Noted again.")]))
    agent = namespace["create_agent"](
        model,
        namespace["tools"],
        system_prompt=namespace["PROMPT"],
        checkpointer=namespace["InMemorySaver"](),
        middleware=[namespace[n] for n in ("keep_last_10", "remember_order", "pin_order")],
    )
    config = {"configurable": {"thread_id": "lucia"}}
    for message in ("My order is #7781.", "A second one is #7790."):
        agent.invoke({"messages": [{"role": "user", "content": message}]}, config)
    assert agent.get_state(config).values["order"] == "#7781"
    assert [sent[0].content for sent in model.sent] == [
        namespace["PROMPT"] + "\nOrder on file: #7781"
    ] * 2
    # Going further's summary snippet builds the middleware the lesson names.
    namespace["model"] = model
    (summarise,) = snippets()
    run(summarise, namespace)
    assert type(namespace["summarise"]).__name__ == "SummarizationMiddleware"


def test_the_reply_s_cache_fields_are_the_ones_the_reference_page_names():
    """The reference page's "Reading cache hits in LangChain": ``usage_metadata``'s
    ``input_token_details`` has ``cache_read`` and ``cache_creation`` keys, none required."""
    messages = pytest.importorskip("langchain_core.messages.ai")
    details = messages.InputTokenDetails
    assert {"cache_read", "cache_creation"} <= set(details.__annotations__)
    assert not details.__required_keys__
    assert "input_token_details" in messages.UsageMetadata.__annotations__


BY_HAND_FOLD = "A summary kept by hand, in LangChain"


def test_the_summary_kept_by_hand_is_cut_by_keep_last_10():
    """Section 3's fold: the snippet replaces the saved thread with one summary message; later
    turns go after it, and keep_last_10 deletes it once the last 10 messages no longer reach it
    (the "by hand, under keep_last_10" row of the lesson's table)."""
    pytest.importorskip("langchain.agents.middleware")
    from langchain_core.messages import AIMessage

    from windowmem.design.replay import OfflineModel

    setup, langchain = setup_cells()
    body = "".join(
        "".join(c["source"])
        for c in json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "markdown"
    )
    (fold,) = [f for f in re.findall(r"<details>.*?</details>", body, re.S) if BY_HAND_FOLD in f]
    (by_hand,) = FENCE.findall(fold)
    module = types.ModuleType("lesson05_by_hand")
    namespace = module.__dict__
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, module.__name__, module)
        run(setup, namespace)
        run(langchain, namespace)  # keep_last_10 and its agent
        aimessage = AIMessage
        replies = [aimessage(f"answer {n}") for n in range(1, 3)]
        replies += [aimessage("Valentina asked about order #4417.")]
        replies += [aimessage(f"answer {n}") for n in range(3, 10)]
        model = OfflineModel(messages=iter(replies))
        namespace["model"] = model
        agent = namespace["create_agent"](
            model,
            namespace["tools"],
            system_prompt=namespace["PROMPT"],
            middleware=[namespace["keep_last_10"]],
            checkpointer=namespace["InMemorySaver"](),
        )
        namespace["agent"] = agent
        config = namespace["config"] = {"configurable": {"thread_id": "valentina"}}

        def ask(question: str) -> None:
            agent.invoke({"messages": [{"role": "user", "content": question}]}, config)

        def thread() -> list:
            return agent.get_state(config).values["messages"]

        ask("My order is #4417.")
        ask("And the second one?")
        run(by_hand, namespace)
        assert [(m.type, m.content) for m in thread()] == [
            ("human", "Summary so far: Valentina asked about order #4417.")
        ]
        for n in range(3, 8):  # five turns of 2: the summary is the 11th message back
            ask(f"question {n}")
        assert thread()[0].content.startswith("Summary so far")
        ask("question 8")
        assert not any(m.content.startswith("Summary so far") for m in thread())


def test_wrap_model_call_trims_each_call_and_keeps_the_thread():
    """Going further's @wrap_model_call cell: no call of Valentina's first 4 turns sends more
    than 10 messages, yet the saved thread keeps every message those turns stored."""
    pytest.importorskip("langchain.agents.middleware")
    from windowmem.design.replay import OfflineModel
    from windowmem.design.side_by_side import framework_lineup, stored_per_turn
    from windowmem.examples import load_example

    setup, _ = setup_cells()
    code = ["".join(c["source"]) for c in cells() if c["cell_type"] == "code"]
    (wrap,) = [c for c in code if "@wrap_model_call" in c]
    module = types.ModuleType("lesson05_wrap")
    namespace = module.__dict__
    sent: list[int] = []
    original = OfflineModel._generate

    def spy(self, messages, *args, **kwargs):
        sent.append(len([m for m in messages if m.type != "system"]))
        return original(self, messages, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, module.__name__, module)
        patch.setattr(OfflineModel, "_generate", spy)
        run(setup, namespace)
        printed = run(wrap, namespace).strip()
    chat = load_example("two_orders")
    stored = sum(stored_per_turn(chat, framework_lineup()[1])[:4])
    assert printed == f"after turn 4 the saved thread holds {stored} messages and starts at turn 1"
    assert stored == 15 and max(sent) == 10 and len(sent) == 7  # 1 + 2 + 2 + 2 model calls


REFERENCE = LESSON.parent / "reference" / "05_designing_multi_turn_conversations_notes.ipynb"


def test_the_reference_page_s_cache_snippet_reads_cache_read():
    """The reference page's "Reading cache hits in LangChain" snippet, on lesson 5's agent: the
    reply's usage_metadata as a provider's chat model fills it (langchain-openai puts OpenAI's
    cached_tokens in input_token_details["cache_read"])."""
    pytest.importorskip("langchain.agents.middleware")
    from langchain_core.messages import AIMessage

    from windowmem.design.replay import OfflineModel

    body = "".join(
        "".join(c["source"])
        for c in json.loads(REFERENCE.read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "markdown"
        and "Reading cache hits in LangChain" in "".join(c["source"])
    )
    (snippet,) = [s for s in FENCE.findall(body) if "usage_metadata" in s]
    setup, langchain = setup_cells()
    module = types.ModuleType("lesson05_cache")
    namespace = module.__dict__
    usage = {
        "input_tokens": 1837,
        "output_tokens": 22,
        "total_tokens": 1859,
        "input_token_details": {"cache_read": 1664},
    }
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, module.__name__, module)
        run(setup, namespace)
        run(langchain, namespace)  # defines create_agent's agent and its config
        namespace["agent"] = namespace["create_agent"](
            OfflineModel(messages=iter([AIMessage("Order #7781.", usage_metadata=usage)])),
            namespace["tools"],
            system_prompt=namespace["PROMPT"],
            checkpointer=namespace["InMemorySaver"](),
        )
        assert run(snippet, namespace).split() == ["1837", "1664"]


def test_section_3_s_cache_hits_line_reads_section_1_s_reply():
    """Section 3's "Spot it and fix it": the inline expression, on section 1's loop variable
    ``thread``, reads the answering call's cache_read as langchain-openai fills it."""
    pytest.importorskip("langchain_core.messages")
    from langchain_core.messages import AIMessage

    body = "".join(
        "".join(c["source"])
        for c in cells()
        if c["cell_type"] == "markdown" and "cache_read" in "".join(c["source"])
    )
    (expression,) = [e for e in re.findall(r"`([^`]+)`", body) if "cache_read" in e]
    usage = {
        "input_tokens": 1837,
        "output_tokens": 22,
        "total_tokens": 1859,
        "input_token_details": {"cache_read": 1664},
    }
    thread = [AIMessage("Order #7781.", usage_metadata=usage)]
    assert eval(expression, {"thread": thread}) == 1664  # noqa: S307 - the lesson's own line


def test_remember_order_changed_as_the_fold_says_keeps_the_newest_value():
    """Going further's "A fact that changes", before self-check 4: with its `if not state.get("order")` line dropped and
    the messages searched newest first, the pinned cell's remember_order follows a changed value
    (a second number given by the user replaces the first), and pin_order sends the new one."""
    pytest.importorskip("langchain.agents.middleware")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    lines = pinned_cell().split("\n")
    guard = [i for i, line in enumerate(lines) if 'if not state.get("order")' in line]
    assert len(guard) == 1  # the line the fold names is in the cell
    start = guard[0]
    body = []
    for line in lines[start + 1 :]:
        if line.startswith("        "):
            body.append(line[4:])
        else:
            break
    changed = lines[:start] + body + lines[start + 1 + len(body) :]
    code = "\n".join(changed).replace('in state["messages"]', 'in reversed(state["messages"])')
    assert 'reversed(state["messages"])' in code
    with pinned_middleware("lesson05_changed_fact", code) as (namespace, _):
        model = GenericFakeChatModel(messages=iter([AIMessage("noted")] * 2))
        agent = namespace["create_agent"](
            model,
            [],
            checkpointer=namespace["InMemorySaver"](),
            middleware=[namespace["remember_order"], namespace["pin_order"]],
        )
        config = {"configurable": {"thread_id": "a changed order"}}
        for question in ("My order is #1001.", "Sorry, I meant order #2002."):
            agent.invoke({"messages": [{"role": "user", "content": question}]}, config)
        assert agent.get_state(config).values["order"] == "#2002"


def test_self_check_4_the_newest_first_version_pins_her_second_order():
    """Self-check 4 (Going further): the fold's newest-first remember_order over Valentina's nine questions,
    her turn-10 correction and her turn-11 message naming #4432 pins #4471 after turn 10 and
    what the check book expects (#4432) after turn 11: a pattern cannot tell a correction from
    a new order."""
    pytest.importorskip("langchain.agents.middleware")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    from windowmem_course.checks.lesson05 import BOOK, CORRECTION, NEW_ORDER

    (changed,) = re.findall(r"```python\n(@before_model.*?)```", fold("The changed"), re.S)
    code = pinned_cell()
    start = code.index("@before_model(state_schema=OrderState)")
    end = code.index("@dynamic_prompt")
    code = code[:start] + changed + "\n\n" + code[end:]
    assert NEW_ORDER in json.dumps(cells()) and CORRECTION in json.dumps(cells())
    with pinned_middleware("lesson05_new_number", code) as (namespace, _):
        questions = [*namespace["questions"], CORRECTION, NEW_ORDER]
        model = GenericFakeChatModel(messages=iter([AIMessage("noted")] * len(questions)))
        agent = namespace["create_agent"](
            model,
            [],
            checkpointer=namespace["InMemorySaver"](),
            middleware=[namespace[n] for n in ("remember_order", "pin_order", "keep_last_10")],
        )
        config = {"configurable": {"thread_id": "a new number"}}
        pinned = []
        for question in questions:
            agent.invoke({"messages": [{"role": "user", "content": question}]}, config)
            pinned.append(agent.get_state(config).values["order"])
    assert pinned[-2:] == ["#4471", f"#{BOOK.expected('4')}"] == ["#4471", "#4432"]


def fold(title: str) -> str:
    """The lesson's fold whose summary line holds *title*."""
    body = "".join("".join(c["source"]) for c in cells() if c["cell_type"] == "markdown")
    (found,) = [f for f in re.findall(r"<details>.*?</details>", body, re.S) if title in f]
    return found


def test_the_pinned_cell_keeps_the_first_order_after_a_correction():
    """Going further's "A fact that changes": the lesson's own remember_order and pin_order over
    Valentina's nine questions and her turn-10 correction pin #4417 (the check book's
    pinned_order), not the corrected number: the middleware looks only while no order is saved."""
    pytest.importorskip("langchain.agents.middleware")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    from windowmem_course.checks.lesson05 import CORRECTION, pinned_order

    with pinned_middleware("lesson05_correction") as (namespace, patch):
        questions = [*namespace["questions"], CORRECTION]
        model = GenericFakeChatModel(messages=iter([AIMessage("noted")] * len(questions)))
        seen: list[str] = []
        original = type(model)._generate

        def spy(self, messages, *args, **kwargs):
            seen.append(messages[0].content)
            return original(self, messages, *args, **kwargs)

        patch.setattr(type(model), "_generate", spy)
        agent = namespace["create_agent"](
            model,
            [],
            checkpointer=namespace["InMemorySaver"](),
            middleware=[namespace[n] for n in ("remember_order", "pin_order", "keep_last_10")],
        )
        config = {"configurable": {"thread_id": "a correction"}}
        for question in questions:
            agent.invoke({"messages": [{"role": "user", "content": question}]}, config)
    expected = pinned_order(questions)
    assert expected == "#4417" and "#4471" in CORRECTION and CORRECTION in json.dumps(cells())
    assert agent.get_state(config).values["order"] == expected
    assert len(seen) == 10 and seen[-1].endswith(f"Order on file: {expected}")


def test_the_structured_output_fold_saves_the_newest_date():
    """The fold's structured-output snippet, on the lesson's agent: remember_booking asks the
    extractor once a turn, on the turn's question, and saves the date it returns (a stub stands
    in for model.with_structured_output; no provider is called)."""
    pytest.importorskip("langchain.agents.middleware")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.runnables import RunnableLambda

    (snippet,) = FENCE.findall(fold("facts a pattern cannot find"))
    asked: list[int] = []

    class Extracting:
        def with_structured_output(self, schema):
            def extract(messages):
                asked.append(len(messages))
                dates = [d for m in messages for d in re.findall(r"\d+ May", str(m.content))]
                return schema(travel_date=dates[-1] if dates else None)

            return RunnableLambda(extract)

    with pinned_middleware("lesson05_structured") as (namespace, _):
        namespace["model"] = Extracting()
        run(snippet, namespace)
        agent = namespace["create_agent"](
            GenericFakeChatModel(messages=iter([AIMessage("noted")] * 3)),
            [],
            checkpointer=namespace["InMemorySaver"](),
            middleware=[namespace["remember_booking"]],
        )
        config = {"configurable": {"thread_id": "a booking"}}
        for question in ("I fly on 12 May.", "Any window seats?", "Make that 14 May."):
            agent.invoke({"messages": [{"role": "user", "content": question}]}, config)
    assert agent.get_state(config).values["travel_date"] == "14 May"
    assert len(asked) == 3  # once a turn


def test_the_agents_sdk_fold_pins_the_order_in_its_instructions():
    """The reference page's Agents SDK pin (moved off the lesson in round 10), against openai-agents: the instructions function writes
    the system prompt from the run's context, and the session keeps the last 10 items."""
    pytest.importorskip("agents")
    from agents import Agent, RunContextWrapper, SessionSettings, SQLiteSession

    notes = "".join(
        "".join(c["source"])
        for c in json.loads(REFERENCE.read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "markdown"
    )
    snippet = next(s for s in FENCE.findall(notes) if "def instructions" in s)
    *body, last = snippet.rstrip().splitlines()
    assert last.startswith("result = await Runner.run(agent, question, session=session")
    namespace = {
        "Agent": Agent,
        "SQLiteSession": SQLiteSession,
        "SessionSettings": SessionSettings,
        "PROMPT": "You are TuTienda's support agent.",
        "tools": [],
    }
    exec(compile("\n".join(body), "<lesson 5 Agents SDK fold>", "exec"), namespace)
    agent, facts = namespace["agent"], namespace["facts"]
    # on a loop of its own: an earlier test on the worker may leave one running (tests/event_loop.py)
    prompt = event_loop.run(agent.get_system_prompt(RunContextWrapper(context=facts)))
    assert prompt == namespace["PROMPT"] + "\nOrder on file: #4417"
    empty = event_loop.run(agent.get_system_prompt(RunContextWrapper(context={})))
    assert empty == namespace["PROMPT"]
    assert namespace["session"].session_settings.limit == 10


@pytest.mark.parametrize("earlier", [1, 2, 3, 4])
@pytest.mark.parametrize("calls", [1, 2, 3])
def test_the_sizing_rule_in_tokens_keeps_the_turns_whole_under_the_approximate_counter(
    earlier, calls
):
    """Section 1's Spot it: with tool results of very different sizes, count tokens with
    ``count_tokens_approximately`` and take turn size in tokens; the rule is a safe bound, so
    the installed ``trim_messages`` keeps the earlier turns whole on both of the turn's calls."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_core.messages.utils import count_tokens_approximately

    from tests.policies.langgraph_driver import guide_trim

    assert "`token_counter=count_tokens_approximately`" in markdown()
    sizes = [60, 2_000, 300, 900, 150, 1_200]  # tool results' characters, far apart on purpose

    def turn(n: int) -> list:
        ids = [f"t{n}c{i}" for i in range(calls)]
        asked = AIMessage(
            "", tool_calls=[{"name": "look_up", "args": {"q": n}, "id": i} for i in ids]
        )
        results = [
            ToolMessage("x " * (sizes[(n + k) % len(sizes)] // 2), tool_call_id=i)
            for k, i in enumerate(ids)
        ]
        return [HumanMessage(f"question {n}"), asked, *results, AIMessage(f"answer {n} " * (n + 1))]

    turns = [turn(n) for n in range(earlier + 3)]
    size = max(count_tokens_approximately(t) for t in turns)
    limit = (earlier + 1) * size - 1
    *before, current = turns
    wanted = [m for t in before[-earlier:] for m in t]
    for call in (current[:1], current[:-1]):  # the first call, then the answering call
        thread = [m for t in before for m in t] + call
        kept = guide_trim(thread, limit, counter=count_tokens_approximately)
        assert kept[-len(call) :] == call and all(m in kept for m in wanted)


def test_the_day_long_cache_check_3_names_is_a_setting_the_installed_agents_sdk_passes_on():
    """Check 3's worked answer: where OpenAI offers ``prompt_cache_retention="24h"``, a cache kept
    a day changes the second shop's answer. The installed openai-agents takes exactly that value
    in its ``ModelSettings``, beside the default ``in_memory``."""
    import typing

    from agents import ModelSettings

    hint = typing.get_type_hints(ModelSettings)["prompt_cache_retention"]
    values = {a for arg in typing.get_args(hint) for a in typing.get_args(arg)}
    assert values == {"in_memory", "24h"}
    assert ModelSettings(prompt_cache_retention="24h").prompt_cache_retention == "24h"
    assert '`prompt_cache_retention="24h"`' in markdown()
