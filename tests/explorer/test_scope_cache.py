"""The scope explorer's cache plays each run once and gives back the same object."""

from __future__ import annotations

from windowmem.explorer.scope_cache import ScopeRuns
from windowmem.scope.key_choices import key_choice
from windowmem.scope.shared_agent import run_script
from windowmem.scope.support_desk import support_desk


def test_a_run_is_played_once_and_is_run_scripts():
    runs = ScopeRuns()
    first = runs.run("per user", "sqlite", "nothing")
    assert runs.run("per user", "sqlite", "nothing") is first
    assert first == run_script(support_desk("nothing"), key_choice("per user").template, "sqlite")


def test_a_prefix_run_stops_before_the_request():
    prefix = ScopeRuns().run("per user", "sqlite", "the agent restarts", upto=5)
    assert [call.position for call in prefix.calls] == [0, 1, 2, 3]
    assert len(prefix.happenings) == 1
