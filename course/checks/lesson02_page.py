"""Lesson 2's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson02", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace


def observed(runs):
    # What the execution log shows: every run answered? history empty every time? a new session id each run?
    return (
        all(run.answered for run in runs),
        all(not run.calls[0].part(Part.MEMORY) for run in runs),
        len({run.session_id for run in runs}) == len(runs),
    )


nine_turns = [m for t in range(1, 10) for m in marta.interactions[(t - 1) % 7].messages]
# Runs 1 to 4 fail (their answers gone), 5 to 9 answer: the failed runs leave no trace.
first_four_fail = [
    m for t in range(1, 10) for m in marta.interactions[(t - 1) % 7].messages[: 1 if t <= 4 else 2]
]
candidates = {
    "failed runs not stored": agent_runs(first_four_fail, N8nSimpleMemory(5)),
    "new session id per message": agent_runs(
        nine_turns, N8nSimpleMemory(4), session_ids=session_per_message("s", 9)
    ),
    "window too small": agent_runs(nine_turns, N8nSimpleMemory(4), session_ids=["s-01"] * 9),
}


def cause_of(evidence):
    return next(name for name, runs in candidates.items() if observed(runs) == evidence)


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
assert (
    takes_memory("AI Agent Tool")
    and takes_memory("Chat Memory Manager")
    and not takes_memory("Sentiment Analysis")
)
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
assert (
    cause_of((True, True, True)) == "new session id per message"
    and cause_of((True, False, False)) == "window too small"
)
assert cause_of((False, False, False)) == "failed runs not stored" and session_per_message("s", 9)[
    :2
] == ["s-01", "s-02"]
assert (
    {r.session_id for r in candidates["window too small"]}
    == {"s-01"}
    == {candidates["new session id per message"][0].session_id}
)
late = candidates["window too small"][8].calls[0]
assert late.memory_turns == (5, 6, 7, 8) and len(late.part(Part.MEMORY)) == 8
# 8b's worked answer: had runs 1 to 4 failed, run 9 would hand over the same turns
assert candidates["failed runs not stored"][8].calls[0].memory_turns == (5, 6, 7, 8)
assert (
    all(c.agrees for c in recorded_calls)
    and len(recorded_calls) == 5
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
assert (
    len(recording.runs[1].stored) - len(recording.runs[0].stored) == 4
    and len(recording.runs[0].stored) == 2
)
assert agent_runs(marta, N8nSimpleMemory(3))[6].calls[0].memory_turns == (4, 5, 6)
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
