"""Every lesson follows the lesson kit (``course/README.md``): checked on the notebook as committed.

The stored outputs are today's (``test_notebooks.py`` proves it with nbval), so reading them
here reads what the lesson really shows. What is checked: one setup cell of readable
imports; a self-check in every numbered section, shaped question / answer / check, with
feedback for foreseen mistakes, and placed before every cell that gives its answer away;
a sentence after every table and plot; asserts only in the folded maintainer cell, which
ran to its end; a Resources section; and no sentence that repeats a seed.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from tests.conftest import SHARED_DIR

REPO = Path(__file__).resolve().parents[1]
COURSE = REPO / "course"
#: The written lessons, from the course's one lesson list (the start page is not a lesson).
LESSONS = [
    COURSE / entry["notebook"]
    for entry in json.loads((COURSE / "lessons.json").read_text(encoding="utf-8"))["lessons"]
    if entry["notebook"]
]
SEEDS = SHARED_DIR / "seeds"

#: At most this many import lines in a lesson's setup cell: a newcomer reads them at a glance.
MAX_IMPORT_LINES = 14
MAINTAINER_TAG = "maintainer-checks"
MAINTAINER_DONE = "every figure in the text checked"
SELF_CHECK = re.compile(r"^### Self-check (\d+) ·", re.M)
SECTION = re.compile(r"^## (\d+) · ", re.M)
#: The kit's own-words rule: no run of this many words may stand in a seed (as in before-stop).
SEED_RUN = 12

#: Per lesson and self-check number: text of the cells that give its answer away. Each must
#: first appear after the self-check's check cell. Add a line when you add a self-check.
REVEALED_BY = {
    "01_scope_and_storage.ipynb": {
        1: ["{choice.name: [desk.key_for(", '"customers sharing one"'],
        2: ["def spring_ai(version)"],
        3: ['"default option (fromInput)": {}', "for error in (n8n.NO_SESSION_ID"],
        4: ["for v in (1.3, 1.4)})", "end in `__Memory_A`"],
        5: ["for between in desk.BETWEEN}"],
        6: ["Only **tenant + user** on **SQLite** does both"],
        7: ["(a) The key is fixed and nothing restarted"],
        8: ["does not\nbring back a deleted one"],
    },
    "02_with_and_without_memory.ipynb": {
        1: [
            "print(describe_call(turn_7_alone))",
            "Her order\nnumber was in turn 1's input",
            "no other way of knowing",
        ],
        2: ["print(describe_call(turn_7_with_memory))"],
        3: ["pd.DataFrame([(n.display_name", "declare no memory input at"],
        4: ['print("n8n stored:'],
        5: [
            'print("change_address receives:"',
            "0.\n</details>",
            "cannot read the agent's history",
        ],
        6: ['print("n8n 2.41.1:")'],
        7: ["explorer.show()"],
        8: ["the oldest turns have left a window of 4"],
    },
    "03_window_buffer_memory.ipynb": {
        1: ['"turns in the window (k = 5)"', "memory.add(*marta_messages)"],
        2: ["a full window of 5 loads", "window 2 on turn 4 loads"],
        3: ["replay_frame(marta", "for message in turn_7.sent"],
        4: ["Rebuild it turn by turn"],
        5: ["cost_by_window(", "(1.73×)"],
        6: ['pd.concat({"all set to 5"'],
        7: ["Turn 12 sees turns `12 − k`"],
    },
    "04_memory_that_outlives_the_session.ipynb": {
        1: ['"turn 6 sends from memory"', "Read the two columns separately"],
        2: [
            "print(table.ddl())",
            "The first element is turn 6's answer",
            "Four rows, numbered 0 to 3",
        ],
        3: ['"new process": after_table[0].pid', "The in-process row sends only"],
        4: ['"own Simple Memory: sent from memory"', "worker 1 sees only the odd turns"],
        5: ['"steps, in order"', "Spring AI lost A's question"],
        6: ["for rule in expiry.RULES", "Redis forgot at 11:20"],
        7: ["explorer = OutliveExplorer(", "which leaves three messages"],
        8: ["It is mistake 1"],
    },
    "05_designing_multi_turn_conversations.ipynb": {
        1: ["`2 × 10 = 20` messages, the same ten turns", "marta_rows = side_by_side("],
        2: [
            "print(describe_call(turn_9_call))",
            "From the newest: turn 8",
            "rows = side_by_side(chat, products)",
        ],
        3: ["reach = pd.DataFrame(", "(a) Turns 1, 2 and 3"],
        4: ["for group in load(store).messages[:4]", "Walking the 30"],
        5: ["plans = {", "gives `r ≤ 3`", "whole_history = summary_savings("],
        6: ["explorer = DesignExplorer(", "the one call\nafter the first compaction"],
        7: ["Mistake 2. Spring AI's 20 counts messages"],
    },
    "06_token_budget_and_context_drift.ipynb": {
        1: ["answered_so_far()", "retrieved.facts_known()[-1] == 5"],
        2: ['"bill so far": step.bill.input_tokens', "6 → 12 questions"],
        3: ["at_1500 = reference_table(", "sweep = reference_table("],
        4: ["the lossy summariser answers {lossy.answered}", "by_budget = summaries.pivot("],
        5: ["sweep = reference_table(", 'room for "\n      f"{room:.1f} reads'],
        6: ["explorer = BudgetExplorer("],
        7: ["drift = pd.DataFrame(", "the last call sends {recent.input_tokens:,} tokens"],
        8: ["It is mistake 2."],
    },
}


def cells(notebook: Path) -> list[dict]:
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


def text(cell: dict) -> str:
    source = cell["source"]
    return source if isinstance(source, str) else "".join(source)


def code_lines(cell: dict) -> list[str]:
    return [
        line
        for line in text(cell).splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def is_import(line: str) -> bool:
    return bool(re.match(r"\s*(import|from)\s+\S+", line)) and not line.lstrip().startswith(
        "from __future__"
    )


def stream_text(cell: dict) -> str:
    """What a code cell printed, as stored."""
    return "".join(
        o["text"] if isinstance(o["text"], str) else "".join(o["text"])
        for o in cell.get("outputs", [])
        if o.get("output_type") == "stream"
    )


def output_kinds(cell: dict) -> set[str]:
    return {kind for output in cell.get("outputs", []) for kind in output.get("data", {})}


def self_checks(notebook: Path) -> dict[int, tuple[int, int, int]]:
    """Self-check number -> (question cell, answer cell, check cell) indices."""
    found = {}
    all_cells = cells(notebook)
    for i, cell in enumerate(all_cells):
        if cell["cell_type"] == "markdown":
            for number in SELF_CHECK.findall(text(cell)):
                found[int(number)] = (i, i + 1, i + 2)
    return found


lessons = pytest.mark.parametrize("notebook", LESSONS, ids=lambda p: p.name)


def test_there_are_lessons_to_check():
    assert LESSONS, f"no lesson notebook in {COURSE}"


@lessons
def test_one_setup_cell_holds_every_import_and_few_of_them(notebook):
    code = [c for c in cells(notebook) if c["cell_type"] == "code"]
    setup = [line for line in code_lines(code[0]) if is_import(line)]
    assert setup, f"{notebook.name}: the first code cell is the setup cell and imports the library"
    assert len(setup) <= MAX_IMPORT_LINES, f"{notebook.name}: {len(setup)} import lines in setup"
    later = [line for c in code[1:] for line in code_lines(c) if is_import(line)]
    assert not later, f"{notebook.name}: imports outside the setup cell: {later}"


@lessons
def test_every_numbered_section_has_a_self_check(notebook):
    all_cells = cells(notebook)
    sections: dict[int, str] = {}
    current = None
    for cell in all_cells:
        if cell["cell_type"] != "markdown":
            continue
        body = text(cell)
        for line in body.splitlines():
            heading = SECTION.match(line + " ")
            if heading:
                current = int(heading.group(1))
                sections[current] = ""
            elif line.startswith("## "):
                current = None
            elif current is not None:
                sections[current] += line + "\n"
    assert sections, f"{notebook.name} has no numbered sections"
    missing = [n for n, body in sections.items() if not SELF_CHECK.search(body)]
    assert not missing, f"{notebook.name}: sections without a self-check: {missing}"


@lessons
def test_each_self_check_is_question_answer_check_with_explained_mistakes(notebook):
    all_cells = cells(notebook)
    found = self_checks(notebook)
    assert found, f"{notebook.name} has no self-check"
    assert sorted(found) == list(range(1, len(found) + 1)), "self-checks are numbered 1, 2, ..."
    for number, (_, answer_at, check_at) in found.items():
        answer, check = all_cells[answer_at], all_cells[check_at]
        assert answer["cell_type"] == "code", f"self-check {number}: an answer cell follows it"
        for statement in ast.parse(text(answer)).body:
            assert isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant)
            assert statement.value.value is None, f"self-check {number}: answers start as None"
        calls = [
            node
            for node in ast.walk(ast.parse(text(check)))
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "self_check"
        ]
        assert calls, f"self-check {number}: the cell after the answers calls self_check"
        for call in calls:
            keywords = {k.arg for k in call.keywords}
            assert {"hint", "mistakes"} <= keywords, (
                f"self-check {number}: give feedback that explains foreseen mistakes (hint= and mistakes=)"
            )
        stored = stream_text(check)
        assert "write your prediction" in stored, (
            f"self-check {number}: the committed notebook shows the unanswered prompt, not an answer"
        )


@pytest.mark.parametrize("name", sorted(REVEALED_BY))
def test_self_checks_come_before_the_outputs_that_answer_them(name):
    notebook = COURSE / name
    all_cells = cells(notebook)
    found = self_checks(notebook)
    assert set(REVEALED_BY[name]) == set(found), "list what reveals each self-check's answer"
    for number, snippets in REVEALED_BY[name].items():
        check_at = found[number][2]
        for snippet in snippets:
            first = next((i for i, c in enumerate(all_cells) if snippet in text(c)), None)
            assert first is not None, f"{name}: {snippet!r} is in no cell"
            assert first > check_at, (
                f"{name}: cell {first} ({snippet!r}) answers self-check {number} before its check (cell {check_at})"
            )


@lessons
def test_every_table_and_plot_is_followed_by_a_sentence_that_reads_it(notebook):
    all_cells = cells(notebook)
    for i, cell in enumerate(all_cells):
        kinds = output_kinds(cell)
        if "application/vnd.jupyter.widget-view+json" in kinds:
            continue  # the explorer: its own section says what to do with it
        if {"text/html", "image/png"} & kinds:
            after = all_cells[i + 1] if i + 1 < len(all_cells) else None
            assert after is not None and after["cell_type"] == "markdown", (
                f"{notebook.name}: cell {i} shows a table or plot; follow it with a sentence that reads it"
            )
            assert not text(after).lstrip().startswith("#"), (
                f"{notebook.name}: cell {i + 1} starts a new heading instead of reading cell {i}'s output"
            )


@lessons
def test_asserts_live_only_in_the_folded_maintainer_cell_which_ran_to_its_end(notebook):
    code = [c for c in cells(notebook) if c["cell_type"] == "code"]
    with_asserts = [
        i
        for i, c in enumerate(code)
        if any(isinstance(n, ast.Assert) for n in ast.walk(ast.parse(_python(text(c)))))
    ]
    assert with_asserts == [len(code) - 1], (
        f"{notebook.name}: asserts in code cells {with_asserts}; keep them in the last, folded cell"
    )
    last = code[-1]
    assert MAINTAINER_TAG in last["metadata"].get("tags", [])
    assert last["metadata"].get("jupyter", {}).get("source_hidden") is True, (
        "fold the maintainer cell"
    )
    stored = stream_text(last)
    assert MAINTAINER_DONE in stored, (
        f"{notebook.name}: the maintainer checks did not run to the end"
    )


def _python(source: str) -> str:
    # IPython magics are not Python: blank them out before parsing.
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()
    )


@lessons
def test_a_resources_section_lists_docs_and_source_with_versions(notebook):
    resources = [
        ("\n" + text(c)).split("\n## Resources", 1)[1]
        for c in cells(notebook)
        if "\n## Resources" in "\n" + text(c)
    ]
    assert resources, f"{notebook.name}: add a ## Resources section"
    items = [line for line in resources[0].splitlines() if line.lstrip().startswith("- ")]
    assert len(items) >= 4, f"{notebook.name}: Resources lists {len(items)} items"
    assert re.search(r"\d+\.\d+", resources[0]), "name the versions of the sources read"


# ---------------------------------------------------------------- in our own words

MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
WORD = re.compile(r"[a-z0-9áéíóúñü#]+(?:'[a-z]+)?")


def words(passage: str) -> list[str]:
    """The passage's words as ../shared/hooks/before-stop counts them (maths left out)."""
    return WORD.findall(MATH.sub(" ", passage).lower().replace("\u2019", "'"))


def runs_shared_with(passage: str, grams: set[tuple[str, ...]]) -> list[str]:
    w = words(passage)
    return [
        " ".join(w[k : k + SEED_RUN])
        for k in range(len(w) - SEED_RUN + 1)
        if tuple(w[k : k + SEED_RUN]) in grams
    ]


def test_the_word_count_matches_the_hook():
    assert words("It's the window’s job: $C_t$ #6023 Medellín.") == [
        "it's",
        "the",
        "window's",
        "job",
        "#6023",
        "medellín",
    ]
    grams = {tuple(words("one two three four five six seven eight nine ten eleven twelve"))}
    assert runs_shared_with(
        "zero one two three four five six seven eight nine ten eleven twelve", grams
    )
    assert not runs_shared_with("one two three four five six seven eight nine ten eleven", grams)


@pytest.mark.skipif(
    not SEEDS.is_dir(), reason=f"the seeds are not at {SEEDS}: the own-words check needs ../shared"
)
def test_no_lesson_assignment_or_kit_repeats_a_seed_for_twelve_words():
    grams: set[tuple[str, ...]] = set()
    for seed in SEEDS.glob("*.txt"):
        w = words(seed.read_text(encoding="utf-8"))
        grams |= {tuple(w[i : i + SEED_RUN]) for i in range(len(w) - SEED_RUN + 1)}
    notebooks = [
        *LESSONS,
        *sorted((REPO / "source").rglob("*.ipynb")),
        *sorted((REPO / "release").rglob("*.ipynb")),
    ]
    found = [
        f"{nb.relative_to(REPO)}, cell {i}: {runs[0]!r}"
        for nb in notebooks
        for i, cell in enumerate(cells(nb))
        for runs in [runs_shared_with(text(cell), grams)]
        if runs
    ]
    found += [
        f"{md.relative_to(REPO)}: {runs[0]!r}"
        for md in sorted(COURSE.glob("*.md"))
        for runs in [runs_shared_with(md.read_text(encoding="utf-8"), grams)]
        if runs
    ]
    assert not found, "say these in our own words:\n" + "\n".join(found)


# ---------------------------------------------------------------- lesson 3's own promises


def test_lesson3_snapshot_says_turn_1_not_turns_1():
    html = "".join(
        "".join(o.get("data", {}).get("text/html", ""))
        for c in cells(COURSE / "03_window_buffer_memory.ipynb")
        for o in c.get("outputs", [])
        if "wm-evicted-turns" in "".join(o.get("data", {}).get("text/html", ""))
    )
    assert html, "the explorer's static snapshot is stored"
    assert (
        'turn <b class="wm-evicted-turns">1</b>' in html
        and 'turns <b class="wm-evicted-turns">1<' not in html
    )


def test_lesson3_teaches_storage_against_load_in_section_1():
    all_cells = cells(COURSE / "03_window_buffer_memory.ipynb")
    section_2 = next(
        i
        for i, c in enumerate(all_cells)
        if text(c).lstrip().startswith("## 2 ·") or "\n## 2 ·" in text(c)
    )
    first = "\n".join(text(c) for c in all_cells[:section_2])
    assert "memory.stored" in first and "memory.load()" in first
    assert "for good" not in first, "n8n keeps every message: eviction is of the load"


# ---------------------------------------------------------------- lesson 6's own promises

LESSON_6 = COURSE / "06_token_budget_and_context_drift.ipynb"


def lesson6_text() -> str:
    return "\n".join(text(c) for c in cells(LESSON_6))


def test_lesson6_defines_answered_as_the_engine_does_and_plots_both_counts():
    body = lesson6_text()
    assert "*at the moment it is answered*" in body
    assert "result.answered_so_far()" in body and "result.facts_known()" in body


def test_lesson6_states_the_engine_s_lossy_rate():
    from windowmem.budget.strategies import LOSSY_DROP_BELOW

    assert f"probability {1 - LOSSY_DROP_BELOW}" in lesson6_text()


def test_lesson6_cites_the_context_drift_source():
    body = lesson6_text()
    assert "Lost in the Middle" in body and "Liu et al." in body and "2024" in body


def test_lesson6_shows_the_published_figures_it_reproduces():
    """The seed chapter's figures are in the stored table, as published and as windowmem reproduces them."""
    from windowmem.budget.published import PUBLISHED

    shown = "".join(
        "".join(o.get("data", {}).get("text/plain", ""))
        for c in cells(LESSON_6)
        for o in c.get("outputs", [])
        if "published: answered" in "".join(o.get("data", {}).get("text/plain", ""))
    )
    for figures in PUBLISHED.values():
        if figures.input_tokens is not None:
            assert f"{figures.input_tokens:,}" in shown
    assert PUBLISHED[("compact", "lossy")].answered == 7
    assert [str(f) for f in (26_616, 18_094, 16_768, 39_175)] == [
        str(PUBLISHED[(p, "perfect")].input_tokens)
        for p in ("unbounded", "truncate", "compact", "retrieve")
    ]
