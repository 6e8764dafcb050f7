"""The command line with the OpenAI Agents SDK and LangGraph policies: listed, windowed, replayed."""

from __future__ import annotations

import json

import pytest

from windowmem.cli import main
from windowmem.examples import example_path, load_example
from windowmem.policies.langgraph import LangChainSummarization
from windowmem.policies.registry import make_policy
from windowmem.replay import replay

TOOL_USE = str(example_path("tool_use"))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_policies_show_unit_and_default_of_the_new_products(capsys):
    code, out, _ = run(capsys, "policies")
    rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
    assert code == 0
    assert rows["openai-agents"][1:4] == ["items", "none", "(all)"]
    assert rows["langgraph"][1:4] == ["messages", "none", "(all)"]
    assert rows["langgraph-trim-input"][1:3] == ["tokens", "384"]
    assert rows["langgraph-trim-state"][1:3] == ["tokens", "384"]
    assert rows["langchain-summarization"][1:3] == ["messages", "20"]


def test_window_of_an_openai_agents_session_counts_items(capsys):
    code, out, _ = run(capsys, "window", TOOL_USE, "--policy", "openai-agents", "--size", "3")
    window = json.loads(out)
    expected = make_policy("openai-agents", 3).window(load_example("tool_use").messages)
    assert code == 0 and window == [m.as_dict() for m in expected]


@pytest.mark.parametrize(
    "argv",
    [
        ("--policy", "openai-agents", "--size", "6"),
        ("--policy", "langgraph"),
        ("--policy", "langgraph-trim-input", "--size", "40", "--tokens", "words"),
        ("--policy", "langgraph-trim-state", "--size", "40", "--tokens", "words"),
        ("--policy", "langchain-summarization", "--size", "4"),
    ],
)
def test_replay_json_sends_what_the_library_replay_sends(capsys, argv):
    code, out, _ = run(capsys, "replay", TOOL_USE, *argv, "--format", "json")
    assert code == 0
    size = int(argv[argv.index("--size") + 1]) if "--size" in argv else None
    policy = make_policy(argv[1], size)
    views = replay(load_example("tool_use"), policy)
    assert [turn["sent"] for turn in json.loads(out)] == [
        [m.as_dict() for m in view.sent] for view in views
    ]


def test_a_size_for_the_whole_thread_is_refused_with_a_reason(capsys):
    code, out, err = run(capsys, "window", TOOL_USE, "--policy", "langgraph", "--size", "3")
    assert code == 2 and out == "" and "no window" in err


def test_summarisation_default_trigger_is_the_documented_example():
    assert LangChainSummarization().trigger_tokens == 4000
    assert LangChainSummarization().size == 20
