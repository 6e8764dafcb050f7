"""A window policy over a repository: Spring AI's ChatMemory, for every policy windowmem models.

The policy decides which messages the model sees; the repository only keeps them.
How the two meet depends on when the policy cuts:

* a policy that cuts **on write** (Spring AI, Semantic Kernel) is applied at each
  ``add``: load what is stored, let the policy trim it with the new messages, and
  store the result in its place, as one atomic ``update``, so the store never holds
  more than the window and concurrent adds are not lost;
* a policy that cuts **on load** (n8n, LangChain, LlamaIndex, ...) stores every
  message: ``add`` appends, and ``get`` reads only the tail the policy can use (the
  last ``2k`` messages for a window of ``k`` interactions), so a turn costs the same
  however long the conversation has grown.

>>> from windowmem.messages import user, assistant
>>> from windowmem.policies import N8nSimpleMemory
>>> from windowmem.storage import InMemoryRepository
>>> memory = WindowedChatMemory(N8nSimpleMemory(1), InMemoryRepository())
>>> memory.add("chat-7", [user("u1"), assistant("a1"), user("u2"), assistant("a2")])
>>> [m.content for m in memory.get("chat-7")]
['u2', 'a2']
>>> len(memory.stored("chat-7"))
4
"""

from __future__ import annotations

from collections.abc import Iterable

from windowmem.messages import Message
from windowmem.policies.base import WindowPolicy
from windowmem.storage.base import ChatMemoryRepository, check_conversation_id, check_messages


def tail_needed(policy: WindowPolicy) -> int | None:
    """How many of the newest stored messages *policy*'s load can return, or None if it may need all.

    Reading only this tail gives the same window as reading everything; each policy
    knows its own (:meth:`~windowmem.policies.base.WindowPolicy.tail_needed`), and a
    token window or an unknown policy says None: read everything, which is always correct.

    >>> from windowmem.policies import N8nSimpleMemory
    >>> tail_needed(N8nSimpleMemory(5)), tail_needed(N8nSimpleMemory(0))
    (10, None)
    """
    bound = policy.tail_needed()
    if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int) or bound < 0):
        raise TypeError(
            f"{type(policy).__name__}.tail_needed() returned {bound!r}, not a count or None"
        )
    return bound


class WindowedChatMemory:
    """Conversations kept in *repository*, windowed by *policy*: ``add``, ``get``, ``clear``."""

    def __init__(self, policy: WindowPolicy, repository: ChatMemoryRepository) -> None:
        if not isinstance(policy, WindowPolicy):
            raise TypeError(
                f"policy must be a WindowPolicy, got {type(policy).__name__}: see windowmem.policies"
            )
        missing = [
            name for name in ("append", "load_tail", "update") if not hasattr(repository, name)
        ]
        if missing:
            raise TypeError(
                f"{type(repository).__name__} is not a ChatMemoryRepository (no {', '.join(missing)}): "
                "use one from windowmem.storage"
            )
        self.policy = policy
        self.repository = repository
        self._tail = tail_needed(policy)

    def add(self, conversation_id: str, messages: Message | Iterable[Message]) -> None:
        """Save *messages* to a conversation as one write."""
        conversation_id = check_conversation_id(conversation_id)
        added = check_messages(messages)
        if self.policy.trims_on_write:
            # One atomic read-trim-write: two processes adding at once both keep their messages.
            self.repository.update(conversation_id, lambda stored: self.policy.write(stored, added))
        else:
            self.repository.append(conversation_id, added)

    def get(self, conversation_id: str) -> list[Message]:
        """The messages the model receives from this conversation now."""
        conversation_id = check_conversation_id(conversation_id)
        if self.policy.trims_on_write or self._tail is None:
            stored = self.repository.find_by_conversation_id(conversation_id)
        else:
            stored = self.repository.load_tail(conversation_id, self._tail)
        return list(self.policy.load(stored))

    def stored(self, conversation_id: str) -> list[Message]:
        """Everything the repository holds for a conversation, windowed or not."""
        return self.repository.find_by_conversation_id(check_conversation_id(conversation_id))

    def clear(self, conversation_id: str) -> None:
        """Forget a conversation."""
        self.repository.delete_by_conversation_id(check_conversation_id(conversation_id))

    def __repr__(self) -> str:
        return f"WindowedChatMemory({self.policy!r}, {self.repository!r})"
