"""The windowmem command line: outputs checked against the seed and peers.md, bad input refused cleanly."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from windowmem.cli import build_parser, main
from windowmem.conversation import save_conversation
from windowmem.examples import example_path, load_example
from windowmem.messages import assistant, user
from windowmem.policies.langgraph import LangChainSummarization
from windowmem.policies.registry import make_policy, policy_infos
from windowmem.replay import replay

MARTA = str(example_path("marta"))
TOOL_USE = str(example_path("tool_use"))


def run_in_process(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_subprocess(*argv: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "windowmem", *argv], capture_output=True, text=True, timeout=60
    )
    return done.returncode, done.stdout, done.stderr


def seven_turns(tmp_path) -> str:
    path = tmp_path / "seven.json"
    save_conversation([m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))], path)
    return str(path)


def contents(out: str) -> list[str]:
    return [m["content"] for m in json.loads(out)]


def test_window_n8n_k5_after_seven_turns_is_u3_to_a7(tmp_path, capsys):
    # peers.md: k=5, after turn 7 is saved the load is u3 … a7.
    code, out, err = run_in_process(
        capsys, "window", seven_turns(tmp_path), "--policy", "n8n", "--size", "5"
    )
    assert (code, err) == (0, "")
    assert contents(out) == [f"{r}{t}" for t in range(3, 8) for r in ("u", "a")]


def test_window_after_m_stores_only_the_first_m_messages(tmp_path, capsys):
    # Start of turn 7 = after 12 messages: u2 … a6.
    code, out, _ = run_in_process(
        capsys, "window", seven_turns(tmp_path), "--policy", "n8n", "--after", "12"
    )
    assert code == 0
    assert contents(out) == [f"{r}{t}" for t in range(2, 7) for r in ("u", "a")]
    code, out, _ = run_in_process(
        capsys, "window", seven_turns(tmp_path), "--policy", "n8n", "--after", "0"
    )
    assert (code, json.loads(out)) == (0, [])


def test_window_langchain_js_negative_size_is_the_policys_call(tmp_path, capsys):
    # peers.md: LangChain JS k=-1 loads all but the first 2 messages.
    code, out, _ = run_in_process(
        capsys, "window", seven_turns(tmp_path), "--policy", "langchain-js", "--size", "-1"
    )
    assert code == 0
    assert contents(out)[0] == "u2" and len(contents(out)) == 12


def test_window_stores_system_messages_and_lets_the_policy_keep_them(capsys):
    # Spring AI never evicts system messages; with maxMessages 3 the system message stays.
    code, out, _ = run_in_process(
        capsys, "window", MARTA, "--policy", "spring-ai", "--size", "3", "--after", "5"
    )
    assert code == 0
    assert [m["role"] for m in json.loads(out)][0] == "system"


def test_window_prints_tool_fields_when_present(capsys):
    # n8n k=2 after the system message and turn 2 of the tool chat: the last 4 messages, u2, the call, its result, a2.
    code, out, _ = run_in_process(
        capsys, "window", TOOL_USE, "--policy", "n8n", "--size", "2", "--after", "9"
    )
    assert code == 0
    window = json.loads(out)
    assert [m["role"] for m in window] == ["user", "assistant", "tool", "assistant"]
    assert window[1] == {"role": "assistant", "content": "", "tool_calls": ["call_address_2"]}
    assert window[2]["tool_call_id"] == "call_address_2"
    assert set(window[0]) == set(window[3]) == {"role", "content"}


def test_window_token_policy_follows_tokens_option(tmp_path, capsys):
    path = tmp_path / "words.json"
    save_conversation([user("one"), assistant("two"), user("three four five")], path)
    # LlamaIndex limit 3 in words: 5 words is over, drop "one"; the window may not start on
    # a reply, so "two" goes too.
    code, out, _ = run_in_process(
        capsys, "window", str(path), "--policy", "llamaindex", "--size", "3", "--tokens", "words"
    )
    assert code == 0 and contents(out) == ["three four five"]
    # Counting one per message, all three fit.
    code, out, _ = run_in_process(
        capsys, "window", str(path), "--policy", "llamaindex", "--size", "3", "--tokens", "messages"
    )
    assert code == 0 and contents(out) == ["one", "two", "three four five"]


def test_replay_table_shows_the_seed_worked_example(capsys):
    code, out, err = run_in_process(capsys, "replay", MARTA, "--policy", "n8n", "--size", "5")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["turn", "user", "message"]
    assert len(lines) == 8
    last = lines[-1].split()
    assert last[0] == "7" and "2–6" in last and last[last.index("2–6") + 1] == "1"


def test_replay_json_lists_sent_arrays_and_turns(capsys):
    code, out, _ = run_in_process(
        capsys, "replay", MARTA, "--policy", "n8n", "--size", "5", "--format", "json"
    )
    assert code == 0
    turns = json.loads(out)
    assert [t["turn"] for t in turns] == list(range(1, 8))
    seventh = turns[-1]
    assert seventh["visible_turns"] == [2, 3, 4, 5, 6] and seventh["evicted_turns"] == [1]
    assert [m["role"] for m in seventh["sent"]] == ["system"] + ["user", "assistant"] * 5 + ["user"]
    assert seventh["input_tokens"] == 12  # one per message by default
    assert seventh["cumulative_input_tokens"] == sum(t["input_tokens"] for t in turns)


def test_replay_csv_with_qwen_tokens(capsys):
    code, out, _ = run_in_process(
        capsys,
        "replay",
        MARTA,
        "--policy",
        "n8n",
        "--size",
        "10",
        "--tokens",
        "qwen",
        "--format",
        "csv",
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 7 and rows[-1]["visible"] == "1–6" and rows[-1]["evicted"] == "none"
    from windowmem.examples import load_example
    from windowmem.tokens import count_text

    expected_last = sum(count_text(m.content) for m in load_example("marta").messages[:-1])
    assert int(rows[-1]["input tokens"]) == expected_last


def test_policies_lists_every_registered_policy(capsys):
    code, out, _ = run_in_process(capsys, "policies")
    assert code == 0
    lines = out.partition("\n\n")[0].splitlines()[1:]  # the table, before the superseded list
    assert [line.split()[0] for line in lines] == [info.name for info in policy_infos()]
    n8n = lines[0].split()
    assert n8n[:3] == ["n8n", "interactions", "5"]


def test_examples_lists_the_sample_conversations(capsys):
    code, out, _ = run_in_process(capsys, "examples")
    assert code == 0 and out.splitlines()[1].startswith("marta\t7 turns\t")


# Each bad command line ({tmp} is a scratch folder holding broken.json and alien.json),
# and the words its one-line error must contain.
BAD_INPUTS = {
    "unknown policy": (["window", MARTA, "--policy", "memgpt"], "unknown window policy 'memgpt'"),
    "negative size": (["window", MARTA, "--policy", "n8n", "--size", "-1"], "must not be negative"),
    "fractional size": (
        ["window", MARTA, "--policy", "n8n", "--size", "2.5"],
        "whole number, got '2.5'",
    ),
    "word size": (["replay", MARTA, "--policy", "n8n", "--size", "abc"], "whole number, got 'abc'"),
    "zero where refused": (["replay", MARTA, "--policy", "spring-ai", "--size", "0"], "spring-ai"),
    "malformed json": (["window", "{tmp}/broken.json", "--policy", "n8n"], "not valid JSON"),
    "unknown role": (["replay", "{tmp}/alien.json", "--policy", "n8n"], "unknown role 'wizard'"),
    "missing file": (["window", "{tmp}/nope.json", "--policy", "n8n"], "no such file"),
    "folder as file": (["window", "{tmp}", "--policy", "n8n"], "folder"),
    "after too far": (
        ["window", MARTA, "--policy", "n8n", "--after", "16"],
        "--after 16 is out of range",
    ),
    "after negative": (
        ["window", MARTA, "--policy", "n8n", "--after", "-1"],
        "--after -1 is out of range",
    ),
    "unknown counter": (
        ["replay", MARTA, "--policy", "n8n", "--tokens", "gpt"],
        "invalid choice: 'gpt'",
    ),
    "missing policy": (["window", MARTA], "--policy"),
    "no command": ([], "required"),
    "unknown command": (["summarise", MARTA], "invalid choice"),
    "unknown format": (
        ["replay", MARTA, "--policy", "n8n", "--format", "xml"],
        "invalid choice: 'xml'",
    ),
}
BAD_CASES = sorted(BAD_INPUTS)


@pytest.mark.parametrize("case", BAD_CASES)
def test_bad_input_exits_2_with_one_line_and_no_stdout(case, tmp_path, capsys):
    (tmp_path / "broken.json").write_text('[{"role": "user", "content": "hi"}', encoding="utf-8")
    (tmp_path / "alien.json").write_text('[{"role": "wizard", "content": "hi"}]', encoding="utf-8")
    template, needle = BAD_INPUTS[case]
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in template]
    for code, out, err in (run_in_process(capsys, *argv), run_subprocess(*argv)):
        assert code == 2, (case, err)
        assert out == ""
        assert err.endswith("\n") and err.count("\n") == 1, err
        assert err.startswith("windowmem: error: ") and needle in err, err


def test_help_still_works(capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["replay", "--help"])
    assert stop.value.code == 0
    assert "--format" in capsys.readouterr().out


def test_console_script_and_module_agree(tmp_path):
    script = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from windowmem.cli import main; sys.exit(main(sys.argv[1:]))",
            "window",
            seven_turns(tmp_path),
            "--policy",
            "n8n",
            "--size",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    module = run_subprocess("window", seven_turns(tmp_path), "--policy", "n8n", "--size", "1")
    assert script.returncode == module[0] == 0
    assert contents(script.stdout) == contents(module[1]) == ["u7", "a7"]


def subcommands(parser) -> set[str]:
    action = next(a for a in parser._actions if a.dest == "command")
    return set(action.choices)


def test_every_subcommand_is_wired_and_listed_in_the_help(capsys):
    assert subcommands(build_parser()) == {"window", "replay", "policies", "examples", "budget"}
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    usage = capsys.readouterr().out
    assert all(
        command in usage for command in ("window", "replay", "policies", "examples", "budget")
    )


# --- the OpenAI Agents SDK and LangGraph policies -----------------------------------


def test_policies_show_unit_and_default_of_the_new_products(capsys):
    code, out, _ = run_in_process(capsys, "policies")
    table, _, superseded = out.partition("\n\n")
    rows = {line.split()[0]: line.split() for line in table.splitlines()[1:]}
    assert code == 0
    assert "langgraph-trim-input: " in superseded and "-> use langchain-trim-input" in superseded
    assert rows["openai-agents"][1:4] == ["items", "none", "(all)"]
    assert rows["langgraph"][1:4] == ["messages", "none", "(all)"]
    assert rows["langgraph-trim-input"][1:3] == ["tokens", "384"]
    assert rows["langgraph-trim-state"][1:3] == ["tokens", "384"]
    assert rows["langchain-summarization"][1:3] == ["messages", "20"]
    assert rows["langchain-trim-input"][1:3] == ["tokens", "384"]
    assert rows["langchain-trim-state"][1:3] == ["tokens", "384"]
    assert rows["langchain-context-editing"][1:3] == ["tokens", "100000"]
    assert rows["llamaindex-memory"][1:3] == ["tokens", "30000"]
    assert rows["agent-framework-truncation"][1:3] == ["messages", "20"]
    assert rows["agent-framework-summarization"][1:3] == ["messages", "4"]


def test_policies_name_each_policy_s_package_version_and_source(capsys):
    """Issue 33: every policy, the new ones included, with its version and its source."""
    code, out, _ = run_in_process(capsys, "policies")
    sources = out.split("Sources (", 1)[1].splitlines()[1:]
    by_name = {line.split(":", 1)[0].strip(): line for line in sources}
    assert code == 0 and list(by_name) == [info.name for info in policy_infos()]
    for info in policy_infos():
        assert info.source and info.packages, info.name
        assert info.source in by_name[info.name] and info.packages[0] in by_name[info.name]
    assert "langchain 1.5.2: langchain/agents/middleware/context_editing.py" in out
    assert "llama-index-core 0.14.25: llama_index/core/memory/memory.py" in out
    assert "agent-framework-core 1.23.0: agent_framework/_compaction.py" in out
    assert "AdvancedSQLiteSession" in by_name["openai-agents"]


def test_window_of_an_openai_agents_session_counts_items(capsys):
    code, out, _ = run_in_process(
        capsys, "window", TOOL_USE, "--policy", "openai-agents", "--size", "3"
    )
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
        ("--policy", "langchain-trim-input", "--size", "0", "--tokens", "words"),
        ("--policy", "langchain-context-editing", "--size", "3", "--tokens", "words"),
        ("--policy", "llamaindex-memory", "--size", "12", "--tokens", "words"),
        ("--policy", "agent-framework-truncation", "--size", "3"),
        ("--policy", "agent-framework-summarization", "--size", "2"),
    ],
)
def test_replay_json_sends_what_the_library_replay_sends(capsys, argv):
    code, out, _ = run_in_process(capsys, "replay", TOOL_USE, *argv, "--format", "json")
    assert code == 0
    size = int(argv[argv.index("--size") + 1]) if "--size" in argv else None
    policy = make_policy(argv[1], size)
    views = replay(load_example("tool_use"), policy)
    assert [turn["sent"] for turn in json.loads(out)] == [
        [m.as_dict() for m in view.sent] for view in views
    ]


def test_a_size_for_the_whole_thread_is_refused_with_a_reason(capsys):
    code, out, err = run_in_process(
        capsys, "window", TOOL_USE, "--policy", "langgraph", "--size", "3"
    )
    assert code == 2 and out == "" and "no window" in err


def test_summarisation_default_trigger_is_the_documented_example():
    assert LangChainSummarization().trigger_tokens == 4000
    assert LangChainSummarization().size == 20


def test_the_budget_task_loads_only_when_its_subcommand_runs(capsys):
    """`windowmem window ...` never imports the token-budget engine; `windowmem budget` does."""
    probe = (
        "import sys; from windowmem.cli import build_parser; build_parser(sys.argv[1:]);"
        "print(any(m.startswith('windowmem.budget') for m in sys.modules))"
    )
    loaded = {
        command: subprocess.run(
            [sys.executable, "-c", probe, *command.split()],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
        for command in ("window x.json", "--help", "budget --budget 10")
    }
    assert loaded == {"window x.json": "False", "--help": "False", "budget --budget 10": "True"}
    with pytest.raises(SystemExit):
        build_parser(["budget", "--help"]).parse_args(["budget", "--help"])
    assert "--summariser" in capsys.readouterr().out
