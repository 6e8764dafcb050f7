"""One contract, every repository: in-memory, SQLite, PostgreSQL and Redis.

PostgreSQL and Redis run against real servers named by ``WINDOWMEM_POSTGRES_URL`` and
``WINDOWMEM_REDIS_URL`` (``eval "$(bash .ci/services.sh)"`` starts both). Without
them those cases are skipped, saying why; under CI (``CI=true``) a missing or
unreachable server fails the run instead, so a broken service never passes as a skip.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import skip_or_fail
from windowmem.errors import SessionKeyError
from windowmem.messages import Message, Role, assistant, system, tool, user
from windowmem.storage import (
    ChatMemoryRepository,
    InMemoryRepository,
    PostgresRepository,
    RedisRepository,
    SqliteRepository,
    StorageError,
)


def server_url(variable: str, what: str) -> str:
    """The server URL in *variable*; skip without it, or fail under CI."""
    url = os.environ.get(variable, "")
    if not url:
        skip_or_fail(
            f'{variable} is not set: no {what} server to test against (eval "$(bash .ci/services.sh)" starts one)'
        )
    return url


def unreachable(what: str, error: Exception) -> None:
    skip_or_fail(f"{what} server not reachable: {error}")


def open_postgres(prefix: str) -> PostgresRepository:
    url = server_url("WINDOWMEM_POSTGRES_URL", "PostgreSQL")
    try:
        return PostgresRepository(url, prefix=prefix)
    except StorageError as exc:
        unreachable("PostgreSQL", exc)
        raise


def drop_postgres_tables(repository: PostgresRepository) -> None:
    with repository._transaction() as cur:
        for table in ("messages", "conversations", "schema"):
            cur.execute(f"DROP TABLE IF EXISTS {repository.prefix}_{table}")


def open_redis(prefix: str) -> RedisRepository:
    url = server_url("WINDOWMEM_REDIS_URL", "Redis")
    try:
        return RedisRepository(url, prefix=prefix)
    except StorageError as exc:
        unreachable("Redis", exc)
        raise


def drop_redis_keys(repository: RedisRepository) -> None:
    client = repository._client
    for key in client.scan_iter(match=f"{repository.prefix}*"):
        client.delete(key)


@pytest.fixture(
    params=[
        "memory",
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("redis", marks=pytest.mark.redis),
    ]
)
def repository(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ChatMemoryRepository]:
    """A fresh, empty repository of each kind (its own file, tables or key prefix)."""
    # Tests run in parallel against one server: each gets a namespace of its own.
    tag = uuid.uuid4().hex[:12]
    if request.param == "memory":
        yield InMemoryRepository()
    elif request.param == "sqlite":
        repo = SqliteRepository(tmp_path_factory.mktemp("sqlite") / "conversations.db")
        yield repo
        repo.close()
    elif request.param == "postgres":
        repo = open_postgres(f"wm_test_{tag}")
        try:
            yield repo
        finally:
            drop_postgres_tables(repo)
            repo.close()
    else:
        repo = open_redis(f"wm-test-{tag}:")
        try:
            yield repo
        finally:
            drop_redis_keys(repo)
            repo.close()


def contents(messages: list[Message]) -> list[str]:
    return [m.content for m in messages]


def turns(*names: str) -> list[Message]:
    """u1 a1 ... style messages: names starting with u are user messages, others assistant."""
    return [user(n) if n.startswith("u") else assistant(n) for n in names]


# --- the contract ----------------------------------------------------------------------


def test_it_is_a_chat_memory_repository(repository: ChatMemoryRepository) -> None:
    assert isinstance(repository, ChatMemoryRepository)


def test_unknown_ids_read_as_empty(repository: ChatMemoryRepository) -> None:
    assert repository.find_conversation_ids() == []
    assert repository.find_by_conversation_id("nobody") == []
    assert repository.load_tail("nobody", 5) == []
    repository.delete_by_conversation_id("nobody")  # not an error
    assert repository.find_conversation_ids() == []


def test_append_keeps_order_across_calls(repository: ChatMemoryRepository) -> None:
    repository.append("c", turns("u1", "a1"))
    repository.append("c", turns("u2"))
    repository.append("c", [])
    repository.append("c", turns("a2", "u3", "a3"))
    assert contents(repository.find_by_conversation_id("c")) == ["u1", "a1", "u2", "a2", "u3", "a3"]


def test_save_all_replaces_everything(repository: ChatMemoryRepository) -> None:
    repository.append("c", turns("u1", "a1", "u2", "a2"))
    repository.save_all("c", turns("u9"))
    assert contents(repository.find_by_conversation_id("c")) == ["u9"]
    repository.append("c", turns("a9"))
    assert contents(repository.find_by_conversation_id("c")) == ["u9", "a9"]


def test_save_all_of_nothing_removes_the_conversation(repository: ChatMemoryRepository) -> None:
    repository.save_all("c", turns("u1"))
    repository.save_all("c", [])
    assert repository.find_by_conversation_id("c") == []
    assert repository.find_conversation_ids() == []


def test_delete_forgets_one_conversation_only(repository: ChatMemoryRepository) -> None:
    repository.append("keep", turns("u1"))
    repository.append("drop", turns("u2", "a2"))
    repository.delete_by_conversation_id("drop")
    assert repository.find_conversation_ids() == ["keep"]
    assert repository.find_by_conversation_id("drop") == []
    repository.append("drop", turns("u3"))  # a deleted id starts over
    assert contents(repository.find_by_conversation_id("drop")) == ["u3"]


def test_ids_are_listed_sorted_and_kept_apart(repository: ChatMemoryRepository) -> None:
    odd_ids = [
        "user:42",
        "thread:t-9",
        "a b",
        "ñandú",
        "x/y",
        "it's",
        "wf__s__Simple_Memory",
        "user:4",
    ]
    for number, conversation_id in enumerate(odd_ids):
        repository.append(conversation_id, [user(f"m{number}")])
    assert repository.find_conversation_ids() == sorted(odd_ids)
    for number, conversation_id in enumerate(odd_ids):
        assert contents(repository.find_by_conversation_id(conversation_id)) == [f"m{number}"]


@pytest.mark.parametrize(
    "n, expected", [(0, []), (1, ["a3"]), (2, ["u3", "a3"]), (4, ["u2", "a2", "u3", "a3"])]
)
def test_load_tail_is_the_end_of_the_history(
    repository: ChatMemoryRepository, n: int, expected: list[str]
) -> None:
    repository.append("c", turns("u1", "a1", "u2", "a2"))
    repository.append("c", turns("u3", "a3"))
    assert contents(repository.load_tail("c", n)) == expected


def test_load_tail_longer_than_the_history_is_all_of_it(repository: ChatMemoryRepository) -> None:
    repository.append("c", turns("u1", "a1"))
    assert contents(repository.load_tail("c", 100)) == ["u1", "a1"]


@pytest.mark.parametrize("n", [-1, 1.5, "3", None, True])
def test_load_tail_refuses_bad_counts(repository: ChatMemoryRepository, n: object) -> None:
    with pytest.raises(StorageError, match="whole number"):
        repository.load_tail("c", n)  # type: ignore[arg-type]


def test_every_field_survives_the_round_trip(repository: ChatMemoryRepository) -> None:
    history = [
        system("Eres el asistente de soporte de TuTienda."),
        user("Hola, soy Marta: ¿dónde está mi pedido #6023? 🚚"),
        assistant("", tool_calls=["call_7", "call_8"]),
        tool('{"status": "en camino", "eta": "mañana"}', call_id="call_7"),
        tool("你好 — ok", call_id="call_8"),
        assistant("Tu pedido llega mañana.\nGracias 🙏"),
        Message(Role.TOOL, "result without a call id"),
    ]
    repository.save_all("user:marta", history)
    assert repository.find_by_conversation_id("user:marta") == history
    assert repository.load_tail("user:marta", 3) == history[-3:]


@pytest.mark.parametrize("conversation_id", [None, ""])
def test_a_missing_conversation_id_says_what_to_pass(
    repository: ChatMemoryRepository, conversation_id: object
) -> None:
    for operation in (
        lambda: repository.append(conversation_id, turns("u1")),  # type: ignore[arg-type]
        lambda: repository.save_all(conversation_id, turns("u1")),  # type: ignore[arg-type]
        lambda: repository.find_by_conversation_id(conversation_id),  # type: ignore[arg-type]
        lambda: repository.load_tail(conversation_id, 1),  # type: ignore[arg-type]
        lambda: repository.delete_by_conversation_id(conversation_id),  # type: ignore[arg-type]
    ):
        with pytest.raises(SessionKeyError, match="session key"):
            operation()
    assert repository.find_conversation_ids() == []


def test_a_non_text_conversation_id_is_refused(repository: ChatMemoryRepository) -> None:
    with pytest.raises(SessionKeyError, match="int"):
        repository.append(42, turns("u1"))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad",
    [[{"role": "user", "content": "hi"}], "hello", [user("ok"), "not a message"], [user("\ud800")]],
)
def test_bad_messages_are_refused_and_nothing_is_written(
    repository: ChatMemoryRepository, bad: object
) -> None:
    repository.append("c", turns("u1"))
    with pytest.raises(StorageError):
        repository.append("c", bad)  # type: ignore[arg-type]
    with pytest.raises(StorageError):
        repository.save_all("c", bad)  # type: ignore[arg-type]
    assert contents(repository.find_by_conversation_id("c")) == ["u1"]


def test_threads_appending_at_once_lose_nothing(repository: ChatMemoryRepository) -> None:
    writers, batches = 4, 15

    def write(number: int) -> None:
        for batch in range(batches):
            repository.append(
                "shared", [user(f"w{number}-b{batch}-q"), assistant(f"w{number}-b{batch}-a")]
            )

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = contents(repository.find_by_conversation_id("shared"))
    assert len(stored) == writers * batches * 2
    for number in range(writers):
        mine = [text for text in stored if text.startswith(f"w{number}-")]
        assert mine == [f"w{number}-b{b}-{part}" for b in range(batches) for part in ("q", "a")]
    # each batch is contiguous: a question is always followed by its own answer
    for question, answer in zip(stored[::2], stored[1::2]):
        assert question[:-1] == answer[:-1]


def test_update_replaces_with_what_the_change_makes(repository: ChatMemoryRepository) -> None:
    repository.append("c", turns("u1", "a1", "u2"))
    result = repository.update("c", lambda stored: [*stored[-2:], assistant("a2")])
    assert contents(result) == ["a1", "u2", "a2"]
    assert contents(repository.find_by_conversation_id("c")) == ["a1", "u2", "a2"]
    repository.append("c", turns("u3"))  # appends continue after an update
    assert contents(repository.load_tail("c", 2)) == ["a2", "u3"]


def test_update_of_a_new_conversation_starts_from_nothing(repository: ChatMemoryRepository) -> None:
    seen: list[list[Message]] = []
    repository.update("new", lambda stored: seen.append(stored) or turns("u1"))
    assert seen == [[]]
    assert repository.find_conversation_ids() == ["new"]


def test_update_to_nothing_removes_the_conversation(repository: ChatMemoryRepository) -> None:
    repository.append("c", turns("u1"))
    assert repository.update("c", lambda stored: []) == []
    assert repository.find_conversation_ids() == []


def test_a_failing_or_bad_change_leaves_the_conversation_as_it_was(
    repository: ChatMemoryRepository,
) -> None:
    repository.append("c", turns("u1", "a1"))

    def explode(stored: list[Message]) -> list[Message]:
        raise RuntimeError("policy bug")

    with pytest.raises(RuntimeError, match="policy bug"):
        repository.update("c", explode)
    with pytest.raises(StorageError, match="not a Message"):
        repository.update("c", lambda stored: [*stored, "text"])
    assert contents(repository.find_by_conversation_id("c")) == ["u1", "a1"]
    repository.append("c", turns("u2"))  # still usable
    assert contents(repository.find_by_conversation_id("c")) == ["u1", "a1", "u2"]


def test_concurrent_updates_do_not_lose_each_other(repository: ChatMemoryRepository) -> None:
    # Each update reads the list and writes it back one longer: a lost update would show
    # as a shorter list. Appends run at the same time and must survive too.
    workers, rounds = 4, 12

    def grow(number: int) -> None:
        for step in range(rounds):
            repository.update("c", lambda stored: [*stored, user(f"w{number}-{step}")])
            repository.append("c", [assistant(f"w{number}-{step}-append")])

    threads = [threading.Thread(target=grow, args=(n,)) for n in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = contents(repository.find_by_conversation_id("c"))
    assert len(stored) == workers * rounds * 2
    for number in range(workers):
        assert [t for t in stored if t.startswith(f"w{number}-") and not t.endswith("append")] == [
            f"w{number}-{step}" for step in range(rounds)
        ]


# --- round trip of arbitrary messages ----------------------------------------------------

# Any Unicode except lone surrogates (not encodable) and NUL (PostgreSQL text refuses it;
# tested separately below).
storable_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)
storable_messages = st.builds(
    Message,
    role=st.sampled_from(list(Role)),
    content=storable_text,
    tool_calls=st.lists(storable_text, max_size=3).map(tuple),
    tool_call_id=st.none() | storable_text,
)


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(history=st.lists(storable_messages, max_size=8), split=st.integers(0, 8))
def test_any_messages_round_trip_through_append_and_save_all(
    repository: ChatMemoryRepository, history: list[Message], split: int
) -> None:
    repository.save_all("c", history[:split])
    repository.append("c", history[split:])
    assert repository.find_by_conversation_id("c") == history
    assert repository.load_tail("c", 3) == history[-3:]
    repository.save_all("c", history)
    assert repository.find_by_conversation_id("c") == history


def test_nul_characters_are_kept_or_refused_clearly(repository: ChatMemoryRepository) -> None:
    message = user("before\x00after")
    if isinstance(repository, PostgresRepository):
        with pytest.raises(StorageError, match="NUL"):
            repository.append("c", [message])
        assert repository.find_by_conversation_id("c") == []
    else:
        repository.append("c", [message])
        assert repository.find_by_conversation_id("c") == [message]
