"""n8n 2.41.1's recorded model calls beside windowmem's prediction of them, call by call.

For a lesson that shows "recorded from n8n 2.41.1" next to what windowmem predicts: the
turns of a committed recording (:mod:`windowmem.n8n_recorded`) are read back as a
conversation (the user's messages, the model's scripted replies, and the tool results as
n8n itself sent them) and run through :func:`windowmem.calls.agent_calls.agent_runs` with
the recording's window and AI Agent typeVersion.

>>> calls = recorded_beside_predicted("two-tool-rounds")
>>> [(c.turn, c.round, c.agrees) for c in calls][3:]
[(2, 3, True), (3, 1, True)]
>>> [m.short() for m in calls[-1].recorded][4:7]
['assistant: ', 'tool: [{"response":"35"}]', 'assistant: It is 35.']
"""

from __future__ import annotations

from dataclasses import dataclass

from windowmem.calls.agent_calls import agent_runs
from windowmem.errors import WindowMemError
from windowmem.messages import Message, Role, assistant, system, tool, user
from windowmem.n8n_recorded import Recording, load_recording
from windowmem.policies.n8n import N8nSimpleMemory


@dataclass(frozen=True)
class RecordedCall:
    """One model call: what n8n 2.41.1 sent (*recorded*) and what windowmem predicts."""

    turn: int
    round: int
    recorded: tuple[Message, ...]
    predicted: tuple[Message, ...]

    @property
    def agrees(self) -> bool:
        return self.recorded == self.predicted


def recorded_conversation(recording: Recording) -> tuple[list[Message], list[str]]:
    """The recording's turns as a windowmem conversation, and each turn's memory session.

    Tool results are taken from the requests n8n sent (its tool node's output); a restart
    empties Simple Memory, which is a new session for the turns after it.
    """
    messages: list[Message] = []
    sessions: list[str] = []
    restarts = 0
    first_system = next(
        (m for run in recording.runs for r in run.requests for m in r if m.role is Role.SYSTEM),
        None,
    )
    if first_system is not None:
        messages.append(system(first_system.content))
    for run in recording.runs:
        restarts += run.restart_before
        sessions.append(f"{run.session}#{restarts}")
        messages.append(user(run.user_input))
        results = {
            m.tool_call_id: m.content for r in run.requests for m in r if m.role is Role.TOOL
        }
        for reply in run.replies:
            if "failure" in reply:
                break
            if "text" in reply:
                messages.append(assistant(str(reply["text"])))
                break
            ids = [str(c["id"]) for c in reply["tool_calls"]]
            missing = [i for i in ids if i not in results]
            if missing:
                raise WindowMemError(f"the recording has no tool result for {missing}")
            messages.append(assistant("", ids))
            messages.extend(tool(results[i], i) for i in ids)
    return messages, sessions


def recorded_beside_predicted(name: str) -> tuple[RecordedCall, ...]:
    """Every model call of the committed recording *name*, recorded and predicted."""
    recording = load_recording(name)
    messages, sessions = recorded_conversation(recording)
    runs = agent_runs(
        messages,
        N8nSimpleMemory(recording.window),
        session_ids=sessions,
        agent_version=recording.agent_version,
    )
    out = []
    for recorded_run, run in zip(recording.runs, runs, strict=True):
        for number, sent in enumerate(recorded_run.requests, start=1):
            predicted = run.calls[number - 1].messages if number <= len(run.calls) else ()
            out.append(RecordedCall(run.turn, number, sent, predicted))
    return tuple(out)


#: Re-exported so a lesson reads a recording's typeVersions and its runs from this one module.
__all__ = ["RecordedCall", "load_recording", "recorded_beside_predicted", "recorded_conversation"]
