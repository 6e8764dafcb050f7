"""Lesson 2's hidden-test support: the judge imports it; students never receive it.

The judge loads this module for every test cell of the assignment
(``autograder.judge.support.hidden_test_names``), which reads it as ``_support``: the
tokens a message list is read as (Parts A and B), and Part C's logs, drawn from a seed, with
the one cause each has. The products' rules here are n8n 2.41.1 (AI Agent 3.1, Simple Memory
1.3) and Spring AI 2.0.1, as the assignment's Part C states them; the assignment tests hold
every drawn log's cause to windowmem's own stores (tests/assignments/test_lesson02_assignment.py).
"""

from __future__ import annotations

import copy
import functools
from typing import Any

# the hidden tests' one seeded generator (autograder/judge/seeded.py), shared by every assignment
from autograder.judge.seeded import drawer

#: Part C's causes, in the notebook's order.
CAUSES = (
    "no memory",
    "new session id per message",
    "window too small",
    "failed run",
    "storage lost",
    "tool result not stored",
)


def tokens(messages: Any, executions: list[dict], system: str) -> str:
    """Each message as a short token: S, U3 (input of run 3), A3 (its answer), C:id, R:id.

    Raises AssertionError, saying what is wrong, for anything that is not a plain list of
    plain message dicts of this chat.
    """
    assert type(messages) is list, f"return a plain list, got {type(messages).__name__}"
    out = []
    for message in messages:
        assert type(message) is dict, f"each message is a plain dict, got {type(message).__name__}"
        role, content = message.get("role"), message.get("content")
        assert type(content) is str, f"content must be text, got {type(content).__name__}"
        if role == "system" and content == system:
            out.append("S")
            continue
        if role == "assistant" and message.get("tool_calls"):
            assert type(message["tool_calls"]) is list and content == "", (
                "a tool call: content '' and a list of ids"
            )
            out.append("C:" + ",".join(message["tool_calls"]))
            continue
        if role == "tool":
            out.append("R:" + str(message.get("tool_call_id", "?")))
            call = [
                c
                for e in executions
                for c in e.get("tool_calls", [])
                if c["id"] == message.get("tool_call_id")
            ]
            assert call and content == call[0]["result"], (
                f"tool message {message}: its content is the tool's result"
            )
            continue
        found = "?"
        for i, e in enumerate(executions, start=1):
            if role == "user" and content == e["chatInput"]:
                found = f"U{i}"
            if role == "assistant" and "output" in e and content == e["output"]:
                found = f"A{i}"
        assert found != "?", f"{message} is not a message of this chat"
        out.append(found)
    return " ".join(out)


#: Misreadings of the buffers, each a step of them done wrong (only to choose the edge cases):
#: a restart that empties nothing; a tool result at the front of the window kept though its call
#: was cut; a call at the front dropped though its result follows it.
MISREADINGS = ("restarts keep memory", "result at the front kept", "call at the front dropped")


def reaches(case, fixed=None, misread=None):
    """Does the fact reach the first model call of run `missing_on`, with the one mechanism *fixed* taken away?

    *misread*, one of ``MISREADINGS``, does one step wrong (only to choose the cases).
    """
    n8n = case["product"] == "n8n"
    window = case["window"]
    if window is None:
        if fixed != "no memory":
            return False
        window = 0 if n8n else 10**6
    if fixed == "window too small":
        window = 0 if n8n else 10**6
    j, where, m = case["fact"]["run"], case["fact"]["in"], case["missing_on"]
    runs = case["runs"]
    stores, used = {}, {}
    for i, run in enumerate(runs[:m], start=1):
        sid = runs[0]["session_id"] if fixed == "new session id per message" else run["session_id"]
        if fixed != "storage lost":
            if run.get("restart_before") and misread != "restarts keep memory":
                stores.clear()
                used.clear()
            if n8n:  # Simple Memory: buffers idle for more than an hour go when the node runs
                for old in [s for s, t in used.items() if run["minute"] - t > 60]:
                    del used[old]
                    stores.pop(old, None)
        held = stores.setdefault(sid, [])
        used[sid] = run["minute"]
        if i == m:
            loaded = list(held) if (not n8n or window == 0) else held[-2 * window :]
            while loaded and (
                (loaded[0][1] == "result" and misread != "result at the front kept")
                or (
                    loaded[0][1] == "call"
                    and (
                        len(loaded) < 2
                        or loaded[1][1] != "result"
                        or misread == "call at the front dropped"
                    )
                )
            ):
                loaded.pop(0)
            return any(x[0] == j and x[2] == where for x in loaded if x[1] in ("input", "result"))
        calls = run.get("tool_calls", [])
        answered = "error" not in run and bool(run.get("output"))
        if fixed == "failed run" and i == j:
            answered = True
        every_round = fixed == "tool result not stored"
        if n8n:
            if answered:
                held.append((i, "input", "input"))
                for c in calls if every_round else calls[-1:]:
                    held += [(i, "call", c["id"]), (i, "result", c["id"])]
                held.append((i, "answer", ""))
        else:
            added = [[(i, "input", "input")]]
            if answered or "error" not in run:
                added.append(
                    (
                        [x for c in calls for x in ((i, "call", c["id"]), (i, "result", c["id"]))]
                        if every_round
                        else []
                    )
                    + [(i, "answer", "")]
                )
            for group in added:  # Spring AI's window trims on every add, to whole turns
                held += group
                excess = len(held) - window
                if excess > 0:
                    cut = min(excess, len(held))
                    while cut < len(held) and held[cut][1] != "input":
                        cut += 1
                    del held[:cut]
    raise AssertionError("missing_on is past the last run")


def cause(case, misread=None):
    """The one cause whose removal lets the fact through; None if not exactly one."""
    if reaches(case, misread=misread):
        return None
    found = [c for c in CAUSES if reaches(case, c, misread)]
    return found[0] if len(found) == 1 else None


def looks_like(case):
    """The causes a reading of the log's surface suggests: a decoy unless it is the cause."""
    runs, j = case["runs"], case["fact"]["run"]
    out = []
    if case["fact"]["in"] != "input":
        out.append("tool result not stored")
    if "error" in runs[j - 1] or not runs[j - 1].get("output"):
        out.append("failed run")
    if any(r.get("restart_before") for r in runs) or any(
        b["minute"] - a["minute"] > 60 for a, b in zip(runs, runs[1:])
    ):
        out.append("storage lost")
    if len({r["session_id"] for r in runs}) > 1:
        out.append("new session id per message")
    if case["window"] is not None and 0 < case["window"] <= (3 if case["product"] == "n8n" else 6):
        out.append("window too small")
    return out


def readings(case):
    """Three readings of the log's signs that keep no buffer: every sign in the log; the fact's run and
    what follows it, both products alike; the same with each product's rules. Drawn logs are ones they misread."""
    runs, j, m, where = case["runs"], case["fact"]["run"], case["missing_on"], case["fact"]["in"]
    n8n, said, after = case["product"] == "n8n", runs[j - 1], runs[j - 1 : m]
    failed = "error" in said or not said.get("output")

    def gap(rs):
        return any(b["minute"] - a["minute"] > 60 for a, b in zip(rs, rs[1:]))

    def signs(seen, rules):
        if case["window"] is None:
            return "no memory"
        if failed and (n8n or not rules):
            return "failed run"
        if where != "input" and not (rules and n8n and said["tool_calls"][-1]["id"] == where):
            return "tool result not stored"
        if any(r.get("restart_before") for r in seen[1:]) or (gap(seen) and (n8n or not rules)):
            return "storage lost"
        if len({r["session_id"] for r in seen}) > 1:
            return "new session id per message"
        return "window too small"

    def anywhere():
        if case["window"] is None:
            return "no memory"
        if len({r["session_id"] for r in runs}) == len(runs):
            return "new session id per message"
        if where != "input":
            return "tool result not stored"
        if any(r.get("restart_before") for r in runs) or gap(runs):
            return "storage lost"
        return "failed run" if failed else "window too small"

    return [anywhere(), signs(after, False), signs(after, True)]


#: The causes a reading of the log that follows each product's rules but no buffer names
#: rightly whenever they are the cause (a detached memory, a failed n8n run, a tool result the
#: product never stores, a session id that changed after the fact), and the two that only
#: following the buffers tells (what the window keeps, which buffer an idle hour or a restart
#: emptied).
ON_ITS_FACE = (
    "no memory",
    "new session id per message",
    "failed run",
    "tool result not stored",
)
IN_THE_BUFFERS = ("window too small", "storage lost")

#: Two causes on the log's face for each three, in the order the part's threes take them: each
#: pair four times over the part's 24 threes, and every three threes in a row (one cell) hold a
#: pair with the tool result, for the cell's edge case.
FACE_PAIRS = (
    ("no memory", "new session id per message"),
    ("no memory", "tool result not stored"),
    ("new session id per message", "failed run"),
    ("no memory", "failed run"),
    ("new session id per message", "tool result not stored"),
    ("failed run", "tool result not stored"),
)

#: How many of the three ``readings`` (in order) a drawn log of each cause must misread: as
#: many as its cause allows (the causes on the log's face cannot fool the rules read product
#: by product, nor a detached memory or an unstored tool result any reading).
FOOLED = {
    "no memory": 0,
    "new session id per message": 2,
    "window too small": 3,
    "failed run": 1,
    "storage lost": 3,
    "tool result not stored": 0,
}


def threes(seed: int, misread: str, turn: int) -> list[list[dict]]:
    """A Part C cell's nine logs, drawn from *seed*, in three threes of three different causes.

    A three counts when all three of its causes are named. Each holds one cause that only
    following the buffers tells (``IN_THE_BUFFERS``, in turns) and two on the log's face
    (``FACE_PAIRS``, in turns); *turn* is the cell's place in the part (0 to 7), so that over
    the part's eight cells every cause is the cause of exactly 12 of the 72 logs, and a three
    never has one cause twice. A constant answer names no three; a reading that follows no
    buffer names at most the threes whose buffer log it happens to get right. One log of a
    three is the cell's edge case for *misread* (``EDGES``), in the first three whose slot has
    its cause.
    """
    # drawing a cell's logs takes about half a second (most draws are rejected); a grading
    # process draws them once and hands each test its own copy
    return copy.deepcopy(_threes(seed, misread, turn))


@functools.cache
def _threes(seed: int, misread: str, turn: int) -> list[list[dict]]:
    if not 0 <= turn < 8:
        raise ValueError(f"turn is the cell's place in Part C, 0 to 7, not {turn}")
    draw = drawer(seed)
    edge_cause = EDGES[misread][0]
    edge_left = True
    out = []
    for place in range(3 * turn, 3 * turn + 3):
        three = []
        for target in (IN_THE_BUFFERS[place % 2], *FACE_PAIRS[place % 6]):
            if target == edge_cause and edge_left:
                three.append(_edge_drawn(seed, misread))
                edge_left = False
            else:
                three.append(_one_case(draw, target, FOOLED[target]))
        out.append(three)
    if edge_left:
        raise AssertionError(f"no three of turn {turn} has a slot for {edge_cause}")
    return out


#: The edge cases, one a cell: (misreading it tells apart, the cause, how many of the three
#: readings must misread it). A restart that alone loses the fact (no idle hour does), a fact in
#: a tool result left at the window's front without its call, and a fact in a result that only
#: the whole of a run's stored tool rounds brings back, with an earlier round's result cut.
EDGES = {
    "restarts keep memory": ("storage lost", 2),
    "result at the front kept": ("window too small", 3),
    "call at the front dropped": ("tool result not stored", 0),
}


def edge_case(seed: int, misread: str) -> dict:
    """One log from *seed* (a stream of its own), with one cause, that *misread* gets wrong."""
    return copy.deepcopy(_edge_drawn(seed, misread))


@functools.cache
def _edge_drawn(seed: int, misread: str) -> dict:
    target, fooled = EDGES[misread]
    return _one_case(drawer(seed * 7 + 1), target, fooled, misread)


def _one_case(draw, target, fooled, misread=None):
    """A log drawn with *draw* whose cause is *target* and that fools the first *fooled*
    readings (and, given *misread*, that the misreading gets wrong)."""

    def pick(options):
        return options[draw(len(options))]

    while True:
        n8n = draw(3) != 0
        count_runs = 4 + draw(6)
        first, second = f"{draw(65536):04x}-a", f"{draw(65536):04x}-b"
        sessions = pick(("one", "one", "per message", "reload", "tabs", "tabs", "back", "back"))
        switch, back = sorted((1 + draw(count_runs), 1 + draw(count_runs)))
        runs, minute = [], 0
        for i in range(1, count_runs + 1):
            sid = {
                "one": first,
                "per message": f"{draw(65536):04x}-{i:02d}",
                "reload": second if i > switch else first,
                "tabs": second if i > 1 and draw(2) else first,
                "back": second if switch < i <= back else first,
            }[sessions]
            run = {"minute": minute, "session_id": sid, "chatInput": f"message {i}"}
            if i > 1 and draw(10) == 0:
                run["restart_before"] = True
            rounds = pick((0, 0, 1, 1, 2, 2, 3)) if i < count_runs else 0
            if rounds:
                run["tool_calls"] = [
                    {
                        "id": f"t{i}{'abc'[r]}",
                        "tool": pick(("track_order", "check_stock", "lookup_customer")),
                        "input": {},
                        "result": f"result {i}{'abc'[r]}",
                    }
                    for r in range(rounds)
                ]
            outcome = draw(10)
            if outcome < 2:
                run["error"] = pick(
                    (
                        "429 Too Many Requests",
                        "The model provider timed out",
                        "Tool failed: 500",
                    )
                )
            elif outcome < 3 and n8n:
                run["output"] = ""
            else:
                run["output"] = f"answer {i}"
            runs.append(run)
            minute += pick((1, 2, 3, 5, 10, 20, 25, 30, 40, 45, 59, 60, 60, 61, 61, 75, 90))
        j = 1 + draw(count_runs - 1)
        calls = runs[j - 1].get("tool_calls", [])
        where = pick(calls)["id"] if calls and draw(3) else "input"
        window = (
            None
            if draw(12) == 0
            else pick((0, 1, 2, 3, 4, 5, 6, 8))
            if n8n
            else pick((2, 4, 6, 8, 10, 20))
        )
        case = {
            "product": "n8n" if n8n else "Spring AI",
            "window": window,
            "runs": runs,
            "fact": {"run": j, "in": where},
            "missing_on": count_runs,
        }
        if (
            cause(case) == target
            and len([c for c in looks_like(case) if c != target]) >= 2
            and all(r != target for r in readings(case)[:fooled])
            and (misread is None or cause(case, misread) != target)
        ):
            return case
