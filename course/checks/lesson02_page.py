"""Lesson 2's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson02", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace


def runs_of_marta(count, failing):
    # Marta's turns over and over; the runs in *failing* end without an answer.
    return [
        m
        for t in range(1, count + 1)
        for m in marta.interactions[(t - 1) % 7].messages[: 1 if t in failing else 2]
    ]


# 8a: the trigger's session id never changes, but the Key {{ $json.chatInput }} is each message's text
trigger_items = [chat_trigger_item("s-01", i.messages[0].content) for i in marta.interactions[:5]]
keyed_by_input = [
    simple_memory_buffer_key(
        item, workflow_id="wf", id_type="customKey", key="={{ $json.chatInput }}"
    )
    for item in trigger_items
]
by_input = agent_runs(runs_of_marta(5, {2, 4}), N8nSimpleMemory(5), session_ids=keyed_by_input)
# 8b: one session (the trigger's sessionId), window 4, run 6 failed
small_window = agent_runs(runs_of_marta(9, {6}), N8nSimpleMemory(4))


# Maintainer checks: every figure the prose above states, against windowmem. Folded away
# for readers; nbval and tests/test_lesson_texts.py run it.
assert [len(r.calls[0].messages) for r in no_memory] == [2] * 7 and not any(
    "#6023" in m.content for m in turn_7_alone.messages
)
assert turn_7_with_memory.memory_turns == (2, 3, 4, 5, 6) and len(turn_7_with_memory.messages) == 12
assert [len(r.calls[0].part(Part.MEMORY)) for r in with_memory] == [
    0,
    2,
    4,
    6,
    8,
    10,
    10,
] and with_memory[-1].stored_after == 14
assert (
    turn_7_with_memory.messages[0] is marta.system_message
    and turn_7_with_memory.messages[-1] is marta.interactions[6].messages[0]
)
assert (
    all(not n.memory_input for n in NODES if n.kind == "chain")
    and takes_memory("AI Agent")
    and takes_memory("Chat Trigger")
)
assert all(n.memory_input for n in NODES if n.kind == "agent")
assert [n.kind for n in NODES if n.display_name in ("Summarization Chain", "Text Classifier")] == [
    "chain",
    "chain",
]
# section 3: n8n's classifiers and extractors are chains
assert {
    n.kind
    for n in NODES
    if n.display_name in ("Text Classifier", "Sentiment Analysis", "Information Extractor")
} == {"chain"}
assert takes_memory("AI Agent Tool") and takes_memory("Chat Memory Manager")
assert (
    n8n_runs[3].stored_after == 6
    and len(spring_calls[3].stored_after) == 7
    and question_3 in spring_calls[3].sent
)
retry = [
    question_3 if m is marta.interactions[3].messages[0] else m for m in failed_turn_3
]  # 4c: turn 3 asked again
assert [
    sum(m.content == question_3.content for m in sent)
    for sent in (
        advisor_calls(retry, SpringAiMessageWindow(20))[3].sent,
        agent_runs(retry, N8nSimpleMemory(5))[3].calls[0].messages,
    )
] == [2, 1]
assert [m.role.value for m in spring_calls[3].sent][5:7] == ["user", "user"] and not n8n_runs[
    2
].answered
assert sorted(tracking.arguments) == ["order_number"] and sorted(redirect.arguments) == [
    "new_address",
    "order_number",
]
# 5a: with memory off, turn 3's call holds the address (its own message) but not the order number (turn 1)
assert [
    f
    for f in sorted(redirect.arguments)
    if any(redirect.arguments[f] in m.content for m in scenario_off[2].calls[0].messages)
] == ["new_address"]
assert [m.role.value for m in scenario_off[2].calls[0].messages] == [
    "system",
    "user",
] and turn_3.messages[0].content.endswith("Calle 93 #11-26, Bogotá.")
# 5b: with the Key set by Define below, every typeVersion names the buffer <workflow id>__<key>
assert {
    simple_memory_buffer_key(
        {"session_id": "s1"},
        workflow_id="wf",
        type_version=v,
        id_type="customKey",
        key="={{ $json.session_id }}",
    )
    for v in (1.0, 1.1, 1.2, 1.3, 1.4)
} == {"wf__s1"}
assert (
    sorted(redirect.item) == ["new_address", "order_number", "requested_by"]
    and redirect.arguments["order_number"] == "#6023"
)
assert (
    redirect.item["new_address"] == "Calle 93 #11-26, Bogotá"
    and tracking.item["session_id"] == scenario.session_id
)
assert (
    len(inner.stored) == 0
    and len(store.memory(scenario.agent_workflow_id, scenario.session_id).stored) == 2
)
assert store.keys() == (
    f"{scenario.agent_workflow_id}__{scenario.session_id}",
    f"{tracking.tool.workflow_id}__{scenario.session_id}",
)
assert not any("#6023" in m.content for m in scenario_off[1].calls[0].messages)
assert any("#6023" in m.content for m in scenario_on[1].calls[0].messages)
assert (
    len(run_2.saved) == 4
    and len(legacy) == 2
    and legacy[1].content.startswith("[Used tools: Tool: track_order")
)
assert len(turn_2_second_call.messages) == 4 and not turn_2_second_call.part(Part.MEMORY)
assert [m.role.value for m in turn_2_second_call.messages] == [
    "system",
    "user",
    "assistant",
    "tool",
]
assert [len(r.calls) for r in scenario_on] == [1, 2, 2, 1, 1, 1] and not scenario_on[3].answered
assert {item["sessionId"] for item in trigger_items} == {"s-01"} and len(set(keyed_by_input)) == 5
assert [r.answered for r in by_input] == [True, False, True, False, True]
assert all(not r.calls[0].part(Part.MEMORY) for r in by_input)
assert len({r.session_id for r in small_window}) == 1 and len(small_window) == 9
assert [r.turn for r in small_window if not r.answered] == [6]
assert small_window[8].calls[0].memory_turns == (4, 5, 7, 8)
# 8a's worked answer: under one key, run 3 would have found run 1
one_key = agent_runs(runs_of_marta(5, {2, 4}), N8nSimpleMemory(5))
assert one_key[2].calls[0].memory_turns == (1,)
# 8's worked answer: keyed by the trigger's sessionId, run 5 would load runs 1 and 3 (4 messages)
assert (
    len(
        {
            simple_memory_buffer_key(
                item, workflow_id="wf", id_type="customKey", key="={{ $json.sessionId }}"
            )
            for item in trigger_items
        }
    )
    == 1
)
assert (
    one_key[4].calls[0].memory_turns == (1, 3) and len(one_key[4].calls[0].part(Part.MEMORY)) == 4
)
# 8's worked answer: counting the written runs back from run 8, run 2 is the sixth; window 6 keeps it
written = [r.turn for r in small_window[:8] if r.answered]
assert written == [1, 2, 3, 4, 5, 7, 8] and written[::-1].index(2) + 1 == 6
assert [
    2 in agent_runs(runs_of_marta(9, {6}), N8nSimpleMemory(k))[8].calls[0].memory_turns
    for k in (5, 6)
] == [False, True]
assert (
    all(c.agrees for c in recorded_calls)
    and len(recorded_calls) == 5
    and [c.round for c in recorded_calls if c.turn == 2] == [1, 2, 3]
    and len(turn_3_call.recorded) == 8
)
assert (
    turn_3_call.recorded[4].tool_calls == ("call_t2_2",)
    and turn_3_call.recorded[5].content == '[{"response":"35"}]'
)
assert [c.tool_calls for c in turn_3_call.recorded if c.tool_calls] == [("call_t2_2",)]
assert {
    recording.type_versions[f"@n8n/n8n-nodes-langchain.{n}"]
    for n in ("memoryBufferWindow", "lmChatOpenAi")
} == {1.3}
assert (
    recording.type_versions["@n8n/n8n-nodes-langchain.agent"] == 3.1 == recording.agent_version
    and recording.command == "make record-n8n"
)
assert len(v22.runs[1].stored) - len(v22.runs[0].stored) == 2 and v22.agent_version == 2.2
v22_predicted = agent_runs(
    recorded_conversation(recording)[0], N8nSimpleMemory(5), agent_version=2.2
)  # 6c
assert len(v22_predicted[1].saved) == 2 and len(v22_predicted[2].calls[0].part(Part.MEMORY)) == 4
assert len(v22_predicted[2].calls[0].messages) == 6 and len(recorded_calls[-1].predicted) == 8
# 6b, 6c's worked answer: at window 2, turn 3 loads turn 2's four stored messages (3.1), or
# turns 1 and 2 as question and answer (2.2)
two_rounds_chat = recorded_conversation(recording)[0]
for version, turns_loaded in ((3.1, (2,)), (2.2, (1, 2))):
    loaded = agent_runs(two_rounds_chat, N8nSimpleMemory(2), agent_version=version)[2].calls[0]
    assert loaded.memory_turns == turns_loaded and len(loaded.part(Part.MEMORY)) == 4
assert [m.content for m in v22_predicted[2].calls[0].part(Part.MEMORY)][:2] == ["u1", "a1"]
assert (
    len(recording.runs[1].stored) - len(recording.runs[0].stored) == 4
    and len(recording.runs[0].stored) == 2
)
window_3 = agent_runs(marta, N8nSimpleMemory(3))
assert [window_3[i].calls[0].memory_turns for i in (1, 3, 4)] == [(1,), (1, 2, 3), (2, 3, 4)]
# 2c's worked answer: with a window of k, turn k + 2 is the first call without turn 1
for k in (3, 5):
    runs_k = agent_runs(marta, N8nSimpleMemory(k))
    assert next(r.turn for r in runs_k[1:] if 1 not in r.calls[0].memory_turns) == k + 2
assert fresh[1].turn == 2 and len(fresh[1].calls) == 2
spring_tools = advisor_calls(scenario.conversation, SpringAiMessageWindow(20))
assert not any(
    m.role.value == "tool" or m.tool_calls for call in spring_tools for m in call.stored_after
)  # default advisor order
assert (
    simple_memory_buffer_key(
        chat_trigger_item("s1", "Hi"), workflow_id="wf", type_version=1.4, node_name="Memory A"
    )
    == "wf__s1__Memory_A"
)
assert (
    simple_memory_buffer_key(
        chat_trigger_item("s1", "Hi"), workflow_id="wf", type_version=1.3, node_name="Memory A"
    )
    == "wf__s1"
)
print("every figure in the text checked")
