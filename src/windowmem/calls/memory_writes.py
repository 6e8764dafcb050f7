"""What an n8n agent run writes to memory when it ends: nothing unless it answered.

From n8n 2.3.0 the write holds the input, the tool calls of the run's last model round with
their results, and the answer (:func:`saved_messages`); before 2.3.0 the tool use was folded into the answer's
text (:func:`saved_messages_before_2_3`). Which model calls a run makes, and what each
sends, is :mod:`windowmem.calls.agent_calls`.
"""

from __future__ import annotations

from collections.abc import Sequence

from windowmem.calls.tool_input import js_json
from windowmem.errors import WindowMemError
from windowmem.messages import Message, Role, assistant, tool

#: The AI Agent typeVersions whose calls and writes windowmem models, each checked against
#: a running n8n 2.41.1 (``make verify-n8n``).
AGENT_VERSIONS = (2.2, 3.1)
#: The agent's default typeVersion in n8n 2.41.1.
DEFAULT_AGENT_VERSION = 3.1


def check_agent_version(version: object) -> float:
    """*version* as a float when it is a modelled AI Agent typeVersion, else a clear error."""
    if (
        isinstance(version, bool)
        or not isinstance(version, int | float)
        or version not in AGENT_VERSIONS
    ):
        raise WindowMemError(
            f"AI Agent typeVersion {version!r} is not modelled: use one of "
            f"{', '.join(map(str, AGENT_VERSIONS))}"
        )
    return float(version)


def tool_steps(this_run: Sequence[Message]) -> tuple[Message, ...]:
    """This run's tool calls as n8n 3.x's agent rebuilds them: one assistant message per call, then its result.

    The model may ask for two tools in one message; the agent keeps each call as a step of
    its own (``buildSteps``) and hands the model, on its next call, and memory, at the end,
    one assistant message per step followed by that step's result (seen running n8n 2.41.1,
    AI Agent 3.1). The exception, not modelled: a Gemini reply with a thought signature and
    two or more calls keeps one shared assistant message, then a result per call.

    >>> from windowmem.messages import assistant, tool
    >>> steps = tool_steps([assistant("", ["a", "b"]), tool("ra", "a"), tool("rb", "b")])
    >>> [(m.role.value, m.tool_calls or m.tool_call_id) for m in steps]
    [('assistant', ('a',)), ('tool', 'a'), ('assistant', ('b',)), ('tool', 'b')]
    """
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
            # The message itself where it already is one call with no text (the usual
            # case), so a caller can follow the very object the model returned.
            single = message.tool_calls == (call_id,) and message.content == ""
            steps.append(message if single else assistant("", [call_id]))
            steps.append(
                result if result.tool_call_id == call_id else tool(result.content, call_id)
            )
    return tuple(steps)


def last_round(this_run: Sequence[Message]) -> tuple[Message, ...]:
    """The run's last model round: its last assistant message that calls tools, and the results after it.

    >>> from windowmem.messages import assistant, tool
    >>> [m.tool_calls or m.tool_call_id for m in last_round(
    ...     [assistant("", ["a"]), tool("ra", "a"), assistant("", ["b"]), tool("rb", "b")])]
    [('b',), 'b']
    """
    starts = [i for i, m in enumerate(this_run) if m.calls_tool]
    return tuple(this_run[starts[-1] :]) if starts else ()


def saved_messages(
    user_input: Message,
    this_run: Sequence[Message],
    answer: Message | None,
    *,
    agent_version: float = DEFAULT_AGENT_VERSION,
) -> tuple[Message, ...]:
    """What an n8n 2.41.1 agent run adds to memory: nothing unless it answered.

    AI Agent 3.1 with an answer: the input, the tool calls of the run's **last model round
    only**, one assistant message per call followed by its result (:func:`tool_steps`), then
    the answer. A run that called a tool, then another, keeps only the second: the agent
    saves ``steps.slice(previousStepsCount)``, the steps since its last re-entry
    (``memoryManagement.js``), as n8n 2.41.1 was seen to do. AI Agent 2.2 stores the input
    and the answer only. An answer with empty text counts as no answer.

    >>> from windowmem.messages import user, assistant, tool
    >>> run = [assistant("", ["a", "b"]), tool("ra", "a"), tool("rb", "b")]
    >>> saved = saved_messages(user("u"), run, assistant("done"))
    >>> [(m.role.value, m.content, m.tool_calls) for m in saved][1:4]
    [('assistant', '', ('a',)), ('tool', 'ra', ()), ('assistant', '', ('b',))]
    >>> two = [assistant("", ["a"]), tool("ra", "a"), assistant("", ["b"]), tool("rb", "b")]
    >>> [m.tool_calls or m.tool_call_id or m.content for m in saved_messages(user("u"), two, assistant("done"))]
    ['u', ('b',), 'b', 'done']
    >>> len(saved_messages(user("u"), two, assistant("done"), agent_version=2.2))
    2
    >>> saved_messages(user("u"), run, None)
    ()
    """
    version = check_agent_version(agent_version)
    if answer is None or answer.content == "":
        return ()
    if version < 3:
        return (user_input, answer)
    return (user_input, *tool_steps(last_round(this_run)), answer)


def as_n8n_stores(
    conversation: Sequence[Message], *, agent_version: float = DEFAULT_AGENT_VERSION
) -> tuple[Message, ...]:
    """*conversation* rewritten the way n8n 2.41.1's agent stores each answered turn.

    Each turn that ends in an answer becomes what :func:`saved_messages` writes (3.1: the
    question, the last model round's calls one pair per call, the answer; 2.2: the question
    and the answer); a turn without an answer is kept as it is (its user message is still
    the run's input). System messages stay where they are: no memory stores them, and
    replays send the first beside the window. A window over this is the window n8n loads.

    >>> from windowmem.messages import user, assistant, tool
    >>> chat = [user("u"), assistant("", ["a", "b"]), tool("ra", "a"), tool("rb", "b"), assistant("x")]
    >>> [m.tool_calls or m.tool_call_id or m.content for m in as_n8n_stores(chat)]
    ['u', ('a',), 'a', ('b',), 'b', 'x']
    """
    out: list[Message] = []
    turn: list[Message] = []

    def flush() -> None:
        answer = (
            turn[-1]
            if turn and turn[-1].role is Role.ASSISTANT and not turn[-1].calls_tool
            else None
        )
        if turn and turn[0].role is Role.USER and answer is not None and answer.content != "":
            out.extend(saved_messages(turn[0], turn[1:-1], answer, agent_version=agent_version))
        else:
            out.extend(turn)
        turn.clear()

    for message in conversation:
        if message.role is Role.SYSTEM:
            flush()
            out.append(message)
        elif message.role is Role.USER:
            flush()
            turn.append(message)
        else:
            turn.append(message)
    flush()
    return tuple(out)


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


__all__ = [
    "AGENT_VERSIONS",
    "as_n8n_stores",
    "DEFAULT_AGENT_VERSION",
    "check_agent_version",
    "last_round",
    "saved_messages",
    "saved_messages_before_2_3",
    "tool_steps",
]
