"""The Chat Memory Manager model against the checked fact sheet (section C, n8n 2.41.1)."""

from __future__ import annotations

import pytest

from tests.strategies import contents
from windowmem.errors import WindowMemError
from windowmem.messages import Role, assistant, system, tool, user
from windowmem.policies import N8nSimpleMemory
from windowmem.policies.n8n.memory_manager import (
    DEFAULT_DELETE_COUNT,
    DEFAULT_MODE,
    DEFAULT_TYPE,
    ManagerMessage,
    chat_widget_messages,
    delete,
    insert,
    load,
    model_history,
    simplify_messages,
    stored_history,
)

FOUR = stored_history([user("h1"), assistant("a1"), user("h2"), assistant("a2")])


def test_defaults_are_the_node_s():
    assert (DEFAULT_MODE, DEFAULT_TYPE.value, DEFAULT_DELETE_COUNT) == ("load", "system", 2)


@pytest.mark.parametrize(
    "messages, expected",
    [
        (
            [user("h1"), assistant("a1"), user("h2"), assistant("a2")],
            [{"human": "h1", "ai": "a1"}, {"human": "h2", "ai": "a2"}],
        ),
        ([system("s"), user("h1"), assistant("a1")], [{"system": "s", "human": "h1", "ai": "a1"}]),
        (
            [user("u"), assistant("", ["c"]), tool("t", "c"), assistant("a")],
            [{"human": "u", "ai": [], "tool": "t"}, {"ai": "a"}],
        ),
        ([user("h1"), user("h2"), assistant("a")], [{"human": "h1"}, {"human": "h2", "ai": "a"}]),
    ],
)
def test_simplify_output_vectors(messages, expected):
    assert simplify_messages(messages) == expected


def test_messages_count_counts_groups_with_simplify_and_messages_without():
    """The fact sheet's correction (G): [h1,a1,h2,a2] -> messagesCount 2, not 4."""
    assert load(FOUR).messages_count == 2
    assert load(FOUR, simplify_output=False).messages_count == 4


def test_load_reads_the_whole_history_not_the_window():
    long = stored_history([m for t in range(7) for m in (user(f"u{t}"), assistant(f"a{t}"))])
    assert len(load(long, simplify_output=False).messages) == 14
    assert len(N8nSimpleMemory(5).load(model_history(long))) == 10


def test_insert_appends_and_override_replaces():
    added = insert(FOUR, [ManagerMessage("note")])
    assert contents(model_history(added)) == ["h1", "a1", "h2", "a2", "note"]
    assert model_history(added)[-1].role is Role.SYSTEM  # the default type
    replaced = insert(FOUR, [ManagerMessage("sum", "ai"), ManagerMessage("q", "user")], "override")
    assert [(m.role, m.content) for m in model_history(replaced)] == [
        (Role.ASSISTANT, "sum"),
        (Role.USER, "q"),
    ]


def test_insert_has_no_tool_type_and_needs_text():
    with pytest.raises(WindowMemError, match="no tool type"):
        insert(FOUR, [ManagerMessage("r", "tool")])
    with pytest.raises(WindowMemError, match="required"):
        insert(FOUR, [ManagerMessage("")])
    with pytest.raises(WindowMemError, match="Insert Mode"):
        insert(FOUR, [], "replace")


def test_delete_last_n_and_all():
    assert contents(model_history(delete(FOUR))) == ["h1", "a1"]
    assert contents(model_history(delete(FOUR, last_messages_count=3))) == ["h1"]
    assert delete(FOUR, last_messages_count=5) == FOUR  # fewer stored than N: nothing goes
    assert delete(FOUR, "all") == ()
    with pytest.raises(WindowMemError, match="Delete Mode"):
        delete(FOUR, "first")
    with pytest.raises(WindowMemError, match="negative"):
        delete(FOUR, last_messages_count=-1)


def test_hide_from_ui_hides_from_the_widget_not_from_the_model():
    history = insert(FOUR, [ManagerMessage("Customer is VIP", "system", hide_from_ui=True)])
    assert "Customer is VIP" not in contents(chat_widget_messages(history))
    window = N8nSimpleMemory(5).load(model_history(history))
    assert "Customer is VIP" in contents(window)


def test_an_inserted_system_message_is_cut_like_any_other():
    history = insert(stored_history(()), [ManagerMessage("Order #4417")])
    for t in range(5):
        history = (*history, *stored_history([user(f"u{t}"), assistant(f"a{t}")]))
    assert "Order #4417" not in contents(N8nSimpleMemory(5).load(model_history(history)))
