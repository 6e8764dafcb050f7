"""Real processes against real stores: a restart, two workers, two requests at once.

Each case is run for real (a subprocess that exits, two worker processes, two racing
processes with a forced schedule) and compared with :mod:`windowmem.outlive.store_scenarios`,
the pure model the lesson's explorer draws, and with the fact sheet's description of
the products' code. PostgreSQL variants run against the test server.
"""

from __future__ import annotations

import pytest

from tests.storage.test_contract import server_url
from windowmem.messages import assistant, user
from windowmem.outlive import concurrent_runs as races
from windowmem.outlive import overlapping_saves
from windowmem.outlive.agent_process import main, restart, run_process
from windowmem.outlive.product_stores import StoreSpec
from windowmem.outlive.store_scenarios import (
    MARTA_TURNS,
    N8N_WINDOW,
    SPRING_MAX_MESSAGES,
    play_scenario,
)
from windowmem.outlive.workers import alternate

HISTORY = [user(MARTA_TURNS[0][0]), assistant(MARTA_TURNS[0][1])]
PAIR = (races.Request("A", "question A", "answer A"), races.Request("B", "question B", "answer B"))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def location(request, tmp_path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    return server_url("WINDOWMEM_POSTGRES_URL", "PostgreSQL")


def contents(messages) -> list[str]:
    return [m.content for m in messages]


def test_a_restart_empties_simple_memory_and_not_the_table(location):
    table = StoreSpec("n8n-sql", location)
    table.n8n_history("restart-test").clear()
    for spec, store in (
        (StoreSpec("in-process"), "Simple Memory (in-process)"),
        (table, "n8n Postgres table"),
    ):
        before, after = restart(spec, "restart-test", N8N_WINDOW, MARTA_TURNS[:3], MARTA_TURNS[3:])
        assert before[0].pid != after[0].pid
        model = play_scenario(store, 1, "the agent restarts")
        assert [t.sent for t in before + after] == [tuple(contents(c.sent)) for c in model]
    table.n8n_history("restart-test").clear()


def test_two_workers_with_their_own_memory_each_see_half(location):
    shared = StoreSpec("n8n-sql", location)
    shared.n8n_history("workers-test").clear()
    for spec, store in (
        (StoreSpec("in-process"), "Simple Memory (in-process)"),
        (shared, "n8n Postgres table"),
    ):
        calls = alternate(spec, "workers-test", N8N_WINDOW, MARTA_TURNS)
        assert len({c.pid for c in calls}) == 2
        model = play_scenario(store, 2, "nothing")
        assert [c.sent for c in calls] == [tuple(contents(c.sent)) for c in model]
        assert [int(c.worker[-1]) for c in calls] == [c.worker for c in model]
    shared.n8n_history("workers-test").clear()


def test_forced_overlap_interleaves_n8n_and_loses_a_spring_ai_batch(location):
    n8n = races.run_pair(
        "n8n",
        StoreSpec("n8n-sql", location),
        "race-test",
        HISTORY,
        PAIR,
        schedule=races.N8N_OVERLAP,
    )
    assert n8n.stored == (*contents(HISTORY), "question A", "question B", "answer A", "answer B")
    assert n8n.trace[:2] == ("A load", "B load")
    spring = races.run_pair(
        "spring-ai",
        StoreSpec("spring-jdbc", location),
        "race-test",
        HISTORY,
        PAIR,
        schedule=races.SPRING_OVERLAP,
    )
    assert spring.stored == (*contents(HISTORY), "question B", "answer A", "answer B")
    for result in (n8n, spring):
        assert result.sent == {
            "A": (*contents(HISTORY), "question A"),
            "B": (*contents(HISTORY), "question B"),
        }


@pytest.mark.postgres
def test_two_overlapping_save_all_transactions_on_postgres_keep_both_lists():
    """READ COMMITTED: the waiting DELETE skips the rows the first deleted and misses its new ones."""
    import uuid

    url = server_url("WINDOWMEM_POSTGRES_URL", "PostgreSQL")
    session = f"dup-{uuid.uuid4().hex[:10]}"
    stored = overlapping_saves.overlapping_save_alls(
        url, session, HISTORY, user("question A"), user("question B")
    )
    # Each transaction wrote history + its question; neither deleted the other's rows.
    expected = sorted([*contents(HISTORY), "question A", *contents(HISTORY), "question B"])
    assert list(stored) == expected and len(stored) == 2 * len(HISTORY) + 2


def test_overlapping_save_alls_needs_postgres(tmp_path):
    with pytest.raises(ValueError, match="postgresql://"):
        overlapping_saves.overlapping_save_alls(
            str(tmp_path / "x.db"), "s", HISTORY, user("a"), user("b")
        )


@pytest.mark.parametrize(
    "product, kind, store",
    [
        ("n8n", "n8n-sql", "n8n Postgres table"),
        ("spring-ai", "spring-jdbc", "Spring AI JDBC (maxMessages 4)"),
    ],
)
def test_the_explorer_s_overlap_is_what_two_real_processes_do(tmp_path, product, kind, store):
    """Turns 4 and 5 at once after three turns, window 2 / maxMessages 4: model and processes agree."""
    model = play_scenario(store, 1, "two requests at once")
    before = [m for m in model[2].stored_after]
    window = N8N_WINDOW if product == "n8n" else SPRING_MAX_MESSAGES
    pair = (races.Request("A", *MARTA_TURNS[3]), races.Request("B", *MARTA_TURNS[4]))
    real = races.run_pair(
        product, StoreSpec(kind, str(tmp_path / "t.db")), "explorer", before, pair,
        schedule=races.N8N_OVERLAP if product == "n8n" else races.SPRING_OVERLAP, window=window,
    )  # fmt: skip
    assert list(real.stored) == contents(model[4].stored_after)
    assert real.sent["A"] == tuple(contents(model[3].sent)) and real.sent["B"] == tuple(
        contents(model[4].sent)
    )


def test_a_schedule_must_name_each_step_once(tmp_path):
    with pytest.raises(ValueError, match="names A and B 3 times each"):
        races.run_pair(
            "n8n",
            StoreSpec("n8n-sql", str(tmp_path / "t.db")),
            "s",
            HISTORY,
            PAIR,
            schedule=("A", "B"),
        )
    assert races.schedule_trace("n8n", races.N8N_OVERLAP)[-1] == "B write reply"


def test_unforced_trials_count_within_their_bounds(tmp_path):
    """No timing is asserted: only that the counts are counts, and that n8n never loses a message."""
    for product, kind in (("n8n", "n8n-sql"), ("spring-ai", "spring-jdbc")):
        counts = races.trials(product, StoreSpec(kind, str(tmp_path / f"{kind}.db")), 10, HISTORY)
        assert counts.trials == 10
        assert all(0 <= n <= 10 for n in (counts.blind, counts.interleaved, counts.lost))
        if product == "n8n":
            assert counts.lost == 0  # appends never replace


def test_the_agent_process_reports_one_json_line_per_turn(tmp_path, capsys):
    spec = StoreSpec("n8n-sql", str(tmp_path / "t.db"))
    job = '{"spec": {"kind": "n8n-sql", "location": "%s", "session_ttl": 0}, "session": "s", "window": 5, "turns": [["u1", "a1"], ["u2", "a2"]]}'
    assert main([job % spec.location]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and '"sent": ["u1", "a1", "u2"]' in lines[1]
    turns = run_process(spec, "s", 5, [("u3", "a3")])
    assert turns[0].sent == ("u1", "a1", "u2", "a2", "u3") and turns[0].stored_after == 6


def test_a_failing_agent_process_says_why(tmp_path):
    with pytest.raises(RuntimeError, match="the agent process failed"):
        run_process(
            StoreSpec("n8n-sql", str(tmp_path / "no" / "such" / "dir.db")), "s", 5, [("u1", "a1")]
        )


def test_the_simulated_model_call_sits_where_each_product_calls_its_model():
    """Spring AI's advisor saves the question before the model call; n8n writes only after it."""
    from windowmem.outlive.concurrent_runs import model_call_before, steps

    spring = steps("spring-ai")
    assert spring[: model_call_before("spring-ai")] == ("get", "find", "save user")
    assert spring[model_call_before("spring-ai")] == "find"
    assert steps("n8n")[: model_call_before("n8n")] == ("load",)
