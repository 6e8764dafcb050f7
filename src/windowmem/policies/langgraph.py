"""LangGraph thread memory: a checkpointer keeps the whole thread; a hook decides what the model sees.

A LangGraph agent saves its state after every step in a *checkpointer* (``InMemorySaver``,
SQLite, Postgres), keyed by ``thread_id``. For an agent that state is the message list,
grown by the ``add_messages`` reducer, so with nothing else configured every call sends
the whole thread (:class:`LangGraphThread`). A window comes from a hook that runs before
*every* model call (also the one after tool results), on the state that already holds the
new user message (langgraph 1.2.24 with langgraph-prebuilt 1.1.3,
``langgraph/prebuilt/chat_agent_executor.py``, ``_get_model_input_state``):

* :class:`LangGraphTrimInput`: a ``pre_model_hook`` returning ``{"llm_input_messages":
  trim_messages(...)}`` changes only the model's input; the saved thread keeps everything.
  The agent reads ``llm_input_messages or messages``, so a trim that keeps *nothing*
  sends the whole thread instead (an empty list is falsy).
* :class:`LangGraphTrimState`: a hook returning ``{"messages": [RemoveMessage(id=
  REMOVE_ALL_MESSAGES), *trimmed]}`` replaces the saved thread with the trimmed one, so
  what was cut is gone for good.
* :class:`LangChainSummarization`: langchain 1.5.2's ``SummarizationMiddleware``
  (``agents/middleware/summarization.py``) replaces the older part of the thread by one
  summary message once a trigger is reached, keeping the newest ``keep`` messages.

The system prompt (``prompt=`` / ``system_prompt=``) is put in front after the hook and is
never stored. Because the hook sees the new user message, these policies set
``includes_new_message``: the replay asks them for the whole input, new message included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, overload

from windowmem.errors import PolicyError
from windowmem.messages import Message, Role, user
from windowmem.policies.base import Unit, WindowPolicy, check_size
from windowmem.policies.trim_messages import TrimMessages
from windowmem.tokens import TokenCounter, count_words

#: The versions whose source these models follow and whose packages the tests run.
LANGGRAPH_VERSION = "1.2.24"
LANGCHAIN_VERSION = "1.5.2"

#: The trim of LangGraph's "manage conversation history in a ReAct agent" guide (384 tokens
#: of ``count_tokens_approximately``): the newest messages within the budget, starting on a
#: user message and ending on a user or tool message. Our default counter counts words.
GUIDE_START_ON = "human"
GUIDE_END_ON = ("human", "tool")

#: The text SummarizationMiddleware puts before the summary (``_build_new_messages``).
SUMMARY_PREFIX = "Here is a summary of the conversation to date:\n\n"
#: SummarizationMiddleware's default ``keep=("messages", 20)``.
DEFAULT_MESSAGES_TO_KEEP = 20

#: Writes a summary of the messages it is given (stands in for the summarising model).
Summarizer = Callable[[Sequence[Message]], str]


def count_summarised(messages: Sequence[Message]) -> str:
    """A deterministic stand-in for the summarising model: says how much it summarised.

    >>> from windowmem.messages import user, assistant
    >>> count_summarised([user("a"), assistant("b")])
    'summary of 2 messages'
    """
    return f"summary of {len(messages)} messages"


class _Joined(Sequence[Message]):
    """*head* followed by *tail*, without copying either (a load must not copy the thread)."""

    __slots__ = ("head", "tail")

    def __init__(self, head: Sequence[Message], tail: Sequence[Message]) -> None:
        self.head, self.tail = head, tail

    def __len__(self) -> int:
        return len(self.head) + len(self.tail)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...
    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        head = len(self.head)
        return self.head[index] if index < head else self.tail[index - head]

    def __iter__(self) -> Iterator[Message]:
        yield from self.head
        yield from self.tail


class _WholeInput(WindowPolicy):
    """A policy whose hook sees the thread with the new user message already in it."""

    includes_new_message: ClassVar[bool] = True

    def load_with(self, stored: Sequence[Message], new: Sequence[Message]) -> tuple[Message, ...]:
        """What the model receives once *new* (the turn's user message) joins the thread."""
        return self.load(_Joined(stored, new) if new else stored)


@dataclass(frozen=True)
class LangGraphThread(_WholeInput):
    """A LangGraph agent with a checkpointer and no hook: every call sends the whole thread.

    >>> from windowmem.messages import user, assistant
    >>> len(LangGraphThread().window([user("u1"), assistant("a1"), user("u2")]))
    3
    """

    size: int | None = None  # type: ignore[assignment]  # the thread has no window to size

    name: ClassVar[str] = "langgraph"
    source: ClassVar[str] = "langgraph/prebuilt/chat_agent_executor.py (create_react_agent)"
    superseded: ClassVar[str | None] = (
        "create_react_agent deprecated since LangGraph 1.0 (langgraph-prebuilt 1.1.3: moved to "
        "langchain.agents.create_agent, which with no middleware also sends the whole thread)"
    )
    product: ClassVar[str] = f"LangGraph checkpointer thread, no hook ({LANGGRAPH_VERSION})"
    unit: ClassVar[Unit] = Unit.MESSAGES
    default_size: ClassVar[int | None] = None
    accepted_sizes: ClassVar[str] = (
        "no size: the thread has no window (use langgraph-trim-input or langgraph-trim-state)"
    )

    def __post_init__(self) -> None:
        if self.size is not None:
            raise PolicyError(f"{self.name}: a thread has no window size, got {self.size!r}")

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return tuple(stored)


@dataclass(frozen=True)
class LangGraphTrimInput(_WholeInput):
    """``pre_model_hook`` returning ``llm_input_messages=trim_messages(max_tokens=size)``: the saved thread keeps all.

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]
    >>> [m.content for m in LangGraphTrimInput(3).window(chat)]
    ['u2', 'a2', 'u3']
    >>> len(LangGraphTrimInput(0).window(chat))  # nothing fits: the whole thread is sent
    5
    """

    size: int = 384
    counter: TokenCounter = count_words
    start_on: str | tuple[str, ...] | None = GUIDE_START_ON
    end_on: str | tuple[str, ...] | None = GUIDE_END_ON
    include_system: bool = False

    name: ClassVar[str] = "langgraph-trim-input"
    source: ClassVar[str] = "langgraph/prebuilt/chat_agent_executor.py (_get_model_input_state)"
    superseded: ClassVar[str | None] = (
        "create_react_agent and pre_model_hook deprecated since LangGraph 1.0 (langgraph-prebuilt 1.1.3)"
    )
    use_instead: ClassVar[tuple[str, ...]] = ("langchain-trim-input",)
    product: ClassVar[str] = f"LangGraph pre_model_hook, llm_input_messages ({LANGGRAPH_VERSION})"
    unit: ClassVar[Unit] = Unit.TOKENS
    #: The budget of LangGraph's guide; trim_messages itself has no default.
    default_size: ClassVar[int | None] = 384
    accepted_sizes: ClassVar[str] = (
        "a whole number of tokens >= 0 (0 keeps nothing, so all is sent)"
    )

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name)
        self.trim()  # fails now on a bad counter or role name

    def trim(self) -> TrimMessages:
        """The ``trim_messages`` call the hook makes."""
        return TrimMessages(
            self.size,
            counter=self.counter,
            include_system=self.include_system,
            start_on=self.start_on,
            end_on=self.end_on,
        )

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return self.trim().load(stored) or tuple(stored)


@dataclass(frozen=True)
class LangGraphTrimState(LangGraphTrimInput):
    """A hook returning ``messages=[RemoveMessage(REMOVE_ALL_MESSAGES), *trimmed]``: the saved thread is cut.

    The hook runs before every model call, so the thread is cut just before each
    assistant message is saved; what the model receives is the trimmed thread.

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3"), assistant("a3")]
    >>> from windowmem.policies.base import Memory
    >>> memory = Memory(LangGraphTrimState(3))
    >>> memory.add(*chat)
    >>> [m.content for m in memory.stored]  # cut to 3 words before a3 was written
    ['u2', 'a2', 'u3', 'a3']
    """

    name: ClassVar[str] = "langgraph-trim-state"
    source: ClassVar[str] = "langgraph/prebuilt/chat_agent_executor.py (pre_model_hook)"
    use_instead: ClassVar[tuple[str, ...]] = ("langchain-trim-state",)
    product: ClassVar[str] = f"LangGraph pre_model_hook, RemoveMessage ({LANGGRAPH_VERSION})"
    trims_on_write: ClassVar[bool] = True
    accepted_sizes: ClassVar[str] = "a whole number of tokens >= 0 (0 empties the thread)"

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return self.trim().load(stored)

    def write(self, stored: Sequence[Message], added: Sequence[Message]) -> tuple[Message, ...]:
        thread = tuple(stored)
        for message in added:
            if message.role is Role.ASSISTANT:  # the hook ran before the call that wrote it
                thread = self.load(thread)
            thread = (*thread, message)
        return thread


@dataclass(frozen=True)
class LangChainSummarization(_WholeInput):
    """langchain ``SummarizationMiddleware(trigger=..., keep=("messages", size))``: old messages become one summary.

    Before each model call: when the thread reaches ``trigger_messages`` messages and/or
    ``trigger_tokens`` tokens (both, if both are set: one clause), everything before the
    newest *size* messages (or tokens, with ``keep_tokens``) is replaced by one user
    message, ``"Here is a summary of the conversation to date:\\n\\n" + summary``. The cut
    moves back to the assistant message whose tool calls the first kept tool results
    answer, so a call stays with its results. LangChain's own default trigger is None,
    which never summarises; 4000 tokens here is the example of LangChain's
    context-engineering guide (``trigger={"tokens": 4000}, keep={"messages": 20}``).

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]
    >>> policy = LangChainSummarization(2, trigger_tokens=None, trigger_messages=5)
    >>> [m.content for m in policy.window(chat)][1:], policy.window(chat)[0].content[-21:]
    (['a2', 'u3'], 'summary of 3 messages')
    """

    size: int = DEFAULT_MESSAGES_TO_KEEP
    trigger_tokens: int | None = 4000
    trigger_messages: int | None = None
    keep_tokens: bool = False
    counter: TokenCounter = count_words
    summarizer: Summarizer = count_summarised

    name: ClassVar[str] = "langchain-summarization"
    source: ClassVar[str] = "langchain/agents/middleware/summarization.py"
    product: ClassVar[str] = f"LangChain SummarizationMiddleware ({LANGCHAIN_VERSION})"
    unit: ClassVar[Unit] = Unit.MESSAGES
    default_size: ClassVar[int | None] = DEFAULT_MESSAGES_TO_KEEP
    trims_on_write: ClassVar[bool] = True
    accepted_sizes: ClassVar[str] = "a whole number of messages (or tokens, keep_tokens) >= 1"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name, allow_zero=False)
        for option in ("trigger_tokens", "trigger_messages"):
            value = getattr(self, option)
            if value is not None:
                check_size(value, policy=f"{self.name} {option}", allow_zero=False)
        if not callable(self.counter) or not callable(self.summarizer):
            raise PolicyError(f"{self.name}: counter and summarizer must be functions")

    def _tokens(self, messages: Sequence[Message]) -> int:
        return sum(self.counter(m) for m in messages)

    def triggered(self, thread: Sequence[Message]) -> bool:
        """``_should_summarize``: every threshold set in the clause is reached."""
        if self.trigger_tokens is None and self.trigger_messages is None:
            return False
        if self.trigger_messages is not None and len(thread) < self.trigger_messages:
            return False
        return self.trigger_tokens is None or self._tokens(thread) >= self.trigger_tokens

    def cutoff(self, thread: Sequence[Message]) -> int:
        """``_determine_cutoff_index``: how many of the oldest messages are summarised."""
        if not self.keep_tokens:
            if len(thread) <= self.size:
                return 0
            return _safe_cutoff(thread, len(thread) - self.size)
        if not thread or self._tokens(thread) <= self.size:
            return 0
        # The earliest start whose suffix fits (the middleware's binary search finds it).
        start, total = len(thread), 0
        while start > 0 and total + self.counter(thread[start - 1]) <= self.size:
            start -= 1
            total += self.counter(thread[start])
        if start >= len(thread):
            if len(thread) == 1:
                return 0
            start = len(thread) - 1
        return _safe_cutoff(thread, start)

    def summarised(self, thread: Sequence[Message]) -> tuple[Message, ...]:
        """The thread after one ``before_model``: unchanged, or the summary and the kept messages."""
        if not self.triggered(thread):
            return tuple(thread)
        cut = self.cutoff(thread)
        if cut <= 0:
            return tuple(thread)
        summary = user(SUMMARY_PREFIX + self.summarizer(thread[:cut]).strip())
        return (summary, *thread[cut:])

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return self.summarised(stored)

    def write(self, stored: Sequence[Message], added: Sequence[Message]) -> tuple[Message, ...]:
        thread = tuple(stored)
        for message in added:
            if message.role is Role.ASSISTANT:  # before_model ran before the call that wrote it
                thread = self.summarised(thread)
            thread = (*thread, message)
        return thread


def _safe_cutoff(thread: Sequence[Message], cut: int) -> int:
    """``_find_safe_cutoff_point``: a cut on tool results moves back to the call that asked for them."""
    if cut >= len(thread) or thread[cut].role is not Role.TOOL:
        return cut
    answered: set[str] = set()
    end = cut
    while end < len(thread) and thread[end].role is Role.TOOL:
        call_id = thread[end].tool_call_id
        if call_id:
            answered.add(call_id)
        end += 1
    for index in range(cut - 1, -1, -1):
        message = thread[index]
        if message.calls_tool and answered & set(message.tool_calls):
            return index
    return end
