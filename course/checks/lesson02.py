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
from windowmem.conversation import as_conversation
from windowmem.examples import load_example
from windowmem.explorer.self_check import CheckBook, Expectation
from windowmem.n8n_recorded import load_recording
from windowmem.policies import (
    ManualClock,
    N8nSimpleMemory,
    SimpleMemoryStore,
    SpringAiMessageWindow,
)
from windowmem.policies.n8n.session_ids import chat_trigger_item, simple_memory_buffer_key

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
        # 2c: at window 3, the first turn after turn 1 whose call no longer carries turn 1
        "2c": next(
            run.turn
            for run in agent_runs(marta, N8nSimpleMemory(3))[1:]
            if 1 not in run.calls[0].memory_turns
        ),
    }


#: Self-check 3's four nodes, as the page describes them by what they do (letters only).
NODES_DESCRIBED = {
    "P": "AI Agent Tool",  # a support agent's refund specialist, with its own model and tools
    "Q": "Summarization Chain",  # summarizes a transcript it is handed
    "R": "Text Classifier",  # sorts each message into a category's branch
    "S": "Chat Memory Manager",  # inserts a note into a customer's stored conversation
}


def _check_3() -> dict[str, Any]:
    return {"3": [letter for letter, name in NODES_DESCRIBED.items() if takes_memory(name)]}


def _check_4() -> dict[str, Any]:
    turn_3_reply = marta.interactions[2].messages[1]
    failed_turn_3 = [m for m in marta.messages if m is not turn_3_reply]
    n8n_runs = agent_runs(failed_turn_3, N8nSimpleMemory(5))
    spring_calls = advisor_calls(failed_turn_3, SpringAiMessageWindow(20))
    question_3 = marta.interactions[2].messages[0]
    # 4c: Marta, seeing no answer, sends turn 3's question again as her turn 4.
    retry = [question_3 if m is marta.interactions[3].messages[0] else m for m in failed_turn_3]
    spring_retry = advisor_calls(retry, SpringAiMessageWindow(20))
    return {
        "4a": n8n_runs[3].stored_after,
        "4b": len(spring_calls[3].stored_after),
        "4c": sum(m.content == question_3.content for m in spring_retry[3].sent),
    }


def _check_5() -> dict[str, Any]:
    scenario_on = agent_runs(scenario.conversation, N8nSimpleMemory(5))
    scenario_off = agent_runs(scenario.conversation)
    turn_2, turn_3 = scenario.conversation.interactions[1:3]
    (redirect,) = scenario.deliveries("call_address_3", chat_input=turn_3.messages[0].content)
    (tracking,) = scenario.deliveries("call_track_2", chat_input=turn_2.messages[0].content)
    store = SimpleMemoryStore(ManualClock())
    store.memory(scenario.agent_workflow_id, scenario.session_id).add(*scenario_on[0].saved)
    inner = store.memory(tracking.tool.workflow_id, tracking.item["session_id"])
    # The model writes only its $fromAI() arguments, from the array it was sent; with memory
    # off, turn 3's call can hold a value only if turn 3's own message (or the system message) says it.
    sent_without_memory = scenario_off[2].calls[0].messages
    still_right = sorted(
        field
        for field, value in redirect.arguments.items()
        if any(value in m.content for m in sent_without_memory)
    )
    return {"5a": still_right, "5b": len(inner.stored)}


def _check_6() -> dict[str, Any]:
    # The calculator run of the recording "two-tool-rounds", predicted by windowmem (not read
    # from the recording): turn 1 plain, turn 2 two tool rounds, turn 3 plain.
    chat, _ = recorded_conversation(load_recording("two-tool-rounds"))
    turn_1 = as_conversation(chat).interactions[0].messages

    def turn_1_loaded_on_turn_3(runs) -> int:
        return sum(any(m is t for t in turn_1) for m in runs[2].calls[0].part(Part.MEMORY))

    return {
        "6a": len(agent_runs(chat, N8nSimpleMemory(5))[1].saved),
        # 6b, 6c: window 2, how many of turn 1's messages reach turn 3's call
        "6b": turn_1_loaded_on_turn_3(agent_runs(chat, N8nSimpleMemory(2))),
        "6c": turn_1_loaded_on_turn_3(agent_runs(chat, N8nSimpleMemory(2), agent_version=2.2)),
    }


def _check_7() -> dict[str, Any]:
    fresh_ids = session_per_message(scenario.session_id, scenario.conversation.turn_count)
    fresh = agent_runs(scenario.conversation, N8nSimpleMemory(5), session_ids=fresh_ids)
    # Turn 2's second model call: the one after track_order's result.
    return {"7": len(fresh[1].calls[1].messages)}


def _check_8() -> dict[str, Any]:
    def turns(count: int, failing: set[int]):
        # Marta's turns over and over; the runs in *failing* end without an answer.
        return [
            m
            for t in range(1, count + 1)
            for m in marta.interactions[(t - 1) % 7].messages[: 1 if t in failing else 2]
        ]

    def keyed_by_chat_input(count: int) -> list[str]:
        # Simple Memory at Define below with Key {{ $json.chatInput }}: the trigger's session
        # id stays the same, the key is each message's text.
        return [
            simple_memory_buffer_key(
                chat_trigger_item("s-01", marta.interactions[(t - 1) % 7].messages[0].content),
                workflow_id="wf",
                id_type="customKey",
                key="={{ $json.chatInput }}",
            )
            for t in range(1, count + 1)
        ]

    # (a) the log as given: Key {{ $json.chatInput }}, runs 2 and 4 failed, window 5
    as_logged = agent_runs(turns(5, {2, 4}), N8nSimpleMemory(5), session_ids=keyed_by_chat_input(5))
    # (b), (c) one session (the trigger's sessionId), run 6 failed, nine runs

    def run_9(window: int):
        return agent_runs(turns(9, {6}), N8nSimpleMemory(window))[8].calls[0]

    return {
        "8a": len(as_logged[4].calls[0].part(Part.MEMORY)),
        "8b": run_9(4).memory_turns,
        "8c": next(k for k in range(1, 10) if 2 in run_9(k).memory_turns),
    }


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
            hint="for each turn, list the turns already stored when its call starts, then keep the newest three",
            mistakes={
                7: "that is the default window of 5; a window of 3 lets turn 1 go sooner",
                4: "turn 4's call finds only turns 1 to 3 stored, and a window of 3 loads all of them",
                3: "turn 3's call finds two stored turns; a window of 3 holds both",
                6: "count again: each call loads the newest three stored turns, and the input is not yet stored",
            },
            why="turn 5's call finds turns 1 to 4 stored and loads the newest three: turn 1 is left out",
            transfer="when the oldest turn leaves a smaller window",
        ),
        Expectation(
            "3",
            _check_3,
            hint="for each node ask: does it answer with a model and tools of its own, work from its input alone, or reach into a stored conversation?",
            mistakes={
                (
                    "P",
                ): "S writes into a customer's stored conversation: it must reach the memory that holds it",
                (
                    "S",
                ): "P answers with a model and tools of its own: that is an agent, even as another agent's tool",
                (): "some of these nodes do use a chat's history: one answers with its own tools, one writes into a stored conversation",
                (
                    "P",
                    "Q",
                    "R",
                    "S",
                ): "a node that works from its input alone has no use for a chat's history",
                (
                    "P",
                    "Q",
                    "S",
                ): "Q gets the transcript as its input: a node that works from its input alone has no Memory input",
                ("P", "R", "S"): "R handles each message on its own, from that message alone",
                ("Q", "R"): "that is the other way round: which nodes use nothing but their input?",
            },
            why="P is an agent and S writes into a stored conversation; Q and R are chains, each working from its input alone",
            transfer="nodes described by what they do, not by name",
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
            mistakes={
                1: "the copy stored before turn 3's call failed is loaded from memory too",
                3: "the advisor reads the memory before it stores the new message: that one goes in once, as the call's own question",
                0: "the question is at least the call's own new message",
            },
            hint="what had the advisor stored when turn 3 failed, and what does turn 4's call add?",
            why="one copy comes back from memory (stored before the failed call), the other is the new question",
            transfer="a failed call retried by the user",
        ),
        Expectation(
            "5a",
            _check_5,
            hint="list the fields the model writes (the $fromAI() rows), then look for each value in what a call without memory sends",
            mistakes={
                (
                    "new_address",
                    "order_number",
                ): "the order number was said in turn 1, and a call without memory does not carry turn 1",
                (
                    "new_address",
                    "requested_by",
                ): "requested_by is fixed text in the mapping: the model writes nothing into it",
                (
                    "new_address",
                    "order_number",
                    "requested_by",
                ): "requested_by is fixed text, and the order number was said in turn 1, which this call does not carry",
                (
                    "order_number",
                ): "the order number was said in turn 1, which this call does not carry; look at turn 3's own message",
                (): "a call without memory still carries turn 3's own message: look at what it says",
            },
            why="the address is in turn 3's own message; the order number was only in turn 1",
            transfer="a tool's arguments when the model's array lacks memory",
        ),
        Expectation(
            "5b",
            _check_5,
            hint="which two parts make up a Simple Memory buffer's name?",
            mistakes={
                2: "the session id matches, but the buffer's name starts with the workflow id, and the tool's is different"
            },
            why="the inner memory's buffer is named for wf-track-order and the session, and nothing was ever stored under that name",
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
            why="the save keeps the question, the last round's tool call and its result, and the answer; the first round is not stored",
            transfer="a run with two tool rounds",
        ),
        Expectation(
            "6b",
            _check_6,
            hint="list what memory holds after turn 2, message by message, then keep the last 2 × 2",
            mistakes={
                2: "a window of 2 is 4 messages, not 2 turns: count turn 2's stored messages first",
                1: "the window takes whole messages from the end of the store: count how many turn 2 left",
            },
            why="turn 2's four stored messages, tool call and result among them, fill a window of 2",
            transfer="stored tool messages taking a window's places",
        ),
        Expectation(
            "6c",
            _check_6,
            hint="what does typeVersion 2.2 write at the end of turn 2, and how many messages does memory then hold?",
            mistakes={
                0: "that is typeVersion 3.1, whose stored tool messages fill the window; 2.2 stores no tool message",
                1: "the window takes whole messages from the end of the store: count what 2.2 stored",
            },
            why="2.2 stored turn 2 as a question and an answer, so four messages fit in the window, turn 1's among them",
            transfer="an older AI Agent typeVersion (2.2)",
        ),
        Expectation(
            "7",
            _check_7,
            hint="what does a run find in a session nobody has written to, and what does a call after a tool result add?",
            mistakes={
                6: "that is one session's call: with a fresh id turn 2's run opens an empty session, without turn 1",
                2: "a call after a tool result also carries this run's tool call and its result",
                3: "the tool call and its result are two messages: the assistant's request and the tool's answer",
                5: "nothing comes from memory: count the System Message, the question, the tool call and its result",
            },
            why="memory hands over nothing; the call carries the System Message, the question and this run's tool call and result",
            transfer="a new session id for every message, on a tool call",
        ),
        Expectation(
            "8a",
            _check_8,
            hint="work out the Key's value on run 1, on run 3 and on run 5: which session does each open?",
            mistakes={
                4: "that counts runs 1 and 3 as one session's; work out the Key's value on each run first",
                8: "runs 2 and 4 ended with an error and wrote nothing; and which session does each run's Key open?",
                10: "that is a full window; work out which session each run's Key opens",
                2: "work out the Key's value on each run: does run 5 open the session run 3 wrote?",
            },
            why="the Key is each message's text, so every run opens a new, empty session",
            transfer="an execution log the lesson has not shown",
        ),
        Expectation(
            "8b",
            _check_8,
            hint="list the runs that were written, then keep the newest the window holds",
            mistakes={
                (5, 6, 7, 8): "the run that ended with an error wrote nothing to memory",
                (
                    6,
                    7,
                    8,
                    9,
                ): "run 9's own message is the input: it is stored only when its run ends",
                (
                    5,
                    7,
                    8,
                    9,
                ): "run 9's own message is the input: it is stored only when its run ends",
                (
                    1,
                    2,
                    3,
                    4,
                    5,
                    7,
                    8,
                ): "every written run is stored, but the window loads only the newest few",
            },
            why="the failed run wrote nothing, so the window's four places go to the four newest written runs",
            transfer="an execution log the lesson has not shown",
        ),
        Expectation(
            "8c",
            _check_8,
            hint="list the written runs, newest first, and count down to run 2, run 2 included",
            mistakes={
                7: "the run that ended with an error left nothing in memory: count only the written runs",
                5: "count run 2 itself too: the window must hold it",
                4: "that is the window as set, and it has already let run 2 go",
                8: "run 9's own message is the input, not one of the window's turns",
            },
            why="counting the written runs back from run 8, run 2 is the sixth",
            transfer="the window a forgotten turn needs",
        ),
    ],
)
check = BOOK.check
