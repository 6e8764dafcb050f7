"""Lesson 5's two summaries run through LangChain's real ``create_agent``, offline.

A chat without tools, one question and one answer a turn, kept two ways. **By hand**: your
code replaces the saved thread with one summary message after turn *written_after*, and the
lesson's ``keep_last_10`` trim (``trim_messages`` in a ``@before_model`` middleware) keeps
trimming. **By the middleware**: ``SummarizationMiddleware(trigger=("messages", trigger),
keep=("messages", keep))`` writes its summary and trims. The agents, the middleware and the
saved threads are LangChain's own; the models are offline ones that answer "answer *n*" and
"summary *n*". What each call sent is read off the model (``OfflineModel.sent``).

Needs ``langchain`` (installed with the ``course`` and ``test`` extras).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware, before_model
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    trim_messages,
)
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from windowmem.design.replay import OfflineModel

#: The system prompt of both agents (not in the thread: no trim touches it).
PROMPT = "You are TuTienda's support assistant."
#: The text the by-hand summary starts with, as in the lesson's fold.
BY_HAND_PREFIX = "Summary so far: "


def _answers(turns: int) -> OfflineModel:
    return OfflineModel(messages=iter([AIMessage(f"answer {n}") for n in range(1, turns + 1)]))


def keep_last(size: int) -> Any:
    """The lesson's ``keep_last_10`` at *size* messages: it rewrites the saved thread."""

    @before_model
    def keep_last_messages(state: Any, runtime: Any) -> dict[str, list[BaseMessage]]:
        kept = trim_messages(
            state["messages"],
            strategy="last",
            token_counter=len,
            max_tokens=size,
            start_on="human",
            end_on=("human", "tool"),
        )
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}

    return keep_last_messages


def _ask(agent: Any, config: Any, turn: int) -> None:
    agent.invoke({"messages": [{"role": "user", "content": f"question {turn}"}]}, config)


def by_hand(turns: int, written_after: int, size: int = 10) -> list[list[BaseMessage]]:
    """What each call sent (system prompt first) when your code writes one summary by hand.

    After turn *written_after* the saved thread becomes one ``HumanMessage`` (the lesson's
    ``agent.update_state`` with ``RemoveMessage(id=REMOVE_ALL_MESSAGES)``); ``keep_last``
    (*size*) keeps trimming before every call.
    """
    model = _answers(turns)
    agent = create_agent(
        model, [], system_prompt=PROMPT, middleware=[keep_last(size)], checkpointer=InMemorySaver()
    )
    config: Any = {"configurable": {"thread_id": "by hand"}}
    for turn in range(1, turns + 1):
        _ask(agent, config, turn)
        if turn == written_after:
            summary = HumanMessage(f"{BY_HAND_PREFIX}turns 1 to {turn}.")
            agent.update_state(
                config, {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), summary]}
            )
    return model.sent


def by_middleware(turns: int, trigger: int = 30, keep: int = 10) -> list[list[BaseMessage]]:
    """What each call sent (system prompt first) under ``SummarizationMiddleware`` alone."""
    model = _answers(turns)
    summariser = OfflineModel(messages=iter([AIMessage(f"summary {n}") for n in range(1, turns)]))
    middleware = SummarizationMiddleware(
        model=summariser, trigger=("messages", trigger), keep=("messages", keep)
    )
    agent = create_agent(
        model, [], system_prompt=PROMPT, middleware=[middleware], checkpointer=InMemorySaver()
    )
    config: Any = {"configurable": {"thread_id": "middleware"}}
    for turn in range(1, turns + 1):
        _ask(agent, config, turn)
    return model.sent


def summaries_sent(calls: Sequence[Sequence[BaseMessage]]) -> list[str | None]:
    """For each call, the summary it sent (the first user message that is not a question), or None."""
    return [
        next(
            (
                str(m.content)
                for m in call
                if m.type == "human" and not str(m.content).startswith("question ")
            ),
            None,
        )
        for call in calls
    ]
