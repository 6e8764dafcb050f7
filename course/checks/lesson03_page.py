"""Lesson 3's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson03", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

from checks.lesson03 import (
    SHORT_PROMPT_ARTICLES,
    _after_the_break,
    _first_turn_without_the_name,
    _messages_at_window_0,
    first_turn_without_turn_1,
    second_agent,
    stamped_bill,
    support_behind,
)
from checks.page import workflow_node
from windowmem.calls.agent_calls import agent_runs
from windowmem.calls.recorded_runs import recorded_beside_predicted
from windowmem.cost import tokens_per_call
from windowmem.policies.n8n import visible_turns
from windowmem.prices import MODEL_PRICES
from windowmem.recall import fact_visible
from windowmem.replay import turn_view

# Section 1: the recorded run at the default window; 12 stored after turn 6, 12 sent on turn 7
# (System Message, turns 2 to 6, the question), #6023 not among them.
marta = load_example("marta")
order = ANCHOR_FACTS["marta"]
assert N8nSimpleMemory().size == 5 and marta_run.window == 5 and marta_run.n8n_version == "2.41.1"
assert len(marta_run.runs[5].stored) == 12 and len(turn_7_call) == 12
assert turn_7_call[0].role.value == "system" and turn_7_call[1].content == marta.messages[3].content
assert not any(order in m.content for m in turn_7_call) and order in marta.messages[1].content
assert any(order in m.content for m in marta_run.runs[5].stored)
# The twelve: 1 System Message, the 10 messages of turns 2 to 6 (window 5), 1 new question.
assert len(turn_7_call) == 1 + 2 * 5 + 1 and turn_7_call[-1].role.value == "user"
# 1's worked answer and the rule for k = 0 (every call grows with the chat) and k = 1.
assert visible_turns(5, 9) == (4, 5, 6, 7, 8) and visible_turns(0, 9) == tuple(range(1, 9))
assert _messages_at_window_0() == 1 + 16 + 1
assert all(visible_turns(1, t) == (t - 1,) for t in range(2, 10))
# The imported workflow's Simple Memory sets Context Window Length 2; its picture's turn 4
# carries turns 2 and 3 only.
memory = workflow_node("lesson3_window", "Simple Memory")
assert memory["parameters"]["contextWindowLength"] == 2 and visible_turns(2, 4) == (2, 3)

# Section 2: a tool turn with one call takes 4 places, with two calls 6; the recorded turn-4
# call at window 2 is system, the call for size 40, its result, the reply, the question, and
# windowmem predicts every recorded call; the orphan was size 39's result.
tool_chat = load_example("tool_use")
runs = agent_runs(tool_chat, N8nSimpleMemory(2))
assert [len(runs[t].saved) for t in (0, 2)] == [4, 6]
assert tool_run.window == 2 and tool_run.agent_version == 3.1
turn_4 = tool_run.runs[3].requests[0]
assert [m.role.value for m in turn_4] == ["system", "assistant", "tool", "assistant", "user"]
assert turn_4[1].tool_calls == ("call_stock_3b",)
assert all(c.agrees for c in recorded_beside_predicted("lesson3-tool-use"))
stored_before_4 = [m for run in runs[:3] for m in run.saved]
assert N8nSimpleMemory(2).window(stored_before_4)[0].tool_call_id == "call_stock_3a"
assert "39" in runs[2].saved[2].content or "39" in runs[2].saved[-1].content
assert not any(m.content == tool_chat.interactions[2].messages[0].content for m in turn_4)
assert (
    tool_run.type_versions["@n8n/n8n-nodes-langchain.memoryBufferWindow"] == 1.3
    and tool_run.type_versions["@n8n/n8n-nodes-langchain.agent"] == 3.1
)
# Several rounds: only the last round's calls are stored (recorded, AI Agent 3.1, turn 2 asked
# for call_t2_1, read its result, then asked for call_t2_2).
rounds = load_recording("agent-v31").runs[1]
asked = [c for request in rounds.requests for m in request for c in m.tool_calls]
kept = [c for m in rounds.stored[4:] for c in m.tool_calls]
assert {"call_t2_1", "call_t2_2"} <= set(asked) and kept == ["call_t2_2"]

# Self-check 3's worked answer: turn 3 is in a window of 3 on turns 4 to 6, out on turn 7.
assert [3 in visible_turns(3, t) for t in (4, 6, 7)] == [True, True, False]
assert 1 not in visible_turns(3, 5) and _first_turn_without_the_name() == 7

# Section 4: cached input a tenth of the input price, caches from 1,024 tokens; the table.
assert all(p.cached_input * 10 == p.input for p in MODEL_PRICES)
assert all(p.cache.min_tokens == 1024 for p in MODEL_PRICES)
assert tutienda == support_behind() and support.turn_count == 60
assert (
    ANCHOR_FACTS["support_60"] == "#7781" and "#7781" in support.interactions[0].messages[0].content
)
assert "Lucía" in support.interactions[0].messages[0].content
costs = [c for c in bills.columns if c.endswith("chats")]
assert len(costs) == 3 and bills.index.tolist() == [5, 10, 50, 0]
share = bills.loc[5, "input tokens"] / bills.loc[0, "input tokens"]
assert 0.75 <= share <= 0.85, share  # "about four fifths of the tokens"
assert all(bills.loc[5, c] > bills.loc[0, c] for c in costs)  # "a higher bill on every model"
assert all(bills[c].idxmax() == 50 for c in costs)  # "the dearest"
at_50, at_0 = (tokens_per_call(tutienda, N8nSimpleMemory(k), qwen) for k in (50, 0))
assert at_50[:51] == at_0[:51] and at_50[51] < at_0[51]  # the same until it fills
assert all(b > a for a, b in zip(at_0, at_0[1:], strict=False))  # at 0 every call grows
cached = next(c for c in bills.columns if c.startswith("cached input tokens"))
assert bills.loc[5, cached] < bills.loc[0, cached]  # "fewer of them cached"
assert bills["output tokens"].nunique() == 1  # "Output is the same at every window"

# Self-check 4: the time at the top; nothing cached, window 5 about four fifths of the tokens
# and of the bill, both several times the bill without the time.
timed = {k: stamped_bill(k) for k in (5, 0)}
assert all(b.total("cached") == 0 for b in timed.values())
assert 0.75 <= timed[5].dollars / timed[0].dollars <= 0.85
assert 0.75 <= timed[5].total("input") / timed[0].total("input") <= 0.85
mini = "GPT-5.4 mini, US$ per 1,000 chats"
assert all(float(timed[k].dollars) * 1000 > 3 * bills.loc[k, mini] for k in (5, 0))

# Self-check 4: 833 tokens, calls at window 5 under 1,024, no limit past 1,024 from turn 8.
short = support_behind(SHORT_PROMPT_ARTICLES)
assert qwen(short.system_message) == 833
assert max(tokens_per_call(short, N8nSimpleMemory(5), qwen)) < 1024
unbounded = tokens_per_call(short, N8nSimpleMemory(0), qwen)
assert next(t for t, n in enumerate(unbounded, start=1) if n >= 1024) == 8

# Self-check 5: the 70-minute break deletes turns 1 to 3; turn 5 is stored after it, and a
# window of 3 loads 6 to 8 on turn 9.
andina = load_example("mentioned_at_start")
andina_turns = [m for m in andina.messages if m.role.value != "system"][:16]
after_break = _after_the_break(andina_turns)
assert list(after_break.stored) == andina_turns[6:16]
assert list(after_break.load()) == andina_turns[10:16] and visible_turns(3, 9) == (6, 7, 8)

# Section 6: each chat asks on its last turn for a fact from turn 1 (and no later turn), and
# needs a window of t - 1; 8 to 12 reach turn 1 from turns 9 to 13.
for name in chats.values():
    chat = load_example(name)
    said = [
        i
        for i, t in enumerate(chat.interactions, start=1)
        if any(ANCHOR_FACTS[name] in m.content for m in t.messages)
    ]
    assert said == [1] and ANCHOR_FACTS[name] not in chat.interactions[-1].messages[-1].content
assert list(reach) == list(chats) and all(window == asked - 1 for asked, window in reach.values())
assert first_turn_without_turn_1(8) == 10 and first_turn_without_turn_1(12) == 14

# Self-check 6's worked answer and reply: turn 60 at 50 starts at turn 10, turn 1 lost from
# turn 52; the second agent's 833 tokens; the main agent's bills on GPT-5.4 mini.
assert visible_turns(50, 60)[0] == 10 and first_turn_without_turn_1(50) == 52
assert not fact_visible(turn_view(support, N8nSimpleMemory(50), 60, qwen), "#7781")
assert second_agent() == support_behind(SHORT_PROMPT_ARTICLES)
assert [bills.loc[k, mini] for k in (50, 5, 0)] == [31.43, 25.93, 23.91]
print("every figure in the text checked")
