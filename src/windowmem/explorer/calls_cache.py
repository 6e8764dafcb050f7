"""Lesson 2's explorer cache: a scenario replayed with memory off once, and with memory on per window and mode.

Moving the call slider only indexes a replay; changing the window or the memory mode
replays the conversation once per new setting.

>>> from windowmem.calls.tool_scenario import load_tool_scenario
>>> cache = CallsCache(load_tool_scenario("tutienda_tools"))
>>> len(cache.order), cache.on(5, ONE_SESSION) is cache.on(5, ONE_SESSION)
(8, True)
"""

from __future__ import annotations

from windowmem.calls.agent_calls import AgentRun, agent_runs
from windowmem.calls.tool_scenario import ToolScenario, session_per_message
from windowmem.errors import WindowMemError
from windowmem.policies.n8n import N8nSimpleMemory

#: The two ways the explorer connects memory (beside "off", always shown).
ONE_SESSION = "one session"
NEW_SESSION_EACH_MESSAGE = "a new session id per message"
MODES = (ONE_SESSION, NEW_SESSION_EACH_MESSAGE)


class CallsCache:
    """A scenario's replays, each computed once: memory off, and memory on per window and mode."""

    def __init__(self, scenario: ToolScenario) -> None:
        self.scenario = scenario
        self.off = agent_runs(scenario.conversation)
        self.turn_count = len(self.off)
        if self.turn_count == 0:
            raise WindowMemError("the conversation has no turns: give it at least one user message")
        #: (turn, round) of every model call, in order; the same with memory on or off.
        self.order = tuple((run.turn, call.round) for run in self.off for call in run.calls)
        self.per_message_ids = tuple(session_per_message(scenario.session_id, self.turn_count))
        self._on: dict[tuple[int, str], tuple[AgentRun, ...]] = {}

    def on(self, window: int, mode: str) -> tuple[AgentRun, ...]:
        """The replay with Simple Memory at Context Window Length *window*, sessions as *mode* says."""
        if mode not in MODES:
            raise WindowMemError(f"unknown memory mode {mode!r}: use one of {', '.join(MODES)}")
        key = (window, mode)
        if key not in self._on:
            ids = (
                self.per_message_ids
                if mode == NEW_SESSION_EACH_MESSAGE
                else (self.scenario.session_id,) * self.turn_count
            )
            self._on[key] = agent_runs(
                self.scenario.conversation, N8nSimpleMemory(window), session_ids=ids
            )
        return self._on[key]

    def session_id(self, turn: int, mode: str) -> str:
        """The session id the chat trigger sends with turn *turn*'s message."""
        if mode == NEW_SESSION_EACH_MESSAGE:
            return self.per_message_ids[turn - 1]
        return self.scenario.session_id


__all__ = ["MODES", "NEW_SESSION_EACH_MESSAGE", "ONE_SESSION", "CallsCache"]
