"""Lesson 5's self-check 1 and its sizing rule, held to the real langchain ``create_agent``.

The lesson's ``@before_model`` trim runs before *every* model call, also the answering call
of a tool turn, when the thread holds the turn's question, its tool-call message and the
results. Played offline through the real package (a scripted model records each request),
the answering call is the fullest, and what its trim leaves out is deleted from the saved
thread. The rule the lesson states, evaluated as written, is the smallest size that keeps
the turns on every call.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.design.test_framework_lineup import lesson_middleware
from tests.policies.model_calls import every_call, our_key
from windowmem.design.sizing import (
    parallel_tool_chat,
    per_call_window,
    smallest_window,
    whole_turns_per_call,
)
from windowmem.errors import WindowMemError
from windowmem.messages import Role, interactions
from windowmem.policies.base import Memory
from windowmem.policies.langchain_agents import LangChainTrimState
from windowmem.tokens import count_messages

COURSE = Path(__file__).resolve().parents[2] / "course"
LESSON = COURSE / "05_designing_multi_turn_conversations.ipynb"
STOCK = parallel_tool_chat(12, calls=3)


def trim(size: int) -> LangChainTrimState:
    return LangChainTrimState(size, counter=count_messages)


def real_run(size: int):
    pytest.importorskip("langchain.agents.middleware")
    driver = pytest.importorskip("tests.policies.langgraph_driver")
    return driver.play(STOCK, driver.middleware_agent(lesson_middleware(size)))


def items_asked(sent) -> list[int]:
    """The item numbers of the questions in one recorded call (a question per turn)."""
    return [int(re.search(r"item (\d+)", text)[1]) for role, text, _ in sent if role == "user"]


def test_the_trim_runs_again_before_the_answering_call_and_cuts_the_saved_thread():
    run = real_run(19)
    first, answering = run.every_input[22], run.every_input[23]  # turn 12's two calls
    assert items_asked(first) == [9, 10, 11, 12] and len(first) == 19
    # Before the answer the thread also holds turn 12's call message and three results:
    # 5 + 18 is over 19, so turn 9 goes, and the trim starts on turn 10's question.
    assert items_asked(answering) == [10, 11, 12] and len(answering) == 17
    assert items_asked(run.thread) == [10, 11, 12]  # turn 9 is gone from the checkpoint
    # windowmem's model does the same, call by call and in what it saves.
    assert run.every_input == every_call(STOCK, trim(19))
    memory = Memory(trim(19))
    memory.add(*STOCK)
    assert run.thread == [our_key(m) for m in memory.stored]
    assert whole_turns_per_call(STOCK, trim(19), 12) == (3, 2)


def test_the_rule_s_size_is_the_smallest_the_real_agent_needs():
    size = per_call_window(turn_size=6, turns=3)
    assert size == 23
    kept, short = real_run(size), real_run(size - 1)
    assert [items_asked(kept.every_input[i]) for i in (22, 23)] == [[9, 10, 11, 12]] * 2
    assert items_asked(short.every_input[23]) == [10, 11, 12]
    assert run_matches_model(kept, size) and run_matches_model(short, size - 1)


def run_matches_model(run, size: int) -> bool:
    return run.every_input == every_call(STOCK, trim(size))


def test_the_check_expects_what_the_model_finds():
    if str(COURSE) not in sys.path:
        sys.path.insert(0, str(COURSE))
    from checks.lesson05 import BOOK, STOCK_CALLS

    assert STOCK_CALLS == 3
    assert BOOK.expected("1") == per_call_window(turn_size=6, turns=3) == 23
    assert smallest_window(STOCK, trim, 12, 3) == 23


LESSON_RULE = re.compile(r"`max_tokens = ([^`]+)`")


def lesson_rule() -> str:
    import json

    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    (rule,) = LESSON_RULE.findall(text)
    return rule


@pytest.mark.parametrize("calls", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("turns", [1, 2, 3, 4])
def test_the_lesson_s_rule_as_written_is_the_smallest_size_on_every_call(calls, turns):
    """The rule in the lesson's "Spot it and fix it", evaluated as written, is the smallest
    ``max_tokens`` for which every call of a turn sends *turns* earlier turns whole."""
    chat = parallel_tool_chat(turns + 2, calls=calls)
    turn_size = len(interactions(chat)[0].messages)
    written = lesson_rule()
    assert written == "(earlier turns + 1) × turn size − 1"
    formula = (
        written.replace("×", "*")
        .replace("−", "-")
        .replace("turn size", "turn_size")
        .replace("earlier turns", "earlier_turns")
    )
    value = eval(formula, {}, {"earlier_turns": turns, "turn_size": turn_size})  # as written
    assert value == per_call_window(turn_size=turn_size, turns=turns)
    assert value == smallest_window(chat, trim, turns + 2, turns)


def test_sizing_refuses_bad_input():
    with pytest.raises(WindowMemError, match="turn must be a whole number from 1 to 12"):
        whole_turns_per_call(STOCK, trim(10), 13)
    with pytest.raises(WindowMemError, match="turns must be a whole number >= 1"):
        per_call_window(turn_size=6, turns=0)
    with pytest.raises(WindowMemError, match="no size up to 5"):
        smallest_window(STOCK, trim, 12, 3, largest=5)
    assert all(m.role is not Role.SYSTEM for m in STOCK)


@pytest.mark.parametrize("calls", [1, 2, 3])
@pytest.mark.parametrize("turns", [1, 2, 3])
def test_the_rule_sizes_the_agent_framework_s_max_n_too(calls, turns):
    """The Agent Framework's ``TruncationStrategy`` also runs before every model call (its
    model is held to the real package call by call in tests/design/test_framework_lineup.py):
    with a turn stored as question, call message, one tool message and answer (4), the lesson's
    rule gives the smallest ``max_n``."""
    from windowmem.policies.agent_framework import AgentFrameworkTruncation

    chat = parallel_tool_chat(turns + 2, calls=calls)
    size = smallest_window(chat, lambda n: AgentFrameworkTruncation(max(n, 1)), turns + 2, turns)
    assert size == per_call_window(turn_size=4, turns=turns)
