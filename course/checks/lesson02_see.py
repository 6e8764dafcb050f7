"""What lesson 2's "See it" cells show, built here so the page shows outputs, not plumbing.

Each function names one thing the lesson looks at: Marta's chat with failed turns, the items
TuTienda's tools receive, the buffers Simple Memory then holds, a recorded request, the
explorer. The check book (``checks/lesson02.py``) and the page checks build on the same
functions, so the lesson, its answers and its asserts read one computation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from windowmem.calls.agent_calls import agent_runs, message_line
from windowmem.calls.tool_scenario import Delivery, load_tool_scenario, without_tools
from windowmem.examples import load_example
from windowmem.explorer.calls_widgets import CallsExplorer
from windowmem.messages import Message, assistant, system, user
from windowmem.n8n_recorded import Recording
from windowmem.policies import ManualClock, Memory, N8nSimpleMemory, SimpleMemoryStore

marta = load_example("marta")
tutienda_tools = load_tool_scenario("tutienda_tools")


def marta_with_failed_turns(*failing: int) -> list[Any]:
    """Marta's chat, where the runs of the turns numbered in *failing* end without an answer.

    >>> len(marta_with_failed_turns(3)) == len(marta.messages) - 1
    True
    """
    turns = [
        m
        for number, interaction in enumerate(marta.interactions, start=1)
        for m in interaction.messages[: 1 if number in failing else 2]
    ]
    return [marta.system_message, *turns]


#: The chat behind ``images/n8n/lesson3_model_input.png``, sent through lesson 3's workflow
#: (``verify/n8n/pictures.py`` sends these texts; ``tests/test_lesson02_diagnosis.py`` compares).
PICTURED_CHAT = (
    ("Hi, I'm Marta, my order is 4512.", "Thanks Marta, I have order 4512."),
    ("Can it come on Friday?", "Yes, Friday works."),
    ("Leave it with the doorman, please.", "Noted: with the doorman."),
    ("What was my order number?", "I don't see it; could you tell me again?"),
)
PICTURED_SYSTEM = (
    "You are TuTienda's shop assistant. Answer briefly and in the customer's language."
)


def pictured_chat() -> list[Message]:
    """The pictured chat as messages: its System Message, then each turn's question and answer."""
    return [
        system(PICTURED_SYSTEM),
        *(m for q, a in PICTURED_CHAT for m in (user(q), assistant(a))),
    ]


def why_not_sent(runs: Sequence[Any], turn: int, missing: int) -> str:
    """Why turn *missing* is not in turn *turn*'s first model call, from the runs alone.

    ``"failed run"`` when its run wrote nothing; ``"new session"`` when it was written to
    another session than the one turn *turn* reads (a session change anywhere in between);
    otherwise ``"window"``: stored in the same session, not loaded.

    >>> why_not_sent(agent_runs(marta, N8nSimpleMemory(3)), 7, 1)
    'window'
    >>> why_not_sent(agent_runs(marta_with_failed_turns(1), N8nSimpleMemory(5)), 7, 1)
    'failed run'
    >>> ids = ["a"] + ["b"] * 6  # a session change after turn 1 only: later turns still load
    >>> why_not_sent(agent_runs(marta, N8nSimpleMemory(5), session_ids=ids), 7, 1)
    'new session'
    """
    call = runs[turn - 1].calls[0]
    if missing in call.memory_turns:
        raise ValueError(f"turn {missing} is sent on turn {turn}: nothing is missing")
    if not runs[missing - 1].saved:
        return "failed run"
    return "window" if runs[missing - 1].session_id == runs[turn - 1].session_id else "new session"


def tool_items() -> tuple[Delivery, Delivery]:
    """What ``change_address`` (turn 3) and ``track_order`` (turn 2) receive, with memory on."""
    turn_2, turn_3 = tutienda_tools.conversation.interactions[1:3]
    (redirect,) = tutienda_tools.deliveries("call_address_3", chat_input=turn_3.messages[0].content)
    (tracking,) = tutienda_tools.deliveries("call_track_2", chat_input=turn_2.messages[0].content)
    return redirect, tracking


#: What the lesson's table shows in a field the model cannot fill from the array it was sent.
NOT_IN_ITS_ARRAY = "? (not in the model's array)"


def item_without_memory(delivery: Delivery, sent: Sequence[Message]) -> dict[str, Any]:
    """*delivery*'s item had the model's call sent only *sent*: a ``$fromAI()`` field keeps its
    value only if one of those messages holds it; any other row is filled by n8n as before.

    >>> redirect, _ = tool_items()
    >>> off = agent_runs(tutienda_tools.conversation)[2].calls[0].messages
    >>> item_without_memory(redirect, off)["order_number"] == NOT_IN_ITS_ARRAY
    True
    """
    arguments = delivery.arguments if isinstance(delivery.arguments, Mapping) else {}
    return {
        field: (
            NOT_IN_ITS_ARRAY
            if field in arguments and not any(str(value) in m.content for m in sent)
            else value
        )
        for field, value in delivery.item.items()
    }


#: Self-check 3's chat: the address comes on turn 1, the order number in turn 3's own message,
#: so the field lost without memory is not the one section 3's See-it loses.
MOVED_CHAT = (
    ("I've moved to Calle 93 #11-26, Bogotá.", "Thanks, Marta. I've noted your new address."),
    ("Which days do you deliver?", "Monday to Saturday."),
    ("Please send order #6023 there.", None),
)


def moved_chat_turn_3(memory: N8nSimpleMemory | None) -> Any:
    """Turn 3's first model call in self-check 3's chat, on an agent with *memory* (or none).

    >>> [m.role.value for m in moved_chat_turn_3(None).messages]
    ['system', 'user']
    """
    messages = [tutienda_tools.conversation.messages[0]]
    for question, answer in MOVED_CHAT:
        messages += [user(question)] + ([assistant(answer)] if answer else [])
    return agent_runs(messages, memory)[2].calls[0]


def buffers_when_turn_2_calls(tracking: Delivery) -> tuple[SimpleMemoryStore, Memory]:
    """The n8n process's Simple Memory buffers when turn 2 calls *tracking*'s tool.

    The agent's buffer holds turn 1; the tool's sub-workflow opens its own buffer, named for
    its workflow and the session id it received. Returns the store and that inner buffer.
    """
    runs = agent_runs(tutienda_tools.conversation, N8nSimpleMemory(5))
    store = SimpleMemoryStore(ManualClock())
    store.memory(tutienda_tools.agent_workflow_id, tutienda_tools.session_id).add(*runs[0].saved)
    inner = store.memory(tracking.tool.workflow_id, tracking.item["session_id"])
    return store, inner


def show_request(request: Sequence[Message], width: int = 60) -> None:
    """Print a recorded model request one message a line, a tool call by its call id."""
    for message in request:
        if message.tool_calls:
            print(f"assistant: asks for {', '.join(message.tool_calls)}")
        else:
            print(message.short(width))


def recorded_call(recording: Recording, turn: int) -> str:
    """The first request n8n sent on *turn* of *recording*, one message a line, as
    :func:`~windowmem.calls.agent_calls.describe_call` prints a predicted call.

    Each message is labelled with the turn whose question or answer it is, read from the
    recording's own runs: the last message is the turn's input, the others came from memory.

    >>> from windowmem.n8n_recorded import load_recording
    >>> print(recorded_call(load_recording("marta"), 2).splitlines()[1])
         user  memory · turn 1  Hi, I'm Marta, my order is #6023.
    """
    turns = {
        (role, text): number
        for number, run in enumerate(recording.runs, start=1)
        for role, text in (("user", run.user_input), ("assistant", run.output))
    }
    *earlier, last = recording.runs[turn - 1].requests[0]
    lines = [
        message_line(m, "system message")
        if m.role.value == "system"
        else message_line(m, f"memory · turn {turns[(m.role.value, m.content)]}")
        for m in earlier
    ]
    if (last.role.value, last.content) != ("user", recording.runs[turn - 1].user_input):
        raise ValueError(f"turn {turn}'s request does not end with its input")
    return "\n".join([*lines, message_line(last, f"input · turn {turn}")])


def lesson_explorer() -> CallsExplorer:
    """The lesson's explorer: TuTienda with tools first, and Marta's chat, window 5, call 2."""
    return CallsExplorer(
        {"tutienda_tools": tutienda_tools, "marta": without_tools(marta)},
        start="tutienda_tools",
        window=5,
        call=2,
    )
