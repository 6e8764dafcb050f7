"""Lesson 6's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson06", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

from decimal import Decimal

from windowmem.budget.chunking import CHUNK_TOKENS
from windowmem.budget.prompts import reference_line
from windowmem.budget.task import SEARCH_DEPTH
from windowmem.policies import N8nSimpleMemory
from windowmem.prices import MODEL_PRICES
from windowmem.recall import fact_visible
from windowmem.replay import turn_view

corpus = prepared.corpus
# The runs priced on every model, and on Claude with no cache (Going further's table, built from
# price_row, shows the same figures; the asserts below hold its cells to these).
costs = policy_costs(runs.values())
no_cache = {c.policy: c for c in policy_costs(runs.values(), (without_cache(claude),))}
assert policies == ["unbounded", "truncate", "compact", "just-in-time"]  # "three policies"
truncate, compact, jit = (runs[p] for p in policies[1:])
retrieve = run_task(prepared, 1500, "retrieve")  # the fourth policy, on the reference page
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
replies = list(calls["reply asks for"])
assert replies[9:11] == ["Q10's chunk", "Q10's chunk"] and sum(calls_tokens) == bill.input_tokens
assert (
    replies[0] == "Q1's chunk"
    and replies[12] == "Q12's chunk"
    and replies[-1] == "(writes the report)"
)
# The task's steps: one report, written by the last call, holding every answer; the answers are
# taken while answering (the answer events) and kept apart from the window, which the last
# call's size counts without them.
unbounded_calls = [s for s in unbounded.trace if s.event.value == "call"]
assert unbounded_calls[-1].detail == "write the answers" and unbounded_calls[-1].question is None
assert all(s.question is not None for s in unbounded_calls[:-1]) and len(unbounded_calls) == 13 + 1
answer_steps = [s for s in unbounded.trace if s.event.value == "answer"]
assert [s.question for s in answer_steps] == list(prepared.task)
assert all(s.number > unbounded_calls[-2].number for s in answer_steps)  # after every read
# Section 1's timeline. Every run: "A question gets its answer only if the read made for it is
# still in the window when its answer is taken", and "the last call writes out" the list. No
# cap: read "asked for in calls 1 to 13, arriving in 2 to 14" (each call's reply asks for the
# chunk the next call carries last), answer "from call 14's window", report in call 14. (Q1's
# read lands in call 2, and truncate, which has dropped it by then, does not answer Q1.)
for asked, arrived in zip(unbounded_calls[:13], unbounded_calls[1:14]):
    assert asked.question is not None and arrived.context[:-1] == asked.context
    assert arrived.context[-1].kind.value == "read" and arrived.context[-1] not in asked.context
assert all(unbounded_calls[-2].number < s.number < unbounded_calls[-1].number for s in answer_steps)
# "An agent answering as it read would keep every answer under any cap": each question's fact
# reaches some call's window in every run, capped ones too; only the last call's lacks it.
for run in (truncate, run_task(prepared, 1300, "truncate"), run_task(prepared, 600, "truncate")):
    seen = {q for s in run.trace if s.event.value == "call" for i in s.context for q in i.facts}
    assert seen >= set(prepared.task)
for run in (unbounded, truncate):
    last_call = [s for s in run.trace if s.event.value == "call"][-1]
    in_window = {q for i in last_call.context for q in i.facts}
    assert set(run.answered_questions) == in_window & set(prepared.task)
    assert {
        s.question for s in run.trace if s.event.value == "answer" and s.detail == "answered"
    } == in_window & set(prepared.task)
# What to choose, 1: the largest call fits the model (2,951 tokens: the last call is the largest).
assert max(calls_tokens) == calls_tokens[-1] == bill.peak == 2951
assert unbounded_calls[1].context[-1].facts == {prepared.task[0]} and len(unbounded_calls) - 1 == 13
assert prepared.task[0] not in {q for i in truncate.trace[-1].context for q in i.facts}
q1_answer = next(
    s for s in truncate.trace if s.event.value == "answer" and s.question == prepared.task[0]
)
assert q1_answer.detail == "fact not in the window"
# "Q7 needs Q1's chunk, and Q8 Q2's; this agent reads them again."
unbounded_reads = [i for i in unbounded.trace[-1].context if i.kind.value == "read"]
assert [i.chunk for i in unbounded_reads[:2]] == [i.chunk for i in unbounded_reads[6:8]]
# Self-check 1's worked answer: 14 calls of about 1,572 come to about 22,000; 7.6 times 2,951.
assert round(14 * 1572, -3) == 22_000 and round(bill.input_tokens / 2951, 1) == 7.6
q4_chunk = prepared.top_chunks[prepared.task[9]][0]  # Q10's first read answers Q4
assert prepared.task[3] in {q for q, rel in enumerate(prepared.relevant) if q4_chunk in rel}
six = run_task(prepare(corpus, 6), 10**6, "unbounded")
six_calls = [s.used for s in six.trace if s.event.value == "call"]
assert len(six_calls) == 7 and six_calls[0] == 118
assert round((193 + 2951) / 2) == 1572

# Section 1's message array: call 4, as the agent sends it, is the system prompt, the task as
# the user's message and the three chunks read so far as tool results; the model answers it by
# asking for Q4's chunk, and call 5 sends the same messages plus that chunk.
sent_4 = call_messages(unbounded, 4, prepared)
assert [m.role for m in sent_4] == ["system", "user", "tool", "tool", "tool"]
assert sum(m.tokens for m in sent_4) == calls_tokens[3] == 869
assert [m.what for m in sent_4[2:]] == ["Q1's chunk", "Q2's chunk", "Q3's chunk"]
call_4, call_5 = [s for s in unbounded.trace if s.event.value == "call"][3:5]
assert prepared.task.index(call_4.question) == 3 and call_5.context[:-1] == call_4.context
assert call_5.context[-1].kind.value == "read" and call_5.context[-1].facts == {call_4.question}
# "the bill grows with the square of the reads": twice the questions, about four times the tokens.
assert round(bill.input_tokens / six.bill.input_tokens) == 4

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
assert compact.bill.compactions == 2 and row["compact (perfect summary)", "calls"] == bill.calls + 2
assert row["compact (perfect summary)", "answered"] == 12 and retrieve.bill.reads == 13 + 13
assert (
    "retrieve" not in at_1500.index
    and "retrieve" not in on_gpt.index
    and "retrieve" not in three_models.index
)
assert row["just-in-time", "input_tokens"] == at_1500["input_tokens"].min()
assert jit.bill.peak < 1000 < 1500 and row["just-in-time", "answered"] == 12
# "Just-in-time answers twelve for the fewest tokens"; "Retrieval searches again for every
# question" (13 re-reads, Q10 twice).
assert row["just-in-time", "answered"] == 12 and jit.bill.calls == 26

# "Only compact sends [its peak], in the call that writes its summary": every other call of the
# capped runs fits the budget, and compact's calls over it are its summarising calls.
for name, run in runs.items():
    over = [s for s in run.trace if s.event.value == "call" and s.used > 1500]
    if name == "compact":
        assert over and all(s.detail.startswith("summarise") for s in over)
        assert max(s.used for s in over) == run.bill.peak
    elif name != "unbounded":
        assert not over, name
# Going further: each just-in-time call carries the opening, a reference per chunk read so far and
# at most the one chunk the call before asked for (its peak, 853 = 193 + twelve references
# (179) + two chunks (249, 232), is a window never sent); its last call, 594 = 193 + 179 +
# Q12's chunk (222), holds one fact.
refs_tokens = sum(i.tokens for i in jit.trace[-1].context if i.kind.value == "reference")
at_peak = next(s for s in jit.trace if s.used == jit.bill.peak)
peak_reads = [i.tokens for i in at_peak.context if i.kind.value == "read"]
assert jit.bill.peak == 853 == 193 + refs_tokens + sum(peak_reads) and refs_tokens == 179
assert peak_reads == [249, 232] and at_peak.question is not None
jit_calls = [s for s in jit.trace if s.event.value == "call"]
assert [sum(i.kind.value == "read" for i in s.context) for s in jit_calls] == [0] + [1] * 25
assert all(s.used < jit.bill.peak for s in jit_calls)
final = [i for i in jit_calls[-1].context if i.kind.value == "read"]
assert jit_calls[-1].used == 594 == 193 + 179 + 222 and [i.tokens for i in final] == [222]
assert facts_of(final) == [[12]] and jit.facts_known()[-1] == 1 and jit.answered == 12
# "Q1 to Q11's answers went on the list earlier, each while its chunk, read again by its id,
# was in the window."
jit_answers = [s for s in jit.trace if s.event.value == "answer"]
assert all(s.question in {q for i in s.context for q in i.facts} for s in jit_answers)
assert all(s.number < jit_calls[-1].number for s in jit_answers)
# Section 2's just-in-time timeline: searches in calls 1 to 13; "To answer, calls 14 to 25 ask
# for each chunk again. Call 14 asks for Q1's, which arrives in call 15 and answers Q1. Call 26
# brings Q12's and writes the report": call 14 + k asks for the k-th question's chunk, which
# call 15 + k carries last, and that question's answer is taken between the two calls.
assert len(jit_calls) == 26 and jit_calls[-1].detail == "write the answers"
assert all(s.detail.startswith("search") for s in jit_calls[:13])
for k, question in enumerate(prepared.task):
    again = jit_calls[13 + k]  # call 14 + k
    assert (
        again.question == question
        and again.detail.startswith("read chunk")
        and "again" in again.detail
    )
    taken = next(s for s in jit.trace if s.number > again.number and s.event.value != "read")
    assert (
        taken.event.value == "answer" and taken.question == question and taken.detail == "answered"
    )
    brings = jit_calls[14 + k]  # call 15 + k
    assert brings.context[-1].kind.value == "read" and question in brings.context[-1].facts
    assert again.number < taken.number < brings.number
assert (
    jit_calls[-1].detail == "write the answers"
    and prepared.task[11] in jit_calls[-1].context[-1].facts
)
# "a read that held none leaves none": 13 reads, Q10's first without a fact, twelve references.
ref_items = [i for i in jit.trace[-1].context if i.kind.value == "reference"]
assert bill.reads == 13 and len(ref_items) == 12 and all(i.points_to for i in ref_items)

# Section 3's list prices, as the prose states them, with their date and source.
from windowmem.prices import PRICES_CHECKED, PRICES_SOURCE  # noqa: E402

assert PRICES_CHECKED == "2026-12-06" and PRICES_SOURCE.startswith("genai-prices 0.2.5")
assert [str(p) for p in (gpt.input, gpt.cached_input, gpt.output)] == ["0.75", "0.075", "4.5"]

# Section 3: the cache's rules as the page states them: a tenth, the minimums (1,024 on
# GPT-5.4 mini and Claude Sonnet 4.6, 2,048 on Gemini 2.5 Flash), OpenAI and Google by
# themselves and free, Claude on request with writes at 1.25 times the input price.
from windowmem.budget.money import task_calls  # noqa: E402

gpt_price, claude, gemini = MODEL_PRICES
assert gpt_price is gpt and all(m.cached_input * 10 == m.input for m in MODEL_PRICES)
assert [m.cache.min_tokens for m in MODEL_PRICES] == [1024, 1024, 2048]
assert not gpt.cache.explicit and not gemini.cache.explicit and claude.cache.explicit
assert gpt.cache_write is None and gemini.cache_write is None
# Going further: "Gemini 2.5 Flash costs US$ 0.30, 0.03 and 2.50 per million; ... from 2,048".
assert (gemini.input, gemini.cached_input, gemini.output) == (
    Decimal("0.3"),
    Decimal("0.03"),
    Decimal("2.5"),
)
assert claude.cache_write == claude.input * Decimal("1.25")
# The worked Claude call before self-check 4: $3 input, $0.30 cached, $3.75 to write.
assert (claude.input, claude.cached_input, claude.cache_write) == (
    Decimal("3"),
    Decimal("0.3"),
    Decimal("3.75"),
)
# "here every call marks its end": Claude's bills write to the cache and read from it.
claude_unbounded = next(c for c in costs if c.policy == "unbounded" and c.model == claude.name)
assert claude_unbounded.bill.total("written") > 0 and claude_unbounded.cached > 0
# The symptom: the cap cut the tokens by a third, and the invoice went up.
assert round(1 - truncate.bill.input_tokens / bill.input_tokens, 1) == 0.3
# The worked bill: "three quarters of the input" from the cache, "the smallest part of the
# bill", each figure tokens x price per million / 1,000, adding up to the task's bill.
assert 0.70 <= worked.total("cached") / worked.total("input") <= 0.80
dollars = priced_by_kind["US$ per 1,000 tasks"]
assert dollars["input, from the cache"] == min(dollars.iloc[:3])
for kind, price in kinds.values():
    assert (
        round(float(worked.total(kind) * price / 1000), 2)
        == dollars.iloc[list(kinds.values()).index((kind, price))]
    )
assert abs(sum(dollars.iloc[:3]) - dollars["total"]) < 0.02
# Section 3's bill: "full-price input, cached input and output", at US$ 0.75, 0.075 and 4.50.
by_formula = sum(worked.total(k) * p for k, p in kinds.values()) / Decimal(10**6)
assert abs(by_formula - worked.dollars) < Decimal("1e-9")
# Self-check 4's worked answer and the priced table's sentences: unbounded is the cheapest on
# every model; on Claude truncate costs more with the cache ($51.85) than with none ($50.06);
# unbounded is served from the sixth call on.
by_model = {}
for c in costs:
    by_model.setdefault(c.model, {})[c.policy] = c
for model, cost in by_model.items():
    assert min(cost.values(), key=lambda c: c.dollars).policy == "unbounded", model
    assert cost["truncate"].dollars > cost["unbounded"].dollars  # "the invoice went up"
    assert cost["just-in-time"].cached == 0
assert f"{by_model[claude.name]['truncate'].dollars:.2f}" == "51.85"
assert f"{no_cache['truncate'].dollars:.2f}" == "50.06"
# The cap in blocks (cut to 1,100 tokens once over 1,500): as many answers as truncate, "for a
# third less" on Claude, since the calls between two cuts only append and share their start.
blocks_claude = policy_costs([blocks], (claude,))[0]
assert blocks.answered == truncate.answered == 5 and blocks.bill.peak > 1500
assert 0.30 <= 1 - blocks_claude.dollars / by_model[claude.name]["truncate"].dollars <= 0.36
assert blocks_claude.cached > 2 * by_model[claude.name]["truncate"].cached
assert three_models.loc["truncate in blocks", "$, Claude Sonnet 4.6"] == round(
    float(blocks_claude.dollars), 2
)
assert min(c.dollars for c in no_cache.values()) > by_model[claude.name]["unbounded"].dollars
tokens_order = sorted(runs, key=lambda p: runs[p].bill.input_tokens)
assert tokens_order[-1] == "unbounded"  # the most tokens, and the fewest dollars
served = task_calls(unbounded, gpt)
assert served[4].cached == 0 and all(c.cached > 0 for c in served[5:])  # "from the sixth call on"
claude_truncate = task_calls(truncate, claude)
first_drop = next(s.number for s in truncate.trace if s.event.value == "truncate")
after = [
    c
    for c, s in zip(claude_truncate, [s for s in truncate.trace if s.event.value == "call"])
    if s.number > first_drop
]
assert after and all(c.written > 0 for c in after)  # "writes its window to the cache again"
# "each of those calls is over 1,024 tokens, so Claude writes it to the cache": every token it
# does not read; a marked call under 1,024 tokens writes nothing.
assert all(c.input >= 1024 and c.written == c.input - c.cached for c in after)
assert all(c.written == 0 for c in claude_truncate if c.input < 1024)
assert sum(c.cached for c in after) < 0.2 * sum(
    c.input for c in after
)  # "reads almost nothing back"
# Just-in-time's calls 14 and 15, whose replies ask for its first two reads by id, share 354 tokens,
# under every minimum; the chunk at the end differs; its peak, 853, is under 1,024.
assert [s.detail.split(" again")[0] for s in jit_calls[13:15]] == ["read chunk 0", "read chunk 2"]
assert all(jit_calls[n - 1].detail.startswith("read chunk") for n in (14, 15))
assert list(pair.loc["reply asks for"]) == ["Q1's chunk again", "Q2's chunk again"]
assert [prepared.task.index(jit_calls[n - 1].question) for n in (14, 15)] == [0, 1]
# "Just-in-time gets no discount: its calls all stay under 1,024 tokens."
assert max(s.used for s in jit_calls) < 1024
assert jit_calls[12].detail.startswith("search")  # call 13 is the last of the first pass
assert shared_start(jit, 14, 15) == 354 < min(m.cache.min_tokens for m in MODEL_PRICES)
assert call_entries(jit, 14)[-1] != call_entries(jit, 15)[-1]
# Section 3: "two of its calls in a row share only their first 354 tokens (the opening and the
# references), under the 1,024-token minimum, so the cache never serves it" (calls 14 and 15,
# its first two re-reads; no two calls in a row share 1,024).
assert max(shared_start(jit, n, n + 1) for n in range(1, len(jit_calls))) < 1024
# The Deeper part's worked bill: from the sixth call on, each call reads from the cache what the
# call before sent, rounded down to a multiple of 128.
sizes = [c.input for c in served]
assert [c.cached for c in served] == [0] * 5 + [s // 128 * 128 for s in sizes[4:-1]]
assert sizes[4] >= 1024 > sizes[3]
# Section 3's picture (scripts/draw_diagrams.py, lesson6_blocks), truncate in blocks, calls 5 to
# 10: "calls 6, 8 and 10 only append, so each starts with the whole call before, and the cache
# serves it. The light boxes are shared too, but under 1,024 tokens, so the cache does not serve
# them: call 5's start, and the cuts, 7 and 9, which share only the system prompt and task."
blocks_steps = [s for s in blocks.trace if s.event.value == "call"]
for n in (6, 8, 10):
    assert blocks_steps[n - 1].context[:-1] == blocks_steps[n - 2].context
    assert shared_start(blocks, n - 1, n) == blocks_steps[n - 2].used
for n in (7, 9):
    assert shared_start(blocks, n - 1, n) == 193 == sum(i.tokens for i in opening)
assert all(shared_start(blocks, n - 1, n) >= 1024 for n in (6, 8, 10))
assert all(shared_start(blocks, n - 1, n) < 1024 for n in (5, 7, 9))
# Self-check 3's worked answer: truncate dropped a read between calls 10 and 11, just after the
# system prompt and task text, so they share only those 193 tokens (under 1,024: not served).
assert shared_start(truncate, 10, 11) == 193 < 1024
assert sum(i.tokens for i in opening) == 193
truncate_calls = [s.number for s in truncate.trace if s.event.value == "call"]
# Section 2 (round 25): just-in-time's "edge: it brings each chunk back to answer; truncate does
# not": truncate makes the 13 reads and the report call, nothing more; just-in-time's calls 15 to
# 26 each bring back one chunk an earlier call read.
assert len(truncate_calls) == 13 + 1
_first_reads = {i.chunk for s in jit_calls[:14] for i in s.context if i.kind.value == "read"}
assert all(
    next(i for i in s.context if i.kind.value == "read").chunk in _first_reads
    for s in jit_calls[14:]
)
assert any(
    s.event.value == "truncate" and truncate_calls[9] < s.number < truncate_calls[10]
    for s in truncate.trace
)
# The worked answer, call by call: the first drop comes before call 7; from then each call
# shares only the 193 opening tokens with the call before, except call 10, which still fitted,
# only appended, and shares its first 1,310 tokens. Every call from call 5 on is over 1,024
# tokens and written on Claude (ten writes); only calls 6 and 10 read from the cache.
assert truncate_calls[5] < first_drop < truncate_calls[6]
shares = {n: shared_start(truncate, n - 1, n) for n in range(7, 15)}
assert shares == {n: 1310 if n == 10 else 193 for n in range(7, 15)}
assert not any(
    s.event.value == "truncate" and truncate_calls[8] < s.number < truncate_calls[9]
    for s in truncate.trace
)
assert [n for n, c in enumerate(claude_truncate, 1) if c.input >= 1024] == list(range(5, 15))
assert [n for n, c in enumerate(claude_truncate, 1) if c.written > 0] == list(range(5, 15))
assert [n for n, c in enumerate(claude_truncate, 1) if c.cached > 0] == [6, 10]
assert claude_truncate[9].cached == 1310
# What to choose, calls further apart than the cache's lifetime: the no-cache column is
# Claude's bill; there just-in-time answers all twelve, as unbounded does, for $45.98
# instead of $71.73.
assert f"{no_cache['unbounded'].dollars:.2f}" == "71.73"
assert f"{no_cache['just-in-time'].dollars:.2f}" == "45.98"
assert no_cache["just-in-time"].answered == no_cache["unbounded"].answered == 12
# "What to choose", on Claude with the cache: unbounded answers all twelve for the least;
# just-in-time 12 answers for $45.98 per 1,000 tasks ($3.83 per 1,000 answers); truncate in
# blocks the cheapest cap, 5 answers for $34.87 ($6.97 per 1,000 answers); compact, with a perfect
# summary, 12 answers for $40.51 ($3.38 per 1,000 answers). The figures are the priced table's,
# per 1,000 tasks, so a total over the answers of a task is the price of 1,000 answers.
on_claude = by_model[claude.name]
assert on_claude["unbounded"].answered == 12
for policy, answers, total, each in (
    ("just-in-time", 12, "45.98", "3.83"),
    ("compact", 12, "40.51", "3.38"),
):
    cost = on_claude[policy]
    assert cost.answered == answers and f"{cost.dollars:.2f}" == total
    row_name = "compact (perfect summary)" if policy == "compact" else policy
    assert three_models.loc[row_name, "$, Claude Sonnet 4.6"] == float(total)
    assert f"{cost.dollars / cost.answered:.2f}" == each
assert compact.summariser == "perfect"  # "with a perfect summary"
assert blocks.strategy == truncate.strategy  # "Truncate in blocks, a form of truncate"
assert blocks.answered == 5 and f"{blocks_claude.dollars:.2f}" == "34.87"
assert f"{blocks_claude.dollars / blocks.answered:.2f}" == "6.97"
capped = [on_claude[p].dollars for p in ("truncate", "compact", "just-in-time")]
assert blocks_claude.dollars < min(capped)  # the cheapest cap

# Section 4: the long chat, 24 tokens a turn, 12 pinned tokens, 14 times, 4% more; the order
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
# "the window drops it from turn 12 on": turn 11's call still carries turn 1, turn 12's does not.
ten = N8nSimpleMemory(10)
assert fact_visible(turn_view(long_chat, ten, 11, count_tokens), order)
assert not fact_visible(turn_view(long_chat, ten, 12, count_tokens), order)
# Self-check 5's worked answer and the dollars table: 1.6 times, almost all of
# the kept turns' input from the cache, the window's calls (about 270 tokens) under 1,024 and
# served nothing; the gap shrinks from 14 times to under 2; pinning is still the cheapest way
# to keep the number.
keep_all, window_10, pinned_10 = chat_bills.values()
assert round(float(keep_all.dollars / window_10.dollars), 1) == 1.6
assert keep_all.total("cached") / keep_all.total("input") > 0.9 and window_10.total("cached") == 0
# The facts self-check 5 gives: 96% served, the window's calls under 1,024.
assert round(100 * keep_all.total("cached") / keep_all.total("input")) == 96


# Self-check 5's worked answer: the kept turns' input costs about twice the window's
# ("14 x 0.136 = 1.9"), and the same replies bring the ratio down to 1.6, one of its three choices.
def input_dollars(b):
    return (b.total("input") - b.total("cached")) * gpt.input + b.total("cached") * gpt.cached_input


assert round(14 * (0.04 + 0.96 * 0.1), 3) == 1.904
assert round(float(input_dollars(keep_all) / input_dollars(window_10)), 1) == 1.9
assert max(c.input for c in window_10.calls) < 1024
# Self-check 5's stem: "its calls grow to over 7,000 tokens, while a full window's calls carry
# about 270".
assert (
    keep_all.calls[-1].input > 7000
    and round(sum(c.input for c in window_10.calls[10:]) / len(window_10.calls[10:]), -1) == 270
)
assert (
    keep_all.dollars / window_10.dollars
    < 2
    < 14
    == round(keep_all.total("input") / window_10.total("input"))
)
assert pinned_10.dollars < keep_all.dollars
assert [c.output for c in keep_all.calls] == [
    c.output for c in window_10.calls
]  # "the same replies"
print("maintainers' check: every figure in this lesson was recomputed and matches")


# Self-check 2's stem: the last six reads, oldest first, 249, 148, 224, 144, 227 and 222 tokens,
# 1,214 together, the last five 965; at 1,300 the 1,107 tokens after the opening hold five.
read_sizes = [i.tokens for i in unbounded.trace[-1].context if i.kind.value == "read"]
assert read_sizes[-6:] == [249, 148, 224, 144, 227, 222]
assert (sum(read_sizes[-6:]), sum(read_sizes[-5:])) == (1214, 965)
assert sum(read_sizes[-5:]) <= 1300 - 193 < sum(read_sizes[-6:])
# Section 2: "just-in-time makes the task's 14 calls and 12 re-reads"; the reference page's
# retrieve, the 14 and 13 searches again.
assert len([s for s in runs["just-in-time"].trace if s.event.value == "call"]) == 14 + 12
assert len([s for s in retrieve.trace if s.event.value == "call"]) == 14 + 13
# Self-check 3's worked answer: "call 5, at 1,093 tokens, is the first over 1,024".
assert calls_tokens[4] == 1093 and max(calls_tokens[:4]) < 1024 <= calls_tokens[4]

# Section 2's table leaves the lossy summary to the reference page.
assert "compact, lossy summary" not in at_1500.index
assert len([i for i in truncate.trace[-1].context if i.kind.value == "read"]) == 13 - 7
# Section 3's prices as the prose states them, and Claude's write price.
assert (gpt.input, gpt.cached_input, gpt.output) == (
    Decimal("0.75"),
    Decimal("0.075"),
    Decimal("4.5"),
)
assert (claude.input, claude.cached_input, claude.output) == (3, Decimal("0.3"), 15)
assert claude.cache_write == Decimal("3.75") == claude.input * Decimal("1.25")
blocks_on_claude = task_calls(blocks, claude)
assert blocks_on_claude[11].input == 958 and blocks_on_claude[11].written == 0
assert blocks_on_claude[12].cached == 0 and blocks_on_claude[12].input > 1024
# GPT-5.4 mini puts cut in blocks, compact and just-in-time in
# Claude's order.
blocks_gpt = policy_costs([blocks], (gpt,))[0]
gpt_costs = by_model[gpt.name]
claude_order = [
    blocks_claude.dollars,
    on_claude["compact"].dollars,
    on_claude["just-in-time"].dollars,
]
gpt_order = [blocks_gpt.dollars, gpt_costs["compact"].dollars, gpt_costs["just-in-time"].dollars]
assert claude_order == sorted(claude_order) and gpt_order == sorted(gpt_order)
# Going further, all three models: Gemini's 2,048 minimum is over the 1,500 budget, so no capped
# call is cached there, and no cap, not even one in blocks, beats unbounded.
assert gemini is MODEL_PRICES[2] and gemini.cache.min_tokens == 2048 > 1500
# "Google's caching page has said 2,048 for 2.5 Flash since its revision of 2026-10-13. Before,
# it said 1,024": the rule's own record of its source.
assert gemini.cache.min_tokens == 2048 and gemini.cache.page_revision == "2026-10-13"
assert gemini.cache.source.endswith("/gemini-api/docs/caching")
capped_runs = [runs["truncate"], runs["compact"], runs["just-in-time"], blocks]
on_gemini = policy_costs(capped_runs, (gemini,))
assert all(c.cached == 0 for c in on_gemini)
unbounded_on_gemini = policy_costs([unbounded], (gemini,))[0]
assert all(c.dollars > unbounded_on_gemini.dollars for c in on_gemini)
# Section 1, after the calls table: "each call sends all the call before did, plus one chunk".
for before, after in zip(unbounded_calls, unbounded_calls[1:]):
    assert after.context[:-1] == before.context and after.context[-1].kind.value == "read"

# Section 2: the reference line windowmem's just-in-time keeps, Q4's, about 15 tokens.
assert prepared.top_chunks[q4][0] == 6
# Section 3's table, on GPT-5.4 mini: the capped runs send fewer tokens than unbounded, yet cost
# more ("it costs more, not less"); every cap changes the call's start, so the cache serves less
# of it; truncate in blocks is the cheapest cap and answers five; compact's row is the perfect
# summary's. What to choose: "with no cache every cap costs less than unbounded".
caps = ["truncate", "truncate in blocks", "compact (perfect summary)", "just-in-time"]
assert list(on_gpt.index) == ["unbounded", *caps] and list(on_gpt["answered"]) == [12, 5, 5, 12, 12]
assert compact.summariser == "perfect" and priced_runs["compact (perfect summary)"] is compact
for name, run in priced_runs.items():
    cost, plain = policy_costs([run], (gpt, without_cache(gpt)))
    assert on_gpt.loc[name, "$ per 1,000 tasks"] == round(float(cost.dollars), 2)
    assert on_gpt.loc[name, "$, no cache"] == round(float(plain.dollars), 2)
    assert on_gpt.loc[name, "input tokens"] == run.bill.input_tokens
    assert on_gpt.loc[name, "cached"] == f"{cost.cached_share:.0%}"
    if name != "unbounded":
        assert run.bill.input_tokens < unbounded.bill.input_tokens
        assert cost.dollars > policy_costs([unbounded], (gpt,))[0].dollars
        assert cost.cached_share < policy_costs([unbounded], (gpt,))[0].cached_share
assert on_gpt.loc[caps, "$ per 1,000 tasks"].idxmin() == "truncate in blocks"
# Section 3's "plain truncate drops the oldest read ... so each drop changes the call's start"
# (round 25 left the table's reading without the repeat): a call shares only the opening with the
# call before exactly when truncate dropped a read between them (from call 3: call 1 is the opening).
for n in range(3, len(truncate_calls) + 1):
    dropped = any(
        s.event.value == "truncate" and truncate_calls[n - 2] < s.number < truncate_calls[n - 1]
        for s in truncate.trace
    )
    assert dropped == (shared_start(truncate, n - 1, n) == 193)
# "[...] Just-in-time's calls are too small": after the
# opening, truncate's and compact's calls go back to sharing only its 193 tokens with the call
# before, and no just-in-time call reaches the 1,024 minimum.
for changed in (truncate, compact):
    n_calls = len([s for s in changed.trace if s.event.value == "call"])
    assert [shared_start(changed, n - 1, n) for n in range(6, n_calls + 1)].count(193) >= 2
assert max(s.used for s in jit.trace if s.event.value == "call") < gpt.cache.min_tokens
assert on_gpt["$ per 1,000 tasks"].idxmin() == "unbounded"
assert (on_gpt.loc[caps, "$, no cache"] < on_gpt.loc["unbounded", "$, no cache"]).all()
# "cuts down to 1,100 tokens, since the next call's start is cached only if the cut call holds
# 1,024 or more" (GPT-5.4 mini's minimum): after each cut, the next call only appends, and the
# cache serves it exactly when the cut call reached 1,024 (calls 7 and 9 did, call 12 did not).
assert 1024 == gpt.cache.min_tokens < 1100 < 1.1 * gpt.cache.min_tokens
blocks_sizes = [s.used for s in blocks_steps]
blocks_gpt_calls = task_calls(blocks, gpt)
cuts = [n for n in range(2, len(blocks_sizes)) if blocks_sizes[n - 1] < blocks_sizes[n - 2]]
assert cuts == [7, 9, 12] and all(blocks_sizes[n - 1] <= 1100 for n in cuts)
for n in cuts:
    assert blocks_steps[n].context[:-1] == blocks_steps[n - 1].context  # call n + 1 only appends
    assert (blocks_gpt_calls[n].cached > 0) == (blocks_sizes[n - 1] >= 1024)
# "Compact changes it only after its two compactions, so 39% stays cached": every compact call
# begins with the whole call before, except the two calls right after a summarising call.
compact_steps = [s for s in compact.trace if s.event.value == "call"]
after_compaction = [
    n
    for n in range(2, len(compact_steps) + 1)
    if compact_steps[n - 2].detail.startswith("summarise")
]
assert len(after_compaction) == compact.bill.compactions == 2
for n in range(2, len(compact_steps) + 1):
    kept = shared_start(compact, n - 1, n) == compact_steps[n - 2].used
    assert kept == (n not in after_compaction)
assert on_gpt.loc["compact (perfect summary)", "cached"] == "39%"
# Going further's table: the Claude columns, with and without its cache.
for name in ("unbounded", "truncate", "compact", "just-in-time"):
    label = "compact (perfect summary)" if name == "compact" else name
    assert three_models.loc[label, "$, Claude Sonnet 4.6"] == round(
        float(on_claude[name].dollars), 2
    )
    assert three_models.loc[label, "$, Claude, no cache"] == round(float(no_cache[name].dollars), 2)
assert (
    three_models.loc["truncate", "$, Claude Sonnet 4.6"]
    > three_models.loc["truncate", "$, Claude, no cache"]
)
for model in ("GPT-5.4 mini", "Claude Sonnet 4.6", "Gemini 2.5 Flash"):
    assert three_models[f"$, {model}"].idxmin() == "unbounded"
# The picture: in blocks, calls 6, 8 and 10 only append; plain truncate's calls 7 to 9 share
# the opening alone, and check 3's stem says it "goes on after call 10 as in calls 7 to 9":
# calls 11 to 14 share the opening alone too.
assert [shared_start(truncate, n - 1, n) for n in (7, 8, 9)] == [193] * 3
assert [shared_start(truncate, n - 1, n) for n in (11, 12, 13, 14)] == [193] * 4
# Going further: on Gemini unbounded still costs least, truncate in blocks within a cent.
blocks_gemini = policy_costs([blocks], (gemini,))[0]
assert 0 < blocks_gemini.dollars - unbounded_on_gemini.dollars < Decimal("0.01")
assert three_models.loc["truncate in blocks", "$, Gemini 2.5 Flash"] == round(
    float(blocks_gemini.dollars), 2
)
assert three_models.loc["truncate in blocks", "$, Claude Sonnet 4.6"] == round(
    float(blocks_claude.dollars), 2
)
assert bill.peak == 2951 == calls_tokens[-1]

# Section 1, why the answers wait: the agent answers only after every read, and answering makes
# no call of its own; the only calls while answering are just-in-time's reads by id, billed. An
# agent that answered each question as its chunk arrived would lose none: under truncate, every
# question's fact was in the window at some step.
assert [s for s in unbounded.trace[unbounded.answering_from :] if s.event.value == "call"] == [
    unbounded_calls[-1]
]
jit_answering_calls = [s for s in jit.trace[jit.answering_from :] if s.event.value == "call"]
assert len(jit_answering_calls) == 12 + 1 and jit_answering_calls[-1] == jit_calls[-1]
assert all(s.detail.startswith("read chunk") for s in jit_answering_calls[:-1])
for run in (truncate, blocks, at_1300):
    assert run.answered < 12
    assert all(any(q in i.facts for s in run.trace for i in s.context) for q in prepared.task)
# Just-in-time "acts before every call, not only over the budget": every call from the second
# on carries one read at most, none near the budget.
assert all(s.used <= 1500 for s in jit.trace if s.event.value == "reference")
# Self-check 3, on GPT-5.4 mini (no write charge): $11.13 with the cache against $12.69 without,
# input and output; the cache serves calls 6 and 10 alone.
gpt_truncate = task_calls(truncate, gpt)
assert [n for n, c in enumerate(gpt_truncate, 1) if c.cached > 0] == [6, 10]
assert all(c.written == 0 for c in gpt_truncate)
gpt_cached = policy_costs([truncate], (gpt,))[0].dollars
gpt_plain = policy_costs([truncate], (without_cache(gpt),))[0].dollars
assert (f"{gpt_cached:.2f}", f"{gpt_plain:.2f}") == ("11.13", "12.69")
assert (
    gpt_cached
    == sum(
        (c.input - c.cached) * gpt.input + c.cached * gpt.cached_input + c.output * gpt.output
        for c in gpt_truncate
    )
    / 1000
)  # "input and output", as in the priced table
# Its worked answer on Claude: call 7 sends 1,347 tokens, none served, all written at $3.75 per
# million: $5.05 per 1,000 tasks, against $4.04 with no cache; calls 5 to 14 written, 6 and 10
# read back; $51.85 against $50.06.
call_7 = claude_truncate[6]
assert (call_7.input, call_7.cached, call_7.written) == (1347, 0, 1347)
assert shared_start(truncate, 6, 7) == 193 < 1024
assert f"{call_7.written * claude.cache_write / 1000:.2f}" == "5.05"
assert f"{call_7.input * claude.input / 1000:.2f}" == "4.04"
assert claude.cache_write / claude.input == Decimal("1.25")
