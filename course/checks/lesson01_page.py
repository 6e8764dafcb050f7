"""Lesson 1's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson01", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
The version tables, the other products and their checks are on the reference page,
``course/reference/01_scope_and_storage_notes.ipynb``, whose last cell checks them.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

from dataclasses import replace

from windowmem.messages import Role
from windowmem.policies import N8nSimpleMemory
from windowmem_course.checks.page import workflow_node

# Going further: a buffer is named workflow id, "__", session key (the explorer's workflow
# is support-agent); the lesson's workflow has Simple Memory on its agent.
assert desk.InProcessStore(5).buffer_name("user:u-1") == "support-agent__user:u-1"
assert workflow_node("lesson1_chat_trigger", "Simple Memory")["type"].endswith(
    ".memoryBufferWindow"
)

# Section 1: the seven requests, the shared u-1, the per user key's history, the renamed chat.
# (The drawing of store and load is in Going further's explorer part.)
assert len(requests) == 7 and len(desk.KEY_CHOICES) == 5
# the key table shows three of the library's five choices
assert [c.name for c in shown] == ["per user", "per thread", "tenant + user"]
assert [c.name for c in desk.KEY_CHOICES] == [
    "per user",
    "per thread",
    "composite",
    "tenant + user",
    "constant",
]
assert requests[4].customer == desk.MARTA and requests[4].thread == "m-2"  # request 5: a new chat
assert (
    desk.MARTA.user_id == desk.CARLOS.user_id == "u-1" and desk.MARTA.tenant != desk.CARLOS.tenant
)
assert [
    i + 1 for i, r in enumerate(requests) if desk.key_for(desk.PER_USER.template, r) == "user:u-1"
] == [1, 2, 3, 5, 7]
assert [n for n in desk.owners(desk.PER_USER.template, requests)["user:u-1"]] == [
    "Marta",
    "Carlos",
]
# The drawing's caption: under tenant + user Marta's return loads her own four messages, under
# per user Carlos's turn too.
for choice, foreign in ((desk.TENANT_USER, set()), (desk.PER_USER, {"Carlos"})):
    back = desk.run_script(desk.support_desk(), choice.template, "in-process").calls[4]
    assert {t.customer for t in back.foreign} == foreign
assert (
    len(desk.run_script(desk.support_desk(), desk.TENANT_USER.template, "sqlite").calls[4].window)
    == 4
)
# Self-check 1: Carlos's chat is Andina's only one, so chats named in the order they start
# make it m-1.
assert {r.thread for r in requests if r.customer.tenant == desk.CARLOS.tenant} == {"c-1"}
renamed = [replace(r, thread="m-1") if r.customer == desk.CARLOS else r for r in requests]
renamed_run = desk.run_script(renamed, desk.PER_THREAD.template, "sqlite")
assert renamed_run.calls[6].key == "thread:m-1"
assert {t.customer for t in renamed_run.calls[6].origins} == {"Marta", "Carlos"}
assert any("#6023" in m.content for m in renamed_run.calls[6].window)  # her order number
assert desk.key_for(desk.COMPOSITE.template, renamed[0]) == "tutienda:u-1:m-1"
assert desk.key_for(desk.COMPOSITE.template, renamed[1]) == "ferreteria-andina:u-1:m-1"
# Empty fields: every request whose userId is "" gets the key "user:", one history.
assert {
    n8n.evaluate_parameter("=user:{{ $json.body.userId }}", n8n.webhook_item(body))
    for body in ({"userId": "", "text": "a"}, {"userId": "", "text": "b"})
} == {"user:"}

# Section 1's default option and Going further's "Where n8n finds the session id": the two
# errors, the item fields in the picture, self-check 4.
assert n8n.NO_SESSION_ID.message == "No session ID found"
assert n8n.KEY_EMPTY.message == "Key parameter is empty"
assert set(n8n.chat_trigger_item("abc", "Hi")) == {"action", "sessionId", "chatInput"}
webhook = n8n.webhook_item({"sessionId": "abc"})
assert n8n.session_id_or_error(webhook) == "No session ID found"  # the symptom
# its picture: the Webhook's item has no top-level sessionId, which n8n shows as undefined
assert (
    n8n.evaluate_parameter("={{ $json.sessionId }}", webhook) is None
    and "sessionId" in webhook["body"]
)
# "If a node in between dropped that field, it reads sessionId from the Chat Trigger's output"
assert n8n.session_id({"chatInput": "Hi"}, chat_trigger=n8n.chat_trigger_item("abc", "Hi")) == "abc"
# The fix behind a Webhook: section 1's tenant + user key, on section 1's body, reads under
# body; the default option finds no top-level sessionId there. (The other triggers' table is
# on the reference page, which checks it.)
SHOP_KEY = "={{ $json.body.tenantId }}:{{ $json.body.userId }}"
shop_hook = n8n.webhook_item(
    {"tenantId": "tutienda", "userId": "u-1", "threadId": "m-1", "chatInput": "Hi"}
)
assert n8n.session_id_or_error(shop_hook) == "No session ID found"
assert n8n.session_id(shop_hook, **n8n.define_below(SHOP_KEY)) == "tutienda:u-1"
assert n8n.chat_trigger_item("abc", "Hi")["chatInput"] == "Hi"
# self-check 4 (Going further): Webhook, then an Edit Fields node that sets sessionId and chatInput as top-level
# fields (and passes on only those); no Chat Trigger. Without the Edit Fields node the same
# post stops the run, as the worked answer says.
website = n8n.webhook_item(
    {"tenantId": "tutienda", "userId": "u-1", "threadId": "m-1", "chatInput": "Hi"}
)
edited = {"sessionId": "tutienda:u-1", "chatInput": "Hi"}
assert n8n.evaluate_parameter(SHOP_KEY, website) == edited["sessionId"]
# the key: a new Simple Memory (1.4) renamed "Chat memory" adds __ and its cleaned name
assert check.__self__.expected("4") == "tutienda:u-1__Chat_memory"
assert n8n.simple_memory_buffer_key(edited, workflow_id="wf1", node_name="Chat memory") == (
    "wf1__tutienda:u-1__Chat_memory"
)
assert n8n.session_id_or_error(website, chat_trigger=None) == "No session ID found"
# Behind a Webhook the AI Agent's prompt is defined below, reading body.chatInput (as in the
# lesson's webhook workflow, pictured in Going further).
hook_agent = workflow_node("lesson1_webhook_session_key", "AI Agent")["parameters"]
assert hook_agent["promptType"] == "define" and hook_agent["text"] == "={{ $json.body.chatInput }}"
assert [n8n.hosted_chat_loads_previous_session(o) for o in ("Off", "From Memory", "Manually")] == [
    False,
    True,
    True,
]
assert n8n.LOAD_PREVIOUS_SESSION["Off"] == "notSupported"  # the default, shown as Off
# The reference page's chat widget: From Memory makes a returning browser keep its stored session id.
assert (
    n8n.widget_session_id(
        "old",
        load_previous_session=n8n.hosted_chat_loads_previous_session("From Memory"),
        fresh="new",
    )
    == "old"
)
assert (
    n8n.widget_session_id(
        "old", load_previous_session=n8n.hosted_chat_loads_previous_session("Off"), fresh="new"
    )
    == "new"
)
# The version table: typeVersion 1's constant key, 1.1 to 1.3's session id, 1.4's node name.
chat = n8n.chat_trigger_item("abc", "Hi")
assert n8n.simple_memory_buffer_key(chat, workflow_id="wf1", type_version=1).endswith(
    "__chat_history"
)
assert all(
    n8n.simple_memory_buffer_key(chat, workflow_id="wf1", type_version=v) == "wf1__abc"
    for v in (1.1, 1.2, 1.3)
)
assert n8n.SIMPLE_MEMORY_VERSIONS[-1] == 1.4
# 1.4 appends "__" and the node's name to the key; the buffer name starts with the workflow id.
assert n8n.simple_memory_buffer_key(chat, workflow_id="wf1", type_version=1.4) == (
    "wf1__abc__Simple_Memory"
)


def _key(name, **options):
    return n8n.simple_memory_buffer_key(
        chat, workflow_id="wf1", type_version=1.4, node_name=name, **options
    )


assert _key("Memory A").endswith("__Memory_A") and _key("Memory A") != _key("Memory-A")
own = {"id_type": "customKey", "key": "={{ $json.sessionId }}"}
assert _key("Memory A", **own) == _key("Memory B", **own) and _key("Memory A") != _key("Memory B")

# Section 2: the recorded restart, the idle hour, self-check 2's figures; Going further's table.
assert recorded.n8n_version == "2.41.1"
assert [run.restart_before for run in recorded.runs] == [False, False, True]
assert [len(run.requests[0]) for run in recorded.runs] == [2, 4, 2]
last = recorded.runs[-1].requests[0]
assert [m.role for m in last] == [Role.SYSTEM, Role.USER] and last[1].content == "u3"
assert recorded.type_versions["@n8n/n8n-nodes-langchain.memoryBufferWindow"] == 1.3
assert desk.InProcessStore(5).idle_limit_minutes == 60
returns = desk.returns_by_store()
in_process, on_disk = returns["in-process"], returns["sqlite"]
assert list(in_process) == list(desk.RETURN_CASES) and list(desk.RETURN_CASES)[:5] == list(
    desk.BETWEEN
)
assert in_process == {
    "nothing": 4,
    "the agent restarts": 0,
    "59 minutes pass": 4,
    "61 minutes pass": 0,
    "a night passes (14 hours)": 0,
    "50 min, Lucía writes, 20 min": 0,
    "40 min, Marta writes, 40 min": 6,
}
assert in_process["40 min, Marta writes, 40 min"] == 4 + 2
# Self-check 2: Marta's first chat as quoted; its timing (40 + 30 minutes since her last read).
first_chat = [r for r in requests if r.customer == desk.MARTA and r.thread == "m-1"]
assert [r.text for r in first_chat] == [
    "Hi, I'm Marta, my order is #6023.",
    "Do you ship to Medellín?",
]
assert 40 + 30 == 70 > desk.InProcessStore(5).idle_limit_minutes
assert check.__self__.expected("2") == 0
assert set(on_disk.values()) == {4, 6} and on_disk["a night passes (14 hours)"] == 4

# Going further's pictures: the Chat Trigger workflow's Simple Memory on the default option (which
# reads a top-level sessionId), the webhook workflow's on Define below under body.
chat_memory = workflow_node("lesson1_chat_trigger", "Simple Memory")["parameters"]
hook_memory = workflow_node("lesson1_webhook_session_key", "Simple Memory")["parameters"]
# (a parameter left at its default is not saved: Context Window Length 5, as pictured)
assert chat_memory["sessionIdType"] == "fromInput"
assert chat_memory.get("contextWindowLength", N8nSimpleMemory().size) == 5
assert hook_memory["sessionIdType"] == "customKey"
assert hook_memory["sessionKey"] == "={{ $json.body.sessionId }}"
assert n8n.session_id_or_error(webhook, **n8n.define_below(hook_memory["sessionKey"])) == "abc"
assert n8n.session_id(n8n.chat_trigger_item("abc", "Hi")) == "abc"

# Going further's picture of the fix is lesson 4's Postgres Chat Memory: Define below, reading the
# Chat Trigger's session id by the trigger's name, at window 2.
pictured = workflow_node("lesson4_postgres", "Postgres Chat Memory")["parameters"]
assert pictured["sessionIdType"] == "customKey" and pictured["contextWindowLength"] == 2
assert pictured["sessionKey"] == "={{ $('When chat message received').item.json.sessionId }}"
assert workflow_node("lesson4_postgres", "When chat message received")["type"].endswith(
    ".chatTrigger"
)
# The caption: on the default option this 1.3 node's key is the id itself; a new node (1.4,
# Postgres Chat Memory's newest) keys chat abc as abc__Postgres_Chat_Memory.
assert workflow_node("lesson4_postgres", "Postgres Chat Memory")["typeVersion"] == 1.3
assert n8n.session_id(n8n.chat_trigger_item("abc", "Hi")) == "abc"
assert not n8n.scopes_to_node("memoryPostgresChat", 1.3, "fromInput")
assert n8n.scopes_to_node("memoryPostgresChat", 1.4, "fromInput")
assert f"abc__{n8n.n8n_safe_name('Postgres Chat Memory')}" == "abc__Postgres_Chat_Memory"

# Section 1's 1.4 rule ("What the key becomes"): the default option files chat abc under abc__Simple_Memory (the id,
# two underscores, the name with its space written _). Going further's Postgres
# Chat Memory adds its node's name from the same typeVersion.
assert (
    n8n.SCOPING_MIN_VERSION["memoryPostgresChat"]
    == 1.4
    == n8n.SCOPING_MIN_VERSION["memoryBufferWindow"]
)
assert n8n.simple_memory_buffer_key(chat, workflow_id="wf1", type_version=1.4).endswith(
    "__abc__Simple_Memory"
)
assert (
    n8n.simple_memory_buffer_key(
        chat, workflow_id="wf1", type_version=1.4, id_type="customKey", key="abc"
    )
    == "wf1__abc"
)

# Section 3 and Going further: the explorer's window, self-check 3's timings, a bigger window after a loss.
assert explorer.runs.window == 5 == N8nSimpleMemory().size
# Section 3's list: a renamed memory node (typeVersion 1.4, default option) changes the key.
assert _key("Simple Memory") != _key("Support memory")
assert 12 * 60 + 3 * (7 - 1) == 12 * 60 + 18 and 13 * 60 + 5 - (12 * 60 + 18) == 47
assert check.__self__.expected("3") == "window"
assert (
    len(
        desk.marta_returns(
            "in-process", desk.BETWEEN["a night passes (14 hours)"], window=100
        ).window
    )
    == 0
)
print("maintainers' check: every figure in this lesson was recomputed and matches")
