"""Lesson 4's hidden-test support (the judge loads it; students never receive it).

Part A's teams and the store each one needs (``_misses``, ``_answer``, seeded ``_teams``);
Part B's chats replayed on Simple Memory, a Postgres table and Redis (``_remembered``, with
the misreadings its cases tell apart); Part C's races on n8n and Spring AI (``_race``, seeded
``_races``); Part D's held and sent messages (``_held_sent``); and the checks that make a
returned list plain (``_plain``, ``_pair``).
"""

# the hidden tests' one seeded generator (autograder/judge/seeded.py), shared by every assignment
from autograder.judge.seeded import chooser as _chooser
from autograder.judge.seeded import drawer as _drawer

_type = (0).__class__.__class__
_list, _str, _tuple = [].__class__, "".__class__, ().__class__

_NAMES = ("Simple Memory", "Postgres Chat Memory", "Redis Chat Memory", "MongoDB Chat Memory")


def _misses(needs):
    # per node, the needs it fails (n8n 2.41.1), written out again here, never taken from the
    # notebook. Simple Memory: one map per process, a buffer deleted once unused for more than
    # 60 minutes, its clock moved by every run that loads it (failed ones too), nothing
    # deleted at a set time. Redis: sessionTTL seconds after the last write, the end of the
    # last answered run, so the TTL must outlast the pauses of every failed run after it and
    # end by the erasure deadline. Postgres and MongoDB never expire; a MongoDB document stops
    # at 16 MiB. No node locks a chat: a run never sees an overlapping run's question.
    _p, _f, _e, _k = (
        needs["pause_minutes"],
        needs["failed_in_a_row"],
        needs["erase_minutes"],
        needs["keep_days"],
    )
    _dbs, _out = needs["databases"], {_n: [] for _n in _NAMES}
    for _n in _NAMES:
        if needs["overlap"] == "each sees the other":
            _out[_n].append("overlap")
        if _n != _NAMES[0] and _n.split()[0] not in _dbs:
            _out[_n].append("database")
        if _n in (_NAMES[0], _NAMES[1], _NAMES[3]) and _e is not None:
            _out[_n].append("erase")
        if _n != _NAMES[1] and needs["sql"]:
            _out[_n].append("sql")
    _sm = _out[_NAMES[0]]
    _sm += ["workers"] * (needs["workers"] > 1) + ["restarts"] * needs["restarts"]
    _sm += ["pause"] * (_p > 60) + ["keep"] * (_k is not None)
    if _e is not None and _p > _e:
        _out[_NAMES[2]].append("pause")
    elif _e is not None and (_f + 1) * _p > _e:
        _out[_NAMES[2]].append(
            "failed runs"
        )  # each pause alone would fit; the failed runs between writes do not
    if _e is not None and _k is not None and _k * 1440 > _e:
        _out[_NAMES[2]].append("keep")
    if needs["session_turns"] * needs["turn_chars"] > 16 * 1024 * 1024:
        _out[_NAMES[3]].append("size")
    return _out


def _turns_on(needs, on):
    _m = _misses(needs)
    if on == "hour":
        return not _m[_NAMES[0]] and needs["pause_minutes"] == 60
    if on == "alongside":
        return not _m[_NAMES[0]] and any(not _m[_n] for _n in _NAMES[1:])
    if on == "boundary":
        _f, _e = needs["failed_in_a_row"], needs["erase_minutes"]
        return not _m[_NAMES[2]] and _f > 0 and (_f + 1) * needs["pause_minutes"] == _e
    if on == "failed runs" and needs["pause_minutes"] == needs["erase_minutes"]:
        return False  # one pause alone would already reach the deadline
    return [on] in _m.values()


def _answer(needs):
    return [_n for _n, _m in _misses(needs).items() if not _m]


def _subset(index):
    """The nodes of subset *index* of _NAMES (bit n: the n-th node), in _NAMES's order."""
    return [_n for _b, _n in enumerate(_NAMES) if index >> _b & 1]


#: The needs a team can turn on (``_turns_on``), and how often each is wanted against the
#: others: the hour at its edge, a pause and a keeping time most (the rules read off the prompt
#: or fitted to the visible teams get them wrong).
_ONS = {
    "failed runs": 1,
    "hour": 3,
    "size": 1,
    "workers": 1,
    "pause": 3,
    "boundary": 1,
    "keep": 3,
    "overlap": 1,
    "restarts": 1,
    "alongside": 1,
}


def _can_turn_on(nodes, on):
    # a need a team whose fitting nodes are *nodes* can turn on: an erasure deadline (failed
    # runs, boundary) fails every node but Redis, an overlap every node, and the needs Simple
    # Memory alone fails on leave it out
    if on == "overlap" or on == "failed runs":
        return not nodes
    if on == "boundary":
        return nodes == [_NAMES[2]]
    if on in ("hour", "alongside"):
        return _NAMES[0] in nodes and (on == "hour" or len(nodes) > 1)
    if on == "size":
        return _NAMES[3] not in nodes
    return _NAMES[0] not in nodes  # workers, pause, keep, restarts


#: The fitting nodes each edge allows: Redis alone fits at the deadline (the others keep
#: everything past it), none a day past 23 hours, MongoDB fails past 16 MiB and fits under it.
_EDGE_ALLOWS = {
    "keep at the deadline": lambda nodes: nodes == [_NAMES[2]],
    "a day past 23 hours": lambda nodes: not nodes,
    "just past 16 MiB": lambda nodes: _NAMES[3] not in nodes,
    "just under 16 MiB": lambda nodes: _NAMES[3] in nodes,
}


def _edge_place(turn):
    """The place of the team at cell *turn*'s edge (``_EDGES[turn]``): the last of the cell's
    sixteen whose fitting nodes the edge allows."""
    return max(
        _p
        for _p in range(16 * turn, 16 * turn + 16)
        if _EDGE_ALLOWS[_EDGES[turn]](_subset(_p % 16))
    )


def _make_plan():
    # the sixteen sets of nodes in turn, once in each cell's 16 teams, so that no
    # constant answer earns more than one in sixteen; each drawn team turning on the need it
    # can that has been wanted least so far, for its weight
    _edges, _used, _plan_ = {_edge_place(_t) for _t in range(4)}, dict.fromkeys(_ONS, 0), []
    for _place in range(64):
        _nodes = _subset(_place % 16)
        if _place in _edges:
            _plan_.append((_nodes, None))
            continue
        _on = min(
            (_on for _on in _ONS if _can_turn_on(_nodes, _on)),
            key=lambda _on: (_used[_on] / _ONS[_on], list(_ONS).index(_on)),
        )
        _used[_on] += 1
        _plan_.append((_nodes, _on))
    return tuple(_plan_)


def _plan(place):
    """The fitting nodes of the part's team number *place* (0 to 63), and the need it turns
    on (None at a cell's edge)."""
    return _PLAN[place % 64]


def _draw_team(draw):
    """One team from the seeded space of needs; None when its sessions' size is near 16 MiB."""
    _turns, _chars = draw((40, 300, 2000, 15000, 60000)), draw((400, 1200, 3000))
    _needs = {
        "workers": draw((1, 1, 1, 2, 3, 4)),
        "restarts": draw((False, False, True)),
        "databases": [_d for _d in ("Postgres", "Redis", "MongoDB") if draw((True, False))],
        "sql": draw((False, False, False, True)),
        "pause_minutes": draw((5, 10, 15, 20, 30, 45, 60, 90, 120, 240)),
        "failed_in_a_row": draw((0, 0, 1, 1, 2, 3)),
        "erase_minutes": draw((None, None, None, 30, 60, 90, 120, 240, 1440, 10080)),
        "keep_days": draw((None, None, None, 1, 7)),
        "session_turns": _turns,
        "turn_chars": _chars,
        "overlap": draw(
            (None, None, None, None, "no message lost", "no message lost", "each sees the other")
        ),
    }
    # sizes well away from 16 MiB, so that a message's overhead (about a hundred bytes) never decides
    if _turns * (_chars + 250) > 12 * 1024 * 1024 and _turns * _chars < 24 * 1024 * 1024:
        return None
    return _needs


def _team_for(draw, place):
    """A team drawn with *draw* with the fitting nodes, and turning on the need, that ``_plan``
    gives the part's team number *place*."""
    _nodes, _on = _plan(place)
    while True:
        _needs = _draw_team(draw)
        if (
            _needs is not None
            and _answer(_needs) == _nodes
            and (_on is None or _turns_on(_needs, _on))
        ):
            return _needs


def _teams(seed, count, first):
    """*count* teams from a seeded space of needs, the part's teams *first* onwards."""
    _draw = _chooser(seed)
    return [_team_for(_draw, _place) for _place in range(first, first + count)]


#: Teams at the edges of a rule, one per Part A cell: a keeping time that ends on the erasure
#: deadline (Redis fits), one day against a 23-hour deadline (Redis does not), a session just
#: past 16 MiB of text (MongoDB does not), and one just under it with room for every message's
#: overhead (MongoDB fits).
_EDGES = ("keep at the deadline", "a day past 23 hours", "just past 16 MiB", "just under 16 MiB")

_MIB = 1024 * 1024


def _edge_team(seed, edge, nodes=None):
    """One team from the seeded space of needs, moved onto *edge* (one of ``_EDGES``): the node
    the edge is about fits or fails on that edge alone; *nodes*, if given, the fitting ones."""
    _draw = _chooser(seed)
    while True:
        _needs = _draw_team(_draw)
        if _needs is None:
            continue
        if edge == "keep at the deadline":
            _keep = _draw((1, 7))
            _needs.update(keep_days=_keep, erase_minutes=_keep * 1440)
            _node, _want = _NAMES[2], []
        elif edge == "a day past 23 hours":
            _needs.update(keep_days=1, erase_minutes=23 * 60)
            _node, _want = _NAMES[2], ["keep"]
        elif edge == "just past 16 MiB":  # the text alone is over, by at most 16 KiB
            _turns = _draw((2048, 4096, 8192))
            _chars = 16 * _MIB // _turns + 1 + _draw(range(16 * 1024 // _turns))
            _needs.update(session_turns=_turns, turn_chars=_chars, erase_minutes=None)
            _node, _want = _NAMES[3], ["size"]
        else:  # within 16 KiB under, with 256 bytes a turn left for the two messages' overhead
            _turns = _draw((4, 8, 16))
            _room = 16 * _MIB - 256 * _turns
            _chars = _room // _turns - _draw(range(1000 // _turns))
            _needs.update(session_turns=_turns, turn_chars=_chars, erase_minutes=None)
            _node, _want = _NAMES[3], []
        if (
            _misses(_needs)[_node] == _want
            and _needs["overlap"] != "each sees the other"
            and (nodes is None or _answer(_needs) == nodes)
        ):
            return _needs


def _cell_teams(seed, edge, turn):
    """A Part A cell's sixteen teams, drawn from *seed*: the part's teams 16 x *turn* onwards
    (*turn*, the cell's place in the part, 0 to 3, whose edge is *edge*), one of them the team
    at that edge."""
    if not 0 <= turn < 4 or _EDGES[turn] != edge:
        raise ValueError(
            f"Part A's cell {turn} (0 to 3) has the edge {_EDGES[turn]!r}, not {edge!r}"
        )
    _draw, _at = _chooser(seed), _edge_place(turn)
    return [
        _edge_team(seed * 7 + 1, edge, _plan(_p)[0]) if _p == _at else _team_for(_draw, _p)
        for _p in range(16 * turn, 16 * turn + 16)
    ]


_PLAN = _make_plan()

_STORES = ("simple", "table", "redis")

_MISREADINGS = (
    "expiry at loads",
    "failed runs write",
    "writes move the hour",
    "hour from the start",
    "an hour exactly",
    "one map",
    "restart empties all",
)


def _remembered(store, turns, window, misread=None):
    # what each store does (n8n 2.41.1), written out again here, never taken from the notebook:
    # Simple Memory's clock is the start of the last run that loaded the buffer (more than
    # 3600 s idle deletes it), Redis's the end of the last run that wrote (a failed run writes
    # nothing; the key can expire while a run answers); a restart empties every Simple Memory
    # map. *misread* (only to choose the cases): one of _MISREADINGS, a reading a case must tell apart
    _held, _loaded, _written, _out = {}, {}, None, []
    for _t in turns:
        _start = _t["minute"] * 60
        _key = _t["worker"] if store == "simple" and misread != "one map" else 0
        if _t.get("restart_before") and (store == "simple" or misread == "restart empties all"):
            _held, _loaded = {}, {}
        _m = _held.setdefault(_key, [])
        if store == "simple" and _key in _loaded:
            _idle = _start - _loaded[_key]
            if _idle > 3600 or (_idle == 3600 and misread == "an hour exactly"):
                _m.clear()
        if store == "redis" and _written is not None and _start >= _written + 3600:
            _m.clear()
        _out.append(list(_m[-2 * window :] if window else _m))
        if misread != "writes move the hour":
            _loaded[_key] = _start
        if not _t.get("failed") or misread == "failed runs write":
            _end = _start + (0 if misread == "hour from the start" else _t["seconds"])
            if (
                store == "redis"
                and _written is not None
                and _end >= _written + 3600
                and misread != "expiry at loads"
            ):
                _m.clear()  # the key expired while the model answered: the write starts a new list
            _m += [_t["user"], _t["reply"]]
            _written = _end
            if misread == "writes move the hour":
                _loaded[_key] = _end
    return _out


def _held_sent(product, turns, size):
    # what each product does (n8n 2.41.1, Spring AI 2.0.1), written out again here: n8n stores
    # only answered turns and sends the last 2 x size (0: all); Spring AI's advisor gets the
    # memory, adds the question (kept when the call fails), then the answer, each add keeping
    # the longest tail of at most size messages that starts at a question
    if product == "n8n":
        _stored = [_x for _q, _a in turns[:-1] if _a is not None for _x in (_q, _a)]
        _q, _a = turns[-1]
        return _stored + ([_q, _a] if _a is not None else []), _stored[
            -2 * size :
        ] if size else _stored
    _kept, _sent = [], []
    for _n, (_q, _a) in enumerate(turns, start=1):
        if _n == len(turns):
            _sent = [_x for _x, _ in _kept]
        for _m in [(_q, True)] + ([(_a, False)] if _a is not None else []):
            _kept = _kept + [_m]
            if len(_kept) > size:
                _cut = len(_kept) - size
                while _cut < len(_kept) and not _kept[_cut][1]:
                    _cut += 1
                _kept = _kept[_cut:]
    return [_x for _x, _ in _kept], _sent


_STEPS = {"n8n": ("load", "write user", "write reply"),
          "spring": ("get", "find", "save user", "find", "save reply")}


def _race(product, start, schedule, misread=None):
    # what each product's steps do (n8n 2.41.1, Spring AI 2.0.1), written out again here: an
    # n8n write appends to what is stored now; a Spring AI save writes back what this request's
    # last find returned, plus its message (maxMessages 20 trims nothing here). *misread* (only
    # to choose the cases): "appends", each add one step that appends to what is stored;
    # "reads once", each request's saves write back its first find plus its own messages;
    # "one read", a find by either request taken as both requests' read
    _stored, _found, _taken, _written = list(start), {}, {"A": 0, "B": 0}, []
    for _r in schedule:
        _step = _STEPS[product][_taken[_r]]
        _taken[_r] += 1
        _msg = ("q" if _step.endswith("user") else "a") + _r
        if _step == "find" and misread == "one read":
            _found["A"] = _found["B"] = list(_stored)
        elif _step == "find" and not (misread == "reads once" and _r in _found):
            _found[_r] = list(_stored)
        elif _step.startswith("write") or (_step.startswith("save") and misread == "appends"):
            _stored = _stored + [_msg]
            _written.append(_msg)
        elif _step.startswith("save"):
            _stored = _found[_r] + [_msg]
            _written.append(_msg)
            if misread == "reads once":
                _found[_r] = _found[_r] + [_msg]
    return _stored, [_m for _m in dict.fromkeys(_written) if _m not in _stored]


def _races(seed, count):
    """*count* races from a seeded space: the first on n8n, the rest on Spring AI, each a
    schedule drawn uniformly from that product's interleavings in which the requests overlap
    (but for the four the lesson ran) and, on Spring AI, one that each add's own find decides
    (the misreadings of _race get it wrong), a start of 0 to 6 texts."""
    _draw = _drawer(seed)
    _found = []
    while len(_found) < count:
        _product = "n8n" if not _found else "spring"
        _left = {"A": len(_STEPS[_product]), "B": len(_STEPS[_product])}
        _schedule = ""
        while _left["A"] + _left["B"]:
            _r = "A" if _draw(_left["A"] + _left["B"]) < _left["A"] else "B"
            _left[_r] -= 1
            _schedule += _r
        _n = len(_STEPS[_product])
        if _schedule.startswith("A" * _n) or _schedule.startswith("B" * _n):
            continue  # one request after the other: no race
        if _schedule in ("ABABAB", "ABAABB", "AABBABAABB", "AAABBBAABB"):
            continue  # the four schedules the lesson ran
        _start = [("u" if _i % 2 == 0 else "r") + str(_i // 2 + 1) for _i in range(_draw(7))]
        _result = _race(_product, _start, _schedule)
        # on Spring AI, a timing that each add's own find decides: adding in one step and (but
        # for the first Spring AI race, which one shared read gets wrong instead) reading once
        # per request end otherwise
        _misreadings = ("appends", "one read" if len(_found) == 1 else "reads once")
        if _product == "spring" and _result in [_race(_product, _start, _schedule, _m) for _m in _misreadings]:
            continue
        _found.append((_product, _start, _schedule, _result))
    return _found


def _plain(got):
    assert _type(got) is _list, f"return a plain list, got {_type(got).__name__}"
    return [_m if _type(_m) is _str else None for _m in got]


def _pair(got):
    assert _type(got) is _tuple and len(got) == 2, "return a plain (held, sent) tuple"
    assert all(_type(_x) is _list for _x in got), "held and sent are plain lists"
    return tuple([_m if _type(_m) is _str else None for _m in _x] for _x in got)
