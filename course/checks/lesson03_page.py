"""Lesson 3's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson03", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

empanadas = load_example("empanadas")
answer = turn_view(empanadas, N8nSimpleMemory(3), 5, qwen)
# Self-check 5: window 5 sends 285 earlier turns over the 60 calls (0 to 4, then 5 on 55
# calls); window 50 sends 1,725 (1,275 up to turn 51, then 450), about six times the turns
# for about five times the bill; window 50 fills at turn 51.
turns_sent = {
    k: [len(visible_turns(k, t)) for t in range(1, support.turn_count + 1)] for k in (5, 50)
}
assert support.turn_count == 60 and sum(turns_sent[5]) == 285
assert turns_sent[5][:6] == [0, 1, 2, 3, 4, 5] and turns_sent[5][5:] == [5] * 55
assert sum(turns_sent[50][:51]) == 1275 and sum(turns_sent[50][51:]) == 450
assert round(sum(turns_sent[50]) / sum(turns_sent[5])) == 6
assert round(costs.loc[50, "bill vs window 5"]) == 5
assert [len(visible_turns(50, t)) for t in (50, 51, 52)] == [49, 50, 50]
at_4 = [
    t for t in range(2, 8) if not fact_visible(turn_view(marta, N8nSimpleMemory(4), t, qwen), order)
]
at_1 = [
    t for t in range(2, 8) if not fact_visible(turn_view(marta, N8nSimpleMemory(1), t, qwen), order)
]
assert at_4[0] == 6 and at_1[0] == 3
andina = load_example("mentioned_at_start")
tax_id = ANCHOR_FACTS["mentioned_at_start"]
reaches = [
    k for k in range(1, 13) if fact_visible(turn_view(andina, N8nSimpleMemory(k), 12, qwen), tax_id)
]
# Maintainer checks: every figure the prose above states, against windowmem. Folded away
# for readers; nbval and tests/test_lesson_texts.py run it.
assert (
    N8nSimpleMemory().size == 5
    and len(memory.stored) == 14
    and len(loaded) == 10
    and loaded[0] is marta_messages[4]
)
assert table["visible"].tolist() == ["none", "1", "1–2", "1–3", "1–4", "1–5", "2–6"]
assert missing[0] == 7 and len(turn_7.sent) == 12 and not fact_visible(turn_7, order)
assert fact_visible(turn_view(marta, window_5, 6, qwen), order) and fact_visible(
    turn_7_at_10, order
)
assert len(tool_runs[2][2].saved) == 6 and [m.tool_calls for m in tool_runs[2][2].saved[1:5:2]] == [
    ("call_stock_3a",),
    ("call_stock_3b",),
]
turn_4_memory = {size: tool_runs[size][3].calls[0].part(Part.MEMORY) for size in (2, 1)}
assert [m.tool_call_id or m.tool_calls for m in turn_4_memory[2]] == [
    ("call_stock_3b",),
    "call_stock_3b",
    (),
]
assert len(turn_4_memory[1]) == 1 and "4 pairs left in size 39" in turn_4_memory[1][0].content
assert N8nSimpleMemory(2).window(stored_before_turn_4)[0].tool_call_id == "call_stock_3a"
# Section 2's window-1 example: turn 2's result loses its call at the cut, so its answer alone is sent.
assert [(m.role.value, m.tool_calls) for m in tool_runs[1][2].calls[0].part(Part.MEMORY)] == [
    ("assistant", ())
]
assert (
    N8nSimpleMemory(1).window([m for run in tool_runs[1][:2] for m in run.saved])[0].tool_call_id
    == "call_address_2"
)
assert recorded_turn_4.agrees and all(
    c.agrees for c in recorded_beside_predicted("lesson3-tool-use")
)
assert [m.role.value for m in recorded_turn_4.recorded] == [
    "system",
    "assistant",
    "tool",
    "assistant",
    "user",
]
assert (
    recording.window == 2
    and recording.agent_version == 3.1
    and recording.command == "make record-n8n"
)
assert (
    recording.type_versions["@n8n/n8n-nodes-langchain.memoryBufferWindow"]
    == 1.3
    == recording.type_versions["@n8n/n8n-nodes-langchain.lmChatOpenAi"]
)
assert answer.visible_turns == (2, 3, 4) and not fact_visible(answer, ANCHOR_FACTS["empanadas"])
# Self-check 7a: under one session id, the 70-minute idle break before turn 4 deletes turns 1
# to 3; turn 5 is stored after it, in the history turn 9 reads, and a window of 3 loads 6 to 8.
from checks.lesson03 import _after_the_break  # noqa: E402

assert visible_turns(3, 9) == (6, 7, 8)
andina_turns = [m for m in andina.messages if m.role.value != "system"][:16]
after_break = _after_the_break(andina_turns)
assert list(after_break.stored) == andina_turns[6:16]
assert list(after_break.load()) == andina_turns[10:16]
# Self-check 4b's worked answer: turn 3 is in a window of 3 on turns 4 to 6, out on turn 7.
from checks.lesson03 import _first_turn_without_the_name  # noqa: E402

assert [3 in visible_turns(3, t) for t in (4, 6, 7)] == [True, True, False]
assert _first_turn_without_the_name() == 7
assert reaches[0] == 11 and fact_visible(turn_view(andina, N8nSimpleMemory(0), 12, qwen), tax_id)
assert round(costs.loc[10, "bill vs window 5"], 2) == 1.73
assert 1.4 <= costs.loc[8, "bill vs window 5"] and costs.loc[12, "bill vs window 5"] <= 2.0
assert (
    after_edit is live
    and after_edit.policy.size == 5
    and an_hour_later.policy.size == 10
    and not an_hour_later.stored
)
assert len(tuesday.load()) == 0
messages_counting = ["spring-ai", "tensorify"]
assert (
    same_number.loc[messages_counting, "turns reached"].tolist() == [2, 3]
    and spring_view.partial_turns == ()
)
assert (defaults.loc[messages_counting, "size"] == "20 messages").all()
assert (defaults.loc[messages_counting, "turns visible on turn 7"] == "1–6").all()
assert (
    not same_number[f"{order} visible"].any()
    and defaults.loc[messages_counting, f"{order} visible"].all()
)
print("every figure in the text checked")
