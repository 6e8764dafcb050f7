"""Lesson 5's LangChain snippets, run as a learner would paste them: the imports, tool and
offline model of its "to run this lesson's snippets" fold first, then every other snippet in
page order, in one namespace, against the installed langchain and langgraph. A snippet that
names something undefined, or that the installed packages reject, fails here."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import types
from pathlib import Path

import pytest

LESSON = (
    Path(__file__).resolve().parents[2] / "course" / "05_designing_multi_turn_conversations.ipynb"
)
FENCE = re.compile(r"```python\n(.*?)```", re.S)
SETUP_FOLD = "to run this lesson's snippets"


def snippets() -> tuple[str, list[str]]:
    """(the fold's setup snippet, the main path's snippets in page order)."""
    setup, shown = [], []
    for cell in json.loads(LESSON.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        body = "".join(cell["source"])
        if re.search(r"^## Resources\b", body, re.M):
            break
        for fold in re.findall(r"<details>.*?</details>", body, re.S):
            if SETUP_FOLD in fold:
                setup += FENCE.findall(fold)
        shown += FENCE.findall(re.sub(r"<details>.*?</details>", "", body, flags=re.S))
    assert len(setup) == 1, "one setup snippet, in the fold"
    return setup[0], shown


def run(code: str, namespace: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<lesson 5 snippet>", "exec"), namespace)
    return out.getvalue()


def test_every_snippet_runs_and_does_what_the_lesson_says():
    pytest.importorskip("langchain.agents.middleware")
    setup, shown = snippets()
    assert [s.splitlines()[0] for s in shown] == [
        "@before_model",
        'config = {"configurable": {"thread_id": "valentina"}}',
        "class OrderState(AgentState):",
        'summarise = SummarizationMiddleware(model, trigger=("messages", 30), keep=("messages", 10))',
        'reply = agent.invoke({"messages": [{"role": "user", "content": "And my order?"}]}, config)',
    ]
    # A module of its own, as a learner's script is: typing resolves OrderState's hints there.
    module = types.ModuleType("lesson05_snippets")
    namespace = module.__dict__
    patch_modules = pytest.MonkeyPatch()
    patch_modules.setitem(sys.modules, module.__name__, module)
    try:
        check_snippets(setup, shown, namespace)
    finally:
        patch_modules.undo()


def check_snippets(setup: str, shown: list[str], namespace: dict) -> None:
    run(setup, namespace)
    trim, turn, pin, summarise, cache_read = shown
    run(trim, namespace)
    # "Run one turn that calls your tools and count what it stored": the offline model's script
    # calls track_order once, so the turn stores question, call, result and answer.
    assert run(turn, namespace).strip() == "4"
    stored = namespace["agent"].get_state(namespace["config"]).values["messages"]
    assert [m.type for m in stored] == ["human", "ai", "tool", "ai"]
    # The pinned agent: remember_order saves the first order number; pin_order adds it to the
    # system prompt of the model call (the script's last reply answers it).
    run(pin, namespace)
    middleware = [name for name in namespace["agent"].builder.nodes if "." in name]
    assert middleware.index("remember_order.before_model") < middleware.index(
        "keep_last_10.before_model"
    )
    seen = []
    model = namespace["model"]
    original = type(model)._generate

    def spy(self, messages, *args, **kwargs):
        seen.append(messages[0].content)
        return original(self, messages, *args, **kwargs)

    config = {"configurable": {"thread_id": "lucia"}}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(type(model), "_generate", spy)
        namespace["agent"].invoke(
            {"messages": [{"role": "user", "content": "My order is #7781."}]}, config
        )
    assert namespace["agent"].get_state(config).values["order"] == "#7781"
    assert seen == [namespace["PROMPT"] + "\nOrder on file: #7781"]
    run(summarise, namespace)
    assert type(namespace["summarise"]).__name__ == "SummarizationMiddleware"
    # "Check it in your agent": the reply's usage_metadata, as a provider's chat model fills it
    # (langchain-openai puts OpenAI's cached_tokens in input_token_details["cache_read"]).
    usage = {
        "input_tokens": 1837,
        "output_tokens": 22,
        "total_tokens": 1859,
        "input_token_details": {"cache_read": 1664},
    }
    reply = namespace["AIMessage"]("Order #7781.", usage_metadata=usage)
    namespace["agent"] = namespace["create_agent"](
        namespace["OfflineModel"](messages=iter([reply])),
        namespace["tools"],
        system_prompt=namespace["PROMPT"],
        checkpointer=namespace["InMemorySaver"](),
    )
    assert run(cache_read, namespace).split() == ["1837", "1664"]


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
    setup, shown = snippets()
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
        run(shown[0], namespace)  # keep_last_10 and its agent
        aimessage = namespace["AIMessage"]
        replies = [aimessage(f"answer {n}") for n in range(1, 3)]
        replies += [aimessage("Valentina asked about order #4417.")]
        replies += [aimessage(f"answer {n}") for n in range(3, 10)]
        model = namespace["OfflineModel"](messages=iter(replies))
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
