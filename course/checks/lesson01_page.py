"""Lesson 1's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson01", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

# Maintainer checks: every figure and claim in the text above, recomputed (not for reading).
per_user = desk.owners(desk.PER_USER.template, requests)
marta_key = desk.key_for(desk.PER_USER.template, requests[0])


def first_cause(script, choice="per thread", store="in-process"):
    call = desk.run_script(script, desk.key_choice(choice).template, store).calls[-1]
    return "scope" if call.foreign else call.missing[0].cause


def chat(customer, thread, texts, gap):
    events = []
    for number, text in enumerate(texts, 1):
        events += [desk.Pause(gap)] if events else []
        events.append(desk.Request(customer, thread, text, f"{customer.name}'s reply {number}"))
    return events


# Self-check 7's four cases, as its worked answer tells them.
reload = [
    desk.Request(desk.MARTA, "m-1", "my order is #6023", "noted"),
    desk.Pause(5),
    desk.Request(desk.MARTA, "m-2", "where is my order?", "which number?"),
]
hose = chat(desk.CARLOS, "c-1", ["40 metres of hose", "to Mendoza", "by Friday"], 2)
hose += [desk.Pause(10 * 60 + 30 - (9 * 60 + 4))]  # 9:04 to 10:30
hose += [desk.Request(desk.CARLOS, "c-1", "how long was it?", "how long?")]
slot = chat(desk.LUCIA, "l-1", ["deliver 9 to 12"] + [f"question {t}" for t in range(2, 8)], 3)
slot += [desk.Pause(13 * 60 + 5 - (12 * 60 + 18))]  # 12:18 to 13:05
slot += [desk.Request(desk.LUCIA, "l-1", "my slot?", "which slot?")]
colour = chat(desk.LUCIA, "l-1", [f"question {t}" for t in range(1, 9)] + ["blue, please"], 3)
colour += [desk.Restart(), desk.Pause(2), desk.Request(desk.LUCIA, "l-1", "my colour?", "which?")]
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
assert node_key("Memory A") == node_key("Memory_A")  # the space is replaced by _
assert node_key("Memory-A").endswith("__Memory-A")  # a hyphen is kept
assert node_key("Memory-A") != node_key("Memory A")  # a rename starts every chat over
assert n8n.n8n_safe_name("Lucía memory") == "Luc_a_memory"  # the Deeper note: ASCII letters only
assert node_key("Memory B", id_type="customKey", key="={{ $json.sessionId }}") == "wf1__abc"
assert (
    n8n.simple_memory_buffer_key(message, workflow_id="wf1", type_version=1.3, node_name="Memory A")
    == "wf1__abc"
)
assert all(
    n8n.simple_memory_buffer_key(message, workflow_id="wf1", type_version=v).startswith("wf1__")
    for v in n8n.SIMPLE_MEMORY_VERSIONS
)  # every typeVersion names the buffer <workflow id>__<session key>
assert n8n.widget_session_id(stored, load_previous_session=False, fresh="new") == "new"
assert [len(marta_returns("in-process", b).window) for b in desk.BETWEEN] == [4, 0, 4, 0, 0]
assert [len(marta_returns("sqlite", b).window) for b in desk.BETWEEN] == [4, 4, 4, 4, 4]
# Section 4's extra rows and the worked answer of self-check 5: another customer's run does not
# refresh Marta's buffer (70 minutes unread), her own question at minute 40 does (4 + 2).
in_process = {name: len(marta_returns("in-process", b).window) for name, b in betweens.items()}
on_disk = {name: len(marta_returns("sqlite", b).window) for name, b in betweens.items()}
assert in_process["50 min, Lucía writes, 20 min"] == 0 and 50 + 20 == 70
assert in_process["40 min, Marta writes, 40 min"] == 6 == 4 + 2
assert on_disk["50 min, Lucía writes, 20 min"] == 4 and on_disk["40 min, Marta writes, 40 min"] == 6
assert 6 <= 2 * explorer.runs.window  # the window of 5 interactions cuts none of them
per_thread_night = desk.run_script(
    desk.support_desk("a night passes (14 hours)"), desk.PER_THREAD.template, "sqlite"
)
marta_back = next(c for c in per_thread_night.calls if c.request.thread == "m-2")
assert marta_back.key == "thread:m-2" and len(marta_back.window) == 0
assert [t.position + 1 for t in dict(per_thread_night.held_at_end)["thread:m-1"]] == [1, 3]
# Self-check 1's worked answer: Carlos's thread renamed m-1, keyed per thread.
renamed = [
    desk.Request(r.customer, "m-1", r.text, r.reply) if r.customer == desk.CARLOS else r
    for r in requests
]
renamed_run = desk.run_script(renamed, desk.PER_THREAD.template, "sqlite")
assert renamed_run.calls[6].key == "thread:m-1"
assert {t.customer for t in renamed_run.calls[6].origins} == {"Marta", "Carlos"}
assert any(m.content.startswith("Carlos Ruiz") for m in renamed_run.calls[2].window)
assert sorted({r.thread for r in requests}) == ["c-1", "l-1", "m-1", "m-2"]
# Self-check 2's worked answer and the text after it.
spring_ids = {
    name: advisor_conversation_id(context, "1.1.5", default="support-desk")
    for name, context in {
        "Lucía": {"chat_memory_conversation_id": "lucia-9"},
        "Marta": {},
        "Carlos": {},
    }.items()
}
assert spring_ids == {"Lucía": "lucia-9", "Marta": "support-desk", "Carlos": "support-desk"}
for later in ("1.0.7", "1.1.6", "2.0.0"):
    try:  # from these releases a call without an id fails, whatever the advisor was built with
        advisor_conversation_id({}, later, default="support-desk")
        raise AssertionError(f"Spring AI {later} fell back to the builder's id")
    except ValueError as refused:
        assert "conversationId cannot be null" in str(refused)
assert not falls_back_to_default("2.0.0-M6") and falls_back_to_default("2.0.0-M5")
assert falls_back_to_default("2.0.0-M1")  # previews M1 to M5 fall back
assert works == [(c, "sqlite") for c in ("per user", "per thread", "composite", "tenant + user")]
assert (
    n8n.SIMPLE_MEMORY_VERSIONS[-1] == 1.4
)  # the newest typeVersion, the one a new node gets in 2.41.1
assert (
    first_cause(reload),
    first_cause(hose),
    first_cause(slot),
    first_cause(colour),
) == ("scope", "storage", "window", "storage")
assert 10 * 60 + 30 - (9 * 60 + 4) == 86 and 13 * 60 + 5 - (12 * 60 + 18) == 47
assert 12 * 60 + 3 * (7 - 1) == 12 * 60 + 18  # seven messages, every three minutes from 12:00
assert 10 * 60 + 34 + 3 * (9 - 1) == 10 * 60 + 58  # the colour is her ninth message
hose_call = desk.run_script(hose, desk.PER_THREAD.template, "in-process").calls[-1]
assert len(hose_call.missing) == 3 and 3 <= 5  # three interactions, all deleted; a window of 5
slot_call = desk.run_script(slot, desk.PER_THREAD.template, "in-process").calls[-1]
assert len(slot_call.window) == 2 * 5 and len(slot_call.missing) == 2  # 7 stored, the last 5 sent
assert slot_call.missing[0].turn.position == 0  # her first message (event 0) is cut
assert len(marta_returns("in-process", "a night passes (14 hours)", window=100).window) == 0
night_at_1 = marta_returns("sqlite", "a night passes (14 hours)", window=1).window
assert (
    len(night_at_1) == 2
    and not any("#6023" in m.content for m in night_at_1)
    and night_at_1[0].content == "Do you ship to Medellín?"
)
# Self-check 8 is computed on n8n's Postgres Chat Memory table; the desk's SQLite store loads alike.
assert check.__self__.expected("8") == len(night_at_1)
assert desk.InProcessStore(5).workflow_id == "support-agent"  # section 5's buffers
assert explorer.runs.window == 5 == N8nSimpleMemory().size  # Simple Memory's default
assert len(desk.KEY_CHOICES) == 5 and len(requests) == 7
assert desk.InProcessStore(5).idle_limit_minutes == 60
print("every figure in the text checked")
