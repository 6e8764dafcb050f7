"""What an n8n agent run writes to memory when it ends: nothing unless it answered.

From n8n 2.3.0 the write holds the input, the run's tool calls with their results, and the
answer (:func:`saved_messages`); before 2.3.0 the tool use was folded into the answer's
text (:func:`saved_messages_before_2_3`). Which model calls a run makes, and what each
sends, is :mod:`windowmem.calls.agent_calls`.
"""

from __future__ import annotations

from collections.abc import Sequence

from windowmem.calls.tool_input import js_json
from windowmem.errors import WindowMemError
from windowmem.messages import Message, Role, assistant, tool


def saved_messages(
    user_input: Message, this_run: Sequence[Message], answer: Message | None
) -> tuple[Message, ...]:
    """What an n8n agent run (2.3.0 and later) adds to memory: nothing unless it answered.

    With an answer: the input, then for every tool call an assistant message asking for
    that one call followed by its result, then the answer. A call that asked for two
    tools at once is stored as two assistant messages, one per call, each before its
    result (n8n 2.41.1, ``buildSteps``). The exception, not modelled: a Gemini reply with
    a thought signature and two or more calls stores one shared assistant message, then
    a result per call. An answer with empty text counts as no answer.

    >>> from windowmem.messages import user, assistant, tool
    >>> run = [assistant("", ["a", "b"]), tool("ra", "a"), tool("rb", "b")]
    >>> saved = saved_messages(user("u"), run, assistant("done"))
    >>> [(m.role.value, m.content, m.tool_calls) for m in saved][1:4]
    [('assistant', '', ('a',)), ('tool', 'ra', ()), ('assistant', '', ('b',))]
    >>> saved_messages(user("u"), run, None)
    ()
    """
    if answer is None or answer.content == "":
        return ()
    steps: list[Message] = []
    results = {m.tool_call_id: m for m in this_run if m.role is Role.TOOL}
    unmatched = [m for m in this_run if m.role is Role.TOOL and m.tool_call_id is None]
    for message in this_run:
        if not message.calls_tool:
            continue
        for call_id in message.tool_calls:
            result = results.get(call_id) or (unmatched.pop(0) if unmatched else None)
            if result is None:
                raise WindowMemError(
                    f"the tool call {call_id!r} has no result before the answer: add the tool "
                    "message that answers it (with its tool_call_id)"
                )
            steps.append(assistant("", [call_id]))
            steps.append(tool(result.content, call_id))
    return (user_input, *steps, answer)


def saved_messages_before_2_3(
    user_input: Message,
    steps: Sequence[tuple[str, object, str]],
    answer: Message | None,
) -> tuple[Message, ...]:
    """What an n8n 2.x agent run before 2.3.0 (read in 2.2.0) added to memory: two messages.

    Each step is (tool name, the model's input to it, the tool's result text). The tool use
    is folded into the answer's text as a ``[Used tools: ...]`` prefix; a run without tools
    stores the input and the answer as they are.

    >>> from windowmem.messages import user, assistant
    >>> saved = saved_messages_before_2_3(user("u"), [("calc", {"x": 1}, "2")], assistant("It is 2."))
    >>> saved[1].content
    '[Used tools: Tool: calc, Input: {"x":1}, Result: 2] It is 2.'
    """
    if answer is None or answer.content == "":
        return ()
    if not steps:
        return (user_input, answer)
    context = "; ".join(
        f"Tool: {name}, Input: {js_json(tool_input)}, Result: {result}"
        for name, tool_input, result in steps
    )
    return (user_input, assistant(f"[Used tools: {context}] {answer.content}"))


__all__ = ["saved_messages", "saved_messages_before_2_3"]
