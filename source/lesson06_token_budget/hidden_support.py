"""Lesson 6's hidden-test support (the judge loads it; students never receive it).

Part C's situations drawn from a seed, a kind per case (``_situations``, ``_KINDS``: three
cases per policy in every cell), each policy run on them in plain Python (``_run``, the
budget engine's rules), whether a policy meets the situation's needs (``_meets``) and the
policy expected (``_expected``). Nothing here is in the library a student installs.
"""

# the hidden tests' one seeded generator (autograder/judge/seeded.py), shared by every assignment
from autograder.judge.seeded import drawer as _drawer

_type = (0).__class__.__class__

_POLICIES = ("unbounded", "truncate", "compact", "retrieve")


def _run(situation, policy, misread=None):
    """Lesson 6's agent on a situation, written out again here: (peak, answered, from a summary, calls, reads).

    *misread* (only to choose the cases): "compacts every read", a compaction after every
    read, not only when a read takes the window over the budget.
    """
    _base, _budget, _line = (
        situation["base_tokens"],
        situation["budget"],
        situation["summary_line_tokens"],
    )
    _questions, _pending = [], []
    for _fact, _tokens in situation["reads"]:
        _pending.append(_tokens)
        if _fact is not None:
            _questions.append((_fact, _pending))
            _pending = []
    _window = []  # [kind, facts, tokens]: a read holds its fact (or none), a summary its lines
    _state = {"peak": _base, "calls": 0, "reads": 0}

    def _size():
        return _base + sum(_item[2] for _item in _window)

    def _truncate():
        while _size() > _budget and len(_window) > 1:  # never the newest item
            _kind, _facts, _tokens = _window[0]
            if _kind == "summary" and len(_facts) > 1:
                _window[0] = ["summary", _facts[1:], _line * (len(_facts) - 1)]
            else:
                del _window[0]
            _state["peak"] = max(_state["peak"], _size())

    def _compact():
        _reads = [_item for _item in _window if _item[0] == "read"]
        if len(_reads) < 2:
            _truncate()
            return
        _lines = [_f for _item in _window if _item[0] == "summary" for _f in _item[1]]
        for _item in _reads[:-1]:
            _lines += [_f for _f in _item[1] if _f not in _lines]
        _state["calls"] += (
            1  # the compaction call, on the window before the summary replaces the reads
        )
        _window[:] = [["summary", _lines, _line * len(_lines)], _reads[-1]]
        _state["peak"] = max(_state["peak"], _size())
        _truncate()

    def _read(fact, sizes):
        for _n, _tokens in enumerate(sizes):
            _state["calls"] += 1  # the search call, on the window as it stands
            _state["reads"] += 1
            _window.append(["read", [fact] if _n == len(sizes) - 1 else [], _tokens])
            _state["peak"] = max(_state["peak"], _size())
            if policy != "unbounded" and (_size() > _budget or misread == "compacts every read"):
                _compact() if policy == "compact" else _truncate()

    for _fact, _sizes in _questions:
        _read(_fact, _sizes)
    _answered, _from_summary = [], []
    for _fact, _sizes in _questions:
        if policy == "retrieve" and not any(_fact in _item[1] for _item in _window):
            _read(_fact, _sizes)
        if any(_fact in _item[1] for _item in _window):
            _answered.append(_fact)
            if not any(_item[0] == "read" and _fact in _item[1] for _item in _window):
                _from_summary.append(_fact)
    _state["calls"] += 1  # the last call writes the answers
    return _state["peak"], _answered, _from_summary, _state["calls"], _state["reads"]


def _meets(situation, policy, misread=None):
    _peak, _answered, _from_summary, _calls, _reads = _run(situation, policy, misread)
    if policy == "unbounded":
        return _peak <= situation["budget"]
    _count = len(situation["reads"])
    _facts = [_f for _f, _t in situation["reads"] if _f is not None]
    return not (
        (situation["every_fact"] and len(_answered) < len(_facts))
        or (not situation["summary_will_do"] and _from_summary)
        or (not situation["extra_calls"] and _calls != _count + 1)
        or (not situation["search_again"] and _reads != _count)
    )


def _expected(situation, misread=None):
    return next((_p for _p in _POLICIES if _meets(situation, _p, misread)), None)


#: Each kind of case a C1 cell draws: (the policy it needs, how its budget sits, the team's
#: four requirements: every_fact, summary_will_do, extra_calls, search_again; None: drawn).
#: A cell asks each policy equally often (a constant earns a quarter), and every case where a
#: budget is reached needs every fact and allows extra calls, so the lesson's rules read by
#: keyword (forgetting allowed -> truncate, quoted -> retrieve, else compact) fail on the
#: truncate and retrieve cases; a kind with a requirement off tells that requirement's rule.
_KINDS = (
    ("unbounded", "at the peak", None),  # 0: the budget exactly the largest window
    ("unbounded", "over the peak", None),  # 1
    ("truncate", "a token under", (True, True, True, True)),  # 2: only a miss at the front goes
    ("truncate", "under", (True, True, True, True)),  # 3: truncation drops only misses
    ("compact", "under", (True, True, True, True)),  # 4: truncation loses a fact, the summary fits
    ("retrieve", "under", (True, True, True, True)),  # 5: the summary outgrows the room
    ("truncate", "under", (True, False, True, True)),  # 6: quoted answers, truncation keeps them
    ("retrieve", "under", (True, False, True, True)),  # 7: quoted answers, truncation loses one
    ("truncate", "under", (True, True, True, False)),  # 8: searched once, truncation keeps all
    ("compact", "under", (True, True, True, False)),  # 9: searched once, the summary fits
    # 10: summary lines dearer than some reads: compacting only when over the budget keeps
    # every fact, compacting after every read would not
    ("compact", "under, long lines", (True, True, True, True)),
    # 11: a read holding a fact is over the room alone: it stays, being the newest
    ("retrieve", "a read over the room", (True, True, True, True)),
)


def _situations(seed, kinds):
    """One situation per entry of *kinds* (an index in ``_KINDS``), drawn from a seeded space."""
    _pick = _drawer(seed)
    _out = []
    for _kind in kinds:
        _policy, _where, _needs = _KINDS[_kind]
        while True:
            _situation = _draw(_pick, _where, _needs)
            if _expected(_situation) == _policy and _placed(_situation, _where):
                _out.append(_situation)
                break
    return _out


def _placed(situation, where):
    """Whether *situation*'s budget sits where *where* says (the draw's own budgets do)."""
    _room = situation["budget"] - situation["base_tokens"]
    if where == "under, long lines":  # and compacting after every read would lose a fact
        _misread = _expected(situation, "compacts every read")
        return situation["budget"] < _peak(situation) - 30 and _misread != "compact"
    if where == "under":
        return situation["budget"] < _peak(situation) - 30
    if where == "a read over the room":
        return any(_f is not None and _t > _room for _f, _t in situation["reads"])
    return True


def _peak(situation):
    return situation["base_tokens"] + sum(_t for _f, _t in situation["reads"])


def _draw(pick, where, needs):
    """A task of three to six questions, some with a miss first, its budget placed by *where*."""
    _base, _reads = 60 + 10 * pick(15), []
    for _number in range(1, 3 + pick(4) + 1):
        if pick(3) == 0:
            _reads.append((None, 60 + 10 * pick(25)))
        _reads.append((f"Q{_number}", 60 + 10 * pick(25)))
    _largest = max(_t for _f, _t in _reads)
    _peak_tokens = _base + sum(_t for _f, _t in _reads)
    _budget = {
        "at the peak": _peak_tokens,
        "over the peak": _peak_tokens + 1 + pick(300),
        "a token under": _peak_tokens - 1,
        "a read over the room": _base + _largest - 1 - pick(_largest // 2),
    }.get(where)
    if _budget is None:
        _budget = _base + _largest + pick(_peak_tokens - _base - _largest)
    _line = 10 + 5 * pick(9) if where != "under, long lines" else 60 + 10 * pick(15)
    if needs is None:
        needs = (pick(4) != 0, pick(2) == 0, pick(4) != 0, pick(3) != 0)
    return {
        "base_tokens": _base, "reads": _reads, "budget": _budget, "summary_line_tokens": _line,
        "every_fact": needs[0], "summary_will_do": needs[1], "extra_calls": needs[2], "search_again": needs[3],
    }  # fmt: skip
