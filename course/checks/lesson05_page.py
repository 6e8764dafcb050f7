"""Lesson 5's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson05", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

from windowmem.messages import Role
from windowmem.policies.semantic_kernel import truncation_start

# Maintainer checks: every figure the prose above states, against windowmem. Folded away
# for readers; nbval and tests/test_lesson_texts.py run it.
plain_turns = stored_turn_sizes([0] * 30)
spring_turns = turns_in_window(20, stored_turn_sizes([0] * 30, stores_tool_calls=False)).whole_turns
n8n_match = min(
    k
    for k in range(1, 31)
    if turns_in_window(n8n_loaded_messages(k), plain_turns).whole_turns >= spring_turns
)
coverage = turns_in_window(n8n_loaded_messages(5), sizes[:8])
eight_turns = [m for turn in long_chat.interactions[:8] for m in turn.messages]
fits = [
    r
    for r in range(7)
    if rolling_summary(eight_turns, window=5, every=6, keep_turns=r)[7].summary_sent
]
assert (
    max(turns_reached(side_by_side(chat, [N8nSimpleMemory(10)]), fact, "n8n")) == 6
    and sum(sizes[:5]) == 20
    and sum(sizes[:6]) == 22
)
# Self-check 7's worked answer: n8n's 20 messages hold three whole turns of two tool calls and
# two messages of a fourth; Spring AI holds those three in 6; the 20 typed in holds ten turns,
# seven more.
two_call_turns = stored_turn_sizes([2] * 40)
spring_two_call_turns = stored_turn_sizes([2] * 40, stores_tool_calls=False)
migrated = turns_in_window(n8n_loaded_messages(10), two_call_turns)
assert messages_per_turn(2) == 6 and n8n_loaded_messages(10) == 20
assert (migrated.whole_turns, migrated.partial_messages) == (3, 2)
assert turns_in_window(6, spring_two_call_turns).whole_turns == 3
assert turns_in_window(20, spring_two_call_turns).whole_turns == 10 == migrated.whole_turns + 7
# Self-check 1's worked answer: n8n's default loads 10 messages, five turns without tools.
assert turns_in_window(n8n_loaded_messages(5), plain_turns).whole_turns == 5
# Self-check 2's worked answer, (c): three calls store 8 messages, three turns need 24 places.
assert (
    messages_per_turn(3) == 8
    and n8n_loaded_messages(12) == 24
    and turns_in_window(24, stored_turn_sizes([3] * 12)).whole_turns == 3
)
assert (
    load(store).messages_count == chat.turn_count + sum(calls_per_turn)
)  # "a turn adds one group, plus one per tool call": "15 groups for 30 messages, 9 turns plus 6 calls"
# Self-check 4's worked answer: after turn 4, 16 messages in 8 groups (4 turns, 4 calls); the
# older agent's 8 messages and an ai note, 5 groups, 9 messages.
after_4 = stored_history([m for run in agent_runs(chat, N8nSimpleMemory(5))[:4] for m in run.saved])
assert sizes[:4] == (2, 4, 6, 4) and sum(calls_per_turn[:4]) == 4
assert (
    len(after_4) == 16
    and load(after_4).messages_count == 8
    and load(after_4, simplify_output=False).messages_count == 16
)
older_4 = insert(
    stored_history(
        [
            m
            for turn in chat.interactions[:4]
            for m in turn.messages
            if m.role.value in ("user", "assistant") and not m.calls_tool
        ]
    ),
    [ManagerMessage("Customer prefers deliveries after 5 pm", "ai")],
)
assert (
    len(older_4) == 9
    and load(older_4).messages_count == 5
    and load(older_4, simplify_output=False).messages_count == 9
)
# Section 4's example of grouping: human, ai, system, human makes two groups.
assert load(
    stored_history(
        list(chat.messages[1:3]) + [ManagerMessage("note").as_message(), chat.messages[1]]
    )
).messages == (
    {"human": chat.messages[1].content, "ai": chat.messages[2].content, "system": "note"},
    {"human": chat.messages[1].content},
)
assert long_fact in kept and "Lucía" not in kept and "Lucía" in long_chat.messages[1].content
assert (
    spring_turns == 10
    and n8n_match == 10
    and n8n_loaded_messages(10) == 20
    and n8n_loaded_messages(20) == 40
)
assert turns_in_window(n8n_loaded_messages(20), plain_turns).whole_turns == 2 * spring_turns == 20
assert {p.name: (p.size, getattr(p, "threshold", None)) for p in products}["semantic-kernel"] == (
    10,
    2,
)
assert n8n_loaded_messages(5) == 10 and messages_per_turn(1) == 4 and messages_per_turn(2) == 6
assert turns_in_window(20, stored_turn_sizes([0] * 30, stores_tool_calls=False)).whole_turns == 10
assert (
    chat.turn_count == 9
    and sum(calls_per_turn) == 6
    and calls_per_turn[0] == 0
    and sizes[:8] == (2, 4, 6, 4, 4, 2, 4, 2)
)
assert {r.policy: r.visible_turns[0] for r in rows if r.turn == 9} == {
    "n8n": 5,
    "langchain-py": 4,
    "spring-ai": 1,
    "tensorify": 1,
    "llamaindex": 1,
    "trim-messages": 5,
    "semantic-kernel": 5,
    "openai-agents": 1,
    "langgraph": 1,
}
assert {r.policy: r.partial_turns for r in rows if r.turn == 9 and r.partial_turns} == {"n8n": (5,)}
assert (coverage.whole_turns, coverage.partial_messages) == (3, 2) and turn_9_call.memory_turns == (
    5,
    6,
    7,
    8,
)
assert len(turn_9_call.part(turn_9_call.sent[1].part)) == 9 and turn_9_call.sent[
    1
].message.content.startswith("Done")
assert turns_reached(rows, fact, "n8n") == (1, 2, 3) and sum(sizes[:3]) == 12
assert (
    sum(1 for p in products if len(turns_reached(rows, fact, p.name)) < 9) == 4
    and len(products) == 9
)
assert all(turns_reached(anchored_rows, fact, p.name) == tuple(range(1, 10)) for p in products)
assert [r.policy for r in rows if r.turn == 9 and r.fact_place(fact) is not FactPlace.NOT_SENT] == [
    "spring-ai",
    "tensorify",
    "llamaindex",
    "openai-agents",
    "langgraph",
] and still_in_memory == 5
assert {
    r.policy: r.visible_turns
    for r in rows
    if r.turn == 9 and r.policy in ("spring-ai", "tensorify")
} == {"spring-ai": tuple(range(1, 9)), "tensorify": tuple(range(1, 9))}
assert all(
    min(turns_reached(rows, fact, p)) == 1 and max(turns_reached(rows, fact, p)) == 4
    for p in ("trim-messages", "semantic-kernel")
)
assert (
    len(model_history(noted)) == 31 and len(N8nSimpleMemory(5).window(model_history(noted))) == 10
)
assert N8nSimpleMemory(5).window(model_history(noted))[-1].role.value == "system"
assert (
    len(store) == 30
    and load(store).messages_count == 15
    and load(store, simplify_output=False).messages_count == 30
)
# Self-check 4b's worked answer: the typeVersion 2.2 agent's store, question and answer a turn.
older = stored_history(
    [m for m in chat.messages if m.role.value in ("user", "assistant") and not m.calls_tool]
)
assert (
    len(older) == 18
    and load(older).messages_count == 9
    and load(older, simplify_output=False).messages_count == 18
)
assert (
    len(noted) == 31
    and len(chat_widget_messages(noted)) == 30
    and model_history(noted)[-1].role.value == "system"
)
assert len(delete(noted)) == 29 and delete(noted, "all") == ()
assert (
    max(fits) == 3
    and not rolling_summary(long_chat, window=5, every=5, keep_turns=5)[6].summary_sent
)
# Self-check 5a's worked answer: keeping four, turn t + 1 still sends the summary, t + 2 does not;
# keeping five, not even t + 1.
keeping_four = rolling_summary(eight_turns, window=5, every=6, keep_turns=4)
keeping_five = rolling_summary(eight_turns, window=5, every=6, keep_turns=5)
assert keeping_four[6].summary_sent and not keeping_four[7].summary_sent
assert keeping_four[5].stored_after == 9 and not keeping_five[6].summary_sent
assert long_chat.turn_count == 60
# Self-check 5b's worked answer: keeping three turns, the summary is cut on every third call.
keeping_three = rolling_summary(long_chat, window=5, every=3, keep_turns=3)
assert [t.turn for t in keeping_three if t.summary_sent is False] == list(range(6, 61, 3))
assert [t.stored_after for t in keeping_three[2:5]] == [7, 9, 11]
# The bill: rows by design, as design_bill named them.
designs = {r.mechanism: r for r in bill}
window_alone, pinned = designs["window 5 alone"], designs["window 5, the fact in the system prompt"]
best, guide = designs["summary every 3 turns, keep 1"], designs["summary every 5 turns, keep 5"]
seed_layout = summary_savings(long_chat, window=5, every=5, keep_turns=5, counter=count_tokens)
assert (
    seed_layout.saved == 0
    and guide.calls_sending_summary == 0
    and guide.agent_input == window_alone.agent_input
)
assert (
    best.summariser_output > 0
    and best.summariser_input
    > summary_savings(
        long_chat, window=5, every=3, keep_turns=1, counter=count_tokens
    ).summariser_tokens
)  # prompt and output counted
# "sends the agent less than the window alone ... its total is higher: about a quarter"
assert best.agent_input < window_alone.agent_input < best.total and 0.23 < best.share < 0.27
# "Section 3's design is cheaper than any summary ... carries the number on every call"
assert [r.mechanism for r in bill[:2]] == [
    "window 5 alone",
    "window 5, the fact in the system prompt",
] and pinned.total < best.total
anchored_long = with_fact_in_system_prompt(
    long_chat, f"Order on file for this customer: {long_fact}"
)
assert all(
    long_fact in run.calls[0].messages[0].content
    for run in agent_runs(anchored_long, N8nSimpleMemory(5))
)
assert window_alone.agent_input == seed_layout.plain_tokens and not any(
    fact in m.content for m in agent_runs(chat, N8nSimpleMemory(5))[3].calls[0].messages
)
# The guide's own window of 50: the summary reaches every one of the 55 calls after the first.
at_fifty = rolling_summary(long_chat, window=50, every=5, keep_turns=5)
assert (
    all(t.summary_sent for t in at_fifty if t.turn > 5)
    and sum(1 for t in at_fifty if t.turn > 5) == 55
)
ignored = rolling_summary(long_chat, window=5, every=5, keep_turns=5)
assert not any(t.summary_sent for t in ignored)
# Self-check 6's worked answer: every 4 turns keeping 1, the store after turns 4 to 7 is 3, 7, 9
# and 13 messages; turn 8's call misses the summary, turn 9's has it back.
assert [t.turn for t in valentina_schedule if t.summary_sent is False] == [8] and [
    t.turn for t in valentina_schedule if t.summary_sent
] == [5, 6, 7, 9]
assert [t.stored_after for t in valentina_schedule[3:7]] == [3, 7, 9, 13] and sizes[4:7] == (
    4,
    2,
    4,
)
assert sum(sizes[3:5]) == 8 and last_seen == 6
first_lost = {
    p.name: min(set(range(1, 10)) - set(turns_reached(rows, fact, p.name)), default=99)
    for p in products
}
assert first_lost["n8n"] == 4 and all(v > 4 for k, v in first_lost.items() if k != "n8n")
assert [
    p.name
    for p in products
    if {r.policy: r.visible_turns for r in marta_rows if r.turn == 7}[p.name] == (1, 2, 3, 4, 5, 6)
] == [
    "spring-ai",
    "tensorify",
    "llamaindex",
    "trim-messages",
    "semantic-kernel",
    "openai-agents",
    "langgraph",
]
assert {r.policy: r.visible_turns for r in marta_rows if r.turn == 7}["n8n"] == (2, 3, 4, 5, 6)
# Section 2: Semantic Kernel (target 10, threshold 2) cut its store when turn 8's answer made it
# 13 messages: the newest 10 start at turn 5's result, the cut moves to its call, then to its
# question, keeping turns 5 to 8 whole, 12 messages.
semantic_kernel = next(p for p in products if p.name == "semantic-kernel")
sk_runs = agent_runs(chat, semantic_kernel)
sk_store = ()
for sk_run in sk_runs[:7]:
    sk_store = semantic_kernel.write(sk_store, sk_run.saved)
at_turn_8 = (*sk_store, *sk_runs[7].saved)
assert len(sk_store) + 1 <= 12 < len(at_turn_8) == 13  # turn 8's question fits; its answer cuts
turn_5 = chat.interactions[4].messages
assert at_turn_8[13 - 10].role is Role.TOOL and at_turn_8[13 - 10] in turn_5
start = truncation_start(at_turn_8, 10, 2)
assert at_turn_8[start] == turn_5[0] and at_turn_8[start].role is Role.USER and start == 13 - 12
assert at_turn_8[start + 1].calls_tool and at_turn_8[start + 1] in turn_5
assert semantic_kernel.write(sk_store, sk_runs[7].saved) == at_turn_8[start:]
# Section 2, Deeper: the store takes a turn after its answer; turns 1 to 3 are 11 messages (turn
# 3's two calls are one assistant message), turn 4's call sends them all, and turn 4's call
# message, the 13th, cuts turn 1 only.
# The table replays the chat's own messages, as stored by a Semantic Kernel app.
sk_3 = semantic_kernel.write((), [m for turn in chat.interactions[:3] for m in turn.messages])
sk_4 = next(r for r in rows if r.turn == 4 and r.policy == "semantic-kernel")
assert len(sk_3) == 11 and sum(m.calls_tool for m in chat.interactions[2].messages) == 1
assert sk_4.memory_messages == 11 and sk_4.visible_turns == (1, 2, 3)
turn_4 = chat.interactions[3].messages
assert len(semantic_kernel.write(sk_3, turn_4[:1])) == 12
assert semantic_kernel.write(sk_3, turn_4[:2]) == (*sk_3, *turn_4[:2])[2:]
assert [m for m in chat.interactions[0].messages] == list((*sk_3, *turn_4[:2])[:2])
sk_9 = next(r for r in rows if r.turn == 9 and r.policy == "semantic-kernel")
assert sk_9.memory_messages == 12 and sk_9.visible_turns == (5, 6, 7, 8) and not sk_9.partial_turns
assert long_fact == "#7781"  # section 5's lead
print("every figure in the text checked")
