"""Lesson 3's hidden-test support: the judge imports it; students never receive it.

The judge gives every test cell of the assignment this module's helpers under their own
names (``autograder.judge.support.hidden_test_names``): n8n 2.41.1's Simple Memory replayed
on turns described by their tool rounds (AI Agent 3.1 stores a turn's last model round),
the seeded case generators, and Part B's situations with the one dial that explains each.
The assignment tests hold these references to windowmem's own memories
(tests/assignments/test_assignment_lesson03.py).

The names keep the cells' leading underscores: in a test cell, a name starting with ``_``
is the test's own and is never looked up in the student's kernel.
"""

# the hidden tests' one seeded generator (autograder/judge/seeded.py), shared by every assignment
from autograder.judge.seeded import drawer as _drawer

_type = (0).__class__.__class__

_list, _int, _str, _tuple, _bool, _dict = (
    [].__class__,
    (0).__class__,
    "".__class__,
    ().__class__,
    True.__class__,
    {}.__class__,
)


def _check_int_list(value, where):
    assert _type(value) is _list, f"{where}: return a plain list, got {_type(value).__name__}"
    for _item in value:
        assert _type(_item) is _int, (
            f"{where}: every turn must be an int, got {_type(_item).__name__}"
        )


def _stored_roles(tools, upto):
    # n8n 2.41.1, AI Agent 3.1: a turn is stored as the customer's message, then for each
    # tool call of its LAST model round an assistant message asking for it and its result,
    # then the answer
    _out = []
    for _t in range(1, upto):
        _rounds = tools[_t - 1]
        _out.append((_t, "user"))
        for _call in range(_rounds[-1] if _rounds else 0):
            _out += [(_t, "call"), (_t, "result")]
        _out.append((_t, "answer"))
    return _out


def _loaded(window, turn, tools):
    # Simple Memory hands over the last 2k stored messages (k = 0: all of them); the agent
    # then drops a result at the front whose call was cut off (a call at the front keeps
    # its result, and the last stored message is an answer: nothing else is ever dropped)
    _all = _stored_roles(tools, turn)
    _kept = _all if window == 0 else _all[max(0, len(_all) - 2 * window) :]
    while _kept and _kept[0][1] == "result":
        _kept = _kept[1:]
    return _kept


def _expected_turns(window, turn, tools):
    return sorted({_t for _t, _role in _loaded(window, turn, tools)})


_SHAPES = ([], [], [], [1], [1], [2], [3], [1, 1], [2, 1], [1, 2])


def _draw_tools(draw, count):
    # one entry per turn: the model rounds that asked for tools, each the calls asked at once
    return [list(_SHAPES[draw(len(_SHAPES))]) for _t in range(count)]


def _expected_messages(window, turn, failed):
    # Spring AI 2.0.1: the advisor reads the memory, then stores the customer's message before
    # the call, and the answer after it (a failed call stores no answer); every add trims the
    # memory to its last `window` messages, the cut moved forward to the next user message
    _memory = []

    def _add(_message):
        _memory.append(_message)
        if len(_memory) > window:
            _cut = len(_memory) - window
            while _cut < len(_memory) and _memory[_cut][1] != "user":
                _cut += 1
            del _memory[:_cut]

    for _t in range(1, turn):
        _add((_t, "user"))
        if _t not in failed:
            _add((_t, "assistant"))
    return list(_memory)


def _check_pairs(value, where):
    assert _type(value) is _list, f"{where}: return a plain list, got {_type(value).__name__}"
    for _pair in value:
        assert _type(_pair) is _tuple, (
            f"{where}: each message should be a tuple, got {_type(_pair).__name__}"
        )
        assert len(_pair) == 2, f"{where}: each message should be a (turn, role) pair"
        assert _type(_pair[0]) is _int and _type(_pair[1]) is _str, f"{where}: pairs are (int, str)"


_late = 30


def _whole_and_reached(window, calls):
    _loaded_late = _loaded(window, _late, [[calls]] * _late)
    _reached = sorted({_t for _t, _r in _loaded_late})
    _whole = [
        _t
        for _t in _reached
        if [_m for _m in _loaded_late if _m[0] == _t].__len__() == 2 + 2 * calls
    ]
    return len(_reached), len(_whole)


def _reaches(situation):
    # whether the customer's message of fact_turn is in what memory hands the last turn's call
    _window, _fact, _turns = situation["window"], situation["fact_turn"], situation["turns"]
    _buffers, _used = {}, {}  # (worker, key) -> stored (turn, role); -> minute of its last use
    for _number, _turn in enumerate(_turns, 1):
        if _turn["restart_before"]:
            _buffers, _used = {}, {}  # a restart empties every process's map
        _worker, _now = _turn["worker"], _turn["minute"]
        # the node, run in this process, first deletes every buffer idle for more than an hour
        for _where in [_w for _w in _buffers if _w[0] == _worker and _now - _used[_w] > 60]:
            del _buffers[_where], _used[_where]
        _where = (_worker, _turn["key"])
        _stored = _buffers.setdefault(_where, [])
        _used[_where] = _now
        if _number == len(_turns):
            _kept = _stored if _window == 0 else _stored[max(0, len(_stored) - 2 * _window) :]
            return (_fact, "user") in _kept
        _rounds = _turn["tools"]
        _stored += [(_number, "user")] + [(_number, "tool")] * 2 * (_rounds[-1] if _rounds else 0)
        _stored.append((_number, "answer"))


def _copy(situation, **changes):
    _out = {**situation, "turns": [dict(_t) for _t in situation["turns"]]}
    _out.update(changes)
    return _out


def _cause(situation):
    """The one dial whose repair alone brings the fact back; None if none or several do."""
    if _reaches(situation):
        return None
    _scope = _copy(situation)
    for _t in _scope["turns"]:
        _t["key"] = situation["turns"][-1]["key"]  # one key for the whole conversation
    _storage = _copy(situation)
    for _i, _t in enumerate(_storage["turns"]):
        _t.update(minute=_i, worker=1, restart_before=False)  # one process, never idle, no restart
    _window = _copy(situation, window=0)  # a load of everything stored
    _helped = [
        _c
        for _c, _s in (("scope", _scope), ("storage", _storage), ("window", _window))
        if _reaches(_s)
    ]
    return _helped[0] if len(_helped) == 1 else None


def _situation(draw, boundary=False):
    # one situation from the space: events often fall at or before the fact turn, where they do
    # no harm; a *boundary* situation pauses exactly an hour after the fact
    _n = 4 + draw(10)
    _fact = 2 + draw(_n - 2)

    def _when():
        return (
            None,
            2 + draw(_fact - 1),
            2 + draw(_fact - 1),
            2 + draw(_fact - 1),
            2 + draw(_fact - 1),
            2 + draw(_n - 1),
        )[draw(6)]

    _new_key_at, _restart_at, _pause_at = _when(), _when(), _when()
    if boundary:
        _pause_at = _fact + 1 + draw(_n - _fact)
    _workers = (1, 1, 2, 3)[draw(4)]
    _one_worker_from = (
        _fact if draw(2) else _n + 1
    )  # queue mode may still send later turns to one worker
    _turns, _minute = [], 0
    for _t in range(1, _n + 1):
        if _t == _pause_at and _t > 1:  # a pause: just under, at or past the hour
            _minute += 60 if boundary else (55, 59, 60, 60, 61, 62, 75, 90, 180)[draw(9)]
        elif _t > 1:
            _minute += (1, 2, 3, 4, 6, 10)[draw(6)]
        _turns.append(
            {
                "minute": _minute,
                "key": "chat-b2"
                if _new_key_at is not None and 1 < _new_key_at <= _t
                else "chat-a7",
                "worker": 1 if _workers == 1 or _t >= _one_worker_from else 1 + draw(_workers),
                "tools": list(_SHAPES[draw(len(_SHAPES))]),
                "restart_before": _t == _restart_at,
            }
        )
    return {
        "window": (0, 1, 2, 3, 4, 5, 5, 5, 8, 10)[draw(10)],
        "fact_turn": _fact,
        "turns": _turns,
    }


def _situations(seed, count):
    """*count* situations with exactly one cause each, the three causes taking turns."""
    _draw = _drawer(seed)
    _out, _order = [], []
    while len(_out) < count:
        if not _order:  # the three causes in turn, in an order drawn afresh for every three cases
            _order = ["scope", "storage", "window"]
            _first = _order.pop(_draw(3))
            _order = [_first] + ([_order[1], _order[0]] if _draw(2) else _order)
        _target = _order.pop(0)
        _boundary = len(_out) % 4 == 1  # two cases in eight sit at the idle limit
        _found = _situation(_draw, _boundary)
        while _cause(_found) != _target:
            _found = _situation(_draw, _boundary)
        _out.append(_found)
    return _out


def _expected_window(first, at, tools):
    _k = 1
    while (first, "user") not in _loaded(_k, at, tools):
        _k += 1
    return _k


def _unanswered_messages():
    """A short chat with turns the model never answered: turn 2's call after its tool result
    failed (the turn ends on the result), turn 3's call failed outright (a lone question).
    n8n stores nothing of such a turn, and a turn ending on a result still made its calls."""
    return [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Is order #7781 paid?"},
        {"role": "assistant", "content": "", "tool_calls": ["u1"]},
        {"role": "tool", "content": '{"paid": true}', "tool_call_id": "u1"},
        {"role": "assistant", "content": "Yes, it is paid."},
        {"role": "user", "content": "And has it shipped?"},
        {"role": "assistant", "content": "", "tool_calls": ["u2"]},
        {
            "role": "tool",
            "content": '{"shipped": false, "warehouse": "Cali"}',
            "tool_call_id": "u2",
        },
        {"role": "user", "content": "Hello? Are you there?"},
        {"role": "user", "content": "Can you check the shipping date again?"},
        {"role": "assistant", "content": "", "tool_calls": ["u4a", "u4b"]},
        {"role": "tool", "content": '{"ships": "tomorrow"}', "tool_call_id": "u4a"},
        {"role": "tool", "content": '{"carrier": "Envia"}', "tool_call_id": "u4b"},
        {"role": "assistant", "content": "It ships tomorrow with Envia."},
        {"role": "user", "content": "Thanks!"},
    ]


# Part C's expectations: every model call's tokens, counted with the judge's own Qwen
# tokenizer (never the notebook's counter)
from autograder.judge.support import qwen_tokenizer as _qwen_tokenizer  # noqa: E402


def _tokens(text):
    return len(_qwen_tokenizer().encode(text, allowed_special=set(), disallowed_special=()))


def _calls(messages, window):
    """Per turn, the tokens of each model call n8n 2.41.1 makes (AI Agent 3.1, Simple Memory *window*),
    and whether the customer's first message is in the memory of the turn's calls."""
    _system = [_m for _m in messages if _m["role"] == "system"]
    _head = _tokens(_system[0]["content"]) if _system else 0
    _turns = []
    for _m in messages:
        if _m["role"] == "user":
            _turns.append([_m])
        elif _m["role"] != "system":
            _turns[-1].append(_m)
    _stored, _out, _firsts = [], [], []  # (kind, tokens) of every stored message
    for _turn in _turns:
        _memory = _stored if window == 0 else _stored[max(0, len(_stored) - 2 * window):]
        while _memory and _memory[0][0] == "result":  # its call was cut off: the agent drops it
            _memory = _memory[1:]
        _firsts.append(_memory.__len__() > 0 and _memory.__len__() == _stored.__len__())
        _first = _head + sum(_t for _k, _t in _memory) + _tokens(_turn[0]["content"])
        # one more call after each round of tool results, sent every result of the run so far
        _rounds, _done = [], 0
        for _i, _m in enumerate(_turn):
            if _m["role"] == "tool":
                _done += _tokens(_m["content"])
                if _i + 1 == len(_turn) or _turn[_i + 1]["role"] != "tool":
                    _rounds.append(_first + _done)
        _out.append([_first] + _rounds)
        _answer = _turn[-1]
        if len(_turn) < 2 or _answer["role"] != "assistant" or _answer.get("tool_calls") or not _answer["content"]:
            continue  # a run without an answer stores nothing
        _saved = [("user", _tokens(_turn[0]["content"]))]
        _asks = [_m for _m in _turn if _m.get("tool_calls")]
        if _asks:  # the last round's calls only, one call message (empty) and its result each
            _results = {_m["tool_call_id"]: _m for _m in _turn if _m["role"] == "tool"}
            for _id in _asks[-1]["tool_calls"]:
                _saved += [("call", 0), ("result", _tokens(_results[_id]["content"]))]
        _saved.append(("answer", _tokens(_answer["content"])))
        _stored = _stored + _saved
    return _out, _firsts
