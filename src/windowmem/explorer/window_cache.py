"""The window explorer's cache: a conversation replayed once per window size.

>>> from windowmem.messages import user, assistant
>>> cache = ReplayCache([user("a"), assistant("b"), user("c")])
>>> len(cache.views(5)), cache.views(5) is cache.views(5)
(2, True)
"""

from __future__ import annotations

from collections.abc import Sequence

from windowmem.calls.memory_writes import as_n8n_stores
from windowmem.conversation import Conversation, as_conversation
from windowmem.messages import Message
from windowmem.policies.base import PolicyFactory
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.replay import TurnView, replay
from windowmem.tokens import TokenCounter, qwen_counter


class ReplayCache:
    """A conversation's replays under one policy, one per window size, each computed once.

    *policy_for_size* builds the policy from the window slider's value: n8n Simple
    Memory, lesson 3's subject, unless told otherwise. Moving the turn slider then only
    indexes a replay; moving the window slider replays the conversation once per new size.
    """

    def __init__(
        self,
        conversation: Conversation | Sequence[Message],
        counter: TokenCounter | None = None,
        *,
        policy_for_size: PolicyFactory = N8nSimpleMemory,
    ) -> None:
        conversation = as_conversation(conversation)
        if policy_for_size is N8nSimpleMemory:
            # n8n's buffer holds what its agent stored, not the conversation file: a turn's
            # last tool round only, one assistant message per call (n8n 2.41.1, AI Agent 3.1).
            conversation = Conversation.of(as_n8n_stores(conversation.messages), conversation.title)
        self.conversation = conversation
        self.counter = counter if counter is not None else qwen_counter()
        self.policy_for_size = policy_for_size
        self.turns = self.conversation.interactions
        self._views: dict[int, tuple[TurnView, ...]] = {}

    def views(self, window: int) -> tuple[TurnView, ...]:
        """Every turn's view at window size *window*."""
        if window not in self._views:
            policy = self.policy_for_size(window)
            self._views[window] = replay(self.conversation, policy, self.counter)
        return self._views[window]
