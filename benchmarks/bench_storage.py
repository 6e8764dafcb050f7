"""How storage costs grow with a conversation's length, for every repository.

For histories of 100, 1,000 and 10,000 messages it times one ``append`` of a turn
(2 messages), one ``load_tail`` of 10 messages (what n8n's default window reads), a
full ``find_by_conversation_id``, and one agent turn through ``WindowedChatMemory``
(n8n, k = 5: add the turn, get the window). Append and tail should stay flat as the
history grows; the full read grows with it. PostgreSQL and Redis are included when
``WINDOWMEM_POSTGRES_URL`` / ``WINDOWMEM_REDIS_URL`` are set. Prints figures; asserts nothing:

    eval "$(bash .ci/services.sh)"; .venv/bin/python benchmarks/bench_storage.py
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from windowmem.chat_memory import WindowedChatMemory
from windowmem.messages import Message, assistant, user
from windowmem.policies import N8nSimpleMemory
from windowmem.storage import (
    ChatMemoryRepository,
    InMemoryRepository,
    PostgresRepository,
    RedisRepository,
    SqliteRepository,
)

#: The one seed for this benchmark's message texts.
SEED = 20261130
LENGTHS = (100, 1_000, 10_000)
REPEATS = 50
WORDS = (
    "pedido",
    "order",
    "refund",
    "empanadas",
    "Marta",
    "envío",
    "size",
    "tracking",
    "Medellín",
    "hoy",
)


def texts(rng: random.Random) -> Iterator[str]:
    while True:
        yield " ".join(rng.choices(WORDS, k=rng.randint(3, 25)))


def history(length: int, rng: random.Random) -> list[Message]:
    words = texts(rng)
    return [user(next(words)) if i % 2 == 0 else assistant(next(words)) for i in range(length)]


def median_microseconds(operation: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        operation()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def backends(
    folder: Path,
) -> Iterator[
    tuple[str, Callable[[], ChatMemoryRepository], Callable[[ChatMemoryRepository], None]]
]:
    yield "memory", InMemoryRepository, lambda repo: None
    yield (
        "sqlite (durable)",
        lambda: SqliteRepository(folder / "durable.db"),
        lambda repo: repo.close(),
    )
    yield (
        "sqlite (normal)",
        lambda: SqliteRepository(folder / "normal.db", durable=False),
        lambda repo: repo.close(),
    )
    tag = uuid.uuid4().hex[:8]
    if os.environ.get("WINDOWMEM_POSTGRES_URL"):

        def drop(repo: PostgresRepository) -> None:
            with repo._transaction() as cur:
                for table in ("messages", "conversations", "schema"):
                    cur.execute(f"DROP TABLE IF EXISTS {repo.prefix}_{table}")
            repo.close()

        yield (
            "postgres",
            lambda: PostgresRepository(
                os.environ["WINDOWMEM_POSTGRES_URL"], prefix=f"wm_bench_{tag}"
            ),
            drop,
        )
    if os.environ.get("WINDOWMEM_REDIS_URL"):

        def flush(repo: RedisRepository) -> None:
            for key in repo._client.scan_iter(match=f"{repo.prefix}*"):
                repo._client.delete(key)
            repo.close()

        yield (
            "redis",
            lambda: RedisRepository(os.environ["WINDOWMEM_REDIS_URL"], prefix=f"wm-bench-{tag}:"),
            flush,
        )


def main() -> None:
    rng = random.Random(SEED)
    turn = [user("¿Dónde está mi pedido #6023?"), assistant("Llega mañana.")]
    print(f"median of {REPEATS} runs, microseconds; seed {SEED}")
    print(
        f"{'repository':<18}{'history':>8}{'append 2':>10}{'tail 10':>10}{'read all':>10}{'agent turn':>12}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for name, open_repo, close_repo in backends(Path(folder)):
            repo = open_repo()
            try:
                for length in LENGTHS:
                    conversation = f"bench-{length}"
                    repo.save_all(conversation, history(length, rng))
                    append = median_microseconds(lambda: repo.append(conversation, turn))
                    tail = median_microseconds(lambda: repo.load_tail(conversation, 10))
                    full = median_microseconds(
                        lambda: repo.find_by_conversation_id(conversation), repeats=5
                    )
                    chat = WindowedChatMemory(N8nSimpleMemory(5), repo)
                    agent_turn = median_microseconds(
                        lambda: (chat.add(conversation, turn), chat.get(conversation))
                    )
                    print(
                        f"{name:<18}{length:>8}{append:>10.0f}{tail:>10.0f}{full:>10.0f}{agent_turn:>12.0f}"
                    )
            finally:
                close_repo(repo)


if __name__ == "__main__":
    main()
