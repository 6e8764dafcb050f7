"""Several customers through one agent: keys, buckets, restarts and idle hours.

Expectations are worked out by hand from the rules the fact sheet states (n8n Simple
Memory 2.41.1: a per-process map keyed ``workflowId__key``, swept of buffers unused for
more than 60 minutes when any Simple Memory node runs, emptied by a restart; SQLite
keeps its rows), not from the code under test.
"""

from __future__ import annotations

import pytest

from windowmem.errors import SessionKeyError, WindowMemError
from windowmem.scope.key_choices import (
    COMPOSITE,
    CONSTANT,
    KEY_CHOICES,
    PER_THREAD,
    PER_USER,
    TENANT_USER,
    buckets,
    key_choice,
    key_for,
)
from windowmem.scope.script import (
    Customer,
    Pause,
    Request,
    Restart,
)
from windowmem.scope.shared_agent import (
    SCOPE,
    STORAGE,
    WINDOW,
    run_script,
)
from windowmem.scope.support_desk import (
    BETWEEN,
    CARLOS,
    LUCIA,
    MARTA,
    support_desk,
)

FIRST = [e for e in support_desk() if isinstance(e, Request)]


def test_keys_the_templates_give_for_marta():
    request = FIRST[0]
    assert [key_for(c.template, request) for c in KEY_CHOICES] == [
        "user:u-1",
        "thread:m-1",
        "tutienda:u-1:m-1",
        "tutienda:u-1",
        "chat_history",
    ]


def test_which_requests_share_a_bucket():
    # Marta m-1, Carlos c-1, Marta m-1, Lucía l-1, Marta m-2, Lucía l-1, Carlos c-1
    assert list(buckets(PER_USER.template, FIRST).values()) == [(0, 1, 2, 4, 6), (3, 5)]
    assert list(buckets(PER_THREAD.template, FIRST).values()) == [(0, 2), (1, 6), (3, 5), (4,)]
    assert list(buckets(COMPOSITE.template, FIRST).values()) == [(0, 2), (1, 6), (3, 5), (4,)]
    assert list(buckets(TENANT_USER.template, FIRST).values()) == [(0, 2, 4), (1, 6), (3, 5)]
    assert buckets(CONSTANT.template, FIRST) == {"chat_history": tuple(range(7))}


def test_a_missing_field_is_an_error_not_a_shared_empty_key():
    anonymous = Request(Customer("Ana", "tutienda", ""), "a-1", "Hi", "Hello")
    with pytest.raises(SessionKeyError, match="empty"):
        key_for(PER_USER.template, anonymous)
    run = run_script([anonymous], PER_USER.template, "in-process")
    assert run.calls[0].error and run.calls[0].key is None and run.held_at_end == ()


def marta_returns(choice, store, between):
    run = run_script(support_desk(between), key_choice(choice).template, store)
    return next(c for c in run.calls if c.request.thread == "m-2")


@pytest.mark.parametrize("store", ["in-process", "sqlite"])
def test_with_nothing_between_a_per_user_key_hands_marta_carloss_turn(store):
    call = marta_returns("per user", store, "nothing")
    assert [r.customer for r in call.foreign] == ["Carlos"]
    assert call.missing == ()
    assert "#6023" in " ".join(m.content for m in call.window)


@pytest.mark.parametrize("choice", ["per thread", "composite"])
def test_a_thread_key_files_a_new_thread_elsewhere(choice):
    call = marta_returns(choice, "sqlite", "nothing")
    assert call.window == () and {m.cause for m in call.missing} == {SCOPE}
    assert [m.turn.position for m in call.missing] == [0, 2]


def test_tenant_and_user_remembers_marta_across_threads_and_keeps_carlos_out():
    call = marta_returns("tenant + user", "sqlite", "the agent restarts")
    assert call.foreign == () and call.missing == () and len(call.window) == 4


@pytest.mark.parametrize(
    "between", ["the agent restarts", "61 minutes pass", "a night passes (14 hours)"]
)
def test_in_process_memory_is_gone_after_a_restart_or_an_idle_hour(between):
    call = marta_returns("tenant + user", "in-process", between)
    assert call.window == () and {m.cause for m in call.missing} == {STORAGE}


@pytest.mark.parametrize(
    "between", ["the agent restarts", "61 minutes pass", "a night passes (14 hours)"]
)
def test_sqlite_keeps_it(between):
    call = marta_returns("tenant + user", "sqlite", between)
    assert call.missing == () and len(call.window) == 4


def test_fifty_nine_minutes_are_not_an_hour():
    assert marta_returns("tenant + user", "in-process", "59 minutes pass").missing == ()


def test_the_idle_sweep_deletes_every_stale_buffer_at_the_next_run():
    run = run_script(support_desk("61 minutes pass"), TENANT_USER.template, "in-process")
    marta = run.calls[4]
    assert sorted(marta.swept) == [
        "support-agent__ferreteria-andina:u-1",
        "support-agent__tutienda:u-1",
        "support-agent__tutienda:u-2",
    ]
    lucia = run.calls[5]  # her buffer went in Marta's sweep, before she wrote again
    assert lucia.swept == () and lucia.window == () and lucia.missing[0].cause == STORAGE
    assert "after more than an hour unused" in lucia.missing[0].detail


def test_idle_time_counts_from_the_last_use_not_the_first():
    script = [
        Request(MARTA, "m-1", "one", "r1"),
        Pause(40),
        Request(MARTA, "m-1", "two", "r2"),
        Pause(40),
        Request(MARTA, "m-1", "three", "r3"),
    ]
    run = run_script(script, TENANT_USER.template, "in-process")
    assert [m.content for m in run.calls[2].window] == ["one", "r1", "two", "r2"]


def test_a_constant_key_lets_other_customers_push_a_turn_out_of_the_window():
    script = (
        [Request(MARTA, "m-1", "my order is #6023", "noted")]
        + [Request(LUCIA, "l-1", f"question {i}", f"answer {i}") for i in range(5)]
        + [Request(MARTA, "m-1", "my order number?", "checking")]
    )
    call = run_script(script, CONSTANT.template, "sqlite", window=5).calls[-1]
    assert [m.cause for m in call.missing] == [WINDOW]
    assert {r.customer for r in call.foreign} == {"Lucía"}
    # Marta's own key: nothing of Lucía's, and her turn is within the window.
    own = run_script(script, TENANT_USER.template, "sqlite", window=5).calls[-1]
    assert own.foreign == () and own.missing == ()


def test_window_zero_loads_everything_in_the_bucket():
    script = [Request(MARTA, "m-1", f"q{i}", f"a{i}") for i in range(8)]
    call = run_script(script, CONSTANT.template, "in-process", window=0).calls[-1]
    assert len(call.window) == 14 and call.missing == ()


def test_the_restart_is_named_as_the_cause():
    run = run_script(support_desk("the agent restarts"), CONSTANT.template, "in-process")
    assert run.calls[4].missing[0].detail.endswith("the restart at event 4")
    assert run.happenings[0].held_after == ()


def test_the_script_and_its_checks():
    assert set(BETWEEN) >= {"nothing", "the agent restarts", "61 minutes pass"}
    assert MARTA.user_id == CARLOS.user_id and MARTA.tenant != CARLOS.tenant
    with pytest.raises(WindowMemError, match="unknown interval"):
        support_desk("a week")
    with pytest.raises(WindowMemError, match="repeats"):
        run_script([Request(MARTA, "m", "hi", "a"), Request(LUCIA, "l", "hi", "b")], "k", "sqlite")
    with pytest.raises(WindowMemError, match="Request, Restart and Pause"):
        run_script(["hello"], "k", "sqlite")  # type: ignore[list-item]
    with pytest.raises(WindowMemError, match="unknown store"):
        run_script([], "k", "redis")  # type: ignore[arg-type]
    with pytest.raises(WindowMemError, match="negative"):
        Pause(-1)
    with pytest.raises(WindowMemError, match="unknown key choice"):
        key_choice("per tenant")
    assert run_script([Restart()], "k", "sqlite").happenings[0].held_after == ()


def test_owners_names_each_customer_of_a_bucket_once():
    from windowmem.scope.key_choices import owners
    from windowmem.scope.script import requests_of

    requests = requests_of(support_desk("the agent restarts"))
    assert len(requests) == 7
    assert owners(PER_USER.template, requests) == {
        "user:u-1": ("Marta", "Carlos"),
        "user:u-2": ("Lucía",),
    }
    assert owners(CONSTANT.template, requests) == {"chat_history": ("Marta", "Carlos", "Lucía")}


def test_the_in_process_store_uses_n8ns_hour():
    from windowmem.scope.agent_stores import InProcessStore

    assert InProcessStore(5).idle_limit_minutes == 60
