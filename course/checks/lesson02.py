"""Lesson 2's self-checks: each answer computed with windowmem, and what to say to each answer.

The lesson's check cells call `check(id, answer)`; nothing here is on the lesson's page.
"""

from __future__ import annotations

from typing import Any

from windowmem.calls.advisor_calls import advisor_calls
from windowmem.calls.agent_calls import Part, agent_runs
from windowmem.calls.memory_inputs import takes_memory
from windowmem.calls.recorded_runs import recorded_conversation
from windowmem.calls.tool_scenario import load_tool_scenario, session_per_message
from windowmem.examples import load_example
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.n8n_recorded import load_recording
from windowmem.policies import (
    ManualClock,
    N8nSimpleMemory,
    SimpleMemoryStore,
    SpringAiMessageWindow,
)

marta = load_example("marta")
scenario = load_tool_scenario("tutienda_tools")


def _check_1() -> dict[str, Any]:
    no_memory = agent_runs(marta)
    turn_7_alone = no_memory[6].calls[0]
    # The same chat with no system message: the agent whose System Message option was never added.
    bare = agent_runs([m for m in marta.messages if m.role.value != "system"])
    return {
        "1a": len(turn_7_alone.messages),
        "1b": len(bare[6].calls[0].messages),
    }


def _check_2() -> dict[str, Any]:
    with_memory = agent_runs(marta, N8nSimpleMemory(5))
    turn_7_with_memory = with_memory[6].calls[0]
    return {
        "2a": turn_7_with_memory.memory_turns,
        "2b": len(turn_7_with_memory.messages),
        "2c": len(agent_runs(marta, N8nSimpleMemory(3))[6].calls[0].messages),
    }


def _check_3() -> dict[str, Any]:
    candidates = [
        "AI Agent Tool",
        "Chat Memory Manager",
        "Question and Answer Chain",
        "Sentiment Analysis",
    ]
    return {"3": [name for name in candidates if takes_memory(name)]}


def _check_4() -> dict[str, Any]:
    turn_3_reply = marta.interactions[2].messages[1]
    failed_turn_3 = [m for m in marta.messages if m is not turn_3_reply]
    n8n_runs = agent_runs(failed_turn_3, N8nSimpleMemory(5))
    spring_calls = advisor_calls(failed_turn_3, SpringAiMessageWindow(20))
    question_3 = marta.interactions[2].messages[0]
    return {
        "4a": n8n_runs[3].stored_after,
        "4b": len(spring_calls[3].stored_after),
        "4c": question_3 in spring_calls[3].sent,
    }


def _check_5() -> dict[str, Any]:
    scenario_on = agent_runs(scenario.conversation, N8nSimpleMemory(5))
    turn_2, turn_3 = scenario.conversation.interactions[1:3]
    (redirect,) = scenario.deliveries("call_address_3", chat_input=turn_3.messages[0].content)
    (tracking,) = scenario.deliveries("call_track_2", chat_input=turn_2.messages[0].content)
    store = SimpleMemoryStore(ManualClock())
    store.memory(scenario.agent_workflow_id, scenario.session_id).add(*scenario_on[0].saved)
    inner = store.memory(tracking.tool.workflow_id, tracking.item["session_id"])
    # The fields the model wrote: its $fromAI() arguments, the rest are mapped expressions.
    model_written = sorted(field for field in tracking.item if field in tracking.arguments)
    return {"5a": model_written, "5b": len(inner.stored)}


def _check_6() -> dict[str, Any]:
    # The calculator run of the recording "two-tool-rounds", predicted by windowmem (not read
    # from the recording): turn 1 plain, turn 2 two tool rounds, turn 3 plain.
    chat, _ = recorded_conversation(load_recording("two-tool-rounds"))
    v31 = agent_runs(chat, N8nSimpleMemory(5))
    v22 = agent_runs(chat, N8nSimpleMemory(5), agent_version=2.2)
    return {
        "6a": len(v31[1].saved),
        "6b": len(v31[2].calls[0].messages),
        "6c": len(v22[1].saved),
    }


def _check_7() -> dict[str, Any]:
    fresh_ids = session_per_message(scenario.session_id, scenario.conversation.turn_count)
    fresh = agent_runs(scenario.conversation, N8nSimpleMemory(5), session_ids=fresh_ids)
    last_fresh = fresh[-1].calls[-1]
    return {"7": len(last_fresh.messages)}


def _check_8() -> dict[str, Any]:
    def observed(runs):
        # What the execution log shows: a memory ran? history empty every time? a new session id each run?
        return (
            runs[0].session_id is not None,
            all(not run.calls[0].part(Part.MEMORY) for run in runs),
            len({run.session_id for run in runs}) == len(runs),
        )

    nine_turns = [m for t in range(1, 10) for m in marta.interactions[(t - 1) % 7].messages]
    candidates = {
        "no memory": agent_runs(nine_turns),
        "new session id per message": agent_runs(
            nine_turns, N8nSimpleMemory(4), session_ids=session_per_message("s", 9)
        ),
        "window too small": agent_runs(nine_turns, N8nSimpleMemory(4)),
    }

    def cause_of(evidence):
        return next(name for name, runs in candidates.items() if observed(runs) == evidence)

    return {"8a": cause_of((True, True, True)), "8b": cause_of((True, False, False))}


BOOK = CheckBook(
    2,
    [
        Expectation(
            "1a",
            _check_1,
            hint="list the template's four parts and keep those that are not empty",
            mistakes={
                13: "that is every earlier message and the new one: only a memory would add them",
                12: "12 is what Simple Memory at window 5 sends; here no memory node is connected",
                1: "the System Message is set on this agent, and it goes with every call",
            },
            why="the System Message and the new question: nothing else is in the template without memory",
        ),
        Expectation(
            "1b",
            _check_1,
            hint="take the template's four parts and remove every part that is empty here",
            mistakes={
                2: "without the option added, typeVersion 1.9 and later send no system message at all",
                0: "the user's new message is always sent",
            },
            why="no memory, no tool calls and no System Message leave the input alone",
            transfer="an agent without the System Message option",
        ),
        Expectation(
            "2a",
            _check_2,
            hint="six turns are stored when turn 7 starts; the window keeps the newest k",
            mistakes={
                (
                    1,
                    2,
                    3,
                    4,
                    5,
                    6,
                ): "six turns are stored, but a window of 5 loads only the newest five",
                (2, 3, 4, 5, 6, 7): "turn 7 is the input: it is stored only when its run ends",
                (3, 4, 5, 6, 7): "turn 7 is the input: it is stored only when its run ends",
            },
            why="the five turns before turn 7; turn 1 is stored but not loaded",
        ),
        Expectation(
            "2b",
            _check_2,
            hint="the System Message, two messages per turn in the window, then the input",
            mistakes={
                10: "10 is the window alone; add the System Message and the input",
                11: "count the System Message as well: it goes with every call",
                7: "the window counts interactions, two messages each",
            },
            why="the System Message, 10 loaded messages and the input",
        ),
        Expectation(
            "2c",
            _check_2,
            hint="a window of 3 loads the last 2 × 3 stored messages; add the System Message and the input",
            mistakes={
                12: "that is window 5; a window of 3 loads fewer messages",
                6: "6 is the window alone: add the System Message and the input",
                5: "count messages, not turns: 3 interactions are 6 messages",
            },
            why="the System Message, 6 loaded messages and the input",
            transfer="another window length",
        ),
        Expectation(
            "3",
            _check_3,
            hint="sort each node into agent, chain, or a node that shows or manages a chat's history",
            mistakes={
                (
                    "AI Agent Tool",
                ): "the Chat Memory Manager works on a memory's messages, so it takes a memory too",
                ("Chat Memory Manager",): "the AI Agent Tool is an agent, and agents take a memory",
                (
                    "AI Agent Tool",
                    "Chat Memory Manager",
                    "Question and Answer Chain",
                    "Sentiment Analysis",
                ): "no chain declares a memory input, and Sentiment Analysis works like one",
                (
                    "AI Agent Tool",
                    "Chat Memory Manager",
                    "Question and Answer Chain",
                ): "the Question and Answer Chain is a chain: no memory input",
                (
                    "AI Agent Tool",
                    "Chat Memory Manager",
                    "Sentiment Analysis",
                ): "Sentiment Analysis sends one prompt and returns one result, like a chain: no memory input",
            },
            why="",
            transfer="nodes the page has not sorted: an agent tool, a chain, a history manager",
        ),
        Expectation(
            "4a",
            _check_4,
            hint="count what each run wrote when it ended; turn 3 never ended with an answer",
            mistakes={
                8: "turn 3 produced no answer, so n8n wrote nothing for it",
                7: "n8n writes the question and the answer together at the end: no answer, neither",
            },
            why="the failed turn wrote nothing: turns 1, 2 and 4 left two messages each",
        ),
        Expectation(
            "4b",
            _check_4,
            hint="the advisor stores at two moments: before the call and after it",
            mistakes={
                6: "Spring's advisor saved turn 3's question before calling the model, so it stayed",
                8: "the failed call has no answer to store",
            },
            why="the advisor stores the question before the call, so the failed turn left its question",
        ),
        Expectation(
            "4c",
            _check_4,
            hint="what is stored is what the next call loads",
            mistakes={
                False: "the question was stored before the failed call, so turn 4 loads it, unanswered"
            },
            why="Spring AI stored turn 3's question before its call failed",
            transfer="a failed model call, in two products",
        ),
        Expectation(
            "5a",
            _check_5,
            hint="which rows of track_order's mapping does the model fill, and which are fixed expressions?",
            mistakes={
                (
                    "order_number",
                    "session_id",
                ): "session_id is a fixed expression evaluated in the parent: the model writes nothing into it",
                (
                    "session_id",
                ): "session_id is read from the Chat Trigger's item; order_number is the $fromAI() row",
                (): "a $fromAI() row is an argument the model writes when it calls the tool",
            },
            why="only a $fromAI() row is written by the model, from the array it was sent",
            transfer="which of a tool's inputs depend on what the model was sent",
        ),
        Expectation(
            "5b",
            _check_5,
            hint="which two parts make up a Simple Memory buffer's name?",
            mistakes={
                2: "the session id matches, but the buffer's name starts with the workflow id, and the tool's is different"
            },
            why="",
            transfer="a memory inside a tool's sub-workflow",
        ),
        Expectation(
            "6a",
            _check_6,
            hint="which of the run's model rounds does the save keep?",
            mistakes={
                6: "that stores both rounds; the save keeps only the steps of the last model round",
                2: "2 is what typeVersion 2.2 stores; 3.1 stores the call and its result as messages",
                3: "the assistant message that asks for the call is stored too, before its result",
                8: "the first round went back to the model during the run, but it is not stored",
            },
            why="",
            transfer="a run with two tool rounds",
        ),
        Expectation(
            "6b",
            _check_6,
            hint="the System Message, what memory holds after turn 2 (within the window), then the question",
            mistakes={
                10: "turn 2's first round is not in memory: only its last round was stored",
                7: "count the System Message: it goes with every call",
                4: "turn 2's stored call, result and answer come back from memory too",
                6: "add the System Message and turn 3's question to what memory hands over",
            },
            why="",
            transfer="the call after a run with two tool rounds",
        ),
        Expectation(
            "6c",
            _check_6,
            hint="what does typeVersion 2.2 write at the end of a run?",
            mistakes={
                4: "that is typeVersion 3.1; 2.2 does not store the tool use",
                6: "neither typeVersion stores both rounds, and 2.2 stores no tool message at all",
            },
            why="",
            transfer="an older AI Agent typeVersion (2.2)",
        ),
        Expectation(
            "7",
            _check_7,
            hint="what does a run find in a session nobody has written to?",
            mistakes={
                12: "that is one session's array: with a fresh id each run opens an empty session",
                1: "the System Message is still sent",
            },
            why="",
            transfer="a new session id for every message",
        ),
        Expectation(
            "8a",
            _check_8,
            hint="a memory runs, yet finds nothing: what decides which session it reads?",
            mistakes={
                "no memory": "a Simple Memory node runs in every execution, so one is connected",
                "window too small": "a small window still hands over the most recent turns; here nothing comes back",
            },
            why="",
            transfer="execution logs the lesson has not shown",
        ),
        Expectation(
            "8b",
            _check_8,
            hint="the history is there and recent; what is missing from it?",
            mistakes={
                "new session id per message": "the session id is the same in every run, and history comes back",
                "no memory": "a memory runs and returns 8 messages",
            },
            why="",
            transfer="execution logs the lesson has not shown",
        ),
    ],
)
check = BOOK.check
