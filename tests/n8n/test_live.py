"""The running n8n 2.41.1 is the judge: every scenario, and random conversations, through it.

These tests start n8n (installed by ``verify/n8n/install.sh`` when absent) and the
recording model, and fail, saying why, on a machine that cannot: they are never skipped.
``make verify-n8n`` runs them; ``make test`` runs them with everything else. All of them
live in this one module, so ``pytest -n 2 --dist loadscope`` starts one n8n, not two.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS
from verify.n8n.harness import Harness
from verify.n8n.model_server import Call, Failure, Reply, Text, ToolCalls
from verify.n8n.predict import differences
from verify.n8n.record import run_scenario
from verify.n8n.scenarios import Scenario, Turn, scenarios
from windowmem.n8n_recorded import (
    load_recording,
    recording_names,
    request_messages,
    stored_messages,
)

pytestmark = [pytest.mark.n8n, pytest.mark.slow]

#: Random conversations per run, at least 30 (issue 21); their seed is PROPERTY_SETTINGS'.
RANDOM_CONVERSATIONS = 30
#: The workflows random conversations run on, with their Context Window Length.
RANDOM_WORKFLOWS = {
    "window-k0": 0,
    "window-k1": 1,
    "window-k2": 2,
    "window-k5": 5,
    "chat-completions-k2": 2,
}


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    with Harness.open() as running:
        print(f"\nn8n harness: {', '.join(f'{k} {v:.1f} s' for k, v in running.timings.items())}")
        yield running


@pytest.mark.parametrize("name", sorted(scenarios()))
def test_n8n_does_what_windowmem_predicts(harness: Harness, name: str) -> None:
    live = run_scenario(harness, scenarios()[name])
    assert differences(live) == []
    if name in recording_names():  # and the committed fixture is still what n8n does
        committed = load_recording(name)
        assert [tuple(map(request_messages, r["requests"])) for r in live["runs"]] == [
            run.requests for run in committed.runs
        ]
        assert [stored_messages(r["memory_after"]) for r in live["runs"]] == [
            run.stored for run in committed.runs
        ]


def _calls(draw: st.DrawFn, tag: str, count: int) -> ToolCalls:
    calls = []
    for index in range(count):
        a, b = draw(st.integers(1, 9)), draw(st.integers(1, 9))
        op = draw(st.sampled_from("+*-"))
        calls.append(Call(f"call_{tag}_{index}", "Calculator", {"input": f"{a}{op}{b}"}))
    return ToolCalls(tuple(calls))


@st.composite
def random_turn(draw: st.DrawFn, number: int) -> Turn:
    kind = draw(
        st.sampled_from(
            [
                "text",
                "text",
                "one",
                "two",
                "parallel",
                "parallel3",
                "fail",
                "fail-after-tool",
                "empty",
            ]
        )
    )
    tag = f"r{number}"
    replies: list[Reply]
    if kind == "text":
        replies = [Text(f"a{number}")]
    elif kind == "one":
        replies = [_calls(draw, tag, 1), Text(f"a{number}")]
    elif kind == "two":
        replies = [_calls(draw, tag + "x", 1), _calls(draw, tag + "y", 1), Text(f"a{number}")]
    elif kind == "parallel":
        replies = [_calls(draw, tag, 2), Text(f"a{number}")]
    elif kind == "parallel3":
        replies = [_calls(draw, tag, 3), Text(f"a{number}")]
    elif kind == "fail":
        replies = [Failure(500, "scripted failure")]
    elif kind == "fail-after-tool":
        replies = [_calls(draw, tag, 1), Failure(400, "scripted failure")]
    else:
        replies = [Text("")]
    return Turn(f"u{number} ({kind})", tuple(replies))


@st.composite
def random_scenario(draw: st.DrawFn) -> Scenario:
    workflow = draw(st.sampled_from(sorted(RANDOM_WORKFLOWS)))
    count = draw(st.integers(1, 6))
    turns = tuple(draw(random_turn(n)) for n in range(1, count + 1))
    return Scenario(
        "random", workflow, "a random conversation", turns, window=RANDOM_WORKFLOWS[workflow]
    )


@hypothesis_settings(parent=PROPERTY_SETTINGS, max_examples=RANDOM_CONVERSATIONS)
@given(scenario=random_scenario())
def test_random_conversations_agree_with_windowmem(harness: Harness, scenario: Scenario) -> None:
    assert differences(run_scenario(harness, scenario)) == []
