"""Lesson 1's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson01", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

# Maintainer checks: every figure and claim in the text above, recomputed (not for reading).
per_user = desk.owners(desk.PER_USER.template, requests)
marta_key = desk.key_for(desk.PER_USER.template, requests[0])


def first_cause(script, choice, store="in-process"):
    call = desk.run_script(script, desk.key_choice(choice).template, store).calls[-1]
    return "scope" if call.foreign else call.missing[0].cause


long_chat = [
    desk.Request(desk.MARTA, "m-1", f"turn {t}" + (" order #6023" if t == 1 else ""), f"reply {t}")
    for t in range(1, 10)
]
new_tab = [
    desk.Request(desk.MARTA, "m-1", "order #6023", "ok"),
    desk.Request(desk.MARTA, "m-2", "my order?", "checking"),
]
lunch = [
    desk.Request(desk.MARTA, "m-1", "order #6023", "ok"),
    desk.Pause(75),
    desk.Request(desk.MARTA, "m-1", "my order?", "checking"),
]
assert [n for n in per_user[marta_key] if n != "Marta"] == ["Carlos"]
assert len(desk.buckets(desk.COMPOSITE.template, requests)) == 4
assert len(desk.buckets(desk.TENANT_USER.template, requests)) == 3
assert [
    i + 1 for i, r in enumerate(requests) if desk.key_for(desk.PER_USER.template, r) == "user:u-1"
] == [1, 2, 3, 5, 7]
assert (
    desk.MARTA.user_id == desk.CARLOS.user_id == "u-1" and desk.MARTA.tenant != desk.CARLOS.tenant
)
assert n8n.simple_memory_buffer_key(chat, workflow_id="wf1", type_version=1) == "wf1__chat_history"
assert (
    n8n.simple_memory_buffer_key(webhook, workflow_id="wf1", type_version=1) == "wf1__chat_history"
)
assert tensorify_session_key("", {}, "wf1") == "agent_memory:wf1"
assert [
    falls_back_to_default(v)
    for v in ("1.0.0", "1.0.6", "1.0.7", "1.1.0", "1.1.5", "1.1.6", "2.0.0-M5", "2.0.0-M6")
] == [True, True, False, True, True, False, True, False]
assert advisor_conversation_id({}, "1.0.6") == "default"
assert (
    n8n.buffer_key_or_error(webhook, workflow_id="wf1", type_version=1.3) == "No session ID found"
)
assert (
    n8n.buffer_key_or_error(
        webhook,
        workflow_id="wf1",
        type_version=1.3,
        id_type="customKey",
        key="={{ $json.sessionId }}",
    )
    == "Key parameter is empty"
)
assert (
    n8n.buffer_key_or_error(edit_fields, workflow_id="wf1", type_version=1.3) == "wf1__abc"
)  # Edit Fields fixes a webhook
assert (
    advisor_conversation_id({}, "1.1.5", default="support-desk") == "support-desk"
)  # the advisor's own default
try:  # a field the request lacks: n8n would render "user:" and merge requests; windowmem refuses
    desk.key_for("user:{{ $json.body.accountId }}", requests[0])
    raise AssertionError("a key over a missing field was rendered")
except ValueError as refused:
    assert "has no field" in str(refused)
assert (
    n8n.buffer_key_or_error(
        n8n.schedule_item(), workflow_id="wf1", id_type="customKey", key="nightly-report"
    )
    == "wf1__nightly-report"
)
assert n8n.coerce_session_id(42) == n8n.coerce_session_id("42")
assert node_key("Memory A").endswith("__Memory_A") and node_key("Memory B").endswith("__Memory_B")
assert node_key("Memory A") == node_key("Memory_A")
assert n8n.widget_session_id(stored, load_previous_session=False, fresh="new") == "new"
assert [len(marta_returns("in-process", b).window) for b in desk.BETWEEN] == [4, 0, 4, 0, 0]
assert [len(marta_returns("sqlite", b).window) for b in desk.BETWEEN] == [4, 4, 4, 4, 4]
assert (pauses(40, 40), pauses(61)) == (4, 0)
assert works == [(c, "sqlite") for c in ("per user", "per thread", "composite", "tenant + user")]
assert (
    n8n.SIMPLE_MEMORY_VERSIONS[-1] == 1.4
)  # the newest typeVersion, the one a new node gets in 2.41.1
assert (
    first_cause(long_chat, "per thread"),
    first_cause(new_tab, "per thread"),
    first_cause(lunch, "per thread"),
) == ("window", "scope", "storage")
assert len(marta_returns("in-process", "a night passes (14 hours)", window=100).window) == 0
night_at_1 = marta_returns("sqlite", "a night passes (14 hours)", window=1).window
assert (
    len(night_at_1) == 2
    and not any("#6023" in m.content for m in night_at_1)
    and night_at_1[0].content == "Do you ship to Medellín?"
)
assert explorer.runs.window == 5 == N8nSimpleMemory().size  # Simple Memory's default
assert len(desk.KEY_CHOICES) == 5 and len(requests) == 7
assert desk.InProcessStore(5).idle_limit_minutes == 60
print("every figure in the text checked")
