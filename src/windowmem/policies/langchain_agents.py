"""langchain 1.x ``create_agent`` memory: middleware decides what the model sees.

``langchain.agents.create_agent`` (langchain 1.5.2, ``langchain/agents/factory.py``)
replaces LangGraph's ``create_react_agent``, which langgraph-prebuilt 1.1.3 marks
deprecated. It has no ``pre_model_hook``: a window is *middleware*, and the two kinds
of hook map onto the two LangGraph hooks of :mod:`windowmem.policies.langgraph`:

* :class:`LangChainTrimState`: a ``@before_model`` middleware returning ``{"messages":
  [RemoveMessage(id=REMOVE_ALL_MESSAGES), *trim_messages(...)]}`` replaces the saved
  thread, before every model call (the graph's loop from the tools goes back to the
  first ``before_model`` node), exactly as :class:`LangGraphTrimState` does.
* :class:`LangChainTrimInput`: a ``@wrap_model_call`` middleware calling
  ``handler(request.override(messages=trim_messages(...)))`` changes only the model's
  input. Unlike ``pre_model_hook``, there is no ``llm_input_messages or messages``:
  ``_execute_model_sync`` sends ``[system_message, *request.messages]``, so a trim that
  keeps nothing sends the system prompt alone, not the whole thread.
* :class:`LangChainContextEditing`: the built-in ``ContextEditingMiddleware``
  (``agents/middleware/context_editing.py``) with its ``ClearToolUsesEdit``, also a
  ``wrap_model_call``: past a token trigger, older tool results are replaced by
  ``"[cleared]"`` in the model's input, the newest ``keep`` left as they are.

``SummarizationMiddleware`` under ``create_agent`` is
:class:`~windowmem.policies.langgraph.LangChainSummarization`. The system prompt
(``system_prompt=``) is never stored and goes first on every call; every policy here
sees the thread with the turn's new user message in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from windowmem.errors import PolicyError
from windowmem.messages import Message, Role
from windowmem.policies.base import Unit, check_size
from windowmem.policies.langgraph import (
    LANGCHAIN_VERSION,
    LangGraphTrimInput,
    LangGraphTrimState,
    _WholeInput,
)
from windowmem.tokens import TokenCounter, count_words

#: ``ClearToolUsesEdit`` defaults: ``trigger=100_000``, ``keep=3``, ``placeholder="[cleared]"``.
CLEAR_TRIGGER = 100_000
CLEAR_KEEP = 3
CLEARED_PLACEHOLDER = "[cleared]"


@dataclass(frozen=True)
class LangChainTrimState(LangGraphTrimState):
    """``create_agent`` with a ``@before_model`` trim returning ``RemoveMessage(REMOVE_ALL_MESSAGES)``: the saved thread is cut.

    The same rule as LangGraph's ``pre_model_hook`` that replaces the state: before
    every model call the thread becomes ``trim_messages(thread, max_tokens=size)``.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.base import Memory
    >>> memory = Memory(LangChainTrimState(3))
    >>> memory.add(user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3"), assistant("a3"))
    >>> [m.content for m in memory.stored]
    ['u2', 'a2', 'u3', 'a3']
    """

    name: ClassVar[str] = "langchain-trim-state"
    source: ClassVar[str] = (
        "langchain/agents/factory.py, langchain/agents/middleware/types.py (before_model)"
    )
    superseded: ClassVar[str | None] = None  # the LangGraph hook it replaces is, not this
    use_instead: ClassVar[tuple[str, ...]] = ()
    product: ClassVar[str] = (
        f"LangChain create_agent, @before_model trim with RemoveMessage ({LANGCHAIN_VERSION})"
    )


@dataclass(frozen=True)
class LangChainTrimInput(LangGraphTrimInput):
    """``create_agent`` with a ``@wrap_model_call`` trim: the model gets ``trim_messages(...)``, the thread keeps all.

    An empty trim sends nothing of the thread (the system prompt alone), where
    LangGraph's ``pre_model_hook`` sends the whole thread.

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]
    >>> [m.content for m in LangChainTrimInput(3).window(chat)]
    ['u2', 'a2', 'u3']
    >>> LangChainTrimInput(0).window(chat)  # nothing fits: nothing of the thread is sent
    ()
    """

    name: ClassVar[str] = "langchain-trim-input"
    source: ClassVar[str] = (
        "langchain/agents/factory.py, langchain/agents/middleware/types.py (wrap_model_call)"
    )
    superseded: ClassVar[str | None] = None  # the LangGraph hook it replaces is, not this
    use_instead: ClassVar[tuple[str, ...]] = ()
    product: ClassVar[str] = (
        f"LangChain create_agent, @wrap_model_call trim of the input ({LANGCHAIN_VERSION})"
    )
    accepted_sizes: ClassVar[str] = (
        "a whole number of tokens >= 0 (0 keeps nothing: only the system prompt is sent)"
    )

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return self.trim().load(stored)


@dataclass(frozen=True)
class LangChainContextEditing(_WholeInput):
    """``ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=size, keep=...)])``: old tool results become ``[cleared]``.

    Before every model call, when the thread (system prompt not counted) holds more
    than *size* tokens, every tool result but the newest *keep* is replaced, in the
    model's input only, by *placeholder*, oldest first, as long as the nearest assistant
    message before it made the call it answers. With ``clear_at_least`` > 0 the clearing
    stops once that many tokens were reclaimed. The saved thread keeps the full results.
    LangChain counts with ``count_tokens_approximately`` unless given ``token_counter``;
    here *counter* (words by default) stands for the ``token_counter`` passed.

    >>> from windowmem.messages import user, assistant, tool
    >>> chat = [user("u1"), assistant("", ["c1"]), tool("r1 r1 r1", "c1"), assistant("a1"),
    ...         user("u2"), assistant("", ["c2"]), tool("r2", "c2"), assistant("a2"), user("u3")]
    >>> [m.content for m in LangChainContextEditing(5, keep=1).window(chat)]
    ['u1', '', '[cleared]', 'a1', 'u2', '', 'r2', 'a2', 'u3']
    >>> len(LangChainContextEditing(20, keep=1).window(chat)[2].content)  # 9 words: no trigger
    8
    """

    size: int = CLEAR_TRIGGER
    keep: int = CLEAR_KEEP
    clear_at_least: int = 0
    placeholder: str = CLEARED_PLACEHOLDER
    counter: TokenCounter = count_words

    name: ClassVar[str] = "langchain-context-editing"
    source: ClassVar[str] = "langchain/agents/middleware/context_editing.py"
    product: ClassVar[str] = (
        f"LangChain ContextEditingMiddleware, ClearToolUsesEdit ({LANGCHAIN_VERSION})"
    )
    unit: ClassVar[Unit] = Unit.TOKENS
    default_size: ClassVar[int | None] = CLEAR_TRIGGER
    accepted_sizes: ClassVar[str] = "a whole number of tokens >= 0 (the trigger)"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name)
        check_size(self.keep, policy=f"{self.name} keep")
        check_size(self.clear_at_least, policy=f"{self.name} clear_at_least")
        if not callable(self.counter) or not isinstance(self.placeholder, str):
            raise PolicyError(f"{self.name}: counter must be a function, placeholder a string")

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        """``ClearToolUsesEdit.apply`` on the thread: what the model receives."""
        messages = list(stored)
        tokens = sum(self.counter(m) for m in messages)
        if tokens <= self.size:
            return tuple(messages)
        results = [i for i, m in enumerate(messages) if m.role is Role.TOOL]
        candidates = results[: -self.keep] if self.keep else results
        if self.keep >= len(results):
            candidates = []
        now = tokens
        for index in candidates:
            result = messages[index]
            caller = next((m for m in reversed(messages[:index]) if m.role is Role.ASSISTANT), None)
            if caller is None or result.tool_call_id not in caller.tool_calls:
                continue
            cleared = Message(Role.TOOL, self.placeholder, tool_call_id=result.tool_call_id)
            messages[index] = cleared
            now += self.counter(cleared) - self.counter(result)
            if self.clear_at_least > 0 and max(0, tokens - now) >= self.clear_at_least:
                break
        return tuple(messages)
