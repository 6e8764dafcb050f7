"""Which store to choose, by need: n8n's memory nodes and Spring AI's repositories.

Each :class:`Choice` is a row of a decision table (need, store, why, what to set). A row
that states behaviour names it in *claims*, and :func:`measured` runs windowmem's rebuilds
to see it: the store across a real process restart (:func:`~windowmem.outlive.agent_process.restart`),
across two worker processes (:func:`~windowmem.outlive.workers.alternate`), and after an
idle spell on a hand-moved clock (:mod:`~windowmem.outlive.expiry`). :func:`table` refuses
a row whose claim the rebuild contradicts, so the table a lesson prints is checked.

Spring AI (2.0.1) is not run here: its rows are what its source says, at
``spring-projects/spring-ai`` tag v2.0.1 (:data:`SPRING_AI_SOURCES`), and they carry no
measured claims.

>>> [c.store for c in N8N_CHOICES][:2]
['Simple Memory', 'Postgres Chat Memory']
>>> SPRING_AI_REPOSITORIES["Redis"].default_expiry
'none (expires only with time-to-live set)'
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from functools import cache
from typing import Literal, get_args

from windowmem.outlive import expiry
from windowmem.outlive.agent_process import restart
from windowmem.outlive.product_stores import StoreKind, StoreSpec
from windowmem.outlive.workers import alternate

Claim = Literal["survives a restart", "shared by workers", "deletes a quiet chat", "keeps all"]
CLAIMS: tuple[Claim, ...] = get_args(Claim)


@dataclass(frozen=True)
class Choice:
    """One row of a decision table: a *need*, the *store* that meets it, *why*, and *what to set*."""

    need: str
    store: str
    why: str
    what_to_set: str
    claims: frozenset[Claim] = frozenset()
    """Behaviour the row relies on, each measured by :func:`measured` (n8n rows only)."""


@dataclass(frozen=True)
class Behaviour:
    """What a rebuilt n8n store did: kept a chat across a restart, between two workers, after two quiet hours."""

    survives_a_restart: bool
    shared_by_workers: bool
    deletes_a_quiet_chat: bool

    def holds(self, claim: Claim) -> bool:
        """Whether the measured behaviour bears out *claim*."""
        return {
            "survives a restart": self.survives_a_restart,
            "shared by workers": self.shared_by_workers,
            "deletes a quiet chat": self.deletes_a_quiet_chat,
            "keeps all": self.survives_a_restart and not self.deletes_a_quiet_chat,
        }[claim]


#: The n8n memory nodes windowmem rebuilds, with the store kind it runs them on and the
#: expiry rule (:data:`windowmem.outlive.expiry.RULES`) that deletes a quiet chat. MongoDB
#: Chat Memory has no process rebuild; its row states no measured claim.
N8N_STORES: dict[str, tuple[StoreKind, expiry.Rule]] = {
    "Simple Memory": ("in-process", "n8n Simple Memory"),
    "Postgres Chat Memory": ("n8n-sql", "n8n Postgres / MongoDB"),
    "Redis Chat Memory": ("n8n-lists", "n8n Redis (sessionTTL 3600)"),
}

_TURNS = (("u1 I'm Marta, order #6023", "a1 Noted"), ("u2 Friday?", "a2 Friday it is"))


@cache
def measured(store: str) -> Behaviour:
    """Run n8n's *store* through a restart, two workers and two quiet hours, as windowmem rebuilds it.

    The SQL table and the Redis list live in SQLite files of a fresh folder.
    """
    if store not in N8N_STORES:
        raise ValueError(f"no rebuild of {store!r}; choose one of {sorted(N8N_STORES)}")
    kind, rule = N8N_STORES[store]
    folder = tempfile.mkdtemp(prefix="store-choice-")
    location = "" if kind == "in-process" else os.path.join(folder, f"{kind}.db")
    _, after = restart(StoreSpec(kind, location), "choice-restart", 5, _TURNS[:1], _TURNS[1:])
    calls = alternate(StoreSpec(kind, location), "choice-workers", 5, _TURNS)
    quiet = expiry.timeline(rule, [expiry.Event(0, "write"), expiry.Event(120, "read")])
    return Behaviour(
        survives_a_restart=len(after[0].sent) > 1,
        shared_by_workers=len(calls[1].sent) > 1,
        deletes_a_quiet_chat=not quiet[-1].found,
    )


#: The decision table for n8n 2.41.1's memory nodes, by need.
N8N_CHOICES: tuple[Choice, ...] = (
    Choice(
        "trying an agent out on one n8n process",
        "Simple Memory",
        "nothing to set up; emptied by a restart or deploy, one per worker, a chat deleted after an idle hour",
        "Context Window Length only",
        frozenset({"deletes a quiet chat"}),
    ),
    Choice(
        "chats that outlive a deploy, on every queue-mode worker, readable with SQL",
        "Postgres Chat Memory",
        "one row per message in n8n_chat_histories, shared by every worker, kept until someone deletes it",
        "Postgres credentials; Session ID: Define below, a key that tells customers apart (lesson 1)",
        frozenset({"survives a restart", "shared by workers", "keeps all"}),
    ),
    Choice(
        "quiet chats deleted by themselves (privacy), with no clean-up job",
        "Redis Chat Memory",
        "one list per session, shared by every worker; with a TTL the key expires that long after the last saved run",
        "Session Time To Live, in seconds: more than the longest pause a chat must survive, no more than a quiet chat may be kept (0: never expires)",
        frozenset({"survives a restart", "shared by workers", "deletes a quiet chat"}),
    ),
    Choice(
        "MongoDB already runs, and sessions stay short",
        "MongoDB Chat Memory",
        "one document (MongoDB's record) per session holding all its messages, kept until deleted; a very long session can outgrow MongoDB's size limit for one document",
        "MongoDB credentials; a Session ID per chat, so no one document grows without end",
    ),
    Choice(
        "a customer may send a second message before the first is answered",
        "a shared store plus a lock",
        "no memory node locks a session: both runs load before either writes",
        'a Redis node (Increment lock:<session id>, Expire on, TTL 60) and an If before the agent that answers "one moment" to any run but the first; Delete after it, from the agent\'s Error output too (On Error: Continue (using error output))',
    ),
)


@dataclass(frozen=True)
class SpringAiRepository:
    """A Spring AI chat-memory repository (2.0.1), as its source and reference page give it."""

    name: str
    java_class: str
    default: bool
    survives_a_restart: bool
    default_expiry: str
    expiry_property: str
    needs: str


#: Spring AI 2.0.1's repositories, read at tag v2.0.1 (:data:`SPRING_AI_SOURCES`).
SPRING_AI_REPOSITORIES: dict[str, SpringAiRepository] = {
    row[0]: SpringAiRepository(*row)
    for row in (
        (
            "in memory",
            "InMemoryChatMemoryRepository",
            True,
            False,
            "none (gone with the JVM)",
            "",
            "nothing: a ConcurrentHashMap in each JVM",
        ),
        (
            "JDBC",
            "JdbcChatMemoryRepository",
            False,
            True,
            "none",
            "",
            "a SQL database; the table is created by itself only on an embedded one (initialize-schema: embedded)",
        ),
        (
            "Redis",
            "RedisChatMemoryRepository",
            False,
            True,
            "none (expires only with time-to-live set)",
            "spring.ai.chat.memory.repository.redis.time-to-live",
            "Redis Stack 7.0 or later (Redis Query Engine and RedisJSON), not a plain Redis",
        ),
    )
}

#: The decision table for Spring AI 2.0.1's repositories, by need (under MessageWindowChatMemory).
SPRING_AI_CHOICES: tuple[Choice, ...] = (
    Choice(
        "a prototype, one instance",
        "InMemoryChatMemoryRepository (the default)",
        "auto-configured when no other repository is; lost at every restart, one per JVM",
        "nothing",
    ),
    Choice(
        "conversations that outlive a restart, on several instances, in SQL",
        "JdbcChatMemoryRepository",
        "SPRING_AI_CHAT_MEMORY holds only the window maxMessages left; kept until deleted",
        "spring.ai.chat.memory.repository.jdbc.initialize-schema=always (or run schema-postgresql.sql)",
    ),
    Choice(
        "quiet conversations deleted by themselves",
        "RedisChatMemoryRepository",
        "one JSON key per message; no expiry unless time-to-live is set; needs Redis Stack",
        "spring.ai.chat.memory.repository.redis.time-to-live, e.g. 30m; a Redis Stack 7.0+ server",
    ),
)

#: The lines the Spring AI rows rest on, by file at ``spring-projects/spring-ai`` tag v2.0.1
#: (``tests/outlive/test_store_choice.py`` finds each in a checkout named by SPRING_AI_GIT).
SPRING_AI_QUOTES: dict[str, tuple[str, ...]] = {
    "auto-configurations/models/chat/memory/spring-ai-autoconfigure-model-chat-memory/src/main/java/"
    "org/springframework/ai/model/chat/memory/autoconfigure/ChatMemoryAutoConfiguration.java": (
        "return new InMemoryChatMemoryRepository();",
    ),
    "spring-ai-model/src/main/java/org/springframework/ai/chat/memory/InMemoryChatMemoryRepository.java": (
        "Map<String, List<Message>> chatMemoryStore = new ConcurrentHashMap<>();",
    ),
    "memory-repositories/spring-ai-model-chat-memory-repository-redis/src/main/java/org/springframework/"
    "ai/chat/memory/repository/redis/RedisChatMemoryConfig.java": (
        "private Integer timeToLiveSeconds = -1;",
    ),
    "memory-repositories/spring-ai-model-chat-memory-repository-redis/src/main/java/org/springframework/"
    "ai/chat/memory/repository/redis/RedisChatMemoryRepository.java": (
        "if (this.config.getTimeToLiveSeconds() != -1) {",
        "pipeline.jsonSet(key, ROOT_PATH, json);",
        ".on(IndexDataType.JSON)",
    ),
    "auto-configurations/models/chat/memory/repository/spring-ai-autoconfigure-model-chat-memory-repository-redis/"
    "src/main/java/org/springframework/ai/model/chat/memory/repository/redis/autoconfigure/"
    "RedisChatMemoryRepositoryProperties.java": (
        "Time to live for chat memory entries. Default is no expiration.",
        'CONFIG_PREFIX = "spring.ai.chat.memory.repository.redis";',
    ),
    "spring-ai-docs/src/main/antora/modules/ROOT/pages/api/chat-memory.adoc": (
        "* Redis Stack 7.0 or higher (includes Redis Query Engine and RedisJSON modules)",
        "| `spring.ai.chat.memory.repository.redis.time-to-live` | Time to live for chat memory entries (e.g., `24h`, `30d`) | _no expiration_",
    ),
}

#: Where the Spring AI rows were read, at ``spring-projects/spring-ai`` tag v2.0.1.
SPRING_AI_SOURCES = (
    "auto-configurations/models/chat/memory/spring-ai-autoconfigure-model-chat-memory/src/main/java/"
    "org/springframework/ai/model/chat/memory/autoconfigure/ChatMemoryAutoConfiguration.java",
    "spring-ai-model/src/main/java/org/springframework/ai/chat/memory/InMemoryChatMemoryRepository.java",
    "memory-repositories/spring-ai-model-chat-memory-repository-redis/src/main/java/org/springframework/"
    "ai/chat/memory/repository/redis/RedisChatMemoryRepository.java",
    "memory-repositories/spring-ai-model-chat-memory-repository-redis/src/main/java/org/springframework/"
    "ai/chat/memory/repository/redis/RedisChatMemoryConfig.java",
    "auto-configurations/models/chat/memory/repository/spring-ai-autoconfigure-model-chat-memory-repository-redis/"
    "src/main/java/org/springframework/ai/model/chat/memory/repository/redis/autoconfigure/"
    "RedisChatMemoryRepositoryProperties.java",
    "spring-ai-docs/src/main/antora/modules/ROOT/pages/api/chat-memory.adoc",
)


def contradicted(choices: tuple[Choice, ...]) -> list[tuple[str, Claim]]:
    """The (store, claim) pairs of *choices* that the rebuilt stores do not bear out."""
    return [
        (c.store, claim)
        for c in choices
        for claim in sorted(c.claims)
        if not measured(c.store).holds(claim)
    ]


def table(product: Literal["n8n", "Spring AI"]) -> list[dict[str, str]]:
    """The decision table for *product*, one dict per row; n8n's claims measured first."""
    if product == "n8n":
        choices = N8N_CHOICES
        wrong = contradicted(choices)
        if wrong:
            raise AssertionError(f"the rebuilt stores contradict these rows: {wrong}")
    elif product == "Spring AI":
        choices = SPRING_AI_CHOICES
    else:
        raise ValueError(f"no decision table for {product!r}: choose 'n8n' or 'Spring AI'")
    return [
        {"need": c.need, "store": c.store, "why": c.why, "what to set": c.what_to_set}
        for c in choices
    ]
