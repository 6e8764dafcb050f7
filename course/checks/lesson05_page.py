"""Lesson 5's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson05", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

import dataclasses

from windowmem_course.checks.lesson05 import STOCK_CALLS
from windowmem.calls.agent_calls import agent_runs
from windowmem.design.money import (
    SUMMARY_INSTRUCTION_TOKENS,
    SYSTEM_PROMPT_TOKENS,
    WINDOW_MESSAGES,
    summariser_calls,
    support_designs,
)
from windowmem.design.rolling_summary import rolling_summary
from windowmem.design.side_by_side import FactPlace
from windowmem.design.sizing import parallel_tool_chat, per_call_window, whole_turns_per_call
from windowmem.design.units import (
    messages_per_turn,
    n8n_loaded_messages,
    stored_turn_sizes,
    tool_calls_per_turn,
    turns_in_window,
)
from windowmem.messages import Role, assistant, user
from windowmem.policies import N8nSimpleMemory
from windowmem.policies.langchain_agents import LangChainTrimInput
from windowmem.policies.langgraph import SUMMARY_PREFIX, LangChainSummarization, LangGraphTrimInput
from windowmem.policies.llamaindex_memory import LlamaIndexMemory, flush_size
from windowmem.policies.openai_agents import PRUNES_ORPHAN_OUTPUTS, OpenAIAgentsSession
from windowmem.policies.spring_ai import SpringAi1xMessageWindow, SpringAiMessageWindow
from windowmem.prices import (
    ANTHROPIC_CACHE,
    GEMINI_CACHE,
    MODEL_PRICES,
    OPENAI_CACHE,
    PRICES_CHECKED,
    call_cost,
)

# Section 1: the six set-ups are the "10" of the code shown, and what each stores per turn.
n8n, langchain, agents_sdk, spring, llamaindex, agent_framework = frameworks
assert (n8n.name, n8n.size, n8n_loaded_messages(n8n.size)) == ("n8n", 5, 10)
assert (langchain.name, langchain.size) == ("langchain-trim-state", 10)
assert (agents_sdk.size, spring.size, agent_framework.size) == (10, 10, 10)
assert agent_framework.target == 10 and agent_framework.name == "agent-framework-truncation"
# LlamaIndex: Memory.from_defaults(token_limit=400, token_flush_size=100), cut past 400 x 0.7.
assert (llamaindex.name, llamaindex.size, llamaindex.flush) == ("llamaindex-memory", 400, 100)
assert llamaindex.threshold == 400 * 0.7 and llamaindex.trims_on_write
# "with a small token_limit its default (3,000) is cut to token_limit x 0.7, the whole
# allowance, so one flush can empty all but the newest turn": at 400, turn 6's call.
assert flush_size(400) == int(400 * 0.7) and 400 * 0.7 < 3000
default_flush = LlamaIndexMemory(400, counter=llamaindex.counter)
turn_6 = {r.policy: r for r in side_by_side(chat, [default_flush]) if r.turn == 6}
assert turn_6["llamaindex-memory"].visible_turns == (5,)
calls_per_turn = tool_calls_per_turn(chat.messages)
sizes = stored_per_turn(chat, n8n)
assert [t for t, calls in enumerate(calls_per_turn[:8], 1) if calls] == [2, 3, 4, 5, 7]
assert calls_per_turn[2] == 2  # "turn 3 asked for two tools at once"
for p in (n8n, langchain, agents_sdk, llamaindex, agent_framework):  # "all but Spring AI keep..."
    assert all(s >= 4 for s, c in zip(stored_per_turn(chat, p), calls_per_turn, strict=True) if c)
assert set(stored_per_turn(chat, spring)) == {2}
# Turn 3: LangChain and LlamaIndex 5, the Agent Framework 4, n8n and the SDK 6.
assert [stored_per_turn(chat, p)[2] for p in frameworks] == [6, 5, 6, 2, 5, 4]
assert sizes[:8] == (2, 4, 6, 4, 4, 2, 4, 2) == stored_turn_sizes(calls_per_turn)[:8]
# The orphan rule: n8n and the Agents SDK drop a result whose call was cut; LangChain's
# start_on="human" starts on a question.
turn_9 = {r.policy: r for r in rows if r.turn == 9}
assert turn_9["n8n"].partial_turns == (5,) == turn_9["openai-agents"].partial_turns
assert turn_9["langchain-trim-state"].partial_turns == ()
# The Agent Framework cuts between whole groups: turn 5's answer stays, its question and its
# call with the result go together.
af_9 = turn_9["agent-framework-truncation"]
assert af_9.partial_turns == (5,) and af_9.sent[1] == chat.interactions[4].messages[-1]
assert not any(m.role is Role.TOOL for m in chat.interactions[4].messages if m in af_9.sent)
n8n_turn_9 = agent_runs(chat, N8nSimpleMemory(5))[8].calls[0]
assert (
    n8n_turn_9.sent[1].message.role is Role.ASSISTANT
)  # the orphaned result went, the answer stayed
# "once per round of tool calls and once more to answer, each call loading the memory anew"
stock_chat = parallel_tool_chat(12, calls=STOCK_CALLS)
stock_calls = agent_runs(stock_chat, N8nSimpleMemory(12))[-1].calls
assert len(stock_calls) == 2 and [len(c.part(c.sent[1].part)) for c in stock_calls] == [24, 24]

# Self-check 1's worked answer.
coverage = turns_in_window(n8n_loaded_messages(5), sizes[:8])
assert (coverage.whole_turns, coverage.partial_messages) == (3, 2)
assert sizes[7] + sizes[6] + sizes[5] == 8 and sizes[4] == 4
assert [m.role for m in chat.interactions[4].messages[-2:]] == [Role.TOOL, Role.ASSISTANT]
assert min(n8n_turn_9.memory_turns) == 5
# 1c: LangChain stores 1 + 1 + 3 + 1 = 6 a turn; the answering call holds 3 turns and this
# turn's 5 messages before its answer: 23. At 19 the first call sends 3 whole turns, the
# answering call 2 (tests/design/test_sizing.py plays both through the real create_agent).
stock_turns = stored_per_turn(stock_chat, langchain)
assert set(stock_turns) == {1 + 1 + STOCK_CALLS + 1} == {6} and 3 * 6 + 5 == 23
assert per_call_window(turn_size=6, turns=3) == 23
assert whole_turns_per_call(stock_chat, dataclasses.replace(langchain, size=19), 12) == (3, 2)
assert whole_turns_per_call(stock_chat, dataclasses.replace(langchain, size=23), 12) == (3, 3)
assert messages_per_turn(STOCK_CALLS) == 8  # n8n would store 8: one assistant message a call
assert turn_9["langchain-trim-state"].memory_messages + 1 <= 10  # the count includes the question
# "the same 10 holds three whole turns in n8n, the Agents SDK and LangChain ... five in Spring AI"
whole = {
    name: [t for t in r.visible_turns if t not in r.partial_turns] for name, r in turn_9.items()
}
assert [len(whole[p.name]) for p in frameworks] == [3, 3, 3, 5, 5, 3]
assert turn_9["llamaindex-memory"].partial_turns == ()
# The `yours` cell prints the array of the framework named, the one side_by_side built.
assert yours in {p.name for p in frameworks}
assert turn_9["langchain-trim-state"].memory_messages == 8  # 9 of its 10 with the new question

# Self-check 2's worked answer and the table after it.
assert turns_reached(rows, fact, "n8n") == (1, 2, 3) and sum(sizes[:3]) == 12
lc_sizes = stored_per_turn(chat, langchain)
assert turns_reached(rows, fact, "langchain-trim-state") == (1, 2, 3)
assert lc_sizes[:3] == (2, 4, 5) and sum(lc_sizes[:3]) + 1 == 12 > 10
at_k10 = turns_reached(side_by_side(chat, [N8nSimpleMemory(10)]), fact, "n8n")
assert max(at_k10) == 6 and sum(sizes[:5]) == 20 and sum(sizes[:6]) == 22
last_seen = {p.name: max(turns_reached(rows, fact, p.name)) for p in frameworks}
assert all(v < chat.turn_count for v in last_seen.values())  # every framework drops it
assert (
    max(last_seen, key=last_seen.get) == "spring-ai"
    and list(last_seen.values()).count(last_seen["spring-ai"]) == 1
)  # "Spring AI last"
assert all(turns_reached(anchored_rows, fact, p.name) == tuple(range(1, 10)) for p in frameworks)
assert all(
    r.fact_place(fact) is FactPlace.SYSTEM for r in anchored_rows if r.turn == chat.turn_count
)

# Section 3: SummarizationMiddleware writes its summary as a user message at the front.
middleware = LangChainSummarization(10, trigger_tokens=None, trigger_messages=30)
thread = [m for t in range(1, 16) for m in (user(f"q{t}"), assistant(f"a{t}"))]
summarised = middleware.window(thread)
assert summarised[0].role is Role.USER and summarised[0].content.startswith(SUMMARY_PREFIX)
assert SUMMARY_PREFIX.startswith("Here is a summary of the conversation to date")
assert len(summarised) == 1 + 10 and middleware.window(thread[:28]) == tuple(thread[:28])

# Self-check 3's worked answer.
long_chat = load_example("support_60")
eight_turns = [m for turn in long_chat.interactions[:8] for m in turn.messages]
fits = [
    r
    for r in range(7)
    if rolling_summary(eight_turns, window=5, every=6, keep_turns=r)[7].summary_sent
]
assert max(fits) == 3
valentina_schedule = rolling_summary(chat, window=5, every=4, keep_turns=1, counter=count_tokens)
assert [t.stored_after for t in valentina_schedule[3:7]] == [3, 7, 9, 13]
assert sizes[4:7] == (4, 2, 4)
assert [t.turn for t in valentina_schedule if t.summary_sent is False] == [8]
assert valentina_schedule[8].summary_sent

# The explorer's snapshot: on turn 3 every card holds turn 1; on turn 9 none does.
assert not [r.policy for r in rows if r.turn == 9 and 1 in r.visible_turns]
assert all(1 in r.visible_turns for r in rows if r.turn == 3)
snapshot = explorer.current_html()
assert explorer.turn.value == 3 and (explorer.every.value, explorer.keep.value) == (4, 1)
assert 'data-turn="3"' in snapshot and "wm-fact" in snapshot

# Section 4: the prices and the cache rule as the text states them.
assert all(p.cached_input * 10 == p.input for p in MODEL_PRICES) and len(MODEL_PRICES) == 3
assert all(p.cache.min_tokens == 1024 for p in MODEL_PRICES)
assert PRICES_CHECKED == "2026-12-06"  # "the providers' list prices on 6 December 2026"
# "OpenAI counts that prefix in steps of 128 tokens: of a 1,701-token system prompt it caches
# 1,664 (13 x 128)."
system_prompt = designs[0][1].messages[0]
assert OPENAI_CACHE.step_tokens == 128 and count_tokens(system_prompt) == 1701
assert OPENAI_CACHE.cacheable(1701) == 1664 == 13 * 128
assert SYSTEM_PROMPT_TOKENS == 1700 and WINDOW_MESSAGES == 10
assert "#7781" == ANCHOR_FACTS["support_60"] and long_chat.turn_count == 60
assert mini == price_of("gpt-5.4-mini") and [d[0] for d in designs] == [
    d[0] for d in support_designs(count_tokens)
]
# Self-check 4's premise and the table: the window of 40 is the dearest on every model, the
# summary's agent calls the cheapest, the window of 10 dearer than the whole history.
costs = design_costs(designs, count_tokens)
names = [d[0] for d in designs]
dollars = {(c.design, c.model): c.dollars for c in costs}
for model in MODEL_PRICES:
    column = {d: dollars[(d, model.name)] for d in names}
    assert column["window of 10 messages"] > column["whole history"]
    assert max(column, key=column.get) == "window of 40 messages"
    assert min(column, key=column.get) == "summary at 30 messages, keep 10"
assert list(table) == names and all(
    table[c.design]["cached, GPT-5.4 mini"] == f"{c.cached_share:.0%}"
    for c in costs
    if c.model == "GPT-5.4 mini"
)


def per_1000(design, model):
    return round(float(dollars[(design, model)]), 2)


def gap(design, model):
    return float(dollars[(design, model)] / dollars[("whole history", model)] - 1)


# "0.6% more on GPT-5.4 mini ($20.23 against $20.11), 4% more on Gemini, 13% more on Claude"
assert per_1000("window of 10 messages", "GPT-5.4 mini") == 20.23
assert per_1000("whole history", "GPT-5.4 mini") == 20.11
assert round(gap("window of 10 messages", "GPT-5.4 mini") * 100, 1) == 0.6
assert round(gap("window of 10 messages", "Gemini 2.5 Flash") * 100) == 4
assert round(gap("window of 10 messages", "Claude Sonnet 4.6") * 100) == 13
# "Window of 40: 53% more than the whole history on GPT-5.4 mini"
assert round(gap("window of 40 messages", "GPT-5.4 mini") * 100) == 53
# The worked call: turn 60 on GPT-5.4 mini, the window's call the cheaper.
whole_call, window_call = (last_call(d, mini, count_tokens) for d in designs[:2])
assert whole_call.turn == window_call.turn == 60
assert (window_call.uncached, whole_call.uncached) == (173, 101)
assert (window_call.cached, whole_call.cached) == (1664, 3072)
assert call_cost(window_call, mini) < call_cost(whole_call, mini)
assert "uncached input" in priced_call(window_call, mini)


# "In ten-turn averages the whole history's calls become the dearer from turns 31-40 on GPT-5.4
# mini, 51-60 on Gemini 2.5 Flash, and not within 60 turns on Claude Sonnet 4.6."
def dearer_blocks(model):
    whole, window = (per_call_by_block(d, model, count_tokens) for d in designs[:2])
    return [i for i, (h, w) in enumerate(zip(whole, window, strict=True)) if h > w]


assert dearer_blocks(mini) == [3, 4, 5]
assert dearer_blocks(price_of("gemini-2.5-flash")) == [5]
assert dearer_blocks(price_of("claude-sonnet-4-6")) == []
# Claude's fold: the caller marks the cache and pays 1.25 x input to write it; OpenAI and
# Google cache by themselves for free; at the plain input price the gap is $4.75, not $9.08.
claude = price_of("claude-sonnet-4-6")
assert ANTHROPIC_CACHE.explicit and claude.cache_write == claude.input * 125 / 100
assert not OPENAI_CACHE.explicit and not GEMINI_CACHE.explicit
assert all(p.cache_write is None for p in MODEL_PRICES if p is not claude)
claude_gap = (
    dollars[("window of 10 messages", claude.name)] - dollars[("whole history", claude.name)]
)
assert round(float(claude_gap), 2) == 9.08
plain = dataclasses.replace(claude, cache_write=claude.input)
whole_plain, window_plain = design_costs(designs[:2], count_tokens, [plain])
assert round(float(window_plain.dollars - whole_plain.dollars), 2) == 4.75
# "its summariser's five calls (an estimate: LangChain's 494-token instruction and the replaced
# messages in, about 70 tokens out, same model) add $4.57, which puts it above the whole history"
summary_design = designs[-1]
summaries = summariser_calls(summary_design, count_tokens)
assert len(summaries) == 5 and SUMMARY_INSTRUCTION_TOKENS == 494
assert all(65 <= c.output <= 75 and c.cached == 0 for c in summaries)
extra = summariser_dollars(summary_design, mini, count_tokens)
assert round(float(extra), 2) == 4.57 == table[summary_design[0]]["$, summariser, GPT-5.4 mini"]
assert dollars[(summary_design[0], mini.name)] + extra > dollars[("whole history", mini.name)]
assert all(table[d[0]]["$, summariser, GPT-5.4 mini"] == 0 for d in designs[:-1])

# Which version are you on?
assert PRUNES_ORPHAN_OUTPUTS == (0, 20, 0)
split = chat.messages[:1] + chat.interactions[1].messages[2:] + chat.interactions[2].messages[:1]
old_sdk = OpenAIAgentsSession(10, version="0.19.4").window(list(split))
assert any(m.role is Role.TOOL for m in old_sdk)
assert not any(m.role is Role.TOOL for m in OpenAIAgentsSession(10).window(list(split)))
# Spring AI 1.x evicts first in, first out; 2.x moves the cut to the next question.
odd = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]
assert SpringAi1xMessageWindow(4).write((), odd)[0].role is Role.ASSISTANT
assert SpringAiMessageWindow(4).write((), odd)[0].role is Role.USER
assert len(LangGraphTrimInput(0).window(odd)) == 5 and LangChainTrimInput(0).window(odd) == ()
print("every figure in the text checked")
