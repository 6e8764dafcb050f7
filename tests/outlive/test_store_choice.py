"""The store-choice tables: each n8n row's claims against windowmem's rebuilt stores, and the
Spring AI rows against the lines of Spring AI 2.0.1 they rest on (when a checkout is at hand)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from windowmem.outlive import store_choice
from windowmem.outlive.store_choice import Choice


def test_the_rebuilt_stores_behave_as_n8n_s_code_reads():
    # n8n 2.41.1: Simple Memory is a map in the process (lost on restart, one per worker,
    # deleted after an idle hour); Postgres keeps every row; Redis deletes after its TTL.
    assert store_choice.measured("Simple Memory") == store_choice.Behaviour(False, False, True)
    assert store_choice.measured("Postgres Chat Memory") == store_choice.Behaviour(
        True, True, False
    )
    assert store_choice.measured("Redis Chat Memory") == store_choice.Behaviour(True, True, True)


def test_every_n8n_row_is_borne_out_and_a_wrong_claim_is_caught():
    assert store_choice.contradicted(store_choice.N8N_CHOICES) == []
    wrong = replace(store_choice.N8N_CHOICES[0], claims=frozenset({"survives a restart"}))
    assert store_choice.contradicted((wrong,)) == [("Simple Memory", "survives a restart")]


def test_the_tables_have_four_columns_and_refuse_an_unknown_product():
    for product in ("n8n", "Spring AI"):
        rows = store_choice.table(product)  # type: ignore[arg-type]
        assert rows and all(list(r) == ["need", "store", "why", "what to set"] for r in rows)
    with pytest.raises(ValueError, match="choose 'n8n' or 'Spring AI'"):
        store_choice.table("LangGraph")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no rebuild of 'MongoDB Chat Memory'"):
        store_choice.measured("MongoDB Chat Memory")


def test_a_table_with_a_contradicted_row_is_refused(monkeypatch):
    bad = Choice("x", "Postgres Chat Memory", "y", "z", frozenset({"deletes a quiet chat"}))
    monkeypatch.setattr(store_choice, "N8N_CHOICES", (bad,))
    with pytest.raises(AssertionError, match="deletes a quiet chat"):
        store_choice.table("n8n")


def test_spring_ai_s_default_is_in_memory_and_its_redis_keeps_until_told():
    repos = store_choice.SPRING_AI_REPOSITORIES
    assert [r.java_class for r in repos.values() if r.default] == ["InMemoryChatMemoryRepository"]
    assert not repos["in memory"].survives_a_restart
    assert (
        repos["Redis"].default_expiry.startswith("none") and "Redis Stack" in repos["Redis"].needs
    )
    redis_row = next(c for c in store_choice.SPRING_AI_CHOICES if "Redis" in c.store)
    assert "time-to-live" in redis_row.what_to_set and "no expiry unless" in redis_row.why


SPRING_AI_GIT = os.environ.get("SPRING_AI_GIT", "")


@pytest.mark.skipif(
    not (SPRING_AI_GIT and Path(SPRING_AI_GIT).is_dir()),
    reason="set SPRING_AI_GIT to a git directory of spring-projects/spring-ai with tag v2.0.1",
)
@pytest.mark.parametrize("path", sorted(store_choice.SPRING_AI_QUOTES))
def test_each_spring_ai_quote_is_in_the_source_at_v2_0_1(path):
    source = subprocess.run(
        ["git", "--git-dir", SPRING_AI_GIT, "show", f"v2.0.1:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for quote in store_choice.SPRING_AI_QUOTES[path]:
        assert quote in source, f"{path} at v2.0.1 no longer says {quote!r}"
