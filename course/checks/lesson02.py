"""Lesson 2's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from typing import Any

from windowmem.calls.agent_calls import agent_runs
from windowmem.calls.recorded_runs import recorded_conversation
from windowmem.calls.tool_scenario import session_per_message
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.n8n_recorded import load_recording
from windowmem.policies import N8nSimpleMemory
from windowmem_course.checks.lesson02_see import (
    item_without_memory,
    marta,
    moved_chat_turn_3,
    tool_items,
    tutienda_tools,
)
from windowmem_course.checks.page import workflow_node

scenario = tutienda_tools


def _check_1() -> dict[str, Any]:
    # The agent whose System Message option was never added (the chat with no system message),
    # with Simple Memory connected: the call for a new chat's first message.
    bare = agent_runs([m for m in marta.messages if m.role.value != "system"], N8nSimpleMemory(5))
    return {"1": len(bare[0].calls[0].messages)}


def _check_2() -> dict[str, Any]:
    # The Context Window Length of the workflow the picture was taken from (lesson 3's); the
    # page asserts it is the only window that sends turns 2 and 3, not turn 1, on turn 4.
    window = workflow_node("lesson3_window", "Simple Memory")["parameters"]["contextWindowLength"]
    return {"2": window}


def _check_3() -> dict[str, Any]:
    redirect, _ = tool_items()
    # The model writes only its $fromAI() arguments, from the array it was sent; with memory
    # off, turn 3's call holds a value only if turn 3's own message (or the system message)
    # says it. n8n fills the other rows the same way whatever the model was sent. Self-check 3's
    # chat gives the address on turn 1 and the order number on turn 3.
    off = item_without_memory(redirect, moved_chat_turn_3(None).messages)
    lost = [f for f, _ in redirect.tool.inputs if off[f] != redirect.item[f]]
    return {"3": lost}


def _check_4() -> dict[str, Any]:
    # The calculator run of the recording "two-tool-rounds", predicted by windowmem (not read
    # from the recording): turn 1 plain, turn 2 two tool steps, turn 3 plain; window 3. The
    # newest 6 stored messages are turn 1's 2 and turn 2's question, last tool step and answer.
    chat, _ = recorded_conversation(load_recording("two-tool-rounds"))
    return {"4": agent_runs(chat, N8nSimpleMemory(3))[2].calls[0].memory_turns}


def _check_5() -> dict[str, Any]:
    fresh_ids = session_per_message(scenario.session_id, scenario.conversation.turn_count)
    fresh = agent_runs(scenario.conversation, N8nSimpleMemory(5), session_ids=fresh_ids)
    # Turn 2's second model call: the one after track_order's result.
    return {"5": len(fresh[1].calls[1].messages)}


BOOK = CheckBook(
    2,
    [
        Expectation(
            "1",
            _check_1,
            hint="take the four parts of the array and strike out every part that is empty here",
            mistakes={
                2: "the option was never added, so a new AI Agent sends no System Message; and a new chat's memory holds no earlier messages, so it adds none",
                0: "the customer's new message is always sent",
                3: "memory is connected, but on a chat's first message it holds nothing: an empty part is left out",
            },
            why="no System Message, a memory still empty on a chat's first message, and no tool leave the input alone",
            transfer="a new agent's first call, with memory connected",
        ),
        Expectation(
            "2",
            _check_2,
            hint="count the earlier question-and-answer pairs in the picture; the last Human line is turn 4's own input",
            mistakes={
                4: "4 is the number of messages from memory; the Context Window Length counts pairs of messages",
                3: "the last Human line is turn 4's input, not memory: count only the earlier turns",
                5: "at the default 5, turn 1 would be sent too: it is stored, in the same session",
                1: "a window of 1 would send turn 3 alone, and the picture also holds turn 2",
            },
            why="memory sent turns 2 and 3, which is 4 messages or 2 pairs. Turn 1 is stored (same sessionId, no failed agent) but outside the window",
            transfer="a window read from n8n's own view of the model's input",
        ),
        Expectation(
            "3",
            _check_3,
            hint="say who fills each row; for each row the model fills, look for its value in turn 3's message, the only turn the copy without memory is sent",
            mistakes={
                (
                    "order_number",
                ): "the order number is in turn 3's own message, which both copies are sent; the address was said in turn 1",
                (
                    "order_number",
                    "new_address",
                ): "the order number is in turn 3's own message, which both copies are sent",
                (
                    "new_address",
                    "requested_by",
                ): "requested_by is fixed text: n8n fills it the same way with memory or without",
                (
                    "requested_by",
                ): "requested_by is fixed text, filled by n8n; the address was said in turn 1",
                (
                    "order_number",
                    "new_address",
                    "requested_by",
                ): "n8n fills requested_by with fixed text, and the order number is in turn 3's own message",
                (): "the address was said in turn 1, and only the copy with memory is sent turn 1",
                # The right idea in its own words: point at the names, not at the reasoning.
                ("address",): "write each field's name as the lower panel shows it",
                (
                    "new address",
                ): "write each field's name as the lower panel shows it, with its underscore",
            },
            why="the address was said in turn 1, which only the copy with memory is sent. The order number is in turn 3's own message, and n8n fills requested_by with fixed text",
            transfer="one tool call by an agent with memory and one without",
            any_order=True,
        ),
        Expectation(
            "4",
            _check_4,
            hint="list what turns 1 and 2 stored, in order, and take the newest 2 × 3 messages",
            mistakes={
                (
                    2,
                ): "that would be so if memory stored both tool steps (6 messages); it stores only the last, so turn 2 stored 4 and the newest 6 reach turn 1",
                (1,): "the window keeps the newest messages, and turn 2 is newer than turn 1",
                (): "turns 1 and 2 stored 6 messages, and a window of 3 sends the newest 6: all of them",
                (2, 3): "turn 3 is the input: it is stored only when its run ends",
                (
                    1,
                    2,
                    3,
                ): "turn 3 is the input: it is stored only when its run ends",
            },
            why="turn 1 stored 2 messages and turn 2 stored 4 (its question, its last tool step, its answer). A window of 3 sends the newest 6, so both turns",
            transfer="a window that holds a tool turn only because memory drops its first step",
        ),
        Expectation(
            "5",
            _check_5,
            hint="what does a run find in a session nobody has written to, and what does a call after a tool result add?",
            mistakes={
                6: "that is one session's call: with a fresh id turn 2's run opens an empty session, without turn 1",
                2: "a call after a tool result also carries this run's tool call and its result",
                3: "the tool call and its result are two messages: the assistant's request and the tool's answer",
                5: "nothing comes from memory: count the System Message, the question, the tool call and its result",
            },
            why="memory hands over nothing. The call carries the System Message, the question, and this run's tool call and result",
            transfer="a new session id for every message, on a tool call",
        ),
    ],
)
check = BOOK.check
