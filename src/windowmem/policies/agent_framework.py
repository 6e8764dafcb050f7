"""Microsoft Agent Framework (Python): compaction strategies cut the model's input, in whole groups.

Semantic Kernel is in maintenance mode; its successor, ``agent-framework-core`` 1.23.0,
has no "chat reducers" in Python. Its counterparts are *compaction strategies*
(``agent_framework/_compaction.py``), given as ``Agent(..., compaction_strategy=...)``
and applied before every model call (``BaseChatClient._prepare_messages_for_model_call``
-> ``apply_compaction``) to the loaded history plus the run's new messages. The stored
history (``InMemoryHistoryProvider``) is not cut: excluded messages are flagged, not
deleted, and the model receives only those not flagged.

A strategy never splits a *group* (``group_messages``): a system message, a user message
or an assistant text is a group of its own; an assistant message calling tools and the
tool results right after it are one group, and so is a run of tool results, joined to the
call they answer when it is found unambiguously earlier (``_link_tool_call_result_spans``).

:class:`AgentFrameworkTruncation` models ``TruncationStrategy(max_n=size, compact_to=...)``
without a tokenizer, which counts messages; :class:`AgentFrameworkSummarization` models
``SummarizationStrategy(client=..., target_count=size, threshold=...)``. The agent's ``instructions`` are sent beside
the messages, never stored, like the system prompt elsewhere in this library.

Seen in a run and *not* modelled: exclusion flags set during a run's later calls (after
tool results) stay on the messages the run stored, so those messages are never sent again
and no longer count towards ``max_n``; loaded history and the user's input are copies, so
their flags are not kept. The model recomputes each call from scratch, which is exact for
every call whose history holds no message flagged in an earlier run's tool loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from windowmem.errors import PolicyError
from windowmem.messages import Message, Role
from windowmem.policies.base import Unit, check_size
from windowmem.policies.langgraph import _WholeInput, count_summarised

AGENT_FRAMEWORK_VERSION = "1.23.0"
#: ``SummarizationStrategy`` defaults: ``target_count=4``, ``threshold=2``.
SUMMARY_TARGET = 4
SUMMARY_THRESHOLD = 2

#: Writes a summary of the messages it is given (stands in for the summarising client).
Summarizer = Callable[[Sequence[Message]], str]


@dataclass(frozen=True, slots=True)
class Group:
    """One compaction group: its kind (``system``, ``user``, ``assistant_text``, ``tool_call``)
    and the indices of its messages."""

    kind: str
    indices: tuple[int, ...]


def _spans(messages: Sequence[Message]) -> list[tuple[str, int, int]]:
    """``group_messages`` before linking: (kind, first index, last index) of each span."""
    spans: list[tuple[str, int, int]] = []
    index = 0
    while index < len(messages):
        message = messages[index]
        if message.role in (Role.SYSTEM, Role.USER):
            spans.append((message.role.value, index, index))
            index += 1
            continue
        if (message.role is Role.ASSISTANT and message.tool_calls) or message.role is Role.TOOL:
            end = index + 1
            while end < len(messages) and messages[end].role is Role.TOOL:
                end += 1
            spans.append(("tool_call", index, end - 1))
            index = end
            continue
        spans.append(("assistant_text", index, index))
        index += 1
    return spans


def _call_result_pairs(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """``_unambiguous_tool_call_result_pairs``: (call index, result index) for each result
    whose call id was asked exactly once, earlier, and not yet answered."""
    open_calls: dict[str, list[int]] = {}
    pairs = []
    for index, message in enumerate(messages):
        if message.role is Role.ASSISTANT:
            for call in message.tool_calls:
                open_calls.setdefault(call, []).append(index)
        elif message.role is Role.TOOL and message.tool_call_id:
            candidates = open_calls.get(message.tool_call_id)
            if candidates is not None and len(candidates) == 1:
                pairs.append((candidates.pop(), index))
    return pairs


def message_groups(messages: Sequence[Message]) -> tuple[Group, ...]:
    """``group_messages``: the groups of *messages*, in order of their first message.

    >>> from windowmem.messages import user, assistant, tool
    >>> chat = [user("u1"), assistant("", ["c1"]), tool("r1", "c1"), assistant("a1")]
    >>> [(g.kind, g.indices) for g in message_groups(chat)]
    [('user', (0,)), ('tool_call', (1, 2)), ('assistant_text', (3,))]
    """
    spans = _spans(messages)
    span_of = {i: s for s, (_, first, last) in enumerate(spans) for i in range(first, last + 1)}
    parent = list(range(len(spans)))

    def root(span: int) -> int:
        while parent[span] != span:
            span = parent[span]
        return span

    for call, result in _call_result_pairs(messages):
        early, late = root(span_of[call]), root(span_of[result])
        if span_of[call] < span_of[result] and early != late:
            parent[max(early, late)] = min(early, late)
    members: dict[int, list[int]] = {}
    for index in range(len(messages)):
        members.setdefault(root(span_of[index]), []).append(index)
    return tuple(Group(spans[r][0], tuple(indices)) for r, indices in members.items())


def agent_message_count(messages: Sequence[Message], indices: Sequence[int] | None = None) -> int:
    """How many messages an ``Agent``'s history holds for *messages* (those at *indices*):
    the results of one round of tool calls are one ``tool`` message there, one content each.

    The function-invocation layer answers a model message that asks for two tools with one
    tool message carrying both results (seen running 1.23.0); this library keeps a message
    per result, so a run of consecutive results counts once.

    >>> from windowmem.messages import user, assistant, tool
    >>> chat = [user("u1"), assistant("", ["c1", "c2"]), tool("r1", "c1"), tool("r2", "c2")]
    >>> agent_message_count(chat), len(chat)
    (3, 4)
    """
    chosen = range(len(messages)) if indices is None else indices
    return sum(
        1
        for i in chosen
        if not (messages[i].role is Role.TOOL and i > 0 and messages[i - 1].role is Role.TOOL)
    )


def truncate(
    messages: Sequence[Message],
    max_n: int,
    compact_to: int,
    *,
    preserve_system: bool = True,
    preserve_first_user_group: bool = False,
    one_message_per_round: bool = False,
) -> tuple[Message, ...]:
    """``TruncationStrategy`` counting messages, on a list with nothing flagged yet.

    Over *max_n* messages, whole groups are dropped oldest first until at most
    *compact_to* are left; protected are system groups (*preserve_system*), the first
    user group (*preserve_first_user_group*) and the newest non-system group. With
    *one_message_per_round*, consecutive tool results count as the one message an
    ``Agent`` stores them in (:func:`agent_message_count`).

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]
    >>> [m.content for m in truncate(chat, 4, 2)], len(truncate(chat, 5, 2))
    (['a2', 'u3'], 5)
    """

    def size(indices: Sequence[int] | None = None) -> int:
        if one_message_per_round:
            return agent_message_count(messages, indices)
        return len(messages) if indices is None else len(indices)

    count = size()
    if count <= max_n:
        return tuple(messages)
    groups = message_groups(messages)
    protected = {g for g, group in enumerate(groups) if preserve_system and group.kind == "system"}
    if preserve_first_user_group:
        protected.update(next(([g] for g, group in enumerate(groups) if group.kind == "user"), []))
    non_system = [g for g, group in enumerate(groups) if group.kind != "system"]
    protected.add(non_system[-1] if non_system else len(groups) - 1)
    dropped: set[int] = set()
    for g, group in enumerate(groups):
        if count <= compact_to:
            break
        if g in protected:
            continue
        dropped.update(group.indices)
        count -= size(group.indices)
    return tuple(m for i, m in enumerate(messages) if i not in dropped)


@dataclass(frozen=True)
class AgentFrameworkTruncation(_WholeInput):
    """Agent Framework ``compaction_strategy=TruncationStrategy(max_n=size, compact_to=...)``: whole groups cut from the input.

    Before every model call, when history plus the new messages hold more than *size*
    messages, the oldest groups are left out until at most ``compact_to`` (default:
    *size*) remain. Both are required in the real class: 20 here is a chosen size. The
    results of one round of tool calls are counted as the one message an ``Agent`` stores
    them in (*one_message_per_round*; False counts a message per result, as
    ``apply_compaction`` does on a list given that way).

    >>> from windowmem.messages import user, assistant, tool
    >>> chat = [user("u1"), assistant("", ["c1"]), tool("r1", "c1"), assistant("a1"), user("u2")]
    >>> [m.content for m in AgentFrameworkTruncation(3).window(chat)]  # the call keeps its result
    ['a1', 'u2']
    """

    size: int = 20
    compact_to: int | None = None
    preserve_system: bool = True
    preserve_first_user_group: bool = False
    one_message_per_round: bool = True

    name: ClassVar[str] = "agent-framework-truncation"
    source: ClassVar[str] = (
        "agent_framework/_compaction.py (TruncationStrategy), agent_framework/_tools.py"
    )
    product: ClassVar[str] = (
        f"Microsoft Agent Framework TruncationStrategy, messages ({AGENT_FRAMEWORK_VERSION})"
    )
    unit: ClassVar[Unit] = Unit.MESSAGES
    default_size: ClassVar[int | None] = 20
    accepted_sizes: ClassVar[str] = "a whole number of messages >= 1 (max_n; compact_to <= max_n)"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name, allow_zero=False)
        if self.compact_to is not None:
            check_size(self.compact_to, policy=f"{self.name} compact_to", allow_zero=False)
            if self.compact_to > self.size:
                raise PolicyError(f"{self.name}: compact_to must be <= max_n ({self.size})")

    @property
    def target(self) -> int:
        """``compact_to``: how many messages a cut leaves at most (protected groups aside)."""
        return self.size if self.compact_to is None else self.compact_to

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return truncate(
            stored,
            self.size,
            self.target,
            preserve_system=self.preserve_system,
            preserve_first_user_group=self.preserve_first_user_group,
            one_message_per_round=self.one_message_per_round,
        )


def summarise(
    messages: Sequence[Message],
    target: int,
    threshold: int,
    summarizer: Summarizer = count_summarised,
    *,
    one_message_per_round: bool = False,
) -> tuple[Message, ...]:
    """``SummarizationStrategy`` on a list with nothing flagged yet (no input budget).

    Over *target* + *threshold* non-system messages, the newest groups holding at least
    *target* messages are kept; the older non-system groups are replaced, where the first
    of them began, by one assistant message, the summarizer's text stripped. An empty
    summary changes nothing.

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]
    >>> [m.content for m in summarise(chat, 2, 0)]
    ['summary of 3 messages', 'a2', 'u3']
    """

    def size(indices: Sequence[int]) -> int:
        if one_message_per_round:
            return agent_message_count(messages, indices)
        return len(indices)

    groups = [g for g in message_groups(messages) if g.kind != "system"]
    if sum(size(g.indices) for g in groups) <= target + threshold:
        return tuple(messages)
    kept, retained = 0, 0
    for group in reversed(groups):
        if retained >= target and kept:
            break
        kept += 1
        retained += size(group.indices)
    older = groups[: len(groups) - kept]
    if not older:
        return tuple(messages)
    text = summarizer([messages[i] for g in older for i in g.indices]).strip()
    if not text:
        return tuple(messages)
    at = min(min(g.indices) for g in older)
    dropped = {i for g in older for i in g.indices}
    out: list[Message] = []
    for index, message in enumerate(messages):
        if index == at:
            out.append(Message(Role.ASSISTANT, text))
        if index not in dropped:
            out.append(message)
    return tuple(out)


@dataclass(frozen=True)
class AgentFrameworkSummarization(_WholeInput):
    """Agent Framework ``compaction_strategy=SummarizationStrategy(target_count=size)``: older groups become one summary.

    Before every model call, when history plus the new messages hold more than
    ``size + threshold`` non-system messages, the older groups are replaced by one
    assistant message holding the summarising client's text. The summary is not
    stored: in 1.23.0 the next turn starts again from the full history, so once a chat
    is past the trigger the summarising client is called before every turn's first call.
    The real class also caps the summariser's input at ``max_summary_input_tokens``
    (8000 estimated tokens, 4 characters each, prompt included); this model takes every
    older group, as the real one does with ``max_summary_input_tokens=None`` or while
    they fit. A round's tool results count as one message (*one_message_per_round*), as
    in :class:`AgentFrameworkTruncation`.

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]
    >>> [m.content for m in AgentFrameworkSummarization(2, threshold=0).window(chat)]
    ['summary of 3 messages', 'a2', 'u3']
    """

    size: int = SUMMARY_TARGET
    threshold: int = SUMMARY_THRESHOLD
    summarizer: Summarizer = count_summarised
    one_message_per_round: bool = True

    name: ClassVar[str] = "agent-framework-summarization"
    source: ClassVar[str] = "agent_framework/_compaction.py (SummarizationStrategy)"
    product: ClassVar[str] = (
        f"Microsoft Agent Framework SummarizationStrategy ({AGENT_FRAMEWORK_VERSION})"
    )
    unit: ClassVar[Unit] = Unit.MESSAGES
    default_size: ClassVar[int | None] = SUMMARY_TARGET
    accepted_sizes: ClassVar[str] = "a whole number of messages >= 1 (target_count)"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name, allow_zero=False)
        check_size(self.threshold, policy=f"{self.name} threshold")
        if not callable(self.summarizer):
            raise PolicyError(f"{self.name}: summarizer must be a function of the messages")

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return summarise(
            stored,
            self.size,
            self.threshold,
            self.summarizer,
            one_message_per_round=self.one_message_per_round,
        )
