"""The scope explorer's pure view, checked against run_script on every control setting."""

from __future__ import annotations

import pytest

from windowmem.errors import WindowMemError
from windowmem.explorer.scope_cache import ScopeRuns
from windowmem.explorer.scope_view import request_positions, scope_view
from windowmem.scope.agent_stores import STORE_KINDS
from windowmem.scope.key_choices import KEY_CHOICES
from windowmem.scope.shared_agent import run_script
from windowmem.scope.support_desk import BETWEEN, support_desk

RUNS = ScopeRuns()


@pytest.mark.parametrize("between", list(BETWEEN))
@pytest.mark.parametrize("store", STORE_KINDS)
@pytest.mark.parametrize("choice", [c.name for c in KEY_CHOICES])
def test_every_view_matches_the_run_it_shows(choice, store, between):
    template = next(c.template for c in KEY_CHOICES if c.name == choice)
    run = run_script(support_desk(between), template, store)
    for number, call in enumerate(run.calls, start=1):
        view = scope_view(RUNS, choice, store, between, number)
        assert view.key == call.key and view.position == call.position
        assert [line.message for line in view.prompt[:-1]] == list(call.window)
        assert view.prompt[-1].origin is None
        assert view.prompt[-1].message.content == call.request.text
        assert view.foreign_customers == tuple(dict.fromkeys(r.customer for r in call.foreign))


def test_buffers_held_before_the_call():
    assert scope_view(RUNS, "per user", "in-process", "the agent restarts", 5).held == ()
    kept = scope_view(RUNS, "per user", "sqlite", "the agent restarts", 5)
    assert kept.held == (("user:u-1", ("Marta", "Carlos")), ("user:u-2", ("Lucía",)))


def test_the_timeline_marks_the_current_request_and_the_interval():
    view = scope_view(RUNS, "constant", "in-process", "61 minutes pass", 5)
    assert [m.kind for m in view.timeline].count("pause") == 1
    assert [m.position for m in view.timeline if m.current] == [view.position] == [5]
    assert view.causes == ("storage",)


def test_request_numbers_skip_restarts_and_pauses():
    assert request_positions("nothing") == (0, 1, 2, 3, 4, 5, 6)
    assert request_positions("the agent restarts") == (0, 1, 2, 3, 5, 6, 7)
    with pytest.raises(WindowMemError, match="requests 1 to 7"):
        scope_view(RUNS, "per user", "sqlite", "nothing", 8)
    with pytest.raises(WindowMemError, match="unknown store"):
        scope_view(RUNS, "per user", "redis", "nothing", 1)  # type: ignore[arg-type]
    with pytest.raises(WindowMemError, match="unknown interval"):
        scope_view(RUNS, "per user", "sqlite", "a week", 1)
