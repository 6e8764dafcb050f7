"""The importable workflows of lessons 1 to 4 (fast: no n8n needed).

``course/workflows/`` is what ``python -m verify.n8n.course_workflows`` makes from the
harness's workflows; the live tier (``test_course_live.py``) imports each into n8n 2.41.1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verify.n8n import course_workflows as cw

REPO = Path(__file__).resolve().parents[2]
FOLDER = REPO / "course" / "workflows"


def _load(name: str) -> dict[str, Any]:
    return dict(json.loads((FOLDER / name).read_text(encoding="utf-8")))


def _by_type(workflow: dict[str, Any], suffix: str) -> dict[str, Any]:
    (node,) = [n for n in workflow["nodes"] if n["type"].endswith(suffix)]
    return dict(node)


def test_the_files_are_what_the_script_makes() -> None:
    made = cw.build()
    assert sorted(p.name for p in FOLDER.glob("*.json")) == sorted(made)
    for name, text in made.items():
        assert (FOLDER / name).read_text(encoding="utf-8") == text, f"{name}: run the script"
    assert cw.stale(FOLDER) == []


def test_a_changed_or_extra_file_is_reported_stale(tmp_path: Path) -> None:
    for name, text in cw.build().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert cw.stale(tmp_path) == []
    (tmp_path / "lesson3_window.json").write_text("{}", encoding="utf-8")
    (tmp_path / "old.json").write_text("{}", encoding="utf-8")
    assert cw.stale(tmp_path) == ["lesson3_window.json", "old.json"]


def test_every_lesson_1_to_4_has_one_to_three() -> None:
    counts = {lesson: 0 for lesson in (1, 2, 3, 4)}
    for spec in cw.COURSE_WORKFLOWS:
        counts[spec.lesson] += 1
        assert spec.file.startswith(f"lesson{spec.lesson}_")
    assert all(1 <= n <= 3 for n in counts.values()), counts


@pytest.mark.parametrize("spec", cw.COURSE_WORKFLOWS, ids=lambda s: s.file)
def test_no_harness_part_is_left(spec: cw.CourseWorkflow) -> None:
    text = (FOLDER / f"{spec.file}.json").read_text(encoding="utf-8")
    workflow = json.loads(text)
    assert "__WM_" not in text and "windowmem" not in text
    assert all("credentials" not in n for n in workflow["nodes"])
    assert not [n for n in workflow["nodes"] if n["type"].endswith("memoryManager")]
    assert "id" not in workflow and "active" not in workflow  # n8n gives its own on import
    assert "$json.body.system" not in text
    agent = _by_type(workflow, ".agent")
    assert agent["parameters"]["options"]["systemMessage"] == spec.system_message
    assert spec.system_message.startswith(cw.SYSTEM_MESSAGE)
    # Lesson 2's tool turn must happen in the learner's own n8n: its agent is told to use the tool.
    assert ("Use the Calculator tool" in spec.system_message) == (spec.file == "lesson2_tool_turns")


@pytest.mark.parametrize("spec", cw.COURSE_WORKFLOWS, ids=lambda s: s.file)
def test_the_memory_node_is_the_harness_s(spec: cw.CourseWorkflow) -> None:
    """Same memory node, typeVersion and window as the workflow the live tier checks."""
    workflow = _load(f"{spec.file}.json")
    source = json.loads((cw.SOURCES / f"{spec.source}.json").read_text(encoding="utf-8"))
    memory = [n for n in workflow["nodes"] if ".memory" in n["type"]]
    harness = [n for n in source["nodes"] if ".memory" in n["type"] and "Manager" not in n["type"]]
    assert len(memory) == len(harness) == 1
    assert memory[0]["type"] == harness[0]["type"]
    assert memory[0]["typeVersion"] == harness[0]["typeVersion"]
    assert memory[0]["parameters"].get("contextWindowLength") == harness[0]["parameters"].get(
        "contextWindowLength"
    )
    for kind in (".lmChatOpenAi", ".agent"):
        assert _by_type(workflow, kind)["typeVersion"] == _by_type(source, kind)["typeVersion"]


@pytest.mark.parametrize("spec", cw.COURSE_WORKFLOWS, ids=lambda s: s.file)
def test_the_trigger_feeds_the_agent_and_the_session_id_follows_it(
    spec: cw.CourseWorkflow,
) -> None:
    workflow = _load(f"{spec.file}.json")
    memory = next(n for n in workflow["nodes"] if ".memory" in n["type"])
    if spec.lock:
        return  # test_the_lock_stands_around_the_agent
    if spec.trigger == "chat":
        trigger = _by_type(workflow, ".chatTrigger")
        if spec.lesson == 4:  # lesson 4's one key on every workflow it imports: no suffix
            assert spec.define_below
            assert memory["parameters"]["sessionIdType"] == "customKey"
            assert (
                memory["parameters"]["sessionKey"]
                == "={{ $('When chat message received').item.json.sessionId }}"
            )
        else:
            assert memory["parameters"]["sessionIdType"] == "fromInput"
        harness = json.loads((cw.SOURCES / "chat-trigger.json").read_text(encoding="utf-8"))
        assert trigger["parameters"] == _by_type(harness, ".chatTrigger")["parameters"]
    else:
        trigger = _by_type(workflow, ".webhook")
        assert trigger["parameters"]["path"] == spec.webhook_path
        assert memory["parameters"]["sessionKey"] == "={{ $json.body.sessionId }}"
    assert workflow["connections"][trigger["name"]]["main"] == [
        [{"node": "AI Agent", "type": "main", "index": 0}]
    ]
    wired = {name for name, kinds in workflow["connections"].items() for _ in kinds}
    on_canvas = {n["name"] for n in workflow["nodes"] if not n["type"].endswith("stickyNote")}
    assert wired == on_canvas - {"AI Agent"}


def test_postgres_gets_n8n_s_default_table() -> None:
    memory = _by_type(_load("lesson4_postgres.json"), ".memoryPostgresChat")
    assert memory["parameters"]["tableName"] == "n8n_chat_histories"


def test_each_has_a_note_saying_what_to_try() -> None:
    for spec in cw.COURSE_WORKFLOWS:
        note = _by_type(_load(f"{spec.file}.json"), ".stickyNote")
        assert note["parameters"]["content"] == spec.note
        assert note["parameters"]["content"].startswith(f"## Lesson {spec.lesson}")


def test_a_missing_source_or_bad_trigger_is_a_clear_error() -> None:
    sources = cw.load_sources()
    spec = cw.COURSE_WORKFLOWS[0]
    with pytest.raises(cw.CourseWorkflowError, match="no harness workflow 'nope'"):
        cw.derive(cw.CourseWorkflow("x", 1, "nope", "t", "chat", "n"), sources)
    with pytest.raises(cw.CourseWorkflowError, match="trigger must be"):
        cw.derive(cw.CourseWorkflow("x", 1, spec.source, "t", "email", "n"), sources)


def test_the_lock_stands_around_the_agent() -> None:
    """Lesson 4's recipe: Increment with Expire, If the count is 1, the agent, Delete; the If's
    other branch answers "one moment" in ``output``; prompt and key read the Chat Trigger."""
    from windowmem.outlive import session_lock

    workflow = _load("lesson4_lock.json")
    nodes = {n["name"]: n for n in workflow["nodes"]}
    flow = {
        name: [[t["node"] for t in targets] for targets in kinds["main"]]
        for name, kinds in workflow["connections"].items()
        if "main" in kinds
    }
    assert flow == {
        "When chat message received": [[cw.LOCK_TAKE]],
        cw.LOCK_TAKE: [[cw.LOCK_TEST]],
        cw.LOCK_TEST: [["AI Agent"], [cw.LOCK_WAIT]],
        "AI Agent": [[cw.LOCK_RELEASE], [cw.LOCK_SORRY]],  # Success, then Error
        cw.LOCK_SORRY: [[cw.LOCK_RELEASE]],
    }
    # A failed run leaves by the agent's Error output (Settings, On Error), through Sorry's
    # reply, to the release.
    assert nodes["AI Agent"]["onError"] == "continueErrorOutput"
    (sorry,) = nodes[cw.LOCK_SORRY]["parameters"]["assignments"]["assignments"]
    assert sorry["name"] == "output" and sorry["value"] == cw.SORRY
    take = nodes[cw.LOCK_TAKE]["parameters"]
    assert take == {
        "operation": "incr",
        "key": "=lock:{{ $('When chat message received').item.json.sessionId }}",
        "expire": True,
        "ttl": 60,
    }
    assert take["ttl"] == session_lock.RECIPE_TTL
    release = nodes[cw.LOCK_RELEASE]["parameters"]
    assert release["operation"] == "delete"
    assert release["key"] == "=lock:{{ $('When chat message received').item.json.sessionId }}"
    (condition,) = nodes[cw.LOCK_TEST]["parameters"]["conditions"]["conditions"]
    assert condition["rightValue"] == 1 and condition["operator"]["operation"] == "equals"
    (reply,) = nodes[cw.LOCK_WAIT]["parameters"]["assignments"]["assignments"]
    assert reply["name"] == "output" and reply["value"] == session_lock.ONE_MOMENT
    agent = nodes["AI Agent"]["parameters"]
    assert agent["promptType"] == "define"
    assert agent["text"] == "={{ $('When chat message received').item.json.chatInput }}"
    memory = _by_type(workflow, ".memoryPostgresChat")["parameters"]
    assert memory["sessionIdType"] == "customKey" and memory["sessionKey"] == release[
        "key"
    ].replace("=lock:", "=")
