"""WindowedChatMemory: a policy over a repository behaves as the policy alone, and stores what it should."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import conversations, message_lists
from windowmem.chat_memory import WindowedChatMemory, tail_needed
from windowmem.errors import SessionKeyError
from windowmem.messages import Message, assistant, system, user
from windowmem.policies import POLICIES, Memory, N8nSimpleMemory, SpringAiMessageWindow, make_policy
from windowmem.storage import InMemoryRepository, SqliteRepository

#: Window sizes each registered policy accepts, small enough that windows really cut.
SIZES: dict[str, st.SearchStrategy[Any]] = {
    "n8n": st.integers(0, 8),
    "langchain-js": st.integers(-4, 8)
    | st.floats(-4, 8, allow_nan=False).map(lambda k: round(k, 2)),
    "langchain-py": st.integers(-3, 8),
    "trim-messages": st.integers(0, 30),
    "spring-ai": st.integers(1, 12),
    "spring-ai-1x": st.integers(1, 12),
    "llamaindex": st.integers(1, 40),
    "semantic-kernel": st.integers(1, 12),
    "tensorify": st.integers(1, 12),
    "openai-agents": st.none() | st.integers(-2, 12),
    "langgraph": st.none(),
    "langgraph-trim-input": st.integers(0, 30),
    "langgraph-trim-state": st.integers(0, 30),
    "langchain-summarization": st.integers(1, 12),
    "langchain-trim-input": st.integers(0, 30),
    "langchain-trim-state": st.integers(0, 30),
    "langchain-context-editing": st.integers(0, 30),
    "llamaindex-memory": st.integers(1, 40),
    "agent-framework-truncation": st.integers(1, 12),
    "agent-framework-summarization": st.integers(1, 12),
}

EXAMPLE_IDS = itertools.count()

PROPERTY = settings(
    max_examples=200, deadline=None, database=None, derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)  # fmt: skip


def test_every_registered_policy_has_sizes_to_test() -> None:
    assert set(SIZES) == set(POLICIES), "add a size strategy for each new policy"


@st.composite
def policies(draw: st.DrawFn, *, load_windowed_only: bool = False) -> Any:
    names = [n for n, cls in POLICIES.items() if not (load_windowed_only and cls.trims_on_write)]
    name = draw(st.sampled_from(sorted(names)))
    return make_policy(name, draw(SIZES[name]))


@st.composite
def batches(draw: st.DrawFn) -> list[list[Message]]:
    """A conversation cut into add() calls of one to four messages."""
    messages = list(draw(conversations(max_turns=8) | message_lists(max_size=20)))
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(messages) - 1)), max_size=len(messages))))
    bounds = [0, *[c for c in cuts if c < len(messages)], len(messages)]
    return [messages[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


# --- tail_needed: reading only the tail gives the same window -------------------------------


@PROPERTY
@given(
    policy=policies(load_windowed_only=True),
    stored=conversations(max_turns=10) | message_lists(max_size=30),
)
def test_loading_the_tail_gives_the_same_window_as_loading_everything(
    policy: Any, stored: Sequence[Message]
) -> None:
    bound = tail_needed(policy)
    tail = stored if bound is None else stored[len(stored) - min(bound, len(stored)) :]
    assert policy.load(tail) == policy.load(stored)


@pytest.mark.parametrize(
    "policy, bound",
    [
        (make_policy("n8n", 5), 10),
        (make_policy("n8n", 0), None),  # k = 0 loads every message
        (make_policy("langchain-js", 1.5), 3),
        (make_policy("langchain-js", 0.25), None),  # slice(-0.5) is slice(0): everything
        (make_policy("langchain-js", -1), None),  # drops from the front: needs it all
        (make_policy("langchain-py", 3), 6),
        (make_policy("langchain-py", 0), 0),  # k <= 0 loads nothing
        (make_policy("tensorify", 20), 20),
        (make_policy("llamaindex", 3000), None),  # tokens: no message bound
        (make_policy("trim-messages", 100), None),
    ],
)
def test_tail_bounds(policy: Any, bound: int | None) -> None:
    assert tail_needed(policy) == bound


def test_a_policy_may_state_its_own_bound() -> None:
    class Declares(N8nSimpleMemory):
        def tail_needed(self) -> int:
            return 3

    assert tail_needed(Declares(5)) == 3


# --- the composition behaves as the policy alone ------------------------------------------


@pytest.fixture(params=["memory", "sqlite"])
def repository(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """One store per test; property examples share it, each under a conversation id of its own."""
    if request.param == "memory":
        yield InMemoryRepository()
    else:
        with SqliteRepository(tmp_path / "chat.db", durable=False) as repo:
            yield repo


@PROPERTY
@given(policy=policies(), adds=batches())
def test_get_equals_the_policy_applied_to_the_same_adds(
    repository: Any, policy: Any, adds: list
) -> None:
    conversation_id = f"c{next(EXAMPLE_IDS)}"
    chat = WindowedChatMemory(policy, repository)
    reference = Memory(policy)  # the core's in-process session: the definition of the window
    for batch in adds:
        chat.add(conversation_id, batch)
        reference.add(*batch)
        assert chat.get(conversation_id) == list(reference.load())
    assert chat.stored(conversation_id) == list(reference.stored)


def seven_turns() -> list[tuple[Message, Message]]:
    return [(user(f"u{t}"), assistant(f"a{t}")) for t in range(1, 8)]


def test_n8n_seed_example_k5_seven_turns(repository: Any) -> None:
    chat = WindowedChatMemory(N8nSimpleMemory(5), repository)
    turns = seven_turns()
    for question, answer in turns[:6]:
        chat.add("chat-marta", [question, answer])
    # at the start of turn 7 the model sees turns 2 to 6
    assert [m.content for m in chat.get("chat-marta")] == [
        f"{r}{t}" for t in range(2, 7) for r in "ua"
    ]
    chat.add("chat-marta", list(turns[6]))
    assert [m.content for m in chat.get("chat-marta")] == [
        f"{r}{t}" for t in range(3, 8) for r in "ua"
    ]
    assert len(chat.stored("chat-marta")) == 14  # n8n stores every message


def test_spring_ai_trims_what_it_stores(repository: Any) -> None:
    chat = WindowedChatMemory(SpringAiMessageWindow(3), repository)
    chat.add("c", [system("S"), user("U1"), assistant("A1")])
    chat.add("c", [user("U2"), assistant("A2")])
    expected = ["S", "U2", "A2"]  # peers.md, Spring AI 2.0.1
    assert [m.content for m in chat.get("c")] == expected
    assert [m.content for m in chat.stored("c")] == expected


def test_conversations_do_not_mix(repository: Any) -> None:
    chat = WindowedChatMemory(N8nSimpleMemory(5), repository)
    chat.add("user:marta", [user("Soy Marta, pedido #6023")])
    chat.add("user:luis", [user("I'm Luis")])
    assert [m.content for m in chat.get("user:marta")] == ["Soy Marta, pedido #6023"]
    assert [m.content for m in chat.get("user:luis")] == ["I'm Luis"]


def test_clear_forgets_the_conversation(repository: Any) -> None:
    chat = WindowedChatMemory(N8nSimpleMemory(5), repository)
    chat.add("c", user("hi"))  # a single message is accepted too
    chat.clear("c")
    assert chat.get("c") == [] and chat.stored("c") == []


def test_the_window_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "agent.db"
    with SqliteRepository(path) as repo:
        chat = WindowedChatMemory(N8nSimpleMemory(2), repo)
        for question, answer in seven_turns()[:3]:
            chat.add("c", [question, answer])
        before = chat.get("c")
    with SqliteRepository(path) as repo:
        assert WindowedChatMemory(N8nSimpleMemory(2), repo).get("c") == before
        assert [m.content for m in before] == ["u2", "a2", "u3", "a3"]


# --- which repository operations are used ---------------------------------------------------


class Recording(InMemoryRepository):
    """An in-memory repository that records the operations called on it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, Any]] = []

    def append(self, conversation_id: str, messages: Sequence[Message]) -> None:
        self.calls.append(("append", len(messages)))
        super().append(conversation_id, messages)

    def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        self.calls.append(("save_all", len(messages)))
        super().save_all(conversation_id, messages)

    def update(self, conversation_id: str, change: Any) -> list[Message]:
        stored = super().update(conversation_id, change)
        self.calls.append(("update", len(stored)))
        return stored

    def load_tail(self, conversation_id: str, n: int) -> list[Message]:
        self.calls.append(("load_tail", n))
        return super().load_tail(conversation_id, n)

    def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        self.calls.append(("find", None))
        return super().find_by_conversation_id(conversation_id)


def test_a_load_windowed_policy_appends_and_reads_only_its_tail() -> None:
    repo = Recording()
    chat = WindowedChatMemory(N8nSimpleMemory(5), repo)
    for question, answer in seven_turns():
        chat.add("c", [question, answer])
    chat.get("c")
    assert repo.calls == [("append", 2)] * 7 + [("load_tail", 10)]


def test_a_write_windowed_policy_rewrites_the_trimmed_window() -> None:
    repo = Recording()
    chat = WindowedChatMemory(SpringAiMessageWindow(4), repo)
    for question, answer in seven_turns()[:3]:
        chat.add("c", [question, answer])
    # each add is one atomic update: read the stored window, trim it with the new pair, replace it
    assert repo.calls == [("update", 2), ("update", 4), ("update", 4)]


def test_a_token_window_reads_everything() -> None:
    repo = Recording()
    chat = WindowedChatMemory(make_policy("llamaindex", 50), repo)
    chat.add("c", [user("hello there")])
    chat.get("c")
    assert repo.calls == [("append", 1), ("find", None)]


# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize("conversation_id", [None, ""])
def test_a_missing_conversation_id_says_what_to_pass(conversation_id: Any) -> None:
    chat = WindowedChatMemory(N8nSimpleMemory(5), InMemoryRepository())
    for operation in (
        lambda: chat.add(conversation_id, [user("hi")]),
        lambda: chat.get(conversation_id),
        lambda: chat.clear(conversation_id),
    ):
        with pytest.raises(SessionKeyError, match="pass the session key"):
            operation()


def test_it_needs_a_policy_and_a_repository() -> None:
    with pytest.raises(TypeError, match="WindowPolicy"):
        WindowedChatMemory("n8n", InMemoryRepository())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a ChatMemoryRepository"):
        WindowedChatMemory(N8nSimpleMemory(5), {})  # type: ignore[arg-type]
