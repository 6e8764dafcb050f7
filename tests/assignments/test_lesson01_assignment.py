"""Lesson 1's nbgrader assignment: its grade contract, model answers and a round trip
through ``python -m autograder grade``, the command instructors run.

What every assignment must be (schema, test cells, parts, rubrics, a clean and current
release) is checked for this one too, in ``test_assignments.py``. Here: the graded cells and
points; the model answers agree with
``windowmem`` (itself tested against the checked fact sheet); and one grading run over the
instructor notebook (every autograded point), the untouched release (nothing, no crash)
and mutants (typical mistakes and shortcuts, each failing exactly its cells).
"""

from __future__ import annotations

import re

import pytest

from tests.nbgrader_helpers import (
    REPO_ROOT,
    GradingRoundTrip,
    always_equal_cheat,
    cell_text,
    cells_by_id,
    graded_points,
    nbgrader_meta,
    part_points,
    pipeline_fixture,
    reached_every_way,
    read_notebook,
    transcribed,
    with_partial_losses,
)

ASSIGNMENT = "lesson01_scope_and_storage"
NOTEBOOK = "scope_and_storage.ipynb"
SOURCE = REPO_ROOT / "source" / ASSIGNMENT / NOTEBOOK
RELEASE = REPO_ROOT / "release" / ASSIGNMENT / NOTEBOOK

#: The graded cells and their points. Gradebooks in use rely on these names.
GRADE_CONTRACT = {
    "test_fill_key_examples": 2,
    "test_fill_key_errors": 1,
    "test_shared_buckets": 2,
    "test_a2_chat_1_3": 1,
    "test_a2_chat_1_4": 1,
    "test_a2_webhook_define_below": 1,
    "test_a2_webhook_default": 1,
    "test_a2_schedule_define_below": 1,
    "test_chosen_template": 2,
    "defence_answer": 4,
    "test_loaded_after_basics": 1,
    "test_loaded_after_expiry": 2,
    "test_loaded_after_errors": 1,
    "test_survival_storage": 2,
    "test_survival_tabs": 2,
    "test_case_1": 1,
    "test_case_2": 1,
    "test_case_3": 1,
    "test_case_4": 1,
    "test_case_5": 1,
    "test_case_6": 1,
    "reasoning_answer": 3,
}
HAND_GRADED = {"defence_answer", "reasoning_answer"}
A1 = {"test_fill_key_examples", "test_fill_key_errors", "test_shared_buckets"}

_CORRECT_BUCKETS = """

def shared_buckets(template, conversations):
    groups = {}
    for name, request in conversations.items():
        groups.setdefault(fill_key(template, request), []).append(name)
    return [names for names in groups.values() if len(names) > 1]
"""
_CORRECT_FILL = """
def fill_key(template, request):
    out, rest = [], template
    while "{{" in rest:
        before, _, after = rest.partition("{{")
        path, _, rest = after.partition("}}")
        value = request
        for name in path.strip().split("."):
            if not isinstance(value, dict) or name not in value:
                raise ValueError(path)
            value = value[name]
        if type(value) is int:
            value = str(value)
        if type(value) is not str or value == "":
            raise ValueError(path)
        out += [before, value]
    return "".join(out) + rest
"""
_LOADED_AFTER = """
def loaded_after(store, events, window, ttl_minutes=0):
    if store not in ("in-process", "sqlite", "redis") or window < 0:
        raise ValueError("bad arguments")
    if not isinstance(ttl_minutes, (int, float)) or ttl_minutes < 0:
        raise ValueError("bad time to live")
    if "turn" not in events:
        raise ValueError("no turn")
    stored, now, first_use, last_use, loaded = 0, 0.0, None, None, 0
    for event in events:
        if event == "turn":
            if last_use is not None and (
                (store == "in-process" and {stale})
                or (store == "redis" and ttl_minutes > 0 and now - last_use >= ttl_minutes)
            ):
                stored = 0
            loaded = stored if window == 0 else min(stored, 2 * window)
            first_use = now if first_use is None else first_use
            last_use = now
            stored += 2
        elif event == "restart":
            if {restart_clears}:
                stored, first_use, last_use = 0, None, None
        elif isinstance(event, tuple) and event[0] == "pause" and event[1] >= 0:
            now += event[1]
        else:
            raise ValueError(event)
    return loaded
"""
#: C1 answered with the lesson's simulator: right where it applies, useless where the rules differ.
_LOADED_AFTER_WITH_WINDOWMEM = """
from windowmem import scope as desk


def loaded_after(store, events, window, ttl_minutes=0):
    if "turn" not in events:
        raise ValueError("no turn")
    script = []
    for number, event in enumerate(events):
        if event == "turn":
            script.append(desk.Request(desk.MARTA, "m-1", f"q{number}", f"a{number}"))
        elif event == "restart":
            script.append(desk.Restart())
        elif isinstance(event, tuple) and len(event) == 2 and event[0] == "pause":
            script.append(desk.Pause(event[1]))
        else:
            raise ValueError(event)
    run = desk.run_script(script, desk.TENANT_USER.template, store, window=window)
    return len(run.calls[-1].window)
"""


def loaded_after_mutant(stale: str, restart_clears: str = 'store == "in-process"') -> str:
    return _LOADED_AFTER.format(stale=stale, restart_clears=restart_clears)


def source_of(grade_id: str) -> str:
    return cell_text(cells_by_id(read_notebook(SOURCE))[grade_id])


def replaced(grade_id: str, old: str, new: str) -> str:
    text = source_of(grade_id)
    assert old in text, f"{grade_id} no longer holds {old!r}: update the mutant"
    return text.replace(old, new)


#: Students who get something wrong: (answer cell they edit, its new source, cells that must fail).
MUTANTS = {
    # The lesson's own renderer follows another product's rules: it earns nothing on A1.
    "calls_windowmem_render_key": (
        "fill_key_answer",
        "from windowmem.key_templates import render_key\n\n\n"
        "def fill_key(template, request):\n    return render_key(template, request)\n"
        + _CORRECT_BUCKETS,
        A1,
    ),
    "str_of_anything": (
        "fill_key_answer",
        _CORRECT_FILL.replace(
            """        if type(value) is int:
            value = str(value)
        if type(value) is not str or value == "":""",
            """        if value is None or value == "":
            raise ValueError(path)
        value = str(value)
        if False:""",
        )
        + _CORRECT_BUCKETS,
        {"test_fill_key_errors"},
    ),
    # A list that equals anything passes `==`; the hidden tests check the real type.
    "always_equal_buckets": (
        "fill_key_answer",
        always_equal_cheat(
            _CORRECT_FILL
            + "\n\ndef shared_buckets(template, conversations):\n    return SameAsAnything()\n",
            hide_from_type_checks=False,  # later answers use type(); the hidden tests need no help
        ),
        {"test_shared_buckets"},
    ),
    "no_workflow_prefix": (
        "n8n_answer",
        replaced("n8n_answer", '"helpdesk__', '"'),
        {"test_a2_chat_1_3", "test_a2_chat_1_4", "test_a2_webhook_define_below"},
    ),
    "ticket_left_out": (
        "template_answer",
        replaced("template_answer", ":{{ body.ticket }}", ""),
        {"test_chosen_template"},
    ),
    # shop, user and ticket run together: user 1's ticket 12 is user 11's ticket 2
    "no_separators": (
        "template_answer",
        'chosen_template = "{{ body.shopId }}{{ body.userId }}{{ body.ticket }}"\n',
        {"test_chosen_template"},
    ),
    "constant_key": (
        "template_answer",
        'chosen_template = "support-chat"\n',
        {"test_chosen_template"},
    ),
    "calls_windowmem_run_script": (
        "loaded_after_answer",
        _LOADED_AFTER_WITH_WINDOWMEM,
        {"test_loaded_after_basics", "test_loaded_after_expiry", "test_loaded_after_errors"},
    ),
    "idle_from_first_use": (
        "loaded_after_answer",
        loaded_after_mutant("now - first_use > 60"),
        {"test_loaded_after_expiry"},
    ),
    "idle_at_sixty": (
        "loaded_after_answer",
        loaded_after_mutant("now - last_use >= 60"),
        {"test_loaded_after_expiry"},
    ),
    "sqlite_forgets_on_restart": (
        "loaded_after_answer",
        loaded_after_mutant("now - last_use > 60", restart_clears='store != "redis"'),
        {"test_loaded_after_basics"},
    ),
    "new_tab_keeps_session": (
        "survival_answer",
        replaced("survival_answer", "new_tab_same_session = False", "new_tab_same_session = True"),
        {"test_survival_tabs"},
    ),
    "everything_is_the_window": (
        "cases_answer",
        re.sub(r'"(scope|storage)"', '"window"', source_of("cases_answer")),
        {"test_case_2", "test_case_3", "test_case_4", "test_case_5"},
    ),
}

#: The same shortcut reached through sys.modules, importlib at run time, a container and a
#: closure: the behaviour check blocks every path, so each loses exactly calls_windowmem_render_key's points.
MUTANTS |= reached_every_way(MUTANTS, "calls_windowmem_render_key", "windowmem.key_templates")

#: A mistake costs the cases it gets wrong (partial credit per case), measured through the
#: pipeline: each mutant still fails exactly the cells it names above.
MUTANTS = with_partial_losses(
    MUTANTS,
    {
        "idle_at_sixty": {"test_loaded_after_expiry": 0.15},
        "idle_from_first_use": {"test_loaded_after_expiry": 0.31},
        "new_tab_keeps_session": {"test_survival_tabs": 1.0},
        "no_separators": {"test_chosen_template": 0.5},
        "ticket_left_out": {"test_chosen_template": 0.5},
    },
)


#: A student who skims: every procedure and rule the prompt words is followed to the letter,
#: the labels matched by keyword ("Context Window Length" -> window, "deploys" and "lunch" ->
#: storage, "two shops", "reloads" -> scope), the key's fields strung together as A1 shows them.
SKIMMER = {
    **transcribed(
        read_notebook(SOURCE),
        "fill_key_answer",
        "n8n_answer",
        "loaded_after_answer",
        "survival_answer",
        "cases_answer",
    ),
    "template_answer": 'chosen_template = "{{ body.shopId }}{{ body.userId }}{{ body.ticket }}"\n',
}


@pytest.fixture(scope="module")
def source_nb() -> dict:
    return read_notebook(SOURCE)


def test_grade_ids_and_points_are_the_contract(source_nb):
    assert graded_points(source_nb, autograded_only=False) == {
        k: float(v) for k, v in GRADE_CONTRACT.items()
    }
    assert list(part_points(source_nb)) == ["Part A", "Part B", "Part C", "Part D"]


def test_the_release_keeps_rubrics_and_model_answers_to_the_instructor():
    released = RELEASE.read_text(encoding="utf-8")
    assert (
        "Rubric" not in released and "Simple Memory typeVersion 1's `chat_history`" not in released
    )


def _answers(source_nb, grade_id: str) -> dict:
    scope: dict = {}
    exec(cell_text(cells_by_id(source_nb)[grade_id]), scope)  # the instructor's own answer cell
    return scope


def test_the_n8n_answers_are_what_windowmem_computes_from_the_fact_sheet(source_nb):
    from windowmem.policies.n8n.session_ids import (
        buffer_key_or_error,
        chat_trigger_item,
        schedule_item,
        webhook_item,
    )

    a = _answers(source_nb, "n8n_answer")
    chat = chat_trigger_item("7f1c", "Hola")
    hook = webhook_item({"ticket": 42})
    below = {"id_type": "customKey", "key": "={{ $json.body.ticket }}"}
    assert a["a2_chat_1_3"] == buffer_key_or_error(chat, workflow_id="helpdesk", type_version=1.3)
    assert a["a2_chat_1_4"] == buffer_key_or_error(
        chat, workflow_id="helpdesk", type_version=1.4, node_name="Order Memory"
    )
    assert a["a2_webhook_define_below"] == buffer_key_or_error(
        hook, workflow_id="helpdesk", **below
    )
    assert a["a2_webhook_default"] == buffer_key_or_error(hook, workflow_id="helpdesk")
    assert a["a2_schedule_define_below"] == buffer_key_or_error(
        schedule_item(), workflow_id="helpdesk", **below
    )


def test_the_survival_answers_are_what_windowmem_computes(source_nb):
    from windowmem import scope as desk
    from windowmem.policies.n8n.session_ids import widget_session_id

    a = _answers(source_nb, "survival_answer")
    chat = [desk.Request(desk.MARTA, "m-1", f"q{i}", f"a{i}") for i in range(3)]
    back = desk.Request(desk.MARTA, "m-1", "again", "hello again")

    def next_turn(store, between):
        run = desk.run_script([*chat, between, back], desk.TENANT_USER.template, store)
        return len(run.calls[-1].window)

    assert a["after_restart_simple_memory"] == next_turn("in-process", desk.Restart())
    assert a["after_lunch_simple_memory"] == next_turn("in-process", desk.Pause(90))
    assert a["after_lunch_sqlite"] == next_turn("sqlite", desk.Pause(90))
    tab = widget_session_id("old", load_previous_session=False, fresh="new")
    assert a["new_tab_same_session"] is (tab == "old")
    tab = widget_session_id("old", load_previous_session=True, fresh="new")
    assert a["new_tab_from_memory_same_session"] is (tab == "old")


# ---------------------------------------------------------------- the round trip


graded = pipeline_fixture(ASSIGNMENT, MUTANTS, SKIMMER)


class TestTheGradingRun(GradingRoundTrip):
    notebook = NOTEBOOK
    mutants = MUTANTS
    contract = GRADE_CONTRACT
    hand_graded = HAND_GRADED


def test_every_mutant_edits_an_answer_cell():
    answers = {
        nbgrader_meta(c)["grade_id"]
        for c in read_notebook(SOURCE)["cells"]
        if nbgrader_meta(c).get("solution") and c["cell_type"] == "code"
    }
    assert {cell for cell, _, _ in MUTANTS.values()} <= answers
    assert set().union(*(cells for _, _, cells in MUTANTS.values())) <= set(GRADE_CONTRACT)
