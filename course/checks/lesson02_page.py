"""Lesson 2's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson02", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
The specification the lesson leaves to its reference page is checked there.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

import json
from pathlib import Path

from windowmem.calls.agent_calls import Part, agent_runs, describe_call
from windowmem.calls.memory_inputs import takes_memory
from windowmem.calls.memory_writes import saved_messages_before_2_3
from windowmem.calls.recorded_runs import recorded_beside_predicted, recorded_conversation
from windowmem.calls.system_prompt import DEFAULT_SYSTEM_MESSAGE, system_prompt
from windowmem.calls.tool_scenario import session_per_message
from windowmem.messages import assistant, tool, user
from windowmem.n8n_recorded import load_recording
from windowmem.policies import N8nSimpleMemory
from windowmem.policies.n8n import memory_manager as manager
from windowmem.policies.n8n.session_ids import chat_trigger_item, simple_memory_buffer_key
from windowmem_course.checks.lesson02_see import (
    MOVED_CHAT,
    NOT_IN_ITS_ARRAY,
    PICTURED_CHAT,
    item_without_memory,
    marta_with_failed_turns,
    moved_chat_turn_3,
    pictured_chat,
    recorded_call,
    tool_items,
    tutienda_tools,
    why_not_sent,
)
from windowmem_course.checks.page import workflow_node

TOOL_TURNS_HEADING = "### What a tool call leaves in memory"

# Section 2's See-it cell replays Marta's chat at a window the learner may change (5 as
# stored); at 5 it must be what n8n 2.41.1 sent, the recording "marta", call for call.
marta_recorded = load_recording("marta")
with_memory = agent_runs(marta, N8nSimpleMemory(5))
turn_7_with_memory = with_memory[6].calls[0]

# Section 1: the four parts; without memory every call is the System Message and the question,
# and #6023 is in none after turn 1; the option never added sends nothing (3.1), a connected
# output parser adds a system message anyway.
assert [len(r.calls[0].messages) for r in no_memory] == [2] * 7
assert "#6023" in marta.interactions[0].messages[0].content
assert not any("#6023" in m.content for r in no_memory[1:] for m in r.calls[0].messages)
assert turn_7_alone.messages[0] is marta.system_message
assert (
    turn_7_alone.messages[-1]
    is turn_7_with_memory.messages[-1]
    is marta.interactions[6].messages[0]
)
assert system_prompt(3.1, None, output_parser=False) is None
assert system_prompt(3.1, None, output_parser=True) is not None
# ... check 1's premise: from version 1.9 an agent without the option sends none; before, a default.
assert system_prompt(1.9, None, output_parser=False) is None
assert system_prompt(1.8, None, output_parser=False) == DEFAULT_SYSTEM_MESSAGE

# Section 2: default window 5; turn 7 loads turns 2 to 6 (12 messages sent), at 3 turns 4 to 6;
# "from memory" grows by two until turn 6, then 10; 14 stored after turn 7. Chains take no memory.
# The See-it cell shows what n8n 2.41.1 sent (the recording "marta", window 5): the same arrays
# windowmem predicts, 2, 4, ... 12, 12 messages a turn, turn 7 labelled turns 2 to 6 then 7.
assert N8nSimpleMemory().size == 5
assert marta_recorded.n8n_version == "2.41.1" and marta_recorded.window == 5
assert [r.user_input for r in marta_recorded.runs] == [
    i.messages[0].content for i in marta.interactions
]
assert [len(r.requests[0]) for r in marta_recorded.runs] == [2, 4, 6, 8, 10, 12, 12]
assert [len(r.calls[0].messages) for r in with_memory] == [2, 4, 6, 8, 10, 12, 12]
assert all(
    [(m.role, m.content) for m in run.requests[0]]
    == [(m.role, m.content) for m in predicted.calls[0].messages]
    for run, predicted in zip(marta_recorded.runs, with_memory, strict=True)
)
shown = recorded_call(marta_recorded, 7).splitlines()
assert all("memory · turn 2" in line for line in shown[1:3]) and len(shown) == 12
assert "input · turn 7" in shown[-1] and "#6023" not in "\n".join(shown)
assert describe_call(turn_7_with_memory).splitlines() == shown
# ... and the cell's invitation: at 6, turn 7's call starts with turn 1, which holds #6023.
at_6 = agent_runs(marta, N8nSimpleMemory(6))[6].calls[0]
assert at_6.memory_turns[0] == 1 and "#6023" in at_6.messages[1].content
assert turn_7_with_memory.memory_turns == (2, 3, 4, 5, 6) and len(turn_7_with_memory.messages) == 12
assert [len(r.calls[0].part(Part.MEMORY)) for r in with_memory] == [0, 2, 4, 6, 8, 10, 10]
# ... and "a window of 5 holds 5 turns without tools, or 2 with a tool call" (the table).
assert with_memory[-1].stored_after == 14 and with_memory[5].stored_after == 12
assert agent_runs(marta, N8nSimpleMemory(3))[6].calls[0].memory_turns == (4, 5, 6)
# ... and Marta's story ends: a window of 6 sends turn 1 on turn 7, and on turn 8 it is gone again.
assert 1 in agent_runs(marta, N8nSimpleMemory(6))[6].calls[0].memory_turns
assert 1 not in agent_runs(marta, N8nSimpleMemory(5))[6].calls[0].memory_turns
# ... "Marta's chat has 7 turns, so a window of 6 is enough for her": her last call, turn 7, gets turn 1.
assert (
    marta.turn_count == 7 and 1 in agent_runs(marta, N8nSimpleMemory(6))[-1].calls[0].memory_turns
)
longer = [*marta.messages, user("Thanks!"), assistant("You're welcome."), user("Bye.")]
assert 1 not in agent_runs(longer, N8nSimpleMemory(6))[7].calls[0].memory_turns
# ... and with a window of k, turn k + 2 is the first call without turn 1 (turn 5 at 3)
window_3 = agent_runs(marta, N8nSimpleMemory(3))
assert [window_3[i].calls[0].memory_turns for i in (1, 3, 4)] == [(1,), (1, 2, 3), (2, 3, 4)]
for k in (3, 5, 6):
    runs_k = agent_runs(longer, N8nSimpleMemory(k))
    assert next(r.turn for r in runs_k[1:] if 1 not in r.calls[0].memory_turns) == k + 2
assert takes_memory("AI Agent") and not any(
    takes_memory(n) for n in ("Basic LLM Chain", "Text Classifier")
)

# Self-check 1: a new agent (option never added) with Simple Memory connected sends the input
# alone on a chat's first message: memory is empty, and an empty part is left out.
bare_chat = [m for m in marta.messages if m.role.value != "system"]
first_call = agent_runs(bare_chat, N8nSimpleMemory(5))[0].calls[0]
assert len(first_call.messages) == 1 and not first_call.part(Part.MEMORY)

# Section 2's failed run (was section 3): turn 3 failed: after turn 4, 6 messages stored, turn 3's question in neither list;
# turns 2 and 5 failed: turn 7 loads 1, 3, 4 and 6 (8 messages, window 10); an empty answer
# writes nothing either; the Chat Memory Manager takes a memory.
n8n_runs = agent_runs(marta_with_failed_turns(3), N8nSimpleMemory(5))
question_3 = marta.interactions[2].messages[0]
stored_4 = [m for run in n8n_runs[:4] for m in run.saved]
assert len(stored_4) == 6 and question_3 not in stored_4 and not n8n_runs[2].answered
assert question_3 not in n8n_runs[3].calls[0].messages
assert [m.role.value for m in n8n_runs[3].calls[0].messages] == [
    "system",
    "user",
    "assistant",
    "user",
    "assistant",
    "user",
]
# Self-check 2: the picture is lesson 3's workflow (window 2) after the pictured chat, all
# four runs answered; turn 4's input holds turns 2 and 3, not turn 1 (stored): the window.
# A failed turn 1, or a new session per message, would look different.
pictured_window = workflow_node("lesson3_window", "Simple Memory")["parameters"]
assert pictured_window["contextWindowLength"] == 2
pictured = agent_runs(pictured_chat(), N8nSimpleMemory(2))
assert all(r.answered for r in pictured) and pictured[3].calls[0].memory_turns == (2, 3)
assert pictured[2].stored_after == 6 and why_not_sent(pictured, 4, 1) == "window"
# ... and 2 is the only window that sends turns 2 and 3 on turn 4 (self-check 2's answer).
assert [
    k
    for k in range(1, 8)
    if agent_runs(pictured_chat(), N8nSimpleMemory(k))[3].calls[0].memory_turns == (2, 3)
] == [2]
new_ids = session_per_message("s", 4)
new_sessions = agent_runs(pictured_chat(), N8nSimpleMemory(2), session_ids=new_ids)
assert why_not_sent(new_sessions, 4, 1) == "new session"
# ... but a session change after turn 1 alone looks like the picture (turns 2 and 3 sent, turn 1
# not), at the pictured window and any larger one: so the page states that the sessionId is the
# same in all four executions, and the worked answer says why it matters.
for k in (2, 5):
    changed = agent_runs(pictured_chat(), N8nSimpleMemory(k), session_ids=["s1", "s2", "s2", "s2"])
    assert (
        changed[3].calls[0].memory_turns == (2, 3) and why_not_sent(changed, 4, 1) == "new session"
    )
assert Path("images/n8n/lesson3_model_input.png").is_file()
# The pictures of real n8n 2.41.1 runs (verify/n8n/picture_shots.py names what each must show):
# the sub-workflow's trigger with order #6023, and turn 3 of lesson2_tool_turns, two Calculator
# steps in one run; that workflow's chat scripts the two calls.
assert Path("images/n8n/lesson2_subworkflow_inputs.png").is_file()
assert Path("images/n8n/lesson2_two_tool_steps.png").is_file()
lesson = json.loads(Path("02_with_and_without_memory.ipynb").read_text(encoding="utf-8"))
check_3_text = " ".join(
    " ".join("".join(c["source"]).split())
    for c in lesson["cells"]
    if "".join(c["source"]).startswith("### Self-check 2 · Read the window from n8n")
)
assert all(f'"{PICTURED_CHAT[i][0]}"' in check_3_text for i in (0, 3))
assert "All four executions are green" in check_3_text and "lesson3_model_input.png" in check_3_text
assert "shows the same `sessionId` in each" in check_3_text
# ... and the picture's text written out, one message per line, is turn 4's call as windowmem
# predicts it at window 2 (n8n's labels System, Human, AI for the roles).
label = {"system": "System", "user": "Human", "assistant": "AI"}
written_out = [f"{label[m.role.value]}: {m.content}" for m in pictured[3].calls[0].messages]
check_2_source = next(
    "".join(c["source"])
    for c in lesson["cells"]
    if "".join(c["source"]).startswith("### Self-check 2 · Read the window from n8n")
)
block = check_2_source.split("```text\n", 1)[1].split("\n```", 1)[0]
assert block.splitlines() == written_out and len(written_out) == 6
empty = agent_runs([user("Hi"), assistant(""), user("Still there?")], N8nSimpleMemory(5))
assert not empty[0].saved and not empty[1].calls[0].part(Part.MEMORY)
assert takes_memory("Chat Memory Manager")
# The repair: the Chat Memory Manager inserts types AI, System (its default) and User, after
# what is stored, and the next call loads the inserted question and reply like a written turn.
assert manager.DEFAULT_TYPE is manager.MessageType.SYSTEM
assert {t.value for t in manager.MessageType} == {"ai", "system", "user"}
reply_3 = marta.interactions[2].messages[1]
repaired = manager.insert(
    manager.stored_history(stored_4),
    [
        manager.ManagerMessage(question_3.content, "user"),
        manager.ManagerMessage(reply_3.content, "ai"),
    ],
)
assert [m.role.value for m in manager.model_history(repaired)[-2:]] == ["user", "assistant"]
# ... through a Simple Memory at Define below whose Key is the session id, plus "__" and the
# agent's memory node name on 1.4: the buffer the agent's own memory (default option) uses.
for version, key in ((1.3, "s1"), (1.4, "s1__Simple_Memory")):
    agent_side = simple_memory_buffer_key(
        chat_trigger_item("s1", "Hi"), workflow_id="wf", type_version=version
    )
    manager_side = simple_memory_buffer_key(
        {}, workflow_id="wf", type_version=version, id_type="customKey", key=key
    )
    assert agent_side == manager_side
assert [m.content for m in N8nSimpleMemory(5).load(manager.model_history(repaired))][-2:] == [
    question_3.content,
    reply_3.content,
]

# Section 3 (tools): the rows; the items; the buffers; turn 3's text; 4a and 4b; a leading "=" marks
# the rows n8n evaluates as expressions.
scenario = tutienda_tools
redirect, _ = tool_items()
sent_without_memory = agent_runs(scenario.conversation)[2].calls[0].messages
scenario_on = agent_runs(scenario.conversation, N8nSimpleMemory(5))
turn_3 = scenario.conversation.interactions[2]
assert all(
    parameter.startswith("={{")
    for tool in scenario.tools
    for _, parameter in tool.inputs
    if "{{" in parameter
)
assert sorted(tracking.arguments) == ["order_number"]
assert sorted(redirect.arguments) == ["new_address", "order_number"]
assert redirect.item == {
    "order_number": "#6023",
    "new_address": "Calle 93 #11-26, Bogotá",
    "requested_by": "chat agent",
}
assert tracking.item["session_id"] == scenario.session_id
assert turn_3.messages[0].content == "Could it go to my office instead? Calle 93 #11-26, Bogotá."
assert store.keys() == (
    f"{scenario.agent_workflow_id}__{scenario.session_id}",
    f"{tracking.tool.workflow_id}__{scenario.session_id}",
)
assert (scenario.agent_workflow_id, tracking.tool.workflow_id) == (
    "wf-support-agent",
    "wf-track-order",
)
assert len(inner.stored) == 0
# Section 3's See-it: track_order received #6023 on turn 2, with memory (turn 1 put it in the
# model's array); "without memory, that array holds only the System Message and 'Where is it
# right now?'", so the model cannot write track_order's order_number.
turn_2_off = agent_runs(scenario.conversation)[1].calls[0]
assert [m.content for m in turn_2_off.messages] == [
    scenario.conversation.messages[0].content,
    "Where is it right now?",
]
assert item_without_memory(tracking, turn_2_off.messages)["order_number"] == NOT_IN_ITS_ARRAY
assert tracking.item["order_number"] == "#6023"
assert item_without_memory(tracking, scenario_on[1].calls[0].messages)["order_number"] == "#6023"
assert scenario_on[1].calls[0].memory_turns == (1,)
assert not agent_runs(scenario.conversation)[1].calls[0].part(Part.MEMORY)
# The memory-off item: the order number, said only in turn 1, cannot be filled; the address and
# the fixed row are as with memory on.
assert item_without_memory(redirect, sent_without_memory) == {
    **redirect.item,
    "order_number": NOT_IN_ITS_ARRAY,
}
scenario_off = agent_runs(scenario.conversation)
assert [m.role.value for m in scenario_off[2].calls[0].messages] == ["system", "user"]
assert not any("#6023" in m.content for m in scenario_off[2].calls[0].messages)
assert any("#6023" in m.content for m in scenario_on[2].calls[0].messages)
# Section 3's picture written out under it: each row, its tag (change_address's left for
# self-check 3), its parameter as stored, and for track_order what its trigger received on turn 2.
inputs_lines = []
for delivery, when, tagged in (
    (tool_items()[1], "turn 2", True),
    (tool_items()[0], "turn 3, tags left for self-check 3", False),
):
    inputs_lines.append(f"{delivery.tool.name}, {when}")
    for field, parameter in delivery.tool.inputs:
        tag = ("model" if field in delivery.arguments else "n8n") if tagged else "?"
        got = f" → {delivery.item[field]}" if tagged else ""
        inputs_lines.append(f"  {field} · {tag} · {parameter}{got}")
section_3 = next(
    "".join(c["source"]) for c in lesson["cells"] if "".join(c["source"]).startswith("## 3 · ")
)
assert section_3.split("```text\n", 1)[1].split("\n```", 1)[0].splitlines() == inputs_lines
assert "#6023" in inputs_lines[1] and scenario.session_id in inputs_lines[2]
# ... and the picture's legend uses only words the page has defined before it.
legend = Path("02_workflow_inputs.svg").read_text(encoding="utf-8")
assert "expression" not in legend and "self-check 3 asks who fills it" in legend
# ... "expression", `{{ }}` and the leading "=" are defined before the picture shows them (r16).
picture_at = section_3.index("](02_workflow_inputs.svg)")
assert -1 < section_3.index("**expression**") < picture_at
assert -1 < section_3.index("The leading `=` marks a field as an") < picture_at
# Section 3's See-it shows the failure first (r16): turn 2's call without memory and with it,
# what its array holds, and the order number the model can give track_order from it.
turn_2_on = scenario_on[1].calls[0]
assert [m.role.value for m in turn_2_on.messages] == ["system", "user", "assistant", "user"]
assert len(turn_2_on.part(Part.MEMORY)) == 2 and turn_2_on.memory_turns == (1,)
assert turn_2_on.messages[-1].content == turn_2_off.messages[-1].content == "Where is it right now?"
table_3 = [
    '| without memory | System Message, "Where is it right now?" | none |',
    f"| with memory | System Message, turn 1's {len(turn_2_on.part(Part.MEMORY))} messages,"
    f' "Where is it right now?" | {item_without_memory(tracking, turn_2_on.messages)["order_number"]} |',
]
assert len(turn_2_off.messages) == 2 and all(row in section_3 for row in table_3)
assert section_3.index(table_3[0]) < picture_at
# Section 2's rule holds the failed run (r16: it was first taught in self-check 2's question);
# self-check 2's question uses it ("green") without restating it.
section_2 = next(
    "".join(c["source"]) for c in lesson["cells"] if "".join(c["source"]).startswith("## 2 · ")
)
assert "- A run whose AI Agent fails shows red under *Executions* and stores nothing." in section_2
assert "All four executions are green." in check_3_text and "fail" not in check_3_text
assert not n8n_runs[2].answered and question_3 not in stored_4
# Check 3: its own chat (the address on turn 1, the order number in turn 3's message): without
# memory turn 3's call is the System Message and turn 3's message, so only new_address is lost
# (not the field section 3's See-it loses); with memory both values are in the array.
assert [q for q, _ in MOVED_CHAT] == [
    "I've moved to Calle 93 #11-26, Bogotá.",
    "Which days do you deliver?",
    "Please send order #6023 there.",
]
moved_off, moved_on = moved_chat_turn_3(None), moved_chat_turn_3(N8nSimpleMemory(5))
assert [m.role.value for m in moved_off.messages] == ["system", "user"]
off_item = item_without_memory(redirect, moved_off.messages)
assert [f for f, _ in redirect.tool.inputs if off_item[f] != redirect.item[f]] == ["new_address"]
assert item_without_memory(redirect, moved_on.messages) == redirect.item
assert moved_on.memory_turns == (1, 2)
assert [f for f, _ in redirect.tool.inputs] == ["order_number", "new_address", "requested_by"]
assert [  # of the model's fields, only the order number is in turn 3's call without memory
    f
    for f in sorted(redirect.arguments)
    if any(redirect.arguments[f] in m.content for m in moved_off.messages)
] == ["order_number"]
assert redirect.tool.inputs[2] == ("requested_by", "chat agent")

# Going further's tool turns (section 4 until round 10): the lesson's workflow (AI Agent 3.1, Simple Memory, Calculator); one tool call makes
# a turn 4 messages; two parallel calls in one round store 6 with OpenAI (recorded, predicted); the two-round recording: turn 3 carries call_t2_2 only; 4 added; at window
# 3 turn 3 loads turns 1 and 2; AI Agent 2.2 stores question and answer; the old default.
course = Path("workflows/lesson2_tool_turns.json")
nodes = {n["name"]: n for n in json.loads(course.read_text(encoding="utf-8"))["nodes"]}
assert nodes["AI Agent"]["typeVersion"] == 3.1 and {"Simple Memory", "Calculator"} <= set(nodes)
assert len(scenario_on[1].saved) == 4 and scenario_on[1].saved[1].tool_calls == ("call_track_2",)
parallel = load_recording("parallel-tools")
assert parallel.n8n_version == "2.41.1" and len(parallel.runs[0].stored) == 6
assert [m.tool_calls for m in parallel.runs[0].stored if m.tool_calls] == [
    ("call_t1_a",),
    ("call_t1_b",),
]
# ... so a step is one reply's calls and their results: two messages for one call (the rule's
# "usually"), four for the two parallel calls, all stored (r16 read "a step is two messages" as
# contradicting the parallel turn).
assert [m.role.value for m in parallel.runs[0].stored[1:-1]] == ["assistant", "tool"] * 2
assert "A reply usually makes one call, and then its step is two messages." in " ".join(
    "".join(c["source"]) for c in lesson["cells"] if TOOL_TURNS_HEADING in "".join(c["source"])
).replace("\n", " ")
parallel_chat, _ = recorded_conversation(parallel)
assert len(agent_runs(parallel_chat, N8nSimpleMemory(5))[0].saved) == 6
turn_3_request = two_rounds.runs[2].requests[0]
assert [m.tool_calls for m in turn_3_request if m.tool_calls] == [("call_t2_2",)]
assert two_rounds.n8n_version == "2.41.1" and two_rounds.agent_version == 3.1
assert len(two_rounds.runs[1].stored) - len(two_rounds.runs[0].stored) == 4
assert all(c.agrees for c in recorded_beside_predicted("two-tool-rounds"))
chat, _ = recorded_conversation(two_rounds)
assert agent_runs(chat, N8nSimpleMemory(2))[2].calls[0].memory_turns == (2,)
# "forgets sooner": at k = 5 memory sends 10 messages; a plain turn stores 2, a turn with one
# tool call 4: five plain turns fit, two tool turns.
places = 2 * N8nSimpleMemory().size
plain, tool_turn = len(scenario_on[0].saved), len(scenario_on[1].saved)
assert (places, plain, tool_turn) == (10, 2, 4) and (places // plain, places // tool_turn) == (5, 2)
# ... "The other 2 are the end of a third turn."
assert places - (places // tool_turn) * tool_turn == 2


# ... section 2's rule: k counts pairs of messages, and a turn without tools stores one pair,
# so a window of 5 holds 5 such turns; Going further's tool-turn fix (after self-check 4, so the
# check is not answered above it): a tool turn stores 4, so the default window's 10 places hold 5 plain
# turns, or 2 tool turns in 8 places with 2 left for part of a third.
def _flat(heading, anywhere=False):
    """The first markdown cell that starts with *heading* (or holds it), its lines joined."""
    return " ".join(
        next(
            "".join(c["source"])
            for c in lesson["cells"]
            if (
                heading in "".join(c["source"])
                if anywhere
                else "".join(c["source"]).startswith(heading)
            )
        ).split()
    )


TOOL_TURNS = "### What a tool call leaves in memory"
rule_2, rule_4 = _flat("## 2 · "), _flat(TOOL_TURNS)
assert plain // 2 == 1 and places // plain == 5
assert "A turn without tools stores one pair, so a window of 5 holds 5 such turns." in rule_2
assert tool_turn // 2 == 2 and places // tool_turn == 2
fix_4 = _flat("**Spot it and fix it.** Open a later turn's", anywhere=True)
whole = places // tool_turn
assert (
    f"At the default of {N8nSimpleMemory().size}, memory sends the newest {places} messages:"
    f" {places // plain} turns without tools, or {whole} whole turns with a tool step." in fix_4
)
# ... and the tool-turn section states no count of a tool turn above self-check 4: a step is two messages,
# the rest is the reader's to add up.
assert str(tool_turn) + " messages" not in rule_4 and "pairs" not in rule_4
# ... and the fix says the same pairs in words; the main path's recap names only the turn
# without tools (a tool turn's count depends on the agent's version: Going further).
in_words = {1: "one", 2: "two"}
assert (
    f"A turn without tools stores {in_words[plain // 2]} pair, and a turn whose last step has"
    f" one tool call stores {in_words[tool_turn // 2]}." in fix_4
)
recap = _flat("## What to remember", anywhere=True)
assert f"A turn without tools stores {in_words[plain // 2]} pair." in recap
assert "tool step" not in recap and "## 4 · " not in "".join(
    "".join(c["source"]) for c in lesson["cells"]
)
# ... the main path points to the tool turns without counting them: one sentence, two links.
tools_pointer = _flat("**If your agent uses tools,**", anywhere=True)
assert "(#what-a-tool-call-leaves-in-memory)" in tools_pointer
assert "(03_window_buffer_memory.ipynb)" in tools_pointer
assert (
    f"a turn with one tool call stores {in_words[tool_turn // 2]} pairs: question, call, result,"
    " answer" in tools_pointer
)
# ... and the Try-it in n8n: the second run's first call holds turn 1 (a Calculator turn) as four
# messages, as n8n 2.41.1 sent it (tests/n8n/test_course_live.py).
try_it = _flat("**Try it in your n8n**", anywhere=True)
assert tool_turn == 4 and "holds turn 1 as those four messages" in try_it
# ... three tool turns at window 5: turn 4's call gets turn 1's answer alone (its result is dropped).
all_tools = [marta.system_message]
for t in (1, 2, 3):
    all_tools += [
        user(f"u{t}"),
        assistant("", [f"c{t}"]),
        tool(f"r{t}", f"c{t}"),
        assistant(f"a{t}"),
    ]
sent_4 = agent_runs(all_tools + [user("u4")], N8nSimpleMemory(5))[3].calls[0].part(Part.MEMORY)
assert [m.content for m in sent_4[:2]] == ["a1", "u2"] and len(sent_4) == 1 + 2 * tool_turn
assert 5 * tool_turn > 2 * 5 >= 2 * tool_turn and (2 * 5 - 2 * tool_turn) * 2 == tool_turn
# The numbered strip: turn 2 of the recording makes 3 model calls; call 1 asks for 2+3 (result
# 5), call 2 for 5*7 (result 35), call 3 answers "It is 35."; memory stores the question, call
# 2's tool call and result, and the answer; each call is sent the steps before it.
turn_2 = two_rounds.runs[1]
assert len(turn_2.requests) == 3 and turn_2.user_input == "t2: what is (2+3)*7?"
asked = [json.dumps(reply) for reply in turn_2.replies]
assert '"2+3"' in asked[0] and '"5*7"' in asked[1] and "It is 35." in asked[2]
assert [m.content for m in turn_2.requests[2] if m.role.value == "tool"] == [
    '[{"response":"5"}]',
    '[{"response":"35"}]',
]
assert [len([m for m in r if m.role.value == "tool"]) for r in turn_2.requests] == [0, 1, 2]
assert [(m.role.value, m.tool_calls) for m in turn_2.stored[-4:]] == [
    ("user", ()),
    ("assistant", ("call_t2_2",)),
    ("tool", ()),
    ("assistant", ()),
]
assert (
    turn_2.stored[-2].content == '[{"response":"35"}]' and turn_2.stored[-1].content == "It is 35."
)
strip = next(
    "".join(c["source"]) for c in lesson["cells"] if "".join(c["source"]).startswith(TOOL_TURNS)
)
table = [line for line in strip.splitlines() if line.startswith("| ") and "---" not in line][1:]
assert table == [
    "| 1 | none | tool call `2+3` | the Calculator returns `5`: step 1 |",
    "| 2 | step 1 | tool call `5*7` | the Calculator returns `35`: step 2 |",
    '| 3 | steps 1 and 2 | the answer "It is 35." | memory stores the question, step 2 and the answer |',
]
# ... one pass per model call; pass n is sent the n - 1 steps before it, and step n's result
# first comes back to pass n + 1: so step 2 is new in pass 3, which answers.
assert len(turn_2.requests) == 3 == len(table)
# ... read against the recording: what each model call replied, and what memory kept.
stored_texts = [m.content for m in turn_2.stored[-4:]]
assert stored_texts[0] == turn_2.user_input and '[{"response":"35"}]' in stored_texts
assert '[{"response":"5"}]' not in [m.content for m in turn_2.stored]
# ... "on the next turn, the model no longer sees step 1's result, `5`": turn 3's call.
assert '[{"response":"5"}]' not in [m.content for m in two_rounds.runs[2].requests[0]]
assert "`5`" in rule_4 and "It is 35." == turn_2.stored[-1].content
# Check 4: at window 3 the newest 6 stored messages are turn 1's 2 and turn 2's question, last
# tool step and answer: turns 1 and 2 reach turn 3's call. Had memory stored both steps (the
# whole recorded turn: question, two calls, two results, answer), turn 2 alone would fill the 6.
window_3_chat = agent_runs(chat, N8nSimpleMemory(3))
assert window_3_chat[2].calls[0].memory_turns == (1, 2)
assert window_3_chat[2].calls[0].part(Part.MEMORY) == tuple(
    window_3_chat[0].saved + window_3_chat[1].saved
)
assert len(window_3_chat[0].saved) == 2 and len(window_3_chat[1].saved) == 4
every_step = [m for m in turn_2.requests[2] if m.role.value != "system"][-5:]
assert every_step[0].content == turn_2.user_input and len(every_step) + 1 == 2 * 3
# Going further: at window 1 the newest 2 stored messages are turn 2's result 35 and its answer;
# the result's call is outside, so the result is dropped: 1 message, the answer. Turn 1 is not sent.
window_1 = agent_runs(chat, N8nSimpleMemory(1))
stored_2 = [m for run in window_1[:2] for m in run.saved]
assert len(window_1[1].saved) == 4 and stored_2[-2].role.value == "tool"
assert stored_2[-3].tool_calls and stored_2[-3] not in stored_2[-2:]
assert window_1[2].calls[0].part(Part.MEMORY) == (stored_2[-1],)
assert stored_2[-1].content == "It is 35." and 1 not in window_1[2].calls[0].memory_turns
# ... the window can cut a tool turn in two: at window 2, turn 6's last 4 stored messages start
# with a tool result whose call is outside; the agent drops it, so memory sends 3.
window_2 = agent_runs(scenario.conversation, N8nSimpleMemory(2))
stored_5 = [m for run in window_2[:5] for m in run.saved]
assert stored_5[-4].role.value == "tool" and stored_5[-5].tool_calls
assert window_2[5].calls[0].part(Part.MEMORY) == tuple(stored_5[-3:])
v22 = load_recording("agent-v22")
assert v22.agent_version == 2.2 and len(v22.runs[0].stored) == 2  # one model round, two stored
v22_chat = agent_runs(chat, N8nSimpleMemory(5), agent_version=2.2)
assert len(v22_chat[1].saved) == 2 and len(v22_chat[2].calls[0].part(Part.MEMORY)) == 4
assert system_prompt(1.8, None, output_parser=False) == DEFAULT_SYSTEM_MESSAGE
# The version table: before 2.3.0 a tool turn stored two messages, the tool use in the answer.
before_2_3 = saved_messages_before_2_3(user("u"), [("calc", {"x": 1}, "2")], assistant("It is 2."))
assert len(before_2_3) == 2 and before_2_3[1].content.startswith("[Used tools:")
assert DEFAULT_SYSTEM_MESSAGE == "You are a helpful assistant"

# Going further's self-check 5 and the explorer: 8 calls, turns 1 to 6 making 1, 2, 2, 1, 1, 1, call 6 being turn 4's (failed);
# 4 messages, none from memory; the still picture's call 2 carries turn 1.
fresh_ids = session_per_message(scenario.session_id, scenario.conversation.turn_count)
fresh = agent_runs(scenario.conversation, N8nSimpleMemory(5), session_ids=fresh_ids)
turn_2_second_call = fresh[1].calls[1]
calls_in_order = [run for run in scenario_on for _ in run.calls]
assert len(calls_in_order) == 8 and calls_in_order[5].turn == 4 and not calls_in_order[5].answered
assert len(turn_2_second_call.messages) == 4 and not turn_2_second_call.part(Part.MEMORY)
assert fresh[1].turn == 2 and len(fresh[1].calls) == 2 and len(set(fresh_ids)) == len(fresh_ids)
assert [m.role.value for m in turn_2_second_call.messages] == [
    "system",
    "user",
    "assistant",
    "tool",
]
assert scenario_on[1].calls[0].memory_turns == (1,)
assert scenario.conversation.interactions[1].messages[0].content == "Where is it right now?"
assert [len(r.calls) for r in scenario_on] == [1, 2, 2, 1, 1, 1] and not scenario_on[3].answered

# Common mistakes: a Key of {{ $json.chatInput }} opens a new session on every message.
keys = {
    simple_memory_buffer_key(
        chat_trigger_item("s-01", i.messages[0].content),
        workflow_id="wf",
        id_type="customKey",
        key="={{ $json.chatInput }}",
    )
    for i in marta.interactions
}
assert len(keys) == len(marta.interactions)
print("maintainers' check: every figure in this lesson was recomputed and matches")
