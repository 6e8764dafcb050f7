"""Lesson 4's maintainer checks: every figure and claim its page states, against windowmem.

Run by the lesson's last cell, ``verify_page("lesson04", globals())``, with the lesson's
names in scope (see ``checks/page.py``); kept off the page because it states the answers.
"""

# ruff: noqa: F821 - the names come from the lesson's namespace

from checks.lesson04 import TURNS_7_AND_8

# Maintainer checks: every figure and claim in the text above, recomputed.
n8n_run, spring_run = runs["n8n Postgres table"], runs["Spring AI JDBC (maxMessages 4)"]
overlap = scenarios.play_scenario("Spring AI JDBC (maxMessages 4)", 1, "two requests at once")
assert len(n8n_run[-1].stored_after) == 12 and len(spring_run[-1].stored_after) == 4
assert (
    [m.content[:2] for m in n8n_run[-1].sent[:-1]]
    == ["u4", "a4", "u5", "a5"]
    == [m.content[:2] for m in spring_run[-1].sent[:-1]]
)
assert all(len(runs[s][-1].stored_after) == 12 for s in scenarios.STORES[:3])
assert [
    m.content
    for m in SpringAiMessageWindow(4).write(
        [user("u1"), assistant("a1"), user("u2"), assistant("a2")], [user("u3")]
    )
] == ["u2", "a2", "u3"]
assert "TOOL" not in {r[2] for r in repository.rows(SESSION)}  # 2.0.1 writes no TOOL row
assert len(table.get_messages()) == 12 and len(table.rows()) == 12
assert (
    redis_history.key == SESSION
    and len(redis_history.raw()) == 12
    and redis_history.raw()[0].startswith('{"type":"ai"')
)
assert 0 < redis_history.ttl() <= 3600  # a real server counts down from 3600 as the lesson runs
assert [r[4] for r in repository.rows(SESSION)] == [0, 1, 2, 3]
assert [r[1][:2] for r in repository.rows(SESSION)] == ["u5", "a5", "u6", "a6"]
assert "VARCHAR(36)" in spring_table.SCHEMA and "TIMESTAMP" not in n8n_table.POSTGRES_DDL
assert (
    "id SERIAL PRIMARY KEY, session_id VARCHAR(255) NOT NULL, message JSONB NOT NULL"
    in n8n_table.POSTGRES_DDL
)
spring_times = [
    r[3] for r in repository.rows(SESSION)
]  # "each message keeps its first time": one distinct time per save
assert len(set(spring_times)) == 4 and spring_times == sorted(spring_times)
assert (
    '"tool_calls":[],"invalid_tool_calls":[]' in redis_history.raw()[0]
)  # answers carry both lists
assert n8n_list.N8nRedisHistory(lists, "lesson4-default").session_ttl == 0  # "default 0: never"
assert (
    races.SPRING_WINDOW == 20 and len(spring_race.stored) == len(history) + 3
)  # maxMessages 20: nothing trimmed
assert after_in_process[0].sent == (third_and_fourth[0][0],) and len(after_table[0].sent) == 5
assert [c.worker for c in own_maps] == ["worker 1", "worker 2"] * 3
assert [len(c.sent) - 1 for c in own_maps] == [0, 0, 2, 2, 4, 4] and [
    len(c.sent) - 1 for c in one_file
] == [0, 2, 4, 4, 4, 4]  # a window of 2 interactions
assert n8n_race.stored[2:] == ("question A", "question B", "answer A", "answer B")
assert spring_race.stored[2:] == ("question A", "answer A", "answer B")  # self-check 5's order
assert all(
    "question" not in " ".join(r.sent["A"][:-1] + r.sent["B"][:-1]) for r in (n8n_race, spring_race)
)
assert clock_time(expiry.expires_after(marta_events, "n8n Redis (sessionTTL 3600)")) == "11:20"
late = expiry.timeline("n8n Redis (sessionTTL 3600)", marta_events + [expiry.Event(140, "read")])
assert (
    not late[-1].found
    and not expiry.timeline("n8n Simple Memory", marta_events + [expiry.Event(140, "read")])[
        -1
    ].found
)
assert (
    expiry.timeline(
        "n8n Redis (sessionTTL 3600)",
        [expiry.Event(0, "write"), expiry.Event(20, "write"), expiry.Event(79, "write")],
    )[-1].expires_at
    == 139
)
assert [s for _, s in steps][0] == 10 and steps[1][1] < 10 and steps[2][1] == 10
assert (
    mongo.MAX_DOCUMENT_BYTES == 16 * 1024 * 1024
    and mongo.turns_until_full(SESSION, *turn_texts) == 13_528
)
assert mongo.bson_size(document) == 1_739
assert (
    100 < mongo.bson_size(document) / len(scenarios.MARTA_TURNS) < 1000
)  # "a few hundred bytes a turn"
assert len(overlap[4].stored_after) == 3 and [m.content[:2] for m in overlap[4].stored_after] == [
    "u5",
    "a4",
    "a5",
]
assert (
    expiry.expires_after(
        marta_events[:3] + [expiry.Event(75, "write")], "Spring AI Redis (TTL 3600)"
    )
    == 135
)  # the failed 11:15 run saved its question
unreachable = backends.choose_backends(
    {"WINDOWMEM_POSTGRES_URL": "postgresql://user:password@127.0.0.1:1/db"}, workdir
)
assert unreachable.sql_kind == "sqlite" and "password@" not in unreachable.notes[0]
assert unreachable.notes[0].endswith(
    "; the SQL tables live in SQLite instead. Check the host, port and password in WINDOWMEM_POSTGRES_URL, or unset it."
)
assert (
    after_in_process[0].pid != before_in_process[0].pid
    and after_table[0].pid != before_table[0].pid
)
for race, first in ((n8n_race, "A"), (spring_race, "B")):  # both read first; who writes first
    first_write = next(
        i for i, step in enumerate(race.trace) if " write" in step or " save" in step
    )
    assert {step[0] for step in race.trace[:first_write]} == {"A", "B"} and race.trace[
        first_write
    ].startswith(first)
start_view = scenarios.play_scenario("Simple Memory (in-process)", 2, "nothing")[3]
assert start_view.worker == 2 and [m.content[:2] for m in start_view.sent[:-1]] == ["u2", "a2"]
assert (
    "not in this store: 1, 3"
    in OutliveExplorer(
        store="Simple Memory (in-process)", workers=2, event="nothing", call=4
    ).current_html()
)
if chosen.sql_kind == "postgresql":  # "the table ends with both lists"
    assert sorted(both) == sorted([m.content for m in history] * 2 + ["question A", "question B"])
# Self-check 1's worked answer (b): with maxMessages 5 a question's add makes at most five,
# which fit; an answer's makes six and keeps four; after turn 6, u5 a5 u6 a6.
window_5, stored_5, lengths_5 = SpringAiMessageWindow(5), [], []
for question, answer in scenarios.MARTA_TURNS:
    for message in (user(question), assistant(answer)):
        lengths_5.append(len(stored_5) + 1)  # the list the add trims
        stored_5 = list(window_5.write(stored_5, [message]))
assert max(lengths_5[0::2]) == 5 and max(lengths_5[1::2]) == 6
assert [m.content[:2] for m in stored_5] == ["u5", "a5", "u6", "a6"]
assert [m.content[:2] for m in spring_run[-1].stored_after] == ["u5", "a5", "u6", "a6"]
# Self-check 2's worked answer (b): the failed turn 7's question add keeps u6 a6 u7.
after_failed_7 = SpringAiMessageWindow(4).write(spring_run[-1].stored_after, [user("u7 Hello?")])
assert [m.content[:2] for m in after_failed_7] == ["u6", "a6", "u7"]
# Self-check 4's worked answer: a window of 2 interactions; (a) turn 8 on worker 2, own maps,
# after two more turns; (b) turn 6, the shared table's row.
own_maps_8 = alternate(
    StoreSpec("in-process"),
    "lesson4-page-workers",
    2,
    tuple(scenarios.MARTA_TURNS) + TURNS_7_AND_8,
)
assert own_maps_8[7].worker == "worker 2" and own_maps_8[6].worker == "worker 1"
assert [s[:2] for s in own_maps_8[7].sent[:-1]] == ["u4", "a4", "u6", "a6"]
assert [s[:2] for s in own_maps[5].sent[:-1]] == ["u2", "a2", "u4", "a4"]
assert [s[:2] for s in one_file[5].sent[:-1]] == ["u4", "a4", "u5", "a5"]
# (b) turn 7, past the table, on worker 1: the shared table holds turns 1 to 6 and sends 5, 6.
one_file_7 = alternate(
    StoreSpec("n8n-sql", os.path.join(workdir, "page-shared-7.db")),
    "lesson4-page-workers",
    2,
    tuple(scenarios.MARTA_TURNS) + TURNS_7_AND_8[:1],
)
assert one_file_7[6].worker == "worker 1"
assert [s[:2] for s in one_file_7[6].sent[:-1]] == ["u5", "a5", "u6", "a6"]
# Self-check 5's worked answer: (a) B, arriving during A's model call, loads u1 a1 only;
# (b) B saves its question, then A, then the answers, A first: question B is gone.
assert later["n8n"].sent["B"] == tuple(m.content for m in history) + ("question B",)
b_first = races.run_pair(
    "spring-ai",
    StoreSpec("spring-jdbc", chosen.sql_location),
    "lesson4-page-b-first",
    history,
    pair,
    schedule=races.SPRING_B_SAVES_FIRST,
)
assert b_first.stored[len(history) :] == ("question A", "answer A", "answer B")
# Self-check 8's worked answer: writes at 9:00 and 9:45, an hour after the last.
assert (
    expiry.expires_after(
        [expiry.Event(0, "write"), expiry.Event(45, "write")], "n8n Redis (sessionTTL 3600)"
    )
    == 105
)
# Self-check 3's: the new process sends nothing, then u3 a3; the table 4, then 6.
assert [[s[:2] for s in c.sent[:-1]] for c in after_in_process] == [[], ["u3", "a3"]]
assert [len(c.sent) - 1 for c in after_table] == [4, 6]
assert clock_time(expiry.expires_after(spring_events, "Spring AI Redis (TTL 3600)")) == "12:15"
# Section 6: the 10:50 page load (a read) uses Simple Memory, so its clock moves to 11:50;
# n8n's Redis key stays at 11:20.
simple_rows = expiry.timeline("n8n Simple Memory", marta_events)
assert clock_time(simple_rows[2].expires_at) == "11:50" and labels[2] == "10:50 page load"
# Blind and lost differ: B sees question A, yet A's answer save drops question B.
assert "question A" in not_blind.sent["B"] and "question B" not in not_blind.stored
assert later["spring-ai"].stored[2:] == (
    "question A",
    "question B",
    "answer A",
    "answer B",
)  # interleaved, none lost
assert later["n8n"].stored[2:] == ("question A", "answer A", "question B", "answer B")
print("every figure in the text checked")
