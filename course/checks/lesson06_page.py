"""Lesson 6's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson06", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

# Maintainer checks: every figure the prose above states, against windowmem. Folded away
# for readers; nbval and tests/test_lesson_texts.py run it.
base = calls["call tokens"].iloc[0]
bill = drift["input bill"]
assert (
    round(bill["keep every turn"] / bill["window of 10 turns"]) == 14
)  # "pays 14 times the window's bill"
assert (
    round(100 * (bill["window of 10, order number pinned"] / bill["window of 10 turns"] - 1)) == 4
)  # "for 4% more"
first_over = next(s for s in runs["truncate"].trace if s.event.value == "truncate")
assert (
    prepared.task.index(first_over.question) == 5
    and runs["truncate"].trace[first_over.number - 1].used == 1542 == calls["call tokens"].iloc[6]
)
assert all(
    runs[p].bill.peak > BUDGET for p in ("truncate", "compact", "retrieve")
)  # "every peak is above 1,500"
assert labels[10:13] == [
    "Q10, read 2",
    "Q11, read 1",
    "Q12, read 1",
]  # the last three reads, each with its fact
assert (
    len(corpus.articles) == 6
    and prepared.task_articles() == (2,) * 6
    and len(corpus.questions) == 18
)
assert max(c.tokens for c in prepared.chunks) <= 256 and all(
    len(top) <= 3 for top in prepared.top_chunks
)
assert all(n == 2 for n in articles["chunks"]) and articles["tokens"].between(350, 450).all()
retrieved = runs["retrieve"]
assert retrieved.answered == 12 and retrieved.facts_known()[-1] == 5 == runs["truncate"].answered
# "climbs to the facts held under truncate and compact, and past them under retrieve"
assert all(runs[p].answered == runs[p].facts_known()[-1] for p in ("truncate", "compact")) and all(
    a == 0
    for a, s in zip(retrieved.answered_so_far(), retrieved.trace)
    if s.number < next(t.number for t in retrieved.trace if t.event.value == "answer")
)
assert base == 193 and unbounded.bill.peak == 2951 and unbounded.bill.calls == 14 == len(calls)
assert (
    calls["call tokens"].sum() == unbounded_bill and unbounded.bill.reads == len(prepared.task) + 1
)
assert labels[9] == "Q10, read 1" and labels[10] == "Q10, read 2"
assert round(ratio_12_6) == 4 and round(ratio_18_6) == 10
row = at_1500.loc
assert (
    row["truncate", "answered"] == 5
    and row["compact", "answered"] == row["retrieve", "answered"] == 12
)
assert (
    row["compact", "input_tokens"]
    < row["truncate", "input_tokens"]
    < row["unbounded", "input_tokens"]
    < row["retrieve", "input_tokens"]
)
assert row["compact", "calls"] == 16 == row["unbounded", "calls"] + row["compact", "compactions"]
assert (
    row["retrieve", "reads"] == 26 == 2 * row["unbounded", "reads"]
    and row["retrieve", "input_tokens"] == 33_460
)
at_1000 = reference_table(
    prepared, budgets=[1000], strategies=["truncate", "compact"], summarisers=["perfect"]
).set_index("policy")
assert at_1000.loc["truncate", "input_tokens"] < at_1000.loc["compact", "input_tokens"]
assert lossy.answered == 6 == 12 - len(lost) and lossy.bill.input_tokens < perfect.bill.input_tokens
assert by_budget["answered", "perfect"].eq(12).all()
assert (
    by_budget.loc[[800, 1000, 1500], ("answered", "lossy")].max()
    <= 6
    < by_budget.loc[[2000, 2500], ("answered", "lossy")].min()
)
fits = sweep[sweep["budget"] >= peak]
same = ["answered", "input_tokens", "calls", "reads", "compactions"]
assert (fits[same] == fits[fits["policy"] == "unbounded"][same].iloc[0]).all().all()
assert (
    tight.answered == 12 - len(summary_cuts) == 9
    and loose.bill.compactions == 1
    and loose.bill.input_tokens > at_2800
)
assert loose.bill.input_tokens - at_2800 == loose.trace[-1].used
retrieve_bills = sweep[sweep["policy"] == "retrieve"].set_index("budget")["input_tokens"]
assert 2000 < retrieve_bills.idxmax() < peak
assert run_task(prepared, 1000, "truncate").answered == int(room) == 3
first_drop = next(s for s in runs["truncate"].trace if s.event.value == "truncate")
assert prepared.task[0] in runs["truncate"].trace[first_drop.number - 1].facts - first_drop.facts
assert (
    fact_visible(everything, order)
    and not fact_visible(recent, order)
    and fact_visible(pinned, order)
)
assert (
    bill.idxmax() == "keep every turn" and bill["keep every turn"] > 10 * bill["window of 10 turns"]
)
assert (
    0
    < drift.loc["window of 10, order number pinned", "mean tokens per call"]
    - drift.loc["window of 10 turns", "mean tokens per call"]
    < 20
)
# Section 7: turn 1, her message and the reply, is about half a percent of the last prompt.
assert first_turn == sum(qwen(m) for m in long_chat.interactions[0].messages) and (
    round(100 * first_turn / everything.input_tokens, 1) == 0.5
)
# The chapter's published figures, reproduced wherever its corpus is present.
reference = reference_corpus(".")
if reference is not None:
    chapter = prepare(load_corpus(reference))
    for (policy, summariser), figures in PUBLISHED.items():
        result = run_task(chapter, 1500, policy, summariser=summariser)
        assert result.answered == figures.answered, (policy, summariser)
        for name in ("input_tokens", "calls", "reads", "compactions"):
            assert getattr(figures, name) in (None, getattr(result.bill, name)), (
                policy,
                summariser,
                name,
            )
assert (
    round(formula_12_6, 1) == 4.0
    and fitted[12][0] == 193
    and fitted[6][0] == 118
    and fitted[12][1] < fitted[6][1]
)
assert (
    run_task(prepared, unbounded.bill.peak - 1, "truncate").answered == 11
    and round(unbounded_bill, -3) == 22_000
)  # 5b, 2a
# Self-check 2's worked answer: the average of the first and the last call, times the calls.
assert (
    round((193 + 2951) / 2 * 14, -3) == 22_000 == round(unbounded_bill, -3)
    and (193 + 2951) // 2 == 1572
)
assert (
    round(unbounded.bill.calls * unbounded.bill.peak, -3) == 41_000
    and round(unbounded.bill.peak, -3) == 3_000
    and round(ratio_12_6) == 4
)
# Section 1: a read holds only its own question's fact; four pairs of questions share a chunk
# they both need, and Q10's first read is Q4's chunk: five pairs read the same chunk.
task_no = {q: n for n, q in enumerate(prepared.task, 1)}
pairs = [
    (task_no[a], task_no[b])
    for a in prepared.task
    for b in prepared.task
    if task_no[a] < task_no[b] and prepared.relevant[a] & prepared.relevant[b]
]
assert pairs == [(1, 7), (2, 8), (5, 11), (6, 12)]
read_by: dict = {}
for t in unbounded.trace:
    if t.event.value == "read":
        read_by.setdefault(t.detail.split(" (")[0], set()).add(task_no[t.question])
same_chunk = sorted(tuple(sorted(qs)) for qs in read_by.values() if len(qs) == 2)
assert same_chunk == [(1, 7), (2, 8), (4, 10), (5, 11), (6, 12)] and all(
    len(qs) <= 2 for qs in read_by.values()
)
last_reads = [i for i in unbounded.trace[-1].context if i.kind.value == "read"]
assert (
    all(len(i.facts) <= 1 for i in last_reads)
    and last_reads[0].chunk == last_reads[6].chunk
    and last_reads[0].facts != last_reads[6].facts
)
# Self-check 1a's premise and section 2's "Q4's chunk again": Q10's first read holds no fact.
assert (
    sorted(prepared.answer_rank[q] for q in prepared.task) == [0] * 11 + [1]
    and prepared.answer_rank[prepared.task[9]] == 1
)
assert last_reads[9].chunk in prepared.relevant[prepared.task[3]] and not last_reads[9].facts
# Self-check 5: Q7's copy of Q1's chunk is in the window, and Q1 still counts as lost.
near_peak = run_task(prepared, unbounded.bill.peak - 1, "truncate")
assert prepared.task[0] not in near_peak.answered_questions and last_reads[0].chunk in {
    i.chunk for i in near_peak.trace[-1].context
}
# Self-check 8: just under the peak retrieve re-reads Q1 to Q9, each re-read back at 2,951.
chain = run_task(prepared, unbounded.bill.peak - 1, "retrieve")
rereads = [t for t in chain.trace if t.event.value == "read"][len(calls) - 1 :]
assert [task_no[t.question] for t in rereads] == list(range(1, 10)) and all(
    t.used == 2951 for t in rereads
)
assert (
    chain.bill.calls == 23
    and chain.bill.reads == 22
    and round(chain.bill.input_tokens / unbounded_bill) == 2
)
retrieve_calls = sweep[sweep["policy"] == "retrieve"].set_index("budget")["calls"]
assert (
    retrieve_calls[2800] == 23
    and (retrieve_calls[retrieve_calls.index <= 2600] == 27).all()
    and (retrieve_calls[retrieve_calls.index > peak] == 14).all()
)
# Section 7: no turn of the long chat uses a tool, so a turn is one interaction.
assert long_chat.turn_count == len(long_chat.interactions) == last and {
    m.role.value for m in long_chat.messages
} == {"system", "user", "assistant"}
# Section 4's reading of the draws table.
faced, kept = draws["draws faced"], draws["answered"]
assert [task_no[q] for q in drawn(lossy, compactions[0])] == [1, 2, 3, 4, 5]
assert list(faced) == [1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 0, 0]
assert {task_no[q] for q in lost} == {1, 2, 3, 7, 9, 10} and lossy.answered * 2 == 12
assert kept["Q4"] and kept["Q5"] and (~kept[5:10]).sum() == 3 and kept[10:].all()
assert 0 < perfect.bill.input_tokens - lossy.bill.input_tokens < 500  # "a few hundred tokens"
# Section 3: a summary line is a sentence of about 20 tokens.
summaries_seen = [
    i
    for s in perfect.trace
    if s.event.value == "compact"
    for i in s.context
    if i.kind.value == "summary"
]
assert summaries_seen and all(15 <= i.tokens / len(i.lines) <= 25 for i in summaries_seen)
# Self-check 3a's worked answer: six reads fit after the opening 193, the last six, one factless.
kept_reads = [i for i in runs["truncate"].trace[-1].context if i.kind.value == "read"]
assert (
    1500 - 193 == 1307
    and 193 + 6 * 200 <= 1500 < 193 + 7 * 200
    and round(193 + 7 * 200, -2) == 1600
)
assert [sorted(task_no[q] for q in i.facts) for i in kept_reads] == [[8], [9], [], [10], [11], [12]]
# Sections 3 and 5: compaction costs more than no budget just under the peak.
compact_bills = sweep[sweep["policy"] == "compact"].set_index("budget")["input_tokens"]
assert compact_bills[2800] > unbounded_bill and compact_bills[1400] < unbounded_bill
# Self-check 6's worked answer: retrieve at 2,000.
at_2000 = run_task(prepared, 2000, "retrieve")
reads_2000 = [t for t in at_2000.trace if t.event.value == "read"]
start_2000 = at_2000.trace[reads_2000[13].number - 1]
assert [
    sorted(task_no[q] for q in i.facts) for i in start_2000.context if i.kind.value == "read"
] == [[6], [7], [8], [9], [], [10], [11], [12]]
assert (
    start_2000.used == 1824
    and reads_2000[13].used == 2019
    and task_no[reads_2000[13].question] == 1
)
assert {task_no[t.question] for t in reads_2000[13:]} == set(range(1, 13))
assert at_2000.answered == 12 and at_2000.facts_known()[-1] == 7
# Self-check 7b: pinning adds 12 tokens to every call, 3,600 over the 300.
extra = [
    p - w
    for p, w in zip(per_call["window of 10, order number pinned"], per_call["window of 10 turns"])
]
assert set(extra) == {12} and sum(extra) == 3600 == 12 * last
# Self-check 2b's premise: the 6-question task is Q1 to Q6, one read each, 7 calls from 118 tokens.
six = run_task(prepare(corpus, 6), 10**6, "unbounded")
assert six.bill.reads == 6 and six.bill.calls == 7 and fitted[6][0] == 118
assert prepare(corpus, 6).task == prepared.task[:6]
# Self-check 6's worked answer: which read each re-read at 2,000 pushes out.
from checks.lesson06 import pushed_out as re_reads  # noqa: E402

pushed_out = re_reads(2000)
assert len(pushed_out) == len(reads_2000) - 13  # the re-reads after the 13 first reads
# One read pushed out per re-read: Q6's to Q9's, then Q10's factless first, Q10's second,
# Q11's and Q12's, then Q1's re-read.
assert [p[3] for p in pushed_out[:9]] == [
    [q] for q in ([6], [7], [8], [9], [], [10], [11], [12], [1])
]
assert pushed_out[0][1] == 2019 and pushed_out[3][2] == 1910 and pushed_out[4][1] == 2137
assert at_2000.bill.reads == 26 and [p[0] for p in pushed_out].count(10) == 2
# Section 7: the system message is 21 tokens, a turn 12 to 41, about 24 on average.
turn_sizes = [sum(qwen(m) for m in i.messages) for i in long_chat.interactions]
assert qwen(long_chat.system_message) == 21
assert min(turn_sizes) == 12 and max(turn_sizes) == 41 and round(sum(turn_sizes) / last) == 24
# Self-check 7b: the pinned chat carries the number from its first call on.
assert (
    order in pinned_chat.messages[0].content
    and per_call["window of 10, order number pinned"][0] - per_call["window of 10 turns"][0] == 12
)
# Section 4/Summary: compact keeps facts only while the summary lines fit (9 of 12 at 600).
assert tight.answered < 12
# Section 5: retrieval's bill is worst a little below the peak: 2,720 over budgets 10 apart
# (231 under the unbounded peak), 2,600 among the plotted points 200 apart.
worst = max(
    range(1500, unbounded.bill.peak, 10),
    key=lambda b: run_task(prepared, budget=b, strategy="retrieve").bill.input_tokens,
)
assert (worst, unbounded.bill.peak - worst) == (2720, 231)
plotted = sweep[sweep.policy == "retrieve"].set_index("budget")["input_tokens"]
assert plotted.idxmax() == 2600
print("every figure in the text checked")
