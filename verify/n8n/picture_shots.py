"""The pictures :mod:`verify.n8n.pictures` takes, in order, and what each page must hold.

Each :class:`Shot` names a workflow of :mod:`verify.n8n.course_workflows` or
:data:`verify.n8n.picture_plan.PICTURE_WORKFLOWS`; an execution's view counts the executions
of :data:`verify.n8n.picture_plan.CHATS` (a message sent alongside is one of its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from verify.n8n.course_workflows import AGENT, ONE_MOMENT
from verify.n8n.picture_plan import NO_SESSION_ID, PROMPT_WITH_NOW, SUB_CALLED, TOOL_WINDOW
from verify.n8n.picture_subworkflow import CALLED_TRIGGER, ORDER_FIELD


@dataclass(frozen=True)
class Shot:
    """One picture: the *view* of a *workflow*, and what the page must hold when taken."""

    name: str
    workflow: str
    view: str
    """``"canvas"``, ``"node"`` (a node's fields), ``"model-input"`` (an execution's model
    call), ``"execution"`` (an execution, with *node* opened if given) or ``"logs"`` (an
    execution's log of the agent's steps)."""
    node: str = ""
    turn: int = 0
    """For the execution views: which execution of the workflow (1 = the first)."""
    shows: tuple[str, ...] = ()
    hides: tuple[str, ...] = ()
    values: tuple[tuple[str, str], ...] = ()
    """(parameter name, value its input field must hold), for ``"node"``."""
    counts: tuple[tuple[str, int], ...] = ()
    """(text, how many times the page must show it)."""

    @property
    def file(self) -> str:
        return f"{self.name}.png"


#: How the Session ID option's default reads in the editor.
CHAT_TRIGGER = "Connected Chat Trigger Node"
CANVAS_NODES = ("When chat message received", "AI Agent", "OpenAI Chat Model", "Calculator")
#: The views that show an execution (their *turn* counts executions).
EXECUTION_VIEWS = ("model-input", "execution", "logs")

SHOTS: tuple[Shot, ...] = (
    Shot(
        "lesson1_canvas",
        "lesson1_chat_trigger",
        "canvas",
        shows=(*CANVAS_NODES, "Simple Memory", "Lesson 1: whose memory is it?"),
    ),
    Shot(
        "lesson1_memory_fields",
        "lesson1_chat_trigger",
        "node",
        node="Simple Memory",
        # Lesson 1 points at the warning: the memory lives in the n8n instance, not in queue mode.
        shows=("Session ID", "Context Window Length", "sessionId", "stores memory locally"),
        values=(("sessionIdType", CHAT_TRIGGER), ("contextWindowLength", "5")),
    ),
    Shot(
        "lesson1_webhook_memory_fields",
        "lesson1_webhook_session_key",
        "node",
        node="Simple Memory",
        shows=("Session ID", "{{ $json.body.sessionId }}", "Context Window Length"),
        values=(("sessionIdType", "Define below"), ("contextWindowLength", "5")),
    ),
    Shot(
        "lesson2_canvas",
        "lesson2_tool_turns",
        "canvas",
        shows=(*CANVAS_NODES, "Simple Memory", "Lesson 2: what each model call carries"),
    ),
    Shot(
        "lesson2_model_input",
        "lesson2_tool_turns",
        "model-input",
        turn=2,
        shows=(
            "Human: What is 12*7?",
            "call_12x7",
            "Tool: Calculator",
            "AI: 84.",
            "Human: And plus 5?",
        ),
    ),
    Shot(
        "lesson3_canvas",
        "lesson3_window",
        "canvas",
        shows=(*CANVAS_NODES, "Simple Memory", "Lesson 3: the window"),
    ),
    Shot(
        "lesson3_memory_fields",
        "lesson3_window",
        "node",
        node="Simple Memory",
        shows=("Session ID", "Context Window Length"),
        values=(("sessionIdType", CHAT_TRIGGER), ("contextWindowLength", "2")),
    ),
    Shot(
        "lesson3_model_input",
        "lesson3_window",
        "model-input",
        turn=4,
        shows=("Human: Can it come on Friday?", "Human: What was my order number?"),
        hides=("4512",),
    ),
    Shot(
        "lesson4_postgres_canvas",
        "lesson4_postgres",
        "canvas",
        shows=(*CANVAS_NODES, "Postgres Chat Memory", "Lesson 4: a store that outlives n8n"),
    ),
    # Lesson 4 shows this picture cropped to the nodes (issue 34, round 10): the sticky note's
    # last line states self-check 2's rule. Crop a retake the same way.
    Shot(
        "lesson4_lock_canvas",
        "lesson4_lock",
        "canvas",
        shows=(
            *CANVAS_NODES,
            "Take the lock",
            "First run?",
            "One moment",
            "Sorry",
            "Release the lock",
            "Lesson 4: one run per chat at a time",
        ),
    ),
    Shot(
        "lesson4_postgres_fields",
        "lesson4_postgres",
        "node",
        node="Postgres Chat Memory",
        # Lesson 4's one key, as section 2's workflow ships it: Define below, the trigger's
        # session id read by name (no suffix).
        shows=("Session ID", "Key", "When chat message received", "Context Window Length"),
        values=(("sessionIdType", "Define below"), ("contextWindowLength", "2")),
    ),
    Shot(
        "lesson4_lock_take_fields",
        "lesson4_lock",
        "node",
        node="Take the lock",
        # Where the lock's 60 seconds are set: Increment, Expire on, TTL.
        shows=("Operation", "lock:", "Expire", "TTL"),
        values=(("operation", "Increment"), ("ttl", "60")),
    ),
    Shot(
        "lesson4_redis_fields",
        "lesson4_redis",
        "node",
        node="Redis Chat Memory",
        # Lesson 4's one key here too, so TTL abc finds chat abc's list.
        values=(
            ("sessionIdType", "Define below"),
            ("sessionTTL", "0"),
            ("contextWindowLength", "2"),
        ),
        shows=(
            "Session ID",
            "Key",
            "When chat message received",
            "Session Time To Live",
            "Context Window Length",
        ),
    ),
    # Issue 34's pictures of runs (fresh readers asked to see n8n run).
    Shot(
        "lesson1_no_session_id",
        NO_SESSION_ID,
        "execution",
        node="Simple Memory",
        turn=1,
        shows=(
            "No session ID found",
            "Session Key From Previous Node",
            "{{ $json.sessionId }}",
            "this is what the chat trigger node outputs",
        ),
    ),
    Shot(
        "lesson3_tool_turn_input",
        TOOL_WINDOW,
        "model-input",
        turn=4,
        # The window starts inside turn 3's tool steps: the call whose pair fell outside and
        # turn 3's question are gone; the other call, its result and the answer are sent.
        shows=(
            'AI: [{"id":"call_stock_3b"',
            "Tool: check_stock",
            "AI: There are 4 pairs left in size 39",
            "Human: Thanks, that's all for today.",
        ),
        hides=("call_stock_3a", "white sneakers"),
    ),
    Shot(
        "lesson2_two_tool_steps",
        "lesson2_tool_turns",
        "logs",
        turn=3,
        shows=("Now times 3, minus 7?", "260.", "AI Agent"),
        # One turn, two tool steps: three model calls, memory loaded before each.
        counts=(("OpenAI Chat Model", 3), ("Calculator", 2), ("Simple Memory", 3)),
    ),
    Shot(
        "lesson4_lock_one_moment",
        "lesson4_lock",
        "execution",
        node="One moment",
        turn=4,
        # The lock's count was 2 (a run of this chat in progress): turned away at once.
        shows=("Take the lock", "First run?", "lock:marta-lock-", ONE_MOMENT),
    ),
    Shot(
        "lesson3_prompt_with_now",
        PROMPT_WITH_NOW,
        "node",
        node=AGENT,
        shows=("Prompt (User Message)", "{{ $now }} {{ $json.chatInput }}", "System Message"),
        values=(("promptType", "Define below"),),
    ),
    Shot(
        "lesson2_subworkflow_inputs",
        SUB_CALLED,
        "execution",
        node=CALLED_TRIGGER,
        turn=1,
        # The field the model filled in the tool call, as the sub-workflow received it.
        shows=(CALLED_TRIGGER, "View parent execution", ORDER_FIELD, "#6023"),
    ),
)
