"""Lesson 6's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson06", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

from decimal import Decimal

from windowmem.budget.chunking import CHUNK_TOKENS
from windowmem.budget.prompts import reference_line
from windowmem.budget.task import SEARCH_DEPTH
from windowmem.prices import MODEL_PRICES
from windowmem.recall import fact_visible
from windowmem.replay import turn_view

corpus = prepared.corpus
truncate, compact, retrieve, jit = (runs[p] for p in policies[1:])
bill = unbounded.bill

# The story and 1a's worked answer: 22,000 tokens, over seven times the longest call, five
# answers at 1,500, and searching again answers twelve for more than no cap.
assert round(bill.input_tokens, -3) == 22_000 and round(bill.peak, -3) == 3_000
assert truncate.answered == 5 and retrieve.answered == 12
assert retrieve.bill.input_tokens > bill.input_tokens
assert 7 < bill.input_tokens / bill.peak < 8  # "over seven times the longest call"
# The words: a system prompt of 33 tokens and a task text of 160, the twelve questions.
opening = unbounded.trace[0].context
assert [(i.kind.value, i.tokens) for i in opening] == [("system", 33), ("task", 160)]

# Section 1: six articles, chunks of at most 256 tokens, two per article, up to three reads.
assert len(corpus.articles) == 6 and max(c.tokens for c in prepared.chunks) <= CHUNK_TOKENS == 256
assert all(sum(c.article == a for c in prepared.chunks) == 2 for a in range(6))
assert SEARCH_DEPTH == 3 and prepared.task_articles() == (2,) * 6
ranks = [prepared.answer_rank[q] for q in prepared.task]
assert ranks.count(0) == 11 and ranks[9] == 1 and bill.reads == 13  # Q10 ranked second
calls_tokens = list(calls["call tokens"])
assert len(calls) == 14 == bill.calls and calls_tokens[0] == 193 and calls_tokens[-1] == 2951
steps = [b - a for a, b in zip(calls_tokens, calls_tokens[1:-1])]
assert 190 <= sum(steps) / len(steps) <= 230  # "each read adding about 200"
assert (
    list(calls["for"])[9:11] == ["Q10", "Q10"]
    and calls["bill so far"].iloc[-1] == bill.input_tokens
)
q4_chunk = prepared.top_chunks[prepared.task[9]][0]  # Q10's first read answers Q4
assert prepared.task[3] in {q for q, rel in enumerate(prepared.relevant) if q4_chunk in rel}
six = run_task(prepare(corpus, 6), 10**6, "unbounded")
six_calls = [s.used for s in six.trace if s.event.value == "call"]
assert len(six_calls) == 7 and six_calls[0] == 118
assert round((193 + 2951) / 2) == 1572

# Section 2: the reference line, summary lines of about 20 tokens, the table's sentences.
q4 = prepared.task[3]
warranty = corpus.articles[prepared.chunks[prepared.top_chunks[q4][0]].article].title
assert (
    reference_line(prepared.top_chunks[q4][0], warranty, 4)
    == '[chunk 6, "Warranty": answers question 4]\n'
)
refs = [i.tokens for i in jit.trace[-1].context if i.kind.value == "reference"]
assert len(refs) == 12 and 13 <= sum(refs) / len(refs) <= 17  # "about 15 tokens"
summaries = [i for s in compact.trace for i in s.context if i.kind.value == "summary"]
per_line = [i.tokens / len(i.lines) for i in summaries if i.lines]
assert 15 <= min(per_line) and max(per_line) <= 30  # "about 20 tokens each"
last_reads = [i for i in truncate.trace[-1].context if i.kind.value == "read"]
assert len(last_reads) == 6 and 1500 - 193 == 1307


def facts_of(reads):
    return [sorted(prepared.task.index(q) + 1 for q in i.facts) for i in reads]


assert facts_of(last_reads) == [[8], [9], [], [10], [11], [12]]
# 2a's worked answer, at 1,300: five reads kept, Q9's, Q10's two, Q11's and Q12's; four answers.
at_1300 = run_task(prepared, 1300, "truncate")
reads_1300 = [i for i in at_1300.trace[-1].context if i.kind.value == "read"]
assert 1300 - 193 == 1107 and facts_of(reads_1300) == [[9], [], [10], [11], [12]]
assert at_1300.answered == 4 and 1107 // 200 == 5
# Retrieve's 13 re-reads at 1,500: each takes the size over the budget and pushes out the
# oldest read (Q1's Q8's, Q2's Q9's), every question searched again, Q10 twice.
retrieve_reads = [s for s in retrieve.trace if s.event.value == "read"][bill.reads :]
assert [prepared.task.index(s.question) + 1 for s in retrieve_reads] == [*range(1, 11), 10, 11, 12]
pushed = [
    facts_of(
        i
        for i in s.context
        if i not in retrieve.trace[s.number + 1].context and i.kind.value == "read"
    )
    for s in retrieve_reads[:2]
]
assert pushed == [[[8]], [[9]]] and all(s.used > 1500 for s in retrieve_reads[:2])
assert jit.bill.calls == 26 and jit.reads_while_answering() == 12 and jit.bill.reads == 25
row = at_1500.loc
assert row["compact", "compactions"] == 2 and row["compact", "calls"] == bill.calls + 2
assert row["compact", "answered"] == 12 and row["retrieve", "reads"] == 13 + 13
assert row["retrieve", "input_tokens"] > row["unbounded", "input_tokens"]
assert row["just-in-time", "input_tokens"] == at_1500["input_tokens"].min()
assert row["just-in-time", "peak"] < 1000 < 1500 and row["just-in-time", "answered"] == 12
for name in ("truncate", "compact", "retrieve"):  # "at 2,951 or more ... the unbounded run"
    assert run_task(prepared, bill.peak, name).bill == bill
    assert run_task(prepared, bill.peak - 1, name).bill != bill

# Section 3: just-in-time's peak, 853 = 193 + twelve references (179) + two chunks (249, 232),
# while answering; its last call, 594 = 193 + 179 + Q12's chunk (222), holds one fact.
refs_tokens = sum(i.tokens for i in jit.trace[-1].context if i.kind.value == "reference")
at_peak = next(s for s in jit.trace if s.used == jit.bill.peak)
peak_reads = [i.tokens for i in at_peak.context if i.kind.value == "read"]
assert jit.bill.peak == 853 == 193 + refs_tokens + sum(peak_reads) and refs_tokens == 179
assert peak_reads == [249, 232] and at_peak.question is not None
jit_calls = [s for s in jit.trace if s.event.value == "call"]
final = [i for i in jit_calls[-1].context if i.kind.value == "read"]
assert jit_calls[-1].used == 594 == 193 + 179 + 222 and [i.tokens for i in final] == [222]
assert facts_of(final) == [[12]] and jit.facts_known()[-1] == 1 and jit.answered == 12

# Section 4: prices, the 1,024-token floor, the cheapest run, the cut by a third.
assert all(m.cached_input * 10 == m.input and m.cache.min_tokens == 1024 for m in MODEL_PRICES)
assert jit.bill.peak < 1024
by_model = {}
for c in costs:
    by_model.setdefault(c.model, {})[c.policy] = c
for model, cost in by_model.items():
    assert min(cost.values(), key=lambda c: c.dollars).policy == "unbounded", model
    assert cost["truncate"].dollars > cost["unbounded"].dollars  # "the invoice went up"
    assert 0.70 <= cost["unbounded"].cached_share <= 0.80  # "about three quarters"
    assert cost["just-in-time"].cached == 0
tokens_order = sorted(runs, key=lambda p: runs[p].bill.input_tokens)
assert tokens_order[-2] == "unbounded"  # "the most tokens but one"
assert round(1 - truncate.bill.input_tokens / bill.input_tokens, 1) == 0.3  # "by a third"
from windowmem.budget.money import task_calls  # noqa: E402

served = task_calls(unbounded, "gpt-5.4-mini")
assert served[4].cached == 0 and all(c.cached > 0 for c in served[5:])  # "from the sixth call on"
# The cache rules as the lesson states them: OpenAI and Google by themselves, OpenAI in steps
# of 128 (1,320 -> 1,280); Anthropic on request, its writes at 1.25 times the input price.
gpt, claude, gemini = MODEL_PRICES
assert not gpt.cache.explicit and not gemini.cache.explicit and claude.cache.explicit
assert gpt.cache.cacheable(1320) == 1280 and gemini.cache.cacheable(1320) == 1320
assert claude.cache_write == claude.input * Decimal("1.25") and gpt.cache_write is None
# "the Claude figures assume it does": its bills write to the cache and read from it.
claude_unbounded = by_model["Claude Sonnet 4.6"]["unbounded"].bill
assert claude_unbounded.total("written") > 0 and claude_unbounded.total("cached") > 0
# Unbounded's 75.3% against 77.5%, and retrieve's 42%: its last nine calls send windows that
# calls 6 to 14 sent, so the cache serves them.
assert f"{by_model['GPT-5.4 mini']['unbounded'].cached_share:.1%}" == "75.3%"
assert f"{by_model['Gemini 2.5 Flash']['unbounded'].cached_share:.1%}" == "77.5%"
assert round(100 * by_model["GPT-5.4 mini"]["retrieve"].cached_share) == 42
retrieve_calls = [s.context for s in retrieve.trace if s.event.value == "call"]
assert len(retrieve_calls) == 27 and retrieve_calls[18:] == retrieve_calls[5:14]
assert all(c.cached == 0 for c in task_calls(retrieve, gpt)[10:18])
assert all(c.cached > 0 for c in task_calls(retrieve, gpt)[18:])
retrieve_cached = [c.cached for c in task_calls(retrieve, gpt)]
assert sum(retrieve_cached[18:]) / sum(retrieve_cached) > 0.8  # "mostly its last nine calls"
# "A real agent's longer system prompt ... narrows the gaps without changing the cheapest":
# the reference page's table, at 1,700 tokens and the budget raised as much.
from windowmem.budget.money import policy_costs as _costs  # noqa: E402

longer = [run_task(prepared, 1500 + 1700 - 33, p, system_tokens=1700) for p in policies]
for model in MODEL_PRICES:
    short_costs = {c.policy: c.dollars for c in costs if c.model == model.name}
    long_costs = {c.policy: c.dollars for c in _costs(longer, (model,))}
    assert min(long_costs, key=long_costs.get) == "unbounded"
    gap = lambda d: min(v for k, v in d.items() if k != "unbounded") / d["unbounded"]  # noqa: E731
    assert gap(long_costs) < gap(short_costs), model.name

# Section 5: the long chat, 24 tokens a turn, 12 pinned tokens, 14 times, 4% more; the order
# number is the one the chat gives on turn 1, and a window of 300 turns keeps every turn.
from windowmem.examples import ANCHOR_FACTS  # noqa: E402

drift = keeping
assert (
    order == ANCHOR_FACTS["support_60"] and order in long_chat.interactions[0].messages[0].content
)
assert (
    keeping_frame({"no limit": (long_chat, N8nSimpleMemory(0))}, order, count_tokens)
    .iloc[0]
    .equals(keeping.iloc[0])
)
turns = [sum(count_tokens(m) for m in i.messages) for i in long_chat.interactions]
assert round(sum(turns) / len(turns)) == 24 and long_chat.turn_count == 300
assert count_tokens(pinned_chat.messages[0]) - count_tokens(long_chat.messages[0]) == 12
bills = drift["input bill"]
assert round(bills["keep every turn"] / bills["window of 10 turns"]) == 14
assert (
    round(100 * (bills["window of 10, order number pinned"] / bills["window of 10 turns"] - 1)) == 4
)
assert drift["last call tokens"]["keep every turn"] > 7000
everything = turn_view(long_chat, N8nSimpleMemory(0), 300, count_tokens)
assert fact_visible(everything, order) and long_chat.interactions[0].messages[0].content.count(
    order
)
first_turn = sum(count_tokens(m) for m in long_chat.interactions[0].messages)
assert first_turn / everything.input_tokens < 0.01  # "its turn a sliver of a prompt"
assert drift.iloc[0, -1] and not drift.iloc[1, -1] and drift.iloc[2, -1]  # who still shows it
print("every figure in the text checked")
