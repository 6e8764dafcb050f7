"""What :mod:`verify.n8n.pictures` sends through n8n before it takes its pictures (the tables).

* :data:`PICTURE_WORKFLOWS`: workflows the pictures need and no lesson tells the learner to
  import (made like the course workflows, :func:`verify.n8n.course_workflows.derive`, from
  the harness's own, then imported beside them);
* :data:`CHATS`: the conversations, one per workflow that has one.

The pictures themselves are :data:`verify.n8n.picture_shots.SHOTS`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from verify.n8n.course_workflows import (
    AGENT,
    CourseWorkflow,
    derive,
    load_sources,
)
from verify.n8n.model_server import Call, Reply, Text, ToolCalls
from verify.n8n.picture_subworkflow import (
    ORDER_FIELD,
    ORDER_STATUS,
    TOOL_NAME,
    sub_workflow,
    with_workflow_tool,
)
from verify.n8n.scenarios import lesson3_tool_use


@dataclass(frozen=True)
class Turn:
    """One message to a workflow and the recording model's scripted *replies*.

    *status* is the HTTP status the trigger must answer. With *alongside*, a second message
    for the same session is sent while this one's run is still open (its model *replies*
    should be slow: ``Text(..., delay=...)``); the second run must answer :data:`ONE_MOMENT`.
    """

    text: str
    replies: tuple[Reply, ...]
    status: int = 200
    alongside: str = ""


@dataclass(frozen=True)
class Chat:
    """A conversation sent through one workflow, for one session."""

    workflow: str
    session: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class PictureWorkflow:
    """A workflow only the pictures use: a course workflow *spec*, changed.

    A *prompt* sets the agent's Source for Prompt to *Define below* with that text; *calls*
    names the picture workflow its *Call n8n Workflow Tool* calls (in place of the
    Calculator); a *called* workflow is that sub-workflow (:mod:`verify.n8n.picture_subworkflow`).
    """

    spec: CourseWorkflow
    prompt: str = ""
    calls: str = ""
    called: bool = False

    def build(self, sources: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        """The workflow as it is imported into n8n."""
        if self.called:
            return sub_workflow(self.spec.file, self.spec.title)
        workflow = derive(self.spec, load_sources() if sources is None else sources)
        if self.calls:
            workflow = with_workflow_tool(workflow, self.spec.file, self.calls)
        if self.prompt:
            for node in workflow["nodes"]:
                if node["name"] == AGENT:
                    options = node["parameters"]["options"]
                    node["parameters"] = {
                        "promptType": "define",
                        "text": self.prompt,
                        "options": options,
                    }
        return dict(json.loads(json.dumps(workflow)))


def _says(text: str, answer: str) -> Turn:
    return Turn(text, (Text(answer),))


def _calculator(call_id: str, expression: str) -> ToolCalls:
    return ToolCalls.of(Call(call_id, "Calculator", {"input": expression}))


#: The Webhook in front of an agent whose memory keeps the Chat Trigger's default Session ID.
NO_SESSION_ID = "lesson1_no_session_id"
#: Lesson 3's tool chat (four turns, parallel calls on turn 3) with a window of two.
TOOL_WINDOW = "lesson3_tool_window"
#: Lesson 3's fix: the time in the prompt, not in the System Message.
PROMPT_WITH_NOW = "lesson3_prompt_with_now"
#: An agent whose tool is a sub-workflow, and that sub-workflow (lesson 2's inputs picture).
SUB_CALLER, SUB_CALLED = "lesson2_workflow_tool", "lesson2_track_order"
#: The prompt :data:`PROMPT_WITH_NOW` gives its agent (lesson 3's section on the cache).
NOW_PROMPT = "={{ $now }} {{ $json.chatInput }}"

PICTURE_WORKFLOWS: tuple[PictureWorkflow, ...] = (
    PictureWorkflow(
        CourseWorkflow(
            NO_SESSION_ID,
            1,
            "session-from-input",
            "TuTienda lesson 1: a Webhook on the default Session ID",
            "webhook",
            "## Lesson 1: no session id\n"
            "Simple Memory keeps *Session ID: Connected Chat Trigger Node*, but a Webhook "
            "triggers the agent: the memory finds no `sessionId` in its input.",
        )
    ),
    PictureWorkflow(
        CourseWorkflow(
            TOOL_WINDOW,
            3,
            "lesson3-tools-k2",
            "TuTienda lesson 3: a window of two with tools",
            "chat",
            "## Lesson 3: the window and tool steps\n"
            "**Simple Memory** has *Context Window Length* 2: the last 4 stored messages, "
            "tool calls and results among them.",
        )
    ),
    PictureWorkflow(
        CourseWorkflow(
            PROMPT_WITH_NOW,
            3,
            "window-k2",
            "TuTienda lesson 3: the time in the prompt",
            "chat",
            "## Lesson 3: the time in the prompt\n"
            "The System Message stays the same on every call; the time goes in the "
            "prompt, after everything the model saw before.",
        ),
        prompt=NOW_PROMPT,
    ),
    # The sub-workflow first: its id goes into the caller's tool.
    PictureWorkflow(
        CourseWorkflow(
            SUB_CALLED,
            2,
            "window-k5",
            "TuTienda lesson 2: track an order (sub-workflow)",
            "sub-workflow",
            "",
        ),
        called=True,
    ),
    PictureWorkflow(
        CourseWorkflow(
            SUB_CALLER,
            2,
            "window-k5",
            "TuTienda lesson 2: a sub-workflow as a tool",
            "chat",
            "## Lesson 2: a sub-workflow as a tool\n"
            f"**{TOOL_NAME}** is a *Call n8n Workflow Tool*: the model fills its input "
            f"`{ORDER_FIELD}`, and the sub-workflow's result goes back to the model.",
        ),
        calls=SUB_CALLED,
    ),
)


#: The conversations the pictures show, one per workflow that has one.
CHATS: tuple[Chat, ...] = (
    Chat(
        "lesson1_chat_trigger",
        "marta-chat",
        (_says("Hi, I'm Marta.", "Hello Marta! How can I help?"),),
    ),
    Chat(
        "lesson1_webhook_session_key",
        "marta",
        (_says("Hi, I'm Marta.", "Hello Marta! How can I help?"),),
    ),
    # The memory fails before any model call: no reply scripted, the Webhook answers 500.
    Chat(NO_SESSION_ID, "marta-webhook", (Turn("Hi, I'm Marta.", (), status=500),)),
    Chat(
        "lesson2_tool_turns",
        "marta-tools",
        (
            Turn("What is 12*7?", (_calculator("call_12x7", "12*7"), Text("84."))),
            _says("And plus 5?", "89."),
            # One question, two tool steps in a row: three model calls in one turn.
            Turn(
                "Now times 3, minus 7?",
                (
                    _calculator("call_89x3", "89*3"),
                    _calculator("call_267m7", "267-7"),
                    Text("260."),
                ),
            ),
        ),
    ),
    Chat(
        SUB_CALLER,
        "marta-order",
        (
            Turn(
                "Where is my order #6023?",
                (
                    ToolCalls.of(Call("call_track_6023", TOOL_NAME, {ORDER_FIELD: "#6023"})),
                    Text(f"Order #6023 is {ORDER_STATUS}."),
                ),
            ),
        ),
    ),
    Chat(
        "lesson3_window",
        "marta-window",
        (
            _says("Hi, I'm Marta, my order is 4512.", "Thanks Marta, I have order 4512."),
            _says("Can it come on Friday?", "Yes, Friday works."),
            _says("Leave it with the doorman, please.", "Noted: with the doorman."),
            _says("What was my order number?", "I don't see it; could you tell me again?"),
        ),
    ),
    Chat(
        TOOL_WINDOW,
        "tool-window",
        tuple(Turn(t.text, t.replies) for t in lesson3_tool_use().turns),
    ),
    Chat(
        "lesson4_postgres",
        "marta-postgres",
        (
            _says("Hi, I'm Marta, my order is 4512.", "Thanks Marta, I have order 4512."),
            _says("Can it come on Friday?", "Yes, Friday works."),
        ),
    ),
    Chat(
        "lesson4_lock",
        "marta-lock",
        (
            _says("Hi, I'm Marta, my order is 4512.", "Thanks Marta, I have order 4512."),
            _says("Can it come on Friday?", "Yes, Friday works."),
            # A double-send: the second message arrives while the first run holds the lock.
            Turn(
                "Actually, can it come on Saturday?",
                (Text("Yes, Saturday works too.", delay=5.0),),
                alongside="Saturday morning, I mean.",
            ),
        ),
    ),
    Chat(
        "lesson4_redis",
        "marta-redis",
        (
            _says("Hi, I'm Marta, my order is 4512.", "Thanks Marta, I have order 4512."),
            _says("Can it come on Friday?", "Yes, Friday works."),
        ),
    ),
)
